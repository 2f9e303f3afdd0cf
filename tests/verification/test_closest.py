"""Evidence for a failure: the cited source's closest passage, a word diff
that leaves out what normalisation accounted for, and a negation's context."""

import json

import pytest

from verification import (
    Difference,
    Source,
    negation_context,
    verify_answer,
    word_diff,
)

GUIDE = ("Adults with hypertension should have their blood pressure checked every year "
         "by a practice nurse. Children are screened at school entry.")
PLAN = "The plan pays for hearing aids once every three years for each ear."


def test_a_not_found_quote_carries_the_cited_sources_closest_passage() -> None:
    answer = 'The guide says "blood pressure must be checked monthly by a doctor" [S1].'
    (citation,) = verify_answer(answer, {"S1": GUIDE, "S2": PLAN}).citations
    assert citation.outcome == "quote-not-found"
    # chunk_* still mean "where the quote is": nowhere.
    assert citation.chunk_start is None and citation.source_marker is None
    assert citation.closest_marker == "S1"
    assert citation.closest_start is not None and citation.closest_end is not None
    closest = GUIDE[citation.closest_start:citation.closest_end]
    assert "blood pressure checked every year" in closest
    assert citation.closest_score == pytest.approx(citation.score)
    assert 0 < citation.closest_score < 0.92
    data = json.loads(json.dumps(citation.to_dict()))
    assert data["closest_marker"] == "S1"
    assert (data["closest_start"], data["closest_end"]) == (citation.closest_start,
                                                            citation.closest_end)


def test_the_closest_passage_names_the_cited_source_that_holds_it() -> None:
    # Cited [S1, S2]: the best window is in S2, so that is where to look.
    answer = 'It says "hearing aids every two years for both ears" [S1, S2].'
    (citation,) = verify_answer(answer, {"S1": GUIDE, "S2": PLAN}).citations
    assert citation.outcome == "quote-not-found"
    assert citation.closest_marker == "S2"
    assert "hearing aids" in PLAN[citation.closest_start:citation.closest_end]


def test_wrong_source_carries_where_the_quote_is_and_the_cited_sources_closest() -> None:
    answer = 'The plan says "hearing aids once every three years" [S1].'
    (citation,) = verify_answer(answer, {"S1": GUIDE, "S2": PLAN}).citations
    assert citation.outcome == "wrong-source"
    assert citation.source_marker == "S2"
    assert PLAN[citation.chunk_start:citation.chunk_end] == "hearing aids once every three years"
    assert citation.closest_marker == "S1"
    assert citation.closest_start is not None and citation.closest_end is not None
    assert citation.closest_score is not None and citation.closest_score < 0.92


@pytest.mark.parametrize("answer", [
    'The guide says "blood pressure checked every year" [S1].',   # verified
    'The guide says "blood pressure checked every years" [S1].',  # fuzzy
    'The guide says "blood pressure checked every month" [S1].',  # altered
])
def test_a_match_has_no_closest_passage(answer: str) -> None:
    (citation,) = verify_answer(answer, {"S1": GUIDE}).citations
    assert citation.chunk_start is not None
    assert citation.closest_marker is None and citation.closest_start is None
    assert citation.closest_score is None


def test_the_closest_passage_skips_nothing_it_must_not() -> None:
    # A chunk with furniture: the closest window's offsets are the source's own.
    text = "Claims are paid within 30 days.\nPAGE 4\nof the date on which they are received."
    header = text.index("PAGE 4")
    source = Source("S1", text, skip=((header, header + len("PAGE 4")),))
    answer = 'It says "Claims are settled inside a fortnight of receipt" [S1].'
    (citation,) = verify_answer(answer, [source]).citations
    assert citation.outcome == "quote-not-found"
    assert citation.closest_start is not None and citation.closest_end is not None
    assert 0 <= citation.closest_start < citation.closest_end <= len(text)


# --- the word diff ---------------------------------------------------------


def ops(quote: str, source: str) -> list[tuple[str, str]]:
    return [(run.op, run.text) for run in word_diff(quote, source).runs]


def test_the_diff_shows_words_changed_and_lists_normalisation_once() -> None:
    diff = word_diff("Employer match vests after five years of service",
                     "Employer  match vests af-\nter two years of ser-\nvice")
    assert [(r.op, r.text) for r in diff.runs] == [
        ("equal", "Employer match vests after"), ("delete", "two"), ("insert", "five"),
        ("equal", "years of service"),
    ]
    # Two hyphenated line breaks, one name.
    assert diff.normalised == ("line-break-hyphenation", "whitespace")
    assert diff.changed


def test_ligatures_case_and_smart_quotes_are_not_differences() -> None:
    diff = word_diff('the "final" financial statement', "The “ﬁnal” ﬁnancial Statement")
    assert [r.op for r in diff.runs] == ["equal"]
    assert not diff.changed
    assert set(diff.normalised) == {"ligature", "smart-quotes", "case"}


def test_the_repairs_the_library_names_are_normalised_not_differences() -> None:
    spacing = word_diff("Title 1 applies to U0", "Title1 applies to U 0")
    assert not spacing.changed and spacing.normalised == ("spacing",)
    marker = word_diff("damage to the liver is rare", "damage to the liver12 is rare")
    assert not marker.changed and marker.normalised == ("footnote-marker",)
    # A number with a space before it is no footnote marker: it is shown.
    assert ("delete", "30") in ops("paid within days", "paid within 30 days")


