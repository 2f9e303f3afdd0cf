"""Calibration in a real browser: labelling with the keyboard (1/2/3, s, u, v
for the PDF) and the labels reaching the stored set."""

from __future__ import annotations

import os
from typing import Any

import pytest

from reviewer.models import CalibrationItem, MatchLabel, Surface
from reviewer.services.calibration import calibration_sample

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _roles(transactional_db: None) -> None:
    """The role groups come from a migration, and a transactional test's
    flush removes them: put them back before the demo gives its users roles."""
    from django.contrib.auth.models import Group, Permission
    from django.contrib.contenttypes.models import ContentType

    from reviewer.roles import sync_roles

    sync_roles(Group, Permission, ContentType)


def _item(page: Any) -> int:
    return int(page.locator("#label-queue .label-item").get_attribute("data-item"))


def _press(page: Any, key: str, *, until_item_is_not: int | None = None) -> None:
    before = page.locator("#labelled-count").inner_text()
    page.keyboard.press(key)
    if until_item_is_not is not None:
        page.wait_for_function(
            f"document.querySelector('#label-queue .label-item')?.dataset.item !== "
            f"'{until_item_is_not}'")
    else:
        page.wait_for_function(
            f"document.querySelector('#labelled-count').textContent !== '{before}'")


def test_labelling_with_the_keyboard(page: Any) -> None:
    base = page.url.split("/answers")[0]
    surface = Surface.objects.get(name="benefits-chat")
    if not CalibrationItem.objects.filter(surface=surface).exists():
        calibration_sample(surface=surface, size=50)
    assert CalibrationItem.objects.filter(surface=surface, labels=None).count() >= 4

    page.goto(f"{base}/calibrate/benefits-chat/label")
    page.evaluate("window.stillTheSamePage = true")
    first = _item(page)
    labelled = MatchLabel.objects.filter(labeller_name="demo").count()

    _press(page, "1", until_item_is_not=first)  # faithful
    assert MatchLabel.objects.get(item_id=first, labeller_name="demo").label == "faithful"
    assert page.locator(".label-message").inner_text() == "Labelled “Same passage, faithful”."
    second = _item(page)

    _press(page, "s", until_item_is_not=second)  # skipped: not labelled
    assert not MatchLabel.objects.filter(item_id=second).exists()
    third = _item(page)

    _press(page, "u", until_item_is_not=third)  # the skip undone: the second item again
    assert _item(page) == second

    _press(page, "2", until_item_is_not=second)
    assert MatchLabel.objects.get(item_id=second, labeller_name="demo").label == "changed"
    fourth = _item(page)
    _press(page, "3", until_item_is_not=fourth)
    assert MatchLabel.objects.get(item_id=fourth, labeller_name="demo").label == "other"

    _press(page, "u", until_item_is_not=_item(page))  # the "other" label taken back
    assert _item(page) == fourth
    assert not MatchLabel.objects.filter(item_id=fourth).exists()
    assert MatchLabel.objects.filter(labeller_name="demo").count() == labelled + 2
    assert page.locator("#labelled-count").inner_text() == str(labelled + 2)

    # Every step was an htmx swap, never a page load.
    assert page.evaluate("window.stillTheSamePage") is True

    # v: the passage in the PDF, for an item that has one.
    with_pdf = (CalibrationItem.objects.filter(surface=surface, labels=None)
                .exclude(document=None).exclude(pages=[]).first())
    assert with_pdf is not None  # the demo cites its PDFs
    page.goto(f"{base}/calibrate/benefits-chat/label?item={with_pdf.pk}")
    assert page.locator("#label-viewer").is_hidden()
    page.keyboard.press("v")
    page.wait_for_selector("#label-viewer .cg-highlight", state="attached", timeout=30_000)
    assert page.locator("#label-viewer").is_visible()
    if os.environ.get("CITEGUARD_SHOT"):
        page.screenshot(path=os.environ["CITEGUARD_SHOT"], full_page=True)
    page.keyboard.press("v")
    assert page.locator("#label-viewer").is_hidden()
