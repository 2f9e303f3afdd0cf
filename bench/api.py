"""Benchmark of the answers API against a real server: POST /api/v1/answers as a
ratio to GET /api/v1/ping on the same server, in the same run.

Run from the repository root (gunicorn must be installed in the venv)::

    .venv/bin/python bench/api.py                  # SQLite and PostgreSQL, about 2.5 minutes
    .venv/bin/python bench/api.py --quick          # shorter phases, about 25 seconds
    .venv/bin/python bench/api.py --backend sqlite # or postgresql; --threads, --seed, ...

(Times on a 2-core machine with nothing else running; setup -- migrate, worker
boot -- takes longer on a busy one, the measured phases do not.)

The goal (ratio >= 0.5) says that verifying and storing an answer costs no more
than the HTTP round trip of an authenticated, trivial request.

For each backend the script builds a throwaway environment and removes it:

- SQLite: a temporary ``CITEGUARD_VAR_DIR`` with a fresh database.
- PostgreSQL: a fresh database ``citeguard_bench`` on 127.0.0.1:5432 (user
  ``postgres``, trust auth), dropped at the end; skipped with a message when the
  server is not reachable.

then runs the ``migrate`` and ``create_api_token bench`` management commands
(one interpreter, ``call_command``), and starts
``gunicorn reviewer.wsgi:application --workers 2`` (sync workers) on a
free port of 127.0.0.1 with DEBUG=0, a random SECRET_KEY, ALLOWED_HOSTS=127.0.0.1
and SECURE_SSL_REDIRECT=0; CONN_MAX_AGE is the settings' default (60: each
worker keeps its database connection) unless ``--conn-max-age`` says otherwise
(0: a connection per request, the old default); LOG_LEVEL is
left at INFO, so each stored answer writes its log line (to the server's log,
a file, summarised at the end with anything unexpected in it). The server is
always stopped (SIGTERM, then SIGKILL to its process group).

Load: ``--threads`` client threads (default 4), each with its own
``http.client`` connection to 127.0.0.1, sending requests back to back. Phases
alternate -- ping, answers, ping, answers, ... -- so that noise on the machine
hits both; each phase lasts a fixed time (and stops early at a request cap).
Then shorter alternating phases of ping and idempotent replays (POSTs of ids
already stored: the server parses the body, finds the answer and returns the
stored result), reported separately against the ping phases beside them. A
warm-up of each kind comes first and is not counted; its responses are parsed
to show the workload's outcomes.

The POST bodies: seeded, generated English prose laid out like extracted PDF
text (line breaks, ``ser-\\nvice`` hyphenation, soft hyphens, ligatures, smart
apostrophes, running headers), 5-10 inline sources of 1-4 KB each; 5-10 quoted
citations per answer, each exact (a verbatim span) or repaired (the clean copy:
hyphenation joined, ligatures expanded, whitespace collapsed, half of them with
one letter changed so they take the fuzzy path), and one citing a marker that
was never injected (fabricated). A unique ``id`` per request makes every POST
verify and store. ``--sources A-B`` and ``--quotes A-B`` change the answer's
size (``--sources 2-4 --quotes 2-4`` is a short answer) to show how the
ratio falls as an answer grows.

Reported: requests/s, p50/p95 latency, errors (any non-2xx or failed
connection; the first few bodies are printed), connections opened (gunicorn's
sync worker closes the connection after every response, so each request is a
new TCP connection on both endpoints), CPU per request of the server's
processes (gunicorn master and workers, from /proc; not PostgreSQL's) and of
this client, and the ratio answers/ping per
backend (over all phases, with the range over the alternating pairs).

This machine's cores are shared: the load generator runs beside the two
workers (and PostgreSQL), so the client threads are kept light (prebuilt
bodies, no response parsing in timed phases) and their CPU is reported.
"""

from __future__ import annotations

import argparse
import http.client
import itertools
import json
import os
import platform
import random
import re
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PG_HOST, PG_PORT, PG_USER, PG_DB = "127.0.0.1", 5432, "postgres", "citeguard_bench"
PING = "/api/v1/ping"
ANSWERS = "/api/v1/answers"
KINDS = ("ping", "answers", "replay-ping", "replays")
LABELS = {"ping": "GET ping", "answers": "POST answers (new id)",
          "replay-ping": "GET ping (beside replays)", "replays": "POST answers (replayed id)"}


