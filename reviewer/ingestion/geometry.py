"""Where every character of a document's text sits on its pages, and the
stored format that keeps it.

Each character that comes from the PDF (a *glyph* here) has a box
``(x0, y0, x1, y1)`` in PDF points on the page *as displayed*: origin at the
top-left of the visible (crop) box, after the page's /Rotate. Characters the
extractor inserted (line breaks, block and page separators, side-by-side
joiners) have no box; the geometry lists their positions instead.

Written as extraction goes (:class:`GeometryWriter`): each page's boxes go
to a temporary file as soon as the page is read, so a long document never
holds more than one page's boxes in memory, and the lines in the top and
bottom margins are noted on the way (:class:`TextLines`), for furniture
detection. The boxes' file is already in the stored format, which
:meth:`DocumentGeometry.write` copies out
a chunk at a time. Stored format, version 2, little-endian:

* header (:data:`_HEADER`): magic ``CGEO``, version, reserved, page count, text
  length, CRC-32 of the text as UTF-8, number of inserted characters;
* the glyphs' boxes in text order, four float32 each (16 bytes);
* one fixed record per page (:data:`_PAGE`);
* the positions of the inserted characters, ascending, uint32 each.

An inserted character costs 4 bytes rather than a 16-byte empty box, which
keeps a document with a few lines per page under 16 bytes per character.
"""

from __future__ import annotations

import struct
import sys
import tempfile
import threading
import weakref
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, ClassVar, Protocol

__all__ = ["Box", "DocumentGeometry", "GeometryWriter", "PageInfo", "PageRecord", "TextLines",
           "crc32_text"]

_MAGIC = b"CGEO"
_VERSION = 2
# magic, version, reserved, pages, text length, crc32, inserted characters
_HEADER = struct.Struct("<4sHHIIII")
_PAGE = struct.Struct("<IIIi10d")  # number, text range, rotation, size, mediabox, cropbox
_BOX_SIZE = 16  # four float32
_POSITION_SIZE = 4  # one uint32
_COPY_CHUNK = 1 << 16
_BIG_ENDIAN = sys.byteorder == "big"
if array("I").itemsize != _POSITION_SIZE:  # pragma: no cover - no such platform in use
    raise ImportError("citeguard geometry needs a 4-byte array('I')")


Box = tuple[float, float, float, float]


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


# --------------------------------------------------------------------------
# Where the stored bytes are: in memory, in a temporary file, or in storage


class _Blob(Protocol):
    """Random access to one document's stored geometry bytes."""

    def read(self, offset: int, size: int) -> bytes: ...

    def copy_to(self, out: IO[bytes]) -> int: ...

    def close(self) -> None: ...


class _BytesBlob:
    __slots__ = ("data",)

    def __init__(self, data: bytes) -> None:
        self.data = data

    def read(self, offset: int, size: int) -> bytes:
        return self.data[offset : offset + size]

    def copy_to(self, out: IO[bytes]) -> int:
        out.write(self.data)
        return len(self.data)

    def close(self) -> None:
        pass


def _copy(source: IO[bytes], out: IO[bytes]) -> int:
    """Copy ``source`` from its start, a chunk at a time; returns the size."""
    source.seek(0)
    written = 0
    while chunk := source.read(_COPY_CHUNK):
        out.write(chunk)
        written += len(chunk)
    return written


