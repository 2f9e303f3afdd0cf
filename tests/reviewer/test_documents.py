"""Uploading and ingesting documents through the service layer and the task."""

from collections.abc import Callable
from typing import Any

import pymupdf
import pytest
from django.test import override_settings

from reviewer.models import Chunk, Document, Page
from reviewer.services.documents import document_ingest, document_upload
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


def upload(data: bytes, name: str = "doc.pdf", **kwargs: Any) -> Document:
    return document_upload(data=data, filename=name, **kwargs).document


@pytest.fixture
def ingested(report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any) -> Document:
    with django_capture_on_commit_callbacks(execute=True):
        document = upload(report_pdf.data, "report.pdf")
    document.refresh_from_db()
    return document


def test_upload_runs_the_ingestion_task_and_stores_pages_and_chunks(
    ingested: Document, report_pdf: BuiltPdf
) -> None:
    assert ingested.status == Document.Status.READY, ingested.error
    assert ingested.title == "report"
    assert ingested.page_count == 4
    assert list(ingested.pages.values_list("number", flat=True)) == [1, 2, 3, 4]
    page = ingested.pages.get(number=1)
    assert (page.width, page.height, page.rotation) == (595, 842, 0)
    chunks = list(ingested.chunks.all())
    assert len(chunks) >= 2
    for chunk in chunks:
        assert chunk.text == ingested.text[chunk.start : chunk.end]
        assert 1 <= chunk.page_first <= chunk.page_last <= 4
    # Every body line of every page is in some chunk.
    body = [line for page_lines, furniture in zip(report_pdf.pages, report_pdf.furniture,
                                                  strict=True)
            for line in page_lines if line not in furniture]
    joined = " ".join(" ".join(c.text.split()) for c in chunks)
    assert all(" ".join(line.split()) in joined for line in body)


def test_running_headers_footers_and_page_numbers_are_furniture_not_chunk_edges(
    ingested: Document, report_pdf: BuiltPdf
) -> None:
    furniture_text = {ingested.text[s:e].strip() for s, e in ingested.furniture}
    assert set(report_pdf.furniture[0]) <= furniture_text
    for chunk in ingested.chunks.all():
        for start, end in ingested.furniture:
            assert not start < chunk.start < end and not start < chunk.end < end


def test_same_file_twice_is_one_document(ingested: Document, report_pdf: BuiltPdf) -> None:
    again = document_upload(data=report_pdf.data, filename="copy.pdf")
    assert again.created is False
    assert again.document.pk == ingested.pk
    assert Document.objects.count() == 1


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _encrypted(data: bytes) -> bytes:
    doc = pymupdf.open(stream=data)
    out = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    return bytes(out)


def _scanned(_: bytes) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), fill=(0.2, 0.2, 0.2))
    return bytes(doc.tobytes())


@pytest.mark.parametrize(
    ("make", "kind", "message"),
    [
        (lambda d: b"<html>not a pdf</html>", "not-pdf", "not a PDF"),
        (_truncated, "corrupt", ""),
        (_encrypted, "encrypted", "encrypted"),
        (_scanned, "no-text", "scanned"),
    ],
)
def test_bad_pdfs_end_failed_with_a_clear_message_and_nothing_half_written(
    make: Callable[[bytes], bytes], kind: str, message: str, report_pdf: BuiltPdf,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document = upload(make(report_pdf.data))
    document.refresh_from_db()
    assert document.status == Document.Status.FAILED
    assert document.error_kind == kind
    assert message.lower() in document.error.lower()
    assert document.error  # a sentence for a person, never empty
    assert not Page.objects.exists() and not Chunk.objects.exists()
    assert document.text == "" and not document.geometry


def test_too_large_is_refused_without_keeping_the_bytes(report_pdf: BuiltPdf) -> None:
    with override_settings(CITEGUARD={**_citeguard(), "MAX_UPLOAD_BYTES": 1000}):
        document = upload(report_pdf.data)
    assert document.status == Document.Status.FAILED
    assert document.error_kind == "too-large"
    assert "the limit is 0.0 MB" in document.error
    assert not document.file


def test_too_many_pages_fails(
    report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with (
        override_settings(CITEGUARD={**_citeguard(), "MAX_PAGES": 2}),
        django_capture_on_commit_callbacks(execute=True),
    ):
        document = upload(report_pdf.data)
    document.refresh_from_db()
    assert document.status == Document.Status.FAILED
    assert document.error_kind == "too-many-pages"


def test_an_unexpected_error_fails_the_document_not_the_worker(
    report_pdf: BuiltPdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = upload(report_pdf.data)  # queued: on_commit hooks not run here

    def explode(*args: object, **kwargs: object) -> object:
        raise RuntimeError("boom")

    monkeypatch.setattr("reviewer.services.documents.chunk_text", explode)
    result = document_ingest(document_id=document.pk)
    assert result.status == Document.Status.FAILED
    assert result.error_kind == "internal"
    assert "boom" not in result.error  # internals are logged, not shown


def test_a_failure_while_storing_leaves_no_pages_or_chunks(
    report_pdf: BuiltPdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    document = upload(report_pdf.data)

    def fail(*args: object, **kwargs: object) -> object:
        raise RuntimeError("database went away")

    monkeypatch.setattr(Chunk.objects, "bulk_create", fail)
    result = document_ingest(document_id=document.pk)
    assert result.status == Document.Status.FAILED
    assert not Page.objects.exists() and not Chunk.objects.exists()
    assert result.text == ""


def test_a_new_version_supersedes_the_old_one_when_ready(
    text_pdf: Callable[..., bytes], django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        old = upload(text_pdf("Employees may carry over five days of leave."), "Leave policy.pdf")
        new = upload(text_pdf("Employees may carry over ten days of leave."), "Leave policy.pdf")
    old.refresh_from_db()
    new.refresh_from_db()
    assert new.supersedes_id == old.pk
    assert old.superseded_by_id == new.pk and old.is_superseded
    assert not new.is_superseded
    assert list(Document.objects.current()) == [new]


def _citeguard() -> dict[str, Any]:
    from django.conf import settings

    return dict(settings.CITEGUARD)
