"""Answers as verified: the surface they were served on, the sources as
injected, and a verdict row for every sentence and citation.

Everything the report said is stored, so that the review page, supervisors'
triage and threshold calibration read rows instead of re-verifying, and a
later re-ingestion cannot change what was verified.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q

from reviewer.severity import OUTCOME_COLUMNS, triage_priority
from verification.claims import CHECKS

from .clients import ApiClient
from .deletion import LiveManager
from .documents import Chunk, Document


class Surface(models.Model):
    """Where answers are served, and what to do when one fails its check."""

    class Policy(models.TextChoices):
        STRIP = "strip", "Strip failing sentences"
        REGENERATE = "regenerate", "Regenerate with a correction"
        FLAG = "flag", "Serve flagged as unverified"
        ESCALATE = "escalate", "Refuse and escalate"

    name = models.SlugField(max_length=100, unique=True)
    description = models.CharField(max_length=300, blank=True)
    threshold = models.FloatField(
        default=0.92, help_text="Minimum similarity for an approximate match (0-1)."
    )
    policy = models.CharField(max_length=12, choices=Policy, default=Policy.FLAG)
    min_coverage = models.FloatField(
        default=1.0, help_text="Attributed claims / claims below this flags the answer."
    )
    require_quotes = models.BooleanField(
        default=False, help_text="A citation with nothing quoted flags the answer."
    )
    high_stakes = models.BooleanField(
        default=False,
        help_text="Legal or clinical work: approving or rejecting a failing answer needs a "
                  "note from the reviewer.",
    )
    # The semantic stage (reviewer.services.judgements): a model asked whether
    # each cited passage supports its sentence, on a sample of the answers,
    # every flagged one, and every one of a high-stakes surface.
    judge_sample_rate = models.FloatField(
        default=0.0, help_text="Share of passing answers the model judges too (0-1).")
    judge_calls_per_hour = models.PositiveIntegerField(
        default=0, help_text="Most model calls per hour for this surface; 0 turns it off.")
    judge_timeout_seconds = models.FloatField(
        default=30.0, help_text="How long one model call may take, and the longest "
                                "Retry-After waited for.")
    judge_max_chars = models.PositiveIntegerField(
        default=8000, help_text="Most characters (passage and sentence) sent in one call.")
    # The paraphrase checks a surface turns off (verification.claims.CHECKS):
    # each costs false alarms and finds changed claims at its own rate
    # (bench/support.py; the calibration page's precision per check).
    claim_checks_off = models.JSONField(
        default=list, blank=True,
        help_text="Checks of a sentence's own facts this surface does not run: number, "
                  "negation, quantifier, modal, comparative, entity.")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # The messages are what a supervisor sees when the surfaces page
            # refuses a value (full_clean checks constraints too).
            models.CheckConstraint(
                condition=Q(threshold__gt=0, threshold__lte=1), name="surface_threshold_range",
                violation_error_message="The threshold must be above 0 and at most 1."),
            models.CheckConstraint(
                condition=Q(min_coverage__gte=0, min_coverage__lte=1),
                name="surface_coverage_range",
                violation_error_message="The minimum coverage must be between 0 and 1."),
            models.CheckConstraint(
                condition=Q(judge_sample_rate__gte=0, judge_sample_rate__lte=1),
                name="surface_judge_sample_rate_range",
                violation_error_message="The judge's sample rate must be between 0 and 1."),
            models.CheckConstraint(
                condition=Q(judge_timeout_seconds__gt=0), name="surface_judge_timeout_positive",
                violation_error_message="The judge's timeout must be above 0 seconds."),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        off = self.claim_checks_off
        if not isinstance(off, list) or not all(isinstance(c, str) for c in off):
            raise ValidationError({"claim_checks_off": "A list of check names."})
        unknown = sorted(set(off) - set(CHECKS))
        if unknown:
            raise ValidationError({"claim_checks_off": (
                f"Unknown checks: {', '.join(unknown)}. The checks are {', '.join(CHECKS)}.")})

    @property
    def claim_checks(self) -> tuple[str, ...]:
        """The paraphrase checks this surface runs."""
        return tuple(c for c in CHECKS if c not in self.claim_checks_off)


#: The fields ``Answer.triage_priority`` is computed from.
PRIORITY_INPUTS = frozenset({"severity", "surface", "surface_id", *OUTCOME_COLUMNS.values()})


class AnswerQuerySet(models.QuerySet["Answer"]):
    def submitted_as(self, client: ApiClient | None, external_id: str) -> AnswerQuerySet:
        """The answer ``client`` submitted under ``external_id`` (at most one).

        The unique index holds non-empty ids only; saying so in the query is
        what lets SQLite use it instead of scanning all the client's answers.
        Unordered: there is at most one, and the answers' default order would
        let PostgreSQL's planner walk the created index instead.
        """
        return (self.filter(client=client, external_id=external_id).exclude(external_id="")
                .order_by())

    def needing_review(self) -> AnswerQuerySet:
        return self.exclude(verdict=Answer.Verdict.PASS).filter(
            review_state=Answer.ReviewState.PENDING
        )


class Answer(models.Model):
    class Verdict(models.TextChoices):
        PASS = "pass", "Pass"
        FLAG = "flag", "Flag"
        FAIL = "fail", "Fail"

    class Action(models.TextChoices):
        SERVE = "serve", "Serve"
        STRIP = "strip", "Strip"
        REGENERATE = "regenerate", "Regenerate"
        FLAG = "flag", "Serve flagged"
        ESCALATE = "escalate", "Escalate"

    class ReviewState(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"
        ESCALATED = "escalated", "Escalated"

    client = models.ForeignKey(ApiClient, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="answers")
    external_id = models.CharField(max_length=200, blank=True)
    surface = models.ForeignKey(Surface, null=True, blank=True, on_delete=models.PROTECT,
                                related_name="answers")
    model = models.CharField(max_length=200, blank=True)
    question = models.TextField(blank=True)
    text = models.TextField()
    input_format = models.CharField(max_length=20, default="native")
    verdict = models.CharField(max_length=4, choices=Verdict)
    action = models.CharField(max_length=12, choices=Action)
    coverage = models.FloatField()
    claims = models.PositiveIntegerField(default=0)
    attributed_claims = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict)
    reasons = models.JSONField(default=list)
    notes = models.JSONField(default=list)
    threshold = models.FloatField()
    elapsed_ms = models.FloatField()
    served_answer = models.TextField(blank=True)
    correction = models.TextField(blank=True)
    review_state = models.CharField(max_length=10, choices=ReviewState,
                                    default=ReviewState.PENDING)
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    # SHA-256 of the canonical request body: the same id sent again with
    # another body is a conflict, not a replay ("" for answers stored before).
    request_sha256 = models.CharField(max_length=64, blank=True, editable=False)
    # Triage columns, from ``counts`` (reviewer.severity): the worst outcome's
    # rank and each failing outcome's count, so the queue sorts and filters on
    # indexed columns.
    severity = models.PositiveSmallIntegerField(default=0, editable=False)
    fabricated_count = models.PositiveIntegerField(default=0, editable=False)
    altered_count = models.PositiveIntegerField(default=0, editable=False)
    not_found_count = models.PositiveIntegerField(default=0, editable=False)
    wrong_source_count = models.PositiveIntegerField(default=0, editable=False)
    unattributed_count = models.PositiveIntegerField(default=0, editable=False)
    uncited_count = models.PositiveIntegerField(default=0, editable=False)
    claim_mismatch_count = models.PositiveIntegerField(default=0, editable=False)
    claim_unsupported_count = models.PositiveIntegerField(default=0, editable=False)
    # The queue's keys before age in one indexed number (reviewer.severity.
    # triage_priority: severity, failing outcomes, the surface's high stakes),
    # so the queue reads its rows in index order instead of sorting them. Kept
    # by ``save`` (below), re-verification, and ``surface_update`` (a surface's
    # high stakes changing restamps its answers); ``rebuild_stats --check``
    # recounts it.
    triage_priority = models.BigIntegerField(default=0, editable=False)
    # Whether the two rungs disagree on one of its citations (the triage
    # filter "rungs disagree"; reviewer.selectors.judgements says when), stored
    # so the filter reads an index instead of looking for a judgement per
    # answer. Kept by storing a judgement and by re-verification (the only
    # writes of a judgement's label or a citation's outcome); ``rebuild_stats
    # --check`` recomputes it.
    rungs_disagree = models.BooleanField(default=False, editable=False)
    # Whose queue the answer is in (None: unassigned, anyone with the reviewer
    # role may take it); each change is also an ``Assignment`` row.
    assigned_to = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.PROTECT, related_name="assigned_answers")
    assigned_at = models.DateTimeField(null=True, blank=True)
    # Who has the review page open to decide it, and since when: shown to
    # others so two reviewers don't read the same evidence at once.
    in_review_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="+")
    in_review_since = models.DateTimeField(null=True, blank=True)
    # Soft deletion (see reviewer.models.deletion): hidden, never removed, so
    # its decisions and verdict history stay.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False, db_index=True)
    deleted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.PROTECT, related_name="+", editable=False)

    objects = LiveManager.from_queryset(AnswerQuerySet)()
    all_objects = AnswerQuerySet.as_manager()

    class Meta:
        ordering = ["-created"]
        permissions = [
            ("decide_answer", "Can decide answers in their own queue and unassigned ones"),
            ("view_all_queues", "Can see and decide answers in every reviewer's queue"),
            ("assign_answer", "Can assign answers to reviewers"),
            ("export_answers", "Can export the triage queue"),
            ("view_trends", "Can see trends"),
        ]
        constraints = [
            models.UniqueConstraint(fields=["client", "external_id"],
                                    condition=~Q(external_id=""),
                                    name="answer_external_id_unique_per_client"),
        ]
        indexes = [
            models.Index(fields=["verdict", "review_state", "-created"]),
            # The coverage filter's (its third column): no longer the queue's order.
            models.Index(fields=["review_state", "-severity", "coverage", "created"],
                         name="answer_triage_order"),
            # The queue's order (reviewer.selectors.triage), over the answers a
            # default queue holds: a supervisor's (needing review or escalated,
            # escalated first: 'escalated' < 'pending') and a reviewer's
            # (needing review) read their first page straight from it.
            models.Index(fields=["review_state", "-triage_priority", "created", "id"],
                         name="answer_triage_queue",
                         condition=(Q(review_state="pending") & ~Q(verdict="pass"))
                         | Q(review_state="escalated")),
            # The same order over every answer: the queue in any state, or in
            # one (approved, rejected...), reads its page from here too.
            models.Index(fields=["-triage_priority", "created", "id"],
                         name="answer_triage_any"),
            # The same order per assignee: a reviewer's own queue, or one
            # reviewer's, with other filters, reads its page in order too.
            # (On PostgreSQL migration 0030 makes it carry the coverage
            # filter's column too: "my queue" with coverage below X counts
            # from the index alone.)
            models.Index(fields=["assigned_to", "review_state", "-triage_priority", "created",
                                 "id"],
                         name="answer_triage_assigned",
                         condition=(Q(review_state="pending") & ~Q(verdict="pass"))
                         | Q(review_state="escalated")),
            # The queue's order over the answers the rungs disagree on (a few
            # in a thousand): the "rungs disagree" filter reads them alone, a
            # default queue's (escalated first) or one state's in order.
            models.Index(fields=["review_state", "-triage_priority", "created", "id"],
                         name="answer_rungs_disagree", condition=Q(rungs_disagree=True)),
            # On PostgreSQL, migration 0028 adds the coverage and date filters'
            # covering indexes and the search's stored document.
        ]

    def __str__(self) -> str:
        return f"answer {self.pk} ({self.verdict})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Saved with its ``triage_priority`` recomputed whenever a column it
        is computed from is saved (every field, or one of them named in
        ``update_fields``)."""
        update_fields = kwargs.get("update_fields")
        if update_fields is None or not PRIORITY_INPUTS.isdisjoint(update_fields):
            surface = self.surface if self.surface_id is not None else None
            self.triage_priority = triage_priority(
                {name: getattr(self, name) for name in ("severity", *OUTCOME_COLUMNS.values())},
                high_stakes=bool(surface is not None and surface.high_stakes))
            if update_fields is not None:
                kwargs["update_fields"] = {*update_fields, "triage_priority"}
        super().save(*args, **kwargs)


