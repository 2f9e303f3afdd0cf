"""Pages without a text layer are OCR'd (reviewer.ingestion.ocr): scans the
tests make (text rasterised, the picture alone on a page) become text whose
quotes verify and highlight where the words are printed; text pages are
never OCR'd, blank ones neither; limits and failures are sentences."""

from __future__ import annotations

import time
from array import array
from pathlib import Path

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, ExtractionError, extract_pdf, locate, ocr
from reviewer.ingestion.layout import SUPERSCRIPT_DIGITS
from reviewer.ingestion.ocr import (
    DEFAULT_TESSDATA,
    OcrOptions,
    is_stamped_scan,
    language_problem,
)
from reviewer.ingestion.sandbox import run_isolated
from tests.ingestion.test_tables import _HEADER, _ROWS, _lines, _pdf, _row_quote
from tests.ocr_scans import (
    ENGLISH,
    FRENCH,
    GERMAN,
    STAMP,
    STAMP_AT,
    Scan,
    make_scan,
    scan_of,
    tesseract_missing,
    turned_box,
    turned_scan_of,
)
from verification import verify_answer

pytestmark = pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")

_MIB = 1024 * 1024


@pytest.fixture(scope="module")
def english() -> Scan:
    return make_scan(ENGLISH)


@pytest.fixture(scope="module")
def english_scan(english: Scan) -> bytes:
    return english.data


@pytest.fixture(scope="module")
def english_read(english: Scan) -> ExtractedDocument:
    """The English scan read by OCR once, for the tests that each check
    something else of that one reading (it is a second of Tesseract)."""
    return extract_pdf(english.data)


def _assert_outcomes(text: str, cases: tuple[tuple[str, str], ...]) -> None:
    """Each quote, cited against ``text`` alone, comes out as the outcome
    paired with it ("verified" covers "verified-fuzzy")."""
    for quote, outcome in cases:
        (citation,) = verify_answer(f'It says "{quote}" [S1].', {"S1": text}).citations
        assert citation.outcome.startswith(outcome), (quote, citation.outcome)


def test_a_scan_is_read_by_ocr_and_says_how_sure_it_was(english_read: ExtractedDocument) -> None:
    document = english_read
    assert document.text.split("\n") == [ENGLISH[0], ENGLISH[1], "", ENGLISH[2]]
    assert document.ocr is not None
    assert document.ocr.language == "eng"
    (page,) = document.ocr.pages
    assert page.number == 1 and page.words == sum(len(line.split()) for line in ENGLISH)
    assert 50 < page.confidence <= 100
    assert document.ocr.confidence == page.confidence
    # Every character has a box on the page: none is an inserted separator
    # except the line breaks.
    glyphs = [document.geometry.box(i) for i in range(len(document.text))]
    assert [document.text[i] for i, box in enumerate(glyphs) if box is None] == ["\n"] * 3


@pytest.mark.parametrize(("lines", "language", "words"), [
    (FRENCH, "fra", ["pénalité", "appliquée", "après", "propriétaire", "réparera"]),
    (FRENCH, "eng+fra", ["pénalité", "propriétaire"]),
    (GERMAN, "deu", ["Für", "verspätete", "Gebühr", "fällig"]),
])
def test_a_scan_is_read_in_the_documents_language(
        lines: tuple[str, ...], language: str, words: list[str]) -> None:
    reason = tesseract_missing(*language.split("+"))
    if reason:
        pytest.skip(reason)
    document = extract_pdf(make_scan(lines).data, ocr=OcrOptions(language=language))
    assert document.ocr is not None and document.ocr.language == language
    for word in words:
        assert word in document.text.split() or word + "." in document.text.split()


def test_an_honest_quote_from_a_scan_verifies_and_highlights_the_printed_words(
        english: Scan, english_read: ExtractedDocument) -> None:
    scan, document = english, english_read
    quote = "the landlord must repair the heating within two weeks"
    report = verify_answer(f'The lease says "{quote}" [S1].', {"S1": document.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    (on_page,) = locate(document, citation.chunk_start, citation.chunk_end)
    assert on_page["page"] == 1
    rects = on_page["rects"]
    words = scan.words()
    line = next(w[1] for w in words if w[4] == "landlord")  # the quoted words' line
    printed = [w for w in words if w[1] == line and w[4].lower() in quote.split()]
    assert len(printed) == len(quote.split())
    for x0, y0, x1, y1, word in printed:  # each printed word lies under the highlight
        middle_x, middle_y = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(r[0] - 1 <= middle_x <= r[2] + 1 and r[1] - 1 <= middle_y <= r[3] + 1
                   for r in rects), word
    # ... and the highlight does not run past the quoted words' line.
    left = min(w[0] for w in printed)
    right = max(w[2] for w in printed)
    top = min(w[1] for w in printed)
    bottom = max(w[3] for w in printed)
    for r in rects:
        assert r[0] >= left - 3 and r[2] <= right + 3
        assert r[1] >= top - 4 and r[3] <= bottom + 4


def _with_markers() -> bytes:
    """A page of prose whose footnote markers are set small and raised, as a
    journal prints them, and a quotation closed after a full stop."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    lines = [
        [("the association of DPYD variants with toxicity has been found to be", False)],
        [("fairly consistent across treatment regimens.", False), ("9,20", True),
         (" Pharmacokinetically", False)],
        [("guided dosing has been shown to reduce the side effects.", False), ("37", True),
         (" In particular, to", False)],
        [("avoid underdosing, a party may not use what it failed to disclose where", False)],
        [("\u201cthe failure was substantially justified or is harmless.\u201d Fed. R. Civ. P.",
          False)],
    ]
    for number, pieces in enumerate(lines):
        x, y = 72.0, 100.0 + 12 * number
        for text, raised in pieces:
            size = 6 if raised else 9.5
            writer.append((x, y - (3.5 if raised else 0)), text, font=font, fontsize=size)
            x += font.text_length(text, fontsize=size)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_scans_footnote_markers_read_as_superscript_digits() -> None:
    # At their size Tesseract reads "9,20" as quote marks ("regimens.”””");
    # read again enlarged they are the marker, written as the text layer's are.
    text = extract_pdf(scan_of(_with_markers()).data).text
    assert "regimens.\u2079,\u00b2\u2070 Pharmacokinetically" in text
    assert "effects.\u00b3\u2077 In particular" in text
    assert "harmless.\u201d Fed." in text  # a quote mark is no marker
    _assert_outcomes(text, (("treatment regimens. 9,20 Pharmacokinetically", "verified"),
                            ("treatment regimens. Pharmacokinetically", "verified"),
                            ("treatment regimens. 9,21 Pharmacokinetically", "quote-altered")))


def _with_markers_after_quotes() -> bytes:
    """A law review's lines in Tiro at 12 pt: footnote markers (7.2 pt,
    raised 4.2 pt) printed after a closing quote mark."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    lines = [
        [("the Court \u201chas rejected . . . both with respect to the right to marry and", False)],
        [("the rights of gays and lesbians.\u201d", False), ("148", True),
         (" Kennedy deemed the right to marry", False)],
        [("\u201cfundamental as a matter of history and tradition\u201d yet said rights", False)],
        [("honorable religious or philosophical premises,\u201d", False), ("150", True),
         (" but once \u201csincere,", False)],
        [("choices and diminish[es] their personhood.\u201d", False), ("152", True)],
    ]
    for number, pieces in enumerate(lines):
        x, y = 72.0, 100.0 + 19.2 * number
        for text, raised in pieces:
            size = 7.2 if raised else 12
            writer.append((x, y - (4.2 if raised else 0)), text, font=font, fontsize=size)
            x += font.text_length(text, fontsize=size)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_scans_marker_after_a_closing_quote_mark_is_read_as_one() -> None:
    # Tesseract reads the quote mark and the raised "148" as "\u201d'\u201c*";
    # read again enlarged, the quote mark reads as digits too ("99148"):
    # read again past its two strokes, the rest is the marker.
    text = extract_pdf(scan_of(_with_markers_after_quotes()).data).text
    assert "lesbians.\u201d\u00b9\u2074\u2078 Kennedy" in text, text
    assert "premises,\u201d\u00b9\u2075\u2070 but once" in text, text
    assert "personhood.\u201d\u00b9\u2075\u00b2" in text, text
    assert "tradition\u201d yet" in text, text  # a quote mark alone is left alone
    _assert_outcomes(text, (
        ("gays and lesbians.\u201d 148 Kennedy deemed", "verified"),
        ("gays and lesbians.\u201d Kennedy deemed", "verified"),
        ("gays and lesbians.\u201d 149 Kennedy deemed", "quote-altered"),
    ))


