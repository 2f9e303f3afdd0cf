"""``manage.py rebuild_stats``: recompute trends' summary table, the triage
queue's counts and every answer's queue priority and "rungs disagree" flag
from the answers.

Answers stored through ``answer_submit`` are counted as they arrive; run this
after importing answers another way, or once after upgrading to a release
with trends.

``--check`` compares the kept counts with a recount first and says what
differed: every drifted group or row is logged as an ERROR on
``citeguard.counts`` with the kept and the true number, then repaired. Cron
it (e.g. hourly). It exits with status 1 when it found drift (repaired, so
the next run exits 0): drift means something wrote around the services, a
bug worth a look, and the status is what cron mail, a systemd timer or a
monitor notices. No drift: status 0.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.services.priority import answers_priority_restamp
from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.recount import counts_check
from reviewer.services.rungs import answers_rungs_restamp
from reviewer.services.stats import stats_rebuild


class Command(BaseCommand):
    help = ("Recompute the trends summary table (AnswerStats), the triage queue's counts "
            "(QueueGroup) and its priorities and rungs flags (Answer.triage_priority, "
            "Answer.rungs_disagree) from all answers; with "
            "--check, first compare and log any drift.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="compare the kept counts with a recount, log each drift as "
                                 "an error with the numbers, repair it, and exit 1 if there "
                                 "was any (0 if none)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["check"]:
            check = counts_check(repair=True)
            if check.drifted:
                raise CommandError(
                    f"kept counts had drifted from the rows in {len(check.drifts)} groups or "
                    "rows (logged above on citeguard.counts); repaired", returncode=1)
            self.stdout.write(f"kept counts match a recount: {check.queue_groups} triage "
                              f"queue groups, {check.stats_rows} trends summary rows, "
                              f"{check.answers} answers' queue priorities and rungs "
                              "disagree flags")
            return
        rows = stats_rebuild()
        self.stdout.write(f"trends summary rebuilt: {rows} rows (hour × surface × model)")
        groups = queue_counts_rebuild()
        self.stdout.write(f"triage queue counts rebuilt: {groups} groups")
        restamped = answers_priority_restamp()
        self.stdout.write(f"triage queue priorities restamped: {restamped} answers changed")
        flagged = answers_rungs_restamp()
        self.stdout.write(f"triage rungs disagree flags restamped: {flagged} answers changed")
