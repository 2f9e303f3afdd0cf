"""What Tesseract reads beside a scan's column that is not the column's text:
marks read off the blank gutter between two columns, and a line printed
sideways down the margin ("Author Manuscript" on a journal's author
manuscript). The hOCR is written here with the boxes Tesseract gave on
those pages rendered at 300 dpi (a clinical journal's commentary, an
author manuscript's table page), the ink beside it; the last test draws a
page and runs the real OCR."""

from __future__ import annotations

from html import escape
from pathlib import Path

import pymupdf
import pytest

from reviewer.ingestion import extract_pdf
from reviewer.ingestion.extract import order_page, write_blocks
from reviewer.ingestion.layout import Line
from reviewer.ingestion.ocr import _read_hocr
from reviewer.ingestion.tables import Rules
from tests.ocr_scans import scan_of, tesseract_missing

_SCALE = 72 / 300
_PAGE = (
    '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">{}</div></body></html>'
)

Glyph = tuple[str, int, int, int, int]  # character, its box (pixels)


def _word(glyphs: list[Glyph], confidence: int = 96) -> str:
    x0, y0 = min(g[1] for g in glyphs), min(g[2] for g in glyphs)
    x1, y1 = max(g[3] for g in glyphs), max(g[4] for g in glyphs)
    chars = "".join(
        f'<span class="ocrx_cinfo" title="x_bboxes {a} {b} {c} {d}">{escape(char)}</span>'
        for char, a, b, c, d in glyphs
    )
    return (
        f'<span class="ocrx_word" title="bbox {x0} {y0} {x1} {y1}; '
        f'x_wconf {confidence}">{chars}</span>'
    )


def _spread(text: str, x0: int, y0: int, x1: int, y1: int) -> list[Glyph]:
    """A word's glyphs sharing its box evenly, each with ink of its own."""
    step = (x1 - x0) / len(text)
    return [
        (char, round(x0 + k * step), y0, round(x0 + (k + 1) * step), y1)
        for k, char in enumerate(text)
    ]


def _text(paragraphs: list[list[Line]]) -> str:
    text, _, _, _ = write_blocks(order_page(paragraphs, lambda *area: Rules([], [])), 0, 792.0)
    return text


# -- Marks read off blank paper ------------------------------------------------------------

# A commentary's two columns, 77 pixels (1.5 line heights) apart: Tesseract
# ran its lines across the gutter and read "__" (confidence 27) and "_"
# (55) on the blank paper between them, which bridge the gutter; and it
# read "farction," as "_farction," with the "_" inside the "f"'s columns.
_LEFT = [
    ("lines", 152, 1857, 234, 1892),
    ("recommend", 250, 1857, 465, 1892),
    ("a", 482, 1871, 500, 1892),
    ("lower", 517, 1857, 615, 1892),
    ("threshold", 632, 1857, 803, 1892),
    ("of", 819, 1857, 856, 1892),
    ("130/80", 872, 1857, 992, 1898),
]
_RIGHT = [
    ("includes", 1070, 1853, 1219, 1888),
    ("age,", 1233, 1867, 1301, 1896),
    ("sex,", 1315, 1867, 1381, 1894),
    ("race,", 1395, 1867, 1479, 1894),
]
_GUTTER = [("_", 1022, 1849, 1037, 1906), ("_", 1036, 1849, 1056, 1906)]
_NEXT_LEFT = [
    ("corresponding", 151, 1951, 409, 1995),
    ("with", 419, 1951, 501, 1986),
    ("office-based", 512, 1951, 724, 1986),
    ("blood", 735, 1951, 837, 1986),
    ("pressure", 848, 1965, 992, 1995),
]
_NEXT_RIGHT = [("or", 1236, 1965, 1273, 1986), ("fatal", 1286, 1951, 1365, 1986)]
_FARCTION = [
    ("_", 1069, 1951, 1070, 1992),
    ("f", 1069, 1951, 1084, 1985),
    ("a", 1083, 1965, 1101, 1986),
    ("r", 1102, 1965, 1116, 1985),
    ("c", 1117, 1965, 1135, 1986),
    ("t", 1136, 1958, 1150, 1986),
    ("i", 1151, 1952, 1160, 1985),
    ("o", 1161, 1965, 1181, 1986),
    ("n", 1182, 1965, 1206, 1985),
    (",", 1209, 1980, 1222, 1992),
]


