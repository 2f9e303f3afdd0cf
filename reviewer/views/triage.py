"""The triage queue: filters in the URL, the list and its counts swapped in by
htmx, bulk assignment for supervisors, and the filtered queue as CSV/JSONL."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.cache import patch_vary_headers
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import Answer
from reviewer.selectors.judgements import judgement_summaries
from reviewer.selectors.triage import (
    EXPORT_COLUMNS,
    TriageFilters,
    row_reason,
    triage_export_rows,
    triage_page,
)
from reviewer.selectors.workspaces import answers_visible
from reviewer.services.assignments import (
    AssignmentRefused,
    answers_assign,
    in_review_by_other,
    reviewers,
)
from reviewer.views.base import HtmxHttpRequest, export_response, permission_required

#: The assign control's value for "nobody": parentheses are in no username.
UNASSIGN = "(nobody)"


def _context(request: HtmxHttpRequest, filters: TriageFilters,
             message: str = "", message_level: str = "") -> dict[str, Any]:
    user = request.user
    page = triage_page(filters, user)
    now = timezone.now()
    # Each row links its answer with the queue kept (?queue=...): reversed
    # once per row and the query quoted once per page, not twice a row in
    # the template (a page renders 50 rows).
    keep_queue = "?queue=" + quote(filters.query(page=1), safe="")
    rows = [{"answer": answer, "reason": row_reason(answer),
             "href": reverse("reviewer:answer", args=[answer.pk]) + keep_queue,
             "deciding": in_review_by_other(answer, user, now=now)} for answer in page.rows]
    judged = judgement_summaries(row["answer"].pk for row in rows)
    for row in rows:
        row["judged"] = judged.get(row["answer"].pk)
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
