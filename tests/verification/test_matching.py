"""align() and compare(): where a quote sits in a source, and what an edit changes."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rapidfuzz import fuzz

from verification import Difference, align, compare, normalize
from verification.diff import word_diff
from verification.matching import (
    _TOKEN,
    _refine,
    _token_starts,
    find_exact,
    find_letter_spaced,
    negation_before,
    words_between,
)
from verification.seeding import ratio_ceiling

REFERENCE = "Employer  match vests after\ntwo years of ser-\nvice."


def edits(source: str, quote: str) -> tuple[Difference, ...]:
    """compare() for ``quote`` against its best window in ``source``."""
    normalized_source = normalize(source)
    normalized_quote = normalize(quote)
    alignment = align(normalized_quote.text, normalized_source)
    assert alignment is not None
    return compare(normalized_quote, normalized_source, alignment)


def reasons(source: str, quote: str) -> set[str]:
    return {r for d in edits(source, quote) for r in d.reasons}


def as_tuples(differences: tuple[Difference, ...]) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [(d.op, d.source, d.quote, d.reasons) for d in differences]


# align() --------------------------------------------------------------------------


def test_align_exact_maps_to_original_range() -> None:
    source = normalize(REFERENCE)
    alignment = align("match vests after two years of service", source)
    assert alignment is not None
    assert alignment.exact
    assert alignment.score == 1.0
    assert source.text[alignment.norm_start : alignment.norm_end] == (
        "match vests after two years of service"
    )
    assert REFERENCE[alignment.source_start : alignment.source_end] == (
        "match vests after\ntwo years of ser-\nvice"
    )


def test_align_exact_finds_first_occurrence() -> None:
    source = normalize("The match vests. Later, the match vests again.")
    alignment = align("the match vests", source)
    assert alignment is not None
    assert (alignment.source_start, alignment.source_end) == (0, 15)


def test_align_fuzzy_covers_the_quoted_words() -> None:
    source = normalize(REFERENCE)
    alignment = align("employer match vests aftr two years of service", source)
    assert alignment is not None
    assert not alignment.exact
    assert 0.92 < alignment.score < 1.0
    assert REFERENCE[alignment.source_start : alignment.source_end] == (
        "Employer  match vests after\ntwo years of ser-\nvice"
    )


@pytest.mark.parametrize(
    ("quote", "expected"),
    [
        # A word dropped from the quote: the window must still cover the
        # source's words from the first quoted word to the last, and no more.
        (
            "contributions are refundable and non-forfeitable",
            "Contributions are not refundable and non-forfeitable",
        ),
        (
            "contributions are not refundabel and non-forfeitable in march",
            "Contributions are not refundable and non-forfeitable in March",
        ),
        (
            "approved by dr. smith in the trail [18] with 40 patients",
            "Approved by Dr. Smith in the trial [18] with 40 patients",
        ),
    ],
)
def test_align_fuzzy_window_starts_and_ends_at_the_quoted_words(
    quote: str, expected: str
) -> None:
    text = (
        "Employer  match vests after\ntwo years of ser-\nvice. Contributions are not "
        "refundable and non-forfeitable in March. The dose is 5 mg daily. Approved by "
        "Dr. Smith in the trial [18] with 40 patients."
    )
    alignment = align(quote, normalize(text))
    assert alignment is not None
    assert not alignment.exact
    assert text[alignment.source_start : alignment.source_end] == expected


def test_align_none_below_cutoff() -> None:
    source = normalize(REFERENCE)
    assert align("health coverage begins on the first day", source, score_cutoff=0.9) is None


def test_align_default_cutoff_returns_a_poor_window_with_its_score() -> None:
    alignment = align("health coverage begins on the first day", normalize(REFERENCE))
    assert alignment is not None
    assert not alignment.exact
    assert alignment.score < 0.7


@pytest.mark.parametrize(("quote", "source"), [("", REFERENCE), ("employer", ""), ("", "")])
def test_align_none_for_empty_texts(quote: str, source: str) -> None:
    assert align(quote, normalize(source)) is None


@pytest.mark.parametrize(
    ("quote", "source", "span"),
    [
        ("government", "The service is government-run and free.", "government"),
        ("run and free", "The service is government-run and free.", "run and free"),
        ("the smith", "It failed the Smith\u2013Jones test.", "the Smith"),
        ("jones test", "It failed the Smith\u2013Jones test.", "Jones test"),
    ],
)
def test_quote_of_one_part_of_an_in_line_compound_matches_exactly(
    quote: str, source: str, span: str
) -> None:
    found = find_exact(quote, normalize(source))
    assert found is not None and found.exact
    assert source[found.source_start : found.source_end] == span


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        # The part left out negates the rest: compared, not passed as verbatim.
        ("government organisations", "Grants to non-government organisations rose."),
        ("the loans are interest", "the loans are interest-free for members."),
        # Hyphenation at a line end is no compound: "ser" is no word there.
        ("two years of ser", "two years of ser-\nvice."),
    ],
)
def test_part_of_a_compound_is_not_exact_where_it_would_mislead(
    quote: str, source: str
) -> None:
    found = find_exact(quote, normalize(source))
    assert found is not None and not found.exact


def test_leaving_out_a_negating_part_of_a_compound_is_a_negation() -> None:
    assert "negation" in reasons("Grants to non-government organisations rose by a third.",
                                 "Grants to government organisations rose by a third.")
    assert "negation" in reasons("All the loans are interest-free for members of staff.",
                                 "All the loans are interest for members of staff.")


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        ("rose to 73", "Uptake rose to 73.6% in 2020."),
        ("6% in 2020", "Uptake rose to 73.6% in 2020."),
        ("a fee of 1", "a fee of 1,000 dollars"),
        ("pages 10", "see pages 10-12 of the report"),
    ],
)
def test_exact_match_never_stops_inside_a_number(quote: str, source: str) -> None:
    found = find_exact(normalize(quote).text, normalize(source))
    assert found is not None and not found.exact


@pytest.mark.parametrize(
    ("quote", "span"),
    [
        ("the rate of uptake across the region rose to 76.3%",
         "the rate of uptake across the region rose to 73.6%"),
        ("the rate of uptake across the region rose to 76.3",
         "the rate of uptake across the region rose to 73.6"),
        ("76.3% of the patients in the treatment group",
         "73.6% of the patients in the treatment group"),
    ],
)
def test_fuzzy_window_holds_the_whole_number(quote: str, span: str) -> None:
    # The number is the difference: a window ending at "73" of "73.6%" (or
    # starting at its "6") would highlight and compare half of it.
    source = f"Overall {span.replace('76.3', '73.6')} in 2020, and then fell."
    normalized_source = normalize(source)
    alignment = align(normalize(quote).text, normalized_source)
    assert alignment is not None
    assert source[alignment.source_start : alignment.source_end] == span
    assert as_tuples(compare(normalize(quote), normalized_source, alignment)) == [
        ("replace", "73.6", "76.3", ("number",))
    ]


# compare() ------------------------------------------------------------------------


def test_compare_identical_has_no_differences() -> None:
    assert edits(REFERENCE, "Employer match vests after two years of service.") == ()


def test_number_changed() -> None:
    assert as_tuples(edits(REFERENCE, "Employer match vests after three years of service.")) == [
        ("replace", "two", "three", ("number",))
    ]


def test_digit_changed() -> None:
    source = "Enrolment closes on 31 March each year."
    assert as_tuples(edits(source, "Enrolment closes on 30 March each year.")) == [
        ("replace", "31", "30", ("number",))
    ]


def test_dropped_not() -> None:
    source = "Take 500 mg every six hours, not exceeding 4 g in 24 hours."
    assert as_tuples(edits(source, "Take 500 mg every six hours, exceeding 4 g in 24 hours.")) == [
        ("delete", "not", "", ("negation",))
    ]


def test_added_not_and_contraction() -> None:
    source = "The employee will forfeit the unvested balance."
    assert "negation" in reasons(source, "The employee will not forfeit the unvested balance.")
    assert "negation" in reasons(source, "The employee won't forfeit the unvested balance.")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Contributions are refundable and forfeitable on termination.",
            "Contributions are refundable and non-forfeitable on termination.",
        ),
        (
            "The enrolment deposit is nonrefundable after thirty days.",
            "The enrolment deposit is refundable after thirty days.",
        ),
        ("The employee is eligible for the plan.", "The employee is ineligible for the plan."),
        ("The clause is enforceable in court.", "The clause is unenforceable in court."),
        # Were verified fuzzily: the drug's use in pregnancy turned round,
        # and a patient with symptoms made one without.
        ("Use is contraindicated in pregnancy and in women planning one.",
         "Use is indicated in pregnancy and in women planning one."),
        ("The drug is contra-indicated in pregnancy and in breastfeeding.",
         "The drug is indicated in pregnancy and in breastfeeding."),
        ("Screen every symptomatic contact within seven days of exposure.",
         "Screen every asymptomatic contact within seven days of exposure."),
    ],
)
def test_negating_prefix(source: str, quote: str) -> None:
    assert reasons(source, quote) == {"negation"}


def test_a_footnote_letter_glued_before_a_capital_is_no_negating_prefix() -> None:
    # A table's footnote letter: "aNorethisterone 5 mg daily" in the cell.
    assert not reasons("Year 4 onwards: aNorethisterone 5 mg daily for the first 5 days.",
                       "Year 4 onwards: Norethisterone 5 mg daily for the first 5 days.")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # Look-alike drug names and the like, a letter or two apart: they
        # verified fuzzily as typos repaired.
        ("prednisone", "prednisolone"), ("vinblastine", "vincristine"),
        ("hydroxyzine", "hydralazine"), ("hydrocodone", "oxycodone"),
        ("epinephrine", "ephedrine"), ("carboplatin", "cisplatin"), ("men", "women"),
        ("male", "female"), ("b.i.d.", "t.i.d."), ("q.d.", "q.i.d."),
    ],
)
def test_a_word_a_few_letters_apart_is_another_word(source: str, quote: str) -> None:
    sentence = "Start {} at the usual dose in adults with normal renal function and review it."
    assert "word" in reasons(sentence.format(source), sentence.format(quote))


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("recieve", "receive"), ("tenson", "tension"), ("modem", "modern"),
        ("nal", "final"), ("haemoglobin", "hemoglobin"), ("centre", "center"),
        ("programme", "program"),
        # OCR of a French scan: "rr" read as "m" (the corpus's Quebec minutes).
        ("l'amiere", "l'arriere"),
    ],
)
def test_a_typo_a_look_alike_or_a_lost_ligature_is_the_same_word(source: str, quote: str) -> None:
    sentence = "Review the {} figures each morning before the first meeting of the day starts."
    assert not reasons(sentence.format(source), sentence.format(quote))


def test_a_quote_starting_inside_a_run_together_token_is_no_changed_word() -> None:
    # An extractor that ran words together: the quote starts at "closure" of
    # "canopyclosure.Thisquantity...", a word's worth of letters left out.
    source = "at forest canopyclosure.Thisquantityisplottedforallcatchments in Fig. 4 here."
    quote = "closure. This quantity is plotted for all catchments in Fig. 4 here."
    assert "word" not in reasons(source, quote)
    # Two letters outside are no word of their own: "women" is not "men".
    assert "word" in reasons("women with diabetes were treated first in the trial.",
                             "men with diabetes were treated first in the trial.")


def test_a_quote_starting_inside_a_token_of_several_run_together_words_is_no_changed_word(
) -> None:
    # A scan set tight, which OCR read as one word: the quote starts at "at",
    # its first five words all letters of the token ("number" left outside).
    source = "and include the case\nnumberatthetopofthe form. The original application is sent."
    quote = "at the top of the form. The original application is sent."
    assert "word" not in reasons(source, quote)
    # A word of the quote's run the token does not hold is still a change.
    assert "word" in reasons(source, "at the foot of the form. The original application is sent.")


def test_a_short_word_after_a_is_another_word_not_its_negation() -> None:
    # "avoid" is no negated "void": a changed word, not a negation.
    assert "negation" not in reasons("Parties should avoid the clause entirely.",
                                     "Parties should void the clause entirely.")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Adults aged \u226518 years with a prior stroke were enrolled in the arm.",
         "Adults aged >18 years with a prior stroke were enrolled in the arm."),
        ("Adults aged \u226518 years with a prior stroke were enrolled in the arm.",
         "Adults aged <18 years with a prior stroke were enrolled in the arm."),
        ("Adults aged \u226518 years with a prior stroke were enrolled in the arm.",
         "Adults aged 18 years with a prior stroke were enrolled in the arm."),
        ("Stop the infusion if the count falls < 50 000 per microlitre of blood.",
         "Stop the infusion if the count falls > 50 000 per microlitre of blood."),
        ("Treat when the score is \u2264 two on the scale at the first visit.",
         "Treat when the score is \u2265 two on the scale at the first visit."),
    ],
)
def test_a_comparison_sign_changed_changes_the_figure(source: str, quote: str) -> None:
    # Were verified fuzzily: the same words and figure, another population.
    assert "number" in reasons(source, quote)


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Adults aged \u226518 years with a prior stroke were enrolled in the arm.",
         "Adults aged >=18 years with a prior stroke were enrolled in the arm."),
        ("Adults aged \u226518 years with a prior stroke were enrolled in the arm.",
         "Adults aged \u2a7e18 years with a prior stroke were enrolled in the arm."),
        ("Forms are at <www.nih.gov/grants> with the deadlines for the year.",
         "Forms are at www.nih.gov/grants with the deadlines for the year."),
    ],
)
def test_a_comparison_typed_otherwise_or_a_bracket_is_no_change(source: str, quote: str) -> None:
    assert "number" not in reasons(source, quote)


def test_unit_changed() -> None:
    source = "Take 500 mg of paracetamol every six hours."
    assert as_tuples(edits(source, "Take 500 g of paracetamol every six hours.")) == [
        ("replace", "mg", "g", ("unit",))
    ]


def test_month_changed() -> None:
    source = "Enrolment opens on 1 March and closes on 31 March each year."
    assert "date" in reasons(source, "Enrolment opens on 1 April and closes on 31 March each year.")


def test_capitalised_name_changed() -> None:
    source = "The plan is administered by Fidelity Investments on behalf of the employer."
    quote = "The plan is administered by Vanguard Investments on behalf of the employer."
    assert as_tuples(edits(source, quote)) == [("replace", "fidelity", "vanguard", ("name",))]


def test_capitalised_name_after_title_changed() -> None:
    source = "The protocol was approved by Dr. Smith after the second review."
    quote = "The protocol was approved by Dr. Jones after the second review."
    assert reasons(source, quote) == {"name"}


def test_digit_for_number_word_is_not_a_number_change() -> None:
    differences = edits(REFERENCE, "Employer match vests after 2 years of service.")
    assert as_tuples(differences) == [("replace", "two", "2", ())]


def test_dropped_reference_is_not_a_number_change() -> None:
    source = "Retrieval accuracy improved by 9 to 19 points [18] over BM25 in top-20 retrieval."
    quote = "Retrieval accuracy improved by 9 to 19 points over BM25 in top-20 retrieval."
    assert as_tuples(edits(source, quote)) == [("delete", "[18]", "", ())]


def test_changed_number_next_to_a_dropped_reference_is_still_a_number_change() -> None:
    source = "Retrieval accuracy improved by 9 to 19 points [18] over BM25 in top-20 retrieval."
    quote = "Retrieval accuracy improved by 9 to 18 points over BM25 in top-20 retrieval."
    assert "number" in reasons(source, quote)


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The contractor shall indemnfy the client against all claims.",  # PDF typo
            "The contractor shall indemnify the client against all claims.",
        ),
        (
            "Dense passage retrieval outperforms a strong Lucene-BM25 sytem largely.",
            "Dense passage retrieval outperforms a strong Lucene-BM25 system largely.",
        ),
    ],
)
def test_harmless_typo_repair_gives_no_reasons(source: str, quote: str) -> None:
    differences = edits(source, quote)
    assert len(differences) == 1
    assert differences[0].op == "replace"
    assert differences[0].reasons == ()


@pytest.mark.parametrize(
    ("source_word", "quote_word"),
    [
        ("employer", "employee"),  # the other party, one letter away
        ("lessors", "lessees"),
        ("licensor's", "licensee's"),
        ("hypertension", "hypotension"),  # the opposite condition
        ("increase", "decrease"),
        ("left", "right"),  # another word altogether
        ("shall", "should"),
        ("coverage", "stipend"),
    ],
)
def test_another_word_in_place_of_the_sources_changes_the_meaning(
    source_word: str, quote_word: str
) -> None:
    sentence = ("Under the collective agreement signed in the spring, the {} is entitled to "
                "review the quarterly statements and the annual report of the fund.")
    differences = edits(sentence.format(source_word), sentence.format(quote_word))
    assert as_tuples(differences) == [("replace", source_word, quote_word, ("word",))]


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Records are kept a part from the main file.",
         "Records are kept apart from the main file."),
        ("The employee will recieve the notice.", "The employee will receive the notice."),
        ("The plan covers physiotherapy sessions.", "The plan covers physiotherapy sesions."),
    ],
)
def test_spacing_and_typos_are_not_another_word(source: str, quote: str) -> None:
    assert reasons(source, quote) == set()


def test_punctuation_only_edit_gives_no_reasons() -> None:
    source = "Coverage ends on the last day of the month; dependants lose cover too."
    quote = "Coverage ends on the last day of the month, dependants lose cover too."
    assert reasons(source, quote) == set()


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # Tesseract's reading of an italic "See, e.g., 7 C.F.R." in a brief.
        ("as a major life activity. See, eg. 7 C.F.R. 15b.3(j)(2)(ii).",
         "as a major life activity. See, e.g., 7 C.F.R. 15b.3(j)(2)(ii)."),
        ("as a major life activity. See, e.g, 7 CFR 15b.3(j)(2)(ii).",
         "as a major life activity. See, e.g., 7 C.F.R. 15b.3(j)(2)(ii)."),
        ("The suit was filed in the U.S. District Court at 9 a.m. on Monday.",
         "The suit was filed in the US District Court at 9 am on Monday."),
    ],
)
def test_an_abbreviations_full_stops_are_punctuation(source: str, quote: str) -> None:
    # The stops between an abbreviation's letters carry no meaning: with
    # them dropped (or added) only punctuation differs, on either side.
    assert reasons(source, quote) == set()
    assert reasons(quote, source) == set()


@pytest.mark.parametrize(
    ("source", "quote", "reason"),
    [
        ("See, e.g., 7 C.F.R. 15b.3.", "See, i.e., 7 C.F.R. 15b.3.", {"word"}),
        ("See, eg. 7 C.F.R. 15b.3.", "See, e.g., 8 C.F.R. 15b.3.", {"number"}),
        # Another capital letter: a name's (a word's before this change).
        ("filed in the U.S. District Court", "filed in the U.K. District Court",
         {"name", "word"}),
        ("reached at 9 a.m. on Monday", "reached at 9 p.m. on Monday", {"word"}),
        ("at least 5 g.e.u. were given", "at least 50 geu were given", {"number"}),
        ("See, e.g., the order not to appeal.", "See, eg. the order to appeal.", {"negation"}),
    ],
)
def test_an_abbreviation_changed_beside_its_stops_is_still_a_change(
    source: str, quote: str, reason: set[str]
) -> None:
    assert reason & reasons(source, quote)


@pytest.mark.parametrize(
    ("source", "quote", "expected"),
    [
        ("Maersk Line A/S\n50, Esplanaden\n1098 Copenhagen K, Denmark",
         "Maersk Line A/S, 50 Esplanaden, 1098 Copenhagen K, Denmark",
         [("move", ",", ",", ()), ("insert", "", ",", ())]),
        ("Write to Maersk Line A/S, 50 Esplanaden, Copenhagen",
         "Write to Maersk Line A/S 50, Esplanaden, Copenhagen",
         [("move", ",", ",", ())]),
    ],
)
def test_moved_comma_in_a_name_or_address_is_one_harmless_move(
    source: str, quote: str, expected: list[tuple[str, str, str, tuple[str, ...]]]
) -> None:
    # A word-level diff paired these as "adds “Esplanaden”; drops
    # “Esplanaden”" (a name) or the same for "50" (a number).
    assert as_tuples(edits(source, quote)) == expected


def test_a_moved_word_is_one_move_that_keeps_its_reason() -> None:
    source = "The tenant is required not to sublet the flat without written consent."
    quote = "The tenant is not required to sublet the flat without written consent."
    assert as_tuples(edits(source, quote)) == [("move", "not", "not", ("negation",))]


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("It pays the last day of employment\u2014not the date of notice.",
         "It pays the last day of employment-not the date of notice."),
        ("It pays the last day of employment \u2014 not the date of notice.",
         "It pays the last day of employment-not the date of notice."),
        ("It pays the last day of employment-not the date of notice.",
         "It pays the last day of employment \u2014 not the date of notice."),
    ],
)
def test_em_dash_typed_as_a_hyphen_is_punctuation_not_a_lost_negation(
    source: str, quote: str
) -> None:
    assert reasons(source, quote) == set()


def test_dash_typed_as_a_hyphen_beside_a_real_change_reports_only_that_change() -> None:
    source = "It is the thing\u2014not the other, as agreed in 1990 by both parties."
    quote = "It is the thing-not the other, as agreed in 1991 by both parties."
    assert [d for d in as_tuples(edits(source, quote)) if d[3]] == [
        ("replace", "1990", "1991", ("number",))
    ]


# Extraction noise: spacing and footnote markers --------------------------------------


def repairs(source: str, quote: str) -> list[tuple[str, str, str, tuple[str, ...], str]]:
    return [(d.op, d.source, d.quote, d.reasons, d.repair) for d in edits(source, quote)]


@pytest.mark.parametrize(
    ("source", "quote", "source_span", "quote_span"),
    [
        # Arabic: poppler spaces the conjunction off, our text glues it on.
        ("تعتبر البرمجة بلغة R وPython\nمن األدوات القوية التي يمكن أن تعزز اإلنتاجية",
         "تعتبر البرمجة بلغة R و Python من األدوات القوية التي يمكن أن تعزز اإلنتاجية",
         "وpython", "و python"),
        ("Labels should use title case1 and consider using bold type for headings.",
         "Labels should use title case 1 and consider using bold type for headings.",
         "case1", "case 1"),
        ("We let U0 , 0 such that the trapping is enhanced along the z direction.",
         "We let U 0 , 0 such that the trapping is enhanced along the z direction.",
         "u0", "u 0"),
        ("Figure 3 provides an example. We use TRUE10 (Honovich et al., 2022), a model",
         "Figure 3 provides an example. We use TRUE 10 (Honovich et al., 2022), a model",
         "true10", "true 10"),
        ("to form nearest neighbor (NN) quantum gates19\u201322. This makes 2D crystals",
         "to form nearest neighbor (NN) quantum gates 19\u201322 . This makes 2D crystals",
         "gates19-22", "gates 19-22"),
        ("The fund paid out 1 000 dollars to each member of the plan last year.",
         "The fund paid out 1000 dollars to each member of the plan last year.",
         "1 000", "1000"),  # a thousands separator
        ("Records are kept a part from the main file of the fund.",
         "Records are kept apart from the main file of the fund.",
         "a part", "apart"),
        ("The statutes can not discriminate against interstate commerce here.",
         "The statutes cannot discriminate against interstate commerce here.",
         "can not", "cannot"),
        # a raised variant set off by spaces, the hyphen after it with them
        ("in patients with KRASG12C-mutated non-small cell lung cancer and PD-L1",
         "in patients with KRAS G12C -mutated non-small cell lung cancer and PD-L1",
         "krasg12cmutated", "kras g12c -mutated"),
    ],
)
def test_a_difference_only_in_spacing_is_a_named_repair(
    source: str, quote: str, source_span: str, quote_span: str
) -> None:
    # Was "“python” for “وpython” (name)", "“1” for “case1” (number)", ...:
    # quote-altered. Extractors place spaces by glyph gaps.
    assert repairs(source, quote) == [("replace", source_span, quote_span, (), "spacing")]


@pytest.mark.parametrize(
    ("source", "quote", "reason"),
    [
        # a space between digits that does not group thousands changes the figure
        ("The fund paid out 100 dollars to each member of the plan last year.",
         "The fund paid out 10 0 dollars to each member of the plan last year.", "number"),
        ("The fund paid out 1 2 dollars to each member of the plan last year.",
         "The fund paid out 12 dollars to each member of the plan last year.", "number"),
        # a negation made or unmade by a space
        ("The results were notable for the members of the plan last year.",
         "The results were not able for the members of the plan last year.", "negation"),
        ("The office is nowhere near the station, the letter said last year.",
         "The office is now here near the station, the letter said last year.", "negation"),
    ],
)
def test_a_respacing_that_changes_a_figure_or_a_negation_is_not_spacing(
    source: str, quote: str, reason: str
) -> None:
    assert reason in reasons(source, quote)
    assert not any(d.repair for d in edits(source, quote))


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Store the vials at \u221220 \u00b0C until the day they are used.",
         "Store the vials at 20 \u00b0C until the day they are used."),
        ("The mean change was (-0.5) points over the first year of the trial.",
         "The mean change was (0.5) points over the first year of the trial."),
        ("Store the vials at 20 \u00b0C until the day they are used.",
         "Store the vials at -20 \u00b0C until the day they are used."),
        # After a relation the sign was taken for a hyphen: a negative
        # correlation quoted as a positive one verified fuzzily.
        ("The correlation with dose was weak (r=\u22120.45, p=0.03) in the cohort.",
         "The correlation with dose was weak (r=0.45, p=0.03) in the cohort."),
        ("The fitted slope was b:-1.2 per year over the whole follow-up period.",
         "The fitted slope was b:1.2 per year over the whole follow-up period."),
        ("Patients with a z-score \u2264\u22122 at baseline were given the supplement.",
         "Patients with a z-score \u22642 at baseline were given the supplement."),
    ],
)
def test_a_minus_sign_left_out_or_put_in_changes_the_figure(source: str, quote: str) -> None:
    # Was a difference with no reason: the tokens part the sign from its
    # digits, and the sign alone is punctuation.
    assert "number" in reasons(source, quote)


def test_a_hyphen_set_off_before_a_word_is_no_minus_sign() -> None:
    assert not reasons("rated KRASG12C-mutated in the panel",
                       "rated KRAS G12C -mutated in the panel")


def test_spacing_beside_a_real_change_reports_both() -> None:
    source = "We let U0 , 0 such that the trapping is enhanced by 30 percent along z."
    quote = "We let U 0 , 0 such that the trapping is enhanced by 3 percent along z."
    assert repairs(source, quote) == [
        ("replace", "u0", "u 0", (), "spacing"),
        ("replace", "30", "3", ("number",), ""),
    ]


@pytest.mark.parametrize(
    ("source", "quote", "marker"),
    [
        ("mainly proceeded by\nsubmerged fermentation.30 Several researchers have stud-\nied "
         "the isolation of microbial strains",
         "submerged fermentation. Several researchers have studied the isolation of microbial "
         "strains", "30"),
        ("in women with premature\novarian failure.42 These differences potentially have\n"
         "major consequences",
         "ovarian failure. These differences potentially have major consequences", "42"),
        ("more than its entitled share.13  The Oklahoma water statutes can\u00ad\nnot "
         "discriminate against interstate commerce",
         "entitled share. The Oklahoma water statutes cannot discriminate against interstate "
         "commerce", "13"),
        ("the nation\u2019s cybersecurity through five pillars.3 The pillars\nfocus on, among "
         "other things",
         "the nation\u2019s cybersecurity through five pillars. The pillars focus on, among "
         "other things", "3"),
        # a superscript glued to a lower-case word
        ("the drug accumulates in the liver12 and is cleared slowly by the kidneys over days.",
         "the drug accumulates in the liver and is cleared slowly by the kidneys over days.",
         "liver12"),
        # at a line start, glued to the capital after it
        ("ist Homöomorphismus.\n\n2Es wird die Äquivalenz von Stetigkeit im Sinne der "
         "Analysis gezeigt.",
         "Es wird die Äquivalenz von Stetigkeit im Sinne der Analysis gezeigt.", "2"),
    ],
)
def test_a_dropped_footnote_marker_is_a_named_repair(source: str, quote: str, marker: str) -> None:
    # Was "drops “30” (number)": quote-altered.
    found = [d for d in edits(source, quote) if d.source == marker]
    assert len(found) == 1
    assert (found[0].reasons, found[0].repair) == ((), "footnote-marker")
    assert reasons(source, quote) == set()


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a number with a space before it
        ("The tenant must remedy a breach within 30 days of the notice from the landlord.",
         "The tenant must remedy a breach within days of the notice from the landlord."),
        ("The tenant must remedy a breach within 30 days of the notice from the landlord.",
         "The tenant must remedy a breach within 3 days of the notice from the landlord."),
        # digits after a decimal point: "5.30" is one number
        ("The meeting starts at 5.30 and the tenant must attend with the landlord present.",
         "The meeting starts at 5. and the tenant must attend with the landlord present."),
        # a name or unit, not a lower-case word: "B12", "CO2"
        ("patients should receive vitamin B12 and folate supplements during treatment.",
         "patients should receive vitamin B and folate supplements during treatment."),
        ("the plant emits CO2 and methane at every stage of the production process.",
         "the plant emits CO and methane at every stage of the production process."),
        # four digits glued to a full stop are a year or an amount
        ("The agreement was signed in the year.2019 The parties agreed to the terms.",
         "The agreement was signed in the year. The parties agreed to the terms."),
        # mid-line, before a capital: not a marker
        ("The committee met on 12 June. Then 2 Members voted against the proposal today.",
         "The committee met on 12 June. Then Members voted against the proposal today."),
    ],
)
def test_a_dropped_or_changed_real_number_stays_a_number_change(source: str, quote: str) -> None:
    assert {"number", "name"} & reasons(source, quote)
    assert not any(d.repair for d in edits(source, quote))


_AMENDED = "The bill amends the Copyright Act of 1976\u00b3 to create four new limitations."
_FINE = "A patent may be renewed by paying a fine of Rs 1000\u00b9\u2074 within six months."


@pytest.mark.parametrize(("source", "quote", "folded"), [
    (_AMENDED, "The bill amends the Copyright Act of 1976 to create four new limitations.",
     "19763"),  # dropped
    (_AMENDED, "The bill amends the Copyright Act of 1976 3 to create four new limitations.",
     "19763"),  # spaced
    # Batch 14's Nepalese act: an amount that is a power of ten was taken
    # for an exponent's base, so "1000" for "100014" was a changed number.
    # A base with a raised exponent has two digits ("10⁶").
    (_FINE, "A patent may be renewed by paying a fine of Rs 1000 within six months.", "100014"),
    (_FINE, "A patent may be renewed by paying a fine of Rs 1000 14 within six months.",
     "100014"),
])
def test_a_superscript_marker_after_a_number_is_a_named_repair(source: str, quote: str,
                                                               folded: str) -> None:
    # reviewer.ingestion writes a raised, smaller number after a year so
    # ("1976³"); was "1976" for "19763" (number): quote-altered.
    found = [d for d in edits(source, quote) if d.source == folded]
    assert [(d.reasons, d.repair) for d in found] == [((), "footnote-marker")]
    assert reasons(source, quote) == set()


@pytest.mark.parametrize(("source", "quote"), [
    (_FINE, "A patent may be renewed by paying a fine of Rs 10000 within six months."),
    (_FINE, "A patent may be renewed by paying a fine of Rs 1000 15 within six months."),
    # the year changed, or the marker
    (_AMENDED, "The bill amends the Copyright Act of 1977 to create four new limitations."),
    (_AMENDED, "The bill amends the Copyright Act of 1976 4 to create four new limitations."),
    # an exponent: a power of ten, or a short number, before it
    ("The culture held 10\u2076 cells per millilitre after two days of growth.",
     "The culture held 10 cells per millilitre after two days of growth."),
    ("The volume of the cube is 25\u00b3 cubic centimetres in the first model.",
     "The volume of the cube is 25 cubic centimetres in the first model."),
    # digits at the line's size: one number
    ("The bill amends the Copyright Act of 19763 to create four new limitations.",
     "The bill amends the Copyright Act of 1976 to create four new limitations."),
])
def test_a_superscript_that_is_no_marker_stays_a_number(source: str, quote: str) -> None:
    assert "number" in reasons(source, quote)
    assert not any(d.repair for d in edits(source, quote))


_TRIVIA = ("Only pairs of questions and answers are provided in TREC, WebQuestions and "
           "TriviaQA\u2076, we use the highest-ranked passage from BM25 that contains it.")
_GATES = ("Trapped ions are a leading platform for a quantum computer realization\u00b3,\u2074 "
          "and logic gates\u2075\u2013\u2077 with high fidelity in a single trap.")


def test_control_characters_in_a_quote_are_no_change() -> None:
    # Issue 23 (a patient brochure outside the corpus): a quote copied from
    # poppler's text kept the marker and two BEL characters for the bullet
    # glyphs before the next heading; it read as a number changed.
    source = ("in an appropriate healthcare setting that can manage these side effects\u2077\n\n"
              "For Day 15 of Cycle 1 and Cycle 2 doses")
    for quote in ("healthcare setting that can manage these side effects 7 \x07\x07For Day",
                  "healthcare setting that can manage these side effects \x07\x07For Day"):
        assert reasons(source, quote) == set()
    assert "number" in reasons(
        source, "healthcare setting that can manage these side effects 8 \x07\x07For Day")


@pytest.mark.parametrize(("source", "quote", "marker"), [
    # reviewer.ingestion writes a raised, smaller number after a word so; was
    # "triviaqa" for "triviaqa6" (name, number): quote-altered.
    (_TRIVIA, "and answers are provided in TREC, WebQuestions and TriviaQA, we use the "
     "highest-ranked passage from BM25", "triviaqa6"),
    # a list and a range of references, dropped
    (_GATES, "leading platform for a quantum computer realization and logic gates with high "
     "fidelity", "realization3,4"),
    (_GATES, "a quantum computer realization 3,4 and logic gates with high fidelity in a single",
     "gates5-7"),
    # a space before the marker, and after a full stop
    ("We found 6 out of 9 hurricanes \u00b3. It is worth noting that most names were resolved.",
     "We found 6 out of 9 hurricanes. It is worth noting that most names were resolved.", "3"),
    ("The fungus Aspergillus oryzae is the most used in food industry.\u00b3\u2070,\u2078\u00b9 "
     "Fig. 3 shows a schematic process.",
     "The fungus Aspergillus oryzae is the most used in food industry. Fig. 3 shows a "
     "schematic process.", "30,81"),
    # after a bracket and a full stop; after a unit word that takes no power
    ("Patients develop severe toxicity (nausea, hand-foot syndrome).\u2077,\u00b9\u00b9 "
     "The drug has a narrow window.",
     "Patients develop severe toxicity (nausea, hand-foot syndrome). The drug has a narrow "
     "window.", "7,11"),
    ("We split the documents into passages as the basic retrieval units\u00b3 and get M "
     "passages in all.",
     "We split the documents into passages as the basic retrieval units and get M passages "
     "in all.", "units3"),
    # an affiliation's number, before the word it opens
    ("St. Jude Hospital, Memphis, Tennessee, USA; \u2078Department of Pharmaceutical Sciences, "
     "Mayo Clinic.",
     "St. Jude Hospital, Memphis, Tennessee, USA; Department of Pharmaceutical Sciences, "
     "Mayo Clinic.", "8"),
    # the marker ends a list item and the next item's bullet follows (a CRS
    # primer outside the corpus; the Symbol font's bullet is private-use)
    ("losses that affect at least 50 employees;\u2078\n\n\uf0b7 a mass layoff that affects",
     "losses that affect at least 50 employees; a mass layoff that affects", "8"),
    ("losses that affect at least 50 employees;\u2078\n\n\u2022 a mass layoff that affects",
     "losses that affect at least 50 employees; a mass layoff that affects", "8"),
])
def test_a_superscript_marker_after_a_word_is_a_named_repair(
    source: str, quote: str, marker: str
) -> None:
    found = [d for d in edits(source, quote) if marker in d.source]
    assert [(d.reasons, d.repair) for d in found] == [((), "footnote-marker")]
    assert reasons(source, quote) == set()


@pytest.mark.parametrize(("source", "quote"), [
    # the marker changed, glued or spaced off, or one of a list
    (_TRIVIA, "answers are provided in TREC, WebQuestions and TriviaQA7, we use the "
     "highest-ranked passage"),
    (_TRIVIA, "answers are provided in TREC, WebQuestions and TriviaQA 7, we use the "
     "highest-ranked passage"),
    (_GATES, "platform for a quantum computer realization 3,5 and logic gates5-7 with high "
     "fidelity"),
    # beside a bullet, a changed marker or a changed number still counts
    ("losses that affect at least 50 employees;\u2078\n\n\uf0b7 a mass layoff that affects",
     "losses that affect at least 50 employees;9 a mass layoff that affects"),
    ("losses that affect at least 50 employees;\u2078\n\n\uf0b7 a mass layoff that affects",
     "losses that affect at least 5 employees;8 a mass layoff that affects"),
    # a real number beside it changed
    (_TRIVIA, "WebQuestions and TriviaQA6, we use the highest-ranked passage from BM26 that"),
    # exponents: after a unit, a short word or symbol, a function, a power of ten
    ("The sample covered an area of 4 cm\u00b2 and the flux through it was measured daily.",
     "The sample covered an area of 4 cm and the flux through it was measured daily."),
    ("The room has a floor of 12 m\u00b2 and a ceiling of three metres in height.",
     "The room has a floor of 12 m and a ceiling of three metres in height."),
    ("The potential grows as x\u00b2 for small displacements of the ion in the trap.",
     "The potential grows as x for small displacements of the ion in the trap."),
    ("The energy density \u03c1c\u00b2 of the fluid enters the equation of state here.",
     "The energy density \u03c1c of the fluid enters the equation of state here."),
    ("The absorption coefficient is 3 mm\u207b\u00b9 at the wavelength we used in the test.",
     "The absorption coefficient is 3 mm at the wavelength we used in the test."),
    ("The intensity falls as sin\u00b2 of the angle between the two polarisers in the setup.",
     "The intensity falls as sin of the angle between the two polarisers in the setup."),
    ("The sample held 10\u00b2\u00b3 atoms of the gas in the chamber at room temperature.",
     "The sample held 10 atoms of the gas in the chamber at room temperature."),
    ("The flow was 2 mol\u00b2 per litre in the reactor during the whole of the first run.",
     "The flow was 2 mol per litre in the reactor during the whole of the first run."),
    # an isotope's mass before its symbol; an affiliation's number changed
    ("The tracer was labelled with \u00b9\u00b3C and given to the patients before the scan.",
     "The tracer was labelled with C and given to the patients before the scan."),
    ("St. Jude Hospital, Memphis, Tennessee, USA; \u2078Department of Pharmaceutical Sciences.",
     "St. Jude Hospital, Memphis, Tennessee, USA; 9Department of Pharmaceutical Sciences."),
    # digits at the line's size glued to a word: a name or a number
    ("Answers are provided in TREC, WebQuestions and TriviaQA6, we use the highest-ranked one.",
     "Answers are provided in TREC, WebQuestions and TriviaQA, we use the highest-ranked one."),
])
def test_a_superscript_after_a_word_that_is_no_marker_stays_a_number(
    source: str, quote: str
) -> None:
    assert "number" in reasons(source, quote)
    assert not any(d.repair == "footnote-marker" for d in edits(source, quote))


_TERRORISM = ("the Committee adopted the definition of \u2018\u2018international "
              "terrorism.\u2019\u2019 \u00b9\u2076 The Committee notes that it reaches no further.")
_ACT_OF_1965 = ("amendments to the Elementary and Secondary Education Act of 1965 \u2078 to allow "
                "the states to set their own standards.")
# A policy paper (batch 21): the marker raised after a section's number.
_SECTION_2 = ("In the initial filing, the FTC claimed that Meta violated both parts of Section "
              "2\u2074\u2076 of the Sherman Act: possessing monopoly share.")


@pytest.mark.parametrize(("source", "quote", "marker"), [
    # GPO prints a closing double quotation as two single quotes, so three
    # characters close the clause before the marker (House Report 118-9); was
    # "16" dropped (number): quote-altered.
    (_TERRORISM, "the definition of \u2018\u2018international terrorism.\u2019\u2019 The Committee "
     "notes that it reaches", "16"),
    ("the Committee adopted the definition of \u2018\u2018international "
     "terrorism.\u2019\u2019\u00b9\u2076 The Committee notes that it reaches no further.",
     "the definition of \u2018\u2018international terrorism.\u2019\u2019 The Committee notes",
     "16"),
    # after a year and a space, no punctuation (the same report): dropped, or
    # glued on as pdftotext reads it ("19658"), as "1965\u2078" allows
    (_ACT_OF_1965, "amendments to the Elementary and Secondary Education Act of 1965 to allow the "
     "states", "8"),
    (_ACT_OF_1965, "amendments to the Elementary and Secondary Education Act of 19658 to allow the "
     "states", "8"),
    # after a section's number, spaced off as poppler's words read it (was
    # "46" for "246", number) or dropped
    (_SECTION_2, "the FTC claimed that Meta violated both parts of Section 2 46 of the Sherman",
     "46"),
    (_SECTION_2, "the FTC claimed that Meta violated both parts of Section 2 of the Sherman", "46"),
    (_SECTION_2.replace("Section", "\u00a7"), "Meta violated both parts of \u00a7 2 of the Sherman",
     "46"),
])
def test_a_superscript_marker_after_closing_quotes_a_year_or_a_section_is_a_named_repair(
    source: str, quote: str, marker: str
) -> None:
    found = [d for d in edits(source, quote) if d.repair or d.reasons]
    assert [(d.reasons, d.repair) for d in found] == [((), "footnote-marker")]
    assert marker in found[0].source


@pytest.mark.parametrize(("source", "quote"), [
    # the marker or the year changed
    (_TERRORISM, "the definition of \u2018\u2018international terrorism.\u2019\u2019 17 The "
     "Committee notes that it reaches"),
    (_ACT_OF_1965, "amendments to the Elementary and Secondary Education Act of 1966 to allow the "
     "states"),
    (_ACT_OF_1965, "amendments to the Elementary and Secondary Education Act of 1965 9 to allow "
     "the states"),
    (_ACT_OF_1965, "amendments to the Elementary and Secondary Education Act of 19659 to allow the "
     "states"),
    # the section's number changed, or the marker; a power after a number
    (_SECTION_2, "the FTC claimed that Meta violated both parts of Section 3 46 of the Sherman"),
    (_SECTION_2, "the FTC claimed that Meta violated both parts of Section 2 47 of the Sherman"),
    (_SECTION_2.replace("Section 2", "a dose of 10"),
     "the FTC claimed that Meta violated both parts of a dose of 10 of the Sherman"),
    # digits at the line's size after a year and a space: two numbers
    ("amendments to the Elementary and Secondary Education Act of 1965 8 to allow the states.",
     "amendments to the Elementary and Secondary Education Act of 1965 to allow the states"),
    ("amendments to the Elementary and Secondary Education Act of 1965 8 to allow the states.",
     "amendments to the Elementary and Secondary Education Act of 19658 to allow the states"),
    # after closing quotes, at the line's size
    ("the Committee adopted the definition of \u2018\u2018international terrorism.\u2019\u2019 16 "
     "The Committee notes that it reaches no further.",
     "the definition of \u2018\u2018international terrorism.\u2019\u2019 The Committee notes that "
     "it reaches"),
])
def test_a_changed_marker_or_a_number_after_closing_quotes_a_year_or_a_section_is_caught(
    source: str, quote: str
) -> None:
    assert "number" in reasons(source, quote)
    assert not any(d.repair == "footnote-marker" for d in edits(source, quote))


_OPIOID = ("For patients at risk, the dose may be repeated every 4 to 6 hours as needed."
           "\u2078,\u00b9\u2075,\u00b2\u2070 An even lower oral dose is advised in the elderly.")


def test_a_dropped_list_of_markers_is_scored_without_them() -> None:
    # A short quote that drops a list of markers (the opioid chart, outside
    # batch 5): the list's characters counted as edits, 0.909, under the 0.92
    # threshold, so compare() never named the markers dropped.
    quote = normalize("hours as needed. An even lower oral")
    alignment = align(quote.text, normalize(_OPIOID))
    assert alignment is not None and alignment.score >= 0.99
    found = [d for d in edits(_OPIOID, quote.original) if d.repair or d.reasons]
    assert [(d.source, d.reasons, d.repair) for d in found] == [("8,15,20", (), "footnote-marker")]


@pytest.mark.parametrize("source", [
    # the same digits at the line's size: numbers, scored as printed
    "For patients at risk, the dose may be repeated every 4 to 6 hours as needed.8,15,20 An "
    "even lower oral dose is advised in the elderly.",
    # superscript after a power of ten: an exponent, no marker
    "The culture held 10\u2078,\u00b9\u2075 cells. An even lower oral dose is advised.",
])
def test_digits_that_are_no_markers_are_scored_as_printed(source: str) -> None:
    quote = ("hours as needed. An even lower oral" if "needed" in source
             else "The culture held 10 cells. An even lower oral")
    normalized = normalize(quote)
    alignment = align(normalized.text, normalize(source))
    assert alignment is not None
    window = normalize(source).text[alignment.norm_start:alignment.norm_end]
    assert alignment.score == pytest.approx(fuzz.ratio(normalized.text, window) / 100)


# Properties -------------------------------------------------------------------------

ALPHABET = [
    *"abcXYZ019", " ", " ", "\n", "-", "\u00ad", "ﬁ", "\u201c", "\u201d", "\u2019", "\u2014",
    "\u00a0", "é", "e\u0301", "ß", "\u200b",
]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(ALPHABET), min_size=1, max_size=40).map("".join), st.data())
def test_property_exact_match_original_span_normalises_back_to_the_quote(
    text: str, data: st.DataObject
) -> None:
    source = normalize(text)
    bounds = sorted({*source.offsets.norm_starts, source.offsets.normalized_length})
    a, b = sorted(data.draw(st.lists(st.sampled_from(bounds), min_size=2, max_size=2)))
    quote = source.text[a:b].strip(" ")
    alignment = align(quote, source)
    if not quote:
        assert alignment is None
        return
    assert alignment is not None
    text_ = source.text

    def cuts(p: int) -> bool:
        if not 0 < p < len(text_):
            return False
        if text_[p - 1].isalnum() and text_[p].isalnum():
            return True
        # Inside a number: "0|-0", "73|.6", "1|,000" (either side of the join).
        joins = ".,:/-"
        before, after = text_[p - 1], text_[p]
        return ((before.isdigit() and after in joins and text_[p + 1 : p + 2].isdigit())
                or (after.isdigit() and before in joins and text_[p - 2 : p - 1].isdigit()))

    cuts_word = any(cuts(p) for p in (text_.find(quote), text_.find(quote) + len(quote)))
    if not alignment.exact:
        # Exact containment counts only at word boundaries and outside numbers;
        # a quote that cuts either is widened and scored, so it cannot pass as
        # verbatim.
        assert cuts_word
        window = source.text[alignment.norm_start : alignment.norm_end]
        assert quote in window and len(window) > len(quote)
        return
    assert source.text[alignment.norm_start : alignment.norm_end] == quote
    original = normalize(text[alignment.source_start : alignment.source_end]).text
    # align() finds the first occurrence, which may begin inside a replaced
    # piece (the second "s" of a "ß"); then the span widens to the whole piece.
    assert quote in original
    if alignment.norm_start in bounds and alignment.norm_end in bounds:
        assert original == quote


WORDS = ["the", "Dr.", "Smith", "not", "[12]", "624 - 643", "2.5", "don't", "—", ",", "  ", "x",
         "e.g.", "U.S.A."]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(WORDS), max_size=20).map(" ".join), st.data())
def test_property_token_starts_are_where_the_tokens_start(text: str, data: st.DataObject) -> None:
    lo = data.draw(st.integers(0, len(text)))
    hi = data.draw(st.integers(lo, len(text)))
    matches = list(_TOKEN.finditer(text, lo, hi))
    words = [m.group(0) for m in matches]
    upto = data.draw(st.integers(0, len(words)))
    starts: list[int] = []
    _token_starts(text, lo, words, starts, upto // 2)
    _token_starts(text, lo, words, starts, upto)  # extends what is there
    assert starts == [m.start() for m in matches[:upto]]


def _refine_every_window(quote: str, text: str, start: int, end: int) -> tuple[int, int, float]:
    """_refine() without its ceiling check: every window in reach is scored."""
    reach = max(12, min(len(quote) // 8, 48))
    end = max(end, min(len(text), start + len(quote)))
    best = fuzz.ratio(quote, text[start:end]) / 100
    for _ in range(2):
        before = start, end
        for candidate in range(max(0, start - reach), min(end, start + reach)):
            value = fuzz.ratio(quote, text[candidate:end]) / 100
            if value > best or (value == best and candidate > start):
                best, start = value, candidate
        for candidate in range(max(start + 1, end - reach), min(len(text), end + reach) + 1):
            value = fuzz.ratio(quote, text[start:candidate]) / 100
            if value > best or (value == best and candidate < end):
                best, end = value, candidate
        if (start, end) == before:
            break
    return start, end, best


def test_ceiling_bounds_the_ratio_of_every_width() -> None:
    quote = "vests after two years"
    text = "employer match vests after two years of service, always"
    for a in range(len(text)):
        for b in range(a, len(text) + 1):
            assert fuzz.ratio(quote, text[a:b]) / 100 <= ratio_ceiling(len(quote), b - a) + 1e-12
    assert ratio_ceiling(10, 10) == 1.0


REFINE_WORDS = ["vest", "vests", "after", "two", "years", "of", "service", "not", "a", "  "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(REFINE_WORDS), min_size=1, max_size=60).map(" ".join),
       st.data())
def test_property_refine_skips_only_windows_that_cannot_win(
    text: str, data: st.DataObject
) -> None:
    a = data.draw(st.integers(0, len(text) - 1))
    b = data.draw(st.integers(a + 1, len(text)))
    quote = text[a:b]
    if data.draw(st.booleans()):  # a letter changed, a word dropped or added
        at = data.draw(st.integers(0, len(quote)))
        quote = quote[:at] + data.draw(st.sampled_from(["x", "", " not", "s"])) + quote[at + 1:]
    if not quote:
        return
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    assert _refine(quote, text, start, end) == _refine_every_window(quote, text, start, end)


# Letter-spaced sources -------------------------------------------------------------

SPACED = normalize("Between C h i n a Ocean S h i p p i n g ( G r o u p ) C o m p a n y and APL.")


@pytest.mark.parametrize("quote", [
    "china ocean shipping (group) company",
    "china ocean",
    "shipping (group)",
    "between china",
])
def test_letter_spaced_source_matches_exactly_on_its_original_span(quote: str) -> None:
    found = find_letter_spaced(quote, SPACED)
    assert found is not None and found.exact and found.score == 1.0
    span = SPACED.original[found.source_start:found.source_end]
    assert "".join(span.lower().split()) == "".join(quote.split())


@pytest.mark.parametrize("quote", [
    "china ocea",  # ends inside a word
    "chinaocean shipping",  # drops the space before a word that is not spaced out
    "china oce an shipping",  # adds a space inside a word that is not spaced out
])
def test_letter_spaced_match_keeps_word_boundaries(quote: str) -> None:
    # Inside a spaced-out run the text cannot say where its words break
    # ("s h i p p i n g"), so only the rest of the quote is held to them.
    assert find_letter_spaced(quote, SPACED) is None


@pytest.mark.parametrize(("quote", "source"), [
    ("apart from the fee", "A part from the fee is due."),  # a space taken away
    ("a part from the fee", "Apart from the fee, nothing."),  # a space added
    ("in significant amounts", "insignificant amounts"),
])
def test_spaces_matter_where_the_source_is_not_letter_spaced(quote: str, source: str) -> None:
    assert find_letter_spaced(quote, normalize(source)) is None


def test_letter_spaced_match_respects_start_before() -> None:
    start = SPACED.text.index("s h i p")
    assert find_letter_spaced("shipping", SPACED, start_before=start) is None
    assert find_letter_spaced("shipping", SPACED, start_before=start + 1) is not None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["apart", "a", "part", "in", "significant", "insignificant",
                                 "fee", "the", "is", "due"]), min_size=1, max_size=30),
       st.data())
def test_property_letter_spacing_changes_nothing_where_words_are_not_spaced_out(
    words: list[str], data: st.DataObject
) -> None:
    # Without a run of one-character words there is nothing letter-spaced:
    # a match must then be the quote itself, at word boundaries.
    source = normalize(" ".join(words))
    first = data.draw(st.integers(0, len(words) - 1))
    last = data.draw(st.integers(first, len(words) - 1))
    quote = " ".join(words[first:last + 1])
    if data.draw(st.booleans()):
        quote = quote.replace(" ", "", 1)  # a space dropped
    else:
        at = data.draw(st.integers(1, max(1, len(quote) - 1)))
        quote = quote[:at] + " " + quote[at:] if at < len(quote) else quote  # or added
    quote = " ".join(quote.split())
    found = find_letter_spaced(quote, source)
    spaced_out = any(len(a) == 1 and len(b) == 1 for a, b in pairwise(words))
    if found is not None and not spaced_out:
        assert source.text[found.norm_start:found.norm_end] == quote


# negation_before(): a negation outside the quote that governs it -------------------


def left_out(source: str, quote: str) -> tuple[str, str] | None:
    """negation_before() for ``quote``'s exact match in ``source``: (op, words)."""
    normalized = normalize(source)
    alignment = find_exact(normalize(quote).text, normalized)
    assert alignment is not None and alignment.exact
    difference = negation_before(normalized, alignment)
    return None if difference is None else (difference.op, difference.source)


