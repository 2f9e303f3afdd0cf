"""Reading trends: the summary table grouped per day or hour and model, reviewer
decisions, stored rate changes, and the daily series the change-point rule
compares (``reviewer.changepoint``).

Every chart's numbers come from one query (the rate, coverage and latency
charts share one) over ``AnswerStats``, whose rows number hours × surfaces ×
models however many answers there are. Decisions are summarised there too,
by the hour they were made: read from ``ReviewDecision`` they cost the page
110-150 ms at 20k decisions (``bench/triage.py``), and a team deciding a
fifth of 100k answers is not unusual. Days and hours are UTC.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from django.db.models import QuerySet, Sum
from django.db.models.functions import TruncDay, TruncHour
from django.utils import timezone

from reviewer.changepoint import BASELINE_DAYS, Comparison, DayCount, compare_series
from reviewer.models import AnswerStats, ReviewDecision, Surface, TrendAlert
from reviewer.selectors.alerts import alerts_for_handling
from reviewer.services.stats import (
    COUNT_COLUMNS,
    DECISION_COLUMNS,
    DECISION_KINDS,
    OUTCOME_STATS,
    decision_time_percentile,
)

__all__ = [
    "DEFAULT_DAYS",
    "SeriesKey",
    "TrendFilters",
    "daily_series",
    "decision_counts",
    "decision_times",
    "rate_change_directions",
    "trend_alerts",
    "trend_counts",
    "trend_filters_from",
    "trend_options",
]

#: The range shown when the URL gives none: six weeks of days, three of hours.
DEFAULT_DAYS = {"day": 42, "hour": 3}
GRANULARITIES = ("day", "hour")
#: Decisions counted per day (an undo is not a decision of its own): the
#: kinds the summary keeps.
DECISIONS = tuple(ReviewDecision.Decision(kind) for kind in DECISION_KINDS)


@dataclass(frozen=True)
class TrendFilters:
    """What the trends page shows, all of it in the URL."""

    start: date
    end: date  # inclusive
    surface: str = ""  # a surface's name; "" all surfaces
    model: str = ""  # "" all models
    granularity: str = "day"

    @property
    def since(self) -> datetime:
        return datetime.combine(self.start, time(), tzinfo=UTC)

    @property
    def until(self) -> datetime:
        """The end as an exclusive moment: midnight after the last day."""
        return datetime.combine(self.end + timedelta(days=1), time(), tzinfo=UTC)

    def buckets(self) -> list[datetime]:
        """Every day (or hour) of the range, in order: the charts' x axis."""
        step = timedelta(days=1) if self.granularity == "day" else timedelta(hours=1)
        moments, moment = [], self.since
        while moment < self.until:
            moments.append(moment)
            moment += step
        return moments

    def query(self, **changes: str) -> str:
        """The filters as a URL query string (with ``changes`` applied)."""
        filters = replace(self, **changes) if changes else self  # type: ignore[arg-type]
        return urlencode({
            "surface": filters.surface, "model": filters.model,
            "start": filters.start.isoformat(), "end": filters.end.isoformat(),
            "granularity": filters.granularity,
        })


def _date(value: str | None) -> date | None:
    try:
        return date.fromisoformat(value) if value else None
    except ValueError:
        return None


def trend_filters_from(query: Mapping[str, str], *, today: date | None = None) -> TrendFilters:
    """The filters from a URL's query; a missing or unreadable value takes its
    default (the last 42 days, or 3 days of hours; all surfaces and models)."""
    today = today or timezone.now().astimezone(UTC).date()
    granularity = query.get("granularity", "day")
    if granularity not in GRANULARITIES:
        granularity = "day"
    end = _date(query.get("end")) or today
    start = _date(query.get("start")) or end - timedelta(days=DEFAULT_DAYS[granularity] - 1)
    if start > end:
        start, end = end, start
    return TrendFilters(start=start, end=end, surface=str(query.get("surface", "")).strip(),
                        model=str(query.get("model", "")).strip(), granularity=granularity)


def trend_options() -> dict[str, list[str]]:
    """The surfaces and models the filters offer."""
    return {
        "surfaces": list(Surface.objects.order_by("name").values_list("name", flat=True)),
        "models": list(AnswerStats.objects.order_by("model").values_list("model", flat=True)
                       .distinct()),
    }


def _stats(filters: TrendFilters) -> QuerySet[AnswerStats]:
    rows = AnswerStats.objects.filter(hour__gte=filters.since, hour__lt=filters.until)
    if filters.surface:
        rows = rows.filter(surface__name=filters.surface)
    if filters.model:
        rows = rows.filter(model=filters.model)
    return rows.order_by()


def _as_bucket(value: datetime | date) -> datetime:
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.combine(value, time(), tzinfo=UTC)


def trend_counts(filters: TrendFilters) -> list[dict[str, Any]]:
    """The summary's counts per bucket (day or hour) and model, in one query:
    ``{"bucket": datetime, "model": str, "answers": n, "with_fabricated": n, …}``."""
    bucket = TruncDay("hour") if filters.granularity == "day" else TruncHour("hour")
    rows = (_stats(filters).filter(answers__gt=0).annotate(bucket=bucket)
            .values("bucket", "model")
            .annotate(**{f"sum_{column}": Sum(column) for column in COUNT_COLUMNS})
            .order_by("bucket", "model"))
    return [{"bucket": _as_bucket(row["bucket"]), "model": row["model"],
             **{column: row[f"sum_{column}"] or 0 for column in COUNT_COLUMNS}}
            for row in rows]


