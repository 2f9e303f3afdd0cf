"""A table reads by its rows: a quote of a row, or of one cell, verifies and
highlights exactly those cells (issue 23, item 3).

The fixtures draw their text column by column, as many table writers do, so
MuPDF's own order runs down the columns; the rows must come from the layout.
"""

from __future__ import annotations

import math
import random
from itertools import pairwise

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, locate
from reviewer.ingestion.layout import Line, block_of
from reviewer.ingestion.tables import (
    Rules,
    _cut_at_walls,
    _Fills,
    _frame,
    _frame_around,
    _free_grids,
    _joined,
    _paragraph,
    _Region,
    _text_rows,
    ruling_lines,
)
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


# A ruled grid whose cells hold paragraphs (MuPDF reads each as a block of
# prose), with the first column's cell merged over two rows, drawn column by
# column: only the rules tell its rows apart. The merged cell's text sits
# level with the second row, and goes with the first (pdfplumber's reading).
_GRID_COLUMNS = (60.0, 150.0, 250.0, 420.0, 560.0)  # the vertical rules
_GRID: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Property",), ("Type",), ("What Is Assessed?",), ("Review Considerations",)),
    (("Reliability",), ("Test-retest or", "inter-rater agreement"),
     ("Stability of scores over time", "when no change is expected in",
      "the concept of interest that", "the instrument is meant to measure"),
     ("Intraclass correlation", "coefficient")),
    ((), ("Internal consistency",),
     ("Extent to which the items of", "a scale measure the same", "concept as one another in",
      "every group of patients studied"),
     ("Cronbach alpha for", "summary scores")),
    (("Accuracy",), ("Content validity",),
     ("Evidence that the instrument", "measures the concept of interest",
      "including evidence from the", "qualitative studies of patients"),
     ("Derivation of all items",)),
)
_GRID_LEADING = 12.0
_GRID_CAPTION = "Table 2. Measurement properties considered in the review."
_GRID_AFTER = "Testing other properties will not replace this evidence."


def _grid_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=500)
    page.insert_text((60, 60), _GRID_CAPTION, fontsize=10)
    tops = [72.0]
    for row in _GRID:
        tops.append(tops[-1] + max(len(cell) for cell in row) * _GRID_LEADING + 3)
    left, right = _GRID_COLUMNS[0], _GRID_COLUMNS[-1]
    for k, edge in enumerate(tops):
        # Below the first row of a merged first-column cell the rule starts at column 2.
        start = _GRID_COLUMNS[1] if k == 2 else left
        page.draw_line((start, edge), (right, edge), width=0.5)
    for x in _GRID_COLUMNS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column in range(4):
        for row_index, row in enumerate(_GRID):
            for k, line in enumerate(row[column]):
                # Lines set tight: a line's box nearly touches the rule above.
                baseline = tops[row_index] + 10 + k * _GRID_LEADING
                if column == 0 and row_index == 1:
                    # The merged cell's text is centred on it: below the
                    # next row's top, where no rule crosses the first column.
                    baseline = tops[2] + 6
                page.insert_text((_GRID_COLUMNS[column] + 4, baseline), line, fontsize=10)
    page.insert_text((60, tops[-1] + 24), _GRID_AFTER, fontsize=10)
    return doc.tobytes()


def _grid_row_quote(row: tuple[tuple[str, ...], ...]) -> str:
    return " ".join(line for cell in row for line in cell)


@pytest.fixture(scope="module")
def grid() -> tuple[bytes, ExtractedDocument]:
    data = _grid_pdf()
    return data, extract_pdf(data)


@pytest.mark.parametrize("row", range(1, len(_GRID)))
def test_a_row_of_a_grid_whose_cells_hold_paragraphs_verifies_and_highlights_its_cells(
    grid: tuple[bytes, ExtractedDocument], row: int
) -> None:
    data, doc = grid
    quote = _grid_row_quote(_GRID[row])
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    rects = _located(doc, start, end)
    for cell in _GRID[row]:
        for line in cell:
            (box,) = _word_boxes(data, line)
            assert _covered(box, rects), (line, rects)
    # The other rows' first lines are not lit.
    for k, other in enumerate(_GRID):
        if k != row:
            for cell in other:
                for line in cell[:1]:
                    for box in _word_boxes(data, line):
                        assert not _covered(box, rects), (line, rects)


def test_a_grid_reads_row_by_row_and_keeps_every_character(
    grid: tuple[bytes, ExtractedDocument],
) -> None:
    _, doc = grid
    flat = " ".join(doc.text.split())
    rows = " ".join(_grid_row_quote(r) for r in _GRID)
    assert rows in flat
    # Only separators are added: a line break, or a space between two lines
    # on one baseline (a cell's text running up close to the next cell).
    for index, char in enumerate(doc.text):
        if doc.geometry.box(index) is None:
            assert char in "\n ", (index, char)
    assert sum(1 for c in doc.text if not c.isspace()) == sum(
        len("".join(line.split())) for row in _GRID for cell in row for line in cell
    ) + len("".join(_GRID_CAPTION.split())) + len("".join(_GRID_AFTER.split()))


# A sales-tax rate table: figures set closer than a word space, each in its
# column between vertical rules, rows closer than a line height, under
# headers whose rule is drawn block by block; a second block of states below.
_RATE_INCOME = (("$0", "$20,000"), ("20,000", "30,000"), ("30,000", "40,000"),
                ("40,000", "50,000"))
_RATE_FIGURES = (
    ("217", "256", "282", "206", "228", "242", "273", "304", "324"),
    ("329", "387", "426", "364", "403", "428", "461", "513", "547"),
    ("384", "451", "497", "449", "530", "558", "559", "623", "664"),
    ("431", "506", "556", "524", "581", "617", "644", "718", "766"),
)
_RATE_SECOND_BLOCK = 130.0


def _draw_rate_block(page: pymupdf.Page, top: float, states: tuple[str, ...],
                     figures: tuple[tuple[str, ...], ...]) -> None:
    size, pitch = 7.0, 7.2
    blocks = (100.0, 148.0, 196.0)
    figure_x = [102.0 + 16 * k for k in range(9)]
    left, right = 36.0, 244.0
    page.insert_text((40, top + 8), "Income", fontsize=size)
    for x in blocks:
        page.insert_text((x + 6, top + 8), "Exemptions", fontsize=size)
    for k, x in enumerate(figure_x):
        page.insert_text((x + 3, top + 16), str(k % 3 + 1), fontsize=size)
    # Two-line column heads ("At / least", "But less / than") beside the states.
    for x, upper, lower in ((40, "At", "least"), (66, "But less", "than")):
        page.insert_text((x, top + 16), upper, fontsize=size)
        page.insert_text((x, top + 24), lower, fontsize=size)
    for name, x in zip(states, blocks, strict=True):
        page.insert_text((x + 2, top + 24), name, fontsize=size)
    body = top + 27
    # Drawn column block by column block, none a third of the table's width.
    for x0, x1 in zip((left, 68.0, *blocks), (68.0, *blocks, right), strict=True):
        page.draw_line((x0, body), (x1, body), width=0.5)
    for x in (left, *[x - 2 for x in figure_x], right):
        page.draw_line((x, top), (x, body + pitch * len(figures) + 3), width=0.5)
    # The first row as one run of text, the others column by column, as the
    # table writer draws them: only the rule under the heads (drawn block by
    # block) separates the first row from the heads.
    page.insert_text((40, body + 7), " ".join((*_RATE_INCOME[0], *figures[0])), fontsize=size)
    for column in range(2):
        for r, row in enumerate(_RATE_INCOME[1:], 1):
            page.insert_text((40 + 26 * column, body + 7 + r * pitch), row[column], fontsize=size)
    for column, x in enumerate(figure_x):
        for r, row in enumerate(figures[1:], 1):
            page.insert_text((x, body + 7 + r * pitch), row[column], fontsize=size)


@pytest.fixture(scope="module")
def rate_table() -> tuple[bytes, ExtractedDocument]:
    doc = pymupdf.open()
    page = doc.new_page(width=400, height=300)
    _draw_rate_block(page, 60.0, ("Alabama", "Arizona", "Arkansas"), _RATE_FIGURES)
    _draw_rate_block(page, _RATE_SECOND_BLOCK, ("California", "Colorado", "Connecticut"),
                     tuple(tuple(str(int(f) + 1000) for f in row) for row in _RATE_FIGURES))
    data = doc.tobytes()
    return data, extract_pdf(data)


@pytest.mark.parametrize("row", range(len(_RATE_FIGURES)))
def test_a_rate_tables_row_of_figures_set_tight_between_rules_reads_across(
    rate_table: tuple[bytes, ExtractedDocument], row: int
) -> None:
    data, doc = rate_table
    quote = " ".join((*_RATE_INCOME[row], *_RATE_FIGURES[row]))
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    rects = _located(doc, start, end)

    def first_block(text: str) -> list[pymupdf.Rect]:
        return [box for box in _word_boxes(data, text) if box.y1 < _RATE_SECOND_BLOCK]

    for figure in _RATE_FIGURES[row]:
        assert any(_covered(box, rects) for box in first_block(figure)), (figure, rects)
    for other in (row - 1, row + 1):
        if 0 <= other < len(_RATE_FIGURES):
            for figure in _RATE_FIGURES[other]:
                assert not any(_covered(box, rects) for box in first_block(figure)), figure


def test_a_first_row_set_close_under_the_heads_is_no_next_line_of_them(
    rate_table: tuple[bytes, ExtractedDocument],
) -> None:
    # The first row of figures is one run of text right under the heads
    # (the rule between them too short to count: drawn block by block); its
    # first cell runs under two heads, so it is no next line of either.
    _, doc = rate_table
    start, end = _verified_range(doc, "least than Alabama Arizona Arkansas")
    assert "$0" not in doc.text[start:end]


# A table of costs with a note printed under it, from its second column: a
# line of prose, then a justified paragraph whose first line's words are set
# wide apart (like cells) and whose next line runs its full width.
_COSTS = (("A", "Loading charges", "3.00%"), ("B", "Management fees", "2.55%"),
          ("C", "Guarantee costs", "0.00%"), ("M", "Invested capital", "96.50%"))
_COST_COLUMNS = (72.0, 150.0, 330.0)
_NOTE = "The reference premium is ten thousand euro."
_JUSTIFIED = ("Warning:", "this", "table", "of", "costs", "shows")
_NOTE_LINES = ("an example built only from the costs that apply under",
               "every condition, as the prospectus sets out in its part C.")


def _noted_table_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    y = 100.0
    for row in _COSTS:
        for x, cell in zip(_COST_COLUMNS, row, strict=True):
            page.insert_text((x, y), cell, fontsize=_SIZE)
        y += 20
    x0 = _COST_COLUMNS[1]
    page.insert_text((x0, y + 4), _NOTE, fontsize=_SIZE)
    y += 4 + _LEADING
    right = x0 + pymupdf.get_text_length(_NOTE_LINES[0], fontsize=_SIZE)
    widths = [pymupdf.get_text_length(w, fontsize=_SIZE) for w in _JUSTIFIED]
    gap = (right - x0 - sum(widths)) / (len(_JUSTIFIED) - 1)
    x = x0
    for word, width in zip(_JUSTIFIED, widths, strict=True):
        page.insert_text((x, y), word, fontsize=_SIZE)
        x += width + gap
    for line in _NOTE_LINES:
        y += _LEADING
        page.insert_text((x0, y), line, fontsize=_SIZE)
    return doc.tobytes()


def test_a_note_under_a_table_is_no_row_of_it() -> None:
    data = _noted_table_pdf()
    doc = extract_pdf(data)
    last = " ".join(_COSTS[-1])
    start, end = _verified_range(doc, last)
    assert " ".join(doc.text[start:end].split()) == last
    note = " ".join((_NOTE, *_JUSTIFIED, *_NOTE_LINES))
    start, end = _verified_range(doc, note)
    assert " ".join(doc.text[start:end].split()) == note
    rects = _located(doc, start, end)
    for cell in _COSTS[-1][1:]:  # (a one-letter label is found inside words too)
        for box in _word_boxes(data, cell):
            assert not _covered(box, rects), (cell, rects)


# A ruled chart whose heads run over two lines, the second opening in lower
# case ("IF you live in / the state of..."), drawn column by column; a state
# whose localities run over two lines has its name set beside the second.
_CHART_HEADS = ((("IF you live in", "the state of..."), ("AND you live in...",),
                 ("THEN use", "Local Table...")))
_CHART = (("Alaska", "Any locality", "C"), ("Arizona", "Glendale, Mesa or Tucson", "A"),
          ("Arkansas", "Any locality", "B"), ("Georgia", "Any locality", "D"))
_CHART_LABELLED = ("Colorado", ("Adams County, Boulder County, Denver City/Denver",
                                "County, El Paso County, or any other locality"), "A")
_CHART_COLUMNS = (60.0, 140.0, 420.0)


def _chart_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((60, 70), "Which local sales tax table should you use?", fontsize=_SIZE)
    for x, head in zip(_CHART_COLUMNS, _CHART_HEADS, strict=True):
        for k, line in enumerate(head):
            # A one-line head sits on the heads' second line.
            page.insert_text((x, 100 + (k + 2 - len(head)) * 12), line, fontsize=_SIZE)
    # The labelled state between the third and fourth rows, a rule above each row.
    baselines = [130 + 18 * r for r in range(3)]
    labelled = baselines[-1] + 18
    baselines.append(labelled + 30)
    for y in (*baselines, labelled, baselines[-1] + 18):
        page.draw_line((56, y - 12), (500, y - 12), width=0.5)
    state, localities, table = _CHART_LABELLED
    for column, x in enumerate(_CHART_COLUMNS):
        for y, row in zip(baselines, _CHART, strict=True):
            page.insert_text((x, y), row[column], fontsize=_SIZE)
        if column == 0:
            page.insert_text((x, labelled + 12), state, fontsize=_SIZE)
        elif column == 1:
            for k, line in enumerate(localities):
                page.insert_text((x, labelled + 12 * k), line, fontsize=_SIZE)
        else:
            page.insert_text((x, labelled), table, fontsize=_SIZE)
    return doc.tobytes()


@pytest.fixture(scope="module")
def chart() -> ExtractedDocument:
    return extract_pdf(_chart_pdf())


@pytest.mark.parametrize("row", range(len(_CHART)))
def test_a_table_whose_heads_end_in_lower_case_reads_by_rows(
    chart: ExtractedDocument, row: int
) -> None:
    quote = " ".join(_CHART[row])
    start, end = _verified_range(chart, quote)
    assert " ".join(chart.text[start:end].split()) == quote


def test_heads_over_two_lines_read_as_one_row(chart: ExtractedDocument) -> None:
    quote = " ".join(line for head in _CHART_HEADS for line in head)
    start, end = _verified_range(chart, quote)
    assert " ".join(chart.text[start:end].split()) == quote


def test_a_label_set_beside_the_second_line_of_its_cells_reads_with_them(
    chart: ExtractedDocument,
) -> None:
    state, localities, table = _CHART_LABELLED
    quote = " ".join((state, *localities, table))
    start, end = _verified_range(chart, quote)
    assert " ".join(chart.text[start:end].split()) == quote


# The Italian prospectus's cost table: ruled cell by cell (each row's rule is
# one segment per column, none across much of the table) with a heading set
# across the columns between two rows, and the table's name in a column of
# its own to the left (so the heading does not start in the first column).
_SEGMENTED = (("G", "Costi delle coperture", "0,00%", "0,00%"),
              ("H", "Spese di emissione", "0,50%", "0,05%"),
              ("COMPONENTI DELL'INVESTIMENTO FINANZIARIO",),
              ("I", "Premio versato", "100,00%", "100,00%"),
              ("L", "Capitale Nominale", "99,50%", "99,50%"))
_SEGMENT_EDGES = (178.0, 279.0, 383.0, 472.0, 565.0)


def _segmented_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 80), "Costi applicati al premio, in percentuale del premio versato.",
                     fontsize=_SIZE)
    top = 100.0
    page.insert_text((72, top + 12), "TABELLA", fontsize=_SIZE)
    for row in _SEGMENTED:
        for x0, x1 in pairwise(_SEGMENT_EDGES):
            page.draw_line((x0, top), (x1, top), width=1.0)
        for x in (_SEGMENT_EDGES if len(row) > 1 else _SEGMENT_EDGES[::4]):
            page.draw_line((x, top), (x, top + 16), width=0.5)
        for x, cell in zip((187.0, 288.0, 416.0, 502.0), row, strict=False):
            page.insert_text((x, top + 12), cell, fontsize=_SIZE)
        top += 16
    for x0, x1 in pairwise(_SEGMENT_EDGES):
        page.draw_line((x0, top), (x1, top), width=1.0)
    return doc.tobytes()


def test_rules_drawn_cell_by_cell_keep_a_heading_between_rows_out_of_them() -> None:
    doc = extract_pdf(_segmented_pdf())
    for row in _SEGMENTED:
        quote = " ".join(("TABELLA", *row) if row[0] == "G" else row)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def _line(text: str, x0: float, advance: float = 5.0) -> Line:
    boxes: list[float] = []
    for k in range(len(text)):
        boxes += [x0 + k * advance, 100.0, x0 + (k + 1) * advance - 0.5, 110.0]
    return Line(text, boxes, boxes[0], 100.0, boxes[-2], 110.0, True)


def test_a_line_across_a_wall_between_two_words_is_cut_there_and_keeps_its_boxes() -> None:
    # "Halothane with Vaporiser Anaesthetics": the drug's and the category's
    # cells, which MuPDF read as one line; the wall stands in the space.
    line = _line("Halothane Anaesthetics", 100.0)
    wall = 100.0 + 9 * 5.0 + 2.5  # the middle of the space
    left, right = _cut_at_walls(line, [wall])
    assert (left.text, right.text) == ("Halothane", "Anaesthetics")
    assert left.boxes == line.boxes[: 4 * 9] and right.boxes == line.boxes[4 * 10 :]
    assert right.x0 == line.boxes[40] and left.x1 == line.boxes[4 * 8 + 2]


def test_a_wall_through_a_glyph_is_prose_over_the_grid_and_not_cut() -> None:
    line = _line("Halothane Anaesthetics", 100.0)
    assert _cut_at_walls(line, [100.0 + 4 * 5.0 + 2.0]) is None  # inside the "o"



# The rainfall table: ruled row by row, its heads on two lines above the
# first rule, a one-line head centred on both ("CAT."), and the first
# column's head on both lines ("S" over "NO"), which made the second line
# look like a row with its own first cell.
_RAIN_HEADS = (("S", "NO"), ("MET.", "SUBDIVISION"), ("ACTUAL", "(mm)"), ("NORMAL", "(mm)"),
               ("CAT.",))
_RAIN_ROWS = (("1", "ARUNACHAL PRADESH", "11.4", "18.4", "D"),
              ("2", "ASSAM", "17.9", "17.1", "N"),
              ("3", "MEGHALAYA", "7.2", "37.0", "LD"),
              ("4", "NAGALAND", "12.6", "15.5", "D"))
_RAIN_COLUMNS = (60.0, 90.0, 220.0, 300.0, 380.0)


def _rainfall_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((60, 60), "State-wise rainfall distribution, 1 June to 10 July.",
                     fontsize=_SIZE)
    top, head_height, row_height = 80.0, 30.0, 18.0
    edges = [top, top + head_height]
    edges += [edges[-1] + row_height * (k + 1) for k in range(len(_RAIN_ROWS))]
    for y in edges:
        page.draw_line((54, y), (430, y), width=0.6)
    for x in (54, *(c - 6 for c in _RAIN_COLUMNS[1:]), 430):
        page.draw_line((x, edges[0]), (x, edges[-1]), width=0.6)
    for x, head in zip(_RAIN_COLUMNS, _RAIN_HEADS, strict=True):
        if len(head) == 1:
            page.insert_text((x, top + 19), head[0], fontsize=9)
        else:
            page.insert_text((x, top + 13), head[0], fontsize=9)
            page.insert_text((x, top + 25), head[1], fontsize=9)
    for k, row in enumerate(_RAIN_ROWS):
        for x, cell in zip(_RAIN_COLUMNS, row, strict=True):
            page.insert_text((x, edges[k + 1] + 13), cell, fontsize=9)
    return doc.tobytes()


def test_heads_over_two_lines_above_the_first_rule_read_each_column_whole() -> None:
    doc = extract_pdf(_rainfall_pdf())
    heads = " ".join(" ".join(head) for head in _RAIN_HEADS)
    start, end = _verified_range(doc, heads)
    assert " ".join(doc.text[start:end].split()) == heads
    for row in _RAIN_ROWS:
        start, end = _verified_range(doc, " ".join(row))
        assert " ".join(doc.text[start:end].split()) == " ".join(row)


def test_a_wall_through_a_lines_first_or_last_glyph_is_not_cut() -> None:
    # A wide last glyph whose middle is left of the wall, a wide first one
    # whose middle is right of it: the wall crosses them, and nothing is cut.
    line = _line("AB", 100.0, advance=12.0)  # "A" 100-111.5, "B" 112-123.5
    assert _cut_at_walls(line, [119.0]) is None
    assert _cut_at_walls(line, [104.0]) is None


