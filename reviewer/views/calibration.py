"""A surface's calibration page: what its labels say about its threshold
(curves, label counts per band, the recommendation for a target precision),
what applying another threshold would change, applying it with the evidence
on record and the re-verification's progress, and labellers' agreement with
the disagreements to settle."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import CalibrationItem, ReverificationRun, Surface
from reviewer.selectors.calibration_report import (
    ACTIVE_RUN_STATUSES,
    MIN_LABELS_PER_BAND,
    CalibrationReport,
    CheckPrecision,
    active_run,
    calibration_report,
    change_estimate,
    change_examples,
    change_labels,
    check_precision,
    disagreement,
    surface_agreement,
    surface_runs,
)
from reviewer.services.calibration import item_settle
from reviewer.services.calibration_apply import calibration_apply
from reviewer.services.reverify import runs_fail_stale
from reviewer.views.base import HtmxHttpRequest, permission_required
from reviewer.views.charts import PALETTE, LineChart, Marker, Series, line_chart
from verification.calibration import BootstrapInterval

DEFAULT_TARGET = 0.95
TARGET_RANGE = (0.5, 0.999)
#: The longest reason kept with an applied threshold, in characters.
REASON_LIMIT = 2000
#: The labels as the settle buttons offer them, with the queue's keys.
LABEL_KEYS = (("1", "faithful"), ("2", "changed"), ("3", "other"))


def percent(value: float | None) -> str:
    """0.9333 → "93.3%"; None → "–" (undefined: nothing to divide by)."""
    if value is None:
        return "–"
    return f"{value:.1%}".replace(".0%", "%")


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def target_from(raw: str | None) -> tuple[float, str]:
    """The target precision asked for, or the default with a note saying why."""
    if raw is None or raw.strip() == "":
        return DEFAULT_TARGET, ""
    value = _number(raw)
    low, high = TARGET_RANGE
    if value is None or not low <= value <= high:
        return DEFAULT_TARGET, (f"The target precision must be a number from {low:g} to "
                                f"{high:g} (for example 0.95); {raw!s:.40} is not, so "
                                f"{DEFAULT_TARGET:g} is shown.")
    return value, ""


def threshold_from(raw: str | None, default: float | None) -> tuple[float | None, str]:
    """The threshold to preview, or ``default`` (the recommendation) with a
    note when the one asked for is not a threshold."""
    if raw is None or raw.strip() == "":
        return default, ""
    value = _number(raw)
    if value is None or not 0 < value <= 1:
        return default, (f"A threshold is a number above 0 and at most 1; {raw!s:.40} is "
                         "not, so the recommended one is previewed.")
    return value, ""


class ApplyForm(forms.Form):
    """The threshold to apply and why. Its range is the service's to refuse,
    with the message the page shows."""

    threshold = forms.FloatField(widget=forms.NumberInput(attrs={"step": "any"}))
    reason = forms.CharField(
        max_length=REASON_LIMIT,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept with the change in the surface's history.",
        error_messages={"max_length": f"A reason is at most {REASON_LIMIT:,} characters; "
                                      "this one has %(show_value)s. Shorten it: nothing "
                                      "is cut."})
    target = forms.FloatField(min_value=TARGET_RANGE[0], max_value=TARGET_RANGE[1],
                              widget=forms.HiddenInput)


#: The zoomed panel: where faithful quotes with light noise crowd, and where
#: thresholds are set.
ZOOM = (0.9, 1.0)


def _curve_chart(report: CalibrationReport, surface: Surface,
                 span: tuple[float, float] | None = None) -> LineChart:
    """The curves over the thresholds the labels cover (from the lowest
    labelled score, or the current or recommended threshold when lower, to
    1), or over ``span`` (the zoom); the markers' labels sit above the plot,
    clear of the lines."""
    recommended = report.recommendation.threshold
    if span is None:
        lowest = min([m.score for m in report.matches] or [0.5])
        lowest = min(lowest, surface.threshold, recommended or 1.0)
        span = (math.floor(round(lowest * 20, 9)) / 20, 1.0)
        key, title = "calibration", "Accepting as verified at each threshold"
        step = 0.1
    else:
        key = "calibration-zoom"
        title = f"Zoom: thresholds {span[0]:.2f} to {span[1]:.2f}"
        step = 0.02
    first, last = span
    curve = [p for p in report.curve if first - 1e-9 <= p.threshold <= last + 1e-9]
    thresholds = [point.threshold for point in curve]

    def titles(name: str, values: list[float | None]) -> list[str]:
        return [f"at {p.threshold:.4g}: {name} {percent(v)} ({p.accepted} of {p.labelled} "
                f"labels accepted)" for p, v in zip(curve, values, strict=True)]

    lines = []
    for n, (name, values) in enumerate((
            ("precision", [p.precision for p in curve]),
            ("recall", [p.recall for p in curve]),
            ("false-alarm rate", [p.false_alarm_rate for p in curve]))):
        lines.append(Series(name, values, titles(name, values), PALETTE[n],
                            ("", "6 3", "2 3")[n]))
    markers = []
    if surface.threshold in thresholds:
        markers.append(Marker(thresholds.index(surface.threshold),
                              f"current {surface.threshold:g}",
                              f"The surface's threshold now: {surface.threshold:g}", 1,
                              "current"))
    if recommended is not None and recommended in thresholds:
        markers.append(Marker(thresholds.index(recommended), f"recommended {recommended:.4g}",
                              f"Recommended for {percent(report.recommendation.target_precision)}"
                              f" precision: {recommended:.4g}", -1, "recommended"))
    if step >= 0.1:  # tenths, and the span's own start when it is not one
        tenth = math.ceil(round(first * 10, 9))
        ticks = [(k / 10, f"{k / 10:.1f}") for k in range(tenth, 11)]
        if tenth / 10 - first > 1e-9:
            ticks.insert(0, (first, f"{first:.2f}"))
    else:
        ticks = [(round(first + k * step, 2), f"{first + k * step:.2f}")
                 for k in range(round((last - first) / step) + 1)]
    return line_chart(
        key=key, title=title,
        description=(f"precision, recall and false-alarm rate of {len(report.matches)} labels "
                     f"against the threshold, from {first:.2f} to {last:.2f}"),
        labels=[f"{t:.4g}" for t in thresholds], series=lines, fmt=percent, markers=markers,
        floor=1.0, x_values=thresholds, x_ticks=ticks, x_span=span, labels_above=True,
        dot_radius=2)


def _bootstrap_text(interval: BootstrapInterval | None) -> str:
    if interval is None:
        return "–"
    unmet = (f"on {interval.unmet} of {interval.rounds} re-draws no threshold reached the "
             "target")
    if interval.low is None:
        return f"none: {unmet}"
    if interval.high is None:
        return f"from {interval.low:.4g} up: {unmet}"
    return f"{interval.low:.4g} to {interval.high:.4g} ({interval.rounds} re-draws)"


@dataclass(frozen=True)
class _PrecisionRow:
    """A check's row of the claim precision table, with its figures as text."""

    check: str
    right: int
    false_alarm: int
    unclear: int
    unsettled: int
    precision_text: str
    interval_text: str


