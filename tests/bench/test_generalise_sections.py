"""The helpers of bench/generalise.py's sections that decide what is measured:
the raised-marker detector, the three quote forms, the table cell's words, and
the image-only page a born-digital page becomes."""

from __future__ import annotations

import shutil

import pymupdf
import pytest

from bench.generalise import Window
from bench.generalise_sections.footnotes import marker_forms, raised_markers, read_in_order
from bench.generalise_sections.scans import (
    image_only_pdf,
    language_of,
    misdecoded_glyphs,
    repaired_window,
)
from bench.generalise_sections.tables import (
    by_row_reason,
    cell_text,
    cell_words,
    spans_rows,
    to_poppler_frame,
    visual_rows,
)
from bench.poppler import PopplerPage, PopplerWord, poppler_pages, word_key


class Grid:
    """pdfplumber's table as ``by_row_reason`` reads it: ``extract()`` gives each
    row's texts, ``rows[i].cells`` its boxes, ``None`` where a merged cell covers
    the place."""

    class Row:
        def __init__(self, texts: list[str | None]) -> None:
            self.cells = [None if t is None else (0, 0, 1, 1) for t in texts]

    def __init__(self, *texts: list[str | None]) -> None:
        self.texts = [list(row) for row in texts]
        self.rows = [Grid.Row(row) for row in self.texts]

    def extract(self) -> list[list[str | None]]:
        return self.texts


def word(text: str, x0: float, top: float, x1: float, bottom: float) -> PopplerWord:
    return PopplerWord(text, word_key(text), (x0, top, x1, bottom), line=1)


def line_with(marker: PopplerWord, before: str = "Act") -> list[PopplerWord]:
    """"... the Copyright Act³ to create ..." at 10 pt on a baseline near 110."""
    return [word("the", 10, 100, 25, 112), word("Copyright", 28, 100, 70, 112),
            word(before, 73, 100, 90, 112), marker, word("to", 97, 100, 106, 112),
            word("create", 109, 100, 135, 112)]


def test_a_raised_smaller_digit_after_a_word_is_a_marker() -> None:
    assert raised_markers(line_with(word("3", 90.5, 98, 94.5, 106))) == [3]


@pytest.mark.parametrize("symbol", ["†", "*", "1,2", "¹"])
def test_symbols_and_lists_of_numbers_are_markers_too(symbol: str) -> None:
    assert raised_markers(line_with(word(symbol, 90.5, 98, 94.5, 106))) == [3]


def test_a_digit_at_the_lines_size_and_baseline_is_a_number() -> None:
    assert raised_markers(line_with(word("3", 92, 100, 97, 112))) == []


def test_a_smaller_digit_on_the_baseline_is_not_raised() -> None:
    assert raised_markers(line_with(word("3", 90.5, 104, 94.5, 112))) == []


@pytest.mark.parametrize("before", ["x", "1.09", "mm", "ρc"])
def test_an_exponent_after_a_short_word_or_a_number_is_not_a_marker(before: str) -> None:
    assert raised_markers(line_with(word("2", 90.5, 98, 94.5, 106), before=before)) == []


def test_a_short_word_in_a_turned_line_is_no_marker() -> None:
    # GPO's printer's note "Insert offset folio 8 here HR728.001", 4 pt, turned
    # a quarter up the page's edge: each box is the word's length tall and the
    # font's size wide, so the one-letter "8" stands shorter, and higher up,
    # than the line's other words, as a raised marker does on a level line.
    def turned(text: str, bottom: float) -> PopplerWord:
        return PopplerWord(text, word_key(text), (600, bottom - 2.2 * len(text), 604, bottom),
                           line=1)

    bottom, words = 700.0, []
    for text in ("Insert", "offset", "folio", "8", "here", "HR728.001"):
        words.append(turned(text, bottom))
        bottom -= 2.2 * len(text) + 1
    assert raised_markers(words) == []


def test_the_three_forms_keep_drop_and_glue_the_marker() -> None:
    forms = dict(marker_forms(["the", "Act", "3", "to", "create"], {2}))
    assert forms == {"marker kept": "the Act 3 to create",
                     "marker dropped": "the Act to create",
                     "marker glued": "the Act3 to create"}


