"""Hostile PDFs end with a clear status within their limit, in a child
process whose memory is capped, and the process that asked carries on.

Limits are smaller than production's so each case takes a second or two; the
full-size shapes (20 million glyphs, 2,000 dense pages, 1 GiB inflate) run
in bench/ingest_sandbox.py. Each case prints the child's peak memory.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reviewer.ingestion import ExtractionError, extract_pdf
from reviewer.ingestion.sandbox import extract_pdf_isolated, run_isolated
from tests.figures import figure
from tests.ingestion import hostile

_MIB = 1024 * 1024
# What the tests allow: a 1 GiB address space (the interpreter and MuPDF map
# about 520 MiB of it before reading anything), 50,000 characters a page.
LIMITS = {"max_seconds": 30.0, "max_page_chars": 50_000, "max_memory_bytes": 1024 * _MIB}

CASES: dict[str, tuple[Callable[[], bytes], str, str]] = {
    # name: (build, status or error kind, words the sentence must hold)
    "glyph bomb": (lambda: hostile.glyph_bomb(1_000_000), "page-chars",
                   "Page 1 of this PDF holds 1,010,000 characters; the limit is 50,000"),
    "dense 2,000 pages": (lambda: hostile.dense_pages(2000, lines=2, chars=40), "ready", ""),
    "1 GiB inflate": (lambda: hostile.inflate_bomb(1024**3), "memory",
                      "memory limit of 1,024 MiB (stopped at page 1 of 1)"),
    "JavaScript": (hostile.javascript, "ready", ""),
    "truncated": (hostile.truncated, "corrupt", "damaged"),
    "encrypted": (hostile.encrypted, "encrypted", "encrypted"),
    "zero bytes": (hostile.zero_bytes, "not-pdf", "not a PDF"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_pdf_ends_with_a_clear_status_in_a_capped_child(name: str) -> None:
    build, expected, words = CASES[name]
    outcome = run_isolated(build(), **LIMITS)  # type: ignore[arg-type]
    status = outcome.error.kind if outcome.error else "ready"
    figure(f"\n{name}: {status} in {outcome.seconds:.2f} s, "
          f"child peak {outcome.peak_bytes / _MIB:,.0f} MiB")
    assert status == expected, outcome.error and outcome.error.message
    if outcome.error:
        assert words in outcome.error.message
    else:
        assert outcome.document is not None and outcome.document.page_count >= 1
        outcome.document.geometry.close()
    # Under the memory limit whatever happened (0: the child died unmeasured).
    assert outcome.peak_bytes < LIMITS["max_memory_bytes"]


def test_the_wall_clock_limit_kills_a_child_stuck_inside_one_page() -> None:
    # 3 million glyphs take MuPDF seconds to lay out, all in one C call
    # where no Python clock runs; the parent kills the child at its limit.
    data = hostile.glyph_bomb(3_000_000)
    outcome = run_isolated(data, max_seconds=0.2, grace_seconds=0.3,
                           max_page_chars=10_000_000)
    assert outcome.error is not None and outcome.error.kind == "timeout"
    assert "longer than 0.2 seconds (stopped at page 1 of 1)" in outcome.error.message


def test_the_clock_is_read_inside_a_page() -> None:
    # In-process (no sandbox to kill it): a page of 4,000 lines stops on the
    # clock between its lines, not only before the next page.
    data = hostile.dense_pages(1, lines=4000, chars=20)
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, max_seconds=0.0)
    assert caught.value.kind == "timeout"
    assert "(stopped at page 1 of 1)" in caught.value.message


def test_document_characters_are_limited() -> None:
    data = hostile.dense_pages(10, lines=10, chars=100)
    with pytest.raises(ExtractionError) as caught:
        extract_pdf_isolated(data, max_document_chars=5_000)
    assert caught.value.kind == "document-chars"
    assert "more than 5,000 characters" in caught.value.message
    assert "reached at page 5 of 10" in caught.value.message


def test_sandbox_gives_the_same_document_as_in_process() -> None:
    data = hostile.dense_pages(3, lines=20, chars=80)
    inside = extract_pdf(data)
    isolated = extract_pdf_isolated(data)
    assert isolated.text == inside.text
    assert isolated.to_bytes() == inside.to_bytes()
    assert isolated.lines is not None and inside.lines is not None
    assert list(isolated.lines.starts) == list(inside.lines.starts)
