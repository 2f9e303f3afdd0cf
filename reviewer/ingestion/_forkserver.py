"""Imported by the sandbox's forkserver process only (its first preload):
the forkserver is killed when the worker that started it dies, at once, and
its extraction children die with it (each sets the same on itself).

Without this the forkserver would notice the worker's death on its next
loop and exit in its own time, leaving a child reading a hostile PDF until
then. The signal comes when the worker *thread* that started the forkserver
ends; multiprocessing then starts a new forkserver on the next extraction.
"""

import ctypes
import signal

_PR_SET_PDEATHSIG = 1

ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
