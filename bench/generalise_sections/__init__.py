"""The sections of ``bench/generalise.py`` beyond running prose, one module each.

* ``footnotes``: windows that cross a raised footnote marker, in three forms;
* ``tables``: a table's rows and cells as pdfplumber reads them;
* ``scans``: born-digital pages rendered to images, OCR'd by our ingestion;
* ``common``: finding the chunk, verifying, locating and scoring a case.

Each is scored per PDF (per page for scans) and in totals, against ``GOALS``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

from bench.generalise_sections.common import SectionFailure, SectionStats, rate

#: Goals from issue 23 ("Must show"): verified, located words.
GOALS = {
    "footnotes": (0.98, 0.98),
    "table rows": (0.98, 0.98),
    "table cells": (0.98, 0.98),
    "table rows, no merged cells": (0.98, 0.98),
    "table cells, no merged cells": (0.98, 0.98),
    "table rows, quoted by row": (0.98, 0.98),
    "table cells, quoted by row": (0.98, 0.98),
    "image-only pages": (0.95, 0.95),
}
FLOOR = 0.90
EXAMPLES = 8  # failures printed per section
CASES = {"normal": 20, "quick": 6}  # footnote windows, rows and cells sampled per PDF

__all__ = ["CASES", "GOALS", "SectionStats", "below_floor", "print_section", "totals"]


def pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def totals(results: Sequence[SectionStats]) -> SectionStats:
    total = SectionStats("TOTAL")
    for stats in results:
        total.add(stats)
    return total


def below_floor(stats: SectionStats) -> list[str]:
    values = {"verified": rate(stats.verified, stats.quotes),
              "located": rate(stats.located, stats.words)}
    return [name for name, value in values.items() if value < FLOOR]


def print_section(title: str, results: Sequence[SectionStats], explain: str,
                  quiet_notes: bool = False) -> None:
    """Per PDF (rows with nothing sampled left out, counted), totals, goals, failures.

    With ``quiet_notes``, a PDF with nothing sampled still has its note printed
    under the table: what it says was left out is why nothing is left."""
    from bench.generalise import short, table  # the prose section's printing, shared

    print(f"\n== {title} ==\n  {explain}\n")
    sampled = [s for s in results if s.quotes]
    rows: list[list[object]] = [[short(s.file, 60), s.cases, f"{s.verified}/{s.quotes}",
                                 pct(rate(s.verified, s.quotes)),
                                 f"{s.located}/{s.words}", pct(rate(s.located, s.words)),
                                 ", ".join(below_floor(s)),
                                 (s.status if s.status != "ok" else "") + s.note]
                                for s in sampled]
    total = totals(sampled)
    rows.append(["TOTAL", total.cases, f"{total.verified}/{total.quotes}",
                 pct(rate(total.verified, total.quotes)), f"{total.located}/{total.words}",
                 pct(rate(total.located, total.words)), "", ""])
    table(["file", "cases", "verified", "%", "located words", "%", f"below {FLOOR:.0%}",
           "note"], rows)
    quiet = len(results) - len(sampled)
    if quiet:
        print(f"  ({quiet} PDF(s) with nothing to sample in this section left out of the table)")
    if quiet_notes:
        for stats in results:
            if not stats.quotes and stats.note:
                print(f"    {short(stats.file, 60)}, nothing left: {stats.note}")
    goal_verified, goal_located = GOALS[title]
    for name, value, goal in (("verified", rate(total.verified, total.quotes), goal_verified),
                              ("located words", rate(total.located, total.words),
                               goal_located)):
        verdict = "-" if math.isnan(value) else ("PASS" if value >= goal else "FAIL")
        print(f"  goal: {name:14s} {pct(value):>7}   >= {goal:.0%}   {verdict}")
    low = [s for s in sampled if below_floor(s)]
    print(f"  no PDF below {FLOOR:.0%}: {'PASS' if not low else f'FAIL ({len(low)} below)'}")
    print_failures([f for s in results for f in s.failures])


def print_failures(failures: list[SectionFailure]) -> None:
    if not failures:
        return
    print("  failures by category:")
    for category, n in Counter(f.category for f in failures).most_common(8):
        files = Counter(f.file for f in failures if f.category == category)
        where = ", ".join(f"{k[:30]} {v}" for k, v in files.most_common(3))
        print(f"    {n:4d}  {category}   [{where}]")
    groups: dict[tuple[str, str], list[SectionFailure]] = {}
    for failure in failures:
        groups.setdefault((failure.category, failure.file), []).append(failure)
    picked: list[SectionFailure] = []
    while len(picked) < EXAMPLES and any(groups.values()):
        for group in groups.values():
            if group and len(picked) < EXAMPLES:
                picked.append(group.pop(0))
    for f in picked:
        print(f"   - {f.file[:50]} p{f.page} [{f.variant}] {f.outcome}, located {f.located}"
              f"\n       quote  {f.quote[:200]!r}")
        if f.reason:
            print(f"       reason {f.reason[:240]}")
        if f.ours:
            print(f"       ours   {f.ours[:240]}")
