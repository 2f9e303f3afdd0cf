"""The triage queue's kept counts (QueueGroup): every write that moves an
answer between groups keeps them equal to counting the answers afresh, and
the queue's counts read from them equal the counts of a live GROUP BY."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps
from django.http import QueryDict

from reviewer.models import Answer, QueueGroup, Surface
from reviewer.selectors.triage import TriageFilters, triage_counts
from reviewer.services.answers import answer_submit
from reviewer.services.assignments import answers_assign
from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.reviews import review_decide, review_undo
from reviewer.severity import OUTCOME_BITS, OUTCOME_COLUMNS, SEVERITY_ORDER

pytestmark = pytest.mark.django_db

SOURCE = ("The employer matches contributions up to 5 percent of salary after one year. "
          "Employees may not withdraw matched funds before age 59.")
ANSWERS = (
    'It matches "up to 5 percent of salary" [S1].',                   # pass
    'It matches "up to 7 percent of salary" [S1].',                   # altered
    'It matches "up to 5 percent of salary" [S4].',                   # fabricated
    'Employees "may withdraw matched funds" early [S1].',             # altered (negation)
    'It matches "a generous pension scheme for all" [S1]. It vests.',  # not found + uncited
    "The employer matches contributions up to 7 percent of salary [S1].",  # claim mismatch
    # claim unsupported
    "Dragons breathe fire over northern mountains and frozen lakes every winter [S1].",
)


def _kept() -> dict[tuple[Any, ...], int]:
    return {(g.surface_key, g.model, g.verdict, g.review_state, g.assignee_key, g.outcomes):
            g.answers for g in QueueGroup.objects.all() if g.answers}


@pytest.fixture
def answers() -> list[Any]:
    Surface.objects.create(name="legal")
    stored = []
    for number, text in enumerate(ANSWERS * 2):
        stored.append(answer_submit(client=None, data={
            "answer": text, "model": f"model-{'ab'[number % 2]}",
            "surface": "legal" if number % 3 else None,
            "sources": [{"marker": "S1", "text": SOURCE}]}).answer)
    return stored


def test_every_write_keeps_the_counts_equal_to_a_recount(
    answers: list[Any], make_user: Any
) -> None:
    sue, rita = make_user("sue", "supervisor"), make_user("rita", "reviewer")
    assert sum(_kept().values()) == len(answers)
    answers_assign(answer_ids=[a.pk for a in answers[:6]], assignee=rita, assigned_by=sue)
    answers_assign(answer_ids=[answers[0].pk, answers[1].pk], assignee=None, assigned_by=sue)
    decision = review_decide(answer=answers[1], reviewer=rita, decision="escalate")
    review_decide(answer=answers[3], reviewer=sue, decision="reject", note="changes a negation")
    review_undo(decision_id=decision.pk, reviewer=rita)
    review_decide(answer=answers[4], reviewer=rita, decision="escalate")
    kept = _kept()
    queue_counts_rebuild()
    assert kept == _kept()
    states = {key[3] for key in kept}
    assert {"pending", "rejected", "escalated"} <= states
    assert len({key[4] for key in kept}) == 2  # rita's and nobody's


def test_counts_from_kept_groups_equal_counts_from_the_answers(
    answers: list[Any], make_user: Any
) -> None:
    sue, rita = make_user("sue", "supervisor"), make_user("rita", "reviewer")
    rex = make_user("rex", "reviewer")
    answers_assign(answer_ids=[a.pk for a in answers[:4]], assignee=rex, assigned_by=sue)
    answers_assign(answer_ids=[a.pk for a in answers[4:6]], assignee=rita, assigned_by=sue)
    review_decide(answer=answers[7], reviewer=rita, decision="escalate")
    for query in ("", "state=any", "verdict=fail", "outcome=quote-altered&state=any",
                  "outcome=claim-mismatch", "outcome=claim-unsupported&state=any",
                  "surface=legal&model=model-b", "assignee=me", "assignee=none&state=pending"):
        for user in (sue, rita):
            filters = TriageFilters.from_query(QueryDict(query), user=user)
            kept = triage_counts(filters, user, kept=True)
            live = triage_counts(filters, user, kept=False)
            assert kept == live, (query, user.username)
            if user is sue and query != "assignee=me":
                assert kept.total > 0, query  # a comparison of something, not of nothing


def test_the_migrations_count_answers_stored_before(answers: list[Any]) -> None:
    # 0011 counted the six outcomes it knew; 0021 recounts the groups with
    # the claim outcomes' bits once their columns are filled.
    expected = _kept()
    assert any(key[5] & OUTCOME_BITS["claim-mismatch"] for key in expected)
    assert any(key[5] & OUTCOME_BITS["claim-unsupported"] for key in expected)
    QueueGroup.objects.all().delete()
    Answer.objects.update(claim_mismatch_count=0, claim_unsupported_count=0)
    importlib.import_module("reviewer.migrations.0011_queue_counts").count_existing_answers(
        apps, None)
    assert _kept() != expected
    importlib.import_module("reviewer.migrations.0021_claim_outcome_counts"
                            ).backfill_claim_outcomes(apps, None)
    assert _kept() == expected


def test_every_outcome_count_on_the_queue_equals_a_recount(
    answers: list[Any], make_user: Any
) -> None:
    sue = make_user("sue", "supervisor")
    for state in ("", "any"):
        filters = TriageFilters.from_query(QueryDict(f"state={state}"), user=sue)
        facets = triage_counts(filters, sue).facets
        counted = {value.value: value.count for value in facets["outcome"]}
        assert list(counted) == list(SEVERITY_ORDER)
        scope = Answer.objects.all() if state else Answer.objects.needing_review()
        recount = {outcome: scope.filter(**{f"{column}__gt": 0}).count()
                   for outcome, column in OUTCOME_COLUMNS.items()}
        assert counted == recount
        assert counted["claim-mismatch"] == 2 and counted["claim-unsupported"] == 2
