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

__all__ = ["MERGED", "cell_text", "cell_words", "table_cases", "to_poppler_frame", "visual_rows"]

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


def text_lines(words: Sequence[PopplerWord]) -> list[list[PopplerWord]]:
    """A cell's words as printed lines, top to bottom, each left to right: a word
    starts a new line when its centre is below the current line's by more than
    half that line's height."""
    lines: list[list[PopplerWord]] = []
    for word in sorted(words, key=lambda w: w.centre[1]):
        if lines:
            first = lines[-1][0]
            if word.centre[1] - first.centre[1] <= (first.box[3] - first.box[1]) / 2:
                lines[-1].append(word)
                continue
        lines.append([word])
    return [sorted(line, key=lambda w: w.box[0]) for line in lines]


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
    whose sentence runs on whole, as one row with its neighbours."""
    stacks = [text_lines(words) for words in cells if words]
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


def wraps(lines: list[list[PopplerWord]]) -> bool:
    """Whether a cell's text runs on from line to line: a line after the first
    opens in lower case ("Limit on modified / adjusted gross income"), which
    a value of a row of its own never does in a table of stacked values."""
    return any(line[0].text[:1].islower() for line in lines[1:])


def cell_text(words: Sequence[PopplerWord]) -> str:
    """The cell's words line by line, as a reader copies them: two words printed
    with no gap between them kept as one, a line-break hyphenation joined."""
    text = ""
    for line in text_lines(words):
        for index, word in enumerate(line):
            if index and word.box[0] - line[index - 1].box[2] < GLUED_GAP:
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


def table_cases(path: Path, pages: list[PopplerPage], rng: random.Random, count: int
                ) -> tuple[list[Case], list[Case], str, list[str]]:
    """Up to ``count`` row cases and ``count`` cell cases, a note on pages left
    out, and the tables with merged cells (``MERGED`` in their cases' label:
    left out of the narrower figure), each as "page N, table at y: why"."""
    import pdfplumber  # a dev dependency; main() checks it is there

    rows: list[Case] = []
    cells: list[Case] = []
    irregular: list[str] = []
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
                for band in table.rows:
                    boxes = [to_poppler_frame(box, crop) for box in band.cells if box is not None]
                    for row in visual_rows([cell_words(words, box) for box in boxes]):
                        found = [(cell_text(inside), inside) for inside in row]
                        rows.extend(row_case(number, found, label))
                        cells.extend(
                            cell_case(number, text, inside, label) for text, inside in found
                            if MIN_CELL_WORDS <= len(text.split()) <= MAX_WORDS
                            and len(word_key(text)) >= MIN_KEY_CHARS and wordy(text))
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
    return pick(rows, rng, count), pick(cells, rng, count), note, irregular


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
