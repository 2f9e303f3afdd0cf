"""A labelled calibration set for the demo: enough labels on benefits-chat
for the calibration page to recommend a threshold, a handful on legal-review
so that it says there are not enough.

The answers quote the demo documents' text, perturbed the way real quotes are:

* **faithful**: the quote is the clean text while the source is a noisy
  extraction of it (ligatures, line-break hyphenation, curly apostrophes,
  footnote numbers glued to words, two words run together, a misread
  letter); or the quote drops an article or a comma; or it paraphrases
  without changing the meaning;
* **changed**: a number, a negation or a name changed, or a paraphrase that
  says something else;
* **other**: a sentence from another section, cited to this one.

They are submitted through the real path (``answer_submit``), so every score
is the library's own, and backdated to before the trends history's window so
that they make no spike on the trends page. Every stored citation of the two
surfaces is then drawn (``calibration_sample``), and the demo's labellers label
each item with what the generator did to it, never from its score: the
calibrator first, ``labeller2`` a second label on about 30 % of them,
disagreeing on a few ambiguous ones. About 15 % stay unlabelled, a queue for
the calibrator to work through. Seeded: the same set every run; skipped for a
surface that has calibration items already.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from reviewer import demo
from reviewer.models import ApiClient, CalibrationItem, CitationVerdict, Surface
from reviewer.services.answers import answer_submit
from reviewer.services.calibration import SAMPLED_OUTCOMES, calibration_sample, label_record
from verification.calibration import Label, bands_around

__all__ = ["ID_PREFIX", "LABELLERS", "PLANS", "SEED", "Plan", "Planted", "load_calibration",
           "plan_answers"]

ID_PREFIX = "demo-calibration-"
#: The demo's labellers (calibrator role): the first labels, then the second's.
LABELLERS = ("calibrator", "labeller2")
#: The answers are dated this many days ago (from, to): before the window the
#: trends page and its rate-change check read for the five weeks of history.
AGE_DAYS = (95, 66)
MODEL = "model-a"
SEED = 20261203


@dataclass(frozen=True)
class Plan:
    """What the demo plants on one surface."""

    surface: str
    sections: list[tuple[str, str]]
    answers: int
    #: Share of the drawn items left unlabelled (the calibrator's queue), or
    #: with ``labelled`` set, how many items get a label (the rest stay).
    unlabelled: float
    labelled: int | None
    second_share: float
    disagreements: int
    #: kind → weight of each quote kind (see ``KIND_LABELS``).
    kinds: dict[str, float]
    paraphrases: dict[int, tuple[list[str], list[str]]]


#: What each kind of quote is, as its labels say.
KIND_LABELS: dict[str, Label] = {
    "verbatim": "faithful", "trimmed": "faithful", "punctuation": "faithful",
    "paraphrase": "faithful",
    "number": "changed", "negation": "changed", "swap": "changed", "misleading": "changed",
    "elsewhere": "other",
}
#: Kinds a careful second labeller may see differently: where the demo's two
#: labellers disagree.
AMBIGUOUS: dict[str, Label] = {"trimmed": "changed", "paraphrase": "changed",
                               "misleading": "faithful", "punctuation": "changed"}

# Paraphrases by sentence (numbered across the sections, from 0): ones that keep
# the meaning, and ones that change it.
BENEFITS_PARAPHRASES: dict[int, tuple[list[str], list[str]]] = {
    0: (["employees join the retirement plan on the first of the month once they have "
         "30 days of service"],
        ["employees become eligible for the retirement plan from their first day of service"]),
    1: (["part-timers working 20 or more hours a week qualify on the same terms as "
         "full-time staff"],
        ["part-time employees who work at least 20 hours a week get a reduced plan"]),
    2: (["the employer matches your contributions in full up to 4% of salary, then half "
         "of the next 2%"],
        ["the employer matches 100% of everything that you contribute"]),
    3: (["the employer's match vests once you have two years of service"],
        ["the employer match vests immediately"]),
    4: (["your own contributions are fully vested at all times and can never be forfeited"],
        ["your own contributions vest after two years of service"]),
    5: (["hospital stays of up to 30 days a year cost you nothing"],
        ["the plan covers all hospital stays at no cost to you"]),
    6: (["dependants over 18 are not covered for dental care"],
        ["dental cover is included for all dependants"]),
    7: (["the deductible each year is $500 for a person and $1,000 for a family"],
        ["the annual deductible is $500 per family"]),
    8: (["full-time staff accrue 25 days of paid leave each year"],
        ["all employees accrue 25 days of paid leave a year"]),
    9: (["you can carry up to five unused days over into the next calendar year"],
        ["all unused days may be carried over into the next calendar year"]),
    10: (["the company can amend the plan by giving 60 days' written notice"],
         ["the company may amend this plan at any time without notice"]),
    11: (["amendments cannot reduce benefits that have already vested"],
         ["amendments may reduce benefits that have already vested"]),
    12: (["the benefits office answers questions about this summary within ten working days"],
         ["the benefits office replies to questions within ten calendar days"]),
}
CONTRACT_PARAPHRASES: dict[int, tuple[list[str], list[str]]] = {
    3: (["the customer pays the EUR 48,000 annual fee within 30 days of each invoice"],
        ["the customer pays the annual fee in advance"]),
    9: (["neither party's liability may exceed the fees paid in the year before the claim"],
        ["neither party is liable for anything under this agreement"]),
}

PLANS = (
    Plan(surface="benefits-chat", sections=demo.BENEFITS, answers=110, unlabelled=0.15,
         labelled=None, second_share=0.3, disagreements=4,
         kinds={"verbatim": 66, "trimmed": 4, "punctuation": 3, "paraphrase": 6,
                "number": 3, "negation": 4, "swap": 5, "misleading": 4, "elsewhere": 5},
         paraphrases=BENEFITS_PARAPHRASES),
    Plan(surface="legal-review", sections=demo.CONTRACT, answers=7, unlabelled=0.0,
         labelled=12, second_share=0.3, disagreements=0,
         kinds={"verbatim": 5, "trimmed": 1, "paraphrase": 1, "number": 2, "negation": 1,
                "swap": 1, "misleading": 1, "elsewhere": 1},
         paraphrases=CONTRACT_PARAPHRASES),
)

LEADS = ["The plan says", "According to the summary,", "It states that", "The document says",
         "As written,", "The text reads"]
SWAPS = [("employer", "employee"), ("Employer", "Employee"), ("Part-time", "Full-time"),
         ("full-time", "part-time"), ("Full-time", "Part-time"), ("hospital", "dental"),
         ("Dental", "Vision"), ("dependants", "employees"), ("person", "household"),
         ("salary", "bonus"), ("December", "January"), ("company", "trustee"),
         ("benefits office", "payroll office"), ("customer", "supplier"),
         ("supplier", "customer"), ("Ireland", "England"), ("Dublin", "London"),
         ("written", "verbal"), ("calendar year", "financial year")]
NEGATIONS = [(r"\bcannot\b", "can"), (r"\bis not\b", "is"), (r"\bnever ", ""),
             (r"\bnot ", ""), (r"\bshall\b", "shall not"), (r"\bmay\b", "may not"),
             (r"\bare\b", "are not"), (r"\bis\b", "is not"), (r"\bcovers\b", "does not cover"),
             (r"\bmatches\b", "does not match"), (r"\bvests\b", "never vests")]
NUMBER_WORDS = {"two": "three", "five": "ten", "ten": "fifteen", "three": "five",
                "twelve": "six", "first": "second", "one-year": "two-year"}
ARTICLES = {"the", "a", "that", "own", "any"}
_NUMBER = re.compile(r"\d+(?:,\d{3})*")


@dataclass(frozen=True)
class Planted:
    """A quote the generator wrote, what it did, and who labels it how."""

    order: int
    kind: str
    label: Label
    #: Whether the first labeller labels it (in plans that leave a share
    #: unlabelled); and the second labeller's label, if any.
    first: bool
    second: Label | None


def _sentences(body: str) -> list[str]:
    return [s.strip().rstrip(".") for s in re.split(r"(?<=\.)\s+(?=[A-Z])", body) if s.strip()]


def _extract(text: str, rng: random.Random) -> str:
    """``text`` as a PDF extraction might give it: noise a faithful quote of
    the clean text repairs without changing what it says."""
    if rng.random() < 0.5:
        text = text.replace("fi", "\ufb01").replace("fl", "\ufb02")
    if rng.random() < 0.5:
        text = text.replace("'", "\u2019")
    words = text.split(" ")
    plain = [i for i, w in enumerate(words) if w.isalpha() and len(w) > 3]
    for i in rng.sample(plain, k=min(len(plain), rng.choice((0, 0, 1, 2)))):
        words[i] = f"{words[i]}{rng.randint(1, 9)}"  # a footnote number glued on
    if rng.random() < 0.35 and len(words) > 4:  # two words run together
        i = rng.randrange(1, len(words) - 1)
        words[i:i + 2] = [words[i] + words[i + 1]]
    if rng.random() < 0.3:  # a misread letter
        candidates = [i for i, w in enumerate(words) if "m" in w or "cl" in w]
        if candidates:
            i = rng.choice(candidates)
            words[i] = words[i].replace("m", "rn", 1) if "m" in words[i] else \
                words[i].replace("cl", "d", 1)
    lines, line = [], []
    for word in words:  # lines of about nine words, one long word hyphenated
        line.append(word)
        if len(line) >= rng.randint(8, 11):
            lines.append(line)
            line = []
    if line:
        lines.append(line)
    for index in range(len(lines) - 1):
        last = lines[index][-1]
        if last.isalpha() and len(last) > 7 and rng.random() < 0.5:
            cut = rng.randint(3, len(last) - 3)
            lines[index][-1] = last[:cut] + "-"
            lines[index + 1].insert(0, last[cut:])
    return "\n".join(" ".join(line) for line in lines)


def _span(sentence: str, rng: random.Random, *, short: bool = False) -> str:
    """What a model quotes of ``sentence``: all of it, one of its clauses, or
    the rest of it from a word on (after "The employer" outside the quote).
    ``short``: mostly a clause or a few words, as misquotes tend to be."""
    clauses = [c.strip() for c in re.split(r"[,;] ", sentence) if len(c.split()) >= 5]
    words = sentence.split()
    roll = rng.random()
    if short:
        if clauses and roll < 0.6:
            return rng.choice(clauses)
        if len(words) > 9 and roll < 0.88:
            size = rng.randint(5, 9)
            start = rng.randint(0, len(words) - size)
            return " ".join(words[start:start + size]).strip(",;")
        return sentence
    if roll < 0.25 and clauses:
        return rng.choice(clauses)
    if roll < 0.5 and len(words) > 7:
        return " ".join(words[rng.randint(1, min(3, len(words) - 6)):])
    return sentence


def _change_number(quote: str, rng: random.Random) -> str | None:
    found = list(_NUMBER.finditer(quote))
    if found:
        match = rng.choice(found)
        value = int(match.group().replace(",", ""))
        if value > 1 and quote[match.end():].lstrip().startswith(("December", "March")):
            other = value - 1  # a day of the month that exists
        else:
            other = rng.choice([v for v in (value * 2, value + 1, value // 2)
                                if v not in (0, value)])
        text = f"{other:,}" if "," in match.group() else str(other)
        return quote[:match.start()] + text + quote[match.end():]
    for word, said in NUMBER_WORDS.items():
        if re.search(rf"\b{word}\b", quote):
            return re.sub(rf"\b{word}\b", said, quote, count=1)
    return None


def _negate(quote: str, rng: random.Random) -> str | None:
    for pattern, replacement in NEGATIONS:
        if re.search(pattern, quote):
            return re.sub(pattern, replacement, quote, count=1)
    return None


def _swap(quote: str, rng: random.Random) -> str | None:
    present = [(a, b) for a, b in SWAPS if re.search(rf"\b{a}\b", quote)]
    if not present:
        return None
    a, b = rng.choice(present)
    return re.sub(rf"\b{a}\b", b, quote, count=1)


def _trim(quote: str, rng: random.Random) -> str | None:
    words = quote.split()
    droppable = [i for i, w in enumerate(words[1:-1], start=1) if w.lower() in ARTICLES]
    if not droppable:
        return None
    del words[rng.choice(droppable)]
    return " ".join(words)


def _punctuate(quote: str, rng: random.Random) -> str | None:
    if ", " in quote:
        return quote.replace(", ", " ", 1)
    if "; " in quote:
        return quote.replace("; ", ", ", 1)
    return None


CHANGES: dict[str, Callable[[str, random.Random], str | None]] = {
    "number": _change_number, "negation": _negate, "swap": _swap, "trimmed": _trim,
    "punctuation": _punctuate,
}


def _quote(plan: Plan, kind: str, section: int, rng: random.Random) -> str | None:
    """One quote of ``kind`` for an answer citing ``section``; None when the
    section offers nothing for that kind."""
    sentences = [_sentences(body) for _, body in plan.sections]
    first = sum(len(s) for s in sentences[:section])
    own = sentences[section]
    if kind == "elsewhere":
        others = [s for i, group in enumerate(sentences) if i != section for s in group]
        return _span(rng.choice(others), rng)
    if kind in ("paraphrase", "misleading"):
        choices = [plan.paraphrases[first + i][kind == "misleading"]
                   for i in range(len(own)) if first + i in plan.paraphrases]
        return rng.choice(rng.choice(choices)) if choices else None
    for _ in range(6):
        quote = _span(rng.choice(own), rng, short=KIND_LABELS[kind] == "changed")
        if kind == "verbatim":
            return quote
        changed = CHANGES[kind](quote, rng)
        if changed is not None and changed != quote:
            return changed
    return None


def plan_answers(plan: Plan) -> list[tuple[dict[str, Any], dict[str, Planted]]]:
    """The plan's answers as API payloads, each with what was planted in it by
    quote. The same every time (seeded by :data:`SEED` and the surface)."""
    rng = random.Random(f"{SEED}-{plan.surface}")
    kinds, weights = list(plan.kinds), list(plan.kinds.values())
    built = []
    order = 0
    disagreements = plan.disagreements
    for n in range(plan.answers):
        section = rng.randrange(len(plan.sections))
        heading, body = plan.sections[section]
        planted: dict[str, Planted] = {}
        parts: list[str] = []
        for _ in range(3):
            kind = rng.choices(kinds, weights)[0]
            quote = _quote(plan, kind, section, rng)
            if quote is None or quote in planted:
                continue
            label = KIND_LABELS[kind]
            first = rng.random() >= plan.unlabelled
            second: Label | None = None
            if first and rng.random() < plan.second_share:
                second = label
                if disagreements and kind in AMBIGUOUS:
                    second = AMBIGUOUS[kind]
                    disagreements -= 1
            planted[quote] = Planted(order, kind, label, first, second)
            order += 1
            parts.append(f'{rng.choice(LEADS)} "{quote}" [S1].')
        payload: dict[str, Any] = {
            "id": f"{ID_PREFIX}{plan.surface}-{n:03d}", "surface": plan.surface,
            "model": MODEL, "question": "What does the document say about this?",
            "answer": " ".join(parts),
            "sources": [{"marker": "S1", "text": _extract(f"{heading}. {body}", rng)}]}
        built.append((payload, planted))
    return built


def load_calibration(*, client: ApiClient,
                     say: Callable[[str], None] = lambda line: None) -> int:
    """Load the calibration set (see the module's docstring) on every planned
    surface without calibration items; returns the labels added."""
    people = {user.get_username(): user for user in
              get_user_model().objects.filter(username__in=LABELLERS)}
    added = 0
    for plan in PLANS:
        surface = Surface.objects.filter(name=plan.surface).first()
        if surface is None or len(people) < len(LABELLERS):
            continue
        if CalibrationItem.objects.filter(surface=surface).exists():
            say(f"  calibration: {plan.surface} kept as loaded before")
            continue
        with transaction.atomic():
            planted = _submit(plan, client)
            items = _draw_all(surface)
            labels = _label(plan, items, planted, [people[name] for name in LABELLERS])
        added += labels
        say(f"  calibration: {plan.surface}: {len(items)} items, {labels} labels")
    return added


def _submit(plan: Plan, client: ApiClient) -> dict[tuple[int, str], Planted]:
    """Submit the plan's answers (found by id when submitted before), date
    them months back, and return what was planted by (answer id, quote)."""
    planted: dict[tuple[int, str], Planted] = {}
    rng = random.Random(f"{SEED}-{plan.surface}-dates")
    today = timezone.now().astimezone(UTC).date()
    for payload, kinds in plan_answers(plan):
        day = today - timedelta(days=rng.randint(AGE_DAYS[1], AGE_DAYS[0]))
        moment = datetime.combine(day, time(8), tzinfo=UTC) + timedelta(
            minutes=rng.randrange(10 * 60))
        # As having arrived then, so the trends summary counts it in that hour.
        answer = answer_submit(client=client, data=payload, received_at=moment).answer
        for quote, what in kinds.items():
            planted[(answer.pk, quote)] = what
    return planted


def _draw_all(surface: Surface) -> list[CalibrationItem]:
    """Every stored citation the sample can draw, as items: exact matches and
    clear misses (the controls) as well as the bands."""
    lowest = bands_around(surface.threshold)[0][0]
    candidates = CitationVerdict.objects.filter(
        answer__surface=surface, outcome__in=SAMPLED_OUTCOMES, superseded=False,
        score__isnull=False).exclude(quote="")
    total = candidates.count()
    controls = candidates.filter(Q(score=1.0) | Q(score__lt=lowest)).count()
    items: list[CalibrationItem] = []
    while total > len(items):  # rounding can leave a control out of a draw
        drawn = calibration_sample(surface=surface, size=total - len(items),
                                   controls=controls / total, seed=len(items))
        if not drawn:
            break
        items.extend(drawn)
    return items


def _label(plan: Plan, items: list[CalibrationItem], planted: dict[tuple[int, str], Planted],
           labellers: list[Any]) -> int:
    """Label the items the generator planted with what it did to them, in the
    order it wrote them (so that which are labelled depends on the seed
    alone, not on the rows' ids)."""
    first, second = labellers
    known = sorted(((planted[(item.answer_id, item.quote)], item) for item in items
                    if (item.answer_id, item.quote) in planted), key=lambda pair: pair[0].order)
    if plan.labelled is not None:
        known = known[:plan.labelled]
    count = 0
    for what, item in known:
        if plan.labelled is None and not what.first:
            continue
        label_record(item=item, labeller=first, label=what.label)
        count += 1
        if what.second is not None:
            label_record(item=item, labeller=second, label=what.second)
            count += 1
    return count
