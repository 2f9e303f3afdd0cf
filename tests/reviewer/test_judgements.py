"""The semantic stage end to end: which answers are judged, the budget, each
backend, invented evidence discarded, a 429 retried, and the results on the
review page, in triage (with the "rungs disagree" filter) and in trends."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from reviewer.models import Answer, CitationVerdict, Judgement, Surface
from reviewer.services import judgements as stage
from reviewer.services.answers import answer_submit
from tests.judges import Reply, answer, build_tiny_nli

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_judges")]

SOURCE = ("Employer match vests after two years of service. The plan pays an annual bonus. "
          "A fee is charged on withdrawals.")
#: Three quotes, all verified: the deterministic check passes the answer.
PASSING = ('The plan says "Employer match vests after two years of service" [S1]. '
           'It says "The plan pays an annual bonus" [S1]. '
           'It notes "A fee is charged on withdrawals" [S1].')
#: The same with a marker the model was never given: flagged.
FLAGGED = PASSING + ' Bonuses are tax free [S9].'


def surface(name: str = "benefits", **fields: Any) -> Surface:
    values = {"judge_calls_per_hour": 100, "judge_sample_rate": 0.0, **fields}
    return Surface.objects.update_or_create(name=name, defaults=values)[0]


def submit(capture: Any, text: str, surface_name: str = "benefits", source: str = SOURCE,
           external_id: str = "") -> Answer:
    with capture(execute=True):
        result = answer_submit(client=None, data={
            "answer": text, "surface": surface_name, "id": external_id or None,
            "sources": [{"marker": "S1", "text": source}]})
    return result.answer


# ---- which answers --------------------------------------------------------------

def test_a_passing_answer_is_judged_only_when_sampled(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=0.0)
    skipped = submit(django_capture_on_commit_callbacks, PASSING)
    assert skipped.verdict == "pass" and not Judgement.objects.filter(answer=skipped).exists()
    assert judge_chat.requests == []
    surface(judge_sample_rate=1.0)
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    assert Judgement.objects.filter(answer=judged).count() == 3
    assert len(judge_chat.requests) == 3


def test_a_flagged_answer_and_a_high_stakes_one_are_always_judged(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=0.0)
    flagged = submit(django_capture_on_commit_callbacks, FLAGGED)
    assert flagged.verdict != "pass"
    # The fabricated marker has no passage: only the three quotes are judged.
    assert Judgement.objects.filter(answer=flagged).count() == 3
    surface("legal", high_stakes=True, judge_sample_rate=0.0)
    high_stakes = submit(django_capture_on_commit_callbacks, PASSING, "legal")
    assert high_stakes.verdict == "pass"
    assert Judgement.objects.filter(answer=high_stakes).count() == 3


def test_the_stage_is_off_without_a_budget_or_a_configured_judge(
        judge_chat: Any, settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_calls_per_hour=0, high_stakes=True)
    submit(django_capture_on_commit_callbacks, FLAGGED)
    settings.CITEGUARD_JUDGE = {**settings.CITEGUARD_JUDGE, "BACKEND": "off"}
    surface(judge_calls_per_hour=100, high_stakes=True)
    submit(django_capture_on_commit_callbacks, FLAGGED)
    assert not Judgement.objects.exists() and judge_chat.requests == []


def test_sampling_is_deterministic_per_answer_and_near_its_rate() -> None:
    picked = [stage.sampled(answer_id, 0.3) for answer_id in range(1, 4001)]
    assert picked == [stage.sampled(answer_id, 0.3) for answer_id in range(1, 4001)]
    assert 0.27 < sum(picked) / len(picked) < 0.33
    assert not any(stage.sampled(i, 0.0) for i in range(1, 200))
    assert all(stage.sampled(i, 1.0) for i in range(1, 200))


# ---- results, never the verdict ---------------------------------------------------

def test_results_are_stored_per_citation_and_the_verdict_is_untouched(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [answer("supported", "Employer match vests after two years of service."),
                      answer("contradicted", "The plan pays an annual bonus."),
                      answer("not enough information", None)]
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = {row.citation.position: row for row in Judgement.objects.filter(answer=judged)
            .select_related("citation")}
    assert [rows[p].label for p in range(3)] == ["supported", "contradicted", "not-enough-info"]
    assert rows[1].evidence == "The plan pays an annual bonus." and rows[1].evidence_verified
    assert rows[1].judge == "chat" and rows[1].model_id == "loopback-judge-1"
    assert rows[1].latency_ms is not None and rows[1].attempts == 1
    # The premise sent is the quote's sentence in the source; the hypothesis the sentence.
    sent = judge_chat.requests[1]["messages"][1]["content"]
    assert "PASSAGE:\nThe plan pays an annual bonus." in sent
    judged.refresh_from_db()
    assert judged.verdict == "pass" and judged.counts["verified"] == 3
    assert set(CitationVerdict.objects.filter(answer=judged).values_list("outcome", flat=True)
               ) == {"verified"}


def test_invented_evidence_is_recorded_and_the_models_answer_discarded(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [answer("contradicted", "Employer match vests after five years.")]
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = list(Judgement.objects.filter(answer=judged))
    assert len(rows) == 3 and {row.error for row in rows} == {"invented-evidence"}
    assert all(row.label == "" and "five years" in row.evidence for row in rows)
    # Final: a later run does not ask again.
    assert stage.judgements_pending() == []


def test_a_429_is_retried_within_the_run(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [Reply(status=429, body=b"busy", headers={"Retry-After": "0"}),
                      answer("supported")]
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    first = Judgement.objects.filter(answer=judged).order_by("citation__position").first()
    assert first is not None and first.label == "supported" and first.attempts == 2
    assert len(judge_chat.requests) == 4  # the 429, then one call per citation


def test_errors_are_recorded_and_tried_again_later(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [Reply(status=503, body=b"down")]
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = list(Judgement.objects.filter(answer=judged))
    assert {row.error for row in rows} == {"unavailable"}
    assert all(row.attempts == stage.MAX_ATTEMPTS and "HTTP 503" in row.error_message
               for row in rows)
    assert stage.judgements_pending() == [judged.pk]
    judge_chat.script[:] = [answer("supported")]
    call_command("judge_pending", stdout=(out := StringIO()))
    assert "3 judged" in out.getvalue()
    assert Judgement.objects.filter(answer=judged).exclude(label="").count() == 3
    assert stage.judgements_pending() == []


def test_a_pair_longer_than_the_surface_allows_is_not_sent_and_says_why(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0, judge_max_chars=40)
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = list(Judgement.objects.filter(answer=judged))
    assert {row.error for row in rows} == {"too-long"} and judge_chat.requests == []
    assert "at most 40 per call" in rows[0].error_message


# ---- the budget -----------------------------------------------------------------

def test_the_calls_per_hour_hold_and_the_rest_waits_for_a_later_run(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    benefits = surface(judge_sample_rate=1.0, judge_calls_per_hour=2)
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = list(Judgement.objects.filter(answer=judged).order_by("citation__position"))
    assert [row.label or row.error for row in rows] == ["supported", "supported", "over-budget"]
    assert len(judge_chat.requests) == 2 and stage.surface_calls_last_hour(benefits) == 2
    # Another answer in the same hour: nothing is sent, all of it waits.
    second = submit(django_capture_on_commit_callbacks, PASSING, external_id="second")
    assert set(Judgement.objects.filter(answer=second).values_list("error", flat=True)
               ) == {"over-budget"}
    assert len(judge_chat.requests) == 2
    assert stage.judgements_pending() == sorted([judged.pk, second.pk])
    # An hour later the budget is back: the waiting citations are judged, two per hour.
    Judgement.objects.update(created=timezone.now() - timedelta(hours=2))
    call_command("judge_pending", stdout=(out := StringIO()))
    assert "2 judged, 2 still waiting" in out.getvalue()
    assert len(judge_chat.requests) == 4
    assert Judgement.objects.filter(answer=judged).exclude(label="").count() == 3


# ---- the ONNX backend, through the task ----------------------------------------------

def test_the_onnx_backend_judges_through_the_same_task(
        settings: Any, tmp_path: Path, django_capture_on_commit_callbacks: Any) -> None:
    folder = build_tiny_nli(tmp_path / "tiny-nli", max_tokens=256)
    settings.CITEGUARD_JUDGE = {"BACKEND": "onnx", "MODEL_DIR": str(folder), "URL": "",
                                "MODEL": "", "API_KEY_ENV": ""}
    surface(judge_sample_rate=1.0)
    text = ('The plan says "Employer match vests after two years of service" [S1]. '
            'Employer match does not vest for two years of service [S1].')
    judged = submit(django_capture_on_commit_callbacks, text)
    rows = {row.citation.position: row for row in Judgement.objects.filter(answer=judged)
            .select_related("citation")}
    assert rows[0].judge == "onnx" and rows[0].model_id.startswith("tiny-nli@")
    assert rows[0].label == "supported" and rows[1].label == "contradicted"
    assert set(rows[0].scores) == {"supported", "not-enough-info", "contradicted"}


def test_a_missing_key_variable_is_recorded_as_a_setup_error(
        judge_chat: Any, settings: Any, django_capture_on_commit_callbacks: Any) -> None:
    settings.CITEGUARD_JUDGE = {**settings.CITEGUARD_JUDGE,
                                "API_KEY_ENV": "CITEGUARD_TEST_NO_SUCH_KEY"}
    surface(judge_sample_rate=1.0)
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    rows = list(Judgement.objects.filter(answer=judged))
    assert {row.error for row in rows} == {"setup"} and judge_chat.requests == []
    assert "CITEGUARD_TEST_NO_SUCH_KEY" in rows[0].error_message


# ---- where people see it ----------------------------------------------------------------

def _contradicted_and_supported(judge_chat: Any, capture: Any) -> tuple[Answer, Answer]:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [answer("contradicted")]
    disputed = submit(capture, PASSING, external_id="disputed")
    judge_chat.script[:] = [answer("supported")]
    agreed = submit(capture, PASSING, external_id="agreed")
    return disputed, agreed


def test_the_review_panel_shows_the_models_layer(
        judge_chat: Any, logged_in: Any, django_capture_on_commit_callbacks: Any) -> None:
    disputed, _ = _contradicted_and_supported(judge_chat, django_capture_on_commit_callbacks)
    citation = CitationVerdict.objects.filter(answer=disputed).order_by("position").first()
    assert citation is not None
    html = logged_in.get(f"/answers/{disputed.pk}/?citation={citation.pk}",
                         headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in html
    assert "model: contradicted" in html
    assert "chat, loopback-judge-1, evidence quote verified" in html
    assert ('<blockquote class="model-evidence">Employer match vests after two years of '
            'service.</blockquote>') in html
    # Its own layer: the deterministic badge still says verified.
    assert "badge-verified" in html
    full = logged_in.get(f"/answers/{disputed.pk}/?citation={citation.pk}").content.decode()
    assert "model: contradicted" in full and "Verdict: Pass" in full


def test_the_review_panel_says_when_the_model_could_not_judge(
        judge_chat: Any, logged_in: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0)
    judge_chat.script[:] = [answer("supported", "Invented words not in the passage at all.")]
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    citation = CitationVerdict.objects.filter(answer=judged).first()
    assert citation is not None
    html = logged_in.get(f"/answers/{judged.pk}/?citation={citation.pk}",
                         headers={"HX-Request": "true"}).content.decode()
    assert "model: not judged" in html and "invented evidence" in html
    assert "model: supported" not in html


def test_triage_shows_the_model_column_and_filters_where_the_rungs_disagree(
        judge_chat: Any, logged_in: Any, django_capture_on_commit_callbacks: Any) -> None:
    disputed, agreed = _contradicted_and_supported(judge_chat, django_capture_on_commit_callbacks)
    html = logged_in.get("/triage/?state=any").content.decode()
    assert f'data-answer="{disputed.pk}"' in html and f'data-answer="{agreed.pk}"' in html
    assert "model: contradicted" in html and "model: supported" in html
    filtered = logged_in.get("/triage/?state=any&disagree=1").content.decode()
    assert f'data-answer="{disputed.pk}"' in filtered
    assert f'data-answer="{agreed.pk}"' not in filtered
    assert "1 answer<" in filtered and 'name="disagree" value="1" checked' in filtered


def test_a_flagged_citation_the_model_supports_is_a_disagreement_too(
        judge_chat: Any, logged_in: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=0.0)
    altered = ('The plan says "Employer match vests after three years of service" [S1].')
    judge_chat.script[:] = [answer("supported", "Employer match vests after two years of service.")]
    flagged = submit(django_capture_on_commit_callbacks, altered)
    assert flagged.verdict != "pass"
    assert Judgement.objects.get(answer=flagged).label == "supported"
    filtered = logged_in.get("/triage/?disagree=1").content.decode()
    assert f'data-answer="{flagged.pk}"' in filtered


def test_trends_count_judgements_per_judge_and_label(
        judge_chat: Any, client: Any, make_user: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    _contradicted_and_supported(judge_chat, django_capture_on_commit_callbacks)
    client.force_login(make_user("sup", "supervisor"))
    html = client.get("/trends/").content.decode()
    assert "Model judgements" in html
    assert ("<td>chat</td><td>loopback-judge-1</td><td>3</td><td>3</td><td>0</td><td>0</td>"
            "<td>0</td>") in html


def test_re_verifying_keeps_the_judgements_and_their_calls_count_against_the_budget(
        judge_chat: Any, django_capture_on_commit_callbacks: Any) -> None:
    surface(judge_sample_rate=1.0, judge_calls_per_hour=5)
    judged = submit(django_capture_on_commit_callbacks, PASSING)
    assert Judgement.objects.filter(answer=judged).count() == 3
    # What a re-verification that changes the report does to the old rows.
    CitationVerdict.objects.filter(answer=judged).delete()
    kept = Judgement.objects.filter(answer=judged)
    assert kept.count() == 3  # history, not deleted with the rows they judged
    assert sorted(kept.values_list("citation_position", flat=True)) == [0, 1, 2]
    assert not kept.filter(citation__isnull=False).exists()
    assert stage.surface_calls_last_hour(Surface.objects.get(name="benefits")) == 3
    # They wait for nothing, and no triage row reads them as the answer's state.
    assert judged.pk not in stage.judgements_pending()
    from reviewer.selectors.judgements import judgement_summaries
    assert judgement_summaries([judged.pk]) == {}