# The medicines list: a ruled grid of two columns, a medicine beside its
# forms, so no baseline holds three cells; each medicine's name is set midway
# down its band, level with none of its forms' lines, and the page is drawn
# column by column. A marker after a name is boxed (the box's sides are no
# walls), and a note under a name is boxed inside its cell (the box's top is
# no rule between rows).
_LIST_HEADS = ("Medicine", "Dosage forms and strengths")
_LIST: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("amoxicillin",), ("Capsule: 250 mg; 500 mg (as trihydrate).",
                        "Powder for oral liquid: 125 mg/5 mL.", "*For use in children only.")),
    (("chloroquine a",), ("Oral liquid: 50 mg/5 mL (as phosphate or sulfate).",
                          "Tablet: 100 mg; 150 mg (as phosphate or sulfate).", "a > 5 kg")),
    (("doxycycline",), ("Capsule: 100 mg (as hydrochloride or hyclate).",)),
    (("mifepristone with misoprostol", "Where permitted under national law."),
     ("Tablet 200 mg with tablet 200 micrograms.", "Co-package containing:",
      "mifepristone 200 mg tablet and misoprostol 200 micrograms tablet")),
)
_LIST_WALLS = (36.0, 260.0, 560.0)
_LIST_LEADING = 14.0


def _list_pdf(*, border: bool = False) -> bytes:
    """The list; ``border``: on a short page framed by a border, a line of
    prose under the table (the border closes around the table's walls,
    which run down most of it, but it is no grid)."""
    doc = pymupdf.open()
    page = doc.new_page(height=400 if border else 792)
    page.insert_text((36, 40), "Table 3. Antimalarial medicines and their dosage forms.",
                     fontsize=10)
    tops = [50.0]
    for row in ((("x",), ("x",)), *_LIST):
        tops.append(tops[-1] + max(len(row[1]), 2 * len(row[0])) * _LIST_LEADING + 8)
    for y in tops:
        page.draw_line((_LIST_WALLS[0], y), (_LIST_WALLS[-1], y), width=0.5)
    for x in _LIST_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    left = 42.0
    right = _LIST_WALLS[1] + 6
    page.insert_text((left, tops[0] + 14), _LIST_HEADS[0], fontsize=10)
    page.insert_text((right, tops[0] + 14), _LIST_HEADS[1], fontsize=10)
    # The forms column first, then the medicines: MuPDF's order runs down them.
    for k, (_name, forms) in enumerate(_LIST, 1):
        for j, line in enumerate(forms):
            page.insert_text((right, tops[k] + 14 + j * _LIST_LEADING), line, fontsize=10)
    for k, (name, _forms) in enumerate(_LIST, 1):
        middle = (tops[k] + tops[k + 1]) / 2
        baseline = middle + 4 - (len(name) - 1) * _LIST_LEADING
        page.insert_text((left, baseline), name[0], fontsize=10)
        if name[0].endswith(" a"):
            x = left + pymupdf.get_text_length(name[0][:-1], fontsize=10)
            page.draw_rect((x - 1, baseline - 8, x + 6, baseline + 2), width=0.5)
        for j, note in enumerate(name[1:], 1):
            y = baseline + 2 * j * _LIST_LEADING
            page.insert_text((left + 12, y), note, fontsize=10)
            page.draw_rect((left + 6, y - 11, _LIST_WALLS[1] - 8, y + 4), width=0.5)
    if border:
        page.insert_text((36, tops[-1] + 20), "Medicines on the complementary list follow.",
                         fontsize=10)
        page.draw_rect((20, 20, 592, 380), width=0.5)
    return doc.tobytes()


@pytest.mark.parametrize("border", [False, True])
@pytest.mark.parametrize("row", range(len(_LIST)))
def test_a_ruled_grid_of_two_columns_reads_a_medicine_beside_its_forms(
    row: int, border: bool
) -> None:
    data = _list_pdf(border=border)
    doc = extract_pdf(data)
    name, forms = _LIST[row]
    quote = " ".join((*name, *forms))
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    rects = _located(doc, start, end)
    for line in forms:
        (box,) = _word_boxes(data, line)
        assert _covered(box, rects), (line, rects)
    heads = " ".join(_LIST_HEADS)
    start, end = _verified_range(doc, heads)
    assert " ".join(doc.text[start:end].split()) == heads


# Blood pressure targets: a ruled grid of three columns whose first cells
# hold bulleted paragraphs (set aside as prose before any row of cells is
# sought, so no three rows of cells are left to find the table by), its heads
# small and the middle one over three lines, a link underlined in the last
# column (its underline ends inside the cell: no rule between rows).
_TARGET_HEADS = (("Person under 80 with:",), ("Clinic blood", "pressure", "target"), ("Source",))
_TARGETS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("- hypertension (with or without type 2", "diabetes) or type 1 diabetes plus",
      "albumin to creatinine ratio less than", "70 mg/mmol"),
     ("Below", "140/90"),
     ("Recommendation 1.4.20", "guideline on chronic kidney", "disease (recommendation 1.6.1)")),
    (("- chronic kidney disease plus albumin", "to creatinine ratio of 70 mg/mmol or",
      "more, whatever the age at which the", "disease was diagnosed"),
     ("Below", "130/80"),
     ("guideline on type 1 diabetes", "in adults (recommendation 1.13.8)")),
)
_TARGET_WALLS = (40.0, 280.0, 342.0, 548.0)


def _targets_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 80), "Table 1: Clinic blood pressure targets for people aged under 80",
                     fontsize=11)
    tops = [97.0, 131.0]
    for row in _TARGETS:
        tops.append(tops[-1] + max(len(cell) for cell in row) * 18 + 20)
    for y in tops:
        page.draw_line((_TARGET_WALLS[0], y), (_TARGET_WALLS[-1], y), width=0.5)
    for x in _TARGET_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(_TARGET_WALLS[:-1]):
        head = _TARGET_HEADS[column]
        for k, line in enumerate(head):
            page.insert_text((x + 2, tops[0] + 20 - 5 * (len(head) - 1) + k * 10), line,
                             fontsize=7)
        for r, row in enumerate(_TARGETS):
            cell = row[column]
            first = (tops[r + 1] + tops[r + 2]) / 2 - 9 * (len(cell) - 1) + 4
            for k, line in enumerate(cell):
                at = (x + 6, first + k * 18)
                page.insert_text(at, line, fontsize=11)
                if line.startswith("guideline"):
                    width = pymupdf.get_text_length(line, fontsize=11)
                    page.draw_line((at[0], at[1] + 2), (at[0] + width, at[1] + 2), width=0.5)
    return doc.tobytes()


@pytest.fixture(scope="module")
def targets() -> tuple[bytes, ExtractedDocument]:
    data = _targets_pdf()
    return data, extract_pdf(data)


@pytest.mark.parametrize("row", range(-1, len(_TARGETS)))
def test_a_grid_whose_cells_hold_bulleted_paragraphs_reads_by_its_rows(
    targets: tuple[bytes, ExtractedDocument], row: int
) -> None:
    data, doc = targets
    cells = _TARGET_HEADS if row < 0 else _TARGETS[row]
    quote = " ".join(line for cell in cells for line in cell)
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    rects = _located(doc, start, end)
    for cell in cells:
        for line in cell:  # (some lines are printed twice: one of them lit)
            assert any(_covered(box, rects) for box in _word_boxes(data, line)), (line, rects)


# A clinical study's table, ruled cell by cell: its heads run over three
# lines, the first holding two heads of the three (the first column's head is
# set on the middle line), so the table found from its rows of cells starts
# at the heads' second line; the first line is the heads' too, up to the
# table's top rule. Its caption, set close above the rule, is not.
_STUDY_CAPTION = "Table 6: Prospective, Open-Label Clinical Study of Warfarin"
_STUDY_HEADS = (("Event",), ("Moderate Warfarin", "Therapy", "INR 2.65"),
                ("High Intensity", "Warfarin Therapy", "INR 9.0"))
_STUDY = (("Thromboembolism", "4.0/100 py", "3.7/100 py"),
          ("Major Bleeding", "0.95/100 py", "2.1/100 py"),
          ("Death", "1.1/100 py", "1.3/100 py"))
_STUDY_WALLS = (41.0, 176.0, 308.0, 438.0)


def _study_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((60, 72), _STUDY_CAPTION, fontsize=11)
    tops = [80.0, 125.0]
    tops += [tops[-1] + 16 * (k + 1) for k in range(len(_STUDY))]
    for y in tops:
        for x0, x1 in pairwise(_STUDY_WALLS):
            page.draw_line((x0, y), (x1, y), width=0.5)
    for x in _STUDY_WALLS:
        for y0, y1 in pairwise(tops):
            page.draw_line((x, y0), (x, y1), width=0.5)
    for column, x in enumerate(_STUDY_WALLS[:-1]):
        head = _STUDY_HEADS[column]
        for k, line in enumerate(head):
            # One line set on the middle line, three from the top.
            page.insert_text((x + 4, 106 + 14 * (k - (len(head) == 3))), line, fontsize=11)
        for r, row in enumerate(_STUDY):
            page.insert_text((x + 4, tops[r + 1] + 12), row[column], fontsize=11)
    return doc.tobytes()


def test_heads_over_three_lines_under_a_ruled_tables_top_rule_read_as_its_first_row() -> None:
    doc = extract_pdf(_study_pdf())
    heads = " ".join(line for head in _STUDY_HEADS for line in head)
    start, end = _verified_range(doc, heads)
    assert " ".join(doc.text[start:end].split()) == heads
    assert _STUDY_CAPTION not in " ".join(doc.text[start:end].split())
    for column in (1, 2):
        cell = " ".join(_STUDY_HEADS[column])
        start, end = _verified_range(doc, cell)
        assert " ".join(doc.text[start:end].split()) == cell
    for row in _STUDY:
        start, end = _verified_range(doc, " ".join(row))
        assert " ".join(doc.text[start:end].split()) == " ".join(row)
    assert _STUDY_CAPTION in " ".join(doc.text.split())


# A table of counts whose rules frame it and part its groups, not its rows:
# a band holds several rows, each a label and its count on one baseline
# (the naacl paper's Table 2). Each line across is a row, as a reader sees it.
_COUNTS = ((("Source articles", "28,009"),),
           (("Basic clusters", "5,543"), ("Basic patterns (token)", "643,767"),
            ("Basic patterns (type)", "7,990")),
           (("Metaclusters", "302"), ("Metaclusters (rows 3 or more)", "101")))


def _counts_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 60), "Table 2: Articles and obtained metaclusters.", fontsize=10)
    tops = [70.0]
    for group in _COUNTS:
        tops.append(tops[-1] + 14 * len(group) + 4)
    for y in tops:
        page.draw_line((70, y), (300, y), width=0.5)
    for x in (70, 220, 300):
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in ((0, 74.0), (1, 250.0)):  # the labels, then the counts
        for top, group in zip(tops, _COUNTS, strict=False):
            for k, row in enumerate(group):
                page.insert_text((x, top + 13 + 14 * k), row[column], fontsize=10)
    return doc.tobytes()


def test_rows_stacked_in_one_band_of_a_framed_table_read_one_by_one() -> None:
    doc = extract_pdf(_counts_pdf())
    for group in _COUNTS:
        for row in group:
            start, end = _verified_range(doc, " ".join(row))
            assert " ".join(doc.text[start:end].split()) == " ".join(row)


# An outbreak report exported from a word processor: every line of a head
# is shaded by a rectangle of its own, blank lines too, so the shading's
# edges run from side to side of each cell, and across the wide comments
# cell (its head one line over two shaded ones), more than a third of the
# table; the heads are one row all the same. Every cell below holds a
# paragraph (so only the grid of rules makes the rows).
_OUTBREAK_HEADS = (("Name of the", "State or Union Territory"), ("Disease or", "Illness reported"),
                   ("Comments and action taken", ""))
_OUTBREAK = ((("Kerala, in the district", "of Kollam and the block", "of Oachira nearby"),
              ("Food poisoning after", "a meal shared on an", "excursion by the cases"),
              ("Cases reported from Ward no III, PHC", "Puram. The district team investigated",
               "the outbreak and treated the cases.")),
             (("Maharashtra, in the district", "of Beed and the block", "of Ashti around it"),
              ("Dengue and chikungunya", "confirmed in the five", "serum samples taken"),
              ("Cases of fever reported from Village", "Golharwasti. Serum samples collected",
               "were positive for Dengue in the end.")))
_OUTBREAK_WALLS = (36.0, 150.0, 266.0, 480.0)


def _outbreak_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    tops = [60.0, 92.0]
    tops += [tops[-1] + 50 * (k + 1) for k in range(len(_OUTBREAK))]
    for column, (x0, x1) in enumerate(pairwise(_OUTBREAK_WALLS)):
        for k, line in enumerate(_OUTBREAK_HEADS[column]):
            shade = pymupdf.Rect(x0 + 4, tops[0] + 3 + 12 * k, x1 - 4, tops[0] + 15 + 12 * k)
            page.draw_rect(shade, color=None, fill=(0.8, 1, 1))
            if line:
                page.insert_text((x0 + 6, shade.y1 - 3), line, fontsize=9)
    for y in tops:
        page.draw_line((_OUTBREAK_WALLS[0], y), (_OUTBREAK_WALLS[-1], y), width=0.5)
    for x in _OUTBREAK_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(_OUTBREAK_WALLS[:-1]):
        for r, row in enumerate(_OUTBREAK):
            for k, line in enumerate(row[column]):
                page.insert_text((x + 6, tops[r + 1] + 14 + 12 * k), line, fontsize=9)
    return doc.tobytes()


def test_heads_shaded_line_by_line_read_as_one_row() -> None:
    doc = extract_pdf(_outbreak_pdf())
    for row in (_OUTBREAK_HEADS, *_OUTBREAK):
        quote = " ".join(line for cell in row for line in cell if line)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def _broken_walls_pdf() -> bytes:
    """The grid of :func:`_grid_pdf`, its walls drawn as NICE's summaries
    draw them (outside batch 3): in pieces that meet with a hairline break
    (0.5 pt), one break level with the middle of a line of the third column."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=500)
    page.insert_text((60, 60), _GRID_CAPTION, fontsize=10)
    tops = [72.0]
    for row in _GRID:
        tops.append(tops[-1] + max(len(cell) for cell in row) * _GRID_LEADING + 3)
    for column in range(4):
        for row_index, row in enumerate(_GRID):
            for k, line in enumerate(row[column]):
                baseline = tops[row_index] + 10 + k * _GRID_LEADING
                if column == 0 and row_index == 1:
                    baseline = tops[2] + 6
                page.insert_text((_GRID_COLUMNS[column] + 4, baseline), line, fontsize=10)
    page.insert_text((60, tops[-1] + 24), _GRID_AFTER, fontsize=10)
    # Where the break goes: the middle of "concept as one another in".
    (middle,) = [
        (line["bbox"][1] + line["bbox"][3]) / 2
        for block in page.get_text("dict")["blocks"] for line in block.get("lines", [])
        if "".join(span["text"] for span in line["spans"]) == "concept as one another in"
    ]
    left, right = _GRID_COLUMNS[0], _GRID_COLUMNS[-1]
    for k, edge in enumerate(tops):
        start = _GRID_COLUMNS[1] if k == 2 else left
        page.draw_line((start, edge), (right, edge), width=0.5)
    for x in _GRID_COLUMNS:
        page.draw_line((x, tops[0]), (x, middle - 0.25), width=0.5)
        page.draw_line((x, middle + 0.25), (x, tops[-1]), width=0.5)
    return doc.tobytes()


def test_a_line_level_with_a_hairline_break_in_the_walls_stays_in_its_cell() -> None:
    # Before: the line, its walls broken at its middle, had no wall to its
    # left and went to the first column's cell, read before the row's
    # other cells ("Internal consistency / concept as one another in /
    # Extent to which...").
    data = _broken_walls_pdf()
    doc = extract_pdf(data)
    for row in _GRID[1:]:
        quote = _grid_row_quote(row)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A word processor's two-column grid (the NHS advice's "Type | Adverse
# effect"): every border a thin filled rectangle, a wall drawn cell by cell,
# its joint at each row's rule a piece of its own, 2.8 pt tall, too short
# to read as a rule. The cells are drawn column by column, so MuPDF reads
# the first column's cells before the second's.
_ADVERSE_HEADS = (("Type",), ("What the patient may notice",))
_ADVERSE = ((("At usual", "doses"),
             ("Most common adverse effects are thrush, back pain, dizziness and a",
              "rash that settles within weeks.")),
            (("Longer term", "outcomes"),
             ("Common: infections of the urinary tract, rash and back pain.",
              "Uncommon: loss of fluid volume after a fall in blood pressure.",
              "Rare: ketoacidosis in patients who also take insulin.")))
_ADVERSE_WALLS = (43.0, 149.0, 566.0)
_JOINT = 2.8


def _adverse_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    tops = [80.0, 99.0]
    for row in _ADVERSE:
        tops.append(tops[-1] + 14 * max(len(cell) for cell in row) + 6)
    black = {"color": None, "fill": (0, 0, 0)}
    for k, y in enumerate(tops):
        for x0, x1 in pairwise(_ADVERSE_WALLS):
            page.draw_rect(pymupdf.Rect(x0 + 0.5, y, x1 - 0.5, y + 0.45), **black)
        for x in _ADVERSE_WALLS:
            # The joint, then the wall down to the next rule's joint.
            page.draw_rect(pymupdf.Rect(x - 0.25, y, x + 0.25, y + _JOINT), **black)
            if k + 1 < len(tops):
                page.draw_rect(pymupdf.Rect(x - 0.25, y + _JOINT, x + 0.25, tops[k + 1]), **black)
    for column, x in enumerate(_ADVERSE_WALLS[:-1]):
        for r, row in enumerate((_ADVERSE_HEADS, *_ADVERSE)):
            for k, line in enumerate(row[column]):
                page.insert_text((x + 4, tops[r] + 14 + 14 * k), line, fontsize=10)
    return doc.tobytes()


def test_a_grid_whose_walls_are_drawn_with_joints_of_their_own_reads_by_rows() -> None:
    # Before: the joints were too short to count, each band's walls stood
    # alone, and no closed grid of three bands was found (each row's first
    # cell read before either row's second).
    data = _adverse_pdf()
    doc = extract_pdf(data)
    for row in (_ADVERSE_HEADS, *_ADVERSE):
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote
        rects = _located(doc, start, end)
        for cell in row:
            for line in cell:
                (box,) = _word_boxes(data, line)
                assert _covered(box, rects), (line, rects)


# An adverse-reaction table whose columns are headed in stacked lines (the
# remdesivir label's "VEKLURY / 5 Days / N=200 / n (%)"), its corner head set
# lower, level with the second line. A reader quotes the heads row cell by
# cell, each head's lines top to bottom; so does pdfplumber. Two ways the
# heads fell apart: four lines above the rule under the heads (more than the
# three a heads band reads), and the rule set close under the last head line,
# inside that line's box (a font with a tall line gap: its boxes stand well
# clear of the glyphs).
_STACKED_CORNER = "Kinds of adverse reactions"
_STACKED_HEADS = {
    "four lines": (("Study drug", "5 days", "N=120", "n (%)"),
                   ("Study drug", "10 days", "N=118", "n (%)")),
    "rule in the box": (("Study drug", "N=240", "n (%)"), ("Placebo", "N=236", "n (%)")),
}
_STACKED_ROWS = (("Any adverse reaction, all grades", "21 (18%)", "25 (21%)"),
                 ("Serious adverse reactions", "3 (2%)", "4 (3%)"),
                 ("Reactions leading to withdrawal", "5 (4%)", "9 (8%)"))
_STACKED_WALLS = (36.0, 311.0, 441.0, 576.0)


def _stacked_heads_pdf(heads: tuple[tuple[str, ...], ...], rule_under: float) -> bytes:
    """The table; ``rule_under``: how far under the last head line's baseline
    the rule below the heads runs."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=500)
    leading = 14.0
    top = 60.0
    baselines = [top + 13 + leading * k for k in range(len(heads[0]))]
    tops = [top, baselines[-1] + rule_under]
    tops += [tops[-1] + 26 * (k + 1) for k in range(len(_STACKED_ROWS))]
    for y in tops:
        page.draw_line((_STACKED_WALLS[0], y), (_STACKED_WALLS[-1], y), width=0.5)
    for x in _STACKED_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(_STACKED_WALLS[:-1]):
        if column == 0:
            # The corner head, a little under the second head line.
            page.insert_text((x + 6, baselines[1] + 4), _STACKED_CORNER, fontsize=11)
        else:
            for k, line in enumerate(heads[column - 1]):
                page.insert_text((x + 20, baselines[k]), line, fontsize=11)
        for r, row in enumerate(_STACKED_ROWS):
            page.insert_text((x + 6, tops[r + 1] + 17), row[column], fontsize=11)
    return doc.tobytes()


@pytest.mark.parametrize(("heads", "rule_under"), [("four lines", 8.0), ("rule in the box", 0.6)])
def test_heads_stacked_over_a_lower_corner_head_read_as_one_row(
    heads: str, rule_under: float
) -> None:
    # Before: "Study drug / Study drug" read on its own above the table
    # ("four lines"), or the heads and the first row read as one row ("rule
    # in the box").
    columns = _STACKED_HEADS[heads]
    data = _stacked_heads_pdf(columns, rule_under)
    doc = extract_pdf(data)
    quote = " ".join((_STACKED_CORNER, *(line for column in columns for line in column)))
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    for row in _STACKED_ROWS:
        start, end = _verified_range(doc, " ".join(row))
        assert " ".join(doc.text[start:end].split()) == " ".join(row)
        rects = _located(doc, start, end)
        for cell in row:
            (box,) = _word_boxes(data, cell)
            assert _covered(box, rects), (cell, rects)


