"""Password reset is offered only when email is configured: otherwise its
views are 404 and the login page has no link to them."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.test import Client

pytestmark = pytest.mark.django_db

RESET_PATHS = ["/accounts/password_reset/", "/accounts/password_reset/done/",
               "/accounts/reset/MQ/set-password/", "/accounts/reset/done/"]


def test_without_email_there_is_no_password_reset(client: Client,
                                                  settings: Any) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "EMAIL_CONFIGURED": False}
    login = client.get("/accounts/login/").content.decode()
    assert "password_reset" not in login and "Forgotten your password" not in login
    assert [client.get(path).status_code for path in RESET_PATHS] == [404] * 4
    assert client.post(RESET_PATHS[0], {"email": "a@example.org"}).status_code == 404
    assert mail.outbox == []


def test_with_email_a_user_resets_their_password_by_the_mailed_link(
    client: Client, settings: Any,
) -> None:
    settings.CITEGUARD = {**settings.CITEGUARD, "EMAIL_CONFIGURED": True}
    get_user_model().objects.create_user("carol", "carol@example.org", "old password 1")
    login = client.get("/accounts/login/").content.decode()
    assert 'href="/accounts/password_reset/"' in login

    sent = client.post(RESET_PATHS[0], {"email": "carol@example.org"})
    assert sent.status_code == 302 and sent["Location"] == "/accounts/password_reset/done/"
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["carol@example.org"]
    link = re.search(r"http://testserver(/accounts/reset/\S+/)", mail.outbox[0].body)
    assert link
    form = client.get(link.group(1), follow=True)
    assert form.status_code == 200
    done = client.post(form.redirect_chain[-1][0], {
        "new_password1": "a new long password", "new_password2": "a new long password"})
    assert done.status_code == 302 and done["Location"] == "/accounts/reset/done/"
    assert get_user_model().objects.get(username="carol").check_password("a new long password")
