"""Why an answer is flagged, in sentences, and the verdict they add up to;
and a citation's differences and scores in the words its message uses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from .config import VerificationConfig
from .diff import negation_context
from .finding import Found
from .matching import Difference, across_parenthetical
from .pool import SourcePool
from .report import REVIEW_OUTCOMES, Verdict

__all__ = ["bracketed_labels", "coverage_sentence", "describe_differences", "found_where",
           "negations_as_said", "reason_sentence", "score_text", "threshold_text", "verdict"]


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


# -- a citation's differences and scores, in words ---------------------------


def found_where(found: Found, pool: SourcePool) -> str:
    """``[label]``, and the negation the quote leaves out there, if any."""
    left_out = [d for d in found.differences if d.op in ("omit-before", "omit-after")]
    if not left_out:
        return f"[{found.label}]"
    said = negations_as_said(found, pool)
    return f"[{found.label}], where it {describe_differences(left_out, said=said)}"


def negations_as_said(found: Found, pool: SourcePool) -> Mapping[Difference, str]:
    """A negation across a parenthetical as the source says it ("Do not, under
    any circumstances,"), not in its normalised words: a reviewer must read
    the very words that reverse the quote."""
    said = {}
    for difference in found.differences:
        if across_parenthetical(difference):
            context = negation_context(pool.by_label[found.label].text,
                                       found.alignment.source_start,
                                       found.alignment.source_end, difference)
            if context is not None:
                said[difference] = context.words
    return said


def bracketed_labels(labels: Sequence[str]) -> str:
    return ", ".join(f"[{label}]" for label in labels)


def threshold_text(threshold: float) -> str:
    """A threshold as set: two decimals, or up to four when it has more
    (0.9859 is not shown as 0.99)."""
    return f"{threshold:.2f}" if round(threshold, 2) == threshold else f"{threshold:.4g}"


def score_text(score: float, threshold: float) -> str:
    """A score with as many decimals as its threshold needs to be told apart."""
    return f"{score:.2f}" if round(threshold, 2) == threshold else f"{score:.4f}"


def describe_differences(differences: Sequence[Difference], *, meaning_only: bool = False,
              said: Mapping[Difference, str] = MappingProxyType({})) -> str:
    """The differences in words; ``said``: a difference's words as the source
    says them, where they are not its normalised ``source``."""
    parts = []
    for difference in differences:
        if meaning_only and not difference.reasons:
            continue
        if difference.op == "replace":
            what = f"“{difference.quote}” for “{difference.source}”"
        elif difference.op == "insert":
            what = f"adds “{difference.quote}”"
        elif difference.op == "move":
            what = f"moves “{difference.quote}”"
        elif difference.op == "omit-before":
            what = (f"leaves out “{said.get(difference, difference.source)}” just before the "
                    "quoted words")
        elif difference.op == "omit-after":
            what = f"stops just before “{difference.source}”"
        else:
            what = f"drops “{difference.source}”"
        if difference.reasons:
            what += f" ({', '.join(difference.reasons)})"
        parts.append(what)
    return "; ".join(parts) or "spacing or punctuation only"