@pytest.mark.parametrize(("source", "quote", "expected"), [
    ("Do not start treatment on a single reading.", "start treatment", ("omit-before", "not")),
    ("Staff don't sign the form.", "sign the form", ("omit-before", "don't")),
    ("It is not necessarily the case that costs fall.", "the case that costs fall",
     ("omit-before", "not necessarily")),
    ("The claim cannot be waived by the tenant.", "waived by the tenant",
     ("omit-before", "cannot be")),
    # Prose wrapped by the page: the negation reaches across the line break.
    ("Metformin should not\nbe started in patients.", "started in patients",
     ("omit-before", "not be")),
    # Two words back: returned with the words between, for the answer to settle.
    ("Do not send to the regional office any forms.", "the regional office",
     ("omit-before", "not send to")),
    ("Ki-67 should not be scored in cold spots.", "Ki-67 should", ("omit-after", "not")),
])
def test_a_negation_that_governs_the_quoted_words_is_left_out(
    source: str, quote: str, expected: tuple[str, str]
) -> None:
    assert left_out(source, quote) == expected


@pytest.mark.parametrize(("source", "quote"), [
    # It negates what follows the quote, not the quoted words.
    ("Refunds go to the customer who is not a member.", "the customer who"),
    ("Refunds go to the customer who isn't a member.", "the customer who"),
    ("Pay the customer, not the agent.", "Pay the customer"),
    ("The aim is to protect tenants, not to punish landlords.", "protect tenants,"),
    # Qualifiers, not polarity flips.
    ("All dates stand, except that the deadline is Friday.", "the deadline is Friday"),
    ("Refunds are paid unless the goods are damaged.", "the goods are damaged"),
    # Another clause, another line.
    ("Do not wait. Start treatment now.", "Start treatment now"),
    ("Spouse eligible: No\nRetired members receive the pension.", "Retired members receive"),
    ("Spouse eligible? no\n\nretired members receive the pension.", "retired members receive"),
    ("Claims\nthe deadline is Friday\nNot covered: cosmetic work.", "the deadline is Friday"),
    ("You Can't Go Home (2011 album)\nYou Can't Go Home is an album.",
     "You Can't Go Home (2011 album)"),
    # Too far back to govern the quote.
    ("It was not what the three regional offices sent back.", "sent back"),
])
def test_a_negation_that_does_not_govern_the_quoted_words_is_no_context(
    source: str, quote: str
) -> None:
    assert left_out(source, quote) is None


