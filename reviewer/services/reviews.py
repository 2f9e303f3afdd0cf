"""Reviewers' decisions on answers, kept as an append-only audit trail.

Nothing here trusts the page that posted the decision: the checks that keep a
decision from being made by accident (failing citations left unopened, a
missing note on a high-stakes surface, an undo after its window) are made
again here, so a second key press or a hand-written request meets them too.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from reviewer.models import Answer, ReviewDecision
from reviewer.selectors.reviews import failing_citations, undo_seconds
from reviewer.services.queue_counts import queue_counts_move, queue_key
from reviewer.services.stats import stats_record_decision

__all__ = ["NOTE_MAX_CHARS", "DecisionConflict", "DecisionRefused", "review_decide",
           "review_undo"]

#: The longest note a decision keeps. The page shows it (``maxlength`` and a
#: counter); a longer note is refused with this number, never cut.
NOTE_MAX_CHARS = 5000

_STATE = {
    ReviewDecision.Decision.APPROVE: Answer.ReviewState.APPROVED,
    ReviewDecision.Decision.REJECT: Answer.ReviewState.REJECTED,
    ReviewDecision.Decision.ESCALATE: Answer.ReviewState.ESCALATED,
}
_NEEDS_NOTE_ON_HIGH_STAKES = (ReviewDecision.Decision.APPROVE, ReviewDecision.Decision.REJECT)


class DecisionRefused(ValueError):
    """Not recorded; ``code`` says why (the message says it to a person)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class DecisionConflict(DecisionRefused):
    """Recorded but not applied: another decision landed after the state the
    reviewer saw. ``record`` is the kept, unapplied row; ``winner`` the
    decision that moved the answer first."""

    def __init__(self, record: ReviewDecision, winner: ReviewDecision) -> None:
        at = timezone.localtime(winner.created).strftime("%H:%M:%S")
        who = winner.reviewer.get_username()
        what = ("undid a decision" if winner.decision == ReviewDecision.Decision.UNDO
                else winner.get_decision_display().lower())
        note = f" (note: \u201c{winner.note[:200]}\u201d)" if winner.note else ""
        super().__init__(
            "conflict",
            f"Someone decided this meanwhile: {who} {what} at {at}{note}, so the answer is "
            f"now {winner.get_to_state_display().lower()}. Your "
            f"{record.get_decision_display().lower()} decision is kept in the trail but was "
            "not applied; read theirs, then decide again if you disagree.")
        self.record, self.winner = record, winner


def _ids(values: Iterable[object]) -> set[int]:
    found: set[int] = set()
    for value in values:
        for part in str(value).split(","):
            if part.strip().isdigit():
                found.add(int(part.strip()))
    return found


def review_decide(
    *, answer: Answer, reviewer: AbstractBaseUser, decision: str, note: str = "",
    opened: Iterable[object] = (), confirmed: bool = False, seen: int | None = None,
    decided_at: datetime | None = None,
) -> ReviewDecision:
    """Record a decision (reviewer, time, the state before and after) and move
    the answer's state.

    ``opened`` holds the ids of the citations the reviewer opened. Approving
    while any failing citation is unopened needs ``confirmed``; approving or
    rejecting a failing answer on a high-stakes surface needs a note. A repeat
    of the reviewer's own latest decision within the undo window (a second
    key press) is refused rather than recorded twice.

    ``seen`` is the id of the latest applied decision the reviewer saw (0:
    none; None: not checked). When another has landed since, this decision
    is still recorded, unapplied and pointing at it, and ``DecisionConflict``
    is raised after the commit: both are kept, the answer's state is the
    winner's.

    ``decided_at`` records a decision made earlier (an import of history, the
    demo's): stored and counted (trends, the queue) as made then.
    """
    if decision not in _STATE:
        raise DecisionRefused("unknown-decision", f"There is no decision {decision!r}.")
    if not reviewer.has_perm("reviewer.decide_answer"):  # type: ignore[attr-defined]
        raise DecisionRefused("not-allowed", "Deciding answers needs the reviewer role.")
    kind = ReviewDecision.Decision(decision)
    # A form posts line breaks as CRLF; the page's maxlength counts one each.
    note = note.replace("\r\n", "\n").strip()
    if len(note) > NOTE_MAX_CHARS:
        raise DecisionRefused(
            "note-too-long",
            f"Not recorded: the note is {len(note):,} characters long and a note can hold at "
            f"most {NOTE_MAX_CHARS:,}. Shorten it (nothing was cut or kept).")
    with transaction.atomic():
        # Lock the answer: two decisions at once are taken one after the other,
        # each seeing the state the other left.
        answer = (Answer.objects.select_for_update(of=("self",))
                  .select_related("surface", "assigned_to").get(pk=answer.pk))
        _check_queue(answer, reviewer)
        failing = [c.pk for c in failing_citations(answer)]
        unopened = [pk for pk in failing if pk not in _ids(opened)]
        if kind == ReviewDecision.Decision.APPROVE and unopened and not confirmed:
            raise DecisionRefused(
                "unopened-failures",
                f"Not approved: {len(unopened)} of the {len(failing)} failing citations "
                f"{'has' if len(unopened) == 1 else 'have'} not been opened. Open "
                f"{'it' if len(unopened) == 1 else 'them'}, or confirm that you approve "
                "without reading the evidence.")
        surface = answer.surface
        if (surface is not None and surface.high_stakes and kind in _NEEDS_NOTE_ON_HIGH_STAKES
                and answer.verdict != Answer.Verdict.PASS and not note):
            raise DecisionRefused(
                "note-required",
                f"A note is required: {surface.name} is a high-stakes surface, and "
                f"{'approving' if kind == ReviewDecision.Decision.APPROVE else 'rejecting'} "
                "an answer that failed its check needs the reason written down.")
        latest = _latest(answer)
        # A second press of the same key (also from a page that has not seen
        # the first one land) is a repeat, not a conflict with oneself.
        if (latest is not None and latest.reviewer_id == reviewer.pk
                and latest.decision == kind and latest.note == note
                and timezone.now() - latest.created <= timedelta(seconds=undo_seconds())):
            raise DecisionRefused(
                "repeat", f"Already {latest.get_decision_display().lower()} by you a moment "
                          "ago; not recorded twice.")
        if seen is not None and (latest.pk if latest is not None else 0) != seen:
            # Decided on a state that has moved since: keep it, unapplied.
            if latest is None:
                raise DecisionRefused("conflict", "The decision you saw is not this answer's; "
                                                  "reload the page and decide again.")
            lost = ReviewDecision(answer=answer, reviewer=reviewer, decision=kind, note=note,
                                  from_state=answer.review_state, to_state=_STATE[kind],
                                  unopened_failures=unopened, applied=False,
                                  conflicts_with=latest)
            lost.full_clean()
            lost.save()
            conflict = DecisionConflict(lost, latest)
        else:
            conflict = None
            record = _apply(answer, reviewer, kind, note, unopened, decided_at)
    if conflict is not None:
        raise conflict
    return record


