"""A footnote marker (a small, raised number) reads where it is printed, and a
quote may keep it, drop it or space it off; a number at the line's size and
baseline is still a number (issue 23, item 1)."""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, layout, locate
from reviewer.ingestion.extract import order_page
from reviewer.ingestion.tables import Rules
from verification import Citation, verify_answer

_LINE = "The bill makes amendments to the Copyright Act"
_AFTER = " to create"
_NEXT = "four new limitations on the exclusive rights of 3 owners."


def _statute(*, marker_rise: float, marker_size: float = 7.0) -> bytes:
    """A statute summary, "...Copyright Act³ to create⏎four new limitations...",
    drawn as such PDFs draw it: the line, then the marker placed after "Act"
    on its own baseline, then the next line."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)  # registers the font /helv
    after_act = 72 + pymupdf.get_text_length(_LINE, fontsize=11)
    marker_width = pymupdf.get_text_length("3", fontsize=marker_size)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({_LINE}) Tj "
        f"1 0 0 1 {after_act + marker_width:.2f} 692 Tm ({_AFTER}) Tj "
        f"/helv {marker_size:g} Tf 1 0 0 1 {after_act:.2f} {692 + marker_rise:.2f} Tm (3) Tj "
        f"/helv 11 Tf 1 0 0 1 72 678 Tm ({_NEXT}) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    return doc.tobytes()


@pytest.fixture(scope="module")
def statute() -> ExtractedDocument:
    return extract_pdf(_statute(marker_rise=5))


def test_a_raised_marker_reads_where_it_is_printed(statute: ExtractedDocument) -> None:
    # Before: "...Copyright Act to create\n3\n\nfour new limitations...".
    # Written as the superscript it is (one character for one).
    assert "Copyright Act\u00b3 to create" in statute.text
    assert "\n3\n" not in statute.text
    # Its glyph keeps its own box, between "Act" and " to create".
    at = statute.text.index("Act\u00b3") + 3
    marker, t, space = (statute.geometry.box(at + k) for k in (0, -1, 1))
    assert marker is not None and t is not None and space is not None
    assert t[2] <= marker[0] + 0.5 and marker[2] <= space[2]
    assert marker[3] < t[3]  # raised


def test_a_marker_drawn_after_the_paragraph_comes_back_to_its_line() -> None:
    # Drawn last, the marker is a block of its own: before, the page ended "...\n\n3".
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    after_act = 72 + pymupdf.get_text_length(_LINE, fontsize=11)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({_LINE}{_AFTER}) Tj "
        f"1 0 0 1 72 678 Tm ({_NEXT}) Tj "
        f"/helv 7 Tf 1 0 0 1 {after_act:.2f} 696 Tm (3) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    text = extract_pdf(doc.tobytes()).text
    assert text == f"{_LINE}\u00b3{_AFTER}\n{_NEXT}"


def test_a_small_digit_on_the_baseline_is_not_a_marker() -> None:
    # Lowered, not raised: nothing says it is a footnote marker; it stays put.
    doc = extract_pdf(_statute(marker_rise=-2))
    assert "Act3" not in doc.text


@pytest.mark.parametrize("quote", [
    "the Copyright Act to create four new limitations",  # dropped: the usual repair
    "the Copyright Act3 to create four new limitations",  # glued, as printed
    "the Copyright Act 3 to create four new limitations",  # kept, spaced off
    "the Copyright Act\u00b3 to create four new limitations",  # kept as a superscript
])
def test_a_quote_across_the_marker_verifies_and_highlights_its_words(
    statute: ExtractedDocument, quote: str
) -> None:
    report = verify_answer(f'The summary says "{quote}" [S1].', {"S1": statute.text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]
    assert citation.chunk_start is not None and citation.chunk_end is not None
    start, end = citation.chunk_start, citation.chunk_end
    assert " ".join(statute.text[start:end].split()) == (
        "the Copyright Act\u00b3 to create four new limitations"
    )
    # The highlight covers the first and last quoted glyphs, on both lines.
    rects = [r for page in locate(statute, start, end) for r in page["rects"]]
    for index in (start, end - 1):
        box = statute.geometry.box(index)
        assert box is not None
        assert any(r[0] - 0.01 <= box[0] and box[2] <= r[2] + 0.01
                   and r[1] - 0.01 <= box[1] and box[3] <= r[3] + 0.01 for r in rects)


def test_a_number_at_the_lines_size_changed_is_still_caught(statute: ExtractedDocument) -> None:
    quote = "four new limitations on the exclusive rights of 4 owners"
    report = verify_answer(f'It says "{quote}" [S1].', {"S1": statute.text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome == "quote-altered"
    assert any("number" in d.reasons for d in citation.differences)


def test_a_changed_marker_is_a_changed_number(statute: ExtractedDocument) -> None:
    quote = "the Copyright Act4 to create four new limitations"
    report = verify_answer(f'It says "{quote}" [S1].', {"S1": statute.text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    assert citation.outcome == "quote-altered"


_YEAR_LINE = "amendments to the Copyright Act of 1976"
_YEAR_NEXT = "four new limitations on the exclusive rights of owners."


def _after_a_number(*, own_line: bool, host: str = _YEAR_LINE, rise: float = 5) -> bytes:
    """"...Act of 1976³ to create": the raised, smaller "3" either drawn
    apart after the line (MuPDF reads it as a line of its own) or inside the
    line's text object with a text rise (MuPDF reads it into the line:
    ``19763``)."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    after = 72 + pymupdf.get_text_length(host, fontsize=11)
    width = pymupdf.get_text_length("3", fontsize=7)
    if own_line:
        line = (
            f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({host}) Tj "
            f"1 0 0 1 {after + width:.2f} 692 Tm ({_AFTER}) Tj "
            f"/helv 7 Tf 1 0 0 1 {after:.2f} {692 + rise:.2f} Tm (3) Tj ET "
        )
    else:
        line = (
            f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({host}) Tj "
            f"/helv 7 Tf {rise:g} Ts (3) Tj 0 Ts /helv 11 Tf ({_AFTER}) Tj ET "
        )
    stream = line + f"BT /helv 11 Tf 1 0 0 1 72 678 Tm ({_YEAR_NEXT}) Tj ET"
    doc.update_stream(page.get_contents()[0], stream.encode())
    return doc.tobytes()


