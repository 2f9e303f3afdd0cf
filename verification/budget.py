"""A work budget per answer: fuzzy alignment is the one cost that grows with
the product of a quote's and a source's length, so it is metered.

Work is counted in character pairs, charged *before* each alignment runs:

* a quote aligned by rapidfuzz's window search (a quote shorter than
  :data:`~verification.matching.SEED_MATCH_MIN_CHARS`, or any quote with
  seeding off) costs ``len(quote) * len(text searched)``;
* a quote aligned from exact seeds costs :data:`SEEDED_CHAR_WORK` times
  ``len(quote) + len(text searched)``: its n-gram index and the small gaps
  between chained seeds grow linearly, but the index is built in Python, a
  few hundred times slower per character than rapidfuzz per pair.

Exact lookups (``str.find``) are not charged: they are linear and cheap.
Splitting a source into sentences to locate an unquoted citation's passage
is linear but not cheap (:data:`PASSAGE_CHAR_WORK` a character): it is
charged when it fits, and a passage it would not fit is not located (the
citation says so) rather than the answer refused. On
the machine the default was measured on, rapidfuzz's window search does about
3.5 billion character pairs a second for quotes up to 500 characters without
a score cutoff, so :data:`DEFAULT_MAX_WORK` holds an answer's fuzzy work to at
most about a second and a half of CPU; with the cutoffs verification uses,
60 absent 499-character quotes against 200 KB of sources were refused at the
limit after 0.63 s.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "DEFAULT_MAX_WORK", "PASSAGE_CHAR_WORK", "SEEDED_CHAR_WORK", "SEED_MATCH_MIN_CHARS",
    "WorkBudgetExceeded", "WorkEstimate", "WorkMeter", "alignment_work", "answer_work_bound",
]

#: Quotes of at least this many normalised characters are aligned from exact
#: seeds (:func:`verification.matching.seeded_window`) instead of rapidfuzz's
#: window search, whose cost grows with the quote's length squared times the
#: text's: a 10,000 character quote took tens of seconds against a long source.
SEED_MATCH_MIN_CHARS = 500
#: What one character of seeded alignment costs, in character pairs of window
#: search: about 100-130 ns a character to index (measured on 2 MB of PDF
#: text) against 0.3 ns a pair for rapidfuzz.
SEEDED_CHAR_WORK = 400
#: What one source character costs to locate unquoted citations' passages in
#: it (once per source and answer): splitting it into sentences and weighing
#: its words took 0.45-0.65 microseconds a character on PDF text, and reading
#: its numbers for the claim checks about as much again, against 0.3 ns a pair
#: for rapidfuzz. A 200,000-character document range costs 8e8.
PASSAGE_CHAR_WORK = 4_000
#: Character pairs of fuzzy alignment one answer may cost (see the module's
#: docstring): 20 fuzzy quotes of 250 characters against 1 MB of sources.
DEFAULT_MAX_WORK = 5_000_000_000


def alignment_work(quote_chars: int, text_chars: int, *, seeded: bool) -> int:
    """The estimated work of aligning a quote in a text (see the module)."""
    if seeded:
        return SEEDED_CHAR_WORK * (quote_chars + text_chars)
    return quote_chars * text_chars


def answer_work_bound(
    answer: str, source_chars: int, *, seed_min_chars: int | None = SEED_MATCH_MIN_CHARS
) -> int:
    """The most alignment work verifying ``answer`` against sources of
    ``source_chars`` characters in all could be charged: every quote aligned
    against all of them. Linear to compute, before any alignment, so a server
    can tell a costly answer from a cheap one up front."""
    from .quotes import parse_quotes

    total = 0
    for quote in parse_quotes(answer):
        size = len(quote.text)
        seeded = seed_min_chars is not None and size >= seed_min_chars
        total += alignment_work(size, source_chars, seeded=seeded)
    return total


@dataclass(frozen=True, slots=True)
class WorkEstimate:
    """The work an answer would have reached (``work``), over ``limit``."""

    work: int
    limit: int


class WorkBudgetExceeded(Exception):
    """An answer needs more alignment work than the budget allows.

    Raised before the alignment that would go over it, so a worker is never
    held past the budget; ``estimate`` says by how much.
    """

    def __init__(self, work: int, limit: int) -> None:
        self.estimate = WorkEstimate(work, limit)
        super().__init__(
            f"verifying this answer needs more than {limit:,} units of alignment work "
            f"(quote characters times source characters searched; reached {work:,}): "
            "send shorter quotes or fewer, or smaller sources"
        )

    @property
    def work(self) -> int:
        return self.estimate.work

    @property
    def limit(self) -> int:
        return self.estimate.limit


class WorkMeter:
    """The work charged so far for one answer, against ``limit`` (``None``:
    unlimited, still counted)."""

    __slots__ = ("limit", "spent")

    def __init__(self, limit: int | None) -> None:
        self.limit = limit
        self.spent = 0

    def try_charge(self, work: int) -> bool:
        """Count ``work`` if it fits in the limit; False (nothing counted)
        when it would not: for work the answer can do without."""
        if self.limit is not None and self.spent + work > self.limit:
            return False
        self.spent += work
        return True

    def charge(self, work: int) -> None:
        """Count ``work`` about to be done, or raise :class:`WorkBudgetExceeded`
        if it would take the answer over the limit (nothing is then counted)."""
        total = self.spent + work
        if self.limit is not None and total > self.limit:
            raise WorkBudgetExceeded(total, self.limit)
        self.spent = total