@dataclass(frozen=True)
class Plan:
    warmup: float  # seconds per kind, not counted
    pairs: int  # ping + answers phases
    phase: float  # seconds per phase
    replay_pairs: int  # ping + replays phases
    replay: float  # seconds per phase of those
    cap: int  # requests per phase at most


PLANS = {
    "quick": Plan(warmup=0.5, pairs=2, phase=1.0, replay_pairs=1, replay=0.5, cap=20_000),
    "normal": Plan(warmup=1.5, pairs=5, phase=5.0, replay_pairs=2, replay=2.0, cap=200_000),
}


# -- Workload -------------------------------------------------------------------

_SLOTS: dict[str, tuple[str, ...]] = {
    "actor": ("The plan administrator", "Each department", "The employer", "The review board",
              "The benefits office", "Every contractor", "The insurer", "A participating clinic"),
    "must": ("must", "shall", "is required to", "will"),
    "action": ("notify the affected employees", "file a written report", "update the "
               "enrolment records", "confirm the diagnosis", "reimburse eligible expenses",
               "submit the certification", "inform the beneficiaries", "complete the "
               "financial review"),
    "num": ("two", "three", "five", "7", "10", "12", "14", "30", "45", "60", "90", "180"),
    "period": ("days", "weeks", "months", "years", "business days", "calendar days"),
    "event": ("the qualifying event", "the date of service", "the effective date",
              "enrolment", "the official notice", "the final decision", "the first claim"),
    "benefit": ("the employer match", "flexible spending accounts", "the tuition benefit",
                "paid family leave", "long-term disability coverage", "the wellness stipend",
                "supplemental life insurance", "the fitness allowance"),
    "group": ("seasonal staff", "part-time employees", "retired officers", "new hires",
              "contractors", "interns", "employees on approved leave"),
    "doc": ("policy", "handbook", "agreement", "guideline", "plan document", "procedure manual"),
    "org": ("agency", "department", "committee", "hospital", "office", "foundation"),
    "things": ("incidents", "complaints", "claims", "deficiencies", "findings", "referrals"),
    "pct": ("3", "4.5", "8", "12", "15", "20", "25", "50"),
    "year": ("2019", "2020", "2021", "2022", "2023", "2024"),
    "role": ("supervisor", "participant", "beneficiary", "clinician", "staff member", "manager"),
    "form": ("form HR-12", "a signed affidavit", "the official request form",
             "a certified copy of the record", "the reimbursement worksheet"),
    "office": ("benefits office", "compliance unit", "human resources department",
               "office of the inspector general", "finance committee"),
    "costs": ("tuition costs", "medical expenses", "childcare costs", "travel expenses",
              "certification fees"),
    "amount": ("500", "1,200", "2,500", "5,250", "10,000"),
    "unit": ("calendar year", "plan year", "semester", "claim", "quarter"),
    "sites": ("facilities", "offices", "clinics", "districts", "regional centres"),
    "finding": ("the controls were applied inconsistently", "staff were unaware of the "
                "revised procedure", "the backlog affected the efficiency of the review",
                "records were incomplete in several cases", "the official figures were "
                "reliable"),
    "freq": ("once daily", "twice daily", "every eight hours", "weekly"),
    "reason": ("enrolment declined sharply", "the previous system was unreliable",
               "federal guidance changed", "the financial outlook improved",
               "auditors identified gaps"),
    "change": ("suspend the programme", "extend the deadline", "revise the eligibility "
               "criteria", "consolidate the offices", "raise the contribution limit"),
    "month": ("January", "March", "April", "June", "September", "October", "December"),
    "day": ("1", "5", "15", "20", "30"),
    "topic": ("leave accrual", "conflicts of interest", "record retention", "travel "
              "reimbursement", "workplace safety", "the appeals process"),
}
# No negations: a verbatim quote that starts just after "not" is quote-altered
# by design, and this workload wants exact quotes to verify.
_TEMPLATES = (
    "{actor} {must} {action} within {num} {period} of {event}.",
    "Employees who have completed {num} {period} of continuous service are eligible for "
    "{benefit}.",
    "In {year}, the {org} reported {num} {things}, an increase of {pct} percent over the "
    "previous year.",
    "The {org} shall review the {doc} at least once every {num} {period} and publish its "
    "findings.",
    "A {role} may request an exception by submitting {form} to the {office}.",
    "Participants receive {pct} percent of eligible {costs}, up to a maximum of ${amount} per "
    "{unit}.",
    "These {things} were identified in {num} of the {sites} reviewed, which suggests that "
    "{finding}.",
    "For {group}, the recommended dose is {num} mg per kilogram, given {freq}.",
    "Because {reason}, the {org} has decided to {change} effective {month} {day}, {year}.",
    "The {office} confirmed that {finding}, and it will {action} before {month} {day}.",
    "Further guidance on {topic} is provided in section {num} of the {doc}.",
    "The {role}'s {doc} applies to {group} from the first day of the {unit}.",
    "Coverage under {benefit} continues for {num} {period} after {event}, provided the "
    "{office} receives {form}.",
)
_LIGATURES = (("ffi", "\ufb03"), ("ffl", "\ufb04"), ("ff", "\ufb00"), ("fi", "\ufb01"),
              ("fl", "\ufb02"))
