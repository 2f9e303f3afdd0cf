"""Benchmark of citeguard's PDF ingestion: highlight accuracy, time, memory, size.

Run from the repository root::

    .venv/bin/python bench/ingest.py             # full run, about 2.5 minutes on 2 cores
    .venv/bin/python bench/ingest.py --quick     # fewer samples and repeats, about 1 minute
    .venv/bin/python bench/ingest.py --corpus DIR --seed 7 --skip memory

Input: every PDF in ``../shared/corpus/pdfs`` (relative to the repository root;
``MANIFEST.tsv`` there says what each file stresses and so what status to
expect), plus PDFs generated with PyMuPDF on every run: a 350-page book of
plain prose (and its first 35 pages), and four pages with /Rotate 0, 90, 180
and 270 and offset CropBoxes. When the corpus folder is absent, stand-ins are
generated as well (a two-column paper, and encrypted, image-only and truncated
files) so the script still runs.

What it reports, on the same files in one run:

1. Status of every file: pages and characters, or the ``ExtractionError`` kind
   and message (the corrupt, encrypted and scanned files), checked against the
   manifest.
2. Highlight accuracy against an independent extractor, poppler's
   ``pdftotext -cropbox -bbox-layout`` (package poppler-utils; the section is
   skipped with a note when it is missing). Sentences and 3-15 word runs are
   sampled from our text (seeded) and located with ``locate()``. For each word
   of a sample, poppler's word with the same text (NFKD, accents, case and
   punctuation dropped) nearest to our word's box is its counterpart; where
   poppler tokenises differently (letter-spaced text, math) a poppler word
   containing ours, cut in proportion, or one contained in ours is used. A hit:
   the counterpart's centre lies within ``TOLERANCE`` points of a located
   rectangle and of the word's own boxes. Both sides are in displayed-page
   points (crop box origin top-left, /Rotate applied). A control column runs
   the same test with our boxes moved down one line, to show how often a wrong
   highlight would still pass. Also listed: page sizes where poppler disagrees,
   a whole-text comparison (word counts, letter-spaced runs, U+FFFD), and the
   worst misses with a reason and PyMuPDF's own ``page.search_for`` as a third
   opinion.
3. Ingestion time: ``extract_pdf`` + ``find_furniture`` + ``chunk_text`` +
   ``write_geometry`` to a temporary file (what ``document_ingest`` does before
   the database) against a
   plain ``for page in doc: page.get_text("rawdict")`` loop that drops each
   page's dict, and against that loop with ``extract_pdf``'s own flags (the
   plain default also decodes images, which ours skips, so that loop is the
   fair yardstick). CPU time of this process (``time.process_time``; MuPDF is
   single-threaded); each repeat runs the three modes back to back on a file,
   in a rotating order, and a file's figure is its best of N. The ratios are
   also given repeat by repeat, so the spread a busy machine adds is seen, and
   for the fastest and slowest corpus file.
4. Peak memory of the same three, each in a fresh child process: VmHWM after
   the work minus VmRSS just before it, with the high-water mark reset through
   /proc/self/clear_refs after the imports and after reading the file (so both
   sides pay those equally). Not ``ru_maxrss``: Linux carries it across execve,
   so a child of this large process starts at the parent's size and small
   workloads measure 0. Not tracemalloc: it sees Python's allocations only, not
   MuPDF's C heap (text pages, fonts, decoded images), and its bookkeeping would
   inflate what it measures. The book at 35 and 350 pages shows whether memory
   grows per page (dicts kept) or only with the text kept.
5. Stored geometry, bytes written by ``write_geometry`` / ``len(text)`` (goal: at
   most 16 bytes),
   and a summary of the goals: hit rate >= 98 %, time <= 1.2x (issue 23),
   memory <= 1.5x.
6. OCR, timed apart: sections 3 and 4 read text layers only (``ocr=None``: a
   page without one stays empty, and a file with no text layer at all is left
   out there), since OCR costs seconds a page where a text layer costs
   milliseconds. Each page without a text layer (the scanned lorem ipsum,
   pp. 29-30 of the Supreme Court opinion) is OCR'd here on its own, as
   ingestion does it (rendered at 300 dpi, ``tesseract`` with character
   boxes), in wall-clock seconds (the OCR program is another process), with
   Tesseract's mean word confidence. The status pass (section 1) runs with OCR,
   as uploads do.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
if __name__ == "__main__" and sys.argv[1:2] == ["--child"]:
    # A memory-measuring child skips PyMuPDF 2.0's optional layout analyser, an
    # ONNX model it loads at import (about 1 s and 100 MB) for Page.get_layout()
    # only; get_text() does not use it. pymupdf catches the ImportError.
    sys.modules["pymupdf.layout"] = None  # type: ignore[assignment]

import pymupdf  # noqa: E402

from bench.poppler import (  # noqa: E402
    PopplerPage,
    PopplerWord,
    expected_status,
    poppler_pages,
    poppler_version,
    read_manifest,
    word_key,
)
from reviewer.ingestion import (  # noqa: E402
    ExtractedDocument,
    ExtractionError,
    bounding_box,
    chunk_text,
    extract_pdf,
    find_furniture,
    locate,
)
from reviewer.ingestion import extract as extract_module  # noqa: E402
from reviewer.ingestion.extract import _TEXT_FLAGS  # noqa: E402
from reviewer.ingestion.ocr import OcrOptions, has_drawing, installed_languages  # noqa: E402

CORPUS_DIR = ROOT / ".." / "shared" / "corpus" / "pdfs"
BOOK_PAGES = 350
SMALL_BOOK_PAGES = 35
TOLERANCE = 1.5  # points around a located rectangle that still count as inside
GOAL_HIT_RATE = 0.98
GOAL_TIME_RATIO = 1.2
GOAL_MEMORY_RATIO = 1.5
GOAL_BYTES_PER_CHAR = 16.0
WORST_MISSES = 15


MODES = ("ours", "plain", "same-flags")
SECTIONS = ("hits", "time", "stages", "memory", "ocr")


@dataclass(frozen=True)
class Plan:
    samples: int  # sampled sentences/word runs per file
    repeats: int  # timing repeats (best of) per corpus file
    book_repeats: int  # the same for the 350-page book (about 20 s a repeat)
    memory_modes: tuple[str, ...]  # one child process per file and mode (~1 s each)


PLANS = {"quick": Plan(samples=20, repeats=1, book_repeats=1, memory_modes=MODES[:2]),
         "normal": Plan(samples=80, repeats=3, book_repeats=2, memory_modes=MODES)}


# -- Files ----------------------------------------------------------------------


@dataclass
class Entry:
    path: Path
    stresses: str = ""
    expected: str = "ok"  # "ok" or an ExtractionError kind
    synthetic: bool = False
    data: bytes = b""
    doc: ExtractedDocument | None = None
    status: str = ""
    message: str = ""
    geometry_bytes: int = 0  # bytes written by write_geometry()

    @property
    def name(self) -> str:
        return self.path.name


PROSE_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they you were her she there been one all we their has would when if so "
    "no will more said what up its about into than them can only other new some could time "
    "these two may then do first any my now such like our over man me even most made after "
    "also did many before must through back years where much your way well down should "
    "because each just those people how too little state good very make world still own see "
    "men work long get here between both life being under never day same another know while "
    "last might us great old year off come since against go came right used take three "
    "office fifty flight affinity final"  # words that a ligature font would join
).split()


def prose_lines(rng: random.Random, count: int, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    while len(lines) < count:
        words = rng.choices(PROSE_WORDS, k=rng.randint(6, 22))
        words[0] = words[0].capitalize()
        words[-1] += rng.choice(".....?!")
        for word in words:
            if len(current) + len(word) + 1 > width:
                lines.append(current)
                current = word
            else:
                current = f"{current} {word}".strip()
    return lines


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def make_book(pages: int, seed: int = 350) -> bytes:
    """A plain-prose book: ~3,800 characters a page, a running header, page numbers.

    Content streams are written directly (Helvetica, not embedded): PyMuPDF's
    insert_text() would take five seconds for 350 pages.
    """
    rng = random.Random(seed)
    doc = pymupdf.open()
    font = doc.get_new_xref()
    doc.update_object(
        font, "<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>")
    for number in range(1, pages + 1):
        page = doc.new_page(width=612, height=792)
        body = " Tj T* ".join(_pdf_string(line) for line in prose_lines(rng, 44, 86))
        stream = (f"BT /F1 9 Tf 72 742 Td {_pdf_string('A Synthetic Book of Plain Prose')} "
                  f"Tj ET\nBT /F1 10 Tf 14 TL 72 712 Td {body} Tj ET\n"
                  f"BT /F1 9 Tf 300 32 Td ({number}) Tj ET\n")
        contents = doc.get_new_xref()
        doc.update_object(contents, "<<>>")
        doc.update_stream(contents, stream.encode("latin-1"))
        doc.xref_set_key(page.xref, "Contents", f"{contents} 0 R")
        doc.xref_set_key(page.xref, "Resources", f"<</Font<</F1 {font} 0 R>>>>")
    data = doc.tobytes(deflate=True)
    doc.close()
    return data


ROTATED = "synthetic_rotated_cropped.pdf"


def make_rotated(seed: int) -> bytes:
    """Four pages, /Rotate 0, 90, 180 and 270, three of them with an offset CropBox.

    The corpus has a single rotated page (90 degrees) and no CropBox smaller
    than its MediaBox; this checks the other cases of the displayed frame.
    """
    rng = random.Random(seed)
    doc = pymupdf.open()
    for rotation, crop in ((0, (30, 40, 590, 770)), (90, None), (180, (20, 30, 600, 780)),
                           (270, (25, 35, 595, 760))):
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 90), "\n".join(prose_lines(rng, 40, 80)), fontsize=10,
                         fontname="helv")
        page.insert_text((58, 500), "A Vertical Margin Note", fontsize=9, fontname="helv",
                         rotate=90)  # a vertical line of text as well
        if crop is not None:
            page.set_cropbox(pymupdf.Rect(crop))
        page.set_rotation(rotation)
    data = doc.tobytes()
    doc.close()
    return data


def make_standins(folder: Path, seed: int) -> list[Entry]:
    """Stand-in PDFs for a machine without the corpus (rotation is always generated)."""
    rng = random.Random(seed)
    entries = []

    doc = pymupdf.open()
    for number in range(1, 4):
        page = doc.new_page(width=595, height=842)
        page.insert_text((60, 40), "Generated Two-Column Paper", fontsize=8, fontname="tiro")
        for x in (60, 312):
            page.insert_text((x, 80), "\n".join(prose_lines(rng, 60, 45)), fontsize=9,
                             fontname="tiro", lineheight=1.25)
        page.insert_text((290, 820), str(number), fontsize=8, fontname="tiro")
    entries.append(("generated_two_column.pdf", doc.tobytes(), "two columns", "ok"))
    text_page = doc.tobytes()

    doc = pymupdf.open(stream=text_page)
    locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="own")
    entries.append(("error_encrypted_generated.pdf", locked, "encrypted", "encrypted"))

    scan = pymupdf.open()
    pixmap = doc[0].get_pixmap(dpi=72)
    scan.new_page(width=595, height=842).insert_image(pymupdf.Rect(0, 0, 595, 842),
                                                      pixmap=pixmap)
    entries.append(("error_scanned_generated.pdf", scan.tobytes(), "image only (OCR'd)",
                    "ok"))
    entries.append(("error_truncated_generated.pdf", text_page[: len(text_page) // 2],
                    "cut short (no %EOF)", "corrupt"))
    result = []
    for name, data, stresses, expected in entries:
        path = folder / name
        path.write_bytes(data)
        result.append(Entry(path, stresses, expected, synthetic=True))
    return result


def load_entries(corpus: Path, workdir: Path, seed: int) -> tuple[list[Entry], str]:
    if corpus.is_dir() and any(corpus.glob("*.pdf")):
        manifest = read_manifest(corpus)
        entries = [
            Entry(path, manifest.get(path.name, {}).get("stresses", ""),
                  expected_status(manifest[path.name]) if path.name in manifest else "?")
            for path in sorted(corpus.glob("*.pdf"))
        ]
        note = f"corpus {corpus.resolve()} ({len(entries)} PDFs"
        note += ", MANIFEST.tsv read)" if manifest else ", no MANIFEST.tsv)"
    else:
        entries = make_standins(workdir, seed)
        note = (f"no corpus at {corpus} -- using {len(entries)} generated stand-ins "
                f"in {workdir}")
    rotated = workdir / ROTATED
    rotated.write_bytes(make_rotated(seed))
    entries.append(Entry(rotated, "generated: /Rotate 0/90/180/270, offset CropBox, a "
                         "vertical line", "ok", synthetic=True))
    for pages in (BOOK_PAGES, SMALL_BOOK_PAGES):
        path = workdir / f"synthetic_book_{pages}p.pdf"
        path.write_bytes(make_book(pages))
        entries.append(Entry(path, f"generated {pages}-page book of plain prose", "ok",
                             synthetic=True))
    return entries, note


# -- The two workloads timed and measured ----------------------------------------------


def ingest_document(data: bytes, *, ocr: OcrOptions | None = None
                    ) -> tuple[ExtractedDocument, int]:
    """What document_ingest does before the database: extract, furniture, chunks, and
    the geometry streamed to a temporary file (which the storage then copies).
    Text layers only unless ``ocr`` is given (OCR is timed apart, section 6).

    Returns the document and the size of its stored geometry.
    """
    extracted = extract_pdf(data, ocr=ocr)
    furniture = find_furniture(extracted)
    chunk_text(extracted.text, target_size=1200, overlap=200, exclude=furniture)
    with tempfile.TemporaryFile() as handle:
        size = extracted.write_geometry(handle)
    return extracted, size


def ingest(data: bytes) -> int:
    return ingest_document(data)[1]


def plain_rawdict(data: bytes) -> int:
    """The yardstick: PyMuPDF's rawdict for each page, dropped before the next."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    blocks = 0
    for page in doc:
        raw = page.get_text("rawdict")
        blocks += len(raw["blocks"])
        del raw
    doc.close()
    return blocks


