"""Test PDFs for the viewer, and where their text is, computed with PyMuPDF alone.

Every target is located twice, independently: by construction (the baseline point
the text was written at, in PDF user space) and by `Page.search_for` (rects in the
unrotated page with y down from the top of the MediaBox), converted to PDF user
space. The two must agree before a browser is involved; the browser tests then
compare pdf.js's placement of the overlays with `expected_viewport_box`, which
works the geometry out here rather than asking pdf.js.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

__all__ = [
    "PDF_TO_CSS",
    "Target",
    "TestPdf",
    "build_all",
    "expected_viewport_box",
]

# pdf.js draws one PDF point as 96/72 CSS pixels at zoom 1 (PixelsPerInch.PDF_TO_CSS_UNITS).
PDF_TO_CSS = 96 / 72

Rect4 = tuple[float, float, float, float]


@dataclass(frozen=True)
class Target:
    """A piece of text on a page, with its box in PDF user space (y up)."""

    page: int  # 1-based
    text: str
    pdf_rect: Rect4  # x0, y0, x1, y1 in PDF user space points
    view_box: Rect4  # the page's MediaBox (no CropBox is set), PDF user space
    rotation: int  # the page's /Rotate


@dataclass
class TestPdf:
    __test__ = False  # not a pytest test class

    path: Path
    pages: int
    targets: dict[str, Target] = field(default_factory=dict)


LETTER = (612.0, 792.0)


def _write(page: pymupdf.Page, at: tuple[float, float], text: str, size: float = 12) -> Rect4:
    """Write `text` with its baseline starting at `at` (PyMuPDF coordinates of a
    612x792 page at the origin, y down) and return that point in PDF user space,
    as a degenerate rect, for the construction check."""
    page.insert_text(at, text, fontsize=size, fontname="helv")
    x, y = at
    return (x, LETTER[1] - y, x, LETTER[1] - y)


def _pdf_rect(page: pymupdf.Page, text: str) -> Rect4:
    """`text`'s box in PDF user space, from search_for.

    search_for gives the unrotated page with y down from the top of the MediaBox,
    and x from its left edge: x_pdf = x + mediabox.x0, y_pdf = mediabox.y1 - y.
    On unrotated pages this is cross-checked against the inverse of
    page.transformation_matrix (PDF user space -> that same y-down space). On
    rotated pages PyMuPDF 2.0's transformation_matrix drops the MediaBox offset
    (observed: [1 0 0 -1 0 792] for MediaBox [30 40 642 832], /Rotate 270), so
    there the builders compare with the rect found before /Rotate was set, and
    the construction check in `_target` applies as everywhere.
    """
    hits = page.search_for(text)
    assert len(hits) == 1, (text, hits)
    r = hits[0]
    mb = page.mediabox  # PDF user space, as written in the file
    rect = (r.x0 + mb.x0, mb.y1 - r.y1, r.x1 + mb.x0, mb.y1 - r.y0)

    if page.rotation == 0:
        inverse = ~page.transformation_matrix
        a = pymupdf.Point(r.x0, r.y0) * inverse
        b = pymupdf.Point(r.x1, r.y1) * inverse
        via_matrix = (min(a.x, b.x), min(a.y, b.y), max(a.x, b.x), max(a.y, b.y))
        assert _close(rect, via_matrix), (rect, via_matrix)
    return rect


def _close(a: Rect4, b: Rect4, tolerance: float = 1e-3) -> bool:
    return all(abs(p - q) < tolerance for p, q in zip(a, b, strict=True))


def _target(doc: pymupdf.Document, number: int, text: str, baseline: Rect4) -> Target:
    page = doc[number - 1]
    rect = _pdf_rect(page, text)
    bx, by = baseline[0], baseline[1]
    # Construction check: the text starts at its baseline point, which lies in its box.
    assert abs(rect[0] - bx) < 1.0 and rect[1] - 0.5 < by < rect[3], (text, rect, baseline)
    mb = page.mediabox
    return Target(number, text, rect, (mb.x0, mb.y0, mb.x1, mb.y1), page.rotation)


def expected_viewport_box(target: Target, scale: float) -> tuple[float, float, float, float]:
    """Where `target` should appear, in CSS pixels from the page's top-left corner,
    at zoom `scale`: (left, top, width, height).

    The page shows its view box rotated clockwise by /Rotate. With u, v the
    distance from the view box's left and top edges (unrotated, y down) and
    W, H the unrotated page's size, all times `scale * 96/72`:
      0:  (u, v)   90: (H - v, u)   180: (W - u, H - v)   270: (v, W - u)
    """
    k = scale * PDF_TO_CSS
    vx0, vy0, vx1, vy1 = target.view_box
    width, height = (vx1 - vx0) * k, (vy1 - vy0) * k

    def convert(x: float, y: float) -> tuple[float, float]:
        u, v = (x - vx0) * k, (vy1 - y) * k
        return {
            0: (u, v),
            90: (height - v, u),
            180: (width - u, height - v),
            270: (v, width - u),
        }[target.rotation % 360]

    x0, y0, x1, y1 = target.pdf_rect
    (ax, ay), (bx, by) = convert(x0, y0), convert(x1, y1)
    return (min(ax, bx), min(ay, by), abs(bx - ax), abs(by - ay))


def build_three_pages(path: Path) -> TestPdf:
    """Three portrait Letter pages; a passage that runs from the foot of page 2
    to the top of page 3."""
    doc = pymupdf.open()
    lines = {
        1: [(72, 90, "Page one: an introduction to the annual report."),
            (72, 400, "Revenue grew by twelve percent in the third quarter.")],
        2: [(72, 90, "Page two: methods and data sources."),
            (90, 330, "The survey covered 1,204 households in six regions."),
            (72, 730, "The spanning passage begins at the foot of page two")],
        3: [(72, 80, "and it ends at the top of page three."),
            (300, 500, "Appendix table of regional results.")],
    }
    baselines = {}
    for number, items in lines.items():
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        for x, y, text in items:
            baselines[text] = (number, _write(page, (x, y), text))
    result = TestPdf(path, doc.page_count)
    names = {
        "revenue": "Revenue grew by twelve percent in the third quarter.",
        "survey": "The survey covered 1,204 households in six regions.",
        "span_start": "The spanning passage begins at the foot of page two",
        "span_end": "and it ends at the top of page three.",
        "appendix": "Appendix table of regional results.",
    }
    for name, text in names.items():
        number, baseline = baselines[text]
        result.targets[name] = _target(doc, number, text, baseline)
    doc.save(path)
    return result


def build_rotated(path: Path) -> TestPdf:
    """Page 1: Letter with /Rotate 90. Page 2: /Rotate 270 and a MediaBox that
    does not start at 0,0."""
    doc = pymupdf.open()
    p1 = doc.new_page(width=LETTER[0], height=LETTER[1])
    t1 = "Rotated ninety: the cited passage."
    b1 = _write(p1, (120, 200), t1, size=16)
    unrotated1 = _pdf_rect(p1, t1)
    p1.set_rotation(90)
    p2 = doc.new_page(width=LETTER[0], height=LETTER[1])
    t2 = "Rotated 270 with an offset box."
    b2 = _write(p2, (200, 300), t2, size=16)
    p2.set_mediabox(pymupdf.Rect(30, 40, 642, 832))
    unrotated2 = _pdf_rect(p2, t2)
    p2.set_rotation(270)
    result = TestPdf(path, doc.page_count)
    result.targets["rot90"] = _target(doc, 1, t1, b1)
    result.targets["rot270_offset"] = _target(doc, 2, t2, b2)
    # /Rotate changes how a page is shown, not where its text is in user space.
    assert _close(result.targets["rot90"].pdf_rect, unrotated1)
    assert _close(result.targets["rot270_offset"].pdf_rect, unrotated2)
    assert result.targets["rot90"].rotation == 90
    assert result.targets["rot270_offset"].view_box == (30, 40, 642, 832)
    doc.save(path)
    return result


def build_offset(path: Path) -> TestPdf:
    """One page whose MediaBox is [50 50 662 842]."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    text = "Offset media box: the cited passage."
    baseline = _write(page, (150, 420), text, size=16)
    page.set_mediabox(pymupdf.Rect(50, 50, 662, 842))
    result = TestPdf(path, doc.page_count)
    result.targets["offset"] = _target(doc, 1, text, baseline)
    assert result.targets["offset"].view_box == (50, 50, 662, 842)
    assert "/MediaBox [ 50 50 662 842 ]" in doc.xref_object(doc[0].xref, compressed=False)
    doc.save(path)
    return result


