"""Sentence splitting with offsets, tuned for model answers.

Rules, in order:

* A line break ends a sentence (list items, headings and paragraphs are lines).
* ``.``, ``!``, ``?`` and ``…`` end a sentence when followed by whitespace and
  then something that can start one (a capital, a digit, a quote or bracket,
  a bullet, an emoji) — not after a known abbreviation (``e.g.``, ``Dr.``, ``U.S.`` before
  a lower-case word), a single initial (``J. Smith``), or a list number at the
  start of a line (``1. Eligibility``). Decimals (``2.5``) never qualify.
* Markers after the full stop (``… two years. [S1]``) belong to the sentence
  they follow.
* Nothing inside a protected range (a quoted span) ever ends a sentence, so a
  quote of several sentences stays whole.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import accumulate

from .markers import MarkerGroup

__all__ = ["ABBREVIATIONS", "SentenceSpan", "split_sentences"]

#: Lower-cased abbreviations (without their final full stop) that do not end a
#: sentence when followed by a space.
ABBREVIATIONS = frozenset(
    """
    e.g i.e cf vs etc al approx ca dr mr mrs ms prof sr jr st no nos fig figs eq eqs
    sec secs art arts para paras ch chap vol vols pp p ed eds inc ltd co corp dept
    est jan feb mar apr jun jul aug sep sept oct nov dec mt ft gen gov sen rep u.s
    u.k u.n e.u a.m p.m ph.d m.d b.a m.a viz resp incl excl min max avg approx n.b
    """.split()
)
#: Abbreviations that are practically never the last word of a sentence, even
#: before a capital or a number ("e.g. Section 4.2", "Fig. 3", "No. 12").
_NEVER_FINAL = frozenset(
    "e.g i.e cf vs viz fig figs eq eqs sec secs art arts para paras ch chap vol vols pp "
    "approx ca incl excl nos".split()
)
_TITLES = frozenset("dr mr mrs ms prof sr jr st gen gov sen rep mt".split())

_TERMINAL = re.compile(r"[.!?\u2026]+[\"'\u201d\u2019)\]]*(?=\s|$)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_LIST_NUMBER = re.compile(r"[ \t]*(?:\d{1,3}|[A-Za-z])")


@dataclass(frozen=True, slots=True)
class SentenceSpan:
    """``start``/``end`` index the answer; leading and trailing space excluded."""

    start: int
    end: int
    text: str


class _Ranges:
    """Open ranges ``(start, end)``, asked whether a position is strictly inside
    one: ranges sorted by start, with the largest end among each prefix, so a
    question is a bisection instead of a pass over every range."""

    __slots__ = ("ends", "starts")

    def __init__(self, ranges: Sequence[tuple[int, int]]) -> None:
        ordered = sorted(ranges)
        self.starts = [start for start, _ in ordered]
        self.ends = list(accumulate((end for _, end in ordered), max))

    def inside(self, position: int) -> bool:
        before = bisect_left(self.starts, position)  # the ranges with start < position
        return before > 0 and self.ends[before - 1] > position


def _ends_sentence(text: str, stop: re.Match[str], resume: int) -> bool:
    """Whether ``stop`` ends a sentence; the next one would begin at ``resume``."""
    punctuation = stop.group(0)
    # The first character after spaces and stray punctuation: all that is
    # read of text[resume:].lstrip(" \t.,;"), which would copy the rest.
    at = resume
    while at < len(text) and text[at] in " \t.,;":
        at += 1
    following = text[at : at + 1]
    if following[:1] in ("", "\n", "\r"):
        return True
    # An emoji after a stop opens the next sentence as a capital would
    # ("… two years. 🎉 Loans …"); a symbol is never a lower-case word.
    capital = following[0].isupper() or unicodedata.category(following[0]) == "So"
    if not (capital or following[0].isdigit()
            or following[0] in "\"'\u201c\u2018([*-\u2022<"):
        return False  # "… e.g. the plan", "… 3 p.m. local time"
    if not punctuation.startswith(".") or punctuation.startswith(".."):
        return True
    line_start = text.rfind("\n", 0, stop.start()) + 1
    if _LIST_NUMBER.fullmatch(text, line_start, stop.start()):
        return False  # "1. Eligibility" or "a. Scope" at the start of a line
    word = _WORD_BEFORE.search(text[max(line_start, stop.start() - 40) : stop.start()])
    if word is None:
        return True
    token = word.group(1).lower()
    if len(token) == 1 and token.isalpha() and word.group(1).isupper():
        return False  # an initial: "J. Smith"
    if token in _TITLES or token in _NEVER_FINAL:
        return False  # "Dr. Smith", "e.g. Section 4"
    if token == "no" and following[0].isdigit():
        return False  # "No. 12"
    return not (token in ABBREVIATIONS and not capital)


def split_sentences(
    text: str,
    *,
    protected: Sequence[tuple[int, int]] = (),
    markers: Sequence[MarkerGroup] = (),
) -> tuple[SentenceSpan, ...]:
    """Split ``text`` into sentences. ``protected`` ranges are never cut;
    ``markers`` just after a sentence end are pulled into that sentence."""
    boundaries: list[int] = []
    marker_starts = {m.start: m.end for m in markers}
    quoted = _Ranges(protected)

    for stop in _TERMINAL.finditer(text):
        if quoted.inside(stop.end()):
            continue  # inside a quote; a stop that closes the quote is fine
        end = stop.end()
        # "… two years. [S1] [S2]" (and a stray full stop after them)
        probe = end
        while True:
            while probe < len(text) and text[probe] in " \t":
                probe += 1
            if probe in marker_starts:
                probe = marker_starts[probe]
                end = probe
                continue
            break
        if end < len(text) and text[end] in ".,;" and end > stop.end():
            end += 1
        if _ends_sentence(text, stop, end):
            boundaries.append(end)

    index = text.find("\n")  # str.find, not a loop over every character
    while index >= 0:
        if not quoted.inside(index):
            boundaries.append(index)
        index = text.find("\n", index + 1)

    spans: list[SentenceSpan] = []
    previous = 0
    for boundary in [*sorted(set(boundaries)), len(text)]:
        if boundary <= previous:
            continue
        start, end = previous, boundary
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        if start < end:
            spans.append(SentenceSpan(start, end, text[start:end]))
        previous = boundary
    return tuple(spans)