def same_flags_rawdict(data: bytes) -> int:
    """The yardstick with extract_pdf's flags (no images, no whitespace glyphs)."""
    doc = pymupdf.open(stream=data, filetype="pdf")
    blocks = 0
    for page in doc:
        raw = page.get_text("rawdict", flags=_TEXT_FLAGS)
        blocks += len(raw["blocks"])
        del raw
    doc.close()
    return blocks


WORKLOADS: dict[str, Callable[[bytes], int]] = {
    "ours": ingest, "plain": plain_rawdict, "same-flags": same_flags_rawdict,
}


def _proc_status(field_name: str) -> int | None:
    """A VmRSS/VmHWM figure of this process in bytes, from /proc (Linux)."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith(field_name + ":"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    """Reset VmHWM to the current RSS (Linux >= 4.0); False when not allowed."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as handle:
            handle.write("5")
    except OSError:
        return False
    return True


def child_main(mode: str, path: str) -> int:
    """Run one workload in this (fresh) process and print its peak memory as JSON.

    Not ``ru_maxrss``: on Linux it survives execve, so a child spawned by this
    (large) benchmark process starts with the parent's high-water mark and
    every small workload measures 0. VmHWM belongs to the process's own
    address space and is reset to the current RSS just before the work.
    """
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss units
    data = Path(path).read_bytes()
    gc.collect()
    reset = _reset_peak()
    before = _proc_status("VmRSS") if reset else _proc_status("VmHWM")
    method = "VmHWM after clear_refs" if reset else "VmHWM (not reset)"
    if before is None:  # not Linux: ru_maxrss, with the caveat above
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
        method = "ru_maxrss"
    started = time.process_time()
    if mode != "nothing":
        WORKLOADS[mode](data)
    seconds = time.process_time() - started
    if method == "ru_maxrss":
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    else:
        after = _proc_status("VmHWM") or 0
    print(json.dumps({"before": before, "after": after, "seconds": seconds, "method": method}))
    return 0


