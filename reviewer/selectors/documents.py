"""Reading documents: their geometry and the page rectangles of a text range."""

from __future__ import annotations

from functools import lru_cache

from django.db.models import QuerySet

from reviewer.ingestion import DocumentGeometry, PageRects, locate
from reviewer.models import Chunk, Document

__all__ = ["chunk_list", "document_geometry", "document_list", "document_locate"]


def document_list() -> QuerySet[Document]:
    return Document.objects.defer("text").order_by("-created")


def chunk_list(*, document: Document) -> QuerySet[Chunk]:
    return document.chunks.order_by("index")


@lru_cache(maxsize=16)
def _geometry(document_id: int, name: str) -> DocumentGeometry:
    # Keyed by the stored file's name: a document's geometry never changes
    # once written, so the cache cannot go stale.
    from django.core.files.storage import default_storage

    with default_storage.open(name, "rb") as handle:
        return DocumentGeometry.from_bytes(handle.read())


def document_geometry(document: Document) -> DocumentGeometry | None:
    if document.status != Document.Status.READY or not document.geometry:
        return None
    return _geometry(document.pk, document.geometry.name)


def document_locate(document: Document, start: int, end: int) -> list[PageRects]:
    """Page rectangles of ``document.text[start:end]``, furniture left out."""
    geometry = document_geometry(document)
    if geometry is None:
        return []
    skip = [(s, e) for s, e in document.furniture]
    return locate(geometry, start, end, skip=skip)
