"""Long quotes aligned from exact seeds, in time linear in the quote's and
the text's length.

A quote of :data:`~verification.budget.SEED_MATCH_MIN_CHARS` or more is not
slid along the text by rapidfuzz's window search (quadratic in the quote):
stretches of :data:`SEED_CHARS` characters found once in the quote and once
in the text anchor it, the anchors that can lie on one alignment are chained,
and only the short gaps between them are aligned. A quote that is not there
leaves a few scattered coincidences and is rejected at once.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from itertools import pairwise

from rapidfuzz.distance import Indel

__all__ = ["ROUNDING", "SEED_CHARS", "ratio_ceiling", "seed_anchors", "seed_chain",
           "seeded_window"]

#: Characters in a seed: long enough that a stretch of prose found once in
#: the quote and once in the text is nearly always the same passage.
SEED_CHARS = 12
#: Share of a quote that must lie between its first and last chained seed
#: for the quote to be aligned at all, not counting :data:`_FILLER`. A quote
#: that is in the text keeps seeds from end to end, fewer where the text's
#: spacing differs (a raw fold) or where it repeats itself (a form repeating
#: its labels: one such quote kept seeds over 16% of it); one that is not
#: leaves a few coincidences close together, rejected at once.
_SEED_MIN_EXTENT = 0.1
#: Copies of a repeated passage whose seeds still chain (a clause a contract
#: restates, a paragraph a guideline repeats in its summary).
_SEED_MAX_REPEATS = 4
#: Runs of one or two characters repeated (dot leaders of a table of
#: contents or a form, rules of dashes): no seed is unique there.
_FILLER = re.compile(r"(.{1,2}?)\1{3,}", re.DOTALL)
#: Longest unseeded end of a quote whose window edge is still moved to where
#: the score peaks (see :meth:`_Seeded.window`).
_SEED_REFINED_END = 1_000
#: Slack for floating-point rounding when :func:`ratio_ceiling` rules a window out.
ROUNDING = 1e-9


def ratio_ceiling(size: int, width: int) -> float:
    """The highest ``fuzz.ratio`` (0..1) a quote of ``size`` characters can
    reach against a window of ``width``: an indel alignment must at least
    insert or delete the difference in length."""
    return 1 - abs(size - width) / (size + width)


def seed_anchors(
    quote: str, text: str, *, max_repeats: int = 1
) -> list[tuple[int, int]]:
    """``(quote index, text index)`` of every :data:`SEED_CHARS`-long stretch
    that occurs exactly once in ``quote`` and at most ``max_repeats`` times in
    ``text`` (one pair per occurrence), in quote order and, for one quote
    index, latest text index first, so that :func:`seed_chain` follows the
    earliest copy of a repeated passage. One dictionary pass over each string:
    linear time."""
    n = SEED_CHARS
    if len(quote) < n or len(text) < n:
        return []
    in_quote: dict[str, int] = {}
    repeated: set[str] = set()
    for i in range(len(quote) - n + 1):
        gram = quote[i : i + n]
        if gram in in_quote:
            repeated.add(gram)
        else:
            in_quote[gram] = i
    for gram in repeated:
        del in_quote[gram]
    in_text: dict[str, list[int]] = {}
    for j in range(len(text) - n + 1):
        gram = text[j : j + n]
        if gram in in_quote:
            in_text.setdefault(gram, []).append(j)
    return sorted(
        ((in_quote[g], j) for g, places in in_text.items() if len(places) <= max_repeats
         for j in places),
        key=lambda pair: (pair[0], -pair[1]),
    )


def seed_chain(anchors: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The anchors that can all lie on one alignment: the longest chain
    increasing in both quote and text (``anchors`` in quote order), cut where
    the text skips far more or less than the quote does, keeping the part
    with the most anchors. A quote that is in the text leaves one long chain;
    one that is not leaves a few scattered coincidences, or none."""
    if not anchors:
        return []
    # Longest strictly increasing subsequence of text indices: O(k log k).
    tails: list[int] = []  # text index ending the best chain of each length
    ends: list[int] = []  # which anchor ends it
    previous = [-1] * len(anchors)
    for k, (_, t) in enumerate(anchors):
        at = bisect_left(tails, t)
        if at == len(tails):
            tails.append(t)
            ends.append(k)
        else:
            tails[at], ends[at] = t, k
        previous[k] = ends[at - 1] if at else -1
    chain: list[tuple[int, int]] = []
    k = ends[-1]
    while k >= 0:
        chain.append(anchors[k])
        k = previous[k]
    chain.reverse()
    best: list[tuple[int, int]] = []
    part = [chain[0]]
    for before, after in pairwise(chain):
        quote_step, text_step = after[0] - before[0], after[1] - before[1]
        if abs(text_step - quote_step) > 64 + quote_step // 4:
            best = part if len(part) > len(best) else best
            part = []
        part.append(after)
    return part if len(part) > len(best) else best


