"""Bad input the schema fuzzing of issue 14 found answered with 500s: each is
now a 4xx with the API's JSON error, the same on SQLite and PostgreSQL, and
nothing is stored."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reviewer.models import Answer

pytestmark = pytest.mark.django_db

OK_SOURCE = [{"marker": "S1", "text": "Employer match vests after two years."}]


def _answer(**fields: Any) -> str:
    return json.dumps({"answer": 'It says "Employer match vests" [S1].', "sources": OK_SOURCE,
                       **fields})


@pytest.mark.parametrize(("body", "status", "code", "words"), [
    ('{"answer": "x \\ud800 [S1].", "sources": []}', 400, "invalid-text",
     "$.answer contains a lone surrogate"),
    ('{"answer": "x", "sources": [{"marker": "S1", "text": "a\\u0000b"}]}', 400,
     "invalid-text", "$.sources[0].text contains a NUL"),
    ('{"answer": "x", "sources": [], "\\udc00": 1}', 400, "invalid-text", "(a key)"),
    ('{"answer": "x", "sources": [], "n": 9223372036854775808}', 400,
     "integer-out-of-range", "$.n is outside"),
    ('{"answer": "x", "sources": ' + "[" * 2000 + "]" * 2000 + "}", 400, "json-too-deep",
     "64 levels"),
    ('{"answer": "x", "sources": ' + "[" * 100 + "]" * 100 + "}", 400, "json-too-deep",
     "64 levels (at $.sources"),
    (_answer(id="i" * 201), 400, "id-too-long", "201 characters; the limit is 200"),
    (_answer(model="m" * 201), 400, "model-too-long", "the limit is 200"),
    (json.dumps({"answer": "x [S1].", "sources": [{"marker": "M" * 30, "text": "x"}]}), 400,
     "marker-too-long", "30 characters"),
])
def test_bad_answer_payloads_are_4xx_json(client: Any, api_token: str, body: str,
                                          status: int, code: str, words: str) -> None:
    response = client.post("/api/v1/answers", body, content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code and words in error["message"], error
    assert not Answer.objects.exists()


def test_the_limits_themselves_are_accepted(client: Any, api_token: str) -> None:
    body = json.dumps({"id": "i" * 200, "model": "m" * 200, "answer": "x [S1].",
                       "sources": [{"marker": "S" * 20, "text": "x"}], "n": 2**63 - 1})
    response = client.post("/api/v1/answers", body, content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 201, response.content


def test_multipart_without_a_boundary_is_a_400(client: Any, api_token: str) -> None:
    response = client.post("/api/v1/documents", b"--x\r\n", content_type="multipart/form-data",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed-multipart"


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_unknown_api_paths_answer_json_404(client: Any, api_token: str, method: str) -> None:
    response = getattr(client, method)("/api/v1/answer/1/nope",
                                       headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"]["code"] == "not-found"


@pytest.mark.parametrize(("title", "stored"), [
    ("a\x00b", "a b"), ("Plan\ud800 2026", "Plan 2026"), ("  x\t\ny  ", "x y"),
    ("\x00", "Untitled"), ("t" * 300, "t" * 300),
])
def test_a_title_is_cleaned_to_text_every_database_stores(text_pdf: Any, title: str,
                                                           stored: str) -> None:
    from reviewer.services.documents import document_upload

    document = document_upload(data=text_pdf(f"Body of {title[:5]!r}."), filename="x.pdf",
                               title=title).document
    document.refresh_from_db()
    assert document.title == stored


def test_a_nul_in_an_uploaded_title_is_not_a_500(client: Any, api_token: str,
                                                 text_pdf: Any) -> None:
    from django.core.files.uploadedfile import SimpleUploadedFile

    upload = SimpleUploadedFile("x.pdf", text_pdf("Hello there."), "application/pdf")
    response = client.post("/api/v1/documents", {"file": upload, "title": "a\x00b"},
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code in (201, 202), response.content
    assert response.json()["title"] == "a b"


@pytest.mark.parametrize("url", [
    "/api/v1/documents?q=%00", "/api/v1/documents?document_key=a%00",
    "/api/v1/answers?model=%00", "/api/v1/answers?surface=%00", "/api/v1/answers/a%00b",
    "/api/v1/answers?%00=1",
])
def test_a_nul_in_the_query_or_path_is_a_400(api: Any, url: str) -> None:
    """Found by bin/fuzz-api: PostgreSQL cannot compare a NUL either (a 500 there)."""
    response = api.get(url)
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "invalid-text" and "NUL" in error["message"], error


@pytest.mark.parametrize("since", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00%2B01:00"])
def test_a_since_outside_the_utc_calendar_is_a_400(api: Any, since: str) -> None:
    for url in ("/api/v1/answers", "/api/v1/documents"):
        response = api.get(f"{url}?since={since}")
        assert response.status_code == 400, response.content
        assert "years 1 to 9999" in response.json()["error"]["message"]


def test_a_since_offset_past_16_hours_is_read_in_utc(api: Any) -> None:
    """Found by bin/fuzz-api: PostgreSQL refuses an offset of -22:24 (a 500 there)."""
    api.post("/api/v1/answers", _answer(), content_type="application/json")
    for url in ("/api/v1/answers", "/api/v1/documents"):
        assert api.get(f"{url}?since=1005-06-03T03:53:34-22:24").status_code == 200
    answers = api.get("/api/v1/answers?since=2000-01-01T23:00:00-23:59").json()["results"]
    assert len(answers) == 1  # 2000-01-02T22:59Z, long before the answer


@pytest.mark.parametrize("notes", [5, None, "ab", {"a": 1}])
def test_a_native_body_s_notes_are_not_taken(api: Any, notes: Any) -> None:
    """Notes are what converting a vendor format noticed; 5 or null here was a 500."""
    response = api.post("/api/v1/answers", _answer(notes=notes), content_type="application/json")
    assert response.status_code == 201, response.content
    assert response.json()["notes"] == []
    assert Answer.objects.get().notes == []


def test_a_line_break_in_an_api_path_is_json(api: Any) -> None:
    """Django's path converter stops at a line break: these fell through to HTML 404s."""
    Answer.objects.all().delete()
    created = api.post("/api/v1/answers", _answer(id="a\nb"), content_type="application/json")
    assert created.status_code == 201
    found = api.get("/api/v1/answers/a%0Ab")
    assert found.status_code == 200 and found.json()["id"] == "a\nb"
    missing = api.get("/api/v1/nope%0A")
    assert missing.status_code == 404 and missing["Content-Type"] == "application/json"


