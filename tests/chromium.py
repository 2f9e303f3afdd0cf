"""Debian's Chromium, driven by Playwright: what every browser test shares.

Never downloads a browser. Locally a missing Chromium or Playwright skips the
browser tests with the reason; in CI (CI=true) it fails them, so they can
never pass by not running.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def browser_missing(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"browser tests cannot run in CI: {reason}")
    pytest.skip(reason)


def require_chromium() -> None:
    if not CHROMIUM.exists():
        browser_missing(f"{CHROMIUM} is missing (apt-get install chromium)")
    if importlib.util.find_spec("playwright") is None:
        browser_missing("the playwright package is missing (pip install playwright==1.65.2)")
