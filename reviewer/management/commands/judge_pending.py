"""``manage.py judge_pending``: judge again the citations the semantic stage
left waiting for a surface's budget or failed in a way worth retrying
(timeouts, 429s, an unreachable endpoint). Run it from cron, e.g. hourly."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.services.judgements import judge_configured, judgements_pending, judgements_run


class Command(BaseCommand):
    help = "Judge the citations waiting for a surface's budget or for a retry."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--limit", type=int, default=None,
                            help="judge at most this many answers")

    def handle(self, *args: Any, limit: int | None, **options: Any) -> None:
        if not judge_configured():
            raise CommandError("The semantic stage is off: set CITEGUARD_JUDGE to onnx or chat.")
        if limit is not None and limit < 1:
            raise CommandError(f"--limit must be at least 1, got {limit}")
        answers = judgements_pending(limit=limit)
        stored = {"result": 0, "waiting": 0, "error": 0}
        for answer_id in answers:
            for row in judgements_run(answer_id=answer_id):
                kind = ("result" if row.is_result
                        else "waiting" if row.error == row.Error.OVER_BUDGET else "error")
                stored[kind] += 1
        self.stdout.write(f"{len(answers)} answer{'s' if len(answers) != 1 else ''} with "
                          f"citations waiting: {stored['result']} judged, {stored['waiting']} "
                          f"still waiting for the budget, {stored['error']} errors")
