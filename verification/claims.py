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

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from .lexicon import negated_by_prefix
from .normalize import BEFORE_MINUS, fold_one_for_one
from .passage import STOPWORDS, stem

__all__ = ["CHECKS", "ClaimFinding", "Evidence", "SourceFacts", "check_claim", "source_facts"]

Check = Literal["number", "negation", "quantifier", "modal", "comparative", "entity"]
CHECKS: tuple[Check, ...] = ("number", "negation", "quantifier", "modal", "comparative", "entity")


@dataclass(frozen=True, slots=True)
class SourceFacts:
    """What the checks read of a whole source, computed once per source (a
    pool keeps it for the answer): its numbers, the first letters of its
    words, and its words as written in capitals (acronyms)."""

    quantities: tuple[_Quantity, ...]
    prefixes: frozenset[str]
    words: frozenset[str]


def source_facts(text: str) -> SourceFacts:
    folded = fold_one_for_one(text)
    return SourceFacts(
        quantities=tuple(_quantities(text, evidence=True)),
        prefixes=frozenset(w[:_NAME_PREFIX] for w in re.findall(r"[^\W\d_]+", folded)),
        # Acronyms as written, and without their stops ("B.A." is "BA").
        words=frozenset(w.strip(",;:()[]\"'") for word in text.split()
                        for w in (word, word.replace(".", ""))),
    )


@dataclass(frozen=True, slots=True)
class Evidence:
    """One cited source as a sentence's evidence: its original text, the
    passage located in it (``start``/``end``), its marker, and where to get
    its facts: called only when a check needs them (most sentences have no
    number or name to look up), computed from ``text`` when not given."""

    marker: str
    text: str
    start: int
    end: int
    facts: Callable[[], SourceFacts] | None = None

    def read(self) -> SourceFacts:
        return self.facts() if self.facts is not None else source_facts(self.text)


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
    "half": 0.5,
}
#: Left out of claims: "one of the five trades", "once obtained", "a single
#: dose" count nothing; in the evidence they still say their number.
_EVIDENCE_ONLY_WORDS = {"one": 1, "single": 1, "once": 1}
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12,
           "k": 1e3, "m": 1e6, "bn": 1e9, "mn": 1e6}
_NUMBER = re.compile(
    r"(?<![\w])(?<!\d[.,])(?P<currency>[$€£¥])?\s?"
    r"(?P<value>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+,(?:\d{1,2}|\d{4,})(?![\d,])|\d+(?:\.\d+)?|"
    + "|".join(sorted({*_NUMBER_WORDS, *_EVIDENCE_ONLY_WORDS}, key=len, reverse=True))
    + r")(?:st|nd|rd|th)?(?![\w])"
    r"(?:[\s\u00a0-]?(?P<scale>thousand|million|billion|trillion|bn|mn|k|m)\b)?"
    r"(?:\s?(?P<percent>%|percent\b|per\s?cent\b))?"
    r"(?:[\s\u00a0-](?P<unit>[^\W\d_]{2,}(?:/[^\W\d_]+)?))?",
    re.IGNORECASE,
)
#: A decimal comma: one before one, two or four digits or more (three part thousands).
_DECIMAL_COMMA = re.compile(r"\d+,(?:\d{1,2}|\d{4,})")
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
#: Words before a claim's number that say it went down: the passage may
#: write the same change with a minus sign.
_FALLING = frozenset(
    "fell fall falls falling decrease decreased decreases decreasing decline declined declines "
    "reduced reduction reductions drop dropped drops lower lowered down loss lost minus "
    "negative below less".split()
)
#: A capitalised word before a day of the month makes a date, not a label.
_MONTHS = frozenset("jan feb mar apr may jun jul aug sep oct nov dec".split())
#: Words after which a number names a thing rather than counts it.
_LABEL_WORDS = frozenset(
    "type stage phase grade level class section article chapter part schedule item step "
    "category tier version no no. number room route page figure fig fig. table appendix "
    "clause rule title division round game episode season volume vol series model "
    "generation gen unit ward bed floor".split()
)
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
    # Whether nothing in the evidence saying this number is itself a finding:
    # not for a count in words without a unit ("four main minerals": the
    # model counted), a label ("type 2", "Stage 3", "Series 4"), or the tail
    # of a year range ("2018–19").
    checkable: bool = True
    label: bool = False
    # A minus sign before the digits ("−20 °C", "(-0.5)"); and, in a claim,
    # whether the words before the number say which way it went ("fell by
    # 0.5" says the passage's "−0.5").
    negative: bool = False
    falling: bool = False
    # Which side of the number the text means, as written: "≥18", "at least
    # 18", "18 or older" say "at least"; "<18", "under 18", "up to 18" say
    # "at most"; None for the number itself.
    bound: Literal["at least", "at most"] | None = None
    bound_text: str = ""
    # A number written in digit groups parted by spaces ("1 000", "3 200"):
    # the groups as written (the spaces made plain) and where they start, and
    # whether this reading joins them (3200) or reads one group alone (Table
    # 3's 200 patients); see _digit_runs.
    groups: str = ""
    groups_start: int = -1
    joined: bool = False


