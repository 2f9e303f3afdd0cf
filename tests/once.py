"""The mark of a test whose subject never touches the pass's database.

bin/test runs pytest twice, on SQLite and on PostgreSQL (DATABASE_URL set).
A test that starts its own processes with an environment of its own (its own
var folder, its own or no database) checks the same thing on both passes, so
it runs once, on the SQLite pass.
"""

from __future__ import annotations

import os

import pytest

ONCE = pytest.mark.skipif("DATABASE_URL" in os.environ,
                          reason="database-independent: runs on the SQLite pass only")
