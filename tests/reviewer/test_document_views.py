"""The documents page: upload with htmx and the self-updating status row."""

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewer.models import Document
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged_in(client: Any, make_user: Any) -> Any:
    """Uploading needs the add_document permission: a supervisor's."""
    client.force_login(make_user("uploader", "supervisor"))
    return client


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
    assert response["HX-Retarget"] == "#upload-message"


def test_titles_are_escaped(logged_in: Any, report_pdf: BuiltPdf) -> None:
    logged_in.post("/documents/upload", {
        "file": SimpleUploadedFile("x.pdf", report_pdf.data, "application/pdf"),
        "title": "<img src=x onerror=alert(1)>",
    })
    page = logged_in.get("/documents/").content.decode()
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page


def pdf_upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, "application/pdf")


def test_the_same_bytes_again_say_already_uploaded_and_add_no_row(
    logged_in: Any, report_pdf: BuiltPdf
) -> None:
    logged_in.post("/documents/upload", {"file": pdf_upload("a.pdf", report_pdf.data)})
    document = Document.objects.get()
    response = logged_in.post("/documents/upload",
                              {"file": pdf_upload("b.pdf", report_pdf.data), "title": "Again"},
                              headers={"HX-Request": "true"})
    html = response.content.decode()
    assert response.status_code == 200 and response["HX-Retarget"] == "#upload-message"
    assert "<tr" not in html  # no new row
    assert f"Already uploaded: these bytes are document {document.pk}" in html
    assert f'href="/documents/{document.pk}/"' in html
    assert Document.objects.count() == 1
    page = logged_in.post("/documents/upload", {"file": pdf_upload("c.pdf", report_pdf.data)})
    assert "Already uploaded" in page.content.decode()  # without htmx too


def test_the_form_makes_versions_only_by_key_or_supersedes(
    logged_in: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload", {"file": pdf_upload("Leave.pdf", text_pdf("five")),
                                             "document_key": "hr/leave"})
        logged_in.post("/documents/upload", {"file": pdf_upload("Leave.pdf", text_pdf("six"))})
        logged_in.post("/documents/upload", {"file": pdf_upload("Leave.pdf", text_pdf("ten")),
                                             "document_key": "hr/leave"})
    v1, unrelated, v2 = Document.objects.order_by("pk")
    assert (v2.supersedes_id, v2.version, unrelated.supersedes_id) == (v1.pk, 2, None)
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload", {"file": pdf_upload("x.pdf", text_pdf("seven")),
                                             "supersedes": str(unrelated.pk)})
    newest = Document.objects.order_by("pk").last()
    assert newest is not None and (newest.supersedes_id, newest.version) == (unrelated.pk, 2)
    refused = logged_in.post("/documents/upload", {
        "file": pdf_upload("y.pdf", text_pdf("eight")), "supersedes": str(v1.pk)},
        headers={"HX-Request": "true"})
    assert refused.status_code == 409
    assert "is not the latest version of" in refused.content.decode()
    missing = logged_in.post("/documents/upload", {
        "file": pdf_upload("z.pdf", text_pdf("nine")), "supersedes": "99999"})
    assert missing.status_code == 400 and "document 99999, which does not exist" in (
        missing.content.decode())


def test_the_list_shows_each_column_and_links_what_a_document_supersedes(
    logged_in: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload", {"file": pdf_upload("A.pdf", text_pdf("one")),
                                             "document_key": "k"})
        logged_in.post("/documents/upload", {"file": pdf_upload("A.pdf", text_pdf("two")),
                                             "document_key": "k"})
    old, new = Document.objects.order_by("pk")
    html = logged_in.get("/documents/").content.decode()
    for header in ("<th>#</th>", "<th>Title</th>", "<th>Pages</th>", "<th>Chunks</th>",
                   "<th>Status</th>", "<th>Version</th>", "<th>Supersedes</th>"):
        assert header in html
    row = html[html.index(f'id="document-{new.pk}"'):html.index(f'id="document-{old.pk}"')]
    assert f'<a href="/documents/{old.pk}/">#{old.pk}</a>' in row  # supersedes, linked
    assert "<td>2</td>" in row and "<td>1</td>" in row  # version 2; one page, one chunk
    assert f"superseded by <a href=\"/documents/{new.pk}/\">" in html


def test_the_list_searches_and_pages_without_a_silent_cap(
    logged_in: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from reviewer.views import documents as views

    monkeypatch.setattr(views, "DOCUMENTS_PER_PAGE", 2)
    for n in range(5):
        Document.objects.create(title=f"Report {n}", sha256=f"{n:064x}",
                                status=Document.Status.FAILED)
    first = logged_in.get("/documents/").content.decode()
    assert "documents 1–2 of 5" in first and "page 1 of 3" in first and "page=2" in first
    last = logged_in.get("/documents/?page=3").content.decode()
    assert "Report 0" in last and "Report 4" not in last
    found = logged_in.get("/documents/?q=report 3").content.decode()
    assert "Report 3" in found and "Report 2" not in found and "of 1" in found
    none = logged_in.get("/documents/?q=nothing-like-it").content.decode()
    assert "No document matches “nothing-like-it”" in none


def test_a_document_page_embeds_the_viewer_on_its_pdf_and_pages_its_chunks(
    logged_in: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from reviewer.views import documents as views

    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload", {"file": pdf_upload("r.pdf", report_pdf.data)})
    document = Document.objects.get()
    chunks = list(document.chunks.order_by("index"))
    monkeypatch.setattr(views, "CHUNKS_PER_PAGE", 2)
    html = logged_in.get(f"/documents/{document.pk}/").content.decode()
    assert f'data-url="/documents/{document.pk}/file"' in html
    assert '<script type="module" src="/static/js/document.mjs"></script>' in html
    assert f"chunks 1–2 of {len(chunks)}" in html and f'id="chunk-{chunks[0].pk}"' in html
    second = logged_in.get(f"/documents/{document.pk}/?page=2").content.decode()
    assert f'id="chunk-{chunks[2].pk}"' in second and f'id="chunk-{chunks[0].pk}"' not in second
    assert logged_in.get(f"/documents/{document.pk}/file").status_code == 200
    assert logged_in.get("/documents/424242/").status_code == 404


def test_a_document_page_shows_its_versions_and_a_form_for_the_next(
    logged_in: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        logged_in.post("/documents/upload", {"file": pdf_upload("A.pdf", text_pdf("one")),
                                             "document_key": "hr/leave"})
        logged_in.post("/documents/upload", {"file": pdf_upload("A.pdf", text_pdf("two")),
                                             "document_key": "hr/leave"})
    old, new = Document.objects.order_by("pk")
    html = logged_in.get(f"/documents/{old.pk}/").content.decode()
    assert f'Superseded by <a href="/documents/{new.pk}/">document {new.pk}</a>' in html
    assert "Versions of <code>hr/leave</code>" in html
    assert f'<a href="/documents/{new.pk}/">version 2: document {new.pk}</a>' in html
    assert f'name="supersedes" value="{old.pk}"' in html
