"""Watching and killing real processes from a test: the tree under a pid
(read from /proc), whether one is still alive, and waiting on a condition.
Used by the tests that SIGKILL a worker mid-task, as a dead host would."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path


def descendants(pid: int) -> set[int]:
    """Every process under ``pid`` (a worker's work-horse, the forkserver and
    its extraction children)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier}
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def kill_tree(pid: int) -> set[int]:
    """SIGKILL ``pid`` and every process under it, whatever process group
    they moved to (RQ's work-horse calls setpgrp); returns the pids."""
    doomed = {pid, *descendants(pid)}
    for each in doomed:
        with contextlib.suppress(ProcessLookupError):
            os.kill(each, signal.SIGKILL)
    return doomed


def wait_for(condition: Callable[[], object], seconds: float, what: str,
             poll: float = 0.05) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {seconds:g} s for {what}")
        time.sleep(poll)
