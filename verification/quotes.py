"""Quoted spans in an answer.

Three forms: ``"straight"``, ``“curly”`` (nesting respected, so a curly quote
may hold straight or curly inner quotes) and ``<quote source="S1">…</quote>``
blocks. Single quotes are never delimiters: they are apostrophes far more often.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from .markers import canonical_label

__all__ = ["Quote", "QuoteKind", "parse_quotes"]

QuoteKind = Literal["straight", "curly", "block"]

_BLOCK = re.compile(
    r"<quote(?:\s+source\s*=\s*(?:\"(?P<dq>[^\"]*)\"|'(?P<sq>[^']*)'|(?P<bare>[^\s>]+)))?\s*>"
    r"(?P<body>.*?)</quote\s*>",
    re.IGNORECASE | re.DOTALL,
)
_OPEN_BEFORE = set(" \t\n\r([{\u2014\u2013-:/")
_CLOSE_AFTER = set(" \t\n\r)]}[.,;:!?\u2014\u2013-\u3010")
_MIN_QUOTE_CHARS = 2


@dataclass(frozen=True, slots=True)
class Quote:
    """A quoted span. ``start``/``end`` index the answer and cover the quoted
    text only; ``outer_start``/``outer_end`` include the delimiters.
    ``source`` is the block's own ``source`` attribute, if any."""

    text: str
    start: int
    end: int
    outer_start: int
    outer_end: int
    kind: QuoteKind
    source: str | None = None


def _overlaps(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(s < end and start < e for s, e in spans)


def _trimmed(answer: str, start: int, end: int) -> tuple[int, int]:
    while start < end and answer[start].isspace():
        start += 1
    while end > start and answer[end - 1].isspace():
        end -= 1
    return start, end


def parse_quotes(answer: str) -> tuple[Quote, ...]:
    """Every quoted span in ``answer``, in order, outermost only."""
    quotes: list[Quote] = []
    taken: list[tuple[int, int]] = []

    for match in _BLOCK.finditer(answer):
        source = match.group("dq") or match.group("sq") or match.group("bare")
        start, end = _trimmed(answer, match.start("body"), match.end("body"))
        quotes.append(
            Quote(answer[start:end], start, end, match.start(), match.end(), "block",
                  canonical_label(source) if source else None)
        )
        taken.append((match.start(), match.end()))

    # Curly quotes, with nesting: the outermost pair is the quote.
    depth, opened = 0, -1
    for match in re.finditer("[\u201c\u201d]", answer):
        index, char = match.start(), match.group(0)
        if _overlaps(taken, index, index + 1):
            continue
        if char == "\u201c":
            if depth == 0:
                opened = index
            depth += 1
        elif char == "\u201d" and depth:
            depth -= 1
            if depth == 0:
                start, end = _trimmed(answer, opened + 1, index)
                quotes.append(Quote(answer[start:end], start, end, opened, index + 1, "curly"))
                taken.append((opened, index + 1))

    # Straight quotes: an opening mark after a space or bracket, closed by the
    # next mark that is followed by a space, punctuation or the end.
    index = 0
    length = len(answer)
    while index < length:
        index = answer.find('"', index)
        if index < 0:
            break
        if _overlaps(taken, index, index + 1) or (index and answer[index - 1] not in _OPEN_BEFORE):
            index += 1
            continue
        close = index + 1
        while True:
            close = answer.find('"', close)
            if close < 0 or close + 1 >= length or answer[close + 1] in _CLOSE_AFTER:
                break
            close += 1
        if close < 0 or _overlaps(taken, index, close + 1):
            index += 1
            continue
        start, end = _trimmed(answer, index + 1, close)
        quotes.append(Quote(answer[start:end], start, end, index, close + 1, "straight"))
        taken.append((index, close + 1))
        index = close + 1

    kept = [q for q in quotes if len(q.text) >= _MIN_QUOTE_CHARS]
    return tuple(sorted(kept, key=lambda q: q.outer_start))