class _TemporaryBlob:
    """The temporary file extraction wrote; closed with its last user."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.lock = threading.Lock()  # seek + read must not interleave
        self._finalizer = weakref.finalize(self, handle.close)

    def read(self, offset: int, size: int) -> bytes:
        with self.lock:
            self.handle.seek(offset)
            return self.handle.read(size)

    def copy_to(self, out: IO[bytes]) -> int:
        with self.lock:
            return _copy(self.handle, out)

    def close(self) -> None:
        self._finalizer()


class _OpenerBlob:
    """A stored file, opened afresh for every read (nothing is held open)."""

    __slots__ = ("open_file",)

    def __init__(self, open_file: Callable[[], IO[bytes]]) -> None:
        self.open_file = open_file

    def read(self, offset: int, size: int) -> bytes:
        with self.open_file() as handle:
            handle.seek(offset)
            return handle.read(size)

    def copy_to(self, out: IO[bytes]) -> int:
        with self.open_file() as handle:
            return _copy(handle, out)

    def close(self) -> None:
        pass


class _ReaderBlob:
    """A stored file read by ranges (``read(offset, size)``), as a remote
    store serves them: nothing is held open, and a lookup fetches only the
    bytes it needs."""

    __slots__ = ("read_range", "size")

    def __init__(self, read_range: Callable[[int, int], bytes], size: int) -> None:
        self.read_range = read_range
        self.size = size

    def read(self, offset: int, size: int) -> bytes:
        return self.read_range(offset, size)

    def copy_to(self, out: IO[bytes]) -> int:
        for offset in range(0, self.size, _COPY_CHUNK):
            out.write(self.read_range(offset, min(_COPY_CHUNK, self.size - offset)))
        return self.size

    def close(self) -> None:
        pass


def _to_floats(data: bytes) -> list[float]:
    values = array("f")
    values.frombytes(data)
    if _BIG_ENDIAN:
        values.byteswap()
    return values.tolist()


# --------------------------------------------------------------------------
# Geometry


@dataclass(frozen=True, slots=True, eq=False)
class DocumentGeometry:
    """Per-page text ranges, the positions of inserted characters, and a
    float32 box for every other character (glyph), read on demand.

    ``inserted`` holds, ascending, the positions of the characters the
    extractor inserted (line breaks, separators, joiners), which have no box;
    it is shared, not copied: treat it as read-only. Boxes come from wherever
    the stored bytes are: the extraction's temporary file, bytes in memory
    (:meth:`from_bytes`) or a stored file opened per read (:meth:`from_file`).
    """

    pages: tuple[PageInfo, ...] = field(repr=False)
    inserted: array[int] = field(repr=False)
    text_length: int
    text_crc32: int
    blob: _Blob = field(repr=False)
    page_starts: tuple[int, ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.inserted) > self.text_length:
            raise ValueError(
                f"geometry lists {len(self.inserted)} inserted characters in a text of "
                f"{self.text_length}"
            )
        # Cached for bisecting offsets to pages (locate() runs per request).
        object.__setattr__(self, "page_starts", tuple(p.text_start for p in self.pages))

    @property
    def glyph_count(self) -> int:
        """How many characters have a box (all but the inserted ones)."""
        return self.text_length - len(self.inserted)

    @property
    def stored_size(self) -> int:
        """Bytes that :meth:`write` produces."""
        return _stored_size(len(self.pages), self.text_length, len(self.inserted))

    def is_inserted(self, index: int) -> bool:
        k = bisect_left(self.inserted, index)
        return k < len(self.inserted) and self.inserted[k] == index

    def box(self, index: int) -> Box | None:
        """The box of character ``index``, or None for an inserted character."""
        if not 0 <= index < self.text_length:
            raise IndexError(f"character {index} is outside the text (length {self.text_length})")
        k = bisect_left(self.inserted, index)
        if k < len(self.inserted) and self.inserted[k] == index:
            return None
        x0, y0, x1, y1 = self._glyph_values(index - k, index - k + 1)
        return (x0, y0, x1, y1)

    def glyph_boxes(self, start: int, end: int) -> list[float]:
        """The boxes of the glyphs in ``[start, end)``, flat (4 values each);
        inserted characters are left out."""
        inserted = self.inserted
        first = start - bisect_left(inserted, start)
        last = end - bisect_left(inserted, end)
        return self._glyph_values(first, last) if last > first else []

    def glyph_runs(self, start: int, end: int) -> Iterator[list[float]]:
        """The boxes of ``[start, end)`` run by run, flat (4 values a glyph):
        one run per stretch between inserted characters, which are left out.
        The boxes are read in one go."""
        inserted = self.inserted
        k0, k1 = bisect_left(inserted, start), bisect_left(inserted, end)
        values = self.glyph_boxes(start, end) if end - start > k1 - k0 else []
        at = 0  # into values
        position = start
        for k in range(k0, k1):
            stop = inserted[k]
            if stop > position:
                count = 4 * (stop - position)
                yield values[at : at + count]
                at += count
            position = stop + 1
        if end > position:
            yield values[at:]

    def _glyph_values(self, first: int, last: int) -> list[float]:
        size = _BOX_SIZE * (last - first)
        data = self.blob.read(_HEADER.size + _BOX_SIZE * first, size)
        if len(data) != size:
            raise ValueError("geometry data ended early: it was cut short or changed")
        return _to_floats(data)

    # Serialisation ----------------------------------------------------------

    def write(self, out: IO[bytes]) -> int:
        """Write the stored format to the binary file ``out``, a chunk at a
        time (no second copy in memory); returns the number of bytes."""
        return self.blob.copy_to(out)

    def to_bytes(self) -> bytes:
        """The stored format as one bytes object (prefer :meth:`write` for big
        documents: this holds all of it in memory)."""
        if isinstance(self.blob, _BytesBlob):
            return self.blob.data
        return self.blob.read(0, self.stored_size)

    def close(self) -> None:
        """Release the temporary file behind a freshly extracted geometry
        (boxes cannot be read after this). Also done when it is collected."""
        self.blob.close()

    @classmethod
    def from_bytes(cls, data: bytes) -> DocumentGeometry:
        """The geometry in ``data`` (as :meth:`write` or :meth:`to_bytes` made it)."""
        blob = _BytesBlob(bytes(data))
        return _read_index(blob.read, len(blob.data), blob)

    @classmethod
    def from_file(cls, open_file: Callable[[], IO[bytes]]) -> DocumentGeometry:
        """The geometry of a stored file, without reading its boxes now.

        ``open_file()`` must return a new binary file object (a context
        manager) on each call, e.g. ``lambda: storage.open(name, "rb")``: the
        header, page records and inserted positions are read once, here; each
        later box lookup opens the file and reads just the boxes it needs.
        """
        with open_file() as handle:

            def read(offset: int, size: int) -> bytes:
                handle.seek(offset)
                return handle.read(size)

            return _read_index(read, handle.seek(0, 2), _OpenerBlob(open_file))


    @classmethod
    def from_reader(cls, read_range: Callable[[int, int], bytes], size: int
                    ) -> DocumentGeometry:
        """The geometry of a stored file of ``size`` bytes that
        ``read_range(offset, size)`` reads by ranges (an object store's
        ranged GET): the index is read here, each later box lookup reads just
        the boxes it needs."""
        return _read_index(read_range, size, _ReaderBlob(read_range, size))


def _stored_size(pages: int, text_length: int, inserted: int) -> int:
    return (
        _HEADER.size
        + _BOX_SIZE * (text_length - inserted)
        + _PAGE.size * pages
        + _POSITION_SIZE * inserted
    )


def _read_index(
    read: Callable[[int, int], bytes], size: int, blob: _Blob
) -> DocumentGeometry:
    """Check the header of stored geometry and read everything but the boxes
    (with ``read(offset, size)``); the geometry reads its boxes from ``blob``."""
    header = read(0, _HEADER.size)
    if len(header) < _HEADER.size:
        raise ValueError("geometry data is too short to hold a header")
    magic, version, _, page_count, text_length, crc, inserted_count = _HEADER.unpack(header)
    if magic != _MAGIC:
        raise ValueError(f"not citeguard geometry data (magic {magic!r}, expected {_MAGIC!r})")
    if version != _VERSION:
        raise ValueError(
            f"geometry format version {version} is not supported (only {_VERSION}); "
            "re-extract the document's PDF to store its geometry again"
        )
    if inserted_count > text_length:
        raise ValueError(
            f"geometry header lists {inserted_count} inserted characters in a text of "
            f"{text_length}"
        )
    expected = _stored_size(page_count, text_length, inserted_count)
    if size != expected:
        raise ValueError(f"geometry data is {size} bytes; the header implies {expected}")
    tables_at = _HEADER.size + _BOX_SIZE * (text_length - inserted_count)
    tables = read(tables_at, size - tables_at)
    pages = []
    for index in range(page_count):
        number, start, end, rotation, width, height, *rest = _PAGE.unpack_from(
            tables, index * _PAGE.size
        )
        pages.append(
            PageInfo(
                number=number, text_start=start, text_end=end, width=width, height=height,
                rotation=rotation, mediabox=(rest[0], rest[1], rest[2], rest[3]),
                cropbox=(rest[4], rest[5], rest[6], rest[7]),
            )
        )
    inserted = array("I")
    inserted.frombytes(tables[page_count * _PAGE.size :])
    if _BIG_ENDIAN:
        inserted.byteswap()
    return DocumentGeometry(
        pages=tuple(pages), inserted=inserted, text_length=text_length, text_crc32=crc,
        blob=blob,
    )


@dataclass(frozen=True, slots=True, eq=False)
class TextLines:
    """Lines of the text in the margin bands of their page, with their
    vertical extent: what furniture detection needs.

    A line is a non-blank stretch between line breaks (``"\\n"``). Gathered
    page by page during extraction: every line that lies wholly in the top or
    bottom :attr:`band` (a fraction of the displayed page height) is here
    (some a little further in may be too). Line ``k`` is
    ``text[starts[k]:ends[k]]`` (it starts and ends with a glyph), and its
    glyphs span ``tops[k]`` to ``bottoms[k]`` on the displayed page, as
    float32 like the stored boxes. The lines of page ``n`` (1-based) are
    ``page_lines[n - 1]`` up to ``page_lines[n]``.
    """

    band: ClassVar[float] = 0.25
    starts: array[int] = field(default_factory=lambda: array("I"), repr=False)
    ends: array[int] = field(default_factory=lambda: array("I"), repr=False)
    tops: array[float] = field(default_factory=lambda: array("f"), repr=False)
    bottoms: array[float] = field(default_factory=lambda: array("f"), repr=False)
    page_lines: array[int] = field(default_factory=lambda: array("I", [0]), repr=False)

    def page(self, number: int) -> range:
        """Indices of the lines of page ``number`` (1-based)."""
        return range(self.page_lines[number - 1], self.page_lines[number])


def crc32_text(text: str, crc: int = 0) -> int:
    return zlib.crc32(text.encode("utf-8", "surrogatepass"), crc)


class PageRecord(Protocol):
    """What the writer takes of one extracted page."""

    info: PageInfo
    boxes: array[float]  # float32, 4 per glyph
    inserted: list[int]
    margin_lines: list[tuple[int, int, float, float]]  # start, end, top, bottom


class GeometryWriter:
    """Streams a document's geometry into a temporary file, page by page.

    The file is in the stored format once :meth:`finish` has appended the page
    records and inserted positions and filled in the header.
    """

    def __init__(self) -> None:
        self.handle: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 - owned by the blob
        self.handle.write(bytes(_HEADER.size))  # the header is written last
        self.pages: list[PageInfo] = []
        self.inserted: array[int] = array("I")
        self.lines = TextLines()

    def insert(self, start: int, count: int) -> None:
        self.inserted.extend(range(start, start + count))

    def add_page(self, page: PageRecord) -> None:
        boxes = page.boxes
        if _BIG_ENDIAN:
            boxes.byteswap()
        self.handle.write(boxes)
        self.pages.append(page.info)
        self.inserted.extend(page.inserted)
        lines = self.lines
        for start, end, top, bottom in page.margin_lines:
            lines.starts.append(start)
            lines.ends.append(end)
            lines.tops.append(top)
            lines.bottoms.append(bottom)
        lines.page_lines.append(len(lines.starts))

    def finish(self, text_length: int, crc: int) -> DocumentGeometry:
        handle = self.handle
        handle.writelines(
            _PAGE.pack(
                p.number, p.text_start, p.text_end, p.rotation, p.width, p.height,
                *p.mediabox, *p.cropbox,
            )
            for p in self.pages
        )
        inserted = self.inserted
        if _BIG_ENDIAN:
            inserted = array("I", inserted)
            inserted.byteswap()
        handle.write(inserted)
        handle.seek(0)
        handle.write(_HEADER.pack(
            _MAGIC, _VERSION, 0, len(self.pages), text_length, crc, len(self.inserted)
        ))
        handle.flush()
        geometry = DocumentGeometry(
            pages=tuple(self.pages), inserted=self.inserted, text_length=text_length,
            text_crc32=crc, blob=_TemporaryBlob(handle),
        )
        if geometry.stored_size != handle.seek(0, 2):  # pragma: no cover - a bug
            raise AssertionError("geometry file size does not match its header")
        return geometry

    def close(self) -> None:
        self.handle.close()


