"""parse_quotes(): straight, curly and block quotes, with exact positions."""

from __future__ import annotations

import pytest

from verification import Quote, parse_quotes


def only_quote(answer: str) -> Quote:
    quotes = parse_quotes(answer)
    assert len(quotes) == 1, quotes
    quote = quotes[0]
    assert answer[quote.start : quote.end] == quote.text
    assert quote.outer_start <= quote.start <= quote.end <= quote.outer_end
    return quote


def test_straight_quote() -> None:
    answer = 'The plan says "Employer match vests after two years" [S1].'
    quote = only_quote(answer)
    assert quote.text == "Employer match vests after two years"
    assert quote.kind == "straight"
    assert quote.source is None
    assert answer[quote.outer_start : quote.outer_end] == '"Employer match vests after two years"'


def test_curly_quote() -> None:
    answer = "The plan says \u201cEmployer match vests after two years\u201d [S1]."
    quote = only_quote(answer)
    assert quote.text == "Employer match vests after two years"
    assert quote.kind == "curly"


def test_curly_quote_with_inner_straight_quotes() -> None:
    answer = 'It says \u201cthe "core" rule applies to all staff\u201d [S1].'
    quote = only_quote(answer)
    assert quote.text == 'the "core" rule applies to all staff'


def test_curly_quote_with_inner_curly_quotes_keeps_the_outermost() -> None:
    answer = "It says \u201cthe \u201ccore\u201d rule applies to all staff\u201d [S1]."
    quote = only_quote(answer)
    assert quote.text == "the \u201ccore\u201d rule applies to all staff"
    assert answer[quote.outer_start] == "\u201c"
    assert answer[quote.outer_end - 1] == "\u201d"


@pytest.mark.parametrize(
    ("tag", "source"),
    [
        ('<quote source="S1">', "S1"),
        ("<quote source='S1'>", "S1"),
        ("<quote source=S1>", "S1"),
        ('<quote source = "s1" >', "S1"),
        ('<QUOTE SOURCE="S1">', "S1"),
        ("<quote>", None),
    ],
)
def test_block_quote_attribute_forms(tag: str, source: str | None) -> None:
    closing = "</QUOTE>" if tag.startswith("<QUOTE") else "</quote>"
    answer = f"Per the plan: {tag}Employer match vests after two years.{closing} Done."
    quote = only_quote(answer)
    assert quote.kind == "block"
    assert quote.source == source
    assert quote.text == "Employer match vests after two years."
    assert answer[quote.outer_start : quote.outer_end] == (
        f"{tag}Employer match vests after two years.{closing}"
    )


def test_block_quote_trims_surrounding_whitespace_and_keeps_inner_lines() -> None:
    answer = '<quote source="S2">\n  Coverage ends on the last day of the month.\n'
    answer += "  Dependants lose coverage too.\n</quote>"
    quote = only_quote(answer)
    assert quote.text == (
        "Coverage ends on the last day of the month.\n  Dependants lose coverage too."
    )


def test_block_quote_holding_straight_quotes_is_one_quote() -> None:
    answer = '<quote source="S1">The "plan year" is the calendar year.</quote>'
    quote = only_quote(answer)
    assert quote.text == 'The "plan year" is the calendar year.'


@pytest.mark.parametrize(
    "text",
    [
        "Coverage ends. Benefits stop. Claims close.",
        "Patients with Ki-67 \u2265 30% [18] are high risk (see Table 2).",
        "the employee's rights and the employer's duties",
        "benefits (a) and (b) of section 4.2",
        "Dr. Smith et al. reported 2.5 mg/kg, i.e. the dose",
    ],
)
@pytest.mark.parametrize(("open_", "close"), [('"', '"'), ("\u201c", "\u201d")])
def test_quote_content_with_stops_brackets_and_apostrophes(
    text: str, open_: str, close: str
) -> None:
    answer = f"The source says {open_}{text}{close} [S1]. Then more."
    quote = only_quote(answer)
    assert quote.text == text


