"""The labels page: each surface's label counts with CSV/JSONL exports, and
for supervisors an import whose report (counts, bad rows by line) shows on
the page. The import is a plain form post: a rare, heavy action whose
result changes the counts above it too."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import Surface
from reviewer.selectors.label_io import EXPORT_COLUMNS, label_counts, label_export_rows
from reviewer.services import label_io
from reviewer.services.label_io import (
    FORMATS,
    ImportReport,
    LabelImportRefused,
    labels_import,
    size_check,
)
from reviewer.views.base import HtmxHttpRequest, export_response, permission_required

#: File name endings that say which format a file is in.
EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl"}


def _page(request: HtmxHttpRequest, *, report: ImportReport | None = None,
          filename: str = "", error: str = "", status: int = 200) -> HttpResponse:
    return render(request, "reviewer/labels.html", {
        "surfaces": label_counts(), "formats": FORMATS,
        "can_import": request.user.has_perm("reviewer.change_surface"),
        "limits": label_io.DEFAULT_LIMITS,
        "report": report, "filename": filename, "import_error": error,
    }, status=status)


@require_GET
@permission_required("reviewer.view_surface", every_workspace=True)
def labels(request: HtmxHttpRequest) -> HttpResponse:
    return _page(request)


@require_GET
@permission_required("reviewer.view_surface", every_workspace=True)
def labels_export(request: HtmxHttpRequest) -> HttpResponse:
    """Every label (``surface=<name>``: of that surface) as ``format=csv`` or
    ``jsonl``, streamed."""
    kind = request.GET.get("format", "csv")
    if kind not in FORMATS:
        return HttpResponse("format must be csv or jsonl\n", status=400,
                            content_type="text/plain")
    surface = None
    name = request.GET.get("surface", "")
    if name:
        surface = Surface.objects.filter(name=name).first()
        if surface is None:
            return HttpResponse(f"There is no surface {name!r}.\n", status=404,
                                content_type="text/plain; charset=utf-8")
    # A surface's name is a slug: safe in a header as it is.
    whose = surface.name if surface is not None else "all"
    return export_response(kind, EXPORT_COLUMNS, label_export_rows(surface),
                           f"citeguard-labels-{whose}")


def _format(chosen: str, filename: str) -> str | None:
    if chosen in FORMATS:
        return chosen
    if chosen not in ("", "auto"):
        return None
    ending = "." + filename.rpartition(".")[2].lower() if "." in filename else ""
    return EXTENSIONS.get(ending)


@require_POST
@permission_required("reviewer.view_surface", "reviewer.change_surface", every_workspace=True)
def labels_import_view(request: HtmxHttpRequest) -> HttpResponse:
    """Import the uploaded ``file`` (``format``: csv, jsonl, or auto — by the
    file name's ending) and show its report on the page."""
    upload = request.FILES.get("file")
    if upload is None:
        return _page(request, error="Choose a CSV or JSONL file of labels to import.",
                     status=400)
    filename = upload.name or ""
    chosen = request.POST.get("format", "auto")
    fmt = _format(chosen, filename)
    if fmt is None:
        message = (f"The format must be CSV or JSONL, not {chosen!r}." if chosen not in
                   ("", "auto") else f"Cannot tell the format of {filename!r} from its name: "
                   "it should end in .csv or .jsonl. Choose the format and import it again.")
        return _page(request, filename=filename, error=message, status=400)
    try:
        if upload.size is not None:
            size_check(upload.size)  # before reading it into memory
        report = labels_import(data=upload.read(), fmt=fmt, imported_by=request.user)
    except LabelImportRefused as refused:
        return _page(request, filename=filename, error=str(refused), status=400)
    return _page(request, report=report, filename=filename)

