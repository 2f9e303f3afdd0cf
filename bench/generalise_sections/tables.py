"""Table rows and cells: quotes of a table as a reader takes it, row by row.

An independent table reader, pdfplumber (pdfminer.six based; a dev
dependency: the section is skipped with a sentence when it is missing), finds
each page's tables (``find_tables()``, its default ruled-lines strategy) and
their cells. Two kinds of quote:

* a row: its non-empty cells in order, joined by a space, whitespace
  collapsed ("Apixaban 2.5 mg twice daily 6 months"); a row of at least two
  cells and three words;
* a cell of several words (at least three) on its own.

pdfplumber gives the structure (which boxes are cells of which row); a
cell's words are poppler's words whose box centre lies inside the cell's box
(brought into poppler's frame: crop box origin), line by line (see
``visual_rows`` for a band of several printed rows), a line-break
hyphenation joined. pdfplumber's own cell text is not used: with
its default tolerances it runs tightly set words together ("BAIN,JMATTHEW"),
which no reader would quote. So the quote and the words a highlight must
cover both rest on poppler, the running-text oracle. A quote of more than
``MAX_WORDS`` words (a page frame read as one cell) is left out, as is one
whose text another row or cell of the document repeats (a header repeated
on each page could verify against either).

A third figure judges the tables a reader quotes by row (``by_row_reason``):
a row of column heads at the top, at least two rows under it, and no
layout grid (at most a quarter of the grid's places under merged cells);
a row beside a cell that spans several rows (``spans_rows``) is left out
of its row cases, since a reader could quote it with or without the label.
Its cases are sampled on their own (``BY_ROW_CASES`` a PDF, seeded apart),
so the figure rests on more rows than a filter of the first sample would
give; every table left out is listed with its reason.

A narrower figure scores the same cases from tables with no merged cell
alone (``merged_places``: a place of pdfplumber's grid that no cell of its
own fills). Such a grid is a form's layout (questions side by side, which
pdfplumber joins into rows), independent lists side by side (paired into
rows nobody reads), or a label merged over several rows (which pdfplumber
gives to the first): readings no reader would quote as rows, or could quote
in more than one way. Every table left out is listed, by page, in the note.

pdfplumber reads a page in about 0.2 s: a long document has ``MAX_PAGES``
pages read, sampled (seeded), and the row says so.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench.generalise_sections.common import Case
from bench.poppler import PopplerPage, PopplerWord, word_key

MAX_PAGES = 40
MIN_ROW_WORDS, MIN_CELL_WORDS = 3, 3
MIN_KEY_CHARS = 8
GLUED_GAP = 0.5  # points between two words printed as one (bench/generalise.py's glued())
LINE_END_HYPHEN = re.compile(r"[^\W\d_]-$")
MAX_WORDS = 40  # as the prose windows: nobody quotes a whole page-sized cell
# In a case's label: its table has merged cells (see ``merged_places``).
MERGED = ", table with merged cells"
# In a case's label: its table is not one a reader quotes by row (``by_row_reason``).
NOT_BY_ROW = ", not a table quoted by row"
#: Rows and cells sampled per PDF from tables quoted by row (three times the others).
BY_ROW_CASES = 3
#: A grid with more of its places under merged cells is a layout (a form).
MAX_MERGED_SHARE = 0.25
MAX_HEAD_WORDS = 20  # a column's head is a label, not a paragraph
# A footnote marker or an exponent: a word this short, this much smaller
# than its line (see ``_markers_on_their_lines``).
MAX_MARK_CHARS, MARK_HEIGHT = 3, 0.75

__all__ = ["BY_ROW_CASES", "MERGED", "NOT_BY_ROW", "by_row_reason", "cell_text", "cell_words",
           "rows_under_labels", "spans_rows", "table_cases", "to_poppler_frame",
           "visual_rows"]

Box = tuple[float, float, float, float]


def collapse(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def to_poppler_frame(box: Box, crop: Box) -> Box:
    """A pdfplumber box in poppler's frame: both put the origin at the top left of
    the unrotated page, poppler (``-cropbox``) at the crop box's corner.
    (Measured on the corpus's rotated pages: the two agree without turning.)"""
    return (box[0] - crop[0], box[1] - crop[1], box[2] - crop[0], box[3] - crop[1])


def cell_words(words: Sequence[PopplerWord], box: Box) -> list[PopplerWord]:
    """Poppler's words whose box centre lies inside ``box``, in poppler's order;
    a word of symbols alone too ("$ 360", "L = I – (G + H)", a "%" head): a
    reader copies it, and a quote without it drops a unit or an operator."""
    return [w for w in words if w.text.strip() and box[0] <= w.centre[0] <= box[2]
            and box[1] <= w.centre[1] <= box[3]]


def upright(words: Sequence[PopplerWord]) -> bool:
    """False when most of the words of three letters or more stand taller than
    they are wide: a head printed turned a quarter (agstat's "Projected
    Population for 2012-13"), whose lines run up the page."""
    long = [w for w in words if len(w.text) >= 3]
    turned = sum(1 for w in long if w.box[3] - w.box[1] > 1.5 * (w.box[2] - w.box[0]))
    return 2 * turned <= len(long)


def text_lines(words: Sequence[PopplerWord]) -> list[list[PopplerWord]]:
    """A cell's words as printed lines, top to bottom, each left to right: a word
    starts a new line when its centre is below the current line's by more than
    half that line's height. Turned text (see ``upright``) keeps poppler's
    own lines and order, which read it as printed."""
    if not upright(words):
        turned: list[list[PopplerWord]] = []
        for word in words:
            if turned and turned[-1][-1].line == word.line:
                turned[-1].append(word)
            else:
                turned.append([word])
        return turned
    lines: list[list[PopplerWord]] = []
    for word in sorted(words, key=lambda w: w.centre[1]):
        if lines:
            first = lines[-1][0]
            if word.centre[1] - first.centre[1] <= (first.box[3] - first.box[1]) / 2:
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w.box[0]) for line in _markers_on_their_lines(lines)]


