"""What a process of the project loads when it starts: PyMuPDF without its
layout analyser, whose ONNX sessions cost every worker about a second and
100 MB at import and serve nothing citeguard calls (reviewer/__init__.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, sys
import {first}
import pymupdf
print(json.dumps({{"analyser": pymupdf._get_layout is not None,
                  "imported": sys.modules.get("pymupdf.layout") is not None}}))
"""


def _started(first: str) -> dict[str, bool]:
    done = subprocess.run([sys.executable, "-c", PROBE.format(first=first)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "DJANGO_SETTINGS_MODULE":
                               "reviewer.settings"})
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_the_app_and_its_extraction_start_without_the_layout_analyser() -> None:
    # The settings (manage.py, gunicorn) and the forkserver's preload.
    assert _started("reviewer.settings") == {"analyser": False, "imported": False}
    assert _started("reviewer.ingestion._forkserver") == {"analyser": False, "imported": False}


def test_pymupdf_alone_still_loads_it_so_the_probe_can_see_it() -> None:
    # Without the project first, PyMuPDF 2.0 builds the analyser: the probe
    # above would see a regression (a dependency imported before the project).
    assert _started("os") == {"analyser": True, "imported": True}
