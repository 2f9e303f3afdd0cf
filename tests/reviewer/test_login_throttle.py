"""Login throttling (django-axes): five failed logins of one user from one
address pause that pair for fifteen minutes with a clear 429 page; nobody
else is locked out, and the pause ends on its own."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


@pytest.fixture
def users() -> None:
    model = get_user_model()
    model.objects.create_user("alice", password="correct horse battery")
    model.objects.create_user("bob", password="bob's own password")


def login(client: Client, username: str, password: str) -> int:
    return client.post(LOGIN, {"username": username, "password": password}).status_code


def test_five_failures_lock_that_user_at_that_address_for_fifteen_minutes(users: None) -> None:
    from axes.models import AccessAttempt

    guesser = Client(REMOTE_ADDR="203.0.113.7")
    assert [login(guesser, "alice", f"guess {n}") for n in range(4)] == [200] * 4
    locked = guesser.post(LOGIN, {"username": "alice", "password": "guess 5"})
    assert locked.status_code == 429
    page = locked.content.decode()
    assert "Too many failed logins" in page and "Try again in 15 minutes" in page
    assert "<strong>alice</strong>" in page
    # Locked means locked: the right password does not get through either.
    assert login(guesser, "alice", "correct horse battery") == 429

    # Not a way to lock colleagues out: another user at that address, and the
    # same user from elsewhere, log in.
    assert login(guesser, "bob", "bob's own password") == 302
    assert login(Client(REMOTE_ADDR="198.51.100.4"), "alice", "correct horse battery") == 302

    # The pause ends by itself once its fifteen minutes have passed.
    AccessAttempt.objects.update(attempt_time=timezone.now() - timedelta(minutes=16))
    assert login(guesser, "alice", "correct horse battery") == 302


def test_a_successful_login_clears_the_count(users: None) -> None:
    client = Client(REMOTE_ADDR="203.0.113.8")
    assert [login(client, "alice", f"typo {n}") for n in range(4)] == [200] * 4
    assert login(client, "alice", "correct horse battery") == 302
    client.post("/accounts/logout/")
    assert [login(client, "alice", f"typo {n}") for n in range(4)] == [200] * 4


def test_behind_a_proxy_the_address_it_saw_counts_not_what_the_client_claims(
    users: None, settings: Any,
) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "TRUSTED_PROXY_COUNT": 1}
    proxy = "127.0.0.1"  # every request arrives from the proxy

    def via_proxy(claimed: str, real: str) -> Client:
        return Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"{claimed}, {real}")

    # A new made-up address each time does not reset the count...
    codes = [login(via_proxy(f"10.9.9.{n}", "203.0.113.9"), "alice", f"guess {n}")
             for n in range(5)]
    assert codes == [200, 200, 200, 200, 429]
    # ...and the lockout is that client's, not everyone's behind the proxy.
    assert login(via_proxy("203.0.113.9", "198.51.100.5"), "alice",
                 "correct horse battery") == 302
