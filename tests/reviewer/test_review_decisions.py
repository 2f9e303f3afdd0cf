"""No decision by accident, enforced by the server (the page's checks only save
a round trip), and decisions kept as an append-only audit trail; and what
the user was served, shown for every policy action."""

from __future__ import annotations

import re
from datetime import timedelta
from io import StringIO
from typing import Any
from unittest import mock

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.db.models import ProtectedError
from django.utils import timezone

from reviewer.models import Answer, CitationVerdict, ReviewDecision, Surface, Workspace
from reviewer.selectors.reviews import FAILING_OUTCOMES
from reviewer.services.answers import answer_submit
from reviewer.services.reviews import DecisionRefused, review_decide, review_undo

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> dict[str, Answer]:
    # Without the scanned letter, which no test here cites: OCR-ing it is
    # a second or more of every test (tests/reviewer/test_demo_scan.py reads it).
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    return {a.external_id: a for a in Answer.objects.all()}


def _failing_ids(answer: Answer) -> list[int]:
    return [c.pk for c in CitationVerdict.objects.filter(answer=answer).order_by("position")
            if c.outcome in FAILING_OUTCOMES]


def _state(answer: Answer) -> str:
    answer.refresh_from_db()
    return answer.review_state


def _decide(client: Any, answer: Answer, decision: str, **fields: Any) -> Any:
    return client.post(f"/answers/{answer.pk}/decide", {"decision": decision, **fields},
                       headers=HTMX)


# ---- approving with failing citations unopened ------------------------------

