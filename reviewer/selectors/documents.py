"""Reading documents: their geometry and the page rectangles of a text range."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from datetime import datetime
from functools import lru_cache

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce, Substr

from reviewer.ingestion import DocumentGeometry, PageInfo, PageRects, locate
from reviewer.models import Chunk, Document, Page, Workspace
from reviewer.storage import read_range

logger = logging.getLogger("citeguard.documents")

__all__ = [
    "chunk_list", "document_geometry", "document_get", "document_list", "document_locate",
    "document_text_prefixes", "document_versions", "documents_ocr_ranges", "ocr_ranges_within",
    "pdf_highlight",
]


# What lists and status rows never show: the text stream and its furniture.
LIST_DEFER = ("text", "furniture")


def _with_counts(queryset: QuerySet[Document]) -> QuerySet[Document]:
    # A subquery per row returned (not a join over every chunk): it costs one
    # index lookup a row, so a page of fifty stays cheap however large the table.
    chunks = (Chunk.objects.filter(document=OuterRef("pk")).order_by()
              .values("document").annotate(n=Count("pk")).values("n"))
    return queryset.annotate(chunk_count=Coalesce(Subquery(chunks), Value(0)))


def document_list(
    *, q: str = "", statuses: list[str] | None = None, document_key: str = "",
    since: datetime | None = None, current: bool | None = None,
    workspaces: Iterable[Workspace | int] | None = None,
) -> QuerySet[Document]:
    """Documents newest first, each with ``chunk_count``, filtered; only
    those of ``workspaces`` unless it is None (every workspace).

    ``q`` matches a document id (``42`` or ``#42``), a title or key in part, or
    a SHA-256 prefix of eight characters or more.
    """
    queryset = Document.objects.defer(*LIST_DEFER).select_related("supersedes")
    queryset = queryset.defer(*(f"supersedes__{f}" for f in LIST_DEFER))
    if workspaces is not None:
        queryset = queryset.filter(workspace__in=list(workspaces))
    q = q.strip()
    if q:
        match = Q(title__icontains=q) | Q(document_key__icontains=q)
        number = q.removeprefix("#")
        if number.isascii() and number.isdigit() and len(number) < 19:
            match |= Q(pk=int(number))
        if len(q) >= 8 and all(c in "0123456789abcdef" for c in q.lower()):
            match |= Q(sha256__startswith=q.lower())
        queryset = queryset.filter(match)
    if statuses:
        queryset = queryset.filter(status__in=statuses)
    if document_key:
        queryset = queryset.filter(document_key=document_key)
    if since is not None:
        queryset = queryset.filter(created__gte=since)
    if current is not None:
        queryset = queryset.filter(superseded_by__isnull=current)
    return _with_counts(queryset).order_by("-pk")


def document_get(document_id: int, *, workspaces: Iterable[Workspace | int] | None = None
                 ) -> Document | None:
    """One document with its ``chunk_count`` (text left out), or None, also
    when it is not in ``workspaces`` (None: any)."""
    return document_list(workspaces=workspaces).filter(pk=document_id).first()


def document_versions(document: Document) -> QuerySet[Document]:
    """Every version under the document's key, newest first (itself alone
    when it has no key): a chain made with ``supersedes`` only is followed
    by the links shown on the page."""
    if not document.document_key:
        return Document.objects.filter(pk=document.pk).only("pk", "title", "version", "status")
    return (Document.objects.with_key(document.document_key, workspace=document.workspace_id)
            .only("pk", "title", "version", "status", "superseded_by", "created")
            .order_by("-version"))


def chunk_list(*, document: Document) -> QuerySet[Chunk]:
    return document.chunks.order_by("index")


#: Stored geometry up to this size is read whole, once, and kept with the
#: cached index: a lookup then reads no range from the store (each ranged GET
#: of an object store costs a request's time and a few ms of CPU, and an
#: answer's highlights read several). A page of text is about 40 KB of
#: geometry: the 16 cached documents keep at most 32 MB each process.
WHOLE_GEOMETRY_BYTES = 2 * 1024 * 1024


@lru_cache(maxsize=16)
def _geometry(document_id: int, name: str) -> DocumentGeometry:
    # Keyed by the stored file's name: a document's geometry never changes
    # once written, so the cache cannot go stale. A long document's index
    # (its page records and inserted positions) is cached, and each lookup
    # reads the boxes it needs; a short one is kept whole.
    from django.core.files.storage import default_storage

    size = default_storage.size(name)
    if size <= WHOLE_GEOMETRY_BYTES:
        return DocumentGeometry.from_bytes(read_range(default_storage, name, 0, size))
    return DocumentGeometry.from_reader(
        lambda offset, length: read_range(default_storage, name, offset, length), size)


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
    rotation and media-box offsets are then the viewer's to apply, exactly.

    A page read by OCR also gets ``words``: the boxes of its text, run by run
    (a line, or a line's side-by-side piece). pdf.js has no text layer on a
    scan, so these are the only word positions the viewer can keep its tags
    off."""
    geometry = document_geometry(document)
    if geometry is None:
        return []
    infos = {page.number: page for page in geometry.pages}
    scanned = {int(page["page"]) for page in document.ocr_pages}
    converted: list[dict[str, object]] = []
    for entry in pages:
        info = infos.get(entry["page"])
        if info is None:
            continue
        item: dict[str, object] = {
            "page": entry["page"],
            "rects": [_pdf_rect(info, rect) for rect in entry["rects"]],
        }
        if info.number in scanned:
            item["words"] = _text_boxes(geometry, info)
        converted.append(item)
    return converted


