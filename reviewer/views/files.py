"""A stored file as an HTTP response that honours a byte range.

pdf.js asks for the parts of a PDF it needs (the cross-reference table at
the end, then each page's objects) when the server says ``Accept-Ranges:
bytes``; a 400-page PDF then opens at its cited page without its whole
download. One range per request (what pdf.js sends); a request for several
gets the whole file, as RFC 9110 allows. Files here never change once stored
(a document's file is named by its SHA-256), so the ETag is that digest, and
a range asked ``If-Range`` another version gets the whole file.
"""

from __future__ import annotations

import re

from django.core.files import File
from django.http import FileResponse, HttpRequest, HttpResponse, StreamingHttpResponse

from reviewer.storage import iter_range

__all__ = ["file_response"]

_RANGE = re.compile(r"^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$")


def _requested_range(header: str, size: int) -> tuple[int, int] | str | None:
    """(first, last) byte of a single satisfiable range, None to send the
    whole file (no range, several, or one this parser does not take), or
    "unsatisfiable"."""
    match = _RANGE.match(header)
    if not match:
        return None
    first, last = match.groups()
    if not first and not last:
        return None
    if not first:  # a suffix: the last N bytes
        length = int(last)
        if length == 0:
            return "unsatisfiable"
        return max(0, size - length), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    if start >= size:
        return "unsatisfiable"
    if end < start:
        return None  # invalid: ignored, as RFC 9110 says
    return start, end


def file_response(request: HttpRequest, file: File, *, etag: str, content_type: str,
                  filename: str) -> HttpResponse:
    """``file`` (from storage) whole (200), one byte range of it (206), 304
    when the client holds this version, or 416 for a range past its end."""
    quoted = f'"{etag}"'
    size = file.size
    headers = {"Accept-Ranges": "bytes", "ETag": quoted,
               # Checked with the server each time (the permission may change);
               # the ETag makes that a 304 when nothing did.
               "Cache-Control": "private, no-cache",
               "Content-Disposition": f'inline; filename="{filename}"',
               "X-Content-Type-Options": "nosniff"}
    response: HttpResponse
    if quoted in [tag.strip() for tag in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponse(status=304)
        for name in ("ETag", "Cache-Control"):
            response[name] = headers[name]
        return response
    wanted = None
    if "Range" in request.headers and request.headers.get("If-Range", quoted) == quoted:
        wanted = _requested_range(request.headers["Range"], size)
    if wanted == "unsatisfiable":
        response = HttpResponse(status=416)
        response["Content-Range"] = f"bytes */{size}"
        response["Accept-Ranges"] = "bytes"
        return response
    if isinstance(wanted, tuple):
        first, last = wanted
        response = StreamingHttpResponse(
            iter_range(file.storage, file.name, first, last - first + 1), status=206,
            content_type=content_type)
        response["Content-Range"] = f"bytes {first}-{last}/{size}"
        response["Content-Length"] = str(last - first + 1)
    else:
        response = FileResponse(file.open("rb"), content_type=content_type)
    for name, value in headers.items():
        response[name] = value
    return response
