"""bench/generalise.py hands the verifier a chunk as the reviewer does: with
the pages OCR read as ranges of the chunk's own text, and none for a page
with a text layer."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from bench.generalise import ocr_ranges


def ingested(ocr_pages: list[int]) -> Any:
    pages = [SimpleNamespace(number=1, text_start=0, text_end=100),
             SimpleNamespace(number=2, text_start=103, text_end=200)]
    ocr = SimpleNamespace(pages=[SimpleNamespace(number=n) for n in ocr_pages]) if ocr_pages \
        else None
    return SimpleNamespace(doc=SimpleNamespace(pages=pages, ocr=ocr))


def test_the_pages_ocr_read_are_ranges_of_the_chunks_text() -> None:
    assert ocr_ranges(ingested([2]), 50, 100) == ((53, 100),)
    assert ocr_ranges(ingested([1, 2]), 50, 100) == ((0, 50), (53, 100))


def test_a_document_ocr_never_read_gives_none() -> None:
    assert ocr_ranges(ingested([]), 0, 200) == ()
    assert ocr_ranges(ingested([2]), 0, 90) == ()
