"""The document endpoints of the API, and token authentication."""

from io import StringIO
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import override_settings

from reviewer.models import ApiClient, Document
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


def upload(api: Any, data: bytes, **fields: Any) -> Any:
    return api.post("/api/v1/documents",
                    {"file": SimpleUploadedFile("policy.pdf", data, "application/pdf"), **fields})


def test_upload_ingests_and_returns_the_document(
    api: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = upload(api, report_pdf.data, title="Travel policy")
    assert response.status_code == 202  # queued when answered; ingested after commit
    body = response.json()
    assert body["title"] == "Travel policy" and body["created"] is True
    detail = api.get(response["Location"]).json()
    assert detail["status"] == "ready" and detail["page_count"] == 4


def test_the_same_file_again_is_the_same_document(
    api: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        first = upload(api, report_pdf.data).json()
    again = upload(api, report_pdf.data)
    assert again.status_code == 200
    assert again.json()["id"] == first["id"] and again.json()["created"] is False


def test_raw_pdf_body_is_accepted(
    api: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = api.post("/api/v1/documents?title=Raw", report_pdf.data,
                            content_type="application/pdf")
    assert response.status_code == 202
    assert Document.objects.get().title == "Raw"


def test_chunks_listing_gives_ids_offsets_text_and_prompt_text(
    api: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document_id = upload(api, report_pdf.data).json()["id"]
    document = Document.objects.get(pk=document_id)
    chunks = api.get(f"/api/v1/documents/{document_id}/chunks").json()["results"]
    assert len(chunks) == document.chunks.count()
    for chunk in chunks:
        assert chunk["text"] == document.text[chunk["start"] : chunk["end"]]
        assert len(chunk["prompt_text"]) == len(chunk["text"])
    spanning = [c for c in chunks if c["page_first"] != c["page_last"]]
    assert spanning, "a chunk crosses a page break in this PDF"
    assert "Preprint, not peer reviewed" in spanning[0]["text"]
    assert "Preprint, not peer reviewed" not in spanning[0]["prompt_text"]


def test_chunks_of_a_document_that_is_not_ready_are_a_conflict(
    api: Any, report_pdf: BuiltPdf
) -> None:
    document_id = upload(api, report_pdf.data).json()["id"]  # on_commit not run: queued
    response = api.get(f"/api/v1/documents/{document_id}/chunks")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not-ready"


def test_too_large_upload_is_413_and_stores_nothing(api: Any, report_pdf: BuiltPdf) -> None:
    from django.conf import settings

    with override_settings(CITEGUARD={**settings.CITEGUARD, "MAX_UPLOAD_BYTES": 1000}):
        response = upload(api, report_pdf.data)
    assert response.status_code == 413
    assert "limit is 1000 bytes" in response.json()["error"]["message"]
    assert not Document.objects.exists()


def test_no_file_is_a_clear_400(api: Any) -> None:
    response = api.post("/api/v1/documents", {"title": "x"})
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "no-file"


def test_unknown_document_is_404(api: Any) -> None:
    response = api.get("/api/v1/documents/424242")
    assert response.status_code == 404
    assert "no document 424242" in response.json()["error"]["message"]


@pytest.mark.parametrize(
    ("header", "code"),
    [(None, "unauthenticated"), ("Bearer nope", "invalid-token"), ("Basic abc", "unauthenticated")],
)
def test_missing_or_wrong_token_is_401(client: Any, header: str | None, code: str) -> None:
    headers = {"HTTP_AUTHORIZATION": header} if header else {}
    response = client.get("/api/v1/documents/1", **headers)
    assert response.status_code == 401
    assert response.json()["error"]["code"] == code
    assert response["WWW-Authenticate"].startswith("Bearer")


def test_revoked_token_is_401(client: Any, api_token: str) -> None:
    ApiClient.objects.get().revoke()
    response = client.get("/api/v1/documents/1", HTTP_AUTHORIZATION=f"Bearer {api_token}")
    assert response.status_code == 401
    assert response.json()["error"]["code"] == "revoked-token"


def test_wrong_method_is_405_with_allow(api: Any) -> None:
    response = api.delete("/api/v1/documents/1")
    assert response.status_code == 405
    assert response["Allow"] == "GET"


def test_create_api_token_prints_a_working_token_once_and_stores_only_its_hash(
    client: Any,
) -> None:
    out, err = StringIO(), StringIO()
    call_command("create_api_token", "search-bot", stdout=out, stderr=err)
    token = out.getvalue().strip()
    assert token.startswith("cg_") and len(token) > 40
    assert "only time" in err.getvalue()
    stored = ApiClient.objects.get(name="search-bot")
    assert token not in (stored.token_hash, stored.token_hint) and len(stored.token_hash) == 64
    response = client.get("/api/v1/documents/1", HTTP_AUTHORIZATION=f"Bearer {token}")
    assert response.status_code == 404  # authenticated; the document just doesn't exist


@pytest.fixture
def leave(text_pdf: Any) -> Any:
    return lambda days: text_pdf(f"Employees may carry over {days} days of leave.")


def test_same_bytes_say_already_uploaded_and_store_no_row(api: Any, leave: Any) -> None:
    data = leave("five")
    first = upload(api, data, title="Leave").json()
    again = upload(api, data, title="Another title", document_key="hr/leave")
    assert again.status_code == 200
    body = again.json()
    assert (body["id"], body["created"], body["title"]) == (first["id"], False, "Leave")
    assert body["message"].startswith(f"Already uploaded: these bytes are document {first['id']}")
    assert Document.objects.count() == 1


def test_same_title_other_bytes_is_a_new_current_document(api: Any, leave: Any) -> None:
    first = upload(api, leave("five"), title="Leave policy").json()
    second = upload(api, leave("ten"), title="Leave policy").json()
    assert second["created"] is True and second["id"] != first["id"]
    assert (second["supersedes"], second["version"], second["document_key"]) == (None, 1, None)


def test_supersedes_and_document_key_make_versions_through_the_api(
    api: Any, leave: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        v1 = upload(api, leave("five"), document_key="hr/leave").json()
        v2 = upload(api, leave("ten"), document_key="hr/leave").json()
        v3 = api.post(f"/api/v1/documents?supersedes={v2['id']}&filename=v3.pdf", leave("twelve"),
                      content_type="application/pdf").json()
    assert [(d["document_key"], d["version"]) for d in (v1, v2, v3)] == [
        ("hr/leave", 1), ("hr/leave", 2), ("hr/leave", 3)]
    assert (v2["supersedes"], v3["supersedes"]) == (v1["id"], v2["id"])
    assert "supersedes document" in v3["message"]
    detail = api.get(f"/api/v1/documents/{v1['id']}").json()
    assert detail["superseded_by"] == v2["id"]
    listed = api.get("/api/v1/documents?document_key=hr/leave&current=true").json()["results"]
    assert [d["id"] for d in listed] == [v3["id"]]


@pytest.mark.parametrize(("fields", "status", "code"), [
    ({"supersedes": "abc"}, 400, "invalid-supersedes"),
    ({"supersedes": "424242"}, 400, "invalid-supersedes"),
    ({"document_key": "bad\tkey"}, 400, "invalid-document-key"),
    ({"supersede": "1"}, 400, "unknown-field"),
    ({"document_key": "other", "supersedes": "FIRST"}, 409, "key-mismatch"),
    ({"supersedes": "FIRST"}, 409, "not-latest-version"),
])
def test_an_upload_that_contradicts_what_is_stored_is_refused(
    api: Any, leave: Any, fields: dict[str, str], status: int, code: str
) -> None:
    first = upload(api, leave("five"), document_key="k").json()
    upload(api, leave("ten"), document_key="k")
    fields = {k: v.replace("FIRST", str(first["id"])) for k, v in fields.items()}
    response = upload(api, leave("twelve"), **fields)
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code
    assert Document.objects.count() == 2


def test_one_name_per_meaning_created_is_the_boolean_created_at_the_time(
    api: Any, leave: Any
) -> None:
    body = upload(api, leave("five")).json()
    assert body["created"] is True and body["created_at"].startswith("20")
    detail = api.get(f"/api/v1/documents/{body['id']}").json()
    assert "created" not in detail and detail["created_at"] == body["created_at"]
    assert set(body) - set(detail) == {"created", "message"}
    assert (detail["page_count"], detail["chunk_count"]) == (0, 0)  # queued


def test_the_documents_list_pages_with_a_cursor_and_filters(
    api: Any, leave: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        made = [upload(api, leave(n), title=f"Policy {n}").json()["id"] for n in range(5)]
        broken = upload(api, b"not a pdf", title="Broken").json()["id"]
    first = api.get("/api/v1/documents?status=ready&limit=3").json()
    assert [d["id"] for d in first["results"]] == made[::-1][:3]
    assert first["results"][0]["chunk_count"] == 1 and first["results"][0]["page_count"] == 1
    second = api.get(first["next"]).json()
    assert [d["id"] for d in second["results"]] == made[::-1][3:]
    assert second["next_cursor"] is None
    assert [d["id"] for d in api.get("/api/v1/documents?status=failed").json()["results"]] == [
        broken]
    assert [d["id"] for d in api.get("/api/v1/documents?q=policy 3").json()["results"]] == [
        made[3]]
    # a number is an id or part of a title ("Policy 1" when document 1 is "Policy 0")
    assert made[1] in [d["id"] for d in api.get(f"/api/v1/documents?q={made[1]}").json()[
        "results"]]
    assert [d["id"] for d in api.get(f"/api/v1/documents?q=%23{made[1]}").json()["results"]] == [
        made[1]]
    assert api.get("/api/v1/documents?since=2999-01-01").json()["results"] == []
    for query, code in (("status=done", "invalid-status"), ("current=yes", "invalid-current"),
                        ("title=x", "unknown-parameter")):
        assert api.get(f"/api/v1/documents?{query}").json()["error"]["code"] == code


def test_the_chunks_endpoint_is_paginated(
    api: Any, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        document_id = upload(api, report_pdf.data).json()["id"]
    total = Document.objects.get(pk=document_id).chunks.count()
    assert total >= 3
    seen: list[int] = []
    url = f"/api/v1/documents/{document_id}/chunks?limit=2"
    while url:
        page = api.get(url).json()
        assert page["chunk_count"] == total and len(page["results"]) <= 2
        seen += [chunk["index"] for chunk in page["results"]]
        url = page["next"]
    assert seen == list(range(total))
    assert api.get(f"/api/v1/documents/{document_id}/chunks?limit=501").status_code == 400
