"""Threshold calibration: what labelled matches say about a surface's threshold.

A surface **accepts** a quote as verified when its similarity score is at or
above the threshold (``score >= threshold``). People label stored matches:
``faithful`` (the same passage, quoted faithfully), ``changed`` (the same
passage, but the quote changes its meaning) or ``other`` (not this passage).
Only a faithful quote should be accepted; ``changed`` and ``other`` should be
flagged. At a threshold, every label falls in one cell:

* true positive ``tp``: faithful and accepted;
* false positive ``fp``: changed or other, yet accepted — a bad quote let through;
* false negative ``fn``: faithful, yet flagged — a false alarm;
* true negative ``tn``: changed or other, and flagged.

**Precision** = tp / (tp + fp): of the quotes accepted, the share that were
faithful (undefined when nothing is accepted). **Recall** = tp / (tp + fn): of
the faithful quotes, the share accepted (undefined with no faithful label).
**False-alarm rate** = fn / (tp + fn) = 1 − recall: of the faithful quotes, the
share flagged — the warnings that teach reviewers to ignore the badges.

**Why the Wilson lower bound.** A precision measured on a handful of labels is
luck as much as evidence: 9 faithful of 9 accepted is 100 %, but the true
precision could well be 75 %. The Wilson score interval is the range of true
precisions that the labels are consistent with (at 95 % confidence); unlike
the textbook p ± z·√(p(1−p)/n) it stays inside [0, 1] and behaves at 0 % and
100 %. A threshold is recommended only when the *lower* end of that interval
reaches the target, so a target met by luck on few labels is not met: at
100 % measured precision the lower bound reaches 90 % from 35 accepted labels
and 95 % from 73.

**What the bootstrap interval is.** The recommended threshold is itself an
estimate: other labels drawn from the same matches would have put it
elsewhere. The bootstrap re-draws the labelled set with replacement (as many
labels as there are, some twice, some not at all) ``rounds`` times with a
seeded generator, recomputes the recommended threshold on each re-draw, and
reports the 2.5th and 97.5th percentiles (nearest rank) of those thresholds:
the range where 95 % of the re-computed thresholds fell. A wide range says the
labels do not pin the threshold down yet.

**Score bands** are half-open: a band ``(low, high)`` holds scores with
``low <= score < high``, so a score of exactly 1.0 (an exact match) is in no
band. Bands serve two purposes: the labelling sample is stratified by them,
and a recommendation is withheld while a band near it has too few labels.

Framework-free like the rest of :mod:`verification`; no numpy: the sums are
small and ``random.Random(seed)`` makes every draw reproducible.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from statistics import NormalDist
from typing import Final, Literal

__all__ = [
    "DEFAULT_BANDS",
    "LABELS",
    "THRESHOLD_GRID",
    "Agreement",
    "Band",
    "BootstrapInterval",
    "CurvePoint",
    "Label",
    "LabelledMatch",
    "Recommendation",
    "SampleItem",
    "band_label",
    "bands_around",
    "bootstrap_threshold_interval",
    "cohen_kappa",
    "default_thresholds",
    "recommend_threshold",
    "stratified_sample",
    "threshold_curve",
    "wilson_interval",
]

Label = Literal["faithful", "changed", "other"]
#: The three labels a person can give a match; only ``faithful`` should be accepted.
LABELS: Final[tuple[Label, ...]] = ("faithful", "changed", "other")

Band = tuple[float, float]
#: Score bands ``(low, high)``, each holding ``low <= score < high``.
DEFAULT_BANDS: Final[tuple[Band, ...]] = (
    (0.80, 0.85), (0.85, 0.90), (0.90, 0.95), (0.95, 0.98), (0.98, 1.00),
)

#: The fixed thresholds every curve includes: 0.50, 0.51, … 1.00 (rounded so
#: that 0.85 is the float literal 0.85, equal to a stored score of 0.85).
THRESHOLD_GRID: Final[tuple[float, ...]] = tuple(round(k / 100, 2) for k in range(50, 101))

_CONFIDENCE: Final = 0.95


@dataclass(frozen=True, slots=True)
class LabelledMatch:
    """One stored match's similarity score and a person's label for it."""

    score: float
    label: Label

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:  # also rejects NaN
            raise ValueError(f"score must be in [0, 1], got {self.score!r}")
        if self.label not in LABELS:
            raise ValueError(f"label must be one of {', '.join(LABELS)}; got {self.label!r}")

    @property
    def faithful(self) -> bool:
        return self.label == "faithful"


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """The labels' confusion counts when accepting ``score >= threshold``."""

    threshold: float
    tp: int
    fp: int
    fn: int
    tn: int
    #: tp / accepted; None when nothing is accepted.
    precision: float | None
    #: tp / faithful; None with no faithful label.
    recall: float | None
    #: fn / faithful (faithful quotes flagged); None with no faithful label.
    false_alarm_rate: float | None

    @property
    def accepted(self) -> int:
        return self.tp + self.fp

    @property
    def labelled(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


@dataclass(frozen=True, slots=True)
class BootstrapInterval:
    """Where the recommended threshold fell on ``rounds`` re-drawn label sets.

    ``low``/``high`` are the 2.5th and 97.5th percentiles (nearest rank) of
    the re-computed thresholds, a re-draw on which no threshold met the target
    counting as above every threshold. So ``high`` is None when more than
    2.5 % of re-draws met the target nowhere (the labels cannot rule out that
    it is out of reach), and ``low`` is None when more than 97.5 % did.
    """

    low: float | None
    high: float | None
    rounds: int
    #: Re-draws on which no threshold met the target.
    unmet: int


@dataclass(frozen=True, slots=True)
class Recommendation:
    """The lowest threshold whose precision meets the target with confidence.

    When none is recommended, ``threshold`` and the figures at it are None
    and ``reason`` says why in a sentence; when one is, ``reason`` is None.
    """

    target_precision: float
    threshold: float | None
    precision: float | None
    #: Wilson interval of the precision at the threshold (95 % unless asked otherwise).
    precision_interval: tuple[float, float] | None
    recall: float | None
    false_alarm_rate: float | None
    #: Labels accepted at the threshold: the ones the precision stands on.
    accepted: int
    #: All labels considered.
    labelled: int
    threshold_interval: BootstrapInterval | None
    reason: str | None


@dataclass(frozen=True, slots=True)
class Agreement:
    """How far two labellers agree on the same items, beyond chance."""

    #: Cohen's κ; None when undefined (chance alone predicts full agreement).
    kappa: float | None
    #: Share of items given the same label; None with no items.
    observed: float | None
    #: Share the labellers would agree on by chance; None with no items.
    expected: float | None
    n: int
    #: Positions (0-based, in the order given) of the pairs that disagree.
    disagreements: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SampleItem:
    """One candidate drawn for labelling. ``stratum`` is its band's label
    (``"0.85–0.90"``) or ``"control"``; a labelling page must not show it."""

    id: int
    score: float
    stratum: str

    @property
    def control(self) -> bool:
        return self.stratum == "control"


# The curve -------------------------------------------------------------------


def default_thresholds(matches: Iterable[LabelledMatch]) -> tuple[float, ...]:
    """Every distinct labelled score plus :data:`THRESHOLD_GRID`, ascending.

    Precision and recall change only at a labelled score, so those are the
    points where the curve moves; the grid gives round numbers to read off and
    keeps a curve drawable from few labels."""
    return tuple(sorted({*THRESHOLD_GRID, *(m.score for m in matches)}))


class _Sorted:
    """Labels sorted by score, with the faithful count from each position up:
    the labels accepted at a threshold are a suffix of this order."""

    __slots__ = ("faithful", "faithful_from", "scores")

    def __init__(self, matches: Sequence[LabelledMatch]) -> None:
        ordered = sorted(matches, key=lambda m: m.score)
        self.scores = [m.score for m in ordered]
        self.faithful_from = [0] * (len(ordered) + 1)
        for i in range(len(ordered) - 1, -1, -1):
            self.faithful_from[i] = self.faithful_from[i + 1] + ordered[i].faithful
        self.faithful = self.faithful_from[0]

    def cut(self, threshold: float) -> int:
        """Position of the first accepted label."""
        return bisect_left(self.scores, threshold)

    def point(self, threshold: float) -> CurvePoint:
        cut = self.cut(threshold)
        accepted = len(self.scores) - cut
        tp = self.faithful_from[cut]
        fp = accepted - tp
        fn = self.faithful - tp
        tn = len(self.scores) - accepted - fn
        return CurvePoint(
            threshold=threshold, tp=tp, fp=fp, fn=fn, tn=tn,
            precision=tp / accepted if accepted else None,
            recall=tp / self.faithful if self.faithful else None,
            false_alarm_rate=fn / self.faithful if self.faithful else None,
        )


def _checked_thresholds(thresholds: Iterable[float]) -> tuple[float, ...]:
    checked = tuple(sorted(set(thresholds)))
    for threshold in checked:
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"thresholds must be in [0, 1], got {threshold!r}")
    return checked


