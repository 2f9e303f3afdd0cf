"""A footnote marker (a small, raised number) reads where it is printed, and a
quote may keep it, drop it or space it off; a number at the line's size and
baseline is still a number (issue 23, item 1)."""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import ExtractedDocument, extract_pdf, locate
from verification import verify_answer

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
    assert "Copyright Act3 to create" in statute.text
    assert "\n3\n" not in statute.text
    # Its glyph keeps its own box, between "Act" and " to create".
    at = statute.text.index("Act3") + 3
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
    assert text == f"{_LINE}3{_AFTER}\n{_NEXT}"


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
        "the Copyright Act3 to create four new limitations"
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


def test_a_raised_digit_after_a_number_is_not_glued_to_it() -> None:
    # "1976" then a raised "3" on its own line: glued it would read "19763",
    # another year, so it stays where MuPDF put it.
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "x", fontsize=11)
    line = "amendments to the Copyright Act of 1976"
    after = 72 + pymupdf.get_text_length(line, fontsize=11)
    width = pymupdf.get_text_length("3", fontsize=7)
    stream = (
        f"BT /helv 11 Tf 1 0 0 1 72 692 Tm ({line}) Tj "
        f"1 0 0 1 {after + width:.2f} 692 Tm ({_AFTER}) Tj "
        f"/helv 7 Tf 1 0 0 1 {after:.2f} 697 Tm (3) Tj ET"
    )
    doc.update_stream(page.get_contents()[0], stream.encode())
    text = extract_pdf(doc.tobytes()).text
    assert f"of 1976{_AFTER}" in text
    assert "19763" not in text
