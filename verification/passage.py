"""The passage of a source that best supports a paraphrased sentence.

Most real answers quote nothing: a sentence carries a marker and says in its
own words what the source says. This module finds, in the cited source, the
one to three adjacent sentences that share most of the sentence's content
words, each word weighted by its rarity in that source (a BM25-style inverse
document frequency over the source's own sentences), with numbers and names
weighted higher and word pairs kept in order earning a little more.

It locates; it does not judge. ``support`` is the weighted share of the
sentence's content words the passage holds: evidence that the passage is the
one the sentence paraphrases, never that the sentence is true.

Offsets index the source's original text (Python code points).
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .normalize import fold_one_for_one
from .sentences import split_sentences

__all__ = [
    "STOPWORDS",
    "Passage",
    "SourceSentences",
    "Term",
    "content_terms",
    "locate_passage",
    "passage_around",
    "sentence_spans",
    "source_sentences",
    "stem",
]

#: Function words that say nothing about which passage a sentence paraphrases.
STOPWORDS = frozenset(
    """
    a an the and or but nor so yet of in on at to for from by with as into onto upon about
    over under than then that this these those there here it its it's they them their theirs
    he him his she her hers we us our ours you your yours i me my mine who whom whose which
    what when where why how is are was were be been being am do does did doing done have has
    had having will would shall can could may might must should also just only very more most
    much many such some any each every other another same both either neither all few own
    through during before after above below between out off again further once s t
    not no yes if because while until via per among within without whether
    one ones like well
    """.split()
)

#: Words, numbers with their separators ("41.3", "1,000"), and hyphenated compounds.
_WORD = re.compile(r"\d+(?:[.,:/]\d+)*|[^\W\d_]+(?:['\u2019][^\W\d_]+)?")
#: Inflections stripped before a word is truncated to :data:`_STEM_CHARS`.
_SUFFIXES = ("'s", "\u2019s", "ies", "ied", "ing", "ed", "es", "s", "ly")
_STEM_CHARS = 6


@dataclass(frozen=True, slots=True)
class Term:
    """One word of a text: where it is, as written, and the key it is compared by."""

    start: int
    end: int
    text: str
    key: str
    number: bool
    capital: bool


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A crude stem: one inflection stripped, then the first six letters.
    (Memoised: a pure function of a word, called for every word of every
    passage.)"""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:_STEM_CHARS]


def content_terms(text: str, *, start: int = 0, end: int | None = None,
                  folded: str | None = None) -> list[Term]:
    """The content words of ``text[start:end]`` with offsets into ``text``:
    stopwords left out, each keyed by a crude stem (inflection stripped,
    truncated to six letters) so "vests"/"vested" and "election"/"elected"
    meet. Numbers are keyed by their digits without separators. ``folded``:
    ``text``'s one-for-one fold, when the caller has it (a source split into
    units folds once, not once a unit)."""
    end = len(text) if end is None else end
    if folded is None:
        # Fold the stretch alone (and the character before, which the
        # pattern's start reads): the same offsets once shifted back.
        base = max(0, start - 1)
        folded, start, end, shift = fold_one_for_one(text[base:end]), start - base, end - base, base
    else:
        shift = 0
    terms = []
    for match in _WORD.finditer(folded, start, end):
        word = match.group()
        number = word[0].isdigit()
        if not number and (word in STOPWORDS or len(word) < 2):
            continue
        key = _SEPARATORS.sub("", word) if number else stem(word)
        a, b = match.start() + shift, match.end() + shift
        terms.append(Term(a, b, text[a:b], key, number, not number and text[a].isupper()))
    return terms


_SEPARATORS = re.compile(r"[.,:/]")


@dataclass(frozen=True, slots=True)
class SourceSentences:
    """A source split into sentence units, each with its content terms, and the
    inverse document frequency of every key over those units."""

    text: str
    spans: tuple[tuple[int, int], ...]
    terms: tuple[tuple[Term, ...], ...]
    idf: dict[str, float]
    unseen_idf: float