@pytest.fixture(scope="module", params=["own line", "same line"])
def after_year(request: pytest.FixtureRequest) -> ExtractedDocument:
    return extract_pdf(_after_a_number(own_line=request.param == "own line"))


def test_a_marker_after_a_number_reads_as_a_superscript(after_year: ExtractedDocument) -> None:
    # Before: "...of 1976 to create\n3" (own line) or "...of 19763 to create"
    # (same line), another year.
    assert " ".join(after_year.text.split()).endswith(f"of 1976\u00b3{_AFTER} {_YEAR_NEXT}")
    assert "19763" not in after_year.text
    at = after_year.text.index("\u00b3")
    marker, six = after_year.geometry.box(at), after_year.geometry.box(at - 1)
    assert marker is not None and six is not None
    assert marker[3] < six[3] and marker[0] >= six[2] - 0.5  # raised, after the 6


def _citation(text: str, quote: str) -> Citation:
    report = verify_answer(f'The summary says "{quote}" [S1].', {"S1": text})
    (citation,) = [c for s in report.sentences for c in s.citations]
    return citation


@pytest.mark.parametrize("quote", [
    "the Copyright Act of 1976 to create four new limitations",  # dropped
    "the Copyright Act of 19763 to create four new limitations",  # glued, as pdftotext reads it
    "the Copyright Act of 1976 3 to create four new limitations",  # kept, spaced off
    "the Copyright Act of 1976\u00b3 to create four new limitations",  # kept as a superscript
])
def test_a_quote_across_a_marker_after_a_number_verifies(
    after_year: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]
    assert citation.chunk_start is not None and citation.chunk_end is not None
    start, end = citation.chunk_start, citation.chunk_end
    assert " ".join(after_year.text[start:end].split()) == (
        "the Copyright Act of 1976\u00b3 to create four new limitations"
    )
    rects = [r for page in locate(after_year, start, end) for r in page["rects"]]
    marker = after_year.geometry.box(after_year.text.index("\u00b3"))
    assert marker is not None
    assert any(r[0] - 0.01 <= marker[0] and marker[2] <= r[2] + 0.01 for r in rects)


