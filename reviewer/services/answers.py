"""Submitting an answer: verify it inline, apply its surface's policy, and
store the answer, its sources and every verdict in one transaction."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from reviewer import metrics
from reviewer.models import (
    Answer,
    AnswerSource,
    ApiClient,
    CitationVerdict,
    Document,
    SentenceVerdict,
    Surface,
)
from reviewer.selectors.answers import (
    CITATION_COLUMNS,
    CITATION_KEYS,
    STORED_AS_EMPTY,
    answer_api_result,
)
from reviewer.selectors.documents import document_locate
from reviewer.selectors.sources import source_reference
from reviewer.services.judgements import judgements_enqueue
from reviewer.services.priority import surface_high_stakes_held
from reviewer.services.queue_counts import queue_counts_move, queue_key
from reviewer.services.rows import insert_rows
from reviewer.services.stats import stats_record_answer
from reviewer.severity import outcome_columns
from reviewer.slots import SlotsBusy, heavy_slot
from reviewer.verifying import (
    InlinePdfOverLimit,
    SourceResolutionError,
    SourceTooLong,
    budget_sentence,
    pdf_pages_text,
    report_dict,
    resolve_sources,
    verify_work_limit,
)
from verification import (
    Report,
    Source,
    VerificationConfig,
    WorkBudgetExceeded,
    canonical_label,
    parse_markers,
    verify_answer,
)
from verification.budget import answer_work_bound
from verification.formats import FormatError, convert
from verification.payload import AnswerPayload, PayloadError, parse_answer_payload
from verification.policy import apply_policy

__all__ = [
    "AnswerRejected", "SubmitResult", "answer_submit", "report_data", "sentences_as_stored",
    "surface_for", "verdict_columns", "verdict_rows_insert", "verification_config",
]

DEFAULT_SURFACE = "default"


class AnswerRejected(ValueError):
    """The submission cannot be verified; ``code`` and the message say why."""

    def __init__(self, code: str, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.code, self.status = code, status


@dataclass(frozen=True)
class SubmitResult:
    answer: Answer
    created: bool
    result: dict[str, Any]


def surface_for(name: str | None) -> Surface:
    if not name:
        surface, _ = Surface.objects.get_or_create(name=DEFAULT_SURFACE)
        return surface
    surface = Surface.objects.filter(name=name).first()
    if surface is None:
        known = ", ".join(Surface.objects.values_list("name", flat=True)) or "none"
        raise AnswerRejected("unknown-surface",
                             f"There is no surface {name!r} (configured: {known}).")
    return surface


#: Column widths a submission's names must fit (checked before the database,
#: which would otherwise refuse them on PostgreSQL and keep them on SQLite).
MAX_ID_CHARS = 200
MAX_MODEL_CHARS = 200
MAX_MARKER_CHARS = 20


def _check_names(payload: AnswerPayload) -> None:
    for name, value, limit in (("id", payload.id, MAX_ID_CHARS),
                               ("model", payload.model, MAX_MODEL_CHARS)):
        if value and len(value) > limit:
            raise AnswerRejected(f"{name}-too-long", f"The {name} is {len(value)} characters; "
                                 f"the limit is {limit}.")
    markers = [source.marker for source in payload.sources]
    markers += [label for group in parse_markers(payload.answer) for label in group.labels]
    for marker in markers:
        if len(marker) > MAX_MARKER_CHARS:
            raise AnswerRejected("marker-too-long", f"The marker [{marker[:40]}…] is "
                                 f"{len(marker)} characters; the limit is {MAX_MARKER_CHARS}.")


def _check_limits(payload: AnswerPayload) -> None:
    limits = settings.CITEGUARD
    if len(payload.sources) > limits["MAX_SOURCES"]:
        raise AnswerRejected("too-many-sources",
                             f"The answer has {len(payload.sources)} sources; the limit is "
                             f"{limits['MAX_SOURCES']}.", status=413)
    if len(payload.answer) > limits["MAX_ANSWER_CHARS"]:
        raise AnswerRejected("answer-too-long",
                             f"The answer is {len(payload.answer)} characters; the limit is "
                             f"{limits['MAX_ANSWER_CHARS']}.", status=413)
    for source in payload.sources:
        if source.text is not None and len(source.text) > limits["MAX_SOURCE_CHARS"]:
            raise AnswerRejected("source-too-long",
                                 f"Source [{source.marker}] is {len(source.text)} characters; "
                                 f"the limit is {limits['MAX_SOURCE_CHARS']}.", status=413)


def answer_submit(*, client: ApiClient | None, data: Any,
                  received_at: datetime | None = None) -> SubmitResult:
    """Verify and store one submission (native, or an Anthropic/OpenAI pair).

    The same client submitting the same external id again gets the stored
    result back, also when both arrive at once. ``received_at`` stores it as
    having arrived then (an import of history, the demo's backdated answers;
    never the API): the trends summary counts it in that hour, so nothing
    has to be rebuilt afterwards.
    """
    try:
        native = convert(data, pdf_text=pdf_pages_text) if isinstance(data, dict) else data
        payload = parse_answer_payload(native)
    except InlinePdfOverLimit as error:
        raise AnswerRejected("inline-pdf-over-limit", str(error), status=413) from None
    except (FormatError, PayloadError, SourceResolutionError) as error:
        raise AnswerRejected("invalid-payload", str(error)) from None
    _check_names(payload)
    input_format = data.get("format", "native") if isinstance(data, dict) else "native"
    digest = request_digest(data)
    # Most ids are new: ask for the key alone (a query half as costly to build
    # as the whole row) and load the answer only when it is there.
    # all_objects: a deleted answer keeps its id (its trail is kept with it).
    if payload.id and Answer.all_objects.submitted_as(client, payload.id).exists():
        stored = (Answer.all_objects.submitted_as(client, payload.id)
                  .select_related("surface").get())
        return _replayed(stored, digest)
    _check_limits(payload)
    surface = surface_for(payload.surface)
    try:
        # A client cites only its workspace's documents.
        sources = resolve_sources(payload.sources,
                                  workspace=client.workspace_id if client else None,
                                  max_chars=int(settings.CITEGUARD["MAX_SOURCE_CHARS"]))
    except SourceTooLong as error:
        raise AnswerRejected("source-too-long", str(error), status=413) from None
    except SourceResolutionError as error:
        raise AnswerRejected("invalid-source", str(error)) from None
    config = verification_config(surface, max_work=verify_work_limit())
    bound = answer_work_bound(payload.answer, sum(len(source.text) for source in sources),
                              seed_min_chars=config.seed_min_chars)
    try:
        with heavy_slot(bound):
            report = verify_answer(payload.answer, sources, answer_id=payload.id, config=config)
    except WorkBudgetExceeded as error:
        raise AnswerRejected("verification-budget-exceeded", budget_sentence(error),
                             status=413) from None
    except SlotsBusy as error:
        raise AnswerRejected("verification-busy", str(error), status=503) from None
    outcome = apply_policy(report, payload.answer, policy=surface.policy,  # type: ignore[arg-type]
                           min_coverage=surface.min_coverage)
    data_report = report_data(report, sources)
    # Notes are what converting a vendor format noticed; a native body's own
    # "notes" is no input (it was stored as given, and 5 or null was a 500).
    notes = list(native["notes"]) if input_format != "native" else []
    try:
        with transaction.atomic():
            # The queue's priority (Answer.save) ranks high stakes with the
            # setting as it is now, not as read before verifying.
            surface.high_stakes = surface_high_stakes_held(surface.pk)
            answer = Answer.objects.create(
                client=client, external_id=payload.id or "", surface=surface,
                model=payload.model or "", question=payload.question or "",
                text=payload.answer, input_format=str(input_format),
                action=outcome.action, notes=notes, elapsed_ms=report.elapsed_ms,
                served_answer=outcome.served_answer, correction=outcome.correction,
                request_sha256=digest, **verdict_columns(report),
            )
            if received_at is not None:  # created is auto_now_add: set it after
                Answer.objects.filter(pk=answer.pk).update(created=received_at)
                answer.created = received_at
            _store_rows(answer, payload, sources, data_report)
            stats_record_answer(answer)
            queue_counts_move(add=[queue_key(answer)])
            judgements_enqueue(answer)
    except IntegrityError:
        # The same external id stored by a concurrent request: return that one.
        stored = (Answer.all_objects.submitted_as(client, payload.id or "")
                  .select_related("surface").first())
        if stored is None or not payload.id:
            raise
        return _replayed(stored, digest)
    result = answer_api_result(answer, sentences=sentences_as_stored(data_report),
                               source_texts={source.marker: source.text for source in sources})
    metrics.record(surface=surface.name, model=answer.model, result=result)
    return SubmitResult(answer, created=True, result=result)


def request_digest(data: Any) -> str:
    """SHA-256 of the request body in canonical JSON (keys sorted, no spaces,
    text as UTF-8): the same body in another key order or layout is the same."""
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _replayed(stored: Answer, digest: str) -> SubmitResult:
    """The stored result for a replay of the same body; a 409 for another body.

    Answers stored before bodies were hashed have no digest: theirs is returned.
    A deleted answer's id is not served again, nor reused.
    """
    if stored.deleted_at is not None:
        raise AnswerRejected(
            "id-deleted", f"Answer id {stored.external_id!r} was answer {stored.pk}, deleted on "
                          f"{stored.deleted_at:%Y-%m-%d %H:%M} UTC; use a new id.", status=409)
    if stored.request_sha256 and stored.request_sha256 != digest:
        raise AnswerRejected(
            "id-conflict",
            f"Answer id {stored.external_id!r} was already submitted with a different body "
            f"(stored as answer {stored.pk}). Send the same body again to get its result, or "
            "use a new id for a new answer.", status=409)
    return SubmitResult(stored, created=False, result=answer_api_result(stored))


def verification_config(surface: Surface, *, threshold: float | None = None,
                        max_work: int | None = None) -> VerificationConfig:
    """How ``surface`` checks answers; ``threshold`` instead of its own (a
    re-verification with a calibrated one). ``max_work`` is the work budget:
    none by default, as answers already stored were accepted under it and
    re-verifying them must not fail half a batch."""
    return VerificationConfig(
        threshold=surface.threshold if threshold is None else threshold,
        min_coverage=surface.min_coverage, require_quotes=surface.require_quotes,
        claim_checks=surface.claim_checks, max_work=max_work)


def verdict_columns(report: Report) -> dict[str, Any]:
    """The answer's columns that hold its verdict (what re-verifying replaces;
    the action taken and the answer served are not among them)."""
    return {
        "verdict": report.verdict, "coverage": report.coverage, "claims": report.claims,
        "attributed_claims": report.attributed_claims, "counts": report.counts,
        "reasons": list(report.reasons), "threshold": report.threshold,
        **outcome_columns(report.counts),
    }


def report_data(report: Report, sources: list[Source]) -> dict[str, Any]:
    """The report as stored: JSON data, with the page rectangles of every
    citation's match and closest passage in an ingested PDF."""
    data = report_dict(report)
    _add_closest_pages(data, sources)
    return data