def threshold_curve(
    matches: Iterable[LabelledMatch], thresholds: Iterable[float] | None = None
) -> tuple[CurvePoint, ...]:
    """One :class:`CurvePoint` per threshold, ascending (duplicates dropped).

    ``thresholds`` defaults to :func:`default_thresholds`: every distinct
    labelled score plus 0.50, 0.51, … 1.00."""
    labelled = tuple(matches)
    if thresholds is None:
        thresholds = default_thresholds(labelled)
    table = _Sorted(labelled)
    return tuple(table.point(t) for t in _checked_thresholds(thresholds))


# Intervals -------------------------------------------------------------------


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence!r}")
    return NormalDist().inv_cdf(1 - (1 - confidence) / 2)


def _wilson(successes: int, trials: int, z: float) -> tuple[float, float]:
    p = successes / trials
    z2 = z * z
    denominator = 1 + z2 / trials
    centre = (p + z2 / (2 * trials)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    # At 0 % and 100 % the bounds are exactly 0 and 1; rounding would leave 1e-18.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def wilson_interval(
    successes: int, trials: int, confidence: float = _CONFIDENCE
) -> tuple[float, float]:
    """Wilson score interval ``(low, high)`` for a proportion
    ``successes / trials``: with z the normal quantile for ``confidence``
    (1.96 at 95 %) and p = successes / trials,
    ``(p + z²/2n ± z·√(p(1−p)/n + z²/4n²)) / (1 + z²/n)``.

    8 of 10 at 95 % gives (0.4902, 0.9433)."""
    if trials <= 0:
        raise ValueError(f"trials must be positive, got {trials!r}: no trials, no estimate")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be between 0 and trials ({trials}), got {successes!r}")
    return _wilson(successes, trials, _z(confidence))


