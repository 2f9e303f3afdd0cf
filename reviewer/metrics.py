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
from collections.abc import Iterator
from typing import Any

from django.conf import settings
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

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


#: Distinct models a process labels by name besides the configured ones.
MODELS_SEEN_MAX = 20
OTHER_MODEL = "other"
_models_seen: set[str] = set()


def model_label(model: str) -> str:
    """The ``model`` label for ``model``: its name when it is in
    CITEGUARD_KNOWN_MODELS or among the first MODELS_SEEN_MAX others this
    process saw, else "other". A client sending a new model name on every
    request would otherwise grow every series without bound."""
    model = model or "unknown"
    if model == "unknown" or model in settings.CITEGUARD_KNOWN_MODELS or model in _models_seen:
        return model
    if len(_models_seen) < MODELS_SEEN_MAX:
        _models_seen.add(model)
        return model
    return OTHER_MODEL


def record(*, surface: str, model: str, result: dict[str, Any]) -> None:
    """Count one verified answer and write its log line (the log keeps the
    model's own name; only the metric's label is capped)."""
    model = model or "unknown"
    label = model_label(model)
    ANSWERS.labels(surface, label, result["verdict"], result["action"]).inc()
    for outcome, count in result["counts"].items():
        if outcome == "uncited-claim":
            if count:
                UNCITED_CLAIMS.labels(surface, label).inc(count)
        elif outcome != "superseded" and count:
            CITATIONS.labels(surface, label, outcome).inc(count)
    LATENCY.labels(surface).observe(result["elapsed_ms"] / 1000)
    logger.info(json.dumps({
        "event": "answer-verified", "answer": result["answer"], "id": result["id"],
        "surface": surface, "model": model, "verdict": result["verdict"],
        "action": result["action"], "coverage": result["coverage"],
        "counts": {k: v for k, v in result["counts"].items() if v},
        "elapsed_ms": result["elapsed_ms"],
    }, sort_keys=True))


class RateChangeCollector(Collector):
    """``citeguard_rate_change{surface,model,outcome}``: +1 when the outcome's
    rate on the latest comparable day (today or yesterday) lies above its
    previous fortnight's interval, -1 below, 0 within (reviewer.changepoint;
    model "*" is all of a surface's models).

    Computed at scrape time from the trends summary table (one small query)
    rather than set by whichever process last ran the check: a cron'd
    ``check_trends`` and every web worker then expose the same value, with
    or without prometheus_client's multiprocess mode.
    """

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from reviewer.selectors.trends import rate_change_directions

        gauge = GaugeMetricFamily(
            "citeguard_rate_change",
            "Outcome rate against its previous 14 days: +1 rise, -1 fall, 0 within range",
            labels=["surface", "model", "outcome"])
        try:
            directions = rate_change_directions()
        except Exception:  # the other metrics are still worth serving
            logger.exception("citeguard_rate_change: reading the trends summary failed")
            directions = {}
        for (surface, model, outcome), direction in sorted(directions.items()):
            gauge.add_metric([surface, model, outcome], direction)
        yield gauge


# Its own registry: the default one is (in multiprocess mode) not what is
# served, and registering there would query the database at import time.
TRENDS_REGISTRY = CollectorRegistry(auto_describe=False)
TRENDS_REGISTRY.register(RateChangeCollector())


def exposition() -> tuple[bytes, str]:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry = REGISTRY
    return generate_latest(registry) + generate_latest(TRENDS_REGISTRY), CONTENT_TYPE_LATEST
