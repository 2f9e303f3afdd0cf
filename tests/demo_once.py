"""The demo's PDFs built and read once a test run, not once a test.

About 160 tests a pass (every browser test, and the reviewer tests that
start from the demo) run ``load_demo`` on a flushed database. Each load built
the demo's PDFs again (PyMuPDF measuring every word it wraps) and read each
in a sandboxed child process: most of the load, and minutes of every CI run,
for bytes and text that are the same every time.

So, for the run:

- each demo builder is called once and its bytes kept;
- a sandboxed extraction of exactly those bytes, with the same limits and
  OCR options, is done once for real, and later ones get a new document
  rebuilt from what the child sent (the geometry is serialised and read back
  each time, as it is when it arrives through the pipe, so nothing is shared
  between documents).

Any other PDF, and any demo PDF read with other limits (a test that lowers
one) or another OCR command, goes to the sandbox as always. The reading
itself is tested where it is the subject: tests/ingestion, and
tests/reviewer/test_documents.py and test_ocr_documents.py on PDFs of their
own.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

# (sha256, limits and OCR options) -> (text, geometry bytes, lines, OCR report)
_Key = tuple[str, tuple[tuple[str, Any], ...]]
_Read = tuple[str, bytes, Any, Any]


def _built_once(build: Callable[[], bytes], digests: set[str]) -> Callable[[], bytes]:
    kept: list[bytes] = []

    def build_once() -> bytes:
        if not kept:
            data = build()
            digests.add(hashlib.sha256(data).hexdigest())
            kept.append(data)
        return kept[0]

    return build_once


def _read_once(extract: Callable[..., Any], digests: set[str]) -> Callable[..., Any]:
    from reviewer.ingestion.extract import ExtractedDocument
    from reviewer.ingestion.geometry import DocumentGeometry

    read: dict[_Key, _Read] = {}

    def extract_once(data: bytes, **options: Any) -> Any:
        digest = hashlib.sha256(data).hexdigest()
        if digest not in digests:
            return extract(data, **options)
        key = (digest, tuple(sorted((name, value) for name, value in options.items()
                                    if name != "on_progress")))
        if key not in read:
            document = extract(data, **options)
            read[key] = (document.text, document.geometry.to_bytes(), document.lines,
                         document.ocr)
            return document
        text, geometry, lines, ocr = read[key]
        return ExtractedDocument(text=text, geometry=DocumentGeometry.from_bytes(geometry),
                                 lines=lines, ocr=ocr)

    return extract_once


@pytest.fixture(scope="session", autouse=True)
def demo_built_and_read_once() -> Iterator[None]:
    from reviewer import demo
    from reviewer.services import documents

    digests: set[str] = set()
    with pytest.MonkeyPatch.context() as patch:
        for key, (title, build) in list(demo.DOCUMENTS.items()):
            patch.setitem(demo.DOCUMENTS, key, (title, _built_once(build, digests)))
        patch.setattr(documents, "extract_pdf_isolated",
                      _read_once(documents.extract_pdf_isolated, digests))
        yield
