"""Locating the passage a paraphrased sentence draws on (verification/passage.py)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from verification.passage import (
    content_terms,
    locate_passage,
    passage_around,
    sentence_spans,
    source_sentences,
)

POLICY = (
    "4.1 Eligibility. Employees who work at least 20 hours a week are eligible on hire.\n"
    "4.2 Vesting. Employer matching contributions vest after two years of ser-\n"
    "vice. A participant who leaves before then forfeits the unvested match.\n"
    "4.3 Loans. Participants may borrow up to 50% of their vested balance.\n"
)


def test_the_sentence_sharing_the_rarest_words_is_the_passage() -> None:
    passage = locate_passage("Matching contributions vest after two years.",
                             source_sentences(POLICY))
    assert passage is not None
    text = POLICY[passage.source_start:passage.source_end]
    assert "Employer matching contributions vest after two years" in text
    assert "Loans" not in text and "Eligibility" not in text
    assert passage.support == 1.0 and passage.missing == ()


def test_shared_ranges_are_the_passage_words_the_sentence_uses() -> None:
    passage = locate_passage("Loans are capped at half of the vested balance.",
                             source_sentences(POLICY))
    assert passage is not None
    shared = {POLICY[s:e].lower() for s, e in passage.shared}
    assert {"vested", "balance", "loans"} <= shared
    assert all(passage.source_start <= s < e <= passage.source_end for s, e in passage.shared)
    # The sentence's words the passage lacks, as the sentence wrote them.
    assert "capped" in passage.missing and "half" in passage.missing
    assert 0 < passage.support < 1


def test_a_wrapped_pdf_line_does_not_end_a_sentence() -> None:
    spans = sentence_spans(POLICY)
    texts = [POLICY[s:e] for s, e in spans]
    # The unit runs across the hyphenated line break to the full stop.
    assert "Employer matching contributions vest after two years of ser-\nvice." in texts, texts


def test_a_source_sharing_no_content_word_has_no_passage() -> None:
    assert locate_passage("Dental cover starts in January.", source_sentences(POLICY)) is None
    assert locate_passage("See it.", source_sentences(POLICY)) is None


def test_a_passage_may_join_adjacent_sentences_to_hold_more_of_the_claim() -> None:
    source = ("The trial enrolled 412 patients. Most were over sixty.\n"
              "Apixaban reduced recurrence by 30 percent over six months. Bleeding was rare.")
    passage = locate_passage("The trial of 412 patients found apixaban cut recurrence by 30%.",
                             source_sentences(source))
    assert passage is not None
    text = source[passage.source_start:passage.source_end]
    assert "412 patients" in text and "30 percent" in text


def test_a_quotes_passage_is_the_sentence_around_its_match() -> None:
    start = POLICY.index("vest after")
    passage = passage_around(POLICY, start, start + len("vest after two years"))
    assert POLICY[passage.source_start:passage.source_end].startswith(
        ("4.2 Vesting. Employer", "Employer matching"))
    assert POLICY[passage.source_start:passage.source_end].endswith("vice.")
    assert passage.support is None


def test_furniture_ranges_hold_no_terms() -> None:
    text = "Annual Report 2023 page 4\nThe fund returned 7% in 2023."
    skip = ((0, text.index("\n")),)
    sentences = source_sentences(text, skip=skip)
    keys = {t.key for unit in sentences.terms for t in unit}
    assert "annual" not in keys and "fund" in keys


@settings(max_examples=200, deadline=None)
@given(st.text(st.characters(exclude_categories=("Cs",)), max_size=300))
def test_terms_point_at_their_own_words(text: str) -> None:
    for term in content_terms(text):
        assert text[term.start:term.end] == term.text
    for start, end in sentence_spans(text):
        assert 0 <= start < end <= len(text)
