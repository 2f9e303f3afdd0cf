"""Reading answers' sources, as the ``Source`` objects they were verified as.

Sources stored as references to a document range (not copied into every
answer that cites them) are read back by ``reviewer.models.source_references``
whenever rows are fetched; its names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from reviewer.models import AnswerSource, Document
from reviewer.models.source_references import (
    SourceReferenceError,
    source_reference,
    source_texts_resolve,
)
from reviewer.selectors.documents import documents_ocr_ranges, ocr_ranges_within
from verification import Source

__all__ = ["SourceReferenceError", "answers_sources", "source_from_row", "source_reference",
           "source_texts_resolve"]

#: The columns of an ``AnswerSource`` that make the ``Source`` it was verified as.
SOURCE_FIELDS = ("answer_id", "marker", "text", "document_id", "document_start",
                 "document_end", "superseded", "furniture", "text_chars", "text_sha256")


def source_from_row(row: dict[str, Any],
                    read_by_ocr: Iterable[tuple[int, int]] = ()) -> Source:
    """The ``Source`` an ``AnswerSource`` row (as values) was verified as: its
    text snapshot, furniture, and document range (``injected_end`` where the
    document's continuation begins inside the snapshot); ``read_by_ocr``: the
    ranges of its document's text that OCR read."""
    start, end, text = row["document_start"], row["document_end"], row["text"]
    injected_end = None
    if start is not None and end is not None and end - start != len(text):
        injected_end = end - start
    return Source(
        marker=row["marker"], text=text,
        skip=tuple((s, e) for s, e in row["furniture"]),
        injected_end=injected_end, document=row["document_id"],
        document_offset=start or 0, superseded=row["superseded"],
        ocr=ocr_ranges_within(read_by_ocr, start or 0, len(text)) if start is not None else (),
    )


def answers_sources(answer_ids: Iterable[int]) -> dict[int, list[Source]]:
    """Each answer's sources as it was verified against them, in order: what
    verifying a stored answer again reads (one query, texts read back)."""
    ids = list(answer_ids)
    sources: dict[int, list[Source]] = {pk: [] for pk in ids}
    rows = list(AnswerSource.objects.filter(answer_id__in=ids)
                .order_by("answer_id", "position").values(*SOURCE_FIELDS))
    # Documents are frozen once ready: the pages OCR read then are read now.
    documents = {row["document_id"] for row in rows if row["document_id"] is not None}
    read_by_ocr = documents_ocr_ranges(dict(
        Document.all_objects.filter(pk__in=documents).exclude(ocr_pages=[])
        .values_list("pk", "ocr_pages"))) if documents else {}
    for row in rows:
        sources[row["answer_id"]].append(
            source_from_row(row, read_by_ocr.get(row["document_id"], ())))
    return sources
