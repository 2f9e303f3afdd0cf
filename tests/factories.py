"""PDFs built by the tests themselves, with the layout they are meant to have.

The one place test PDFs are made; tests/ingestion/conftest.py wraps them in fixtures.

Every body word is a unique made-up four-letter word, so any run of whole words
occurs once per page and ``page.search_for`` can serve as an independent oracle
for where that text is.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from reviewer.ingestion import ExtractedDocument, extract_pdf

CONSONANTS = "bfgknprstz"  # no l/v/x/c/d/m: no word can look like a roman numeral
VOWELS = "aeiou"
FONT_SIZE = 10.0
LINE_HEIGHT = 14.0
A4 = (595.0, 842.0)

HEADER = "Journal of Reproducible Tests, Vol. 7, 2024"
FOOTER = "Preprint, not peer reviewed"
ONE_OFF_TOP_LINE = "Received 3 March 2024"  # in the top band, page 1 only
TITLE = "A Study of Column Layouts"
BODY_NUMBER = "42"  # a bare number mid-page: not a page number
BREAK_BEFORE = "The treaty was signed in"
BREAK_AFTER = "Geneva by all parties."

# Search exactly as extraction reads: no dehyphenation, ligatures kept.
SEARCH_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP

LIGATURE_FONTS = [
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    Path("/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"),
    Path("/usr/share/fonts/dejavu/DejaVuSans.ttf"),
]


def word_source() -> Iterator[str]:
    for n in itertools.count(len(CONSONANTS) * len(VOWELS)):
        letters = []
        while n:
            n, r = divmod(n, len(CONSONANTS) * len(VOWELS))
            letters.append(CONSONANTS[r // len(VOWELS)] + VOWELS[r % len(VOWELS)])
        yield "".join(letters)


def sentences(words: Iterator[str], count: int, length: int = 7) -> list[str]:
    result = []
    for k in range(count):
        chosen = [next(words) for _ in range(length + k % 3)]
        result.append(" ".join([chosen[0].capitalize(), *chosen[1:]]) + ".")
    return result


def wrap(text: str, width: float) -> list[str]:
    lines: list[str] = []
    current = ""
    for token in text.split():
        candidate = f"{current} {token}".strip()
        if current and pymupdf.get_text_length(candidate, fontsize=FONT_SIZE) > width:
            lines.append(current)
            current = token
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


def write_lines(page: pymupdf.Page, x: float, y: float, lines: list[str]) -> float:
    """Insert lines with baselines LINE_HEIGHT apart; returns the next baseline."""
    page.insert_text(
        (x, y), "\n".join(lines), fontsize=FONT_SIZE, lineheight=LINE_HEIGHT / FONT_SIZE
    )
    return y + LINE_HEIGHT * len(lines)


def centered(page: pymupdf.Page, y: float, text: str, size: float = FONT_SIZE) -> None:
    width = pymupdf.get_text_length(text, fontsize=size)
    page.insert_text(((page.rect.width - width) / 2, y), text, fontsize=size)


@dataclass
class BuiltPdf:
    """A generated PDF and the text lines written on each page, in reading order."""

    data: bytes
    path: Path
    pages: list[list[str]] = field(default_factory=list)
    furniture: list[list[str]] = field(default_factory=list)  # per page
    left: list[str] = field(default_factory=list)  # page 1 left column
    right: list[str] = field(default_factory=list)  # page 1 right column

    def extract(self) -> ExtractedDocument:
        return extract_pdf(self.data)


def build_report(path: Path) -> BuiltPdf:
    """Four A4 pages with running header, footer and page number on each.

    Page 1: a one-off line in the top margin, a full-width title, then two
    columns whose lines *and paragraph gaps* sit at the same heights, the
    left one with a word hyphenated across lines. Pages 2-3: one column, with
    a sentence running from the foot of page 2 to the top of page 3. Page 4:
    a lone number mid-page.
    """
    words = word_source()
    doc = pymupdf.open()
    built = BuiltPdf(data=b"", path=path)
    numbers = ["- 1 -", "- 2 -", "- 3 -", "Page 4 of 4"]
    column_width = 230.0
    for index in range(4):
        page = doc.new_page(width=A4[0], height=A4[1])
        lines: list[str] = [HEADER]
        page.insert_text((50, 40), HEADER, fontsize=9)
        if index == 0:
            page.insert_text((50, 62), ONE_OFF_TOP_LINE, fontsize=9)
            centered(page, 110, TITLE, 16)
            lines += [ONE_OFF_TOP_LINE, TITLE]
            left_1 = wrap(" ".join(sentences(words, 6)), column_width)
            # Narrower, to leave room for the hyphenated word added below.
            left_2 = wrap(" ".join(sentences(words, 6)), column_width - 50)
            # A word broken at a line end, as typeset text does.
            left_2[1] = left_2[1] + " hyphen-"
            left_2[2] = "ated " + left_2[2]
            right_1 = wrap(" ".join(sentences(words, 6)), column_width)
            right_2 = wrap(" ".join(sentences(words, 6)), column_width)
            top = 160.0
            # Same number of lines in the first paragraphs so the paragraph gap
            # lines up across the columns (the case that trips naive XY cuts).
            rows = min(len(left_1), len(right_1))
            left_1, right_1 = left_1[:rows], right_1[:rows]
            gap_at = write_lines(page, 50, top, left_1)
            write_lines(page, 50, gap_at + LINE_HEIGHT, left_2)
            write_lines(page, 315, top, right_1)
            write_lines(page, 315, gap_at + LINE_HEIGHT, right_2)
            built.left = left_1 + left_2
            built.right = right_1 + right_2
            lines += built.left + built.right
        else:
            body = wrap(" ".join(sentences(words, 14)), 480)
            if index == 1:
                body.append(BREAK_BEFORE)
                write_lines(page, 50, 760 - LINE_HEIGHT * (len(body) - 1), body)
            elif index == 2:
                body.insert(0, BREAK_AFTER)
                write_lines(page, 50, 100, body)
            else:
                y = write_lines(page, 50, 100, body)
                page.insert_text((50, y + 60), BODY_NUMBER, fontsize=FONT_SIZE)
                body.append(BODY_NUMBER)
            lines += body
        page.insert_text((50, 800), FOOTER, fontsize=9)
        centered(page, 822, numbers[index], 9)
        lines += [FOOTER, numbers[index]]
        built.pages.append(lines)
        built.furniture.append([HEADER, FOOTER, numbers[index]])
    built.data = doc.tobytes(garbage=3, deflate=True)
    doc.close()
    path.write_bytes(built.data)
    return built


def build_rotated(path: Path, rotation: int) -> BuiltPdf:
    """Two pages: page 1 plain, page 2 with /Rotate ``rotation`` (text written unrotated)."""
    words = word_source()
    doc = pymupdf.open()
    built = BuiltPdf(data=b"", path=path)
    for index in range(2):
        page = doc.new_page(width=A4[0], height=A4[1])
        body = wrap(" ".join(sentences(words, 8)), 400)
        write_lines(page, 60, 120, body)
        built.pages.append(body)
        if index == 1:
            page.set_rotation(rotation)
    built.data = doc.tobytes()
    doc.close()
    path.write_bytes(built.data)
    return built


def build_upright_landscape(path: Path) -> BuiltPdf:
    """A /Rotate 90 page whose text reads upright as displayed (like a landscape table)."""
    doc = pymupdf.open()
    page = doc.new_page(width=A4[0], height=A4[1])
    page.set_rotation(90)
    words = word_source()
    lines = [" ".join(next(words) for _ in range(8)) for _ in range(6)]
    # Upright on a page shown turned 90 degrees clockwise: in unrotated space
    # the text runs bottom to top and successive lines move right.
    for k, line in enumerate(lines):
        page.insert_text((80 + k * LINE_HEIGHT, 700), line, fontsize=FONT_SIZE, rotate=90)
    built = BuiltPdf(data=doc.tobytes(), path=path, pages=[lines])
    doc.close()
    path.write_bytes(built.data)
    return built


def build_offset_boxes(path: Path, rotation: int) -> bytes:
    """A hand-written PDF: MediaBox [0 10 612 802], CropBox [30 40 500 700],
    the word "Hello" drawn with its origin at PDF user-space (100, 600)."""
    content = b"BT /F1 12 Tf 100 600 Td (Hello) Tj ET"
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 10 612 802] /CropBox [30 40 500 700]"
        b" /Rotate %d /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>" % rotation,
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.7\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref_at = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref_at,
    )
    path.write_bytes(bytes(out))
    return bytes(out)


