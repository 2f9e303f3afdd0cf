"""Re-make the scanned pictures in tests/browser/scans/ that PyMuPDF cannot encode.

    python -m tests.browser.make_scans        # needs PyMuPDF and Pillow (with openjpeg, libtiff)

Pillow is not a dependency of citeguard: the pictures are committed, and only
this script needs it (e.g. `pip install --target /tmp/pil pillow` and
PYTHONPATH=/tmp/pil). The pictures are drawn from `render_scan_picture`, the
same layout `build_scanned` puts the invisible OCR text on, so the two agree.

- scan-jpx.jp2: JPEG 2000 codestream in a JP2 box, grey, lossy (JPXDecode).
- scan-ccitt.g4: the CCITT Group 4 strip of a one-bit TIFF (CCITTFaxDecode, K -1).
- scan-jbig2.jb2: an embedded JBIG2 stream (no file header: a page-information
  segment and an immediate generic region coded with MMR, i.e. the same Group 4
  bits), as PDF's JBIG2Decode takes it.
"""

from __future__ import annotations

import io
import struct

from PIL import Image

from tests.browser.pdfs import SCANS_DIR, render_scan_picture


def _grey(kind: str) -> Image.Image:
    pix = render_scan_picture(kind)
    return Image.frombytes("L", (pix.width, pix.height), pix.samples)


def _group4(image: Image.Image) -> bytes:
    """The Group 4 bits of `image` thresholded to one bit, white coded as 0
    (the fax convention, and JBIG2's)."""
    bilevel = image.point(lambda v: 255 if v >= 160 else 0).convert("1")
    buffer = io.BytesIO()
    # One strip for the whole picture; photometric min-is-white so a 0 bit is white.
    bilevel.save(buffer, "TIFF", compression="group4",
                 tiffinfo={262: 0, 278: bilevel.height})
    buffer.seek(0)
    tiff = Image.open(buffer)
    offsets, counts = tiff.tag_v2[273], tiff.tag_v2[279]
    assert len(offsets) == 1, "expected one strip"
    data = buffer.getvalue()
    return data[offsets[0]:offsets[0] + counts[0]]


def _segment(number: int, kind: int, data: bytes) -> bytes:
    # number, flags (type; 1-byte page association), no referred-to segments,
    # page 1, data length.
    return struct.pack(">IBBBI", number, kind, 0, 1, len(data)) + data


def _jbig2(width: int, height: int, mmr: bytes) -> bytes:
    page_info = struct.pack(">IIIIBH", width, height, 0, 0, 0, 0)
    region = struct.pack(">IIIIB", width, height, 0, 0, 0) + bytes([0x01]) + mmr  # MMR = 1
    return _segment(0, 48, page_info) + _segment(1, 38, region)


def main() -> None:
    SCANS_DIR.mkdir(exist_ok=True)
    jpx = _grey("jpx")
    buffer = io.BytesIO()
    jpx.save(buffer, "JPEG2000", irreversible=True, quality_mode="rates", quality_layers=[30])
    (SCANS_DIR / "scan-jpx.jp2").write_bytes(buffer.getvalue())

    (SCANS_DIR / "scan-ccitt.g4").write_bytes(_group4(_grey("ccitt")))

    jbig2 = _grey("jbig2")
    (SCANS_DIR / "scan-jbig2.jb2").write_bytes(_jbig2(jbig2.width, jbig2.height, _group4(jbig2)))
    for path in sorted(SCANS_DIR.iterdir()):
        print(f"{path.name}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
