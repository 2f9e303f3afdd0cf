"""The semantic stage's library: the interface, both backends on a model and a
server the tests make, the evidence check, and retries."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.judges import Reply, answer, build_tiny_nli, loopback_chat
from verification.entailment import (
    InventedEvidence,
    JudgeMalformed,
    Judgement,
    JudgeRateLimited,
    JudgeSetupError,
    JudgeTimeout,
    JudgeUnavailable,
    evidence_in_passage,
    judge_from_settings,
    judge_open,
    judge_premise,
    judge_with_retries,
    label_from_name,
)
from verification.judges.chat import retry_after_seconds

PASSAGE = ("Employer match vests after two years of service. The plan pays an annual bonus. "
           "A fee is charged.")


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_tiny_nli(tmp_path_factory.mktemp("nli") / "tiny-nli")


# ---- the ONNX backend ----------------------------------------------------------

def test_the_onnx_judge_runs_the_operators_model_and_reads_its_label_map(tiny_nli: Path) -> None:
    judge = judge_open(str(tiny_nli))
    assert judge.kind == "onnx" and judge.model_id.startswith("tiny-nli@")
    supported = judge.judge(PASSAGE, "Employer match vests after two years.")
    assert supported.label == "supported"
    assert supported.scores is not None and dict(supported.scores)["supported"] > 0.5
    assert sum(p for _, p in supported.scores) == pytest.approx(1.0)
    assert judge.judge(PASSAGE, "Employer match does not vest.").label == "contradicted"
    assert judge.judge(PASSAGE, "Employer match maybe vests.").label == "not-enough-info"
    # The premise is read too: a "not" in the passage is seen.
    assert judge.judge("The plan does not vest.", "The plan vests.").label == "contradicted"
    assert supported.evidence is None and not supported.truncated


def test_the_label_map_may_be_a_config_json_id2label(tmp_path: Path) -> None:
    judge = judge_from_settings("onnx", model_dir=build_tiny_nli(tmp_path / "m",
                                                                   labels="config.json"))
    assert judge.judge(PASSAGE, "The plan does not pay.").label == "contradicted"


def test_a_pair_longer_than_the_model_reads_is_cut_and_says_so(tmp_path: Path) -> None:
    judge = judge_from_settings("onnx", model_dir=build_tiny_nli(tmp_path / "m", max_tokens=12))
    long_premise = "the plan vests after two years " * 4 + "not"
    judgement = judge.judge(long_premise, "The plan vests.")
    # The premise's last words (its "not") were past the model's 12 tokens.
    assert judgement.truncated and judgement.label == "supported"
    short = judge.judge("The plan does not vest.", "Plan vests.")  # 12 tokens
    assert not short.truncated and short.label == "contradicted"


def test_a_folder_the_judge_cannot_use_is_a_clear_error(tmp_path: Path, tiny_nli: Path) -> None:
    with pytest.raises(JudgeSetupError, match=r"no model\.onnx"):
        judge_from_settings("onnx", model_dir=tmp_path)
    broken = tmp_path / "unknown-label"
    build_tiny_nli(broken)
    (broken / "labels.json").write_text(json.dumps(["entailment", "neutral", "banana"]))
    with pytest.raises(JudgeSetupError, match="'banana'"):
        judge_from_settings("onnx", model_dir=broken)
    (broken / "labels.json").write_text(json.dumps(["entailment", "contradiction"]))
    with pytest.raises(JudgeSetupError, match="3 outputs but the label map names 2"):
        judge_from_settings("onnx", model_dir=broken)
    with pytest.raises(JudgeSetupError, match="Unknown judge"):
        judge_from_settings("bert")


def test_judgements_are_frozen(tiny_nli: Path) -> None:
    judgement = judge_open(str(tiny_nli)).judge(PASSAGE, "The plan vests.")
    with pytest.raises(dataclasses.FrozenInstanceError):
        judgement.label = "contradicted"  # type: ignore[misc]


def test_label_names_of_nli_and_fact_checking_models_are_read() -> None:
    assert label_from_name("ENTAILMENT") == "supported"
    assert label_from_name("Not Enough Info") == "not-enough-info"
    assert label_from_name("not_enough_information") == "not-enough-info"
    assert label_from_name("REFUTES") == "contradicted"
    assert label_from_name("maybe") is None


# ---- the chat backend ----------------------------------------------------------

def test_the_chat_judge_returns_a_label_with_its_verified_evidence() -> None:
    with loopback_chat(answer("supported", "Employer match vests after two years of service.")
                       ) as server:
        judge = judge_from_settings("chat", url=server.url, model="judge-m", api_key="k-123")
        judgement = judge.judge(PASSAGE, "The match vests after two years.")
    assert judgement.label == "supported" and judgement.evidence_verified
    assert judgement.evidence == "Employer match vests after two years of service."
    assert judgement.model_id == "loopback-judge-1" and judgement.scores is None
    sent = server.requests[0]
    assert sent["model"] == "judge-m" and sent["response_format"] == {"type": "json_object"}
    assert PASSAGE in sent["messages"][1]["content"]
    assert server.headers[0]["Authorization"] == "Bearer k-123"


def test_not_enough_information_needs_no_evidence() -> None:
    with loopback_chat(answer("not enough information", None)) as server:
        judgement = judge_open(server.url, model="m").judge(PASSAGE, "The plan has a pension.")
    assert judgement.label == "not-enough-info" and judgement.evidence is None
    assert not judgement.evidence_verified


def test_invented_evidence_is_caught_and_the_answer_discarded() -> None:
    with loopback_chat(answer("contradicted", "Employer match vests after three years of "
                                              "service.")) as server:
        judge = judge_open(server.url, model="m")
        with pytest.raises(InventedEvidence) as caught:
            judge.judge(PASSAGE, "The match vests after two years.")
    assert caught.value.label == "contradicted" and "three years" in caught.value.evidence
    assert caught.value.kind == "invented-evidence" and not caught.value.transient


@pytest.mark.parametrize("content, match", [
    ("The passage supports it.", "not JSON"),
    ('["supported"]', "not a JSON object"),
    ('{"label": "probably", "evidence": null}', "'probably'"),
    ('{"label": "supported", "evidence": null}', "without its evidence"),
])
def test_a_malformed_answer_is_an_error_that_says_what_was_wrong(content: str, match: str
                                                                 ) -> None:
    with loopback_chat(Reply(content=content)) as server, pytest.raises(JudgeMalformed,
                                                                         match=match):
        judge_open(server.url, model="m").judge(PASSAGE, "The plan vests.")


def test_a_non_json_body_and_a_server_error_are_told_apart() -> None:
    with loopback_chat(Reply(body=b"<html>gateway</html>"), Reply(status=503, body=b"down")
                       ) as server:
        judge = judge_open(server.url, model="m")
        with pytest.raises(JudgeMalformed, match="no JSON"):
            judge.judge(PASSAGE, "The plan vests.")
        with pytest.raises(JudgeUnavailable, match="HTTP 503"):
            judge.judge(PASSAGE, "The plan vests.")


def test_a_slow_endpoint_is_a_timeout() -> None:
    with loopback_chat(Reply(content="{}", delay=2.0)) as server:
        judge = judge_from_settings("chat", url=server.url, model="m", timeout_seconds=0.3)
        with pytest.raises(JudgeTimeout, match=r"within 0\.3 s"):
            judge.judge(PASSAGE, "The plan vests.")


def test_a_429_is_retried_after_its_retry_after() -> None:
    waits: list[float] = []
    with loopback_chat(Reply(status=429, body=b"slow down", headers={"Retry-After": "2"}),
                       answer("supported", "The plan pays an annual bonus.")) as server:
        attempted = judge_with_retries(judge_open(server.url, model="m"), PASSAGE,
                                       "The plan pays a bonus.", sleep=waits.append)
    assert attempted.judgement is not None and attempted.judgement.label == "supported"
    assert attempted.attempts == 2 and waits == [2.0] and len(server.requests) == 2


def test_a_429_asking_for_longer_than_the_timeout_is_given_up() -> None:
    waits: list[float] = []
    with loopback_chat(Reply(status=429, body=b"", headers={"Retry-After": "120"})) as server:
        attempted = judge_with_retries(judge_open(server.url, model="m"), PASSAGE, "x",
                                       max_wait_seconds=30, sleep=waits.append)
    assert isinstance(attempted.error, JudgeRateLimited) and attempted.error.retry_after == 120
    assert attempted.attempts == 1 and waits == []


def test_retries_stop_at_the_budget_and_never_retry_invented_evidence() -> None:
    with loopback_chat(Reply(status=503, body=b"down")) as server:
        judge = judge_open(server.url, model="m")
        attempted = judge_with_retries(judge, PASSAGE, "x", max_attempts=3, sleep=lambda s: None)
        assert attempted.attempts == 3 and isinstance(attempted.error, JudgeUnavailable)
        budgeted = judge_with_retries(judge, PASSAGE, "x", may_call=lambda made: made < 1,
                                      sleep=lambda s: None)
        assert budgeted.over_budget and budgeted.attempts == 1
    with loopback_chat(answer("supported", "Nothing like this is in the passage.")) as server:
        attempted = judge_with_retries(judge_open(server.url, model="m"), PASSAGE, "x")
    assert isinstance(attempted.error, InventedEvidence) and attempted.attempts == 1


def test_retry_after_reads_seconds_and_http_dates() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)
    assert retry_after_seconds("7") == 7.0
    assert retry_after_seconds("Thu, 01 Jan 2026 12:00:30 GMT", now=now) == 30.0
    assert retry_after_seconds("soon") is None and retry_after_seconds(None) is None


# ---- evidence and premise --------------------------------------------------------

def test_evidence_is_checked_with_citeguards_own_quote_check() -> None:
    assert evidence_in_passage("Employer match vests after two years of service.", PASSAGE)
    assert evidence_in_passage("employer match vests after\ntwo years of service", PASSAGE)
    assert not evidence_in_passage("Employer match vests after three years of service.", PASSAGE)
    assert not evidence_in_passage("Employer match does not vest after two years.", PASSAGE)
    assert not evidence_in_passage("", PASSAGE)


def test_the_premise_is_the_quotes_sentences_or_the_likely_passage() -> None:
    start = PASSAGE.index("annual bonus")
    assert judge_premise("x", PASSAGE, match=(start, start + 12)) == (
        PASSAGE.index("The plan"), PASSAGE.index(" A fee"))
    found = judge_premise("Employer match vests after two years.", PASSAGE)
    assert found is not None and PASSAGE[found[0]:found[1]].startswith("Employer match vests")
    assert judge_premise("Quarterly dividends rose.", PASSAGE) is None


def test_a_judgement_is_what_the_protocol_promises() -> None:
    judgement = Judgement(label="supported", model_id="m", latency_ms=1.0)
    assert judgement.scores is None and judgement.evidence is None
