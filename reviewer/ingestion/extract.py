"""PDF text with a box for every character, in reading order.

``extract_pdf(data)`` turns an uploaded PDF into one document text (the string
that chunking, matching and the normaliser all index into) plus the geometry
needed to highlight any range of that text in a viewer. Every index here is a
Python code-point index into :attr:`ExtractedDocument.text`.

Layout of the text:

* Pages follow each other separated by :data:`PAGE_SEPARATOR` (``"\\n\\f\\n"``).
* On a page, text blocks come in reading order: columns are detected from the
  blocks' x-ranges (left column top to bottom, then the right one); blocks that
  span the columns (titles, wide figures) stay in vertical order. The layout
  rules live in :mod:`reviewer.ingestion.layout`; this module reads the page
  and writes the text and its geometry.
* A table reads by its rows: each row a block, its cells left to right and
  a cell's lines in order (:func:`~reviewer.ingestion.tables.read_tables`).
* Blocks are separated by a blank line (``"\\n\\n"``), lines by ``"\\n"``; two
  lines of one block that sit side by side on one baseline are joined by a space.
* A footnote marker (a small, raised number or sign) that MuPDF reads as a
  line of its own, or at the start of the next line, is written into the line
  it is printed on, glued to the word before it (``Act3 to create``), with its
  own boxes; after a number its digits are superscript digits (``1976³``)
  (:func:`~reviewer.ingestion.layout.attach_markers`).
* A callout or sidebar whose lines MuPDF mixed in among a column's is read as
  a block of its own after that column
  (:func:`~reviewer.ingestion.layout.page_order`).
* A word gap with no space glyph, on a line MuPDF left with few spaces, is a
  space where it is wider than a tenth of the font size beyond the line's
  gaps between letters and stands clear of their stray, as poppler reads it;
  MuPDF writes one only past 0.15 of the size (:func:`_word_gaps_spaced`).
* Glyphs are kept as PDF text gives them: a ligature stays one character
  (``"ﬁ"``) with its own box, and a word hyphenated at a line end stays
  ``"hyphen-\\nated"``; the normaliser folds both.

Geometry (a box for every glyph, pages' sizes and rotations) goes page by
page into :class:`~reviewer.ingestion.geometry.GeometryWriter`, whose stored
format is described in :mod:`reviewer.ingestion.geometry`; the page texts
wait in a temporary file until the last page is done, so a long document
never holds more than one page's boxes (or one page's rawdict) in memory.
Lines in the top and bottom margins are noted on the way
(:class:`~reviewer.ingestion.geometry.TextLines`), for furniture detection.
"""

from __future__ import annotations

import codecs
import functools
import gc
import re
import struct
import sys
import tempfile
import time
import zlib
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import chain
from operator import sub
from typing import IO, Literal

import pymupdf

from reviewer.ingestion.geometry import (
    Box,
    DocumentGeometry,
    GeometryWriter,
    PageInfo,
    TextLines,
    crc32_text,
)
from reviewer.ingestion.layout import (
    Block,
    Line,
    attach_markers,
    block_of,
    join_justified,
    lists_beside,
    margin_line_numbers,
    median,
    numbered_lists_apart,
    page_order,
    side_by_side,
    split_columns,
    strips_joined,
)
from reviewer.ingestion.ocr import STAMP_MAX_CHARS, OcrOptions, OcrReport, ocr_page
from reviewer.ingestion.tables import RuleSource, read_tables, ruling_lines

__all__ = [
    "MAX_CHARS_PER_DOCUMENT",
    "MAX_CHARS_PER_PAGE",
    "PAGE_SEPARATOR",
    "DocumentGeometry",
    "ExtractedDocument",
    "ExtractionError",
    "ExtractionErrorKind",
    "PageInfo",
    "TextLines",
    "extract_pdf",
]

PAGE_SEPARATOR = "\n\f\n"
_BLOCK_SEPARATOR = "\n\n"

ExtractionErrorKind = Literal[
    "not-pdf", "corrupt", "encrypted", "no-text", "too-many-pages", "timeout",
    "page-chars", "document-chars", "memory", "crashed", "ocr-failed",
]

#: Characters one page, and one document, may hold (the corpus peaks near
#: 12,000 a page and 1.2 million a document): a page drawing millions of
#: glyphs fails by name instead of growing a rawdict of gigabytes.
MAX_CHARS_PER_PAGE = 200_000
MAX_CHARS_PER_DOCUMENT = 10_000_000
# The page texts are read back from their temporary file this many bytes at a time.
_TEXT_CHUNK = 1 << 16
# Inside a page the clock is read every this many text lines.
_CLOCK_EVERY_LINES = 256

