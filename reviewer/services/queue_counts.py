"""Keeping the triage queue's counts (``QueueGroup``) as answers change.

The queue shows, for every filter value, how many answers it would hold.
Counting that from the answers reads every row (at 100k answers, 150-200 ms
on PostgreSQL, most of the page); these rows are that GROUP BY kept up to
date, so the page sums a few hundred of them.

Every write that changes an answer's counted values calls
``queue_counts_move`` inside its own transaction: ``answer_submit`` (a new
answer), ``review_decide`` and ``review_undo`` (review state),
``answers_assign`` (assignee). Anything else that changes them (a bulk import,
a bench, an upgrade) runs ``manage.py rebuild_stats``, which calls
``queue_counts_rebuild``; the tests hold the kept counts equal to a rebuild,
and ``manage.py rebuild_stats --check`` (``reviewer.services.recount``, on a
schedule) logs any drift from a recount as an error and repairs it.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Mapping
from functools import cache
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.db.models import Count

from reviewer.models import Answer, QueueGroup
from reviewer.severity import OUTCOME_COLUMNS, outcome_mask

__all__ = ["KEY_SOURCE_FIELDS", "QueueKey", "queue_counts_move", "queue_counts_rebuild",
           "queue_counts_recount", "queue_counts_write", "queue_key", "queue_key_of_row"]

logger = logging.getLogger("citeguard.queue")

#: (surface_key, model, verdict, review_state, assignee_key, outcomes)
QueueKey = tuple[int, str, str, str, int, int]
_KEY_FIELDS = ("surface_key", "model", "verdict", "review_state", "assignee_key", "outcomes")
#: The answer columns a key is computed from.
KEY_SOURCE_FIELDS = ("surface_id", "model", "verdict", "review_state", "assigned_to_id",
                     *OUTCOME_COLUMNS.values())


def queue_key_of_row(row: Any) -> QueueKey:
    """The key of an answer given as a mapping of ``KEY_SOURCE_FIELDS``."""
    return (row["surface_id"] or 0, row["model"], row["verdict"], row["review_state"],
            row["assigned_to_id"] or 0, outcome_mask(row))


def queue_key(answer: Answer) -> QueueKey:
    return queue_key_of_row({name: getattr(answer, name) for name in KEY_SOURCE_FIELDS})


@cache
def _increment_sql(vendor: str) -> str:
    quote = connection.ops.quote_name
    where = " AND ".join(f"{quote(name)} = %s" for name in _KEY_FIELDS)
    return (f"UPDATE {quote(QueueGroup._meta.db_table)} "
            f"SET {quote('answers')} = {quote('answers')} + %s WHERE {where}")


def queue_counts_move(*, remove: Iterable[QueueKey] = (), add: Iterable[QueueKey] = ()) -> None:
    """Take answers out of the groups in ``remove`` and put them in those in
    ``add`` (one answer per key given; a key may repeat).

    An ``UPDATE … SET answers = answers + n`` per changed group; a group's
    first answer inserts it (in a savepoint, the update again when a
    concurrent request inserted it first). Call inside the transaction that
    makes the change, so the two commit together.
    """
    delta: Counter[QueueKey] = Counter(add)
    delta.subtract(Counter(remove))
    sql = _increment_sql(connection.vendor)
    for key, change in sorted(delta.items()):
        if change == 0:
            continue
        for _ in range(3):
            with connection.cursor() as cursor:
                cursor.execute(sql, [change, *key])
                if cursor.rowcount:
                    break
            if change < 0:
                # Counts kept before this group existed (an upgrade without a
                # rebuild): the page would be off by these answers until
                # rebuild_stats runs. Say so rather than fail the decision.
                logger.warning("queue counts: no group %s to take %d answers from; run "
                               "manage.py rebuild_stats", key, -change)
                break
            try:
                with transaction.atomic():
                    QueueGroup.objects.create(**dict(zip(_KEY_FIELDS, key, strict=True)),
                                              answers=change)
                break
            except IntegrityError:
                continue
        else:
            raise RuntimeError(f"could not update the queue counts of group {key}")


def queue_counts_recount() -> Counter[QueueKey]:
    """Every group's count from the answers (one GROUP BY), without writing."""
    grouped: Counter[QueueKey] = Counter()
    rows = (Answer.objects.order_by().values(*KEY_SOURCE_FIELDS)
            .annotate(n=Count("pk")))
    for row in rows.iterator(chunk_size=2000):
        grouped[queue_key_of_row(row)] += row["n"]
    return grouped


def queue_counts_write(grouped: Mapping[QueueKey, int]) -> int:
    """Replace every kept group with ``grouped``; returns the number of groups."""
    with transaction.atomic():
        QueueGroup.objects.all().delete()
        QueueGroup.objects.bulk_create(
            (QueueGroup(**dict(zip(_KEY_FIELDS, key, strict=True)), answers=n)
             for key, n in grouped.items() if n), batch_size=1000)
    return sum(1 for n in grouped.values() if n)


def queue_counts_rebuild() -> int:
    """Recompute every group from the answers; returns the number of groups."""
    with transaction.atomic():
        return queue_counts_write(queue_counts_recount())
