"""is_claim(): which sentences assert a fact (the documented heuristic)."""

from __future__ import annotations

import pytest

from verification import is_claim


@pytest.mark.parametrize(
    "sentence",
    [
        # Closed declarative sentences of four or more words.
        "The employer match vests after two years of service.",
        "The plan covers dental and vision care.",
        "Contributions are matched up to six percent of salary.",
        "The contractor shall indemnify the client against all claims.",
        "Ki-67 should be reported as a percentage of tumour cells.",
        "Yes, the plan covers dental care.",
        "No, loans are not available to part-time staff.",
        # Framing openers do not hide a number.
        "Based on the provided sources, the match vests after two years.",
        "In summary, the deductible is $500 per year.",
        "Additionally, loans are capped at fifty percent.",
        # Markers are removed first and change nothing.
        "The match vests after two years. [S1]",
        "The match vests after two years [S1][S2].",
    ],
)
def test_declarative_sentences_are_claims(sentence: str) -> None:
    assert is_claim(sentence)


@pytest.mark.parametrize(
    "line",
    [
        # Short or unclosed lines (list items) with a number, month, name or verb.
        "- vests after 2 years",
        "- Employer match: 6 percent",
        "Coverage ends in March",
        "- administered by Fidelity Investments",
        "- Loans are capped",
        "The deductible is $500 per year",
        "Loans are allowed.",  # three words, closed, factual verb
    ],
)
def test_short_or_unclosed_lines_with_facts_are_claims(line: str) -> None:
    assert is_claim(line)


@pytest.mark.parametrize(
    "sentence",
    [
        "Here is what the plan says about vesting.",
        "Here's a summary of the relevant sections.",
        "Below is a summary of the plan.",
        "Based on the provided sources, I can answer this.",
        "Based on the documents, here is the answer.",
        "Let me explain how vesting works.",
        "I hope this helps!",
        "Great question!",
        "Thank you for asking.",
        "Feel free to ask about other benefits.",
        "Sure, here it is.",
        "Certainly, the details follow.",
        "However, there are several points to consider.",
        "Next, let me cover loans.",
    ],
)
def test_framing_and_transitions_are_not_claims(sentence: str) -> None:
    assert not is_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "What does the plan say about vesting?",
        "Does the match vest after two years?",
        "Would you like details about the 401(k) loan rules [S1]?",
    ],
)
def test_questions_are_not_claims(sentence: str) -> None:
    assert not is_claim(sentence)


@pytest.mark.parametrize(
    "line",
    [
        "## Vesting schedule",
        "# 2024 Plan Changes",  # a Markdown heading, even with a number
        "Vesting schedule:",
        "Key facts about the 401(k) plan:",
        "Vesting Schedule",
        "Key Benefits Overview",
        "**Eligibility**",
        "- Dental coverage",
        "1. Eligibility",
        "1) Vesting",
    ],
)
def test_headings_are_not_claims(line: str) -> None:
    assert not is_claim(line)


@pytest.mark.parametrize("text", ["Yes.", "It vests.", "[S1]", "[S1] [S2].", "", "   ", "- "])
def test_very_short_or_empty_is_not_a_claim(text: str) -> None:
    assert not is_claim(text)


@pytest.mark.parametrize(
    "sentence", ["Here is what the plan says:", "Great question!", "## Vesting"]
)
def test_a_quote_makes_a_claim(sentence: str) -> None:
    assert is_claim(sentence, has_quote=True)


@pytest.mark.parametrize(
    "sentence",
    [
        "If you terminate employment, your health coverage ends on the last day of the month.",
        "If you leave the company before you are vested, you forfeit the employer match.",
    ],
)
def test_conditional_rules_are_claims(sentence: str) -> None:
    assert is_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "Overall, the employer is responsible for repairs.",
        "In conclusion, the tenant must give notice in writing.",
        "In summary, the plan is generous.",
        "In short, loans are capped at the vested balance.",
        "To sum up, the landlord pays for structural repairs.",
        "To summarise, dependants lose coverage with the employee.",
        "Overall the employer is responsible for repairs.",
        "Overall costs rose sharply.",
    ],
)
def test_a_summary_opener_does_not_hide_a_claim(sentence: str) -> None:
    assert is_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "In summary, here is what the sources say.",
        "Overall, I hope this helps.",
        "In short, let me explain the vesting rules.",
        "In conclusion:",
    ],
)
def test_a_summary_opener_before_framing_is_framing(sentence: str) -> None:
    assert not is_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        # "i can" is a whole word: "I cannot …" is classified like any sentence.
        "I cannot predict how the court will rule on appeal.",
        "I can't predict how the court will rule on appeal.",
        "I can\u2019t help with tax questions, but the plan office can.",
        "I canvassed every tenant in the building last year.",
    ],
)
def test_i_can_is_framing_only_as_a_whole_word(sentence: str) -> None:
    assert is_claim(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "I can help with other benefits questions.",
        # Saying the sources are silent is about the sources, not a claim.
        "I cannot find this in the provided sources.",
        "I can't find anything about dental cover in the documents.",
        "I could not locate a deadline in the excerpts.",
    ],
)
def test_what_the_assistant_can_do_or_find_is_framing(sentence: str) -> None:
    assert not is_claim(sentence)


@pytest.mark.parametrize("emoji", ["\U0001f389", "\u2705", "\U0001f44d\U0001f3fd"])
def test_an_emoji_before_a_sentence_is_like_a_bullet(emoji: str) -> None:
    assert is_claim(f"{emoji} In summary, the plan is generous.")
    assert not is_claim(f"{emoji} Dental coverage")
    assert not is_claim(emoji)
