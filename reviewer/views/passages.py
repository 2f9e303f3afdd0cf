"""Source text as the review and labelling pages show it."""

from __future__ import annotations

from typing import Any

__all__ = ["source_runs"]


def source_runs(source: Any, start: int, end: int, *, lead: str = "", trail: str = ""
                ) -> list[dict[str, Any]]:
    """``source.text[start:end]`` as runs, furniture (running headers, page
    numbers) marked so the template can grey it out and the diff skip it."""
    runs: list[dict[str, Any]] = [{"text": lead, "furniture": False}] if lead else []
    position = start
    for skip_start, skip_end in sorted(source.furniture):
        if skip_end <= position or skip_start >= end:
            continue
        if skip_start > position:
            runs.append({"text": source.text[position:skip_start], "furniture": False})
        runs.append({"text": source.text[max(skip_start, position):min(skip_end, end)],
                     "furniture": True})
        position = min(skip_end, end)
    if position < end:
        runs.append({"text": source.text[position:end], "furniture": False})
    if trail:
        runs.append({"text": trail, "furniture": False})
    return runs