def test_a_second_reader_holds_a_window_across_its_marker_read_inline() -> None:
    # pdfminer.six's page keyed: the marker stands inline between the pieces
    # ("version23ofthegrade24system"); the window's pieces leave it out.
    page = word_key("and used a modified version23 of the GRADE24 system to rate the quality")
    assert read_in_order(page, ["usedamodifiedversion", "ofthegrade", "systemtorate"])
    # A window poppler ran on across a narrow gutter into a table's caption
    # ("system TABLE 1") is not there in that order.
    assert not read_in_order(page, ["usedamodifiedversion", "ofthegrade", "systemtable1"])
    # Nor are pieces farther apart than a marker.
    assert not read_in_order(page, ["andused", "thegrade"])


def test_cell_words_are_poppler_words_centred_in_the_cell_in_poppler_frame() -> None:
    # pdfplumber's box on a page whose crop box starts at (36, 6): poppler's
    # frame starts at the crop box's corner.
    box = to_poppler_frame((136, 106, 236, 126), (36, 6, 559, 833))
    assert box == (100, 100, 200, 120)
    inside, straddling, below = (word("Apixaban", 102, 104, 150, 116),
                                 word("2.5", 190, 104, 230, 116),
                                 word("mg", 102, 124, 120, 136))
    assert cell_words([inside, straddling, below], box) == [inside]


def test_a_band_of_stacked_values_is_read_as_the_rows_printed() -> None:
    # One ruled band holding three printed rows: dates beside names.
    dates = [word(d, 10, y, 60, y + 10) for d, y in
             (("2005-09-23", 100), ("2005-10-02", 112), ("2005-11-20", 124))]
    names = [word(n, 80, y, 130, y + 10) for n, y in
             (("Katrina", 100), ("Longwang", 112), ("Gamma", 124))]
    rows = visual_rows([dates, names])
    assert [[cell_text(cell) for cell in row] for row in rows] == [
        ["2005-09-23", "Katrina"], ["2005-10-02", "Longwang"], ["2005-11-20", "Gamma"]]


def test_a_cell_that_wraps_beside_one_line_cells_stays_one_row() -> None:
    wrapped = [word("Eye", 10, 100, 30, 110), word("haemorrhage", 33, 100, 90, 110),
               word("(including", 10, 112, 60, 122), word("conjunctival", 10, 124, 70, 134)]
    rare = [word("Rare", 120, 100, 150, 110)]
    rows = visual_rows([wrapped, rare])
    assert [[cell_text(cell) for cell in row] for row in rows] == [
        ["Eye haemorrhage (including conjunctival", "Rare"]]


def test_cells_that_wrap_onto_as_many_lines_stay_one_row() -> None:
    # Two cells of three lines each at the same heights, whose lines run on
    # (the next opens in lower case): one row, not three stacked ones.
    label = [word("Limit", 10, 100, 40, 110), word("on", 42, 100, 52, 110),
             word("adjusted", 10, 112, 60, 122), word("(MAGI)", 10, 124, 50, 134)]
    value = [word("$180,000", 80, 100, 130, 110), word("$90,000", 80, 112, 130, 122),
             word("widow(er)", 80, 124, 130, 134)]
    rows = visual_rows([label, value])
    assert [[cell_text(cell) for cell in row] for row in rows] == [
        ["Limit on adjusted (MAGI)", "$180,000 $90,000 widow(er)"]]


def test_a_groups_label_over_stacked_rows_is_read_as_the_rows_printed() -> None:
    # One ruled band: a label line, then two printed rows whose figures stand
    # level with the first cell's last lines (a statistics table's group).
    labels = [word("davon", 10, 100, 35, 110), word("Ablehnungen", 38, 100, 90, 110),
              word("nach", 10, 112, 30, 122), word("Artikel", 33, 112, 60, 122),
              word("6", 63, 112, 68, 122),
              word("nach", 10, 124, 30, 134), word("Artikel", 33, 124, 60, 134),
              word("7", 63, 124, 68, 134)]
    cases = [word("10", 120, 112, 130, 122), word("1", 120, 124, 125, 134)]
    share = [word("20", 160, 112, 170, 122), word("23", 160, 124, 170, 134)]
    rows = visual_rows([labels, cases, share])
    assert [[cell_text(cell) for cell in row] for row in rows] == [
        ["davon Ablehnungen"], ["nach Artikel 6", "10", "20"], ["nach Artikel 7", "1", "23"]]


