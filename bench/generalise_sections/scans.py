"""Image-only pages: a born-digital page printed to an image and read back by OCR.

For a fixed, seeded set of pages (``--ocr-pages``; one page from each of as
many born-digital PDFs, a second round when there are fewer PDFs): poppler's
``pdftoppm -r 300 -png -cropbox`` renders the page; PyMuPDF wraps the image
into a new one-page PDF of the same size (the image fills the page, no text
layer); that PDF goes through the real path (``extract_pdf``, which must OCR
a page with no text, then furniture and chunks). Quotes are windows of
poppler's text of the ORIGINAL page, sampled and quoted as the prose
windows are; verified against the chunk holding them, and located against
the original page's poppler word boxes (same page size, same frame).

A document that fails to ingest (``no-text`` where there is no OCR) fails
every one of its quotes, with the reason, and locates none of their words.
Pages with /Rotate, with fewer than ``MIN_PAGE_WORDS`` words or with no
window of running prose (a form) are not picked (the first: pdftoppm renders
them turned, poppler's words are not).

What a scan should read is what our ingestion reads from the original's text
layer. A miss whose window that reading does not hold either (poppler reads
a table down its columns where both our readings go across the rows, or
decodes a glyph otherwise than the page prints it) is marked
``TEXT_LAYER_ALONE``: not the OCR's doing. Told apart, never dropped: the
goals are printed with and without them (:func:`print_scan_goals`).

The oracle can also be wrong where both readings of the text layer agree:
a font whose ``/Differences`` names a glyph ``fi`` while its ToUnicode map
says "f" (a court's print: "frst", "Defning" where the page shows "first").
A scan of that page shows the ligature, and a person quoting it writes
"first". Such glyphs are found in the original's fonts
(:func:`misdecoded_glyphs`: the glyph's name against its ToUnicode text, no
OCR involved); a window holding one is scored twice, once as poppler reads
it (the all-windows figure, unchanged) and once with those words as the
glyphs' names spell them (:data:`ORACLE_REPAIRED`), and the judged figure
takes the second. A number the OCR misreads in such a window is still a
miss in both.
"""

from __future__ import annotations

import contextlib
import random
import subprocess
import tempfile
import time
import unicodedata
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pymupdf

from bench.generalise import (
    ERROR_PREFIX,
    Ingested,
    altered_quotes,
    as_answer,
    chunk_for,
    chunk_source,
    document_names,
    honest_quotes,
    ingest,
    join_hyphenation,
    sample_windows,
    word_stream,
)
from bench.generalise_sections import pct, print_failures
from bench.generalise_sections.common import (
    Case,
    SectionStats,
    find_span,
    rate,
    rates_without,
    score_case,
)
from bench.poppler import PopplerPage, PopplerWord, poppler_pages, word_key
from reviewer.ingestion import ExtractionError
from reviewer.ingestion.ocr import installed_languages
from verification import verify_answer

DPI = 300
MIN_PAGE_WORDS = 80
WINDOWS_PER_PAGE = 5
TRIES = 6  # random pages tried per PDF for one with enough words
NOT_BORN_DIGITAL = ("scan", "ocr")  # names of corpus files whose text layer is OCR already

#: Prefix of a miss whose window our reading of the original's text layer
#: does not hold in order either.
TEXT_LAYER_ALONE = "not read so from the text layer either: "
#: Label of a window scored again with its misdecoded glyphs as their names
#: spell them (see the module's docstring).
ORACLE_REPAIRED = "window repaired: the text layer decodes a glyph otherwise than its font names it"

__all__ = ["ORACLE_REPAIRED", "TEXT_LAYER_ALONE", "ScanStats", "image_only_pdf",
           "misdecoded_glyphs", "pick_pages", "print_scan_goals", "run_scan"]