def _precision_row(row: CheckPrecision) -> _PrecisionRow:
    interval = row.interval
    return _PrecisionRow(
        row.check, row.right, row.false_alarm, row.unclear, row.unsettled,
        percent(row.precision),
        f"{percent(interval[0])}–{percent(interval[1])}" if interval else "–")


def _page_context(request: HtmxHttpRequest, surface: Surface, *,
                  form: ApplyForm | None = None) -> dict[str, Any]:
    user = request.user
    runs_fail_stale()  # checked when read: a run whose worker died shows failed, with why
    target, target_note = target_from(request.GET.get("target"))
    report = calibration_report(surface, target_precision=target)
    recommendation = report.recommendation
    chosen, threshold_note = threshold_from(request.GET.get("threshold"),
                                            recommendation.threshold)
    can_change = user.has_perm("reviewer.change_surface")
    can_view_answers = user.has_perm("reviewer.view_answer")
    estimate = examples = moving_labels = None
    if chosen is not None:
        estimate = change_estimate(surface, chosen)
        moving_labels = change_labels(surface, chosen)
        if can_view_answers:
            examples = change_examples(surface, chosen)
    if form is None and can_change:
        form = ApplyForm(initial={"threshold": chosen if chosen is not None else surface.threshold,
                                  "target": target})
    interval = recommendation.threshold_interval
    agreement = surface_agreement(surface)
    claim_agreement = surface_agreement(surface, CalibrationItem.Kind.CLAIM)
    return {
        "surface": surface, "report": report, "chart": _curve_chart(report, surface),
        "zoom_chart": _curve_chart(report, surface, ZOOM),
        "target": target, "target_percent": percent(target), "target_note": target_note,
        "rec": recommendation,
        "rec_figures": None if recommendation.threshold is None else {
            "precision": percent(recommendation.precision),
            "low": percent(recommendation.precision_interval[0]
                           if recommendation.precision_interval else None),
            "high": percent(recommendation.precision_interval[1]
                            if recommendation.precision_interval else None),
            "recall": percent(recommendation.recall),
            "false_alarm": percent(recommendation.false_alarm_rate),
            "boot": _bootstrap_text(interval),
        },
        "current": report.current,
        "current_figures": {
            "precision": percent(report.current.point.precision),
            "low": percent(report.current.precision_interval[0]
                           if report.current.precision_interval else None),
            "high": percent(report.current.precision_interval[1]
                            if report.current.precision_interval else None),
            "recall": percent(report.current.point.recall),
            "false_alarm": percent(report.current.point.false_alarm_rate),
        },
        "min_labels": MIN_LABELS_PER_BAND,
        "chosen": chosen, "threshold_note": threshold_note,
        "estimate": estimate, "examples": examples, "moving_labels": moving_labels,
        "runs": surface_runs(surface), "active_run": active_run(surface),
        "agreement": agreement, "claim_agreement": claim_agreement,
        "disagreements": [*agreement.disagreements, *claim_agreement.disagreements],
        "unsettled": agreement.unsettled + claim_agreement.unsettled,
        "check_precision": [_precision_row(row) for row in check_precision(surface)],
        "can_change": can_change, "can_view_answers": can_view_answers, "form": form,
        "label_keys": LABEL_KEYS,
        "active_statuses": ACTIVE_RUN_STATUSES,
    }


