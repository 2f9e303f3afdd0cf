"""extract_pdf(): reading order, text as written, per-character boxes, errors."""

from __future__ import annotations

import io
import itertools
import math
import struct

import pymupdf
import pytest

from reviewer.ingestion import (
    PAGE_SEPARATOR,
    DocumentGeometry,
    ExtractedDocument,
    ExtractionError,
    bounding_box,
    extract_pdf,
    locate,
)
from tests.factories import (
    SEARCH_FLAGS,
    BuiltPdf,
    build_offset_boxes,
    build_rotated,
)
from verification import Source, normalize, verify_answer


def lines_of(text: str) -> list[str]:
    return [line for line in text.split("\n") if line.strip()]


# Text and reading order -------------------------------------------------------


def test_each_page_reads_as_written(report: BuiltPdf, report_doc: ExtractedDocument) -> None:
    assert report_doc.page_count == 4
    for number, written in enumerate(report.pages, 1):
        assert lines_of(report_doc.page_text(number)) == written


def test_columns_do_not_interleave(report: BuiltPdf, report_doc: ExtractedDocument) -> None:
    text = report_doc.page_text(1)
    left_end = max(text.index(line) + len(line) for line in report.left)
    right_start = min(text.index(line) for line in report.right)
    assert left_end < right_start
    assert text.index("A Study of Column Layouts") < text.index(report.left[0])


def test_pages_blocks_and_lines_are_separated(report_doc: ExtractedDocument) -> None:
    pages = report_doc.pages
    for before, after in itertools.pairwise(pages):
        assert report_doc.text[before.text_end : after.text_start] == PAGE_SEPARATOR
    assert report_doc.text.count(PAGE_SEPARATOR) == 3
    # Paragraphs (separate blocks) get a blank line between them.
    assert "\n\n" in report_doc.page_text(1)


def test_hyphenation_is_kept_for_the_normaliser(report_doc: ExtractedDocument) -> None:
    text = report_doc.page_text(1)
    assert "hyphen-\nated" in text
    assert "hyphenated" in normalize(text).text


def test_ligatures_are_one_character_with_its_own_box(ligature_pdf: bytes) -> None:
    doc = extract_pdf(ligature_pdf)
    assert doc.text in ("The \ufb01nal \ufb02ow of \ufb01gures", "The final flow of figures")
    assert normalize(doc.text).text == "the final flow of figures"
    for index in range(len(doc.text)):
        assert doc.geometry.box(index) is not None  # one line: no inserted characters
    ligature = doc.text.find("\ufb01")
    if ligature >= 0:
        x0, y0, x1, y1 = doc.geometry.box(ligature) or (0, 0, 0, 0)
        assert x1 > x0 and y1 > y0


# Geometry ----------------------------------------------------------------------


def rawdict_boxes(page: pymupdf.Page) -> list[tuple[str, tuple[float, ...]]]:
    """Every visible character with its rawdict box mapped by rotation_matrix."""
    raw = page.get_text("rawdict", flags=SEARCH_FLAGS)
    matrix = page.rotation_matrix
    found = []
    for block in raw["blocks"]:
        for line in block.get("lines", []):
            for span in line["spans"]:
                for char in span["chars"]:
                    if not char["c"].isspace():
                        rect = pymupdf.Rect(char["bbox"]) * matrix
                        found.append((char["c"], tuple(round(v, 1) for v in rect)))
    return sorted(found)


def extracted_boxes(doc: ExtractedDocument, number: int) -> list[tuple[str, tuple[float, ...]]]:
    page = doc.pages[number - 1]
    found = []
    for index in range(page.text_start, page.text_end):
        box = doc.geometry.box(index)
        if box is not None and not doc.text[index].isspace():
            found.append((doc.text[index], tuple(round(v, 1) for v in box)))
    return sorted(found)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_boxes_are_rawdict_boxes_on_the_displayed_page(pdf_dir, rotation: int) -> None:
    built = build_rotated(pdf_dir / f"rotated-{rotation}.pdf", rotation)
    doc = built.extract()
    with pymupdf.open(stream=built.data, filetype="pdf") as pdf:
        for number in (1, 2):
            assert extracted_boxes(doc, number) == rawdict_boxes(pdf[number - 1])
    info = doc.pages[1]
    assert info.rotation == rotation
    if rotation in (90, 270):
        assert (info.width, info.height) == (842.0, 595.0)
    else:
        assert (info.width, info.height) == (595.0, 842.0)
    for index in range(info.text_start, info.text_end):
        box = doc.geometry.box(index)
        if box is not None:
            assert 0 <= box[0] <= box[2] <= info.width
            assert 0 <= box[1] <= box[3] <= info.height


