"""Reading answers: the API's result for an answer, and the review page's data."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch, QuerySet
from django.urls import reverse

from reviewer.models import Answer, CitationVerdict, ReviewDecision, SentenceVerdict

__all__ = ["answer_get_for_review", "answer_list", "answer_result"]


def _citation_data(c: CitationVerdict) -> dict[str, Any]:
    return {
        "outcome": c.outcome, "marker": c.marker or None, "markers": c.markers,
        "marker_start": c.marker_start, "marker_end": c.marker_end, "quote": c.quote or None,
        "quote_start": c.quote_start, "quote_end": c.quote_end, "score": c.score,
        "source_marker": c.source_marker or None, "chunk_start": c.chunk_start,
        "chunk_end": c.chunk_end, "message": c.message, "normalizations": c.normalizations,
        "differences": c.differences, "document": c.document_id,
        "document_start": c.document_start, "document_end": c.document_end,
        "superseded": c.superseded, "pages": c.pages,
    }


def _with_rows(queryset: QuerySet[Answer]) -> QuerySet[Answer]:
    return queryset.select_related("surface").prefetch_related(
        Prefetch("sentences", queryset=SentenceVerdict.objects.order_by("index").prefetch_related(
            Prefetch("citations", queryset=CitationVerdict.objects.order_by("position"))
        )),
    )


def answer_result(answer: Answer, *, sentences: list[dict[str, Any]] | None = None
                  ) -> dict[str, Any]:
    """The API's result for a stored answer: the report plus the action taken.

    POST passes the sentences it has just stored (no read-back); GET rebuilds
    them from the rows. Both go through here, and a test holds them equal.
    """
    if sentences is None:
        answer = _with_rows(Answer.objects.filter(pk=answer.pk)).get()
        sentences = [
            {
                "index": s.index, "start": s.start, "end": s.end, "text": s.text,
                "claim": s.claim, "status": s.status,
                "citations": [_citation_data(c) for c in s.citations.all()],
            }
            for s in answer.sentences.all()
        ]
    return {
        "answer": answer.pk,
        "id": answer.external_id or None,
        "surface": answer.surface.name if answer.surface else None,
        "model": answer.model or None,
        "verdict": answer.verdict,
        "action": answer.action,
        "served_answer": answer.served_answer,
        "correction": answer.correction,
        "counts": answer.counts,
        "coverage": round(answer.coverage, 4),
        "claims": answer.claims,
        "attributed_claims": answer.attributed_claims,
        "threshold": answer.threshold,
        "reasons": answer.reasons,
        "notes": answer.notes,
        "sentences": sentences,
        "elapsed_ms": round(answer.elapsed_ms, 3),
        "checks": "provenance",
        "review_url": reverse("reviewer:answer", args=[answer.pk]),
        "created": answer.created.isoformat(),
    }


def answer_list() -> QuerySet[Answer]:
    return Answer.objects.select_related("surface").defer("text", "served_answer", "correction")


def answer_get_for_review(answer_id: int) -> Answer:
    """One answer with everything its review page shows, in a fixed number of
    queries whatever its size."""
    return _with_rows(Answer.objects.filter(pk=answer_id)).prefetch_related(
        "sources",
        Prefetch("decisions", queryset=ReviewDecision.objects.select_related("reviewer")
                 .order_by("created")),
    ).get()
