"""Do quotes taken from a PDF verify, and land on their words, on documents nobody tuned for?

Run from the repository root::

    .venv/bin/python bench/generalise.py                 # every PDF, about 80 s on 2 cores
    .venv/bin/python bench/generalise.py --quick         # 8 windows per PDF, about 50 s
    .venv/bin/python bench/generalise.py --only scotus --failures /tmp/failures.json

Why an independent extractor: ``bench/ingest.py`` samples ranges from our own
extracted text, so a line read out of order, a quote parser's slip or a chunk
picked wrong can never show there. Here the quotes come from poppler's
``pdftotext -bbox-layout`` (package poppler-utils; the bench stops with a
message when it is missing): what a person reading the page, or a model given
some other extractor's text, would quote.

For every PDF in ``../shared/corpus/pdfs`` (``MANIFEST.tsv`` there says what
each stresses; corrupt, encrypted and text-less files are listed with their
ingestion status and left out of the rates):

1. Ingest through the real path: ``extract_pdf`` -> ``find_furniture`` ->
   ``chunk_text`` with the settings' chunk size and overlap (no database).
2. Sample windows (seeded) of 8-40 consecutive words of running prose, in
   poppler's reading order, inside one poppler block. A window is skipped
   when it is mostly digits or punctuation, when its text (letters and
   digits only) occurs twice in poppler's text of the document, or when a
   negation word stands within three words before or two after it (quoting
   around a "not" is not honest).
3. Quotes. Honest: the words joined by single spaces (whitespace collapsed,
   as every model writes them), and where the window has them, copies with a
   line-break hyphenation joined, smart quotes straightened, a footnote
   marker glued to a word dropped. Altered, where the window has what it
   takes: a digit of a number changed, a negation removed or inserted, a
   capitalised word (a name) swapped for another of the document; a copy
   the document holds elsewhere is not an alteration and is left out.
4. Find the window in our text by its letters and digits alone (so spacing,
   hyphens and ligatures do not matter, order does), take the chunk that
   holds it, and verify ``"<quote>" [S1].`` with that chunk as source S1
   exactly as ``reviewer/verifying.py`` builds a chunk source (text plus
   continuation, furniture skip ranges, document offset). Its lines may
   stand a list's number apart in our text (``LINE_SLACK``). A window our text
   does not hold in order is a failure of each of its honest quotes
   (reading order or extraction), never dropped. Then ``locate()`` the
   matched document range, with the furniture skipped as the reviewer does.
5. Score per PDF: honest quotes verified (``verified`` or ``verified-fuzzy``);
   altered quotes caught as ``quote-altered``; located words = poppler's words
   of each honest quote whose box centre lies within ``TOLERANCE`` points of a
   located rectangle on its page (a quote that got no range locates none);
   area ratio = the rectangles' area over the area of poppler's words of the
   quote joined along each poppler line (spaces between words count), median
   per PDF, quotes above ``AREA_FLAG`` listed (a whole-page rectangle scores
   in the tens).

Misses are told apart, never dropped: a window that our text does not hold
in order is checked against a second independent extractor, pdfminer.six (a
dev dependency; skipped when absent), and marked "poppler alone" when that
one does not read it either (poppler's text layer drawn twice, a glyph it
decodes otherwise than the page prints it); a window that poppler reads down
a table's column while we read the row across is marked "table". The goals
section prints the honest rate with and without those, beside each other.

Deterministic for a seed: each PDF has its own generator seeded with the seed
and the file name, so ``--only`` reproduces the full run's quotes for a file.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import re
import statistics
import sys
import time
import unicodedata
from array import array
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from itertools import groupby, pairwise
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.poppler import (  # noqa: E402
    PopplerPage,
    PopplerWord,
    expected_status,
    poppler_pages,
    poppler_version,
    read_manifest,
    word_key,
)
from reviewer.ingestion import (  # noqa: E402
    ExtractedDocument,
    ExtractionError,
    OcrOptions,
    chunk_text,
    extract_pdf,
    find_furniture,
    locate,
)
from reviewer.settings import CITEGUARD  # noqa: E402  (plain module: no Django setup needed)
from verification import REVIEW_OUTCOMES, Citation, Source, verify_answer  # noqa: E402

if TYPE_CHECKING:  # the sections import this module's helpers: imported where used
    from bench.generalise_sections.common import SectionStats

CORPUS_DIR = ROOT / ".." / "shared" / "corpus" / "pdfs"
ERROR_PREFIX = "error_"  # the corpus's files for the error paths: statuses only, no quotes
MIN_WORDS, MAX_WORDS = 8, 40
MIN_KEY_CHARS = 30  # a window's letters and digits: at least this many
MARGIN = 0.10  # blocks wholly in the top or bottom tenth of a page are running heads
TOLERANCE = 1.5  # points around a located rectangle that still count as inside
AREA_FLAG = 3.0
#: Issue 23's goals. Honest and located are judged without the windows that
#: poppler reads down a table column (the issue rules them out) and those
#: pdfminer.six does not read as poppler does (the oracle alone); both are
#: printed with and without, and every such window is listed.
GOALS = {"honest": 0.995, "altered": 0.99, "located": 0.99}
FLOOR = 0.90  # no PDF below this on any of the three
WINDOWS = {"normal": 30, "quick": 8}  # windows sampled per PDF
WORST = 30  # failures printed
VERIFIED = ("verified", "verified-fuzzy")

# Negation words (keys: letters only, lower case), English plus the French and
# German of the corpus. A window next to one is not sampled.
NEGATIONS = frozenset(
    "not no never cannot without nor none neither nobody nothing nowhere "
    "ne pas non jamais sans aucun aucune ni "
    "nicht kein keine keinen keinem keiner keines nie niemals ohne weder".split()
)
AUXILIARIES = frozenset(
    "is are was were will would can could may might should must shall does do did has have "
    "had".split()
)
REMOVABLE_NEGATIONS = ("not", "never", "no")
SMART_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"'})
FOOTNOTE = re.compile(
    r"^(?P<word>.*[^\W\d_]{2}[a-zà-ÿ][.,;:)]?)(?P<marker>\d{1,2}|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)(?P<tail>[.,;:]?)$"
)
SUPERSCRIPTS = re.compile(r"^[⁰¹²³⁴⁵⁶⁷⁸⁹]+$")
NAME = re.compile(r"^[A-ZÀ-Þ][a-zß-ÿ]{2,}$")
SENTENCE_END = re.compile(r"[.!?:;]['\"”’)]*$")


# -- Our side: ingestion and a letters-and-digits index of our text -------------------------


@dataclass
class Ingested:
    doc: ExtractedDocument
    furniture: list[tuple[int, int]]
    chunks: list[tuple[int, int]]
    keys: str  # the text's letters and digits, keyed like poppler's words
    offsets: array  # offsets[i]: where keys[i] comes from in doc.text

    def page_of(self, position: int) -> int:
        starts = [p.text_start for p in self.doc.pages]
        return self.doc.pages[max(0, bisect_right(starts, position) - 1)].number


def ingest(data: bytes, *, ocr_language: str = "eng") -> Ingested:
    """What document_ingest does, without the database (``ocr_language`` is
    the upload's language, for pages with no text layer)."""
    doc = extract_pdf(data, max_pages=int(CITEGUARD["MAX_PAGES"]),
                      max_seconds=float(CITEGUARD["MAX_SECONDS_PER_DOCUMENT"]),
                      ocr=OcrOptions(language=ocr_language))
    furniture = find_furniture(doc)
    chunks = chunk_text(doc.text, target_size=int(CITEGUARD["CHUNK_SIZE"]),
                        overlap=int(CITEGUARD["CHUNK_OVERLAP"]), exclude=furniture)
    keys, offsets = key_index(doc.text)
    return Ingested(doc, furniture, chunks, keys, offsets)


def key_index(text: str) -> tuple[str, array]:
    """``text`` reduced to ``word_key`` characters, with each one's offset in ``text``."""
    cache: dict[str, str] = {}
    parts: list[str] = []
    offsets = array("i")
    for position, char in enumerate(text):
        key = cache.get(char)
        if key is None:
            key = cache[char] = word_key(char)
        if key:
            parts.append(key)
            offsets.extend([position] * len(key))
    return "".join(parts), offsets


# -- poppler's side: windows of running prose ----------------------------------------------


@dataclass
class Placed:
    """A poppler word and where it stands in the document."""

    page: int
    word: PopplerWord


@dataclass
class Window:
    page: int
    words: list[PopplerWord]
    first: int  # index of its first word in the document's stream

    @property
    def key(self) -> str:
        return "".join(w.key for w in self.words)

    @property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)