def build_long(path: Path, pages: int = 300, target_page: int = 280) -> TestPdf:
    """`pages` Letter pages, each with a heading; one passage on `target_page`."""
    doc = pymupdf.open()
    text = f"The passage cited from page {target_page} of {pages}."
    # Build one page and copy it (PyMuPDF writes text slowly); only the target
    # page gets its own text.
    template = pymupdf.open()
    page = template.new_page(width=LETTER[0], height=LETTER[1])
    filler = "\n\n".join(f"Filler paragraph {row} of a long report." for row in range(1, 9))
    page.insert_text((72, 140), filler, fontsize=11, fontname="helv")
    for _ in range(pages):
        doc.insert_pdf(template)
    for number in (1, target_page, pages):
        doc[number - 1].insert_text((72, 72), f"Page {number} of {pages}", fontsize=18,
                                    fontname="helv")
    baseline = _write(doc[target_page - 1], (72, 660), text, size=14)
    result = TestPdf(path, doc.page_count)
    result.targets["target"] = _target(doc, target_page, text, baseline)
    doc.save(path, garbage=1, deflate=True)
    return result


def build_all(directory: Path) -> dict[str, TestPdf]:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "not-a-pdf.pdf").write_text("<html>This is not a PDF.</html>\n")
    return {
        "three": build_three_pages(directory / "three.pdf"),
        "rotated": build_rotated(directory / "rotated.pdf"),
        "offset": build_offset(directory / "offset.pdf"),
        "long": build_long(directory / "long.pdf"),
        "scanned": build_scanned(directory / "scanned.pdf"),
    }