_INTROS = ("The policy states", "According to the source,", "It notes that",
           "One passage reads:", "The document is explicit:", "The guidance says")
_QUESTIONS = ("What does the plan cover?", "When must the office be notified?",
              "Who is eligible for the benefit?", "What changed in the policy?")


def _sentence(rng: random.Random) -> str:
    text = re.sub(r"\{(\w+)\}", lambda m: rng.choice(_SLOTS[m.group(1)]),
                  rng.choice(_TEMPLATES))
    return text[0].upper() + text[1:]


def source_text(rng: random.Random, size: int) -> str:
    """About ``size`` characters of prose laid out as extracted PDF text."""
    words: list[str] = []
    length = 0
    while length < size:
        for word in _sentence(rng).split(" "):
            words.append(word)
            length += len(word) + 1
        if rng.random() < 0.2:
            words[-1] += " "  # a double space after the full stop
        if rng.random() < 0.12:
            words.append("\n")  # a paragraph break
    width = rng.randint(60, 95)
    header = f"{rng.choice(_SLOTS['doc']).title()} {rng.choice(_SLOTS['year'])}"
    lines: list[str] = []
    line = ""
    for word in words:
        if word == "\n":
            lines.append(line.rstrip())
            line = ""
            continue
        if line and len(line) + len(word) > width:
            core = word.rstrip(".,;")
            if len(core) >= 8 and core.isalpha() and rng.random() < 0.4:
                at = rng.randint(3, len(core) - 4)
                lines.append(line + word[:at] + ("\u00ad" if rng.random() < 0.15 else "-"))
                line = word[at:] + " "
                continue
            lines.append(line.rstrip())
            line = ""
            if len(lines) % 45 == 44:
                lines.append(f"{header}    Page {len(lines) // 45 + 1}")
        line += word + " "
    lines.append(line.rstrip())
    text = "\n".join(lines)[:size]
    if rng.random() < 0.6:
        for plain, ligature in _LIGATURES:
            text = text.replace(plain, ligature)
    if rng.random() < 0.8:
        text = re.sub(r"(?<=\w)'(?=\w)", "\u2019", text)
    return text


def pick_quote(rng: random.Random, text: str) -> str | None:
    """A verbatim span of 40-220 characters on whole words, not cut inside a
    hyphenated word and not crossing a running header."""
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
    for _ in range(50):
        first = rng.randrange(len(words))
        if first and text[words[first - 1][1] - 1] in "-\u00ad":
            continue
        target = words[first][0] + rng.randint(40, 220)
        last = first
        while last + 1 < len(words) and words[last + 1][1] <= target:
            last += 1
        span = text[words[first][0]:words[last][1]].rstrip(".,;:")
        if len(span) < 40 or span[-1] in "-\u00ad" or "Page " in span:
            continue
        return span
    return None


