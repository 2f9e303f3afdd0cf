"""POST /api/v1/answers: inline verification, policies, idempotency, limits, auth."""

import copy
import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings

from reviewer.models import Answer, AnswerSource, CitationVerdict, SentenceVerdict, Surface

pytestmark = pytest.mark.django_db

SOURCE = ("Employer  match vests after\ntwo years of ser-\nvice. Loans are not offered to staff "
          "on probation.")
MIXED = ('Here is what the plan says.\nThe plan says "Employer match vests after two years" '
         '[S1]. Vision care is covered in full [S9]. Loans are offered to all staff.\n'
         "Is there anything else?")


def post(api: Any, body: Any, **extra: Any) -> Any:
    return api.post("/api/v1/answers", json.dumps(body), content_type="application/json",
                    **extra)


def native(answer: str, **extra: Any) -> dict[str, Any]:
    return {"answer": answer, "sources": [{"marker": "S1", "text": SOURCE}], **extra}


@pytest.fixture
def surfaces(db: None) -> dict[str, Surface]:
    return {policy: Surface.objects.create(name=f"{policy}-surface", policy=policy)
            for policy in ("strip", "regenerate", "flag", "escalate")}


def test_a_passing_answer_is_served_and_everything_is_stored(api: Any) -> None:
    response = post(api, native('It says "Employer match vests after two years" [S1].',
                                id="q-1", model="gpt-x", question="When do I vest?"))
    assert response.status_code == 201
    body = response.json()
    assert (body["verdict"], body["action"]) == ("pass", "serve")
    assert body["served_answer"] == 'It says "Employer match vests after two years" [S1].'
    assert body["correction"] == ""
    assert body["review_url"] == f"/answers/{body['answer']}/"
    citation = body["sentences"][0]["citations"][0]
    assert citation["outcome"] == "verified"
    assert SOURCE[citation["chunk_start"]:citation["chunk_end"]].startswith("Employer  match")
    answer = Answer.objects.get(pk=body["answer"])
    assert (answer.external_id, answer.model, answer.question) == ("q-1", "gpt-x",
                                                                    "When do I vest?")
    assert answer.surface is not None and answer.surface.name == "default"
    (source,) = AnswerSource.objects.filter(answer=answer)
    assert (source.marker, source.text) == ("S1", SOURCE)  # the snapshot as injected
    assert CitationVerdict.objects.get(answer=answer).outcome == "verified"
    assert api.get(response["Location"]).json() == body  # GET gives the same result


def test_strip_removes_failing_sentences_and_keeps_the_rest(
    api: Any, surfaces: dict[str, Surface]
) -> None:
    body = post(api, native(MIXED, surface="strip-surface")).json()
    assert body["verdict"] == "fail" and body["action"] == "strip"
    assert body["served_answer"] == (
        'Here is what the plan says.\nThe plan says "Employer match vests after two years" '
        "[S1].\nIs there anything else?"
    )


def test_regenerate_names_each_failure_in_the_correction(
    api: Any, surfaces: dict[str, Surface]
) -> None:
    answer = MIXED + ' It says "Loans are offered to staff on probation" [S1].'
    body = post(api, native(answer, surface="regenerate-surface")).json()
    assert body["action"] == "regenerate" and body["served_answer"] == ""
    correction = body["correction"]
    assert "marker [S9] was not among the sources" in correction
    assert "makes a claim without a marker" in correction  # "Loans are offered to all staff."
    assert "“Loans are offered to staff on probation” changes what [S1] says" in correction
    assert "it leaves out “not”" in correction


def test_flag_serves_the_answer_as_it_was(api: Any, surfaces: dict[str, Surface]) -> None:
    body = post(api, native(MIXED, surface="flag-surface")).json()
    assert body["action"] == "flag" and body["served_answer"] == MIXED
    assert body["correction"]  # still explains what failed, for the interface


def test_escalate_serves_nothing(api: Any, surfaces: dict[str, Surface]) -> None:
    body = post(api, native(MIXED, surface="escalate-surface")).json()
    assert body["action"] == "escalate" and body["served_answer"] == ""


def test_surface_threshold_and_quote_requirement_apply(api: Any) -> None:
    Surface.objects.create(name="strict", threshold=1.0, require_quotes=True)
    body = post(api, native('"Employer match vest after two years" [S1]. Vesting is '
                            "explained there [S1].", surface="strict")).json()
    assert body["threshold"] == 1.0
    outcomes = [c["outcome"] for s in body["sentences"] for c in s["citations"]]
    assert outcomes == ["quote-not-found", "unquoted"]
    assert any("requires quotes" in reason for reason in body["reasons"])