@pytest.mark.parametrize(("source", "quote", "expected"), [
    ("Do not, under any circumstances, start treatment.", "start treatment",
     "do not, under any circumstances,"),
    ("Never, even in an emergency, exceed 4 g a day.", "exceed 4 g a day",
     "never, even in an emergency,"),
    ("No patient, whatever their age, should receive the drug.", "should receive the drug",
     "no patient, whatever their age,"),
    ("Patients must never, as a rule, receive both.", "receive both",
     "patients must never, as a rule,"),
    ("Don't, whatever the reading, start treatment.", "start treatment",
     "don't, whatever the reading,"),
    # Brackets and spaced dashes are parentheticals too; a hyphen inside one is a word.
    ("Never (even in an emergency) exceed 4 g a day.", "exceed 4 g a day",
     "never (even in an emergency)"),
    ("Never \u2014 even with COVID-19 \u2014 exceed 4 g.", "exceed 4 g",
     "never - even with covid-19 -"),
    # A sentence after another, after a heading, after a bullet.
    ("Dosing. Do not, in any case, exceed 4 g.", "exceed 4 g", "do not, in any case,"),
    ("Dosing\nDo not, in any case, exceed 4 g.", "exceed 4 g", "do not, in any case,"),
    ("\u2022 Do not, in any case, exceed 4 g.", "exceed 4 g", "do not, in any case,"),
    # The quote starts with the parenthetical and runs past it.
    ("Never, even in an emergency, exceed 4 g a day.", "even in an emergency, exceed 4 g",
     "never,"),
    # From the corpus (the US Constitution, a drug sheet).
    ("No State shall, without the Consent of the Congress, lay any Imposts or Duties.",
     "lay any Imposts or Duties", "no state shall, without the consent of the congress,"),
    ("[No Capitation, or other direct, Tax shall be laid.", "Tax shall be laid",
     "no capitation, or other direct,"),
    ("No gross external, soft tissue, or skeletal alterations have been observed.",
     "or skeletal alterations have been observed", "no gross external, soft tissue,"),
    ("No patient, however, should drive, or operate machinery.", "should drive",
     "no patient, however,"),
])
def test_a_sentence_initial_negation_reaches_across_a_parenthetical(
    source: str, quote: str, expected: str
) -> None:
    assert left_out(source, quote) == ("omit-before", expected)
    assert words_between(Difference("omit-before", expected, "", ("negation",))) == ()


