"""The semantic stage: ask the operator's model whether each cited passage
supports its sentence, within the surface's budget, and store what it said.

Which answers: every answer of a high-stakes surface, every flagged or
failed one, and a deterministic sample (by answer id) of the rest at the
surface's rate. Which citations: those with a passage or a quote match
(premise: the passage, or the matched span's sentences; hypothesis: the
sentence). The budget is counted from the rows stored in the last hour;
past it a citation is stored as waiting (``over-budget``) and a later run
(``manage.py judge_pending``) picks it up. Errors are stored and retried
within the budget. The deterministic verdict is never touched: results are
rows of their own (``Judgement``); storing one restamps the answer's "rungs
disagree" flag (``reviewer.services.rungs``) in the same transaction.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef, Sum
from django.tasks import task
from django.utils import timezone

from reviewer.models import Answer, AnswerSource, CitationVerdict, Judgement, Surface
from reviewer.services.rungs import answers_rungs_restamp
from verification import canonical_label
from verification.entailment import (
    Attempted,
    EntailmentJudge,
    InventedEvidence,
    JudgeSetupError,
    judge_from_settings,
    judge_premise,
    judge_with_retries,
)

__all__ = [
    "MAX_ATTEMPTS", "judge_answer", "judge_configured", "judgements_enqueue", "judgements_pending",
    "judgements_run", "judgements_wanted", "sampled", "surface_calls_last_hour",
]

logger = logging.getLogger("citeguard.judgements")

#: Calls one citation may take in one run (the first and two retries).
MAX_ATTEMPTS = 3


def judge_configured() -> bool:
    return str(settings.CITEGUARD_JUDGE["BACKEND"]) in ("onnx", "chat")


def sampled(answer_id: int, rate: float) -> bool:
    """Whether the answer falls in a sample of ``rate`` (0..1): the same
    answer always does or always does not, whichever worker asks."""
    if rate <= 0:
        return False
    digest = hashlib.sha256(f"citeguard-judge:{answer_id}".encode()).digest()
    return int.from_bytes(digest[:8]) / 2**64 < rate


def judgements_wanted(answer: Answer) -> str:
    """Why the answer is judged ("high-stakes", "flagged", "sampled"), or ""
    when it is not (the stage off, the surface's budget 0, not sampled)."""
    surface = answer.surface
    if not judge_configured() or surface is None or surface.judge_calls_per_hour == 0:
        return ""
    if surface.high_stakes:
        return "high-stakes"
    if answer.verdict != Answer.Verdict.PASS:
        return "flagged"
    return "sampled" if sampled(answer.pk, surface.judge_sample_rate) else ""


def judgements_enqueue(answer: Answer) -> None:
    """Queue the answer's judging once the transaction storing it commits,
    when it is wanted. With a worker (``TASK_BACKEND`` set, ``db_worker``)
    the submission never waits for a model; the default in-process backend
    judges right after the commit, inside the request."""
    if not judgements_wanted(answer):
        return
    answer_id = answer.pk
    transaction.on_commit(lambda: judge_answer.enqueue(answer_id))


def surface_calls_last_hour(surface: Surface, *, now: datetime | None = None) -> int:
    """Model calls made for ``surface`` in the hour before ``now``, from the rows stored."""
    since = (now or timezone.now()) - timedelta(hours=1)
    calls = (Judgement.objects.filter(surface=surface, created__gte=since)
             .aggregate(calls=Sum("attempts"))["calls"])
    return int(calls or 0)


@lru_cache(maxsize=8)
def _judge(backend: str, model_dir: str, url: str, model: str, api_key: str,
           timeout_seconds: float) -> EntailmentJudge:
    # Kept per process: an ONNX model is loaded once, not per answer.
    return judge_from_settings(backend, model_dir=Path(model_dir) if model_dir else None,
                               url=url or None, model=model or None, api_key=api_key or None,
                               timeout_seconds=timeout_seconds)


def _judge_for(surface: Surface) -> EntailmentJudge:
    config = settings.CITEGUARD_JUDGE
    key_env = str(config.get("API_KEY_ENV") or "")
    if key_env and key_env not in os.environ:
        raise JudgeSetupError(f"CITEGUARD_JUDGE_API_KEY_ENV names {key_env}, which is not set.")
    return _judge(str(config["BACKEND"]), str(config["MODEL_DIR"]), str(config["URL"]),
                  str(config["MODEL"]), os.environ.get(key_env, "") if key_env else "",
                  float(surface.judge_timeout_seconds))


def _premise(citation: CitationVerdict, sources: dict[str, AnswerSource]) -> str | None:
    """The passage the judge reads, or None when the citation has none."""
    if citation.outcome == "fabricated-marker":
        return None
    label = citation.source_marker or citation.marker
    source = sources.get(canonical_label(label)) if label else None
    if source is None:
        return None
    # The passage stored with the citation, where verifying stored one.
    if citation.passage_start is not None and citation.passage_end is not None:
        return source.text[citation.passage_start:citation.passage_end] or None
    match = None
    if citation.source_marker and citation.chunk_start is not None \
            and citation.chunk_end is not None:
        match = (citation.chunk_start, citation.chunk_end)
    elif citation.quote:
        return None  # a quote not found: there is no passage to judge against
    span = judge_premise(citation.sentence.text, source.text, match=match,
                         skip=tuple((int(s), int(e)) for s, e in source.furniture))
    return source.text[span[0]:span[1]] if span is not None else None


def _latest(answer: Answer) -> dict[int, Judgement]:
    latest: dict[int, Judgement] = {}
    for row in Judgement.objects.filter(answer=answer, citation__isnull=False).order_by(
            "created", "pk"):
        latest[row.citation_id] = row
    return latest


def _settled(row: Judgement | None) -> bool:
    """A result, or an error no later run should try again."""
    return row is not None and (row.is_result or row.error not in Judgement.RETRIED)


@task()
def judge_answer(answer_id: int) -> int:
    """The background task :func:`judgements_enqueue` queues: ask the
    operator's model about an answer's cited passages (the semantic stage);
    returns how many judgement rows it stored."""
    return len(judgements_run(answer_id=answer_id))


def judgements_run(*, answer_id: int, sleep: Callable[[float], None] = time.sleep
                   ) -> list[Judgement]:
    """Judge the answer's citations not judged yet (or waiting, or failed in
    a way worth trying again); returns the rows stored by this run."""
    answer = Answer.objects.select_related("surface").filter(pk=answer_id).first()
    if answer is None or answer.surface is None or not judge_configured():
        return []
    surface = answer.surface
    if surface.judge_calls_per_hour == 0:
        return []
    sources = {canonical_label(s.marker): s for s in answer.sources.all()}
    latest = _latest(answer)
    todo: list[tuple[CitationVerdict, str]] = []
    for citation in (CitationVerdict.objects.filter(answer=answer).select_related("sentence")
                     .order_by("position")):
        if _settled(latest.get(citation.pk)):
            continue
        premise = _premise(citation, sources)
        if premise is not None:
            todo.append((citation, premise))
    if not todo:
        return []
    backend = str(settings.CITEGUARD_JUDGE["BACKEND"])
    try:
        judge = _judge_for(surface)
    except JudgeSetupError as error:
        logger.error("judge not set up: %s", error)
        return [_store(citation, surface, judge=backend, model_id="",
                       error=Judgement.Error.SETUP, message=str(error))
                for citation, _ in todo]
    rows = []
    for citation, premise in todo:
        hypothesis = citation.sentence.text
        size = len(premise) + len(hypothesis)
        if size > surface.judge_max_chars:
            rows.append(_store(citation, surface, judge=judge.kind, model_id=judge.model_id,
                               error=Judgement.Error.TOO_LONG,
                               message=f"The passage and sentence are {size} characters; the "
                                       f"surface sends at most {surface.judge_max_chars} per "
                                       "call."))
            continue
        limit = surface.judge_calls_per_hour

        def may_call(made: int, limit: int = limit) -> bool:
            return surface_calls_last_hour(surface) + made < limit

        attempted = judge_with_retries(judge, premise, hypothesis, max_attempts=MAX_ATTEMPTS,
                                       max_wait_seconds=surface.judge_timeout_seconds,
                                       may_call=may_call, sleep=sleep)
        rows.append(_store_attempt(citation, surface, judge, attempted, limit))
    return rows


def _store_attempt(citation: CitationVerdict, surface: Surface, judge: EntailmentJudge,
                   attempted: Attempted, limit: int) -> Judgement:
    common = {"judge": judge.kind, "attempts": attempted.attempts}
    result = attempted.judgement
    if result is not None:
        return _store(citation, surface, **common, model_id=result.model_id,
                      label=result.label, latency_ms=result.latency_ms,
                      scores=dict(result.scores) if result.scores is not None else None,
                      evidence=result.evidence or "", evidence_verified=result.evidence_verified,
                      truncated=result.truncated)
    if attempted.over_budget:
        last = f" (the last call: {attempted.error})" if attempted.error else ""
        return _store(citation, surface, **common, model_id=judge.model_id,
                      error=Judgement.Error.OVER_BUDGET,
                      message=f"The surface's {limit} calls per hour are used; a later run "
                              f"judges this citation{last}.")
    error = attempted.error
    assert error is not None
    if isinstance(error, InventedEvidence):
        return _store(citation, surface, **common, model_id=error.model_id,
                      error=Judgement.Error.INVENTED_EVIDENCE, evidence=error.evidence,
                      message=f"The model answered {error.label!r} quoting evidence the passage "
                              "does not hold; its answer was discarded.")
    return _store(citation, surface, **common, model_id=judge.model_id,
                  error=error.kind, message=str(error))


def _store(citation: CitationVerdict, surface: Surface, **fields: object) -> Judgement:
    message = fields.pop("message", "")
    row = Judgement(citation=citation, citation_position=citation.position,
                    answer_id=citation.answer_id, surface=surface,
                    error_message=str(message), **fields)  # type: ignore[misc]
    row.full_clean(exclude=["citation", "answer", "surface"])
    with transaction.atomic():
        # The answer's row held while its "rungs disagree" flag is recomputed
        # with this row in: a judgement of another of its citations stored
        # at once waits, then recomputes with both.
        list(Answer.all_objects.select_for_update().filter(pk=citation.answer_id)
             .values_list("pk", flat=True))
        row.save()
        answers_rungs_restamp(answer_ids=[citation.answer_id])
    return row


def judgements_pending(*, limit: int | None = None) -> list[int]:
    """Answers with a citation whose latest row waits for the budget or
    failed in a way worth trying again: what ``judge_pending`` runs."""
    later = Judgement.objects.filter(citation_id=OuterRef("citation_id"), pk__gt=OuterRef("pk"))
    # A row whose citation a re-verification replaced waits for nothing.
    answers = (Judgement.objects.filter(error__in=Judgement.RETRIED, citation__isnull=False)
               .exclude(Exists(later))
               .order_by("answer_id").values_list("answer_id", flat=True).distinct())
    return list(answers[:limit] if limit is not None else answers)