def _add_closest_pages(report: dict[str, Any], sources: list[Source]) -> None:
    """Page rectangles of each citation's closest passage (``closest_pages``),
    when its source is a range of an ingested PDF: located once, at
    submission, like ``pages``, so the review page can highlight it."""
    by_label = {canonical_label(source.marker): source for source in sources}
    citations = [c for s in report["sentences"] for c in s["citations"]]
    wanted: list[tuple[dict[str, Any], Source]] = []
    for citation in citations:
        citation["closest_pages"] = []
        source = by_label.get(citation["closest_marker"] or "")
        if source is not None and source.document is not None:
            wanted.append((citation, source))
    if not wanted:
        return
    documents = Document.objects.defer("text").in_bulk({s.document for _, s in wanted})
    for citation, source in wanted:
        document = documents.get(source.document)  # type: ignore[call-overload]
        if document is not None:
            citation["closest_pages"] = document_locate(
                document, source.document_offset + citation["closest_start"],
                source.document_offset + citation["closest_end"])


SENTENCE_KEYS = ("index", "start", "end", "text", "claim", "status")


def sentences_as_stored(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's sentences exactly as the rows store them (and GET reads them)."""
    return [
        {**{k: s[k] for k in SENTENCE_KEYS},
         "citations": [{k: c[k] for k in CITATION_KEYS} for c in s["citations"]]}
        for s in report["sentences"]
    ]


def _store_rows(answer: Answer, payload: AnswerPayload, sources: list[Any],
                report: dict[str, Any]) -> None:
    # A source read from a document is stored as a reference to the range it
    # was read from, not a copy per answer (reviewer.selectors.sources).
    insert_rows(AnswerSource, [
        {"answer_id": answer.pk, "position": position, "marker": source.marker,
         **(source_reference(source.text) if source.document is not None
            else {"text": source.text}),
         "chunk_id": ref.chunk, "document_id": source.document,
         "document_start": source.document_offset if source.document is not None else None,
         "document_end": (source.document_offset + (source.injected_end or len(source.text))
                          if source.document is not None else None),
         "superseded": source.superseded, "furniture": [list(r) for r in source.skip]}
        for position, (ref, source) in enumerate(zip(payload.sources, sources, strict=True))
    ])
    verdict_rows_insert(answer.pk, report)


def citation_row(citation: dict[str, Any]) -> dict[str, Any]:
    """A report citation's column values (``CitationVerdict``)."""
    return {column: (citation[key] or "") if key in STORED_AS_EMPTY else citation[key]
            for key, column in CITATION_COLUMNS.items()}


def verdict_rows_insert(answer_id: int, report: dict[str, Any]) -> None:
    """Store a report's sentence and citation rows for the answer."""
    sentence_ids = dict(insert_rows(SentenceVerdict, [
        {"answer_id": answer_id, **{k: s[k] for k in SENTENCE_KEYS}}
        for s in report["sentences"]
    ], returning=("index", "id")))
    insert_rows(CitationVerdict, [
        {"answer_id": answer_id, "sentence_id": sentence_ids[s["index"]], "position": position,
         **citation_row(c)}
        for position, (s, c) in enumerate(
            (s, c) for s in report["sentences"] for c in s["citations"])
    ])