@pytest.mark.parametrize(("quote", "repair"), [
    ("and TriviaQA, we use", "footnote-marker"),  # dropped
    ("and TriviaQA 6, we use", "spacing"),  # spaced off: the same characters
])
def test_a_superscript_marker_after_a_word_is_normalised_as_compare_repairs_it(
    quote: str, repair: str
) -> None:
    diff = word_diff(quote, "and TriviaQA\u2076, we use")
    assert not diff.changed and diff.normalised == (repair,)
    # A changed marker is shown, as compare() reports it.
    assert ("insert", "TriviaQA7") in ops("and TriviaQA7, we use", "and TriviaQA\u2076, we use")


def test_furniture_never_shows_in_the_diff() -> None:
    source = "Leave is paid at\nACME HANDBOOK  page 7\nfull rate for ten weeks"
    start = source.index("ACME")
    furniture = ((start, start + len("ACME HANDBOOK  page 7")),)
    diff = word_diff("Leave is paid at half rate for ten weeks", source, skip=furniture)
    text = " ".join(run.text for run in diff.runs)
    assert "ACME" not in text and "page 7" not in text
    assert ("delete", "full") in [(r.op, r.text) for r in diff.runs]
    assert "page-furniture" in diff.normalised


def test_answer_text_in_the_diff_is_the_quotes_own() -> None:
    # Equal runs show the quote's words (what the answer said), not the fold.
    assert ops("Vests after TWO  years", "vests after two\nyears") == [
        ("equal", "Vests after TWO years")]


# --- a negation just outside the quote ---------------------------------------


def test_the_negation_before_a_quote_in_the_sources_words() -> None:
    source = "Guidance. Do not start treatment on a single reading of high blood pressure."
    answer = 'Advice: "start treatment on a single reading" [S1].'
    (citation,) = verify_answer(answer, {"S1": source}).citations
    assert citation.outcome == "quote-altered"
    (difference,) = citation.differences
    assert difference.op == "omit-before" and difference.source == "not"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    context = negation_context(source, citation.chunk_start, citation.chunk_end, difference)
    assert context is not None
    assert (context.side, context.lead, context.words) == ("before", "Do ", "not")


def test_a_negation_across_a_parenthetical_in_the_sources_words() -> None:
    source = "Guidance. Do NOT, under any circumstances, start treatment before the culture."
    (citation,) = verify_answer('It says "start treatment before the culture" [S1].',
                                {"S1": source}).citations
    assert citation.outcome == "quote-altered"
    (difference,) = citation.differences
    assert citation.chunk_start is not None and citation.chunk_end is not None
    context = negation_context(source, citation.chunk_start, citation.chunk_end, difference)
    assert context is not None
    assert (context.side, context.lead, context.words) == (
        "before", "", "Do NOT, under any circumstances,")


def test_a_negation_reached_across_keeps_its_words() -> None:
    source = "Notes:\nThe court did NOT even consider the appeal."
    difference = Difference("omit-before", "not even", "", ("negation",))
    start = source.index("consider")
    context = negation_context(source, start, start + len("consider the appeal"), difference)
    assert context is not None and context.words == "NOT even"
    assert context.lead == "The court did "


def test_the_negation_after_a_quote() -> None:
    source = "The dose should not be doubled."
    (citation,) = verify_answer('It says "The dose should" [S1].', {"S1": source}).citations
    assert citation.outcome == "quote-altered"
    (difference,) = citation.differences
    assert difference.op == "omit-after"
    assert citation.chunk_start is not None and citation.chunk_end is not None
    context = negation_context(source, citation.chunk_start, citation.chunk_end, difference)
    assert context is not None and (context.side, context.words) == ("after", "not")


def test_no_context_for_other_differences() -> None:
    difference = Difference("replace", "two", "five", ("number",))
    assert negation_context("two years", 0, 9, difference) is None


# --- reasons read as sentences ---------------------------------------------


def test_reasons_are_sentences_in_the_badges_words() -> None:
    answer = ('The plan says "hearing aids twice a year" [S1]. It says "hearing aids once '
              'every three years" [S1]. Staff get "free parking" [S9]. Adults are screened '
              'yearly.')
    report = verify_answer(answer, {"S1": GUIDE, "S2": PLAN})
    assert report.verdict == "fail"
    assert report.reasons == (
        "1 fabricated marker: it was not among the sources given to the model.",
        "1 quote not found: it is not in the source it cites.",
        "1 quote from the wrong source: it is in another source than the one it cites.",
        "50% of the claims cite a source: coverage below the minimum of 100%.",
    )
    for reason in report.reasons:
        assert reason[-1] == "." and "-" not in reason  # words, not codes


@pytest.mark.parametrize("answer", [
    'It says *"two years of service"* [S1].',
    'It says **"two years of service"** [S1].',
    'It says _"two years of service"_ [S1].',
])
def test_a_quote_in_markdown_emphasis_is_a_quote(answer: str) -> None:
    (citation,) = verify_answer(answer, {"S1": "Match vests after two years of service."}).citations
    assert citation.outcome == "verified" and citation.quote == "two years of service"
