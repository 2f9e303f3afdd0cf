"""Calibration page reads: what a surface's labels say about its threshold,
how far its labellers agree, what applying another threshold would change,
and its re-verification runs.

The labels that count are ``labelled_matches``' (a settled label, or the one
label or two that agree; see :mod:`reviewer.selectors.calibration`).
Everything here is aggregate: no single item's score or outcome is returned
next to its text, so the page can be shown to calibrators (the examples of
what would change are for those who may read answers, and say so).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from django.core.cache import cache
from django.db.models import Count, QuerySet

from reviewer.models import (
    KIND_LABELS,
    Answer,
    CalibrationItem,
    CitationVerdict,
    MatchLabel,
    ReverificationRun,
    Surface,
)
from reviewer.selectors.calibration import ItemLabels, item_labels, labelled_matches
from reviewer.selectors.sources import answers_sources
from reviewer.services.answers import verification_config
from reviewer.services.calibration import CLAIM_CHECKS, SAMPLED_OUTCOMES
from verification import verify_answer
from verification.calibration import (
    LABELS,
    Agreement,
    Band,
    CurvePoint,
    LabelledMatch,
    Recommendation,
    band_label,
    bands_around,
    cohen_kappa,
    default_thresholds,
    recommend_threshold,
    threshold_curve,
    wilson_interval,
)

__all__ = ["ACTIVE_RUN_STATUSES", "MIN_LABELS_PER_BAND", "BandCount", "CalibrationReport",
           "ChangeEstimate", "ChangeExample", "ChangeLabels", "CheckPrecision", "Disagreement",
           "PointSummary", "SurfaceAgreement", "active_run", "band_counts",
           "bands_left_to_label", "calibration_report", "change_estimate", "change_examples",
           "change_labels", "check_precision", "disagreement", "point_summary",
           "recommendation_bands", "recommendation_for", "surface_agreement", "surface_runs"]

#: A band near the recommendation with fewer labels withholds it
#: (``recommend_threshold``'s default, named here so the page can say it).
MIN_LABELS_PER_BAND = 10
#: Outcomes a threshold decides between, whose stored ``score`` measures the
#: quote against the cited source (exact matches are verified whatever it is).
THRESHOLD_OUTCOMES = ("verified-fuzzy", "quote-altered", "quote-not-found")
#: Flagged outcomes a lower threshold can turn into verified-fuzzy.
FLAGGED_OUTCOMES = ("quote-altered", "quote-not-found")
ACTIVE_RUN_STATUSES = (ReverificationRun.Status.QUEUED, ReverificationRun.Status.RUNNING)


@dataclass(frozen=True)
class BandCount:
    """The counted labels whose score lies in one band (or outside them all)."""

    name: str
    band: Band | None
    faithful: int
    changed: int
    other: int
    #: A score band with fewer than MIN_LABELS_PER_BAND labels.
    thin: bool
    #: A thin band with nothing left to label in it: no stored match in it
    #: unlabelled, none left to draw. It cannot be filled, so it does not
    #: withhold the recommendation.
    exhausted: bool = False

    @property
    def total(self) -> int:
        return self.faithful + self.changed + self.other


def band_counts(matches: Sequence[LabelledMatch], bands: Sequence[Band],
                min_labels: int = MIN_LABELS_PER_BAND) -> list[BandCount]:
    """One row per band, lowest first, then rows for the labels under the
    lowest band and the exact matches (1.0, in no band) when there are any."""
    per_band: list[Counter[str]] = [Counter() for _ in bands]
    below: Counter[str] = Counter()
    above: Counter[str] = Counter()
    for match in matches:
        for counter, (low, high) in zip(per_band, bands, strict=True):
            if low <= match.score < high:
                counter[match.label] += 1
                break
        else:
            (below if match.score < bands[0][0] else above)[match.label] += 1
    rows = [BandCount(band_label(band), band, c["faithful"], c["changed"], c["other"],
                      thin=sum(c.values()) < min_labels)
            for band, c in zip(bands, per_band, strict=True)]
    if below:
        rows.insert(0, BandCount(f"under {bands[0][0]:.2f}", None, below["faithful"],
                                 below["changed"], below["other"], thin=False))
    if above:
        rows.append(BandCount(f"{bands[-1][1]:.2f} and up", None, above["faithful"],
                              above["changed"], above["other"], thin=False))
    return rows


@dataclass(frozen=True)
class PointSummary:
    """The labels' figures when accepting at ``threshold``."""

    threshold: float
    point: CurvePoint
    #: Wilson 95 % interval of the precision; None when nothing is accepted.
    precision_interval: tuple[float, float] | None


