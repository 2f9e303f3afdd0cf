"""Costly verifications take turns on a host.

The work budget bounds one answer (about a second and a half of CPU at the
default), but a few clients sending such answers back to back would still
hold every worker and core, and everyone else would wait behind them. An
answer whose alignment work could pass ``HEAVY_VERIFY_WORK`` is therefore
verified only in one of ``HEAVY_VERIFY_SLOTS`` slots: advisory file locks
(``flock``) under ``HEAVY_VERIFY_LOCK_DIR``, shared by every worker process on
the host and released by the kernel if a worker dies. With no slot free the
answer is refused at once (503, Retry-After), never queued: a waiting request
would hold its worker just the same.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings

__all__ = ["SlotsBusy", "heavy_slot"]


class SlotsBusy(Exception):
    """Every slot for costly verifications is taken."""

    def __init__(self, work: int, slots: int) -> None:
        super().__init__(
            f"This answer's verification could cost {work:,} units of alignment work, over "
            f"{int(settings.CITEGUARD['HEAVY_VERIFY_WORK']):,}; such answers are verified "
            f"{slots} at a time on this server, and all {slots} slots are busy. Retry in a "
            "second, or send shorter quotes or smaller sources.")


@contextmanager
def heavy_slot(work: int) -> Iterator[None]:
    """Hold a slot while verifying an answer of (at most) ``work``, if it is
    costly; cheap answers pass straight through."""
    threshold = int(settings.CITEGUARD["HEAVY_VERIFY_WORK"])
    slots = int(settings.CITEGUARD["HEAVY_VERIFY_SLOTS"])
    if threshold <= 0 or work < threshold:
        yield
        return
    folder = Path(settings.CITEGUARD["HEAVY_VERIFY_LOCK_DIR"])
    folder.mkdir(parents=True, exist_ok=True)
    for slot in range(slots):
        fd = os.open(folder / f"heavy-verify-{slot}.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            continue
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
        return
    raise SlotsBusy(work, slots)
