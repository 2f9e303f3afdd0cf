"""``manage.py ingest FILE... [--json]``: ingest PDFs from the command line.

Runs each file through the same upload and ingestion path as the web UI and
the API. Exit status: 0 when every file is ready, 1 when any failed, 2 on bad
arguments (a missing or unreadable file).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from reviewer.models import Document
from reviewer.services.documents import (
    DocumentRejected,
    document_ingest,
    document_upload,
    ocr_language_check,
)


class Command(BaseCommand):
    help = "Ingest PDF files: extract text with page geometry, find furniture, chunk."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--json", action="store_true",
                            help="print one JSON line per file, with its chunks")
        parser.add_argument("--title", default="", help="title (one file only)")
        parser.add_argument("--ocr-language", default="", metavar="LANG",
                            help="Tesseract language(s) for pages without a text layer, "
                                 "e.g. eng, fra, deu or eng+fra (default: CITEGUARD_OCR_LANGUAGE)")

    def handle(self, *args: Any, files: list[str], json: bool, title: str,
               ocr_language: str, **options: Any) -> None:
        paths = [Path(f) for f in files]
        try:
            ocr_language_check(ocr_language)
        except DocumentRejected as rejected:
            raise CommandError(f"--ocr-language: {rejected}", returncode=2) from None
        for path in paths:
            if not path.is_file():
                raise CommandError(f"{path}: no such file", returncode=2)
        if title and len(paths) > 1:
            raise CommandError("--title names one document: give one file", returncode=2)
        all_ready = True
        for path in paths:
            try:
                data = path.read_bytes()
            except OSError as error:
                raise CommandError(f"{path}: {error.strerror}", returncode=2) from None
            document = document_upload(data=data, filename=path.name, title=title,
                                       ocr_language=ocr_language).document
            if document.status in (Document.Status.QUEUED, Document.Status.PROCESSING):
                # The in-process backend has already run it; a worker backend
                # may not have: ingest here so the command's answer is final.
                document = document_ingest(document_id=document.pk)
            all_ready &= document.status == Document.Status.READY
            self._report(path, document, as_json=json)
        if not all_ready:
            sys.exit(1)

    def _report(self, path: Path, document: Document, *, as_json: bool) -> None:
        if as_json:
            chunks = [
                {"id": c.pk, "start": c.start, "end": c.end, "text": c.text}
                for c in document.chunks.order_by("index")
            ]
            self.stdout.write(json.dumps({
                "file": str(path), "document": document.pk, "status": document.status,
                "error": document.error or None, "pages": document.page_count,
                "ocr": document.ocr_summary or None,
                "chunks": chunks,
            }, ensure_ascii=False))
        elif document.status == Document.Status.READY:
            self.stdout.write(
                f"{path}: ready — document {document.pk}, {document.page_count} pages, "
                f"{document.chunks.count()} chunks"
                + (f"; {document.ocr_summary}" if document.ocr_pages else "")
            )
        else:
            self.stdout.write(f"{path}: {document.status} — {document.error}")
