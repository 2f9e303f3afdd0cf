"""A surface's failure policy acts on the claim outcomes through the API: a
sentence its passage contradicts (claim-mismatch) or that its cited source
shares almost nothing with (claim-unsupported) is stripped, named in the
correction, flagged or escalated, and the answer waits in the queue."""

from __future__ import annotations

import json
from typing import Any

import pytest

from reviewer.models import Answer, Surface

pytestmark = pytest.mark.django_db

SOURCES = [
    {"marker": "S1", "text": "The warranty lasts two years from the date of purchase and "
                             "covers parts and labour."},
    {"marker": "S2", "text": "Refunds are issued within fourteen days of a return being "
                             "received at the warehouse."},
]
MISMATCH = "The warranty lasts 3 years from the date of purchase [S1]."
UNSUPPORTED = ("Dragons breathe fire over northern mountains and frozen lakes every "
               "winter [S2].")
KEPT = "Refunds are issued within fourteen days of a return [S2]."
ANSWER = f"Thanks for asking. {MISMATCH} {KEPT} {UNSUPPORTED}\nAnything else?"


@pytest.fixture
def surfaces(db: None) -> dict[str, Surface]:
    return {policy: Surface.objects.create(name=f"{policy}-surface", policy=policy)
            for policy in ("strip", "regenerate", "flag", "escalate")}


def _post(api: Any, policy: str, answer: str = ANSWER) -> dict[str, Any]:
    response = api.post("/api/v1/answers", json.dumps({
        "answer": answer, "sources": SOURCES, "surface": f"{policy}-surface"}),
        content_type="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def test_strip_serves_the_answer_without_the_flagged_sentences(
        api: Any, surfaces: dict[str, Surface]) -> None:
    body = _post(api, "strip")
    assert (body["verdict"], body["action"]) == ("flag", "strip")
    assert body["served_answer"] == f"Thanks for asking. {KEPT}\nAnything else?"
    statuses = [s["status"] for s in body["sentences"]]
    assert statuses == ["no-claim", "claim-mismatch", "unquoted", "claim-unsupported",
                        "no-claim"]
    stored = Answer.objects.get(pk=body["answer"])
    assert stored.served_answer == body["served_answer"] and stored.action == "strip"
    assert (stored.claim_mismatch_count, stored.claim_unsupported_count) == (1, 1)
    assert stored in Answer.objects.needing_review()


def test_regenerate_feeds_back_both_sides_of_the_mismatch(
        api: Any, surfaces: dict[str, Surface]) -> None:
    body = _post(api, "regenerate")
    assert (body["action"], body["served_answer"]) == ("regenerate", "")
    assert ("the sentence says 3 years; the passage says two years" in body["correction"])
    assert "shares almost nothing with the sentence “Dragons breathe fire" in body["correction"]
    assert Answer.objects.get(pk=body["answer"]).correction == body["correction"]


@pytest.mark.parametrize(("policy", "served"), [("flag", ANSWER), ("escalate", "")])
def test_flag_serves_it_marked_and_escalate_refuses_it(
        api: Any, surfaces: dict[str, Surface], policy: str, served: str) -> None:
    body = _post(api, policy)
    assert (body["action"], body["served_answer"]) == (policy, served)
    # A mismatch alone is enough.
    alone = _post(api, policy, f"{MISMATCH} {KEPT}")
    assert alone["action"] == policy and alone["verdict"] == "flag"


def test_a_surface_turns_a_check_off_and_its_history_says_who_and_why(
        api: Any, surfaces: dict[str, Surface], client: Any) -> None:
    from django.contrib.auth import get_user_model

    from reviewer.models import SurfaceChange

    answer = "The warranty is sold by Acme Home Electronics for two years [S1]."
    statuses = [s["status"] for s in _post(api, "flag", answer)["sentences"]]
    assert statuses == ["claim-mismatch"]  # a name the source never mentions

    surface = surfaces["flag"]
    root = get_user_model().objects.create_superuser("root", "root@example.com", "pw-root-123")
    client.force_login(root)
    response = client.post(f"/admin/reviewer/surface/{surface.pk}/change/", {
        "name": surface.name, "threshold": str(surface.threshold), "policy": surface.policy,
        "min_coverage": str(surface.min_coverage),
        "judge_sample_rate": "0", "judge_calls_per_hour": "0", "judge_timeout_seconds": "30",
        "judge_max_chars": "8000", "claim_checks_off": ["entity"],
        "change_reason": "Names raised false alarms on this surface"})
    assert response.status_code == 302, response.content.decode()[:500]
    change = SurfaceChange.objects.get(surface=surface)
    assert change.changes == {"claim_checks_off": [[], ["entity"]]}
    assert change.reason == "Names raised false alarms on this surface"

    statuses = [s["status"] for s in _post(api, "flag", answer)["sentences"]]
    assert statuses == ["unquoted"]
    # The other checks still run.
    statuses = [s["status"] for s in _post(api, "flag", MISMATCH)["sentences"]]
    assert statuses == ["claim-mismatch"]


def test_an_unknown_check_is_refused_with_the_names_of_the_real_ones(
        surfaces: dict[str, Surface]) -> None:
    from django.core.exceptions import ValidationError

    surface = surfaces["flag"]
    surface.claim_checks_off = ["names"]
    with pytest.raises(ValidationError, match=r"Unknown checks: names\. The checks are number"):
        surface.full_clean()
