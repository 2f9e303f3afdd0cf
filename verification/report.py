"""The verification report: frozen records with ``to_dict()``.

Offsets are Python code-point indices: ``start``/``end``/``quote_start``/
``quote_end``/``marker_start``/``marker_end`` index the answer text;
``chunk_start``/``chunk_end`` index the original text of the source named by
``source_marker``; ``closest_start``/``closest_end`` the original text of the
source named by ``closest_marker``; ``passage_start``/``passage_end`` and the
``shared`` ranges the original text of the source named by ``source_marker``
(for an unquoted citation, by ``marker``).
JavaScript strings count UTF-16 units, so a browser must convert (or, better,
be sent page rectangles instead).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Final, Literal

from .claims import ClaimFinding
from .matching import Difference

__all__ = [
    "OUTCOMES",
    "REVIEW_OUTCOMES",
    "SENTENCE_STATUSES",
    "UNATTRIBUTED_OUTCOMES",
    "Citation",
    "Outcome",
    "Report",
    "SentenceResult",
    "SentenceStatus",
    "Verdict",
    "attributes",
]

Outcome = Literal[
    "verified",
    "verified-fuzzy",
    "quote-altered",
    "quote-not-found",
    "wrong-source",
    "fabricated-marker",
    "unquoted",
    "unattributed-quote",
    "claim-mismatch",
    "claim-unsupported",
]
SentenceStatus = Literal[
    "fabricated-marker",
    "quote-altered",
    "claim-mismatch",
    "quote-not-found",
    "claim-unsupported",
    "wrong-source",
    "unattributed-quote",
    "uncited-claim",
    "verified-fuzzy",
    "unquoted",
    "verified",
    "no-claim",
]
Verdict = Literal["pass", "flag", "fail"]

#: Citation outcomes (the public vocabulary).
OUTCOMES: Final[tuple[Outcome, ...]] = (
    "verified", "verified-fuzzy", "quote-altered", "quote-not-found", "wrong-source",
    "fabricated-marker", "unquoted", "unattributed-quote", "claim-mismatch", "claim-unsupported",
)
#: Sentence statuses, worst first: a sentence shows its worst citation.
SENTENCE_STATUSES: Final[tuple[SentenceStatus, ...]] = (
    "fabricated-marker", "quote-altered", "claim-mismatch", "quote-not-found",
    "claim-unsupported", "wrong-source", "unattributed-quote", "uncited-claim",
    "verified-fuzzy", "unquoted", "verified", "no-claim",
)
#: Citation outcomes that flag an answer for a person to look at.
REVIEW_OUTCOMES: Final[tuple[Outcome, ...]] = (
    "quote-altered", "claim-mismatch", "quote-not-found", "claim-unsupported", "wrong-source",
    "unattributed-quote",
)

#: Citation outcomes that tie a sentence to no injected source: a marker that
#: was never injected, a quote with no marker.
UNATTRIBUTED_OUTCOMES: Final[tuple[Outcome, ...]] = ("fabricated-marker", "unattributed-quote")


@dataclass(frozen=True, slots=True)
class Citation:
    """One checked reference: a quote with its markers, or a bare marker."""

    outcome: Outcome
    marker: str | None
    markers: tuple[str, ...]
    marker_start: int | None
    marker_end: int | None
    quote: str | None
    quote_start: int | None
    quote_end: int | None
    score: float | None
    source_marker: str | None
    chunk_start: int | None
    chunk_end: int | None
    message: str
    normalizations: tuple[str, ...] = ()
    differences: tuple[Difference, ...] = ()
    # Set when the source came from an ingested document: the match as a range
    # of the document text, and whether that document has a newer version.
    document: int | str | None = None
    document_start: int | None = None
    document_end: int | None = None
    superseded: bool = False
    # Set for ``quote-not-found`` and for the cited source of ``wrong-source``:
    # the cited source's window that comes closest to the quote (a range of
    # that source's original text, like ``chunk_*``) and its similarity. Not a
    # match: ``chunk_*`` still say where the quote is, if anywhere.
    closest_marker: str | None = None
    closest_start: int | None = None
    closest_end: int | None = None
    closest_score: float | None = None
    # The passage of the cited source that supports the sentence: for an
    # unquoted citation the likely passage (located by shared words, not a
    # match), for a quote the source's sentences around its match. A range of
    # the source named by ``source_marker``'s original text like ``chunk_*``,
    # the same range in the document when the source is one, its support
    # (0..1: the share of the sentence's content words, weighted by rarity,
    # that it holds), the ranges of its words the sentence shares, and the
    # sentence's content words it lacks.
    passage_start: int | None = None
    passage_end: int | None = None
    passage_document_start: int | None = None
    passage_document_end: int | None = None
    support: float | None = None
    shared: tuple[tuple[int, int], ...] = ()
    missing: tuple[str, ...] = ()
    # What the sentence itself asserts (outside any quote) that its passage
    # contradicts or lacks: numbers, negation, quantifiers, modals, order,
    # names. Any finding makes the outcome ``claim-mismatch``.
    findings: tuple[ClaimFinding, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        # Written out rather than dataclasses.asdict, whose deep copy is slow;
        # the keys follow the fields' order (a test holds it to asdict's).
        return {
            "outcome": self.outcome,
            "marker": self.marker,
            "markers": list(self.markers),
            "marker_start": self.marker_start,
            "marker_end": self.marker_end,
            "quote": self.quote,
            "quote_start": self.quote_start,
            "quote_end": self.quote_end,
            "score": round(self.score, 4) if self.score is not None else None,
            "source_marker": self.source_marker,
            "chunk_start": self.chunk_start,
            "chunk_end": self.chunk_end,
            "message": self.message,
            "normalizations": list(self.normalizations),
            "differences": [
                {"op": d.op, "source": d.source, "quote": d.quote, "reasons": list(d.reasons),
                 "repair": d.repair}
                for d in self.differences
            ],
            "document": self.document,
            "document_start": self.document_start,
            "document_end": self.document_end,
            "superseded": self.superseded,
            "closest_marker": self.closest_marker,
            "closest_start": self.closest_start,
            "closest_end": self.closest_end,
            "closest_score": (round(self.closest_score, 4)
                              if self.closest_score is not None else None),
            "passage_start": self.passage_start,
            "passage_end": self.passage_end,
            "passage_document_start": self.passage_document_start,
            "passage_document_end": self.passage_document_end,
            "support": round(self.support, 4) if self.support is not None else None,
            "shared": [list(r) for r in self.shared],
            "missing": list(self.missing),
            "findings": [f.to_dict() for f in self.findings],
        }


def attributes(citations: Iterable[Citation]) -> bool:
    """Whether any of ``citations`` ties its sentence to an injected source."""
    return any(c.outcome not in UNATTRIBUTED_OUTCOMES for c in citations)


@dataclass(frozen=True, slots=True)
class SentenceResult:
    index: int
    start: int
    end: int
    text: str
    claim: bool
    status: SentenceStatus
    citations: tuple[Citation, ...]

    @property
    def attributed(self) -> bool:
        return attributes(self.citations)

    @property
    def uncited_claim(self) -> bool:
        """A claim no citation attributes, whatever its status shows (an
        unattributed quote, a fabricated marker, nothing). The one definition
        behind ``coverage``, ``counts["uncited-claim"]`` and the metric counted
        from those counts, so the three agree."""
        return self.claim and not self.attributed

    def to_dict(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "start": self.start,
            "end": self.end,
            "text": self.text,
            "claim": self.claim,
            "status": self.status,
            "citations": [c.to_dict() for c in self.citations],
        }


@dataclass(frozen=True, slots=True)
class Report:
    """Everything decided about one answer."""

    id: str | None
    verdict: Verdict
    counts: dict[str, int]
    coverage: float
    claims: int
    attributed_claims: int
    threshold: float
    sentences: tuple[SentenceResult, ...]
    reasons: tuple[str, ...]
    elapsed_ms: float

    @property
    def citations(self) -> tuple[Citation, ...]:
        return tuple(c for s in self.sentences for c in s.citations)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "verdict": self.verdict,
            "counts": dict(self.counts),
            "coverage": round(self.coverage, 4),
            "claims": self.claims,
            "attributed_claims": self.attributed_claims,
            "threshold": self.threshold,
            "reasons": list(self.reasons),
            "sentences": [s.to_dict() for s in self.sentences],
            "elapsed_ms": round(self.elapsed_ms, 3),
            "checks": "provenance",  # quotes and markers, never entailment
        }
