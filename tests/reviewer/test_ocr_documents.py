"""Scanned uploads: the OCR language through the form, the API and
``manage.py ingest`` (checked against the installed languages), the OCR facts
in the API and on the documents, document and review pages, progress while it
runs, and failures that say why."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from reviewer.models import Document
from reviewer.services import documents as documents_service
from reviewer.services.documents import ocr_languages
from tests.ocr_scans import ENGLISH, FRENCH, make_scan, tesseract_missing

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")]


@pytest.fixture(scope="module")
def english_scan() -> bytes:
    return make_scan(ENGLISH).data


@pytest.fixture
def logged_in(client: Any, make_user: Any) -> Any:
    """A supervisor: may upload documents and review answers."""
    client.force_login(make_user("uploader", "supervisor"))
    return client


def _citeguard(**changes: Any) -> dict[str, Any]:
    from django.conf import settings

    return {**settings.CITEGUARD, **changes}


def _upload(api: Any, data: bytes, **fields: Any) -> Any:
    return api.post("/api/v1/documents",
                    {"file": SimpleUploadedFile("scan.pdf", data, "application/pdf"), **fields})


def test_a_scan_uploaded_through_the_api_is_ready_with_its_ocr_facts(
        api: Any, english_scan: bytes, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api, english_scan, ocr_language="eng")
    assert response.status_code == 202
    body = api.get(response["Location"]).json()
    assert body["status"] == "ready" and body["error"] is None
    assert body["ocr_language"] == "eng" and body["progress"] is None
    ocr = body["ocr"]
    assert ocr["language"] == "eng"
    assert [page["page"] for page in ocr["pages"]] == [1]
    assert ocr["pages"][0]["words"] == sum(len(line.split()) for line in ENGLISH)
    assert 50 < ocr["mean_confidence"] <= 100
    assert ocr["summary"] == (
        f"Text from OCR (eng), mean confidence {ocr['mean_confidence']:.0f}% — page 1")
    document = Document.objects.get(pk=body["id"])
    assert ENGLISH[2] in document.text


def test_a_document_with_a_text_layer_says_nothing_of_ocr(
        api: Any, report_pdf: Any, django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api, report_pdf.data)
    body = api.get(response["Location"]).json()
    assert body["status"] == "ready" and body["ocr"] is None
    assert body["ocr_language"] == "eng"  # the default, kept for its scanned pages


@pytest.mark.parametrize("raw", [False, True])
def test_an_ocr_language_not_installed_is_a_400_naming_the_choices(
        api: Any, english_scan: bytes, raw: bool) -> None:
    if raw:
        response = api.post("/api/v1/documents?ocr_language=klingon", english_scan,
                            content_type="application/pdf")
    else:
        response = _upload(api, english_scan, ocr_language="klingon")
    assert response.status_code == 400
    body = response.json()
    assert body["error"]["code"] == "invalid-ocr-language"
    assert body["error"]["message"] == (
        f"OCR language 'klingon' is not installed here; choose from "
        f"{', '.join(ocr_languages())} (several joined by +, e.g. eng+fra).")
    assert not Document.objects.exists()


def test_the_openapi_schema_describes_the_ocr_fields(api: Any) -> None:
    schema = api.get("/api/v1/openapi.json").json()
    document = schema["components"]["schemas"]["Document"]["properties"]
    assert {"ocr", "ocr_language", "progress"} <= set(document)
    assert set(document["ocr"]["properties"]) == {"language", "mean_confidence", "pages",
                                                  "summary"}
    upload = schema["paths"]["/documents"]["post"]
    fields = upload["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]
    assert "ocr_language" in fields
    assert "ocr_language" in [p["name"] for p in upload["parameters"]]
    assert "invalid-ocr-language" in upload["responses"]["400"]["description"]


def test_the_upload_form_takes_the_language_and_the_pages_say_ocr(
        logged_in: Any, django_capture_on_commit_callbacks: Any) -> None:
    if tesseract_missing("fra"):
        pytest.skip(tesseract_missing("fra"))
    page = logged_in.get("/documents/").content.decode()
    assert 'name="ocr_language"' in page
    assert '<option value="fra">' in page  # the installed languages offered
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post("/documents/upload", {
            "file": SimpleUploadedFile("bail.pdf", make_scan(FRENCH).data, "application/pdf"),
            "ocr_language": "fra"}, headers={"HX-Request": "true"})
    assert response.status_code == 200
    document = Document.objects.get()
    assert document.status == Document.Status.READY
    assert document.ocr_language == "fra" and "pénalité" in document.text
    summary = document.ocr_summary
    assert summary.startswith("Text from OCR (fra), mean confidence ")
    assert summary in logged_in.get("/documents/").content.decode()
    assert summary in logged_in.get(f"/documents/{document.pk}/").content.decode()


def test_the_upload_form_refuses_a_language_not_installed(
        logged_in: Any, english_scan: bytes) -> None:
    response = logged_in.post("/documents/upload", {
        "file": SimpleUploadedFile("scan.pdf", english_scan, "application/pdf"),
        "ocr_language": "eng+klingon"}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert response["HX-Retarget"] == "#upload-message"
    html = response.content.decode()
    assert "OCR language &#x27;klingon&#x27; is not installed here; choose from" in html
    assert not Document.objects.exists()


def test_the_review_page_says_the_cited_text_came_from_ocr(
        api: Any, logged_in: Any, english_scan: bytes,
        django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document_id = _upload(api, english_scan).json()["id"]
    document = Document.objects.get(pk=document_id)
    body = {"id": "scan-answer",
            "answer": 'The lease says "the landlord must repair the heating" [S1].',
            "sources": [{"marker": "S1", "document": document_id}]}
    with django_capture_on_commit_callbacks(execute=True):
        posted = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert posted.status_code == 201
    (citation,) = [c for s in posted.json()["sentences"] for c in s["citations"]]
    assert citation["outcome"] == "verified" and citation["pages"][0]["page"] == 1
    from reviewer.models import Answer, CitationVerdict

    answer = Answer.objects.get(external_id="scan-answer")
    verdict = CitationVerdict.objects.get(answer=answer)
    html = logged_in.get(f"/answers/{answer.pk}/?citation={verdict.pk}").content.decode()
    assert (f"{document.ocr_summary}: this text was read from a scan, not from the PDF's "
            "text layer.") in html


def test_progress_names_the_ocr_page_while_it_runs(
        logged_in: Any, english_scan: bytes, django_capture_on_commit_callbacks: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[str] = []
    original = documents_service._progress

    def spy(document: Document, page: int, pages: int, ocr: bool) -> None:
        original(document, page, pages, ocr)
        seen.append(Document.objects.get(pk=document.pk).progress)

    monkeypatch.setattr(documents_service, "_progress", spy)
    with django_capture_on_commit_callbacks(execute=True):
        documents_service.document_upload(data=english_scan, filename="scan.pdf")
    assert "OCR page 1 of 1" in seen
    document = Document.objects.get()
    assert document.status == Document.Status.READY and document.progress == ""
    # The row of a document being ingested shows the page (it polls every second).
    Document.objects.filter(pk=document.pk).update(status=Document.Status.PROCESSING,
                                                   progress="OCR page 3 of 12")
    row = logged_in.get(f"/documents/{document.pk}/row").content.decode()
    assert "OCR page 3 of 12" in row and 'hx-trigger="every 1s"' in row


def _program(folder: Path, body: str) -> str:
    path = folder / "fake-tesseract"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return str(path)


def test_ocr_past_the_time_limit_fails_the_document_naming_the_limit(
        english_scan: bytes, tmp_path: Path, django_capture_on_commit_callbacks: Any) -> None:
    slow = _program(tmp_path, "exec sleep 60")
    limits = _citeguard(MAX_SECONDS_PER_DOCUMENT=5.0, MAX_OCR_SECONDS_PER_PAGE=1.0,
                        OCR_COMMAND=slow)
    with (override_settings(CITEGUARD=limits),
          django_capture_on_commit_callbacks(execute=True)):
        documents_service.document_upload(data=english_scan, filename="scan.pdf")
    document = Document.objects.get()
    assert document.status == Document.Status.FAILED and document.error_kind == "timeout"
    assert document.error == (
        "OCR of page 1 of 1 stopped at the 6-second limit (5 s for the document plus 1 s for "
        "each of the 1 page OCR'd).")
    assert document.progress == ""


def test_a_missing_ocr_program_fails_the_document_with_a_sentence(
        api: Any, english_scan: bytes, django_capture_on_commit_callbacks: Any) -> None:
    with (override_settings(CITEGUARD=_citeguard(OCR_COMMAND="/nonexistent/tesseract")),
          django_capture_on_commit_callbacks(execute=True)):
        response = _upload(api, english_scan)
    body = api.get(response["Location"]).json()
    assert body["status"] == "failed" and body["error_kind"] == "ocr-failed"
    assert body["error"] == (
        "Page 1 of 1 has no text layer and needs OCR, but the OCR program "
        "(/nonexistent/tesseract) is not installed on this server; bin/setup installs it.")
    assert body["ocr"] is None


def test_manage_py_ingest_takes_an_ocr_language(tmp_path: Path) -> None:
    if tesseract_missing("fra"):
        pytest.skip(tesseract_missing("fra"))
    path = tmp_path / "bail.pdf"
    path.write_bytes(make_scan(FRENCH).data)
    out = StringIO()
    call_command("ingest", str(path), "--ocr-language", "fra", stdout=out)
    document = Document.objects.get()
    assert document.ocr_language == "fra" and "pénalité" in document.text
    assert f"; {document.ocr_summary}" in out.getvalue()
    with pytest.raises(CommandError) as refused:
        call_command("ingest", str(path), "--ocr-language", "klingon", stdout=StringIO())
    assert refused.value.returncode == 2
    assert "--ocr-language: OCR language 'klingon' is not installed here" in str(refused.value)