def test_unknown_surface_is_a_400_listing_the_known_ones(
    api: Any, surfaces: dict[str, Surface]
) -> None:
    response = post(api, native("x", surface="nope"))
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "unknown-surface" and "strip-surface" in error["message"]


def test_the_same_id_and_body_again_returns_the_stored_result(api: Any) -> None:
    body = native('"Employer match vests after two years" [S1].', id="dup", model="m")
    first = post(api, body)
    # The same body in another key order and layout is the same request.
    reordered = json.dumps(dict(reversed(list(body.items()))), indent=2)
    again = api.post("/api/v1/answers", reordered, content_type="application/json")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert Answer.objects.count() == 1


@pytest.mark.parametrize("change", [
    {"answer": "A different text this time [S1]."},
    {"model": "another-model"},
    {"sources": [{"marker": "S1", "text": SOURCE + " One more sentence."}]},
])
def test_the_same_id_with_another_body_is_a_409_not_the_old_result(
    api: Any, change: dict[str, Any]
) -> None:
    body = native('"Employer match vests after two years" [S1].', id="dup", model="m")
    first = post(api, body)
    again = post(api, {**body, **change})
    assert (first.status_code, again.status_code) == (201, 409)
    error = again.json()["error"]
    assert error["code"] == "id-conflict"
    assert "'dup' was already submitted with a different body" in error["message"]
    assert f"answer {first.json()['answer']}" in error["message"]
    assert "answer" not in again.json() and Answer.objects.count() == 1
    assert post(api, body).status_code == 200  # the original body still replays


def test_an_answer_stored_before_bodies_were_hashed_still_replays(api: Any) -> None:
    first = post(api, native("x [S1].", id="legacy"))
    Answer.objects.update(request_sha256="")
    again = post(api, native("y [S1].", id="legacy"))
    assert again.status_code == 200 and again.json()["answer"] == first.json()["answer"]


def test_the_stored_id_is_found_through_the_unique_index(api: Any) -> None:
    """Every POST looks its id up first: a scan of the client's answers would
    make each submission slower than the one before."""
    post(api, native("x [S1].", id="indexed"))
    stored = Answer.objects.get()
    lookup = Answer.objects.submitted_as(stored.client, "indexed")
    assert list(lookup) == [stored]
    assert not Answer.objects.submitted_as(stored.client, "").exists()
    # The client's other answers, and the table's statistics: on an empty
    # table PostgreSQL's costs tie, and any index over the answers will do.
    others = []
    for number in range(300):
        stored.pk, stored.external_id = None, f"other-{number}"
        others.append(copy.copy(stored))
    Answer.objects.bulk_create(others)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":  # ask whether it can, not whether it would
            cursor.execute("ANALYZE reviewer_answer")
            cursor.execute("SET LOCAL enable_seqscan = off")
        plan = lookup.explain()
    assert "answer_external_id_unique_per_client" in plan, plan


