"""Reading order inside one text block whose lines span columns (issue 10, item 1).

Each fixture writes its rows left to right on shared baselines, which is how
MuPDF comes to put the lines of several columns in one block; every test first
checks that the fixture really is one such block.
"""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, layout
from verification import verify_answer

FONT_SIZE = 9.0
LEADING = 11.0
COLUMNS = (54.0, 234.0, 414.0)  # 162 points wide, 18-point gutters

# Three columns of prose, about 160 points wide each at 9 points (Helvetica).
PROSE = (
    [
        "Medical and dental expenses that you",
        "paid during the year for yourself, your",
        "spouse and your dependents can be",
        "deducted only to the extent that they",
        "exceed ten percent of the amount of",
        "your adjusted gross income this year.",
    ],
    [
        "Insurance premiums for policies that",
        "cover medical care are included, but",
        "the part of a car insurance premium",
        "that covers injuries to others is not",
        "a medical expense for this purpose and",
        "cannot be counted among the others.",
    ],
    [
        "Travel to a doctor for treatment may",
        "be included at the standard mileage",
        "rate for the year, together with the",
        "parking fees and tolls that you paid",
        "while going to see that doctor, but",
        "not the cost of meals on the way there.",
    ],
)

# A worksheet box across the first two columns, between their upper and lower
# halves; the third column runs beside it.
BOX = [
    "Worksheet line 1. Enter the amount from Form 1040, line 38 here",
    "Worksheet line 2. Multiply the amount on line 1 by ten percent",
    "Worksheet line 3. Subtract line 2 from line 1 and enter the result",
]

TABLE = [
    ["Drug", "Dose", "Route", "Schedule"],
    ["Paclitaxel", "30 mg", "IV", "every 3 weeks"],
    ["Carboplatin", "400 mg", "IV", "every 4 weeks"],
    ["Docetaxel", "75 mg", "IV", "every 3 weeks"],
    ["Cisplatin", "20 mg", "IV", "daily for 5 days"],
    ["Etoposide", "100 mg", "PO", "twice daily"],
]
TABLE_COLUMNS = (72.0, 172.0, 252.0, 312.0)


def build(rows: list[list[tuple[float, str]]]) -> bytes:
    """A one-page PDF with each row's pieces written left to right on one baseline."""
    doc = pymupdf.open()
    page = doc.new_page()
    for k, row in enumerate(rows):
        for x, text in row:
            page.insert_text((x, 100 + k * LEADING), text, fontsize=FONT_SIZE, fontname="helv")
    data: bytes = doc.tobytes()
    doc.close()
    return data


def text_blocks(data: bytes) -> list[list[str]]:
    with pymupdf.open(stream=data, filetype="pdf") as doc:
        blocks = doc[0].get_text("dict")["blocks"]
    return [
        ["".join(span["text"] for span in line["spans"]) for line in block["lines"]]
        for block in blocks
        if block["type"] == 0
    ]


def lines_of(doc: ExtractedDocument) -> list[str]:
    return [line for line in doc.page_text(1).split("\n") if line.strip()]


def assert_one_block_across_columns(data: bytes, first: str, beside: str) -> None:
    """The fixture is what the issue is about: one block, and in it the line
    ``beside`` follows ``first`` on the same baseline."""
    (lines,) = text_blocks(data)
    assert lines[lines.index(first) + 1] == beside


def test_three_columns_of_prose_in_one_block_read_column_by_column() -> None:
    rows = [
        [(x, column[k]) for x, column in zip(COLUMNS, PROSE, strict=True)]
        for k in range(len(PROSE[0]))
    ]
    data = build(rows)
    assert_one_block_across_columns(data, PROSE[0][0], PROSE[1][0])

    doc = extract_pdf(data)

    assert lines_of(doc) == PROSE[0] + PROSE[1] + PROSE[2]
    # Columns are separate paragraphs, as separate blocks would be.
    assert f"{PROSE[0][-1]}\n\n{PROSE[1][0]}" in doc.text


def test_worksheet_box_across_two_columns_reads_whole_in_its_place() -> None:
    left, middle, right = PROSE
    top, bottom = 3, 3  # lines of the first two columns above and below the box
    rows: list[list[tuple[float, str]]] = []
    for k in range(top):
        rows.append([(COLUMNS[0], left[k]), (COLUMNS[1], middle[k]), (COLUMNS[2], right[k])])
    for k, line in enumerate(BOX):
        rows.append([(COLUMNS[0], line), (COLUMNS[2], right[top + k])])
    for k in range(bottom):
        rows.append([(COLUMNS[0], left[top + k]), (COLUMNS[1], middle[top + k])])
    data = build(rows)
    assert_one_block_across_columns(data, BOX[0], right[top])

    doc = extract_pdf(data)

    assert lines_of(doc) == (
        left[:top] + middle[:top] + BOX + left[top:] + middle[top:] + right
    )


