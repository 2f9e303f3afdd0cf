"""The labelling queue: /calibrate/ lists the surfaces, and
/calibrate/<surface>/label puts one match at a time before a labeller.

Blind: the page shows the quote, the source window it was compared with
(differences marked as on the review page) and the PDF highlight, never the
score, the outcome or the answer. Keys: 1 faithful, 2 meaning changed, 3 not
this passage, s skip, u undo, v the PDF. Skips and the undo history are
stored steps (``LabelStep``), per labeller and surface: **u** still takes the
last label back after a reload, in another tab or a new session.

A claim item (a flag the sentence check raised on a paraphrase) shows the
sentence, its likely passage and the finding's two sides ("3 years" against
"two years"), never its check's name, support or outcome; its keys are
1 right flag, 2 false alarm, 3 unclear.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from reviewer.models import CalibrationItem, Document, MatchLabel, Surface
from reviewer.selectors.calibration import (
    can_undo,
    next_item,
    queue_left,
    skipped_items,
    surfaces_to_label,
)
from reviewer.selectors.documents import pdf_highlight
from reviewer.selectors.workspaces import documents_visible
from reviewer.services.calibration import (
    LabelRefused,
    calibration_sample,
    calibration_sample_claims,
    item_label,
    item_skip,
    step_undo,
)
from reviewer.views.base import HtmxHttpRequest, permission_required
from reviewer.views.passages import source_runs
from verification import word_diff

#: Items drawn at once when a labeller finds the queue empty.
BATCH = 50
#: The keys and the label each gives, in the order the page lists them.
KEYS = (("1", MatchLabel.Label.FAITHFUL), ("2", MatchLabel.Label.CHANGED),
        ("3", MatchLabel.Label.OTHER))


def _keys(item: CalibrationItem | None) -> tuple[tuple[str, MatchLabel.Label], ...]:
    """The keys and labels ``item``'s kind takes (a match's: ``KEYS``)."""
    if item is None:
        return KEYS
    return tuple((str(n), MatchLabel.Label(label))
                 for n, label in enumerate(item.label_choices, start=1))


@require_GET
@permission_required("reviewer.view_surface", every_workspace=True)
def calibrate(request: HtmxHttpRequest) -> HttpResponse:
    """Each surface: its threshold, items and labels, and where to go."""
    return render(request, "reviewer/calibrate.html", {
        "surfaces": surfaces_to_label(),
        "can_label": request.user.has_perm("reviewer.label_matches"),
    })


def _second(request: HtmxHttpRequest) -> bool:
    return (request.GET.get("second") or request.POST.get("second")) == "1"


def _item_context(item: CalibrationItem) -> dict[str, Any]:
    """What a labeller sees of ``item``: the quote, the source window with
    context either side, and the word differences (as on the review page)."""
    source = SimpleNamespace(text=item.source_text, furniture=item.furniture)
    start, end = item.match_start, item.match_end
    context = {
        "item": item,
        "before": source_runs(source, 0, start, lead="…" if start else ""),
        "match": source_runs(source, start, end),
        "after": source_runs(source, end, len(item.source_text),
                             trail="…" if end < len(item.source_text) else ""),
    }
    if item.kind == CalibrationItem.Kind.CLAIM:
        # The finding's two sides are the question; a word diff of a
        # paraphrase against its passage would mark nearly every word.
        return {**context, "unsupported": item.claim_check == CalibrationItem.UNSUPPORTED}
    skip = [(max(s, start) - start, min(e, end) - start)
            for s, e in item.furniture if s < end and e > start]
    diff = word_diff(item.quote, item.source_text[start:end], skip=skip)
    return {
        **context,
        "diff": diff.runs if diff.changed else None,
        "normalised": [name.replace("-", " ") for name in diff.normalised],
    }


def _highlight(item: CalibrationItem | None, user: Any = None) -> dict[str, Any] | None:
    """The viewer's detail for ``item``'s window, drawn with the viewer's
    neutral "cited passage" style (an outcome's colour would tell the
    verdict); none for a document outside ``user``'s workspaces."""
    if item is None or item.document_id is None or not item.pages:
        return None
    documents = Document.objects.defer("text")
    if user is not None:
        documents = documents_visible(documents, user)
    document = documents.filter(pk=item.document_id).first()
    if document is None or not document.file:
        return None
    return {"url": reverse("reviewer:document-file", args=[document.pk]),
            "title": document.title, "pages": pdf_highlight(document, item.pages),
            "label": ("the passage the sentence was compared with"
                      if item.kind == CalibrationItem.Kind.CLAIM
                      else "the passage the quote was compared with")}