def repaired(rng: random.Random, span: str) -> str:
    """The clean copy a model writes; half of the time with one letter changed."""
    text = re.sub(r"(?<=[^\W\d_])[-\u00ad][ \t]*\n\s*(?=[^\W\d_])", "", span)
    text = text.replace("\u00ad", "").replace("\u2019", "'")
    for plain, ligature in _LIGATURES:
        text = text.replace(ligature, plain)
    text = re.sub(r"\s+", " ", text).strip()
    if rng.random() < 0.5:
        words = [m for m in re.finditer(r"\b[a-z]{6,}\b", text)]
        if words:
            word = rng.choice(words)
            at = word.start() + rng.randint(1, len(word.group(0)) - 2)
            text = text[:at] + rng.choice([c for c in "aeiourst" if c != text[at]]) + text[at + 1:]
    return text


@dataclass(frozen=True)
class Body:
    """A POST body with its ``id`` left out: ``PREFIX + id + suffix``."""

    suffix: bytes
    citations: int
    sources: int
    source_chars: int


PREFIX = b'{"id": "'


def build_body(rng: random.Random, sources_range: tuple[int, int] = (5, 10),
               quotes_range: tuple[int, int] = (5, 10)) -> Body:
    sources = [source_text(rng, rng.randint(1000, 4000))
               for _ in range(rng.randint(*sources_range))]
    sentences = ["Here is what the provided sources say."]
    n = rng.randint(*quotes_range)
    for i in range(n):
        label = rng.randrange(len(sources))
        quote = pick_quote(rng, sources[label])
        if quote is None:
            continue
        marker = f"S{label + 1}"
        if i == n - 1:
            marker = f"S{len(sources) + rng.randint(1, 5)}"  # never injected: fabricated
        elif rng.random() < 0.5:
            quote = repaired(rng, quote)
        sentences.append(f'{rng.choice(_INTROS)} "{quote}" [{marker}].')
    rest = {"model": "bench-model", "question": rng.choice(_QUESTIONS),
            "answer": " ".join(sentences),
            "sources": [{"marker": f"S{i + 1}", "text": t} for i, t in enumerate(sources)]}
    suffix = b'", ' + json.dumps(rest, ensure_ascii=False)[1:].encode()
    return Body(suffix, len(sentences) - 1, len(sources), sum(len(t) for t in sources))


# -- Servers --------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(var_dir: Path, database_url: str, conn_max_age: int | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in {"TASK_BACKEND", "PROMETHEUS_MULTIPROC_DIR", "MEDIA_ROOT", "STATIC_ROOT",
                        "METRICS_TOKEN", "DJANGO_SETTINGS_MODULE", "LOG_LEVEL", "CONN_MAX_AGE"}}
    env.update({
        "DATABASE_URL": database_url, "CITEGUARD_VAR_DIR": str(var_dir),
        "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1", "SECURE_SSL_REDIRECT": "0",
        "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "reviewer.settings",
    })
    if conn_max_age is not None:
        env["CONN_MAX_AGE"] = str(conn_max_age)
    return env


# ``manage.py migrate`` then ``manage.py create_api_token bench`` (whose stdout is
# the token), in one interpreter: each start imports Django and PyMuPDF (seconds).
SETUP = """
import io, django
django.setup()
from django.core.management import call_command
call_command("migrate", "--noinput", verbosity=0)
token, notice = io.StringIO(), io.StringIO()
call_command("create_api_token", "bench", stdout=token, stderr=notice)
print(token.getvalue().strip())
"""