def word_stream(pages: list[PopplerPage]) -> list[Placed]:
    return [Placed(number, word) for number, page in enumerate(pages, 1)
            for word in logical_order(page.words)]


def is_rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def logical_order(words: list[PopplerWord]) -> list[PopplerWord]:
    """poppler writes right-to-left lines (Arabic) in visual order, each word's
    letters reversed; turn such lines back into reading order. (A run of several
    left-to-right words inside such a line comes out reversed: rare, and such a
    window then simply is not found.)"""
    out: list[PopplerWord] = []
    for _, group in groupby(words, key=lambda w: w.line):
        line = list(group)
        if sum(is_rtl(w.text) for w in line) * 2 <= len(line):
            out.extend(line)
            continue
        for word in reversed(line):
            text = word.text[::-1] if is_rtl(word.text) else word.text
            out.append(PopplerWord(text, word_key(text), word.box, word.flow, word.block,
                                   word.line))
    return out


def blocks_of(stream: list[Placed]) -> list[tuple[int, int]]:
    """``[first, end)`` index ranges of the stream, one per poppler block."""
    blocks: list[tuple[int, int]] = []
    start = 0
    for index in range(1, len(stream) + 1):
        if index == len(stream) or (stream[index].page, stream[index].word.block) != (
                stream[start].page, stream[start].word.block):
            blocks.append((start, index))
            start = index
    return blocks


def in_margin(words: Sequence[PopplerWord], page: PopplerPage) -> bool:
    """Wholly in the top or bottom ``MARGIN`` of the page: a running head or foot."""
    top = min(w.box[1] for w in words)
    bottom = max(w.box[3] for w in words)
    height = max(page.height, page.width, bottom)  # rotated pages: either side
    return bottom < MARGIN * height or top > (1 - MARGIN) * max(bottom, page.height)


def fills_lines(words: Sequence[PopplerWord], block: Sequence[PopplerWord]) -> bool:
    """Each line of the window but the block's last spans most of the block's width,
    as running text does; cells of a table column read down by poppler do not."""
    left = min(w.box[0] for w in block)
    width = max(w.box[2] for w in block) - left
    last = block[-1].line
    for line, group in groupby(words, key=lambda w: w.line):
        boxes = [w.box for w in group]
        if line != last and max(b[2] for b in boxes) - min(b[0] for b in boxes) < 0.6 * width:
            return False
    return True


def balanced(text: str) -> bool:
    """Quotation marks inside the window pair up (a quote does not start inside one)."""
    return text.count("“") == text.count("”") and text.count('"') % 2 == 0


def is_marker(word: PopplerWord, before: PopplerWord | None) -> bool:
    """A footnote marker poppler split off as a word: superscript digits, or one or
    two digits set smaller than the word before."""
    if SUPERSCRIPTS.match(word.text):
        return True
    if before is None or not re.fullmatch(r"\d{1,2}[.,;:]?", word.text):
        return False
    return word.box[3] - word.box[1] < 0.8 * (before.box[3] - before.box[1])


def is_prose(words: Sequence[PopplerWord]) -> bool:
    """Mostly words of letters: not a table row of figures, not punctuation."""
    wordy = sum(1 for w in words if sum(c.isalpha() for c in w.text) >= 2)
    chars = "".join(w.text for w in words)
    letters = sum(c.isalpha() for c in chars)
    return wordy >= 0.7 * len(words) and letters >= 0.6 * len(chars)


def is_negation(word: PopplerWord) -> bool:
    text = word.text.lower().replace("’", "'")
    return word.key in NEGATIONS or text.rstrip(".,;:!?)\"'”’").endswith("n't")


def glued(a: PopplerWord, b: PopplerWord) -> bool:
    """Two words of one line with (almost) no gap: one token to a reader."""
    gap = max(b.box[0] - a.box[2], a.box[0] - b.box[2])  # either way: right-to-left lines
    return a.line == b.line and gap < 0.5


def hyphenated(a: PopplerWord, b: PopplerWord) -> bool:
    """A word hyphenated across a line break: "reduc-" ending one line, "ing"
    starting the next."""
    return (a.line != b.line and a.text.endswith(("-", "\u00ad"))
            and len(a.text) > 1 and a.text[-2].isalpha() and b.text[:1].islower())


def cuts_a_token(stream: list[Placed], first: int, end: int) -> bool:
    """The window starts or ends inside what reads as one word ("S" "YNTHESE",
    or half of "reduc-" "ing"): nobody quotes half a word."""
    before = first > 0 and (glued(stream[first - 1].word, stream[first].word)
                            or hyphenated(stream[first - 1].word, stream[first].word))
    after = end < len(stream) and (glued(stream[end - 1].word, stream[end].word)
                                   or hyphenated(stream[end - 1].word, stream[end].word))
    return before or after


def next_to_negation(stream: list[Placed], first: int, end: int) -> bool:
    around = stream[max(0, first - 3):first] + stream[end:end + 2]
    return any(is_negation(p.word) for p in around)


def sample_windows(stream: list[Placed], pages: list[PopplerPage], rng: random.Random,
                   count: int) -> list[Window]:
    """Up to ``count`` windows of 8-40 words within one block, filtered as the docstring says."""
    blocks = [b for b in blocks_of(stream) if b[1] - b[0] >= MIN_WORDS]
    if not blocks:
        return []
    document_keys = "".join(p.word.key for p in stream)
    weights = [end - first - MIN_WORDS + 1 for first, end in blocks]
    windows: list[Window] = []
    seen: set[int] = set()
    for _ in range(count * 25):
        if len(windows) == count:
            break
        first, end = rng.choices(blocks, weights)[0]
        size = rng.randint(MIN_WORDS, min(MAX_WORDS, end - first))
        start = rng.randint(first, end - size)
        if start in seen:
            continue
        seen.add(start)
        window = Window(stream[start].page, [p.word for p in stream[start:start + size]], start)
        block = [p.word for p in stream[first:end]]
        key = window.key
        last = window.words[-1]
        if (len(key) < MIN_KEY_CHARS or not is_prose(window.words)
                or in_margin(block, pages[window.page - 1])
                or not fills_lines(window.words, block)
                or not balanced(window.text)
                or not window.words[0].key or is_marker(window.words[0], None)
                or is_marker(last, window.words[-2]) or FOOTNOTE.match(last.text)
                or next_to_negation(stream, start, start + size)
                or cuts_a_token(stream, start, start + size)
                or document_keys.count(key) != 1):
            continue
        windows.append(window)
    return sorted(windows, key=lambda w: w.first)