# Ligatures preserved (one glyph, one box); MediaBox clipping drops text placed
# off the page. No dehyphenation (the normaliser joins "ser-\nvice" itself and
# keeps offsets), no images (their blocks cost memory and carry no text), and
# unknown glyphs become U+FFFD rather than made-up characters from CIDs.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP

# Characters that would collide with the separators the extractor inserts.
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")

class ExtractionError(Exception):
    """A PDF that cannot be turned into text; ``kind`` says why, for the UI."""

    def __init__(self, kind: ExtractionErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ExtractionErrorKind = kind
        self.message = message


_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True, eq=False)
class ExtractedDocument:
    """The document text and the geometry that places each of its characters.

    ``lines`` is filled by :func:`extract_pdf` (furniture detection uses it);
    a document rebuilt with :meth:`from_bytes` has None there.
    """

    text: str = field(repr=False)
    geometry: DocumentGeometry
    lines: TextLines | None = field(default=None, repr=False)
    #: The pages OCR read (they had no text layer), or None when none was.
    ocr: OcrReport | None = None

    @property
    def pages(self) -> tuple[PageInfo, ...]:
        return self.geometry.pages

    @property
    def page_count(self) -> int:
        return len(self.geometry.pages)

    def page_text(self, number: int) -> str:
        """The text of page ``number`` (1-based), without separators."""
        page = self.geometry.pages[number - 1]
        return self.text[page.text_start : page.text_end]

    def write_geometry(self, out: IO[bytes]) -> int:
        """Stream the geometry's stored format into the binary file ``out``
        (store the text itself next to it); returns the number of bytes."""
        return self.geometry.write(out)

    def to_bytes(self) -> bytes:
        """The geometry, serialised, as one bytes object (see :meth:`write_geometry`)."""
        return self.geometry.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, *, text: str) -> ExtractedDocument:
        """Rebuild from :meth:`to_bytes` output and the text it was made with."""
        geometry = DocumentGeometry.from_bytes(data)
        if len(text) != geometry.text_length or crc32_text(text) != geometry.text_crc32:
            raise ValueError(
                "this geometry belongs to a different text "
                f"(it describes {geometry.text_length} characters, the text has {len(text)}); "
                "re-extract the PDF instead of pairing stored data from two versions"
            )
        return cls(text=text, geometry=geometry)


# --------------------------------------------------------------------------
# Opening and error classification


# MuPDF prefixes its messages with an internal error code ("code=7: cycle in
# page tree"), which means nothing to the person reading the document's status.
_MUPDF_CODE = re.compile(r"^\s*code=\d+:\s*")


def _mupdf_reason(error: BaseException) -> str:
    """MuPDF's reason for ``error`` in words, without its internal code."""
    return _MUPDF_CODE.sub("", str(error)).strip() or type(error).__name__


def _open(data: bytes) -> pymupdf.Document:
    # The header may legally sit anywhere in the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError("not-pdf", "This file is not a PDF (it has no %PDF header).")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:
        raise ExtractionError(
            "corrupt", f"This PDF is damaged and cannot be opened ({_mupdf_reason(error)})."
        ) from error
    if doc.needs_pass:
        doc.close()
        raise ExtractionError(
            "encrypted", "This PDF is encrypted; upload a copy without a password."
        )
    # MuPDF silently rebuilds a broken cross-reference table. That is harmless
    # for an old writer's quirks but hides an incomplete upload, whose missing
    # tail would silently drop pages: a repaired file without %%EOF is refused.
    if doc.is_repaired and b"%%EOF" not in data[-2048:]:
        doc.close()
        raise ExtractionError(
            "corrupt",
            "This PDF is incomplete (it ends before its end-of-file marker); "
            "the upload or download was probably cut short. Upload the full file.",
        )
    return doc


