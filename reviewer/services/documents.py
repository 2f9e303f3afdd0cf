"""Uploading and ingesting documents.

``document_upload`` stores the file and queues ingestion; ``document_ingest``
(run by the task) extracts, cleans and chunks it, and writes everything in
one transaction: a document is either ready with all its pages and chunks,
or failed with a message and nothing else.
"""

from __future__ import annotations

import hashlib
import logging
import tempfile
from bisect import bisect_right
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import IntegrityError, transaction

from reviewer.ingestion import (
    ExtractedDocument,
    ExtractionError,
    chunk_text,
    extract_pdf,
    find_furniture,
)
from reviewer.models import Chunk, Document, Page

logger = logging.getLogger("citeguard.ingest")

__all__ = ["UploadResult", "document_ingest", "document_upload"]


@dataclass(frozen=True)
class UploadResult:
    document: Document
    created: bool


def _limits() -> dict[str, float]:
    return settings.CITEGUARD  # type: ignore[no-any-return]


def document_upload(
    *, data: bytes, filename: str, title: str = "", supersedes: Document | None = None
) -> UploadResult:
    """Store an uploaded file as a document and queue its ingestion.

    The same bytes uploaded again are the same document (by SHA-256). A new
    file with the title of a current document (or an explicit ``supersedes``)
    is a new version of it: the old one is kept and marked superseded once the
    new one is ready. A file over the size limit is recorded as failed
    without keeping its bytes.
    """
    digest = hashlib.sha256(data).hexdigest()
    existing = Document.objects.filter(sha256=digest).first()
    if existing is not None:
        return UploadResult(existing, created=False)
    title = (title or Path(filename).stem or "Untitled").strip()[:300]
    if supersedes is None:
        supersedes = Document.objects.current().filter(title=title).exclude(
            status=Document.Status.FAILED
        ).first()
    limit = int(_limits()["MAX_UPLOAD_BYTES"])
    document = Document(title=title, sha256=digest, size_bytes=len(data), supersedes=supersedes)
    if len(data) > limit:
        document.status = Document.Status.FAILED
        document.error_kind = "too-large"
        document.error = (
            f"This file is {len(data) / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB."
        )
    try:
        with transaction.atomic():
            if document.status != Document.Status.FAILED:
                document.file.save(_safe_name(filename), ContentFile(data), save=False)
            document.full_clean(exclude=["file", "geometry"])
            document.save()
    except IntegrityError:  # the same file, uploaded concurrently
        document.file.delete(save=False)
        return UploadResult(Document.objects.get(sha256=digest), created=False)
    if document.status == Document.Status.QUEUED:
        from reviewer.tasks import ingest_document

        transaction.on_commit(lambda: ingest_document.enqueue(document.pk))
    return UploadResult(document, created=True)


def _safe_name(filename: str) -> str:
    stem = "".join(c if c.isalnum() or c in "-_." else "_" for c in Path(filename).stem)[:80]
    return f"{stem or 'document'}.pdf"


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
        extracted = extract_pdf(
            data,
            max_pages=int(limits["MAX_PAGES"]),
            max_seconds=float(limits["MAX_SECONDS_PER_DOCUMENT"]),
        )
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
        name = f"{document.sha256}.geo"
        with tempfile.TemporaryFile() as handle:
            extracted.write_geometry(handle)
            handle.seek(0)
            document.geometry.save(name, File(handle, name=name), save=False)
        document.status = Document.Status.READY
        document.error_kind = document.error = ""
        document.save()
        if document.supersedes_id:
            Document.objects.filter(pk=document.supersedes_id).update(superseded_by=document)
        transaction.on_commit(lambda: logger.info(
            "ingested document %s: %d pages, %d chunks", document.pk, len(pages), len(ranges)))


def _fail(document: Document, kind: str, message: str) -> None:
    Document.objects.filter(pk=document.pk).update(
        status=Document.Status.FAILED, error_kind=kind, error=message
    )
    logger.warning("document %s failed (%s): %s", document.pk, kind, message)
