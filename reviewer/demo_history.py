"""Five weeks of demo answers for the trends page, with a model change in it.

Answers on the demo surfaces, built from the demo documents' text as inline
sources and sent through the real path (``answer_submit``) as having arrived then:
"model-a" serves the first three weeks, "model-b" the last two, and model-b
cites a source that was never injected (a fabricated marker) about ten times
as often. Reviewers decide some of the failing ones after a few hours
(``review_decide``, as made then), so the decision charts have something to
show and the triage queue's counts stay true. Seeded: the same answers every run.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone

from reviewer import demo
from reviewer.models import Answer, ApiClient, CitationVerdict
from reviewer.services.answers import answer_submit
from reviewer.services.reviews import review_decide
from reviewer.services.trends import trend_alerts_check

__all__ = ["HISTORY_DAYS", "ID_PREFIX", "SWITCH_AFTER_DAYS", "load_history"]

HISTORY_DAYS = 35
SWITCH_AFTER_DAYS = 21  # model-b from the 22nd day: the last two weeks
ID_PREFIX = "demo-history-"
#: Answers a day per surface (about; ±20 %).
PER_DAY = {"benefits-chat": 14, "legal-review": 8, "clinical-review": 4}
SECTIONS = {"benefits-chat": demo.BENEFITS, "legal-review": demo.CONTRACT,
            "clinical-review": demo.GUIDELINE}
QUESTIONS = {
    "benefits-chat": ["What does the plan say about this?", "Am I eligible, and when?",
                      "How does the employer match work?", "What happens to unused leave?"],
    "legal-review": ["What does the agreement say on this?", "Summarise the clause.",
                     "What are the notice periods?"],
    "clinical-review": ["What does the guideline recommend?", "When should treatment start?"],
}
#: Per model: the chance an answer carries each kind of flaw.
FLAWS = {
    "model-a": {"fabricated": 0.03, "altered": 0.08, "not_found": 0.04, "uncited": 0.15},
    "model-b": {"fabricated": 0.32, "altered": 0.08, "not_found": 0.04, "uncited": 0.15},
}
INVENTED_QUOTES = ["the company pays all dental costs", "benefits may be withdrawn at any time",
                   "either party may assign this agreement without consent",
                   "treatment should always start after one reading"]
UNCITED = ["This is common practice in the industry.", "Most people find this arrangement fair.",
           "The rules changed last year."]
INVENTED_CLAIMS = ["Vision care is reimbursed in full", "Overtime is paid at double rate",
                   "The policy was approved by the board in 2019",
                   "Exceptions are granted on request"]


def _sentences(body: str) -> list[str]:
    return [s.strip().rstrip(".") for s in re.split(r"(?<=\.)\s+(?=[A-Z])", body) if s.strip()]


def _alter(quote: str, rng: random.Random) -> str:
    """One detail changed, as a model misquoting would: a digit, or a word."""
    digits = [i for i, ch in enumerate(quote) if ch.isdigit()]
    if digits:
        i = rng.choice(digits)
        return quote[:i] + str((int(quote[i]) + 1) % 10) + quote[i + 1:]
    words = quote.split()
    i = rng.randrange(1, len(words))
    words[i] = "never" if words[i] != "never" else "always"
    return " ".join(words)


def _payload(rng: random.Random, surface: str, model: str, external_id: str) -> dict[str, Any]:
    sections = SECTIONS[surface]
    picked = rng.sample(sections, k=min(2, len(sections)))
    sources = [{"marker": f"S{n}", "text": f"{heading}. {body}"}
               for n, (heading, body) in enumerate(picked, start=1)]
    flaws = FLAWS[model]
    parts = []
    for n, (_, body) in enumerate(picked, start=1):
        quote = rng.choice(_sentences(body))
        if rng.random() < flaws["altered"]:
            quote = _alter(quote, rng)
        parts.append(f'The document says "{quote}" [S{n}].')
    if rng.random() < flaws["not_found"]:
        parts.append(f'It also states "{rng.choice(INVENTED_QUOTES)}" [S1].')
    if rng.random() < flaws["uncited"]:
        parts.append(rng.choice(UNCITED))
    if rng.random() < flaws["fabricated"]:
        parts.append(f"{rng.choice(INVENTED_CLAIMS)} [S{len(sources) + rng.randint(1, 6)}].")
    return {"id": external_id, "surface": surface, "model": model,
            "question": rng.choice(QUESTIONS[surface]), "answer": " ".join(parts),
            "sources": sources}


def load_history(*, client: ApiClient, today: date | None = None,
                 say: Callable[[str], None] = lambda line: None) -> int:
    """Submit the history (unless loaded before), as it arrived and was
    decided, and check the trends summary for changes; returns the answers
    added. Every answer and decision goes through the services
    (``answer_submit``, ``review_decide``), so the kept counts (trends' and
    the triage queue's) count them as they are: nothing to rebuild."""
    today = today or timezone.now().astimezone(UTC).date()
    added = 0
    if not Answer.objects.filter(client=client, external_id__startswith=ID_PREFIX).exists():
        added = _submit_history(client, today)
        say(f"  history: {added} answers over {HISTORY_DAYS} days, model-a then model-b")
    else:
        say("  history: kept as loaded before")
    alerts = trend_alerts_check(days=HISTORY_DAYS + 1, today=today)
    for alert in alerts:
        say(f"  rate change: {alert.day} {alert.surface.name} {alert.model} {alert.outcome} "
            f"{alert.rate:.0%} (fortnight before: {alert.baseline_rate:.0%})")
    return added


def _submit_history(client: ApiClient, today: date) -> int:
    rng = random.Random(20260101)
    first_day = today - timedelta(days=HISTORY_DAYS)
    arrived: dict[int, datetime] = {}
    # One transaction: a commit per answer would cost more than verifying it.
    with transaction.atomic():
        _submit_days(rng, client, first_day, arrived)
        _decide_some(rng, arrived)
    return len(arrived)


def _submit_days(rng: random.Random, client: ApiClient, first_day: date,
                 arrived: dict[int, datetime]) -> None:
    for day_index in range(HISTORY_DAYS):
        day = first_day + timedelta(days=day_index)
        model = "model-a" if day_index < SWITCH_AFTER_DAYS else "model-b"
        for surface, per_day in PER_DAY.items():
            for n in range(max(1, round(per_day * rng.uniform(0.8, 1.2)))):
                external_id = f"{ID_PREFIX}{surface}-{day_index:02d}-{n:02d}"
                payload = _payload(rng, surface, model, external_id)
                moment = datetime.combine(day, time(7), tzinfo=UTC) + timedelta(
                    minutes=rng.randrange(13 * 60))
                answer = answer_submit(client=client, data=payload, received_at=moment).answer
                arrived[answer.pk] = moment


def _decide_some(rng: random.Random, arrived: dict[int, datetime]) -> None:
    """Decisions on about 60 % of the failing answers, a few hours after
    each arrived, by the demo's reviewers, through ``review_decide`` as made
    then (``decided_at``), every failing citation opened."""
    people = list(get_user_model().objects.filter(username__in=("reviewer", "reviewer2")))
    if not people:
        return
    now = timezone.now()
    failing = Answer.objects.filter(pk__in=arrived).exclude(verdict=Answer.Verdict.PASS)
    planned = []
    for pk in failing.order_by("pk").values_list("pk", flat=True):
        if rng.random() > 0.6:
            continue
        when = arrived[pk] + timedelta(minutes=rng.randrange(20, 26 * 60))
        if when >= now:
            continue
        decision = rng.choices(["approve", "reject", "escalate"], weights=(5, 4, 1))[0]
        planned.append((pk, decision, rng.choice(people), when))
    citations = defaultdict(list)
    for answer_id, pk in CitationVerdict.objects.filter(
            answer_id__in=[pk for pk, *_ in planned]).values_list("answer_id", "pk"):
        citations[answer_id].append(pk)
    answers = Answer.objects.in_bulk([pk for pk, *_ in planned])
    # In the order they were made, as the trail and the summary's hours say.
    for pk, decision, person, when in sorted(planned, key=lambda plan: plan[3]):
        review_decide(answer=answers[pk], reviewer=person, decision=decision,
                      note="demo history", opened=citations[pk], decided_at=when)
