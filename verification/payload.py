"""The native answer format, validated into typed records.

``{"id", "surface", "model", "question", "answer", "sources": [{"marker", "text"}]}``;
only ``answer`` and ``sources`` are required. A source may instead name an
ingested chunk or a document range (``{"marker", "chunk"}``,
``{"marker", "document", "start", "end"}``): those are resolved by the
application, which owns the documents; this module only checks their shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .markers import canonical_label

__all__ = ["AnswerPayload", "PayloadError", "SourceRef", "parse_answer_payload"]


class PayloadError(ValueError):
    """The payload is not in the native answer format; the message says where."""


@dataclass(frozen=True, slots=True)
class SourceRef:
    """One injected source as given: inline ``text``, a ``chunk`` id, or a
    ``document`` range ``[start, end)``."""

    marker: str
    text: str | None = None
    chunk: int | None = None
    document: int | None = None
    start: int | None = None
    end: int | None = None

    @property
    def is_inline(self) -> bool:
        return self.text is not None


@dataclass(frozen=True, slots=True)
class AnswerPayload:
    answer: str
    sources: tuple[SourceRef, ...]
    id: str | None = None
    surface: str | None = None
    model: str | None = None
    question: str | None = None


def _optional_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise PayloadError(f'"{key}" must be a string, not {type(value).__name__}')
    return str(value)


def _integral(value: Any) -> Any:
    """JSON has one kind of number: 7.0 is the integer 7 (as JSON Schema says)."""
    if isinstance(value, float) and value.is_integer() and -(2**63) <= value < 2**63:
        return int(value)
    return value


def _int(value: Any, where: str) -> int:
    value = _integral(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise PayloadError(f"{where} must be a non-negative integer, not {value!r}")
    return value


def _source(item: Any, position: int) -> SourceRef:
    where = f"sources[{position}]"
    if not isinstance(item, Mapping):
        raise PayloadError(f"{where} must be an object with a marker and text")
    marker = _integral(item.get("marker"))
    if isinstance(marker, bool) or not isinstance(marker, str | int) or not str(marker).strip():
        raise PayloadError(f'{where} needs a "marker" (such as "S1" or 1)')
    label = canonical_label(str(marker))
    if "text" in item:
        if not isinstance(item["text"], str):
            raise PayloadError(f'{where}.text must be a string')
        return SourceRef(marker=label, text=item["text"])
    if "chunk" in item:
        return SourceRef(marker=label, chunk=_int(item["chunk"], f"{where}.chunk"))
    if "document" in item:
        document = _int(item["document"], f"{where}.document")
        start = _int(item.get("start", 0), f"{where}.start")
        end = item.get("end")
        end = None if end is None else _int(end, f"{where}.end")
        if end is not None and end < start:
            raise PayloadError(f"{where}: end ({end}) is before start ({start})")
        return SourceRef(marker=label, document=document, start=start, end=end)
    raise PayloadError(f'{where} needs "text", "chunk" or "document"')


def parse_answer_payload(data: Any) -> AnswerPayload:
    """Validate one native-format answer; raise :class:`PayloadError` if it is not."""
    if not isinstance(data, Mapping):
        raise PayloadError(f"an answer must be a JSON object, not {type(data).__name__}")
    answer = data.get("answer")
    if not isinstance(answer, str):
        raise PayloadError('"answer" is required and must be a string')
    raw_sources = data.get("sources")
    if not isinstance(raw_sources, list):
        raise PayloadError('"sources" is required and must be a list')
    sources = tuple(_source(item, i) for i, item in enumerate(raw_sources))
    seen: set[str] = set()
    for source in sources:
        if source.marker in seen:
            raise PayloadError(f"source marker {source.marker!r} is given twice")
        seen.add(source.marker)
    return AnswerPayload(
        answer=answer,
        sources=sources,
        id=_optional_str(data, "id"),
        surface=_optional_str(data, "surface"),
        model=_optional_str(data, "model"),
        question=_optional_str(data, "question"),
    )