def _gutter_page(gutter: list[Glyph]) -> bytes:
    first = [_word(_spread(*word)) for word in _LEFT]
    first.append(_word(gutter, 27))
    first += [_word(_spread(*word)) for word in _RIGHT]
    second = [_word(_spread(*word)) for word in _NEXT_LEFT]
    second.append(_word(_FARCTION, 66))
    second += [_word(_spread(*word)) for word in _NEXT_RIGHT]
    return _PAGE.format(
        '<p class="ocr_par">'
        '<span class="ocr_line" title="bbox 152 1841 1479 1898; baseline 0.002 -7; '
        f'x_size 38">{" ".join(first)}</span>'
        '<span class="ocr_line" title="bbox 151 1951 1365 1995; baseline -0.002 -9; '
        f'x_size 38">{" ".join(second)}</span></p>'
    ).encode()


def _ink_of(glyphs: list[Glyph]):  # type: ignore[no-untyped-def]
    """``inked`` for a page whose only ink is ``glyphs``' boxes."""

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return any(a < x1 and x0 < c and b < y1 and y0 < d for _, a, b, c, d in glyphs)

    return inked


def _printed(*words: list[tuple[str, int, int, int, int]]) -> list[Glyph]:
    return [glyph for group in words for word in group for glyph in _spread(*word)]


def test_marks_read_off_a_blank_gutter_do_not_bridge_two_columns() -> None:
    # The ink is the printed words' only: the gutter is blank, and the "_"
    # of "_farction," has no column of its own outside the "f".
    ink = _printed(_LEFT, _RIGHT, _NEXT_LEFT, _NEXT_RIGHT) + _FARCTION[1:]
    lines, _, _ = _read_hocr(
        _gutter_page(_GUTTER), _SCALE, _SCALE, [], lambda: Rules([], []), None, _ink_of(ink)
    )
    read = [line.text for paragraph in lines for line in paragraph]
    assert "lines recommend a lower threshold of 130/80" in read, read
    assert "includes age, sex, race," in read, read
    assert "corresponding with office-based blood pressure" in read, read
    assert "farction, or fatal" in read, read
    assert not any("_" in line for line in read), read
    text = _text(lines)
    assert "130/80\ncorresponding with" in text, text


def test_printed_marks_in_a_gutter_and_over_a_word_are_kept() -> None:
    # The same lines where the marks are printed (a rule drawn across the
    # gutter, an underscore before the word): each has ink of its own, and
    # is read as Tesseract read it.
    ink = (
        _printed(_LEFT, _RIGHT, _NEXT_LEFT, _NEXT_RIGHT)
        + _GUTTER
        + [("_", 1060, 1990, 1070, 1992)]
        + _FARCTION[1:]
    )
    farction = [("_", 1060, 1951, 1070, 1992), *_FARCTION[1:]]
    page = _gutter_page(_GUTTER).replace(
        _word(_FARCTION, 66).encode(), _word(farction, 66).encode()
    )
    lines, _, _ = _read_hocr(page, _SCALE, _SCALE, [], lambda: Rules([], []), None, _ink_of(ink))
    read = " ".join(line.text for paragraph in lines for line in paragraph)
    assert "130/80 __ includes" in read, read
    assert "_farction," in read, read


# A coverage grid's shaded head, its words printed white on a dark blue
# ground: Tesseract read "well-" at a line's end with the hyphen's box
# tight round the white bar (pixels at 300 dpi), so the box holds no dark
# pixel although the hyphen is printed.
_WELL = [
    ("w", 1981, 608, 2010, 634),
    ("e", 2002, 598, 2019, 635),
    ("l", 2012, 607, 2032, 635),
    ("l", 2036, 598, 2049, 634),
    ("-", 2053, 619, 2064, 623),
]
_BEFORE_WELL = [
    ("care", 1760, 598, 1845, 645),
    ("of", 1860, 598, 1900, 635),
    ("a", 1915, 608, 1940, 635),
]
_HEAD = (1700, 585, 2200, 650)  # the shaded band


def _shaded_head(light: list[Glyph], band: tuple[int, int, int, int] = _HEAD) -> str:
    words = [_word(_spread(*word)) for word in _BEFORE_WELL] + [_word(_WELL, 89)]
    page = _PAGE.format(
        '<p class="ocr_par"><span class="ocr_line" title="bbox 1760 588 2064 645; '
        f'baseline 0 -10; x_size 57">{" ".join(words)}</span></p>'
    ).encode()
    band_x0, band_y0, band_x1, band_y1 = band

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        # Dark wherever the band is, but inside a white glyph's box.
        return any(
            band_x0 <= x < band_x1
            and band_y0 <= y < band_y1
            and not any(a <= x < c and b <= y < d for _, a, b, c, d in light)
            for x in range(x0, x1)
            for y in range(y0, y1)
        )

    lines, _, _ = _read_hocr(page, _SCALE, _SCALE, [], lambda: Rules([], []), None, inked)
    return " ".join(line.text for paragraph in lines for line in paragraph)