#: How a bound is written before a number and after it, folded to lower
#: case; longer phrases first ("not more than" before "more than").
_BOUND_BEFORE: tuple[tuple[str, Literal["at least", "at most"]], ...] = (
    ("no less than", "at least"), ("not less than", "at least"),
    ("no fewer than", "at least"), ("not fewer than", "at least"),
    ("no more than", "at most"), ("not more than", "at most"),
    ("not exceeding", "at most"), ("not to exceed", "at most"),
    ("at least", "at least"), ("more than", "at least"), ("greater than", "at least"),
    ("older than", "at least"), ("longer than", "at least"), ("higher than", "at least"),
    ("in excess of", "at least"), ("upwards of", "at least"), ("over", "at least"),
    ("above", "at least"), ("exceeding", "at least"), ("exceeds", "at least"),
    ("minimum of", "at least"), ("minimum", "at least"),
    ("at most", "at most"), ("less than", "at most"), ("fewer than", "at most"),
    ("younger than", "at most"), ("shorter than", "at most"), ("lower than", "at most"),
    ("up to", "at most"), ("under", "at most"), ("below", "at most"),
    ("maximum of", "at most"), ("maximum", "at most"),
)
_BOUND_AFTER: tuple[tuple[str, Literal["at least", "at most"]], ...] = (
    ("or more", "at least"), ("or older", "at least"), ("or over", "at least"),
    ("or above", "at least"), ("or greater", "at least"), ("or higher", "at least"),
    ("or longer", "at least"), ("and over", "at least"), ("and above", "at least"),
    ("and older", "at least"), ("or less", "at most"), ("or fewer", "at most"),
    ("or younger", "at most"), ("or under", "at most"), ("or below", "at most"),
    ("or lower", "at most"), ("or shorter", "at most"),
)
_BOUND_SIGNS: dict[str, Literal["at least", "at most"]] = {
    ">": "at least", "\u2265": "at least", "\u2a7e": "at least", "\u2267": "at least",
    "\u226e": "at least", "<": "at most", "\u2264": "at most", "\u2a7d": "at most",
    "\u2266": "at most", "\u226f": "at most",
}


def _bound(text: str, start: int, end: int) -> tuple[Literal["at least", "at most"] | None, str]:
    """The bound written around the number at ``text[start:end]``, and its
    words or sign as written (see :data:`_BOUND_BEFORE`)."""
    before = text[max(0, start - 24):start]
    sign = before.rstrip(" \u00a0=")
    if sign and sign[-1] in _BOUND_SIGNS:
        return _BOUND_SIGNS[sign[-1]], before[len(sign) - 1:].strip()
    lowered = " ".join(before.lower().split()).rstrip(" ~")
    for phrase, side in _BOUND_BEFORE:
        if lowered.endswith(phrase) and (len(lowered) == len(phrase)
                                         or not lowered[-len(phrase) - 1].isalpha()):
            return side, phrase
    after = " ".join(text[end:end + 16].lower().split())
    if text[end:end + 1] == "+" and not text[end + 1:end + 2].isdigit():
        return "at least", "+"  # "18+", not "10+5"
    for phrase, side in _BOUND_AFTER:
        if after.startswith(phrase) and (len(after) == len(phrase)
                                         or not after[len(phrase)].isalpha()):
            return side, phrase
    return None, ""


#: The spaces that split a number into groups of thousands: French, German
#: and SI style write "1 000 000" and "12 500 €" with a no-break, thin,
#: narrow no-break or figure space; ingestion writes a plain space where a
#: PDF kerns the groups apart (``_digit_groups_spaced`` in
#: reviewer/ingestion/extract.py). One-for-one folding makes all of them " ".
_GROUP_SPACES = " \u00a0\u2009\u202f\u2007"
#: Groups of three digits after a first of one to three, each after one
#: group space: a number in thousands, or two numbers side by side ("Table 3
#: 200 patients"). Not where a digit group, a decimal part or a sign stands
#: beside the run: "+41 22 929 2936" and "(0)1767 627 927" are telephone
#: numbers, "1,000 000" and "1 000,5" another convention.
_DIGIT_RUN = re.compile(
    rf"(?<![\w.,+])(?<!\d[{_GROUP_SPACES}])\d{{1,3}}(?:[{_GROUP_SPACES}]\d{{3}})+"
    rf"(?!\w|[,\-\u2013]\d|[{_GROUP_SPACES}]\d)"
)


