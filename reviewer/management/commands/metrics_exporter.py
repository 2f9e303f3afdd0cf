"""Serve a task-worker host's metrics to Prometheus: what every process on
this host counted in PROMETHEUS_MULTIPROC_DIR (RQ's work-horses, one a job),
summed by prometheus_client's multiprocess collector, over plain HTTP at
``--bind``. An app host needs none: its ``/metrics`` serves its folder."""

from __future__ import annotations

import os
import threading
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from prometheus_client import CollectorRegistry, multiprocess, start_http_server


class Command(BaseCommand):
    help = "Serve the metrics the processes of this host counted (PROMETHEUS_MULTIPROC_DIR)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--bind", default="127.0.0.1:9108",
                            help="address:port to listen on (default 127.0.0.1:9108)")

    def handle(self, *args: Any, **options: Any) -> None:
        folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
        if not folder or not os.path.isdir(folder):
            raise CommandError("PROMETHEUS_MULTIPROC_DIR must name this host's metrics folder "
                               "(the one its task workers write to)")
        address, _, port = str(options["bind"]).rpartition(":")
        if not port.isdigit():
            raise CommandError(f"--bind {options['bind']!r}: expected address:port")
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        server, _ = start_http_server(int(port), addr=address or "127.0.0.1",
                                      registry=registry)
        self.stdout.write(f"serving {folder}'s metrics at "
                          f"http://{address or '127.0.0.1'}:{server.server_port}/metrics",
                          ending="\n")
        self.stdout.flush()
        try:
            threading.Event().wait()  # until the process is stopped
        finally:
            server.shutdown()
