"""poppler's ``pdftotext -cropbox -bbox-layout`` as an independent extractor.

Shared by ``bench/ingest.py`` (are our highlights on poppler's words?) and
``bench/generalise.py`` (do quotes taken from poppler's text verify and land
on those words?). Also the corpus manifest, which both read.

Coordinates: ``-cropbox`` puts poppler's origin at the crop box's top-left,
and poppler writes the words of a page with /Rotate in the displayed frame, as
ours are (``bench/ingest.py`` checks the page sizes and notes where the
``<page>`` element gives the unrotated size). So a poppler word box and a
``locate()`` rectangle compare directly, in PDF points.
"""

from __future__ import annotations

import csv
import html
import re
import shutil
import subprocess
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "PopplerPage",
    "PopplerWord",
    "expected_status",
    "poppler_pages",
    "poppler_version",
    "read_manifest",
    "word_key",
]


@dataclass
class PopplerWord:
    text: str
    key: str
    box: tuple[float, float, float, float]
    # Where poppler put it: counters over the page, in poppler's reading order.
    flow: int = 0
    block: int = 0
    line: int = 0

    @property
    def centre(self) -> tuple[float, float]:
        return ((self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2)


@dataclass
class PopplerPage:
    width: float
    height: float
    words: list[PopplerWord] = field(default_factory=list)  # in poppler's reading order
    by_key: dict[str, list[PopplerWord]] = field(default_factory=dict)


_POPPLER_TAG = re.compile(
    r'<page width="([\d.]+)" height="([\d.]+)">'
    r'|<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*?)</word>'
    r"|<(flow|block|line)[ >]",
    re.S,
)


def poppler_version() -> str | None:
    """pdftotext's version line, or None when poppler-utils is not installed."""
    if shutil.which("pdftotext") is None:
        return None
    done = subprocess.run(["pdftotext", "-v"], capture_output=True, text=True, check=False)
    first = (done.stderr or done.stdout).strip().splitlines()
    return first[0] if first else "pdftotext (unknown version)"


def poppler_pages(path: Path, only_page: int | None = None) -> list[PopplerPage]:
    """Every page's words with their boxes, flows, blocks and lines (or only
    page ``only_page``, 1-based: then the list holds that one page).

    Raises RuntimeError when pdftotext fails (and TimeoutExpired after 300 s).
    """
    pages_wanted = [] if only_page is None else ["-f", str(only_page), "-l", str(only_page)]
    done = subprocess.run(
        ["pdftotext", "-cropbox", "-bbox-layout", "-enc", "UTF-8", *pages_wanted, str(path),
         "-"],
        capture_output=True, timeout=300, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode("utf-8", "replace").strip()[:300])
    pages: list[PopplerPage] = []
    counters = {"flow": 0, "block": 0, "line": 0}
    for match in _POPPLER_TAG.finditer(done.stdout.decode("utf-8", "replace")):
        if match.group(1) is not None:
            pages.append(PopplerPage(float(match.group(1)), float(match.group(2))))
            continue
        if match.group(8) is not None:
            counters[match.group(8)] += 1
            continue
        text = html.unescape(match.group(7))
        word = PopplerWord(text, word_key(text),
                           (float(match.group(3)), float(match.group(4)),
                            float(match.group(5)), float(match.group(6))),
                           counters["flow"], counters["block"], counters["line"])
        pages[-1].words.append(word)
        if word.key:
            pages[-1].by_key.setdefault(word.key, []).append(word)
    return pages


def word_key(text: str) -> str:
    """Comparable form: compatibility-decomposed, no accents, case or punctuation."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c)).casefold()


# -- The corpus manifest -----------------------------------------------------------------


def read_manifest(folder: Path) -> dict[str, dict[str, str]]:
    """``MANIFEST.tsv`` of a corpus folder by file name ({} when there is none)."""
    manifest = folder / "MANIFEST.tsv"
    if not manifest.is_file():
        return {}
    with manifest.open(encoding="utf-8", newline="") as handle:
        return {row["file"]: row for row in csv.DictReader(handle, delimiter="\t")}


def expected_status(row: dict[str, str]) -> str:
    """What the manifest's columns say extract_pdf should answer.

    An owner password alone ("empty user password") restricts copying but
    opens without a password, so the file reads as ok. A file the manifest
    says MuPDF only *repairs* (truncated: no trailer, pages lost) is refused
    as corrupt: citing from part of a document is not safe. A scan without a
    text layer is OCR'd (reviewer.ingestion.ocr), so it reads as ok too.
    """
    encrypted = row.get("encrypted", "").strip().lower()
    if encrypted.startswith("yes") and "empty user password" not in encrypted:
        return "encrypted"
    opens = row.get("opens_in_pymupdf_2.0", "").strip().lower()
    if opens.startswith("no") or "repaired" in opens:
        return "corrupt"
    return "ok"
