"""A re-verification run whose worker dies is failed by the watchdog (at read
time, on apply, or from `manage.py watchdog`) instead of staying `running`
and blocking the surface; applying its threshold again finishes the rest."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from reviewer.models import Answer, ReverificationRun, Surface, SurfaceChange
from reviewer.services import reverify
from reviewer.services.reverify import answers_reverify, reverification_run, runs_fail_stale
from tests.reviewer.test_reverify import fuzzy_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def legal() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.92)


def _running(surface: Surface, *, idle: timedelta, **fields: Any) -> ReverificationRun:
    at = timezone.now() - idle
    fields.setdefault("heartbeat", at)
    return ReverificationRun.objects.create(
        surface=surface, threshold=0.86, status="running", started=at, **fields)


def test_only_runs_without_progress_for_the_limit_are_failed(legal: Surface,
                                                              settings: Any) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "RUN_STALE_SECONDS": 600}
    dead = _running(legal, idle=timedelta(minutes=11), total=300, done=100)
    alive = _running(legal, idle=timedelta(minutes=1))
    old_queue = ReverificationRun.objects.create(surface=legal, threshold=0.86)
    ReverificationRun.objects.filter(pk=old_queue.pk).update(
        created=timezone.now() - timedelta(hours=2))
    before_heartbeats = _running(legal, idle=timedelta(minutes=20), heartbeat=None)

    assert runs_fail_stale() == 2
    assert runs_fail_stale() == 0
    dead.refresh_from_db()
    assert dead.status == "failed" and dead.finished is not None
    assert dead.error.startswith("No progress for 11 min after 100 of 300 answers")
    assert "Apply the threshold again" in dead.error
    statuses = dict(ReverificationRun.objects.values_list("pk", "status"))
    assert (statuses[alive.pk], statuses[old_queue.pk], statuses[before_heartbeats.pk]) == (
        "running", "queued", "failed")


def test_a_killed_run_shows_failed_and_applying_again_finishes_the_rest(
        client: Any, make_user: Any, legal: Surface,
        django_capture_on_commit_callbacks: Any) -> None:
    answers = [fuzzy_answer() for _ in range(3)]
    assert {a.verdict for a in answers} == {"flag"}
    legal.threshold = 0.86
    legal.save()
    # The worker re-verified one answer, then was killed: its heartbeat stopped.
    dead = _running(legal, idle=timedelta(hours=1), total=3)
    answers_reverify(answer_ids=[answers[0].pk], threshold=0.86, run=dead)
    ReverificationRun.objects.filter(pk=dead.pk).update(
        heartbeat=timezone.now() - timedelta(hours=1))

    client.force_login(make_user("sue", "supervisor"))
    html = client.get("/calibrate/legal/").content.decode()
    row = html[html.index(f'<tr id="run-{dead.pk}"'):]
    row = row[:row.index("</tr>")]
    assert 'data-status="failed"' in row and "No progress for 60 min after 1 of 3" in row
    assert "is still re-verifying" not in html

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/calibrate/legal/apply", {
            "threshold": "0.86", "reason": "Finish after the worker died", "target": "0.95"})
    assert response.status_code == 302
    again = ReverificationRun.objects.exclude(pk=dead.pk).get()
    assert (again.status, again.total, again.done) == ("done", 3, 3)
    assert {(a.verdict, a.threshold) for a in Answer.objects.all()} == {("pass", 0.86)}
    change = SurfaceChange.objects.get(pk=again.surface_change_id)
    assert change.changes == {"threshold": [0.86, 0.86]}
    assert change.reason == "Finish after the worker died"
    # Once finished, the same threshold is refused again.
    response = client.post("/calibrate/legal/apply",
                           {"threshold": "0.86", "reason": "Again", "target": "0.95"})
    assert response.status_code == 400
    assert "The threshold is 0.86 already." in response.content.decode()


def test_a_run_the_watchdog_failed_stays_failed_if_its_worker_comes_back(
        legal: Surface, monkeypatch: Any) -> None:
    for _ in range(2):
        fuzzy_answer()
    run = ReverificationRun.objects.create(surface=legal, threshold=0.86)
    real = reverify.answers_reverify

    def slow_then_failed(**kwargs: Any) -> Any:
        outcomes = real(**kwargs)
        runs_fail_stale(now=timezone.now() + timedelta(hours=1))  # the watchdog, meanwhile
        return outcomes

    monkeypatch.setattr(reverify, "answers_reverify", slow_then_failed)
    finished = reverification_run(run_id=run.pk)
    assert finished.status == "failed"
    assert finished.error.startswith("No progress for")


def test_the_watchdog_command(legal: Surface) -> None:
    _running(legal, idle=timedelta(hours=1))
    out = StringIO()
    call_command("watchdog", stdout=out)
    assert out.getvalue().splitlines() == ["1 stalled re-verification run failed.",
                                           "No stuck document.", "No lost document task.",
                                           "No lost run task."]
    out = StringIO()
    call_command("watchdog", stdout=out)
    assert out.getvalue().splitlines()[0] == "No stalled re-verification run."


def test_a_queued_run_whose_task_was_lost_is_queued_again_and_taken_once(
        legal: Surface, settings: Any, monkeypatch: pytest.MonkeyPatch,
        django_capture_on_commit_callbacks: Any) -> None:
    """Redis lost the run's task: past QUEUED_STALE_SECONDS the watchdog
    queues it again (once per period); a late first delivery and the new one
    both arrive, and the run is done once."""
    settings.CITEGUARD = {**settings.CITEGUARD, "QUEUED_STALE_SECONDS": 1800}
    fuzzy_answer()
    enqueued: list[int] = []
    monkeypatch.setattr(reverify, "reverify_surface", SimpleNamespace(enqueue=enqueued.append))
    lost = ReverificationRun.objects.create(surface=legal, threshold=0.86)
    recent = ReverificationRun.objects.create(surface=legal, threshold=0.86)
    ReverificationRun.objects.filter(pk=lost.pk).update(
        created=timezone.now() - timedelta(hours=1))

    with django_capture_on_commit_callbacks(execute=True):
        assert reverify.runs_requeue_lost() == 1
        assert reverify.runs_requeue_lost() == 0
    assert enqueued == [lost.pk]
    assert ReverificationRun.objects.get(pk=recent.pk).status == "queued"
    first, again = reverification_run(run_id=lost.pk), reverification_run(run_id=lost.pk)
    assert (first.status, again.status, first.done) == ("done", "done", 1)