class AssignmentQuerySet(models.QuerySet["Assignment"]):
    def update(self, **kwargs: object) -> int:
        raise Assignment.AppendOnly("assignments are never changed; add a row instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise Assignment.AppendOnly("assignments are never deleted; add a row instead")


class Assignment(models.Model):
    """One change of whose queue an answer is in: an append-only history
    (``assignee`` None is an unassignment)."""

    class AppendOnly(Exception):
        """Raised by any attempt to change or delete an assignment."""

    answer = models.ForeignKey(Answer, on_delete=models.PROTECT, related_name="assignments")
    assignee = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                 on_delete=models.PROTECT, related_name="+")
    assigned_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                    related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["answer", "created", "pk"]

    def __str__(self) -> str:
        return f"answer {self.answer_id} to {self.assignee_id or 'nobody'}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise self.AppendOnly("assignments are never changed; add a row instead")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise self.AppendOnly("assignments are never deleted; add a row instead")


class AnswerSourceQuerySet(models.QuerySet["AnswerSource"]):
    def _fetch_all(self) -> None:
        # Sources stored as references (a document range and its hash) are
        # read back with their text, whatever reads them: rows, related
        # managers, prefetches, and values() that include the reference.
        fresh = self._result_cache is None
        super()._fetch_all()
        if fresh and self._result_cache:
            from reviewer.models.source_references import source_texts_resolve

            source_texts_resolve(self._result_cache)


