"""Sources read from an ingested document (a range or a chunk) obey the
source-length limit and are stored as a reference (document, range, SHA-256
of the text read) instead of a copy per answer; reading one back resolves
it and checks the hash, and a mismatch is an error that says so."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.test import override_settings

from reviewer.models import Answer, AnswerSource, Document
from reviewer.selectors.sources import SourceReferenceError
from reviewer.services.answers import answer_submit
from reviewer.services.reverify import answer_reverify
from tests.figures import figure

pytestmark = pytest.mark.django_db


def _quote(document: Document) -> str:
    chunk = document.chunks.order_by("index").first()
    assert chunk is not None
    return " ".join(chunk.text.split()[12:24])


def _whole_document(document: Document, answer_id: str = "whole") -> Answer:
    return answer_submit(client=None, data={
        "id": answer_id, "answer": f'It says "{_quote(document)}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk, "start": 0}]}).answer


def test_a_range_is_stored_as_a_reference_and_read_back_checked(document: Document) -> None:
    answer = _whole_document(document)
    assert answer.verdict == "pass"
    raw_text, chars, digest, start = AnswerSource.objects.filter(answer=answer).values_list(
        "text", "text_chars", "text_sha256", "document_start").get()
    expected = document.text[start:start + chars]
    assert raw_text == ""  # no copy of the document per answer
    assert chars == len(document.text) and digest == hashlib.sha256(
        expected.encode()).hexdigest()

    # Every way of reading the row gives the text back.
    assert answer.sources.get().text == expected
    assert Answer.objects.prefetch_related("sources").get(pk=answer.pk).sources.all()[0].text \
        == expected
    row = AnswerSource.objects.filter(answer=answer).values(
        "text", "text_chars", "text_sha256", "document_id", "document_start").get()
    assert row["text"] == expected

    # Re-verification reads the same text and reaches the same verdict.
    outcome = answer_reverify(answer=answer, threshold=0.9)
    assert outcome.verdict == "pass" and outcome.outcomes_changed == 0

    # Stored bytes per answer for this source's text: a copy before, a reference now.
    before = len(expected.encode())
    after = len(raw_text.encode()) + len(digest) + 4  # text, hash, character count
    figure(f"\nrange source of {chars} characters: {before} bytes of text stored per answer "
          f"as a copy, {after} as a reference ({before / after:.0f}x less)")
    assert after < before


def test_text_sources_keep_their_snapshot(db: None) -> None:
    answer = answer_submit(client=None, data={
        "answer": "The sky is blue [S1].", "sources": [{"marker": "S1",
                                                        "text": "The sky is blue."}]}).answer
    assert AnswerSource.objects.filter(answer=answer).values_list(
        "text", "text_sha256").get() == ("The sky is blue.", "")


@pytest.mark.parametrize("end", [None, "full"])
def test_a_range_over_the_source_limit_is_a_413(api: Any, document: Document,
                                                end: str | None) -> None:
    source: dict[str, Any] = {"marker": "S1", "document": document.pk, "start": 10}
    if end == "full":
        source["end"] = len(document.text)
    with override_settings(CITEGUARD={**settings.CITEGUARD, "MAX_SOURCE_CHARS": 500}):
        response = api.post("/api/v1/answers", json.dumps({
            "answer": "It says so [S1].", "sources": [source]}),
            content_type="application/json")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "source-too-long"
    assert f"range of {len(document.text) - 10} characters; the limit is 500" in error["message"]
    assert not Answer.objects.exists()


def test_a_range_within_the_limit_is_accepted(api: Any, document: Document) -> None:
    with override_settings(CITEGUARD={**settings.CITEGUARD, "MAX_SOURCE_CHARS": 500}):
        response = api.post("/api/v1/answers", json.dumps({
            "answer": "It says so [S1].",
            "sources": [{"marker": "S1", "document": document.pk, "start": 0, "end": 500}]}),
            content_type="application/json")
    assert response.status_code == 201


def test_a_hash_mismatch_is_a_clear_error_not_other_text(logged_in: Any,
                                                         document: Document) -> None:
    answer = _whole_document(document)
    # Change the document's text behind the model's back (the model refuses it).
    table = connection.ops.quote_name(Document._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET text = %s WHERE id = %s",
                       ["X" + document.text[1:], document.pk])
    with pytest.raises(SourceReferenceError) as raised:
        list(answer.sources.all())
    message = str(raised.value)
    assert f"source [S1] of answer {answer.pk}" in message
    assert f"document {document.pk} at [0, {len(document.text)})" in message
    assert "no longer matches what was verified" in message

    response = logged_in.get(f"/answers/{answer.pk}/")
    assert response.status_code == 500
    assert "cannot be shown as it was verified" in response.content.decode()


def test_the_migration_turns_stored_copies_into_references_and_back(document: Document
                                                                   ) -> None:
    import importlib

    from django.apps import apps

    migration: Any = importlib.import_module("reviewer.migrations.0019_source_references")
    answer = _whole_document(document)
    copy = answer.sources.get().text
    # As stored before references: a copy, and one that no longer matches its document.
    AnswerSource.objects.filter(answer=answer).update(text=copy, text_chars=None,
                                                      text_sha256="")
    other = _whole_document(document, answer_id="stale")
    AnswerSource.objects.filter(answer=other).update(text="Not the document.",
                                                     text_chars=None, text_sha256="")

    migration.refer_to_documents(apps, None)
    assert AnswerSource.objects.filter(answer=answer).values_list(
        "text", "text_chars").get() == ("", len(copy))
    assert answer.sources.get().text == copy
    assert other.sources.get().text == "Not the document."  # kept as it was

    migration.copy_from_documents(apps, None)
    assert AnswerSource.objects.filter(answer=answer).values_list(
        "text", "text_sha256").get() == (copy, "")


def test_the_api_says_a_changed_source_rather_than_count_offsets_on_other_text(
        api: Any, document: Document) -> None:
    posted = api.post("/api/v1/answers", json.dumps({
        "answer": f'It says "{_quote(document)}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk, "start": 0}]}),
        content_type="application/json")
    assert posted.status_code == 201
    assert api.get(posted["Location"]).status_code == 200
    table = connection.ops.quote_name(Document._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET text = %s WHERE id = %s",
                       ["X" + document.text[1:], document.pk])
    response = api.get(posted["Location"])
    assert response.status_code == 500
    error = response.json()["error"]
    assert error["code"] == "source-changed"
    assert "no longer matches what was verified" in error["message"]