def point_summary(matches: Sequence[LabelledMatch], threshold: float) -> PointSummary:
    (point,) = threshold_curve(matches, [threshold])
    interval = wilson_interval(point.tp, point.accepted) if point.accepted else None
    return PointSummary(threshold, point, interval)


@dataclass(frozen=True)
class CalibrationReport:
    """Everything the page shows from a surface's labels."""

    matches: list[LabelledMatch]
    bands: tuple[Band, ...]
    curve: tuple[CurvePoint, ...]
    band_counts: list[BandCount]
    label_counts: dict[str, int]
    recommendation: Recommendation
    current: PointSummary
    #: The bands the recommendation weighed: ``bands`` but the exhausted ones.
    bands_used: tuple[Band, ...] = ()

    @property
    def exhausted(self) -> list[BandCount]:
        """The thin bands nothing is left to label in (left out of the
        recommendation)."""
        return [row for row in self.band_counts if row.exhausted]

    @property
    def used_counts(self) -> list[BandCount]:
        """The band table's rows of the bands the recommendation weighed."""
        return [row for row in self.band_counts
                if row.band is not None and row.band in self.bands_used]


def bands_left_to_label(surface: Surface, bands: Sequence[Band]) -> set[Band]:
    """The bands that hold something still to label: a stored match of the
    surface without a label, or a citation no item holds yet that the queue
    can still draw (its score in the band)."""
    held: set[int] = set()
    scores: list[float] = []
    for score, labels, citation_id in (
            CalibrationItem.objects.filter(surface=surface, kind=CalibrationItem.Kind.MATCH,
                                           settled_label="")
            .exclude(answer__deleted_at__isnull=False)
            .annotate(label_count=Count("labels"))
            .values_list("score", "label_count", "citation_id")):
        if citation_id is not None:
            held.add(citation_id)
        if not labels:
            scores.append(score)
    held.update(CalibrationItem.objects.filter(surface=surface, citation__isnull=False)
                .values_list("citation_id", flat=True))
    scores.extend(
        score for pk, score in CitationVerdict.objects.filter(
            answer__surface=surface, outcome__in=SAMPLED_OUTCOMES, superseded=False,
            answer__deleted_at__isnull=True, score__isnull=False)
        .exclude(quote="").values_list("id", "score") if pk not in held)
    return {band for band in bands if any(band[0] <= score < band[1] for score in scores)}


def recommendation_bands(surface: Surface, matches: Sequence[LabelledMatch],
                         bands: tuple[Band, ...]) -> tuple[list[BandCount], tuple[Band, ...]]:
    """The band table's rows, a thin band that nothing is left to label in
    marked exhausted, and the bands a recommendation weighs: all but the
    exhausted ones (all of them when every one is exhausted: there is
    nothing to weigh without them, and "Not enough labels" stays the truth)."""
    rows = band_counts(matches, bands)
    if any(row.thin for row in rows):
        open_bands = bands_left_to_label(surface, bands)
        marked = [replace(row, exhausted=True)
                  if row.thin and row.band is not None and row.band not in open_bands else row
                  for row in rows]
        if any(row.band is not None and not row.exhausted for row in marked):
            rows = marked
    exhausted = {row.band for row in rows if row.exhausted}
    return rows, tuple(band for band in bands if band not in exhausted)


def calibration_report(surface: Surface, *, target_precision: float,
                       matches: list[LabelledMatch] | None = None) -> CalibrationReport:
    """The curve (every labelled score, the grid, and the current threshold),
    the band table and the recommendation for ``target_precision``, with
    bands around the surface's threshold. A thin band that nothing is left to
    label in is marked exhausted and left out of the recommendation (which
    would otherwise wait for labels that cannot come); the report says which
    bands the recommendation had."""
    if matches is None:
        matches = labelled_matches(surface)
    bands = bands_around(surface.threshold)
    counts = Counter(match.label for match in matches)
    rows, used = recommendation_bands(surface, matches, bands)
    return CalibrationReport(
        matches=matches, bands=bands,
        curve=threshold_curve(matches, {*default_thresholds(matches), surface.threshold}),
        band_counts=rows,
        label_counts={label: counts[label] for label in LABELS},
        recommendation=recommendation_for(matches, target_precision, used),
        current=point_summary(matches, surface.threshold),
        bands_used=used,
    )


