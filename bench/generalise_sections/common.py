"""What the three sections share: finding a quote's chunk, verifying, locating, scoring.

A section turns each thing it samples (a window across a footnote marker, a
table row, a cell, a window of a page made an image) into a ``Case``: the
quotes a person would write for it, the poppler words a highlight must cover,
and pieces of its text (letters and digits) by which to find the chunk a
retriever would hand the verifier. Only the chunk is picked here; whether the
quote verifies is the verifier's call on that chunk, as in the reviewer.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from bench.generalise import (
    VERIFIED,
    Ingested,
    around,
    as_answer,
    chunk_for,
    chunk_source,
    inside,
    outcome_of,
    reason_of,
)
from bench.poppler import PopplerWord
from reviewer.ingestion import locate
from verification import Citation, verify_answer

#: A run of pieces found in order counts when they hold at least this share of
#: the case's letters and digits and lie within ``SPREAD`` times their length.
FOUND_SHARE = 0.5
SPREAD = 3
NOT_FOUND = "not in our text: its words are not there in this order"


@dataclass(frozen=True)
class Case:
    page: int  # 1-based, in the ingested document
    quotes: tuple[tuple[str, str], ...]  # (variant, quote text)
    targets: tuple[PopplerWord, ...]  # words a highlight must cover, on ``page``
    pieces: tuple[str, ...]  # keys (letters and digits), in reading order
    label: str = ""  # what was sampled, for the failure list


@dataclass
class SectionFailure:
    file: str
    page: int
    variant: str
    category: str
    quote: str
    outcome: str
    reason: str = ""
    located: str = ""
    ours: str = ""


@dataclass
class SectionStats:
    """One PDF's score in one section."""

    file: str
    status: str = "ok"
    message: str = ""
    cases: int = 0
    quotes: int = 0
    verified: int = 0
    words: int = 0
    located: int = 0
    seconds: float = 0.0
    note: str = ""  # e.g. pages left out of the section and why
    failures: list[SectionFailure] = field(default_factory=list)

    def add(self, other: SectionStats) -> None:
        for name in ("cases", "quotes", "verified", "words", "located"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


def rate(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


# -- Finding the chunk ---------------------------------------------------------------------


class Counted(Protocol):
    """A section's counts, as :class:`SectionStats` and the scans' stats keep them."""

    quotes: int
    verified: int
    located: int
    words: int


class Miss(Protocol):
    """A miss as the sections list it: its category and its "hits/words" located."""

    category: str
    located: str


def rates_without(stats: Sequence[Counted], excused: Sequence[Miss],
                  bare: Callable[[str], str]) -> tuple[float, float]:
    """A section's verified and located-words rates leaving out the
    ``excused`` misses (``bare`` strips a miss's category of its marks). A
    miss is a quote not verified, or a verified one with words left out of
    its highlight ("highlight: ..."): only the first counts as a quote."""
    unverified = sum(1 for f in excused if not bare(f.category).startswith("highlight"))
    quotes = sum(s.quotes for s in stats) - unverified
    verified = sum(s.verified for s in stats)
    hits = [tuple(int(n) for n in f.located.split("/")) for f in excused]
    located = sum(s.located for s in stats) - sum(h for h, _ in hits)
    words = sum(s.words for s in stats) - sum(w for _, w in hits)
    return rate(verified, quotes), rate(located, words)


def page_keys(ours: Ingested, page: int) -> tuple[int, int]:
    """``[first, end)`` of ``ours.keys`` that come from ``page``."""
    info = ours.doc.pages[page - 1]
    return (bisect_left(ours.offsets, info.text_start),
            bisect_left(ours.offsets, info.text_end))


def find_span(ours: Ingested, pieces: Sequence[str], page: int) -> tuple[int, int] | None:
    """Where our text holds the case, as a range of ``ours.doc.text``; None when not.

    The whole key on the page first (then anywhere), else the pieces found in
    order on the page, some missing (a cell another reader splits otherwise,
    a word OCR misread), as long as those found hold ``FOUND_SHARE`` of the
    letters and lie close together: enough to say which chunk a retriever
    would return, which is all this is for.
    """
    pieces = [p for p in pieces if p]
    whole = "".join(pieces)
    if not whole:
        return None
    first, end = page_keys(ours, page)
    at = ours.keys.find(whole, first, end)
    if at < 0:
        at = ours.keys.find(whole)
    if at >= 0:
        return ours.offsets[at], ours.offsets[at + len(whole) - 1] + 1
    best: tuple[int, int, int] | None = None  # (found chars, start key, end key)
    for anchor in range(min(3, len(pieces))):  # the first piece may be the misread one
        start = ours.keys.find(pieces[anchor], first, end)
        while start >= 0:
            found, cursor = len(pieces[anchor]), start + len(pieces[anchor])
            for piece in pieces[anchor + 1:]:
                limit = min(end, cursor + SPREAD * len(piece) + 40)
                hit = ours.keys.find(piece, cursor, limit)
                if hit >= 0:
                    found, cursor = found + len(piece), hit + len(piece)
            if (found >= FOUND_SHARE * len(whole) and cursor - start <= SPREAD * len(whole)
                    and (best is None or found > best[0])):
                best = (found, start, cursor)
            start = ours.keys.find(pieces[anchor], start + 1, end)
            if best is not None and best[0] == len(whole):
                break
    if best is None:
        return None
    return ours.offsets[best[1]], ours.offsets[best[2] - 1] + 1


# -- Scoring a case ------------------------------------------------------------------------


def rectangles(ours: Ingested, citations: Sequence[Citation]) -> dict[int, list[list[float]]]:
    rects: dict[int, list[list[float]]] = {}
    for citation in citations:
        if citation.document_start is None or citation.document_end is None:
            continue
        for page in locate(ours.doc, citation.document_start, citation.document_end,
                           skip=ours.furniture):
            rects.setdefault(page["page"], []).extend(page["rects"])
    return rects


def score_case(stats: SectionStats, ours: Ingested | None, case: Case,
               failure: str | None = None, reason: str = "") -> None:
    """Verify each quote of ``case`` against the chunk holding it and locate it.

    ``ours`` None (the document did not ingest) or no chunk found: each quote
    fails and locates none of its words, with ``failure`` or ``NOT_FOUND`` as
    the category. Never dropped.
    """
    stats.cases += 1
    words = sum(1 for w in case.targets if w.key)
    span = find_span(ours, case.pieces, case.page) if ours is not None else None
    if ours is None or span is None:
        category = failure or NOT_FOUND
        context = ""
        if ours is not None:
            first, end = page_keys(ours, case.page)
            context = ours.doc.text[ours.offsets[first]:ours.offsets[first] + 200] \
                if first < end else ""
        for variant, text in case.quotes:
            stats.quotes += 1
            stats.words += words
            stats.failures.append(SectionFailure(stats.file, case.page, variant, category, text,
                                                 "no chunk", reason or case.label,
                                                 f"0/{words}",
                                                 context.replace("\n", "⏎")))
        return
    chunk = chunk_for(ours.chunks, *span)
    source = chunk_source(ours, chunk)
    context = around(ours.doc.text, *span)
    for variant, text in case.quotes:
        citations = verify_answer(as_answer(text), [source]).citations
        verified = bool(citations) and all(c.outcome in VERIFIED for c in citations)
        rects = rectangles(ours, citations).get(case.page, [])
        hits = sum(1 for w in case.targets if w.key and inside(w.centre, rects))
        stats.quotes += 1
        stats.verified += verified
        stats.words += words
        stats.located += hits
        if not verified:
            category = f"verify: {variant} -> {outcome_of(citations)}"
        elif hits < words:
            category = "highlight: no rectangle" if not rects else "highlight: words outside"
        else:
            continue
        stats.failures.append(SectionFailure(stats.file, case.page, variant, category, text,
                                             outcome_of(citations), reason_of(citations),
                                             f"{hits}/{words}", context))