class _Seeded:
    """A quote's alignment through its chained seeds, as exact blocks.

    Between two blocks the quote's gap is aligned with the text's gap
    (rapidfuzz's Indel distance on small strings); the text before the first
    block and after the last is free, so :meth:`score` can try window edges
    by re-aligning only the quote's head or tail.
    """

    def __init__(self, quote: str, text: str, chain: list[tuple[int, int]]) -> None:
        self.quote, self.text = quote, text
        blocks: list[list[int]] = []  # [quote start, text start, length]
        for q, t in chain:
            if blocks:
                bq, bt, size = blocks[-1]
                if q - bq == t - bt and q <= bq + size:  # the same diagonal, touching
                    blocks[-1][2] = max(size, q - bq + SEED_CHARS)
                    continue
                cut = max(bq + size - q, bt + size - t, 0)  # overlaps the previous block
                if cut >= SEED_CHARS:
                    continue
                q, t = q + cut, t + cut
                blocks.append([q, t, SEED_CHARS - cut])
            else:
                blocks.append([q, t, SEED_CHARS])
        # Grow each block while the characters agree, up to its neighbours.
        for i, block in enumerate(blocks):
            q, t, size = block
            q_floor = blocks[i - 1][0] + blocks[i - 1][2] if i else 0
            t_floor = blocks[i - 1][1] + blocks[i - 1][2] if i else 0
            while q > q_floor and t > t_floor and quote[q - 1] == text[t - 1]:
                q, t, size = q - 1, t - 1, size + 1
            q_ceiling = blocks[i + 1][0] if i + 1 < len(blocks) else len(quote)
            t_ceiling = blocks[i + 1][1] if i + 1 < len(blocks) else len(text)
            while (q + size < q_ceiling and t + size < t_ceiling
                   and quote[q + size] == text[t + size]):
                size += 1
            block[:] = [q, t, size]
        self.blocks = blocks
        self.inner = sum(
            Indel.distance(quote[a[0] + a[2] : b[0]], text[a[1] + a[2] : b[1]])
            for a, b in pairwise(blocks)
        )
        first, last = blocks[0], blocks[-1]
        self.head = quote[: first[0]]
        self.head_end = first[1]  # a window starts at or before it
        self.tail = quote[last[0] + last[2] :]
        self.tail_start = last[1] + last[2]  # and ends at or after it
        self._heads: dict[int, int] = {}
        self._tails: dict[int, int] = {}

    def score(self, start: int, end: int) -> float:
        """``fuzz.ratio(quote, text[start:end]) / 100`` along the seeds (the
        same wherever the best alignment goes through them, which unique
        seeds of a quote that is there nearly always do)."""
        start, end = min(start, self.head_end), max(end, self.tail_start)
        head = self._heads.get(start)
        if head is None:
            head = self._heads[start] = Indel.distance(
                self.head, self.text[start : self.head_end])
        tail = self._tails.get(end)
        if tail is None:
            tail = self._tails[end] = Indel.distance(
                self.tail, self.text[self.tail_start : end])
        total = len(self.quote) + end - start
        return (100 * (1 - (head + self.inner + tail) / total)) / 100 if total else 1.0

    def window(self) -> tuple[int, int, float]:
        """The best window near the one the seeds imply, edges moved as
        :func:`_refine` moves them."""
        text = self.text
        start = max(0, self.head_end - len(self.head))
        end = min(len(text), self.tail_start + len(self.tail))
        reach = max(12, min(len(self.quote) // 8, 48))
        size = len(self.quote)
        best = self.score(start, end)
        # An edge is moved only where its unseeded end is short: re-aligning
        # a long one for every candidate would cost its length squared each.
        head_reach = reach if len(self.head) <= _SEED_REFINED_END else 0
        tail_reach = reach if len(self.tail) <= _SEED_REFINED_END else 0
        for _ in range(2):
            before = start, end
            for candidate in range(max(0, start - head_reach),
                                   min(self.head_end, start + head_reach) + 1):
                if ratio_ceiling(size, end - candidate) < best - ROUNDING:
                    continue
                value = self.score(candidate, end)
                if value > best or (value == best and candidate > start):
                    best, start = value, candidate
            for candidate in range(max(self.tail_start, end - tail_reach),
                                   min(len(text), end + tail_reach) + 1):
                if ratio_ceiling(size, candidate - start) < best - ROUNDING:
                    continue
                value = self.score(start, candidate)
                if value > best or (value == best and candidate < end):
                    best, end = value, candidate
            if (start, end) == before:
                break
        return start, end, best


def seeded_window(quote: str, text: str) -> tuple[_Seeded, int, int, float] | None:
    """Where ``quote`` sits in ``text`` by its exact seeds: the alignment, the
    window ``[start, end)`` of ``text`` and its ``fuzz.ratio`` (0..1). ``None``
    when no seed chains, or the chain spans less than :data:`_SEED_MIN_EXTENT`
    of the quote (filler aside): the quote is not there, rejected in linear
    time without aligning the long stretches around the chain."""
    filler = sum(len(run.group()) for run in _FILLER.finditer(quote))
    least = _SEED_MIN_EXTENT * (len(quote) - filler)
    chain = seed_chain(seed_anchors(quote, text))
    if not chain or chain[-1][0] + SEED_CHARS - chain[0][0] < least:
        # No unique seeds over the quote: it is not there, or its passage is
        # there more than once (a clause repeated in a contract), whose seeds
        # are each found a few times. Chain those along the first copy.
        chain = seed_chain(seed_anchors(quote, text, max_repeats=_SEED_MAX_REPEATS))
        if not chain or chain[-1][0] + SEED_CHARS - chain[0][0] < least:
            return None  # a few coincidences: not this quote's passage
    seeded = _Seeded(quote, text, chain)
    start, end, score = seeded.window()
    return seeded, start, end, score


