"""Whether the task running now will be run again if it fails: asked by a
task that fails for a passing reason, to raise (and be retried) or to give
up with a sentence. Kept apart from reviewer/queue.py so that the services
do not load RQ's backend where it is not the queue."""

from __future__ import annotations


def retries_left() -> int:
    """How many more times the queue will run the task running now, if it
    fails: 0 outside an RQ job (the in-process and database backends do not
    retry). A task that fails for a passing reason (a store or database away
    for a moment) raises while this is above 0, and gives up with a sentence
    when it is 0."""
    from rq import get_current_job  # rq is imported only where a job runs

    job = get_current_job()
    return int(getattr(job, "retries_left", 0) or 0) if job is not None else 0
