"""How Tesseract's hOCR becomes a page's text (reviewer.ingestion.ocr's
reading of it, then the layout shared with text layers). The hOCR is written
here, word boxes and paragraphs as Tesseract gave them on real scans (a
Virginia tax booklet's list of foundations, an IRS form's note beside an
icon), so no OCR runs: the tests are about our reading of its output."""

from __future__ import annotations

from collections.abc import Callable
from itertools import pairwise

from reviewer.ingestion.extract import order_page, write_blocks
from reviewer.ingestion.layout import Line
from reviewer.ingestion.ocr import (
    _apart_from_grids,
    _crossed,
    _glyph_end_from,
    _labels_put_back,
    _lowered_run,
    _picture_rules,
    _read_hocr,
    _unread_numbers,
)
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


def test_two_columns_of_prose_a_narrow_gutter_apart_stay_apart() -> None:
    # A labour report's columns, 1.1 line heights apart: Tesseract ran its
    # line across the gutter; only a label (a code) is joined that far.
    left = _words(165.4, "second since the recession that began in")
    right = _words(165.4 + _CHAR_WIDTH * 40 + 12.3, "and wage and salary workers")
    text = _page_text([[(343.0, 354.2, left + right)]])
    assert "began in and wage" not in text
    assert "second since the recession that began in" in text


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


def _char_line(line_title: str, chars: list[tuple[str, int, int, int, int]]) -> str:
    """An hOCR line of one word, each character with its box (pixels)."""
    spans = "".join(
        f'<span class="ocrx_cinfo" title="x_bboxes {x0} {y0} {x1} {y1}">{char}</span>'
        for char, x0, y0, x1, y1 in chars
    )
    return (
        f'<span class="ocr_line" title="{line_title}">'
        f'<span class="ocrx_word" title="bbox 0 0 1 1; x_wconf 90">{spans}</span></span>'
    )


def test_only_small_raised_glyphs_after_a_word_are_read_again_as_a_marker() -> None:
    # Character boxes as Tesseract gave them on two scans: a journal's
    # "regimens.9,20" misread as quote marks, and a court order's
    # "harmless.”" (a quote mark: raised too, but a quarter of the size).
    marker = _char_line(
        "bbox 936 2302 1133 2358; baseline -0.001 -15; x_size 36.3",
        [
            ("r", 936, 2325, 949, 2342),
            ("e", 950, 2325, 964, 2342),
            ("g", 966, 2325, 983, 2354),
            ("i", 983, 2317, 991, 2342),
            ("m", 993, 2325, 1023, 2342),
            ("e", 1025, 2325, 1039, 2342),
            ("n", 1041, 2325, 1060, 2342),
            ("s", 1053, 2325, 1068, 2342),
            (".", 1063, 2325, 1081, 2343),
            ("\u201d", 1084, 2306, 1097, 2326),
            ("\u201d", 1099, 2306, 1118, 2327),
            ("\u00b0", 1120, 2306, 1133, 2324),
        ],
    )
    quote_mark = _char_line(
        "bbox 1241 2204 1486 2257; baseline 0 -13; x_size 52",
        [
            ("h", 1241, 2204, 1269, 2244),
            ("a", 1272, 2217, 1296, 2245),
            ("r", 1296, 2217, 1315, 2244),
            ("m", 1316, 2217, 1360, 2244),
            ("l", 1362, 2204, 1375, 2244),
            ("e", 1378, 2217, 1400, 2245),
            ("s", 1405, 2217, 1423, 2245),
            ("s", 1428, 2217, 1446, 2245),
            (".", 1451, 2238, 1457, 2245),
            ("\u201d", 1464, 2205, 1486, 2219),
        ],
    )
    hocr = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
        f'<p class="ocr_par">{marker}</p><p class="ocr_par">{quote_mark}</p>'
        "</div></body></html>"
    ).encode()
    asked: list[tuple[int, int, int, int]] = []

    def reread(areas: list[tuple[int, int, int, int]]) -> list[str]:
        asked.extend(areas)
        return ["9,20"] * len(areas)  # what the enlarged picture reads

    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread)
    texts = [line.text for paragraph in lines for line in paragraph]
    assert texts == ["regimens.\u2079,\u00b2\u2070", "harmless.\u201d"]
    # The marker's glyphs, not the full stop: the columns its ink may lie in
    # start right of the stop's (and end a line size on: no glyph follows).
    assert asked == [(1084, 2306, 1133, 2327, 1081, 1133 + 36)]


def test_a_marker_read_as_a_paragraph_of_its_own_goes_back_into_its_line() -> None:
    # Boxes as Tesseract gave them on a Dutch guideline's scan: the line
    # "maar niet in lymfatische CML-BC.96,97 De resultaten" came back
    # without its marker, which was a paragraph of its own above the gap
    # (wider than a line height, so the line was cut there and its halves
    # read apart), and with four marks boxed a pixel wide on the full stop's
    # edge, the marker read again.
    words = [("maar", 181, 468, 290, 494), ("niet", 308, 460, 387, 494),
             ("in", 403, 460, 436, 494), ("lymfatische", 456, 458, 699, 505)]
    plain = "".join(
        f'<span class="ocrx_word" title="bbox {x0} {y0} {x1} {y1}; x_wconf 96">'
        + "".join(
            f'<span class="ocrx_cinfo" title="x_bboxes {x0 + k * (x1 - x0) // len(text)} {y0} '
            f'{x0 + (k + 1) * (x1 - x0) // len(text)} {y1}">{char}</span>'
            for k, char in enumerate(text))
        + "</span>"
        for text, x0, y0, x1, y1 in words)
    unsure = [("C", 717, 460, 742, 494), ("M", 748, 461, 781, 494), ("L", 790, 461, 808, 494),
              ("-", 812, 480, 823, 483), ("B", 830, 461, 853, 494), ("C", 858, 460, 883, 494),
              (".", 888, 488, 894, 495), ("\u201d", 893, 460, 894, 495),
              ("*", 893, 460, 894, 495), ("\u201d", 893, 460, 894, 495),
              ("\u201d", 893, 460, 894, 495)]
    rest = [("De", 980, 461, 1033, 494), ("resultaten", 1051, 458, 1266, 494)]
    tail = "".join(
        f'<span class="ocrx_word" title="bbox {x0} {y0} {x1} {y1}; x_wconf 96">'
        f'<span class="ocrx_cinfo" title="x_bboxes {x0} {y0} {x1} {y1}">{text}</span></span>'
        for text, x0, y0, x1, y1 in rest)
    marker = [("9", 899, 451, 911, 470), ("6", 914, 451, 926, 470), (",", 928, 467, 932, 473),
              ("9", 935, 451, 947, 470), ("7", 949, 452, 962, 470)]

    def chars(glyphs: list[tuple[str, int, int, int, int]]) -> str:
        # Spaced out as Tesseract writes them: the word's text is more than its glyphs.
        return "\n       ".join(
            f'<span class="ocrx_cinfo" title="x_bboxes {x0} {y0} {x1} {y1}">{c}</span>'
            for c, x0, y0, x1, y1 in glyphs)

    hocr = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
        '<p class="ocr_par"><span class="ocr_line" title="bbox 899 451 962 473; '
        'baseline 0 0; x_size 22">'
        '<span class="ocrx_word" title="bbox 899 451 962 473; x_wconf 96">'
        f"{chars(marker)}</span></span></p>"
        '<p class="ocr_par"><span class="ocr_line" title="bbox 181 458 1266 505; '
        f'baseline 0 -11; x_size 47">{plain}'
        f'<span class="ocrx_word" title="bbox 717 460 894 495; x_wconf 0">{chars(unsure)}'
        f"</span>{tail}</span></p></div></body></html>"
    ).encode()
    asked: list[tuple[int, ...]] = []

    def reread(areas: list[tuple[int, ...]]) -> list[str]:
        asked.extend(areas)
        return ["96,97"] * len(areas)

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return True  # every glyph's box holds ink: the slivers are dropped by their width

    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread, inked)
    texts = [[line.text for line in paragraph] for paragraph in lines]
    assert texts == [["maar niet in lymfatische CML-BC.\u2079\u2076,\u2079\u2077 De resultaten"]]
    assert [area[:4] for area in asked] == [(899, 451, 962, 473)]


