"""Runs the verification library on a payload, resolving its sources."""

from __future__ import annotations

from verification import Report, Source, VerificationConfig, verify_answer
from verification.payload import AnswerPayload, SourceRef

__all__ = ["SourceResolutionError", "resolve_sources", "verify_payload"]


class SourceResolutionError(ValueError):
    """A source names a chunk or document range that cannot be resolved."""


def resolve_sources(refs: tuple[SourceRef, ...]) -> list[Source]:
    sources = []
    for ref in refs:
        if ref.text is None:
            raise SourceResolutionError(
                f"source [{ref.marker}] names an ingested chunk or document; "
                "give its text inline"
            )
        sources.append(Source(marker=ref.marker, text=ref.text))
    return sources


def verify_payload(payload: AnswerPayload, *, config: VerificationConfig) -> Report:
    return verify_answer(
        payload.answer, resolve_sources(payload.sources), config=config, answer_id=payload.id
    )
