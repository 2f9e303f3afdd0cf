"""Benchmark of the supervisors' pages on PostgreSQL: the triage queue and the
trends page at 100k answers, each as a ratio to the same page at 1k answers,
measured in one run (goal: ratio <= 2).

Run from the repository root::

    .venv/bin/python bench/triage.py            # 1k, then 100k answers; about 3 minutes
    .venv/bin/python bench/triage.py --large 20000 --repeat 10   # shorter

It creates a throwaway database ``citeguard_bench_triage`` on 127.0.0.1:5432
(user postgres, trust auth), migrates it, and inserts answers with verdicts in
bulk (not through verification: the pages read stored rows, and 100k real
verifications would take the bench's whole budget). The answers are shaped like
production's: three surfaces, four models, 60 % pass / 30 % flag / 10 % fail,
failing outcome counts consistent with the verdict, coverage, review states
and decisions, assignment to five reviewers, questions drawn from a legal and
clinical vocabulary, spread over 90 days. The trends summary is rebuilt with
``manage.py rebuild_stats`` after each insert, as an import would.

Each page is requested in-process with Django's test client (view, template
and queries; no HTTP server), as a logged-in supervisor or reviewer, ``--repeat``
times after two warm-ups; the median is reported. The small and the large
database are the same database: the large one is the small one plus the rest,
so the ratio compares like with like. ``EXPLAIN ANALYZE`` of the queue's page
query, default and filtered, is printed at both sizes.
"""

from __future__ import annotations

import argparse
import io
import random
import statistics
import sys
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import postgres  # noqa: E402

PG_DB = "citeguard_bench_triage"

SURFACES = ("legal-research", "clinical-guidance", "benefits-helpdesk")
MODELS = ("model-a", "model-b", "model-c", "model-d")
WORDS = (
    "warranty indemnity termination liability clause contract tenant lease breach notice "
    "dosage contraindication renal hepatic infusion interaction guideline pregnancy "
    "vesting pension employer contribution eligibility deductible claim appeal coverage "
    "statute appeal court opinion precedent damages negligence arbitration"
).split()
OUTCOME_COLUMNS = ("fabricated_count", "altered_count", "not_found_count",
                   "wrong_source_count", "unattributed_count", "uncited_count")
OUTCOME_NAMES = ("fabricated-marker", "quote-altered", "quote-not-found", "wrong-source",
                 "unattributed-quote", "uncited-claim")

#: (name, user, query): the pages timed at both sizes.
PAGES = (
    ("queue, default (supervisor)", "supervisor", "/triage/"),
    ("queue, facets: surface + outcome (htmx)", "supervisor",
     "/triage/?surface=legal-research&outcome=quote-altered&htmx"),
    ("queue, + coverage below 90 % (htmx)", "supervisor",
     "/triage/?surface=legal-research&outcome=quote-altered&coverage_below=90&htmx"),
    ("queue, search", "supervisor", "/triage/?q=indemnity+termination"),
    ("queue, page 20", "supervisor", "/triage/?page=20"),
    ("my queue (reviewer)", "reviewer1", "/triage/?assignee=me"),
    ("trends, per day", "supervisor", "/trends/"),
    ("trends, per hour, one model", "supervisor", "/trends/?granularity=hour&model=model-b"),
)


def setup_django() -> None:
    import logging

    postgres.setup_django(PG_DB)
    # The trends page logs each rate change it finds; the bench counts them.
    logging.getLogger("citeguard.alerts").setLevel(logging.ERROR)


def make_people() -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    users = {}
    model = get_user_model()
    supervisor = model.objects.create_user("supervisor", password="x")
    supervisor.groups.add(Group.objects.get(name="supervisor"))
    users["supervisor"] = supervisor
    for number in range(1, 6):
        reviewer = model.objects.create_user(f"reviewer{number}", password="x")
        reviewer.groups.add(Group.objects.get(name="reviewer"))
        users[f"reviewer{number}"] = reviewer
    from reviewer.models import Workspace

    # Members of the workspace the answers are in (one: the fast count path).
    Workspace.objects.default().users.add(*users.values())
    return users


def make_surfaces() -> list[Any]:
    from reviewer.models import Surface

    return [Surface.objects.create(name=name, threshold=0.9) for name in SURFACES]