def extract_pdf(
    data: bytes, *, max_pages: int = 2000, max_seconds: float = 120.0,
    max_page_chars: int = MAX_CHARS_PER_PAGE,
    max_document_chars: int = MAX_CHARS_PER_DOCUMENT,
    progress: Callable[..., None] | None = None,
    ocr: OcrOptions | None = OcrOptions(),  # noqa: B008 - frozen, shared safely
) -> ExtractedDocument:
    """Extract the text of a PDF in reading order, with every character's box.

    Pages are read one at a time and each page's boxes go straight to a
    temporary file, so memory stays proportional to the text, not to the page
    count. ``max_seconds`` is checked between pages and every few hundred
    lines inside one; a page's characters are counted on MuPDF's text page
    before the per-character dicts are built. ``progress(page, pages)`` is
    told each page (1-based) before it is read, and ``progress(page, pages,
    True)`` again before a page without a text layer is OCR'd
    (:mod:`~reviewer.ingestion.ocr`; ``ocr=None`` leaves such pages empty).

    Raises :class:`ExtractionError` (``kind`` one of ``not-pdf``, ``corrupt``,
    ``encrypted``, ``no-text``, ``too-many-pages``, ``timeout``,
    ``page-chars``, ``document-chars``, ``memory``, ``ocr-failed``).
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(
            f"extract_pdf() takes the PDF file's bytes, not {type(data).__name__}; "
            "read the upload with .read() first"
        )
    data = bytes(data)
    limits = _Limits(time.monotonic() + max_seconds, max_seconds, max_page_chars,
                     max_document_chars, progress, ocr)
    doc = _open(data)
    try:
        if doc.page_count > max_pages:
            raise ExtractionError(
                "too-many-pages",
                f"This PDF has {doc.page_count} pages; the limit is {max_pages}. "
                "Split it into smaller documents.",
            )
        writer = GeometryWriter()
        try:
            text, crc = _extract_pages(doc, writer, limits)
            geometry = writer.finish(len(text), crc)
        except BaseException:
            writer.close()
            raise
    finally:
        doc.close()
    report = (OcrReport(ocr.language, tuple(limits.ocr_pages))
              if ocr is not None and limits.ocr_pages else None)
    return ExtractedDocument(text=text, geometry=geometry, lines=writer.lines, ocr=report)


@dataclass(slots=True)
class _Limits:
    deadline: float  # time.monotonic(); OCR moves it on by its allowance per page
    max_seconds: float
    max_page_chars: int
    max_document_chars: int
    progress: Callable[..., None] | None
    ocr: OcrOptions | None = None
    ocr_pages: list = field(default_factory=list)  # type: ignore[type-arg]

    def check_clock(self, number: int, pages: int) -> None:
        if time.monotonic() > self.deadline:
            raise ExtractionError(
                "timeout",
                f"Reading this PDF took longer than {self.max_seconds:g} seconds "
                f"(stopped at page {number} of {pages}).",
            )


# MuPDF's words when an allocation fails (the memory limit was reached).
_OUT_OF_MEMORY = re.compile(r"alloc|out of memory", re.I)


_SEPARATOR_BYTES = PAGE_SEPARATOR.encode("ascii")


def _extract_pages(
    doc: pymupdf.Document, writer: GeometryWriter, limits: _Limits
) -> tuple[str, int]:
    """The document text and its CRC-32; geometry goes to ``writer``.

    Page texts wait in a temporary file as UTF-8 (which the CRC needs anyway),
    so the text is built once, at the end, when no page's rawdict is alive.
    """
    length = crc = 0
    pages = doc.page_count
    with tempfile.TemporaryFile() as spool:
        for index in range(pages):
            number = index + 1
            limits.check_clock(number, pages)
            if limits.progress is not None:
                limits.progress(number, pages)
            if index:
                spool.write(_SEPARATOR_BYTES)
                crc = zlib.crc32(_SEPARATOR_BYTES, crc)
                writer.insert(length, len(PAGE_SEPARATOR))
                length += len(PAGE_SEPARATOR)
            try:
                page = doc.load_page(index)
                result = _extract_page(page, number, length, limits, pages)
                # No text layer, or (a length test first, so a text page pays
                # nothing more) a stamp over a scan: see ocr.is_stamped_scan.
                if limits.ocr is not None and len(result.text) <= STAMP_MAX_CHARS:
                    result = ocr_page(page, number=number, pages=pages, offset=length,
                                      limits=limits, text_layer=result) or result
            except ExtractionError:
                raise
            except MemoryError:
                raise _out_of_memory(number, pages) from None
            except Exception as error:
                reason = _mupdf_reason(error)
                if _OUT_OF_MEMORY.search(reason):
                    raise _out_of_memory(number, pages) from error
                raise ExtractionError(
                    "corrupt",
                    f"Page {number} of this PDF is damaged and cannot be read ({reason}).",
                ) from error
            writer.add_page(result)
            encoded = result.text.encode("utf-8", "surrogatepass")
            spool.write(encoded)
            crc = zlib.crc32(encoded, crc)
            length += len(result.text)
            if length > limits.max_document_chars:
                raise ExtractionError(
                    "document-chars",
                    f"This PDF holds more than {limits.max_document_chars:,} characters "
                    f"(the limit per document; reached at page {number} of {pages}). "
                    "Split it into smaller documents.",
                )
        # Every extracted line holds a visible character, so an empty text
        # means no page had a text layer at all.
        if all(p.text_start == p.text_end for p in writer.pages):
            raise ExtractionError("no-text", _no_text_sentence(limits))
        text = _read_text(spool)
    return text, crc


def _no_text_sentence(limits: _Limits) -> str:
    if limits.ocr is None:
        return "No text layer: this looks like a scanned document; run OCR first."
    read = len(limits.ocr_pages)
    if not read:
        return "No text layer and nothing drawn: every page of this PDF is blank."
    return (f"No text layer, and OCR ({limits.ocr.language}) found nothing readable on the "
            f"{read} scanned page{'s' if read != 1 else ''} it read: check the scan, or "
            "choose the document's language.")


def _out_of_memory(number: int, pages: int) -> ExtractionError:
    """The sandbox words this with its limit; run in-process it is the machine's."""
    return ExtractionError(
        "memory",
        f"Reading this PDF ran out of memory (at page {number} of {pages}).",
    )


