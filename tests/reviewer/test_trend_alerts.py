"""Handling rate-change alerts: acknowledging, reopening, the owner and the
note (its limit refused with the limit named), each change kept as history;
who may act (supervisors) and who only reads; the triage link to the answers
behind an alert; the htmx fragment."""

from __future__ import annotations

import csv
import io
from datetime import date
from typing import Any
from urllib.parse import parse_qs

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.exceptions import PermissionDenied, ValidationError
from django.test import Client

from reviewer.models import Surface, TrendAlert, TrendAlertEvent
from reviewer.selectors.alerts import (
    alert_answers_query,
    alert_history,
    alert_owner_choices,
    alerts_for_handling,
)
from reviewer.services.alerts import alert_acknowledge, alert_assign, alert_note, alert_reopen

pytestmark = pytest.mark.django_db

DAY = date(2026, 3, 2)


@pytest.fixture
def alert(db: None) -> TrendAlert:
    surface = Surface.objects.create(name="chat")
    return TrendAlert.objects.create(
        day=DAY, surface=surface, model="*", outcome="fabricated-marker", direction=1,
        answers=20, hits=10, baseline_answers=280, baseline_hits=14, low=0.25, high=0.75,
        baseline_low=0.02, baseline_high=0.09)


@pytest.fixture
def supervisor(make_user: Any) -> Any:
    return make_user("sue", "supervisor")


@pytest.fixture
def reader(make_user: Any) -> Any:
    """Sees trends (a role a site composed) but may not act on alerts."""
    user = make_user("rita")
    user.user_permissions.add(Permission.objects.get(codename="view_trends"))
    return get_user_model().objects.get(pk=user.pk)


def test_acknowledging_records_who_and_when_once(alert: TrendAlert, supervisor: Any) -> None:
    alert_acknowledge(alert=alert, by=supervisor)
    alert.refresh_from_db()
    assert alert.acknowledged_by == supervisor and alert.acknowledged_at is not None
    with pytest.raises(ValidationError, match="acknowledged already, by sue"):
        alert_acknowledge(alert=alert, by=supervisor)
    alert_reopen(alert=alert, by=supervisor)
    alert.refresh_from_db()
    assert alert.acknowledged_at is None and alert.acknowledged_by is None
    with pytest.raises(ValidationError, match="not acknowledged"):
        alert_reopen(alert=alert, by=supervisor)
    events = alert_history(alerts_for_handling().get(pk=alert.pk))
    assert [(e.actor, e.action, e.previous) for e in events] == [
        (supervisor, "reopen", "sue"), (supervisor, "acknowledge", "")]


def test_the_owner_is_set_and_each_change_kept(alert: TrendAlert, supervisor: Any,
                                               make_user: Any) -> None:
    other = make_user("olga", "supervisor")
    alert_assign(alert=alert, owner=other, by=supervisor)
    assert alert_assign(alert=alert, owner=other, by=supervisor) is None  # unchanged
    alert_assign(alert=alert, owner=None, by=supervisor)
    alert.refresh_from_db()
    assert alert.owner is None
    events = TrendAlertEvent.objects.filter(alert=alert).order_by("pk")
    assert [(e.action, e.previous, e.value) for e in events] == [
        ("assign", "", "olga"), ("assign", "olga", "")]


def test_an_owner_must_be_able_to_handle_alerts(alert: TrendAlert, supervisor: Any,
                                                 make_user: Any) -> None:
    reviewer = make_user("rob", "reviewer")
    with pytest.raises(ValidationError, match="rob cannot handle alerts"):
        alert_assign(alert=alert, owner=reviewer, by=supervisor)
    assert sorted(u.username for u in alert_owner_choices()) == ["sue"]


def test_a_note_up_to_the_limit_is_kept_and_a_longer_one_refused_naming_it(
        alert: TrendAlert, supervisor: Any) -> None:
    limit = TrendAlert.NOTE_MAX_LENGTH
    assert limit == 1000
    alert_note(alert=alert, note="y" * limit, by=supervisor)
    with pytest.raises(ValidationError) as refused:
        alert_note(alert=alert, note="x" * (limit + 1), by=supervisor)
    assert "at most 1000 characters" in str(refused.value)
    assert "has 1001" in str(refused.value)
    alert.refresh_from_db()
    assert alert.note == "y" * limit  # the longer one was not cut and stored
    assert alert_note(alert=alert, note=" " + "y" * limit + "\n", by=supervisor) is None
    event = TrendAlertEvent.objects.get(alert=alert)
    assert (event.action, event.value, event.actor) == ("note", "y" * limit, supervisor)


