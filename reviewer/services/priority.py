"""The triage queue's stored priority (``Answer.triage_priority``) restamped
in the database: when a surface's high stakes change (``surface_update``),
after a path that wrote around the services (``rebuild_stats``), and by the
recount check, which says how many answers it found wrong.

``Answer.save`` and re-verification keep it as they write an answer's
columns; this is the one UPDATE for many answers at once, with the formula of
``reviewer.severity.triage_priority`` as SQL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import (
    BigIntegerField,
    Case,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    QuerySet,
    Value,
    When,
)
from django.db.models.functions import Least

from reviewer.models import Answer, Surface
from reviewer.severity import FAILING_CAP, OUTCOME_COLUMNS, PRIORITY_FAILING, PRIORITY_SEVERITY

__all__ = ["answers_priority_drifted", "answers_priority_restamp", "priority_expression",
           "surface_high_stakes_held"]


def priority_expression(high_stakes: bool | None = None) -> Any:
    """``triage_priority`` computed from an answer's columns, as an expression
    an UPDATE can set: ``high_stakes`` given (all the answers are on one
    surface), or read from each answer's surface (None)."""
    failing = sum((F(column) for column in OUTCOME_COLUMNS.values()), Value(0))
    if high_stakes is None:
        stakes: Any = Case(When(Exists(Surface.objects.filter(pk=OuterRef("surface_id"),
                                                              high_stakes=True)),
                                then=Value(1)), default=Value(0))
    else:
        stakes = Value(int(high_stakes))
    return ExpressionWrapper(
        F("severity") * Value(PRIORITY_SEVERITY)
        + Least(failing, Value(FAILING_CAP)) * Value(PRIORITY_FAILING) + stakes,
        output_field=BigIntegerField())


def answers_priority_drifted(answers: QuerySet[Answer] | None = None) -> QuerySet[Answer]:
    """The answers (soft-deleted ones too) whose stored priority is not its
    recomputation, with it as ``true_priority``."""
    answers = Answer.all_objects.all() if answers is None else answers
    expression = priority_expression()
    return answers.exclude(triage_priority=expression).annotate(true_priority=expression)


def answers_priority_restamp(*, surface_ids: Iterable[int] | None = None,
                             high_stakes: bool | None = None) -> int:
    """Set the stored priority of the answers of ``surface_ids`` (None: every
    answer) to its recomputation, in one UPDATE that writes only the answers
    it changes; ``high_stakes`` is those surfaces' setting when the caller
    knows it (one surface). Returns how many answers changed."""
    answers = Answer.all_objects.all()
    if surface_ids is not None:
        answers = answers.filter(surface_id__in=list(surface_ids))
    expression = priority_expression(high_stakes)
    return answers.exclude(triage_priority=expression).update(triage_priority=expression)


def surface_high_stakes_held(surface_id: int) -> bool:
    """A surface's ``high_stakes`` as committed now, for an answer about to be
    stored on it (inside that transaction). On PostgreSQL the surface row is
    held ``FOR KEY SHARE`` (as the answer's foreign key holds it anyway): a
    ``surface_update`` in flight, which holds it ``FOR UPDATE`` and restamps the
    surface's answers, either commits first (this reads its value) or waits
    for this answer to commit (its restamp then sees it). Answers on one
    surface do not wait for each other."""
    table = connection.ops.quote_name(Surface._meta.db_table)
    lock = " FOR KEY SHARE" if connection.vendor == "postgresql" else ""
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT high_stakes FROM {table} WHERE id = %s{lock}", [surface_id])
        row = cursor.fetchone()
    return bool(row and row[0])
