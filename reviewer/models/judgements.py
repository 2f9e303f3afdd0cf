"""The semantic stage's results: what a model said about a cited sentence.

A layer of its own beside the deterministic verdict, which it never changes.
Rows are appended, one per judging of a citation (the latest is its state):
a result (``label`` set), an error kept with its message, or a citation
skipped for the surface's budget, which a later run picks up again.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from .answers import Answer, CitationVerdict, Surface


class Judgement(models.Model):
    class Label(models.TextChoices):
        SUPPORTED = "supported", "supported"
        CONTRADICTED = "contradicted", "contradicted"
        NOT_ENOUGH_INFO = "not-enough-info", "not enough information"

    class Error(models.TextChoices):
        TIMEOUT = "timeout", "timed out"
        RATE_LIMITED = "rate-limited", "rate limited (429)"
        MALFORMED = "malformed", "malformed answer"
        INVENTED_EVIDENCE = "invented-evidence", "invented evidence: answer discarded"
        UNAVAILABLE = "unavailable", "endpoint unavailable"
        SETUP = "setup", "judge not set up"
        TOO_LONG = "too-long", "longer than the surface allows per call"
        OVER_BUDGET = "over-budget", "waiting: the surface's calls per hour are used"

    #: Errors a later run tries again (the others are final for the citation).
    RETRIED = frozenset({Error.TIMEOUT, Error.RATE_LIMITED, Error.UNAVAILABLE,
                         Error.OVER_BUDGET, Error.SETUP})

    # The citation judged. Re-verifying an answer replaces its citation rows:
    # the judgement stays (its calls still count against the hour's budget,
    # and it is the answer's history), without a citation, at its position.
    citation = models.ForeignKey(CitationVerdict, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="judgements")
    citation_position = models.PositiveIntegerField(null=True, blank=True)
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="judgements")
    # The surface whose budget the calls count against (the answer's, kept
    # here so the calls of the last hour are one indexed query).
    surface = models.ForeignKey(Surface, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+")
    judge = models.CharField(max_length=20)  # the backend: onnx, chat
    model_id = models.CharField(max_length=200, blank=True)
    label = models.CharField(max_length=16, choices=Label, blank=True)
    scores = models.JSONField(null=True, blank=True)
    # The passage sentence the model relied on, as it wrote it; kept only
    # when citeguard found it in the passage (``evidence_verified``), or on
    # an invented-evidence error to show what was discarded.
    evidence = models.TextField(blank=True)
    evidence_verified = models.BooleanField(default=False)
    truncated = models.BooleanField(default=False)
    latency_ms = models.FloatField(null=True, blank=True)
    error = models.CharField(max_length=20, choices=Error, blank=True)
    error_message = models.TextField(blank=True)
    attempts = models.PositiveSmallIntegerField(default=0)  # calls made (the budget's unit)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["citation", "created", "pk"]
        indexes = [models.Index(fields=["surface", "created"], name="judgement_budget")]
        constraints = [
            models.CheckConstraint(condition=Q(label="") | Q(error=""),
                                   name="judgement_label_or_error"),
        ]

    def __str__(self) -> str:
        return f"{self.judge} on citation {self.citation_id}: {self.label or self.error}"

    @property
    def is_result(self) -> bool:
        return bool(self.label)
