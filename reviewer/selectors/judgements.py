"""Reading the semantic stage's layer: a citation's latest judgement for the
review page, a line per answer for triage, where the two rungs disagree,
and counts per judge for trends.

The two rungs disagree when the deterministic check passes a citation and
the model says contradicted, or flags it and the model says supported.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.db.models import Count, Exists, OuterRef, Q

from reviewer.models import CitationVerdict, Judgement
from reviewer.selectors.reviews import FAILING_OUTCOMES

__all__ = ["answers_disagreeing", "citation_judgement", "judgement_counts",
           "judgement_summaries"]

#: What a model's labels read as next to the deterministic verdict.
LABEL_WORDS = {"supported": "supported", "contradicted": "contradicted",
               "not-enough-info": "not enough information"}
#: Worst first: the label a triage row shows when citations differ.
_LABEL_ORDER = ("contradicted", "not-enough-info", "supported")


def citation_judgement(citation: CitationVerdict) -> Judgement | None:
    """The citation's latest judgement row (a result, an error, or waiting)."""
    return citation.judgements.order_by("-created", "-pk").first()


def _disagreement() -> Q:
    failing = Q(citation__outcome__in=FAILING_OUTCOMES) | Q(citation__superseded=True)
    return ((~failing & Q(label=Judgement.Label.CONTRADICTED))
            | (failing & Q(label=Judgement.Label.SUPPORTED)))


def answers_disagreeing() -> Exists:
    """True for an answer with a citation the two rungs disagree on (for
    ``.filter()`` on answers): the definition ``Answer.rungs_disagree`` is
    stored from (``reviewer.services.rungs``), which the triage filter reads."""
    return Exists(Judgement.objects.filter(_disagreement(), answer=OuterRef("pk"),
                                           citation__isnull=False))


def judgement_summaries(answer_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Per answer: the worst model label among its judged citations
    (``label``, in words ``text``) and whether the rungs disagree; answers
    with no result are left out. One query."""
    ids = list(answer_ids)
    if not ids:
        return {}
    # Judgements of citations a re-verification replaced are history, not state.
    rows = (Judgement.objects.filter(answer_id__in=ids, citation__isnull=False).exclude(label="")
            .annotate(disagrees=Exists(Judgement.objects.filter(_disagreement(),
                                                                pk=OuterRef("pk"))))
            .values_list("answer_id", "label", "disagrees"))
    labels: dict[int, set[str]] = {}
    disagree: dict[int, bool] = {}
    for answer_id, label, disagrees in rows:
        labels.setdefault(answer_id, set()).add(label)
        disagree[answer_id] = disagree.get(answer_id, False) or bool(disagrees)
    summaries = {}
    for answer_id, held in labels.items():
        worst = next(label for label in _LABEL_ORDER if label in held)
        summaries[answer_id] = {"label": worst, "text": f"model: {LABEL_WORDS[worst]}",
                                "disagrees": disagree[answer_id]}
    return summaries


def _key(label: str) -> str:
    return label.replace("-", "_")  # readable in a template: not_enough_info


def judgement_counts(*, since: datetime, until: datetime, surface: str = ""
                     ) -> list[dict[str, Any]]:
    """Judgements stored in [since, until), per judge and model, with each
    label's count and the errors' and waits' counts (for trends)."""
    rows = Judgement.objects.filter(created__gte=since, created__lt=until)
    if surface:
        rows = rows.filter(surface__name=surface)
    counted = (rows.values("judge", "model_id", "label", "error")
               .annotate(n=Count("pk")).order_by("judge", "model_id"))
    per_judge: dict[tuple[str, str], dict[str, Any]] = {}
    for row in counted:
        entry = per_judge.setdefault((row["judge"], row["model_id"]), {
            "judge": row["judge"], "model_id": row["model_id"],
            **{_key(label): 0 for label in Judgement.Label.values}, "errors": 0, "waiting": 0})
        if row["label"]:
            entry[_key(row["label"])] += row["n"]
        elif row["error"] == Judgement.Error.OVER_BUDGET:
            entry["waiting"] += row["n"]
        else:
            entry["errors"] += row["n"]
    return list(per_judge.values())
