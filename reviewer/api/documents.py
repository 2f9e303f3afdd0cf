"""Document endpoints: upload, status, and chunk listing (for services that
ingest through citeguard and inject its chunk ids)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from reviewer.api.base import ApiError, api_endpoint
from reviewer.api.pagination import check_params, keyset_page, list_param, since_param
from reviewer.models import Document
from reviewer.selectors.documents import chunk_list, document_get, document_list
from reviewer.services.documents import (
    DocumentRejected,
    document_upload,
    documents_fail_stale,
)

__all__ = ["document_chunks", "document_data", "document_detail", "documents"]

UPLOAD_FIELDS = ("title", "document_key", "supersedes", "filename", "ocr_language")


def document_data(document: Document) -> dict[str, Any]:
    chunk_count = getattr(document, "chunk_count", None)
    if chunk_count is None:
        chunk_count = document.chunks.count()
    return {
        "id": document.pk,
        "title": document.title,
        "document_key": document.document_key or None,
        "version": document.version,
        "status": document.status,
        "error_kind": document.error_kind or None,
        "error": document.error or None,
        "sha256": document.sha256,
        "size_bytes": document.size_bytes,
        "page_count": document.page_count,
        "chunk_count": chunk_count,
        "supersedes": document.supersedes_id,
        "superseded_by": document.superseded_by_id,
        "created_at": document.created.isoformat(),
        "ocr_language": document.ocr_language or None,
        "progress": document.progress or None,
        "ocr": _ocr_data(document),
    }


def _ocr_data(document: Document) -> dict[str, Any] | None:
    """Which pages' text came from OCR and how sure it was; None when none did."""
    if not document.ocr_pages:
        return None
    return {"language": document.ocr_language, "mean_confidence": document.ocr_confidence,
            "pages": document.ocr_pages, "summary": document.ocr_summary}


def _get(request: HttpRequest, document_id: int) -> Document:
    documents_fail_stale()  # checked when read: a stuck ingestion reads failed, with why
    # Another workspace's document is answered exactly as a missing one.
    document = document_get(document_id, workspaces=[_workspace(request)])
    if document is None:
        raise ApiError(404, "not-found", f"There is no document {document_id}.")
    return document


def _workspace(request: HttpRequest) -> int:
    """The workspace of the request's token: the only documents it sees."""
    return int(request.client.workspace_id)  # type: ignore[attr-defined]


@api_endpoint("GET", "POST")
def documents(request: HttpRequest) -> JsonResponse:
    return _list(request) if request.method == "GET" else _upload(request)


def _list(request: HttpRequest) -> JsonResponse:
    """Documents, newest first: ``q`` (an id, part of a title or key, a SHA-256
    prefix), ``status``, ``document_key``, ``current`` and ``since``."""
    check_params(request, ("q", "status", "document_key", "current", "since"))
    current_raw = request.GET.get("current", "")
    if current_raw not in ("", "true", "false"):
        raise ApiError(400, "invalid-current", "current must be 'true' (the latest versions) "
                       "or 'false' (superseded ones).")
    queryset = document_list(
        q=request.GET.get("q", ""),
        statuses=list_param(request, "status", choices=Document.Status.values),
        document_key=request.GET.get("document_key", "").strip(),
        since=since_param(request),
        current={"": None, "true": True, "false": False}[current_raw],
        workspaces=[_workspace(request)],
    )
    rows, next_cursor, next_url = keyset_page(queryset, request, kind="documents")
    return JsonResponse({"results": [document_data(d) for d in rows],
                         "next_cursor": next_cursor, "next": next_url})


