"""The documents pages: a searchable, paginated list with upload (progress,
versions by document key or supersedes) and self-updating status rows; and
one document's page with its PDF and its chunks."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import Document
from reviewer.selectors.documents import (
    chunk_list,
    document_get,
    document_list,
    document_versions,
)
from reviewer.selectors.workspaces import documents_visible, upload_workspace, workspaces_of
from reviewer.services.documents import (
    DocumentRejected,
    document_upload,
    documents_fail_stale,
    ocr_languages,
)
from reviewer.views.base import HtmxHttpRequest, permission_required

DOCUMENTS_PER_PAGE = 50
CHUNKS_PER_PAGE = 25


def _list_context(request: HtmxHttpRequest) -> dict[str, object]:
    documents_fail_stale()  # checked when read: a stuck ingestion shows failed, with why
    q = request.GET.get("q", "").strip()
    page = Paginator(document_list(q=q, workspaces=workspaces_of(request.user)),
                     DOCUMENTS_PER_PAGE).get_page(request.GET.get("page"))
    return {"page": page, "documents": page.object_list, "q": q,
            "ocr_languages": ocr_languages(),
            "ocr_default": settings.CITEGUARD["OCR_LANGUAGE"]}


@require_GET
@permission_required("reviewer.view_document")
def documents(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "reviewer/documents.html", _list_context(request))


def _upload_message(request: HtmxHttpRequest, text: str, *, status: int,
                    error: bool, document: Document | None = None) -> HttpResponse:
    """The upload form's message (an error, or "already uploaded"), in place
    under the form for htmx, or on the documents page otherwise."""
    context = {"upload_message": text, "upload_error": error, "upload_document": document}
    if request.htmx:
        response = render(request, "reviewer/documents.html#upload-message", context,
                          status=status)
        response["HX-Retarget"] = "#upload-message"
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, "reviewer/documents.html", {**_list_context(request), **context},
                  status=status)


@require_POST
@permission_required("reviewer.add_document")
def document_upload_view(request: HtmxHttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    limit = int(settings.CITEGUARD["MAX_UPLOAD_BYTES"])
    if upload is None:
        return _upload_message(request, "Choose a PDF file to upload.", status=400, error=True)
    if upload.size is not None and upload.size > limit:
        return _upload_message(
            request, f"This file is {upload.size / 1e6:.1f} MB; the limit is "
            f"{limit / 1e6:.1f} MB.", status=400, error=True)
    workspace = upload_workspace(request.user)
    if workspace is None:
        return _upload_message(request, "You are in no workspace, so an upload would be seen "
                               "by no one you work with: ask an admin to add you to one.",
                               status=403, error=True)
    supersedes = None
    raw = request.POST.get("supersedes", "").strip().removeprefix("#")
    if raw:
        if raw.isascii() and raw.isdigit() and len(raw) < 19:
            supersedes = (Document.objects.in_workspace(workspace)
                          .defer("text", "furniture").filter(pk=int(raw)).first())
        if supersedes is None:
            return _upload_message(request, f"“Supersedes” names document {raw}, which does "
                                   "not exist: give the id of the document this one replaces.",
                                   status=400, error=True)
    try:
        result = document_upload(data=upload.read(), filename=upload.name or "upload.pdf",
                                 title=request.POST.get("title", ""), supersedes=supersedes,
                                 document_key=request.POST.get("document_key", ""),
                                 ocr_language=request.POST.get("ocr_language", ""),
                                 workspace=workspace)
    except DocumentRejected as rejected:
        return _upload_message(request, str(rejected), status=rejected.status, error=True)
    if not result.created:
        return _upload_message(request, result.message, status=200, error=False,
                               document=result.document)
    if request.htmx:
        return render(request, "reviewer/documents.html#document-row",
                      {"document": document_get(result.document.pk)})
    messages.success(request, result.message)
    return redirect("reviewer:documents")


@require_GET
@permission_required("reviewer.view_document")
def document_row(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    documents_fail_stale()
    document = document_get(document_id, workspaces=workspaces_of(request.user))
    if document is None:
        raise Http404("No such document.")
    return render(request, "reviewer/documents.html#document-row", {"document": document})


@require_GET
@permission_required("reviewer.view_document")
def document_detail(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    document = document_get(document_id, workspaces=workspaces_of(request.user))
    if document is None:
        raise Http404("No such document.")
    chunks = Paginator(chunk_list(document=document).only(
        "pk", "index", "start", "end", "page_first", "page_last", "text"), CHUNKS_PER_PAGE
    ).get_page(request.GET.get("page"))
    newer = (documents_visible(Document.objects.filter(supersedes=document), request.user)
             .exclude(status=Document.Status.FAILED)
             .only("pk", "version", "status").order_by("pk").first())
    return render(request, "reviewer/document.html", {
        "document": document,
        "chunks": chunks,
        "versions": document_versions(document),
        "pending_version": None if document.superseded_by_id else newer,
        "file_url": reverse("reviewer:document-file", args=[document.pk])
        if document.file else None,
    })