@dataclass
class ScanStats(SectionStats):
    """One page's score, and for the windows holding a misdecoded glyph their
    share of it as poppler reads them (``as_read``) and as repaired (``repaired``)."""

    as_read: SectionStats = field(default_factory=lambda: SectionStats("as read"))
    repaired: SectionStats = field(default_factory=lambda: SectionStats("repaired"))
    #: Altered quotes of the windows (a number, a negation or a name changed,
    #: as the prose section alters them), checked against the OCR's text:
    #: how many, how many caught as quote-altered, and those that were not.
    altered: int = 0
    caught: int = 0
    missed: list[str] = field(default_factory=list)


def pick_pages(paths: list[Path], rng: random.Random, count: int
               ) -> list[tuple[Path, int, PopplerPage]]:
    """``count`` (PDF, page number, poppler's page) picks, one PDF after another."""
    candidates = [p for p in paths if not p.name.startswith(ERROR_PREFIX)
                  and not any(word in p.name.lower() for word in NOT_BORN_DIGITAL)]
    rng.shuffle(candidates)
    picked: list[tuple[Path, int, PopplerPage]] = []
    taken: set[tuple[str, int]] = set()
    for round_ in range(3):
        for path in candidates:
            if len(picked) == count:
                return picked
            choice = pick_page(path, rng, taken)
            if choice is not None:
                picked.append((path, *choice))
                taken.add((path.name, choice[0]))
        if round_ == 0 and not picked:
            break
    return picked


def pick_page(path: Path, rng: random.Random, taken: set[tuple[str, int]]
              ) -> tuple[int, PopplerPage] | None:
    try:
        with pymupdf.open(path) as doc:
            if doc.needs_pass:
                return None
            rotations = [page.rotation for page in doc]
    except Exception:  # an unreadable file offers no page to render
        return None
    for _ in range(TRIES):
        number = rng.randint(1, len(rotations))
        if rotations[number - 1] or (path.name, number) in taken:
            continue
        try:
            pages = poppler_pages(path, only_page=number)
        except Exception:
            return None
        if (pages and sum(1 for w in pages[0].words if w.key) >= MIN_PAGE_WORDS
                and sample_windows(word_stream(pages), pages, random.Random(0), 1)):
            return number, pages[0]
    return None


def image_only_pdf(path: Path, number: int, page: PopplerPage) -> bytes:
    """Page ``number`` of ``path`` rendered at ``DPI`` and wrapped as a one-page PDF
    of the same size with no text layer."""
    with tempfile.TemporaryDirectory(prefix="citeguard-scan-") as folder:
        stem = Path(folder) / "page"
        subprocess.run(["pdftoppm", "-r", str(DPI), "-png", "-cropbox", "-singlefile",
                        "-f", str(number), "-l", str(number), str(path), str(stem)],
                       check=True, capture_output=True, timeout=120)
        with pymupdf.open() as doc:
            new = doc.new_page(width=page.width, height=page.height)
            new.insert_image(new.rect, filename=str(stem.with_suffix(".png")))
            return bytes(doc.tobytes(deflate=True))


# A few of each language's commonest words: enough to tell the corpus's and
# the outside batches' English, French, German, Italian, Spanish and Danish
# pages apart (and the other languages bin/setup installs). The newer lists
# leave out one-letter words and words English or German share ("a", "at",
# "for", "po", "um", "de"): a table's few words tipped English pages otherwise.
_COMMON_WORDS = {
    "eng": frozenset("the of and to in is that for with as by on are be this".split()),
    "fra": frozenset("le la les de des et du en un une est pour dans que sur au".split()),
    "deu": frozenset("der die das und ist nicht mit von den zu ein eine auf für im".split()),
    "ita": frozenset("il la le di del della che e per con un una non sono gli nel".split()),
    "spa": frozenset("el la los las de del que y en un una por con para es se".split()),
    "dan": frozenset("og det er til af på som med den ikke efter også eller skal".split()),
    "nld": frozenset("het een van en is dat op te voor met zijn niet aan".split()),
    "por": frozenset("os das dos que em uma para com não são pelo pela".split()),
    "swe": frozenset("och att det är som på för av med till den inte har eller ska".split()),
    "nor": frozenset("og det er til av på som med den ikke etter også eller skal".split()),
    "pol": frozenset("na nie się że jest od przez dla jak oraz lub".split()),
    # Greek (batch 21's law journal): articles and prepositions, accented
    # as printed; the lower-casing below meets them as they are written.
    "ell": frozenset("και του της το τη την των τον στο στην στα από για με που ότι να σε "
                     "είναι δεν οι".split()),
}


