"""Tables read by their rows: a row's cells left to right, a cell's lines in order.

Internal to :mod:`reviewer.ingestion`: :mod:`~reviewer.ingestion.extract`
hands over a page's blocks (after markers and column splits) and gets back
the same lines, where a table was found regrouped into one block per row.
No character is added, dropped or moved out of its box; only the order of
whole lines changes, and the writer separates them as usual: a cell's lines
and a row's cells by ``"\\n"`` (a space when two sit a word space apart on one
baseline), rows by a blank line. So a quote of a row, or of one cell, is a
stretch of the text, and its highlight covers those cells' glyphs alone.

Why not ``page.find_tables()``: it costs 10-20 times a page's ``rawdict``
with ``use_layout=False`` (its own character extraction and edge geometry in
Python) and 80-90 times with PyMuPDF 2.0's default layout model, where the
whole of ingestion may cost 1.2 times ``rawdict``. The lines are already
here, each with its box: a table is found from them, and the page's ruling
lines (``page.get_cdrawings()``, a few milliseconds) are read only on a page
where the text already looks like a table.

What is a table here: at least :data:`_MIN_ROWS` text rows (lines on one
baseline) that each hold :data:`_MIN_CELLS` or more separate pieces of text
(a gutter wider than a word space apart) of which at least one is not running
prose (a name, a number, a date), one under another, plus the short rows
between them that stay inside their width (headers, the next lines of a
cell). Running prose in two or three columns never qualifies (all its pieces
are prose, and its paragraphs are set aside first). Left as MuPDF reads them,
since their rows cannot be told apart: an unruled table with a paragraph
inside its area (ruled, a closed grid of rules reads it: see :func:`_grid`),
tables of contents side by side (dot leaders), a form's half whose
first row opens in lower case (unless the line above is its heads' first
line: "IF you live in / the state of..."), and an unruled table whose cells
wrap with a hyphen (text boxes in a figure). A closed grid of rules that no
table found from the text took (two columns, as a medicine beside its forms;
cells of paragraphs; see :func:`_free_grids`) is read by its rules alone; the
page's rules are then read on any page with three baselines of two pieces.
So is each of two closed grids side by side at one height, whose text rows
run across both (two ruled lists: see :func:`_side_by_side`).

Rows: on a ruled table, a horizontal rule between two text rows starts a new
table row, and text rows with no rule between them are one row (multi-line
cells) unless the lower one has its own first cell (heads over two lines are one
row, and a first cell set beside the next line of a row that has none yet
is that row's: a label centred on the lines it names; so is the one line in
the first column between two rules: a number centred beside a wrapped item);
a vertical rule cuts pieces set closer than a word space (figures of a rate
table, each between its rules, so cut are a row of cells). Unruled, every
text row of cells starts a row; a shorter one (a wrapped cell's next line)
continues the row above unless it starts in the first column away from the
line above it. Cells: a row's first text row gives its cells; a later line
joins the cell it overlaps in x.
"""

from __future__ import annotations

import functools
import math
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import pairwise, takewhile

from reviewer.ingestion.drawings import each_drawing
from reviewer.ingestion.layout import (
    HUNG_NUMBER,
    JOIN_GAP_LINES,
    Block,
    Line,
    block_of,
    is_prose,
)

__all__ = ["RuleSource", "Rules", "read_tables", "ruling_lines"]

# A table has at least this many text rows of this many separate pieces.
_MIN_ROWS = 3
_MIN_CELLS = 3
# Rows of a table follow each other within this many line heights.
_ROW_GAP_LINES = 2.5
# Dot leaders: an entry of a table of contents, whose columns are lists.
_LEADER = re.compile(r"\.{5,}|(?:\. ){4,}|\u2026{2,}")
# A block of this many lines, most of them prose, is a paragraph.
_PARAGRAPH_LINES = 3
# A section's number hung before its heading starts at most this many line
# heights to its left (as layout's numbered lists).
_HUNG_GAP_LINES = 2.0
# A ruling line is at most this thick and at least this long (points); a rule
# within this many points of a gap between two text rows separates them.
RULE_THICKNESS = 2.0
_RULE_MIN_LENGTH = 6.0
_RULE_SLACK = 1.5
# Segments of one rule drawn piece by piece lie at one x within this (points).
_SAME_X = 0.1
# The next line of a first-column cell sits at most this many line heights
# below the one before it.
_WRAP_GAP_LINES = 0.5
# A ruled table's heads run to at most this many lines above its first rule.
_HEAD_LINES = 3
# A table is ruled when rules separate at least this share of its rows of cells.
_RULED_SHARE = 0.25

# A ruling line: (start, end, at) in displayed-page points; a horizontal one
# runs from x = start to end at y = at, a vertical one from y = start to end.
Rule = tuple[float, float, float]


@dataclass(frozen=True)
class Rules:
    """A page's ruling lines, horizontal and vertical, with the lookups a
    page's table reading asks of them thousands of times (each line of a
    ruled page tries frames whose borders and edges are rules near an x or
    a y), built once on first use."""

    horizontal: list[Rule]
    vertical: list[Rule]

    @functools.cached_property
    def joined_horizontal(self) -> list[Rule]:
        """The horizontal rules, those on one line that meet as one (:func:`_joined`)."""
        return _joined(self.horizontal)

    def vertical_near(self, x: float, reach: float) -> list[Rule]:
        """The vertical rules within ``reach`` of x = ``x``, by x."""
        return _near(self._vertical_by_x, x, reach)

    def horizontal_near(self, y: float, reach: float) -> list[Rule]:
        """The horizontal rules within ``reach`` of y = ``y``, by y."""
        return _near(self._horizontal_by_y, y, reach)

    @functools.cached_property
    def _vertical_by_x(self) -> tuple[list[float], list[Rule]]:
        ordered = sorted(self.vertical, key=lambda rule: rule[2])
        return [rule[2] for rule in ordered], ordered

    @functools.cached_property
    def _horizontal_by_y(self) -> tuple[list[float], list[Rule]]:
        ordered = sorted(self.horizontal, key=lambda rule: rule[2])
        return [rule[2] for rule in ordered], ordered


def _near(index: tuple[list[float], list[Rule]], at: float, reach: float) -> list[Rule]:
    """The rules of ``index`` (their positions sorted, and the rules in that
    order) whose position is within ``reach`` of ``at``: the window found by
    bisection is one point wider, and the test the callers made on every
    rule (``abs(position - at) <= reach``) is still made on the window's, so
    the answer is theirs to the last bit."""
    positions, ordered = index
    low = bisect_left(positions, at - reach - 1.0)
    high = bisect_right(positions, at + reach + 1.0)
    return [rule for rule in ordered[low:high] if abs(rule[2] - at) <= reach]


# Called with the area the tables cover (x0, y0, x1, y1, displayed page).
RuleSource = Callable[[tuple[float, float, float, float]], Rules]
_Matrix = tuple[float, float, float, float, float, float]




@dataclass(slots=True)
class _Piece:
    """Lines of one text row that read as one (a word space apart at most)."""

    lines: list[Line]
    x0: float
    x1: float
    prose: bool


@dataclass(slots=True)
class _TextRow:
    """Lines on one baseline, as pieces left to right."""

    pieces: list[_Piece]
    y0: float
    y1: float
    # A justified line of a paragraph, its words set a gutter apart (see
    # :func:`_mark_justified`): never a row of cells.
    justified: bool = False

    @property
    def tabular(self) -> bool:
        # Running prose in columns has every piece prose; a row of cells has
        # a short one at least (a name, a number, a date), however long the
        # text of its other cells.
        return (
            len(self.pieces) >= _MIN_CELLS
            and not self.justified
            and not all(p.prose for p in self.pieces)
        )

    @property
    def x0(self) -> float:
        return self.pieces[0].x0

    @property
    def x1(self) -> float:
        return self.pieces[-1].x1

    @property
    def prose(self) -> bool:
        return is_prose(" ".join(_text(p) for p in self.pieces))


@dataclass(slots=True)
class _Cell:
    lines: list[Line]
    x0: float
    x1: float


@dataclass(slots=True)
class _Region:
    rows: list[_TextRow] = field(default_factory=list)
    tabular: int = 0
    x0: float = float("inf")
    x1: float = float("-inf")
    heads_first_line: bool = False  # its first row is its heads' first line

    def add(self, row: _TextRow) -> None:
        self.rows.append(row)
        if row.tabular:
            self.tabular += 1
            self.x0 = min(self.x0, row.pieces[0].x0)
            self.x1 = max(self.x1, row.pieces[-1].x1)


def _paragraph(block: Block) -> bool:
    """Several lines of prose one under another (MuPDF's block of a row's
    cells has lines side by side, a column's paragraph never, but for a
    heading's number hung before it: "8  USE IN SPECIFIC POPULATIONS")."""
    lines = block.lines
    if len(lines) < _PARAGRAPH_LINES:
        return False
    if any(
        min(a.y1, b.y1) - max(a.y0, b.y0) > 0.5 * min(a.y1 - a.y0, b.y1 - b.y0)
        and not _numbered_heading(a, b, lines[k + 2] if k + 2 < len(lines) else None)
        for k, (a, b) in enumerate(pairwise(lines))
    ):
        return False
    prose = sum(is_prose(ln.text) for ln in lines)
    return 2 * prose > len(lines)


def _numbered_heading(number: Line, heading: Line, below: Line | None) -> bool:
    """Whether ``number`` is a section's number hung before its ``heading``
    on one baseline, which MuPDF gives as a line of its own in a column's
    block: a number alone a little left of the heading, the column's next
    line (``below``, the body under the heading) flush with the number, not
    another number. A list's numbers hung before their entries (notes under
    a table: "(1) If integral ...", "(2) Only for ...") have the entries'
    next lines, or the next number, there."""
    height = number.y1 - number.y0
    return (
        below is not None
        and HUNG_NUMBER.fullmatch(number.text.strip()) is not None
        and 0 <= heading.x0 - number.x1 <= _HUNG_GAP_LINES * height
        and below.y0 >= heading.y0 + 0.5 * height
        and abs(below.x0 - number.x0) <= 0.5 * height
        and HUNG_NUMBER.fullmatch(below.text.strip()) is None
    )


def _text_rows(lines: list[Line]) -> list[_TextRow]:
    """Lines grouped by baseline (overlapping the row's first line by half a
    line or more: measured against the row's first line, so loosely set lines
    whose boxes overlap the next one's do not chain a paragraph into one row),
    top to bottom; each row's lines chained into pieces left to right."""
    rows: list[list[Line]] = []
    top = bottom = 0.0
    for line in sorted(lines, key=lambda ln: (ln.y0 + ln.y1) / 2):
        if rows:
            overlap = min(bottom, line.y1) - max(top, line.y0)
            if overlap >= 0.5 * min(bottom - top, line.y1 - line.y0):
                rows[-1].append(line)
                continue
        rows.append([line])
        top, bottom = line.y0, line.y1
    result = []
    for row in rows:
        row.sort(key=lambda ln: ln.x0)
        pieces: list[_Piece] = []
        for line in row:
            gap = JOIN_GAP_LINES * (line.y1 - line.y0)
            if pieces and line.x0 - pieces[-1].x1 <= gap:
                piece = pieces[-1]
                piece.lines.append(line)
                piece.x1 = max(piece.x1, line.x1)
            else:
                pieces.append(_Piece([line], line.x0, line.x1, False))
        for piece in pieces:
            piece.prose = is_prose(_text(piece))
        result.append(_TextRow(pieces, min(ln.y0 for ln in row), max(ln.y1 for ln in row)))
    return result


def _mark_justified(rows: list[_TextRow], line_height: float) -> None:
    """Mark the justified lines of a paragraph: a row whose words, set wide
    apart, read as prose, right above or below a line of prose that runs
    from its first word's left edge to its last word's right edge (the
    paragraph's other lines). A row of cells is never flush with a line of
    prose at both ends."""
    for index, row in enumerate(rows):
        if len(row.pieces) < _MIN_CELLS or not row.prose:
            continue
        for other in rows[max(0, index - 1) : index] + rows[index + 1 : index + 2]:
            if (
                len(other.pieces) == 1
                and other.pieces[0].prose
                and max(other.y0 - row.y1, row.y0 - other.y1) <= _WRAP_GAP_LINES * line_height
                and abs(other.x0 - row.x0) <= line_height
                and abs(other.x1 - row.x1) <= line_height
            ):
                row.justified = True
                break


def _join_justified(rows: list[_TextRow], line_height: float) -> None:
    """Join into one piece the words of a justified line set wide apart inside
    one column of prose among several: pieces of a row, two or more, set
    evenly apart, that run from the left edge to the right edge of a line of
    prose right above or below them (within a line height at each end). Two
    columns of a reference list justify their narrow lines ("availbel
    at:", "education:   Systemic   lupus"), and the words of each, beside the
    other column's line, made a row of three pieces or more, so the two
    columns read as a table, line by line across both. A row of cells is
    never flush at both ends with a line of prose set right above or below
    it, its gutters all one width."""
    for index, row in enumerate(rows):
        if len(row.pieces) < 2:
            continue
        neighbours = [
            other for other in rows[max(0, index - 1) : index] + rows[index + 1 : index + 2]
            if max(other.y0 - row.y1, row.y0 - other.y1) <= _WRAP_GAP_LINES * line_height
        ]
        lines = [p for other in neighbours for p in other.pieces if p.prose]
        if not lines:
            continue
        pieces: list[_Piece] = []
        k = 0
        while k < len(row.pieces):
            start = row.pieces[k]
            end = next(
                (
                    j for line in lines
                    if abs(start.x0 - line.x0) <= line_height
                    for j in range(len(row.pieces) - 1, k, -1)
                    if abs(row.pieces[j].x1 - line.x1) <= line_height
                ),
                None,
            )
            if end is not None:
                run = row.pieces[k : end + 1]
                gaps = [b.x0 - a.x1 for a, b in pairwise(run)]
                if max(gaps) - min(gaps) <= 0.25 * line_height:
                    pieces.append(_piece_of([ln for p in run for ln in p.lines]))
                    k = end + 1
                    continue
            pieces.append(start)
            k += 1
        row.pieces = pieces