def _faithful_needed(most: int, target: float, z: float) -> list[int]:
    """For each accepted count up to ``most``, the fewest faithful among them for
    the Wilson lower bound to reach ``target`` (one more than the count when no
    number will do): the bound rises with the faithful count, so a binary search
    finds it, and a re-draw's check becomes one comparison."""
    need = [1]  # nothing accepted never meets the target
    for accepted in range(1, most + 1):
        low, high = 0, accepted + 1
        while low < high:
            middle = (low + high) // 2
            if middle <= accepted and _wilson(middle, accepted, z)[0] >= target:
                high = middle
            else:
                low = middle + 1
        need.append(low)
    return need


def _nearest_rank(ordered: Sequence[float], fraction: float) -> float:
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def bootstrap_threshold_interval(
    matches: Iterable[LabelledMatch],
    target_precision: float,
    *,
    thresholds: Iterable[float] | None = None,
    rounds: int = 1000,
    seed: int = 0,
    confidence: float = _CONFIDENCE,
) -> BootstrapInterval:
    """Re-draw the labels with replacement ``rounds`` times
    (``random.Random(seed)``), recompute the recommended threshold on each (the
    lowest of ``thresholds`` whose precision's Wilson lower bound at
    ``confidence`` reaches the target) and return the 2.5th and 97.5th
    percentiles of those thresholds. Deterministic for a seed."""
    _check_target(target_precision)
    if rounds <= 0:
        raise ValueError(f"rounds must be positive, got {rounds!r}")
    labelled = tuple(matches)
    if not labelled:
        return BootstrapInterval(low=None, high=None, rounds=rounds, unmet=rounds)
    candidates = _checked_thresholds(
        default_thresholds(labelled) if thresholds is None else thresholds)
    table = _Sorted(labelled)
    cuts = [table.cut(t) for t in candidates]  # ascending, like the candidates
    # Segment s of a label: the candidates whose cut is at or below it, so the label
    # is accepted at candidate j exactly when j < s. A re-draw is then summed per
    # segment (and faithful or not) with Counter, in C, rather than label by label.
    ordered = sorted(labelled, key=lambda m: m.score)
    keys = [bisect_right(cuts, i) * 2 + m.faithful for i, m in enumerate(ordered)]
    z = _z(confidence)
    n = len(labelled)
    need = _faithful_needed(n, target_precision, z)
    rng = random.Random(seed)
    found: list[float] = []
    for _ in range(rounds):
        accepted_in = [0] * (len(cuts) + 1)
        faithful_in = [0] * (len(cuts) + 1)
        for key, count in Counter(rng.choices(keys, k=n)).items():
            accepted_in[key >> 1] += count
            if key & 1:
                faithful_in[key >> 1] += count
        accepted, faithful = n, sum(faithful_in)
        for j, threshold in enumerate(candidates):  # the lowest that meets the target
            accepted -= accepted_in[j]
            faithful -= faithful_in[j]
            if accepted and faithful >= need[accepted]:
                found.append(threshold)
                break
    found.sort()
    ranked: list[float] = [*found, *([math.inf] * (rounds - len(found)))]
    low, high = _nearest_rank(ranked, 0.025), _nearest_rank(ranked, 0.975)
    return BootstrapInterval(
        low=None if math.isinf(low) else low,
        high=None if math.isinf(high) else high,
        rounds=rounds,
        unmet=rounds - len(found),
    )