def test_small_raised_glyphs_inside_a_word_are_read_again_into_it() -> None:
    # Character boxes as Tesseract gave them on a journal's abstract:
    # "KRAS" and a raised "G12C" before "-mutated", read "KRAS°°-mutated"
    # (the line's size, 39.9, is a third more than its print: the raised run
    # is 0.38 of it). The run between the letter and the hyphen is read
    # again, the letter's and the hyphen's ink kept off the picture.
    chars = [
        ("K", 1722, 2920, 1741, 2942), ("R", 1742, 2919, 1781, 2942),
        ("A", 1764, 2912, 1780, 2942), ("S", 1783, 2920, 1796, 2942),
        ("\u00b0", 1799, 2912, 1825, 2927), ("\u00b0", 1828, 2912, 1853, 2927),
        ("-", 1856, 2932, 1864, 2935), ("m", 1867, 2926, 1892, 2942),
        ("u", 1894, 2926, 1910, 2942), ("t", 1912, 2922, 1922, 2942),
        ("a", 1923, 2926, 1937, 2942), ("t", 1938, 2922, 1948, 2942),
        ("e", 1950, 2926, 1963, 2942), ("d", 1966, 2919, 1982, 2942),
    ]
    title = "bbox 1722 2912 1982 2949; baseline 0 -7; x_size 39.865265"
    # The same word with an apostrophe raised before its hyphen: too small
    # for a letter, and not asked about.
    apostrophe = [*chars[:4], ("'", 1799, 2912, 1806, 2923), *chars[6:]]
    hocr = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
        f'<p class="ocr_par">{_char_line(title, chars)}</p>'
        f'<p class="ocr_par">{_char_line(title, apostrophe)}</p>'
        "</div></body></html>"
    ).encode()
    for read, expected in (("G12C", "KRASG12C-mutated"), ("7", "KRAS\u2077-mutated"),
                           ("\u201d", "KRAS\u00b0\u00b0-mutated")):
        asked: list[tuple[int, ...]] = []

        def reread(areas: list[tuple[int, ...]], read: str = read,
                   asked: list[tuple[int, ...]] = asked) -> list[str]:
            asked.extend(areas)
            return [read] * len(areas)  # what the enlarged picture reads

        lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread)
        texts = [line.text for paragraph in lines for line in paragraph]
        # Letters and digits go into the word as read; digits alone as
        # superscript, as a marker's; anything else leaves Tesseract's reading.
        assert texts == [expected, "KRAS'-mutated"], read
        assert asked == [(1799, 2912, 1853, 2927, 1796, 1856)]


def _word_line(line_title: str, confidence: int,
               chars: list[tuple[str, int, int, int, int]]) -> str:
    """An hOCR line of one word read with ``confidence``, each character with its box."""
    spans = "".join(
        f'<span class="ocrx_cinfo" title="x_bboxes {x0} {y0} {x1} {y1}">{char}</span>'
        for char, x0, y0, x1, y1 in chars
    )
    return (
        f'<span class="ocr_line" title="{line_title}">'
        f'<span class="ocrx_word" title="bbox 0 0 1 1; x_wconf {confidence}">{spans}</span>'
        "</span>"
    )


def test_a_glyph_read_twice_in_an_unsure_word_is_read_once() -> None:
    # Tesseract's reading of "28 U. S. C. §§ 2071" on a Supreme Court print
    # scanned at 300 dpi: "§§$" (confidence 0), the "$" box over the second
    # "§" and past it onto blank paper. The ink is the scan's: each "§" a
    # column of ink 16 pixels wide, nothing right of the second.
    glyphs = [(967, 982), (990, 1005), (1016, 1060)]  # the two signs, then "2071"

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return y0 < 1268 and y1 > 1231 and any(a < x1 and x0 <= b for a, b in glyphs)

    def read(confidence: int, chars: list[tuple[str, int, int, int, int]]) -> list[str]:
        line = _word_line("bbox 973 1226 1013 1278; baseline 0 -9; x_size 38", confidence,
                          chars)
        hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
                f'<p class="ocr_par">{line}</p></div></body></html>').encode()
        lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), None, inked)
        return [line.text for paragraph in lines for line in paragraph]

    twice = [("§", 973, 1231, 983, 1269), ("§", 990, 1231, 1006, 1269),
             ("$", 1003, 1226, 1013, 1278)]
    assert read(0, twice) == ["§§"]
    # A word Tesseract is sure of is left as read; so is a character with
    # ink of its own ("2071" read unsure, each digit its own glyph).
    assert read(96, twice) == ["§§$"]
    digits = [("2", 1016, 1233, 1026, 1264), ("0", 1027, 1233, 1037, 1264),
              ("7", 1038, 1233, 1048, 1264), ("1", 1049, 1233, 1060, 1264)]
    assert read(20, digits) == ["2071"]


def test_a_letter_under_an_overreaching_box_is_kept() -> None:
    # A dotted leader's line read unsure ("Milk........"): Tesseract's box
    # for the "M" runs on over the "i", whose own columns hold no other ink.
    # A letter (or a digit) is never taken for a glyph read twice.
    glyphs = [(100, 128), (131, 136), (140, 146), (150, 166)]  # M, i, l, k

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return any(a < x1 and x0 <= b for a, b in glyphs)

    line = _word_line("bbox 100 200 170 240; baseline 0 -5; x_size 38", 20,
                      [("M", 100, 205, 137, 235), ("i", 131, 205, 137, 235),
                       ("l", 140, 205, 147, 235), ("k", 150, 205, 167, 235)])
    hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
            f'<p class="ocr_par">{line}</p></div></body></html>').encode()
    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), None, inked)
    assert [line.text for paragraph in lines for line in paragraph] == ["Milk"]


