"""The passage behind every cited sentence, through verify_answer."""

from __future__ import annotations

from verification import Citation, Report, Source, VerificationConfig, verify_answer
from verification.reasons import reason_sentence

DEFAULT = VerificationConfig()

PLAN = (
    "4.2 Vesting. Employer matching contributions vest after two years of ser-\n"
    "vice. A participant who leaves before then forfeits the unvested match.\n"
    "4.3 Loans. Participants may borrow up to 50% of their vested balance.\n"
)
DENTAL = "Dental cover is not included in the basic plan. Vision cover is included."


def only(answer: str, sources: dict[str, str] | list[Source],
         config: VerificationConfig = DEFAULT) -> tuple[Report, Citation]:
    report = verify_answer(answer, sources, config=config)
    (citation,) = report.citations
    return report, citation


def test_an_unquoted_citation_gets_its_likely_passage() -> None:
    report, citation = only("Matching contributions vest after two years [S1].", {"S1": PLAN})
    assert citation.outcome == "unquoted" and report.verdict == "pass"
    assert citation.passage_start is not None and citation.passage_end is not None
    assert "vest after two years" in PLAN[citation.passage_start:citation.passage_end]
    assert citation.support == 1.0 and citation.missing == ()
    assert "likely passage" in citation.message
    assert citation.source_marker is None  # nothing was matched: the marker names the source


def test_a_changed_number_is_a_claim_mismatch_naming_both_sides() -> None:
    report, citation = only("Matching contributions vest after 3 years [S1].", {"S1": PLAN})
    assert citation.outcome == "claim-mismatch"
    assert report.verdict == "flag"
    assert citation.message == "the sentence says 3 years; the passage says two years"
    assert report.reasons == (reason_sentence("claim-mismatch", 1),)
    (finding,) = citation.findings
    assert finding.check == "number" and finding.passage == "two years"


def test_a_dropped_negation_is_a_claim_mismatch() -> None:
    _, citation = only("Dental cover is included in the basic plan [D1].", {"D1": DENTAL})
    assert citation.outcome == "claim-mismatch"
    assert "not included" in citation.message


def test_a_source_sharing_nothing_is_claim_unsupported() -> None:
    report, citation = only("Dental implants are reimbursed at eighty percent [S1].",
                            {"S1": PLAN})
    assert citation.outcome == "claim-unsupported"
    assert report.verdict == "flag"
    assert "shares none of the sentence's content words" in citation.message
    assert citation.passage_start is None


def test_a_framing_sentence_is_never_unsupported() -> None:
    report = verify_answer("See the plan [S1]. Thanks! [S1]", {"S1": PLAN})
    assert [c.outcome for c in report.citations] == ["unquoted", "unquoted"]


def test_a_finding_belongs_to_the_citation_whose_passage_contradicts() -> None:
    report = verify_answer(
        "Vision cover is included and matching contributions vest after 3 years [D1][S1].",
        {"S1": PLAN, "D1": DENTAL})
    outcomes = {c.marker: c.outcome for c in report.citations}
    assert outcomes == {"D1": "unquoted", "S1": "claim-mismatch"}


def test_a_verified_quote_keeps_its_match_and_gets_its_sentence() -> None:
    _, citation = only('After two years, "employer matching contributions vest" [S1].',
                       {"S1": PLAN})
    assert citation.outcome == "verified"
    assert citation.passage_start is not None and citation.passage_end is not None
    assert citation.chunk_start is not None
    assert citation.passage_start <= citation.chunk_start < citation.passage_end
    assert PLAN[citation.passage_start:citation.passage_end].endswith("vice.")


def test_words_framing_a_quote_contradicting_it_flag_the_quote() -> None:
    _, citation = only('After 3 years, "employer matching contributions vest" [S1].',
                       {"S1": PLAN})
    assert citation.outcome == "claim-mismatch"
    assert "3 years" in citation.message and "two years" in citation.message
    assert citation.chunk_start is not None  # the quote's match is kept


def test_a_document_source_gives_the_passage_as_a_document_range() -> None:
    source = Source(marker="S1", text=PLAN, document=7, document_offset=1000)
    _, citation = only("Matching contributions vest after two years [S1].", [source])
    assert citation.passage_start is not None and citation.passage_end is not None
    assert citation.passage_document_start == 1000 + citation.passage_start
    assert citation.passage_document_end == 1000 + citation.passage_end


def test_the_checks_can_be_turned_off() -> None:
    config = VerificationConfig(check_claims=False)
    _, citation = only("Matching contributions vest after 3 years [S1].", {"S1": PLAN}, config)
    assert citation.outcome == "unquoted" and citation.passage_start is None


def test_a_surface_may_ask_for_more_support() -> None:
    config = VerificationConfig(min_support=0.9)
    _, citation = only("Loans are capped at half of the vested balance [S1].", {"S1": PLAN},
                       config)
    assert citation.outcome == "claim-unsupported"
    assert "minimum 90%" in citation.message


ALBUM = ("Band puts its own spin on protest songs.\n"
         "The band's third album, Emotive, is mostly covers.\n"
         "It was released on November 2, 2004, the day of the U.S. presidential election.")


def test_a_quote_of_a_few_words_names_a_thing_and_the_sentence_finds_the_passage() -> None:
    _, citation = only('The third album, "Emotive", was released on November 2, 2004 [S1].',
                       {"S1": ALBUM})
    assert citation.outcome == "verified"  # the title is there, so the quote holds
    assert citation.passage_start is not None and citation.passage_end is not None
    # The passage is where the sentence's facts are, not the title's sentence alone.
    assert "November 2, 2004" in ALBUM[citation.passage_start:citation.passage_end]


def test_a_sentence_quoting_only_a_title_is_checked_as_a_paraphrase() -> None:
    _, citation = only('The third album, "Emotive", was released on November 9, 2004 [S1].',
                       {"S1": ALBUM})
    assert citation.outcome == "claim-mismatch"
    assert "9" in citation.message


def test_a_short_quote_of_evidence_is_still_a_quote() -> None:
    # Lower-case words quoted from the source are evidence, not a name: the
    # sentence's other words frame it, and a number among them is no finding.
    _, citation = only('Since 2019 the plan counts "two years of service" [S1].', {"S1": PLAN})
    assert citation.outcome == "verified"


def test_a_passage_past_the_work_budget_is_not_located_and_says_so() -> None:
    from verification.budget import PASSAGE_CHAR_WORK

    answer = "Matching contributions vest after 3 years [S1]. Loans are capped at half [S2]."
    sources = {"S1": PLAN, "S2": PLAN + " "}
    # Room to split one source, not two: the second citation says why it has no passage.
    config = VerificationConfig(max_work=PASSAGE_CHAR_WORK * len(PLAN) + 10)
    first, second = verify_answer(answer, sources, config=config).citations
    assert first.outcome == "claim-mismatch" and first.passage_start is not None
    assert second.outcome == "unquoted" and second.passage_start is None
    assert "its passage was not located" in second.message
    assert "work budget" in second.message
    # With no limit both are located.
    _, located = verify_answer(answer, sources,
                               config=VerificationConfig(max_work=None)).citations
    assert located.passage_start is not None