# -- Quotes -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Quote:
    honest: bool
    variant: str
    text: str


def honest_quotes(window: Window, vocabulary: set[str]) -> list[Quote]:
    """The words as written, and with each typical repair the window allows."""
    verbatim = window.text
    joined = join_hyphenation(window.words, vocabulary)
    if joined == verbatim:
        quotes = [Quote(True, "verbatim", verbatim)]
    else:  # each other repair is made on the joined text, to be tested on its own
        quotes = [Quote(True, "verbatim, line-break hyphen kept", verbatim),
                  Quote(True, "hyphenation joined", joined)]
    straightened = joined.translate(SMART_QUOTES)
    if straightened != joined:
        quotes.append(Quote(True, "quotes straightened", straightened))
    dropped = drop_footnote_markers(joined)
    if dropped != joined:
        quotes.append(Quote(True, "footnote marker dropped", dropped))
    return quotes


def join_hyphenation(words: Sequence[PopplerWord], vocabulary: set[str]) -> str:
    """"ser- vice" -> "service" where a line ends in a hyphen; "well-known" kept
    when the document writes it hyphenated and never joined. Footnote markers
    poppler split off are glued back to their word ("word 3" -> "word3")."""
    out: list[str] = []
    index = 0
    while index < len(words):
        word = words[index]
        following = words[index + 1] if index + 1 < len(words) else None
        if (following is not None and word.line != following.line
                and re.search(r"[^\W\d_]-$", word.text) and following.text[:1].islower()):
            closed = word.text[:-1] + following.text
            hyphenated = word.text + following.text
            keep = (word_key(hyphenated) not in vocabulary and
                    hyphenated.lower().strip(".,;:)") in vocabulary)
            out.append(hyphenated if keep else closed)
            index += 2
            continue
        if out and is_marker(word, words[index - 1]):
            out[-1] += word.text
        else:
            out.append(word.text)
        index += 1
    return " ".join(out)


def drop_footnote_markers(text: str) -> str:
    out = []
    for word in text.split(" "):
        if SUPERSCRIPTS.match(word):
            continue
        match = FOOTNOTE.match(word)
        out.append(match["word"] + match["tail"] if match else word)
    return " ".join(out)


def altered_quotes(text: str, rng: random.Random, names: list[str]) -> list[Quote]:
    """From the hyphenation-joined text, so that a changed digit is never a footnote marker."""
    texts = text.split(" ")
    found = [changed_number(texts, rng), changed_negation(texts), changed_name(texts, rng, names)]
    return [Quote(False, variant, " ".join(words)) for variant, words in found if words]


def changed_number(texts: list[str], rng: random.Random) -> tuple[str, list[str] | None]:
    """A digit of a number changed; not of a footnote marker or a bracketed
    reference ("[7]"), which the library rightly treats as apparatus."""
    spots = [(i, m.start()) for i, t in enumerate(texts) if not FOOTNOTE.match(t)
             for m in re.finditer(r"\d", t)]
    text = " ".join(texts)
    bracketed = {m.start() for m in re.finditer(r"\[[\d,;–\- ]+\]", text)}
    spots = [(i, at) for i, at in spots if not in_brackets(text, texts, i, at, bracketed)]
    if not spots:
        return "number changed", None
    index, at = rng.choice(spots)
    digit = texts[index][at]
    other = rng.choice([d for d in "0123456789" if d != digit])
    words = list(texts)
    words[index] = words[index][:at] + other + words[index][at + 1:]
    return "number changed", words


def in_brackets(text: str, texts: list[str], index: int, at: int, starts: set[int]) -> bool:
    position = sum(len(t) + 1 for t in texts[:index]) + at
    return any(s < position < text.find("]", s) for s in starts)


def changed_negation(texts: list[str]) -> tuple[str, list[str] | None]:
    keys = [word_key(t) for t in texts]
    for negation in REMOVABLE_NEGATIONS:
        if negation in keys and texts[keys.index(negation)].isalpha():
            index = keys.index(negation)
            return "negation removed", texts[:index] + texts[index + 1:]
    for index, key in enumerate(keys[:-1]):
        if key in AUXILIARIES and texts[index].isalpha() and keys[index + 1] not in NEGATIONS:
            return "negation inserted", [*texts[:index + 1], "not", *texts[index + 1:]]
    return "negation", None


def changed_name(texts: list[str], rng: random.Random,
                 names: list[str]) -> tuple[str, list[str] | None]:
    """A capitalised word inside a sentence (not its first) swapped for another name."""
    spots = [i for i in range(1, len(texts))
             if NAME.match(texts[i]) and not SENTENCE_END.search(texts[i - 1])]
    if not spots:
        return "name changed", None
    index = rng.choice(spots)
    # Another name of about the same length, as a model's slip would be.
    others = [n for n in names if n[0] != texts[index][0]
              and abs(len(n) - len(texts[index])) <= 3]
    if not others:
        return "name changed", None
    words = list(texts)
    words[index] = rng.choice(others)
    return "name changed", words


def document_names(stream: list[Placed]) -> list[str]:
    """Capitalised words of the document (replacements that look at home), sorted."""
    counts = Counter(p.word.text for p in stream if NAME.match(p.word.text))
    return sorted(name for name, n in counts.items() if len(name) >= 4 and n >= 1)


def as_answer(quote: str) -> str:
    """The quote in an answer sentence; curly outer quotes when it holds a straight one."""
    return f"“{quote}” [S1]." if '"' in quote else f'"{quote}" [S1].'


# -- Checking a window ----------------------------------------------------------------------


@dataclass
class Failure:
    file: str
    page: int
    kind: str  # "honest", "altered", "located", "area"
    variant: str
    category: str
    quote: str
    outcome: str
    score: float | None
    reason: str
    located: str = ""  # "hits/words"
    area: float | None = None
    ours: str = ""  # our text around where the window is (or should be)
    chunk: list[int] = field(default_factory=list)


@dataclass
class PdfStats:
    file: str
    status: str = "ok"
    message: str = ""
    pages: int = 0
    windows: int = 0
    honest: int = 0
    honest_ok: int = 0
    altered: int = 0
    caught: int = 0
    flagged: int = 0  # altered quotes flagged some other way (quote-not-found, wrong-source)
    words: int = 0
    located: int = 0
    areas: list[float] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def readable(self) -> bool:
        return self.status == "ok"


