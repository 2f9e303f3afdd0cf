"""Keeping trends' summary table (``AnswerStats``) as answers arrive.

``stats_record_answer`` adds one answer to its hour's row, inside the
transaction that stores the answer, so the two commit together; ``stats_rebuild``
recomputes every row from the answers with one grouped query (after imports,
backfills, or a bench that inserts answers directly). The tests hold the two
equal.

Histograms. Coverage (attributed claims / claims) falls in one of
``COVERAGE_BUCKETS``: below 25 %, 50 %, 75 %, 100 %, or exactly 100 % (an
answer without claims has coverage 1). Verification time (``elapsed_ms``) falls
in the first of ``LATENCY_BUCKETS`` whose upper edge it does not exceed:
0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000 ms, or over 1 s.
A percentile read from the histogram (``latency_percentile``) is the upper
edge of the bucket that holds it: "p90 ≤ 2 ms", never an underestimate, and
at most one bucket (a factor of 2–2.5) above the true value; in the open top
bucket it is reported as its lower edge (1000 ms, read "over 1 s").

Time to decision. An answer's first decision (its first that is not an
undo) is counted in the row of the hour it was made, with the answer's
surface and model, by ``stats_record_decision`` inside
``review_decide``; its time from the answer's arrival falls in one of
``DECISION_TIME_BUCKETS`` (15 min, 1 h, 4 h, 1 day, 3 days, a week, more),
read back as percentiles the same way. Counted live, a median over every
decided answer cost the trends page 110-150 ms at 20k decisions.
"""

from __future__ import annotations

import logging
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from functools import cache

from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Min, Q, Sum
from django.db.models.functions import TruncHour

from reviewer.models import Answer, AnswerStats, ReviewDecision

logger = logging.getLogger("citeguard.stats")

__all__ = [
    "COUNT_COLUMNS",
    "COVERAGE_BUCKETS",
    "DECISION_COLUMNS",
    "DECISION_KINDS",
    "DECISION_TIME_BUCKETS",
    "LATENCY_BUCKETS",
    "OUTCOME_STATS",
    "VERDICT_STATS",
    "StatsKey",
    "decision_time_percentile",
    "latency_percentile",
    "stats_increments",
    "stats_move_answers",
    "stats_rebuild",
    "stats_record_answer",
    "stats_record_decision",
    "stats_recount",
    "stats_write",
]

#: The summary column counting answers with ≥ 1 of each outcome, and the
#: answer column it is read from (reviewer.severity's denormalised counts),
#: worst first (reviewer.severity.SEVERITY_ORDER): trends charts them in
#: this order.
OUTCOME_STATS: dict[str, tuple[str, str]] = {
    "fabricated-marker": ("with_fabricated", "fabricated_count"),
    "quote-altered": ("with_altered", "altered_count"),
    "claim-mismatch": ("with_claim_mismatch", "claim_mismatch_count"),
    "quote-not-found": ("with_not_found", "not_found_count"),
    "claim-unsupported": ("with_claim_unsupported", "claim_unsupported_count"),
    "wrong-source": ("with_wrong_source", "wrong_source_count"),
    "unattributed-quote": ("with_unattributed", "unattributed_count"),
    "uncited-claim": ("with_uncited", "uncited_count"),
}
VERDICT_STATS: dict[str, str] = {
    "pass": "verdict_pass", "flag": "verdict_flag", "fail": "verdict_fail",
}
#: (upper edge, column): coverage below the edge; None is exactly full coverage.
COVERAGE_BUCKETS: tuple[tuple[float | None, str], ...] = (
    (0.25, "cov_lt_25"), (0.5, "cov_lt_50"), (0.75, "cov_lt_75"), (1.0, "cov_lt_100"),
    (None, "cov_full"),
)
#: (upper edge in ms, column): elapsed_ms at most the edge; inf is the open top.
LATENCY_BUCKETS: tuple[tuple[float, str], ...] = (
    (0.25, "lat_le_250us"), (0.5, "lat_le_500us"), (1, "lat_le_1ms"), (2, "lat_le_2ms"),
    (5, "lat_le_5ms"), (10, "lat_le_10ms"), (20, "lat_le_20ms"), (50, "lat_le_50ms"),
    (100, "lat_le_100ms"), (200, "lat_le_200ms"), (500, "lat_le_500ms"), (1000, "lat_le_1s"),
    (math.inf, "lat_over_1s"),
)
#: (upper edge in hours, column): time from an answer's arrival to its first
#: decision at most the edge; inf is the open top.
DECISION_TIME_BUCKETS: tuple[tuple[float, str], ...] = (
    (0.25, "ttd_le_15m"), (1.0, "ttd_le_1h"), (4.0, "ttd_le_4h"), (24.0, "ttd_le_1d"),
    (72.0, "ttd_le_3d"), (168.0, "ttd_le_1w"), (math.inf, "ttd_over_1w"),
)
#: The columns counting answers as they arrive (by the hour they arrived).
COUNT_COLUMNS: tuple[str, ...] = (
    "answers", *VERDICT_STATS.values(), *(column for column, _ in OUTCOME_STATS.values()),
    "claims", "attributed_claims", *(column for _, column in COVERAGE_BUCKETS),
    *(column for _, column in LATENCY_BUCKETS),
)
#: The decision kinds counted per hour (an undo is not a decision of its own).
DECISION_KINDS: tuple[str, ...] = ("approve", "reject", "escalate")
#: The columns counting decisions (by the hour they were made).
DECISION_COLUMNS: tuple[str, ...] = (
    *(f"decided_{kind}" for kind in DECISION_KINDS),
    "first_decisions", *(column for _, column in DECISION_TIME_BUCKETS))


