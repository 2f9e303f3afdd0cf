"""Figures a test measures (races, peak memory, latencies), printed together
at the end of the run: pytest hides a passing test's own output, and these are
what the issues ask to see in CI's log."""

from __future__ import annotations

FIGURES: list[str] = []


def figure(line: str) -> None:
    """Keep ``line`` for the run's "figures" section (and print it, for -s)."""
    line = line.strip("\n")
    FIGURES.append(line)
    print(line)