def _ink_columns(strokes: list[tuple[int, int, int, int]]):  # type: ignore[no-untyped-def]
    """``columns(x0, x1, y0, y1)`` over a picture whose ink is ``strokes``
    (x0, y0, x1, y1 boxes, pixels, ends excluded)."""

    def columns(x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int] | None]:
        found: list[tuple[int, int] | None] = []
        for x in range(x0, x1):
            rows = [y for y in range(y0, y1)
                    if any(a <= x < c and b <= y < d for a, b, c, d in strokes)]
            found.append((rows[0], rows[-1]) if rows else None)
        return found

    return columns


def test_a_lowered_run_is_found_by_its_ink_and_not_below_the_line() -> None:
    # "10." on a Supreme Court print, baseline 2198, line box bottom 2207,
    # x_size 45: the next line's "b" and "t" rise to 2210 under the full
    # stop. Only ink down to the line's box counts: a full stop sits on the
    # baseline, so there is no subscript. Then "T" with a lowered "half"
    # (a paper's T_half, baseline 1445, line bottom 1454, x_size 35).
    baseline = lambda at: lambda x: at  # noqa: E731 - a level baseline
    ten = [(760, 2164, 775, 2198), (780, 2164, 800, 2198),  # "1", "0" up from the baseline
           (803, 2191, 810, 2198),  # "."
           (802, 2210, 812, 2240)]  # the next line's ascender
    spans = [(760, 776), (780, 800), (803, 811)]
    assert _lowered_run(spans, baseline(2198), 45, 2207, _ink_columns(ten)) is None
    t_half = [(1765, 1418, 1790, 1422), (1775, 1418, 1780, 1445),  # "T": arm, stem
              (1792, 1433, 1796, 1452), (1798, 1440, 1830, 1452)]  # "half", lowered
    spans = [(1765, 1788), (1782, 1790), (1785, 1799), (1801, 1809), (1800, 1820),
             (1821, 1832)]  # "T),,1¢" as Tesseract boxed it
    found = _lowered_run(spans, baseline(1445), 35, 1454, _ink_columns(t_half))
    # Two characters stand left of the subscript ("T" and the ")" boxed over
    # the T's arm; _read_hocr gives the ")" to the subscript, not being a
    # letter), and the subscript's box is its own ink.
    assert found == (2, (1792, 1433, 1830, 1452))


def test_small_letters_under_a_baseline_put_too_high_are_no_subscript() -> None:
    # A gazette's heading beside small print: Tesseract's line has x_size 60
    # and a baseline at 1445, but "Direction" stands on 1460 in small type,
    # its "on" not reaching 0.42 of the line's size above that baseline. The
    # letters sit no lower than the "t" before them: no subscript.
    ink = [(1000, 1410, 1006, 1461),  # "t", crossing the line's height
           (1010, 1445, 1030, 1461), (1034, 1445, 1054, 1461)]  # "o", "n"
    spans = [(1000, 1007), (1010, 1031), (1034, 1055)]
    assert _lowered_run(spans, lambda x: 1445, 60, 1470, _ink_columns(ink)) is None


def _pixel_word(text: str, x0: int, y0: int, x1: int, y1: int) -> str:
    """An hOCR word in pixels, its characters sharing its box evenly."""
    step = (x1 - x0) / len(text)
    chars = "".join(
        f'<span class="ocrx_cinfo" title="x_bboxes {round(x0 + k * step)} {y0} '
        f'{round(x0 + (k + 1) * step)} {y1}">{char}</span>'
        for k, char in enumerate(text)
    )
    return f'<span class="ocrx_word" title="bbox {x0} {y0} {x1} {y1}; x_wconf 95">{chars}</span>'


def test_a_step_numeral_two_lines_tall_read_into_the_second_line_is_a_line_of_its_own() -> None:
    # A fact sheet's step beside its numeral, a "1" in a circle two lines
    # tall: Tesseract put the numeral into the step's second line, whose
    # box became as tall as the numeral. Boxes as it gave them at 300 dpi.
    first = [("DETERMINE", 539, 547, 780), ("the", 793, 544, 850),
             ("total", 863, 544, 950), ("daily", 963, 544, 1050), ("amount", 1063, 552, 1200)]
    second = [("of", 539, 611, 571), ("each", 583, 611, 660), ("opioid", 677, 611, 790),
              ("the", 806, 611, 860), ("patient", 876, 611, 1000), ("takes.", 1013, 611, 1102)]
    line_one = "".join(_pixel_word(t, x0, y0, x1, 600) for t, x0, y0, x1 in first)
    line_two = _pixel_word("1", 396, 555, 426, 654) + "".join(
        _pixel_word(t, x0, y0, x1, 643) for t, x0, y0, x1 in second)
    hocr = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
        '<p class="ocr_par">'
        '<span class="ocr_line" title="bbox 539 544 1200 600; baseline 0 -19; x_size 46">'
        f"{line_one}</span>"
        '<span class="ocr_line" title="bbox 396 555 1102 654; baseline 0 -11; x_size 38">'
        f"{line_two}</span>"
        "</p></div></body></html>"
    ).encode()
    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []))
    text, _, _, _ = write_blocks(order_page(lines, lambda *area: Rules([], [])), 0, 792.0)
    assert "DETERMINE the total daily amount\nof each opioid the patient takes." in text, text
    assert text.index("1") < text.index("DETERMINE"), text


def _spread(left: float, words: list[str], space: float) -> list[Word]:
    """``words`` from ``left``, ``space`` points apart (ink to ink)."""
    placed: list[Word] = []
    for word in words:
        placed.append((word, left))
        left += _CHAR_WIDTH * len(word) + space
    return placed


def test_a_justified_line_of_a_narrow_column_stays_one_line() -> None:
    # A reference list in narrow justified columns: the line's spaces are
    # stretched past a line height (the one after a full stop doubled), and
    # Tesseract files its last word as a paragraph apart. The line below
    # ends at the same right edge and has words under each wide space.
    first = _spread(70.0, ["Product", "information", "for", "Embeda."], 12.0)
    last = ("King", first[-1][1] + _CHAR_WIDTH * 7 + 24.0)
    right_edge = last[1] + _CHAR_WIDTH * 4
    below = "Pharmaceuticals, Inc. Bristol, TN 37620. July 2012. Pain"
    below_words = _spread(70.0, below.split(), 0.0)
    # Spaces stretched so that the line below ends at the same edge.
    stretch = (right_edge - 70.0 - _CHAR_WIDTH * len(below.replace(" ", ""))) / (
        len(below_words) - 1)
    below_words = _spread(70.0, below.split(), stretch)
    text = _page_text([
        [(100.0, 110.0, first), (112.0, 122.0, below_words)],
        [(100.0, 110.0, [last])],
    ])
    assert "Product information for Embeda. King\n" in text, text


