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
    assert detail["status"] == "ready" and detail["pages"] == 4


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
    chunks = api.get(f"/api/v1/documents/{document_id}/chunks").json()["chunks"]
    assert len(chunks) == document.chunks.count()
    for chunk in chunks:
        assert chunk["text"] == document.text[chunk["start"] : chunk["end"]]
        assert len(chunk["prompt_text"]) == len(chunk["text"])
    spanning = [c for c in chunks if c["pages"][0] != c["pages"][1]]
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
