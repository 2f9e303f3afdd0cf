"""Costly verifications take turns, across every app server.

The work budget bounds one answer (about a second and a half of CPU at the
default), but a few clients sending such answers back to back would still
hold every worker and core, and everyone else would wait behind them. An
answer whose alignment work could pass ``HEAVY_VERIFY_WORK`` is therefore
verified only in one of ``HEAVY_VERIFY_SLOTS`` slots. With no slot free the
answer is refused at once (503, Retry-After), never queued: a waiting request
would hold its worker just the same.

Where the slots are: on PostgreSQL, which every app server shares, a slot is
a session advisory lock (``pg_try_advisory_lock``), so the limit holds for the
whole cluster, and a holder that crashes loses its connection and with it the
lock. On the embedded SQLite database (one host by nature) a slot is an
advisory file lock (``flock``) under ``HEAVY_VERIFY_LOCK_DIR``, shared by every
worker process on the host and released by the kernel if a worker dies.
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings
from django.db import connection

__all__ = ["SlotsBusy", "heavy_slot"]


class SlotsBusy(Exception):
    """Every slot for costly verifications is taken."""

    def __init__(self, work: int, slots: int, where: str = "on this server") -> None:
        super().__init__(
            f"This answer's verification could cost {work:,} units of alignment work, over "
            f"{int(settings.CITEGUARD['HEAVY_VERIFY_WORK']):,}; such answers are verified "
            f"{slots} at a time {where}, and all {slots} slots are busy. Retry in a "
            "second, or send shorter quotes or smaller sources.")


#: The first key of the two-key advisory locks that are the slots (the slot's
#: number is the second): a constant no other lock of this database uses.
ADVISORY_LOCK_SPACE = 0x43474856  # "CGHV"


@contextmanager
def heavy_slot(work: int) -> Iterator[None]:
    """Hold a slot while verifying an answer of (at most) ``work``, if it is
    costly; cheap answers pass straight through."""
    threshold = int(settings.CITEGUARD["HEAVY_VERIFY_WORK"])
    slots = int(settings.CITEGUARD["HEAVY_VERIFY_SLOTS"])
    if threshold <= 0 or work < threshold:
        yield
        return
    if connection.vendor == "postgresql":
        with _advisory_slot(work, slots):
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


@contextmanager
def _advisory_slot(work: int, slots: int) -> Iterator[None]:
    """One of ``slots`` PostgreSQL session advisory locks, taken without
    waiting. Session locks outlive transactions, so the slot is held around
    the verification whatever the request does with the database meanwhile,
    and given back when it ends (or when the connection dies with its holder)."""
    held = None
    with connection.cursor() as cursor:
        for slot in range(slots):
            cursor.execute("SELECT pg_try_advisory_lock(%s, %s)", [ADVISORY_LOCK_SPACE, slot])
            if cursor.fetchone()[0]:
                held = slot
                break
    if held is None:
        raise SlotsBusy(work, slots, "across all app servers")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_unlock(%s, %s)", [ADVISORY_LOCK_SPACE, held])
