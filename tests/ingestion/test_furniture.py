"""find_furniture(): running headers, footers and page numbers, and nothing else."""

from __future__ import annotations

import pymupdf

from reviewer.ingestion import ExtractedDocument, FurnitureConfig, extract_pdf, find_furniture
from tests.factories import (
    BODY_NUMBER,
    ONE_OFF_TOP_LINE,
    TITLE,
    BuiltPdf,
)
from verification import Source, normalize, verify_answer


def ranges_of(doc: ExtractedDocument, number: int, lines: list[str]) -> list[tuple[int, int]]:
    page = doc.pages[number - 1]
    found = []
    for line in lines:
        start = doc.text.index(line, page.text_start, page.text_end)
        found.append((start, start + len(line)))
    return found


def test_furniture_is_exactly_headers_footers_and_page_numbers(
    report: BuiltPdf, report_doc: ExtractedDocument
) -> None:
    expected = sorted(
        r
        for number, lines in enumerate(report.furniture, 1)
        for r in ranges_of(report_doc, number, lines)
    )
    assert find_furniture(report_doc) == expected


def test_one_off_margin_lines_and_body_numbers_are_not_furniture(
    report_doc: ExtractedDocument,
) -> None:
    furniture_text = {report_doc.text[s:e] for s, e in find_furniture(report_doc)}
    assert ONE_OFF_TOP_LINE not in furniture_text
    assert TITLE not in furniture_text
    assert BODY_NUMBER not in furniture_text


def test_skipping_furniture_joins_text_across_the_page_break(
    report_doc: ExtractedDocument,
) -> None:
    folded = normalize(report_doc.text, skip=find_furniture(report_doc)).text
    assert "the treaty was signed in geneva by all parties." in folded
    assert "journal of reproducible tests" not in folded


def test_repetition_threshold_is_configurable(report_doc: ExtractedDocument) -> None:
    strict = find_furniture(report_doc, config=FurnitureConfig(min_pages=5))
    # With more pages required than exist, every page must repeat the line.
    assert len(strict) == len(find_furniture(report_doc))
    narrow = find_furniture(report_doc, config=FurnitureConfig(margin=0.01))
    assert narrow == []


def test_single_page_document_has_only_its_page_number() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 30), "Lonely header")
    page.insert_text((72, 400), "Body text of the only page.")
    page.insert_text((290, 820), "7")
    extracted = extract_pdf(doc.tobytes())
    assert [extracted.text[s:e] for s, e in find_furniture(extracted)] == ["7"]


def test_stored_geometry_gives_the_same_furniture(report_doc: ExtractedDocument) -> None:
    # Extraction records the margin lines as it goes; a document rebuilt from
    # stored data, or a band wider than the recorded one, measures them again.
    rebuilt = ExtractedDocument.from_bytes(report_doc.to_bytes(), text=report_doc.text)
    assert rebuilt.lines is None and report_doc.lines is not None
    assert find_furniture(rebuilt) == find_furniture(report_doc)
    for margin in (0.01, 0.05, 0.25, 0.3, 0.5):
        config = FurnitureConfig(margin=margin, min_pages=2)
        assert find_furniture(rebuilt, config=config) == find_furniture(report_doc, config=config)
    wide = find_furniture(report_doc, config=FurnitureConfig(margin=0.5, min_pages=2))
    assert set(find_furniture(report_doc)) <= set(wide)


def test_a_deep_letterhead_repeats_into_furniture_but_a_lone_number_there_does_not() -> None:
    # An agreement's letterhead reaches 13% of the page (the corpus' legal
    # fax); a chart's axis label at that height is a bare number, not a page's.
    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page()  # A4: 842 pt high, 13% is 109 pt
        page.insert_text((72, 40), "International Council of Operators")
        page.insert_text((72, 106), "Appendix A - Members")
        page.insert_text((400, 122), "30")
        page.insert_text((72, 400), f"Body text of page {number}, which says something new.")
        page.insert_text((290, 820), str(number))
    extracted = extract_pdf(doc.tobytes())
    found = [extracted.text[s:e] for s, e in find_furniture(extracted)]
    assert found.count("Appendix A - Members") == 3
    assert found.count("International Council of Operators") == 3
    assert "30" not in found
    assert [n for n in found if n.isdigit()] == ["1", "2", "3"]
    narrow = FurnitureConfig(margin=0.1)
    assert "Appendix A - Members" not in [
        extracted.text[s:e] for s, e in find_furniture(extracted, config=narrow)]


