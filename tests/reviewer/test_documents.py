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


@pytest.fixture
def leave(text_pdf: Callable[..., bytes]) -> Callable[[str], bytes]:
    """A one-page leave policy that says how many days carry over."""
    return lambda days: text_pdf(f"Employees may carry over {days} days of leave.")


def ingest_all(django_capture_on_commit_callbacks: Any, *uploads: Callable[[], Document]
               ) -> list[Document]:
    with django_capture_on_commit_callbacks(execute=True):
        documents = [make() for make in uploads]
    for document in documents:
        document.refresh_from_db()
    return documents


def test_the_same_title_with_other_bytes_is_another_document_never_a_version(
    leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    """Two unrelated uploads that share a title (or a file name) are two
    current documents: neither supersedes the other."""
    first, second = ingest_all(
        django_capture_on_commit_callbacks,
        lambda: upload(leave("five"), "Leave policy.pdf", title="Leave policy"),
        lambda: upload(leave("ten"), "Leave policy.pdf", title="Leave policy"),
    )
    assert first.pk != second.pk and first.title == second.title
    assert (first.supersedes_id, first.superseded_by_id, first.version) == (None, None, 1)
    assert (second.supersedes_id, second.superseded_by_id, second.version) == (None, None, 1)
    assert set(Document.objects.current()) == {first, second}


def test_the_same_bytes_again_are_the_existing_document_and_say_so(
    leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    data = leave("five")
    (first,) = ingest_all(django_capture_on_commit_callbacks, lambda: upload(data))
    again = document_upload(data=data, filename="other name.pdf", title="Other",
                            document_key="hr/leave")
    assert again.created is False and again.document.pk == first.pk
    assert again.message.startswith(f"Already uploaded: these bytes are document {first.pk}")
    assert Document.objects.count() == 1
    assert Document.objects.get().document_key == ""  # nothing about it was changed


def test_an_explicit_supersedes_makes_the_next_version_once_it_is_ready(
    leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    (old,) = ingest_all(django_capture_on_commit_callbacks, lambda: upload(leave("five")))
    result = document_upload(data=leave("ten"), filename="v2.pdf", supersedes=old)
    new = result.document
    assert (new.supersedes_id, new.version) == (old.pk, 2)
    assert "supersedes document" in result.message
    old.refresh_from_db()
    assert not old.is_superseded  # not until the new version is ready
    ingest_all(django_capture_on_commit_callbacks, lambda: document_ingest(document_id=new.pk))
    old.refresh_from_db()
    assert old.superseded_by_id == new.pk and old.is_superseded
    assert list(Document.objects.current()) == [new]


def test_a_document_key_makes_each_upload_the_next_version_of_that_key(
    leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    v1, other, v2 = ingest_all(
        django_capture_on_commit_callbacks,
        lambda: upload(leave("five"), "a.pdf", document_key="hr/leave"),
        lambda: upload(leave("seven"), "b.pdf", document_key="hr/travel"),
        lambda: upload(leave("ten"), "c.pdf", document_key="hr/leave"),
    )
    (v3,) = ingest_all(django_capture_on_commit_callbacks,
                       lambda: upload(leave("twelve"), "d.pdf", supersedes=v2))
    for document in (v1, other, v2):
        document.refresh_from_db()
    assert [(d.document_key, d.version) for d in (v1, v2, v3)] == [("hr/leave", n)
                                                                   for n in (1, 2, 3)]
    assert (v2.supersedes_id, v3.supersedes_id) == (v1.pk, v2.pk)  # key inherited by v3
    assert v1.superseded_by_id == v2.pk and v2.superseded_by_id == v3.pk
    assert (other.version, other.supersedes_id, other.superseded_by_id) == (1, None, None)
    assert set(Document.objects.current()) == {other, v3}


def test_a_failed_version_is_skipped_by_the_next(
    leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    good, broken = ingest_all(
        django_capture_on_commit_callbacks,
        lambda: upload(leave("five"), document_key="k"),
        lambda: upload(b"%PDF-1.7 not really", document_key="k"),
    )
    assert broken.status == Document.Status.FAILED and broken.version == 2
    good.refresh_from_db()
    assert not good.is_superseded  # a failed version supersedes nothing
    (fixed,) = ingest_all(django_capture_on_commit_callbacks,
                          lambda: upload(leave("ten"), document_key="k"))
    assert (fixed.version, fixed.supersedes_id) == (3, good.pk)


@pytest.mark.parametrize("case", ["older-version", "already-pending", "other-key"])
def test_a_supersedes_that_contradicts_what_is_stored_is_refused(
    case: str, leave: Callable[[str], bytes], django_capture_on_commit_callbacks: Any
) -> None:
    from reviewer.services.documents import DocumentRejected

    v1, v2 = ingest_all(
        django_capture_on_commit_callbacks,
        lambda: upload(leave("five"), document_key="k"),
        lambda: upload(leave("ten"), document_key="k"),
    )
    if case == "older-version":
        kwargs: dict[str, Any] = {"supersedes": v1}
        code, words = "not-latest-version", f"document {v2.pk} (version 2) is"
    elif case == "already-pending":
        plain = upload(leave("one"))  # no key; a pending next version of it exists
        upload(leave("two"), supersedes=plain)
        kwargs = {"supersedes": plain}
        code, words = "already-superseded", "already has a newer version"
    else:
        kwargs = {"supersedes": v2, "document_key": "another"}
        code, words = "key-mismatch", "has document_key 'k', not 'another'"
    count = Document.objects.count()
    with pytest.raises(DocumentRejected) as raised:
        upload(leave("twenty"), **kwargs)
    assert raised.value.code == code and words in str(raised.value)
    assert Document.objects.count() == count


@pytest.mark.parametrize("key", [" padded ", "tab\there", "x" * 201])
def test_a_bad_document_key_is_refused(key: str, leave: Callable[[str], bytes]) -> None:
    from reviewer.services.documents import DocumentRejected

    if key == " padded ":  # surrounding spaces are trimmed, not refused
        assert upload(leave("five"), document_key=key).document_key == "padded"
        return
    with pytest.raises(DocumentRejected) as raised:
        upload(leave("five"), document_key=key)
    assert raised.value.code == "invalid-document-key" and raised.value.status == 400


def test_two_uploads_under_one_key_at_once_get_distinct_versions(
    leave: Callable[[str], bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The (key, version) constraint turns a race into a retry, not a duplicate:
    here the first attempt is placed as if the other upload had not committed."""
    from reviewer.services import documents as service

    first = upload(leave("five"), document_key="k")
    placed = service._place_version
    calls = []

    def stale(document: Document, supersedes: Document | None) -> None:
        calls.append(1)
        placed(document, supersedes)
        if len(calls) == 1:
            document.version, document.supersedes = first.version, None

    monkeypatch.setattr(service, "_place_version", stale)
    second = upload(leave("ten"), document_key="k")
    assert len(calls) == 2 and (second.version, second.supersedes_id) == (2, first.pk)


def test_versions_are_numbered_for_documents_stored_before_keys(
    leave: Callable[[str], bytes],
) -> None:
    import importlib

    migration = importlib.import_module("reviewer.migrations.0004_document_identity")
    a = upload(leave("one"))
    b = upload(leave("two"))
    c = upload(leave("three"))
    Document.objects.filter(pk=b.pk).update(supersedes=a)
    Document.objects.filter(pk=c.pk).update(supersedes=b)
    Document.objects.update(version=1)
    from django.apps import apps

    migration.number_versions(apps, None)
    assert [d.version for d in Document.objects.order_by("pk")] == [1, 2, 3]


def test_loading_the_demo_again_creates_no_copies_or_versions(
    django_capture_on_commit_callbacks: Any,
) -> None:
    from io import StringIO

    from django.core.management import call_command

    from reviewer import demo
    from reviewer.models import Answer
    from reviewer.services.documents import ocr_languages

    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=True):
            call_command("load_demo", stdout=StringIO())
    # Without tesseract the scanned letter and its answer are left out.
    positions, answers = demo.loadable(ocr_languages())
    documents = list(Document.objects.all())
    assert len(documents) == len(positions)
    assert {d.document_key for d in documents} == {list(demo.DOCUMENTS)[i] for i in positions}
    assert all(d.version == 1 and not d.is_superseded for d in documents)
    assert Answer.objects.count() == len(answers)
    assert not Answer.objects.filter(citations__superseded=True).exists()


def test_the_demo_pdfs_are_the_same_bytes_on_every_build() -> None:
    from reviewer import demo

    for _title, build in demo.DOCUMENTS.values():
        assert build() == build()


def _citeguard() -> dict[str, Any]:
    from django.conf import settings

    return dict(settings.CITEGUARD)