def _quantities(text: str, start: int = 0, end: int | None = None, *,
                evidence: bool = False) -> list[_Quantity]:
    """The numbers ``text[start:end]`` says, each with its unit, bound and
    sign; ``evidence`` says whether the text is a source's (which reads
    "one" as a number and a capitalised word before a number as no label).

    A number in space-separated groups is read as :func:`_digit_runs` says:
    joined, and its groups alone too where the spaces may part two numbers.
    """
    end = len(text) if end is None else end
    # Fold the stretch (and the few characters its look-behind reads) only:
    # one-for-one, so offsets hold once shifted back.
    base = max(0, start - 4)
    folded = fold_one_for_one(text[base:end])
    found = [quantity for match in _NUMBER.finditer(folded, start - base)
             if (quantity := _reading(text, folded, base, match, evidence)) is not None]
    if not re.search(r"\d \d", folded):
        return found  # the common case: no digit groups to read (all fold to " ")
    return _digit_runs(text, start, end, folded, base, found, evidence)


def _digit_runs(text: str, start: int, end: int, folded: str, base: int,
                found: list[_Quantity], evidence: bool) -> list[_Quantity]:
    """``found`` (the numbers of ``text[start:end]`` read group by group)
    with each run of digit groups (:data:`_DIGIT_RUN`) read as one number.

    The rule, from which side may read what:

    * A run that only a number in thousands can be is read joined alone: a
      group space other than a plain one (a typesetter's thousands
      separator), or a group after the first that starts with 0 ("1 000",
      "10 000": no count is written "000").
    * Any other run ("1 500", "3 200", spaces plain) may be one number or
      two. Where its first group alone is a label ("Table 3 200
      patients"), it is read group by group, as any other numbers. Else
      the evidence offers both readings: an extra reading of the
      evidence can only make a claim's number supported where the same
      digits stand there. In a claim both readings are kept too, marked
      with the run: :func:`_check_numbers` takes the one its evidence
      supports, and a group read alone is supported only by a number
      written outside a run or by the same group of a run written alike (so
      "1 500" is not held by "1 200 V and 500 V").
    """
    groups_start = {m.start(): m for m in _DIGIT_RUN.finditer(text, start, end)}
    if not groups_start:
        return found
    # The joined reading: the group spaces made commas, which _NUMBER reads
    # as thousands separators; one for one, so offsets and the unit, bound
    # and sign after or before the number read as in the original.
    joined_folded = list(folded)
    for run in groups_start.values():
        for at in range(run.start(), run.end()):
            if text[at] in _GROUP_SPACES:
                joined_folded[at - base] = ","
    joined_text = "".join(joined_folded)
    readings = []
    for at, run in groups_start.items():
        groups = " ".join(run.group().translate({ord(c): " " for c in _GROUP_SPACES}).split())
        spaces = {text[k] for k in range(run.start(), run.end()) if not text[k].isdigit()}
        parts = groups.split()
        alone = spaces == {" "} and not any(part.startswith("0") for part in parts[1:])
        inside = [q for q in found if run.start() <= q.start < run.end()
                  or (q.negative and q.start + 1 == run.start())]
        if alone and inside and inside[0].label:
            continue  # "Table 3 200 patients": a label and a number, not 3200
        # From two characters before: a currency sign may lead ("$10 000").
        match = next((m for m in _NUMBER.finditer(joined_text, max(start - base, at - base - 2))
                      if m.start("value") >= at - base), None)
        quantity = None if match is None or match.start("value") != at - base else _reading(
            text, joined_text, base, match, evidence)
        if quantity is None:
            continue
        readings.append(replace(quantity, groups=groups, groups_start=at, joined=True))
        # The groups alone, marked with their run; dropped where the run can
        # only be one number.
        found = [q for q in found if q not in inside]
        if alone:
            readings.extend(replace(q, groups=groups, groups_start=at) for q in inside)
    return sorted([*found, *readings], key=lambda q: (q.start, not q.joined))


def _reading(text: str, folded: str, base: int, match: re.Match[str],
             evidence: bool) -> _Quantity | None:
    """The quantity ``match`` (of :data:`_NUMBER` in ``folded``, the fold of
    ``text[base:]``) reads; None for a word only the evidence counts."""
    raw = match.group("value").lower()
    if raw in _EVIDENCE_ONLY_WORDS and not evidence:
        return None
    if raw in _NUMBER_WORDS or raw in _EVIDENCE_ONLY_WORDS:
        value = float(_NUMBER_WORDS.get(raw, _EVIDENCE_ONLY_WORDS.get(raw, 0)))
        digits = 3
    else:
        # A comma before one, two or four digits or more is a decimal one
        # ("2,5 mg", as French, German or Italian write 2.5); before three,
        # it parts thousands ("1,500").
        decimal = _DECIMAL_COMMA.fullmatch(raw) is not None
        plain = raw.replace(",", ".") if decimal else raw.replace(",", "")
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
    elif "/" in unit_word:
        unit = unit_word  # "mg/kg": compared only with the same compound unit
    else:
        unit = _UNIT_FORMS.get(unit_word)
    year = (unit is None and value.is_integer() and 1000 <= value <= 2100
            and raw.isdigit() and len(raw) == 4)
    span_end = base + (match.end("percent") if match.group("percent") else
                       match.end("unit") if unit_word in _UNIT_FORMS or "/" in unit_word
                       else
                       match.end("scale") if scale else match.end("value"))
    span_start = base + (match.start("currency") if match.group("currency")
                         else match.start("value"))
    before = text[max(0, span_start - 24):span_start].split()
    # A label word ("Section 3") names a thing wherever it stands; a
    # capitalised word before a number ("Series 4", "Windows 10") only
    # keeps a claim's number from being checked: in the evidence,
    # "Thursday 18 October" still says 18.
    label = bool(before) and not year and unit is None and (
        before[-1].lower().strip("(") in _LABEL_WORDS
        or (not evidence and before[-1][:1].isupper() and before[-1].isalpha()
            and len(before) > 1 and before[-1].lower()[:3] not in _MONTHS))
    at = match.start("value")
    negative = (not match.group("currency") and at > 0 and folded[at - 1] == "-"
                and (at == 1 or folded[at - 2] in BEFORE_MINUS))
    if negative:
        span_start -= 1
    falling = not evidence and bool(_FALLING.intersection(
        w.lower().strip(".,;:()") for w in before[-4:]))
    range_tail = bool(re.search(r"\d{4}[-\u2013/]$", text[max(0, span_start - 5):span_start]))
    word = not raw[0].isdigit()
    checkable = not (label or range_tail or (word and unit is None))
    bound, bound_text = (None, "") if year or label else _bound(text, span_start, span_end)
    return _Quantity(value, unit, span_start, span_end, text[span_start:span_end],
                     digits, year, checkable, label, negative, falling, bound, bound_text)