def test_a_light_mark_on_a_dark_ground_is_printed() -> None:
    # The hyphen's box is white (no dark pixel), the ground round it dark:
    # a mark printed in the paper's colour, not one read off blank paper.
    assert _shaded_head([_WELL[-1]]) == "care of a well-"


def test_a_mark_on_blank_paper_beside_a_shaded_word_is_dropped() -> None:
    # The same words with the band ending before the hyphen: its box and
    # the paper round it blank, the mark is read off blank paper.
    assert _shaded_head([], (_HEAD[0], _HEAD[1], 2051, _HEAD[3])) == "care of a well"


@pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")
def test_a_scans_hyphen_in_white_on_a_shaded_head_is_kept() -> None:
    # A benefit grid's head: white serif bold on dark blue, a word broken
    # at the line's end. Tesseract boxes the white hyphen tightly.
    document = pymupdf.open()
    page = document.new_page(width=792, height=612)
    page.draw_rect(pymupdf.Rect(30, 40, 760, 120), color=None, fill=(0.16, 0.41, 0.58))
    head = (
        "Peg is Having a Baby   Managing Joe's Type 2 Diabetes",
        "(a year of routine in-network care of a well-",
        "controlled condition)",
    )
    for k, line in enumerate(head):
        page.insert_text((40, 60 + 15.4 * k), line, fontname="tibo", fontsize=11, color=(1, 1, 1))
    text = extract_pdf(scan_of(document.tobytes()).data).text
    assert "care of a well-\ncontrolled" in text, text


# -- A line printed sideways in the margin ------------------------------------------------

# An author manuscript's table page: "Author Manuscript" printed down the
# left margin, which Tesseract read as a line at textangle 90, upside down
# ("iduosnuey| JouINy ...", confidences 4 to 51), whose characters' boxes
# are flat (no height, at the paper's foot) and run across the page; the
# line's box starts between the two lines of the table's caption.
_CAPTION = [  # Tesseract's paragraphs: the caption's two lines, then the table's head
    [
        (
            "ocr_header",
            "bbox 325 414 2159 452; baseline 0 -9; x_size 38",
            [
                ("Performance", 325, 414, 536, 443),
                ("of", 550, 414, 583, 443),
                ("the", 594, 414, 642, 443),
                ("regex-based", 655, 414, 853, 452),
                ("approach", 866, 414, 1017, 452),
                ("algorithm,", 1029, 414, 1198, 452),
                ("compared", 1213, 414, 1374, 452),
                ("to", 1386, 419, 1416, 443),
                ("the", 1429, 414, 1478, 443),
                ("gold", 1492, 414, 1563, 452),
                ("standard", 1576, 414, 1714, 443),
                ("of", 1728, 414, 1760, 443),
                ("experts'", 1774, 414, 1900, 443),
                ("manual", 1914, 414, 2040, 443),
                ("review", 2054, 414, 2159, 443),
            ],
        )
    ],
    [
        (
            "ocr_line",
            "bbox 326 472 1000 510; baseline 0 -9; x_size 38",
            [
                ("for", 326, 472, 373, 501),
                ("100", 387, 473, 444, 501),
                ("clinical", 458, 472, 578, 501),
                ("notes", 590, 477, 676, 501),
                ("randomly", 689, 472, 848, 510),
                ("selected.", 860, 472, 1000, 502),
            ],
        )
    ],
    [
        (
            "ocr_line",
            "bbox 347 578 1683 607; baseline 0 -7; x_size 29",
            [
                ("Seizure", 347, 578, 443, 600),
                ("control", 453, 578, 546, 600),
                ("metric", 555, 578, 641, 600),
                ("Number", 684, 578, 794, 600),
                ("of", 803, 578, 828, 600),
                ("items", 836, 578, 906, 600),
                ("(algorithm/experts)", 916, 578, 1172, 607),
                ("Precision", 1216, 578, 1337, 600),
                ("Recall", 1380, 578, 1462, 600),
                ("F-score", 1586, 579, 1683, 600),
            ],
        ),
        (
            "ocr_line",
            "bbox 348 641 500 669; baseline 0 -7; x_size 28",
            [("Seizure", 348, 641, 438, 662), ("type", 448, 644, 500, 669)],
        ),
    ],
]
# Each word: text, box, confidence, and where its characters' flat boxes
# start and end (the last two words' all at the paper's right edge).
_SIDEWAYS = [
    ("iduosnuey|", (84, 2022, 130, 2263), 6, 1037, 1278),
    ("JouINy", (93, 1858, 130, 2004), 38, 1296, 1442),
    ("idisosnuey|", (84, 1318, 130, 1559), 4, 1741, 1982),
    ("JouINY", (93, 1154, 130, 1299), 51, 2001, 2146),
    ("idiuosnuey", (84, 613, 130, 854), 39, 2446, 2550),
    ("JouINY", (93, 450, 130, 595), 39, 2550, 2550),
]