# The remdesivir label's dilution table: its heads set bottom-aligned over
# five lines, the first line of cells opening in lower case under the line
# above ("chloride | Volume to be withdrawn" over "infusion bag | and
# discarded from | ..."), so that line is taken as the heads' first; the
# line above it ("Sodium"), under the table's top rule, is the heads' too.
_DILUTION_HEADS = (("Dose",), ("Sodium", "chloride", "infusion bag", "volume to be", "used"),
                   ("Volume to be withdrawn", "and discarded from", "the sodium chloride",
                    "infusion bag"),
                   ("Required volume of", "reconstituted drug", "for injection"))
_DILUTION = (("Loading dose", "250 mL", "40 mL", "40 mL"),
             ("Maintenance dose", "100 mL", "20 mL", "20 mL"),
             ("Second dose", "100 mL", "10 mL", "10 mL"))
_DILUTION_WALLS = (36.0, 150.0, 260.0, 420.0, 576.0)


def _dilution_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=500)
    leading, lines = 14.0, 5
    tops = [60.0, 60.0 + leading * lines + 8]
    tops += [tops[-1] + 24 * (k + 1) for k in range(len(_DILUTION))]
    for y in tops:
        page.draw_line((_DILUTION_WALLS[0], y), (_DILUTION_WALLS[-1], y), width=0.5)
    for x in _DILUTION_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(_DILUTION_WALLS[:-1]):
        head = _DILUTION_HEADS[column]
        for k, line in enumerate(head):
            # Bottom-aligned: the last line of every head on the band's last line.
            page.insert_text((x + 6, tops[0] + 14 + leading * (lines - len(head) + k)), line,
                             fontsize=11)
        for r, row in enumerate(_DILUTION):
            page.insert_text((x + 6, tops[r + 1] + 16), row[column], fontsize=11)
    return doc.tobytes()


def test_heads_whose_first_line_of_cells_opens_in_lower_case_read_whole_up_to_the_top_rule(
) -> None:
    # Before: the heads' top line ("Sodium") read on its own above the table.
    doc = extract_pdf(_dilution_pdf())
    quote = " ".join(line for head in _DILUTION_HEADS for line in head)
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    for row in _DILUTION:
        start, end = _verified_range(doc, " ".join(row))
        assert " ".join(doc.text[start:end].split()) == " ".join(row)


# A ruled table whose last row's first cell wraps under the row's figures
# (the remdesivir label's "Adverse reactions leading to treatment /
# discontinuation", its figures set a little under the first line):
# the wrapped line, in the first column under the table's last row of
# cells, is that cell's next line, up to the table's bottom rule.
_WRAPPED_LAST = (("Kinds of adverse reactions", "Study drug", "Placebo"),
                 ("Adverse reactions, all grades", "41 (8%)", "46 (9%)"),
                 ("Serious adverse reactions", "2 (0.4%)", "3 (0.6%)"),
                 (("Adverse reactions leading to treatment", "discontinuation"), "11 (2%)",
                  "15 (3%)"))


def _wrapped_last_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    walls = (36.0, 311.0, 441.0, 576.0)
    tops = [60.0, 86.0, 112.0, 138.0, 178.0]
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(walls[:-1]):
        for r, row in enumerate(_WRAPPED_LAST):
            cell = row[column]
            if isinstance(cell, tuple):
                for k, line in enumerate(cell):
                    page.insert_text((x + 6, tops[r] + 16 + 12 * k), line, fontsize=11)
            elif r == len(_WRAPPED_LAST) - 1:
                # A little under the first line, on its baseline's row.
                page.insert_text((x + 6, tops[r] + 20), cell, fontsize=11)
            else:
                page.insert_text((x + 6, tops[r] + 17), cell, fontsize=11)
    page.insert_text((36, tops[-1] + 20), "a. Seizure in one patient, a rash in another.",
                     fontsize=10)
    return doc.tobytes()


def test_a_last_rows_first_cell_wrapped_under_its_figures_reads_with_its_row() -> None:
    # Before: "discontinuation" read after the table, on its own.
    doc = extract_pdf(_wrapped_last_pdf())
    for row in _WRAPPED_LAST:
        quote = " ".join(line for cell in row for line in _lines(cell))
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A ruled table whose rows wrap in several cells at once: each row's second
# printed line holds its first cell's next line beside the other cells' next
# lines (an opioid chart's "Morphine (immediate-release / tablets, oral
# solution)"), on a landscape page stored turned (/Rotate 90), its walls thin
# filled rectangles, as that chart is drawn.
_WRAPPED_ROWS = (("Opioid", "Oral dose", "Interval", "Notes"),
                 (("Morphine (immediate-release", "tablets, oral solution)"), "30 mg",
                  ("3-4 mg", "q 4 h"), ("See", "footnote b.")),
                 (("Extended-release hydromorphone", "(Exalgo, Jurnista)"), "7.5 mg",
                  ("8 mg", "q 24 h"), ("Not for", "opioid-naive patients.")),
                 ("Oxycodone", "20 mg", "5 mg", "Titrate slowly."))


def _wrapped_rows_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.set_rotation(90)
    upright = page.derotation_matrix  # drawn as the page is displayed
    walls = (36.0, 236.0, 316.0, 416.0, 756.0)
    tops = (60.0, 84.0, 116.0, 148.0, 172.0)

    def wall(a: tuple[float, float], b: tuple[float, float]) -> None:
        rect = pymupdf.Rect(pymupdf.Point(a) * upright, pymupdf.Point(b) * upright)
        rect.normalize()
        page.draw_rect(pymupdf.Rect(rect.x0 - 0.25, rect.y0 - 0.25, rect.x1 + 0.25, rect.y1 + 0.25),
                       color=None, fill=(0, 0, 0))

    for y in tops:
        wall((walls[0], y), (walls[-1], y))
    for x in walls:
        wall((x, tops[0]), (x, tops[-1]))
    for r, row in enumerate(_WRAPPED_ROWS):
        for column, cell in enumerate(row):
            for k, line in enumerate(_lines(cell)):
                at = pymupdf.Point(walls[column] + 6, tops[r] + 16 + 12 * k) * upright
                page.insert_text(at, line, fontsize=10, rotate=page.rotation)
    return doc.tobytes()


def test_a_ruled_rows_second_line_across_its_cells_continues_the_row() -> None:
    # Before: each row's second line started a row of its own, so the row
    # read "Morphine (immediate-release 30 mg 3-4 mg See tablets, oral
    # solution) q 4 h footnote b.".
    doc = extract_pdf(_wrapped_rows_pdf())
    for row in _WRAPPED_ROWS:
        quote = " ".join(line for cell in row for line in _lines(cell))
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A fee schedule in a box drawn round an appendix (its heading and the
# table), the box's left side a hair (0.3 pt) left of the table's left
# border, its right side a hair right of the table's: a grid whose cells hold
# paragraphs, read by its rules. Chaining the border's pieces within a rule's
# slack took the box's side as the table's border, a frame with no column
# reaching its top or bottom rule, and the frame then found began at the
# first wall: the numbers' column read down on its own.
_FEE_HEADS = (("No.",), ("Service",), ("Fee", "in euro"))
_FEES: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("1",), ("Copies of documents, each page in",
              "A4 format, also when they are sent",
              "to the applicant by post"), ("0.10",)),
    (("2",), ("Inspection of files at the authority,",
              "with the preparation it needs, also",
              "when a few copies are handed over"), ("15 to 500",)),
    (("3",), ("Publications under section 11 of",
              "the freedom of information act",
              "and its rules of procedure"), ("free",)),
    (("4",), ("Rejection of an objection in whole",
              "or in part, at most the fee for the",
              "act objected to, at least 30 euro"), ("up to 500",)),
)
_FEE_WALLS = (42.6, 59.3, 220.8, 285.7)


def _fees_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=595)
    # The appendix's box, its sides 0.3 pt outside the table's borders.
    page.draw_rect((_FEE_WALLS[0] - 0.3, 48.0, _FEE_WALLS[-1] + 0.3, 560.0), width=0.4)
    page.insert_text((120, 80), "Schedule of fees and expenses", fontsize=11)
    page.insert_text((150, 100), "Part A: Fees", fontsize=11)
    leading = 11.0
    tops = [133.0, 133.0 + 2 * leading + 8]
    tops += [tops[-1] + (len(row[1]) * leading + 8) * (k + 1) for k, row in enumerate(_FEES)]
    for y in tops:
        page.draw_line((_FEE_WALLS[0], y), (_FEE_WALLS[-1], y), width=0.4)
    for x in _FEE_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.4)
    # Column by column: MuPDF's order runs down them.
    for column, x in enumerate(_FEE_WALLS[:-1]):
        for r, row in enumerate((_FEE_HEADS, *_FEES)):
            for k, line in enumerate(row[column]):
                page.insert_text((x + 2.5, tops[r] + 10 + k * leading), line, fontsize=9)
    return doc.tobytes()


def test_a_grid_framed_a_hair_inside_a_box_reads_its_first_column_with_its_rows() -> None:
    # Before: "1 2 3 4" read down the numbers' column apart from the rows,
    # so a row quoted with its number was caught as adding it.
    doc = extract_pdf(_fees_pdf())
    for row in _FEES:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def test_a_table_found_from_its_text_takes_its_own_frame_inside_a_box_a_hair_beside_it() -> None:
    # The same box round the table, seen from a table found from its text
    # (rows of short cells): its frame, read by its rules when a cell holds
    # a paragraph, is the table's own. Before: none closed with columns.
    left, right, top, bottom = _FEE_WALLS[0], _FEE_WALLS[-1], 95.0, 300.0
    vertical = [(48.0, 560.0, left - 0.3), (48.0, 560.0, right + 0.3)]
    vertical += [(top, bottom, x) for x in _FEE_WALLS]
    horizontal = [(left - 0.3, right + 0.3, 48.0), (left - 0.3, right + 0.3, 560.0)]
    horizontal += [(left, right, y) for y in (top, 120.0, 150.0, 180.0, bottom)]
    rows = _text_rows([_line("1", 45.0), _line("Copies", 62.0), _line("0.10", 224.0)])
    region = _Region()
    region.add(rows[0])
    assert _frame(region, Rules(horizontal, vertical)) == (left, top, right, bottom)


def test_a_border_drawn_doubled_over_a_tables_first_rows_frames_the_whole_table() -> None:
    # NICE's grids: each cell's rectangle drawn a hair (0.24 pt) off the
    # border, over the first rows only; a merged row across the foot, so the
    # walls stop above it; a shaded head's edge inside the right border.
    # The border's own-x chain (the first rows) is for a box round the table
    # only: here no frame from the text's first row (the whole table is read
    # around its lines, whose frame reaches the right border). Before: the
    # first rows alone, without the last column, were taken for the table.
    vertical = [(50.0, 150.0, 40.0), (150.5, 400.0, 40.0), (50.0, 150.0, 40.24),
                (50.0, 300.0, 200.0), (50.0, 300.0, 360.0), (50.0, 150.0, 480.0),
                (50.0, 400.0, 520.0)]
    horizontal = [(40.0, 520.0, y) for y in (50.0, 150.0, 200.0, 300.0, 400.0)]
    rules = Rules(horizontal, vertical)
    rows = _text_rows([_line("Infection", 45.0), _line("Medicine", 205.0), _line("Doses", 365.0)])
    region = _Region()
    region.add(rows[0])
    assert _frame(region, rules) is None
    assert _frame_around(rows[0].pieces[0].lines[0], rules, {}) == (40.0, 50.0, 520.0, 400.0)


# Decisions on first applications: a ruled table of narrow columns whose
# heads (bottom-aligned, five lines) nearly fill them, so the heads' first
# line ("Recognition | Protection of | Deportation | Deportation") stands less
# than a line height apart and reads as one piece of prose; the second line
# ("as entitled | refugees | ...") was taken as the heads' first, the table
# opening in lower case on the third ("to asylum | under sec- | ...").
_DECISION_HEADS = ((), ("total",),
                   ("Recognition", "as entitled", "to asylum", "(Art. 16a)", "granted"),
                   ("Protection of", "refugees", "under sec-", "tion 60 (1)", "granted"),
                   ("Deportation", "ban under", "section 60", "(2) to (7)", "found"),
                   ("Deportation", "ban under", "section 60", "(5) and (7)", "found"))
_DECISIONS = (("Afghanistan", "37", "2", "17", "2", "5"),
              ("Somalia", "4", "1", "3", "1", "2"),
              ("Syria", "46", "1", "20", "24", "1"),
              ("Eritrea", "15", "3", "7", "2", "3"))
_DECISION_WALLS = (40.0, 150.0, 200.0, 264.0, 328.0, 392.0, 456.0)


def _decisions_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((40, 60), "Table 4. Decisions on first applications in 2013.", fontsize=10)
    leading = 11.5
    tops = [72.0, 72.0 + 5 * leading + 6]
    tops += [tops[-1] + 18 * (k + 1) for k in range(len(_DECISIONS))]
    for y in tops:
        page.draw_line((_DECISION_WALLS[0], y), (_DECISION_WALLS[-1], y), width=0.5)
    for x in _DECISION_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, (x0, x1) in enumerate(pairwise(_DECISION_WALLS)):
        head = _DECISION_HEADS[column]
        for k, line in enumerate(head):
            width = pymupdf.get_text_length(line, fontsize=10)
            page.insert_text(((x0 + x1 - width) / 2, tops[0] + 11 + leading * (5 - len(head) + k)),
                             line, fontsize=10)
        for r, row in enumerate(_DECISIONS):
            width = pymupdf.get_text_length(row[column], fontsize=10)
            x = x0 + 4 if column == 0 else x1 - 4 - width  # figures set right
            page.insert_text((x, tops[r + 1] + 13), row[column], fontsize=10)
    return doc.tobytes()


def test_heads_first_line_of_words_filling_narrow_columns_reads_with_the_heads() -> None:
    # Before: "Recognition Protection of Deportation Deportation" read on its
    # own above the table, each head quoted whole not found.
    doc = extract_pdf(_decisions_pdf())
    for head in _DECISION_HEADS[2:]:
        quote = " ".join(head)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote
    quote = " ".join(line for head in _DECISION_HEADS for line in head)
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote


# Covers and exclusions: a ruled table whose first body row holds two
# sentences, one in each wide cell, set so close to the wall between them
# that their first lines read as one piece of prose across both cells; the
# table was found from its second line down ("to the Insured Property by |
# to the Insured Property"), and the sentences' first lines stayed out.
_COVER_HEADS = ("", "Column A", "Column B")
_COVERS: tuple[tuple[tuple[str, ...], ...], ...] = (
    ((), ("We cover physical loss or damage, or destruction caused",
          "to the Insured Property by"),
     ("We do not cover any loss or damage, or destruction caused",
      "to the Insured Property")),
    (("1",), ("Fire",),
     ("caused by the burning of the Insured Property by order of any", "Public Authority")),
    (("2",), ("Explosion or Implosion",), ("-",)),
    (("3",), ("Lightning",), ("-",)),
    (("4",), ("Earthquake, volcanic eruption, or other convulsions",), ("-",)),
)
_COVER_WALLS = (18.0, 35.0, 219.0, 402.0)


def _covers_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=595)
    size, leading = 7.0, 8.4
    page.insert_text((17, 400), "The events covered are given in Column A and those not "
                     "covered in Column B.", fontsize=size)
    tops = [440.0, 452.0]
    for row in _COVERS:
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 4)
    for y in tops:
        page.draw_line((_COVER_WALLS[0], y), (_COVER_WALLS[-1], y), width=0.5)
    for x in _COVER_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(_COVER_WALLS[:-1]):
        page.insert_text((x + 2, tops[0] + 9), _COVER_HEADS[column], fontsize=size)
        for r, row in enumerate(_COVERS):
            for k, line in enumerate(row[column]):
                page.insert_text((x + 2, tops[r + 1] + 8 + k * leading), line, fontsize=size)
    return doc.tobytes()


def test_a_first_row_of_sentences_set_close_to_their_wall_reads_as_that_row() -> None:
    # Before: "We cover ... caused⏎⏎We do not cover ... caused" read apart,
    # above the cells' second lines, so neither sentence was found whole.
    doc = extract_pdf(_covers_pdf())
    for row in _COVERS:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote
    for cell in _COVERS[0][1:]:
        start, end = _verified_range(doc, " ".join(cell))
        assert " ".join(doc.text[start:end].split()) == " ".join(cell)


# A checklist: each question's answers ("Yes", "No") sit beside its first
# line only, and a long question's other lines, set under it with a hanging
# indent, are a paragraph of MuPDF's own. Read apart, they ended the table
# found from the short questions' rows there: the rows under them were left
# to MuPDF (the answers after all the questions, or between a question's
# first line and the next).
_CHECKLIST_HEADS = ("Elements to be assessed", "Assessment", "Notes")
_CHECKLIST = (
    ("i. Upon hire, before cleaning any patient care area",),
    ("ii. Annually",),
    ("iii. When new equipment or protocols are introduced",),
    ("A. Facility has written policies and procedures for routine",
     "cleaning and disinfection of environmental surfaces,",
     "including identification of responsible personnel and of",
     "the products they use in each patient care area."),
    ("B. Facility routinely audits (monitors and documents)",
     "adherence to cleaning and disinfection procedures,",
     "including using products in accordance with the written",
     "instructions of their manufacturers (dilution, contact time)."),
    ("C. Facility provides feedback from audits to personnel",
     "regarding their adherence to cleaning and disinfection",
     "procedures, and keeps a record of that feedback for a",
     "period of at least three years after each audit."),
)
_CHECKLIST_WALLS = (40.0, 333.0, 425.0, 540.0)


def _checklist_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 9.5, 13.0
    tops = [80.0, 110.0]
    for question in _CHECKLIST:
        tops.append(tops[-1] + len(question) * leading + 14)
    for y in tops:
        page.draw_line((_CHECKLIST_WALLS[0], y), (_CHECKLIST_WALLS[-1], y), width=0.75)
    for x in _CHECKLIST_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.75)
    for column, x in enumerate(_CHECKLIST_WALLS[:-1]):
        page.insert_text((x + 8, tops[0] + 18), _CHECKLIST_HEADS[column], fontsize=size)
    # Drawn as such a form is: each question's next lines as a paragraph of
    # their own (MuPDF's block), then the first lines, then the answers.
    firsts = [tops[r + 1] + 16 for r in range(len(_CHECKLIST))]
    for y, question in zip(firsts, _CHECKLIST, strict=True):
        if question[1:]:
            page.insert_text((65, y + leading), "\n".join(question[1:]), fontsize=size,
                             lineheight=leading / size)
    for y, question in zip(firsts, _CHECKLIST, strict=True):
        page.insert_text((50, y), question[0], fontsize=size)
    for y in firsts:
        page.insert_text((354, y), "Yes", fontsize=size)
        page.insert_text((391, y), "No", fontsize=size)
    return doc.tobytes()


def test_a_questions_next_lines_under_its_answers_read_with_its_row() -> None:
    # Before: rows B and C read "B. ... documents)⏎Yes⏎No" apart from their
    # next lines, or every answer after all the questions.
    doc = extract_pdf(_checklist_pdf())
    for question in _CHECKLIST:
        quote = " ".join((*question, "Yes", "No"))
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A ruled table (a web page printed) whose every cell of a row wraps at once:
# each row's second printed line holds a next line in every column, so it
# read as a row of cells of its own; the wrap shows in each cell's first line
# ending too close to its wall for the next word.
_BANNED_HEADS = ("Formulation", "In force", "Order")
_BANNED = (
    ("Fixed dose combination of Nimesulide and Paracetamol as dispersible tablets",
     "From the date of issue", "No. 112(E) of 14-02-2011"),
    ("Cough syrups holding Codeine together with any antihistamine for children.",
     "From the date of issue", "No. 118(E) of 21-03-2011"),
    ("Combinations of Chloramphenicol with Streptomycin in every dosage form.",
     "From the date of issue", "No. 124(E) of 02-05-2011"),
    ("Topical creams of Clobetasol combined with antifungals and antibiotics.",
     "From the date of issue", "No. 131(E) of 17-06-2011"),
)
_BANNED_WALLS = (38.0, 346.0, 445.0, 559.0)
_BANNED_PAD = 9.0


def _wrap(text: str, width: float, size: float) -> list[str]:
    """``text`` cut into lines no wider than ``width``, word by word, as a
    browser wraps a cell's text ("18-" breaks at its hyphen)."""
    words = text.replace("-", "- ").split(" ")
    lines = [""]
    for word in words:
        joiner = "" if not lines[-1] or lines[-1].endswith("-") else " "
        if pymupdf.get_text_length(lines[-1] + joiner + word, fontsize=size) <= width:
            lines[-1] += joiner + word
        else:
            lines.append(word)
    return [line for line in lines if line]


def _banned_cells() -> list[list[list[str]]]:
    size = 10.0
    return [[_wrap(cell, right - left - 2 * _BANNED_PAD, size)
             for cell, (left, right) in zip(row, pairwise(_BANNED_WALLS), strict=True)]
            for row in _BANNED]


def _banned_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 10.0, 14.5
    tops = [60.0, 94.0]
    for row in _banned_cells():
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 18)
    for y in tops:
        page.draw_rect((_BANNED_WALLS[0], y - 0.35, _BANNED_WALLS[-1], y + 0.35),
                       color=None, fill=(0.87, 0.89, 0.9))
    for x in _BANNED_WALLS:
        page.draw_rect((x - 0.35, tops[0], x + 0.35, tops[-1]), color=None,
                       fill=(0.87, 0.89, 0.9))
    for column, x in enumerate(_BANNED_WALLS[:-1]):
        page.insert_text((x + _BANNED_PAD, tops[0] + 21), _BANNED_HEADS[column], fontsize=size)
        for r, row in enumerate(_banned_cells()):
            for k, line in enumerate(row[column]):
                page.insert_text((x + _BANNED_PAD, tops[r + 1] + 21 + k * leading), line,
                                 fontsize=size)
    return doc.tobytes()


