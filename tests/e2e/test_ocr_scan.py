"""A scan with no text layer, uploaded through the documents page and through
the API, becomes ready by OCR; the review page of an answer quoting it draws
the highlight on the scan, over the printed words (in a real Chromium against
the live server)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from reviewer.models import Answer, CitationVerdict, Document
from tests.ocr_scans import ENGLISH, Scan, make_scan, tesseract_missing
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True),
              pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")]

QUOTE = "the landlord must repair the heating within two weeks"

# Each highlight rectangle in points of its page: the canvas is the page as
# drawn, so its width over the page's width in points is the scale.
HIGHLIGHTS_IN_POINTS = """(width) => [...document.querySelectorAll('#pdf-viewer .cg-highlight')]
  .map(box => {
    const canvas = box.closest('.page').querySelector('canvas').getBoundingClientRect();
    const r = box.getBoundingClientRect();
    const scale = canvas.width / width;
    return [(r.left - canvas.left) / scale, (r.top - canvas.top) / scale,
            (r.right - canvas.left) / scale, (r.bottom - canvas.top) / scale];
  })"""


def _base(page: Any) -> str:
    """The live server's address: scheme and host of the page's URL."""
    return "/".join(page.url.split("/", 3)[:3])


def _wait_ready(document_id: int) -> Document:
    for _ in range(600):
        document = Document.objects.get(pk=document_id)
        if document.status in (Document.Status.READY, Document.Status.FAILED):
            return document
        time.sleep(0.1)
    raise AssertionError(f"document {document_id} still {document.status}")


def _assert_highlight_on_the_scan(page: Any, document: Document, scan: Scan, name: str) -> None:
    from reviewer.services.answers import answer_submit

    submitted = answer_submit(client=None, data={
        "id": f"ocr-{name}", "surface": "legal-review",
        "question": "Who repairs the heating?",
        "answer": f'The lease says "{QUOTE}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk}]})
    answer: Answer = submitted.answer
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "verified" and [p["page"] for p in citation.pages] == [1]
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.click(f"#sentence-{citation.sentence.index} a.sentence-open")
    page.wait_for_function("""() => [...document.querySelectorAll('#pdf-viewer .cg-highlight')]
      .some(box => box.closest('.page').querySelector('canvas'))""")
    assert "Text from OCR (eng), mean confidence" in page.locator("#sentence-panel").inner_text()
    rects = page.evaluate(HIGHLIGHTS_IN_POINTS, 612)
    assert rects
    words = scan.words()
    line = next(w[1] for w in words if w[4] == "landlord")  # the quoted words' line
    printed = [w for w in words if w[1] == line and w[4].lower() in QUOTE.split()]
    assert len(printed) == len(QUOTE.split())
    for x0, y0, x1, y1, word in printed:  # each printed word is under the highlight
        x, y = (x0 + x1) / 2, (y0 + y1) / 2
        assert any(r[0] - 2 <= x <= r[2] + 2 and r[1] - 2 <= y <= r[3] + 2 for r in rects), (
            word, rects)
    top = min(w[1] for w in printed)
    bottom = max(w[3] for w in printed)
    for r in rects:  # ... and the highlight stays on their line
        assert r[1] >= top - 5 and r[3] <= bottom + 5, (r, top, bottom)


def test_a_scan_uploaded_through_the_page_is_ready_and_highlighted_on_the_scan(
        page: Any) -> None:
    scan = make_scan(ENGLISH)
    page.goto(f"{_base(page)}/documents/")
    page.set_input_files("form.upload input[name=file]", files=[
        {"name": "lease-scan.pdf", "mimeType": "application/pdf", "buffer": scan.data}])
    page.fill("form.upload input[name=ocr_language]", "eng")
    page.click("form.upload button[type=submit]")
    row = page.locator("#document-rows tr", has_text="lease-scan").first
    row.locator(".doc-status", has_text="Ready").wait_for(timeout=90_000)
    document = Document.objects.get(title="lease-scan")
    assert document.ocr_language == "eng" and document.ocr_pages
    assert document.ocr_summary in row.inner_text()
    _assert_highlight_on_the_scan(page, document, scan, "page")


def test_a_scan_uploaded_through_the_api_is_ready_and_highlighted_on_the_scan(
        page: Any) -> None:
    from reviewer.services.clients import api_client_create

    _, token = api_client_create(name="scanner")
    scan = make_scan(ENGLISH, fontsize=12)
    response = page.request.post(
        f"{_base(page)}/api/v1/documents",
        headers={"Authorization": f"Bearer {token}"},
        multipart={"file": {"name": "api-scan.pdf", "mimeType": "application/pdf",
                            "buffer": scan.data},
                   "ocr_language": "eng"})
    assert response.status in (201, 202), response.text()
    document = _wait_ready(response.json()["id"])
    assert document.status == Document.Status.READY, document.error
    body = page.request.get(f"{_base(page)}/api/v1/documents/{document.pk}",
                            headers={"Authorization": f"Bearer {token}"}).json()
    assert body["ocr"]["language"] == "eng" and body["ocr"]["pages"][0]["page"] == 1
    _assert_highlight_on_the_scan(page, document, scan, "api")