#: Letters and digits our text may hold between a window's lines beyond its
#: own, the lines in order: a list's number opening a line between two
#: entries ("…1216–19.⏎75⏎Dahlbom I", which pdftotext reads apart with the
#: other numbers), for the verifier to judge; a line of another column is longer.
LINE_SLACK = 4
# What may stand between two of its lines: a list's number opening a line.
# (After the line's own closing punctuation, before the next line's; OCR
# reads the number before its entry's first line, "…254-8.⏎76 Rashtak S".)
_LIST_NUMBER_LINE = re.compile(
    r"[^\w\n]*\n[ \t(\[]*\d{1,4}[.)\]]?(?:[ \t]*\n|[ \t]+)[^\w\n]*")


def find_window(ours: Ingested, window: Window) -> tuple[int, int] | None:
    """The window's range in our text (whole tokens), preferring its own page;
    else its lines in order, a list's number at most between two of them
    (:data:`LINE_SLACK`)."""
    key = window.key
    hits = []
    at = ours.keys.find(key)
    while at >= 0 and len(hits) < 20:
        hits.append(at)
        at = ours.keys.find(key, at + 1)
    if hits:
        at = next((h for h in hits if ours.page_of(ours.offsets[h]) == window.page), hits[0])
        last = at + len(key) - 1
    else:
        found = _line_by_line(ours, window)
        if found is None:
            return None
        at, last = found
    start, end = ours.offsets[at], ours.offsets[last] + 1
    text = ours.doc.text
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    while end < len(text) and not text[end].isspace():
        end += 1
    return start, end


def _line_by_line(ours: Ingested, window: Window) -> tuple[int, int] | None:
    """Where our keys hold the window's lines in order, each within
    :data:`LINE_SLACK` of the one before: the first and last key indices."""
    lines: dict[int, str] = {}
    for word in window.words:
        lines[word.line] = lines.get(word.line, "") + word.key
    keys = [key for key in lines.values() if key]
    if len(keys) < 2:
        return None
    at = ours.keys.find(keys[0])
    for _ in range(20):
        if at < 0:
            return None
        cursor = at + len(keys[0])
        for key in keys[1:]:
            found = ours.keys.find(key, cursor)
            if found < 0 or found - cursor > LINE_SLACK or (
                    found > cursor and not _LIST_NUMBER_LINE.fullmatch(
                        ours.doc.text[ours.offsets[cursor - 1] + 1 : ours.offsets[found]])):
                break
            cursor = found + len(key)
        else:
            return at, cursor - 1
        at = ours.keys.find(keys[0], at + 1)
    return None


def _on_page(ours: Ingested, key: str, page: int) -> int:
    """Where ``key`` is in our keys: its first hit on ``page`` (as
    :func:`find_window` prefers), else its first hit; -1 when absent. A line
    printed twice (a caption repeated on a later page, a name in a heading
    and in a table) is placed where the window is."""
    first = at = ours.keys.find(key)
    for _ in range(20):
        if at < 0:
            break
        if ours.page_of(ours.offsets[at]) == page:
            return at
        at = ours.keys.find(key, at + 1)
    return first


def miss_reason(ours: Ingested, window: Window) -> tuple[str, str, str]:
    """Why our text does not hold the window in order: category, reason, our text nearby."""
    lines: dict[int, list[PopplerWord]] = {}
    for word in window.words:
        lines.setdefault(word.line, []).append(word)
    found, missing = [], []
    for words in lines.values():
        key = "".join(w.key for w in words)
        at = _on_page(ours, key, window.page) if key else -1
        (found if at >= 0 else missing).append((" ".join(w.text for w in words), at))
    if missing:
        category = "extraction: poppler's line not in our text"
        reason = f"{len(missing)} of {len(lines)} poppler line(s) absent: {missing[0][0]!r}"
    else:
        positions = [ours.offsets[at] for _, at in found]
        ends = [ours.offsets[at + len(word_key(text)) - 1] + 1 for text, at in found]
        category = (TABLE_ORDER if reads_down_a_table(ours, positions, ends)
                    else "reading order: lines there, not in this order")
        reason = (f"each of the {len(lines)} poppler lines is in our text, at offsets "
                  f"{positions} (gaps {[b - a for a, b in pairwise(positions)]})")
    anchor = next((at for _, at in found if at >= 0), -1)
    context = around(ours.doc.text, ours.offsets[anchor], ours.offsets[anchor] + 1) \
        if anchor >= 0 else ""
    return category, reason, context


#: Prefix of a miss that a second independent extractor does not confirm.
POPPLER_ALONE = "poppler alone: "


def second_opinion(path: Path, page: int, key: str, cache: dict[int, str]) -> bool | None:
    """Whether pdfminer.six, a second extractor that shares no code with
    poppler or MuPDF, reads ``key`` (letters and digits, in order) on ``page``.

    Poppler is wrong sometimes: a text layer drawn twice, a glyph decoded
    otherwise than the page shows ("Figure C" where the page prints "Figure
    3"), letter-spaced type split into fragments. When pdfminer does not read
    the window either, the miss rests on poppler's word alone, and is marked
    so; when it does, two extractors agree against ours. None when pdfminer
    is not installed or cannot read the page.
    """
    if page not in cache:
        try:
            from pdfminer.high_level import extract_text
        except ImportError:
            return None
        try:
            text = extract_text(str(path), page_numbers=[page - 1])
        except Exception:  # pdfminer's own failures are no evidence either way
            return None
        cache[page] = word_key(text)
    return key in cache[page]


TABLE_ORDER = "table: poppler reads down a column, we read the row across"
#: Our lines between two of poppler's that share a row with the first and are
#: this short (words) on average are table cells, not a column of prose.
TABLE_CELL_WORDS = 5


def reads_down_a_table(ours: Ingested, starts: list[int], ends: list[int]) -> bool:
    """Whether our text puts the rest of a table row between poppler's lines.

    Poppler's flow can run down one column of a table (a cell, then the cell
    below it); we read each row across. Then what stands between two of
    poppler's lines in our text is the other cells of a row they stand in
    (the first line's, or the next one's: a list number in a column of its
    own): short lines whose boxes sit at the height of one of the two. A column of prose
    read across a gutter (the run-on that reading order must avoid) has the
    same heights but long lines, and is not excused.
    """
    text, geometry = ours.doc.text, ours.doc.geometry
    for (start, end), following in zip(zip(starts, ends, strict=True), starts[1:], strict=False):
        if following <= end or ours.page_of(end) != ours.page_of(following):
            continue
        between = geometry.glyph_boxes(end, following)
        if not between:
            continue
        rows = []
        for a, b in ((start, end), (following, following + 1)):
            own = geometry.glyph_boxes(a, b)
            if own:
                rows.append((min(own[1::4]), max(own[3::4])))
        row = any(top <= (y0 + y1) / 2 <= bottom
                  for y0, y1 in zip(between[1::4], between[3::4], strict=True)
                  for top, bottom in rows)
        lines = [ln for ln in text[end:following].split("\n") if ln.strip()]
        words = sum(len(ln.split()) for ln in lines) / max(1, len(lines))
        if row and words <= TABLE_CELL_WORDS:
            return True
    return False


def around(text: str, start: int, end: int, reach: int = 90) -> str:
    piece = text[max(0, start - reach):start] + "⟦" + text[start:end] + "⟧" + text[end:end + reach]
    return piece.replace("\n", "⏎").replace("\f", "")


