"""``manage.py reingest ID...``: ingest failed documents again, on purpose
(after a stuck or crashed ingestion, or a fix). A ready document is left as
it is: its chunks may be cited by stored answers."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.models import Document
from reviewer.services.documents import document_retry, documents_fail_stale


class Command(BaseCommand):
    help = "Queue failed documents' ingestion again (a stuck one is failed first)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="+", type=int, metavar="ID")

    def handle(self, *args: Any, ids: list[int], **options: Any) -> None:
        documents_fail_stale()
        for pk in ids:
            document = Document.objects.filter(pk=pk).first()
            if document is None:
                raise CommandError(f"There is no document {pk}.")
            try:
                document = document_retry(document=document)
            except ValueError as error:
                raise CommandError(str(error)) from error
            self.stdout.write(f"document {pk}: {document.status}"
                              + (f" ({document.error})" if document.error else ""))
