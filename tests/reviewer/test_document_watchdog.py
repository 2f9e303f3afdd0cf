"""A document whose ingestion outlived its worker does not stay `processing`:
the watchdog fails it with the reason (when it is read, or from `manage.py
watchdog`), re-uploading its bytes tries again, and `manage.py reingest`
re-runs a failed one on purpose."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from reviewer.models import Document
from reviewer.services.documents import document_upload, documents_fail_stale

pytestmark = pytest.mark.django_db


@pytest.fixture
def stuck(text_pdf: Any, settings: Any) -> tuple[Document, bytes]:
    """A document whose worker died mid-ingestion 20 minutes ago (the limit
    is 300 s: stuck after 600)."""
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_SECONDS_PER_DOCUMENT": 300}
    data = text_pdf("Employer match vests after two years.")
    document = document_upload(data=data, filename="plan.pdf").document  # never ingested
    Document.objects.filter(pk=document.pk).update(
        status=Document.Status.PROCESSING, updated=timezone.now() - timedelta(minutes=20))
    return document, data


def test_a_stuck_document_reads_failed_with_why_and_its_bytes_again_retry_it(
        client: Any, api_token: str, stuck: tuple[Document, bytes],
        django_capture_on_commit_callbacks: Any) -> None:
    document, data = stuck
    body = client.get(f"/api/v1/documents/{document.pk}",
                      headers={"Authorization": f"Bearer {api_token}"}).json()
    assert (body["status"], body["error_kind"]) == ("failed", "stuck")
    assert "made no progress for 600 s after" in body["error"]
    assert f"manage.py reingest {document.pk}" in body["error"]

    with django_capture_on_commit_callbacks(execute=True):
        result = document_upload(data=data, filename="plan.pdf")
    assert (result.document.pk, result.created) == (document.pk, False)
    document.refresh_from_db()
    assert (document.status, document.error) == ("ready", "")
    assert document.chunks.count() >= 1


def test_an_ingestion_within_its_time_is_left_alone(stuck: tuple[Document, bytes]) -> None:
    document, _ = stuck
    Document.objects.filter(pk=document.pk).update(updated=timezone.now() - timedelta(minutes=9))
    assert documents_fail_stale() == 0
    document.refresh_from_db()
    assert document.status == "processing"
    assert documents_fail_stale(now=timezone.now() + timedelta(minutes=2)) == 1


def test_watchdog_and_reingest_commands(stuck: tuple[Document, bytes], text_pdf: Any,
                                        settings: Any,
                                        django_capture_on_commit_callbacks: Any) -> None:
    document, _ = stuck
    out = StringIO()
    call_command("watchdog", stdout=out)
    assert out.getvalue().splitlines() == ["No stalled re-verification run.",
                                           "1 stuck document failed."]
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("reingest", str(document.pk), stdout=out)
    document.refresh_from_db()
    assert document.status == "ready"
    assert out.getvalue().strip() == f"document {document.pk}: queued"
    # A ready document is left as it is: its chunks may be cited.
    out = StringIO()
    call_command("reingest", str(document.pk), stdout=out)
    assert out.getvalue().strip() == f"document {document.pk}: ready"
    # An oversize file's bytes were not kept: nothing to retry.
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_UPLOAD_BYTES": 10}
    big = document_upload(data=text_pdf("Too big."), filename="big.pdf").document
    assert big.status == "failed"
    with pytest.raises(CommandError, match="cannot be retried"):
        call_command("reingest", str(big.pk), stdout=StringIO())
    with pytest.raises(CommandError, match="no document 999999"):
        call_command("reingest", "999999", stdout=StringIO())


def test_a_late_run_neither_duplicates_nor_fails_what_a_retry_made_ready(
        text_pdf: Any, django_capture_on_commit_callbacks: Any) -> None:
    """The watchdog gave up on run A; the retry B made the document ready;
    then A ends: its result is dropped whole, and its failure ignored."""
    from reviewer.ingestion import chunk_text, extract_pdf
    from reviewer.models import Chunk, Page
    from reviewer.services import documents as service

    data = text_pdf("Employer match vests after two years of service. " * 30)
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=data, filename="plan.pdf").document
    document.refresh_from_db()
    assert document.status == Document.Status.READY
    pages, chunks = Page.objects.filter(document=document).count(), document.chunks.count()
    late = extract_pdf(data)
    service._store(document, late, [], chunk_text(late.text, target_size=1200, overlap=200))
    late.geometry.close()
    assert Page.objects.filter(document=document).count() == pages
    assert Chunk.objects.filter(document=document).count() == chunks
    service._fail(document, "timeout", "run A ran out of time")
    document.refresh_from_db()
    assert (document.status, document.error_kind) == (Document.Status.READY, "")


def test_a_run_the_watchdog_failed_may_still_store_its_result(
        stuck: tuple[Document, bytes]) -> None:
    """No retry came: the late run's good result is better than 'stuck'."""
    from reviewer.ingestion import chunk_text, extract_pdf
    from reviewer.services import documents as service

    document, data = stuck
    documents_fail_stale()
    document.refresh_from_db()
    assert (document.status, document.error_kind) == (Document.Status.FAILED, "stuck")
    late = extract_pdf(data)
    service._store(document, late, [], chunk_text(late.text, target_size=1200, overlap=200))
    late.geometry.close()
    document.refresh_from_db()
    assert document.status == Document.Status.READY and document.chunks.exists()