@pytest.mark.parametrize(("source", "quote"), [
    ("If not treated, or if treated late, the infection spreads.", "the infection spreads"),
    ("If the patient does not respond, after 48 hours, start treatment.", "start treatment"),
    ("Staff said that they do not, as a rule, start treatment.", "start treatment"),
    ("No, not at all, the dose is 4 g a day.", "the dose is 4 g a day"),
    ("No doubt, as the authors say, the dose is 4 g a day.", "the dose is 4 g a day"),
    ("No more than 4 g, in any case, should be given.", "should be given"),
    ("Not all patients, in our series, respond.", "respond"),
    # A list whose first item is a negation (from the corpus), a rating scale.
    ("Rate the impairment: no impairment, minimal, moderate, or marked.",
     "moderate, or marked"),
    ("Rate the impairment: no impairment, minimal, moderate, or marked.",
     "minimal, moderate, or marked"),
    ("Never, rarely, sometimes, often, always.", "sometimes, often, always"),
    ("No pain, mild pain, moderate pain, or severe pain.", "moderate pain, or severe pain"),
    # A bracket glued to the word before is no parenthetical: "nor(s)" is a function.
    ("Then nor(s) is a smooth map.", "is a smooth map"),
    # A head longer than a few words is a clause of its own.
    ("Those on the ward who are not yet, as we saw, eligible wait.", "eligible wait"),
    # The quote is only the parenthetical, or a parenthetical of another clause.
    ("Never, even in an emergency, exceed 4 g a day.", "even in an emergency"),
    ("Do not wait: in every case, start treatment at once.", "start treatment at once"),
])
def test_a_parenthetical_that_no_negation_heads_ends_the_search(source: str, quote: str) -> None:
    assert left_out(source, quote) is None


