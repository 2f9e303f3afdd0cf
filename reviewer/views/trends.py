"""Trends for supervisors: outcome rates, verdicts, coverage, verification
time and reviewer decisions per day or hour and model, as SVG charts with CSV
exports; detected rate changes marked on the charts (reviewer.changepoint)."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from reviewer.models import ReviewDecision, TrendAlert
from reviewer.selectors.alerts import alert_answers_query, alert_history, alert_owner_choices
from reviewer.selectors.judgements import judgement_counts
from reviewer.selectors.trends import (
    DECISIONS,
    TrendFilters,
    decision_counts,
    decision_times,
    stats_totals,
    trend_alerts,
    trend_counts,
    trend_filters_from,
    trend_options,
)
from reviewer.services.alerts import can_handle_alerts
from reviewer.services.stats import (
    COVERAGE_BUCKETS,
    LATENCY_BUCKETS,
    OUTCOME_STATS,
    VERDICT_STATS,
    latency_percentile,
)
from reviewer.services.trends import trend_alerts_check
from reviewer.views.base import HtmxHttpRequest, permission_required
from reviewer.views.charts import (
    ALL_COLOUR,
    DASHES,
    PALETTE,
    Marker,
    Series,
    bar_chart,
    bucket_label,
    line_chart,
)

OUTCOME_TITLES = {
    "fabricated-marker": "Fabricated marker", "quote-altered": "Altered quote",
    "claim-mismatch": "Claim mismatch", "quote-not-found": "Quote not found",
    "claim-unsupported": "Claim unsupported", "wrong-source": "Wrong source",
    "unattributed-quote": "Quote without marker", "uncited-claim": "Uncited claim",
}
VERDICT_TITLES = {"pass": "Pass", "flag": "Flag", "fail": "Fail"}
COVERAGE_NAMES = ("under 25%", "25–50%", "50–75%", "75–99%", "100%")
COVERAGE_COLOURS = ("#a11b1b", "#d35400", "#b9770e", "#7dab3c", "#1d6b3a")
DECISION_COLOURS = {"approve": "#1d6b3a", "reject": "#a11b1b", "escalate": "#b9770e"}
PERCENTILES = (("p50", 0.5), ("p90", 0.9), ("p99", 0.99))
CHARTS = ("answers", "outcomes", "verdicts", "coverage", "latency", "decisions",
          "decision-time", "changes")


def _percent(value: float) -> str:
    return f"{value:.0%}" if value >= 0.1 or value == 0 else f"{value:.1%}"


def _ms(value: float) -> str:
    return f"{value:g} ms"


def _hours(value: float) -> str:
    return f"{value:.1f} h" if value < 10 else f"{value:.0f} h"


def _count(value: float) -> str:
    return f"{value:.0f}" if value == int(value) else f"{value:.1f}"


class _Rows:
    """``trend_counts`` rows indexed by bucket and model."""

    def __init__(self, filters: TrendFilters, all_models: Sequence[str]) -> None:
        self.filters = filters
        # Colours by each model's place among all models, so a model keeps
        # its colour whatever the filters show.
        self.colour_index = {model: i for i, model in enumerate(all_models)}
        self.buckets = filters.buckets()
        self.labels = [bucket_label(b, filters.granularity) for b in self.buckets]
        self.rows = trend_counts(filters)
        self.by_model: dict[str, dict[datetime, dict[str, int]]] = defaultdict(dict)
        for row in self.rows:
            self.by_model[row["model"]][row["bucket"]] = row
        self.models = sorted(self.by_model)
        by_bucket: dict[datetime, list[dict[str, Any]]] = defaultdict(list)
        for row in self.rows:
            by_bucket[row["bucket"]].append(row)
        self.total = {bucket: stats_totals(rows) for bucket, rows in by_bucket.items()}

    def lines(self) -> list[tuple[str, str, str, float, dict[datetime, dict[str, int]]]]:
        """(name, colour, dash, width, rows per bucket): all models together
        first (drawn beneath) when there is more than one, then each model."""
        lines = [("all models", ALL_COLOUR, "", 5.0, self.total)] if len(self.models) > 1 else []
        for model in self.models:
            i = self.colour_index.get(model, len(self.colour_index))
            lines.append((model or "(no model)", PALETTE[i % len(PALETTE)],
                          DASHES[i % len(DASHES)], 1.8, self.by_model[model]))
        return lines


def _rate_series(rows: _Rows, column: str, what: str) -> list[Series]:
    series = []
    for name, colour, dash, width, per_bucket in rows.lines():
        values: list[float | None] = []
        titles = []
        for bucket, label in zip(rows.buckets, rows.labels, strict=True):
            row = per_bucket.get(bucket)
            if not row or not row["answers"]:
                values.append(None)
                titles.append("")
                continue
            rate = row[column] / row["answers"]
            values.append(rate)
            titles.append(f"{name}, {label}: {_percent(rate)} {what} "
                          f"({row[column]} of {row['answers']} answers)")
        series.append(Series(name, values, titles, colour, dash, width))
    return series


def _alert_label(alert: TrendAlert, *, surface_shown: bool) -> str:
    arrow = "▲" if alert.direction > 0 else "▼"
    who = alert.new_models and f"new: {alert.new_models}"
    if alert.model != TrendAlert.ALL_MODELS:
        who = alert.model
    parts = [f"{arrow} {_percent(alert.rate)} (was {_percent(alert.baseline_rate)})"]
    if not surface_shown:
        parts.append(alert.surface.name)
    if who:
        parts.append(who)
    return " · ".join(parts)


def _alert_title(alert: TrendAlert) -> str:
    model = "all models" if alert.model == TrendAlert.ALL_MODELS else f"model {alert.model}"
    return (f"{OUTCOME_TITLES.get(alert.outcome, alert.outcome)} "
            f"{'rose' if alert.direction > 0 else 'fell'} on {alert.day:%Y-%m-%d} "
            f"({alert.surface.name}, {model}): {_percent(alert.rate)} of {alert.answers} "
            f"answers (99% {_percent(alert.low)}–{_percent(alert.high)}) against "
            f"{_percent(alert.baseline_rate)} of {alert.baseline_answers} in the 14 days before "
            f"(99% {_percent(alert.baseline_low)}–{_percent(alert.baseline_high)})"
            + (f"; new model: {alert.new_models}" if alert.new_models else ""))


def alert_item(alert: TrendAlert, *, error: str = "") -> dict[str, Any]:
    """What the page shows of one alert: its sentence, the triage link to the
    answers behind it, its handling and history (``#trend-alert``)."""
    return {"alert": alert, "sentence": _alert_title(alert), "error": error,
            "answers_query": alert_answers_query(alert), "history": alert_history(alert),
            "note_max": TrendAlert.NOTE_MAX_LENGTH}


def alert_handling(user: Any) -> dict[str, Any]:
    """Whether ``user`` may act on alerts and whom an alert can be given to."""
    can_handle = can_handle_alerts(user)
    return {"can_handle": can_handle, "owners": alert_owner_choices() if can_handle else []}


def _markers(rows: _Rows, alerts: Sequence[TrendAlert], outcome: str) -> list[Marker]:
    index = {bucket.date(): i for i, bucket in enumerate(rows.buckets)
             if bucket.hour == 0}
    return [Marker(index[alert.day], _alert_label(alert, surface_shown=bool(
                       rows.filters.surface)), _alert_title(alert), alert.direction, outcome)
            for alert in alerts if alert.outcome == outcome and alert.day in index]


def _charts(filters: TrendFilters, alerts: Sequence[TrendAlert],
            all_models: Sequence[str]) -> dict[str, Any]:
    rows = _Rows(filters, all_models)
    charts: dict[str, Any] = {}
    charts["answers"] = line_chart(
        key="answers", title="Answers", description="Answers verified per bucket, per model",
        labels=rows.labels, fmt=_count, floor=4, series=[
            Series(name, [float(per[b]["answers"]) if b in per else None for b in rows.buckets],
                   [f"{name}, {label}: {per[b]['answers']} answers" if b in per else ""
                    for b, label in zip(rows.buckets, rows.labels, strict=True)],
                   colour, dash, width)
            for name, colour, dash, width, per in rows.lines()])
    charts["outcomes"] = [
        line_chart(key=f"outcome-{outcome}", title=OUTCOME_TITLES[outcome],
                   description=f"Share of answers with at least one {outcome}",
                   labels=rows.labels, fmt=_percent, floor=0.05,
                   series=_rate_series(rows, column, f"with {OUTCOME_TITLES[outcome].lower()}"),
                   markers=_markers(rows, alerts, outcome))
        for outcome, (column, _) in OUTCOME_STATS.items()]
    charts["verdicts"] = [
        line_chart(key=f"verdict-{verdict}", title=VERDICT_TITLES[verdict],
                   description=f"Share of answers with verdict {verdict}", labels=rows.labels,
                   fmt=_percent, floor=0.05,
                   series=_rate_series(rows, column, verdict))
        for verdict, column in VERDICT_STATS.items()]
    coverage_columns = [column for _, column in COVERAGE_BUCKETS]
    stacks, titles = [], []
    for bucket, label in zip(rows.buckets, rows.labels, strict=True):
        total = rows.total.get(bucket)
        answers = total["answers"] if total else 0
        stacks.append([total[c] / answers if answers else 0.0 for c in coverage_columns]
                      if total else [0.0] * len(coverage_columns))
        titles.append([f"{label}: coverage {name} in {total[c] if total else 0} of {answers} "
                       "answers" for name, c in zip(COVERAGE_NAMES, coverage_columns,
                                                    strict=True)])
    charts["coverage"] = bar_chart(
        key="coverage", title="Coverage", description="Answers by coverage, as shares",
        labels=rows.labels, stacks=stacks, names=COVERAGE_NAMES, colours=COVERAGE_COLOURS,
        titles=titles, fmt=_percent, top_value=1.0)
    latency_series = []
    for (name, fraction), colour in zip(PERCENTILES, ("#1d6b3a", "#b9770e", "#a11b1b"),
                                        strict=True):
        values = [latency_percentile(rows.total[b], fraction) if b in rows.total else None
                  for b in rows.buckets]
        latency_series.append(Series(
            name, values, [f"{name}, {label}: ≤ {_ms(v)}" if v is not None else ""
                           for v, label in zip(values, rows.labels, strict=True)], colour))
    charts["latency"] = line_chart(
        key="latency", title="Verification time",
        description="Percentiles of verification time (bucket upper edges)",
        labels=rows.labels, fmt=_ms, floor=1, series=latency_series)
    decided: dict[datetime, dict[str, int]] = defaultdict(dict)
    for row in decision_counts(filters):
        decided[row["bucket"]][row["decision"]] = row["count"]
    decision_names = [ReviewDecision.Decision(d).label for d in DECISIONS]
    charts["decisions"] = bar_chart(
        key="decisions", title="Reviewer decisions", description="Decisions made per bucket",
        labels=rows.labels,
        stacks=[[float(decided[b].get(d, 0)) for d in DECISIONS] for b in rows.buckets],
        names=decision_names, colours=[DECISION_COLOURS[d] for d in DECISIONS],
        titles=[[f"{label}: {decided[b].get(d, 0)} {name.lower()}"
                 for d, name in zip(DECISIONS, decision_names, strict=True)]
                for b, label in zip(rows.buckets, rows.labels, strict=True)],
        fmt=_count)
    times = {row["bucket"]: row for row in decision_times(filters)}
    charts["decision_time"] = line_chart(
        key="decision-time", title="Time to decision",
        description="Hours from an answer's arrival to its first decision: each value is "
                    "the upper edge of its bucket (15 min, 1 h, 4 h, 1 day, 3 days, a week)",
        labels=rows.labels, fmt=_hours, floor=1, series=[
            Series(name, [times[b][column] if b in times else None for b in rows.buckets],
                   [f"{name}, {label}: {_hours(times[b][column])} over {times[b]['decided']} "
                    "decided" if b in times else ""
                    for b, label in zip(rows.buckets, rows.labels, strict=True)], colour)
            for name, column, colour in (("median", "median_hours", "#2453a6"),
                                         ("p90", "p90_hours", "#c0392b"))])
    charts["has_answers"] = bool(rows.rows)
    return charts


@require_GET
@permission_required("reviewer.view_trends", every_workspace=True)
def trends(request: HtmxHttpRequest) -> HttpResponse:
    filters = trend_filters_from(request.GET)
    # Cheap (the summary's last five weeks of days) and idempotent: a change
    # is stored and logged once, whoever looks first.
    trend_alerts_check()
    alerts = trend_alerts(filters)
    options = trend_options()
    context = {"filters": filters, "query": filters.query(), "alerts": alerts,
               "alert_items": [alert_item(alert) for alert in alerts],
               **alert_handling(request.user),
               "charts": _charts(filters, alerts, options["models"]), **options,
               "judgements": judgement_counts(since=filters.since, until=filters.until,
                                              surface=filters.surface)}
    template = "reviewer/trends.html#trend-charts" if request.htmx else "reviewer/trends.html"
    return render(request, template, context)


def _cell(value: object) -> object:
    """A CSV cell; text a spreadsheet would run as a formula is quoted."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _csv_rows(chart: str, filters: TrendFilters) -> tuple[list[str], Iterable[Sequence[object]]]:
    def when(bucket: datetime) -> str:
        return (bucket.date().isoformat() if filters.granularity == "day"
                else bucket.astimezone(UTC).strftime("%Y-%m-%dT%H:00Z"))

    if chart == "decisions":
        return (["bucket", "decision", "count"],
                [(when(r["bucket"]), r["decision"], r["count"]) for r in decision_counts(filters)])
    if chart == "decision-time":
        return (["bucket", "decided", "median_hours", "p90_hours"],
                [(when(r["bucket"]), r["decided"], round(r["median_hours"], 4),
                  round(r["p90_hours"], 4)) for r in decision_times(filters)])
    if chart == "changes":
        return (["day", "surface", "model", "outcome", "change", "answers", "with_outcome",
                 "rate", "low", "high", "baseline_answers", "baseline_with_outcome",
                 "baseline_rate", "baseline_low", "baseline_high", "new_models",
                 "acknowledged_by", "acknowledged_at", "owner", "note"],
                [(a.day.isoformat(), a.surface.name, a.model, a.outcome,
                  "rise" if a.direction > 0 else "fall", a.answers, a.hits, round(a.rate, 4),
                  round(a.low, 4), round(a.high, 4), a.baseline_answers, a.baseline_hits,
                  round(a.baseline_rate, 4), round(a.baseline_low, 4),
                  round(a.baseline_high, 4), a.new_models,
                  a.acknowledged_by.get_username() if a.acknowledged_by else "",
                  a.acknowledged_at.isoformat() if a.acknowledged_at else "",
                  a.owner.get_username() if a.owner else "", a.note)
                 for a in trend_alerts(filters)])
    rows = trend_counts(filters)
    if chart == "answers":
        return ["bucket", "model", "answers"], [(when(r["bucket"]), r["model"], r["answers"])
                                                 for r in rows]
    if chart == "outcomes":
        return (["bucket", "model", "answers", "outcome", "answers_with_outcome", "rate"],
                [(when(r["bucket"]), r["model"], r["answers"], outcome, r[column],
                  round(r[column] / r["answers"], 4) if r["answers"] else "")
                 for r in rows for outcome, (column, _) in OUTCOME_STATS.items()])
    if chart == "verdicts":
        return (["bucket", "model", "answers", "verdict", "count", "share"],
                [(when(r["bucket"]), r["model"], r["answers"], verdict, r[column],
                  round(r[column] / r["answers"], 4) if r["answers"] else "")
                 for r in rows for verdict, column in VERDICT_STATS.items()])
    totals: dict[datetime, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        totals[row["bucket"]].append(row)
    summed = [(bucket, stats_totals(group)) for bucket, group in sorted(totals.items())]
    if chart == "coverage":
        columns = [column for _, column in COVERAGE_BUCKETS]
        return (["bucket", "answers", *columns, "claims", "attributed_claims"],
                [(when(b), t["answers"], *(t[c] for c in columns), t["claims"],
                  t["attributed_claims"]) for b, t in summed])
    columns = [column for _, column in LATENCY_BUCKETS]
    return (["bucket", "answers", "p50_ms", "p90_ms", "p99_ms", *columns],
            [(when(b), t["answers"], *(latency_percentile(t, f) for _, f in PERCENTILES),
              *(t[c] for c in columns)) for b, t in summed])


@require_GET
@permission_required("reviewer.view_trends", every_workspace=True)
def trends_export(request: HtmxHttpRequest) -> HttpResponse:
    chart = request.GET.get("chart", "")
    if chart not in CHARTS:
        return HttpResponse(f"chart must be one of: {', '.join(CHARTS)}\n", status=400,
                            content_type="text/plain")
    filters = trend_filters_from(request.GET)
    header, rows = _csv_rows(chart, filters)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    name = f"citeguard-{chart}-{filters.start}-{filters.end}-{filters.granularity}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    writer = csv.writer(response)
    writer.writerow(header)
    writer.writerows([_cell(value) for value in row] for row in rows)
    return response
