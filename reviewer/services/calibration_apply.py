"""Applying a calibrated threshold: the change, its evidence, and the
re-verification of the surface's stored answers.

The evidence is what the labels said at the chosen threshold when it was
applied, so the surface's history keeps why the number is what it is even
after more labels move the curve.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from reviewer.models import ReverificationRun, Surface, SurfaceChange
from reviewer.selectors.calibration import labelled_matches
from reviewer.selectors.calibration_report import (
    ACTIVE_RUN_STATUSES,
    point_summary,
    recommendation_bands,
    recommendation_for,
)
from reviewer.services.reverify import reverification_start, runs_fail_stale
from reviewer.services.surfaces import surface_update
from verification.calibration import LABELS, Band, LabelledMatch, bands_around

__all__ = ["EVIDENCE_KEYS", "AppliedThreshold", "calibration_apply", "calibration_evidence"]

#: What a calibrated change's ``SurfaceChange.evidence`` holds.
EVIDENCE_KEYS = (
    "target_precision", "labels", "label_counts", "threshold", "accepted", "precision",
    "precision_interval", "recall", "false_alarm_rate", "recommended_threshold",
    "recommendation_reason", "threshold_interval", "followed_recommendation",
)


@dataclass(frozen=True)
class AppliedThreshold:
    change: SurfaceChange
    run: ReverificationRun


def calibration_evidence(matches: list[LabelledMatch], *, current: float, threshold: float,
                         target_precision: float,
                         bands: tuple[Band, ...] | None = None) -> dict[str, Any]:
    """The labels' figures at ``threshold`` and the recommendation for
    ``target_precision`` (weighing ``bands``, by default the bands around the
    ``current`` threshold; the page leaves out the exhausted ones), as JSON
    data with the keys ``EVIDENCE_KEYS``."""
    at = point_summary(matches, threshold)
    recommendation = recommendation_for(matches, target_precision,
                                        bands_around(current) if bands is None else bands)
    interval = recommendation.threshold_interval
    counts = Counter(match.label for match in matches)
    return {
        "target_precision": target_precision,
        "labels": len(matches),
        "label_counts": {label: counts[label] for label in LABELS},
        "threshold": threshold,
        "accepted": at.point.accepted,
        "precision": at.point.precision,
        "precision_interval": list(at.precision_interval) if at.precision_interval else None,
        "recall": at.point.recall,
        "false_alarm_rate": at.point.false_alarm_rate,
        "recommended_threshold": recommendation.threshold,
        "recommendation_reason": recommendation.reason,
        "threshold_interval": None if interval is None else {
            "low": interval.low, "high": interval.high, "rounds": interval.rounds,
            "unmet": interval.unmet},
        "followed_recommendation": (recommendation.threshold is not None
                                    and recommendation.threshold == threshold),
    }


def calibration_apply(*, surface: Surface, applied_by: Any, threshold: float, reason: str,
                      target_precision: float) -> AppliedThreshold:
    """Set ``surface``'s threshold with the labels' evidence on record
    (``surface_update``), then re-verify its stored answers with it
    (``reverification_start``, tied to the change).

    Refused (ValidationError) for a threshold outside (0, 1], one the surface
    has already, a missing reason, or while another run of the surface is
    queued or running: two runs at once would each re-verify every answer,
    and the later threshold would not reliably win.
    """
    if not applied_by.has_perm("reviewer.change_surface"):
        raise PermissionDenied("Applying a threshold needs the supervisor role.")
    if not 0 < threshold <= 1:
        raise ValidationError({"threshold": "The threshold must be above 0 and at most 1."})
    runs_fail_stale()  # a run whose worker died must not block this for ever
    with transaction.atomic():
        # Locked first, so that two applies at once see each other's run.
        locked = Surface.objects.select_for_update().get(pk=surface.pk)
        if ReverificationRun.objects.filter(surface=locked,
                                            status__in=ACTIVE_RUN_STATUSES).exists():
            raise ValidationError(
                "A re-verification of this surface is still queued or running: wait until it "
                "has finished before applying another threshold.", code="run-active")
        latest = ReverificationRun.objects.filter(surface=locked).order_by("-created",
                                                                          "-pk").first()
        # The same threshold again is refused, unless its run failed: then
        # applying it again finishes re-verifying (done answers are skipped).
        if locked.threshold == threshold and not (
                latest is not None and latest.threshold == threshold
                and latest.status == ReverificationRun.Status.FAILED):
            raise ValidationError({"threshold": f"The threshold is {threshold:g} already."})
        matches = labelled_matches(locked)
        _, bands = recommendation_bands(locked, matches, bands_around(locked.threshold))
        evidence = calibration_evidence(matches, current=locked.threshold, threshold=threshold,
                                        target_precision=target_precision, bands=bands)
        change = surface_update(surface=surface, changed_by=applied_by, reason=reason,
                                evidence=evidence, threshold=threshold)
        if change is None:  # the same threshold, to finish a failed run: recorded as such
            change = SurfaceChange.objects.create(
                surface=locked, changed_by=applied_by, reason=reason, evidence=evidence,
                changes={"threshold": [threshold, threshold]})
        run = reverification_start(surface=surface, threshold=surface.threshold,
                                   surface_change=change, started_by=applied_by)
    run.refresh_from_db()  # the in-process backend has run it by now
    return AppliedThreshold(change, run)
