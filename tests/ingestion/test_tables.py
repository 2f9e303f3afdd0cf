"""A table reads by its rows: a quote of a row, or of one cell, verifies and
highlights exactly those cells (issue 23, item 3).

The fixtures draw their text column by column, as many table writers do, so
MuPDF's own order runs down the columns; the rows must come from the layout.
"""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, locate
from verification import verify_answer

_ABOVE = (
    "Anticoagulant doses for adults with venous thromboembolism are given",
    "below; every dose assumes normal renal function and no interacting drugs.",
)
_BELOW = (
    "Review the dose when creatinine clearance falls below thirty millilitres",
    "a minute, and stop treatment before any planned surgery.",
)
_HEADER = ("Drug", "Dose", "Duration")
# Cells; a cell of several lines is a tuple of its lines.
_ROWS: tuple[tuple[str | tuple[str, ...], ...], ...] = (
    ("Apixaban", "2.5 mg twice daily", "6 months"),
    ("Rivaroxaban", "20 mg once daily", "3 months"),
    ("Dabigatran", ("150 mg twice daily after", "5 days of heparin"), "12 months"),
)
_COLUMNS = (72.0, 200.0, 400.0)
_SIZE = 11.0
_LEADING = 14.0


def _lines(cell: str | tuple[str, ...]) -> tuple[str, ...]:
    return cell if isinstance(cell, tuple) else (cell,)


def _draw_table(page: pymupdf.Page, *, ruled: bool) -> None:
    """Prose, a table drawn column by column (rules first when ruled), prose."""
    y = 90.0
    for line in _ABOVE:
        page.insert_text((72, y), line, fontsize=_SIZE)
        y += _LEADING
    top = y + 14
    row_tops = [top]
    for row in (_HEADER, *_ROWS):
        height = max(len(_lines(cell)) for cell in row) * _LEADING + 8
        row_tops.append(row_tops[-1] + height)
    if ruled:
        for edge in row_tops:
            page.draw_line((66, edge), (500, edge), width=0.6)
        for x in (66, *(c - 6 for c in _COLUMNS[1:]), 500):
            page.draw_line((x, row_tops[0]), (x, row_tops[-1]), width=0.6)
    for column, x in enumerate(_COLUMNS):
        for row_index, row in enumerate((_HEADER, *_ROWS)):
            for k, line in enumerate(_lines(row[column])):
                page.insert_text((x, row_tops[row_index] + 14 + k * _LEADING), line,
                                 fontsize=_SIZE)
    y = row_tops[-1] + 24
    for line in _BELOW:
        page.insert_text((72, y), line, fontsize=_SIZE)
        y += _LEADING


def _pdf(*, ruled: bool) -> bytes:
    doc = pymupdf.open()
    _draw_table(doc.new_page(), ruled=ruled)
    return doc.tobytes()


def _rotated_pdf() -> bytes:
    """The ruled table on a page with /Rotate 90 whose content is drawn turned,
    so it reads upright on screen (as a landscape table in a portrait file)."""
    source = pymupdf.open(stream=_pdf(ruled=True))
    doc = pymupdf.open()
    width, height = source[0].rect.width, source[0].rect.height
    page = doc.new_page(width=height, height=width)
    page.show_pdf_page(page.rect, source, 0, rotate=90)
    page.set_rotation(90)
    return doc.tobytes()


def _row_quote(row: tuple[str | tuple[str, ...], ...]) -> str:
    return " ".join(line for cell in row for line in _lines(cell))


@pytest.fixture(scope="module", params=["ruled", "unruled", "rotated"])
def table(request: pytest.FixtureRequest) -> tuple[bytes, ExtractedDocument]:
    data = {
        "ruled": lambda: _pdf(ruled=True),
        "unruled": lambda: _pdf(ruled=False),
        "rotated": _rotated_pdf,
    }[request.param]()
    doc = extract_pdf(data)
    assert doc.pages[0].rotation == (90 if request.param == "rotated" else 0)
    return data, doc


def _verified_range(doc: ExtractedDocument, quote: str) -> tuple[int, int]:
    report = verify_answer(f'The table says "{quote}" [S1].', {"S1": doc.text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome in {"verified", "verified-fuzzy"}, (citation.outcome, doc.text)
    assert citation.chunk_start is not None and citation.chunk_end is not None
    return citation.chunk_start, citation.chunk_end


def _word_boxes(data: bytes, text: str) -> list[pymupdf.Rect]:
    """Where PyMuPDF's own search finds ``text`` on the page as displayed."""
    page = pymupdf.open(stream=data)[0]
    return [rect * page.rotation_matrix for rect in page.search_for(text)]


def _covered(box: pymupdf.Rect, rects: list[list[float]]) -> bool:
    x, y = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    return any(r[0] <= x <= r[2] and r[1] <= y <= r[3] for r in rects)


def _located(doc: ExtractedDocument, start: int, end: int) -> list[list[float]]:
    return [r for page in locate(doc, start, end) for r in page["rects"]]


@pytest.mark.parametrize("row", range(len(_ROWS)))
def test_a_row_quote_verifies_and_highlights_its_cells_alone(
    table: tuple[bytes, ExtractedDocument], row: int
) -> None:
    data, doc = table
    quote = _row_quote(_ROWS[row])
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    rects = _located(doc, start, end)
    for cell in _ROWS[row]:
        for line in _lines(cell):
            (box,) = _word_boxes(data, line)
            assert _covered(box, rects), (line, rects)
    # The rows above and below and the header are not lit.
    for other in (_HEADER[0], *(r[0] for k, r in enumerate(_ROWS) if k != row)):
        for box in _word_boxes(data, str(other)):
            assert not _covered(box, rects), (other, rects)


@pytest.mark.parametrize("cell", [
    "2.5 mg twice daily", "150 mg twice daily after 5 days of heparin", "Rivaroxaban",
])
def test_a_cell_quote_verifies_and_highlights_that_cell(
    table: tuple[bytes, ExtractedDocument], cell: str
) -> None:
    data, doc = table
    start, end = _verified_range(doc, cell)
    rects = _located(doc, start, end)
    # A cell of two lines is found line by line.
    for part in cell.split(" after ") if "after" in cell else [cell]:
        for box in _word_boxes(data, part):
            assert _covered(box, rects), (part, rects)
    # Its row neighbours are not lit.
    row = next(r for r in _ROWS if cell in {_row_quote((c,)) for c in r})
    for other in row:
        if _row_quote((other,)) != cell:
            for line in _lines(other):
                for box in _word_boxes(data, line):
                    assert not _covered(box, rects), (line, rects)


def test_the_text_is_the_rows_in_order_and_the_prose_around_them_reads_on(
    table: tuple[bytes, ExtractedDocument],
) -> None:
    _, doc = table
    flat = " ".join(doc.text.split())
    expected = " ".join([
        *_ABOVE, " ".join(_HEADER), *(_row_quote(r) for r in _ROWS), *_BELOW,
    ])
    assert flat == expected


def test_every_character_keeps_its_own_box(table: tuple[bytes, ExtractedDocument]) -> None:
    # Inserted separators have no box; every other character has one, so the
    # table's regrouping moved whole lines and added nothing but separators.
    _, doc = table
    for index, char in enumerate(doc.text):
        box = doc.geometry.box(index)
        assert (box is None) == (char in "\n"), (index, char)
