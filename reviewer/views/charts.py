"""Server-rendered SVG charts: the geometry of line and stacked-bar charts, as
plain values the template draws (``templates/reviewer/trends.html``'s
``line-chart`` and ``bar-chart`` partials). Every label is escaped. The
markup of the points and bar segments alone is written here (escaped as
``format_html`` escapes), as Django's admin writes its change list's cells:
a chart by the hour has 72 of them a line, and the template's five
variables a point (each coordinate a float localised on its way) were most
of the trends page by the hour at a million answers, where every hour has
answers.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from django.utils.html import conditional_escape
from django.utils.safestring import SafeString

__all__ = ["BarChart", "LineChart", "Marker", "Series", "bar_chart", "line_chart"]

WIDTH, HEIGHT = 520, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 14, 16, 30
#: Series colours, told apart by dash pattern too (never colour alone).
PALETTE = ("#2453a6", "#c0392b", "#1d6b3a", "#b9770e", "#6c3483", "#117a8b", "#7f8c8d")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "", "6 3", "2 3")
#: All models together: a wide pale band drawn beneath the models' lines.
ALL_COLOUR = "#c3c9d4"


@dataclass(frozen=True)
class Series:
    """A line: its values per bucket (None where there is nothing to show)
    and each point's tooltip."""

    name: str
    values: Sequence[float | None]
    titles: Sequence[str]
    colour: str = ALL_COLOUR
    dash: str = ""
    width: float = 2.0


@dataclass(frozen=True)
class Marker:
    """A detected change at bucket ``index``: a line, a triangle and a label."""

    index: int
    label: str
    title: str
    direction: int
    outcome: str


@dataclass
class _Drawn:
    name: str
    colour: str
    dash: str
    width: float
    paths: list[str]
    dots: list[tuple[float, float, str]]
    radius: float = 3

    @property
    def dots_html(self) -> SafeString:
        """The dots as SVG circles with their tooltips. A coordinate (a
        float rounded to a tenth) is written as the template wrote it in
        the site's English (``LANGUAGE_CODE``, no thousands separator): its
        ``str``."""
        # Escaped as format_html escapes (the line's radius and colour once a
        # line): format_html itself took 10 µs a dot, and the trends page by
        # the day draws 2,500 of them.
        radius, colour = conditional_escape(self.radius), conditional_escape(self.colour)
        return SafeString("".join(
            f'<circle cx="{conditional_escape(x)}" cy="{conditional_escape(y)}" r="{radius}" '
            f'fill="{colour}"><title>{conditional_escape(tip)}</title></circle>'
            for x, y, tip in self.dots))


@dataclass
class _DrawnMarker:
    x: float
    y: float  # the label's baseline
    text_x: float
    anchor: str
    triangle: str
    label: str
    title: str
    direction: int
    outcome: str


@dataclass
class Axis:
    x_ticks: list[tuple[float, str]] = field(default_factory=list)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)


@dataclass
class LineChart:
    key: str
    title: str
    description: str
    series: list[_Drawn]
    markers: list[_DrawnMarker]
    axis: Axis
    empty: bool
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    y_label_x: int = LEFT - 6
    x_label_y: int = HEIGHT - BOTTOM + 16


@dataclass
class _Bar:
    x: float
    width: float
    segments: list[tuple[float, float, str, str]]  # y, height, colour, title

    @property
    def html(self) -> SafeString:
        """The bar as an SVG group of its segments' rectangles, with tooltips."""
        x, width = conditional_escape(self.x), conditional_escape(self.width)
        return SafeString('<g class="bar">' + "".join(
            f'<rect x="{x}" y="{conditional_escape(y)}" width="{width}" '
            f'height="{conditional_escape(height)}" fill="{conditional_escape(colour)}">'
            f'<title>{conditional_escape(tip)}</title></rect>'
            for y, height, colour, tip in self.segments) + "</g>")


@dataclass
class BarChart:
    key: str
    title: str
    description: str
    bars: list[_Bar]
    legend: list[tuple[str, str]]
    axis: Axis
    empty: bool
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    y_label_x: int = LEFT - 6
    x_label_y: int = HEIGHT - BOTTOM + 16

    @property
    def bars_html(self) -> SafeString:
        return SafeString("".join(bar.html for bar in self.bars))