def test_a_table_row_of_single_words_evenly_spread_is_still_cut_at_its_gutters() -> None:
    # The same spacing on rows of a table: its gutters run blank down the
    # rows, so no row is taken for a justified line.
    rows = [
        (100.0, 110.0, _spread(70.0, ["Codeine", "0.150", "oral", "daily"], 14.0)),
        (112.0, 122.0, _spread(70.0, ["Heroin1", "2.400", "nasa", "twice"], 14.0)),
        (124.0, 134.0, _spread(70.0, ["Tramado", "0.100", "oral", "daily"], 14.0)),
    ]
    text = _page_text([rows])
    assert "Codeine 0.150" not in text, text


def _text_line(text: str, x0: float, y0: float, y1: float) -> Line:
    boxes = [v for k in range(len(text))
             for v in (x0 + k * _CHAR_WIDTH, y0, x0 + (k + 1) * _CHAR_WIDTH, y1)]
    return Line(text, boxes, x0, y0, x0 + _CHAR_WIDTH * len(text), y1, True)


def test_a_number_tesseract_left_out_of_a_grid_cell_is_read_again() -> None:
    # A fee table's grid: a 16 pt "Nr." column, then the fees' text and a
    # last column of amounts. Tesseract read "1.2" in the second row's
    # number cell (its line ran on across the rule) and nothing in the
    # first row's, which holds ink; nor in the third row's amount cell,
    # whose column holds no number it read.
    rules = Rules(
        [(50.0, 300.0, y) for y in (100.0, 120.0, 140.0, 160.0)],
        [(100.0, 160.0, x) for x in (50.0, 66.0, 200.0, 300.0)],
    )
    width, height = _px(320.0), _px(180.0)
    picture = bytearray(width * height)

    def draw(x0: float, y0: float, x1: float, y1: float) -> None:
        for y in range(_px(y0), _px(y1)):
            picture[y * width + _px(x0) : y * width + _px(x1)] = b"\x01" * (_px(x1) - _px(x0))

    draw(56.0, 105.0, 60.0, 115.0)  # the unread "1"
    draw(56.0, 125.0, 63.0, 135.0)  # "1.2", read
    draw(230.0, 145.0, 250.0, 155.0)  # an unread mark in the amounts' column
    lines = [
        [_text_line("1.2 Erteilung", 54.0, 124.0, 136.0)],
        [_text_line("Auskünfte", 70.0, 104.0, 116.0)],
        [_text_line("Herausgabe", 70.0, 144.0, 156.0)],
        [_text_line("gebührenfrei", 210.0, 124.0, 136.0)],
    ]
    asked: list[tuple[int, int, int, int]] = []

    def reread(areas: list[tuple[int, int, int, int]]) -> list[str]:
        asked.extend(areas)
        return ["1"] * len(areas)

    added = _unread_numbers(lines, rules, bytes(picture), width, _SCALE, _SCALE, reread)
    assert asked == [(_px(56.0), _px(105.0), _px(60.0), _px(115.0))]
    assert [[line.text for line in paragraph] for paragraph in added] == [["1"]]
    assert added[0][0].x0 >= 55.0 and added[0][0].x1 <= 61.0
    # What is read again must be a number.
    assert _unread_numbers(lines, rules, bytes(picture), width, _SCALE, _SCALE,
                           lambda areas: ["l|"] * len(areas)) == []


def test_a_justified_first_line_between_two_short_lines_stays_one_line() -> None:
    # A reference's first line, justified, its last word filed with the
    # next lines: the lines above and below it (a reference's last line,
    # the next one's) end before its wide space, and the column's edge is
    # that of the full line two lines up.
    full = _spread(70.0, ["noncancer", "pain:", "tailoring", "therapy", "to", "meet"], 8.2)
    right_edge = full[-1][1] + _CHAR_WIDTH * 4
    short_above = _words(70.0, "needs. Mayo Clin Proc 2009.")
    line = _spread(70.0, ["10.", "Product", "information", "for", "Opana"], 9.5)
    last = ("Endo", right_edge - _CHAR_WIDTH * 4)
    short_below = _words(70.0, "Pharm. Chadds Ford, PA.")
    text = _page_text([
        [(88.0, 98.0, full), (100.0, 110.0, short_above), (112.0, 122.0, line)],
        [(112.0, 122.0, [last]), (124.0, 134.0, short_below)],
    ])
    assert "10. Product information for Opana Endo\n" in text, text


def test_a_hanging_number_read_as_its_full_stop_alone_is_read_again() -> None:
    # A reference list's "11." that Tesseract read as "." (its box the
    # stop's alone); the digits' ink stands just left of it.
    words = (_pixel_word(".", 284, 2326, 290, 2335) + _pixel_word("Product", 320, 2301, 440, 2335)
             + _pixel_word("information", 463, 2301, 640, 2335))
    hocr = (
        '<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
        '<p class="ocr_par"><span class="ocr_line" title="bbox 284 2301 640 2335; '
        f'baseline 0 -8; x_size 34">{words}</span></p></div></body></html>'
    ).encode()

    def columns(x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int] | None]:
        # Ink in the pixel columns 244 to 283 (the digits, a gap between them).
        return [(2302, 2326) if 244 <= x <= 262 or 266 <= x <= 283 else None
                for x in range(x0, x1)]

    asked: list[tuple[int, int, int, int]] = []

    def reread(read: str) -> Callable[[list[tuple[int, int, int, int]]], list[str]]:
        def again(areas: list[tuple[int, int, int, int]]) -> list[str]:
            asked.extend(areas)
            return [read] * len(areas)
        return again

    def read(found: str, page: bytes = hocr) -> list[Line]:
        lines, _, _ = _read_hocr(page, _SCALE, _SCALE, [], lambda: Rules([], []), reread(found),
                                 None, columns)
        return [line for paragraph in lines for line in paragraph]

    [line] = read("11.")
    assert line.text == "11. Product information"
    assert line.x0 == 244 * _SCALE  # the line starts at the number's ink
    assert asked == [(244, 2301, 290, 2335)]
    [line] = read("ll.")  # a number, or nothing
    assert line.text == ". Product information" and line.x0 == 284 * _SCALE
    # Ink that Tesseract read, in a line of its own, is no lost number.
    asked.clear()
    apart = hocr.replace(b'<p class="ocr_par">', (
        '<p class="ocr_par"><span class="ocr_line" title="bbox 250 2301 270 2335; x_size 34">'
        + _pixel_word("1", 250, 2302, 270, 2326) + "</span></p>" + '<p class="ocr_par">').encode())
    assert "11." not in " ".join(line.text for line in read("11.", apart))
    assert asked == []


