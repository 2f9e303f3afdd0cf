"""Trends: the summary table kept as answers arrive (equal to a rebuild), the
rates and percentiles read from it, the change-point rule, its alert (stored,
logged and exposed once), the CSV exports, the filters in the URL and who may
see any of it."""

from __future__ import annotations

import csv
import io
import json
import logging
import re
from datetime import UTC, date, datetime, timedelta
from io import StringIO
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from django.utils import timezone

from reviewer.changepoint import (
    BASELINE_DAYS,
    MIN_BASELINE_ANSWERS,
    MIN_DAY_ANSWERS,
    DayCount,
    compare_series,
    wilson_interval,
)
from reviewer.models import Answer, AnswerStats, ReviewDecision, Surface, TrendAlert
from reviewer.selectors.trends import (
    TrendFilters,
    decision_times,
    rate_change_directions,
    trend_counts,
    trend_filters_from,
)
from reviewer.services.answers import answer_submit
from reviewer.services.rows import insert_rows
from reviewer.services.stats import (
    COUNT_COLUMNS,
    latency_percentile,
    stats_rebuild,
    stats_record_answer,
)
from reviewer.services.trends import trend_alerts_check

pytestmark = pytest.mark.django_db

SOURCES = [
    {"marker": "S1", "text": "Employees accrue 25 days of paid leave a year. Up to five unused "
                             "days may be carried over into the next calendar year."},
    {"marker": "S2", "text": "The employer matches 100% of the first 4% of salary that you "
                             "contribute. Employer match vests after two years of service."},
]
#: Answers of every kind: (answer text, what it should count as).
ANSWERS = [
    'Employees "accrue 25 days of paid leave a year" [S1].',
    'The employer "matches 100% of the first 4% of salary that you contribute" [S2].',
    'Employer match "vests after three years of service" [S2].',  # altered
    'Leave "accrues at 30 days a year" [S1]. Vision is covered [S7].',  # not found, fabricated
    "Bonuses are paid every quarter. Leave accrues monthly.",  # uncited claims
    'Up to "five unused days may be carried over" [S1]. Dental is free [S9].',  # fabricated
    "Employees accrue 30 days of paid leave a year [S1].",  # claim mismatch
    # claim unsupported
    "Dragons breathe fire over northern mountains and frozen lakes every winter [S2].",
]


def _submit(text: str, *, surface: str = "chat", model: str = "model-a") -> Answer:
    return answer_submit(client=None, data={"surface": surface, "model": model,
                                            "answer": text, "sources": SOURCES}).answer


@pytest.fixture
def surfaces(db: None) -> dict[str, Surface]:
    return {name: Surface.objects.create(name=name, min_coverage=0.5)
            for name in ("chat", "legal")}


def _table() -> list[tuple[Any, ...]]:
    return sorted(AnswerStats.objects.values_list("hour", "surface_id", "model",
                                                  *COUNT_COLUMNS))


def _stats(day: date, surface: Surface, model: str, answers: int, hour: int = 9,
           **counts: int) -> AnswerStats:
    return AnswerStats.objects.create(
        hour=datetime(day.year, day.month, day.day, hour, tzinfo=UTC), surface=surface,
        model=model, answers=answers, **counts)


def _today() -> date:
    return timezone.now().astimezone(UTC).date()


# ---- the summary table ------------------------------------------------------

