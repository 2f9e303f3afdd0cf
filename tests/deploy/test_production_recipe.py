"""The production recipe keeps answering while slow clients hold connections:
nginx (deploy/nginx.conf) reads each request whole before a gunicorn sync
worker sees it, so 50 connections trickling their headers a byte a second
cost nginx 50 idle sockets and the workers nothing. Without the proxy, as
many tricklers as workers stop the server answering anyone (bench/load.py
measures both)."""

from __future__ import annotations

import http.client
import socket
import statistics
import threading
import time
from pathlib import Path

import pytest

from deploy import recipe
from tests.figures import figure
from tests.once import ONCE

pytestmark = [ONCE, pytest.mark.skipif(recipe.nginx_binary() is None,
                                       reason="nginx is not installed (bin/setup installs it)")]

TRICKLERS = 50
# Shorter than nginx's client_header_timeout (10 s): the tricklers are still
# connected, half-way through their headers, the whole time.
SECONDS = 7.0


def trickle(port: int, stop: threading.Event, opened: list[socket.socket]) -> None:
    """Opens the connections, sends a request line, then one header byte per
    connection per second until told to stop."""
    for _ in range(TRICKLERS):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(b"GET /accounts/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        opened.append(sock)
    while not stop.wait(1.0):
        for sock in opened:
            sock.send(b"a")


def test_a_normal_client_is_answered_while_50_connections_trickle_headers(
        production_env: dict[str, str], tmp_path: Path) -> None:
    # Two workers: far fewer than the tricklers, as on a small server.
    with recipe.serve(production_env, tmp_path, workers=2) as running:
        stop = threading.Event()
        opened: list[socket.socket] = []
        thread = threading.Thread(target=trickle, args=(running.port, stop, opened))
        thread.start()
        try:
            deadline = time.monotonic() + 5
            while len(opened) < TRICKLERS and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(opened) == TRICKLERS
            latencies, statuses = [], []
            end = time.monotonic() + SECONDS
            while time.monotonic() < end:
                started = time.monotonic()
                conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=10)
                try:
                    conn.request("GET", "/accounts/login/")
                    response = conn.getresponse()
                    response.read()
                    statuses.append(response.status)
                except OSError as error:  # a timeout: the server answered nobody
                    statuses.append(repr(error))
                finally:
                    conn.close()
                latencies.append(time.monotonic() - started)
                time.sleep(0.2)
            # The tricklers were never answered nor dropped: they held their
            # connections for the whole run.
            for sock in opened:
                sock.setblocking(False)
                with pytest.raises(BlockingIOError):
                    sock.recv(1)
        finally:
            stop.set()
            thread.join()
            for sock in opened:
                sock.close()
        figure(f"\n{TRICKLERS} trickling connections for {SECONDS:.0f} s: "
              f"{statuses.count(200)}/{len(statuses)} normal requests answered, "
              f"median {statistics.median(latencies) * 1000:.0f} ms, "
              f"max {max(latencies) * 1000:.0f} ms")
        assert len(statuses) >= 5
        assert statuses == [200] * len(statuses)

        # nginx sets X-Forwarded-Proto itself: a client cannot claim https
        # through it, while the proxy's own header is believed (HSTS is sent
        # on secure requests only).
        def hsts(port: int) -> str | None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                conn.request("GET", "/accounts/login/", headers={"X-Forwarded-Proto": "https"})
                response = conn.getresponse()
                response.read()
                return response.getheader("Strict-Transport-Security")
            finally:
                conn.close()

        assert hsts(running.port) is None
        assert hsts(running.gunicorn_port) is not None
