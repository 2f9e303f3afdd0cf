"""Prometheus metrics and the structured per-answer log line.

A rising fabricated-marker rate after a model change shows up in
``citeguard_citations_total{outcome="fabricated-marker", model=...}``; it would
be invisible if only final answers were logged. With several worker processes
set PROMETHEUS_MULTIPROC_DIR (prometheus_client's multiprocess mode).
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)

logger = logging.getLogger("citeguard.checks")

ANSWERS = Counter("citeguard_answers", "Answers verified",
                  ["surface", "model", "verdict", "action"])
CITATIONS = Counter("citeguard_citations", "Citations checked, by outcome",
                    ["surface", "model", "outcome"])
UNCITED_CLAIMS = Counter("citeguard_uncited_claims",
                         "Claims no citation attributes to an injected source",
                         ["surface", "model"])
LATENCY = Histogram("citeguard_verification_seconds", "Time to verify one answer",
                    ["surface"],
                    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0))


def record(*, surface: str, model: str, result: dict[str, Any]) -> None:
    """Count one verified answer and write its log line."""
    model = model or "unknown"
    ANSWERS.labels(surface, model, result["verdict"], result["action"]).inc()
    for outcome, count in result["counts"].items():
        if outcome == "uncited-claim":
            if count:
                UNCITED_CLAIMS.labels(surface, model).inc(count)
        elif outcome != "superseded" and count:
            CITATIONS.labels(surface, model, outcome).inc(count)
    LATENCY.labels(surface).observe(result["elapsed_ms"] / 1000)
    logger.info(json.dumps({
        "event": "answer-verified", "answer": result["answer"], "id": result["id"],
        "surface": surface, "model": model, "verdict": result["verdict"],
        "action": result["action"], "coverage": result["coverage"],
        "counts": {k: v for k, v in result["counts"].items() if v},
        "elapsed_ms": result["elapsed_ms"],
    }, sort_keys=True))


def exposition() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    return generate_latest(), CONTENT_TYPE_LATEST
