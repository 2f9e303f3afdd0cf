"""The triage queue: filters in the URL, the list and its counts swapped in by
htmx, bulk assignment for supervisors, and the filtered queue as CSV/JSONL."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import Truncator
from django.utils.timesince import TIME_STRINGS, timesince
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import Answer
from reviewer.selectors.judgements import judgement_summaries
from reviewer.selectors.triage import (
    COUNT_CAP,
    EXPORT_COLUMNS,
    QueueEntry,
    TriageFilters,
    triage_export_rows,
    triage_page,
)
from reviewer.selectors.workspaces import answers_visible
from reviewer.services.assignments import (
    AssignmentRefused,
    answers_assign,
    present_other,
    reviewers,
)
from reviewer.views.base import HtmxHttpRequest, export_response, permission_required

#: The assign control's value for "nobody": parentheses are in no username.
UNASSIGN = "(nobody)"


#: A queue row's cells after its selection box, as the template wrote them
#: (``QueueRow.cells`` fills them in, each value escaped).
_CELLS = (
    '<td><a href="{href}">{pk}</a></td>\n'
    '        <td class="reason">{reason}</td>\n'
    '        <td class="question"><a href="{href}">{question}</a>\n'
    '          {deciding}</td>\n'
    '        <td><span class="verdict verdict-{verdict}">{verdict_label}</span></td>\n'
    '        <td>{coverage}%</td>\n'
    '        <td class="nowrap">{surface}</td>\n'
    '        <td class="nowrap">{model}</td>\n'
    '        <td class="model-check">{judged}</td>\n'
    '        <td class="nowrap"><time datetime="{created_iso}" title="{created_title}">{age}'
    '</time></td>\n'
    '        <td>{state_label}</td>\n'
    '        <td class="assignee">{assignee}</td>'
)
_MUTED = '<span class="muted">{}</span>'


@dataclass(frozen=True)
class QueueRow:
    """One answer's row in the queue, every cell already in words.

    A page lists 50 rows, and each lookup, filter and localisation the
    template would run per cell costs a few microseconds: made here, and
    written out by ``cells`` with one ``format_html`` a row, as Django's
    admin writes its change list's rows (the template's two dozen variables
    and conditions a row were most of what a row still cost:
    bench/triage.py's per-row figure 0.43 ms before, 0.16-0.39 ms after on
    the loaded machine, most of a sparse filter's growth at 1M answers)."""

    pk: str
    href: str
    severity: int
    reason: str
    question: str
    #: Who else has the answer's review page open ("" when nobody).
    deciding: str
    verdict: str
    verdict_label: str
    coverage: str
    surface: str
    model: str
    #: ``judgement_summaries``' entry: label, text, disagrees (None: not judged).
    judged: dict[str, Any] | None
    created_iso: str
    created_title: str
    age: str
    state_label: str
    #: The assignee's username ("" when unassigned).
    assignee: str

    @property
    def cells(self) -> SafeString:
        """The row's cells after its selection box, escaped."""
        judged = self.judged
        return format_html(
            _CELLS, href=self.href, pk=self.pk, reason=self.reason, question=self.question,
            deciding=format_html('<span class="deciding">being decided by {}</span>',
                                 self.deciding) if self.deciding else "",
            verdict=self.verdict, verdict_label=self.verdict_label, coverage=self.coverage,
            surface=self.surface, model=self.model,
            judged=format_html('<span class="model-{}">{}</span>{}', judged["label"],
                               judged["text"], mark_safe(' <span class="tag">rungs disagree</span>')
                               if judged["disagrees"] else "")
            if judged else format_html(_MUTED, "—"),
            created_iso=self.created_iso, created_title=self.created_title, age=self.age,
            state_label=self.state_label,
            assignee=self.assignee or format_html(_MUTED, "unassigned"))