def _raised_pieces_page(
    lines: list[list[tuple[str, bool]]], font_name: str, size: float, leading: float,
    raised_size: float, rise: float, gap: float = 0.0, font_file: str | None = None,
) -> bytes:
    """One page of ``lines``, each pieces of text set one after another from
    the left margin, a piece marked raised set at ``raised_size`` ``rise``
    points above the baseline (a footnote marker), ``gap`` points after the
    piece before it; in the font ``font_file`` where given."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font(fontfile=font_file) if font_file else pymupdf.Font(font_name)
    writer = pymupdf.TextWriter(page.rect)
    for number, pieces in enumerate(lines):
        x, y = 72.0, 100.0 + leading * number
        for text, raised in pieces:
            fontsize = raised_size if raised else size
            x += gap if raised else 0.0
            writer.append((x, y - (rise if raised else 0)), text, font=font, fontsize=fontsize)
            x += font.text_length(text, fontsize=fontsize)
    writer.write_text(page)
    return bytes(document.tobytes())


def _with_a_marker_after_a_percentage() -> bytes:
    """A survey report's sentence whose statistic carries a raised footnote
    marker after its percent sign ("was 10%³ which"), set in Helvetica."""
    lines = [
        [("Earlier studies have revealed that the prevalence of hypertension among", False)],
        [("rural adults in the State of Gujarat was 10%", False), ("3", True),
         (" which was lowest compared", False)],
        [("with 95% confidence interval and 20% relative precision.", False)],
    ]
    return _raised_pieces_page(lines, "helv", 11, 16, 7, 4.5)


def test_a_marker_after_a_percent_sign_is_read_again_as_a_marker() -> None:
    # Tesseract reads the small raised "3" as "?" ("was 10%? which"); after a
    # percent sign a raised glyph is a marker, read again enlarged.
    text = extract_pdf(scan_of(_with_a_marker_after_a_percentage()).data).text
    assert "Gujarat was 10%\u00b3 which was" in text
    assert "with 95% confidence" in text  # a percentage with nothing raised is left alone
    _assert_outcomes(text, (("in the State of Gujarat was 10% 3 which was lowest", "verified"),
                            ("in the State of Gujarat was 10%3 which was lowest", "verified"),
                            ("in the State of Gujarat was 18% 3 which was lowest",
                             "quote-altered")))


def _with_markers_boxed_full_height() -> bytes:
    """A two-column paper's lines in Tiro at 10 pt with footnote markers set at
    7 pt, raised 4 pt: after a word and before a comma ("tools³,"), and after
    a closing parenthesis before a full stop ("(CER)⁴.")."""
    lines = [
        [("of a systematic examination of demographic imbal-", False)],
        [("ances present in datasets. For Arabic ASR system,", False)],
        [("which were developed using Carnegie Mellon", False)],
        [("University Sphinx 3 tools", False), ("3", True), (", an investigation was", False)],
        [("choice of metrics includes Word Error Rate (WER)", False)],
        [("and Character Error Rate (CER)", False), ("4", True), (". Interestingly, we", False)],
        [("observe that oversampling techniques can alleviate", False)],
    ]
    return _raised_pieces_page(lines, "tiro", 10, 12, 7, 4)


def test_a_marker_tesseract_boxes_the_lines_full_height_is_found_by_its_ink() -> None:
    # Tesseract reads these markers as "*" and, in a word it is unsure of,
    # boxes the "*" (and the comma after it) from the line's top to below
    # its baseline ("tools*,", "(CER)*."): by its box it is not raised. Its
    # ink is, and read again enlarged it is the marker.
    text = extract_pdf(scan_of(_with_markers_boxed_full_height()).data).text
    assert "Sphinx 3 tools\u00b3, an investigation" in text, text
    assert "Error Rate (CER)\u2074. Interestingly" in text, text
    _assert_outcomes(text, (
        ("developed using Carnegie Mellon University Sphinx 3 tools 3 , an investigation",
         "verified"),
        ("developed using Carnegie Mellon University Sphinx 3 tools3 , an investigation",
         "verified"),
        ("and Character Error Rate (CER)4 . Interestingly, we observe", "verified"),
        ("developed using Carnegie Mellon University Sphinx 4 tools 3 , an investigation",
         "quote-altered"),
    ))


def _with_small_markers() -> bytes:
    """A clinical review's lines in Tiro at 10 pt whose footnote markers are
    set at half the text's size, 5 pt, raised 3.4 pt."""
    lines = [
        [("pressure) associated with physical exertion or emotional", False)],
        [("stress and relieved with rest or sublingual nitroglycerin", False)],
        [("within five minutes.", False), ("8", True),
         (" Unstable angina is new-onset angina,", False)],
        [("angina at rest, or angina that becomes more frequent,", False)],
    ]
    return _raised_pieces_page(lines, "tiro", 10, 12, 5, 3.4)


def test_a_marker_set_at_half_the_texts_size_is_read_as_a_marker() -> None:
    # Tesseract reads the raised "8" as "*"; boxed 14 pixels tall on a line
    # it sizes 37 (a descender's depth included), it is shorter than 0.4 of
    # that size, but not of the height above the descenders, a digit's.
    text = extract_pdf(scan_of(_with_small_markers()).data).text
    assert "within five minutes.\u2078 Unstable angina" in text, text
    _assert_outcomes(text, (("nitroglycerin within five minutes. 8 Unstable angina", "verified"),
                            ("nitroglycerin within five minutes. Unstable angina", "verified"),
                            ("nitroglycerin within five minutes. 6 Unstable angina",
                             "quote-altered")))


