"""Verdict history: every verdict an answer has had, and the runs that
re-verify a surface's stored answers after its threshold changed.

An answer keeps its current verdict in its own columns (the queue, trends and
the review page read those). ``VerdictRecord`` rows are written when an
answer is re-verified: the first re-verification records the verdict it had
at submission (read from its columns and rows, so answers stored before
history existed need no backfill) and every re-verification records the
verdict it gives. An answer never re-verified has no rows: its one verdict is
the one it was submitted with.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .answers import Answer, Surface
from .surfaces import SurfaceChange


class ReverificationRun(models.Model):
    """Re-verifying every stored answer of a surface with a new threshold, in
    the background; ``done`` and ``changed`` grow as it goes, so a page can
    show progress."""

    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    surface = models.ForeignKey(Surface, on_delete=models.PROTECT, related_name="reverifications")
    # The change that applied the threshold (None: started by hand or a script).
    surface_change = models.ForeignKey(SurfaceChange, null=True, blank=True,
                                       on_delete=models.PROTECT, related_name="reverifications")
    threshold = models.FloatField()
    status = models.CharField(max_length=8, choices=Status, default=Status.QUEUED)
    # Answers of the surface when the run started (those stored later were
    # verified with the new threshold already), how many are re-verified so
    # far, and how many of those changed verdict or a citation's outcome.
    total = models.PositiveIntegerField(default=0)
    done = models.PositiveIntegerField(default=0)
    changed = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    started_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    # Moved with every committed batch: a running run whose heartbeat stops
    # has lost its worker (runs_fail_stale).
    heartbeat = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"re-verification of {self.surface_id} at {self.threshold} ({self.status})"


class VerdictRecordQuerySet(models.QuerySet["VerdictRecord"]):
    def update(self, **kwargs: object) -> int:
        raise VerdictRecord.AppendOnly("verdict records are never changed; add a row instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise VerdictRecord.AppendOnly("verdict records are never deleted")


class VerdictRecord(models.Model):
    """One verdict an answer has had: what it was, which threshold gave it,
    and what caused it. Append-only."""

    class AppendOnly(Exception):
        """Raised by any attempt to change or delete a record."""

    class Cause(models.TextChoices):
        SUBMITTED = "submitted", "Submitted"
        REVERIFIED = "re-verified", "Re-verified"

    answer = models.ForeignKey(Answer, on_delete=models.PROTECT, related_name="verdict_records")
    # When the verdict was given: the answer's arrival for a submitted one.
    created = models.DateTimeField()
    cause = models.CharField(max_length=12, choices=Cause)
    surface_change = models.ForeignKey(SurfaceChange, null=True, blank=True,
                                       on_delete=models.PROTECT, related_name="+")
    run = models.ForeignKey(ReverificationRun, null=True, blank=True, on_delete=models.PROTECT,
                            related_name="records")
    threshold = models.FloatField()
    verdict = models.CharField(max_length=4, choices=Answer.Verdict)
    # What was served: the submission's action (re-verifying never changes it).
    action = models.CharField(max_length=12, choices=Answer.Action)
    coverage = models.FloatField()
    counts = models.JSONField(default=dict)
    reasons = models.JSONField(default=list)
    # The API's result for this verdict (``answer_result``), sentences and
    # citations included, so the verdict reads back whole after its rows
    # were replaced.
    result = models.JSONField()

    objects = VerdictRecordQuerySet.as_manager()

    class Meta:
        ordering = ["answer", "created", "pk"]
        indexes = [models.Index(fields=["answer", "created"], name="verdict_record_answer")]

    def __str__(self) -> str:
        return f"{self.verdict} at {self.threshold} ({self.cause}) of answer {self.answer_id}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise self.AppendOnly("verdict records are never changed; add a row instead")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise self.AppendOnly("verdict records are never deleted")