def chunk_for(chunks: list[tuple[int, int]], start: int, end: int) -> tuple[int, int]:
    """The first chunk holding the range; else the last one starting before it (the quote
    runs on into the continuation, as a retriever's chunk would)."""
    for chunk in chunks:
        if chunk[0] <= start and end <= chunk[1]:
            return chunk
    starts = [c[0] for c in chunks]
    return chunks[max(0, bisect_right(starts, start) - 1)]


def chunk_source(ours: Ingested, chunk: tuple[int, int]) -> Source:
    """As reviewer/verifying.py builds a chunk's source."""
    start, end = chunk
    text = ours.doc.text[start:end + int(CITEGUARD["CONTINUATION_CHARS"])]
    skip = tuple((max(s, start) - start, min(e, start + len(text)) - start)
                 for s, e in ours.furniture if s < start + len(text) and e > start)
    return Source(marker="S1", text=text, skip=skip, injected_end=end - start,
                  document="pdf", document_offset=start, ocr=ocr_ranges(ours, start, len(text)))


def ocr_ranges(ours: Ingested, start: int, length: int) -> tuple[tuple[int, int], ...]:
    """The pages OCR read, as ranges of the source ``doc.text[start:start + length]``."""
    read = {page.number for page in ours.doc.ocr.pages} if ours.doc.ocr else set()
    return tuple((max(p.text_start, start) - start, min(p.text_end, start + length) - start)
                 for p in ours.doc.pages
                 if p.number in read and p.text_start < start + length and p.text_end > start)


def located_score(ours: Ingested, window: Window, citations: Sequence[Citation]
                  ) -> tuple[int, float | None]:
    """Poppler words of the window inside the located rectangles, and the area ratio."""
    rects: dict[int, list[list[float]]] = {}
    for citation in citations:
        if citation.document_start is None or citation.document_end is None:
            continue
        for page in locate(ours.doc, citation.document_start, citation.document_end,
                           skip=ours.furniture):
            rects.setdefault(page["page"], []).extend(page["rects"])
    hits = sum(1 for w in window.words if w.key and inside(w.centre, rects.get(window.page, [])))
    if not rects:
        return hits, None
    area = sum((r[2] - r[0]) * (r[3] - r[1]) for page in rects.values() for r in page)
    return hits, area / max(words_area(window.words), 1e-6)


def inside(point: tuple[float, float], rects: list[list[float]]) -> bool:
    x, y = point
    return any(r[0] - TOLERANCE <= x <= r[2] + TOLERANCE and r[1] - TOLERANCE <= y <= r[3]
               + TOLERANCE for r in rects)


def words_area(words: Sequence[PopplerWord]) -> float:
    """The words' boxes joined along each poppler line."""
    lines: dict[int, list[float]] = {}
    for word in words:
        box = lines.setdefault(word.line, list(word.box))
        box[:] = [min(box[0], word.box[0]), min(box[1], word.box[1]),
                  max(box[2], word.box[2]), max(box[3], word.box[3])]
    return sum((b[2] - b[0]) * (b[3] - b[1]) for b in lines.values())


def outcome_of(citations: Sequence[Citation]) -> str:
    return "+".join(c.outcome for c in citations) or "no citation"


def reason_of(citations: Sequence[Citation]) -> str:
    parts = [c.message for c in citations if c.message]
    diffs = [f"{d.op} {d.source!r}->{d.quote!r} {list(d.reasons)}" for c in citations
             for d in c.differences[:3]]
    return " | ".join(parts + diffs)[:400]


def check_window(stats: PdfStats, ours: Ingested, window: Window, quotes: list[Quote],
                 path: Path, pdfminer: dict[int, str]) -> None:
    words = sum(1 for w in window.words if w.key)
    span = find_window(ours, window)
    if span is None:
        category, reason, context = miss_reason(ours, window)
        confirmed = second_opinion(path, window.page, window.key, pdfminer)
        if confirmed is False and category != TABLE_ORDER:
            category = POPPLER_ALONE + category
            reason += "; pdfminer.six does not read this window either"
        for quote in (q for q in quotes if q.honest):
            stats.honest += 1
            stats.words += words
            stats.failures.append(Failure(stats.file, window.page, "honest", quote.variant,
                                          category, quote.text, "not in our text", None,
                                          reason, f"0/{words}", None, context))
        return
    chunk = chunk_for(ours.chunks, *span)
    source = chunk_source(ours, chunk)
    context = around(ours.doc.text, *span)
    furniture = any(s < span[1] and e > span[0] for s, e in ours.furniture)
    for quote in quotes:
        citations = verify_answer(as_answer(quote.text), [source]).citations
        outcome = outcome_of(citations)
        score = max((c.score for c in citations if c.score is not None), default=None)
        base = Failure(stats.file, window.page, "", quote.variant, "", quote.text, outcome,
                       score, reason_of(citations), "", None, context, list(chunk))
        if not quote.honest:
            stats.altered += 1
            if any(c.outcome == "quote-altered" for c in citations):
                stats.caught += 1
            else:
                stats.flagged += any(c.outcome in REVIEW_OUTCOMES for c in citations)
                stats.failures.append(replace(base, kind="altered",
                                              category=f"alteration passed as {outcome}"))
            continue
        stats.honest += 1
        verified = bool(citations) and all(c.outcome in VERIFIED for c in citations)
        stats.honest_ok += verified
        hits, area = located_score(ours, window, citations)
        stats.words += words
        stats.located += hits
        if area is not None:
            stats.areas.append(area)
        located = f"{hits}/{words}"
        if not verified:
            category = ("furniture: the window overlaps a furniture range" if furniture
                        else f"verify: {quote.variant} -> {outcome}"
                        + spacing_note(quote.text, ours.doc.text[span[0]:span[1]]))
            stats.failures.append(replace(base, kind="honest", category=category,
                                          located=located, area=area))
        elif hits < words:
            category = "highlight: no rectangle" if area is None else "highlight: words outside"
            stats.failures.append(replace(base, kind="located", category=category,
                                          located=located, area=area))
        elif area is not None and area > AREA_FLAG:
            stats.failures.append(replace(base, kind="area", category="highlight: area > 3x",
                                          located=located, area=area))


def spacing_note(quote: str, ours: str) -> str:
    """Same letters and digits as our text, but cut into words differently
    ("Title 1" / "Title1", "R و Python" / "R وPython")."""
    theirs = [k for k in map(word_key, quote.split()) if k]
    mine = [k for k in map(word_key, ours.split()) if k]
    if theirs != mine and "".join(theirs) == "".join(mine):
        return " (only the word spacing differs from our text)"
    return ""


def replace(failure: Failure, **changes: object) -> Failure:
    return Failure(**{**asdict(failure), **changes})


# -- Per PDF -----------------------------------------------------------------------------------