def _ink(width: int, height: int, boxes: list[tuple[float, float, float, float]]) -> bytes:
    """A picture at 300 dpi (one byte a pixel, 1 where inked) whose ink is
    ``boxes`` (x0, y0, x1, y1, points)."""
    ink = bytearray(width * height)
    for x0, y0, x1, y1 in boxes:
        for y in range(_px(y0), _px(y1)):
            ink[y * width + _px(x0) : y * width + _px(x1)] = b"\x01" * (_px(x1) - _px(x0))
    return bytes(ink)


def test_a_heavy_border_on_a_scan_is_a_rule_and_a_bold_stem_is_not() -> None:
    # A ruled list of banned drugs (batch 6's CDSCO list): its grid drawn as
    # filled rectangles 2.2 pt thick, heavier than a hairline rule; a text
    # layer takes such a rectangle by its edges, so the scan must see a rule
    # there too, or its cells are read line by line across the row. A bold
    # headline's "I" (a stem 4 pt wide, 26 pt tall) stays no rule.
    width, height = _px(300), _px(200)
    borders = [(20, 20, 280, 22.2), (20, 80, 280, 82.2), (20, 20, 22.2, 82.2),
               (200, 20, 202.2, 82.2), (277.8, 20, 280, 82.2)]
    stem = (100, 120, 104, 146)
    found = _picture_rules(_ink(width, height, [*borders, stem]), width, width, height,
                           _SCALE, _SCALE, (0.0, 0.0, 300.0, 200.0))
    assert sorted(round(at) for _, _, at in found.horizontal) == [21, 81]
    assert sorted(round(at) for _, _, at in found.vertical) == [21, 201, 279]


def test_a_line_tesseract_reads_on_across_a_cells_rule_is_cut_at_the_rule() -> None:
    # A ruled list (batch 6's CDSCO list): the drug's cell, then the
    # notification's, a heavy rule between them at x = 342. Tesseract reads
    # each row's line on across both cells, once with the rule as the first
    # cell's last glyph ("systemically]"), once a word space past it; the
    # cells must read apart, each whole, as the text layer reads them.
    rules = Rules([(40.0, 460.0, 98.0), (40.0, 460.0, 130.0)],
                  [(98.0, 130.0, 40.0), (98.0, 130.0, 342.0), (98.0, 130.0, 460.0)])
    first = _words(45.0, "Fixed dose combination of Metoclopramide with systemically]")
    second = _words(45.0, "absorbed drugs except fixed dose combination of aspirin and")
    paragraphs = [[
        (100.0, 110.0, [*first, ("Substituted", 346.0)]),
        (112.0, 122.0, [*second, ("vide", 346.0), ("GSR", 368.0)]),
    ]]
    assert first[-1][1] + _CHAR_WIDTH * len(first[-1][0]) == 340.0  # the "]" by the rule
    assert 346.0 - (second[-1][1] + _CHAR_WIDTH * len(second[-1][0])) < 10.0  # a word space
    lines, _, _ = _read_hocr(_hocr(paragraphs), _SCALE, _SCALE, [], lambda: rules)
    assert [line.text for paragraph in lines for line in paragraph] == [
        "Fixed dose combination of Metoclopramide with systemically", "Substituted",
        "absorbed drugs except fixed dose combination of aspirin and", "vide GSR"]


def test_a_bracket_as_tall_as_its_line_is_no_rule() -> None:
    # A model act's placeholders (batch 20): "[6] months", each bracket's
    # stroke the line's full height, 12 points and more, found as a rule on
    # the scan. Taken for a cell's rule, the brackets went and the line
    # broke at each ("No later than" and "6] months ..."). A rule read as a
    # bracket runs on past the line, as a table's does.
    words = _words(45.0, "No later than [6] months after the date [of enactment]")
    left = {text: x for text, x in words}
    brackets = [left["[6]"], left["[6]"] + 2 * _CHAR_WIDTH, left["[of"],
                left["enactment]"] + 9 * _CHAR_WIDTH]
    paragraphs = [[(100.0, 112.0, words)]]

    def read(start: float, end: float) -> list[str]:
        rules = Rules([], [(start, end, at + _CHAR_WIDTH / 2) for at in brackets])
        lines, _, _ = _read_hocr(_hocr(paragraphs), _SCALE, _SCALE, [], lambda: rules)
        return [line.text for paragraph in lines for line in paragraph]

    assert read(100.0, 112.0) == ["No later than [6] months after the date [of enactment]"]
    # Rules running on past the line (a table's) are cut at, as before.
    assert read(96.0, 116.0) == ["No later than", "6", "months after the date", "of enactment"]


def test_a_justified_line_of_a_two_line_cell_is_one_line_set_to_the_cells_rule() -> None:
    # A ruled cell of two lines (batch 6's CDSCO list): the first justified
    # to the cell's rule, its spaces stretched past a line height, the second
    # a paragraph's short last line. No other line of the cell ends at its
    # edge; the rule right of it is that edge.
    rules = Rules([(24.0, 460.0, 98.0), (24.0, 460.0, 130.0)],
                  [(98.0, 130.0, 24.0), (98.0, 130.0, 342.0), (98.0, 130.0, 460.0)])
    first = _spread(29.0, "Fixed dose combination of Haloperidol with any anti-".split(), 12.0)
    assert first[-1][1] + _CHAR_WIDTH * len(first[-1][0]) == 338.0
    paragraphs = [[
        (100.0, 110.0, first),
        (112.0, 122.0, _words(29.0, "cholinergic agent including Propantheline")),
    ]]
    lines, _, _ = _read_hocr(_hocr(paragraphs), _SCALE, _SCALE, [], lambda: rules)
    assert lines[0][0].text == (
        "Fixed dose combination of Haloperidol with any anti-")


def test_a_marker_boxed_the_lines_full_height_is_found_by_its_ink() -> None:
    # Character boxes and ink as Tesseract and the page gave them on a
    # paper's "tools³,": read "tools*," with confidence 0, the "*" and the
    # comma boxed from the line's top (930) to below its baseline (968), so
    # by its box the marker is not raised. Its ink is (929 to 951, x_size
    # 41): read again, only its own columns on the picture.
    chars = [("t", 1093, 942, 1104, 968), ("o", 1106, 947, 1126, 968),
             ("o", 1118, 930, 1138, 974), ("l", 1128, 947, 1148, 968),
             ("s", 1151, 937, 1178, 968), ("*", 1175, 930, 1185, 974),
             (",", 1182, 930, 1208, 974)]
    letters = [(1093, 942, 1104, 969), (1106, 947, 1126, 969), (1128, 947, 1148, 969),
               (1130, 930, 1135, 969), (1151, 937, 1178, 969)]
    marker, comma = (1182, 929, 1195, 952), (1201, 963, 1208, 974)
    title = "bbox 296 930 1208 978; baseline 0 -10; x_size 41"

    def read(confidence: int, ink: list[tuple[int, int, int, int]]
             ) -> tuple[list[str], list[tuple[int, ...]]]:
        asked: list[tuple[int, ...]] = []

        def reread(areas: list[tuple[int, ...]]) -> list[str]:
            asked.extend(areas)
            return ["3"] * len(areas)  # what the enlarged picture reads

        hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
                f'<p class="ocr_par">{_word_line(title, confidence, chars)}</p>'
                "</div></body></html>").encode()
        lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread,
                                 None, _ink_columns(ink))
        return [line.text for paragraph in lines for line in paragraph], asked

    assert read(0, [*letters, marker, comma]) == (
        ["tools\u00b3,"], [(1182, 929, 1195, 952, 1182, 1195)])
    # A word read sure is left as read.
    assert read(95, [*letters, marker, comma]) == (["tools*,"], [])
    # Raised ink a quarter of the size tall is a quote mark, not a marker.
    assert read(0, [*letters, (1182, 929, 1190, 939), comma]) == (["tools*,"], [])
    # Ink reaching the baseline there is a letter, not a marker.
    assert read(0, [*letters, (1182, 929, 1195, 968), comma]) == (["tools*,"], [])


