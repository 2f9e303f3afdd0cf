"""What keeps extract_pdf near the cost of PyMuPDF's own rawdict (issue 23 item 7).

No timings here (bench/ingest.py measures them side by side): these tests pin
down the mechanisms, and that they change nothing in what is extracted.
"""

from __future__ import annotations

import gc
import math
from array import array

import pymupdf
import pytest

from reviewer.ingestion import ExtractionError, extract_pdf
from reviewer.ingestion import extract as extract_module
from reviewer.ingestion.extract import (
    _TEXT_FLAGS,
    _chars_at_most,
    _glyph_extent,
    _read_line,
    float32_bytes,
)


def _pdf(lines: list[str], *, fontsize: float = 11, step: float = 14) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 40.0
    for text in lines:
        if y > 820:
            page = doc.new_page(width=595, height=842)
            y = 40.0
        page.insert_text((40, y), text, fontsize=fontsize)
        y += step
    data = doc.tobytes()
    doc.close()
    return data


def test_a_normal_page_is_not_read_twice_to_count_its_characters(monkeypatch) -> None:
    # The plain text was built for every page only to be counted, a whole
    # extra pass over the glyphs; the text page's memory now bounds the count.
    calls = []
    original = pymupdf.TextPage.extractText

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.TextPage, "extractText", counted)
    doc = extract_pdf(_pdf([f"Line {n} of an ordinary page of prose." for n in range(40)]))
    assert "Line 39 of an ordinary page of prose." in doc.text
    assert calls == []


def test_a_page_over_the_limit_is_still_counted_exactly_and_refused() -> None:
    data = _pdf(["x" * 80] * 30)  # 2,400 characters and 30 line breaks
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, max_page_chars=2_000)
    assert caught.value.kind == "page-chars"
    assert "holds 2,430 characters" in caught.value.message
    assert extract_pdf(data, max_page_chars=2_430).text.count("x") == 2_400


@pytest.mark.parametrize("lines", [
    [str(n % 10) for n in range(400)],  # one glyph a line: line breaks weigh most
    ["word " * 20] * 55,  # a dense page
    ["\ufb01 \ufb02"] * 50,  # ligatures, one glyph each
    [],  # no text at all
])
def test_the_pool_bound_is_never_below_the_plain_text(lines: list[str]) -> None:
    with pymupdf.open(stream=_pdf(lines or [" "], fontsize=4, step=2), filetype="pdf") as doc:
        for page in doc:
            textpage = page.get_textpage(flags=_TEXT_FLAGS)
            assert _chars_at_most(textpage) >= len(textpage.extractText())


