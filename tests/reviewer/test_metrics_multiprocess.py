"""Metrics with several processes (gunicorn workers, task workers): with
PROMETHEUS_MULTIPROC_DIR set, what each process counted is summed in the
exposition any one of them serves; a worker gunicorn retires is marked dead."""

from __future__ import annotations

import os
import re
import runpy
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]

RECORD = """
import django; django.setup()
from reviewer import metrics
metrics.record(surface="legal", model="m1", result={
    "verdict": "fail", "action": "flag", "counts": {"fabricated-marker": 2},
    "elapsed_ms": 3, "answer": 1, "id": "a", "coverage": 1.0})
"""
EXPOSE = """
import django; django.setup()
from reviewer import metrics
print(metrics.exposition()[0].decode())
"""


def _run(code: str, folder: Path) -> str:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings",
           "PROMETHEUS_MULTIPROC_DIR": str(folder)}
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_counts_from_several_processes_are_summed_in_one_exposition(tmp_path: Path) -> None:
    for _ in range(3):  # three workers, each counting one answer
        _run(RECORD, tmp_path)
    served = _run(EXPOSE, tmp_path)  # a fourth serves /metrics
    fabricated = re.search(r'citeguard_citations_total\{[^}]*outcome="fabricated-marker"[^}]*\}'
                           r" ([0-9.]+)", served)
    answers = re.search(r"citeguard_answers_total\{[^}]*\} ([0-9.]+)", served)
    assert fabricated and float(fabricated.group(1)) == 6.0, served[:2000]
    assert answers and float(answers.group(1)) == 3.0


def test_gunicorn_marks_a_retired_worker_dead_and_starts_from_an_empty_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PROMETHEUS_MULTIPROC_DIR", str(tmp_path))
    # A live gauge file of the worker being retired, as prometheus_client writes it.
    (tmp_path / "gauge_livesum_4242.db").write_bytes(b"")
    (tmp_path / "gauge_livesum_4343.db").write_bytes(b"")
    conf = runpy.run_path(str(ROOT / "deploy" / "gunicorn.conf.py"))
    conf["child_exit"](None, SimpleNamespace(pid=4242))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gauge_livesum_4343.db"]
    # A new run starts from an empty folder: an earlier run's counts are not added in.
    (tmp_path / "counter_4343.db").write_bytes(b"")
    conf["on_starting"](None)
    assert list(tmp_path.iterdir()) == []


def test_a_worker_host_serves_what_its_processes_counted(tmp_path: Path) -> None:
    """On a task-worker host (no app server, no /metrics), `manage.py
    metrics_exporter` serves the counts its processes wrote to the host's
    folder: two work-horses' answers summed."""
    for _ in range(2):
        _run(RECORD, tmp_path)
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.settings",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    exporter = subprocess.Popen(
        [sys.executable, "manage.py", "metrics_exporter", "--bind", "127.0.0.1:0"], cwd=ROOT,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert exporter.stdout is not None
        line = exporter.stdout.readline()
        url = re.search(r"http://\S+/metrics", line)
        assert url, line + (exporter.stderr.read() if exporter.poll() is not None else "")
        with urllib.request.urlopen(url.group(0), timeout=10) as response:
            served = response.read().decode()
    finally:
        exporter.terminate()
        exporter.wait(10)
    answers = re.search(r"citeguard_answers_total\{[^}]*\} ([0-9.]+)", served)
    assert answers and float(answers.group(1)) == 2.0, served[:2000]


def test_the_exporter_refuses_to_start_without_a_folder(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run([sys.executable, "manage.py", "metrics_exporter"], cwd=ROOT,
                          env={**env, "DJANGO_SETTINGS_MODULE": "tests.settings"},
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode != 0
    assert "PROMETHEUS_MULTIPROC_DIR must name this host's metrics folder" in done.stderr