def test_table_in_one_block_reads_row_by_row() -> None:
    rows = [list(zip(TABLE_COLUMNS, cells, strict=True)) for cells in TABLE]
    data = build(rows)
    assert_one_block_across_columns(data, "Paclitaxel", "30 mg")

    doc = extract_pdf(data)

    # Cells a gutter apart are not joined into one line of text, but each row
    # stays together and in order.
    assert lines_of(doc) == [cell for cells in TABLE for cell in cells]
    report = verify_answer(
        'The regimen is "Paclitaxel 30 mg IV every 3 weeks" [S1].', {"S1": doc.text}
    )
    (citation,) = report.citations
    assert citation.outcome == "verified"


@pytest.mark.parametrize("gap", [4.0, 40.0])
def test_lines_on_one_baseline_join_only_across_a_word_space(gap: float) -> None:
    # MuPDF splits a line at a wide space; a few points is still one line of
    # text, forty is two columns' worth.
    with pymupdf.open() as pdf:
        page = pdf.new_page()
        page.insert_text((72, 100), "left words", fontsize=FONT_SIZE, fontname="helv")
        width = pymupdf.get_text_length("left words", fontname="helv", fontsize=FONT_SIZE)
        page.insert_text(
            (72 + width + gap, 100), "right words", fontsize=FONT_SIZE, fontname="helv"
        )
        data = pdf.tobytes()
    joined = extract_pdf(data).page_text(1)
    assert joined == ("left words right words" if gap < 10 else "left words\nright words")


def _block(*lines: tuple[str, float, float, float, float]) -> layout.Block:
    return layout.block_of([
        layout.Line(text, [], x0, y0, x1, y1, True) for text, x0, y0, x1, y1 in lines
    ])


def test_a_tall_header_cell_reads_whole_before_the_next_rows_label() -> None:
    # The geometry of the Eliquis SmPC's adverse-reaction table (from its
    # PDF, in points): MuPDF gives the header cell of column 2 as stacked
    # blocks, its last line above the first row's label in column 1. Two rows
    # holding one block each are not a column stretch to read column by
    # column, so the label no longer cuts the cell before "surgery (VTEp)".
    blocks = [
        _block(("System organ class", 98, 102, 190, 113), ("Prevention of", 275, 102, 337, 113)),
        _block(("VTE in adult", 276, 114, 336, 125)),
        _block(("patients who", 269, 126, 342, 137), ("have undergone", 269, 138, 342, 149)),
        _block(("elective hip or", 266, 149, 346, 161), ("knee replacement", 266, 161, 343, 173)),
        _block(("surgery (VTEp)", 269, 173, 342, 185)),
        _block(("Blood and lymphatic system disorders", 98, 197, 259, 209)),
    ]
    ordered = layout.reading_order(list(reversed(blocks)), 11.0)
    assert [bl.lines[0].text for bl in ordered] == [bl.lines[0].text for bl in blocks]


def test_two_column_rows_split_at_a_common_gap_are_still_read_column_by_column() -> None:
    # Both rows have blocks side by side: one stretch of two columns.
    left_top, right_top = _block(("L1", 50, 100, 250, 190)), _block(("R1", 300, 100, 500, 195))
    left_low, right_low = _block(("L2", 50, 200, 250, 300)), _block(("R2", 300, 200, 500, 300))
    ordered = layout.reading_order([left_top, right_top, left_low, right_low], 11.0)
    assert [bl.lines[0].text for bl in ordered] == ["L1", "L2", "R1", "R2"]


def test_a_title_line_centred_over_turned_heads_reads_with_its_title() -> None:
    # camelot's agstat table (outside batch 2): a title on two centred lines,
    # the second ("DURING 2012-13") narrower than the table, over heads turned
    # a quarter, each a block of its own, in groups side by side. The short
    # line sat over several of them and was read as the top of their group's
    # column, among the heads; it is the title's, read right after its first line.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((80, 100), "DISTRICT WISE ESTIMATES OF MARKETABLE SURPLUS OF RICE",
                     fontsize=11, fontname="hebo")
    page.insert_text((240, 116), "DURING 2012-13", fontsize=11, fontname="hebo")
    heads = [(170, "Projected Population"), (184, "for 2012-13"), (198, "(In lakhs)"),
             (230, "Total Consumption"), (244, "requirement"), (258, "(In Lakh tonnes)"),
             (290, "Total Requirement"), (304, "feeds & wastage")]
    for x, head in heads:
        page.insert_text((x, 230), head, fontsize=10, fontname="helv", rotate=90)
    page.insert_text((60, 190), "District", fontsize=10, fontname="helv")
    data = doc.tobytes()
    doc.close()
    # The fixture: the short title line is a block of its own, over the heads.
    assert ["DURING 2012-13"] in text_blocks(data)
    lines = lines_of(extract_pdf(data, ocr=None))
    assert lines[:3] == [
        "DISTRICT WISE ESTIMATES OF MARKETABLE SURPLUS OF RICE", "DURING 2012-13", "District",
    ]


