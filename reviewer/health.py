"""``/healthz`` and ``/readyz`` for load balancers and orchestrators.

``/healthz``: the process is alive and answering (nothing else is touched).
``/readyz``: it can serve: the database answers, every migration is applied,
the file storage is reachable and the task queue can take work.

Both are answered by a middleware placed first, before the host check, the
HTTPS redirect, sessions and authentication: a probe comes from the load
balancer by IP over plain HTTP, carries no session, and must cost next to
nothing. Neither says more than up or down (the body is one word); why a
check failed goes to the ``citeguard.health`` log, not to the probe.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from django.core.files.storage import FileSystemStorage, default_storage
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, HttpResponse
from django.tasks import task_backends

logger = logging.getLogger("citeguard.health")

__all__ = ["HealthMiddleware", "readiness_problems"]

# Once every migration is applied in this process's database it stays so
# (a rollback is an operator's act that restarts the app); until then each
# probe looks again.
_migrated = False


def _database() -> str:
    with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return ""


def _migrations() -> str:
    global _migrated
    if _migrated:
        return ""
    connection = connections[DEFAULT_DB_ALIAS]
    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    if plan:
        first = plan[0][0]
        return f"{len(plan)} migration(s) not applied, first {first.app_label}.{first.name}"
    _migrated = True
    return ""


def _storage() -> str:
    if isinstance(default_storage, FileSystemStorage):
        # exists() on a local folder never fails: ask whether uploads can be written.
        location = default_storage.location
        if not os.path.isdir(location) or not os.access(location, os.W_OK | os.X_OK):
            return f"storage folder {location} is missing or not writable"
        return ""
    default_storage.exists(".citeguard-readyz")  # a remote store answers or raises
    return ""


def _queue() -> str:
    backend = task_backends["default"]
    ping = getattr(backend, "ping", None)  # a networked queue's own check, when it has one
    if callable(ping):
        ping()
    # The in-process backend runs work in the request; the database one
    # queues in the database checked above.
    return ""


CHECKS: dict[str, Callable[[], str]] = {
    "database": _database, "migrations": _migrations, "storage": _storage, "queue": _queue,
}


def readiness_problems() -> dict[str, str]:
    """Each failing check and why ({} when ready). A check that raises has
    failed with its exception's words."""
    problems: dict[str, str] = {}
    for name, check in CHECKS.items():
        try:
            problem = check()
        except Exception as error:  # any failure is "not ready", never a 500
            problem = f"{type(error).__name__}: {error}"
        if problem:
            problems[name] = problem
            if name == "database":
                break  # the rest read the database too
    return problems


def _plain(body: str, status: int) -> HttpResponse:
    response = HttpResponse(body, status=status, content_type="text/plain; charset=utf-8")
    response["Cache-Control"] = "no-store"
    return response


class HealthMiddleware:
    """Answers the two probe paths itself; every other request passes on."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        path = request.path_info
        if path not in ("/healthz", "/readyz"):
            return self.get_response(request)
        if request.method not in ("GET", "HEAD"):
            response = _plain("", 405)
            response["Allow"] = "GET, HEAD"
            return response
        if path == "/healthz":
            return _plain("ok\n", 200)
        problems = readiness_problems()
        if problems:
            logger.warning("not ready: %s", "; ".join(f"{k}: {v}" for k, v in problems.items()))
            return _plain("not ready\n", 503)
        return _plain("ready\n", 200)

