"""Overlapping chunks of the document text for retrieval, as ranges.

A chunk is ``text[start:end]``: nothing is copied or rewritten, so a chunk's
offsets are document offsets and a match inside a chunk locates on the page
without translation. Excluded ranges (page furniture) stay inside chunks that
run across them; callers pass the same ranges as ``skip`` to the normaliser.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

__all__ = ["chunk_text"]

# A blank line (possibly holding spaces) ends a paragraph.
_PARAGRAPH = re.compile(r"\n[^\S\n]*\n")
# Sentence-final punctuation, closing quotes/brackets, then whitespace.
_SENTENCE = re.compile(r"[.!?…][\"'”’)\]]*(?=\s)")
_OPENERS = "\"'“‘([¿¡"
_LINE = re.compile(r"\n")
_SPACE = re.compile(r"\s")


def _merge(ranges: Sequence[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(length, e)) for s, e in ranges):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


class _Text:
    """The text with its excluded ranges: what counts as visible content."""

    def __init__(self, text: str, exclude: Sequence[tuple[int, int]]) -> None:
        self.text = text
        self.excluded = _merge(exclude, len(text))
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


def _sentence_ends(text: str) -> list[int]:
    ends = []
    for match in _SENTENCE.finditer(text):
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
    paragraphs = [
        m.start() for m in _PARAGRAPH.finditer(text) if not _page_break(view, m.start())
    ]
    sentences = _sentence_ends(text)
    # Candidate chunk ends by preference; a start candidate is a visible
    # character after a paragraph or sentence end (the same positions).
    ends_by_preference = (
        paragraphs,
        sentences,
        [m.start() for m in _LINE.finditer(text)],
        [m.start() for m in _SPACE.finditer(text)],
    )
    sentence_starts = sorted(set(paragraphs) | set(sentences))

    content_end = view.backward(len(text))
    chunks: list[tuple[int, int]] = []
    position = view.forward(0)
    while position < content_end:
        limit = position + target_size
        if content_end <= limit:
            chunks.append((position, content_end))
            break
        end = _choose_end(view, ends_by_preference, position, limit, target_size // 2)
        chunks.append((position, end))
        position = _choose_start(view, sentence_starts, position, end, overlap)
    return chunks


def _choose_end(
    view: _Text,
    ends_by_preference: Sequence[list[int]],
    position: int,
    limit: int,
    minimum: int,
) -> int:
    for candidates in ends_by_preference:
        k = bisect_right(candidates, limit) - 1
        while k >= 0 and candidates[k] >= position + minimum:
            end = view.backward(candidates[k])
            if end > position + minimum // 2:
                return end
            k -= 1
    # One unbroken run of text (a URL, a table of digits): cut it.
    end = view.backward(limit)
    return end if end > position else limit


def _choose_start(
    view: _Text, sentence_starts: list[int], position: int, end: int, overlap: int
) -> int:
    if overlap == 0:
        return view.forward(end)
    wanted = end - overlap
    low, high = max(position + 1, end - 2 * overlap), end - overlap // 2
    best: int | None = None
    k = bisect_left(sentence_starts, low)
    while k < len(sentence_starts) and sentence_starts[k] <= high:
        if best is None or abs(sentence_starts[k] - wanted) < abs(best - wanted):
            best = sentence_starts[k]
        k += 1
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
