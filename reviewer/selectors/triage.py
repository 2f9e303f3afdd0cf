"""The triage queue: answers needing a human, worst first, filtered by what a
supervisor or reviewer asks for, with counts per filter value.

Filters come from the URL (``TriageFilters.from_query``) and go back into it
(``TriageFilters.query``), so a queue is a link. Values that make no sense are
dropped with a note the page shows, never an error.

The queue's order is total: escalated answers first in a supervisor's
default queue (which holds them), then severity desc, the number of failing
outcomes desc, high-stakes surfaces first, created asc, pk asc; "next in
queue" is a keyset query on the same keys.

Counts per filter value are sums over groups of answers sharing the facet
columns' values; each facet's counts ("as if this facet were not set, with
every other one set") are summed in Python from the groups. The groups are
kept as answers change (``QueueGroup``, ``reviewer.services.queue_counts``)
and read from there, unless a search, coverage, date or rungs filter is set:
then they are one GROUP BY over the answers those filters keep, read up to
``COUNT_CAP`` of them. When the filters keep more, counting them would read
them all (seconds at a million answers), so the page says so instead: the
values' counts are left out and the total is "more than COUNT_CAP" unless
the queue, every filter applied, holds fewer.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time, timedelta
from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import (
    Case,
    Expression,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Left
from django.utils import timezone

from reviewer.models import Answer, QueueGroup, ReviewDecision, Surface
from reviewer.selectors.workspaces import answers_visible, workspaces_of
from reviewer.severity import OUTCOME_BITS, OUTCOME_COLUMNS, SEVERITY_ORDER, reason_words

__all__ = [
    "ANY_STATE", "COUNT_CAP", "EXPORT_COLUMNS", "FACETS", "NEEDS_REVIEW", "PAGE_SIZE",
    "FacetValue", "QueueCounts", "QueueEntry", "TriageFilters", "TriagePage", "escalations_first",
    "row_reason", "triage_counts", "triage_export_rows", "triage_next", "triage_page",
    "triage_queryset",
]

PAGE_SIZE = 50
#: The default state filter: answers that did not pass and nobody has decided.
NEEDS_REVIEW = ""
ANY_STATE = "any"
#: The filters counted per value, in the order the form shows them.
FACETS = ("state", "verdict", "outcome", "surface", "model", "assignee")
#: Most answers the search, coverage, date and rungs filters are counted over
#: (and the queue's total, when they keep more): past it the page says "more
#: than" instead of reading every one.
COUNT_CAP = 10_000
#: Beyond this many answers kept by the search, coverage, date and rungs
#: filters (PostgreSQL's planner's estimate), the queue's total is that
#: estimate, said "about", and no value is counted, unless the page is asked
#: to count exactly (``count=exact``; then up to COUNT_CAP). Counting reads
#: every answer kept: at a million answers, a common word with a week and a
#: coverage filter is 9,000 answers and 300 ms, to say what the estimate says
#: within a few per cent; 1,000 is read in a few milliseconds.
EXACT_COUNT_LIMIT = 1_000
#: Config of the full-text search: the stored document (migration 0028's
#: ``search_document``) is ``to_tsvector`` in this config.
SEARCH_CONFIG = "english"

#: Worst first, as the outcome filter lists them (SEVERITY_ORDER).
_OUTCOME_LABELS = {
    "fabricated-marker": "fabricated marker", "quote-altered": "quote altered",
    "claim-mismatch": "claim mismatch", "quote-not-found": "quote not found",
    "claim-unsupported": "claim unsupported", "wrong-source": "wrong source",
    "unattributed-quote": "quote without marker", "uncited-claim": "uncited claim",
}
QUESTION_PREFIX = 140


class _SearchDocument(Expression):
    """The answer's stored search document, ``search_document``: a column
    PostgreSQL generates from the question and the text (migration 0028; not
    a model field, SQLite has none), indexed with GIN. Searching the stored
    column instead of ``to_tsvector`` of the text spares computing it again
    for every row read back (about 65 µs an answer)."""

    def __init__(self) -> None:
        from django.contrib.postgres.search import SearchVectorField

        super().__init__(output_field=SearchVectorField())

    def as_sql(self, compiler: Any, connection: Any) -> tuple[str, list[Any]]:
        table = compiler.quote_name_unless_alias(compiler.query.base_table)
        return f"{table}.{connection.ops.quote_name('search_document')}", []


@dataclass(frozen=True)
class TriageFilters:
    """What the queue shows, parsed from a query string; ``notes`` say which
    values were ignored and why."""

    surface: str = ""
    surface_id: int | None = None
    model: str = ""
    verdict: str = ""
    outcome: str = ""
    coverage_below: int | None = None  # per cent: coverage < this
    date_from: date | None = None
    date_to: date | None = None  # inclusive
    state: str = NEEDS_REVIEW
    assignee: str = ""  # "", "me", "none" or a username
    assignee_id: int | None = None  # who "me" or the username is
    q: str = ""
    # Only answers the two rungs disagree on (reviewer.selectors.judgements;
    # ``Answer.rungs_disagree`` stores it).
    disagree: bool = False
    #: Count the search, coverage, date and rungs filters' answers exactly
    #: (up to COUNT_CAP) however many the planner expects.
    exact: bool = False
    page: int = 1
    notes: tuple[str, ...] = field(default=(), compare=False)

    @classmethod
    def from_query(cls, query: Mapping[str, Any], *, user: Any) -> TriageFilters:
        """Parse ``query`` (a QueryDict or a dict of strings) for ``user``:
        one who may not see every queue is held to their own and unassigned."""
        notes: list[str] = []

        def text(name: str, limit: int | None = 200) -> str:
            value = query.get(name) or ""
            return str(value).strip()[:limit]

        values: dict[str, Any] = {}
        verdict = text("verdict")
        if verdict in Answer.Verdict.values:
            values["verdict"] = verdict
        elif verdict:
            notes.append(f"Ignored verdict “{verdict}”: not one of "
                         f"{', '.join(Answer.Verdict.values)}.")
        outcome = text("outcome")
        if outcome in SEVERITY_ORDER:
            values["outcome"] = outcome
        elif outcome:
            notes.append(f"Ignored outcome “{outcome}”: not one of {', '.join(SEVERITY_ORDER)}.")
        state = text("state")
        if state in (ANY_STATE, *Answer.ReviewState.values):
            values["state"] = state
        elif state:
            notes.append(f"Ignored review state “{state}”: showing answers that need review.")
        coverage = text("coverage_below").rstrip("%").strip()
        if coverage:
            try:
                number = float(coverage)
            except ValueError:
                number = math.nan
            if 0 <= number <= 100:
                values["coverage_below"] = round(number)
            else:
                notes.append(f"Ignored coverage below “{coverage}”: give a percentage "
                             "from 0 to 100.")
        for name, label in (("from", "From"), ("to", "To")):
            raw = text(name, 40)
            if not raw:
                continue
            try:
                values[f"date_{name}"] = date.fromisoformat(raw)
            except ValueError:
                notes.append(f"Ignored {label.lower()} date “{raw}”: use YYYY-MM-DD.")
        if (values.get("date_from") and values.get("date_to")
                and values["date_from"] > values["date_to"]):
            notes.append("The from date is after the to date: nothing can match.")
        model = text("model")
        if model and not QueueGroup.objects.filter(model=model, answers__gt=0).exists():
            notes.append(f"Ignored model “{model}”: no answer has that model.")
        elif model:
            values["model"] = model
        # Words searched for have no natural limit: never cut (a cut query
        # finds other answers, without a word).
        values["q"] = text("q", None)
        disagree = text("disagree", 10).lower()
        values["disagree"] = disagree in ("1", "on", "true")
        if disagree and disagree not in ("1", "on", "true", "0", "off", "false"):
            notes.append(f"Ignored rungs disagree “{disagree}”: use 1 or leave it out.")
        count = text("count", 10).lower()
        values["exact"] = count == "exact"
        if count and count != "exact":
            notes.append(f"Ignored count “{count}”: use exact or leave it out.")
        page = text("page", 10)
        values["page"] = int(page) if page.isdigit() and int(page) > 0 else 1
        if page and values["page"] == 1 and page != "1":
            notes.append(f"Ignored page “{page}”: give a page number from 1; showing page 1.")

        surface = text("surface")
        if surface:
            surface_id = Surface.objects.filter(name=surface).values_list("pk", flat=True).first()
            if surface_id is None:
                notes.append(f"Ignored surface “{surface}”: there is no such surface.")
            else:
                values.update(surface=surface, surface_id=surface_id)

        values.update(cls._assignee(text("assignee", 150), user, notes))
        return cls(**values, notes=tuple(notes))

    @staticmethod
    def _assignee(raw: str, user: Any, notes: list[str]) -> dict[str, Any]:
        if not raw:
            return {}
        if raw in ("me", "none"):
            return {"assignee": raw, "assignee_id": user.pk if raw == "me" else None}
        if raw == user.get_username():
            return {"assignee": "me", "assignee_id": user.pk}
        if not user.has_perm("reviewer.view_all_queues"):
            notes.append(f"You can see only your own queue and unassigned answers, not "
                         f"{raw}'s.")
            return {}
        found = get_user_model().objects.filter(username=raw).values_list("pk", flat=True).first()
        if found is None:
            notes.append(f"Ignored assignee “{raw}”: there is no such user.")
            return {}
        return {"assignee": raw, "assignee_id": found}

    def query(self, **changes: Any) -> str:
        """The filters as a query string (defaults left out; ``page`` only
        when above 1), with ``changes`` applied."""
        filters = replace(self, **changes) if changes else self
        pairs = [
            ("q", filters.q), ("state", filters.state), ("verdict", filters.verdict),
            ("outcome", filters.outcome), ("surface", filters.surface), ("model", filters.model),
            ("assignee", filters.assignee), ("disagree", "1" if filters.disagree else ""),
            ("coverage_below", "" if filters.coverage_below is None else filters.coverage_below),
            ("from", filters.date_from.isoformat() if filters.date_from else ""),
            ("to", filters.date_to.isoformat() if filters.date_to else ""),
            ("count", "exact" if filters.exact else ""),
            ("page", filters.page if filters.page > 1 else ""),
        ]
        return urlencode([(name, value) for name, value in pairs if value != ""])

    @property
    def is_default(self) -> bool:
        return self.query(page=1) == ""


# ---- queries -----------------------------------------------------------------

def _scoped(user: Any) -> QuerySet[Answer]:
    """The answers ``user`` may see in the queue: of their workspaces, all
    of them with view_all_queues, else their own queue and the unassigned
    answers."""
    answers = answers_visible(Answer.objects.all(), user)
    if not user.has_perm("reviewer.view_all_queues"):
        answers = answers.filter(Q(assigned_to_id=user.pk) | Q(assigned_to__isnull=True))
    return answers


def _search(answers: QuerySet[Answer], q: str) -> QuerySet[Answer]:
    if not q:
        return answers
    if connection.vendor == "postgresql":
        from django.contrib.postgres.search import SearchQuery

        return answers.alias(search=_SearchDocument()).filter(
            search=SearchQuery(q, config=SEARCH_CONFIG, search_type="websearch"))
    return answers.filter(Q(question__icontains=q) | Q(text__icontains=q))


def _unfaceted(filters: TriageFilters, user: Any) -> QuerySet[Answer]:
    """Scope and the filters that are not counted per value."""
    answers = _search(_scoped(user), filters.q)
    if filters.disagree:
        # The stored flag (kept by the writes that change it), read from its
        # partial index: an EXISTS over the judgements per answer read every
        # answer the other filters keep (0.3 s at 1M).
        answers = answers.filter(rungs_disagree=True)
    if filters.coverage_below is not None:
        answers = answers.filter(coverage__lt=filters.coverage_below / 100)
    zone = timezone.get_current_timezone()
    if filters.date_from is not None:
        answers = answers.filter(created__gte=datetime.combine(filters.date_from, time.min, zone))
    if filters.date_to is not None:
        answers = answers.filter(
            created__lt=datetime.combine(filters.date_to + timedelta(days=1), time.min, zone))
    return answers


def escalations_first(user: Any) -> bool:
    """Whether ``user``'s default queue holds the escalated answers too, on
    top: escalations are for those who see every queue (supervisors)."""
    return bool(user.has_perm("reviewer.view_all_queues"))


def _facet_q(filters: TriageFilters, user: Any, skip: str = "") -> Q:
    """The counted filters as one condition, leaving out ``skip``."""
    condition = Q()
    if skip != "state":
        if filters.state == NEEDS_REVIEW:
            needing = Q(review_state=Answer.ReviewState.PENDING) & ~Q(verdict=Answer.Verdict.PASS)
            if escalations_first(user):
                needing |= Q(review_state=Answer.ReviewState.ESCALATED)
            condition &= needing
        elif filters.state != ANY_STATE:
            condition &= Q(review_state=filters.state)
    if skip != "verdict" and filters.verdict:
        condition &= Q(verdict=filters.verdict)
    if skip != "outcome" and filters.outcome:
        condition &= Q(**{f"{OUTCOME_COLUMNS[filters.outcome]}__gt": 0})
    if skip != "surface" and filters.surface_id is not None:
        condition &= Q(surface_id=filters.surface_id)
    if skip != "model" and filters.model:
        condition &= Q(model=filters.model)
    if skip != "assignee" and filters.assignee:
        condition &= Q(assigned_to_id=filters.assignee_id)
    return condition


def _order_keys(filters: TriageFilters, user: Any) -> list[tuple[str, Any, bool]]:
    """The queue's order as (annotation, expression, descending): escalated
    first (a supervisor's default queue), then severity, the number of
    failing outcomes (citations and claims), high-stakes surfaces first,
    then the oldest.

    Severity, failing outcomes and high stakes are one stored number,
    ``Answer.triage_priority`` (reviewer.severity.triage_priority), and the
    escalations come first by ``review_state`` itself: a supervisor's default
    queue holds only 'escalated' and 'pending' answers, and 'escalated' sorts
    first. So the order is plain columns, the ``answer_triage_queue`` index's,
    and PostgreSQL reads a page in index order instead of sorting every row."""
    keys: list[tuple[str, Any, bool]] = []
    if filters.state == NEEDS_REVIEW and escalations_first(user):
        keys.append(("q_escalated", F("review_state"), False))
    keys += [
        ("q_priority", F("triage_priority"), True),
        ("q_created", F("created"), False),
        ("q_pk", F("pk"), False),
    ]
    return keys


#: The escalated key's values, in queue order (the tests hold them sorted).
_ESCALATED_FIRST = (Answer.ReviewState.ESCALATED.value, Answer.ReviewState.PENDING.value)


def _ordered(answers: QuerySet[Answer], filters: TriageFilters, user: Any
             ) -> QuerySet[Answer]:
    keys = _order_keys(filters, user)
    return (answers.alias(**{name: expression for name, expression, _ in keys})
            .order_by(*(f"-{name}" if descending else name for name, _, descending in keys)))


def _order_values(answer: Answer, filters: TriageFilters, user: Any) -> dict[str, Any]:
    """``answer``'s values of the order's keys (as ``_order_keys`` computes
    them). An answer just moved out of escalated (a supervisor decided it)
    keeps its place among the escalations, so the next is the next of them;
    any other answer out of the queue takes the place of one needing review."""
    keys = _order_keys(filters, user)
    escalated = answer.review_state == Answer.ReviewState.ESCALATED
    if not escalated and keys[0][0] == "q_escalated":
        escalated = (ReviewDecision.objects.filter(answer=answer, applied=True)
                     .order_by("-created", "-pk").values_list("from_state", flat=True)
                     .first()) == Answer.ReviewState.ESCALATED
    values = {
        "q_escalated": _ESCALATED_FIRST[0] if escalated else _ESCALATED_FIRST[1],
        "q_priority": answer.triage_priority,
        "q_created": answer.created, "q_pk": answer.pk,
    }
    return {name: values[name] for name, _, _ in keys}


def triage_queryset(filters: TriageFilters, user: Any) -> QuerySet[Answer]:
    """Every answer in the filtered queue, in queue order (no columns chosen)."""
    return _ordered(_unfaceted(filters, user).filter(_facet_q(filters, user)), filters, user)


@dataclass(frozen=True)
class QueueEntry:
    """One answer of a queue page, as its row reads it."""

    pk: int
    #: The question's first QUESTION_PREFIX characters (None: no question).
    question_head: str | None
    verdict: str
    coverage: float
    severity: int
    model: str
    review_state: str
    created: datetime
    #: ``row_reason``'s words.
    reason: str
    #: The surface's name and the assignee's username ("" when none).
    surface: str
    assignee: str
    #: Who last opened the answer's review page, and when it was last heard
    #: from (reviewer.services.assignments.present_other).
    in_review_by_id: int | None
    in_review_since: datetime | None


def _rows(answers: QuerySet[Answer]) -> QuerySet[Any]:
    """The page's answers as tuples of the columns its rows read
    (``_entry`` makes each a QueueEntry): no answer text, the question only
    as a prefix. Plain values, not model instances (three of them a row with
    the surface and the assignee: about 50 µs each). The person whose page
    is open is read by id, named only when present (rarely): joined here,
    PostgreSQL joined every answer a filter keeps before sorting them (half
    of a rare word's rows query at a million answers, 10 ms)."""
    username = f"assigned_to__{get_user_model().USERNAME_FIELD}"
    return (answers.annotate(question_head=Left("question", QUESTION_PREFIX))
            .values_list("pk", "question_head", "verdict", "coverage", "severity", "model",
                         "review_state", "created", "surface__name", username,
                         "in_review_by_id", "in_review_since", *OUTCOME_COLUMNS.values()))


def _entry(values: tuple[Any, ...]) -> QueueEntry:
    """A ``_rows`` tuple as a QueueEntry."""
    (pk, question_head, verdict, coverage, severity, model, review_state, created, surface,
     assignee, in_review_by_id, in_review_since, *counts) = values
    reason = reason_words(dict(zip(OUTCOME_COLUMNS, counts, strict=True)), coverage)
    return QueueEntry(
        pk=pk, question_head=question_head, verdict=verdict, coverage=coverage,
        severity=severity, model=model, review_state=review_state, created=created,
        reason=reason or "no failing citation", surface=surface or "", assignee=assignee or "",
        in_review_by_id=in_review_by_id, in_review_since=in_review_since)


# ---- counts per filter value -------------------------------------------------

@dataclass(frozen=True)
class FacetValue:
    value: str
    label: str
    #: None: not counted (the search, coverage, date or rungs filters keep
    #: more than COUNT_CAP answers).
    count: int | None
    selected: bool


@dataclass(frozen=True)
class QueueCounts:
    """The queue's total and its values' counts (``triage_counts``)."""

    total: int
    facets: dict[str, list[FacetValue]]
    #: False when the search, coverage, date or rungs filters keep more than
    #: COUNT_CAP answers: the values' counts are None.
    counted: bool = True
    #: The queue holds more than ``total`` answers (COUNT_CAP): counting stopped there.
    total_capped: bool = False
    #: ``total`` is the planner's estimate (EXACT_COUNT_LIMIT): not counted.
    estimated: bool = False


def _outcome_mask() -> Any:
    bits = [Case(When(**{f"{OUTCOME_COLUMNS[o]}__gt": 0}, then=Value(bit)), default=Value(0))
            for o, bit in OUTCOME_BITS.items()]
    total = bits[0]
    for bit in bits[1:]:
        total = total + bit
    return total


def _uses_kept_counts(filters: TriageFilters) -> bool:
    """Whether the queue's counts can come from the kept groups: only when
    every unfaceted filter is off (search, coverage and dates cut across the
    groups)."""
    return not (filters.q or filters.coverage_below is not None or filters.date_from
                or filters.date_to or filters.disagree)


#: The kept columns each facet's counts group on.
_KEPT_GROUPING = {
    "state": ("g.review_state", "g.verdict"), "verdict": ("g.verdict",),
    "outcome": ("g.outcomes",), "surface": ("g.surface_key", "s.name"), "model": ("g.model",),
    "assignee": ("g.assignee_key", "u.{username}"),
}
#: Every column a facet's row may carry, and its SQL type when a facet leaves it out.
_KEPT_COLUMNS = (
    ("g.review_state", "varchar(10)", "review_state"), ("g.verdict", "varchar(4)", "verdict"),
    ("g.outcomes", "integer", "outcomes"), ("g.surface_key", "bigint", "surface_id"),
    ("s.name", "varchar(100)", "surface__name"), ("g.model", "varchar(200)", "model"),
    ("g.assignee_key", "bigint", "assigned_to_id"),
    ("u.{username}", "varchar(150)", "assigned_to__username"),
)


def _kept_condition(filters: TriageFilters, user: Any, skip: str) -> tuple[str, list[Any]]:
    """``_facet_q`` on the kept groups' columns, with the user's scope."""
    parts, params = ["g.answers > 0"], []
    if not user.has_perm("reviewer.view_all_queues"):
        parts.append("g.assignee_key IN (0, %s)")
        params.append(user.pk)
    if skip != "state":
        if filters.state == NEEDS_REVIEW:
            parts.append("((g.review_state = 'pending' AND g.verdict <> 'pass')"
                         + (" OR g.review_state = 'escalated')" if escalations_first(user)
                            else ")"))
        elif filters.state != ANY_STATE:
            parts.append("g.review_state = %s")
            params.append(filters.state)
    if skip != "verdict" and filters.verdict:
        parts.append("g.verdict = %s")
        params.append(filters.verdict)
    if skip != "outcome" and filters.outcome:
        parts.append("(g.outcomes & %s) <> 0")
        params.append(OUTCOME_BITS[filters.outcome])
    if skip != "surface" and filters.surface_id is not None:
        parts.append("g.surface_key = %s")
        params.append(filters.surface_id)
    if skip != "model" and filters.model:
        parts.append("g.model = %s")
        params.append(filters.model)
    if skip != "assignee" and filters.assignee:
        parts.append("g.assignee_key = %s")
        params.append(filters.assignee_id or 0)
    return " AND ".join(parts), params


def _facet_counts(filters: TriageFilters, user: Any, *, live: bool
                  ) -> tuple[int, dict[str, list[dict[str, Any]]], int | None]:
    """The total and, per facet, the rows its counts are summed from: one
    query, a GROUP BY per facet over groups of answers sharing the facet
    columns' values (a few thousand rows at most), returning a few dozen.

    The groups are the kept ones (``QueueGroup``), or with ``live`` the
    answers the unfaceted filters keep, at most ``COUNT_CAP + 1`` of them,
    grouped in a CTE first; then the third value is how many were read (the
    sums are every answer's only when that is at most ``COUNT_CAP``), else
    None."""
    quote = connection.ops.quote_name
    users = get_user_model()._meta
    cte, params = "", []
    table = quote(QueueGroup._meta.db_table)
    if live:
        sql, live_params = _live_answers(filters, user).query.sql_with_params()
        cte = (f"WITH live_groups AS (SELECT COALESCE(t.surface_id, 0) AS surface_key, "
               f"t.model, t.verdict, t.review_state, "
               f"COALESCE(t.assigned_to_id, 0) AS assignee_key, t.outcomes, "
               f"COUNT(*) AS answers FROM ({sql}) t GROUP BY 1, 2, 3, 4, 5, 6) ")
        params, table = list(live_params), "live_groups"
    username = quote(users.get_field("username").column)
    joins = {"surface": f" LEFT JOIN {quote(Surface._meta.db_table)} s ON s.id = g.surface_key",
             "assignee": f" LEFT JOIN {quote(users.db_table)} u "
                         f"ON u.{quote(users.pk.column)} = g.assignee_key"}
    columns = [(column.format(username=username), kind) for column, kind, _ in _KEPT_COLUMNS]
    # Facets whose own filter is not set sum the same groups (every filter
    # applies to them); on PostgreSQL they are summed in one pass over them,
    # GROUPING SETS, not a pass each: at a million answers the groups
    # needing review are 10,700 of 20,000, and six passes over them took 20
    # of the default queue's 30 ms for its counts, one 13 (SQLite, with few
    # groups, has no GROUPING SETS).
    passes: dict[tuple[str, tuple[Any, ...]], list[str]] = {}
    for facet in (*FACETS, "total"):
        where, where_params = _kept_condition(filters, user, skip=facet)
        passes.setdefault((where, tuple(where_params)), []).append(facet)
    selects = []
    for (where, where_params), facets in passes.items():
        together = connection.vendor == "postgresql" and len(facets) > 1
        for group in [facets] if together else [[facet] for facet in facets]:
            source = f"FROM {table} g" + "".join(joins.get(facet, "") for facet in group)
            sets = [[c.format(username=username) for c in _KEPT_GROUPING.get(facet, ())]
                    for facet in group]
            grouped = {column for grouping in sets for column in grouping}
            shown = ", ".join(column if column in grouped else f"CAST(NULL AS {kind})"
                              for column, kind in columns)
            if together:
                # Each row's facet: the one whose grouping holds a column
                # no earlier facet of the pass groups on (verdict is in
                # state's too: state is asked first).
                label = " ".join(f"WHEN GROUPING({_KEPT_GROUPING[facet][0]}) = 0 "
                                 f"THEN '{facet}'" for facet in group if facet != "total")
                label = f"CASE {label} ELSE 'total' END"
                group_by = " GROUP BY GROUPING SETS (" + ", ".join(
                    f"({', '.join(grouping)})" for grouping in sets) + ")"
            else:
                label = f"'{group[0]}'"
                group_by = f" GROUP BY {', '.join(sets[0])}" if sets[0] else ""
            selects.append(f"SELECT {label}, {shown}, SUM(g.answers) {source} WHERE {where}"
                           f"{group_by}")
            params.extend(where_params)
    if live:
        nulls = ", ".join(f"CAST(NULL AS {kind})" for _, kind in columns)
        selects.append(f"SELECT 'read', {nulls}, SUM(g.answers) FROM {table} g")
    keys = ("facet", *(key for _, _, key in _KEPT_COLUMNS), "n")
    per_facet: dict[str, list[dict[str, Any]]] = {facet: [] for facet in FACETS}
    total, read = 0, None
    with connection.cursor() as cursor:
        cursor.execute(cte + " UNION ALL ".join(selects), params)
        for values in cursor.fetchall():
            row = dict(zip(keys, values, strict=True))
            if row["facet"] in ("total", "read"):
                number = int(row["n"] or 0)
                total, read = (number, read) if row["facet"] == "total" else (total, number)
                continue
            row["n"] = int(row["n"] or 0)
            row["surface_id"] = row["surface_id"] or None
            row["assigned_to_id"] = row["assigned_to_id"] or None  # 0 is "none" when kept
            per_facet[row["facet"]].append(row)
    return total, per_facet, read


def _live_answers(filters: TriageFilters, user: Any) -> QuerySet[Answer]:
    """Up to ``COUNT_CAP + 1`` of the answers the unfaceted filters keep (any
    of them: they are counted only when they are all of them), as the
    answer's own narrow columns the counts group on (names are joined later,
    per facet: grouping on them too made PostgreSQL sort every row on wide
    text keys, 3× slower at 100k)."""
    return (_unfaceted(filters, user).order_by()
            .annotate(outcomes=_outcome_mask())
            .values("surface_id", "model", "verdict", "review_state", "assigned_to_id",
                    "outcomes")[:COUNT_CAP + 1])


def _estimated_rows(answers: QuerySet[Answer]) -> int | None:
    """How many rows PostgreSQL's planner expects ``answers`` to hold (its
    plan's estimate: planned, not run); None on another database."""
    if connection.vendor != "postgresql":
        return None
    plan = json.loads(answers.explain(format="json"))
    return int(plan[0]["Plan"]["Plan Rows"])


def _count_up_to(answers: QuerySet[Answer], cap: int) -> int:
    """How many ``answers`` there are, reading no more than ``cap + 1``."""
    return answers.order_by().values("pk")[:cap + 1].count()


def _facet_keys(facet: str, group: Mapping[str, Any], user: Any) -> Iterator[tuple[str, str]]:
    """The (value, label) pairs of ``facet`` a group counts towards."""
    if facet == "state":
        yield ANY_STATE, "any state"
        if ((group["review_state"] == "pending" and group["verdict"] != "pass")
                or (group["review_state"] == "escalated" and escalations_first(user))):
            yield NEEDS_REVIEW, _needs_review_label(user)
        yield group["review_state"], Answer.ReviewState(group["review_state"]).label.lower()
    elif facet == "verdict":
        yield group["verdict"], Answer.Verdict(group["verdict"]).label.lower()
    elif facet == "outcome":
        for outcome, bit in OUTCOME_BITS.items():
            if group["outcomes"] & bit:
                yield outcome, _OUTCOME_LABELS[outcome]
    elif facet == "surface":
        if group["surface__name"]:
            yield group["surface__name"], group["surface__name"]
    elif facet == "model":
        yield group["model"], group["model"] or "(no model)"
    elif facet == "assignee":
        if group["assigned_to_id"] is None:
            yield "none", "unassigned"
        elif group["assigned_to_id"] == user.pk:
            yield "me", f"me ({group['assigned_to__username']})"
        else:
            yield group["assigned_to__username"], group["assigned_to__username"]


def _selected(facet: str, filters: TriageFilters) -> str:
    return {"state": filters.state, "verdict": filters.verdict, "outcome": filters.outcome,
            "surface": filters.surface, "model": filters.model,
            "assignee": filters.assignee}[facet]


def triage_counts(filters: TriageFilters, user: Any, *, kept: bool | None = None
                  ) -> QueueCounts:
    """How many answers the queue holds, and per facet how many each value
    would hold with every other filter kept.

    With no search, coverage, date or rungs filter, one query over the kept
    groups (``kept`` forces the choice; the tests compare both). With one,
    the queue's total is counted first, up to ``COUNT_CAP``: past it, the
    values are not counted (the answers the filters keep are more still);
    else a GROUP BY over the answers those filters keep counts them, when
    they are at most ``COUNT_CAP``. When PostgreSQL expects those filters to
    keep at most ``COUNT_CAP`` answers, the GROUP BY comes first, and is all
    when they do (its groups hold the total). When the planner expects more
    than EXACT_COUNT_LIMIT, the total is its estimate and nothing is counted,
    unless ``filters.exact``."""
    use_kept = kept if kept is not None else _uses_kept_counts(filters)
    # The kept groups count every workspace: someone who sees only some is
    # counted live, over the answers they may see.
    use_kept = use_kept and workspaces_of(user) is None
    if use_kept:
        total, per_facet, _ = _facet_counts(filters, user, live=False)
        return QueueCounts(total=total, facets=_facet_values(filters, user, per_facet))
    estimate = _estimated_rows(_unfaceted(filters, user).order_by().values("pk"))
    if estimate is not None and estimate > EXACT_COUNT_LIMIT and not filters.exact:
        queue = _estimated_rows(triage_queryset(filters, user).order_by().values("pk"))
        return QueueCounts(total=queue or 0, estimated=True, counted=False,
                           facets=_facet_values(filters, user, _known_values(filters, user),
                                                counted=False))
    grouped = None
    if estimate is not None and estimate <= COUNT_CAP:
        # Few enough by the planner's estimate: the GROUP BY alone, whose
        # groups give the total too when it read them all (the count first
        # would read the same answers twice: a search with a week and
        # coverage at 1M, 300 ms each). An estimate too low costs the count
        # after it, as below, and the groups read are kept (past the cap:
        # not counted).
        total, per_facet, read = _facet_counts(filters, user, live=True)
        if read is not None and read <= COUNT_CAP:
            return QueueCounts(total=total, facets=_facet_values(filters, user, per_facet))
        grouped = per_facet, read
    total = _count_up_to(triage_queryset(filters, user), COUNT_CAP)
    if total > COUNT_CAP:
        return QueueCounts(total=COUNT_CAP, total_capped=True, counted=False,
                           facets=_facet_values(filters, user, _known_values(filters, user),
                                                counted=False))
    per_facet, read = grouped or _facet_counts(filters, user, live=True)[1:]
    counted = read is not None and read <= COUNT_CAP
    return QueueCounts(total=total, counted=counted,
                       facets=_facet_values(filters, user, per_facet, counted=counted))


def _facet_values(filters: TriageFilters, user: Any,
                  per_facet: Mapping[str, list[dict[str, Any]]], *, counted: bool = True
                  ) -> dict[str, list[FacetValue]]:
    """Each facet's values, in the form's order, counted from ``per_facet``'s
    groups (with ``counted``; else the groups only name values to offer)."""
    facets: dict[str, list[FacetValue]] = {}
    for facet in FACETS:
        counts: dict[str, int] = {}
        labels: dict[str, str] = {}
        for group in per_facet.get(facet, ()):
            for value, label in _facet_keys(facet, group, user):
                counts[value] = counts.get(value, 0) + group["n"]
                labels[value] = label
        selected = _selected(facet, filters)
        for value, label in _fixed_values(facet, user):
            labels.setdefault(value, label)
        if selected and selected not in labels:
            labels[selected] = selected
        facets[facet] = [FacetValue(value, labels[value],
                                    counts.get(value, 0) if counted else None,
                                    value == selected)
                         for value in _facet_order(facet, labels)]
    return facets


def _known_values(filters: TriageFilters, user: Any) -> dict[str, list[dict[str, Any]]]:
    """The surfaces, models and assignees the queue's values are offered
    from when they are not counted: those of any answer (the kept groups'),
    or, for someone who sees only some workspaces, those among the answers
    the counts would have read."""
    if workspaces_of(user) is not None:
        return _facet_counts(filters, user, live=True)[1]
    scope = None if user.has_perm("reviewer.view_all_queues") else user.pk
    if connection.vendor == "postgresql":
        surfaces, models, assignees = _known_keys_postgresql(scope)
    else:
        groups = QueueGroup.objects.filter(answers__gt=0)
        if scope is not None:
            groups = groups.filter(assignee_key__in=(0, scope))
        # One pass over the groups, names looked up by key after: a subquery
        # per facet read them three times.
        keys = list(groups.order_by().values_list("surface_key", "model", "assignee_key")
                    .distinct())
        surfaces = list(Surface.objects.filter(
            pk__in={surface for surface, _, _ in keys if surface}).values_list("name", flat=True))
        models = {model for _, model, _ in keys}
        assignees = list(get_user_model().objects.filter(pk__in={pk for _, _, pk in keys if pk})
                         .values_list("pk", get_user_model().USERNAME_FIELD))
    known: dict[str, list[dict[str, Any]]] = {
        "surface": [{"surface__name": name} for name in surfaces],
        "model": [{"model": model} for model in models],
        "assignee": [{"assigned_to_id": pk, "assigned_to__username": name}
                     for pk, name in assignees],
    }
    for rows in known.values():
        for row in rows:
            row["n"] = 0
    return known


def _known_keys_postgresql(scope: int | None
                           ) -> tuple[list[str], set[str], list[tuple[int, str]]]:
    """The surfaces' names, the models and the assignees (id, username) of
    the kept groups holding answers (of ``scope``'s queue and the
    unassigned, unless None), in one query on PostgreSQL, skipping through
    the groups' indexes a key at a time (a loose index scan) instead of
    reading every group (20,000 at a million answers: a DISTINCT over them
    took 5 ms, this 1): the (surface, model) pairs along the unique key,
    the assignees along ``queue_group_assignee`` (migration 0032)."""
    quote = connection.ops.quote_name
    groups = quote(QueueGroup._meta.db_table)
    users = get_user_model()._meta
    username = quote(users.get_field(get_user_model().USERNAME_FIELD).column)
    scoped = "" if scope is None else " AND q.assignee_key IN (0, %s)"
    where = f"q.answers > 0{scoped}"

    def first_then_next(name: str, keys: str, after: str) -> str:
        # The first key, then each step the next one past the last found.
        columns = ", ".join(f"q.{key}" for key in keys.split(", "))
        return (f"{name} AS ((SELECT {columns} FROM {groups} q WHERE {where} "
                f"ORDER BY {columns} LIMIT 1) UNION ALL SELECT n.* FROM {name} p "
                f"CROSS JOIN LATERAL (SELECT {columns} FROM {groups} q WHERE {where} "
                f"AND {after} ORDER BY {columns} LIMIT 1) n)")

    pk = quote(users.pk.column)
    sql = (
        "WITH RECURSIVE "
        + first_then_next("pairs", "surface_key, model",
                          "(q.surface_key, q.model) > (p.surface_key, p.model)")
        + ", "
        + first_then_next("assignees", "assignee_key", "q.assignee_key > p.assignee_key")
        + f" SELECT 'surface', s.name, CAST(NULL AS bigint) FROM "
        f"{quote(Surface._meta.db_table)} s WHERE s.id IN (SELECT surface_key FROM pairs) "
        f"UNION ALL SELECT DISTINCT 'model', model, CAST(NULL AS bigint) FROM pairs "
        f"UNION ALL SELECT 'assignee', u.{username}, u.{pk} FROM {quote(users.db_table)} u "
        f"WHERE u.{pk} IN (SELECT assignee_key FROM assignees)")
    surfaces: list[str] = []
    models: set[str] = set()
    assignees: list[tuple[int, str]] = []
    with connection.cursor() as cursor:
        cursor.execute(sql, [] if scope is None else [scope] * 4)
        for kind, name, key in cursor.fetchall():
            if kind == "surface":
                surfaces.append(name)
            elif kind == "model":
                models.add(name)
            else:
                assignees.append((key, name))
    return surfaces, models, assignees


def _needs_review_label(user: Any) -> str:
    return ("needs review, escalated first" if user is not None and escalations_first(user)
            else "needs review")


def _fixed_values(facet: str, user: Any = None) -> list[tuple[str, str]]:
    """Values a facet always offers, even when none of the answers has them."""
    if facet == "state":
        return [(NEEDS_REVIEW, _needs_review_label(user)),
                *((v, str(label).lower()) for v, label in Answer.ReviewState.choices),
                (ANY_STATE, "any state")]
    if facet == "verdict":
        return [(v, str(label).lower()) for v, label in Answer.Verdict.choices]
    if facet == "outcome":
        return list(_OUTCOME_LABELS.items())
    if facet == "assignee":
        return [("me", "me"), ("none", "unassigned")]
    return []


def _facet_order(facet: str, labels: Mapping[str, str]) -> list[str]:
    fixed = [value for value, _ in _fixed_values(facet)]
    if facet in ("state", "verdict", "outcome"):
        return [value for value in fixed if value in labels]
    rest = sorted((v for v in labels if v not in fixed and v), key=str.lower)
    head = [v for v in fixed if v in labels]
    return head + rest


# ---- the page, next in queue, export -------------------------------------------

@dataclass(frozen=True)
class TriagePage:
    rows: list[QueueEntry]
    total: int
    number: int
    num_pages: int
    facets: dict[str, list[FacetValue]]
    #: Said beside the filters' notes: a page asked for past the last one,
    #: counts left out.
    notes: tuple[str, ...] = ()
    #: The queue holds more than ``total`` (COUNT_CAP) answers, so more than
    #: ``num_pages`` pages; ``more`` says whether answers follow this page.
    total_capped: bool = False
    more: bool = False
    #: False: the values' counts are left out (``QueueCounts.counted``).
    counted: bool = True
    #: Nothing was counted, on the planner's estimate (``QueueCounts.estimated``):
    #: ``more`` says whether answers follow this page, and ``about`` that
    #: ``total`` and ``num_pages`` are the estimate (they are exact when this
    #: page is the last).
    estimated: bool = False
    about: bool = False

    @property
    def has_previous(self) -> bool:
        return self.number > 1

    @property
    def has_next(self) -> bool:
        return self.more if self.total_capped or self.estimated else self.number < self.num_pages

    @property
    def start_index(self) -> int:
        return (self.number - 1) * PAGE_SIZE + 1 if self.rows else 0

    @property
    def end_index(self) -> int:
        return (self.number - 1) * PAGE_SIZE + len(self.rows)


def triage_page(filters: TriageFilters, user: Any) -> TriagePage:
    """One page of the queue and the counts: two queries (the groups, which
    also give the total, and the page's rows), three when the total is
    counted apart (``triage_counts``). A page past the last is the last, with
    a note saying so: never an empty table under a pager."""
    counts = triage_counts(filters, user)
    queue = _rows(triage_queryset(filters, user))
    if counts.estimated:
        # As past the cap: the page asked for, and one answer past it to know
        # whether another follows. The last page knows the total; before it,
        # the estimate is never below what the pages read so far hold.
        offset = (filters.page - 1) * PAGE_SIZE
        rows = [_entry(values) for values in queue[offset:offset + PAGE_SIZE + 1]]
        if rows or filters.page == 1:
            more = len(rows) > PAGE_SIZE
            total = max(counts.total, offset + len(rows)) if more else offset + len(rows)
            return TriagePage(rows=rows[:PAGE_SIZE], total=total, number=filters.page,
                              num_pages=max(1, math.ceil(total / PAGE_SIZE)),
                              facets=counts.facets, notes=(_estimated_note(filters),),
                              more=more, counted=False, estimated=True, about=more)
        # A page past the last (asked for by hand): counted after all.
        counts = triage_counts(replace(filters, exact=True), user)
    notes: tuple[str, ...] = () if counts.counted else (_uncounted_note(filters),)
    if counts.total_capped:
        # More than COUNT_CAP answers: the page asked for is read, one answer
        # past it telling whether another follows. Only a page past the last
        # (asked for by hand: the pager never links one) counts them all.
        offset = (filters.page - 1) * PAGE_SIZE
        rows = [_entry(values) for values in queue[offset:offset + PAGE_SIZE + 1]]
        if rows or filters.page == 1:
            return TriagePage(rows=rows[:PAGE_SIZE], total=counts.total, number=filters.page,
                              num_pages=math.ceil(counts.total / PAGE_SIZE),
                              facets=counts.facets, notes=notes, total_capped=True,
                              more=len(rows) > PAGE_SIZE, counted=counts.counted)
        total = triage_queryset(filters, user).count()
    else:
        total = counts.total
    num_pages = max(1, math.ceil(total / PAGE_SIZE))
    number = min(filters.page, num_pages)
    if filters.page > num_pages:
        notes += (f"Ignored page “{filters.page}”: the queue has {num_pages} "
                  f"page{'s' if num_pages != 1 else ''}; showing page {number}.",)
    offset = (number - 1) * PAGE_SIZE
    rows = [_entry(values) for values in queue[offset:offset + PAGE_SIZE]] if total else []
    return TriagePage(rows=rows, total=total, number=number, num_pages=num_pages,
                      facets=counts.facets, notes=notes, counted=counts.counted)


def _uncounted_note(filters: TriageFilters) -> str:
    return (f"Counts per value are not shown: {_keeping(filters)} more than {COUNT_CAP:,} "
            f"answers, too many to count on every change; narrow the filters to see the "
            f"counts.")


def _estimated_note(filters: TriageFilters) -> str:
    return (f"Counts per value are not shown: {_keeping(filters)} more than "
            f"{EXACT_COUNT_LIMIT:,} answers by PostgreSQL's estimate, too many to count on "
            f"every change.")


def _keeping(filters: TriageFilters) -> str:
    """Which unfaceted filters keep the answers, as the subject of "keep"."""
    named = [name for name, on in (
        ("the search", bool(filters.q)),
        ("the coverage filter", filters.coverage_below is not None),
        ("the dates", bool(filters.date_from or filters.date_to)),
        ("the rungs disagree filter", filters.disagree)) if on]
    if not named:
        return "the workspaces you see hold"
    if len(named) == 1:
        return named[0] + " keeps"
    return ", ".join(named[:-1]) + " and " + named[-1] + " keep"


def triage_next(answer: Answer, filters: TriageFilters, user: Any) -> int | None:
    """The id of the answer after ``answer`` in the filtered queue's order
    (whether or not ``answer`` itself is still in it), or None at the end."""
    values = _order_values(answer, filters, user)
    keys = _order_keys(filters, user)
    after = Q()
    for index, (name, _, descending) in enumerate(keys):
        step = Q(**{f"{name}__{'lt' if descending else 'gt'}": values[name]})
        for earlier, _, _ in keys[:index]:
            step &= Q(**{earlier: values[earlier]})
        after |= step
    return (triage_queryset(filters, user).filter(after).values_list("pk", flat=True).first())


def row_reason(answer: Answer) -> str:
    """The queue row's reason, from the answer's count columns."""
    counts = {outcome: getattr(answer, column) for outcome, column in OUTCOME_COLUMNS.items()}
    return reason_words(counts, answer.coverage) or "no failing citation"


#: The export's columns, in order.
EXPORT_COLUMNS = (
    "answer", "external_id", "question", "verdict", "reason", *OUTCOME_COLUMNS.values(),
    "coverage", "surface", "model", "created", "review_state", "last_decision", "reviewer",
    "assignee",
)


def triage_export_rows(filters: TriageFilters, user: Any, *, chunk_size: int = 2000
                       ) -> Iterator[dict[str, Any]]:
    """Every answer of the filtered queue (all pages) as a flat record, read
    in chunks so a large queue never sits in memory."""
    latest = (ReviewDecision.objects.filter(answer=OuterRef("pk"), applied=True)
              .order_by("-created", "-pk"))
    answers = (triage_queryset(filters, user)
               .annotate(surface_name=F("surface__name"),
                         assignee_name=F("assigned_to__username"),
                         last_decision=Subquery(latest.values("decision")[:1]),
                         last_reviewer=Subquery(latest.values("reviewer__username")[:1]))
               .values("pk", "external_id", "question", "verdict", "coverage", "model", "created",
                       "review_state", "surface_name", "assignee_name", "last_decision",
                       "last_reviewer", *OUTCOME_COLUMNS.values()))
    for row in answers.iterator(chunk_size=chunk_size):
        counts = {outcome: row[column] for outcome, column in OUTCOME_COLUMNS.items()}
        yield {
            "answer": row["pk"], "external_id": row["external_id"],
            "question": row["question"], "verdict": row["verdict"],
            "reason": reason_words(counts, row["coverage"]),
            **{column: row[column] for column in OUTCOME_COLUMNS.values()},
            "coverage": round(row["coverage"], 4), "surface": row["surface_name"] or "",
            "model": row["model"], "created": row["created"].isoformat(),
            "review_state": row["review_state"], "last_decision": row["last_decision"] or "",
            "reviewer": row["last_reviewer"] or "", "assignee": row["assignee_name"] or "",
        }
