"""Races on PostgreSQL, with real concurrent transactions: each thread has
its own connection, and a barrier starts both at once.

- Two reviewers deciding one answer at once, 50 trials: the answer's state
  always agrees with its audit trail (its latest applied decision, and each
  applied row's ``from_state`` is the ``to_state`` of the one before).
- The same answer id submitted twice at once (``POST /api/v1/answers``), 50 trials: one
  answer stored, both requests answered with it.

Skipped on SQLite, which serialises every write and so cannot race.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client

from reviewer.models import Answer, ReviewDecision
from reviewer.services.answers import answer_submit
from reviewer.services.reviews import DecisionConflict, review_decide
from tests.figures import figure

pytestmark = pytest.mark.django_db(transaction=True)

TRIALS = 50


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("concurrency tests need PostgreSQL (DATABASE_URL=postgres://...)")


def _at_once(*work: Callable[[], Any]) -> list[Any]:
    """Run each callable in its own thread (own connection), released together;
    each result, or the exception it raised."""
    barrier = threading.Barrier(len(work))
    results: list[Any] = [None] * len(work)

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = work[index]()
        except Exception as error:  # reported as the result
            results[index] = error
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(work))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def _mismatch(answer: Answer) -> bool:
    """Whether the answer's state disagrees with its audit trail."""
    answer.refresh_from_db()
    applied = list(ReviewDecision.objects.filter(answer=answer, applied=True)
                   .order_by("created", "pk"))
    state = "pending"
    for row in applied:
        if row.from_state != state:
            return True
        state = row.to_state
    return answer.review_state != state


def test_two_reviewers_deciding_at_once_never_disagree_with_the_trail() -> None:
    users = get_user_model().objects
    ann = users.create_superuser("ann", password="pw-ann-1")
    bob = users.create_superuser("bob", password="pw-bob-1")
    mismatches = conflicts = both_applied = errors = 0
    for trial in range(TRIALS):
        answer = answer_submit(client=None, data={
            "id": f"race-{trial}", "answer": "The sky is blue [S1].",
            "sources": [{"marker": "S1", "text": "The sky is blue."}]}).answer
        # Even trials: both pages saw the pending answer (seen=0); odd: an
        # unchecked decision (no "seen"), which the row lock serialises.
        seen = 0 if trial % 2 == 0 else None
        results = _at_once(
            lambda a=answer, s=seen: review_decide(answer=a, reviewer=ann, decision="approve",
                                                   seen=s),
            lambda a=answer, s=seen: review_decide(answer=a, reviewer=bob, decision="reject",
                                                   seen=s))
        conflicts += sum(isinstance(r, DecisionConflict) for r in results)
        errors += sum(isinstance(r, Exception) and not isinstance(r, DecisionConflict)
                      for r in results)
        both_applied += seen == 0 and all(isinstance(r, ReviewDecision) for r in results)
        mismatches += _mismatch(answer)
        assert ReviewDecision.objects.filter(answer=answer).count() == 2  # both kept
    figure(f"\ndecision races: {TRIALS} trials, {mismatches} mismatches between state and "
          f"trail, {conflicts} conflicts told to the loser, {errors} errors")
    assert (mismatches, errors, both_applied) == (0, 0, 0)
    assert conflicts == TRIALS // 2  # one loser in every trial that checked what it saw


def test_one_id_submitted_twice_at_once_is_stored_once(api_token: str) -> None:
    trials = 50
    duplicates = failures = 0
    for trial in range(trials):
        body = {"id": f"twice-{trial}", "answer": "The sky is blue [S1].",
                "sources": [{"marker": "S1", "text": "The sky is blue."}]}

        def post(body: dict[str, Any] = body) -> Any:
            client = Client(HTTP_AUTHORIZATION=f"Bearer {api_token}")
            return client.post("/api/v1/answers", body, content_type="application/json")

        responses = _at_once(post, post)
        failures += sum(isinstance(r, Exception) or r.status_code not in (200, 201)
                        for r in responses)
        stored = Answer.objects.filter(external_id=body["id"]).count()
        duplicates += stored - 1
        if not failures:
            assert sorted(r.status_code for r in responses) == [200, 201]
            assert len({r.json()["review_url"] for r in responses}) == 1  # the same answer
    figure(f"\nsame-id races: {trials} trials, {duplicates} duplicates, {failures} failed requests")
    assert (duplicates, failures) == (0, 0)
