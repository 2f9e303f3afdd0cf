"""Finding a quote in a source: exact after normalisation, else approximate.

Approximate alignment uses rapidfuzz's ``partial_ratio_alignment`` (the best
window of the source for the whole quote, by normalised Indel similarity); the
window is then trimmed to its aligned characters and scored with
``fuzz.ratio``. Indices are named for the text they point into: ``norm_*`` the
normalised source, ``source_*`` the original source text.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz
from rapidfuzz.distance import DamerauLevenshtein, Levenshtein, Opcode

from .budget import SEED_MATCH_MIN_CHARS, WorkMeter, alignment_work
from .lexicon import NEGATING_PREFIXES, WORD_PREFIXES, negated_by_prefix
from .normalize import BEFORE_MINUS, NormalizedText
from .seeding import ROUNDING, SEED_CHARS, ratio_ceiling, seed_anchors, seed_chain, seeded_window
from .sentences import ABBREVIATIONS

__all__ = [
    "SEED_CHARS", "SEED_MATCH_MIN_CHARS", "Alignment", "Difference", "across_parenthetical",
    "align", "compare", "find_exact", "find_letter_spaced", "negation_before", "rough_window",
    "seed_anchors", "seed_chain", "seeded_window", "word_swap", "words_between",
]


@dataclass(frozen=True, slots=True)
class Alignment:
    """Where a quote sits in a source. ``score`` is 1.0 for an exact match."""

    score: float
    exact: bool
    norm_start: int
    norm_end: int
    source_start: int
    source_end: int


@dataclass(frozen=True, slots=True)
class Difference:
    """One word-level edit from the source's words to the quote's words.

    ``reasons`` names what the edit touches that changes meaning (``number``,
    ``negation``, ``unit``, ``date``, ``name``, ``word``: another word than
    the source's, not a repaired typo); empty for harmless edits.
    ``repair`` names the extraction fault a harmless edit undoes, when it is
    a known one: ``spacing`` (only where spaces fall differs),
    ``footnote-marker`` (a reference number glued to a word or a full stop,
    or one written in superscript after a word or a year, left out or
    spaced off), ``list-number`` (a numbered list's number opening a line,
    left out of a quote that runs from one entry into the next).
    """

    # "replace", "insert", "delete"; "move" (the same text dropped in one
    # place, added in another); "omit-before"/"omit-after" (context left out)
    op: str
    source: str
    quote: str
    reasons: tuple[str, ...]
    repair: str = ""


def find_exact(
    quote: str, source: NormalizedText, *, start_before: int | None = None
) -> Alignment | None:
    """Exact containment of the normalised ``quote`` at word boundaries.

    A containment found only inside longer words ("refundable" in
    "nonrefundable", "30 days" in "130 days") is widened to whole words and
    returned as a non-exact alignment, so that :func:`compare` sees the
    difference instead of it passing as verbatim. With ``start_before``
    (a normalised index), only matches starting before it count.
    """
    text = source.text
    if not quote or not text:
        return None
    partial = None
    at = text.find(quote)
    for _ in range(64):  # a pathological repeat cannot make this quadratic
        if at < 0 or (start_before is not None and at >= start_before):
            break
        end = at + len(quote)
        if not _cuts(source, text, at) and not _cuts(source, text, end):
            return _alignment(source, 1.0, True, at, end)
        partial = at if partial is None else partial
        at = text.find(quote, at + 1)
    if partial is None:
        return None
    start, end = _widen(source, text, partial, partial + len(quote))
    return _alignment(source, fuzz.ratio(quote, text[start:end]) / 100, False, start, end)


def find_letter_spaced(
    quote: str, source: NormalizedText, *, start_before: int | None = None
) -> Alignment | None:
    """The normalised ``quote`` in letter-spaced source text ("c h i n a ocean
    s h i p p i n g"), as an exact alignment.

    OCR text layers and spaced-out type give every letter its own box, and
    extraction puts a space between them that the text alone cannot tell from
    a word break. Spaces are ignored here only where the source spaces out
    single characters; a space the quote adds or drops anywhere else ("a part"
    for "apart") is a real difference and is not matched. Inside a spaced-out
    run the words' own breaks are unknowable, so the quote's are not checked
    there ("ship ping" passes for "s h i p p i n g").
    """
    text = source.text
    needle = "".join(quote.split())
    if not needle:
        return None
    kept = [i for i, char in enumerate(text) if not char.isspace()]
    squeezed = "".join([text[i] for i in kept])
    at = squeezed.find(needle)
    for _ in range(64):  # a pathological repeat cannot make this quadratic
        if at < 0:
            return None
        start, end = kept[at], kept[at + len(needle) - 1] + 1
        if start_before is not None and start >= start_before:
            return None
        if (not _cuts(source, text, start) and not _cuts(source, text, end)
                and _spaced_out(quote, text[start:end])):
            return _alignment(source, 1.0, True, start, end)
        at = squeezed.find(needle, at + 1)
    return None


def _spaced_out(quote: str, span: str) -> bool:
    """Whether ``span`` is ``quote`` with spaces added only between single
    characters: each word of the quote is a word of the span or a run of
    the span's one-character words."""
    words = span.split()
    k = 0
    for word in quote.split():
        if k < len(words) and words[k] == word:
            k += 1
            continue
        joined = ""
        while k < len(words) and len(joined) < len(word) and len(words[k]) == 1:
            joined += words[k]
            k += 1
        if joined != word:
            return False
    return k == len(words)


def align(
    quote: str,
    source: NormalizedText,
    *,
    score_cutoff: float = 0.0,
    start_before: int | None = None,
    seed_min_chars: int | None = SEED_MATCH_MIN_CHARS,
    meter: WorkMeter | None = None,
) -> Alignment | None:
    """Best alignment of the normalised ``quote`` in ``source``.

    ``None`` when nothing reaches ``score_cutoff`` (0..1); with the default 0
    the best window is returned however poor, so that a near miss can be
    reported with its score. Windows always hold whole words. With
    ``start_before`` (a normalised index) the window must start before it:
    text after it is context a quote may run into, not where it may begin.

    A quote of ``seed_min_chars`` or more (default
    :data:`SEED_MATCH_MIN_CHARS`; ``None`` turns seeding off) is aligned from
    exact seeds (:func:`seeded_window`), in time linear in the quote's and
    the source's length, and is not found when too few seeds chain. ``meter`` is
    charged the alignment's work first (:mod:`verification.budget`).
    """
    exact = find_exact(quote, source, start_before=start_before)
    if exact is not None and (exact.exact or exact.score >= score_cutoff):
        return exact
    if not quote or not source.text:
        return None
    text = source.text
    if start_before is not None:
        text = text[: start_before + len(quote) + max(16, len(quote) // 4)]
    seeded = seed_min_chars is not None and len(quote) >= seed_min_chars
    if meter is not None:
        meter.charge(alignment_work(len(quote), len(text), seeded=seeded))
    ratio: Callable[[int, int], float]
    if seeded:
        found = seeded_window(quote, text)
        if found is None:
            return None
        aligned, start, end, score = found
        ratio = aligned.score
    else:
        # rapidfuzz prunes with the cutoff; keep it a little below the caller's,
        # because the refined window is re-scored below and may score higher.
        window = fuzz.partial_ratio_alignment(
            quote, text, score_cutoff=max(0.0, score_cutoff * 100 - 5)
        )
        if window is None or window.dest_end <= window.dest_start:
            return None
        start, end, score = _refine(quote, text, window.dest_start, window.dest_end)

        def ratio(a: int, b: int) -> float:
            return fuzz.ratio(quote, text[a:b]) / 100

    wide_start, wide_end = _widen(source, text, start, end)
    if (wide_start, wide_end) != (start, end):
        start, end = wide_start, wide_end
        score = ratio(start, end)
    if end < len(text) and (
        (text[end] == "%" and text[end - 1].isdigit())
        or (text[end] in _CLOSERS and quote.endswith(text[end]))
    ):
        # A percent sign belongs with its number when the quote has one
        # too: widening stops before it, as at any punctuation. So does a
        # bracket or stop the quote closes on, after a footnote marker the
        # quote leaves out ("enteropathy¹¹¹)" quoted "enteropathy)").
        with_sign = ratio(start, end + 1)
        if with_sign > score:
            end, score = end + 1, with_sign
    score = max(score, _score_without_markers(quote, source, start, end))
    if score < score_cutoff or (start_before is not None and start >= start_before):
        return None
    return _alignment(source, score, False, start, end)


#: Closing punctuation a window may take in when the quote ends on it.
_CLOSERS = frozenset(").]};:,")


def _score_without_markers(quote: str, source: NormalizedText, start: int, end: int) -> float:
    """The similarity of ``quote`` to the window ``[start, end)`` with its
    footnote markers left out, or 0 when it holds none.

    A quote that drops a list of markers ("needed. An even lower" for
    "needed.⁸,¹⁵,²⁰ An even lower") would otherwise pay for the list's
    characters as edits and fall under the threshold before :func:`compare`
    could name the dropped markers. Only digits written in superscript
    where :func:`_marker_sites` takes them for markers are left out (after
    a word or a year, never an exponent): a number at the line's size is
    always scored, and :func:`compare` still judges the window as printed.
    """
    o_start, o_end = source.to_original(start, end)
    if not _SUPERSCRIPT_ANY.search(source.original, o_start, o_end):
        return 0.0
    sites = _marker_sites(source, start, end)
    if not sites:
        return 0.0
    pieces, cursor = [], start
    for at, stop, spaced, _opens in sites:
        piece = source.text[cursor:at]
        pieces.append(piece[:-1] if spaced and piece.endswith(" ") else piece)
        cursor = stop
    pieces.append(source.text[cursor:end])
    return fuzz.ratio(quote, "".join(pieces)) / 100


def _alignment(
    source: NormalizedText, score: float, exact: bool, norm_start: int, norm_end: int
) -> Alignment:
    start, end = source.to_original(norm_start, norm_end)
    return Alignment(score, exact, norm_start, norm_end, start, end)


#: What joins the parts of one number: "73.6", "1,000", "10:30", "1/2", "10-12".
_NUMBER_JOINS = frozenset(".,:/-")
#: Last parts of a compound that negate the rest ("interest-free"); first
#: parts are :data:`NEGATING_PREFIXES` ("non-binding"). A quote that leaves
#: them out is not a quote of one part (see :func:`_cuts`).
_NEGATING_LAST_PARTS = ("free", "less")


def _cuts_word(text: str, position: int) -> bool:
    """Whether a boundary at ``position`` falls between two word characters,
    or inside a number: a window that stops at "73" of "73.6%" misquotes it."""
    if not 0 < position < len(text):
        return False
    before, after = text[position - 1], text[position]
    if before.isalnum():
        if after.isalnum():
            return True
        return (before.isdigit() and after in _NUMBER_JOINS
                and position + 1 < len(text) and text[position + 1].isdigit())
    return (after.isdigit() and before in _NUMBER_JOINS
            and position >= 2 and text[position - 2].isdigit())


def _cuts(source: NormalizedText, text: str, position: int) -> bool:
    """:func:`_cuts_word`, except where an in-line compound's parts meet
    ("government|run"): a quote of one part ends or starts on a boundary.
    Not where the part left out negates the rest ("non|binding",
    "interest|free"): that quote is widened and compared instead."""
    if not _cuts_word(text, position):
        return False
    if not source.joins_compound(position):
        return True
    first = position - 1
    while first > 0 and text[first - 1].isalnum() and not source.joins_compound(first):
        first -= 1
    last = position + 1
    while last < len(text) and text[last].isalnum() and not source.joins_compound(last):
        last += 1
    return (text[first:position] in NEGATING_PREFIXES
            or text[position:last] in _NEGATING_LAST_PARTS)


def _widen(source: NormalizedText, text: str, start: int, end: int) -> tuple[int, int]:
    while _cuts(source, text, start):
        start -= 1
    while _cuts(source, text, end):
        end += 1
    return start, end


def _refine(quote: str, text: str, start: int, end: int) -> tuple[int, int, float]:
    """Move the window's edges to where ``fuzz.ratio`` with the quote peaks.

    partial_ratio's window has the quote's length, so a quote with a dropped or
    added word sits in a window cut a little short or long. Each edge is moved
    in turn within ``reach`` characters (two rounds of coordinate ascent); ties
    keep the narrower window.
    """
    reach = max(12, min(len(quote) // 8, 48))
    size = len(quote)
    # The window can come back shorter than the quote (at a text's edges).
    end = max(end, min(len(text), start + len(quote)))

    # Windows are scored once: the second round mostly revisits the first's.
    ratio = fuzz.ratio
    best = ratio(quote, text[start:end]) / 100
    scores = {(start, end): best}
    for _ in range(2):
        before = start, end
        for candidate in range(max(0, start - reach), min(end, start + reach)):
            value = scores.get((candidate, end))
            if value is None:
                if ratio_ceiling(size, end - candidate) < best - ROUNDING:
                    continue  # cannot even tie the best: not worth a ratio() call
                value = scores[candidate, end] = ratio(quote, text[candidate:end]) / 100
            if value > best or (value == best and candidate > start):
                best, start = value, candidate
        for candidate in range(max(start + 1, end - reach), min(len(text), end + reach) + 1):
            value = scores.get((start, candidate))
            if value is None:
                if ratio_ceiling(size, candidate - start) < best - ROUNDING:
                    continue
                value = scores[start, candidate] = ratio(quote, text[start:candidate]) / 100
            if value > best or (value == best and candidate < end):
                best, end = value, candidate
        if (start, end) == before:
            break  # a round that moved nothing would only repeat itself
    return start, end, best


# Word-level comparison -------------------------------------------------------

_WORD_BEFORE_STOP = re.compile(r"([A-Za-z][A-Za-z.]*)\.$")
# A number keeps its separators and a range its dash, spaced or not
# ("624-643" and "624 - 643" are one token each). Single letters joined by
# full stops are one token too, an abbreviation ("e.g" of "e.g.", "u.s" of
# "U.S."), whose inner stops :func:`_words` leaves out: they are no meaning,
# and OCR drops them ("eg." for an italic "e.g.,"), as writers do ("eg").
_TOKEN = re.compile(
    r"\[[\d,;\s\-]+\]|\d+(?:[.,:/]\d+|\s?-\s?\d+)*"
    r"|(?<![^\W_])[^\W\d_](?:\.[^\W\d_])+(?![^\W_])|[^\W_]+(?:'[^\W_]+)*|\S"
)
_NUMBER_WORDS = {
    word: str(value)
    for value, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen "
        "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
} | {
    "thirty": "30", "forty": "40", "fifty": "50", "sixty": "60", "seventy": "70",
    "eighty": "80", "ninety": "90", "hundred": "100", "thousand": "1000",
    "million": "1000000", "billion": "1000000000", "once": "1x", "twice": "2x",
    "half": "0.5", "double": "2x", "triple": "3x", "first": "1st", "second": "2nd",
    "third": "3rd", "fourth": "4th", "fifth": "5th", "dozen": "12", "none": "0",
}
_NEGATIONS = frozenset(
    "not no never neither nor none nobody nothing nowhere without cannot can't won't "
    "don't doesn't didn't isn't aren't wasn't weren't hasn't haven't hadn't shouldn't "
    "wouldn't couldn't mustn't needn't shan't ain't lack lacks absent excluding except "
    "unless".split()
)
_UNITS = frozenset(
    "% percent percentage mg g kg mcg ug μg ng ml l dl mmol mol iu units unit mm cm m km "
    "in ft lb lbs oz hour hours hr hrs day days week weeks month months year years yr yrs "
    "minute minutes min mins second seconds sec secs dollar dollars usd eur euro euros gbp "
    "pound pounds $ € £ ¥ times fold x daily weekly monthly annually annual twice".split()
)
_MONTHS = frozenset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday "
    "friday saturday sunday".split()
)


# Multisets are compared as sorted lists: equal exactly when Counters would
# be, without building one.
_DIGITS = re.compile(r"\d+(?:[.,]\d+)*")


def _numbers(words: Iterable[str]) -> list[str]:
    values = []
    for word in words:
        if word.startswith("["):
            continue  # a reference such as [18]: models drop these when copying
        if word[0].isdigit():
            values.append(word.replace(",", "").replace(" ", ""))
        elif word in _NUMBER_WORDS:
            values.append(_NUMBER_WORDS[word])
        elif not word.isalpha():
            # Digits inside a word: "b12", "co2", and scripts that write no
            # space before a counter ("법정1군", group 1).
            values.extend(d.replace(",", "") for d in _DIGITS.findall(word))
    values.sort()
    return values


#: Comparison signs, with their typographic variants and the ASCII pairs a
#: model may type for them ("≥" as ">="), as one sign each.
_RELATIONS = {
    "<": "<", ">": ">", "\u2264": "\u2264", "\u2265": "\u2265", "\u2a7d": "\u2264",
    "\u2a7e": "\u2265", "\u2266": "\u2264", "\u2267": "\u2265", "\u2260": "\u2260",
    "\u226e": "\u2265", "\u226f": "\u2264",
}
_RELATION_PAIRS = {("<", "="): "\u2264", (">", "="): "\u2265", ("=", "<"): "\u2264",
                   ("=", ">"): "\u2265", ("!", "="): "\u2260"}


def _relations(tokens: Sequence[str], start: int = 0, end: int | None = None) -> list[str]:
    """The comparison signs before a figure among ``tokens[start:end]``, as
    one sign each: "aged <18" and "aged ≥18" are other people, though the
    words and the figure are the same. The figure may lie past ``end``; a
    sign before anything else is punctuation ("<www.nih.gov>", "=" in
    "n = 45")."""
    found = []
    i, end = start, len(tokens) if end is None else end
    while i < end:
        pair = _RELATION_PAIRS.get((tokens[i], tokens[i + 1])) if i + 1 < len(tokens) else None
        sign = pair or _RELATIONS.get(tokens[i])
        after = i + (2 if pair else 1)
        if sign is not None and _figure_at(tokens, after):
            found.append(sign)
        i = after if pair else i + 1
    found.sort()
    return found


def _figure_at(tokens: Sequence[str], at: int) -> bool:
    """Whether a figure starts at ``tokens[at]``: digits, a minus sign before
    them, or a number written out."""
    if at < len(tokens) and tokens[at] == "-":
        at += 1
    return at < len(tokens) and (tokens[at][0].isdigit() or tokens[at] in _NUMBER_WORDS)


def _negations(words: Iterable[str]) -> list[str]:
    return sorted(w for w in words if w in _NEGATIONS or w.endswith("n't"))


def _written(source: NormalizedText, quote: NormalizedText, source_word: str, source_at: int,
             quote_word: str, quote_at: int, word: str) -> str:
    """``word``, the source's word at ``source_at`` or the quote's at
    ``quote_at`` (in their normalised texts), as printed."""
    text, at = (source, source_at) if word == source_word else (quote, quote_at)
    start, end = text.to_original(at, at + len(word))
    return text.original[start:end]


def _negating_affix(a: str, b: str, written: Callable[[str], str]) -> bool:
    """Whether one word is the other with a negating prefix ("nonrefundable")
    or suffix ("interestfree", "childless": a joined compound's last part).
    ``written`` gives a word as printed, asked only of a one-letter prefix: a
    lone letter glued before a capital is a table's footnote letter, not a
    prefix ("aNorethisterone")."""
    short, long = sorted((a, b), key=len)
    if negated_by_prefix(short, long):
        return not (long[: len(long) - len(short)] in WORD_PREFIXES
                    and any(c.isupper() for c in written(long)[1:]))
    return any(long == short + suffix for suffix in _NEGATING_LAST_PARTS)


#: Below this similarity (``fuzz.ratio``, 0..1) a word in the quote is another
#: word than the source's, not the same one repaired: one letter changed in a
#: word of four or more letters stays above it ("recieve" for "receive" is
#: 0.86, "tension" for "tenson" 0.92); "right" for "left" and "should" for
#: "shall" fall below.
_SAME_WORD = 0.7
#: A swapped ending names the other party ("employer" / "employee", "lessor" /
#: "lessee"), a swapped beginning the opposite ("hypertension" /
#: "hypotension", "increase" / "decrease"): a letter or two, so by similarity
#: alone these would pass as repaired typos.
_PARTY_ENDINGS = (("er", "ee"), ("or", "ee"))
_OPPOSITE_BEGINNINGS = (
    ("hyper", "hypo"), ("inter", "intra"), ("intra", "extra"), ("infra", "supra"),
    ("sub", "super"), ("pre", "post"), ("ante", "post"), ("over", "under"), ("up", "down"),
    ("in", "out"), ("in", "ex"), ("im", "ex"), ("in", "de"), ("max", "min"), ("endo", "exo"),
)


#: What a scan or an extractor does to a word's letters, and spellings a
#: model may change when it quotes: undone before two words are compared
#: letter by letter (OCR's "rn" for "m", "cl" for "d"; "haemoglobin").
_LOOK_ALIKE = (("rn", "m"), ("rr", "m"), ("nn", "m"), ("in", "m"), ("ni", "m"), ("iu", "m"),
               ("cl", "d"), ("vv", "w"), ("li", "h"), ("ii", "u"), ("ri", "n"), ("ii", "n"),
               ("lc", "k"), ("ic", "k"), ("lo", "b"),
               ("ae", "e"), ("oe", "e"), ("our", "or"), ("mme", "m"), ("gue", "g"))
#: Ligature glyphs an extractor may drop for want of a text mapping ("nal"
#: for "final").
_LIGATURE_LETTERS = ("ffi", "ffl", "ff", "fi", "fl", "ft", "st", "th", "tt")


def _repaired(source: str, quote: str) -> bool:
    """Whether one word ``quote`` is ``source`` with an extraction or typing
    fault repaired: a letter changed, dropped, added or two swapped
    ("recieve", "tenson"), a look-alike (:data:`_LOOK_ALIKE`) or a lost
    ligature. More than that is another word, however alike: "prednisone"
    and "prednisolone", "vinblastine" and "vincristine", "men" and "women"
    are a letter or two apart and name other things."""
    if DamerauLevenshtein.distance(source, quote) <= 1:
        return True
    for letters in _LIGATURE_LETTERS:
        at = quote.find(letters)
        while at >= 0:
            if quote[:at] + quote[at + len(letters):] == source:
                return True
            at = quote.find(letters, at + 1)
    # A look-alike explains the whole difference, or it is no repair: with a
    # typo beside it, "prednisolone" would pass for "prednisone" ("lo" as "b").
    return any(
        source.replace(a, b) == quote.replace(a, b)
        for a, b in _LOOK_ALIKE if a in source or a in quote
    )


def _other_word(source: str, quote: str) -> bool:
    """Whether ``quote`` puts another word where the source has ``source``,
    rather than the same word with a typo or extraction fault repaired."""
    if not (any(c.isalpha() for c in source) and any(c.isalpha() for c in quote)):
        return False  # punctuation and figures have their own checks
    if fuzz.ratio(source, quote) / 100 < _SAME_WORD:
        return True
    if ("." in source or "." in quote) and source.replace(".", "") != quote.replace(".", ""):
        return True  # an abbreviation's letters are words: "t.i.d." is not "b.i.d."
    if " " not in source and " " not in quote and not _repaired(source, quote):
        return True
    for ending in ("'s", "s'", "s"):  # possessive or plural on both sides
        if source.endswith(ending) and quote.endswith(ending):
            source, quote = source[:-len(ending)], quote[:-len(ending)]
            break
    for a, b in (*_PARTY_ENDINGS, *((b, a) for a, b in _PARTY_ENDINGS)):
        if source.endswith(a) and quote.endswith(b) and source[:-len(a)] == quote[:-len(b)]:
            return True
    return any(
        source.startswith(a) and quote.startswith(b) and source[len(a):] == quote[len(b):]
        for a, b in (*_OPPOSITE_BEGINNINGS, *((b, a) for a, b in _OPPOSITE_BEGINNINGS))
    )


def _changes_a_word(removed: list[str], added: list[str]) -> bool:
    """Whether a replacement puts other words in the quote (see :func:`_other_word`):
    word by word when the counts agree, else as whole phrases."""
    if len(removed) == len(added):
        return any(_other_word(a, b) for a, b in zip(removed, added, strict=True))
    return _other_word(" ".join(removed), " ".join(added))


#: Letters of a run-together token left outside a quote that starts or ends
#: inside it: a word's worth ("canopy" of "canopyclosure"), not a prefix or
#: a syllable ("wo" of "women").
_CUT_LETTERS = 4


def _cut_at_edge(removed: list[str], added: list[str], first: bool, last: bool) -> bool:
    """Whether a run of edits at the quote's start or end is the window
    cutting into a token the extractor ran words together in: "closure. This
    quantity" quoted from "canopyclosure.Thisquantity", a word's worth of
    letters left outside; the quote's words there may be several, their
    letters all the token's ("at the top of the" from a scan's
    "numberatthetopofthe")."""
    if len(removed) != 1 or not added:
        return False
    token, word = removed[0], "".join(added)
    spare = len(token) - len(word)
    return spare >= _CUT_LETTERS and (
        (first and token.endswith(word)) or (last and token.startswith(word)))


def _edit_runs(ops: list[Opcode]) -> list[tuple[int, int, int, int]]:
    """For each opcode, the source and quote word ranges of the run of edits
    it belongs to: consecutive opcodes other than "equal" (an "equal" opcode
    is a run of its own)."""
    runs: list[tuple[int, int, int, int]] = []
    i = 0
    while i < len(ops):
        j = i + 1
        if ops[i].tag != "equal":
            while j < len(ops) and ops[j].tag != "equal":
                j += 1
        runs += [(ops[i].src_start, ops[j - 1].src_end,
                  ops[i].dest_start, ops[j - 1].dest_end)] * (j - i)
        i = j
    return runs


def _is_name(original: str, start: int) -> bool:
    """A capitalised word that is not the first word of a sentence (a word
    after a title such as "Dr." is a name)."""
    if start >= len(original) or not original[start].isupper():
        return False
    before = original[max(0, start - 40) : start].rstrip()
    if not before:
        return False
    if before[-1] == ".":
        title = _WORD_BEFORE_STOP.search(before)
        return title is not None and title.group(1).lower() in ABBREVIATIONS
    return before[-1] not in "!?:\"\u201c\n"


def _token_starts(text: str, lo: int, words: list[str], starts: list[int], upto: int) -> None:
    """Extend ``starts`` with where ``words[len(starts):upto]`` start in
    ``text`` (``words`` being ``_TOKEN``'s matches from ``lo``). Every
    non-space character starts a token, so only whitespace lies between two of
    them and ``str.find`` lands on each in turn."""
    at = starts[-1] + len(words[len(starts) - 1]) if starts else lo
    for word in words[len(starts) : upto]:
        at = text.find(word, at)
        starts.append(at)
        at += len(word)


def _starts(text: str, lo: int, words: list[str]) -> list[int]:
    """Where each of ``words`` (``_TOKEN``'s matches from ``lo``) starts in ``text``."""
    starts: list[int] = []
    _token_starts(text, lo, words, starts, len(words))
    return starts


def compare(
    quote: NormalizedText, source: NormalizedText, alignment: Alignment
) -> tuple[Difference, ...]:
    """Word-level differences between the quote and its aligned source window."""
    quote_words: list[str] = _TOKEN.findall(quote.text)
    source_words: list[str] = _TOKEN.findall(source.text, alignment.norm_start, alignment.norm_end)
    if quote_words == source_words:
        return ()
    if _words(source_words) == _words(quote_words) and (
        ("-" not in source_words and "-" not in quote_words)
        or _signs(source_words, _starts(source.text, alignment.norm_start, source_words),
                  source.text)
        == _signs(quote_words, _starts(quote.text, 0, quote_words), quote.text)
    ) and _relations(source_words) == _relations(quote_words):
        # The same words in the same order: only punctuation moved ("A/S, 50"
        # for "A/S\n50,"), or a dash was typed as a hyphen ("thing-not" for
        # "thing—not"). A word-level diff could pair the words differently
        # and report a word dropped here and added there: compare the gaps.
        # Not when a minus sign or a comparison sign went or came: that is
        # the word diff's to tell.
        return tuple(_merge_moves(_punctuation_edits(source_words, quote_words)))
    opcodes = Levenshtein.opcodes(source_words, quote_words)
    # Word offsets are needed only to tell names; found as far as needed.
    quote_starts: list[int] = []
    source_starts: list[int] = []

    differences: list[Difference] = []
    all_removed: list[str] = []
    all_added: list[str] = []
    ops = list(opcodes)
    runs = _edit_runs(ops)
    reported: tuple[int, int, int, int] | None = None  # a run told whole
    # src_* index the source's words, dest_* the quote's (rapidfuzz's naming).
    for op, run in zip(ops, runs, strict=True):
        removed = source_words[op.src_start : op.src_end]
        added = quote_words[op.dest_start : op.dest_end]
        if op.tag == "equal":
            if removed != added:  # words equal by hash only: count them below
                all_removed += removed
                all_added += added
            continue
        tag = op.tag
        _token_starts(source.text, alignment.norm_start, source_words, source_starts, run[1])
        _token_starts(quote.text, 0, quote_words, quote_starts, run[3])
        signs_moved = _signs(
            removed, source_starts[op.src_start : op.src_end], source.text
        ) != _signs(added, quote_starts[op.dest_start : op.dest_end], quote.text) or (
            _relations(source_words, op.src_start, op.src_end)
            != _relations(quote_words, op.dest_start, op.dest_end))
        if _words(source_words[run[0]:run[1]]) == _words(quote_words[run[2]:run[3]]):
            # The run only moves punctuation or a dash ("thing - not" for
            # "thingnot"): the same words, so nothing to count below either;
            # but a minus or comparison sign left out, put in or turned
            # changes its figure.
            differences.append(Difference(tag, " ".join(removed), " ".join(added),
                                          ("number",) if signs_moved else ()))
            continue
        if run == reported:
            continue  # reported whole with the run's first edit
        source_span = _span(source.text, source_words, source_starts, run[0], run[1])
        quote_span = _span(quote.text, quote_words, quote_starts, run[2], run[3])
        if _respaced(source_span, quote_span):
            # The same characters, spaced otherwise ("R وPython", "Title1,"):
            # extraction places spaces by glyph gaps. One edit for the run,
            # nothing to count below.
            differences.append(Difference("replace", source_span, quote_span, (), "spacing"))
            reported = run
            continue
        source_end = source_starts[run[1] - 1] + len(source_words[run[1] - 1]) if run[1] else 0
        if run[1] > run[0] and _superscript_markers(
            source, source_starts[run[0]], source_end, quote_span
        ):
            # "1976" or "1976 3" for "1976³", "TriviaQA" for "TriviaQA⁶": a
            # footnote marker dropped or spaced off, however the word diff split it.
            differences.append(Difference("replace", source_span, quote_span, (),
                                          "footnote-marker"))
            reported = run
            continue
        if _footnote_markers(source, source_words, source_starts, op, added):
            differences.append(Difference(tag, " ".join(removed), " ".join(added), (),
                                          "footnote-marker"))
            continue
        if _list_numbers(source, source_words, source_starts, op):
            differences.append(Difference(tag, " ".join(removed), "", (), "list-number"))
            continue
        split = _markers_then_list_number(source, source_words, source_starts, op)
        if split is not None:
            differences += [
                Difference(tag, " ".join(source_words[op.src_start:split]), "", (),
                           "footnote-marker"),
                Difference(tag, " ".join(source_words[split:op.src_end]), "", (),
                           "list-number")]
            continue
        all_removed += removed
        all_added += added
        reasons = set()
        if _numbers(removed) != _numbers(added) or signs_moved:
            reasons.add("number")
        # A prefix (or suffix) negation is one word swapped for one:
        # "refundable" for "nonrefundable" (small edits only: large ones are
        # absent text).
        if _negations(removed) != _negations(added) or (
            len(removed) <= 3 and len(added) <= 3
            and any(_negating_affix(a, b, functools.partial(
                        _written, source, quote, a, at, b, bt))
                    for a, at in zip(removed, source_starts[op.src_start:op.src_end], strict=True)
                    for b, bt in zip(added, quote_starts[op.dest_start:op.dest_end], strict=True))
        ):
            reasons.add("negation")
        if {w for w in removed if w in _UNITS} != {w for w in added if w in _UNITS}:
            reasons.add("unit")
        if {w for w in removed if w in _MONTHS} != {w for w in added if w in _MONTHS}:
            reasons.add("date")
        if not _same_letters(removed, added) and (any(
            _is_name(source.original, source.to_original(at, at + len(word))[0])
            for word, at in zip(removed, source_starts[op.src_start : op.src_end], strict=True)
        ) or any(
            _is_name(quote.original, quote.to_original(at, at + len(word))[0])
            for word, at in zip(added, quote_starts[op.dest_start : op.dest_end], strict=True)
        )):
            reasons.add("name")
        if (tag == "replace" and not reasons and _changes_a_word(removed, added)
                # "apart" for "a part": a replacement and a deletion that only move a space
                and not _same_letters(source_words[run[0]:run[1]], quote_words[run[2]:run[3]])
                and not _cut_at_edge(source_words[run[0]:run[1]], quote_words[run[2]:run[3]],
                                     run[2] == 0, run[3] == len(quote_words))):
            reasons.add("word")
        differences.append(
            Difference(
                op=tag,
                source=" ".join(removed),
                quote=" ".join(added),
                reasons=tuple(sorted(reasons)),
            )
        )
    if any(d.reasons for d in differences):
        return tuple(_merge_moves(differences))
    # Whole-text checks: words the edits left equal count alike on both sides,
    # so comparing the edited words alone gives the same answer.
    whole: list[str] = []
    if _numbers(all_added) != _numbers(all_removed):
        whole.append("number")
    if _negations(all_added) != _negations(all_removed):
        whole.append("negation")
    if sorted(w for w in all_added if w in _UNITS) != sorted(
        w for w in all_removed if w in _UNITS
    ):
        whole.append("unit")
    if sorted(w for w in all_added if w in _MONTHS) != sorted(
        w for w in all_removed if w in _MONTHS
    ):
        whole.append("date")
    if whole:
        # The change moved across edit boundaries; say so on the first edit.
        first = differences[0]
        differences[0] = Difference(first.op, first.source, first.quote, tuple(sorted(whole)))
    return tuple(_merge_moves(differences))


def _signs(words: list[str], starts: list[int], text: str) -> int:
    """How many of ``words`` (starting at ``starts`` in ``text``) are a minus
    sign before a figure: a "-" glued to the digit after it, with what
    :data:`BEFORE_MINUS` allows before it ("at −20 °C", "(-0.5)", "r=-0.45").
    The tokens part it from its digits, so leaving it out would change no
    number of theirs, though "20 °C" for "−20 °C" is another temperature."""
    return sum(
        1 for word, at in zip(words, starts, strict=True)
        if word == "-" and text[at + 1 : at + 2].isdigit()
        and (at == 0 or text[at - 1] in BEFORE_MINUS)
    )


def _span(text: str, words: list[str], starts: list[int], first: int, last: int) -> str:
    """``text`` from the start of ``words[first]`` to the end of ``words[last - 1]``."""
    if first >= last:
        return ""
    return text[starts[first] : starts[last - 1] + len(words[last - 1])]


_DIGIT_SPACE = re.compile(r"(?<=\d) +(?=\d)")
_DIGITS = re.compile(r"\d+")


def _digit_spaces(text: str) -> list[int]:
    """Where ``text`` has a space between two digits that is not a thousands
    separator (three digits after it), as indices into ``text`` without spaces."""
    found = []
    for space in _DIGIT_SPACE.finditer(text):
        group = _DIGITS.match(text, space.end())
        if group is None or len(group.group()) != 3:
            found.append(space.start() - text.count(" ", 0, space.start()))
    return found


def _respaced(source: str, quote: str) -> bool:
    """Whether ``quote`` is ``source`` with spaces added or taken away, and
    nothing else that matters.

    PDF extractors place spaces by the gaps between glyphs, so a space added
    or dropped between the same characters is extraction noise ("U0" and
    "U 0", "TRUE10" and "TRUE 10"). Not when the figures it touches change:
    a space between two digits counts unless it groups thousands ("1 000"
    is "1000", "10 0" is not "100"); nor when a negation word appears or
    goes ("not able" is not "notable", "can not" is "cannot").

    A hyphen joining a word, which the fold drops ("KRASG12C-mutated" is
    "krasg12cmutated"), survives when an extractor sets a space before it
    ("KRAS G12C -mutated", the gene's variant being raised): before a letter,
    after a space, it is the same hyphen. Before a digit it may be a minus
    sign and counts.
    """
    if not source or _unspaced(source) != _unspaced(quote):
        return False
    if _digit_spaces(source) != _digit_spaces(quote):
        return False
    return len(_negations(_TOKEN.findall(source))) == len(_negations(_TOKEN.findall(quote)))


#: A word's hyphen that a space parts from the word before it ("G12C -mutated").
_SPACED_WORD_HYPHEN = re.compile(r"(?:^|(?<= ))-(?=[^\W\d_])")


def _unspaced(text: str) -> str:
    """``text`` (folded) without its spaces, nor a word's hyphen set off by one."""
    return _SPACED_WORD_HYPHEN.sub("", text).replace(" ", "")


#: Punctuation a reference number is glued to ("fermentation.30 Several").
_MARKER_AFTER = frozenset(".,;)")
_MARKER = re.compile(r"[0-9]{1,3}")


def _footnote_markers(
    source: NormalizedText, words: list[str], starts: list[int], op: Opcode, added: list[str]
) -> bool:
    """Whether the edit only leaves out footnote markers: reference numbers
    of one to three digits glued to the text before them.

    A superscript reference extracts as digits glued to a full stop, comma,
    semicolon or bracket ("fermentation.30 Several", "failure.42"), to a
    lower-case word ("liver12"), or, at a line start, to the capitalised word
    after it ("2Es wird"). A number with a space before it ("within 30 days"),
    or a digit before the punctuation ("5.30"), is no marker: leaving it out
    drops a number.
    """
    text = source.text
    if op.tag == "replace" and len(added) == 1 and op.src_end - op.src_start == 1:
        # "liver12" for "liver": digits glued to a lower-case word of three
        # or more letters ("B12", "CO2", "m2" are names and units, "sin2" a power).
        word, kept = words[op.src_start], added[0]
        digits = word[len(kept):]
        if not (word.startswith(kept) and _MARKER.fullmatch(digits) and kept.isalpha()
                and len(kept) >= 3 and kept not in _UNITS
                and kept not in _EXPONENT_WORDS):
            return False
        at = starts[op.src_start] + len(kept)
        return source.original[source.to_original(at - 1, at)[0]].islower()
    if op.tag != "delete":
        return False
    for i in range(op.src_start, op.src_end):
        word, at = words[i], starts[i]
        if not _MARKER.fullmatch(word):
            return False
        end = at + len(word)
        if at >= 1 and text[at - 1] in _MARKER_AFTER:
            if at >= 2 and text[at - 2].isdigit():
                return False  # "5.30": a decimal
            continue
        # "2Es wird": glued to the capital after it, first on its line.
        o_start, o_end = source.to_original(at, end)
        line_start = o_start == 0 or source.original[o_start - 1] in "\n\r"
        if not (line_start and end < len(text) and text[end].isalpha()
                and source.original[o_end : o_end + 1].isupper()):
            return False
    return True


def _list_numbers(source: NormalizedText, words: list[str], starts: list[int], op: Opcode) -> bool:
    """Whether the edit only leaves out a numbered list's number opening a
    line: "75" between two references whose numbers hang left of their
    entries (on a line of its own, as a text layer gives it, or before the
    entry's first line, as OCR reads it), "2." between two items, which a
    quote running from one entry into the next leaves out, as a copy that
    reads the numbers apart does. Only where the list's next or previous
    number opens a line in the source too: a lone number with no neighbour
    in its list may be a figure (a cell's dose set on its own line), and
    leaving it out drops it; but for a number closed by a stop or a
    bracket, alone on its line, after a line closing a sentence on a
    footnote marker ("errors.¹⏎6.⏎Fentanyl", an EMS protocol's pearls,
    the "5." before it a page back): the item's number, neighbours in
    sight or not."""
    if op.tag != "delete":
        return False
    removed = words[op.src_start : op.src_end]
    # "(10)" as well as "10", "10." and "10)": the bracket closes.
    opening = removed[0] if removed and removed[0] in _CLOSES else ""
    number_and = removed[1:] if opening else removed
    if not 1 <= len(number_and) <= 2 or not _MARKER.fullmatch(number_and[0]):
        return False
    after = number_and[1] if len(number_and) == 2 else ""
    if (opening and after != _CLOSES[opening]) or (not opening and after not in {"", ".", ")"}):
        return False
    at = starts[op.src_start]
    end = starts[op.src_end - 1] + len(removed[-1])
    o_start, o_end = source.to_original(at, end)
    original = source.original
    line_start = original.rfind("\n", 0, o_start) + 1
    closed = bool(opening) or after in {".", ")"}
    if original[line_start:o_start].strip(" \t(") or not _opens_an_entry(original, o_end,
                                                                         closed=closed):
        return False  # not a number opening its line before an entry
    if (closed and re.match(r"[ \t]*\n", original[o_end:])
            and _SENTENCE_MARKED.search(original, 0, line_start)):
        return True
    number = int(number_and[0])
    neighbours = "|".join(str(n) for n in (number - 1, number + 1) if n > 0)
    return any(_opens_an_entry(original, found.end())
               for found in re.finditer(rf"(?m)^[ \t(]*(?:{neighbours})", original))


def _markers_then_list_number(source: NormalizedText, words: list[str], starts: list[int],
                              op: Opcode) -> int | None:
    """Where a deletion that leaves out footnote markers and then the next
    item's list number splits ("standards);⁴⁵ (3) measurable" quoted
    "standards); measurable", a statute's clauses), or None. Each part
    must be what :func:`_footnote_markers` and :func:`_list_numbers` take
    alone."""
    if op.tag != "delete":
        return None
    for split in range(op.src_start + 1, op.src_end):
        markers = Opcode("delete", op.src_start, split, op.dest_start, op.dest_start)
        number = Opcode("delete", split, op.src_end, op.dest_start, op.dest_start)
        if (_footnote_markers(source, words, starts, markers, [])
                and _list_numbers(source, words, starts, number)):
            return split
    return None


#: A line closing a sentence on a footnote marker, as reviewer.ingestion
#: writes one: a letter, a full stop, question or exclamation mark, then
#: superscript digits, at the end of what it is searched in.
_SENTENCE_MARKED = re.compile(
    "[^\\W\\d_][.?!][\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}[ \t]*\n\\Z")


#: A list's number in brackets, as a reference list prints it: "(10)". ("[10]"
#: is one word to the tokenizer, a citation's marker, and is not taken here.)
_CLOSES = {"(": ")"}


#: What follows a list's number that opens a line: the line's end, or its
#: entry's first word, capitalised ("75 Dahlbom I", "2. You must"); "75
#: patients" is a figure the sentence holds. After a number closed by a
#: stop or a bracket the word may be lower-case, as a statute's clauses
#: run on from the sentence that lists them ("(3) measurable risks").
_OPENS_ENTRY = re.compile(r"[.)]?(?:[ \t]*(?:\n|$)|[ \t]+[^\W\d_])")


def _opens_an_entry(text: str, at: int, *, closed: bool = False) -> bool:
    """Whether what follows a number at ``text[at]`` is its line's end or an
    entry's first word (see :data:`_OPENS_ENTRY`); ``closed``: the number's
    stop or bracket is before ``at``."""
    opens = _OPENS_ENTRY.match(text, at)
    if opens is None:
        return False
    last = opens[0][-1:]
    closed = closed or opens[0][:1] in ".)"
    return (opens.end() == len(text) or last.isspace() or last.isupper()
            or (closed and last.isalpha()))


#: A footnote marker as reviewer.ingestion writes a raised, smaller number
#: glued to a word or a number ("TriviaQA⁶", "realization³,⁴", "gates⁵–⁷",
#: "in 1976³"): superscript digits, one to three, in a list or a range. They
#: fold to plain digits, so the glued form quoted is exact.
#: Each number may carry a grade's letters and signs, raised with it, as
#: reviewer.ingestion writes them ("syphilis.¹D", "infections;²B+,³B-").
_SUPERSCRIPT_RUN = re.compile(
    "[\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}(?:[A-Za-z]{1,2}[+-]{0,2}|[+-]{1,2})?"
    "(?:[,\u2010-\u2013-][\u2070\u00b9\u00b2\u00b3\u2074-\u2079]{1,3}"
    "(?:[A-Za-z]{1,2}[+-]{0,2}|[+-]{1,2})?)*"
)
_GRADED = re.compile("[A-Za-z+-]")
_SUPERSCRIPT_FIRST = frozenset("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")
_SUPERSCRIPT_ANY = re.compile("[" + "".join(sorted(_SUPERSCRIPT_FIRST)) + "]")
#: What may close a clause before its marker, folded: punctuation and
#: brackets, closing quotation marks, punctuation again ("syndrome).",
#: "said.\"", "terrorism.''": GPO prints a closing double quotation as two
#: single ones, and a single one may close inside it, so up to three marks).
_CLOSING = r"[.,;:)\]]{0,2}[\"']{0,3}[.,;:)\]]{0,2}"
#: What such a marker may follow, in the folded text: a number of three digits
#: or more (a year, an amount: "Rs 1000¹⁴"; a power of ten with a raised
#: exponent has two, "10⁶"), glued to it, to closing punctuation after it
#: ("Act, 2023.²") or to a space ("Act of 1965 ⁸", as GPO sets it); or a word
#: ending in three letters,
#: then closing punctuation and a space at most ("Act³", "industry.³⁰",
#: "syndrome).⁷", "terrorism.’’ ¹⁶"). After a shorter word it is an exponent or
#: an index ("cm²", "x²", "ρc²"). Only digits written in superscript are
#: looked at: reviewer.ingestion writes a marker so when its glyphs are
#: smaller and raised, never a digit at the line's size.
_MARKED_NUMBER = re.compile(r"(?<![0-9])([0-9]{3,})" + _CLOSING + r" ?$")
_MARKED_WORD = re.compile(r"(?<![^\W_])[^\W_]*[^\W\d_]{3}(?=" + _CLOSING + r" ?$)")
#: Or a short number that labels a part of a text ("Section 2⁴⁶ of the
#: Sherman Act", "Article 9⁴", "§ 12²"): a section is never raised to a
#: power, so the raised number after it is a marker, as after a year.
_MARKED_LABEL = re.compile(
    r"(?<![^\W_])(?:sections?|articles?|art\.|rules?|titles?|chapters?|parts?|clauses?"
    r"|paragraphs?|para\.|§{1,2}) ?[0-9]{1,3}[a-z]?" + _CLOSING + r" ?$")
#: Words of three letters or more after which a raised number is a power:
#: unit symbols and mathematical functions ("mol²", "sin²"). A unit word
#: such as "units" or "days" takes footnotes, not powers.
_EXPONENT_WORDS = frozenset(
    "sin cos tan cot sec csc sinh cosh tanh arcsin arccos arctan log exp det "
    "mol mmol umol nmol pmol min khz mhz ghz kpa mpa gpa kev mev gev".split()
)
#: Or, as affiliations are numbered, it opens a capitalised word of three
#: letters or more after a space or punctuation ("USA; ⁸Department"); a
#: raised number before a symbol is an isotope's mass ("¹³C", "²H").
_OPENS_WORD = re.compile(r"[^\W\d_](?=[^\W\d_]{2})")
#: Markers a single edit run is tried with: each dropped, kept or spaced off.
_MAX_MARKERS = 3


def _marker_sites(
    source: NormalizedText, start: int, end: int
) -> list[tuple[int, int, bool, bool]]:
    """The footnote markers written in superscript inside the folded
    source's ``[start, end)``: their folded ranges, whether a space stands
    between each and its word ("hurricanes ³."), and whether it opens the
    word after it ("⁸Department") rather than closing the one before."""
    o_start, o_end = source.to_original(start, end)
    original, text = source.original, source.text
    sites = []
    for match in _SUPERSCRIPT_RUN.finditer(original, o_start, o_end):
        at = source.offsets.to_normalized_position(match.start())
        stop = source.offsets.to_normalized_position(match.end() - 1) + 1
        if at < start or stop > end:
            continue  # partly outside the run
        before = text[max(0, at - 40) : at]
        if text[stop : stop + 1].isalnum():
            following = _OPENS_WORD.match(original, match.end())
            if (following and following[0].isupper()
                    and not (before and before[-1].isalnum())):
                sites.append((at, stop, False, True))
            continue
        number = _MARKED_NUMBER.search(before) or _MARKED_LABEL.search(before)
        if number:
            sites.append((at, stop, before.endswith(" "), False))
            continue
        word = _MARKED_WORD.search(before)
        if word and word[0] not in _EXPONENT_WORDS:
            spaced = before.endswith(" ")
            if spaced and _GRADED.search(match[0]):
                continue  # "the ¹³C spectrum": an isotope's mass, no graded marker
            sites.append((at, stop, spaced, False))
    return sites


def _superscript_markers(source: NormalizedText, start: int, end: int, quote: str) -> bool:
    """Whether ``quote`` (folded) is the folded source's ``[start, end)``
    with its footnote markers, written in superscript, each dropped
    ("TriviaQA" for "TriviaQA⁶", "1976" for "1976³"), kept, or spaced off
    ("1976 3"), or glued on where the source spaces them off ("19658" for
    "1965 ⁸"), spaces placed as :func:`_respaced` allows.

    A repair only where the source's digits really are superscript after a
    word or a year: "19763" at the line's size is a number, "1976 4",
    "1977" or "TriviaQA7" change one, and an exponent after a unit, a
    short word or a base of two digits ("cm²", "x²", "10²³") is no marker.
    """
    span = source.text[start:end]
    if not any(char.isdigit() for char in span):
        return False
    o_start, o_end = source.to_original(start, end)
    if not _SUPERSCRIPT_ANY.search(source.original, o_start, o_end):
        return False
    sites = _marker_sites(source, start, end)
    if not sites or len(sites) > _MAX_MARKERS:
        return False
    for forms in itertools.product(("dropped", "kept", "spaced"), repeat=len(sites)):
        pieces, cursor = [], start
        for (at, stop, spaced, opens), form in zip(sites, forms, strict=True):
            pieces.append(source.text[cursor:at])
            if form == "dropped":
                if spaced and pieces[-1].endswith(" "):
                    pieces[-1] = pieces[-1][:-1]
            elif opens:
                pieces.append(source.text[at:stop] + (" " if form == "spaced" else ""))
            else:
                if form == "spaced" and spaced and pieces[-1].endswith(" "):
                    # Spaced off in the source ("1965 ⁸"): the other spacing
                    # is the marker glued on, as pdftotext reads it ("19658"),
                    # which "1965⁸" also allows.
                    pieces[-1] = pieces[-1][:-1]
                else:
                    pieces.append(" " if form == "spaced" else "")
                pieces.append(source.text[at:stop])
            cursor = stop
        pieces.append(source.text[cursor:end])
        candidate = "".join(pieces)
        if candidate == quote or (candidate and _respaced(candidate, quote)):
            return True
        # A list bullet after the marker ("employees;⁸ • a mass layoff") is
        # layout, not words: a quote that runs on into the next item drops it.
        unbulleted = _BULLET_RUN.sub(" ", candidate).strip()
        if unbulleted != candidate and (unbulleted == quote or _respaced(unbulleted, quote)):
            return True
    return False


#: List bullets as extracted: the bullet itself and the Symbol and Wingdings
#: fonts' private-use code points for it, with the spaces around them.
_BULLET_RUN = re.compile(" *[\u2022\u25aa\u25e6\u2023\uf0b7\uf0a7\uf0d8] *")


def _significant(token: str) -> bool:
    """A word, number or unit sign, as against punctuation."""
    return token[0].isalnum() or token in _UNITS


def _groups(tokens: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    """``tokens`` as words and the punctuation around them: ``gaps[i]`` comes
    before ``words[i]``, ``gaps[-1]`` after the last word. Words joined by a
    dash are one word ("thing - not"): a hyphen typed for it joins them."""
    gaps: list[list[str]] = [[]]
    words: list[list[str]] = []
    i = 0
    while i < len(tokens):
        if not _significant(tokens[i]):
            gaps[-1].append(tokens[i])
            i += 1
            continue
        word = [tokens[i]]
        i += 1
        while i + 1 < len(tokens) and tokens[i] == "-" and _significant(tokens[i + 1]):
            word += tokens[i : i + 2]
            i += 2
        words.append(word)
        gaps.append([])
    return gaps, words


def _words(tokens: list[str]) -> list[str]:
    """The words of ``tokens`` (see :func:`_groups`), without their punctuation.

    :func:`_groups`' words with their dashes dropped, and an abbreviation's
    inner full stops ("e.g" is "eg"), in one pass that builds
    no gaps (compare() calls this for every quote it compares)."""
    words = []
    i, count = 0, len(tokens)
    while i < count:
        word = tokens[i]
        i += 1
        if not (word[0].isalnum() or word in _UNITS):
            continue
        if "." in word and word[0].isalpha():
            word = word.replace(".", "")
        # A dash is never a word, so dropping it keeps every other token.
        while i + 1 < count and tokens[i] == "-" and _significant(tokens[i + 1]):
            word += tokens[i + 1]
            i += 2
        words.append(word)
    return words


def _punctuation_edits(source_words: list[str], quote_words: list[str]) -> list[Difference]:
    """Edits between two token lists with the same :func:`_words`: gap by gap
    and word by word, none of them touching meaning."""
    source_gaps, source_groups = _groups(source_words)
    quote_gaps, quote_groups = _groups(quote_words)
    pairs = []  # in text order: gap, word, gap, word, ..., gap
    for i in range(len(source_groups)):
        pairs += [(source_gaps[i], quote_gaps[i]), (source_groups[i], quote_groups[i])]
    pairs.append((source_gaps[-1], quote_gaps[-1]))
    edits = []
    for removed, added in pairs:
        if removed == added:
            continue
        op = "insert" if not removed else "delete" if not added else "replace"
        edits.append(Difference(op, " ".join(removed), " ".join(added), ()))
    return edits


def _merge_moves(differences: list[Difference]) -> list[Difference]:
    """An insertion and a deletion of the same text as one move: the text is
    on both sides, in another place ("adds “,”; drops “,”" said nothing)."""
    merged = list(differences)
    i = 0
    while i < len(merged):
        first = merged[i]
        if first.op in ("insert", "delete"):
            other = "delete" if first.op == "insert" else "insert"
            text = first.quote or first.source
            for j in range(i + 1, len(merged)):
                second = merged[j]
                if second.op == other and (second.quote or second.source) == text:
                    reasons = tuple(sorted({*first.reasons, *second.reasons}))
                    merged[i] = Difference("move", text, text, reasons)
                    del merged[j]
                    break
        i += 1
    return merged


def _same_letters(removed: list[str], added: list[str]) -> bool:
    """Whether an edit only moved punctuation or spacing."""
    def letters(words: list[str]) -> str:
        return "".join(c for c in "".join(words) if c.isalnum())

    return letters(removed) == letters(added)


#: Negations that reverse the words right after them. Deliberately narrow:
#: "except", "unless", "excluding" or "lack" qualify or name an absence, they
#: do not flip the polarity of the quoted words ("except that the deadline is
#: Friday" states the deadline). Any "n't" word counts too.
_CONTEXT_NEGATIONS = frozenset(("not", "no", "never", "cannot", "without", "nor"))
#: Words a negation reaches across to govern what follows: "not even",
#: "not necessarily", "cannot be", "does not remedy it".
_REACHED_ACROSS = frozenset(
    ("even", "necessarily", "always", "ever", "yet", "be", "been", "being", "it")
)
#: Tokens that end the reach of a negation: clause punctuation, brackets,
#: quotation marks and a spaced dash.
_CONTEXT_STOPS = frozenset(".,;:!?()[]{}\"-")
#: Words between a negation and the quoted words it may still govern: "Do not
#: send to the regional office…" governs "the regional office" only for an
#: answer that says "send to" itself (see :func:`words_between`).
_MAX_BETWEEN = 2
#: Normalised characters before a window read for a negation: a sentence's
#: head and a parenthetical ("No pregnant woman, whatever her age or stage, ").
_LOOKBACK = 100
_LINE_BREAK_CHARS = frozenset("\n\r\u2028\u2029\x0b\x0c\x85")


def _negates(word: str) -> bool:
    return word in _CONTEXT_NEGATIONS or word.endswith("n't")


def _line_ends(source: NormalizedText, start: int, end: int) -> bool:
    """Whether the original text behind normalised ``[start, end)`` (the space
    between two words) ends a line of its own: a blank line, or a line break
    before a capital (a heading, a list item, a title, a table cell). A break
    before a lower-case word is only prose wrapped by the page, and a
    negation reaches across it ("should not\nbe started")."""
    if start >= end:
        return False
    o0, o1 = source.to_original(start, end)
    gap = source.original[o0:o1]
    if gap == " ":  # nearly every gap between two words
        return False
    breaks = sum(char in _LINE_BREAK_CHARS for char in gap)
    if not breaks:
        return False
    return breaks > 1 or (o1 < len(source.original) and source.original[o1].isupper())


#: Most words of a parenthetical a sentence-initial negation reaches across:
#: "under any circumstances", "even in an emergency", "whatever their age".
_PARENTHETICAL_WORDS = 8
#: Most words of a sentence's head up to its negation: "Never", "Do not",
#: "Patients must never", "No pregnant woman".
_HEAD_WORDS = 4
#: First words of a head that is a subordinate clause, not the sentence's
#: own negation: "If not treated, or if treated late, the infection spreads".
_SUBORDINATORS = frozenset((
    "if", "when", "whenever", "whether", "unless", "although", "though", "because", "since",
    "while", "whereas", "once", "until", "as", "where", "after", "before", "even", "or",
))
#: Nouns after a sentence-initial "No" that make an idiom, not a negated
#: subject: "No doubt, as the authors say, the dose is safe".
_NO_IDIOMS = frozenset(("doubt", "matter", "wonder", "question", "thanks"))


def _negating_head(words: Sequence[str]) -> bool:
    """Whether ``words`` (a sentence's first words, up to the mark that opens
    a parenthetical) hold a negation that governs the rest of the sentence:
    "Do not", "Never", "Patients must never", "No patient". Not a subordinate
    clause ("If not treated"), an interjection ("No, …") or an idiom ("No
    doubt")."""
    if not 0 < len(words) <= _HEAD_WORDS or words[0] in _SUBORDINATORS:
        return False
    last = words[-1]
    return (last in ("not", "never", "cannot", "nor") or last.endswith("n't")
            or (words[0] == "no" and 2 <= len(words) <= 3 and words[1] not in _NO_IDIOMS))


#: Marks that close a parenthetical, and the mark that opens each.
_PARENTHESES = {",": ",", ")": "(", "]": "[", "-": "-"}


def _joined(text: str, token: re.Match[str]) -> bool:
    """Whether ``token`` is a hyphen inside a word ("life-threatening")."""
    return (token.group() == "-" and token.start() > 0 and text[token.start() - 1] != " "
            and token.end() < len(text) and text[token.end()] != " ")


def _words_back(source: NormalizedText, tokens: Sequence[re.Match[str]], at: int,
                following: int, most: int) -> int:
    """The index of the token before the run of words that ends at
    ``tokens[at]`` (-1 at the start of ``tokens``): back over at most
    ``most`` words, to punctuation or a line that ends on its own."""
    while at >= 0 and most > 0:
        token = tokens[at]
        if not (token.group()[0].isalnum() or _joined(source.text, token)) or _line_ends(
                source, token.end(), following):
            break
        following = token.start()
        at -= 1
        most -= 1
    return at


def _sentence_head(
    source: NormalizedText, tokens: Sequence[re.Match[str]], opens: int, whole: bool
) -> int | None:
    """The index in ``tokens`` of the first word of a sentence whose head,
    ending at ``tokens[opens]`` (the mark that opens a parenthetical), is a
    negation that governs the sentence (:func:`_negating_head`). ``whole``:
    ``tokens`` reach back to the start of the text (else the head must start
    after a mark or a line of its own, inside them)."""
    mark = tokens[opens]
    if mark.group() in "([" and mark.start() > 0 and source.text[mark.start() - 1] != " ":
        return None  # glued to the word before: a function's argument, "nor(s)"
    at = _words_back(source, tokens, opens - 1, mark.start(), _HEAD_WORDS + 1)
    if at < 0:
        if not whole:
            return None  # the sentence starts further back than was read
    elif tokens[at].group() == "," or (
            tokens[at].group()[0].isalnum()
            and not _line_ends(source, tokens[at].end(), tokens[at + 1].start())):
        return None  # a clause of a longer sentence: "If the patient does not, …, start"
    return at + 1 if _negating_head([t.group() for t in tokens[at + 1 : opens]]) else None


#: Words that make a parenthetical of their own, never an item of a list:
#: "No patient, however, should drive, or…".
_ASIDES = frozenset((
    "however", "therefore", "moreover", "furthermore", "though", "ever", "even", "again",
    "then", "thus", "indeed", "also", "still", "please", "alone",
))


def _series(source: NormalizedText, head: Sequence[str], aside: Sequence[str], after: int) -> bool:
    """Whether a head, a comma-delimited ``aside`` and the words from
    ``after`` (where the aside's closing comma ends) are items of a list,
    not a negation and its parenthetical: "no impairment, minimal, moderate,
    or marked", "never, rarely, sometimes, often". The head can be an item
    (one word, or "no" and a noun), the aside is a word or two, and so is
    the next item, which a comma ends."""
    if (len(head) > 1 and head[0] != "no") or not 0 < len(aside) <= 2 or (
            len(aside) == 1 and aside[0] in _ASIDES):
        return False
    for words, token in enumerate(_TOKEN.finditer(source.text, after, after + 60)):
        if not token.group()[0].isalnum():
            return words > 0 and token.group() == ","
        if words == 2:
            return False
    return False


def _parenthetical_negation(
    source: NormalizedText, before: Sequence[re.Match[str]], whole: bool, start: int, end: int
) -> int | None:
    """The index in ``before`` (tokens of ``source.text`` up to the window at
    ``[start, end)``) of the first word of a sentence-initial negation cut off
    from the window by a parenthetical: "Do not, under any circumstances, |
    start treatment", "Never (even in an emergency) | exceed 4 g", "Never, |
    even in an emergency, exceed 4 g". The mark that closes such a
    parenthetical does not end the clause: the negation governs what follows
    it. A list whose first item is a negation ("no impairment, minimal,
    moderate, or marked") is not one (:func:`_series`).
    """
    if not before or _line_ends(source, before[-1].end(), start):
        return None
    words = [t.group() for t in before]
    mark = words[-1]
    if mark in _PARENTHESES and not _joined(source.text, before[-1]):
        # The window follows the parenthetical's closing mark.
        at = _words_back(source, before, len(before) - 2, before[-1].start(),
                         _PARENTHETICAL_WORDS)
        if 0 <= at < len(before) - 2 and words[at] == _PARENTHESES[mark]:
            head = _sentence_head(source, before, at, whole)
            if head is not None and not (mark == "," and _series(
                    source, words[head:at], words[at + 1 : -1], before[-1].end())):
                return head
    if mark not in _PARENTHESES.values():
        return None
    # The window starts with the parenthetical and runs past its closing mark.
    inside = list(itertools.islice(_TOKEN.finditer(source.text, start, end),
                                   _PARENTHETICAL_WORDS + 2))
    closes = next((i for i, token in enumerate(inside)
                   if not (token.group()[0].isalnum() or _joined(source.text, token))), None)
    if (closes is None or closes == 0 or closes + 1 == len(inside)
            or _PARENTHESES.get(inside[closes].group()) != mark):
        return None
    head = _sentence_head(source, before, len(before) - 1, whole)
    if head is None or (mark == "," and _series(
            source, words[head:-1], [t.group() for t in inside[:closes]], inside[closes].end())):
        return None
    return head


def negation_before(source: NormalizedText, alignment: Alignment) -> Difference | None:
    """A negation just outside the aligned window that governs the quoted words.

    Quoting "start treatment on a single reading" from "Do not start treatment
    on a single reading" contains the words exactly and reverses them; so does
    a quote that stops at "should" in "should not be scored". Such a quote is
    reported as altered, naming the negation it left out.

    Before the window, the negation must be next to the quoted words, or
    separated from them only by words it reaches across ("not even", "cannot
    be"); a negation up to :data:`_MAX_BETWEEN` other words back is returned
    with those words ("not send to"), and governs the quote only when the
    answer says them itself (:func:`words_between`). After the window, only
    "not" or "never" right after the last quoted word counts: it attaches to
    that word ("should | not"), whereas "is not a member" after "the customer
    who" negates words the quote left out. Clause punctuation and a line that
    ends on its own (:func:`_line_ends`) stop the search on either side.
    """
    text = source.text
    start, end = alignment.norm_start, alignment.norm_end
    if start < end and text[start] not in _CONTEXT_STOPS:
        lookback = max(0, start - _LOOKBACK)
        before = list(_TOKEN.finditer(text, lookback, start))
        if before and before[0].start() == lookback > 0 and text[lookback - 1] != " ":
            before = before[1:]  # cut by the lookback's edge: not a word of the text
        across = _parenthetical_negation(source, before, lookback == 0, start, end)
        if across is not None:
            return Difference(op="omit-before", quote="", reasons=("negation",),
                              source=text[before[across].start() : before[-1].end()])
        between: list[str] = []  # the words from here to the quote
        others = 0
        following = start
        for token in reversed(before[-(2 * _MAX_BETWEEN + 4):]):
            word = token.group()
            if word in _CONTEXT_STOPS or _line_ends(source, token.end(), following):
                break
            if _negates(word):
                return Difference(op="omit-before", source=" ".join([word, *between]),
                                  quote="", reasons=("negation",))
            if word not in _REACHED_ACROSS:
                if others == _MAX_BETWEEN:
                    break
                others += 1
            between.insert(0, word)
            following = token.start()
    if start < end and text[end - 1] not in _CONTEXT_STOPS:
        after = _TOKEN.search(text, end, end + 30)
        if (after is not None and after.group() in ("not", "never")
                and not _line_ends(source, end, after.start())):
            return Difference(op="omit-after", source=after.group(), quote="",
                              reasons=("negation",))
    return None


def words_between(difference: Difference) -> tuple[str, ...]:
    """The words between an ``omit-before`` difference's negation and the
    quote, other than those it reaches across: "send", "to" for "not send to";
    none for "not" or "not even be". A negation separated from the quote by
    such words governs it only when the answer repeats them."""
    if difference.op != "omit-before" or across_parenthetical(difference):
        return ()
    return tuple(w for w in difference.source.split()[1:] if w not in _REACHED_ACROSS)


def across_parenthetical(difference: Difference) -> bool:
    """Whether an ``omit-before`` difference is a sentence's negating head and
    the parenthetical after it ("do not, under any circumstances,"): it
    governs the quote whatever words the answer repeats."""
    return difference.op == "omit-before" and any(
        token.group() in _PARENTHESES and not _joined(difference.source, token)
        for token in _TOKEN.finditer(difference.source))


def word_swap(
    quote: NormalizedText, source: NormalizedText, alignment: Alignment, *, whole: bool = False,
    compared: tuple[int, int] | None = None,
) -> tuple[Alignment, tuple[Difference, ...]] | None:
    """The source's words around ``alignment`` with one word of the quote put
    in for another, when that changes the meaning: the window of the source's
    tokens and its differences.

    In a short quote one word decides the score: "persuasion (film)" for
    "persuasion (novel)" scores 0.83, below any useful threshold, and the
    window with the best similarity, "persuasion (", leaves the source's word
    out, so the quote only seems to add "film )". Token for token, the quote
    is the source with "film" for "novel": an altered quote, not an absent
    one nor a harmless addition.

    With ``whole`` (for a quote below the threshold, where similarity alone
    does not say it was taken from here) the window must also be a whole item
    of the source: a title, a heading, a list entry or a clause, bounded by
    punctuation or a line of its own on both sides. "Employer match vests
    immediately" is not "employer match vests after" two years of service
    altered: it is not in the source.

    ``compared`` is a normalised window whose :func:`compare` is known to
    name no change of meaning (the caller's own alignment, compared already):
    it is skipped rather than compared again.
    """
    quote_words: list[str] = _TOKEN.findall(quote.text)
    size = len(quote_words)
    text = source.text
    # The source's tokens from a quote's length before the window to one after.
    lo = max(0, alignment.norm_start - len(quote.text))
    tokens = list(_TOKEN.finditer(text, lo, min(len(text), alignment.norm_end + len(quote.text))))
    if tokens and tokens[0].start() == lo > 0 and text[lo - 1].isalnum():
        tokens = tokens[1:]  # cut by the edge of the slice
    if tokens and tokens[-1].end() < len(text) and text[tokens[-1].end()].isalnum():
        tokens = tokens[:-1]
    words = [token.group() for token in tokens]
    # Windows that overlap the alignment: the passage it found.
    lowest = next((i for i, t in enumerate(tokens) if t.end() > alignment.norm_start), 0)
    for first in range(max(0, lowest - size + 1), len(tokens) - size + 1):
        if tokens[first].start() >= alignment.norm_end:
            break
        # With one word swapped, the first or the last word is the source's
        # (a one-word quote aside): a cheap test that skips most windows.
        if size > 1 and (words[first] != quote_words[0]
                         and words[first + size - 1] != quote_words[-1]):
            continue
        swapped: list[tuple[str, str]] = []
        for source_word, word in zip(words[first : first + size], quote_words, strict=True):
            if source_word != word:
                swapped.append((source_word, word))
                if len(swapped) > 1:
                    break
        if len(swapped) != 1 or not all(any(c.isalnum() for c in w) for w in swapped[0]):
            continue
        if not any(w.isalnum() and not w.isdigit() for w in quote_words if w != swapped[0][1]):
            continue  # nothing else of the quote is a word the source shares
        start, end = tokens[first].start(), tokens[first + size - 1].end()
        if (start, end) == compared:
            continue  # compare() would return what it did for the caller: no change
        if compared is not None and _drops_one(words, quote_words, first, compared, tokens):
            # Not a swap: the quote is the source with one word left out, in
            # the window the caller compared ("duration.12 Regulations"
            # quoted "duration. Regulations"; the window cut one word short
            # reads "12" for "regulations"). compare() judged that deletion
            # there, as a footnote marker or a change of meaning.
            continue
        if whole and not _bounded(source, tokens, first, first + size):
            continue
        found = _alignment(source, fuzz.ratio(quote.text, text[start:end]) / 100, False,
                           start, end)
        differences = compare(quote, source, found)
        if any(d.reasons for d in differences):
            return found, differences
    return None


def _drops_one(
    words: list[str], quote_words: list[str], first: int, compared: tuple[int, int],
    tokens: list[re.Match[str]],
) -> bool:
    """Whether ``quote_words`` are ``words`` from ``first`` on with the one
    word that differs left out (the quote's word there is the source's next
    or previous one), all inside the ``compared`` window."""
    size = len(quote_words)
    at = next(k for k in range(size) if words[first + k] != quote_words[k])
    after = first + size  # the source's token after the window
    if (after < len(words) and quote_words[at:] == words[first + at + 1 : after + 1]
            and compared[0] <= tokens[first].start() and tokens[after].end() <= compared[1]):
        return True
    before = first - 1
    return (before >= 0 and quote_words[: at + 1] == words[before : first + at]
            and compared[0] <= tokens[before].start()
            and tokens[first + size - 1].end() <= compared[1])


def _bounded(source: NormalizedText, tokens: list[re.Match[str]], first: int, last: int) -> bool:
    """Whether ``tokens[first:last]`` stand as an item of their own: on each
    side the text's edge, clause punctuation (theirs or the next token) or a
    line that ends on its own."""
    text = source.text
    start, end = tokens[first].start(), tokens[last - 1].end()
    earlier = [tokens[first - 1]] if first > 0 else list(
        _TOKEN.finditer(text, max(0, start - 40), start))
    before = earlier[-1] if earlier else None
    after = tokens[last] if last < len(tokens) else _TOKEN.search(text, end, end + 40)
    open_before = before is None or (
        before.group() in _CONTEXT_STOPS or tokens[first].group() in _CONTEXT_STOPS
        or _line_ends(source, before.end(), start)
    )
    open_after = after is None or (
        after.group() in _CONTEXT_STOPS or tokens[last - 1].group() in _CONTEXT_STOPS
        or _line_ends(source, end, after.start())
    )
    return open_before and open_after


def rough_window(
    quote: str, text: str, *, score_cutoff: float, seed_min_chars: int | None,
    meter: WorkMeter | None,
) -> tuple[int, int, float] | None:
    """Where in ``text`` the quote roughly sits, ``(start, end, score 0..100)``:
    rapidfuzz's ``partial_ratio_alignment`` for a quote under
    ``seed_min_chars`` (``None``: always), else :func:`seeded_window`. ``None``
    below ``score_cutoff`` (0..100). ``meter`` is charged first."""
    seeded = seed_min_chars is not None and len(quote) >= seed_min_chars
    if meter is not None:
        meter.charge(alignment_work(len(quote), len(text), seeded=seeded))
    if seeded:
        found = seeded_window(quote, text)
        if found is None or found[3] * 100 < score_cutoff:
            return None
        return found[1], found[2], found[3] * 100
    window = fuzz.partial_ratio_alignment(quote, text, score_cutoff=score_cutoff)
    if window is None:
        return None
    return window.dest_start, window.dest_end, window.score
