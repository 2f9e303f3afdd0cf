"""Load through the production recipe: API clients on loopback against nginx
in front of gunicorn (deploy/recipe.py), with DEBUG=0 and SQLite.

Run from the repository root (needs Debian's nginx; bin/setup installs it)::

    .venv/bin/python bench/load.py           # 60 s quiet, 60 s heavy, then trickle: ~3 min
    .venv/bin/python bench/load.py --quick   # 10 s phases, about a minute
    .venv/bin/python bench/load.py --clients 8 --heavy-quote-chars 3000 --seconds 30

Setup, in a temporary folder removed at the end: migrate, collectstatic, an
API token; the recipe (gunicorn with deploy/gunicorn.conf.py's workers, 2 x
cores + 1, behind nginx); the demo's benefits PDF uploaded through the API
(ingested inline: no task worker) and its chunks read back; 3 s of the quiet
load as a warm-up, not counted.

1. **Quiet**: ``--clients`` threads, each with its own keep-alive connection
   to nginx, send back to back for ``--seconds``: POST /api/v1/answers with a
   small valid answer (a new id each time; one or two quotes of the demo
   document, cited as document ranges, verbatim or the clean copy a model
   writes), and after every third POST a GET (the answer just stored, or the
   document). Any non-2xx or failed request is an error.
2. **Heavy**: the same clients again, while ``--heavy-clients`` more send the
   worst answers the verification budget allows back to back, never waiting
   (a hostile client ignores Retry-After). ``--heavy-shape budget`` (default):
   as many quotes of 499 characters (just under seeding: window search, the
   costliest per character) in no source as fit under the default budget
   against a 200,000-character inline source (the source limit): 49 quotes,
   about 0.6 s of CPU each. ``long``: one absent quote of
   ``--heavy-quote-chars``. A heavy answer refused by the budget (413/422) or
   shed while every slot for costly answers is busy (503) is counted apart,
   not as an error. Then the same heavy phase on a second server with the
   slots turned off (``CITEGUARD_HEAVY_VERIFY_WORK=0``), same database and
   bodies. Printed: the other clients' p99 heavy/quiet for both (goal: at
   most 3).
3. **Trickle**: ``--trickle-clients`` connections send a request line, then one
   header byte per second, while one client pings (GET /api/v1/ping, 5 s
   timeout, one after another) for ``--trickle-seconds``: first against bare
   gunicorn, then behind nginx, both with ``--trickle-workers`` sync workers
   (as many as the tricklers: each holds a bare worker). Printed: pings
   answered of pings sent, per mode.

p50/p99 are of each request's wall time at the client. The load generator
shares the machine's cores with the server, so its threads stay light
(bodies built before the phases, responses not parsed in timed phases).
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import random
import socket
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from api import percentile, pick_quote, repaired, source_text  # noqa: E402  (bench/)

from deploy import recipe  # noqa: E402

ANSWERS = "/api/v1/answers"
PING = "/api/v1/ping"
#: A heavy answer refused by the work budget (413/422) or shed while every
#: slot for costly answers is busy (503, reviewer/slots.py): not an error.
BUDGET_STATUSES = {413, 422, 503}


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int | str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)

    def merge(self, other: Tally) -> None:
        self.latencies += other.latencies
        self.statuses.update(other.statuses)
        self.errors += other.errors[:5]


def request(conn: http.client.HTTPConnection, method: str, path: str, token: str,
            body: bytes | None = None) -> tuple[int, bytes]:
    headers = {"Authorization": f"Bearer {token}"}
    if body is not None:
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=body, headers=headers)
    response = conn.getresponse()
    return response.status, response.read()


def upload_demo_document(port: int, token: str, *,
                         tls: bool = False) -> tuple[int, list[dict[str, object]]]:
    """The demo's benefits PDF, through the API, once ingested (inline, or
    by a task worker when the upload is queued: 202); returns its id and
    chunks."""
    from reviewer.demo import benefits_pdf

    conn = recipe.connection(port, tls=tls, timeout=120)
    try:
        conn.request("POST", "/api/v1/documents?filename=benefits.pdf&title=Benefits",
                     body=benefits_pdf(), headers={"Authorization": f"Bearer {token}",
                                                   "Content-Type": "application/pdf"})
        response = conn.getresponse()
        document = json.loads(response.read())
        deadline = time.monotonic() + 120
        while response.status == 202 and document.get("status") in ("queued", "processing") \
                and time.monotonic() < deadline:
            time.sleep(0.2)
            status, body = request(conn, "GET", f"/api/v1/documents/{document['id']}", token)
            document = json.loads(body) if status == 200 else document
        if response.status not in (200, 201, 202) or document.get("status") != "ready":
            raise RuntimeError(f"upload: HTTP {response.status} {document}")
        status, body = request(conn, "GET", f"/api/v1/documents/{document['id']}/chunks"
                                            "?limit=100", token)
        if status != 200:
            raise RuntimeError(f"chunks: HTTP {status} {body[:300]!r}")
        return int(document["id"]), json.loads(body)["results"]
    finally:
        conn.close()


def small_bodies(rng: random.Random, document: int, chunks: list[dict[str, object]],
                 count: int) -> list[bytes]:
    """Answer bodies without their id: ``b'{"id": "' + id + body``."""
    bodies = []
    while len(bodies) < count:
        sources, sentences = [], []
        for i in range(rng.randint(1, 2)):
            chunk = rng.choice(chunks)
            quote = pick_quote(rng, str(chunk["text"]))
            if quote is None:
                continue
            if rng.random() < 0.5:
                quote = repaired(rng, quote)
            marker = f"S{i + 1}"
            sources.append({"marker": marker, "document": document,
                            "start": chunk["start"], "end": chunk["end"]})
            sentences.append(f'The plan says "{quote}" [{marker}].')
        if sources:
            rest = {"model": "bench-load", "question": "What does the plan say?",
                    "answer": " ".join(sentences), "sources": sources}
            bodies.append(b'", ' + json.dumps(rest, ensure_ascii=False)[1:].encode())
    return bodies


def heavy_body(seed: int, quote_chars: int, source_chars: int) -> bytes:
    source = source_text(random.Random(seed), source_chars)
    # The same generator, another seed: the same words, never the same passage.
    quote = source_text(random.Random(seed + 10_000), quote_chars + 200)[:quote_chars]
    quote = " ".join(quote.replace('"', "'").split())
    rest = {"model": "bench-load-heavy", "question": "Everything?",
            "answer": f'The source says "{quote}" [S1].',
            "sources": [{"marker": "S1", "text": source}]}
    return b'", ' + json.dumps(rest, ensure_ascii=False)[1:].encode()


def budget_body(seed: int, source_chars: int, max_work: int) -> tuple[bytes, int]:
    """The worst answer the work budget lets through: as many absent quotes
    just under the seeding length (window search, charged quote x source)
    as fit under ``max_work`` against one inline source, less one."""
    from verification.budget import SEED_MATCH_MIN_CHARS, alignment_work

    quote_chars = SEED_MATCH_MIN_CHARS - 1
    count = max(1, max_work // alignment_work(quote_chars, source_chars, seeded=False) - 1)
    source = source_text(random.Random(seed), source_chars)
    prose = source_text(random.Random(seed + 10_000), count * (quote_chars + 50))
    prose = " ".join(prose.replace('"', "'").split())
    quotes = [prose[i * quote_chars : (i + 1) * quote_chars].strip() for i in range(count)]
    answer = " ".join(f'Point {i} reads "{q}" [S1].' for i, q in enumerate(quotes))
    rest = {"model": "bench-load-heavy", "question": "Everything?", "answer": answer,
            "sources": [{"marker": "S1", "text": source}]}
    return b'", ' + json.dumps(rest, ensure_ascii=False)[1:].encode(), count


def client(port: int, token: str, name: str, bodies: list[bytes], document: int,
           stop: threading.Event, tally: Tally, *, gets: bool, tls: bool = False) -> None:
    conn = recipe.connection(port, tls=tls, timeout=60)
    sequence = 0
    try:
        while not stop.is_set():
            sequence += 1
            answer_id = f"{name}-{sequence}"
            calls = [("POST", ANSWERS, b'{"id": "' + answer_id.encode()
                      + bodies[sequence % len(bodies)])]
            if gets and sequence % 3 == 0:
                calls.append(("GET", f"{ANSWERS}/{answer_id}" if sequence % 2
                              else f"/api/v1/documents/{document}", None))
            for method, path, body in calls:
                started = time.perf_counter()
                try:
                    status, payload = request(conn, method, path, token, body)
                except (OSError, http.client.HTTPException) as error:
                    conn.close()
                    tally.statuses[type(error).__name__] += 1
                    tally.errors.append(f"{method} {path}: {error!r}")
                    continue
                tally.latencies.append(time.perf_counter() - started)
                tally.statuses[status] += 1
                if not 200 <= status < 300 and (gets or status not in BUDGET_STATUSES):
                    tally.errors.append(f"{method} {path}: HTTP {status} {payload[:200]!r}")
    finally:
        conn.close()


def phase(port: int, token: str, label: str, seconds: float, clients: int,
          bodies: list[bytes], document: int, heavy: list[bytes], *,
          gets: bool = True, tls: bool = False) -> tuple[Tally, Tally]:
    """``clients`` normal clients (a GET after every third POST unless
    ``gets`` is off) and a heavy sender for each of ``heavy``, for
    ``seconds``, over HTTPS with ``tls``; the tallies of both kinds."""
    stop = threading.Event()
    normal = [Tally() for _ in range(clients)]
    hard = [Tally() for _ in heavy]
    threads = [threading.Thread(target=client, args=(port, token, f"{label}-c{i}", bodies,
                                                     document, stop, normal[i]),
                                kwargs={"gets": gets, "tls": tls}) for i in range(clients)]
    threads += [threading.Thread(target=client, args=(port, token, f"{label}-h{i}", [body],
                                                      document, stop, hard[i]),
                                 kwargs={"gets": False, "tls": tls})
                for i, body in enumerate(heavy)]
    for thread in threads:
        thread.start()
    try:
        time.sleep(seconds)
    finally:
        stop.set()  # interrupted too: the clients end, and the process with them
    for thread in threads:
        thread.join()
    total, total_heavy = Tally(), Tally()
    for tally in normal:
        total.merge(tally)
    for tally in hard:
        total_heavy.merge(tally)
    return total, total_heavy


def errors(tally: Tally, *, heavy: bool = False) -> int:
    """Failed requests; a heavy answer the budget refuses is not one."""
    return sum(count for status, count in tally.statuses.items()
               if not (isinstance(status, int) and (
                   200 <= status < 300 or (heavy and status in BUDGET_STATUSES))))


def describe(label: str, tally: Tally, seconds: float, *, heavy: bool = False) -> None:
    n = len(tally.latencies)
    print(f"  {label}: {n} requests, {n / seconds:.0f} req/s, errors {errors(tally, heavy=heavy)}, "
          f"p50 {percentile(tally.latencies, 0.5) * 1000:.0f} ms, "
          f"p99 {percentile(tally.latencies, 0.99) * 1000:.0f} ms  "
          f"(statuses {dict(sorted(tally.statuses.items(), key=str))})")
    for line in tally.errors[:3]:
        print(f"    e.g. {line}")


def report_refused(heavy: Tally) -> None:
    answered = sum(n for s, n in heavy.statuses.items() if isinstance(s, int) and s < 300)
    print(f"  heavy answers verified: {answered}; refused by the budget: "
          f"{heavy.statuses[413] + heavy.statuses[422]}; shed while the slots were busy "
          f"(503): {heavy.statuses[503]}")


def trickle_run(env: dict[str, str], folder: Path, token: str, *, nginx: bool,
                clients: int, workers: int, seconds: float) -> tuple[int, int, list[float]]:
    with recipe.serve(env, folder, nginx=nginx, workers=workers) as running:
        sockets = []
        for _ in range(clients):
            sock = socket.create_connection(("127.0.0.1", running.port), timeout=5)
            sock.sendall(b"GET /api/v1/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            sockets.append(sock)
        stop = threading.Event()

        def drip() -> None:
            while not stop.wait(1.0):
                for sock in sockets:
                    with contextlib.suppress(OSError):  # dropped: it stays dropped
                        sock.send(b"a")

        dripper = threading.Thread(target=drip)
        dripper.start()
        answered, sent, latencies = 0, 0, []
        end = time.monotonic() + seconds
        try:
            time.sleep(0.5)  # the tricklers reach the workers (or nginx) first
            while time.monotonic() < end:
                sent += 1
                started = time.perf_counter()
                conn = http.client.HTTPConnection("127.0.0.1", running.port, timeout=5)
                try:
                    status, _ = request(conn, "GET", PING, token)
                    answered += status == 200
                    latencies.append(time.perf_counter() - started)
                except (OSError, http.client.HTTPException):
                    pass
                finally:
                    conn.close()
                time.sleep(0.25)
        finally:
            stop.set()
            dripper.join()
            for sock in sockets:
                sock.close()
    return answered, sent, latencies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8, help="normal API clients (8)")
    parser.add_argument("--seconds", type=float, help="per phase (60)")
    parser.add_argument("--heavy-clients", type=int, default=4)
    parser.add_argument("--heavy-shape", choices=("budget", "long"), default="budget",
                        help="budget: as many absent 499-character quotes as the verification "
                             "budget lets through against one source (default); long: one "
                             "absent quote of --heavy-quote-chars")
    parser.add_argument("--heavy-quote-chars", type=int, default=3000,
                        help="length of the absent quote of --heavy-shape long")
    parser.add_argument("--heavy-source-chars", type=int, default=None,
                        help="inline source length (budget: 200,000, the source limit; "
                             "long: 20,000)")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default: the conf's)")
    parser.add_argument("--trickle-clients", type=int, default=4)
    parser.add_argument("--trickle-workers", type=int, default=4)
    parser.add_argument("--trickle-seconds", type=float, help="(10)")
    parser.add_argument("--no-trickle", action="store_true")
    parser.add_argument("--no-compare-slots", action="store_true",
                        help="skip the heavy phase on a server without slots for costly answers")
    parser.add_argument("--quick", action="store_true",
                        help="10 s phases, 6 s trickle (unless given)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    args.seconds = args.seconds or (10.0 if args.quick else 60.0)
    args.trickle_seconds = args.trickle_seconds or (6.0 if args.quick else 10.0)
    if recipe.nginx_binary() is None:
        print("nginx is not installed (bin/setup installs Debian's nginx)")
        return 2
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")  # reviewer.demo
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="citeguard-load-") as tmp:
        folder = Path(tmp)
        env = recipe.server_env(folder / "var", extra={"LOG_LEVEL": "WARNING"})
        (folder / "var").mkdir()
        print("setup: migrate, collectstatic, token ...", flush=True)
        token = recipe.prepare(env, token_name="bench-load")
        with recipe.serve(env, folder / "recipe", workers=args.workers) as running:
            workers = args.workers or (2 * (os.cpu_count() or 1) + 1)
            document, chunks = upload_demo_document(running.port, token)
            bodies = small_bodies(rng, document, chunks, 64)
            if args.heavy_shape == "budget":
                from verification.budget import DEFAULT_MAX_WORK

                source_chars = args.heavy_source_chars or 200_000
                built = [budget_body(args.seed + i, source_chars, DEFAULT_MAX_WORK)
                         for i in range(args.heavy_clients)]
                heavy = [body for body, _ in built]
                heavy_what = (f"{built[0][1]} absent 499-character quotes against a "
                              f"{source_chars:,}-character source (just under the budget)")
            else:
                source_chars = args.heavy_source_chars or 20_000
                heavy = [heavy_body(args.seed + i, args.heavy_quote_chars, source_chars)
                         for i in range(args.heavy_clients)]
                heavy_what = (f"one {args.heavy_quote_chars:,}-character absent quote against "
                              f"a {source_chars:,}-character source")
            print(f"recipe: nginx on {running.url}, gunicorn {workers} sync workers, "
                  f"{os.cpu_count()} cores; demo document {document} ({len(chunks)} chunks)")
            # Each worker's first requests load what later ones reuse (imports,
            # the document's geometry): not counted.
            phase(running.port, token, "warmup", 3.0, args.clients, bodies, document, [])
            print(f"\nquiet: {args.clients} clients for {args.seconds:.0f} s")
            quiet, _ = phase(running.port, token, "quiet", args.seconds, args.clients, bodies,
                             document, [])
            describe("clients", quiet, args.seconds)
            print(f"\nheavy: the same {args.clients} clients + {args.heavy_clients} sending "
                  f"answers of {heavy_what}, {args.seconds:.0f} s")
            loud, hard = phase(running.port, token, "heavy", args.seconds, args.clients, bodies,
                               document, heavy)
            describe("clients", loud, args.seconds)
            describe("heavy senders", hard, args.seconds, heavy=True)
            report_refused(hard)
        unslotted = None
        if not args.no_compare_slots:
            # The same heavy phase on a server without slots for costly answers
            # (HEAVY_VERIFY_WORK=0), same database and bodies: what they buy.
            print(f"\nheavy, no slots (CITEGUARD_HEAVY_VERIFY_WORK=0): the same "
                  f"{args.clients} + {args.heavy_clients} clients, {args.seconds:.0f} s")
            with recipe.serve({**env, "CITEGUARD_HEAVY_VERIFY_WORK": "0"},
                              folder / "recipe-unslotted", workers=args.workers) as running:
                phase(running.port, token, "warmup2", 3.0, args.clients, bodies, document, [])
                unslotted, hard2 = phase(running.port, token, "unslotted", args.seconds,
                                         args.clients, bodies, document, heavy)
            describe("clients", unslotted, args.seconds)
            describe("heavy senders", hard2, args.seconds, heavy=True)
            report_refused(hard2)
        quiet_p99 = percentile(quiet.latencies, 0.99)
        quiet_p50 = percentile(quiet.latencies, 0.5)
        print()
        for label, tally in (("heavy", loud), ("heavy, no slots", unslotted)):
            if tally is not None:
                print(f"clients' p99 {label}/quiet: "
                      f"{percentile(tally.latencies, 0.99) / quiet_p99:.1f}x (goal <= 3x); "
                      f"p50 {percentile(tally.latencies, 0.5) / quiet_p50:.1f}x")
        print(f"clients' errors: {errors(quiet) + errors(loud)}"
              + (f" (no slots: {errors(unslotted)})" if unslotted is not None else ""))
        if not args.no_trickle:
            print(f"\ntrickle: {args.trickle_clients} connections sending a header byte a "
                  f"second, {args.trickle_workers} sync workers, pings (5 s timeout) for "
                  f"{args.trickle_seconds:.0f} s")
            for label, nginx in (("bare gunicorn", False), ("behind nginx", True)):
                answered, sent, latencies = trickle_run(
                    env, folder / label.replace(" ", "-"), token, nginx=nginx,
                    clients=args.trickle_clients, workers=args.trickle_workers,
                    seconds=args.trickle_seconds)
                median = f", median {statistics.median(latencies) * 1000:.0f} ms" \
                    if latencies else ""
                print(f"  {label}: {answered}/{sent} pings answered{median}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