def migrate_and_token(env: dict[str, str]) -> str:
    done = subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=180, check=False)
    if done.returncode or not done.stdout.strip():
        raise RuntimeError(f"migrate / create_api_token failed ({done.returncode}):\n"
                           f"{done.stderr.strip()[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


def postgres_admin(sql: str) -> None:
    import psycopg

    with psycopg.connect(host=PG_HOST, port=PG_PORT, user=PG_USER, dbname="postgres",
                         connect_timeout=3, autocommit=True) as conn:
        conn.execute(sql)


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    def cpu_seconds(self) -> float | None:
        """User + system CPU of the gunicorn master and its workers (Linux /proc)."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0
        try:
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    stat = Path(entry.path, "stat").read_text()
                except OSError:
                    continue
                fields = stat[stat.rindex(")") + 2:].split()
                pid, ppid = int(entry.name), int(fields[1])
                if self.process.pid in (pid, ppid):
                    total += int(fields[11]) + int(fields[12])
        except OSError:
            return None
        return total / tick


@contextmanager
def gunicorn(env: dict[str, str], folder: Path, worker_class: str) -> Iterator[Server]:
    port = free_port()
    log = folder / "gunicorn.log"
    with log.open("wb") as out:
        process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "reviewer.wsgi:application", "--workers", "2",
             "--worker-class", worker_class, "--bind", f"127.0.0.1:{port}",
             "--graceful-timeout", "5", "--timeout", "60", "--chdir", str(ROOT),
             "--no-control-socket"],  # gunicorn 27 would otherwise create ~/.gunicorn/
            cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    server = Server(process, port, log)
    try:
        yield server
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)  # the group this script started
                process.wait(timeout=5)


def wait_ready(server: Server, token: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {server.process.returncode}:\n"
                               + server.log.read_text(errors="replace")[-3000:])
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        try:
            conn.request("GET", PING, headers={"Authorization": f"Bearer {token}"})
            response = conn.getresponse()
            body = response.read()
            if response.status == 200:
                return
            last = f"HTTP {response.status}: {body[:300]!r}"
        except OSError as error:
            last = repr(error)
        finally:
            conn.close()
        time.sleep(0.2)
    raise RuntimeError(f"gunicorn did not answer {PING} within {timeout:.0f} s ({last})")


# -- Load -----------------------------------------------------------------------


class Connection(http.client.HTTPConnection):
    """An HTTPConnection that counts the TCP connections it opens."""

    opened = 0

    def connect(self) -> None:
        super().connect()
        self.opened += 1


@dataclass
class Phase:
    kind: str
    requests: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    error_count: int = 0
    connections: int = 0
    client_cpu: float = 0.0
    server_cpu: float | None = 0.0  # None: not measurable (no /proc)
    created: list[tuple[bytes, int]] = field(default_factory=list)
    outcomes: Counter[str] = field(default_factory=Counter)

    def merge(self, other: Phase) -> None:
        self.requests += other.requests
        self.seconds += other.seconds
        self.latencies += other.latencies
        self.statuses.update(other.statuses)
        self.errors += other.errors[: max(0, 5 - len(self.errors))]
        self.error_count += other.error_count
        self.connections += other.connections
        self.client_cpu += other.client_cpu
        if self.server_cpu is not None and other.server_cpu is not None:
            self.server_cpu += other.server_cpu
        else:
            self.server_cpu = None
        self.created += other.created
        self.outcomes.update(other.outcomes)

    @property
    def rate(self) -> float:
        return self.requests / self.seconds if self.seconds else 0.0


@dataclass
class Load:
    server: Server
    token: str
    bodies: list[Body]
    threads: int
    tag: str
    counter: Iterator[int] = field(default_factory=itertools.count)

    def phase(self, kind: str, seconds: float, cap: int, *, parse: bool = False,
              replay_ids: Sequence[tuple[bytes, int]] = ()) -> Phase:
        """``threads`` clients sending ``kind`` requests back to back for ``seconds``
        (at most ``cap`` requests in all)."""
        results = [Phase(kind) for _ in range(self.threads)]
        issued = itertools.count()
        auth = {"Authorization": f"Bearer {self.token}"}
        post = {**auth, "Content-Type": "application/json"}
        cpu_before = self.server.cpu_seconds()
        client_before = time.process_time()
        started = time.perf_counter()
        deadline = started + seconds

        def client(result: Phase) -> None:
            conn = Connection("127.0.0.1", self.server.port, timeout=30)
            try:
                while time.perf_counter() < deadline and next(issued) < cap:
                    n = next(self.counter)
                    if kind == "ping":
                        method, path, body, headers = "GET", PING, None, auth
                    else:
                        if kind == "answers":
                            ident, index = f"{self.tag}-{n}".encode(), n % len(self.bodies)
                        else:
                            ident, index = replay_ids[n % len(replay_ids)]
                        method, path, headers = "POST", ANSWERS, post
                        body = PREFIX + ident + self.bodies[index].suffix
                    began = time.perf_counter()
                    try:
                        conn.request(method, path, body=body, headers=headers)
                        response = conn.getresponse()
                        data = response.read()
                    except (OSError, http.client.HTTPException) as error:
                        conn.close()
                        result.error_count += 1
                        if len(result.errors) < 5:
                            result.errors.append(f"{method} {path}: {error!r}")
                        continue
                    result.latencies.append(time.perf_counter() - began)
                    result.requests += 1
                    result.statuses[response.status] += 1
                    if not 200 <= response.status < 300:
                        result.error_count += 1
                        if len(result.errors) < 5:
                            result.errors.append(f"{method} {path}: HTTP {response.status}: "
                                                 f"{data[:400].decode(errors='replace')}")
                    elif kind == "answers" and response.status == 201:
                        result.created.append((ident, index))
                    if parse and kind != "ping" and 200 <= response.status < 300:
                        report = json.loads(data)
                        result.outcomes.update({k: v for k, v in report["counts"].items() if v})
                        result.outcomes[f"verdict {report['verdict']}"] += 1
                        result.outcomes[f"action {report['action']}"] += 1
            finally:
                result.connections = conn.opened
                conn.close()

        workers = [threading.Thread(target=client, args=(r,), daemon=True) for r in results]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(timeout=seconds + 60)
        total = Phase(kind)
        for result in results:
            total.merge(result)
        total.seconds = time.perf_counter() - started
        total.client_cpu = time.process_time() - client_before
        cpu_after = self.server.cpu_seconds()
        total.server_cpu = (cpu_after - cpu_before
                            if cpu_before is not None and cpu_after is not None else None)
        return total


# -- Report ---------------------------------------------------------------------


def percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else 0.0


def table(header: Sequence[str], rows: Sequence[Sequence[object]], indent: str = "  ") -> None:
    """A plain text table: first column left-aligned, the rest right-aligned."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for n, row in enumerate(cells):
        padded = [c.ljust(w) if i == 0 else c.rjust(w)
                  for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        print(indent + "  ".join(padded).rstrip())
        if n == 0:
            print(indent + "  ".join("-" * w for w in widths))


def per_request_ms(seconds: float | None, requests: int) -> str:
    return f"{1000 * seconds / requests:.2f}" if seconds is not None and requests else "-"


ROUTINE = re.compile(r"\[INFO\] (Starting gunicorn|Listening at|Using worker|Booting worker|"
                     r"Handling signal|Worker exiting|Shutting down)|"
                     r'^INFO citeguard\.checks \{"action".*"event": "answer-verified"')


def server_log_summary(log: Path) -> list[str]:
    lines = log.read_text(errors="replace").splitlines()
    verified = sum('"event": "answer-verified"' in line for line in lines)
    booted = sum("Booting worker" in line for line in lines)
    other = [line for line in lines if not ROUTINE.search(line)]
    out = [f"server log: {len(lines)} lines: {verified} per-answer 'answer-verified' INFO "
           f"lines, {booted} worker boots (2 expected), {len(other)} other lines (not routine "
           "start/stop)"]
    out += [f"    | {line[:300]}" for line in other[:40]]
    if len(other) > 40:
        out.append(f"    | ... {len(other) - 40} more")
    return out


@dataclass
class Result:
    backend: str
    totals: dict[str, Phase]
    pair_ratios: list[float]
    warm: Phase
    log: list[str]
    load_note: str
    setup_seconds: float
    total_seconds: float


def run_backend(backend: str, plan: Plan, args: argparse.Namespace,
                bodies: list[Body]) -> Result | str:
    """The measurements for one backend, or why it was skipped."""
    began = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="citeguard-bench-api-") as folder_name:
        folder = Path(folder_name)
        if backend == "postgresql":
            try:
                postgres_admin(f"DROP DATABASE IF EXISTS {PG_DB} WITH (FORCE)")
                postgres_admin(f"CREATE DATABASE {PG_DB}")
            except Exception as error:  # not installed, not running, no access
                return (f"PostgreSQL skipped: not reachable at {PG_HOST}:{PG_PORT} as "
                        f"{PG_USER} ({type(error).__name__}: {' '.join(str(error).split())[:200]})")
            url = f"postgres://{PG_USER}@{PG_HOST}:{PG_PORT}/{PG_DB}"
        else:
            url = f"sqlite:///{folder / 'citeguard.sqlite3'}"
        try:
            env = server_env(folder, url, args.conn_max_age)
            token = migrate_and_token(env)
            with gunicorn(env, folder, args.worker_class) as server:
                wait_ready(server, token)
                setup = time.perf_counter() - began
                tag = f"{backend}-{secrets.token_hex(4)}"
                load = Load(server, token, bodies, args.threads, tag)
                load.phase("ping", plan.warmup, plan.cap)
                warm = load.phase("answers", plan.warmup, plan.cap, parse=True)
                totals = {kind: Phase(kind) for kind in KINDS}
                ratios = []
                for _ in range(plan.pairs):
                    ping = load.phase("ping", plan.phase, plan.cap)
                    answers = load.phase("answers", plan.phase, plan.cap)
                    totals["ping"].merge(ping)
                    totals["answers"].merge(answers)
                    if ping.rate:
                        ratios.append(answers.rate / ping.rate)
                stored = totals["answers"].created or warm.created
                if stored:
                    for _ in range(plan.replay_pairs):
                        totals["replay-ping"].merge(load.phase("ping", plan.replay, plan.cap))
                        totals["replays"].merge(load.phase("replays", plan.replay, plan.cap,
                                                           replay_ids=stored))
            log = server_log_summary(server.log)
        finally:
            if backend == "postgresql":
                try:
                    postgres_admin(f"DROP DATABASE IF EXISTS {PG_DB} WITH (FORCE)")
                except Exception as error:
                    print(f"  warning: could not drop database {PG_DB}: {error}")
    load_note = f"{args.threads} client threads back to back against 2 {args.worker_class} workers"
    return Result(backend, totals, ratios, warm, log, load_note, setup,
                  time.perf_counter() - began)


def describe_workload(bodies: list[Body]) -> None:
    sizes = [len(PREFIX) + 20 + len(b.suffix) for b in bodies]
    print(f"Workload: {len(bodies)} distinct answers (each POST gets a fresh id): "
          f"{statistics.mean(b.citations for b in bodies):.1f} quoted citations "
          f"(min {min(b.citations for b in bodies)}, max {max(b.citations for b in bodies)}; "
          f"one with a fabricated marker), {statistics.mean(b.sources for b in bodies):.1f} "
          f"inline sources of {statistics.mean(b.source_chars / b.sources for b in bodies):,.0f}"
          f" characters on average; body {statistics.median(sizes) / 1000:.1f} KB median, "
          f"{max(sizes) / 1000:.1f} KB max.")


def report(result: Result, plan: Plan) -> None:
    print(f"\n{result.backend}: {result.total_seconds:.1f} s in all, of which setup "
          f"(database, migrate, token, server start) {result.setup_seconds:.1f} s; warm-up "
          f"{plan.warmup:g} s of each kind, then {plan.pairs} x (ping {plan.phase:g} s, answers "
          f"{plan.phase:g} s) alternating, then {plan.replay_pairs} x (ping {plan.replay:g} s, "
          f"replays {plan.replay:g} s).\n  Closed loop: "
          f"{result.load_note}.")
    rows = []
    for kind in KINDS:
        p = result.totals[kind]
        phases = plan.pairs if kind in ("ping", "answers") else plan.replay_pairs
        rows.append([LABELS[kind], phases, f"{p.seconds:.1f}", p.requests, f"{p.rate:,.1f}",
                     f"{1000 * percentile(p.latencies, 0.5):.1f}",
                     f"{1000 * percentile(p.latencies, 0.95):.1f}",
                     p.error_count, p.connections, per_request_ms(p.server_cpu, p.requests),
                     per_request_ms(p.client_cpu, p.requests),
                     ", ".join(f"{s}: {n}" for s, n in sorted(p.statuses.items()))])
    table(["endpoint", "phases", "s", "requests", "req/s", "p50 ms", "p95 ms", "errors",
           "connections", "server CPU ms/req", "client CPU ms/req", "statuses"], rows)
    if result.warm.outcomes:
        mix = result.warm.outcomes
        print("  Warm-up POSTs (" + str(result.warm.requests) + ", parsed): "
              + ", ".join(f"{k} {v}" for k, v in sorted(mix.items())))
    for kind in KINDS:
        for error in result.totals[kind].errors:
            print(f"  error ({kind}): {error}")
    for line in result.log:
        print("  " + line)


def summary(results: list[Result]) -> None:
    print("\nRatio of throughputs (requests/s over all phases of the kind; the range is over "
          "the alternating pairs)")
    rows = []
    for r in results:
        ping, posts = r.totals["ping"], r.totals["answers"]
        answers = posts.rate / ping.rate if ping.rate else 0.0
        beside = r.totals["replay-ping"].rate
        replays = r.totals["replays"].rate / beside if beside else 0.0
        cpu = "-"
        if ping.server_cpu and posts.server_cpu and ping.requests and posts.requests:
            cpu = f"{(ping.server_cpu / ping.requests) / (posts.server_cpu / posts.requests):.2f}"
        rows.append([r.backend, f"{answers:.2f}",
                     f"{min(r.pair_ratios):.2f}-{max(r.pair_ratios):.2f}" if r.pair_ratios
                     else "-", cpu, f"{replays:.2f}", ">= 0.5",
                     "yes" if answers >= 0.5 else "NO"])
    table(["backend", "answers/ping", "per pair", "server CPU per request, ping/answers",
           "replays/ping", "goal", "met"], rows)
    print("  The goal is on answers/ping (throughput). The CPU column divides the server's CPU "
          "per ping by its CPU\n  per POST (gunicorn master and workers, from /proc; the "
          "database's own processes are not in it).\n  replays/ping is against the ping "
          "phases run beside the replay phases.")


def span(text: str) -> tuple[int, int]:
    """'5-10' as (5, 10); '3' as (3, 3)."""
    low, _, high = text.partition("-")
    bounds = (int(low), int(high or low))
    if not 1 <= bounds[0] <= bounds[1]:
        raise argparse.ArgumentTypeError(f"{text!r} is not a range like 5-10")
    return bounds


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="citeguard answers API benchmark")
    parser.add_argument("--quick", action="store_true", help="short phases (under 30 s)")
    parser.add_argument("--backend", choices=("both", "sqlite", "postgresql"), default="both")
    parser.add_argument("--threads", type=int, default=4, help="client threads (default 4)")
    parser.add_argument("--seed", type=int, default=20240601, help="workload seed")
    parser.add_argument("--sources", type=span, default=(5, 10), metavar="A-B",
                        help="inline sources per answer (default 5-10)")
    parser.add_argument("--quotes", type=span, default=(5, 10), metavar="A-B",
                        help="quoted citations per answer, the last fabricated (default 5-10)")
    parser.add_argument("--conn-max-age", type=int, default=None,
                        help="CONN_MAX_AGE for the server (default: the settings' own, 60)")
    parser.add_argument("--worker-class", default="sync",
                        help="gunicorn worker class (default sync)")
    args = parser.parse_args(argv)
    plan = PLANS["quick" if args.quick else "normal"]
    began = time.perf_counter()
    try:
        import gunicorn as gunicorn_package
    except ImportError:
        print("gunicorn is not installed: .venv/bin/pip install gunicorn==27.0.1")
        return 2
    import django

    cpus = os.cpu_count() or 1
    print(f"citeguard answers API benchmark: {'quick' if args.quick else 'normal'} run, "
          f"seed {args.seed}")
    conn_max_age = "60 (the settings' default)" if args.conn_max_age is None else args.conn_max_age
    print(f"Python {platform.python_version()}, Django {django.__version__}, gunicorn "
          f"{gunicorn_package.__version__} ({args.worker_class} worker class, 2 workers), "
          f"CONN_MAX_AGE={conn_max_age}, "
          f"{args.threads} client threads, {cpus} CPUs, "
          f"{platform.machine()}")
    print(f"Note: the load generator runs on the same {cpus} CPU(s) as the 2 server workers "
          "(and the database); its CPU per request is shown.\nThroughputs are therefore "
          "for this shared machine; the ratio is what compares.")
    rng = random.Random(args.seed)
    bodies = [build_body(rng, args.sources, args.quotes) for _ in range(64)]
    describe_workload(bodies)
    backends = ("sqlite", "postgresql") if args.backend == "both" else (args.backend,)
    results: list[Result] = []
    failed = False
    for backend in backends:
        try:
            outcome = run_backend(backend, plan, args, bodies)
        except RuntimeError as error:  # setup failed or the server did not start
            print(f"\n{backend}: FAILED: {error}")
            failed = True
            continue
        if isinstance(outcome, str):
            print(f"\n{outcome}")
            continue
        results.append(outcome)
        report(outcome, plan)
    if results:
        summary(results)
    print(f"\nWall time {time.perf_counter() - began:.0f} s.")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
