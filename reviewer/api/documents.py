"""Document endpoints: upload, status, and chunk listing (for services that
ingest through citeguard and inject its chunk ids)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, JsonResponse

from reviewer.api.base import ApiError, api_endpoint
from reviewer.models import Document
from reviewer.selectors.documents import chunk_list
from reviewer.services.documents import document_upload

__all__ = ["document_chunks", "document_detail", "documents"]


def document_data(document: Document) -> dict[str, Any]:
    return {
        "id": document.pk,
        "title": document.title,
        "status": document.status,
        "error_kind": document.error_kind or None,
        "error": document.error or None,
        "sha256": document.sha256,
        "pages": document.page_count,
        "supersedes": document.supersedes_id,
        "superseded_by": document.superseded_by_id,
        "created": document.created.isoformat(),
    }


def _get(document_id: int) -> Document:
    document = Document.objects.defer("text").filter(pk=document_id).first()
    if document is None:
        raise ApiError(404, "not-found", f"There is no document {document_id}.")
    return document


@api_endpoint("POST")
def documents(request: HttpRequest) -> JsonResponse:
    """Upload a PDF: multipart field ``file`` (with optional ``title`` and
    ``supersedes``), or the raw bytes with ``Content-Type: application/pdf``."""
    limit = int(settings.CITEGUARD["MAX_UPLOAD_BYTES"])
    length = int(request.headers.get("Content-Length") or 0)
    if length > limit + 64 * 1024:  # multipart framing adds a little
        raise ApiError(413, "payload-too-large",
                       f"The upload is {length} bytes; the limit is {limit} bytes.")
    if request.content_type == "application/pdf":
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
    else:
        raise ApiError(400, "no-file", "Send the PDF as multipart field 'file', or as the body "
                       "with 'Content-Type: application/pdf'.")
    if not data:
        raise ApiError(400, "empty-file", "The uploaded file is empty.")
    supersedes = None
    if fields.get("supersedes"):
        try:
            supersedes = _get(int(fields["supersedes"]))
        except ValueError:
            raise ApiError(400, "invalid-supersedes",
                           "'supersedes' must be a document id.") from None
    result = document_upload(data=data, filename=filename, title=fields.get("title", ""),
                             supersedes=supersedes)
    document = result.document
    document.refresh_from_db(fields=["status", "error", "error_kind", "page_count"])
    status = 200 if not result.created else 201 if document.status in (
        Document.Status.READY, Document.Status.FAILED) else 202
    response = JsonResponse({**document_data(document), "created": result.created},
                            status=status)
    response["Location"] = f"/api/v1/documents/{document.pk}"
    return response


@api_endpoint("GET")
def document_detail(request: HttpRequest, document_id: int) -> JsonResponse:
    return JsonResponse(document_data(_get(document_id)))


@api_endpoint("GET")
def document_chunks(request: HttpRequest, document_id: int) -> JsonResponse:
    """The chunks to inject, with ``text`` (exactly ``document.text[start:end]``)
    and ``prompt_text`` (the same with running headers and page numbers blanked)."""
    document = _get(document_id)
    if document.status != Document.Status.READY:
        raise ApiError(409, "not-ready",
                       f"Document {document.pk} is {document.status}; chunks exist once it is "
                       "ready.")
    chunks = list(chunk_list(document=document))
    furniture = document.furniture
    return JsonResponse({
        "document": document.pk,
        "chunks": [
            {
                "id": chunk.pk, "index": chunk.index, "start": chunk.start, "end": chunk.end,
                "pages": [chunk.page_first, chunk.page_last], "text": chunk.text,
                "prompt_text": _blank(chunk.text, chunk.start, furniture),
            }
            for chunk in chunks
        ],
    })


def _blank(text: str, offset: int, furniture: list[list[int]]) -> str:
    """``text`` with furniture ranges replaced by spaces (offsets unchanged)."""
    chars = list(text)
    for start, end in furniture:
        for index in range(max(start, offset), min(end, offset + len(text))):
            if chars[index - offset] not in "\n\f":
                chars[index - offset] = " "
    return "".join(chars)
