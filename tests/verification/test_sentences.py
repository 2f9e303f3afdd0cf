"""split_sentences(): sentence boundaries in model answers, with exact offsets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification import SentenceSpan, parse_markers, parse_quotes, split_sentences
from verification.sentences import _Ranges


def split(text: str) -> list[str]:
    """Split as verify_answer does: quotes protected, markers pulled back."""
    quotes = parse_quotes(text)
    spans = split_sentences(
        text,
        protected=[(q.outer_start, q.outer_end) for q in quotes],
        markers=parse_markers(text),
    )
    assert_offsets_exact(text, spans)
    return [s.text for s in spans]


def assert_offsets_exact(text: str, spans: tuple[SentenceSpan, ...]) -> None:
    previous_end = 0
    for span in spans:
        assert text[span.start : span.end] == span.text
        assert span.text == span.text.strip()
        assert span.text
        assert span.start >= previous_end
        previous_end = span.end
    # Only whitespace is left between and around sentences.
    covered = "".join(text[s.start : s.end] for s in spans)
    assert "".join(covered.split()) == "".join(text.split())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Use an approved form, e.g. the enrolment form. Then submit it.",
            ["Use an approved form, e.g. the enrolment form.", "Then submit it."],
        ),
        (
            "Benefits, i.e. health and dental cover, start on day one. Claims follow.",
            ["Benefits, i.e. health and dental cover, start on day one.", "Claims follow."],
        ),
        (
            "Plans in the U.S. are regulated by ERISA. Others are not.",
            ["Plans in the U.S. are regulated by ERISA.", "Others are not."],
        ),
        (
            "Ask Dr. Smith about the dose. She decides.",
            ["Ask Dr. Smith about the dose.", "She decides."],
        ),
        (
            "Smith et al. found a benefit. Jones et al. disagree.",
            ["Smith et al. found a benefit.", "Jones et al. disagree."],
        ),
        (
            "Smith et al. (2020) found a benefit.",
            ["Smith et al. (2020) found a benefit."],
        ),
        (
            "The meeting is at 3 p.m. local time. Bring forms.",
            ["The meeting is at 3 p.m. local time.", "Bring forms."],
        ),
        (
            "It costs $5 vs. $10 under the old plan. Fine.",
            ["It costs $5 vs. $10 under the old plan.", "Fine."],
        ),
    ],
)
def test_abbreviations_do_not_end_sentences(text: str, expected: list[str]) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The rate is 2.5 percent. It rises to 3.75 percent in 2025.",
            ["The rate is 2.5 percent.", "It rises to 3.75 percent in 2025."],
        ),
        ("Section 4.2.1 applies to all staff.", ["Section 4.2.1 applies to all staff."]),
        ("The limit is $1,000.50 per year. Next.", ["The limit is $1,000.50 per year.", "Next."]),
    ],
)
def test_decimals_never_end_sentences(text: str, expected: list[str]) -> None:
    assert split(text) == expected


def test_initials_do_not_end_sentences() -> None:
    assert split("Written by J. R. R. Tolkien in 1954. Published later.") == [
        "Written by J. R. R. Tolkien in 1954.",
        "Published later.",
    ]


def test_numbered_list_items() -> None:
    text = (
        "Eligibility rules:\n1. Employees over 21.\n2. After 90 days of service.\n3. Not interns."
    )
    assert split(text) == [
        "Eligibility rules:",
        "1. Employees over 21.",
        "2. After 90 days of service.",
        "3. Not interns.",
    ]


def test_list_number_at_line_start_is_not_a_sentence() -> None:
    assert split("1. Eligibility\n2. Vesting") == ["1. Eligibility", "2. Vesting"]
    assert split("a. Scope\nb. Term") == ["a. Scope", "b. Term"]


def test_markdown_bullets() -> None:
    text = (
        "Key points:\n- Match vests after two years\n* Loans are capped\n"
        "\u2022 Hardship rules apply"
    )
    assert split(text) == [
        "Key points:",
        "- Match vests after two years",
        "* Loans are capped",
        "\u2022 Hardship rules apply",
    ]


def test_line_breaks_end_sentences() -> None:
    assert split("## Vesting\nMatch vests after two years\n\nLoans are capped") == [
        "## Vesting",
        "Match vests after two years",
        "Loans are capped",
    ]


def test_question_and_exclamation_marks_and_ellipsis() -> None:
    assert split("Is dental covered? Yes! It is\u2026 Mostly.") == [
        "Is dental covered?",
        "Yes!",
        "It is\u2026",
        "Mostly.",
    ]


def test_lower_case_continuation_does_not_split() -> None:
    assert split("Is it covered? no, not yet.") == ["Is it covered? no, not yet."]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Match vests after two years. [S1] Loans are capped.",
            ["Match vests after two years. [S1]", "Loans are capped."],
        ),
        (
            "Match vests after two years. [S1][S2] Loans are capped.",
            ["Match vests after two years. [S1][S2]", "Loans are capped."],
        ),
        (
            "Match vests after two years. [S1] [S2]. Loans are capped.",
            ["Match vests after two years. [S1] [S2].", "Loans are capped."],
        ),
        (
            "Match vests after two years. \u30101\u2020plan\u3011 Loans are capped.",
            ["Match vests after two years. \u30101\u2020plan\u3011", "Loans are capped."],
        ),
        (
            "Match vests after two years [S1]. Loans are capped [S2].",
            ["Match vests after two years [S1].", "Loans are capped [S2]."],
        ),
        (
            "Match vests after two years. [S1]\nLoans are capped.",
            ["Match vests after two years. [S1]", "Loans are capped."],
        ),
    ],
)
def test_markers_after_the_full_stop_belong_to_the_sentence_before(
    text: str, expected: list[str]
) -> None:
    assert split(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        'The plan says "Coverage ends. Benefits stop. Claims close." [S1] Then it lists forms.',
        "The plan says \u201cCoverage ends. Benefits stop. Claims close.\u201d [S1] Then forms.",
        'The plan says "Coverage ends.\nBenefits stop." [S1] Then it lists forms.',
        '<quote source="S1">Coverage ends. Benefits stop.\nClaims close.</quote> Then forms.',
    ],
)
def test_a_quote_of_several_sentences_is_never_cut(text: str) -> None:
    quote = parse_quotes(text)[0]
    sentences = split(text)
    holding = [s for s in sentences if quote.text in s]
    assert len(holding) == 1, sentences


def test_sentence_ends_after_a_quote_ending_in_a_full_stop() -> None:
    text = 'The plan states: "Match vests after two years." [S1] Loans are not offered.'
    assert split(text) == [
        'The plan states: "Match vests after two years." [S1]',
        "Loans are not offered.",
    ]


def test_markers_are_not_pulled_in_without_markers_argument() -> None:
    # The markers argument is what attaches "[S1]" to the sentence before.
    text = "Match vests after two years. [S1] Loans are capped."
    spans = split_sentences(text)
    assert_offsets_exact(text, spans)
    assert spans[0].text == "Match vests after two years."


def test_protected_range_suppresses_boundaries_inside_it() -> None:
    text = "Alpha ends. Beta ends. Gamma ends."
    assert len(split_sentences(text)) == 3
    # Protect "Alpha ends. Beta ends.": the full stop inside it may not end a
    # sentence; the one that closes it may (a quote that ends a sentence).
    spans = split_sentences(text, protected=[(0, text.index(" Gamma"))])
    assert [s.text for s in spans] == ["Alpha ends. Beta ends.", "Gamma ends."]
    spans = split_sentences(text, protected=[(0, text.index("Gamma") + 2)])
    assert [s.text for s in spans] == ["Alpha ends. Beta ends. Gamma ends."]


def test_whitespace_is_trimmed_and_empty_lines_skipped() -> None:
    text = "  \n  Match vests.   \n\n\n  Loans are capped.  \n "
    assert split(text) == ["Match vests.", "Loans are capped."]


def test_empty_text() -> None:
    assert split_sentences("") == ()
    assert split_sentences(" \n\t ") == ()


def test_offsets_exact_on_a_realistic_answer() -> None:
    text = (
        "## Vesting\n"
        "Based on the plan, e.g. under section 4.2, the employer match vests after two years."
        " [S1]\n"
        '- Dr. Smith notes "Loans are capped at 50%. Hardship rules apply." [S2]\n'
        "- The U.S. rules differ; see p. 12 for details.\n"
        "I hope this helps!"
    )
    assert split(text) == [
        "## Vesting",
        "Based on the plan, e.g. under section 4.2, the employer match vests after two years. [S1]",
        '- Dr. Smith notes "Loans are capped at 50%. Hardship rules apply." [S2]',
        "- The U.S. rules differ; see p. 12 for details.",
        "I hope this helps!",
    ]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.integers(-3, 30), st.integers(-3, 30)), max_size=6),
    st.integers(-5, 35),
)
def test_property_quoted_ranges_hold_a_position_strictly_inside_one(
    ranges: list[tuple[int, int]], position: int
) -> None:
    # Protected ranges are open: a stop at a quote's own end is outside it.
    assert _Ranges(ranges).inside(position) == any(s < position < e for s, e in ranges)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The match vests after two years. \U0001f389 Loans are capped at half.",
            ["The match vests after two years.", "\U0001f389 Loans are capped at half."],
        ),
        (
            "Great question! \U0001f60a The plan covers dental care.",
            ["Great question!", "\U0001f60a The plan covers dental care."],
        ),
        (
            "Dental care is covered. \u2705 Vision care is covered too [S1].",
            ["Dental care is covered.", "\u2705 Vision care is covered too [S1]."],
        ),
        (
            "Dental, vision etc. \U0001f44d\U0001f3fd Loans are capped.",
            ["Dental, vision etc.", "\U0001f44d\U0001f3fd Loans are capped."],
        ),
        ("I hope this helps. \U0001f60a", ["I hope this helps.", "\U0001f60a"]),
    ],
)
def test_a_full_stop_before_an_emoji_ends_the_sentence(text: str, expected: list[str]) -> None:
    assert split(text) == expected

