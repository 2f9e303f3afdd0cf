"""Runs the verification library on a payload: resolves sources that name
ingested chunks or document ranges, and adds page rectangles to the report."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings
from django.db.models.functions import Length, Substr

from reviewer.models import Chunk, Document, Workspace
from reviewer.selectors.documents import (
    document_locate,
    document_text_prefixes,
    documents_ocr_ranges,
    ocr_ranges_within,
)
from verification import (
    DEFAULT_MAX_WORK,
    Report,
    Source,
    VerificationConfig,
    WorkBudgetExceeded,
    verify_answer,
)
from verification.offsets import add_offset_units
from verification.payload import AnswerPayload, SourceRef

__all__ = [
    "InlinePdfOverLimit", "SourceResolutionError", "SourceTooLong", "budget_sentence",
    "pdf_pages_text", "report_dict", "resolve_sources", "verify_payload", "verify_work_limit",
]


def pdf_pages_text(data: bytes) -> list[str]:
    """Each page's text of a PDF sent inline (an Anthropic document), through
    the same sandboxed extractor and limits as uploads, so quotes are checked
    against our text and no request can exhaust the server."""
    from reviewer.ingestion import ExtractionError
    from reviewer.ingestion.sandbox import extract_pdf_isolated
    from reviewer.services.documents import isolation_limits, ocr_options

    try:
        extracted = extract_pdf_isolated(data, **isolation_limits(inline=True),  # type: ignore[arg-type]
                                         ocr=ocr_options(inline=True))
    except ExtractionError as error:
        cls = InlinePdfOverLimit if error.kind in _OVER_LIMIT else SourceResolutionError
        raise cls(f"an inline PDF document: {error.message}") from None
    try:
        return [extracted.page_text(n) for n in range(1, extracted.page_count + 1)]
    finally:
        extracted.geometry.close()


class SourceResolutionError(ValueError):
    """A source names a chunk or document range that cannot be resolved."""


class InlinePdfOverLimit(SourceResolutionError):
    """An inline PDF past an ingestion limit (pages, characters, memory, time)."""


_SQL_INT_MAX = 2**31 - 1
_OVER_LIMIT = frozenset({"too-many-pages", "page-chars", "document-chars", "memory", "timeout"})


class SourceTooLong(SourceResolutionError):
    """A document range longer than the source-length limit."""

    def __init__(self, marker: str, chars: int, limit: int) -> None:
        super().__init__(f"Source [{marker}] is a document range of {chars} characters; the "
                         f"limit is {limit}. Cite a shorter range (start and end), or a chunk.")


def _document_source(
    marker: str, document: Document, start: int, end: int | None, *, what: str,
    max_chars: int | None = None,
) -> Source:
    """``document.text[start:end]`` as injected (``end`` None: to the end), plus
    the text that follows it (a quote may run on across the chunk boundary),
    read with one SUBSTR. A range over ``max_chars`` is refused before its
    text is read (SourceTooLong)."""
    if document.status != Document.Status.READY:
        raise SourceResolutionError(
            f"source [{marker}] names {what} of document {document.pk}, which is "
            f"{document.status}, not ready"
        )
    if max_chars is not None and end is not None and end - start > max_chars:
        raise SourceTooLong(marker, end - start, max_chars)
    continuation = int(settings.CITEGUARD["CONTINUATION_CHARS"])
    # SUBSTR's arguments are 32-bit on PostgreSQL (a bigint one is no such
    # function: a 500); no text is that long, and the range check below still
    # sees the range as given.
    first = min(start + 1, _SQL_INT_MAX)
    if end is None:
        # To the end: read no more than the limit allows (plus one, to know).
        part = (Substr("text", first) if max_chars is None
                else Substr("text", first, min(max_chars + 1, _SQL_INT_MAX)))
    else:
        part = Substr("text", first, min(max(0, end - start) + continuation, _SQL_INT_MAX))
    row = (
        Document.objects.filter(pk=document.pk)
        .annotate(part=part, size=Length("text"))
        .values("part", "size")
        .get()
    )
    if end is None:
        end = row["size"]
        if max_chars is not None and end - start > max_chars:
            raise SourceTooLong(marker, end - start, max_chars)
    if end > row["size"] or start >= end:
        raise SourceResolutionError(
            f"source [{marker}]: range [{start}, {end}) is outside document {document.pk} "
            f"(length {row['size']})"
        )
    text = row["part"]
    skip = tuple(
        (max(s, start) - start, min(e, start + len(text)) - start)
        for s, e in document.furniture
        if s < start + len(text) and e > start
    )
    read_by_ocr = documents_ocr_ranges({document.pk: document.ocr_pages}).get(document.pk, ())
    return Source(
        marker=marker, text=text, skip=skip, injected_end=end - start,
        document=document.pk, document_offset=start, superseded=document.is_superseded,
        ocr=ocr_ranges_within(read_by_ocr, start, len(text)),
    )


def resolve_sources(refs: tuple[SourceRef, ...], *, workspace: Workspace | int | None = None,
                    max_chars: int | None = None) -> list[Source]:
    """The sources as injected; chunks and documents only from ``workspace``
    (None: any, for the operator's own commands). Another workspace's chunk
    or document is refused in the same words as one that does not exist; a
    chunk or document range over ``max_chars`` (None: no limit) raises
    SourceTooLong."""
    chunk_rows = Chunk.objects.select_related("document").defer("document__text")
    document_rows = Document.objects.defer("text")
    if workspace is not None:
        chunk_rows = chunk_rows.filter(document__workspace=workspace)
        document_rows = document_rows.filter(workspace=workspace)
    chunks = chunk_rows.in_bulk([ref.chunk for ref in refs if ref.chunk is not None])
    documents = document_rows.in_bulk([ref.document for ref in refs if ref.document is not None])
    sources = []
    for ref in refs:
        if ref.text is not None:
            sources.append(Source(marker=ref.marker, text=ref.text))
        elif ref.chunk is not None:
            chunk = chunks.get(ref.chunk)
            if chunk is None or chunk.document.deleted_at is not None:
                raise SourceResolutionError(
                    f"source [{ref.marker}] names chunk {ref.chunk}, which does not exist"
                    + (" (its document was deleted)" if chunk is not None else "")
                )
            sources.append(_document_source(
                ref.marker, chunk.document, chunk.start, chunk.end, what=f"chunk {chunk.pk}",
                max_chars=max_chars,
            ))
        else:
            assert ref.document is not None
            document = documents.get(ref.document)
            if document is None:
                raise SourceResolutionError(
                    f"source [{ref.marker}] names document {ref.document}, which does not exist"
                )
            sources.append(_document_source(
                ref.marker, document, ref.start or 0, ref.end, what="a range",
                max_chars=max_chars,
            ))
    return sources


def verify_work_limit() -> int | None:
    """``CITEGUARD["MAX_VERIFY_WORK"]``: the fuzzy-alignment work one submitted
    answer may cost (see ``verification/budget.py``); 0 means no limit."""
    limit = int(settings.CITEGUARD.get("MAX_VERIFY_WORK", DEFAULT_MAX_WORK))
    return limit if limit > 0 else None


def budget_sentence(error: WorkBudgetExceeded) -> str:
    """Why an answer was refused over the work budget, naming the limit."""
    return (f"Verifying this answer needs more than the limit of {error.limit:,} units of "
            "alignment work (quote characters times source characters searched, "
            "CITEGUARD['MAX_VERIFY_WORK']): send fewer or shorter inexact quotes, or fewer "
            "or smaller sources.")


def verify_payload(payload: AnswerPayload, *, config: VerificationConfig) -> Report:
    return verify_answer(
        payload.answer, resolve_sources(payload.sources), config=config, answer_id=payload.id
    )


def report_dict(report: Report, *, answer: str | None = None,
                sources: Sequence[Source] = ()) -> dict[str, Any]:
    """The report as JSON data; citations into documents carry the pages of
    their match (``pages``) and of their passage (``passage_pages``: the
    likely passage of an unquoted citation is in the same document as its
    marker's source, a quote's passage around its match). Given the
    ``answer`` text and ``sources`` it was verified against, every span
    carries its UTF-16 and UTF-8 offsets too (``verification.offsets``)."""
    data = report.to_dict()
    citations = [c for s in data["sentences"] for c in s["citations"]]
    document_ids = {c["document"] for c in citations if c["document"] is not None}
    documents = Document.objects.defer("text").in_bulk(document_ids)
    for citation in citations:
        document = documents.get(citation["document"])
        citation["pages"] = _pages(document, citation["document_start"],
                                   citation["document_end"])
        citation["passage_pages"] = _pages(document, citation["passage_document_start"],
                                           citation["passage_document_end"])
    if answer is not None:
        add_offset_units(data["sentences"], answer=answer,
                         source_texts=lambda: {s.marker: s.text for s in sources},
                         document_texts=document_text_prefixes)
    return data


def _pages(document: Document | None, start: int | None, end: int | None) -> list[Any]:
    """Page rectangles of a range of ``document``; none without either."""
    if document is None or start is None or end is None:
        return []
    return document_locate(document, start, end)