def _surface(name: str) -> Surface:
    return get_object_or_404(Surface, name=name)


def _page_url(surface: Surface, **query: Any) -> str:
    url = reverse("reviewer:calibration", args=[surface.name])
    query = {k: v for k, v in query.items() if v is not None}
    return f"{url}?{urlencode(query)}" if query else url


@require_GET
@permission_required("reviewer.view_surface", every_workspace=True)
def calibration(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    found = _surface(surface)
    return render(request, "reviewer/calibration.html", _page_context(request, found))


@require_POST
@permission_required("reviewer.view_surface", "reviewer.change_surface", every_workspace=True)
def calibration_apply_view(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    """Apply a threshold (``calibration_apply``) and come back to the page,
    where the run's progress shows; refused: the page again with why."""
    found = _surface(surface)
    form = ApplyForm(request.POST)
    if form.is_valid():
        data = form.cleaned_data
        try:
            applied = calibration_apply(surface=found, applied_by=request.user,
                                        threshold=data["threshold"], reason=data["reason"],
                                        target_precision=data["target"])
        except ValidationError as error:
            form.add_error(None, error)
        else:
            messages.success(request, f"{found.name}: threshold set to {found.threshold:g}; "
                             f"re-verifying its stored answers (run {applied.run.pk}).")
            return redirect(f"{_page_url(found, target=data['target'])}#runs")
    return render(request, "reviewer/calibration.html",
                  _page_context(request, found, form=form), status=400)


@require_GET
@permission_required("reviewer.view_surface", every_workspace=True)
def calibration_run(request: HtmxHttpRequest, surface: str, run_id: int) -> HttpResponse:
    """One run's row: polled by htmx every second while it is queued or running.
    Once the polled run has finished, htmx reloads the page: its threshold,
    figures and apply form change with the run."""
    runs_fail_stale()
    run = get_object_or_404(ReverificationRun.objects.select_related("started_by"),
                            pk=run_id, surface__name=surface)
    response = render(request, "reviewer/calibration.html#run-row",
                      {"run": run, "surface": run.surface,
                       "active_statuses": ACTIVE_RUN_STATUSES})
    if request.htmx and run.status not in ACTIVE_RUN_STATUSES:
        response["HX-Refresh"] = "true"
    return response


@require_POST
@permission_required("reviewer.view_surface", "reviewer.change_surface", every_workspace=True)
def calibration_settle(request: HtmxHttpRequest, surface: str, item_id: int) -> HttpResponse:
    """A supervisor's label for an item its labellers disagree on: the row
    again for htmx, else back to the page's disagreements."""
    item = get_object_or_404(CalibrationItem.objects.select_related("surface"),
                             pk=item_id, surface__name=surface)
    try:
        item_settle(item=item, settled_by=request.user, label=request.POST.get("label", ""))
    except ValidationError as error:
        return HttpResponse(" ".join(error.messages), status=400, content_type="text/plain")
    if request.htmx:
        return render(request, "reviewer/calibration.html#disagreement-row", {
            "row": disagreement(item), "surface": item.surface, "can_change": True,
            "label_keys": LABEL_KEYS})
    messages.success(request, f"Settled as {item.settled_label}.")
    return redirect(f"{_page_url(item.surface)}#disagreements")