def _with_a_marker_apart_at_a_line_end() -> bytes:
    """A two-column paper's lines in Tiro at 10 pt, markers set at 6.5 pt
    and raised 3.5 pt, half a point after the full stop they follow."""
    lines = [
        [("different disease processes may interfere with the", False)],
        [("prostate gland's usual design.", False), ("12", True),
         (" CaP and its associated", False)],
        [("metastases, as well as BPH, are among these disorders.", False), ("13", True)],
        [("There is a possibility that prostate-associated antigens", False)],
    ]
    return _raised_pieces_page(lines, "tiro", 10.02, 11.5, 6.48, 3.48, gap=0.5)


def test_a_marker_tesseract_reads_as_a_word_of_its_own_is_read_as_a_marker() -> None:
    # At the line's end Tesseract reads the raised "13" as a word of its
    # own, unsure, "!3", boxed past the baseline and cutting the "1": its ink
    # is raised, and read again enlarged it is the marker, glued to the stop.
    text = extract_pdf(scan_of(_with_a_marker_apart_at_a_line_end()).data).text
    assert "among these disorders.\u00b9\u00b3\nThere is" in text, text
    _assert_outcomes(text, (
        ("are among these disorders. 13 There is a possibility", "verified"),
        ("are among these disorders.13 There is a possibility", "verified"),
        ("are among these disorders. There is a possibility", "verified"),
        ("are among these disorders. 18 There is a possibility", "quote-altered"),
    ))


_SERIF = "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"
# A report's sentence closing on a stop and a raised "1", then a real
# quote mark at the text's size after a stop, single and double.
_MARKER_AFTER_A_STOP = [
    [("This memorandum describes how the Department and its components are preparing",
      False)],
    [("to implement the order in the event that it is permitted to go into effect.", False),
     ("1", True), (" The agency", False)],
    [("provides this memorandum to address the concerns the Court raised, and its", False)],
    [("earlier notice said the rule would 'go into effect.' The agency then wrote that", False)],
    [("the change would \u201ctake effect.\u201d The notice was published in the register.",
      False)],
]


def _assert_a_marker_after_a_stop_and_real_quote_marks(text: str) -> None:
    assert "go into effect.\u00b9 The agency\n" in text, text
    # The quote marks printed at the text's size stay quote marks.
    assert "would 'go into effect.' The agency then" in text, text
    assert "\u201ctake effect.\u201d The notice" in text, text
    _assert_outcomes(text, (
        ("permitted to go into effect. 1 The agency provides", "verified"),
        ("permitted to go into effect.1 The agency provides", "verified"),
        ("permitted to go into effect. The agency provides", "verified"),
        ("the rule would 'go into effect.' The agency then wrote", "verified"),
        ("permitted to go into effect. 7 The agency provides", "quote-altered"),
    ))


def test_a_raised_one_read_as_an_apostrophe_after_a_stop_is_read_as_a_marker() -> None:
    # Times at 11 pt, the "1" at 7 pt raised 4.4 pt (a report's): Tesseract
    # reads it as an apostrophe boxed the line's full height ("effect.'"),
    # and read again enlarged, alone, as a stroke ("|"). Its ink is one
    # stroke as tall as a digit set small: it is the "1". The apostrophe
    # and the quote marks printed at the text's size are too short for one.
    page = _raised_pieces_page(_MARKER_AFTER_A_STOP, "tiro", 11, 16.5, 7.04, 4.4)
    _assert_a_marker_after_a_stop_and_real_quote_marks(
        extract_pdf(scan_of(page).data).text)


@pytest.mark.skipif(not Path(_SERIF).exists(),
                    reason="no Liberation Serif here (bin/setup installs fonts-liberation)")
def test_a_raised_one_boxed_with_the_stop_before_it_is_read_as_a_marker() -> None:
    # In Liberation Serif at 10 pt, the "1" at 6.4 pt raised 3.3 pt,
    # Tesseract boxes the marker with the stop and reads nothing of it
    # ("effect."): the raised ink past the stop's is read again.
    page = _raised_pieces_page(_MARKER_AFTER_A_STOP, "", 10, 15, 6.4, 3.3, font_file=_SERIF)
    _assert_a_marker_after_a_stop_and_real_quote_marks(
        extract_pdf(scan_of(page).data).text)


def test_a_markers_first_digit_boxed_with_the_stop_is_read_with_the_rest() -> None:
    # Times at 10 pt, the "20" at 6.4 pt raised 4 pt (a court order's):
    # Tesseract boxes the "2" with the stop and reads the "0" as a quote
    # mark ("injunction.\u201d"); read again from the "0" alone it was "⁰".
    # The raised ink in the stop's box, past its own, is the marker's too.
    lines = [
        [("For the foregoing reasons, no workable, narrower alternative to the injunction",
          False)],
        [("issued exists. The Court therefore declines to modify that injunction.", False),
         ("20", True), (" The Clerk", False)],
        [("shall transmit a copy of this Order to the Clerk of the Court of Appeals.", False)],
    ]
    text = extract_pdf(scan_of(_raised_pieces_page(lines, "tiro", 10, 15, 6.4, 4.0)).data).text
    assert "modify that injunction.\u00b2\u2070 The Clerk" in text, text
    _assert_outcomes(text, (
        ("declines to modify that injunction. 20 The Clerk", "verified"),
        ("declines to modify that injunction.20 The Clerk", "verified"),
        ("declines to modify that injunction. The Clerk", "verified"),
        ("declines to modify that injunction. 26 The Clerk", "quote-altered"),
    ))


