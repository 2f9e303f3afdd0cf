"""A long PDF opens at its cited page by byte ranges: pdf.js reads its end
and the objects of the pages it draws, not the whole file (counted on the
server, which sees what was actually read from storage).

The PDF keeps its page objects in object streams, as Word, LaTeX and most
PDF 1.5+ writers do. One that writes each page's objects beside its content
(no object streams, not linearized) is read nearly whole all the same: to lay
out its pages pdf.js's viewer reads every page's dictionary, and each lies in
another chunk."""

from __future__ import annotations

import random
from typing import Any

import pymupdf
import pytest
from django.core.files.storage import FileSystemStorage

from reviewer.models import CitationVerdict
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

PAGES = 400
CITED_PAGE = 350


def _long_pdf() -> bytes:
    """400 pages of text, each with a photograph-like picture (noise: it does
    not compress), as scanned and illustrated PDFs are: about 12 MB."""
    rng = random.Random(400)
    doc = pymupdf.open()
    for number in range(1, PAGES + 1):
        page = doc.new_page()
        lines = [f"Page {number}, clause {k}: the tenant keeps the premises in good repair "
                 f"and returns them as found, fair wear excepted ({number}.{k})."
                 for k in range(20)]
        page.insert_textbox(pymupdf.Rect(50, 50, 560, 400), "\n".join(lines), fontsize=8)
        picture = pymupdf.Pixmap(pymupdf.csRGB, 100, 100, rng.randbytes(100 * 100 * 3), False)
        page.insert_image(pymupdf.Rect(50, 420, 250, 620), pixmap=picture)
    return bytes(doc.tobytes(garbage=1, deflate=True, use_objstms=1))


class _Counted:
    """A file that adds what is read from it to ``served[slot]``."""

    def __init__(self, file: Any, served: list[int], slot: int) -> None:
        self._file, self._served, self._slot = file, served, slot

    def read(self, size: int = -1) -> bytes:
        data = self._file.read(size)
        self._served[self._slot] += len(data)
        return data

    def __getattr__(self, name: str) -> Any:
        return getattr(self._file, name)


def _long_answer() -> tuple[bytes, Any]:
    """The long PDF ingested, and an answer quoting its page CITED_PAGE."""
    from reviewer.services.answers import answer_submit
    from reviewer.services.documents import document_ingest, document_upload

    data = _long_pdf()
    uploaded = document_upload(data=data, filename="lease-400.pdf", title="A long lease")
    document = document_ingest(document_id=uploaded.document.pk)
    assert document.status == "ready", document.error
    quote = f"Page {CITED_PAGE}, clause 7: the tenant keeps the premises in good repair"
    at = document.text.index(quote)
    submitted = answer_submit(client=None, data={
        "id": "long-pdf", "answer": f'The lease says "{quote}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk, "start": at - 500,
                     "end": at + 1500}]})
    citation = CitationVerdict.objects.get(answer=submitted.answer)
    assert citation.outcome == "verified"
    assert [p["page"] for p in citation.pages] == [CITED_PAGE]
    return data, submitted.answer


def test_a_400_page_pdf_opens_at_its_cited_page_reading_a_small_part_of_it(
        page: Any, live_server: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    data, answer = _long_answer()

    # What the server read from storage for this file, request by request:
    # each read is handed to the connection, which stops when the browser
    # stops reading (pdf.js cancels its first, whole-file request once it
    # knows the server takes ranges).
    served: list[int] = []
    storage_open = FileSystemStorage._open

    def counting_open(self: Any, name: str, mode: str = "rb") -> Any:
        handle = storage_open(self, name, mode)
        if not name.endswith(".pdf"):
            return handle
        served.append(0)
        handle.file = _Counted(handle.file, served, len(served) - 1)
        return handle

    monkeypatch.setattr(FileSystemStorage, "_open", counting_open)

    page.goto(f"{live_server.url}/answers/{answer.pk}/?sentence=0")
    page.wait_for_selector(f"#pdf-viewer .page[data-page-number='{CITED_PAGE}'] .cg-highlight")
    page.wait_for_timeout(500)  # anything still in flight lands
    total = sum(served)
    print(f"\n{len(data):,}-byte PDF of {PAGES} pages: {total:,} bytes read from storage "
          f"({total / len(data):.1%}) in {len(served)} opens")
    assert total < len(data) / 4


def test_a_part_of_the_pdf_that_does_not_load_is_said_not_waited_for(
        page: Any, live_server: Any) -> None:
    """Ranges past the first answer 503 (a store gone mid-read): the viewer
    tries each three times, then says so, where pdf.js alone would wait."""
    _, answer = _long_answer()
    failed: list[str] = []

    def refuse_later_ranges(route: Any) -> None:
        wanted = route.request.headers.get("range", "")
        if wanted and not wanted.startswith("bytes=0-"):
            failed.append(wanted)
            route.fulfill(status=503, body="store unavailable")
        else:
            route.continue_()

    page.route("**/documents/*/file", refuse_later_ranges)
    page.goto(f"{live_server.url}/answers/{answer.pk}/?sentence=0")
    error = page.locator("#pdf-viewer .cg-viewer-error, .cg-viewer-error")
    error.first.wait_for(timeout=20_000)
    text = error.first.inner_text()
    assert "Part of this PDF could not be loaded" in text and "503" in text, text
    assert len(failed) >= 3  # tried again before giving up