class AnswerSource(models.Model):
    """A source as injected, and where it came from.

    A source from an ingested document (a chunk or a range) is stored as a
    reference: ``text`` is empty and the text is ``document.text[
    document_start:document_start + text_chars]`` (the injected range and
    the continuation read after it), whose SHA-256 is ``text_sha256``; it is
    read back, and checked against the hash, whenever the row is read. Any
    other source keeps its text snapshot (``text_sha256`` empty).
    """

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="sources")
    position = models.PositiveIntegerField()
    marker = models.CharField(max_length=20)
    text = models.TextField(blank=True)
    chunk = models.ForeignKey(Chunk, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    # PROTECT: a source stored as a reference needs its document's row.
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.PROTECT,
                                 related_name="+")
    text_chars = models.PositiveIntegerField(null=True, blank=True)
    text_sha256 = models.CharField(max_length=64, blank=True)
    document_start = models.PositiveIntegerField(null=True, blank=True)
    document_end = models.PositiveIntegerField(null=True, blank=True)
    superseded = models.BooleanField(default=False)
    # Page furniture inside ``text`` ([[start, end], ...]): skipped by matching,
    # shown greyed out to reviewers.
    furniture = models.JSONField(default=list)

    objects = AnswerSourceQuerySet.as_manager()

    class Meta:
        ordering = ["answer", "position"]
        constraints = [
            models.UniqueConstraint(fields=["answer", "marker"], name="source_marker_unique"),
            models.CheckConstraint(
                condition=Q(text_sha256="") | Q(document__isnull=False,
                                                document_start__isnull=False,
                                                text_chars__isnull=False),
                name="source_reference_complete"),
        ]

    def __str__(self) -> str:
        return f"[{self.marker}] of answer {self.answer_id}"

    @property
    def is_reference(self) -> bool:
        return bool(self.text_sha256)