def page_language(stream: list) -> str:  # type: ignore[type-arg]
    """The Tesseract language a person uploading this page would choose: the
    one whose common words the original page's text holds most of."""
    return language_of([p.word.text for p in stream], set(installed_languages()))


def language_of(words: list[str], installed: set[str]) -> str:
    """The installed language whose common words ``words`` hold most of.
    Two capitals are left out: a table's "ER", "NA" or "AF" is an
    abbreviation, not Danish or Polish (a heading's "FOR" or "AND" counts)."""
    lowered = [w.lower() for w in words if not (len(w) == 2 and w.isupper())]
    counts = {lang: sum(w in common for w in lowered) for lang, common in _COMMON_WORDS.items()
              if lang in installed or lang == "eng"}
    return max(counts, key=lambda lang: counts[lang])


def run_scan(path: Path, number: int, page: PopplerPage, seed: int) -> ScanStats:
    """Render, wrap, ingest and score one page."""
    stats = ScanStats(f"{path.stem} p{number}")
    stats.as_read.file = stats.repaired.file = stats.file  # failures name the page
    rng = random.Random(f"{seed}:scan:{path.name}:{number}")
    stream = word_stream([page])
    windows = sample_windows(stream, [page], rng, WINDOWS_PER_PAGE)
    vocabulary = {p.word.text.lower().strip(".,;:)") for p in stream} | {
        p.word.key for p in stream}
    cases = [Case(1, tuple((q.variant, q.text) for q in honest_quotes(w, vocabulary)),
                  tuple(w.words), tuple(x.key for x in w.words), "window")
             for w in windows]
    data = image_only_pdf(path, number, page)
    started = time.perf_counter()
    ours: Ingested | None = None
    failure = None
    try:
        ours = ingest(data, ocr_language=page_language(stream))
    except ExtractionError as error:
        stats.status, stats.message = error.kind, error.message
        failure = f"ingestion failed: {error.kind}"
    stats.seconds = time.perf_counter() - started
    text_layer = text_layer_keys(path, number)
    misdecoded = misdecoded_glyphs(path, number)
    for case, window in zip(cases, windows, strict=True):
        before = len(stats.failures)
        score_case(stats, ours, case, failure, stats.message)
        if "".join(case.pieces) not in text_layer:
            for miss in stats.failures[before:]:
                miss.category = TEXT_LAYER_ALONE + miss.category
        repaired = repaired_window(window, misdecoded)
        if repaired is not None:
            # The same window as poppler reads it (kept in ``stats``) and
            # as its glyphs' names spell it, side by side for the goals.
            score_case(stats.as_read, ours, case, failure, stats.message)
            quotes = honest_quotes(repaired, vocabulary)
            score_case(stats.repaired, ours,
                       Case(1, tuple((q.variant, q.text) for q in quotes), tuple(repaired.words),
                            tuple(x.key for x in repaired.words), ORACLE_REPAIRED),
                       failure, stats.message)
    if ours is not None:
        check_altered(stats, ours, cases, windows, stream,
                      random.Random(f"{seed}:scan-altered:{path.name}:{number}"), vocabulary)
        ours.doc.geometry.close()
    return stats


