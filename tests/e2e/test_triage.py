"""The triage queue in a real browser: filters swap the list and its counts
without a page load, the URL carries them (reload and back restore them), and
bulk assignment changes the assignee column."""

from __future__ import annotations

import os
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from reviewer.models import Answer, Assignment

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _roles(transactional_db: None) -> None:
    """The role groups come from a migration, and a transactional test's
    flush removes them: put them back before the demo gives its users roles."""
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    from reviewer.roles import sync_roles

    sync_roles(Group, Permission, ContentType)


def _query(page: Any) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def _rows(page: Any) -> list[int]:
    return [int(pk) for pk in page.locator(".triage-table tr[data-answer]").evaluate_all(
        "rows => rows.map(row => row.dataset.answer)")]


def _total(page: Any) -> str:
    return page.locator("#triage-total").inner_text()


def _option(page: Any, name: str, value: str) -> str:
    return page.locator(f"#triage-filters select[name={name}] option[value='{value}']").inner_text()


def test_filters_update_the_list_and_counts_and_live_in_the_url(page: Any) -> None:
    base = page.url.split("/answers")[0]
    page.goto(f"{base}/triage/")
    needing = list(Answer.objects.needing_review().order_by("-severity", "coverage", "created")
                   .values_list("pk", flat=True))
    assert len(needing) >= 2
    assert _rows(page) == needing
    assert _total(page) == f"{len(needing)} answers"
    # The page is swapped, never reloaded: a marker on window survives.
    page.evaluate("window.stillTheSamePage = true")

    benefits = set(Answer.objects.needing_review().filter(surface__name="benefits-chat")
                   .values_list("pk", flat=True))
    page.select_option("#triage-filters select[name=surface]", "benefits-chat")
    page.wait_for_url(lambda url: "surface=benefits-chat" in url)
    page.wait_for_function(f"document.querySelector('#triage-total').textContent"
                           f" === '{len(benefits)} answer{'' if len(benefits) == 1 else 's'}'")
    assert set(_rows(page)) == benefits
    assert _query(page) == {"surface": ["benefits-chat"]}  # empty fields left out
    # The counts moved with it: verdicts are now counted on benefits-chat only.
    fails = Answer.objects.needing_review().filter(surface__name="benefits-chat",
                                                   verdict="fail").count()
    assert _option(page, "verdict", "fail") == f"fail ({fails})"

    page.select_option("#triage-filters select[name=state]", "any")
    page.wait_for_url(lambda url: "state=any" in url)
    everything = set(Answer.objects.filter(surface__name="benefits-chat")
                     .values_list("pk", flat=True))
    page.wait_for_function(f"document.querySelectorAll('.triage-table tr[data-answer]').length"
                           f" === {len(everything)}")
    assert set(_rows(page)) == everything
    assert page.evaluate("window.stillTheSamePage") is True

    # Reload: the URL alone restores the filters and the list.
    page.reload()
    assert page.evaluate("window.stillTheSamePage") is None
    assert page.locator("select[name=surface]").input_value() == "benefits-chat"
    assert page.locator("select[name=state]").input_value() == "any"
    assert set(_rows(page)) == everything

    # Back: the previous filter (needs review on benefits-chat), list and form.
    page.go_back()
    page.wait_for_url(lambda url: "state=any" not in url and "surface=benefits-chat" in url)
    page.wait_for_function("document.querySelector('select[name=state]').value === ''")
    assert page.locator("select[name=surface]").input_value() == "benefits-chat"
    assert set(_rows(page)) == benefits

    # Typing a search narrows the list after a pause, without pressing Enter.
    question = Answer.objects.get(external_id="demo-benefits-mixed")
    page.goto(f"{base}/triage/")
    page.fill("#triage-q", "health")
    page.wait_for_url(lambda url: "q=health" in url)
    page.wait_for_function("document.querySelectorAll('.triage-table tr[data-answer]').length"
                           " === 1")
    assert _rows(page) == [question.pk]
    # Bad values in a shared link: a note, not an error.
    page.goto(f"{base}/triage/?verdict=maybe")
    assert "Ignored verdict" in page.locator(".triage-notes").inner_text()


