"""Fail re-verification runs whose worker stopped (no committed batch for
``RUN_STALE_SECONDS``). The calibration page does the same when it is read;
cron this (e.g. every 5 minutes) so that a stuck run is failed even when
nobody looks."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from reviewer.services.reverify import runs_fail_stale


class Command(BaseCommand):
    help = "Fail re-verification runs that have made no progress for RUN_STALE_SECONDS."

    def handle(self, *args: Any, **options: Any) -> None:
        failed = runs_fail_stale()
        self.stdout.write(f"{failed} stalled re-verification run{'s' if failed != 1 else ''} "
                          "failed." if failed else "No stalled re-verification run.")