def _spans_cells(row: _TextRow, cells: _TextRow) -> bool:
    """Whether ``row`` is prose across two cells or more of the row of
    ``cells``: a note set under a table, not the next line of one of its
    cells (which stays in its cell's column)."""
    return row.prose and sum(
        1 for p in cells.pieces if min(p.x1, row.x1) > max(p.x0, row.x0)
    ) >= 2


def _regions(rows: list[_TextRow], line_height: float) -> list[_Region]:
    """Runs of text rows that form tables."""
    _join_justified(rows, line_height)
    _mark_justified(rows, line_height)
    regions: list[_Region] = []
    current: _Region | None = None
    slack = line_height
    above: dict[int, _TextRow] = {}  # a region's first row -> the text row above it
    for previous, row in zip([None, *rows], rows, strict=False):
        if current is not None:
            near = row.y0 - current.rows[-1].y1 <= _ROW_GAP_LINES * line_height
            inside = (
                current.x0 - slack <= row.pieces[0].x0
                and row.pieces[-1].x1 <= current.x1 + slack
            )
            if near and (row.tabular or inside):
                current.add(row)
                continue
            regions.append(current)
            current = None
        if row.tabular:
            current = _Region()
            current.add(row)
            if previous is not None:
                above[id(row)] = previous
    if current is not None:
        regions.append(current)
    tables = []
    for region in regions:
        # Short rows after the last row of cells belong to the table only as
        # the next lines of its cells (close below, not in the first column,
        # not prose across its columns).
        last_cells = next(row for row in reversed(region.rows) if row.tabular)
        while not region.rows[-1].tabular and (
            _in_first_column(region, region.rows[-1].pieces[0], line_height)
            or region.rows[-1].y0 - region.rows[-2].y1 > _WRAP_GAP_LINES * line_height
            or _spans_cells(region.rows[-1], last_cells)
        ):
            region.rows.pop()
        # A first row with a cell in lower case carries on text above the
        # table (a form's half whose lines MuPDF reads apart): not a table.
        # Unless the line above is the first line of its heads: then it is
        # the table's too.
        opens_midway = any(p.lines[0].text[:1].islower() for p in region.rows[0].pieces)
        heads = above.get(id(region.rows[0]))
        if opens_midway and heads is not None and _heads_above(heads, region.rows[0], line_height):
            region.rows.insert(0, heads)
            region.heads_first_line = True
            opens_midway = False
        if (
            region.tabular >= _MIN_ROWS and not opens_midway and not _contents_columns(region)
            and not _numbered_lists_side_by_side(region, line_height)
        ):
            tables.append(region)
    return tables


def _heads_above(heads: _TextRow, row: _TextRow, line_height: float) -> bool:
    """Whether ``heads`` is the first line of heads that ``row`` ends ("IF
    you live in / the state of..."): right above it, two pieces or more,
    each over a piece of ``row``, and each piece of ``row`` opening in lower
    case under one of them (a sentence carried on, not a new cell)."""
    if len(heads.pieces) < 2 or row.y0 - heads.y1 > _WRAP_GAP_LINES * line_height:
        return False

    def over(piece: _Piece, others: list[_Piece]) -> bool:
        return any(min(piece.x1, o.x1) > max(piece.x0, o.x0) for o in others)

    return all(over(head, row.pieces) for head in heads.pieces) and all(
        over(piece, heads.pieces) for piece in row.pieces if piece.lines[0].text[:1].islower()
    )


def _heads_under_top_rule(
    region: _Region, rows: list[_TextRow], regions: list[_Region], rules: Rules,
    line_height: float,
) -> None:
    """Take into ``region`` the lines of its heads above its first row of
    cells, up to the rule across its top: heads of two or three lines whose
    first line has fewer than three cells ("Moderate Warfarin | High
    Intensity" over "Event | Therapy | Warfarin Therapy"). At most
    :data:`_HEAD_LINES` text rows, one under another, inside the table's
    width, none with a piece of prose across two of its cells once cut at
    the walls (a caption), each in no other table; the topmost right under a
    rule across the table (none: nothing taken). So are a first row's
    sentences whose first lines, set close to the wall between them, read
    as one piece ("We cover ... caused | We do not cover ... caused")."""
    # A region that opens on a line taken as its heads' first (see
    # :func:`_regions`) may have more head lines above it, up to the rule:
    # bottom-aligned heads of five lines (the remdesivir dilution table).
    if not _ruled(region, rules):
        return
    first = region.rows[0]
    index = next((k for k, row in enumerate(rows) if row is first), None)
    if index is None:
        return
    first_cells = next(row for row in region.rows if row.tabular)
    cells_of = [_Cell(p.lines, p.x0, p.x1) for p in first_cells.pieces]
    others = _rows_of_other_tables(region, regions)
    across = _rules_across(region, rules)
    # The table's width: its rows' text, or the rule right over its first
    # row (under its heads, or its top), where that reaches further. Heads
    # centred in their columns run wider than narrow figures under them
    # ("Placebo (N=233) Percent of Patients" over "27").
    left, right = region.x0, region.x1
    over = [
        (x0, x1, y) for x0, x1, y in rules.joined_horizontal
        if first.y0 - (_HEAD_LINES + 1) * line_height <= y <= first.y0 + _RULE_SLACK
        and min(x1, region.x1) - max(x0, region.x0) >= 0.5 * (region.x1 - region.x0)
    ]
    if over:
        x0, x1, _y = max(over, key=lambda rule: rule[2])
        left, right = min(left, x0), max(right, x1)
    heads: list[_TextRow] = []
    below = first
    for row in reversed(rows[max(0, index - _HEAD_LINES) : index]):
        if (
            id(row) in others
            or below.y0 - row.y1 > _WRAP_GAP_LINES * line_height
            or row.x0 < left - line_height
            or row.x1 > right + line_height
            # Cut at the walls first: heads' lines of broken words nearly
            # fill their narrow columns, set closer than a line height, and
            # read as one piece of prose across the cells ("Anerkennun- /
            # Gewährung von / Abschiebungs-"); a caption crosses no wall.
            or any(
                p.prose and _under_cells(cells_of, p) >= 2
                for p in _split_at_rules(row, rules.vertical)
            )
        ):
            break
        heads.insert(0, row)
        below = row
    # The topmost head line taken is the first under the table's top rule;
    # the heads, those taken and those above the region's first rule, must
    # read as one row (see :func:`_heads_band`), as the heads band does.
    gaps = _ruled_gaps(region, rules)
    above_rule = next((k + 1 for k, gap in enumerate(gaps) if gap), len(region.rows))
    # In the band of the region's first row (no rule between), or in a band
    # of their own that no rule parts: one row of heads, ruled off above the
    # first row of cells ("Treprostinil Injection / (N=236) / Percent of
    # Patients", its last line too wide to open the region with its first).
    # Heads of their own band that a rule parts (two-level heads) give up
    # their lines from the top down to under that rule: those above it are
    # another row of heads, left as they were.
    if not heads:
        return
    own_band = _ruled_gaps(_Region(rows=[heads[-1], first], x0=region.x0, x1=region.x1),
                           rules) == [True]
    while heads:
        top = heads[0]
        band = heads if own_band else heads + region.rows[:above_rule]
        if own_band and True in _ruled_gaps(
            _Region(rows=heads, x0=region.x0, x1=region.x1), rules
        ):
            heads.pop(0)
            continue
        if _heads_band(region, band, line_height) and any(
            top.y0 - line_height <= y <= top.y0 + _RULE_SLACK for y in across
        ):
            region.rows[:0] = heads
            return
        heads.pop(0)


def _rows_of_other_tables(region: _Region, regions: list[_Region]) -> set[int]:
    """The ids of the text rows that another of ``regions`` holds: lines a
    table may not take in from around it."""
    return {id(row) for other in regions if other is not region for row in other.rows}


def _rules_across(region: _Region, rules: Rules) -> list[float]:
    """The heights of the horizontal rules (joined end to end) across at least
    half of ``region``'s width: a table's top or bottom rule."""
    width = region.x1 - region.x0
    return [
        y for x0, x1, y in rules.joined_horizontal
        if min(x1, region.x1) - max(x0, region.x0) >= 0.5 * width
    ]


def _last_lines_over_bottom_rule(
    region: _Region, rows: list[_TextRow], regions: list[_Region], rules: Rules,
    line_height: float,
) -> None:
    """Take into a ruled ``region`` the next lines of its last row's cells
    that :func:`_regions` left out as lines in its first column (a first cell
    wrapped under the row's figures: "Adverse reactions leading to treatment
    / discontinuation"), down to the rule across the table's bottom. At most
    :data:`_HEAD_LINES` text rows, none of cells, each close under the one
    before with no rule between, inside the table's width, none with a piece
    of prose across two of its cells (a note), each in no other table; the
    lowest right over a rule across the table (none: nothing taken)."""
    if not _ruled(region, rules):
        return
    last = region.rows[-1]
    index = next((k for k, row in enumerate(rows) if row is last), None)
    if index is None:
        return
    last_cells = next(row for row in reversed(region.rows) if row.tabular)
    cells_of = [_Cell(p.lines, p.x0, p.x1) for p in last_cells.pieces]
    others = _rows_of_other_tables(region, regions)
    across = _rules_across(region, rules)
    taken: list[_TextRow] = []
    above = last
    for row in rows[index + 1 : index + 1 + _HEAD_LINES]:
        if (
            id(row) in others
            or row.tabular
            or row.y0 - above.y1 > _WRAP_GAP_LINES * line_height
            or row.x0 < region.x0 - line_height
            or row.x1 > region.x1 + line_height
            or any(p.prose and _under_cells(cells_of, p) >= 2 for p in row.pieces)
            or _ruled_gaps(_Region(rows=[above, row], x0=region.x0, x1=region.x1),
                           rules) != [False]
        ):
            break
        taken.append(row)
        above = row
    while taken:
        bottom = taken[-1]
        after = rows[index + len(taken) + 1] if index + len(taken) + 1 < len(rows) else None
        if any(bottom.y1 - _RULE_SLACK <= y <= bottom.y1 + line_height for y in across) or (
            _walled_down_to_rule(region, bottom, after, across, rules)
        ):
            region.rows.extend(taken)
            return
        taken.pop()


def _walled_down_to_rule(
    region: _Region, bottom: _TextRow, after: _TextRow | None, across: list[float],
    rules: Rules,
) -> bool:
    """Whether ``bottom`` lies in a grid's last band that runs on below it:
    the table's left border runs down from it to the next rule across the
    table, and no text row (``after``, the next on the page) stands between.
    A writer gives a row the height it likes (a dose-modification grid's
    last row, its cells' lines at the band's top, the rule four lines under
    them); a note under an open table has no border beside it."""
    below = [y for y in across if y >= bottom.y1 - _RULE_SLACK]
    if not below:
        return False
    rule = min(below)
    if (
        after is not None and after.y0 < rule
        and min(after.x1, region.x1) > max(after.x0, region.x0)
    ):
        return False
    # The border: a vertical rule a little left of the table's first column
    # (its cells' padding), drawn whole or cell by cell.
    reach = 2 * (bottom.y1 - bottom.y0)
    spans: dict[int, list[tuple[float, float]]] = {}
    for y0, y1, x in rules.vertical:
        if region.x0 - reach <= x <= region.x0 + _RULE_SLACK:
            spans.setdefault(round(x), []).append((y0, y1))
    return any(_covers(segments, bottom.y0, rule) for segments in spans.values())


def _heads_band(region: _Region, rows: list[_TextRow], line_height: float) -> bool:
    """Whether ``rows``, the text rows above a ruled table's first rule, read
    as one row of heads: a few (:data:`_HEAD_LINES` at most: "S / NO"), or
    any number of which one at most opens in the first column (a corner head
    set beside the stacked lines of the other columns' heads: "VEKLURY / 5
    Days / N=200 / n (%)"). Rows of cells above a first rule far down each
    open in the first column."""
    if len(rows) <= _HEAD_LINES:
        return True
    return sum(1 for row in rows if _in_first_column(region, row.pieces[0], line_height)) <= 1


def _contents_columns(region: _Region) -> bool:
    """Tables of contents set in columns side by side: most rows hold two
    entries or more with dot leaders. Each column is a list read down."""
    listed = sum(
        1 for row in region.rows
        if row.tabular and sum(1 for p in row.pieces if _LEADER.search(_text(p))) >= 2
    )
    return 2 * listed > region.tabular


def _numbered_lists_side_by_side(region: _Region, line_height: float) -> bool:
    """Numbered lists set in columns side by side: a paper's references,
    "61  Lundin KE, Scott H ..." beside "88  Nachman F, Vazquez H ...". Each
    column hangs its numbers before its entries, counting up by one down the
    page, and its entries run over their own numbers of lines, so a number in
    one column stands beside the middle of an entry in the other. The text
    rows, each a number, an entry's line, a number, another's, read as rows
    of cells; read across, they cut every entry. Each list is read down.

    Two columns of numbers or more, each of :data:`_MIN_ROWS` numbers or
    more counting up by one, out of step somewhere (a row with a number in
    one and a line that is not one in the other's column). A table's
    numbered rows keep every column in step: its cells start on one line."""
    numbers: list[tuple[float, int, int]] = []  # (x0, row index, value)
    for index, row in enumerate(region.rows):
        for piece, entry in pairwise(row.pieces):
            match = HUNG_NUMBER.fullmatch(_text(piece))
            if match and entry.x0 - piece.x1 <= 2 * line_height:
                numbers.append((piece.x0, index, int(match.group(1))))
    columns: list[list[tuple[float, int, int]]] = []
    for number in sorted(numbers):
        if columns and number[0] - columns[-1][0][0] <= line_height:
            columns[-1].append(number)
        else:
            columns.append([number])
    counted = []
    for column in columns:
        values = [value for _, _, value in sorted(column, key=lambda n: n[1])]
        if len(values) >= _MIN_ROWS and all(b == a + 1 for a, b in pairwise(values)):
            counted.append(column)
    if len(counted) < 2:
        return False
    starts = [min(x for x, _, _ in column) for column in counted]
    numbered = [{index for _, index, _ in column} for column in counted]
    for k, start in enumerate(starts):
        end = min((s for s in starts if s > start), default=float("inf")) - line_height
        numbered_elsewhere = set().union(*(rows for j, rows in enumerate(numbered) if j != k))
        for index in numbered_elsewhere - numbered[k]:
            if any(start - line_height <= p.x0 < end for p in region.rows[index].pieces):
                return True
    return False