def _manuscript_page() -> bytes:
    words = []
    for text, box, confidence, start, end in _SIDEWAYS:
        step = (end - start) / len(text)
        chars = "".join(
            f'<span class="ocrx_cinfo" title="x_bboxes {round(start + k * step)} 3300 '
            f'{round(start + (k + 1) * step)} 3300">{char}</span>'
            for k, char in enumerate(text)
        )
        words.append(
            f'<span class="ocrx_word" title="bbox {box[0]} {box[1]} {box[2]} '
            f'{box[3]}; x_wconf {confidence}">{chars}</span>'
        )
    sideways = (
        '<p class="ocr_par"><span class="ocr_line" title="bbox 84 450 130 2263; '
        'textangle 90; x_size 46">' + "".join(words) + "</span></p>"
    )
    caption = "".join(
        '<p class="ocr_par">'
        + "".join(
            f'<span class="{kind}" title="{title}">'
            + "".join(_word(_spread(*word)) for word in words)
            + "</span>"
            for kind, title, words in paragraph
        )
        + "</p>"
        for paragraph in _CAPTION
    )
    return _PAGE.format(sideways + caption).encode()


def test_a_line_read_sideways_in_the_margin_stays_out_of_the_column() -> None:
    lines, words, _ = _read_hocr(_manuscript_page(), _SCALE, _SCALE, [], lambda: Rules([], []))
    assert words == len(_SIDEWAYS) + sum(len(w) for par in _CAPTION for _, _, w in par)
    text = _text(lines)
    assert "experts' manual review\nfor 100 clinical notes randomly selected." in text.replace(
        "\n\n", "\n"
    ), text
    # Where it is printed: down the margin, the first word read (upward)
    # lowest, each letter its share of its word's box.
    (sideways,) = [line for paragraph in lines for line in paragraph if "JouINy" in line.text]
    assert sideways.x0 >= 84 * _SCALE - 0.01 and sideways.x1 <= 130 * _SCALE + 0.01
    assert sideways.y0 >= 450 * _SCALE - 0.01 and sideways.y1 <= 2263 * _SCALE + 0.01
    boxes = sideways.boxes
    assert boxes[3] == pytest.approx(2263 * _SCALE) and boxes[1] < boxes[3]
    assert all(boxes[k + 1] < boxes[k + 3] for k in range(0, len(boxes), 4))


@pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")
@pytest.mark.parametrize("turn", [90, 270])
def test_a_scans_sideways_margin_line_is_highlighted_where_printed(turn: int) -> None:
    # A drawn page: three lines of a column, "Author Manuscript" set down
    # (or up) the left margin four times. Tesseract reads the margin's text
    # as lines turned a quarter, the column as it is.
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    column = (
        "Performance of the regex-based approach algorithm, compared to the gold standard",
        "of experts' manual review for 100 clinical notes randomly selected. The notes",
        "were drawn from the clinic's records of the last ten years, one note a patient.",
    )
    for k, line in enumerate(column):
        page.insert_text((78, 110 + 14 * k), line, fontname="tiro", fontsize=11)
    for k in range(4):
        page.insert_text(
            (30, 100 + 180 * k), "Author Manuscript", fontname="helv", fontsize=11, rotate=turn
        )
    read = extract_pdf(scan_of(document.tobytes()).data)
    text = read.text
    assert "\n".join(column).replace("'", "’") in text.replace("'", "’"), text
    # Every character outside the column's lines lies in the left margin.
    start = text.index("Performance")
    end = start + len("\n".join(column))
    outside = [k for k in range(len(text)) if not start <= k < end and not text[k].isspace()]
    assert outside, text
    for k in outside:
        box = read.geometry.box(k)
        assert box is not None and box[2] <= 60, (text[k], box)


