"""Sandboxed ingestion: the same output as in-process, what the child costs,
and what hostile PDFs do at production limits.

Run from the repository root::

    .venv/bin/python bench/ingest_sandbox.py              # corpus, then the hostile table
    .venv/bin/python bench/ingest_sandbox.py --skip corpus
    .venv/bin/python bench/ingest_sandbox.py --skip hostile

1. Every PDF in ``../shared/corpus/pdfs`` is extracted in-process
   (``extract_pdf``) and through the sandbox (``extract_pdf_isolated``), side
   by side: text, stored geometry and margin lines must be byte-identical
   (or the same error, kind and sentence); the time of each and the child's
   overhead are printed.
2. The hostile shapes of tests/ingestion/hostile.py at full size and the
   production limits (2 GiB address space, 200,000 characters a page,
   10 million a document, 300 s): status, time, the child's peak memory and
   the sentence a reviewer reads.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from reviewer.ingestion import ExtractedDocument, ExtractionError, extract_pdf  # noqa: E402
from reviewer.ingestion.sandbox import run_isolated  # noqa: E402
from tests.ingestion import hostile  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus" / "pdfs"
LIMITS = {"max_seconds": 300.0, "max_page_chars": 200_000, "max_document_chars": 10_000_000,
          "max_memory_bytes": 2 * 1024**3, "max_pages": 2000}
_MIB = 1024 * 1024


def _fingerprint(document: ExtractedDocument | None, error: ExtractionError | None) -> object:
    if error is not None:
        return ("error", error.kind, error.message)
    assert document is not None and document.lines is not None
    lines = document.lines
    return (document.text, document.to_bytes(), bytes(lines.starts), bytes(lines.ends),
            bytes(lines.tops), bytes(lines.bottoms), bytes(lines.page_lines))


def corpus() -> None:
    files = sorted(CORPUS.glob("*.pdf"))
    if not files:
        print(f"no corpus at {CORPUS}: section skipped")
        return
    run_isolated(hostile.javascript())  # start the forkserver outside the timings
    print(f"== corpus: {len(files)} PDFs, in-process against sandboxed")
    print(f"{'file':<58} {'in-proc s':>9} {'sandbox s':>9} {'peak MiB':>8}  same")
    inside_times, child_times, overheads, same = [], [], [], 0
    for path in files:
        data = path.read_bytes()
        started = time.perf_counter()
        document: ExtractedDocument | None = None
        error: ExtractionError | None = None
        try:
            document = extract_pdf(data, max_seconds=LIMITS["max_seconds"])
        except ExtractionError as caught:
            error = caught
        inside = time.perf_counter() - started
        expected = _fingerprint(document, error)
        if document is not None:
            document.geometry.close()
        started = time.perf_counter()
        outcome = run_isolated(data, **LIMITS)  # type: ignore[arg-type]
        child = time.perf_counter() - started
        got = _fingerprint(outcome.document, outcome.error)
        if outcome.document is not None:
            outcome.document.geometry.close()
        identical = got == expected
        same += identical
        inside_times.append(inside)
        child_times.append(child)
        overheads.append(child - inside)
        print(f"{path.name[:58]:<58} {inside:9.3f} {child:9.3f} "
              f"{outcome.peak_bytes / _MIB:8.0f}  {'yes' if identical else 'NO'}")
    print(f"identical: {same} of {len(files)}")
    print(f"total: in-process {sum(inside_times):.1f} s, sandboxed {sum(child_times):.1f} s "
          f"(x{sum(child_times) / sum(inside_times):.3f}); child overhead per document: "
          f"median {statistics.median(overheads) * 1000:+.0f} ms, "
          f"mean {statistics.mean(overheads) * 1000:+.0f} ms")


def hostile_table() -> None:
    shapes: list[tuple[str, Callable[[], bytes]]] = [
        # 2 million glyphs: the text page is counted before the rawdict is
        # made; 20 million: MuPDF's text page alone passes the memory limit.
        ("glyph bomb (2M glyphs, one page)", lambda: hostile.glyph_bomb(2_000_000)),
        ("glyph bomb (20M glyphs, one page)", lambda: hostile.glyph_bomb(20_000_000)),
        ("dense 2,000 pages (4,000 chars each)",
         lambda: hostile.dense_pages(2000, lines=50, chars=80)),
        ("1 GiB inflate (font stream)", lambda: hostile.inflate_bomb(1024**3)),
        ("JavaScript", hostile.javascript),
        ("truncated", hostile.truncated),
        ("encrypted", hostile.encrypted),
        ("zero bytes", hostile.zero_bytes),
    ]
    print("\n== hostile PDFs at production limits: "
          + ", ".join(f"{k}={v:,}" for k, v in LIMITS.items()))
    print(f"{'shape':<38} {'file KB':>8} {'status':<16} {'seconds':>8} {'peak MiB':>9}  sentence")
    for name, build in shapes:
        data = build()
        outcome = run_isolated(data, **LIMITS)  # type: ignore[arg-type]
        if outcome.error is None:
            assert outcome.document is not None
            status = "ready"
            sentence = (f"{outcome.document.page_count} pages, "
                        f"{len(outcome.document.text):,} characters")
            outcome.document.geometry.close()
        else:
            status, sentence = f"failed {outcome.error.kind}", outcome.error.message
        print(f"{name:<38} {len(data) / 1024:8.1f} {status:<16} {outcome.seconds:8.1f} "
              f"{outcome.peak_bytes / _MIB:9,.0f}  {sentence}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--skip", choices=["corpus", "hostile"], action="append", default=[])
    args = parser.parse_args()
    if "corpus" not in args.skip:
        corpus()
    if "hostile" not in args.skip:
        hostile_table()


if __name__ == "__main__":
    main()
