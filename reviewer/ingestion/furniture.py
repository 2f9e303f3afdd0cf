"""Running headers, footers and page numbers: text to leave out of matching.

``find_furniture(doc)`` returns ranges of :attr:`ExtractedDocument.text`. They
are not removed from the text (every offset stays valid); chunking avoids
starting or ending inside them and ``verification.normalize(text, skip=...)``
treats them as whitespace, so a quote that runs across a page break still
matches.

A line is furniture when it lies wholly in the top or bottom margin band of its
page (15% of its height; 10% for a bare page number) and either

* its text, with digit runs folded to ``#`` and case and spacing ignored,
  repeats at the same height on several pages ("Curr. Oncol. 2023, 30 3081"
  and "Curr. Oncol. 2023, 30 3082" are the same header), and its numbers
  either stay the same from page to page or count the pages (see
  ``_counts_pages``: the rows of a long table that reach into the band,
  "03/20/2012" on one page and "06/01/2012" two pages on, fold alike but
  are the document's text), or
* it is a bare page number: ``3``, ``- 3 -``, ``Page 3 of 12``, ``iv``
  (this needs no repetition, so a one-page document's number is found too;
  but where a band holds bare numbers on two pages or more, one that does
  not count the pages with another is a table row's, see ``_counting_pages``).
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from reviewer.ingestion.extract import ExtractedDocument, TextLines

__all__ = ["FurnitureConfig", "find_furniture"]


@dataclass(frozen=True, slots=True)
class FurnitureConfig:
    """How furniture is recognised.

    ``margin`` is the height of the top and bottom bands as a fraction of the
    displayed page height. A header must repeat on ``min_pages`` pages, or on
    every page of a shorter document (but always on at least two). A bare
    page number needs no repetition, so it is looked for in the narrower
    ``page_number_margin``: further in, lone numbers are a chart's axis.
    """

    # A letterhead block (council, agreement number, edition, appendix) can
    # reach 13% of the page; repetition at one height keeps body text out.
    margin: float = 0.15
    page_number_margin: float = 0.1
    min_pages: int = 3


_DEFAULT_CONFIG = FurnitureConfig()
# Lines with fewer letters and digits are formula or table fragments.
_MIN_ALNUM = 3
# Occurrences this close in height (points) count as the same place.
_SAME_HEIGHT = 3.0
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
# "3", "- 3 -", "Page 3 of 12", "p. 3", "3/12", and front-matter roman numerals
# in lower case ("ii", "xiv"; a lone "v" or "x" is more often a formula symbol).
_PAGE_NUMBER = re.compile(
    r"(?:[Pp]age|PAGE|[Pp]g\.?|p\.)?\s*[-–—]?\s*(?:\d{1,5}|i|[ivxlc]{2,7})\s*[-–—]?"
    r"(?:\s*(?:of|OF|/)\s*\d{1,5})?"
)


# A figure in a table's cell: a number, a decimal, a percentage.
_FIGURE = re.compile(r"[-–+]?\d[\d,.]*%?")


def _fold(line: str) -> str:
    return _SPACES.sub(" ", _DIGITS.sub("#", line)).strip().casefold()


def find_furniture(
    doc: ExtractedDocument, *, config: FurnitureConfig = _DEFAULT_CONFIG
) -> list[tuple[int, int]]:
    """Sorted, non-overlapping ``[start, end)`` ranges of furniture lines."""
    text = doc.text
    lines = doc.lines
    if lines is None or config.margin > lines.band:
        lines = _lines_of(doc)  # rebuilt from stored data, or wider bands than recorded
    found: list[tuple[int, int]] = []
    # (band, folded text) -> its occurrences as (top y, page, start, end).
    occurrences: dict[tuple[str, str], list[tuple[float, int, int, int]]] = defaultdict(list)
    # Per page, the margin lines that may repeat: (top, bottom, start).
    beside: dict[int, list[tuple[float, float, int]]] = defaultdict(list)
    extent: dict[int, tuple[float, float]] = {}
    line_ends: dict[int, int] = {}  # a margin line's start -> its end
    # (band, page, text as printed) -> the tops it stands at on that page.
    heights: dict[tuple[str, int, str], list[float]] = defaultdict(list)
    # (page, band) -> its bare numbers as (top, bottom, start, end).
    numbers: dict[tuple[int, str], list[tuple[float, float, int, int]]] = defaultdict(list)
    # Per page, every line in its bands (top, bottom, text).
    in_band: dict[int, list[tuple[float, float, str]]] = defaultdict(list)
    starts, ends, tops, bottoms = lines.starts, lines.ends, lines.tops, lines.bottoms
    for page in doc.pages:
        top = page.height * config.margin
        bottom = page.height * (1.0 - config.margin)
        number_top = page.height * config.page_number_margin
        number_bottom = page.height * (1.0 - config.page_number_margin)
        for k in lines.page(page.number):
            # A line's text starts and ends with a glyph: nothing to strip.
            if bottoms[k] <= top:
                band = "top"
            elif tops[k] >= bottom:
                band = "bottom"
            else:
                continue
            start, end = starts[k], ends[k]
            line = text[start:end]
            in_band[page.number].append((tops[k], bottoms[k], line))
            if _PAGE_NUMBER.fullmatch(line):
                if bottoms[k] <= number_top or tops[k] >= number_bottom:
                    numbers[(page.number, band)].append((tops[k], bottoms[k], start, end))
            elif sum(map(str.isalnum, line)) >= _MIN_ALNUM:  # map: no bytecode a character
                occurrences[(band, _fold(line))].append((tops[k], page.number, start, end))
                heights[(band, page.number, line)].append(tops[k])
                beside[page.number].append((tops[k], bottoms[k], start))
                extent[start] = (tops[k], bottoms[k])
                line_ends[start] = end
    found.extend(_counting_pages([
        (page_number, band, start, end)
        for (page_number, band), bare in numbers.items()
        for top, bottom, start, end in _page_numbers(doc, bare)
        if not _figure_in_a_row(top, bottom, in_band[page_number])
    ], text))
    needed = max(2, min(config.min_pages, doc.page_count))
    # A line printed word for word at two heights of one page's band, on two
    # pages or more, is a table's column ("Dated 02.08.2024" under each row's
    # notification number), not a running line, which a page prints once in
    # its place (a title page may print its running title twice: one page).
    doubled: dict[tuple[str, str], int] = defaultdict(int)
    for (band, _, line), tops in heights.items():
        if max(tops) - min(tops) > _SAME_HEIGHT:
            doubled[(band, _fold(line))] += 1
    in_column = {key for key, pages in doubled.items() if pages >= 2}
    repeated: list[tuple[float, int, int, int]] = []
    for key, occurring in occurrences.items():
        if key in in_column:
            continue
        if len({page for _, page, _, _ in occurring}) >= needed:
            repeated.extend(_repeated_in_place(occurring, needed, text))
    # A repeated line on one baseline with a line that does not repeat is a
    # table's cell ("Not Identified" beside each page's "Dex One"), not a
    # running line: a running line's neighbours repeat too. The line goes
    # with the lines its block runs on into right under it: the first line
    # of a cell of several ("polygone délimité par les points : A :" over a
    # site's corners, in the last row of a gazette's pages) stands beside
    # the row's other cells, centred lower, not level with it.
    running = {start for _, _, start, _ in repeated}
    for _, page_number, start, end in repeated:
        top, bottom = extent[start]
        own = _runs_on(start, end, extent, line_ends, text, running)
        bottom = max([bottom, *(extent[k][1] for k in own)])
        if not any(
            other not in running and other not in own
            and min(bottom, other_bottom) - max(top, other_top)
            > 0.5 * min(bottom - top, other_bottom - other_top)
            for other_top, other_bottom, other in beside[page_number]
        ):
            found.append((start, end))
    return sorted(found)


def _runs_on(start: int, end: int, tops: dict[int, tuple[float, float]],
             ends: dict[int, int], text: str, running: set[int]) -> set[int]:
    """The starts of the lines that continue the line ``start``..``end`` in
    its block, each the text's next line and set right under the one before,
    up to one that repeats too (a footer of several lines is running whole).
    ``tops`` and ``ends``: each margin line's extent and end, by its start
    (a page's last line is followed by the page break, never by a line)."""
    own: set[int] = set()
    bottom = tops[start][1]
    height = bottom - tops[start][0]
    while end < len(text) and text[end] == "\n" and end + 1 in tops and end + 1 not in running:
        next_top, next_bottom = tops[end + 1]
        if abs(next_top - bottom) > 0.25 * height:
            break
        own.add(end + 1)
        bottom, end = next_bottom, ends[end + 1]
    return own


def _page_numbers(
    doc: ExtractedDocument, bare: list[tuple[float, float, int, int]]
) -> list[tuple[float, float, int, int]]:
    """The bare numbers of one band of a page (as (top,
    bottom, start, end)) that may be its page number: all but those stacked
    one under another, overlapping in x (a column's numbers, a ruled list's
    "1 / 2" or "11 / 12 / 13" reaching into the band, each beside its item)."""
    if len(bare) < 2:
        return bare
    spans = []
    for _top, _bottom, start, end in bare:
        boxes = doc.geometry.glyph_boxes(start, end)
        spans.append((min(boxes[0::4]), max(boxes[2::4])) if boxes else None)

    def stacked(k: int, j: int) -> bool:
        # Overlapping in x, their middles more than half a line apart.
        one, other = spans[k], spans[j]
        (top, bottom, _, _), (other_top, other_bottom, _, _) = bare[k], bare[j]
        return (
            one is not None and other is not None
            and min(one[1], other[1]) > max(one[0], other[0])
            and abs(top + bottom - other_top - other_bottom)
            > min(bottom - top, other_bottom - other_top)
        )

    return [
        number for k, number in enumerate(bare)
        if not any(stacked(k, j) for j in range(len(bare)) if j != k)
    ]


def _counting_pages(
    bare: list[tuple[int, str, int, int]], text: str
) -> list[tuple[int, int]]:
    """The bare numbers (page, band, start, end) that count the pages: where
    a band holds one on two pages or more, those whose number minus their
    page is another's of the band (pages numbered from 1, or from 480 in a
    consecutively paginated journal, or a chapter's own run). A table whose
    numbered rows run past one page after another puts a row's number in
    the band of each ("55" at the foot of page 7, "70" of page 9): a row of
    the document's text, not its page number. A number another page of the
    band prints alike (a volume's), a numeral without digits ("iv"), or a
    band's number on one page alone, is kept as found."""
    # (band, "offset" or "value", number) -> the pages it stands on
    seen: dict[tuple[str, str, int], set[int]] = defaultdict(set)
    readings = []
    for page, band, start, end in bare:
        digits = _DIGITS.search(text[start:end])
        value = None if digits is None else int(digits.group())
        readings.append((page, band, start, end, value))
        if value is not None:
            seen[(band, "offset", value - page)].add(page)
            seen[(band, "value", value)].add(page)
    pages_of_band: dict[str, set[int]] = defaultdict(set)
    for page, band, _start, _end, _value in readings:
        pages_of_band[band].add(page)
    return [
        (start, end) for page, band, start, end, value in readings
        if value is None or len(pages_of_band[band]) < 2
        or seen[(band, "offset", value - page)] - {page}
        or seen[(band, "value", value)] - {page}  # a number each page prints alike
    ]


def _figure_in_a_row(top: float, bottom: float, lines: list[tuple[float, float, str]]) -> bool:
    """Whether a bare number at ``top``..``bottom`` stands on one baseline with
    two lines or more of which another is a figure: a cell of a table's row
    that reaches into the band ("Vomiting  2.3  5  9.2" at the top of the
    page a table runs on to), not a page number, which stands alone or beside
    a running line's words."""
    row = [
        line for other_top, other_bottom, line in lines
        if min(bottom, other_bottom) - max(top, other_top)
        > 0.5 * min(bottom - top, other_bottom - other_top)
    ]
    # The number itself is one of them.
    return len(row) >= 3 and sum(1 for line in row if _FIGURE.fullmatch(line)) >= 2


def _lines_of(doc: ExtractedDocument) -> TextLines:
    """Every line of the text, found in the text and geometry (extraction
    records those in the margin bands as it goes): each non-blank stretch
    between line breaks, stripped, with the vertical extent of its glyphs."""
    text = doc.text
    geometry = doc.geometry
    lines = TextLines()
    for page in doc.pages:
        position = page.text_start
        for line in text[page.text_start : page.text_end].split("\n"):
            start, end = position, position + len(line)
            position = end + 1
            stripped = line.strip()
            if not stripped:
                continue
            start += len(line) - len(line.lstrip())
            end = start + len(stripped)
            values = geometry.glyph_boxes(start, end)
            if not values:
                continue
            lines.starts.append(start)
            lines.ends.append(end)
            lines.tops.append(min(values[1::4]))
            lines.bottoms.append(max(values[3::4]))
        lines.page_lines.append(len(lines.starts))
    return lines


def _counts_pages(lines: list[tuple[float, int, int, int]], text: str) -> bool:
    """Whether the numbers of lines that fold alike behave as a running
    line's do: each number, from one occurrence to the next in page order,
    stays the same, goes up by as many pages as it moved (a page number,
    "3081" then "3082"), or starts again from 1 since the page before (the
    next exhibit's "Page 1").

    A table row's numbers do neither: dates, counts and amounts move by
    other steps, and two cells on one page differ on the same page. More
    than a quarter of the steps of any one number that way, and the lines
    are not furniture."""
    ordered = sorted(lines, key=lambda line: (line[1], line[2]))
    numbers = [[int(run) for run in _DIGITS.findall(text[start:end])]
               for _, _, start, end in ordered]
    if len(ordered) < 2 or not numbers[0]:
        return True
    for place in range(len(numbers[0])):
        odd = 0
        for before, after, (_, page_before, _, _), (_, page_after, _, _) in zip(
                numbers, numbers[1:], ordered, ordered[1:], strict=False):
            step, pages = after[place] - before[place], page_after - page_before
            # A counter started again since the page before is at most the
            # pages between: "Page 2" of an exhibit two pages on, not "53".
            if (step > 0 and step != pages) or (step < 0 and after[place] > pages):
                odd += 1
        if odd * 4 > len(ordered) - 1:
            return False
    return True


def _repeated_in_place(
    lines: list[tuple[float, int, int, int]], needed: int, text: str
) -> list[tuple[float, int, int, int]]:
    """The lines that recur at the same height on ``needed`` pages, their
    numbers the same or counting the pages.

    Running heads sit at a fixed height; fragments of formulas or tables that
    happen to share text ("X", "ij") land at varying heights.
    """
    lines = sorted(lines)
    found: list[tuple[float, int, int, int]] = []
    cluster = [lines[0]]
    for line in [*lines[1:], None]:
        if line is not None and line[0] - cluster[-1][0] <= _SAME_HEIGHT:
            cluster.append(line)
            continue
        if len({page for _, page, _, _ in cluster}) >= needed and _counts_pages(cluster, text):
            found.extend(cluster)
        if line is not None:
            cluster = [line]
    return found