def run_pdf(path: Path, count: int, seed: int, sections: frozenset[str] = frozenset({"prose"}),
            cases: int = 0) -> tuple[PdfStats, dict[str, SectionStats]]:
    """The prose windows' score, and each other section's asked for in ``sections``
    ("footnotes", "tables": ``cases`` of each kind), on one ingestion of the PDF."""
    started = time.perf_counter()
    stats = PdfStats(path.name)
    extra: dict[str, SectionStats] = {}
    try:
        ours = ingest(path.read_bytes())
    except ExtractionError as error:
        stats.status, stats.message = error.kind, error.message
        return stats, extra
    if path.name.startswith(ERROR_PREFIX):
        stats.status = "ok, error file"
        stats.message = (f"{ours.doc.page_count} page(s), {len(ours.doc.text):,} chars read, "
                         "but its text layer is known to be wrong (see MANIFEST.tsv)")
        ours.doc.geometry.close()
        return stats, extra
    stats.pages = ours.doc.page_count
    try:
        pages = poppler_pages(path)
    except Exception as error:  # any pdftotext failure is reported, not fatal
        stats.status, stats.message = "pdftotext failed", str(error)[:200]
        ours.doc.geometry.close()
        return stats, extra
    stream = word_stream(pages)
    if "prose" in sections:
        run_prose(stats, ours, path, pages, stream, count, seed)
    if "footnotes" in sections:
        extra["footnotes"] = run_footnotes(ours, path, pages, stream, cases, seed)
    if "tables" in sections:
        extra.update(run_tables(ours, path, pages, cases, seed))
    ours.doc.geometry.close()
    stats.seconds = time.perf_counter() - started
    return stats, extra


def run_prose(stats: PdfStats, ours: Ingested, path: Path, pages: list[PopplerPage],
              stream: list[Placed], count: int, seed: int) -> None:
    rng = random.Random(f"{seed}:{path.name}")
    vocabulary = {w.text.lower().strip(".,;:)") for w in (p.word for p in stream)} | {
        p.word.key for p in stream}
    names = document_names(stream)
    windows = sample_windows(stream, pages, rng, count)
    pdfminer: dict[int, str] = {}  # page number -> pdfminer.six's text of it, keyed
    stats.windows = len(windows)
    for window in windows:
        joined = join_hyphenation(window.words, vocabulary)
        # An altered copy that the document holds elsewhere (a dose repeated
        # with another interval) is an honest quote of that passage.
        altered = [q for q in altered_quotes(joined, rng, names)
                   if word_key(q.text) not in ours.keys]
        quotes = honest_quotes(window, vocabulary) + altered
        check_window(stats, ours, window, quotes, path, pdfminer)


def run_footnotes(ours: Ingested, path: Path, pages: list[PopplerPage], stream: list[Placed],
                  count: int, seed: int) -> SectionStats:
    from bench.generalise_sections.common import SectionStats, score_case
    from bench.generalise_sections.footnotes import POPPLER_ALONE as POPPLER_ALONE_FOOTNOTES
    from bench.generalise_sections.footnotes import TABLE_ORDER as TABLE_ORDER_FOOTNOTES
    from bench.generalise_sections.footnotes import footnote_cases, read_in_order

    stats = SectionStats(path.name)
    cases, markers = footnote_cases(stream, pages, random.Random(f"{seed}:footnotes:{path.name}"),
                                    count)
    if markers:
        stats.note = f"{markers} raised marker(s)"
    pdfminer: dict[int, str] = {}
    for case in cases:
        before = len(stats.failures)
        score_case(stats, ours, case)
        misses = stats.failures[before:]
        # A miss whose window a second extractor does not read in order
        # either rests on poppler's reading alone: marked so (the empty key
        # only reads the page into the cache; None: no pdfminer here).
        if not misses:
            continue
        if second_opinion(path, case.page, "", pdfminer) is not None and not read_in_order(
                pdfminer[case.page], case.pieces):
            prefix = POPPLER_ALONE_FOOTNOTES
        elif miss_reason(ours, Window(case.page, list(case.targets), 0))[0] == TABLE_ORDER:
            # Poppler (and pdfminer) read down a table's column of labels,
            # we read its rows across: the prose section's "table" windows.
            prefix = TABLE_ORDER_FOOTNOTES
        else:
            continue
        for miss in misses:
            miss.category = prefix + miss.category
    return stats


def run_tables(ours: Ingested, path: Path, pages: list[PopplerPage], count: int,
               seed: int) -> dict[str, SectionStats]:
    from bench.generalise_sections.common import SectionStats, score_case
    from bench.generalise_sections.tables import MERGED, table_cases

    rows, cells = SectionStats(path.name), SectionStats(path.name)
    # The same cases, those of tables without merged cells alone: the narrower oracle.
    plain_rows, plain_cells = SectionStats(path.name), SectionStats(path.name)
    # Tables a reader quotes by row, sampled on their own.
    by_row_rows, by_row_cells = SectionStats(path.name), SectionStats(path.name)
    found = {"table rows": rows, "table cells": cells,
             "table rows, no merged cells": plain_rows, "table cells, no merged cells": plain_cells,
             "table rows, quoted by row": by_row_rows,
             "table cells, quoted by row": by_row_cells}
    try:
        (row_cases, cell_cases, note, irregular, by_row_row_cases, by_row_cell_cases,
         not_by_row) = table_cases(path, pages, random.Random(f"{seed}:tables:{path.name}"),
                                   count, random.Random(f"{seed}:tables by row:{path.name}"))
    except Exception as error:  # pdfplumber's own failure is reported, not fatal
        for stats in found.values():
            stats.status, stats.note = "pdfplumber failed", f": {str(error)[:80]}"
        return found
    rows.note = cells.note = note
    plain_rows.note = plain_cells.note = "; ".join(filter(None, [note, *irregular]))
    for cases, every, plain in ((row_cases, rows, plain_rows), (cell_cases, cells, plain_cells)):
        for case in cases:
            score_case(every, ours, case)
            if MERGED not in case.label:
                score_case(plain, ours, case)
    by_row_rows.note = by_row_cells.note = "; ".join(filter(None, [note, *not_by_row]))
    for case in by_row_row_cases:
        score_case(by_row_rows, ours, case)
    for case in by_row_cell_cases:
        score_case(by_row_cells, ours, case)
    return found


# -- Output --------------------------------------------------------------------------------------


def rate(part: int, whole: int) -> float:
    return part / whole if whole else math.nan


def pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{100 * value:.1f}%"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    cells = [[str(h) for h in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for number, row in enumerate(cells):
        print("  " + "  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i])
                               for i, c in enumerate(row)).rstrip())
        if number == 0:
            print("  " + "  ".join("-" * w for w in widths))


def short(name: str, width: int = 46) -> str:
    return name if len(name) <= width else name[:width - 1] + "…"


def below_floor(stats: PdfStats) -> list[str]:
    measured = {"honest": rate(stats.honest_ok, stats.honest),
                "altered": rate(stats.caught, stats.altered),
                "located": rate(stats.located, stats.words)}
    return [name for name, value in measured.items() if value < FLOOR]


