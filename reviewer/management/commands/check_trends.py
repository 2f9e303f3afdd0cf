"""``manage.py check_trends``: look for outcome-rate changes and report new ones.

Cron-able (e.g. hourly): each change is stored once as a ``TrendAlert`` and
logged once as a WARNING JSON line on ``citeguard.alerts``; runs that find it
stored say nothing. Exit status 0 either way; the alert line and the
``citeguard_rate_change`` gauge are what to alert on.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.services.trends import trend_alerts_check


class Command(BaseCommand):
    help = "Compare the last days' outcome rates with their previous fortnight; report changes."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--days", type=int, default=7,
                            help="how many days up to today to compare (default 7)")
        parser.add_argument("--today", help="compare up to this day (YYYY-MM-DD, UTC) "
                                            "instead of today")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            today = date.fromisoformat(options["today"]) if options["today"] else None
        except ValueError:
            raise CommandError(f"--today {options['today']!r} is not a YYYY-MM-DD date") from None
        alerts = trend_alerts_check(days=options["days"], today=today)
        for alert in alerts:
            self.stdout.write(f"  {alert.day}  {alert.surface.name}  {alert.model}  "
                              f"{alert.outcome}  {'rise' if alert.direction > 0 else 'fall'}  "
                              f"{alert.rate:.1%} (fortnight {alert.baseline_rate:.1%})")
        self.stdout.write(f"{len(alerts)} new rate change{'s' if len(alerts) != 1 else ''}")