@pytest.mark.parametrize("after", [" [S1]", ".", ",", ";", ":", ")", "!", "?", "", "\n", " \u3010"])
def test_straight_quote_closes_before_space_or_punctuation(after: str) -> None:
    answer = f'(It says "match vests after two years"{after}'
    assert only_quote(answer).text == "match vests after two years"


def test_straight_quote_directly_followed_by_marker() -> None:
    answer = 'The plan says "Employer match vests after two years"[S1].'
    assert only_quote(answer).text == "Employer match vests after two years"


def test_curly_quote_directly_followed_by_marker() -> None:
    answer = "The plan says \u201cEmployer match vests after two years\u201d[S1]."
    assert only_quote(answer).text == "Employer match vests after two years"


def test_several_quotes_in_order_with_exact_positions() -> None:
    answer = (
        'The plan says "match vests after two years" [S1] and \u201cloans are capped\u201d '
        '[S2], and <quote source="S3">hardship rules apply</quote>.'
    )
    quotes = parse_quotes(answer)
    assert [q.text for q in quotes] == [
        "match vests after two years",
        "loans are capped",
        "hardship rules apply",
    ]
    assert [q.kind for q in quotes] == ["straight", "curly", "block"]
    for quote in quotes:
        assert answer[quote.start : quote.end] == quote.text
    assert [q.outer_start for q in quotes] == sorted(q.outer_start for q in quotes)


@pytest.mark.parametrize(
    "answer",
    [
        "The plan's 'core' rule applies.",  # single quotes are apostrophes
        'A 5" screen is standard.',  # an inch mark, not an opening quote
        'It says "unterminated and then nothing',
        "It says \u201cunterminated and then nothing",
        'A one-letter "x" quote.',  # shorter than two characters
        "No quotes at all.",
    ],
)
def test_things_that_are_not_quotes(answer: str) -> None:
    assert parse_quotes(answer) == ()


def test_inch_mark_does_not_swallow_a_later_quote() -> None:
    answer = 'A 5" screen and a "real quote here" [S1].'
    assert only_quote(answer).text == "real quote here"


def test_quote_at_start_of_answer() -> None:
    answer = '"Employer match vests after two years" [S1] is what the plan says.'
    quote = only_quote(answer)
    assert (quote.outer_start, quote.start) == (0, 1)


# --- Quotes inside quotes (issue 10, item 2) ---------------------------------


def test_straight_quote_holding_a_curly_pair_is_one_quote() -> None:
    # The curly pair used to be parsed first and the enclosing straight pair
    # dropped, so only "Yes" was checked: a false pass on "Form 2040".
    answer = '"check the \u201cYes\u201d box on Form 2040" [S1]'
    quote = only_quote(answer)
    assert quote.kind == "straight"
    assert quote.text == "check the \u201cYes\u201d box on Form 2040"
    assert (quote.outer_start, quote.outer_end) == (0, answer.index(" [S1]"))


def test_straight_quote_holding_several_curly_pairs() -> None:
    answer = 'It says "tick \u201cYes\u201d or \u201cNo\u201d on line 7" [S1].'
    assert only_quote(answer).text == "tick \u201cYes\u201d or \u201cNo\u201d on line 7"


def test_straight_quote_holding_nested_curly_pairs() -> None:
    answer = 'It says "the \u201cso-called \u201ccore\u201d rule\u201d applies" [S1].'
    assert only_quote(answer).text == "the \u201cso-called \u201ccore\u201d rule\u201d applies"


def test_straight_quote_holding_single_curly_quotes_and_apostrophes() -> None:
    answer = 'It says "check the \u2018Yes\u2019 box on the employer\u2019s form" [S1].'
    assert only_quote(answer).text == "check the \u2018Yes\u2019 box on the employer\u2019s form"


def test_straight_quote_holding_straight_pair() -> None:
    answer = 'It says "the "core" rule applies to all staff" [S1].'
    assert only_quote(answer).text == 'the "core" rule applies to all staff'


def test_straight_quote_holding_an_unclosed_curly_quote() -> None:
    # A lone curly mark inside is text: it pairs with nothing.
    answer = 'It says "the \u201ccore rule applies" [S1].'
    assert only_quote(answer).text == "the \u201ccore rule applies"