# The recommendation ----------------------------------------------------------


def _check_target(target_precision: float) -> None:
    if not 0.0 < target_precision <= 1.0:
        raise ValueError(f"target_precision must be in (0, 1], got {target_precision!r}")


def _checked_bands(bands: Iterable[Band]) -> tuple[Band, ...]:
    checked = tuple((float(low), float(high)) for low, high in bands)
    if not checked:
        raise ValueError("bands must not be empty")
    for low, high in checked:
        if not 0.0 <= low < high <= 1.0:
            raise ValueError(f"a band must have 0 <= low < high <= 1, got ({low!r}, {high!r})")
    for (_, high), (low, _) in pairwise(checked):
        if low < high:
            raise ValueError(f"bands must be ascending and must not overlap: {checked!r}")
    return checked


def bands_around(threshold: float, *, below: float = 0.15) -> tuple[Band, ...]:
    """Score bands for a surface whose threshold is ``threshold``: 0.05 wide
    from ``below`` under the threshold (rounded down to a multiple of 0.05,
    never under 0.5) up to 0.95, then 0.95–0.98 and 0.98–1.00, where faithful
    quotes with light extraction noise crowd. :data:`DEFAULT_BANDS` for any
    threshold from 0.95 up."""
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold!r}")
    low = max(0.5, math.floor(round((min(threshold, 0.95) - below) * 20, 9)) / 20)
    steps = round((0.95 - low) * 20)
    edges = [round(low + k * 0.05, 2) for k in range(steps + 1)]
    return (*pairwise(edges), (0.95, 0.98), (0.98, 1.00))


def band_label(band: Band) -> str:
    """``(0.85, 0.9)`` → ``"0.85–0.90"``."""
    return f"{band[0]:.2f}–{band[1]:.2f}"


def _band_index(score: float, bands: Sequence[Band]) -> int | None:
    for i, (low, high) in enumerate(bands):
        if low <= score < high:
            return i
    return None


def _bands_near(threshold: float, bands: Sequence[Band]) -> range:
    """The band holding ``threshold`` (or the closest one) and the bands either
    side: the labels that decide where on the curve the threshold sits."""
    index = _band_index(threshold, bands)
    if index is None:
        index = min(range(len(bands)), key=lambda i: min(
            abs(threshold - bands[i][0]), abs(threshold - bands[i][1])))
    return range(max(0, index - 1), min(len(bands), index + 2))