# ---- scanned pages ---------------------------------------------------------
#
# A "scan" is a picture of printed text with an invisible OCR text layer on top
# (render mode 3), as OCR tools write them: the picture is what the reader sees,
# the text layer is what citeguard extracts and highlights. Each page stores its
# picture with a different image filter, the ones scanners and fax software use.
# PyMuPDF writes JPEG itself; it cannot encode JPEG 2000, CCITT or JBIG2, so
# those pictures are committed under tests/browser/scans/ (a few KB each) and
# re-made by tests/browser/make_scans.py (needs Pillow) from the same layout
# as below. `build_scanned` checks with MuPDF that every picture still shows
# ink under its text layer, so a stale picture fails loudly.

SCANS_DIR = Path(__file__).resolve().parent / "scans"
SCAN_DPI = 150
# The part of the page the scanner picture covers (PyMuPDF coordinates, y down).
SCAN_CLIP = (54.0, 60.0, 558.0, 300.0)
# page kind -> (PDF filter name, picture file or None when made here)
SCAN_KINDS: dict[str, tuple[str, str | None]] = {
    "jpeg": ("DCTDecode", None),
    "jpx": ("JPXDecode", "scan-jpx.jp2"),
    "ccitt": ("CCITTFaxDecode", "scan-ccitt.g4"),
    "jbig2": ("JBIG2Decode", "scan-jbig2.jb2"),
}


def scan_lines(kind: str) -> list[tuple[float, float, str, float]]:
    """(x, baseline y, text, font size) of the printed text on `kind`'s page."""
    return [
        (72, 100, f"SCANNED LEASE - {kind.upper()} PAGE", 16),
        (72, 150, "The tenant shall give sixty days written notice.", 13),
        (72, 190, f"Notice under the {kind} clause must be given in writing.", 13),
        (72, 230, "Rent is payable on the first business day of the month.", 13),
        (72, 270, "Signed in the presence of two witnesses.", 13),
    ]


def scan_target_text(kind: str) -> str:
    return scan_lines(kind)[2][2]


