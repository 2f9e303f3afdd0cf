"""What to serve when an answer fails its check: a surface's failure policy.

``apply_policy(report, answer, policy=...)`` turns a report into an action:

* ``serve`` — the verdict is ``pass``: serve the answer as it is;
* ``strip`` — serve the answer with the failing sentences removed and every
  other character intact;
* ``regenerate`` — ask the model again, feeding back ``correction``, a text
  naming each failure;
* ``flag`` — serve the answer marked as unverified;
* ``escalate`` — do not serve; hand it to a person.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from .report import REVIEW_OUTCOMES, Citation, Report, SentenceResult

__all__ = ["POLICIES", "Action", "PolicyOutcome", "apply_policy", "correction_text",
           "strip_failing"]

Action = Literal["serve", "strip", "regenerate", "flag", "escalate"]
Policy = Literal["strip", "regenerate", "flag", "escalate"]
POLICIES: Final[tuple[Policy, ...]] = ("strip", "regenerate", "flag", "escalate")

_FAILING_STATUSES: Final = frozenset({"fabricated-marker", *REVIEW_OUTCOMES})


@dataclass(frozen=True, slots=True)
class PolicyOutcome:
    action: Action
    served_answer: str
    correction: str


def _failing(sentence: SentenceResult, report: Report, *, min_coverage: float) -> bool:
    if sentence.status in _FAILING_STATUSES:
        return True
    if any(c.superseded for c in sentence.citations):
        return True
    return sentence.status == "uncited-claim" and report.coverage < min_coverage


def strip_failing(report: Report, answer: str, *, min_coverage: float = 1.0) -> str:
    """``answer`` without its failing sentences; the rest is left as it was,
    with the whitespace that separated a removed sentence collapsed."""
    cuts: list[list[int]] = []
    for sentence in report.sentences:
        if not _failing(sentence, report, min_coverage=min_coverage):
            continue
        end = sentence.end
        while end < len(answer) and answer[end] in " \t":  # its trailing spaces go too
            end += 1
        if cuts and cuts[-1][1] == sentence.start:
            cuts[-1][1] = end  # consecutive failing sentences: one cut
        else:
            cuts.append([sentence.start, end])
    pieces: list[str] = []
    position = 0
    for start, end in cuts:
        if end == len(answer) or answer[end] in "\r\n":
            # Nothing follows on the line: the spaces before the cut go too.
            while start > position and answer[start - 1] in " \t":
                start -= 1
        pieces.append(answer[position:start])
        position = end
    pieces.append(answer[position:])
    return "".join(pieces).strip()


def _quote(text: str | None, limit: int = 160) -> str:
    text = " ".join((text or "").split())
    return f"“{text if len(text) <= limit else text[: limit - 1] + '…'}”"


def _citation_problem(citation: Citation, sentence: SentenceResult) -> str | None:
    marker = f"[{citation.marker}]" if citation.marker else "its source"
    if citation.outcome == "fabricated-marker":
        found = (f"; the quote {_quote(citation.quote)} is from [{citation.source_marker}]"
                 if citation.source_marker else "")
        return f"marker [{citation.marker}] was not among the sources{found}"
    if citation.outcome == "quote-not-found":
        return f"the quote {_quote(citation.quote)} does not appear in {marker}"
    if citation.outcome == "quote-altered":
        changes = [d for d in citation.differences if d.reasons]
        detail = "; ".join(
            f"{_quote(d.quote)} where the source says {_quote(d.source)}"
            if d.op == "replace" else
            f"it leaves out {_quote(d.source)}" if d.op in ("delete", "omit-before",
                                                              "omit-after")
            else f"it moves {_quote(d.quote)}" if d.op == "move"
            else f"it adds {_quote(d.quote)}"
            for d in changes
        )
        return (f"the quote {_quote(citation.quote)} changes what {marker} says"
                + (f": {detail}" if detail else ""))
    if citation.outcome == "wrong-source":
        return (f"the quote {_quote(citation.quote)} is from [{citation.source_marker}], "
                f"not {marker}")
    if citation.outcome == "unattributed-quote":
        return f"the quote {_quote(citation.quote)} has no marker"
    if citation.outcome == "claim-mismatch":
        # The findings' own words name both sides ("the sentence says 3 years;
        # the passage says two years"): the model is told exactly what to fix.
        return (f"the sentence does not say what {marker} says: "
                + "; ".join(f.message for f in citation.findings))
    if citation.outcome == "claim-unsupported":
        # Named by its words: a marker alone does not say which sentence to fix.
        return f"{marker} shares almost nothing with the sentence {_quote(sentence.text)}"
    if citation.superseded:
        return f"{marker} is from a superseded version of its document"
    return None


def correction_text(report: Report, *, min_coverage: float = 1.0) -> str:
    """A correction to feed back to the model, naming every failure."""
    problems: list[str] = []
    for sentence in report.sentences:
        for citation in sentence.citations:
            problem = _citation_problem(citation, sentence)
            if problem and problem not in problems:
                problems.append(problem)
        if sentence.status == "uncited-claim" and report.coverage < min_coverage:
            problems.append(f"the sentence {_quote(sentence.text)} makes a claim without a "
                            "marker")
    if not problems:
        return ""
    lines = "\n".join(f"- {problem}" for problem in problems)
    return (
        "Your previous answer did not pass citation checks:\n"
        f"{lines}\n"
        "Answer again using only the provided sources. Cite every claim with the marker of "
        "the source it comes from, and quote the source's words exactly."
    )


def apply_policy(
    report: Report, answer: str, *, policy: Policy, min_coverage: float = 1.0
) -> PolicyOutcome:
    """The action a surface with ``policy`` takes on ``report``."""
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if report.verdict == "pass":
        return PolicyOutcome("serve", answer, "")
    correction = correction_text(report, min_coverage=min_coverage)
    if policy == "strip":
        return PolicyOutcome("strip", strip_failing(report, answer, min_coverage=min_coverage),
                             correction)
    if policy == "regenerate":
        return PolicyOutcome("regenerate", "", correction)
    if policy == "flag":
        return PolicyOutcome("flag", answer, correction)
    return PolicyOutcome("escalate", "", correction)