def test_a_ruled_row_whose_every_cell_wraps_at_once_reads_as_one_row() -> None:
    # Before: "tablets | issue | 2011" read as a row of its own, each row's
    # cells cut after their first lines.
    cells = _banned_cells()
    assert all(len(cell) == 2 for row in cells for cell in row)  # each cell wraps
    doc = extract_pdf(_banned_pdf())
    for row in cells:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A checklist whose answers are "Yes  No" beside a question's first line and,
# for some, "Not applicable (...)" on the lines under them, starting a little
# left of "Yes" (its own radio button's width) and running under both.
_ANSWERS_HEADS = ("Elements to be assessed", "Assessment", "Notes")
_ANSWERS = (
    ("J. Filled sharps containers are disposed of safely.", ()),
    ("K. All controlled substances are kept locked.", ("Not applicable", "(none kept", "on site)")),
    ("L. Staff wear a facemask for spinal injections.", ("Not applicable", "(none done)")),
    ("M. Single-dose vials are used for one patient.", ()),
)


def _answers_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 9.5, 13.0
    walls = (40.0, 333.0, 440.0, 540.0)
    tops = [80.0, 110.0]
    for _question, more in _ANSWERS:
        tops.append(tops[-1] + (1 + len(more)) * leading + 14)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.75)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.75)
    for column, x in enumerate(walls[:-1]):
        page.insert_text((x + 8, tops[0] + 18), _ANSWERS_HEADS[column], fontsize=size)
    for r, (question, more) in enumerate(_ANSWERS):
        y = tops[r + 1] + 16
        page.insert_text((50, y), question, fontsize=size)
        page.insert_text((354, y), "Yes", fontsize=size)
        page.insert_text((391, y), "No", fontsize=size)
        for k, line in enumerate(more):
            page.insert_text((344, y + (k + 1) * leading), line, fontsize=size)
    return doc.tobytes()


def test_a_line_under_two_answers_starting_left_of_both_reads_after_them() -> None:
    # Before: "K. ...⏎No⏎Not applicable⏎(none kept⏎on site)⏎Yes": the line
    # joined "No", whose box then reached left of "Yes".
    doc = extract_pdf(_answers_pdf())
    for question, more in _ANSWERS:
        quote = " ".join((question, "Yes", "No", *more))
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A ruled list of items not paid for: a number, an item, a remark; where the
# item or the remark wraps, the cells beside it are centred on the row, so
# the number stands half a line below the item's first line (between its two
# lines) or level with its middle line (of three).
_ITEMS_HEADS = ("Sl", "Item", "Remark")
_ITEMS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("47", ("LUMBO SACRAL BELT",), ("Payable for cases who have had surgery of the spine",)),
    ("52", ("PRIVATE NURSES CHARGES- SPECIAL", "NURSING CHARGES"),
     ("Payable in post-hospitalisation",)),
    ("53", ("SUGAR FREE Tablets",),
     ("Payable - sugar free variants of admissible", "medicines are not excluded")),
    ("58", ("ANY KIT WITH NO DETAILS", "[DELIVERY KIT, ORTHOKIT,", "RECOVERY KIT, ETC]"),
     ("Not payable",)),
    ("56", ("GLOVES",), ("Sterilised gloves payable",)),
)


def _items_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading, pad = 9.0, 16.0, 4.0
    walls = (56.0, 90.0, 290.0, 550.0)
    tops = [90.0, 90.0 + leading + 2 * pad]
    for _number, item, remark in _ITEMS:
        tops.append(tops[-1] + max(len(item), len(remark)) * leading + 2 * pad)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, x in enumerate(walls[:-1]):
        page.insert_text((x + 4, tops[0] + pad + 9), _ITEMS_HEADS[column], fontsize=size)
    for column, x in enumerate(walls[:-1]):
        for r, (number, item, remark) in enumerate(_ITEMS):
            cell = ((number,), item, remark)[column]
            # Centred on the row: the first baseline sits lower by half a
            # leading for each line the cell has fewer than the tallest.
            shift = (max(len(item), len(remark)) - len(cell)) * leading / 2
            for k, line in enumerate(cell):
                page.insert_text((x + 4, tops[r + 1] + pad + 9 + shift + k * leading), line,
                                 fontsize=size)
    return doc.tobytes()


def test_a_cell_centred_beside_a_wrapped_neighbour_reads_with_its_row() -> None:
    # Before: "PRIVATE NURSES CHARGES- SPECIAL" read as a row of its own, and
    # "52 NURSING CHARGES Payable in post-hospitalisation" as the next; "58"
    # and its remark between the lines of "ANY KIT WITH NO DETAILS (...)".
    doc = extract_pdf(_items_pdf())
    for number, item, remark in _ITEMS:
        quote = " ".join((number, *item, *remark))
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# Retrieval accuracy ruled between groups of rows only: a group's label is
# centred beside its rows, each a row of figures of its own.
_GROUPS = (
    ("Training", "Retriever", "NQ", "TriviaQA", "WQ"),
    ("None", "BM25", "59.1", "66.9", "55.0"),
    ("", "DPR", "78.4", "79.4", "73.2"),
    ("Single", "BM25 + DPR", "76.6", "79.8", "71.0"),
    ("", "DPR", "79.4", "78.8", "75.0"),
    ("Multi", "BM25 + DPR", "78.0", "79.9", "74.7"),
)


def _groups_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 9.0, 16.0
    walls = (60.0, 120.0, 220.0, 290.0, 360.0, 430.0)
    ys = [80.0, 100.0, 124.0, 124.0 + leading, 168.0, 168.0 + leading]
    for y in (68.0, 88.0, 108.0, 148.0, 192.0):
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, 68.0), (x, 192.0), width=0.5)
    for column, x in enumerate(walls[:-1]):
        for row, y in zip(_GROUPS, ys, strict=True):
            if column == 0 and not row[0]:
                continue
            # A group's label stands between its two rows' lines.
            shift = leading / 2 if column == 0 and row[0] in ("Single", "Multi") else 0
            page.insert_text((x + 4, y - shift), row[column], fontsize=size)
    return doc.tobytes()


def test_a_label_centred_beside_rows_of_figures_leaves_each_row_its_own() -> None:
    # The label is the one line in the first column between its group's
    # rules, but the lines beside it are rows of cells, not a wrapped cell's.
    doc = extract_pdf(_groups_pdf())
    for row in _GROUPS[1:]:
        quote = " ".join(cell for cell in row[1:])
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A table of benefits ruled as a grid, one cell holding a paragraph (so only
# the grid's rules tell its rows apart), drawn column by column. One row's
# value is merged across the plans, and its cells were drawn without their
# right edge: the table's right border has a gap one row high.
_PLANS_WALLS = (40.0, 250.0, 350.0, 450.0, 550.0)
_PLANS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Features",), ("PLAN A",), ("PLAN B",), ("PLAN C",)),
    (("Sum insured (as floater)",), ("INR 5 Lac",), ("INR 10 Lac",), ("INR 20 Lac",)),
    (("Treatment",), ("Allopathy, AYUSH",)),
    (("Pre-existing disease (only those declared", "in the proposal form and accepted for",
      "coverage by the company shall be", "covered in the policy)"),
     ("After 36 months",), ("After 24 months",), ("After 12 months",)),
    (("Post hospitalisation",), ("60 days",), ("60 days",), ("90 days",)),
    (("Day care procedures",), ("Up to SI",), ("Up to SI",), ("Up to SI",)),
)


def _plans_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 9.0, 11.0
    tops = [60.0]
    for row in _PLANS:
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 4)
    merged = next(r for r, row in enumerate(_PLANS) if len(row) == 2)
    left, right = _PLANS_WALLS[0], _PLANS_WALLS[-1]
    for y in tops:
        page.draw_line((left, y), (right, y), width=0.5)
    page.draw_line((left, tops[0]), (left, tops[-1]), width=0.5)
    page.draw_line((_PLANS_WALLS[1], tops[0]), (_PLANS_WALLS[1], tops[-1]), width=0.5)
    for x in _PLANS_WALLS[2:]:
        for r in range(len(_PLANS)):
            if r != merged:  # no walls inside the merged cell, nor at its right
                page.draw_line((x, tops[r]), (x, tops[r + 1]), width=0.5)
    for column, x in enumerate(_PLANS_WALLS[:-1]):
        for r, row in enumerate(_PLANS):
            if column < len(row):
                for k, line in enumerate(row[column]):
                    page.insert_text((x + 4, tops[r] + 10 + k * leading), line, fontsize=size)
    return doc.tobytes()


def test_a_grid_whose_right_border_misses_one_rows_edge_reads_by_its_rows() -> None:
    # Before: the grid did not close (its right border stops short at the
    # merged row), so the paragraph's table read as MuPDF gives it: down
    # its columns, "Post hospitalisation" apart from its "60 days".
    doc = extract_pdf(_plans_pdf())
    for row in _PLANS:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# Two ruled lists side by side ("Sl | Item" twice), the right one carrying
# the numbering on, its rows a few points off the left one's: each text row
# across the page holds the rows of both. Items of the left list wrap.
_LISTS: tuple[tuple[tuple[str, tuple[str, ...]], ...], ...] = (
    (("Sl", ("Item",)), ("1", ("BABY FOOD",)), ("2", ("BABY UTILITIES CHARGES",)),
     ("3", ("FOOD CHARGES (OTHER THAN THE", "PATIENT'S DIET PROVIDED)")),
     ("4", ("LEGGINGS",)), ("5", ("EXTRA DIET OF PATIENT (OTHER", "THAN THAT OF BED CHARGE)")),
     ("6", ("TISSUE PAPER",)), ("7", ("TOOTH BRUSH",))),
    (("8", ("BED PAN",)), ("9", ("FACE MASK",)), ("10", ("FLEXI MASK",)),
     ("11", ("HAND HOLDER",)), ("12", ("SPUTUM CUP",)), ("13", ("DISINFECTANT LOTIONS",)),
     ("14", ("LUXURY TAX",)), ("15", ("HVAC",)), ("16", ("CLEAN SHEET",))),
)


def _lists_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 8.0, 9.0
    for walls, rows, top in (((40.0, 60.0, 280.0), _LISTS[0], 60.0),
                             ((320.0, 340.0, 560.0), _LISTS[1], 63.5)):
        tops = [top]
        for _number, item in rows:
            tops.append(tops[-1] + len(item) * leading + 3)
        for y in tops:
            page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
        for x in walls:
            page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
        for column, x in enumerate(walls[:-1]):
            for r, (number, item) in enumerate(rows):
                for k, line in enumerate((number,) if column == 0 else item):
                    page.insert_text((x + 3, tops[r] + 8 + k * leading), line, fontsize=size)
    return doc.tobytes()


def test_two_ruled_lists_side_by_side_read_each_by_its_own_rows() -> None:
    # Before: read as one table, each text row across both lists: "3 FOOD
    # CHARGES (OTHER THAN THE 10 FLEXI MASK PATIENT'S DIET PROVIDED) ...".
    doc = extract_pdf(_lists_pdf())
    for rows in _LISTS:
        for number, item in rows:
            quote = " ".join((number, *item))
            start, end = _verified_range(doc, quote)
            assert " ".join(doc.text[start:end].split()) == quote


# A checklist ruled between its questions, not between a question's items
# (six items, each with its answers, under one question), under heads whose
# third runs over two lines, its first above the others' line. The last
# question's second line stands under its first, close over the bottom rule.
_AUDIT_HEADS = (("Elements to be assessed",), ("Assessment",), ("Notes/Areas for", "Improvement"))
_AUDIT: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("G. Operating rooms are terminally cleaned after the last", "procedure of the day."),),
    (("H. Facility routinely audits (monitors and documents)",
      "adherence to infection control practices including:"),
     ("i. Adherence to the surgical scrub",), ("ii. Appropriate use of surgical attire",),
     ("iii. Adherence to aseptic technique",), ("iv. Ventilation of the surgical suites",),
     ("v. Minimal traffic in the operating room",), ("vi. Cleaning of the surfaces",)),
    (("I. Facility provides feedback from audits to personnel regarding",
      "their adherence to surgical infection prevention practices."),),
)


def _audit_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    size, leading = 9.5, 13.0
    walls = (72.0, 365.0, 462.0, 576.0)
    tops = [170.0, 206.0]
    for question in _AUDIT:
        tops.append(tops[-1] + sum(len(item) for item in question) * leading + 14)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.75)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.75)
    for column, x in enumerate(walls[:-1]):
        head = _AUDIT_HEADS[column]
        for k, line in enumerate(head):
            page.insert_text((x + 8, tops[0] + 22 + (k + 1 - len(head)) * 10), line, fontsize=size)
    for r, question in enumerate(_AUDIT):
        y = tops[r + 1] + 16
        for item in question:
            answered = len(question) == 1 or item is not question[0]
            for k, line in enumerate(item):
                page.insert_text((82 if item is question[0] else 96, y + k * leading), line,
                                 fontsize=size)
            if answered:
                page.insert_text((386, y), "Yes", fontsize=size)
                page.insert_text((422, y), "No", fontsize=size)
            y += len(item) * leading
    page.insert_text((72, tops[-1] + 30), "XI.a. Device Reprocessing", fontsize=11)
    return doc.tobytes()


def test_a_last_questions_next_line_over_the_bottom_rule_reads_with_its_row() -> None:
    # Before: the heads' first line, taken in above the first row of cells,
    # left the table short of the rules it needs to count as ruled; so the
    # last question's second line was read after the table.
    doc = extract_pdf(_audit_pdf())
    *_, (last,) = _AUDIT
    for quote in (" ".join((*last, "Yes", "No")),
                  " ".join((*_AUDIT[0][0], "Yes", "No"))):
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# An adverse-reaction table set tight (a drug label's): 12 pt text in rows
# 13 pt apart, so each line's box runs over the rules above and below it;
# indented group labels in the first column; first cells of three lines.
_TIGHT_HEADS = ("Placebo", "Dose 0.5 mg", "Dose 1 mg")
_TIGHT_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Monotherapy",),),
    (("(30 weeks)",), ("N=129",), ("N=127",), ("N=130",)),
    (("Severe",), ("0%",), ("0%",), ("2.4%",)),
    (("Documented symptomatic", "(70 mg/dL glucose", "threshold)"), ("0%",), ("1.6%",), ("3.8%",)),
    (("Blood glucose confirmed", "(56 mg/dL glucose", "threshold)"), ("1.6%",), ("0%",), ("0.8%",)),
)


def _tight_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    walls = (50.0, 205.0, 332.0, 460.0, 589.0)
    pitch, size = 13.0, 12.0
    tops = [100.0]
    for lines in [1] + [max(len(cell) for cell in row) for row in _TIGHT_ROWS]:
        tops.append(tops[-1] + lines * pitch + (1.5 if lines > 1 else 0.5))

    def rule(x0: float, y0: float, x1: float, y1: float) -> None:
        # Rules drawn as thin filled rectangles, as Word writes them.
        page.draw_rect(pymupdf.Rect(x0 - 0.25, y0 - 0.25, x1 + 0.25, y1 + 0.25),
                       color=None, fill=(0, 0, 0))

    for y in tops:
        rule(walls[0], y, walls[-1], y)
    for x in walls:
        rule(x, tops[0], x, tops[-1])
    for column, head in enumerate(_TIGHT_HEADS, start=1):
        page.insert_text((walls[column] + 8, tops[0] + pitch - 3), head, fontsize=size)
    for r, row in enumerate(_TIGHT_ROWS):
        for column, cell in enumerate(row):
            x = walls[column] + (8 if column else 5 if r == 0 else 14)
            for k, line in enumerate(cell):
                page.insert_text((x, tops[r + 1] + pitch - 3 + k * pitch), line, fontsize=size)
    return doc.tobytes()


def test_rows_set_tight_over_their_rules_read_as_ruled() -> None:
    # Before: a rule inside the overlap of two rows' boxes was no rule
    # between them, so the table read as unruled and the last row's first
    # cell was cut from its figures: "Blood glucose confirmed 1.6% 0% 0.8%"
    # then "(56 mg/dL glucose threshold)".
    doc = extract_pdf(_tight_pdf())
    for row in _TIGHT_ROWS[1:]:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A bleeding table as the US labels set it: rules across, walls between its
# columns but none at its sides, each column's head centred over three or
# four lines, the corner head wrapped in the first column.
_SIDELESS_HEADS = (
    ("Events during", "12-day", "treatment period"),
    ("ELIQUIS", "2.5 mg po", "bid"),
    ("Enoxaparin", "30 mg sc", "q12h"),
    ("Relative", "Risk", "(95% CI)", "P-value"),
)
_SIDELESS_ROWS = (
    (("Number of", "Patients"), ("N=1157",), ("N=1130",), ()),
    (("Total VTE or", "death"), ("104 (8.99%)",), ("100 (8.85%)",), ("1.02", "NS")),
    (("Major bleeding",), ("9 (0.60%)",), ("14 (0.93%)",), ("0.64", "NS")),
)


def _sideless_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    walls = (92.0, 175.0, 265.0, 355.0, 445.0)  # the sides: the rules' ends
    size, leading = 10.0, 11.5
    tops = [120.0]
    for row in (_SIDELESS_HEADS, *_SIDELESS_ROWS):
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 6)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.6)
    for x in walls[1:-1]:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.6)
    for r, row in enumerate((_SIDELESS_HEADS, *_SIDELESS_ROWS)):
        for column, cell in enumerate(row):
            left, right = walls[column], walls[column + 1]
            for k, line in enumerate(cell):
                width = pymupdf.get_text_length(line, fontsize=size)
                x = left + 4 if column == 0 else (left + right - width) / 2
                page.insert_text((x, tops[r] + 12 + k * leading), line, fontsize=size)
    return doc.tobytes()


def test_heads_centred_over_several_lines_in_a_table_without_side_walls_read_as_one_row() -> None:
    # Before: the first and last cells had no wall to measure their room
    # against, so the heads read line by line across the columns ("Events
    # during ELIQUIS Enoxaparin Relative", then "12-day 2.5 mg po ...").
    doc = extract_pdf(_sideless_pdf())
    for row in (_SIDELESS_HEADS, *_SIDELESS_ROWS):
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A benefit grid as the US coverage summaries set it: 12 pt lines in rows
# 15 pt apart (boxes overlapping the rules between rows), walls at every
# column, one row's limits set once in its last cell beside two services.
# Walls of the grid with the merged cell: each service's name and its
# limits' first line fill their columns (no room left for the next word).
_MERGED_WALLS = (60.0, 200.0, 320.0, 440.0, 700.0)
_SHADED_WALLS = (60.0, 200.0, 320.0, 440.0, 750.0)
_BENEFIT_HEADS = ("Services you may need", "Network provider", "Out-of-network", "Limitations")


def _benefit_page(doc: pymupdf.Document, walls: tuple[float, ...]) -> pymupdf.Page:
    page = doc.new_page(width=792, height=612)
    for column, head in enumerate(_BENEFIT_HEADS):
        page.insert_text((walls[column] + 6, 100), head, fontsize=12)
    return page


def _benefit_rule(page: pymupdf.Page, y: float, x0: float, x1: float) -> None:
    page.draw_rect(pymupdf.Rect(x0, y - 0.15, x1, y + 0.15), color=None, fill=(0.16, 0.41, 0.58))


def _merged_limits_pdf() -> bytes:
    doc = pymupdf.open()
    walls = _MERGED_WALLS
    page = _benefit_page(doc, walls)
    rows = ("Home health care", "Rehabilitation services", "Habilitation services",
            "Skilled nursing care")
    limits = {0: "60 visits/year", 3: "60 visits/calendar year"}
    baselines = [120.0 + 15 * k for k in range(len(rows))]
    for k, (service, baseline) in enumerate(zip(rows, baselines, strict=True)):
        page.insert_text((walls[0] + 6, baseline), service, fontsize=12)
        page.insert_text((walls[1] + 6, baseline), "20% coinsurance", fontsize=12)
        page.insert_text((walls[2] + 6, baseline), "40% coinsurance", fontsize=12)
        if k in limits:
            page.insert_text((walls[3] + 6, baseline), limits[k], fontsize=12)
    # The merged cell's two lines, at its own leading, its first a point and
    # a half under the row's: its box reaches past the rule under the row.
    page.insert_text((walls[3] + 6, baselines[1] + 1.5),
                     "60 visits/year. Includes physical therapy,", fontsize=12)
    page.insert_text((walls[3] + 6, baselines[1] + 15.5),
                     "speech therapy, and occupational therapy.", fontsize=12)
    # Rules in the overlap of the rows' boxes (3.6 pt under a baseline, 2.1
    # over the next); the one between the two services stops at the merged
    # cell's wall.
    _benefit_rule(page, 104.0, walls[0], walls[-1])
    for k, baseline in enumerate(baselines):
        _benefit_rule(page, baseline + 2.85, walls[0], walls[3 if k == 1 else -1])
    for x in walls:
        page.draw_rect(pymupdf.Rect(x - 0.15, 85.0, x + 0.15, baselines[-1] + 2.85),
                       color=None, fill=(0.16, 0.41, 0.58))
    return doc.tobytes()