# A paper's references in two columns (a guideline's, batch 14), each
# entry's number hung left of its lines, counting up down its column; the
# entries run over two or three lines, so the two columns' numbers fall on
# different lines. Tesseract read the page in bands straight across both
# columns: a paragraph of "61", a line, "88", a line, then both columns'
# next lines, until the next number in the left column.
_LEFT_REFERENCES = (
    (61, ("Lundin KE, Scott H. Gliadin specific", "T cells of the small intestinal mucosa.",
          "J Exp Med 1993;178:187-96.")),
    (62, ("Ellis HJ, Pollock EL. Investigation of", "T cell epitopes. Gut 2003;52:212-7.")),
    (63, ("Camarca A, Anderson RP. Intestinal T", "cell responses to gluten peptides are",
          "heterogeneous. J Immunol 2009;182:41.")),
    (64, ("Dieterich W, Ehnis T. Identification", "of the autoantigen. Nat Med 1997;3:79.")),
)
_RIGHT_REFERENCES = (
    (88, ("Nachman F, Vazquez H. Reflux symptoms", "in celiac disease. Hepatol 2011;9:214.")),
    (89, ("Karell K, Louka AS. HLA types in celiac", "disease patients not carrying the",
          "heterodimer. Hum Immunol 2003;64:469.")),
    (90, ("Abadie V, Sollid LM. Integration of", "genetic insights. Annu Rev Immunol.")),
    (91, ("Hadithi M, von Blomberg BM. Accuracy", "of serologic tests and typing for",
          "diagnosing celiac disease. 2007;147.")),
)


def _column_rows(entries: tuple[tuple[int, tuple[str, ...]], ...], number_x: float,
                 text_x: float) -> list[list[Word]]:
    """The words of each printed line of a column, its number before an
    entry's first line."""
    rows: list[list[Word]] = []
    for number, lines in entries:
        for k, line in enumerate(lines):
            rows.append(([(str(number), number_x)] if k == 0 else []) + _words(text_x, line))
    return rows


def test_numbered_references_read_in_bands_across_two_columns_read_each_column_down() -> None:
    left = _column_rows(_LEFT_REFERENCES, 40.0, 62.0)
    right = _column_rows(_RIGHT_REFERENCES, 300.0, 322.0)
    starts = [k for k, row in enumerate(left) if row[0][1] == 40.0] + [len(left)]
    paragraphs = [[(60.0 + 9 * k, 67.0 + 9 * k, left[k] + right[k]) for k in range(a, b)]
                  for a, b in pairwise(starts)]
    # Before: each band read as a block, line by line across the columns
    # ("61 / Lundin KE ... / 88 / Nachman F ... / T cells of the ...").
    text = " ".join(_page_text(paragraphs).split())
    for entries in (_LEFT_REFERENCES, _RIGHT_REFERENCES):
        column = " ".join(f"{number} {' '.join(lines)}" for number, lines in entries)
        assert column in text, text


def _boxed_words_line(line_title: str, words: list[tuple[str, int, int, int, int]]) -> str:
    """An hOCR line of words with their boxes (pixels) and no character boxes."""
    spans = "".join(
        f'<span class="ocrx_word" title="bbox {x0} {y0} {x1} {y1}; x_wconf 90">{text}</span>'
        for text, x0, y0, x1, y1 in words
    )
    return f'<span class="ocr_line" title="{line_title}">{spans}</span>'


def test_a_printed_line_tesseract_reads_as_two_lines_is_read_once() -> None:
    # Tesseract's reading of "percent respectively in 2022/23 (Table 1)." on
    # a Nepal Rastra Bank report (batch 14), a ruled table's rows beside it:
    # one of its lines read "ively in 2022/23 (Table 1", the next "percent
    # respectively in (Table 1).", so the page read the words twice and
    # "2022/23" apart from its line.
    second = [("ively", 575, 2738, 644, 2773), ("in", 687, 2740, 692, 2745),
              ("2022/23", 735, 2740, 895, 2773), ("(Table", 928, 2738, 1018, 2773),
              ("1", 1057, 2740, 1075, 2773)]
    first = [("percent", 271, 2745, 416, 2784), ("respectively", 430, 2745, 628, 2784),
             ("in", 646, 2749, 720, 2784), ("(Table", 912, 2739, 1038, 2783),
             ("1).", 1080, 2739, 1104, 2783)]
    hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
            '<p class="ocr_par">'
            f'{_boxed_words_line("bbox 575 2708 1075 2773; x_size 35", second)}'
            f'{_boxed_words_line("bbox 271 2739 1104 2792; x_size 39", first)}'
            "</p></div></body></html>").encode()
    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []))
    text = "\n".join(line.text for paragraph in lines for line in paragraph)
    assert text == "percent respectively in 2022/23 (Table 1).", text


def test_prose_read_in_one_paragraph_with_a_ruled_table_beside_it_reads_apart() -> None:
    # The same report: a column of prose beside a small table ruled all
    # round, read by Tesseract in bands across both. The table reader took
    # the prose's lines for the table's first column ("growth at producers'
    # price ... / Sectors / 2020/21 / 2021/22").
    prose = ("National Statistics Office has estimated economic",
             "growth at producers price to be 1.86 percent for",
             "2022/23. Agriculture, industry and service sectors",
             "are estimated to grow 2.73 percent and 0.59 percent")
    rows = (("Sectors", "2020/21", "2021/22"), ("Agriculture", "25.80", "24.67"),
            ("Industry", "13.82", "14.09"), ("Service", "60.38", "61.24"))
    walls = (322.0, 390.0, 440.0, 492.0)
    paragraph = [(100.0 + 14 * k, 110.0 + 14 * k,
                  _words(65.0, line) + [word for x, cell in zip(walls, row, strict=False)
                                         for word in _words(x + 4, cell)])
                 for k, (line, row) in enumerate(zip(prose, rows, strict=True))]
    levels = [98.0 + 14 * k for k in range(len(rows) + 1)]
    rules = Rules([(walls[0], walls[-1], at) for at in levels],
                  [(levels[0], levels[-1], at) for at in walls])
    lines, _, _ = _read_hocr(_hocr([paragraph]), _SCALE, _SCALE, [], lambda: rules)
    blocks = order_page(_apart_from_grids(lines, rules), lambda *area: rules)
    text, _, _, _ = write_blocks(blocks, 0, 792.0)
    assert " ".join(prose) in " ".join(text.split()), text
    for row in rows:
        assert "\n".join(row) in text, text


