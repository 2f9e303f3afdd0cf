"""How Tesseract's hOCR becomes a page's text (reviewer.ingestion.ocr's
reading of it, then the layout shared with text layers). The hOCR is written
here, word boxes and paragraphs as Tesseract gave them on real scans (a
Virginia tax booklet's list of foundations, an IRS form's note beside an
icon), so no OCR runs: the tests are about our reading of its output."""

from __future__ import annotations

from reviewer.ingestion.extract import order_page, write_blocks
from reviewer.ingestion.ocr import _read_hocr
from reviewer.ingestion.tables import Rules

# hOCR in pixels at 300 dpi; the reader scales to points.
_SCALE = 72 / 300

Word = tuple[str, float]  # text, left edge (points)
LineSpec = tuple[float, float, list[Word]]  # top, bottom (points), words
_CHAR_WIDTH = 5.0  # points a character, in these made-up lines


def _px(value: float) -> int:
    return round(value / _SCALE)


def _hocr(paragraphs: list[list[LineSpec]]) -> bytes:
    """An hOCR page of ``paragraphs`` (Tesseract's ``ocr_par``), each of lines
    of words with a box per character."""
    parts = ['<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">']
    for paragraph in paragraphs:
        parts.append('<p class="ocr_par">')
        for top, bottom, words in paragraph:
            x0 = words[0][1]
            x1 = words[-1][1] + _CHAR_WIDTH * len(words[-1][0])
            parts.append(
                f'<span class="ocr_line" title="bbox {_px(x0)} {_px(top)} {_px(x1)} '
                f'{_px(bottom)}; x_size {_px(bottom - top)}">'
            )
            for text, left in words:
                right = left + _CHAR_WIDTH * len(text)
                parts.append(
                    f'<span class="ocrx_word" title="bbox {_px(left)} {_px(top)} '
                    f'{_px(right)} {_px(bottom)}; x_wconf 95">'
                )
                for k, char in enumerate(text):
                    c0 = left + k * _CHAR_WIDTH
                    parts.append(
                        f'<span class="ocrx_cinfo" title="x_bboxes {_px(c0)} '
                        f'{_px(top)} {_px(c0 + _CHAR_WIDTH)} {_px(bottom)}">'
                        f"{char}</span>"
                    )
                parts.append("</span>")
            parts.append("</span>")
        parts.append("</p>")
    parts.append("</div></body></html>")
    return "".join(parts).encode()


def _words(left: float, text: str) -> list[Word]:
    words: list[Word] = []
    for word in text.split():
        words.append((word, left))
        left += _CHAR_WIDTH * (len(word) + 1)
    return words


def _page_text(paragraphs: list[list[LineSpec]]) -> str:
    lines, _, _ = _read_hocr(_hocr(paragraphs), _SCALE, _SCALE, [], lambda: Rules([], []))
    text, _, _, _ = write_blocks(order_page(lines, lambda *area: Rules([], [])), 0, 792.0)
    return text


def test_a_list_tesseract_reads_as_two_columns_reads_by_rows() -> None:
    # No rules: Tesseract put the codes in one paragraph and the names in
    # another; a text layer reads "169002 Scott County ..." on one line. And
    # one Tesseract line whose code and name stand 1.07 line heights apart
    # (ink to ink: a tab stop's width on the text layer) stays one line.
    codes = [(182.3, 192.0, [("169001", 38.0)]), (203.1, 212.9, [("169002", 38.0)])]
    names = [
        (182.6, 192.0, _words(77.8, "Southwest Virginia Public Education")),
        (203.4, 212.9, _words(77.8, "Scott County Foundation for Excellence")),
    ]
    one_line = [(97.4, 106.8, [("810001", 302.0), *_words(342.0, "Virginia Beach City")])]
    text = _page_text([codes, names, one_line])
    assert "169001 Southwest Virginia Public Education" in text
    assert "169002 Scott County Foundation for Excellence" in text
    assert "810001 Virginia Beach City" in text


def test_a_note_tesseract_files_in_two_paragraphs_reads_in_its_order() -> None:
    # Beside an icon, the note's first line went into a paragraph of its
    # own, after the rest, and its next two lines into the paragraph above.
    above_and_rest = [
        (277.2, 285.6, _words(315.1, "30 and go to line 31.")),
        (303.6, 312.0, _words(349.9, "the lifetime learning credit for the same")),
        (313.9, 322.3, _words(349.4, "same year. If you complete lines 27")),
    ]
    last = [(323.8, 332.4, _words(314.9, "student, do not complete line 31."))]
    first = [(293.5, 301.9, _words(350.4, "You cannot take the American opportunity"))]
    text = _page_text([above_and_rest, last, first])
    order = [
        text.index(s)
        for s in ("30 and go", "You cannot", "the lifetime", "same year", "student, do not")
    ]
    assert order == sorted(order), text
