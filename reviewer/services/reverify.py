"""Re-verifying stored answers, for instance with a surface's newly
calibrated threshold, keeping each answer's earlier verdicts.

An answer is re-verified from what was stored when it arrived: its text and
its sources' text snapshots (with their furniture and document ranges, so
page rectangles are located again as at submission), never from the
documents as they are now. What it gets is a new verdict: its verdict
columns, triage counts and verdict rows change, and the queue's and trends'
kept counts and its "rungs disagree" flag move with them, in one
transaction. What it was served (``served_answer``, ``action``) and its
reviewers' decisions are history and stay as they were.

Verdict rows are rewritten in place, so a citation keeps its id (links to
it, the match labels on it and a decision's unopened failures still point
at it); only if the library now splits the answer differently (another
version) are they deleted and inserted again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import F, Max, Q
from django.tasks import task
from django.utils import timezone

from reviewer.models import (
    Answer,
    CitationVerdict,
    ReverificationRun,
    SentenceVerdict,
    Surface,
    SurfaceChange,
    VerdictRecord,
)
from reviewer.selectors.answers import CITATION_COLUMNS, answer_result, stored_sentences
from reviewer.selectors.sources import answers_sources
from reviewer.services.answers import (
    SENTENCE_KEYS,
    citation_row,
    report_data,
    sentences_as_stored,
    verdict_columns,
    verdict_rows_insert,
    verification_config,
)
from reviewer.services.queue_counts import queue_counts_move, queue_key
from reviewer.services.rows import insert_rows, update_rows
from reviewer.services.rungs import answers_rungs_restamp
from reviewer.services.stats import stats_increments, stats_move_answers
from reviewer.severity import OUTCOME_COLUMNS, triage_priority
from verification import VerificationConfig, verify_answer

__all__ = ["BATCH_SIZE", "ReverifyOutcome", "answer_reverify", "answers_reverify",
           "reverification_run", "reverification_start", "reverify_surface", "runs_fail_stale"]

logger = logging.getLogger("citeguard.reverify")

#: Answers re-verified per transaction by a run: its progress moves by this
#: much at a time, and a failure loses at most this much work.
BATCH_SIZE = 100

#: Every column ``verdict_columns`` sets (the claim outcomes' counts too: left
#: out, a re-verification that found a new mismatch stored none), and the
#: queue's priority computed from them.
_VERDICT_COLUMNS = ("verdict", "coverage", "claims", "attributed_claims", "counts", "reasons",
                    "threshold", "severity", *OUTCOME_COLUMNS.values(), "triage_priority")
_SENTENCE_COLUMNS = tuple(key for key in SENTENCE_KEYS if key != "index")
@dataclass(frozen=True)
class ReverifyOutcome:
    """What re-verifying one answer did."""

    answer_id: int
    verdict_before: str
    verdict: str
    #: Citations whose outcome is not the one they had.
    outcomes_changed: int

    @property
    def changed(self) -> bool:
        return self.verdict != self.verdict_before or self.outcomes_changed > 0


def answer_reverify(*, answer: Answer, threshold: float | None = None,
                    cause: str = VerdictRecord.Cause.REVERIFIED,
                    surface_change: SurfaceChange | None = None,
                    run: ReverificationRun | None = None) -> ReverifyOutcome:
    """Verify ``answer`` again with its surface's settings and ``threshold``
    (None: the surface's own) and store the new verdict, keeping the old one
    in its history (see the module's docstring). ``answer`` is refreshed."""
    (outcome,) = answers_reverify(answer_ids=[answer.pk], threshold=threshold, cause=cause,
                                  surface_change=surface_change, run=run)
    answer.refresh_from_db()
    return outcome


def answers_reverify(*, answer_ids: Sequence[int], threshold: float | None = None,
                     cause: str = VerdictRecord.Cause.REVERIFIED,
                     surface_change: SurfaceChange | None = None,
                     run: ReverificationRun | None = None,
                     skipped: int = 0) -> list[ReverifyOutcome]:
    """``answer_reverify`` for several answers: verified first, outside any
    transaction, then stored in one, with a few statements for them all.
    With ``run``, its ``done`` (plus ``skipped``, answers the run passed
    over) and ``changed`` move in the same transaction."""
    if cause == VerdictRecord.Cause.SUBMITTED:
        raise ValueError("a re-verification's cause cannot be 'submitted'")
    answers = {a.pk: a for a in Answer.objects.filter(pk__in=answer_ids)
               .select_related("surface").only("pk", "text", "external_id", "threshold",
                                                "surface")}
    sources = answers_sources(answers)
    verified: dict[int, tuple[Any, dict[str, Any]]] = {}
    for pk, answer in answers.items():
        config = (verification_config(answer.surface, threshold=threshold) if answer.surface
                  else VerificationConfig(threshold=threshold or answer.threshold,
                                          max_work=None))
        report = verify_answer(answer.text, sources[pk], config=config,
                               answer_id=answer.external_id or None)
        verified[pk] = (report, report_data(report, sources[pk]))
    with transaction.atomic():
        outcomes = _store(answers, verified, cause=cause, surface_change=surface_change, run=run)
        if run is not None:
            ReverificationRun.objects.filter(pk=run.pk).update(
                done=F("done") + len(outcomes) + skipped,
                changed=F("changed") + sum(o.changed for o in outcomes),
                heartbeat=timezone.now())
    return outcomes


def _store(verified_answers: dict[int, Answer],
           verified: dict[int, tuple[Any, dict[str, Any]]], *, cause: str,
           surface_change: SurfaceChange | None,
           run: ReverificationRun | None) -> list[ReverifyOutcome]:
    """Inside the caller's transaction: lock the answers, read their verdicts
    as they are now, and replace them with the ``verified`` ones."""
    # Not the texts: verified already, and the result does not repeat them.
    locked = list(Answer.objects.select_for_update().filter(pk__in=list(verified))
                  .defer("text", "question").order_by("pk"))
    ids = [answer.pk for answer in locked]
    # Read after the lock: a surface_update restamping these answers' priority
    # has committed (we waited on its row locks) or will restamp after us.
    high_stakes = dict(Surface.objects.filter(pk__in={a.surface_id for a in locked})
                       .values_list("pk", "high_stakes"))
    old_rows = stored_sentences(ids, with_ids=True)
    recorded = set(VerdictRecord.objects.filter(answer_id__in=ids)
                   .values_list("answer_id", flat=True).distinct())
    now = timezone.now()
    records: list[dict[str, Any]] = []
    sentence_updates: list[dict[str, Any]] = []
    citation_updates: list[dict[str, Any]] = []
    answer_updates: list[dict[str, Any]] = []
    queue_before, queue_after, stats_moves = [], [], []
    outcomes = []
    for answer in locked:
        answer.surface = verified_answers[answer.pk].surface  # loaded already, not locked
        report, data = verified[answer.pk]
        old = old_rows[answer.pk]
        old_sentences = _without_ids(old)
        if answer.pk not in recorded:
            # The verdict it was submitted with, recorded now that it changes.
            records.append(_record(answer, old_sentences, created=answer.created,
                                   cause=VerdictRecord.Cause.SUBMITTED))
        queue_before.append(queue_key(answer))
        stats_before = stats_increments(answer)
        verdict_before = answer.verdict
        new_sentences = _plain(sentences_as_stored(data))
        outcomes_changed = _count_outcome_changes(old_sentences, new_sentences)
        if _same_layout(old_sentences, new_sentences):
            _collect_updates(old, new_sentences, sentence_updates, citation_updates)
        else:
            # Another library version split the answer differently: no row
            # keeps its meaning, so they go (labels on them with them).
            logger.warning("answer %s re-verified with a different layout; its verdict rows "
                           "are replaced", answer.pk)
            SentenceVerdict.objects.filter(answer_id=answer.pk).delete()
            verdict_rows_insert(answer.pk, data)
        columns = verdict_columns(report)
        columns["triage_priority"] = triage_priority(
            columns, high_stakes=high_stakes.get(answer.surface_id, False))
        for name, value in columns.items():
            setattr(answer, name, value)
        answer_updates.append({"id": answer.pk, **columns})
        records.append(_record(answer, new_sentences, created=now, cause=cause,
                               surface_change=surface_change, run=run))
        queue_after.append(queue_key(answer))
        stats_moves.append((answer, stats_before))
        outcomes.append(ReverifyOutcome(answer.pk, verdict_before, answer.verdict,
                                        outcomes_changed))
    update_rows(SentenceVerdict, sentence_updates, columns=_SENTENCE_COLUMNS)
    update_rows(CitationVerdict, citation_updates, columns=tuple(CITATION_COLUMNS.values()))
    update_rows(Answer, answer_updates, columns=_VERDICT_COLUMNS)
    insert_rows(VerdictRecord, records)
    queue_counts_move(remove=queue_before, add=queue_after)
    stats_move_answers(stats_moves)
    # New outcomes, or citations replaced (their judgements kept without
    # one): whether the rungs disagree is recomputed from the rows as now.
    answers_rungs_restamp(answer_ids=ids)
    return outcomes


def _record(answer: Answer, sentences: list[dict[str, Any]], *, created: Any, cause: str,
            surface_change: SurfaceChange | None = None,
            run: ReverificationRun | None = None) -> dict[str, Any]:
    return {
        "answer_id": answer.pk, "created": created, "cause": cause,
        "surface_change_id": surface_change.pk if surface_change else None,
        "run_id": run.pk if run else None, "threshold": answer.threshold,
        "verdict": answer.verdict, "action": answer.action, "coverage": answer.coverage,
        "counts": answer.counts, "reasons": answer.reasons,
        "result": answer_result(answer, sentences=sentences),
    }


def _plain(value: Any) -> Any:
    """``value`` as it reads back from a JSON column (tuples become lists), so
    a new report compares equal to stored rows that say the same."""
    return json.loads(json.dumps(value))


def _without_ids(sentences: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**{k: v for k, v in s.items() if k not in ("id", "citations")},
             "citations": [{k: v for k, v in c.items() if k != "id"} for c in s["citations"]]}
            for s in sentences]


def _outcomes(sentences: list[dict[str, Any]]) -> list[str]:
    return [c["outcome"] for s in sentences for c in s["citations"]]


def _count_outcome_changes(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> int:
    before, after = _outcomes(old), _outcomes(new)
    if len(before) != len(after):
        return max(len(before), len(after))
    return sum(a != b for a, b in zip(before, after, strict=True))


def _same_layout(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> bool:
    """The same sentences with as many citations each: rows map one to one."""
    return ([(s["index"], len(s["citations"])) for s in old]
            == [(s["index"], len(s["citations"])) for s in new])


def _collect_updates(old: list[dict[str, Any]], new: list[dict[str, Any]],
                     sentence_updates: list[dict[str, Any]],
                     citation_updates: list[dict[str, Any]]) -> None:
    """The rows (by id) whose values differ from the new report's; an
    unchanged row is not written."""
    for old_sentence, new_sentence in zip(old, new, strict=True):
        if any(old_sentence[k] != new_sentence[k] for k in _SENTENCE_COLUMNS):
            sentence_updates.append({"id": old_sentence["id"],
                                     **{k: new_sentence[k] for k in _SENTENCE_COLUMNS}})
        for old_citation, new_citation in zip(old_sentence["citations"],
                                              new_sentence["citations"], strict=True):
            if any(old_citation[k] != new_citation[k] for k in CITATION_COLUMNS):
                citation_updates.append({"id": old_citation["id"], **citation_row(new_citation)})


# -- Runs over a surface ----------------------------------------------------------


def reverification_start(*, surface: Surface, threshold: float,
                         surface_change: SurfaceChange | None = None,
                         started_by: Any = None) -> ReverificationRun:
    """Queue re-verifying every stored answer of ``surface`` with
    ``threshold`` (the task runs once this commits: at once with the
    in-process backend, on the database worker in production).

    ``started_by`` None is a script; a person needs the permission to change
    surfaces, as applying the threshold did.
    """
    if started_by is not None and not started_by.has_perm("reviewer.change_surface"):
        raise PermissionDenied("Re-verifying a surface's answers needs the supervisor role.")
    if not 0 < threshold <= 1:
        raise ValidationError({"threshold": "The threshold must be above 0 and at most 1."})
    with transaction.atomic():
        run = ReverificationRun.objects.create(surface=surface, surface_change=surface_change,
                                               threshold=threshold, started_by=started_by)
        transaction.on_commit(lambda: reverify_surface.enqueue(run.pk))
    return run


@task()
def reverify_surface(run_id: int) -> str:
    """The background task :func:`reverification_start` queues: re-verify a
    surface's stored answers (a ``ReverificationRun``); returns the run's
    final status. A failure marks the run failed and is raised again, so the
    task backend records it too."""
    return str(reverification_run(run_id=run_id).status)


def reverification_run(*, run_id: int) -> ReverificationRun:
    """Do a queued run (the task's work): re-verify the surface's answers
    stored before it started, in batches of ``BATCH_SIZE`` each committed
    with the run's progress, and end it ``done``, or ``failed`` with the error
    (raised again) and the batches before it kept.

    Answers already judged at the run's threshold are counted done without
    being verified again: those stored after the threshold was applied, and
    those a failed run had finished when it is started again.
    """
    with transaction.atomic():
        run = ReverificationRun.objects.select_for_update().get(pk=run_id)
        if run.status != ReverificationRun.Status.QUEUED:
            return run  # taken already (a task delivered twice)
        answers = Answer.objects.filter(surface_id=run.surface_id)
        last_id = answers.aggregate(last=Max("pk"))["last"] or 0
        run.total = answers.filter(pk__lte=last_id).count()
        run.status, run.started = ReverificationRun.Status.RUNNING, timezone.now()
        run.heartbeat = run.started
        run.save(update_fields=["total", "status", "started", "heartbeat"])
    surface_change = (SurfaceChange.objects.get(pk=run.surface_change_id)
                      if run.surface_change_id else None)
    after = 0
    try:
        while True:
            batch = list(answers.filter(pk__gt=after, pk__lte=last_id).order_by("pk")
                         .values_list("pk", "threshold")[:BATCH_SIZE])
            if not batch:
                break
            todo = [pk for pk, threshold in batch if threshold != run.threshold]
            answers_reverify(answer_ids=todo, threshold=run.threshold,
                             surface_change=surface_change, run=run,
                             skipped=len(batch) - len(todo))
            after = batch[-1][0]
    except Exception as error:
        ReverificationRun.objects.filter(pk=run.pk).update(
            status=ReverificationRun.Status.FAILED, finished=timezone.now(),
            error=f"{type(error).__name__}: {error}")
        logger.exception("re-verification run %s failed after answer %s", run.pk, after)
        raise
    # Only a run still running ends done: one the watchdog failed meanwhile
    # stays failed, as its page said.
    ReverificationRun.objects.filter(pk=run.pk, status=ReverificationRun.Status.RUNNING).update(
        status=ReverificationRun.Status.DONE, finished=timezone.now())
    run.refresh_from_db()
    return run


def runs_requeue_lost(*, now: datetime | None = None) -> int:
    """Queue again runs left ``queued`` for ``QUEUED_STALE_SECONDS``: their
    task was lost with the queue (a Redis that restarted without its data).
    A run is taken once (a second delivery finds it taken), so a task that
    was only late does no harm. The time it was queued again is kept in its
    ``heartbeat``, which a queued run does not otherwise use. Returns how many."""
    now = now or timezone.now()
    cutoff = now - timedelta(seconds=float(settings.CITEGUARD["QUEUED_STALE_SECONDS"]))
    lost = ReverificationRun.objects.filter(
        Q(heartbeat__lt=cutoff) | Q(heartbeat__isnull=True, created__lt=cutoff),
        status=ReverificationRun.Status.QUEUED)
    requeued = 0
    for run in lost.only("pk", "heartbeat"):
        with transaction.atomic():
            if ReverificationRun.objects.filter(
                    pk=run.pk, status=ReverificationRun.Status.QUEUED, heartbeat=run.heartbeat
            ).update(heartbeat=now):
                transaction.on_commit(lambda pk=run.pk: reverify_surface.enqueue(pk))
                requeued += 1
                logger.warning("re-verification run %s: queued and not started since before "
                               "%s; queued again", run.pk, cutoff.isoformat())
    return requeued


def runs_fail_stale(*, now: datetime | None = None) -> int:
    """Fail every running run whose last committed batch is older than
    ``RUN_STALE_SECONDS``: its worker died or was killed, and a run left
    ``running`` would block applying another threshold on its surface for
    ever. Its batches stay done; applying the threshold again finishes the
    rest (answers already judged at it are skipped). Returns how many.

    Queued runs are left alone: a busy worker may take them late."""
    now = now or timezone.now()
    stale = float(settings.CITEGUARD["RUN_STALE_SECONDS"])
    cutoff = now - timedelta(seconds=stale)
    failed = 0
    # A run started before heartbeats were kept has none: its start stands in.
    for run in ReverificationRun.objects.filter(
            Q(heartbeat__lt=cutoff) | Q(heartbeat__isnull=True, started__lt=cutoff),
            status=ReverificationRun.Status.RUNNING):
        last = run.heartbeat or run.started
        assert last is not None  # a running run has started
        minutes = max(1, round((now - last).total_seconds() / 60))
        failed += ReverificationRun.objects.filter(
            pk=run.pk, status=ReverificationRun.Status.RUNNING, heartbeat=run.heartbeat
        ).update(status=ReverificationRun.Status.FAILED, finished=now, error=(
            f"No progress for {minutes} min after {run.done} of {run.total} answers: the "
            f"worker running it stopped. Apply the threshold again to finish the rest "
            f"(answers already re-verified are skipped)."))
        logger.warning("re-verification run %s failed: no progress since %s", run.pk,
                       last.isoformat())
    return failed