def _says(claim: _Quantity, other: _Quantity) -> bool:
    """Whether ``other`` says the claim's quantity: its number, and its unit
    where both have one. A label ("Section 3") says no quantity: "vests after
    3 years" is not held by a heading that numbers a section."""
    if other.label or (claim.unit and other.unit and claim.unit != other.unit):
        return False
    if claim.groups and not claim.joined and (other.joined or other.groups not in (
            "", claim.groups)):
        return False  # "1 500" read as 1 and 500 is not held by "1 200 V and 500 V"
    if claim.negative != other.negative and not (other.negative and claim.falling):
        return False  # "20 °C" for "−20 °C"; but "fell by 0.5" says "−0.5"
    return _same_value(claim, other)


def _opposed(claim: _Quantity, other: _Quantity) -> bool:
    """Whether the two bound the same number from opposite sides: "under
    18" against "≥18"."""
    return claim.bound is not None and other.bound is not None and claim.bound != other.bound


def _bounded(quantity: _Quantity) -> str:
    """The quantity with its bound where it was written: "≥18 years",
    "under 18 years", "$500 or more"."""
    if quantity.bound_text[:1] in ("o", "a", "+") and quantity.bound_text not in (
            "over", "above", "at least", "at most"):
        return f"{quantity.text} {quantity.bound_text}".replace(" +", "+")
    if quantity.bound_text in _BOUND_SIGNS:
        return f"{quantity.bound_text}{quantity.text}"
    return f"{quantity.bound_text} {quantity.text}"


#: Words that turn a bound round: "under 18 are excluded" says what "≥18
#: are eligible" says.
_TURNING = frozenset(
    "exclude excluded excludes excluding exclusion ineligible except unless barred "
    "prohibited".split())


