"""chunk_text() as first written: every candidate boundary of the whole text
in sorted lists, bisected. The library searches near each chunk's end
instead (a book's list of spaces alone runs to megabytes); both must agree."""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from reviewer.ingestion.chunking import _PARAGRAPH, _SENTENCE, _page_break, _Text


def _sentence_ends(text: str) -> list[int]:
    ends = []
    for match in _SENTENCE.finditer(text):
        following = match.end()
        while following < len(text) and text[following].isspace():
            following += 1
        if following == len(text):
            continue
        char = text[following]
        if char.isupper() or char.isdigit() or char in "\"'“‘([¿¡":
            ends.append(match.end())
    return ends


def oracle_chunks(
    text: str, *, target_size: int, overlap: int, exclude: Sequence[tuple[int, int]] = ()
) -> list[tuple[int, int]]:
    view = _Text(text, exclude)
    paragraphs = [
        m.start() for m in _PARAGRAPH.finditer(text) if not _page_break(view, m.start())
    ]
    sentences = _sentence_ends(text)
    ends_by_preference = (
        paragraphs,
        sentences,
        [m.start() for m in re.finditer(r"\n", text)],
        [m.start() for m in re.finditer(r"\s", text)],
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
    view: _Text, ends_by_preference: Sequence[list[int]], position: int, limit: int,
    minimum: int,
) -> int:
    for candidates in ends_by_preference:
        k = bisect_right(candidates, limit) - 1
        while k >= 0 and candidates[k] >= position + minimum:
            end = view.backward(candidates[k])
            if end > position + minimum // 2:
                return end
            k -= 1
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
        best = max(low, wanted)
        while best > low and not view.text[best - 1].isspace():
            best -= 1
    start = view.forward(best)
    if position < start < end:
        return start
    return view.forward(end)