def _queue_context(request: HtmxHttpRequest, surface: Surface,
                   item: CalibrationItem | None = None) -> dict[str, Any]:
    second = _second(request)
    skipped = skipped_items(surface, request.user)
    if item is None:
        item = next_item(surface, request.user, second=second, skipped=skipped)
    if item is None and not second:
        # The queue ran dry: draw the next batch of matches (stratified, as
        # the first) and of claim flags (in turn by check).
        calibration_sample(surface=surface, size=BATCH)
        calibration_sample_claims(surface=surface, size=BATCH)
        item = next_item(surface, request.user, second=second, skipped=skipped)
    context: dict[str, Any] = {
        "surface": surface, "second": second, "keys": _keys(item),
        "can_undo": can_undo(surface, request.user),
        "left": queue_left(surface, request.user, second=second, skipped=skipped),
        "labelled": MatchLabel.objects.filter(
            item__surface=surface, labeller_name=request.user.get_username()).count(),
        "skipped": len(skipped),
        "highlight": _highlight(item, request.user),
    }
    if item is not None:
        context.update(_item_context(item))
    return context


def _respond(request: HtmxHttpRequest, surface: Surface,
             item: CalibrationItem | None = None, status: int = 200) -> HttpResponse:
    context = _queue_context(request, surface, item)
    if request.htmx:
        return render(request, "reviewer/calibrate.html#label-queue", context, status=status)
    if request.method == "POST":
        url = reverse("reviewer:calibrate-label", args=[surface.name])
        if context.get("item") is not None:
            url += f"?item={context['item'].pk}"
            if context["second"]:
                url += "&second=1"
        elif context["second"]:
            url += "?second=1"
        return redirect(url)
    return render(request, "reviewer/calibrate.html", {**context, "page": "label"},
                  status=status)


def _wanted_item(request: HtmxHttpRequest, surface: Surface) -> CalibrationItem | None:
    """``?item=`` when it is still open to this labeller (a redirect after a
    plain POST, or an undo), else None (the next one)."""
    raw = request.GET.get("item", "")
    if not raw.isdigit():
        return None
    return (CalibrationItem.objects.filter(surface=surface, pk=int(raw), settled_label="")
            .exclude(answer__deleted_at__isnull=False)
            .exclude(labels__labeller_name=request.user.get_username()).first())


@require_GET
@permission_required("reviewer.label_matches", every_workspace=True)
def calibrate_label(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    chosen = get_object_or_404(Surface, name=surface)
    return _respond(request, chosen, _wanted_item(request, chosen))


def _posted_item(request: HtmxHttpRequest, surface: Surface) -> CalibrationItem:
    raw = request.POST.get("item", "")
    return get_object_or_404(CalibrationItem, surface=surface,
                             pk=int(raw) if raw.isdigit() else 0)


@require_POST
@permission_required("reviewer.label_matches", every_workspace=True)
def calibrate_label_post(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    """Record a label (``label`` = one the item's kind takes, or its key)."""
    chosen = get_object_or_404(Surface, name=surface)
    item = _posted_item(request, chosen)
    value = dict(_keys(item)).get(request.POST.get("label", ""), request.POST.get("label", ""))
    try:
        label = item_label(item=item, labeller=request.user, label=value)
    except LabelRefused as refused:
        messages.warning(request, str(refused))
        return _respond(request, chosen, status=409 if not request.htmx else 200)
    messages.success(request, f"Labelled “{label.get_label_display()}”.")
    return _respond(request, chosen)


@require_POST
@permission_required("reviewer.label_matches", every_workspace=True)
def calibrate_skip(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    chosen = get_object_or_404(Surface, name=surface)
    item = _posted_item(request, chosen)
    item_skip(item=item, labeller=request.user)
    messages.info(request, "Skipped: it stays in the queue for others.")
    return _respond(request, chosen)


@require_POST
@permission_required("reviewer.label_matches", every_workspace=True)
def calibrate_undo(request: HtmxHttpRequest, surface: str) -> HttpResponse:
    """Take back the last label or skip on this surface and show its item again."""
    chosen = get_object_or_404(Surface, name=surface)
    try:
        undone = step_undo(labeller=request.user, surface=chosen)
    except LabelRefused as refused:
        messages.warning(request, str(refused))
        return _respond(request, chosen)
    if undone is None:
        messages.info(request, "Nothing to undo.")
        return _respond(request, chosen)
    kind, item = undone
    messages.info(request, "Skip undone." if kind == "skip" else "Label undone.")
    return _respond(request, chosen, item)
