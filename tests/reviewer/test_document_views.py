"""The documents page: upload with htmx and the self-updating status row."""

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewer.models import Document
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


def test_pages_need_a_login(client: Any) -> None:
    response = client.get("/documents/")
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_htmx_upload_returns_only_the_new_row(
    logged_in: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = logged_in.post(
            "/documents/upload",
            {"file": SimpleUploadedFile("Handbook.pdf", report_pdf.data, "application/pdf")},
            headers={"HX-Request": "true"},
        )
    assert response.status_code == 200
    html = response.content.decode()
    assert html.lstrip().startswith("<tr") and "<html" not in html
    assert "Handbook" in html
    document = Document.objects.get()
    row = logged_in.get(f"/documents/{document.pk}/row", headers={"HX-Request": "true"})
    assert "Ready" in row.content.decode()
    assert 'hx-trigger="every 1s"' not in row.content.decode()  # done: no more polling


def test_a_pending_row_polls_for_its_status(logged_in: Any, report_pdf: BuiltPdf) -> None:
    response = logged_in.post(
        "/documents/upload",
        {"file": SimpleUploadedFile("Queued.pdf", report_pdf.data, "application/pdf")},
        headers={"HX-Request": "true"},
    )  # on_commit hooks do not run inside the test transaction: still queued
    html = response.content.decode()
    assert 'hx-trigger="every 1s"' in html and "Queued" in html


def test_failed_document_shows_its_message(
    logged_in: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload",
                       {"file": SimpleUploadedFile("x.pdf", b"not a pdf", "application/pdf")})
    page = logged_in.get("/documents/").content.decode()
    assert "Failed" in page and "not a PDF" in page


def test_upload_without_a_file_says_so(logged_in: Any) -> None:
    response = logged_in.post("/documents/upload", {}, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "Choose a PDF file" in response.content.decode()
    assert response["HX-Retarget"] == "#upload-error"


def test_titles_are_escaped(logged_in: Any, report_pdf: BuiltPdf) -> None:
    logged_in.post("/documents/upload", {
        "file": SimpleUploadedFile("x.pdf", report_pdf.data, "application/pdf"),
        "title": "<img src=x onerror=alert(1)>",
    })
    page = logged_in.get("/documents/").content.decode()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