@pytest.mark.parametrize("quote", [
    "the Copyright Act of 1977 to create four new limitations",  # the year changed
    "the Copyright Act of 1976 4 to create four new limitations",  # the marker changed
    "the Copyright Act of 19764 to create four new limitations",
    "the Copyright Act of 1976\u2074 to create four new limitations",
])
def test_a_changed_number_beside_the_marker_is_caught(
    after_year: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year.text, quote)
    assert citation.outcome == "quote-altered"
    assert any("number" in d.reasons for d in citation.differences)


def test_a_number_at_the_lines_size_is_still_a_number() -> None:
    # The same "19763" at the line's size and baseline: dropping the 3 changes it.
    text = f"amendments to the Copyright Act of 19763{_AFTER}\n{_YEAR_NEXT}"
    citation = _citation(text, "the Copyright Act of 1976 to create four new limitations")
    assert citation.outcome == "quote-altered"


def test_an_exponent_after_ten_is_not_a_marker() -> None:
    # "10⁶ cells" read in the same line: written as the superscript it is
    # (before: "106", another number), and not to be dropped as a marker.
    doc = extract_pdf(_after_a_number(own_line=False, host="a count above 10", rise=4))
    assert "above 10\u00b3 to create" in doc.text
    citation = _citation(doc.text, "a count above 10 to create four new limitations")
    assert citation.outcome == "quote-altered"


_CUT_BEFORE = "50 employees or one-third of the workforce have suffered an employment"
_CUT_REST = " at a single site. Employers must exclude all employees who"


@pytest.fixture(scope="module")
def cut_at_marker() -> ExtractedDocument:
    """"…an employment⏎loss²¹ at a single site…" as a GAO report draws it
    (outside the corpus, p. 20): MuPDF cuts the printed line at the marker,
    "loss" ending one block and "21 at a single site…" starting the next."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    after_loss = 72 + pymupdf.get_text_length("loss", fontsize=11)
    marker_width = pymupdf.get_text_length("21", fontsize=5.5)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({_CUT_BEFORE}) Tj 1 0 0 1 72 678 Tm (loss) Tj ET "
        f"BT /helv 5.5 Tf 1 0 0 1 {after_loss:.2f} 682.5 Tm (21) Tj "
        f"/helv 11 Tf 1 0 0 1 {after_loss + marker_width:.2f} 678 Tm ({_CUT_REST}) Tj "
        f"1 0 0 1 72 664 Tm (worked fewer than the last 6 out of 12 months.) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    return extract_pdf(doc.tobytes())


def test_a_marker_that_starts_the_rest_of_its_line_goes_back_to_its_word(
    cut_at_marker: ExtractedDocument,
) -> None:
    # Before: "...an employment\nloss\n\n21 at a single site. Employers...".
    assert f"an employment\nloss\u00b2\u00b9{_CUT_REST}\n" in cut_at_marker.text


@pytest.mark.parametrize("quote", [
    "suffered an employment loss at a single site",
    "suffered an employment loss21 at a single site",
    "suffered an employment loss 21 at a single site",
])
def test_a_quote_across_a_marker_that_started_a_line_verifies(
    cut_at_marker: ExtractedDocument, quote: str
) -> None:
    citation = _citation(cut_at_marker.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert citation.chunk_start is not None and citation.chunk_end is not None
    rects = [r for page in locate(cut_at_marker, citation.chunk_start, citation.chunk_end)
             for r in page["rects"]]
    assert len(rects) == 2  # "suffered an employment" and "loss21 at a single site"


def test_a_changed_marker_that_started_a_line_is_caught(cut_at_marker: ExtractedDocument) -> None:
    citation = _citation(cut_at_marker.text, "suffered an employment loss22 at a single site")
    assert citation.outcome == "quote-altered"


def test_a_marker_at_the_start_of_the_next_line_goes_back_to_its_word() -> None:
    """MuPDF may begin the next line with the marker printed at the end of
    the one above (``Act⏎3to create``). The lines here are as MuPDF would give
    them: "3" small and raised, on the upper line's band, after "Act"."""
    upper_text = "The bill makes amendments to the Copyright Act"
    lower_text = "to create four new limitations on the rights."

    def boxes(text: str, x: float, top: float, size: float) -> list[float]:
        out: list[float] = []
        for k, char in enumerate(text):
            x0 = x + pymupdf.get_text_length(text[:k], fontsize=size)
            x1 = x0 + pymupdf.get_text_length(char, fontsize=size)
            out += [x0, top, x1, top + 1.38 * size]
        return out

    def line(text: str, box: list[float]) -> layout.Line:
        return layout.Line(text, box, min(box[0::4]), min(box[1::4]),
                           max(box[2::4]), max(box[3::4]), True)

    upper = line(upper_text, boxes(upper_text, 72, 138.2, 11))
    act_end = upper.x1
    lower_boxes = boxes("3", act_end, 137.5, 7) + boxes(lower_text, 72, 150.2, 11)
    lower = line("3" + lower_text, lower_boxes)
    blocks = layout.attach_markers([[upper, lower]], 15.18)
    texts = [ln.text for lines in blocks for ln in lines]
    assert texts == [upper_text + "\u00b3", lower_text]
    # Each glyph keeps its box: the marker's now closes the upper line.
    (lines,) = blocks
    assert lines[0].boxes[-4:] == lower_boxes[:4]
    assert lines[1].x0 == 72


