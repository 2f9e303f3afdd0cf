"""The triage queue's stored priority (``Answer.triage_priority``): every path
that writes what it is computed from keeps it equal to its recomputation, the
recount check finds and repairs one written around them, and the queue's
order is exactly the keys it stands for (escalated first in a supervisor's
default queue, severity, failing outcomes, high stakes, age, id)."""

from __future__ import annotations

import itertools
import logging
import random
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection
from django.http import QueryDict
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from reviewer.models import Answer, Surface
from reviewer.selectors.triage import _ESCALATED_FIRST, TriageFilters, triage_next, triage_queryset
from reviewer.services.answers import answer_submit
from reviewer.services.priority import answers_priority_drifted, answers_priority_restamp
from reviewer.services.recount import counts_check
from reviewer.services.reverify import answer_reverify
from reviewer.services.reviews import review_decide, review_undo
from reviewer.services.surfaces import surface_update
from reviewer.severity import (
    FAILING_CAP,
    OUTCOME_COLUMNS,
    SEVERITY_ORDER,
    outcome_columns,
    triage_priority,
)

pytestmark = pytest.mark.django_db

SOURCE = ("The employer matches contributions up to five percent of salary after one full year "
          "of continuous service. Employees may not withdraw matched funds before age fifty-nine.")
# Not found at 0.92, verified at 0.85 (tests/reviewer/test_reverify.py).
FUZZY = "employer matches the contributions up to the five per cent of the salary"
EXACT = "Employees may not withdraw matched funds before age fifty-nine"


def _recomputed(answer: Answer) -> int:
    answer = Answer.all_objects.select_related("surface").get(pk=answer.pk)
    return triage_priority(
        {name: getattr(answer, name) for name in ("severity", *OUTCOME_COLUMNS.values())},
        high_stakes=bool(answer.surface and answer.surface.high_stakes))


def assert_priorities_kept() -> None:
    """Every stored priority equals its recomputation, in Python and in SQL."""
    for answer in Answer.all_objects.select_related("surface"):
        assert answer.triage_priority == _recomputed(answer), answer.pk
    assert not answers_priority_drifted().exists()


def _submit(text: str, *, surface: str) -> Answer:
    return answer_submit(client=None, data={
        "answer": text, "surface": surface, "model": "model-a",
        "sources": [{"marker": "S1", "text": SOURCE}]}).answer


def _fuzzy(surface: str) -> Answer:
    return _submit(f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1]. '
                   "And it pays for lunch [S2].", surface=surface)


# ---- the number stands for the keys ------------------------------------------

def test_the_priority_orders_as_severity_then_failing_then_high_stakes() -> None:
    rng = random.Random(22)
    cases = []
    for _ in range(3000):
        counts = {outcome: rng.choice((0, 0, 0, 1, 2, 7, 40, 999_999))
                  for outcome in SEVERITY_ORDER}
        columns = outcome_columns(counts)
        stakes = rng.random() < 0.5
        keys = (columns["severity"], sum(columns[c] for c in OUTCOME_COLUMNS.values()), stakes)
        cases.append((keys, triage_priority(columns, high_stakes=stakes)))
    for (keys_a, a), (keys_b, b) in itertools.pairwise(cases):
        assert (keys_a > keys_b) == (a > b) and (keys_a == keys_b) == (a == b)
    # Read in decimal: severity 3, 2 failing, high stakes.
    assert triage_priority({"severity": 3, "altered_count": 2}, high_stakes=True) == (
        3_000_000_000_021)
    # The cap keeps the count out of the severity's digits.
    assert (triage_priority({"severity": 1, "uncited_count": 10**13}, high_stakes=True)
            < triage_priority({"severity": 2}, high_stakes=False))
    assert FAILING_CAP > 10**10
    # Escalated first is review_state ascending within a supervisor's default queue.
    assert sorted(_ESCALATED_FIRST) == list(_ESCALATED_FIRST) == ["escalated", "pending"]


# ---- every write path keeps it -----------------------------------------------

