"""Benchmark of citeguard's quote verification against two yardsticks.

Run from the repository root::

    .venv/bin/python bench/verify.py            # full run, about 2 minutes on 2 cores
    .venv/bin/python bench/verify.py --quick    # smaller samples, under 30 seconds
    .venv/bin/python bench/verify.py --seed 7   # another (still deterministic) workload
    .venv/bin/python bench/verify.py --curve    # cost of 100-20,000 character quotes

What it measures, side by side in one run and on the same inputs:

(a) ``verify_answer`` against the naive baseline of the reference design
    (``shared/seed/rag-citation-verification.txt``): its simple normalisation,
    ``q in src``, else ``difflib.SequenceMatcher(None, q, src[i:i+len(q)]).ratio()``
    over every window of the quote's length in the cited source.
(b) ``verify_answer`` against a lower bound: the same simple normalisation of the
    answer's sources and quotes, then ``str.find`` of each quote in its cited
    source (and in the others when it is not there).
(c) time per answer at 10 KB, 100 KB and 1 MB of sources, for linearity.

plus the accuracy cases that separate the two: long quotes with one letter
changed (difflib's autojunk heuristic makes the naive baseline miss some), and
long quotes with a number changed or a "not" dropped (the naive baseline passes
them as verified-fuzzy; citeguard should say quote-altered).

Sources are the text of the PDFs in ``../shared/corpus/pdfs`` (relative to the
repository root) when that directory exists, cut into 1-8 KB sources; otherwise,
and to fill the 1 MB scaling case, generated English prose with PDF extraction
artefacts (line breaks, ``ser-\\nvice`` hyphenation, soft hyphens, ligatures,
smart quotes, double spaces, running headers, typos). Everything is seeded.

The workload: answers of 5-20 quoted citations (``The policy states "..." [S3].``)
over 5-50 sources; each quote is honest (a verbatim span, line breaks and all)
45%, artefact-repaired (the model's clean copy: ligatures expanded, hyphenation
joined, smart quotes straightened, half with one typo fixed) 30%, altered (a
number changed or a "not" dropped, 120-300 characters) 10%, or absent (in no
source) 15%. No quote starts right after a negation: citeguard rightly calls
such a verbatim quote altered, so it is not an honest one.

The naive baseline costs O(len(source) x len(quote)) per unmatched quote, so it is
timed on every citation by running it over an evenly spaced subset of its windows
and scaling by the number of windows; a few citations are also timed in full to
check that estimate. The output says exactly what was sampled. Times are CPU
time of this process (``time.process_time``), so that other load on the machine
does not count; KB means 1,000 characters of source text.

Note: the reference text's ``normalize`` shows ``text.replace("", "")`` -- the
soft hyphen (U+00AD) was lost in the copy; it is restored here.
"""

from __future__ import annotations

import argparse
import bisect
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import rapidfuzz  # noqa: E402

from verification import VerificationConfig, normalize, verify_answer  # noqa: E402
from verification.budget import SEED_MATCH_MIN_CHARS  # noqa: E402

THRESHOLD = 0.92
CONFIG = VerificationConfig(threshold=THRESHOLD)
CORPUS_DIR = ROOT.parent / "shared" / "corpus" / "pdfs"
KINDS = ("honest", "repaired", "altered", "absent")
EXPECTED = {
    "honest": ("verified",),
    "repaired": ("verified", "verified-fuzzy"),
    "altered": ("quote-altered",),
    "absent": ("quote-not-found",),
}
OUTCOME_COLUMNS = ("verified", "verified-fuzzy", "quote-altered", "quote-not-found")


# -- The reference design's naive baseline and the str.find lower bound ---------


def simple_normalize(text: str) -> str:
    """The reference design's ``normalize`` (soft hyphen restored)."""
    text = text.replace("\u00ad", "").replace("-\n", "")
    text = text.replace("\u2019", "'").replace("\u201c", '"').replace("\u201d", '"')
    return re.sub(r"\s+", " ", text).strip().lower()


def naive_verify(quote: str, marker: str, injected: dict[str, str],
                 threshold: float = THRESHOLD) -> str:
    """The reference design's ``verify``, verbatim apart from the names."""
    if marker not in injected:
        return "fabricated-marker"
    q, src = simple_normalize(quote), simple_normalize(injected[marker])
    if q in src:
        return "verified"
    best = max(
        (SequenceMatcher(None, q, src[i:i + len(q)]).ratio()
         for i in range(max(len(src) - len(q) + 1, 1))),
        default=0.0,
    )
    return "verified-fuzzy" if best >= threshold else "quote-not-found"


def naive_verdict(quote: str, source: str, hint: int | None = None,
                  threshold: float = THRESHOLD, *, autojunk: bool = True) -> str:
    """What :func:`naive_verify` decides, computed faster but exactly.

    The same rule (some window with ``ratio() >= threshold``). Windows are
    tried nearest ``hint`` (where the quote came from) first, and a window is
    skipped when difflib's own upper bound of ``ratio()`` -- ``quick_ratio()``,
    the multiset intersection of characters, kept here for every window by a
    sliding count -- is already below the threshold. Used for verdicts only,
    never for timing.
    """
    q, src = simple_normalize(quote), simple_normalize(source)
    if q in src:
        return "verified"
    length = len(q)
    if len(src) <= length:
        fits = SequenceMatcher(None, q, src, autojunk=autojunk).ratio() >= threshold
        return "verified-fuzzy" if fits else "quote-not-found"
    need = Counter(q)
    have = Counter(src[:length])
    matches = sum(min(count, have[char]) for char, count in need.items())
    bounds = [matches]
    for i in range(1, len(src) - length + 1):
        out, into = src[i - 1], src[i + length - 1]
        if have[out] <= need[out]:
            matches -= 1
        have[out] -= 1
        if have[into] < need[into]:
            matches += 1
        have[into] += 1
        bounds.append(matches)
    order = range(len(bounds))
    if hint is not None:
        order = sorted(order, key=lambda i: abs(i - hint))  # type: ignore[assignment]
    for i in order:
        if 2.0 * bounds[i] / (2 * length) < threshold:
            continue
        if SequenceMatcher(None, q, src[i:i + length], autojunk=autojunk).ratio() >= threshold:
            return "verified-fuzzy"
    return "quote-not-found"


