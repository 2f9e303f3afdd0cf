"""A real `manage.py db_worker` SIGKILLed in the middle of a document: its
extraction child dies with it, the document does not stay `processing`
(the watchdog fails it, saying how to retry), and `manage.py reingest` has
another worker make it ready.

Runs in processes of its own on a fresh SQLite var folder (the database and
media the workers share), so it does not touch the test database; it runs
once (tests/once.py).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from tests.ingestion import hostile
from tests.once import OWN_SQLITE_FOLDER
from tests.processes import alive, descendants, wait_for

ROOT = Path(__file__).resolve().parents[2]

pytestmark = OWN_SQLITE_FOLDER

# Each manage.py costs an interpreter and Django start: one process migrates
# and uploads, one runs the watchdog and reingest.
SETUP = """
from pathlib import Path
from django.core.management import call_command
from reviewer.services.documents import document_upload
call_command("migrate", verbosity=0)
path = Path(PATH)
print(document_upload(data=path.read_bytes(), filename=path.name).document.pk)
"""
RECOVER = """
from django.core.management import call_command
from reviewer.models import Document
call_command("watchdog")
document = Document.objects.get(pk=PK)
print(document.status, document.error_kind, document.error)
call_command("reingest", str(PK))
"""


def _env(var_dir: Path) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(var_dir), "LOG_LEVEL": "WARNING",
            "TASK_BACKEND": "django_tasks_db.DatabaseBackend",
            "CITEGUARD_MAX_SECONDS": "120"}


def _manage(var_dir: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=180, env=_env(var_dir))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _status(var_dir: Path, pk: int) -> tuple[str, str, str]:
    with sqlite3.connect(var_dir / "citeguard.sqlite3", timeout=20) as db:
        row = db.execute("SELECT status, error_kind, error FROM reviewer_document WHERE id = ?",
                         (pk,)).fetchone()
    return row[0], row[1], row[2]


def test_a_worker_killed_mid_document_leaves_nothing_stuck(tmp_path: Path,
                                                           migrated_var_dir: Path) -> None:
    var_dir = migrated_var_dir
    pdf = tmp_path / "dense.pdf"
    pdf.write_bytes(hostile.dense_pages(60))  # 60 full pages: seconds of reading
    pk = int(_manage(var_dir, "shell", "--no-imports", "-c",
                     SETUP.replace("PATH", repr(str(pdf)))).split()[-1])
    assert _status(var_dir, pk)[0] == "queued"

    worker = subprocess.Popen(
        [sys.executable, "manage.py", "db_worker", "--no-startup-delay", "--no-reload"], cwd=ROOT,
        env=_env(var_dir), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_for(lambda: _status(var_dir, pk)[0] == "processing", 60, "the worker to start")
        # multiprocessing's resource tracker, the forkserver and the
        # extraction child under it.
        wait_for(lambda: len(descendants(worker.pid)) >= 3, 60, "the extraction child")
        children = descendants(worker.pid)
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(10)
    finally:
        if worker.poll() is None:
            worker.kill()
            worker.wait()
    # Orphaned extraction would go on eating memory: the child dies with it,
    # long before it could have finished its 60 pages.
    wait_for(lambda: not any(alive(pid) for pid in children), 1.5, "the extraction to die")
    assert _status(var_dir, pk)[0] == "processing"  # what the dead worker left

    # Time passes past twice the ingestion limit (120 s): simulated.
    with sqlite3.connect(var_dir / "citeguard.sqlite3", timeout=20) as db:
        db.execute("UPDATE reviewer_document SET updated = datetime('now', '-1 hour') "
                   "WHERE id = ?", (pk,))
    out = _manage(var_dir, "shell", "--no-imports", "-c", RECOVER.replace("PK", str(pk)))
    lines = out.splitlines()
    assert "1 stuck document failed." in lines[:-2]
    assert lines[-2].startswith("failed stuck Ingestion made no progress for")
    assert f"manage.py reingest {pk}, to try again" in lines[-2]
    assert lines[-1] == f"document {pk}: queued"
    _manage(var_dir, "db_worker", "--batch", "--no-startup-delay")
    assert _status(var_dir, pk) == ("ready", "", "")
