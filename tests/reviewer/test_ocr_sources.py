"""A cited document whose pages OCR read: its sources say which of their text
came from OCR, so a quote of the printed words verifies across a misread
letter there (and says so), and not on a page with a text layer; verifying
the stored answer again reads the same ranges."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.ingestion import PAGE_SEPARATOR
from reviewer.models import CitationVerdict, Document, Page
from reviewer.selectors.sources import answers_sources
from reviewer.services.answers import answer_submit
from reviewer.verifying import verify_payload
from verification import VerificationConfig, verify_answer
from verification.payload import parse_answer_payload

pytestmark = pytest.mark.django_db

# Page 1 as OCR read it from a scan, page 2 the same words from a text layer.
LINE = "Maloney, J.P., Halbower, A.C., Fouty, B.F. et al. New England Journal of Meaicine, 2000."
QUOTE = "New England Journal of Medicine, 2000."
TEXT = LINE + PAGE_SEPARATOR + LINE


@pytest.fixture
def scanned() -> Document:
    document = Document.objects.create(
        title="references", sha256="c" * 64, text=TEXT, status=Document.Status.READY,
        page_count=2, ocr_language="eng", ocr_confidence=91.0,
        ocr_pages=[{"page": 1, "words": 14, "confidence": 91.0}])
    second = len(LINE) + len(PAGE_SEPARATOR)
    Page.objects.create(document=document, number=1, width=612, height=792, text_start=0,
                        text_end=len(LINE))
    Page.objects.create(document=document, number=2, width=612, height=792,
                        text_start=second, text_end=len(TEXT))
    return document


def citation_on_page(document: Document, page: int) -> tuple[str, str]:
    start = 0 if page == 1 else len(LINE) + len(PAGE_SEPARATOR)
    payload = parse_answer_payload({"answer": f'"{QUOTE}" [S1].', "sources": [
        {"marker": "S1", "document": document.pk, "start": start, "end": start + len(LINE)}]})
    (citation,) = verify_payload(payload, config=VerificationConfig()).citations
    return citation.outcome, citation.message


def test_a_quote_verifies_across_a_misread_on_the_page_ocr_read_and_says_so(
        scanned: Document) -> None:
    outcome, message = citation_on_page(scanned, 1)
    assert outcome == "verified-fuzzy"
    assert "OCR" in message and "“Meaicine” read for “Medicine”" in message


def test_the_same_words_from_a_text_layer_are_what_the_document_prints(
        scanned: Document) -> None:
    outcome, message = citation_on_page(scanned, 2)
    assert outcome == "quote-altered"
    assert "OCR" not in message


def test_a_stored_answer_is_verified_again_with_the_same_ocr_ranges(scanned: Document) -> None:
    answer = answer_submit(client=None, data={
        "answer": f'The reference is "{QUOTE}" [S1].',
        "sources": [{"marker": "S1", "document": scanned.pk, "start": 0,
                     "end": len(LINE)}]}).answer
    stored = CitationVerdict.objects.get(answer=answer)
    assert stored.outcome == "verified-fuzzy"
    (source,) = answers_sources([answer.pk])[answer.pk]
    assert source.ocr == ((0, len(LINE)),)
    (again,) = verify_answer(answer.text, [source]).citations
    assert again.outcome == "verified-fuzzy"


def test_the_review_panel_tells_the_misread_from_a_change_of_the_quote(
        scanned: Document, logged_in: Any) -> None:
    # A misread set aside and a word the quote adds: only the misread is the OCR's.
    answer = answer_submit(client=None, data={
        "answer": 'The reference is "the New England Journal of Medicine, 2000." [S1].',
        "sources": [{"marker": "S1", "document": scanned.pk, "start": 0,
                     "end": len(LINE)}]}).answer
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "verified-fuzzy", citation.message
    html = logged_in.get(f"/answers/{answer.pk}/?citation={citation.pk}",
                         headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in html
    diff = html.split('class="diff"')[1].split("</p>")[0]
    assert ('<del class="ocr-misread">Meaicine</del> <ins class="ocr-misread">Medicine</ins> '
            '<span class="ocr-misread-tag">(OCR misread)</span>') in diff, diff
    assert "<ins>the</ins>" in diff, diff
    # The similarity is the quote's against the misread letters taken as printed.
    similarity = html.split("<dt>Similarity</dt>")[1].split("</dd>")[0]
    assert "with the letters OCR misread taken as printed" in similarity, similarity
