"""Long quotes aligned from exact seeds, against the old window search, and
the work budget that bounds an answer's alignment."""

from __future__ import annotations

import dataclasses
import random

import pytest

from verification import (
    VerificationConfig,
    WorkBudgetExceeded,
    normalize,
    verify_answer,
)
from verification.budget import SEED_MATCH_MIN_CHARS, WorkMeter, alignment_work
from verification.matching import align
from verification.seeding import SEED_CHARS, seed_anchors, seed_chain, seeded_window

UNSEEDED = VerificationConfig(seed_min_chars=None, max_work=None)

_WORDS = (
    "the employer shall pay each eligible member a monthly benefit within thirty days of "
    "receiving written notice unless the committee decides otherwise under section "
    "review appeal contribution vesting schedule account balance retirement plan trustee "
    "records dispute claim period interest rate annual statement beneficiary spouse "
    "transfer payment loan hardship withdrawal distribution election form deadline"
).split()


def prose(rng: random.Random, size: int) -> str:
    """Generated prose with line breaks, numbers and sentences: every long
    stretch of it is unique, as in a real document."""
    words: list[str] = []
    length = 0
    while length < size:
        word = rng.choice(_WORDS)
        if rng.random() < 0.06:
            word = str(rng.randint(2, 999))
        if rng.random() < 0.08:
            word += "."
        words.append(word)
        length += len(word) + 1
    lines = []
    for i in range(0, len(words), 11):
        lines.append(" ".join(words[i : i + 11]))
    return "\n".join(lines)[:size]


#: Words whose typo or absence changes no meaning (not a number, negation,
#: unit or time), so such an edit leaves a faithful quote.
_PLAIN = frozenset(
    "employer eligible member benefit receiving written committee section review "
    "contribution vesting schedule account balance retirement trustee records dispute "
    "beneficiary transfer hardship withdrawal distribution election".split()
)


def edited(rng: random.Random, span: str, how: str) -> str:
    """``span`` with one plain word misspelt or dropped, or a number put in."""
    words = span.split()
    plain = [i for i, w in enumerate(words[3:-3], start=3) if w in _PLAIN]
    at = rng.choice(plain)
    if how == "letter":
        word = words[at]
        words[at] = word[:1] + ("x" if word[1:2] != "x" else "y") + word[2:]
    elif how == "drop":
        del words[at]
    elif how == "number":
        words[at] = "4242"
    return " ".join(words)


def cases(count: int) -> list[tuple[str, str, str]]:
    """(source, quote, how) of quotes 500-2,000 characters long cut from a
    5,000-character source, each with one edit."""
    rng = random.Random(20260412)
    out = []
    for i in range(count):
        source = prose(rng, 5_000)
        length = rng.randint(SEED_MATCH_MIN_CHARS, 2_000)
        start = rng.randrange(0, len(source) - length)
        start = source.index(" ", start) + 1
        end = source.rindex(" ", start, start + length)
        how = ("letter", "drop", "number")[i % 3]
        out.append((source, edited(rng, source[start:end], how), how))
    return out


CASES = cases(18)


@pytest.mark.parametrize(("source", "quote", "how"), CASES)
def test_seeded_and_window_search_agree(source: str, quote: str, how: str) -> None:
    region = normalize(source)
    q = normalize(quote).text
    assert len(q) >= SEED_MATCH_MIN_CHARS
    old = align(q, region, seed_min_chars=None)
    new = align(q, region)
    assert old is not None and new is not None
    assert (new.norm_start, new.norm_end, new.source_start, new.source_end) == (
        old.norm_start, old.norm_end, old.source_start, old.source_end)
    assert new.score == pytest.approx(old.score, abs=1e-9)
    answer = f'The plan says "{quote}" [S1].'
    before = verify_answer(answer, {"S1": source}, config=UNSEEDED).citations
    after = verify_answer(answer, {"S1": source}).citations
    assert [(c.outcome, c.chunk_start, c.chunk_end, c.differences) for c in after] == [
        (c.outcome, c.chunk_start, c.chunk_end, c.differences) for c in before]
    expected = "verified-fuzzy" if how in ("letter", "drop") else "quote-altered"
    assert after[0].outcome == expected


def test_offsets_point_at_the_quoted_passage() -> None:
    rng = random.Random(7)
    source = prose(rng, 20_000)
    start = source.index(" ", 9_000) + 1
    end = source.rindex(" ", start, start + 3_000)
    quote = edited(rng, source[start:end], "letter")
    report = verify_answer(f'It says "{quote}" [S1].', {"S1": source})
    (citation,) = report.citations
    assert citation.outcome == "verified-fuzzy"
    assert (citation.chunk_start, citation.chunk_end) == (start, end)
    region = normalize(source)
    found = align(normalize(quote).text, region)
    assert found is not None
    assert region.original[found.source_start : found.source_end] == source[start:end]


def test_absent_long_quote_is_rejected_without_a_window() -> None:
    rng = random.Random(3)
    source = prose(rng, 30_000)
    absent = " ".join(f"unrelated{i} sentence about weather patterns" for i in range(60))
    assert len(absent) > 2 * SEED_MATCH_MIN_CHARS
    assert seeded_window(absent, normalize(source).text) is None
    assert align(absent, normalize(source)) is None
    (citation,) = verify_answer(f'It says "{absent}" [S1].', {"S1": source}).citations
    assert citation.outcome == "quote-not-found"


