"""Reading answers: the API's result for an answer, and the review page's data."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db.models import Prefetch, QuerySet
from django.urls import reverse

from reviewer.models import Answer, AnswerSource, CitationVerdict, ReviewDecision, SentenceVerdict
from reviewer.selectors.documents import document_text_prefixes
from verification.offsets import add_offset_units

__all__ = [
    "CITATION_COLUMNS", "CITATION_KEYS", "STORED_AS_EMPTY", "answer_api_result",
    "answer_get_for_review", "answer_list", "answer_list_for_client", "answer_result",
    "answer_summary", "stored_sentences",
]


# The report's citation keys, in its order (the API returns them so), and the
# column each is stored in.
CITATION_KEYS = (
    "outcome", "marker", "markers", "marker_start", "marker_end", "quote", "quote_start",
    "quote_end", "score", "source_marker", "chunk_start", "chunk_end", "message",
    "normalizations", "differences", "document", "document_start", "document_end",
    "superseded", "pages", "closest_marker", "closest_start", "closest_end", "closest_score",
    "closest_pages", "passage_start", "passage_end", "passage_document_start",
    "passage_document_end", "support", "shared", "missing", "findings", "passage_pages",
)
CITATION_COLUMNS = {key: "document_id" if key == "document" else key for key in CITATION_KEYS}
# Optional text columns store "" for nothing, which the report says as null.
STORED_AS_EMPTY = frozenset(("marker", "quote", "source_marker", "closest_marker"))


def _stored_sentences(answer_id: int) -> list[dict[str, Any]]:
    """The report's sentences from the rows, as plain values: two queries and
    no model instances (a replayed POST and GET both come through here)."""
    return stored_sentences([answer_id]).get(answer_id, [])


def stored_sentences(answer_ids: list[int], *, with_ids: bool = False
                     ) -> dict[int, list[dict[str, Any]]]:
    """Each answer's sentences as ``answer_result`` gives them, in two queries
    for all the answers; ``with_ids`` adds each sentence's and citation's row
    id as ``"id"`` (not part of the result)."""
    by_answer: dict[int, list[dict[str, Any]]] = {answer_id: [] for answer_id in answer_ids}
    sentences: dict[int, dict[str, Any]] = {}
    for row in (SentenceVerdict.objects.filter(answer_id__in=answer_ids)
                .order_by("answer_id", "index")
                .values("id", "answer_id", "index", "start", "end", "text", "claim", "status")):
        sentence_id, answer_id = row.pop("id"), row.pop("answer_id")
        sentence = {**row, "citations": []}
        if with_ids:
            sentence["id"] = sentence_id
        sentences[sentence_id] = sentence
        by_answer[answer_id].append(sentence)
    for row in (CitationVerdict.objects.filter(answer_id__in=answer_ids)
                .order_by("answer_id", "position")
                .values("id", "sentence_id", *CITATION_COLUMNS.values())):
        citation = {key: (row[column] or None) if key in STORED_AS_EMPTY else row[column]
                    for key, column in CITATION_COLUMNS.items()}
        if with_ids:
            citation["id"] = row["id"]
        sentences[row["sentence_id"]]["citations"].append(citation)
    return by_answer


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
        sentences = _stored_sentences(answer.pk)
    return {
        **_answer_header(answer),
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
        "created_at": answer.created.isoformat(),
    }


def answer_api_result(answer: Answer, *, sentences: list[dict[str, Any]] | None = None,
                      source_texts: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``answer_result`` with every span's offsets in UTF-16 code units and
    UTF-8 bytes beside its code points: the body of POST and GET
    /api/v1/answers. The units are computed from the texts (the rows keep
    code points), from ``source_texts`` (marker: original text) when POST has
    them in hand, else from the answer's stored sources; either way by the
    same function, so POST and GET agree."""
    result = answer_result(answer, sentences=sentences)
    add_offset_units(
        result["sentences"], answer=answer.text,
        source_texts=(lambda: source_texts) if source_texts is not None
        else lambda: _stored_source_texts(answer.pk),
        document_texts=document_text_prefixes,
    )
    return result


def _stored_source_texts(answer_id: int) -> dict[str, str]:
    # The reference columns come along so a source stored as a document
    # range is read back (and checked against its hash) like everywhere else.
    rows = AnswerSource.objects.filter(answer_id=answer_id).values(
        "answer_id", "marker", "text", "text_sha256", "document_id", "document_start",
        "text_chars")
    return {row["marker"]: row["text"] for row in rows}


def answer_summary(answer: Answer) -> dict[str, Any]:
    """An answer in the API's list: its verdict and what was done, without the
    sentences."""
    return {
        **_answer_header(answer),
        "coverage": round(answer.coverage, 4),
        "counts": answer.counts,
        "review_state": answer.review_state,
        "review_url": reverse("reviewer:answer", args=[answer.pk]),
        "url": f"/api/v1/answers/{answer.pk}",
        "created_at": answer.created.isoformat(),
    }


def _answer_header(answer: Answer) -> dict[str, Any]:
    """The keys that open both an answer's result and its list entry."""
    return {
        "answer": answer.pk,
        "id": answer.external_id or None,
        "surface": answer.surface.name if answer.surface else None,
        "model": answer.model or None,
        "verdict": answer.verdict,
        "action": answer.action,
    }


def answer_list() -> QuerySet[Answer]:
    return Answer.objects.select_related("surface").defer("text", "served_answer", "correction")


def answer_get_for_review(answer_id: int) -> Answer:
    """One answer with everything its review page shows, in a fixed number of
    queries whatever its size."""
    return _with_rows(Answer.objects.filter(pk=answer_id)).select_related(
        "assigned_to", "in_review_by",
    ).prefetch_related(
        "sources",
        Prefetch("decisions", queryset=ReviewDecision.objects.select_related("reviewer")
                 .order_by("created")),
    ).get()


def answer_list_for_client(
    client: Any, *, surfaces: list[str] | None = None, models: list[str] | None = None,
    verdicts: list[str] | None = None, since: Any = None,
) -> QuerySet[Answer]:
    """The answers ``client`` submitted, filtered (the API's list; unordered)."""
    queryset = Answer.objects.filter(client=client).select_related("surface").defer(
        "text", "question", "served_answer", "correction", "reasons", "notes")
    if surfaces:
        queryset = queryset.filter(surface__name__in=surfaces)
    if models:
        queryset = queryset.filter(model__in=models)
    if verdicts:
        queryset = queryset.filter(verdict__in=verdicts)
    if since is not None:
        queryset = queryset.filter(created__gte=since)
    return queryset
