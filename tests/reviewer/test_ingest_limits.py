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


@pytest.mark.django_db
def test_an_inline_pdf_over_a_limit_is_a_413(client: Any, api_token: str, settings: Any) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_CHARS_PER_PAGE": 50_000}
    pdf = base64.b64encode(hostile.glyph_bomb(200_000)).decode()
    body = {
        "format": "anthropic",
        "request": {"messages": [{"role": "user", "content": [
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf",
                                            "data": pdf}, "citations": {"enabled": True}},
            {"type": "text", "text": "What is drawn?"}]}]},
        "response": {"content": [{"type": "text", "text": "Glyphs."}]},
    }
    response = client.post("/api/v1/answers", body, content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    assert response.status_code == 413
    error = response.json()
    assert "inline-pdf-over-limit" in str(error)
    assert "the limit is 50,000 a page" in str(error)
