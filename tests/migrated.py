"""A migrated SQLite database for tests whose processes bring their own var folder.

Migrating a fresh SQLite folder takes about ten seconds, nearly all of it
Django rendering the state of some eighty migrations, not SQL. Tests whose
subject is what happens after that (workers killed mid-document, the Redis
queue, backup and restore) each paid it again. ``migrated_var_dir`` puts a
copy of one database, migrated once a run by ``manage.py migrate`` in a
process of its own, into a new var folder. Their scripts still call
``migrate``, which finds nothing to do.

Migrating a new folder is itself tested where it is the subject
(tests/reviewer/test_embedded_default.py), and pytest-django migrates each
pass's test database from nothing.
"""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATABASE_NAME = "citeguard.sqlite3"  # the embedded default's file in its var folder


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    var_dir = tmp_path_factory.mktemp("migrated-template") / "var"
    done = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--verbosity", "0"], cwd=ROOT,
        capture_output=True, text=True, timeout=300,
        env={"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(var_dir), "LOG_LEVEL": "WARNING"})
    assert done.returncode == 0, done.stderr[-3000:]
    return var_dir / DATABASE_NAME


def copy_migrated(template: Path, var_dir: Path) -> Path:
    """``var_dir`` (created) holding a copy of ``template``; returns it.

    Copied through SQLite's backup API, not as a file: the template is in
    write-ahead-log mode and a plain copy could miss pages still in its log.
    """
    var_dir.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(template) as source, sqlite3.connect(var_dir / DATABASE_NAME) as copy:
        source.backup(copy)
    source.close()
    copy.close()
    return var_dir


@pytest.fixture
def migrated_var_dir(migrated_sqlite: Path, tmp_path: Path) -> Path:
    """A new var folder whose database is already migrated."""
    return copy_migrated(migrated_sqlite, tmp_path / "var")