class SentenceVerdict(models.Model):
    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="sentences")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    claim = models.BooleanField()
    status = models.CharField(max_length=20)

    class Meta:
        ordering = ["answer", "index"]
        constraints = [
            models.UniqueConstraint(fields=["answer", "index"], name="sentence_index_unique"),
        ]

    def __str__(self) -> str:
        return f"sentence {self.index} of answer {self.answer_id}: {self.status}"


class CitationVerdict(models.Model):
    """One checked citation, with everything the report said about it."""

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="citations")
    sentence = models.ForeignKey(SentenceVerdict, on_delete=models.CASCADE,
                                 related_name="citations")
    position = models.PositiveIntegerField()
    outcome = models.CharField(max_length=20, db_index=True)
    marker = models.CharField(max_length=20, blank=True)
    markers = models.JSONField(default=list)
    marker_start = models.PositiveIntegerField(null=True, blank=True)
    marker_end = models.PositiveIntegerField(null=True, blank=True)
    quote = models.TextField(blank=True)  # "" when the citation quotes nothing
    quote_start = models.PositiveIntegerField(null=True, blank=True)
    quote_end = models.PositiveIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    source_marker = models.CharField(max_length=20, blank=True)
    chunk_start = models.PositiveIntegerField(null=True, blank=True)
    chunk_end = models.PositiveIntegerField(null=True, blank=True)
    message = models.TextField()
    normalizations = models.JSONField(default=list)
    differences = models.JSONField(default=list)
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    document_start = models.PositiveIntegerField(null=True, blank=True)
    document_end = models.PositiveIntegerField(null=True, blank=True)
    pages = models.JSONField(default=list)
    superseded = models.BooleanField(default=False)
    # quote-not-found, and the cited source of wrong-source: the cited
    # source's closest window (a range of that AnswerSource's text, not a
    # match), its similarity, and its page rectangles when it is a PDF.
    closest_marker = models.CharField(max_length=20, blank=True)
    closest_start = models.PositiveIntegerField(null=True, blank=True)
    closest_end = models.PositiveIntegerField(null=True, blank=True)
    closest_score = models.FloatField(null=True, blank=True)
    closest_pages = models.JSONField(default=list)
    # The passage of the cited source behind the sentence: for an unquoted
    # citation its likely passage (located by shared words: paraphrased, not
    # a quote), for a verified quote the sentences around its match. A range
    # of that AnswerSource's text, the same range in its document, its page
    # rectangles there, the share of the sentence's content words it holds
    # (``support``), the ranges of its words the sentence shares, the
    # sentence's words it lacks, and what the sentence says that it
    # contradicts or nothing cited says (``findings``: claim-mismatch).
    passage_start = models.PositiveIntegerField(null=True, blank=True)
    passage_end = models.PositiveIntegerField(null=True, blank=True)
    passage_document_start = models.PositiveIntegerField(null=True, blank=True)
    passage_document_end = models.PositiveIntegerField(null=True, blank=True)
    passage_pages = models.JSONField(default=list)
    support = models.FloatField(null=True, blank=True)
    shared = models.JSONField(default=list)
    missing = models.JSONField(default=list)
    findings = models.JSONField(default=list)

    class Meta:
        ordering = ["answer", "position"]

    def __str__(self) -> str:
        return f"{self.outcome} [{self.marker}] in answer {self.answer_id}"