def _read_text(spool: IO[bytes]) -> str:
    """Decode the spooled UTF-8 text a chunk at a time.

    ``text += piece`` on a string nothing else refers to grows it in place in
    CPython, so the text is not held twice (as bytes and decoded, or as
    pieces and joined) at the end of extraction.
    """
    decoder = codecs.getincrementaldecoder("utf-8")("surrogatepass")
    spool.seek(0)
    text = ""
    while chunk := spool.read(_TEXT_CHUNK):
        text += decoder.decode(chunk)
    return text + decoder.decode(b"", final=True)


# --------------------------------------------------------------------------
# One page


@dataclass(slots=True)
class _PageText:
    """One page's share of the document: text, glyph boxes, inserted
    positions and margin lines, positions counted in the whole document."""

    info: PageInfo
    text: str
    boxes: array[float]  # float32, 4 per glyph
    inserted: list[int]
    margin_lines: list[tuple[int, int, float, float]]  # start, end, top, bottom


def _pdf_boxes(page: pymupdf.Page) -> tuple[Box, Box]:
    """MediaBox and CropBox in PDF user space (PyMuPDF flips the crop box's y)."""
    media = page.mediabox
    crop = page.cropbox
    # page.cropbox has y measured down from the MediaBox top.
    crop_pdf = (crop.x0, media.y1 - crop.y1, crop.x1, media.y1 - crop.y0)
    return (media.x0, media.y0, media.x1, media.y1), crop_pdf


# Bytes of MuPDF's text page per character of its plain text, at the least:
# each glyph is a 72-byte fz_stext_char in the page's memory pool, each line
# and block that adds a line break a larger struct (the corpus has 60-75 bytes
# of pool per character of extractText()); a quarter of that is a safe bound.
# The pool reports the 4 KB chunks it added after its first one; the slack
# covers that first chunk many times over.
_POOL_BYTES_PER_CHAR = 16
_POOL_SLACK = 1 << 16


def _chars_at_most(textpage: pymupdf.TextPage) -> int:
    """An upper bound on ``len(textpage.extractText())`` from the size of the
    text page's memory pool, which costs nothing to read where the plain
    text costs a pass over every glyph; ``sys.maxsize`` when unknown."""
    try:
        size = pymupdf.mupdf.ll_fz_pool_size(textpage.this.m_internal.pool)
    except Exception:  # a PyMuPDF without these bindings: count the characters
        return sys.maxsize
    return (int(size) + _POOL_SLACK) // _POOL_BYTES_PER_CHAR


def _cyclic_gc_paused[**P, R](read: Callable[P, R]) -> Callable[P, R]:
    """``read`` with Python's cyclic garbage collector paused while it runs.

    A page's rawdict is a few million small dicts and tuples, none of them in
    a cycle: reference counting frees them all when the page is done. While
    they are alive, every collection the allocations trigger walks all of
    them again, which cost a fifth of the time of reading a page. The
    collector resumes after the page (and collects then whatever cycles the
    page left), as it was: a caller that had it off keeps it off.
    """

    @functools.wraps(read)
    def paused(*args: P.args, **kwargs: P.kwargs) -> R:
        if not gc.isenabled():
            return read(*args, **kwargs)
        gc.disable()
        try:
            return read(*args, **kwargs)
        finally:
            gc.enable()

    return paused


