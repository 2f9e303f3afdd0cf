"""Footnote windows: quotes that run across a raised footnote marker.

Poppler's word boxes show the marker: a word of one to three digits (or
"1,2", or a symbol such as * † ‡ §, or superscript digits) whose box is
shorter than the line's words and whose bottom stands well above theirs, right
after a word ending in three letters ("Act³", "practice²", "sources.¹"). After
a symbol, a short word or a number it is an exponent or a unit's power ("x²",
"1.09δ²", "mm⁻¹"), not a marker, and is left out.

Each window crosses at least one marker and is quoted three ways, as models
quote it: the marker kept where it stands with a space ("Act 3 to"), dropped
("Act to"), and glued to the word before ("Act3 to"). Verified: every
citation ``verified`` or ``verified-fuzzy``. Located: the window's other
words (not the marker) inside the rectangles.
"""

from __future__ import annotations

import random
import re
import statistics
from collections.abc import Collection, Sequence
from itertools import groupby

from bench.generalise import (
    Placed,
    balanced,
    blocks_of,
    cuts_a_token,
    glued,
    in_margin,
    is_prose,
    next_to_negation,
)
from bench.generalise_sections.common import Case, SectionStats
from bench.generalise_sections.tables import upright
from bench.poppler import PopplerPage, PopplerWord

MARKER_TEXT = re.compile(r"^(\d{1,3}(,\d{1,3})*|[*†‡§¶]{1,3}|[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3})$")
#: The word a marker follows: ends in three letters, then closing punctuation at
#: most. Two would take units and indices ("mm⁻¹" read as "mm" "21", "r_ij³",
#: "ρc²"), which a physics paper has by the dozen; a marker after a two-letter
#: word ("Surge AI¹⁴") is rarer, and left out with them.
MARKED_WORD = re.compile(r"[^\W\d_]{3}[.,;:)\]”’\"']*$")
SMALLER = 0.85  # a marker's box height against the line's median
RAISED = 0.12  # its bottom above the line's median bottom, in line heights
SIDE_WORDS = (3, 15)  # words taken before and after the marker
FORMS = ("marker kept", "marker dropped", "marker glued")

#: Prefix of a miss whose window pdfminer.six does not read in order either
#: (poppler's line runs on across a narrow gutter into the next column, a
#: table's cells beside the column or a pull quote; or down a table's column
#: of labels): the oracle's reading alone, told apart and never dropped.
POPPLER_ALONE = "poppler alone: "
#: Prefix of a miss whose window runs down a table's column (poppler's and
#: pdfminer's order) where we read the table's rows across (the prose
#: section's ``TABLE_ORDER``).
TABLE_ORDER = "table: "
#: Characters pdfminer's text may hold between two of a window's pieces: the
#: marker itself (at most "1,2,5"-like runs), read inline.
MARKER_GAP = 12

__all__ = ["FORMS", "MARKER_GAP", "POPPLER_ALONE", "TABLE_ORDER", "footnote_cases",
           "marker_forms",
           "print_footnote_goals", "raised_markers", "read_in_order"]


def raised_markers(line: Sequence[PopplerWord]) -> list[int]:
    """Indices in ``line`` (one poppler line, in order) of raised footnote markers."""
    if len(line) < 3 or not upright(line):
        # A line turned a quarter (GPO's invisible printer's note "Insert offset
        # folio 8 here" up a page's edge): a word box's height is the word's
        # length there, so the shortest word would pass for a smaller marker.
        return []
    height = statistics.median(w.box[3] - w.box[1] for w in line)
    bottom = statistics.median(w.box[3] for w in line)
    found = []
    for index in range(1, len(line)):
        word, before = line[index], line[index - 1]
        if not MARKER_TEXT.match(word.text) or not MARKED_WORD.search(before.text):
            continue
        if (word.box[3] - word.box[1] < SMALLER * height
                and word.box[3] < bottom - RAISED * height):
            found.append(index)
    return found


def marker_forms(words: Sequence[str], markers: Collection[int], attached: Collection[int] = ()
                 ) -> list[tuple[str, str]]:
    """The window's text with its markers kept (spaced), dropped, and glued to the
    word before. ``attached``: words printed with no gap after the one before
    (the full stop after "Act³."), which stay joined to whatever precedes them."""
    forms = []
    for form in FORMS:
        tokens: list[str] = []
        for index, word in enumerate(words):
            if index in markers and form == "marker dropped":
                continue
            joins = (form == "marker glued") if index in markers else index in attached
            if tokens and joins:
                tokens[-1] += word
            else:
                tokens.append(word)
        forms.append((form, " ".join(tokens)))
    return forms


