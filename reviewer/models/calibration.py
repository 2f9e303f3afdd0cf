"""Calibration: matches put before labellers, and their labels.

A ``CalibrationItem`` is a snapshot of one stored citation as a labeller sees
it: the quote, the source text it was compared with (the aligned window and
some context), and the page rectangles of that window. It copies the text
rather than pointing at verdict rows so that a label means the same thing
after the answer is re-verified, and so that a calibration set can move
between deployments (an imported item has no citation at all).

The score, the outcome and the stratum are kept for the calibration page and
are never shown to a labeller.

Items are of two kinds. A *match* (a quote aligned with a source window) is
labelled faithful, meaning changed or not this passage, to calibrate the
similarity threshold. A *claim* is one flag the sentence check raised on a
paraphrase (one finding of a ``claim-mismatch`` citation, or a
``claim-unsupported`` citation): ``quote`` holds the sentence, the window is
its likely passage, ``claim``/``counterpart`` the finding's two sides, and it
is labelled right flag, false alarm or unclear, to measure each check's
precision. Both kinds share the queue, the labels and the settling.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from .answers import Answer, CitationVerdict, Surface
from .documents import Document


class CalibrationItem(models.Model):
    """One match to label (see the module's docstring)."""

    #: The stratum of a control (an exact match or a clear miss) and of an
    #: imported item; a sampled one's stratum is its score band ("0.85–0.90"),
    #: a claim's its check.
    CONTROL = "control"
    IMPORTED = "imported"

    class Kind(models.TextChoices):
        MATCH = "match", "Quote match"
        CLAIM = "claim", "Claim flag"

    #: The check of a claim item drawn from a claim-unsupported citation (the
    #: others are ``verification.claims``' checks: number, negation, …).
    UNSUPPORTED = "unsupported"

    kind = models.CharField(max_length=5, choices=Kind, default=Kind.MATCH)

    surface = models.ForeignKey(Surface, on_delete=models.PROTECT,
                                related_name="calibration_items")
    citation = models.ForeignKey(CitationVerdict, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="calibration_items")
    answer = models.ForeignKey(Answer, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    quote = models.TextField()  # a claim item: the sentence
    # The cited source's text around the window the quote was aligned with
    # (a claim item: the sentence's likely passage); the window is
    # source_text[match_start:match_end].
    source_text = models.TextField()
    match_start = models.PositiveIntegerField()
    match_end = models.PositiveIntegerField()
    # Running headers and page numbers inside source_text, as [start, end]
    # pairs: greyed out and left out of the diff, as on the review page.
    furniture = models.JSONField(default=list, blank=True)
    source_marker = models.CharField(max_length=20, blank=True)
    score = models.FloatField()
    # What the surface said when the item was drawn (hidden from labellers).
    outcome = models.CharField(max_length=20, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    stratum = models.CharField(max_length=20)
    # A claim item's finding (blank for a match): its check (number, negation,
    # quantifier, modal, comparative, entity, or unsupported), the sentence's
    # words it names and the passage's counterpart ("" when no passage has one).
    claim_check = models.CharField(max_length=12, blank=True)
    claim = models.TextField(blank=True)
    counterpart = models.TextField(blank=True)
    # Where labellers meet it: items are drawn shuffled, and served in order.
    position = models.PositiveIntegerField(default=0)
    # sha256 of surface, quote and source window: one item per match.
    content_hash = models.CharField(max_length=64)
    # The window's page rectangles, for the PDF highlight.
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    pages = models.JSONField(default=list, blank=True)
    # A supervisor's label where two labellers disagreed.
    settled_label = models.CharField(max_length=12, blank=True)
    settled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+")
    settled_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["surface", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["surface", "content_hash"],
                                    name="one_calibration_item_per_match"),
        ]

    def __str__(self) -> str:
        return f"calibration item {self.pk} of {self.surface_id} ({self.stratum})"

    @property
    def label_choices(self) -> tuple[str, ...]:
        """The labels an item of this kind takes (``KIND_LABELS``)."""
        return KIND_LABELS[self.kind]


class MatchLabel(models.Model):
    """A person's judgement of one calibration item."""

    class Label(models.TextChoices):
        FAITHFUL = "faithful", "Same passage, faithful"
        CHANGED = "changed", "Same passage, meaning changed"
        OTHER = "other", "Not this passage"
        # A claim item's labels (``KIND_LABELS``).
        RIGHT_FLAG = "right-flag", "Right flag"
        FALSE_ALARM = "false-alarm", "False alarm"
        UNCLEAR = "unclear", "Unclear"

    item = models.ForeignKey(CalibrationItem, on_delete=models.CASCADE, related_name="labels")
    # The citation labelled, for labels given before items existed.
    citation = models.ForeignKey(CitationVerdict, null=True, blank=True,
                                 on_delete=models.SET_NULL, related_name="labels")
    # None for an imported label: labeller_name says who gave it.
    labeller = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.PROTECT, related_name="match_labels")
    labeller_name = models.CharField(max_length=150)
    label = models.CharField(max_length=12, choices=Label)
    imported = models.BooleanField(default=False)
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["item", "created", "pk"]
        permissions = [("label_matches", "Can label matches to calibrate thresholds")]
        constraints = [
            models.UniqueConstraint(fields=["item", "labeller_name"],
                                    name="one_label_per_item_and_person"),
        ]

    def __str__(self) -> str:
        return f"{self.label} by {self.labeller_name}: item {self.item_id}"


#: The labels each kind of item takes, in the order the queue's keys give them.
KIND_LABELS: dict[str, tuple[str, ...]] = {
    CalibrationItem.Kind.MATCH: (MatchLabel.Label.FAITHFUL, MatchLabel.Label.CHANGED,
                                 MatchLabel.Label.OTHER),
    CalibrationItem.Kind.CLAIM: (MatchLabel.Label.RIGHT_FLAG, MatchLabel.Label.FALSE_ALARM,
                                 MatchLabel.Label.UNCLEAR),
}


class LabelStep(models.Model):
    """One step of a labeller's queue on a surface, a label or a skip, kept so
    that **u** can take the last one back after a reload, on another device or
    in a new session (the undo history is stored, not kept in the session).

    A skip step is also what keeps a skipped item out of its labeller's queue
    until that skip is undone; a label step goes with its label."""

    class Kind(models.TextChoices):
        LABEL = "label", "Label"
        SKIP = "skip", "Skip"

    labeller = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="+")
    surface = models.ForeignKey(Surface, on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey(CalibrationItem, on_delete=models.CASCADE, related_name="steps")
    kind = models.CharField(max_length=5, choices=Kind)
    # A label step's label: deleting the label (undone, or replaced by an
    # import) removes the step with it.
    label = models.ForeignKey(MatchLabel, null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+")
    created = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["labeller", "surface", "created", "pk"]
        indexes = [models.Index(fields=["labeller", "surface", "kind"],
                                name="label_step_by_labeller")]

    def __str__(self) -> str:
        return f"{self.kind} of item {self.item_id} by {self.labeller_id}"
