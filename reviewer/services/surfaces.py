"""Changing a surface's settings, always with a reason on record.

Every change, by hand on the surfaces page or applied from a calibration, goes
through ``surface_update`` so the surface's history says who changed what,
from which value to which, when, why and on what evidence.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction

from reviewer.models import Surface, SurfaceChange
from reviewer.models.surfaces import REASON_MAX
from reviewer.services.priority import answers_priority_restamp

__all__ = ["JUDGE_SETTINGS", "SURFACE_SETTINGS", "TRACKED_SETTINGS", "surface_update"]

#: The settings a change may touch (the name is the API's key for a surface:
#: renaming it would break clients, so it is not one of them).
SURFACE_SETTINGS = ("description", "threshold", "policy", "min_coverage", "require_quotes",
                    "high_stakes")
#: The semantic stage's sample rate and budget: they decide which answers a
#: model sees and what it costs, so a change is kept in the history too.
JUDGE_SETTINGS = ("judge_sample_rate", "judge_calls_per_hour", "judge_timeout_seconds",
                  "judge_max_chars")
TRACKED_SETTINGS = (*SURFACE_SETTINGS, *JUDGE_SETTINGS, "claim_checks_off")


def surface_update(*, surface: Surface, changed_by: Any, reason: str,
                   evidence: dict[str, Any] | None = None, **fields: Any) -> SurfaceChange | None:
    """Set ``fields`` (some of TRACKED_SETTINGS) on ``surface`` and record a
    ``SurfaceChange`` with ``{field: [old, new]}`` for those that differ.

    Returns the change, or None when every value was already so (nothing is
    recorded). Raises ValidationError for a missing reason, one over
    ``REASON_MAX`` characters, or a value the surface refuses (threshold
    outside (0, 1], an unknown policy, a description over its limit…), with
    nothing saved; PermissionDenied unless ``changed_by`` may change surfaces.
    """
    unknown = sorted(set(fields) - set(TRACKED_SETTINGS))
    if unknown:
        raise TypeError(f"not a surface setting: {', '.join(unknown)} "
                        f"(settings: {', '.join(TRACKED_SETTINGS)})")
    if not changed_by.has_perm("reviewer.change_surface"):
        raise PermissionDenied("Changing surfaces needs the supervisor role.")
    reason = reason.strip()
    if not reason:
        raise ValidationError({"reason": "Say why: the reason is kept with the change."})
    if len(reason) > REASON_MAX:
        raise ValidationError({"reason": f"The reason is {len(reason)} characters; the limit "
                                         f"is {REASON_MAX}."})
    with transaction.atomic():
        # Locked so that two changes at once each record the value the other left.
        current = Surface.objects.select_for_update().get(pk=surface.pk)
        changes = {name: [getattr(current, name), value] for name, value in fields.items()
                   if getattr(current, name) != value}
        if not changes:
            return None
        for name, (_, value) in changes.items():
            setattr(current, name, value)
        current.full_clean()
        # Recorded as the surface holds them after cleaning ("0.9" → 0.9).
        changes = {name: [old, getattr(current, name)] for name, (old, _) in changes.items()
                   if getattr(current, name) != old}
        if not changes:
            return None
        current.save(update_fields=list(changes))
        if "high_stakes" in changes:
            # The queue ranks a high-stakes surface's answers first among
            # equals: their stored priority moves with it, in this transaction
            # (the surface row stays locked until it commits, so an answer
            # stored meanwhile reads the new setting: ``answer_submit``).
            answers_priority_restamp(surface_ids=[current.pk], high_stakes=current.high_stakes)
        change = SurfaceChange(surface=current, changed_by=changed_by, changes=changes,
                               reason=reason, evidence=evidence or {})
        change.full_clean()
        change.save()
    for name in changes:
        setattr(surface, name, getattr(current, name))
    return change
