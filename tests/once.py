"""The marks of tests whose subject never touches the pass's database.

bin/test runs pytest twice, on SQLite and on PostgreSQL (DATABASE_URL set).
A test that starts its own processes with an environment of its own (its own
var folder, its own or no database) checks the same thing on both passes, so
it runs once: on the SQLite pass (``ONCE``), or, when its processes bring
their own SQLite folder, on the PostgreSQL pass (``OWN_SQLITE_FOLDER``), to
even out the two passes' times.
"""

from __future__ import annotations

import os

import pytest

ONCE = pytest.mark.skipif("DATABASE_URL" in os.environ,
                          reason="database-independent: runs on the SQLite pass only")

#: A browser test whose subject is what the page does in the browser (pdf.js
#: drawing, highlights, keys, scripts under the policy, the viewer's byte
#: ranges, a form's counter) over data whose reading and writing the
#: reviewer tests check on both databases: it runs once, on the SQLite pass.
#: Browser tests whose subject is a query or a write that differs between
#: the two (triage's counts, estimates and search, trends' summaries,
#: decisions, calibration, presence, conflicts, thresholds) run on both.
BROWSER_ONLY = pytest.mark.skipif(
    "DATABASE_URL" in os.environ,
    reason="what it checks happens in the browser: runs on the SQLite pass only")


def _on_the_postgresql_pass_of_two() -> bool:
    """Whether this pass is where a test of processes on their own SQLite
    folder runs: with bin/test's two passes (CITEGUARD_TEST_PASSES=2), the
    PostgreSQL one, the shorter (the SQLite pass also runs tests/browser,
    tests/ingestion and the browser-only tests); in a single run, this one."""
    if os.environ.get("CITEGUARD_TEST_PASSES") != "2":
        return True
    return "DATABASE_URL" in os.environ


#: A test that starts processes of its own (workers, ``manage.py`` on a fresh
#: folder) on a SQLite var folder and, for the queue, a Redis database of its
#: own: what it checks is the same whichever database the pass uses, so it
#: runs once, on the PostgreSQL pass when bin/test runs both.
OWN_SQLITE_FOLDER = pytest.mark.skipif(
    not _on_the_postgresql_pass_of_two(),
    reason="its own processes and SQLite folder: runs once, on the PostgreSQL pass")
