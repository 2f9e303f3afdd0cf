"""Threshold calibration: the curve, the Wilson-bounded recommendation and its
bootstrap interval, Cohen's kappa and the stratified labelling sample."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.calibration import (
    DEFAULT_BANDS,
    LABELS,
    THRESHOLD_GRID,
    LabelledMatch,
    _faithful_needed,
    bootstrap_threshold_interval,
    cohen_kappa,
    default_thresholds,
    recommend_threshold,
    stratified_sample,
    threshold_curve,
    wilson_interval,
)


def labels(*rows: tuple[float, str, int]) -> list[LabelledMatch]:
    """``(score, label, how many)`` rows as labelled matches."""
    return [LabelledMatch(score, label) for score, label, count in rows  # type: ignore[arg-type]
            for _ in range(count)]


# Seven labels, four of them faithful (F), the rest changed (C) or other (O).
SMALL = labels(
    (1.00, "faithful", 1), (0.97, "faithful", 1), (0.95, "changed", 1), (0.93, "faithful", 1),
    (0.90, "other", 1), (0.865, "faithful", 1), (0.80, "other", 1),
)


# The curve ------------------------------------------------------------------------


def test_curve_counts_and_rates_on_a_hand_computed_fixture() -> None:
    curve = {p.threshold: p for p in threshold_curve(SMALL, [0.80, 0.93, 0.96, 1.00])}
    # 0.80 accepts all seven: tp 4 (F), fp 3 (C, O, O); nothing flagged.
    p = curve[0.80]
    assert (p.tp, p.fp, p.fn, p.tn, p.accepted) == (4, 3, 0, 0, 7)
    assert (p.precision, p.recall, p.false_alarm_rate) == (4 / 7, 1.0, 0.0)
    # 0.93 accepts 1.00 F, 0.97 F, 0.95 C, 0.93 F (a score equal to the threshold is
    # accepted): tp 3, fp 1; flags 0.90 O, 0.865 F, 0.80 O: fn 1, tn 2.
    p = curve[0.93]
    assert (p.tp, p.fp, p.fn, p.tn, p.accepted) == (3, 1, 1, 2, 4)
    assert (p.precision, p.recall, p.false_alarm_rate) == (0.75, 0.75, 0.25)
    # 0.96 accepts 1.00 F and 0.97 F: precision 2/2, recall 2/4, half the faithful flagged.
    p = curve[0.96]
    assert (p.tp, p.fp, p.fn, p.tn) == (2, 0, 2, 3)
    assert (p.precision, p.recall, p.false_alarm_rate) == (1.0, 0.5, 0.5)
    # 1.00 accepts only the exact match.
    p = curve[1.00]
    assert (p.tp, p.fp, p.fn, p.tn) == (1, 0, 3, 3)
    assert (p.precision, p.recall, p.false_alarm_rate) == (1.0, 0.25, 0.75)


def test_rates_are_none_when_undefined() -> None:
    nothing_accepted = threshold_curve(labels((0.90, "faithful", 2)), [0.95])[0]
    assert nothing_accepted.precision is None
    assert (nothing_accepted.recall, nothing_accepted.false_alarm_rate) == (0.0, 1.0)
    no_faithful = threshold_curve(labels((0.90, "other", 2)), [0.50])[0]
    assert (no_faithful.precision, no_faithful.recall, no_faithful.false_alarm_rate) == (
        0.0, None, None)
    empty = threshold_curve([], [0.9])[0]
    assert (empty.labelled, empty.precision, empty.recall) == (0, None, None)


def test_default_thresholds_are_the_grid_plus_every_labelled_score() -> None:
    assert THRESHOLD_GRID[0] == 0.50 and THRESHOLD_GRID[-1] == 1.00 and len(THRESHOLD_GRID) == 51
    assert 0.85 in THRESHOLD_GRID  # the literal, not 0.8500000000000001
    thresholds = default_thresholds(SMALL)
    # Every SMALL score but 0.865 is on the grid already.
    assert thresholds == tuple(sorted((*THRESHOLD_GRID, 0.865)))
    curve = threshold_curve(SMALL)
    assert [p.threshold for p in curve] == list(thresholds)
    assert next(p for p in curve if p.threshold == 0.865).tp == 4


def test_bad_input_is_refused_with_a_reason() -> None:
    with pytest.raises(ValueError, match="score must be in"):
        LabelledMatch(1.2, "faithful")
    with pytest.raises(ValueError, match="score must be in"):
        LabelledMatch(float("nan"), "faithful")
    with pytest.raises(ValueError, match="label must be one of"):
        LabelledMatch(0.9, "same")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="thresholds must be in"):
        threshold_curve(SMALL, [1.5])


matches_strategy = st.lists(st.builds(
    LabelledMatch,
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    st.sampled_from(LABELS),
), max_size=60)


@given(matches_strategy, st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=20))
@settings(max_examples=200, deadline=None)
def test_curve_counts_sum_to_the_labels_and_rates_stay_in_range(
    matches: list[LabelledMatch], extra: list[float]
) -> None:
    curve = threshold_curve(matches, [*default_thresholds(matches), *extra])
    faithful = sum(m.label == "faithful" for m in matches)
    previous_accepted = len(matches) + 1
    for point in curve:
        assert point.tp + point.fp + point.fn + point.tn == len(matches)
        assert point.tp + point.fn == faithful
        assert point.accepted == sum(m.score >= point.threshold for m in matches)
        assert point.accepted <= previous_accepted  # a stricter threshold accepts no more
        previous_accepted = point.accepted
        for rate in (point.precision, point.recall, point.false_alarm_rate):
            assert rate is None or 0.0 <= rate <= 1.0
        if point.recall is not None:
            assert point.false_alarm_rate == pytest.approx(1 - point.recall)


# Wilson ---------------------------------------------------------------------------


@pytest.mark.parametrize(("successes", "trials", "expected"), [
    # 95 % Wilson intervals: 81/263 is Newcombe's (Stat. Med. 1998) worked example;
    # at 0/n and n/n the bounds are z²/(n + z²) and n/(n + z²).
    (8, 10, (0.4902, 0.9433)),
    (0, 10, (0.0, 0.2775)),
    (10, 10, (0.7225, 1.0)),
    (81, 263, (0.2553, 0.3662)),
])
def test_wilson_interval_matches_published_values(
    successes: int, trials: int, expected: tuple[float, float]
) -> None:
    low, high = wilson_interval(successes, trials)
    assert (low, high) == pytest.approx(expected, abs=1e-4)


def test_wilson_interval_widens_with_confidence_and_refuses_nonsense() -> None:
    low95, high95 = wilson_interval(8, 10)
    low99, high99 = wilson_interval(8, 10, confidence=0.99)
    assert low99 < low95 and high99 > high95
    with pytest.raises(ValueError, match="trials must be positive"):
        wilson_interval(0, 0)
    with pytest.raises(ValueError, match="successes must be between"):
        wilson_interval(11, 10)
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, confidence=1.0)


@given(st.integers(min_value=1, max_value=10_000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))))
def test_wilson_interval_holds_the_proportion(case: tuple[int, int]) -> None:
    successes, trials = case
    low, high = wilson_interval(successes, trials)
    assert 0.0 <= low <= successes / trials <= high <= 1.0


# The recommendation ---------------------------------------------------------------

# 220 labels: 120 faithful at 0.92 and above; at 0.87 20 faithful and 20 changed;
# at 0.82 5 faithful among 35 other; 20 clear misses at 0.60. Every band holds 40.
DENSE = labels(
    (0.99, "faithful", 40), (0.96, "faithful", 40), (0.92, "faithful", 40),
    (0.87, "faithful", 20), (0.87, "changed", 20),
    (0.82, "faithful", 5), (0.82, "other", 35),
    (0.60, "other", 20),
)


def test_recommends_the_lowest_threshold_whose_lower_bound_meets_the_target() -> None:
    result = recommend_threshold(DENSE, 0.85, bootstrap_rounds=200)
    # At 0.87 precision is 140/160 = 87.5 %, above 85 %, but its Wilson lower bound
    # is 81.5 %: met by the point estimate only. 0.88 is the lowest threshold above
    # 0.87 (a grid point) and accepts the 120 faithful at 0.92+: lower bound
    # 120 / (120 + 1.96²) = 96.9 %.
    assert wilson_interval(140, 160)[0] == pytest.approx(0.8148, abs=1e-4)
    assert result.reason is None
    assert result.threshold == 0.88
    assert result.precision == 1.0
    assert result.precision_interval == pytest.approx((0.9690, 1.0), abs=1e-4)
    assert result.recall == pytest.approx(120 / 145)
    assert result.false_alarm_rate == pytest.approx(25 / 145)
    assert (result.accepted, result.labelled) == (120, 220)
    assert result.threshold_interval is not None


def test_a_lower_target_moves_the_threshold_down() -> None:
    # At 0.82 precision is 145/200 = 72.5 % (lower bound 66 %): enough for 60 %.
    # The lowest threshold accepting that set is 0.61, just above the misses at 0.60;
    # 0.60 and below would let in the 20 misses: 145/220 = 65.9 %, lower bound 59.4 %.
    result = recommend_threshold(DENSE, 0.60, bootstrap_rounds=50)
    assert result.threshold == 0.61
    assert result.accepted == 200


def test_a_thin_band_near_the_threshold_withholds_the_recommendation() -> None:
    # Only 3 labels at 0.87; the threshold would be 0.83 (120 + 3 accepted, 122 faithful).
    sparse = [m for m in DENSE if m.score != 0.87] + labels(
        (0.87, "faithful", 2), (0.87, "changed", 1))
    result = recommend_threshold(sparse, 0.90)
    assert result.threshold is None
    assert result.reason == "Not enough labels: 3 in 0.85–0.90 (10 needed)."
    assert (result.precision, result.threshold_interval, result.labelled) == (
        None, None, len(sparse))


def test_a_thin_band_far_from_the_threshold_does_not_withhold_it() -> None:
    # 3 labels in 0.98–1.00, two bands above the 0.85–0.90 band the threshold sits in.
    top_thin = [m for m in DENSE if m.score != 0.99] + labels((0.99, "faithful", 3))
    result = recommend_threshold(top_thin, 0.90, bootstrap_rounds=50)
    assert result.threshold == 0.88
    assert result.reason is None


def test_several_thin_bands_are_all_named() -> None:
    few = labels((0.87, "faithful", 3), (0.92, "faithful", 1))
    result = recommend_threshold(few, 0.90, min_labels_per_band=5)
    assert result.reason == (
        "Not enough labels: 0 in 0.80–0.85, 3 in 0.85–0.90, 1 in 0.90–0.95, 0 in 0.95–0.98, "
        "0 in 0.98–1.00 (5 needed in each).")


def test_a_target_out_of_reach_says_so_with_the_best_precision() -> None:
    result = recommend_threshold(DENSE, 0.99)
    assert result.threshold is None
    assert result.reason == (
        "No threshold reaches 99% precision with 95% confidence: the best, 0.88, "
        "has precision 100% (lower bound 96.9%) on 120 accepted labels.")


def test_no_labels_no_recommendation() -> None:
    assert recommend_threshold([], 0.9).reason == "No labels yet."


def test_bootstrap_interval_holds_the_threshold_and_is_deterministic() -> None:
    first = bootstrap_threshold_interval(DENSE, 0.85, rounds=300, seed=7)
    again = bootstrap_threshold_interval(DENSE, 0.85, rounds=300, seed=7)
    assert first == again
    assert first.low is not None and first.high is not None
    assert first.low <= 0.88 <= first.high
    assert first.unmet == 0 and first.rounds == 300
    # The recommendation carries the same interval for the same seed and rounds.
    result = recommend_threshold(DENSE, 0.85, bootstrap_rounds=300, seed=7)
    assert result.threshold_interval == first


@pytest.mark.parametrize("target", [0.5, 0.9, 0.95, 0.999])
def test_the_bootstraps_faithful_count_table_agrees_with_the_wilson_bound(target: float) -> None:
    need = _faithful_needed(200, target, 1.959963984540054)
    for accepted in range(1, 201):
        meets = [f for f in range(accepted + 1) if wilson_interval(f, accepted)[0] >= target]
        assert need[accepted] == (meets[0] if meets else accepted + 1)


def test_bootstrap_interval_is_open_above_when_the_target_is_often_out_of_reach() -> None:
    # A 90 % lower bound at 100 % precision needs 35 accepted labels. 36 faithful
    # labels just make it; a re-draw of the 46 brings 36 ± 3 of them, often too few.
    borderline = labels((0.95, "faithful", 36), (0.70, "other", 10))
    interval = bootstrap_threshold_interval(borderline, 0.90, rounds=200, seed=1)
    assert interval.unmet > 5
    assert interval.high is None
    assert bootstrap_threshold_interval([], 0.9, rounds=10).unmet == 10


# Agreement ------------------------------------------------------------------------


def test_kappa_on_a_two_label_example() -> None:
    # 50 items: both faithful 20, first faithful / second other 5, first other / second
    # faithful 10, both other 15. p_o = 35/50 = 0.7; first says faithful 25/50, second
    # 30/50, so p_e = 0.5·0.6 + 0.5·0.4 = 0.5; κ = (0.7 − 0.5) / (1 − 0.5) = 0.4.
    pairs = ([("faithful", "faithful")] * 20 + [("faithful", "other")] * 5
             + [("other", "faithful")] * 10 + [("other", "other")] * 15)
    agreement = cohen_kappa(pairs)
    assert agreement.kappa == pytest.approx(0.4)
    assert (agreement.observed, agreement.expected, agreement.n) == (
        pytest.approx(0.7), pytest.approx(0.5), 50)
    assert agreement.disagreements == tuple(range(20, 35))


def test_kappa_on_a_three_label_example() -> None:
    # 10 items, 8 alike: p_o = 0.8. First: faithful 5, changed 3, other 2; second:
    # faithful 4, changed 3, other 3. p_e = (5·4 + 3·3 + 2·3) / 100 = 0.35;
    # κ = (0.8 − 0.35) / 0.65 = 0.6923.
    pairs = [("faithful", "faithful")] * 4 + [("faithful", "changed")] + [
        ("changed", "changed")] * 2 + [("changed", "other")] + [("other", "other")] * 2
    agreement = cohen_kappa(pairs)
    assert agreement.kappa == pytest.approx(0.45 / 0.65)
    assert agreement.expected == pytest.approx(0.35)
    assert agreement.disagreements == (4, 7)


def test_kappa_edge_cases() -> None:
    perfect = cohen_kappa([("faithful", "faithful"), ("changed", "changed"), ("other", "other")])
    assert (perfect.kappa, perfect.observed, perfect.disagreements) == (1.0, 1.0, ())
    # Both always say faithful: chance alone predicts full agreement, κ is 0/0.
    one_class = cohen_kappa([("faithful", "faithful")] * 5)
    assert (one_class.kappa, one_class.observed, one_class.expected) == (None, 1.0, 1.0)
    # One labeller never varies: any agreement is what chance gives, κ = 0.
    constant = cohen_kappa([("faithful", "faithful"), ("faithful", "other")])
    assert constant.kappa == 0.0
    empty = cohen_kappa([])
    assert (empty.kappa, empty.observed, empty.n) == (None, None, 0)
    with pytest.raises(ValueError, match="labels must be one of"):
        cohen_kappa([("faithful", "same")])


# The labelling sample -------------------------------------------------------------


def candidates_with(per_band: tuple[int, ...], exact: int, misses: int) -> list[tuple[int, float]]:
    """Candidates with ``per_band[i]`` scores inside DEFAULT_BANDS[i], ``exact``
    exact matches and ``misses`` clear misses, ids counting from 1."""
    scores: list[float] = []
    for (low, high), count in zip(DEFAULT_BANDS, per_band, strict=True):
        scores += [low + (high - low) * (k + 0.5) / count for k in range(count)]
    scores += [1.0] * exact + [0.3 + 0.01 * k for k in range(misses)]
    return list(enumerate(scores, start=1))


def strata(sample: tuple[object, ...]) -> Counter[str]:
    return Counter(item.stratum for item in sample)  # type: ignore[attr-defined]


def test_bands_fill_round_robin_and_an_empty_band_is_skipped() -> None:
    candidates = candidates_with((5, 1, 3, 0, 2), exact=4, misses=4)
    # 10 with 20 % controls: 2 controls (one exact, one miss) and 8 from the bands:
    # round 1 takes one from each non-empty band (4), round 2 from those with some
    # left (0.80, 0.90, 0.98: 7), round 3 the 0.80 band again (8).
    sample = stratified_sample(candidates, size=10, seed=3)
    assert strata(sample) == {"0.80–0.85": 3, "0.85–0.90": 1, "0.90–0.95": 2,
                              "0.98–1.00": 2, "control": 2}
    assert sorted(item.score == 1.0 for item in sample if item.control) == [False, True]
    # 5 with one control: one from each non-empty band before any gives a second.
    small = stratified_sample(candidates, size=5, seed=3)
    assert strata(small) == {"0.80–0.85": 1, "0.85–0.90": 1, "0.90–0.95": 1,
                             "0.98–1.00": 1, "control": 1}


def test_controls_are_mixed_in_at_the_ratio_and_shuffled_among_the_rest() -> None:
    candidates = candidates_with((40, 40, 40, 40, 40), exact=30, misses=30)
    sample = stratified_sample(candidates, size=50, controls=0.2, seed=0)
    assert strata(sample)["control"] == 10
    assert sum(item.score == 1.0 for item in sample) == 5  # exact and misses alternate
    assert stratified_sample(candidates, size=50, controls=0.0, seed=0)[0].control is False
    assert strata(stratified_sample(candidates, size=20, controls=1.0, seed=0)) == {
        "control": 20}
    # Shuffled: where the controls land changes with the seed, not always first or last.
    first_control = {
        next(i for i, item in enumerate(stratified_sample(candidates, size=50, seed=seed))
             if item.control) for seed in range(20)}
    assert len(first_control) > 3


def test_running_out_of_controls_or_bands() -> None:
    # One control available of the 5 wanted: the bands make up the rest.
    few_controls = stratified_sample(candidates_with((10, 10, 10, 10, 10), 0, 1),
                                     size=10, controls=0.5, seed=0)
    assert len(few_controls) == 10 and strata(few_controls)["control"] == 1
    # 11 band items and 8 controls for 100 wanted: 20 controls wanted, 8 exist; the
    # controls never replace band items the other way round, so 19 come back.
    few_bands = stratified_sample(candidates_with((5, 1, 3, 0, 2), 4, 4), size=100, seed=0)
    assert len(few_bands) == 19


def test_scores_between_or_above_the_bands_are_not_drawn() -> None:
    bands = ((0.80, 0.85), (0.90, 0.95))
    candidates = [(1, 0.87), (2, 0.97), (3, 0.82), (4, 0.92), (5, 1.0), (6, 0.5)]
    sample = stratified_sample(candidates, bands=bands, size=10, seed=0)
    assert sorted(item.id for item in sample) == [3, 4, 5, 6]


def test_sampling_is_deterministic_per_seed_and_never_repeats() -> None:
    candidates = candidates_with((20, 20, 20, 20, 20), exact=10, misses=10)
    first = stratified_sample(candidates, size=40, seed=42)
    assert first == stratified_sample(candidates, size=40, seed=42)
    assert first == stratified_sample(list(reversed(candidates)), size=40, seed=42)
    assert first != stratified_sample(candidates, size=40, seed=43)
    # A repeated id is drawn once, with its first score.
    doubled = stratified_sample([(1, 0.9), (1, 0.82), (2, 0.83)], size=5, seed=0)
    assert sorted((item.id, item.score) for item in doubled) == [(1, 0.9), (2, 0.83)]


@given(
    st.lists(st.tuples(st.integers(min_value=0, max_value=300),
                       st.one_of(st.floats(min_value=0.0, max_value=1.0), st.just(1.0))),
             max_size=120),
    st.integers(min_value=0, max_value=80),
    st.sampled_from([0.0, 0.1, 0.2, 0.5]),
    st.integers(min_value=0, max_value=3),
)
@settings(max_examples=200, deadline=None)
def test_sampling_properties(
    candidates: list[tuple[int, float]], size: int, controls: float, seed: int
) -> None:
    sample = stratified_sample(candidates, size=size, controls=controls, seed=seed)
    ids = [item.id for item in sample]
    assert len(ids) == len(set(ids)) <= size
    assert set(ids) <= {i for i, _ in candidates}
    drawn = strata(sample)
    available = Counter(item.stratum for item in stratified_sample(
        candidates, size=len(candidates), controls=0.0, seed=seed))
    band_counts = [drawn[label] for label in available]
    # Round-robin: a band with candidates left has at most one fewer than any other.
    for label in available:
        if drawn[label] < available[label]:
            assert drawn[label] >= max(band_counts) - 1
    assert drawn["control"] <= round(size * controls)


def test_bands_around_a_threshold_reach_below_it_and_end_at_one():
    from verification.calibration import bands_around

    assert bands_around(0.92) == ((0.75, 0.8), (0.8, 0.85), (0.85, 0.9), (0.9, 0.95),
                                  (0.95, 0.98), (0.98, 1.0))
    assert bands_around(0.95) == DEFAULT_BANDS
    assert bands_around(1.0) == DEFAULT_BANDS
    # Never under 0.5, and contiguous whatever the threshold.
    low_bands = bands_around(0.3)
    assert low_bands[0] == (0.5, 0.55)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(low_bands))
    with pytest.raises(ValueError):
        bands_around(0.0)
