"""Documents as ingested: the text stream, its pages and its chunks.

Offsets everywhere are code-point indices into ``Document.text``, the stream
built at extraction; a chunk is a range of it, never a rewritten copy.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from .workspaces import Workspace, default_workspace_fill

DOCUMENT_KEY_MAX = 200


def validate_document_key(value: str) -> None:
    if value != value.strip() or any(not c.isprintable() for c in value):
        raise ValidationError("A document key is printable text without leading or trailing "
                              "spaces.")


class DocumentQuerySet(models.QuerySet["Document"]):
    def ready(self) -> DocumentQuerySet:
        return self.filter(status=Document.Status.READY)

    def current(self) -> DocumentQuerySet:
        return self.filter(superseded_by__isnull=True)

    def in_workspace(self, workspace: Workspace | int) -> DocumentQuerySet:
        return self.filter(workspace=workspace)

    def with_key(self, document_key: str, *, workspace: Workspace | int) -> DocumentQuerySet:
        """Every version stored under the client's ``document_key`` in its
        workspace (none for ""): keys are the client's names, so another
        workspace's same key is another document."""
        return self.filter(workspace=workspace, document_key=document_key).exclude(
            document_key="")


class Document(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        PROCESSING = "processing", "Processing"
        READY = "ready", "Ready"
        FAILED = "failed", "Failed"

    # Whose document it is: only this workspace's tokens and members see it.
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="documents")
    title = models.CharField(max_length=300)
    file = models.FileField(upload_to="documents/%Y/%m/")
    sha256 = models.CharField(max_length=64, editable=False)
    size_bytes = models.PositiveBigIntegerField(default=0)
    status = models.CharField(max_length=12, choices=Status, default=Status.QUEUED)
    error_kind = models.CharField(max_length=32, blank=True)
    error = models.TextField(blank=True, help_text="Why ingestion failed, for a person to read.")
    page_count = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True, editable=False)
    # Running headers, footers and page numbers: [[start, end], ...] into text.
    furniture = models.JSONField(default=list, blank=True, editable=False)
    # Per-character page boxes, packed (see reviewer.ingestion): 16 bytes a character.
    geometry = models.FileField(upload_to="geometry/%Y/%m/", blank=True, editable=False)
    supersedes = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        help_text="The earlier version this document replaces.",
    )
    superseded_by = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        editable=False,
    )
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    # Identity across versions is the client's to state, never inferred from a
    # title or file name: a stable key it chose (every version of one document
    # carries it), or an explicit ``supersedes``.
    document_key = models.CharField(
        max_length=DOCUMENT_KEY_MAX, blank=True, validators=[validate_document_key],
        help_text="The client's stable name for this document; an upload under the same key "
                  "is its next version.",
    )
    version = models.PositiveIntegerField(
        default=1, editable=False,
        help_text="1 for a first upload; one more than the version it supersedes.",
    )

    objects = DocumentQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        indexes = [models.Index(fields=["title"]), models.Index(fields=["status"])]
        constraints = [
            # The same bytes are one document per workspace (two workspaces
            # uploading them hold two, and neither learns of the other's).
            models.UniqueConstraint(fields=["workspace", "sha256"],
                                    name="document_sha256_unique_per_workspace"),
            # One row per version of a key: two uploads racing under one key
            # cannot both become its next version.
            models.UniqueConstraint(fields=["workspace", "document_key", "version"],
                                    condition=~Q(document_key=""),
                                    name="document_key_version_unique"),
        ]

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        default_workspace_fill(self)
        super().save(*args, **kwargs)

    @property
    def is_superseded(self) -> bool:
        return self.superseded_by_id is not None


class Page(models.Model):
    """One page as displayed: size in PDF points after rotation."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="pages")
    number = models.PositiveIntegerField(help_text="1-based")
    width = models.FloatField()
    height = models.FloatField()
    rotation = models.PositiveSmallIntegerField(default=0)
    text_start = models.PositiveIntegerField()
    text_end = models.PositiveIntegerField()

    class Meta:
        ordering = ["document", "number"]
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="page_number_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.document} p. {self.number}"


class Chunk(models.Model):
    """A range of the document text; ``text == document.text[start:end]``."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    page_first = models.PositiveIntegerField()
    page_last = models.PositiveIntegerField()

    class Meta:
        ordering = ["document", "index"]
        constraints = [
            models.UniqueConstraint(fields=["document", "index"], name="chunk_index_unique"),
            models.CheckConstraint(condition=models.Q(end__gt=models.F("start")),
                                   name="chunk_nonempty"),
        ]

    def __str__(self) -> str:
        return f"{self.document} #{self.index} [{self.start}:{self.end}]"
