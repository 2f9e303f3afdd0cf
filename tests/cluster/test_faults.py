"""Parts of the cluster failing under it, each test printing what it counted:
a worker killed mid-document, an app server killed under load, Redis
restarted with work queued, the S3 store away. Each puts the part back."""

from __future__ import annotations

import signal
import threading
import time
from pathlib import Path

import pytest
import redis

from deploy import cluster as cluster_module
from tests.cluster.conftest import ONCE, Http, document_status, wait_for, wait_settled
from tests.figures import figure
from tests.ingestion import hostile

pytestmark = ONCE

CORPUS = Path(__file__).resolve().parents[2] / ".." / "shared" / "corpus" / "pdfs"
LONG_PDF = CORPUS / "gov_usaf_afi41-210_tricare_patient_admin_422p.pdf"


def pages(running: cluster_module.Cluster, pk: int) -> list[tuple[object, ...]]:
    return running.query("SELECT number, width, height, text_start, text_end FROM reviewer_page "
                         "WHERE document_id = %s ORDER BY number", pk)


def chunk_counts(running: cluster_module.Cluster, pk: int) -> tuple[int, int]:
    total, distinct = running.query('SELECT count(*), count(DISTINCT "index") FROM '
                                    "reviewer_chunk WHERE document_id = %s", pk)[0]
    return int(total), int(distinct)


@pytest.mark.corpus
@pytest.mark.skipif(not LONG_PDF.is_file(), reason=f"no {LONG_PDF.name} in the corpus")
def test_a_worker_killed_mid_document_leaves_it_to_the_other(
        cluster: cluster_module.Cluster) -> None:
    """kill -9 of everything the worker busy with the 422-page PDF runs (the
    worker, its work-horse, the extraction child: a host lost). The other
    worker takes the abandoned job after the heartbeat grace and finishes
    it with the pages of a clean run, none twice."""
    data = LONG_PDF.read_bytes()
    nginx = Http.via_nginx(cluster, cluster.token)
    # The clean run, in a workspace of its own (the same bytes in one
    # workspace are one document).
    clean_client = Http.via_nginx(cluster, cluster.create_token("clean-run", workspace="clean"))
    started = time.monotonic()
    status, clean = clean_client.upload(data, LONG_PDF.name)
    assert status == 202, clean
    assert wait_settled(cluster, clean["id"]) == "ready"
    clean_seconds = time.monotonic() - started

    status, doc = nginx.upload(data, LONG_PDF.name)
    assert status == 202, doc
    pk = doc["id"]
    wait_for(lambda: cluster.query("SELECT status = 'processing' AND progress <> '' FROM "
                                   "reviewer_document WHERE id = %s", pk)[0][0],
             120, "a worker to be reading pages")
    (busy,) = wait_for(cluster.busy_workers, 10, "RQ to name the busy worker")
    other = next(part for part in cluster.workers if part is not busy)
    progress = cluster.query("SELECT progress FROM reviewer_document WHERE id = %s", pk)[0][0]
    killed = busy.kill()
    killed_at = time.monotonic()
    try:
        assert len(killed) >= 3, killed  # the worker, its work-horse, the extraction
        assert document_status(cluster, pk) == "processing"  # what the dead worker left
        assert wait_settled(cluster, pk) == "ready"
        recovered = time.monotonic() - killed_at
    finally:
        busy.start()
    got, expected = pages(cluster, pk), pages(cluster, clean["id"])
    chunks, clean_chunks = chunk_counts(cluster, pk), chunk_counts(cluster, clean["id"])
    figure(f"\nworker kill -9 mid-document ({busy.name}, {len(killed)} processes, at progress "
           f"{progress!r}): {other.name} had it ready {recovered:.1f} s later (a clean run took "
           f"{clean_seconds:.1f} s); {len(got)} pages ({len({p[0] for p in got})} distinct, "
           f"clean run {len(expected)}), {chunks[0]} chunks ({chunks[1]} distinct, clean run "
           f"{clean_chunks[0]})")
    assert len(expected) == 422
    assert got == expected  # identical to a clean run, none twice
    assert chunks == clean_chunks and chunks[0] == chunks[1] > 0


