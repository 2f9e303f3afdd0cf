"""A document whose ingestion outlived its worker does not stay `processing`:
the watchdog fails it with the reason (when it is read, or from `manage.py
watchdog`), re-uploading its bytes tries again, and `manage.py reingest`
re-runs a failed one on purpose."""

from __future__ import annotations

from datetime import timedelta
from io import StringIO
from types import SimpleNamespace
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from reviewer.models import Document
from reviewer.services import documents as service
from reviewer.services.documents import (
    document_upload,
    documents_fail_stale,
    documents_requeue_lost,
)

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
                                           "1 stuck document failed.",
                                           "No lost document task.", "No lost run task."]
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


def test_a_document_whose_task_was_lost_is_queued_again_once(
        text_pdf: Any, settings: Any, django_capture_on_commit_callbacks: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Redis that restarted without its data lost the task of a queued
    document: past QUEUED_STALE_SECONDS the watchdog queues it again, once,
    and it is ingested; a document queued a moment ago is left alone."""
    settings.CITEGUARD = {**settings.CITEGUARD, "QUEUED_STALE_SECONDS": 1800}
    enqueued: list[int] = []
    # The queue, which keeps what it is given here (the tasks before were lost).
    monkeypatch.setattr(service, "ingest_document", SimpleNamespace(enqueue=enqueued.append))
    lost = document_upload(data=text_pdf("Employer match vests."), filename="a.pdf").document
    fresh = document_upload(data=text_pdf("Deductible applies."), filename="b.pdf").document
    assert enqueued == []  # on_commit never ran: the tasks are lost
    Document.objects.filter(pk=lost.pk).update(updated=timezone.now() - timedelta(minutes=31))

    with django_capture_on_commit_callbacks(execute=True):
        assert documents_requeue_lost() == 1
    assert enqueued == [lost.pk]
    with django_capture_on_commit_callbacks(execute=True):
        assert documents_requeue_lost() == 0  # its clock was reset: not queued twice
    assert enqueued == [lost.pk]
    assert Document.objects.get(pk=fresh.pk).status == "queued"

    monkeypatch.undo()
    service.document_ingest(document_id=lost.pk)
    assert Document.objects.get(pk=lost.pk).status == "ready"


@pytest.mark.parametrize("tries_left", [2, 0])
def test_a_store_away_for_a_moment_is_tried_again_while_the_queue_can(
        tries_left: int, text_pdf: Any, monkeypatch: pytest.MonkeyPatch,
        django_capture_on_commit_callbacks: Any) -> None:
    """The file store fails while a document is read: with tries left the
    task raises (the queue runs it again) and the row says it waits; on the
    last try the document fails with a sentence saying how to retry."""
    document = document_upload(data=text_pdf("Employer match vests."), filename="a.pdf").document
    monkeypatch.setattr(service, "retries_left", lambda: tries_left)

    def store_away(*args: Any, **kwargs: Any) -> Any:
        raise ConnectionResetError("store connection reset")

    monkeypatch.setattr(type(document.file), "open", store_away)
    if tries_left:
        with pytest.raises(ConnectionResetError):
            service.document_ingest(document_id=document.pk)
        document.refresh_from_db()
        assert document.status == "processing"
        assert document.progress.startswith("Waiting to try again: ConnectionResetError")
        monkeypatch.undo()
        assert service.document_ingest(document_id=document.pk).status == "ready"
    else:
        document = service.document_ingest(document_id=document.pk)
        assert (document.status, document.error_kind) == ("failed", "unavailable")
        assert "the file store failed (ConnectionResetError" in document.error
        assert f"manage.py reingest {document.pk}" in document.error
