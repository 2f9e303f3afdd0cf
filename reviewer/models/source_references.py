"""Answers' sources stored as references to a document range, read back.

A source from an ingested document is not copied into every answer that
cites it (a whole-document range can run to the source-length limit, per
answer): its row keeps the document, the range and the SHA-256 of the text
read, and the text is read back from the document here, whenever rows are
fetched (``AnswerSourceQuerySet``). A ready document's text never changes
(``Document.FROZEN_WHEN_READY``), so the hash holds; if it does not, the
source is not shown as something it was not: the reader gets
``SourceReferenceError`` saying which source, which range and why. It lives
with the models because the query set calls it: models never call up into
selectors or services.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable, MutableMapping
from typing import Any

from django.db.models.functions import Substr

from reviewer.models.answers import AnswerSource
from reviewer.models.documents import Document

__all__ = ["SourceReferenceError", "source_reference", "source_texts_resolve"]


_NEEDED = ("text", "text_sha256", "document_id", "document_start", "text_chars")


class SourceReferenceError(RuntimeError):
    """A source stored as a reference cannot be read back as it was verified."""


def source_reference(text: str) -> dict[str, Any]:
    """The columns that store ``text`` (a range read from a document) as a
    reference instead of a copy."""
    return {"text": "", "text_chars": len(text),
            "text_sha256": hashlib.sha256(text.encode()).hexdigest()}


def _get(row: Any, name: str) -> Any:
    return row[name] if isinstance(row, MutableMapping) else getattr(row, name)


def _set_text(row: Any, text: str) -> None:
    if isinstance(row, MutableMapping):
        row["text"] = text
    else:
        row.text = text  # in memory only: a source row is never saved again


def _is_reference(row: Any) -> bool:
    if isinstance(row, MutableMapping):
        return all(name in row for name in _NEEDED) and bool(row["text_sha256"])
    if not isinstance(row, AnswerSource):
        return False
    loaded = row.__dict__
    return all(name in loaded for name in _NEEDED) and bool(row.text_sha256)


def _describe(row: Any) -> str:
    if isinstance(row, MutableMapping):
        marker, answer = row.get("marker", "?"), row.get("answer_id")
    else:
        marker, answer = row.marker, row.answer_id
    return f"source [{marker}]" + (f" of answer {answer}" if answer is not None else "")


def source_texts_resolve(rows: Iterable[Any]) -> None:
    """Fill in the text of every row stored as a reference (model instances,
    or ``values()`` dicts that include the reference columns), one query per
    document, checking each against its hash."""
    wanted: dict[int, list[Any]] = defaultdict(list)
    for row in rows:
        if not _is_reference(row) or _get(row, "text"):
            continue
        document_id = _get(row, "document_id")
        if document_id is None:
            raise SourceReferenceError(f"{_describe(row)} is stored as a reference to a "
                                       "document that no longer exists.")
        wanted[document_id].append(row)
    for document_id, refs in wanted.items():
        first = min(_get(r, "document_start") for r in refs)
        last = max(_get(r, "document_start") + _get(r, "text_chars") for r in refs)
        # all_objects: a deleted document's text still backs the answers that cited it.
        span = (Document.all_objects.filter(pk=document_id)
                .annotate(span=Substr("text", first + 1, max(1, last - first)))
                .values_list("span", flat=True).first())
        for row in refs:
            start, chars = _get(row, "document_start"), _get(row, "text_chars")
            if span is None:
                raise SourceReferenceError(
                    f"{_describe(row)} names document {document_id}, which no longer "
                    "exists; its text cannot be shown.")
            text = span[start - first:start - first + chars]
            digest = hashlib.sha256(text.encode()).hexdigest()
            if len(text) != chars or digest != _get(row, "text_sha256"):
                raise SourceReferenceError(
                    f"{_describe(row)}: the text of document {document_id} at "
                    f"[{start}, {start + chars}) no longer matches what was verified "
                    f"(SHA-256 {_get(row, 'text_sha256')[:12]}… when the answer was checked, "
                    f"{digest[:12]}… now, {len(text)} of {chars} characters). The document's "
                    "text was changed after it was cited; this source is not shown as "
                    "something it was not.")
            _set_text(row, text)