def test_inserted_characters_have_no_box(report_doc: ExtractedDocument) -> None:
    geometry = report_doc.geometry
    text = report_doc.text
    for index, char in enumerate(text):
        if char in "\n\f":
            assert geometry.box(index) is None
    # Exactly the line breaks, separators and side-by-side joiners are inserted.
    no_box = [index for index in range(len(text)) if geometry.box(index) is None]
    assert list(geometry.inserted) == no_box
    assert all(text[index] in "\n\f " for index in no_box)
    assert no_box  # the report has line breaks
    assert geometry.glyph_count == len(text) - len(no_box)
    # float32 boxes: 16 bytes per glyph, 4 per inserted character.
    for index in range(len(text)):
        box = geometry.box(index)
        if box is not None:
            assert box == struct.unpack("<4f", struct.pack("<4f", *box))
    assert len(report_doc.to_bytes()) == (
        24 + 16 * geometry.glyph_count + 4 * len(no_box) + 96 * report_doc.page_count
    )


def test_upright_landscape_page_reads_in_display_order(upright_landscape: BuiltPdf) -> None:
    doc = upright_landscape.extract()
    info = doc.pages[0]
    assert (info.rotation, info.width, info.height) == (90, 842.0, 595.0)
    assert lines_of(doc.text) == upright_landscape.pages[0]
    # Displayed upright: each line is wider than tall, and lines go down the page.
    boxes = []
    for line in upright_landscape.pages[0]:
        start = doc.text.index(line)
        box = bounding_box(doc, start, start + len(line))
        assert box is not None
        assert box[2] - box[0] > 5 * (box[3] - box[1])
        boxes.append(box)
    tops = [box[1] for box in boxes]
    assert tops == sorted(tops)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_page_boxes_and_pdf_user_space(pdf_dir, rotation: int) -> None:
    data = build_offset_boxes(pdf_dir / f"offset-{rotation}.pdf", rotation)
    doc = extract_pdf(data)
    info = doc.pages[0]
    assert info.mediabox == (0, 10, 612, 802)
    assert info.cropbox == (30, 40, 500, 700)
    assert (info.width, info.height) == ((660, 470) if rotation % 180 else (470, 660))
    assert doc.text == "Hello"
    box = doc.geometry.box(0)
    assert box is not None
    corners = [info.to_pdf_point(box[0], box[1]), info.to_pdf_point(box[2], box[3])]
    xs = sorted(x for x, _ in corners)
    ys = sorted(y for _, y in corners)
    # "H" starts at x = 100 in PDF user space; its box straddles the baseline y = 600.
    assert xs[0] == pytest.approx(100, abs=0.01)
    assert ys[0] < 600 < ys[1]


# Serialisation -------------------------------------------------------------------


def all_boxes(geometry: DocumentGeometry) -> list[tuple[float, ...] | None]:
    return [geometry.box(index) for index in range(geometry.text_length)]


def test_geometry_round_trips_through_bytes(report_doc: ExtractedDocument) -> None:
    data = report_doc.to_bytes()
    assert len(data) <= 16 * len(report_doc.text) + 32 + 96 * report_doc.page_count
    assert len(data) < 16 * len(report_doc.text)
    again = ExtractedDocument.from_bytes(data, text=report_doc.text)
    assert again.pages == report_doc.pages
    assert all_boxes(again.geometry) == all_boxes(report_doc.geometry)
    assert again.geometry.inserted == report_doc.geometry.inserted
    assert again.to_bytes() == data


def test_geometry_streams_to_a_file_and_reads_back_lazily(
    report_doc: ExtractedDocument, tmp_path
) -> None:
    path = tmp_path / "report.geo"
    with path.open("wb") as handle:
        written = report_doc.write_geometry(handle)
    assert written == path.stat().st_size == report_doc.geometry.stored_size
    assert path.read_bytes() == report_doc.to_bytes()
    opened: list[int] = []

    def open_file():  # type: ignore[no-untyped-def]
        opened.append(1)
        return path.open("rb")

    lazy = DocumentGeometry.from_file(open_file)
    assert lazy.pages == report_doc.pages
    assert (lazy.text_length, lazy.text_crc32) == (
        report_doc.geometry.text_length, report_doc.geometry.text_crc32,
    )
    assert len(opened) == 1  # header, page records and inserted positions only
    page = report_doc.pages[1]
    assert locate(lazy, page.text_start, page.text_end) == locate(
        report_doc, page.text_start, page.text_end
    )
    assert all_boxes(lazy) == all_boxes(report_doc.geometry)
    with pytest.raises(ValueError, match="bytes"):
        DocumentGeometry.from_file(lambda: io.BytesIO(path.read_bytes()[:-4]))


