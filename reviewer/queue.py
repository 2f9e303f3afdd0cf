"""The Redis task queue (``CITEGUARD_TASKS=redis``): django-tasks-rq's backend
for Django's Tasks API over RQ, with the three things citeguard needs that
its defaults lack, each through RQ's or django-rq's own extension point:

- a job is retried up to ``TASK_RETRIES`` times, a transient failure (the
  database or the store away for a moment) after a pause, and a job whose
  worker died (``kill -9``, a lost host) as soon as another worker finds it
  abandoned. The tasks are idempotent: a document is stored by the first
  run that finishes, a re-verification run resumes from its last batch;
- a worker looks for abandoned jobs every ``TASK_MAINTENANCE_SECONDS``
  (RQ's default is ten minutes);
- ``ping()``, which ``/readyz`` calls to say whether the queue is reachable.

Workers run ``manage.py rqworker --with-scheduler default`` on any host (the
scheduler moves retries that wait back onto the queue).
"""

from __future__ import annotations

from typing import Any

import django_rq
from django.conf import settings
from django_rq.queues import DjangoRQ
from django_tasks_rq.backend import RQBackend
from rq import Retry, Worker


def _retry() -> Retry:
    limits = settings.CITEGUARD
    pauses = [int(p) for p in limits["TASK_RETRY_PAUSES"]]
    return Retry(max=int(limits["TASK_RETRIES"]), interval=pauses)


class RetryingQueue(DjangoRQ):
    """An RQ queue whose jobs are retried (see the module's docstring) unless
    the caller says otherwise; django-tasks-rq creates its jobs through it."""

    def create_job(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("retry") is None:
            kwargs["retry"] = _retry()
        return super().create_job(*args, **kwargs)


class CiteguardWorker(Worker):
    """RQ's worker, looking for the abandoned jobs of dead workers often
    enough that a document is picked up again within a minute or two."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        limits = settings.CITEGUARD
        kwargs.setdefault("maintenance_interval", int(limits["TASK_MAINTENANCE_SECONDS"]))
        kwargs.setdefault("job_monitoring_interval", int(limits["TASK_HEARTBEAT_SECONDS"]))
        super().__init__(*args, **kwargs)

    @property
    def dequeue_timeout(self) -> int:
        # An idle worker waits on the queue for up to this long, and looks
        # for abandoned jobs only between waits (RQ: 405 s).
        return max(1, min(super().dequeue_timeout, self.maintenance_interval))

    def get_heartbeat_ttl(self, job: Any, working_time: float = 0.0) -> int:
        # RQ allows a fixed 60 s past the next heartbeat before a job counts
        # as abandoned; the grace is a setting here, so a test need not wait.
        grace = int(settings.CITEGUARD["TASK_HEARTBEAT_GRACE_SECONDS"])
        return super().get_heartbeat_ttl(job, working_time) - 60 + grace


class RedisTaskBackend(RQBackend):
    """django-tasks-rq's backend, which ``/readyz`` can ask whether Redis answers."""

    def ping(self) -> None:
        django_rq.get_connection("default").ping()