def test_curly_quote_holding_an_unclosed_straight_quote() -> None:
    answer = 'It says \u201cthe "core rule applies\u201d [S1].'
    assert only_quote(answer).text == 'the "core rule applies'


def test_a_straight_pair_does_not_cross_a_curly_pair() -> None:
    # The straight mark inside the curly pair cannot close the one before it.
    answer = 'A "b \u201cc "d" e" f\u201d g [S1].'
    assert only_quote(answer).text == 'c "d" e" f'


def test_a_curly_mark_left_open_inside_a_straight_pair_is_its_text() -> None:
    # Issue 23, item 5 changed this: it quoted 'c" d' (the curly pair first).
    # The curly marks between the straight ones do not pair, so the straight
    # pair closes at the next straight mark and its curly mark is text.
    answer = 'A "b \u201cc" d\u201d e [S1].'
    assert only_quote(answer).text == "b \u201cc"


def test_curly_pair_after_straight_pair() -> None:
    answer = 'It says "match vests" and \u201cloans are capped\u201d [S1].'
    assert [q.text for q in parse_quotes(answer)] == ["match vests", "loans are capped"]


def test_straight_mark_followed_by_a_space_is_not_an_opening() -> None:
    answer = 'He said " and then "the rule applies to all" [S1].'
    assert only_quote(answer).text == "the rule applies to all"


@pytest.mark.parametrize("answer", ['He said " nothing more.', 'It ends with "', 'A "\nline'])
def test_straight_mark_before_whitespace_or_end_opens_nothing(answer: str) -> None:
    assert parse_quotes(answer) == ()


def test_quote_marks_inside_a_block_are_its_text() -> None:
    answer = ('<quote source="S1">check the \u201cYes\u201d box on "Form 2040"</quote> '
              'and "more words" [S2]')
    quotes = parse_quotes(answer)
    assert [(q.kind, q.text) for q in quotes] == [
        ("block", 'check the \u201cYes\u201d box on "Form 2040"'),
        ("straight", "more words"),
    ]


def test_a_straight_pair_does_not_reach_across_a_block() -> None:
    answer = 'A "b <quote source="S1">inner words</quote> c" d [S1].'
    assert [(q.kind, q.text) for q in parse_quotes(answer)] == [("block", "inner words")]


def test_unclosed_outer_curly_quote_leaves_its_inner_pair() -> None:
    answer = "He wrote \u201cthe \u201ccore\u201d rule [S1]."
    assert only_quote(answer).text == "core"


def test_a_lone_closing_curly_mark_inside_a_straight_quote_is_text() -> None:
    answer = 'It says "the core\u201d rule applies" [S1].'
    assert only_quote(answer).text == "the core\u201d rule applies"


# --- Quote marks that do not pair inside a quote (issue 23, item 5) ----------

# A model quotes a bibliography across two titles: the curly marks are the
# bibliography's own, cut off at the edges of each quote.
BIBLIOGRAPHY = (
    'The list cites "Sales Rise,\u201d Daily News, 3 May; \u201cCosts Fall" [S1] and '
    '"ledger (What Finance Doesn\u2019t Say),\u201d Review 2 (2001)" [S4].'
)


def test_a_straight_quote_closes_at_the_next_straight_mark_when_its_curly_marks_do_not_pair(
) -> None:
    # The "“Costs … Say),”" pair used to be taken first, so the straight mark
    # after "Fall" could not close and both titles merged into one quote.
    quotes = parse_quotes(BIBLIOGRAPHY)
    assert [(q.kind, q.text) for q in quotes] == [
        ("straight", "Sales Rise,\u201d Daily News, 3 May; \u201cCosts Fall"),
        ("straight", "ledger (What Finance Doesn\u2019t Say),\u201d Review 2 (2001)"),
    ]
    for quote in quotes:
        assert BIBLIOGRAPHY[quote.start : quote.end] == quote.text
        assert BIBLIOGRAPHY[quote.outer_start] == BIBLIOGRAPHY[quote.outer_end - 1] == '"'


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        # A closing mark before any opening one.
        ('It cites "Sales Rise,\u201d Daily News, 3 May" [S1].',
         "Sales Rise,\u201d Daily News, 3 May"),
        # An opening mark left open.
        ('It cites "Daily News, 3 May; \u201cCosts Fall" [S1].',
         "Daily News, 3 May; \u201cCosts Fall"),
        # Both, with a curly pair after the quote that must stay out of it.
        ('It cites "Rise,\u201d News; \u201cCosts Fall" [S1] and \u201cmore words\u201d [S2].',
         "Rise,\u201d News; \u201cCosts Fall"),
    ],
)
def test_unpaired_curly_marks_inside_a_straight_quote_are_text(answer: str, text: str) -> None:
    assert parse_quotes(answer)[0].text == text


