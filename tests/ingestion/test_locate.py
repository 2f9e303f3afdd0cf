"""locate(): per-line rectangles that enclose exactly the glyphs of a range."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path

import pymupdf
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from reviewer.ingestion import (
    ExtractedDocument,
    chunk_text,
    find_furniture,
    locate,
)
from tests.factories import BREAK_AFTER, BREAK_BEFORE, BuiltPdf, build_rotated
from tests.ingestion.oracle import assert_same_rects, displayed_hits, expected_rects


@pytest.fixture(scope="module")
def report_pdf(report: BuiltPdf) -> Iterator[pymupdf.Document]:
    with pymupdf.open(stream=report.data, filetype="pdf") as pdf:
        yield pdf


def word_spans(text: str) -> list[tuple[int, int]]:
    """The generated (page-unique) words: a range from one to another is a
    run of page-unique line segments, which the search oracle can place."""
    return [m.span() for m in re.finditer(r"\b[bfgknprstz][aeiou][bfgknprstz][aeiou]\b", text,
                                          re.IGNORECASE)]


def test_every_chunk_locates_to_its_glyphs(
    report_doc: ExtractedDocument, report_pdf: pymupdf.Document
) -> None:
    furniture = find_furniture(report_doc)
    chunks = chunk_text(report_doc.text, target_size=400, overlap=80, exclude=furniture)
    for start, end in chunks:
        expected = expected_rects(report_doc, report_pdf, start, end)
        assert_same_rects(locate(report_doc, start, end), expected)
        # Skipping furniture leaves out exactly the header/footer rectangles.
        expected = expected_rects(report_doc, report_pdf, start, end, skip=furniture)
        assert_same_rects(locate(report_doc, start, end, skip=furniture), expected)


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_random_word_ranges(
    data: st.DataObject, report_doc: ExtractedDocument, report_pdf: pymupdf.Document
) -> None:
    words = word_spans(report_doc.text)
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, min(len(words) - 1, first + 60)))
    start, end = words[first][0], words[last][1]
    result = locate(report_doc.geometry, start, end)
    assert_same_rects(result, expected_rects(report_doc, report_pdf, start, end))
    # Every glyph box of the range lies in a rectangle of its page.
    by_page = {entry["page"]: entry["rects"] for entry in result}
    for index in range(start, end):
        box = report_doc.geometry.box(index)
        if box is None:
            continue
        page = next(p for p in report_doc.pages if p.text_start <= index < p.text_end)
        assert any(
            r[0] - 0.01 <= box[0] and box[2] <= r[2] + 0.01
            and r[1] - 0.01 <= box[1] and box[3] <= r[3] + 0.01
            for r in by_page[page.number]
        )


@pytest.mark.parametrize("rotation", [90, 180, 270])
def test_rotated_page_ranges(tmp_path: Path, rotation: int) -> None:
    built = build_rotated(tmp_path / "rotated.pdf", rotation)
    doc = built.extract()
    rng = random.Random(rotation)
    words = word_spans(doc.text)
    with pymupdf.open(stream=built.data, filetype="pdf") as pdf:
        for _ in range(40):
            first = rng.randrange(len(words))
            last = min(len(words) - 1, first + rng.randrange(25))
            start, end = words[first][0], words[last][1]
            assert_same_rects(locate(doc, start, end), expected_rects(doc, pdf, start, end))
        # Sideways text on the displayed page: each line is a tall rectangle.
        page_two = doc.pages[1]
        rects = locate(doc, page_two.text_start, page_two.text_end)[0]["rects"]
        if rotation in (90, 270):
            assert all(r[3] - r[1] > r[2] - r[0] for r in rects)


def test_range_across_a_page_break(
    report_doc: ExtractedDocument, report_pdf: pymupdf.Document
) -> None:
    start = report_doc.text.index(BREAK_BEFORE)
    end = report_doc.text.index(BREAK_AFTER) + len(BREAK_AFTER)
    furniture = find_furniture(report_doc)
    result = locate(report_doc, start, end, skip=furniture)
    assert [entry["page"] for entry in result] == [2, 3]
    assert_same_rects(
        result,
        [
            {"page": 2, "rects": displayed_hits(report_pdf[1], BREAK_BEFORE)},
            {"page": 3, "rects": displayed_hits(report_pdf[2], BREAK_AFTER)},
        ],
    )
    # Without skip, the footer, page number and header in between light up too.
    assert [len(e["rects"]) for e in locate(report_doc, start, end)] == [3, 2]


def test_rects_are_rounded_and_ranges_checked(report_doc: ExtractedDocument) -> None:
    page = report_doc.pages[0]
    for entry in locate(report_doc, page.text_start, page.text_end):
        for rect in entry["rects"]:
            assert rect == [round(v, 2) for v in rect]
            assert rect[0] <= rect[2] and rect[1] <= rect[3]
    assert locate(report_doc, 10, 10) == []
    separator = report_doc.pages[0].text_end
    assert locate(report_doc, separator, separator + 3) == []  # "\n\f\n"
    with pytest.raises(ValueError, match="outside the document text"):
        locate(report_doc, 0, len(report_doc.text) + 1)
    with pytest.raises(ValueError, match="outside the document text"):
        locate(report_doc, 5, 4)
