"""Fixtures shared across test packages."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

from tests.chromium import CHROMIUM, CHROMIUM_ARGS, require_chromium
from tests.demo_once import demo_built_and_read_once  # noqa: F401 - autouse, for the run
from tests.migrated import migrated_sqlite, migrated_var_dir  # noqa: F401 - fixtures


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Debian Chromium for the whole run (Playwright's sync API
    allows one instance per thread, so every browser test shares it)."""
    require_chromium()
    # The sync API runs an event loop in this thread; let Django's ORM be
    # called from it (the test thread is not serving async requests).
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    from tests.figures import FIGURES

    if FIGURES:
        terminalreporter.section("figures measured by the tests")
        for line in FIGURES:
            terminalreporter.write_line(line)