def test_a_rule_stopping_short_of_a_merged_cell_parts_the_rows_beside_it() -> None:
    # Before: the rule between the two services was measured against the
    # whole row, whose merged cell's line reaches lower than the rule, so it
    # parted nothing and the two rows read as one, column by column
    # ("Rehabilitation services Habilitation services 20% coinsurance 20% ...").
    doc = extract_pdf(_merged_limits_pdf())
    for quote in ("Rehabilitation services 20% coinsurance 40% coinsurance",
                  "Habilitation services 20% coinsurance 40% coinsurance",
                  "Home health care 20% coinsurance 40% coinsurance 60 visits/year"):
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def _shaded_lines_pdf(*, shade_lines: bool = True) -> bytes:
    doc = pymupdf.open()
    walls = _SHADED_WALLS
    page = _benefit_page(doc, walls)
    shade = (0.94, 0.98, 1.0)
    rows = (
        ("Home health care", ("60 visits/year",)),
        ("Skilled nursing care", ("60 visits/calendar year",)),
        ("Medical equipment", ("Excludes vehicle and home modifications, and bathroom",)),
        ("Hospice services", ("Preauthorization is required. If you don't get",
                              "preauthorization, benefits could be reduced",
                              "by 50% of the total cost of the service.")),
        ("Children's eye exam", ("Coverage limited to one exam/year.",)),
    )
    top = 104.0
    tops = [top]
    for _service, limits in rows:
        tops.append(tops[-1] + 14 * len(limits) + 2)
    for (service, limits), (row_top, row_bottom) in zip(rows, pairwise(tops), strict=True):
        baseline = row_top + 14 - 0.5 if len(limits) == 1 else row_top + 13.5
        middle = baseline + 14 * (len(limits) - 1) / 2 if len(limits) > 1 else baseline
        if len(limits) > 1:
            # The row shaded, then each line of each cell shaded again in the
            # same colour (a word processor's paragraph shading): edges 2.85
            # pt under each baseline, inside the overlap of the lines' boxes.
            for x0, x1 in pairwise(walls):
                page.draw_rect(pymupdf.Rect(x0 + 0.3, row_top + 0.3, x1 - 0.3, row_bottom - 0.3),
                               color=None, fill=shade)
                if shade_lines:
                    for k in range(len(limits)):
                        y = baseline + 14 * k
                        page.draw_rect(pymupdf.Rect(x0 + 0.3, y - 11.15, x1 - 0.3, y + 2.85),
                                       color=None, fill=shade)
        page.insert_text((walls[0] + 6, middle), service, fontsize=12)
        page.insert_text((walls[1] + 6, middle), "20% coinsurance", fontsize=12)
        page.insert_text((walls[2] + 6, middle), "40% coinsurance", fontsize=12)
        for k, line in enumerate(limits):
            page.insert_text((walls[3] + 6, baseline + 14 * k), line, fontsize=12)
    for y in tops:
        _benefit_rule(page, y, walls[0], walls[-1])
    for x in walls:
        page.draw_rect(pymupdf.Rect(x - 0.15, 85.0, x + 0.15, tops[-1]),
                       color=None, fill=(0.16, 0.41, 0.58))
    return doc.tobytes()


@pytest.mark.parametrize("shade_lines", [True, False])
def test_a_cell_shaded_line_by_line_in_its_rows_colour_reads_whole(shade_lines: bool) -> None:
    # Before: the edges of each line's shading, drawn over the row's shading
    # in the same colour, counted as rules (as pdfplumber takes them) and
    # parted the row's lines: "Hospice services 20% coinsurance 40%
    # coinsurance" read with the limits' first two lines, the third apart.
    doc = extract_pdf(_shaded_lines_pdf(shade_lines=shade_lines))
    quote = ("Hospice services 20% coinsurance 40% coinsurance Preauthorization is required. "
             "If you don't get preauthorization, benefits could be reduced by 50% of the "
             "total cost of the service.")
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote


# A plan's benefit grid (a Word table: walls and a rule under every row),
# its services with their notes in the first column and what one pays in
# and out of network beside them. The page starts in the middle of the
# table, and the first rows' service cells were written one after another,
# so MuPDF gives them as one paragraph; the rows below are written row by
# row and read as rows of cells.
_PLAN_WALLS = (72.0, 232.0, 392.0, 540.0)
_PLAN_ROWS: tuple[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]], ...] = (
    (("Ambulance Services that", "cover a medically necessary", "transport or treatment"),
     ("You pay $0",), ("You pay $0",)),
    (("Chiropractic Services", "limited to 20 visits per", "calendar year combined in and",
      "out of the network."), ("You pay $30 copay per visit",),
     ("You pay 40% after", "deductible")),
    (("Family Planning Services", "for fertility treatment are", "covered with no lifetime",
      "maximum when they are", "performed at a network", "clinic only, and the proof of",
      "inability to conceive is not", "required for them."),
     ("You pay 10% after deductible", "for inpatient services."), ("Not covered.",)),
    (("Preventive Care", "Preventive physicals and", "well child care visits"),
     ("You pay $0",), ("You pay 40% after", "deductible")),
    (("Nutritional Counseling", "Limited to twelve visits per", "calendar year."),
     ("You pay $30 copay per visit",), ("You pay 40% after", "deductible")),
    (("Home Health Care", "Includes visiting nursing", "care and private duty"),
     ("You pay 10% after deductible",), ("You pay 40% after", "deductible")),
)


def _plan_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading, top = 11.0, 13.4, 60.0
    tops = [top]
    for row in _PLAN_ROWS:
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 1)
    for y in tops:
        page.draw_line((_PLAN_WALLS[0], y), (_PLAN_WALLS[-1], y), width=0.5)
    for x in _PLAN_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)

    def cell(r: int, column: int) -> None:
        for k, line in enumerate(_PLAN_ROWS[r][column]):
            page.insert_text((_PLAN_WALLS[column] + 4, tops[r] + 12 + k * leading), line,
                             fontsize=size, fontname="tiro")

    for r in range(3):  # the first rows' service cells, one after another
        cell(r, 0)
    for r in range(3):
        cell(r, 1)
        cell(r, 2)
    for r in range(3, len(_PLAN_ROWS)):
        for column in range(3):
            cell(r, column)
    return doc.tobytes()


def test_a_grid_whose_first_column_reads_as_a_paragraph_above_rows_of_cells_reads_by_rows() -> None:
    # Before: the rows of cells below were read as a table found from the
    # text, and the grid's first rows (a paragraph of services beside values
    # in two columns, too few to count as cells) as MuPDF gives them: all
    # the services down, then the values.
    doc = extract_pdf(_plan_pdf())
    for row in _PLAN_ROWS:
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def test_the_fill_on_top_at_a_point_is_the_last_painted_there_whatever_its_size() -> None:
    # _Fills files each fill under the squares of a grid it covers; the
    # answer must be the plain walk back through every fill painted, on
    # fills of every size (a cell, a band across the page, the page, one
    # over more squares than a page has, an infinite one, one drawn
    # backwards) and at points on their edges, between squares and off them.
    rng = random.Random(20240601)
    painted: list[tuple[float, float, float, float, tuple[float, ...]]] = []
    fills = _Fills()
    sizes = (2.0, 14.0, 36.0, 100.0, 612.0, 5000.0)
    for k in range(600):
        x0, y0 = rng.uniform(-50, 650), rng.uniform(-50, 830)
        x1, y1 = x0 + rng.choice(sizes) * rng.random(), y0 + rng.choice(sizes) * rng.random()
        if k % 97 == 0:
            x0, x1 = x1, x0  # a box drawn backwards holds no point
        if k % 151 == 0:
            x1 = math.inf
        colour = (round(rng.random(), 2),) * rng.choice((1, 3))
        painted.append((x0, y0, x1, y1, colour))
        fills.add(x0, y0, x1, y1, colour)

    def walked(x: float, y: float) -> tuple[float, ...] | None:
        for fx0, fy0, fx1, fy1, colour in reversed(painted):
            if fx0 <= x <= fx1 and fy0 <= y <= fy1:
                return colour
        return None

    points = [(rng.uniform(-60, 700), rng.uniform(-60, 900)) for _ in range(3000)]
    points += [(fx0, fy1) for fx0, _fy0, _fx1, fy1, _c in painted[:200]]  # on edges
    points += [(36.0 * i, 36.0 * j) for i in range(-1, 19) for j in range(-1, 24)]
    answers = [fills.top_at(x, y) for x, y in points]
    assert answers == [walked(x, y) for x, y in points]
    assert sum(answer is None for answer in answers) not in (0, len(answers))


# A dose-modification grid (walls, a rule under every row) whose cells hold
# several lines each, set so that most printed lines hold three pieces, one
# in each column ("Hyperuricemia [see | Grade 3 or | Withhold ..."), each
# cell's text wrapped at its wall: only the rules and the wrapping tell its
# rows apart. Its columns are as wide as their longest first line.
_DOSE_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Hyperuricemia [see", "Warnings and Precautions", "(5.5)]"), ("Grade 3 or", "Grade 4"),
     ("Withhold the drug until improvement", "of signs or symptoms.",
      "Resume the drug at same or reduced", "dose.")),
    (("Other Clinically Relevant", "Adverse Reactions [see", "Adverse Reactions (6.1)]"),
     ("Intolerable", "Grade 2 or", "Grade 3 or", "Grade 4"),
     ("Withhold the drug until Grade 1 or", "baseline.",
      "Resume at the same or reduced dose if", "resolution occurs within 4 weeks.")),
    (("Creatine Phosphokinase", "(CPK) Elevation [see", "Warnings and Precautions", "(5.4)]"),
     ("CPK elevation", "greater than 5", "times ULN on", "two tests"),
     ("Withhold until recovery to baseline", "or to less than or equal to 2.5 times",
      "ULN, then resume at same dose.")),
)
_DOSE_NOTE = "*Graded per Common Terminology Criteria for Adverse Events v4.03"


def _dose_pdf(rows: tuple[tuple[tuple[str, ...], ...], ...], *, tall_last: bool = False) -> bytes:
    """The grid of ``rows`` at the top of a page (a table carried on from the
    page before: no heads), printed line by line across each row as Word
    writes it, a note and a paragraph under it; ``tall_last``: its last
    row's band runs on well below its text (the height the label's writer
    gave it), its bottom rule four lines under the last line."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading, pad = 11.0, 14.0, 9.0
    walls = [72.0]
    for column in range(3):
        widest = max(pymupdf.get_text_length(line, fontname="tiro", fontsize=size)
                     for row in rows for line in row[column][:1])
        walls.append(walls[-1] + pad + widest + pad)
    tops = [60.0]
    for r, row in enumerate(rows):
        lines = max(len(cell) for cell in row)
        extra = 4 * leading if tall_last and r == len(rows) - 1 else 0.0
        tops.append(tops[-1] + lines * leading + 6 + extra)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for r, row in enumerate(rows):
        for k in range(max(len(cell) for cell in row)):
            for column, cell in enumerate(row):
                if k < len(cell):
                    page.insert_text((walls[column] + pad, tops[r] + 13 + k * leading),
                                     cell[k], fontsize=size, fontname="tiro")
    y = tops[-1] + 12
    page.insert_text((walls[0], y), _DOSE_NOTE, fontsize=9, fontname="tiro")
    for line in ("Take the drug at approximately the same time each day with or without",
                 "food, and swallow the capsules whole without opening or crushing them."):
        y += 24
        page.insert_text((walls[0], y), line, fontsize=size, fontname="tiro")
    return doc.tobytes()


def _reads_by_rows_and_cells(doc: ExtractedDocument,
                             rows: tuple[tuple[tuple[str, ...], ...], ...]) -> None:
    for row in rows:
        for cell in row:
            quote = " ".join(cell)
            start, end = _verified_range(doc, quote)
            assert " ".join(doc.text[start:end].split()) == quote
        quote = " ".join(line for cell in row for line in cell)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def _each_verifies_whole(doc: ExtractedDocument, *quotes: str) -> None:
    """Each quote verifies, and the text it matches is the quote's words in order."""
    for quote in quotes:
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def test_a_grid_of_two_rows_carried_over_from_the_page_before_reads_by_its_rules() -> None:
    # Before: one rule between its rows of cells was too few to call the
    # table ruled, so each printed line of three pieces read as a row of its
    # own ("Warnings and Precautions Grade 4 of signs or symptoms."). Its
    # second row is left out here: its severity cell breaks its lines with
    # room to spare ("Grade 2 or / Grade 3 or"), so its third line, under a
    # short line of the last cell, still starts a row (not fixed).
    doc = extract_pdf(_dose_pdf(_DOSE_ROWS[:2]))
    _reads_by_rows_and_cells(doc, _DOSE_ROWS[:1])


def test_a_last_rows_lines_high_in_a_tall_band_of_a_grid_read_with_its_row() -> None:
    # Before: the last row's first-column lines under its last row of three
    # pieces ("(5.4)]", beside "times ULN") were let go as lines after the
    # table, since the rule across its bottom lay four lines below them, not
    # right under them; the row read without them, and they after the table.
    doc = extract_pdf(_dose_pdf(_DOSE_ROWS, tall_last=True))
    _reads_by_rows_and_cells(doc, _DOSE_ROWS[2:])


# A dosing table split over a highlights page's two columns: its heads at the
# foot of the left column, its two rows in a closed grid at the top of the
# right one (walls, a rule between the rows), written column by column so
# that MuPDF's order runs down the ages, then down the doses. A ruled table of
# three columns higher in the left column (the adult doses).
_CHILD_DOSES = (("Birth to less than 6 years", "22.5 mg/kg (maximum of 1,500 mg)"),
                ("6 to less than 18 years", "18 mg/kg (maximum of 1,500 mg)"))
_ADULT_DOSES = (("Estimated Creatinine", "Single Dose", "Two-Dose Regimen"),
                ("30 mL/min and above", "1,500 mg", "1,000 mg then 500 mg"),
                ("Less than 30 mL/min", "1,125 mg", "750 mg then 375 mg"))


def _split_dosing_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size = 8.0
    # The left column: the adult table, then the heads of the children's.
    walls, tops = (36.0, 130.0, 190.0, 290.0), [100.0, 116.0, 132.0, 148.0]
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for r, row in enumerate(_ADULT_DOSES):
        for x, cell in zip(walls, row, strict=False):
            page.insert_text((x + 4, tops[r] + 11), cell, fontsize=size)
    page.insert_text((36, 180), "Dosage in Pediatric Patients with CLcr 30 mL/min and above",
                     fontsize=size)
    page.draw_line((36, 186), (290, 186), width=0.5)
    page.insert_text((74, 196), "Age Range", fontsize=size)
    page.insert_text((168, 196), "Dosage (Single Dose Regimen)", fontsize=size)
    page.draw_line((36, 200), (290, 200), width=0.5)
    # The right column: the two rows, ages first, then doses.
    walls, tops = (322.0, 435.0, 576.0), [36.0, 47.0, 58.0]
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column in range(2):
        for r, row in enumerate(_CHILD_DOSES):
            page.insert_text((walls[column] + 6, tops[r] + 8.5), row[column], fontsize=size)
    for k, line in enumerate(("Dosage adjustment in pediatric patients with CLcr less than",
                              "30 mL/min has not been studied.")):
        page.insert_text((330, 72 + 10 * k), line, fontsize=size)
    return doc.tobytes()


def test_a_closed_grid_of_two_rows_and_two_columns_reads_by_its_rows() -> None:
    # Before: a free grid needed three rows or more (heads and two rows), so
    # the two rows read as MuPDF gives them: both ages, then both doses.
    doc = extract_pdf(_split_dosing_pdf())
    for row in _CHILD_DOSES:
        quote = " ".join(row)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A reference list in two narrow columns, justified, each entry's number
# hanging out left of its lines: lines beside a long link's end leave a few
# words spread across the column ("available          at:", "education:
# Systemic   lupus"), a gutter apart each, beside the other column's line. A
# line is a tuple of its words, set to fill the column, or a link, which
# fills it (a string).
_REFERENCES: tuple[tuple[tuple[str, ...] | str, ...], ...] = (
    (("20-", "Hassan,", "M.", "(2019).", "Acupuncture", "for"),
     ("chronic", "pain", "and", "fatigue", "in", "lupus"),
     ("erythematosus:", "a", "case", "report."),
     ("available", "at:"),
     "https://www.example.com/lupus/diet",
     ("21-", "Lupus", "diet", "and", "nutrition", "available"),
     ("at:",),
     "https://www.example.com/contents/s"),
    (("Rheumatic", "Diseases.", "available", "at"),
     ("https://scholar.example.org/",),
     ("25-", "Wallace,", "(2020).", "Patient"),
     ("education:", "Systemic", "lupus"),
     ("erythematosus", "(Beyond", "the", "Basics)."),
     ("available", "at"),
     "https://www.example.com/lupus/diet",
     ("26-", "Garcia,", "B.,", "Lopez,", "J.", "and", "Ruiz,", "P.")),
)
_REFERENCE_COLUMNS = ((72.0, 252.0), (311.0, 491.0))
_HANGING = 18.0


def _references_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading = 11.0, 13.8
    for (left, right), lines in zip(_REFERENCE_COLUMNS, _REFERENCES, strict=True):
        for k, line in enumerate(lines):
            y = 80 + k * leading
            numbered = not isinstance(line, str) and line[0][:-1].isdigit()
            x = left if numbered else left + _HANGING
            if isinstance(line, str) or len(line) == 1:
                page.insert_text((x, y), line if isinstance(line, str) else line[0],
                                 fontsize=size, fontname="tiro")
                continue
            widths = [pymupdf.get_text_length(w, fontname="tiro", fontsize=size) for w in line]
            gap = (right - x - sum(widths)) / (len(line) - 1)
            for word, width in zip(line, widths, strict=True):
                page.insert_text((x, y), word, fontsize=size, fontname="tiro")
                x += width + gap
    return doc.tobytes()


def test_two_justified_columns_of_prose_are_no_table() -> None:
    # Before: the words of each column's widely spaced lines, beside the
    # other column's line, made rows of three pieces or more, and the two
    # columns read as a table, line by line across both ("available at:
    # education: Systemic lupus").
    doc = extract_pdf(_references_pdf())
    for lines in _REFERENCES:
        quote = " ".join(line if isinstance(line, str) else " ".join(line) for line in lines)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


# A preferred-drug list's section: a closed grid of two bands, its heads and
# one band holding two lists side by side, each of two lines level with the
# other's ("Preferred | Nonpreferred"), the preferred list written first.
_PREFERRED = (("ANDRODERM (TRANSDERM)", "ANDROGEL GEL PACKET (TRANSDERM.)"),
              ("AXIRON (TRANSDERM)", "FORTESTA (TRANSDERM)"))


def _preferred_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((40, 50), "ANDROGENIC AGENTS section updated 10-1-2021", fontsize=11)
    walls, tops = (36.0, 340.0, 646.0 - 40), (56.0, 68.0, 98.0)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for x, head in zip(walls, ("Preferred", "Nonpreferred"), strict=False):
        page.insert_text((x + 4, tops[0] + 9), head, fontsize=9)
    for x, names in zip(walls, _PREFERRED, strict=False):
        for k, name in enumerate(names):
            page.insert_text((x + 4, tops[1] + 11 + 12 * k), name, fontsize=9)
    return doc.tobytes()


def test_two_lists_side_by_side_in_a_grid_of_two_bands_read_each_down() -> None:
    # Before (with grids of two bands read by their rules): the band's
    # lines read across as rows of values, "ANDRODERM (TRANSDERM) AXIRON
    # (TRANSDERM)", pairing two lists line by line.
    doc = extract_pdf(_preferred_pdf())
    for names in _PREFERRED:
        quote = " ".join(names)
        start, end = _verified_range(doc, quote)
        assert " ".join(doc.text[start:end].split()) == quote


def _reads_as_quoted(doc: ExtractedDocument, quote: str) -> tuple[int, int]:
    """Where ``quote`` verifies in ``doc``, whose text there is the quote's words."""
    start, end = _verified_range(doc, quote)
    assert " ".join(doc.text[start:end].split()) == quote
    return start, end


# A guideline printed from a browser: its table is wider than the paper, so
# the paper's edge cuts its last column and the table's right border is
# never printed; its rules (thin grey fills, as Chrome paints them) run off
# the page, and white fills paint each cell. A first column of one line
# beside cells of several, and one cell holding a paragraph.
_BROWSER_ROWS = (("Brain abscess", ("Often", "polymicrobial", "Anaerobes", "Gram-negatives"),
                  ("3rd gen cephalosporin", "Metronidazole 7.5 mg")),
                 ("Post-neurosurgery", ("As above plus", "S. aureus"),
                  ("Add vancomycin", "15 mg/kg IV 6H")),
                 (("Severe, or not responding to oral treatment after two days, or under",
                   "five years of age and not immunised against Haemophilus influenzae,",
                   "with fever and signs of the infection spreading around the eye"),
                  ("As above and", "H. influenzae"), "Cefotaxime 50 mg/kg IV"))
_BROWSER_WALLS = (29.0, 380.0, 490.0, 716.0)  # the last beyond the paper's edge at 595


