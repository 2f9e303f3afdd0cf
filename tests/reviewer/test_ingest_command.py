"""`manage.py ingest` and the real task worker."""

import json
from collections.abc import Callable
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from reviewer.models import Document
from reviewer.services.documents import document_upload
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


def ingest(*args: str) -> tuple[int, str]:
    out = StringIO()
    try:
        call_command("ingest", *args, stdout=out)
    except SystemExit as stop:
        return int(stop.code or 0), out.getvalue()
    return 0, out.getvalue()


def test_json_output_lists_every_chunk_and_exits_zero(
    report_pdf: BuiltPdf, pdf_path: Callable[[str, bytes], Path]
) -> None:
    path = pdf_path("report.pdf", report_pdf.data)
    code, out = ingest(str(path), "--json")
    assert code == 0
    (line,) = out.splitlines()
    result = json.loads(line)
    document = Document.objects.get(pk=result["document"])
    assert result["file"] == str(path)
    assert (result["status"], result["error"], result["pages"]) == ("ready", None, 4)
    assert [c["id"] for c in result["chunks"]] == list(
        document.chunks.order_by("index").values_list("pk", flat=True))
    for chunk in result["chunks"]:
        assert chunk["text"] == document.text[chunk["start"] : chunk["end"]]


def test_a_failed_file_is_reported_and_exits_one(
    report_pdf: BuiltPdf, pdf_path: Callable[[str, bytes], Path]
) -> None:
    good = pdf_path("good.pdf", report_pdf.data)
    bad = pdf_path("bad.pdf", b"%PDF-1.7 garbage that is not a document")
    code, out = ingest(str(good), str(bad), "--json")
    assert code == 1
    results = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in results] == ["ready", "failed"]
    assert results[1]["error"] and results[1]["chunks"] == []


def test_plain_output_says_what_happened(
    report_pdf: BuiltPdf, pdf_path: Callable[[str, bytes], Path]
) -> None:
    code, out = ingest(str(pdf_path("r.pdf", report_pdf.data)))
    assert code == 0
    assert "ready" in out and "4 pages" in out


def test_missing_file_is_a_bad_argument(tmp_path: Path) -> None:
    with pytest.raises(CommandError, match="no such file") as caught:
        call_command("ingest", str(tmp_path / "nope.pdf"))
    assert caught.value.returncode == 2


@pytest.mark.django_db(transaction=True)
def test_ingestion_through_the_database_task_backend_and_its_worker(
    report_pdf: BuiltPdf,
) -> None:
    backend = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend"}}
    with override_settings(TASKS=backend):  # Django resets its backends on this
        document = document_upload(data=report_pdf.data, filename="w.pdf").document
        document.refresh_from_db()
        assert document.status == Document.Status.QUEUED  # nothing ran in-process
        call_command("db_worker", "--batch", "--no-startup-delay", stdout=StringIO())
        document.refresh_from_db()
        assert document.status == Document.Status.READY
        assert document.chunks.exists()
    from django_tasks_db.models import DBTaskResult

    (result,) = DBTaskResult.objects.all()
    assert result.status == "SUCCESSFUL"
    assert result.return_value == "ready"