def _text(piece: _Piece) -> str:
    return " ".join(ln.text for ln in piece.lines)


def _in_first_column(region: _Region, piece: _Piece, line_height: float) -> bool:
    """Whether ``piece`` starts at the table's left edge (its first column is
    read left-aligned; a centred header or cell further right is not in it)."""
    return piece.x0 <= region.x0 + line_height


def _ruled_gaps(region: _Region, rules: Rules, *, grid: bool = False) -> list[bool]:
    """For each text row after the first, whether a rule separates it from
    the one above: in the gap between their boxes, or in a grid (whose rules
    may touch tightly set lines) anywhere between their middles."""
    width = region.x1 - region.x0
    # Rules across a good part of the table (not an underline inside a cell).
    across = [
        rule for rule in rules.joined_horizontal
        if min(rule[1], region.x1) - max(rule[0], region.x0) >= 0.3 * width
    ]
    gaps = []
    for above, below in zip(region.rows, region.rows[1:], strict=False):
        gaps.append(any(_rule_between(above, below, rule, grid=grid) for rule in across))
    return gaps


def _rule_between(above: _TextRow, below: _TextRow, rule: Rule, *, grid: bool) -> bool:
    """Whether ``rule`` stands between two text rows, measured against the
    lines it runs under and over: a rule that stops short of a cell merged
    down over both rows (a limit printed once beside two services) parts
    the other cells' lines, however far that cell's wrapped lines reach."""
    x0, x1, y = rule
    upper, lower = _bounds(above, x0, x1), _bounds(below, x0, x1)
    if grid:
        low, high = (upper[0] + upper[1]) / 2, (lower[0] + lower[1]) / 2
    else:
        # A line's box may stand well clear of its glyphs (a font with a
        # tall line gap: 17 pt boxes for 11 pt text), so a rule set close
        # under the descenders, or over the capitals, cuts into it: up to
        # a quarter of its height in is still between rows set apart.
        # Between lines set solid (boxes touching: running text), a rule
        # that far in is another thing's (a banner's edge beside them).
        apart = lower[0] - upper[1] > _RULE_SLACK
        low = upper[1] - max(_RULE_SLACK, apart * 0.25 * (upper[1] - upper[0]))
        high = lower[0] + max(_RULE_SLACK, apart * 0.25 * (lower[1] - lower[0]))
        low, high = _overlap_band(upper, lower, low, high)
    return low <= y <= high


def _bounds(row: _TextRow, x0: float, x1: float) -> tuple[float, float]:
    """The top and bottom of ``row``'s lines that overlap ``x0``..``x1`` (the
    whole row's where none does)."""
    # Comparisons, not min() and max() a line: this runs for every rule
    # between every two rows (a third of a tax booklet's reading time).
    top, bottom = math.inf, -math.inf
    if x1 > x0:
        for piece in row.pieces:
            for ln in piece.lines:
                # min(ln.x1, x1) > max(ln.x0, x0), spelt out
                if ln.x1 > x0 and x1 > ln.x0 and ln.x1 > ln.x0:
                    if ln.y0 < top:
                        top = ln.y0
                    if ln.y1 > bottom:
                        bottom = ln.y1
    if top == math.inf:
        return row.y0, row.y1
    return top, bottom


def _overlap_band(
    above: tuple[float, float], below: tuple[float, float], low: float, high: float
) -> tuple[float, float]:
    """Where a rule between two text rows whose boxes overlap may stand:
    ``low``..``high``, and on down to :data:`_RULE_SLACK` under the upper
    row's box (short of the lower row's middle). A table set tight in a
    font with tall boxes (12 pt text in 14 pt rows: the drug labels'
    adverse-reaction tables) rules each row off right under its box's
    bottom, 2 to 3 pt into the next row's box; a rule further up, into the
    upper row's own box, is no rule between them (a box drawn round a
    figure's label)."""
    (_top, bottom), (top, foot) = above, below
    if top >= bottom:
        return low, high
    return low, max(high, min(bottom + _RULE_SLACK, (top + foot) / 2))


def _joined(rules: list[Rule]) -> list[Rule]:
    """Rules on one line that meet, as one: a grid drawn cell by cell rules a
    row off with a segment per column (the Italian prospectus's cost table),
    none of which alone crosses much of the table. A piece that starts
    before the last rule does is on another line: sorted by rounded height,
    a row's rule drawn at 255.65 follows one at 255.17 (rounded apart) that
    ends far to its right, and joining them lost the row's first cells."""
    joined: list[Rule] = []
    for x0, x1, y in sorted(rules, key=lambda rule: (round(rule[2]), rule[0])):
        if joined:
            last_x0, last_x1, last_y = joined[-1]
            if (abs(y - last_y) <= _RULE_SLACK / 2
                    and last_x0 - _RULE_SLACK <= x0 <= last_x1 + _RULE_SLACK):
                joined[-1] = (last_x0, max(last_x1, x1), last_y)
                continue
        joined.append((x0, x1, y))
    return joined


def _split_at_rules(row: _TextRow, vertical: list[Rule]) -> list[_Piece]:
    """The row's pieces, cut where a vertical rule stands between two of a
    piece's lines (cells of a tight ruled table are less than a word space
    apart)."""
    middle = (row.y0 + row.y1) / 2
    walls = [x for y0, y1, x in vertical if y0 <= middle <= y1]
    if not walls:
        return row.pieces
    pieces: list[_Piece] = []
    for piece in row.pieces:
        start = 0
        for k in range(1, len(piece.lines)):
            left, right = piece.lines[k - 1], piece.lines[k]
            if any(left.x1 - _RULE_SLACK <= x <= right.x0 + _RULE_SLACK for x in walls):
                pieces.append(_piece_of(piece.lines[start:k]))
                start = k
        pieces.append(piece if start == 0 else _piece_of(piece.lines[start:]))
    return pieces


def _piece_of(lines: list[Line]) -> _Piece:
    return _Piece(lines, min(ln.x0 for ln in lines), max(ln.x1 for ln in lines),
                  is_prose(" ".join(ln.text for ln in lines)))


_HYPHEN_END = re.compile(r"[^\W\d_]-$")


def _hyphen_wrapped(region: _Region, line_height: float) -> bool:
    """Whether a piece ends a word with a hyphen and the next text row goes
    on right under it: a cell of several lines, which an unruled table
    cannot tell from the next row (text boxes side by side in a figure)."""
    for above, below in pairwise(region.rows):
        for piece in above.pieces:
            last = piece.lines[-1]
            if not _HYPHEN_END.search(last.text):
                continue
            for other in below.pieces:
                first = other.lines[0]
                if (
                    first.y0 - last.y1 <= _WRAP_GAP_LINES * line_height
                    and min(first.x1, last.x1) > max(first.x0, last.x0)
                ):
                    return True
    return False


def _ruled(region: _Region, rules: Rules, gaps: list[bool] | None = None) -> bool:
    """Whether rules stand between a good share of the region's rows of
    cells (a table that only boxes its header is read as unruled); ``gaps``:
    its :func:`_ruled_gaps`, when known. Counted from its first row of
    cells down: the lines of heads taken in above it (see
    :func:`_heads_under_top_rule`) are one row with it, no rule between."""
    if gaps is None:
        gaps = _ruled_gaps(region, rules)
    first = next((k for k, row in enumerate(region.rows) if row.tabular), 0)
    between = [
        ruled for ruled, below in zip(gaps[first:], region.rows[first + 1 :], strict=False)
        if below.tabular
    ]
    count = sum(between)
    if count >= max(2, _RULED_SHARE * len(between)):
        return True
    # Two rows of a grid (walls, a frame) carried over from the page before,
    # each of several printed lines of cells: one rule parts them. Not when
    # that rule is under the first row of cells (heads ruled off a framed
    # table whose rows are not), and only inside a closed frame (a rule across
    # an open table may be anything's).
    return (
        count == 1 and not between[0] and count >= _RULED_SHARE * len(between)
        and _frame(region, rules) is not None
    )


def _table_rows(
    region: _Region, rules: Rules, line_height: float, *, grid: bool = False
) -> list[Block] | None:
    """The region's rows as blocks; ``grid``: the region is a grid of rules
    (see :func:`_framed`), whose rows only its rules separate."""
    ruled_gaps = _ruled_gaps(region, rules, grid=grid)
    ruled = grid or _ruled(region, rules, ruled_gaps)
    if not ruled and _hyphen_wrapped(region, line_height):
        return None  # rows that cannot be told apart without rules
    rows: list[list[_Cell]] = []
    first_column: Line | None = None  # the last line of the current row's first cell
    centred_first: Line | None = None  # the lead line of a row a rule opened, wherever it starts
    opened = 0  # how many pieces the text row that opened the current row had
    # Ruled: the text rows above the first rule under the top one are the
    # heads' lines when they read as one row of heads (:func:`_heads_band`).
    first_rule = next((k + 1 for k, ruled_gap in enumerate(ruled_gaps) if ruled_gap), 0)
    heads_band = (
        first_rule
        if ruled and not grid and _heads_band(region, region.rows[:first_rule], line_height)
        else 0
    )
    for index, text_row in enumerate(region.rows):
        lead = text_row.pieces[0]
        starts_first = _in_first_column(region, lead, line_height)
        pieces = _split_at_rules(text_row, rules.vertical)
        # Figures set closer than a word space, each in its column between
        # vertical rules (a rate table's rows), are a row of cells too, not
        # the next lines of the first cell above.
        tabular = text_row.tabular or (
            len(pieces) >= _MIN_CELLS and not all(p.prose for p in pieces)
        )
        # A first cell under two cells of the row above is no next line of
        # either: it starts a row (figures set close under the heads).
        across = bool(rows) and _under_cells(rows[-1], pieces[0]) >= 2
        wraps = (
            first_column is not None
            and not across
            and lead.lines[0].y0 - first_column.y1 <= _WRAP_GAP_LINES * line_height
            and min(lead.x1, first_column.x1) > max(lead.x0, first_column.x0)
        )
        if index == 0 or ruled_gaps[index - 1]:
            new_row = True
        elif grid or (index == 1 and region.heads_first_line) or index < heads_band:
            # A grid's rows only its rules separate; heads over two lines
            # are one row, and so are a ruled table's lines above its first
            # rule (heads of two or three lines, each column's head centred
            # on them: "S / NO", "MET. / SUBDIVISION...", "%DEP.").
            new_row = False
        elif (
            ruled and not tabular and starts_first and len(pieces) > 1
            and not any(c.x0 <= region.x0 + line_height for c in rows[-1])
            and all(_under_cells(rows[-1], piece) for piece in pieces[1:])
        ):
            # Ruled, a first cell with no rule above it, beside the next line
            # of a cell of a row that has no first cell yet, fills that row's:
            # a label set beside the middle of the lines it names ("Colorado"
            # beside its localities). Beside a full row of cells it is that
            # row's own.
            new_row = False
        elif (
            ruled and starts_first
            and not any(c.x0 <= region.x0 + line_height for c in rows[-1])
            and _alone_in_band(region, ruled_gaps, index, rules, line_height)
        ):
            # Ruled, the one line in the first column between a row's rules,
            # under the first lines of its other cells: that row's first cell,
            # set level with the middle of a neighbour that wraps ("52" and
            # "Payable in post-hospitalisation" beside "PRIVATE NURSES
            # CHARGES- SPECIAL / NURSING CHARGES"), whatever stands beside it.
            new_row = False
        elif tabular:
            # Unruled, a row of cells is a row. Ruled, it may be the next
            # lines of multi-line cells: a row only when its first cell is.
            # A first cell's next line set under it with no rule between, in
            # a text row of fewer pieces than the row's first (the other
            # cells' next lines beside it: "Morphine sulfate / extended
            # release" beside "(q12h)"), continues the row.
            # Or, every one of its cells the next line of the cell above, whose
            # last line left no room between its end and its column's wall for
            # the next word: text wrapped in each cell at once ("... as /
            # dispersible tablets", "From the date of / issue"). Ruled only:
            # figures set tight between walls in a table ruled in columns
            # alone are rows of their own (a rate table), with no room either.
            # Or, ruled, its first cell the next line of a name broken in the
            # first cell above, opening in lower case where the word would not
            # fit ("Skin and subcutaneous tissue / disorders"), beside the
            # next entries of lists in the other cells ("Erythema / Pruritus"
            # beside "Common / Common": an adverse-reaction table's band).
            borders = _borders(region, rules) if ruled else None
            continues = wraps and (
                len(pieces) < opened
                or (ruled and _wrapped_in_cells(rows[-1], pieces, rules.vertical, borders))
                or (ruled and lead.lines[0].text[:1].islower()
                    and _wrapped_in_cells(rows[-1], pieces[:1], rules.vertical, borders))
            )
            new_row = not ruled or (starts_first and not continues) or across
        else:
            # A line alone in the first column, right under a ruled row's
            # centred first cell and overlapping it, is that cell's next
            # line (a row of cells there is a row: a band of rows of
            # figures under one rule).
            under_centred = (
                centred_first is not None
                and not across
                and lead.lines[0].y0 - centred_first.y1 <= _WRAP_GAP_LINES * line_height
                and min(lead.x1, centred_first.x1) > max(lead.x0, centred_first.x0)
            )
            new_row = starts_first and not wraps and not under_centred
        if new_row:
            rows.append([])
            first_column = None
            opened = len(pieces)
            # Ruled, the first cell of a row a rule opens, wherever it
            # starts: a label centred in the first column ("CI" over its
            # unit line "(L/min/m²)", which starts further left, in the
            # first column), whose next line wraps under it.
            centred_first = (
                lead.lines[-1] if ruled and (index == 0 or ruled_gaps[index - 1]) else None
            )
        cells = rows[-1]
        for piece in pieces:
            # A later line under two cells or more reads after the line
            # above it whole: it joins the last of them ("Yes  No" over
            # "Not applicable"), not the one it happens to overlap most.
            # Overlapping in x: min(c.x1, piece.x1) > max(c.x0, piece.x0),
            # spelt out (asked of every cell for every piece of every row).
            x0, x1 = piece.x0, piece.x1
            under = [c for c in cells if c.x1 > x0 and x1 > c.x0 and c.x1 > c.x0 and x1 > x0]
            cell = (max(under, key=lambda c: c.lines[0].x0) if len(under) >= 2
                    else _overlapping(cells, piece))
            if cell is None:
                cells.append(_Cell(list(piece.lines), piece.x0, piece.x1))
            else:
                cell.lines.extend(piece.lines)
                cell.x0, cell.x1 = min(cell.x0, piece.x0), max(cell.x1, piece.x1)
            if _in_first_column(region, piece, line_height):
                first_column = piece.lines[-1]
    blocks = []
    for cells in rows:
        # By where each cell's first line starts: a later line under two
        # cells that starts left of both ("Not applicable" under "Yes  No")
        # joins one of them, whose widened box must not put it before the other.
        cells.sort(key=lambda c: c.lines[0].x0)
        blocks.append(block_of([line for cell in cells for line in cell.lines]))
    return blocks


