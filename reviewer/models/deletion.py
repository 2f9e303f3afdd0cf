"""Soft deletion: documents and answers are hidden, never removed, and each
deletion (and each purge of a deleted document's files) is a row of an
append-only record saying who, when, what and why.

A deleted row stays in the database with everything that points at it
(review decisions, verdict history, citations): the default manager hides
it, ``all_objects`` still reads it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models


class LiveManager(models.Manager[Any]):
    """The default manager of a soft-deletable model: rows not deleted."""

    def get_queryset(self) -> models.QuerySet[Any]:
        return super().get_queryset().filter(deleted_at__isnull=True)


class DeletionRecordQuerySet(models.QuerySet["DeletionRecord"]):
    def update(self, **kwargs: object) -> int:
        raise DeletionRecord.AppendOnly("deletion records are never changed")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise DeletionRecord.AppendOnly("deletion records are never deleted")


class DeletionRecord(models.Model):
    """One deletion of a document or an answer, or one purge of a deleted
    document's stored files."""

    class AppendOnly(Exception):
        """Raised by any attempt to change or delete a record."""

    class Kind(models.TextChoices):
        DOCUMENT = "document", "Document"
        ANSWER = "answer", "Answer"

    class Action(models.TextChoices):
        DELETE = "delete", "Deleted"
        PURGE = "purge", "Files purged"

    kind = models.CharField(max_length=10, choices=Kind)
    object_id = models.PositiveBigIntegerField()
    # What it was, in words, as it was when deleted (a title, an answer's id).
    description = models.CharField(max_length=400)
    action = models.CharField(max_length=10, choices=Action, default=Action.DELETE)
    deleted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    reason = models.TextField()
    created = models.DateTimeField(auto_now_add=True)

    objects = DeletionRecordQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]
        indexes = [models.Index(fields=["kind", "object_id"])]

    def __str__(self) -> str:
        return f"{self.get_action_display()}: {self.kind} {self.object_id}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise self.AppendOnly("deletion records are never changed")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise self.AppendOnly("deletion records are never deleted")