def recommendation_for(matches: list[LabelledMatch], target_precision: float,
                    bands: tuple[Band, ...]) -> Recommendation:
    """``recommend_threshold``, cached under a digest of exactly what it reads:
    its bootstrap (1,000 re-draws) takes about 0.35 s at 1,000 labels and
    1.9 s at 5,000, and the page asks again on every load and on apply."""
    digest = hashlib.sha256(repr((sorted((m.score, m.label) for m in matches),
                                  target_precision, bands, MIN_LABELS_PER_BAND)).encode())
    key = f"citeguard:recommendation:{digest.hexdigest()}"
    found = cache.get(key)
    if isinstance(found, Recommendation):
        return found
    recommendation = recommend_threshold(matches, target_precision, bands=bands,
                                         min_labels_per_band=MIN_LABELS_PER_BAND)
    cache.set(key, recommendation, timeout=24 * 3600)
    return recommendation


# Claim flags' precision ---------------------------------------------------------------


@dataclass(frozen=True)
class CheckPrecision:
    """One check's labelled claim flags on a surface: how many were right,
    false alarms or unclear, and the precision of the decided ones."""

    check: str
    right: int
    false_alarm: int
    unclear: int
    #: Flags labelled twice, differently, and not settled: left out above.
    unsettled: int

    @property
    def decided(self) -> int:
        return self.right + self.false_alarm

    @property
    def precision(self) -> float | None:
        """Right flags / (right flags + false alarms); unclear ones are
        neither, so they are left out. None before any is decided."""
        return self.right / self.decided if self.decided else None

    @property
    def interval(self) -> tuple[float, float] | None:
        """The precision's Wilson 95 % interval (None: nothing decided)."""
        return wilson_interval(self.right, self.decided) if self.decided else None


def check_precision(surface: Surface) -> list[CheckPrecision]:
    """Per check (``CLAIM_CHECKS``' order, then any other), the counted labels
    of ``surface``'s claim items (a settled label, or one label or two that
    agree, as for matches)."""
    counts: dict[str, Counter[str]] = {check: Counter() for check in CLAIM_CHECKS}
    for entry in item_labels(surface, kind=CalibrationItem.Kind.CLAIM):
        counter = counts.setdefault(entry.item.claim_check, Counter())
        counter[entry.resolved or "unsettled"] += 1
    return [CheckPrecision(check, c[MatchLabel.Label.RIGHT_FLAG], c[MatchLabel.Label.FALSE_ALARM],
                           c[MatchLabel.Label.UNCLEAR], c["unsettled"])
            for check, c in counts.items()]


# Agreement --------------------------------------------------------------------------


@dataclass(frozen=True)
class Disagreement:
    """An item its two labellers labelled differently, as the page lists it:
    the quote and the source window, without its score or outcome."""

    entry: ItemLabels

    @property
    def item(self) -> CalibrationItem:
        return self.entry.item

    @property
    def labels(self) -> tuple[MatchLabel, ...]:
        return self.entry.labels

    @property
    def window(self) -> str:
        return self.item.source_text[self.item.match_start:self.item.match_end]

    @property
    def label_keys(self) -> tuple[tuple[str, str], ...]:
        """The settle buttons' labels for this item's kind, with the queue's keys."""
        return tuple((str(n), str(label)) for n, label in
                     enumerate(self.item.label_choices, start=1))

    @property
    def settled_name(self) -> str:
        label = self.item.settled_label
        return str(MatchLabel.Label(label).label) if label in MatchLabel.Label.values else label


@dataclass(frozen=True)
class SurfaceAgreement:
    """Cohen's κ over the items two people labelled, and the items where they
    disagree (settled or not)."""

    agreement: Agreement
    disagreements: list[Disagreement]

    @property
    def unsettled(self) -> int:
        return sum(1 for row in self.disagreements if not row.item.settled_label)


def surface_agreement(surface: Surface, kind: str = CalibrationItem.Kind.MATCH
                      ) -> SurfaceAgreement:
    """Agreement on ``surface``'s items of ``kind`` (quote matches, or claim flags)."""
    entries = item_labels(surface, kind)
    paired = [entry for entry in entries if len(entry.labels) >= 2]
    agreement = cohen_kappa(((entry.labels[0].label, entry.labels[1].label) for entry in paired),
                            labels=KIND_LABELS[kind])
    return SurfaceAgreement(agreement, [Disagreement(entry) for entry in paired
                                        if entry.disagreement])


def disagreement(item: CalibrationItem) -> Disagreement:
    """One item's row, after settling it."""
    return Disagreement(ItemLabels(item, tuple(item.labels.order_by("created", "pk"))))


# What applying would change ----------------------------------------------------------


@dataclass(frozen=True)
class ChangeEstimate:
    """Stored citations whose outcome a threshold change would move, from
    their stored scores (an estimate: the examples are re-verified exactly)."""

    current: float
    threshold: float
    #: Flagged (altered, not found) with new <= score < current.
    to_accept: int
    #: Verified fuzzily with current <= score < new.
    to_flag: int

    @property
    def total(self) -> int:
        return self.to_accept + self.to_flag