def test_someone_who_only_reads_trends_cannot_act(alert: TrendAlert, reader: Any) -> None:
    for act in (lambda: alert_acknowledge(alert=alert, by=reader),
                lambda: alert_assign(alert=alert, owner=None, by=reader),
                lambda: alert_note(alert=alert, note="mine", by=reader)):
        with pytest.raises(PermissionDenied):
            act()
    assert not TrendAlertEvent.objects.exists()


def test_the_answers_behind_an_alert_are_a_triage_filter() -> None:
    surface = Surface(name="chat")
    all_models = TrendAlert(day=DAY, surface=surface, model="*", outcome="quote-altered")
    assert parse_qs(alert_answers_query(all_models)) == {
        "state": ["any"], "outcome": ["quote-altered"], "surface": ["chat"],
        "from": ["2026-03-02"], "to": ["2026-03-02"]}
    one_model = TrendAlert(day=DAY, surface=surface, model="model-b", outcome="quote-altered")
    assert parse_qs(alert_answers_query(one_model))["model"] == ["model-b"]


def _page(user: Any) -> str:
    client = Client()
    client.force_login(user)
    return client.get(f"/trends/?start={DAY}&end={DAY}").content.decode()


def test_the_page_offers_actions_to_supervisors_and_shows_readers_the_state(
        alert: TrendAlert, supervisor: Any, reader: Any) -> None:
    alert_acknowledge(alert=alert, by=supervisor)
    alert_note(alert=alert, note="Vendor asked.", by=supervisor)
    page = _page(supervisor)
    assert 'name="note" rows="2" maxlength="1000">Vendor asked.</textarea>' in page
    assert ">Reopen</button>" in page and ">Set owner</button>" in page
    assert (f'href="/triage/?{alert_answers_query(alert)}"'.replace("&", "&amp;") in page)
    read = _page(reader)
    assert "Acknowledged by sue" in read and "Vendor asked." in read
    assert "<form" not in read.split('id="changes-heading"')[1].split("</section>")[0]
    client = Client()
    client.force_login(reader)
    response = client.post(f"/trends/alerts/{alert.pk}/note", {"note": "mine"})
    assert response.status_code == 403


def test_htmx_gets_the_alert_fragment_and_a_refusal_with_the_limit(
        alert: TrendAlert, supervisor: Any) -> None:
    client = Client(headers={"HX-Request": "true"})
    client.force_login(supervisor)
    response = client.post(f"/trends/alerts/{alert.pk}/acknowledge", {"back": "surface=chat"})
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith(f'<li id="alert-{alert.pk}"') and "<html" not in body
    assert "Acknowledged by sue" in body and 'name="back" value="surface=chat' in body
    response = client.post(f"/trends/alerts/{alert.pk}/note", {"note": "z" * 1001})
    assert response.status_code == 400
    assert "A note can be at most 1000 characters; this one has 1001." in response.content.decode()
    alert.refresh_from_db()
    assert alert.note == ""
    plain = Client()
    plain.force_login(supervisor)
    response = plain.post(f"/trends/alerts/{alert.pk}/owner", {"owner": "sue",
                                                               "back": "surface=chat"})
    assert response.status_code == 302 and response["Location"].startswith("/trends/?surface=chat")
    assert response["Location"].endswith(f"#alert-{alert.pk}")


def test_the_changes_export_carries_the_handling(alert: TrendAlert, supervisor: Any) -> None:
    alert_acknowledge(alert=alert, by=supervisor)
    alert_assign(alert=alert, owner=supervisor, by=supervisor)
    alert_note(alert=alert, note="=cmd() looked", by=supervisor)
    client = Client()
    client.force_login(supervisor)
    rows = list(csv.reader(io.StringIO(client.get(
        f"/trends/export?chart=changes&start={DAY}&end={DAY}").content.decode())))
    header, row = rows
    handling = dict(zip(header, row, strict=True))
    assert (handling["acknowledged_by"], handling["owner"]) == ("sue", "sue")
    assert handling["acknowledged_at"].startswith(alert.acknowledged_at.date().isoformat())
    assert handling["note"] == "'=cmd() looked"  # a formula is quoted, as every cell