def test_geometry_read_by_ranges_reads_only_what_a_lookup_needs(
        report_doc: ExtractedDocument) -> None:
    """As an object store serves it: each read a ranged GET of a few bytes."""
    data = report_doc.to_bytes()
    reads: list[int] = []

    def read_range(offset: int, size: int) -> bytes:
        reads.append(size)
        return data[offset:offset + size]

    ranged = DocumentGeometry.from_reader(read_range, len(data))
    assert ranged.pages == report_doc.pages
    index_reads = len(reads)
    page = report_doc.pages[1]
    reads.clear()
    assert locate(ranged, page.text_start, page.text_end) == locate(
        report_doc, page.text_start, page.text_end)
    assert 0 < sum(reads) <= 16 * (page.text_end - page.text_start)  # that page's boxes only
    assert index_reads <= 4 and sum(reads) < len(data) / 2
    assert all_boxes(ranged) == all_boxes(report_doc.geometry)
    with pytest.raises(ValueError, match="bytes"):
        DocumentGeometry.from_reader(lambda o, n: data[:-4][o:o + n], len(data) - 4)


def test_geometry_refuses_other_format_versions(report_doc: ExtractedDocument) -> None:
    data = report_doc.to_bytes()
    for version in (1, 3):
        old = data[:4] + struct.pack("<H", version) + data[6:]
        with pytest.raises(ValueError, match=f"format version {version} is not supported"):
            DocumentGeometry.from_bytes(old)


def test_closed_geometry_cannot_be_read(three_pages: bytes) -> None:
    doc = extract_pdf(three_pages)
    assert doc.geometry.box(0) is not None
    doc.geometry.close()
    with pytest.raises(ValueError):
        doc.geometry.box(0)


def test_geometry_refuses_a_different_text(report_doc: ExtractedDocument) -> None:
    data = report_doc.to_bytes()
    with pytest.raises(ValueError, match="different text"):
        ExtractedDocument.from_bytes(data, text=report_doc.text.replace("Study", "Stody"))
    with pytest.raises(ValueError, match="not citeguard geometry"):
        DocumentGeometry.from_bytes(b"XXXX" + data[4:])
    with pytest.raises(ValueError, match="bytes"):
        DocumentGeometry.from_bytes(data[:-4])


# Errors ------------------------------------------------------------------------------


def kind_of(data: bytes, **limits: float) -> str:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(data, **limits)  # type: ignore[arg-type]
    assert str(caught.value) == caught.value.message
    return caught.value.kind


def test_not_a_pdf() -> None:
    assert kind_of(b"hello") == "not-pdf"
    assert kind_of(b"") == "not-pdf"


def test_truncated_pdf_is_corrupt(report: BuiltPdf) -> None:
    assert kind_of(report.data[: len(report.data) // 2]) == "corrupt"


def _cyclic_page_tree() -> bytes:
    """Two pages, the second a page-tree node that lists its own parent: MuPDF
    opens the file and fails on that page ("code=7: cycle in page tree")."""
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 2 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
        b"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    return bytes(out)


def test_damaged_page_names_the_page_and_reason_in_words() -> None:
    with pytest.raises(ExtractionError) as caught:
        extract_pdf(_cyclic_page_tree())
    assert caught.value.kind == "corrupt"
    assert caught.value.message == (
        "Page 2 of this PDF is damaged and cannot be read (cycle in page tree)."
    )


def test_encrypted_pdf(three_pages: bytes) -> None:
    with pymupdf.open(stream=three_pages, filetype="pdf") as doc:
        locked = doc.tobytes(encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="u", owner_pw="o")
    with pytest.raises(ExtractionError, match="encrypted; upload a copy without a password"):
        extract_pdf(locked)


def test_page_without_text_layer() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.draw_rect(pymupdf.Rect(50, 50, 300, 300), color=(0, 0, 0), fill=(0.5, 0.5, 0.5))
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 20, 20), False)
    pixmap.clear_with(200)
    page.insert_image(pymupdf.Rect(320, 50, 500, 230), pixmap=pixmap)
    with pytest.raises(ExtractionError, match="No text layer") as caught:
        extract_pdf(doc.tobytes())
    assert caught.value.kind == "no-text"