def print_table(results: list[PdfStats]) -> None:
    rows: list[list[object]] = []
    for s in results:
        if not s.readable:
            continue
        median = f"{statistics.median(s.areas):.2f}" if s.areas else "-"
        big = sum(1 for a in s.areas if a > AREA_FLAG)
        rows.append([short(s.file), s.pages, s.windows,
                     f"{s.honest_ok}/{s.honest}", pct(rate(s.honest_ok, s.honest)),
                     f"{s.caught}/{s.altered}", pct(rate(s.caught, s.altered)),
                     pct(rate(s.located, s.words)), median, big or "",
                     ", ".join(below_floor(s)) or ""])
    readable = [s for s in results if s.readable]
    areas = [a for s in readable for a in s.areas]
    honest, ok = sum(s.honest for s in readable), sum(s.honest_ok for s in readable)
    altered, caught = sum(s.altered for s in readable), sum(s.caught for s in readable)
    words, located = sum(s.words for s in readable), sum(s.located for s in readable)
    rows.append(["TOTAL", sum(s.pages for s in readable), sum(s.windows for s in readable),
                 f"{ok}/{honest}", pct(rate(ok, honest)), f"{caught}/{altered}",
                 pct(rate(caught, altered)), pct(rate(located, words)),
                 f"{statistics.median(areas):.2f}" if areas else "-",
                 sum(1 for a in areas if a > AREA_FLAG), ""])
    table(["file", "pages", "windows", "honest", "verified", "altered", "caught", "located",
           "area med", f"area>{AREA_FLAG:.0f}x", f"below {FLOOR:.0%}"], rows)


def print_errors(results: list[PdfStats], expected: dict[str, str]) -> None:
    errors = [s for s in results if not s.readable]
    if not errors:
        return
    print("\n  Error files and files not read, left out of the rates (status of our ingestion; "
          "the manifest's expectation):")
    for s in errors:
        want = expected.get(s.file, "?")
        print(f"    {short(s.file)}  {s.status} (manifest: {want}): {s.message[:100]}")


def print_goals(results: list[PdfStats]) -> None:
    readable = [s for s in results if s.readable]
    totals = {
        "honest": rate(sum(s.honest_ok for s in readable), sum(s.honest for s in readable)),
        "altered": rate(sum(s.caught for s in readable), sum(s.altered for s in readable)),
        "located": rate(sum(s.located for s in readable), sum(s.words for s in readable)),
    }
    labels = {"honest": "honest quotes verified", "altered": "alterations caught",
              "located": "located words"}
    # What the rates are without windows poppler reads down a table's
    # column, or that pdfminer.six does not read as poppler does: told apart,
    # not hidden (their failures are listed below).
    left_out = [f for s in readable for f in s.failures if f.kind == "honest"
                and (f.category == TABLE_ORDER or f.category.startswith(POPPLER_ALONE))]
    table = sum(1 for f in left_out if f.category == TABLE_ORDER)
    alone = len(left_out) - table
    honest, honest_ok = sum(s.honest for s in readable), sum(s.honest_ok for s in readable)
    words, located = sum(s.words for s in readable), sum(s.located for s in readable)
    # A window left out of the honest rate has no right place to be found
    # either, so located words leave out the same windows.
    left_out_words = sum(int(f.located.split("/")[1]) for f in left_out if f.located)
    left_out_hits = sum(int(f.located.split("/")[0]) for f in left_out if f.located)
    judged = {
        "honest": rate(honest_ok, honest - len(left_out)),
        "altered": totals["altered"],
        "located": rate(located - left_out_hits, words - left_out_words),
    }
    print("\n  All windows:")
    for name in GOALS:
        print(f"    {labels[name]:24s} {pct(totals[name]):>7}")
    print(f"    honest quotes verified, leaving out the {table} that poppler reads down a table "
          f"column: {pct(rate(honest_ok, honest - table))}")
    print(f"\n  Goals (leaving out those {table} and the {alone} that pdfminer.six does not "
          f"read as poppler does):")
    for name, goal in GOALS.items():
        value = judged[name]
        verdict = "-" if math.isnan(value) else ("PASS" if value >= goal else "FAIL")
        print(f"    {labels[name]:24s} {pct(value):>7}   goal >= {goal:.1%}   {verdict}")
    low = [f"{short(s.file, 40)} ({', '.join(below_floor(s))})" for s in readable
           if below_floor(s)]
    flagged = sum(s.flagged for s in readable)
    print(f"    (altered quotes not caught but flagged another way, e.g. quote-not-found: "
          f"{flagged})")
    print(f"    no PDF below {FLOOR:.0%} on any: {'PASS' if not low else 'FAIL'}"
          + (f" -- {len(low)} below:" if low else ""))
    for line in low:
        print(f"      {line}")


def print_failures(results: list[PdfStats]) -> None:
    failures = [f for s in results for f in s.failures]
    if not failures:
        print("\n  No failures.")
        return
    print("\n  Failures by category (quotes; an honest failure also counts its words "
          "as not located):")
    for category, n in Counter(f.category for f in failures).most_common():
        files = Counter(f.file for f in failures if f.category == category)
        where = ", ".join(f"{short(k, 28)} {v}" for k, v in files.most_common(4))
        print(f"    {n:4d}  {category}   [{where}]")
    order = {"honest": 0, "altered": 1, "located": 2, "area": 3}
    shown = sorted(failures, key=lambda f: (order[f.kind], f.category, f.file, f.page))
    picked = spread(shown, WORST)
    print(f"\n  {len(picked)} of the {len(failures)} failures, spread over categories and "
          "files (all in --failures FILE):")
    for f in picked:
        score = "" if f.score is None else f" score {f.score:.3f}"
        area = "" if f.area is None else f", area {f.area:.1f}x"
        located = f", located {f.located}" if f.located else ""
        print(f"   - {short(f.file, 44)} p{f.page} [{f.kind}: {f.variant}] {f.outcome}{score}"
              f"{located}{area}\n       category {f.category}\n       quote    {f.quote[:220]!r}")
        if f.reason:
            print(f"       reason   {f.reason[:300]}")
        if f.ours:
            print(f"       ours     {f.ours[:330]}")


def spread(failures: list[Failure], limit: int) -> list[Failure]:
    """Up to ``limit`` failures taking turns over (category, file), so that one bad
    file does not fill the list."""
    groups: dict[tuple[str, str], list[Failure]] = {}
    for failure in failures:
        groups.setdefault((failure.category, failure.file), []).append(failure)
    picked: list[Failure] = []
    while len(picked) < limit and any(groups.values()):
        for group in groups.values():
            if group and len(picked) < limit:
                picked.append(group.pop(0))
    order = {"honest": 0, "altered": 1, "located": 2, "area": 3}
    return sorted(picked, key=lambda f: (order[f.kind], f.category, f.file, f.page))


# -- Main ----------------------------------------------------------------------------------


SECTIONS = ("prose", "footnotes", "tables", "ocr")