def _pdf_rect(info: PageInfo, rect: list[float]) -> list[float]:
    x0, y0, x1, y1 = rect
    ax, ay = info.to_pdf_point(x0, y0)
    bx, by = info.to_pdf_point(x1, y1)
    return [round(min(ax, bx), 2), round(min(ay, by), 2),
            round(max(ax, bx), 2), round(max(ay, by), 2)]


def _text_boxes(geometry: DocumentGeometry, info: PageInfo) -> list[list[float]]:
    """One PDF user-space box per run of the page's glyphs between inserted
    characters (line breaks, the space between side-by-side lines)."""
    boxes = []
    for run in geometry.glyph_runs(info.text_start, info.text_end):
        if run:
            box = [min(run[0::4]), min(run[1::4]), max(run[2::4]), max(run[3::4])]
            boxes.append(_pdf_rect(info, box))
    return boxes


_SQL_INT_MAX = 2**31 - 1


def document_text_prefixes(needed: Mapping[int | str, int]) -> dict[int | str, str]:
    """Each document's text up to code point ``needed[id]`` (what converting
    its offsets to UTF-16 and UTF-8 needs: the units of a range depend on
    all the text before it), in one query; deleted documents too, as their
    answers still cite them. A document that no longer exists is missing."""
    if not needed:
        return {}
    # One SUBSTR length for all (most answers cite one document); 32-bit on
    # PostgreSQL.
    length = min(max(1, *needed.values()), _SQL_INT_MAX)
    rows = (Document.all_objects.filter(pk__in=list(needed))
            .annotate(prefix=Substr("text", 1, length)).values_list("pk", "prefix"))
    return {pk: prefix for pk, prefix in rows}


def documents_ocr_ranges(ocr_pages: Mapping[int, Iterable[Mapping[str, object]]]
                         ) -> dict[int, list[tuple[int, int]]]:
    """The text ranges OCR read, by document, from each document's
    ``ocr_pages`` (as stored): one query for all, none when no page was
    OCR'd. Pages with a text layer are not among them: a source's leniency
    for OCR misreads (``verification.Source.ocr``) ends where they begin."""
    wanted = {pk: {int(str(page["page"])) for page in pages}
              for pk, pages in ocr_pages.items() if pages}
    if not wanted:
        return {}
    ranges: dict[int, list[tuple[int, int]]] = {}
    rows = (Page.objects.filter(document_id__in=list(wanted))
            .values_list("document_id", "number", "text_start", "text_end")
            .order_by("document_id", "number"))
    for document_id, number, start, end in rows:
        if number in wanted[document_id]:
            ranges.setdefault(document_id, []).append((start, end))
    return ranges


def ocr_ranges_within(ranges: Iterable[tuple[int, int]], start: int, length: int
                      ) -> tuple[tuple[int, int], ...]:
    """``ranges`` of a document's text as ranges of its ``text[start:start + length]``."""
    return tuple((max(s, start) - start, min(e, start + length) - start)
                 for s, e in ranges if s < start + length and e > start)