def test_an_integral_float_is_an_integer(api: Any) -> None:
    """JSON Schema's integer 3.0 (what generators send) names chunk 3, not a 400."""
    body = json.dumps({"answer": "x", "sources": [{"marker": 1.0, "chunk": 3.0}]})
    response = api.post("/api/v1/answers", body, content_type="application/json")
    assert response.json()["error"]["message"] == (
        "source [1] names chunk 3, which does not exist"), response.content


@pytest.mark.parametrize(("start", "end", "status", "says"), [
    (1000, 2**42, 413, "the limit is 200000"),  # longer than any source may be
    (2**40, None, 400, "is outside document"),
    (2**40, 2**41, 413, "the limit is 200000"),
])
def test_a_document_range_past_32_bits_is_a_4xx(api: Any, text_pdf: Any, start: int,
                                                 end: int | None, status: int, says: str,
                                                 django_capture_on_commit_callbacks: Any) -> None:
    """Found by bin/fuzz-api: PostgreSQL has no SUBSTR with a bigint argument (a 500)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    with django_capture_on_commit_callbacks(execute=True):
        document = api.post("/api/v1/documents", {"file": SimpleUploadedFile(
            "p.pdf", text_pdf("Employer match vests after two years of service. " * 40))}).json()
    source = {"marker": "S1", "document": document["id"], "start": start,
              **({"end": end} if end is not None else {})}
    response = api.post("/api/v1/answers", json.dumps({"answer": "x", "sources": [source]}),
                        content_type="application/json")
    assert response.status_code == status, response.content
    assert says in response.json()["error"]["message"]
