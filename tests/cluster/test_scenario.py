"""A document's way through the cluster, each step on another part: uploaded
through app server A, ingested by a task worker, cited by an answer verified
through app server B, and its PDF served from the bucket by A's review page
with a byte range, while nothing is written under MEDIA_ROOT."""

from __future__ import annotations

import time
from pathlib import Path

import boto3

from deploy import cluster as cluster_module
from tests.cluster.conftest import ONCE, Http, document_status, wait_for
from tests.factories import build_report
from tests.figures import figure

pytestmark = ONCE


def bucket_objects(running: cluster_module.Cluster) -> dict[str, bytes]:
    s3 = boto3.resource("s3", endpoint_url=running.s3.url,
                        aws_access_key_id=running.env["AWS_ACCESS_KEY_ID"],
                        aws_secret_access_key=running.env["AWS_SECRET_ACCESS_KEY"],
                        region_name=running.env["AWS_S3_REGION_NAME"])
    return {item.key: item.get()["Body"].read()
            for item in s3.Bucket(running.env["AWS_STORAGE_BUCKET_NAME"]).objects.all()}


def test_upload_on_a_ingest_on_a_worker_answer_on_b_review_on_a(
        cluster: cluster_module.Cluster, tmp_path: Path) -> None:
    a = Http.direct(cluster.app_a, cluster.token)
    b = Http.direct(cluster.app_b, cluster.token)
    pdf = build_report(tmp_path / "report.pdf").data

    # 1. Upload through app server A: queued on Redis, not ingested in the request.
    status, uploaded = a.upload(pdf, "report.pdf")
    assert status == 202, uploaded
    pk = uploaded["id"]

    # 2. A worker ingests it; app server B reports it ready.
    started = time.monotonic()
    document = wait_for(lambda: (d := b.json("GET", f"/api/v1/documents/{pk}")[1])["status"]
                        in ("ready", "failed") and d, 120, "the document to be ingested")
    ingested = time.monotonic() - started
    assert document["status"] == "ready", document
    assert document_status(cluster, pk) == "ready"

    # 3. An answer quoting one of its chunks, verified through app server B.
    status, chunks = b.json("GET", f"/api/v1/documents/{pk}/chunks")
    assert status == 200 and chunks["results"], chunks
    chunk = max(chunks["results"], key=lambda c: len(c["text"]))
    quote = " ".join(chunk["text"].split()[2:14])
    status, answer = b.json("POST", "/api/v1/answers", {
        "id": "cluster-scenario", "answer": f'The report says "{quote}" [S1].',
        "sources": [{"marker": "S1", "chunk": chunk["id"]}]})
    assert status == 201, answer
    citation = answer["sentences"][0]["citations"][0]
    assert citation["outcome"] == "verified", citation
    assert answer["verdict"] == "pass"

    # 4. The review page on A, and the PDF it shows: from the bucket, by range.
    reviewer = Http.direct(cluster.app_a, session=cluster.login_session("cluster-reviewer"))
    status, _, page = reviewer.request("GET", answer["review_url"])
    assert status == 200
    assert f"/documents/{pk}/file".encode() in page
    status, headers, body = reviewer.request("GET", f"/documents/{pk}/file",
                                             headers={"Range": "bytes=100-1099"})
    assert status == 206
    assert body == pdf[100:1100]
    assert headers["content-range"] == f"bytes 100-1099/{len(pdf)}"
    stored = bucket_objects(cluster)
    assert pdf in stored.values()
    # Without the session, the file is not served.
    assert Http.direct(cluster.app_a).request("GET", f"/documents/{pk}/file")[0] in (302, 403, 404)

    # 5. Nothing under MEDIA_ROOT: every byte went to the bucket.
    local = [p for p in cluster.media_root.rglob("*")]
    assert local == []
    figure(f"\ncluster scenario: uploaded on A (HTTP 202), ready after {ingested:.1f} s, "
           f"{document['page_count']} pages, {document['chunk_count']} chunks; answer on B "
           f"{answer['verdict']} ({citation['outcome']}); range on A: {status} "
           f"{len(body)} bytes of {len(pdf)}; {len(stored)} objects in the bucket; "
           f"{len(local)} files under MEDIA_ROOT")