@pytest.mark.parametrize(("words", "between"), [
    ("not", ()), ("not even be", ()), ("not send to", ("send", "to")),
    ("not remedy it", ("remedy",)),
])
def test_words_between_a_negation_and_the_quote(words: str, between: tuple[str, ...]) -> None:
    difference = Difference("omit-before", words, "", ("negation",))
    assert words_between(difference) == between


# A two-column paper's references as the text layer reads them: each
# entry's number hung left of it, on a line of its own.
_REFERENCES = ("Hammer ST, Greenson JK. The clinical significance of duodenal lymphocytosis "
               "with normal villus\narchitecture. Arch Pathol Lab Med 2013;137:1216-19.\n75\n"
               "Dahlbom I, Olsson M, Forooz NK, et al. Immunoglobulin G anti-tissue "
               "transglutaminase antibodies.\n76\nRashtak S, Ettore MW, Homburger HA, et al.")
_ITEMS = "1.\nYou must file the return on time.\n2.\nYou must keep the records for three years."


@pytest.mark.parametrize(("source", "quote", "dropped"), [
    (_REFERENCES, "Arch Pathol Lab Med 2013;137:1216-19. Dahlbom I, Olsson M, Forooz NK", "75"),
    (_ITEMS, "You must file the return on time. You must keep the records", "2 ."),
    # as OCR reads the references: each number before its entry's first line
    (_REFERENCES.replace("\n75\n", "\n75 ").replace("\n76\n", "\n76 "),
     "Arch Pathol Lab Med 2013;137:1216-19. Dahlbom I, Olsson M, Forooz NK", "75"),
    # in brackets, as CPIC's supplement numbers its references (batch 16)
    (_REFERENCES.replace("\n75\n", "\n(75)\n").replace("\n76\n", "\n(76)\n"),
     "Arch Pathol Lab Med 2013;137:1216-19. Dahlbom I, Olsson M, Forooz NK", "( 75 )"),
])
def test_a_list_number_left_out_between_two_entries_is_a_named_repair(
        source: str, quote: str, dropped: str) -> None:
    # Batch 14's coeliac guideline: a quote running from one reference into
    # the next, copied from a text that reads the hung numbers apart, was
    # flagged quote-altered, drops "75" (number).
    assert [(d.source, d.reasons, d.repair) for d in edits(source, quote)
            if d.op != "equal" and d.source] == [(dropped, (), "list-number")]
    assert reasons(source, quote) == set()


