"""What a cited sentence asserts in its own words, checked against its evidence.

A paraphrase can carry the passage's meaning or change it: "3 years" for
"two years", "must" for "may", "before" for "after", a drug the passage never
names. These checks compare the sentence's own numbers, negations,
quantifiers, modals, order words and names (outside any quote: a quote is
checked by containment) with the passages its citations located, and with
the rest of the cited sources.

Precision first: a finding is raised only where the evidence says something
else (a counterpart of the same kind that differs) or where nothing in the
cited sources says it at all. A word the evidence merely lacks nearby is not
a finding. Deterministic, no model.

Offsets: ``claim_start``/``claim_end`` index the answer; ``passage_start``/
``passage_end`` the original text of the source named by ``source_marker``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .normalize import fold_one_for_one

__all__ = ["CHECKS", "ClaimFinding", "Evidence", "check_claim"]

Check = Literal["number", "negation", "quantifier", "modal", "comparative", "entity"]
CHECKS: tuple[Check, ...] = ("number", "negation", "quantifier", "modal", "comparative", "entity")


@dataclass(frozen=True, slots=True)
class Evidence:
    """One cited source as a sentence's evidence: its original text, the
    passage located in it (``start``/``end``), and its marker."""

    marker: str
    text: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class ClaimFinding:
    """One thing the sentence says that its evidence contradicts or lacks."""

    check: Check
    claim: str
    claim_start: int
    claim_end: int
    message: str
    passage: str | None = None
    source_marker: str | None = None
    passage_start: int | None = None
    passage_end: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "check": self.check,
            "claim": self.claim,
            "claim_start": self.claim_start,
            "claim_end": self.claim_end,
            "message": self.message,
            "passage": self.passage,
            "source_marker": self.source_marker,
            "passage_start": self.passage_start,
            "passage_end": self.passage_end,
        }


# -- numbers ---------------------------------------------------------------

_NUMBER_WORDS = {
    "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
    "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90, "hundred": 100, "dozen": 12, "twice": 2, "thrice": 3,
    "half": 0.5, "single": 1, "once": 1,
}
#: "one" is left out of claims: "one of the five trades" counts nothing.
_EVIDENCE_ONLY_WORDS = {"one": 1, "a hundred": 100}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
           "k": 1e3, "m": 1e6, "bn": 1e9, "mn": 1e6}
_NUMBER = re.compile(
    r"(?<![\w.,])(?P<currency>[$€£¥])?\s?"
    r"(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|"
    + "|".join(sorted({*_NUMBER_WORDS, *_EVIDENCE_ONLY_WORDS}, key=len, reverse=True))
    + r")(?![\w])"
    r"(?:[\s\u00a0-]?(?P<scale>thousand|million|billion|trillion|bn|mn|k|m)\b)?"
    r"(?:\s?(?P<percent>%|percent\b|per\s?cent\b))?"
    r"(?:[\s\u00a0-](?P<unit>[^\W\d_]{2,}))?",
    re.IGNORECASE,
)
#: Units compared as one ("2 years" and "24 months" are not compared at all:
#: a counterpart must have the same unit).
_UNIT_FORMS = {
    "yrs": "year", "yr": "year", "years": "year", "year": "year", "months": "month",
    "month": "month", "weeks": "week", "week": "week", "days": "day", "day": "day",
    "hours": "hour", "hour": "hour", "hrs": "hour", "minutes": "minute", "minute": "minute",
    "mins": "minute", "seconds": "second", "second": "second", "mg": "mg", "milligrams": "mg",
    "g": "g", "grams": "g", "kg": "kg", "kilograms": "kg", "ml": "ml", "ug": "mcg", "mcg": "mcg",
    "percent": "%", "%": "%", "dollars": "$", "usd": "$", "euros": "€", "pounds": "£",
    "times": "times", "people": "people", "persons": "people", "patients": "patients",
    "employees": "employees", "members": "members", "votes": "votes", "km": "km",
    "miles": "mile", "mile": "mile", "meters": "m", "metres": "m", "feet": "ft", "ft": "ft",
}
#: The numbers that make a duration, dose or quantity: compared by value and unit.
_COMPARABLE_UNITS = frozenset(_UNIT_FORMS.values())


@dataclass(frozen=True, slots=True)
class _Quantity:
    value: float
    unit: str | None
    start: int
    end: int
    text: str
    digits: int  # significant digits written (rounding tolerance)
    year: bool


def _quantities(text: str, start: int = 0, end: int | None = None, *,
                evidence: bool = False) -> list[_Quantity]:
    folded = fold_one_for_one(text)
    found = []
    for match in _NUMBER.finditer(folded, start, len(text) if end is None else end):
        raw = match.group("value").lower()
        if raw in _EVIDENCE_ONLY_WORDS and not evidence:
            continue
        if raw in _NUMBER_WORDS or raw in _EVIDENCE_ONLY_WORDS:
            value = float(_NUMBER_WORDS.get(raw, _EVIDENCE_ONLY_WORDS.get(raw, 0)))
            digits = 3
        else:
            plain = raw.replace(",", "")
            value = float(plain)
            digits = len(plain.replace(".", "").lstrip("0").rstrip("0")) or 1
            if "." in plain:
                digits = max(digits, len(plain.replace(".", "").lstrip("0")))
        scale = (match.group("scale") or "").lower()
        # "m" and "k" scale only money ("$5m"), not "5 m" of cable.
        if scale in ("m", "k") and not match.group("currency"):
            scale = ""
        value *= _SCALES.get(scale, 1.0)
        unit_word = (match.group("unit") or "").lower()
        if match.group("percent"):
            unit: str | None = "%"
        elif match.group("currency"):
            unit = {"$": "$", "€": "€", "£": "£", "¥": "¥"}[match.group("currency")]
        else:
            unit = _UNIT_FORMS.get(unit_word)
        year = (unit is None and value.is_integer() and 1000 <= value <= 2100
                and raw.isdigit() and len(raw) == 4)
        span_end = match.end("unit") if unit and match.group("unit") else (
            match.end("percent") if match.group("percent") else
            match.end("scale") if scale else match.end("value"))
        span_start = match.start("currency") if match.group("currency") else match.start("value")
        found.append(_Quantity(value, unit, span_start, span_end, text[span_start:span_end],
                               digits, year))
    return found


def _same_value(claim: _Quantity, other: _Quantity) -> bool:
    """Whether ``other`` says ``claim``'s number: the same value, or one that
    rounds to it at the precision the claim wrote ("41%" for 41.3 %, "over
    260,000" for 263,112; "1.5 million" for 1,500,000; "half" for 50%)."""
    if claim.value == other.value:
        return True
    if claim.value < 1 and other.unit == "%" and claim.unit is None:
        return abs(claim.value * 100 - other.value) < 1e-9
    if claim.value == 0 or other.value == 0:
        return False
    if claim.year or other.year:
        return False
    ratio = other.value / claim.value
    if not 0.5 < ratio < 2:
        return False
    # Round ``other`` to the significant digits ``claim`` wrote.
    digits = max(1, claim.digits)
    rounded = float(f"{other.value:.{digits}g}")
    return abs(rounded - claim.value) <= 1e-9 * max(1.0, abs(claim.value))


def _check_numbers(
    claim_text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence],
    absent: bool,
) -> list[ClaimFinding]:
    claimed = [q for s, e in spans for q in _quantities(claim_text, s, e)]
    if not claimed:
        return []
    whole = [(ev, q) for ev in evidence for q in _quantities(ev.text, evidence=True)]
    findings = []
    for quantity in claimed:
        if any(_same_value(quantity, q) for _, q in whole):
            continue
        counterpart = None
        if quantity.unit in _COMPARABLE_UNITS:
            in_passages = [(ev, q) for ev, q in whole
                           if q.unit == quantity.unit and ev.start <= q.start < ev.end]
            if in_passages:
                counterpart = in_passages[0]
        if counterpart is not None:
            ev, q = counterpart
            findings.append(ClaimFinding(
                "number", quantity.text, quantity.start, quantity.end,
                f"the sentence says {quantity.text}; the passage says {q.text}",
                passage=q.text, source_marker=ev.marker, passage_start=q.start,
                passage_end=q.end,
            ))
        elif absent:
            findings.append(ClaimFinding(
                "number", quantity.text, quantity.start, quantity.end,
                f"the sentence says {quantity.text}; the cited "
                f"{'source says' if len(evidence) == 1 else 'sources say'} no such number",
            ))
    return findings


