"""Lines set tight and justified with no space glyphs (XPP, xdvipdfmx): the
words are placed a little apart, closer than MuPDF's 0.15 em space threshold
but wider than a tenth of the size, where poppler breaks words. Their text
keeps its word spaces, and a quote of the words verifies and lights them up."""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import extract_pdf, locate
from reviewer.ingestion.extract import _word_gaps_spaced
from verification import verify_answer

SIZE = 10.0
LEFT, BASELINE = 72.0, 100.0


def _placed_pdf(words: list[str], word_gap: float, tracking: float = 0.0) -> bytes:
    """One line of ``words``, each glyph placed on its own: ``tracking`` after
    every letter, ``word_gap`` after every word, and no space glyph."""
    glyphs: list[tuple[str, float]] = []
    for word in words:
        glyphs += [(char, tracking) for char in word]
        glyphs[-1] = (word[-1], word_gap)
    return _glyphs_pdf(glyphs)


def _glyphs_pdf(glyphs: list[tuple[str, float]]) -> bytes:
    """One line of glyphs, each placed on its own and followed by the gap
    given with it (points, beyond its advance); " " is a space glyph."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        font = pymupdf.Font("helv")
        x = LEFT
        for char, gap in glyphs:
            page.insert_text((x, BASELINE), char, fontname="helv", fontsize=SIZE)
            x += font.text_length(char, fontsize=SIZE) + gap
        return bytes(doc.tobytes())


WORDS = ["people", "experiencing", "abuse", "due", "to", "fear"]


def test_word_gaps_under_mupdfs_threshold_are_spaces() -> None:
    document = extract_pdf(_placed_pdf(WORDS, word_gap=0.12 * SIZE))
    assert "people experiencing abuse due to fear" in document.text

    report = verify_answer('Reporting can elicit "experiencing abuse due to fear" [S1].',
                           {"S1": document.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    (page,) = locate(document, citation.chunk_start, citation.chunk_end)
    (rect,) = page["rects"]
    font = pymupdf.Font("helv")
    start = LEFT + font.text_length("people", fontsize=SIZE) + 0.12 * SIZE
    assert rect[0] == pytest.approx(start, abs=0.5)


def test_an_inserted_space_is_boxed_over_its_gap() -> None:
    document = extract_pdf(_placed_pdf(["due", "to"], word_gap=0.12 * SIZE))
    at = document.text.index("due to") + 3
    box = document.geometry.box(at)
    assert box is not None
    font = pymupdf.Font("helv")
    end_of_due = LEFT + font.text_length("due", fontsize=SIZE)
    assert box[0] == pytest.approx(end_of_due, abs=0.05)
    assert box[2] == pytest.approx(end_of_due + 0.12 * SIZE, abs=0.05)


def test_even_tracking_is_letters_not_words() -> None:
    # Every glyph 0.12 em apart and the words 0.5 em: only the word gaps are
    # wider than the line's usual gap by a tenth of the size.
    document = extract_pdf(
        _placed_pdf(["Annual", "Report"], word_gap=0.5 * SIZE, tracking=0.12 * SIZE)
    )
    assert "Annual Report" in document.text


def test_kerning_inside_a_word_is_not_a_gap() -> None:
    document = extract_pdf(_placed_pdf(["Statistics"], word_gap=0.0, tracking=0.05 * SIZE))
    assert "Statistics" in document.text


def test_right_to_left_glyphs_are_not_read_for_gaps() -> None:
    # Glyphs given in reading order but set right to left: each one's left edge
    # is far before the previous one's right edge, so no gap is a word gap,
    # whatever the small steps between a left-to-right run's letters.
    text = "abcdeXYZ"
    boxes: list[float] = []
    x = 200.0
    for _ in "abcde":  # right to left, 5 pt each
        boxes += (x - 5.0, 90.0, x, 100.0)
        x -= 5.0
    x = 100.0
    for _ in "XYZ":  # a left-to-right run placed after them
        boxes += (x, 90.0, x + 5.0, 100.0)
        x += 5.0
    spans = [{"size": SIZE, "chars": [None] * len(text)}]
    assert _word_gaps_spaced(text, boxes, spans) == (text, boxes)


def test_a_glyph_drawn_wider_than_its_box_on_a_spaced_line_stays_in_its_word() -> None:
    # A label whose font widths are not the ones it was set with: every "s"
    # is followed by 0.12 em more than its box, while the words have space
    # glyphs (poppler reads "caps ule s haped" here).
    glyphs = []
    for word in ["Flat", "beveled", "capsule", "shaped", "tablets"]:
        glyphs += [(char, 0.12 * SIZE if char == "s" else 0.0) for char in word]
        glyphs.append((" ", 0.0))
    document = extract_pdf(_glyphs_pdf(glyphs[:-1]))
    assert "Flat beveled capsule shaped tablets" in document.text


def test_a_gap_inside_a_kerned_line_is_no_word_gap() -> None:
    # Letters kerned by up to 0.06 em: a gap 0.12 em past the usual one is
    # within three times that stray, so it is read as the word's own.
    glyphs = [(char, -0.06 * SIZE if k % 2 else 0.0) for k, char in enumerate("Leberfunktion")]
    glyphs[5] = (glyphs[5][0], 0.12 * SIZE)
    document = extract_pdf(_glyphs_pdf(glyphs))
    assert "Leberfunktion" in document.text


def _spaced_words_pdf(words: list[str], gaps: dict[int, float]) -> bytes:
    """``words`` joined by space glyphs, with ``gaps[k]`` points (no glyph)
    after the k-th character of the joined text."""
    text = " ".join(words)
    return _glyphs_pdf([(char, gaps.get(k, 0.0)) for k, char in enumerate(text)])


@pytest.mark.parametrize("words", [
    ["bei", "Nennspannungen", "bis", "1000", "V", "ein", "Schutz"],
    # Long German words: under one space in eight characters, so the line is
    # read for word gaps too, which want half a space.
    ["Meldelampen", "oder", "Schraubsicherungen,", "bei", "Nennspannungen", "bis", "1000",
     "V", "ein", "teilweiser"],
])
def test_a_thin_space_between_digit_groups_is_a_space(words: list[str]) -> None:
    # A German regulation sets "1 000 V" with a kern of 0.135 em and no glyph
    # between the thousands, on a line spaced with space glyphs: poppler reads
    # "1 000", MuPDF "1000", and a quote ending at the "1" of the line as
    # printed read as "1" for "1000".
    after_one = " ".join(words).index(" 1000") + 1
    document = extract_pdf(_spaced_words_pdf(words, {after_one: 0.135 * SIZE}))
    assert "bis 1 000 V ein" in document.text

    report = verify_answer('It applies "bei Nennspannungen bis 1000 V" [S1].',
                           {"S1": document.text})
    assert report.citations[0].outcome in ("verified", "verified-fuzzy")


def test_a_gap_in_digits_that_are_no_thousands_stays_in_the_number() -> None:
    # The same gap after four digits, or before two, groups no thousands: a
    # font drawn wider than its boxes, not a separator.
    words = ["Lot", "1234567", "and", "item", "2025", "end"]
    gaps = {len("Lot 1234") - 1: 0.135 * SIZE, len("Lot 1234567 and item 20") - 1: 0.135 * SIZE}
    document = extract_pdf(_spaced_words_pdf(words, gaps))
    assert "Lot 1234567 and item 2025 end" in document.text


def test_gaps_that_leave_a_short_group_split_no_number() -> None:
    # "2185 16" read from gaps after the "2" and the "5": the last group has
    # two digits, so the gaps are the font's, not thousands.
    words = ["Code", "218516", "here"]
    gaps = {len("Code 2") - 1: 0.135 * SIZE, len("Code 2185") - 1: 0.135 * SIZE}
    document = extract_pdf(_spaced_words_pdf(words, gaps))
    assert "Code 218516 here" in document.text
