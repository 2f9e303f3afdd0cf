"""An answer's verdict history, for its review page: every verdict it has had
(newest first) with the threshold that gave it and what caused it, which
citations the latest re-verification changed, and the previous verdict's
sentences read back from its record.

Only an answer that has been re-verified has records (see
``reviewer.models.verdicts``); for the others there is no history to show.
The latest record is the answer's current verdict, the one before it the
previous verdict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from reviewer.models import Answer, VerdictRecord

__all__ = [
    "CitationChange", "HistoryEntry", "PastCitation", "PastSentence", "VerdictHistory",
    "WhatChanged", "outcome_changes", "past_sentences", "verdict_history",
]


@dataclass(frozen=True)
class PastCitation:
    """A citation as a record's result holds it. Not a row: ``pk`` is None,
    so the page shows its marker without a link to open."""

    outcome: str
    marker: str | None
    quote: str | None
    quote_start: int | None
    quote_end: int | None
    marker_start: int | None
    marker_end: int | None
    score: float | None
    pk: None = None


@dataclass(frozen=True)
class PastSentence:
    """A sentence as a record's result holds it; ``start``/``end`` index the
    answer's text (re-verifying never changes the text)."""

    index: int
    start: int
    end: int
    text: str
    status: str
    citations: tuple[PastCitation, ...]


@dataclass(frozen=True)
class HistoryEntry:
    record: VerdictRecord  # without its ``result`` (loaded only where needed)
    #: Non-zero outcome counts, in the record's order.
    counts: list[tuple[str, int]]
    #: ``(old, new)`` when the record's surface change set the threshold.
    threshold_change: tuple[float, float] | None
    current: bool


@dataclass(frozen=True)
class CitationChange:
    """A citation whose outcome differs between two verdicts, paired by its
    sentence's index and its position in that sentence."""

    sentence_index: int
    marker: str | None
    quote: str | None
    before: str
    after: str
    score: float | None

    @property
    def sentence_number(self) -> int:
        return self.sentence_index + 1


@dataclass(frozen=True)
class WhatChanged:
    """What the latest re-verification changed against the verdict before it.
    ``layout_changed``: the two split the answer differently (another library
    version), so citations cannot be paired and ``citations`` is empty."""

    before: HistoryEntry
    after: HistoryEntry
    citations: list[CitationChange]
    layout_changed: bool


@dataclass(frozen=True)
class VerdictHistory:
    entries: list[HistoryEntry]  # newest first; entries[0] is the current verdict
    previous: HistoryEntry | None
    changed: WhatChanged | None
    #: The previous verdict's sentences, when asked for.
    previous_sentences: list[PastSentence] | None


def _layout(result: dict[str, Any]) -> list[tuple[int, int]]:
    return [(s["index"], len(s["citations"])) for s in result["sentences"]]


def outcome_changes(before: dict[str, Any], after: dict[str, Any]
                    ) -> tuple[list[CitationChange], bool]:
    """The citations whose outcome differs from ``before``'s to ``after``'s
    (two records' results), and whether the layouts differ (then no pairing
    is guessed and the list is empty)."""
    if _layout(before) != _layout(after):
        return [], True
    changes = []
    for old_sentence, new_sentence in zip(before["sentences"], after["sentences"], strict=True):
        for old, new in zip(old_sentence["citations"], new_sentence["citations"], strict=True):
            if old["outcome"] != new["outcome"]:
                changes.append(CitationChange(
                    sentence_index=new_sentence["index"], marker=new["marker"],
                    quote=new["quote"], before=old["outcome"], after=new["outcome"],
                    score=new["score"]))
    return changes, False


def past_sentences(result: dict[str, Any]) -> list[PastSentence]:
    """A record's result's sentences, with their citations' outcomes and spans."""
    return [
        PastSentence(
            index=s["index"], start=s["start"], end=s["end"], text=s["text"],
            status=s["status"],
            citations=tuple(PastCitation(
                outcome=c["outcome"], marker=c["marker"], quote=c["quote"],
                quote_start=c["quote_start"], quote_end=c["quote_end"],
                marker_start=c["marker_start"], marker_end=c["marker_end"], score=c["score"],
            ) for c in s["citations"]))
        for s in result["sentences"]
    ]


def _threshold_change(record: VerdictRecord) -> tuple[float, float] | None:
    change = record.surface_change
    if change is None or "threshold" not in change.changes:
        return None
    old, new = change.changes["threshold"]
    return old, new


def verdict_history(answer: Answer, *, with_previous_sentences: bool = False
                    ) -> VerdictHistory | None:
    """``answer``'s verdict history, or None when it was never re-verified.
    Two queries whatever the history's length (the results, which hold every
    sentence, only for the latest two records)."""
    records = list(VerdictRecord.objects.filter(answer=answer).defer("result")
                   .select_related("surface_change__changed_by", "run__started_by")
                   .order_by("created", "pk"))
    if not records:
        return None
    latest = records[-1]
    entries = [HistoryEntry(record=r, counts=[(k, n) for k, n in r.counts.items() if n],
                            threshold_change=_threshold_change(r), current=r is latest)
               for r in reversed(records)]
    if len(entries) < 2:
        return VerdictHistory(entries=entries, previous=None, changed=None,
                              previous_sentences=None)
    current, previous = entries[0], entries[1]
    results = dict(VerdictRecord.objects.filter(pk__in=[current.record.pk, previous.record.pk])
                   .values_list("pk", "result"))
    before, after = results[previous.record.pk], results[current.record.pk]
    changed = None
    if current.record.cause == VerdictRecord.Cause.REVERIFIED:
        citations, layout_changed = outcome_changes(before, after)
        changed = WhatChanged(before=previous, after=current, citations=citations,
                              layout_changed=layout_changed)
    return VerdictHistory(
        entries=entries, previous=previous, changed=changed,
        previous_sentences=past_sentences(before) if with_previous_sentences else None)
