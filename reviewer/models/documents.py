"""Documents as ingested: the text stream, its pages and its chunks.

Offsets everywhere are code-point indices into ``Document.text``, the stream
built at extraction; a chunk is a range of it, never a rewritten copy.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from .deletion import LiveManager
from .workspaces import Workspace, default_workspace_fill

DOCUMENT_KEY_MAX = 200
#: A title's limit in characters: the upload forms' maxlength, and the server
#: refuses a longer one (documents.html, document.html, the API's schema).
TITLE_MAX = 300


def validate_document_key(value: str) -> None:
    if value != value.strip() or any(not c.isprintable() for c in value):
        raise ValidationError("A document key is printable text without leading or trailing "
                              "spaces.")


#: What a ready document's highlights are drawn from: never changed once it
#: is ready (a swapped file would move every stored highlight under its
#: reviewers). Purging a deleted document's files is the one exception.
FROZEN_WHEN_READY = ("file", "sha256", "size_bytes", "geometry", "text", "furniture")


def _stored(value: Any) -> Any:
    """A field's value as compared for the freeze: a file by its name."""
    return getattr(value, "name", value) if isinstance(value, models.fields.files.FieldFile) \
        else value


class DocumentQuerySet(models.QuerySet["Document"]):
    def update(self, **kwargs: Any) -> int:
        frozen = sorted(set(kwargs) & set(FROZEN_WHEN_READY))
        if frozen and self.filter(status=Document.Status.READY,
                                  deleted_at__isnull=True).exists():
            raise Document.Frozen(f"a ready document's {', '.join(frozen)} cannot change")
        return super().update(**kwargs)

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
    title = models.CharField(max_length=TITLE_MAX)
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
    # OCR of pages without a text layer (reviewer.ingestion.ocr): the language
    # asked for at upload, and what OCR found once ingested.
    ocr_language = models.CharField(
        max_length=64, blank=True,
        help_text="Tesseract language(s) its scanned pages are read in, e.g. eng or eng+fra.",
    )
    # [{"page": 1, "words": 336, "confidence": 94.7}, ...]: the pages OCR read.
    ocr_pages = models.JSONField(default=list, blank=True, editable=False)
    ocr_confidence = models.FloatField(
        null=True, blank=True, editable=False,
        help_text="Mean OCR word confidence (0-100) over the OCR'd pages; null when none was.",
    )
    # While ingesting: the page the reader is on ("OCR page 3 of 12").
    progress = models.CharField(max_length=120, blank=True, editable=False)
    # Soft deletion (see reviewer.models.deletion): hidden, never removed.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)
    deleted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+", editable=False)

    objects = LiveManager.from_queryset(DocumentQuerySet)()
    all_objects = DocumentQuerySet.as_manager()

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

    class Frozen(Exception):
        """Raised by an attempt to change what a ready document's highlights
        are drawn from (``FROZEN_WHEN_READY``)."""

    def __str__(self) -> str:
        return self.title

    def save(self, *args: Any, **kwargs: Any) -> None:
        default_workspace_fill(self)
        changed = self.frozen_changes(kwargs.get("update_fields"))
        if changed:
            raise self.Frozen(f"document {self.pk} is ready: its {', '.join(changed)} cannot "
                              "change (upload a new version instead)")
        super().save(*args, **kwargs)
        self._remember()

    def clean(self) -> None:
        changed = self.frozen_changes()
        if changed:
            raise ValidationError(
                f"This document is ready: its {', '.join(changed)} cannot change, or the "
                "highlights stored against it would point at other text. Upload the new file "
                "as a new version instead.")

    @property
    def ocr_summary(self) -> str:
        """Where the text came from OCR, for a person: "Text from OCR (eng), mean
        confidence 95% — pages 1–3, 7"; "" when no page was OCR'd."""
        if not self.ocr_pages:
            return ""
        numbers = [int(page["page"]) for page in self.ocr_pages]
        runs: list[list[int]] = []
        for number in numbers:
            if runs and number == runs[-1][1] + 1:
                runs[-1][1] = number
            else:
                runs.append([number, number])
        pages = ", ".join(f"{a}–{b}" if b > a else str(a) for a, b in runs)
        which = "page" if len(numbers) == 1 else "pages"
        confidence = self.ocr_confidence or 0.0
        return (f"Text from OCR ({self.ocr_language}), mean confidence {confidence:.0f}% — "
                f"{which} {pages}")

    @property
    def is_superseded(self) -> bool:
        return self.superseded_by_id is not None

    @classmethod
    def from_db(cls, db: Any, field_names: Any, values: Any) -> Document:
        document = super().from_db(db, field_names, values)
        document._remember()
        return document

    def refresh_from_db(self, *args: Any, **kwargs: Any) -> None:
        super().refresh_from_db(*args, **kwargs)
        self._remember()

    def _remember(self) -> None:
        """Keep the frozen fields' values as stored, to compare on save."""
        loaded = self.__dict__
        self._stored_state = {name: _stored(loaded[name]) for name in
                              ("status", "deleted_at", *FROZEN_WHEN_READY) if name in loaded}

    def frozen_changes(self, fields: Any = None) -> list[str]:
        """The frozen fields changed since this ready document was read (or
        saved); [] when it was not ready, or is deleted."""
        stored = getattr(self, "_stored_state", None)
        if self._state.adding or stored is None:
            return []
        if "status" not in stored or "deleted_at" not in stored:
            row = Document.all_objects.filter(pk=self.pk).values("status", "deleted_at").first()
            stored = {**stored, **(row or {})}
        if stored.get("status") != Document.Status.READY or stored.get("deleted_at"):
            return []
        names = FROZEN_WHEN_READY if fields is None else [f for f in fields
                                                         if f in FROZEN_WHEN_READY]
        changed = []
        for name in names:
            if name not in self.__dict__:
                continue  # deferred and not assigned: not saved
            if name not in stored:  # deferred, then assigned: compare with the row
                stored[name] = _stored(Document.all_objects.filter(pk=self.pk)
                                       .values_list(name, flat=True).get())
            if _stored(self.__dict__[name]) != stored[name]:
                changed.append(name)
        return changed


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