def _percent(value: float) -> str:
    return f"{value:.1%}".replace(".0%", "%")


def _number(threshold: float) -> str:
    return f"{threshold:.2f}" if round(threshold, 2) == threshold else f"{threshold:.4g}"


def recommend_threshold(
    matches: Iterable[LabelledMatch],
    target_precision: float,
    *,
    bands: Iterable[Band] = DEFAULT_BANDS,
    min_labels_per_band: int = 10,
    thresholds: Iterable[float] | None = None,
    confidence: float = _CONFIDENCE,
    bootstrap_rounds: int = 1000,
    seed: int = 0,
) -> Recommendation:
    """The lowest threshold whose precision's Wilson lower bound (at
    ``confidence``) reaches ``target_precision``, among ``thresholds``
    (default: :func:`default_thresholds`, so it is a point of the curve).

    Withheld, with a ``reason``, when a band near that threshold (its own and
    the ones either side) holds fewer than ``min_labels_per_band`` labels;
    when no threshold reaches the target, the reason names the best one (the
    highest lower bound) unless some band is too thin to tell."""
    _check_target(target_precision)
    checked_bands = _checked_bands(bands)
    labelled = tuple(matches)
    candidates = _checked_thresholds(
        default_thresholds(labelled) if thresholds is None else thresholds)
    z = _z(confidence)

    def withheld(reason: str) -> Recommendation:
        return Recommendation(
            target_precision=target_precision, threshold=None, precision=None,
            precision_interval=None, recall=None, false_alarm_rate=None, accepted=0,
            labelled=len(labelled), threshold_interval=None, reason=reason,
        )

    if not labelled:
        return withheld("No labels yet.")
    table = _Sorted(labelled)
    points = [table.point(t) for t in candidates]
    chosen = next((p for p in points if p.accepted
                   and _wilson(p.tp, p.accepted, z)[0] >= target_precision), None)

    in_band = [0] * len(checked_bands)
    for match in labelled:
        index = _band_index(match.score, checked_bands)
        if index is not None:
            in_band[index] += 1
    near = range(len(checked_bands)) if chosen is None else _bands_near(
        chosen.threshold, checked_bands)
    thin = [i for i in near if in_band[i] < min_labels_per_band]
    if thin:
        counts = ", ".join(f"{in_band[i]} in {band_label(checked_bands[i])}" for i in thin)
        each = " in each" if len(thin) > 1 else ""
        return withheld(f"Not enough labels: {counts} ({min_labels_per_band} needed{each}).")

    if chosen is None:
        goal = f"No threshold reaches {_percent(target_precision)} precision"
        accepting = [p for p in points if p.accepted]
        if not accepting:
            return withheld(f"{goal}: no threshold accepts any labelled match.")
        best = max(accepting, key=lambda p: _wilson(p.tp, p.accepted, z)[0])
        assert best.precision is not None
        return withheld(
            f"{goal} with {_percent(confidence)} confidence: the best, "
            f"{_number(best.threshold)}, has precision {_percent(best.precision)} "
            f"(lower bound {_percent(_wilson(best.tp, best.accepted, z)[0])}) "
            f"on {best.accepted} accepted labels.")

    return Recommendation(
        target_precision=target_precision,
        threshold=chosen.threshold,
        precision=chosen.precision,
        precision_interval=_wilson(chosen.tp, chosen.accepted, z),
        recall=chosen.recall,
        false_alarm_rate=chosen.false_alarm_rate,
        accepted=chosen.accepted,
        labelled=len(labelled),
        threshold_interval=bootstrap_threshold_interval(
            labelled, target_precision, thresholds=candidates, rounds=bootstrap_rounds,
            seed=seed, confidence=confidence),
        reason=None,
    )


# Agreement -------------------------------------------------------------------