def test_the_unpaired_marks_do_not_pair_with_marks_outside_the_quote() -> None:
    # The opening mark inside the first quote once paired with the closing
    # mark inside the second; each is text of its own quote now.
    answer = 'It cites "a \u201cb" [S1] and "c\u201d d" [S2].'
    assert [q.text for q in parse_quotes(answer)] == ["a \u201cb", "c\u201d d"]


# Mirror cases: what already worked keeps working.


def test_a_curly_pair_nested_inside_a_straight_quote_stays_one_quote() -> None:
    answer = 'It says "He said \u201cyes\u201d today" [S1].'
    quote = only_quote(answer)
    assert (quote.kind, quote.text) == ("straight", "He said \u201cyes\u201d today")


def test_a_curly_pair_and_an_inner_straight_pair_inside_a_straight_quote() -> None:
    answer = 'It says "the \u201cso-called "core" rule\u201d applies" [S1].'
    assert only_quote(answer).text == "the \u201cso-called \"core\" rule\u201d applies"


@pytest.mark.parametrize(
    "text",
    [
        "ledger (What Finance Doesn\u2019t Say)",
        "the Smiths\u2019 house on the corner",
        "the Smiths\u2019 house, which Doesn\u2019t sell",
    ],
)
@pytest.mark.parametrize(("open_", "close"), [('"', '"'), ("\u201c", "\u201d")])
def test_apostrophes_are_never_quote_marks(text: str, open_: str, close: str) -> None:
    answer = f"It cites {open_}{text}{close} [S1] and {open_}more words{close} [S2]."
    assert [q.text for q in parse_quotes(answer)] == [text, "more words"]


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        # A straight quote whose text ends with a closing curly mark.
        ('It cites "Sales Rise,\u201d" [S1].', "Sales Rise,\u201d"),
        # A curly quote: its closing mark is only at its end.
        ("It cites \u201cSales Rise, Daily News, 3 May\u201d [S1].",
         "Sales Rise, Daily News, 3 May"),
        # A curly quote holding a straight mark that pairs with nothing.
        ('It cites \u201cSales Rise," Daily News\u201d [S1].', 'Sales Rise," Daily News'),
    ],
)
def test_a_quote_with_a_closing_curly_mark_only_at_its_end(answer: str, text: str) -> None:
    assert only_quote(answer).text == text


@pytest.mark.parametrize(
    ("answer", "texts"),
    [
        # The same bibliography with single curly marks: they are never
        # delimiters, so the straight marks pair as they always did.
        ('The list cites "Sales Rise,\u2019 Daily News, 3 May; \u2018Costs Fall" [S1] and '
         '"ledger (What Finance Doesn\u2019t Say),\u2019 Review 2 (2001)" [S4].',
         ["Sales Rise,\u2019 Daily News, 3 May; \u2018Costs Fall",
          "ledger (What Finance Doesn\u2019t Say),\u2019 Review 2 (2001)"]),
        ("The list cites 'Sales Rise,' Daily News [S1].", []),
        ("It cites \u2018Sales Rise\u2019 in the Daily News [S1].", []),
        ('It says "tick \u2018Yes\u2019 on line 7" [S1].', ["tick \u2018Yes\u2019 on line 7"]),
    ],
)
def test_single_quotes_never_delimit_or_unpair(answer: str, texts: list[str]) -> None:
    assert [q.text for q in parse_quotes(answer)] == texts