def naive_cost(quote: str, source: str, max_windows: int) -> tuple[float, bool, int, int]:
    """Estimated seconds :func:`naive_verify` spends on one citation.

    Normalisation and ``in`` are timed in full; for a quote that is not
    contained, ``ratio()`` runs on every k-th window (at least ``max_windows``
    of them, or all) and the time is scaled to all windows. Returns
    (seconds, exact, windows timed, windows in total).
    """
    started = time.process_time()
    q, src = simple_normalize(quote), simple_normalize(source)
    exact = q in src
    fixed = time.process_time() - started
    if exact:
        return fixed, True, 0, 0
    total = max(len(src) - len(q) + 1, 1)
    step = max(1, total // max_windows)
    sample = range(0, total, step)
    started = time.process_time()
    max((SequenceMatcher(None, q, src[i:i + len(q)]).ratio() for i in sample), default=0.0)
    scanned = time.process_time() - started
    return fixed + scanned * total / len(sample), False, len(sample), total


def lower_bound(citations: Sequence[tuple[str, str]], sources: dict[str, str]) -> int:
    """Normalise the sources and quotes simply and ``str.find`` each quote in its
    cited source, then in the others. Returns how many were found."""
    normalized = {label: simple_normalize(text) for label, text in sources.items()}
    found = 0
    for quote, label in citations:
        q = simple_normalize(quote)
        if normalized[label].find(q) >= 0:
            found += 1
            continue
        for other, text in normalized.items():
            if other != label and text.find(q) >= 0:
                found += 1
                break
    return found


# -- Source text ----------------------------------------------------------------


def read_pdfs(directory: Path) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, text) of every readable PDF with text, and why others were skipped."""
    import pymupdf

    texts: list[tuple[str, str]] = []
    skipped: list[str] = []
    for path in sorted(directory.glob("*.pdf")):
        try:
            with pymupdf.open(path) as document:
                if document.needs_pass or document.is_encrypted:
                    skipped.append(f"{path.name} (encrypted)")
                    continue
                text = "".join(page.get_text() for page in document)
        except Exception as error:  # a broken file is skipped, whatever the cause
            skipped.append(f"{path.name} ({type(error).__name__})")
            continue
        if len(text.strip()) < 1000:
            skipped.append(f"{path.name} (no text layer)")
            continue
        texts.append((path.stem, text))
    return texts, skipped


def cut(rng: random.Random, text: str, low: int = 1000, high: int = 8000) -> list[str]:
    """Cut ``text`` at whitespace into pieces of ``low``..``high`` characters."""
    pieces: list[str] = []
    start = 0
    while len(text) - start >= low:
        end = min(len(text), start + rng.randint(low, high))
        if end < len(text):
            space = text.rfind(" ", start + low, end)
            newline = text.rfind("\n", start + low, end)
            end = max(space, newline) if max(space, newline) > start else end
        piece = text[start:end].strip()
        if len(piece) >= low:
            pieces.append(piece)
        start = end
    return pieces


_SLOTS: dict[str, tuple[str, ...]] = {
    "actor": ("The plan administrator", "Each department", "The employer", "A participating clinic",
              "The review board", "The benefits office", "Every contractor", "The insurer"),
    "must": ("must", "shall", "is required to", "will"),
    "action": ("notify the affected employees", "file a written report", "update the enrolment "
               "records", "confirm the diagnosis", "reimburse eligible expenses", "submit the "
               "certification", "inform the beneficiaries", "complete the financial review"),
    "num": ("two", "three", "five", "7", "10", "12", "14", "30", "45", "60", "90", "180"),
    "period": ("days", "weeks", "months", "years", "business days", "calendar days"),
    "event": ("the qualifying event", "the date of service", "the effective date", "enrolment",
              "the official notice", "the final decision", "the first claim"),
    "benefit": ("the employer match", "flexible spending accounts", "the tuition benefit",
                "paid family leave", "long-term disability coverage", "the wellness stipend",
                "supplemental life insurance", "the fitness allowance"),
    "group": ("seasonal staff", "part-time employees", "retired officers", "new hires",
              "dependants over 26", "contractors", "employees on unpaid leave", "interns"),
    "condition": ("the employee has completed the probationary period", "a physician certifies "
                  "the condition", "the office receives the form before the deadline", "the "
                  "collective agreement provides otherwise", "the claim was filed electronically"),
    "doc": ("policy", "handbook", "agreement", "guideline", "plan document", "procedure manual"),
    "org": ("agency", "department", "committee", "hospital", "office", "foundation"),
    "things": ("incidents", "complaints", "claims", "deficiencies", "findings", "referrals"),
    "pct": ("3", "4.5", "8", "12", "15", "20", "25", "50"),
    "year": ("2019", "2020", "2021", "2022", "2023", "2024"),
    "role": ("supervisor", "participant", "beneficiary", "clinician", "staff member", "manager"),
    "form": ("form HR-12", "a signed affidavit", "the official request form",
             "a certified copy of the record", "the reimbursement worksheet"),
    "office": ("benefits office", "compliance unit", "human resources department",
               "office of the inspector general", "finance committee"),
    "costs": ("tuition costs", "medical expenses", "childcare costs", "travel expenses",
              "certification fees"),
    "amount": ("500", "1,200", "2,500", "5,250", "10,000"),
    "unit": ("calendar year", "plan year", "semester", "claim", "quarter"),
    "sites": ("facilities", "offices", "clinics", "districts", "regional centres"),
    "finding": ("the controls were not consistently applied", "staff were unaware of the "
                "revised procedure", "the backlog affected the efficiency of the review",
                "records were incomplete in several cases", "the official figures were reliable"),
    "freq": ("once daily", "twice daily", "every eight hours", "weekly", "as needed"),
    "reason": ("enrolment declined sharply", "the previous system was unreliable", "federal "
               "guidance changed", "the financial outlook improved", "auditors identified gaps"),
    "policy_action": ("suspend the program", "extend the deadline", "revise the eligibility "
                      "criteria", "consolidate the offices", "raise the contribution limit"),
    "month": ("January", "March", "April", "June", "September", "October", "December"),
    "day": ("1", "5", "15", "20", "30"),
    "topic": ("leave accrual", "conflict of interest", "record retention", "travel "
              "reimbursement", "workplace safety", "the appeals process"),
    "num2": ("24", "40", "52", "68", "75", "110"),
    "num3": ("1", "2", "3", "4", "6"),
    "term": ("qualifying event", "benefit year", "covered person", "effective date"),
}
_TEMPLATES = (
    "{actor} {must} {action} within {num} {period} of {event}.",
    "Employees who have completed {num} {period} of continuous service are eligible for "
    "{benefit}.",
    "The {doc} does not apply to {group} unless {condition}.",
    "Coverage under {benefit} is not available to {group} during the first {num} {period} "
    "of employment.",
    "In {year}, the {org} reported {num2} {things}, an increase of {pct} percent over the "
    "previous year.",
    "Claims submitted after {num} {period} will not be reimbursed, except where {condition}.",
    "The {org} shall review the {doc} at least once every {num} {period} and publish its "
    "findings.",
    "A {role} may request an exception by submitting {form} to the {office}.",
    "Participants receive {pct} percent of eligible {costs}, up to a maximum of ${amount} per "
    "{unit}.",
    "{actor} should not {action} without written approval from the {office}.",
    "These {things} were identified in {num} of the {num2} {sites} reviewed, which suggests "
    "that {finding}.",
    "For {group}, the recommended dose is {num} mg per kilogram, given {freq}.",
    "Because {reason}, the {org} has decided to {policy_action} effective {month} {day}, "
    "{year}.",
    "The {office} confirmed that {finding}; however, it did not {action}.",
    "Further guidance on {topic} is provided in section {num3}.{num3} of the {doc}.",
    "The {role}'s {doc} defines the term \u201c{term}\u201d for the purposes of this section.",
    "It is necessary to separate the records of {group} until the {office} has received the "
    "final report, which the government requires.",
    "If the event occurred before {month} {day}, the {role} will receive {benefit} in the "
    "environment described in the {doc}.",
)
_TYPOS = {"receive": "recieve", "separate": "seperate", "until": "untill",
          "environment": "enviroment", "government": "goverment", "occurred": "occured",
          "which": "wich", "necessary": "neccessary", "efficiency": "effeciency"}
_FIXES = {typo: word for word, typo in _TYPOS.items()}
_LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"),
              ("fl", "\ufb02"))
_ABSENT_SLOTS: dict[str, tuple[str, ...]] = {
    "adj": ("provisional", "regional", "revised", "voluntary", "temporary", "bilateral"),
    "thing": ("mentoring scheme", "parking allowance", "translation service", "carbon audit",
              "language course", "sabbatical rotation", "volunteer day", "canteen subsidy"),
    "who": ("the steering group", "the works council", "an external panel", "the trustees",
            "the regional board", "the student union"),
    "verb": ("endorsed", "postponed", "renamed", "expanded", "piloted", "withdrew"),
    "place": ("the northern campus", "all overseas branches", "the archive annex",
              "the new laboratory wing", "every satellite office"),
    "count": ("four", "nine", "eleven", "sixteen", "several", "twenty"),
}
_ABSENT_TEMPLATES = (
    "{who} {verb} the {adj} {thing} at {place} after {count} consultations",
    "a {adj} {thing} was {verb} by {who} for {place}",
    "staff at {place} may join the {thing} once {who} has {verb} it",
    "{who} noted that the {thing} had been {verb} in {count} cases",
)


def _fill(rng: random.Random, template: str, slots: dict[str, tuple[str, ...]]) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: rng.choice(slots[m.group(1)]), template)


def synthetic_document(rng: random.Random, size: int) -> str:
    """English prose of about ``size`` characters, laid out as extracted PDF text."""
    ligatures = rng.random() < 0.7
    smart = rng.random() < 0.8
    width = rng.randint(60, 95)
    header = f"{rng.choice(_SLOTS['doc']).title()} {rng.choice(_SLOTS['year'])}"
    words: list[str] = []
    length = 0
    while length < size:
        sentence = _fill(rng, rng.choice(_TEMPLATES), _SLOTS)
        sentence = sentence[0].upper() + sentence[1:]
        for word in sentence.split(" "):
            bare = word.strip(".,;")
            if bare in _TYPOS and rng.random() < 0.15:
                word = word.replace(bare, _TYPOS[bare])
            words.append(word)
            length += len(word) + 1
        if rng.random() < 0.2:
            words[-1] += " "  # a double space after the full stop
        if rng.random() < 0.12:
            words.append("\n")  # a paragraph break
    lines: list[str] = []
    line = ""
    page = 1
    for word in words:
        if word == "\n":
            lines.append(line.rstrip())
            line = ""
            continue
        if len(line) + len(word) > width and line:
            core = word.rstrip(".,;")
            if len(core) >= 8 and core.isalpha() and rng.random() < 0.5:
                cut_at = rng.randint(3, len(core) - 4)
                mark = "\u00ad" if rng.random() < 0.15 else "-"
                lines.append(line + word[:cut_at] + mark)
                line = word[cut_at:] + " "
                continue
            lines.append(line.rstrip())
            line = ""
            if len(lines) % 55 == 54:
                lines.append(f"{header}    Page {page}")
                page += 1
        line += word + " "
    lines.append(line.rstrip())
    text = "\n".join(lines)
    if ligatures:
        for plain, ligature in _LIGATURES:
            text = text.replace(plain, ligature)
    if smart:
        text = re.sub(r"(?<=\w)'(?=\w)", "\u2019", text)
    return text


# -- Quotes ---------------------------------------------------------------------

_WORD = re.compile(r"\S+")
_NOT_PROSE = re.compile("[\"\u201c\u201d\u201e\u201f\u00ab\u00bb<>\\[\\]{}|\u3010\u3011]")
_NUMBER = re.compile(r"(?<![\w.,/\-])\d{1,4}(?!\w|[.,/\-]\d)")
_NOT = re.compile(r"(?<![\w\-])not\s+")
_HYPHEN_BREAK = re.compile(r"[^\W\d_][-\u00ad][ \t]*\n[^\W\d_]")
_PLAIN_WORD = re.compile(r"(?<![\w\-\u00ad])[a-z]{5,}(?![\w\-\u00ad])")
#: Words whose change alters meaning (negations, numbers, units, months): a typo
#: is never put in one of these.
_MEANING_WORDS = frozenset(
    "not never neither none nobody nothing nowhere without cannot unless except excluding "
    "absent lacks zero three seven eight eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety "
    "hundred thousand million billion twice double triple first second third fourth fifth "
    "dozen percent percentage hours minutes seconds weeks months years daily weekly monthly "
    "annually annual times dollars euros pounds units january february march april june july "
    "august september october november december monday tuesday wednesday thursday friday "
    "saturday sunday".split()
)


@dataclass
class Document:
    """One source's text with its word starts, for picking quotes."""

    text: str
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        for match in _WORD.finditer(self.text):
            self.starts.append(match.start())
            self.ends.append(match.end())


