"""Quoted spans in an answer.

Three forms: ``"straight"``, ``“curly”`` and ``<quote source="S1">…</quote>``
blocks. Straight and curly pairs nest either way round: the outermost pair is
the quote and the pairs inside it are its text, so ``"tick the “Yes” box"`` is
one quote of the whole phrase, not a quote of ``Yes``. Pairs nest properly or
not at all: a mark never pairs with one on the other side of an open pair's
mark (``"a “b "c" d" e”`` quotes ``b "c" d" e``), nor across a block, whose
marks are its own text. An unclosed mark is text, and the pairs inside it
stand alone.

One exception comes first: a straight quote closes at the next straight mark
when the curly marks between them do not pair among themselves (a closing mark
before any opening one, or an opening one left open). Those curly marks are
then its text, cut off at its edges, and pair with nothing outside it: a model
quoting a bibliography across titles writes ``"Sales Rise,” Daily News, 3 May;
“Costs Fall" [S1] and "ledger (What Finance Doesn’t Say),” Review 2 (2001)"
[S4]``, two quotes, one for each marker. So ``"a “b" c”`` quotes ``a “b``, not
``b" c``.

A straight mark opens after a space, a bracket or a dash, never before a space
(``he said " …``), and closes before a space, punctuation or the end; Markdown
emphasis around it (``*"…"*``, ``**"…"**``, ``_"…"_``) counts as a space. A mark
that could do either closes an open straight pair. Single quotes are never
delimiters: they are apostrophes far more often.
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
_MARK = re.compile('["\u201c\u201d]')
_CURLY = re.compile("[\u201c\u201d]")
_OPEN_BEFORE = frozenset(" \t\n\r([{\u2014\u2013-:/*_")
_CLOSE_AFTER = frozenset(" \t\n\r)]}[.,;:!?\u2014\u2013-\u3010*_")
_CLOSE_AFTER_OR_END = _CLOSE_AFTER | {""}
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


def _trimmed(answer: str, start: int, end: int) -> tuple[int, int]:
    while start < end and answer[start].isspace():
        start += 1
    while end > start and answer[end - 1].isspace():
        end -= 1
    return start, end


def _curly_unpaired(answer: str, start: int, end: int) -> bool:
    """Whether the curly marks in ``answer[start:end]`` fail to pair among
    themselves: a closing mark before any opening one, or an opening one
    left open. No curly marks at all pair."""
    depth = 0
    for mark in _CURLY.finditer(answer, start, end):
        if mark.group() == "\u201c":
            depth += 1
        elif depth:
            depth -= 1
        else:
            return True
    return depth > 0


def _closed_early(answer: str, start: int, end: int) -> dict[int, int]:
    """The straight pairs in ``answer[start:end]`` that close at the next
    straight mark because the curly marks between them do not pair, as
    ``{open: close}``. Only a mark that can open and cannot close starts
    one, so that it is an opening mark whatever is open around it."""
    early: dict[int, int] = {}
    index = answer.find('"', start, end)
    while index >= 0:
        after = answer[index + 1 : index + 2]
        following = answer.find('"', index + 1, end)
        if following < 0:
            break
        if ((index == 0 or answer[index - 1] in _OPEN_BEFORE) and after
                and not after.isspace() and after not in _CLOSE_AFTER
                and answer[following + 1 : following + 2] in _CLOSE_AFTER_OR_END
                and _curly_unpaired(answer, index + 1, following)):
            early[index] = following
            index = answer.find('"', following + 1, end)
        else:
            index = following
    return early


def _paired_curly(answer: str, start: int, end: int, early: dict[int, int]) -> set[int]:
    """The curly marks in ``answer[start:end]`` that have a partner. Curly marks
    are paired before the straight marks around them; a lone one is plain text
    and must neither hide nor close the straight marks around it. The marks
    inside an ``early`` pair are its text."""
    open_: list[int] = []
    paired: set[int] = set()
    skip_to = -1
    for mark in _MARK.finditer(answer, start, end):
        index, char = mark.start(), mark.group()
        if index <= skip_to:
            continue
        if index in early:
            skip_to = early[index]
        elif char == "\u201c":
            open_.append(index)
        elif char == "\u201d" and open_:
            paired.update((open_.pop(), index))
    return paired


def _pairs(answer: str, start: int, end: int) -> list[tuple[int, int, QuoteKind]]:
    """Every quote pair in ``answer[start:end]`` as ``(open, close, kind)``,
    inner pairs included; they nest properly because one stack pairs both."""
    early = _closed_early(answer, start, end)
    curly = _paired_curly(answer, start, end, early)
    stack: list[tuple[int, QuoteKind]] = []
    pairs: list[tuple[int, int, QuoteKind]] = []
    skip_to = -1
    for mark in _MARK.finditer(answer, start, end):
        index, char = mark.start(), mark.group()
        if index <= skip_to:
            continue  # text of an early pair
        if index in early:
            skip_to = early[index]
            pairs.append((index, skip_to, "straight"))
        elif char != '"':
            if index not in curly:
                continue
            if char == "\u201c":
                stack.append((index, "curly"))
                continue
            # Its opener is the innermost curly on the stack; a straight mark
            # still open inside it was text.
            while stack[-1][1] != "curly":
                stack.pop()
            pairs.append((stack.pop()[0], index, "curly"))
        else:
            after = answer[index + 1 : index + 2]
            # Only a straight mark opened since the innermost curly opener may
            # close here: closing an older one would cross that curly pair.
            if stack and stack[-1][1] == "straight" and (not after or after in _CLOSE_AFTER):
                pairs.append((stack.pop()[0], index, "straight"))
            elif (index == 0 or answer[index - 1] in _OPEN_BEFORE) and after \
                    and not after.isspace():
                stack.append((index, "straight"))
    return pairs


def parse_quotes(answer: str) -> tuple[Quote, ...]:
    """Every quoted span in ``answer``, in order, outermost only."""
    quotes: list[Quote] = []
    segment = 0
    segments: list[tuple[int, int]] = []
    for match in _BLOCK.finditer(answer):
        source = match.group("dq") or match.group("sq") or match.group("bare")
        start, end = _trimmed(answer, match.start("body"), match.end("body"))
        quotes.append(
            Quote(answer[start:end], start, end, match.start(), match.end(), "block",
                  canonical_label(source) if source else None)
        )
        segments.append((segment, match.start()))
        segment = match.end()
    segments.append((segment, len(answer)))

    covered = -1  # the end of the last outermost pair kept
    for first, last in segments:
        for opened, closed, kind in sorted(_pairs(answer, first, last)):
            if opened < covered:
                continue  # inside a pair already kept
            covered = closed + 1
            start, end = _trimmed(answer, opened + 1, closed)
            quotes.append(Quote(answer[start:end], start, end, opened, closed + 1, kind))

    kept = [q for q in quotes if len(q.text) >= _MIN_QUOTE_CHARS]
    return tuple(sorted(kept, key=lambda q: q.outer_start))