def check_altered(stats: ScanStats, ours: Ingested, cases: list[Case], windows: list[Any],
                  stream: list[Any], rng: random.Random, vocabulary: set[str]) -> None:
    """Each window's altered quotes against the chunk of the OCR's text
    holding it: OCR's misreads must never let a changed figure, negation or
    name through. A window the OCR's text does not hold has no chunk to
    check against and is left out (its honest quotes already count it)."""
    names = document_names(stream)
    for case, window in zip(cases, windows, strict=True):
        span = find_span(ours, case.pieces, case.page)
        if span is None:
            continue
        source = chunk_source(ours, chunk_for(ours.chunks, *span))
        joined = join_hyphenation(window.words, vocabulary)
        for quote in altered_quotes(joined, rng, names):
            if word_key(quote.text) in ours.keys:
                continue  # the document says this too: no alteration
            citations = verify_answer(as_answer(quote.text), [source]).citations
            stats.altered += 1
            if any(c.outcome == "quote-altered" for c in citations):
                stats.caught += 1
            else:
                outcome = "+".join(c.outcome for c in citations) or "no citation"
                stats.missed.append(f"{stats.file} [{quote.variant}] {outcome}: {quote.text!r}")


def misdecoded_glyphs(path: Path, number: int
                      ) -> list[tuple[tuple[float, float, float, float], str, str]]:
    """The glyphs of page ``number`` whose text layer says otherwise than
    their font names them: (box in poppler's frame, the text layer's text,
    the name's text). Only a glyph the font's ``/Encoding /Differences``
    names explicitly and a ToUnicode map decodes is judged, and only when
    the two differ in letters or digits (``fi`` named, "f" decoded); a name
    with no standard Unicode (``a.sc``) says nothing. pdfminer.six reads the
    fonts: it shares no code with poppler or MuPDF."""
    from pdfminer.converter import PDFPageAggregator
    from pdfminer.encodingdb import name2unicode
    from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdftypes import list_value, resolve1
    from pdfminer.psparser import literal_name

    named_by_font: dict[int, dict[int, str]] = {}  # id(font) -> code -> the name's text

    class Fonts(PDFResourceManager):
        def get_font(self, objid: object, spec: Any) -> Any:
            font = super().get_font(objid, spec)
            if id(font) not in named_by_font:
                named: dict[int, str] = {}
                encoding = resolve1(spec.get("Encoding")) if "Encoding" in spec else None
                if isinstance(encoding, dict):
                    code = 0
                    for item in list_value(encoding.get("Differences", [])):
                        if isinstance(item, int):
                            code = item
                            continue
                        # A name with no standard Unicode (a.sc) is no evidence.
                        with contextlib.suppress(Exception):
                            named[code] = name2unicode(literal_name(item))
                        code += 1
                named_by_font[id(font)] = named
            return font

    found: list[tuple[tuple[float, float, float, float], str, str]] = []

    class Glyphs(PDFPageAggregator):
        def render_char(self, matrix: Any, font: Any, fontsize: float, scaling: float,
                        rise: float, cid: int, *rest: Any) -> float:
            advance = super().render_char(matrix, font, fontsize, scaling, rise, cid, *rest)
            named = named_by_font.get(id(font), {}).get(cid)
            if named is None or font.unicode_map is None:
                return advance
            try:
                decoded = font.unicode_map.get_unichr(cid)
            except KeyError:
                return advance
            if word_key(named) and word_key(named) != word_key(decoded):
                found.append((self.cur_item._objs[-1].bbox, decoded, named))
            return advance

    fonts = Fonts()
    device = Glyphs(fonts)
    try:
        with path.open("rb") as handle:
            page = next(iter(PDFPage.get_pages(handle, pagenos=[number - 1])), None)
            if page is None:
                return []
            PDFPageInterpreter(fonts, device).process_page(page)
    except Exception:  # pdfminer's own failures are no evidence either way
        return []
    # pdfminer's boxes are on the media box, y up; poppler's on the crop box, y down.
    media, crop = page.mediabox, page.cropbox
    return [((x0 + media[0] - crop[0], crop[3] - (y1 + media[1]),
              x1 + media[0] - crop[0], crop[3] - (y0 + media[1])), decoded, named)
            for (x0, y0, x1, y1), decoded, named in found]