def test_a_number_opening_the_next_line_stays() -> None:
    # "3 patients" opening a line at the line's size is text of that line.
    upper_text = "The study enrolled"
    size = 11

    def line(text: str, x: float, top: float) -> layout.Line:
        box: list[float] = []
        for k, char in enumerate(text):
            x0 = x + pymupdf.get_text_length(text[:k], fontsize=size)
            box += [x0, top, x0 + pymupdf.get_text_length(char, fontsize=size), top + 15.18]
        return layout.Line(text, box, min(box[0::4]), min(box[1::4]),
                           max(box[2::4]), max(box[3::4]), True)

    blocks = layout.attach_markers(
        [[line(upper_text, 72, 138.2), line("3 patients in all.", 72, 150.2)]], 15.18)
    assert [ln.text for lines in blocks for ln in lines] == [upper_text, "3 patients in all."]


# A marker after a word, in the word's own line --------------------------------------

_WORD_LINE = "answers are provided in TREC, WebQuestions and TriviaQA"
_WORD_AFTER = ", we use the highest-ranked passage"
_WORD_NEXT = "from BM25 that contains the answer as the positive passage."


def _after_a_word(host: str, marker: str, after: str, *, rise: float = 4,
                  size: float = 7) -> bytes:
    """``host``, then ``marker`` in ``size`` points raised by ``rise`` (a text
    rise inside the line's text object: MuPDF reads it into the line as a
    span of its own, "TriviaQA6"), then ``after``; then a second line."""
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({host}) Tj "
        f"/helv {size:g} Tf {rise:g} Ts ({marker}) Tj 0 Ts /helv 11 Tf ({after}) Tj ET "
        f"BT /helv 11 Tf 1 0 0 1 72 678 Tm ({_WORD_NEXT}) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    return doc.tobytes()


@pytest.fixture(scope="module")
def after_word() -> ExtractedDocument:
    return extract_pdf(_after_a_word(_WORD_LINE, "6", _WORD_AFTER))


def test_a_marker_read_into_its_words_line_is_a_superscript(after_word: ExtractedDocument) -> None:
    # Before: "TriviaQA6, we use": glued digits, as "CO2" or "B12" read.
    assert f"TriviaQA\u2076{_WORD_AFTER}" in after_word.text
    at = after_word.text.index("\u2076")
    marker, a = after_word.geometry.box(at), after_word.geometry.box(at - 1)
    assert marker is not None and a is not None
    assert marker[3] < a[3] and marker[0] >= a[2] - 0.5  # raised, after the A


@pytest.mark.parametrize("quote", [
    "provided in TREC, WebQuestions and TriviaQA, we use the highest-ranked passage",  # dropped
    "provided in TREC, WebQuestions and TriviaQA6, we use the highest-ranked passage",  # glued
    "provided in TREC, WebQuestions and TriviaQA 6, we use the highest-ranked passage",  # spaced
])
def test_a_quote_across_a_marker_after_a_word_verifies(
    after_word: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_word.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]
    assert citation.chunk_start is not None and citation.chunk_end is not None
    start, end = citation.chunk_start, citation.chunk_end
    assert after_word.text[start:end] == (
        "provided in TREC, WebQuestions and TriviaQA\u2076, we use the highest-ranked passage"
    )
    rects = [r for page in locate(after_word, start, end) for r in page["rects"]]
    marker = after_word.geometry.box(after_word.text.index("\u2076"))
    assert marker is not None
    assert any(r[0] - 0.01 <= marker[0] and marker[2] <= r[2] + 0.01 for r in rects)