class _RowWords:
    """What every row of a page words alike, translated once a page: the
    verdict and state labels, and the age's units per count (Django's
    ``timesince`` translates each unit for each row otherwise)."""

    def __init__(self) -> None:
        self.verdicts = {value: str(label) for value, label in Answer.Verdict.choices}
        self.states = {value: str(label) for value, label in Answer.ReviewState.choices}
        self.units = {name: _Counted(words) for name, words in TIME_STRINGS.items()}


class _Counted:
    """A unit's words (``ngettext_lazy``) with each count's translation kept."""

    def __init__(self, words: Any) -> None:
        self.words, self.done = words, {}

    def __mod__(self, values: dict[str, int]) -> str:
        count = values["num"]
        if count not in self.done:
            self.done[count] = self.words % values
        return self.done[count]


def _cut(question: str, length: int = 100) -> str:
    # Truncator weighs each character (combining marks take no room), which
    # costs 30-90 µs a question: a short one needs no cut, and in plain ASCII
    # a character is a character.
    if len(question) <= length:
        return question
    if question.isascii():
        return question[:length - 1] + "…"
    return Truncator(question).chars(length)


def _queue_row(entry: QueueEntry, *, deciding: str, href: str,
               judged: dict[str, Any] | None, words: _RowWords, now: datetime) -> QueueRow:
    created = timezone.localtime(entry.created)
    return QueueRow(
        pk=str(entry.pk), href=href, severity=entry.severity, reason=entry.reason,
        question=_cut(entry.question_head or "(no question)"), deciding=deciding,
        verdict=entry.verdict, verdict_label=words.verdicts.get(entry.verdict, entry.verdict),
        coverage=f"{round(entry.coverage * 100)}", surface=entry.surface or "—",
        model=entry.model or "—", judged=judged,
        created_iso=created.isoformat(), created_title=created.strftime("%Y-%m-%d %H:%M"),
        age=timesince(entry.created, now, time_strings=words.units),
        state_label=words.states.get(entry.review_state, entry.review_state),
        assignee=entry.assignee)


def _deciding(entries: list[QueueEntry], user: Any, now: datetime) -> dict[int, str]:
    """Per answer whose review page someone else has open, their username:
    one query, and only when there is one."""
    present = {entry.pk: entry.in_review_by_id for entry in entries
               if present_other(entry.in_review_by_id, entry.in_review_since, user, now=now)}
    if not present:
        return {}
    people = get_user_model()
    names = dict(people.objects.filter(pk__in=set(present.values()))
                 .values_list("pk", people.USERNAME_FIELD))
    return {pk: names[by] for pk, by in present.items() if by in names}


def _context(request: HtmxHttpRequest, filters: TriageFilters,
             message: str = "", message_level: str = "") -> dict[str, Any]:
    user = request.user
    page = triage_page(filters, user)
    now = timezone.now()
    # Each row links its answer with the queue kept (?queue=...). The path is
    # reversed and the query quoted once a page, not per row (a reverse()
    # costs about 50 µs, and a page lists 50 rows): the answer's id is the
    # path's last part.
    keep_queue = "?queue=" + quote(filters.query(page=1), safe="")
    path = reverse("reviewer:answer", args=[0]).removesuffix("0/")
    judged = judgement_summaries(entry.pk for entry in page.rows)
    deciding = _deciding(page.rows, user, now)
    words = _RowWords()
    rows = [_queue_row(entry, deciding=deciding.get(entry.pk, ""),
                       href=f"{path}{entry.pk}/{keep_queue}", judged=judged.get(entry.pk),
                       words=words, now=now) for entry in page.rows]
    can_assign = user.has_perm("reviewer.assign_answer")
    # My queue says how many unassigned answers wait beside it (the same
    # filters otherwise), so "0 answers" never hides the work (None: not
    # counted, linked all the same).
    unassigned = next((value.count for value in page.facets["assignee"]
                       if value.value == "none"), 0)
    return {
        "mine": filters.assignee == "me", "unassigned": unassigned,
        "unassigned_query": filters.query(assignee="none", page=1),
        "filters": filters, "page": page, "rows": rows, "facets": page.facets,
        "query": filters.query(page=1), "page_query": filters.query(page=page.number),
        "exact_query": filters.query(exact=True, page=1), "count_cap": COUNT_CAP,
        "prev_query": filters.query(page=page.number - 1),
        "next_query": filters.query(page=page.number + 1),
        "can_assign": can_assign, "can_export": user.has_perm("reviewer.export_answers"),
        "assignable": reviewers() if can_assign else [], "unassign": UNASSIGN,
        "message": message, "message_level": message_level,
    }


