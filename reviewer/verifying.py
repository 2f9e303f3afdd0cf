"""Runs the verification library on a payload: resolves sources that name
ingested chunks or document ranges, and adds page rectangles to the report."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.functions import Length, Substr

from reviewer.models import Chunk, Document
from reviewer.selectors.documents import document_locate
from verification import Report, Source, VerificationConfig, verify_answer
from verification.payload import AnswerPayload, SourceRef

__all__ = [
    "SourceResolutionError", "SourceTooLong", "pdf_pages_text", "report_dict", "resolve_sources",
    "verify_payload",
]


def pdf_pages_text(data: bytes) -> list[str]:
    """Each page's text of a PDF sent inline (an Anthropic document), through
    the same extractor as uploads, so quotes are checked against our text."""
    from reviewer.ingestion import ExtractionError, extract_pdf

    try:
        extracted = extract_pdf(data)
    except ExtractionError as error:
        raise SourceResolutionError(f"an inline PDF document: {error.message}") from None
    return [extracted.page_text(n) for n in range(1, extracted.page_count + 1)]


class SourceResolutionError(ValueError):
    """A source names a chunk or document range that cannot be resolved."""


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
    if end is None:
        # To the end: read no more than the limit allows (plus one, to know).
        part = (Substr("text", start + 1) if max_chars is None
                else Substr("text", start + 1, max_chars + 1))
    else:
        part = Substr("text", start + 1, max(0, end - start) + continuation)
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
    return Source(
        marker=marker, text=text, skip=skip, injected_end=end - start,
        document=document.pk, document_offset=start, superseded=document.is_superseded,
    )


def resolve_sources(refs: tuple[SourceRef, ...], *, max_chars: int | None = None
                    ) -> list[Source]:
    """The sources as injected; a chunk or document range over ``max_chars``
    (None: no limit) raises SourceTooLong."""
    chunk_ids = [ref.chunk for ref in refs if ref.chunk is not None]
    chunks = Chunk.objects.select_related("document").defer("document__text").in_bulk(chunk_ids)
    document_ids = [ref.document for ref in refs if ref.document is not None]
    documents = Document.objects.defer("text").in_bulk(document_ids)
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


def verify_payload(payload: AnswerPayload, *, config: VerificationConfig) -> Report:
    return verify_answer(
        payload.answer, resolve_sources(payload.sources), config=config, answer_id=payload.id
    )


def report_dict(report: Report) -> dict[str, Any]:
    """The report as JSON data; citations into documents carry their pages."""
    data = report.to_dict()
    citations = [c for s in data["sentences"] for c in s["citations"]]
    document_ids = {c["document"] for c in citations if c["document"] is not None}
    documents = Document.objects.defer("text").in_bulk(document_ids)
    for citation in citations:
        document = documents.get(citation["document"])
        located = citation["document_start"] is not None and document is not None
        citation["pages"] = (
            document_locate(document, citation["document_start"], citation["document_end"])
            if located else []
        )
    return data
