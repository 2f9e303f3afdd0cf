"""The surfaces page in real Chromium at 1280x720: each surface row opens its
queue, its trends and its calibration; a four-decimal threshold (what the
calibration page recommends, 0.9859) is accepted on the page and in the
admin, and shown with its four decimals wherever it is read."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Surface, SurfaceChange

pytestmark = pytest.mark.django_db(transaction=True)


def _surfaces(page: Any, site: Any) -> None:
    page.set_viewport_size({"width": 1280, "height": 720})
    page.goto(f"{site.url}/surfaces/")
    page.locator("#surface-benefits-chat").wait_for()


def test_a_surface_row_opens_its_queue_trends_and_calibration(page: Any, demo_site: Any) -> None:
    _surfaces(page, demo_site)
    row = page.locator("#surface-benefits-chat")

    row.get_by_role("link", name="Queue of benefits-chat").click()
    page.wait_for_url("**/triage/?surface=benefits-chat")
    assert page.locator("select[name=surface]").input_value() == "benefits-chat"
    column = page.locator(".triage-table thead th").all_text_contents().index("Surface") + 1
    shown = {text.strip() for text in page.locator(
        f".triage-table tbody tr td:nth-child({column})").all_text_contents()}
    assert shown == {"benefits-chat"}

    page.go_back()
    row.get_by_role("link", name="Trends of benefits-chat").click()
    page.wait_for_url("**/trends/?surface=benefits-chat")
    assert page.locator("select[name=surface]").input_value() == "benefits-chat"

    page.go_back()
    row.get_by_role("link", name="Calibration of benefits-chat").click()
    page.wait_for_url("**/calibrate/benefits-chat/")
    assert page.locator("h1").text_content().strip() == "Calibrate benefits-chat"


def test_a_four_decimal_threshold_is_accepted_and_kept(page: Any, demo_site: Any) -> None:
    _surfaces(page, demo_site)
    page.locator("#surface-benefits-chat").get_by_role("link", name="Edit benefits-chat").click()
    form = page.get_by_role("form", name="Change benefits-chat")
    form.get_by_label("Threshold").fill("0.9859")
    form.get_by_label("Reason").fill("The calibration page recommends 0.9859")
    form.get_by_role("button", name="Save").click()
    page.wait_for_url("**/surfaces/#surface-benefits-chat")
    row = page.locator("#surface-benefits-chat")
    assert row.locator("td").nth(1).text_content().strip() == "0.9859"
    assert Surface.objects.get(name="benefits-chat").threshold == 0.9859
    assert "0.9859" in page.locator("table.surface-changes tbody tr").first.text_content()
    assert SurfaceChange.objects.filter(surface__name="benefits-chat").latest("created") \
        .changes["threshold"][1] == 0.9859

    # The calibration page reads it with its four decimals.
    page.goto(f"{demo_site.url}/calibrate/benefits-chat/")
    assert page.locator(".current-threshold").text_content().strip() == "0.9859"

    # The admin takes four decimals too.
    surface = Surface.objects.get(name="benefits-chat")
    page.goto(f"{demo_site.url}/admin/reviewer/surface/{surface.pk}/change/")
    field = page.locator("input[name=threshold]")
    assert float(field.input_value()) == 0.9859
    field.fill("0.9861")
    page.fill("input[name=change_reason]", "Four decimals in the admin")
    page.click("input[name=_save]")
    page.wait_for_url("**/admin/reviewer/surface/")
    assert Surface.objects.get(name="benefits-chat").threshold == 0.9861
