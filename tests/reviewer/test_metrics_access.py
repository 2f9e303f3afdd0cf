"""/metrics: a bearer token in production, open only in development; the
``model`` label capped to known models and the first few seen."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings

from reviewer import metrics

pytestmark = pytest.mark.django_db

TOKEN = "scrape-me-0123456789"


@pytest.mark.parametrize("debug", [False, True])
def test_with_a_token_configured_only_that_bearer_token_reads(client: Client,
                                                               debug: bool) -> None:
    with override_settings(DEBUG=debug, METRICS_TOKEN=TOKEN):
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN},
                        {"Authorization": f"Basic {TOKEN}"}):
            response = client.get("/metrics", headers=headers)
            assert response.status_code == 401, headers
            assert b"citeguard_" not in response.content
            assert response["WWW-Authenticate"].startswith("Bearer")
        response = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status_code == 200
    assert b"citeguard_rate_change" in response.content


def test_in_production_without_a_token_metrics_are_closed(client: Client) -> None:
    with override_settings(DEBUG=False, METRICS_TOKEN=""):
        response = client.get("/metrics", headers={"Authorization": "Bearer anything"})
    assert response.status_code == 403
    assert b"METRICS_TOKEN" in response.content and b"citeguard_" not in response.content


def test_in_development_without_a_token_metrics_stay_open(client: Client) -> None:
    with override_settings(DEBUG=True, METRICS_TOKEN=""):
        response = client.get("/metrics")
    assert response.status_code == 200 and b"citeguard_rate_change" in response.content


def _result() -> dict[str, Any]:
    return {"answer": 1, "id": None, "verdict": "pass", "action": "serve", "coverage": 1.0,
            "counts": {"verified": 1}, "elapsed_ms": 1.0}


def _labels(family: str) -> set[str]:
    return {sample.labels["model"] for metric in metrics.REGISTRY.collect()
            if metric.name == family for sample in metric.samples if "model" in sample.labels}


def test_the_model_label_keeps_known_models_and_the_first_twenty(client: Client) -> None:
    with override_settings(CITEGUARD_KNOWN_MODELS=["house-model"]):
        for n in range(metrics.MODELS_SEEN_MAX + 15):
            metrics.record(surface="cap-test", model=f"cap-model-{n}", result=_result())
        # A known model keeps its name even after the cap is reached.
        metrics.record(surface="cap-test", model="house-model", result=_result())
        metrics.record(surface="cap-test", model="cap-model-3", result=_result())
    names = {label for label in _labels("citeguard_answers") if label.startswith("cap-model-")}
    assert names == {f"cap-model-{n}" for n in range(metrics.MODELS_SEEN_MAX)}
    assert {"house-model", "other"} <= _labels("citeguard_answers")
    assert metrics.model_label("cap-model-99") == "other"
    assert metrics.model_label("") == "unknown"
    with override_settings(DEBUG=True, METRICS_TOKEN=""):
        body = client.get("/metrics").content.decode()
    assert 'citeguard_citations_total{model="other",outcome="verified",surface="cap-test"}' in body