#: The negations citeguard documents (verification/matching.py), plus any "n't".
_NEGATION_WORDS = frozenset(
    "not no never neither nor none nobody nothing nowhere without cannot lack lacks absent "
    "excluding except unless".split()
)
_CONTEXT_TOKEN = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*|[.;:!?]")


def after_negation(text: str, start: int) -> bool:
    """Whether one of the three words before ``start`` (same clause) negates.

    A verbatim quote that starts there leaves the negation out ("start treatment"
    from "do not start treatment"); citeguard reports that as quote-altered by
    design, so such spans are never used as honest quotes here.
    """
    for token in reversed(_CONTEXT_TOKEN.findall(text[max(0, start - 60):start])[-3:]):
        if token in ".;:!?":
            return False
        if token.lower() in _NEGATION_WORDS or token.lower().endswith(("n't", "n\u2019t")):
            return True
    return False


def before_negation(text: str, end: int) -> bool:
    """Whether "not" or "never" (or an "n't") is among the two words after
    ``end``: a quote stopping at "it does" in "it does not" is altered too."""
    for token in _CONTEXT_TOKEN.findall(text[end:end + 30])[:2]:
        if token in ".;:!?,":
            return False
        if token.lower() in ("not", "never") or token.lower().endswith(("n't", "n\u2019t")):
            return True
    return False


def pick_span(rng: random.Random, doc: Document, low: int, high: int,
              accept: Callable[[str], bool] = lambda s: True,
              tries: int = 80) -> tuple[int, int] | None:
    """A prose-like span of ``low``..``high`` characters on whole words.

    Not starting or ending inside a word broken across lines, not ending on a
    line-break hyphen, not starting right after or ending right before a
    negation, no double quotes or brackets.
    """
    if not doc.starts or len(doc.text) < low:
        return None
    for _ in range(tries):
        first = rng.randrange(len(doc.starts))
        start = doc.starts[first]
        if start and doc.text[max(0, start - 2):start].rstrip("\n ")[-1:] in ("-", "\u00ad"):
            continue
        target = rng.randint(low, high)
        last = bisect.bisect_left(doc.ends, start + target)
        if last >= len(doc.ends):
            continue
        end = doc.ends[last]
        if not low <= end - start <= high:
            continue
        if re.match(r"[-\u00ad][ \t]*\n", doc.text[end:end + 4]):
            continue  # the last word goes on after a line-break hyphen ("Natur-\nal")
        span = doc.text[start:end].rstrip(",;:(")
        if len(span) < low or span[-1] in "-\u00ad" or _NOT_PROSE.search(span):
            continue
        letters = sum(c.isalpha() or c.isspace() for c in span)
        if letters < 0.88 * len(span) or len(span.split()) < 6:
            continue
        if after_negation(doc.text, start) or before_negation(doc.text, start + len(span)):
            continue
        if accept(span):
            return start, start + len(span)
    return None