def cohen_kappa(pairs: Iterable[tuple[str, str]], labels: Sequence[str] = LABELS
                ) -> Agreement:
    """Cohen's κ for two labellers over the same items, one ``(first's label,
    second's label)`` pair per item, over ``labels`` (the three match
    :data:`LABELS` unless told; claim flags have labels of their own).

    With n items, observed agreement p_o = (items labelled alike) / n;
    expected agreement p_e = Σ over labels of (first's share with that label ×
    second's share with it), the agreement two labellers would reach by
    chance with those label rates; κ = (p_o − p_e) / (1 − p_e). κ is 1 for
    perfect agreement and 0 for chance level. When p_e = 1 (both gave every
    item the same single label) κ is 0/0: undefined, returned as None."""
    checked: list[tuple[str, str]] = []
    for first, second in pairs:
        for label in (first, second):
            if label not in labels:
                raise ValueError(f"labels must be one of {', '.join(labels)}; got {label!r}")
        checked.append((first, second))
    n = len(checked)
    disagreements = tuple(i for i, (first, second) in enumerate(checked) if first != second)
    if not n:
        return Agreement(kappa=None, observed=None, expected=None, n=0, disagreements=())
    # Exact fractions, so that p_e == 1 is caught exactly.
    observed = Fraction(n - len(disagreements), n)
    expected = Fraction(sum(
        sum(1 for f, _ in checked if f == label) * sum(1 for _, s in checked if s == label)
        for label in labels), n * n)
    kappa = None if expected == 1 else float((observed - expected) / (1 - expected))
    return Agreement(kappa=kappa, observed=float(observed), expected=float(expected), n=n,
                     disagreements=disagreements)


# The labelling sample --------------------------------------------------------


def _round_robin(pools: Sequence[list[tuple[int, float, str]]], count: int,
                 taken: list[tuple[int, float, str]]) -> None:
    """Take up to ``count`` items from the front of ``pools`` in turn: every
    pool gives one before any gives a second; an empty pool is skipped."""
    while count > 0 and any(pools):
        for pool in pools:
            if count and pool:
                taken.append(pool.pop(0))
                count -= 1


def stratified_sample(
    candidates: Sequence[tuple[int, float]],
    *,
    bands: Iterable[Band] = DEFAULT_BANDS,
    size: int,
    controls: float = 0.2,
    seed: int,
) -> tuple[SampleItem, ...]:
    """Draw ``size`` of ``candidates`` (``(id, score)`` pairs) to label.

    ``round(size * controls)`` items are controls, alternately exact matches
    (score == 1.0) and clear misses (score below the lowest band); the rest
    fill the bands round-robin (each band gives one before any gives a second;
    a band that runs out is skipped). Controls that run out are replaced by
    band items, never the other way round, so fewer than ``size`` come back
    when the bands run out. Scores in no band and not a control (between
    bands, or above the top band) are not drawn.

    The result is shuffled, so controls sit among the others; each item says
    its stratum, which a labelling page must not show. Deterministic for a
    seed (the input order does not matter); an id is drawn at most once (a
    repeated id keeps its first score)."""
    checked_bands = _checked_bands(bands)
    if size < 0:
        raise ValueError(f"size must not be negative, got {size!r}")
    if not 0.0 <= controls <= 1.0:
        raise ValueError(f"controls must be a share between 0 and 1, got {controls!r}")
    scores: dict[int, float] = {}
    for candidate_id, score in candidates:
        scores.setdefault(candidate_id, score)

    band_pools: list[list[tuple[int, float, str]]] = [[] for _ in checked_bands]
    exact: list[tuple[int, float, str]] = []
    misses: list[tuple[int, float, str]] = []
    for candidate_id in sorted(scores):  # sorted: the draw depends on the seed only
        score = scores[candidate_id]
        if score == 1.0:
            exact.append((candidate_id, score, "control"))
        elif score < checked_bands[0][0]:
            misses.append((candidate_id, score, "control"))
        elif (index := _band_index(score, checked_bands)) is not None:
            band_pools[index].append((candidate_id, score, band_label(checked_bands[index])))

    rng = random.Random(seed)
    for pool in (*band_pools, exact, misses):
        rng.shuffle(pool)
    wanted_controls = round(size * controls)
    taken: list[tuple[int, float, str]] = []
    _round_robin((exact, misses), wanted_controls, taken)
    _round_robin(band_pools, size - len(taken), taken)
    rng.shuffle(taken)
    return tuple(SampleItem(id=i, score=s, stratum=stratum) for i, s, stratum in taken)
