"""Fail work whose worker stopped: re-verification runs with no committed
batch for ``RUN_STALE_SECONDS``, and documents left processing past twice
the ingestion time limit. Queue again documents and runs whose task was lost
(queued past ``QUEUED_STALE_SECONDS``, e.g. by a Redis that lost its data). The
pages fail stuck work too when they are read; cron this (e.g. every 5
minutes) so that it is failed, with why, even when nobody looks."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from reviewer.services.documents import documents_fail_stale, documents_requeue_lost
from reviewer.services.reverify import runs_fail_stale, runs_requeue_lost


class Command(BaseCommand):
    help = "Fail re-verification runs and document ingestions whose worker stopped."

    def handle(self, *args: Any, **options: Any) -> None:
        runs = runs_fail_stale()
        self.stdout.write(f"{runs} stalled re-verification run{'s' if runs != 1 else ''} "
                          "failed." if runs else "No stalled re-verification run.")
        documents = documents_fail_stale()
        self.stdout.write(f"{documents} stuck document{'s' if documents != 1 else ''} failed."
                          if documents else "No stuck document.")
        requeued = documents_requeue_lost()
        self.stdout.write(f"{requeued} document{'s' if requeued != 1 else ''} whose task was "
                          "lost queued again." if requeued else "No lost document task.")
        requeued = runs_requeue_lost()
        self.stdout.write(f"{requeued} re-verification run{'s' if requeued != 1 else ''} whose "
                          "task was lost queued again." if requeued else "No lost run task.")
