"""Benchmark of the supervisors' pages on PostgreSQL: the triage queue with
each of its filters, and the trends page, at a million answers, each as a
ratio to the same page at 1k answers, measured in one run (goal: ratio <= 2).

Run from the repository root (after ``make setup``; nothing else by hand)::

    .venv/bin/python bench/triage.py                  # 1k, then 1M answers
    .venv/bin/python bench/triage.py --large 100000 --repeat 7   # shorter
    .venv/bin/python bench/triage.py --keep           # keep both databases, then
    .venv/bin/python bench/triage.py --reuse --keep   # time them again, migrated first

It creates two throwaway databases (``citeguard_bench_triage`` for the large
size and ``citeguard_bench_triage_small``, or ``--database`` and its
``_small``) on 127.0.0.1:5432 (user postgres, trust auth), migrates them, collects the
static files into a temporary folder (the pages are rendered as production
renders them, DEBUG off), and inserts answers with verdicts by COPY (not
through verification: the pages read stored rows, and a million real
verifications would take days), every index of the app in place while they
go in. The answers are shaped like production's: three surfaces, four models,
60 % pass / 30 % flag / 10 % fail, failing outcome counts consistent with the
verdict, coverage, review states and decisions, assignment to five
reviewers, questions drawn from a legal and clinical vocabulary (one in 500
naming a rarer word, for a narrow search), spread over 90 days; one answer in
30 has a judged citation, one judgement in ten disagreeing with the check.
The kept counts (trends' summary, the queue's groups) are rebuilt with
``manage.py rebuild_stats`` after each insert, as an import would, then the
database is vacuumed and analysed, as autovacuum would leave it.

Both databases are filled from the same seed, so the large one's first
answers are the small one's, row for row: the ratio compares like with like.
Each page is requested in-process with Django's test client (view, template
and queries; no HTTP server), as a logged-in supervisor or reviewer,
``--repeat`` times at each size after two warm-ups, the two sizes taking turns
request by request (a machine busier for a while slows both alike); the
median is reported, with the time of the page's queries in one more request
and how many answers it lists (a page listing 2 answers at 1k renders 48
rows fewer than at 1M, whatever the database does; what a listed row costs
outside the queries is estimated after the table). ``EXPLAIN ANALYZE`` of
the slowest queries of the pages with the worst ratios is printed at the end.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import postgres  # noqa: E402

PG_DB = "citeguard_bench_triage"
GOAL = 2.0

SURFACES = ("legal-research", "clinical-guidance", "benefits-helpdesk")
MODELS = ("model-a", "model-b", "model-c", "model-d")
WORDS = (
    "warranty indemnity termination liability clause contract tenant lease breach notice "
    "dosage contraindication renal hepatic infusion interaction guideline pregnancy "
    "vesting pension employer contribution eligibility deductible claim appeal coverage "
    "statute appeal court opinion precedent damages negligence arbitration"
).split()
#: In one question in RARE_EVERY: what a narrow search finds.
RARE_WORD, RARE_EVERY = "estoppel", 500
#: The bench's failing outcomes and how often each is present in a failing answer.
OUTCOME_WEIGHTS = (("fabricated-marker", 0.15), ("quote-altered", 0.3),
                   ("quote-not-found", 0.35), ("wrong-source", 0.1),
                   ("unattributed-quote", 0.05), ("uncited-claim", 0.4))
#: One answer in JUDGED_EVERY has a judged citation.
JUDGED_EVERY = 30

#: (name, user, query): the pages timed at both sizes. A query's {week_from},
#: {week_to} and {month_from} are dates relative to the bench's "now"; "&htmx"
#: asks for the fragment a filter change swaps in.
PAGES = (
    ("queue, default (supervisor)", "supervisor", "/triage/"),
    ("state: any", "supervisor", "/triage/?state=any"),
    ("state: escalated", "supervisor", "/triage/?state=escalated"),
    ("state: approved", "supervisor", "/triage/?state=approved"),
    ("verdict: fail", "supervisor", "/triage/?verdict=fail&htmx"),
    ("outcome: quote altered", "supervisor", "/triage/?outcome=quote-altered&htmx"),
    ("surface", "supervisor", "/triage/?surface=legal-research&htmx"),
    ("model", "supervisor", "/triage/?model=model-b&htmx"),
    ("assignee: reviewer2", "supervisor", "/triage/?assignee=reviewer2&htmx"),
    ("assignee: unassigned", "supervisor", "/triage/?assignee=none&htmx"),
    ("surface + outcome", "supervisor",
     "/triage/?surface=legal-research&outcome=quote-altered&htmx"),
    ("coverage below 90 %", "supervisor", "/triage/?coverage_below=90&htmx"),
    ("coverage below 50 %, any state", "supervisor",
     "/triage/?coverage_below=50&state=any&htmx"),
    ("surface + outcome + coverage < 90 %", "supervisor",
     "/triage/?surface=legal-research&outcome=quote-altered&coverage_below=90&htmx"),
    ("date range: one week", "supervisor", "/triage/?from={week_from}&to={week_to}&htmx"),
    ("date from: last 30 days", "supervisor", "/triage/?from={month_from}&htmx"),
    ("date to: before 60 days ago", "supervisor", "/triage/?to={month_from_2}&htmx"),
    ("search, two common words", "supervisor", "/triage/?q=indemnity+termination"),
    ("search, a rare word", "supervisor", f"/triage/?q={RARE_WORD}&htmx"),
    ("search + coverage + week + surface", "supervisor",
     "/triage/?q=indemnity&coverage_below=90&from={week_from}&to={week_to}"
     "&surface=legal-research&htmx"),
    ("rungs disagree", "supervisor", "/triage/?disagree=1&htmx"),
    ("page 20", "supervisor", "/triage/?page=20"),
    ("page 20, any state", "supervisor", "/triage/?state=any&page=20&htmx"),
    ("reviewer: default (mine + unassigned)", "reviewer1", "/triage/"),
    ("reviewer: my queue", "reviewer1", "/triage/?assignee=me"),
    ("reviewer: my queue + coverage < 90 %", "reviewer1",
     "/triage/?assignee=me&coverage_below=90&htmx"),
    ("trends, per day", "supervisor", "/trends/"),
    ("trends, per hour, one model", "supervisor", "/trends/?granularity=hour&model=model-b"),
)
#: How many of the worst pages' queries EXPLAIN ANALYZE shows.
EXPLAINED_PAGES = 3


def setup_django(name: str, var_dir: Path) -> None:
    import logging
    import os

    # Media, the generated key and the collected static files in a folder of
    # the bench's own: the pages render with DEBUG off, whose static files
    # storage reads the manifest collectstatic writes.
    os.environ["CITEGUARD_VAR_DIR"] = str(var_dir)
    os.environ["STATIC_ROOT"] = str(var_dir / "static")
    postgres.setup_django(name)
    # The trends page logs each rate change it finds; the bench counts them.
    logging.getLogger("citeguard.alerts").setLevel(logging.ERROR)


def make_people() -> dict[str, Any]:
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    users = {}
    model = get_user_model()
    supervisor = model.objects.create_user("supervisor", password="x")
    supervisor.groups.add(Group.objects.get(name="supervisor"))
    users["supervisor"] = supervisor
    for number in range(1, 6):
        reviewer = model.objects.create_user(f"reviewer{number}", password="x")
        reviewer.groups.add(Group.objects.get(name="reviewer"))
        users[f"reviewer{number}"] = reviewer
    from reviewer.models import Workspace

    # Members of the workspace the answers are in (one: the fast count path).
    Workspace.objects.default().users.add(*users.values())
    return users


def make_surfaces() -> list[Any]:
    from reviewer.models import Surface

    return [Surface.objects.create(name=name, threshold=0.9) for name in SURFACES]


# ---- bulk insert by COPY ---------------------------------------------------------

def _copy(model: Any, rows: Iterable[dict[str, Any]], *, ids: bool = False) -> int:
    """COPY ``rows`` (field attnames to values) into ``model``'s table; a
    field left out takes its default, the primary key its sequence's next
    value unless ``ids`` (the rows carry theirs). Returns how many went in."""
    from django.db import connection
    from django.db.models import JSONField

    fields = [f for f in model._meta.concrete_fields if ids or not f.primary_key]
    defaults = {f.attname: f.get_default() for f in fields}
    json_fields = {f.attname for f in fields if isinstance(f, JSONField)}
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    names = [f.attname for f in fields]
    count = 0
    with connection.cursor() as cursor:
        sql = f"COPY {connection.ops.quote_name(model._meta.db_table)} ({columns}) FROM STDIN"
        with cursor.cursor.copy(sql) as copy:
            for row in rows:
                values = []
                for name in names:
                    value = row[name] if name in row else defaults[name]
                    if name in json_fields and value is not None:
                        value = json.dumps(value)
                    values.append(value)
                copy.write_row(values)
                count += 1
    return count


def _next_ids(model: Any, count: int) -> int:
    """Reserve ``count`` ids of ``model``'s sequence; returns the first."""
    from django.db import connection

    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute("SELECT setval(pg_get_serial_sequence(%s, 'id'), "
                       "nextval(pg_get_serial_sequence(%s, 'id')) + %s - 1)",
                       [table, table, count])
        last = cursor.fetchone()[0]
    return last - count + 1


