"""The triage queue a team can trust, in real Chromium at 1280x720 (issue
22): counts that are the rows one can reach and a pager without empty pages
after the demo's history; the supervisor's order (escalations first, then
worst first with ties broken by the number of failing outcomes and high
stakes); an assign control that needs a choice; the same note for every bad
filter; and a reviewer's landing that shows the unassigned work."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from reviewer.models import Answer, Surface

pytestmark = pytest.mark.django_db(transaction=True)

VIEWPORT = {"width": 1280, "height": 720}


@pytest.fixture(autouse=True)
def _roles(transactional_db: None) -> None:
    """A transactional test's flush removes the migration's role groups."""
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    from reviewer.roles import sync_roles

    sync_roles(Group, Permission, ContentType)


@pytest.fixture
def small(page: Any) -> Any:
    page.set_viewport_size(VIEWPORT)
    return page


def _base(page: Any) -> str:
    return re.match(r"https?://[^/]+", page.url).group(0)


def _rows(page: Any) -> list[int]:
    return [int(pk) for pk in page.locator(".triage-table tr[data-answer]").evaluate_all(
        "rows => rows.map(row => row.dataset.answer)")]


def _needing_a_supervisor() -> int:
    """A recount from the rows of the supervisor's default queue."""
    return (Answer.objects.needing_review().count()
            + Answer.objects.filter(review_state="escalated").count())


def test_counts_are_the_rows_and_no_page_of_the_pager_is_empty(
        small: Any, load_more_demo: Any) -> None:
    load_more_demo("--history")
    page = small
    page.goto(f"{_base(page)}/triage/")
    total = _needing_a_supervisor()
    assert page.locator("#triage-total").inner_text() == f"{total} answers"
    for state in ("approved", "escalated", "rejected"):
        option = page.locator(f"select[name=state] option[value='{state}']").inner_text()
        assert option == f"{state} ({Answer.objects.filter(review_state=state).count()})"
    # Every page of the pager has rows, and together they are the total.
    seen = len(_rows(page))
    assert seen > 0
    number = 1
    while page.locator(".pager a[rel=next]").count():
        page.click(".pager a[rel=next]")
        number += 1
        page.wait_for_function(
            "n => document.querySelector('.pager span').textContent.startsWith(`page ${n} of`)",
            arg=number)
        rows = _rows(page)
        assert rows, page.url
        seen += len(rows)
    assert seen == total
    # A page past the last: the last page, said plainly, never an empty table.
    page.goto(f"{_base(page)}/triage/?page=999")
    assert _rows(page)
    assert "Ignored page “999”" in page.locator(".triage-notes").inner_text()


def _submit(text: str, *, surface: str, days_old: float) -> Answer:
    from reviewer.services.answers import answer_submit

    source = ("The employer matches 100% of the first 4% of salary that you contribute, "
              "and 50% of the next 2%.")
    answer = answer_submit(client=None, data={
        "answer": text, "surface": surface, "model": "order-test",
        "sources": [{"marker": "S1", "text": source}]}).answer
    Answer.objects.filter(pk=answer.pk).update(
        created=timezone.now() - timedelta(days=days_old))
    return answer


def test_supervisor_sees_escalations_first_then_most_failing_then_high_stakes(
        small: Any) -> None:
    from django.contrib.auth import get_user_model

    from reviewer.services.reviews import review_decide

    Surface.objects.filter(name="legal-review").update(high_stakes=True)
    fabricated = 'The plan "matches 100% of the first 4% of salary" [S4].'
    alone_old = _submit(fabricated, surface="benefits-chat", days_old=3)
    both_new = _submit(fabricated + ' It "matches 100% of the first 9% of salary" [S1].',
                       surface="benefits-chat", days_old=1)
    stakes_new = _submit(fabricated, surface="legal-review", days_old=1)
    assert alone_old.severity == both_new.severity == stakes_new.severity
    escalated = Answer.objects.get(external_id="demo-contract")  # a mild one
    review_decide(answer=escalated, reviewer=get_user_model().objects.get(username="reviewer"),
                  decision="escalate", note="needs legal")

    page = small
    page.goto(f"{_base(page)}/triage/")
    rows = _rows(page)
    # Same severity: two failing outcomes above one, a high-stakes surface
    # above an ordinary one, though both are newer.
    assert rows.index(both_new.pk) < rows.index(alone_old.pk)
    assert rows.index(stakes_new.pk) < rows.index(alone_old.pk)
    # And the escalation on top, in the default view.
    assert rows[0] == escalated.pk
    assert page.locator(f"tr[data-answer='{escalated.pk}']").get_by_text("Escalated").count()