def test_a_marker_after_a_quote_mark_read_whole_as_one_glyph_more_is_the_marker() -> None:
    # Character boxes as Tesseract gave them on a law review's scan:
    # "marriage,”¹⁴⁴" read "marriage,”'“*". Read again enlarged, the whole
    # run reads "9144" (the quote mark's two strokes as one "9"); past the
    # two strokes it reads "144", the marker.
    line = _char_line(
        "bbox 600 686 1948 734; baseline -0.001 -9; x_size 48; x_descenders 9; "
        "x_ascenders 16",
        [("m", 600, 702, 635, 724), ("a", 619, 686, 643, 734), ("r", 636, 702, 655, 725),
         ("r", 656, 702, 672, 724), ("i", 674, 692, 702, 724), ("a", 703, 702, 722, 725),
         ("g", 724, 702, 745, 734), ("e", 746, 702, 764, 725), (",", 769, 720, 776, 731),
         ("\u201d", 784, 692, 800, 703), ("'", 808, 687, 815, 705),
         ("\u201c", 818, 686, 831, 705), ("*", 832, 686, 844, 705)],
    )
    hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
            f'<p class="ocr_par">{line}</p></div></body></html>').encode()
    # The quote mark's two strokes, then the marker's three digits.
    strokes = [(784, 791), (794, 800), (808, 815), (819, 830), (833, 844)]

    def columns(x0: int, x1: int, y0: int, y1: int) -> list[tuple[int, int] | None]:
        return [(max(y0, 688), min(y1, 704)) if any(a <= x <= b for a, b in strokes) else None
                for x in range(x0, x1)]

    def reread(areas: list[tuple[int, ...]]) -> list[str]:
        # The run whole, then the run past the quote mark's strokes.
        return ["9144" if area[0] == 784 else "144" for area in areas]

    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread,
                             None, columns)
    assert [line.text for paragraph in lines for line in paragraph] == [
        "marriage,\u201d\u00b9\u2074\u2074"]


def test_a_closing_quote_mark_where_a_quotation_is_open_is_no_marker() -> None:
    # Boxes as Tesseract gave them on a Supreme Court brief's scan:
    # "“[d]irections for⏎[i]mprovement” to make" read "lilmprovement”"
    # (confidence 13) on the second line, the quote mark raised and tall
    # enough for a marker. Read again enlarged it reads "93": it had become
    # "lilmprovement⁹³". A two-digit marker Tesseract read as a quote mark
    # reads so too, where no quotation is open ("ORS¹¹" read "ORS”").
    opening = _word_line("bbox 1499 1824 1562 1868; baseline 0 -6; x_size 48; "
                         "x_descenders 10; x_ascenders 12", 66,
                         [("\u201c", 1499, 1824, 1506, 1840), ("d", 1537, 1824, 1562, 1862)])
    title = ("bbox 660 1883 1891 1931; baseline 0 -10; x_size 48; x_descenders 10; "
             "x_ascenders 12")
    chars = [("l", 660, 1884, 672, 1927), ("i", 673, 1883, 701, 1927),
             ("l", 702, 1883, 722, 1931), ("m", 705, 1895, 745, 1920),
             ("e", 850, 1895, 871, 1921), ("n", 931, 1883, 955, 1931),
             ("t", 941, 1886, 986, 1921), ("\u201d", 988, 1883, 1008, 1901)]
    letters = [(660, 1884, 987, 1921)]

    def read(strokes: list[tuple[int, int, int, int]], quoted: bool = True) -> str:
        lines = (opening if quoted else "") + _word_line(title, 13, chars)
        hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
                f'<p class="ocr_par">{lines}</p></div></body></html>').encode()

        def reread(areas: list[tuple[int, ...]]) -> list[str]:
            # The run whole reads "93"; past the strokes, what is there.
            return ["93" if area[0] == 988 else "1" for area in areas]

        read, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread,
                                None, _ink_columns([*letters, *strokes]))
        return [line.text for paragraph in read for line in paragraph][-1]

    quote_mark = [(988, 1883, 996, 1900), (999, 1883, 1007, 1900)]
    assert read(quote_mark) == "lilment\u201d"
    # Ink after the two strokes is a marker, read past them.
    assert read([(988, 1883, 992, 1895), (994, 1883, 998, 1895), (1001, 1884, 1008, 1900)]
                ) == "lilment\u201d\u00b9"
    # No quotation open: the enlarged reading decides, as before.
    assert read(quote_mark, quoted=False) == "lilment\u2079\u00b3"


def test_a_marker_after_a_quote_mark_whose_strokes_ran_together_is_read_past_its_glyph() -> None:
    # Boxes as Tesseract gave them on a PCLOB report's scan: "to the
    # agency.”²" read "agency.””", the marker read as a second quote mark.
    # Thresholded, the bold quote mark's two strokes are one group of ink,
    # so past "two strokes" there was nothing: the marker was lost. Past
    # the quote mark's glyph as Tesseract boxed it, the "2" is there.
    opening = _word_line("bbox 1100 1380 1200 1420; baseline 0 -8; x_size 44; "
                         "x_descenders 8; x_ascenders 14", 90,
                         [("\u201c", 1138, 1383, 1148, 1401), ("s", 1158, 1390, 1175, 1412)])
    title = "bbox 301 1510 597 1554; baseline 0 -8; x_size 44; x_descenders 8; x_ascenders 14"
    chars = [("a", 425, 1524, 441, 1546), ("y", 515, 1524, 552, 1554),
             (".", 556, 1541, 561, 1546), ("\u201d", 566, 1515, 581, 1526),
             ("\u201d", 586, 1510, 597, 1529)]
    letters = [(425, 1524, 552, 1546), (556, 1541, 561, 1546)]
    hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
            f'<p class="ocr_par">{opening}{_word_line(title, 62, chars)}</p>'
            "</div></body></html>").encode()

    def read(marker: list[tuple[int, int, int, int]]) -> str:
        def reread(areas: list[tuple[int, ...]]) -> list[str]:
            # The run whole reads "wy"; past the quote mark, the "2".
            return ["wy" if area[0] == 566 else "2" for area in areas]

        ink = [*letters, (566, 1515, 581, 1526), *marker]
        lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), reread,
                                 None, _ink_columns(ink))
        return [line.text for paragraph in lines for line in paragraph][-1]

    assert read([(586, 1510, 597, 1529)]) == "ay.\u201d\u00b2"
    # Nothing past the quote mark's glyph: the quote mark as read, no marker.
    assert read([]) == "ay.\u201d\u201d"
    # An area whose ink was found past the quote mark's glyph does not start
    # with its strokes (the Copyright Office's "benefit.”⁵⁶", its area from
    # the "5"): no group of its ink is taken for the quote mark's.
    line = Line("t.\u201d**", [v for x0, x1 in ((412, 438), (442, 447), (453, 470),
                                                (475, 485), (486, 496))
                                for v in (x0 * _SCALE, 505.0, x1 * _SCALE, 539.0)],
                0, 505, 496, 539, True)
    assert _glyph_end_from(line, 2, 453, _SCALE) == 470
    assert _glyph_end_from(line, 2, 478, _SCALE) is None


