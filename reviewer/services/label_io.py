"""Labels import: a calibration set exported elsewhere (CSV or JSONL, the
columns of :data:`reviewer.selectors.label_io.EXPORT_COLUMNS`) added to this
deployment's items and labels.

Every row is checked on its own; a bad row is reported with its line number
and why, and the good rows are saved all the same. What stops the whole file,
before anything is saved: too many bytes or rows, an unknown format, a CSV
header without the required columns (reported as line 1).

**Items.** A row's item is found by ``content_hash(surface, quote, window)``,
window = ``source_text[match_start:match_end]`` (no offsets: the whole
text), or created with stratum "imported" at the end of its surface's queue.
An item found keeps its own score and source text.

**Labels.** One per item and labeller name: a pair already here (or earlier
in the file) is a duplicate, skipped and counted, even if its label differs —
the label here stays. An item takes :data:`LABELLERS_PER_ITEM` labels; a row
past that is an error. An imported label has no user (``labeller_name`` says
who gave it), ``imported=True``, and the row's time as ``created``.

**Settled labels.** A row's ``settled_label`` settles its item when the item
has none yet (with no ``settled_by``: the supervisor is not a user here); an
item settled already keeps its ruling.

**Surfaces** must exist here: creating one is a supervisor's decision (its
threshold and policy), not an import's; the error names the ones that exist.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone

from reviewer.csv_cells import csv_unescape
from reviewer.models import KIND_LABELS, CalibrationItem, MatchLabel, Surface
from reviewer.selectors.label_io import EXPORT_COLUMNS
from reviewer.services.calibration import LABELLERS_PER_ITEM, content_hash

__all__ = ["DEFAULT_LIMITS", "FORMATS", "REQUIRED_COLUMNS", "ImportLimits", "ImportReport",
           "LabelImportRefused", "RowError", "labels_import", "size_check"]

FORMATS = ("csv", "jsonl")
REQUIRED_COLUMNS = ("surface", "quote", "source_text", "score", "label", "labeller")
_OPTIONAL_COLUMNS = tuple(c for c in EXPORT_COLUMNS if c not in REQUIRED_COLUMNS)
_LABELLER_CHARS = MatchLabel._meta.get_field("labeller_name").max_length or 150
_CHUNK = 500  # ids per IN (...) query
# Undecodable bytes (decoded with surrogateescape) and JSON's "\ud800" alike.
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ImportLimits:
    """What one import may hold. ``max_rows``: a calibration set is a few
    hundred to a few thousand labels, and 10,000 import in seconds, within
    one request. A quote or a source text is at most
    ``text_chars`` code points: a snapshot is the window and 300 characters
    either side, so real ones are far shorter; the limit keeps a wrong
    column (a whole document) out."""

    max_bytes: int = 10_000_000
    max_rows: int = 10_000
    text_chars: int = 20_000

    @property
    def size_text(self) -> str:
        return f"{self.max_bytes / 1e6:g} MB"


DEFAULT_LIMITS = ImportLimits()


class LabelImportRefused(Exception):
    """The whole file is refused (too big, too many rows, unknown format);
    nothing was saved."""


class RowError(NamedTuple):
    """A row not imported: its 1-based line in the file, and why."""

    line: int
    message: str


@dataclass(frozen=True)
class ImportReport:
    """What an import did. ``errors`` are sorted by line."""

    rows: int = 0
    labels_created: int = 0
    items_created: int = 0
    items_settled: int = 0
    duplicates_skipped: int = 0
    errors: tuple[RowError, ...] = field(default_factory=tuple)


@dataclass(frozen=True)
class _Row:
    line: int
    surface: str
    quote: str
    source_text: str
    match_start: int
    match_end: int
    score: float
    label: str
    labeller: str
    time: datetime
    settled_label: str


class _BadRow(Exception):
    pass


# ---- reading ---------------------------------------------------------------------

def _jsonl_records(text: str) -> Iterator[tuple[int, Mapping[str, Any] | RowError]]:
    # Split on "\n" only: str.splitlines would also split inside a JSON string
    # holding U+2028 or a form feed.
    for number, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            yield number, RowError(number, f"not valid JSON ({error.msg}, column {error.colno})")
            continue
        except RecursionError:
            yield number, RowError(number, "not valid JSON (nested too deeply)")
            continue
        if not isinstance(record, dict):
            yield number, RowError(number, "a line must hold one JSON object")
            continue
        yield number, record


def _csv_records(text: str) -> Iterator[tuple[int, Mapping[str, Any] | RowError]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise LabelImportRefused(f"Line 1: the CSV header cannot be read ({error}).") from error
    if header is None:
        return
    header = [name.strip().lstrip("\ufeff") for name in header]
    missing = [name for name in REQUIRED_COLUMNS if name not in header]
    repeated = sorted({name for name in header if name and header.count(name) > 1})
    if missing or repeated:
        problems = []
        if missing:
            problems.append(f"it lacks {', '.join(missing)}")
        if repeated:
            problems.append(f"it repeats {', '.join(repeated)}")
        yield 1, RowError(1, f"the header must name the columns {', '.join(REQUIRED_COLUMNS)} "
                          f"(and may name {', '.join(_OPTIONAL_COLUMNS)}); "
                          f"{' and '.join(problems)}. Nothing was read past it.")
        return
    last = reader.line_num
    while True:
        first = last + 1  # a quoted cell may run over several lines: report the first
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as error:
            yield first, RowError(first, f"the CSV cannot be read from here ({error}); "
                                  "nothing was read past this line")
            return
        last = reader.line_num
        if not any(cell.strip() for cell in cells):
            continue
        if len(cells) != len(header):
            yield first, RowError(first, f"the row has {len(cells)} cells; "
                                  f"the header has {len(header)}")
            continue
        yield first, {name: csv_unescape(cell) for name, cell in zip(header, cells, strict=True)
                      if name}


def _decode(data: bytes) -> str:
    # Bytes that are not UTF-8 become lone surrogates, which the row checks
    # refuse: one bad cell costs its row, not the file.
    return data.decode("utf-8", "surrogateescape").removeprefix("\ufeff")


# ---- checking one row --------------------------------------------------------------

def _present(record: Mapping[str, Any], name: str) -> bool:
    value = record.get(name)
    return value is not None and value != ""


def _text(record: Mapping[str, Any], name: str, *, limit: int, strip: bool = False) -> str:
    value = record.get(name)
    if not isinstance(value, str):
        raise _BadRow(f"{name} must be text")
    if strip:
        value = value.strip()
    if not value.strip():
        raise _BadRow(f"{name} is empty")
    if len(value) > limit:
        raise _BadRow(f"{name} has {len(value):,} characters; the limit is {limit:,}")
    if "\0" in value:
        raise _BadRow(f"{name} holds a NUL character")
    if _SURROGATE.search(value):
        raise _BadRow(f"{name} is not valid UTF-8 text (undecodable bytes or a lone surrogate)")
    return value


def _offset(record: Mapping[str, Any], name: str) -> int | None:
    if not _present(record, name):
        return None
    value = record[name]
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise _BadRow(f"{name} must be a whole number of at least 0, not {str(value)[:40]!r}")


def _score(record: Mapping[str, Any]) -> float:
    value = record["score"]
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ValueError
        score = float(value)
    except ValueError:
        raise _BadRow(f"score must be a number from 0 to 1, not {str(value)[:40]!r}") from None
    if not math.isfinite(score) or not 0 <= score <= 1:
        raise _BadRow(f"score must be a number from 0 to 1, not {str(value)[:40]}")
    return score


def _label(record: Mapping[str, Any], name: str) -> str:
    value = record.get(name)
    allowed = KIND_LABELS[CalibrationItem.Kind.MATCH]  # only matches are exported
    if value not in allowed:
        shown = str(value)[:40] if isinstance(value, str) else value
        raise _BadRow(f"{name} must be one of {', '.join(allowed)}, not {shown!r}")
    return str(value)


def _time(record: Mapping[str, Any], now: datetime) -> datetime:
    if not _present(record, "time"):
        return now
    value = record["time"]
    try:
        if not isinstance(value, str):
            raise ValueError
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise _BadRow(f"time must be an ISO 8601 date and time, not {str(value)[:40]!r}") \
            from None
    return moment.replace(tzinfo=UTC) if timezone.is_naive(moment) else moment


def _check(line: int, record: Mapping[str, Any], limits: ImportLimits, now: datetime) -> _Row:
    missing = [name for name in REQUIRED_COLUMNS if not _present(record, name)]
    if missing:
        raise _BadRow(f"{', '.join(missing)} {'is' if len(missing) == 1 else 'are'} missing")
    surface = _text(record, "surface", limit=Surface._meta.get_field("name").max_length or 100,
                    strip=True)
    quote = _text(record, "quote", limit=limits.text_chars)
    source_text = _text(record, "source_text", limit=limits.text_chars)
    score = _score(record)
    label = _label(record, "label")
    labeller = _text(record, "labeller", limit=_LABELLER_CHARS, strip=True)
    start, end = _offset(record, "match_start"), _offset(record, "match_end")
    if (start is None) != (end is None):
        raise _BadRow("match_start and match_end go together: give both or neither")
    if start is None or end is None:
        start, end = 0, len(source_text)
    elif not start <= end <= len(source_text):
        raise _BadRow(f"the window {start}–{end} is not inside the source text "
                      f"({len(source_text)} characters)")
    settled = _label(record, "settled_label") if _present(record, "settled_label") else ""
    return _Row(line, surface, quote, source_text, start, end, score, label, labeller,
                _time(record, now), settled)


# ---- saving ------------------------------------------------------------------------

def _chunks(values: list[Any]) -> Iterator[list[Any]]:
    for at in range(0, len(values), _CHUNK):
        yield values[at:at + _CHUNK]


def _unknown_surface(name: str, known: list[str]) -> str:
    listed = ", ".join(known[:20]) + (", …" if len(known) > 20 else "")
    return (f"there is no surface {name!r} here (surfaces: {listed or 'none yet'}); "
            "create it first, or correct the name")


def _save(rows: list[_Row], errors: list[RowError]) -> dict[str, int]:
    """Add ``rows`` (checked) to the database, adding to ``errors`` the ones
    that cannot be; the counts of what was done."""
    counts = {"labels_created": 0, "items_created": 0, "items_settled": 0,
              "duplicates_skipped": 0}
    names = sorted({row.surface for row in rows})
    # Locked: two imports into one surface would take the same positions.
    surfaces = {s.name: s for s in Surface.objects.select_for_update().filter(name__in=names)}
    known = sorted(Surface.objects.values_list("name", flat=True))
    hashes: dict[int, str] = {}
    for row in rows:
        if row.surface in surfaces:
            hashes[row.line] = content_hash(row.surface, row.quote,
                                            row.source_text[row.match_start:row.match_end])
    items: dict[tuple[int, str], CalibrationItem] = {}
    for surface in surfaces.values():
        wanted = sorted({hashes[row.line] for row in rows if row.surface == surface.name})
        for part in _chunks(wanted):
            # Locked like label_record locks an item: no third label meanwhile.
            for item in (CalibrationItem.objects.select_for_update()
                         .filter(surface=surface, content_hash__in=part)):
                items[surface.pk, item.content_hash] = item
    # Who labelled each item, by (surface id, content hash): new items too.
    labellers: dict[tuple[int, str], list[str]] = {}
    keys = {item.pk: key for key, item in items.items()}
    for part in _chunks(sorted(keys)):
        for item_id, name in (MatchLabel.objects.filter(item_id__in=part)
                              .order_by("created", "pk").values_list("item_id", "labeller_name")):
            labellers.setdefault(keys[item_id], []).append(name)
    positions = {s.pk: CalibrationItem.objects.filter(surface=s).aggregate(
        last=Max("position"))["last"] or 0 for s in surfaces.values()}

    new_items: list[CalibrationItem] = []
    settled: set[tuple[int, str]] = set()
    pending: list[tuple[CalibrationItem, MatchLabel]] = []
    for row in rows:
        surface = surfaces.get(row.surface)
        if surface is None:
            errors.append(RowError(row.line, _unknown_surface(row.surface, known)))
            continue
        key = (surface.pk, hashes[row.line])
        item = items.get(key)
        if item is None:
            positions[surface.pk] += 1
            item = CalibrationItem(
                surface=surface, quote=row.quote, source_text=row.source_text,
                match_start=row.match_start, match_end=row.match_end, score=row.score,
                stratum=CalibrationItem.IMPORTED, position=positions[surface.pk],
                content_hash=key[1])
            items[key] = item
            new_items.append(item)
        names = labellers.setdefault(key, [])
        if row.labeller in names:
            counts["duplicates_skipped"] += 1
        elif len(names) >= LABELLERS_PER_ITEM:
            errors.append(RowError(row.line, f"this match has {LABELLERS_PER_ITEM} labels "
                                   f"already ({', '.join(names)}); a third is not imported"))
            continue
        else:
            names.append(row.labeller)
            pending.append((item, MatchLabel(labeller=None, labeller_name=row.labeller,
                                             label=row.label, imported=True,
                                             created=row.time)))
        if row.settled_label and not item.settled_label:
            item.settled_label = row.settled_label
            item.settled_at = timezone.now()
            settled.add(key)

    CalibrationItem.objects.bulk_create(new_items, batch_size=_CHUNK)
    counts["items_created"] = len(new_items)
    for item, label in pending:
        label.item = item
        label.citation_id = item.citation_id
    MatchLabel.objects.bulk_create([label for _, label in pending], batch_size=_CHUNK)
    counts["labels_created"] = len(pending)
    existing = set(keys.values())
    earlier = [items[key] for key in settled if key in existing]
    CalibrationItem.objects.bulk_update(earlier, ["settled_label", "settled_at"],
                                        batch_size=_CHUNK)
    counts["items_settled"] = len(settled)
    return counts


def size_check(size: int, limits: ImportLimits | None = None) -> None:
    """Refuse a file of ``size`` bytes past the limit (before reading it)."""
    limits = limits or DEFAULT_LIMITS
    if size > limits.max_bytes:
        raise LabelImportRefused(f"This file is {size:,} bytes; the limit is "
                                 f"{limits.size_text} ({limits.max_bytes:,} bytes). Split it "
                                 "and import the parts one after another.")


def labels_import(*, data: bytes, fmt: str, imported_by: Any,
                  limits: ImportLimits | None = None) -> ImportReport:
    """Import the labels in ``data`` (``fmt`` "csv" or "jsonl"; see the
    module's docstring). Refused (:class:`LabelImportRefused`, nothing saved)
    for a file past ``limits`` or an unknown format; otherwise the good rows
    are saved and the report lists the others by line.

    ``imported_by`` must be a supervisor (``reviewer.change_surface``): the
    view checks it, and so does this, for callers that are not the view.
    ``limits``: :data:`DEFAULT_LIMITS` when None."""
    limits = limits or DEFAULT_LIMITS
    if not imported_by.has_perm("reviewer.change_surface"):
        raise LabelImportRefused("Importing labels needs the supervisor role.")
    if fmt not in FORMATS:
        raise LabelImportRefused(f"The format must be {' or '.join(FORMATS)}, not {fmt!r}.")
    size_check(len(data), limits)
    text = _decode(data)
    records = list((_csv_records if fmt == "csv" else _jsonl_records)(text))
    if len(records) > limits.max_rows:
        raise LabelImportRefused(f"This file has {len(records):,} rows; the limit is "
                                 f"{limits.max_rows:,}. Split it and import the parts one "
                                 "after another. Nothing was imported.")
    now = timezone.now()
    errors: list[RowError] = []
    rows: list[_Row] = []
    for line, record in records:
        if isinstance(record, RowError):
            errors.append(record)
            continue
        try:
            rows.append(_check(line, record, limits, now))
        except _BadRow as bad:
            errors.append(RowError(line, str(bad)))
    try:
        with transaction.atomic():
            counts = _save(rows, errors)
    except IntegrityError as error:
        # Someone drew or labelled the same match meanwhile; this import waited
        # for no lock on a new item. Nothing of it was saved.
        raise LabelImportRefused("The labels changed while they were being imported; "
                                 "nothing was imported. Import the file again.") from error
    return ImportReport(rows=len(records), errors=tuple(sorted(errors)), **counts)
