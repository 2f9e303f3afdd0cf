"""How bad an answer's check was, as the triage queue ranks it.

A pure function of the report's counts, computed once when the answer is
stored (and again when it is re-verified), so the queue sorts and filters on
plain indexed columns instead of reading every answer's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["FAILING_CAP", "OUTCOME_BITS", "OUTCOME_COLUMNS", "PRIORITY_FAILING",
           "PRIORITY_SEVERITY", "SEVERITY_ORDER", "outcome_columns", "outcome_mask",
           "reason_words", "severity", "triage_priority"]

#: Outcomes worst first: a fabricated marker is always a defect; an altered
#: quote changes what the source says, and so does a sentence whose passage
#: contradicts it (claim-mismatch); a missing quote can't be checked, nor can
#: a paraphrase whose cited source shares almost nothing with it
#: (claim-unsupported); a quote from another source is real text under the
#: wrong marker; a quote with no marker and a claim with none are the mildest.
#: (The library's sentence statuses, ``verification.report``, rank the same.)
SEVERITY_ORDER: tuple[str, ...] = (
    "fabricated-marker", "quote-altered", "claim-mismatch", "quote-not-found",
    "claim-unsupported", "wrong-source", "unattributed-quote", "uncited-claim",
)

#: The answer column that holds each outcome's count.
OUTCOME_COLUMNS: dict[str, str] = {
    "fabricated-marker": "fabricated_count",
    "quote-altered": "altered_count",
    "quote-not-found": "not_found_count",
    "wrong-source": "wrong_source_count",
    "unattributed-quote": "unattributed_count",
    "uncited-claim": "uncited_count",
    "claim-mismatch": "claim_mismatch_count",
    "claim-unsupported": "claim_unsupported_count",
}

#: Each outcome's bit in ``outcome_mask`` (the queue's counts group on it).
#: Stored in ``QueueGroup.outcomes``, so a bit never changes meaning: a new
#: outcome takes the next free bit whatever its rank (the first six are the
#: ranks the order had when the groups were first kept, migration 0011).
OUTCOME_BITS: dict[str, int] = {
    "fabricated-marker": 1 << 0, "quote-altered": 1 << 1, "quote-not-found": 1 << 2,
    "wrong-source": 1 << 3, "unattributed-quote": 1 << 4, "uncited-claim": 1 << 5,
    "claim-mismatch": 1 << 6, "claim-unsupported": 1 << 7,
}

#: Short words for the queue's reason column ("2 altered · 1 not found").
_SHORT = {
    "fabricated-marker": "fabricated", "quote-altered": "altered",
    "quote-not-found": "not found", "wrong-source": "wrong source",
    "unattributed-quote": "unattributed", "uncited-claim": "uncited",
    "claim-mismatch": "mismatched", "claim-unsupported": "unsupported",
}


def severity(counts: Mapping[str, int]) -> int:
    """The worst outcome present as a rank: 8 for a fabricated marker down to
    1 for an uncited claim, 0 when there is none of them."""
    for rank, outcome in enumerate(SEVERITY_ORDER):
        if counts.get(outcome, 0) > 0:
            return len(SEVERITY_ORDER) - rank
    return 0


def outcome_columns(counts: Mapping[str, int]) -> dict[str, int]:
    """The answer's denormalised triage columns from the report's counts."""
    columns = {column: int(counts.get(outcome, 0)) for outcome, column in OUTCOME_COLUMNS.items()}
    columns["severity"] = severity(counts)
    return columns


def outcome_mask(columns: Mapping[str, int]) -> int:
    """The failing outcomes present, one bit each, from an answer's count
    columns (``OUTCOME_COLUMNS``' values)."""
    return sum(bit for outcome, bit in OUTCOME_BITS.items()
               if columns.get(OUTCOME_COLUMNS[outcome], 0) > 0)


#: The triage queue's keys before age, in one stored number (``Answer.triage_priority``,
#: indexed): severity × PRIORITY_SEVERITY + failing outcomes × PRIORITY_FAILING +
#: 1 on a high-stakes surface. Read in decimal: 3_000_000_000_021 is severity 3,
#: 2 failing outcomes, high stakes. The failing count is capped at FAILING_CAP so
#: it never reaches the severity's digits, a cap no answer can reach (eight
#: 32-bit count columns sum below 1.8 × 10¹⁰), so ordering by the number is
#: ordering by (severity, failing, high stakes) exactly.
PRIORITY_SEVERITY = 10**12
PRIORITY_FAILING = 10
FAILING_CAP = PRIORITY_SEVERITY // PRIORITY_FAILING - 1


def triage_priority(columns: Mapping[str, int], *, high_stakes: bool) -> int:
    """The queue's priority of an answer from its triage columns (``severity``
    and ``OUTCOME_COLUMNS``' values) and its surface's ``high_stakes``."""
    failing = sum(int(columns.get(column, 0)) for column in OUTCOME_COLUMNS.values())
    return (int(columns.get("severity", 0)) * PRIORITY_SEVERITY
            + min(failing, FAILING_CAP) * PRIORITY_FAILING + int(bool(high_stakes)))


def reason_words(counts: Mapping[str, int], coverage: float | None = None) -> str:
    """The queue row's reason: "2 altered · 1 mismatched · coverage 60%"."""
    parts = [f"{counts[o]} {_SHORT[o]}" for o in SEVERITY_ORDER if counts.get(o, 0) > 0]
    if coverage is not None and coverage < 1:
        parts.append(f"coverage {round(coverage * 100)}%")
    return " · ".join(parts)
