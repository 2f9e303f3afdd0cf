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
