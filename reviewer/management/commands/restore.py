"""``manage.py restore FILE [--replace]``: put back what ``backup`` saved
(bin/restore runs it; README, Backup and restore)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.backup import BackupError, restore


class Command(BaseCommand):
    help = "Restore the database and the stored files from a backup made by `backup`."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", metavar="FILE")
        parser.add_argument("--replace", action="store_true",
                            help="overwrite a database that is not empty")

    def handle(self, *args: Any, file: str, replace: bool, **options: Any) -> None:
        if not Path(file).is_file():
            raise CommandError(f"{file}: no such file")
        try:
            summary = restore(Path(file), replace=replace)
        except BackupError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"restored the {summary.engine} database and {summary.files} stored "
                          f"files from {file}; run `manage.py migrate` if this version is newer")
