"""Image-only pages: a born-digital page printed to an image and read back by OCR.

For a fixed, seeded set of pages (``--ocr-pages``; one page from each of as
many born-digital PDFs, a second round when there are fewer PDFs): poppler's
``pdftoppm -r 300 -png -cropbox`` renders the page; PyMuPDF wraps the image
into a new one-page PDF of the same size (the image fills the page, no text
layer); that PDF goes through the real path (``extract_pdf``, which must OCR
a page with no text, then furniture and chunks). Quotes are windows of
poppler's text of the ORIGINAL page, sampled and quoted as the prose
windows are; verified against the chunk holding them, and located against
the original page's poppler word boxes (same page size, same frame).

A document that fails to ingest (``no-text`` where there is no OCR) fails
every one of its quotes, with the reason, and locates none of their words.
Pages with /Rotate, with fewer than ``MIN_PAGE_WORDS`` words or with no
window of running prose (a form) are not picked (the first: pdftoppm renders
them turned, poppler's words are not).

What a scan should read is what our ingestion reads from the original's text
layer. A miss whose window that reading does not hold either (poppler reads
a table down its columns where both our readings go across the rows, or
decodes a glyph otherwise than the page prints it) is marked
``TEXT_LAYER_ALONE``: not the OCR's doing. Told apart, never dropped: the
goals are printed with and without them (:func:`print_scan_goals`).
"""

from __future__ import annotations

import random
import subprocess
import tempfile
import time
from pathlib import Path

import pymupdf

from bench.generalise import (
    ERROR_PREFIX,
    Ingested,
    honest_quotes,
    ingest,
    sample_windows,
    word_stream,
)
from bench.generalise_sections import pct
from bench.generalise_sections.common import Case, SectionStats, rate, score_case
from bench.poppler import PopplerPage, poppler_pages
from reviewer.ingestion import ExtractionError
from reviewer.ingestion.ocr import installed_languages

DPI = 300
MIN_PAGE_WORDS = 80
WINDOWS_PER_PAGE = 5
TRIES = 6  # random pages tried per PDF for one with enough words
NOT_BORN_DIGITAL = ("scan", "ocr")  # names of corpus files whose text layer is OCR already

#: Prefix of a miss whose window our reading of the original's text layer
#: does not hold in order either.
TEXT_LAYER_ALONE = "not read so from the text layer either: "

__all__ = ["TEXT_LAYER_ALONE", "image_only_pdf", "pick_pages", "print_scan_goals", "run_scan"]


def pick_pages(paths: list[Path], rng: random.Random, count: int
               ) -> list[tuple[Path, int, PopplerPage]]:
    """``count`` (PDF, page number, poppler's page) picks, one PDF after another."""
    candidates = [p for p in paths if not p.name.startswith(ERROR_PREFIX)
                  and not any(word in p.name.lower() for word in NOT_BORN_DIGITAL)]
    rng.shuffle(candidates)
    picked: list[tuple[Path, int, PopplerPage]] = []
    taken: set[tuple[str, int]] = set()
    for round_ in range(3):
        for path in candidates:
            if len(picked) == count:
                return picked
            choice = pick_page(path, rng, taken)
            if choice is not None:
                picked.append((path, *choice))
                taken.add((path.name, choice[0]))
        if round_ == 0 and not picked:
            break
    return picked


def pick_page(path: Path, rng: random.Random, taken: set[tuple[str, int]]
              ) -> tuple[int, PopplerPage] | None:
    try:
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                return None
            rotations = [page.rotation for page in doc]
    except Exception:  # an unreadable file offers no page to render
        return None
    for _ in range(TRIES):
        number = rng.randint(1, len(rotations))
        if rotations[number - 1] or (path.name, number) in taken:
            continue
        try:
            pages = poppler_pages(path, only_page=number)
        except Exception:
            return None
        if (pages and sum(1 for w in pages[0].words if w.key) >= MIN_PAGE_WORDS
                and sample_windows(word_stream(pages), pages, random.Random(0), 1)):
            return number, pages[0]
    return None