def _side_by_side(region: _Region, rules: Rules) -> bool:
    """Whether the region's rows of cells run across two closed grids of rules
    side by side: lists set in two ruled tables at one height ("Sl | Item"
    twice), whose rows are not level, so that reading each text row across
    the page interleaves them. No rule inside the region runs across both
    (one table's rows are ruled across it), and some row of cells opens in
    one grid and ends in another, apart from it."""
    width = region.x1 - region.x0
    top, bottom = region.rows[0].y1, region.rows[-1].y0
    if any(
        top < y < bottom and min(x1, region.x1) - max(x0, region.x0) >= 0.9 * width
        for x0, x1, y in rules.joined_horizontal
    ):
        return False
    tried: dict[tuple[float, ...], bool] = {}
    for row in region.rows:
        if not row.tabular:
            continue
        left = _frame_around(row.pieces[0].lines[0], rules, tried)
        if left is None:
            continue
        right = _frame_around(row.pieces[-1].lines[-1], rules, tried)
        if right is not None and left[2] <= right[0] + _RULE_SLACK:
            return True
    return False


def _boxes_side_by_side(
    region: _Region, rules: Rules, line_height: float
) -> list[tuple[float, float, float, float]] | None:
    """The boxes (x0, y0, x1, y1) the region's rows run across, when each is
    a box of its own set a gutter apart from the next, its sides running
    down past every row of the region: a brochure's cards side by side
    (three tariffs, each a head band over its own list), whose lines stand
    level by chance, so that reading them across as rows interleaves the
    cards. None otherwise: a grid's cells share their walls, and a table
    whose cells are boxes set a hair apart has no gutter a line high."""
    rows = [row for row in region.rows if row.tabular]
    top, bottom = region.rows[0].y0, region.rows[-1].y1
    boxes: list[tuple[float, float, float, float]] = []
    middle = (rows[0].y0 + rows[0].y1) / 2
    crossing = sorted({x for y0, y1, x in rules.vertical if y0 <= middle <= y1})
    for piece in rows[0].pieces:
        lefts = [x for x in crossing if x <= piece.x0 + _RULE_SLACK]
        rights = [x for x in crossing if x >= piece.x1 - _RULE_SLACK]
        if not lefts or not rights:
            return None
        left, right = lefts[-1], rights[0]
        up, down = _border(rules, left, middle, _RULE_SLACK)
        up_right, down_right = _border(rules, right, middle, _RULE_SLACK)
        if max(up, up_right) > top + _RULE_SLACK or min(down, down_right) < bottom - _RULE_SLACK:
            return None  # a cell of a row, not a box down the region
        box = (left, max(up, up_right), right, min(down, down_right))
        if boxes and box[0] == boxes[-1][0]:
            continue  # two pieces in one box
        if boxes and box[0] - boxes[-1][2] < line_height:
            return None  # walls shared or a hair apart: a grid
        boxes.append(box)
    if len(boxes) < _MIN_CELLS:
        return None
    # Every row's pieces each inside one box; no rule runs across a gutter.
    for row in rows:
        for piece in row.pieces:
            if not any(x0 - _RULE_SLACK <= piece.x0 and piece.x1 <= x1 + _RULE_SLACK
                       for x0, _top, x1, _bottom in boxes):
                return None
    if any(
        a < left_box[2] - _RULE_SLACK and b > right_box[0] + _RULE_SLACK and top <= y <= bottom
        for a, b, y in rules.joined_horizontal
        for left_box, right_box in pairwise(boxes)
    ):
        return None
    return boxes


def _alone_in_band(
    region: _Region, ruled_gaps: list[bool], index: int, rules: Rules, line_height: float
) -> bool:
    """Whether text row ``index`` of a ruled ``region`` is the only one that
    starts in the first column in its band, and the only row of cells there:
    the band's other text rows are next lines of its cells, not rows of their
    own beside a label centred on them ("Single" beside the rows "DPR" and
    "BM25 + DPR", each with its figures). The band: the text rows between the
    rule above it and the next rule below (a rule across the table right under
    the region's last row closes the last band; none, and there is no band
    to judge)."""
    start = index
    while start > 0 and not ruled_gaps[start - 1]:
        start -= 1
    end = next((k for k in range(index, len(ruled_gaps)) if ruled_gaps[k]), None)
    if end is None:
        end = len(region.rows) - 1
        bottom = region.rows[end].y1
        if not any(bottom - _RULE_SLACK <= y <= bottom + line_height
                   for y in _rules_across(region, rules)):
            return False
    others = [row for k, row in enumerate(region.rows[start : end + 1], start) if k != index]
    return not any(
        row.tabular or _in_first_column(region, row.pieces[0], line_height) for row in others
    )


def _grid(
    region: _Region, lines: list[Line], paragraphs: list[Line], rules: Rules, taken: set[int],
    turned: list[Line],
) -> tuple[list[Line], list[Block]] | None:
    """The table ruled around ``region`` as a grid, read by its rules: the
    lines inside the grid (paragraphs in its cells too) and its rows as
    blocks; None when no grid frames the region (vertical rules at
    :data:`_MIN_CELLS` places or more across its first row of cells, and
    horizontal rules across its width at :data:`_MIN_ROWS` heights or more),
    or when the grid holds no paragraph (then nothing needs its rules).

    A row is the band between two horizontal rules across a good part of
    the grid (a cell merged over several bands belongs to the first, as a
    reader takes it); a cell is the column between two vertical rules; each
    line goes by its own middle, so lines set tight against a rule, or a
    bullet's tall box, fall on their side of it."""
    frame = _frame(region, rules)
    if frame is None:
        return None
    left, top, right, bottom = frame

    def framed(ln: Line) -> bool:
        return (
            ln.horizontal and id(ln) not in taken
            and left <= (ln.x0 + ln.x1) / 2 <= right and top <= (ln.y0 + ln.y1) / 2 <= bottom
        )

    # A grid holding a paragraph needs reading by its rules. One that frames
    # only short lines may be a table whose rows have no rules between them
    # (a table beside the paragraphs), left as it was found, unless each of
    # its bands is one row: a cell of one line beside a cell of many (a
    # site's number beside the ten corners of its polygon, read line by line
    # across, would cut the polygon at the number), or rows of values. Heads
    # set turned (upright lines only are read in cells) leave it as found.
    inside_paragraphs = [ln for ln in paragraphs if framed(ln)]
    if not inside_paragraphs and any(
        left <= (ln.x0 + ln.x1) / 2 <= right and top <= (ln.y0 + ln.y1) / 2 <= bottom
        for ln in turned
    ):
        return None
    inside = [ln for ln in lines if framed(ln)] + inside_paragraphs
    rows = _read_grid(frame, inside, rules, one_row_bands=not inside_paragraphs)
    return None if rows is None else (inside, rows)


def _free_grids(
    lines: list[Line], rules: Rules, taken: set[int]
) -> list[tuple[list[Line], list[Block]]]:
    """Closed grids of rules around text no table found from the text took:
    two columns or more (a medicine | its forms), two bands or more (the two
    rows of a dosing table whose heads a column break left behind, or a row
    of heads and rows), text in two columns of two bands at least; each read
    by its rules as :func:`_grid` reads one (its rows need no row of three
    cells on one baseline, nor a line outside a paragraph). The lines inside
    each grid and its rows as blocks."""
    found: list[tuple[list[Line], list[Block]]] = []
    # Three walls (two borders and one between) and two rules across at
    # least (a box of lists side by side has no more), or no grid: most
    # pages stop here.
    if (
        len({round(x) for _y0, _y1, x in rules.vertical}) < _MIN_ROWS
        or len(rules.horizontal) < _MIN_ROWS - 1
    ):
        return found
    seen: set[int] = set()
    claimed: set[int] = set()  # the lines of the grids found
    tried: dict[tuple[float, ...], bool] = {}  # frames tested, for the lines that share them
    between: dict[tuple[float, ...], tuple[float, float, float, float] | None] = {}  # the same
    for line in sorted(lines, key=lambda ln: (ln.y0 + ln.y1) / 2):
        if id(line) in seen or id(line) in taken or not line.horizontal:
            continue
        frame = _frame_around(line, rules, tried)
        walled_between = _frame_of_walls_between(line, rules, between)
        if walled_between is not None and (frame is None or _taller_around(walled_between, frame)):
            frame = walled_between
        if frame is None:
            continue
        frame = _opened(_opened(frame, rules, lines, left=True), rules, lines, left=False)
        left, top, right, bottom = frame
        inside = [
            ln for ln in lines
            if ln.horizontal and left <= (ln.x0 + ln.x1) / 2 <= right
            and top <= (ln.y0 + ln.y1) / 2 <= bottom
        ]
        if any(id(ln) in taken or id(ln) in claimed for ln in inside):
            seen.update(id(ln) for ln in inside)
            continue  # a table found from the text, or a grid, reads it already, or part of it
        seen.update(id(ln) for ln in inside)
        rules_across = len(_bands(frame, rules))
        if rules_across < _MIN_ROWS - 1:
            continue
        rows = _read_grid(frame, inside, rules)
        if rows is None:
            continue
        if rules_across == _MIN_ROWS - 1:  # one band: lists side by side (_read_grid)
            found.append((inside, rows))
            claimed.update(id(ln) for ln in inside)
            continue
        # Two bands are too few to tell rows of values stacked in a band
        # from lists side by side ("Preferred | Nonpreferred", each a list
        # of medicines): a grid of two bands is read only where each band
        # is one row.
        if rules_across == _MIN_ROWS and len(rows) > rules_across - 1:
            continue
        # Text in two columns of two rows at least: a grid, not a box
        # around a paragraph or a ruled list.
        filled = 0
        for row in rows:
            columns = {
                sum(1 for wall in _walls(rules, (ln.y0 + ln.y1) / 2, left, right)
                    if wall < (ln.x0 + ln.x1) / 2)
                for ln in row.lines
            }
            filled += len(columns) >= 2
        if filled < 2:
            continue
        found.append((inside, rows))
        claimed.update(id(ln) for ln in inside)
    return found


def _frame_of_walls_between(
    line: Line, rules: Rules,
    found: dict[tuple[float, ...], tuple[float, float, float, float] | None],
) -> tuple[float, float, float, float] | None:
    """The frame of a table drawn with walls between its columns and rules
    across its rows, but no wall at its sides, around ``line``: CMS's
    enrollment tables ("If you... | You can... | At this time..."), a head
    band boxed in a filled rectangle, then rows ruled across with walls
    between the cells only. Two walls or more cross ``line``'s middle and
    run, chained end to end, from one rule across to another (the tallest
    such walls: the head band's box is shorter); the frame's sides are
    where those two rules start and end, past every wall, and neither side
    has a wall down most of its height (a boxed table is framed by its
    borders, :func:`_frame_around`). None when there is no such frame.
    ``found``: frames already found on the page (or None), by the walls
    crossing a line and how far the first of them runs, for the lines that
    share them."""
    middle = (line.y0 + line.y1) / 2
    crossing = sorted({x for y0, y1, x in rules.vertical if y0 <= middle <= y1})
    if len(crossing) < 2:
        return None
    key = (*crossing, *_border(rules, crossing[0], middle, _RULE_SLACK))
    if key not in found:
        found[key] = _walls_between_frame(crossing, middle, rules)
    frame = found[key]
    if frame is None or not (frame[0] <= line.x0 + _RULE_SLACK
                             and line.x1 <= frame[2] + _RULE_SLACK):
        return None
    return frame


