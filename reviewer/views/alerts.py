"""Handling a rate-change alert from the trends page: acknowledge or reopen
it, give it an owner, write its note. Each answers htmx with the alert's
fragment (``reviewer/trends.html#trend-alert``), a plain form post with a
redirect back to the trends page it came from."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied, ValidationError
from django.http import HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from reviewer.models import TrendAlert
from reviewer.selectors.alerts import alerts_for_handling
from reviewer.selectors.trends import trend_filters_from
from reviewer.services.alerts import (
    alert_acknowledge,
    alert_assign,
    alert_note,
    alert_reopen,
)
from reviewer.views.base import HtmxHttpRequest, no_role_response, permission_required
from reviewer.views.trends import alert_handling, alert_item

__all__ = ["alert_acknowledge_view", "alert_assign_view", "alert_note_view",
           "alert_reopen_view"]


def _respond(request: HtmxHttpRequest, alert_id: int,
             act: Callable[[TrendAlert], object]) -> HttpResponse:
    """Run ``act`` on the alert; the refreshed fragment (400 with the
    message when refused), or back to the trends page it was posted from."""
    alert = get_object_or_404(alerts_for_handling(), pk=alert_id)
    error, status = "", 200
    try:
        act(alert)
    except PermissionDenied:
        return no_role_response(request, ("reviewer.change_trendalert",))
    except ValidationError as refused:
        error, status = " ".join(refused.messages), 400
    back = trend_filters_from(QueryDict(request.POST.get("back", ""))).query()
    if request.htmx:
        alert = alerts_for_handling().get(pk=alert.pk)  # its history, with the new event
        return render(request, "reviewer/trends.html#trend-alert",
                      {"item": alert_item(alert, error=error), "query": back,
                       **alert_handling(request.user)}, status=status)
    if error:
        return HttpResponse(error + "\n", status=status, content_type="text/plain")
    return redirect(f"{reverse('reviewer:trends')}?{back}#alert-{alert.pk}")



@require_POST
@permission_required("reviewer.view_trends", every_workspace=True)
def alert_acknowledge_view(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    return _respond(request, alert_id,
                    lambda alert: alert_acknowledge(alert=alert, by=request.user))


@require_POST
@permission_required("reviewer.view_trends", every_workspace=True)
def alert_reopen_view(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    return _respond(request, alert_id, lambda alert: alert_reopen(alert=alert, by=request.user))


@require_POST
@permission_required("reviewer.view_trends", every_workspace=True)
def alert_assign_view(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    """``owner``: a username, or empty for nobody."""
    def assign(alert: TrendAlert) -> object:
        name = request.POST.get("owner", "").strip()
        owner = None
        if name:
            owner = get_user_model().objects.filter(username=name).first()
            if owner is None:
                raise ValidationError(f"There is no user “{name[:150]}”.")
        return alert_assign(alert=alert, owner=owner, by=request.user)

    return _respond(request, alert_id, assign)


@require_POST
@permission_required("reviewer.view_trends", every_workspace=True)
def alert_note_view(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    return _respond(request, alert_id, lambda alert: alert_note(
        alert=alert, note=request.POST.get("note", ""), by=request.user))
