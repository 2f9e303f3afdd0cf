"""PDF extraction in a child process with a memory, CPU and wall-clock limit.

A hostile PDF (a page drawing millions of glyphs, a stream inflating to a
gigabyte) can make MuPDF allocate without end inside one C call, where no
Python check runs. :func:`extract_pdf_isolated` therefore runs
:func:`~reviewer.ingestion.extract.extract_pdf` in a child process that has

* ``RLIMIT_AS`` (address space): an allocation past it fails inside the child,
  which reports ``memory``, instead of the machine swapping (the interpreter
  and MuPDF map about 520 MiB before reading anything: the limit counts it);
* ``RLIMIT_CPU``: a child spinning past its time gets SIGXCPU from the kernel;
* ``PR_SET_PDEATHSIG``: the child is killed when its parent, the forkserver,
  dies, and the forkserver when the worker does (``_forkserver``), so a
  killed worker leaves no orphan reading on;
* a wall-clock limit: the parent SIGKILLs it at ``max_seconds`` plus a grace.

The child tells the page it is on through shared memory, so every failure
names the page. Children come from a ``forkserver`` that imported PyMuPDF
once, so a child costs a fork, not an interpreter start. No Django here.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from reviewer.ingestion.extract import (
    MAX_CHARS_PER_DOCUMENT,
    MAX_CHARS_PER_PAGE,
    DocumentGeometry,
    ExtractedDocument,
    ExtractionError,
    extract_pdf,
)

__all__ = ["MAX_MEMORY_BYTES", "IsolatedOutcome", "extract_pdf_isolated", "run_isolated"]

MAX_MEMORY_BYTES = 2 * 1024**3
#: Seconds past ``max_seconds`` before the parent kills the child: the child's
#: own clock (between and inside pages) should have stopped it first.
GRACE_SECONDS = 5.0
_PR_SET_PDEATHSIG = 1
_MIB = 1024 * 1024

_context = multiprocessing.get_context("forkserver")
# The forkserver dies with its worker (_forkserver) and imports this module
# (and so PyMuPDF) once; without the list it would also import the parent's
# __main__ (pytest, manage.py).
_context.set_forkserver_preload(["reviewer.ingestion._forkserver", __name__])


@dataclass(frozen=True, slots=True)
class IsolatedOutcome:
    """What the child did: a document or an error, with its cost."""

    document: ExtractedDocument | None
    error: ExtractionError | None
    peak_bytes: int  # the child's peak resident memory (0 when unknown)
    seconds: float


def extract_pdf_isolated(
    data: bytes, *, max_pages: int = 2000, max_seconds: float = 120.0,
    max_page_chars: int = MAX_CHARS_PER_PAGE,
    max_document_chars: int = MAX_CHARS_PER_DOCUMENT,
    max_memory_bytes: int = MAX_MEMORY_BYTES,
) -> ExtractedDocument:
    """:func:`extract_pdf` in a limited child process; the same result, or
    :class:`ExtractionError` (also ``memory``, ``timeout`` and ``crashed``)."""
    outcome = run_isolated(
        data, max_pages=max_pages, max_seconds=max_seconds, max_page_chars=max_page_chars,
        max_document_chars=max_document_chars, max_memory_bytes=max_memory_bytes,
    )
    if outcome.error is not None:
        raise outcome.error
    assert outcome.document is not None
    return outcome.document


def run_isolated(
    data: bytes, *, max_pages: int = 2000, max_seconds: float = 120.0,
    max_page_chars: int = MAX_CHARS_PER_PAGE,
    max_document_chars: int = MAX_CHARS_PER_DOCUMENT,
    max_memory_bytes: int = MAX_MEMORY_BYTES,
    grace_seconds: float = GRACE_SECONDS,
) -> IsolatedOutcome:
    """:func:`extract_pdf_isolated` with the child's peak memory and time."""
    started = time.monotonic()
    page = _context.Value("i", 0, lock=False)
    pages = _context.Value("i", 0, lock=False)
    receiver, sender = _context.Pipe(duplex=False)
    limits = {"max_pages": max_pages, "max_seconds": max_seconds,
              "max_page_chars": max_page_chars, "max_document_chars": max_document_chars}
    child = _context.Process(
        target=_child, args=(sender, bytes(data), limits, max_memory_bytes, page, pages),
        name="citeguard-extract", daemon=True,
    )
    child.start()
    sender.close()
    message: Any = None
    peak = 0
    killed = False
    try:
        # Read before joining: a big result fills the pipe, and the child
        # only exits once it has been read.
        if receiver.poll(max_seconds + grace_seconds):
            try:
                message = receiver.recv()
            except (EOFError, OSError):
                message = None  # the child died without a word
        if message is None:
            peak = _peak_of(child.pid)
        child.join(0 if message is None else grace_seconds)
        if child.is_alive():
            killed = message is None
            child.kill()
            child.join()
    finally:
        receiver.close()
        if child.is_alive():  # pragma: no cover - an exception in between
            child.kill()
            child.join()
    seconds = time.monotonic() - started
    where = _where(page.value, pages.value)
    if message is None:
        return IsolatedOutcome(None, _death(
            None if killed else child.exitcode, where, max_seconds, max_memory_bytes),
                               peak, seconds)
    status, payload, peak = message
    if status == "ok":
        text, geometry, lines = payload
        document = ExtractedDocument(
            text=text, geometry=DocumentGeometry.from_bytes(geometry), lines=lines)
        return IsolatedOutcome(document, None, peak, seconds)
    kind, text = payload
    if kind == "memory":
        text = _memory_sentence(max_memory_bytes, where)
    return IsolatedOutcome(None, ExtractionError(kind, text), peak, seconds)


