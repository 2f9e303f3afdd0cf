"""Handling rate-change alerts: acknowledging (and reopening) one, giving it
an owner, writing its note. Each write changes the alert's current state and
keeps a ``TrendAlertEvent`` saying who did what, when, and the value it took.

Supervisors act (``reviewer.change_trendalert``, ``reviewer.roles``); anyone
else who sees trends reads. A note longer than ``TrendAlert.NOTE_MAX_LENGTH``
is refused with a message naming the limit, never cut.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from reviewer.models import TrendAlert, TrendAlertEvent

__all__ = ["ALERT_PERMISSION", "alert_acknowledge", "alert_assign", "alert_note",
           "alert_reopen", "can_handle_alerts"]

#: The permission that lets a user act on alerts.
ALERT_PERMISSION = "reviewer.change_trendalert"


def can_handle_alerts(user: Any) -> bool:
    return bool(user.has_perm(ALERT_PERMISSION))


def _locked(alert: TrendAlert, by: Any) -> TrendAlert:
    if not can_handle_alerts(by):
        raise PermissionDenied("Handling alerts needs the supervisor role.")
    return TrendAlert.objects.select_for_update().get(pk=alert.pk)


def _save(locked: TrendAlert, alert: TrendAlert, *, by: Any, action: str, value: str = "",
          previous: str = "", fields: list[str]) -> TrendAlertEvent:
    locked.full_clean()
    locked.save(update_fields=fields)
    event = TrendAlertEvent(alert=locked, actor=by, action=action, value=value,
                            previous=previous)
    event.full_clean()
    event.save()
    for name in fields:  # the caller's object shows the new state too
        setattr(alert, name, getattr(locked, name))
    return event


def alert_acknowledge(*, alert: TrendAlert, by: Any) -> TrendAlertEvent:
    """Mark ``alert`` acknowledged by ``by`` now; refused when it is already."""
    with transaction.atomic():
        locked = _locked(alert, by)
        if locked.acknowledged_at is not None:
            who = locked.acknowledged_by.get_username() if locked.acknowledged_by else "someone"
            raise ValidationError(f"This alert was acknowledged already, by {who}.",
                                  code="acknowledged")
        locked.acknowledged_at, locked.acknowledged_by = timezone.now(), by
        return _save(locked, alert, by=by, action=TrendAlertEvent.Action.ACKNOWLEDGE,
                     fields=["acknowledged_at", "acknowledged_by"])


def alert_reopen(*, alert: TrendAlert, by: Any) -> TrendAlertEvent:
    """Take back an acknowledgement (the history keeps both)."""
    with transaction.atomic():
        locked = _locked(alert, by)
        if locked.acknowledged_at is None:
            raise ValidationError("This alert is not acknowledged.", code="open")
        previous = locked.acknowledged_by.get_username() if locked.acknowledged_by else ""
        locked.acknowledged_at, locked.acknowledged_by = None, None
        return _save(locked, alert, by=by, action=TrendAlertEvent.Action.REOPEN,
                     previous=previous, fields=["acknowledged_at", "acknowledged_by"])


def alert_assign(*, alert: TrendAlert, owner: Any | None, by: Any) -> TrendAlertEvent | None:
    """Make ``owner`` (None: nobody) own ``alert``; None when they do already.
    The owner must be able to act on alerts."""
    with transaction.atomic():
        locked = _locked(alert, by)
        if owner is not None and not (owner.is_active and can_handle_alerts(owner)):
            raise ValidationError({"owner": f"{owner.get_username()} cannot handle alerts: "
                                            "an owner needs the supervisor role."})
        if locked.owner_id == (owner.pk if owner is not None else None):
            return None
        previous = locked.owner.get_username() if locked.owner else ""
        locked.owner = owner
        return _save(locked, alert, by=by, action=TrendAlertEvent.Action.ASSIGN,
                     value=owner.get_username() if owner is not None else "",
                     previous=previous, fields=["owner"])


def alert_note(*, alert: TrendAlert, note: str, by: Any) -> TrendAlertEvent | None:
    """Replace ``alert``'s note (surrounding blanks dropped); None when it is
    unchanged. Refused, with the limit named, when longer than the limit."""
    note = note.strip()
    limit = TrendAlert.NOTE_MAX_LENGTH
    with transaction.atomic():
        locked = _locked(alert, by)
        if len(note) > limit:
            raise ValidationError({"note": f"A note can be at most {limit} characters; this "
                                           f"one has {len(note)}. Nothing was saved."},
                                  code="max_length")
        if locked.note == note:
            return None
        previous, locked.note = locked.note, note
        return _save(locked, alert, by=by, action=TrendAlertEvent.Action.NOTE, value=note,
                     previous=previous, fields=["note"])
