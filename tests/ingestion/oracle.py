"""Independent answers to "where is this text", from PyMuPDF's own search."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence

import pymupdf

from reviewer.ingestion import ExtractedDocument, PageRects
from tests.factories import SEARCH_FLAGS

_RUN = re.compile(r"[^\n\f]+")  # text between the extractor's line/page breaks


def displayed_hits(page: pymupdf.Page, needle: str) -> list[list[float]]:
    """``page.search_for`` hits mapped to the displayed (rotated) page."""
    matrix = page.rotation_matrix
    return [list(rect * matrix) for rect in page.search_for(needle, flags=SEARCH_FLAGS)]


def expected_rects(
    doc: ExtractedDocument,
    pdf: pymupdf.Document,
    start: int,
    end: int,
    skip: Sequence[tuple[int, int]] = (),
) -> list[PageRects]:
    """One search hit per line segment of ``text[start:end]``.

    Needs every whole-word segment to occur once on its page (the generated
    PDFs guarantee it); fails loudly otherwise rather than guess.
    """
    starts = [p.text_start for p in doc.pages]
    result: list[PageRects] = []
    position = start
    for skip_start, skip_end in [*sorted(skip), (end, end)]:
        piece_end = min(max(skip_start, position), end)
        for match in _RUN.finditer(doc.text, position, piece_end):
            segment = match.group().strip()
            if not segment:
                continue
            page_index = bisect_right(starts, match.start()) - 1
            hits = displayed_hits(pdf[page_index], segment)
            assert len(hits) == 1, f"oracle needs {segment!r} once on its page, found {hits}"
            number = page_index + 1
            if not result or result[-1]["page"] != number:
                result.append({"page": number, "rects": []})
            result[-1]["rects"].append(hits[0])
        position = max(position, skip_end)
        if position >= end:
            break
    return result


def assert_same_rects(
    actual: list[PageRects], expected: list[PageRects], tol: float = 0.02
) -> None:
    assert [p["page"] for p in actual] == [p["page"] for p in expected]
    for got, want in zip(actual, expected, strict=True):
        assert len(got["rects"]) == len(want["rects"]), (got, want)
        for rect, hit in zip(got["rects"], want["rects"], strict=True):
            assert all(abs(a - b) <= tol for a, b in zip(rect, hit, strict=True)), (rect, hit)