def test_too_many_pages(three_pages: bytes) -> None:
    assert kind_of(three_pages, max_pages=1) == "too-many-pages"
    assert extract_pdf(three_pages, max_pages=3).page_count == 3


def test_timeout(three_pages: bytes) -> None:
    assert kind_of(three_pages, max_seconds=0.0) == "timeout"


def test_bytes_are_required() -> None:
    with pytest.raises(TypeError, match="bytes"):
        extract_pdf("report.pdf")  # type: ignore[arg-type]


def test_every_character_has_a_finite_box_or_is_inserted(report_doc: ExtractedDocument) -> None:
    for index, char in enumerate(report_doc.text):
        box = report_doc.geometry.box(index)
        if box is None:
            assert char in "\n\f "
        else:
            assert all(math.isfinite(v) for v in box)


# A drug list printed through a Xerox driver sets each page in two strips cut
# at x = 401, through words: every line's left piece first, then the sidebar,
# then the right pieces, each strip's text in blocks of its own.
_STRIP_LINES = (
    "class. Brand and generic drugs may not always be available due to market changes.",
    "This list applies to the medical plans. It is correct as of August 1, 2024 and is subject to",
)


def _strips_pdf() -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    font = pymupdf.Font("helv")
    pieces = []
    for k, line in enumerate(_STRIP_LINES):
        # The first glyph that runs past the strip's edge starts the right piece.
        x, n = 36.0, 0
        while x + font.text_length(line[n], 10) <= 401.0:
            x, n = x + font.text_length(line[n], 10), n + 1
        pieces.append((300.0 + 13 * k, x, line[:n], line[n:]))
    for y, _x, left, _right in pieces:
        page.insert_text((36, y), left, fontsize=10, fontname="helv")
    page.insert_text((430, 250), "Effective January 1, 2025", fontsize=10, fontname="helv")
    for y, x, _left, right in pieces:
        page.insert_text((x, y), right, fontsize=10, fontname="helv")
    return doc.tobytes()


def test_a_line_printed_in_strips_reads_as_one_line() -> None:
    # Before: "…available due to market chang" and "es." a block apart, after
    # the next line, so neither sentence verified.
    doc = extract_pdf(_strips_pdf())
    assert doc.text.split("\n")[:2] == list(_STRIP_LINES)
    for line in _STRIP_LINES:
        (citation,) = verify_answer(f'"{line}" [S1].', [Source(marker="S1",
                                                                text=doc.text)]).citations
        assert citation.outcome == "verified", citation.message


# A drug list's two lists side by side, each at its own height, written a
# line of each at a time, the right list's first (MuPDF then makes a block of
# each two: "Arixtra" with "Anastrozole").
_LEFT_LIST = ("Breast Cancer Prevention", "Anastrozole", "Arimidex", "Aromasin", "Exemestane")
_RIGHT_LIST = ("Blood Clot/Platelet Therapy", "Arixtra", "Aspirin-Dipyridamole", "Brilinta",
               "Cilostazol")


def _lists_pdf(offset: float) -> bytes:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_text((36, 380), "This list applies to the medical plans named on the card.",
                     fontsize=10)
    for k, (left, right) in enumerate(zip(_LEFT_LIST, _RIGHT_LIST, strict=True)):
        page.insert_text((301, 440 + 18 * k), right, fontsize=10, fontname="helv")
        page.insert_text((36, 440 + offset + 18 * k), left, fontsize=10, fontname="helv")
    return doc.tobytes()


def _verifies(text: str, quote: str) -> bool:
    (citation,) = verify_answer(f'"{quote}" [S1].', [Source(marker="S1", text=text)]).citations
    return citation.outcome in ("verified", "verified-fuzzy")


def test_lists_side_by_side_taken_a_line_of_each_at_a_time_read_each_down() -> None:
    # Before: each block's two lines read as a row, the right list's first
    # ("Arixtra Anastrozole Aspirin-Dipyridamole Arimidex…").
    text = extract_pdf(_lists_pdf(4.0)).text
    assert _verifies(text, " ".join(_LEFT_LIST))
    assert _verifies(text, " ".join(_RIGHT_LIST))


def test_rows_of_two_cells_level_with_each_other_stay_rows() -> None:
    # The same lines level with each other are a table's rows, each row's
    # two cells together (in the order MuPDF took them), not cut apart.
    text = extract_pdf(_lists_pdf(0.0)).text
    assert not _verifies(text, " ".join(_LEFT_LIST))
    assert all(_verifies(text, f"{right} {left}")
               for left, right in zip(_LEFT_LIST, _RIGHT_LIST, strict=True))