def _browser_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((29, 60), "Antimicrobial guidelines for children", fontsize=14)
    grey, white = (0.87, 0.87, 0.87), (1.0, 1.0, 1.0)
    tops = [80.0, 100.0, 120.0]  # a band across the table, its heads, its rows
    for row in _BROWSER_ROWS:
        tops.append(tops[-1] + 14 * max(len(_lines(cell)) for cell in row) + 10)
    left, right = _BROWSER_WALLS[0], _BROWSER_WALLS[-1]
    page.draw_rect(pymupdf.Rect(left, tops[0], right, tops[1]), color=None, fill=white)
    for top, bottom in pairwise(tops[1:]):
        for x0, x1 in pairwise(_BROWSER_WALLS):
            page.draw_rect(pymupdf.Rect(x0, top, x1, bottom), color=None, fill=white)
    for y in tops:  # the rules, as thin filled rectangles, cell by cell
        for x0, x1 in pairwise(_BROWSER_WALLS):
            page.draw_rect(pymupdf.Rect(x0, y - 0.25, x1, y + 0.25), color=None, fill=grey)
    page.draw_rect(pymupdf.Rect(left - 0.25, tops[0], left + 0.25, tops[1]), color=None, fill=grey)
    for x in _BROWSER_WALLS[:-1]:
        page.draw_rect(pymupdf.Rect(x - 0.25, tops[1], x + 0.25, tops[-1]), color=None, fill=grey)
    page.insert_text((left + 4, tops[0] + 14), "CENTRAL NERVOUS SYSTEM / EYE", fontsize=9)
    for x, head in zip(_BROWSER_WALLS, ("Infection", "Organisms", "Initial antimicrobials"),
                       strict=False):
        page.insert_text((x + 4, tops[1] + 14), head, fontsize=9)
    for column, x in enumerate(_BROWSER_WALLS[:-1]):  # written column by column
        for top, row in zip(tops[2:], _BROWSER_ROWS, strict=False):
            # A cell's lines in one piece of text: MuPDF's block, as a
            # browser's paragraph is.
            page.insert_text((x + 4, top + 14), "\n".join(_lines(row[column])), fontsize=9)
    return doc.tobytes()


def test_a_table_cut_by_the_papers_edge_reads_by_its_rows() -> None:
    # Before: with no right border on the page the grid never closed, and
    # its rows read line by line, a first cell's one line beside the first
    # line of the others ("Brain abscess Often 3rd gen cephalosporin"), the
    # rest of each cell after.
    data = _browser_pdf()
    doc = extract_pdf(data)
    for row in _BROWSER_ROWS:
        start, end = _reads_as_quoted(doc, _row_quote(row))
        rects = _located(doc, start, end)
        for line in (line for cell in row for line in _lines(cell)):
            assert all(_covered(box, rects) for box in _word_boxes(data, line)), line


def test_rules_running_off_the_page_are_cut_at_its_edge_which_closes_them() -> None:
    page = pymupdf.open(stream=_browser_pdf())[0]
    rules = ruling_lines(page, (1.0, 0.0, 0.0, 1.0, 0.0, 0.0), (0.0, 0.0, 595.0, 842.0))
    assert max(x1 for _x0, x1, _y in rules.horizontal) == 595.0
    (edge,) = [rule for rule in rules.vertical if rule[2] == 595.0]
    assert edge[:2] == (80.0, 120.0 + (14 * 4 + 10) + (14 * 2 + 10) + (14 * 3 + 10))


# A gazette's table of sites, ruled all round: each site's number, name and
# department one line, set level with the middle of its polygon's corners,
# many lines of coordinates (no line of it a paragraph).
_SITES = (("63", "BREST", "29 - Finistère",
           ("polygone délimité par les points : A :", "004.4767 O / 48.4197 N",
            "B : 004.4769 O / 48.4208 N", "C : 004.4766 O / 48.4217 N",
            "D : 004.4740 O / 48.4211 N"), "Ministère de la justice"),
          ("64", "BREST PORT", "29 - Finistère",
           ("polygone délimité par les points : A :", "004.4839 O / 48.3658 N",
            "B : 004.5197 O / 48.3586 N", "C : 004.5292 O / 48.3633 N"),
           "Ministère des armées"))
_SITE_WALLS = (50.0, 80.0, 160.0, 240.0, 420.0, 545.0)


def _sites_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    heads = ("No", "NOM DU SITE", "DÉPARTEMENT", "LIMITES GÉOGRAPHIQUES", "MINISTÈRE")
    tops = [70.0, 90.0]
    for site in _SITES:
        tops.append(tops[-1] + 11 * len(site[3]) + 8)
    for y in tops:
        page.draw_line((_SITE_WALLS[0], y), (_SITE_WALLS[-1], y), width=0.5)
    for x in _SITE_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for x, head in zip(_SITE_WALLS, heads, strict=False):
        page.insert_text((x + 3, tops[0] + 13), head, fontsize=7)
    for top, bottom, site in zip(tops[1:], tops[2:], _SITES, strict=False):
        middle = (top + bottom) / 2 + 3  # level with the polygon's middle corner
        for x, cell in zip(_SITE_WALLS, site, strict=False):
            if isinstance(cell, str):
                page.insert_text((x + 3, middle), cell, fontsize=7)
                continue
            for k, line in enumerate(cell):
                page.insert_text((x + 3, top + 11 + 11 * k), line, fontsize=7)
    return doc.tobytes()


def test_a_grid_of_one_line_cells_beside_many_reads_each_band_as_a_row() -> None:
    # Before: a grid holding no paragraph was read line by line across, so
    # the site's number, name and department, level with the polygon's
    # middle corner, cut the polygon in two ("A : … B : … 63 BREST … C : …").
    data = _sites_pdf()
    doc = extract_pdf(data)
    for site in _SITES:
        _reads_as_quoted(doc, _row_quote(site))


# A drug label's boxes of lists side by side, each of its own length, set
# line under line at one leading, walls between them and no rule between
# items; written line by line across, as the label is.
_CLASSES = (("5-lipoxygenase Inhibitor", "Adrenergic Stimulants, Central", "Analgesics",
             "Anesthetics, Inhalation", "Antiandrogen"),
            ("Antiplatelet Drugs/Effects", "Antithyroid Drugs", "Beta-Adrenergic Blockers",
             "Cholelitholytic Agents"),
            ("Leukotriene Receptor Antagonist", "Monoamine Oxidase Inhibitors",
             "Narcotics, prolonged"))
_FACTORS = (("blood dyscrasias", "cancer", "collagen vascular disease", "congestive heart failure",
             "edema"),
            ("diarrhea", "elevated temperature", "hepatic disorders", "infectious hepatitis",
             "jaundice"),
            ("hyperthyroidism", "poor nutritional state", "steatorrhea"))


def _boxed_lists_pdf(lists: tuple[tuple[str, ...], ...], head: str | None) -> bytes:
    """A box of ``lists`` side by side, under a ``head`` across the box (its
    walls between lists starting under it), or ruled only above and below."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((66, 110), "Potential interactions are listed below.", fontsize=10)
    walls, top = (66.0, 222.0, 380.0, 537.0), 120.0
    first = top + 14 if head else top
    bottom = first + 6 + 11 * max(map(len, lists))
    for y in (top, first, bottom):
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, top if x in (walls[0], walls[-1]) else first), (x, bottom), width=0.5)
    if head:
        page.insert_text((walls[0] + 3, top + 10), head, fontsize=9)
    for k in range(max(map(len, lists))):
        for x, items in zip(walls, lists, strict=False):
            if k < len(items):
                page.insert_text((x + 3, first + 10 + 11 * k), items[k], fontsize=9)
    return doc.tobytes()


@pytest.mark.parametrize(("lists", "head"), [(_CLASSES, "Classes of Drugs"), (_FACTORS, None)])
def test_lists_side_by_side_in_a_grid_read_each_down(
    lists: tuple[tuple[str, ...], ...], head: str | None
) -> None:
    # Before: read line by line across, each list's item beside the others'
    # ("5-lipoxygenase Inhibitor Antiplatelet Drugs/Effects Leukotriene
    # Receptor Antagonist"); a box ruled only above and below its lists (no
    # head) was no grid at all.
    doc = extract_pdf(_boxed_lists_pdf(lists, head))
    for items in lists:
        _reads_as_quoted(doc, " ".join(items))


# A paper's references in two columns, each entry's number hung left of its
# lines and counting up down its column; the entries run over two or three
# lines, so a number in one column stands beside the middle of an entry in
# the other. A number, a line, a number, a line: each text row looks like a
# row of four cells.
_NUMBERED_REFERENCES: tuple[tuple[tuple[int, tuple[str, ...]], ...], ...] = (
    ((61, ("Lundin KE, Scott H, Hansen T, et al. Gliadin specific T cells isolated",
           "from the small intestinal mucosa of celiac disease patients and their",
           "restriction. J Exp Med 1993;178:187-96.")),
     (62, ("Ellis HJ, Pollock EL, Engel W, et al. Investigation of the putative",
           "T cell epitopes in coeliac disease. Gut 2003;52:212-7.")),
     (63, ("Camarca A, Anderson RP, Mamone G, et al. Intestinal T cell responses",
           "to gluten peptides are largely heterogeneous: implications for a",
           "peptide based therapy. J Immunol 2009;182:4158-66.")),
     (64, ("Dieterich W, Ehnis T, Bauer M, et al. Identification of tissue",
           "transglutaminase as the autoantigen. Nat Med 1997;3:797-801."))),
    ((88, ("Nachman F, Vazquez H, Gonzalez A, et al. Gastroesophageal reflux",
           "symptoms in patients with celiac disease. Hepatol 2011;9:214-9.")),
     (89, ("Karell K, Louka AS, Moodie SJ, et al. HLA types in celiac disease",
           "patients not carrying the heterodimer: results from the European",
           "Genetics Cluster on Celiac Disease. Hum Immunol 2003;64:469-77.")),
     (90, ("Abadie V, Sollid LM, Barreiro LB, et al. Integration of genetic and",
           "immunological insights into a model of celiac disease pathogenesis.")),
     (91, ("Hadithi M, von Blomberg BM, Crusius JB, et al. Accuracy of serologic",
           "tests and typing for diagnosing celiac disease. Ann Intern Med 2007.",
           "Erratum in the same journal the year after."))),
)


def _numbered_references_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading = 7.0, 8.5
    for (number_x, text_x), entries in zip(((46.0, 66.0), (310.0, 330.0)),
                                           _NUMBERED_REFERENCES, strict=True):
        y = 60.0
        for number, lines in entries:
            page.insert_text((number_x, y), str(number), fontsize=size)
            for line in lines:
                page.insert_text((text_x, y), line, fontsize=size)
                y += leading
    return doc.tobytes()


def test_numbered_references_in_two_columns_read_each_column_down() -> None:
    # Before: each text row (a number, a line, a number, a line) read as a
    # row of cells, so the columns interleaved line by line and every entry
    # that ran beside another's number was cut ("... putative 89 Karell K").
    doc = extract_pdf(_numbered_references_pdf())
    for entries in _NUMBERED_REFERENCES:
        for number, lines in entries:
            _reads_as_quoted(doc, f"{number} " + " ".join(lines))


# A product information's adverse reactions, a grid ruled round every band:
# a system organ class, its name broken over two lines where the next word
# would not fit, beside lists of reactions and of their frequencies, one a
# line, each list longer than the name. Drawn line by line across the band.
_REACTION_WALLS = (72.0, 222.0, 420.0, 520.0)
_REACTIONS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("System organ class",), ("Adverse reactions",), ("Frequency",)),
    (("Skin and subcutaneous tissue", "disorders"),
     ("Erythema", "Skin burning sensation", "Pruritus", "Allergic skin reaction"),
     ("Common", "Common", "Common", "Rare")),
    (("Nervous system disorders",),
     ("Headache", "Paraesthesia", "Dizziness"),
     ("Common", "Common", "Uncommon")),
    (("General disorders and", "administration site conditions"),
     ("Fatigue", "Feeling hot", "Asthenia"),
     ("Common", "Common", "Very rare")),
)


def _rule_every_band(page: pymupdf.Page, walls: tuple[float, ...],
                     rows: tuple[tuple[tuple[str, ...], ...], ...], leading: float,
                     gap: float) -> list[float]:
    """Rules round every band of ``rows`` between ``walls``, from y = 60,
    each band as tall as its tallest cell and ``gap`` more; the bands' tops,
    and the grid's bottom last."""
    tops = [60.0]
    for row in rows:
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + gap)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.5)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    return tops


def _reactions_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading, pad = 11.0, 13.0, 4.0
    page.insert_text((72, 50), "Tabulated list of adverse reactions", fontsize=size,
                     fontname="tiro")
    tops = _rule_every_band(page, _REACTION_WALLS, _REACTIONS, leading, 4)
    for row, top in zip(_REACTIONS, tops, strict=False):
        for k in range(max(len(cell) for cell in row)):
            for wall, cell in zip(_REACTION_WALLS, row, strict=False):
                if k < len(cell):
                    page.insert_text((wall + pad, top + 11 + k * leading), cell[k],
                                     fontsize=size, fontname="tiro")
    name = _REACTIONS[1][0]
    room = _REACTION_WALLS[1] - _REACTION_WALLS[0] - 2 * pad
    assert pymupdf.get_text_length(" ".join(name), fontname="tiro", fontsize=size) > room
    return doc.tobytes()


def test_a_name_broken_in_its_cell_beside_lists_reads_with_its_band() -> None:
    # Before: the name's second line, opening a text row of three pieces in
    # the first column, started a row of its own, so the band read
    # "Skin and subcutaneous tissue Erythema Common" and then "disorders
    # Skin burning sensation Common ...": the name cut, and its row too.
    _reads_by_rows_and_cells(extract_pdf(_reactions_pdf()), _REACTIONS[1:])


# A booklet's table in a nutshell: a grid whose first band holds a sentence
# wrapped in each cell, whose second holds heads centred in their columns
# over two or three lines, and whose third holds a list in each column.
_NUTSHELL_WALLS = (72.0, 222.0, 372.0, 522.0)
_NUTSHELL: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("First, you must meet all the", "rules in this column."),
     ("Second, you must meet the", "rules in one column."),
     ("Third, you must meet", "the rule in this column.")),
    (("Part A.", "Rules for Everyone"),
     ("Part B.", "Rules if You Have a", "Qualifying Child"),
     ("Part C.", "Figuring and Claiming", "the Credit")),
    (("1. Your income must be", "less than the limit.", "2. You must have a",
      "valid number.", "3. You must file."),
     ("4. Your child must meet", "the age test.", "5. Your child must", "live with you."),
     ("6. Use the table", "to find the credit.", "7. Claim it.")),
)


def _nutshell_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading, pad = 9.0, 11.0, 4.0
    page.insert_text((72, 50), "Table 5-1. The Credit in a Nutshell", fontsize=11, fontname="helv")
    tops = _rule_every_band(page, _NUTSHELL_WALLS, _NUTSHELL, leading, 6)
    for r, (row, top) in enumerate(zip(_NUTSHELL, tops, strict=False)):
        for k in range(max(len(cell) for cell in row)):
            for left, right, cell in zip(_NUTSHELL_WALLS, _NUTSHELL_WALLS[1:], row, strict=False):
                if k >= len(cell):
                    continue
                x = left + pad
                if r == 1:  # the heads, centred
                    width = pymupdf.get_text_length(cell[k], fontname="helv", fontsize=size)
                    x = (left + right - width) / 2
                page.insert_text((x, top + 10 + k * leading), cell[k], fontsize=size,
                                 fontname="helv")
    return doc.tobytes()


def test_wrapped_sentences_and_centred_heads_in_a_grid_read_cell_by_cell() -> None:
    # Before: the two first bands' cells, all of several lines, were taken
    # for rows with no rules between them, the grid was left to the line
    # reader, and each band read line by line across ("Part A. Part B.
    # Part C." then "Rules for Everyone Rules if You Have a ...").
    _reads_by_rows_and_cells(extract_pdf(_nutshell_pdf()), _NUTSHELL)


# A risk table ruled round every cell: short cells (an item, its factor, a
# rating) beside a column of comments, each a paragraph of three lines,
# which MuPDF gives as paragraphs of their own; the rows' short cells make
# the region, which ends at the wall before the comments.
_RISK_WALLS = (72.0, 100.0, 230.0, 290.0, 540.0)
_RISKS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("1",), ("Encryption used", "(FIPS 140-2)"), ("Low",),
     ("Data at rest or in motion is properly", "encrypted and unable to be viewed or",
      "used by anyone without the key.")),
    (("2",), ("Password only",), ("Moderate", "to High"),
     ("The level of risk must be determined", "in context to the type of data in the",
      "first factor of the assessment.")),
    (("3",), ("No protection", "at all"), ("High",),
     ("Loose paperwork or unencrypted data", "left where others can read it at any",
      "time of the day or the night.")),
)


def _risks_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading = 10.0, 12.0
    page.insert_text((72, 50), "Table A20.1. Risk Assessment Model", fontsize=11, fontname="tiro")
    tops = [60.0 + 44.0 * k for k in range(len(_RISKS) + 1)]
    for y in tops:
        page.draw_line((_RISK_WALLS[0], y), (_RISK_WALLS[-1], y), width=0.5)
    for x in _RISK_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.5)
    for column, wall in enumerate(_RISK_WALLS[:-1]):  # column by column
        for row, top in zip(_RISKS, tops, strict=False):
            for k, line in enumerate(row[column]):
                page.insert_text((wall + 4, top + 12 + k * leading), line, fontsize=size,
                                 fontname="tiro")
    page.insert_text((72, tops[-1] + 30), "Table A20.2. Breach Notification Log.", fontsize=11,
                     fontname="tiro")
    return doc.tobytes()


def test_a_column_of_paragraphs_inside_a_grids_rules_reads_with_its_rows() -> None:
    # Before: the grid's frame closed at the wall before the comments, so
    # each row read without its comment, and the comments after the table.
    doc = extract_pdf(_risks_pdf())
    for row in _RISKS:
        _reads_as_quoted(doc, " ".join(row[-1]))
        _reads_as_quoted(doc, " ".join(line for cell in row for line in cell))


# A statistics release's table: each value column walled, the rows ruled
# across the labels too, but no wall at the labels' left side (they stand on
# the page's paper) and the heads band ruled over the values only. Its heads
# run over lines that the text's table finder does not take; the grid is
# found from its rules.
_OPEN_WALLS = (128.0, 200.0, 272.0, 344.0)
_OPEN_ROWS = (("65-74", "34,2", "44,3", "11,1"), ("75-84", "48,9", "56,1", "17,1"),
              ("85 e oltre", "59,4", "66,0", "20,6"), ("Totale", "43,2", "52,0", "14,7"))


def _at(text: str, x0: float, y0: float) -> Line:
    boxes: list[float] = []
    for k in range(len(text)):
        boxes += [x0 + k * 5.0, y0, x0 + (k + 1) * 5.0 - 0.5, y0 + 8.0]
    return Line(text, boxes, boxes[0], y0, boxes[-2], y0 + 8.0, True)


def _label_column_reads_with_its_rows(
    rules_start: float, labels_at: float, left_wall: tuple[float, float] | None = None
) -> None:
    """The ISTAT-like grid of ``_OPEN_WALLS``, its rules across the rows
    starting at ``rules_start``, its labels at ``labels_at`` and (``left_wall``:
    its top, its x) a wall at their left from above the table, reads as one
    grid whose rows start with their labels."""
    tops = [60.0, 90.0, 106.0, 122.0, 138.0, 154.0]
    horizontal = [(_OPEN_WALLS[0], _OPEN_WALLS[-1], tops[0])]
    horizontal += [(rules_start, _OPEN_WALLS[-1], y) for y in tops[1:]]
    vertical = [(tops[0], tops[-1], x) for x in _OPEN_WALLS]
    if left_wall is not None:
        vertical.append((left_wall[0], tops[-1], left_wall[1]))
    lines = [_at("CLASSE", labels_at, 70.0)] + [
        _at(head, x + 4, 70.0)
        for x, head in zip(_OPEN_WALLS, ("Gravi", "Almeno", "Stato"), strict=False)]
    for row, top in zip(_OPEN_ROWS, tops[1:], strict=False):
        lines += [_at(cell, x, top + 4) for x, cell in
                  zip((labels_at, *(w + 4 for w in _OPEN_WALLS)), row, strict=False)]
    ((inside, rows),) = _free_grids(lines, Rules(horizontal, vertical), set())
    assert len(inside) == len(lines)
    assert [" ".join(ln.text for ln in row.lines) for row in rows] == [
        "CLASSE Gravi Almeno Stato", *(" ".join(row) for row in _OPEN_ROWS)]


def test_a_label_column_with_no_wall_at_its_left_reads_with_its_rows() -> None:
    # Before: the grid's frame began at the first value column's wall, so
    # each row read its values without its label ("34,2 44,3 11,1"), the
    # labels left to read apart (batch 14's ISTAT table).
    _label_column_reads_with_its_rows(rules_start=50.0, labels_at=52.0)


def test_a_label_column_set_flush_with_its_rules_start_reads_with_its_rows() -> None:
    # ERGO's bonus-class table: the labels ("zehn", "elf") begin where the
    # rules across the rows begin, a hair left of them, and the wall at
    # their left runs on up past the heads band, beside the table's title,
    # so no frame closes there. Before: the labels, not inside the rules'
    # reach to the point, stayed outside the grid and read down as a list.
    start = 50.0002  # the rules' own start; the labels' first glyph sits at 50.0
    _label_column_reads_with_its_rows(rules_start=start, labels_at=50.0,
                                      left_wall=(40.0, start))


# A book's table (Springer's "Table 2 (continued)"): walls between the
# columns only, none at its sides; the rules across every band run the
# table's whole width, past the first and last walls, over the reference
# numbers and the scope's sentences. Narrow columns set close together, so
# MuPDF gives "Country/region Sponsor" and "2014 • Concise…" as one line each.
_BOOK_EDGES = (54.0, 385.0)
_BOOK_WALLS = (76.0, 138.0, 174.0, 198.0)
_BOOK_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Ref.",), ("Country/region",), ("Sponsor",), ("Year",), ("Scope",)),
    (("[30]",), ("Canada", "(Alberta)"), ("TOP",), ("2014",),
     ("Concise, at-a-glance summary of management", "options for primary hypothyroidism")),
    (("[31]",), ("Australia",), ("DoH",), ("2019",),
     ("Management of hypothyroidism during pregnancy",)),
    (("[32]",), ("Australia, New", "Zealand"), ("RCGPA",), ("2019",),
     ("Thyroid function testing in adults",)),
)