def _outside_brackets(text: str, index: int) -> bool:
    return text.rfind("[", 0, index) <= text.rfind("]", 0, index)


def _placed(span: str, match: re.Match[str], where: str) -> bool:
    """``interior``: three or more words on each side; ``second``: the quote's
    second word; ``second-last``: its second-last word."""
    before = len(span[:match.start()].split())
    after = len(span[match.end():].split())
    if where == "interior":
        return before >= 3 and after >= 3
    return before == 1 if where == "second" else after == 1


def number_sites(span: str, where: str = "interior") -> list[re.Match[str]]:
    return [m for m in _NUMBER.finditer(span)
            if _outside_brackets(span, m.start()) and _placed(span, m, where)]


def not_sites(span: str, where: str = "interior") -> list[re.Match[str]]:
    return [m for m in _NOT.finditer(span) if _placed(span, m, where)]


def change_number(rng: random.Random, span: str, where: str = "interior") -> str | None:
    found = number_sites(span, where)
    if not found:
        return None
    match = rng.choice(found)
    new = str(int(match.group(0)) + rng.choice((1, 2, 3, 5, 10)))
    return span[:match.start()] + new + span[match.end():]


def drop_not(rng: random.Random, span: str, where: str = "interior") -> str | None:
    found = not_sites(span, where)
    if not found:
        return None
    match = rng.choice(found)
    return span[:match.start()] + span[match.end():]


def swap_word(rng: random.Random, span: str, words: list[str]) -> str | None:
    """One ordinary word replaced by another ordinary word of the same source
    that shares at most half its letters ("reviewed" for "submitted")."""
    found = [m for m in _PLAIN_WORD.finditer(span) if m.group(0) not in _MEANING_WORDS]
    if not found or not words:
        return None
    match = rng.choice(found)
    for _ in range(20):
        other = rng.choice(words)
        if other not in _MEANING_WORDS and rapidfuzz.fuzz.ratio(other, match.group(0)) < 50:
            return span[:match.start()] + other + span[match.end():]
    return None


def other_party(rng: random.Random, span: str) -> str | None:
    """A word ending in -er or -or (a party, as in "employer", "licensor")
    given the other party's ending -ee: one or two letters changed."""
    found = [m for m in re.finditer(r"(?<![\w\-\u00ad])[a-z]{4,}(?:er|or)(?![\w\-\u00ad])", span)
             if m.group(0) not in _MEANING_WORDS]
    if not found:
        return None
    match = rng.choice(found)
    return span[:match.start()] + match.group(0)[:-2] + "ee" + span[match.end():]


def change_letter(rng: random.Random, span: str) -> str | None:
    """One lowercase letter changed inside an ordinary (non-meaning) word."""
    found = [m for m in _PLAIN_WORD.finditer(span) if m.group(0) not in _MEANING_WORDS]
    if not found:
        return None
    match = rng.choice(found)
    at = match.start() + rng.randint(1, len(match.group(0)) - 2)
    letter = rng.choice([c for c in "abcdefghijklmnoprstuvwy" if c != span[at]])
    return span[:at] + letter + span[at + 1:]


def repair(rng: random.Random, span: str) -> str:
    """The model's clean copy of a verbatim span: ligatures expanded, hyphenation
    joined (a dash that stays, as in a broken number range, loses its line break),
    smart quotes straightened, whitespace collapsed; half of the time one typo
    fixed (a known misspelling, else one letter of an ordinary word)."""
    text = re.sub(r"(?<=[^\W\d_])[-\u00ad][ \t]*\n\s*(?=[^\W\d_])", "", span)
    text = re.sub(r"([-\u2010-\u2013])[ \t]*\n\s*", r"\1", text)  # "624\u2013\n643"
    text = text.replace("\u00ad", "")
    for plain, ligature in _LIGATURES:
        text = text.replace(ligature, plain)
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"\s+", " ", text).strip()
    if rng.random() < 0.5:
        typos = [m for m in re.finditer(r"\b\w+\b", text) if m.group(0) in _FIXES]
        if typos:
            match = rng.choice(typos)
            text = text[:match.start()] + _FIXES[match.group(0)] + text[match.end():]
        else:
            text = change_letter(rng, text) or text
    return text


def absent_quote(rng: random.Random, low: int, high: int) -> str:
    target = rng.randint(low, high)
    parts: list[str] = []
    while sum(len(p) + 2 for p in parts) < target:
        parts.append(_fill(rng, rng.choice(_ABSENT_TEMPLATES), _ABSENT_SLOTS))
    text = "; ".join(parts)
    cut_at = text.rfind(" ", 0, max(target, low))
    return text[:cut_at] if cut_at >= low else text


# -- Workload -------------------------------------------------------------------


@dataclass
class Cited:
    kind: str
    quote: str
    label: str
    hint: int | None = None  # where the quote came from, in the cited source's text
    detail: str = ""


@dataclass
class Answer:
    text: str
    sources: dict[str, str]
    citations: list[Cited]

    @property
    def pairs(self) -> list[tuple[str, str]]:
        return [(c.quote, c.label) for c in self.citations]

    @property
    def size(self) -> int:
        return sum(len(t) for t in self.sources.values())


_SENTENCES = (
    'The policy states "{q}" [{m}].',
    'According to the source, "{q}" [{m}].',
    'It notes that "{q}" [{m}].',
    'One passage reads: "{q}" [{m}].',
    'The document is explicit: "{q}" [{m}].',
)


def make_citation(rng: random.Random, kind: str, label: str, doc: Document,
                  everything: Sequence[str]) -> Cited | None:
    """A citation of ``kind`` to ``doc`` (``None`` if the source has no fit)."""
    if kind == "honest":
        span = pick_span(rng, doc, 40, 300)
        if span is None:
            return None
        quote = doc.text[span[0]:span[1]]
        detail = "hyphen" if _HYPHEN_BREAK.search(quote) else ""
        return Cited(kind, quote, label, span[0], detail)
    if kind == "repaired":
        span = pick_span(rng, doc, 40, 300)
        if span is None:
            return None
        verbatim = doc.text[span[0]:span[1]]
        quote = repair(rng, verbatim)
        detail = "changed" if simple_normalize(quote) != simple_normalize(verbatim) else ""
        return Cited(kind, quote, label, span[0], detail)
    if kind == "altered":
        return altered_citation(rng, label, doc, 120, 300)
    for _ in range(20):
        quote = absent_quote(rng, 40, 200)
        normalized = simple_normalize(quote)
        if not any(normalized in text for text in everything):
            return Cited(kind, quote, label)
    return None


def altered_citation(rng: random.Random, label: str, doc: Document, low: int, high: int,
                     how: str | None = None, where: str = "interior") -> Cited | None:
    """A span with a number changed or a "not" dropped (``interior``: with three
    or more words on each side of the change)."""
    ways = {"number": (change_number, number_sites), "not": (drop_not, not_sites)}
    for _ in range(4):
        name = how or rng.choice(sorted(ways))
        change, sites = ways[name]
        span = pick_span(rng, doc, low, high,
                         accept=lambda s, f=sites: bool(f(s, where)))
        if span is None:
            continue
        quote = change(rng, doc.text[span[0]:span[1]], where)
        if quote is not None:
            return Cited("altered", quote, label, span[0], name)
    return None


