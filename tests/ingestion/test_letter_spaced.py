"""Letter-spaced text, as OCR text layers and spaced-out type give it: every
letter is placed on its own, so extraction puts a space between letters. A
quote of the words still verifies, and its range still lights up the glyphs."""

from __future__ import annotations

import pymupdf
import pytest

from reviewer.ingestion import extract_pdf, locate
from verification import verify_answer

LETTER = 6.0  # Courier's advance at 10 pt
TRACKING = 2.0  # the extra space after every letter
WORD_GAP = 4.0  # and after every word
LEFT, BASELINE = 72.0, 100.0


def _letter_spaced_pdf(words: list[str]) -> bytes:
    with pymupdf.open() as doc:
        page = doc.new_page()
        x = LEFT
        for word in words:
            for char in word:
                page.insert_text((x, BASELINE), char, fontname="cour", fontsize=10)
                x += LETTER + TRACKING
            x += WORD_GAP
        page.insert_text((LEFT, BASELINE + 30), "The agreement was filed in January.",
                         fontname="helv", fontsize=10)
        return bytes(doc.tobytes())


def test_quote_of_letter_spaced_words_verifies_and_locates() -> None:
    words = ["China", "Ocean", "Shipping", "(Group)", "Company"]
    document = extract_pdf(_letter_spaced_pdf(words))
    assert "C h i n a O c e a n" in document.text  # what extraction gives

    report = verify_answer('The parties include "Ocean Shipping (Group)" [S1].',
                           {"S1": document.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert "letter-spacing" in citation.normalizations
    assert citation.chunk_start is not None and citation.chunk_end is not None

    (page,) = locate(document, citation.chunk_start, citation.chunk_end)
    (rect,) = page["rects"]  # one line
    word_width = [len(w) * (LETTER + TRACKING) + WORD_GAP for w in words]
    first_x = LEFT + word_width[0]  # the "O" of "Ocean"
    last_x = LEFT + sum(word_width[:4]) - WORD_GAP - TRACKING  # after the ")" of "(Group)"
    assert rect[0] == pytest.approx(first_x, abs=0.5)
    assert rect[2] == pytest.approx(last_x, abs=0.5)