def _turned(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` (a sentence or a passage's statement) says
    a negation or an exclusion that may turn a bound round."""
    words = [w for w, _, _ in _words(text, start, end)]
    return _negated(words) or any(w in _TURNING for w in words)


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
    absent: bool, statements: Callable[[], list[tuple[Evidence, int, int]]],
) -> list[ClaimFinding]:
    claimed = [q for s, e in spans for q in _quantities(claim_text, s, e)]
    if not claimed:
        return []
    whole = [(ev, q) for ev in evidence for q in ev.read().quantities]
    findings: list[ClaimFinding] = []
    runs: dict[int, list[_Quantity]] = {}
    for quantity in claimed:
        if quantity.groups:
            runs.setdefault(quantity.groups_start, []).append(quantity)
        else:
            findings += _number_findings(quantity, whole, claim_text, spans, evidence, absent,
                                         statements)
    for readings in runs.values():
        # Digit groups parted by spaces (see _digit_runs): the sentence says
        # what either reading says, the number joined ("1 000 V") or its
        # groups alone ("Table 3 200 patients"). Where neither is held, the
        # findings are those of the groups alone if the first group draws
        # none (a label, or a number the evidence says: "visit 2, 150 mg"
        # for "visit 2 200 mg"), else the joined number's ("1 500 V").
        joined = [f for q in readings if q.joined for f in _number_findings(
            q, whole, claim_text, spans, evidence, absent, statements)]
        alone = [q for q in readings if not q.joined]
        if not joined or not alone:
            findings += joined
            continue
        apart = [_number_findings(q, whole, claim_text, spans, evidence, absent, statements)
                 for q in alone]
        if any(apart):
            findings += joined if apart[0] else [f for part in apart for f in part]
    return findings


def _number_findings(
    quantity: _Quantity, whole: Sequence[tuple[Evidence, _Quantity]], claim_text: str,
    spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence], absent: bool,
    statements: Callable[[], list[tuple[Evidence, int, int]]],
) -> list[ClaimFinding]:
    """What the evidence (its numbers: ``whole``) says against one number
    of the sentence: the same number bounded from the other side, a
    counterpart of the same unit that differs, or (``absent``) nothing."""
    # A bare number says a quantity with a unit only inside the passage
    # (a table cell beside its heading); elsewhere "3" may count anything.
    saying = [(ev, q) for ev, q in whole if _says(quantity, q) and (
        q.unit or not quantity.unit or ev.start <= q.start < ev.end)]
    if any(not _opposed(quantity, q) for _, q in saying):
        return []
    if saying:
        # The number is there, bounded from the other side ("under 18"
        # against "≥18"), unless a negation or an exclusion on either
        # side may turn it round.
        ev, q = next(((ev, q) for ev, q in saying if ev.start <= q.start < ev.end),
                     saying[0])
        lo, hi = next(((a, b) for a, b in _sentences(ev.text, 0, len(ev.text))
                       if a <= q.start < b), (q.start, q.end))
        if (_turned(claim_text, *spans[0]) or any(
                _turned(claim_text, a, b) for a, b in spans[1:])
                or _turned(ev.text, lo, hi)):
            return []
        return [ClaimFinding(
            "number", quantity.text, quantity.start, quantity.end,
            f"the sentence says {_bounded(quantity)}; the passage says {_bounded(q)}",
            passage=q.text, source_marker=ev.marker, passage_start=q.start,
            passage_end=q.end,
        )]
    counterpart = None
    if quantity.unit in _COMPARABLE_UNITS:
        in_passages = [(ev, q) for ev, q in whole if q.unit == quantity.unit and any(
            other is ev and lo <= q.start < hi for other, lo, hi in statements())]
        if in_passages:
            counterpart = in_passages[0]
    if counterpart is not None:
        ev, q = counterpart
        return [ClaimFinding(
            "number", quantity.text, quantity.start, quantity.end,
            f"the sentence says {quantity.text}; the passage says {q.text}",
            passage=q.text, source_marker=ev.marker, passage_start=q.start,
            passage_end=q.end,
        )]
    if absent and quantity.checkable:
        return [ClaimFinding(
            "number", quantity.text, quantity.start, quantity.end,
            f"the sentence says {quantity.text}; the cited "
            f"{'source says' if len(evidence) == 1 else 'sources say'} no such number",
        )]
    return []


# -- words -----------------------------------------------------------------

_WORD = re.compile(r"[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
_NEGATIONS = frozenset(
    "not no never none nobody nothing neither nor without cannot can't won't don't doesn't "
    "didn't isn't aren't wasn't weren't hasn't haven't hadn't shouldn't wouldn't couldn't "
    "mustn't fail fails failed".split()
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
    # how often: "twice daily" is not "once daily", "weekly" not "daily"
    ("number", "once", ("twice", "thrice")),
    ("number", "twice", ("once", "thrice")),
    ("number", "thrice", ("once", "twice")),
    ("number", "hourly", ("daily", "weekly", "monthly")),
    ("number", "daily", ("weekly", "monthly", "hourly", "yearly", "annually")),
    ("number", "weekly", ("daily", "monthly", "yearly", "annually")),
    ("number", "monthly", ("daily", "weekly", "yearly", "annually", "quarterly")),
    ("number", "quarterly", ("monthly", "yearly", "annually")),
    ("number", "yearly", ("monthly", "weekly", "quarterly")),
    ("number", "annually", ("monthly", "weekly", "quarterly")),
    # which side: a wrong-site injection, a wrong-eye drop
    ("comparative", "left", ("right",)),
    ("comparative", "right", ("left",)),
    ("comparative", "upper", ("lower",)),
    ("comparative", "ipsilateral", ("contralateral",)),
    ("comparative", "contralateral", ("ipsilateral",)),
    # which party: the one who pays, sues or insures
    ("entity", "tenant", ("landlord", "lessor")),
    ("entity", "landlord", ("tenant", "lessee")),
    ("entity", "lessor", ("lessee", "tenant")),
    ("entity", "lessee", ("lessor", "landlord")),
    ("entity", "employer", ("employee",)),
    ("entity", "employee", ("employer",)),
    ("entity", "plaintiff", ("defendant",)),
    ("entity", "defendant", ("plaintiff",)),
    ("entity", "appellant", ("respondent", "appellee")),
    ("entity", "respondent", ("appellant", "petitioner")),
    ("entity", "appellee", ("appellant",)),
    ("entity", "petitioner", ("respondent",)),
    ("entity", "buyer", ("seller", "vendor")),
    ("entity", "seller", ("buyer", "purchaser")),
    ("entity", "purchaser", ("seller", "vendor")),
    ("entity", "vendor", ("buyer", "purchaser")),
    ("entity", "licensor", ("licensee",)),
    ("entity", "licensee", ("licensor",)),
    ("entity", "lender", ("borrower",)),
    ("entity", "borrower", ("lender",)),
    ("entity", "creditor", ("debtor",)),
    ("entity", "debtor", ("creditor",)),
    # which people: sex-specific doses and findings
    ("entity", "men", ("women",)),
    ("entity", "women", ("men",)),
    ("entity", "male", ("female",)),
    ("entity", "female", ("male",)),
    ("entity", "males", ("females",)),
    ("entity", "females", ("males",)),
    ("entity", "boys", ("girls",)),
    ("entity", "girls", ("boys",)),
)


_OPPOSITE_WORDS = frozenset(word for _, word, _ in _OPPOSITES)


#: Words that name a side only before what they qualify ("right arm"): "the
#: right to refuse" and "left the clinic" say no side.
_SIDES = frozenset(("left", "right"))


def _names_a_side(words: Sequence[tuple[str, int, int]], index: int) -> bool:
    """Whether ``words[index]`` (left or right) qualifies the word after it."""
    return index + 1 < len(words) and words[index + 1][0] not in STOPWORDS


def _words(text: str, start: int, end: int) -> list[tuple[str, int, int]]:
    folded = fold_one_for_one(text[start:end])
    return [(m.group().lower().replace("\u2019", "'"), start + m.start(), start + m.end())
            for m in _WORD.finditer(folded)]


def _negated(words: Iterable[str]) -> bool:
    return any(w in _NEGATIONS or w.endswith("n't") for w in words)


def _check_words(
    claim_text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence],
    absent: bool, statements: Callable[[], list[tuple[Evidence, int, int]]],
) -> list[ClaimFinding]:
    claim_words = [w for s, e in spans for w in _words(claim_text, s, e)]
    if not absent and not any(c[0] in _OPPOSITE_WORDS for c in claim_words):
        return []  # beside a quote only a contradiction counts, and none can
    passage_words = [(ev, w) for ev in evidence for w in _words(ev.text, ev.start, ev.end)]
    said = {w for _, (w, _, _) in passage_words}
    # An opposite counts only in a statement of the passage that says most of
    # what the sentence says: elsewhere "after" and "before" are about
    # different things.
    passage_words = [(ev, w) for ev, w in passage_words
                     if any(other is ev and lo <= w[1] < hi for other, lo, hi in statements())]
    findings = []
    for check, word, opposites in _OPPOSITES:
        hit = next((c for i, c in enumerate(claim_words) if c[0] == word
                    and (word not in _SIDES or _names_a_side(claim_words, i))), None)
        if hit is None or word in said:
            continue
        counterpart = next(((ev, w) for i, (ev, w) in enumerate(passage_words)
                            if w[0] in opposites and (w[0] not in _SIDES or _names_a_side(
                                [pw for _, pw in passage_words], i))), None)
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
    if absent:
        # Beside a quote, a negation is the quote's to keep (containment checks
        # it); the sentence's other words frame it.
        findings.extend(_check_negation(claim_text, claim_words, statements())
                        or _check_prefix_negation(claim_text, claim_words, statements()))
    return findings


#: Adverbs that may stand between a negation and the word it negates.
_NEGATION_ADVERBS = frozenset(
    "necessarily always yet ever even currently generally usually often fully to".split())
#: Share of the claim's content words the passage's sentence must hold before
#: a negation one side says and the other does not is read as the same
#: statement negated: below it, the two say different things about the word.
_SAME_STATEMENT = 0.5
#: A statement longer than this many times the claim (plus ten words) is a
#: run-on stretch, not one statement.
_STATEMENT_SPREAD = 3


def _negated_keys(words: Sequence[tuple[str, int, int]]) -> dict[str, tuple[int, int]]:
    """The key of each word a negation negates (the first content word after
    it, past an adverb: "not necessarily promoted"), with where the negation
    starts and the negated word ends."""
    scoped: dict[str, tuple[int, int]] = {}
    for index, (word, start, _) in enumerate(words):
        if not _negated([word]):
            continue
        for other, _, end in words[index + 1:index + 3]:
            if other in _NEGATION_ADVERBS:
                continue
            if other not in STOPWORDS and not _negated([other]) and other != "one's":
                scoped.setdefault(stem(other), (start, end))
            break
    return scoped


def _sentences(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """``text[lo:hi]`` cut at full stops, colons and line breaks: a passage's
    statements, coarsely (a table's cells run together otherwise)."""
    # A stop glued to a capital ("…the child.Heart rate:") ends one too: web
    # and table text run their cells together. A decimal point does not.
    cuts = [lo, *(lo + m.end() for m in re.finditer(r"[.!?;:](?=\s|[A-Z])\s?|\n",
                                                     text[lo:hi])), hi]
    return [(a, b) for a, b in itertools.pairwise(cuts) if b > a]


def _same_statements(
    claim_text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence]
) -> list[tuple[Evidence, int, int]]:
    """The statements of the passages (see :func:`_sentences`) that hold at
    least :data:`_SAME_STATEMENT` of the claim's content words."""
    claim_words = [w for s, e in spans for w, _, _ in _words(claim_text, s, e)]
    claim_keys = {stem(w) for w in claim_words if w not in STOPWORDS and len(w) > 2}
    found = []
    for ev in evidence:
        for lo, hi in _sentences(ev.text, ev.start, ev.end):
            words = _words(ev.text, lo, hi)
            # A run-on stretch (a table, a page's navigation) holds many
            # sentences' words: it says no one statement.
            if len(words) > _STATEMENT_SPREAD * len(claim_words) + 10:
                continue
            keys = {stem(w) for w, _, _ in words}
            if claim_keys and len(claim_keys & keys) >= _SAME_STATEMENT * len(claim_keys):
                found.append((ev, lo, hi))
    return found


def _check_negation(
    claim_text: str, claim_words: Sequence[tuple[str, int, int]],
    statements: Sequence[tuple[Evidence, int, int]],
) -> list[ClaimFinding]:
    """The same statement negated on one side and not on the other: the
    passage's sentence holds most of the claim's content words and says the
    word the claim negates without a negation ("does not require fasting"
    against "fasting is required"), or negates a word the claim says plainly
    ("never exceed 4 g" against "exceed 4 g"). A negation the passage merely
    does not repeat is no finding."""
    findings: list[ClaimFinding] = []
    claim_keys = {stem(w) for w, _, _ in claim_words if w not in STOPWORDS and len(w) > 2}
    if not claim_keys:
        return findings
    claim_negated = _negated_keys(claim_words)
    claim_says_negation = _negated(w for w, _, _ in claim_words)
    for ev, lo, hi in statements:
        words = _words(ev.text, lo, hi)
        keys = {stem(w) for w, _, _ in words}
        passage_says_negation = _negated(w for w, _, _ in words)
        for key, (cue_start, cue_end) in claim_negated.items():
            if passage_says_negation or key not in keys:
                continue
            start, end = next((s, e) for w, s, e in words if stem(w) == key)
            findings.append(ClaimFinding(
                "negation", claim_text[cue_start:cue_end], cue_start, cue_end,
                f"the sentence says “{claim_text[cue_start:cue_end]}”; the passage says "
                f"“{ev.text[start:end]}” without a negation",
                passage=ev.text[start:end], source_marker=ev.marker, passage_start=start,
                passage_end=end))
            return findings
        if claim_says_negation:
            continue
        # The passage's negation of a predicate ("not required", "never
        # exceed"); "no heart rate", "without breast cancer" name a case.
        predicates = [w for w in words if w[0] not in ("no", "without", "none", "nothing")]
        for key, (cue_start, cue_end) in _negated_keys(predicates).items():
            if key not in claim_keys:
                continue
            start, end = next((s, e) for w, s, e in claim_words if stem(w) == key)
            findings.append(ClaimFinding(
                "negation", claim_text[start:end], start, end,
                f"the passage says “{ev.text[cue_start:cue_end]}”; the sentence says "
                f"“{claim_text[start:end]}” without the negation",
                passage=ev.text[cue_start:cue_end], source_marker=ev.marker,
                passage_start=cue_start, passage_end=cue_end))
            return findings
    return findings


def _check_prefix_negation(
    claim_text: str, claim_words: Sequence[tuple[str, int, int]],
    statements: Sequence[tuple[Evidence, int, int]],
) -> list[ClaimFinding]:
    """A word negated by its prefix on one side only, in the passage's
    statement that says most of what the sentence says: "indicated in
    pregnancy" against "contraindicated in pregnancy", "asymptomatic
    contacts" against "symptomatic contacts". Not where that side also says
    the word as the other side does, nor where the plain word is negated by
    a word ("ineligible" for "not eligible")."""
    said = {w for w, _, _ in claim_words}
    claim_negated = _negated_keys(claim_words)
    for ev, lo, hi in statements:
        words = _words(ev.text, lo, hi)
        passage_said = {w for w, _, _ in words}
        passage_negated = _negated_keys(words)
        for word, start, end in claim_words:
            if len(word) < 3 or word in STOPWORDS or word in passage_said:
                continue
            other = next(((w, s, e) for w, s, e in words if w not in said and (
                (negated_by_prefix(word, w, aligned=False) and stem(word) not in claim_negated)
                or (negated_by_prefix(w, word, aligned=False)
                    and stem(w) not in passage_negated))), None)
            if other is None:
                continue
            _, found_start, found_end = other
            return [ClaimFinding(
                "negation", claim_text[start:end], start, end,
                f"the sentence says “{claim_text[start:end]}”; the passage says "
                f"“{ev.text[found_start:found_end]}”",
                passage=ev.text[found_start:found_end], source_marker=ev.marker,
                passage_start=found_start, passage_end=found_end)]
    return []


# -- names -----------------------------------------------------------------

_NAME_WORD = re.compile(
    r"(?<![\w\-\u2010])[A-Z][\w'\u2019-]*[a-z][\w'\u2019-]*|[A-Z]{2,}[a-z]?s?\b")
#: Capitalised words that are not names: calendar words and sentence openers.
_NOT_NAMES = frozenset(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday i however additionally also "
    "furthermore moreover overall generally according although though because since while "
    "whereas unless despite therefore thus hence meanwhile instead rather finally first "
    "second third lastly today".split()
)


#: Letters two forms of a name share: "Libya"/"Libyan", "Kennedy"/"Kennedys".
_NAME_PREFIX = 5


def _names(text: str, spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Runs of capitalised words in ``text[spans]`` that are not the first
    word of a sentence or clause: names ("Warfarin", "Doctor's Cave Beach")."""
    names: list[tuple[int, int]] = []
    for lo, hi in spans:
        for match in _NAME_WORD.finditer(text, lo, hi):
            before = text[max(0, match.start() - 3):match.start()].rstrip()
            word = match.group().lower().rstrip("s'\u2019")
            # A stop after a capital ends an abbreviation ("U.S. Food"), not a sentence.
            opens = bool(before) and (before[-1] in "!?:;\"\u201c(\n" or (
                before[-1] == "." and not before[-2:-1].isupper()))
            if (not before or opens or word in STOPWORDS
                    or word in _NOT_NAMES or match.group().lower() in _NOT_NAMES):
                continue
            if names and text[names[-1][1]:match.start()] in (" ", " of ", " and ", " de ",
                                                               " van "):
                names[-1] = (names[-1][0], match.end())
            else:
                names.append((match.start(), match.end()))
    return names


def _check_names(
    claim_text: str, spans: Sequence[tuple[int, int]], evidence: Sequence[Evidence]
) -> list[ClaimFinding]:
    """A name of two or more words the sentence uses that no cited source
    mentions in any form: none of its words (by their first five letters)
    appears there, nor its initials as an acronym. A name the passage lacks
    but the source has elsewhere is the passage's business, not a finding."""
    names = _names(claim_text, spans)
    if not names:
        return []
    facts = [ev.read() for ev in evidence]
    prefixes = frozenset().union(*(f.prefixes for f in facts))
    acronyms = frozenset().union(*(f.words for f in facts))
    findings = []
    for start, end in names:
        name = claim_text[start:end]
        words = [w for w in re.findall(r"[^\W\d_]+", fold_one_for_one(name).lower())
                 if w not in STOPWORDS]
        # Words of the name as written, acronyms apart ("Full HD" is one word
        # and an acronym; "Usage-Based" one word).
        spelled = [w for w in name.split() if w.lower() not in STOPWORDS and not w.isupper()
                   and any(c.islower() for c in w[1:])]
        if len(spelled) < 2 or any(w[:_NAME_PREFIX] in prefixes for w in words):
            # A one-word name ("Lewis", "AI", "English") is too often one the
            # source makes otherwise (a pronoun, a nickname, the question's
            # subject, a spelled-out acronym): on ExpertQA's Complete claims
            # flagging them raised false alarms from 4.3% to 8.2%.
            continue
        if "".join(w[0] for w in words).upper() in acronyms:
            continue  # "Drug Administration" where the source says "FDA"
        source = "source mentions" if len(evidence) == 1 else "sources mention"
        findings.append(ClaimFinding(
            "entity", name, start, end,
            f"the sentence names {name}; the cited {source} no such name"))
    return findings


def check_claim(
    claim_text: str,
    spans: Sequence[tuple[int, int]],
    evidence: Sequence[Evidence],
    *,
    absent: bool = True,
    checks: Iterable[str] = CHECKS,
) -> tuple[ClaimFinding, ...]:
    """What ``claim_text[spans]`` (the sentence's own words: outside quotes
    and markers) says that ``evidence`` contradicts or lacks. Each finding
    names both sides in words. Empty when ``evidence`` is empty: with no
    passage there is nothing to compare.

    ``absent``: whether a number or name that nothing in the evidence says
    is a finding. True for a paraphrase, whose own words are the claim;
    False beside a quote, where the sentence's other words frame the quote
    ("Smith v Jones [2019] held that "…"") and only a contradiction counts.
    ``checks``: which of :data:`CHECKS` run (all by default)."""
    wanted = frozenset(checks)
    if unknown := wanted - set(CHECKS):
        raise ValueError(f"unknown claim checks {sorted(unknown)}; the checks are "
                         f"{', '.join(CHECKS)}")
    if not evidence:
        return ()
    # The passage statements that say most of the sentence: read by the
    # number, word and negation checks alike, found once and only if asked.
    statements = functools.cache(lambda: _same_statements(claim_text, spans, evidence))
    findings: list[ClaimFinding] = []
    if "number" in wanted:
        findings += _check_numbers(claim_text, spans, evidence, absent, statements)
    if wanted & {"negation", "quantifier", "modal", "comparative"}:
        findings += [f for f in _check_words(claim_text, spans, evidence, absent, statements)
                     if f.check in wanted]
    if absent and "entity" in wanted:
        findings += _check_names(claim_text, spans, evidence)
    findings.sort(key=lambda f: f.claim_start)
    return tuple(findings)
