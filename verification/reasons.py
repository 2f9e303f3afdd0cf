"""Why an answer is flagged, in sentences, and the verdict they add up to."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from .config import VerificationConfig
from .report import REVIEW_OUTCOMES, Verdict

__all__ = ["coverage_sentence", "reason_sentence", "verdict"]


#: Each failing outcome as a sentence: (one citation, several citations).
_REASON_SENTENCES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "fabricated-marker": (
        "1 fabricated marker: it was not among the sources given to the model.",
        "{n} fabricated markers: they were not among the sources given to the model."),
    "quote-altered": (
        "1 quote altered: it changes the meaning of the source it cites.",
        "{n} quotes altered: they change the meaning of the sources they cite."),
    "claim-mismatch": (
        "1 cited sentence says what its passage does not: a number, negation, quantifier, "
        "order or name differs.",
        "{n} cited sentences say what their passages do not: a number, negation, quantifier, "
        "order or name differs."),
    "claim-unsupported": (
        "1 citation to a source that shares almost nothing with its sentence.",
        "{n} citations to sources that share almost nothing with their sentences."),
    "quote-not-found": (
        "1 quote not found: it is not in the source it cites.",
        "{n} quotes not found: they are not in the sources they cite."),
    "wrong-source": (
        "1 quote from the wrong source: it is in another source than the one it cites.",
        "{n} quotes from the wrong source: they are in other sources than the ones "
        "they cite."),
    "unattributed-quote": (
        "1 quote without marker: nothing says which source it comes from.",
        "{n} quotes without marker: nothing says which sources they come from."),
    "superseded": (
        "1 citation into a superseded document: provenance, but not the current version.",
        "{n} citations into a superseded document: provenance, but not the current "
        "version."),
    "unquoted": (
        "1 citation with no quote, on a surface that requires quotes.",
        "{n} citations with no quote, on a surface that requires quotes."),
})


def reason_sentence(outcome: str, count: int) -> str:
    """Why an answer is flagged, as a sentence: ``count`` citations with
    ``outcome`` (a failing outcome, ``superseded``, or ``unquoted`` on a
    surface that requires quotes)."""
    one, several = _REASON_SENTENCES[outcome]
    return one if count == 1 else several.format(n=count)


def coverage_sentence(coverage: float, minimum: float) -> str:
    """Coverage below the surface's minimum, as a sentence."""
    return (f"{coverage:.0%} of the claims cite a source: coverage below the minimum "
            f"of {minimum:.0%}.")


def verdict(
    counts: Mapping[str, int], coverage: float, config: VerificationConfig
) -> tuple[Verdict, tuple[str, ...]]:
    reasons: list[str] = []
    for outcome in ("fabricated-marker", *REVIEW_OUTCOMES, "superseded"):
        if counts[outcome]:
            reasons.append(reason_sentence(outcome, counts[outcome]))
    if coverage < config.min_coverage:
        reasons.append(coverage_sentence(coverage, config.min_coverage))
    if config.require_quotes and counts["unquoted"]:
        reasons.append(reason_sentence("unquoted", counts["unquoted"]))
    if counts["fabricated-marker"]:
        return "fail", tuple(reasons)
    return ("flag" if reasons else "pass"), tuple(reasons)
