"""The kept counts checked against a recount from the rows, and repaired.

Two tables hold counts kept as answers change, so that pages sum a few rows
instead of reading every answer: the triage queue's ``QueueGroup`` and
trends' ``AnswerStats``. Every service that changes a counted value moves
them in its own transaction; a path that writes around the services (an
import, a script, a bug) leaves them wrong, and the pages then show counts
no row backs ("464 need review" over 232 answers, empty pages past the end).

``counts_check`` recounts both from the rows, logs every difference as an
ERROR on the ``citeguard.counts`` logger with the numbers (which group, kept
and true), and writes the recount in place of the kept counts. It runs as
``manage.py rebuild_stats --check`` (cron it, e.g. hourly). Each table is
compared in its own transaction, holding writers of that table off (on
PostgreSQL a ``SHARE ROW EXCLUSIVE`` lock; SQLite has one writer anyway)
while the rows are read, so a decision landing meanwhile is never taken for
drift: it is counted either in both the kept and the true numbers or in
neither, and moves the repaired counts after the check commits.

It also recomputes every answer's stored queue priority
(``Answer.triage_priority``, kept by the same writers and by a surface's
high-stakes change) and logs and restamps those that differ, holding surface
changes off meanwhile (the value it recomputes reads the surface), and
likewise each answer's stored "rungs disagree" flag (``Answer.rungs_disagree``,
kept by storing a judgement and by re-verification).
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import connection, transaction

from reviewer.models import Answer, AnswerStats, QueueGroup, Surface
from reviewer.services.priority import answers_priority_drifted, answers_priority_restamp
from reviewer.services.queue_counts import QueueKey, queue_counts_recount, queue_counts_write
from reviewer.services.rungs import answers_rungs_drifted, answers_rungs_restamp
from reviewer.services.stats import (
    COUNT_COLUMNS,
    DECISION_COLUMNS,
    StatsKey,
    stats_recount,
    stats_write,
)
from reviewer.severity import OUTCOME_BITS

__all__ = ["CountsCheck", "Drift", "counts_check"]

logger = logging.getLogger("citeguard.counts")

#: How many drifted groups or rows are logged one per line (the rest summed).
LOGGED_LINES = 50


@dataclass(frozen=True)
class Drift:
    """One kept count that differs from the recount."""

    table: str  # "queue", "trends", "priority" or "rungs" (one answer's stored value)
    where: str  # the group or row, in words
    kept: int
    true: int


@dataclass
class CountsCheck:
    queue_groups: int = 0
    stats_rows: int = 0
    #: Answers whose stored queue priority was checked.
    answers: int = 0
    drifts: list[Drift] = field(default_factory=list)
    #: Per queue filter value whose count drifted ("state=approved"): (kept, true).
    facets: dict[str, tuple[int, int]] = field(default_factory=dict)

    @property
    def drifted(self) -> bool:
        return bool(self.drifts)


def counts_check(*, repair: bool = True) -> CountsCheck:
    """Compare both kept tables with a recount; log and (``repair``) fix drift."""
    check = CountsCheck()
    _check_queue(check, repair=repair)
    _check_stats(check, repair=repair)
    _check_priority(check, repair=repair)
    _check_rungs(check, repair=repair)
    for line, drift in enumerate(check.drifts):
        if line == LOGGED_LINES:
            logger.error("kept counts drifted: %d more groups or rows not listed",
                         len(check.drifts) - LOGGED_LINES)
            break
        logger.error("kept counts drifted: %s %s: kept %d, true %d", drift.table, drift.where,
                     drift.kept, drift.true)
    if check.facets:
        logger.error("triage counts that were wrong: %s", "; ".join(
            f"{name}: kept {kept}, true {true}" for name, (kept, true) in check.facets.items()))
    if check.drifted:
        logger.error("kept counts drifted in %d groups or rows; %s", len(check.drifts),
                     "repaired from the rows" if repair else "not repaired (dry run)")
    return check


def _lock(model: type[QueueGroup] | type[AnswerStats] | type[Surface],
          mode: str = "SHARE ROW EXCLUSIVE") -> None:
    """Hold off writers of ``model``'s table until the transaction ends."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(f"LOCK TABLE {connection.ops.quote_name(model._meta.db_table)} "
                           f"IN {mode} MODE")


def _check_queue(check: CountsCheck, *, repair: bool) -> None:
    with transaction.atomic():
        _lock(QueueGroup)
        kept: Counter[QueueKey] = Counter()
        for group in QueueGroup.objects.filter(answers__gt=0).values_list(
                "surface_key", "model", "verdict", "review_state", "assignee_key", "outcomes",
                "answers"):
            kept[group[:6]] += group[6]
        true = queue_counts_recount()
        check.queue_groups = len(true)
        drifted = sorted(key for key in kept.keys() | true.keys() if kept[key] != true[key])
        if not drifted:
            return
        names = _names(drifted)
        for key in drifted:
            check.drifts.append(Drift("queue", _group_words(key, names), kept[key], true[key]))
        check.facets = _facet_drift(kept, true, names)
        if repair:
            queue_counts_write(true)