def test_storing_an_answer_stamps_its_priority_with_the_surface_as_it_is_now(
        make_user: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    Surface.objects.create(name="legal", threshold=0.92)
    clinical = Surface.objects.create(name="clinical", threshold=0.92, high_stakes=True)
    sue = make_user("sue", "supervisor")
    legal_answer = _fuzzy("legal")
    clinical_answer = _fuzzy("clinical")
    assert legal_answer.not_found_count == 1 and legal_answer.severity > 0
    assert clinical_answer.triage_priority == legal_answer.triage_priority + 1
    assert_priorities_kept()

    # A supervisor turns high stakes off while an answer is being verified:
    # the answer ranks with the setting as committed when it is stored, not
    # as read before verifying.
    from reviewer.services import answers

    verify = answers.verify_answer

    def verify_meanwhile(*args: Any, **kwargs: Any) -> Any:
        surface_update(surface=clinical, changed_by=sue, reason="not clinical after all",
                       high_stakes=False)
        return verify(*args, **kwargs)

    monkeypatch.setattr(answers, "verify_answer", verify_meanwhile)
    assert _fuzzy("clinical").triage_priority == legal_answer.triage_priority
    assert_priorities_kept()


def test_re_verifying_moves_the_priority_with_the_counts(make_user: Any) -> None:
    legal = Surface.objects.create(name="legal", threshold=0.92, high_stakes=True)
    answer = _fuzzy("legal")
    before = answer.triage_priority
    answer_reverify(answer=answer, threshold=0.85)
    assert answer.not_found_count == 0
    assert answer.triage_priority != before
    assert_priorities_kept()
    # With the surface's high stakes read as they are when it is stored.
    Surface.objects.filter(pk=legal.pk).update(high_stakes=False)
    answer_reverify(answer=answer, threshold=0.92)
    answer_priority = Answer.objects.get(pk=answer.pk).triage_priority
    assert answer_priority == before - 1
    assert_priorities_kept()


def test_re_verifying_stores_the_claim_outcomes_counts_and_their_priority(
        make_user: Any) -> None:
    legal = Surface.objects.create(name="legal", threshold=0.92, claim_checks_off=["number"])
    sue = make_user("sue", "supervisor")
    answer = _submit("The employer matches contributions up to seven percent of salary after "
                     "one full year of continuous service [S1].", surface="legal")
    assert answer.claim_mismatch_count == 0
    surface_update(surface=legal, changed_by=sue, reason="numbers matter",
                   claim_checks_off=[])
    answer_reverify(answer=answer)
    assert answer.counts["claim-mismatch"] == 1
    # Stored, not only set on the object (it was left out of the UPDATE).
    assert Answer.objects.filter(pk=answer.pk, claim_mismatch_count=1).exists()
    assert_priorities_kept()


def test_decisions_and_undo_leave_the_priority_as_its_recomputation(make_user: Any) -> None:
    Surface.objects.create(name="legal", threshold=0.92, high_stakes=True)
    sue = make_user("sue", "supervisor")
    answer = _fuzzy("legal")
    before = answer.triage_priority
    for decision in ("escalate", "reject"):
        review_decide(answer=answer, reviewer=sue, decision=decision, note="because",
                      confirmed=True)
        assert_priorities_kept()
    latest = answer.decisions.order_by("-pk").first()
    review_undo(decision_id=latest.pk, reviewer=sue)
    answer.refresh_from_db()
    assert answer.review_state == "escalated" and answer.triage_priority == before
    assert_priorities_kept()


def test_a_surfaces_high_stakes_change_restamps_its_answers_in_one_update(
        make_user: Any) -> None:
    legal = Surface.objects.create(name="legal", threshold=0.92)
    Surface.objects.create(name="chat", threshold=0.92)
    sue = make_user("sue", "supervisor")
    answers = [_fuzzy("legal"), _fuzzy("legal"), _submit(f'"{EXACT}" [S1].', surface="legal")]
    other = _fuzzy("chat")
    before = {a.pk: a.triage_priority for a in [*answers, other]}
    Answer.objects.filter(pk=answers[1].pk).update(deleted_at=timezone.now())  # kept too

    with CaptureQueriesContext(connection) as queries:
        surface_update(surface=legal, changed_by=sue, reason="clinical use", high_stakes=True)
    updates = [q["sql"] for q in queries
               if q["sql"].startswith('UPDATE "reviewer_answer"')]
    assert len(updates) == 1
    after = dict(Answer.all_objects.values_list("pk", "triage_priority"))
    assert after == {**before, **{a.pk: before[a.pk] + 1 for a in answers}}
    assert_priorities_kept()
    surface_update(surface=legal, changed_by=sue, reason="back", high_stakes=False)
    assert dict(Answer.all_objects.values_list("pk", "triage_priority")) == before
    # Another setting changes no priority, and writes none.
    with CaptureQueriesContext(connection) as queries:
        surface_update(surface=legal, changed_by=sue, reason="stricter", threshold=0.95)
    assert not [q for q in queries if q["sql"].startswith('UPDATE "reviewer_answer"')]
    assert_priorities_kept()


def test_the_admins_high_stakes_column_goes_through_the_restamp(client: Any,
                                                                make_user: Any) -> None:
    legal = Surface.objects.create(name="legal", threshold=0.92)
    answer = _fuzzy("legal")
    admin = make_user("root", is_staff=True, is_superuser=True)
    client.force_login(admin)
    response = client.post("/admin/reviewer/surface/", {
        "form-TOTAL_FORMS": "1", "form-INITIAL_FORMS": "1", "form-MIN_NUM_FORMS": "0",
        "form-MAX_NUM_FORMS": "1000", "form-0-id": str(legal.pk), "form-0-high_stakes": "on",
        "_save": "Save"})
    assert response.status_code == 302
    legal.refresh_from_db()
    assert legal.high_stakes
    assert Answer.objects.get(pk=answer.pk).triage_priority == answer.triage_priority + 1
    assert_priorities_kept()


def test_the_recount_finds_a_priority_written_around_the_services_and_repairs_it(
        make_user: Any, caplog: pytest.LogCaptureFixture) -> None:
    legal = Surface.objects.create(name="legal", threshold=0.92)
    answer = _fuzzy("legal")
    passed = _submit(f'"{EXACT}" [S1].', surface="legal")
    assert not counts_check().drifted
    # Around the services: the surface's setting, and a count.
    Surface.objects.filter(pk=legal.pk).update(high_stakes=True)
    Answer.objects.filter(pk=passed.pk).update(uncited_count=2)
    with caplog.at_level(logging.ERROR, logger="citeguard.counts"):
        check = counts_check(repair=False)
    drifts = [d for d in check.drifts if d.table == "priority"]
    assert [(d.where, d.kept, d.true) for d in drifts] == [
        (f"answer {answer.pk} triage_priority", answer.triage_priority,
         answer.triage_priority + 1),
        (f"answer {passed.pk} triage_priority", passed.triage_priority, 21)]
    assert any(f"priority answer {answer.pk} triage_priority: kept "
               f"{answer.triage_priority}, true {answer.triage_priority + 1}" in r.getMessage()
               for r in caplog.records)
    assert answers_priority_drifted().count() == 2  # a dry run repairs nothing
    assert counts_check(repair=True).drifted
    assert_priorities_kept()
    assert not counts_check().drifted
    out = StringIO()
    call_command("rebuild_stats", "--check", stdout=out)
    assert "answers' queue priorities" in out.getvalue()
    # The plain rebuild restamps too (after an import that wrote around them).
    Answer.objects.filter(pk=passed.pk).update(triage_priority=0)
    call_command("rebuild_stats", stdout=out)
    assert "triage queue priorities restamped: 1 answers changed" in out.getvalue()
    assert_priorities_kept()
    assert answers_priority_restamp() == 0


def test_reloading_the_demo_restamps_a_surface_whose_high_stakes_it_sets(
        django_capture_on_commit_callbacks: Any) -> None:
    # (without the scanned letter: OCR-ing it is slow and beside the point)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    assert_priorities_kept()
    Surface.objects.filter(name="clinical-review").update(high_stakes=False)
    Answer.objects.filter(surface__name="clinical-review").update(triage_priority=0)
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    assert Surface.objects.get(name="clinical-review").high_stakes
    assert_priorities_kept()


# ---- the queue's order is the keys' -------------------------------------------

def _random_queue(rng: random.Random) -> None:
    surfaces = [Surface.objects.create(name="plain"),
                Surface.objects.create(name="stakes", high_stakes=True), None]
    now = timezone.now()
    for _ in range(160):
        counts = {o: rng.choice((0, 0, 0, 1, 2)) for o in SEVERITY_ORDER}
        verdict = "pass" if not any(counts.values()) else rng.choice(("flag", "fail"))
        answer = Answer.objects.create(
            verdict=verdict, action="flag", coverage=1.0, threshold=0.92, elapsed_ms=1.0,
            counts=counts, text="An answer.", surface=rng.choice(surfaces),
            review_state=rng.choice(("pending", "pending", "escalated", "approved")),
            **outcome_columns(counts))
        # Few distinct times: ties on age are broken by id.
        Answer.objects.filter(pk=answer.pk).update(
            created=now - timedelta(hours=rng.choice((1, 2, 3))))


def _by_the_keys(answers: Any, *, escalated_first: bool) -> list[int]:
    def key(answer: Answer) -> tuple[Any, ...]:
        failing = sum(getattr(answer, c) for c in OUTCOME_COLUMNS.values())
        stakes = bool(answer.surface and answer.surface.high_stakes)
        escalated = escalated_first and answer.review_state == "escalated"
        return (-escalated, -answer.severity, -failing, -stakes, answer.created, answer.pk)

    return [a.pk for a in sorted(answers.select_related("surface"), key=key)]


@pytest.mark.parametrize("query", ["", "state=any", "state=escalated", "state=pending",
                                   "state=approved", "surface=stakes", "outcome=quote-altered"])
def test_the_queue_is_in_the_keys_order_and_next_walks_it(make_user: Any, query: str) -> None:
    _random_queue(random.Random(7))
    sue, rita = make_user("sue", "supervisor"), make_user("rita", "reviewer")
    for user in (sue, rita):
        filters = TriageFilters.from_query(QueryDict(query), user=user)
        queue = list(triage_queryset(filters, user).values_list("pk", flat=True))
        expected = _by_the_keys(triage_queryset(filters, user).order_by(),
                                escalated_first="state=" not in query and user is sue)
        assert queue == expected and queue
        answers = Answer.objects.in_bulk(queue)
        assert [triage_next(answers[pk], filters, user) for pk in queue] == [*queue[1:], None]


def test_next_after_deciding_an_escalation_is_the_next_escalation(make_user: Any) -> None:
    _random_queue(random.Random(9))
    sue = make_user("sue", "supervisor")
    filters = TriageFilters.from_query(QueryDict(""), user=sue)
    queue = list(triage_queryset(filters, sue))
    escalations = [a for a in queue if a.review_state == "escalated"]
    first_pending = queue[len(escalations)]
    assert len(escalations) > 3 and first_pending.review_state == "pending"
    for index, answer in enumerate(escalations):
        review_decide(answer=answer, reviewer=sue, decision="reject", note="no",
                      confirmed=True)
        answer.refresh_from_db()
        following = escalations[index + 1].pk if index + 1 < len(escalations) else (
            first_pending.pk)
        assert triage_next(answer, filters, sue) == following
    # A pending answer decided keeps the place of one needing review.
    review_decide(answer=first_pending, reviewer=sue, decision="approve", note="ok",
                  confirmed=True)
    first_pending.refresh_from_db()
    assert triage_next(first_pending, filters, sue) == queue[len(escalations) + 1].pk


# ---- PostgreSQL reads the default queues in index order ------------------------

@pytest.mark.skipif(connection.vendor != "postgresql", reason="the plan is PostgreSQL's")
def test_postgresql_reads_the_default_queues_from_the_index_without_sorting(
        make_user: Any) -> None:
    rng = random.Random(3)
    surfaces = [Surface.objects.create(name=name, high_stakes=name == "b") for name in "abc"]
    rows = []
    for _ in range(6000):
        counts = ({o: rng.choice((0, 0, 1, 2)) for o in SEVERITY_ORDER}
                  if rng.random() < 0.4 else {})
        columns = outcome_columns(counts)
        surface = rng.choice(surfaces)
        rows.append(Answer(
            verdict="flag" if counts else "pass", action="flag", coverage=1.0, threshold=0.92,
            elapsed_ms=1.0, counts=counts, text="An answer.", surface=surface,
            review_state=rng.choice(("pending",) * 6 + ("approved", "rejected", "escalated")),
            triage_priority=triage_priority(columns, high_stakes=surface.high_stakes),
            **columns))
    Answer.objects.bulk_create(rows)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE reviewer_answer")
    sue, rita = make_user("sue", "supervisor"), make_user("rita", "reviewer")
    for user in (sue, rita):
        filters = TriageFilters.from_query(QueryDict(""), user=user)
        plan = triage_queryset(filters, user)[:50].explain()
        assert "answer_triage_queue" in plan, plan
        assert "Sort" not in plan, plan


def _index_definition(name: str) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT indexdef FROM pg_indexes WHERE indexname = %s", [name])
        row = cursor.fetchone()
    assert row is not None, name
    return str(row[0])


@pytest.mark.skipif(connection.vendor != "postgresql", reason="INCLUDE is PostgreSQL's")
def test_the_per_assignee_queue_index_carries_the_coverage_filters_columns() -> None:
    """Migration 0030: a count of one reviewer's queue with coverage below X
    reads the index alone; undone, the index is as the model declares it."""
    import importlib

    from django.apps import apps

    migration: Any = importlib.import_module(
        "reviewer.migrations.0030_triage_assigned_covering")
    order = "(assigned_to_id, review_state, triage_priority DESC, created, id)"
    covering = _index_definition("answer_triage_assigned")
    assert order in covering and "INCLUDE (coverage, verdict, deleted_at)" in covering
    assert "WHERE" in covering and "escalated" in covering
    with connection.schema_editor() as editor:
        migration.plain(apps, editor)
    plain = _index_definition("answer_triage_assigned")
    assert order in plain and "INCLUDE" not in plain and "escalated" in plain
    with connection.schema_editor() as editor:
        migration.covering(apps, editor)
    assert _index_definition("answer_triage_assigned") == covering


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the column is PostgreSQL's")
def test_the_search_document_keeps_more_statistics() -> None:
    """Migration 0031: the planner's estimate of a rare word's matches comes
    from ten times the default number of lexemes."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT attstattarget FROM pg_attribute WHERE attrelid = "
                       "'reviewer_answer'::regclass AND attname = 'search_document'")
        assert cursor.fetchone() == (1000,)


def test_the_migrations_backfill_computes_what_the_app_does(make_user: Any) -> None:
    """The migration's one UPDATE (its own SQL: a migration imports no app
    code) stamps every answer, soft-deleted ones too, as Answer.save would."""
    import importlib

    backfill = importlib.import_module("reviewer.migrations.0026_answer_triage_priority").BACKFILL
    _random_queue(random.Random(5))
    Answer.objects.filter(pk__in=Answer.objects.values("pk")[:5]).update(
        deleted_at=timezone.now())
    huge = Answer.objects.order_by("pk").first()
    # The most a 32-bit count column holds, near enough: no overflow, no cap.
    Answer.all_objects.filter(pk=huge.pk).update(severity=1, uncited_count=2_000_000_000,
                                                 **{c: 0 for c in OUTCOME_COLUMNS.values()
                                                    if c != "uncited_count"})
    expected = {a.pk: _recomputed(a) for a in Answer.all_objects.all()}
    assert len(set(expected.values())) > 10
    Answer.all_objects.update(triage_priority=0)
    with connection.cursor() as cursor:
        cursor.execute(backfill)
    assert dict(Answer.all_objects.values_list("pk", "triage_priority")) == expected
    assert expected[huge.pk] == 10**12 + 2 * 10**10 + _recomputed(huge) % 10