def test_a_long_tables_rows_in_the_top_band_are_text_and_a_counting_header_is_furniture() -> None:
    # The Tennessee layoff list: each page's first rows sit in the top band
    # at the same heights, and "03/20/2012" folds as "06/01/2012" does two
    # pages on; a running head's numbers count the pages instead. The counts
    # mostly fall from page to page (85, 53, 47, ...), as a counter started
    # again would, but not to a number the pages between could have reached.
    # A cell that repeats word for word sits beside cells that do not.
    doc = pymupdf.open()
    dates = iter(["03/20/2012", "03/27/2012", "06/01/2012", "06/13/2012", "08/17/2012",
                  "09/04/2012", "10/24/2012", "11/02/2012", "11/20/2012", "12/03/2012"])
    counts = (85, 53, 47, 175, 88)
    for number, count in enumerate(counts, 1):
        page = doc.new_page()
        page.insert_text((72, 30), f"Layoff notices 2012, page {number + 40}")
        for top in (70, 90):
            page.insert_text((72, top), next(dates))
        page.insert_text((300, 90), f"{count} Closure Permanent")
        # A county the list could not name, on every page's second row:
        # repeated word for word, beside cells that differ.
        page.insert_text((200, 90), ("Dex One", "Bunge Oils", "Food Lion", "Graftech",
                                     "Insyte")[number - 1])
        page.insert_text((450, 90), "Not Identified")
        page.insert_text((72, 400), f"Notices received in month {number} of the year.")
    extracted = extract_pdf(doc.tobytes())
    found = [extracted.text[s:e] for s, e in find_furniture(extracted)]
    assert found == [f"Layoff notices 2012, page {n + 40}" for n in range(1, 6)]


def test_numbers_that_stay_or_start_again_are_a_running_line_still() -> None:
    # An exhibit bundle: "Case 2:17-cv-01088 Document 45 ... Page 1 of 2", and
    # the next exhibit's pages count from 1 again.
    doc = pymupdf.open()
    for document, page_of in ((45, 1), (45, 2), (46, 1), (46, 2), (46, 3)):
        page = doc.new_page()
        total = 2 if document == 45 else 3
        page.insert_text((72, 30), f"Case 2:17-cv-01088 Document {document} Page {page_of} of "
                                   f"{total}")
        page.insert_text((72, 400), f"Exhibit text of document {document}, page {page_of}.")
    extracted = extract_pdf(doc.tobytes())
    found = [extracted.text[s:e] for s, e in find_furniture(extracted)]
    assert len(found) == 5 and all(line.startswith("Case 2:17-cv-01088") for line in found)


def test_a_line_twice_in_the_band_page_after_page_is_a_column_not_a_running_line() -> None:
    # A gazette's list of banned combinations, a ruled table over several
    # pages: each row's last cell is its notification number with
    # "Dated 02.08.2024" on the line under it, alone on that line whenever the
    # drug's name fits on one. The rows at the top of each page fall at the
    # same heights, so the date repeats in place from page to page like a
    # running line; but a running line is printed once in its place, and this
    # one stands at two heights of the band on one page after another. The
    # running title, printed twice on the first page only (as the title, and
    # as the page's running line), is still a running line.
    doc = pymupdf.open()
    row = 0
    for number in range(1, 6):
        page = doc.new_page()
        page.insert_text((72, 30), "Banned fixed dose combinations, topical use")
        if number == 1:
            page.insert_text((72, 60), "Banned fixed dose combinations, topical use")
        for top in (70, 100):
            row += 1
            page.insert_text((72, top), f"{row}. Combination number {row}")
            page.insert_text((380, top), f"S.O.{3300 + row} (E)")
            page.insert_text((380, top + 14), "Dated 02.08.2024")
            page.draw_line((60, top + 20), (540, top + 20))
        page.insert_text((72, 400), f"Further combinations follow on page {number + 1}.")
    extracted = extract_pdf(doc.tobytes())
    found = [extracted.text[s:e] for s, e in find_furniture(extracted)]
    assert found == ["Banned fixed dose combinations, topical use"] * 5
def test_numbers_stacked_in_a_band_are_a_lists_and_not_page_numbers() -> None:
    # A list of items not paid for, "Sl | Item", whose first rows start in
    # the top band and whose last rows reach into the bottom one; the page's
    # own number stands alone at the foot, away from the list's column.
    doc = pymupdf.open()
    page = doc.new_page()  # A4: 842 pt high, the bands 84 pt deep
    items = ["BABY FOOD", "BABY UTILITIES CHARGES", "BEAUTY SERVICES", "BELTS/ BRACES"]
    items += [f"ITEM NUMBER {n}" for n in range(5, 87)]
    for k, item in enumerate(items):
        y = 50 + 9 * k
        page.insert_text((40, y), str(k + 1), fontsize=8)
        page.insert_text((60, y), item, fontsize=8)
    page.insert_text((290, 825), "7", fontsize=9)
    extracted = extract_pdf(doc.tobytes())
    assert [extracted.text[s:e] for s, e in find_furniture(extracted)] == ["7"]




