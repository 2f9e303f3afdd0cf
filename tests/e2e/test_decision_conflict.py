"""Two reviewers on one answer, in a real browser: a decision made on a page
whose trail has moved on is kept but not applied, the page says who decided
meanwhile and shows their decision, and the next decision, made on what is
now on screen, is applied."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model

from reviewer.models import Answer, ReviewDecision
from reviewer.services.reviews import review_decide

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_second_reviewer_is_told_and_decides_on_what_is_on_screen(page: Any) -> None:
    answer = Answer.objects.get(external_id="demo-benefits-vesting")  # passes: no confirmation
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.wait_for_selector("#decide-form")
    assert page.locator("#decision-seen").input_value() == "0"

    # Meanwhile, someone else escalates it.
    other = get_user_model().objects.create_superuser("zoe", "z@example.com", "pw-zoe-1")
    winner = review_decide(answer=answer, reviewer=other, decision="escalate",
                           note="ask legal", seen=0)

    page.keyboard.press("a")
    error = page.locator("#decide-error")
    page.wait_for_function("document.querySelector('#decide-error').textContent"
                           ".includes('Someone decided this meanwhile')")
    assert "zoe escalated at" in error.inner_text() and "ask legal" in error.inner_text()
    trail = page.locator("#decisions .trail").inner_text()
    assert "Escalated by zoe" in trail and "not applied: zoe decided first" in trail
    assert page.locator("#review-state-now").inner_text() == "State: Escalated"
    assert page.locator("#decision-seen").input_value() == str(winner.pk)
    answer.refresh_from_db()
    assert answer.review_state == "escalated"

    # Now deciding again is a decision on the escalated answer: the page names
    # the decision that stands first (issue 22), and it is applied.
    page.keyboard.press("a")
    dialog = page.locator("#confirm-redecide")
    assert dialog.locator("h2").inner_text() == "This answer is Escalated by zoe. Approve it?"
    dialog.get_by_role("button", name="Approve it").click()
    page.wait_for_selector("#decisions .review-state:has-text('Approved')")
    applied = ReviewDecision.objects.filter(answer=answer, applied=True).order_by("pk")
    assert [(d.reviewer.get_username(), d.decision) for d in applied] == [
        ("zoe", "escalate"), ("demo", "approve")]
    assert ReviewDecision.objects.filter(answer=answer, applied=False).count() == 1