# -- words -----------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot can't won't don't doesn't "
    "didn't isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't "
    "mustn't".split()
)
#: Words whose opposite in the evidence, with the word itself absent there, is
#: a change of meaning: (check, word, opposites).
_OPPOSITES: tuple[tuple[Check, str, tuple[str, ...]], ...] = (
    ("quantifier", "all", ("some", "most", "few", "none")),
    ("quantifier", "always", ("sometimes", "often", "usually", "rarely", "never")),
    ("quantifier", "none", ("some", "all", "most")),
    ("quantifier", "every", ("some", "most")),
    ("modal", "must", ("may", "can", "might", "should", "could")),
    ("modal", "required", ("optional", "recommended", "allowed", "permitted")),
    ("modal", "may", ("must", "shall")),
    ("modal", "optional", ("required", "mandatory")),
    ("comparative", "before", ("after",)),
    ("comparative", "after", ("before",)),
    ("comparative", "increase", ("decrease", "reduce", "reduction", "decline", "lower", "fall")),
    ("comparative", "increased", ("decreased", "reduced", "declined", "lowered", "fell")),
    ("comparative", "decrease", ("increase", "rise", "raise", "higher")),
    ("comparative", "decreased", ("increased", "rose", "raised")),
    ("comparative", "more", ("less", "fewer")),
    ("comparative", "less", ("more",)),
    ("comparative", "fewer", ("more",)),
    ("comparative", "higher", ("lower",)),
    ("comparative", "lower", ("higher",)),
    ("comparative", "maximum", ("minimum",)),
    ("comparative", "minimum", ("maximum",)),
    ("comparative", "earlier", ("later",)),
    ("comparative", "later", ("earlier",)),
)