def _upload(request: HttpRequest) -> JsonResponse:
    """Upload a PDF: multipart field ``file`` (with optional ``title``,
    ``document_key`` and ``supersedes``), or the raw bytes with
    ``Content-Type: application/pdf`` and those fields (and ``filename``) in
    the query string."""
    limit = int(settings.CITEGUARD["MAX_UPLOAD_BYTES"])
    length = int(request.headers.get("Content-Length") or 0)
    if length > limit + 64 * 1024:  # multipart framing adds a little
        raise ApiError(413, "payload-too-large",
                       f"The upload is {length} bytes; the limit is {limit} bytes.")
    if request.content_type == "application/pdf":
        check_params(request, UPLOAD_FIELDS)
        # Read the stream itself: request.body stops at Django's 5 MB form limit.
        data, filename = request.read(limit + 1), request.GET.get("filename", "upload.pdf")
        if len(data) > limit:
            raise ApiError(413, "payload-too-large",
                           f"The upload is over the limit of {limit} bytes.")
        fields = request.GET
    elif "file" in request.FILES:
        upload = request.FILES["file"]
        if upload.size is not None and upload.size > limit:
            raise ApiError(413, "payload-too-large",
                           f"The file is {upload.size} bytes; the limit is {limit} bytes.")
        data, filename = upload.read(), upload.name or "upload.pdf"
        fields = request.POST
        unknown = sorted(set(fields) - set(UPLOAD_FIELDS))
        if unknown:
            raise ApiError(400, "unknown-field", f"Unknown field {unknown[0]!r}; an upload "
                           "takes file, title, document_key, supersedes and ocr_language.")
    else:
        raise ApiError(400, "no-file", "Send the PDF as multipart field 'file', or as the body "
                       "with 'Content-Type: application/pdf'.")
    if not data:
        raise ApiError(400, "empty-file", "The uploaded file is empty.")
    supersedes = None
    if fields.get("supersedes"):
        raw = fields["supersedes"].strip()
        if not (raw.isascii() and raw.isdigit() and len(raw) < 19):
            raise ApiError(400, "invalid-supersedes", "'supersedes' must be a document id.")
        supersedes = (Document.objects.in_workspace(_workspace(request))
                      .defer("text", "furniture").filter(pk=int(raw)).first())
        if supersedes is None:
            raise ApiError(400, "invalid-supersedes",
                           f"'supersedes' names document {raw}, which does not exist.")
    try:
        result = document_upload(data=data, filename=filename, title=fields.get("title", ""),
                                 supersedes=supersedes,
                                 document_key=fields.get("document_key", ""),
                                 ocr_language=fields.get("ocr_language", ""),
                                 workspace=request.client.workspace)  # type: ignore[attr-defined]
    except DocumentRejected as error:
        raise ApiError(error.status, error.code, str(error)) from None
    document = _get(request, result.document.pk)  # as stored now: ingestion may have run already
    status = 200 if not result.created else 201 if document.status in (
        Document.Status.READY, Document.Status.FAILED) else 202
    response = JsonResponse(
        {**document_data(document), "created": result.created, "message": result.message},
        status=status)
    response["Location"] = f"/api/v1/documents/{document.pk}"
    return response


@api_endpoint("GET")
def document_detail(request: HttpRequest, document_id: int) -> JsonResponse:
    return JsonResponse(document_data(_get(request, document_id)))


CHUNK_LIMIT = 100
CHUNK_MAX_LIMIT = 500


@api_endpoint("GET")
def document_chunks(request: HttpRequest, document_id: int) -> JsonResponse:
    """The chunks to inject, in order and a page at a time, with ``text``
    (exactly ``document.text[start:end]``) and ``prompt_text`` (the same with
    running headers and page numbers blanked)."""
    check_params(request, ())
    document = (Document.objects.in_workspace(_workspace(request)).defer("text")
                .filter(pk=document_id).first())
    if document is None:
        raise ApiError(404, "not-found", f"There is no document {document_id}.")
    if document.status != Document.Status.READY:
        raise ApiError(409, "not-ready",
                       f"Document {document.pk} is {document.status}; chunks exist once it is "
                       "ready.")
    chunks, next_cursor, next_url = keyset_page(
        chunk_list(document=document), request, kind="chunks", key="index", descending=False,
        default_limit=CHUNK_LIMIT, max_limit=CHUNK_MAX_LIMIT)
    furniture = document.furniture
    return JsonResponse({
        "document": document.pk,
        "chunk_count": document.chunks.count(),
        "results": [
            {
                "id": chunk.pk, "index": chunk.index, "start": chunk.start, "end": chunk.end,
                "page_first": chunk.page_first, "page_last": chunk.page_last,
                "text": chunk.text, "prompt_text": _blank(chunk.text, chunk.start, furniture),
            }
            for chunk in chunks
        ],
        "next_cursor": next_cursor, "next": next_url,
    })


def _blank(text: str, offset: int, furniture: list[list[int]]) -> str:
    """``text`` with furniture ranges replaced by spaces (offsets unchanged)."""
    chars = list(text)
    for start, end in furniture:
        for index in range(max(start, offset), min(end, offset + len(text))):
            if chars[index - offset] not in "\n\f":
                chars[index - offset] = " "
    return "".join(chars)
