"""Exports that a spreadsheet opens: formula-safe CSV cells, streamed CSV and
JSONL lines. Shared by every export, and by the labels import, which undoes
the cell escape so an exported file imports back unchanged."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

__all__ = ["FORMULA_STARTS", "csv_lines", "csv_safe", "csv_unescape", "jsonl_lines"]

#: Cells a spreadsheet would run as a formula (OWASP's list): written with a
#: leading apostrophe so they stay text.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_safe(value: Any) -> Any:
    """``value`` with an apostrophe in front when a spreadsheet would take it
    for a formula, or when it starts with an apostrophe itself (which a
    spreadsheet would otherwise hide): so :func:`csv_unescape` can undo it."""
    if isinstance(value, str) and value.startswith((*FORMULA_STARTS, "'")):
        return "'" + value
    return value


def csv_unescape(value: str) -> str:
    """A cell written by :func:`csv_safe` as it was before."""
    return value[1:] if value.startswith("'") else value


class _Echo:
    """A file-like object whose write returns the line, for csv.writer."""

    def write(self, value: str) -> str:
        return value


def csv_lines(columns: Sequence[str], rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    """A header of ``columns``, then each row's cells in that order, formula-safe."""
    writer = csv.writer(_Echo())
    yield writer.writerow(columns)
    for row in rows:
        yield writer.writerow([csv_safe(row[column]) for column in columns])


def jsonl_lines(rows: Iterable[dict[str, Any]]) -> Iterator[str]:
    for row in rows:
        yield json.dumps(row, ensure_ascii=False) + "\n"