def _words(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    folded = fold_one_for_one(text)
    return [(m.group().lower().replace("\u2019", "'"), m.start(), m.end())
            for m in _WORD.finditer(folded, start, end)]


def _negated(words: Iterable[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


def _check_words(
    claim_text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence],
    absent: bool,
) -> list[ClaimFinding]:
    claim_words = [w for s, e in spans for w in _words(claim_text, s, e)]
    passage_words = [(ev, w) for ev in evidence for w in _words(ev.text, ev.start, ev.end)]
    said = {w for _, (w, _, _) in passage_words}
    findings = []
    for check, word, opposites in _OPPOSITES:
        hit = next((c for c in claim_words if c[0] == word), None)
        if hit is None or word in said:
            continue
        counterpart = next(((ev, w) for ev, w in passage_words if w[0] in opposites), None)
        if counterpart is None:
            continue
        ev, (_other, start, end) = counterpart
        findings.append(ClaimFinding(
            check, claim_text[hit[1]:hit[2]], hit[1], hit[2],
            f"the sentence says “{claim_text[hit[1]:hit[2]]}”; the passage says "
            f"“{ev.text[start:end]}”",
            passage=ev.text[start:end], source_marker=ev.marker, passage_start=start,
            passage_end=end,
        ))
    negation = next((c for c in claim_words if _negated([c[0]])), None)
    if negation is not None and absent and not _negated(w for _, (w, _, _) in passage_words):
        findings.append(ClaimFinding(
            "negation", claim_text[negation[1]:negation[2]], negation[1], negation[2],
            f"the sentence says “{claim_text[negation[1]:negation[2]]}”; the passage "
            "negates nothing",
        ))
    return findings


def check_claim(
    claim_text: str,
    spans: Sequence[tuple[int, int]],
    evidence: Sequence[Evidence],
    *,
    absent: bool = True,
) -> tuple[ClaimFinding, ...]:
    """What ``claim_text[spans]`` (the sentence's own words: outside quotes
    and markers) says that ``evidence`` contradicts or lacks. Each finding
    names both sides in words. Empty when ``evidence`` is empty: with no
    passage there is nothing to compare.

    ``absent``: whether a number or negation that nothing in the evidence
    says is a finding. True for a paraphrase, whose own words are the claim;
    False beside a quote, where the sentence's other words frame the quote
    ("Smith v Jones [2019] held that "…"") and only a contradiction counts."""
    if not evidence:
        return ()
    findings = _check_numbers(claim_text, spans, evidence, absent) + _check_words(
        claim_text, spans, evidence, absent)
    findings.sort(key=lambda f: f.claim_start)
    return tuple(findings)