def _markers_on_their_lines(lines: list[list[PopplerWord]]) -> list[list[PopplerWord]]:
    """``lines`` with each line of raised or lowered marks alone put back on
    the line they are printed on. A superscript ("narcotics¹", "m²") is
    smaller and sits higher than its line, so sorting by centre reads it
    as a line of its own before its words ("1 Requiring narcotics"), which
    no reader copies. Such a line holds short words only (``MAX_MARK_CHARS``),
    each at most ``MARK_HEIGHT`` of the taller line's, and a third of its
    height inside that line's band; a small line clear of its neighbours
    (a note under a head) stays a line."""
    def height(line: list[PopplerWord]) -> float:
        return max(w.box[3] - w.box[1] for w in line)

    def marks(line: list[PopplerWord], beside: list[PopplerWord]) -> bool:
        return (all(len(w.text) <= MAX_MARK_CHARS for w in line)
                and height(line) <= MARK_HEIGHT * height(beside))

    def overlap(upper: list[PopplerWord], lower: list[PopplerWord]) -> float:
        return max(w.box[3] for w in upper) - min(w.box[1] for w in lower)

    kept: list[list[PopplerWord]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        after = lines[index + 1] if index + 1 < len(lines) else None
        if after is not None and marks(line, after) and overlap(line, after) >= height(line) / 3:
            lines[index + 1] = line + after  # raised on the next line
        elif kept and marks(line, kept[-1]) and overlap(kept[-1], line) >= height(line) / 3:
            kept[-1] = kept[-1] + line  # lowered on the line before
        else:
            kept.append(line)
        index += 1
    return kept


def visual_rows(cells: list[list[PopplerWord]]) -> list[list[list[PopplerWord]]]:
    """A pdfplumber row as the rows a reader sees.

    pdfplumber's row is the band between two ruled lines; a table that rules
    only its frame puts several printed rows in one band, each cell a stack
    of values ("2005-09-23 / 2005-10-02 / 2005-11-20"). When every non-empty
    cell has the same number of lines, two or more, at the same heights, each
    line across is a row of its own; otherwise (a cell whose text wraps
    beside one-line cells) the band is one row. Two cells that both wrap onto
    exactly as many lines at the same heights read as stacked rows too, unless
    a cell's line opens in lower case (see ``wraps``): a reader quotes a cell
    whose sentence runs on whole, as one row with its neighbours. A group's
    label over stacked rows is read as ``rows_under_labels`` says."""
    stacks = [text_lines(words) for words in cells if words]
    labelled = rows_under_labels(stacks)
    if labelled:
        return labelled
    counts = {len(stack) for stack in stacks}
    if len(stacks) < 2 or len(counts) != 1 or counts == {1} or any(
        wraps(stack) for stack in stacks
    ):
        return [[[w for line in stack for w in line] for stack in stacks]]
    for index in range(counts.pop()):
        centres = [statistics.fmean(w.centre[1] for w in stack[index]) for stack in stacks]
        height = min(w.box[3] - w.box[1] for stack in stacks for w in stack[index])
        if max(centres) - min(centres) > height / 2:
            return [[[w for line in stack for w in line] for stack in stacks]]
    return [[stack[index] for stack in stacks] for index in range(len(stacks[0]))]


def rows_under_labels(stacks: list[list[list[PopplerWord]]]
                      ) -> list[list[list[PopplerWord]]]:
    """A band whose first cell lists more lines than the others, each of the
    others' lines level with one of its lines, down to its last: a group's
    label over stacked rows ("davon Ablehnungen / nach Artikel 6 … 10 6 20 /
    nach Artikel 7 … 1 1 23"; "gesamt 975 / darunter: / Russische Föderation
    692"). Each line of the first cell is a row with the lines level with it
    (a label line alone is a row of one cell, which no row case takes); the
    first cell's dozen labels are no cell anybody quotes. Empty when the band
    is not such: the others' lines must be two or more, figures (a digit
    in each: two lists side by side are no rows) and not run on (``wraps``),
    and the last line of the first cell must have figures beside it, so a
    first cell that wraps beside top-aligned cells stays one row.
    The first cell's own lines may open in lower case ("nach Artikel 7")."""
    if len(stacks) < 2:
        return []
    first, others = stacks[0], stacks[1:]
    if any(len(stack) < 2 or len(stack) >= len(first) or wraps(stack) for stack in others):
        return []
    if not all(any(c.isdigit() for w in line for c in w.text) for s in others for line in s):
        return []  # lists side by side ("Preferred | Nonpreferred"), not figures

    def centre(line: list[PopplerWord]) -> float:
        return statistics.fmean(w.centre[1] for w in line)

    beside: list[list[list[PopplerWord]]] = [[] for _ in first]
    for stack in others:
        taken = -1
        for line in stack:
            height = min(w.box[3] - w.box[1] for w in line)
            level = next((index for index, label in enumerate(first)
                          if abs(centre(label) - centre(line)) <= height / 2), None)
            if level is None or level <= taken:
                return []
            taken = level
            beside[level].append(line)
    if not beside[-1]:
        return []
    return [[label, *lines] for label, lines in zip(first, beside, strict=True)]


def wraps(lines: list[list[PopplerWord]]) -> bool:
    """Whether a cell's text runs on from line to line: a line after the first
    opens in lower case ("Limit on modified / adjusted gross income"), which
    a value of a row of its own never does in a table of stacked values."""
    return any(line[0].text[:1].islower() for line in lines[1:])


def cell_text(words: Sequence[PopplerWord]) -> str:
    """The cell's words line by line, as a reader copies them: two words printed
    with no gap between them kept as one, a line-break hyphenation joined."""
    text = ""
    flat = upright(words)  # the gap between turned words runs up the page
    for line in text_lines(words):
        for index, word in enumerate(line):
            if flat and index and word.box[0] - line[index - 1].box[2] < GLUED_GAP:
                text += word.text
            elif not index and LINE_END_HYPHEN.search(text) and word.text[:1].islower():
                text = text[:-1] + word.text
            else:
                text += (" " if text else "") + word.text
    return collapse(text)


def wordy(text: str) -> bool:
    """At least two words of three letters: a cell of text, not of figures or labels."""
    return sum(1 for w in text.split() if sum(c.isalpha() for c in w) >= 3) >= 2


def merged_places(table: object) -> int:
    """How many places of the table's grid no cell of their own fills (a cell
    merged across rows or columns covers them): pdfplumber's ``None``s."""
    return sum(1 for row in table.rows for cell in row.cells if cell is None)  # type: ignore[attr-defined]


def by_row_reason(table: object) -> str:
    """Why a reader would not quote this table by its rows ("" when they would).

    Such a table has a row of column heads in its first three rows (under a
    title at most; each cell a label of at most ``MAX_HEAD_WORDS`` words, a
    head merged over several columns counted once, the top-left corner may
    be empty), at least two rows under it, two columns or more, and at most
    ``MAX_MERGED_SHARE`` of its grid's places under merged cells. A form's
    layout grid (539 of 621 places merged on the surgical booking form),
    lists side by side and one-column boxes fail it; a dosing or
    adverse-reaction table with a label over a few rows passes it."""
    texts = [[collapse(cell) if cell is not None else None for cell in row]
             for row in table.extract()]  # type: ignore[attr-defined]
    columns = max((len(row) for row in texts), default=0)
    places = sum(len(row) for row in texts)
    merged = merged_places(table)
    if columns < 2:
        return "one column"
    if places and merged / places > MAX_MERGED_SHARE:
        return f"layout grid: {merged} of {places} places under merged cells"

    def heads(row: list[str | None]) -> bool:
        # A merged head (None) leaves its place to the cell it spans; only the
        # top-left corner may be empty.
        named = [cell for place, cell in enumerate(row)
                 if cell is not None and (place or cell)]
        return len(named) >= 2 and all(
            cell and len(cell.split()) <= MAX_HEAD_WORDS for cell in named)

    head = next((index for index, row in enumerate(texts[:3]) if heads(row)), None)
    if head is None:
        return "no row of column heads"
    if len(texts) - head - 1 < 2:
        return "fewer than two rows under its heads"
    return ""


def spans_rows(rows: Sequence[object], index: int) -> bool:
    """Whether a cell of row ``index`` runs down into the next rows, or a cell
    of an earlier row runs down into this one (a group's label or number
    printed once beside several rows, which pdfplumber gives to the first):
    such a row's quote is one a reader could write in more than one way."""
    def boxes(row: object) -> list[Box]:
        return [box for box in row.cells if box is not None]  # type: ignore[attr-defined]

    own = boxes(rows[index])
    if not own:
        return False
    top, bottom = min(box[1] for box in own), min(box[3] for box in own)
    if any(box[3] > bottom + 1 for box in own):
        return True
    return any(box[1] < top - 1 and box[3] > top + 1
               for row in rows[:index] for box in boxes(row))


def table_cases(path: Path, pages: list[PopplerPage], rng: random.Random, count: int,
                by_row_rng: random.Random | None = None
                ) -> tuple[list[Case], list[Case], str, list[str], list[Case], list[Case],
                           list[str]]:
    """Up to ``count`` row cases and ``count`` cell cases, a note on pages left
    out, the tables with merged cells (``MERGED`` in their cases' label:
    left out of the narrower figure), each as "page N, table at y: why";
    then up to ``BY_ROW_CASES * count`` row and cell cases drawn with
    ``by_row_rng`` from the tables quoted by row alone, and the tables that
    are not, each with its reason."""
    import pdfplumber  # a dev dependency; main() checks it is there

    rows: list[Case] = []
    cells: list[Case] = []
    irregular: list[str] = []
    not_by_row: list[str] = []
    note = ""
    with pdfplumber.open(path) as pdf:
        numbers = [n for n in range(1, len(pdf.pages) + 1) if n <= len(pages)]
        if len(numbers) > MAX_PAGES:
            numbers = sorted(rng.sample(numbers, MAX_PAGES))
            note = f"tables sought on {MAX_PAGES} of {len(pdf.pages)} pages (seeded)"
        for number in numbers:
            page = pdf.pages[number - 1]
            words = pages[number - 1].words
            x0, top, x1, bottom = (float(v) for v in page.cropbox)
            crop = (x0, top, x1, bottom)
            for table in page.find_tables():
                merged = merged_places(table)
                if merged:
                    irregular.append(f"p{number} table at y={table.bbox[1]:.0f}: {merged} of "
                                     f"{sum(len(r.cells) for r in table.rows)} grid places "
                                     "under merged cells")
                label = MERGED if merged else ""
                reason = by_row_reason(table)
                if reason:
                    label += NOT_BY_ROW
                    not_by_row.append(f"p{number} table at y={table.bbox[1]:.0f}: {reason}")
                beside_spans = 0
                for index, band in enumerate(table.rows):
                    boxes = [to_poppler_frame(box, crop) for box in band.cells if box is not None]
                    row_label = label
                    if NOT_BY_ROW not in label and spans_rows(table.rows, index):
                        row_label += NOT_BY_ROW
                        beside_spans += 1
                    for row in visual_rows([cell_words(words, box) for box in boxes]):
                        found = [(cell_text(inside), inside) for inside in row]
                        rows.extend(row_case(number, found, row_label))
                        cells.extend(
                            cell_case(number, text, inside, label) for text, inside in found
                            if MIN_CELL_WORDS <= len(text.split()) <= MAX_WORDS
                            and len(word_key(text)) >= MIN_KEY_CHARS and wordy(text))
                if beside_spans:
                    not_by_row.append(f"p{number} table at y={table.bbox[1]:.0f}: {beside_spans} "
                                      f"of {len(table.rows)} rows beside a cell over several rows")
            page.flush_cache()
    # A quote that another row or cell, or poppler's text elsewhere, repeats
    # could verify against another place: left out.
    document = "".join(w.key for page in pages for w in page.words)
    repeated = Counter(word_key(c.quotes[0][1]) for c in rows + cells)

    def unique(case: Case) -> bool:
        key = word_key(case.quotes[0][1])
        return repeated[key] == 1 and document.count(key) <= 1

    rows = [c for c in rows if unique(c)]
    cells = [c for c in cells if unique(c)]
    picked_rows, picked_cells = pick(rows, rng, count), pick(cells, rng, count)
    # Drawn after the first sample, with a generator of their own, so the
    # first figures' cases are the same with or without this one.
    by_row = by_row_rng or random.Random(0)
    by_row_rows = pick([c for c in rows if NOT_BY_ROW not in c.label], by_row,
                       BY_ROW_CASES * count)
    by_row_cells = pick([c for c in cells if NOT_BY_ROW not in c.label], by_row,
                        BY_ROW_CASES * count)
    return (picked_rows, picked_cells, note, irregular, by_row_rows, by_row_cells,
            not_by_row)


def row_case(page: int, found: list[tuple[str, list[PopplerWord]]], label: str = ""
             ) -> list[Case]:
    text = " ".join(t for t, _ in found)
    if (len(found) < 2 or not MIN_ROW_WORDS <= len(text.split()) <= MAX_WORDS
            or len(word_key(text)) < MIN_KEY_CHARS or sum(c.isalpha() for c in text) < 3):
        return []
    targets = tuple(w for _, inside in found for w in inside)
    pieces = tuple(word_key(t) for t, _ in found)
    return [Case(page, (("row", text),), targets, pieces, f"row of {len(found)} cells{label}")]


def cell_case(page: int, text: str, inside: list[PopplerWord], label: str = "") -> Case:
    return Case(page, (("cell", text),), tuple(inside), tuple(w.key for w in inside),
                f"cell{label}")


def pick(cases: list[Case], rng: random.Random, count: int) -> list[Case]:
    return cases if len(cases) <= count else sorted(
        rng.sample(cases, count), key=lambda c: c.page)
