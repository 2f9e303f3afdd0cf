"""``manage.py rebuild_stats``: recompute trends' summary table and the triage
queue's counts from the answers.

Answers stored through ``answer_submit`` are counted as they arrive; run this
after importing answers another way, after backdating them (the demo
history, benches), or once after upgrading to a release with trends.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.stats import stats_rebuild


class Command(BaseCommand):
    help = ("Recompute the trends summary table (AnswerStats) and the triage queue's counts "
            "(QueueGroup) from all answers.")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = stats_rebuild()
        self.stdout.write(f"trends summary rebuilt: {rows} rows (hour × surface × model)")
        groups = queue_counts_rebuild()
        self.stdout.write(f"triage queue counts rebuilt: {groups} groups")