def _coverage_column(coverage: float) -> str:
    for edge, column in COVERAGE_BUCKETS:
        if edge is None or coverage < edge:
            return column
    raise AssertionError("unreachable: the last bucket has no edge")


def _latency_column(elapsed_ms: float) -> str:
    return next(column for edge, column in LATENCY_BUCKETS if elapsed_ms <= edge)


def stats_increments(answer: Answer) -> dict[str, int]:
    """What one answer adds to its summary row (columns it leaves alone omitted)."""
    increments = {"answers": 1, VERDICT_STATS[answer.verdict]: 1,
                  _coverage_column(answer.coverage): 1, _latency_column(answer.elapsed_ms): 1}
    for column, answer_column in OUTCOME_STATS.values():
        if getattr(answer, answer_column) > 0:
            increments[column] = 1
    if answer.claims:
        increments["claims"] = answer.claims
    if answer.attributed_claims:
        increments["attributed_claims"] = answer.attributed_claims
    return increments


def _hour(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(minute=0, second=0, microsecond=0)


@cache
def _increment_sql(vendor: str, null_surface: bool,
                   columns: tuple[str, ...] = COUNT_COLUMNS) -> str:
    """``UPDATE … SET n = n + %s`` over every counting column of one row.

    Written once per backend rather than through ``QuerySet.update``: the
    ORM spends about a millisecond compiling the F() expressions, which would
    be a fifth of ``answer_submit``'s time, for a statement that never changes.
    """
    quote = connection.ops.quote_name
    sets = ", ".join(f"{quote(column)} = {quote(column)} + %s" for column in columns)
    surface = (f"{quote('surface_id')} IS NULL" if null_surface
               else f"{quote('surface_id')} = %s")
    return (f"UPDATE {quote(AnswerStats._meta.db_table)} SET {sets} "
            f"WHERE {quote('hour')} = %s AND {surface} AND {quote('model')} = %s")


def stats_record_answer(answer: Answer) -> None:
    """Add ``answer`` to its (hour, surface, model) row, atomically.

    An ``UPDATE … SET n = n + 1`` first (the row exists for all but an hour's
    first answer); else an insert in a savepoint, and when a concurrent
    request inserted the row first (``IntegrityError``), the update again.
    The row stays locked until the caller's transaction commits, so answers
    of the same hour, surface and model commit one after another; that is the
    end of ``answer_submit``'s transaction, a few milliseconds.
    """
    _add(_hour(answer.created), answer.surface_id, answer.model, stats_increments(answer),
         COUNT_COLUMNS)


def stats_move_answers(moves: Iterable[tuple[Answer, Mapping[str, int]]]) -> None:
    """Recount answers whose verdict changed in place (re-verification): each
    ``(answer, before)`` takes ``before`` (its ``stats_increments`` as it was)
    out of the answer's arrival-hour row and puts its increments now in.

    One ``UPDATE`` per row whose counts change, inside the caller's
    transaction. A row that is not there (counts kept before the summary
    existed) is left for ``rebuild_stats``, with a warning, as the queue
    counts do: a partial row would be wrong either way.
    """
    deltas: dict[tuple[datetime, int | None, str], Counter[str]] = {}
    for answer, before in moves:
        delta = deltas.setdefault((_hour(answer.created), answer.surface_id, answer.model),
                                  Counter())
        delta.update(stats_increments(answer))
        delta.subtract(before)
    for (hour, surface_id, model), delta in sorted(
            deltas.items(), key=lambda item: (item[0][0], item[0][1] or 0, item[0][2])):
        if not any(delta.values()):
            continue
        params: list[object] = [delta.get(column, 0) for column in COUNT_COLUMNS]
        params.append(AnswerStats._meta.get_field("hour").get_db_prep_value(hour, connection))
        if surface_id is not None:
            params.append(surface_id)
        params.append(model)
        with connection.cursor() as cursor:
            cursor.execute(_increment_sql(connection.vendor, surface_id is None), params)
            if not cursor.rowcount:
                logger.warning("trends summary: no row %s %s %s to recount; run "
                               "manage.py rebuild_stats", hour, surface_id, model)


def _decision_time_column(hours: float) -> str:
    return next(column for edge, column in DECISION_TIME_BUCKETS if hours <= edge)


def stats_record_decision(*, answer: Answer, decision: str, decided_at: datetime,
                          first: bool) -> None:
    """Count a decision (approve, reject or escalate) on ``answer``, made at
    ``decided_at``, in the row of that hour with the answer's surface and
    model; when it is the answer's ``first`` decision, also its time from the
    answer's arrival. Called by ``review_decide`` inside its transaction."""
    increments = {f"decided_{decision}": 1}
    if first:
        hours = max(0.0, (decided_at - answer.created).total_seconds() / 3600)
        increments.update({"first_decisions": 1, _decision_time_column(hours): 1})
    _add(_hour(decided_at), answer.surface_id, answer.model, increments, DECISION_COLUMNS)


def _add(hour: datetime, surface_id: int | None, model: str, increments: Mapping[str, int],
         columns: tuple[str, ...]) -> None:
    """Add ``increments`` to the (hour, surface, model) row, creating it."""
    sql = _increment_sql(connection.vendor, surface_id is None, columns)
    params: list[object] = [increments.get(column, 0) for column in columns]
    params.append(AnswerStats._meta.get_field("hour").get_db_prep_value(hour, connection))
    if surface_id is not None:
        params.append(surface_id)
    params.append(model)
    for _ in range(3):
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            if cursor.rowcount:
                return
        try:
            with transaction.atomic():
                AnswerStats.objects.create(hour=hour, surface_id=surface_id, model=model,
                                           **increments)
            return
        except IntegrityError:
            continue
    raise RuntimeError(f"could not add to the trends summary row {hour} {surface_id} {model}")


def _rebuild_aggregates() -> dict[str, Count | Sum]:
    aggregates: dict[str, Count | Sum] = {"answers": Count("pk")}
    for verdict, column in VERDICT_STATS.items():
        aggregates[column] = Count("pk", filter=Q(verdict=verdict))
    for column, answer_column in OUTCOME_STATS.values():
        aggregates[column] = Count("pk", filter=Q(**{f"{answer_column}__gt": 0}))
    aggregates["claims"] = Sum("claims")
    aggregates["attributed_claims"] = Sum("attributed_claims")
    lower: float | None = None
    for edge, column in COVERAGE_BUCKETS:
        in_bucket = Q(coverage__lt=edge) if edge is not None else Q()
        aggregates[column] = Count("pk", filter=in_bucket & (Q(coverage__gte=lower)
                                                              if lower is not None else Q()))
        lower = edge
    lower = None
    for latency_edge, column in LATENCY_BUCKETS:
        in_bucket = Q(elapsed_ms__lte=latency_edge) if math.isfinite(latency_edge) else Q()
        aggregates[column] = Count("pk", filter=in_bucket & (Q(elapsed_ms__gt=lower)
                                                              if lower is not None else Q()))
        lower = latency_edge
    return aggregates


#: A summary row's key: (hour, surface id, model).
StatsKey = tuple[datetime, int | None, str]


def stats_recount() -> dict[StatsKey, dict[str, int]]:
    """Every summary row's counts from the answers and decisions, without
    writing: one grouped query over the answers, one over the decisions."""
    # all_objects: a deleted answer still arrived (and may have been decided),
    # as the kept counts say; deleting hides it, it does not rewrite history.
    grouped = (Answer.all_objects.order_by().annotate(bucket=TruncHour("created"))
               .values("bucket", "surface_id", "model").annotate(**_rebuild_aggregates()))
    decisions = _decision_counts()
    rows: dict[StatsKey, dict[str, int]] = {}
    for row in grouped.iterator(chunk_size=2000):
        key = (_hour(row["bucket"]), row["surface_id"], row["model"])
        rows[key] = {**{column: row[column] or 0 for column in COUNT_COLUMNS},
                     **dict.fromkeys(DECISION_COLUMNS, 0), **decisions.pop(key, {})}
    # Hours with first decisions but no answers arriving.
    for key, counts in decisions.items():
        rows[key] = {**dict.fromkeys(COUNT_COLUMNS, 0), **counts}
    return rows


def stats_write(rows: Mapping[StatsKey, Mapping[str, int]]) -> int:
    """Replace the whole summary table with ``rows``; returns its rows."""
    with transaction.atomic():
        AnswerStats.objects.all().delete()
        created = AnswerStats.objects.bulk_create(
            (AnswerStats(hour=hour, surface_id=surface_id, model=model, **counts)
             for (hour, surface_id, model), counts in rows.items()), batch_size=1000)
    return len(created)


def stats_rebuild() -> int:
    """Recompute the whole summary table from the answers; returns its rows.

    One grouped query over the answers, then inserts in batches, in one
    transaction (readers see the old table until it commits). Answers
    arriving meanwhile are counted by their own ``stats_record_answer`` once
    the rebuild commits; run it again if in doubt, it is idempotent.
    """
    with transaction.atomic():
        return stats_write(stats_recount())


def _decision_counts() -> dict[tuple[datetime, int | None, str], dict[str, int]]:
    """Per (hour of decision, surface, model): decisions by kind, first
    decisions and their time histogram, from the decisions themselves (an
    answer's first decision is its first that is not an undo, even if it was
    undone later)."""
    decisions = (ReviewDecision.objects.filter(applied=True)
                 .exclude(decision=ReviewDecision.Decision.UNDO).order_by())
    counts: dict[tuple[datetime, int | None, str], dict[str, int]] = {}

    def row_for(at: datetime, surface_id: int | None, model: str) -> dict[str, int]:
        return counts.setdefault((_hour(at), surface_id, model),
                                 dict.fromkeys(DECISION_COLUMNS, 0))

    per_hour = (decisions.annotate(at=TruncHour("created"))
                .values("at", "answer__surface_id", "answer__model", "decision")
                .annotate(n=Count("pk")))
    for row in per_hour.iterator(chunk_size=2000):
        counts_row = row_for(row["at"], row["answer__surface_id"], row["answer__model"])
        counts_row[f"decided_{row['decision']}"] += row["n"]
    first = (decisions.values("answer_id").annotate(at=Min("created"))
             .values("answer_id", "at", "answer__created", "answer__surface_id",
                     "answer__model"))
    for row in first.iterator(chunk_size=2000):
        counts_row = row_for(row["at"], row["answer__surface_id"], row["answer__model"])
        hours = max(0.0, (row["at"] - row["answer__created"]).total_seconds() / 3600)
        counts_row["first_decisions"] += 1
        counts_row[_decision_time_column(hours)] += 1
    return counts


def decision_time_percentile(histogram: Mapping[str, int], fraction: float) -> float | None:
    """Like ``latency_percentile``, for time to first decision in hours."""
    return _bucket_percentile(histogram, fraction, DECISION_TIME_BUCKETS)


def latency_percentile(histogram: Mapping[str, int], fraction: float) -> float | None:
    """The ``fraction`` (0–1) percentile of verification time in ms from
    summed latency columns: the upper edge of the bucket holding it (the open
    top bucket: its lower edge); None without answers."""
    return _bucket_percentile(histogram, fraction, LATENCY_BUCKETS)


def _bucket_percentile(histogram: Mapping[str, int], fraction: float,
                       buckets: tuple[tuple[float, str], ...]) -> float | None:
    counts: Sequence[int] = [histogram.get(column, 0) or 0 for _, column in buckets]
    total = sum(counts)
    if not total:
        return None
    rank = max(1, math.ceil(fraction * total))
    seen = 0
    for index, ((edge, _), count) in enumerate(zip(buckets, counts, strict=True)):
        seen += count
        if seen >= rank:
            return edge if math.isfinite(edge) else buckets[index - 1][0]
    raise AssertionError("unreachable: the rank is at most the total")