def _answers(count: int, first_id: int, *, rng: random.Random, surfaces: list[Any],
             reviewers: list[Any], now: datetime, decisions: list[dict[str, Any]],
             judged: list[tuple[int, str, str]]) -> Iterator[dict[str, Any]]:
    """``count`` answers' rows (ids from ``first_id``); their decisions and the
    citations to judge are appended to ``decisions`` and ``judged``."""
    from reviewer.severity import outcome_columns, triage_priority

    choice, randint, random_ = rng.choice, rng.randint, rng.random
    for answer_id in range(first_id, first_id + count):
        roll = random_()
        verdict = "pass" if roll < 0.6 else "flag" if roll < 0.9 else "fail"
        counts = {name: 0 for name, _ in OUTCOME_WEIGHTS}
        if verdict != "pass":
            for name, weight in OUTCOME_WEIGHTS:
                if random_() < weight:
                    counts[name] = randint(1, 3)
            if not any(counts.values()):
                counts["quote-not-found"] = 1
        claims = randint(2, 12)
        attributed = claims - min(counts["uncited-claim"], claims)
        columns = outcome_columns(counts)
        state = "pending"
        if verdict != "pass" and random_() < 0.5:
            state = choice(("approved", "rejected", "escalated"))
        assigned = choice(reviewers) if verdict != "pass" and random_() < 0.4 else None
        created = now - timedelta(seconds=randint(0, 90 * 86400))
        words = rng.choices(WORDS, k=randint(6, 14))
        if random_() < 1 / RARE_EVERY:
            words[randint(0, len(words) - 1)] = RARE_WORD
        question = " ".join(words) + "?"
        text = ". ".join(" ".join(rng.choices(WORDS, k=12)) for _ in range(4))
        surface = choice(surfaces)
        if state != "pending":
            decisions.append({
                "answer_id": answer_id, "reviewer_id": choice(reviewers).pk,
                "decision": {"approved": "approve", "rejected": "reject"}.get(state, "escalate"),
                "from_state": "pending", "to_state": state,
                "created": created + timedelta(minutes=randint(5, 3000))})
        if random_() < 1 / JUDGED_EVERY:
            outcome = next((name for name, _ in OUTCOME_WEIGHTS if counts[name]), "verified")
            failing = outcome != "verified"
            disagrees = random_() < 0.1
            label = ("supported" if failing == disagrees else
                     "contradicted" if random_() < 0.7 else "not-enough-info")
            judged.append((answer_id, outcome, label))
        yield {
            "id": answer_id, "surface_id": surface.pk, "model": choice(MODELS),
            "question": question, "text": text, "verdict": verdict,
            "action": "serve" if verdict == "pass" else "flag", "coverage": attributed / claims,
            "claims": claims, "attributed_claims": attributed,
            "counts": {**counts, "verified": randint(0, 6)}, "threshold": 0.9,
            "elapsed_ms": rng.lognormvariate(0.5, 0.8), "served_answer": text,
            "review_state": state, "created": created, **columns,
            # Answer.save stamps the queue's priority; COPY does not call it.
            "triage_priority": triage_priority(columns, high_stakes=surface.high_stakes),
            "assigned_to_id": assigned.pk if assigned else None,
            "assigned_at": created if assigned else None,
        }


