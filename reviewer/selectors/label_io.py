"""Labels reads for moving a calibration set between deployments: the export's
rows (one per label) and each surface's label counts.

An exported row carries everything the import needs to rebuild the item and
the label: the surface's name, the quote, the source text with the window's
offsets in it, the score, the label, who gave it and when. It also carries the
item's ``settled_label`` (a supervisor's ruling where two labellers disagreed),
repeated on each of the item's rows: without it, a settled disagreement would
arrive unsettled and drop out of the curves. Who settled it and when stay
behind (a user of this deployment).

Only quote matches' labels move: a claim flag's item has fields (its check,
the finding's two sides) these columns do not carry, and an import could not
rebuild it; the export leaves them out and the labels page counts them apart.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC
from typing import Any

from django.db.models import Count, Q, QuerySet

from reviewer.models import KIND_LABELS, CalibrationItem, MatchLabel, Surface

__all__ = ["EXPORT_COLUMNS", "label_counts", "label_export_rows"]

#: The export's columns, in order; also the import's CSV header.
EXPORT_COLUMNS = ("surface", "quote", "source_text", "match_start", "match_end", "score",
                  "label", "labeller", "time", "settled_label")

_FIELDS = {
    "surface": "item__surface__name", "quote": "item__quote",
    "source_text": "item__source_text", "match_start": "item__match_start",
    "match_end": "item__match_end", "score": "item__score", "label": "label",
    "labeller": "labeller_name", "time": "created", "settled_label": "item__settled_label",
}


def label_export_rows(surface: Surface | None = None) -> Iterator[dict[str, Any]]:
    """Every label (of ``surface``, or of all surfaces) as a row of
    :data:`EXPORT_COLUMNS`, by surface, item and time; read in chunks."""
    labels = MatchLabel.objects.filter(item__kind=CalibrationItem.Kind.MATCH)
    if surface is not None:
        labels = labels.filter(item__surface=surface)
    rows = (labels.order_by("item__surface__name", "item__position", "item_id", "created", "pk")
            .values_list(*_FIELDS.values()).iterator(chunk_size=500))
    for values in rows:
        row = dict(zip(_FIELDS, values, strict=True))
        row["time"] = row["time"].astimezone(UTC).isoformat()
        yield row


def label_counts() -> QuerySet[Surface]:
    """Surfaces with ``items``, ``labelled`` items, ``labels`` and the count of
    each label (``faithful``, ``changed``, ``other``) and of ``imported`` ones."""
    labels = "calibration_items__labels"
    by_label = {
        value: Count(labels, filter=Q(**{f"{labels}__label": value}), distinct=True)
        for value in KIND_LABELS[CalibrationItem.Kind.MATCH]
    }
    return Surface.objects.annotate(
        items=Count("calibration_items", distinct=True),
        labelled=Count("calibration_items", filter=Q(**{f"{labels}__isnull": False}),
                       distinct=True),
        labels=Count(labels, distinct=True),
        imported=Count(labels, filter=Q(**{f"{labels}__imported": True}), distinct=True),
        **by_label,
    ).order_by("name")