def test_the_cyclic_gc_is_paused_while_a_page_is_read_and_restored_after(monkeypatch) -> None:
    # A rawdict is millions of acyclic objects; collections while it lives
    # walk all of them again for nothing.
    seen = []
    original = pymupdf.Page.get_text

    def watched(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(gc.isenabled())
        return original(self, *args, **kwargs)

    monkeypatch.setattr(pymupdf.Page, "get_text", watched)
    data = _pdf([f"Sentence {n} on a page." for n in range(120)])
    assert gc.isenabled()
    extract_pdf(data)
    assert seen and not any(seen)
    assert gc.isenabled()
    with pytest.raises(ExtractionError):
        extract_pdf(data, max_page_chars=10)  # raised while the page is read
    assert gc.isenabled()
    gc.disable()
    try:
        extract_pdf(data)
        assert not gc.isenabled()  # a caller that had it off keeps it off
    finally:
        gc.enable()


def _char(c: str, x0: float, y0: float, x1: float, y1: float) -> dict:  # type: ignore[type-arg]
    return {"c": c, "bbox": (x0, y0, x1, y1), "origin": (x0, y1 - 2)}


def _span(chars: list[dict]) -> dict:  # type: ignore[type-arg]
    bbox = (min(c["bbox"][0] for c in chars), min(c["bbox"][1] for c in chars),
            max(c["bbox"][2] for c in chars), max(c["bbox"][3] for c in chars))
    return {"chars": chars, "bbox": bbox, "origin": chars[0]["origin"]}


@pytest.mark.parametrize("spans", [
    # One span: its bbox is the line's extent.
    [[("A", 10, 100, 16, 112), ("b", 16, 101, 21, 112)]],
    # A trailing blank taller and wider than the glyphs kept: it must not
    # stretch the line (a span's bbox would).
    [[("A", 10, 100, 16, 112), (" ", 16, 90, 40, 130)]],
    # Spans out of writing order, a leading blank, and a glyph read as two
    # characters (ActualText) that keeps its box for both.
    [[("c", 30, 99, 36, 111), ("d", 36, 100, 41, 113)],
     [(" ", 0, 80, 10, 140), ("A", 10, 100, 16, 112)],
     [("ff", 41, 100, 49, 112)]],
])
def test_a_line_extent_is_the_union_of_the_boxes_it_keeps(spans: list) -> None:  # type: ignore[type-arg]
    raw_line = {"dir": (1.0, 0.0),
                "spans": [_span([_char(*glyph) for glyph in span]) for span in spans]}
    line = _read_line(raw_line, extract_module._IDENTITY)
    assert line is not None
    assert len(line.boxes) == 4 * len(line.text)
    assert line.text == line.text.strip()
    xs0, ys0, xs1, ys1 = (line.boxes[k::4] for k in range(4))
    assert (line.x0, line.y0, line.x1, line.y1) == (min(xs0), min(ys0), max(xs1), max(ys1))


def test_float32_bytes_are_the_arrays_bytes_to_the_bit() -> None:
    # The page's boxes are packed by struct rather than array.fromlist (a
    # tenth of the instructions); both cast each double to float in C.
    values = [1.5, 0.1, 1 / 3, -0.0, 0.0, 2.0**-149, 1e-46, 3.4028234663852886e38,
              3.5e38, -1e39, math.inf, -math.inf, math.nan, 7, -2, 612.0]
    expected = array("f")
    expected.fromlist(values)
    assert float32_bytes(values) == expected.tobytes()
    assert float32_bytes([]) == b""


def _union(boxes: list[float]) -> tuple[float, float, float, float]:
    return min(boxes[0::4]), min(boxes[1::4]), max(boxes[2::4]), max(boxes[3::4])


@pytest.mark.parametrize(("boxes", "bboxes"), [
    # The first glyph sets the left edge, top and bottom; the last the right.
    ([10.0, 100.0, 16.0, 112.0, 16.0, 100.0, 21.0, 112.0], [(10.0, 100.0, 21.0, 112.0)]),
    # A trailing blank was stripped: the span's right edge is the blank's.
    ([10.0, 100.0, 16.0, 112.0], [(10.0, 100.0, 30.0, 112.0)]),
    # A taller second span and a glyph left of the first (kerned back).
    ([10.0, 102.0, 16.0, 111.0, 9.5, 102.0, 20.0, 111.0, 20.0, 98.0, 26.0, 114.0],
     [(9.5, 102.0, 20.0, 111.0), (20.0, 98.0, 26.0, 114.0)]),
    # Zeros of both signs: min() and max() keep the first, and so must this.
    ([0.0, -0.0, 5.0, 0.0, -0.0, 0.0, 0.0, -0.0], [(-0.0, -0.0, 5.0, 0.0)]),
    ([-5.0, 1.0, -0.0, 2.0, -4.0, 1.0, 0.0, 2.0], [(-5.0, 1.0, 0.0, 2.0)]),
])
def test_a_line_extent_from_its_spans_is_min_and_max_of_its_boxes(
    boxes: list[float], bboxes: list[tuple[float, float, float, float]]
) -> None:
    spans = [{"bbox": bbox} for bbox in bboxes]
    extent = _glyph_extent(boxes, spans)
    assert extent == _union(boxes)
    # Value and sign: a -0.0 for a 0.0 would change the stored float32s.
    assert [math.copysign(1, v) for v in extent] == [math.copysign(1, v) for v in _union(boxes)]
