"""A rate-change alert in real Chromium at 1280x720, with the demo's five
weeks of history: it links to the answers behind it (triage filtered by its
surface, outcome and day), a supervisor acknowledges it, gives it an owner
and a note (its limit shown and counted; a longer one refused with the limit
named), and the history says who did what."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from reviewer.demo_history import HISTORY_DAYS, SWITCH_AFTER_DAYS
from reviewer.models import TrendAlert

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def history(demo_site: Any, load_more_demo: Any) -> Any:
    load_more_demo("--history")
    return demo_site


def test_an_alert_links_to_its_answers_and_is_acknowledged_owned_and_noted(
        page: Any, history: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    switch_day = datetime.now(UTC).date() - timedelta(days=HISTORY_DAYS - SWITCH_AFTER_DAYS)
    page.goto(f"{history.url}/trends/?surface=benefits-chat")
    alert_item = page.locator("li.change[data-outcome='fabricated-marker']")
    alert_item.wait_for()
    stored = TrendAlert.objects.get(outcome="fabricated-marker", model="*", day=switch_day)

    # The answers behind it: triage filtered by surface, outcome and that day.
    link = alert_item.get_by_role("link", name=f"The {stored.hits} answers behind it")
    link.click()
    page.wait_for_url("**/triage/?*")
    day = switch_day.isoformat()
    for part in ("surface=benefits-chat", "outcome=fabricated-marker", f"from={day}",
                 f"to={day}", "state=any"):
        assert part in page.url
    assert page.locator("#triage-total").text_content().strip() == f"{stored.hits} answers"
    page.go_back()

    # Acknowledge, then give it an owner.
    alert_item.wait_for()
    assert "Not acknowledged" in alert_item.locator(".alert-state").text_content()
    alert_item.get_by_role("button", name="Acknowledge").click()
    alert_item.locator(".alert-state", has_text="Acknowledged by demo").wait_for()
    alert_item.get_by_label("Owner").select_option("supervisor")
    alert_item.get_by_role("button", name="Set owner").click()
    alert_item.locator(".alert-owner", has_text="Owner: supervisor").wait_for()

    # The note's limit is shown and counted as one types.
    box = alert_item.get_by_label("Note")
    assert box.get_attribute("maxlength") == "1000"
    counter = alert_item.locator(".char-counter")
    assert counter.text_content().strip() == "0 / 1,000 characters"
    box.fill("Model-b rollout; asked the vendor.")
    assert counter.text_content().strip() == "34 / 1,000 characters"
    alert_item.get_by_role("button", name="Save note").click()
    alert_item.locator(".alert-note", has_text="Model-b rollout; asked the vendor.").wait_for()

    # Past the limit (the box's maxlength taken off, as a script could): refused
    # with the limit named, and the note kept as it was.
    alert_item.get_by_label("Note").evaluate("box => box.removeAttribute('maxlength')")
    alert_item.get_by_label("Note").fill("x" * 1001)
    alert_item.get_by_role("button", name="Save note").click()
    error = alert_item.locator(".alert-error")
    error.wait_for()
    assert "at most 1000 characters" in error.text_content()
    assert "has 1001" in error.text_content()

    # All of it survives a reload, with who did what in the history.
    page.reload()
    alert_item.wait_for()
    assert "Acknowledged by demo" in alert_item.locator(".alert-state").text_content()
    assert "Owner: supervisor" in alert_item.locator(".alert-owner").text_content()
    assert "Model-b rollout; asked the vendor." in alert_item.locator(".alert-note").text_content()
    alert_item.locator(".alert-history summary").click()
    events = alert_item.locator(".alert-history li").all_text_contents()
    assert len(events) == 3
    assert "demo changed the note" in events[0]
    assert "demo set the owner: supervisor (was nobody)" in events[1]
    assert "demo acknowledged" in events[2]