@_cyclic_gc_paused
def _extract_page(
    page: pymupdf.Page, number: int, offset: int, limits: _Limits, pages: int
) -> _PageText:
    # MuPDF's text page costs tens of bytes a glyph, the rawdict built from it
    # hundreds: count the characters on the first before making the second.
    textpage = page.get_textpage(flags=_TEXT_FLAGS)
    chars = _chars_at_most(textpage)
    if chars > limits.max_page_chars:
        chars = len(textpage.extractText())
    if chars > limits.max_page_chars:
        raise ExtractionError(
            "page-chars",
            f"Page {number} of this PDF holds {chars:,} characters; the limit is "
            f"{limits.max_page_chars:,} a page (no real page comes close: this one "
            "draws text over and over).",
        )
    limits.check_clock(number, pages)
    raw = page.get_text("rawdict", flags=_TEXT_FLAGS, textpage=textpage)
    del textpage
    # rawdict boxes are relative to the unrotated crop box; this maps them to
    # the page as displayed (the identity on an unrotated page).
    degrees = page.rotation
    matrix: _Matrix = _IDENTITY
    if degrees:
        rotation = page.rotation_matrix
        matrix = tuple(float(rotation[k]) for k in range(6))  # type: ignore[assignment]
    page_lines: list[list[Line]] = []
    seen = 0
    for raw_block in raw["blocks"]:
        if raw_block.get("type", 0) != 0:
            continue
        seen += len(raw_block["lines"])
        if seen >= _CLOCK_EVERY_LINES:
            seen = 0
            limits.check_clock(number, pages)
        lines = [
            line for raw_line in raw_block["lines"]
            if (line := _read_line(raw_line, matrix)) is not None
        ]
        if lines:
            page_lines.append(lines)
    del raw  # the per-character dicts are the bulk of a page's memory
    rect = page.rect
    blocks = order_page(page_lines, lambda area: ruling_lines(page, matrix, area))
    text, boxes, inserted, margin_lines = write_blocks(blocks, offset, rect.height)
    media, crop = _pdf_boxes(page)
    info = PageInfo(
        number=number, text_start=offset, text_end=offset + len(text),
        width=rect.width, height=rect.height, rotation=degrees,
        mediabox=media, cropbox=crop,
    )
    return _PageText(info, text, boxes, inserted, margin_lines)


def order_page(page_lines: list[list[Line]], rules: RuleSource) -> list[Block]:
    """A page's lines (in blocks as read: MuPDF's blocks, or OCR's paragraphs)
    as blocks in reading order: footnote markers attached, blocks that run
    across a gutter cut into columns, tables read by rows (``rules`` gives
    the page's ruling lines), callouts after their column. Text layers and
    OCR share it, so a scanned page reads as its born-digital original."""
    # A line a producer wrote in pieces, block by block, is one line.
    page_lines = strips_joined(page_lines)
    # Lists side by side that MuPDF took a line of each at a time: each apart.
    page_lines = lists_beside(page_lines)
    # A justified line that MuPDF cut at its stretched word spaces is one line.
    page_lines = [join_justified(lines) for lines in page_lines]
    line_height = median([ln.y1 - ln.y0 for lines in page_lines for ln in lines]) or 12.0
    blocks: list[Block] = []
    # Line numbers in the margin are a column of their own, out of the text's blocks.
    page_lines = margin_line_numbers(page_lines)
    # A raised footnote marker on a line of its own goes back where it is printed.
    attached = attach_markers(page_lines, line_height)
    # Numbered lists side by side that OCR read across or apart from their
    # numbers: each column one block, read down.
    attached = numbered_lists_apart(attached, line_height)
    for lines in attached:
        # A block whose lines run across a gutter becomes one per column.
        blocks.extend(split_columns(block_of(lines)))
    if attached is not page_lines:  # lines went: the usual height may have moved
        line_height = median([ln.y1 - ln.y0 for bl in blocks for ln in bl.lines]) or 12.0
    # A table reads by its rows: each row a block, its cells left to right.
    blocks = read_tables(blocks, line_height, rules)
    return page_order(blocks, line_height)


def write_blocks(
    blocks: list[Block], offset: int, page_height: float
) -> tuple[str, array[float], list[int], list[tuple[int, int, float, float]]]:
    """The text of ``blocks`` (in order, a blank line between two, a line's
    side-by-side neighbour after a space, others after ``"\\n"``), a box per
    glyph (4 float32s), the inserted separators' positions and the lines in
    the margin bands, positions counted from ``offset`` in the document."""
    pieces: list[str] = []
    glyphs: list[float] = []  # the lines' boxes, converted to float32 at the end
    inserted: list[int] = []
    # Text lines ("\n" to "\n", side-by-side lines joined) in the margin
    # bands, for furniture detection; a point of slack covers float32 rounding.
    top_band = page_height * TextLines.band + 1.0
    bottom_band = page_height * (1.0 - TextLines.band) - 1.0
    margin_lines: list[tuple[int, int, float, float]] = []
    position = offset
    for block_index, block in enumerate(blocks):
        if block_index:
            pieces.append(_BLOCK_SEPARATOR)
            inserted.extend(range(position, position + len(_BLOCK_SEPARATOR)))
            position += len(_BLOCK_SEPARATOR)
        previous: Line | None = None
        start, top, bottom = position, 0.0, 0.0
        for line in block.lines:
            if previous is None:
                start, top, bottom = position, line.y0, line.y1
            elif side_by_side(previous, line):
                pieces.append(" ")
                inserted.append(position)
                position += 1
                top, bottom = min(top, line.y0), max(bottom, line.y1)
            else:
                if bottom <= top_band or top >= bottom_band:
                    margin_lines.append((start, position, top, bottom))
                pieces.append("\n")
                inserted.append(position)
                position += 1
                start, top, bottom = position, line.y0, line.y1
            pieces.append(line.text)
            glyphs += line.boxes
            position += len(line.text)
            previous = line
        if bottom <= top_band or top >= bottom_band:
            margin_lines.append((start, position, top, bottom))
    boxes: array[float] = array("f")
    boxes.frombytes(float32_bytes(glyphs))
    return "".join(pieces), boxes, inserted, margin_lines