class ReviewDecisionQuerySet(models.QuerySet["ReviewDecision"]):
    """Decisions are an append-only audit trail: rows are added, never changed
    or removed (an undo is a row of its own)."""

    def update(self, **kwargs: object) -> int:
        raise ReviewDecision.AppendOnly("review decisions are never changed; add a row instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise ReviewDecision.AppendOnly("review decisions are never deleted; add an undo row")


class ReviewDecision(models.Model):
    """A reviewer's decision on an answer: one row of its append-only audit trail.

    Each row says which state it moved the answer from and to. An ``undo`` row
    points at the decision it undoes (``undoes``, at most one undo each) and
    moves the answer back to that decision's ``from_state``; nothing is ever
    updated or deleted.
    """

    class AppendOnly(Exception):
        """Raised by any attempt to change or delete a decision."""

    class Decision(models.TextChoices):
        APPROVE = "approve", "Approved"
        REJECT = "reject", "Rejected"
        ESCALATE = "escalate", "Escalated"
        UNDO = "undo", "Undone"

    answer = models.ForeignKey(Answer, on_delete=models.PROTECT, related_name="decisions")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                 related_name="review_decisions")
    decision = models.CharField(max_length=10, choices=Decision)
    note = models.TextField(blank=True)
    # The answer's review state before and after this row ("" before: recorded
    # before states were kept).
    from_state = models.CharField(max_length=10, choices=Answer.ReviewState, blank=True)
    to_state = models.CharField(max_length=10, choices=Answer.ReviewState, blank=True)
    undoes = models.OneToOneField("self", null=True, blank=True, on_delete=models.PROTECT,
                                  related_name="undone_by")
    # Failing citations (ids) the reviewer had not opened when deciding: an
    # approval with any is one the reviewer confirmed knowingly.
    unopened_failures = models.JSONField(default=list, blank=True)
    # False for a decision that lost a race: the reviewer decided on a state
    # someone else's decision (``conflicts_with``) had already moved. Kept in
    # the trail, but the answer's state did not move.
    applied = models.BooleanField(default=True)
    conflicts_with = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT,
                                       related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    objects = ReviewDecisionQuerySet.as_manager()

    class Meta:
        ordering = ["answer", "created", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(decision="undo", undoes__isnull=False)
                           | (~Q(decision="undo") & Q(undoes__isnull=True))),
                name="review_decision_undo_points_at_a_decision"),
            models.CheckConstraint(
                condition=Q(applied=True, conflicts_with__isnull=True)
                | Q(applied=False, conflicts_with__isnull=False),
                name="review_decision_unapplied_names_its_winner"),
        ]

    def __str__(self) -> str:
        return f"{self.decision} of answer {self.answer_id} by {self.reviewer_id}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise self.AppendOnly("review decisions are never changed; add a row instead")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise self.AppendOnly("review decisions are never deleted; add an undo row")
