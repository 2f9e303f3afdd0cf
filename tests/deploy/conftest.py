"""Production settings (DEBUG=0, collected static files) in a temporary folder,
served by real processes (deploy/recipe.py). What these tests check does not
touch the database, so they run once: on bin/test's SQLite pass, not beside it
on PostgreSQL (which has DATABASE_URL set)."""

from __future__ import annotations

from pathlib import Path

import pytest

from deploy import recipe


@pytest.fixture(scope="session")
def production_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    var_dir = tmp_path_factory.mktemp("production")
    env = recipe.server_env(Path(var_dir))
    recipe.prepare(env, migrate=False)  # collectstatic with DEBUG=0's storage
    return env
