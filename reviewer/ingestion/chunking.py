"""Overlapping chunks of the document text for retrieval, as ranges.

A chunk is ``text[start:end]``: nothing is copied or rewritten, so a chunk's
offsets are document offsets and a match inside a chunk locates on the page
without translation. Excluded ranges (page furniture) stay inside chunks that
run across them; callers pass the same ranges as ``skip`` to the normaliser.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Sequence

from verification.normalize import merge_ranges

__all__ = ["chunk_text"]

# A blank line (possibly holding spaces) ends a paragraph.
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
# Sentence-final punctuation, closing quotes/brackets, then whitespace.
_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_OPENERS = "\"'“‘([¿¡"
_END_MARKS = ".!?…"
_CLOSERS = "\"'”’)]"


class _Text:
    """The text with its excluded ranges: what counts as visible content."""

    def __init__(self, text: str, exclude: Sequence[tuple[int, int]]) -> None:
        self.text = text
        self.excluded = merge_ranges(exclude, len(text))
        self.excluded_starts = [start for start, _ in self.excluded]

    def _excluded_at(self, index: int) -> tuple[int, int] | None:
        k = bisect_right(self.excluded_starts, index) - 1
        if k >= 0 and self.excluded[k][1] > index:
            return self.excluded[k]
        return None

    def forward(self, index: int) -> int:
        """The first visible character at or after ``index`` (or the length)."""
        text = self.text
        while index < len(text):
            excluded = self._excluded_at(index)
            if excluded is not None:
                index = excluded[1]
            elif text[index].isspace():
                index += 1
            else:
                return index
        return len(text)

    def backward(self, index: int) -> int:
        """``index`` moved back over whitespace and excluded text (an end)."""
        text = self.text
        while index > 0:
            excluded = self._excluded_at(index - 1)
            if excluded is not None:
                index = excluded[0]
            elif text[index - 1].isspace():
                index -= 1
            else:
                return index
        return 0


def _sentence_ends(text: str, low: int, high: int) -> list[int]:
    """Sentence ends in ``[low, high]``, ascending: the ends of ``_SENTENCE``
    matches followed by a capital, a digit or an opening quote or bracket."""
    if low > high:
        return []
    # A match is an end mark and the closers after it, so one ending at low or
    # later starts at most that far back; matches never overlap (a closer
    # cannot start one), so searching from there finds what a search of the
    # whole text finds. The lookahead reads one character past ``high``.
    start = low
    while start > 0 and text[start - 1] in _CLOSERS:
        start -= 1
    if start > 0 and text[start - 1] in _END_MARKS:
        start -= 1
    ends = []
    for match in _SENTENCE.finditer(text, start, high + 1):
        if match.end() < low:
            continue
        following = match.end()
        while following < len(text) and text[following].isspace():
            following += 1
        if following == len(text):
            continue
        char = text[following]
        # "et al. (2020)" stays; "value. The" and "2019. 3 cases" split.
        if char.isupper() or char.isdigit() or char in _OPENERS:
            ends.append(match.end())
    return ends


def _paragraph_breaks(view: _Text, low: int, high: int) -> list[int]:
    """Starts of blank lines in ``[low, high]``, ascending, page breaks left out.

    The search starts after the last visible character before ``low`` and
    stops at the first one after ``high``: no match crosses a visible
    character, so within those bounds it finds exactly the matches (they can
    chain, as in "\n\n\n") of a search over the whole text.
    """
    if low > high:
        return []
    text = view.text
    start = low
    while start > 0 and text[start - 1].isspace():
        start -= 1
    stop = high + 1
    while stop < len(text) and text[stop].isspace():
        stop += 1
    return [
        match.start()
        for match in _PARAGRAPH.finditer(text, start, stop)
        if low <= match.start() <= high and not _page_break(view, match.start())
    ]


def _line_breaks(text: str, low: int, high: int) -> Iterator[int]:
    """Positions of "\n" in ``[low, high]``, descending."""
    at = text.rfind("\n", low, high + 1)
    while at >= 0:
        yield at
        at = text.rfind("\n", low, at)


def _spaces(text: str, low: int, high: int) -> Iterator[int]:
    """Positions of whitespace in ``[low, high]``, descending."""
    for at in range(high, low - 1, -1):
        if text[at].isspace():
            yield at


def _page_break(view: _Text, position: int) -> bool:
    """A blank line that, furniture aside, is only a page break.

    Text runs on across pages; only a sentence end there (found separately)
    marks a good place to cut.
    """
    before, after = view.backward(position), view.forward(position)
    return "\f" in view.text[before:after]


def chunk_text(
    text: str,
    *,
    target_size: int = 1200,
    overlap: int = 200,
    exclude: Sequence[tuple[int, int]] = (),
) -> list[tuple[int, int]]:
    """Split ``text`` into ``[start, end)`` ranges of about ``target_size``.

    A chunk ends, in order of preference, at a paragraph break, a sentence end,
    a line break or a space, at least half-way to ``target_size``; the next
    starts about ``overlap`` characters earlier, at a sentence start if there is
    one nearby. Chunks begin and end on visible characters: never on
    whitespace, never inside an ``exclude`` range. Together they cover every
    character of ``text`` that is neither whitespace nor excluded.
    """
    if target_size <= 0:
        raise ValueError(f"target_size must be positive, not {target_size}")
    if not 0 <= overlap < target_size:
        raise ValueError(
            f"overlap must be at least 0 and less than target_size ({target_size}), not {overlap}"
        )
    view = _Text(text, exclude)
    content_end = view.backward(len(text))
    chunks: list[tuple[int, int]] = []
    position = view.forward(0)
    while position < content_end:
        limit = position + target_size
        if content_end <= limit:
            chunks.append((position, content_end))
            break
        end = _choose_end(view, position, limit, target_size // 2)
        chunks.append((position, end))
        position = _choose_start(view, position, end, overlap)
    return chunks


def _choose_end(view: _Text, position: int, limit: int, minimum: int) -> int:
    # Candidates are searched for near the chunk's end only (the text can be
    # a book: no list of every space or line break in it is built).
    text = view.text
    low = position + minimum
    by_preference: tuple[Callable[[], Iterable[int]], ...] = (
        lambda: reversed(_paragraph_breaks(view, low, limit)),
        lambda: reversed(_sentence_ends(text, low, limit)),
        lambda: _line_breaks(text, low, limit),
        lambda: _spaces(text, low, limit),
    )
    for candidates in by_preference:
        for candidate in candidates():
            end = view.backward(candidate)
            if end > position + minimum // 2:
                return end
    # One unbroken run of text (a URL, a table of digits): cut it.
    end = view.backward(limit)
    return end if end > position else limit


def _choose_start(view: _Text, position: int, end: int, overlap: int) -> int:
    if overlap == 0:
        return view.forward(end)
    wanted = end - overlap
    low, high = max(position + 1, end - 2 * overlap), end - overlap // 2
    # A start candidate is a visible character after a paragraph or sentence end.
    sentence_starts = sorted(
        set(_paragraph_breaks(view, low, high)) | set(_sentence_ends(view.text, low, high))
    )
    best: int | None = None
    for candidate in sentence_starts:
        if best is None or abs(candidate - wanted) < abs(best - wanted):
            best = candidate
    if best is None:
        # No sentence start nearby: any word start close to the overlap.
        best = max(low, wanted)
        text = view.text
        while best > low and not text[best - 1].isspace():
            best -= 1
    start = view.forward(best)
    if position < start < end:
        return start
    return view.forward(end)
