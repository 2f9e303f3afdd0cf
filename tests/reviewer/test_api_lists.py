"""GET /api/v1/answers (a cursor-paginated, filtered list) and
GET /api/v1/answers/{id} by citeguard's id or the client's own."""

import datetime as dt
import json
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from reviewer.models import Answer, Surface
from reviewer.services.clients import api_client_create

pytestmark = pytest.mark.django_db

SOURCE = "Employer match vests after two years of service. Loans are not offered."
PASSING = '"Employer match vests after two years" [S1].'
FLAGGED = '"Employer match vests after three years" [S1].'
FAILING = '"Employer match vests after two years" [S9].'


def post(api: Any, answer: str, **extra: Any) -> dict[str, Any]:
    body = {"answer": answer, "sources": [{"marker": "S1", "text": SOURCE}], **extra}
    response = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()  # type: ignore[no-any-return]


def other_client() -> Client:
    _, token = api_client_create(name="other-service")
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}")


def ids(response: Any) -> list[int]:
    assert response.status_code == 200, response.content
    return [row["answer"] for row in response.json()["results"]]


def test_the_list_pages_with_a_cursor_newest_first_and_ends_with_null(api: Any) -> None:
    stored = [post(api, PASSING, id=f"a-{n}")["answer"] for n in range(5)]
    first = api.get("/api/v1/answers?limit=2").json()
    assert [r["answer"] for r in first["results"]] == stored[::-1][:2]
    assert first["next_cursor"] and first["next"].startswith("/api/v1/answers?")
    post(api, PASSING, id="a-late")  # added meanwhile: the next pages neither repeat nor skip
    second = api.get(first["next"]).json()
    third = api.get(f"/api/v1/answers?limit=2&cursor={second['next_cursor']}").json()
    assert [r["answer"] for r in second["results"] + third["results"]] == stored[::-1][2:]
    assert third["next_cursor"] is None and third["next"] is None


def test_a_list_item_is_a_summary_with_both_ids_and_created_at(api: Any) -> None:
    stored = post(api, PASSING, id="mine-1", model="gpt-x")
    (item,) = api.get("/api/v1/answers").json()["results"]
    assert item == {
        "answer": stored["answer"], "id": "mine-1", "surface": "default", "model": "gpt-x",
        "verdict": "pass", "action": "serve", "coverage": 1.0, "counts": stored["counts"],
        "review_state": "pending", "review_url": stored["review_url"],
        "url": f"/api/v1/answers/{stored['answer']}", "created_at": stored["created_at"],
    }


def test_the_list_filters_by_surface_model_verdict_and_since(api: Any) -> None:
    Surface.objects.create(name="legal", policy="flag")
    passing = post(api, PASSING, model="m-a")["answer"]
    flagged = post(api, FLAGGED, model="m-b", surface="legal")["answer"]
    failing = post(api, FAILING, model="m-b")["answer"]
    Answer.objects.filter(pk=passing).update(created=dt.datetime(2025, 1, 1, tzinfo=dt.UTC))
    assert ids(api.get("/api/v1/answers?surface=legal")) == [flagged]
    assert ids(api.get("/api/v1/answers?model=m-b")) == [failing, flagged]
    assert ids(api.get("/api/v1/answers?verdict=fail")) == [failing]
    assert ids(api.get("/api/v1/answers?verdict=flag,fail")) == [failing, flagged]
    assert ids(api.get("/api/v1/answers?verdict=flag&verdict=pass")) == [flagged, passing]
    assert ids(api.get("/api/v1/answers?model=m-b&verdict=flag")) == [flagged]
    assert ids(api.get("/api/v1/answers?since=2026-01-01")) == [failing, flagged]
    assert ids(api.get(f"/api/v1/answers?since={quote('2024-12-31T23:00:00+00:00')}")) == [
        failing, flagged, passing]
    assert ids(api.get("/api/v1/answers?since=2024-12-31T23:00:00+00:00")) == [  # '+' unencoded
        failing, flagged, passing]


def test_filters_hold_across_pages(api: Any) -> None:
    flagged = [post(api, FLAGGED)["answer"] for _ in range(3)]
    post(api, PASSING)
    first = api.get("/api/v1/answers?verdict=flag&limit=2").json()
    assert "verdict=flag" in first["next"]
    second = api.get(first["next"]).json()
    assert [r["answer"] for r in first["results"] + second["results"]] == flagged[::-1]


