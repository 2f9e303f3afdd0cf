"""Reading documents: their geometry and the page rectangles of a text range."""

from __future__ import annotations

import logging
from functools import lru_cache

from django.db.models import QuerySet

from reviewer.ingestion import DocumentGeometry, PageRects, locate
from reviewer.models import Chunk, Document

logger = logging.getLogger("citeguard.documents")

__all__ = [
    "chunk_list", "document_geometry", "document_list", "document_locate", "pdf_highlight",
]


def document_list() -> QuerySet[Document]:
    return Document.objects.defer("text").order_by("-created")


def chunk_list(*, document: Document) -> QuerySet[Chunk]:
    return document.chunks.order_by("index")


@lru_cache(maxsize=16)
def _geometry(document_id: int, name: str) -> DocumentGeometry:
    # Keyed by the stored file's name: a document's geometry never changes
    # once written, so the cache cannot go stale. Only the page records and
    # inserted positions are cached; each lookup reads the boxes it needs.
    from django.core.files.storage import default_storage

    return DocumentGeometry.from_file(lambda: default_storage.open(name, "rb"))


def document_geometry(document: Document) -> DocumentGeometry | None:
    """The document's geometry, or None when it has none that can be read (not
    ready, or stored by an older format: re-ingest to highlight it again)."""
    if document.status != Document.Status.READY or not document.geometry:
        return None
    try:
        return _geometry(document.pk, document.geometry.name)
    except (OSError, ValueError):
        logger.warning("geometry of document %s cannot be read; highlights are off",
                       document.pk, exc_info=True)
        return None


def document_locate(document: Document, start: int, end: int) -> list[PageRects]:
    """Page rectangles of ``document.text[start:end]``, furniture left out."""
    geometry = document_geometry(document)
    if geometry is None:
        return []
    skip = [(s, e) for s, e in document.furniture]
    return locate(geometry, start, end, skip=skip)


def pdf_highlight(document: Document, pages: list[PageRects]) -> list[dict[str, object]]:
    """Located rectangles (displayed-page points, top-left origin) converted to
    PDF user space, which pdf.js's ``viewport.convertToViewportPoint`` takes:
    rotation and media-box offsets are then the viewer's to apply, exactly."""
    geometry = document_geometry(document)
    if geometry is None:
        return []
    infos = {page.number: page for page in geometry.pages}
    converted: list[dict[str, object]] = []
    for entry in pages:
        info = infos.get(entry["page"])
        if info is None:
            continue
        rects = []
        for x0, y0, x1, y1 in entry["rects"]:
            ax, ay = info.to_pdf_point(x0, y0)
            bx, by = info.to_pdf_point(x1, y1)
            rects.append([round(min(ax, bx), 2), round(min(ay, by), 2),
                          round(max(ax, bx), 2), round(max(ay, by), 2)])
        converted.append({"page": entry["page"], "rects": rects})
    return converted
