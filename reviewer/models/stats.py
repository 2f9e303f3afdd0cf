"""Trends' summary table and the rate changes found in it.

``AnswerStats`` holds, per hour, surface and model, integer counts of the
answers verified then: per verdict, answers with at least one of each failing
outcome, claims, and coverage and latency histograms. It is incremented as
each answer is stored (``reviewer.services.stats``) and can be rebuilt from
the answers (``manage.py rebuild_stats``), so the trends page reads a few
thousand rows however many answers there are.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .answers import Surface


class AnswerStats(models.Model):
    """Counts of the answers verified in one hour on one surface by one model.

    The histogram buckets' edges are in ``reviewer.services.stats``
    (``COVERAGE_BUCKETS``, ``LATENCY_BUCKETS``); a bucket counts answers up to
    and including its upper edge (coverage: below it).
    """

    hour = models.DateTimeField()  # UTC, truncated to the hour
    # Null for answers stored before surfaces existed; such rows are summed
    # like any other but never compared for rate changes.
    surface = models.ForeignKey(Surface, null=True, blank=True, on_delete=models.CASCADE,
                                related_name="+")
    model = models.CharField(max_length=200, blank=True)
    answers = models.PositiveIntegerField(default=0)
    verdict_pass = models.PositiveIntegerField(default=0)
    verdict_flag = models.PositiveIntegerField(default=0)
    verdict_fail = models.PositiveIntegerField(default=0)
    # Answers with at least one citation (or claim) of the outcome.
    with_fabricated = models.PositiveIntegerField(default=0)
    with_altered = models.PositiveIntegerField(default=0)
    with_not_found = models.PositiveIntegerField(default=0)
    with_wrong_source = models.PositiveIntegerField(default=0)
    with_unattributed = models.PositiveIntegerField(default=0)
    with_uncited = models.PositiveIntegerField(default=0)
    with_claim_mismatch = models.PositiveIntegerField(default=0)
    with_claim_unsupported = models.PositiveIntegerField(default=0)
    claims = models.PositiveIntegerField(default=0)
    attributed_claims = models.PositiveIntegerField(default=0)
    # Coverage (attributed claims / claims) histogram.
    cov_lt_25 = models.PositiveIntegerField(default=0)
    cov_lt_50 = models.PositiveIntegerField(default=0)
    cov_lt_75 = models.PositiveIntegerField(default=0)
    cov_lt_100 = models.PositiveIntegerField(default=0)
    cov_full = models.PositiveIntegerField(default=0)
    # Verification time (Answer.elapsed_ms) histogram.
    lat_le_250us = models.PositiveIntegerField(default=0)
    lat_le_500us = models.PositiveIntegerField(default=0)
    lat_le_1ms = models.PositiveIntegerField(default=0)
    lat_le_2ms = models.PositiveIntegerField(default=0)
    lat_le_5ms = models.PositiveIntegerField(default=0)
    lat_le_10ms = models.PositiveIntegerField(default=0)
    lat_le_20ms = models.PositiveIntegerField(default=0)
    lat_le_50ms = models.PositiveIntegerField(default=0)
    lat_le_100ms = models.PositiveIntegerField(default=0)
    lat_le_200ms = models.PositiveIntegerField(default=0)
    lat_le_500ms = models.PositiveIntegerField(default=0)
    lat_le_1s = models.PositiveIntegerField(default=0)
    lat_over_1s = models.PositiveIntegerField(default=0)
    # Answers whose first decision was made in this hour (counted by the hour
    # of the decision, not of the answer) and their time from arrival to that
    # decision as a histogram (edges in reviewer.services.stats).
    first_decisions = models.PositiveIntegerField(default=0)
    # Every decision made in this hour on the surface and model's answers, by
    # kind (undos aside).
    decided_approve = models.PositiveIntegerField(default=0)
    decided_reject = models.PositiveIntegerField(default=0)
    decided_escalate = models.PositiveIntegerField(default=0)
    ttd_le_15m = models.PositiveIntegerField(default=0)
    ttd_le_1h = models.PositiveIntegerField(default=0)
    ttd_le_4h = models.PositiveIntegerField(default=0)
    ttd_le_1d = models.PositiveIntegerField(default=0)
    ttd_le_3d = models.PositiveIntegerField(default=0)
    ttd_le_1w = models.PositiveIntegerField(default=0)
    ttd_over_1w = models.PositiveIntegerField(default=0)

    class Meta:
        verbose_name_plural = "answer stats"
        constraints = [
            models.UniqueConstraint(fields=["hour", "surface", "model"],
                                    name="answer_stats_one_row_per_hour_surface_model"),
        ]

    def __str__(self) -> str:
        return f"{self.hour:%Y-%m-%d %H}h {self.surface_id} {self.model}: {self.answers}"


class TrendAlert(models.Model):
    """A day on which an outcome's rate left its previous fortnight's range
    (``reviewer.changepoint``): stored once, so it is logged and shown once.

    A supervisor acknowledges it, gives it an owner and a note
    (``reviewer.services.alerts``); the fields hold the current state, each
    change is kept as a ``TrendAlertEvent``.
    """

    #: ``model`` of an alert on all of a surface's models together.
    ALL_MODELS = "*"
    #: The longest note, in characters: the form says so and the service
    #: refuses a longer one (nothing is cut).
    NOTE_MAX_LENGTH = 1000

    day = models.DateField()
    surface = models.ForeignKey(Surface, on_delete=models.CASCADE, related_name="+")
    model = models.CharField(max_length=200, blank=True)
    outcome = models.CharField(max_length=30)
    direction = models.SmallIntegerField()  # +1 a rise, -1 a fall
    answers = models.PositiveIntegerField()
    hits = models.PositiveIntegerField()
    baseline_answers = models.PositiveIntegerField()
    baseline_hits = models.PositiveIntegerField()
    low = models.FloatField()  # the day's Wilson 99 % interval
    high = models.FloatField()
    baseline_low = models.FloatField()
    baseline_high = models.FloatField()
    # Models that served answers that day but none in the fortnight before
    # ("model-b"): the likely cause, said on the chart.
    new_models = models.CharField(max_length=400, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    acknowledged_at = models.DateTimeField(null=True, blank=True)
    acknowledged_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                        on_delete=models.PROTECT, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                              on_delete=models.PROTECT, related_name="+")
    note = models.CharField(max_length=NOTE_MAX_LENGTH, blank=True)

    class Meta:
        ordering = ["day", "surface", "model", "outcome"]
        constraints = [
            models.UniqueConstraint(fields=["day", "surface", "model", "outcome"],
                                    name="trend_alert_once_per_day_surface_model_outcome"),
        ]

    def __str__(self) -> str:
        return f"{self.day} {self.outcome} {'rise' if self.direction > 0 else 'fall'}"

    @property
    def rate(self) -> float:
        return self.hits / self.answers if self.answers else 0.0

    @property
    def baseline_rate(self) -> float:
        return self.baseline_hits / self.baseline_answers if self.baseline_answers else 0.0


class TrendAlertEvent(models.Model):
    """One change to an alert's handling: who, when, what (acknowledged,
    reopened, the owner set, the note changed) and the value it took."""

    class Action(models.TextChoices):
        ACKNOWLEDGE = "acknowledge", "acknowledged"
        REOPEN = "reopen", "reopened"
        ASSIGN = "assign", "set the owner"
        NOTE = "note", "changed the note"

    alert = models.ForeignKey(TrendAlert, on_delete=models.CASCADE, related_name="events")
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                              related_name="+")
    created = models.DateTimeField(auto_now_add=True)
    action = models.CharField(max_length=12, choices=Action)
    # The owner's username ("" for nobody) or the note's new text.
    value = models.CharField(max_length=TrendAlert.NOTE_MAX_LENGTH, blank=True)
    previous = models.CharField(max_length=TrendAlert.NOTE_MAX_LENGTH, blank=True)

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.actor_id} {self.action} alert {self.alert_id}"


class QueueGroup(models.Model):
    """How many answers share one combination of the triage queue's counted
    filter values: surface, model, verdict, review state, assignee and which
    failing outcomes they have (``reviewer.severity.outcome_mask``).

    The queue's counts per filter value are sums over these rows (a few
    hundred) instead of a GROUP BY over every answer. Kept by
    ``reviewer.services.queue_counts`` wherever one of the values changes
    (an answer stored, decided, undone, assigned); rebuilt by ``manage.py
    rebuild_stats``. Ids are plain integers with 0 for none, so the unique
    key holds (NULLs would never collide).
    """

    surface_key = models.BigIntegerField()
    model = models.CharField(max_length=200, blank=True)
    verdict = models.CharField(max_length=4)
    review_state = models.CharField(max_length=10)
    assignee_key = models.BigIntegerField()
    outcomes = models.PositiveSmallIntegerField()
    answers = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["surface_key", "model", "verdict", "review_state", "assignee_key",
                        "outcomes"], name="queue_group_key"),
        ]
        # The assignees holding answers, read a key at a time when the
        # queue's values are offered uncounted (reviewer.selectors.triage):
        # in the unique key they come fifth, and finding a user's groups
        # there read the whole key index (33 ms a page at 20,000 groups).
        indexes = [models.Index(fields=["assignee_key"], name="queue_group_assignee")]

    def __str__(self) -> str:
        return f"{self.answers} answers in queue group {self.pk}"
