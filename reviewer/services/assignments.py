"""Whose queue an answer is in, and who has it open: supervisors assign,
reviewers open answers to decide them.

Every change of assignee is also an ``Assignment`` row, so the history of who
was meant to decide an answer survives later reassignments.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from reviewer.models import Answer, Assignment
from reviewer.services.queue_counts import (
    KEY_SOURCE_FIELDS,
    queue_counts_move,
    queue_key_of_row,
)

__all__ = [
    "IN_REVIEW_MINUTES",
    "PRESENCE_MINUTES",
    "AssignmentRefused",
    "answer_heartbeat",
    "answer_open",
    "answers_assign",
    "in_review_by_other",
    "present_other",
    "reviewers",
]

#: How long an opened review page counts as someone deciding the answer
#: without a heartbeat: the open page sends one a minute (while it is shown),
#: so a closed or long-hidden page stops counting after a few minutes.
PRESENCE_MINUTES = 3
#: The former name of the same window.
IN_REVIEW_MINUTES = PRESENCE_MINUTES


class AssignmentRefused(ValueError):
    """Not assigned; the message says why."""


def reviewers() -> list[Any]:
    """Active users who may decide answers: the people answers can be assigned to."""
    # One query, not has_perm per user (two queries each): the roles give the
    # permission through groups, a site may also give it to a user directly.
    decide = Q(content_type__app_label="reviewer", codename="decide_answer")
    permission = Permission.objects.filter(decide).first()
    users = get_user_model().objects.filter(is_active=True)
    if permission is not None:
        users = users.filter(Q(is_superuser=True) | Q(groups__permissions=permission)
                             | Q(user_permissions=permission))
    else:
        users = users.filter(is_superuser=True)
    return list(users.distinct().order_by("username"))


def answers_assign(*, answer_ids: Iterable[int], assignee: Any | None, assigned_by: Any) -> int:
    """Put the answers in ``assignee``'s queue (None: back to unassigned);
    returns how many changed. Only someone who may assign can; only someone
    who may decide can be given answers."""
    if not assigned_by.has_perm("reviewer.assign_answer"):
        raise PermissionDenied("Assigning answers needs the supervisor role.")
    if assignee is not None and not (assignee.is_active
                                     and assignee.has_perm("reviewer.decide_answer")):
        raise AssignmentRefused(f"{assignee.get_username()} cannot decide answers: give them "
                                "the reviewer role first.")
    ids = sorted({int(i) for i in answer_ids})
    if not ids:
        return 0
    assignee_id = assignee.pk if assignee is not None else None
    now = timezone.now()
    with transaction.atomic():
        changing = list(Answer.objects.select_for_update().filter(pk__in=ids)
                        .exclude(assigned_to_id=assignee_id).values_list("pk", flat=True)
                        if assignee_id is not None else
                        Answer.objects.select_for_update().filter(
                            pk__in=ids, assigned_to__isnull=False).values_list("pk", flat=True))
        if not changing:
            return 0
        before = [queue_key_of_row(row) for row in
                  Answer.objects.filter(pk__in=changing).values(*KEY_SOURCE_FIELDS)]
        after = [(*key[:4], assignee_id or 0, key[5]) for key in before]
        queue_counts_move(remove=before, add=after)
        Answer.objects.filter(pk__in=changing).update(assigned_to_id=assignee_id,
                                                      assigned_at=now if assignee_id else None)
        Assignment.objects.bulk_create(
            Assignment(answer_id=pk, assignee_id=assignee_id, assigned_by=assigned_by)
            for pk in changing)
    return len(changing)


def answer_open(*, answer: Answer, user: Any) -> None:
    """Mark ``answer`` as being decided by ``user`` (who opened its review
    page), unless someone else's page for it is still alive.

    ``in_review_since`` is when that presence was last confirmed: the page's
    opening, then each of its heartbeats (``answer_heartbeat``)."""
    if not user.has_perm("reviewer.decide_answer") or answer.review_state != "pending":
        return
    now = timezone.now()
    if in_review_by_other(answer, user, now=now) is not None:
        return
    Answer.objects.filter(pk=answer.pk).update(in_review_by=user, in_review_since=now)
    answer.in_review_by, answer.in_review_since = user, now


def answer_heartbeat(*, answer: Answer, user: Any) -> bool:
    """The open review page of ``user`` is still there: keep their presence
    on ``answer`` (or take it over from someone whose page went quiet).
    Returns whether ``user`` is the one shown as deciding it.

    A presence already given up (the answer decided) is not taken again."""
    if answer.in_review_by_id is None:
        return False
    if answer.in_review_by_id == user.pk:
        if answer.review_state != "pending":
            return False
        now = timezone.now()
        Answer.objects.filter(pk=answer.pk, in_review_by=user).update(in_review_since=now)
        answer.in_review_since = now
        return True
    answer_open(answer=answer, user=user)
    return answer.in_review_by_id == user.pk


def in_review_by_other(answer: Answer, user: Any, *, now: Any = None) -> Any | None:
    """Who else has this answer's review page open: someone whose page was
    last heard from (opened, or its heartbeat) within PRESENCE_MINUTES; or None."""
    if not present_other(answer.in_review_by_id, answer.in_review_since, user, now=now):
        return None
    return answer.in_review_by


def present_other(by_id: int | None, since: datetime | None, user: Any, *,
                  now: datetime | None = None) -> bool:
    """Whether ``by_id`` (an answer's ``in_review_by_id``), someone other
    than ``user``, has its review page open: last heard from (``since``)
    within PRESENCE_MINUTES. The queue asks it of its rows' columns, and
    reads the names of only those present (``in_review_by_other`` reads the
    person)."""
    if by_id is None or by_id == user.pk or since is None:
        return False
    return (now or timezone.now()) - since <= timedelta(minutes=PRESENCE_MINUTES)
