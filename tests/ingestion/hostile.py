"""Hostile PDFs, built from raw bytes in well under a second each (shared by
tests/ingestion/test_hostile_pdfs.py and bench/ingest_sandbox.py).

Each is small on disk and expensive to read: the glyph bomb draws a run of
glyphs over and over from a tiny compressed content stream, the inflate bomb
embeds a font stream that decompresses to ``size`` zero bytes, the dense
document shares one full page of text among thousands of pages.
"""

from __future__ import annotations

import struct
import zlib

import pymupdf

__all__ = [
    "dense_pages", "encrypted", "glyph_bomb", "inflate_bomb", "javascript", "raw_pdf",
    "truncated", "zero_bytes",
]

_FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def raw_pdf(objects: list[bytes], *, root: int = 1) -> bytes:
    """A PDF whose object ``k`` (1-based) is ``objects[k - 1]``, with a correct
    cross-reference table."""
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, root, xref)
    return bytes(out)


def _stream(data: bytes, extra: bytes = b"", *, compress: bool = True) -> bytes:
    if compress:
        data = zlib.compress(data, 9)
        extra += b" /Filter /FlateDecode"
    return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def _pages(kids: list[int], count_objects: int) -> bytes:
    return b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids), count_objects)


def glyph_bomb(glyphs: int = 20_000_000) -> bytes:
    """One page drawing ``glyphs`` glyphs: a 100-glyph run shown again and
    again, each time a little lower, from a content stream zlib shrinks a
    thousandfold."""
    run = b"(" + b"W" * 100 + b") Tj 0 0 Td\n"  # Td: back to the row's start
    per_row = max(1, glyphs // (100 * 100))  # 100 rows of runs
    content = b"BT /F1 1 Tf\n" + b"".join(
        b"1 0 0 1 20 %d Tm\n" % (40 + 7 * k) + run * per_row for k in range(100)) + b"ET\n"
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        _pages([3], 1),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        _FONT,
        _stream(content),
    ])


def _text_page(lines: int, chars: int) -> bytes:
    words = b"Dense prose fills every line of this page from margin to margin "
    line = (words * (chars // len(words) + 1))[:chars]
    return b"BT /F1 9 Tf 40 760 Td 11 TL\n" + b"".join(
        b"(" + line + b") Tj T*\n" for _ in range(lines)) + b"ET\n"


def dense_pages(pages: int = 2000, *, lines: int = 60, chars: int = 110) -> bytes:
    """``pages`` pages of ``lines`` full lines each, sharing one content stream."""
    first_page = 5
    kids = list(range(first_page, first_page + pages))
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        _pages(kids, pages),
        _FONT,
        _stream(_text_page(lines, chars)),
        *[b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
          b"/Resources << /Font << /F1 3 0 R >> >> /Contents 4 0 R >>"] * pages,
    ])


def inflate_bomb(size: int = 1024**3) -> bytes:
    """A page whose embedded TrueType font stream inflates to ``size`` zero
    bytes (a thousandth of that on disk); MuPDF reads a font stream
    whole before it parses it."""
    # One MiB of zeros deflated after a full flush does not refer back, so
    # the same block repeats; only the Adler-32 of n zeros, (n % 65521) << 16
    # | 1, is computed rather than deflated.
    packer = zlib.compressobj(9)
    chunk = bytes(1 << 20)
    first = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(chunk) + packer.flush(zlib.Z_FULL_FLUSH)
    end = packer.flush()[:-4] + struct.pack(">I", ((size % 65521) << 16) | 1)
    packed = first + block * ((size >> 20) - 1) + end
    font_stream = (b"<< /Length %d /Length1 %d /Filter /FlateDecode >>\nstream\n"
                   % (len(packed), size) + packed + b"\nendstream")
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        _pages([3], 1),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 6 0 R >>",
        b"<< /Type /Font /Subtype /TrueType /BaseFont /Bomb /FirstChar 32 /LastChar 126 "
        b"/FontDescriptor 5 0 R >>",
        b"<< /Type /FontDescriptor /FontName /Bomb /Flags 32 /FontBBox [0 0 1000 1000] "
        b"/ItalicAngle 0 /Ascent 800 /Descent -200 /CapHeight 700 /StemV 80 "
        b"/FontFile2 7 0 R >>",
        _stream(b"BT /F1 12 Tf 72 700 Td (A font that never ends) Tj ET"),
        font_stream,
    ])


def javascript() -> bytes:
    """A page of text whose document runs JavaScript when opened."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R /OpenAction 6 0 R "
        b"/Names << /JavaScript << /Names [(run) 6 0 R] >> >> >>",
        _pages([3], 1),
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R "
        b"/AA << /O 6 0 R >> >>",
        _FONT,
        _stream(b"BT /F1 12 Tf 72 700 Td (Scripts are never run by the reader.) Tj ET"),
        b"<< /S /JavaScript /JS (while (true) { app.alert('hello'); }) >>",
    ])


def truncated() -> bytes:
    """A text PDF cut off in the middle, as an interrupted upload leaves it."""
    data = dense_pages(20, lines=5, chars=60)
    return data[: len(data) // 2]


def encrypted() -> bytes:
    """A text PDF that needs a password to open."""
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "Confidential terms of the settlement.")
    data: bytes = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="owner",
                              user_pw="user")
    doc.close()
    return data


def zero_bytes() -> bytes:
    return b""