def main(argv: Sequence[str] | None = None) -> int:
    from bench.generalise_sections import CASES, print_section
    from bench.generalise_sections.scans import DPI, pick_pages, print_scan_goals, run_scan
    from bench.generalise_sections.tables import BY_ROW_CASES

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help=f"{WINDOWS['quick']} windows per PDF instead of {WINDOWS['normal']}, "
                             f"{CASES['quick']} footnote windows, rows and cells instead of "
                             f"{CASES['normal']}")
    parser.add_argument("--seed", type=int, default=20240601, help="sampling seed")
    parser.add_argument("--only", metavar="NAME", help="only PDFs whose file name contains NAME")
    parser.add_argument("--corpus", type=Path, default=CORPUS_DIR,
                        help="folder of PDFs (default: ../shared/corpus/pdfs); MANIFEST.tsv "
                             "there is optional: without it every *.pdf is used")
    parser.add_argument("--skip", action="append", default=[], metavar="SECTION",
                        help=f"leave a section out ({', '.join(SECTIONS)}); repeat or "
                             "comma-separate")
    parser.add_argument("--ocr-pages", type=int, default=10, metavar="N",
                        help="image-only pages to OCR, one from each of N PDFs (default 10; "
                             "about 5 s a page)")
    parser.add_argument("--failures", type=Path, metavar="FILE",
                        help="write every failure of the prose section as JSON to FILE")
    args = parser.parse_args(argv)
    skipped = {name.strip() for value in args.skip for name in value.split(",") if name.strip()}
    unknown = skipped - set(SECTIONS)
    if unknown:
        parser.error(f"--skip takes {', '.join(SECTIONS)}; not {', '.join(sorted(unknown))}")
    began = time.perf_counter()
    version = poppler_version()
    if version is None:
        print("bench/generalise.py: pdftotext is not installed, and it is this bench's "
              "independent extractor;\nskipped. Debian/Ubuntu: apt-get install poppler-utils "
              "(bin/setup does it when run as root).")
        return 0
    if "tables" not in skipped and not has_pdfplumber():
        print("bench/generalise.py: pdfplumber (the table section's independent reader, a dev "
              "dependency) is not installed;\nthe table section is skipped. pip install -e "
              "'.[dev]' installs it.\n")
        skipped.add("tables")
    sections = frozenset(SECTIONS) - skipped
    paths = sorted(args.corpus.glob("*.pdf"))
    if args.only:
        paths = [p for p in paths if args.only in p.name]
    if not paths:
        print(f"no PDFs in {args.corpus}" + (f" matching {args.only!r}" if args.only else ""))
        return 2
    manifest = read_manifest(args.corpus)
    expected = {name: expected_status(row) for name, row in manifest.items()}
    count = WINDOWS["quick" if args.quick else "normal"]
    cases = CASES["quick" if args.quick else "normal"]
    print(f"citeguard generalisation bench: {len(paths)} PDF(s) in {args.corpus.resolve()}"
          + ("" if manifest else " (no MANIFEST.tsv: every PDF used)")
          + f", {count} windows per PDF, seed {args.seed}; sections: "
          + ", ".join(s for s in SECTIONS if s in sections))
    print(f"Python {platform.python_version()}; {version}; chunks of "
          f"{CITEGUARD['CHUNK_SIZE']} chars, overlap {CITEGUARD['CHUNK_OVERLAP']}, "
          f"continuation {CITEGUARD['CONTINUATION_CHARS']}\n")
    results = []
    extra: dict[str, list[SectionStats]] = {}
    for path in paths:
        stats, more = run_pdf(path, count, args.seed, sections, cases)
        results.append(stats)
        for name, section in more.items():
            extra.setdefault(name, []).append(section)
        print(f"  {short(path.name, 60):60s} {stats.status:10s} {stats.seconds:5.1f} s",
              file=sys.stderr)
    if "prose" in sections:
        print_prose(results, expected)
    if "footnotes" in sections:
        print_section("footnotes", extra.get("footnotes", []),
                      "windows across a raised footnote marker (poppler: a shorter word, its "
                      "bottom above the line's,\n  after a word ending in three letters), each "
                      "quoted with the "
                      "marker kept, dropped and glued to the word before;\n  located = the "
                      "window's other words inside the rectangles. Marker counts in the note.")
        from bench.generalise_sections.footnotes import print_footnote_goals

        print_footnote_goals(extra.get("footnotes", []))
    if "tables" in sections:
        explain = ("pdfplumber's tables (find_tables, ruled lines): {what}, verified against the "
                   "chunk holding them;\n  located = poppler's words inside the cells' boxes "
                   "inside the rectangles.")
        print_section("table rows", extra.get("table rows", []), explain.format(
            what="a row's non-empty cells joined by a space"))
        print_section("table cells", extra.get("table cells", []), explain.format(
            what="one cell of three words or more"))
        narrower = ("the same rows and cells, those of tables with no merged cell alone (a cell "
                    "across rows or columns, as\n  pdfplumber's grid has it: a form's layout, "
                    "lists side by side, a label over several rows);\n  the note lists each "
                    "table left out")
        print_section("table rows, no merged cells", extra.get("table rows, no merged cells", []),
                      narrower, quiet_notes=True)
        print_section("table cells, no merged cells",
                      extra.get("table cells, no merged cells", []), narrower, quiet_notes=True)
        by_row = ("tables a reader quotes by row: a row of column heads at the top, two rows or "
                  "more under it,\n  at most a quarter of the grid's places under merged cells "
                  f"(not a form's layout); sampled apart, {BY_ROW_CASES}x as many\n  a PDF; the "
                  "note lists each table left out and why")
        print_section("table rows, quoted by row", extra.get("table rows, quoted by row", []),
                      by_row, quiet_notes=True)
        print_section("table cells, quoted by row", extra.get("table cells, quoted by row", []),
                      by_row, quiet_notes=True)
    if "ocr" in sections and args.ocr_pages > 0:
        readable = [p for p, s in zip(paths, results, strict=True) if s.status == "ok"]
        picks = pick_pages(readable, random.Random(f"{args.seed}:scans"), args.ocr_pages)
        scans = []
        for path, number, page in picks:
            scans.append(run_scan(path, number, page, args.seed))
            print(f"  scan of {short(path.name, 50)} p{number}: {scans[-1].status}, "
                  f"{scans[-1].seconds:.1f} s", file=sys.stderr)
        seconds = [s.seconds for s in scans if s.status == "ok"]
        timing = (f"ingestion {statistics.median(seconds):.1f} s a page (median)" if seconds
                  else "no page ingested")
        print_section("image-only pages", scans,
                      f"born-digital pages rendered by pdftoppm at {DPI} dpi, wrapped as "
                      "image-only PDFs and ingested (OCR);\n  honest windows of poppler's "
                      f"text of the original page, located on its word boxes; {timing}.")
        print_scan_goals(scans)
    if args.failures and "prose" in sections:
        data = [asdict(f) for s in results for f in s.failures]
        args.failures.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
        print(f"\n  {len(data)} failures written to {args.failures}")
    print(f"\nWall time {time.perf_counter() - began:.0f} s.")
    return 0


def has_pdfplumber() -> bool:
    try:
        import pdfplumber  # noqa: F401
    except ImportError:
        return False
    return True


def print_prose(results: list[PdfStats], expected: dict[str, str]) -> None:
    print("== running prose ==")
    print("  honest = quotes of poppler's words (verbatim, and repaired: hyphenation joined, "
          "smart quotes straightened,\n  footnote marker dropped), verified or verified-fuzzy; "
          "altered = a number, a negation or a name changed,\n  caught as quote-altered; "
          f"located = poppler's words of honest quotes inside the rectangles (+-{TOLERANCE} pt);"
          "\n  area = rectangles' area / the quoted words' area along their lines, median.\n")
    print_table(results)
    print_errors(results, expected)
    print_goals(results)
    print_failures(results)


if __name__ == "__main__":
    # Run the module's own copy, so that the sections (which import this module's
    # helpers as bench.generalise) and main share one set of definitions.
    from bench.generalise import main as module_main

    raise SystemExit(module_main())
