"""Scaling out on the production cluster (deploy/cluster.py: nginx over two
gunicorn app servers, two RQ task workers, PostgreSQL, Redis, moto's S3), one
part against two, measured side by side in one run; then a model on paper of
N hosts built from what the run measured.

Run from the repository root (needs Debian's nginx and redis-server, which
bin/setup installs, and PostgreSQL at 127.0.0.1:5432, user postgres)::

    .venv/bin/python bench/scale.py           # 8-10 minutes on a shared 2-core machine
    .venv/bin/python bench/scale.py --quick   # 3-4 minutes

The cluster migrates, collects static files and makes an API token itself,
in a fresh database ``citeguard_cluster_<random>`` dropped at the end.

1. **Answers**: ``--clients`` API clients, each with its own keep-alive
   connection, POST small answers back to back for ``--seconds`` (bench/
   load.py's bodies: one or two quotes of the demo's benefits PDF, uploaded
   first and ingested by a worker). "One" is a second nginx, same
   deploy/nginx.conf, with app server A as its only upstream (B stays up,
   idle); "two" is the cluster's nginx over A and B. Each is warmed for 3 s
   first. Measured around each timed phase: the CPU time of the gunicorn
   processes (``/proc/<pid>/stat``, utime + stime, with the workers gunicorn
   reaped), of nginx, and of the PostgreSQL backends of the cluster's
   database; ``pg_stat_database.xact_commit`` of that database and the
   server's transaction ids (a transaction gets one only when it writes).
2. **Ingestion**: ``--documents`` PDFs of ``--pages`` pages of generated
   prose (a text layer: no OCR), each with bytes of its own (files are
   content-addressed), uploaded through nginx; timed from the first upload
   to the last document ready. "One" has worker 2 stopped; "two" has both.
3. **Re-verification**: ``--reverify-answers`` answers on 4 surfaces at
   threshold 0.92 re-verified at 0.85, a run per surface (a run is one task,
   so 4 let two workers share the work); timed from the first run created to
   the last finished. "One" and "two" each get their own 4 surfaces holding
   the same answers, so both start from the same state. The answers are
   stored by bench/reverify.py's bodies and ``store`` through ``manage.py
   shell`` on the cluster: ``--distinct`` bodies through ``answer_submit`` on
   each side (real verdicts), the rest copies of those rows in SQL.
4. **Commit ceiling**: ``--commit-connections`` connections of this process
   commit single-row INSERTs into a scratch table for ``--commit-seconds``.

Every pair is printed with its ratio two/one. On a 2-core machine the two
app servers, the two workers, PostgreSQL, nginx, moto and this load
generator share the same 2 cores: two of a part cannot get more CPU than
one had, so ratios near 1 are what contention looks like here, not a
ceiling of the design. The model (printed last, with its assumptions) is
what the measured costs predict for N hosts of ``--host-cores`` cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))  # imported as bench.scale, it still finds load and api

import load  # noqa: E402  (bench/)
from api import percentile, source_text  # noqa: E402  (bench/)

from deploy import cluster as cluster_module  # noqa: E402
from deploy import recipe  # noqa: E402

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
OLD_THRESHOLD, NEW_THRESHOLD = 0.92, 0.85
SURFACES_PER_RUN = 4
HOSTS = (1, 2, 4, 8, 16)
#: PostgreSQL backends report their counters when idle, at most once a second.
STATS_SETTLE_SECONDS = 2.0


# -- What the processes spent -----------------------------------------------------


def cpu_seconds(pids: Iterable[int]) -> dict[int, float]:
    """User + system CPU of each process, with that of the children it reaped
    (gunicorn's recycled workers), from /proc/<pid>/stat."""
    spent = {}
    for pid in pids:
        try:
            # After the command's ")": state is field 3, utime..cstime 14-17.
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        spent[pid] = sum(int(value) for value in fields[11:15]) / CLOCK_TICKS
    return spent


@dataclass
class Snapshot:
    app: float  # both app servers' gunicorn processes
    nginx: float
    here: float  # this process: the load generator's threads and moto's S3 server
    postgres: dict[int, float]  # per backend of the cluster's database
    commits: int  # pg_stat_database.xact_commit of the cluster's database
    next_xid: int  # the server's, all databases

    def __sub__(self, before: Snapshot) -> Snapshot:
        # A backend that ended between the two is lost: a bound from below.
        return Snapshot(self.app - before.app, self.nginx - before.nginx,
                        self.here - before.here,
                        {pid: cpu - before.postgres.get(pid, 0.0)
                         for pid, cpu in self.postgres.items()},
                        self.commits - before.commits, self.next_xid - before.next_xid)


def snapshot(running: cluster_module.Cluster, nginx_pid: int) -> Snapshot:
    time.sleep(STATS_SETTLE_SECONDS)
    app = sum(cpu_seconds(running.app_a.members() | running.app_b.members()).values())
    nginx = sum(cpu_seconds(cluster_module.session_members(nginx_pid)).values())
    backends = [pid for (pid,) in running.query(
        "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
        running.database)]
    ((commits,),) = running.query(
        "SELECT xact_commit FROM pg_stat_database WHERE datname = %s", running.database)
    ((next_xid,),) = running.query("SELECT pg_snapshot_xmax(pg_current_snapshot())::text")
    here = os.times()
    return Snapshot(app, nginx, here.user + here.system, cpu_seconds(backends), int(commits),
                    int(next_xid))


def writing_transactions(running: cluster_module.Cluster, first: int, last: int) -> int:
    """Transactions with an id from ``first`` to before ``last`` whose rows
    are still in the cluster's database (a row's ``xmin`` is the transaction
    that wrote that version of it). Ours alone, unlike the server's count of
    ids; one whose every row was written again later is missed."""
    tables = [name for (name,) in running.query(
        "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = "
        "c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'")]
    # An xmin is the low 32 bits of the 64-bit id (a fresh database: epoch 0).
    low, high = first % 2**32, last % 2**32
    written = " UNION ".join(f"SELECT xmin::text::bigint FROM {table} WHERE "
                             f"xmin::text::bigint >= {low} AND xmin::text::bigint < {high}"
                             for table in tables)
    return int(running.query(f"SELECT count(*) FROM ({written}) AS written")[0][0])


def wait_settled(running: cluster_module.Cluster, table: str, ids: list[int],
                 final: tuple[str, ...], minutes: float = 30) -> None:
    """Waits until every row ``ids`` of ``table`` has a status in ``final``."""
    deadline = time.monotonic() + minutes * 60
    while running.query(f"SELECT count(*) FROM {table} WHERE id = ANY(%s) AND NOT "
                        "status = ANY(%s)", ids, list(final))[0][0]:
        if time.monotonic() > deadline:
            raise RuntimeError(f"{table} {ids}: not all {' or '.join(final)} within "
                               f"{minutes:g} min")
        time.sleep(0.1)


# -- 1. Answers through one app server and two ---------------------------------------


@dataclass
class AnswersRun:
    label: str
    tally: load.Tally
    seconds: float
    spent: Snapshot
    writes: int  # the cluster database's writing transactions

    @property
    def answers(self) -> int:
        return sum(n for status, n in self.tally.statuses.items()
                   if isinstance(status, int) and 200 <= status < 300)

    @property
    def rate(self) -> float:
        return self.answers / self.seconds

    def describe(self) -> None:
        per = max(self.answers, 1)
        print(f"  {self.label}: {self.answers:,} answers, {self.rate:.0f}/s, errors "
              f"{load.errors(self.tally)}, p50 {percentile(self.tally.latencies, 0.5) * 1000:.0f} "
              f"ms, p99 {percentile(self.tally.latencies, 0.99) * 1000:.0f} ms")
        print(f"    CPU an answer: gunicorn {self.spent.app / per * 1000:.1f} ms, nginx "
              f"{self.spent.nginx / per * 1000:.2f} ms, PostgreSQL backends "
              f"{sum(self.spent.postgres.values()) / per * 1000:.1f} ms, load generator and "
              f"S3 {self.spent.here / per * 1000:.1f} ms")
        print(f"    commits an answer {self.spent.commits / per:.2f} (read-only ones included), "
              f"writing {self.writes / per:.2f} (the server's transaction ids: "
              f"{self.spent.next_xid / per:.2f}, other databases' included)")
        for line in self.tally.errors[:3]:
            print(f"    e.g. {line}")


def tls(running: cluster_module.Cluster) -> bool:
    """Whether the cluster's nginx speaks HTTPS (as in production)."""
    return running.url.startswith("https://")


def answers_run(running: cluster_module.Cluster, label: str, port: int, nginx_pid: int,
                args: argparse.Namespace, bodies: list[bytes], document: int) -> AnswersRun:
    load.phase(port, running.token, f"{label}-warmup", 3.0, args.clients, bodies, document, [],
               gets=False, tls=tls(running))
    before = snapshot(running, nginx_pid)
    started = time.perf_counter()
    tally, _ = load.phase(port, running.token, label, args.seconds, args.clients, bodies,
                          document, [], gets=False, tls=tls(running))
    seconds = time.perf_counter() - started
    after = snapshot(running, nginx_pid)
    return AnswersRun(label, tally, seconds, after - before,
                      writing_transactions(running, before.next_xid, after.next_xid))


def answers(running: cluster_module.Cluster,
            args: argparse.Namespace) -> tuple[AnswersRun, AnswersRun]:
    document, chunks = load.upload_demo_document(running.nginx.port, running.token,
                                                 tls=tls(running))
    bodies = load.small_bodies(random.Random(args.seed), document, chunks, 64)
    port = recipe.free_port()
    prefix = running.folder / "nginx-one"
    certificate = recipe.self_signed_certificate(prefix / "tls") if tls(running) else None
    nginx = recipe.start_nginx(running.env, prefix, port, [f"127.0.0.1:{running.app_a.port}"],
                               certificate)
    try:
        recipe.wait_http(port, [nginx], [prefix / "error.log"], tls=tls(running))
        print(f"\nanswers: {args.clients} clients POSTing for {args.seconds:.0f} s; one: an "
              f"nginx with app server A alone; two: the cluster's nginx over A and B "
              f"({args.app_workers} gunicorn workers each)", flush=True)
        one = answers_run(running, "one app server", port, nginx.pid, args, bodies, document)
        one.describe()
    finally:
        recipe.stop(nginx)
    two = answers_run(running, "two app servers", running.nginx.port, running.nginx.pid or 0,
                      args, bodies, document)
    two.describe()
    return one, two


# -- 2. Ingestion with one worker and two ------------------------------------------


def text_pdf(seed: int, pages: int) -> bytes:
    """``pages`` pages of generated prose with a text layer; the seed makes
    its bytes its own."""
    import pymupdf

    rng = random.Random(seed)
    document = pymupdf.open()
    for _ in range(pages):
        page = document.new_page()
        page.insert_textbox(pymupdf.Rect(50, 50, 562, 742), source_text(rng, 3000), fontsize=9)
    data = document.tobytes(deflate=True)
    document.close()
    return data


def ingestion_run(running: cluster_module.Cluster, label: str, pdfs: list[bytes]) -> float:
    """Uploads every PDF through nginx and waits for all to be ingested;
    pages a second."""
    started = time.time()
    ids = []
    conn = recipe.connection(running.nginx.port, tls=tls(running), timeout=120)
    try:
        for number, pdf in enumerate(pdfs):
            conn.request("POST", f"/api/v1/documents?filename=scale-{number}.pdf",
                         body=pdf, headers={"Authorization": f"Bearer {running.token}",
                                            "Content-Type": "application/pdf"})
            response = conn.getresponse()
            body = json.loads(response.read())
            if response.status != 202:
                raise RuntimeError(f"upload: HTTP {response.status} {body}")
            ids.append(int(body["id"]))
    finally:
        conn.close()
    wait_settled(running, "reviewer_document", ids, ("ready", "failed"))
    ((finished, pages, ready),) = running.query(
        "SELECT extract(epoch FROM max(updated)), sum(page_count) FILTER (WHERE status = "
        "'ready'), count(*) FILTER (WHERE status = 'ready') FROM reviewer_document "
        "WHERE id = ANY(%s)", ids)
    seconds = float(finished) - started
    rate = int(pages or 0) / seconds
    print(f"  {label}: {ready} of {len(ids)} documents ready, {pages:,} pages in "
          f"{seconds:.1f} s: {rate:.1f} pages/s", flush=True)
    if ready != len(ids):
        for (error,) in running.query("SELECT error FROM reviewer_document WHERE id = ANY(%s) "
                                      "AND status = 'failed' LIMIT 3", ids):
            print(f"    e.g. failed: {error}")
    return rate


def ingestion(running: cluster_module.Cluster, args: argparse.Namespace) -> tuple[float, float]:
    print(f"\ningestion: {args.documents} PDFs of {args.pages} text pages each, uploaded "
          "through nginx; one: worker 2 stopped; two: both workers", flush=True)
    batches = [[text_pdf(args.seed * 100_000 + batch * 1000 + n, args.pages)
                for n in range(args.documents)] for batch in range(2)]
    running.worker_2.stop()
    try:
        one = ingestion_run(running, "one worker", batches[0])
    finally:
        running.worker_2.start()
    two = ingestion_run(running, "two workers", batches[1])
    return one, two


# -- 3. Re-verification with one worker and two -------------------------------------


def reverify_layout(answers: int, distinct: int, one: list[str],
                    two: list[str]) -> list[tuple[int, str]]:
    """Each stored answer's body (an index into ``distinct`` bodies) and
    surface: ``answers`` on the surfaces ``one`` and the same answers on
    ``two``. bench/reverify.py's ``store`` sends the first ``2 x distinct``
    through ``answer_submit`` and makes answer ``n`` after them a copy of
    answer ``n % (2 x distinct)``, so those come as blocks of ``distinct``,
    one side then the other, and every answer after them repeats its
    original's body and surface."""
    if answers % distinct:
        raise ValueError("answers must be a multiple of distinct: each body as often on "
                         "one side as on the other")
    layout = []
    for number in range(2 * answers):
        side, body = divmod(number % (2 * distinct), distinct)
        surfaces = two if side else one
        layout.append((body, surfaces[body % len(surfaces)]))
    return layout


def reverify_store(answers: int, distinct: int, seed: int, one: list[str],
                   two: list[str]) -> None:
    """Inside Django (``manage.py shell`` on the cluster): the surfaces at the
    old threshold and the answers of ``reverify_layout``, from bench/
    reverify.py's bodies, stored by its ``store``."""
    from bench.reverify import build_payloads, store
    from reviewer.models import Surface

    for name in one + two:
        Surface.objects.create(name=name, threshold=OLD_THRESHOLD)
    bodies = build_payloads(distinct, seed, distinct)
    store([{**bodies[body], "id": f"scale-{number}", "surface": surface}
           for number, (body, surface) in enumerate(reverify_layout(answers, distinct, one,
                                                                    two))],
          2 * distinct)


def reverify_run(running: cluster_module.Cluster, label: str, surfaces: list[str],
                 answers: int) -> float:
    """Applies the new threshold on each surface (a run each, queued on Redis
    for the workers) and waits for every run; answers re-verified a second."""
    started = ("from reviewer.models import Surface\n"
               "from reviewer.services.reverify import reverification_start\n"
               f"for name in {surfaces!r}:\n"
               "    print(reverification_start(surface=Surface.objects.get(name=name), "
               f"threshold={NEW_THRESHOLD}).pk)\n")
    runs = [int(line) for line in running.manage("shell", "--no-imports", "-c", started).split()]
    wait_settled(running, "reviewer_reverificationrun", runs, ("done", "failed"))
    ((first, last, done, changed, failed),) = running.query(
        "SELECT extract(epoch FROM min(created)), extract(epoch FROM max(finished)), "
        "sum(done), sum(changed), count(*) FILTER (WHERE status = 'failed') "
        "FROM reviewer_reverificationrun WHERE id = ANY(%s)", runs)
    seconds = float(last) - float(first)
    rate = int(done) / seconds
    print(f"  {label}: {len(runs)} runs, {done:,} of {answers:,} answers re-verified "
          f"({changed:,} changed) in {seconds:.1f} s: {rate:.0f} answers/s"
          + (f"; {failed} runs FAILED" if failed else ""), flush=True)
    return rate


def reverification(running: cluster_module.Cluster,
                   args: argparse.Namespace) -> tuple[float, float]:
    one = [f"scale-{n}" for n in range(SURFACES_PER_RUN)]
    two = [f"scale-{n}" for n in range(SURFACES_PER_RUN, 2 * SURFACES_PER_RUN)]
    print(f"\nre-verification: {args.reverify_answers:,} answers over {SURFACES_PER_RUN} "
          f"surfaces, {OLD_THRESHOLD} -> {NEW_THRESHOLD}, a run per surface; one: worker 2 "
          "stopped; two: both workers, on 4 more surfaces holding the same answers",
          flush=True)
    phase = time.perf_counter()
    setup = ("from bench.scale import reverify_store\n"
             f"reverify_store({args.reverify_answers}, {args.distinct}, {args.seed}, "
             f"{one!r}, {two!r})\n")
    running.manage("shell", "--no-imports", "-c", setup, timeout=1800)
    print(f"  set-up: {2 * args.reverify_answers:,} answers stored in "
          f"{time.perf_counter() - phase:.0f} s ({2 * args.distinct:,} through answer_submit, "
          "the rest copies)", flush=True)
    running.worker_2.stop()
    try:
        first = reverify_run(running, "one worker", one, args.reverify_answers)
    finally:
        running.worker_2.start()
    return first, reverify_run(running, "two workers", two, args.reverify_answers)


# -- 4. PostgreSQL's commit ceiling ---------------------------------------------------


def commit_ceiling(running: cluster_module.Cluster, connections: int, seconds: float) -> float:
    """Single-row INSERT commits a second from ``connections`` connections."""
    import psycopg

    running.query("CREATE TABLE scale_commit_probe (id bigserial PRIMARY KEY, value int)")
    counts = [0] * connections
    start = threading.Barrier(connections + 1)
    stop = threading.Event()

    def committer(index: int) -> None:
        with psycopg.connect(running.database_url, autocommit=True) as conn:
            start.wait()
            while not stop.is_set():
                conn.execute("INSERT INTO scale_commit_probe (value) VALUES (%s)", (index,))
                counts[index] += 1

    threads = [threading.Thread(target=committer, args=(i,)) for i in range(connections)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - began
    running.query("DROP TABLE scale_commit_probe")
    return sum(counts) / elapsed


# -- The model on paper -----------------------------------------------------------------


def model(one: AnswersRun, two: AnswersRun, ceiling: float, host_cores: int,
          settings: dict[str, str]) -> None:
    answered = one.answers + two.answers
    app_cpu = (one.spent.app + two.spent.app) / answered
    nginx_cpu = (one.spent.nginx + two.spent.nginx) / answered
    pg_cpu = (sum(one.spent.postgres.values()) + sum(two.spent.postgres.values())) / answered
    commits = (one.spent.commits + two.spent.commits) / answered
    writes = (one.writes + two.writes) / answered
    print(f"\nmodel on paper: N app hosts of {host_cores} cores, one PostgreSQL host "
          f"(measured above, both answers runs together)")
    print(f"  gunicorn CPU an answer      {app_cpu * 1000:6.2f} ms")
    print(f"  PostgreSQL CPU an answer    {pg_cpu * 1000:6.2f} ms  (its backends; a bound "
          "from below)")
    print(f"  nginx CPU an answer         {nginx_cpu * 1000:6.2f} ms")
    print(f"  writing commits an answer   {writes:6.2f}  (of {commits:.2f} commits: read-only "
          "ones do not wait for the disk)")
    print(f"  commit ceiling              {ceiling:6.0f} /s  (single-row INSERTs; "
          + ", ".join(f"{k} {v}" for k, v in settings.items()) + ")")
    rows = []
    for hosts in HOSTS:
        app_bound = hosts * host_cores / app_cpu
        commit_bound = ceiling / writes
        db_cpu_bound = host_cores / pg_cpu if pg_cpu else float("inf")
        rows.append((hosts, hosts * host_cores, app_bound, commit_bound, db_cpu_bound,
                     min(app_bound, commit_bound, db_cpu_bound)))
    print()
    print(f"  {'hosts':>5} {'cores':>5} {'app CPU':>9} {'commits':>9} {'DB CPU':>9} "
          f"{'predicted answers/s':>20}")
    for hosts, cores, app_bound, commit_bound, db_cpu_bound, predicted in rows:
        print(f"  {hosts:>5} {cores:>5} {app_bound:>9,.0f} {commit_bound:>9,.0f} "
              f"{db_cpu_bound:>9,.0f} {predicted:>20,.0f}")
    print(f"""
  predicted = min(N x C / gunicorn CPU an answer, commit ceiling / writing
  commits an answer, C / PostgreSQL CPU an answer), C = {host_cores}. Assumes: the
  app hosts run gunicorn alone, every core busy, each answer costing the CPU
  measured here (these answers, this machine's cores); one PostgreSQL host of
  C cores on a disk like this one (the ceiling measured here; more committing
  connections or a faster disk raise it), no replicas; nginx, Redis and the S3
  store on hosts of their own and never the bound (a balancer core carries
  ~{1 / nginx_cpu:,.0f} answers/s); no time lost to the network between hosts
  nor to locks between answers.""")


def pg_settings(running: cluster_module.Cluster) -> dict[str, str]:
    return {name: str(running.query(f"SHOW {name}")[0][0])
            for name in ("fsync", "synchronous_commit")}


def ratio_line(what: str, one: float, two: float) -> None:
    print(f"  {what:<32} {one:>10,.1f} {two:>10,.1f}  {two / one:>6.2f}x")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="shorter phases, fewer documents and answers (3-4 minutes)")
    parser.add_argument("--clients", type=int, default=8, help="API clients (8)")
    parser.add_argument("--seconds", type=float, help="each timed answers phase (20; quick 10)")
    parser.add_argument("--app-workers", type=int, default=2,
                        help="gunicorn workers of each app server (2, the cluster's default)")
    parser.add_argument("--documents", type=int, help="PDFs ingested per run (12; quick 6)")
    parser.add_argument("--pages", type=int, help="pages of each PDF (25; quick 15)")
    parser.add_argument("--reverify-answers", type=int,
                        help="answers re-verified per run (10,000; quick 1,000)")
    parser.add_argument("--distinct", type=int,
                        help="distinct answer bodies among them, each stored through "
                             "answer_submit (1,000; quick 200); the rest are copies")
    parser.add_argument("--commit-connections", type=int, default=8)
    parser.add_argument("--commit-seconds", type=float, help="(5; quick 3)")
    parser.add_argument("--host-cores", type=int, default=os.cpu_count() or 1,
                        help="cores of each host in the model (this machine's)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    quick = args.quick
    args.seconds = args.seconds or (10.0 if quick else 20.0)
    args.documents = args.documents or (6 if quick else 12)
    args.pages = args.pages or (15 if quick else 25)
    args.reverify_answers = args.reverify_answers or (1_000 if quick else 10_000)
    args.distinct = args.distinct or (200 if quick else 1_000)
    if args.reverify_answers % args.distinct:
        parser.error("--reverify-answers must be a multiple of --distinct (each body as "
                     "often on one side as on the other)")
    args.commit_seconds = args.commit_seconds or (3.0 if quick else 5.0)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "reviewer.settings")  # reviewer.demo
    recipe.stop_on_sigterm()  # the cluster is stopped and its database dropped
    began = time.perf_counter()
    print(f"starting the cluster (nginx, 2 app servers, 2 workers, PostgreSQL, Redis, S3) on "
          f"{os.cpu_count()} cores ...", flush=True)
    with cluster_module.cluster(app_workers=args.app_workers,
                                extra_env={"LOG_LEVEL": "WARNING"}) as running:
        answered = answers(running, args)
        ingested = ingestion(running, args)
        reverified = reverification(running, args)
        ceiling = commit_ceiling(running, args.commit_connections, args.commit_seconds)
        print(f"\ncommit ceiling: {ceiling:,.0f} single-row INSERT commits/s from "
              f"{args.commit_connections} connections over {args.commit_seconds:.0f} s")
        settings = pg_settings(running)
    one, two = answered
    print(f"\none against two, this run ({os.cpu_count()} cores shared by every part and "
          "the load generator):")
    print(f"  {'':<32} {'one':>10} {'two':>10}  {'two/one':>7}")
    ratio_line("answers/s", one.rate, two.rate)
    ratio_line("answers p50 (ms)", percentile(one.tally.latencies, 0.5) * 1000,
               percentile(two.tally.latencies, 0.5) * 1000)
    ratio_line("answers p99 (ms)", percentile(one.tally.latencies, 0.99) * 1000,
               percentile(two.tally.latencies, 0.99) * 1000)
    ratio_line("ingestion pages/s", *ingested)
    ratio_line("re-verification answers/s", *reverified)
    model(one, two, ceiling, args.host_cores, settings)
    print(f"\nwhole bench: {time.perf_counter() - began:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