def image_only_pdf(path: Path, number: int, page: PopplerPage) -> bytes:
    """Page ``number`` of ``path`` rendered at ``DPI`` and wrapped as a one-page PDF
    of the same size with no text layer."""
    with tempfile.TemporaryDirectory(prefix="citeguard-scan-") as folder:
        stem = Path(folder) / "page"
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", "-cropbox", "-singlefile",
                        "-f", str(number), "-l", str(number), str(path), str(stem)],
                       check=True, capture_output=True, timeout=120)
        with pymupdf.open() as doc:
            new = doc.new_page(width=page.width, height=page.height)
            new.insert_image(new.rect, filename=str(stem.with_suffix(".png")))
            return bytes(doc.tobytes(deflate=True))


# A few of each language's commonest words: enough to tell the corpus's
# English, French and German pages apart.
_COMMON_WORDS = {
    "eng": frozenset("the of and to in is that for with as by on are be this".split()),
    "fra": frozenset("le la les de des et du en un une est pour dans que sur au".split()),
    "deu": frozenset("der die das und ist nicht mit von den zu ein eine auf für im".split()),
    "ita": frozenset("il la le di del della che e per con un una non sono gli nel".split()),
    "spa": frozenset("el la los las de del que y en un una por con para es se".split()),
}


def page_language(stream: list) -> str:  # type: ignore[type-arg]
    """The Tesseract language a person uploading this page would choose: the
    one whose common words the original page's text holds most of."""
    words = [p.word.text.lower() for p in stream]
    installed = set(installed_languages())
    counts = {lang: sum(w in common for w in words) for lang, common in _COMMON_WORDS.items()
              if lang in installed or lang == "eng"}
    return max(counts, key=lambda lang: counts[lang])


def run_scan(path: Path, number: int, page: PopplerPage, seed: int) -> SectionStats:
    """Render, wrap, ingest and score one page."""
    stats = SectionStats(f"{path.stem} p{number}")
    rng = random.Random(f"{seed}:scan:{path.name}:{number}")
    stream = word_stream([page])
    windows = sample_windows(stream, [page], rng, WINDOWS_PER_PAGE)
    vocabulary = {p.word.text.lower().strip(".,;:)") for p in stream} | {
        p.word.key for p in stream}
    cases = [Case(1, tuple((q.variant, q.text) for q in honest_quotes(w, vocabulary)),
                  tuple(w.words), tuple(x.key for x in w.words), "window")
             for w in windows]
    data = image_only_pdf(path, number, page)
    started = time.perf_counter()
    ours: Ingested | None = None
    failure = None
    try:
        ours = ingest(data, ocr_language=page_language(stream))
    except ExtractionError as error:
        stats.status, stats.message = error.kind, error.message
        failure = f"ingestion failed: {error.kind}"
    stats.seconds = time.perf_counter() - started
    text_layer = text_layer_keys(path, number)
    for case in cases:
        before = len(stats.failures)
        score_case(stats, ours, case, failure, stats.message)
        if "".join(case.pieces) not in text_layer:
            for miss in stats.failures[before:]:
                miss.category = TEXT_LAYER_ALONE + miss.category
    if ours is not None:
        ours.doc.geometry.close()
    return stats


def text_layer_keys(path: Path, number: int) -> str:
    """Our reading of page ``number``'s text layer, letters and digits only
    ("" when it does not ingest: then no miss is put down to it)."""
    with pymupdf.open(path) as doc:
        doc.select([number - 1])
        data = doc.tobytes()
    try:
        ours = ingest(data)
    except ExtractionError:
        return ""
    ours.doc.geometry.close()
    return ours.keys


def print_scan_goals(scans: list[SectionStats]) -> None:
    """The section's rates leaving out the misses marked ``TEXT_LAYER_ALONE``."""
    excused = [f for s in scans for f in s.failures if f.category.startswith(TEXT_LAYER_ALONE)]
    # A miss is a quote not verified, or a verified one with words left out
    # of its highlight ("highlight: ..."): only the first counts as a quote.
    unverified = sum(1 for f in excused
                     if not f.category.removeprefix(TEXT_LAYER_ALONE).startswith("highlight"))
    quotes = sum(s.quotes for s in scans) - unverified
    verified = sum(s.verified for s in scans)
    hits = [tuple(int(n) for n in f.located.split("/")) for f in excused]
    located = sum(s.located for s in scans) - sum(h for h, _ in hits)
    words = sum(s.words for s in scans) - sum(w for _, w in hits)
    print(f"  leaving out the {len(excused)} misses our text layer reading shares "
          f"(\"{TEXT_LAYER_ALONE.rstrip(': ')}\"): verified {pct(rate(verified, quotes))}, "
          f"located words {pct(rate(located, words))}")
