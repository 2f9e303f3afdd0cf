"""Reading order on one page: lines grouped in blocks, blocks in columns.

Internal to :mod:`reviewer.ingestion`: :mod:`~reviewer.ingestion.extract`
reads a page's lines (text and a box per character) and asks this module in
which order to write them and which neighbouring lines share a baseline.
Everything is in points on the page as displayed (origin top-left).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

# A gap at least this wide (points) between block x-ranges separates columns.
_COLUMN_GAP = 6.0
# Blocks whose y-ranges overlap by less than this (points) are separable rows.
_ROW_OVERLAP = 1.0
# Rows further apart than this many line heights are never merged into columns.
_ROW_MERGE_LINES = 2.5


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


def block_of(lines: list[Line]) -> Block:
    """A block around ``lines`` (at least one)."""
    return Block(
        lines,
        min([ln.x0 for ln in lines]), min([ln.y0 for ln in lines]),
        max([ln.x1 for ln in lines]), max([ln.y1 for ln in lines]),
    )


def side_by_side(left: Line, right: Line) -> bool:
    """Two lines of one block on one baseline, the second to the right."""
    if not (left.horizontal and right.horizontal):
        return False
    overlap = min(left.y1, right.y1) - max(left.y0, right.y0)
    height = min(left.y1 - left.y0, right.y1 - right.y0)
    return overlap >= 0.5 * height and right.x0 >= left.x1 - 0.5 * height


def median(values: Sequence[float]) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


# --------------------------------------------------------------------------
# Reading order: a recursive XY cut that prefers columns


def _cuts(blocks: list[Block], *, vertical: bool) -> list[list[Block]]:
    """Split blocks at gaps in their x-ranges (vertical) or y-ranges."""
    if vertical:
        ordered = sorted(blocks, key=lambda bl: bl.x0)
        groups = [[ordered[0]]]
        reach = ordered[0].x1
        for block in ordered[1:]:
            if block.x0 - reach >= _COLUMN_GAP:
                groups.append([block])
            else:
                groups[-1].append(block)
            reach = max(reach, block.x1)
        return groups
    ordered = sorted(blocks, key=lambda bl: (bl.y0, bl.x0))
    groups = [[ordered[0]]]
    reach = ordered[0].y1
    for block in ordered[1:]:
        if block.y0 >= reach - _ROW_OVERLAP:
            groups.append([block])
        else:
            groups[-1].append(block)
        reach = max(reach, block.y1)
    return groups


def _split(blocks: list[Block], line_height: float) -> list[list[Block]] | None:
    columns = _cuts(blocks, vertical=True)
    if len(columns) > 1:
        return columns
    rows = _cuts(blocks, vertical=False)
    if len(rows) == 1:
        return None
    # The rows of a two-column stretch split wherever both columns happen to
    # have a gap at the same height; put such neighbours back together so the
    # columns are read whole. Rows separated by a spanning block (a title, a
    # wide figure) cannot merge, because together they have no column gap.
    merged = [rows[0]]
    for row in rows[1:]:
        gap = min(bl.y0 for bl in row) - max(bl.y1 for bl in merged[-1])
        candidate = merged[-1] + row
        if gap < _ROW_MERGE_LINES * line_height and len(_cuts(candidate, vertical=True)) > 1:
            merged[-1] = candidate
        else:
            merged.append(row)
    return merged


def reading_order(blocks: list[Block], line_height: float) -> list[Block]:
    # Iterative, since a page of many small blocks could nest deeper than
    # Python's recursion limit.
    ordered: list[Block] = []
    stack = [blocks]
    while stack:
        group = stack.pop()
        if len(group) <= 1:
            ordered.extend(group)
            continue
        parts = _split(group, line_height)
        if parts is None:
            # Overlapping blocks with no clean cut: top to bottom, left to right.
            ordered.extend(sorted(group, key=lambda bl: (bl.y0, bl.x0)))
        else:
            stack.extend(reversed(parts))
    return ordered

