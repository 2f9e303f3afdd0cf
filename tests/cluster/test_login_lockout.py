"""Login lockouts hold across the cluster: failed logins of one user from one
address, spread over app servers A and B, lock that pair out on both (django-
axes counts attempts in the shared database, not in one process)."""

from __future__ import annotations

import re
from urllib.parse import urlencode

from deploy import cluster as cluster_module
from tests.cluster.conftest import ONCE, Http
from tests.figures import figure

pytestmark = ONCE

LOGIN = "/accounts/login/"


def _login(server: Http, username: str, password: str) -> int:
    """One login as a browser makes it: the form (its CSRF cookie and field),
    then the POST, with the Referer Django's CSRF check wants over HTTPS."""
    status, headers, page = server.request("GET", LOGIN)
    assert status == 200, status
    cookie = re.search(r"csrftoken=([^;]+)", headers["set-cookie"])
    field = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert cookie and field
    body = urlencode({"username": username, "password": password,
                      "csrfmiddlewaretoken": field.group(1).decode()}).encode()
    status, _, _ = server.request("POST", LOGIN, body, {
        "Content-Type": "application/x-www-form-urlencoded",
        "Cookie": f"csrftoken={cookie.group(1)}",
        "Referer": f"https://127.0.0.1:{server.port}{LOGIN}"})
    return status


def test_failed_logins_over_both_app_servers_lock_the_user_out_on_both(
        cluster: cluster_module.Cluster) -> None:
    cluster.manage("shell", "--no-imports", "-c",
                   "from django.contrib.auth import get_user_model\n"
                   "get_user_model().objects.create_user('carol', password='carol right one')")
    a, b = Http.direct(cluster.app_a), Http.direct(cluster.app_b)
    servers = [a, b, a, b, a]  # five failures, alternating: neither saw five alone
    codes = [_login(server, "carol", f"guess {n}") for n, server in enumerate(servers)]
    after = {"A": _login(a, "carol", "carol right one"), "B": _login(b, "carol", "carol right one")}
    figure(f"\nfive failed logins alternating A, B, A, B, A: {codes}; then the right password "
           f"on A {after['A']}, on B {after['B']}")
    assert codes == [200, 200, 200, 200, 429]
    assert after == {"A": 429, "B": 429}
