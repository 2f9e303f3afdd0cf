"""Rectangles to highlight for a range of the document text.

``locate(doc, start, end)`` answers "where on the pages is ``text[start:end]``"
with one rectangle per line, per page, in displayed-page points (origin at the
top-left of the visible page, after /Rotate) — what a viewer scales and draws.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from typing import TypedDict

from reviewer.ingestion.extract import DocumentGeometry, ExtractedDocument

__all__ = ["PageRects", "bounding_box", "locate"]

Rect = list[float]


class PageRects(TypedDict):
    page: int  # 1-based page number
    rects: list[Rect]  # [x0, y0, x1, y1], displayed-page points, rounded to 0.01


def _geometry(source: ExtractedDocument | DocumentGeometry) -> DocumentGeometry:
    return source.geometry if isinstance(source, ExtractedDocument) else source


def _check_range(geometry: DocumentGeometry, start: int, end: int) -> None:
    if not 0 <= start <= end <= geometry.text_length:
        raise ValueError(
            f"range [{start}, {end}) is outside the document text "
            f"(length {geometry.text_length}); offsets index ExtractedDocument.text"
        )


def locate(
    source: ExtractedDocument | DocumentGeometry,
    start: int,
    end: int,
    *,
    skip: Sequence[tuple[int, int]] = (),
) -> list[PageRects]:
    """Per page, the line rectangles covering the glyphs of ``text[start:end]``.

    Inserted characters (line breaks, separators) have no box and are skipped,
    as are characters in ``skip`` ranges (pass the furniture ranges so a quote
    running over a page break does not highlight the running header). A range
    over a page break returns an entry for each page it touches; pages with no
    glyph in the range are left out.
    """
    geometry = _geometry(source)
    _check_range(geometry, start, end)
    pages = geometry.pages
    skipped = sorted((max(s, start), min(e, end)) for s, e in skip if s < end and e > start)
    result: list[PageRects] = []
    index = max(0, bisect_right(geometry.page_starts, start) - 1)
    while index < len(pages) and pages[index].text_start < end:
        page = pages[index]
        rects = _Rects()
        lo, hi = max(start, page.text_start), min(end, page.text_end)
        for piece_start, piece_end in _pieces(lo, hi, skipped):
            # A skipped range breaks a line like an inserted character does.
            for run in geometry.glyph_runs(piece_start, piece_end):
                rects.add_run(run)
        if rects.rects:
            result.append({
                "page": page.number,
                "rects": [[round(v, 2) for v in rect] for rect in rects.rects],
            })
        index += 1
    return result


def _pieces(
    start: int, end: int, skipped: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """``[start, end)`` minus the sorted ``skipped`` ranges."""
    pieces = []
    position = start
    for skip_start, skip_end in skipped:
        if skip_end <= position:
            continue
        if skip_start >= end:
            break
        if skip_start > position:
            pieces.append((position, skip_start))
        position = max(position, skip_end)
    if position < end:
        pieces.append((position, end))
    return pieces


def bounding_box(
    source: ExtractedDocument | DocumentGeometry, start: int, end: int
) -> tuple[float, float, float, float] | None:
    """The union of the boxes in ``[start, end)`` (one page's worth), or None."""
    geometry = _geometry(source)
    _check_range(geometry, start, end)
    values = geometry.glyph_boxes(start, end)  # inserted characters have none
    if not values:
        return None
    return (min(values[0::4]), min(values[1::4]), max(values[2::4]), max(values[3::4]))


class _Rects:
    """Line rectangles being built, each remembering whether it runs vertically."""

    __slots__ = ("rects", "vertical")

    def __init__(self) -> None:
        self.rects: list[Rect] = []
        self.vertical: list[bool] = []

    def add_run(self, values: Sequence[float]) -> None:
        """Merge consecutive character boxes into one rectangle per line.

        A run of boxes between two inserted characters (flat, 4 values a box)
        is one PDF line, so it is merged whichever way the line runs (vertical
        text included) as long as its boxes touch.
        """
        current: Rect | None = None
        vertical = False
        for k in range(0, len(values), 4):
            x0, y0, x1, y1 = values[k : k + 4]
            if current is not None:
                along = _touching(current, x0, y0, x1, y1)
                if along is not None:
                    vertical = vertical or along == "vertical"
                    current[0] = min(current[0], x0)
                    current[1] = min(current[1], y0)
                    current[2] = max(current[2], x1)
                    current[3] = max(current[3], y1)
                    continue
                self._append(current, vertical)
            current, vertical = [x0, y0, x1, y1], False
        if current is not None:
            self._append(current, vertical)

    def _append(self, rect: Rect, vertical: bool) -> None:
        # Across an inserted character only two horizontal rectangles on one
        # baseline merge: PDF lines side by side (joined by a space in the
        # text). The next line of a paragraph, or of vertical text, stays apart.
        if (
            self.rects
            and not vertical
            and not self.vertical[-1]
            and _touching(self.rects[-1], *rect) == "horizontal"
        ):
            last = self.rects[-1]
            last[0] = min(last[0], rect[0])
            last[1] = min(last[1], rect[1])
            last[2] = max(last[2], rect[2])
            last[3] = max(last[3], rect[3])
        else:
            self.rects.append(rect)
            self.vertical.append(vertical)


def _touching(rect: Rect, x0: float, y0: float, x1: float, y1: float) -> str | None:
    """Whether a box continues ``rect`` along a horizontal or a vertical line."""
    # Tolerance: one line height, so a word gap without a space glyph still joins.
    tolerance = max(rect[3] - rect[1], y1 - y0, 1.0)
    y_overlap = min(rect[3], y1) - max(rect[1], y0)
    x_gap = max(x0 - rect[2], rect[0] - x1)
    if y_overlap >= 0.5 * min(rect[3] - rect[1], y1 - y0) and x_gap <= tolerance:
        return "horizontal"
    tolerance = max(rect[2] - rect[0], x1 - x0, 1.0)
    x_overlap = min(rect[2], x1) - max(rect[0], x0)
    y_gap = max(y0 - rect[3], rect[1] - y1)
    if x_overlap >= 0.5 * min(rect[2] - rect[0], x1 - x0) and y_gap <= tolerance:
        return "vertical"
    return None