def _walls_between_frame(crossing: list[float], middle: float, rules: Rules
                         ) -> tuple[float, float, float, float] | None:
    """The frame of :func:`_frame_of_walls_between` from the walls
    ``crossing`` a line at height ``middle``, whatever the line's ends."""
    extents = {x: _border(rules, x, middle, _RULE_SLACK) for x in crossing}
    tallest = max(bottom - top for top, bottom in extents.values())
    walls = [x for x, (top, bottom) in extents.items() if bottom - top >= tallest - _RULE_SLACK]
    if len(walls) < 2:
        return None
    top, bottom = extents[walls[0]]
    if any(abs(t - top) > 2 * _RULE_SLACK or abs(b - bottom) > 2 * _RULE_SLACK
           for t, b in (extents[x] for x in walls)):
        return None  # walls of different heights: no one frame
    sides = []
    for edge in (top, bottom):
        across = [(x0, x1) for x0, x1, y in rules.joined_horizontal
                  if abs(y - edge) <= 2 * _RULE_SLACK
                  and x0 <= walls[0] - _RULE_MIN_LENGTH and x1 >= walls[-1] + _RULE_MIN_LENGTH]
        if not across:
            return None
        sides.append(max(across, key=lambda span: span[1] - span[0]))
    (top_x0, top_x1), (bottom_x0, bottom_x1) = sides
    if abs(top_x0 - bottom_x0) > 2 * _RULE_SLACK or abs(top_x1 - bottom_x1) > 2 * _RULE_SLACK:
        return None
    left, right = min(top_x0, bottom_x0), max(top_x1, bottom_x1)
    for side in (left, right):
        walled = sum(min(y1, bottom) - max(y0, top)
                     for y0, y1, _x in rules.vertical_near(side, 2 * _RULE_SLACK)
                     if y1 > top and y0 < bottom)
        if walled > 0.5 * (bottom - top):
            return None
    return left, top, right, bottom


def _taller_around(
    outer: tuple[float, float, float, float], inner: tuple[float, float, float, float]
) -> bool:
    """Whether ``outer`` holds ``inner`` and runs on above or below it (a
    table's walls between columns below the box of its head band)."""
    slack = 2 * _RULE_SLACK
    return (outer[0] <= inner[0] + slack and outer[2] >= inner[2] - slack
            and outer[1] <= inner[1] + slack and outer[3] >= inner[3] - slack
            and (outer[3] - outer[1]) > (inner[3] - inner[1]) + slack)


def _opened(
    frame: tuple[float, float, float, float], rules: Rules, lines: list[Line], *, left: bool
) -> tuple[float, float, float, float]:
    """``frame`` carried left (or right) over an outer column that has no
    wall at that side: most of the rules between the frame's bands run on
    past it to one x, and text stands in the strip, with no wall in it.
    Left: a statistics table's labels, "65-74", "Totale", set on the page's
    paper left of its shaded value cells, the rows ruled across both; or
    ERGO's bonus classes, whose labels begin flush with the rules, a hair
    left of where they start, beside a wall that runs on up past the table's
    top. Right: a book's table drawn with walls between its columns but
    none at its sides (Springer's "Ref. | Country/region | Sponsor | Year |
    Scope", the rules across run on past the last wall under the scope's
    sentences). Else ``frame`` itself."""
    x0, top, x1, bottom = frame
    reaches = _rules_run_on(frame, rules, left=left)
    if reaches is None:
        return frame
    start, end = (max(reaches), x0) if left else (x1, min(reaches))
    if end - start < 2 * _RULE_MIN_LENGTH or not any(
        ln.horizontal and start - _RULE_SLACK <= ln.x0 and ln.x1 <= end + _RULE_SLACK
        and top <= (ln.y0 + ln.y1) / 2 <= bottom for ln in lines
    ) or _wall_between(rules, start, end, top, bottom):
        return frame
    return (start, top, x1, bottom) if left else (x0, top, end, bottom)


def _rules_run_on(
    frame: tuple[float, float, float, float], rules: Rules, *, left: bool
) -> list[float] | None:
    """How far the rules between ``frame``'s bands run on past its left
    (or right) side, one x for each that does; None unless more than half
    of them do (and there are two at least)."""
    x0, top, x1, bottom = frame
    inner = [y for y in _bands(frame, rules) if top + _RULE_SLACK < y < bottom - _RULE_SLACK]
    if len(inner) < 2:
        return None
    reaches: list[float] = []
    for y in inner:
        at = [(a, b) for a, b, ry in rules.joined_horizontal if abs(ry - y) <= _RULE_SLACK]
        if left:
            starts = [a for a, b in at if a < x0 - _RULE_SLACK and b >= x0 - _RULE_SLACK]
            if starts:
                reaches.append(max(starts))
        else:
            ends = [b for a, b in at if b > x1 + _RULE_SLACK and a <= x1 + _RULE_SLACK]
            if ends:
                reaches.append(min(ends))
    return reaches if 2 * len(reaches) > len(inner) else None


def _wall_between(rules: Rules, x0: float, x1: float, top: float, bottom: float) -> bool:
    """Whether a wall stands strictly between ``x0`` and ``x1`` beside the
    frame: another table or column (two tables side by side whose rules
    run on into each other)."""
    return any(
        x0 + _RULE_SLACK < x < x1 - _RULE_SLACK and y0 < bottom and y1 > top
        for y0, y1, x in rules.vertical
    )


def _walls(rules: Rules, y: float, left: float, right: float) -> set[int]:
    """The vertical rules that cross height ``y`` strictly inside ``left``..``right``
    (rounded: a wall drawn cell by cell counts once)."""
    return {
        round(at) for y0, y1, at in rules.vertical
        if y0 <= y <= y1 and left + _RULE_SLACK < at < right - _RULE_SLACK
    }


def _frame_around(
    line: Line, rules: Rules, tried: dict[tuple[float, ...], bool]
) -> tuple[float, float, float, float] | None:
    """The closed frame of rules (x0, y0, x1, y1) around ``line`` with a
    wall inside it that runs down half its height or more (a column's
    edge): the widest such frame, so a page's border, whose inside walls
    are a table's, gives way to the table's own frame. ``tried``: frames
    already tested on the page (whether closed), shared by its lines."""
    middle = (line.y0 + line.y1) / 2
    crossing = sorted({x for y0, y1, x in rules.vertical if y0 <= middle <= y1})
    if len(crossing) < _MIN_ROWS:  # two borders and a wall between, at least
        return None
    lefts = [x for x in crossing if x <= line.x0 + _RULE_SLACK]
    rights = [x for x in reversed(crossing) if x >= line.x1 - _RULE_SLACK]
    for left in lefts:
        frame = _frame_from(rules, left, rights, middle, tried)
        if frame is not None:
            return frame
    return None


def _frame_from(
    rules: Rules, left: float, rights: list[float], middle: float,
    tried: dict[tuple[float, ...], bool] | None = None,
) -> tuple[float, float, float, float] | None:
    """The first closed frame with columns (see :func:`_has_columns`) whose
    left border is the rule at ``left`` and right border one of ``rights``,
    in that order. Its height is the left border's, its segments chained up
    and down (a border is often drawn one row at a time) within
    :data:`_RULE_SLACK` of ``left`` (pieces drawn a little askew). When that
    closes only as a box (no column reaching its top or bottom rule), the
    border's segments at ``left``'s own x (within :data:`_SAME_X`) are
    tried: a table's border drawn a hair beside the side of a box around it
    (the Berlin booklet's appendix: 0.3 pt apart) is another line, which the
    first chain took for the table's. Only then: a border drawn doubled, or
    in pieces a hair apart along its length (NICE's grids), chains at its
    own x over only some of the table's rows, which would be framed alone.
    ``tried``: frames already tested (whether closed)."""
    if tried is None:
        tried = {}
    loose = _border(rules, left, middle, _RULE_SLACK)
    tight = _border(rules, left, middle, _SAME_X)
    for top, bottom in [loose] if tight == loose else [loose, tight]:
        boxed = False
        for right in rights:
            key = (left, top, right, bottom)
            if key not in tried:
                tried[key] = _closed(rules, left, right, top, bottom)
            if tried[key]:
                if _has_columns(rules, key, middle):
                    return key
                boxed = True
        if not boxed:
            return None
    return None


def _has_columns(rules: Rules, frame: tuple[float, float, float, float], middle: float) -> bool:
    """Whether a wall inside ``frame`` at height ``middle`` runs down half
    its height or more from its top or bottom rule: a column's edge (a
    page's border holds a table's walls, which run down the table alone,
    meeting neither of the border's rules). A wall closer to a side than
    a column could be wide (:data:`_RULE_MIN_LENGTH`) is that side's
    second line: a page's border drawn doubled, 2 pt apart, whose inner
    line runs its whole height, would make the page's border a table and
    hide the tables inside it."""
    left, top, right, bottom = frame
    slack = 2 * _RULE_SLACK
    for wall in _walls(rules, middle, left + _RULE_MIN_LENGTH, right - _RULE_MIN_LENGTH):
        # Its segments' union (a wall drawn twice counts once).
        length, reach, start = 0.0, top, bottom
        for y0, y1 in sorted(
            (max(y0, top), min(y1, bottom))
            for y0, y1, _x in rules.vertical_near(wall, _RULE_SLACK)
            if y1 > top and y0 < bottom
        ):
            start = min(start, y0)
            if y1 > reach:
                length += y1 - max(y0, reach)
                reach = y1
        meets = start <= top + slack or reach >= bottom - slack
        if meets and length >= 0.5 * (bottom - top):
            return True
    return False


def _border(rules: Rules, left: float, middle: float, reach: float) -> tuple[float, float]:
    """How far up and down from ``middle`` the vertical rules within
    ``reach`` of x = ``left`` run, chained end to end."""
    border = sorted(
        (y0, y1) for y0, y1, _x in rules.vertical_near(left, reach)
    )
    top = bottom = middle
    grown = True
    while grown:
        grown = False
        for y0, y1 in border:
            if y0 - _RULE_SLACK <= bottom and y1 + _RULE_SLACK >= top and (y0 < top or y1 > bottom):
                top, bottom, grown = min(top, y0), max(bottom, y1), True
    return top, bottom


def _closed(rules: Rules, left: float, right: float, top: float, bottom: float) -> bool:
    """Rules across the whole width ``left``..``right`` at ``top`` and
    ``bottom`` (drawn whole or cell by cell), and a right border as tall as
    the left: drawn all the way, but for a row whose cells have no right
    edge drawn (see :func:`_walled_off`)."""
    return all(
        _covers(
            [(x0, x1) for x0, x1, _y in rules.horizontal_near(edge, 2 * _RULE_SLACK)],
            left, right,
        )
        for edge in (top, bottom)
    ) and _walled_off(rules, right, top, bottom)


def _walled_off(rules: Rules, right: float, top: float, bottom: float) -> bool:
    """Whether the vertical rules at ``right`` run from ``top`` to ``bottom``
    (joined end to end, a little slack), each gap between them lying between
    two rules that end at ``right``: the table's right border, with a row whose
    cells were drawn without their right edge (Word's "Treatment | Allopathy,
    AYUSH", a cell merged across the plans). A wall inside a table, broken
    where a merged cell runs across it, is none: the rules at its gap run on."""
    slack = 2 * _RULE_SLACK
    ends: list[float] = []  # the heights of the rules that end at the border, once needed

    def bridged(low: float, high: float) -> bool:
        if not ends:
            ends.extend(y for x0, x1, y in rules.joined_horizontal if abs(x1 - right) <= slack)
        return any(abs(y - low) <= slack for y in ends) and any(
            abs(y - high) <= slack for y in ends
        )

    reach = top
    for low, high in sorted(
        (y0, y1) for y0, y1, _x in rules.vertical_near(right, _RULE_SLACK)
        if y1 > top and y0 < bottom
    ):
        if low - slack > reach and not bridged(reach, low):
            return False
        reach = max(reach, high)
    return reach >= bottom - slack or bridged(reach, bottom)


def _bands(frame: tuple[float, float, float, float], rules: Rules) -> list[float]:
    """The heights of the rules that part the rows of the grid ``frame``:
    across half of it or more (the edge of a shaded line in a wide cell is
    no rule), from its border or a wall that runs on above
    and below the rule to another (a rule under a link's words ends inside
    its cell; the top of a box drawn around a note inside a cell ends at the
    box's sides, which run down from it only)."""
    left, top, right, bottom = frame
    width = right - left
    slack = 2 * _RULE_SLACK

    def at_wall(x: float, y: float) -> bool:
        walls = [(y0, y1) for y0, y1, _at in rules.vertical_near(x, slack)]
        return x <= left + slack or x >= right - slack or (
            any(y0 < y - slack <= y1 for y0, y1 in walls)
            and any(y0 <= y + slack < y1 for y0, y1 in walls)
        )

    return sorted({
        round(y, 1) for x0, x1, y in rules.joined_horizontal
        if top - _RULE_SLACK <= y <= bottom + _RULE_SLACK
        and min(x1, right) - max(x0, left) >= 0.5 * width
        and at_wall(x0, y) and at_wall(x1, y)
    })