def _moving(surface: Surface, threshold: float) -> QuerySet[CitationVerdict]:
    citations = CitationVerdict.objects.filter(
        answer__surface=surface, superseded=False, outcome__in=THRESHOLD_OUTCOMES,
        score__isnull=False, answer__deleted_at__isnull=True)
    current = surface.threshold
    if threshold < current:
        return citations.filter(outcome__in=FLAGGED_OUTCOMES, score__gte=threshold,
                                score__lt=current)
    if threshold > current:
        return citations.filter(outcome="verified-fuzzy", score__gte=current,
                                score__lt=threshold)
    return citations.none()


def change_estimate(surface: Surface, threshold: float) -> ChangeEstimate:
    moving = _moving(surface, threshold).count()
    lower = threshold < surface.threshold
    return ChangeEstimate(surface.threshold, threshold, to_accept=moving if lower else 0,
                          to_flag=0 if lower else moving)


@dataclass(frozen=True)
class ChangeLabels:
    """What labellers said of the citations a threshold change would move
    (``change_estimate``'s): the counted label of each one that has an item."""

    threshold: float
    #: True: the change flags them (a higher threshold); False: accepts them.
    flags: bool
    moving: int
    faithful: int
    changed: int
    other: int

    @property
    def labelled(self) -> int:
        return self.faithful + self.changed + self.other

    @property
    def not_faithful(self) -> int:
        return self.changed + self.other

    @property
    def unlabelled(self) -> int:
        return self.moving - self.labelled


def change_labels(surface: Surface, threshold: float) -> ChangeLabels:
    """How many of the citations moving at ``threshold`` were labelled, and
    how: "of the 12 citations 0.9859 would newly flag, 9 were labelled
    faithful" says the change would cost false alarms. A citation's label is
    its item's counted one (settled, or one label or two that agree)."""
    moving = set(_moving(surface, threshold).values_list("id", flat=True))
    labels: dict[int, str] = {}
    for entry in item_labels(surface):
        citation = entry.item.citation_id
        if citation in moving and entry.resolved is not None:
            labels.setdefault(citation, entry.resolved)
    counts = Counter(labels.values())
    return ChangeLabels(threshold, threshold > surface.threshold, len(moving),
                        counts["faithful"], counts["changed"], counts["other"])


@dataclass(frozen=True)
class ChangeExample:
    """One stored citation re-verified in memory at the new threshold."""

    answer_id: int
    citation_id: int
    quote: str
    score: float
    before: str
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after


def change_examples(surface: Surface, threshold: float, limit: int = 10
                    ) -> list[ChangeExample]:
    """Up to ``limit`` of the citations ``change_estimate`` counts, closest
    to the new threshold first, each verified again with its answer's stored
    sources at ``threshold``; nothing is stored."""
    citations = list(_moving(surface, threshold).order_by("score", "pk")
                     .values("id", "answer_id", "position", "quote", "score", "outcome"))
    if threshold < surface.threshold:
        citations.reverse()  # to accept: the highest scores are the nearest
    citations = citations[:limit]
    answer_ids = {c["answer_id"] for c in citations}
    texts = dict(Answer.objects.filter(pk__in=answer_ids).values_list("pk", "text"))
    sources = answers_sources(answer_ids)
    config = verification_config(surface, threshold=threshold)
    outcomes: dict[int, list[str]] = {}
    for pk in answer_ids:
        report = verify_answer(texts[pk], sources[pk], config=config)
        outcomes[pk] = [c.outcome for s in report.sentences for c in s.citations]
    examples = []
    for citation in citations:
        after = outcomes[citation["answer_id"]]
        position = citation["position"]
        examples.append(ChangeExample(
            citation["answer_id"], citation["id"], citation["quote"], citation["score"],
            citation["outcome"], after[position] if position < len(after) else "(no citation)"))
    return examples


# Re-verification runs ----------------------------------------------------------------


def surface_runs(surface: Surface, limit: int = 5) -> list[ReverificationRun]:
    """The surface's latest runs, newest first."""
    return list(ReverificationRun.objects.filter(surface=surface)
                .select_related("started_by").order_by("-created", "-pk")[:limit])


def active_run(surface: Surface) -> ReverificationRun | None:
    """A queued or running run of the surface (at most one is started at a time)."""
    return (ReverificationRun.objects.filter(surface=surface, status__in=ACTIVE_RUN_STATUSES)
            .order_by("-created", "-pk").first())
