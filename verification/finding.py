"""Finding a quote in the injected sources: verbatim on the one-for-one fold,
exactly after normalisation from the squeezed fold, or by fuzzy alignment of
the normalised neighbourhood of a rough window, charged to the answer's
work budget. What a quote's check (``quote_checks.py``) builds its verdict from."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .matching import (
    Alignment,
    Difference,
    align,
    compare,
    find_exact,
    find_letter_spaced,
    negation_before,
    rough_window,
    word_swap,
)
from .normalize import NormalizedText, clean_break, concatenate, normalize
from .ocr import Misread, ocr_spelling
from .pool import SCREEN_MARGIN, Source, SourcePool, squeeze

__all__ = ["Found", "find", "find_as_ocr_read", "letters", "squeezed_exact",
           "verbatim_elsewhere"]


@dataclass(frozen=True, slots=True)
class Found:
    label: str
    alignment: Alignment
    differences: tuple[Difference, ...]
    letter_spaced: bool = False  # exact once the source's spaced-out letters are joined

    @property
    def altered(self) -> bool:
        return any(d.reasons for d in self.differences)


def find(
    quote: NormalizedText,
    labels: Iterable[str],
    pool: SourcePool,
    *,
    cutoff: float,
    threshold: float,
    exact_in: Sequence[str] | None = None,
) -> tuple[Found | None, float]:
    """The best alignment of ``quote`` among ``labels`` (exact first), and the
    best score seen even below ``cutoff``. ``exact_in`` widens the verbatim
    lookup, a ``str.find`` per source, to more sources than ``labels``."""
    labels = list(labels)
    exact_labels = labels if exact_in is None else list(exact_in)
    for label in exact_labels:  # verbatim on the one-for-one fold: no offset map needed
        folded = pool.folded(label)
        source = pool.by_label[label]
        exact = find_exact(quote.text, folded, start_before=source.injected_end)
        if (exact is not None and exact.exact and not _next_to_hyphen(folded.text, exact)
                and not _overlaps_skip(source, exact)):
            return Found(label, exact, _context(folded, exact)), 1.0
    best: Found | None = None
    for label in labels:
        found = _found_in(quote, label, pool, cutoff=cutoff, threshold=threshold)
        if found is not None and found.alignment.exact:
            return found, 1.0
        if found is not None and (best is None or found.alignment.score > best.alignment.score):
            best = found
    # The rough alignment scores unnormalised text, so it can settle on a
    # near-duplicate passage while the quote is in the source exactly after
    # normalisation: look for that before reporting anything less.
    for label in labels:
        found = squeezed_exact(quote, label, pool)
        if found is not None:
            return found, 1.0
    return best, best.alignment.score if best else 0.0


#: What :meth:`SourcePool.squeezed` takes out: whitespace and hyphens, which
#: normalisation collapses or joins across line breaks.
_SQUEEZE = re.compile(r"[\s\-\u00ad]+")
#: Original characters normalised around a squeezed hit: more than
#: :func:`negation_before` reads on either side, after whitespace collapses.
_SQUEEZED_MARGIN = 160
#: Squeezed hits tried per source before the fuzzy path takes over.
_SQUEEZED_TRIES = 4


def _unsqueezed(folded: str, index: int) -> int:
    """The position in ``folded`` of its ``index``-th character that
    :data:`_SQUEEZE` keeps."""
    removed = 0
    for run in _SQUEEZE.finditer(folded):
        if run.start() - removed > index:
            break
        removed += run.end() - run.start()
    return index + removed


def squeezed_exact(quote: NormalizedText, label: str, pool: SourcePool) -> Found | None:
    """An exact match of ``quote`` after normalisation, located cheaply.

    Without whitespace and hyphens on both sides, a quote that is in the
    source after normalisation is a plain substring of the source's squeezed
    fold. A hit only says where to look ("a part" squeezes like "apart"): the
    neighbourhood is normalised and the match confirmed by :func:`find_exact`.
    This catches what the fuzzy path's rough alignment can miss: a
    near-duplicate passage ("50 percent of eligible") preferred to the one
    that holds the quote once its "elig-\nible" is joined. (A ligature in the
    source hides the quote from this lookup; the fuzzy path still applies.)
    """
    needle = squeeze(quote.text)
    if not needle:
        return None
    source = pool.by_label[label]
    folded, squeezed = pool.folded(label).text, pool.squeezed(label)
    hit = squeezed.find(needle)
    for _ in range(_SQUEEZED_TRIES):
        if hit < 0:
            return None
        start = _unsqueezed(folded, hit)
        if source.injected_end is not None and start >= source.injected_end:
            return None
        end = _unsqueezed(folded, hit + len(needle) - 1) + 1
        region, offset = pool.region(label, start - _SQUEEZED_MARGIN, end + _SQUEEZED_MARGIN)
        start_before = None
        if source.injected_end is not None and source.injected_end < offset + len(region.original):
            local = source.injected_end - offset
            start_before = region.offsets.to_normalized_position(local) if local > 0 else 0
        exact = find_exact(quote.text, region, start_before=start_before)
        spaced = exact is None or not exact.exact
        if spaced:
            exact = find_letter_spaced(quote.text, region, start_before=start_before)
        if exact is not None and exact.exact:
            shifted = Alignment(
                exact.score, exact.exact, exact.norm_start, exact.norm_end,
                exact.source_start + offset, exact.source_end + offset,
            )
            return Found(label, shifted, _context(region, exact), letter_spaced=spaced)
        hit = squeezed.find(needle, hit + 1)
    return None


def _found_in(
    quote: NormalizedText, label: str, pool: SourcePool, *, cutoff: float, threshold: float
) -> Found | None:
    """Align ``quote`` in one source: the one-for-one fold says roughly where,
    then only that neighbourhood is normalised and aligned exactly. Word
    differences are worked out only at or above ``threshold``."""
    source = pool.by_label[label]
    folded = pool.folded(label).text
    limit = len(folded)
    if source.injected_end is not None:
        limit = min(limit, source.injected_end + len(quote.text) + max(16, len(quote.text) // 4))
    rough = rough_window(
        quote.text, folded[:limit] if limit < len(folded) else folded,
        score_cutoff=max(0.0, cutoff * 100 - SCREEN_MARGIN),
        seed_min_chars=pool.seed_min_chars, meter=pool.meter,
    )
    if rough is None:
        return None
    reach = max(200, len(quote.text))
    start, end = rough[0] - reach, rough[1] + reach
    a, b = pool.bounds(label, start, end)
    alignment: Alignment | None
    if (source.injected_end is None or source.injected_end >= b) and not any(
        s < b and e > a for s, e in source.skip
    ):
        # The common case, nothing skipped and no start limit: an exact match
        # may be settled before the region's tail is normalised.
        region, alignment = _exact_first(quote.text, label, pool, a, b, rough[1])
        offset = a
        if alignment is None:
            alignment = align(quote.text, region, score_cutoff=cutoff,
                              seed_min_chars=pool.seed_min_chars, meter=pool.meter)
    else:
        region, offset = pool.region(label, start, end)
        start_before = None
        if source.injected_end is not None and source.injected_end < b:
            local = source.injected_end - offset
            start_before = region.offsets.to_normalized_position(local) if local > 0 else 0
        alignment = align(quote.text, region, score_cutoff=cutoff, start_before=start_before,
                          seed_min_chars=pool.seed_min_chars, meter=pool.meter)
    if alignment is None:
        return None
    # An exact alignment's window is the quote's text, so compare() would find
    # the same words on both sides and return nothing: skip it.
    differences = (
        (() if alignment.exact else compare(quote, region, alignment))
        + _context(region, alignment)
        if alignment.score >= threshold else ()
    )
    if not alignment.exact and not any(d.reasons for d in differences):
        # Below the threshold a short quote must be a whole item of the source
        # to be its alteration; with more words around it, one word put in for
        # another no longer happens by chance. A long quote is looked at too:
        # one long word swapped ("Berufsbezeichnung" for the German compound
        # "Teilnahmebedingungen") takes even 120 characters under the threshold.
        whole = alignment.score < threshold and len(quote.text.split()) < _SWAP_ANYWHERE_WORDS
        # At or above the threshold compare() has just found no change of
        # meaning in the alignment's own window: word_swap() need not redo it.
        compared = ((alignment.norm_start, alignment.norm_end)
                    if alignment.score >= threshold else None)
        swap = word_swap(quote, region, alignment, whole=whole, compared=compared)
        if swap is not None:
            alignment, changed = swap
            differences = changed + _context(region, alignment)
    shifted = Alignment(
        alignment.score, alignment.exact, alignment.norm_start, alignment.norm_end,
        alignment.source_start + offset, alignment.source_end + offset,
    )
    return Found(label, shifted, differences)


#: A quote of at least this many words that is the source's passage with one
#: word put in for another is that passage altered, wherever it stands.
_SWAP_ANYWHERE_WORDS = 6
#: Normalised characters after a match that :func:`negation_before` reads.
_CONTEXT_AFTER = 30


def _exact_first(
    quote: str, label: str, pool: SourcePool, a: int, b: int, near_end: int
) -> tuple[NormalizedText, Alignment | None]:
    """``text[a:b]`` normalised, and an exact match of ``quote`` in it when one
    is found early, for a region that skips nothing.

    The region is normalised in two parts, split at a :func:`clean_break` a
    little after ``near_end`` (where the rough window ends). An exact match in
    the first part is the one :func:`find_exact` would find in the whole
    region (the part is a prefix of it, and any earlier match would lie
    wholly inside the part), and when it leaves :data:`_CONTEXT_AFTER`
    characters after it the context check reads the same text too: the tail
    is then never normalised. Otherwise the two parts are joined into the
    region's normalised text, the same as normalising it at once.
    """
    text = pool.by_label[label].text
    cut = clean_break(text, near_end + _CONTEXT_AFTER + len(quote) // 8 + 16, b)
    if cut is None:
        return pool.normalized(label, a, b), None
    head = pool.normalized(label, a, cut[0])
    exact = find_exact(quote, head)
    if exact is not None and exact.exact and len(head.text) - exact.norm_end >= _CONTEXT_AFTER:
        return head, exact
    tail = pool.normalized(label, cut[1], b)
    return concatenate(head, text[cut[0] : cut[1]], tail), None


def _overlaps_skip(source: Source, alignment: Alignment) -> bool:
    return any(s < alignment.source_end and alignment.source_start < e for s, e in source.skip)


def _next_to_hyphen(text: str, alignment: Alignment) -> bool:
    """Whether a hyphen touches the window: normalisation may join the word
    across it, so only the normalised text can say if the match is whole."""
    start, end = alignment.norm_start, alignment.norm_end
    hyphens = "-\u00ad"
    return (start > 0 and text[start - 1] in hyphens) or (end < len(text) and text[end] in hyphens)


def _context(source: NormalizedText, alignment: Alignment) -> tuple[Difference, ...]:
    negation = negation_before(source, alignment)
    return (negation,) if negation else ()


def verbatim_elsewhere(
    quote: NormalizedText, labels: Sequence[str], pool: SourcePool
) -> Found | None:
    """A copy of ``quote`` in one of ``labels`` that is exact after
    normalisation and leaves out no negation, found with ``str.find`` only.

    Every exact copy is a substring of its source's squeezed fold, so one
    ``in`` per source (at C speed, on folds cached for the answer) rules
    out all the others before anything is normalised."""
    needle = squeeze(quote.text)
    if not needle:
        return None
    for label in labels:
        if needle not in pool.squeezed(label):
            continue
        found = squeezed_exact(quote, label, pool)
        if found is not None and not found.altered:
            return found
    return None


def find_as_ocr_read(
    quote: NormalizedText, found: Found, pool: SourcePool, *, threshold: float,
) -> tuple[Found, tuple[Misread, ...]] | None:
    """``quote`` found again in ``found``'s source with the words OCR misread
    there put in the OCR's spelling (:func:`~verification.ocr.ocr_spelling`),
    and those misreads; None when the source's window holds no text OCR read
    or the quote no such word. The new ``Found``'s alignment and differences
    are the respelt quote's: what still differs once the misreads are set
    aside."""
    source = pool.by_label[found.label]
    start, end = found.alignment.source_start, found.alignment.source_end
    if not source.ocr or not any(s < end and start < e for s, e in source.ocr):
        return None
    region, offset = pool.region(found.label, start, end)
    norm_start = region.offsets.to_normalized_position(start - offset)
    norm_end = region.offsets.to_normalized_position(end - offset)
    if start < end and norm_end <= norm_start:
        return None
    read_by_ocr = tuple((s - offset, e - offset) for s, e in source.ocr
                        if s < offset + len(region.original) and e > offset)
    respelt = ocr_spelling(quote, region, norm_start, norm_end, read_by_ocr=read_by_ocr)
    if respelt is None:
        return None
    text, misreads = respelt
    again, _ = find(normalize(text), [found.label], pool, cutoff=0.0, threshold=threshold)
    return (again, misreads) if again is not None else None


def letters(text: str) -> str:
    return "".join(c for c in text if c.isalnum())