def _where(page: int, pages: int) -> str:
    return f"at page {page} of {pages}" if page else "before its first page"


def _memory_sentence(limit: int, where: str) -> str:
    return (f"Reading this PDF needed more than the memory limit of {limit / _MIB:,.0f} MiB "
            f"(stopped {where}); it is built to exhaust the reader, or far larger than "
            "any document needs.")


def _death(exitcode: int | None, where: str, max_seconds: float, memory: int) -> ExtractionError:
    """The error for a child that ended without sending a result."""
    if exitcode in (None, -signal.SIGXCPU):
        # Killed by us at the wall-clock limit (None), or by the kernel at the CPU limit.
        return ExtractionError(
            "timeout", f"Reading this PDF took longer than {max_seconds:g} seconds "
            f"(stopped {where}).")
    if exitcode == _EXIT_MEMORY:
        return ExtractionError("memory", _memory_sentence(memory, where))
    cause = f"signal {-exitcode}" if exitcode < 0 else f"exit status {exitcode}"
    return ExtractionError(
        "crashed", f"The PDF reader stopped unexpectedly ({cause}, {where}); the file "
        "is probably malformed. Try re-saving it as PDF/A.")


def _peak_of(pid: int | None) -> int:
    """A live child's peak resident memory, from /proc (0 when gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


# ----------------------------------------------------------------- the child

_EXIT_MEMORY = 86  # out of memory even for sending the error


def _child(conn: Connection, data: bytes, limits: dict[str, Any], memory: int,
           page: Any, pages: Any) -> None:
    try:
        _die_with_parent()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = int(limits["max_seconds"]) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))

        def progress(number: int, total: int) -> None:
            pages.value = total
            page.value = number

        try:
            extracted = extract_pdf(data, progress=progress, **limits)
            del data
            try:
                payload: Any = (extracted.text, extracted.to_bytes(), extracted.lines)
            finally:
                extracted.geometry.close()
            status = "ok"
        except ExtractionError as error:
            status, payload = "error", (error.kind, error.message)
        except MemoryError:
            status, payload = "error", ("memory", "")
        conn.send((status, payload, _own_peak()))
    except MemoryError:
        os._exit(_EXIT_MEMORY)
    finally:
        conn.close()


def _die_with_parent() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before prctl: nobody waits for us
        os._exit(1)


def _own_peak() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
