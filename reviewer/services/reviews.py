"""Reviewers' decisions on answers, kept as an audit trail."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from reviewer.models import Answer, ReviewDecision

__all__ = ["review_decide"]

_STATE = {
    ReviewDecision.Decision.APPROVE: Answer.ReviewState.APPROVED,
    ReviewDecision.Decision.REJECT: Answer.ReviewState.REJECTED,
    ReviewDecision.Decision.ESCALATE: Answer.ReviewState.ESCALATED,
}


def review_decide(
    *, answer: Answer, reviewer: AbstractBaseUser, decision: str, note: str = ""
) -> ReviewDecision:
    """Record a decision (with reviewer and time) and move the answer's state."""
    record = ReviewDecision(answer=answer, reviewer=reviewer, decision=decision,
                            note=note.strip()[:5000])
    with transaction.atomic():
        record.full_clean()
        record.save()
        answer.review_state = _STATE[ReviewDecision.Decision(decision)]
        answer.save(update_fields=["review_state"])
    return record