def _names(keys: list[QueueKey]) -> dict[str, dict[int, str]]:
    surfaces = dict(Surface.objects.filter(pk__in={k[0] for k in keys})
                    .values_list("pk", "name"))
    people = dict(get_user_model().objects.filter(pk__in={k[4] for k in keys})
                  .values_list("pk", "username"))
    return {"surface": surfaces, "assignee": people}


def _outcome_words(mask: int) -> str:
    return "+".join(o for o, bit in OUTCOME_BITS.items() if mask & bit) or "none"


def _group_words(key: QueueKey, names: Mapping[str, Mapping[int, str]]) -> str:
    surface, model, verdict, state, assignee, outcomes = key
    return (f"group surface={names['surface'].get(surface, surface or '-')} "
            f"model={model or '-'} verdict={verdict} state={state} "
            f"assignee={names['assignee'].get(assignee, assignee) if assignee else 'none'} "
            f"outcomes={_outcome_words(outcomes)}")


def _facet_values(key: QueueKey, names: Mapping[str, Mapping[int, str]]) -> list[str]:
    surface, model, verdict, state, assignee, outcomes = key
    values = [f"state={state}", f"verdict={verdict}", f"model={model or '-'}",
              f"surface={names['surface'].get(surface, surface or '-')}",
              f"assignee={names['assignee'].get(assignee, assignee) if assignee else 'none'}"]
    if state == "pending" and verdict != "pass":
        values.append("needs review")
    values.extend(f"outcome={o}" for o, bit in OUTCOME_BITS.items() if outcomes & bit)
    return values


def _facet_drift(kept: Counter[QueueKey], true: Counter[QueueKey],
                 names: Mapping[str, Mapping[int, str]]) -> dict[str, tuple[int, int]]:
    """The queue's filter values whose count was wrong, as triage shows them."""
    sums: dict[str, list[int]] = {}
    for index, counts in enumerate((kept, true)):
        for key, n in counts.items():
            for value in _facet_values(key, names):
                sums.setdefault(value, [0, 0])[index] += n
    return {value: (k, t) for value, (k, t) in sorted(sums.items()) if k != t}


def _check_stats(check: CountsCheck, *, repair: bool) -> None:
    columns = (*COUNT_COLUMNS, *DECISION_COLUMNS)
    with transaction.atomic():
        _lock(AnswerStats)
        kept: dict[StatsKey, dict[str, int]] = {}
        for row in AnswerStats.objects.values("hour", "surface_id", "model", *columns):
            values = {column: row[column] for column in columns if row[column]}
            if values:
                kept[(row["hour"], row["surface_id"], row["model"])] = values
        true = {key: {c: n for c, n in counts.items() if n}
                for key, counts in stats_recount().items()}
        true = {key: counts for key, counts in true.items() if counts}
        check.stats_rows = len(true)
        drifted = sorted(kept.keys() ^ true.keys()
                         | {key for key in kept.keys() & true.keys() if kept[key] != true[key]},
                         key=lambda key: (key[0], key[1] or 0, key[2]))
        if not drifted:
            return
        surfaces = dict(Surface.objects.values_list("pk", "name"))
        for hour, surface_id, model in drifted:
            before, after = kept.get((hour, surface_id, model), {}), true.get(
                (hour, surface_id, model), {})
            for column in columns:
                if before.get(column, 0) != after.get(column, 0):
                    check.drifts.append(Drift(
                        "trends", f"{_hour_words(hour)} "
                                  f"surface={surfaces.get(surface_id, surface_id or '-')} "
                                  f"model={model or '-'} {column}",
                        before.get(column, 0), after.get(column, 0)))
        if repair:
            stats_write(true)


def _check_priority(check: CountsCheck, *, repair: bool) -> None:
    """Every answer's stored queue priority against its recomputation: one
    query for those that differ, one UPDATE to restamp them. Surfaces are
    locked against changes meanwhile (a high-stakes change restamps its
    answers: seen half-done, it would look like drift); answers being stored
    or re-verified compute their own under row locks the queries wait on."""
    with transaction.atomic():
        _lock(Surface, "SHARE")
        check.answers = Answer.all_objects.count()
        drifted = list(answers_priority_drifted().order_by("pk")
                       .values_list("pk", "triage_priority", "true_priority"))
        for pk, kept, true in drifted:
            check.drifts.append(Drift("priority", f"answer {pk} triage_priority", kept, true))
        if drifted and repair:
            answers_priority_restamp()


def _check_rungs(check: CountsCheck, *, repair: bool) -> None:
    """Every answer's stored "rungs disagree" flag against its recomputation
    from the judgements and citations: one query for those that differ, two
    UPDATEs to restamp them. The writers that change it (storing a
    judgement, re-verifying) hold the answer's row while they recompute, so
    the restamp writes no stale value over theirs: it waits for their row
    locks, and sees their rows once they commit."""
    with transaction.atomic():
        drifted = answers_rungs_drifted()
        for pk, kept in drifted:
            check.drifts.append(Drift("rungs", f"answer {pk} rungs_disagree", int(kept),
                                      int(not kept)))
        if drifted and repair:
            answers_rungs_restamp(answer_ids=[pk for pk, _ in drifted])


def _hour_words(hour: datetime) -> str:
    return f"{hour:%Y-%m-%d %H}h"
