"""bench/scale.py's layout of the answers it re-verifies: one side's surfaces
and the other's must hold the same answers, or the two runs it compares do
different work."""

from __future__ import annotations

from collections import Counter

import pytest

from bench.scale import reverify_layout

ONE, TWO = ["a0", "a1", "a2", "a3"], ["b0", "b1", "b2", "b3"]


@pytest.mark.parametrize(("answers", "distinct"), [(1000, 200), (10_000, 1000), (12, 12)])
def test_both_sides_hold_the_same_answers(answers: int, distinct: int) -> None:
    layout = reverify_layout(answers, distinct, ONE, TWO)
    one = Counter((body, ONE.index(s)) for body, s in layout if s in ONE)
    two = Counter((body, TWO.index(s)) for body, s in layout if s in TWO)
    assert sum(one.values()) == sum(two.values()) == answers
    assert one == two
    assert set(one) == {(body, body % 4) for body in range(distinct)}


def test_a_copy_repeats_its_originals_body_and_surface() -> None:
    # store() copies answer n (past the first 2 x distinct) from n % (2 x distinct).
    layout = reverify_layout(1000, 200, ONE, TWO)
    assert all(layout[n] == layout[n % 400] for n in range(400, 2000))
    assert len(set(layout[:400])) == 400  # each through answer_submit once


def test_answers_not_a_multiple_of_the_bodies_are_refused() -> None:
    with pytest.raises(ValueError, match="multiple"):
        reverify_layout(1000, 300, ONE, TWO)
