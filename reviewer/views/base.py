"""What every page view shares: the htmx request type, the permission check
and streamed exports."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone
from django_htmx.middleware import HtmxDetails

from reviewer.csv_cells import csv_lines, jsonl_lines
from reviewer.selectors.workspaces import workspaces_of

__all__ = ["HtmxHttpRequest", "export_response", "no_role_response", "permission_required"]


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _whom_to_ask() -> list[str]:
    """People who can give roles: supervisors' admins, i.e. superusers."""
    return list(get_user_model().objects.filter(is_superuser=True, is_active=True)
                .order_by("username").values_list("username", flat=True)[:5])


def no_role_response(request: HttpRequest, perms: tuple[str, ...] = ()) -> HttpResponse:
    """The 403 page: which role is missing and whom to ask for it."""
    return render(request, "reviewer/no_role.html", {
        "perms": perms, "has_role": request.user.groups.exists(),  # type: ignore[union-attr]
        "admins": _whom_to_ask(),
    }, status=403)


def permission_required(*perms: str, every_workspace: bool = False
                        ) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Log in first; then every permission in ``perms`` or a 403 page that
    says which role is missing and whom to ask (never a bare error).

    ``every_workspace``: the page pools every workspace's answers (trends,
    calibration, label files), so only someone who sees every workspace may
    open it; anyone else gets a 403 saying so, not other clients' data."""

    def decorate(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.user.has_perms(perms):
                if not every_workspace or workspaces_of(request.user) is None:
                    return view(request, *args, **kwargs)
                response = render(request, "reviewer/no_role.html",
                                  {"workspace_wide": True, "admins": _whom_to_ask()}, status=403)
            else:
                response = no_role_response(request, perms)
            if getattr(request, "htmx", False):
                # htmx swaps no 403, so the click would seem to do nothing
                # (a role taken away since the page loaded): reload the page,
                # which then shows what the user may still do, or this page.
                response["HX-Refresh"] = "true"
            return response

        return wrapper

    return decorate


def export_response(kind: str, columns: Sequence[str], rows: Iterable[dict[str, Any]],
                    name: str) -> StreamingHttpResponse:
    """``rows`` streamed as a ``kind`` ("csv" or "jsonl") download called
    ``<name>-<time>.<kind>`` (``name`` must be safe in a header)."""
    if kind == "csv":
        response = StreamingHttpResponse(csv_lines(columns, rows),
                                         content_type="text/csv; charset=utf-8")
    else:
        response = StreamingHttpResponse(jsonl_lines(rows),
                                         content_type="application/x-ndjson; charset=utf-8")
    stamp = timezone.now().strftime("%Y%m%d-%H%M")
    response["Content-Disposition"] = f'attachment; filename="{name}-{stamp}.{kind}"'
    return response
