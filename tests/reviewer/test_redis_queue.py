"""The Redis task queue (CITEGUARD_TASKS=redis) with real `manage.py rqworker`
processes on the Redis at REDIS_URL (bin/test starts one): an upload is
queued on Redis and a worker makes it ready; a worker SIGKILLed with its
work-horse and extraction mid-document leaves the job for another worker,
which finishes it with the same pages and no duplicate rows; /readyz says
when Redis is not there.

Each test has its own SQLite var folder and its own Redis database number,
emptied before and after; they run once, on the PostgreSQL pass when bin/test
runs both (tests/once.py).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.ingestion import hostile
from tests.migrated import copy_migrated
from tests.once import OWN_SQLITE_FOLDER
from tests.processes import alive, kill_tree, wait_for

redis = pytest.importorskip("redis")

ROOT = Path(__file__).resolve().parents[2]
REDIS_DB = 13  # this module's own: flushed before and after

pytestmark = OWN_SQLITE_FOLDER

UPLOAD = """
from pathlib import Path
from django.core.management import call_command
from reviewer.services.documents import document_upload
call_command("migrate", verbosity=0)
path = Path(PATH)
print(document_upload(data=path.read_bytes(), filename=path.name).document.pk)
"""


def _redis_url() -> str:
    base = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
    return base.rsplit("/", 1)[0] + f"/{REDIS_DB}"


@pytest.fixture
def queue_redis() -> Iterator[redis.Redis]:
    connection = redis.Redis.from_url(_redis_url(), socket_connect_timeout=2)
    try:
        connection.ping()
    except redis.RedisError as error:
        pytest.skip(f"no Redis at {_redis_url()} ({error}); bin/test starts one")
    connection.flushdb()
    yield connection
    connection.flushdb()


def _env(var_dir: Path, **extra: str) -> dict[str, str]:
    return {"PATH": "/usr/bin:/bin", "CITEGUARD_VAR_DIR": str(var_dir), "LOG_LEVEL": "WARNING",
            "CITEGUARD_TASKS": "redis", "REDIS_URL": _redis_url(),
            "CITEGUARD_MAX_SECONDS": "120", **extra}


def _manage(var_dir: Path, *args: str, **extra: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=300, env=_env(var_dir, **extra))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def _upload(var_dir: Path, pdf: Path) -> int:
    return int(_manage(var_dir, "shell", "--no-imports", "-c",
                       UPLOAD.replace("PATH", repr(str(pdf)))).split()[-1])


def _rows(var_dir: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(var_dir / "citeguard.sqlite3", timeout=20) as db:
        return db.execute(sql, params).fetchall()


def _status(var_dir: Path, pk: int) -> str:
    return str(_rows(var_dir, "SELECT status FROM reviewer_document WHERE id = ?", pk)[0][0])


def _pages(var_dir: Path, pk: int) -> list[tuple[object, ...]]:
    return _rows(var_dir, "SELECT number, width, height, text_start, text_end FROM "
                 "reviewer_page WHERE document_id = ? ORDER BY number", pk)


def test_an_upload_is_queued_on_redis_and_a_worker_makes_it_ready(
        tmp_path: Path, migrated_var_dir: Path, queue_redis: redis.Redis) -> None:
    var_dir = migrated_var_dir
    pdf = tmp_path / "plan.pdf"
    pdf.write_bytes(hostile.dense_pages(3))
    pk = _upload(var_dir, pdf)
    assert _status(var_dir, pk) == "queued"
    assert queue_redis.llen("rq:queue:default") == 1  # on Redis, not in the database
    assert _rows(var_dir, "SELECT count(*) FROM django_tasks_database_dbtaskresult") == [(0,)]

    _manage(var_dir, "rqworker", "--burst", "--with-scheduler", "default")
    assert _status(var_dir, pk) == "ready"
    assert len(_pages(var_dir, pk)) == 3
    assert queue_redis.llen("rq:queue:default") == 0


def test_a_worker_killed_mid_document_leaves_it_to_another_worker(
        tmp_path: Path, migrated_sqlite: Path, queue_redis: redis.Redis) -> None:
    """kill -9 of a worker's whole process group (the worker, its work-horse,
    the extraction child: a host that died). Its job's heartbeat stops; after
    the grace another worker finds the job abandoned, runs it again, and the
    document ends ready with the pages of a clean run, each stored once."""
    fast = {"CITEGUARD_TASK_HEARTBEAT_SECONDS": "1", "CITEGUARD_TASK_HEARTBEAT_GRACE_SECONDS": "10",
            "CITEGUARD_TASK_MAINTENANCE_SECONDS": "2"}
    clean_dir = copy_migrated(migrated_sqlite, tmp_path / "clean")
    var_dir = copy_migrated(migrated_sqlite, tmp_path / "var")
    pdf = tmp_path / "dense.pdf"
    pdf.write_bytes(hostile.dense_pages(60))  # seconds of reading
    clean = _upload(clean_dir, pdf)
    _manage(clean_dir, "rqworker", "--burst", "--with-scheduler", "default")
    assert _status(clean_dir, clean) == "ready"

    pk = _upload(var_dir, pdf)
    first = subprocess.Popen(
        [sys.executable, "manage.py", "rqworker", "--with-scheduler", "default"], cwd=ROOT,
        env=_env(var_dir, **fast), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        wait_for(lambda: _status(var_dir, pk) == "processing"
              and _rows(var_dir, "SELECT progress FROM reviewer_document WHERE id = ?",
                        pk)[0][0] != "", 120, "the first worker to read pages")
    finally:
        # RQ's work-horse leaves the worker's process group (setpgrp): every
        # process under the worker is killed, as a dead host's would be.
        doomed = kill_tree(first.pid)
        first.wait(10)
    wait_for(lambda: not any(alive(pid) for pid in doomed), 5, "the killed processes to go")
    assert len(doomed) >= 3, doomed  # worker, work-horse, extraction
    assert _status(var_dir, pk) == "processing"  # what the dead worker left
    killed_at = time.monotonic()

    second = subprocess.Popen(
        [sys.executable, "manage.py", "rqworker", "--with-scheduler", "default"], cwd=ROOT,
        env=_env(var_dir, **fast), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        wait_for(lambda: _status(var_dir, pk) in ("ready", "failed"), 300,
              "another worker to finish the document")
        recovered = time.monotonic() - killed_at
    finally:
        kill_tree(second.pid)
        second.wait(30)
    assert _status(var_dir, pk) == "ready"
    pages = _pages(var_dir, pk)
    print(f"\nworker killed mid-document; another worker had it ready {recovered:.0f} s later: "
          f"{len(pages)} pages, {len({p[0] for p in pages})} distinct")
    assert pages == _pages(clean_dir, clean)  # identical to a clean run, none twice
    chunks = _rows(var_dir, "SELECT count(*), count(DISTINCT \"index\") FROM reviewer_chunk "
                   "WHERE document_id = ?", pk)[0]
    assert chunks[0] == chunks[1] > 0


def test_readyz_says_when_the_queue_is_not_reachable(migrated_var_dir: Path) -> None:
    probe = ("from reviewer.health import readiness_problems\n"
             "from django.core.management import call_command\n"
             "call_command('migrate', verbosity=0)\n"
             "print(readiness_problems())")
    out = _manage(migrated_var_dir, "shell", "--no-imports", "-c", probe,
                  REDIS_URL="redis://127.0.0.1:1/0")
    assert "'queue': 'ConnectionError" in out, out
