"""Schemathesis against the served OpenAPI schema of /api/v1, on a real server.

Run by ``bin/fuzz-api`` (and by ``bin/test``, once per database)::

    bin/fuzz-api [PYTHON]                 # SQLite in a temporary folder
    DATABASE_URL=postgres://... bin/fuzz-api   # a scratch database beside that one

Starts from nothing: a fresh, migrated database (an SQLite file in a temporary
folder, or, when DATABASE_URL names PostgreSQL, a scratch database
``<name>_fuzz_<pid>`` on that server, dropped afterwards), an API token and a
ready document made with PyMuPDF, so that the authenticated endpoints and
chunk citations are reached. gunicorn (one sync worker, DEBUG=0) serves it on a
free port of 127.0.0.1.

Every operation of the schema fetched from /api/v1/openapi.json is generated
by Schemathesis, positive (valid by the schema) and negative (violating it)
cases, round by round until ``--requests`` have been sent or ``--seconds``
have passed. The one change to the fetched schema: ``surface`` takes the
surfaces configured in this database (a deployment's own list, which no
static schema can know). Valid cases carry no NUL (every text refuses one;
the negative cases do send it). A 414 from gunicorn's request-line limit
(4094 bytes, before the app) is counted, not checked.

GET of one answer or document also gets valid cases with the seeded one's id
(a generated id almost never exists), reported apart.

Printed: requests, seconds, the status-code histogram, 5xx and check failures,
and per operation how many valid cases got a 2xx (its reach; ``-v`` adds the
codes of those refused, and the seconds per operation). Exit status 1
on any 5xx, any response that breaks the schema (undocumented status, wrong
content type, a body not matching its schema), or fewer requests than asked
for within the time limit.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deploy import recipe  # noqa: E402

SEED = """
import json, django
django.setup()
import pymupdf
from django.core.management import call_command
call_command("migrate", "--noinput", verbosity=0)
from reviewer.models import Surface
from reviewer.services.answers import answer_submit
from reviewer.services.clients import api_client_create
from reviewer.services.documents import document_ingest, document_upload

client, token = api_client_create(name="fuzz")
pdf = pymupdf.open()
for text in ("Employer match vests after two years of service. " * 12,
             "Claims must be filed within ninety days of the date of service. " * 12):
    page = pdf.new_page(width=595, height=842)
    page.insert_textbox(pymupdf.Rect(60, 60, 535, 780), text, fontsize=11)
document = document_upload(data=pdf.tobytes(), filename="fuzz.pdf", title="Fuzz").document
document = document_ingest(document_id=document.pk)
assert document.status == "ready", (document.status, document.error)
chunk = document.chunks.order_by("index").first()
answer = answer_submit(client=client, data={
    "id": "1", "answer": '"Employer match vests" [S1].',
    "sources": [{"marker": "S1", "chunk": chunk.pk}]}).answer
print(json.dumps({"token": token, "document": document.pk, "answer": answer.external_id,
                  "surfaces": sorted(Surface.objects.values_list("name", flat=True))}))
"""


def postgres_admin(url: str, sql: str) -> None:
    import psycopg

    parts = urlsplit(url)
    with psycopg.connect(urlunsplit(parts._replace(path="/postgres")), autocommit=True,
                         connect_timeout=5) as conn:
        conn.execute(sql)


@contextmanager
def database(folder: Path) -> Iterator[tuple[str, str]]:
    """(label, DATABASE_URL) of a fresh database, removed afterwards."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        yield "SQLite", f"sqlite:///{folder / 'fuzz.sqlite3'}"
        return
    name = f"{urlsplit(url).path.lstrip('/') or 'citeguard'}_fuzz_{os.getpid()}"
    postgres_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres_admin(url, f'CREATE DATABASE "{name}"')
    try:
        yield "PostgreSQL", urlunsplit(urlsplit(url)._replace(path=f"/{name}"))
    finally:
        postgres_admin(url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def server_env(folder: Path, url: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"TASK_BACKEND", "MEDIA_ROOT", "STATIC_ROOT", "METRICS_TOKEN",
                        "PROMETHEUS_MULTIPROC_DIR", "LOG_LEVEL"}}
    env.update({"DATABASE_URL": url, "CITEGUARD_VAR_DIR": str(folder), "DEBUG": "0",
                "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "127.0.0.1",
                "SECURE_SSL_REDIRECT": "0", "DJANGO_SETTINGS_MODULE": "reviewer.settings",
                "PYTHONUNBUFFERED": "1"})
    return env


def wait_ready(base: str, token: str, log: Path, timeout: float = 60.0) -> None:
    import requests

    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        try:
            response = requests.get(f"{base}/api/v1/ping", timeout=5,
                                    headers={"Authorization": f"Bearer {token}"})
            if response.status_code == 200:
                return
            last = f"HTTP {response.status_code}"
        except requests.RequestException as error:
            last = type(error).__name__
        time.sleep(0.2)
    raise RuntimeError(f"the server did not answer within {timeout:.0f} s ({last}):\n"
                       + log.read_text(errors="replace")[-3000:])