def nice_ceiling(value: float) -> float:
    """The smallest of 1, 2, 2.5, 5 × 10ⁿ at or above ``value`` (1 for nothing)."""
    if value <= 0:
        return 1.0
    power = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * power >= value * 0.999999:
            return float(step * power)
    return float(10 * power)


def _x_positions(count: int) -> list[float]:
    plot = (WIDTH - RIGHT) - LEFT
    if count == 1:
        return [LEFT + plot / 2]
    return [LEFT + plot * i / (count - 1) for i in range(count)]


def _x_scaled(values: Sequence[float]) -> Callable[[float], float]:
    """A linear x axis from the first of ``values`` to the last."""
    plot = (WIDTH - RIGHT) - LEFT
    if not values or values[-1] <= values[0]:
        return lambda value: LEFT + plot / 2
    first, last = values[0], values[-1]
    return lambda value: LEFT + plot * (value - first) / (last - first)


def _x_ticks(labels: Sequence[str], xs: Sequence[float], most: int = 6) -> list[tuple[float,
                                                                                     str]]:
    if not labels:
        return []
    step = max(1, math.ceil(len(labels) / most))
    return [(xs[i], labels[i]) for i in range(0, len(labels), step)]


def _y(value: float, top_value: float, top: float = TOP) -> float:
    plot = (HEIGHT - BOTTOM) - top
    return (HEIGHT - BOTTOM) - plot * min(value, top_value) / top_value


def _y_ticks(top_value: float, fmt: Callable[[float], str],
             top: float = TOP) -> list[tuple[float, str]]:
    """Round ticks: quarters of 1 and 2 × 10ⁿ, fifths of 2.5 and 5 × 10ⁿ."""
    leading = round(top_value / 10 ** math.floor(math.log10(top_value)), 1)
    parts = 5 if leading in (2.5, 5.0) else 4
    return [(_y(top_value * i / parts, top_value, top), fmt(top_value * i / parts))
            for i in range(parts + 1)]


#: A marker label's row in the strip above the plot, and its characters'
#: width (12.5 px bold, generously): enough to keep two labels apart.
STRIP_ROW, LABEL_CHAR = 15, 7.6


def _strip_labels(xs: Sequence[float], labels: Sequence[str]
                  ) -> list[tuple[float, str, int]]:
    """Places for marker labels in a strip above the plot, where no line is
    drawn: (text x, anchor, row) for each, beside its marker (after it, or
    before it near the right edge), a row down when it would touch another."""
    placed: list[tuple[float, str, int]] = [(0.0, "start", 0)] * len(labels)
    taken: list[tuple[int, float, float]] = []  # row, from, to
    for i in sorted(range(len(labels)), key=lambda k: xs[k]):
        width = LABEL_CHAR * len(labels[i])
        x = xs[i]
        if x + 4 + width <= WIDTH - 2:
            anchor, lo, hi = "start", x + 4, x + 4 + width
        else:
            anchor, lo, hi = "end", x - 4 - width, x - 4
        row = 0
        while any(r == row and lo < b + 6 and a < hi + 6 for r, a, b in taken):
            row += 1
        taken.append((row, lo, hi))
        placed[i] = (round(x + 4 if anchor == "start" else x - 4, 1), anchor, row)
    return placed