def test_a_passage_the_source_repeats_is_found_in_its_first_copy() -> None:
    """A contract restates a clause: none of the quote's seeds is unique in
    the source, yet the quote is there (twice) and must not be refused."""
    rng = random.Random(5)
    clause = prose(rng, 1_500)
    source = prose(rng, 4_000) + "\n" + clause + "\n" + prose(rng, 3_000) + "\n" + clause
    first = source.index(clause)
    start = source.index(" ", first + 100) + 1
    end = source.rindex(" ", start, start + 1_000)
    quote = edited(rng, source[start:end], "letter")
    region = normalize(source)
    q = normalize(quote).text
    assert seed_anchors(q, region.text) == [] or seed_chain(seed_anchors(q, region.text)) == []
    old = align(q, region, seed_min_chars=None)
    new = align(q, region)
    assert old is not None and new is not None
    assert (new.source_start, new.source_end) == (start, end)
    # The window search settles on the last copy: the same passage, as good.
    assert source[old.source_start : old.source_end] == source[start:end]
    assert new.score == pytest.approx(old.score, abs=1e-9)
    (citation,) = verify_answer(f'It says "{quote}" [S1].', {"S1": source}).citations
    assert citation.outcome == "verified-fuzzy"
    assert (citation.chunk_start, citation.chunk_end) == (start, end)


def test_anchors_are_unique_in_both_and_chained_in_order() -> None:
    quote = "alpha beta gamma delta epsilon zeta eta theta"
    text = "xx alpha beta gamma delta epsilon zeta eta theta yy"
    anchors = seed_anchors(quote, text)
    assert anchors[0] == (0, 3)
    assert all(quote[q : q + SEED_CHARS] == text[t : t + SEED_CHARS] for q, t in anchors)
    # A stretch twice in the text is no anchor, unless repeats are allowed:
    # then each copy is one, the later first (the chain follows the first).
    assert seed_anchors("abcdefghijklm", "abcdefghijklm abcdefghijklm") == []
    assert seed_anchors("abcdefghijkl", "abcdefghijkl abcdefghijkl", max_repeats=2) == [
        (0, 13), (0, 0)]
    # Out-of-order and far-off anchors drop out of the chain.
    chain = seed_chain([(0, 100), (20, 120), (40, 10), (60, 160), (80, 90_000)])
    assert chain == [(0, 100), (20, 120), (60, 160)]


def test_seeded_work_is_linear_and_the_budget_refuses_window_search() -> None:
    rng = random.Random(11)
    source = prose(rng, 50_000)
    start = source.index(" ", 10_000) + 1
    quote = edited(rng, source[start : source.rindex(" ", start, start + 10_000)], "letter")
    answer = f'It says "{quote}" [S1].'
    # Linear work fits a budget four times smaller than quote x source.
    budget = 100_000_000
    assert alignment_work(len(quote), len(source), seeded=True) * 2 < budget
    assert alignment_work(len(quote), len(source), seeded=False) > 4 * budget
    (citation,) = verify_answer(answer, {"S1": source},
                                config=VerificationConfig(max_work=budget)).citations
    assert citation.outcome == "verified-fuzzy"
    with pytest.raises(WorkBudgetExceeded) as raised:
        verify_answer(answer, {"S1": source},
                      config=VerificationConfig(max_work=budget, seed_min_chars=None))
    assert raised.value.limit == budget
    assert raised.value.work > budget
    assert f"{budget:,}" in str(raised.value)
    with pytest.raises(dataclasses.FrozenInstanceError):
        raised.value.estimate.work = 0  # type: ignore[misc]


def test_meter_refuses_before_counting() -> None:
    meter = WorkMeter(100)
    meter.charge(60)
    with pytest.raises(WorkBudgetExceeded) as raised:
        meter.charge(50)
    assert (raised.value.work, raised.value.limit, meter.spent) == (110, 100, 60)
    unlimited = WorkMeter(None)
    unlimited.charge(10**15)
    assert unlimited.spent == 10**15


def test_quotes_found_by_str_find_cost_no_budget() -> None:
    source = "Employer match vests after two years of service."
    report = verify_answer('It says "Employer match vests after two years" [S1].',
                           {"S1": source}, config=VerificationConfig(max_work=1))
    assert report.citations[0].outcome == "verified"


@pytest.mark.parametrize("field", ["max_work", "seed_min_chars"])
def test_config_refuses_a_limit_below_one(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        VerificationConfig(**{field: 0})


def test_the_work_bound_is_every_quote_against_every_source_character() -> None:
    from verification.budget import answer_work_bound

    short, long = "a" * 100, "b" * 600
    answer = f'It says "{short}" [S1] and "{long}" [S2]. No quote here [S1].'
    assert answer_work_bound(answer, 10_000) == (
        alignment_work(100, 10_000, seeded=False) + alignment_work(600, 10_000, seeded=True))
    assert answer_work_bound(answer, 10_000, seed_min_chars=None) == 700 * 10_000
    assert answer_work_bound("No quotes [S1].", 10_000) == 0