def _with_subscripts(size: float) -> bytes:
    """Prose in Tiro at ``size`` points with symbols whose subscript is set
    smaller and lowered, as a paper or a label prints T_half, C_max, AUC_0-24."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    lines = [
        [("Response times were evaluated by examining the value of T", False),
         ("half", True), (" (Table 4). There", False)],
        [("is substantial variation; most catchments have a T", False), ("half", True),
         (" value between 5 and", False)],
        [("10 years. The peak concentration C", False), ("max", True),
         (" was reached after 2 hours and", False)],
        [("the area under the curve AUC", False), ("0-24", True),
         (" was 35 units; the half-life t", False), ("1/2", True), (" was long.", False)],
    ]
    for number, pieces in enumerate(lines):
        x, y = 72.0, 100.0 + size * 1.8 * number
        for text, lowered in pieces:
            fontsize = size * 0.7 if lowered else size
            writer.append((x, y + (size * 0.22 if lowered else 0)), text, font=font,
                          fontsize=fontsize)
            x += font.text_length(text, fontsize=fontsize)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_scans_subscripts_are_read_again_enlarged() -> None:
    # At their size Tesseract reads a lowered "half" as "),,1¢" or ",,);"
    # and "max" as ",,,,"; read again enlarged they are letters and digits,
    # glued to their symbol as a text layer writes them.
    text = extract_pdf(scan_of(_with_subscripts(9.5)).data).text
    assert "the value of Thalf (Table 4)" in text
    assert "have a Thalf value" in text
    assert "concentration Cmax was" in text
    text = extract_pdf(scan_of(_with_subscripts(10.5)).data).text
    assert "curve AUC0-24 was" in text
    assert "half-life t1/2 was" in text
    _assert_outcomes(text, (("examining the value of T half (Table 4). There", "verified"),
                            ("the area under the curve AUC 0-24 was 35 units", "verified"),
                            ("the area under the curve AUC 0-48 was 35 units",
                             "quote-altered")))


def _with_raised_variants() -> bytes:
    """An oncology abstract in Helvetica whose gene variants are set small
    and raised after the gene ("KRAS" and a raised "G12C"), inside a
    compound ("-mutated") or before the next word, beside a footnote marker."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("helv")
    writer = pymupdf.TextWriter(page.rect)
    lines = [
        [("Background: First-line adagrasib, a KRAS", False), ("G12C", True),
         (" inhibitor, plus pembrolizumab", False)],
        [("showed efficacy in patients with advanced KRAS", False), ("G12C", True),
         ("-mutated NSCLC and", False)],
        [("in patients with BRAF", False), ("V600E", True),
         ("-mutant melanoma treated with", False)],
        [("the EGFR", False), ("T790M", True), ("-positive cohort, as the", False),
         ("12", True), (" trial reported.", False)],
    ]
    for number, pieces in enumerate(lines):
        x, y = 72.0, 100.0 + 17.1 * number
        for text, raised in pieces:
            size = 9.5 * 0.65 if raised else 9.5
            writer.append((x, y - (9.5 * 0.35 if raised else 0)), text, font=font, fontsize=size)
            x += font.text_length(text, fontsize=size)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_variant_raised_after_a_gene_is_read_again_into_the_word() -> None:
    # At its size Tesseract reads a raised "G12C" as marks ("KRAS©'2°-mutated",
    # "KRAS@'° inhibitor", "BRAFY6°&-mutant"); read again enlarged, without
    # the ink of the letter before and the hyphen after, it is the variant,
    # written into the word as a text layer has it.
    text = extract_pdf(scan_of(_with_raised_variants()).data).text
    assert "a KRASG12C inhibitor, plus" in text
    assert "advanced KRASG12C-mutated NSCLC" in text
    assert "with BRAFV600E-mutant melanoma" in text
    assert "the EGFRT790M-positive cohort" in text
    assert "as the\u00b9\u00b2 trial" in text  # a footnote marker stays one
    _assert_outcomes(text, (("in patients with advanced KRAS G12C -mutated NSCLC", "verified"),
                            ("in patients with advanced KRASG12C-mutated NSCLC", "verified"),
                            ("in patients with advanced KRAS G12D -mutated NSCLC",
                             "quote-altered")))


def _dense_with_markers(lines: int) -> bytes:
    """A page of ``lines`` lines of small print, each with two raised
    footnote markers: a brief's page of footnotes, or a sideways scan whose
    letters Tesseract takes for small raised glyphs."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=1008)  # US legal
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    for number in range(lines):
        x, y = 60.0, 40.0 + 12.5 * number
        for text, raised in ((f"Line {number} of the opinion cites the record", False),
                             (str(number + 201), True), (" and the statute", False),
                             (str(number + 101), True), (" here.", False)):
            size = 6 if raised else 9.5
            writer.append((x, y - (3.5 if raised else 0)), text, font=font, fontsize=size)
            x += font.text_length(text, fontsize=size)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_scan_with_more_markers_than_one_picture_holds_reads_them_all() -> None:
    # Every marker is read again enlarged, the areas one under another in one
    # picture; this page's made a picture 37,000 pixels tall, past the 32,767
    # Tesseract reads ("Image too large"), and the whole document failed OCR
    # (a real four-page scan, one page of it turned sideways, did).
    text = extract_pdf(scan_of(_dense_with_markers(76)).data).text
    read = [n for n in range(76)
            if f"the statute{str(n + 101).translate(SUPERSCRIPT_DIGITS)} here." in text]
    assert len(read) >= 60, read  # most lines' second marker, read enlarged


@pytest.fixture(scope="module")
def scanned_table() -> tuple[bytes, str]:
    """The ruled dosing table of test_tables, scanned: its original (for
    where each word is printed) and the OCR'd text."""
    original = _pdf(ruled=True)
    return original, extract_pdf(scan_of(original).data).text


