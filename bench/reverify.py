"""Benchmark of re-verifying a surface's stored answers with a new threshold,
on PostgreSQL: the re-verification task over N stored answers as a ratio to
verifying the same N answers in-process with no database (goal: ratio <= 3,
so applying a calibrated threshold to a busy surface does not take the
service down).

Run from the repository root::

    .venv/bin/python bench/reverify.py                  # 10,000 answers
    .venv/bin/python bench/reverify.py --answers 1000   # a quick run

It creates a throwaway database ``citeguard_bench_reverify`` on
127.0.0.1:5432 (user postgres, trust auth), migrates it, and stores N answers
on one surface at threshold 0.92 through ``answer_submit`` (real
verification: bench/api.py's bodies of 5-10 inline sources of 1-4 KB with 5-10
quotes each, exact, repaired or repaired with a letter changed, and one
fabricated marker; in 30 % of them a quote loosened with filler words to
score between the two thresholds). ``--distinct`` bodies (2,000) go through
``answer_submit``; the rest of the N repeat them with their own ids, stored
as copies of those answers' rows in SQL (what ``answer_submit`` would have
stored, at a fraction of the setup time). Then it times, re-verifying at 0.85:

(a) ``verify_answer`` on each of the N answers in-process: sources built
    beforehand, no database, nothing stored;
(b) the re-verification run (``reverification_start``; Django's in-process
    task backend runs it at once): reading each answer's stored sources,
    verifying, recording its history, rewriting its verdict rows and moving
    the queue's and trends' kept counts, a transaction per batch.

and checks afterwards that the kept counts equal a rebuild. The phases'
times are printed; the database is dropped at the end (``--keep`` keeps it).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import random
import re
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import postgres  # noqa: E402

PG_DB = "citeguard_bench_reverify"
SURFACE = "bench"
OLD_THRESHOLD, NEW_THRESHOLD = 0.92, 0.85
#: The share of answers with a quote loosened into the band between them.
LOOSENED = 0.3
FILLERS = ("the", "also", "then", "all")


def bench_api() -> Any:
    """bench/api.py (the API bench, whose bodies this one reuses) as a module:
    bench/ is a folder of scripts, not a package."""
    spec = importlib.util.spec_from_file_location("bench_api", ROOT / "bench" / "api.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def setup_django() -> None:
    # The in-process backend: the run is timed here, not on a worker.
    os.environ["TASK_BACKEND"] = "django.tasks.backends.immediate.ImmediateBackend"
    postgres.setup_django(PG_DB)


def loosened(rng: random.Random, quote: str) -> str:
    """The quote with a filler word after every third word: it scores between
    0.85 and 0.92 against its source (most often), so it is quote-not-found at
    the old threshold and verified-fuzzy at the new one."""
    words = quote.split(" ")
    out: list[str] = []
    for index, word in enumerate(words):
        out.append(word)
        if index % 3 == 2 and index < len(words) - 1:
            out.append(rng.choice(FILLERS))
    return " ".join(out)


def build_payloads(count: int, seed: int, distinct: int) -> list[dict[str, Any]]:
    """``count`` payloads from ``distinct`` bodies of bench/api.py's, each
    with its own id (generating a body costs about as much as verifying it;
    verification caches nothing between answers, so a repeated body costs
    what a new one would). In ``LOOSENED`` of the bodies the first quote is
    loosened, so re-verifying at the new threshold changes their outcomes."""
    api = bench_api()
    rng = random.Random(seed)
    bodies = []
    for _ in range(min(count, distinct)):
        data = json.loads(api.PREFIX + api.build_body(rng).suffix)
        first = re.search(r'"([^"]+)" \[', data["answer"])
        if first is not None and rng.random() < LOOSENED:
            data["answer"] = (data["answer"][:first.start(1)] + loosened(rng, first.group(1))
                              + data["answer"][first.end(1):])
        bodies.append(data)
    return [{**bodies[number % len(bodies)], "id": f"bench-{number}", "surface": SURFACE}
            for number in range(count)]


def store(payloads: list[dict[str, Any]], distinct: int) -> None:
    """The first ``distinct`` payloads through ``answer_submit``; the others
    repeat those bodies, so their answers are copies of those rows (what
    ``answer_submit`` would store for them, bar the id) made in SQL, and the
    kept counts are rebuilt. Storing each through ``answer_submit`` took
    three of the default run's five minutes."""
    from django.db import connection

    from reviewer.services.answers import answer_submit

    # Setup, not measured: each answer commits on its own, and waiting for
    # the disk at every commit would double this phase on a slow one.
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = off")
    for data in payloads[:distinct]:
        answer_submit(client=None, data=data)
    with connection.cursor() as cursor:
        cursor.execute("RESET synchronous_commit")
    copies = [(number, data["id"], payloads[number % distinct]["id"])
              for number, data in enumerate(payloads) if number >= distinct]
    if copies:
        copy_answers(copies)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def copy_answers(copies: list[tuple[int, str, str]]) -> None:
    """Copy stored answers (``(number, new external id, original's external
    id)``) with their sources and verdict rows, in one transaction."""
    from django.db import connection, transaction

    from reviewer.models import Answer, AnswerSource, CitationVerdict, SentenceVerdict
    from reviewer.services.queue_counts import queue_counts_rebuild
    from reviewer.services.stats import stats_rebuild

    def columns(model: Any, *skip: str) -> list[str]:
        return [connection.ops.quote_name(f.column) for f in model._meta.concrete_fields
                if not f.primary_key and f.column not in skip]

    answer_columns = columns(Answer, "external_id")
    source_columns = columns(AnswerSource, "answer_id")
    sentence_columns = columns(SentenceVerdict, "answer_id")
    citation_columns = columns(CitationVerdict, "answer_id", "sentence_id")
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE bench_copy (new_id text, old_id text) "
                       "ON COMMIT DROP")
        cursor.executemany("INSERT INTO bench_copy VALUES (%s, %s)",
                           [(new, old) for _, new, old in copies])
        cursor.execute(
            f"INSERT INTO reviewer_answer (external_id, {', '.join(answer_columns)}) "
            f"SELECT c.new_id, {', '.join('a.' + c for c in answer_columns)} "
            "FROM bench_copy c JOIN reviewer_answer a ON a.external_id = c.old_id")
        cursor.execute(
            "CREATE TEMPORARY TABLE bench_ids ON COMMIT DROP AS "
            "SELECT o.id AS old, n.id AS new FROM bench_copy c "
            "JOIN reviewer_answer o ON o.external_id = c.old_id "
            "JOIN reviewer_answer n ON n.external_id = c.new_id")
        for table, names in (("reviewer_answersource", source_columns),
                             ("reviewer_sentenceverdict", sentence_columns)):
            cursor.execute(
                f"INSERT INTO {table} (answer_id, {', '.join(names)}) "
                f"SELECT i.new, {', '.join('r.' + c for c in names)} "
                f"FROM bench_ids i JOIN {table} r ON r.answer_id = i.old")
        cursor.execute(
            "INSERT INTO reviewer_citationverdict (answer_id, sentence_id, "
            f"{', '.join(citation_columns)}) "
            f"SELECT i.new, ns.id, {', '.join('r.' + c for c in citation_columns)} "
            "FROM bench_ids i JOIN reviewer_citationverdict r ON r.answer_id = i.old "
            "JOIN reviewer_sentenceverdict os ON os.id = r.sentence_id "
            "JOIN reviewer_sentenceverdict ns ON ns.answer_id = i.new "
            'AND ns."index" = os."index"')
    queue_counts_rebuild()
    stats_rebuild()


