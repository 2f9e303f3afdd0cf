"""``/``: each person lands where their role's work is."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import NoReverseMatch, reverse
from django.views.decorators.http import require_GET

from reviewer.views.base import HtmxHttpRequest, no_role_response


def _first_url(*candidates: tuple[str, str]) -> str:
    """The first of ``(url name, query)`` that this deployment routes (pages
    such as triage or calibration may not be installed)."""
    for name, query in candidates:
        try:
            url = reverse(name)
        except NoReverseMatch:
            continue
        return f"{url}?{query}" if query else url
    raise NoReverseMatch(f"none of {[name for name, _ in candidates]} is routed")


@require_GET
@login_required
def home(request: HtmxHttpRequest) -> HttpResponse:
    """Supervisors to the whole triage queue, reviewers to their own queue,
    calibrators to labelling; someone with no role to the page that says
    whom to ask. Checked by permission, so a site's own groups land too."""
    user = request.user
    if user.has_perm("reviewer.view_all_queues") and user.has_perm("reviewer.view_answer"):
        return redirect(_first_url(("reviewer:triage", ""), ("reviewer:answers", "")))
    if user.has_perm("reviewer.decide_answer") and user.has_perm("reviewer.view_answer"):
        return redirect(_first_url(("reviewer:triage", "assignee=me"),
                                   ("reviewer:answers", "")))
    if user.has_perm("reviewer.label_matches"):
        return redirect(_first_url(("reviewer:calibrate", ""), ("reviewer:documents", "")))
    if user.has_perm("reviewer.view_answer"):
        return redirect("reviewer:answers")
    if user.has_perm("reviewer.view_document"):
        return redirect("reviewer:documents")
    return no_role_response(request)