def _quoted(text: str, quote: str) -> str:
    """What a verified quote of ``text`` covers, its blanks folded."""
    report = verify_answer(f'The table says "{quote}" [S1].', {"S1": text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome in {"verified", "verified-fuzzy"}, (citation.outcome, text)
    assert citation.chunk_start is not None and citation.chunk_end is not None
    return " ".join(text[citation.chunk_start : citation.chunk_end].split())


@pytest.mark.parametrize("row", [_HEADER, *_ROWS])
def test_a_scanned_tables_row_reads_as_one_stretch(
    scanned_table: tuple[bytes, str], row: tuple[str | tuple[str, ...], ...]
) -> None:
    # Tesseract reads a table's lines straight across its columns, so a
    # cell of two lines ("150 mg twice daily after" / "5 days of heparin")
    # came out split by the next cell; the OCR'd lines now go through the
    # text layer's layout, whose tables read by rows and cells.
    _, text = scanned_table
    assert _quoted(text, _row_quote(row)) == _row_quote(row)


@pytest.mark.parametrize("cell", ["150 mg twice daily after 5 days of heparin", "12 months"])
def test_a_scanned_tables_cell_of_several_lines_verifies(
    scanned_table: tuple[bytes, str], cell: str
) -> None:
    _, text = scanned_table
    assert _quoted(text, cell) == cell
    # The table's vertical rules are not read as letters ("|") into its text.
    assert "|" not in text
    # Every printed line of the table is a line of the text, none run into another.
    lines = set(text.split("\n"))
    for row in (_HEADER, *_ROWS):
        assert all(line in lines for cell_ in row for line in _lines(cell_)), (row, text)


def test_a_text_page_in_a_mixed_document_is_never_ocrd() -> None:
    mixed = make_scan(ENGLISH, pages=3, text_pages=(1, 3)).data
    without_ocr = extract_pdf(mixed, ocr=None)
    with_ocr = extract_pdf(mixed)
    assert with_ocr.ocr is not None
    assert [page.number for page in with_ocr.ocr.pages] == [2]
    assert without_ocr.page_text(2) == "" and with_ocr.page_text(2)
    # The text pages are byte for byte what they were, with the same boxes.
    assert with_ocr.page_text(1).encode() == without_ocr.page_text(1).encode()
    assert with_ocr.page_text(3).encode() == without_ocr.page_text(3).encode()
    first = without_ocr.pages[0]
    assert (with_ocr.geometry.glyph_boxes(first.text_start, first.text_end)
            == without_ocr.geometry.glyph_boxes(first.text_start, first.text_end))


def test_a_scan_under_a_stamp_is_ocrd_and_the_stamp_is_read_once() -> None:
    # A gazette's scanned page: the picture covers the page, and the only
    # text layer is the stamp at its foot.
    scan = make_scan(ENGLISH, stamp=STAMP)
    without_ocr = extract_pdf(scan.data, ocr=None)
    assert without_ocr.text == STAMP  # the scan's words are not in the text layer
    document = extract_pdf(scan.data)
    assert document.ocr is not None
    (page,) = document.ocr.pages
    assert page.number == 1 and page.words == sum(len(line.split()) for line in ENGLISH)
    assert 50 < page.confidence <= 100
    # The scan's lines by OCR, then the stamp (printed below them) exactly as
    # its text layer has it, once: OCR's reading of the stamp is dropped.
    assert document.text.split("\n") == [ENGLISH[0], ENGLISH[1], "", ENGLISH[2], "", STAMP]
    stamp_start = document.text.index(STAMP)
    layer = without_ocr.geometry.glyph_boxes(0, len(STAMP))
    assert document.geometry.glyph_boxes(stamp_start, stamp_start + len(STAMP)) == layer
    # A quote from the scan verifies and its highlight lies on the printed words.
    quote = "late payments incur a fee of forty dollars"
    report = verify_answer(f'The lease says "{quote}" [S1].', {"S1": document.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    (on_page,) = locate(document, citation.chunk_start, citation.chunk_end)
    words = scan.words()
    line = next(w[1] for w in words if w[4] == "payments")  # the quoted words' line
    printed = [w for w in words if w[1] == line and w[4].lower() in quote.split()]
    assert len(printed) == len(quote.split())
    for x0, y0, x1, y1, word in printed:
        middle_x, middle_y = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(r[0] - 1 <= middle_x <= r[2] + 1 and r[1] - 1 <= middle_y <= r[3] + 1
                   for r in on_page["rects"]), word


def _page_over_a_picture(words: list[tuple[str, float]]) -> bytes:
    """A born-digital page: a full-page picture (a scan of the English
    lines, standing for a photo) and, over it, ``words`` as real text, each
    (text, font size) on a line of its own."""
    picture = pymupdf.open(stream=make_scan(ENGLISH).data, filetype="pdf")[0].get_pixmap(dpi=100)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_image(page.rect, pixmap=picture)
    y = 80.0
    for text, size in words:
        page.insert_text((40, y), text, fontname="helv", fontsize=size)
        y += size * 1.6
    return doc.tobytes()


@pytest.mark.parametrize("words", [
    # An earlier OCR layer, or a brochure's text over a photo: the text is the content.
    [(line, 13.0) for line in FRENCH],
    # A closing slide: a short title set large over a photo.
    [("Questions?", 36.0)],
])
def test_a_text_page_over_a_full_page_picture_is_not_ocrd(words: list[tuple[str, float]]) -> None:
    data = _page_over_a_picture(words)
    document = extract_pdf(data)
    assert document.ocr is None
    without_ocr = extract_pdf(data, ocr=None)
    assert document.text.encode() == without_ocr.text.encode()
    assert (document.geometry.glyph_boxes(0, len(document.text))
            == without_ocr.geometry.glyph_boxes(0, len(document.text)))


def test_a_stamp_over_a_picture_covering_half_the_page_is_not_ocrd() -> None:
    data = make_scan(ENGLISH, stamp=STAMP, picture_share=0.5).data
    document = extract_pdf(data)
    assert document.ocr is None
    assert document.text == STAMP


def test_the_stamp_rule_needs_all_three_measures() -> None:
    """Small text, covering little of the page, over one picture covering
    nearly all of it: each measure alone is not enough."""
    def page_of(data: bytes) -> pymupdf.Page:
        return pymupdf.open(stream=data, filetype="pdf")[0]

    def stamped(data: bytes) -> bool:
        document = extract_pdf(data, ocr=None)
        boxes = array("f", document.geometry.glyph_boxes(0, len(document.text)))
        return is_stamped_scan(page_of(data), document.text, boxes)

    assert stamped(make_scan(ENGLISH, stamp=STAMP).data)
    turned = pymupdf.open(stream=make_scan(ENGLISH, stamp=STAMP).data, filetype="pdf")
    turned[0].set_rotation(90)  # a scan filed sideways is one still
    assert stamped(turned.tobytes())
    assert not stamped(make_scan(ENGLISH, stamp=STAMP, picture_share=0.5).data)  # picture
    assert not stamped(_page_over_a_picture([("Questions?", 36.0)]))  # share of the page
    assert not stamped(_page_over_a_picture([(line, 13.0) for line in ENGLISH]))  # characters


def test_a_blank_page_is_not_ocrd() -> None:
    told: list[tuple[object, ...]] = []
    document = extract_pdf(make_scan(ENGLISH, pages=2, text_pages=(1,), blank_pages=(2,)).data,
                           progress=lambda *args: told.append(args))
    assert document.ocr is None
    assert told == [(1, 2), (2, 2)]  # never (2, 2, True): OCR was not started
    assert document.page_text(2) == ""


def test_ocr_that_finds_nothing_readable_stays_no_text_and_says_so() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(doc.tobytes())
    assert caught.value.kind == "no-text"
    assert caught.value.message.startswith(
        "No text layer, and OCR (eng) found nothing readable on the 1 scanned page it read")


def test_progress_names_the_page_being_ocrd() -> None:
    data = make_scan(ENGLISH, pages=2, text_pages=(1,)).data
    told: list[tuple[object, ...]] = []
    extract_pdf(data, progress=lambda *args: told.append(args))
    assert told == [(1, 2), (2, 2), (2, 2, True)]
    heard: list[tuple[int, int, bool]] = []
    outcome = run_isolated(data, on_progress=lambda *args: heard.append(args))
    assert outcome.error is None and outcome.document is not None
    assert outcome.document.ocr is not None
    assert heard and heard[-1] == (2, 2, True)  # OCR takes seconds: the parent hears of it


def test_no_ocr_program_is_a_sentence_not_a_crash(english_scan: bytes) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(english_scan, ocr=OcrOptions(command="/nonexistent/tesseract"))
    assert caught.value.kind == "ocr-failed"
    assert caught.value.message == (
        "Page 1 of 1 has no text layer and needs OCR, but the OCR program "
        "(/nonexistent/tesseract) is not installed on this server; bin/setup installs it.")


def test_a_stamped_scan_without_the_ocr_program_says_why_it_needed_ocr() -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(make_scan(ENGLISH, stamp=STAMP).data,
                    ocr=OcrOptions(command="/nonexistent/tesseract"))
    assert caught.value.kind == "ocr-failed"
    assert caught.value.message == (
        "Page 1 of 1 is a scan under a stamp and needs OCR, but the OCR program "
        "(/nonexistent/tesseract) is not installed on this server; bin/setup installs it.")


def test_a_language_without_data_is_a_sentence_naming_the_installed_ones(
        english_scan: bytes) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(english_scan, ocr=OcrOptions(language="klingon"))
    assert caught.value.kind == "ocr-failed"
    assert caught.value.message.startswith(
        "Page 1 of 1 has no text layer and needs OCR, which failed: OCR language 'klingon' "
        "is not installed here; choose from ")
    assert "eng" in caught.value.message


def test_language_names_are_checked_against_the_installed_ones() -> None:
    installed = ("deu", "eng", "fra")
    assert language_problem("eng", installed) is None
    assert language_problem("eng+fra", installed) is None
    assert language_problem("spa", installed) == (
        "OCR language 'spa' is not installed here; choose from deu, eng, fra (several joined "
        "by +, e.g. eng+fra).")
    assert "not a language name" in (language_problem("eng fra; rm -rf", installed) or "")
    assert "not available on this server" in (language_problem("eng", ()) or "")


def test_more_scanned_pages_than_the_ocr_limit_fail_by_name() -> None:
    data = make_scan(ENGLISH, pages=2).data
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, ocr=OcrOptions(max_pages=1))
    assert caught.value.kind == "ocr-failed"
    assert caught.value.message.startswith(
        "This PDF has more than 1 page without a text layer (the limit for OCR; reached at "
        "page 2 of 2)")


# ---- limits, with a stand-in for the OCR program that behaves as it does at them


def _program(folder: Path, body: str) -> str:
    path = folder / "fake-tesseract"
    path.write_text(f"#!/bin/sh\necho $$ > {folder / 'pid'}\n{body}\n")
    path.chmod(0o755)
    return str(path)


def _running(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def _wait_gone(pid: int) -> bool:
    for _ in range(100):
        if not _running(pid):
            return True
        time.sleep(0.1)
    return False


def test_ocr_past_the_time_limit_fails_naming_it_and_the_program_is_killed(
        english_scan: bytes, tmp_path: Path) -> None:
    command = _program(tmp_path, "exec sleep 60")
    # Reading the page takes milliseconds of the document's 5 s, even on a
    # busy machine: the OCR program is what the limit stops.
    outcome = run_isolated(english_scan, max_seconds=5.0,
                           ocr=OcrOptions(command=command, seconds_per_page=1.0))
    assert outcome.error is not None and outcome.error.kind == "timeout"
    assert outcome.error.message == (
        "OCR of page 1 of 1 stopped at the 6-second limit (5 s for the document plus 1 s for "
        "each of the 1 page OCR'd).")
    assert _wait_gone(int((tmp_path / "pid").read_text()))


def test_the_ocr_program_never_outlives_the_sandbox_child(
        english_scan: bytes, tmp_path: Path) -> None:
    # The parent gives up on the child before the child's own clock stops the
    # program: the kernel kills the program with the child.
    command = _program(tmp_path, "exec sleep 60")
    # (the parent waits 10 + 10 - 7 = 13 s once OCR has begun, the child's
    # own clock would stop the program at 20 s). The forkserver is started
    # first, so the child reaches its page within the 3 s before OCR begins.
    run_isolated(english_scan, ocr=None)
    outcome = run_isolated(english_scan, max_seconds=10.0, grace_seconds=-7.0,
                           ocr=OcrOptions(command=command, seconds_per_page=10.0))
    assert outcome.error is not None and outcome.error.kind == "timeout"
    assert outcome.error.message.startswith("OCR of page 1 of 1 stopped at the 20-second limit")
    assert _wait_gone(int((tmp_path / "pid").read_text()))


def test_ocr_past_the_memory_limit_fails_naming_it(english_scan: bytes, tmp_path: Path) -> None:
    # What tesseract does when an allocation fails under the inherited RLIMIT_AS.
    command = _program(tmp_path, "echo \"terminate called after throwing an instance of "
                                 "'std::bad_alloc'\" >&2\nkill -ABRT $$")
    outcome = run_isolated(english_scan, max_memory_bytes=1536 * _MIB,
                           ocr=OcrOptions(command=command))
    assert outcome.error is not None and outcome.error.kind == "memory"
    assert outcome.error.message.startswith(
        "OCR of page 1 of 1 needed more than the memory limit of 1,536 MiB")


def test_the_ocr_program_inherits_the_memory_limit_and_runs_one_thread(
        english_scan: bytes, tmp_path: Path) -> None:
    command = _program(tmp_path, f"ulimit -v > {tmp_path / 'limit'}\n"
                                 f"echo $OMP_THREAD_LIMIT > {tmp_path / 'threads'}\nexit 1")
    run_isolated(english_scan, max_memory_bytes=1536 * _MIB, ocr=OcrOptions(command=command))
    assert int((tmp_path / "limit").read_text()) == 1536 * 1024  # KiB
    assert (tmp_path / "threads").read_text().strip() == "1"


# A letter's page, as a fax machine or a scanner might be fed it the wrong way.
_LETTER = (
    "Dear Ms Alvarez,",
    "Thank you for your letter of 3 March about the heating in your flat.",
    "We have asked our contractor to inspect the boiler next Tuesday morning.",
    "If the boiler cannot be repaired, it will be replaced at our expense.",
    "The rent for April will be reduced by one quarter for the lost heating.",
    "Please let the contractor in, or tell us another day that suits you.",
    "We are sorry for the trouble and thank you for your patience.",
    "Yours sincerely,",
    "Jonathan Reeve, Property Manager",
)
_LETTER_QUOTE = "it will be replaced at our expense"


def _letter() -> bytes:
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    for number, line in enumerate(_LETTER):
        page.insert_text((72, 120 + 24 * number), line, fontname="helv", fontsize=12)
    return bytes(document.tobytes())


@pytest.fixture(scope="module")
def letter_upright() -> ExtractedDocument:
    return extract_pdf(scan_of(_letter()).data)


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_scan_fed_in_turned_reads_as_upright_and_highlights_where_printed(
        turn: int, letter_upright: ExtractedDocument) -> None:
    # Read as it lies, the page upside down or turned a quarter is nonsense
    # (or, a quarter the other way, words without character boxes): it is
    # read turned upright, its boxes turned back onto the page as it lies.
    original = _letter()
    document = extract_pdf(turned_scan_of(original, turn).data)
    assert document.text == letter_upright.text
    assert document.ocr is not None and document.ocr.pages[0].confidence > 80
    report = verify_answer(f'The landlord wrote that "{_LETTER_QUOTE}" [S1].',
                           {"S1": document.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    (on_page,) = locate(document, citation.chunk_start, citation.chunk_end)
    rects = on_page["rects"]
    with pymupdf.open(stream=original, filetype="pdf") as source:
        words = [w[:5] for w in source[0].get_text("words")]
    quoted = _LETTER_QUOTE.split()
    at = next(k for k in range(len(words))
              if [w[4].strip(",.") for w in words[k : k + len(quoted)]] == quoted)
    printed = [(turned_box(tuple(w[:4]), 612, 792, turn), w[4])
               for w in words[at : at + len(quoted)]]
    for (x0, y0, x1, y1), word in printed:  # each printed word lies under the highlight
        middle_x, middle_y = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(r[0] - 1 <= middle_x <= r[2] + 1 and r[1] - 1 <= middle_y <= r[3] + 1
                   for r in rects), word
    # ... and the highlight does not run past the quoted words.
    left = min(box[0] for box, _ in printed)
    top = min(box[1] for box, _ in printed)
    right = max(box[2] for box, _ in printed)
    bottom = max(box[3] for box, _ in printed)
    for r in rects:
        assert r[0] >= left - 4 and r[2] <= right + 4
        assert r[1] >= top - 4 and r[3] <= bottom + 4
    # The lines recorded in the margin bands (for running heads and feet)
    # are those of the page as it lies, measured as the stored boxes are.
    assert document.lines is not None
    recorded = list(zip(document.lines.starts, document.lines.ends, document.lines.tops,
                        document.lines.bottoms, strict=True))
    assert recorded == _lines_in_bands(document)
    assert recorded or turn != 180  # upside down, the letter's first lines are at the foot


def _lines_in_bands(document: ExtractedDocument) -> list[tuple[int, int, float, float]]:
    """The text's lines (between line breaks) whose glyphs lie in the top or
    bottom band of the page as displayed, with their glyphs' extent."""
    assert document.lines is not None
    band, height = document.lines.band, document.pages[0].height
    found = []
    start = 0
    for line in document.text.split("\n"):
        boxes = document.geometry.glyph_boxes(start, start + len(line))
        if line and boxes:
            top, bottom = min(boxes[1::4]), max(boxes[3::4])
            if bottom <= height * band + 1 or top >= height * (1 - band) - 1:
                found.append((start, start + len(line), top, bottom))
        start += len(line) + 1
    return found


def test_an_upright_scan_is_read_once_and_not_asked_its_orientation(
        letter_upright: ExtractedDocument, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[int] = []
    monkeypatch.setattr(ocr, "_orientation", lambda *args, **kwargs: asked.append(1) or 0)
    document = extract_pdf(scan_of(_letter()).data)
    assert asked == []
    assert document.text == letter_upright.text
    assert document.text.split("\n")[0] == _LETTER[0]


def test_a_turned_scan_without_orientation_data_is_read_as_it_lies(tmp_path: Path) -> None:
    # Tesseract data without osd: orientation cannot be found, and the page
    # is read as it lies, as before, rather than failing the document.
    for entry in Path(DEFAULT_TESSDATA).iterdir():
        if entry.name != "osd.traineddata":
            (tmp_path / entry.name).symlink_to(entry)
    scan = turned_scan_of(_letter(), 180).data
    document = extract_pdf(scan, ocr=OcrOptions(tessdata=str(tmp_path)))
    assert document.ocr is not None and document.ocr.pages[0].words > 0
    assert _LETTER_QUOTE not in document.text
    assert _LETTER_QUOTE in extract_pdf(scan).text


def test_a_stamp_over_an_upside_down_scan_is_kept_once_where_it_stands(
        letter_upright: ExtractedDocument) -> None:
    # The gazette stamps the page as displayed; the scan under it is upside
    # down. The scan is read upright, OCR's reading of the stamp (upside down
    # on the upright page) is dropped, and the stamp, at the displayed foot,
    # stands at the head of the upright page: it comes first.
    with pymupdf.open(stream=turned_scan_of(_letter(), 180).data, filetype="pdf") as scan:
        scan[0].insert_text(STAMP_AT, STAMP, fontname="helv", fontsize=8)
        data = scan.tobytes()
    without_ocr = extract_pdf(data, ocr=None)
    assert without_ocr.text == STAMP
    document = extract_pdf(data)
    assert document.text.startswith(STAMP + "\n\n")
    # The letter's words as read upright (the stamp's pixels may move where
    # Tesseract starts a paragraph), once.
    assert document.text[len(STAMP) + 2 :].split() == letter_upright.text.split()
    assert document.geometry.glyph_boxes(0, len(STAMP)) == without_ocr.geometry.glyph_boxes(
        0, len(STAMP))


@pytest.mark.parametrize("turn", [90, 180])
def test_a_wrong_orientation_is_not_believed_over_the_reading_as_it_lies(
        turn: int, letter_upright: ExtractedDocument, monkeypatch: pytest.MonkeyPatch) -> None:
    # Were the detection to say an upright page is turned, the page read
    # "upright" that way reads worse than as it lies, and is not kept.
    monkeypatch.setattr(ocr, "_may_be_turned", lambda hocr: True)
    monkeypatch.setattr(ocr, "_orientation", lambda *args, **kwargs: turn)
    document = extract_pdf(scan_of(_letter()).data)
    assert document.text == letter_upright.text


# A paper's references in two columns, each entry's number hung left of its
# lines and counting up down its column, entries of two or three lines (so
# the columns' numbers fall on different lines), set tight in 7.5 point type.
_REFERENCE_COLUMNS: tuple[tuple[tuple[int, str], ...], ...] = (
    ((61, "Lundin KE, Scott H, Hansen T, et al. Gliadin specific T cells isolated from the "
          "small intestinal mucosa of celiac disease patients. J Exp Med 1993;178:187-96."),
     (62, "Ellis HJ, Pollock EL, Engel W, et al. Investigation of the putative "
          "immunodominant T cell epitopes in coeliac disease. Gut 2003;52:212-7."),
     (63, "Camarca A, Anderson RP, Mamone G, et al. Intestinal T cell responses to gluten "
          "peptides are largely heterogeneous: implications for a peptide based therapy in "
          "celiac disease. J Immunol 2009;182:4158-66."),
     (64, "Dieterich W, Ehnis T, Bauer M, et al. Identification of tissue transglutaminase as "
          "the autoantigen of celiac disease. Nat Med 1997;3:797-801.")),
    ((88, "Nachman F, Vazquez H, Gonzalez A, et al. Gastroesophageal reflux symptoms in "
          "patients with celiac disease and the effects of a gluten free diet. Clin "
          "Gastroenterol Hepatol 2011;9:214-9."),
     (89, "Karell K, Louka AS, Moodie SJ, et al. HLA types in celiac disease patients not "
          "carrying the heterodimer: results from the European Genetics Cluster on Celiac "
          "Disease. Hum Immunol 2003;64:469-77."),
     (90, "Abadie V, Sollid LM, Barreiro LB, et al. Integration of genetic and immunological "
          "insights into a model of celiac disease pathogenesis. Annu Rev Immunol "
          "2011;29:493-525."),
     (91, "Polvi A, Arranz E, Fernandez Arquero M, et al. Negative celiac disease in Finland "
          "and Spain. Hum Immunol 1998;59:169-75.")),
)


def _reference_columns_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    size, leading, width = 7.5, 9.0, 220.0
    for (number_x, text_x), entries in zip(((46.0, 62.0), (310.0, 326.0)), _REFERENCE_COLUMNS,
                                           strict=True):
        y = 62.0
        for number, entry in entries:
            page.insert_text((number_x, y), str(number), fontsize=size, fontname="tiro")
            line = ""
            for word in entry.split():  # wrapped to the column's width
                longer = f"{line} {word}".strip()
                if line and pymupdf.get_text_length(longer, "tiro", size) > width:
                    page.insert_text((text_x, y), line, fontsize=size, fontname="tiro")
                    y, longer = y + leading, word
                line = longer
            page.insert_text((text_x, y), line, fontsize=size, fontname="tiro")
            y += leading
    return doc.tobytes()


def test_a_scans_numbered_references_in_two_columns_read_each_entry_after_its_number() -> None:
    # Before: Tesseract read each column's numbers as a column of their own,
    # so the page read "61 / 62 / 63 / 64" and then the entries, every
    # entry apart from its number.
    text = extract_pdf(scan_of(_reference_columns_pdf()).data).text
    for entries in _REFERENCE_COLUMNS:
        for number, entry in entries:
            quote = f"{number} {entry}"
            report = verify_answer(f'The paper cites "{quote}" [S1].', {"S1": text})
            (citation,) = [c for s in report.sentences for c in s.citations]
            assert citation.outcome in {"verified", "verified-fuzzy"}, (quote, text)
            assert citation.chunk_start is not None and citation.chunk_end is not None
            # Blanks aside (OCR may space "2007; 147"), the words as printed.
            read = text[citation.chunk_start : citation.chunk_end]
            assert "".join(read.split()) == "".join(quote.split()), (quote, text)


# A report's numbered paragraphs in a column beside a small ruled table
# (batch 14's Nepal Rastra Bank report, redrawn): the numbers hang left of
# each paragraph's first line.
_NUMBERED_PARAGRAPHS = (
    ("1.", ("National Statistics Office has estimated economic",
            "growth at producers' price to be 1.86 percent for",
            "2022/23. Agriculture, industry and service sectors are",
            "estimated to grow 2.73 percent, 0.59 percent and",
            "2.33 percent respectively.")),
    ("2.", ("Share of agriculture, industry and service sectors in",
            "GDP stands 24.12 percent, 13.45 percent and 62.43",
            "percent respectively in 2022/23 (Table 1).")),
    ("3.", ("The ratio of gross domestic saving to GDP stands",
            "6.41 percent in 2022/23. Ratio of gross fixed capital",
            "formation and gross national saving to GDP stands",
            "25.21 percent and 31.66 percent respectively.")),
)
_SHARE_ROWS = (("Sectors", "2020/21", "2021/22", "2022/23"),
               ("Agriculture", "25.80", "24.67", "24.12"), ("Industry", "13.82", "14.09", "13.45"),
               ("Service", "60.38", "61.24", "62.43"), ("GDP growth", "4.84", "5.61", "1.86"),
               ("Agriculture", "2.85", "2.24", "2.73"), ("Industry", "6.95", "10.80", "0.59"),
               ("Service", "4.71", "5.32", "2.33"))


def _numbered_paragraphs_beside_a_table_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    size, leading, y = 11.0, 13.8, 120.0
    for number, lines in _NUMBERED_PARAGRAPHS:
        page.insert_text((48, y), number, fontsize=size, fontname="tiro")
        for line in lines:
            page.insert_text((65, y), line, fontsize=size, fontname="tiro")
            y += leading
        y += leading
    walls, top = (322.0, 390.0, 440.0, 492.0, 545.0), 108.0
    page.insert_text((370, top + 10), "Table 1: Share in GDP (Percent)", fontsize=10,
                     fontname="tibo")
    tops = [top, top + 13.0] + [top + 13.0 + 12.5 * (k + 1) for k in range(len(_SHARE_ROWS))]
    for at in tops:
        page.draw_line((walls[0], at), (walls[-1], at), width=0.5)
    for x in walls:
        page.draw_line((x, top if x in (walls[0], walls[-1]) else tops[1]), (x, tops[-1]),
                       width=0.5)
    for row, at in zip(_SHARE_ROWS, tops[1:], strict=False):
        for x, cell in zip(walls, row, strict=False):
            page.insert_text((x + 3, at + 9.5), cell, fontsize=10, fontname="tiro")
    return doc.tobytes()


def test_a_scans_paragraph_numbers_tesseract_leaves_unread_are_read_again() -> None:
    # Before: Tesseract read "1." but not "2." nor "3.", and a quote of a
    # paragraph with its number was not found.
    text = extract_pdf(scan_of(_numbered_paragraphs_beside_a_table_pdf()).data).text
    for number, lines in _NUMBERED_PARAGRAPHS:
        quote = f"{number} {' '.join(lines)}"
        assert _quoted(text, quote) == quote


def _hanging_list(font_name: str) -> bytes:
    """A regulation's list in ``font_name`` at 11.5 pt: its labels "(a)",
    "(b)", "(c)" hung at 144 pt, each item's lines at 180 pt."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font(font_name)
    writer = pymupdf.TextWriter(page.rect)
    size, y = 11.5, 100.0
    writer.append((72, y), "1) Systems owners and information owners shall:", font=font,
                  fontsize=size)
    y += 2 * size
    for label, lines in (
        ("(a)", ["Retain each collection of personal data for the period identified in the",
                 "record retention schedules to fulfil the purposes identified in the notice;"]),
        ("(b)", ["Dispose of, destroy, erase or anonymise the personal data, regardless of",
                 "the method of storage, in accordance with an approved schedule; and"]),
        ("(c)", ["Use the techniques identified in the media sanitisation guidelines to",
                 "ensure secure deletion or destruction of personal data."]),
    ):
        writer.append((144, y), label, font=font, fontsize=size)
        for line in lines:
            writer.append((180, y), line, font=font, fontsize=size)
            y += 1.2 * size
        y += 0.8 * size
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_lists_hung_labels_read_as_a_column_go_back_to_their_items() -> None:
    # Tesseract reads the labels as a paragraph of their own, "(a) (b) (c)"
    # before any item; each goes back to the start of the line it stands
    # level with, so a quote of an item with its label verifies.
    text = extract_pdf(scan_of(_hanging_list("tiro")).data).text
    for quote in ("(a) Retain each collection of personal data for the period",
                  "purposes identified in the notice; (b) Dispose of, destroy, erase",
                  "in accordance with an approved schedule; and (c) Use the techniques"):
        (citation,) = verify_answer(f'It says "{quote}" [S1].', {"S1": text}).citations
        assert citation.outcome.startswith("verified"), (quote, citation.outcome, text)


def test_a_lists_letter_tesseract_left_unread_is_read_again() -> None:
    # In Helvetica Tesseract reads none of the labels; the ink hung left of
    # an item's first line, read again enlarged, is a list's letter.
    text = extract_pdf(scan_of(_hanging_list("helv")).data).text
    assert "(a) Retain each collection" in text, text
    (citation,) = verify_answer(
        'It says "(a) Retain each collection of personal data for the period" [S1].',
        {"S1": text}).citations
    assert citation.outcome.startswith("verified"), citation.outcome
