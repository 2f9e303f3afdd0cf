"""The real PDFs in ../shared/corpus/pdfs (skipped when that folder is absent)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pymupdf
import pytest

from reviewer.ingestion import (
    ExtractedDocument,
    ExtractionError,
    bounding_box,
    chunk_text,
    extract_pdf,
    find_furniture,
    locate,
)
from reviewer.ingestion.ocr import installed_languages
from verification import verify_answer

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "pdfs"

pytestmark = [
    pytest.mark.corpus,
    pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}"),
]


@cache
def extracted(name: str) -> ExtractedDocument:
    return extract_pdf((CORPUS / name).read_bytes())


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("error_corrupt_page_tree_cycle.pdf", "corrupt"),
        ("error_encrypted_libreoffice_writer.pdf", "encrypted"),
    ],
)
def test_broken_files_give_their_kind(name: str, kind: str) -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf((CORPUS / name).read_bytes())
    assert caught.value.kind == kind
    assert "code=" not in caught.value.message  # MuPDF's internal code is not for people


@pytest.mark.skipif(not installed_languages(), reason="tesseract is not installed (bin/setup)")
def test_the_scanned_lorem_ipsum_is_read_by_ocr_and_its_quotes_verify() -> None:
    # It failed no-text before OCR: its one page is a picture with no text layer.
    doc = extracted("error_scanned_flattened_loremipsum.pdf")
    assert doc.ocr is not None and [p.number for p in doc.ocr.pages] == [1]
    assert doc.ocr.confidence > 80
    quote = "Nunc sollicitudin molestie consequat"
    report = verify_answer(f'The page reads "{quote}" [S1].', {"S1": doc.text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    (on_page,) = locate(doc, citation.chunk_start, citation.chunk_end)
    assert on_page["page"] == 1 and on_page["rects"]


@pytest.mark.parametrize(
    "name",
    [
        "academic_2col_naacl2006_shinyama.pdf",
        "academic_2col_dpr_karpukhin_emnlp2020.pdf",
        "academic_alce_enabling_llms_to_cite_2023.pdf",
    ],
)
def test_two_column_first_page_does_not_interleave(name: str) -> None:
    doc = extracted(name)
    page = doc.pages[0]
    middle = page.width / 2
    left_lines, right_lines = [], []
    position = page.text_start
    for line in doc.text[page.text_start : page.text_end].split("\n"):
        start, end = position, position + len(line)
        position = end + 1
        box = bounding_box(doc, start, end) if line.strip() else None
        if box is None or box[1] < 0.25 * page.height:  # title and authors span both
            continue
        if box[2] < middle + 5:  # left column lines may touch the middle
            left_lines.append(start)
        elif box[0] > middle + 3:
            right_lines.append(start)
    assert len(left_lines) > 20 and len(right_lines) > 20
    assert max(left_lines) < min(right_lines)


def test_known_passage_reads_in_order() -> None:
    text = extracted("academic_2col_naacl2006_shinyama.pdf").page_text(1)
    assert (
        text.index("We are trying to extend the boundary")
        < text.index("Background")
        < text.index("Every day, a large number")
        < text.index("An IE task can be de")
    )


def test_running_header_is_furniture() -> None:
    doc = extracted("clinical_ki67_breast_cancer_pathology_2023.pdf")
    furniture = [doc.text[s:e] for s, e in find_furniture(doc)]
    assert sum(line.startswith("Curr. Oncol. 2023, 30") for line in furniture) >= 10
    assert all(len(line) < 80 for line in furniture)


def test_rotated_table_page_geometry() -> None:
    doc = extracted("table_senate_expenditures.pdf")
    page = doc.pages[0]
    assert (page.rotation, page.width, page.height) == (90, 792, 612)
    with pymupdf.open(CORPUS / "table_senate_expenditures.pdf") as pdf:
        pdf_page = pdf[0]
        needle = "STAFF TRANSPORTATION"
        hits = [list(r * pdf_page.rotation_matrix) for r in pdf_page.search_for(needle)]
    start = doc.text.index(needle)
    [entry] = locate(doc, start, start + len(needle))
    assert any(
        all(abs(a - b) < 0.05 for a, b in zip(entry["rects"][0], hit, strict=True))
        for hit in hits
    )
    # Upright as displayed: the line is wide and flat.
    x0, y0, x1, y1 = entry["rects"][0]
    assert x1 - x0 > 5 * (y1 - y0)


@pytest.mark.parametrize(
    "name",
    ["academic_2col_dpr_karpukhin_emnlp2020.pdf", "clinical_ki67_breast_cancer_pathology_2023.pdf"],
)
def test_chunks_and_geometry_round_trip(name: str) -> None:
    doc = extracted(name)
    furniture = find_furniture(doc)
    chunks = chunk_text(doc.text, exclude=furniture)
    assert chunks
    for start, end in chunks:
        assert locate(doc, start, end, skip=furniture)
    data = doc.to_bytes()
    assert len(data) / len(doc.text) <= 16  # inserted characters store no box
    again = ExtractedDocument.from_bytes(data, text=doc.text)
    assert again.pages == doc.pages


@pytest.mark.parametrize("quote", [
    "China Ocean Shipping (Group) Company",
    "9 North Buona Vista Drive",
    "United Arab Shipping Co. (S.A.G.)",
])
def test_quotes_from_the_letter_spaced_fax_verify(quote: str) -> None:
    text = extracted("legal_fmc_containership_agreement_rotated.pdf").text
    report = verify_answer(f'The agreement names "{quote}" [S1].', {"S1": text})
    (citation,) = report.citations
    assert citation.outcome == "verified"
    assert "letter-spacing" in citation.normalizations


@pytest.mark.parametrize("row", [
    # A grid whose cells hold paragraphs, its "Med No" printed once beside
    # each group of rows (outside the lines the table is found from), the
    # drug and its category read by MuPDF as one line across their wall.
    "6 1 Halothane with Vaporiser Anaesthetics Halothane Containing 0.01 % w/w thymol in "
    "amber colored 250 mL glass bottles, stabilized with thymol 0.01% (w/w). 250 ml Y Y",
    "7 1 Isoflurane Anaesthetics Isoflurane amber-colored bottles.100 mL 100 ml bottle Y Y",
    "11 1 Oxygen Refilling GAS Oxygen Refilling 660 Ltr, 1720 Ltr. Y Y Y",
])
def test_the_medicines_lists_rows_read_across_its_grid(row: str) -> None:
    doc = extracted("table_medicines_purchase_committee_list.pdf")
    report = verify_answer(f'The list reads "{row}" [S1].', {"S1": doc.text})
    (citation,) = report.citations
    assert citation.outcome == "verified", citation.message