def _book_table_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=440, height=660)
    size, leading = 8.0, 10.0
    page.insert_text((54, 50), "Table 2 (continued)", fontsize=8, fontname="tiro")
    tops = [60.0]
    for row in _BOOK_ROWS:
        tops.append(tops[-1] + max(len(cell) for cell in row) * leading + 2)
    for y in tops:
        page.draw_line((_BOOK_EDGES[0], y), (_BOOK_EDGES[1], y), width=0.4)
    for x in _BOOK_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.4)
    starts = (_BOOK_EDGES[0] + 3, *(x + 3 for x in _BOOK_WALLS))
    for row, top in zip(_BOOK_ROWS, tops, strict=False):
        for x, cell in zip(starts, row, strict=True):
            for k, line in enumerate(cell):
                page.insert_text((x, top + 8 + k * leading), line, fontsize=size,
                                 fontname="tiro")
    page.insert_text((54, tops[-1] + 14), "Guidelines published in or after 2010 are "
                     "considered here.", fontsize=8, fontname="tiro")
    return doc.tobytes()


def test_a_table_with_walls_between_its_columns_only_reads_by_rows() -> None:
    # Before: the grid closed between its first and last walls alone, so it
    # read the middle columns by rows and left the reference numbers and the
    # scopes outside it: "[30] Canada (Alberta) TOP 2014 • Concise…" did
    # not verify (batch 15's levothyroxine chapter).
    _reads_by_rows_and_cells(extract_pdf(_book_table_pdf()), _BOOK_ROWS)


# A brochure's tariffs as three cards side by side: each a box of its own,
# a gutter apart, a head band ruled off at its top, a list under it. Their
# lines stand level by chance, so that read across they make rows.
_CARDS = (
    ("Tarif UZ1/2", "Kernleistung:", "- Bei Krankheiten und Unfällen",
     "- Ein- oder Zweibettzimmer"),
    ("Tarif KSU", "Kernleistung:", "- Bei Unfällen", "- Ein- oder Zweibettzimmer",
     "- Chefarztbehandlung"),
    ("Tarif KGZ1/2", "Kernleistung:", "- Bei Krankheiten und Unfällen",
     "- Ein- oder Zweibettzimmer", "- Chefarztbehandlung"),
)


def _cards_pdf(gutter: float) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((79, 480), "Mit den KombiMed Krankenhaus-Tarifen schaffen Sie die "
                     "Voraussetzung für die freie Arztwahl.", fontsize=8, fontname="helv")
    width, top, band, bottom = 136.0, 497.0, 526.0, 637.0
    for k, card in enumerate(_CARDS):
        x0 = 79.0 + k * (width + gutter)
        page.draw_rect(pymupdf.Rect(x0, top, x0 + width, bottom), color=(0.5, 0.5, 0.5),
                       fill=(0.97, 0.97, 0.96), width=0.5)
        page.draw_line((x0, band), (x0 + width, band), color=(0.5, 0.5, 0.5), width=0.5)
        page.insert_text((x0 + 6, top + 17), card[0], fontsize=7, fontname="helv")
        for n, line in enumerate(card[1:]):
            page.insert_text((x0 + 6, band + 14 + n * 10.5), line, fontsize=7,
                             fontname="helv")
    return doc.tobytes()


def test_cards_side_by_side_read_each_card_down() -> None:
    # Before: the cards' level lines read across as rows of three cells,
    # "Kernleistung: Kernleistung: Kernleistung:", so no card's list could
    # be quoted (batch 15's DKV brochure).
    doc = extract_pdf(_cards_pdf(gutter=14.0))
    for card in _CARDS:
        _reads_as_quoted(doc, " ".join(card))


def test_boxes_a_hair_apart_are_a_grids_cells() -> None:
    # Cells painted as boxes with a hairline of paper between them are a
    # grid's: its heads read across as a row, each cell under them whole.
    doc = extract_pdf(_cards_pdf(gutter=1.0))
    _reads_as_quoted(doc, " ".join(card[0] for card in _CARDS))
    for card in _CARDS:
        _reads_as_quoted(doc, " ".join(card[1:]))


# A safety rule's table (DGUV): a ruled grid whose head band holds three
# heads of four lines each, centred, one breaking a word at a line's end
# ("Netz-" / "Nennspannung"); the middle head stands over two heads of its
# own, a short wall between them from under its last line to the band's
# foot; rows of values under it, the middle column parted as its heads are.
_HEAD_WALLS = (80.0, 190.0, 295.0, 400.0, 540.0)
_HEADS = (("Netz-", "Nennspannung", "Un (Effektivwert)", "kV"),
          ("Äußere Grenze der Gefahrenzone", "DL (Abstand in Luft)", "mm"),
          ("Bemessungs-Steh-", "Blitz-/Schaltstoßspannung", "Uimp (Scheitelwert)", "kV"))
_SUB_HEADS = ("Innenraumanlage", "Freiluftanlage")
_VOLTAGE_ROWS = (("3", "60", "120", "40"), ("6", "90", "120", "60"), ("10", "120", "150", "75"))


def _sub_headed_grid_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    size, leading = 8.0, 10.0
    top, heads_bottom = 100.0, 150.0
    bottoms = [heads_bottom + 18.0 * (k + 1) for k in range(len(_VOLTAGE_ROWS))]
    for y in (top, heads_bottom, *bottoms):
        page.draw_line((_HEAD_WALLS[0], y), (_HEAD_WALLS[-1], y), width=0.5)
    for x in (_HEAD_WALLS[0], _HEAD_WALLS[1], _HEAD_WALLS[3], _HEAD_WALLS[4]):
        page.draw_line((x, top), (x, bottoms[-1]), width=0.5)
    page.draw_line((_HEAD_WALLS[2], top + 38), (_HEAD_WALLS[2], bottoms[-1]), width=0.5)

    def centred(text: str, left: float, right: float, y: float) -> None:
        width = pymupdf.get_text_length(text, fontname="helv", fontsize=size)
        page.insert_text(((left + right - width) / 2, y), text, fontsize=size, fontname="helv")

    spans = ((_HEAD_WALLS[0], _HEAD_WALLS[1]), (_HEAD_WALLS[1], _HEAD_WALLS[3]),
             (_HEAD_WALLS[3], _HEAD_WALLS[4]))
    for (left, right), head in zip(spans, _HEADS, strict=True):
        for k, line in enumerate(head):
            centred(line, left, right, top + 10 + k * leading)
    for k, sub in enumerate(_SUB_HEADS):
        centred(sub, _HEAD_WALLS[1 + k], _HEAD_WALLS[2 + k], top + 10 + 3 * leading + 4)
    for row, bottom in zip(_VOLTAGE_ROWS, bottoms, strict=True):
        for k, cell in enumerate(row):
            centred(cell, _HEAD_WALLS[k], _HEAD_WALLS[k + 1], bottom - 6)
    page.insert_text((80, bottoms[-1] + 20), "Tabelle 2: Gefahrenzone, abhängig von der "
                     "Nennspannung", fontsize=8, fontname="helv")
    return doc.tobytes()


def test_a_head_band_of_heads_several_lines_deep_reads_as_one_row() -> None:
    # Before: the heads, as many lines each, were taken for rows with no
    # rules between them, and the sub-heads walled apart for cells of
    # another row, so the band read line by line across ("Netz- Äußere
    # Grenze der Gefahrenzone Bemessungs-Steh-"): no head could be quoted
    # (batch 11's DGUV rule).
    doc = extract_pdf(_sub_headed_grid_pdf())
    for head in _HEADS:
        _reads_as_quoted(doc, " ".join(head))
    _reads_as_quoted(doc, " ".join((*_HEADS[0], *_HEADS[1], *_SUB_HEADS, *_HEADS[2])))
    for row in _VOLTAGE_ROWS:
        _reads_as_quoted(doc, " ".join(row))


# A federal fact sheet's table (CMS's "You lose your current coverage"): a
# head band boxed in a filled rectangle, then rows ruled across the whole
# width with walls between the cells only, none at the table's sides, each
# rule and wall drawn cell by cell. Each cell is a paragraph of a few lines.
_FACT_EDGES = (72.4, 539.4)
_FACT_WALLS = (239.6, 397.4)
_FACT_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("If you...",), ("You can...",), ("At this time...",)),
    (("Leave coverage from your employer or", "union (including COBRA coverage)."),
     ("Join a Medicare Advantage Plan or", "Medicare drug plan."),
     ("Your chance to join lasts for 2", "full months after the month", "your coverage ends.")),
    (("Have drug coverage through a", "Medicare Cost Plan and you leave the", "plan."),
     ("Join a Medicare drug plan.",),
     ("Your chance to join lasts for 2", "full months after the month you",
      "drop your Medicare Cost Plan.")),
    (("Drop your coverage in a Program", "of All-inclusive Care for the Elderly",
      "(PACE) Plan."),
     ("Join a Medicare Advantage Plan or", "Medicare drug plan."),
     ("Your chance to join lasts for 2", "full months after the month you",
      "drop your PACE plan.")),
)


def _fact_sheet_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 80), "You lose your current coverage", fontsize=11, fontname="hebo")
    left, right = _FACT_EDGES
    navy = (0.05, 0.13, 0.35)
    tops = [97.0, 128.4]
    for row in _FACT_ROWS[1:]:
        tops.append(tops[-1] + len(max(row, key=len)) * 11.0 + 14.0)
    page.draw_rect(pymupdf.Rect(left, tops[0], right, tops[1]), color=navy, fill=navy,
                   width=0.5)
    edges = (left, *_FACT_WALLS, right)
    for top, bottom in pairwise(tops[1:]):
        for x0, x1 in pairwise(edges):
            page.draw_line((x0, bottom), (x1, bottom), color=navy, width=0.5)
        for x in _FACT_WALLS:
            page.draw_line((x, top + 1.0), (x, bottom - 0.4), color=navy, width=0.5)
    for n, (row, top) in enumerate(zip(_FACT_ROWS, tops, strict=False)):
        for x, cell in zip((left, *_FACT_WALLS), row, strict=True):
            for k, line in enumerate(cell):
                page.insert_text((x + 5.5, top + 17 + k * 11.0), line, fontsize=8.5,
                                 fontname="hebo" if n == 0 else "helv",
                                 color=(1, 1, 1) if n == 0 else (0, 0, 0))
    page.insert_text((72, tops[-1] + 24), "Note: You can only use a Special Enrollment "
                     "Period if you qualify.", fontsize=9, fontname="helv")
    return doc.tobytes()


def test_a_table_walled_between_its_columns_under_a_boxed_head_reads_by_rows() -> None:
    # Before: no frame closed around the rows (no wall at the table's sides)
    # and the head band's box closed alone, so MuPDF's order stood: each
    # cell's paragraph read apart from its row ("Join a Medicare drug plan."
    # after the last row's first cell), and no row quote verified.
    _reads_by_rows_and_cells(extract_pdf(_fact_sheet_pdf()), _FACT_ROWS)


# A club's statement of fixed assets (landscape, a word processor's grid):
# a head band whose cells stack their words far apart ("Saldos al comienzo"
# at the top, "del ejercicio" at the bottom), a merged head ruled off over
# heads of its own walled apart from that rule down ("Amortizaciones" over
# "Al Inicio | Del Ejercicio"), then one band of rows of values with no rule
# between them, some cells blank.
_ASSET_WALLS = (29.0, 181.0, 253.0, 313.0, 438.0, 498.0, 557.0)
_ASSET_HEADS = (("Rubros",), ("Saldos al comienzo", "del ejercicio"), ("Aumentos",),
                ("Disminuciones",), ("Amortizaciones",), ("Al Inicio",), ("Del Ejercicio",))
_ASSET_ROWS = (
    ("Terreno", "3.504.455.430,08", "", "0,00", "", "", ""),
    ("Edificios y Construcciones", "1.275.618.369,54", "", "0,00", "529.801.874,64",
     "5.974.532,46", ""),
    ("Instalaciones", "155.373.905,90", "12.846.352,25", "0,00", "101.774.235,59",
     "11.139.409,14", ""),
    ("Muebles y Utiles", "40.112.905,93", "3.215.351,84", "0,00", "22.294.982,12",
     "1.987.096,61", ""),
)


def _assets_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    top, head_rule, band, bottom = 121.0, 140.0, 155.0, 230.0
    right = 616.0
    for y in (top, band, bottom):
        page.draw_line((_ASSET_WALLS[0], y), (right, y), width=0.5)
    page.draw_line((_ASSET_WALLS[4], head_rule), (_ASSET_WALLS[6] + 59.0, head_rule), width=0.5)
    for x in (*_ASSET_WALLS[:5], right):
        page.draw_line((x, top), (x, bottom), width=0.5)
    for x in _ASSET_WALLS[5:]:
        page.draw_line((x, head_rule), (x, bottom), width=0.5)
    spots = ((top + 11, None), (top + 9, top + 31), (top + 20, None), (top + 20, None),
             (top + 12, None), (head_rule + 10, None), (head_rule + 10, None))
    for x, head, (first, second) in zip(_ASSET_WALLS, _ASSET_HEADS, spots, strict=True):
        page.insert_text((x + 4, first), head[0], fontsize=7, fontname="hebo")
        if second is not None:
            page.insert_text((x + 4, second), head[1], fontsize=7, fontname="hebo")
    for k, row in enumerate(_ASSET_ROWS):
        for x, value in zip(_ASSET_WALLS, row, strict=True):
            if value:
                page.insert_text((x + 4, band + 12 + k * 12.0), value, fontsize=7,
                                 fontname="helv")
    return doc.tobytes()


def test_heads_over_a_band_of_rows_with_blank_cells_read_by_rows() -> None:
    # Before: the merged head's rule parted its cell, so no grid was read
    # and the heads read line by line across the band ("Rubros Saldos al
    # comienzo Amortizaciones", then "Aumentos Disminuciones", then "del
    # ejercicio Al Inicio Del Ejercicio"); the blank cells left the band's
    # rows unlike rows of values (cells of unequal counts).
    _each_verifies_whole(extract_pdf(_assets_pdf()),
                         " ".join(line for head in _ASSET_HEADS for line in head),
                         *(" ".join(value for value in row if value) for row in _ASSET_ROWS))


# A GRADE evidence profile's heads: a merged head ruled off over two heads
# of its own, one of a line, the other of three, walled apart from the rule
# down ("Anticipated absolute effects" over "Risk with CBT | Risk with Network
# / Support (AA / attendance)"), beside heads that run the band's height.
_PROFILE_WALLS = (40.0, 160.0, 250.0, 340.0, 430.0, 520.0)
_PROFILE_HEADS = (("Outcomes",), ("Anticipated absolute effects* (95% CI)",),
                  ("Risk with CBT",), ("Risk with Network", "Support (AA", "attendance)"),
                  ("Relative effect", "(95% CI)"), ("Participants", "(studies)"))
_PROFILE_ROW = ("Days of abstinence", "-", "SMD 0.33 SD higher", "-", "193 (1 RCT)")


def _profile_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=400)
    top, rule, band, bottom = 60.0, 76.0, 120.0, 150.0
    right = _PROFILE_WALLS[-1]
    for y in (top, band, bottom):
        page.draw_line((_PROFILE_WALLS[0], y), (right, y), width=0.5)
    page.draw_line((_PROFILE_WALLS[1], rule), (_PROFILE_WALLS[3], rule), width=0.5)
    for x in (_PROFILE_WALLS[0], _PROFILE_WALLS[1], *_PROFILE_WALLS[3:]):
        page.draw_line((x, top), (x, bottom), width=0.5)
    page.draw_line((_PROFILE_WALLS[2], rule), (_PROFILE_WALLS[2], bottom), width=0.5)
    page.insert_text((44, top + 30), "Outcomes", fontsize=8)
    page.insert_text((164, top + 11), _PROFILE_HEADS[1][0], fontsize=8)
    page.insert_text((164, rule + 22), "Risk with CBT", fontsize=8)
    for k, line in enumerate(_PROFILE_HEADS[3]):
        page.insert_text((254, rule + 11 + 10 * k), line, fontsize=8)
    for x, head in zip(_PROFILE_WALLS[3:5], _PROFILE_HEADS[4:], strict=True):
        for k, line in enumerate(head):
            page.insert_text((x + 4, top + 26 + 10 * k), line, fontsize=8)
    columns = (_PROFILE_WALLS[0], _PROFILE_WALLS[1], _PROFILE_WALLS[2], *_PROFILE_WALLS[3:5])
    for x, value in zip(columns, _PROFILE_ROW, strict=True):
        page.insert_text((x + 4, band + 14), value, fontsize=8)
    return doc.tobytes()


def test_a_merged_heads_own_heads_of_several_lines_read_each_whole() -> None:
    # Before: the heads under the merged head read line by line across them
    # ("Risk with Network / Support (AA Risk with CBT / attendance)").
    _each_verifies_whole(extract_pdf(_profile_pdf()),
                         " ".join(line for head in _PROFILE_HEADS for line in head),
                         " ".join(_PROFILE_ROW))


# A club's statement of changes in equity: its heads boxed alone in one band
# (a rule above, a rule below, walls between), each head's words centred in
# its column, a merged head ruled off over heads of its own; the rows under
# the box have no rules at all.
_EQUITY_WALLS = (34.0, 253.0, 338.0, 427.0, 510.0, 587.0, 659.0, 735.0)
_EQUITY_HEADS = (("RUBROS",), ("APORTES DE LOS SOCIOS",), ("CAPITAL", "SOCIAL"),
                 ("AJUSTES", "DE CAPITAL"), ("TOTAL",), ("REVALUO", "TECNICO"),
                 ("SUPERAVIT", "(DEFICIT)", "ACUMULADO"), ("TOTALES", "al 30-06-2023"))
_EQUITY_ROW = ("SALDOS AL CIERRE DEL EJERCICIO ANTERIOR", "124,04", "658.566.773,37",
               "658.566.897,41", "4.117.884.636,26", "1.680.507.589,77", "6.456.959.123,44")


def _equity_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=842, height=595)
    top, rule, bottom = 120.0, 149.0, 171.0
    for y in (top, bottom):
        page.draw_line((_EQUITY_WALLS[0], y), (_EQUITY_WALLS[-1], y), width=0.5)
    page.draw_line((_EQUITY_WALLS[1], rule), (_EQUITY_WALLS[4], rule), width=0.5)
    for x in (*_EQUITY_WALLS[:2], *_EQUITY_WALLS[4:]):
        page.draw_line((x, top), (x, bottom), width=0.5)
    for x in _EQUITY_WALLS[2:4]:
        page.draw_line((x, rule), (x, bottom), width=0.5)
    font = pymupdf.Font("hebo")

    def centred(text: str, x0: float, x1: float, y: float) -> None:
        width = font.text_length(text, 7)
        page.insert_text(((x0 + x1 - width) / 2, y), text, fontsize=7, fontname="hebo")

    centred("RUBROS", _EQUITY_WALLS[0], _EQUITY_WALLS[1], 148)
    centred("APORTES DE LOS SOCIOS", _EQUITY_WALLS[1], _EQUITY_WALLS[4], 132)
    spans = [(_EQUITY_WALLS[1], _EQUITY_WALLS[2]), (_EQUITY_WALLS[2], _EQUITY_WALLS[3]),
             (_EQUITY_WALLS[3], _EQUITY_WALLS[4])]
    for (x0, x1), head in zip(spans, _EQUITY_HEADS[2:5], strict=True):
        for k, line in enumerate(head):
            centred(line, x0, x1, 158 + 9 * k)
    for (x0, x1), head in zip(pairwise(_EQUITY_WALLS[4:]), _EQUITY_HEADS[5:], strict=True):
        for k, line in enumerate(head):
            centred(line, x0, x1, 140 + 9 * k)
    rights = (250.0, 335.0, 424.0, 507.0, 584.0, 656.0)
    page.insert_text((36, 190), _EQUITY_ROW[0], fontsize=7, fontname="hebo")
    for right, value in zip(rights, _EQUITY_ROW[1:], strict=True):
        page.insert_text((right - font.text_length(value, 7), 190), value, fontsize=7,
                         fontname="hebo")
    return doc.tobytes()


def test_heads_boxed_alone_over_unruled_rows_read_as_one_row() -> None:
    # Before: the box of one band was no grid (its band was no lists side by
    # side), so the heads read line by line across ("SUPERAVIT", then
    # "APORTES DE LOS SOCIOS RUBROS", then "REVALUO TOTALES", …).
    _each_verifies_whole(extract_pdf(_equity_pdf()),
                         " ".join(line for head in _EQUITY_HEADS for line in head),
                         " ".join(_EQUITY_ROW))


# An adverse-reaction table as a US label's PDFMaker export sets it: a full
# grid of three columns, each head centred over its own lines in a band of
# its own, boxes of 14.6 pt lines 12.6 pt apart (overlapping), a trailing
# space after each line; the figures under the heads are short and centred,
# so the heads' last line ("Percent of Patients") runs wider than any row of
# cells, past the text of the table's last column.
_TREPROSTINIL_WALLS = (30.0, 157.0, 283.0, 405.0)
_TREPROSTINIL_HEADS = (("Adverse Reaction",),
                       ("Treprostinil Injection", "(N=236)", "Percent of Patients"),
                       ("Placebo", "(N=233)", "Percent of Patients"))