def _justified_cell() -> bytes:
    """A justified paragraph 250 points wide at 8 points, as a narrow table
    cell sets it (camelot's outbreak reports, outside batch 2): each line
    stretched to both edges, one line's words placed apart by more than a
    line height, so that MuPDF reads that line as six pieces."""
    width = 250.0
    lines: list[str | list[str]] = [
        "Cases reported from Village Madan Nada, HSC/PHC Vembayam,",
        ["Block", "Kanyakulangara,", "District", "Trivandrum.", "District", "RRT"],
        "investigated the outbreak. All the cases consumed rice items in an",
        "Annadanam feast organized in a temple premises of Madan Nada.",
        "Out of 21 stool samples collected and sent to Trivandrum Medical",
    ]
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 50), "x", fontsize=8)  # registers the font /helv
    parts = []
    for k, line in enumerate(lines):
        y = 700 - k * 11
        if isinstance(line, str):  # stretched by word spacing: one piece
            spare = width - pymupdf.get_text_length(line, fontsize=8)
            parts.append(f"BT /helv 8 Tf {spare / line.count(' '):.3f} Tw "
                         f"1 0 0 1 72 {y} Tm ({line}) Tj ET")
        else:  # words placed apart: MuPDF cuts the line at each gap
            gap = (width - sum(pymupdf.get_text_length(w, fontsize=8) for w in line)) / 5
            spaced = f" {-gap * 1000 / 8:.1f} ".join(f"({w})" for w in line)
            parts.append(f"BT /helv 8 Tf 0 Tw 1 0 0 1 72 {y} Tm [{spaced}] TJ ET")
    doc.update_stream(page.get_contents()[0], " ".join(parts).encode())
    data: bytes = doc.tobytes()
    doc.close()
    return data


def test_a_justified_line_cut_at_its_stretched_spaces_reads_as_one_line() -> None:
    data = _justified_cell()
    # The fixture: the stretched line is six pieces in MuPDF's block.
    (block,) = text_blocks(data)
    assert block[1:7] == ["Block", "Kanyakulangara,", "District", "Trivandrum.", "District", "RRT"]
    doc = extract_pdf(data, ocr=None)
    assert lines_of(doc)[1] == "Block Kanyakulangara, District Trivandrum. District RRT"
    quote = "HSC/PHC Vembayam, Block Kanyakulangara, District Trivandrum. District RRT investigated"
    (citation,) = verify_answer(f'The report says "{quote}" [S1].', {"S1": doc.text}).citations
    assert citation.outcome == "verified", citation.message


def test_pieces_of_a_line_apart_unevenly_or_without_a_justified_paragraph_stay_apart() -> None:
    # Cells of a table row on one baseline are no justified line: here their
    # gaps are uneven (12, 30 and 12 points) and no other line runs from edge to edge.
    doc = extract_pdf(build([[(72.0, "Drug"), (110.0, "Dose"), (170.0, "Route"), (214.0, "Days")]]),
                      ocr=None)
    assert "Drug Dose Route Days" not in doc.text