def _read_grid(
    frame: tuple[float, float, float, float], inside: list[Line], rules: Rules,
    *, one_row_bands: bool = False,
) -> list[Block] | None:
    """The rows of the grid ``frame`` (see :func:`_grid`) as blocks, each of
    the lines ``inside`` it in its cell; None when the grid has fewer than
    :data:`_MIN_ROWS` horizontal rules (but for a box whose one band is lists
    side by side, :func:`_lists_side_by_side`), or a wall crosses a glyph, or
    (``one_row_bands``) a band is neither rows of values (:func:`_stacked`)
    nor one row: one cell, or a cell of a single line beside cells that are
    no rows of values, no cell holding lines side by side or a rule between
    its lines. A wall is a
    vertical rule that runs down the whole band of a line's row: the edge of
    a box drawn around a word or a marker inside a cell is none."""
    left, top, right, bottom = frame
    bands = _bands(frame, rules)
    # A box ruled only at its top and bottom is read by its walls only where
    # its one band is lists side by side (a label's endogenous factors in
    # three columns); else it may be anything a frame holds.
    one_band = len(bands) == _MIN_ROWS - 1
    if len(bands) < _MIN_ROWS and not one_band:
        return None
    segments: dict[int, list[tuple[float, float]]] = {}
    for y0, y1, at in rules.vertical:
        if left + _RULE_SLACK < at < right - _RULE_SLACK:
            segments.setdefault(round(at), []).append((y0, y1))

    # Whether a wall runs down a band, asked once a band (a row's lines share it).
    covering: dict[tuple[int, float, float], bool] = {}

    def walls(line: Line) -> list[float]:
        y = (line.y0 + line.y1) / 2
        above = max((at for at in bands if at <= y), default=top)
        below = min((at for at in bands if at > y), default=bottom)
        # A wall drawn row by row has hairline breaks where its pieces meet
        # (NICE's summaries: 0.5 pt); a line whose middle falls in one is
        # still between the walls, so the slack _covers allows.
        found = []
        for at, spans in segments.items():
            if any(y0 - 2 * _RULE_SLACK <= y <= y1 + 2 * _RULE_SLACK for y0, y1 in spans):
                key = (at, above, below)
                if key not in covering:
                    covering[key] = _covers(spans, above, below)
                if covering[key]:
                    found.append(float(at))
        return sorted(found)

    # A line that runs across a wall between two words is two cells' text
    # that MuPDF read as one line ("Halothane with Vaporiser | Anaesthetics"):
    # cut there. One whose glyphs a wall crosses is prose set over the grid,
    # which is no cell.
    pieces: list[tuple[Line, list[float]]] = []
    for line in inside:
        line_walls = walls(line)
        across = [
            at for at in line_walls if line.x0 + _RULE_SLACK < at < line.x1 - _RULE_SLACK
        ]
        cut = _cut_at_walls(line, across) if across else [line]
        if cut is None:
            return None
        pieces.extend((part, line_walls) for part in cut)
    cells: dict[tuple[int, int, int, int], list[Line]] = {}
    placed: list[tuple[Line, int, int, float, float]] = []  # band, column, cell top, below
    for line, line_walls in pieces:
        y, x = (line.y0 + line.y1) / 2, (line.x0 + line.x1) / 2
        # The line's cell starts at the nearest rule above it across its
        # column: a cell merged over several bands (its text centred in
        # them) goes with the first. A rule across the column runs from
        # wall to wall: one under a few words (an underline) is no cell's
        # edge, and a merged cell's last lines under it stay in the cell.
        cell_x0 = max((at for at in line_walls if at < x), default=left)
        cell_x1 = min((at for at in line_walls if at > x), default=right)
        cell_top = max(
            (at for x0, x1, at in rules.joined_horizontal
             if top - _RULE_SLACK <= at < y
             and x0 <= cell_x0 + 2 * _RULE_SLACK and x1 >= cell_x1 - 2 * _RULE_SLACK),
            default=top,
        )
        band = sum(1 for at in bands if at <= cell_top + _RULE_SLACK)
        column = sum(1 for at in line_walls if at < x)
        below = min((at for at in bands if at > y), default=bottom)
        placed.append((line, band, column, cell_top, below))
    # Under a merged head's rule inside the band, heads of its own side by
    # side, walled apart from that rule down: where one of them runs over
    # several lines ("Anticipated absolute effects" over "Risk with CBT |
    # Risk with Network / Support (AA / attendance)"), each is a cell of its
    # own, after the merged head, left to right, so that its lines read
    # together. Heads of one line each read across, as a level of heads
    # ("DLHS-4 (2012-13)" over "TOTAL | RURAL"). A wall with a head on
    # either side: a shaded line's edges are no wall.
    subs: dict[tuple[int, int, float], dict[int, list[Line]]] = {}
    spread: dict[tuple[int, int, float], tuple[float, float]] = {}  # the lines' middles' range
    for line, band, column, cell_top, _below in placed:
        x = (line.x0 + line.x1) / 2
        low, high = spread.get((band, column, cell_top), (x, x))
        spread[band, column, cell_top] = (min(low, x), max(high, x))
    for line, band, column, cell_top, below in placed:
        x = (line.x0 + line.x1) / 2
        low, high = spread[band, column, cell_top]
        under = [] if any(abs(at - cell_top) <= _RULE_SLACK for at in bands) else [
            at for at, spans in segments.items()
            if low < at < high
            and any(abs(y0 - cell_top) <= 2 * _RULE_SLACK for y0, _y1 in spans)
            and _covers(spans, cell_top, below)]
        if under:
            subs.setdefault((band, column, cell_top), {}).setdefault(
                sum(1 for at in under if at < x), []).append(line)
        else:
            cells.setdefault((band, column, 0, 0), []).append(line)
    for (band, column, _top), heads in subs.items():
        if any(len(_baselines(lines)) > 1 for lines in heads.values()):
            for sub, lines in heads.items():
                cells.setdefault((band, column, 1, sub), []).extend(lines)
        else:
            cells.setdefault((band, column, 0, 0), []).extend(
                line for lines in heads.values() for line in lines)

    def ruled_apart(stack: list[list[Line]]) -> bool:
        """Whether a rule runs between two lines of a cell, under all its
        text: two cells one over the other whose rule stops short of the
        band (two rows of a column beside a cell merged down both)."""
        x0 = min(ln.x0 for baseline in stack for ln in baseline)
        x1 = max(ln.x1 for baseline in stack for ln in baseline)
        for above, below in pairwise(stack):
            low = max(ln.y1 for ln in above) - _RULE_SLACK
            high = min(ln.y0 for ln in below) + _RULE_SLACK
            if any(low <= at <= high and start <= x0 + _RULE_SLACK and end >= x1 - _RULE_SLACK
                   and not heads_under(at, x0, x1)
                   for start, end, at in rules.horizontal_near((low + high) / 2, (high - low) / 2)):
                return True
        return False

    def heads_under(at: float, x0: float, x1: float) -> bool:
        """Whether walls run down from the rule at ``at`` between ``x0`` and
        ``x1``: a merged head over heads of its own of one line each, side
        by side under it ("Amortizaciones" over "Al Inicio | Del Ejercicio |
        Del revaluo | Al Cierre"), one row of heads and not two cells."""
        return any(x0 < wall < x1 and abs(start - at) <= 2 * _RULE_SLACK
                   for start, _end, wall in rules.vertical)

    bands_cells: dict[int, list[list[list[Line]]]] = {}
    for (band, *_column), cell in sorted(cells.items()):
        bands_cells.setdefault(band, []).append(_baselines(cell))
    blocks = []
    for _band, stacks in sorted(bands_cells.items()):
        stacked = _stacked(stacks)
        gapped = None if stacked else _rows_with_gaps(stacks)
        if gapped is not None:
            # Rows of values, some cells left blank: each line across its row.
            blocks.extend(block_of(row) for row in gapped)
            continue
        heads = one_band and _heads_row(stacks)
        if one_band and not heads and not _lists_side_by_side(stacks):
            return None
        if one_row_bands and not stacked and len(stacks) > 1:
            # Not one row: cells all of several lines (rows with no rules
            # between them), but for lists side by side ("5-lipoxygenase
            # Inhibitor | Antiplatelet Drugs | Leukotriene Receptor
            # Antagonist", read each down); rows of values beside a label
            # centred on them ("Single | DPR 78.4 | BM25 + DPR 79.4"),
            # though a row's few cells of two lines ("LANVEOC-POUL- | MIC"
            # beside a polygon's two) are no rows of values; a cell parted
            # by a rule. Heads whose merged cell stands over heads of its
            # own, side by side under it, the walls between those stopping
            # short of the band ("Äußere Grenze der Gefahrenzone" over
            # "Innenraumanlage | Freiluftanlage"), are one row of heads.
            tall = [stack for stack in stacks if len(stack) > 1]
            if (
                (len(tall) == len(stacks) and not _lists_side_by_side(stacks)
                 and not _cells_of_one_row(stacks))
                or (2 * len(tall) > len(stacks) and _stacked(tall))
                or any(ruled_apart(stack) for stack in tall)
            ):
                return None
        if stacked and not heads:
            # Rows of values that only the frame rules: each line across a row.
            blocks.extend(
                block_of([ln for stack in stacks for ln in stack[k]])
                for k in range(len(stacks[0]))
            )
        else:
            blocks.append(block_of([ln for stack in stacks for line in stack for ln in line]))
    return blocks


def _stacked(stacks: list[list[list[Line]]]) -> bool:
    """Whether a band's cells (each as its baselines) are rows of values
    stacked in one band (a table that rules its frame and not its rows):
    two cells or more, each of the same number of lines, two or more, each
    line level with its neighbours', none after a cell's first opening in
    lower case (a sentence running on in its cell, read whole)."""
    counts = {len(stack) for stack in stacks}
    if len(stacks) < 2 or len(counts) != 1 or counts == {1}:
        return False
    if any(line[0].text[:1].islower() for stack in stacks for line in stack[1:]):
        return False
    for k in range(len(stacks[0])):
        middles = [(stack[k][0].y0 + stack[k][0].y1) / 2 for stack in stacks]
        height = min(ln.y1 - ln.y0 for stack in stacks for ln in stack[k])
        if max(middles) - min(middles) > height / 2:
            return False
    return True


def _rows_with_gaps(stacks: list[list[list[Line]]]) -> list[list[Line]] | None:
    """A band's cells (each as its baselines) as rows of values where some
    cells are left blank (a statement of fixed assets: "Herramientas |
    6.330.849,34 | 0,00 | …" under "Terreno | 3.504.455.430,08 | | 0,00 |
    …", the increases column blank in some rows): each row the lines level
    with one line of the cell with the most, read across. None unless that
    cell has three lines or more, every other line stands level with one of
    its lines and no two of a cell with the same one, each of its lines has
    another beside it (a label's second line alone is the label wrapped),
    and every cell with fewer lines holds values only (each line a figure:
    a cell of words beside it may be a paragraph, which is read whole), in
    half its rows at least (a label centred on a row of several lines,
    "*4" beside "100C>T, / 1846G>A / [4180G>Cg]", is no column with blanks)."""
    spine = max(stacks, key=len)
    if len(spine) < _MIN_ROWS or len(stacks) < 2:
        return None
    middles = [(min(ln.y0 for ln in baseline) + max(ln.y1 for ln in baseline)) / 2
               for baseline in spine]
    height = min(ln.y1 - ln.y0 for baseline in spine for ln in baseline)
    rows: list[list[Line]] = [[] for _ in spine]
    for stack in stacks:
        values = len(stack) < len(spine)
        used: set[int] = set()
        for baseline in stack:
            middle = (min(ln.y0 for ln in baseline) + max(ln.y1 for ln in baseline)) / 2
            k = min(range(len(middles)), key=lambda n: abs(middles[n] - middle))
            if abs(middles[k] - middle) > height / 2 or k in used:
                return None
            if values and (2 * len(stack) < len(spine)
                           or not all(any(c.isdigit() for c in ln.text) for ln in baseline)):
                return None
            used.add(k)
            rows[k].extend(baseline)
    if all(len(stack) == len(spine) for stack in stacks):
        return None  # as many lines in each: rows of values, or not, as _stacked says
    if any(len(row) < 2 for row in rows):
        return None  # a line with nothing beside it: a label wrapped, not a row
    return [sorted(row, key=lambda ln: ln.x0) for row in rows]


# A line that ends by breaking a word: a letter, then a hyphen.
_BROKEN_WORD = re.compile(r"[^\W\d_]-$")


def _cells_of_one_row(stacks: list[list[list[Line]]]) -> bool:
    """Whether a band's cells of several lines each (as their baselines) are
    one row's, not rows with no rules between them: every cell a sentence
    wrapped (each later line opening in lower case: "First, you must meet
    all the rules in this / column."), or heads centred in their columns,
    over different numbers of lines ("Part A. / Rules for Everyone" beside
    "Part C. / Rules if You Don't / Have a Qualifying / Child"). Rows stand
    level across the cells, as many lines in each, a wrapped one aside.
    So are cells as many lines deep where one breaks a word at a line's end
    ("Netz- / Nennspannung / Un(Effektivwert) / kV" beside "Bemessungs-Steh- /
    Blitz-/Schaltstoßspannung / …": a head band, its heads four lines each):
    a row's cell runs on into the next row's no more than a word does."""
    if all(baseline[0].text[:1].islower() for stack in stacks for baseline in stack[1:]):
        return True
    if any(_BROKEN_WORD.search(baseline[-1].text) for stack in stacks for baseline in stack[:-1]):
        return True
    if len({len(stack) for stack in stacks}) == 1:
        return False
    for stack in stacks:
        lines = [(min(ln.x0 for ln in baseline), max(ln.x1 for ln in baseline))
                 for baseline in stack]
        height = min(ln.y1 - ln.y0 for baseline in stack for ln in baseline)
        middles = [(x0 + x1) / 2 for x0, x1 in lines]
        widths = [x1 - x0 for x0, x1 in lines]
        if max(middles) - min(middles) > 0.25 * height or max(widths) - min(widths) < height:
            return False
    return True


def _heads_row(stacks: list[list[list[Line]]]) -> bool:
    """Whether a box's one band is a row of heads, each cell read down: a
    financial statement boxes its heads alone over rows with no rules
    ("RUBROS | APORTES DE LOS SOCIOS | CAPITAL / SOCIAL | … | SUPERAVIT /
    (DEFICIT) / ACUMULADO | TOTALES / al 30-06-2023"). Three cells or more,
    each of at most :data:`_HEAD_LINES` lines, one line to a baseline, some
    of more than one, and every cell's lines centred on one another (a
    head's words set centred in their column; a wrapped cell's lines start
    at one edge, and rows are rows of values, :func:`_stacked`)."""
    if len(stacks) < _MIN_CELLS or not any(len(stack) > 1 for stack in stacks):
        return False
    for stack in stacks:
        if len(stack) > _HEAD_LINES or any(len(baseline) != 1 for baseline in stack):
            return False
        middles = [(baseline[0].x0 + baseline[0].x1) / 2 for baseline in stack]
        height = min(baseline[0].y1 - baseline[0].y0 for baseline in stack)
        if max(middles) - min(middles) > 0.25 * height:
            return False
    return True