def _apply(answer: Answer, reviewer: AbstractBaseUser, kind: ReviewDecision.Decision,
           note: str, unopened: list[int], decided_at: datetime | None = None
           ) -> ReviewDecision:
    """Record ``kind`` as applied and move the answer's state (inside the lock)."""
    record = ReviewDecision(answer=answer, reviewer=reviewer, decision=kind, note=note,
                            from_state=answer.review_state, to_state=_STATE[kind],
                            unopened_failures=unopened)
    record.full_clean()
    if decided_at is None:
        record.save()
    else:
        # created is auto_now_add, and a decision is never updated: a raw
        # save stores the time given instead of now.
        record.created = decided_at
        record.save_base(raw=True)
    first = not (ReviewDecision.objects.filter(answer=answer, applied=True)
                 .exclude(pk=record.pk).exclude(decision=ReviewDecision.Decision.UNDO).exists())
    stats_record_decision(answer=answer, decision=kind.value, decided_at=record.created,
                          first=first)
    before = queue_key(answer)
    answer.review_state = _STATE[kind]
    answer.in_review_by = None
    answer.save(update_fields=["review_state", "in_review_by"])
    queue_counts_move(remove=[before], add=[queue_key(answer)])
    return record


def _check_queue(answer: Answer, reviewer: AbstractBaseUser) -> None:
    """A reviewer decides answers in their own queue and unassigned ones; one
    who may see every queue (a supervisor) decides any."""
    assignee = answer.assigned_to
    if (assignee is not None and assignee.pk != reviewer.pk
            and not reviewer.has_perm("reviewer.view_all_queues")):  # type: ignore[attr-defined]
        raise DecisionRefused("not-your-queue",
                              f"This answer is in {assignee.get_username()}'s queue; ask a "
                              "supervisor to reassign it.")


def review_undo(*, decision_id: int, reviewer: AbstractBaseUser) -> ReviewDecision:
    """Undo a decision within its window: an ``undo`` row pointing at it, and
    the answer back in the state the decision found it in.

    Only the reviewer who made it may undo it, only while it is the answer's
    latest decision (an undo never overwrites someone's later decision), and
    only once.
    """
    if not reviewer.has_perm("reviewer.decide_answer"):  # type: ignore[attr-defined]
        raise DecisionRefused("not-allowed", "Deciding answers needs the reviewer role.")
    with transaction.atomic():
        undone = ReviewDecision.objects.select_related("answer").filter(pk=decision_id).first()
        if undone is None:
            raise DecisionRefused("unknown-decision", "There is no such decision to undo.")
        answer = Answer.objects.select_for_update().get(pk=undone.answer_id)
        if undone.decision == ReviewDecision.Decision.UNDO:
            raise DecisionRefused("not-undoable", "An undo cannot itself be undone; decide "
                                                  "again instead.")
        if undone.reviewer_id != reviewer.pk:
            raise DecisionRefused("not-yours", "Only the reviewer who made a decision can "
                                               "undo it.")
        if not undone.applied:
            raise DecisionRefused("not-applied", "This decision was not applied (someone "
                                                 "decided first); there is nothing to undo.")
        if ReviewDecision.objects.filter(undoes=undone).exists():
            raise DecisionRefused("already-undone", "This decision has already been undone.")
        latest = _latest(answer)
        if latest is None or latest.pk != undone.pk:
            raise DecisionRefused("superseded", "A later decision has been made on this "
                                                "answer; this one can no longer be undone.")
        window = undo_seconds()
        if timezone.now() - undone.created > timedelta(seconds=window):
            raise DecisionRefused(
                "undo-expired", f"Too late to undo: a decision can be undone for {window:g} "
                                "seconds. Decide again instead; both stay in the trail.")
        restored = undone.from_state or Answer.ReviewState.PENDING
        record = ReviewDecision(answer=answer, reviewer=reviewer,
                                decision=ReviewDecision.Decision.UNDO, undoes=undone,
                                from_state=answer.review_state, to_state=restored)
        record.full_clean()
        record.save()
        before = queue_key(answer)
        answer.review_state = restored
        answer.save(update_fields=["review_state"])
        queue_counts_move(remove=[before], add=[queue_key(answer)])
    return record


def _latest(answer: Answer) -> ReviewDecision | None:
    """The answer's latest applied decision (what its state says)."""
    return (ReviewDecision.objects.filter(answer=answer, applied=True)
            .select_related("reviewer").order_by("-created", "-pk").first())
