"""Calibration reads: the labelling queue, and what a surface's labels say.

**Which label counts.** An item's label is its supervisor's settled label
when it has one; else its label when one person labelled it or two agreed.
Two labellers who disagree leave the item out of the curves until a
supervisor settles it (it is listed as a disagreement meanwhile).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from django.db.models import Count, Prefetch, Q, QuerySet

from reviewer.models import CalibrationItem, MatchLabel, Surface
from reviewer.models.calibration import LabelStep
from reviewer.services.calibration import LABELLERS_PER_ITEM
from verification.calibration import LabelledMatch

__all__ = ["ItemLabels", "can_undo", "item_labels", "labelled_matches", "next_item",
           "queue_left", "skipped_items", "surfaces_to_label"]


@dataclass(frozen=True)
class ItemLabels:
    """An item with its labels, and the one that counts (None: none yet, or
    an unsettled disagreement)."""

    item: CalibrationItem
    labels: tuple[MatchLabel, ...]

    @property
    def disagreement(self) -> bool:
        return len({label.label for label in self.labels}) > 1

    @property
    def resolved(self) -> str | None:
        if self.item.settled_label:
            return self.item.settled_label
        if self.labels and not self.disagreement:
            return self.labels[0].label
        return None


def item_labels(surface: Surface, kind: str = CalibrationItem.Kind.MATCH) -> list[ItemLabels]:
    """Every labelled item of ``surface`` of ``kind`` (quote matches, or
    claim flags) with its labels, oldest first."""
    items = (CalibrationItem.objects.filter(surface=surface, kind=kind, labels__isnull=False)
             .distinct()
             .prefetch_related(Prefetch("labels", queryset=MatchLabel.objects.order_by(
                 "created", "pk")))
             .order_by("position", "pk"))
    return [ItemLabels(item, tuple(item.labels.all())) for item in items]


def labelled_matches(surface: Surface) -> list[LabelledMatch]:
    """The quote matches' labels that count (see the module's docstring),
    with their scores."""
    return [LabelledMatch(entry.item.score, entry.resolved)  # type: ignore[arg-type]
            for entry in item_labels(surface) if entry.resolved is not None]


def _open_items(surface: Surface, user: Any, *, second: bool,
                skipped: Collection[int]) -> QuerySet[CalibrationItem]:
    """Items ``user`` may label now: not labelled by them, not skipped (and
    not un-skipped), not settled, not of a deleted answer; unlabelled ones, or
    (``second``) ones with one label by someone else."""
    wanted = 1 if second else 0
    return (CalibrationItem.objects.filter(surface=surface, settled_label="")
            .exclude(answer__deleted_at__isnull=False)
            .exclude(labels__labeller_name=user.get_username())
            .exclude(pk__in=list(skipped))
            .annotate(label_count=Count("labels"))
            .filter(label_count=wanted, label_count__lt=LABELLERS_PER_ITEM)
            .order_by("position", "pk"))


def next_item(surface: Surface, user: Any, *, second: bool = False,
              skipped: Collection[int] = ()) -> CalibrationItem | None:
    """The next item for ``user`` to label (None: the queue is empty)."""
    return _open_items(surface, user, second=second, skipped=skipped).first()


def queue_left(surface: Surface, user: Any, *, second: bool = False,
               skipped: Collection[int] = ()) -> int:
    """How many items ``user`` could still label."""
    return _open_items(surface, user, second=second, skipped=skipped).count()


def skipped_items(surface: Surface, user: Any) -> list[int]:
    """The items ``user`` skipped on ``surface`` and has not un-skipped (the
    skips are stored steps: they outlive a reload and the session)."""
    return list(LabelStep.objects.filter(labeller=user, surface=surface,
                                         kind=LabelStep.Kind.SKIP)
                .values_list("item_id", flat=True))


def can_undo(surface: Surface, user: Any) -> bool:
    """Whether ``user`` has a step on ``surface`` that **u** can take back."""
    return LabelStep.objects.filter(labeller=user, surface=surface).exists()


def surfaces_to_label() -> QuerySet[Surface]:
    """Surfaces with how many items, labels and labelled items each has."""
    return Surface.objects.annotate(
        items=Count("calibration_items", distinct=True),
        labels=Count("calibration_items__labels", distinct=True),
        labelled=Count("calibration_items", filter=Q(calibration_items__labels__isnull=False),
                       distinct=True),
    ).order_by("name")