#: A line break ends a source sentence after these, or after a short line (a
#: heading, a list item); otherwise it is a wrapped line of running text.
_LINE_END = frozenset('.!?:;"\u201d)')
_SHORT_LINE = 50


def _unwrapped(text: str) -> str:
    """``text`` with the line breaks of wrapped running text turned into
    spaces (same length, so offsets hold): a PDF breaks every line, and a
    sentence runs across them."""
    chars = list(text)
    line_start = 0
    for index, char in enumerate(text):
        if char != "\n":
            continue
        line = text[line_start:index].rstrip()
        following = text[index + 1:index + 2]
        if (line and following and following != "\n" and line[-1] not in _LINE_END
                and len(line.strip()) >= _SHORT_LINE):
            chars[index] = " "
        line_start = index + 1
    return "".join(chars)


def sentence_spans(
    text: str, *, start: int = 0, end: int | None = None, max_unit_chars: int = 600
) -> list[tuple[int, int]]:
    """The sentence units of ``text[start:end]`` as ranges of ``text``. A
    wrapped line runs on (see :func:`_unwrapped`); a unit longer than
    ``max_unit_chars`` (a table, a run-on list) is cut at a word edge."""
    spans: list[tuple[int, int]] = []
    for sentence in split_sentences(_unwrapped(text[start:end])):
        unit_start, unit_end = start + sentence.start, start + sentence.end
        while unit_end - unit_start > max_unit_chars:
            cut = text.rfind(" ", unit_start + max_unit_chars // 2, unit_start + max_unit_chars)
            cut = cut if cut > unit_start else unit_start + max_unit_chars
            spans.append((unit_start, cut))
            unit_start = cut + 1
        if unit_start < unit_end:
            spans.append((unit_start, unit_end))
    return spans


def source_sentences(
    text: str, *, skip: Sequence[tuple[int, int]] = (), max_unit_chars: int = 600,
) -> SourceSentences:
    """Split a source into sentence units (:func:`sentence_spans`) and weigh
    its words. ``skip`` ranges (page furniture) hold no terms."""
    spans = sentence_spans(text, max_unit_chars=max_unit_chars)
    folded = fold_one_for_one(text)
    terms: list[tuple[Term, ...]] = []
    for unit_start, unit_end in spans:
        found = content_terms(text, start=unit_start, end=unit_end, folded=folded)
        terms.append(tuple(t for t in found if not any(s <= t.start < e for s, e in skip))
                     if skip else tuple(found))
    count = len(spans)
    frequency: dict[str, int] = {}
    for held in terms:
        for key in {t.key for t in held}:
            frequency[key] = frequency.get(key, 0) + 1
    idf = {key: math.log(1 + (count - df + 0.5) / (df + 0.5)) for key, df in frequency.items()}
    return SourceSentences(text, tuple(spans), tuple(terms), idf,
                           math.log(1 + (count + 0.5) / 0.5))


@dataclass(frozen=True, slots=True)
class Passage:
    """The source's best-supporting passage for a sentence.

    ``source_start``/``source_end`` index the source's original text;
    ``shared`` are ranges of it holding words the sentence shares; ``missing``
    the sentence's content words (as written) the passage lacks; ``support``
    the weighted share of the sentence's content words the passage holds
    (None for a quote's passage, which its match places)."""

    source_start: int
    source_end: int
    support: float | None
    shared: tuple[tuple[int, int], ...]
    missing: tuple[str, ...]


#: Weight multipliers: a number or a name says more about which passage a
#: sentence paraphrases than a common word does.
_NUMBER_WEIGHT = 3.0
_NAME_WEIGHT = 1.3
#: Share of the score given to word pairs kept in the sentence's order.
_ORDER_WEIGHT = 0.15
#: What each sentence past the first costs a window: a longer window must
#: hold more of the sentence to be preferred.
_EXTRA_SENTENCE_COST = 0.0


def _weights(claim: Sequence[Term], sentences: SourceSentences) -> dict[str, float]:
    weights: dict[str, float] = {}
    for term in claim:
        weight = sentences.idf.get(term.key, sentences.unseen_idf)
        if term.number:
            weight *= _NUMBER_WEIGHT
        elif term.capital:
            weight *= _NAME_WEIGHT
        weights[term.key] = max(weights.get(term.key, 0.0), weight)
    return weights


def locate_passage(
    claim: str,
    sentences: SourceSentences,
    *,
    max_sentences: int = 3,
) -> Passage | None:
    """The one to ``max_sentences`` adjacent source sentences that best hold
    ``claim``'s content words, or None when the claim has none or the source
    shares none of them."""
    claim_terms = content_terms(claim)
    if not claim_terms or not sentences.spans:
        return None
    weights = _weights(claim_terms, sentences)
    total = sum(weights.values())
    pairs = {(a.key, b.key) for a, b in itertools.pairwise(claim_terms)
             if a.key != b.key}
    candidates = range(len(sentences.spans))
    unit_keys = [{t.key for t in unit} for unit in sentences.terms]
    best: tuple[float, int, int] | None = None
    for first in candidates:
        if not unit_keys[first] & weights.keys():
            continue
        keys: set[str] = set()
        for last in range(first, min(first + max_sentences, len(sentences.spans))):
            keys |= unit_keys[last]
            held = sum(w for k, w in weights.items() if k in keys) / total
            order = _order_share(pairs, sentences.terms[first:last + 1])
            score = ((1 - _ORDER_WEIGHT) * held + _ORDER_WEIGHT * order
                     - _EXTRA_SENTENCE_COST * (last - first))
            if best is None or score > best[0] + 1e-9:
                best = (score, first, last + 1)
    if best is None:
        return None
    return _passage(claim_terms, sentences, best[1], best[2], weights, total)


def passage_around(text: str, start: int, end: int, *, margin: int = 120) -> Passage:
    """The sentences of ``text`` that hold ``text[start:end]`` (a quote's
    match): the quote's passage, for context and for the sentence's own
    facts. Only ``margin`` characters either side are split and no word is
    weighed, so this costs a fraction of :func:`locate_passage`: a quote's
    words are its match, so it has no ``support``, ``shared`` or ``missing``."""
    lo, hi = max(0, start - margin), min(len(text), end + margin)
    units = sentence_spans(text, start=lo, end=hi, max_unit_chars=hi - lo + 1)
    inside = [(s, e) for s, e in units if s < end and e > start]
    first, last = (inside[0][0], inside[-1][1]) if inside else (start, end)
    return Passage(source_start=min(first, start), source_end=max(last, end), support=None,
                   shared=(), missing=())


def _order_share(pairs: set[tuple[str, str]], units: Sequence[Sequence[Term]]) -> float:
    if not pairs:
        return 0.0
    found = set()
    for unit in units:
        for a, b in itertools.pairwise(unit):
            if (a.key, b.key) in pairs:
                found.add((a.key, b.key))
    return len(found) / len(pairs)


def _passage(
    claim_terms: Sequence[Term], sentences: SourceSentences, first: int, last: int,
    weights: dict[str, float], total: float,
) -> Passage:
    keys = {t.key for unit in sentences.terms[first:last] for t in unit}
    shared = tuple((t.start, t.end) for unit in sentences.terms[first:last] for t in unit
                   if t.key in weights)
    missing = tuple(dict.fromkeys(t.text for t in claim_terms if t.key not in keys))
    held = sum(w for k, w in weights.items() if k in keys)
    return Passage(
        source_start=sentences.spans[first][0],
        source_end=sentences.spans[last - 1][1],
        support=held / total if total else 0.0,
        shared=shared,
        missing=missing,
    )