def test_bulk_assign_changes_the_assignee_column(page: Any) -> None:
    base = page.url.split("/answers")[0]
    page.goto(f"{base}/triage/")
    rows = _rows(page)
    assert page.locator("td.assignee", has_text="reviewer").count() == 0
    page.check("#select-all")
    assert page.locator("#triage-assign input[name=answer]:checked").count() == len(rows)
    page.uncheck(f"#triage-assign input[name=answer][value='{rows[-1]}']")
    assert not page.locator("#select-all").is_checked()
    page.select_option("#assign-to", "reviewer")
    page.click("#triage-assign button[type=submit]")
    page.wait_for_selector(".triage-message")
    assert page.locator(".triage-message").inner_text() == (
        f"Assigned {len(rows) - 1} answer{'' if len(rows) == 2 else 's'} to reviewer.")
    assert page.locator("td.assignee", has_text="reviewer").count() == len(rows) - 1
    assert page.locator(f"tr[data-answer='{rows[-1]}'] td.assignee").inner_text() == "unassigned"
    assert urlsplit(page.url).path == "/triage/"  # the POST did not become the URL
    assert set(Assignment.objects.values_list("answer_id", flat=True)) == set(rows[:-1])
    assert set(Answer.objects.filter(assigned_to__username="reviewer")
               .values_list("pk", flat=True)) == set(rows[:-1])

    # Their queue, as the reviewer's "my queue" link shows it to a supervisor.
    page.goto(f"{base}/triage/?assignee=reviewer")
    assert set(_rows(page)) == set(rows[:-1])


def test_an_estimated_total_is_counted_exactly_on_request_in_place(
    page: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the exact-count limit (here 1, as if the planner expected a
    thousand answers below 100 % coverage) the total says "about" and
    Count exactly swaps in the counted list, the URL keeping the choice."""
    from reviewer.selectors import triage

    monkeypatch.setattr(triage, "EXACT_COUNT_LIMIT", 1)
    monkeypatch.setattr(triage, "_estimated_rows", lambda answers: 1000)
    below = list(Answer.objects.needing_review().filter(coverage__lt=1)
                 .values_list("pk", flat=True))
    assert len(below) >= 2
    base = page.url.split("/answers")[0]
    page.goto(f"{base}/triage/?coverage_below=100")
    assert _total(page) == f"{len(below)} answers"  # one page: the last page knows
    assert "by PostgreSQL's estimate" in page.locator(".triage-notes").inner_text()
    assert "(" not in _option(page, "surface", "benefits-chat")  # not counted
    page.evaluate("window.stillTheSamePage = true")
    page.click("#count-exactly")
    page.wait_for_function("() => new URLSearchParams(location.search).get('count') === 'exact'")
    page.wait_for_selector("#count-exactly", state="detached")
    assert page.evaluate("window.stillTheSamePage") is True
    assert _total(page) == f"{len(below)} answers"
    counted = Answer.objects.needing_review().filter(coverage__lt=1,
                                                     surface__name="benefits-chat").count()
    assert _option(page, "surface", "benefits-chat") == f"benefits-chat ({counted})"
    assert set(_rows(page)) == set(below)


@pytest.mark.demo_scan
@pytest.mark.docs_screenshots
def test_triage_screenshots_for_the_docs(page: Any, tmp_path: Any) -> None:
    """docs/triage.png at 1280x720: CITEGUARD_SCREENSHOTS=docs writes it
    there (bin/screenshots); otherwise it goes to a temp folder."""
    from django.contrib.auth import get_user_model

    from reviewer.services.assignments import answer_open, answers_assign

    users = {u.username: u for u in get_user_model().objects.all()}
    queue = list(Answer.objects.needing_review().order_by("-severity", "coverage", "created"))
    answers_assign(answer_ids=[queue[0].pk], assignee=users["reviewer"],
                   assigned_by=users["supervisor"])
    answer_open(answer=queue[-1], user=users["reviewer2"])

    folder = os.environ.get("CITEGUARD_SCREENSHOTS") or str(tmp_path)
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{page.url.split('/answers')[0]}/triage/?state=any")
    assert page.locator(".deciding").inner_text() == "being decided by reviewer2"
    page.wait_for_timeout(300)
    page.screenshot(path=f"{folder}/triage.png")
