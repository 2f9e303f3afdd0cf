"""Reading what the review page's decision area shows: the failing citations
a reviewer should open before approving, the audit trail, and what the user
was actually served.

Everything is read from rows the review page has already loaded (sentences
with their citations, decisions with their reviewers), so none of it adds a
query per sentence or per decision.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from reviewer.models import Answer, CitationVerdict, SentenceVerdict
from verification.report import REVIEW_OUTCOMES

__all__ = ["FAILING_OUTCOMES", "failing_citations", "review_current", "review_safety",
           "review_served", "review_trail", "undo_seconds"]

# A citation is failing when the verdict counts it against the answer (and a
# strip policy removes its sentence): these outcomes, or a citation of a
# superseded document.
FAILING_OUTCOMES = frozenset({"fabricated-marker", *REVIEW_OUTCOMES})


def undo_seconds() -> float:
    """How long a decision can be undone (``CITEGUARD_UNDO_SECONDS``, 10 s by default)."""
    return float(settings.CITEGUARD.get("UNDO_SECONDS", 10))


def _is_failing(citation: CitationVerdict) -> bool:
    return citation.outcome in FAILING_OUTCOMES or citation.superseded


def failing_citations(answer: Answer) -> list[CitationVerdict]:
    """The answer's failing citations, in answer order (read afresh)."""
    return [c for c in CitationVerdict.objects.filter(answer=answer).order_by("position")
            if _is_failing(c)]


def review_safety(answer: Answer, *, shown: CitationVerdict | None = None) -> dict[str, Any]:
    """What the decision controls need: the failing citations (with their
    sentence, to list and open them), which citation each sentence's panel
    shows first, the citation on screen already, and the surface's rules."""
    failing: list[dict[str, Any]] = []
    first_citation: dict[str, int] = {}
    for sentence in answer.sentences.all():
        citations = list(sentence.citations.all())
        if citations:
            first_citation[str(sentence.index)] = citations[0].pk
        failing.extend({"citation": c, "sentence": sentence} for c in citations
                       if _is_failing(c))
    surface = answer.surface
    high_stakes = bool(surface and surface.high_stakes)
    return {
        "failing": failing,
        "high_stakes": high_stakes,
        "note_required": high_stakes and answer.verdict != Answer.Verdict.PASS,
        "undo_seconds": undo_seconds(),
        "client": {  # for review.mjs, through json_script
            "answer": answer.pk,
            "failing": [item["citation"].pk for item in failing],
            "firstCitation": first_citation,
            "shown": shown.pk if shown is not None else None,
            "noteRequired": high_stakes and answer.verdict != Answer.Verdict.PASS,
            "undoSeconds": undo_seconds(),
        },
    }


def review_trail(answer: Answer) -> list[dict[str, Any]]:
    """The decisions in order, each with the decision it undoes (for an undo)
    and whether it was undone later."""
    rows = list(answer.decisions.all())
    by_pk = {row.pk: row for row in rows}
    undone = {row.undoes_id for row in rows if row.undoes_id is not None}
    return [{"row": row, "undoes": by_pk.get(row.undoes_id) if row.undoes_id else None,
             "undone": row.pk in undone,
             "lost_to": by_pk.get(row.conflicts_with_id) if row.conflicts_with_id else None}
            for row in rows]


def review_seen(trail: list[dict[str, Any]]) -> int:
    """The id of the latest applied decision in ``trail`` (0: none): what the
    decision form sends back, so a decision made on a stale page is caught."""
    applied = [item["row"].pk for item in trail if item["row"].applied]
    return applied[-1] if applied else 0


def review_current(trail: list[dict[str, Any]]) -> Any | None:
    """The decision whose state the answer is in (None: no decision stands,
    the answer is pending): the latest applied decision, an undo handing
    back to the one before the decision it undid. The page names it before
    a decision key changes it ("This answer is Approved by rex. Reject it?")."""
    standing: list[Any] = []
    for item in trail:
        row = item["row"]
        if not row.applied:
            continue
        if row.decision == "undo":
            if standing and standing[-1].pk == row.undoes_id:
                standing.pop()
        else:
            standing.append(row)
    return standing[-1] if standing else None


def review_served(answer: Answer) -> dict[str, Any]:
    """What the user was served, by the action the surface's policy took.

    For ``strip`` the answer is shown sentence by sentence, each marked kept or
    removed by reading the served text itself (kept sentences appear in it, in
    order, with only whitespace between): it shows what was sent, not what
    the policy would do today.
    """
    action = answer.action
    served: dict[str, Any] = {"action": action, "text": answer.served_answer,
                              "correction": answer.correction}
    if action == Answer.Action.STRIP:
        segments = _stripped_segments(answer, list(answer.sentences.all()))
        served["segments"] = segments
        served["removed"] = sum(1 for s in segments if s.get("removed"))
    return served


def _stripped_segments(answer: Answer, sentences: list[SentenceVerdict]
                       ) -> list[dict[str, Any]]:
    text, served = answer.text, answer.served_answer
    segments: list[dict[str, Any]] = []
    cursor = position = 0
    for sentence in sorted(sentences, key=lambda s: s.start):
        if sentence.start < cursor:
            continue
        if sentence.start > cursor:
            segments.append({"text": text[cursor:sentence.start]})
        body = text[sentence.start:sentence.end]
        at = position
        while at < len(served) and served[at].isspace():
            at += 1
        kept = bool(body) and served.startswith(body, at)
        if kept:
            position = at + len(body)
        segments.append({"text": body, "removed": not kept, "status": sentence.status,
                         "index": sentence.index})
        cursor = sentence.end
    if cursor < len(text):
        segments.append({"text": text[cursor:]})
    return segments
