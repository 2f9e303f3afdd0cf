"""gunicorn's settings in production: `gunicorn -c deploy/gunicorn.conf.py reviewer.wsgi`.

Sync workers, behind a buffering proxy (deploy/nginx.conf). A sync worker
serves one request at a time, from the first header byte to the last response
byte, so on its own it is held by any client that sends or reads slowly:
four connections trickling their headers hold four workers until `timeout`
kills them (bench/load.py shows it). nginx takes that off the workers: it reads
the whole request (headers and body) before it opens the upstream connection,
and takes the whole response into its buffers, so a worker only ever talks to
nginx over loopback at full speed. Citeguard's work is CPU (verification,
PDF ingestion), where threads or an event loop would add no throughput under
the GIL, and a request that overruns is best ended by killing its process,
which only the sync and process-per-request models do cleanly.

The settings read from GUNICORN_* environment variables below can be
changed without editing this file.
"""

import multiprocessing
import os

bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")
worker_class = "sync"
# gunicorn's rule of thumb: with CPU-bound requests, about two per core keeps
# the cores busy while another waits on the database or the disk.
workers = int(os.environ.get("GUNICORN_WORKERS", 2 * multiprocessing.cpu_count() + 1))
# A request still running after this is killed (its worker restarts): the
# verification budget keeps an answer far below it, and nginx's
# proxy_read_timeout is a little longer, so the client gets gunicorn's answer.
timeout = int(os.environ.get("GUNICORN_TIMEOUT", 30))
# On a restart (SIGHUP, deploy), requests in flight get this long to finish.
graceful_timeout = int(os.environ.get("GUNICORN_GRACEFUL_TIMEOUT", 20))
# nginx opens a connection per request to the upstream (no keepalive there):
# a short keepalive only matters to a client talking to gunicorn directly.
keepalive = 2
# Same limits as nginx's large_client_header_buffers (deploy/nginx.conf): a
# longer request line or header is refused before Django sees it.
limit_request_line = 4094
limit_request_fields = 100
limit_request_field_size = 8190
# A worker that slowly grows (PyMuPDF's caches, fragmentation) is replaced
# now and then; the jitter keeps workers from restarting all at once.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", 2000))
max_requests_jitter = 200
# X-Forwarded-Proto and -For are believed only from the proxy on this host.
forwarded_allow_ips = os.environ.get("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1,::1")
# gunicorn 27 would otherwise create a control socket under ~/.gunicorn/.
control_socket_disable = True
accesslog = os.environ.get("GUNICORN_ACCESSLOG") or None
errorlog = "-"


# prometheus_client's multiprocess mode (PROMETHEUS_MULTIPROC_DIR): each
# worker writes its counts to files there and /metrics sums them. The folder
# must start empty (counts of an earlier run would be added in), and a worker
# gunicorn retires has its live gauges dropped.
def on_starting(server):
    folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if folder:
        os.makedirs(folder, exist_ok=True)
        for name in os.listdir(folder):
            if name.endswith(".db"):
                os.remove(os.path.join(folder, name))


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