def line_chart(*, key: str, title: str, description: str, labels: Sequence[str],
               series: Sequence[Series], fmt: Callable[[float], str],
               markers: Sequence[Marker] = (), floor: float = 0.0,
               x_values: Sequence[float] | None = None,
               x_ticks: Sequence[tuple[float, str]] = (),
               x_span: tuple[float, float] | None = None,
               labels_above: bool = False, dot_radius: float = 3) -> LineChart:
    """Lines over the buckets ``labels``; gaps (None) break a line. The y
    axis runs from 0 to a round value above the largest (at least ``floor``).

    Buckets sit evenly along the x axis; with ``x_values`` (one per label,
    ascending) they sit at those values on a linear axis instead, ticked at
    ``x_ticks`` (value, text) — for a curve over unevenly spaced points —
    from ``x_span``'s first value to its second (default: the first and last
    of ``x_values``).

    ``labels_above`` puts the markers' labels in a strip above the plot, one
    row per label that would touch another, so that no label covers a line.
    Its dots are ``dot_radius`` across."""
    if x_values is None:
        xs = _x_positions(len(labels))
    else:
        if len(x_values) != len(labels):
            raise ValueError("x_values needs one value per label")
        scale = _x_scaled(list(x_span) if x_span else x_values)
        xs = [scale(value) for value in x_values]
    strip = (_strip_labels([xs[m.index] for m in markers], [m.label for m in markers])
             if labels_above else [])
    top = TOP + (STRIP_ROW * (1 + max(row for _, _, row in strip)) if strip else 0)
    largest = max((v for s in series for v in s.values if v is not None), default=0.0)
    top_value = nice_ceiling(max(largest, floor))
    drawn = []
    for line in series:
        paths, current, dots = [], [], []
        for x, value, point_title in zip(xs, line.values, line.titles, strict=True):
            if value is None:
                if current:
                    paths.append(current)
                current = []
                continue
            y = _y(value, top_value, top)
            current.append(f"{x:.1f},{y:.1f}")
            dots.append((round(x, 1), round(y, 1), point_title))
        if current:
            paths.append(current)
        drawn.append(_Drawn(line.name, line.colour, line.dash, line.width,
                            [" ".join(p) for p in paths], dots, dot_radius))
    placed = []
    for n, marker in enumerate(markers):
        x = xs[marker.index]
        y = TOP + 12 + 14 * (n % 4)
        tip = (HEIGHT - BOTTOM) - 2 if marker.direction > 0 else top + 2
        triangle = (f"{x - 5:.1f},{tip:.1f} {x + 5:.1f},{tip:.1f} {x:.1f},{tip - 9:.1f}"
                    if marker.direction > 0 else
                    f"{x - 5:.1f},{tip:.1f} {x + 5:.1f},{tip:.1f} {x:.1f},{tip + 9:.1f}")
        anchor = "end" if x > LEFT + 0.6 * ((WIDTH - RIGHT) - LEFT) else "start"
        text_x = round(x - 4 if anchor == "end" else x + 4, 1)
        if strip:
            text_x, anchor, row = strip[n]
            y = TOP + 11 + STRIP_ROW * row
        placed.append(_DrawnMarker(round(x, 1), y, text_x, anchor, triangle, marker.label,
                                   marker.title, marker.direction, marker.outcome))
    return LineChart(key=key, title=title, description=description, series=drawn,
                     markers=placed,
                     axis=Axis(_x_ticks(labels, xs) if x_values is None else
                               [(round(scale(value), 1), text) for value, text in x_ticks],
                               _y_ticks(top_value, fmt, top)),
                     empty=not any(d.dots for d in drawn), top=top)


def bar_chart(*, key: str, title: str, description: str, labels: Sequence[str],
              stacks: Sequence[Sequence[float]], names: Sequence[str], colours: Sequence[str],
              titles: Sequence[Sequence[str]], fmt: Callable[[float], str],
              top_value: float | None = None) -> BarChart:
    """Stacked bars, one per bucket: ``stacks[i][k]`` is segment ``k`` of
    bucket ``i`` (named ``names[k]``), bottom up."""
    xs = _x_positions(len(labels))
    plot = (WIDTH - RIGHT) - LEFT
    bar_width = max(1.0, min(18.0, 0.7 * plot / max(1, len(labels))))
    largest = max((sum(stack) for stack in stacks), default=0.0)
    top = top_value or nice_ceiling(largest)
    bars = []
    for x, stack, stack_titles in zip(xs, stacks, titles, strict=True):
        base = 0.0
        segments = []
        for value, colour, segment_title in zip(stack, colours, stack_titles, strict=True):
            if value <= 0:
                continue
            y_top, y_base = _y(base + value, top), _y(base, top)
            segments.append((round(y_top, 1), round(y_base - y_top, 1), colour, segment_title))
            base += value
        bars.append(_Bar(round(x - bar_width / 2, 1), round(bar_width, 1), segments))
    return BarChart(key=key, title=title, description=description, bars=bars,
                    legend=list(zip(names, colours, strict=True)),
                    axis=Axis(_x_ticks(labels, xs), _y_ticks(top, fmt)),
                    empty=largest <= 0)


def bucket_label(moment: datetime, granularity: str) -> str:
    return moment.strftime("%b %d") if granularity == "day" else moment.strftime("%d %Hh")
