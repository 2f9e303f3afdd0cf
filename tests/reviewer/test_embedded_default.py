"""The embedded default as a newcomer gets it: no DATABASE_URL, a fresh var/
folder, SQLite tuned for a web server with several worker processes."""

import json
import subprocess
import sys
import threading
from pathlib import Path

from tests.once import OWN_SQLITE_FOLDER

ROOT = Path(__file__).resolve().parents[2]
pytestmark = OWN_SQLITE_FOLDER  # its processes have no DATABASE_URL whatever the pass

PROBE = """
import json
from django.db import connection

with connection.cursor() as cursor:
    mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
    synchronous = cursor.execute("PRAGMA synchronous").fetchone()[0]
print(json.dumps({"journal_mode": mode, "synchronous": synchronous}))
"""


def manage(var_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, env={"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(var_dir),
                          "LOG_LEVEL": "WARNING"},
    )


def test_fresh_var_folder_gets_a_write_ahead_logged_database(tmp_path: Path) -> None:
    var_dir = tmp_path / "var"  # does not exist yet: settings create it
    migrated = manage(var_dir, "migrate", "--verbosity", "0")
    assert migrated.returncode == 0, migrated.stderr
    assert (var_dir / "citeguard.sqlite3").is_file()

    probe = manage(var_dir, "shell", "--no-imports", "-c", PROBE)
    assert probe.returncode == 0, probe.stderr
    pragmas = json.loads(probe.stdout.strip().splitlines()[-1])
    # WAL lets readers run beside a writer; NORMAL (1) syncs at checkpoints
    # instead of at every commit.
    assert pragmas == {"journal_mode": "wal", "synchronous": 1}


def test_two_processes_writing_at_once_both_succeed(tmp_path: Path) -> None:
    """IMMEDIATE transactions queue behind each other instead of failing
    with "database is locked" when both try to upgrade a read lock."""
    var_dir = tmp_path / "var"
    assert manage(var_dir, "migrate", "--verbosity", "0").returncode == 0
    writer = """
import sys, time
from django.db import transaction
from reviewer.models import Surface
for n in range(15):
    with transaction.atomic():
        count = Surface.objects.count()  # a read first: the lock upgrade that deadlocks
        time.sleep(0.01)
        Surface.objects.create(name=f"{sys.argv[-1]}-{n}-{count}")
"""
    results: dict[str, subprocess.CompletedProcess[str]] = {}

    def run(name: str) -> None:
        results[name] = manage(var_dir, "shell", "--no-imports", "-c",
                               writer.replace("sys.argv[-1]", repr(name)))

    threads = [threading.Thread(target=run, args=(name,)) for name in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for name, result in results.items():
        assert result.returncode == 0, f"writer {name}: {result.stderr[-2000:]}"
    count = manage(var_dir, "shell", "--no-imports", "-c",
                   "from reviewer.models import Surface; print(Surface.objects.count())")
    assert count.stdout.strip().splitlines()[-1] == "30"
