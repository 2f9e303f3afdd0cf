"""Failure policies: what is served when an answer fails its check."""

import pytest

from verification import verify_answer
from verification.policy import apply_policy, correction_text, strip_failing

SOURCES = {
    "S1": "Employer  match vests after\ntwo years of ser-\nvice.",
    "S2": "Dental cover is not included for dependants over 18.",
}
ANSWER = ('Here is a summary.\nThe plan says "Employer match vests after two years" [S1]. '
          'Vision care is covered [S9]. It says "Dental cover is included for dependants '
          'over 18" [S2].\nAsk me more.')


def test_a_passing_answer_is_served_whatever_the_policy() -> None:
    answer = 'It says "Employer match vests after two years" [S1].'
    report = verify_answer(answer, SOURCES)
    for policy in ("strip", "regenerate", "flag", "escalate"):
        outcome = apply_policy(report, answer, policy=policy)
        assert (outcome.action, outcome.served_answer, outcome.correction) == (
            "serve", answer, "")


def test_strip_keeps_every_other_character() -> None:
    report = verify_answer(ANSWER, SOURCES)
    outcome = apply_policy(report, ANSWER, policy="strip")
    assert outcome.action == "strip"
    assert outcome.served_answer == (
        'Here is a summary.\nThe plan says "Employer match vests after two years" [S1].\n'
        "Ask me more."
    )


def test_strip_removes_uncited_claims_only_when_coverage_is_below_the_minimum() -> None:
    answer = 'It says "Employer match vests after two years" [S1]. Loans are unlimited.'
    report = verify_answer(answer, SOURCES)
    assert strip_failing(report, answer, min_coverage=1.0) == (
        'It says "Employer match vests after two years" [S1].')
    assert strip_failing(report, answer, min_coverage=0.5) == answer


def test_correction_names_each_failure_once() -> None:
    report = verify_answer(ANSWER + " Vision care is covered [S9].", SOURCES)
    text = correction_text(report)
    assert text.count("marker [S9] was not among the sources") == 1
    assert "“Dental cover is included for dependants over 18” changes what [S2] says" in text
    assert "leaves out “not”" in text
    assert text.startswith("Your previous answer did not pass citation checks:")


def test_correction_says_where_a_quote_under_a_fabricated_marker_really_is() -> None:
    report = verify_answer('The plan says "Employer match vests after two years" [S9].',
                           SOURCES)
    assert correction_text(report).splitlines()[1] == (
        "- marker [S9] was not among the sources; the quote “Employer match vests after two "
        "years” is from [S1]"
    )


@pytest.mark.parametrize(("policy", "served"), [("regenerate", ""), ("flag", ANSWER),
                                                ("escalate", "")])
def test_other_policies(policy: str, served: str) -> None:
    report = verify_answer(ANSWER, SOURCES)
    outcome = apply_policy(report, ANSWER, policy=policy)  # type: ignore[arg-type]
    assert outcome.action == policy and outcome.served_answer == served
    assert "[S9]" in outcome.correction


def test_unknown_policy_is_refused() -> None:
    report = verify_answer(ANSWER, SOURCES)
    with pytest.raises(ValueError, match="policy must be one of"):
        apply_policy(report, ANSWER, policy="shrug")  # type: ignore[arg-type]


# ---- the claim outcomes: a paraphrase its passage contradicts or lacks ------------

CLAIM_SOURCES = {
    "S1": "The warranty lasts two years from the date of purchase and covers parts and labour.",
    "S2": "Refunds are issued within fourteen days of a return being received at the warehouse.",
}
MISMATCH = "The warranty lasts 3 years from the date of purchase [S1]."
UNSUPPORTED = ("Dragons breathe fire over northern mountains and frozen lakes every "
               "winter [S2].")
KEPT = "Refunds are issued within fourteen days of a return [S2]."
CLAIM_ANSWER = f"Thanks for asking. {MISMATCH} {KEPT} {UNSUPPORTED}\nAnything else?"


def test_the_claim_outcomes_fail_the_answer() -> None:
    report = verify_answer(CLAIM_ANSWER, CLAIM_SOURCES)
    assert [s.status for s in report.sentences] == [
        "no-claim", "claim-mismatch", "unquoted", "claim-unsupported", "no-claim"]
    assert report.verdict != "pass"


def test_strip_removes_the_sentences_a_claim_check_flagged() -> None:
    report = verify_answer(CLAIM_ANSWER, CLAIM_SOURCES)
    outcome = apply_policy(report, CLAIM_ANSWER, policy="strip")
    assert outcome.action == "strip"
    assert outcome.served_answer == f"Thanks for asking. {KEPT}\nAnything else?"


def test_the_correction_names_both_sides_of_a_mismatch_and_the_unsupported_sentence() -> None:
    report = verify_answer(CLAIM_ANSWER, CLAIM_SOURCES)
    outcome = apply_policy(report, CLAIM_ANSWER, policy="regenerate")
    assert (outcome.action, outcome.served_answer) == ("regenerate", "")
    lines = outcome.correction.splitlines()
    assert lines[1] == ("- the sentence does not say what [S1] says: the sentence says 3 years; "
                        "the passage says two years")
    assert lines[2] == ("- [S2] shares almost nothing with the sentence “Dragons breathe fire "
                        "over northern mountains and frozen lakes every winter [S2].”")
    assert "Refunds" not in outcome.correction  # the sentence that passed is not named


@pytest.mark.parametrize("policy", ["flag", "escalate"])
def test_flag_and_escalate_act_on_a_claim_outcome_alone(policy: str) -> None:
    for answer in (f"{MISMATCH} {KEPT}", f"{KEPT} {UNSUPPORTED}"):
        report = verify_answer(answer, CLAIM_SOURCES)
        outcome = apply_policy(report, answer, policy=policy)  # type: ignore[arg-type]
        assert outcome.action == policy
        assert outcome.served_answer == (answer if policy == "flag" else "")
        assert outcome.correction.startswith("Your previous answer did not pass")
