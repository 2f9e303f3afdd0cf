"""Counts that cannot drift unseen: the demo's loaders write through the
services, so after loading it every count the triage queue shows is the
number of rows one can reach, and no page of its pager is empty; a write
around the services is found by ``rebuild_stats --check``, logged with the
numbers and repaired."""

from __future__ import annotations

import logging
import math
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import QueryDict

from reviewer.models import Answer, AnswerStats, QueueGroup
from reviewer.selectors.triage import (
    FACETS,
    PAGE_SIZE,
    TriageFilters,
    triage_counts,
    triage_page,
    triage_queryset,
)
from reviewer.services.recount import counts_check

pytestmark = pytest.mark.django_db


def _load_demo(capture: Any, *options: str) -> Any:
    from django.contrib.auth import get_user_model

    with capture(execute=True):
        call_command("load_demo", "--history", *options, stdout=StringIO())
    return get_user_model().objects.get(username="demo")


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> Any:
    """The demo as ``make demo`` loads it: history and calibration too."""
    return _load_demo(django_capture_on_commit_callbacks, "--calibration")


@pytest.fixture
def demo_history(django_capture_on_commit_callbacks: Any) -> Any:
    """The demo's answers and their five weeks of history, without the
    calibration set and the scanned letter: the drift check needs answers
    and kept counts to bend, not the whole demo (a third of its time)."""
    return _load_demo(django_capture_on_commit_callbacks, "--no-scan")


def _filters(query: str, user: Any) -> TriageFilters:
    return TriageFilters.from_query(QueryDict(query), user=user)


def test_after_the_demo_every_facet_count_is_the_rows_it_reaches(demo: Any) -> None:
    assert counts_check(repair=False).drifts == []
    # The decisions the history made are where the page shows them.
    assert Answer.objects.filter(review_state="approved").count() > 50
    for base in ("", "state=any"):
        counts = triage_counts(_filters(base, demo), demo)
        total, facets = counts.total, counts.facets
        assert total == triage_queryset(_filters(base, demo), demo).count() > 0
        checked = 0
        for facet in FACETS:
            for value in facets[facet]:
                query = "&".join(part for part in (base if facet != "state" else "",
                                                   f"{facet}={value.value}") if part)
                reachable = triage_queryset(_filters(query, demo), demo).count()
                assert value.count == reachable, (base, facet, value.value)
                checked += 1
        assert checked > 25  # every state, verdict, outcome, surface, model, assignee
    # The issue's own numbers: "Approved" and "Escalated" count their rows.
    facets = triage_counts(_filters("", demo), demo).facets
    states = {value.value: value.count for value in facets["state"]}
    assert states["approved"] == Answer.objects.filter(review_state="approved").count()
    assert states["escalated"] == Answer.objects.filter(review_state="escalated").count()

    # No page of the pager is empty, and together they hold the total.
    for query in ("", "state=any", "state=pending", "surface=benefits-chat&state=any"):
        first = triage_page(_filters(query, demo), demo)
        assert first.num_pages == max(1, math.ceil(first.total / PAGE_SIZE))
        seen = 0
        for number in range(1, first.num_pages + 1):
            page = triage_page(_filters(f"{query}&page={number}", demo), demo)
            assert page.rows, (query, number)
            assert page.number == number and not page.notes
            seen += len(page.rows)
        assert seen == first.total, query
    # A page past the last is the last, with a note.
    last = triage_page(_filters("state=any", demo), demo).num_pages
    assert last > 1
    page = triage_page(_filters("state=any&page=999", demo), demo)
    assert page.number == last and page.rows
    assert page.notes == (f"Ignored page “999”: the queue has {last} pages; showing page "
                          f"{last}.",)


def _kept_total(**where: Any) -> int:
    return sum(QueueGroup.objects.filter(**where).values_list("answers", flat=True))


def test_the_check_logs_drift_with_its_numbers_repairs_it_and_exits_1(
        demo_history: Any, caplog: pytest.LogCaptureFixture) -> None:
    # A write around the services: 10 answers approved by a bare UPDATE, and
    # a summary row's count bumped.
    pending = list(Answer.objects.needing_review().values_list("pk", flat=True)[:10])
    needing = Answer.objects.needing_review().count()
    Answer.objects.filter(pk__in=pending).update(review_state="approved")
    row = AnswerStats.objects.order_by("pk").first()
    AnswerStats.objects.filter(pk=row.pk).update(answers=row.answers + 7)

    with caplog.at_level(logging.ERROR, logger="citeguard.counts"):
        check = counts_check(repair=True)
    assert check.drifted
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert any(m.startswith("kept counts drifted: queue group ") and "state=pending" in m
               for m in errors)
    approved = Answer.objects.filter(review_state="approved").count()
    summary = next(m for m in errors if m.startswith("triage counts that were wrong"))
    assert f"needs review: kept {needing}, true {needing - 10}" in summary
    assert f"state=approved: kept {approved - 10}, true {approved}" in summary
    assert any(f"answers: kept {row.answers + 7}, true {row.answers}" in m for m in errors)
    # Repaired: the page counts the rows again, and a second check is clean.
    assert _kept_total(review_state="approved") == approved
    assert AnswerStats.objects.get(hour=row.hour, surface_id=row.surface_id,
                                   model=row.model).answers == row.answers
    caplog.clear()
    assert not counts_check().drifted
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]

    # The command: 0 when clean, 1 on drift (repaired, so 0 again after).
    out = StringIO()
    call_command("rebuild_stats", "--check", stdout=out)
    assert out.getvalue().startswith("kept counts match a recount:")
    QueueGroup.objects.filter(pk=QueueGroup.objects.order_by("pk").first().pk).update(
        answers=999)
    with pytest.raises(CommandError) as raised:
        call_command("rebuild_stats", "--check", stdout=StringIO())
    assert raised.value.returncode == 1
    assert "repaired" in str(raised.value)
    call_command("rebuild_stats", "--check", stdout=StringIO())  # repaired: exits 0