def _render(request: HtmxHttpRequest, context: dict[str, Any]) -> HttpResponse:
    # A history restore (back button after the cache is gone) wants the page.
    partial = request.htmx and not request.htmx.history_restore_request
    response = render(request, "reviewer/triage.html#results" if partial
                      else "reviewer/triage.html", context)
    # The same URL answers with a fragment or a page: caches must tell them apart.
    patch_vary_headers(response, ("HX-Request",))
    return response


@require_GET
@permission_required("reviewer.view_answer")
def triage(request: HtmxHttpRequest) -> HttpResponse:
    filters = TriageFilters.from_query(request.GET, user=request.user)
    return _render(request, _context(request, filters))


@require_POST
@permission_required("reviewer.assign_answer")
def triage_assign(request: HtmxHttpRequest) -> HttpResponse:
    """Assign the checked answers (``answer``, repeated) to ``assignee`` (a
    username, or ``UNASSIGN``: back to nobody; empty is refused: a choice is
    needed), then show the queue ``queue`` again."""
    queue = request.POST.get("queue", "")
    filters = TriageFilters.from_query(QueryDict(queue), user=request.user)
    ids = [value for value in request.POST.getlist("answer") if value.isdigit()
           and len(value) < 19]
    # Only answers of the supervisor's workspaces; the others are as if unsent.
    ids = [str(pk) for pk in answers_visible(Answer.objects.filter(pk__in=ids), request.user)
           .values_list("pk", flat=True)] if ids else []
    username = request.POST.get("assignee", "").strip()
    message, level = "", "success"
    assignee = None
    if not username:
        message, level = ("Choose whom to assign the selected answers to, or “nobody "
                          "(unassign)” to take them out of every queue."), "error"
    elif username != UNASSIGN:
        assignee = get_user_model().objects.filter(username=username).first()
        if assignee is None:
            message, level = f"There is no user {username!r}.", "error"
    if not message and not ids:
        message, level = "Select at least one answer to assign.", "error"
    if not message:
        try:
            changed = answers_assign(answer_ids=ids, assignee=assignee,
                                     assigned_by=request.user)
        except AssignmentRefused as refused:
            message, level = str(refused), "error"
        else:
            whom = f"to {assignee.get_username()}" if assignee is not None else "back to nobody"
            message = (f"Assigned {changed} answer{'s' if changed != 1 else ''} {whom}"
                       + (f" ({len(ids) - changed} already were)." if changed < len(ids)
                          else "."))
    if not request.htmx:
        (messages.success if level == "success" else messages.error)(request, message)
        return redirect(f"{reverse('reviewer:triage')}?{filters.query()}")
    # 200 even when refused: htmx swaps only 2xx, and the message is the answer.
    return render(request, "reviewer/triage.html#results",
                  _context(request, filters, message, level))


@require_GET
@permission_required("reviewer.export_answers")
def triage_export(request: HtmxHttpRequest) -> HttpResponse:
    """The filtered queue (every page) as ``format=csv`` or ``jsonl``, streamed."""
    kind = request.GET.get("format", "csv")
    if kind not in ("csv", "jsonl"):
        return HttpResponse("format must be csv or jsonl\n", status=400,
                            content_type="text/plain")
    filters = TriageFilters.from_query(request.GET, user=request.user)
    return export_response(kind, EXPORT_COLUMNS, triage_export_rows(filters, request.user),
                           "triage")
