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
* a wall-clock limit: the parent SIGKILLs it at ``max_seconds`` plus a grace,
  plus OCR's allowance for each page the child has begun to OCR.

A page without a text layer is OCR'd by the ``tesseract`` program, which the
child starts (:mod:`~reviewer.ingestion.ocr`): it inherits ``RLIMIT_AS``, is
killed with the child (its own ``PR_SET_PDEATHSIG``) and at the child's
deadline (its timeout is the time left).

The child tells the page it is on (and whether it is OCR'ing it) through
shared memory, so every failure names the page, and ``on_progress`` in the
parent hears of each page while the child works. Children come from a
``forkserver`` that imported PyMuPDF once, so a child costs a fork, not an
interpreter start. No Django here.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import resource
import signal
import time
from collections.abc import Callable
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
from reviewer.ingestion.ocr import OcrOptions

__all__ = ["MAX_MEMORY_BYTES", "IsolatedOutcome", "extract_pdf_isolated", "run_isolated"]

MAX_MEMORY_BYTES = 2 * 1024**3
#: Seconds past ``max_seconds`` before the parent kills the child: the child's
#: own clock (between and inside pages) should have stopped it first.
GRACE_SECONDS = 5.0
#: How often the parent looks at the child's page while it waits.
PROGRESS_SECONDS = 0.5
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
    ocr: OcrOptions | None = OcrOptions(),  # noqa: B008 - frozen, shared safely
    on_progress: Callable[[int, int, bool], None] | None = None,
) -> ExtractedDocument:
    """:func:`extract_pdf` in a limited child process; the same result, or
    :class:`ExtractionError` (also ``memory``, ``timeout`` and ``crashed``).
    ``on_progress(page, pages, ocr)`` is called in this process when the
    child moves to another page (at most every :data:`PROGRESS_SECONDS`)."""
    outcome = run_isolated(
        data, max_pages=max_pages, max_seconds=max_seconds, max_page_chars=max_page_chars,
        max_document_chars=max_document_chars, max_memory_bytes=max_memory_bytes, ocr=ocr,
        on_progress=on_progress,
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
    ocr: OcrOptions | None = OcrOptions(),  # noqa: B008 - frozen, shared safely
    on_progress: Callable[[int, int, bool], None] | None = None,
) -> IsolatedOutcome:
    """:func:`extract_pdf_isolated` with the child's peak memory and time."""
    started = time.monotonic()
    page = _context.Value("i", 0, lock=False)
    pages = _context.Value("i", 0, lock=False)
    ocr_begun = _context.Value("i", 0, lock=False)  # pages the child has begun to OCR
    on_ocr_page = _context.Value("i", 0, lock=False)  # 1 while the page is OCR'd
    receiver, sender = _context.Pipe(duplex=False)
    limits = {"max_pages": max_pages, "max_seconds": max_seconds,
              "max_page_chars": max_page_chars, "max_document_chars": max_document_chars,
              "ocr": ocr}
    child = _context.Process(
        target=_child, args=(sender, bytes(data), limits, max_memory_bytes, page, pages,
                             ocr_begun, on_ocr_page),
        name="citeguard-extract", daemon=True,
    )
    child.start()
    sender.close()
    message: Any = None
    peak = 0
    killed = False
    allowance = ocr.seconds_per_page if ocr is not None else 0.0
    told = (0, 0, 0)
    try:
        # Read before joining: a big result fills the pipe, and the child
        # only exits once it has been read.
        while True:
            # Each page the child OCRs moves its deadline on, and so ours.
            left = (started + max_seconds + ocr_begun.value * allowance + grace_seconds
                    - time.monotonic())
            if left <= 0:
                break
            done = receiver.poll(min(left, PROGRESS_SECONDS))
            # Told before the result too: a page read between two polls (its
            # number, then that it was OCR'd) is still heard, last state included.
            now = (page.value, pages.value, on_ocr_page.value)
            if on_progress is not None and now != told and now[0]:
                told = now
                on_progress(now[0], now[1], bool(now[2]))
            if done:
                try:
                    message = receiver.recv()
                except (EOFError, OSError):
                    message = None  # the child died without a word
                break
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
    in_ocr = bool(on_ocr_page.value)
    if message is None:
        limit = max_seconds + ocr_begun.value * allowance
        return IsolatedOutcome(None, _death(
            None if killed else child.exitcode, where, limit, max_memory_bytes,
            ocr=_ocr_where(page.value, pages.value) if in_ocr else ""), peak, seconds)
    status, payload, peak = message
    if status == "ok":
        text, geometry, lines, report = payload
        document = ExtractedDocument(
            text=text, geometry=DocumentGeometry.from_bytes(geometry), lines=lines, ocr=report)
        return IsolatedOutcome(document, None, peak, seconds)
    kind, text = payload
    if kind == "memory":
        text = _memory_sentence(max_memory_bytes, where,
                                ocr=_ocr_where(page.value, pages.value) if in_ocr else "")
    return IsolatedOutcome(None, ExtractionError(kind, text), peak, seconds)


def _where(page: int, pages: int) -> str:
    return f"at page {page} of {pages}" if page else "before its first page"


def _ocr_where(page: int, pages: int) -> str:
    return f"OCR of page {page} of {pages}"


def _memory_sentence(limit: int, where: str, *, ocr: str = "") -> str:
    if ocr:
        return (f"{ocr} needed more than the memory limit of {limit / _MIB:,.0f} MiB; the "
                "scan is far larger than a page needs to be.")
    return (f"Reading this PDF needed more than the memory limit of {limit / _MIB:,.0f} MiB "
            f"(stopped {where}); it is built to exhaust the reader, or far larger than "
            "any document needs.")


def _death(exitcode: int | None, where: str, max_seconds: float, memory: int, *,
           ocr: str = "") -> ExtractionError:
    """The error for a child that ended without sending a result (``ocr``
    names the page when it was being OCR'd)."""
    if exitcode in (None, -signal.SIGXCPU):
        # Killed by us at the wall-clock limit (None), or by the kernel at the CPU limit.
        if ocr:
            return ExtractionError("timeout", f"{ocr} stopped at the {max_seconds:g}-second "
                                   "limit (the document's, plus OCR's allowance per page).")
        return ExtractionError(
            "timeout", f"Reading this PDF took longer than {max_seconds:g} seconds "
            f"(stopped {where}).")
    if exitcode == _EXIT_MEMORY:
        return ExtractionError("memory", _memory_sentence(memory, where, ocr=ocr))
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
           page: Any, pages: Any, ocr_begun: Any, on_ocr_page: Any) -> None:
    try:
        _die_with_parent()
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        # CPU time is counted for this process only (not the OCR program's),
        # against the longest the wall clock can allow.
        ocr: OcrOptions | None = limits["ocr"]
        most = limits["max_seconds"] + (ocr.max_pages * ocr.seconds_per_page if ocr else 0)
        cpu = int(most) + 2
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 2))

        def progress(number: int, total: int, ocr_page: bool = False) -> None:
            pages.value = total
            page.value = number
            on_ocr_page.value = int(ocr_page)
            if ocr_page:
                ocr_begun.value += 1

        try:
            extracted = extract_pdf(data, progress=progress, **limits)
            del data
            try:
                payload: Any = (extracted.text, extracted.to_bytes(), extracted.lines,
                                extracted.ocr)
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