def test_assign_needs_a_choice_and_never_unassigns_by_default(small: Any) -> None:
    from django.contrib.auth import get_user_model

    from reviewer.services.assignments import answers_assign

    people = {u.username: u for u in get_user_model().objects.all()}
    page = small
    page.goto(f"{_base(page)}/triage/")
    first = _rows(page)[0]
    answers_assign(answer_ids=[first], assignee=people["reviewer"],
                   assigned_by=people["supervisor"])
    page.reload()
    assert page.locator("#assign-to option:checked").inner_text() == "choose…"
    page.check(f"#triage-assign input[name=answer][value='{first}']")
    page.click("#triage-assign button[type=submit]")
    page.wait_for_selector(".triage-message")
    assert page.locator(".triage-message").inner_text().startswith(
        "Choose whom to assign the selected answers to")
    assert page.locator(f"tr[data-answer='{first}'] td.assignee").inner_text() == "reviewer"
    assert Answer.objects.get(pk=first).assigned_to_id == people["reviewer"].pk
    # The control did not fall back to "nobody" either.
    assert page.locator("#assign-to option:checked").inner_text() == "choose…"

    # Unassigning stays a choice one can make.
    page.check(f"#triage-assign input[name=answer][value='{first}']")
    page.select_option("#assign-to", label="nobody (unassign)")
    page.click("#triage-assign button[type=submit]")
    page.wait_for_function("document.querySelector('.triage-message').textContent"
                           ".includes('back to nobody')")
    assert page.locator(f"tr[data-answer='{first}'] td.assignee").inner_text() == "unassigned"


def test_an_unknown_model_gets_the_note_other_bad_filters_get(small: Any) -> None:
    page = small
    page.goto(f"{_base(page)}/triage/")
    default_rows = _rows(page)
    assert default_rows
    page.goto(f"{_base(page)}/triage/?model=gpt-9")
    notes = page.locator(".triage-notes")
    assert notes.count() == 1
    assert "Ignored model “gpt-9”: no answer has that model." in notes.inner_text()
    assert _rows(page) == default_rows  # ignored: not a silent "0 answers"
    assert page.locator("text=No answers match these filters").count() == 0
    # The same note style as another bad value, side by side.
    page.goto(f"{_base(page)}/triage/?model=gpt-9&verdict=maybe")
    items = page.locator(".triage-notes li").all_inner_texts()
    assert [re.sub(r"“.*", "", item) for item in items] == ["Ignored verdict ",
                                                           "Ignored model "]


@pytest.fixture
def reviewer_page(chromium: Any, demo_site: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(f"{demo_site.url}/accounts/login/")
    page.fill("input[name=username]", "reviewer")
    page.fill("input[name=password]", "reviewer")
    page.click("button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)
    yield page
    context.close()


def test_a_reviewer_landing_on_an_empty_my_queue_is_shown_the_unassigned_work(
        reviewer_page: Any) -> None:
    page = reviewer_page
    assert "/triage/" in page.url and "assignee=me" in page.url  # where reviewers land
    waiting = Answer.objects.needing_review().filter(assigned_to__isnull=True).count()
    assert waiting > 0
    line = page.locator("#triage-mine")
    assert line.inner_text() == f"0 assigned to you — {waiting} unassigned"
    assert line.is_visible()
    line.get_by_role("link").click()
    page.wait_for_url(lambda url: "assignee=none" in url)
    page.wait_for_function("document.querySelectorAll('.triage-table tr[data-answer]').length"
                           " > 0")
    assert len(_rows(page)) == min(waiting, 50)
    assert page.locator("#triage-total").inner_text() == (
        f"{waiting} answer{'' if waiting == 1 else 's'}")
