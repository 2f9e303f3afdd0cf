"""The word boxes a highlight brings for a page read by OCR: pdf.js has no
text layer on a scan, so these are where the viewer keeps its tags off. They
must sit on the words the scan was printed from, and only scanned pages get
them (on a text layer pdf.js knows better)."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Document
from reviewer.selectors.documents import document_locate, pdf_highlight
from reviewer.services.documents import document_upload
from tests.ocr_scans import ENGLISH, make_scan, tesseract_missing

pytestmark = [pytest.mark.django_db,
              pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")]


def test_a_scanned_page_brings_the_boxes_of_its_printed_words_and_a_text_page_none(
        django_capture_on_commit_callbacks: Any) -> None:
    # Page 1 a scan, page 2 the same lines as a text layer.
    scan = make_scan(ENGLISH, pages=2, text_pages=(2,))
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=scan.data, filename="mixed.pdf").document
    document.refresh_from_db()
    assert document.status == Document.Status.READY
    assert [page["page"] for page in document.ocr_pages] == [1]

    first = document.text.index(ENGLISH[1])
    second = document.text.index(ENGLISH[1], first + 1)
    located = (document_locate(document, first, first + len(ENGLISH[1]))
               + document_locate(document, second, second + len(ENGLISH[1])))
    entries = {entry["page"]: entry for entry in pdf_highlight(document, located)}
    assert sorted(entries) == [1, 2]
    assert "words" not in entries[2]

    height = 792.0  # make_scan's page (US letter); PDF user space has y up
    boxes = [(x0, height - y1, x1, height - y0) for x0, y0, x1, y1 in entries[1]["words"]]
    printed = scan.words(1)
    assert len(boxes) == len(ENGLISH)  # one run a line: OCR's spaces have boxes

    def inside(x: float, y: float) -> bool:
        return any(b[0] - 2 <= x <= b[2] + 2 and b[1] - 2 <= y <= b[3] + 2 for b in boxes)

    # Every printed word's centre is in a box, and no box is where nothing is printed.
    missed = [w[4] for w in printed if not inside((w[0] + w[2]) / 2, (w[1] + w[3]) / 2)]
    assert not missed, missed
    for box in boxes:
        assert any(w[0] < box[2] and box[0] < w[2] and w[1] < box[3] and box[1] < w[3]
                   for w in printed), box
