"""A real browser (Debian's Chromium driven by Playwright) against a live
Django server with the demo loaded. Skips, saying why, when either is missing.

The demo is loaded without its scanned letter (``load_demo --no-scan``):
reading it by OCR is a second or more of every test's setup, on both database
passes, and few browser tests cite it (tests/e2e/test_ocr_scan.py drives
scans of its own; tests/reviewer/test_demo_scan.py checks the letter). A test
marked ``demo_scan`` gets the whole demo, as ``make demo`` loads it: one that
cites the letter, and the screenshots for the docs, which show its lists."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest


def pytest_configure(config: Any) -> None:
    config.addinivalue_line(
        "markers", "demo_scan: the browser test's demo includes the scanned letter (OCR'd)")
    config.addinivalue_line(
        "markers", "docs_screenshots: takes the README's screenshots (once, on the SQLite pass)")


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    # The README's screenshots come from one pass: the pages they show are
    # the ones the other browser tests drive on both databases, and each
    # costs the whole demo with its OCR'd letter.
    if "DATABASE_URL" not in os.environ:
        return
    once = pytest.mark.skip(reason="the docs' screenshots are taken once, on the SQLite pass")
    for item in items:
        if item.get_closest_marker("docs_screenshots"):
            item.add_marker(once)


@pytest.fixture
def demo_options(request: pytest.FixtureRequest) -> tuple[str, ...]:
    """The options every ``load_demo`` of this test passes (a second load,
    with --history say, would otherwise add the letter the first left out)."""
    return () if request.node.get_closest_marker("demo_scan") else ("--no-scan",)


@pytest.fixture
def demo_site(live_server: Any, django_capture_on_commit_callbacks: Any,
              demo_options: tuple[str, ...]) -> Any:
    from django.core.management import call_command

    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", *demo_options, stdout=StringIO())
    return live_server


@pytest.fixture
def load_more_demo(demo_site: Any, demo_options: tuple[str, ...]) -> Callable[..., None]:
    """``load_demo`` again with more of the demo (``--history``,
    ``--calibration``), leaving out what this test's demo left out."""
    from django.core.management import call_command

    def load(*options: str) -> None:
        call_command("load_demo", *options, *demo_options, stdout=StringIO())

    return load


@pytest.fixture
def page(chromium: Any, demo_site: Any) -> Iterator[Any]:
    # Playwright evaluates string expressions (wait_for_function("...")) with
    # eval, which the Content-Security-Policy refuses: these tests bypass it,
    # tests/e2e/test_csp.py runs under it (csp_page).
    yield from _logged_in_page(chromium, demo_site, bypass_csp=True)


@pytest.fixture
def csp_page(chromium: Any, demo_site: Any) -> Iterator[Any]:
    """A logged-in page the site's Content-Security-Policy applies to."""
    yield from _logged_in_page(chromium, demo_site, bypass_csp=False)


def _logged_in_page(chromium: Any, demo_site: Any, *, bypass_csp: bool) -> Iterator[Any]:
    context = chromium.new_context(viewport={"width": 1400, "height": 900}, bypass_csp=bypass_csp)
    # Signed in as the demo admin by the session cookie the login form would
    # leave: the form cost every test two page loads, one of them the admin's
    # landing page (the triage queue, counts and all). The form itself, with
    # the redirect to each role's work, is driven by the tests that sign
    # other people in (test_calibrate, test_review_trust, test_triage_trust).
    from reviewer.management.commands.load_demo import DEMO_USER

    context.add_cookies([_session_cookie(demo_site.url, DEMO_USER)])
    page = context.new_page()
    page.set_default_timeout(15_000)
    # These tests start from the answers list.
    page.goto(f"{demo_site.url}/answers/")
    yield page
    context.close()


def _session_cookie(url: str, username: str) -> dict[str, str]:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    client = Client()
    client.force_login(get_user_model().objects.get(username=username),
                       backend="django.contrib.auth.backends.ModelBackend")
    return {"name": settings.SESSION_COOKIE_NAME,
            "value": client.cookies[settings.SESSION_COOKIE_NAME].value, "url": url}
