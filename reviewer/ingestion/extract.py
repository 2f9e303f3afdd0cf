"""PDF text with a box for every character, in reading order.

``extract_pdf(data)`` turns an uploaded PDF into one document text (the string
that chunking, matching and the normaliser all index into) plus the geometry
needed to highlight any range of that text in a viewer. Every index here is a
Python code-point index into :attr:`ExtractedDocument.text`.

Layout of the text:

* Pages follow each other separated by :data:`PAGE_SEPARATOR` (``"\\n\\f\\n"``).
* On a page, text blocks come in reading order: columns are detected from the
  blocks' x-ranges (left column top to bottom, then the right one); blocks that
  span the columns (titles, wide figures) stay in vertical order.
* Blocks are separated by a blank line (``"\\n\\n"``), lines by ``"\\n"``; two
  lines of one block that sit side by side on one baseline are joined by a space.
* Glyphs are kept as PDF text gives them: a ligature stays one character
  (``"ﬁ"``) with its own box, and a word hyphenated at a line end stays
  ``"hyphen-\\nated"``; the normaliser folds both.

Geometry: each character has a box ``(x0, y0, x1, y1)`` in PDF points on the
page *as displayed*: origin at the top-left of the visible (crop) box, after
the page's /Rotate. Characters the extractor inserted (line breaks, block and
page separators, side-by-side joiners) have NaN boxes. Boxes are float32, four
per character, so geometry costs 16 bytes per character.
"""

from __future__ import annotations

import math
import re
import struct
import sys
import time
import zlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import pymupdf

__all__ = [
    "PAGE_SEPARATOR",
    "DocumentGeometry",
    "ExtractedDocument",
    "ExtractionError",
    "ExtractionErrorKind",
    "PageInfo",
    "extract_pdf",
]

PAGE_SEPARATOR = "\n\f\n"
_BLOCK_SEPARATOR = "\n\n"

ExtractionErrorKind = Literal[
    "not-pdf", "corrupt", "encrypted", "no-text", "too-many-pages", "timeout"
]

# Ligatures preserved (one glyph, one box); MediaBox clipping drops text placed
# off the page. No dehyphenation (the normaliser joins "ser-\nvice" itself and
# keeps offsets), no images (their blocks cost memory and carry no text), and
# unknown glyphs become U+FFFD rather than made-up characters from CIDs.
_TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_MEDIABOX_CLIP

# Characters that would collide with the separators the extractor inserts.
_CONTROL = re.compile("[\x00-\x1f\x7f\x85\u2028\u2029]")
_NAN = float("nan")
_NAN_BOX = array("f", [_NAN] * 4)

# A gap at least this wide (points) between block x-ranges separates columns.
_COLUMN_GAP = 6.0
# Blocks whose y-ranges overlap by less than this (points) are separable rows.
_ROW_OVERLAP = 1.0
# Rows further apart than this many line heights are never merged into columns.
_ROW_MERGE_LINES = 2.5

_MAGIC = b"CGEO"
_VERSION = 1
_HEADER = struct.Struct("<4sHHIII")  # magic, version, reserved, pages, text length, crc32
_PAGE = struct.Struct("<IIIi10d")  # number, text range, rotation, size, mediabox, cropbox