def test_a_first_cell_wrapping_beside_top_aligned_stacks_stays_one_row() -> None:
    # The figures stand level with the first two of three lines: the label's
    # last line has nothing beside it, so the band is one row.
    wrapped = [word("Extended-release", 10, 100, 80, 110), word("hydromorphone", 10, 112, 80, 122),
               word("(Exalgo)", 10, 124, 50, 134)]
    doses = [word("8", 120, 100, 125, 110), word("12", 120, 112, 130, 122)]
    rows = visual_rows([wrapped, doses])
    assert [[cell_text(cell) for cell in row] for row in rows] == [
        ["Extended-release hydromorphone (Exalgo)", "8 12"]]


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="poppler-utils not installed")
def test_a_page_made_an_image_has_no_text_and_the_same_size(tmp_path) -> None:
    source = tmp_path / "born_digital.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=400, height=300)
        page.insert_text((40, 60), "Apixaban 2.5 mg twice daily", fontsize=14)
        doc.save(source)
    original = poppler_pages(source, only_page=1)[0]
    assert [w.text for w in original.words][:2] == ["Apixaban", "2.5"]
    data = image_only_pdf(source, 1, PopplerPage(original.width, original.height))
    with pymupdf.open(stream=data, filetype="pdf") as scan:
        assert scan.page_count == 1
        assert (scan[0].rect.width, scan[0].rect.height) == (400, 300)
        assert scan[0].get_text().strip() == ""
        assert len(scan[0].get_images()) == 1


