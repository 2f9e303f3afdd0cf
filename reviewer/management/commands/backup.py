"""``manage.py backup FILE``: the database and the stored files in one tar
file (bin/backup runs it; README, Backup and restore)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.backup import BackupError, backup


class Command(BaseCommand):
    help = "Back up the database and the stored files (uploaded PDFs) into one tar file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE", help="the archive to write, e.g. backup.tar")

    def handle(self, *args: Any, file: str, **options: Any) -> None:
        try:
            summary = backup(Path(file))
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{file}: {summary.engine} database and {summary.files} stored "
                          f"files ({summary.bytes} bytes)")