def test_an_app_server_killed_under_load_leaves_nginx_the_other(
        cluster: cluster_module.Cluster) -> None:
    """Client threads hammer a cheap authenticated GET through nginx; app
    server A is killed (kill -9, all its processes). nginx sends the
    requests on to B; at most those in flight on A may fail."""
    threads, before, after = 4, 1.5, 2.5
    stop = threading.Event()
    killed_at: list[float] = []
    results: list[tuple[float, int | str]] = []
    lock = threading.Lock()

    def hammer() -> None:
        client = Http.via_nginx(cluster, cluster.token)
        while not stop.is_set():
            try:
                outcome: int | str = client.request("GET", "/api/v1/ping", timeout=10)[0]
            except OSError as error:
                outcome = type(error).__name__
            with lock:
                results.append((time.monotonic(), outcome))

    workers = [threading.Thread(target=hammer) for _ in range(threads)]
    for thread in workers:
        thread.start()
    try:
        time.sleep(before)
        killed = cluster.app_a.kill()
        killed_at.append(time.monotonic())
        time.sleep(after)
    finally:
        stop.set()
        for thread in workers:
            thread.join()
        cluster.app_a.start()
    failures = [r for r in results if r[1] != 200]
    served_after = sum(1 for at, outcome in results if at > killed_at[0] and outcome == 200)
    # Back in the rotation: A answers directly, and through nginx as before.
    assert Http.direct(cluster.app_a, cluster.token).request("GET", "/api/v1/ping")[0] == 200
    figure(f"\napp server A killed (kill -9, {len(killed)} processes) under {threads} client "
           f"threads: {len(results)} requests, {len(failures)} failed "
           f"({sorted({str(f[1]) for f in failures})}), {served_after} answered by B after the "
           "kill")
    assert len(failures) <= threads
    assert served_after > 0


def test_tasks_queued_before_a_redis_restart_are_not_lost(
        cluster: cluster_module.Cluster) -> None:
    """Documents uploaded back to back, so most wait on the queue; Redis is
    stopped (SIGTERM) and started again on the same port and folder. Its
    append-only file brings the queue back, and every document ends ready."""
    nginx = Http.via_nginx(cluster, cluster.token)
    documents = []
    for n in range(8):  # each a second or two of work: most still queued at the restart
        status, doc = nginx.upload(hostile.dense_pages(40 + n), f"dense-{n}.pdf")
        assert status == 202, doc
        documents.append(doc["id"])
    queue = redis.Redis.from_url(cluster.redis_url)
    waiting = queue.llen("rq:queue:default")
    started = sum(document_status(cluster, pk) == "processing" for pk in documents)
    cluster.redis.stop(signal.SIGTERM)
    restarted_at = time.monotonic()
    cluster.redis.start()
    waiting_after = queue.llen("rq:queue:default")
    statuses = [wait_settled(cluster, pk, 240) for pk in documents]
    settled = time.monotonic() - restarted_at
    workers_alive = [part.name for part in cluster.workers if part.running]
    duplicated = cluster.query(
        "SELECT count(*) FROM (SELECT document_id, number FROM reviewer_page WHERE "
        "document_id = ANY(%s) GROUP BY 1, 2 HAVING count(*) > 1) d", documents)[0][0]
    figure(f"\nRedis restarted (SIGTERM, appendonly) with {waiting} of {len(documents)} "
           f"uploads waiting on the queue ({started} processing, {waiting_after} waiting after "
           f"the restart): {statuses.count('ready')}/{len(documents)} ready "
           f"{settled:.1f} s later, {duplicated} duplicated pages; workers still running: "
           f"{', '.join(workers_alive) or 'none'}")
    assert waiting > 0  # the restart did happen with work queued
    assert waiting_after == waiting
    assert statuses == ["ready"] * len(documents)
    assert duplicated == 0


def test_the_store_away_is_a_503_with_nothing_stored_and_readyz_says_so(
        cluster: cluster_module.Cluster) -> None:
    nginx = Http.via_nginx(cluster, cluster.token)
    rows_before = cluster.query("SELECT count(*) FROM reviewer_document")[0][0]
    cluster.s3.stop()
    try:
        started = time.monotonic()
        status, refused = nginx.upload(hostile.dense_pages(3), "while-away.pdf")
        refused_in = time.monotonic() - started
        rows_after = cluster.query("SELECT count(*) FROM reviewer_document")[0][0]
        readyz_away = [client.request("GET", "/readyz")[:3:2] for client in (
            Http.via_nginx(cluster), Http.direct(cluster.app_a), Http.direct(cluster.app_b))]
    finally:
        cluster.s3.start()
    readyz_back = wait_for(lambda: (r := Http.via_nginx(cluster).request("GET", "/readyz"))[0]
                           == 200 and r, 30, "/readyz to say ready again")
    status_back, stored = nginx.upload(hostile.dense_pages(3), "while-away.pdf")
    figure(f"\nS3 store stopped: upload HTTP {status} in {refused_in:.1f} s "
           f"({refused['error']['code']}: {refused['error']['message']!r}); document rows "
           f"{rows_before} -> {rows_after}; /readyz via nginx, A, B: "
           f"{[r[0] for r in readyz_away]}; store back: /readyz {readyz_back[0]}, the same "
           f"upload HTTP {status_back}")
    assert status == 503
    assert refused["error"]["code"] == "storage-unavailable"
    assert "nothing was stored" in refused["error"]["message"]
    assert rows_after == rows_before  # nothing half-stored
    assert readyz_away == [(503, b"not ready\n")] * 3
    assert readyz_back[2] == b"ready\n"
    assert status_back == 202, stored
    assert wait_settled(cluster, stored["id"]) == "ready"
