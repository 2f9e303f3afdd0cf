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
(brought into poppler's frame: crop box origin), in poppler's order, a
line-break hyphenation joined. pdfplumber's own cell text is not used: with
its default tolerances it runs tightly set words together ("BAIN,JMATTHEW"),
which no reader would quote. So the quote and the words a highlight must
cover both rest on poppler, the running-text oracle. A quote of more than
``MAX_WORDS`` words (a page frame read as one cell) is left out, as is one
whose text another row or cell of the document repeats (a header repeated
on each page could verify against either).

pdfplumber reads a page in about 0.2 s: a long document has ``MAX_PAGES``
pages read, sampled (seeded), and the row says so.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench.generalise import join_hyphenation
from bench.generalise_sections.common import Case
from bench.poppler import PopplerPage, PopplerWord, word_key

MAX_PAGES = 40
MIN_ROW_WORDS, MIN_CELL_WORDS = 3, 3
MIN_KEY_CHARS = 8
MAX_WORDS = 40  # as the prose windows: nobody quotes a whole page-sized cell

__all__ = ["cell_words", "table_cases", "to_poppler_frame"]

Box = tuple[float, float, float, float]


def collapse(text: str | None) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def to_poppler_frame(box: Box, crop: Box) -> Box:
    """A pdfplumber box in poppler's frame: both put the origin at the top left of
    the unrotated page, poppler (``-cropbox``) at the crop box's corner.
    (Measured on the corpus's rotated pages: the two agree without turning.)"""
    return (box[0] - crop[0], box[1] - crop[1], box[2] - crop[0], box[3] - crop[1])


def cell_words(words: Sequence[PopplerWord], box: Box) -> list[PopplerWord]:
    """Poppler's words whose box centre lies inside ``box``, in poppler's order."""
    return [w for w in words if w.key and box[0] <= w.centre[0] <= box[2]
            and box[1] <= w.centre[1] <= box[3]]


def table_cases(path: Path, pages: list[PopplerPage], rng: random.Random, count: int
                ) -> tuple[list[Case], list[Case], str]:
    """Up to ``count`` row cases and ``count`` cell cases, and a note on pages left out."""
    import pdfplumber  # a dev dependency; main() checks it is there

    rows: list[Case] = []
    cells: list[Case] = []
    note = ""
    with pdfplumber.open(path) as pdf:
        numbers = list(range(1, len(pdf.pages) + 1))
        if len(numbers) > MAX_PAGES:
            numbers = sorted(rng.sample(numbers, MAX_PAGES))
            note = f"tables sought on {MAX_PAGES} of {len(pdf.pages)} pages (seeded)"
        for number in numbers:
            page = pdf.pages[number - 1]
            if number > len(pages):
                continue
            words = pages[number - 1].words
            crop = tuple(float(v) for v in page.cropbox)
            for table in page.find_tables():
                for row in table.rows:
                    found = [(cell_text(inside), inside) for inside in (
                        cell_words(words, to_poppler_frame(box, crop))
                        for box in row.cells if box is not None) if inside]
                    rows.extend(row_case(number, found))
                    cells.extend(Case(number, (("cell", text),), tuple(inside),
                                      tuple(w.key for w in inside), "cell")
                                 for text, inside in found
                                 if MIN_CELL_WORDS <= len(text.split()) <= MAX_WORDS
                                 and len(word_key(text)) >= MIN_KEY_CHARS)
            page.flush_cache()
    repeated = Counter(word_key(c.quotes[0][1]) for c in rows + cells)
    rows = [c for c in rows if repeated[word_key(c.quotes[0][1])] == 1 and c.targets]
    cells = [c for c in cells if repeated[word_key(c.quotes[0][1])] == 1 and c.targets]
    return pick(rows, rng, count), pick(cells, rng, count), note


def cell_text(words: Sequence[PopplerWord]) -> str:
    return collapse(join_hyphenation(words, set()))


def row_case(page: int, found: list[tuple[str, list[PopplerWord]]]) -> list[Case]:
    text = " ".join(t for t, _ in found)
    if (len(found) < 2 or not MIN_ROW_WORDS <= len(text.split()) <= MAX_WORDS
            or len(word_key(text)) < MIN_KEY_CHARS or sum(c.isalpha() for c in text) < 3):
        return []
    targets = tuple(w for _, inside in found for w in inside)
    pieces = tuple(word_key(t) for t, _ in found)
    return [Case(page, (("row", text),), targets, pieces, f"row of {len(found)} cells")]


def pick(cases: list[Case], rng: random.Random, count: int) -> list[Case]:
    return cases if len(cases) <= count else sorted(
        rng.sample(cases, count), key=lambda c: c.page)
