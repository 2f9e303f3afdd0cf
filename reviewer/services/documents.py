"""Uploading and ingesting documents.

``document_upload`` stores the file and queues ingestion; ``document_ingest``
(run by the task) extracts, cleans and chunks it, and writes everything in
one transaction: a document is either ready with all its pages and chunks,
or failed with a message and nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
from bisect import bisect_right
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile, File
from django.core.files.storage import FileSystemStorage
from django.db import IntegrityError, InterfaceError, OperationalError, transaction
from django.tasks import task
from django.utils import timezone

from reviewer.ingestion import (
    ExtractedDocument,
    ExtractionError,
    chunk_text,
    find_furniture,
)
from reviewer.ingestion.ocr import OcrOptions, installed_languages, language_problem
from reviewer.ingestion.sandbox import extract_pdf_isolated
from reviewer.models import Chunk, Document, Page, Workspace
from reviewer.models.documents import DOCUMENT_KEY_MAX, TITLE_MAX, validate_document_key
from reviewer.storage import STORAGE_ERRORS, geometry_key, pdf_key, store_once
from reviewer.task_retries import retries_left

logger = logging.getLogger("citeguard.ingest")

__all__ = ["DocumentRejected", "UploadResult", "document_ingest", "document_retry",
           "document_upload", "documents_fail_stale", "ingest_document", "ocr_language_check",
           "ocr_languages"]


class DocumentRejected(ValueError):
    """The upload contradicts what is stored; ``code`` and the message say how."""

    def __init__(self, code: str, message: str, *, status: int = 409) -> None:
        super().__init__(message)
        self.code, self.status = code, status


@dataclass(frozen=True)
class UploadResult:
    document: Document
    created: bool

    @property
    def message(self) -> str:
        document = self.document
        if not self.created:
            return (f"Already uploaded: these bytes are document {document.pk} "
                    f"(“{document.title}”, version {document.version}); nothing new was stored.")
        if document.supersedes_id:
            return (f"Uploaded as document {document.pk}, version {document.version}: it "
                    f"supersedes document {document.supersedes_id} once it is ready.")
        return f"Uploaded as document {document.pk}."


def _limits() -> dict[str, float]:
    return settings.CITEGUARD  # type: ignore[no-any-return]


def ocr_languages() -> tuple[str, ...]:
    """The OCR languages installed on this server (() without tesseract)."""
    return installed_languages(str(_limits()["OCR_COMMAND"]))


def ocr_language_check(language: str) -> str:
    """The OCR language to store for an upload: ``language`` stripped, or the
    settings' ``OCR_LANGUAGE`` when empty. DocumentRejected (400,
    ``invalid-ocr-language``) for one that is not installed, naming the choices."""
    language = language.strip()
    if not language:
        return str(_limits()["OCR_LANGUAGE"])
    problem = language_problem(language, ocr_languages())
    if problem is not None:
        raise DocumentRejected("invalid-ocr-language", problem, status=400)
    return language


def document_upload(
    *, data: bytes, filename: str, title: str = "", supersedes: Document | None = None,
    document_key: str = "", workspace: Workspace | None = None, ocr_language: str = "",
) -> UploadResult:
    """Store an uploaded file as a document and queue its ingestion.

    The same bytes uploaded again are the same document (by SHA-256): it is
    returned with ``created=False`` and nothing is stored. A document is a new
    version of another only when the client says so — ``supersedes`` (an id)
    or a ``document_key`` it chose, which every version carries — never
    because a title or file name matches. The old version is kept, and marked
    superseded once the new one is ready. A file over the size limit is
    recorded as failed without keeping its bytes.

    Everything above holds within ``workspace`` (the default one when None):
    the same bytes in another workspace are another document, and
    ``supersedes`` must be in this one.

    ``ocr_language`` is the Tesseract language its pages without a text layer
    are read in (the settings' ``OCR_LANGUAGE`` when empty); a failed
    document's bytes sent again with another language are tried again in it.

    Raises DocumentRejected when the request contradicts what is stored: a
    ``supersedes`` that already has a newer version, or that belongs to
    another key; and (status 400) a title over ``TITLE_MAX`` characters, or
    an OCR language that is not installed.
    """
    workspace = workspace or Workspace.objects.default()
    title = _check_title(title, filename)
    asked_language = ocr_language.strip()
    ocr_language = ocr_language_check(ocr_language)
    if supersedes is not None and supersedes.workspace_id != workspace.pk:
        raise ValueError(f"document {supersedes.pk} is not in workspace {workspace.name!r}")
    digest = hashlib.sha256(data).hexdigest()
    # Deleted rows too: a deleted document's bytes are not uploaded again.
    existing = Document.all_objects.in_workspace(workspace).filter(sha256=digest).first()
    if existing is not None and existing.deleted_at is not None:
        raise DocumentRejected(
            "deleted", f"These bytes were document {existing.pk}, deleted on "
                       f"{existing.deleted_at:%Y-%m-%d %H:%M} UTC; a deleted document is not "
                       "uploaded again. Ask an administrator if it should come back.")
    if existing is not None:
        documents_fail_stale()
        existing.refresh_from_db()
        if _retryable(existing):
            # The same bytes again after a failure: try them again (in the
            # OCR language now asked for, if one was).
            if asked_language and asked_language != existing.ocr_language:
                Document.objects.filter(pk=existing.pk, status=Document.Status.FAILED).update(
                    ocr_language=ocr_language)
            existing = document_retry(document=existing)
        return UploadResult(existing, created=False)
    document_key = _check_key(document_key)
    limit = int(_limits()["MAX_UPLOAD_BYTES"])
    for attempt in range(3):
        document = Document(title=title, sha256=digest, size_bytes=len(data),
                            document_key=document_key, workspace=workspace,
                            ocr_language=ocr_language)
        _place_version(document, supersedes)
        if len(data) > limit:
            document.status = Document.Status.FAILED
            document.error_kind = "too-large"
            document.error = (
                f"This file is {len(data) / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB."
            )
        try:
            with transaction.atomic():
                if document.status != Document.Status.FAILED:
                    document.file.name = store_once(
                        document.file.storage, pdf_key(digest), ContentFile(data))
                # Uniqueness is the database's to decide (see the except).
                document.full_clean(exclude=["file", "geometry"], validate_unique=False,
                                    validate_constraints=False)
                document.save()
        except STORAGE_ERRORS as error:
            # The file store did not take the bytes: the row was rolled back
            # with it, so nothing is half-stored.
            logger.error("upload not stored: the file store failed: %s", error)
            raise DocumentRejected(
                "storage-unavailable",
                "The file store did not take this file (it did not answer or refused "
                f"it: {type(error).__name__}); nothing was stored. Try again in a minute.",
                status=503) from None
        except IntegrityError:
            # The stored object is kept: it is named by its bytes, and the
            # row that won the race (or this upload's next attempt) uses it.
            stored = Document.objects.in_workspace(workspace).filter(sha256=digest).first()
            if stored is not None:  # the same file, uploaded concurrently
                return UploadResult(stored, created=False)
            if attempt == 2:
                raise
            continue  # another version of the key was stored meanwhile: place this after it
        break
    if document.status == Document.Status.QUEUED:
        transaction.on_commit(lambda: ingest_document.enqueue(document.pk))
    return UploadResult(document, created=True)


def _check_key(document_key: str) -> str:
    key = document_key.strip()
    if len(key) > DOCUMENT_KEY_MAX:
        raise DocumentRejected("invalid-document-key",
                               f"document_key is {len(key)} characters; the limit is "
                               f"{DOCUMENT_KEY_MAX}.", status=400)
    try:
        validate_document_key(key)
    except ValidationError as error:
        raise DocumentRejected("invalid-document-key", " ".join(error.messages),
                               status=400) from None
    return key


def _place_version(document: Document, supersedes: Document | None) -> None:
    """Set ``document``'s key, the version it supersedes and its number.

    Under a key the new document follows the key's latest version that did
    not fail; an explicit ``supersedes`` must be that one. Without a key it
    takes the key of the document it supersedes, if any.
    """
    key = document.document_key
    if supersedes is not None and supersedes.document_key:
        if key and key != supersedes.document_key:
            raise DocumentRejected(
                "key-mismatch",
                f"Document {supersedes.pk} has document_key {supersedes.document_key!r}, not "
                f"{key!r}: send one of the two, or both naming the same document.")
        key = document.document_key = supersedes.document_key
    head = None
    if key:
        versions = Document.objects.with_key(key, workspace=document.workspace_id)
        head = (versions.exclude(status=Document.Status.FAILED)
                .order_by("-version").only("pk", "version").first())
        if supersedes is not None and head is not None and supersedes.pk != head.pk:
            raise DocumentRejected(
                "not-latest-version",
                f"Document {supersedes.pk} is not the latest version of {key!r}: document "
                f"{head.pk} (version {head.version}) is. Supersede that one, or send only "
                "the document_key.")
        # all_objects: a deleted version keeps its number (and its unique row).
        latest = (Document.all_objects.with_key(key, workspace=document.workspace_id)
                  .order_by("-version")
                  .values_list("version", flat=True).first() or 0)
    else:
        latest = 0
    target = supersedes or head
    if target is not None and supersedes is not None:
        newer = (Document.objects.filter(supersedes=target)  # never across workspaces
                 .exclude(status=Document.Status.FAILED).order_by("pk").first())
        if target.superseded_by_id or newer is not None:
            successor = target.superseded_by_id or (newer.pk if newer else None)
            raise DocumentRejected(
                "already-superseded",
                f"Document {target.pk} already has a newer version, document {successor}. "
                "Supersede the latest version instead.")
    document.supersedes = target
    document.version = max(latest, target.version if target is not None else 0) + 1


def _clean_title(title: str) -> str:
    """A title as text every database stores: control characters (NUL among
    them) and lone surrogates become spaces, runs of spaces one."""
    cleaned = "".join(" " if not c.isprintable() or "\ud800" <= c <= "\udfff" else c
                      for c in title)
    return " ".join(cleaned.split()) or "Untitled"


def _check_title(title: str, filename: str) -> str:
    """The title to store (the file name's stem when none is given), cleaned;
    one over ``TITLE_MAX`` characters as sent (what a form's maxlength and the
    API's maxLength count) is refused, never cut."""
    given = title or Path(filename).stem
    if len(given) > TITLE_MAX:
        what = "The title" if title else "The title (the file name, as no title was given)"
        raise DocumentRejected("title-too-long", f"{what} is {len(given)} characters; the "
                               f"limit is {TITLE_MAX}. Nothing was stored.", status=400)
    return _clean_title(given)


def _file_sha256(handle: IO[bytes]) -> str:
    """The SHA-256 of a file's bytes, read from its start; left at its start."""
    digest = hashlib.sha256()
    handle.seek(0)
    while chunk := handle.read(1 << 20):
        digest.update(chunk)
    handle.seek(0)
    return digest.hexdigest()


def document_ingest(*, document_id: int) -> Document:
    """Extract, clean and chunk a queued document; never raises for bad input."""
    with transaction.atomic():
        document = Document.objects.select_for_update().get(pk=document_id)
        if document.status not in (Document.Status.QUEUED, Document.Status.PROCESSING):
            return document
        document.status = Document.Status.PROCESSING
        document.save(update_fields=["status", "updated"])
    limits = _limits()
    try:
        with document.file.open("rb") as handle:
            data = handle.read()
        extracted = extract_pdf_isolated(
            data, **isolation_limits(), ocr=ocr_options(document.ocr_language),
            on_progress=lambda page, pages, ocr: _progress(document, page, pages, ocr))
        try:
            furniture = find_furniture(extracted)
            ranges = chunk_text(
                extracted.text,
                target_size=int(limits["CHUNK_SIZE"]),
                overlap=int(limits["CHUNK_OVERLAP"]),
                exclude=furniture,
            )
            _store(document, extracted, furniture, ranges)
        finally:
            extracted.geometry.close()  # the temporary file its boxes were streamed to
    except ExtractionError as error:
        _fail(document, error.kind, error.message)
    except (OperationalError, InterfaceError, *STORAGE_ERRORS) as error:
        # The database or the store away for a moment: the queue runs the
        # task again while it has tries left; the last try fails the document.
        if retries_left():
            _waiting(document, f"{type(error).__name__}: {error}")
            raise
        logger.exception("ingestion of document %s failed", document_id)
        what = "database" if isinstance(error, OperationalError | InterfaceError) else "file store"
        _fail(document, "unavailable", f"citeguard could not finish reading this PDF: the "
              f"{what} failed ({type(error).__name__}: {error}). Upload it again, or run "
              f"manage.py reingest {document.pk}, once it is back.")
    except Exception:  # a bug or an unforeseen PDF: fail this document, keep the worker
        logger.exception("ingestion of document %s failed", document_id)
        _fail(document, "internal", "citeguard could not read this PDF (an internal error "
              "was logged). Try re-saving it as PDF/A, or report it.")
    document.refresh_from_db()
    return document


def _store(
    document: Document,
    extracted: ExtractedDocument,
    furniture: list[tuple[int, int]],
    ranges: list[tuple[int, int]],
) -> None:
    pages = extracted.pages
    page_starts = [page.text_start for page in pages]

    def page_of(position: int) -> int:
        return pages[max(0, bisect_right(page_starts, position) - 1)].number

    with transaction.atomic():
        # Two runs of one document (one the watchdog gave up on, and its
        # retry) can both reach here: the first to store wins, whole.
        # A run the watchdog failed as stuck may still store its (good) result,
        # unless a retry already did, or the document was deleted meanwhile.
        current = (Document.all_objects.select_for_update().only("status", "deleted_at")
                   .get(pk=document.pk))
        if (current.deleted_at is not None or current.status == Document.Status.READY
                or Page.objects.filter(document=document).exists()):
            logger.warning("document %s: a late ingestion run finished after another run "
                           "settled it; its result is dropped", document.pk)
            return
        Page.objects.bulk_create(
            Page(document=document, number=page.number, width=page.width, height=page.height,
                 rotation=page.rotation, text_start=page.text_start, text_end=page.text_end)
            for page in pages
        )
        Chunk.objects.bulk_create(
            Chunk(document=document, index=index, start=start, end=end,
                  text=extracted.text[start:end], page_first=page_of(start),
                  page_last=page_of(end - 1))
            for index, (start, end) in enumerate(ranges)
        )
        document.text = extracted.text
        document.furniture = [list(r) for r in furniture]
        document.page_count = extracted.page_count
        # Streamed through a temporary file: a book's geometry runs to tens
        # of megabytes, which need not sit in memory.
        with tempfile.TemporaryFile() as handle:
            extracted.write_geometry(handle)
            digest = _file_sha256(handle)
            document.geometry.name = store_once(
                document.geometry.storage, geometry_key(digest), File(handle, name="g.geo"))
        report = extracted.ocr
        if report is not None:
            document.ocr_language = report.language
            document.ocr_pages = [{"page": p.number, "words": p.words,
                                   "confidence": round(p.confidence, 1)} for p in report.pages]
            document.ocr_confidence = round(report.confidence, 1)
        document.status = Document.Status.READY
        document.error_kind = document.error = document.progress = ""
        document.save()
        _make_read_only(document)
        if document.supersedes_id:
            Document.objects.filter(pk=document.supersedes_id).update(superseded_by=document)
        transaction.on_commit(lambda: logger.info(
            "ingested document %s: %d pages, %d chunks", document.pk, len(pages), len(ranges)))


@task()
def ingest_document(document_id: int) -> str:
    """The background task :func:`document_upload` and :func:`document_retry`
    queue: ingest one uploaded document; returns its final status. It lives
    beside the work it runs so that this module queues it without importing
    anything that imports it back."""
    return str(document_ingest(document_id=document_id).status)


def isolation_limits(*, inline: bool = False) -> dict[str, float]:
    """The settings' limits of a sandboxed extraction: an upload's, or (inline)
    those of a PDF sent inside an API request, whose time is the request's."""
    limits = _limits()
    seconds = limits["MAX_SECONDS_PER_INLINE_PDF" if inline else "MAX_SECONDS_PER_DOCUMENT"]
    return {
        "max_pages": int(limits["MAX_PAGES"]),
        "max_seconds": float(seconds),
        "max_page_chars": int(limits["MAX_CHARS_PER_PAGE"]),
        "max_document_chars": int(limits["MAX_CHARS_PER_DOCUMENT"]),
        "max_memory_bytes": int(limits["MAX_INGEST_MEMORY_BYTES"]),
    }


def ocr_options(language: str = "", *, inline: bool = False) -> OcrOptions:
    """How an extraction OCRs pages without a text layer, from the settings:
    in ``language`` (the default one when empty). An inline PDF's OCR gets
    no extra time: it must fit in the request's limit."""
    limits = _limits()
    return OcrOptions(
        language=language or str(limits["OCR_LANGUAGE"]),
        seconds_per_page=0.0 if inline else float(limits["MAX_OCR_SECONDS_PER_PAGE"]),
        max_pages=int(limits["MAX_OCR_PAGES"]),
        command=str(limits["OCR_COMMAND"]),
    )


def _progress(document: Document, page: int, pages: int, ocr: bool) -> None:
    """Note the page being read on the row (the documents list shows it);
    ``updated`` moves too, so a long OCR that is moving is not taken for stuck."""
    text = f"OCR page {page} of {pages}" if ocr else f"Reading page {page} of {pages}"
    Document.objects.filter(pk=document.pk, status=Document.Status.PROCESSING).update(
        progress=text, updated=timezone.now())


def _waiting(document: Document, why: str) -> None:
    """Say on the row why the queue will run this ingestion again; best
    effort, since the database may be what failed."""
    logger.warning("document %s: ingestion will be tried again: %s", document.pk, why)
    with contextlib.suppress(OperationalError, InterfaceError):
        Document.objects.filter(pk=document.pk, status=Document.Status.PROCESSING).update(
            progress=f"Waiting to try again: {why}"[:120], updated=timezone.now())


def _make_read_only(document: Document) -> None:
    """Stored files of a ready document made read-only where the storage is
    a file system, so nothing on the host rewrites them in place either (the
    model refuses a swap; see ``FROZEN_WHEN_READY``)."""
    for field in (document.file, document.geometry):
        if field.name and isinstance(field.storage, FileSystemStorage):
            try:
                os.chmod(field.storage.path(field.name), 0o444)
            except OSError as error:  # a read-only mount, another owner: not fatal
                logger.warning("could not make %s read-only: %s", field.name, error)


def _retryable(document: Document) -> bool:
    """A failed document whose bytes were kept: an oversize file's were not,
    and another try would fail the same way."""
    return (document.status == Document.Status.FAILED and document.error_kind != "too-large"
            and bool(document.file))


def document_retry(*, document: Document) -> Document:
    """Queue a failed document's ingestion again (re-uploading its bytes, or
    ``manage.py reingest``). A ready, queued or processing document is
    returned as it is; ValueError for one whose bytes were not kept."""
    if not _retryable(document):
        if document.status == Document.Status.FAILED:
            raise ValueError(f"document {document.pk} cannot be retried: {document.error}")
        return document
    with transaction.atomic():
        updated = Document.objects.filter(pk=document.pk, status=Document.Status.FAILED).update(
            status=Document.Status.QUEUED, error_kind="", error="", updated=timezone.now())
        if updated:
            transaction.on_commit(lambda: ingest_document.enqueue(document.pk))
            logger.info("document %s queued again after: %s", document.pk, document.error)
    document.refresh_from_db()
    return document


def documents_fail_stale(*, now: datetime | None = None) -> int:
    """Fail documents left ``processing`` past twice the ingestion time limit
    (``MAX_SECONDS_PER_DOCUMENT``) since their last progress (each page read
    moves ``updated``): the worker ingesting them died. The
    sentence says how to retry. Returns how many."""
    now = now or timezone.now()
    limit = float(_limits()["MAX_SECONDS_PER_DOCUMENT"])
    cutoff = now - timedelta(seconds=2 * limit)
    failed = 0
    for document in Document.objects.filter(status=Document.Status.PROCESSING,
                                            updated__lt=cutoff).only("pk", "updated"):
        failed += Document.objects.filter(
            pk=document.pk, status=Document.Status.PROCESSING, updated=document.updated
        ).update(status=Document.Status.FAILED, error_kind="stuck", updated=now, error=(
            f"Ingestion made no progress for {2 * limit:g} s after "
            f"{document.updated:%Y-%m-%d %H:%M} UTC (its start or the last page it read): "
            f"the worker ingesting it stopped. Upload the same file again, or run "
            f"manage.py reingest {document.pk}, to try again."))
        logger.warning("document %s failed: ingestion stuck since %s", document.pk,
                       document.updated.isoformat())
    return failed


def documents_requeue_lost(*, now: datetime | None = None) -> int:
    """Queue again documents left ``queued`` for ``QUEUED_STALE_SECONDS``:
    their task was lost with the queue (a Redis that restarted without its
    append-only file). A document whose task was only late is then ingested
    by whichever run comes first; the other finds it done. Returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=float(_limits()["QUEUED_STALE_SECONDS"]))
    requeued = 0
    for pk in Document.objects.filter(status=Document.Status.QUEUED, updated__lt=cutoff
                                      ).values_list("pk", flat=True):
        with transaction.atomic():
            if Document.objects.filter(pk=pk, status=Document.Status.QUEUED,
                                       updated__lt=cutoff).update(updated=now):
                transaction.on_commit(lambda pk=pk: ingest_document.enqueue(pk))
                requeued += 1
                logger.warning("document %s: queued since before %s and not started; "
                               "queued again", pk, cutoff.isoformat())
    return requeued


def _fail(document: Document, kind: str, message: str) -> None:
    # Only a document still being ingested: a run the watchdog gave up on may
    # end after a retry made the document ready, and must not fail it then.
    failed = Document.objects.filter(
        pk=document.pk, status__in=(Document.Status.QUEUED, Document.Status.PROCESSING),
    ).update(status=Document.Status.FAILED, error_kind=kind, error=message, progress="")
    if failed:
        logger.warning("document %s failed (%s): %s", document.pk, kind, message)
    else:
        logger.warning("document %s: a late ingestion run failed (%s) after another run "
                       "settled it; ignored", document.pk, kind)
