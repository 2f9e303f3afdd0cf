"""Reading order on one page: lines grouped in blocks, blocks in columns.

Internal to :mod:`reviewer.ingestion`: :mod:`~reviewer.ingestion.extract`
reads a page's lines (text and a box per character) and asks this module in
which order to write them and which neighbouring lines share a baseline.
Everything is in points on the page as displayed (origin top-left).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

# A gap at least this wide (points) between block x-ranges separates columns.
_COLUMN_GAP = 6.0
# Blocks whose y-ranges overlap by less than this (points) are separable rows.
_ROW_OVERLAP = 1.0
# Rows further apart than this many line heights are never merged into columns.
_ROW_MERGE_LINES = 2.5
# A running line in the margin is set in type at most this fraction of the
# height of the text beside it.
_SMALLER = 0.85
# Two lines on one baseline are one line of text (joined by a space) only when
# the gap between them is at most this many line heights: a word space is about
# a quarter of one, and MuPDF already starts a new line at a few word spaces.
# A wider gap is a gutter between columns or between table cells.
JOIN_GAP_LINES = 1.0
# A line with at least this many words (of two letters or more) is running
# prose; table cells and form labels have fewer.
PROSE_WORDS = 4
_WORD = re.compile(r"[^\W\d_]{2,}")


@dataclass(slots=True)
class Line:
    text: str
    boxes: list[float]  # 4 per character of text (x0, y0, x1, y1), displayed page
    x0: float
    y0: float
    x1: float
    y1: float
    horizontal: bool  # reads left to right on the displayed page


@dataclass(slots=True)
class Block:
    lines: list[Line]
    x0: float
    y0: float
    x1: float
    y1: float
    # Cut out of a block that held a callout beside its column (see
    # split_columns): the page's blocks are rejoined after reading order.
    callout: bool = False


def block_of(lines: list[Line]) -> Block:
    """A block around ``lines`` (at least one)."""
    return Block(
        lines,
        min([ln.x0 for ln in lines]), min([ln.y0 for ln in lines]),
        max([ln.x1 for ln in lines]), max([ln.y1 for ln in lines]),
    )


def _one_baseline(left: Line, right: Line) -> bool:
    """Two lines on one baseline, the second to the right (at any distance)."""
    if not (left.horizontal and right.horizontal):
        return False
    # min() and max() of two spelt out (the same result, ties and all): this
    # runs for every two lines that follow each other, and a call of either
    # costs more than the rest of the test.
    top, bottom = left.y0, left.y1
    other_top, other_bottom = right.y0, right.y1
    overlap = ((other_bottom if other_bottom < bottom else bottom)
               - (other_top if other_top > top else top))
    height, other_height = bottom - top, other_bottom - other_top
    if other_height < height:
        height = other_height
    return overlap >= 0.5 * height and right.x0 >= left.x1 - 0.5 * height


def side_by_side(left: Line, right: Line) -> bool:
    """Two lines of one block that read as one: on one baseline, the second to
    the right at no more than a few word spaces (not across a gutter)."""
    height, other_height = left.y1 - left.y0, right.y1 - right.y0
    if other_height < height:  # min() spelt out, as in _one_baseline
        height = other_height
    return _one_baseline(left, right) and right.x0 - left.x1 <= JOIN_GAP_LINES * height


# A justified line in a narrow column (a table's comments cell) may stretch
# its word spaces past a line height, and MuPDF cuts it at each: its pieces
# are one line when there are three or more, their gaps within this many line
# heights and within this ratio of each other (one stretch, evenly spread),
# and two other lines of the block, each read whole, run from the same left
# edge to the same right edge (within this many points): a justified
# paragraph (a margin's line numbers, or a heading's, do not make one).
_JUSTIFIED_GAP_LINES = 2.0
_JUSTIFIED_EVEN = 1.35
_JUSTIFIED_EDGE = 1.5


# A line's piece that a producer wrote in a block of its own carries on the
# line it touches: its bottom the line's within this (points), its top too
# but for a raised glyph (a share of the line's height: Dutch ordinals, "2"
# and a raised "e" ending one piece), its start within this of the line's end.
_STRIP_EDGE = 0.2
_STRIP_RAISED = 0.25
_STRIP_GAP = 0.5


def strips_joined(page_lines: list[list[Line]]) -> list[list[Line]]:
    """A page's blocks (as read) with each line that a producer cut into
    pieces, each in a block of its own, made one line again: the pieces
    touch end to start on one bottom (and one top, but for a raised glyph's
    reach: "the 4" and "th Circuit"). UnitedHealthcare's drug list
    (a Xerox print driver's PDF) sets its pages in two strips cut at x = 401,
    through words: "available due to ma" in one block, "rket changes." in
    another, read after the sidebar beside it. Nothing is added between the
    pieces (a word space, where there is one, is in their text). The same
    list when no line is cut so."""
    # Most pages have no line ending where another starts: one set of
    # starts, looked up once a line, tells them apart.
    lefts = {round(line.x0) for lines in page_lines for line in lines}
    if not any(round(line.x1) + d in lefts for lines in page_lines for line in lines
               for d in (-1, 0, 1)):
        return page_lines
    starts: dict[int, list[tuple[int, int]]] = {}  # round(y1): (block, line) of each line
    for b, lines in enumerate(page_lines):
        for k, line in enumerate(lines):
            if line.horizontal:
                starts.setdefault(round(line.y1), []).append((b, k))
    joined: dict[tuple[int, int], tuple[int, int]] = {}  # piece: the piece it carries on

    def next_piece(b: int, line: Line) -> tuple[int, int] | None:
        for key in (round(line.y1) - 1, round(line.y1), round(line.y1) + 1):
            for ob, ok in starts.get(key, ()):
                other = page_lines[ob][ok]
                if (ob != b and abs(other.y1 - line.y1) <= _STRIP_EDGE
                        and abs(other.y0 - line.y0) <= _STRIP_RAISED * (line.y1 - line.y0)
                        and abs(other.x0 - line.x1) <= _STRIP_GAP and other.x1 > line.x1):
                    return ob, ok
        return None

    carried: set[tuple[int, int]] = set()
    for b, lines in enumerate(page_lines):
        for k, line in enumerate(lines):
            if line.horizontal:
                piece = next_piece(b, line)
                if piece is not None and piece not in carried:
                    joined[b, k] = piece
                    carried.add(piece)
    if not joined:
        return page_lines
    # A block whose first line carries on the last line of another runs on
    # from it (a paragraph whose first line a producer cut at a raised
    # marker or ordinal): its other lines follow that block's.
    followed_by = {b: piece[0] for (b, k), piece in joined.items()
                   if k == len(page_lines[b]) - 1 and piece[1] == 0}
    follows = set(followed_by.values())
    kept: dict[int, list[Line]] = {}
    for b, lines in enumerate(page_lines):
        kept[b] = []
        for k, line in enumerate(lines):
            if (b, k) in carried:
                continue
            at = (b, k)
            while at in joined:
                at = joined[at]
                piece = page_lines[at[0]][at[1]]
                line = Line(line.text + piece.text, line.boxes + piece.boxes, line.x0,
                            min(line.y0, piece.y0), piece.x1, max(line.y1, piece.y1), True)
            kept[b].append(line)
    result: list[list[Line]] = []
    for b in range(len(page_lines)):
        if b in follows:
            continue
        lines, at = kept[b], b
        while at in followed_by:
            at = followed_by[at]
            lines = lines + kept[at]
        if lines:
            result.append(lines)
    return result


def join_justified(lines: list[Line]) -> list[Line]:
    """``lines`` (one block's, as read) with the pieces of each justified
    line whose word spaces MuPDF read as gaps joined into one line, a space
    between pieces; the same list when there are none."""
    groups: list[list[Line]] = []
    for line in lines:
        if groups and _one_baseline(groups[-1][-1], line):
            groups[-1].append(line)
        else:
            groups.append([line])
    if all(len(group) < 3 for group in groups):
        return lines
    joined: list[Line] = []
    for group in groups:
        if len(group) >= 3 and _justified(group, groups):
            joined.append(_joined(group))
        else:
            joined.extend(group)
    return joined


def _justified(group: list[Line], groups: list[list[Line]]) -> bool:
    height = min(line.y1 - line.y0 for line in group)
    gaps = [right.x0 - left.x1 for left, right in pairwise(group)]
    if not (min(gaps) > 0 and max(gaps) <= _JUSTIFIED_GAP_LINES * height
            and max(gaps) <= _JUSTIFIED_EVEN * min(gaps)
            and max(gaps) > JOIN_GAP_LINES * height):
        return False
    left, right = group[0].x0, group[-1].x1
    edges = sum(
        1 for other in groups
        if len(other) == 1
        and abs(other[0].x0 - left) <= _JUSTIFIED_EDGE
        and abs(other[-1].x1 - right) <= _JUSTIFIED_EDGE
    )
    return edges >= 2


def _joined(group: list[Line]) -> Line:
    text, boxes = group[0].text, list(group[0].boxes)
    for before, line in pairwise(group):
        # The space spans the gap on the line's height: a glyph's box, as
        # MuPDF gives its spaces one.
        text += " " + line.text
        boxes += [before.x1, min(before.y0, line.y0), line.x0, max(before.y1, line.y1)]
        boxes += line.boxes
    return Line(text, boxes, group[0].x0, min(ln.y0 for ln in group), group[-1].x1,
                max(ln.y1 for ln in group), True)


def is_prose(text: str) -> bool:
    """Running prose: :data:`PROSE_WORDS` words of two letters or more."""
    return len(_WORD.findall(text)) >= PROSE_WORDS


def _continues(previous: Line, line: Line, height: float) -> bool:
    """``line`` carries on from ``previous`` in one column: beside it, or just
    below it with the two overlapping in x."""
    if side_by_side(previous, line):
        return True
    return (
        line.y0 >= previous.y0 + 0.5 * height
        and line.y0 - previous.y1 <= height
        and min(line.x1, previous.x1) > max(line.x0, previous.x0)
    )


def split_columns(block: Block) -> list[Block]:
    """The columns of a block whose prose runs across gutters, as blocks of
    their own; any other block as it is.

    MuPDF sometimes puts the lines of two or three columns (a sidebar, a boxed
    worksheet) in one block, each row's lines one after the other, so a block
    read line by line runs every line on into its neighbour. The rule: when
    lines on one baseline sit a gutter apart (wider than the join gap) and
    most such neighbours are both running prose (several words each), the
    block is columns: its lines are ordered by the same XY cut as the page's
    blocks, with the gutter as the column gap, and cut into blocks wherever a
    line does not carry on from the one before. Otherwise the neighbours are
    table cells or form fields (short, a word or a number or two), whose row
    is the unit a reader quotes: the block keeps its rows.

    Callouts come first. An icon glyph taller than the lines it stands beside
    (with its CAUTION or TIP label) leaves the block for one of its own, read
    after it. A block holding lines of text beside lines of text set on
    another line pitch (:func:`_unaligned_beside`: a note or a sidebar drawn
    in among a column) is cut the same way as columns, at any gap wider than
    a word space. The pieces are marked ``callout`` so that
    :func:`page_order` joins the column's pieces again after reading order.
    """
    lines = block.lines
    if len(lines) < 2:
        return [block]
    height = median([ln.y1 - ln.y0 for ln in lines])
    icons = _icons_beside(lines, height)
    if icons:
        # The icon (and its label) is read after the text it stands beside.
        kept = [ln for ln in lines if id(ln) not in icons]
        aside = block_of([ln for ln in lines if id(ln) in icons])
        aside.callout = True
        parts = split_columns(block_of(kept)) if kept else []
        for part in parts:
            part.callout = True
        return [*parts, aside]
    gutter = JOIN_GAP_LINES * height
    if _unaligned_beside(lines, height):
        # A callout's lines drawn between a column's (MuPDF puts them in
        # one block when the page draws them in order of height): every
        # line on its own, so that the page's reading order sees the gap.
        parts = _cut_lines(lines, height, _BESIDE_GAP * height)
        for part in parts:
            part.callout = True
        return parts
    across = [
        (left, right) for left, right in pairwise(lines)
        if _one_baseline(left, right) and right.x0 - left.x1 > gutter
    ]
    if not across:
        return [block]
    prose = sum(1 for left, right in across if is_prose(left.text) and is_prose(right.text))
    if 2 * prose < len(across):
        return [block]
    return _cut_lines(lines, height, gutter)


# Lines side by side whose tops and bottoms both stand off each other's by
# more than this share of a line's height are not one row's cells (a row's
# cells share a baseline; a subscript moves a line's bottom only). Lists set
# side by side show it block after block, at one gutter and one offset: at
# least this many blocks on a page (a table's heads may stand off level once).
_OFF_LEVEL = 0.15
_LISTS_BESIDE_BLOCKS = 3
# The lists' heads stand within this many lines above their first items.
_LISTS_HEADS_LINES = 4


def lists_beside(page_blocks: list[list[Line]]) -> list[list[Line]]:
    """A page's blocks (as read) with each block that holds a line of each
    of two lists set side by side cut into one block per list.

    UnitedHealthcare's drug list sets two lists of medicines side by side,
    each at its own pitch, and MuPDF takes a line of each at a time, the
    right list's first: "B Arixtra" and "B Arimidex" one block, "g
    Aspirin-Dipyridamole" and "B Aromasin" the next, so the page read the
    lists across, right before left. Such blocks are told by their lines
    side by side a gutter apart, the two off level by one offset
    (:data:`_OFF_LEVEL`), the same gutter and offset in
    :data:`_LISTS_BESIDE_BLOCKS` blocks of the page or more; the page's
    reading order then reads each list down. The same list when there are
    none."""
    keys: list[tuple[int, int] | None] = []
    for lines in page_blocks:
        keys.append(_off_level_pair(lines))
    counted = Counter(key for key in keys if key is not None)
    if not any(n >= _LISTS_BESIDE_BLOCKS for n in counted.values()):
        return page_blocks
    lists = [(k, key) for k, key in enumerate(keys)
             if key is not None and counted[key] >= _LISTS_BESIDE_BLOCKS]
    # The gutter between the lists, and how far down the page they run: a
    # block of lines on either side of it there (the lists' heads, a list's
    # head of two lines beside the other's first item) is cut too.
    pairs = [sorted(page_blocks[k], key=lambda ln: ln.x0) for k, _key in lists]
    gutter = (max(left.x1 for left, _right in pairs), min(right.x0 for _left, right in pairs))
    height = median([ln.y1 - ln.y0 for pair in pairs for ln in pair])
    top = min(ln.y0 for pair in pairs for ln in pair) - _LISTS_HEADS_LINES * height
    bottom = max(ln.y1 for pair in pairs for ln in pair) + height
    cut = {k for k, _key in lists}
    for k, lines in enumerate(page_blocks):
        if (k not in cut and len(lines) > 1 and all(ln.horizontal for ln in lines)
                and top <= min(ln.y0 for ln in lines) and max(ln.y1 for ln in lines) <= bottom
                and all(ln.x1 <= gutter[1] or ln.x0 >= gutter[0] for ln in lines)
                and any(ln.x1 <= gutter[1] for ln in lines)
                and any(ln.x0 >= gutter[0] for ln in lines)):
            cut.add(k)
    result: list[list[Line]] = []
    for k, lines in enumerate(page_blocks):
        if k in cut:
            result.extend([ln] for ln in sorted(lines, key=lambda ln: ln.x0))
        else:
            result.append(lines)
    return result


def _off_level_pair(lines: list[Line]) -> tuple[int, int] | None:
    """For a block of two lines side by side a gutter apart and off level:
    where the right one starts (x, rounded: the right list's edge) and by how
    much it stands off (points, rounded); None otherwise."""
    if len(lines) != 2 or not all(ln.horizontal for ln in lines):
        return None
    left, right = sorted(lines, key=lambda ln: ln.x0)
    if any(sum(c.isalnum() for c in ln.text) < 2 for ln in lines):
        return None  # a bullet and its item: one line of a list
    height = min(left.y1 - left.y0, right.y1 - right.y0)
    common = min(left.y1, right.y1) - max(left.y0, right.y0)
    if right.x0 - left.x1 <= JOIN_GAP_LINES * height or common < 0.5 * height:
        return None
    top, bottom = right.y0 - left.y0, right.y1 - left.y1
    if abs(top) <= _OFF_LEVEL * height or abs(bottom - top) > _OFF_LEVEL * height:
        return None  # level (a row's cells), or a subscript's or a size's difference
    return round(right.x0), round(top)


def _cut_lines(lines: list[Line], height: float, column_gap: float) -> list[Block]:
    """``lines`` in the XY cut's order (columns at least ``column_gap``
    apart), as blocks of lines that carry on from each other."""
    # Lines' boxes (ascent to descent) of one column overlap a little, where
    # blocks' boxes do not; lines on one baseline overlap by half or more.
    gaps = _Gaps(column=column_gap, row_overlap=0.25 * height)
    ordered = reading_order([block_of([ln]) for ln in lines], height, gaps)
    parts: list[list[Line]] = []
    previous: Line | None = None
    for single in ordered:
        line = single.lines[0]
        if previous is not None and _continues(previous, line, height):
            parts[-1].append(line)
        else:
            parts.append([line])
        previous = line
    return [block_of(part) for part in parts]


def median(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


# --------------------------------------------------------------------------
# Reading order: a recursive XY cut that prefers columns


@dataclass(frozen=True, slots=True)
class _Gaps:
    """What separates columns (a gap this wide, points) and rows (overlapping
    by less than this, points)."""

    column: float = _COLUMN_GAP
    row_overlap: float = _ROW_OVERLAP


_BLOCK_GAPS = _Gaps()


def _cuts(blocks: list[Block], *, vertical: bool, gaps: _Gaps) -> list[list[Block]]:
    """Split blocks at gaps in their x-ranges (vertical) or y-ranges."""
    if vertical:
        ordered = sorted(blocks, key=lambda bl: bl.x0)
        groups = [[ordered[0]]]
        reach = ordered[0].x1
        for block in ordered[1:]:
            if block.x0 - reach >= gaps.column:
                groups.append([block])
            else:
                groups[-1].append(block)
            reach = max(reach, block.x1)
        return groups
    ordered = sorted(blocks, key=lambda bl: (bl.y0, bl.x0))
    groups = [[ordered[0]]]
    reach = ordered[0].y1
    for block in ordered[1:]:
        if block.y0 >= reach - gaps.row_overlap:
            groups.append([block])
        else:
            groups[-1].append(block)
        reach = max(reach, block.y1)
    return groups


def _split(blocks: list[Block], line_height: float, gaps: _Gaps) -> list[list[Block]] | None:
    columns = _cuts(blocks, vertical=True, gaps=gaps)
    if len(columns) > 1:
        return columns
    rows = _cuts(blocks, vertical=False, gaps=gaps)
    if len(rows) == 1:
        return None
    # The rows of a two-column stretch split wherever both columns happen to
    # have a gap at the same height; put such neighbours back together so the
    # columns are read whole. Rows separated by a spanning block (a title, a
    # wide figure) cannot merge, because together they have no column gap.
    # Nor can two rows of which neither has blocks side by side: one block
    # under another, in different columns, is no column stretch but a table's
    # tall header cell above the next row's label, read top to bottom.
    merged = [rows[0]]
    for row in rows[1:]:
        gap = min(bl.y0 for bl in row) - max(bl.y1 for bl in merged[-1])
        candidate = merged[-1] + row
        columns = _cuts(candidate, vertical=True, gaps=gaps)
        if (
            gap < _ROW_MERGE_LINES * line_height
            and len(columns) > 1
            and (_side_by_side_in(merged[-1], columns) or _side_by_side_in(row, columns))
            and not _heading_over(merged[-1], row, columns)
            and not _out_of_column(merged[-1], row, line_height)
        ):
            merged[-1] = candidate
        else:
            merged.append(row)
    return merged


def _heading_over(upper: list[Block], lower: list[Block], columns: list[list[Block]]) -> bool:
    """Whether ``upper``, in one column, is printed over two or more of
    ``lower``'s blocks that stand side by side: a title's second line
    centred over a table's heads ("DURING 2012-13" over turned heads), read
    before them, not as the top of one of their columns. A column's own
    block above its next one sits over that one block (the other column's
    blocks are beside it, not under it). A table's row, its cells side by
    side in one block, is no such line: it sits over the next row's cells."""
    if _side_by_side_in(upper, columns):
        return False
    for block in upper:
        if any(min(one.y1, other.y1) > max(one.y0, other.y0)
               for one, other in pairwise(block.lines)):
            continue
        under = sorted(
            (bl for bl in lower if bl.x0 < block.x1 and bl.x1 > block.x0), key=lambda bl: bl.x0
        )
        if any(
            right.x0 >= left.x1 and min(left.y1, right.y1) > max(left.y0, right.y0)
            for left, right in pairwise(under)
        ):
            return True
    return False


def _out_of_column(upper: list[Block], lower: list[Block], line_height: float) -> bool:
    """Whether ``lower``, one block under a stretch of columns (``upper``), is
    a page's running line in its margin: set in smaller type than the
    stretch, out more than a line height left or right of all of it
    ("Reference ID: 5676363" at the foot of a page whose last lines are a
    table's heads). It reads after the stretch, not inside its first
    column. A column's next paragraph, or a note at its foot, keeps inside
    the stretch's width; a wider block in the stretch's type under a narrow
    start of it (a heading beside another column's) is the column's."""
    if len(lower) != 1:
        return False
    (block,) = lower
    size = median([ln.y1 - ln.y0 for bl in upper for ln in bl.lines])
    return max(ln.y1 - ln.y0 for ln in block.lines) < _SMALLER * size and (
        block.x0 < min(bl.x0 for bl in upper) - line_height
        or block.x1 > max(bl.x1 for bl in upper) + line_height
    )


def _side_by_side_in(blocks: list[Block], columns: list[list[Block]]) -> bool:
    """Whether ``blocks`` fall in more than one of ``columns``."""
    ids = {id(bl) for bl in blocks}
    return sum(1 for column in columns if any(id(bl) in ids for bl in column)) > 1


def reading_order(
    blocks: list[Block], line_height: float, gaps: _Gaps = _BLOCK_GAPS
) -> list[Block]:
    """``blocks`` in reading order: columns left to right, each top to bottom."""
    # Iterative, since a page of many small blocks could nest deeper than
    # Python's recursion limit.
    ordered: list[Block] = []
    stack = [blocks]
    while stack:
        group = stack.pop()
        if len(group) <= 1:
            ordered.extend(group)
            continue
        parts = _split(group, line_height, gaps)
        if parts is None:
            # Overlapping blocks with no clean cut: top to bottom, left to right.
            ordered.extend(sorted(group, key=lambda bl: (bl.y0, bl.x0)))
        else:
            stack.extend(reversed(parts))
    return ordered



# --------------------------------------------------------------------------
# Callouts: a boxed note, an icon, a sidebar beside a column


# Lines side by side at least this many line heights apart are not words of
# one line (a word space is about a quarter of one).
_BESIDE_GAP = 0.5
# A note beside a column is set on its own line pitch (a smaller size, its
# own leading), where a table's cells share their rows' pitch: pitches that
# differ by more than this fraction, over at least this many lines on each
# side, are a callout beside a column.
_OTHER_PITCH = 0.1
_CALLOUT_LINES = 3
# Lines whose tops and bottoms are this close (line heights) are one row of
# one size (a table's cells), counted out before anything else: a big
# table's rows would otherwise make many pairs.
_SAME_ROW = 0.05
# More lines than this side by side at one height are a table or a form.
_ABREAST = 6
# An icon drawn as a glyph ("!" in a dingbat font, a pointing hand, a warning
# sign) is at most this many characters, each an exclamation or question mark,
# a symbol (Unicode's "other symbol": dingbats, arrows, signs) or a private-use
# glyph of a symbol font, and this many times taller than the block's lines
# (it stands beside two or more of them). A full stop, a dollar sign, a
# bullet, a check box beside its label, a check mark in a table cell or a glyph
# MuPDF could not decode (U+FFFD: a big bracket of a formula, as often) is none.
_ICON_CHARS = 2
_ICON_TALL = 1.25
_ICON_PUNCTUATION = frozenset("!?\u00a1\u00bf\u203c")
_NOT_ICONS = frozenset("\ufffd\u2713\u2714\u2717\u2718\u25a0\u25a1\u25aa\u25ab\u25cf\u25cb\u25e6")
# The label printed under or beside such an icon belongs to it.
_ICON_LABELS = frozenset({
    "CAUTION", "TIP", "NOTE", "WARNING", "IMPORTANT", "ALERT", "REMINDER", "DANGER",
    "ATTENTION", "INFO", "HINT",
})


def _beside(one: Line, other: Line, height: float) -> bool:
    """Two lines overlapping by half a line or more in height, apart in width
    by more than a word space."""
    return (
        min(one.y1, other.y1) - max(one.y0, other.y0)
        >= 0.5 * min(one.y1 - one.y0, other.y1 - other.y0)
        and (other.x0 - one.x1 >= _BESIDE_GAP * height
             or one.x0 - other.x1 >= _BESIDE_GAP * height)
    )


def _is_icon_char(char: str) -> bool:
    if char in _ICON_PUNCTUATION:
        return True
    return char not in _NOT_ICONS and unicodedata.category(char) in ("So", "Co")


def _is_icon(line: Line) -> bool:
    text = line.text  # stripped by the extractor
    return len(text) <= _ICON_CHARS and line.horizontal and all(map(_is_icon_char, text))


def _icons_beside(lines: list[Line], height: float) -> set[int]:
    """The ids of the icon lines of a block (and their labels) that sit
    beside its text: a glyph or two, no letter or digit, taller than the
    block's lines, next to a line of text."""
    icons = [ln for ln in lines if _is_icon(ln)]
    if not icons:
        return set()
    moved: set[int] = set()
    for icon in icons:
        if icon.y1 - icon.y0 >= _ICON_TALL * height and any(
            other is not icon and not _is_icon(other) and _beside(icon, other, height)
            for other in lines
        ):
            moved.add(id(icon))
    if not moved:
        return moved
    for label in lines:
        if label.text.strip().rstrip(":!") in _ICON_LABELS and any(
            id(icon) in moved
            and min(label.x1, icon.x1) > max(label.x0, icon.x0) - height
            and min(label.y1, icon.y1) > max(label.y0, icon.y0) - height
            for icon in icons
        ):
            moved.add(id(label))
    return moved


def _words(line: Line) -> int:
    return len(_WORD.findall(line.text))


def _pitch(lines: list[Line], height: float) -> float | None:
    """The usual step from one line's top to the next's, among ``lines``
    that follow each other within two line heights; None without two such."""
    tops = sorted(ln.y0 for ln in lines)
    steps = [b - a for a, b in pairwise(tops) if 0 < b - a <= 2 * height]
    return median(steps) if len(steps) >= 2 else None


def _unaligned_beside(lines: list[Line], height: float) -> bool:
    """Whether a block holds lines of text beside other lines of text set on
    another line pitch, several of each: a callout's or a sidebar's lines
    drawn in among a column's. A table's cells beside each other share their
    rows' pitch (a label cell centred beside a longer one is a line, not a
    run of them), as do a form's fields and labels; lines of a word beside a
    number are a formula: none of them counts."""
    if len(lines) < 2 * _CALLOUT_LINES:
        return False
    # Pairs of lines beside each other, top down: a sweep over the lines
    # that still reach down to each one, not all pairs.
    beside: list[tuple[Line, Line]] = []
    active: list[Line] = []
    for line in sorted(lines, key=lambda ln: ln.y0):
        if active:
            active = [ln for ln in active if ln.y1 > line.y0]
            if len(active) > _ABREAST:
                return False  # a table's row or a form: not a column and a note
            beside += [
                (line, other) for other in active
                if (abs(line.y1 - other.y1) > _SAME_ROW * height
                    or abs(line.y0 - other.y0) > _SAME_ROW * height)
                and _beside(line, other, height)
            ]
        active.append(line)
    if len(beside) < _CALLOUT_LINES:
        return False
    # Of those, lines of text (two words or more each side).
    words = {id(ln): _words(ln) for pair in beside for ln in pair}
    left: dict[int, Line] = {}
    right: dict[int, Line] = {}
    prose = False
    for line, other in beside:
        if not (line.horizontal and other.horizontal
                and words[id(line)] >= 2 and words[id(other)] >= 2):
            continue
        first, second = (line, other) if line.x0 < other.x0 else (other, line)
        left[id(first)] = first
        right[id(second)] = second
        prose = prose or max(words[id(line)], words[id(other)]) >= PROSE_WORDS
    if not prose or len(left) < _CALLOUT_LINES or len(right) < _CALLOUT_LINES:
        return False
    left_pitch = _pitch(list(left.values()), height)
    right_pitch = _pitch(list(right.values()), height)
    if left_pitch is None or right_pitch is None:
        return False
    return abs(left_pitch - right_pitch) > _OTHER_PITCH * min(left_pitch, right_pitch)


def _continues_block(before: Block, after: Block) -> bool:
    """``after`` carries on ``before``'s column at its line pitch: the next
    line, same left edge, same size (MuPDF cut the paragraph where a
    callout's lines were drawn in among its own)."""
    last, first = before.lines[-1], after.lines[0]
    if not (last.horizontal and first.horizontal):
        return False
    height = last.y1 - last.y0
    if abs((first.y1 - first.y0) - height) > 0.15 * height or abs(first.x0 - before.x0) > 1.0:
        return False
    step = first.y0 - last.y0
    if len(before.lines) > 1:
        pitch = last.y0 - before.lines[-2].y0
        return pitch > 0 and abs(step - pitch) <= 0.15 * height
    return 0.5 * height < step <= 1.35 * height


def page_order(blocks: list[Block], line_height: float) -> list[Block]:
    """A page's blocks in reading order (:func:`reading_order`). On a page
    where a callout was cut out of a column's block, the column's pieces
    that carry on from each other at the column's line pitch are one block
    again, and so are the callout's: each reads as one paragraph."""
    ordered = reading_order(blocks, line_height)
    if not any(block.callout for block in blocks):
        return ordered
    joined = [ordered[0]]
    for block in ordered[1:]:
        if _continues_block(joined[-1], block):
            joined[-1] = block_of(joined[-1].lines + block.lines)
        else:
            joined.append(block)
    return joined


# --------------------------------------------------------------------------
# Footnote markers: a small raised number on a line of its own


# A marker is at most this many characters: digits, or a footnote sign.
_MARKER = re.compile(r"[0-9]{1,3}|[*\u2020\u2021]{1,2}")
# Its glyphs are at most this fraction of the host line's height (a smaller
# size), and its bottom sits at least this fraction of the host's height above
# the host's bottom (a raised baseline): a digit at the line's size, or small
# on the line's baseline, is a number, not a marker.
_MARKER_HEIGHT = 0.8
_MARKER_RISE = 0.2
# It follows the glyph it belongs to within this fraction of the host's
# height, overlapping neither that glyph nor the next by more than this one.
_MARKER_GAP = 0.3
_MARKER_OVERLAP = 0.15
# A subscript drawn apart from its line ("vitamin K₁", "CO₂" as two text
# objects, which MuPDF reads as a line of its own after the paragraph): one
# or two digits, at most this fraction of the line's height, their middle
# lowered by at least this fraction of it, right after a letter. It goes back
# after that letter in subscript digits.
_SUBSCRIPT = re.compile(r"[0-9]{1,2}")
_SUBSCRIPT_HEIGHT = 0.85
_SUBSCRIPT_DROP = 0.12
SUBSCRIPT_DIGITS = str.maketrans(
    "0123456789", "\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089"
)
# What a marker is glued to: the end of a word, or punctuation after one. A
# small raised digit after a math sign or at a line's start is an exponent,
# an index or a fraction's part, not a marker.
MARKED_BY = re.compile(r"[^\W\d_]|[.,;:)\]\"'\u2019\u201d]")
# Or a number of at least this many digits, other than a power of ten: a year
# or an amount ("in 1976" and a raised "3"; a raised digit after 10 is an
# exponent). Such a marker, and raised digits MuPDF reads into a number's own
# line, are written in superscript digits: the matcher tells them from the
# number by that.
_MARKED_NUMBER_DIGITS = 3
_POWER_OF_TEN = re.compile(r"10+")
SUPERSCRIPT_DIGITS = str.maketrans(
    "0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"
)
# A number glued to a raised one on one line, as MuPDF reads "1976" and a
# smaller "3" printed after it.
_GLUED_DIGITS = re.compile(r"[0-9]{2,}")
# What may close a clause between its last word and a marker: punctuation
# and brackets, then closing quotation marks, then punctuation again
# ("syndrome).", "said.”", "”.", "terrorism.’’": GPO prints a closing double
# quotation as two single ones, and a single one may close inside it, so up
# to three marks).
_CLOSING = r"[.,;:)\]]{0,2}[\"'\u2019\u201d]{0,3}[.,;:)\]]{0,2}"
# Digits MuPDF read into a word's line after it ("TriviaQA" then a smaller,
# raised "6"; "realization" then "3,4"; "gates" then "5–7"): glued to the
# word's last letter, or to closing punctuation ("syndrome).") or a space after it. One to
# three digits, or a list or range of such numbers, as references are printed.
# The pattern only finds candidates: the glyphs' size and rise decide.
_AFTER_WORD_DIGITS = re.compile(
    r"[^\W\d_]" + _CLOSING + r" ?([0-9]{1,3}(?:[,\u2013-][0-9]{1,3}){0,5})(?![0-9])"
)
# Digits MuPDF read into a number's line after closing punctuation or a space
# ("Act, 2023." then a smaller, raised "2"; GPO's "Act of 1965" then a raised
# "8" after a space of the marker's size): a marker after a year or an amount,
# as after a word. Something stands between the two (the lookahead: digits
# glued to the number are ``_GLUED_DIGITS``'s), and only a smaller, raised
# digit is taken: "in 1965 8 states" at the line's size stays two numbers.
_AFTER_NUMBER_DIGITS = re.compile(
    r"(?<![0-9])([0-9]{3,})(?=[^0-9])" + _CLOSING + r" ?"
    r"([0-9]{1,3}(?:[,\u2013-][0-9]{1,3}){0,5})(?![0-9])"
)
# A raised marker may go on past its digits in letters and signs, raised as
# they are: an evidence grade ("syphilis.¹D", "infections;²B+", "GUM.¹A+,²D"
# in NICE's summaries), a footnote "3a". Its digits are written in
# superscript, its letters and signs as printed.
_GRADE_RUN = re.compile(
    r"[0-9]{1,3}(?:[A-Za-z]{1,2}[+-]{0,2}|[+-]{1,2})?"
    r"(?:,[0-9]{1,3}(?:[A-Za-z]{1,2}[+-]{0,2}|[+-]{1,2})?){0,5}"
)
_GRADE_CHARS = frozenset("0123456789+-,ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_GRADE_MAX = 24
# A line worth looking at for either holds a digit (the regex engine finds
# one faster than either pattern).
_A_DIGIT = re.compile(r"[0-9]")


def _marker_at(host: Line, marker: Line) -> int | None:
    """Where in ``host`` the raised, smaller ``marker`` is printed (the
    index it goes in at, glued to the word before it), or None when it is
    no footnote marker of this line."""
    if not host.horizontal or host is marker:
        return None
    height = marker.y1 - marker.y0
    line_height = host.y1 - host.y0
    if not (
        height <= _MARKER_HEIGHT * line_height
        and host.y0 - 0.5 * height <= marker.y0
        and host.y0 < marker.y1 <= host.y1 - _MARKER_RISE * line_height
        and host.x0 < marker.x0 <= host.x1 + _MARKER_GAP * line_height
    ):
        return None
    boxes, text = host.boxes, host.text
    at = _after_glyph_under(host, marker)
    if at == 0 or not (MARKED_BY.fullmatch(text[at - 1]) or _number_before(text, at)):
        return None
    slack = _MARKER_OVERLAP * (marker.x1 - marker.x0)
    before_x1 = boxes[4 * at - 2]
    if not before_x1 - slack <= marker.x0 <= before_x1 + _MARKER_GAP * line_height:
        return None
    if at < len(text) and not text[at].isspace() and boxes[4 * at] < marker.x1 - slack:
        return None  # drawn over the next glyph: a stacked fraction, an accent
    return at


def _after_glyph_under(host: Line, marker: Line) -> int:
    """The index in ``host`` just after its last glyph that starts left of
    ``marker``'s centre, spaces skipped (a space the marker is drawn over
    stays after it): where a raised or lowered marker goes in."""
    boxes, text = host.boxes, host.text
    centre = (marker.x0 + marker.x1) / 2
    at = 0
    while at < len(text) and boxes[4 * at] < centre:
        at += 1
    while at > 0 and text[at - 1].isspace():
        at -= 1
    return at


def _subscript_at(host: Line, marker: Line) -> int | None:
    """Where in ``host`` the lowered, smaller digits ``marker`` are printed
    (the index after the letter they follow: "vitamin K" and a lowered "1",
    "CO" and "2"), or None when they are no subscript of this line."""
    if not host.horizontal or host is marker:
        return None
    height, line_height = marker.y1 - marker.y0, host.y1 - host.y0
    lowered = (marker.y0 + marker.y1) / 2 - (host.y0 + host.y1) / 2
    if not (
        height <= _SUBSCRIPT_HEIGHT * line_height
        and _SUBSCRIPT_DROP * line_height <= lowered <= 0.5 * line_height
        and host.x0 < marker.x0 <= host.x1 + _MARKER_GAP * line_height
    ):
        return None
    boxes, text = host.boxes, host.text
    at = _after_glyph_under(host, marker)
    if at == 0 or not text[at - 1].isalpha():
        return None
    slack = _MARKER_OVERLAP * (marker.x1 - marker.x0)
    if not boxes[4 * at - 2] - slack <= marker.x0 <= boxes[4 * at - 2] + _MARKER_GAP * line_height:
        return None
    if at < len(text) and not text[at].isspace() and boxes[4 * at] < marker.x1 - slack:
        return None
    return at


def _number_before(text: str, at: int) -> bool:
    """Whether ``text[:at]`` ends in a number a footnote marker may follow
    (a year, an amount: three digits or more, other than 10, 100...: a small
    raised digit after those is an exponent)."""
    start = at
    while start > 0 and text[start - 1].isdigit():
        start -= 1
    digits = text[start:at]
    return len(digits) >= _MARKED_NUMBER_DIGITS and not _POWER_OF_TEN.fullmatch(digits)


def _glue(host: Line, marker: Line, at: int, digits: dict[int, str] | None = None) -> None:
    # Its digits in superscript (one character for one), as printed: "1976"
    # and its raised "3" never read as the number 19763, and the matcher
    # knows a superscript glued to a word or a year for a footnote marker
    # (and one after "cm" or "x" for an exponent). A subscript's in
    # subscript digits ("K₁"), which fold to plain ones: an index, never dropped.
    table = SUPERSCRIPT_DIGITS if digits is None else digits
    host.text = host.text[:at] + marker.text.translate(table) + host.text[at:]
    host.boxes = host.boxes[: 4 * at] + marker.boxes + host.boxes[4 * at :]
    # The line keeps its own height (layout compares lines' baselines).
    host.x0, host.x1 = min(host.x0, marker.x0), max(host.x1, marker.x1)


def _small_raised(boxes: list[float], host: int, glyph: int) -> bool:
    """Whether glyph ``glyph`` of a line is smaller than glyph ``host`` and
    raised above its baseline, as a footnote marker is."""
    host_top, host_bottom = boxes[4 * host + 1], boxes[4 * host + 3]
    height = host_bottom - host_top
    top, bottom = boxes[4 * glyph + 1], boxes[4 * glyph + 3]
    return (
        bottom - top <= _MARKER_HEIGHT * height
        and bottom <= host_bottom - _MARKER_RISE * height
        and top >= host_top - 0.5 * (bottom - top)
    )


def _raise_glued_markers(line: Line) -> None:
    """Smaller, raised digits MuPDF read into their line right after a
    number ("1976" then a small raised "3": ``19763``) or a word
    ("TriviaQA" then "6": ``TriviaQA6``, as "CO2" reads) or punctuation
    after a year ("2023." then "2": ``2023.2``), in superscript
    digits (``1976³``, ``TriviaQA⁶``, one character for one): a marker (or
    an exponent, ``10⁶``, ``cm²``), never another number or a name. Whether
    a quote may drop it is the matcher's call (a marker after a year or a
    word, yes; an exponent after 10, a unit or a short word, no)."""
    text, boxes = line.text, line.boxes
    for match in _GLUED_DIGITS.finditer(text):
        start, end = match.span()
        if boxes[4 * end - 1] - boxes[4 * end - 3] > _MARKER_HEIGHT * (
            boxes[4 * start + 3] - boxes[4 * start + 1]
        ):
            continue  # the usual case: the last digit as tall as the first, one number
        for split in range(max(start + 1, end - 3), end):
            if all(_small_raised(boxes, split - 1, k) for k in range(split, end)):
                line.text = text = (
                    text[:split] + text[split:end].translate(SUPERSCRIPT_DIGITS) + text[end:]
                )
                break
    for match in _AFTER_WORD_DIGITS.finditer(text):
        host, start, end = match.start(), match.start(1), match.end(1)
        # The first digit decides most lines cheaply ("CO2", "B12", "page 4").
        if not _small_raised(boxes, host, start):
            continue
        if all(_small_raised(boxes, host, k) for k in range(start + 1, end)):
            end = _raised_grade_end(text, boxes, host, start, end)
            line.text = text = (
                text[:start] + text[start:end].translate(SUPERSCRIPT_DIGITS) + text[end:]
            )
    for match in _AFTER_NUMBER_DIGITS.finditer(text):
        if _POWER_OF_TEN.fullmatch(match[1]):
            continue  # "10." then a raised digit: no year or amount
        host, start, end = match.end(1) - 1, match.start(2), match.end(2)
        if all(_small_raised(boxes, host, k) for k in range(start, end)):
            line.text = text = (
                text[:start] + text[start:end].translate(SUPERSCRIPT_DIGITS) + text[end:]
            )


def _raised_grade_end(text: str, boxes: list[float], host: int, start: int, end: int) -> int:
    """Where the raised marker whose digits are ``text[start:end]`` ends:
    past letters and signs raised with them ("¹D", "²B+,³B-"), up to a
    glyph at the line's size; ``end`` when none follow, or when the raised
    run runs on into a word."""
    stop = end
    while (stop < len(text) and stop - start < _GRADE_MAX and text[stop] in _GRADE_CHARS
           and _small_raised(boxes, host, stop)):
        stop += 1
    if stop == end:
        return end
    grade = _GRADE_RUN.match(text, start, stop)
    if grade is None or grade.end() <= end:
        return end
    after = grade.end()
    if after < len(text) and text[after].isalnum():
        return end  # runs on into a word at the line's size: no grade
    return after


# A line that starts with a marker, then text: MuPDF may cut a printed line
# at a raised marker, the marker beginning the rest of the line
# ("employment loss⏎21 at a single site"), or begin the next line with it.
# A list of markers too ("92,93" for two sources), as a Dutch guideline's
# mPDF output starts the block after a sentence with them.
_LEADING_MARKER = re.compile(r"([0-9]{1,3}(?:,[0-9]{1,3})*|[*\u2020\u2021]{1,2})\s*(?=\S)")
_LEADING_MARKER_START = frozenset("0123456789*\u2020\u2021")


def _leading_marker(line: Line) -> Line | None:
    """The marker at the start of ``line`` as a line of its own, when its
    glyphs are smaller than the line's next glyph and raised above its
    baseline, or sit above it (printed on the line above); else None.
    Where it goes is :func:`_marker_at`'s call, as for any marker."""
    match = _LEADING_MARKER.match(line.text)
    if match is None or not line.horizontal:
        return None
    size, rest = len(match.group(1)), match.end()
    boxes = line.boxes
    if rest >= len(line.text) or line.text[rest].isdigit():
        return None
    next_top, next_bottom = boxes[4 * rest + 1], boxes[4 * rest + 3]
    height = next_bottom - next_top
    if not all(
        boxes[4 * k + 3] - boxes[4 * k + 1] <= _MARKER_HEIGHT * height
        and boxes[4 * k + 3] <= next_bottom - _MARKER_RISE * height
        for k in range(size)
    ):
        return None
    marker_boxes = boxes[: 4 * size]
    return Line(line.text[:size], marker_boxes,
                min(marker_boxes[0::4]), min(marker_boxes[1::4]),
                max(marker_boxes[2::4]), max(marker_boxes[3::4]), True)


def _drop_leading(line: Line, size: int) -> None:
    """``line`` without its first ``size`` characters and the spaces after."""
    rest = size
    while rest < len(line.text) and line.text[rest].isspace():
        rest += 1
    line.text = line.text[rest:]
    line.boxes = line.boxes[4 * rest :]
    line.x0, line.y0 = min(line.boxes[0::4]), min(line.boxes[1::4])
    line.x1, line.y1 = max(line.boxes[2::4]), max(line.boxes[3::4])


# Margin line numbers: at least this many on a page, nearly all one more than
# the one above, their right (or left) edges within this many points.
_LINE_NUMBERS_MIN = 5
_LINE_NUMBERS_ALIGN = 3.0
_LINE_NUMBER = re.compile(r"[0-9]{1,3}")


def margin_line_numbers(blocks: list[list[Line]]) -> list[list[Line]]:
    """A page's margin line numbers (a draft guidance, a bill, pleading
    paper) each a block of its own, out of the blocks they were read into.

    MuPDF puts a number printed a little before its line into the line's
    block when the gap is under a line height (FDA's draft guidances: 15
    points), so the page read ``is not⏎8⏎binding on FDA``. Numbers are
    margin line numbers when all of these hold: each is a line of one to
    three digits alone, standing left of every other line of the page (a
    number elsewhere, the page's own, stays where it is); their right or
    left edges align; there are at least :data:`_LINE_NUMBERS_MIN` of them;
    and, top to bottom, nearly every one (all but one in ten) is one more
    than the one above. A table's row numbers and a numbered list's numbers
    start where the page's text does, not left of it. Blocks left empty are
    dropped; the numbers' blocks come first, top to bottom, as the page's
    reading order puts a column at its left (pleading paper reads so).
    """
    everything = [line for lines in blocks for line in lines]
    numbers = [line for line in everything
               if line.horizontal and _LINE_NUMBER.fullmatch(line.text.strip())]
    if len(numbers) < _LINE_NUMBERS_MIN:
        return blocks
    chosen = {id(line) for line in numbers}
    text_left = min((line.x0 for line in everything
                     if id(line) not in chosen and line.text.strip()), default=None)
    if text_left is None:
        return blocks
    # Left of the text: the page number and a table's numbers stay where they are.
    numbers = [line for line in numbers if line.x1 < text_left]
    if len(numbers) < _LINE_NUMBERS_MIN:
        return blocks
    chosen = {id(line) for line in numbers}
    if (max(line.x1 for line in numbers) - min(line.x1 for line in numbers) > _LINE_NUMBERS_ALIGN
            and max(line.x0 for line in numbers) - min(line.x0 for line in numbers)
            > _LINE_NUMBERS_ALIGN):
        return blocks
    numbers.sort(key=lambda line: line.y0)
    values = [int(line.text) for line in numbers]
    steps = sum(1 for above, below in pairwise(values) if below == above + 1)
    if 10 * steps < 9 * (len(values) - 1):
        return blocks
    kept = [[line for line in lines if id(line) not in chosen] for lines in blocks]
    return [[line] for line in numbers] + [lines for lines in kept if lines]


# A numbered list's number hung before its entry: "61", "3.", "(4)", "[12]";
# its entry starts at most this many line heights to its right.
HUNG_NUMBER = re.compile(r"[(\[]?(\d{1,4})[.)\]]?")
_HUNG_NUMBER_GAP_LINES = 2.0
# A column of such numbers is a list's when it holds this many, counting up
# down the page, at least this share of them one more than the one above
# (OCR misreads a number now and then, or does not read it).
_LIST_NUMBERS_MIN = 3
_LIST_STEPS = 0.75


def numbered_lists_apart(blocks: list[list[Line]], line_height: float) -> list[list[Line]]:
    """The columns of numbered lists set side by side (a paper's references,
    "61  Lundin KE, ..." beside "88  Nachman F, ...") each one block, read
    down, when the page's blocks mix them; ``blocks`` itself otherwise.

    A text layer gives each column a block of its own. Tesseract may not:
    on a scan it reads a band of the page straight across both columns as
    one paragraph (both numbers and the lines beside them), or files the
    hung numbers as a column of their own, apart from their entries; the
    page then reads the two lists interleaved line by line, or all the
    numbers before any entry.

    A list's column: :data:`_LIST_NUMBERS_MIN` hung numbers or more (a line
    that is a number alone, with a line on its baseline starting within
    :data:`_HUNG_NUMBER_GAP_LINES` line heights to its right), aligned,
    counting up down the page. Two such columns or more, out of step
    somewhere (a number in one with none beside it in another: entries run
    over their own numbers of lines); a table's numbered rows keep every
    column in step. A column's lines are those starting between its numbers'
    left edge and the next column's, from its first number down while each
    line follows the one above within a line height."""
    lines = sorted((line for group in blocks for line in group if line.horizontal),
                   key=lambda line: line.y0)
    tops = [line.y0 for line in lines]
    numbers: list[tuple[Line, int]] = []
    entries: dict[int, Line] = {}  # id(number) -> its entry's first line
    for line in lines:
        match = HUNG_NUMBER.fullmatch(line.text.strip())
        if match is None:
            continue
        near = lines[bisect_left(tops, line.y0 - line_height):bisect_left(tops, line.y1)]
        entry = min((other for other in near if other is not line and _one_baseline(line, other)
                     and other.x0 - line.x1 <= _HUNG_NUMBER_GAP_LINES * line_height),
                    key=lambda other: other.x0, default=None)
        if entry is not None:
            numbers.append((line, int(match.group(1))))
            entries[id(line)] = entry
    columns: list[list[tuple[Line, int]]] = []
    for number in sorted(numbers, key=lambda pair: pair[0].x0):
        if columns and number[0].x0 - columns[-1][0][0].x0 <= line_height:
            columns[-1].append(number)
        else:
            columns.append([number])
    lists = []
    for found in columns:
        values = [value for _, value in sorted(found, key=lambda pair: pair[0].y0)]
        ones = sum(1 for above, below in pairwise(values) if below == above + 1)
        if (len(values) >= _LIST_NUMBERS_MIN and all(b > a for a, b in pairwise(values))
                and ones >= _LIST_STEPS * (len(values) - 1)):
            lists.append([line for line, _ in found])
    if len(lists) < 2 or not any(
        not any(_one_baseline(number, other) or _one_baseline(other, number) for other in others)
        for column in lists for others in lists if others is not column for number in column
    ):
        return blocks
    starts = [min(number.x0 for number in column) - 0.5 * line_height for column in lists]
    owner: dict[int, int] = {}  # id(line) -> the list's column it reads in
    for k, (column, start) in enumerate(zip(lists, starts, strict=True)):
        end = min((s for s in starts if s > start), default=float("inf"))
        inside = [line for line in lines if start <= line.x0 < end]
        first = min(number.y0 for number in column)
        bottom: float | None = None
        for line in inside:
            if line.y1 <= first:
                continue
            if bottom is not None and line.y0 - bottom > line_height:
                break
            owner[id(line)] = k
            bottom = line.y1 if bottom is None else max(bottom, line.y1)
    # Only where a block mixes two lists, or a number stands in another
    # block than its entry.
    block_of_line = {id(line): k for k, group in enumerate(blocks) for line in group}
    if not any(
        len({owner[id(line)] for line in group if id(line) in owner}) > 1 for group in blocks
    ) and all(block_of_line[id(number)] == block_of_line[id(entries[id(number)])]
              for column in lists for number in column):
        return blocks
    kept = [[line for line in group if id(line) not in owner] for group in blocks]
    read_down: list[list[Line]] = []
    for k in range(len(lists)):
        down = sorted((line for line in lines if owner.get(id(line)) == k),
                      key=lambda line: (line.y0 + line.y1) / 2)
        # Row by row (a number and its entry's line share one), left to right.
        rows: list[list[Line]] = []
        for line in down:
            if rows and (line.y0 + line.y1) / 2 - (rows[-1][0].y0 + rows[-1][0].y1) / 2 \
                    <= 0.5 * line_height:
                rows[-1].append(line)
            else:
                rows.append([line])
        read_down.append([])
        for row in rows:
            row.sort(key=lambda ln: ln.x0)
            if (len(row) > 1 and HUNG_NUMBER.fullmatch(row[0].text.strip())
                    and row[1].x0 - row[0].x1 <= _HUNG_NUMBER_GAP_LINES * line_height):
                # The number and its entry's first line one line, as they
                # are quoted: the column then reads as the paragraph it is
                # (a table's rows have cells side by side, a list never).
                row[:2] = [_joined(row[:2])]
            read_down[-1].extend(row)
    return [group for group in kept if group] + read_down


def attach_markers(blocks: list[list[Line]], line_height: float) -> list[list[Line]]:
    """Footnote markers put back into the line they are printed on.

    MuPDF starts a new line (or block) for glyphs on another baseline, so a
    raised, smaller "3" after "Act" reads on a line of its own after the
    text around it (``Act to create⏎3⏎four new``), or at the start of the
    next line (``Act⏎3to create``). A marker (one to three digits or a
    footnote sign), smaller than a line it sits on, with its bottom raised
    above that line's, and right after a word or punctuation of it, joins
    that line there, glued to the word before it, in superscript digits
    (``Act³ to create``, ``1976³``), and so are raised, smaller digits MuPDF
    read into the line of the word or number they follow (``TriviaQA6``,
    ``19763``): the matcher takes a superscript glued to a word or a year as
    a footnote marker a quote may keep, drop or space off, where a digit at
    the line's size is a number.
    ``line_height`` is the page's usual line height: only a line shorter than
    it can be a marker, which keeps the columns of numbers in a table cheap.
    Blocks left empty are dropped.
    """
    limit = _MARKER_HEIGHT * line_height
    # Comprehensions, not a loop of statements: this looks at every line.
    candidates = [
        line for lines in blocks for line in lines
        if line.horizontal and line.y1 - line.y0 <= limit and _MARKER.fullmatch(line.text)
    ]
    # A subscript is compared with its host line, not the page's usual one
    # (a subscript in a larger heading's line may be taller than a text line).
    sub_limit = 1.5 * line_height
    subscripts = [
        line for lines in blocks if len(lines) == 1 for line in lines
        if line.horizontal and line.y1 - line.y0 <= sub_limit
        and _SUBSCRIPT.fullmatch(line.text)
    ]
    # A digit, and a glyph whose bottom stands above the line's: both tests
    # in C, so that a line of one baseline costs little. (A raised marker's
    # bottom is a fifth of its host's height up, and the line is at most half
    # a marker taller than its host: a tenth of the line's height is safe.)
    for line in [
        ln for lines in blocks for ln in lines
        if _A_DIGIT.search(ln.text)
        and min(ln.boxes[3::4]) < ln.y1 - _MARKER_RISE / 2 * (ln.y1 - ln.y0)
    ]:
        _raise_glued_markers(line)
    # A leading marker is smaller than its line: a cheap test first.
    leading = [
        (marker, line) for lines in blocks for line in lines
        if line.text[0] in _LEADING_MARKER_START
        and line.boxes[3] - line.boxes[1] <= _MARKER_HEIGHT * (line.y1 - line.y0)
        and (marker := _leading_marker(line)) is not None
    ]
    if not candidates and not leading and not subscripts:
        return blocks
    everything = [line for lines in blocks for line in lines]
    moved: set[int] = set()
    # Hosts by their tops: a subscript's host starts above it, within a
    # line's height or two (a page of table cells has many candidates).
    by_top = sorted(everything, key=lambda ln: ln.y0)
    tops = [ln.y0 for ln in by_top]
    for marker in subscripts:
        first = bisect_left(tops, marker.y0 - 2 * line_height)
        for host in by_top[first : bisect_left(tops, marker.y0)]:
            if id(host) in moved:
                continue
            at = _subscript_at(host, marker)
            if at is not None:
                _glue(host, marker, at, SUBSCRIPT_DIGITS)
                moved.add(id(marker))
                break
    for marker in candidates:
        for host in everything:
            if id(host) in moved:
                continue
            at = _marker_at(host, marker)
            if at is not None:
                _glue(host, marker, at)
                moved.add(id(marker))
                break
    rejoined = False
    for marker, line in leading:
        for host in everything:
            if host is line or id(host) in moved:
                continue
            at = _marker_at(host, marker)
            if at is not None:
                _glue(host, marker, at)
                _drop_leading(line, len(marker.text))
                rejoined = _rejoin(blocks, host, line) or rejoined
                break
    if not moved and not rejoined:
        return blocks
    kept = [[ln for ln in lines if id(ln) not in moved] for lines in blocks]
    return [lines for lines in kept if lines]


def _rejoin(blocks: list[list[Line]], host: Line, line: Line) -> bool:
    """When MuPDF cut a printed line at its marker, ending one block with
    the host and starting the next with the rest of the line (``loss`` and
    ``21 at a single site``), the two blocks are one paragraph again: the
    rest of the line sits beside the host on its baseline. Empties the
    second block (the caller drops it); whether it did."""
    if not side_by_side(host, line):
        return False
    first = next((lines for lines in blocks if lines and lines[-1] is host), None)
    second = next((lines for lines in blocks if lines and lines[0] is line), None)
    if first is None or second is None or first is second:
        return False
    first.extend(second)
    second.clear()
    return True