def insert_answers(count: int, *, rng: random.Random, surfaces: list[Any],
                   users: dict[str, Any], now: datetime) -> None:
    """``count`` more answers with verdicts, decisions, assignments and a
    judged citation now and then, by COPY."""
    from reviewer.models import (
        Answer,
        CitationVerdict,
        Judgement,
        ReviewDecision,
        SentenceVerdict,
    )

    reviewers = [u for name, u in users.items() if name.startswith("reviewer")]
    surface_of = {}
    batch = 200_000  # answers per COPY: their decisions follow in memory
    first = _next_ids(Answer, count)
    for start in range(first, first + count, batch):
        size = min(batch, first + count - start)
        decisions: list[dict[str, Any]] = []
        judged: list[tuple[int, str, str]] = []
        rows = _answers(size, start, rng=rng, surfaces=surfaces, reviewers=reviewers,
                        now=now, decisions=decisions, judged=judged)

        def remember(rows: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
            for row in rows:
                surface_of[row["id"]] = (row["surface_id"], row["created"])
                yield row

        _copy(Answer, remember(rows), ids=True)
        _copy(ReviewDecision, decisions)
        if judged:
            sentence = _next_ids(SentenceVerdict, len(judged))
            citation = _next_ids(CitationVerdict, len(judged))
            _copy(SentenceVerdict, (
                {"id": sentence + i, "answer_id": answer_id, "index": 0, "start": 0, "end": 40,
                 "text": "A sentence the model judged.", "claim": True,
                 "status": "verified" if outcome == "verified" else outcome}
                for i, (answer_id, outcome, _) in enumerate(judged)), ids=True)
            _copy(CitationVerdict, (
                {"id": citation + i, "answer_id": answer_id, "sentence_id": sentence + i,
                 "position": 0, "outcome": outcome, "marker": "1", "message": outcome}
                for i, (answer_id, outcome, _) in enumerate(judged)), ids=True)
            _copy(Judgement, (
                {"citation_id": citation + i, "citation_position": 0, "answer_id": answer_id,
                 "surface_id": surface_of[answer_id][0], "judge": "bench",
                 "label": label, "attempts": 1,
                 "created": surface_of[answer_id][1] + timedelta(seconds=30)}
                for i, (answer_id, _, label) in enumerate(judged)))
        surface_of.clear()


def refresh_summaries() -> None:
    from django.core.management import call_command
    from django.db import connection

    call_command("rebuild_stats", stdout=io.StringIO())
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")


# ---- timing ----------------------------------------------------------------------

def page_urls(now: datetime) -> list[tuple[str, str, str, dict[str, str]]]:
    """PAGES with their dates filled in: (label, user, url, headers)."""
    from django.utils import timezone

    today = timezone.localtime(now).date()

    def day(days_ago: int) -> str:
        return (today - timedelta(days=days_ago)).isoformat()

    dates = {"week_from": day(14), "week_to": day(8), "month_from": day(30),
             "month_from_2": day(60)}
    pages = []
    for label, user, url in PAGES:
        url = url.format(**dates)
        headers = {}
        if url.endswith("&htmx"):
            url, headers = url.removesuffix("&htmx"), {"HX-Request": "true"}
        pages.append((label, user, url, headers))
    return pages


def clients(users: dict[str, Any]) -> dict[str, Any]:
    """A logged-in test client per user the pages are read as, in the
    database connected now (the users as stored there: their sessions hold
    a hash of their password, which each database salted its own way)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    logged_in = {}
    for name in ("supervisor", "reviewer1"):
        logged_in[name] = Client()
        logged_in[name].force_login(get_user_model().objects.get(
            username=users[name].get_username()))
    return logged_in


@dataclass(frozen=True)
class Timing:
    ms: float  # median page time
    sql_ms: float  # median time spent in the database (its queries' execution)
    queries: int
    rows: int  # answers the page lists


class QueryClock:
    """Django execute wrapper adding up the time queries take."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.queries = 0

    def __call__(self, execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            self.seconds += time.perf_counter() - started
            self.queries += 1


def use_database(name: str) -> None:
    """Point Django's connection at database ``name`` (connected before any
    timing starts)."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = name
    connection.ensure_connection()


def time_pages(databases: dict[int, str], users: dict[str, Any], repeat: int,
               now: datetime) -> dict[int, dict[str, Timing]]:
    """Each page at each size (``databases``: size to database name), the
    sizes taking turns request by request, so a machine busier for a while
    slows both sides alike instead of one."""
    from django.db import connection

    logged_in = {}
    for size, name in databases.items():
        use_database(name)
        logged_in[size] = clients(users)  # sessions live in each database
    timings: dict[int, dict[str, Timing]] = {size: {} for size in databases}
    for label, user, url, headers in page_urls(now):
        samples: dict[int, list[tuple[float, float]]] = {size: [] for size in databases}
        rows: dict[int, int] = {}
        queries: dict[int, int] = {}
        for attempt in range(repeat + 2):
            order = list(databases) if attempt % 2 else list(reversed(databases))
            for size in order:
                use_database(databases[size])
                clock = QueryClock()
                with connection.execute_wrapper(clock):
                    started = time.perf_counter()
                    response = logged_in[size][user].get(url, headers=headers)
                    elapsed = time.perf_counter() - started
                if response.status_code != 200:
                    raise SystemExit(f"{url} answered {response.status_code}")
                if attempt >= 2:  # two warm-ups each
                    samples[size].append((elapsed, clock.seconds))
                rows[size] = response.content.decode().count(" data-answer=")
                queries[size] = clock.queries
        for size in databases:
            timings[size][label] = Timing(
                ms=statistics.median(page for page, _ in samples[size]) * 1000,
                sql_ms=statistics.median(sql for _, sql in samples[size]) * 1000,
                queries=queries[size], rows=rows[size])
    return timings


def explain_pages(users: dict[str, Any], labels: Iterable[str], now: datetime) -> str:
    """EXPLAIN ANALYZE of the two slowest queries of each page in ``labels``."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    logged_in = clients(users)
    wanted = set(labels)
    plans = []
    for label, user, url, headers in page_urls(now):
        if label not in wanted:
            continue
        with CaptureQueriesContext(connection) as captured:
            logged_in[user].get(url, headers=headers)
        # Not the planner estimates a page asks for (EXPLAIN already).
        timed = [q for q in captured.captured_queries if not q["sql"].startswith("EXPLAIN")]
        slowest = sorted(timed, key=lambda q: -float(q["time"]))[:2]
        for query in slowest:
            with connection.cursor() as cursor:
                cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + query["sql"])
                plan = "\n".join(row[0] for row in cursor.fetchall())
            plans.append(f"-- {label}: {url} ({float(query['time']) * 1000:.1f} ms)\n"
                         f"-- {query['sql'][:300]}{'…' if len(query['sql']) > 300 else ''}\n"
                         f"{plan}")
    return "\n\n".join(plans)


def false_alarms(now: datetime) -> int:
    """How many rate changes the trends check reports on this data, where
    every day is drawn from the same distribution: each is a false alarm."""
    from reviewer.models import TrendAlert
    from reviewer.services.trends import trend_alerts_check

    TrendAlert.objects.all().delete()
    return len(trend_alerts_check(days=76, today=now.date()))


def reuse_databases(databases: dict[int, str]) -> datetime:
    """Migrate the databases a run with ``--keep`` left (a new migration's
    data migration runs on them as on a deployment), analyse them, and return
    the "now" their answers were made around (the newest answer's time: the
    pages' dates are relative to it). Without ``--keep`` they are dropped at
    the end, as a run that filled them would."""
    from django.core.management import call_command
    from django.db import connection

    from reviewer.models import Answer

    newest = None
    for size, name in databases.items():
        use_database(name)
        stored = Answer.all_objects.count()
        if stored != size:
            raise SystemExit(f"{name} holds {stored:,} answers, not {size:,}: fill it again "
                             f"(without --reuse)")
        began = time.perf_counter()
        call_command("migrate", verbosity=0)
        with connection.cursor() as cursor:
            cursor.execute("VACUUM ANALYZE")
        print(f"{size:>9,} answers reused, migrated and analysed in "
              f"{time.perf_counter() - began:.1f} s", flush=True)
        newest = Answer.all_objects.order_by("-created").values_list("created", flat=True)[0]
    assert newest is not None
    return newest


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=1_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--database", default=PG_DB,
                        help=f"the throwaway database's name (default {PG_DB})")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", action="store_true",
                        help="time the databases a run with --keep left (same sizes and "
                             "seed), migrated to this code first, instead of filling new ones")
    args = parser.parse_args()

    databases = {args.small: f"{args.database}_small", args.large: args.database}
    if not args.reuse:
        for name in databases.values():
            postgres.fresh_database(name)
    var_dir = Path(tempfile.mkdtemp(prefix="citeguard-bench-triage-"))
    setup_django(args.database, var_dir)
    from django.core.management import call_command
    from django.utils import timezone

    try:
        started = time.perf_counter()
        call_command("collectstatic", interactive=False, verbosity=0)
        if args.reuse:
            from django.contrib.auth import get_user_model

            now = reuse_databases(databases)
            users = {user.get_username(): user for user in get_user_model().objects.all()}
        else:
            now = timezone.now()
        for size, name in ({} if args.reuse else databases).items():
            use_database(name)
            call_command("migrate", verbosity=0)
            # Both databases from the same seed: the large one's first
            # answers are the small one's, row for row.
            rng = random.Random(args.seed)
            users, surfaces = make_people(), make_surfaces()
            inserted, began = 0, time.perf_counter()
            for part in sorted({args.small, size}):
                insert_answers(part - inserted, rng=rng, surfaces=surfaces, users=users,
                               now=now)
                inserted = part
            copied = time.perf_counter()
            refresh_summaries()
            print(f"{size:>9,} answers ready in {time.perf_counter() - began:.1f} s (COPY "
                  f"{copied - began:.1f} s, rebuild_stats and VACUUM ANALYZE "
                  f"{time.perf_counter() - copied:.1f} s)", flush=True)
        print(f"migrated, static files collected, answers stored in "
              f"{time.perf_counter() - started:.0f} s; timing the pages", flush=True)
        results = time_pages(databases, users, args.repeat, now)
        use_database(databases[args.large])
        ratios = {label: results[args.large][label].ms / results[args.small][label].ms
                  for label, *_ in PAGES}
        print(f"\nMedian page time in ms at {args.small:,} and {args.large:,} answers, the "
              f"median time of its queries in brackets, and the answers the page lists:\n")
        width = max(len(label) for label, *_ in PAGES)
        print(f"{'page':<{width}}  {'rows':>7}  {args.small:>16,}  {args.large:>16,}   "
              f"ratio   goal")
        for label, *_ in PAGES:
            small, large = results[args.small][label], results[args.large][label]
            print(f"{label:<{width}}  {small.rows:>3}/{large.rows:<3}  "
                  f"{small.ms:>7.1f} ({small.sql_ms:>5.1f})  "
                  f"{large.ms:>7.1f} ({large.sql_ms:>5.1f})  {ratios[label]:5.2f}x  "
                  f"<= {GOAL:g}{'' if ratios[label] <= GOAL else '  OVER'}")
        # What a listed row costs outside the queries (rendering it, its
        # objects), from the pages listing fewer answers at the small size:
        # the part of their ratio that is more rows, not the database.
        per_row = [((results[args.large][label].ms - results[args.large][label].sql_ms)
                    - (results[args.small][label].ms - results[args.small][label].sql_ms))
                   / (results[args.large][label].rows - results[args.small][label].rows)
                   for label, *_ in PAGES
                   if results[args.large][label].rows > results[args.small][label].rows]
        if per_row:
            print(f"\nOutside its queries, each answer a page lists costs about "
                  f"{statistics.median(per_row):.2f} ms (median over the {len(per_row)} pages "
                  f"listing fewer answers at {args.small:,}: their extra time outside the "
                  f"queries over their extra rows)")
        print(f"\nRate changes flagged over the last 76 days of these stationary answers "
              f"(each one a false alarm): {false_alarms(now)} "
              f"over {len(SURFACES) * (len(MODELS) + 1) * 6} series")
        worst = sorted((label for label, *_ in PAGES if not label.startswith("trends")),
                       key=lambda label: -ratios[label])[:EXPLAINED_PAGES]
        print(f"\nEXPLAIN ANALYZE of the two slowest queries of the {EXPLAINED_PAGES} queue "
              f"pages with the worst ratios, at {args.large:,} answers:\n")
        print(explain_pages(users, worst, now))
    finally:
        import shutil

        from django.db import connections

        connections.close_all()
        if not args.keep:
            for name in databases.values():
                postgres.drop_database(name)
        shutil.rmtree(var_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