_TREPROSTINIL_ROWS = (("Infusion Site Pain", "85", "27"), ("Infusion Site Reaction", "83", "27"),
                      ("Headache", "27", "23"), ("Diarrhea", "25", "16"), ("Nausea", "22", "18"))


def _treprostinil_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading = 11.0, 12.9
    walls = _TREPROSTINIL_WALLS
    tops = [325.0, 363.5]
    for _row in _TREPROSTINIL_ROWS:
        tops.append(tops[-1] + leading)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.3)
    for x in walls:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.3)
    page.insert_text((36, 300), "Table 4: Adverse Reactions in Controlled 12-Week Studies",
                     fontsize=size)

    def centred(text: str, column: int, y: float) -> None:
        width = pymupdf.get_text_length(text, fontsize=size)
        x = (walls[column] + walls[column + 1] - width) / 2
        page.insert_text((x, y), text + " ", fontsize=size)

    for column, head in enumerate(_TREPROSTINIL_HEADS):
        for k, line in enumerate(head):
            centred(line, column, 335.5 + k * 12.6)
    for top, row in zip(tops[1:], _TREPROSTINIL_ROWS, strict=False):
        page.insert_text((36, top + 10.5), row[0] + " ", fontsize=size)
        for column in (1, 2):
            centred(row[column], column, top + 10.5)
    page.insert_text((36, tops[-1] + 30), "Reported adverse reactions also included "
                     "infusion site bleeding or bruising.", fontsize=size)
    return doc.tobytes()


def test_heads_in_their_own_band_wider_than_the_figures_under_them_read_as_one_row() -> None:
    # Before: the heads' last line ran past the region's text, so the heads
    # were left to MuPDF's blocks, each column's head read apart from its own
    # lines ("Treprostinil Injection", then "Placebo (N=233) Percent of
    # Patients", then "(N=236) Percent of Patients").
    doc = extract_pdf(_treprostinil_pdf())
    _each_verifies_whole(doc, *(" ".join(head) for head in _TREPROSTINIL_HEADS),
                         " ".join(line for head in _TREPROSTINIL_HEADS for line in head),
                         *(" ".join(row) for row in _TREPROSTINIL_ROWS))


# A hemodynamics table as the same label sets it: rules across its rows and
# walls between its columns (no frame closes it here), the heads' first
# column's head ("Hemodynamic / Parameter") left-aligned, each row's
# label centred in that column over its unit line, which is wider and so
# starts further left, level with the head (in the table's first column),
# while the short label ("CI") starts well right of it.
_HEMO_WALLS = (30.0, 124.0, 207.0, 279.0, 365.0, 450.0)
_HEMO_HEADS = (("Hemodynamic", "Parameter"), ("Baseline",), ("Placebo",),
               ("Change",), ("Change on", "placebo"))
_HEMO_ROWS = ((("CI", "(L/min/m²)"), "2.4 ± 0.88", "2.2 ± 0.74", "+0.12 ± 0.58", "-0.06 ± 0.55"),
              (("PAPm", "(mmHg)"), "62 ± 17.6", "60 ± 14.8", "-2.3 ± 7.3", "+0.7 ± 8.5"),
              (("PVRI", "(mmHg/L/min/m²)"), "26 ± 13", "25 ± 13", "-3.5 ± 8.2", "+1.2 ± 7.9"),
              (("SVRI", "(mmHg/L/min/m²)"), "38 ± 15", "39 ± 15", "-3.5 ± 12", "-0.80 ± 12"))


def _hemodynamics_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    size, leading = 11.0, 12.6
    walls = _HEMO_WALLS
    tops = [560.0 - 4 * 25.5 - 30]
    tops.append(tops[0] + 2 * leading + 4)
    for _row in _HEMO_ROWS:
        tops.append(tops[-1] + 2 * leading + 0.3)
    for y in tops:
        page.draw_line((walls[0], y), (walls[-1], y), width=0.3)
    for x in walls[1:-1]:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.3)

    def centred(text: str, column: int, y: float) -> None:
        width = pymupdf.get_text_length(text, fontsize=size)
        x = (walls[column] + walls[column + 1] - width) / 2
        page.insert_text((x, y), text + " ", fontsize=size)

    for k, line in enumerate(_HEMO_HEADS[0]):
        page.insert_text((43.3 + 9 * k, tops[0] + 10.5 + k * leading), line + " ", fontsize=size)
    for column, head in enumerate(_HEMO_HEADS[1:], start=1):
        for k, line in enumerate(head):
            centred(line, column, tops[0] + 10.5 + k * leading)
    for top, row in zip(tops[1:], _HEMO_ROWS, strict=False):
        for k, line in enumerate(row[0]):
            centred(line, 0, top + 10.5 + k * leading)
        for column, value in enumerate(row[1:], start=1):
            centred(value, column, top + 10.5)
    return doc.tobytes()


def test_a_label_centred_over_its_wider_unit_line_reads_with_it_before_its_row() -> None:
    # Before: the unit line starts in the table's first column and the
    # centred label does not, so the unit line opened a row of its own after
    # the label's figures ("CI 2.4 ± 0.88 ... -0.06 ± 0.55", then
    # "(L/min/m²)"); a narrower one ("(mmHg)") read with its label.
    doc = extract_pdf(_hemodynamics_pdf())
    _each_verifies_whole(doc, *(" ".join((*row[0], *row[1:])) for row in _HEMO_ROWS))


# A one-page label in columns of tiny type: a column of prose whose section
# headings have their numbers hung before them ("8  USE IN SPECIFIC
# POPULATIONS": MuPDF gives the number as a line of its own, beside the
# heading, in the column's block), and beside it a ruled efficacy table whose
# rows stand level with the column's lines.
_NAFTIN_WALLS = (304.0, 364.0, 401.0, 432.0, 469.0, 500.0)
_NAFTIN_HEADS = (("Endpoint",), ("NAFTIN® Gel,", "2%", "N=382", "n (%)"),
                 ("Vehicle", "N=179", "n (%)"), ("NAFTIN® Gel,", "2%", "N=400", "n (%)"),
                 ("Vehicle", "N=213", "n (%)"))
_NAFTIN_ROWS = (("Complete Cure", "64 (17%)", "3 (2%)", "104 (26%)", "7 (3%)"),
                ("Treatment Effectiveness", "207 (54%)", "11 (6%)", "203 (51%)", "15 (7%)"),
                ("Mycological Cure", "250 (65%)", "25 (14%)", "235 (59%)", "22 (10%)"))
_NAFTIN_PROSE = (
    ("6", "ADVERSE REACTIONS"),
    "In clinical trials, the most common adverse reaction was application site pruritus.",
    "One percent of subjects treated with the gel had it; no other reaction was seen as often.",
    ("8", "USE IN SPECIFIC POPULATIONS"),
    "8.1 Pregnancy",
    "There are no adequate and well-controlled studies in pregnant women in this label.",
    "Animal studies are not always predictive of human response to a drug applied to the skin.",
    "This drug should be used in pregnancy only if the benefit justifies the risk to the fetus.",
    "The animal multiples of human exposure were based on daily dose body surface area.",
    "Reproductive toxicology studies are described in this section and in another one below.",
    "Systemic embryo-fetal development studies were conducted in rats and rabbits by mouth.",
    "Doses were given during the period of organogenesis to pregnant female rats and rabbits.",
    "No treatment-related effects on embryo-fetal toxicity or teratogenicity were noted.",
    "Up to the highest dose given, many times the human dose, none of them were seen either.",
    "Subcutaneous doses were administered during the period of organogenesis to pregnant rats.",
    "Peri- and post-natal development was studied in rats given the drug by mouth as well.",
)

def _naftin_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    size = 6.0
    y = 540.0
    for line in _NAFTIN_PROSE:
        if isinstance(line, tuple):
            page.insert_text((28.6, y), line[0], fontsize=size)
            page.insert_text((40.6, y), line[1], fontsize=size)
        else:
            page.insert_text((28.6, y), line, fontsize=size)
        y += 7.2
    walls = _NAFTIN_WALLS
    top, under_trials, under_heads = 588.3, 595.1, 620.8
    rows = [under_heads + 8.5 * k for k in range(len(_NAFTIN_ROWS) + 1)]
    for y in (top, under_trials, *rows):
        page.draw_line((walls[0], y), (walls[-1], y), width=0.25)
    for x in (walls[0], walls[-1]):
        page.draw_line((x, top), (x, rows[-1]), width=0.25)
    for x in walls[1:-1]:
        # The walls between a trial's two columns start under its head.
        start = under_trials if x in (walls[2], walls[4]) else top
        page.draw_line((x, start), (x, rows[-1]), width=0.25)

    def centred(text: str, x0: float, x1: float, y: float) -> None:
        w = pymupdf.get_text_length(text, fontsize=5.4)
        page.insert_text(((x0 + x1 - w) / 2, y), text, fontsize=5.4)

    centred("Trial 1", walls[1], walls[3], 593.8)
    centred("Trial 2", walls[3], walls[5], 593.8)
    centred("Endpoint", walls[0], walls[1], 609.0)
    for column, head in enumerate(_NAFTIN_HEADS[1:], start=1):
        for k, line in enumerate(head):
            centred(line, walls[column], walls[column + 1], 600.5 + 6 * k)
    for r, row in enumerate(_NAFTIN_ROWS):
        page.insert_text((walls[0] + 0.8, rows[r] + 6.2), row[0], fontsize=5.4)
        for column, value in enumerate(row[1:], start=1):
            centred(value, walls[column], walls[column + 1], rows[r] + 6.2)
    return doc.tobytes()


def test_a_column_of_prose_with_hung_heading_numbers_beside_a_table_stays_out_of_its_rows() -> None:
    # Before: the number beside each heading made the column's block no
    # paragraph, so its lines were taken as the first cells of the table's
    # rows, one line of prose before each row ("The animal multiples ...",
    # then "NAFTIN® Gel, Vehicle"), and the heads' lines fell apart.
    doc = extract_pdf(_naftin_pdf())
    prose = [line for line in _NAFTIN_PROSE if isinstance(line, str)]
    _each_verifies_whole(doc, " ".join(prose[3:10]),
                         " ".join(line for head in _NAFTIN_HEADS for line in head),
                         *(" ".join(row) for row in _NAFTIN_ROWS))


# A warfarin label's outcome table: a caption right above the top rule,
# heads over two and three lines in the first row's band (the last
# column's "% Risk" a line above the others), rules across only.
_OUTCOME_HEADS = (("Event",), ("Warfarin", "(N=607)"), ("Placebo", "(N=607)"),
                  ("RR", "(95% CI)"), ("% Risk", "Reduction", "(p-value)"))
_OUTCOME_ROWS = (("Total Mortality", "94 (4.7/100 py)", "123 (6.3/100 py)", "0.76 (0.60, 0.97)",
                  "24 (p=0.030)"),
                 ("Major Bleeding", "33 (1.6/100 py)", "22 (1.1/100 py)", "1.48 (0.86, 2.55)",
                  "-48 (p=0.16)"))


def _outcome_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    centres = (80.0, 224.0, 313.0, 403.0, 492.0)
    rules = (97.7, 134.5, 159.0, 183.5)
    for y in rules:
        page.draw_line((66, y), (535, y), width=0.7)
    page.insert_text((282.6, 94.0), "Table 3", fontsize=12)

    def put(text: str, column: int, baseline: float) -> None:
        width = pymupdf.get_text_length(text, fontsize=10)
        x = 66.8 if column == 0 else centres[column] - width / 2
        page.insert_text((x, baseline), text, fontsize=10)

    for column, head in enumerate(_OUTCOME_HEADS):
        for k, line in enumerate(head):
            put(line, column, 131.0 - (len(head) - 1 - k) * 11.5)
    for r, row in enumerate(_OUTCOME_ROWS):
        for column, cell in enumerate(row):
            put(cell, column, rules[r + 1] + 15.0)
    return doc.tobytes()


def test_heads_under_a_top_rule_with_a_caption_over_it_read_as_one_row() -> None:
    # A guard: the caption over the top rule must not keep the heads in the
    # first row's band out of the table ("% Risk" read apart, before it).
    doc = extract_pdf(_outcome_pdf())
    _each_verifies_whole(doc, " ".join(line for head in _OUTCOME_HEADS for line in head),
                         *(" ".join(row) for row in _OUTCOME_ROWS))
    assert "Table 3" in doc.text



def _column_line(text: str, x0: float, y0: float) -> Line:
    """A line of 6 pt type, each character 3 pt wide."""
    boxes = [v for k in range(len(text)) for v in (x0 + 3 * k, y0, x0 + 3 * k + 3, y0 + 7.0)]
    return Line(text, boxes, x0, y0, x0 + 3 * len(text), y0 + 7.0, True)


def test_a_columns_block_with_section_numbers_hung_before_headings_is_a_paragraph() -> None:
    # Before: the number beside each heading, a line of its own on the
    # heading's baseline, made the column's block no paragraph (see
    # test_a_column_of_prose_with_hung_heading_numbers_beside_a_table_...).
    column = [("6", "ADVERSE REACTIONS"),
              "In clinical trials, the most common adverse reaction was application site pruritus.",
              "One percent of subjects treated with the gel had it, no other reaction as often.",
              ("8", "USE IN SPECIFIC POPULATIONS"), "8.1 Pregnancy",
              "There are no adequate and well-controlled studies in pregnant women in this label.",
              "Animal studies are not always predictive of human response to a drug on the skin.",
              "The drug should be used in pregnancy only if the benefit justifies the risk."]
    lines: list[Line] = []
    for k, entry in enumerate(column):
        y0 = 100.0 + 7.2 * k
        if isinstance(entry, tuple):
            lines += [_column_line(entry[0], 28.6, y0), _column_line(entry[1], 40.6, y0)]
        else:
            lines.append(_column_line(entry, 28.6, y0))
    assert _paragraph(block_of(lines))
    # Notes, each a number hung before its text, are not: their next lines
    # run on under the text, or the next note's number stands under the
    # number (the notes under a grid, read by its rows without them).
    notes = [("(1)", "If integral with engine and not integrated in the bedplate."),
             ("(2)", "Only for one cylinder or one cylinder configuration."),
             ("(3)", "Including identification (e.g. drawing number) of components.")]
    lines = [ln for k, (number, note) in enumerate(notes)
             for ln in (_column_line(number, 64.0, 600 + 11.4 * k),
                        _column_line(note, 83.0, 600 + 11.4 * k))]
    lines += [_column_line("Operation manuals are to contain the maintenance requirements.",
                           83.0, 600 + 11.4 * len(notes)),
              _column_line("Tools and gauges to be used are listed with their settings.",
                           83.0, 600 + 11.4 * (len(notes) + 1))]
    assert not _paragraph(block_of(lines))


# An antibiogram's treatment table: organism | drug | notes, ruled cell by
# cell, each cell's lines centred on its row (so no three rows of cells share
# baselines near each other, and the table is found by its rules alone),
# under a plain ruled table of counts (found from its text), both on a page
# framed by a border drawn doubled, two lines 2 pt apart; the notes of two
# organisms one cell merged down both rows, a phrase in it underlined.
_COUNT_ROWS = (("Organism", "Isolates", "Susceptible"), ("Candida albicans", "112", "100%"),
               ("Candida glabrata", "48", "81%"), ("Candida parapsilosis", "37", "97%"))
_YEAST_HEADS = ("Positive Culture Result", "Suggested Initial Option", "Notes")
_YEAST_ROWS: tuple[tuple[tuple[str, ...], ...], ...] = (
    (("Candida albicans",), ("Fluconazole",),
     ("Most commonly seen species and is", "susceptible to fluconazole in all cases.")),
    (("Pichia kudriavzevii", "(formerly Candida krusei)"), ("Micafungin",),
     ("C. krusei is routinely resistant to", "fluconazole.")),
    (("Candida tropicalis",), ("Micafungin or Fluconazole",),
     ("Fluconazole susceptibilities vary. Micafungin", "recommended if patient is",
      "critically ill or unstable.")),
)
# The rows beside the merged notes cell, and its lines (the fourth one's
# first words underlined, under the rule between the rows; the last line
# starts under the underline).
_STAPH_ROWS = (("Oxacillin-Susceptible S. aureus", "Cefazolin or Nafcillin"),
               ("Oxacillin-Resistant S. aureus", "Vancomycin"))
_STAPH_NOTES = ("ID consult recommended. S. aureus is", "never a contaminant, and minimum",
                "duration of therapy is 14 days. Consult", "ID for further follow-up of",
                "antimicrobial therapy.")
_YEAST_WALLS = (60.0, 200.0, 340.0, 560.0)
_YEAST_LEADING = 13.0


def _yeast_pdf(*, doubled_border: bool) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    if doubled_border:
        page.draw_rect((24, 24, 588, 768), width=0.7)
        page.draw_rect((26.2, 26.2, 585.8, 765.8), width=0.7)
    left, right = _YEAST_WALLS[0], _YEAST_WALLS[-1]
    page.insert_text((left, 60), "Candidemia isolates, 2024", fontsize=10)
    for k in range(len(_COUNT_ROWS) + 1):
        page.draw_line((left, 70 + 16 * k), (right, 70 + 16 * k), width=0.7)
    for x in _YEAST_WALLS:
        page.draw_line((x, 70), (x, 70 + 16 * len(_COUNT_ROWS)), width=0.7)
    for k, row in enumerate(_COUNT_ROWS):
        for x, cell in zip(_YEAST_WALLS, row, strict=False):
            page.insert_text((x + 6, 81 + 16 * k), cell, fontsize=8)
    page.insert_text((left, 180), "Blood Culture Rapid Diagnostics and Empiric Treatment",
                     fontsize=10)
    rows = [tuple((head,) for head in _YEAST_HEADS), *_YEAST_ROWS,
            *(((organism,), (drug,), ()) for organism, drug in _STAPH_ROWS)]
    tops = [200.0]
    for k, row in enumerate(rows):
        lines = max(len(cell) for cell in row)
        if k == len(rows) - 2:  # the rows beside the merged notes share its height
            lines = len(_STAPH_NOTES) / 2
        tops.append(tops[-1] + lines * _YEAST_LEADING + 20)
    for k, y in enumerate(tops):
        # Between the rows beside the merged cell, the rule stops at its wall.
        end = _YEAST_WALLS[2] if k == len(tops) - 2 else right
        page.draw_line((left, y), (end, y), width=0.7)
    for x in _YEAST_WALLS:
        page.draw_line((x, tops[0]), (x, tops[-1]), width=0.7)

    def put(lines: tuple[str, ...], column: int, top: float, bottom: float) -> list[float]:
        middle = (top + bottom) / 2
        first = middle + 3.5 - (len(lines) - 1) * _YEAST_LEADING / 2
        baselines = [first + k * _YEAST_LEADING for k in range(len(lines))]
        for line, baseline in zip(lines, baselines, strict=True):
            page.insert_text((_YEAST_WALLS[column] + 6, baseline), line, fontsize=8)
        return baselines

    # Column by column: MuPDF's order runs down them.
    for column in range(3):
        for k, row in enumerate(rows):
            put(row[column], column, tops[k], tops[k + 1])
    baselines = put(_STAPH_NOTES, 2, tops[-3], tops[-1])
    assert baselines[3] > tops[-2]
    width = pymupdf.get_text_length("ID for further", fontsize=8)
    x = _YEAST_WALLS[2] + 6
    page.draw_line((x, baselines[3] + 1.5), (x + width, baselines[3] + 1.5), width=0.5)
    return doc.tobytes()


@pytest.mark.parametrize("doubled_border", [False, True])
def test_a_grid_inside_a_doubled_page_border_reads_by_its_rows(doubled_border: bool) -> None:
    # Before: the border's inner line, running its whole height 2 pt inside
    # the outer, was taken for a column's wall, so the page's border framed
    # a grid of its own, which the table of counts (read from its text)
    # kept from being read, and the treatment table inside it went unread
    # (its notes read apart from their organisms).
    doc = extract_pdf(_yeast_pdf(doubled_border=doubled_border))
    _each_verifies_whole(doc, *(" ".join(row) for row in _COUNT_ROWS), " ".join(_YEAST_HEADS), *(
        " ".join(line for cell in row for line in cell) for row in _YEAST_ROWS))


def test_an_underline_in_a_merged_cell_keeps_the_cells_lines_under_it_with_it() -> None:
    # Before: the underline was taken for the top of a cell, so the merged
    # cell's last line, starting under it, read with the row below.
    doc = extract_pdf(_yeast_pdf(doubled_border=False))
    first, second = _STAPH_ROWS
    _each_verifies_whole(doc, " ".join((*first, *_STAPH_NOTES)), " ".join(second))


def test_a_rule_rounded_to_the_height_of_another_is_not_joined_into_it() -> None:
    # An antibiogram's row rule: its first cells' pieces at 255.65, those
    # of the cells shaded black (their edges) at 256.13, and short rules
    # at 255.17 over a few shaded cells to the right. Before: sorted by
    # rounded height, the piece at 255.65 from x = 62 came after the last
    # rule at 255.17 (x = 702 to 729), close enough in height, and was
    # joined into it, so the row's rule lost its first cells (and a grid's
    # cells there read merged down the rows).
    rules = [(239.2, 261.0, 255.17), (702.6, 728.6, 255.17), (62.3, 215.5, 255.65),
             (215.5, 216.5, 255.65), (216.5, 238.2, 256.13), (238.2, 760.0, 255.65)]
    joined = _joined(rules)
    assert any(x0 == 62.3 and x1 == 760.0 for x0, x1, _y in joined), joined
    assert (239.2, 261.0, 255.17) in joined and (702.6, 728.6, 255.17) in joined