def _lists_side_by_side(stacks: list[list[list[Line]]]) -> bool:
    """Whether a band's cells (each as its baselines) are lists side by side,
    not rows of several lines each with no rules between them: each cell of
    three lines or more, not all of one count, starting level, and set line
    under line at one pitch, the same in each (rows would leave a wider gap
    where one ends, or set a short cell's lines level with each row's first)."""
    counts = {len(stack) for stack in stacks}
    if min(counts) < 3 or len(counts) == 1:
        return False
    firsts = [(stack[0][0].y0 + stack[0][0].y1) / 2 for stack in stacks]
    height = min(stack[0][0].y1 - stack[0][0].y0 for stack in stacks)
    if max(firsts) - min(firsts) > height / 2:
        return False
    usual = []
    for stack in stacks:
        middles = [(baseline[0].y0 + baseline[0].y1) / 2 for baseline in stack]
        pitches = sorted(b - a for a, b in pairwise(middles))
        usual.append(pitches[len(pitches) // 2])
        if pitches[-1] > 1.35 * usual[-1]:
            return False
    # And at one pitch across the cells: a column of answers set level with
    # the first line of each question beside it ("Yes No" every third line)
    # is rows.
    return max(usual) <= 1.25 * min(usual)


def _cut_at_walls(line: Line, walls: list[float]) -> list[Line] | None:
    """``line`` cut where each wall stands in a gap between its characters
    (the blanks at a cut dropped, every glyph kept with its box); None when
    a wall crosses a glyph."""
    boxes = line.boxes
    cuts = []
    for wall in walls:
        # The first character whose middle is right of the wall; none, or
        # the first of all, and the wall crosses the glyph at that end.
        k = next((i for i in range(len(line.text)) if boxes[4 * i] + boxes[4 * i + 2] > 2 * wall),
                 len(line.text))
        if k in (0, len(line.text)):
            return None
        left = k - 1
        while left > 0 and line.text[left].isspace():
            left -= 1
        right = k
        while right < len(line.text) - 1 and line.text[right].isspace():
            right += 1
        if boxes[4 * left + 2] > wall + _RULE_SLACK or boxes[4 * right] < wall - _RULE_SLACK:
            return None
        cuts.append(k)
    parts = []
    for start, end in pairwise([0, *cuts, len(line.text)]):
        while start < end and line.text[start].isspace():
            start += 1
        while end > start and line.text[end - 1].isspace():
            end -= 1
        if start < end:
            part = boxes[4 * start : 4 * end]
            parts.append(Line(line.text[start:end], part, min(part[0::4]), min(part[1::4]),
                              max(part[2::4]), max(part[3::4]), line.horizontal))
    return parts


def _frame(region: _Region, rules: Rules) -> tuple[float, float, float, float] | None:
    """The closed frame of rules (x0, y0, x1, y1) around the region's first
    row of cells, with :data:`_MIN_CELLS` walls or more across that row: the
    widest that closes, the region's own width first on the right (a table
    beside a column of prose shares its region, not its frame)."""
    first = next(row for row in region.rows if row.tabular)
    middle = (first.y0 + first.y1) / 2
    crossing = sorted(x for y0, y1, x in rules.vertical if y0 <= middle <= y1)
    lefts = [x for x in crossing if x <= first.pieces[0].x0 + _RULE_SLACK]
    # The farthest left border that closes first: a column whose cells each
    # span several rows (a group's number) lies outside the region's lines
    # but inside its grid.
    for left in lefts:
        frame = _closed_from(region, rules, crossing, left, middle)
        if frame is not None:
            return _widened(frame, rules, crossing)
    return None


def _widened(
    frame: tuple[float, float, float, float], rules: Rules, crossing: list[float]
) -> tuple[float, float, float, float]:
    """``frame`` carried on right to the farthest wall of ``crossing`` where
    it still closes at its own top and bottom: columns of paragraphs beside
    the region's rows (a risk table's comments, which MuPDF gives as
    paragraphs, not lines of cells), framed by the same rules. A column of
    prose beside a table is outside its rules."""
    left, top, right, bottom = frame
    for x in crossing:
        if x > right + _RULE_SLACK and _closed(rules, left, x, top, bottom):
            right = x
    return left, top, right, bottom


def _closed_from(
    region: _Region, rules: Rules, crossing: list[float], left: float, middle: float
) -> tuple[float, float, float, float] | None:
    """The widest closed frame whose left border is the rule at ``left``."""
    beyond = [x for x in crossing if x >= region.x1 - _RULE_SLACK][:1]
    within = [x for x in reversed(crossing) if left < x < region.x1 - _RULE_SLACK]
    rights = list(takewhile(
        lambda right: sum(1 for x in crossing if left <= x <= right) >= _MIN_CELLS,
        beyond + within,
    ))
    # Closed: rules across its whole width at its top and bottom (drawn
    # whole or cell by cell), and its right border as tall as its left.
    return _frame_from(rules, left, rights, middle)


def _covers(segments: list[tuple[float, float]], start: float, end: float) -> bool:
    """Whether ``segments`` joined end to end (a little slack) run from ``start`` to ``end``."""
    reach = start
    for low, high in sorted(segments):
        if low - 2 * _RULE_SLACK <= reach:
            reach = max(reach, high)
    return reach >= end - 2 * _RULE_SLACK


def _by_baseline(lines: list[Line]) -> list[Line]:
    """A cell's lines top to bottom, those on one baseline left to right."""
    return [ln for baseline in _baselines(lines) for ln in baseline]


def _baselines(lines: list[Line]) -> list[list[Line]]:
    """A cell's lines as baselines top to bottom, each left to right. A
    line joins a baseline when its middle is within half a height of the
    baseline's shortest line (a bullet's box, twice a line's height, would
    otherwise chain the next bullet onto its line)."""
    baselines: list[tuple[Line, list[Line]]] = []
    for line in sorted(lines, key=lambda ln: (ln.y0 + ln.y1) / 2):
        if baselines:
            anchor, members = baselines[-1]
            height = min(anchor.y1 - anchor.y0, line.y1 - line.y0)
            if abs((line.y0 + line.y1) - (anchor.y0 + anchor.y1)) / 2 < 0.5 * height:
                members.append(line)
                if line.y1 - line.y0 < anchor.y1 - anchor.y0:
                    baselines[-1] = (line, members)
                continue
        baselines.append((line, [line]))
    return [sorted(members, key=lambda ln: ln.x0) for _anchor, members in baselines]


def _wrapped_in_cells(
    cells: list[_Cell], pieces: list[_Piece], vertical: list[Rule],
    borders: tuple[float, float] | None = None,
) -> bool:
    """Whether each of ``pieces`` lies under one of ``cells`` whose last line
    ends too close to the wall on its right for the piece's first word (and
    a space) to fit there, as far in from that wall as the cell's text is
    from the wall on its left: the cells' text wrapped, each piece its
    cell's next line. A table ruled across but with no walls at its sides
    (the US labels' tables) has ``borders``, the ends of its rules across,
    for a first or last cell's outer wall. False where a cell has no walls
    (nothing to measure the room against)."""
    for piece in pieces:
        cell = _overlapping(cells, piece)
        if cell is None:
            return False
        last = cell.lines[-1]
        middle = (last.y0 + last.y1) / 2
        crossing = [x for y0, y1, x in vertical if y0 <= middle <= y1]
        lefts = [x for x in crossing if x <= cell.x0 + _RULE_SLACK]
        rights = [x for x in crossing if x >= last.x1 - _RULE_SLACK]
        if borders is not None and (lefts or rights):
            left, right = borders
            lefts = lefts or [left] * (left <= cell.x0 + _RULE_SLACK)
            rights = rights or [right] * (right >= last.x1 - _RULE_SLACK)
        if not lefts or not rights:
            return False
        padding = max(0.0, cell.x0 - max(lefts))
        first = piece.lines[0]
        word = len(first.text.split(" ", 1)[0]) or 1
        width = first.boxes[4 * (word - 1) + 2] - first.boxes[0]
        space = 0.25 * (last.y1 - last.y0)
        if last.x1 + space + width <= min(rights) - padding:
            return False
    return True


def _borders(region: _Region, rules: Rules) -> tuple[float, float] | None:
    """The ends of the longest rule across ``region`` (see
    :func:`_rules_across`): its sides, where no wall stands at them."""
    width = region.x1 - region.x0
    across = [
        (x0, x1) for x0, x1, _y in rules.joined_horizontal
        if min(x1, region.x1) - max(x0, region.x0) >= 0.5 * width
    ]
    return max(across, key=lambda ends: ends[1] - ends[0]) if across else None


def _under_cells(cells: list[_Cell], piece: _Piece) -> int:
    """How many of ``cells`` ``piece`` overlaps in x."""
    return sum(1 for cell in cells if min(cell.x1, piece.x1) > max(cell.x0, piece.x0))


def _overlapping(cells: list[_Cell], piece: _Piece) -> _Cell | None:
    """The cell ``piece`` overlaps most in x, if any."""
    best, best_overlap = None, 0.0
    x0, x1 = piece.x0, piece.x1
    for cell in cells:
        # min() and max() spelt out: a row of thirty cells asks this of
        # every piece of every row after it.
        overlap = (cell.x1 if cell.x1 < x1 else x1) - (cell.x0 if cell.x0 > x0 else x0)
        if overlap > best_overlap:
            best, best_overlap = cell, overlap
    return best


def _may_hold_a_table(blocks: list[Block]) -> int:
    """How many pieces a gutter apart, not all of them prose, at least
    :data:`_MIN_ROWS` baselines hold: :data:`_MIN_CELLS` (a table may be
    found from its text), 2 (only a grid of rules can make one a table), or
    0. The cheap test every page takes (no paragraphs, regions or ruling
    lines, which only pages that pass it pay for)."""
    lines = sorted(
        (ln for block in blocks for ln in block.lines if ln.horizontal),
        key=lambda ln: ln.y0 + ln.y1,
    )
    if len(lines) < _MIN_ROWS * 2:
        return 0
    rows = {2: 0, _MIN_CELLS: 0}
    band: list[Line] = []
    top = bottom = 0.0
    for line in (*lines, None):
        if line is not None and band:
            overlap = min(bottom, line.y1) - max(top, line.y0)
            if overlap >= 0.5 * min(bottom - top, line.y1 - line.y0):
                band.append(line)
                continue
        if len(band) >= 2:
            band.sort(key=lambda ln: ln.x0)
            pieces, reach = [[band[0].text]], band[0].x1
            for other in band[1:]:
                if other.x0 - reach > JOIN_GAP_LINES * (other.y1 - other.y0):
                    pieces.append([])
                pieces[-1].append(other.text)
                reach = max(reach, other.x1)
            if len(pieces) >= 2 and not all(is_prose(" ".join(piece)) for piece in pieces):
                rows[2] += 1
                if len(pieces) >= _MIN_CELLS:
                    rows[_MIN_CELLS] += 1
                    if rows[_MIN_CELLS] >= _MIN_ROWS:
                        return _MIN_CELLS
        if line is not None:
            band = [line]
            top, bottom = line.y0, line.y1
    return 2 if rows[2] >= _MIN_ROWS else 0


def _cell_paragraph(block: Block, rows: list[_TextRow], line_height: float) -> bool:
    """Whether the paragraph ``block`` is the next lines of a row's first
    cell: right under a row of cells (a line's gap at most), every line
    inside that cell's column (from its left edge to short of the next
    cell). A question in a checklist whose answers ("Yes / No") sit beside
    its first line only: MuPDF gives its other lines as a paragraph of their
    own, which would end the table there and leave the rest of its rows
    apart. A paragraph under a table runs across its columns, never inside
    the first one alone."""
    top = min(ln.y0 for ln in block.lines)
    x0 = min(ln.x0 for ln in block.lines)
    x1 = max(ln.x1 for ln in block.lines)
    for row in rows:
        # Below the row's middle (boxes of lines set tight overlap), a
        # line's gap at most under its bottom.
        if (
            not row.tabular
            or top <= (row.y0 + row.y1) / 2
            or top - row.y1 > _WRAP_GAP_LINES * line_height
        ):
            continue
        first, after = row.pieces[0], row.pieces[1]
        if first.x0 - line_height <= x0 and x1 < after.x0:
            return True
    return False


def read_tables(blocks: list[Block], line_height: float, rules: RuleSource) -> list[Block]:
    """``blocks`` with every table's lines regrouped into one block per row
    (cells left to right, each cell's lines top to bottom); ``blocks`` itself
    when the page has no table. ``rules(area)`` gives the page's ruling lines
    in and around ``area``; it is called only when the text holds a table."""
    held = _may_hold_a_table(blocks)
    if not held:
        return blocks
    candidates: list[Line] = []
    paragraph_blocks: list[Block] = []
    for block in blocks:
        if _paragraph(block):
            paragraph_blocks.append(block)
        else:
            candidates.extend(block.lines)
    turned = [ln for ln in candidates if not ln.horizontal]
    candidates = [ln for ln in candidates if ln.horizontal]
    text_rows = _text_rows(candidates) if held >= _MIN_CELLS else []
    # A cell's next lines that MuPDF gave as a paragraph are the table's.
    in_cells = [b for b in paragraph_blocks if text_rows
                and _cell_paragraph(b, text_rows, line_height)]
    if in_cells:
        candidates.extend(ln for b in in_cells for ln in b.lines if ln.horizontal)
        paragraph_blocks = [b for b in paragraph_blocks if all(b is not c for c in in_cells)]
        text_rows = _text_rows(candidates)
    paragraphs = [ln for block in paragraph_blocks for ln in block.lines]
    regions = (
        _regions(text_rows, line_height)
        if len(candidates) >= _MIN_ROWS * _MIN_CELLS else []
    )

    def holds_paragraphs(region: _Region) -> bool:
        top, bottom = region.rows[0].y0, region.rows[-1].y1
        return any(
            top <= (ln.y0 + ln.y1) / 2 <= bottom and region.x0 <= (ln.x0 + ln.x1) / 2 <= region.x1
            for ln in paragraphs
        )

    with_paragraphs = {id(region) for region in regions if holds_paragraphs(region)}
    inf = float("inf")
    # The whole page's rules: a grid reaches past the lines that found it
    # (its borders, its rows of paragraphs), and a grid of two columns is
    # found from its rules alone.
    page_rules = rules((-inf, -inf, inf, inf))
    tables: list[Block] = []
    taken: set[int] = set()
    for region in regions:
        holds_a_paragraph = id(region) in with_paragraphs
        if not holds_a_paragraph and _side_by_side(region, page_rules):
            continue  # each grid is read by its rules (see _free_grids)
        boxes = _boxes_side_by_side(region, page_rules, line_height)
        if boxes is not None:
            # Each box down, its paragraphs with it, one box after another.
            for x0, y0, x1, y1 in boxes:
                inside = [
                    ln for ln in candidates + paragraphs
                    if id(ln) not in taken and x0 <= (ln.x0 + ln.x1) / 2 <= x1
                    and y0 <= (ln.y0 + ln.y1) / 2 <= y1
                ]
                if inside:
                    tables.append(block_of(_by_baseline(inside)))
                    taken.update(id(ln) for ln in inside)
            continue
        # A grid of rules around the region is read whole by its rules: where
        # a cell holds paragraphs only the rules tell its rows apart, and a
        # grid may hold paragraphs above or below the region's rows (a label
        # column's cells MuPDF gave as a paragraph, beside rows of values
        # with too few cells to count).
        grid = _grid(region, candidates, paragraphs, page_rules, taken, turned)
        if grid is not None:
            inside, rows = grid
            tables.extend(rows)
            taken.update(id(ln) for ln in inside)
            continue
        if holds_a_paragraph:
            continue  # no grid: read as MuPDF does
        _heads_under_top_rule(region, text_rows, regions, page_rules, line_height)
        _last_lines_over_bottom_rule(region, text_rows, regions, page_rules, line_height)
        rows = _table_rows(region, page_rules, line_height)
        if rows is None:
            continue
        tables.extend(rows)
        taken.update(id(ln) for row in region.rows for p in row.pieces for ln in p.lines)
    for inside, rows in _free_grids(
        [ln for block in blocks for ln in block.lines], page_rules, taken
    ):
        tables.extend(rows)
        taken.update(id(ln) for ln in inside)
    if not taken:
        return blocks
    kept = []
    for block in blocks:
        lines = [ln for ln in block.lines if id(ln) not in taken]
        if len(lines) == len(block.lines):
            kept.append(block)
        elif lines:
            rest = block_of(lines)
            rest.callout = block.callout  # what is left of a callout still is one
            kept.append(rest)
    return kept + tables


def ruling_lines(
    page: object, matrix: _Matrix, area: tuple[float, float, float, float]
) -> Rules:
    """The ruling lines of ``page`` (a pymupdf.Page) on the page as displayed
    (``matrix`` maps unrotated page space there): thin lines and rectangles,
    and the edges of wider rectangles (cell borders, shaded rows). Paths that
    do not reach ``area`` (displayed page) are skipped unread (a chart's
    curves beside a table cost nothing). A piece shorter than a rule counts
    where it carries a rule on, end to end (see :func:`_continuing`)."""
    a, b, c, d, e, f = matrix
    ax0, ay0, ax1, ay1 = area
    slack = 2 * _RULE_SLACK
    horizontal: list[Rule] = []
    vertical: list[Rule] = []
    short_horizontal: list[Rule] = []
    short_vertical: list[Rule] = []

    def add(x0: float, y0: float, x1: float, y1: float) -> None:
        # Both ends mapped to the displayed page, where the direction counts
        # (a page turned 90 degrees turns its vertical lines horizontal).
        px0, py0 = a * x0 + c * y0 + e, b * x0 + d * y0 + f
        px1, py1 = a * x1 + c * y1 + e, b * x1 + d * y1 + f
        width, height = abs(px1 - px0), abs(py1 - py0)
        if height <= RULE_THICKNESS and width > height:
            rule = (min(px0, px1), max(px0, px1), (py0 + py1) / 2)
            (horizontal if width >= _RULE_MIN_LENGTH else short_horizontal).append(rule)
        elif width <= RULE_THICKNESS and height > width:
            rule = (min(py0, py1), max(py0, py1), (px0 + px1) / 2)
            (vertical if height >= _RULE_MIN_LENGTH else short_vertical).append(rule)

    # Rectangles filled so far (unrotated page space, with their colour), the
    # last painted on top: what lies beside a filled rectangle's edge.
    fills = _Fills()

    def take(path: dict) -> None:  # type: ignore[type-arg]
        px0, py0, px1, py1 = path["rect"]
        qx0, qy0 = a * px0 + c * py0 + e, b * px0 + d * py0 + f
        qx1, qy1 = a * px1 + c * py1 + e, b * px1 + d * py1 + f
        colour = _solid_fill(path)
        if (
            max(qx0, qx1) < ax0 - slack or min(qx0, qx1) > ax1 + slack
            or max(qy0, qy1) < ay0 - slack or min(qy0, qy1) > ay1 + slack
        ):
            if colour is not None:
                for item in path["items"]:
                    if item[0] == "re":
                        fills.add(*item[1], colour)
            return
        for item in path["items"]:
            kind = item[0]
            if kind == "l":
                (x0, y0), (x1, y1) = item[1], item[2]
                add(x0, y0, x1, y1)
            elif kind == "re":
                x0, y0, x1, y1 = item[1]
                if y1 - y0 <= RULE_THICKNESS or x1 - x0 <= RULE_THICKNESS:
                    # A rule drawn as a thin filled rectangle: its middle line.
                    if y1 - y0 <= x1 - x0:
                        add(x0, (y0 + y1) / 2, x1, (y0 + y1) / 2)
                    else:
                        add((x0 + x1) / 2, y0, (x0 + x1) / 2, y1)
                    continue
                for edge, outward in (((x0, y0, x1, y0), (0.0, -1.0)),
                                      ((x0, y1, x1, y1), (0.0, 1.0)),
                                      ((x0, y0, x0, y1), (-1.0, 0.0)),
                                      ((x1, y0, x1, y1), (1.0, 0.0))):
                    if colour is None or not _unseen(edge, outward, colour, fills):
                        add(*edge)
            if colour is not None and kind == "re":
                fills.add(*item[1], colour)

    each_drawing(page, take)
    horizontal += _continuing(short_horizontal, horizontal)
    vertical += _continuing(short_vertical, vertical)
    shown = page.rect  # type: ignore[attr-defined]
    return Rules(*_cut_at_page_edges(horizontal, vertical, shown.width, shown.height))


def _cut_at_page_edges(
    horizontal: list[Rule], vertical: list[Rule], width: float, height: float
) -> tuple[list[Rule], list[Rule]]:
    """The rules cut at the edges of the displayed page (``width`` by
    ``height``), and each edge that two rules or more run across made a rule
    from the first to the last of them. A browser prints a table wider than
    the paper cut at the paper's edge: its rows' rules run off the page and
    its right border is never printed, yet the edge closes its cells as a
    border would; a reader sees the cut table, and pdfplumber, taking the
    cells' unseen edges beyond the page, reads its rows."""
    slack = _RULE_SLACK

    def cut(rules: list[Rule], end: float) -> tuple[list[Rule], list[Rule], list[Rule]]:
        kept: list[Rule] = []
        before: list[Rule] = []  # rules run across the edge at 0
        after: list[Rule] = []  # rules run across the edge at ``end``
        for start, stop, at in rules:
            if start < -slack < slack < stop:
                before.append((start, stop, at))
                start = 0.0
            if start < end - slack < end + slack < stop:
                after.append((start, stop, at))
                stop = end
            kept.append((start, stop, at))
        return kept, before, after

    def edges(crossing: list[Rule], at: float) -> list[Rule]:
        if len(crossing) < 2:
            return []
        return [(min(r[2] for r in crossing), max(r[2] for r in crossing), at)]

    cut_horizontal, off_left, off_right = cut(horizontal, width)
    cut_vertical, off_top, off_bottom = cut(vertical, height)
    return (cut_horizontal + edges(off_top, 0.0) + edges(off_bottom, height),
            cut_vertical + edges(off_left, 0.0) + edges(off_right, width))


def _solid_fill(path: dict) -> tuple[float, ...] | None:  # type: ignore[type-arg]
    """The colour a path fills with, opaque and not stroked (None otherwise)."""
    fill = path.get("fill")
    if path.get("type") != "f" or fill is None or path.get("fill_opacity", 1.0) < 1.0:
        return None
    return tuple(fill)


class _Fills:
    """Rectangles filled so far on a page (unrotated page space, with their
    colour), the last painted on top, and which lies on top at a point.
    Each is filed under the squares of a coarse grid it covers, so a page
    painted with thousands of fills (a shaded table of 2,400 cells took
    0.4 s a page walking back through every fill for each edge) asks only
    the fills of one square. A fill over more squares than a page has (an
    odd matrix, an infinite box) is kept apart and asked every time."""

    _SIDE = 36.0  # points: half an inch
    _MOST_SQUARES = 1024

    def __init__(self) -> None:
        self._squares: dict[tuple[int, int], list[tuple[int, _Fill]]] = {}
        self._large: list[tuple[int, _Fill]] = []
        self._painted = 0

    def add(self, x0: float, y0: float, x1: float, y1: float, colour: tuple[float, ...]) -> None:
        self._painted += 1
        entry = (self._painted, (x0, y0, x1, y1, colour))
        side = self._SIDE
        if not all(map(math.isfinite, (x0, y0, x1, y1))) or (
            (x1 - x0) / side + 1) * ((y1 - y0) / side + 1) > self._MOST_SQUARES:
            self._large.append(entry)
            return
        for i in range(math.floor(x0 / side), math.floor(x1 / side) + 1):
            for j in range(math.floor(y0 / side), math.floor(y1 / side) + 1):
                self._squares.setdefault((i, j), []).append(entry)

    def top_at(self, x: float, y: float) -> tuple[float, ...] | None:
        """The colour of the last fill painted over (x, y), or None (the paper)."""
        best = 0
        colour = None
        # A fill holding the point is filed under the point's square (floor
        # keeps the order of x0 <= x <= x1), so these are all that can hold it.
        candidates = [self._large]
        if math.isfinite(x) and math.isfinite(y):
            square = (math.floor(x / self._SIDE), math.floor(y / self._SIDE))
            candidates.append(self._squares.get(square, []))
        for entries in candidates:
            for painted, (fx0, fy0, fx1, fy1, fill) in reversed(entries):
                if painted <= best:
                    break
                if fx0 <= x <= fx1 and fy0 <= y <= fy1:
                    best, colour = painted, fill
                    break
        return colour


_Fill = tuple[float, float, float, float, tuple[float, ...]]


def _unseen(
    edge: tuple[float, float, float, float],
    outward: tuple[float, float],
    colour: tuple[float, ...],
    fills: _Fills,
) -> bool:
    """Whether the edge of a rectangle filled with ``colour`` (no stroke)
    cannot be seen: beside it, just outside (``outward``), lies the same
    colour, an earlier fill's or the white paper's. A cell shaded line by
    line on top of its own shading in the same colour, or a white box on a
    white cell, draws no line: pdfplumber takes such edges for cell borders
    and parts a cell's lines, a reader does not."""
    x0, y0, x1, y1 = edge
    x = (x0 + x1) / 2 + outward[0] * _RULE_SLACK / 2
    y = (y0 + y1) / 2 + outward[1] * _RULE_SLACK / 2
    beside = fills.top_at(x, y)
    if beside is None:
        beside = (1.0,) * len(colour)  # the paper
    return len(beside) == len(colour) and all(
        abs(p - q) <= 0.01 for p, q in zip(beside, colour, strict=True))


def _continuing(short: list[Rule], rules: list[Rule]) -> list[Rule]:
    """The pieces of ``short`` (each shorter than a rule) that carry a rule of
    ``rules`` on, end to end on its line (directly or through other such
    pieces): a wall drawn cell by cell whose joints at each row's rule are
    pieces of their own (Word's cell borders: a 2.8 pt piece at every
    crossing), which leave the wall in bits no longer joined otherwise. A
    piece on its own (a glyph's stroke, a tick), or in a run of short pieces
    alone (a chart's curve drawn in short steps, thousands on a page of
    figures), stays out."""
    if not short:
        return []
    touch = _RULE_SLACK / 2
    kept: list[Rule] = []
    pieces = sorted([(rule, False) for rule in short] + [(rule, True) for rule in rules],
                    key=lambda piece: (piece[0][2], piece[0][0]))
    # Pieces on one line (their offsets within ``touch`` of the line's first),
    # then runs along it of pieces that meet.
    line: list[tuple[Rule, bool]] = []
    for piece in (*pieces, None):
        if piece is not None and line and piece[0][2] - line[0][0][2] <= touch:
            line.append(piece)
            continue
        line.sort(key=lambda item: item[0][0])
        run: list[tuple[Rule, bool]] = []
        reach = float("-inf")
        for item in (*line, None):
            if item is not None and item[0][0] <= reach + touch:
                run.append(item)
                reach = max(reach, item[0][1])
                continue
            if any(long for _rule, long in run):
                kept.extend(rule for rule, long in run if not long)
            if item is not None:
                run, reach = [item], item[0][1]
        line = [piece] if piece is not None else []
    return kept
