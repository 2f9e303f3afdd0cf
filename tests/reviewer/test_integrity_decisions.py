"""Decisions compare the state the reviewer saw: a decision made on a page
whose trail has moved on is kept, unapplied and pointing at the decision
that won, and the reviewer is told who decided meanwhile (409)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from reviewer.models import Answer, ReviewDecision
from reviewer.services.answers import answer_submit
from reviewer.services.reviews import DecisionConflict, DecisionRefused, review_decide, review_undo

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def answer() -> Answer:
    return answer_submit(client=None, data={
        "id": "race-1", "answer": "The sky is blue [S1].",
        "sources": [{"marker": "S1", "text": "The sky is blue."}]}).answer


@pytest.fixture
def ann(make_user: Any) -> Any:
    return make_user("ann", "reviewer")


@pytest.fixture
def bob(make_user: Any) -> Any:
    return make_user("bob", "reviewer")


def _seen_on_page(client: Any, answer: Answer) -> int:
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    match = re.search(r'name="seen" id="decision-seen" value="(\d+)"', html)
    assert match, "the decision form carries the latest decision seen"
    return int(match.group(1))


def test_the_loser_is_kept_unapplied_and_told_who_won(answer: Answer, ann: Any, bob: Any
                                                      ) -> None:
    first = review_decide(answer=answer, reviewer=ann, decision="approve", seen=0)
    with pytest.raises(DecisionConflict) as raised:
        review_decide(answer=answer, reviewer=bob, decision="reject", note="wrong", seen=0)
    assert str(raised.value).startswith("Someone decided this meanwhile: ann approved at ")
    assert raised.value.code == "conflict"
    lost = raised.value.record
    lost.refresh_from_db()
    assert (lost.applied, lost.conflicts_with_id, lost.decision, lost.note) == (
        False, first.pk, "reject", "wrong")
    first.refresh_from_db()
    assert first.applied and first.conflicts_with_id is None
    answer.refresh_from_db()
    assert answer.review_state == "approved"  # the winner's, not the loser's
    assert ReviewDecision.objects.filter(answer=answer).count() == 2

    # Deciding again on the state now seen is applied; the lost row cannot be undone.
    again = review_decide(answer=answer, reviewer=bob, decision="reject", note="wrong",
                          seen=first.pk)
    assert again.applied and again.from_state == "approved"
    answer.refresh_from_db()
    assert answer.review_state == "rejected"
    with pytest.raises(DecisionRefused) as undo:
        review_undo(decision_id=lost.pk, reviewer=bob)
    assert undo.value.code == "not-applied"


def test_an_unchecked_decision_still_serialises(answer: Answer, ann: Any, bob: Any) -> None:
    review_decide(answer=answer, reviewer=ann, decision="approve")
    record = review_decide(answer=answer, reviewer=bob, decision="escalate")
    assert record.applied and record.from_state == "approved"


def test_the_form_sends_what_it_saw_and_a_stale_page_gets_409(
    client: Any, answer: Answer, ann: Any, bob: Any
) -> None:
    client.force_login(bob)
    assert _seen_on_page(client, answer) == 0
    winner = review_decide(answer=answer, reviewer=ann, decision="escalate", note="legal",
                           seen=0)
    # Bob's page still says 0: his decision is kept, not applied, and he is told.
    response = client.post(f"/answers/{answer.pk}/decide",
                           {"decision": "approve", "seen": "0"}, headers=HTMX)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Someone decided this meanwhile: ann escalated at" in body
    assert "legal" in body
    # The trail as it is now (both kept), and the form's "seen" moved on.
    assert "not applied: ann decided first" in body
    assert f'id="decision-seen" value="{winner.pk}" hx-swap-oob="true"' in body
    answer.refresh_from_db()
    assert answer.review_state == "escalated"
    lost = ReviewDecision.objects.get(answer=answer, reviewer=bob)
    assert not lost.applied and lost.conflicts_with_id == winner.pk

    # Without htmx: the same 409, as text.
    plain = client.post(f"/answers/{answer.pk}/decide", {"decision": "reject", "seen": "0"})
    assert plain.status_code == 409
    assert plain.content.decode().startswith("Someone decided this meanwhile:")

    # On the state now seen, the decision is applied, and the page moves "seen" on.
    assert _seen_on_page(client, answer) == winner.pk
    ok = client.post(f"/answers/{answer.pk}/decide",
                     {"decision": "approve", "seen": str(winner.pk)}, headers=HTMX)
    assert ok.status_code == 200
    applied = ReviewDecision.objects.get(answer=answer, reviewer=bob, applied=True)
    assert f'id="decision-seen" value="{applied.pk}"' in ok.content.decode()
    answer.refresh_from_db()
    assert answer.review_state == "approved"


def test_a_second_press_from_a_stale_page_is_a_repeat_not_a_conflict(answer: Answer,
                                                                     ann: Any) -> None:
    review_decide(answer=answer, reviewer=ann, decision="approve", seen=0)
    with pytest.raises(DecisionRefused) as raised:
        review_decide(answer=answer, reviewer=ann, decision="approve", seen=0)
    assert raised.value.code == "repeat"
    assert ReviewDecision.objects.filter(answer=answer).count() == 1
