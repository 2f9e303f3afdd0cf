"""verify_answer(): outcomes, sentence statuses, verdicts, offsets and the report format."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification import (
    OUTCOMES,
    SENTENCE_STATUSES,
    Citation,
    Difference,
    Report,
    Source,
    VerificationConfig,
    align,
    compare,
    normalize,
    verify_answer,
)
from verification.claims import ClaimFinding
from verification.finding import _SQUEEZE, _exact_first, _unsqueezed
from verification.matching import find_exact, negation_before
from verification.pool import SourcePool as _Sources
from verification.pool import squeeze as _squeeze

# The reference source from the design: double space, line break, hyphenation.
S1 = "Employer  match vests after\ntwo years of ser-\nvice."
HEALTH = (
    "Health coverage begins on the first day of the month after your hire date. "
    "Dependants are covered until age 26."
)
LOANS = "Loans are limited to fifty percent of the vested account balance, up to $50,000."

# Realistic plan prose, 400+ characters; quotes below are taken from its middle.
PLAN = (
    "Section 4.2 Vesting. Employer matching contributions credited to a participant's "
    "account vest after two years of service. A participant who terminates employment "
    "before completing two years of service forfeits the unvested portion of the employer "
    "matching contributions, which will be used to reduce future employer contributions. "
    "Employee salary deferrals are not subject to any vesting schedule and are always one "
    "hundred percent vested. Loans are limited to fifty percent of the vested account balance."
)
LONG_QUOTE = PLAN[PLAN.index("Employer matching") : PLAN.index(" Loans are limited")]

GUIDELINE = (
    "Recommendation 3. In patients with moderate renal impairment (eGFR 30-44), the daily "
    "dose of metformin should be reduced to 1000 mg, and renal function should be "
    "monitored every three to six months. Metformin should not be started in patients "
    "with an eGFR below 30, and it should be stopped if the eGFR falls below that level "
    "during treatment. Iodinated contrast studies require a temporary pause of therapy."
)
GUIDELINE_QUOTE = GUIDELINE[GUIDELINE.index("In patients") : GUIDELINE.index(" Iodinated")]


def only_citation(report: Report) -> Citation:
    assert len(report.citations) == 1, report.citations
    return report.citations[0]


def outcomes(report: Report) -> list[str]:
    return [c.outcome for c in report.citations]


def quoted(quote: str, marker: str = "[S1]") -> str:
    return f'The plan document states: "{quote}" {marker}.'


# The three reference cases from the design ---------------------------------------


def test_reference_verified() -> None:
    report = verify_answer('The plan says "Employer match vests after two years" [S1].', {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "verified"
    assert citation.score == 1.0
    assert citation.source_marker == "S1"
    assert S1[citation.chunk_start : citation.chunk_end] == "Employer  match vests after\ntwo years"
    assert report.verdict == "pass"


def test_reference_quote_not_found() -> None:
    report = verify_answer('The plan says "Employer match vests immediately" [S1].', {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "quote-not-found"
    assert citation.marker == "S1"
    assert citation.score is not None and citation.score < 0.92  # best similarity reported
    assert citation.chunk_start is None and citation.source_marker is None
    assert report.verdict == "flag"


@pytest.mark.parametrize(
    "answer",
    [
        'The plan says "anything at all" [S9].',
        "Employer match vests after two years [S9].",
    ],
)
def test_reference_fabricated_marker(answer: str) -> None:
    report = verify_answer(answer, {"S1": S1})
    fabricated = [c for c in report.citations if c.outcome == "fabricated-marker"]
    assert len(fabricated) == 1
    assert fabricated[0].marker == "S9"
    assert answer[fabricated[0].marker_start : fabricated[0].marker_end] == "[S9]"
    assert "S1" in fabricated[0].message  # says what was injected
    assert report.sentences[0].status == "fabricated-marker"
    assert report.verdict == "fail"


@pytest.mark.parametrize(
    "answer",
    [
        'The plan says "Employer match vests after two years" [S9].',
        '<quote source="S9">Employer match vests after two years</quote>',
    ],
)
def test_a_fabricated_marker_says_where_its_quote_really_is_once(answer: str) -> None:
    report = verify_answer(answer, {"S1": "Unrelated text about parking.", "S2": S1})
    citation = only_citation(report)  # one verdict for the quote, not a second wrong-source
    assert citation.outcome == "fabricated-marker"
    assert citation.marker == "S9" and citation.markers == ("S9",)
    assert citation.source_marker == "S2"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    assert S1[citation.chunk_start:citation.chunk_end] == "Employer  match vests after\ntwo years"
    assert citation.message.endswith("; the quote appears in [S2]")
    assert report.counts["fabricated-marker"] == 1 and report.counts["wrong-source"] == 0
    assert report.verdict == "fail"


def test_a_quote_citing_a_wrong_valid_source_and_a_fabricated_one_gets_both() -> None:
    report = verify_answer('The plan says "Employer match vests after two years" [S1, S9].',
                           {"S1": "Unrelated text about parking.", "S2": S1})
    assert [(c.outcome, c.marker) for c in report.citations] == [
        ("fabricated-marker", "S9"), ("wrong-source", "S1"),
    ]
    assert report.citations[1].source_marker == "S2"


# Every outcome -------------------------------------------------------------------


def test_verified_with_pdf_artefacts_on_both_sides() -> None:
    source = "The ﬁrst payment is due within thirty days\u00a0of the “effective date”."
    answer = 'The contract says \u201cthe first payment is due within thirty days\u201d [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "verified"
    assert source[citation.chunk_start : citation.chunk_end] == (
        "The ﬁrst payment is due within thirty days"
    )


def test_verified_fuzzy_reports_the_harmless_difference() -> None:
    report = verify_answer(quoted("Employer match vests aftr two years of service"), {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "verified-fuzzy"
    assert 0.92 <= citation.score < 1.0  # type: ignore[operator]
    assert [(d.source, d.quote, d.reasons) for d in citation.differences] == [
        ("after", "aftr", ())
    ]
    assert report.verdict == "pass"


def test_quote_altered_names_the_meaningful_difference() -> None:
    report = verify_answer(
        quoted("Employer match vests after three years of service"), {"S1": S1}
    )
    citation = only_citation(report)
    assert citation.outcome == "quote-altered"
    assert citation.source_marker == "S1"
    assert any(d.reasons == ("number",) for d in citation.differences)
    assert "number" in citation.message
    assert report.verdict == "flag"


def test_a_quote_in_the_source_is_not_pinned_on_a_near_duplicate_passage() -> None:
    """The quote holds exactly once "elig-\nible" is joined; before joining, a
    later passage with another number resembles it more. Found on generated
    benchmark prose, where it came out quote-altered ("25" for "50")."""
    filler = " ".join(["Further guidance is provided in section 12 of the handbook."] * 4)
    source = ("Participants receive 25 percent of elig-\nible childcare costs, up to a "
              f"maximum of $500 per claim. {filler} Participants receive 50 percent of "
              "eligible childcare costs, up to\na maximum of $1,200 per year.")
    report = verify_answer(
        quoted("25 percent of eligible childcare costs, up to a maximum of"), {"S1": source}
    )
    citation = only_citation(report)
    assert citation.outcome == "verified", citation.message
    assert source[citation.chunk_start : citation.chunk_end] == (
        "25 percent of elig-\nible childcare costs, up to a maximum of"
    )
    assert "line-break-hyphenation" in citation.normalizations


def test_squeezed_lookup_never_accepts_a_different_word_split() -> None:
    """Without spaces "a part" and "apart" look alike: the hit is only where
    to look, and the normalised neighbourhood decides."""
    report = verify_answer(quoted("kept apart from the records"),
                           {"S1": "The files are kept a part from the records."})
    assert only_citation(report).outcome != "verified"
    report = verify_answer(quoted("the well-known rule applies"),
                           {"S1": "Here the well-\nknown rule applies to all staff."})
    assert only_citation(report).outcome == "verified"


_SQUEEZABLE = st.text(st.sampled_from(list(" \t\n\r\x0b\x85\xa0\u2028\u3000-\u00adab.1")),
                      max_size=40)


@given(_SQUEEZABLE)
def test_squeezing_maps_every_kept_character_back(text: str) -> None:
    squeezed = _squeeze(text)
    assert squeezed == _SQUEEZE.sub("", text)
    positions = [_unsqueezed(text, k) for k in range(len(squeezed))]
    assert [text[p] for p in positions] == list(squeezed)
    assert positions == sorted(set(positions))  # increasing: a window maps to a window


def test_a_bracketed_year_is_a_case_citation_not_a_fabricated_marker() -> None:
    answer = ('The court applied Smith v Jones [2019] EWCA Civ 1 here: "Employer match '
              'vests after two years" [S1]. That was decided in [1998] [S7].')
    report = verify_answer(answer, {"S1": S1})
    outcomes = [(c.marker, c.outcome) for c in report.citations]
    assert outcomes == [("S1", "verified"), ("S7", "fabricated-marker")]
    # With a source of that number, [2019] is that source's marker again.
    report = verify_answer('It says "Employer match vests after two years" [2019].',
                           {"2019": S1})
    assert [(c.marker, c.outcome) for c in report.citations] == [("2019", "verified")]
    # Other numbers stay markers: a fabricated [12] is still reported.
    report = verify_answer("Vision care is covered [12].", {"S1": S1})
    assert [c.outcome for c in report.citations] == ["fabricated-marker"]


def test_wrong_source_names_the_source_it_came_from() -> None:
    answer = 'Coverage "begins on the first day of the month after your hire date" [S1].'
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH})
    citation = only_citation(report)
    assert citation.outcome == "wrong-source"
    assert citation.markers == ("S1",)
    assert citation.source_marker == "S2"
    assert HEALTH[citation.chunk_start : citation.chunk_end] == (
        "begins on the first day of the month after your hire date"
    )
    assert report.verdict == "flag"


def test_unquoted_marker() -> None:
    report = verify_answer("Employer match vests after two years [S1].", {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "unquoted"
    assert citation.quote is None
    assert report.sentences[0].status == "unquoted"
    assert report.verdict == "pass"


def test_unattributed_quote_found_in_a_source() -> None:
    report = verify_answer('The plan says "Employer match vests after two years".', {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "unattributed-quote"
    assert citation.markers == ()
    assert citation.source_marker == "S1"  # the report says where it appears
    assert report.sentences[0].status == "unattributed-quote"
    assert report.coverage == 0.0
    assert report.verdict == "flag"


def test_unattributed_quote_found_nowhere() -> None:
    report = verify_answer('The plan says "loans are forgiven after ten years".', {"S1": S1})
    citation = only_citation(report)
    assert citation.outcome == "unattributed-quote"
    assert citation.source_marker is None


def test_uncited_claim_and_no_claim_statuses() -> None:
    answer = (
        "Here is what the plan says about vesting.\n"
        'The plan says "Employer match vests after two years" [S1].\n'
        "Loans are limited to half of the vested balance.\n"
        "Would you like more detail?"
    )
    report = verify_answer(answer, {"S1": S1})
    assert [(s.claim, s.status) for s in report.sentences] == [
        (False, "no-claim"),
        (True, "verified"),
        (True, "uncited-claim"),
        (False, "no-claim"),
    ]
    assert report.counts["uncited-claim"] == 1
    assert report.claims == 2
    assert report.attributed_claims == 1
    assert report.coverage == 0.5
    assert report.verdict == "flag"


def test_sentence_status_is_the_worst_citation() -> None:
    answer = 'The plan says "Employer match vests after two years" [S1] and loans exist [S7].'
    report = verify_answer(answer, {"S1": S1})
    assert sorted(outcomes(report)) == ["fabricated-marker", "verified"]
    assert report.sentences[0].status == "fabricated-marker"
    assert SENTENCE_STATUSES.index("fabricated-marker") < SENTENCE_STATUSES.index("verified")


def test_claim_carrying_only_fabricated_markers_is_not_attributed() -> None:
    report = verify_answer("Employer match vests after two years [S9].", {"S1": S1})
    assert report.claims == 1
    assert report.attributed_claims == 0
    # Counted where coverage counts it: a marker never injected cites nothing.
    assert report.counts["uncited-claim"] == 1
    assert report.sentences[0].status == "fabricated-marker"


def test_claim_whose_only_quote_is_unattributed_is_an_uncited_claim() -> None:
    report = verify_answer('The plan says "Employer match vests after two years".', {"S1": S1})
    assert report.sentences[0].status == "unattributed-quote"  # the worst citation still shows
    assert report.sentences[0].uncited_claim
    assert (report.claims, report.attributed_claims, report.coverage) == (1, 0, 0.0)
    assert report.counts["uncited-claim"] == 1
    assert report.counts["unattributed-quote"] == 1


UNCITED_ANSWERS = [
    'The plan says "Employer match vests after two years".',
    'The plan says "Employer match vests after two years" and "loans exist" [S1].',
    "Employer match vests after two years [S9]. Dependants are covered until age 26.",
    "Overall, the employer pays for every repair in the building.",
    "The match vests after two years. \U0001f389 Dependants are covered until age 26 [S2].",
    'Here is a summary.\nThe plan says "Employer match vests after two years" [S1].',
]


@pytest.mark.parametrize("answer", UNCITED_ANSWERS)
def test_uncited_claims_in_counts_agree_with_coverage(answer: str) -> None:
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH})
    uncited = report.claims - report.attributed_claims
    assert report.counts["uncited-claim"] == uncited
    assert sum(s.uncited_claim for s in report.sentences) == uncited
    assert report.to_dict()["counts"]["uncited-claim"] == uncited


def test_a_claim_after_a_summary_opener_needs_a_marker() -> None:
    report = verify_answer("Overall, the employer pays for every repair in the building.",
                           {"S1": S1})
    assert report.sentences[0].status == "uncited-claim"
    assert report.coverage == 0.0
    assert report.verdict == "flag"


def test_a_claim_before_an_emoji_is_not_attributed_by_the_next_sentence_marker() -> None:
    answer = "The match vests after two years. \U0001f389 Dependants are covered until age 26 [S2]."
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH})
    assert [s.status for s in report.sentences] == ["uncited-claim", "unquoted"]
    assert report.coverage == 0.5


# Several markers, quote blocks, references inside quotes ------------------------------


def test_quote_with_several_markers_verified_in_the_second() -> None:
    answer = 'Coverage "begins on the first day of the month after your hire date" [S1, S3].'
    report = verify_answer(answer, {"S1": S1, "S2": LOANS, "S3": HEALTH})
    citation = only_citation(report)
    assert citation.outcome == "verified"
    assert citation.markers == ("S1", "S3")
    assert citation.source_marker == "S3"
    assert HEALTH[citation.chunk_start : citation.chunk_end] == (
        "begins on the first day of the month after your hire date"
    )


def test_bracketed_reference_inside_a_quote_is_not_an_answer_marker() -> None:
    source = "Dense retrieval outperforms BM25 by 9 to 19 points [18] in top-20 accuracy."
    answer = 'The paper reports it "outperforms BM25 by 9 to 19 points [18]" [S1].'
    report = verify_answer(answer, {"S1": source})
    citation = only_citation(report)  # no fabricated-marker for [18]
    assert citation.outcome == "verified"
    assert citation.markers == ("S1",)
    assert report.counts["fabricated-marker"] == 0


DPR_CLAIM = "dense retrieval outperforms BM25 by 9 to 19 points [18] in top-20 accuracy."


def test_dropped_reference_in_a_quote_is_harmless() -> None:
    source = f"In our experiments, {DPR_CLAIM}"
    answer = 'The paper says "dense retrieval outperforms BM25 by 9 to 19 points in top-20" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "verified-fuzzy"
    assert source[citation.chunk_start : citation.chunk_end] == (
        "dense retrieval outperforms BM25 by 9 to 19 points [18] in top-20"
    )


def test_dropped_reference_in_a_quote_at_the_start_of_the_source_is_harmless() -> None:
    source = "D" + DPR_CLAIM[1:]
    answer = 'The paper says "dense retrieval outperforms BM25 by 9 to 19 points in top-20" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "verified-fuzzy"


def test_quote_block_uses_its_own_source() -> None:
    answer = '<quote source="S2">Dependants are covered until age 26.</quote>'
    citation = only_citation(verify_answer(answer, {"S1": S1, "S2": HEALTH}))
    assert citation.outcome == "verified"
    assert citation.source_marker == "S2"


def test_quote_block_naming_an_uninjected_source_is_fabricated() -> None:
    answer = '<quote source="S9">Dependants are covered until age 26.</quote>'
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH})
    assert "fabricated-marker" in outcomes(report)
    assert report.verdict == "fail"


def test_quote_block_naming_the_wrong_source() -> None:
    answer = '<quote source="S1">Dependants are covered until age 26.</quote>'
    citation = only_citation(verify_answer(answer, {"S1": S1, "S2": HEALTH}))
    assert citation.outcome == "wrong-source"
    assert citation.source_marker == "S2"


def test_two_quotes_share_the_marker_that_follows_them() -> None:
    answer = (
        'The plan says "Employer match vests after two years" and '
        '"Dependants are covered until age 26" [S1, S2].'
    )
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH})
    assert [(c.outcome, c.source_marker) for c in report.citations] == [
        ("verified", "S1"),
        ("verified", "S2"),
    ]


FORM = "Check the \u201cYes\u201d box on Form 1040 if you want $3 to go to this fund."


def test_a_curly_pair_inside_a_straight_quote_does_not_hide_the_quote() -> None:
    # Only \u201cYes\u201d used to be checked, and it is in the source: a false pass.
    answer = 'The instructions say "check the \u201cYes\u201d box on Form 2040" [S1].'
    report = verify_answer(answer, {"S1": FORM})
    citation = only_citation(report)
    assert citation.quote == "check the \u201cYes\u201d box on Form 2040"
    assert citation.outcome == "quote-altered"
    assert report.verdict == "flag"


@pytest.mark.parametrize("inner", ["\u201cYes\u201d", "\u2018Yes\u2019", "'Yes'"])
def test_a_straight_quote_holding_inner_quotes_verifies_against_the_source(inner: str) -> None:
    answer = f'The instructions say "check the {inner} box on Form 1040" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": FORM}))
    assert citation.quote == f"check the {inner} box on Form 1040"
    assert citation.outcome in ("verified", "verified-fuzzy")


def test_negation_just_before_the_quoted_words_alters_the_quote() -> None:
    source = "Do not start treatment on a single elevated reading; confirm it first."
    answer = 'The guideline says "start treatment on a single elevated reading" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "quote-altered"
    assert "not" in citation.message


def test_negation_in_the_previous_clause_does_not_alter_the_quote() -> None:
    source = "Do not wait. Start treatment on a single elevated reading."
    answer = 'The guideline says "Start treatment on a single elevated reading" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "verified"


# A negation cut off from the quote by a parenthetical (issue 23, item 6) -----------


@pytest.mark.parametrize(("source", "quote", "said"), [
    ("Do not, under any circumstances, start treatment before the culture results are known.",
     "start treatment before the culture results are known", "Do not, under any circumstances,"),
    ("Never, even in an emergency, exceed 4 g a day.", "exceed 4 g a day",
     "Never, even in an emergency,"),
    ("No patient, whatever their age, should receive the drug.", "should receive the drug",
     "No patient, whatever their age,"),
    # After another sentence, and in a quote that keeps the parenthetical.
    ("Dosing. Never, even in an emergency, exceed 4 g a day.",
     "even in an emergency, exceed 4 g a day", "Never,"),
])
def test_a_negation_across_a_parenthetical_alters_the_quote(
    source: str, quote: str, said: str
) -> None:
    # The comma that closes the parenthetical used to end the negation's
    # search: the worst false pass a clinical reviewer can meet.
    citation = only_citation(verify_answer(f'The guideline says "{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "quote-altered"
    assert [(d.op, d.reasons) for d in citation.differences] == [("omit-before", ("negation",))]
    # The negation in the source's own words, as the reviewer reads it.
    assert f"leaves out “{said}” just before the quoted words" in citation.message
    assert source[citation.chunk_start : citation.chunk_end] == quote


@pytest.mark.parametrize(("source", "quote"), [
    # A comma that does end a clause: one comma, no parenthetical.
    ("If not treated, the infection spreads. Treatment is urgent.", "the infection spreads"),
    ("If not treated, or if treated late, the infection spreads.", "the infection spreads"),
    ("No, the dose is 4 g a day for adults.", "the dose is 4 g a day"),
    ("No, not at all, the dose is 4 g a day for adults.", "the dose is 4 g a day"),
    ("No doubt, as the authors say, the dose is 4 g a day.", "the dose is 4 g a day"),
    ("Whether or not, in the end, the drug is given, start fluids.", "start fluids"),
    # The negation governs the clause before the parenthetical.
    ("If the patient does not respond, after 48 hours, start treatment at once.",
     "start treatment at once"),
    ("Without treatment, in most cases, the infection spreads.", "the infection spreads"),
    # A negation in another clause.
    ("Do not stop; start treatment at once.", "start treatment at once"),
    ("Do not wait. Then, in every case, start treatment at once.", "start treatment at once"),
    # The quote says the negation itself.
    ("Do not, under any circumstances, start treatment before the culture results are known.",
     "Do not, under any circumstances, start treatment"),
    ("No patient, whatever their age, should receive the drug.",
     "No patient, whatever their age, should receive the drug"),
])
def test_a_comma_that_ends_the_clause_still_stops_the_negation(source: str, quote: str) -> None:
    citation = only_citation(verify_answer(f'The guideline says "{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "verified"


def test_an_answer_that_says_the_negation_across_a_parenthetical_verifies() -> None:
    source = "Never, even in an emergency, exceed 4 g a day."
    answer = 'The guideline says never to "exceed 4 g a day" [S1].'
    assert only_citation(verify_answer(answer, {"S1": source})).outcome == "verified"


def test_spacing_accents_from_a_pdf_match_the_real_name() -> None:
    # The DPR paper's author line as PyMuPDF extracts it.
    source = "Vladimir Karpukhin\u2217, Barlas O\u02d8guz\u2217, Sewon Min\u2020, Patrick Lewis,"
    answer = 'The paper lists "Barlas Oğuz" as an author [1].'
    citation = only_citation(verify_answer(answer, {"1": source}))
    assert citation.outcome == "verified"
    assert source[citation.chunk_start : citation.chunk_end] == "Barlas O\u02d8guz"


def test_skipped_page_furniture_does_not_break_a_quote() -> None:
    text = "Employer match vests after\nACME 401(k) Plan Page 3\ntwo years of service."
    header = (text.index("ACME"), text.index("\ntwo"))
    answer = 'The plan says "Employer match vests after two years of service" [S1].'
    citation = only_citation(verify_answer(answer, [Source("S1", text, skip=(header,))]))
    assert citation.outcome == "verified"
    assert (citation.chunk_start, citation.chunk_end) == (0, len(text) - 1)


# Offsets ------------------------------------------------------------------------------

ARTEFACT_SOURCE = (
    "Section 4.2 \u2014 Vesting\n"
    "Employer matching contri-\nbutions credited to a participant\u2019s account vest after "
    "two years of ser-\nvice.  A participant who termi-\nnates employment before completing "
    "two years forfeits the unvested por-\ntion, which is used to reduce future employer "
    "contributions. Salary deferrals are al-\nways one hundred percent vested and are exempt "
    "from the ﬁve-year schedule\u00a0that applies to proﬁt-sharing awards."
)


def test_chunk_range_indexes_the_original_source_exactly() -> None:
    # Every run of 3..8 normalised words, quoted as a model that repaired the
    # artefacts would quote it, must verify; its chunk range must start and end
    # on the original words and normalise back to the quote.
    words = normalize(ARTEFACT_SOURCE).text.split(" ")
    checked = 0
    for size in range(3, 9):
        for first in range(len(words) - size + 1):
            quote = " ".join(words[first : first + size])
            answer = f'The plan says "{quote}" [S1].'
            citation = only_citation(verify_answer(answer, {"S1": ARTEFACT_SOURCE}))
            assert citation.outcome == "verified", quote
            start, end = citation.chunk_start, citation.chunk_end
            assert start is not None and end is not None
            chunk = ARTEFACT_SOURCE[start:end]
            assert normalize(chunk).text == quote
            assert chunk == chunk.strip()
            assert start == 0 or ARTEFACT_SOURCE[start - 1].isspace(), (quote, chunk)
            assert answer[citation.quote_start : citation.quote_end] == quote
            checked += 1
    assert checked > 300


def test_answer_offsets_are_exact() -> None:
    answer = (
        "Here is the rule.\n"
        'The plan says \u201cEmployer match vests after two years\u201d [S1]. '
        "Loans exist [S2]."
    )
    report = verify_answer(answer, {"S1": S1, "S2": LOANS})
    for sentence in report.sentences:
        assert answer[sentence.start : sentence.end] == sentence.text
        for citation in sentence.citations:
            if citation.quote is not None:
                assert answer[citation.quote_start : citation.quote_end] == citation.quote
            if citation.marker_start is not None:
                marker = answer[citation.marker_start : citation.marker_end]
                assert re.fullmatch(r"\[S\d\]", marker)


# Long quotes ------------------------------------------------------------------------------


def test_long_quote_verified_exactly() -> None:
    assert len(LONG_QUOTE) > 300
    citation = only_citation(verify_answer(quoted(LONG_QUOTE), {"S1": PLAN}))
    assert citation.outcome == "verified"
    assert PLAN[citation.chunk_start : citation.chunk_end] == LONG_QUOTE


@pytest.mark.parametrize(
    ("source", "quote", "typo"),
    [
        (PLAN, LONG_QUOTE, ("forfeits", "forfiets")),
        (PLAN, LONG_QUOTE, ("participant who", "participamt who")),
        (PLAN, LONG_QUOTE, ("reduce", "reduse")),
        (GUIDELINE, GUIDELINE_QUOTE, ("monitored", "monitured")),
        (GUIDELINE, GUIDELINE_QUOTE, ("impairment", "impairmant")),
    ],
)
def test_long_quote_with_one_letter_changed_is_verified_fuzzy(
    source: str, quote: str, typo: tuple[str, str]
) -> None:
    assert len(quote) > 300
    altered = quote.replace(*typo, 1)
    citation = only_citation(verify_answer(quoted(altered), {"S1": source}))
    assert citation.outcome == "verified-fuzzy"
    assert [(d.source, d.quote, d.reasons) for d in citation.differences] == [
        (typo[0].split()[0].lower(), typo[1].split()[0].lower(), ())
    ]
    # The chunk range is the quoted passage, not the sentence before it.
    assert source[citation.chunk_start : citation.chunk_end] == quote


@pytest.mark.parametrize(
    ("source", "quote", "change", "reason"),
    [
        (PLAN, LONG_QUOTE, ("completing two years", "completing three years"), "number"),
        (PLAN, LONG_QUOTE, ("one hundred percent", "fifty percent"), "number"),
        (PLAN, LONG_QUOTE, ("are not subject", "are subject"), "negation"),
        (GUIDELINE, GUIDELINE_QUOTE, ("1000 mg", "100 mg"), "number"),
        (GUIDELINE, GUIDELINE_QUOTE, ("1000 mg", "1000 g"), "unit"),
        (GUIDELINE, GUIDELINE_QUOTE, ("should not be started", "should be started"), "negation"),
        (GUIDELINE, GUIDELINE_QUOTE, ("three to six months", "three to six weeks"), "unit"),
    ],
)
def test_long_quote_with_meaning_changed_is_quote_altered(
    source: str, quote: str, change: tuple[str, str], reason: str
) -> None:
    altered = quote.replace(*change, 1)
    assert altered != quote
    report = verify_answer(quoted(altered), {"S1": source})
    citation = only_citation(report)
    assert citation.outcome == "quote-altered"
    assert reason in {r for d in citation.differences for r in d.reasons}
    assert report.verdict == "flag"


# Verdicts and configuration ---------------------------------------------------------------


def test_verdict_pass_flag_fail() -> None:
    sources = {"S1": S1}
    assert verify_answer(quoted("Employer match vests after two years"), sources).verdict == "pass"
    assert verify_answer(quoted("Employer match vests at once"), sources).verdict == "flag"
    failed = verify_answer(quoted("Employer match vests after two years", "[S1][S4]"), sources)
    assert failed.verdict == "fail"
    assert any("fabricated" in reason for reason in failed.reasons)


def test_coverage_ratio_and_min_coverage() -> None:
    answer = (
        "Employer match vests after two years [S1]. "
        "Loans are limited to half of the vested balance. "
        "Dependants are covered until age 26 [S2]. "
        "Hardship withdrawals need written approval."
    )
    sources = {"S1": S1, "S2": HEALTH}
    report = verify_answer(answer, sources)
    assert report.claims == 4
    assert report.attributed_claims == 2
    assert report.coverage == 0.5
    assert report.verdict == "flag"
    assert any("coverage" in reason for reason in report.reasons)
    assert verify_answer(answer, sources, config=VerificationConfig(min_coverage=0.5)).verdict == (
        "pass"
    )
    assert verify_answer(answer, sources, config=VerificationConfig(min_coverage=0.6)).verdict == (
        "flag"
    )


def test_answer_without_claims_has_full_coverage() -> None:
    report = verify_answer("Here is what I found.\nI hope this helps!", {"S1": S1})
    assert report.claims == 0
    assert report.coverage == 1.0
    assert report.verdict == "pass"


def test_require_quotes_flags_unquoted_markers() -> None:
    answer = "Employer match vests after two years [S1]."
    assert verify_answer(answer, {"S1": S1}).verdict == "pass"
    strict = verify_answer(answer, {"S1": S1}, config=VerificationConfig(require_quotes=True))
    assert strict.verdict == "flag"
    assert any("quote" in reason for reason in strict.reasons)
    # A quoted answer passes either way.
    quoted_answer = quoted("Employer match vests after two years")
    config = VerificationConfig(require_quotes=True)
    assert verify_answer(quoted_answer, {"S1": S1}, config=config).verdict == "pass"


def test_threshold_decides_between_fuzzy_and_not_found() -> None:
    answer = quoted("Employer match vests aftr two years of service")
    assert only_citation(verify_answer(answer, {"S1": S1})).outcome == "verified-fuzzy"
    strict = verify_answer(answer, {"S1": S1}, config=VerificationConfig(threshold=0.995))
    assert only_citation(strict).outcome == "quote-not-found"
    assert strict.threshold == 0.995


def test_sources_as_mapping_or_sequence_and_case_insensitive_markers() -> None:
    answer = quoted("Employer match vests after two years")
    as_mapping = verify_answer(answer, {"s1": S1})
    as_sequence = verify_answer(answer, [Source(marker="[s1]", text=S1)])
    assert outcomes(as_mapping) == outcomes(as_sequence) == ["verified"]


@pytest.mark.parametrize(
    "sources",
    [
        [Source("S1", S1), Source("s1", HEALTH)],
        [Source(" ", S1)],
    ],
)
def test_bad_sources_raise_value_error(sources: list[Source]) -> None:
    with pytest.raises(ValueError):
        verify_answer("Employer match vests [S1].", sources)


def test_answer_must_be_str() -> None:
    with pytest.raises(TypeError):
        verify_answer(b"Employer match vests [S1].", {"S1": S1})  # type: ignore[arg-type]


def test_empty_answer() -> None:
    report = verify_answer("", {"S1": S1})
    assert report.sentences == ()
    assert report.verdict == "pass"


def test_hostile_html_is_just_text() -> None:
    answer = (
        '<script>alert("x")</script><img src=x onerror="alert(1)">'
        '<b onmouseover="steal()">The plan</b> says "Employer match vests after two years" '
        "[S1]. <iframe src='javascript:alert(2)'></iframe>"
    )
    report = verify_answer(answer, {"S1": S1})
    assert "verified" in outcomes(report)
    assert any("<script>" in s.text for s in report.sentences)
    json.dumps(report.to_dict())


def test_hostile_html_in_a_source_is_just_text() -> None:
    source = '<script>document.write("Employer match vests after two years")</script>'
    report = verify_answer(quoted("Employer match vests after two years"), {"S1": source})
    assert outcomes(report) == ["verified"]


# Report format -------------------------------------------------------------------------------

REPORT_KEYS = {"id", "verdict", "counts", "coverage", "threshold", "sentences", "elapsed_ms"}
SENTENCE_KEYS = {"index", "start", "end", "text", "claim", "status", "citations"}
CITATION_KEYS = {
    "marker", "quote", "quote_start", "quote_end", "outcome", "score", "source_marker",
    "chunk_start", "chunk_end",
}


def test_to_dict_is_json_and_has_the_documented_keys() -> None:
    answer = (
        "Here is the answer.\n"
        'The plan says "Employer match vests aftr two years of service" [S1]. '
        "Loans exist [S9]. Coverage begins on the first day [S2].\n"
        '"Dependants are covered until age 26" is also true.'
    )
    report = verify_answer(answer, {"S1": S1, "S2": HEALTH}, answer_id="a-17")
    data = json.loads(json.dumps(report.to_dict()))
    assert data.keys() >= REPORT_KEYS
    assert data["id"] == "a-17"
    assert data["verdict"] == "fail"
    assert set(data["counts"]) >= {*OUTCOMES, "uncited-claim"}
    assert data["elapsed_ms"] >= 0
    assert [s["index"] for s in data["sentences"]] == list(range(len(data["sentences"])))
    citations = []
    for sentence in data["sentences"]:
        assert set(sentence) == SENTENCE_KEYS
        assert sentence["status"] in SENTENCE_STATUSES
        citations.extend(sentence["citations"])
    assert {c["outcome"] for c in citations} == {
        "verified-fuzzy", "fabricated-marker", "unquoted", "unattributed-quote",
    }
    for citation in citations:
        assert citation.keys() >= CITATION_KEYS
        assert citation["outcome"] in OUTCOMES


def test_counts_match_the_citations() -> None:
    answer = (
        'The plan says "Employer match vests after two years" [S1]. Loans exist [S2]. '
        "Vests [S8][S9]. Loans are limited to half of the balance."
    )
    report = verify_answer(answer, {"S1": S1, "S2": LOANS})
    assert report.counts["verified"] == 1
    assert report.counts["unquoted"] == 1
    assert report.counts["fabricated-marker"] == 2
    assert report.counts["uncited-claim"] == 1
    assert sum(report.counts[o] for o in OUTCOMES) == len(report.citations)


def test_verified_citation_explains_its_normalisations() -> None:
    answer = quoted("Employer match vests after two years of service")
    citation = only_citation(verify_answer(answer, {"S1": S1}))
    assert citation.outcome == "verified"
    assert "line-break-hyphenation" in citation.normalizations
    assert "whitespace" in citation.normalizations


# Known bugs, as the product should behave --------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The enrolment deposit is nonrefundable after 30 days.", "refundable after 30 days"),
        ("The enrolment deposit is non-refundable after 30 days.", "refundable after 30 days"),
        (
            "Claims must be filed within 130 days of the date of service.",
            "30 days of the date of service",
        ),
        ("The plan forfeits the unvested balance on termination.", "vested balance on termination"),
    ],
)
def test_quote_that_cuts_a_word_is_not_verified(source: str, quote: str) -> None:
    report = verify_answer(quoted(quote), {"S1": source})
    assert only_citation(report).outcome not in ("verified", "verified-fuzzy")
    assert report.verdict == "flag"


def test_dropped_not_after_an_em_dash_is_quote_altered() -> None:
    source = (
        "Coverage for dependants ends on the last day of the month of employment\u2014not on "
        "the date of termination itself, unless the plan administrator decides otherwise."
    )
    quote = (
        "Coverage for dependants ends on the last day of the month of employment\u2014on "
        "the date of termination itself"
    )
    assert only_citation(verify_answer(quoted(quote), {"S1": source})).outcome == (
        "quote-altered"
    )


def test_em_dash_retyped_as_spaced_hyphen_is_harmless() -> None:
    source = (
        "Coverage for dependants ends on the last day of the month of employment\u2014not on "
        "the date of termination itself, unless the plan administrator decides otherwise."
    )
    quote = (
        "Coverage for dependants ends on the last day of the month of employment - not on "
        "the date of termination itself"
    )
    # The em dash folds to a spaced hyphen, so the retyped quote is verbatim.
    assert only_citation(verify_answer(quoted(quote), {"S1": source})).outcome == "verified"


def test_number_range_broken_at_a_line_end_is_verified() -> None:
    source = "Patients should be reassessed every 10-\n12 weeks while on therapy."
    answer = quoted("Patients should be reassessed every 10-12 weeks while on therapy")
    assert only_citation(verify_answer(answer, {"S1": source})).outcome in (
        "verified", "verified-fuzzy",
    )


def test_quote_directly_followed_by_marker_is_checked() -> None:
    answer = 'The plan says "Employer match vests immediately"[S1].'
    assert only_citation(verify_answer(answer, {"S1": S1})).outcome == "quote-not-found"


def test_uncited_claim_after_a_quoted_sentence_is_flagged() -> None:
    answer = (
        'The plan states: "Employer match vests after two years of service." [S1] '
        "Loans are not offered to part-time staff."
    )
    report = verify_answer(answer, {"S1": S1})
    assert [s.status for s in report.sentences] == ["verified", "uncited-claim"]
    assert report.verdict == "flag"


def test_soft_hyphen_at_line_end_in_source_is_verified() -> None:
    source = "Employer match vests after two years of ser\u00ad\nvice."
    answer = quoted("Employer match vests after two years of service")
    assert only_citation(verify_answer(answer, {"S1": source})).outcome == "verified"


def test_hyphenation_across_skipped_page_furniture_is_verified() -> None:
    text = "Employer match vests after two years of ser-\nACME 401(k) Plan Page 3\nvice."
    header = (text.index("ACME"), text.index("\nvice"))
    answer = quoted("Employer match vests after two years of service")
    citation = only_citation(verify_answer(answer, [Source("S1", text, skip=(header,))]))
    assert citation.outcome == "verified"


def test_quote_citing_only_a_fabricated_marker_is_one_finding_carrying_the_quote() -> None:
    report = verify_answer('The plan says "loans are capped at half" [S9].', {"S1": "Other text."})
    (citation,) = report.citations
    assert citation.outcome == "fabricated-marker"
    assert citation.marker == "S9"
    assert citation.quote == "loans are capped at half"
    assert report.verdict == "fail"


def test_quote_that_stops_just_before_not_is_altered() -> None:
    source = "A processing artifact should not be scored as a lesion in the final report."
    report = verify_answer('The guide says "A processing artifact should" [S1].', {"S1": source})
    (citation,) = report.citations
    assert citation.outcome == "quote-altered"
    assert "stops just before “not”" in citation.message


def test_spacing_around_a_range_dash_is_not_a_number_change() -> None:
    source = "The appendix on pages 624\u2013\n643 lists every exclusion that applies to the plan."
    answer = 'It is "on pages 624 - 643 lists every exclusion that applies to the plan" [S1].'
    (citation,) = verify_answer(answer, {"S1": source}).citations
    assert citation.outcome in ("verified", "verified-fuzzy")


def test_a_negation_the_answer_states_itself_is_not_a_left_out_negation() -> None:
    source = ("Either party may terminate if the other party does not remedy it within 30 days "
              "of written notice.")
    faithful = ('Termination follows if a breach is not remedied "within 30 days of written '
                'notice" [S1].')
    (citation,) = verify_answer(faithful, {"S1": source}).citations
    assert citation.outcome == "verified"
    stripped = ('Termination follows if a breach is remedied "within 30 days of written '
                'notice" [S1].')
    (citation,) = verify_answer(stripped, {"S1": source}).citations
    assert citation.outcome == "quote-altered"


def test_citation_to_dict_is_asdict_with_lists_and_a_rounded_score() -> None:
    # to_dict() is written out field by field; it must stay what
    # dataclasses.asdict gives, in field order, as more fields are added.
    citation = Citation(
        outcome="quote-altered", marker="S1", markers=("S1", "S2"), marker_start=3,
        marker_end=7, quote="q", quote_start=1, quote_end=2, score=0.123456, source_marker="S1",
        chunk_start=4, chunk_end=9, message="m", normalizations=("case", "whitespace"),
        differences=(Difference("replace", "30", "60", ("number",)),), document=12,
        document_start=40, document_end=45, superseded=True, passage_start=2, passage_end=11,
        support=0.654321, shared=((4, 6),), missing=("vests",),
        findings=(ClaimFinding("number", "3 years", 5, 12, "m", "two years", "S1", 4, 13),),
    )
    expected = dataclasses.asdict(citation)
    expected["support"] = round(0.654321, 4)
    expected["shared"] = [[4, 6]]
    expected["missing"] = ["vests"]
    expected["findings"] = [dataclasses.asdict(f) for f in citation.findings]
    expected["markers"] = list(citation.markers)
    expected["normalizations"] = list(citation.normalizations)
    expected["differences"] = [
        {**dataclasses.asdict(d), "reasons": list(d.reasons)} for d in citation.differences
    ]
    expected["score"] = round(0.123456, 4)
    assert list(citation.to_dict().items()) == list(expected.items())
    bare = dataclasses.replace(citation, score=None, differences=(), document=None)
    assert bare.to_dict()["score"] is None
    assert list(bare.to_dict()) == [f.name for f in dataclasses.fields(Citation)]


# The exact match settled on the head of a region ------------------------------

PDF_WORDS = [
    "the", "office", "ﬁrst", "eﬀective", "conﬁrmed", "ser-\nvice", "not", "never", "30", "days",
    "Dr.", "Smith", "plan,", "year.", "  ", "\n", "oﬃce", "it\u2019s", "co\u00ad\noperate",
    "well-known", "—", "a", "member",
]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(PDF_WORDS), min_size=30, max_size=150).map(" ".join), st.data())
def test_property_exact_match_on_the_head_is_the_whole_region_match(
    text: str, data: st.DataObject
) -> None:
    # As _found_in uses it: a region around where the quote roughly is.
    pool = _Sources([Source(marker="S1", text=text)])
    whole = normalize(text)
    words = whole.text.split(" ")
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, min(len(words), first + 30)))
    quote = " ".join(words[first : last + 1]).strip(" ")
    if data.draw(st.booleans()) and quote:
        at = data.draw(st.integers(0, len(quote) - 1))
        quote = quote[:at] + data.draw(st.sampled_from("aex1 ")) + quote[at + 1 :]
        quote = quote.strip(" ")
    at = whole.text.find(quote) if quote else -1
    o0, o1 = whole.to_original(at, at + len(quote)) if at >= 0 else (0, len(text))
    reach = data.draw(st.integers(200, 260))  # as _found_in: at least 200
    a, b = pool.bounds("S1", o0 - reach, o1 + reach)
    near = o1 + data.draw(st.integers(-80, 10))

    region, exact = _exact_first(quote, "S1", pool, a, b, near)
    reference = normalize(text[a:b])
    if exact is not None:
        # Settled early: the match, and the context read around it, are the
        # whole region's.
        assert exact == find_exact(quote, reference)
        assert exact.exact
        assert negation_before(region, exact) == negation_before(reference, exact)
    else:
        assert region.text == reference.text
        assert region.original == reference.original
        found = align(quote, region)
        assert found == align(quote, reference)
        if found is not None:
            assert compare(normalize(quote), region, found) == compare(
                normalize(quote), reference, found
            )


def test_a_quote_from_letter_spaced_text_is_verified_and_says_so() -> None:
    # An OCR text layer: every letter its own box, spaces between them.
    source = "Parties:\nC h i n a Ocean S h i p p i n g ( G r o u p ) C o m p a n y\nand APL."
    report = verify_answer('It binds "China Ocean Shipping (Group) Company" [S1].',
                           {"S1": source})
    citation = only_citation(report)
    assert citation.outcome == "verified"
    assert "letter-spacing" in citation.normalizations
    assert source[citation.chunk_start:citation.chunk_end] == (
        "C h i n a Ocean S h i p p i n g ( G r o u p ) C o m p a n y")


def test_a_changed_letter_in_letter_spaced_text_is_not_verified() -> None:
    source = "Parties: C h i n a Ocean S h i p p i n g Company and APL."
    report = verify_answer('It binds "China Ocean Shopping Company" [S1].', {"S1": source})
    assert only_citation(report).outcome == "quote-not-found"


def test_the_other_party_in_a_quote_is_quote_altered_not_a_repaired_typo() -> None:
    source = "The employer shall reimburse the employee within 30 days of the claim."
    report = verify_answer(
        'The agreement says "The employee shall reimburse the employee within 30 days" [S1].',
        {"S1": source})
    citation = only_citation(report)
    assert citation.outcome == "quote-altered"
    assert "“employee” for “employer” (word)" in citation.message


def test_a_verbatim_quote_is_located_in_its_source_not_in_a_near_duplicate() -> None:
    # The screen over the other sources aligns raw text, where S2's whole
    # "criteria" outscores S3, a chunk cut off at "crite"; the quote, copied
    # up to that cut, is verbatim in S3.
    sources = {
        "S1": "Unrelated text about parking permits and their fees.",
        "S2": "The committee has decided to revise the eligibility criteria from June.",
        "S3": "Because enrolment declined, the office has\ndecided to revise the eligibility "
              "crite",
    }
    quote = "has\ndecided to revise the eligibility crite"
    report = verify_answer(f'The plan says "{quote}" [S9].', sources)
    citation = only_citation(report)
    assert citation.outcome == "fabricated-marker"
    assert citation.source_marker == "S3"
    assert sources["S3"][citation.chunk_start:citation.chunk_end] == quote


def test_korean_quote_is_found_in_a_long_source() -> None:
    # A verbatim Hangul quote used to score 0.52 against a chunk of a few
    # kilobytes: the quote was normalised to jamo, the screens read syllables.
    quote = "유사 바이러스 감염증 발생 시 보험금 지급 기준"
    filler = (
        "코로나-19의 재해 인정 여부가 향후 다른 보험사는 "
        "불인정하여 재해보험금을 지급하지 않는 등 혼선이\n"
    )
    source = filler * 20 + quote + "\n\n을 정립함에 있어서 중요한 잣대가 될 것이다.\n" + filler * 20
    report = verify_answer(f'"{quote}" [S1].', {"S1": source})
    citation = report.citations[0]
    assert citation.outcome == "verified"
    assert source[citation.chunk_start : citation.chunk_end] == quote
# Issue 10, items 5 and 6: compounds, dashes, numbers and names keep their edges.

UPTAKE = ("Regional report. Overall, the rate of uptake across the region rose to 73.6% in "
          "2020, and then fell back the following year.")


@pytest.mark.parametrize(
    "quote",
    [
        "the rate of uptake across the region rose to 76.3%",
        "the rate of uptake across the region rose to 76.3% in 2020",
        "76.3% in 2020, and then fell back the following year",
    ],
)
def test_a_changed_percentage_is_altered_and_its_span_holds_the_whole_number(
    quote: str
) -> None:
    report = verify_answer(f'The report says "{quote}" [S1].', {"S1": UPTAKE})
    citation = only_citation(report)
    assert citation.outcome == "quote-altered"
    assert "“76.3” for “73.6” (number)" in citation.message
    assert citation.chunk_start is not None and citation.chunk_end is not None
    number = UPTAKE.index("73.6%")
    assert citation.chunk_start <= number and number + len("73.6%") <= citation.chunk_end


def test_a_quote_of_one_part_of_an_in_line_compound_is_verified() -> None:
    source = "Since 2019 the clinic has been government-run and free at the point of use."
    report = verify_answer('The clinic is "government" funded [S1].', {"S1": source})
    citation = only_citation(report)
    assert citation.outcome == "verified"
    assert source[citation.chunk_start : citation.chunk_end] == "government"


def test_an_em_dash_typed_as_a_hyphen_is_a_repair_not_a_lost_negation() -> None:
    source = ("Severance is calculated from the last day of employment\u2014not the date of "
              "notice\u2014and is paid within 30 days.")
    answer = ('Severance runs "from the last day of employment-not the date of notice" [S1].')
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome in ("verified", "verified-fuzzy")
    assert "negation" not in citation.message


def test_a_moved_comma_or_line_break_in_an_address_is_a_repair() -> None:
    source = "Contact: Maersk Line A/S\n50, Esplanaden\n1098 Copenhagen K, Denmark."
    answer = 'Write to "Maersk Line A/S, 50 Esplanaden, 1098 Copenhagen K" [S1].'
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "verified-fuzzy"
    assert "adds “,”; drops “,”" not in citation.message
    assert "moves “,”" in citation.message
    assert all(not d.reasons for d in citation.differences)


def test_a_moved_negation_is_altered_and_said_once_as_a_move() -> None:
    source = ("Clause 7. The tenant is required not to sublet the flat or any part of it "
              "without the written consent of the landlord.")
    answer = ('The lease says "The tenant is not required to sublet the flat or any part of '
              'it without the written consent of the landlord" [S1].')
    citation = only_citation(verify_answer(answer, {"S1": source}))
    assert citation.outcome == "quote-altered"
    assert citation.message.endswith("changes its meaning: moves “not” (negation)")
# Where a quote is when the cited source is not it -----------------------------------

NEGATED = "Do not start treatment on a single elevated reading; confirm it first."
OTHER = "Blood pressure is measured twice, at least a week apart."


@pytest.mark.parametrize(("answer", "outcome", "marker"), [
    ('It says "start treatment on a single elevated reading" [S2].', "wrong-source", "S2"),
    ('It says "start treatment on a single elevated reading".', "unattributed-quote", None),
    ('It says "start treatment on a single elevated reading" [S9].', "fabricated-marker", "S9"),
])
def test_a_copy_elsewhere_that_leaves_out_a_negation_still_says_where_it_is(
    answer: str, outcome: str, marker: str | None
) -> None:
    citation = only_citation(verify_answer(answer, {"S1": NEGATED, "S2": OTHER}))
    assert (citation.outcome, citation.marker, citation.source_marker) == (outcome, marker, "S1")
    assert "[S1], where it leaves out “not” just before the quoted words" in citation.message
    assert [(d.op, d.source) for d in citation.differences] == [("omit-before", "not")]
    assert NEGATED[citation.chunk_start : citation.chunk_end] == (
        "start treatment on a single elevated reading")


def test_a_copy_elsewhere_after_a_negation_and_its_parenthetical_says_so() -> None:
    sources = {"S1": "Never, even in an emergency, exceed 4 g a day.", "S2": OTHER}
    citation = only_citation(verify_answer('It says "exceed 4 g a day" [S2].', sources))
    assert (citation.outcome, citation.source_marker) == ("wrong-source", "S1")
    assert ("[S1], where it leaves out “Never, even in an emergency,” just before the quoted "
            "words (negation)") in citation.message


def test_a_quote_in_its_cited_source_after_a_negation_is_altered_there() -> None:
    # Left out in both: the cited source's copy is the one to report.
    sources = {"S1": NEGATED, "S2": "Never start treatment on a single elevated reading."}
    citation = only_citation(verify_answer(
        'It says "start treatment on a single elevated reading" [S2].', sources))
    assert (citation.outcome, citation.source_marker) == ("quote-altered", "S2")


def test_verbatim_elsewhere_beats_fuzzy_in_the_cited_source() -> None:
    sources = {
        "S1": "Premiums are payable monthly in advence by direct debit from the account.",
        "S2": "Premiums are payable monthly in advance by direct debit from the account.",
    }
    answer = 'The policy says "Premiums are payable monthly in advance by direct debit" [{}].'
    citation = only_citation(verify_answer(answer.format("S1"), sources))
    assert (citation.outcome, citation.source_marker) == ("wrong-source", "S2")
    assert citation.message == "the quote cites [S1] but appears in [S2]"
    # Cited right, it is verified there.
    citation = only_citation(verify_answer(answer.format("S2"), sources))
    assert (citation.outcome, citation.source_marker) == ("verified", "S2")
    # With no verbatim copy anywhere, the repaired typo passes as fuzzy.
    citation = only_citation(verify_answer(answer.format("S1"), {"S1": sources["S1"]}))
    assert citation.outcome == "verified-fuzzy"


@pytest.mark.parametrize(("quote", "source"), [
    ("Persuasion (film)", "Persuasion (novel)\nPersuasion is the last novel by Jane Austen."),
    ("Persuasion (film)", "See also: Persuasion (novel), a list of adaptations."),
    ("Pride and Prejudice and Zombies (film)",
     "Pride and Prejudice and Zombies (novel) is a 2009 parody novel."),
])
def test_a_word_put_in_for_another_in_a_short_quote_carries_a_reason(
    quote: str, source: str
) -> None:
    citation = only_citation(verify_answer(f'It is "{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "quote-altered"
    assert [(d.op, d.source, d.quote, d.reasons) for d in citation.differences] == [
        ("replace", "novel", "film", ("word",))]
    assert source[citation.chunk_start : citation.chunk_end] == quote.replace("film", "novel")


def test_a_short_quote_is_not_an_alteration_of_a_phrase_it_cuts_into() -> None:
    # "vests after" two years: one word differs, but the source's words run
    # on, so the quote is simply not there.
    citation = only_citation(verify_answer('It says "Employer match vests immediately" [S1].',
                                           {"S1": S1}))
    assert citation.outcome == "quote-not-found"


@pytest.mark.parametrize(
    ("quote", "source", "swapped"),
    [
        # Below the threshold, but every other word is the source's, in order.
        ("fact that the Jacobson stumbles at the first",
         "The fact that the Chapel stumbles at the first step of the inquiry.", "Chapel"),
        ("Duty of Tonnage, keep Troops, or Absence of War",
         "lay any\nDuty of Tonnage, keep Troops, or Ships of War in time of\nPeace", "Ships"),
        # A number put in for another in a short title.
        ("Persuasion (2022 film)", "Films:\nPersuasion (1995 film)\nEmma (novel)\n", "1995"),
        # Over 120 characters, but a German compound of 20 letters put in for
        # another takes the score under the threshold all the same.
        ("Gewinnspiele mit Werbecharakter müssen klar als solche erkennbar und die "
         "Berufsbezeichnung leicht zugänglich sein sowie klar",
         "4. Preisausschreiben oder Gewinnspiele mit Werbecharakter müssen klar als solche "
         "erkennbar und die\nTeilnahmebedingungen leicht zugänglich sein sowie klar und "
         "unzweideutig angegeben werden.", "Teilnahmebedingungen"),
    ],
)
def test_a_passage_with_one_word_put_in_for_another_is_altered_below_the_threshold(
    quote: str, source: str, swapped: str
) -> None:
    citation = verify_answer(f'"{quote}" [S1].', {"S1": source}).citations[0]
    assert citation.outcome == "quote-altered"
    assert citation.score < VerificationConfig().threshold
    assert swapped in source[citation.chunk_start : citation.chunk_end]


def test_a_short_quote_sharing_all_but_one_word_with_a_clause_fragment_is_not_found() -> None:
    # Four words, one swapped, not a whole item of the source: not evidence
    # enough that the quote was taken from here.
    citation = verify_answer('"Employer match vests immediately" [S1].', {"S1": S1}).citations[0]
    assert citation.outcome == "quote-not-found"


# Extraction noise a quote carries: a kept line-break hyphen ------------------------

# The SCOTUS slip opinion breaks lines with soft hyphens; a model copies the
# break as a space and the soft hyphen as "-".
TARRANT = (
    "and Oklahoma is asked to refrain from utilizing more than its entitled share. "
    "The Oklahoma water statutes can\u00ad\nnot discriminate against interstate commerce "
    "with re\u00ad\nspect to unallocated waters because the Compact leaves no"
)


@pytest.mark.parametrize("quote", [
    "The Oklahoma water statutes can- not discriminate against interstate commerce with",
    "The Oklahoma water statutes cannot discriminate against interstate commerce with re- spect",
])
def test_a_kept_line_break_hyphen_is_not_a_lost_negation(quote: str) -> None:
    # Was "“not” for “cannot” (negation)": quote-altered.
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": TARRANT}))
    assert citation.outcome == "verified"
    assert "line-break-hyphenation" in citation.normalizations


def test_a_quote_from_after_a_suspended_hyphen_still_verifies() -> None:
    # "pre- and" is joined like a kept line-break hyphen ("preand"); the
    # quote starting at "and" still starts on a word boundary.
    source = "Both pre- and post-operative care are covered by the plan for all members."
    citation = only_citation(verify_answer(
        '"and post-operative care are covered by the plan" [S1].', {"S1": source}))
    assert citation.outcome == "verified"
    assert source[citation.chunk_start:citation.chunk_end] == (
        "and post-operative care are covered by the plan")


# Extraction noise a quote carries: spacing and footnote markers ---------------------


@pytest.mark.parametrize(("source", "quote"), [
    ("تعتبر البرمجة بلغة R وPython\nمن األدوات القوية التي يمكن أن تعزز اإلنتاجية وتساعد",
     "البرمجة بلغة R و Python من األدوات القوية التي يمكن"),
    ("Should use title case1 and consider using bold for the heading of the box.",
     "Should use title case 1 and consider using bold"),
])
def test_a_quote_spaced_otherwise_is_verified_fuzzy_with_spacing_named(
    source: str, quote: str
) -> None:
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "verified-fuzzy"
    assert "spacing" in citation.normalizations
    assert [d.repair for d in citation.differences] == ["spacing"]
    assert citation.to_dict()["differences"][0]["repair"] == "spacing"


def test_a_quote_that_leaves_out_a_footnote_marker_is_verified_fuzzy_and_says_so() -> None:
    source = ("production of this enzyme is mainly proceeded by\nsubmerged fermentation.30 "
              "Several researchers have stud-\nied the isolation of microbial strains")
    quote = "submerged fermentation. Several researchers have studied the isolation"
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "verified-fuzzy"
    assert "footnote-marker" in citation.normalizations
    assert "drops “30”" in citation.message


@pytest.mark.parametrize("quote", [
    "submerged fermentation. 3 Several researchers have studied the isolation",
    "submerged fermentation.3 Several researchers have studied the isolation",
])
def test_a_changed_footnote_marker_is_still_a_changed_number(quote: str) -> None:
    source = ("production of this enzyme is mainly proceeded by\nsubmerged fermentation.30 "
              "Several researchers have stud-\nied the isolation of microbial strains")
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "quote-altered"


# Issue 23 (outside documents): a CRS primer prints "…limited in duration.¹²
# Regulations state…". A quote that drops the marker right before its last
# word was read as "regulations" put in for "12" by the one-word-swap check.
_DURATION = ("The Act covers plant closings that are limited in duration.12 Regulations "
             "state that the notice must be given in writing to each affected employee.")


@pytest.mark.parametrize("quote", [
    "that are limited in duration. Regulations",
    "limited in duration. Regulations state",
    "duration. Regulations state that the notice",
])
def test_a_footnote_marker_dropped_next_to_the_quotes_edge_is_a_repair(quote: str) -> None:
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": _DURATION}))
    assert citation.outcome == "verified-fuzzy", citation.message
    assert "footnote-marker" in citation.normalizations


@pytest.mark.parametrize(("quote", "source"), [
    ("that are limited in duration. 13 Regulations", _DURATION),
    ("that are limited in duration. Regulations", _DURATION.replace("duration.12", "duration 12")),
    ("Patients take tablets", "Patients take 2 tablets each morning with water."),
])
def test_a_number_left_out_or_changed_beside_the_quotes_edge_is_still_altered(
    quote: str, source: str
) -> None:
    citation = only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source}))
    assert citation.outcome == "quote-altered", citation.message


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        # Korean writes no space before a counter: the number is inside the word.
        ("재해로 보장하는 법정7군 전염병은 콜레라, 장티푸스이었으나",
         "기존 생명보험에서 재해로 보장하는 법정1군 전염병은 콜레라, 장티푸스이었으나 이번에"),
        ("take vitamin B13 daily with food", "Patients should take vitamin B12 daily with food."),
    ],
)
def test_a_number_changed_inside_a_word_is_altered(quote: str, source: str) -> None:
    citation = verify_answer(f'"{quote}" [S1].', {"S1": source}).citations[0]
    assert citation.outcome == "quote-altered"
    assert "number" in citation.message


# Issue 23, item 5: quote marks that do not pair inside a quote.


def test_two_bibliography_quotes_with_unpaired_curly_marks_are_each_checked_by_their_marker(
) -> None:
    # The two straight quotes used to merge into one (the curly marks paired
    # across them), so [S1] fell inside the quote and went unchecked.
    answer = (
        'The list cites "Sales Rise,\u201d Daily News, 3 May; \u201cCosts Fall" [S1] and '
        '"ledger (What Finance Doesn\u2019t Say),\u201d Review 2 (2001)" [S4].'
    )
    sources = {
        "S1": "Press: \u201cSales Rise,\u201d Daily News, 3 May; \u201cCosts Fall,\u201d "
              "Daily News, 9 May.",
        "S4": "Books: Hall, J., \u201cledger (What Finance Doesn\u2019t Say),\u201d Review 2 "
              "(2001), 14\u201329.",
    }
    report = verify_answer(answer, sources)
    assert [(c.marker, c.source_marker, c.outcome, c.quote) for c in report.citations] == [
        ("S1", "S1", "verified",
         "Sales Rise,\u201d Daily News, 3 May; \u201cCosts Fall"),
        ("S4", "S4", "verified",
         "ledger (What Finance Doesn\u2019t Say),\u201d Review 2 (2001)"),
    ]
    for citation in report.citations:
        assert citation.quote_start is not None and citation.quote_end is not None
        assert answer[citation.quote_start : citation.quote_end] == citation.quote
    assert report.verdict == "pass"


def test_a_quote_across_a_forms_checkbox_glyphs_verifies() -> None:
    # Issue 23, a hospital booking form: each option is printed after a
    # Wingdings checkbox that extracts as a private-use character.
    source = ("Admit Category Within\n\uf0a3 3 days\n\uf0a3 1 week\n\uf0a3 2 weeks\n"
              "\uf0a3 3 weeks\n\uf0a3 4 weeks\n\n\uf0a3 6 weeks\n\uf0a3 12 weeks")
    quote = "Admit Category Within 3 days 1 week 2 weeks 3 weeks 4 weeks 6 weeks 12 weeks"
    assert only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source})).outcome == "verified"
    changed = quote.replace("12 weeks", "16 weeks")
    assert only_citation(
        verify_answer(f'"{changed}" [S1].', {"S1": source})).outcome == "quote-altered"


def test_a_worksheet_row_quoted_without_its_dot_leader_verifies() -> None:
    # Issue 23, IRS Schedule A's worksheets: "…using the Tax Table . . . 1."
    source = ("Enter the amount from line 1 here. Figure your tax using the Tax Table "
              ". . . . . . . . . . 1.\nAdd lines 2 and 3 . . . . . . . 4.")
    quote = "Figure your tax using the Tax Table 1."
    assert only_citation(verify_answer(f'"{quote}" [S1].', {"S1": source})).outcome == "verified"
    changed = quote.replace("1.", "2.")
    assert only_citation(
        verify_answer(f'"{changed}" [S1].', {"S1": source})).outcome == "quote-altered"
