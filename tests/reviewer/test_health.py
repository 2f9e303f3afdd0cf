"""/healthz and /readyz, as a load balancer calls them: by IP over plain
HTTP with no session, in production settings; each readiness check failing
on its own turns /readyz into a 503 that says only "not ready", and the
reason goes to the log."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from django.db import OperationalError
from django.test import Client, override_settings

from reviewer import health

pytestmark = pytest.mark.django_db

# A production request as a probe sends it: another Host than ALLOWED_HOSTS,
# plain HTTP where production redirects to HTTPS.
PRODUCTION = {"DEBUG": False, "SECURE_SSL_REDIRECT": True, "ALLOWED_HOSTS": ["citeguard.example"]}


@pytest.fixture
def probe() -> Client:
    return Client(HTTP_HOST="10.0.0.7:8000")


@pytest.fixture(autouse=True)
def _fresh_migration_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(health, "_migrated", False)


@override_settings(**PRODUCTION)
def test_healthz_answers_a_probe_by_ip_over_http_without_a_session(probe: Client) -> None:
    response = probe.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok\n")
    assert response["Cache-Control"] == "no-store"
    assert "sessionid" not in response.cookies


@override_settings(**PRODUCTION)
def test_readyz_is_ready_when_database_migrations_storage_and_queue_are(probe: Client) -> None:
    response = probe.get("/readyz")
    assert (response.status_code, response.content) == (200, b"ready\n")
    assert probe.head("/readyz").status_code == 200


@override_settings(**PRODUCTION)
def test_other_paths_still_get_the_host_check_and_the_https_redirect(probe: Client) -> None:
    assert probe.get("/healthz/").status_code in (301, 400)
    assert probe.get("/accounts/login/").status_code == 400  # DisallowedHost


def test_a_probe_that_is_not_a_get_is_refused(probe: Client) -> None:
    response = probe.post("/readyz")
    assert response.status_code == 405 and response["Allow"] == "GET, HEAD"


def _not_ready(probe: Client, caplog: pytest.LogCaptureFixture) -> tuple[Any, str]:
    with caplog.at_level(logging.WARNING, logger="citeguard.health"):
        response = probe.get("/readyz")
    assert (response.status_code, response.content) == (503, b"not ready\n")
    return response, caplog.text


def test_the_database_down_is_not_ready(probe: Client, caplog: pytest.LogCaptureFixture,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    def refused() -> str:
        raise OperationalError("connection refused")

    monkeypatch.setitem(health.CHECKS, "database", refused)
    _, log = _not_ready(probe, caplog)
    assert "database: OperationalError: connection refused" in log


def test_a_migration_not_applied_is_not_ready(probe: Client, caplog: pytest.LogCaptureFixture,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from django.db.migrations.executor import MigrationExecutor

    def one_left(self: Any, targets: Any, clean_start: bool = False) -> Any:
        # The app's last migration, as if it were not applied yet.
        leaf = max(t for t in targets if t[0] == "reviewer")
        return [(self.loader.get_migration(*leaf), False)]

    monkeypatch.setattr(MigrationExecutor, "migration_plan", one_left)
    _, log = _not_ready(probe, caplog)
    assert "migrations: 1 migration(s) not applied, first reviewer." in log


def test_the_storage_folder_missing_is_not_ready(probe: Client, caplog: pytest.LogCaptureFixture,
                                                 tmp_path: Path) -> None:
    with override_settings(MEDIA_ROOT=str(tmp_path / "gone")):
        _, log = _not_ready(probe, caplog)
    assert "storage: storage folder" in log and "gone is missing or not writable" in log


def test_a_queue_that_does_not_answer_is_not_ready(probe: Client, caplog: pytest.LogCaptureFixture,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from django.tasks import task_backends

    def ping() -> None:
        raise ConnectionError("queue at 127.0.0.1:6379 refused")

    monkeypatch.setattr(task_backends["default"], "ping", ping, raising=False)
    _, log = _not_ready(probe, caplog)
    assert "queue: ConnectionError: queue at 127.0.0.1:6379 refused" in log