def repaired_window(window: Any, misdecoded: list[tuple[tuple[float, float, float, float],
                                                          str, str]]) -> Any | None:
    """``window`` with each word holding a misdecoded glyph (its centre in
    the word's box) spelt as the glyph's name says ("frst" -> "first"); None
    when it holds none."""
    if not misdecoded:
        return None
    words: list[PopplerWord] = []
    changed = False
    for word in window.words:
        x0, y0, x1, y1 = word.box
        text = word.text
        for (g0, h0, g1, h1), decoded, named in sorted(misdecoded, key=lambda g: -g[0][0]):
            middle_x, middle_y = (g0 + g1) / 2, (h0 + h1) / 2
            if not (x0 <= middle_x <= x1 and y0 <= middle_y <= y1):
                continue
            # Which of the word's letters the glyph is: by where it stands
            # along the word (right to left, so earlier positions hold).
            share = (middle_x - x0) / max(x1 - x0, 1e-6)
            at = _nearest(text, decoded, round(share * len(text) - 0.5))
            if at is None:
                continue
            spelt = unicodedata.normalize("NFKC", named)
            text = text[:at] + spelt + text[at + len(decoded):]
        if text != word.text:
            word = replace(word, text=text, key=word_key(text))
            changed = True
        words.append(word)
    return replace(window, words=words) if changed else None


def _nearest(text: str, part: str, near: int) -> int | None:
    """Where ``part`` occurs in ``text`` nearest position ``near``; None when not."""
    places = [k for k in range(len(text) - len(part) + 1) if text.startswith(part, k)]
    return min(places, key=lambda k: abs(k - near)) if places else None


def text_layer_keys(path: Path, number: int) -> str:
    """Our reading of page ``number``'s text layer, letters and digits only
    ("" when it does not ingest: then no miss is put down to it)."""
    with pymupdf.open(path) as doc:
        doc.select([number - 1])
        data = doc.tobytes()
    try:
        ours = ingest(data)
    except ExtractionError:
        return ""
    ours.doc.geometry.close()
    return ours.keys


def print_scan_goals(scans: list[ScanStats]) -> None:
    """The section's rates leaving out the misses marked ``TEXT_LAYER_ALONE``,
    and with the windows holding a misdecoded glyph scored as repaired; the
    altered quotes caught on the OCR's text."""
    altered, caught = sum(s.altered for s in scans), sum(s.caught for s in scans)
    print(f"  altered quotes on the OCR's text (a number, a negation or a name changed): "
          f"caught {caught}/{altered} ({pct(rate(caught, altered))})")
    for missed in (m for s in scans for m in s.missed):
        print(f"   - not caught: {missed[:300]}")
    excused = [f for s in scans for f in s.failures if f.category.startswith(TEXT_LAYER_ALONE)]
    verified, located = rates_without(
        scans, excused, lambda category: category.removeprefix(TEXT_LAYER_ALONE))
    print(f"  leaving out the {len(excused)} misses our text layer reading shares "
          f"(\"{TEXT_LAYER_ALONE.rstrip(': ')}\"): verified {pct(verified)}, "
          f"located words {pct(located)}")
    as_read = [s.as_read for s in scans if s.as_read.cases]
    if not as_read:
        return
    read, fixed = SectionStats("as read"), SectionStats("repaired")
    for stats in scans:
        read.add(stats.as_read)
        fixed.add(stats.repaired)
    total = SectionStats("total")
    for stats in scans:
        total.add(stats)
    judged_verified = total.verified - read.verified + fixed.verified
    judged_quotes = total.quotes - read.quotes + fixed.quotes
    judged_located = total.located - read.located + fixed.located
    judged_words = total.words - read.words + fixed.words
    print(f"  {read.cases} window(s) hold a glyph the text layer decodes otherwise than its "
          f"font names it (\"fi\" read \"f\"): as read {read.verified}/{read.quotes} "
          f"verified, spelt as named {fixed.verified}/{fixed.quotes}")
    print(f"  judged with those windows spelt as named: verified "
          f"{judged_verified}/{judged_quotes} ({pct(rate(judged_verified, judged_quotes))}), "
          f"located words {judged_located}/{judged_words} "
          f"({pct(rate(judged_located, judged_words))})")
    print_failures([f for s in scans for f in s.repaired.failures])