def build_answer(rng: random.Random, texts: Sequence[str], n_citations: int,
                 kinds: Sequence[str], everything: Sequence[str],
                 quotable: int | None = None) -> Answer:
    """An answer citing the first ``quotable`` (default all) of ``texts``."""
    sources = {f"S{i + 1}": text for i, text in enumerate(texts)}
    labels = list(sources)[: quotable or len(sources)]
    docs = {label: Document(sources[label]) for label in labels}
    citations: list[Cited] = []
    for kind in kinds[:n_citations]:
        for _ in range(30):
            label = rng.choice(labels)
            cited = make_citation(rng, kind, label, docs[label], everything)
            if cited is not None:
                citations.append(cited)
                break
    lines = ["Here is what the provided sources say."]
    lines += [rng.choice(_SENTENCES).format(q=c.quote, m=c.label) for c in citations]
    return Answer(" ".join(lines), sources, citations)


def draw_kinds(rng: random.Random, n: int) -> list[str]:
    return rng.choices(KINDS, weights=(45, 30, 10, 15), k=n)


# -- Measurement ----------------------------------------------------------------


def run_ours(answer: Answer) -> list[str]:
    """citeguard's outcome for each quoted citation of ``answer``."""
    report = verify_answer(answer.text, answer.sources, config=CONFIG)
    return [c.outcome for c in report.citations if c.quote is not None]


def timed[T](function: Callable[[], T], repeats: int) -> tuple[float, T]:
    """Median CPU time (``time.process_time``) of ``repeats`` calls, in seconds,
    and the result of the last call."""
    spent = []
    result: T
    for _ in range(max(1, repeats)):
        started = time.process_time()
        result = function()
        spent.append(time.process_time() - started)
    return statistics.median(spent), result


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def ms(seconds: float) -> str:
    value = seconds * 1000
    if value >= 1000:
        return f"{value:,.0f}"
    return f"{value:.1f}" if value >= 10 else f"{value:.2f}"


def times(ratio: float) -> str:
    return f"{ratio:,.0f}x" if ratio >= 100 else f"{ratio:.1f}x"