def float32_bytes(values: list[float]) -> bytes:
    """``values`` as native float32s, the same bytes as
    ``array("f").fromlist(values)`` (each a C cast of the double, no range
    check) at a fraction of the cost: the array parses every item as an
    argument, a few hundred instructions a float, and a page has tens of
    thousands of them."""
    return struct.pack(f"{len(values)}f", *values)


def _read_line(raw_line: dict, matrix: _Matrix) -> Line | None:  # type: ignore[type-arg]
    spans = raw_line["spans"]
    if len(spans) > 1:
        # Spans in writing order: by their origin projected on the line direction.
        dx, dy = raw_line["dir"]
        spans = sorted(spans, key=lambda s: s["origin"][0] * dx + s["origin"][1] * dy)
    texts: list[str] = []
    # Four floats a character, in the order of the text. ``boxes += box``
    # (a list extended by a tuple) is the cheapest way CPython has to flatten
    # the rawdict's box tuples, and this loop runs for every glyph.
    boxes: list[float] = []
    # Whether every glyph gave exactly one character (then a span's bbox is
    # the union of the boxes kept).
    one_to_one = True
    for span in spans:
        span_chars = span["chars"]
        text = "".join([char["c"] for char in span_chars])
        if len(text) == len(span_chars):
            for char in span_chars:
                boxes += char["bbox"]
        else:
            # A glyph with no character is dropped; one that maps to several
            # (ActualText) gives each of them the glyph's box, so text and
            # boxes stay aligned.
            one_to_one = False
            for char in span_chars:
                boxes += char["bbox"] * len(char["c"])
        texts.append(text)
    text = texts[0] if len(texts) == 1 else "".join(texts)
    dx, dy = raw_line["dir"]
    # MuPDF reads a line set tight with most or all of its word gaps
    # unspaced, so with few spaces; a line with a space for every eight
    # characters is read as spaced (one pair run together is left to the
    # matcher's fuzzy match) and costs no look at its gaps.
    if dx > 0.99 and len(text) > 2 and text.count(" ") * _CHARS_A_SPACE < len(text):
        text, boxes = _word_gaps_spaced(text, boxes, spans)
    if dx > 0.99 and _DIGIT_PAIR.search(text):
        # Either way: a thin space is under half a space, which the word-gap
        # rule asks of a line that has space glyphs.
        text, boxes = _digit_groups_spaced(text, boxes, spans)
    if not text.isprintable():  # a control character is never printable
        text = _CONTROL.sub(" ", text)
    # Leading and trailing blanks carry no glyph worth highlighting; the
    # replacement above is one for one, so boxes stay aligned.
    stripped = text.strip()
    if not stripped:
        return None
    if len(stripped) != len(text):
        start = len(text) - len(text.lstrip())
        # In place (the list is this line's own): a slice would copy it.
        del boxes[4 * (start + len(stripped)) :]
        if start:
            del boxes[: 4 * start]
    a, b, c, d, _, _ = matrix
    horizontal = abs(b * dx + d * dy) < 0.1 and a * dx + c * dy > 0
    if matrix != _IDENTITY:
        boxes = _displayed(boxes, matrix)
        return Line(
            stripped, boxes,
            min(boxes[0::4]), min(boxes[1::4]), max(boxes[2::4]), max(boxes[3::4]),
            horizontal,
        )
    if one_to_one and len(spans) == 1 and len(stripped) == len(text):
        # MuPDF's span bbox is the union of its glyphs' boxes: no pass over them.
        x0, y0, x1, y1 = spans[0]["bbox"]
        return Line(stripped, boxes, x0, y0, x1, y1, horizontal)
    return Line(stripped, boxes, *_glyph_extent(boxes, spans), horizontal)


def _glyph_extent(
    boxes: list[float], spans: list[dict]  # type: ignore[type-arg]
) -> tuple[float, float, float, float]:
    """``(min x0, min y0, max x1, max y1)`` of ``boxes`` (4 floats a glyph, in
    the rawdict's space), the values min() and max() give, of a line read
    from ``spans``, mostly without a pass over the boxes (four passes cost
    more than reading the glyphs did).

    MuPDF's bbox of a span is the union of its glyphs' boxes, so the spans'
    union bounds every box the line keeps (a box a gap was spaced with lies
    between its glyphs'). Where the first glyph (the last, for the right
    edge) reaches that bound, it is the extreme; else min() or max() finds it.
    A right edge of zero is left to max(), which keeps the first of a 0.0
    and a -0.0 where the last glyph may hold the other one."""
    if len(spans) == 1:
        left, top, right, bottom = spans[0]["bbox"]
    else:
        lefts, tops, rights, bottoms = zip(*[span["bbox"] for span in spans], strict=True)
        left, top, right, bottom = min(lefts), min(tops), max(rights), max(bottoms)
    x0 = boxes[0] if boxes[0] == left else min(boxes[0::4])
    y0 = boxes[1] if boxes[1] == top else min(boxes[1::4])
    x1 = boxes[-2] if boxes[-2] == right and right else max(boxes[2::4])
    y1 = boxes[3] if boxes[3] == bottom else max(boxes[3::4])
    return x0, y0, x1, y1