def test_an_unconfirmed_approve_with_unopened_failures_is_refused(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    failing = _failing_ids(answer)
    assert len(failing) == 3  # two altered quotes and a fabricated marker
    # Nothing opened (a curl, or a key pressed on a page whose script failed).
    response = _decide(logged_in, answer, "approve")
    assert response.status_code == 422
    assert response["HX-Retarget"] == "#decide-error"
    html = response.content.decode()
    assert 'data-code="unopened-failures"' in html
    assert "3 of the 3 failing citations have not been opened" in html
    # Some opened, not all: still refused, naming how many are left.
    response = _decide(logged_in, answer, "approve", opened=f"{failing[0]},{failing[1]}")
    assert response.status_code == 422
    assert "1 of the 3 failing citations has not been opened" in response.content.decode()
    # Without htmx: a plain 422 with the same message.
    plain = logged_in.post(f"/answers/{answer.pk}/decide", {"decision": "approve"})
    assert plain.status_code == 422 and b"have not been opened" in plain.content
    assert not ReviewDecision.objects.exists() and _state(answer) == "pending"


def test_approving_after_opening_every_failure_or_confirming_is_recorded(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    failing = _failing_ids(answer)
    # Every failing citation opened (ids repeated or comma-joined both count).
    response = _decide(logged_in, answer, "approve",
                       opened=[str(failing[0]), ",".join(map(str, failing[1:]))])
    assert response.status_code == 200 and _state(answer) == "approved"
    first = ReviewDecision.objects.get()
    assert first.unopened_failures == [] and (first.from_state, first.to_state) == (
        "pending", "approved")

    other = demo["demo-contract"]  # one quote-not-found citation
    response = _decide(logged_in, other, "approve", confirmed="1")
    assert response.status_code == 200 and _state(other) == "approved"
    confirmed = ReviewDecision.objects.get(answer=other)
    assert confirmed.unopened_failures == _failing_ids(other)
    page = logged_in.get(f"/answers/{other.pk}/").content.decode()
    assert "confirmed with 1 failing citation unopened" in page


def test_reject_and_escalate_and_a_passing_answer_need_no_opening(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    assert _decide(logged_in, demo["demo-benefits-mixed"], "reject").status_code == 200
    assert _decide(logged_in, demo["demo-contract"], "escalate").status_code == 200
    assert _decide(logged_in, demo["demo-benefits-vesting"], "approve").status_code == 200
    assert ReviewDecision.objects.count() == 3


def test_a_second_press_of_the_same_key_is_not_recorded_twice(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-vesting"]
    assert _decide(logged_in, answer, "approve").status_code == 200
    again = _decide(logged_in, answer, "approve")
    assert again.status_code == 409 and "not recorded twice" in again.content.decode()
    assert ReviewDecision.objects.count() == 1
    # A different decision (or the same one with a note) is a new decision.
    assert _decide(logged_in, answer, "approve", note="checked the vesting clause"
                   ).status_code == 200
    assert ReviewDecision.objects.count() == 2


def test_the_page_lists_the_failing_citations_for_the_confirmation(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    dialog = html.split('<dialog id="confirm-approve"')[1].split("</dialog>")[0]
    assert [int(pk) for pk in re.findall(r'data-citation="(\d+)"', dialog)] == (
        _failing_ids(answer))
    assert "‼ fabricated marker" in dialog and "Approve anyway" in dialog
    assert 'id="review-safety"' in html and 'class="decide-bar"' in html


# ---- high-stakes surfaces -----------------------------------------------------

def test_a_high_stakes_surface_needs_a_note_to_approve_or_reject_a_failing_answer(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    assert answer.surface is not None and answer.surface.high_stakes  # set by the demo
    assert answer.verdict != "pass"
    everything = ",".join(map(str, _failing_ids(answer)))
    for decision in ("approve", "reject"):
        response = _decide(logged_in, answer, decision, opened=everything, note="  ")
        assert response.status_code == 422, decision
        html = response.content.decode()
        assert 'data-code="note-required"' in html
        assert "A note is required: clinical-review is a high-stakes surface" in html
    assert not ReviewDecision.objects.exists()
    # The form says so before anyone tries.
    page = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    assert "required to approve or reject: high-stakes surface" in page
    # Escalating hands it on and needs no note; with a note, a rejection stands.
    assert _decide(logged_in, answer, "escalate").status_code == 200
    assert _decide(logged_in, answer, "reject", note="Drops the guideline's 'Do not'"
                   ).status_code == 200
    assert list(ReviewDecision.objects.values_list("decision", "note")) == [
        ("escalate", ""), ("reject", "Drops the guideline's 'Do not'")]


def test_high_stakes_asks_no_note_for_a_passing_answer_nor_elsewhere(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    Surface.objects.filter(name="clinical-review").update(high_stakes=False)
    assert _decide(logged_in, demo["demo-clinical"], "reject").status_code == 200
    surface = Surface.objects.get(name="clinical-review")
    surface.high_stakes = True
    surface.save()
    passing = answer_submit(client=None, data={
        "surface": "clinical-review",
        "answer": 'It says "Employer match vests after two years" [S1].',
        "sources": [{"marker": "S1", "text": "Employer match vests after two years."}],
    }).answer
    assert passing.verdict == "pass"
    assert _decide(logged_in, passing, "approve").status_code == 200


def test_the_surface_flag_is_editable_in_the_admin(client: Any, demo: dict[str, Answer]
                                                   ) -> None:
    boss = get_user_model().objects.create_superuser("boss", "b@example.com", "pw-boss-99")
    client.force_login(boss)
    surface = Surface.objects.get(name="legal-review")
    html = client.get(f"/admin/reviewer/surface/{surface.pk}/change/").content.decode()
    assert 'name="high_stakes"' in html
    assert 'name="form-0-high_stakes"' in client.get("/admin/reviewer/surface/"
                                                     ).content.decode()


# ---- undo ---------------------------------------------------------------------

def test_undo_within_the_window_is_a_row_of_its_own_and_restores_the_state(
    logged_in: Any, reviewer_user: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-vesting"]
    escalated = _decide(logged_in, answer, "escalate")
    html = escalated.content.decode()
    decision = ReviewDecision.objects.get()
    # The response carries the toast (out of band) with its Undo.
    assert 'id="toast"' in html and 'hx-swap-oob="true"' in html
    assert f'"decision": "{decision.pk}"' in html and 'data-seconds="10"' in html
    response = logged_in.post(f"/answers/{answer.pk}/undo", {"decision": decision.pk},
                              headers=HTMX)
    assert response.status_code == 200
    assert _state(answer) == "pending"
    undo = ReviewDecision.objects.get(decision="undo")
    assert undo.undoes == decision and undo.reviewer == reviewer_user
    assert (undo.from_state, undo.to_state) == ("escalated", "pending")
    # Nothing deleted or changed: both rows are there, the first as it was.
    assert ReviewDecision.objects.count() == 2
    decision.refresh_from_db()
    assert (decision.decision, decision.to_state) == ("escalate", "escalated")
    assert "Undone" in response.content.decode()
    page = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    trail = page.split('<ol class="trail">')[1].split("</ol>")[0]
    assert "<strong>Escalated</strong>" in trail and '<span class="tag">undone</span>' in trail
    assert "<strong>Undone</strong>: the escalated decision" in trail
    # An undo of an undo is not a thing; nor is a second undo.
    again = logged_in.post(f"/answers/{answer.pk}/undo", {"decision": decision.pk},
                           headers=HTMX)
    assert again.status_code == 409 and "already been undone" in again.content.decode()
    assert logged_in.post(f"/answers/{answer.pk}/undo", {"decision": undo.pk}
                          ).status_code == 409


def test_undo_goes_back_to_the_state_before_not_to_pending(
    reviewer_user: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    review_decide(answer=answer, reviewer=reviewer_user, decision="reject")
    approval = review_decide(answer=answer, reviewer=reviewer_user, decision="approve",
                             confirmed=True)
    assert _state(answer) == "approved"
    review_undo(decision_id=approval.pk, reviewer=reviewer_user)
    assert _state(answer) == "rejected"


def test_undo_after_the_window_is_refused(logged_in: Any, demo: dict[str, Answer]) -> None:
    answer = demo["demo-benefits-vesting"]
    _decide(logged_in, answer, "approve")
    decision = ReviewDecision.objects.get()
    later = decision.created + timedelta(seconds=10.5)
    with mock.patch.object(timezone, "now", return_value=later):
        response = logged_in.post(f"/answers/{answer.pk}/undo", {"decision": decision.pk},
                                  headers=HTMX)
    assert response.status_code == 409
    html = response.content.decode()
    assert 'data-code="undo-expired"' in html and "can be undone for 10 seconds" in html
    assert _state(answer) == "approved" and ReviewDecision.objects.count() == 1


def test_the_undo_window_is_configurable(settings: Any, reviewer_user: Any,
                                         demo: dict[str, Answer]) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "UNDO_SECONDS": 30}
    answer = demo["demo-benefits-vesting"]
    decision = review_decide(answer=answer, reviewer=reviewer_user, decision="approve")
    with mock.patch.object(timezone, "now", return_value=decision.created + timedelta(seconds=25)):
        review_undo(decision_id=decision.pk, reviewer=reviewer_user)
    assert _state(answer) == "pending"


def test_only_its_reviewer_can_undo_and_never_over_a_later_decision(
    client: Any, reviewer_user: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-vesting"]
    other = get_user_model().objects.create_user("second", password="pw-second-1")
    other.groups.add(Group.objects.get(name="reviewer"))
    Workspace.objects.default().users.add(other)
    mine = review_decide(answer=answer, reviewer=reviewer_user, decision="approve")
    client.force_login(other)
    response = client.post(f"/answers/{answer.pk}/undo", {"decision": mine.pk})
    assert response.status_code == 403 and b"Only the reviewer who made" in response.content
    review_decide(answer=answer, reviewer=other, decision="escalate")
    with pytest.raises(DecisionRefused) as refused:
        review_undo(decision_id=mine.pk, reviewer=reviewer_user)
    assert refused.value.code == "superseded"
    assert _state(answer) == "escalated"
    # A decision of another answer is not undone through this one's address.
    elsewhere = demo["demo-contract"]
    assert client.post(f"/answers/{elsewhere.pk}/undo", {"decision": mine.pk}
                       ).status_code == 400


def test_decisions_are_never_changed_or_deleted(reviewer_user: Any,
                                                demo: dict[str, Answer]) -> None:
    answer = demo["demo-benefits-vesting"]
    decision = review_decide(answer=answer, reviewer=reviewer_user, decision="approve",
                             note="fine")
    decision.note = "rewritten"
    with pytest.raises(ReviewDecision.AppendOnly):
        decision.save()
    with pytest.raises(ReviewDecision.AppendOnly):
        decision.delete()
    with pytest.raises(ReviewDecision.AppendOnly):
        ReviewDecision.objects.filter(pk=decision.pk).update(note="rewritten")
    with pytest.raises(ReviewDecision.AppendOnly):
        ReviewDecision.objects.all().delete()
    with pytest.raises(ProtectedError):  # an answer with a trail is kept
        answer.delete()
    assert ReviewDecision.objects.get().note == "fine"


# ---- what the user saw -------------------------------------------------------

def _served(html: str) -> str:
    return html.split('<section class="served"')[1].split("</section>")[0]


def test_after_strip_the_served_answer_shows_the_removed_sentences_struck_through(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    assert answer.action == "strip"
    served = _served(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    assert "Served with 4 sentences removed" in served
    removed = re.findall(r'<del class="removed"[^>]*>(.*?)</del>', served, re.S)
    assert [text.split()[0] for text in removed] == ["It", "Unused", "Vision", "Gym"]
    assert "removed · ‼ fabricated marker" in served
    # What is left once the struck-through sentences go is what was served.
    kept = re.sub(r'<del class="removed".*?</del><span class="removed-tag">.*?</span>', "",
                  served.split('<div class="served-text">')[1].split("</div>")[0], flags=re.S)
    unescaped = kept.replace("&quot;", '"').replace("&#x27;", "'").replace("&amp;", "&")
    assert " ".join(unescaped.split()) == " ".join(answer.served_answer.split())


def test_after_regenerate_the_page_shows_the_correction_sent_back(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    Surface.objects.create(name="support-bot", policy="regenerate")
    answer = answer_submit(client=None, data={
        "surface": "support-bot",
        "answer": 'The plan "covers dental for everyone" [S1].',
        "sources": [{"marker": "S1", "text": "The plan covers hospital stays."}],
    }).answer
    assert answer.action == "regenerate" and answer.correction
    served = _served(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    assert "Not served: regenerated" in served and "None of this answer reached the user" in served
    assert "does not appear in [S1]" in served and '<pre class="correction">' in served


def test_after_escalate_the_page_says_nothing_was_served(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    assert answer.action == "escalate" and answer.served_answer == ""
    served = _served(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    assert "Nothing served" in served and "the user got no answer" in served
    assert "served-text" not in served


def test_after_flag_the_page_says_it_was_served_marked_unverified(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-contract"]
    assert answer.action == "flag"
    served = _served(logged_in.get(f"/answers/{answer.pk}/").content.decode())
    assert "Served, marked unverified" in served
    assert "with a warning that its citations could not be verified" in served


def test_a_passing_answer_was_served_as_written(logged_in: Any,
                                                 demo: dict[str, Answer]) -> None:
    served = _served(logged_in.get(f"/answers/{demo['demo-benefits-vesting'].pk}/"
                                   ).content.decode())
    assert "Served as written" in served