def render_scan_picture(kind: str) -> pymupdf.Pixmap:
    """What the scanner saw: `kind`'s printed text inside SCAN_CLIP, grey, SCAN_DPI."""
    doc = pymupdf.open()
    page = doc.new_page(width=LETTER[0], height=LETTER[1])
    for x, y, text, size in scan_lines(kind):
        page.insert_text((x, y), text, fontsize=size, fontname="helv")
    return page.get_pixmap(dpi=SCAN_DPI, clip=pymupdf.Rect(SCAN_CLIP), colorspace=pymupdf.csGRAY)


def _raw_image(doc: pymupdf.Document, page: pymupdf.Page, rect: pymupdf.Rect, width: int,
               height: int, data: bytes, dictionary: str) -> None:
    """Place an image whose stream is `data` as is (already encoded), described
    by `dictionary` (the image dictionary's entries other than /Length)."""
    placeholder = pymupdf.Pixmap(pymupdf.csGRAY, pymupdf.IRect(0, 0, 1, 1), False)
    xref = page.insert_image(rect, pixmap=placeholder, keep_proportion=False)
    doc.update_stream(xref, data, compress=False)
    doc.update_object(xref, f"<< /Type /XObject /Subtype /Image /Width {width} "
                            f"/Height {height} {dictionary} /Length {len(data)} >>")
    assert doc.xref_stream_raw(xref) == data


def build_scanned(path: Path) -> TestPdf:
    """One scanned page per picture format in SCAN_KINDS, each with an invisible
    OCR text layer; the target is the third printed line."""
    doc = pymupdf.open()
    clip = pymupdf.Rect(SCAN_CLIP)
    baselines = {}
    for number, (kind, (filter_name, filename)) in enumerate(SCAN_KINDS.items(), start=1):
        page = doc.new_page(width=LETTER[0], height=LETTER[1])
        picture = render_scan_picture(kind)
        w, h = picture.width, picture.height
        if filename is None:
            page.insert_image(clip, stream=picture.tobytes("jpg", jpg_quality=40))
        else:
            data = (SCANS_DIR / filename).read_bytes()
            if kind == "jpx":
                entries = "/Filter /JPXDecode"
            elif kind == "ccitt":
                entries = (f"/ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /CCITTFaxDecode "
                           f"/DecodeParms << /K -1 /Columns {w} /Rows {h} /BlackIs1 false >>")
            else:
                entries = "/ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /JBIG2Decode"
            _raw_image(doc, page, clip, w, h, data, entries)
        for x, y, text, size in scan_lines(kind):
            page.insert_text((x, y), text, fontsize=size, fontname="helv", render_mode=3)
        baselines[kind] = (number, _write_point((72, 190)))
        # The picture really is stored with this filter, not re-encoded.
        images = page.get_images(full=True)
        assert len(images) == 1 and filter_name in doc.xref_object(images[0][0]), (
            kind, doc.xref_object(images[0][0]))
    result = TestPdf(path, doc.page_count)
    for kind, (number, baseline) in baselines.items():
        target = _target(doc, number, scan_target_text(kind), baseline)
        _assert_ink_under(doc[number - 1], target, kind)
        result.targets[kind] = target
    doc.save(path)
    return result


def _write_point(at: tuple[float, float]) -> Rect4:
    x, y = at
    return (x, LETTER[1] - y, x, LETTER[1] - y)


def _assert_ink_under(page: pymupdf.Page, target: Target, kind: str) -> None:
    """MuPDF decodes the picture and finds dark pixels under the target's text
    layer box: the fixture itself is sound, whatever pdf.js does with it."""
    x0, y0, x1, y1 = target.pdf_rect
    box = pymupdf.Rect(x0, LETTER[1] - y1, x1, LETTER[1] - y0)
    pix = page.get_pixmap(dpi=SCAN_DPI, clip=box, colorspace=pymupdf.csGRAY)
    dark = sum(1 for value in pix.samples if value < 128)
    assert dark > 0.04 * len(pix.samples), (
        f"the {kind} scan shows no ink under its text layer ({dark} dark pixels): "
        "re-make the pictures with tests/browser/make_scans.py")
