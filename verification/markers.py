"""Citation markers in an answer, with positions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .config import VerificationConfig

__all__ = ["MarkerGroup", "canonical_label", "parse_markers"]


@dataclass(frozen=True, slots=True)
class MarkerGroup:
    """One bracket of markers: ``[1, 3]`` has labels ``("1", "3")``.

    ``start``/``end`` index the answer and cover the whole bracket.
    """

    labels: tuple[str, ...]
    start: int
    end: int
    text: str


def canonical_label(label: str) -> str:
    """``[s1]``, ``S1`` and `` S1 `` are the same marker: ``S1``."""
    return label.strip().strip("[]\u3010\u3011").strip().upper()


@lru_cache(maxsize=32)
def _compile(patterns: tuple[str, ...], label: str) -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(p.replace("{label}", label)) for p in patterns)


def _expand(body: str, label: str, limit: int) -> tuple[str, ...]:
    labels: list[str] = []
    for item in re.split(r"[,;]", body):
        item = item.strip()
        if not item:
            continue
        bounds = re.fullmatch(rf"({label})\s*[-\u2013]\s*({label})", item)
        if bounds:
            first, last = (canonical_label(b) for b in bounds.groups())
            prefix_a, num_a = re.fullmatch(r"([A-Z]*)(\d+)", first).groups()  # type: ignore[union-attr]
            prefix_b, num_b = re.fullmatch(r"([A-Z]*)(\d+)", last).groups()  # type: ignore[union-attr]
            low, high = int(num_a), int(num_b)
            if prefix_b in ("", prefix_a) and 0 <= high - low < limit:
                labels.extend(f"{prefix_a}{n}" for n in range(low, high + 1))
                continue
            labels.extend((first, last))
            continue
        labels.append(canonical_label(item))
    return tuple(dict.fromkeys(labels))


def parse_markers(
    answer: str,
    *,
    config: VerificationConfig = VerificationConfig(),
    exclude: Sequence[tuple[int, int]] = (),
) -> tuple[MarkerGroup, ...]:
    """Every marker group in ``answer``, in order.

    Groups that start inside an ``exclude`` range (quoted spans: a quoted
    passage's own references belong to the quote) are left out.
    """
    found: dict[int, MarkerGroup] = {}
    for pattern in _compile(config.marker_patterns, config.label_pattern):
        for match in pattern.finditer(answer):
            if any(s <= match.start() < e for s, e in exclude) or match.start() in found:
                continue
            labels = _expand(match.group("body"), config.label_pattern, config.max_range_expansion)
            if labels:
                found[match.start()] = MarkerGroup(
                    labels=labels, start=match.start(), end=match.end(), text=match.group(0)
                )
    return tuple(found[k] for k in sorted(found))