def test_a_marker_the_ink_reads_as_none_is_read_again_in_grey() -> None:
    # A report's raised Calibri "4" after "statute.", read "*" by Tesseract;
    # enlarged from its ink alone it reads "A", from the page as rendered
    # "4". A run Tesseract read as a closing quote mark is not read again so.
    title = "bbox 301 2141 2189 2183; baseline 0 -8; x_size 39; x_descenders 8; x_ascenders 9"

    def read(last: str) -> tuple[list[str], list[tuple[int, ...]]]:
        chars = [("s", 1323, 2153, 1337, 2175), ("t", 1340, 2148, 1353, 2175),
                 ("e", 1433, 2153, 1451, 2175), (".", 1457, 2170, 1462, 2175),
                 (last, 1467, 2141, 1480, 2159)]
        hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
                f'<p class="ocr_par">{_word_line(title, 90, chars)}</p>'
                "</div></body></html>").encode()
        asked: list[tuple[int, ...]] = []

        def grey(areas: list[tuple[int, ...]]) -> list[str]:
            asked.extend(areas)
            return ["4"] * len(areas)

        lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []),
                                 lambda areas: ["A"] * len(areas), None, None, grey)
        return [line.text for paragraph in lines for line in paragraph], asked

    assert read("*") == (["ste.\u2074"], [(1467, 2141, 1480, 2159, 1462, 1519)])
    assert read("\u2019") == (["ste.\u2019"], [])


def _label_line(text: str, x0: float, y0: float, width: float) -> Line:
    step = width / len(text)
    boxes = [v for k in range(len(text)) for v in (x0 + k * step, y0, x0 + (k + 1) * step, y0 + 11)]
    return Line(text, boxes, x0, y0, x0 + width, y0 + 11, True)


def test_a_label_goes_to_its_line_only_where_tesseract_read_it_elsewhere() -> None:
    # A regulation's labels read as a paragraph of their own go to the start
    # of their items' first lines; a worksheet's "1." read right before its
    # line stays as it is, its paragraph untouched (gluing it there moved a
    # CAUTION note on the IRS worksheet's scan).
    labels = [_label_line("(a)", 144, 100, 12), _label_line("(b)", 144, 130, 12)]
    items = [[_label_line("Retain each collection of data", 180, 100, 200)],
             [_label_line("Dispose of the data", 180, 130, 150)]]
    placed = _labels_put_back([labels, *items])
    assert [[line.text for line in paragraph] for paragraph in placed] == [
        ["(a) Retain each collection of data"], ["(b) Dispose of the data"]]
    assert placed[0][0].x0 == 144
    worksheet = [[_label_line("1.", 53, 90, 5), _label_line("Enter the total", 71, 90, 150)]]
    assert _labels_put_back(worksheet) == worksheet


# Ink of a magnification sign on a paper's scan at 300 dpi ("×100" in a
# figure legend), which Tesseract read as "<", and of a "<" printed so.
_CROSS_INK = """
.##.........##.
.###.......###.
..###.....###..
...###...###...
....###.###....
.....#####.....
......###......
.....#####.....
....###.###....
...###...###...
..###.....###..
.###.......###.
.##.........##.
"""
_LESS_INK = """
...........###.
.........####..
.......####....
.....####......
...####........
.####..........
###............
.####..........
...####........
.....####......
.......####....
.........####..
...........###.
"""


def _ink_of(art: str, x0: int, y0: int) -> Callable[[int, int, int, int], bool]:
    rows = art.strip().splitlines()
    dots = {(x0 + x, y0 + y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#"}
    return lambda a, b, c, d: any((x, y) in dots for x in range(a, c) for y in range(b, d))


def test_a_multiplication_sign_read_as_a_comparison_sign_is_told_by_its_ink() -> None:
    # Tesseract's box for the sign, a pixel or two wider than its ink.
    spans, heights = [(674, 691)], [(2929, 2946)]
    assert _crossed(spans, heights, 0, _ink_of(_CROSS_INK, 676, 2930))
    assert not _crossed(spans, heights, 0, _ink_of(_LESS_INK, 676, 2930))
    # A ">" is the same chevron turned: not a cross either.
    greater = "\n".join(row[::-1] for row in _LESS_INK.strip().splitlines())
    assert not _crossed(spans, heights, 0, _ink_of(greater, 676, 2930))
    # Nor a "<" Tesseract boxed from its middle on, its point left out (a
    # guideline's "rate < 20" on a scan): the ink is followed out of the box.
    assert not _crossed([(684, 691)], heights, 0, _ink_of(_LESS_INK, 676, 2930))


def test_a_multiplication_sign_read_as_less_than_is_written_as_printed() -> None:
    # A figure legend's "(×400)," as Tesseract boxed it, read "(<400),".
    chars = [("(", 660, 2923, 670, 2952), ("&lt;", 674, 2929, 691, 2946),  # "<" in hOCR
             ("4", 698, 2923, 714, 2951), ("0", 716, 2923, 734, 2952),
             ("0", 737, 2923, 755, 2952), (")", 758, 2923, 766, 2952),
             (",", 768, 2945, 772, 2955)]
    line = _char_line("bbox 660 2923 772 2955; baseline 0 -3; x_size 36", chars)
    hocr = ('<html xmlns="http://www.w3.org/1999/xhtml"><body><div class="ocr_page">'
            f'<p class="ocr_par">{line}</p></div></body></html>').encode()
    cross = _ink_of(_CROSS_INK, 676, 2930)
    glyphs = [(x0, y0, x1, y1) for char, x0, y0, x1, y1 in chars if char != "&lt;"]

    def inked(x0: int, y0: int, x1: int, y1: int) -> bool:
        return cross(x0, y0, x1, y1) or any(
            x0 < gx1 and gx0 < x1 and y0 < gy1 and gy0 < y1 for gx0, gy0, gx1, gy1 in glyphs)

    lines, _, _ = _read_hocr(hocr, _SCALE, _SCALE, [], lambda: Rules([], []), None, inked)
    assert [line.text for paragraph in lines for line in paragraph] == ["(\u00d7400),"]