@pytest.mark.parametrize("quote", [
    "WebQuestions and TriviaQA7, we use the highest-ranked passage",  # the marker changed
    "WebQuestions and TriviaQA 7, we use the highest-ranked passage",
    "highest-ranked passage from BM26 that contains the answer",  # a real number changed
])
def test_a_changed_marker_or_number_after_a_word_is_caught(
    after_word: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_word.text, quote)
    assert citation.outcome == "quote-altered"
    assert any("number" in d.reasons for d in citation.differences)


def test_a_list_of_markers_after_a_word_may_be_dropped() -> None:
    doc = extract_pdf(_after_a_word("a leading platform for quantum realization", "3,4",
                                    " and logic gates with high fidelity"))
    assert "realization\u00b3,\u2074 and logic" in doc.text
    citation = _citation(doc.text, "platform for quantum realization and logic gates")
    assert citation.outcome == "verified-fuzzy", citation.message


def test_an_exponent_after_a_unit_is_not_droppable() -> None:
    # "cm²" is printed as a superscript and written so, but an area is no
    # footnote: dropping the power changes the unit.
    doc = extract_pdf(_after_a_word("the sample covered an area of 4 cm", "2",
                                    " and the flux was measured"))
    assert "4 cm\u00b2 and the flux" in doc.text
    assert _citation(doc.text, "an area of 4 cm2 and the flux was measured").outcome == "verified"
    citation = _citation(doc.text, "covered an area of 4 cm and the flux was measured")
    assert citation.outcome == "quote-altered"


@pytest.mark.parametrize(("rise", "size"), [(-2, 7), (4, 11)])
def test_a_digit_lowered_or_at_the_lines_size_after_a_word_stays_plain(
    rise: float, size: float
) -> None:
    # A subscript ("CO₂") or a digit at the line's size ("TriviaQA6" as
    # printed): no marker, and dropping it changes the text.
    doc = extract_pdf(_after_a_word(_WORD_LINE, "6", _WORD_AFTER, rise=rise, size=size))
    assert f"TriviaQA6{_WORD_AFTER}" in doc.text
    citation = _citation(doc.text, "WebQuestions and TriviaQA, we use the highest-ranked passage")
    assert citation.outcome == "quote-altered"


_ACT_LINE = "enacted as part of the Consolidated Appropriations Act, 2023."


@pytest.fixture(scope="module")
def after_year_stop() -> ExtractedDocument:
    # An FDA guidance (outside batch 3): "...Appropriations Act, 2023.²" with
    # the smaller, raised "2" read into the line after the full stop. Before,
    # "2023.2": a decimal, so the quote that drops the marker changed a number.
    return extract_pdf(_after_a_word(_ACT_LINE, "2", "", rise=4, size=8))


def test_a_marker_after_a_year_and_a_full_stop_is_a_superscript(
    after_year_stop: ExtractedDocument,
) -> None:
    assert "Act, 2023.\u00b2" in after_year_stop.text


@pytest.mark.parametrize("quote", [
    "enacted as part of the Consolidated Appropriations Act, 2023.",  # dropped
    "enacted as part of the Consolidated Appropriations Act, 2023. 2",  # spaced (pdftotext)
    "enacted as part of the Consolidated Appropriations Act, 2023.2",  # glued
])
def test_a_quote_across_a_marker_after_a_year_and_a_full_stop_verifies(
    after_year_stop: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year_stop.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]


@pytest.mark.parametrize("quote", [
    "enacted as part of the Consolidated Appropriations Act, 2024.",  # the year changed
    "enacted as part of the Consolidated Appropriations Act, 2023. 3",  # the marker changed
])
def test_a_changed_year_or_marker_after_a_full_stop_is_caught(
    after_year_stop: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year_stop.text, quote)
    assert citation.outcome == "quote-altered"
    assert any("number" in d.reasons for d in citation.differences)


