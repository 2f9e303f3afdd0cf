"""Text normalisation that remembers where every character came from.

``normalize(text)`` folds away the differences that PDF extraction and model
copying introduce without changing meaning, and returns the folded text with an
:class:`OffsetMap` back to ``text``. Every index here is a Python code-point
index; ``original`` always means the ``text`` argument, ``normalized`` the
folded result.

What is folded, in order of appearance in a text:

* Unicode compatibility forms (NFKD): ligatures (``ﬁ`` → ``fi``), full-width
  and superscript forms, then combining accents are dropped, so ``Oğuz``,
  ``O˘guz`` (a spacing breve, as some PDFs extract it) and ``Oguz`` agree.
* Soft hyphens, zero-width spaces and joiners, BOMs: removed.
* Line-break hyphenation: a hyphen at a line end between two letters is
  removed with the line break (``ser-\\nvice`` → ``service``). A hyphen between
  two letters *inside* a line is removed as well (the en dash of
  ``Smith–Jones`` too), so a real compound broken at
  a line end (``well-\\nknown``) and the same compound unbroken (``well-known``)
  both become ``wellknown``: the fold cannot tell the two cases apart, so it
  makes them equal instead of guessing (:meth:`NormalizedText.joins_compound`
  still says where an in-line hyphen joined two parts, so that a quote of one
  part can match on a word boundary). Hyphens next to digits (``2-3``) stay;
  a range broken at a line end (``10-\\n12``) loses only the break. A soft
  hyphen is removed, and at a line end takes the break with it.
* A line-break hyphen kept in a copy, the break made a space: a hyphen (or
  soft hyphen) after a letter, then spaces, then a *lower-case* letter is
  joined as at a line end (``Wider- spruchsbeweisen`` → ``widerspruchsbeweisen``,
  ``can- not`` → ``cannot``). A suspended hyphen (``pre- and post-operative``)
  is joined the same way (``preand``); both sides fold alike, so matching is
  unaffected. A capital after the space (``mid- Sep.``) keeps hyphen and space,
  unless a capital stands before the hyphen too (a name in capitals broken in
  a narrow cell, ``MONTPELLIER- VILLENEUVE``) or the hyphen is a soft one,
  which only ever marks a break inside a word (``CHA\u00ad TEAUX``).
* Smart quotes, primes and apostrophes → ``'`` and ``"``; every dash and minus
  sign → ``-``; an em dash or bar is a pause between words and becomes a spaced
  `` - `` (``employment—not`` = ``employment - not``). A spacing acute inside a
  word is an accent (``L´aszl´o`` → ``laszlo``), before a final ``s`` an
  apostrophe (``Norway´s``).
* Dot leaders (four dots or more, spaced or not: ``Tax Table . . . . 1.``)
  are a space.
* Private-use code points (symbol fonts' checkboxes, bullets and arrows, as
  PDFs extract them: ``\uf0a3 3 days``) are spaces.
* Whitespace runs of any kind (NBSP, thin spaces, line breaks) → one space;
  leading and trailing whitespace dropped.
* Case folded (``str.casefold``).

``skip`` ranges (page furniture such as running headers and page numbers, found
at ingestion) are treated as whitespace: they vanish from the normalised text
while every other offset stays put.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

__all__ = [
    "BEFORE_MINUS", "NormalizedText", "OffsetMap", "clean_break", "concatenate", "explain",
    "fold_char",
    "fold_one_for_one", "merge_ranges", "normalize", "normalize_folded", "sliceable_fold",
]

_DELETED = "\u00ad\u200b\u200c\u200d\u2060\ufeff"
_SINGLE_QUOTES = "\u2018\u2019\u201a\u201b\u2032\u2035\u02bc\u02b9"
_DOUBLE_QUOTES = "\u201c\u201d\u201e\u201f\u2033\u2036\u00ab\u00bb\u02ba"
_DASHES = "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"
#: What may stand before a dash (folded: every dash and minus is "-") glued
#: to the digits after it for the dash to be a minus sign: nothing, a space,
#: a bracket, a slash, or a relation ("r=-0.45", "b:-1.2", "<-5"); never a
#: range's dash ("10-20") nor a word's hyphen ("COVID-19"). One set for the
#: quote matcher and the claim checks, so the two never disagree on a sign.
BEFORE_MINUS = frozenset(" \t\n\u00a0([/=:<>\u2264\u2265")
#: Control characters that are not whitespace (C0, DEL, C1). An extractor
#: gives one for a glyph it cannot name (poppler's BEL for a brochure's
#: bullet); no one types one. Like a private-use glyph, it separates words.
_CONTROLS = frozenset(chr(c) for c in (*range(0x20), *range(0x7F, 0xA0))
                      if chr(c) not in "\t\n\r\x0b\x0c\x85")
_SPACING_ACCENTS = "\u02d8\u02d9\u02da\u02db\u02dc\u02dd\u02c6\u02c7\u00a8\u00af\u00b8"

# What the fast path copies verbatim (after lower-casing): plain ASCII other
# than whitespace and hyphens. Everything else goes through the slow path.
# What the slow path handles: runs of characters other than plain visible ASCII
# (hyphen and backtick excepted) with the spaces around them, and runs of two or
# more spaces. A single space between plain characters is already normalised,
# so ordinary prose stays on the fast path one line at a time.
_ONE_FOR_ONE: tuple[tuple[str, str], ...] = tuple((
    {c: " " for c in sorted(_CONTROLS)}
    | {c: " " for c in "\t\n\r\x0b\x0c\x85\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                     "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"}
    | {c: "'" for c in _SINGLE_QUOTES}
    | {c: '"' for c in _DOUBLE_QUOTES}
    | {c: "-" for c in _DASHES if c not in "\u2014\u2015"}
).items())
_ONE_FOR_ONE_ASCII = tuple((char, folded) for char, folded in _ONE_FOR_ONE if char.isascii())
_PLAIN = "\x21-\x2c\x2e-\x5f\x61-\x7e"
_SPECIAL = re.compile(f"[^ {_PLAIN}][^{_PLAIN}]*| (?=[^{_PLAIN}])[^{_PLAIN}]*")
_PLAIN_CHARS = frozenset(c for c in map(chr, range(128)) if re.fullmatch(f"[{_PLAIN}]", c))


@lru_cache(maxsize=4096)
def fold_char(char: str) -> str:
    """The normalised form of one non-ASCII character (whitespace → ``" "``)."""
    if char in _DELETED or char in _SPACING_ACCENTS:
        return ""
    if char in _SINGLE_QUOTES:
        return "'"
    if char in _DOUBLE_QUOTES:
        return '"'
    if char in _DASHES:
        return "-"
    if char.isspace() or char in _CONTROLS or "\ue000" <= char <= "\uf8ff":
        # A private-use code point is a symbol font's glyph (a checkbox, a
        # bullet, an arrow) that no one types: it separates words, like a space.
        return " "
    if unicodedata.category(char) in {"Mn", "Me"}:
        return ""  # a combining mark: the accent of the letter before it
    decomposed = unicodedata.normalize("NFKD", char)
    if decomposed == char:
        return char.casefold()
    # Compatibility forms can decompose into characters that fold again (a
    # full-width dash, a spacing accent): fold each of those once more.
    folded = "".join(fold_char(c) if ord(c) > 0x7E else c.lower() for c in decomposed)
    # A Hangul syllable decomposes (canonically) into jamo; composing again
    # keeps it one character, as in the one-for-one fold the screens search.
    return folded if folded.isascii() else unicodedata.normalize("NFC", folded)


@dataclass(frozen=True, slots=True)
class OffsetMap:
    """Maps ranges of a normalised text back to the original text.

    The normalised text is a sequence of pieces. A *verbatim* piece copies a run
    of the original one character for one character; a *replaced* piece is one
    or more normalised characters produced from one original range (a ligature,
    a whitespace run). Characters the normaliser deleted belong to no piece.
    """

    norm_starts: tuple[int, ...]
    orig_starts: tuple[int, ...]
    orig_ends: tuple[int, ...]
    verbatim: tuple[bool, ...]
    normalized_length: int
    original_length: int

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        """The original range ``[o0, o1)`` that produced normalised ``[start, end)``.

        A range that begins or ends inside a replaced piece widens to the whole
        piece: a normalised ``f`` taken from ``ﬁ`` maps to the ligature.
        """
        if not 0 <= start <= end <= self.normalized_length:
            raise ValueError(
                f"range [{start}, {end}) is outside the normalised text "
                f"(length {self.normalized_length})"
            )
        if start == end:
            position = self.to_original_position(start)
            return position, position
        first = bisect_right(self.norm_starts, start) - 1
        last = bisect_right(self.norm_starts, end - 1) - 1
        if self.verbatim[first]:
            orig_start = self.orig_starts[first] + (start - self.norm_starts[first])
        else:
            orig_start = self.orig_starts[first]
        if self.verbatim[last]:
            orig_end = self.orig_starts[last] + (end - self.norm_starts[last])
        else:
            orig_end = self.orig_ends[last]
        return orig_start, orig_end

    def to_normalized_position(self, position: int) -> int:
        """The normalised index where original index ``position`` lands: inside
        a replaced piece, that piece's start; on a deleted character, the next
        piece's start."""
        piece = bisect_right(self.orig_starts, position) - 1
        if piece < 0:
            return 0
        if position < self.orig_ends[piece]:
            if self.verbatim[piece]:
                return self.norm_starts[piece] + (position - self.orig_starts[piece])
            return self.norm_starts[piece]
        if piece + 1 < len(self.norm_starts):
            return self.norm_starts[piece + 1]
        return self.normalized_length

    def to_original_position(self, position: int) -> int:
        """The original index of a boundary between normalised characters."""
        if position >= self.normalized_length:
            return self.orig_ends[-1] if self.orig_ends else self.original_length
        piece = bisect_right(self.norm_starts, position) - 1
        if self.verbatim[piece]:
            return self.orig_starts[piece] + (position - self.norm_starts[piece])
        return self.orig_starts[piece]


