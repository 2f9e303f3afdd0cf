"""Reading rate-change alerts for handling: one alert with who acknowledged
and owns it, its history newest first, who may own one, and the triage
queue of the answers behind it."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.db.models import Prefetch, Q, QuerySet

from reviewer.models import TrendAlert, TrendAlertEvent

__all__ = ["alert_answers_query", "alert_history", "alert_owner_choices", "alerts_for_handling"]


def alerts_for_handling() -> QuerySet[TrendAlert]:
    """Alerts with their surface, owner, acknowledger and events (newest
    first, with each event's actor) read in a fixed number of queries."""
    events = TrendAlertEvent.objects.select_related("actor").order_by("-created", "-pk")
    return TrendAlert.objects.select_related("surface", "owner", "acknowledged_by") \
        .prefetch_related(Prefetch("events", queryset=events))


def alert_history(alert: TrendAlert) -> list[TrendAlertEvent]:
    """Every change to the alert's handling, newest first."""
    return list(alert.events.all())


def alert_answers_query(alert: TrendAlert) -> str:
    """The triage query of the answers behind ``alert``: its surface, model
    (none for an all-models alert), outcome and day (UTC, the summary's day),
    whatever their review state."""
    pairs = [("state", "any"), ("outcome", alert.outcome), ("surface", alert.surface.name)]
    if alert.model != TrendAlert.ALL_MODELS:
        pairs.append(("model", alert.model))
    day = alert.day.isoformat()
    pairs += [("from", day), ("to", day)]
    return urlencode(pairs)


def alert_owner_choices() -> list[Any]:
    """Active users who may act on alerts: the people an alert can be given to."""
    permission = Permission.objects.filter(content_type__app_label="reviewer",
                                           codename="change_trendalert").first()
    users = get_user_model().objects.filter(is_active=True)
    if permission is None:
        users = users.filter(is_superuser=True)
    else:
        users = users.filter(Q(is_superuser=True) | Q(groups__permissions=permission)
                             | Q(user_permissions=permission))
    return list(users.distinct().order_by("username"))
