"""The documents page: upload with progress, and ingestion status that updates itself."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import Document
from reviewer.selectors.documents import document_list
from reviewer.services.documents import document_upload
from reviewer.views.base import HtmxHttpRequest


@require_GET
@login_required
def documents(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "reviewer/documents.html", {"documents": document_list()[:200]})


@require_POST
@login_required
def document_upload_view(request: HtmxHttpRequest) -> HttpResponse:
    upload = request.FILES.get("file")
    limit = int(settings.CITEGUARD["MAX_UPLOAD_BYTES"])
    error = None
    if upload is None:
        error = "Choose a PDF file to upload."
    elif upload.size is not None and upload.size > limit:
        error = f"This file is {upload.size / 1e6:.1f} MB; the limit is {limit / 1e6:.1f} MB."
    if error:
        if request.htmx:
            response = render(request, "reviewer/documents.html#upload-error",
                              {"upload_error": error}, status=400)
            response["HX-Retarget"] = "#upload-error"
            response["HX-Reswap"] = "innerHTML"
            return response
        return render(request, "reviewer/documents.html",
                      {"documents": document_list()[:200], "upload_error": error}, status=400)
    assert upload is not None
    result = document_upload(data=upload.read(), filename=upload.name or "upload.pdf",
                             title=request.POST.get("title", ""))
    document = Document.objects.defer("text").get(pk=result.document.pk)
    if request.htmx:
        return render(request, "reviewer/documents.html#document-row", {"document": document})
    return redirect("reviewer:documents")


@require_GET
@login_required
def document_row(request: HtmxHttpRequest, document_id: int) -> HttpResponse:
    document = get_object_or_404(Document.objects.defer("text"), pk=document_id)
    return render(request, "reviewer/documents.html#document-row", {"document": document})