@dataclass(frozen=True, slots=True)
class NormalizedText:
    """A normalised text, the text it came from, and the map between them."""

    text: str
    original: str
    offsets: OffsetMap

    def to_original(self, start: int, end: int) -> tuple[int, int]:
        return self.offsets.to_original(start, end)

    def joins_compound(self, position: int) -> bool:
        """Whether normalised ``position`` is where an in-line hyphen between
        two letters was dropped: ``government|run`` of ``government-run``,
        ``pre|and`` of ``pre- and post-operative``.

        The fold joins a compound's parts so that ``well-\\nknown`` equals
        ``well-known``; this says where the parts meet, so that a quote of one
        part can still end or start on a word boundary there. A hyphen at a
        line end is left out: ``ser-\\nvice`` may be hyphenation, and ``ser``
        is no word of it; but not before a capital after a lower-case letter
        (``Nouvelle-\\nCalédonie``), a compound's, nor between capitals where
        either part holds a digit (a gene fusion's ``BCR-\\nABL1``): no
        hyphenation breaks a word with a figure in it.
        """
        offsets = self.offsets
        if not 0 < position < offsets.normalized_length:
            return False
        piece = bisect_right(offsets.norm_starts, position) - 1
        if piece <= 0 or offsets.norm_starts[piece] != position:
            return False  # a join always starts a piece: the hyphen's was popped
        gap = self.original[offsets.orig_ends[piece - 1] : offsets.orig_starts[piece]]
        # A space may follow the hyphen on the line: a suspended hyphen
        # ("pre- and post-operative", joined as "preand").
        dash = gap.rstrip()
        if not _LINE_BREAK_SET.isdisjoint(gap[len(dash):]):
            # Broken at a line end: hyphenation, but where a capital opens
            # the next line after a lower-case letter, which no word's
            # hyphenation does ("Nouvelle-\nCalédonie", "anti-\nAmerican").
            before = self.original[offsets.orig_ends[piece - 1] - 1]
            after = self.original[offsets.orig_starts[piece]]
            if not (before.islower() and after.isupper()) and not (
                    before.isupper() and after.isupper() and _holds_digit(
                        self.original, offsets.orig_ends[piece - 1], offsets.orig_starts[piece])):
                return False
        return not _COMPOUND_GAP.isdisjoint(dash) and _COMPOUND_GAP_OR_DELETED.issuperset(dash)


