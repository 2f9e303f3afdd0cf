"""CITEGUARD_CACHE=redis: one cache for every app server and worker, so what
one process works out (a surface's calibration recommendation) another reads;
the default stays each process's memory, and a wrong choice is a sentence."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _redis_problem() -> str:
    try:
        import redis

        redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0"),
                             socket_connect_timeout=1).ping()
    except Exception as error:  # no server: say so, as the suite does for other services
        return f"Redis is not reachable ({error}); .ci/run starts it"
    return ""


def _in_another_process(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "DJANGO_SETTINGS_MODULE": "reviewer.settings", "DEBUG": "1",
                   **env}
    script = "import django; django.setup()\nfrom django.core.cache import cache\n" + code
    return subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=environment,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.skipif(bool(_redis_problem()), reason=_redis_problem() or "-")
def test_with_redis_a_value_one_process_caches_another_reads() -> None:
    key, value = f"test-{uuid.uuid4().hex}", uuid.uuid4().hex
    wrote = _in_another_process(f"cache.set({key!r}, {value!r}, 60)", CITEGUARD_CACHE="redis")
    assert wrote.returncode == 0, wrote.stderr
    read = _in_another_process(f"print(cache.get({key!r}))", CITEGUARD_CACHE="redis")
    assert read.stdout.strip() == value
    # Each process's own memory (the default) shares nothing.
    local = _in_another_process(f"print(cache.get({key!r}))")
    assert local.stdout.strip() == "None"


def test_an_unknown_cache_choice_is_refused_with_a_sentence() -> None:
    result = _in_another_process("", CITEGUARD_CACHE="memcached")
    assert result.returncode != 0
    assert ("CITEGUARD_CACHE='memcached': choose 'local' (each process's memory, the default) "
            "or 'redis' (shared, at REDIS_URL)") in result.stderr
