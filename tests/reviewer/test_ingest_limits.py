"""An upload or an inline PDF past an ingestion limit fails naming the limit:
the document is ``failed`` with the sentence, the API answers 413."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from reviewer.models import Document
from reviewer.services.documents import document_upload
from tests.ingestion import hostile


@pytest.mark.django_db
def test_an_upload_over_a_limit_fails_naming_it(settings: Any,
                                                django_capture_on_commit_callbacks: Any) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_CHARS_PER_PAGE": 50_000}
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=hostile.glyph_bomb(200_000),
                                   filename="bomb.pdf").document
    document.refresh_from_db()
    assert (document.status, document.error_kind) == (Document.Status.FAILED, "page-chars")
    assert "the limit is 50,000 a page" in document.error


def _inline_answer(pdf_bytes: bytes) -> dict[str, Any]:
    pdf = base64.b64encode(pdf_bytes).decode()
    return {
        "format": "anthropic",
        "request": {"messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                            "data": pdf}, "citations": {"enabled": True}},
            {"type": "text", "text": "What is drawn?"}]}]},
        "response": {"content": [{"type": "text", "text": "Glyphs."}]},
    }


@pytest.mark.django_db
def test_an_inline_pdf_over_a_limit_is_a_413(client: Any, api_token: str, settings: Any) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_CHARS_PER_PAGE": 50_000}
    response = client.post("/api/v1/answers", _inline_answer(hostile.glyph_bomb(200_000)),
                           content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 413
    error = response.json()
    assert "inline-pdf-over-limit" in str(error)
    assert "the limit is 50,000 a page" in str(error)


@pytest.mark.django_db
def test_an_inline_pdf_has_the_requests_time_not_an_uploads(
        client: Any, api_token: str, settings: Any) -> None:
    """An upload may take minutes in a worker; an inline PDF is extracted inside
    the request and gets its own, shorter limit."""
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_SECONDS_PER_DOCUMENT": 300,
                          "MAX_SECONDS_PER_INLINE_PDF": 0.05}
    response = client.post("/api/v1/answers", _inline_answer(hostile.dense_pages(300)),
                           content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 413
    assert "inline-pdf-over-limit" in str(response.json())