def test_a_digit_at_the_lines_size_after_a_year_and_a_full_stop_stays_a_number() -> None:
    doc = extract_pdf(_after_a_word(_ACT_LINE, "2", "", rise=0, size=11))
    assert "Act, 2023.2" in doc.text
    citation = _citation(doc.text, "enacted as part of the Consolidated Appropriations Act, 2023.")
    assert citation.outcome == "quote-altered"


_GRADE_LINE = "People at risk should be screened for chlamydia and syphilis."
_GRADE_AFTER = " Refer individual and partners to GUM."


@pytest.fixture(scope="module")
def graded() -> ExtractedDocument:
    # NICE's antimicrobial summary (outside batch 3): an evidence grade, a
    # smaller raised "1D", after the sentence it grades. Before, "syphilis.¹D":
    # the digit raised, the letter left plain, so no quote across it verified.
    return extract_pdf(_after_a_word(_GRADE_LINE, "1D", _GRADE_AFTER))


def test_a_raised_grade_reads_as_one_marker(graded: ExtractedDocument) -> None:
    assert f"syphilis.\u00b9D{_GRADE_AFTER}" in graded.text


@pytest.mark.parametrize("quote", [
    "screened for chlamydia and syphilis. Refer individual and partners to GUM.",  # dropped
    "screened for chlamydia and syphilis. 1D Refer individual and partners to GUM.",  # spaced
    "screened for chlamydia and syphilis.1D Refer individual and partners to GUM.",  # glued
])
def test_a_quote_across_a_raised_grade_verifies(graded: ExtractedDocument, quote: str) -> None:
    citation = _citation(graded.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]


def test_a_changed_grade_is_caught(graded: ExtractedDocument) -> None:
    citation = _citation(graded.text, "and syphilis. 2D Refer individual and partners to GUM.")
    assert citation.outcome == "quote-altered"


def test_a_grade_ending_in_a_sign_at_a_line_end_is_no_hyphenation() -> None:
    # "contacts.³B-⏎from BM25": the grade's minus sign at the line's end
    # joined "B" to the next line's first word ("bfrom"), as a word broken
    # at a hyphen is; a quote that keeps the grade, or drops it, failed.
    doc = extract_pdf(_after_a_word("military personnel and household contacts.", "3B-", ""))
    assert "contacts.\u00b3B-\n" in doc.text
    for quote in ("personnel and household contacts. 3B- from BM25 that contains the answer",
                  "personnel and household contacts. from BM25 that contains the answer"):
        citation = _citation(doc.text, quote)
        assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
        assert not [d for d in citation.differences if d.reasons]


def test_a_raised_number_before_a_word_at_the_lines_size_is_no_grade() -> None:
    # "the ¹³C spectrum": raised digits, then letters at the line's size; and
    # spaced off from the word before, an isotope's mass may not be dropped.
    doc = extract_pdf(_after_a_word("we recorded the", "13", "C spectrum of the glucose sample"))
    assert "the\u00b9\u00b3C spectrum" in doc.text or "the \u00b9\u00b3C spectrum" in doc.text
    citation = _citation(doc.text.replace("the\u00b9", "the \u00b9"),
                         "we recorded the spectrum of the glucose sample")
    assert citation.outcome == "quote-altered"


def test_a_list_of_raised_grades_reads_as_one_marker() -> None:
    # "GUM.¹A+,²D": before, only the first number was read as raised
    # ("GUM.¹A+,2D"), so the list was no marker and a quote dropping it failed.
    doc = extract_pdf(_after_a_word("If under 35 years or at risk, refer to GUM.", "1A+,2D",
                                    " Doxycycline is the first choice."))
    assert "GUM.\u00b9A+,\u00b2D Doxycycline" in doc.text
    citation = _citation(doc.text, "or at risk, refer to GUM. Doxycycline is the first choice.")
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message


def _subscript_pdf(*, drop: float, size: float = 9.0) -> bytes:
    """"...vitamin K₁ reduces response to..." as the warfarin label draws it
    (outside batch 3): the line, then its subscript "1" drawn after the
    paragraph as a text object of its own, ``drop`` points below the line's
    baseline (MuPDF reads it as a line of its own after the paragraph)."""
    host = "The use of vitamin K"
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    after = 72 + pymupdf.get_text_length(host, fontsize=11)
    width = pymupdf.get_text_length("1", fontsize=size)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({host}) Tj "
        f"1 0 0 1 {after + width:.2f} 692 Tm ( reduces response to subsequent therapy) Tj "
        f"1 0 0 1 72 678 Tm (and patients may return to a pretreatment status.) Tj ET "
        f"BT /helv {size:g} Tf 1 0 0 1 {after:.2f} {692 - drop:.2f} Tm (1) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    return doc.tobytes()