def _heads_at_page_foot() -> bytes:
    """The OZEMPIC label's page 7 (its geometry, in points): a paragraph
    across the page, Table 1's caption, and its heads closing the page in a
    ruled row, each head's lines stacked apart; the page's running line in
    the left margin under them."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 650), "Table 1 shows common adverse reactions in the pool of "
                     "placebo-controlled trials.", fontsize=12, fontname="tiro")
    page.insert_text((72, 690), "Table 1. Adverse Reactions in Placebo-Controlled Trials",
                     fontsize=12, fontname="tibo")
    heads = [(72, 720, "Adverse Reaction"), (210, 720, "Placebo (N=262)"), (246, 733, "%"),
             (340, 720, "OZEMPIC 0.5 mg"), (366, 734, "(N=260)"), (381, 747, "%"),
             (456, 720, "OZEMPIC 1 mg (N=261)"), (514, 733, "%")]
    for x, y, text in heads:
        page.insert_text((x, y), text, fontsize=12, fontname="tiro")
    for y in (708.5, 750.3):
        page.draw_line((50, y), (589, y), width=0.5)
    for x in (50, 185, 319, 454, 589):
        page.draw_line((x, 708.5), (x, 750.3), width=0.5)
    page.insert_text((10, 781), "Reference ID: 5676363", fontsize=8, fontname="helv")
    return doc.tobytes()


def test_a_running_line_in_the_margin_under_a_tables_heads_reads_after_them() -> None:
    # Taken into the heads' stretch of columns (one block each, side by
    # side), the running line read inside the first column, between
    # "Placebo (N=262) / %" and "OZEMPIC 0.5 mg": a quote of the heads failed.
    lines = lines_of(extract_pdf(_heads_at_page_foot(), ocr=None))
    assert lines[-1] == "Reference ID: 5676363"
    assert lines.index("OZEMPIC 1 mg (N=261)") < lines.index("Reference ID: 5676363")


def test_a_columns_next_paragraph_under_a_stretch_still_reads_in_its_column() -> None:
    # Not a running line: the left column's next block keeps to its width.
    left_top, right_top = _block(("L1", 50, 100, 250, 190)), _block(("R1", 300, 100, 500, 195))
    left_low = _block(("L2", 50, 200, 250, 240))
    ordered = layout.reading_order([left_top, right_top, left_low], 11.0)
    assert [bl.lines[0].text for bl in ordered] == ["L1", "L2", "R1"]


def test_a_wider_block_under_a_narrow_start_of_a_stretch_still_reads_in_its_column() -> None:
    # The Berlin statute's fee schedule (outside batch 5, p29, in points): a
    # heading beside the notes' heading opens the stretch, and the left
    # column's next block, in the same type, is wider than that heading. It
    # is no running line in the margin: the notes' heading reads after it.
    blocks = [
        _block(("BlnInfGB – Informationsfreiheit auf Bundesebene", 197, 23, 377, 30)),
        _block(("Anlage", 231, 48, 286, 57), ("(zu § 1 Abs. 1)", 231, 57, 286, 66)),
        _block(("Anmerkungen:", 309, 48, 363, 56)),
        _block(("Gebühren- und Auslagenverzeichnis", 81, 80, 247, 89)),
        _block(("Teil A", 141, 103, 187, 112), ("Gebühren", 141, 116, 187, 125)),
    ]
    ordered = layout.reading_order(list(reversed(blocks)), 9.0)
    assert [bl.lines[0].text for bl in ordered] == [
        "BlnInfGB – Informationsfreiheit auf Bundesebene",
        "Anlage", "Gebühren- und Auslagenverzeichnis", "Teil A", "Anmerkungen:",
    ]


def _piece(text: str, x0: float, x1: float, y0: float, y1: float) -> layout.Line:
    step = (x1 - x0) / len(text)
    boxes = [v for k in range(len(text)) for v in (x0 + k * step, y0, x0 + (k + 1) * step, y1)]
    return layout.Line(text, boxes, x0, y0, x1, y1, True)


def test_a_paragraph_cut_at_a_raised_ordinal_runs_on_from_the_line_before() -> None:
    # A report's "Court of Appeals for the 4" ends one block, and "th Circuit,
    # which is located in Richmond," (its raised "th" lifting the top a
    # little) starts the next, which holds the paragraph's other lines:
    # one line, and one paragraph.
    first = _piece("the decisions of the Court of Appeals for the 4", 72.0, 300.0, 100.0, 112.0)
    rest = _piece("th Circuit, which is located in Richmond,", 300.0, 480.0, 99.6, 112.0)
    after = _piece("Virginia, and covers the state.", 72.0, 220.0, 114.0, 126.0)
    sidebar = _piece("Note", 500.0, 520.0, 100.0, 112.0)
    blocks = layout.strips_joined([[first], [sidebar], [rest, after]])
    assert [[line.text for line in block] for block in blocks] == [
        ["the decisions of the Court of Appeals for the 4th Circuit, which is located in "
         "Richmond,", "Virginia, and covers the state."],
        ["Note"],
    ]
    # A piece that does not touch the line's end, or sits lower, is another line.
    apart = _piece("th Circuit", 310.0, 360.0, 99.6, 112.0)
    lower = _piece("th Circuit", 300.0, 350.0, 101.0, 113.0)
    for other in (apart, lower):
        assert len(layout.strips_joined([[first], [other]])) == 2
