"""The review page's trust, on the server: never cached, the decision that
stands named for the page, a note's limit shown and refused past (never
cut), and presence kept by the page's heartbeat and lapsing without it."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from reviewer.models import Answer, CitationVerdict, ReviewDecision, Workspace
from reviewer.selectors.reviews import review_current, review_trail
from reviewer.services.assignments import (
    PRESENCE_MINUTES,
    answer_heartbeat,
    answer_open,
    in_review_by_other,
)
from reviewer.services.reviews import (
    NOTE_MAX_CHARS,
    DecisionRefused,
    review_decide,
    review_undo,
)

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> dict[str, Answer]:
    # Without the scanned letter, which no test here cites: OCR-ing it is
    # a second or more of every test (tests/reviewer/test_demo_scan.py reads it).
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    return {a.external_id: a for a in Answer.objects.all()}


@pytest.fixture
def people() -> dict[str, Any]:
    users = {}
    for name, role in {"rita": "reviewer", "rex": "reviewer", "sue": "supervisor"}.items():
        users[name] = get_user_model().objects.create(username=name)
        users[name].groups.add(Group.objects.get(name=role))
    Workspace.objects.default().users.add(*users.values())
    return users


def _no_store(response: Any) -> bool:
    return "no-store" in response.get("Cache-Control", "")


# ---- never stale ----------------------------------------------------------

def test_the_review_page_its_fragments_and_decisions_are_never_stored(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    client.force_login(people["rita"])
    answer = demo["demo-benefits-mixed"]
    page = client.get(f"/answers/{answer.pk}/")
    panel = client.get(f"/answers/{answer.pk}/?sentence=1", headers=HTMX)
    decided = client.post(f"/answers/{answer.pk}/decide", {"decision": "escalate"},
                          headers=HTMX)
    assert page.status_code == panel.status_code == decided.status_code == 200
    assert _no_store(page) and _no_store(panel) and _no_store(decided)
    # htmx keeps no snapshot of it to show on Back.
    assert 'hx-history="false"' in page.content.decode()


def test_a_history_restore_gets_the_whole_page_not_a_panel(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    client.force_login(people["rita"])
    answer = demo["demo-benefits-mixed"]
    html = client.get(f"/answers/{answer.pk}/?sentence=1",
                      headers={**HTMX, "HX-History-Restore-Request": "true"}).content.decode()
    assert 'id="decide-form"' in html and 'id="review-state-now"' in html


def test_the_page_names_the_decision_that_stands(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-vesting"]
    client.force_login(people["rita"])
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    assert 'data-state="pending"' in html and "data-decided-by" not in html
    first = review_decide(answer=answer, reviewer=people["rex"], decision="approve", seen=0)
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    assert 'data-state="approved" data-state-label="Approved" data-decided-by="rex"' in html
    # A decision's response swaps the state in with the new name.
    response = client.post(f"/answers/{answer.pk}/decide",
                           {"decision": "reject", "seen": str(first.pk)}, headers=HTMX)
    assert 'data-state="rejected" data-state-label="Rejected" data-decided-by="rita"' in (
        response.content.decode())


def test_the_decision_that_stands_after_an_undo_is_the_one_before(
    people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-vesting"]
    first = review_decide(answer=answer, reviewer=people["rex"], decision="escalate", seen=0)
    second = review_decide(answer=answer, reviewer=people["rita"], decision="approve",
                           seen=first.pk)
    assert review_current(review_trail(answer)) == second
    review_undo(decision_id=second.pk, reviewer=people["rita"])
    assert review_current(review_trail(answer)) == first
    other = demo["demo-hostile"]
    only = review_decide(answer=other, reviewer=people["rex"], decision="escalate", seen=0)
    review_undo(decision_id=only.pk, reviewer=people["rex"])
    assert review_current(review_trail(other)) is None


# ---- the note's limit -----------------------------------------------------

def test_the_note_shows_its_limit(client: Any, people: dict[str, Any],
                                  demo: dict[str, Answer]) -> None:
    client.force_login(people["rita"])
    html = client.get(f"/answers/{demo['demo-benefits-mixed'].pk}/").content.decode()
    assert f'maxlength="{NOTE_MAX_CHARS}"' in html
    assert f"0 / {NOTE_MAX_CHARS} characters" in html


def test_a_note_past_the_limit_is_refused_naming_it_never_cut(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    client.force_login(people["rita"])
    answer = demo["demo-benefits-vesting"]
    long_note = "x" * 51_600
    response = client.post(f"/answers/{answer.pk}/decide",
                           {"decision": "escalate", "note": long_note}, headers=HTMX)
    assert response.status_code == 400
    html = response.content.decode()
    assert "51,600 characters" in html and "at most 5,000" in html
    assert response["HX-Retarget"] == "#decide-error"
    plain = client.post(f"/answers/{answer.pk}/decide", {"decision": "escalate",
                                                         "note": long_note})
    assert plain.status_code == 400 and b"at most 5,000" in plain.content
    assert not ReviewDecision.objects.exists()
    with pytest.raises(DecisionRefused) as refused:
        review_decide(answer=answer, reviewer=people["rita"], decision="escalate",
                      note="y" * (NOTE_MAX_CHARS + 1))
    assert refused.value.code == "note-too-long"


def test_a_note_at_the_limit_is_kept_whole_line_breaks_counting_one(
    people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-vesting"]
    # A form posts each line break as CRLF; the page's maxlength counted one.
    note = "\r\n".join(["z" * 99] * 50)
    assert len(note.replace("\r\n", "\n")) == 4999 and len(note) > NOTE_MAX_CHARS
    record = review_decide(answer=answer, reviewer=people["rita"], decision="escalate",
                           note=note)
    assert record.note == note.replace("\r\n", "\n")


# ---- presence ---------------------------------------------------------------

def _ago(answer: Answer, minutes: float) -> None:
    Answer.objects.filter(pk=answer.pk).update(
        in_review_since=timezone.now() - timedelta(minutes=minutes))
    answer.refresh_from_db()


def test_presence_lapses_without_a_heartbeat_and_lasts_with_one(
    people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-mixed"]
    rita, rex = people["rita"], people["rex"]
    answer_open(answer=answer, user=rex)
    assert in_review_by_other(answer, rita) == rex
    _ago(answer, PRESENCE_MINUTES + 1)  # the page closed without a word
    assert in_review_by_other(answer, rita) is None
    _ago(answer, 20)  # open 20 minutes, beating: still there
    assert answer_heartbeat(answer=answer, user=rex)
    answer.refresh_from_db()
    assert in_review_by_other(answer, rita) == rex
    # Someone else's heartbeat does not take a live presence.
    assert not answer_heartbeat(answer=answer, user=rita)
    answer.refresh_from_db()
    assert answer.in_review_by == rex
    # Decided: a late heartbeat does not bring the presence back.
    review_decide(answer=answer, reviewer=rex, decision="escalate")
    answer.refresh_from_db()
    assert not answer_heartbeat(answer=answer, user=rex)
    answer.refresh_from_db()
    assert answer.in_review_by is None


def test_the_heartbeat_endpoint(people: dict[str, Any], demo: dict[str, Answer]) -> None:
    answer = demo["demo-benefits-mixed"]
    client = Client(enforce_csrf_checks=True)
    client.force_login(people["rex"])
    page = client.get(f"/answers/{answer.pk}/")
    assert f'data-presence="/answers/{answer.pk}/presence"' in page.content.decode()
    assert client.post(f"/answers/{answer.pk}/presence").status_code == 403  # no CSRF token
    token = client.cookies["csrftoken"].value
    _ago(answer, 10)
    beat = client.post(f"/answers/{answer.pk}/presence", headers={"X-CSRFToken": token})
    assert beat.status_code == 204 and _no_store(beat)
    answer.refresh_from_db()
    assert in_review_by_other(answer, people["rita"]) == people["rex"]
    assert client.get(f"/answers/{answer.pk}/presence").status_code == 405


def test_triage_says_being_decided_only_while_the_page_beats(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-mixed"]
    answer_open(answer=answer, user=people["rex"])
    client.force_login(people["sue"])
    assert "being decided by rex" in client.get("/triage/?state=any").content.decode()
    _ago(answer, PRESENCE_MINUTES + 1)
    assert "being decided by rex" not in client.get("/triage/?state=any").content.decode()


def test_a_paraphrase_failing_citation_is_listed_to_open(
    client: Any, people: dict[str, Any], demo: dict[str, Answer],
) -> None:
    answer = demo["demo-benefits-paraphrased"]
    failing = CitationVerdict.objects.filter(
        answer=answer, outcome__in=("claim-mismatch", "claim-unsupported"))
    assert failing.count() == 2 and all(c.quote == "" for c in failing)
    client.force_login(people["rita"])
    html = client.get(f"/answers/{answer.pk}/").content.decode()
    for citation in failing:
        assert f'data-citation="{citation.pk}"' in html  # in "not opened yet" until opened
    assert "2 failing citations" in html
