"""Reading surfaces and the history of their settings."""

from __future__ import annotations

from typing import Any

from django.db.models import Count, QuerySet

from reviewer.models import Surface, SurfaceChange

__all__ = ["change_rows", "surface_changes", "surface_list"]


def surface_list() -> QuerySet[Surface]:
    """Every surface with ``answer_count``, by name."""
    return Surface.objects.annotate(answer_count=Count("answers")).order_by("name")


def surface_changes(*, surface: Surface | None = None) -> QuerySet[SurfaceChange]:
    """Changes of surfaces' settings, newest first (``surface``: of that one only)."""
    queryset = SurfaceChange.objects.select_related("surface", "changed_by")
    if surface is not None:
        queryset = queryset.filter(surface=surface)
    return queryset.order_by("-created", "-pk")


def change_rows(changes: Any) -> list[dict[str, Any]]:
    """Each change with its fields as ``(label, old, new)``, labels in words."""
    labels = {field.name: field.verbose_name for field in Surface._meta.get_fields()
              if hasattr(field, "verbose_name")}
    return [{"change": change,
             "fields": [(labels.get(name, name), old, new)
                        for name, (old, new) in change.changes.items()]}
            for change in changes]