def test_ids_are_scoped_per_client(api: Any, client: Any) -> None:
    from reviewer.services.clients import api_client_create

    _, other = api_client_create(name="other-service")
    post(api, native("x [S1].", id="same"))
    response = client.post("/api/v1/answers", json.dumps(native("x [S1].", id="same")),
                           content_type="application/json",
                           HTTP_AUTHORIZATION=f"Bearer {other}")
    assert response.status_code == 201
    assert Answer.objects.count() == 2
    # and one client cannot read the other's answers
    assert client.get(f"/api/v1/answers/{response.json()['answer']}",
                      HTTP_AUTHORIZATION=f"Bearer {other}").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_two_identical_submissions_at_once_store_one_answer(api_token: str) -> None:
    from django.test import Client

    if connection.vendor == "sqlite":
        pytest.skip("SQLite serialises writers; the race needs PostgreSQL (CI runs it there)")
    barrier = threading.Barrier(2)
    results: list[tuple[int, int]] = []

    def submit() -> None:
        local = Client(HTTP_AUTHORIZATION=f"Bearer {api_token}")
        barrier.wait()
        response = local.post("/api/v1/answers",
                              json.dumps(native('"Employer match vests" [S1].', id="race")),
                              content_type="application/json")
        results.append((response.status_code, response.json()["answer"]))
        connection.close()

    threads = [threading.Thread(target=submit) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(code for code, _ in results) == [200, 201]
    assert len({answer for _, answer in results}) == 1
    assert Answer.objects.count() == 1


def test_a_failure_mid_save_leaves_nothing(api: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from reviewer.services import answers as service

    real_insert = service.insert_rows
    sentences_before_failure = []

    def fail_on_citations(model: Any, rows: Any, **kwargs: Any) -> Any:
        if model is CitationVerdict:
            sentences_before_failure.append(SentenceVerdict.objects.count())
            raise RuntimeError("disk full")
        return real_insert(model, rows, **kwargs)

    monkeypatch.setattr(service, "insert_rows", fail_on_citations)
    response = post(api, native('"Employer match vests after two years" [S1].'))
    assert sentences_before_failure == [1]  # it failed mid-save, with rows already written
    assert response.status_code == 500
    assert "nothing was stored" in response.json()["error"]["message"]
    assert not Answer.objects.exists()
    assert not SentenceVerdict.objects.exists() and not AnswerSource.objects.exists()


@pytest.mark.parametrize(
    ("body", "content_type", "status", "code"),
    [
        ("{not json", "application/json", 400, "malformed-json"),
        ("[1, 2]", "application/json", 400, "invalid-payload"),
        ('{"answer": "x"}', "application/json", 400, "invalid-payload"),
        ("answer=x", "application/x-www-form-urlencoded", 415, "unsupported-media-type"),
        ('{"answer": "x", "sources": [{"marker": "S1", "chunk": 99999}]}', "application/json",
         400, "invalid-source"),
    ],
)
def test_bad_bodies_are_clear_4xx(api: Any, body: str, content_type: str, status: int,
                                  code: str) -> None:
    response = api.post("/api/v1/answers", body, content_type=content_type)
    assert response.status_code == status
    assert response.json()["error"]["code"] == code
    assert response.json()["error"]["message"]
    assert not Answer.objects.exists()


@pytest.mark.parametrize(
    ("limit", "body", "code", "words"),
    [
        ("MAX_PAYLOAD_BYTES", native("x" * 2000), "payload-too-large", "limit is 1000 bytes"),
        ("MAX_SOURCES", {"answer": "x", "sources": [{"marker": f"S{i}", "text": "t"}
                                                     for i in range(5)]},
         "too-many-sources", "5 sources; the limit is 3"),
        ("MAX_ANSWER_CHARS", native("y" * 500), "answer-too-long",
         "500 characters; the limit is 100"),
        ("MAX_SOURCE_CHARS", {"answer": "x", "sources": [{"marker": "S1", "text": "z" * 500}]},
         "source-too-long", "Source [S1] is 500 characters"),
    ],
)
def test_each_limit_is_a_413_naming_it(api: Any, limit: str, body: Any, code: str,
                                       words: str) -> None:
    from django.conf import settings

    value = {"MAX_PAYLOAD_BYTES": 1000, "MAX_SOURCES": 3, "MAX_ANSWER_CHARS": 100,
             "MAX_SOURCE_CHARS": 100}[limit]
    with override_settings(CITEGUARD={**settings.CITEGUARD, limit: value}):
        response = post(api, body)
    assert response.status_code == 413
    assert response.json()["error"]["code"] == code
    assert words in response.json()["error"]["message"]


def test_answers_need_a_valid_token(client: Any, api_token: str) -> None:
    assert client.post("/api/v1/answers", "{}", content_type="application/json"
                       ).status_code == 401
    assert client.post("/api/v1/answers", "{}", content_type="application/json",
                       HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    from reviewer.models import ApiClient

    ApiClient.objects.get().revoke()
    response = client.post("/api/v1/answers", json.dumps(native("x")),
                           content_type="application/json",
                           HTTP_AUTHORIZATION=f"Bearer {api_token}")
    assert response.status_code == 401 and response.json()["error"]["code"] == "revoked-token"


def test_hostile_html_is_stored_and_returned_as_text(api: Any) -> None:
    hostile = '<script>alert(1)</script><img src=x onerror="alert(2)"> It vests [S1].'
    body = post(api, native(hostile)).json()
    assert body["sentences"][0]["text"].startswith("<script>")
    assert Answer.objects.get().text == hostile


def test_every_check_is_logged_and_counted(api: Any, caplog: pytest.LogCaptureFixture,
                                           client: Any, settings: Any) -> None:
    with caplog.at_level("INFO", logger="citeguard.checks"):
        post(api, native("Vision is covered [S9].", model="model-b"))
    (record,) = [r for r in caplog.records if r.name == "citeguard.checks"]
    line = json.loads(record.getMessage())
    # A fabricated marker cites nothing: the claim is uncited, as coverage says.
    assert line["counts"] == {"fabricated-marker": 1, "uncited-claim": 1}
    assert (line["model"], line["surface"], line["verdict"]) == ("model-b", "default", "fail")
    metrics = client.get("/metrics", headers=_metrics_auth(settings)).content.decode()
    assert ('citeguard_citations_total{model="model-b",outcome="fabricated-marker",'
            'surface="default"}') in metrics
    assert "citeguard_verification_seconds_bucket" in metrics
    assert 'citeguard_uncited_claims_total{model="model-b",surface="default"} 1.0' in metrics


def test_a_claim_with_only_an_unattributed_quote_is_an_uncited_claim_everywhere(
    api: Any, client: Any, settings: Any
) -> None:
    body = post(api, native('It says "Employer match vests after two years".',
                            model="model-unattributed")).json()
    assert body["sentences"][0]["status"] == "unattributed-quote"
    assert (body["claims"], body["attributed_claims"], body["coverage"]) == (1, 0, 0.0)
    assert body["counts"]["uncited-claim"] == 1
    metrics = client.get("/metrics", headers=_metrics_auth(settings)).content.decode()
    assert ('citeguard_uncited_claims_total{model="model-unattributed",surface="default"} 1.0'
            in metrics)


def test_anthropic_format_is_converted_and_its_citations_rechecked(api: Any) -> None:
    document = ("Employees become eligible for the retirement plan after 30 days of service. "
                "Employer match vests after two years of service.")
    body = {
        "format": "anthropic", "id": "anthropic-1",
        "request": {"model": "claude-x", "max_tokens": 512, "messages": [{"role": "user",
            "content": [{"type": "document", "source": {"type": "text",
                         "media_type": "text/plain", "data": document},
                         "title": "Plan summary", "citations": {"enabled": True}},
                        {"type": "text", "text": "When does the match vest?"}]}]},
        "response": {"id": "msg_01", "type": "message", "role": "assistant",
                     "model": "claude-x", "stop_reason": "end_turn", "content": [
            {"type": "text", "text": "According to the plan, "},
            {"type": "text", "text": "the match vests after three years",
             "citations": [{"type": "char_location",
                            "cited_text": "Employer match vests after three years of service.",
                            "document_index": 0, "document_title": "Plan summary",
                            "start_char_index": 77, "end_char_index": 127}]},
            {"type": "text", "text": "."}]},
    }
    response = post(api, body)
    assert response.status_code == 201, response.content
    result = response.json()
    outcomes = [c["outcome"] for s in result["sentences"] for c in s["citations"]]
    assert "quote-altered" in outcomes  # the vendor's cited_text was checked, not trusted
    answer = Answer.objects.get(pk=result["answer"])
    assert (answer.input_format, answer.model) == ("anthropic", "claude-x")
    assert answer.question == "When does the match vest?"


def test_openai_format_reports_that_quotes_were_unavailable(api: Any) -> None:
    text = "Employer match vests after two years of service."
    body = {
        "format": "openai",
        "request": {"model": "gpt-x", "input": "When does the match vest?",
                    "tools": [{"type": "file_search", "vector_store_ids": ["vs_1"]}],
                    "include": ["file_search_call.results"]},
        "response": {"id": "resp_1", "object": "response", "model": "gpt-x", "output": [
            {"type": "file_search_call", "id": "fs_1", "status": "completed",
             "queries": ["vesting"], "results": [
                 {"file_id": "file-abc", "filename": "plan.pdf", "score": 0.9, "text": text,
                  "attributes": {}}]},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "The match vests after two years.",
                          "annotations": [{"type": "file_citation", "file_id": "file-abc",
                                           "filename": "plan.pdf", "index": 32}]}]}]},
    }
    result = post(api, body).json()
    assert [c["outcome"] for s in result["sentences"] for c in s["citations"]] == ["unquoted"]
    assert any("quotes were not available" in note for note in result["notes"])


def test_one_name_per_meaning_created_at_is_the_time(api: Any) -> None:
    body = post(api, native("x [S1].", id="t-1")).json()
    assert "created" not in body and body["created_at"].startswith("20")
    assert api.get(f"/api/v1/answers/{body['answer']}").json()["created_at"] == body["created_at"]


def _metrics_auth(settings: Any) -> dict[str, str]:
    """/metrics is behind METRICS_TOKEN when DEBUG is off, as under pytest."""
    settings.METRICS_TOKEN = "metrics-test-token"
    return {"Authorization": "Bearer metrics-test-token"}