class ExtractionError(Exception):
    """A PDF that cannot be turned into text; ``kind`` says why, for the UI."""

    def __init__(self, kind: ExtractionErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind: ExtractionErrorKind = kind
        self.message = message


Box = tuple[float, float, float, float]
_Matrix = tuple[float, float, float, float, float, float]
_IDENTITY: _Matrix = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


@dataclass(frozen=True, slots=True)
class PageInfo:
    """One page: where its text is and how to draw on it.

    ``width``/``height`` are the displayed size in points (after /Rotate).
    ``mediabox`` and ``cropbox`` are in PDF user space (y up), as written in the
    file; a viewer that needs PDF coordinates uses :meth:`to_pdf_point`.
    """

    number: int  # 1-based
    text_start: int  # [text_start, text_end) of ExtractedDocument.text
    text_end: int
    width: float
    height: float
    rotation: int  # clockwise degrees: 0, 90, 180 or 270
    mediabox: Box
    cropbox: Box

    def to_pdf_point(self, x: float, y: float) -> tuple[float, float]:
        """A displayed-page point (origin top-left) in PDF user space (y up).

        This is what pdf.js ``viewport.convertToViewportPoint`` takes; a viewer
        whose viewport matches the page's rotation can instead multiply the
        displayed coordinates by ``viewport.scale``.
        """
        crop_w = self.cropbox[2] - self.cropbox[0]
        crop_h = self.cropbox[3] - self.cropbox[1]
        # Undo the rotation: coordinates relative to the unrotated crop box.
        if self.rotation == 90:
            ux, uy = y, crop_h - x
        elif self.rotation == 180:
            ux, uy = crop_w - x, crop_h - y
        elif self.rotation == 270:
            ux, uy = crop_w - y, x
        else:
            ux, uy = x, y
        return self.cropbox[0] + ux, self.cropbox[3] - uy


@dataclass(frozen=True, slots=True, eq=False)
class DocumentGeometry:
    """Per-page text ranges and one float32 box per character of the text.

    ``boxes`` holds ``4 * text_length`` floats: ``boxes[4*i : 4*i + 4]`` is
    ``(x0, y0, x1, y1)`` of character ``i``, NaN for inserted characters. It is
    shared, not copied: treat it as read-only.
    """

    pages: tuple[PageInfo, ...] = field(repr=False)
    boxes: array[float] = field(repr=False)
    text_length: int
    text_crc32: int
    page_starts: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.boxes) != 4 * self.text_length:
            raise ValueError(
                f"geometry has {len(self.boxes)} floats for {self.text_length} characters; "
                "expected exactly 4 per character"
            )
        # Cached for bisecting offsets to pages (locate() runs per request).
        object.__setattr__(self, "page_starts", tuple(p.text_start for p in self.pages))

    def box(self, index: int) -> Box | None:
        """The box of character ``index``, or None for an inserted character."""
        x0, y0, x1, y1 = self.boxes[4 * index : 4 * index + 4]
        if math.isnan(x0):
            return None
        return (x0, y0, x1, y1)

    def to_bytes(self) -> bytes:
        """Header, one fixed record per page, then the boxes as float32 LE."""
        parts: list[bytes | memoryview] = [
            _HEADER.pack(_MAGIC, _VERSION, 0, len(self.pages), self.text_length, self.text_crc32)
        ]
        parts.extend(
            _PAGE.pack(
                p.number, p.text_start, p.text_end, p.rotation, p.width, p.height,
                *p.mediabox, *p.cropbox,
            )
            for p in self.pages
        )
        boxes = self.boxes
        if sys.byteorder == "big":
            boxes = array("f", boxes)
            boxes.byteswap()
        # Joining a view of the array writes the floats once, straight into
        # the result (a book's geometry runs to tens of megabytes).
        parts.append(memoryview(boxes).cast("B"))
        return b"".join(parts)

    @classmethod
    def from_bytes(cls, data: bytes) -> DocumentGeometry:
        if len(data) < _HEADER.size:
            raise ValueError("geometry data is too short to hold a header")
        magic, version, _, page_count, text_length, crc = _HEADER.unpack_from(data)
        if magic != _MAGIC:
            raise ValueError(f"not citeguard geometry data (magic {magic!r}, expected {_MAGIC!r})")
        if version != _VERSION:
            raise ValueError(
                f"geometry format version {version} is not supported (only {_VERSION})"
            )
        boxes_at = _HEADER.size + page_count * _PAGE.size
        expected = boxes_at + 16 * text_length
        if len(data) != expected:
            raise ValueError(f"geometry data is {len(data)} bytes; the header implies {expected}")
        pages = []
        for index in range(page_count):
            number, start, end, rotation, width, height, *rest = _PAGE.unpack_from(
                data, _HEADER.size + index * _PAGE.size
            )
            pages.append(
                PageInfo(
                    number=number, text_start=start, text_end=end, width=width, height=height,
                    rotation=rotation, mediabox=(rest[0], rest[1], rest[2], rest[3]),
                    cropbox=(rest[4], rest[5], rest[6], rest[7]),
                )
            )
        boxes = array("f")
        boxes.frombytes(memoryview(data)[boxes_at:])
        if sys.byteorder == "big":
            boxes.byteswap()
        return cls(pages=tuple(pages), boxes=boxes, text_length=text_length, text_crc32=crc)


