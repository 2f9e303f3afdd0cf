"""Nothing cut without a word, in real Chromium at 1280x720 under the site's
Content-Security-Policy: each page's text field with a limit has it as
maxlength and shows a counter under it that follows the typing and stops at
the limit (the server's refusal is tests/reviewer/test_text_limits.py)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from reviewer.models import Document, Surface
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]


def _documents(page: Any, base: str) -> None:
    page.goto(f"{base}/documents/")


def _new_version(page: Any, base: str) -> None:
    document = Document.objects.order_by("pk").first()
    page.goto(f"{base}/documents/{document.pk}/")
    page.get_by_text("Upload a new version").click()


def _surface_form(page: Any, base: str) -> None:
    surface = Surface.objects.order_by("name").first()
    page.goto(f"{base}/surfaces/")
    # The form arrives by htmx in place of the row: its fields get counters too.
    page.locator(f"#surface-{surface.name} a", has_text="Edit").click()


def _admin_surface(page: Any, base: str) -> None:
    surface = Surface.objects.order_by("name").first()
    page.goto(f"{base}/admin/reviewer/surface/{surface.pk}/change/")


FIELDS = [
    ("documents: title", _documents, "form.upload input[name=title]", 300),
    ("documents: document key", _documents, "form.upload input[name=document_key]", 200),
    ("document: new version's title", _new_version, "details.new-version input[name=title]",
     300),
    ("surfaces: description", _surface_form, "form.surface-form [name$='-description']", 300),
    ("surfaces: reason", _surface_form, "form.surface-form textarea[name$='-reason']", 2000),
    ("admin surface: change reason", _admin_surface, "[name=change_reason]", 2000),
]


@pytest.mark.parametrize(("where", "open_page", "selector", "limit"), FIELDS,
                         ids=[field[0] for field in FIELDS])
def test_a_limited_field_shows_its_limit_and_a_counter_that_follows_the_typing(
        csp_page: Any, where: str, open_page: Any, selector: str, limit: int) -> None:
    page = csp_page
    page.set_viewport_size({"width": 1280, "height": 720})
    base = page.url.split("/answers")[0]
    open_page(page, base)
    field = page.locator(selector)
    expect(field).to_be_visible()
    assert field.get_attribute("maxlength") == str(limit), where

    counter = field.locator("xpath=following-sibling::small[contains(@class, 'char-counter')]")
    field.fill("")
    counter.scroll_into_view_if_needed()
    expect(counter).to_be_visible()
    expect(counter).to_have_text(f"0 / {limit:,} characters")
    field.press_sequentially("Leave")
    expect(counter).to_have_text(f"5 / {limit:,} characters")
    expect(counter).not_to_have_class(re.compile("at-limit"))
    # Typing past the limit stops at it, and the counter says so.
    field.fill("x" * (limit - 1))
    field.press_sequentially("yz")
    assert len(field.input_value()) == limit
    expect(counter).to_have_text(f"{limit:,} / {limit:,} characters")
    expect(counter).to_have_class(re.compile("at-limit"))