def insert_answers(count: int, *, rng: random.Random, surfaces: list[Any],
                   users: dict[str, Any], now: Any) -> None:
    """``count`` more answers with verdicts, decisions and assignments."""
    from reviewer.models import Answer, ReviewDecision
    from reviewer.severity import triage_priority

    created_field = Answer._meta.get_field("created")
    created_field.auto_now_add = False  # type: ignore[attr-defined]  # backdated rows
    reviewers = [u for name, u in users.items() if name.startswith("reviewer")]
    batch: list[Any] = []

    def flush() -> None:
        stored = Answer.objects.bulk_create(batch)
        decisions = []
        for answer in stored:
            if answer.review_state != "pending":
                reviewer = rng.choice(reviewers)
                decisions.append(ReviewDecision(
                    answer=answer, reviewer=reviewer,
                    decision={"approved": "approve", "rejected": "reject"}.get(
                        answer.review_state, "escalate"),
                    from_state="pending", to_state=answer.review_state,
                    created=answer.created + timedelta(minutes=rng.randint(5, 3000))))
        ReviewDecision.objects.bulk_create(decisions)
        batch.clear()

    for _ in range(count):
        roll = rng.random()
        verdict = "pass" if roll < 0.6 else "flag" if roll < 0.9 else "fail"
        counts = {name: 0 for name in OUTCOME_NAMES}
        if verdict != "pass":
            for name, weight in zip(OUTCOME_NAMES, (0.15, 0.3, 0.35, 0.1, 0.05, 0.4),
                                    strict=True):
                if rng.random() < weight:
                    counts[name] = rng.randint(1, 3)
            if not any(counts.values()):
                counts["quote-not-found"] = 1
        claims = rng.randint(2, 12)
        uncited = counts["uncited-claim"]
        coverage = (claims - min(uncited, claims)) / claims
        columns = dict(zip(OUTCOME_COLUMNS, (counts[n] for n in OUTCOME_NAMES), strict=True))
        severity = next((6 - rank for rank, n in enumerate(OUTCOME_NAMES) if counts[n]), 0)
        state = "pending"
        if verdict != "pass" and rng.random() < 0.5:
            state = rng.choice(("approved", "rejected", "escalated"))
        assigned = rng.choice(reviewers) if verdict != "pass" and rng.random() < 0.4 else None
        created = now - timedelta(seconds=rng.randint(0, 90 * 86400))
        question = " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))) + "?"
        text = ". ".join(" ".join(rng.choice(WORDS) for _ in range(12)) for _ in range(4))
        surface = rng.choice(surfaces)
        # bulk_create skips Answer.save, which stamps the queue's priority.
        priority = triage_priority({**columns, "severity": severity},
                                   high_stakes=surface.high_stakes)
        batch.append(Answer(
            surface=surface, model=rng.choice(MODELS), question=question,
            text=text, verdict=verdict, action="serve" if verdict == "pass" else "flag",
            coverage=coverage, claims=claims, attributed_claims=claims - min(uncited, claims),
            counts={**counts, "verified": rng.randint(0, 6)}, reasons=[], notes=[],
            threshold=0.9, elapsed_ms=rng.lognormvariate(0.5, 0.8), served_answer=text,
            review_state=state, created=created, severity=severity, assigned_to=assigned,
            triage_priority=priority,
            assigned_at=created if assigned else None, **columns))
        if len(batch) == 5000:
            flush()
    if batch:
        flush()
    created_field.auto_now_add = True  # type: ignore[attr-defined]


def refresh_summaries() -> None:
    from django.core.management import call_command
    from django.db import connection

    call_command("rebuild_stats", stdout=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def time_pages(users: dict[str, Any], repeat: int) -> dict[str, float]:
    from django.test import Client

    clients: dict[str, Client] = {}
    for name in ("supervisor", "reviewer1"):
        clients[name] = Client()
        clients[name].force_login(users[name])
    timings = {}
    for label, user, url in PAGES:
        headers = {}
        if url.endswith("&htmx"):
            url, headers = url.removesuffix("&htmx"), {"HX-Request": "true"}
        samples = []
        for attempt in range(repeat + 2):
            started = time.perf_counter()
            response = clients[user].get(url, headers=headers)
            elapsed = time.perf_counter() - started
            if response.status_code != 200:
                raise SystemExit(f"{url} answered {response.status_code}")
            if attempt >= 2:
                samples.append(elapsed)
        timings[label] = statistics.median(samples) * 1000
    return timings


def explain_queue(users: dict[str, Any]) -> str:
    """EXPLAIN ANALYZE of the page query of the supervisor's default queue
    and of a filtered one."""
    from django.http import QueryDict

    from reviewer.selectors.triage import TriageFilters, triage_queryset

    plans = []
    for query in ("", "surface=legal-research&outcome=quote-altered&coverage_below=90"):
        filters = TriageFilters.from_query(QueryDict(query), user=users["supervisor"])
        queryset = triage_queryset(filters, users["supervisor"])[:50]
        plans.append(f"-- /triage/?{query}\n"
                     + str(queryset.explain(analyze=True, buffers=True)))
    return "\n\n".join(plans)


def false_alarms(now: Any) -> int:
    """How many rate changes the trends check reports on this data, where
    every day is drawn from the same distribution: each is a false alarm."""
    from reviewer.models import TrendAlert
    from reviewer.services.trends import trend_alerts_check

    TrendAlert.objects.all().delete()
    return len(trend_alerts_check(days=76, today=now.date()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    postgres.fresh_database(PG_DB)
    setup_django()
    from django.core.management import call_command
    from django.utils import timezone

    try:
        call_command("migrate", verbosity=0)
        rng = random.Random(args.seed)
        users, surfaces, now = make_people(), make_surfaces(), timezone.now()
        results = {}
        explains = {}
        inserted = 0
        for size in (args.small, args.large):
            started = time.perf_counter()
            insert_answers(size - inserted, rng=rng, surfaces=surfaces, users=users, now=now)
            inserted = size
            refresh_summaries()
            print(f"{size:>7,} answers ready in {time.perf_counter() - started:.1f} s",
                  flush=True)
            results[size] = time_pages(users, args.repeat)
            explains[size] = explain_queue(users)
        print()
        print(f"{'page':<36} {args.small:>9,} {args.large:>9,}   ratio (goal <= 2)")
        for label, *_ in PAGES:
            small, large = results[args.small][label], results[args.large][label]
            print(f"{label:<36} {small:>7.1f}ms {large:>7.1f}ms   {large / small:.2f}x")
        print(f"\nRate changes flagged over the last 76 days of these stationary answers "
              f"(each one a false alarm): {false_alarms(now)} "
              f"over {len(SURFACES) * (len(MODELS) + 1) * 6} series")
        for size, plan in explains.items():
            print(f"\nEXPLAIN ANALYZE of the queue's page query (default, filtered) at "
                  f"{size:,} answers:")
            print(plan)
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            postgres.drop_database(PG_DB)


if __name__ == "__main__":
    main()
