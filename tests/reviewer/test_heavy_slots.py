"""Costly answers take turns: with every slot held, one is refused at once
with a 503 and Retry-After, while cheap answers go on being verified."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from django.db import DEFAULT_DB_ALIAS, connection, connections

from reviewer.slots import ADVISORY_LOCK_SPACE
from verification.budget import answer_work_bound

SOURCE = " ".join(f"Clause {i} sets the monthly benefit at {i} dollars." for i in range(3000))
QUOTE = " ".join(f"word{i} appears nowhere in the plan" for i in range(12))  # ~400 chars


def body(answer_id: str, quote: str) -> dict[str, Any]:
    return {"id": answer_id, "answer": f'The plan says "{quote}" [S1].',
            "sources": [{"marker": "S1", "text": SOURCE}]}


@pytest.fixture
def one_slot(settings: Any, tmp_path: Path) -> Path:
    settings.CITEGUARD = {**settings.CITEGUARD, "HEAVY_VERIFY_SLOTS": 1,
                          "HEAVY_VERIFY_WORK": 10_000_000, "HEAVY_VERIFY_LOCK_DIR": str(tmp_path)}
    return tmp_path


@contextmanager
def held(folder: Path) -> Iterator[None]:
    """The slot held as another worker would hold it: on PostgreSQL another
    app server's session (its own connection), on SQLite another process on
    this host (its own open file)."""
    if connection.vendor == "postgresql":
        other = other_app_server()
        try:
            with other.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_lock(%s, 0)", [ADVISORY_LOCK_SPACE])
            yield
        finally:
            other.close()
        return
    fd = os.open(folder / "heavy-verify-0.lock", os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        os.close(fd)


def other_app_server() -> Any:
    """A second connection to the same database, as another host's worker has."""
    return connections.create_connection(DEFAULT_DB_ALIAS)


def post(client: Any, token: str, data: dict[str, Any]) -> Any:
    return client.post("/api/v1/answers", data, content_type="application/json",
                       headers={"Authorization": f"Bearer {token}"})


@pytest.mark.django_db
def test_a_costly_answer_waits_for_no_one_while_cheap_ones_pass(
        client: Any, api_token: str, one_slot: Path) -> None:
    assert answer_work_bound(body("x", QUOTE)["answer"], len(SOURCE)) > 10_000_000
    with held(one_slot):
        busy = post(client, api_token, body("costly", QUOTE))
        cheap = post(client, api_token, body("cheap", "Clause 7 sets the monthly benefit"))
    assert busy.status_code == 503
    assert busy["Retry-After"] == "1"
    error = busy.json()["error"]
    assert error["code"] == "verification-busy"
    assert "1 slots are busy" in error["message"] and "10,000,000" in error["message"]
    assert cheap.status_code == 201
    # Nothing was stored for the refused one: sent again with the slot free, it is new.
    again = post(client, api_token, body("costly", QUOTE))
    assert again.status_code == 201
    assert again.json()["counts"]["quote-not-found"] == 1


@pytest.mark.django_db
def test_the_slot_is_released_after_each_answer_and_on_failure(
        client: Any, api_token: str, one_slot: Path) -> None:
    for n in range(3):
        assert post(client, api_token, body(f"costly-{n}", QUOTE)).status_code == 201
    # A costly answer refused by the work budget gives its slot back too.
    from django.conf import settings
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_VERIFY_WORK": 1_000_000}
    assert post(client, api_token, body("over", QUOTE)).status_code == 413
    settings.CITEGUARD = {**settings.CITEGUARD, "MAX_VERIFY_WORK": 0}
    assert post(client, api_token, body("after", QUOTE)).status_code == 201


postgresql_only = pytest.mark.skipif(connection.vendor != "postgresql",
                                     reason="slots are cluster-wide on PostgreSQL only")


@postgresql_only
@pytest.mark.django_db
def test_on_postgresql_a_slot_held_by_another_app_server_counts_here(
        client: Any, api_token: str, one_slot: Path) -> None:
    with held(one_slot):
        busy = post(client, api_token, body("costly", QUOTE))
    assert busy.status_code == 503
    assert "1 at a time across all app servers" in busy.json()["error"]["message"]
    assert not any(one_slot.iterdir())  # no file lock was taken


@postgresql_only
@pytest.mark.django_db
def test_on_postgresql_a_crashed_holders_slot_comes_back(
        client: Any, api_token: str, one_slot: Path) -> None:
    other = other_app_server()
    with other.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock(%s, 0)", [ADVISORY_LOCK_SPACE])
    assert post(client, api_token, body("while-held", QUOTE)).status_code == 503
    # The holder dies without unlocking: its session ends, and the lock with it.
    other.connection.close()
    other.connection = None
    assert post(client, api_token, body("after-crash", QUOTE)).status_code == 201
