"""``manage.py purge_deleted [--older-than DAYS] [--dry-run]``: remove the
stored files of deleted documents (the PDF and its geometry), through the
storage API. Their rows stay, so answers that cited them still read their
text and their review trail; each purge is a DeletionRecord."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.services.deletion import documents_purge


class Command(BaseCommand):
    help = "Remove the stored files of documents deleted more than --older-than days ago."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--older-than", type=float, default=0, metavar="DAYS",
                            help="Only documents deleted at least this many days ago "
                                 "(default 0: every deleted document).")
        parser.add_argument("--dry-run", action="store_true",
                            help="Say what would be removed, remove nothing.")

    def handle(self, *args: Any, older_than: float, dry_run: bool, **options: Any) -> None:
        if older_than < 0:
            raise CommandError("--older-than is a number of days, 0 or more.")
        result = documents_purge(older_than=timedelta(days=older_than), dry_run=dry_run)
        verb = "would remove" if dry_run else "removed"
        self.stdout.write(f"{result.documents} deleted document(s): {verb} {result.files} "
                          f"stored file(s), {result.bytes} bytes.")