def table(header: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "  ") -> None:
    """A plain text table: first column left-aligned, the rest right-aligned."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        padded = [c.ljust(w) if i == 0 else c.rjust(w)
                  for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print(indent + "  ".join(padded).rstrip())
        if n == 0:
            print(indent + "  ".join("-" * w for w in widths))


def library_version() -> str:
    """The commit of the checkout, and whether verification/ differs from it."""
    try:
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--",
                                "verification"], capture_output=True, text=True,
                               check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + (" + uncommitted changes in verification/" if dirty else "")


# -- The run --------------------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    answers: int
    repeats: int
    naive_windows: int
    naive_full: int
    naive_full_cap: float  # seconds: checks are drawn among quotes estimated under this
    accuracy_per_row: int
    scaling_repeats: tuple[int, int, int]


PLANS = {
    "normal": Plan(answers=40, repeats=3, naive_windows=120, naive_full=4, naive_full_cap=10.0,
                   accuracy_per_row=40, scaling_repeats=(15, 5, 2)),
    "quick": Plan(answers=8, repeats=1, naive_windows=30, naive_full=1, naive_full_cap=3.0,
                  accuracy_per_row=8, scaling_repeats=(5, 2, 1)),
}


def load_sources(rng: random.Random, corpus: Path) -> list[str]:
    """The pool of 1-8 KB sources: PDF text if there is any, else generated."""
    pdfs: list[tuple[str, str]] = []
    skipped: list[str] = []
    if corpus.is_dir():
        pdfs, skipped = read_pdfs(corpus)
    if pdfs:
        pool = [piece for _, text in pdfs for piece in cut(rng, text)]
        print(f"Sources: text of {len(pdfs)} PDFs in {corpus} "
              f"({sum(len(t) for _, t in pdfs):,} chars) cut into {len(pool)} sources of "
              f"1-8 KB ({sum(len(t) for t in pool):,} chars)")
        if skipped:
            print(f"  skipped: {', '.join(skipped)}")
    else:
        pool = [synthetic_document(rng, rng.randint(1000, 8000)) for _ in range(60)]
        print(f"Sources: {corpus} has no usable PDFs; {len(pool)} generated sources of 1-8 KB "
              f"with PDF artefacts ({sum(len(t) for t in pool):,} chars)")
    rng.shuffle(pool)
    return pool


def build_workload(rng: random.Random, pool: list[str], count: int) -> list[Answer]:
    everything = [simple_normalize(t) for t in pool]
    answers = []
    for _ in range(count):
        texts = rng.sample(pool, rng.randint(5, min(50, len(pool))))
        n_citations = rng.randint(5, 20)
        answers.append(build_answer(rng, texts, n_citations, draw_kinds(rng, n_citations),
                                    everything))
    cited = [c for a in answers for c in a.citations]
    kinds = Counter(c.kind for c in cited)
    counts = [len(a.citations) for a in answers]
    n_sources = [len(a.sources) for a in answers]
    sizes = [a.size / 1000 for a in answers]
    print(f"Workload: {len(answers)} answers with {min(counts)}-{max(counts)} quoted citations "
          f"(median {statistics.median(counts):g}) over {min(n_sources)}-{max(n_sources)} "
          f"sources ({min(sizes):.0f}-{max(sizes):.0f} KB, median {statistics.median(sizes):.0f} "
          f"KB)")
    print(f"  {len(cited)} quotes: {kinds['honest']} honest (verbatim, "
          f"{sum(c.detail == 'hyphen' for c in cited)} across a hyphenated line break), "
          f"{kinds['repaired']} artefact-repaired ("
          f"{sum(c.detail == 'changed' for c in cited)} not contained after the simple "
          f"normalisation),\n  {kinds['altered']} altered "
          f"({sum(c.detail == 'number' for c in cited)} number changed, "
          f"{sum(c.detail == 'not' for c in cited)} 'not' dropped; 120-300 chars), "
          f"{kinds['absent']} absent (in no source)")
    return answers


def section_outcomes(answers: list[Answer]) -> None:
    print("\n1. Outcomes on the workload (citeguard)")
    confusion: dict[str, Counter[str]] = {kind: Counter() for kind in KINDS}
    surprises: list[tuple[Cited, str]] = []
    for answer in answers:
        outcomes = run_ours(answer)
        if len(outcomes) != len(answer.citations):
            raise SystemExit(f"quote parsing found {len(outcomes)} quotes, "
                             f"expected {len(answer.citations)}")
        for citation, outcome in zip(answer.citations, outcomes, strict=True):
            confusion[citation.kind][outcome] += 1
            if outcome not in EXPECTED[citation.kind]:
                surprises.append((citation, outcome))
    extra = sorted({o for c in confusion.values() for o in c} - set(OUTCOME_COLUMNS))
    columns = (*OUTCOME_COLUMNS, *extra)
    rows = []
    for kind in KINDS:
        n = sum(confusion[kind].values())
        good = sum(confusion[kind][o] for o in EXPECTED[kind])
        rows.append([kind, n, *(confusion[kind][o] for o in columns), f"{good}/{n}",
                     " or ".join(EXPECTED[kind])])
    table(["quote kind", "n", *columns, "as expected", "expected"], rows)
    for citation, outcome in surprises[:6]:
        print(f"  unexpected: {citation.kind} ({citation.detail or '-'}) -> {outcome}: "
              f"{citation.quote[:100]!r}")


def section_speed(answers: list[Answer], plan: Plan, seed: int) -> None:
    for answer in answers[:3]:
        run_ours(answer)  # warm the caches (compiled patterns, character folds)
    ours: list[float] = []
    lower: list[float] = []
    folding: list[float] = []
    naive: list[float] = []
    scanned: list[tuple[Answer, Cited, float]] = []
    windows_timed = windows_total = 0
    for answer in answers:
        ours.append(timed(lambda a=answer: run_ours(a), plan.repeats)[0])
        lower.append(timed(lambda a=answer: lower_bound(a.pairs, a.sources),
                           max(5, plan.repeats))[0])
        folding.append(timed(lambda a=answer: [normalize(t) for t in a.sources.values()],
                             plan.repeats)[0])
        total = 0.0
        for citation in answer.citations:
            cost, _, sampled, windows = naive_cost(
                citation.quote, answer.sources[citation.label], plan.naive_windows)
            total += cost
            windows_timed += sampled
            windows_total += windows
            if windows:
                scanned.append((answer, citation, cost))
        naive.append(total)
    vs_naive = [n / o for n, o in zip(naive, ours, strict=True)]
    vs_lower = [o / lb for o, lb in zip(ours, lower, strict=True)]
    fold_share = [f / o for f, o in zip(folding, ours, strict=True)]

    print(f"\n2. CPU time per answer, {len(answers)} answers (citeguard: median of "
          f"{plan.repeats} run(s) per answer; lower bound: median of {max(5, plan.repeats)})")
    table(["method", "median ms", "p10 ms", "p90 ms", "max ms"],
          [[name, ms(statistics.median(v)), ms(percentile(v, 0.1)), ms(percentile(v, 0.9)),
            ms(max(v))]
           for name, v in (
               ("citeguard verify_answer()", ours),
               ("  for reference: verification.normalize() of all its sources", folding),
               ("lower bound: simple normalise + str.find", lower),
               ("naive baseline: reference verify() (estimated, see below)", naive))])
    print()
    median_naive = statistics.median(vs_naive)
    median_lower = statistics.median(vs_lower)
    naive_over_floor = [n / lb for n, lb in zip(naive, lower, strict=True)]
    table(["ratio, per answer", "median", "p10", "p90", "worst", "goal", "met"],
          [["(a) naive baseline / citeguard", times(median_naive),
            times(percentile(vs_naive, 0.1)), times(percentile(vs_naive, 0.9)),
            times(min(vs_naive)), ">= 1000x", "yes" if median_naive >= 1000 else "NO"],
           ["(b) citeguard / lower bound", times(median_lower),
            times(percentile(vs_lower, 0.1)), times(percentile(vs_lower, 0.9)),
            times(max(vs_lower)), "<= 5x", "yes" if median_lower <= 5 else "NO"],
           ["(for scale) naive baseline / lower bound",
            times(statistics.median(naive_over_floor)), times(percentile(naive_over_floor, 0.1)),
            times(percentile(naive_over_floor, 0.9)), times(min(naive_over_floor)), "", ""]])
    share = statistics.median(fold_share)
    print(f"  normalize() of every source of the answer, done once, is {share:.0%} of "
          "citeguard's time per answer (median).")
    n_quotes = sum(len(a.citations) for a in answers)
    print(f"  Naive baseline sampling: all {n_quotes} citations of all {len(answers)} answers; "
          f"its normalisation and `in` are timed in full.\n  {len(scanned)} quotes were not "
          f"contained and need the window scan: ratio() was timed on every k-th window "
          f"({windows_timed:,} of {windows_total:,}\n  windows, 1 in "
          f"{windows_total / max(windows_timed, 1):.0f} on average; at least {plan.naive_windows} "
          f"or all per quote) and scaled to all windows.")

    cheap = [item for item in scanned if item[2] < plan.naive_full_cap]
    checks = random.Random(seed + 1).sample(cheap, min(plan.naive_full, len(cheap)))
    rows = []
    for answer, citation, estimate in checks:
        started = time.process_time()
        verdict = naive_verify(citation.quote, citation.label, answer.sources)
        actual = time.process_time() - started
        single = Answer(f'It notes that "{citation.quote}" [{citation.label}].',
                        answer.sources, [citation])
        mine, outcome = timed(lambda s=single: run_ours(s), plan.repeats)
        rows.append([f"{citation.kind}, {len(citation.quote)} chars, "
                     f"{len(answer.sources[citation.label]) / 1000:.1f} KB cited, "
                     f"{len(answer.sources)} sources",
                     ms(estimate), ms(actual), f"{estimate / actual:.2f}", verdict,
                     ms(mine), outcome[0], times(actual / mine)])
    print(f"\n  Check of the estimate: {len(checks)} of those {len(scanned)} quotes, drawn at "
          f"random among the {len(cheap)} estimated under {plan.naive_full_cap:g} s, run in "
          "full through the\n  reference verify(); citeguard on the same quote as a "
          "one-citation answer over the same sources.")
    table(["quote", "estimate ms", "full ms", "est/full", "naive says", "citeguard ms",
           "citeguard says", "naive/ours"], rows)


def section_scaling(pool: list[str], plan: Plan, seed: int) -> None:
    rng = random.Random(seed + 2)
    synthetic = [synthetic_document(rng, rng.randint(1000, 8000)) for _ in range(240)]
    mixed = pool + synthetic
    rng.shuffle(mixed)
    sizes = (10_000, 100_000, 1_000_000)
    prefixes: list[list[str]] = []
    for size in sizes:
        texts: list[str] = []
        total = 0
        for text in mixed:
            if total >= size:
                break
            texts.append(text[: size - total])
            total += len(texts[-1])
        prefixes.append(texts)
    quotable = max(1, len(prefixes[0]) - 1)  # sources that are whole at every size
    kinds = ["honest"] * 4 + ["repaired"] * 2 + ["altered"] + ["absent"] * 3
    base = build_answer(rng, prefixes[0], 10, kinds, [simple_normalize(t) for t in mixed],
                        quotable=quotable)
    rows = []
    previous: tuple[float, float] | None = None
    first: list[str] | None = None
    for texts, repeats in zip(prefixes, plan.scaling_repeats, strict=True):
        answer = Answer(base.text, {f"S{i + 1}": t for i, t in enumerate(texts)},
                        base.citations)
        mine, outcomes = timed(lambda a=answer: run_ours(a), repeats)
        floor, _ = timed(lambda a=answer: lower_bound(a.pairs, a.sources), max(3, repeats))
        first = first or outcomes
        rows.append([f"{answer.size / 1000:,.0f} KB", len(texts), ms(mine),
                     f"x{mine / previous[0]:.1f}" if previous else "",
                     ms(floor), f"x{floor / previous[1]:.1f}" if previous else "",
                     times(mine / floor), "same" if outcomes == first else "DIFFERENT",
                     repeats])
        previous = (mine, floor)
    mix = ", ".join(f"{v} {k}" for k, v in Counter(c.kind for c in base.citations).items())
    print(f"\n3. Scaling: one answer with 10 citations ({mix}) quoting the first {quotable} "
          f"source(s);\n   sources added (PDF text and generated prose, shuffled) up to each "
          f"size. Linear growth is x10 per row.")
    table(["sources", "n", "citeguard ms", "growth", "lower bound ms", "growth",
           "ours/lower", "outcomes", "runs"], rows)
    summary = ", ".join(f"{v} {k}" for k, v in Counter(first or []).items())
    print(f"  citeguard's outcomes at every size: {summary}")


@dataclass(frozen=True)
class Case:
    how: str  # letter, number, not, word, party
    where: str  # interior, second, second-last
    band: tuple[int, int]

    @property
    def label(self) -> str:
        what = {"letter": "one letter changed in an ordinary word", "number": "a number changed",
                "not": "'not' dropped", "word": "another word of the source for one",
                "party": "the other party (-er/-or to -ee)"}[self.how]
        if self.how in ("number", "not"):
            what += {"interior": ", mid-quote", "second": ", as the 2nd word",
                     "second-last": ", as the 2nd-last word"}[self.where]
        return f"{what}; {self.band[0]}-{self.band[1]} chars"

    @property
    def want(self) -> str:
        return "verified-fuzzy" if self.how == "letter" else "quote-altered"


ACCURACY_CASES = (
    Case("letter", "interior", (100, 199)), Case("letter", "interior", (300, 600)),
    Case("number", "interior", (100, 199)), Case("number", "interior", (300, 600)),
    Case("not", "interior", (100, 199)), Case("not", "interior", (300, 600)),
    Case("not", "second", (100, 199)), Case("not", "second-last", (100, 199)),
    Case("word", "interior", (300, 600)), Case("party", "interior", (300, 600)),
)


def make_case(rng: random.Random, case: Case, doc: Document) -> Cited | None:
    low, high = case.band
    if case.how in ("number", "not"):
        return altered_citation(rng, "S1", doc, low, high, how=case.how, where=case.where)
    words = sorted(set(_PLAIN_WORD.findall(doc.text))) if case.how == "word" else []
    change: Callable[[str], str | None] = {
        "letter": lambda text: change_letter(rng, text),
        "word": lambda text: swap_word(rng, text, words),
        "party": lambda text: other_party(rng, text),
    }[case.how]
    span = pick_span(rng, doc, low, high, accept=lambda s: change(s) is not None)
    if span is None:
        return None
    quote = change(doc.text[span[0]:span[1]])
    return Cited(case.how, quote, "S1", span[0]) if quote else None


def section_accuracy(pool: list[str], plan: Plan, seed: int) -> None:
    rng = random.Random(seed + 3)
    docs = [Document(t) for t in pool if len(t) >= 1500]
    rows = []
    missed_by_autojunk = missed = 0
    for case in ACCURACY_CASES:
        mine: Counter[str] = Counter()
        theirs: Counter[str] = Counter()
        n = attempts = 0
        while n < plan.accuracy_per_row and attempts < plan.accuracy_per_row * 50:
            attempts += 1
            doc = rng.choice(docs)
            citation = make_case(rng, case, doc)
            if citation is None:
                continue
            n += 1
            others = rng.sample([t for t in pool if t is not doc.text], 4)
            sources = {"S1": doc.text, **{f"S{i + 2}": t for i, t in enumerate(others)}}
            single = Answer(f'It notes that "{citation.quote}" [S1].', sources, [citation])
            mine[run_ours(single)[0]] += 1
            hint = len(simple_normalize(doc.text[: citation.hint or 0]))
            verdict = naive_verdict(citation.quote, doc.text, hint)
            theirs[verdict] += 1
            if verdict == "quote-not-found":
                missed += 1
                if naive_verdict(citation.quote, doc.text, hint, autojunk=False) != verdict:
                    missed_by_autojunk += 1
        rows.append([case.label, n, f"{mine[case.want]}/{n} {case.want}",
                     ", ".join(f"{v} {k}" for k, v in sorted(mine.items())
                               if k != case.want) or "-",
                     f"{theirs['verified-fuzzy']}/{n} verified-fuzzy",
                     ", ".join(f"{v} {k}" for k, v in sorted(theirs.items())
                               if k != "verified-fuzzy") or "-"])
    print(f"\n4. Accuracy: quotes cut from the sources with one change; up to "
          f"{plan.accuracy_per_row} per row, both methods on every quote.\n   citeguard: a "
          f"one-citation answer over the cited source and 4 others. Naive: the reference "
          f"verify()'s verdict on\n   the cited source, computed exactly (windows pruned only by "
          f"difflib's quick_ratio() bound).")
    table(["quote", "n", "citeguard", "citeguard otherwise", "naive baseline",
           "naive otherwise"], rows)
    print("  Wanted: a changed letter verifies (verified-fuzzy); a changed number, a dropped "
          "'not', another word or the other party is quote-altered.")
    print(f"  Naive baseline misses (quote-not-found): {missed}, of which {missed_by_autojunk} "
          "would verify with SequenceMatcher(autojunk=False).")


# -- Cost curve of long quotes: seeded against window search --------------------

#: Quote lengths of the cost curve, in characters.
CURVE_LENGTHS = (100, 500, 1_000, 2_000, 5_000, 10_000, 20_000)
#: Characters of the one source every curve answer cites.
CURVE_SOURCE_CHARS = 50_000
#: The old path (``seed_min_chars=None``, no budget), as it was.
UNSEEDED = VerificationConfig(threshold=THRESHOLD, seed_min_chars=None, max_work=None)


def _prose(text: str) -> str:
    """``text`` without what would end a quote or start a marker in an
    answer (double quotes, brackets), so any span of it can be quoted."""
    return re.sub(r"[\"\u201c\u201d\u201e\u201f\u00ab\u00bb\[\]{}\u3010\u3011]", "'", text)


def _word_span(text: str, start: int, length: int) -> str:
    """About ``length`` characters of ``text`` from the word at ``start``, with
    its whitespace collapsed (as a model copies it)."""
    start = text.find(" ", start) + 1
    end = text.rfind(" ", start, start + length + 1)
    return " ".join(text[start : end if end > start else start + length].split())


def _typos(rng: random.Random, span: str, every: int) -> str:
    """``span`` with a letter changed in one ordinary word per ``every`` characters
    (at least one), so that no exact lookup settles it: the alignment runs."""
    for _ in range(max(1, len(span) // every)):
        span = change_letter(rng, span) or span
    return span


def _curve_texts(corpus: Path) -> list[str]:
    texts = [_prose(text) for _, text in read_pdfs(corpus)[0]] if corpus.is_dir() else []
    if not texts:
        rng = random.Random(5)
        texts = [_prose(synthetic_document(rng, 60_000)) for _ in range(4)]
    return sorted(texts, key=len, reverse=True)


def section_curve(corpus: Path, old_cap: float) -> None:
    """Time of one answer quoting ``L`` characters, present (a few letters
    changed) and absent, through the seeded path and the old window search."""
    rng = random.Random(11)
    texts = _curve_texts(corpus)
    source = texts[0][:CURVE_SOURCE_CHARS]
    elsewhere = " ".join(texts[1:])
    print(f"\nCost curve: one answer, one quote of L characters, one {len(source):,}-character "
          "source (PDF text).\n  present: a span of the source with one letter changed per "
          "1,000 characters (so the fuzzy\n  alignment runs); absent: a span of another "
          "document. Old = seed_min_chars=None (window search\n  for every quote), new = "
          f"seeded from {SEED_MATCH_MIN_CHARS} characters on. CPU seconds; per-char = "
          "(time / L) relative\n  to the 100-character point of the same column. Old is "
          f"skipped once its estimate passes {old_cap:g} s.")
    rows = []
    base: dict[tuple[str, str], float] = {}
    last_old: dict[str, tuple[int, float]] = {}
    for length in CURVE_LENGTHS:
        quotes = {
            "present": _typos(rng, _word_span(source, 2_000, length), 1_000),
            "absent": _word_span(elsewhere, rng.randrange(len(elsewhere) - length - 100),
                                 length),
        }
        for kind, quote in quotes.items():
            answer = f'The source states "{quote}" [S1].'
            row: list[object] = [f"{length:,}", kind]
            for name, config in (("new", CONFIG), ("old", UNSEEDED)):
                if name == "old" and kind in last_old:
                    # Window search grew about as L^3 here (measured, 1k to 10k).
                    before_length, before_time = last_old[kind]
                    estimate = before_time * (length / before_length) ** 3
                    if estimate > old_cap:
                        row += [f"skipped (~{estimate:,.0f} s)", "", ""]
                        continue
                started = time.process_time()
                report = verify_answer(answer, {"S1": source}, config=config)
                spent = time.process_time() - started
                if name == "old":
                    last_old[kind] = (length, spent)
                per_char = spent / length
                base.setdefault((name, kind), per_char)
                outcome = next(c.outcome for c in report.citations if c.quote is not None)
                row += [f"{spent:.3f}", f"{per_char / base[name, kind]:.2f}", outcome]
            rows.append(row)
    table(["L", "quote", "new s", "new per-char", "new says", "old s", "old per-char",
           "old says"], rows)


def section_agreement(corpus: Path, per_length: int) -> None:
    """Seeded against window search on long quotes that are there: align()
    on the same normalised neighbourhood, and verify_answer()'s outcome and
    offsets for the same quote cited against it."""
    from verification.matching import align

    rng = random.Random(13)
    texts = [t for t in _curve_texts(corpus) if len(t) >= 12_000]
    lengths = (500, 700, 1_000, 1_500, 2_000, 3_000)
    ways: dict[str, Callable[[str], str | None]] = {
        "letters": lambda span: _typos(rng, span, 400),
        "number": lambda span: change_number(rng, span),
        "not": lambda span: drop_not(rng, span),
        "word dropped": lambda span: re.sub(r" \w+ ", " ", span, count=1)
        if rng.random() < 0.5 else re.sub(r" \w+\.? ", " ", span[::-1], count=1)[::-1],
    }
    same_align = same_verdict = total = unmatched = rejected = 0
    differing: list[str] = []
    started = time.perf_counter()
    for text in texts:
        for length in lengths:
            for _ in range(per_length):
                at = rng.randrange(3_000, len(text) - length - 3_000)
                at = text.find(" ", at) + 1
                span = " ".join(text[at : text.rfind(" ", at, at + length + 1)].split())
                how = rng.choice(sorted(ways))
                quote = ways[how](span)
                if quote is None:
                    continue
                region = text[at - 3_000 : at + length + 3_000]
                normalized = normalize(region)
                q = normalize(quote).text
                old = align(q, normalized, seed_min_chars=None)
                if old is None or old.score < THRESHOLD:
                    # Not a match (a page break or a table in the span): the
                    # seeded path may reject it outright, by design.
                    unmatched += 1
                    rejected += align(q, normalized) is None
                    continue
                new = align(q, normalized)
                total += 1
                if new is not None and (
                        (old.norm_start, old.norm_end) == (new.norm_start, new.norm_end)
                        and abs(old.score - new.score) < 1e-9):
                    same_align += 1
                elif len(differing) < 8:
                    differing.append(f"align {len(q)} chars, {how}: old {old} new {new}")
                answer = f'The source states "{quote}" [S1].'
                reports = [verify_answer(answer, {"S1": region}, config=config)
                           for config in (UNSEEDED, CONFIG)]
                seen = [[(c.outcome, c.chunk_start, c.chunk_end) for c in r.citations]
                        for r in reports]
                if seen[0] == seen[1]:
                    same_verdict += 1
                elif len(differing) < 8:
                    differing.append(f"verify {len(q)} chars, {how}: old {seen[0]} "
                                     f"new {seen[1]}")
    print(f"\nAgreement on {total} long quotes that match ({', '.join(map(str, lengths))} "
          f"characters; a few letters, a number, a 'not' or a word changed) cut from "
          f"{len(texts)} corpus texts,\n  in a 6,000-character neighbourhood of their passage "
          f"(the old align() scores them >= {THRESHOLD}):")
    print(f"  align(): same window and score {same_align}/{total}; verify_answer(): same "
          f"outcome and offsets {same_verdict}/{total} ({time.perf_counter() - started:.0f} s)")
    print(f"  {unmatched} more spans do not match (old best score < {THRESHOLD}: cut across "
          f"tables or page breaks);\n  the seeded path rejects {rejected} of them without "
          "a window, the rest it scores below the threshold too.")
    for line in differing:
        print(f"  differs: {line}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="citeguard verification benchmark")
    parser.add_argument("--quick", action="store_true", help="smaller samples (under 30 s)")
    parser.add_argument("--seed", type=int, default=20240601, help="workload seed")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                        help="directory of PDFs (default: ../shared/corpus/pdfs)")
    parser.add_argument("--curve", action="store_true",
                        help="only the cost curve of long quotes (seeded against window "
                        "search) and their agreement")
    parser.add_argument("--old-cap", type=float, default=60.0,
                        help="--curve: skip the old path past this many estimated seconds")
    args = parser.parse_args(argv)
    if args.curve:
        began = time.perf_counter()
        section_curve(args.corpus, args.old_cap)
        section_agreement(args.corpus, 1 if args.quick else 8)
        print(f"\nWall time {time.perf_counter() - began:.0f} s.")
        return 0
    plan = PLANS["quick" if args.quick else "normal"]
    began = time.perf_counter()
    print(f"citeguard verification benchmark: {'quick' if args.quick else 'normal'} run, "
          f"seed {args.seed}, threshold {THRESHOLD}")
    print(f"citeguard {library_version()}; Python {platform.python_version()}, rapidfuzz "
          f"{rapidfuzz.__version__}, {platform.machine()}, {os.cpu_count()} CPUs")
    rng = random.Random(args.seed)
    pool = load_sources(rng, args.corpus)
    answers = build_workload(rng, pool, plan.answers)
    spent = [("setup", time.perf_counter() - began)]
    for name, section in (("outcomes", lambda: section_outcomes(answers)),
                          ("speed", lambda: section_speed(answers, plan, args.seed)),
                          ("scaling", lambda: section_scaling(pool, plan, args.seed)),
                          ("accuracy", lambda: section_accuracy(pool, plan, args.seed))):
        started = time.perf_counter()
        section()
        spent.append((name, time.perf_counter() - started))
    print(f"\nWall time {time.perf_counter() - began:.0f} s ("
          + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent) + ").")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