def test_the_narrower_table_section_lists_what_it_left_out_of_a_pdf_with_nothing_left(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench.generalise_sections import SectionStats, print_section

    emptied = SectionStats("form.pdf", note="p1 table at y=80: 12 of 40 grid places merged")
    sampled = SectionStats("list.pdf", cases=1, quotes=1, verified=1, words=3, located=3)
    print_section("table rows, no merged cells", [emptied, sampled], "", quiet_notes=True)
    printed = capsys.readouterr().out
    assert "form.pdf, nothing left: p1 table at y=80: 12 of 40 grid places merged" in printed


def test_a_cells_words_of_symbols_alone_are_kept() -> None:
    # "$ 360": the dollar sign is a word of its own, and a quote without it drops a unit.
    dollar, amount = word("$", 102, 104, 108, 116), word("360", 110, 104, 130, 116)
    assert cell_text(cell_words([dollar, amount], (100, 100, 200, 120))) == "$ 360"


def raised_marks_pdf(path) -> None:  # type: ignore[no-untyped-def]
    """Cells as batch 21's treprostinil label prints them: a footnote marker
    raised after a row's label, a unit's exponent, and a small unit line
    clear of the label above it."""
    def raised(page: pymupdf.Page, x: float, baseline: float, text: str, mark: str,
               after: str = "") -> None:
        page.insert_text((x, baseline), text, fontsize=9)
        x += pymupdf.get_text_length(text, fontsize=9)
        page.insert_text((x, baseline - 3.5), mark, fontsize=5.5)
        if after:
            page.insert_text((x + pymupdf.get_text_length(mark, fontsize=5.5), baseline),
                             after, fontsize=9)

    with pymupdf.open() as doc:
        page = doc.new_page(width=300, height=200)
        raised(page, 40, 60, "Requiring narcotics", "1")
        page.insert_text((40, 100), "PVRI", fontsize=9)
        raised(page, 40, 111, "(mmHg/L/min/m", "2", ")")
        page.insert_text((40, 150), "Placebo", fontsize=9)
        page.insert_text((40, 160), "n (%)", fontsize=5.5)
        doc.save(path)


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils not installed")
def test_a_cells_raised_marks_read_on_the_line_they_are_printed_on(tmp_path) -> None:
    # Sorted by centre, the marks had read as lines of their own before
    # their words: "1 Requiring narcotics", "PVRI 2 (mmHg/L/min/m )".
    source = tmp_path / "marks.pdf"
    raised_marks_pdf(source)
    words = poppler_pages(source, only_page=1)[0].words
    assert [cell_text(cell_words(words, box)) for box in
            [(30, 40, 200, 70), (30, 85, 200, 120), (30, 135, 200, 170)]] == [
        "Requiring narcotics1", "PVRI (mmHg/L/min/m2)", "Placebo n (%)"]


def test_a_dosing_table_with_a_label_over_two_rows_is_quoted_by_row() -> None:
    dosing = Grid(["", "Dose", "Duration"],
                  ["Apixaban", "2.5 mg twice daily", "6 months"],
                  [None, "5 mg twice daily", "12 months"],
                  ["Warfarin", "INR 2-3", "3 months"])
    assert by_row_reason(dosing) == ""


def test_a_forms_layout_grid_is_not_quoted_by_row() -> None:
    form = Grid(["Name", "Date", "Site"],
                ["Surname", None, None],
                ["Signature of the patient", None, None],
                ["Ward", None, None])
    assert by_row_reason(form) == "layout grid: 6 of 12 places under merged cells"


def test_a_table_without_column_heads_or_rows_under_them_is_not_quoted_by_row() -> None:
    sentence = ("Enter on line 29 the amount from line 4 of the worksheet, unless you "
                "checked the box on line 18, in which case enter zero.")
    boxed_note = Grid(["Before you begin, see the instructions for line 29.", ""],
                      [sentence, "1."], [sentence.replace("29", "30"), "2."])
    assert by_row_reason(boxed_note) == "no row of column heads"
    assert by_row_reason(Grid(["Year", "Credit"], ["2013", "$2,500"])) == (
        "fewer than two rows under its heads")
    assert by_row_reason(Grid(["Notes"], ["first"], ["second"])) == "one column"


def test_heads_over_two_rows_under_a_title_are_column_heads() -> None:
    medicines = Grid(["List of Medicines approved by Purchase Committee", None, None, None],
                     ["Drug name", "Category", "Level of use", None],
                     [None, None, "PHC", "Hospital"],
                     *[[drug, "Anaesthetics", "Y", "Y"] for drug in (
                         "Lignocaine Inj.", "Atropine Inj.", "Ketamine Inj.", "Propofol Inj.")])
    assert by_row_reason(medicines) == ""


def test_column_heads_may_sit_in_the_second_row_under_a_blank_band() -> None:
    warn = Grid(["", "", ""], ["Notice Date", "Company", "City"],
                ["02/02/2012", "Food Lion", "Memphis"],
                ["03/20/2012", "Direct General", "Nashville"])
    assert by_row_reason(warn) == ""


def test_rows_beside_a_number_printed_once_for_a_group_are_not_quoted_by_row() -> None:
    # The medicines list: "Med No" 1 is one cell beside the group's three rows
    # (pdfplumber gives it to the first); the fourth row stands alone.
    class Band:
        def __init__(self, *cells: tuple[float, float, float, float] | None) -> None:
            self.cells = list(cells)

    rows = [Band((36, 108, 59, 168), (59, 108, 86, 128), (86, 108, 176, 128)),
            Band(None, (59, 128, 86, 148), (86, 128, 176, 148)),
            Band(None, (59, 148, 86, 168), (86, 148, 176, 168)),
            Band((36, 168, 59, 188), (59, 168, 86, 188), (86, 168, 176, 188))]
    assert [spans_rows(rows, index) for index in range(4)] == [True, True, True, False]


def test_a_head_turned_a_quarter_reads_in_poppler_order() -> None:
    # agstat's "Projected Population for 2012-13 (In lakhs)", printed up the
    # page: each word taller than wide, poppler's lines one beside another.
    def turned(text: str, x0: float, bottom: float, line: int) -> PopplerWord:
        return PopplerWord(text, word_key(text), (x0, bottom - 6 * len(text), x0 + 10, bottom),
                           line=line)

    words = [turned("Projected", 157, 240, 4), turned("Population", 157, 187, 4),
             turned("for", 170, 214, 5), turned("2012-13", 170, 196, 5),
             turned("(In", 184, 209, 6), turned("lakhs)", 184, 193, 6)]
    assert cell_text(words) == "Projected Population for 2012-13 (In lakhs)"


def lost_ligature_pdf(path) -> None:  # type: ignore[no-untyped-def]
    """A page printing "the first instance" whose font names the code of "fi"
    ``/fi`` in its ``/Differences`` but whose ToUnicode map decodes it "f",
    as a court's print does ("frst" in the text layer), beside a word whose
    glyphs decode as named."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=400, height=300)
        cmap = doc.get_new_xref()
        doc.update_object(cmap, "<<>>")
        doc.update_stream(cmap, b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap "
                          b"/CMapName /Lost def /CMapType 2 def 1 begincodespacerange <00> <FF> "
                          b"endcodespacerange 1 beginbfrange <20> <7E> <0020> endbfrange "
                          b"1 beginbfchar <AE> <0066> endbfchar endcmap "
                          b"CMapName currentdict /CMap defineresource pop end end")
        font = doc.get_new_xref()
        doc.update_object(font, f"<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman "
                                f"/Encoding << /Type /Encoding /Differences [174 /fi] >> "
                                f"/ToUnicode {cmap} 0 R >>")
        page.insert_text((10, 10), " ", fontsize=1)  # gives the page a resource dictionary
        resources = doc.xref_get_key(page.xref, "Resources")
        assert resources[0] != "null"
        contents = page.get_contents()[0]
        doc.update_stream(contents, b"BT /Lost 14 Tf 40 200 Td (the \xaerst instance of it) Tj ET")
        if resources[0] == "xref":
            where = int(resources[1].split()[0])
            doc.xref_set_key(where, "Font", f"<< /Lost {font} 0 R >>")
        else:
            doc.xref_set_key(page.xref, "Resources", f"<< /Font << /Lost {font} 0 R >> >>")
        doc.save(path)


def test_a_glyph_named_fi_that_the_text_layer_decodes_f_is_found_and_spelt_as_named(
        tmp_path) -> None:
    source = tmp_path / "lost_ligature.pdf"
    lost_ligature_pdf(source)
    words = poppler_pages(source, only_page=1)[0].words
    assert [w.text for w in words][:3] == ["the", "frst", "instance"]  # the oracle as it reads
    glyphs = misdecoded_glyphs(source, 1)
    assert [(decoded, named) for _, decoded, named in glyphs] == [("f", "\ufb01")]
    window = Window(1, words, 0)
    repaired = repaired_window(window, glyphs)
    assert repaired is not None
    assert repaired.text == "the first instance of it"
    assert [w.key for w in repaired.words][:2] == ["the", "first"]
    assert [w.box for w in repaired.words] == [w.box for w in words]  # located where printed


def test_a_window_without_a_misdecoded_glyph_is_left_as_poppler_reads_it(tmp_path) -> None:
    source = tmp_path / "plain.pdf"
    with pymupdf.open() as doc:
        doc.new_page(width=400, height=300).insert_text((40, 60), "the first instance",
                                                        fontsize=14)
        doc.save(source)
    words = poppler_pages(source, only_page=1)[0].words
    assert misdecoded_glyphs(source, 1) == []
    assert repaired_window(Window(1, words, 0), []) is None


EVERY_LANGUAGE = {"eng", "fra", "deu", "ita", "spa", "dan", "nld", "por", "swe", "nor", "pol",
                  "ell"}


@pytest.mark.parametrize(("text", "language"), [
    ("Stk. 2. Loven finder ikke anvendelse for afgørelser, der er truffet efter § 33.", "dan"),
    ("De gemeente is bevoegd om het parkeren op de openbare weg te regelen voor een vergunning.",
     "nld"),
    ("The council may acquire land for the purposes of any of its functions under this Act.",
     "eng"),
    # A Greek case note (batch 21) had been read with English's data.
    ("Η διάταξη αυτή έχει την έννοια ότι σε περίπτωση αποδοχής αναστέλλεται η εκτέλεση της "
     "πράξης από το Συμβούλιο της Επικρατείας.", "ell"),
    # A heading in capitals still counts ...
    ("EXPENDITURES FOR OFFICIAL TRAVEL AND FOR THE OFFICE OF THE SECRETARY", "eng"),
])
def test_the_scans_language_is_the_one_whose_common_words_the_page_holds(
        text: str, language: str) -> None:
    assert language_of(text.split(), EVERY_LANGUAGE) == language


def test_a_tables_two_letter_abbreviations_do_not_pick_a_language() -> None:
    # ... but "ER" (extended release) and "NA" are no Danish or Polish words.
    words = "Drug ER tablets NA NA capsules ER ER ER the dose of ER is NA NA".split()
    assert language_of(words, EVERY_LANGUAGE) == "eng"


def test_a_language_not_installed_is_never_chosen() -> None:
    words = "Loven finder ikke anvendelse, der er truffet efter og også".split()
    assert language_of(words, {"eng", "deu"}) != "dan"
