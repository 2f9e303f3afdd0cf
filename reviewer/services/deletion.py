"""Deleting documents and answers: soft, recorded, and never taking review
decisions or verdict history with them; and purging the stored files of
deleted documents (``manage.py purge_deleted``)."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from reviewer.models import Answer, DeletionRecord, Document
from reviewer.services.queue_counts import queue_counts_move, queue_key

__all__ = ["REASON_MAX", "PurgeResult", "answer_delete", "document_delete", "documents_purge"]

logger = logging.getLogger("citeguard.deletion")


#: A deletion's reason in characters: a longer one is refused, never cut.
REASON_MAX = 2000


def _reason(reason: str) -> str:
    reason = " ".join(reason.split())
    if not reason:
        raise ValueError("a deletion needs a reason")
    if len(reason) > REASON_MAX:
        raise ValueError(f"the reason is {len(reason)} characters; the limit is {REASON_MAX}")
    return reason


def document_delete(*, document: Document, deleted_by: AbstractBaseUser | None,
                    reason: str) -> DeletionRecord | None:
    """Hide ``document`` from every list, search and new citation, keeping its
    row, pages, chunks and the answers citing it; its stored files stay until
    ``documents_purge``. None when it was already deleted."""
    reason = _reason(reason)
    with transaction.atomic():
        updated = Document.all_objects.filter(pk=document.pk, deleted_at__isnull=True).update(
            deleted_at=timezone.now(), deleted_by=deleted_by)
        if not updated:
            return None
        record = DeletionRecord.objects.create(
            kind=DeletionRecord.Kind.DOCUMENT, object_id=document.pk,
            description=f"{document.title} (sha256 {document.sha256[:12]}…)"[:400],
            deleted_by=deleted_by, reason=reason)
    document.refresh_from_db()
    logger.info("document %s deleted: %s", document.pk, reason)
    return record


def answer_delete(*, answer: Answer, deleted_by: AbstractBaseUser | None,
                  reason: str) -> DeletionRecord | None:
    """Hide ``answer`` from the queues, lists and the API; its sources,
    verdicts, review decisions and verdict history are kept. None when it
    was already deleted."""
    reason = _reason(reason)
    with transaction.atomic():
        locked = Answer.all_objects.select_for_update().filter(
            pk=answer.pk, deleted_at__isnull=True).first()
        if locked is None:
            return None
        before = queue_key(locked)
        Answer.all_objects.filter(pk=locked.pk).update(deleted_at=timezone.now(),
                                                       deleted_by=deleted_by)
        queue_counts_move(remove=[before])
        what = f"answer {locked.pk}" + (f" (id {locked.external_id!r})"
                                        if locked.external_id else "")
        record = DeletionRecord.objects.create(
            kind=DeletionRecord.Kind.ANSWER, object_id=locked.pk, description=what[:400],
            deleted_by=deleted_by, reason=reason)
    answer.refresh_from_db()
    logger.info("answer %s deleted: %s", answer.pk, reason)
    return record


@dataclass(frozen=True)
class PurgeResult:
    documents: int
    files: int
    bytes: int


def documents_purge(*, older_than: timedelta = timedelta(0), now: datetime | None = None,
                    dry_run: bool = False) -> PurgeResult:
    """Remove the stored files (the PDF and its geometry) of documents deleted
    more than ``older_than`` ago, through the storage API, so it works on
    any storage backend. The rows stay (answers' references read their text);
    each purge is recorded."""
    cutoff = (now or timezone.now()) - older_than
    documents = files = size = 0
    deleted = (Document.all_objects.filter(deleted_at__isnull=False, deleted_at__lte=cutoff)
               .exclude(file="", geometry="").defer("text").order_by("pk"))
    for document in deleted:
        removed = []
        for field in (document.file, document.geometry):
            if not field.name:
                continue
            storage, name = field.storage, field.name
            # Stored objects are named by their bytes: the same PDF in another
            # workspace (or its geometry) may be this very object.
            if Document.all_objects.exclude(pk=document.pk).filter(
                    Q(file=name) | Q(geometry=name)).exists():
                removed.append(f"{name} (kept: another document uses it)")
                continue
            if storage.exists(name):
                size += storage.size(name)
                if not dry_run:
                    storage.delete(name)
            files += 1
            removed.append(name)
        documents += 1
        if dry_run:
            continue
        with transaction.atomic():
            Document.all_objects.filter(pk=document.pk).update(file="", geometry="")
            DeletionRecord.objects.create(
                kind=DeletionRecord.Kind.DOCUMENT, object_id=document.pk,
                action=DeletionRecord.Action.PURGE, deleted_by=None,
                description=f"{document.title}: {', '.join(removed)}"[:400],
                reason=f"purge_deleted: deleted at {document.deleted_at:%Y-%m-%d %H:%M} UTC")
        logger.info("document %s: stored files purged (%s)", document.pk, ", ".join(removed))
    return PurgeResult(documents, files, size)