def test_a_subscript_drawn_apart_goes_back_after_its_letter() -> None:
    # Before: "...vitamin K reduces response...\n...status.\n1": the index
    # left its word, and a quote of "vitamin K1" (or "K 1") failed.
    doc = extract_pdf(_subscript_pdf(drop=2.5))
    assert "vitamin K\u2081 reduces response" in doc.text
    assert "\n1" not in doc.text
    for quote in ("The use of vitamin K1 reduces response to subsequent therapy",
                  "The use of vitamin K 1 reduces response to subsequent therapy"):
        citation = _citation(doc.text, quote)
        assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    # An index is no footnote marker: dropping or changing it is caught.
    for quote in ("The use of vitamin K reduces response to subsequent therapy",
                  "The use of vitamin K2 reduces response to subsequent therapy"):
        assert _citation(doc.text, quote).outcome == "quote-altered"


@pytest.mark.parametrize(("drop", "size"), [(0.0, 9.0), (2.5, 11.0)])
def test_a_digit_on_the_baseline_or_at_the_lines_size_is_no_subscript(
    drop: float, size: float
) -> None:
    doc = extract_pdf(_subscript_pdf(drop=drop, size=size))
    assert "K\u2081" not in doc.text


# GPO's markers: after a closing quotation printed as two single quotes, and after
# a year with no punctuation (House Report 118-9, outside batch 5) ---------------

_QUOTED_LINE = "the Committee adopted the definition of international terrorism.\\222\\222 "
_QUOTED_AFTER = " The Committee notes"


@pytest.fixture(scope="module")
def after_quotes() -> ExtractedDocument:
    # "terrorism.’’ 16 The": a 7 pt "16" raised after the closing quotes and a
    # space. Before, three closing characters where two were allowed: "16"
    # stayed a number, and a quote dropping it dropped a number.
    return extract_pdf(_after_a_word(_QUOTED_LINE, "16", _QUOTED_AFTER))


def test_a_marker_after_a_closing_quotation_of_two_single_quotes_is_a_superscript(
    after_quotes: ExtractedDocument,
) -> None:
    assert "terrorism.\u2019\u2019 \u00b9\u2076 The Committee" in after_quotes.text


@pytest.mark.parametrize("quote", [
    "the definition of international terrorism.\u2019\u2019 The Committee notes",  # dropped
    "the definition of international terrorism.\u2019\u2019 16 The Committee notes",  # spaced
    "the definition of international terrorism.\u2019\u201916 The Committee notes",  # glued
])
def test_a_quote_across_a_marker_after_closing_quotes_verifies(
    after_quotes: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_quotes.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]


def test_a_changed_marker_after_closing_quotes_is_caught(after_quotes: ExtractedDocument) -> None:
    citation = _citation(
        after_quotes.text,
        "the definition of international terrorism.\u2019\u2019 17 The Committee",
    )
    assert citation.outcome == "quote-altered"


def test_a_digit_at_the_lines_size_after_closing_quotes_stays_a_number() -> None:
    doc = extract_pdf(_after_a_word(_QUOTED_LINE, "16", _QUOTED_AFTER, rise=0, size=11))
    assert "terrorism.\u2019\u2019 16 The Committee" in doc.text
    citation = _citation(
        doc.text, "the definition of international terrorism.\u2019\u2019 The Committee notes")
    assert citation.outcome == "quote-altered"


_YEAR_LINE = "amendments to the Elementary and Secondary Education Act of 1965 "
_YEAR_AFTER = " to allow the states"


@pytest.fixture(scope="module")
def after_year_space() -> ExtractedDocument:
    # "Act of 1965 8 to allow": a raised "8" after the year and a space, no
    # punctuation. Before, punctuation was wanted after the year: "8" stayed a
    # number.
    return extract_pdf(_after_a_word(_YEAR_LINE, "8", _YEAR_AFTER))


