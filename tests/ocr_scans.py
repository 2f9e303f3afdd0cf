"""Scanned pages the OCR tests make: text set with PyMuPDF on a page, the
page rasterised, and the picture alone put on a page of a new PDF (no text
layer). The born-digital original is kept, so a test knows where each word
is printed on the scan."""

from __future__ import annotations

from dataclasses import dataclass

import pymupdf

from reviewer.ingestion.ocr import installed_languages

__all__ = [
    "ENGLISH", "FRENCH", "GERMAN", "STAMP", "Scan", "make_scan", "scan_of", "tesseract_missing",
    "turned_box", "turned_scan_of",
]

ENGLISH = (
    "The tenant shall pay the rent on the first day of each month.",
    "Late payments incur a fee of forty dollars after five days.",
    "The landlord must repair the heating within two weeks of notice.",
)
FRENCH = (
    "Le locataire paiera le loyer le premier jour de chaque mois.",
    "Une pénalité sera appliquée après cinq jours de retard.",
    "Le propriétaire réparera le chauffage dans les deux semaines.",
)
GERMAN = (
    "Der Mieter zahlt die Miete am ersten Tag jedes Monats.",
    "Für verspätete Zahlungen wird eine Gebühr fällig.",
    "Der Vermieter muss die Heizung innerhalb von zwei Wochen reparieren.",
)


def tesseract_missing(*languages: str) -> str:
    """Why OCR tests cannot run here ("" when they can)."""
    installed = installed_languages()
    if not installed:
        return "tesseract is not installed (bin/setup installs tesseract-ocr)"
    missing = [name for name in languages if name not in installed]
    if missing:
        return f"tesseract has no {'/'.join(missing)} data (bin/setup installs it)"
    return ""


@dataclass(frozen=True)
class Scan:
    data: bytes  # the image-only PDF
    original: bytes  # the born-digital PDF it was rasterised from
    lines: tuple[str, ...]

    def words(self, page: int = 1) -> list[tuple[float, float, float, float, str]]:
        """The printed words of the original's page (x0, y0, x1, y1, word), in points."""
        with pymupdf.open(stream=self.original, filetype="pdf") as doc:
            return [tuple(w[:5]) for w in doc[page - 1].get_text("words")]  # type: ignore[misc]


def _write_lines(page: pymupdf.Page, lines: tuple[str, ...], fontsize: float) -> None:
    y = 110.0
    for line in lines:
        page.insert_text((72, y), line, fontname="helv", fontsize=fontsize)
        y += fontsize * 2.2


#: What a gazette prints on each scanned page (a text layer of its own).
STAMP = "recueil n°070 du 07/05/2025"
#: Where it is printed: the foot of the page, at 8 pt, as in the gazette.
STAMP_AT = (17.0, 780.0)


def make_scan(lines: tuple[str, ...] = ENGLISH, *, dpi: int = 200, fontsize: float = 13,
              text_pages: tuple[int, ...] = (), pages: int = 1, blank_pages: tuple[int, ...] = (),
              stamp: str = "", picture_share: float = 1.0) -> Scan:
    """A PDF of ``pages`` pages: page n (1-based) is a scan of ``lines``
    unless n is in ``text_pages`` (the same lines as born-digital text) or in
    ``blank_pages`` (nothing drawn). ``stamp``: a line of text set at the
    foot of every scanned page, over the picture; ``picture_share``: the
    share of the page's height the picture is drawn on (its top part)."""
    original = pymupdf.open()
    scan = pymupdf.open()
    for number in range(1, pages + 1):
        source = original.new_page(width=612, height=792)
        if number in blank_pages:
            scan.new_page(width=612, height=792)
            continue
        _write_lines(source, lines, fontsize)
        target = scan.new_page(width=612, height=792)
        if number in text_pages:
            _write_lines(target, lines, fontsize)
            continue
        picture = source.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
        rect = target.rect
        target.insert_image(pymupdf.Rect(0, 0, rect.width, rect.height * picture_share),
                            pixmap=picture, keep_proportion=False)
        if stamp:
            target.insert_text(STAMP_AT, stamp, fontname="helv", fontsize=8)
    data = bytes(scan.tobytes(garbage=3, deflate=True))
    return Scan(data, bytes(original.tobytes()), lines)


def scan_of(original: bytes, *, dpi: int = 300) -> Scan:
    """A scan of every page of the born-digital PDF ``original`` (a table a
    test drew, say): each page rasterised and the picture alone on a page of
    the same size."""
    scan = pymupdf.open()
    with pymupdf.open(stream=original, filetype="pdf") as source:
        for page in source:
            picture = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
            target = scan.new_page(width=page.rect.width, height=page.rect.height)
            target.insert_image(target.rect, pixmap=picture, keep_proportion=False)
    return Scan(bytes(scan.tobytes(garbage=3, deflate=True)), original, ())


def turned_box(box: tuple[float, float, float, float], width: float, height: float,
               turn: int) -> tuple[float, float, float, float]:
    """Where ``box`` (points, on a ``width`` x ``height`` page) lies once
    the page is turned ``turn`` degrees clockwise (origin top-left)."""
    x0, y0, x1, y1 = box
    if turn == 90:
        return height - y1, x0, height - y0, x1
    if turn == 180:
        return width - x1, height - y1, width - x0, height - y0
    if turn == 270:
        return y0, width - x1, y1, width - x0
    return box


def turned_scan_of(original: bytes, turn: int, *, dpi: int = 300) -> Scan:
    """A scan of the born-digital PDF ``original`` fed in turned ``turn``
    degrees clockwise (a fax sent sideways, a letter upside down): each page
    rasterised turned, the picture alone on a page of the turned size."""
    scan = pymupdf.open()
    with pymupdf.open(stream=original, filetype="pdf") as source:
        for page in source:
            matrix = pymupdf.Matrix(dpi / 72, dpi / 72).prerotate(turn)
            picture = page.get_pixmap(matrix=matrix, colorspace=pymupdf.csGRAY, alpha=False)
            width, height = page.rect.width, page.rect.height
            if turn in (90, 270):
                width, height = height, width
            target = scan.new_page(width=width, height=height)
            target.insert_image(target.rect, pixmap=picture, keep_proportion=False)
    return Scan(bytes(scan.tobytes(garbage=3, deflate=True)), original, ())
