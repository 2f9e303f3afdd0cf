"""Reading a source whose text came from OCR: the letters a scan's reader
confuses, and a quote put in the OCR's spelling where only those differ.

A page with no text layer is read by OCR, which misreads letters that look
alike in print: "Meaicine" for "Medicine", "CLer" for "CLcr", "ABSSSJ" for
"ABSSSI", "Supp!" for "Suppl.". A model quoting the page as printed (or
another extractor's reading of it) then differs from our text by those
letters alone. Where a source says which of its ranges came from OCR
(:attr:`~verification.pool.Source.ocr`), a quote whose differing words are
each the OCR's word with look-alike letters read otherwise is checked again
in the OCR's spelling, and the verdict names every misread it leaned on.

Never a figure: a word of the quote that holds a digit is never respelt, so
a changed number is still a changed number; but for an identifier, a word of
two letters or more besides its digits ("ABL1" read "ABLI" on a scanned
guideline), whose letters say it is a name and not a quantity; a section
sign read as an eight right before the same section number in both ("nach
8 22 Absatz 5" for "nach § 22 Absatz 5"); an ordinal indicator read as
a digit right after the same number and point in both (a Spanish statute's
"1.2 La atención" for "1.ª La atención"); and a figure's digits split by a
space, all there in order ("TAS-1 02" for "TAS-102"). Never a negation: a word that
negates (or whose negating prefix comes or goes) is never respelt. A name is
respelt only where its letters are OCR look-alikes, as any word is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz.distance import Levenshtein

from .lexicon import negated_by_prefix
from .normalize import NormalizedText

__all__ = ["LOOK_ALIKES", "Misread", "misread_pairs", "ocr_spelling"]

#: Letters OCR reads one for another, as (one, other), either way round, in
#: the folded (lower-case) text the matcher compares. From the image-only
#: pages of ``bench/generalise.py`` (Tesseract 5 on 300-dpi renderings): I
#: read as J ("ABSSSJ"), c as e ("CLer"), d as a ("Meaicine"), l as ! at a
#: word's end ("Supp!"), S as $ in an initial ("Lee, $.H." for "Lee,
#: S.H."), l as / ("et a/." in a reference list), an italic i as / (a
#: label's "two /n vitro"), a bracket as l (a brief's "[i]mprovement" read
#: "lilmprovement"), a statute's section sign as $ (a Danish act's
#: "jf. $ 43" and "$$ 46 og 47"); and the reader's
#: classic confusions of strokes: rn/m, cl/d, vv/w, li/h, ii/u, l/I/1.
LOOK_ALIKES: tuple[tuple[str, str], ...] = (
    ("l", "i"), ("l", "1"), ("i", "1"), ("l", "|"), ("i", "|"), ("l", "/"), ("i", "/"),
    ("i", "j"), ("[", "l"), ("]", "l"),
    ("s", "$"), ("§", "$"),
    ("l", "!"), ("i", "!"), ("l.", "!"), ("o", "0"), ("e", "c"), ("a", "d"),
    ("m", "rn"), ("m", "nn"), ("m", "in"), ("m", "ni"), ("d", "cl"), ("w", "vv"),
    ("h", "li"), ("u", "ii"), ("n", "ri"), ("k", "lc"),
    (".", ","), (",", "."), (":", ";"), (";", ":"),
)
_PAIRS = tuple(dict.fromkeys((*LOOK_ALIKES, *((b, a) for a, b in LOOK_ALIKES))))
#: A word of this many letters may hold one misread; one more for each as
#: many letters again ("meaicine": one in eight).
_LETTERS_PER_MISREAD = 4
_DIGIT = re.compile(r"\d")
#: A word holding a digit is an identifier, whose digits may be misread
#: like its letters, when it holds this many letters: "ABL1", "IL-6", "COX-1";
#: not "11a" or "s149".
_IDENTIFIER_LETTERS = 2
#: Words that negate, as the matcher reads them (``matching._NEGATIONS``).
_NEGATING = frozenset(
    "not no never neither nor none nobody nothing nowhere without cannot lack lacks absent "
    "excluding except unless".split())


@dataclass(frozen=True, slots=True)
class Misread:
    """One word the OCR misread: ``read`` as the source's text has it,
    ``printed`` as the quote gives it, and the look-alike letters between
    them, each as (printed, read)."""

    read: str
    printed: str
    letters: tuple[tuple[str, str], ...]

    def describe(self) -> str:
        if not self.letters:  # the same characters, spaced apart (a split figure)
            return f"“{self.read}” read for “{self.printed}” (a space read inside it)"
        pairs = ", ".join(f"“{r}” for “{p}”" for p, r in self.letters)
        return f"“{self.read}” read for “{self.printed}” ({pairs})"


def misread_pairs(printed: str, read: str) -> tuple[tuple[str, str], ...] | None:
    """The look-alike letters that turn ``printed`` into ``read`` (folded
    words or runs of them, spaces ignored), each as (printed, read); None
    when the difference is not all look-alikes, when it takes more than a
    word's share of them, when ``printed`` is a figure (a digit and fewer
    than two letters) or holds no letter, or when ``read`` holds a digit but
    not two letters (a figure, not a word).

    The fewest look-alikes are taken (a small dynamic programme over the two
    strings: equal characters cost nothing, a look-alike pair one)."""
    printed, read = "".join(printed.split()), "".join(read.split())
    if printed == read or not printed:
        return None
    if _DIGIT.search(printed) and sum(c.isalpha() for c in printed) < _IDENTIFIER_LETTERS:
        return None  # a figure ("15", "s149"), never a misread
    # Section signs alone ("§", "§§") are a word each, and each may be misread.
    sections = not printed.strip("§")
    letters = len(printed) if sections else sum(c.isalpha() for c in printed)
    if not letters:
        return None  # punctuation alone: no word misread, and the score hardly moves
    if _DIGIT.search(read) and sum(c.isalpha() for c in read) < 2:
        return None  # a figure as OCR read it ("1" for "I"): only inside a word is it a letter
    limit = letters if sections else max(1, letters // _LETTERS_PER_MISREAD)
    # best[(i, j)]: fewest look-alikes turning printed[:i] into read[:j], and the last step.
    best: dict[tuple[int, int], tuple[int, tuple[int, int] | None, tuple[str, str] | None]] = {
        (0, 0): (0, None, None)}
    for i in range(len(printed) + 1):
        for j in range(len(read) + 1):
            here = best.get((i, j))
            if here is None:
                continue
            cost = here[0]
            steps: list[tuple[int, int, tuple[str, str] | None]] = []
            if i < len(printed) and j < len(read) and printed[i] == read[j]:
                steps.append((i + 1, j + 1, None))
            if cost < limit:
                steps += [(i + len(a), j + len(b), (a, b)) for a, b in _PAIRS
                          if printed.startswith(a, i) and read.startswith(b, j)]
            for ni, nj, pair in steps:
                new = cost + (pair is not None)
                known = best.get((ni, nj))
                if known is None or new < known[0]:
                    best[ni, nj] = (new, (i, j), pair)
    end = best.get((len(printed), len(read)))
    if end is None or end[0] == 0:
        return None
    pairs: list[tuple[str, str]] = []
    at: tuple[int, int] | None = (len(printed), len(read))
    while at is not None:
        _, previous, pair = best[at]
        if pair is not None:
            pairs.append(pair)
        at = previous
    return tuple(reversed(pairs))


_WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)*|\S")


def _around_figures(run: list[int], source_words: Sequence[str], quote_words: Sequence[str]
                    ) -> list[list[int]]:
    """A run of as many words on both sides split around each pair of words
    that holds a digit ("45 supp !" for "46 suppl ."): the figure is never a
    misread, and the words beside it are judged on their own."""
    s0, s1, q0, q1 = run
    if s1 - s0 != q1 - q0:
        return [run]
    parts, start = [], 0
    for k in range(s1 - s0):
        if _DIGIT.search(source_words[s0 + k]) or _DIGIT.search(quote_words[q0 + k]):
            parts += [[s0 + start, s0 + k, q0 + start, q0 + k], [s0 + k, s0 + k + 1, q0 + k,
                                                                 q0 + k + 1]]
            start = k + 1
    parts.append([s0 + start, s1, q0 + start, q1])
    return [p for p in parts if p[0] < p[1]]


def _section_sign_read_as_eight(printed: str, read: str, source_next: Sequence[str],
                                quote_next: Sequence[str]) -> tuple[tuple[str, str], ...] | None:
    """The section signs of ``printed`` ("§", "§§") that OCR read as eights,
    where the same section number follows in both: a German statute's "nach
    8 22 Absatz 5" for "nach § 22 Absatz 5". An eight standing alone is a
    figure (:func:`misread_pairs`); one before a section's number, the
    number itself the same in quote and source, is the sign."""
    if (not printed or printed.strip("§") or read != "8" * len(printed)
            or not source_next or source_next != quote_next
            or not _DIGIT.search(source_next[0])):
        return None
    return (("§", "8"),) * len(printed)


#: Ordinal indicators, raised small letters that OCR reads as a digit at
#: their size: Spanish, Portuguese and Galician "1.ª", "2.º".
_ORDINAL_INDICATORS = frozenset("\u00aa\u00ba")
_NUMBER = re.compile(r"\d+")


def _ordinal_read_as_digit(printed: str, read: str, source_before: Sequence[str],
                           quote_before: Sequence[str]) -> tuple[tuple[str, str], ...] | None:
    """The ordinal indicator ``printed`` ("ª", "º", as the quote has it
    before folding) that OCR read as the digit or degree sign ``read``,
    where the same number and point stand before it in both: "1.2 La
    atención" for "1.ª La atención". A digit after a number and a point is
    otherwise a decimal ("1.2"), a figure; only the quote's own indicator,
    after the very number the source has, makes it a misread."""
    if (printed not in _ORDINAL_INDICATORS or len(read) != 1
            or not (read.isdigit() or read == "\u00b0")
            or len(source_before) != 2 or source_before != quote_before
            or not _NUMBER.fullmatch(source_before[0]) or source_before[1] != "."):
        return None
    return ((printed, read),)


def _figure_split(read: Sequence[str], printed: Sequence[str], source: NormalizedText,
                  tokens: Sequence[re.Match[str]]) -> bool:
    """Whether OCR split the quote's figures with spaces and nothing else:
    "TAS-1 02" read for "TAS-102" (a drug's code on a scanned dosing card),
    the glyphs set wide enough for Tesseract to see a word's gap. The same
    digits in the same order, the pieces on one line; a digit changed,
    added or left out is still a changed figure."""
    if len(read) <= len(printed) or not all(w.isdigit() for w in (*read, *printed)):
        return False
    if "".join(read) != "".join(printed):
        return False
    o_start, _ = source.to_original(tokens[0].start(), tokens[0].end())
    _, o_end = source.to_original(tokens[-1].start(), tokens[-1].end())
    return "\n" not in source.original[o_start:o_end]


def _negates(words: Sequence[str]) -> bool:
    return any(w in _NEGATING or w.endswith("n't") for w in words)


def ocr_spelling(
    quote: NormalizedText, source: NormalizedText, norm_start: int, norm_end: int,
    *, read_by_ocr: Sequence[tuple[int, int]],
) -> tuple[str, tuple[Misread, ...]] | None:
    """``quote.original`` with each run of words that differs from the
    source's window ``[norm_start, norm_end)`` (normalised indices of
    ``source``) only by OCR look-alikes put as the source prints it, and
    those misreads; None when there is none.

    ``read_by_ocr``: ranges of ``source.original`` that OCR read; a word
    outside them is never respelt. Words are paired by a word-level edit
    script; each run of edits is judged whole, spaces left out, so a word
    OCR split or joined ("Mea icine") is judged as one.
    """
    quote_tokens = list(_WORD.finditer(quote.text))
    source_tokens = list(_WORD.finditer(source.text, norm_start, norm_end))
    quote_words = [t.group() for t in quote_tokens]
    source_words = [t.group() for t in source_tokens]
    opcodes = [op for op in Levenshtein.opcodes(source_words, quote_words) if op.tag != "equal"]
    # Runs of adjacent edits: "supp !" against "suppl ." is one run.
    runs: list[list[int]] = []
    for op in opcodes:
        if runs and runs[-1][1] == op.src_start and runs[-1][3] == op.dest_start:
            runs[-1][1], runs[-1][3] = op.src_end, op.dest_end
        else:
            runs.append([op.src_start, op.src_end, op.dest_start, op.dest_end])
    runs = [part for run in runs for part in _around_figures(run, source_words, quote_words)]
    pieces: list[tuple[int, int, str]] = []  # (start, end) of quote.original, replacement
    misreads: list[Misread] = []
    for s0, s1, q0, q1 in runs:
        if s0 == s1 or q0 == q1:
            continue  # a word added or left out is no misread
        read_words, printed_words = source_words[s0:s1], quote_words[q0:q1]
        if _negates(read_words) or _negates(printed_words):
            continue
        read = "".join(read_words)
        printed = "".join(printed_words)
        if negated_by_prefix(read, printed) or negated_by_prefix(printed, read):
            continue
        pairs = misread_pairs(printed, read)
        if pairs is None and _figure_split(read_words, printed_words, source,
                                           source_tokens[s0:s1]):
            pairs = ()
        if pairs is None:
            pairs = _section_sign_read_as_eight(printed, read, source_words[s1:s1 + 1],
                                                quote_words[q1:q1 + 1])
        q_start, q_end = quote.to_original(quote_tokens[q0].start(), quote_tokens[q1 - 1].end())
        if pairs is None:
            pairs = _ordinal_read_as_digit(quote.original[q_start:q_end], read,
                                           source_words[max(0, s0 - 2):s0],
                                           quote_words[max(0, q0 - 2):q0])
        if pairs is None:
            continue
        o_start, o_end = source.to_original(source_tokens[s0].start(), source_tokens[s1 - 1].end())
        if not any(a <= o_start and o_end <= b for a, b in read_by_ocr):
            continue
        as_read = source.original[o_start:o_end]
        pieces.append((q_start, q_end, as_read))
        misreads.append(Misread(" ".join(as_read.split()), quote.original[q_start:q_end],
                                pairs))
    if not pieces:
        return None
    text, cursor = [], 0
    for start, end, replacement in pieces:
        text += [quote.original[cursor:start], replacement]
        cursor = end
    text.append(quote.original[cursor:])
    return "".join(text), tuple(misreads)