def verify_in_process(payloads: list[dict[str, Any]]) -> float:
    """Seconds to verify every payload with ``verify_answer`` alone."""
    from verification import Source, VerificationConfig, verify_answer

    config = VerificationConfig(threshold=NEW_THRESHOLD)
    work = [(data["answer"], [Source(marker=s["marker"], text=s["text"])
                              for s in data["sources"]]) for data in payloads]
    started = time.perf_counter()
    for text, sources in work:
        verify_answer(text, sources, config=config)
    return time.perf_counter() - started


def reverify_stored() -> tuple[float, Any]:
    from reviewer.models import Surface
    from reviewer.services.reverify import reverification_start

    surface = Surface.objects.get(name=SURFACE)
    started = time.perf_counter()
    run = reverification_start(surface=surface, threshold=NEW_THRESHOLD)
    elapsed = time.perf_counter() - started
    run.refresh_from_db()
    return elapsed, run


def counts_equal_a_rebuild() -> bool:
    from reviewer.models import AnswerStats, QueueGroup
    from reviewer.services.queue_counts import queue_counts_rebuild
    from reviewer.services.stats import COUNT_COLUMNS, stats_rebuild

    def kept() -> tuple[Any, Any]:
        return (sorted(QueueGroup.objects.filter(answers__gt=0).values_list(
                    "surface_key", "model", "verdict", "review_state", "assignee_key",
                    "outcomes", "answers")),
                sorted(AnswerStats.objects.values_list("hour", "surface_id", "model",
                                                       *COUNT_COLUMNS)))

    before = kept()
    queue_counts_rebuild()
    stats_rebuild()
    return before == kept()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--answers", type=int, default=10_000)
    parser.add_argument("--distinct", type=int, default=2_000,
                        help="distinct answer bodies, repeated up to --answers")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args()

    postgres.fresh_database(PG_DB)
    setup_django()
    from django.core.management import call_command

    try:
        call_command("migrate", verbosity=0)
        from reviewer.models import Surface

        Surface.objects.create(name=SURFACE, threshold=OLD_THRESHOLD)
        phase = time.perf_counter()
        payloads = build_payloads(args.answers, args.seed, args.distinct)
        print(f"bodies built:        {time.perf_counter() - phase:6.1f} s "
              f"({min(args.answers, args.distinct):,} distinct)", flush=True)
        phase = time.perf_counter()
        store(payloads, args.distinct)
        print(f"answers stored:      {time.perf_counter() - phase:6.1f} s "
              f"({min(args.answers, args.distinct):,} through answer_submit at "
              f"{OLD_THRESHOLD}, the rest copies of those)", flush=True)
        in_process = verify_in_process(payloads)
        print(f"(a) verify_answer:   {in_process:6.1f} s "
              f"({args.answers / in_process:,.0f} answers/s, in-process, no database)",
              flush=True)
        task, run = reverify_stored()
        print(f"(b) re-verification: {task:6.1f} s "
              f"({args.answers / task:,.0f} answers/s; run {run.status}: {run.done:,} of "
              f"{run.total:,} done, {run.changed:,} changed)", flush=True)
        if run.status != "done" or run.done != args.answers:
            raise SystemExit(f"the run did not finish: {run.status} {run.error}")
        phase = time.perf_counter()
        consistent = counts_equal_a_rebuild()
        print(f"kept counts equal a rebuild: {'yes' if consistent else 'NO'} "
              f"({time.perf_counter() - phase:.1f} s)")
        print(f"\nratio (b)/(a): {task / in_process:.2f}x  (goal <= 3)")
        if not consistent:
            raise SystemExit("the queue or trends counts drifted from the answers")
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            postgres.drop_database(PG_DB)


if __name__ == "__main__":
    main()