def decision_counts(filters: TrendFilters) -> list[dict[str, Any]]:
    """Decisions made per bucket and kind (undos aside), from the summary:
    ``{"bucket", "decision", "count"}``."""
    bucket = TruncDay("hour") if filters.granularity == "day" else TruncHour("hour")
    rows = (_stats(filters).annotate(bucket=bucket).values("bucket")
            .annotate(**{kind: Sum(f"decided_{kind}") for kind in DECISION_KINDS})
            .order_by("bucket"))
    return [{"bucket": _as_bucket(row["bucket"]), "decision": kind, "count": row[kind]}
            for row in rows for kind in DECISION_KINDS if row[kind]]


def decision_times(filters: TrendFilters) -> list[dict[str, Any]]:
    """Time to decision per bucket of the answers' first decisions (the
    first that is not an undo) — ``{"bucket", "decided", "median_hours",
    "p90_hours"}`` — read from the summary's histogram: each percentile is
    the upper edge of the bucket that holds it ("median ≤ 4 h"), like
    verification time, so the page reads a few rows however many answers
    were decided."""
    bucket = TruncDay("hour") if filters.granularity == "day" else TruncHour("hour")
    rows = (_stats(filters).filter(first_decisions__gt=0).annotate(bucket=bucket)
            .values("bucket").annotate(**{f"sum_{c}": Sum(c) for c in DECISION_COLUMNS})
            .order_by("bucket"))
    result = []
    for row in rows:
        histogram = {column: row[f"sum_{column}"] or 0 for column in DECISION_COLUMNS}
        result.append({"bucket": _as_bucket(row["bucket"]),
                       "decided": histogram["first_decisions"],
                       "median_hours": decision_time_percentile(histogram, 0.5),
                       "p90_hours": decision_time_percentile(histogram, 0.9)})
    return result


def trend_alerts(filters: TrendFilters) -> list[TrendAlert]:
    """Stored rate changes in the range, for the surface and model shown (all
    models' alerts are shown unless one model is chosen)."""
    # With owner, acknowledger and history, for the alerts' handling.
    alerts = alerts_for_handling().filter(day__gte=filters.start, day__lte=filters.end)
    if filters.surface:
        alerts = alerts.filter(surface__name=filters.surface)
    if filters.model:
        alerts = alerts.filter(model=filters.model)
    return list(alerts.order_by("day", "outcome", "surface__name", "model"))


@dataclass(frozen=True)
class SeriesKey:
    """One compared series: a surface's model, or all its models (``*``)."""

    surface_id: int
    model: str
    outcome: str


@dataclass
class DailySeries:
    """The daily counts the change-point rule compares, and which models
    served each surface each day (to name a new model in an alert)."""

    counts: dict[SeriesKey, dict[date, DayCount]]
    models: dict[tuple[int, date], set[str]]
    surface_names: dict[int, str]


def daily_series(start: date, end: date) -> DailySeries:
    """Per day from ``start`` to ``end`` (inclusive), surface, model (and all
    models: ``TrendAlert.ALL_MODELS``) and outcome: answers and answers with
    the outcome. One query over the summary table."""
    rows = (AnswerStats.objects.filter(
                hour__gte=datetime.combine(start, time(), tzinfo=UTC),
                hour__lt=datetime.combine(end + timedelta(days=1), time(), tzinfo=UTC),
                surface__isnull=False, answers__gt=0)
            .annotate(day=TruncDay("hour")).values("day", "surface_id", "model")
            .annotate(sum_answers=Sum("answers"),
                      **{f"sum_{column}": Sum(column) for column, _ in OUTCOME_STATS.values()})
            .order_by())
    counts: dict[SeriesKey, dict[date, DayCount]] = defaultdict(dict)
    models: dict[tuple[int, date], set[str]] = defaultdict(set)
    for row in rows:
        day = _as_bucket(row["day"]).date()
        models[(row["surface_id"], day)].add(row["model"])
        for outcome, (column, _) in OUTCOME_STATS.items():
            hits = row[f"sum_{column}"] or 0
            for model in (row["model"], TrendAlert.ALL_MODELS):
                key = SeriesKey(row["surface_id"], model, outcome)
                known = counts[key].get(day, DayCount(0, 0))
                counts[key][day] = DayCount(known.answers + row["sum_answers"],
                                            known.hits + hits)
    names = dict(Surface.objects.filter(pk__in={key.surface_id for key in counts})
                 .values_list("pk", "name"))
    return DailySeries(counts=dict(counts), models=dict(models), surface_names=names)


def compare_days(series: DailySeries, days: Iterable[date]) -> dict[SeriesKey, list[Comparison]]:
    """Every series' comparisons on ``days`` (the series must reach 14 days
    further back)."""
    wanted = sorted(days)
    return {key: compare_series(counts, wanted) for key, counts in series.counts.items()}


def rate_change_directions(today: date | None = None) -> dict[tuple[str, str, str], int]:
    """The Prometheus gauge's values: per (surface, model, outcome), the
    direction of the latest of today and yesterday that has enough answers to
    compare (+1 above its fortnight, -1 below, 0 within or not comparable)."""
    today = today or timezone.now().astimezone(UTC).date()
    yesterday = today - timedelta(days=1)
    series = daily_series(yesterday - timedelta(days=BASELINE_DAYS), today)
    directions = {}
    for key, comparisons in compare_days(series, (yesterday, today)).items():
        label = (series.surface_names.get(key.surface_id, str(key.surface_id)),
                 key.model, key.outcome)
        directions[label] = comparisons[-1].direction if comparisons else 0
    return directions


def stats_totals(rows: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Column sums over ``trend_counts`` rows."""
    totals = dict.fromkeys(COUNT_COLUMNS, 0)
    for row in rows:
        for column in COUNT_COLUMNS:
            totals[column] += row[column]
    return totals

