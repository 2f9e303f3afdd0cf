"""Documents on an S3-compatible store (CITEGUARD_STORAGE=s3, django-storages):
moto's server on loopback stands in for the bucket. An upload through the
API is ingested, its PDF and geometry land in the bucket and nothing under
MEDIA_ROOT; an answer citing it is located from the geometry read by ranged
GETs; the viewer's byte range comes from the bucket; and a store that does
not answer turns an upload into a 503 with a sentence, with nothing stored,
and /readyz into "not ready"."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewer.models import CitationVerdict, Document

pytestmark = pytest.mark.django_db

boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")

CREDENTIALS = {"aws_access_key_id": "citeguard-test", "aws_secret_access_key": "citeguard-test",
               "region_name": "us-east-1"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    port = _free_port()
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


def _use_store(settings: Any, endpoint: str, bucket: str) -> None:
    from botocore.config import Config

    settings.AWS_STORAGE_BUCKET_NAME = bucket
    settings.AWS_S3_ENDPOINT_URL = endpoint
    settings.AWS_ACCESS_KEY_ID = CREDENTIALS["aws_access_key_id"]
    settings.AWS_SECRET_ACCESS_KEY = CREDENTIALS["aws_secret_access_key"]
    settings.AWS_S3_REGION_NAME = CREDENTIALS["region_name"]
    settings.AWS_S3_FILE_OVERWRITE = False
    settings.AWS_DEFAULT_ACL = None
    settings.AWS_S3_CLIENT_CONFIG = Config(connect_timeout=2, retries={"max_attempts": 1})
    # Last: changing STORAGES makes Django build the default storage afresh.
    settings.STORAGES = {**settings.STORAGES,
                         "default": {"BACKEND": "storages.backends.s3.S3Storage"}}


@pytest.fixture
def bucket(s3_endpoint: str, settings: Any, tmp_path: Path) -> Iterator[Any]:
    name = f"citeguard-{uuid.uuid4().hex[:12]}"
    client = boto3.client("s3", endpoint_url=s3_endpoint, **CREDENTIALS)
    client.create_bucket(Bucket=name)
    settings.MEDIA_ROOT = str(tmp_path / "media")
    _use_store(settings, s3_endpoint, name)
    yield boto3.resource("s3", endpoint_url=s3_endpoint, **CREDENTIALS).Bucket(name)


def _upload(api: Any, data: bytes) -> Any:
    return api.post("/api/v1/documents",
                    {"file": SimpleUploadedFile("plan.pdf", data, "application/pdf")})


def test_an_upload_lives_in_the_bucket_and_serves_answers_and_ranges_from_it(
        api: Any, logged_in: Any, bucket: Any, settings: Any, report_pdf: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(api, report_pdf.data)
    assert response.status_code in (201, 202), response.content
    document = Document.objects.get(pk=response.json()["id"])
    assert document.status == Document.Status.READY, document.error
    keys = {item.key for item in bucket.objects.all()}
    assert {document.file.name, document.geometry.name} <= keys
    assert bucket.Object(document.file.name).get()["Body"].read() == report_pdf.data
    assert not any(p.is_file() for p in Path(settings.MEDIA_ROOT).rglob("*"))  # nothing local

    # An answer quoting it is verified and located: the geometry is read
    # from the bucket by ranges.
    quote = next(line for line in document.text.splitlines() if len(line.split()) >= 8)
    answer = api.post("/api/v1/answers", {
        "id": "s3-answer", "answer": f'The report says "{quote}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk}]},
        content_type="application/json")
    assert answer.status_code == 201, answer.content
    citation = CitationVerdict.objects.get(answer_id=answer.json()["answer"])
    assert citation.outcome == "verified" and citation.pages

    # The viewer's byte range comes from the bucket.
    ranged = logged_in.get(f"/documents/{document.pk}/file", headers={"Range": "bytes=100-1099"})
    assert ranged.status_code == 206
    assert b"".join(ranged.streaming_content) == report_pdf.data[100:1100]
    assert ranged["Content-Range"] == f"bytes 100-1099/{len(report_pdf.data)}"


def test_backup_takes_the_bucket_objects_and_restore_puts_them_back(
        api: Any, bucket: Any, tmp_path: Path, report_pdf: Any,
        django_capture_on_commit_callbacks: Any) -> None:
    import tarfile

    from reviewer.backup import backup_files, restore_files

    with django_capture_on_commit_callbacks(execute=True):
        uploaded = _upload(api, report_pdf.data).json()["id"]
    document = Document.objects.get(pk=uploaded)
    stored = {item.key: item.get()["Body"].read() for item in bucket.objects.all()}
    assert set(stored) == {document.file.name, document.geometry.name}
    with tarfile.open(tmp_path / "media.tar", "w") as tar:
        files, size = backup_files(tar)
    assert (files, size) == (2, sum(len(v) for v in stored.values()))
    with tarfile.open(tmp_path / "media.tar") as tar:
        tar.extractall(tmp_path / "out", filter="data")
    for key, data in stored.items():
        assert (tmp_path / "out" / "media" / key).read_bytes() == data

    bucket.objects.all().delete()  # the bucket lost
    assert restore_files(tmp_path / "out" / "media") == 2
    assert {item.key: item.get()["Body"].read() for item in bucket.objects.all()} == stored
    assert restore_files(tmp_path / "out" / "media") == 0  # nothing written twice


def test_a_store_that_does_not_answer_is_a_503_and_nothing_is_stored(
        api: Any, client: Any, settings: Any, tmp_path: Path, report_pdf: Any) -> None:
    settings.MEDIA_ROOT = str(tmp_path / "media")
    _use_store(settings, f"http://127.0.0.1:{_free_port()}", "no-such-store")  # nobody listens
    before = Document.all_objects.count()
    response = _upload(api, report_pdf.data)
    assert response.status_code == 503
    error = response.json()["error"]
    assert error["code"] == "storage-unavailable"
    assert "nothing was stored" in error["message"]
    assert Document.all_objects.count() == before
    probe = client.get("/readyz")
    assert (probe.status_code, probe.content) == (503, b"not ready\n")


def test_an_unknown_storage_choice_is_refused_with_a_sentence() -> None:
    import os
    import subprocess
    import sys

    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "reviewer.settings", "DEBUG": "1"}
    for choice, sentence in (
            ("disk", "CITEGUARD_STORAGE='disk': choose 'local'"),
            ("s3", "CITEGUARD_STORAGE=s3 needs AWS_STORAGE_BUCKET_NAME")):
        result = subprocess.run([sys.executable, "-c", "import django; django.setup()"],
                                env={**env, "CITEGUARD_STORAGE": choice,
                                     "AWS_STORAGE_BUCKET_NAME": ""},
                                capture_output=True, text=True, timeout=60, check=False)
        assert result.returncode != 0 and sentence in result.stderr
