"""The whole production cluster on loopback: nginx over two app servers
(gunicorn A and B), two task workers (``manage.py rqworker``), a fresh
PostgreSQL database, a Redis of its own with the append-only file on, and an
S3-compatible store (moto's server) with a bucket.

Run it from the repository root to try it by hand::

    .venv/bin/python deploy/cluster.py              # http://127.0.0.1:8090/, Ctrl-C stops
    .venv/bin/python deploy/cluster.py --port 9000 --app-workers 3

tests/cluster and the benches use ``cluster()``, a context manager yielding a
``Cluster`` whose parts (``app_a``, ``app_b``, ``worker_1``, ``worker_2``,
``redis``, ``s3``, ``nginx``) can each be killed, stopped and started again.
Every process gets the same production environment (``recipe.server_env``:
DEBUG off, one SECRET_KEY), plus its own ``PROMETHEUS_MULTIPROC_DIR`` as it
would on its own host. Nothing needs root; everything lives in one temporary
folder, and on exit every process is stopped (the ones a test killed too),
the database dropped and the folder removed (unless it was given).

PostgreSQL is the machine's (127.0.0.1:5432, user postgres, trust): the
cluster creates a database named ``citeguard_cluster_<random>`` and drops it.
Redis is its own ``redis-server`` on a free port, never the machine's.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: deploy/ is on sys.path, the root is not
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from deploy import recipe

ROOT = recipe.ROOT
POSTGRES_URL = "postgres://postgres@127.0.0.1:5432"
DATABASE_PREFIX = "citeguard_cluster_"
BUCKET = "citeguard-cluster"
# moto accepts any credentials; these only have to be the same everywhere.
S3_CREDENTIALS = {"AWS_ACCESS_KEY_ID": "citeguard-cluster",
                  "AWS_SECRET_ACCESS_KEY": "citeguard-cluster", "AWS_S3_REGION_NAME": "us-east-1"}
WORKER_COMMAND = ["manage.py", "rqworker", "--with-scheduler", "default"]


def session_members(sid: int) -> set[int]:
    """Live processes of session `sid`. Each part is started in a session of
    its own, which every process under it keeps: RQ's work-horse leaves its
    worker's process group (setpgrp) but not its session, and a child
    orphaned by a killed parent keeps it too."""
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        # fields: state, ppid, pgrp, session, ...
        if int(fields[3]) == sid and fields[0] != "Z":
            found.add(int(entry.name))
    return found


def kill_session(sid: int, sig: int = signal.SIGKILL) -> set[int]:
    """Sends `sig` to every process of session `sid` (a host's worth of
    processes dying at once); returns their ids."""
    members = session_members(sid)
    for pid in members:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
    return members


class Part:
    """One process of the cluster, with every process it starts: stopped
    politely, killed outright, started again with the same command, port and
    environment."""

    def __init__(self, name: str, launch: Callable[[], subprocess.Popen[bytes]],
                 ready: Callable[[Part], None], *, port: int | None = None,
                 log: Path | None = None, stop_seconds: float = 30) -> None:
        self.name, self.port, self.log = name, port, log
        self._launch, self._ready, self._stop_seconds = launch, ready, stop_seconds
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def __repr__(self) -> str:
        where = f" on 127.0.0.1:{self.port}" if self.port else ""
        return f"<{self.name}{where} pid {self.pid}>"

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process else None

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def members(self) -> set[int]:
        return session_members(self.process.pid) if self.process else set()

    def start(self, *, wait: bool = True) -> None:
        if self.running:
            raise RuntimeError(f"{self.name} is already running")
        self.starts += 1
        self.process = self._launch()
        if wait:
            self.wait_ready()

    def wait_ready(self) -> None:
        self._ready(self)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """`sig` (SIGTERM: each program's own clean shutdown), then SIGKILL
        for whatever of its session is left after `stop_seconds`."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=self._stop_seconds)
        self.kill()

    def kill(self) -> set[int]:
        """kill -9 of the part's whole session, as if its host died; returns
        the ids killed."""
        if self.process is None:
            return set()
        killed = kill_session(self.process.pid)
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()
        self.process.wait(timeout=10)
        deadline = time.monotonic() + 10
        while session_members(self.process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return killed | {self.process.pid}

    def restart(self) -> None:
        self.stop()
        self.start()

    def _check_alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            tail = self.log.read_text(errors="replace")[-3000:] if self.log else ""
            raise RuntimeError(f"{self.name} exited ({self.process.returncode}):\n{tail}")


class S3Store:
    """moto's S3 server in this process (ThreadedMotoServer): its objects live
    in this process's memory, so stopping the server (the store is away:
    connections are refused) and starting it again on the same port keeps
    the bucket and everything in it, as a real store's restart would."""

    name = "s3"

    def __init__(self, port: int) -> None:
        self.port = port
        self._server: Any = None
        self.starts = 0

    def __repr__(self) -> str:
        return f"<s3 (moto) on 127.0.0.1:{self.port}, in process {os.getpid()}>"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._server is not None

    def start(self) -> None:
        import logging

        from moto.server import ThreadedMotoServer

        # werkzeug logs every request moto serves; errors are enough.
        logging.getLogger("werkzeug").setLevel(logging.ERROR)
        if self._server is not None:
            raise RuntimeError("s3 is already running")
        self.starts += 1
        self._server = ThreadedMotoServer(ip_address="127.0.0.1", port=self.port, verbose=False)
        self._server.start()

    def stop(self) -> None:
        if self._server is None:
            return
        server, self._server = self._server, None
        server.stop()
        # ThreadedMotoServer.stop() ends its loop but keeps the socket
        # listening: connections would hang unanswered instead of being
        # refused, and the port could not be bound again.
        server._server.server_close()

    kill = stop

    def restart(self) -> None:
        self.stop()
        self.start()

    def create_bucket(self, name: str) -> None:
        import boto3

        boto3.client("s3", endpoint_url=self.url,
                     aws_access_key_id=S3_CREDENTIALS["AWS_ACCESS_KEY_ID"],
                     aws_secret_access_key=S3_CREDENTIALS["AWS_SECRET_ACCESS_KEY"],
                     region_name=S3_CREDENTIALS["AWS_S3_REGION_NAME"]).create_bucket(Bucket=name)


@dataclass
class Cluster:
    folder: Path
    env: dict[str, str]  # every process's environment (each adds its metrics folder)
    database: str
    database_url: str
    redis_url: str
    media_root: Path  # must stay empty: every file is in the bucket
    token: str  # an API token of the default workspace
    nginx: Part
    app_a: Part
    app_b: Part
    worker_1: Part
    worker_2: Part
    redis: Part
    s3: S3Store
    _db: Any = field(default=None, repr=False)
    _db_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def url(self) -> str:
        """nginx, in front of both app servers (HTTPS, a self-signed certificate)."""
        return f"https://127.0.0.1:{self.nginx.port}"

    @property
    def app_servers(self) -> list[Part]:
        return [self.app_a, self.app_b]

    @property
    def workers(self) -> list[Part]:
        return [self.worker_1, self.worker_2]

    @property
    def parts(self) -> list[Part | S3Store]:
        return [self.nginx, self.app_a, self.app_b, self.worker_1, self.worker_2,
                self.redis, self.s3]

    def busy_workers(self) -> list[Part]:
        """The workers that RQ says are running a job now."""
        import redis

        client = redis.Redis.from_url(self.redis_url)
        return [part for part in self.workers if part.running
                and client.hget(f"rq:worker:{rq_name(part)}", "state") == b"busy"]

    def host_env(self, name: str) -> dict[str, str]:
        """The environment of the part `name`, as on a host of its own."""
        metrics = self.folder / "metrics" / name
        metrics.mkdir(parents=True, exist_ok=True)
        return {**self.env, "PROMETHEUS_MULTIPROC_DIR": str(metrics)}

    def manage(self, *args: str, timeout: float = 300) -> str:
        """``manage.py ARGS`` with the cluster's environment; its stdout."""
        done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT,
                              env=self.host_env("manage"), capture_output=True, text=True,
                              timeout=timeout, check=False)
        if done.returncode:
            raise RuntimeError(f"manage.py {' '.join(args)} failed ({done.returncode}):\n"
                               f"{done.stderr[-3000:]}")
        return done.stdout

    def create_token(self, name: str, workspace: str = "") -> str:
        args = ["create_api_token", name] + (["--workspace", workspace] if workspace else [])
        return self.manage(*args).strip().splitlines()[-1]

    def login_session(self, username: str, role: str = "reviewer") -> str:
        """A user with `role` in the default workspace, logged in: the value
        of the ``sessionid`` cookie (sessions live in the database, so every
        app server knows it)."""
        code = (
            "from django.contrib.auth import get_user_model\n"
            "from django.contrib.auth.models import Group\n"
            "from django.test import Client\n"
            "from reviewer.models import Workspace\n"
            f"user = get_user_model().objects.create_user({username!r})\n"
            f"user.groups.add(Group.objects.get(name={role!r}))\n"
            "Workspace.objects.default().users.add(user)\n"
            "client = Client()\n"
            "client.force_login(user)\n"
            "print(client.cookies['sessionid'].value)\n")
        return self.manage("shell", "--no-imports", "-c", code).strip().splitlines()[-1]

    def query(self, sql: str, *params: object) -> list[tuple[Any, ...]]:
        """Rows of `sql` on the cluster's database (one connection, autocommit)."""
        import psycopg

        with self._db_lock:
            if self._db is None or self._db.closed:
                self._db = psycopg.connect(self.database_url, autocommit=True)
            with self._db.cursor() as cursor:
                cursor.execute(sql, params or None)
                return cursor.fetchall() if cursor.description else []

    def close_db(self) -> None:
        with self._db_lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    def describe(self) -> str:
        lines = [f"nginx        {self.url}/  (pid {self.nginx.pid})"]
        for part in (self.app_a, self.app_b):
            lines.append(f"{part.name:<12} http://127.0.0.1:{part.port}/  (gunicorn, pid "
                         f"{part.pid}; as nginx, send X-Forwarded-Proto: https)")
        for part in self.workers:
            lines.append(f"{part.name:<12} {' '.join(WORKER_COMMAND)}  (pid {part.pid})")
        lines += [
            f"redis        {self.redis_url}  (pid {self.redis.pid}, appendonly, "
            f"dir {self.folder / 'redis'})",
            f"s3           {self.s3.url}  bucket {BUCKET}  (moto, in this process)",
            f"postgresql   {self.database_url}  (dropped at exit)",
            f"logs         {self.folder / 'logs'}",
        ]
        return "\n".join(lines)


def cluster_env(folder: Path, database_url: str, redis_url: str, s3_url: str,
                extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every part runs with: the recipe's production settings
    (DEBUG off, a random SECRET_KEY, no TLS on loopback) on PostgreSQL, with
    the Redis queue and cache, the S3 store, and a MEDIA_ROOT nothing may use."""
    return recipe.server_env(folder / "var", database_url, extra={
        # nginx terminates TLS (a self-signed certificate) and says so in
        # X-Forwarded-Proto: the hardening is production's, and
        # `check --deploy` has nothing to say.
        "SECURE_SSL_REDIRECT": "1", "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1", "SECURE_HSTS_PRELOAD": "1",
        "CITEGUARD_TASKS": "redis", "REDIS_URL": redis_url, "CITEGUARD_CACHE": "redis",
        "CITEGUARD_STORAGE": "s3", "AWS_STORAGE_BUCKET_NAME": BUCKET,
        "AWS_S3_ENDPOINT_URL": s3_url, **S3_CREDENTIALS,
        "MEDIA_ROOT": str(folder / "media"),
        # Behind one nginx: login throttling counts the address it saw.
        "TRUSTED_PROXY_COUNT": "1",
        "METRICS_TOKEN": secrets.token_urlsafe(24),
        **(extra or {}),
    })


def _create_database(admin_url: str) -> str:
    import psycopg

    name = DATABASE_PREFIX + secrets.token_hex(4)
    with psycopg.connect(f"{admin_url}/postgres", autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def _drop_database(admin_url: str, name: str) -> None:
    import psycopg

    assert name.startswith(DATABASE_PREFIX), name  # never any other database
    with psycopg.connect(f"{admin_url}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _redis_ready(part: Part) -> None:
    import redis

    client = redis.Redis(host="127.0.0.1", port=part.port, socket_connect_timeout=1)
    deadline = time.monotonic() + 30
    while True:
        part._check_alive()
        try:
            # Loading the append-only file answers LOADING until done.
            if client.ping():
                return
        except redis.RedisError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.05)


def _app_ready(part: Part) -> None:
    """/healthz: answered by every gunicorn worker once Django is loaded,
    before the HTTPS redirect (the app servers speak plain HTTP to nginx)."""
    assert part.process is not None and part.port is not None and part.log is not None
    recipe.wait_http(part.port, [part.process], [part.log], path="/healthz")


def _nginx_ready(part: Part) -> None:
    assert part.process is not None and part.port is not None and part.log is not None
    recipe.wait_http(part.port, [part.process], [part.log], path="/healthz", tls=True)


def rq_name(part: Part) -> str:
    """The name a worker registers with RQ: a new one each start, since a
    killed worker's name stays registered until its key expires."""
    return f"{part.name}-{part.starts}"


def _worker_ready(redis_url: str) -> Callable[[Part], None]:
    """Ready once registered with RQ (it then takes jobs)."""

    def ready(part: Part) -> None:
        import redis

        client = redis.Redis.from_url(redis_url)
        deadline = time.monotonic() + 60
        name = f"rq:worker:{rq_name(part)}"
        while not client.exists(name):
            part._check_alive()
            if time.monotonic() > deadline:
                raise RuntimeError(f"{part.name} did not register with RQ within 60 s")
            time.sleep(0.1)

    return ready


def _popen(command: list[str], env: Mapping[str, str], log: Path,
           cwd: Path = ROOT) -> subprocess.Popen[bytes]:
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=cwd, env=dict(env), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


@contextmanager
def cluster(folder: Path | None = None, *, port: int | None = None, app_workers: int = 2,
            extra_env: Mapping[str, str] | None = None,
            postgres_url: str = POSTGRES_URL) -> Iterator[Cluster]:
    """The whole cluster, up and answering ``/readyz`` through nginx; every
    part stopped, the database dropped (and the folder removed unless given)
    on exit, whatever happened inside."""
    for program in ("redis-server", "openssl"):
        if shutil.which(program) is None:
            raise RuntimeError(f"{program} is not installed (bin/setup installs it)")
    if recipe.nginx_binary() is None:
        raise RuntimeError("nginx is not installed (bin/setup installs Debian's nginx)")
    with ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(
                prefix="citeguard-cluster-")))
        folder = folder.resolve()
        logs = folder / "logs"
        media_root = folder / "media"
        for path in (logs, media_root, folder / "redis"):
            path.mkdir(parents=True, exist_ok=True)

        database = _create_database(postgres_url)
        stack.callback(_drop_database, postgres_url, database)
        database_url = f"{postgres_url}/{database}"

        redis_port, s3_port = recipe.free_port(), recipe.free_port()
        redis_url = f"redis://127.0.0.1:{redis_port}/0"
        redis_part = Part(
            "redis", lambda: _popen(
                ["redis-server", "--bind", "127.0.0.1", "--port", str(redis_port),
                 "--dir", str(folder / "redis"), "--appendonly", "yes",
                 "--appendfsync", "everysec", "--save", "", "--daemonize", "no"],
                {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}, logs / "redis.log",
                cwd=folder / "redis"),
            _redis_ready, port=redis_port, log=logs / "redis.log")
        stack.callback(redis_part.stop)
        redis_part.start()

        s3 = S3Store(s3_port)
        stack.callback(s3.stop)
        s3.start()
        s3.create_bucket(BUCKET)

        env = cluster_env(folder, database_url, redis_url, s3.url, extra_env)
        token = recipe.prepare(env, token_name="cluster")

        nginx_port = port or recipe.free_port()
        ports = {"app-a": recipe.free_port(), "app-b": recipe.free_port()}
        the = Cluster(folder=folder, env=env, database=database, database_url=database_url,
                      redis_url=redis_url, media_root=media_root, token=token,
                      nginx=None, app_a=None, app_b=None, worker_1=None,  # type: ignore[arg-type]
                      worker_2=None, redis=redis_part, s3=s3)  # type: ignore[arg-type]
        stack.callback(the.close_db)

        def app(name: str) -> Part:
            log = logs / f"{name}.log"
            return Part(name, lambda: recipe.start_gunicorn(the.host_env(name), log,
                                                            ports[name], app_workers),
                        _app_ready, port=ports[name], log=log)

        def worker(name: str) -> Part:
            log = logs / f"{name}.log"
            part: Part

            def launch() -> subprocess.Popen[bytes]:
                return _popen([sys.executable, *WORKER_COMMAND, "--name", rq_name(part)],
                              the.host_env(name), log)

            # Warm shutdown finishes the job in hand; past 30 s it is killed
            # (the job is then abandoned and another worker runs it again).
            part = Part(name, launch, _worker_ready(redis_url), log=log)
            return part

        the.app_a, the.app_b = app("app-a"), app("app-b")
        the.worker_1, the.worker_2 = worker("worker-1"), worker("worker-2")
        upstreams = [f"127.0.0.1:{ports['app-a']}", f"127.0.0.1:{ports['app-b']}"]
        nginx_log = folder / "nginx" / "error.log"
        certificate = recipe.self_signed_certificate(folder / "tls")
        the.nginx = Part("nginx", lambda: recipe.start_nginx(env, folder / "nginx", nginx_port,
                                                             upstreams, certificate),
                         _nginx_ready, port=nginx_port, log=nginx_log)
        # Stopped in reverse: nginx first, then the app servers and workers,
        # then Redis and the store (above), then the database is dropped.
        for part in (the.worker_2, the.worker_1, the.app_b, the.app_a, the.nginx):
            stack.callback(part.stop)
        for part in (the.app_a, the.app_b, the.worker_1, the.worker_2, the.nginx):
            part.start(wait=False)  # all at once: each spends seconds importing Django
        for part in (the.app_a, the.app_b, the.worker_1, the.worker_2, the.nginx):
            part.wait_ready()
        recipe.wait_http(nginx_port, [the.nginx.process], [nginx_log],  # type: ignore[list-item]
                         path="/readyz", tls=True)
        yield the


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8090, help="nginx's port on 127.0.0.1")
    parser.add_argument("--app-workers", type=int, default=2,
                        help="gunicorn workers in each app server (default 2)")
    args = parser.parse_args(argv)
    recipe.stop_on_sigterm()
    print("starting PostgreSQL database, Redis, S3 (moto), 2 app servers, 2 workers, nginx ...",
          flush=True)
    with cluster(port=args.port, app_workers=args.app_workers) as running:
        print(running.describe())
        print(f"API token (default workspace): {running.token}")
        print(f"add a user: DATABASE_URL={running.database_url} .venv/bin/python manage.py "
              "createsuperuser  (any host's settings work: the database is shared)")
        print("Ctrl-C stops everything and drops the database", flush=True)
        try:
            while all(part.running for part in running.parts):
                time.sleep(1)
            print("a part exited: " + ", ".join(
                part.name for part in running.parts if not part.running), flush=True)
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