def run_child(mode: str, path: Path) -> dict[str, float | str]:
    command = [sys.executable, str(Path(__file__).resolve()), "--child", mode, str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"child {mode} {path.name} failed:\n{done.stderr[-2000:]}")
    answer: dict[str, float | str] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def import_only_rss() -> int | None:
    """RSS of a process that has only imported pymupdf."""
    code = ("import pymupdf\n"
            "print(next(l.split()[1] for l in open('/proc/self/status') "
            "if l.startswith('VmRSS:')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    return int(done.stdout.strip()) * 1024 if done.returncode == 0 else None


# -- Hit rate ------------------------------------------------------------------------------


def sample_ranges(text: str, rng: random.Random, count: int) -> list[tuple[int, int]]:
    """Half whole sentences (at most 25 words), half runs of 3-15 words anywhere."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    if not words:
        return []
    starts = [start for start, _ in words]
    sentences = []
    previous = 0
    for match in re.finditer(r"[.!?][\"'”’)\]]*(?=\s)", text):
        first = bisect_right(starts, previous - 1)
        last = bisect_right(starts, match.end() - 1) - 1
        if last - first + 1 >= 4:
            sentences.append((first, min(last, first + 24)))
        previous = match.end()
    ranges = []
    for index in range(count):
        if index % 2 == 0 and sentences:
            first, last = rng.choice(sentences)
        else:
            first = rng.randrange(len(words))
            last = min(len(words) - 1, first + rng.randint(2, 14))
        ranges.append((words[first][0], words[last][1]))
    return ranges


Box = tuple[float, float, float, float]


@dataclass
class Miss:
    file: str
    page: int
    rotation: int
    word: str
    context: str
    poppler: PopplerWord
    target: Box  # the part of poppler's box that should be ours
    ours: Box
    rects: list[list[float]]
    distance: float
    kind: str
    reason: str
    third: str = ""


@dataclass
class HitStats:
    file: str
    pages: int = 0
    poppler_pages: int = 0
    samples: int = 0
    words: int = 0
    hits: int = 0
    unmatched: int = 0  # no word with this text near it in poppler's output
    control_hits: int = 0  # hits with our boxes and rectangles moved down one line
    partial: int = 0  # compared via a poppler word that contains ours (or vice versa)
    misses: list[Miss] = field(default_factory=list)
    unmatched_examples: list[str] = field(default_factory=list)
    size_disagreements: list[str] = field(default_factory=list)
    error: str = ""
    # Whole-document text comparison: words, runs of >= 3 one-letter words
    # ("C h i n a"), and U+FFFD (glyphs without a character).
    words_ours: int = 0
    words_poppler: int = 0
    spaced_ours: int = 0
    spaced_poppler: int = 0
    replacement_chars: int = 0

    @property
    def compared(self) -> int:
        return self.hits + len(self.misses)


def rect_distance(x: float, y: float, rect: Sequence[float]) -> float:
    dx = max(rect[0] - x, 0.0, x - rect[2])
    dy = max(rect[1] - y, 0.0, y - rect[3])
    return math.hypot(dx, dy)


def centre(box: Sequence[float]) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _part_boxes(word: PopplerWord, key: str) -> list[Box]:
    """The parts of a horizontal word's box where ``key`` occurs in its text.

    Cut in proportion to the characters of the key; for a vertical or
    shorter word, the whole box.
    """
    box = word.box
    if key not in word.key or box[2] - box[0] < box[3] - box[1]:
        return [box]
    width = (box[2] - box[0]) / len(word.key)
    found = []
    at = word.key.find(key)
    while at >= 0:
        found.append((box[0] + at * width, box[1], box[0] + (at + len(key)) * width, box[3]))
        at = word.key.find(key, at + 1)
    return found


def counterpart(page: PopplerPage, key: str, ours: Box) -> tuple[PopplerWord, Box, bool] | None:
    """Poppler's word for ours, and the part of its box that should hold ours.

    The nearest (to our box) of poppler's words with the same text and of those
    that contain ours or are part of it (letter-spaced text, math, tokens run
    together), the latter cut to the characters in question. Same-text words
    are taken even when far (that is most likely a miss); partial ones only
    within three line heights. ``None`` when poppler has neither (it tokenises
    the word differently): the word is not counted.
    """
    here = centre(ours)
    near = 3 * max(ours[3] - ours[1], 6.0)
    best: tuple[float, PopplerWord, Box, bool] | None = None
    for word in page.by_key.get(key, []):
        distance = math.dist(word.centre, here)
        if best is None or distance < best[0]:
            best = (distance, word, word.box, True)
    for word in page.words:
        if not word.key or word.key == key or not (key in word.key or word.key in key):
            continue
        for part in _part_boxes(word, key):
            distance = math.dist(centre(part), here)
            if distance <= near and (best is None or distance < best[0]):
                best = (distance, word, part, False)
    return None if best is None else best[1:]


def check_page_sizes(entry: Entry, doc: ExtractedDocument, popplers: list[PopplerPage],
                     stats: HitStats) -> None:
    for info, theirs in zip(doc.pages, popplers, strict=False):
        if abs(info.width - theirs.width) <= 0.5 and abs(info.height - theirs.height) <= 0.5:
            continue
        reach_x = max((w.box[2] for w in theirs.words), default=0.0)
        reach_y = max((w.box[3] for w in theirs.words), default=0.0)
        swapped = abs(info.width - theirs.height) <= 0.5 and abs(info.height - theirs.width) <= 0.5
        note = (f"{entry.name} p{info.number}: ours {info.width:.1f} x {info.height:.1f} "
                f"(/Rotate {info.rotation}), poppler <page> {theirs.width:.1f} x "
                f"{theirs.height:.1f}")
        if swapped:
            frame = ("so they are in the displayed (rotated) frame, like ours"
                     if reach_x > theirs.width + 1 or reach_y > theirs.height + 1
                     else "so their frame cannot be told from their extents")
            note += (f"\n      poppler's <page> is the unrotated crop box, yet its words reach "
                     f"x={reach_x:.0f}, y={reach_y:.0f}, {frame}")
        stats.size_disagreements.append(note)
    if len(doc.pages) != len(popplers):
        stats.size_disagreements.append(
            f"{entry.name}: ours {len(doc.pages)} pages, poppler {len(popplers)}")


def hit_rate(entry: Entry, rng: random.Random, samples: int) -> HitStats:
    doc = entry.doc
    assert doc is not None
    stats = HitStats(entry.name, pages=doc.page_count)
    try:
        popplers = poppler_pages(entry.path)
    except (RuntimeError, subprocess.TimeoutExpired) as error:
        stats.error = f"pdftotext failed: {error}"
        return stats
    stats.poppler_pages = len(popplers)
    check_page_sizes(entry, doc, popplers, stats)
    text = doc.text
    ours_keys = [word_key(m.group()) for m in re.finditer(r"\S+", text)]
    stats.words_ours = sum(1 for key in ours_keys if key)
    stats.words_poppler = sum(1 for page in popplers for w in page.words if w.key)
    stats.spaced_ours = spaced_runs(ours_keys)
    stats.spaced_poppler = sum(spaced_runs([w.key for w in page.words]) for page in popplers)
    stats.replacement_chars = text.count("\ufffd")
    page_starts = [p.text_start for p in doc.pages]
    for start, end in sample_ranges(text, rng, samples):
        stats.samples += 1
        located = {found["page"]: found["rects"] for found in locate(doc, start, end)}
        for match in re.finditer(r"\S+", text[start:end]):
            word_start, word_end = start + match.start(), start + match.end()
            key = word_key(match.group())
            if not key:
                continue  # punctuation, symbols: nothing to compare by text
            stats.words += 1
            number = bisect_right(page_starts, word_start)
            ours = bounding_box(doc, word_start, word_end)
            found = (counterpart(popplers[number - 1], key, ours)
                     if ours is not None and number <= len(popplers) else None)
            if found is None:
                stats.unmatched += 1
                if len(stats.unmatched_examples) < 6:
                    stats.unmatched_examples.append(f"p{number} {match.group()!r}")
                continue
            assert ours is not None
            theirs, target, exact = found
            stats.partial += not exact
            rects = located.get(number, [])
            stats.control_hits += control_hit(popplers[number - 1], key, ours, rects)
            outside_rects, outside_word = judge(target, exact, ours, rects)
            if max(outside_rects, outside_word) <= 0:
                stats.hits += 1
                continue
            context = text[max(start, word_start - 30):min(end, word_end + 30)]
            kind, reason = miss_reason(theirs, target, ours, rects, key, exact,
                                       outside_rects <= 0, outside_word <= 0)
            stats.misses.append(Miss(
                entry.name, number, doc.pages[number - 1].rotation, match.group(),
                context.replace("\n", "⏎").replace("\f", ""), theirs, target, ours, rects,
                max(outside_rects, outside_word), kind, reason,
            ))
    return stats


def judge(target: Box, exact: bool, ours: Box, rects: list[list[float]]) -> tuple[float, float]:
    """How far poppler's centre lies outside the located rectangles and outside our word.

    A hit needs both within the slack: TOLERANCE, plus half the width for a
    box cut in proportion from a longer poppler word (glyph widths vary).
    Returns the two excesses over the slack (<= 0 means inside).
    """
    slack = TOLERANCE if exact else TOLERANCE + (target[2] - target[0]) / 2
    cx, cy = centre(target)
    to_rects = min((rect_distance(cx, cy, r) for r in rects), default=math.inf)
    return to_rects - slack, rect_distance(cx, cy, ours) - slack


def control_hit(page: PopplerPage, key: str, ours: Box, rects: list[list[float]]) -> bool:
    """The same test with our box and rectangles moved down by one line height.

    A sound comparison should almost never pass this: it measures how often
    a wrong highlight would be scored a hit anyway.
    """
    shift = ours[3] - ours[1] + 1.0
    moved = (ours[0], ours[1] + shift, ours[2], ours[3] + shift)
    found = counterpart(page, key, moved)
    if found is None:
        return False
    moved_rects = [[r[0], r[1] + shift, r[2], r[3] + shift] for r in rects]
    return max(judge(found[1], found[2], moved, moved_rects)) <= 0


def spaced_runs(keys: Sequence[str]) -> int:
    """Runs of three or more one-character words: letter-spaced text ("C h i n a")."""
    runs = length = 0
    for key in [*keys, ""]:
        if len(key) == 1:
            length += 1
            continue
        runs += length >= 3
        length = 0
    return runs


def miss_reason(theirs: PopplerWord, target: Box, ours: Box, rects: list[list[float]],
                key: str, exact: bool, in_rects: bool, in_word: bool) -> tuple[str, str]:
    cx, cy = centre(target)
    ox, oy = centre(ours)
    dx, dy = cx - ox, cy - oy
    ours_h, theirs_h = ours[3] - ours[1], target[3] - target[1]
    if not rects:
        kind, reason = "no rectangle", "locate() gave no rectangle on this page"
    elif in_word:
        kind = "locate() lost it"
        reason = "the word's own boxes hold poppler's centre but locate()'s rectangles do not"
    elif math.hypot(dx, dy) > 3 * max(ours_h, theirs_h, 6.0):
        kind = "poppler's word is elsewhere"
        reason = (f"poppler's nearest '{theirs.text}' is {math.hypot(dx, dy):.0f} pt away: "
                  "poppler reads this word elsewhere, or tokenises it differently here")
    else:
        kind = "boxes offset"
        reason = f"poppler's centre is off ours by dx {dx:+.1f}, dy {dy:+.1f} pt"
        if in_rects:
            reason += " (inside our highlight, but not on this word)"
        if abs(theirs_h - ours_h) > 0.5 * max(ours_h, 1.0):
            reason += f"; heights differ (poppler {theirs_h:.1f}, ours {ours_h:.1f})"
    if not exact and key in theirs.key:
        reason += (f" [compared with the matching characters of poppler's '{theirs.text}', "
                   "its box cut in proportion: approximate]")
    elif not exact:
        reason += f" [compared with poppler's '{theirs.text}', a part of this word]"
    return kind, reason


def third_opinion(entry_path: Path, miss: Miss) -> str:
    """Where PyMuPDF's own search puts the word, and whom that agrees with."""
    needle = unicodedata.normalize("NFKC", miss.word).strip(".,;:()[]{}\"'“”‘’")
    if len(needle) < 2:
        return "search_for: word too short to search"
    with pymupdf.open(entry_path) as pdf:
        page = pdf[miss.page - 1]
        hits = [list(r * page.rotation_matrix) for r in page.search_for(needle)]
    if not hits:
        return f"search_for({needle!r}): no hit on the page"
    ours_c, theirs_c = centre(miss.ours), centre(miss.target)
    best = min(hits, key=lambda r: min(math.dist(centre(r), ours_c),
                                       math.dist(centre(r), theirs_c)))
    agrees = []
    if rect_distance(*centre(best), miss.ours) <= TOLERANCE:
        agrees.append("ours")
    if rect_distance(*centre(best), miss.target) <= TOLERANCE:
        agrees.append("poppler")
    who = " and ".join(agrees) if agrees else "neither"
    return f"search_for: {len(hits)} hit(s), nearest [{fmt_box(best)}] agrees with {who}"


def fmt_box(box: Sequence[float] | None) -> str:
    return "-" if box is None else ", ".join(f"{v:.1f}" for v in box)


# -- Output ----------------------------------------------------------------------------------


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    numeric = [all(re.fullmatch(r"[-+\d.,%x/ ]*|n/a", row[i]) for row in cells[1:])
               for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        return "  " + "  ".join(
            cell.rjust(widths[i]) if numeric[i] else cell.ljust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()

    print(line(cells[0]))
    print("  " + "  ".join("-" * w for w in widths))
    for row in cells[1:]:
        print(line(row))


def short(name: str, width: int = 44) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def mb(value: float) -> str:
    return "-" if math.isnan(value) else f"{value / 1e6:.1f}"


def times(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}x"


def nan_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "n/a"


def ratio_of(ours: float, theirs: float) -> float:
    return ours / theirs if theirs > 0 else math.nan  # NaN in, NaN out


def fmt_ratio(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.2f}"


def verdict(value: float, limit: float, *, at_least: bool = False) -> str:
    if math.isnan(value):
        return "-"
    return "PASS" if (value >= limit if at_least else value <= limit) else "FAIL"


# -- Sections --------------------------------------------------------------------------------


@dataclass
class Measures:
    pages: int
    chars: int
    geometry: int
    seconds: dict[str, float] = field(default_factory=dict)
    samples: dict[str, list[float]] = field(default_factory=dict)  # every repeat's seconds
    memory: dict[str, float] = field(default_factory=dict)


BOOK = f"synthetic_book_{BOOK_PAGES}p.pdf"
SMALL_BOOK = f"synthetic_book_{SMALL_BOOK_PAGES}p.pdf"


def section_status(entries: list[Entry]) -> dict[str, Measures]:
    print("\n1. Status of every file (the whole ingestion on the file's bytes)\n")
    rows = []
    for entry in entries:
        entry.data = entry.path.read_bytes()
        try:
            entry.doc, entry.geometry_bytes = ingest_document(entry.data, ocr=OcrOptions())
            entry.status = "ok"
            entry.message = f"{entry.doc.page_count} pages, {len(entry.doc.text):,} chars"
            if entry.doc.ocr is not None:
                ocred = [p.number for p in entry.doc.ocr.pages]
                entry.message += (f" (OCR: page{'s' if len(ocred) > 1 else ''} "
                                  f"{', '.join(map(str, ocred))})")
        except ExtractionError as error:
            entry.status = error.kind
            entry.message = error.message
        check = ("as expected" if entry.expected in (entry.status, "?")
                 else f"EXPECTED {entry.expected}")
        rows.append([short(entry.name), entry.status, check, entry.message])
    table(["file", "status", "manifest", "pages and characters, or the error message"], rows)
    print("\n  What each file stresses:")
    for entry in entries:
        if entry.stresses:
            print(f"    {short(entry.name)}  {entry.stresses}")
    # A file whose every page needed OCR has no text layer to time (section 6 has it).
    return {e.name: Measures(e.doc.page_count, len(e.doc.text), e.geometry_bytes)
            for e in entries if e.doc is not None and not _all_ocr(e.doc)}


def _all_ocr(doc: ExtractedDocument) -> bool:
    return doc.ocr is not None and len(doc.ocr.pages) == doc.page_count


def section_hits(entries: list[Entry], plan: Plan, seed: int) -> tuple[int, int] | None:
    version = poppler_version()
    print("\n2. Highlight accuracy against poppler's pdftotext -cropbox -bbox-layout\n")
    if version is None:
        print("  pdftotext is not installed (Debian/Ubuntu: apt-get install poppler-utils); "
              "section skipped.")
        return None
    print(f"  {version}; {plan.samples} samples per file (seed {seed}): half sentences "
          f"(<= 25 words), half 3-15 word runs.\n  A word is a hit when the centre of "
          f"poppler's box for it lies within {TOLERANCE} pt of a locate() rectangle and of the "
          "word's own\n  boxes (so that the poppler word is this one, not the same word "
          "elsewhere in the highlighted line).\n")
    readable = [e for e in entries if e.doc is not None and e.name != SMALL_BOOK]
    all_stats = []
    rows: list[list[object]] = []
    for entry in readable:
        stats = hit_rate(entry, random.Random(f"{seed}:{entry.name}"), plan.samples)
        all_stats.append(stats)
        if stats.error:
            rows.append([short(entry.name), stats.pages, "-", "-", "-", "-", "-", "-",
                         stats.error])
            continue
        rows.append([short(entry.name), f"{stats.pages}/{stats.poppler_pages}", stats.samples,
                     stats.words, stats.unmatched, stats.compared, stats.hits,
                     len(stats.misses), percent(stats.hits, stats.compared),
                     percent(stats.control_hits, stats.compared)])
    hits = sum(s.hits for s in all_stats)
    compared = sum(s.compared for s in all_stats)
    rows.append(["ALL", "", sum(s.samples for s in all_stats), sum(s.words for s in all_stats),
                 sum(s.unmatched for s in all_stats), compared, hits, compared - hits,
                 percent(hits, compared),
                 percent(sum(s.control_hits for s in all_stats), compared)])
    table(["file", "pages ours/pop", "samples", "words", "no counterpart", "compared", "hits",
           "misses", "hit rate", "control"], rows)
    print(f"  'no counterpart': poppler has no word with that text near ours (tokenised "
          f"differently); not counted.\n  Compared through a poppler word that contains ours "
          f"or is part of it (letter-spaced text, math): {sum(s.partial for s in all_stats)}.")
    print("  control: the hit rate the same test gives when our boxes and rectangles are all "
          "moved down one line (it should be near 0).")
    examples = [f"{short(s.file, 28)}: {', '.join(s.unmatched_examples)}"
                for s in all_stats if s.unmatched_examples]
    if examples:
        print("  Examples of words without a counterpart:")
        for example in examples:
            print(f"    {example}")

    print("\n  Whole-text comparison (every page): words with a letter or digit; runs of 3+ "
          "one-character words\n  (letter-spaced text such as 'C h i n a', which a quote "
          "'China' will not match); U+FFFD in our text.\n")
    table(["file", "words ours", "words poppler", "ours/poppler", "spaced runs ours",
           "spaced runs poppler", "U+FFFD"],
          [[short(s.file), f"{s.words_ours:,}", f"{s.words_poppler:,}",
            fmt_ratio(ratio_of(s.words_ours, s.words_poppler)), s.spaced_ours,
            s.spaced_poppler, s.replacement_chars] for s in all_stats if not s.error])

    disagreements = [note for s in all_stats for note in s.size_disagreements]
    print(f"\n  Page sizes (ours as displayed vs poppler's <page>): "
          f"{len(disagreements)} page(s) disagree.")
    for note in disagreements:
        print(f"    {note}")

    misses = sorted((m for s in all_stats for m in s.misses), key=lambda m: -m.distance)
    if not misses:
        print("\n  No misses to list.")
    else:
        kinds = Counter(m.kind for m in misses)
        by_file = Counter(m.file for m in misses)
        print("\n  Misses by kind: " + "; ".join(f"{n} {k}" for k, n in kinds.most_common()))
        print("  Misses by file: " + "; ".join(f"{n} {short(f, 32)}"
                                              for f, n in by_file.most_common()))
        shown = misses[:WORST_MISSES]
        print(f"\n  The {len(shown)} worst misses (farthest from our rectangles first); boxes "
              "are x0, y0, x1, y1 in displayed-page points:")
        paths = {e.name: e.path for e in readable}
        for miss in shown:
            miss.third = third_opinion(paths[miss.file], miss)
            rects = " | ".join(f"[{fmt_box(r)}]" for r in miss.rects[:3]) or "none"
            more = f" (+{len(miss.rects) - 3} more)" if len(miss.rects) > 3 else ""
            print(f"   - {short(miss.file, 40)} p{miss.page} (/Rotate {miss.rotation}) "
                  f"word {miss.word!r}: {miss.distance:.1f} pt outside")
            print(f"       context  …{miss.context}…")
            print(f"       poppler  [{fmt_box(miss.target)}] ('{miss.poppler.text}')   ours "
                  f"[{fmt_box(miss.ours)}]")
            print(f"       located  {rects}{more}")
            print(f"       why      {miss.reason}")
            print(f"       PyMuPDF  {miss.third}")
    return hits, compared


def section_time(entries: list[Entry], plan: Plan, results: dict[str, Measures]) -> None:
    print(f"\n3. Ingestion time, CPU seconds of this process, best of {plan.repeats} "
          f"({plan.book_repeats} for the {BOOK_PAGES}-page book); every repeat runs the "
          "three modes\n   back to back on one file, in a rotating order\n")
    print("  ours       = extract_pdf (text layers, no OCR) + find_furniture + chunk_text + "
          "write_geometry\n"
          "  plain      = for page in doc: page.get_text('rawdict'), each dict dropped "
          "(default flags: images included)\n"
          "  same-flags = the plain loop with extract_pdf's flags (ligatures, mediabox "
          "clip; no images, no whitespace)\n")
    for entry in entries:
        if entry.doc is None or entry.name == SMALL_BOOK or entry.name not in results:
            continue  # the 35-page book is there for the memory flatness check only
        samples: dict[str, list[float]] = {mode: [] for mode in MODES}
        repeats = plan.book_repeats if entry.name == BOOK else plan.repeats
        for repeat in range(repeats):
            shift = repeat % len(MODES)
            for mode in MODES[shift:] + MODES[:shift]:
                gc.collect()
                started = time.process_time()
                WORKLOADS[mode](entry.data)
                samples[mode].append(time.process_time() - started)
        results[entry.name].samples = samples
        results[entry.name].seconds = {mode: min(samples[mode]) for mode in MODES}
    rows = []
    for name, m in results.items():
        if not m.seconds:
            continue
        rows.append([short(name), m.pages, f"{m.chars:,}",
                     *(f"{m.seconds[mode]:.3f}" for mode in MODES),
                     fmt_ratio(ratio_of(m.seconds["ours"], m.seconds["plain"])),
                     fmt_ratio(ratio_of(m.seconds["ours"], m.seconds["same-flags"]))])
    for label, names in groups(results):
        sums = {mode: sum(results[n].seconds[mode] for n in names) for mode in MODES}
        rows.append([label, sum(results[n].pages for n in names),
                     f"{sum(results[n].chars for n in names):,}",
                     *(f"{sums[mode]:.3f}" for mode in MODES),
                     fmt_ratio(ratio_of(sums["ours"], sums["plain"])),
                     fmt_ratio(ratio_of(sums["ours"], sums["same-flags"]))])
    table(["file", "pages", "chars", "ours s", "plain s", "same-flags s", "ours/plain",
           "ours/same-flags"], rows)
    print("  plain decodes every image, which ours skips: on the scans and the figure-heavy "
          "files that is most of\n  its time, so ours/plain flatters ingestion there. "
          "same-flags reads the same text page as ours: it is\n  the fair yardstick, and "
          "the goal (issue 23: <= 1.2x) is judged on it.")
    timed = [n for n in results if results[n].seconds]
    print("\n  Ratios ours/same-flags (and ours/plain) line by line:")
    for label, names in [*groups(results), (f"{BOOK_PAGES}-page book", [BOOK])]:
        names = [n for n in names if n in timed]
        if not names:
            continue
        spread = repeat_ratios(results, names)
        print(f"    {label:34s} best of each {time_ratio(results, names, 'same-flags'):.2f}x "
              f"({time_ratio(results, names, 'plain'):.2f}x); repeat by repeat "
              + ", ".join(f"{r:.2f}x" for r in spread))
    corpus = [n for n in timed if n not in (BOOK, SMALL_BOOK, ROTATED)]
    if corpus:
        ordered = sorted(corpus, key=lambda n: time_ratio(results, [n], "same-flags"))
        for label, name in (("fastest corpus file", ordered[0]),
                            ("slowest corpus file", ordered[-1])):
            print(f"    {label + ' (' + short(name, 30) + ')':52s} "
                  f"{time_ratio(results, [name], 'same-flags'):.2f}x "
                  f"({time_ratio(results, [name], 'plain'):.2f}x)")


def time_ratio(results: dict[str, Measures], names: Sequence[str], yardstick: str) -> float:
    """Summed best times, ours over ``yardstick``."""
    return ratio_of(sum(results[n].seconds["ours"] for n in names),
                    sum(results[n].seconds[yardstick] for n in names))


def repeat_ratios(results: dict[str, Measures], names: Sequence[str]) -> list[float]:
    """ours/same-flags summed over ``names`` for each repeat on its own: the spread a
    busy machine puts on the best-of figure."""
    repeats = min(len(results[n].samples["ours"]) for n in names)
    return [ratio_of(sum(results[n].samples["ours"][r] for n in names),
                     sum(results[n].samples["same-flags"][r] for n in names))
            for r in range(repeats)]


# Where ingestion's time goes: each stage is the self time (CPU) of the functions
# named, wrapped for one pass; the first two are MuPDF's work, the same in the
# same-flags loop. Names a version of the code lacks are skipped.
STAGES: tuple[tuple[str, tuple[tuple[object, str], ...]], ...] = (
    ("text page (MuPDF: get_textpage)", ((pymupdf.Page, "get_textpage"),)),
    ("rawdict (MuPDF builds the dicts: get_text)", ((pymupdf.Page, "get_text"),)),
    ("characters counted before the rawdict",
     ((pymupdf.TextPage, "extractText"), (extract_module, "_chars_at_most"))),
    ("lines: text and boxes from the rawdict", ((extract_module, "_read_line"),)),
    ("layout: markers, columns, reading order",
     tuple((extract_module, name) for name in ("median", "attach_markers", "block_of",
                                               "split_columns", "page_order",
                                               "reading_order"))),
    ("tables: the page's drawings read for ruling lines (MuPDF and ours)",
     ((extract_module, "ruling_lines"),)),
    ("tables: rows read from the text and the rules", ((extract_module, "read_tables"),)),
    ("rest of the page: rawdict freed, text and boxes written, page sizes",
     ((extract_module, "_extract_page"),)),
    ("document: open, load pages, spool text, geometry file",
     ((extract_module, "extract_pdf"),)),
)


class _StageClock:
    """Self time per stage: a stage's clock stops while a nested stage runs."""

    def __init__(self) -> None:
        self.seconds: Counter[str] = Counter()
        self.running: list[list[object]] = []  # [stage, started]

    def wrap(self, stage: str, function: Callable[..., object]) -> Callable[..., object]:
        def timed(*args: object, **kwargs: object) -> object:
            now = time.process_time()
            if self.running:
                outer = self.running[-1]
                self.seconds[str(outer[0])] += now - float(outer[1])  # type: ignore[arg-type]
            self.running.append([stage, now])
            try:
                return function(*args, **kwargs)
            finally:
                now = time.process_time()
                self.seconds[stage] += now - float(self.running.pop()[1])  # type: ignore[arg-type]
                if self.running:
                    self.running[-1][1] = now
        return timed


def stage_pass(datas: Sequence[bytes]) -> Counter[str]:
    """One ingestion of each file with every stage's functions wrapped."""
    clock = _StageClock()
    saved = []
    for stage, targets in STAGES:
        for owner, name in targets:
            if hasattr(owner, name):
                saved.append((owner, name, getattr(owner, name)))
                setattr(owner, name, clock.wrap(stage, getattr(owner, name)))
    try:
        for data in datas:
            gc.collect()
            extracted = extract_module.extract_pdf(data, ocr=None)
            started = time.process_time()
            furniture = find_furniture(extracted)
            furnished = time.process_time()
            chunk_text(extracted.text, target_size=1200, overlap=200, exclude=furniture)
            chunked = time.process_time()
            _write_geometry(extracted)
            clock.seconds["furniture"] += furnished - started
            clock.seconds["chunks"] += chunked - furnished
            clock.seconds["geometry written to a file"] += time.process_time() - chunked
    finally:
        for owner, name, original in reversed(saved):
            setattr(owner, name, original)
    return clock.seconds


def yardstick_pass(datas: Sequence[bytes]) -> Counter[str]:
    """The same-flags loop, split: open and load, text page, rawdict, freeing it."""
    seconds: Counter[str] = Counter()
    for data in datas:
        gc.collect()
        started = time.process_time()
        doc = pymupdf.open(stream=data, filetype="pdf")
        seconds["open, load pages"] += time.process_time() - started
        for index in range(doc.page_count):
            started = time.process_time()
            page = doc.load_page(index)
            loaded = time.process_time()
            textpage = page.get_textpage(flags=_TEXT_FLAGS)
            paged = time.process_time()
            raw = page.get_text("rawdict", textpage=textpage)
            built = time.process_time()
            del raw, textpage
            seconds["open, load pages"] += loaded - started
            seconds["text page"] += paged - loaded
            seconds["rawdict"] += built - paged
            seconds["rawdict freed"] += time.process_time() - built
        doc.close()
    return seconds


def section_stages(entries: list[Entry], results: dict[str, Measures]) -> None:
    print("\n3b. Where ingestion's time goes: CPU self time of each stage in one pass "
          "(functions wrapped), and\n    the same-flags loop split the same way; "
          "shares of ours, and each stage over the whole same-flags loop\n")
    by_name = {e.name: e for e in entries}
    corpus = [n for n in results if n not in (BOOK, SMALL_BOOK, ROTATED)]
    columns = [("corpus", corpus), (f"{BOOK_PAGES}p book", [BOOK] if BOOK in results else [])]
    columns = [(label, names) for label, names in columns if names]
    ours = {label: stage_pass([by_name[n].data for n in names]) for label, names in columns}
    yard = {label: yardstick_pass([by_name[n].data for n in names]) for label, names in columns}
    stages = [stage for stage, _ in STAGES] + ["furniture", "chunks",
                                               "geometry written to a file"]
    rows = []
    for stage in stages:
        row: list[object] = [stage]
        for label, _ in columns:
            total, loop = sum(ours[label].values()), sum(yard[label].values())
            value = ours[label][stage]
            row += [f"{value:.3f}", f"{value / total:.0%}", f"{value / loop:.3f}"]
        rows.append(row)
    rows.append(["TOTAL (clock reads add a little)",
                 *[cell for label, _ in columns for cell in (
                     f"{sum(ours[label].values()):.3f}", "100%",
                     f"{sum(ours[label].values()) / sum(yard[label].values()):.3f}")]])
    for part in ("open, load pages", "text page", "rawdict", "rawdict freed"):
        row = [f"same-flags loop: {part}"]
        for label, _ in columns:
            loop = sum(yard[label].values())
            row += [f"{yard[label][part]:.3f}", f"{yard[label][part] / loop:.0%}",
                    f"{yard[label][part] / loop:.3f}"]
        rows.append(row)
    table(["stage", *[h for label, _ in columns for h in (f"{label} s", "share",
                                                          "/ same-flags")]], rows)
    print("  MuPDF's text page and rawdict are the yardstick's own work; ingestion reads the "
          "rawdict with Python's\n  cyclic GC paused (the loop leaves it on), which is why "
          "its rawdict stage can cost less than the loop's.")


def _write_geometry(extracted: ExtractedDocument) -> None:
    with tempfile.TemporaryFile() as handle:
        extracted.write_geometry(handle)


def section_ocr(entries: list[Entry]) -> float | None:
    """Seconds per OCR'd page (wall clock, 300 dpi), each page alone; None without tesseract."""
    print("\n6. OCR of the pages without a text layer, timed apart: each page alone through "
          "extract_pdf\n   (rendered at 300 dpi, tesseract -l eng with character boxes, "
          "OMP_THREAD_LIMIT=1), wall-clock seconds\n")
    if not installed_languages():
        print("  skipped: tesseract is not installed (bin/setup installs it)")
        return None
    rows = []
    total_seconds = 0.0
    total_pages = 0
    for entry in entries:
        if entry.doc is None or entry.doc.ocr is None:
            continue
        with pymupdf.open(stream=entry.data, filetype="pdf") as doc:
            for ocred in entry.doc.ocr.pages:
                single = pymupdf.open()
                single.insert_pdf(doc, from_page=ocred.number - 1, to_page=ocred.number - 1)
                data = single.tobytes()
                assert has_drawing(single[0])
                single.close()
                started = time.perf_counter()
                page_doc = extract_pdf(data, ocr=OcrOptions())
                seconds = time.perf_counter() - started
                page_doc.geometry.close()
                total_seconds += seconds
                total_pages += 1
                rows.append([short(entry.name), ocred.number, ocred.words,
                             f"{ocred.confidence:.1f}", f"{seconds:.2f}"])
    if not total_pages:
        print("  no page without a text layer in these files")
        return None
    per_page = total_seconds / total_pages
    rows.append(["all", total_pages, "", "", f"{per_page:.2f} s/page"])
    table(["file", "page", "words", "mean confidence %", "seconds"], rows)
    print("  A text-layer page takes milliseconds (section 3); OCR's allowance per page is "
          "CITEGUARD_MAX_OCR_SECONDS_PER_PAGE\n  (30 s by default).")
    return per_page


def groups(results: dict[str, Measures]) -> list[tuple[str, list[str]]]:
    corpus = [n for n in results if n not in (BOOK, SMALL_BOOK, ROTATED)]
    found = []
    if corpus:
        found.append(("TOTAL corpus", corpus))
    if BOOK in results:
        found.append((f"TOTAL corpus + {BOOK_PAGES}p book", [*corpus, BOOK]))
    return found


def section_memory(entries: list[Entry], plan: Plan, results: dict[str, Measures]) -> None:
    modes = plan.memory_modes
    print("\n4. Peak memory, MB above the child's resident size just before the work "
          "(imports done, file read),\n   one fresh child process per file and mode; "
          "two children at a time" + ("" if "same-flags" in modes else
                                       "; same-flags skipped in a quick run") + "\n")
    readable = [e for e in entries if e.doc is not None and e.name in results]
    # Longest first, so that two workers finish together.
    jobs = sorted(((e, mode) for e in readable for mode in modes),
                  key=lambda job: -len(job[0].doc.text) if job[0].doc else 0)
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        answers = list(pool.map(lambda job: run_child(job[1], job[0].path), jobs))
    befores = []
    methods = set()
    for (entry, mode), answer in zip(jobs, answers, strict=True):
        results[entry.name].memory[mode] = float(answer["after"]) - float(answer["before"])
        befores.append(float(answer["before"]))
        methods.add(str(answer["method"]))

    def row(label: str, names: Sequence[str]) -> list[object]:
        peaks = {mode: sum(results[n].memory.get(mode, math.nan) for n in names)
                 for mode in MODES}
        return [label, sum(results[n].pages for n in names),
                f"{sum(results[n].chars for n in names):,}",
                *(mb(peaks[mode]) for mode in MODES),
                fmt_ratio(ratio_of(peaks["ours"], peaks["plain"])),
                fmt_ratio(ratio_of(peaks["ours"], peaks["same-flags"])),
                f"{bytes_per_char(results, names):.2f}"]

    rows = [row(short(name), [name]) for name in results]
    rows += [row(f"{label} (sum of peaks)", names) for label, names in groups(results)]
    table(["file", "pages", "chars", "ours MB", "plain MB", "same-flags MB", "ours/plain",
           "ours/same-flags", "geometry B/char"], rows)
    baseline = import_only_rss()
    method = ", ".join(sorted(methods))
    print(f"  Measured with {method} (/proc/self/status). geometry B/char = "
          "write_geometry() bytes / len(text).\n  A process that only imports pymupdf holds "
          f"{mb(baseline) if baseline else '?'} MB (PyMuPDF 2.0 loads its ONNX layout analyser "
          "at import); the children skip\n  that analyser (used by Page.get_layout() only) and "
          f"held {mb(min(befores))}-{mb(max(befores))} MB before the work.")
    if BOOK in results and SMALL_BOOK in results:
        big, small = results[BOOK], results[SMALL_BOOK]
        extra = big.pages - small.pages
        print(f"\n  Flatness: the synthetic book at {SMALL_BOOK_PAGES} and {BOOK_PAGES} pages "
              "(same generator, same first pages):")
        for mode in modes:
            growth = (big.memory[mode] - small.memory[mode]) / extra
            print(f"    {mode:10s} {mb(small.memory[mode]):>6} -> {mb(big.memory[mode]):>6} MB"
                  f"   {growth / 1e3:+7.1f} KB per extra page")
        chars = (big.chars - small.chars) / extra
        geometry = (big.geometry - small.geometry) / extra
        print(f"    Each page adds {chars:,.0f} characters: {geometry / 1e3:.1f} KB of geometry, "
              f"streamed to a temporary file page by page,\n    plus the text "
              f"and the chunk list. One page's rawdict is ~{rawdict_size(chars) / 1e6:.1f} MB "
              "of Python objects, so growth far below that per page means\n    no page's "
              "dicts outlive the page.")


def bytes_per_char(results: dict[str, Measures], names: Sequence[str]) -> float:
    return sum(results[n].geometry for n in names) / sum(results[n].chars for n in names)


def rawdict_size(chars: float) -> float:
    """Bytes of Python objects in a rawdict holding ``chars`` characters (measured)."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((50, 72), "\n".join(["The quick brown fox jumps over it."] * 20))
        raw = page.get_text("rawdict")
        count = sum(len(s["chars"]) for b in raw["blocks"] for ln in b["lines"]
                    for s in ln["spans"])
        size = deep_size(raw)
    return size / count * chars


def deep_size(value: object) -> int:
    size = sys.getsizeof(value)
    if isinstance(value, dict):
        size += sum(deep_size(k) + deep_size(v) for k, v in value.items())
    elif isinstance(value, list | tuple):
        size += sum(deep_size(v) for v in value)
    return size


# -- Main ------------------------------------------------------------------------------------


def goals(entries: list[Entry], hits: tuple[int, int] | None,
          results: dict[str, Measures]) -> None:
    print("\n5. Goals (time and memory as ratios ours / yardstick: plain is the issue's loop, "
          "same-flags the same\n   loop reading the same text page as ours, the fair one "
          "for time)\n")
    rows: list[list[object]] = []
    if hits is not None and hits[1]:
        rate = hits[0] / hits[1]
        rows.append(["hit rate vs poppler", f"{100 * rate:.1f}%", "", f">= {GOAL_HIT_RATE:.0%}",
                     verdict(rate, GOAL_HIT_RATE, at_least=True), ""])
    else:
        rows.append(["hit rate vs poppler", "n/a", "", f">= {GOAL_HIT_RATE:.0%}",
                     "not measured (no pdftotext)", ""])
    corpus = [n for n in results if n not in (BOOK, SMALL_BOOK, ROTATED)]

    def ratios(kind: str, names: Sequence[str]) -> list[float]:
        def total(mode: str) -> float:
            return sum(getattr(results[n], kind).get(mode, math.nan) for n in names)
        return [ratio_of(total("ours"), total(mode)) for mode in ("plain", "same-flags")]

    measured: list[tuple[str, str, list[str]]] = []
    for label, names in groups(results):
        measured.append((f"time, {label}", "seconds", names))
    if BOOK in results:
        measured.append((f"time, {BOOK_PAGES}-page book", "seconds", [BOOK]))
        measured.append((f"memory, {BOOK_PAGES}-page book", "memory", [BOOK]))
    if corpus:
        measured.append(("memory, corpus (sum of peaks)", "memory", corpus))
    for label, kind, names in measured:
        r = ratios(kind, names)
        if all(math.isnan(v) for v in r):
            continue  # section skipped
        goal = GOAL_TIME_RATIO if kind == "seconds" else GOAL_MEMORY_RATIO
        rows.append([label, times(r[0]), times(r[1]), f"<= {goal}x",
                     verdict(r[0], goal), verdict(r[1], goal)])
    # Time is judged on totals (a one-page file's figure is mostly noise); the
    # slowest file is shown, the slowest file's memory judged.
    for kind, yardstick in (("seconds", 1), ("memory", 0)):
        worst = max(corpus, key=lambda n: nan_low(ratios(kind, [n])[yardstick]), default=None)
        if worst is not None and not math.isnan(ratios(kind, [worst])[0]):
            r = ratios(kind, [worst])
            if kind == "seconds":
                rows.append([f"time, slowest corpus file ({short(worst, 24)})", times(r[0]),
                             times(r[1]), "shown", "", ""])
            else:
                rows.append([f"memory, worst corpus file ({short(worst, 24)})", times(r[0]),
                             times(r[1]), f"<= {GOAL_MEMORY_RATIO}x",
                             verdict(r[0], GOAL_MEMORY_RATIO), verdict(r[1], GOAL_MEMORY_RATIO)])
    worst = max(results, key=lambda n: results[n].geometry / results[n].chars)
    bpc = results[worst].geometry / results[worst].chars
    rows.append([f"geometry B/char, worst ({short(worst, 24)})", f"{bpc:.2f}", "",
                 f"<= {GOAL_BYTES_PER_CHAR:.0f}", verdict(bpc, GOAL_BYTES_PER_CHAR), ""])
    errors = [e for e in entries if e.doc is None]
    unexpected = [e for e in entries if e.expected not in (e.status, "?")]
    rows.append(["error files with their expected status",
                 f"{len(errors) - len([e for e in unexpected if e.doc is None])}/{len(errors)}",
                 "", "all", "PASS" if not unexpected else "FAIL", ""])
    table(["goal", "vs plain", "vs same-flags", "goal", "verdict (plain)",
           "verdict (same-flags)"], rows)
    print("  Geometry: 16 bytes per character with a box (4 float32), 4 per inserted line "
          "break, separator or joiner\n  (its position), a 24-byte header and 96 bytes per "
          "page.")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="citeguard ingestion benchmark")
    parser.add_argument("--quick", action="store_true",
                        help="20 samples per file, one timing repeat, no same-flags memory")
    parser.add_argument("--seed", type=int, default=20240601, help="sampling seed")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                        help="directory of PDFs (default: ../shared/corpus/pdfs)")
    parser.add_argument("--skip", action="append", default=[], choices=SECTIONS,
                        help="leave a section out (repeatable)")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "PDF"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(*args.child)
    plan = PLANS["quick" if args.quick else "normal"]
    began = time.perf_counter()
    print(f"citeguard ingestion benchmark: {'quick' if args.quick else 'normal'} run, "
          f"seed {args.seed}" + (f", skipping {', '.join(args.skip)}" if args.skip else ""))
    print(f"Python {platform.python_version()}, PyMuPDF {pymupdf.VersionBind}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs; "
          f"{poppler_version() or 'pdftotext not installed'}")
    spent = []
    hits = None
    with tempfile.TemporaryDirectory(prefix="citeguard-bench-") as folder:
        entries, note = load_entries(args.corpus, Path(folder), args.seed)
        print(note + f"; generated: books of {BOOK_PAGES} and {SMALL_BOOK_PAGES} pages, "
              "4 rotated/cropped pages")
        spent.append(("setup", time.perf_counter() - began))
        started = time.perf_counter()
        results = section_status(entries)
        spent.append(("status", time.perf_counter() - started))
        for name in SECTIONS:
            if name in args.skip:
                continue
            started = time.perf_counter()
            if name == "hits":
                hits = section_hits(entries, plan, args.seed)
            elif name == "time":
                section_time(entries, plan, results)
            elif name == "stages":
                section_stages(entries, results)
            elif name == "ocr":
                section_ocr(entries)
            else:
                section_memory(entries, plan, results)
            spent.append((name, time.perf_counter() - started))
    goals(entries, hits, results)
    print(f"\nWall time {time.perf_counter() - began:.0f} s ("
          + ", ".join(f"{name} {seconds:.0f} s" for name, seconds in spent) + ").")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