# A model act's clauses (batch 20): each runs on in lower case from the
# sentence listing them, a footnote marker may close the one before.
_CLAUSES = ("(2) the ventilation of the building, including filters and fans (adjusted\n"
            "for number of building occupants per ASHRAE standards);\u2074\u2075\n\n"
            "(3) measurable risks to the health of occupants tied to contaminants; and\n"
            "(4) the remaining items of the report.")


# An EMS protocol's pearls (batch 19): the item's number alone on its line
# after a sentence closed by a footnote marker, the previous number out of
# sight (a page back).
_PEARLS = ("Opiate administration may alter the physical examination findings, but these\n"
           "changes result in no significant increase in management errors.\u00b9\n6.\n"
           "Fentanyl is contraindicated for patients who have taken MAOIs.")


@pytest.mark.parametrize(("source", "quote", "dropped"), [
    (_CLAUSES, "occupants per ASHRAE standards); measurable risks to the health", [
        ("45", "footnote-marker"), ("( 3 )", "list-number")]),
    (_CLAUSES, "occupants per ASHRAE standards);45 measurable risks to the health", [
        ("( 3 )", "list-number")]),
    (_CLAUSES, "occupants per ASHRAE standards); 45 measurable risks to the health", [
        ("( 3 )", "list-number")]),
    (_PEARLS, "no significant increase in management errors. Fentanyl is contraindicated", [
        ("1", "footnote-marker"), ("6 .", "list-number")]),
    (_PEARLS, "no significant increase in management errors.1 Fentanyl is contraindicated", [
        ("6 .", "list-number")]),
])
def test_a_list_number_left_out_after_a_footnote_marker_is_a_named_repair(
        source: str, quote: str, dropped: list[tuple[str, str]]) -> None:
    # Flagged quote-altered before: the model act's clause opens in lower
    # case, and the marker and the number were one deletion ("45 ( 3 )",
    # number); the pearl's "6." had its list's "5." a page back.
    assert [(d.source, d.repair) for d in edits(source, quote)
            if d.op != "equal" and d.source] == dropped
    assert reasons(source, quote) == set()
    # The review page's word diff names the same repairs.
    assert {repair for _, repair in dropped} <= set(word_diff(quote, source).normalised)


