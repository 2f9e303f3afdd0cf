"""An answer's stored "rungs disagree" flag (``Answer.rungs_disagree``)
recomputed from its judgements and citations.

The two rungs disagree on a citation when the deterministic check passes it
and the model says contradicted, or fails it and the model says supported
(``reviewer.selectors.judgements.answers_disagreeing``, the definition). That
changes only when a judgement is stored (``reviewer.services.judgements``) or
a re-verification rewrites or replaces an answer's citations
(``reviewer.services.reverify``): each restamps its answers here, in its own
transaction, with the answers' rows locked first, so two writers of one
answer recompute one after the other and the later sees the earlier's rows.
``rebuild_stats`` restamps every answer, and its ``--check`` logs each
answer whose flag differs from the recomputation (a write around the
services) before repairing it.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db.models import QuerySet

from reviewer.models import Answer
from reviewer.selectors.judgements import answers_disagreeing

__all__ = ["answers_rungs_drifted", "answers_rungs_restamp"]


def _answers(answer_ids: Iterable[int] | None) -> QuerySet[Answer]:
    answers = Answer.all_objects.all()  # soft-deleted ones too: they may come back
    return answers if answer_ids is None else answers.filter(pk__in=list(answer_ids))


def answers_rungs_drifted(answer_ids: Iterable[int] | None = None) -> list[tuple[int, bool]]:
    """The answers (of ``answer_ids``; None: all) whose stored flag is not
    its recomputation, as (id, stored flag) in id order: flagged without a
    disagreement, or the reverse. Two queries, each starting from the few
    answers it can concern (the flag's partial index; the disagreeing
    judgements): one with OR between them read every answer (5 s at 1M)."""
    ids = None if answer_ids is None else list(answer_ids)
    wrongly_set = (_answers(ids).filter(rungs_disagree=True).exclude(answers_disagreeing())
                   .values_list("pk", flat=True))
    wrongly_unset = (_answers(ids).filter(answers_disagreeing(), rungs_disagree=False)
                     .values_list("pk", flat=True))
    return sorted([(pk, True) for pk in wrongly_set] + [(pk, False) for pk in wrongly_unset])


def answers_rungs_restamp(*, answer_ids: Iterable[int] | None = None) -> int:
    """Set the flag of the answers of ``answer_ids`` (None: every answer) to
    its recomputation, writing only those it changes (two UPDATEs); returns
    how many changed. Callers storing a judgement or re-verifying hold the
    answers' rows (``select_for_update``) in the same transaction."""
    ids = None if answer_ids is None else list(answer_ids)
    if ids is not None and not ids:
        return 0
    unset = (_answers(ids).filter(rungs_disagree=True).exclude(answers_disagreeing())
             .update(rungs_disagree=False))
    return unset + (_answers(ids).filter(answers_disagreeing(), rungs_disagree=False)
                    .update(rungs_disagree=True))