def test_the_list_holds_only_this_clients_answers(api: Any) -> None:
    mine = post(api, PASSING)["answer"]
    other = other_client()
    other.post("/api/v1/answers", json.dumps({"answer": PASSING, "sources": [
        {"marker": "S1", "text": SOURCE}]}), content_type="application/json")
    assert ids(api.get("/api/v1/answers")) == [mine]
    assert len(ids(other.get("/api/v1/answers"))) == 1


@pytest.mark.parametrize(("query", "code", "words"), [
    ("verdikt=fail", "unknown-parameter", "Unknown query parameter 'verdikt'"),
    ("verdict=bad", "invalid-verdict", "verdict 'bad' is not one of pass, flag, fail"),
    ("surface=nowhere", "unknown-surface", "There is no surface 'nowhere'"),
    ("since=yesterday", "invalid-since", "not an ISO 8601 date"),
    ("limit=0", "invalid-limit", "from 1 to 200"),
    ("limit=201", "invalid-limit", "from 1 to 200"),
    ("cursor=garbage", "invalid-cursor", "not one this answers list gave out"),
])
def test_bad_list_parameters_are_a_400_naming_them(
    api: Any, query: str, code: str, words: str
) -> None:
    response = api.get(f"/api/v1/answers?{query}")
    assert response.status_code == 400
    assert response.json()["error"]["code"] == code
    assert words in response.json()["error"]["message"]


def test_a_cursor_of_another_list_is_refused(api: Any) -> None:
    from reviewer.api.pagination import encode_cursor

    response = api.get(f"/api/v1/answers?cursor={encode_cursor('documents', 5)}")
    assert response.json()["error"]["code"] == "invalid-cursor"


def test_an_answer_is_found_by_the_clients_own_id(api: Any) -> None:
    stored = post(api, PASSING, id="ticket-81/answer 2")
    for path in (f"/api/v1/answers/{quote('ticket-81/answer 2', safe='')}",
                 "/api/v1/answers/ticket-81/answer%202",
                 f"/api/v1/answers/{stored['answer']}"):
        response = api.get(path)
        assert response.status_code == 200, path
        assert response.json() == api.get(f"/api/v1/answers/{stored['answer']}").json()
        assert response.json()["id"] == "ticket-81/answer 2"


def test_the_clients_id_is_scoped_to_its_token(api: Any) -> None:
    stored = post(api, PASSING, id="shared-name")
    other = other_client()
    assert other.get("/api/v1/answers/shared-name").status_code == 404
    assert other.get(f"/api/v1/answers/{stored['answer']}").status_code == 404
    theirs = other.post("/api/v1/answers", json.dumps({"id": "shared-name", "answer": FLAGGED,
                                                       "sources": [{"marker": "S1",
                                                                    "text": SOURCE}]}),
                        content_type="application/json").json()
    assert other.get("/api/v1/answers/shared-name").json()["answer"] == theirs["answer"]
    assert api.get("/api/v1/answers/shared-name").json()["answer"] == stored["answer"]


def test_a_numeric_client_id_is_found_and_an_ambiguous_one_asks_which(api: Any) -> None:
    first = post(api, PASSING, id="other")["answer"]
    numeric = post(api, PASSING, id="990001")["answer"]
    assert api.get("/api/v1/answers/990001").json()["answer"] == numeric  # no answer 990001
    clash = post(api, FLAGGED, id=str(first))["answer"]  # its id is another answer's number
    response = api.get(f"/api/v1/answers/{first}")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "ambiguous-id"
    assert "?by=answer or ?by=id" in response.json()["error"]["message"]
    assert api.get(f"/api/v1/answers/{first}?by=answer").json()["answer"] == first
    assert api.get(f"/api/v1/answers/{first}?by=id").json()["answer"] == clash
    assert api.get("/api/v1/answers/other?by=answer").status_code == 404
    assert api.get(f"/api/v1/answers/{first}?by=bogus").status_code == 400


def test_an_unknown_answer_is_a_404_naming_it(api: Any) -> None:
    response = api.get("/api/v1/answers/no-such-id")
    assert response.status_code == 404
    assert response.json()["error"]["message"] == "There is no answer no-such-id for this client."