class OutOfTime(Exception):
    """Ends a Hypothesis run at the deadline (its cases are never shrunk)."""


class Tally:
    def __init__(self) -> None:
        self.requests = 0
        self.statuses: Counter[int] = Counter()
        self.valid: Counter[str] = Counter()  # positive cases sent, per operation
        self.reached: Counter[str] = Counter()  # of those, answered 2xx
        self.refused: dict[str, Counter[str]] = defaultdict(Counter)  # the others' codes
        self.by_operation: dict[str, Counter[int]] = defaultdict(Counter)
        self.failures: Counter[str] = Counter()
        self.server_414 = 0
        self.seconds: Counter[str] = Counter()  # per operation, generating included
        self.waited = 0.0  # seconds waiting for answers (the rest is generating)
        self.examples: dict[str, str] = {}  # one per distinct failure

    def fail(self, kind: str, key: str, text: str) -> None:
        self.failures[kind] += 1
        self.examples.setdefault(key, text)


def error_code(response: Any) -> str:
    try:
        return str(response.json()["error"]["code"])
    except Exception:
        return "?"


def fuzz(base: str, token: str, seeded: dict[str, Any], *, target: int, seconds: float,
         seed: int) -> tuple[Tally, float]:
    import hypothesis
    import requests
    import schemathesis
    from hypothesis import HealthCheck, Phase, given
    from schemathesis import GenerationMode
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    raw = requests.get(f"{base}/api/v1/openapi.json", timeout=10).json()
    raw["servers"] = [{"url": f"{base}/api/v1"}]
    surfaces = seeded["surfaces"]
    seeded_ids = {"/answers/{id}": seeded["answer"], "/documents/{id}": seeded["document"],
                  "/documents/{id}/chunks": seeded["document"]}
    schemas = raw["components"]["schemas"]
    for body in (schemas["AnswerInput"], *schemas["VendorInput"]["oneOf"]):
        body["properties"]["surface"]["enum"] = surfaces
    for parameter in raw["paths"]["/answers"]["get"]["parameters"]:
        if parameter.get("name") == "surface":
            parameter["schema"]["enum"] = surfaces
    # Valid cases without NUL (every text refuses it: the negative cases and
    # tests/reviewer/test_api_bad_input.py cover that), so they get further.
    by_mode = {}
    for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
        schema = schemathesis.openapi.from_dict(raw)
        schema.config.generation.update(allow_x00=mode is GenerationMode.NEGATIVE)
        by_mode[mode] = [result.ok() for result in schema.get_all_operations()]
    operations = list(zip(*by_mode.values(), strict=True))
    checks = [not_a_server_error, status_code_conformance, content_type_conformance,
              response_schema_conformance]
    headers = {"Authorization": f"Bearer {token}"}
    session = requests.Session()
    tally = Tally()
    started = time.monotonic()
    deadline = started + seconds

    def run(operation: Any, mode: GenerationMode, examples: int,
            path: dict[str, Any] | None = None) -> None:
        label = f"{operation.method.upper()} {operation.path}" + (" (seeded id)" if path else "")

        @hypothesis.seed(seed)
        @hypothesis.settings(max_examples=examples, deadline=None, database=None,
                             phases=[Phase.explicit, Phase.generate],
                             suppress_health_check=list(HealthCheck))
        @given(case=operation.as_strategy(generation_mode=mode, path_parameters=path))
        def test(case: Any) -> None:
            if time.monotonic() > deadline:
                raise OutOfTime
            sent = time.monotonic()
            try:
                response = case.call(base_url=f"{base}/api/v1", session=session,
                                     headers=headers, timeout=30)
            except requests.RequestException as error:
                tally.fail("no response", f"{label} {type(error).__name__}",
                           f"{label}: {type(error).__name__}: {error}")
                return
            tally.requests += 1
            tally.waited += time.monotonic() - sent
            tally.statuses[response.status_code] += 1
            tally.by_operation[label][response.status_code] += 1
            if mode is GenerationMode.POSITIVE:
                tally.valid[label] += 1
                if 200 <= response.status_code < 300:
                    tally.reached[label] += 1
                else:
                    tally.refused[label][f"{response.status_code} {error_code(response)}"] += 1
            if response.status_code == 414 and "json" not in response.headers.get(
                    "Content-Type", ""):
                # gunicorn's limit on the request line (4094 bytes), before the app
                tally.server_414 += 1
                return
            try:
                case.validate_response(response, checks=checks, headers=headers)
            except (Exception, BaseExceptionGroup) as error:  # gathered, never shrunk
                kind = "5xx" if response.status_code >= 500 else "schema"
                found = re.findall(r"^- (.+)$", str(error), re.MULTILINE)
                tally.fail(kind, f"{label} {response.status_code} {found}",
                           f"{label} -> {response.status_code}: "
                           f"{' '.join(str(error).split())[:600]}\n    reproduce: "
                           f"{case.as_curl_command(headers=headers)[:600]}")

        began = time.monotonic()
        try:
            test()
        except OutOfTime:
            pass
        except hypothesis.errors.Unsatisfiable:
            pass  # nothing left to negate (e.g. GET /ping has no parameters)
        except Exception as error:
            if "cannot be negated" not in str(error).lower():
                raise
        finally:
            tally.seconds[label] += time.monotonic() - began

    # Rounds over every operation, so a run cut short by time still covers
    # them all; POST /answers (the one that verifies) gets the largest share.
    weight = {"POST /answers": 4}
    while tally.requests < target and time.monotonic() < deadline:
        before = tally.requests
        for pair in operations:
            share = weight.get(f"{pair[0].method.upper()} {pair[0].path}", 1)
            for operation, mode in zip(pair, by_mode, strict=True):
                run(operation, mode, 25 * share)
            # A random id is almost never one that exists: these also get
            # the seeded answer's or document's, the rest of the case generated.
            if pair[0].path in seeded_ids:
                run(pair[0], GenerationMode.POSITIVE, 10, {"id": seeded_ids[pair[0].path]})
        seed += 1
        if tally.requests == before:
            break
    return tally, time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000, help="at least this many")
    parser.add_argument("--seconds", type=float, default=180.0,
                        help="stop after this long (a minute is usual; more on a busy machine)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="why valid cases were refused, per operation")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else secrets.randbelow(2**32)

    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="citeguard-fuzz-") as tmp:
        folder = Path(tmp)
        with database(folder) as (label, url):
            env = server_env(folder, url)
            done = subprocess.run([sys.executable, "-c", SEED], cwd=ROOT, env=env,
                                  capture_output=True, text=True, timeout=300, check=False)
            if done.returncode:
                print(f"fuzz-api ({label}): seeding failed:\n{done.stderr[-3000:]}")
                return 1
            seeded = json.loads(done.stdout.strip().splitlines()[-1])
            # The production gunicorn configuration, without nginx: what the
            # fuzzer probes is the application, one worker at a time.
            with recipe.serve(env, folder / "serve", nginx=False, workers=1) as running:
                base = f"http://127.0.0.1:{running.port}"
                log = folder / "serve" / "gunicorn.log"
                wait_ready(base, seeded["token"], log)
                setup = time.monotonic() - began
                tally, seconds = fuzz(base, seeded["token"], seeded,
                                      target=args.requests, seconds=args.seconds, seed=seed)
                server_log = log.read_text(errors="replace")

    fives = sum(n for status, n in tally.statuses.items() if status >= 500)
    print(f"fuzz-api ({label}, Schemathesis, seed {seed}): {tally.requests} requests in "
          f"{seconds:.1f} s ({tally.waited:.1f} s waiting for the server; setup {setup:.1f} s); "
          f"5xx: {fives}")
    print("  statuses: " + ", ".join(f"{s}×{n}" for s, n in sorted(tally.statuses.items())))
    print("  reach (valid cases answered 2xx / valid cases sent), then all statuses:")
    for operation in sorted(tally.by_operation):
        statuses = ", ".join(f"{s}×{n}" for s, n in sorted(tally.by_operation[operation].items()))
        print(f"    {operation:<40} {tally.reached[operation]:>4}/{tally.valid[operation]:<4} "
              f"{statuses}" + (f" ({tally.seconds[operation]:.1f} s)" if args.verbose else ""))
        refused = tally.refused[operation].most_common(4)
        if refused and args.verbose:
            print("      valid but refused: " + ", ".join(f"{c}×{n}" for c, n in refused))
    if tally.server_414:
        print(f"  {tally.server_414} URLs over gunicorn's request-line limit got its 414 "
              "(not checked: the app never saw them)")
    problems = []
    if fives or tally.failures:
        problems.append("check failures: " + ", ".join(
            f"{kind} {n}" for kind, n in sorted(tally.failures.items())))
    if tally.requests < args.requests:
        problems.append(f"only {tally.requests} of {args.requests} requests within "
                        f"{args.seconds:.0f} s")
    if problems:
        print("FAILED: " + "; ".join(problems))
        print(f"  {len(tally.examples)} distinct:")
        for example in list(tally.examples.values())[:20]:
            print("  " + example)
        # The end of each distinct traceback in the server's log: where it broke.
        endings: dict[str, str] = {}  # the exception's line: the lines before it
        for block in re.split(r"\n(?=(?:INFO|WARNING|ERROR) )", server_log):
            lines = block.splitlines()
            if "Traceback (most recent call last):" in lines:
                last = max(i for i, line in enumerate(lines) if line[:1].isalpha())
                endings.setdefault(lines[last], "\n    ".join(lines[max(0, last - 3):last + 1]))
        for ending in list(endings.values())[:5]:
            print("  server: " + ending)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
