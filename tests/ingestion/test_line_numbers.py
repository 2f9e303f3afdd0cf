"""Line numbers printed in the left margin beside every line (a draft
guidance, a bill, pleading paper) read as a column of their own, not
between the lines of the text they number (issue 23, third outside batch:
FDA's draft guidances)."""

from __future__ import annotations

import pymupdf

from reviewer.ingestion import extract_pdf
from verification import verify_answer

TEXT = [
    "This draft guidance, when finalized, will represent the current thinking of the",
    "Food and Drug Administration on this topic. It does not establish any rights for",
    "any person and is not binding on FDA or the public. You can use an alternative",
    "approach if it satisfies the requirements of the applicable statutes and",
    "regulations. To discuss an alternative approach, contact the FDA staff",
    "responsible for this guidance as listed on the title page.",
    "",
    "FDA is issuing this guidance to comply with section 3612(b)(2) of the Food and",
    "Drug Omnibus Reform Act of 2022, enacted as part of the Consolidated",
    "Appropriations Act, 2023. It describes the processes and practices applicable",
    "to inspections of sites and facilities described in section 704(a)(5)(C)(i).",
]


def _numbered(first: int = 6, gap: float = 15.0, size: float = 11.0) -> bytes:
    """A page whose every line (blank ones too) has its number in the left
    margin, ``gap`` points before the text, each number drawn just before
    its line as a word processor does (so MuPDF puts them in one block)."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    left = 72.0
    for row, text in enumerate(TEXT):
        y = 120.0 + row * 13.8
        number = str(first + row)
        writer.append((left - gap - font.text_length(number, fontsize=size), y), number,
                      font=font, fontsize=size)
        if text:
            writer.append((left, y), text, font=font, fontsize=size)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_margin_line_numbers_do_not_cut_the_text_they_number() -> None:
    text = extract_pdf(_numbered()).text
    assert "rights for\nany person and is not binding on FDA" in text
    assert "Consolidated\nAppropriations Act, 2023." in text
    for quote in ("It does not establish any rights for any person and is not binding on FDA",
                  "enacted as part of the Consolidated Appropriations Act, 2023. It describes"):
        (citation,) = verify_answer(f'It says "{quote}" [S1].', {"S1": text}).citations
        assert citation.outcome == "verified", (quote, citation.outcome)
    # The numbers are still read, in order, as a column of their own.
    numbers = [line for line in text.split("\n") if line.isdigit()]
    assert numbers == [str(n) for n in range(6, 6 + len(TEXT))]


def _numbered_rows() -> bytes:
    """A paragraph, then rows numbered 1 to 6 whose numbers stand where the
    paragraph starts: a table's row numbers, not margin line numbers."""
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    font = pymupdf.Font("tiro")
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 100), "The doses below are those of the trial, for adults only.",
                  font=font, fontsize=11)
    drugs = ["Apixaban 2.5 mg twice daily", "Rivaroxaban 10 mg once daily",
             "Dabigatran 110 mg twice daily", "Edoxaban 30 mg once daily",
             "Warfarin 5 mg once daily", "Heparin 5000 units twice daily"]
    for row, drug in enumerate(drugs):
        y = 130.0 + row * 14.0
        writer.append((72, y), str(row + 1), font=font, fontsize=11)
        writer.append((86, y), drug, font=font, fontsize=11)
    writer.write_text(page)
    return bytes(document.tobytes())


def test_a_tables_row_numbers_under_the_text_stay_with_their_rows() -> None:
    text = extract_pdf(_numbered_rows()).text
    assert "1 Apixaban 2.5 mg twice daily" in text
    assert "6 Heparin 5000 units twice daily" in text
