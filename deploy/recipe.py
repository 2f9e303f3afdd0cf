"""The production recipe on loopback: nginx (deploy/nginx.conf) in front of
gunicorn (deploy/gunicorn.conf.py), with DEBUG=0 and collected static files.

Run it from the repository root to try production settings by hand::

    .venv/bin/python deploy/recipe.py                 # http://127.0.0.1:8080/, Ctrl-C stops
    .venv/bin/python deploy/recipe.py --port 9000 --workers 3 --var-dir /tmp/cg

tests/deploy and bench/load.py use `prepare` and `serve`. Nothing needs root:
nginx runs in the foreground (`daemon off`) from a config generated into a
temporary prefix that also holds its pid, logs and buffers; gunicorn listens
on another loopback port. Both are stopped on exit (SIGTERM, then SIGKILL to
the process group this module started).
"""

from __future__ import annotations

import argparse
import http.client
import os
import secrets
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
# Answered without a database or a token: a worker is up and Django loaded.
READY_PATH = "/api/v1/openapi.json"


def nginx_binary() -> str | None:
    """Debian's nginx (bin/setup installs it); /usr/sbin is not on every PATH."""
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def server_env(var_dir: Path, database_url: str | None = None,
               extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """Production settings for a throwaway run: its own var folder (SQLite there
    unless `database_url`), a random SECRET_KEY, no TLS on loopback."""
    # The caller's settings, and what a test process sets for itself (the
    # browser tests' DJANGO_ALLOW_ASYNC_UNSAFE, which production must not run
    # with and check --deploy refuses), are not the servers'.
    dropped = {"DATABASE_URL", "TASK_BACKEND", "PROMETHEUS_MULTIPROC_DIR", "MEDIA_ROOT",
               "STATIC_ROOT", "METRICS_TOKEN", "DJANGO_SETTINGS_MODULE", "DEBUG",
               "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    env.update({
        "CITEGUARD_VAR_DIR": str(var_dir), "STATIC_ROOT": str(var_dir / "static"),
        "DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "127.0.0.1,localhost", "SECURE_SSL_REDIRECT": "0",
        "TRUST_X_FORWARDED_PROTO": "1",
        "PYTHONUNBUFFERED": "1", "DJANGO_SETTINGS_MODULE": "reviewer.settings",
    })
    if database_url:
        env["DATABASE_URL"] = database_url
    env.update(extra or {})
    return env


# migrate, collectstatic and (optionally) an API token in one interpreter:
# each start imports Django and PyMuPDF.
PREPARE = """
import io, sys, django
django.setup()
from django.core.management import call_command
if "migrate" in sys.argv:
    call_command("migrate", "--noinput", verbosity=0)
call_command("collectstatic", "--noinput", verbosity=0)
if len(sys.argv) > 2 and sys.argv[2]:
    token = io.StringIO()
    call_command("create_api_token", sys.argv[2], stdout=token, stderr=io.StringIO())
    print(token.getvalue().strip().splitlines()[-1])
"""


