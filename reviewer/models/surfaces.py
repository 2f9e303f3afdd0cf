"""The history of a surface's settings: who changed what, when and why."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from .answers import Surface

#: A change's reason in characters: the surfaces page's, the admin's and the
#: calibration page's forms show it (maxlength and a counter), and
#: ``surface_update`` refuses a longer one, naming it, instead of keeping part.
REASON_MAX = 2000

class SurfaceChangeQuerySet(models.QuerySet["SurfaceChange"]):
    def update(self, **kwargs: object) -> int:
        raise SurfaceChange.AppendOnly("surface changes are never changed; add a row instead")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise SurfaceChange.AppendOnly("surface changes are never deleted")


class SurfaceChange(models.Model):
    """One change of a surface's settings, append-only: ``changes`` holds
    ``{field: [old, new]}``, ``reason`` why (always given), and ``evidence``
    what a change computed from data rests on (calibration: label counts,
    precision and recall at the chosen threshold); empty for a hand edit."""

    class AppendOnly(Exception):
        """Raised by any attempt to change or delete a recorded change."""

    surface = models.ForeignKey(Surface, on_delete=models.PROTECT, related_name="changes")
    changed_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                   related_name="+")
    changes = models.JSONField()
    reason = models.TextField()
    evidence = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    objects = SurfaceChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.surface_id}: {', '.join(self.changes)}"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise self.AppendOnly("surface changes are never changed; add a row instead")
        super().save(*args, **kwargs)  # type: ignore[arg-type]

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise self.AppendOnly("surface changes are never deleted")