def _holds_digit(text: str, end: int, start: int) -> bool:
    """Whether the word that ends at ``end`` or the one that starts at
    ``start`` (the two sides of a line-end hyphen) holds a digit."""
    left = text[max(0, end - _WORD_REACH) : end].split()
    right = text[start : start + _WORD_REACH].split()
    return any(c.isdigit() for c in (left[-1] if left else "") + (right[0] if right else ""))


_WORD_REACH = 40  # characters looked at on each side: a gene's name is shorter


_JOINING_HYPHENS = "-\u2010\u2011\u2013"  # hyphens, and the en dash of "Smith–Jones"
# What a joined in-line hyphen can be: a joining hyphen, or a dash that
# folds to "-" and joins like one (figure dash, minus, full-width hyphen).
_COMPOUND_GAP = frozenset(_JOINING_HYPHENS + "\u2012\u2212\ufe58\ufe63\uff0d")
_COMPOUND_GAP_OR_DELETED = _COMPOUND_GAP | frozenset(_DELETED)
_SPACED_DASHES = "\u2014\u2015"  # em dash and bar: a pause between words
_LINE_BREAKS = "\n\r\u2028\u2029\x0b\x0c\x85"
_LINE_BREAK_SET = frozenset(_LINE_BREAKS)
_SPACING_ACUTES = "\u00b4\u0060"  # an accent in "L´aszl´o", an apostrophe in "Norway´s"