@dataclass(frozen=True, slots=True, eq=False)
class ExtractedDocument:
    """The document text and the geometry that places each of its characters."""

    text: str = field(repr=False)
    geometry: DocumentGeometry

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

    def to_bytes(self) -> bytes:
        """The geometry, serialised; store the text itself next to it."""
        return self.geometry.to_bytes()

    @classmethod
    def from_bytes(cls, data: bytes, *, text: str) -> ExtractedDocument:
        """Rebuild from :meth:`to_bytes` output and the text it was made with."""
        geometry = DocumentGeometry.from_bytes(data)
        if len(text) != geometry.text_length or _crc32(text) != geometry.text_crc32:
            raise ValueError(
                "this geometry belongs to a different text "
                f"(it describes {geometry.text_length} characters, the text has {len(text)}); "
                "re-extract the PDF instead of pairing stored data from two versions"
            )
        return cls(text=text, geometry=geometry)


def _crc32(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


# --------------------------------------------------------------------------
# Opening and error classification


def _open(data: bytes) -> pymupdf.Document:
    # The header may legally sit anywhere in the first 1024 bytes.
    if b"%PDF-" not in data[:1024]:
        raise ExtractionError("not-pdf", "This file is not a PDF (it has no %PDF header).")
    try:
        doc = pymupdf.open(stream=data, filetype="pdf")
    except Exception as error:
        raise ExtractionError(
            "corrupt", f"This PDF is damaged and cannot be opened ({error})."
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
    data: bytes, *, max_pages: int = 2000, max_seconds: float = 120.0
) -> ExtractedDocument:
    """Extract the text of a PDF in reading order, with every character's box.

    Pages are read one at a time, so memory stays proportional to the text,
    not to the page count. ``max_seconds`` is checked between pages.

    Raises :class:`ExtractionError` (``kind`` one of ``not-pdf``, ``corrupt``,
    ``encrypted``, ``no-text``, ``too-many-pages``, ``timeout``).
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise TypeError(
            f"extract_pdf() takes the PDF file's bytes, not {type(data).__name__}; "
            "read the upload with .read() first"
        )
    data = bytes(data)
    started = time.monotonic()
    doc = _open(data)
    try:
        if doc.page_count > max_pages:
            raise ExtractionError(
                "too-many-pages",
                f"This PDF has {doc.page_count} pages; the limit is {max_pages}. "
                "Split it into smaller documents.",
            )
        pieces: list[str] = []
        boxes: array[float] = array("f")
        pages: list[PageInfo] = []
        length = 0
        for index in range(doc.page_count):
            if time.monotonic() - started > max_seconds:
                raise ExtractionError(
                    "timeout",
                    f"Reading this PDF took longer than {max_seconds:g} seconds "
                    f"(stopped at page {index + 1} of {doc.page_count}).",
                )
            if index:
                pieces.append(PAGE_SEPARATOR)
                boxes.extend(_NAN_BOX * len(PAGE_SEPARATOR))
                length += len(PAGE_SEPARATOR)
            try:
                page = doc.load_page(index)
                info, page_text, page_boxes = _extract_page(page, index + 1, length)
            except ExtractionError:
                raise
            except Exception as error:
                raise ExtractionError(
                    "corrupt",
                    f"Page {index + 1} of this PDF is damaged and cannot be read ({error}).",
                ) from error
            pieces.append(page_text)
            boxes.extend(page_boxes)
            length += len(page_text)
            pages.append(info)
        # Every extracted line holds a visible character, so an empty text
        # means no page had a text layer at all.
        if all(p.text_start == p.text_end for p in pages):
            raise ExtractionError(
                "no-text",
                "No text layer: this looks like a scanned document; run OCR first.",
            )
    finally:
        doc.close()
    text = "".join(pieces)
    geometry = DocumentGeometry(
        pages=tuple(pages), boxes=boxes, text_length=len(text), text_crc32=_crc32(text)
    )
    return ExtractedDocument(text=text, geometry=geometry)


# --------------------------------------------------------------------------
# One page


@dataclass(slots=True)
class _Line:
    text: str
    boxes: list[float]  # 4 per character of text
    x0: float
    y0: float
    x1: float
    y1: float
    horizontal: bool  # reads left to right on the displayed page


@dataclass(slots=True)
class _Block:
    lines: list[_Line]
    x0: float
    y0: float
    x1: float
    y1: float


def _pdf_boxes(page: pymupdf.Page) -> tuple[Box, Box]:
    """MediaBox and CropBox in PDF user space (PyMuPDF flips the crop box's y)."""
    media = page.mediabox
    crop = page.cropbox
    # page.cropbox has y measured down from the MediaBox top.
    crop_pdf = (crop.x0, media.y1 - crop.y1, crop.x1, media.y1 - crop.y0)
    return (media.x0, media.y0, media.x1, media.y1), crop_pdf


def _extract_page(
    page: pymupdf.Page, number: int, offset: int
) -> tuple[PageInfo, str, array[float]]:
    raw = page.get_text("rawdict", flags=_TEXT_FLAGS)
    # rawdict boxes are relative to the unrotated crop box; this maps them to
    # the page as displayed.
    rotation = page.rotation_matrix
    matrix: _Matrix = tuple(float(rotation[k]) for k in range(6))  # type: ignore[assignment]
    blocks: list[_Block] = []
    for raw_block in raw["blocks"]:
        if raw_block.get("type", 0) != 0:
            continue
        lines = [
            line for raw_line in raw_block["lines"]
            if (line := _read_line(raw_line, matrix)) is not None
        ]
        if lines:
            blocks.append(_Block(
                lines,
                min(ln.x0 for ln in lines), min(ln.y0 for ln in lines),
                max(ln.x1 for ln in lines), max(ln.y1 for ln in lines),
            ))
    del raw  # the per-character dicts are the bulk of a page's memory

    line_height = _median([ln.y1 - ln.y0 for bl in blocks for ln in bl.lines]) or 12.0
    pieces: list[str] = []
    boxes: array[float] = array("f")
    for block_index, block in enumerate(_reading_order(blocks, line_height)):
        if block_index:
            pieces.append(_BLOCK_SEPARATOR)
            boxes.extend(_NAN_BOX * len(_BLOCK_SEPARATOR))
        previous: _Line | None = None
        for line in block.lines:
            if previous is not None:
                pieces.append(" " if _side_by_side(previous, line) else "\n")
                boxes.extend(_NAN_BOX)
            pieces.append(line.text)
            boxes.extend(line.boxes)
            previous = line
    text = "".join(pieces)
    media, crop = _pdf_boxes(page)
    rect = page.rect
    info = PageInfo(
        number=number, text_start=offset, text_end=offset + len(text),
        width=rect.width, height=rect.height, rotation=page.rotation,
        mediabox=media, cropbox=crop,
    )
    return info, text, boxes


def _read_line(raw_line: dict, matrix: _Matrix) -> _Line | None:  # type: ignore[type-arg]
    spans = raw_line["spans"]
    if len(spans) > 1:
        # Spans in writing order: by their origin projected on the line direction.
        dx, dy = raw_line["dir"]
        spans = sorted(spans, key=lambda s: s["origin"][0] * dx + s["origin"][1] * dy)
    texts: list[str] = []
    char_boxes: list[Box] = []
    for span in spans:
        span_chars = span["chars"]
        text = "".join([char["c"] for char in span_chars])
        if len(text) == len(span_chars):
            char_boxes.extend([char["bbox"] for char in span_chars])
        else:
            # A glyph with no character is dropped; one that maps to several
            # (ActualText) gives each of them the glyph's box, so text and
            # boxes stay aligned.
            char_boxes.extend([char["bbox"] for char in span_chars for _ in char["c"]])
        texts.append(text)
    text = _CONTROL.sub(" ", "".join(texts))  # one for one: boxes stay aligned
    # Leading and trailing blanks carry no glyph worth highlighting.
    stripped = text.strip()
    if not stripped:
        return None
    start = len(text) - len(text.lstrip())
    char_boxes = char_boxes[start : start + len(stripped)]
    boxes = _displayed(char_boxes, matrix)
    a, b, c, d, _, _ = matrix
    dx, dy = raw_line["dir"]
    horizontal = abs(b * dx + d * dy) < 0.1 and a * dx + c * dy > 0
    return _Line(
        stripped, boxes,
        min(boxes[0::4]), min(boxes[1::4]), max(boxes[2::4]), max(boxes[3::4]),
        horizontal,
    )


def _displayed(char_boxes: list[Box], matrix: _Matrix) -> list[float]:
    """Unrotated boxes mapped to the displayed page, flattened."""
    if matrix == _IDENTITY:
        return [v for box in char_boxes for v in box]
    a, b, c, d, e, f = matrix
    # Affine map of two opposite corners; with a multiple of 90 degrees they
    # stay opposite corners, and the signs say which one is now top-left.
    flip_x = a + c < 0
    flip_y = b + d < 0
    flat: list[float] = []
    for x0, y0, x1, y1 in char_boxes:
        p0, p1 = a * x0 + c * y0 + e, a * x1 + c * y1 + e
        q0, q1 = b * x0 + d * y0 + f, b * x1 + d * y1 + f
        if flip_x:
            p0, p1 = p1, p0
        if flip_y:
            q0, q1 = q1, q0
        flat += (p0, q0, p1, q1)
    return flat


def _side_by_side(left: _Line, right: _Line) -> bool:
    """Two lines of one block on one baseline, the second to the right."""
    if not (left.horizontal and right.horizontal):
        return False
    overlap = min(left.y1, right.y1) - max(left.y0, right.y0)
    height = min(left.y1 - left.y0, right.y1 - right.y0)
    return overlap >= 0.5 * height and right.x0 >= left.x1 - 0.5 * height


def _median(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


# --------------------------------------------------------------------------
# Reading order: a recursive XY cut that prefers columns


def _cuts(blocks: list[_Block], *, vertical: bool) -> list[list[_Block]]:
    """Split blocks at gaps in their x-ranges (vertical) or y-ranges."""
    if vertical:
        ordered = sorted(blocks, key=lambda bl: bl.x0)
        groups = [[ordered[0]]]
        reach = ordered[0].x1
        for block in ordered[1:]:
            if block.x0 - reach >= _COLUMN_GAP:
                groups.append([block])
            else:
                groups[-1].append(block)
            reach = max(reach, block.x1)
        return groups
    ordered = sorted(blocks, key=lambda bl: (bl.y0, bl.x0))
    groups = [[ordered[0]]]
    reach = ordered[0].y1
    for block in ordered[1:]:
        if block.y0 >= reach - _ROW_OVERLAP:
            groups.append([block])
        else:
            groups[-1].append(block)
        reach = max(reach, block.y1)
    return groups


def _split(blocks: list[_Block], line_height: float) -> list[list[_Block]] | None:
    columns = _cuts(blocks, vertical=True)
    if len(columns) > 1:
        return columns
    rows = _cuts(blocks, vertical=False)
    if len(rows) == 1:
        return None
    # The rows of a two-column stretch split wherever both columns happen to
    # have a gap at the same height; put such neighbours back together so the
    # columns are read whole. Rows separated by a spanning block (a title, a
    # wide figure) cannot merge, because together they have no column gap.
    merged = [rows[0]]
    for row in rows[1:]:
        gap = min(bl.y0 for bl in row) - max(bl.y1 for bl in merged[-1])
        candidate = merged[-1] + row
        if gap < _ROW_MERGE_LINES * line_height and len(_cuts(candidate, vertical=True)) > 1:
            merged[-1] = candidate
        else:
            merged.append(row)
    return merged


def _reading_order(blocks: list[_Block], line_height: float) -> list[_Block]:
    # Iterative, since a page of many small blocks could nest deeper than
    # Python's recursion limit.
    ordered: list[_Block] = []
    stack = [blocks]
    while stack:
        group = stack.pop()
        if len(group) <= 1:
            ordered.extend(group)
            continue
        parts = _split(group, line_height)
        if parts is None:
            # Overlapping blocks with no clean cut: top to bottom, left to right.
            ordered.extend(sorted(group, key=lambda bl: (bl.y0, bl.x0)))
        else:
            stack.extend(reversed(parts))
    return ordered