def stream_markers(stream: list[Placed]) -> set[int]:
    """Stream indices of every raised marker, line by line."""
    found: set[int] = set()
    for _, group in groupby(range(len(stream)), key=lambda i: (stream[i].page,
                                                               stream[i].word.line)):
        indices = list(group)
        found.update(indices[i] for i in raised_markers([stream[j].word for j in indices]))
    return found


def footnote_cases(stream: list[Placed], pages: list[PopplerPage], rng: random.Random,
                   count: int) -> tuple[list[Case], int]:
    """Up to ``count`` windows across a marker, and how many markers the document shows."""
    markers = stream_markers(stream)
    if not markers:
        return [], 0
    block_of = {}
    for first, end in blocks_of(stream):
        for index in range(first, end):
            block_of[index] = (first, end)
    document_keys = "".join(p.word.key for p in stream)
    candidates = sorted(markers)
    rng.shuffle(candidates)
    cases: list[Case] = []
    used: set[int] = set()
    for marker in candidates:
        if len(cases) == count:
            break
        if marker in used:
            continue
        first, end = block_of[marker]
        before = rng.randint(*SIDE_WORDS)
        after = rng.randint(*SIDE_WORDS)
        start, stop = max(first, marker - before), min(end, marker + after + 1)
        if marker - start < 2 or stop - marker - 1 < 2:
            continue
        inner = {i - start for i in range(start, stop) if i in markers}
        words = [p.word for p in stream[start:stop]]
        if stop - 1 - start in inner or 0 in inner:
            continue
        plain = [w for i, w in enumerate(words) if i not in inner]
        block = [p.word for p in stream[first:end]]
        key = "".join(w.key for w in words)
        dropped_key = "".join(w.key for w in plain)
        if (len(dropped_key) < 25 or not is_prose(plain)
                or in_margin(block, pages[stream[marker].page - 1])
                or not balanced(" ".join(w.text for w in words))
                or next_to_negation(stream, start, stop) or cuts_a_token(stream, start, stop)
                or document_keys.count(key) != 1 or document_keys.count(dropped_key) > 0):
            continue
        used.update(start + i for i in inner)
        pieces = tuple("".join(words[i].key for i in run) for is_marker, run in groupby(
            range(len(words)), key=inner.__contains__) if not is_marker)
        attached = {i for i in range(1, len(words)) if glued(words[i - 1], words[i])}
        forms = marker_forms([w.text for w in words], inner, attached)
        label = "marker " + ", ".join(repr(words[i].text) for i in sorted(inner))
        cases.append(Case(stream[marker].page, tuple(forms), tuple(plain), pieces, label))
    return cases, len(markers)


def read_in_order(text_keys: str, pieces: Sequence[str]) -> bool:
    """Whether ``text_keys`` (a page's letters and digits) holds ``pieces``
    (a window's, without its markers) in order, each at most
    :data:`MARKER_GAP` characters after the one before (where a marker
    stands, read inline)."""
    pieces = [p for p in pieces if p]
    if not pieces:
        return True
    start = text_keys.find(pieces[0])
    while start >= 0:
        end = start + len(pieces[0])
        for piece in pieces[1:]:
            at = text_keys.find(piece, end, end + MARKER_GAP + len(piece))
            if at < 0:
                break
            end = at + len(piece)
        else:
            return True
        start = text_keys.find(pieces[0], start + 1)
    return False


def print_footnote_goals(stats: Sequence[SectionStats]) -> None:
    """The section's rates leaving out the misses marked :data:`POPPLER_ALONE`
    or :data:`TABLE_ORDER`."""
    from bench.generalise_sections import pct
    from bench.generalise_sections.common import rates_without

    prefixes = (POPPLER_ALONE, TABLE_ORDER)
    excused = [f for s in stats for f in s.failures if f.category.startswith(prefixes)]
    if not excused:
        return

    def bare(category: str) -> str:
        for prefix in prefixes:
            category = category.removeprefix(prefix)
        return category

    verified, located = rates_without(stats, excused, bare)
    print(f"  leaving out the {len(excused)} misses whose window pdfminer.six does not read "
          f"either (\"{POPPLER_ALONE.rstrip(': ')}\") or that run down a table's column "
          f"(\"{TABLE_ORDER.rstrip(': ')}\"): verified {pct(verified)}, "
          f"located words {pct(located)}")