#: Superscript digits, as reviewer.ingestion writes a raised marker's.
_SUPERSCRIPT_DIGITS = frozenset("\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _closes_grade(original: str, hyphen: int) -> bool:
    """Whether the hyphen at ``original[hyphen]`` is the sign of a raised
    evidence grade ("³B-", "²C-"): one or two letters after superscript
    digits. Its line break, or a space after it, is no hyphenation."""
    k = hyphen
    while k > 0 and hyphen - k < 2 and original[k - 1].isascii() and original[k - 1].isalpha():
        k -= 1
    return k < hyphen and k > 0 and original[k - 1] in _SUPERSCRIPT_DIGITS


class _Builder:
    """Accumulates output pieces, collapsing whitespace and joining hyphenation.

    Hyphen joining is decided here, when the character after the hyphen and
    the whitespace (or skipped furniture) in between are known:

    * letter ``-`` letter → joined (``well-known`` → ``wellknown``);
    * letter ``-`` line break letter → joined (``ser-\\nvice`` → ``service``);
    * letter soft-hyphen line break letter → joined;
    * letter ``-`` (or soft hyphen) spaces lower-case letter → joined: a
      line-break hyphen copied with the break made a space (``Wider-
      spruchsbeweisen``, ``can- not``);
    * digit ``-`` line break digit → the break goes, the hyphen stays (``10-12``);
    * the sign of a raised grade (``³B-``) then a space or a line break → kept:
      the next word is one of its own (``³B-\nAccess``);
    * anything else keeps the hyphen and the space.
    """

    __slots__ = ("chunks", "join", "original", "pending_break", "pending_space", "pieces", "size")

    def __init__(self, original: str) -> None:
        # The text being folded: the fold is lower-cased, and a hyphen kept
        # before a space joins only a lower-case letter (see _visible).
        self.original = original
        self.chunks: list[str] = []
        # One (norm_start, orig_start, orig_end, verbatim) per chunk.
        self.pieces: list[tuple[int, int, int, bool]] = []
        self.size = 0
        # A whitespace run seen but not yet emitted: (orig_start, orig_end).
        # It is emitted only when a visible character follows, which drops
        # trailing whitespace and merges adjacent runs.
        self.pending_space: tuple[int, int] | None = None
        self.pending_break = False
        # A hyphen waiting to see what follows: "letter" ("capital" after a
        # capital), "soft", "grade" or "digit".
        self.join: str | None = None

    def last_char(self) -> str:
        return self.chunks[-1][-1] if self.chunks else ""

    def space(self, orig_start: int, orig_end: int, *, breaks: bool = False) -> None:
        if self.pending_space is None:
            self.pending_space = (orig_start, orig_end)
            self.pending_break = breaks
        else:
            self.pending_space = (self.pending_space[0], orig_end)
            self.pending_break |= breaks

    def hyphen(self, orig_start: int, orig_end: int, *, soft: bool = False) -> None:
        last = "" if self.pending_space is not None else self.last_char()
        if soft:  # invisible: it never undoes a hyphen waiting before it
            if self.join is None and last.isalpha():
                self.join = "soft"
            return
        self._visible("-", orig_start)
        self._piece("-", orig_start, orig_end, verbatim=orig_end - orig_start == 1)
        self.join = "letter" if last.isalpha() else "digit" if last.isdigit() else None
        if self.join == "letter" and _closes_grade(self.original, orig_start):
            self.join = "grade"
        elif self.join == "letter" and orig_start and self.original[orig_start - 1].isupper():
            self.join = "capital"

    def copy(self, text: str, orig_start: int) -> None:
        """Copy a plain run; single spaces inside it are already normalised."""
        if text[0] == " ":  # only at the edge of a span (text start, after a skip)
            core = text.lstrip(" ")
            self.space(orig_start, orig_start + len(text) - len(core))
            orig_start += len(text) - len(core)
            text = core
        trailing = len(text) - len(text.rstrip(" "))
        if trailing:
            text = text[:-trailing]
        if text:
            if self.join is not None or self.pending_space is not None:
                self._visible(text[0], orig_start)
            self.chunks.append(text)
            self.pieces.append((self.size, orig_start, orig_start + len(text), True))
            self.size += len(text)
        if trailing:
            self.space(orig_start + len(text), orig_start + len(text) + trailing)

    def replace(self, text: str, orig_start: int, orig_end: int) -> None:
        self._visible(text[0], orig_start)
        self._piece(text, orig_start, orig_end, verbatim=len(text) == orig_end - orig_start == 1)

    def absorb(self, orig_end: int) -> None:
        """Attach a deleted character (a combining accent) to the piece before
        it, so that a range ending on ``e`` of ``e\\u0301`` takes the accent."""
        if not self.chunks or self.pending_space is not None:
            return
        norm_start, orig_start, last_end, verbatim = self.pieces[-1]
        if last_end != orig_end - 1:
            return
        if verbatim and len(self.chunks[-1]) > 1:
            text = self.chunks[-1]
            self.chunks[-1] = text[:-1]
            self.pieces[-1] = (norm_start, orig_start, last_end - 1, True)
            self.size -= 1
            self._piece(text[-1], last_end - 1, orig_end, verbatim=False)
        else:
            self.pieces[-1] = (norm_start, orig_start, orig_end, False)

    def _visible(self, first: str, orig_start: int) -> None:
        """Settle pending whitespace and hyphen joins before ``first`` (folded
        from ``original[orig_start]``) is added."""
        join, self.join = self.join, None
        if join is not None and (
            self.pending_space is None or self.pending_break
            # A space after the hyphen is where a copied line break was: the
            # model kept the hyphen ("can- not"). A capital after it is more
            # likely a new word ("mid- Sep."), so only a lower-case letter;
            # but a capital after a capital is a name in capitals broken at
            # a line end ("MONTPELLIER- VILLENEUVE", a table's narrow cell),
            # and a soft hyphen only ever marks a break inside a word
            # ("TROIS-CHA\u00ad TEAUX").
            or (join != "digit" and self.original[orig_start].islower())
            or (join == "capital" and self.original[orig_start].isupper())
            or (join == "soft" and self.original[orig_start].isalpha())
        ):
            if join == "grade" and self.pending_space is not None:
                pass  # "³B-⏎Access": a raised grade's sign, then the next word
            elif join in ("letter", "capital", "soft", "grade") and first.isalpha():
                if join != "soft":
                    self._pop()
                self.pending_space = None
            elif join == "digit" and first.isdigit() and self.pending_space is not None:
                self.pending_space = None
        if self.pending_space is not None:
            if self.size:  # no leading space
                self._piece(" ", *self.pending_space, verbatim=False)
            self.pending_space = None

    def _pop(self) -> None:
        self.size -= len(self.chunks.pop())
        self.pieces.pop()

    def _piece(self, text: str, orig_start: int, orig_end: int, *, verbatim: bool) -> None:
        self.chunks.append(text)
        self.pieces.append((self.size, orig_start, orig_end, verbatim))
        self.size += len(text)

    def build(self, original: str) -> NormalizedText:
        text = "".join(self.chunks)
        norm_starts, orig_starts, orig_ends, verbatim = (
            tuple(column) for column in zip(*self.pieces, strict=True)
        ) if self.pieces else ((), (), (), ())
        offsets = OffsetMap(
            norm_starts=norm_starts,
            orig_starts=orig_starts,
            orig_ends=orig_ends,
            verbatim=verbatim,
            normalized_length=len(text),
            original_length=len(original),
        )
        return NormalizedText(text=text, original=original, offsets=offsets)


def _fold_segment(builder: _Builder, text: str, start: int, end: int) -> None:
    """Fold ``text[start:end]`` (a run the fast path cannot copy), char by char."""
    index = start
    while index < end:
        char = text[index]
        if char in _JOINING_HYPHENS:
            builder.hyphen(index, index + 1)
        elif char == "\u00ad":
            builder.hyphen(index, index + 1, soft=True)
        elif char in _SPACED_DASHES:
            # "employment—not" reads "employment - not". The spaces are the
            # fold's own: they map to empty original ranges beside the dash.
            builder.space(index, index)
            builder.replace("-", index, index + 1)
            builder.space(index + 1, index + 1)
        elif char.isspace():
            run_end = index + 1
            while run_end < end and text[run_end].isspace():
                run_end += 1
            builder.space(index, run_end,
                          breaks=not _LINE_BREAK_SET.isdisjoint(text[index:run_end]))
            index = run_end
            continue
        elif char in _SPACING_ACUTES:
            after = text[index + 1 : index + 3]
            if after[:1].isalpha() and builder.last_char().isalpha() and not (
                after[:1] in "sS" and not after[1:2].isalpha()
            ):
                pass  # a spacing accent inside a word: "L´aszl´o" → "laszlo"
            else:
                builder.replace("'", index, index + 1)
        else:
            folded = char.lower() if " " < char < "\x7f" else fold_char(char)
            if folded == " ":
                builder.space(index, index + 1)
            elif folded == "-":  # figure dash, minus, full-width hyphen: as a hyphen
                builder.hyphen(index, index + 1)
            elif folded and builder.join is None and builder.pending_space is None:
                # replace() with nothing pending to settle, inline.
                builder.chunks.append(folded)
                builder.pieces.append((builder.size, index, index + 1, len(folded) == 1))
                builder.size += len(folded)
            elif folded:
                builder.replace(folded, index, index + 1)
            elif unicodedata.combining(char) or char in _SPACING_ACCENTS:
                builder.absorb(index + 1)
        index += 1


def clean_break(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The first whitespace run ``text[i:j]`` with ``start <= i`` and ``j < end``
    that has a plain character (visible ASCII but ``-`` and the backtick) on
    each side; None if there is none.

    :func:`normalize` passes such a run without a trace: the plain character
    before it is copied and leaves no hyphen waiting, the run becomes one
    space, and the plain character after it starts afresh. So for ``s < i``
    and ``j < e``, ``normalize(text[s:e])`` is ``concatenate(normalize(text[s:i]),
    text[i:j], normalize(text[j:e]))``: the same text, the same offsets.
    """
    i = max(start, 1)
    end = min(end, len(text))
    while i < end:
        if not text[i].isspace():
            i += 1
            continue
        j = i + 1
        while j < end and text[j].isspace():
            j += 1
        if j < end and text[i - 1] in _PLAIN_CHARS and text[j] in _PLAIN_CHARS:
            return i, j
        i = j
    return None


def concatenate(left: NormalizedText, space: str, right: NormalizedText) -> NormalizedText:
    """``left`` and ``right``, normalised texts of the two sides of a
    :func:`clean_break` whose whitespace is ``space``, as the normalised text
    of the whole: joined by one space that maps to ``space``."""
    gap_norm, gap_orig = len(left.text), len(left.original)
    shift_norm, shift_orig = gap_norm + 1, gap_orig + len(space)
    a, b = left.offsets, right.offsets
    text = f"{left.text} {right.text}"
    original = left.original + space + right.original
    offsets = OffsetMap(
        norm_starts=(*a.norm_starts, gap_norm, *(n + shift_norm for n in b.norm_starts)),
        orig_starts=(*a.orig_starts, gap_orig, *(o + shift_orig for o in b.orig_starts)),
        orig_ends=(*a.orig_ends, shift_orig, *(o + shift_orig for o in b.orig_ends)),
        verbatim=(*a.verbatim, False, *b.verbatim),
        normalized_length=len(text),
        original_length=len(original),
    )
    return NormalizedText(text=text, original=original, offsets=offsets)


def merge_ranges(ranges: Iterable[tuple[int, int]], length: int) -> list[tuple[int, int]]:
    """``ranges`` clipped to ``[0, length)``, sorted, overlapping ones merged."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((max(0, s), min(length, e)) for s, e in ranges):
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def fold_one_for_one(text: str) -> str:
    """Every fold that maps one character to one (case, single whitespace
    characters, quotes, dashes), at C speed; indices stay the original's.

    Not a normalisation (runs, hyphenation and ligatures stay): a cheap text
    to screen many sources with before normalising the few that may match.
    """
    return sliceable_fold(text)[0]


def sliceable_fold(text: str) -> tuple[str, bool]:
    """:func:`fold_one_for_one` of ``text``, and whether its slices may stand
    for the folds of ``text``'s slices in :func:`normalize_folded`.

    They may unless lower-casing made a letter grow (then only ASCII is
    lowered, but a slice without that letter would lower everything). The one
    other way a slice's fold differs is a Greek capital sigma, lowered to
    "σ" or "ς" by context: neither is ASCII, and normalisation reads the fold
    only to tell plain ASCII from the rest and to copy plain ASCII.
    """
    # Lower-casing keeps every length in ASCII; if another letter grows
    # ("İ"), only ASCII is lowered, which is all the fast path copies.
    lowered = text.lower()
    whole = len(lowered) == len(text)
    if not whole:
        lowered = "".join(c.lower() if c.isascii() else c for c in text)
    # str.replace is far faster than translate; an ASCII text can hold only
    # the ASCII ones.
    for char, replacement in _ONE_FOR_ONE_ASCII if lowered.isascii() else _ONE_FOR_ONE:
        if char in lowered:
            lowered = lowered.replace(char, replacement)
    return lowered, whole


def normalize(text: str, *, skip: Sequence[tuple[int, int]] = ()) -> NormalizedText:
    """Fold ``text`` for matching and keep a map back to it.

    ``skip`` lists original ranges to leave out as if they were whitespace
    (running headers, footers and page numbers found at ingestion).

    >>> n = normalize("Employer  match vests after\\ntwo years of ser-\\nvice.")
    >>> n.text
    'employer match vests after two years of service.'
    >>> start = n.text.find("of service")
    >>> n.original[slice(*n.to_original(start, start + len("of service")))]
    'of ser-\\nvice'
    """
    if not isinstance(text, str):
        raise TypeError(
            f"normalize() takes str, not {type(text).__name__}; decode bytes first "
            "(PDF text from the extractor is already str)"
        )
    builder = _Builder(text)
    # The fast path copies runs of the one-for-one fold, whose indices are
    # the original's.
    lowered = fold_one_for_one(text)
    position = 0
    for skip_start, skip_end in [*merge_ranges(skip, len(text)), (len(text), len(text))]:
        _normalize_span(builder, text, lowered, position, skip_start)
        if skip_end > skip_start:
            builder.space(skip_start, skip_end, breaks=True)
        position = skip_end
    return builder.build(text)


def normalize_folded(text: str, folded: str) -> NormalizedText:
    """``normalize(text)``, given ``folded``: the same slice of a
    :func:`sliceable_fold` (that allowed it) as ``text`` is of its source.
    Spares folding a region of a source that is folded already."""
    builder = _Builder(text)
    _normalize_span(builder, text, folded, 0, len(text))
    return builder.build(text)


#: A dot leader: four dots or more, spaced or not (". . . . 1." in a
#: worksheet, "Eligibility ........ 12" in a contents list).
_LEADER = re.compile(r"\.(?: ?\.){3,}")


def _normalize_span(
    builder: _Builder, text: str, lowered: str, start: int, end: int
) -> None:
    """Fold ``text[start:end]``; a dot leader in it is a space: it only leads
    the eye along a printed line, and a reader quoting the line leaves it out."""
    if "...." in lowered or ". . . ." in lowered:
        position = start
        for leader in _LEADER.finditer(lowered, start, end):
            _fold_span(builder, text, lowered, position, leader.start())
            builder.space(leader.start(), leader.end())
            position = leader.end()
        start = position
    _fold_span(builder, text, lowered, start, end)


def _fold_span(
    builder: _Builder, text: str, lowered: str, start: int, end: int
) -> None:
    position = start
    chunks, pieces = builder.chunks, builder.pieces
    for match in _SPECIAL.finditer(lowered, start, end):
        at, stop = match.span()
        if at > position:
            if (builder.join is None and builder.pending_space is None
                    and lowered[position] != " " and lowered[at - 1] != " "):
                # The usual run, between two folds with nothing pending:
                # what copy() would do, without its edge cases.
                chunks.append(lowered[position:at])
                pieces.append((builder.size, position, at, True))
                builder.size += at - position
            else:
                builder.copy(lowered[position:at], position)
        _fold_segment(builder, text, at, stop)
        position = stop
    if position < end:
        builder.copy(lowered[position:end], position)


# Artefacts of one character, looked up in the text's set of non-ASCII
# characters: one pass over the text instead of a regular expression each.
_LIGATURE_CHARS = frozenset("\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06")
_DELETED_CHARS = frozenset(_DELETED)
_QUOTE_CHARS = frozenset(_SINGLE_QUOTES + _DOUBLE_QUOTES)
_DASH_CHARS = frozenset(_DASHES)
_ASCII = frozenset(map(chr, range(128)))
_NO_CHARS: frozenset[str] = frozenset()
_HYPHENATION_LETTER = re.compile(r"[^\W\d_]")
_HYPHENATION_MARKS = "-\u2010\u2011\u00ad"
# "Whitespace" is r"\s{2,}|[^\S ]": two spaces, or any whitespace but a space
# (two whitespace characters in a row that are not both spaces hold one).
_OTHER_WHITESPACE = re.compile(r"[^\S ]")
_UPPER = re.compile(r"[A-Z]")
_NAMED_ELSEWHERE = frozenset(_DELETED + _SINGLE_QUOTES + _DOUBLE_QUOTES + _DASHES)


def _is_accent_or_compatibility(char: str) -> bool:
    if char.isascii() or char in _NAMED_ELSEWHERE or char.isspace() or "\ufb00" <= char <= "\ufb06":
        return False
    return (char in _SPACING_ACCENTS or unicodedata.combining(char) > 0
            or fold_char(char) != char.casefold())


def _line_break_hyphenation(text: str) -> bool:
    """Whether ``text`` matches ``[^\\W\\d_][-\\u2010\\u2011\\u00ad][ \\t]*[\\r\\n]``,
    found from the line breaks back (a text has few) instead of at every letter."""
    for breaks in ("\n", "\r"):
        end = text.find(breaks)
        while end >= 0:
            mark = end - 1
            while mark >= 0 and text[mark] in " \t":
                mark -= 1
            if (mark >= 1 and text[mark] in _HYPHENATION_MARKS
                    and _HYPHENATION_LETTER.match(text, mark - 1)):
                return True
            end = text.find(breaks, end + 1)
    return False


# A line-break hyphen a quote kept, with the break copied as a space
# ("Wider- spruchsbeweisen"): joined like one at a line end when a
# lower-case letter follows.
_KEPT_HYPHENATION = re.compile(r"[^\W\d_][-\u2010\u2011\u00ad][^\S\r\n]+(?=([^\W\d_]))")


def _kept_hyphenation(text: str) -> bool:
    if not any(hyphen in text for hyphen in _HYPHENATION_MARKS):
        return False
    return any(
        m.group(1).islower() or text[m.start() + 1] == "\u00ad"
        or (m.group(1).isupper() and text[m.start()].isupper())
        for m in _KEPT_HYPHENATION.finditer(text)
    )


def explain(text: str) -> tuple[str, ...]:
    """Which folds :func:`normalize` applies to ``text``, by name (for reports)."""
    others = _NO_CHARS if text.isascii() else set(text).difference(_ASCII)
    names = []
    if not others.isdisjoint(_LIGATURE_CHARS):
        names.append("ligature")
    if not others.isdisjoint(_DELETED_CHARS):
        names.append("soft-hyphen-or-zero-width")
    if _line_break_hyphenation(text) or _kept_hyphenation(text):
        names.append("line-break-hyphenation")
    if not others.isdisjoint(_QUOTE_CHARS):
        names.append("smart-quotes")
    if not others.isdisjoint(_DASH_CHARS):
        names.append("dashes")
    if "  " in text or _OTHER_WHITESPACE.search(text):
        names.append("whitespace")
    if any(_is_accent_or_compatibility(c) for c in others):
        names.append("accents-or-compatibility-forms")
    if _UPPER.search(text):
        names.append("case")
    return tuple(names)