def prepare(env: Mapping[str, str], *, migrate: bool = True, token_name: str = "") -> str:
    """Collects static files (and migrates, and makes a token when named);
    returns the token or ''."""
    args = [sys.executable, "-c", PREPARE, "migrate" if migrate else "-", token_name]
    done = subprocess.run(args, cwd=ROOT, env=dict(env), capture_output=True, text=True,
                          timeout=300, check=False)
    if done.returncode:
        raise RuntimeError(f"prepare failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return done.stdout.strip().splitlines()[-1] if token_name else ""


def nginx_config(prefix: Path, listen: str, upstream: str | Sequence[str],
                 max_body_bytes: int, certificate: tuple[Path, Path] | None = None) -> str:
    """deploy/nginx.conf filled in; with several upstream addresses (app
    servers), its ``server @UPSTREAM@`` line is repeated for each. With a
    `certificate` (its PEM file and key) nginx speaks TLS on `listen`."""
    text = (DEPLOY / "nginx.conf").read_text()
    addresses = [upstream] if isinstance(upstream, str) else list(upstream)
    text = "".join(
        "".join(line.replace("@UPSTREAM@", address) for address in addresses)
        if "@UPSTREAM@" in line else line
        for line in text.splitlines(keepends=True))
    fields = {
        # As root, nginx would hand its workers to `nobody`, who cannot read
        # this run's temporary folder; as anyone else the line is ignored.
        "USER": "user root;" if os.geteuid() == 0 else "",
        "DAEMON": "off", "PREFIX": str(prefix),
        "LISTEN": f"{listen} ssl" if certificate else listen,
        "TLS": (f"ssl_certificate {certificate[0]}; ssl_certificate_key {certificate[1]};"
                if certificate else ""),
        "CLIENT_MAX_BODY_SIZE": str(max_body_bytes),
    }
    for name, value in fields.items():
        text = text.replace(f"@{name}@", value)
    return text


def max_body_bytes(env: Mapping[str, str]) -> int:
    """The app's largest request (an upload) plus room for the multipart envelope."""
    upload = int(env.get("CITEGUARD_MAX_UPLOAD_BYTES", 50 * 1024 * 1024))
    payload = int(env.get("CITEGUARD_MAX_PAYLOAD_BYTES", 4 * 1024 * 1024))
    return max(upload, payload) + 1024 * 1024


@dataclass
class Running:
    port: int  # where clients connect: nginx, or gunicorn itself without nginx
    gunicorn_port: int
    gunicorn: subprocess.Popen[bytes]
    nginx: subprocess.Popen[bytes] | None
    folder: Path  # logs: gunicorn.log, nginx/error.log, nginx/access.log

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"


def stop(process: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    """Ends a process this module started (in its own session): `sig`, then
    SIGKILL to its whole process group if it has not gone within 15 s."""
    if process.poll() is None:
        process.send_signal(sig)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)  # the group this module started
            process.wait(timeout=5)


def connection(port: int, *, tls: bool = False,
               timeout: float = 5.0) -> http.client.HTTPConnection:
    """A connection to 127.0.0.1:`port`; with `tls`, HTTPS that takes a
    loopback run's self-signed certificate."""
    if tls:
        return http.client.HTTPSConnection("127.0.0.1", port, timeout=timeout,
                                           context=ssl._create_unverified_context())
    return http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 and localhost, valid two days, and its key
    (openssl), so a loopback run serves HTTPS as production does."""
    folder.mkdir(parents=True, exist_ok=True)
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"],
                   check=True, capture_output=True, timeout=60)
    return cert, key


def wait_http(port: int, processes: Sequence[subprocess.Popen[bytes]], logs: Sequence[Path],
              timeout: float = 60.0, path: str = READY_PATH, tls: bool = False) -> None:
    """Waits until `path` answers 200 on `port`; raises with the logs' tails
    if one of `processes` exits first."""
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        for process in processes:
            if process.poll() is not None:
                tails = "\n".join(log.read_text(errors="replace")[-2000:]
                                  for log in logs if log.exists())
                raise RuntimeError(f"{process.args[0]} exited ({process.returncode}):\n{tails}")
        conn = connection(port, tls=tls)
        try:
            conn.request("GET", path)
            response = conn.getresponse()
            response.read()
            if response.status == 200:
                return
            last = f"HTTP {response.status}"
        except OSError as error:
            last = repr(error)
        finally:
            conn.close()
        time.sleep(0.2)
    raise RuntimeError(f"no answer on port {port} within {timeout:.0f} s ({last})")


def start_gunicorn(env: Mapping[str, str], log: Path, port: int,
                   workers: int | None = None) -> subprocess.Popen[bytes]:
    """gunicorn with deploy/gunicorn.conf.py on 127.0.0.1:`port`, in its own
    session (so its workers can be stopped as one group), output to `log`."""
    command = [sys.executable, "-m", "gunicorn", "-c", str(DEPLOY / "gunicorn.conf.py"),
               "--bind", f"127.0.0.1:{port}", "--chdir", str(ROOT)]
    if workers:
        command += ["--workers", str(workers)]
    command.append("reviewer.wsgi:application")
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("ab") as out:
        return subprocess.Popen(command, cwd=ROOT, env=dict(env), stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)


def start_nginx(env: Mapping[str, str], prefix: Path, port: int, upstream: str | Sequence[str],
                certificate: tuple[Path, Path] | None = None) -> subprocess.Popen[bytes]:
    """nginx in the foreground from deploy/nginx.conf, filled in under
    `prefix` (which also holds its pid, logs and buffers)."""
    binary = nginx_binary()
    if binary is None:
        raise RuntimeError("nginx is not installed (bin/setup installs Debian's nginx)")
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(nginx_config(prefix, f"127.0.0.1:{port}", upstream, max_body_bytes(env),
                                 certificate))
    with (prefix / "stderr.log").open("ab") as err:
        return subprocess.Popen([binary, "-p", str(prefix), "-c", str(conf),
                                 "-e", str(prefix / "error.log")],
                                cwd=prefix, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)


@contextmanager
def serve(env: Mapping[str, str], folder: Path, *, nginx: bool = True,
          workers: int | None = None, port: int | None = None) -> Iterator[Running]:
    """gunicorn with deploy/gunicorn.conf.py, behind nginx unless `nginx=False`
    (then clients talk to gunicorn directly, for comparison)."""
    if nginx and nginx_binary() is None:
        raise RuntimeError("nginx is not installed (bin/setup installs Debian's nginx)")
    folder.mkdir(parents=True, exist_ok=True)
    gunicorn_port = free_port() if nginx else (port or free_port())
    with ExitStack() as stack:
        log = folder / "gunicorn.log"
        app = start_gunicorn(env, log, gunicorn_port, workers)
        stack.callback(stop, app)
        proxy = None
        front = gunicorn_port
        logs = [log]
        if nginx:
            front = port or free_port()
            proxy = start_nginx(env, folder / "nginx", front, f"127.0.0.1:{gunicorn_port}")
            logs.append(folder / "nginx" / "error.log")
            # SIGTERM: nginx's fast shutdown (SIGQUIT would wait for slow clients).
            stack.callback(stop, proxy)
        wait_http(gunicorn_port, [p for p in (app, proxy) if p], logs)
        if proxy:
            wait_http(front, [app, proxy], logs)
        yield Running(front, gunicorn_port, app, proxy, folder)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def stop_on_sigterm() -> None:
    """SIGTERM stops the servers like Ctrl-C does, instead of orphaning them."""
    signal.signal(signal.SIGTERM, _interrupt)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080, help="nginx's port on 127.0.0.1")
    parser.add_argument("--workers", type=int, help="gunicorn workers (default 2 x cores + 1)")
    parser.add_argument("--var-dir", type=Path,
                        help="database, media and static files (default: a temporary folder)")
    parser.add_argument("--no-nginx", action="store_true", help="gunicorn alone, on --port")
    args = parser.parse_args(argv)
    stop_on_sigterm()
    with ExitStack() as stack:
        var_dir = args.var_dir or Path(stack.enter_context(
            tempfile.TemporaryDirectory(prefix="citeguard-recipe-")))
        var_dir.mkdir(parents=True, exist_ok=True)
        env = server_env(var_dir.resolve())
        print(f"migrate and collectstatic into {var_dir} ...", flush=True)
        prepare(env)
        with serve(env, var_dir / "run", nginx=not args.no_nginx, workers=args.workers,
                   port=args.port) as running:
            print(f"serving {running.url}/ (logs in {running.folder}); Ctrl-C stops", flush=True)
            try:
                while running.gunicorn.poll() is None and (
                        running.nginx is None or running.nginx.poll() is None):
                    time.sleep(1)
            except KeyboardInterrupt:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
