"""Where the "scan under a stamp" rule (reviewer.ingestion.ocr.is_stamped_scan)
stands on real pages, and what it costs.

Run from the repository root::

    .venv/bin/python bench/stamp_rule.py                              # the corpus
    .venv/bin/python bench/stamp_rule.py ../shared/corpus/pdfs /work/outside/pdfs

For every page: the extractor's page text (as extract_pdf reads it, no OCR),
then the check as extract_pdf's hook makes it (a length test, then
is_stamped_scan). Printed: every page on which one picture covers at least
half of the page, with its characters and the share its glyphs cover, and
whether the rule fires; then per folder the pages, how many pass the length
test, how many fire, and the check's time beside the extraction's (both
summed over the same pages, in one run).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import pymupdf  # noqa: E402

from reviewer.ingestion.extract import _extract_page, _Limits  # noqa: E402
from reviewer.ingestion.ocr import STAMP_MAX_CHARS, is_stamped_scan  # noqa: E402

CORPUS_DIR = ROOT / ".." / "shared" / "corpus" / "pdfs"
_PICTURE = ("fill-image", "fill-imgmask")


def largest_picture_share(page: pymupdf.Page) -> float:
    rect = page.rect
    area = rect.width * rect.height or 1.0
    best = 0.0
    for kind, box in page.get_bboxlog():
        if kind in _PICTURE:
            covered = (pymupdf.Rect(box) * page.rotation_matrix) & rect
            best = max(best, covered.width * covered.height / area)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folders", nargs="*", type=Path, default=[CORPUS_DIR])
    args = parser.parse_args()
    print(f"{'file':60} {'page':>4} {'picture':>7} {'chars':>6} {'glyphs':>7}  fires")
    totals = []
    for folder in args.folders:
        pages = gated = fired = 0
        extracting = checking = 0.0
        for path in sorted(folder.glob("*.pdf")):
            try:
                doc = pymupdf.open(path)
            except Exception:
                continue  # the corpus's damaged files: extract_pdf refuses them
            if doc.needs_pass:
                continue
            for index in range(doc.page_count):
                try:
                    page = doc.load_page(index)
                    limits = _Limits(time.monotonic() + 1e9, 1e9, 10**9, 10**9, None, None)
                    started = time.perf_counter()
                    result = _extract_page(page, index + 1, 0, limits, doc.page_count)
                    extracted = time.perf_counter()
                    fires = False
                    if len(result.text) <= STAMP_MAX_CHARS:
                        gated += 1
                        fires = bool(result.text) and is_stamped_scan(
                            page, result.text, result.boxes)
                    checked = time.perf_counter()
                except Exception:
                    continue  # a damaged page: extract_pdf says so by name
                pages += 1
                fired += fires
                extracting += extracted - started
                checking += checked - extracted
                share = largest_picture_share(page)
                if share >= 0.5:
                    boxes = result.boxes
                    glyphs = sum((boxes[k + 2] - boxes[k]) * (boxes[k + 3] - boxes[k + 1])
                                 for k in range(0, len(boxes), 4))
                    area = page.rect.width * page.rect.height or 1.0
                    print(f"{path.name[:60]:60} {index + 1:4} {share:7.1%} "
                          f"{len(result.text):6} {glyphs / area:7.2%}  {'YES' if fires else ''}")
        totals.append((folder, pages, gated, fired, extracting, checking))
    print()
    for folder, pages, gated, fired, extracting, checking in totals:
        print(f"{folder}: {pages} pages, {gated} pass the length test (<= {STAMP_MAX_CHARS} "
              f"characters), {fired} fire; extraction {extracting:.2f} s, the check "
              f"{checking * 1000:.1f} ms ({checking / (extracting or 1):.3%} of it)")


if __name__ == "__main__":
    main()
