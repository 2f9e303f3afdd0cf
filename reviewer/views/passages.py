"""Source text as the review and labelling pages show it."""

from __future__ import annotations

from collections.abc import Iterable
from itertools import pairwise
from typing import Any

__all__ = ["source_runs"]


def source_runs(source: Any, start: int, end: int, *, lead: str = "", trail: str = "",
                shared: Iterable[Iterable[int]] = ()) -> list[dict[str, Any]]:
    """``source.text[start:end]`` as runs, furniture (running headers, page
    numbers) marked so the template can grey it out and the diff skip it,
    and the words a paraphrasing sentence shares with it (``shared``: ranges
    of ``source.text``) marked ``shared`` so the template can mark them."""
    runs: list[dict[str, Any]] = []
    furniture = [(s, e) for s, e in source.furniture if s < end and e > start]
    words = [(s, e) for s, e in (tuple(r) for r in shared) if s < end and e > start]
    cuts = sorted({start, end, *(max(start, min(end, p))
                                 for r in furniture + words for p in r)})
    for cut_start, cut_end in pairwise(cuts):
        flags = {"furniture": any(s < cut_end and e > cut_start for s, e in furniture),
                 "shared": any(s < cut_end and e > cut_start for s, e in words)}
        if runs and all(runs[-1][k] == v for k, v in flags.items()):
            runs[-1]["text"] += source.text[cut_start:cut_end]
        else:
            runs.append({"text": source.text[cut_start:cut_end], **flags})
    plain = {"furniture": False, "shared": False}
    return ([{"text": lead, **plain}] if lead else []) + runs + (
        [{"text": trail, **plain}] if trail else [])