def test_a_marker_after_a_year_and_a_space_is_a_superscript(
    after_year_space: ExtractedDocument,
) -> None:
    assert "Act of 1965 \u2078 to allow" in after_year_space.text


@pytest.mark.parametrize("quote", [
    "the Elementary and Secondary Education Act of 1965 to allow the states",  # dropped
    "the Elementary and Secondary Education Act of 1965 8 to allow the states",  # spaced
    "the Elementary and Secondary Education Act of 19658 to allow the states",  # glued (pdftotext)
])
def test_a_quote_across_a_marker_after_a_year_and_a_space_verifies(
    after_year_space: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year_space.text, quote)
    assert citation.outcome in {"verified", "verified-fuzzy"}, citation.message
    assert not [d for d in citation.differences if d.reasons]


@pytest.mark.parametrize("quote", [
    "the Elementary and Secondary Education Act of 1966 to allow the states",  # the year changed
    "the Elementary and Secondary Education Act of 1965 9 to allow the states",  # the marker
])
def test_a_changed_year_or_marker_after_a_space_is_caught(
    after_year_space: ExtractedDocument, quote: str
) -> None:
    citation = _citation(after_year_space.text, quote)
    assert citation.outcome == "quote-altered"
    assert any("number" in d.reasons for d in citation.differences)


@pytest.mark.parametrize(("rise", "size"), [(0, 11), (0, 7), (4, 11)])
def test_a_digit_at_the_lines_size_or_baseline_after_a_year_stays_a_number(
    rise: float, size: float
) -> None:
    # "in 1965 8 states" as printed: two numbers, whatever the pattern allows;
    # only a smaller, raised digit is a marker.
    doc = extract_pdf(_after_a_word(_YEAR_LINE, "8", _YEAR_AFTER, rise=rise, size=size))
    assert "Act of 1965 8 to allow" in doc.text
    for quote in ("the Elementary and Secondary Education Act of 1965 to allow the states",
                  "the Elementary and Secondary Education Act of 19658 to allow the states"):
        assert _citation(doc.text, quote).outcome == "quote-altered"


def test_a_list_of_markers_that_starts_the_rest_of_its_line_goes_back_to_its_word() -> None:
    """A Dutch guideline's mPDF output (batch 16) ends a sentence in one
    block and starts the next block, on the same baseline, with two raised
    sources and the next sentence: "overwogen worden." then "92,93 De
    combinatie ...". The lines here are as MuPDF gives them (boxes read off
    the page). Before: "92,93" was no marker (a list), so its block read as
    the next sentence's numbers and came first, its raised top being the
    higher: "combinatietherapie⏎⏎92,93 De combinatie ...⏎⏎overwogen worden."."""
    size = 11.25

    def line(text: str, x: float, top: float, font: float = size) -> layout.Line:
        box: list[float] = []
        for k, char in enumerate(text):
            x0 = x + pymupdf.get_text_length(text[:k], fontsize=font)
            box += [x0, top, x0 + pymupdf.get_text_length(char, fontsize=font),
                    top + 1.32 * font]
        return layout.Line(text, box, min(box[0::4]), min(box[1::4]),
                           max(box[2::4]), max(box[3::4]), True)

    first = line("lijken te reageren, moet daarom combinatietherapie", 42.5, 485.0)
    host = line("overwogen worden.", 42.5, 508.6)
    marker = line("92,93", host.x1, 508.3, 6.19)
    rest_text = " De combinatie verhoogt wel de kans op toxiciteit van zowel"
    rest = line(rest_text, marker.x1, 508.6)
    starting = layout.Line(marker.text + rest.text, marker.boxes + rest.boxes, marker.x0,
                           marker.y0, rest.x1, rest.y1, True)
    after = line("chemotherapeutica als TKI's.", 42.5, 532.2)
    blocks = order_page([[first], [host], [starting], [after]], lambda area: Rules([], []))
    # In reading order, the marker glued to the sentence it closes (the rest
    # of the printed line may stay a line of its own in that block).
    words = " ".join(ln.text for block in blocks for ln in block.lines).split()
    expected = f"{first.text} overwogen worden.\u2079\u00b2,\u2079\u00b3{rest_text} {after.text}"
    assert words == expected.split()