@pytest.mark.parametrize(("source", "quote"), [
    # the list's number changed
    (_REFERENCES, "Arch Pathol Lab Med 2013;137:1216-19. 74 Dahlbom I, Olsson M, Forooz NK"),
    # a number alone on its line after a marked sentence, but bare (no stop)
    (_PEARLS.replace("\n6.\n", "\n6\n"),
     "no significant increase in management errors. Fentanyl is contraindicated"),
    # ... or with the sentence's words running on after it on its line
    (_PEARLS.replace("\n6.\n", "\n6. mg of\n"),
     "no significant increase in management errors. Fentanyl is contraindicated"),
    # ... or after a marker that closes no sentence
    (_PEARLS.replace("errors.\u00b9", "errors\u00b9"),
     "no significant increase in management errors Fentanyl is contraindicated"),
    # a clause's number with no neighbour opening a line: no list
    (_CLAUSES.replace("(2)", "Also").replace("(4)", "and"),
     "occupants per ASHRAE standards); measurable risks to the health"),
    # a bare figure before a lower-case word, after a marker
    (_CLAUSES.replace("(3)", "3"),
     "occupants per ASHRAE standards); measurable risks to the health"),
    # a number alone on its line with no neighbour in a list: a figure
    ("The usual dose in mg is\n75\ntwice daily with food for adults.",
     "The usual dose in mg is twice daily with food for adults."),
    # a figure opening a line, the next number opening the next
    ("The total was\n75 patients in the second arm and\n76 in the first.",
     "The total was patients in the second arm and"),
    # a number the sentence holds, with the list's numbers around it
    (_ITEMS.replace("three years", "3 years"), "You must keep the records for years."),
    # a bracketed figure alone on its line, no neighbour in a list
    ("The usual dose in mg is\n(75)\ntwice daily with food for adults.",
     "The usual dose in mg is twice daily with food for adults."),
    # brackets that do not pair are no list's number
    (_REFERENCES.replace("\n75\n", "\n(75]\n").replace("\n76\n", "\n(76]\n"),
     "Arch Pathol Lab Med 2013;137:1216-19. Dahlbom I, Olsson M, Forooz NK"),
])
def test_a_number_that_is_no_list_number_stays_a_number(source: str, quote: str) -> None:
    assert "number" in reasons(source, quote)


_ENTEROPATHY = ("Recently, Rostami and Villanacci\u00b9\u00b9\u2070 defined microscopic enteritis\n"
                "(also called lymphocytic duodenosis,\u00b9\u00b9\u00b9 lymphocytic enterop-\n"
                "athy\u00b9\u00b9\u00b9) and Villanacci et al\u00b9\u00b9\u00b2 published a "
                "practical classification")


def test_a_quote_closing_on_a_bracket_after_a_dropped_marker_is_repaired() -> None:
    # Batch 14's coeliac guideline: the window stopped before the bracket
    # that follows the marker, so the quote's own bracket read as an edit
    # of the marker's run: "lymphocytic enteropathy )" for "111 lymphocytic
    # enteropathy111" (number), quote-altered.
    quote = "called lymphocytic duodenosis, lymphocytic enteropathy)"
    assert reasons(_ENTEROPATHY, quote) == set()
    assert {d.repair for d in edits(_ENTEROPATHY, quote) if d.op != "equal"} == {
        "footnote-marker"}
    # the marker changed still counts
    assert "number" in reasons(_ENTEROPATHY, quote.replace("enteropathy)",
                                                           "enteropathy112)"))