def test_a_lone_figure_in_a_table_row_at_the_top_of_a_page_is_no_page_number() -> None:
    # The OZEMPIC label's page 8: Table 1 runs on from page 7, its rows at
    # the very top of the page; the "5" of "Vomiting  2.3  5  9.2" was taken
    # for a bare page number and skipped, so a quote of the row "added" it.
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for y, row in ((46, ("Nausea", "6.1", "15.8", "20.3")), (60, ("Vomiting", "2.3", "5", "9.2")),
                   (74, ("Diarrhea", "1.9", "8.5", "8.8"))):
        for x, cell in zip((72, 260, 390, 520), row, strict=True):
            page.insert_text((x, y), cell, fontsize=12)
    page.insert_text((72, 400), "Body text of the only page.")
    page.insert_text((300, 770), "8")
    extracted = extract_pdf(doc.tobytes())
    assert [extracted.text[s:e] for s, e in find_furniture(extracted)] == ["8"]
    report = verify_answer('The table says "Vomiting 2.3 5 9.2" [S1].',
                           [Source("S1", extracted.text, skip=tuple(find_furniture(extracted)))])
    assert report.counts["verified"] == 1


def test_a_numbered_row_at_the_foot_of_page_after_page_is_no_page_number() -> None:
    # A gazette's table of sites runs over the pages; each page's last row
    # starts with the site's number, alone on its line low in the bottom
    # band ("55 VALENCE ..." at the foot of one page, "70 LANVEOC ..." of
    # the next). Each was taken for a bare page number and skipped, so a
    # quote of the row "added" its number. The pages' own numbers count the
    # pages; the rows' numbers do not.
    rows = (("55", "VALENCE", "26 - Drome", "Ministere de la justice"),
            ("70", "LANVEOC", "29 - Finistere", "Ministere des armees"),
            ("86", "CRISSEY", "71 - Saone-et-Loire", "Ministere des armees"))
    doc = pymupdf.open()
    for number, row in enumerate(rows, 1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 400), f"Sites of the list, part {number}, read row by row.")
        for x, cell in zip((60, 120, 240, 400), row, strict=True):
            page.insert_text((x, 770), cell, fontsize=9)
        page.insert_text((297, 820), str(number + 6), fontsize=9)
    extracted = extract_pdf(doc.tobytes())
    assert [extracted.text[s:e] for s, e in find_furniture(extracted)] == ["7", "8", "9"]
    skip = tuple(find_furniture(extracted))
    for row in rows:
        report = verify_answer(f'The list says "{" ".join(row)}" [S1].',
                               [Source("S1", extracted.text, skip=skip)])
        assert report.counts["verified"] == 1, row


def test_a_cells_first_line_repeated_at_the_foot_of_each_page_is_text() -> None:
    # The same gazette: each page's last row holds the site's polygon, a
    # cell of several lines opening "polygone délimité par les points : A :"
    # at one height page after page, the row's other cells centred lower,
    # beside its corners, not level with that first line. It was taken for a
    # running footer and skipped, so a quote of the cell did not verify. The
    # page's own footer is still furniture.
    rows = (("36", "SAINT MARTIN", "001° 21' 23\" O", "001° 21' 40\" O"),
            ("147", "LANN-BIHOUE", "003° 26' 40\" O", "003° 25' 29\" O"),
            ("228", "TOULON", "005° 55' 56\" E", "005° 55' 55\" E"))
    doc = pymupdf.open()
    for number, (site, name, a, b) in enumerate(rows, 1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 400), f"Sites of the list, part {number}, read row by row.")
        page.insert_text((60, 778), site, fontsize=7)
        page.insert_text((110, 778), name, fontsize=7)
        for k, line in enumerate(("polygone délimité par les points : A :", a, f"B : {b}")):
            page.insert_text((250, 769 + 8.4 * k), line, fontsize=7)
        page.insert_text((420, 778), "Ministère de la justice", fontsize=7)
        page.insert_text((200, 825), "JOURNAL OFFICIEL DE LA RÉPUBLIQUE FRANÇAISE", fontsize=8)
    extracted = extract_pdf(doc.tobytes())
    skip = tuple(find_furniture(extracted))
    assert [extracted.text[s:e] for s, e in skip] == [
        "JOURNAL OFFICIEL DE LA RÉPUBLIQUE FRANÇAISE"] * 3
    quote = f"polygone délimité par les points : A : {rows[1][2]} B : {rows[1][3]}"
    report = verify_answer(f"The order lists “{quote}” [S1].",
                           [Source("S1", extracted.text, skip=skip)])
    assert report.counts["verified"] == 1, report.citations[0].message
