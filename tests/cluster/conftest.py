"""The production cluster on loopback (deploy/cluster.py): nginx over two
app servers, two RQ workers, PostgreSQL, a Redis of its own and moto's S3
server, shared by every test here. A test that kills or stops a part starts
it again before it ends, and each test begins by checking every part runs.

The cluster makes its own PostgreSQL database, so these tests run once: on
bin/test's PostgreSQL pass (DATABASE_URL set), skipped on the SQLite pass."""

from __future__ import annotations

import json
import os
import shutil
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from deploy import cluster as cluster_module
from deploy import recipe

ON_POSTGRESQL = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))

ONCE = pytest.mark.skipif(
    not ON_POSTGRESQL, reason="the cluster runs on PostgreSQL: once, on the PostgreSQL pass")

# A job whose worker died is taken over 3 s after its last heartbeat instead
# of 60 s; costly answers get 2 slots, and "costly" starts low enough for a
# test to send such answers (reviewer/slots.py).
FAST = {"CITEGUARD_TASK_HEARTBEAT_SECONDS": "1", "CITEGUARD_TASK_HEARTBEAT_GRACE_SECONDS": "3",
        "CITEGUARD_TASK_MAINTENANCE_SECONDS": "2", "CITEGUARD_HEAVY_VERIFY_SLOTS": "2",
        "CITEGUARD_HEAVY_VERIFY_WORK": "10000000", "LOG_LEVEL": "WARNING"}
HEAVY_VERIFY_SLOTS = 2


def _missing() -> str:
    if recipe.nginx_binary() is None:
        return "nginx is not installed (bin/setup installs it)"
    for program in ("redis-server", "openssl"):
        if shutil.which(program) is None:
            return f"{program} is not installed (bin/setup installs it)"
    try:
        import moto.server  # noqa: F401
    except ImportError:
        return "moto[server] is not installed"
    return ""


@pytest.fixture(scope="session")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[cluster_module.Cluster]:
    if not ON_POSTGRESQL:
        pytest.skip("the cluster runs on PostgreSQL: once, on the PostgreSQL pass")
    missing = _missing()
    if missing and os.environ.get("CITEGUARD_REQUIRE_CLUSTER"):  # CI (.ci/run): must run
        pytest.fail(f"the cluster tests cannot run: {missing}")
    if missing:
        pytest.skip(missing)
    with cluster_module.cluster(tmp_path_factory.mktemp("cluster"), extra_env=FAST) as running:
        yield running


@pytest.fixture(autouse=True)
def every_part_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Each test starts with the whole cluster up (a test that failed half-way
    through a fault may have left a part down)."""
    if "cluster" not in request.fixturenames:
        yield
        return
    running = request.getfixturevalue("cluster")
    for part in running.parts:
        if not part.running:
            part.start()
    yield


class Http:
    """One request per connection, as a load balancer's clients make them:
    to nginx over HTTPS (`via_nginx`), or straight to one app server over
    plain HTTP with the X-Forwarded-Proto header nginx would add (`direct`)."""

    def __init__(self, port: int, token: str = "", session: str = "", *, tls: bool = False,
                 forwarded_https: bool = False) -> None:
        self.port, self.token, self.session = port, token, session
        self.tls, self.forwarded_https = tls, forwarded_https

    @classmethod
    def via_nginx(cls, running: cluster_module.Cluster, token: str = "") -> Http:
        return cls(running.nginx.port, token, tls=True)

    @classmethod
    def direct(cls, part: cluster_module.Part, token: str = "", session: str = "") -> Http:
        assert part.port is not None
        return cls(part.port, token, session, forwarded_https=True)

    def request(self, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None,
                timeout: float = 60) -> tuple[int, dict[str, str], bytes]:
        sent = dict(headers or {})
        if self.token:
            sent["Authorization"] = f"Bearer {self.token}"
        if self.session:
            sent["Cookie"] = f"sessionid={self.session}"
        if self.forwarded_https:
            sent["X-Forwarded-Proto"] = "https"
        conn = recipe.connection(self.port, tls=self.tls, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers=sent)
            response = conn.getresponse()
            return (response.status, {k.lower(): v for k, v in response.getheaders()},
                    response.read())
        finally:
            conn.close()

    def json(self, method: str, path: str, data: Any = None) -> tuple[int, Any]:
        body = None if data is None else json.dumps(data).encode()
        status, _, raw = self.request(method, path, body,
                                      {"Content-Type": "application/json"} if body else None)
        return status, json.loads(raw) if raw else None

    def upload(self, pdf: bytes, filename: str) -> tuple[int, Any]:
        status, _, raw = self.request("POST", f"/api/v1/documents?filename={filename}", pdf,
                                      {"Content-Type": "application/pdf"})
        return status, json.loads(raw)


def wait_for(condition: Callable[[], Any], seconds: float, what: str) -> Any:
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(0.1)


def document_status(running: cluster_module.Cluster, pk: int) -> str:
    return str(running.query("SELECT status FROM reviewer_document WHERE id = %s", pk)[0][0])


def wait_settled(running: cluster_module.Cluster, pk: int, seconds: float = 300) -> str:
    """Waits for the document to end ready or failed; its status."""
    return str(wait_for(lambda: (s := document_status(running, pk)) in ("ready", "failed") and s,
                        seconds, f"document {pk} to be ready or failed"))