# -- A comparison sign's bar -------------------------------------------------------------

# "(age ≥ 80)" in a commentary's serif face, which Tesseract read "(age > 80)":
# its box for the ">" (pixels at 300 dpi) holds the chevron and, under a
# blank row, the bar.
_SIGN_BOX = (2103, 1575, 2122, 1599)


def _sign_ink(bar: bool, sign: str = ">") -> set[tuple[int, int]]:
    """The pixels of a ">" (or "<") three pixels thick, and its bar under it."""
    x0, y0, x1, _ = _SIGN_BOX
    ink = set()
    tip = y0 + 8  # the chevron's point, 17 rows tall
    for y in range(y0, y0 + 17):
        reach = (x1 - 2 - x0) * (8 - abs(y - tip)) // 8
        x = x0 + reach if sign == ">" else x1 - 2 - reach
        ink.update((x + d, y) for d in range(3))
    if bar:
        ink.update((x, y) for x in range(x0 + 1, x1 - 1) for y in range(y0 + 20, y0 + 23))
    return ink


def _read_sign(sign: str, ink: set[tuple[int, int]], box: tuple[int, int, int, int]) -> str:
    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return any((x, y) in ink for x in range(x0, x1) for y in range(y0, y1))

    before, after = _spread("(age", 1990, 1568, 2085, 1606), _spread("80),", 2140, 1568, 2210, 1606)
    glyphs = [*before, (sign, *box), *after]
    for _, a, b, c, d in glyphs:
        if (a, b, c, d) != box:
            ink |= {(x, y) for x in range(a + 1, c - 1) for y in range(b + 2, d - 2)}
    words = [_word(glyphs[:4]), _word([glyphs[4]]), _word(glyphs[5:])]
    page = _PAGE.format(
        '<p class="ocr_par"><span class="ocr_line" title="bbox 1990 1568 2210 1606; '
        f'baseline 0 -7; x_size 38">{"".join(words)}</span></p>'
    ).encode()
    lines, _, _ = _read_hocr(page, _SCALE, _SCALE, [], lambda: Rules([], []), None, inked)
    return " ".join(line.text for paragraph in lines for line in paragraph)


def test_a_comparison_sign_read_without_its_bar_is_written_as_printed() -> None:
    assert _read_sign(">", _sign_ink(bar=True), _SIGN_BOX) == "(age ≥ 80),"
    assert _read_sign("<", _sign_ink(bar=True, sign="<"), _SIGN_BOX) == "(age ≤ 80),"
    # Tesseract's box may stop over the bar: it is looked for under it.
    short = (_SIGN_BOX[0], _SIGN_BOX[1], _SIGN_BOX[2], _SIGN_BOX[1] + 18)
    assert _read_sign(">", _sign_ink(bar=True), short) == "(age ≥ 80),"


def test_a_comparison_sign_without_a_bar_stays_as_read() -> None:
    assert _read_sign(">", _sign_ink(bar=False), _SIGN_BOX) == "(age > 80),"
    assert _read_sign("<", _sign_ink(bar=False, sign="<"), _SIGN_BOX) == "(age < 80),"


_SERIF = "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf"


@pytest.mark.skipif(bool(tesseract_missing()), reason=tesseract_missing() or "-")
@pytest.mark.skipif(not Path(_SERIF).exists(), reason="no Liberation Serif here")
def test_a_scans_signs_with_a_bar_read_as_printed() -> None:
    # Set in a serif face with "≥" and "≤", Tesseract reads ">" and "<".
    document = pymupdf.open()
    page = document.new_page(width=612, height=792)
    lines = (
        "We also believe that it is reasonable to relax these goals in the very",
        "elderly (age ≥ 80), especially those who are frail and at risk of falls, and",
        "in children (age ≤ 12) treated with two drugs (score ≥ 3 points) or (n > 4).",
    )
    for k, line in enumerate(lines):
        page.insert_text((72, 110 + 16 * k), line, fontname="F0", fontfile=_SERIF, fontsize=11)
    text = extract_pdf(scan_of(document.tobytes()).data).text
    assert "(age ≥ 80)" in text, text
    assert "(age ≤ 12)" in text, text
    assert "(score ≥ 3 points)" in text, text
    assert "(n > 4)" in text, text
