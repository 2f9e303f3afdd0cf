"""The surfaces page: each surface's settings and how many answers it holds,
an edit form per surface for those who may change them, and the history of
every change with its reason."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods

from reviewer.models import Surface
from reviewer.models.surfaces import REASON_MAX
from reviewer.selectors.surfaces import change_rows, surface_changes, surface_list
from reviewer.services.surfaces import SURFACE_SETTINGS, surface_update
from reviewer.views.base import HtmxHttpRequest, permission_required

CHANGES_PER_PAGE = 50


class SurfaceForm(forms.Form):
    """A surface's settings and the reason for changing them. Ranges are the
    model's to check (its constraints), through ``surface_update``."""

    description = forms.CharField(
        max_length=Surface._meta.get_field("description").max_length, required=False)
    threshold = forms.FloatField(widget=forms.NumberInput(
        attrs={"step": "0.0001", "min": "0.0001", "max": "1"}))
    policy = forms.ChoiceField(choices=Surface.Policy.choices)
    min_coverage = forms.FloatField(label="Minimum coverage", widget=forms.NumberInput(
        attrs={"step": "0.05", "min": "0", "max": "1"}))
    require_quotes = forms.BooleanField(required=False)
    high_stakes = forms.BooleanField(required=False)
    reason = forms.CharField(max_length=REASON_MAX, widget=forms.Textarea(attrs={"rows": 2}),
                             help_text="Kept with the change in the history below.")

    @classmethod
    def for_surface(cls, surface: Surface) -> SurfaceForm:
        return cls(initial={name: getattr(surface, name) for name in SURFACE_SETTINGS},
                   prefix=f"surface-{surface.pk}")


def _page(request: HtmxHttpRequest, *, editing: Surface | None = None,
          form: SurfaceForm | None = None, status: int = 200) -> HttpResponse:
    changes = Paginator(surface_changes(), CHANGES_PER_PAGE).get_page(request.GET.get("page"))
    return render(request, "reviewer/surfaces.html", {
        "surfaces": surface_list(), "editing": editing, "form": form,
        "changes": changes, "history": change_rows(changes.object_list),
        "can_change": request.user.has_perm("reviewer.change_surface"),
    }, status=status)


@require_GET
@permission_required("reviewer.view_surface")
def surfaces(request: HtmxHttpRequest) -> HttpResponse:
    return _page(request)


@require_http_methods(["GET", "POST"])
@permission_required("reviewer.view_surface", "reviewer.change_surface")
def surface_edit(request: HtmxHttpRequest, surface_id: int) -> HttpResponse:
    """GET: the surface's form (in place of its row for htmx, else on the
    page). POST: change it through ``surface_update``; back to the page."""
    surface = get_object_or_404(surface_list(), pk=surface_id)
    if request.method == "GET":
        form = SurfaceForm.for_surface(surface)
        if request.htmx:
            return render(request, "reviewer/surfaces.html#surface-form",
                          {"surface": surface, "form": form})
        return _page(request, editing=surface, form=form)
    form = SurfaceForm(request.POST, prefix=f"surface-{surface.pk}")
    if form.is_valid():
        values: dict[str, Any] = {name: form.cleaned_data[name] for name in SURFACE_SETTINGS}
        try:
            change = surface_update(surface=surface, changed_by=request.user,
                                    reason=form.cleaned_data["reason"], **values)
        except ValidationError as error:
            form.add_error(None, error)
        else:
            if change is None:
                messages.info(request, f"{surface.name}: nothing changed.")
            else:
                messages.success(request, f"{surface.name}: changed "
                                 f"{', '.join(n.replace('_', ' ') for n in change.changes)}.")
            return redirect(f"{reverse('reviewer:surfaces')}#surface-{surface.name}")
    return _page(request, editing=surface, form=form, status=400)