def test_stats_kept_on_submit_equal_a_rebuild_from_the_answers(
        surfaces: dict[str, Surface]) -> None:
    moments = [datetime(2026, 3, 2, 9, 15, tzinfo=UTC), datetime(2026, 3, 2, 9, 50, tzinfo=UTC),
               datetime(2026, 3, 2, 10, 5, tzinfo=UTC), datetime(2026, 3, 3, 23, 59, tzinfo=UTC)]
    submitted = []
    for n, text in enumerate(ANSWERS * 3):
        with mock.patch("django.utils.timezone.now", return_value=moments[n % len(moments)]):
            submitted.append(_submit(text, surface=("chat", "legal")[n % 2],
                                     model=("model-a", "model-b", "")[n % 3]))
    incremental = _table()
    assert len(incremental) > 6  # hours × surfaces × models, not one row
    assert sum(row[3] for row in incremental) == len(submitted)
    fabricated = sum(1 for a in submitted if a.fabricated_count)
    assert fabricated == 6  # two of the eight texts, three times each
    assert sum(s.with_fabricated for s in AnswerStats.objects.all()) == fabricated
    assert sum(s.with_uncited for s in AnswerStats.objects.all()) == sum(
        1 for a in submitted if a.uncited_count)
    assert sum(s.with_claim_mismatch for s in AnswerStats.objects.all()) == 3 == sum(
        1 for a in submitted if a.claim_mismatch_count)
    assert sum(s.with_claim_unsupported for s in AnswerStats.objects.all()) == 3 == sum(
        1 for a in submitted if a.claim_unsupported_count)

    assert stats_rebuild() == len(incremental)
    assert _table() == incremental
    # And the command does the same.
    AnswerStats.objects.all().delete()
    out = StringIO()
    call_command("rebuild_stats", stdout=out)
    assert _table() == incremental and f"{len(incremental)} rows" in out.getvalue()


def test_an_answer_counts_once_in_every_column_it_belongs_to(
        surfaces: dict[str, Surface]) -> None:
    answer = _submit(ANSWERS[3])  # a quote not found and a fabricated marker
    row = AnswerStats.objects.get()
    assert row.answers == 1 and row.with_fabricated == 1 and row.with_not_found == 1
    assert row.with_altered == 0 and row.verdict_fail + row.verdict_flag == 1
    assert row.claims == answer.claims and row.attributed_claims == answer.attributed_claims
    coverage = [getattr(row, c) for c in ("cov_lt_25", "cov_lt_50", "cov_lt_75", "cov_lt_100",
                                          "cov_full")]
    assert sum(coverage) == 1
    assert sum(getattr(row, c) for c in COUNT_COLUMNS if c.startswith("lat_")) == 1
    assert row.hour == answer.created.replace(minute=0, second=0, microsecond=0)
    # Recorded again (as a replay would if it counted): the same row grows.
    stats_record_answer(answer)
    row.refresh_from_db()
    assert AnswerStats.objects.count() == 1 and row.answers == 2 and row.with_fabricated == 2


def test_an_answer_without_a_surface_is_summed_under_none(
        surfaces: dict[str, Surface]) -> None:
    answer = _submit(ANSWERS[0])
    Answer.objects.filter(pk=answer.pk).update(surface=None)
    answer.refresh_from_db()
    stats_record_answer(answer)
    stats_record_answer(answer)
    row = AnswerStats.objects.get(surface=None)
    assert row.answers == 2 and row.verdict_pass == 2


def test_a_replayed_submission_is_not_counted_twice(surfaces: dict[str, Surface]) -> None:
    data = {"id": "once", "surface": "chat", "model": "m", "answer": ANSWERS[0],
            "sources": SOURCES}
    answer_submit(client=None, data=data)
    answer_submit(client=None, data=data)
    assert AnswerStats.objects.get().answers == 1


