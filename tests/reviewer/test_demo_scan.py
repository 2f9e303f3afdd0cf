"""The demo's scanned letter: a page with no text layer, read by OCR when the
demo loads, and an answer quoting it whose citations verify; without
tesseract the demo leaves both out and says so."""

from io import StringIO
from typing import Any
from unittest import mock

import pymupdf
import pytest
from django.core.management import call_command

from reviewer import demo
from reviewer.models import Answer, CitationVerdict, Document
from tests.ocr_scans import tesseract_missing

pytestmark = pytest.mark.django_db

LETTER_KEY = "demo/northwind-notice-letter"


def test_the_scanned_letter_has_no_text_layer_and_is_the_same_bytes_on_every_build() -> None:
    data = demo.notice_letter_pdf()
    assert data == demo.notice_letter_pdf()
    with pymupdf.open(stream=data, filetype="pdf") as pdf:
        assert pdf.page_count == 1
        assert pdf[0].get_text().strip() == ""
        assert len(pdf[0].get_images()) == 1


@pytest.mark.skipif(bool(tesseract_missing("eng")), reason=tesseract_missing("eng") or "-")
def test_after_load_demo_the_scanned_letter_is_read_by_ocr_and_its_answer_verifies(
    django_capture_on_commit_callbacks: Any, logged_in: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", stdout=StringIO())
    letter = Document.objects.get(document_key=LETTER_KEY)
    assert letter.status == Document.Status.READY
    assert letter.ocr_language == "eng"
    assert [page["page"] for page in letter.ocr_pages] == [1]
    assert letter.ocr_confidence is not None and letter.ocr_confidence >= 80
    assert letter.ocr_summary.startswith("Text from OCR (eng), mean confidence ")

    answer = Answer.objects.get(external_id="demo-scanned-letter")
    citations = list(CitationVerdict.objects.filter(answer=answer).order_by("position"))
    assert len(citations) == 2
    assert {c.outcome for c in citations} == {"verified"}, [c.message for c in citations]
    assert {c.document_id for c in citations} == {letter.pk}
    assert all([p["page"] for p in c.pages] == [1] for c in citations)
    assert answer.verdict == Answer.Verdict.PASS
    # The review page says the quoted text came from OCR.
    page = logged_in.get(f"/answers/{answer.pk}/?citation={citations[0].pk}").content.decode()
    assert f"{letter.ocr_summary}: this text was read from a scan" in page


def test_without_tesseract_the_demo_leaves_out_the_scan_and_its_answer_and_says_so(
    django_capture_on_commit_callbacks: Any,
) -> None:
    out = StringIO()
    with (mock.patch("reviewer.management.commands.load_demo.ocr_languages", return_value=()),
          django_capture_on_commit_callbacks(execute=True)):
        call_command("load_demo", stdout=out)
    assert not Document.objects.filter(document_key=LETTER_KEY).exists()
    assert Document.objects.count() == len(demo.DOCUMENTS) - 1
    assert not Answer.objects.filter(external_id="demo-scanned-letter").exists()
    assert Answer.objects.count() == len(demo.ANSWERS) - 1
    assert "tesseract" in out.getvalue() and "skipped" in out.getvalue()
    assert f"demo loaded: {len(demo.DOCUMENTS) - 1} documents" in out.getvalue()


def test_no_scan_leaves_out_the_scan_and_its_answer_and_says_why(
    django_capture_on_commit_callbacks: Any,
) -> None:
    # The browser tests load the demo this way (tests/e2e/conftest.py): the
    # rest of the demo is all there, and nothing is read by OCR.
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=out)
    assert not Document.objects.filter(document_key=LETTER_KEY).exists()
    assert set(Document.objects.values_list("document_key", flat=True)) == (
        set(demo.DOCUMENTS) - {LETTER_KEY})
    assert not Document.objects.exclude(ocr_pages=[]).exists()
    assert set(Answer.objects.values_list("external_id", flat=True)) == (
        {spec["id"] for spec in demo.ANSWERS} - {"demo-scanned-letter"})
    assert "skipped" in out.getvalue() and "(--no-scan)" in out.getvalue()
    assert "tesseract" not in out.getvalue()
    assert f"demo loaded: {len(demo.DOCUMENTS) - 1} documents" in out.getvalue()