#: Poppler's word break: a gap between two glyphs of a line wider than a
#: tenth of the font size, beyond the line's usual gap between letters, is a
#: space. MuPDF writes a space only past 0.15 of the size, so lines set tight
#: and justified with no space glyphs (XPP, xdvipdfmx) came out as
#: "peopleexperiencingabuse" where their word gaps fall between the two.
_WORD_GAP = 0.1
#: ... and wider than this many times the line's letters stray below their
#: usual gap (the median less the tenth percentile).
_GAP_NOISE_TIMES = 3.0
#: ... and, on a line with space glyphs, at least this share of its narrowest
#: space (with the gaps either side of it).
_SPACE_SHARE = 0.5
#: Only lines with fewer than one space in this many characters are looked
#: at for word gaps; English averages one in six.
_CHARS_A_SPACE = 8


def _usual_gap(gaps: list[float], word_gap: float) -> tuple[float, float] | None:
    """A line's usual gap between letters (the median) and how far its
    letters' gaps stray below it, times :data:`_GAP_NOISE_TIMES` (kerning, or
    a font whose widths are not the ones it was set with: "caps ule s haped"
    where the "s" is drawn wider than its box; a word gap stands clear of
    that); None when the usual gap is below ``-word_gap``, glyphs not set
    left to right."""
    ordered = sorted(gaps)
    letters = ordered[len(ordered) // 2]
    if letters < -word_gap:
        return None
    return letters, _GAP_NOISE_TIMES * (letters - ordered[len(ordered) // 10])


def _word_gaps_spaced(
    text: str, boxes: list[float], spans: list[dict]  # type: ignore[type-arg]
) -> tuple[str, list[float]]:
    """``text`` and its boxes with a space (boxed over the gap) written into
    every word gap that has no space glyph (:data:`_WORD_GAP`); a letter-spaced
    line's even gaps are its letters', not words'."""
    # Each glyph's left edge less the previous one's right edge, in C (map
    # over slices): this runs for every line with few spaces.
    lefts, rights = boxes[4::4], boxes[2:-4:4]
    smallest = spans[0]["size"] if len(spans) == 1 else min([span["size"] for span in spans])
    if max(map(sub, lefts, rights)) <= _WORD_GAP * smallest:
        return text, boxes  # the common case: nothing to write
    gaps = list(map(sub, lefts, rights))
    usual = _usual_gap(gaps, _WORD_GAP * smallest)
    if usual is None:
        return text, boxes  # glyphs not set left to right (Arabic, Hebrew): no gaps to read
    letters, noise = usual
    wide = [
        at for at, gap in enumerate(gaps)
        if gap - letters > max(_WORD_GAP * smallest, noise)
        and text[at] != " " and text[at + 1] != " "
    ]
    if wide and " " in text:
        # A line that spaces its words with space glyphs spaces them all so:
        # an unspaced gap under half its narrowest space is inside a word.
        spaces = [
            boxes[4 * at + 4] - boxes[4 * at - 2]
            for at in range(1, len(text) - 1) if text[at] == " "
        ]
        if spaces:
            narrowest = _SPACE_SHARE * min(spaces)
            wide = [at for at in wide if gaps[at] >= narrowest]
    if not wide:
        return text, boxes  # a justified line's stretched gaps beside its spaces
    if len(spans) > 1 and len({span["size"] for span in spans}) > 1:
        sizes: list[float] = []
        for span in spans:
            sizes += [span["size"]] * len(span["chars"])
        if len(sizes) == len(text):  # else a glyph gave no or several characters
            wide = [at for at in wide if gaps[at] - letters > _WORD_GAP * sizes[at]]
    return _spaced(text, boxes, wide)


#: Two digits side by side: where a line spaced with space glyphs may still
#: hold a gap with none, a thin space between groups of thousands.
_DIGIT_PAIR = re.compile(r"\d(?=\d)")
#: A group of thousands: one to three digits before the first gap, three
#: between gaps and after the last.
_THOUSANDS = re.compile(r"\d{1,3}(?: \d{3})+")


def _digit_groups_spaced(
    text: str, boxes: list[float], spans: list[dict]  # type: ignore[type-arg]
) -> tuple[str, list[float]]:
    """``text`` and its boxes with a space written into each unspaced gap
    that splits a number into groups of thousands ("1 000 V" set with a kern
    of 0.135 em: poppler reads "1 000", MuPDF "1000"). A line with space
    glyphs is not read for word gaps (:func:`_word_gaps_spaced`, whose half
    a space is too wide for a thin space); the grouping, three digits after
    every gap, keeps a font drawn wider than its boxes ("2 185 16") whole."""
    smallest = spans[0]["size"] if len(spans) == 1 else min([span["size"] for span in spans])
    threshold = _WORD_GAP * smallest
    # The pairs' positions first: a list, not a generator (whose frame costs
    # more than the test), since a table's lines hold many.
    starts = [match.start() for match in _DIGIT_PAIR.finditer(text)]
    pairs = [at for at in starts if boxes[4 * at + 4] - boxes[4 * at + 2] > threshold]
    if not pairs:
        return text, boxes  # the common case: digits set close
    gaps = list(map(sub, boxes[4::4], boxes[2:-4:4]))
    usual = _usual_gap(gaps, threshold)
    if usual is None:
        return text, boxes  # glyphs not set left to right
    letters, noise = usual
    wide = [at for at in pairs if gaps[at] - letters > max(threshold, noise)]
    if not wide:
        return text, boxes
    spaced_text, spaced_boxes = _spaced(text, boxes, wide)
    # Keep only the gaps inside a whole number grouped by thousands: the
    # spaced text's gap after original position ``at`` is at ``at + 1 + k``
    # for the k-th gap written.
    written = {at + 1 + k for k, at in enumerate(wide)}
    grouped: set[int] = set()
    for match in _THOUSANDS.finditer(spaced_text):
        start, end = match.span()
        before = spaced_text[max(0, start - 2) : start]
        if before[-1:].isdigit() or (before[-1:] in (".", ",") and before[:1].isdigit()):
            continue  # the end of a longer run of digits, or a decimal part
        if spaced_text[end : end + 1].isdigit() or end in written or start - 1 in written:
            continue  # a group of other than three digits beside it
        grouped.update(k for k in range(start, end) if spaced_text[k] == " ")
    kept = [at for k, at in enumerate(wide) if at + 1 + k in grouped]
    if len(kept) == len(wide):
        return spaced_text, spaced_boxes
    return _spaced(text, boxes, kept) if kept else (text, boxes)


def _spaced(text: str, boxes: list[float], wide: list[int]) -> tuple[str, list[float]]:
    """``text`` and its boxes with a space after each position in ``wide``
    (ascending), boxed over the gap to the next glyph."""
    pieces: list[str] = []
    spaced: list[float] = []
    start = 0
    for at in wide:
        pieces.append(text[start : at + 1])
        spaced += boxes[4 * start : 4 * (at + 1)]
        top = min(boxes[4 * at + 1], boxes[4 * at + 5])
        bottom = max(boxes[4 * at + 3], boxes[4 * at + 7])
        pieces.append(" ")
        spaced += (boxes[4 * at + 2], top, boxes[4 * at + 4], bottom)
        start = at + 1
    pieces.append(text[start:])
    spaced += boxes[4 * start :]
    return "".join(pieces), spaced


def _displayed(boxes: list[float], matrix: _Matrix) -> list[float]:
    """Unrotated boxes (four floats each) mapped to the displayed page."""
    a, b, c, d, e, f = matrix
    # Affine map of two opposite corners; with a multiple of 90 degrees they
    # stay opposite corners, and the signs say which one is now top-left.
    flip_x = a + c < 0
    flip_y = b + d < 0
    corners = zip(boxes[0::4], boxes[1::4], boxes[2::4], boxes[3::4], strict=True)
    # One comprehension per case (no per-character branching).
    if flip_x and flip_y:
        mapped = [
            (a * x1 + c * y1 + e, b * x1 + d * y1 + f, a * x0 + c * y0 + e, b * x0 + d * y0 + f)
            for x0, y0, x1, y1 in corners
        ]
    elif flip_x:
        mapped = [
            (a * x1 + c * y1 + e, b * x0 + d * y0 + f, a * x0 + c * y0 + e, b * x1 + d * y1 + f)
            for x0, y0, x1, y1 in corners
        ]
    elif flip_y:
        mapped = [
            (a * x0 + c * y0 + e, b * x1 + d * y1 + f, a * x1 + c * y1 + e, b * x0 + d * y0 + f)
            for x0, y0, x1, y1 in corners
        ]
    else:
        mapped = [
            (a * x0 + c * y0 + e, b * x0 + d * y0 + f, a * x1 + c * y1 + e, b * x1 + d * y1 + f)
            for x0, y0, x1, y1 in corners
        ]
    return list(chain.from_iterable(mapped))