@pytest.mark.django_db(transaction=True)
def test_a_row_inserted_by_a_concurrent_request_is_added_to(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """An hour's first answer finds no row, but another request inserts and
    commits it first: the insert meets the unique constraint and the answer
    is added to that row instead, nothing lost and no error."""
    import threading

    from django.db import connection

    from reviewer.services import stats as stats_service

    if connection.vendor == "sqlite":
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL (CI runs it there)")
    Surface.objects.create(name="chat")
    real_create = AnswerStats.objects.create
    raced = []

    def create_after_another_request(**fields: Any) -> AnswerStats:
        if not raced:  # the other request wins the race: its own connection, committed
            def other() -> None:
                real_create(**{**fields, "answers": 1, "verdict_pass": 1})
                connection.close()
            thread = threading.Thread(target=other)
            thread.start()
            thread.join()
            raced.append(True)
        return real_create(**fields)

    monkeypatch.setattr(stats_service.AnswerStats.objects, "create",
                        create_after_another_request)
    _submit(ANSWERS[0])
    assert raced == [True]
    row = AnswerStats.objects.get()
    assert (row.answers, row.verdict_pass) == (2, 2)
    assert Answer.objects.count() == 1


# ---- rates and percentiles --------------------------------------------------

def test_latency_percentiles_are_the_upper_edge_of_their_bucket() -> None:
    histogram = {"lat_le_1ms": 5, "lat_le_2ms": 4, "lat_le_50ms": 1}
    assert latency_percentile(histogram, 0.5) == 1
    assert latency_percentile(histogram, 0.9) == 2
    assert latency_percentile(histogram, 0.91) == 50
    assert latency_percentile(histogram, 0.99) == 50
    assert latency_percentile({"lat_le_1ms": 1, "lat_over_1s": 1}, 0.99) == 1000
    assert latency_percentile({}, 0.5) is None


def test_rates_per_day_and_per_hour_from_a_hand_counted_fixture(
        surfaces: dict[str, Surface]) -> None:
    chat = surfaces["chat"]
    day = date(2026, 3, 2)
    _stats(day, chat, "model-a", 6, hour=9, with_fabricated=1, verdict_pass=4, verdict_fail=2,
           lat_le_1ms=3, lat_le_2ms=3)
    _stats(day, chat, "model-a", 4, hour=15, with_fabricated=1, verdict_pass=4, lat_le_50ms=4)
    _stats(day, surfaces["legal"], "model-a", 10, hour=9, with_fabricated=8)  # other surface
    _stats(day + timedelta(days=1), chat, "model-b", 5, with_fabricated=5)

    filters = TrendFilters(start=day, end=day + timedelta(days=1), surface="chat")
    rows = trend_counts(filters)
    assert [(r["bucket"].date(), r["model"], r["answers"], r["with_fabricated"])
            for r in rows] == [(day, "model-a", 10, 2), (day + timedelta(days=1), "model-b", 5, 5)]
    hourly = trend_counts(TrendFilters(start=day, end=day, surface="chat", granularity="hour"))
    assert [(r["bucket"].hour, r["answers"]) for r in hourly] == [(9, 6), (15, 4)]
    # 2 of 10 answers on the 2nd: 20 %; the latency quantiles of 3+3+4 answers.
    export = _csv(_client_for("supervisor"), "outcomes", filters.query())
    assert export[0] == ["bucket", "model", "answers", "outcome", "answers_with_outcome", "rate"]
    assert ["2026-03-02", "model-a", "10", "fabricated-marker", "2", "0.2"] in export
    assert ["2026-03-03", "model-b", "5", "fabricated-marker", "5", "1.0"] in export
    latency = _csv(_client_for("supervisor"), "latency", filters.query())
    assert latency[0][:5] == ["bucket", "answers", "p50_ms", "p90_ms", "p99_ms"]
    assert latency[1][:5] == ["2026-03-02", "10", "2", "50", "50"]
    verdicts = _csv(_client_for("supervisor"), "verdicts", filters.query())
    assert ["2026-03-02", "model-a", "10", "pass", "8", "0.8"] in verdicts


# ---- decisions --------------------------------------------------------------

def test_decisions_per_day_and_time_to_first_decision(
        surfaces: dict[str, Surface], make_user: Any) -> None:
    person = make_user("rita", "reviewer")
    start = datetime(2026, 3, 2, 8, tzinfo=UTC)
    answers = [_submit(ANSWERS[2]) for _ in range(3)]
    for answer in answers:
        Answer.objects.filter(pk=answer.pk).update(created=start)
    rows = [
        # answer 0: approved after 2 h, then undone and rejected (the first counts)
        (answers[0], "approve", 2), (answers[0], "reject", 5),
        (answers[1], "reject", 4),
        (answers[2], "escalate", 30),  # the next day
    ]
    inserted = insert_rows(ReviewDecision, [
        {"answer_id": a.pk, "reviewer_id": person.pk, "decision": d, "note": "",
         "from_state": "pending", "to_state": "approved", "undoes_id": None,
         "unopened_failures": [], "created": start + timedelta(hours=h)}
        for a, d, h in rows], returning=("id",))
    insert_rows(ReviewDecision, [{
        "answer_id": answers[0].pk, "reviewer_id": person.pk, "decision": "undo", "note": "",
        "from_state": "approved", "to_state": "pending", "undoes_id": inserted[0][0],
        "unopened_failures": [], "created": start + timedelta(hours=3)}])
    filters = TrendFilters(start=date(2026, 3, 2), end=date(2026, 3, 3))
    stats_rebuild()  # the decisions were inserted directly, not through review_decide
    times = decision_times(filters)
    # 2 h and 4 h both fall in the "at most 4 h" bucket; 30 h in "at most 3 days".
    assert [(t["bucket"].date(), t["decided"], t["median_hours"], t["p90_hours"])
            for t in times] == [(date(2026, 3, 2), 2, 4.0, 4.0), (date(2026, 3, 3), 1, 72.0, 72.0)]
    client = _client_for("supervisor")
    assert _csv(client, "decisions", filters.query()) == [
        ["bucket", "decision", "count"], ["2026-03-02", "approve", "1"],
        ["2026-03-02", "reject", "2"], ["2026-03-03", "escalate", "1"]]
    assert _csv(client, "decision-time", filters.query())[1] == ["2026-03-02", "2", "4.0", "4.0"]


def test_review_decide_counts_each_answers_first_decision_once(
        surfaces: dict[str, Surface], make_user: Any) -> None:
    """Decided, undone and decided again: one first decision, in the hour it
    was made, as a rebuild from the decisions counts it."""
    from reviewer.services.reviews import review_decide, review_undo

    rita = make_user("rita", "reviewer")
    answers = [_submit(ANSWERS[2]) for _ in range(3)]
    Answer.objects.filter(pk=answers[0].pk).update(created=timezone.now() - timedelta(hours=30))
    answers[0].refresh_from_db()
    first = review_decide(answer=answers[0], reviewer=rita, decision="escalate")
    review_undo(decision_id=first.pk, reviewer=rita)
    review_decide(answer=answers[0], reviewer=rita, decision="reject")
    review_decide(answer=answers[1], reviewer=rita, decision="escalate")
    columns = ("first_decisions", "ttd_le_15m", "ttd_le_3d", "decided_escalate",
               "decided_reject")

    def totals() -> dict[str, int]:
        rows = AnswerStats.objects.values_list(*columns)
        return {c: sum(row[i] for row in rows) for i, c in enumerate(columns)}

    kept = totals()
    assert kept == {"first_decisions": 2, "ttd_le_15m": 1, "ttd_le_3d": 1,
                    "decided_escalate": 2, "decided_reject": 1}
    stats_rebuild()
    assert totals() == kept


# ---- the change-point rule --------------------------------------------------

def _series(rates: list[tuple[int, int]], start: date = date(2026, 3, 1)) -> dict[date, DayCount]:
    return {start + timedelta(days=n): DayCount(answers, hits)
            for n, (answers, hits) in enumerate(rates)}


def test_wilson_intervals() -> None:
    assert wilson_interval(0, 10, z=1.959964) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson_interval(5, 10, z=1.959964) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    # The rule's default: 99 % (computed by hand from the Wilson formula).
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.3989), abs=1e-4)
    assert wilson_interval(5, 10) == pytest.approx((0.1842, 0.8158), abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_a_real_step_is_flagged_on_its_first_day_only() -> None:
    days = _series([(20, 1)] * BASELINE_DAYS + [(20, 8), (20, 9), (20, 2), (20, 8)])
    step = date(2026, 3, 1) + timedelta(days=BASELINE_DAYS)
    found = compare_series(days, [step + timedelta(days=n) for n in range(4)])
    assert [(c.direction, c.starts_change) for c in found] == [
        (1, True), (1, False), (0, False), (1, False)]  # a noisy day does not end the change
    first = found[0]
    assert (first.answers, first.hits, first.baseline_answers, first.baseline_hits) == (
        20, 8, 20 * BASELINE_DAYS, BASELINE_DAYS)
    assert first.interval[0] > first.baseline_interval[1]


def test_a_fall_is_flagged_too() -> None:
    days = _series([(20, 10)] * BASELINE_DAYS + [(20, 0)])
    [found] = compare_series(days, [date(2026, 3, 1) + timedelta(days=BASELINE_DAYS)])
    assert (found.direction, found.starts_change) == (-1, True)


def test_noise_is_not_flagged() -> None:
    # 5 % for a fortnight, then 15 %: three answers in twenty is within range.
    days = _series([(20, 1)] * BASELINE_DAYS + [(20, 3)])
    [found] = compare_series(days, [date(2026, 3, 1) + timedelta(days=BASELINE_DAYS)])
    assert found.direction == 0 and not found.starts_change


def test_too_few_answers_on_either_side_are_not_compared() -> None:
    step = date(2026, 3, 1) + timedelta(days=BASELINE_DAYS)
    few_today = _series([(20, 1)] * BASELINE_DAYS + [(MIN_DAY_ANSWERS - 1, MIN_DAY_ANSWERS - 1)])
    assert compare_series(few_today, [step]) == []
    per_day = (MIN_BASELINE_ANSWERS - 1) // BASELINE_DAYS
    few_before = _series([(per_day, 0)] * BASELINE_DAYS + [(40, 40)])
    assert compare_series(few_before, [step]) == []
    # Days with no answers at all count as nothing, not as zero rates.
    sparse = {date(2026, 3, 1): DayCount(60, 0), step: DayCount(20, 19)}
    assert compare_series(sparse, [step])[0].direction == 1


def _model_change(surface: Surface, today: date) -> None:
    """A fortnight of model-a at 5 % fabricated markers, then model-b today at 50 %."""
    for back in range(1, BASELINE_DAYS + 1):
        _stats(today - timedelta(days=back), surface, "model-a", 20, with_fabricated=1,
               with_uncited=4)
    _stats(today, surface, "model-b", 20, with_fabricated=10, with_uncited=4)


def test_the_claim_outcomes_are_charted_exported_and_watched_for_changes(
        surfaces: dict[str, Surface], client: Any, settings: Any) -> None:
    chat, today = surfaces["chat"], _today()
    for back in range(1, BASELINE_DAYS + 1):
        _stats(today - timedelta(days=back), chat, "model-a", 20, with_claim_mismatch=1,
               with_claim_unsupported=2)
    _stats(today, chat, "model-a", 20, with_claim_mismatch=12, with_claim_unsupported=2)
    filters = TrendFilters(start=today - timedelta(days=3), end=today, surface="chat")
    export = _csv(_client_for("supervisor"), "outcomes", filters.query())
    assert [today.isoformat(), "model-a", "20", "claim-mismatch", "12", "0.6"] in export
    assert [today.isoformat(), "model-a", "20", "claim-unsupported", "2", "0.1"] in export
    page = _client_for("supervisor").get(f"/trends/?{filters.query()}").content.decode()
    assert "Claim mismatch" in page and "Claim unsupported" in page
    assert 'data-chart="outcome-claim-mismatch"' in page
    assert 'data-chart="outcome-claim-unsupported"' in page

    directions = rate_change_directions(today)
    assert directions[("chat", "*", "claim-mismatch")] == 1
    assert directions[("chat", "*", "claim-unsupported")] == 0
    metrics = client.get("/metrics", headers=_metrics_auth(settings)).content.decode()
    assert ('citeguard_rate_change{model="*",outcome="claim-mismatch",surface="chat"} 1.0'
            in metrics)


def test_the_claim_outcomes_are_counted_by_prometheus(
        surfaces: dict[str, Surface], client: Any, settings: Any) -> None:
    from prometheus_client import REGISTRY

    from reviewer.metrics import model_label

    def counted(outcome: str) -> float:
        labels = {"surface": "chat", "model": model_label("model-a"), "outcome": outcome}
        return REGISTRY.get_sample_value("citeguard_citations_total", labels) or 0.0

    before = {outcome: counted(outcome) for outcome in ("claim-mismatch", "claim-unsupported")}
    _submit(ANSWERS[6])
    _submit(ANSWERS[7])
    _submit(ANSWERS[6])
    assert counted("claim-mismatch") - before["claim-mismatch"] == 2
    assert counted("claim-unsupported") - before["claim-unsupported"] == 1
    metrics = client.get("/metrics", headers=_metrics_auth(settings)).content.decode()
    assert 'outcome="claim-mismatch",surface="chat"}' in metrics


def test_a_change_is_stored_logged_and_exposed_once(
        surfaces: dict[str, Surface], caplog: pytest.LogCaptureFixture, client: Any,
        settings: Any) -> None:
    today = _today()
    _model_change(surfaces["chat"], today)
    with caplog.at_level(logging.WARNING, logger="citeguard.alerts"):
        new = trend_alerts_check(today=today)
        again = trend_alerts_check(today=today)
        call_command("check_trends", stdout=StringIO())
    assert again == []
    [alert] = new  # model-b alone has no fortnight; all models together does
    assert (alert.model, alert.outcome, alert.day, alert.direction, alert.new_models) == (
        TrendAlert.ALL_MODELS, "fabricated-marker", today, 1, "model-b")
    assert TrendAlert.objects.count() == 1
    lines = [r for r in caplog.records if r.name == "citeguard.alerts"]
    assert len(lines) == 1 and lines[0].levelno == logging.WARNING
    logged = json.loads(lines[0].getMessage())
    assert logged["outcome"] == "fabricated-marker" and logged["surface"] == "chat"
    assert logged["model"] == "*" and logged["day"] == today.isoformat()
    assert logged["rate"] == 0.5 and logged["change"] == "rise"
    low, high = logged["baseline_interval"]
    assert low < 0.05 < high < 0.4

    assert rate_change_directions(today)[("chat", "*", "fabricated-marker")] == 1
    metrics = client.get("/metrics", headers=_metrics_auth(settings)).content.decode()
    assert ('citeguard_rate_change{model="*",outcome="fabricated-marker",surface="chat"} 1.0'
            in metrics)
    assert ('citeguard_rate_change{model="*",outcome="uncited-claim",surface="chat"} 0.0'
            in metrics)
    assert ('citeguard_rate_change{model="model-a",outcome="fabricated-marker",surface="chat"}'
            in metrics)


def test_the_page_runs_the_check_and_marks_the_step(
        surfaces: dict[str, Surface], caplog: pytest.LogCaptureFixture) -> None:
    today = _today()
    _model_change(surfaces["chat"], today)
    client = _client_for("supervisor")
    with caplog.at_level(logging.WARNING, logger="citeguard.alerts"):
        page = client.get("/trends/?surface=chat").content.decode()
        client.get("/trends/")
    assert len([r for r in caplog.records if r.name == "citeguard.alerts"]) == 1
    assert page.count('class="change-marker change-rise" data-change="fabricated-marker"') == 1
    assert "▲ 50% (was 5.0%) · new: model-b" in page
    changes = _csv(client, "changes", "surface=chat")
    assert changes[1][:8] == [today.isoformat(), "chat", "*", "fabricated-marker", "rise", "20",
                              "10", "0.5"]


# ---- the page, its filters and exports --------------------------------------

def _client_for(*roles: str) -> Any:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group
    from django.test import Client

    from reviewer.models import Workspace

    name = "-".join(roles) or "nobody"
    user, _ = get_user_model().objects.get_or_create(username=f"t-{name}")
    user.groups.set(Group.objects.filter(name__in=roles))
    # A member of every workspace (here, the one): trends pool them all.
    Workspace.objects.default().users.add(user)
    client = Client()
    client.force_login(user)
    return client


def _csv(client: Any, chart: str, query: str) -> list[list[str]]:
    response = client.get(f"/trends/export?chart={chart}&{query}")
    assert response.status_code == 200 and response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    return list(csv.reader(io.StringIO(response.content.decode())))


def test_filters_are_read_from_the_url_and_kept_in_every_link(
        surfaces: dict[str, Surface]) -> None:
    day = date(2026, 3, 2)
    _stats(day, surfaces["chat"], "model-a", 4, with_altered=1)
    _stats(day, surfaces["chat"], "model-b", 4, with_altered=2)
    _stats(day, surfaces["legal"], "model-a", 4)
    query = "surface=chat&model=model-b&start=2026-03-01&end=2026-03-03&granularity=hour"
    response = _client_for("supervisor").get(f"/trends/?{query}")
    assert response.status_code == 200
    filters = response.context["filters"]
    assert (filters.surface, filters.model, filters.start, filters.end, filters.granularity) == (
        "chat", "model-b", date(2026, 3, 1), date(2026, 3, 3), "hour")
    page = response.content.decode()
    assert '<option value="model-b" selected>' in page
    assert '<option value="chat" selected>' in page
    assert 'value="2026-03-01"' in page and '<option value="hour" selected>' in page
    assert page.count(f"?chart=outcomes&amp;{filters.query().replace('&', '&amp;')}") == 1
    assert 'data-series="model-b"' in page and 'data-series="model-a"' not in page
    assert len(filters.buckets()) == 72  # three days of hours
    # A model keeps its colour whichever models are shown.
    unfiltered = _client_for("supervisor").get(
        "/trends/?start=2026-03-01&end=2026-03-03").content.decode()

    def colour(html: str) -> str:
        return re.search(r'data-series="model-b">\s*<polyline[^>]*stroke="([^"]+)"',
                         html).group(1)  # type: ignore[union-attr]

    assert colour(page) == colour(unfiltered)
    # The export honours the same filters.
    rows = _csv(_client_for("supervisor"), "answers", query)
    assert rows == [["bucket", "model", "answers"], ["2026-03-02T09:00Z", "model-b", "4"]]


def test_unreadable_filters_fall_back_to_defaults() -> None:
    today = date(2026, 3, 31)
    filters = trend_filters_from({"start": "yesterday", "granularity": "week"}, today=today)
    assert (filters.start, filters.end, filters.granularity) == (
        date(2026, 2, 18), today, "day")  # 42 days
    swapped = trend_filters_from({"start": "2026-03-10", "end": "2026-03-01"}, today=today)
    assert (swapped.start, swapped.end) == (date(2026, 3, 1), date(2026, 3, 10))


def test_htmx_gets_only_the_charts(surfaces: dict[str, Surface]) -> None:
    response = _client_for("supervisor").get("/trends/?surface=chat",
                                              headers={"HX-Request": "true"})
    body = response.content.decode()
    assert response.status_code == 200 and body.lstrip().startswith('<div id="trend-charts"')
    assert "<html" not in body and "<form" not in body


def test_labels_are_escaped(surfaces: dict[str, Surface]) -> None:
    _stats(date(2026, 3, 2), surfaces["chat"], "<script>alert(1)</script>", 3)
    page = _client_for("supervisor").get(
        "/trends/?start=2026-03-01&end=2026-03-03").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_csv_cells_a_spreadsheet_would_run_are_quoted(surfaces: dict[str, Surface]) -> None:
    _stats(date(2026, 3, 2), surfaces["chat"], "=HYPERLINK(1)", 3)
    rows = _csv(_client_for("supervisor"), "answers", "start=2026-03-01&end=2026-03-03")
    assert rows[1] == ["2026-03-02", "'=HYPERLINK(1)", "3"]


def test_an_unknown_chart_is_a_400(surfaces: dict[str, Surface]) -> None:
    response = _client_for("supervisor").get("/trends/export?chart=nope")
    assert response.status_code == 400 and b"outcomes" in response.content


@pytest.mark.parametrize("url", ["/trends/", "/trends/export?chart=outcomes"])
def test_only_supervisors_see_trends(url: str, make_user: Any, client: Any) -> None:
    assert client.get(url).status_code == 302  # to the login page
    for name, roles, status in (("rev", ("reviewer",), 403), ("cal", ("calibrator",), 403),
                                ("none", (), 403), ("sup", ("supervisor",), 200)):
        client.force_login(make_user(name, *roles))
        response = client.get(url)
        assert response.status_code == status, (name, response.status_code)
    admin = make_user("root", is_superuser=True)
    client.force_login(admin)
    assert client.get(url).status_code == 200


def _metrics_auth(settings: Any) -> dict[str, str]:
    """/metrics is behind METRICS_TOKEN when DEBUG is off, as under pytest."""
    settings.METRICS_TOKEN = "metrics-test-token"
    return {"Authorization": "Bearer metrics-test-token"}
