"""Word diffs for people: what a quote changed in a source passage, with
what normalisation accounted for left out and named once.

:func:`compare` (in :mod:`.matching`) decides whether a difference matters;
this module shows one. It tokenises both sides the same way, on their
*normalised* text, so that line-break hyphenation (``ser-\\nvice``), runs of
whitespace, ligatures, smart quotes and case never appear as word changes,
and it leaves out the repairs :func:`compare` names (``spacing``,
``footnote-marker``, ``list-number``) the same way. The runs carry *original* text (the
quote's words where both sides agree, the source's where only it has them),
with page furniture left out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from rapidfuzz.distance import Levenshtein

from .matching import (
    _TOKEN,
    Difference,
    _edit_runs,
    _footnote_markers,
    _list_numbers,
    _markers_then_list_number,
    _respaced,
    _superscript_markers,
)
from .normalize import explain, merge_ranges, normalize

__all__ = ["DiffRun", "NegationContext", "WordDiff", "negation_context", "word_diff"]

DiffOp = Literal["equal", "delete", "insert"]


@dataclass(frozen=True, slots=True)
class DiffRun:
    """A run of words: in both (``equal``), the source only (``delete``) or the
    quote only (``insert``)."""

    op: DiffOp
    text: str


@dataclass(frozen=True, slots=True)
class WordDiff:
    """``runs`` in reading order; ``normalised`` names, once each, what was
    folded or repaired and so is not shown as a difference (the names of
    :func:`~verification.normalize.explain` and of ``Difference.repair``)."""

    runs: tuple[DiffRun, ...]
    normalised: tuple[str, ...]

    @property
    def changed(self) -> bool:
        return any(run.op != "equal" for run in self.runs)


def word_diff(quote: str, source: str, *, skip: Sequence[tuple[int, int]] = ()) -> WordDiff:
    """The word differences from ``source`` (a passage of original source
    text; ``skip`` its page furniture, as ranges of it) to ``quote``.

    >>> d = word_diff("Employer match vests after five years",
    ...               "Employer  match vests af-\\nter two years")
    >>> [(r.op, r.text) for r in d.runs]  # doctest: +NORMALIZE_WHITESPACE
    [('equal', 'Employer match vests after'), ('delete', 'two'), ('insert', 'five'),
     ('equal', 'years')]
    >>> d.normalised
    ('line-break-hyphenation', 'whitespace')
    """
    q, s = normalize(quote), normalize(source, skip=skip)
    skipped = merge_ranges(skip, len(source))
    q_tokens, s_tokens = list(_TOKEN.finditer(q.text)), list(_TOKEN.finditer(s.text))
    q_words, s_words = [m.group() for m in q_tokens], [m.group() for m in s_tokens]
    s_starts = [m.start() for m in s_tokens]

    def quote_text(first: int, last: int) -> str:
        if first >= last:
            return ""
        o0, o1 = q.to_original(q_tokens[first].start(), q_tokens[last - 1].end())
        return " ".join(quote[o0:o1].split())

    def source_span(first: int, last: int) -> tuple[int, int]:
        return s.to_original(s_tokens[first].start(), s_tokens[last - 1].end())

    def source_text(first: int, last: int) -> str:
        if first >= last:
            return ""
        o0, o1 = source_span(first, last)
        return " ".join(_without(source, o0, o1, skipped).split())

    runs: list[DiffRun] = []
    normalised: list[str] = []

    def emit(op: DiffOp, text: str) -> None:
        if not text:
            return
        if runs and runs[-1].op == op:
            runs[-1] = DiffRun(op, f"{runs[-1].text} {text}")
        else:
            runs.append(DiffRun(op, text))

    ops = list(Levenshtein.opcodes(s_words, q_words))
    spans = _edit_runs(ops)
    done: tuple[int, int, int, int] | None = None
    for op, run in zip(ops, spans, strict=True):
        if op.tag == "equal":
            shown = quote_text(op.dest_start, op.dest_end)
            emit("equal", shown)
            o0, o1 = source_span(op.src_start, op.src_end)
            normalised += _folds(shown, _without(source, o0, o1, skipped))
            continue
        if run == done:
            continue
        s_span = (s.text[s_tokens[run[0]].start():s_tokens[run[1] - 1].end()]
                  if run[1] > run[0] else "")
        q_span = (q.text[q_tokens[run[2]].start():q_tokens[run[3] - 1].end()]
                  if run[3] > run[2] else "")
        if s_span and q_span and _respaced(s_span, q_span):
            # Only where spaces fall differs: an extraction repair.
            emit("equal", quote_text(run[2], run[3]))
            normalised.append("spacing")
            done = run
            continue
        if s_span and _superscript_markers(
            s, s_tokens[run[0]].start(), s_tokens[run[1] - 1].end(), q_span
        ):
            # "1976" or "1976 3" for "1976³", "TriviaQA" for "TriviaQA⁶", as
            # compare() repairs it.
            emit("equal", quote_text(run[2], run[3]))
            normalised.append("footnote-marker")
            done = run
            continue
        added = q_words[op.dest_start:op.dest_end]
        if _footnote_markers(s, s_words, s_starts, op, added):
            emit("equal", quote_text(op.dest_start, op.dest_end))
            normalised.append("footnote-marker")
            continue
        if _list_numbers(s, s_words, s_starts, op):
            normalised.append("list-number")
            continue
        if _markers_then_list_number(s, s_words, s_starts, op) is not None:
            normalised += ["footnote-marker", "list-number"]
            continue
        emit("delete", source_text(op.src_start, op.src_end))
        emit("insert", quote_text(op.dest_start, op.dest_end))
    if any(s < e for s, e in skipped) and s_tokens:
        first, last = source_span(0, len(s_tokens))
        if any(s < last and e > first for s, e in skipped):
            normalised.append("page-furniture")
    return WordDiff(tuple(runs), tuple(dict.fromkeys(normalised)))


def _without(text: str, start: int, end: int, skipped: list[tuple[int, int]]) -> str:
    """``text[start:end]`` with the ``skipped`` ranges taken out (as a space)."""
    parts, position = [], start
    for s, e in skipped:
        if e <= position or s >= end:
            continue
        parts.append(text[position:max(s, position)])
        parts.append(" ")
        position = min(e, end)
    parts.append(text[position:end])
    return "".join(parts)


def _folds(quote: str, source: str) -> list[str]:
    """The folds that made ``quote`` and ``source`` (equal once normalised)
    compare equal: those :func:`explain` finds on either side, when the two
    differ at all; case only when the capitals differ."""
    if quote == source:
        return []
    names = [*explain(source), *explain(quote)]
    if "case" in names and [c for c in quote if c.isupper()] == [c for c in source if c.isupper()]:
        names = [n for n in names if n != "case"]
    return names


@dataclass(frozen=True, slots=True)
class NegationContext:
    """A negation just outside a quoted passage, in the source's own words:
    ``lead`` + **``words``** come before the passage (``side`` "before"), or
    **``words``** come right after it (``side`` "after")."""

    side: Literal["before", "after"]
    lead: str
    words: str


#: Characters of source text read on each side for a negation's words.
_CONTEXT_READ = 120
#: Characters of the clause kept before the negation ("Do " of "Do not").
_LEAD = 40
_CLAUSE_STOP = re.compile(r"[.;:!?\n\r]")


def negation_context(source: str, start: int, end: int, difference: Difference
                     ) -> NegationContext | None:
    """Where ``difference`` (an ``omit-before`` or ``omit-after`` from the
    report) stands in ``source`` around the passage ``source[start:end]``:
    the source's own words, so a reviewer reads "Do **not** start treatment"
    rather than an op name."""
    words = difference.source
    if difference.op == "omit-before":
        a = max(0, start - _CONTEXT_READ)
        region = normalize(source[a:start])
        text = region.text.rstrip()
        if not words or not text.endswith(words):
            return None
        o0, o1 = region.to_original(len(text) - len(words), len(text))
        lead_start = max(0, o0 - _LEAD)
        lead = source[a + lead_start:a + o0]
        stops = list(_CLAUSE_STOP.finditer(lead))
        if stops:
            lead = lead[stops[-1].end():]
        elif lead_start > 0:
            lead = "…" + lead.split(" ", 1)[-1] if " " in lead else "…" + lead
        return NegationContext("before", " ".join(lead.split()) + (" " if lead.strip() else ""),
                               " ".join(source[a + o0:a + o1].split()))
    if difference.op == "omit-after":
        region = normalize(source[end:end + _CONTEXT_READ])
        text = region.text
        stripped = text.lstrip()
        if not words or not stripped.startswith(words):
            return None
        at = len(text) - len(stripped)
        o0, o1 = region.to_original(at, at + len(words))
        return NegationContext("after", "", " ".join(source[end + o0:end + o1].split()))
    return None
