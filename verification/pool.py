"""The sources injected into one answer's prompt, by canonical marker.

A pool is built per answer and caches what the checks need of each source,
computed on first use and never the whole source when a window will do: its
one-for-one fold, its squeezed fold, its sentence units for passages.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .budget import PASSAGE_CHAR_WORK, WorkMeter
from .claims import SourceFacts, source_facts
from .config import VerificationConfig
from .markers import canonical_label
from .matching import rough_window
from .normalize import (
    NormalizedText,
    OffsetMap,
    normalize,
    normalize_folded,
    sliceable_fold,
)
from .passage import SourceSentences, source_sentences

__all__ = ["SCREEN_MARGIN", "Source", "SourcePool", "squeeze"]


@dataclass(frozen=True, slots=True)
class Source:
    """One injected source: the marker it was given and its text.

    ``skip``
        Ranges of ``text`` that are page furniture (running headers, page
        numbers): left out of matching, offsets unchanged.
    ``injected_end``
        When set, ``text[injected_end:]`` is the document's continuation after
        the injected chunk: a quote may run on into it across the chunk
        boundary, but must start before it.
    ``document``, ``document_offset``
        Where ``text`` comes from: ``text[0]`` is ``document``'s character at
        ``document_offset``. Citations then carry document ranges.
    ``superseded``
        The document has a newer version: a faithful quote from it is still
        provenance, but not current, so it flags the answer.
    ``ocr``
        Ranges of ``text`` that OCR read from a page image (a scan). A quote
        whose words differ from them only by letters OCR confuses ("Meaicine"
        for "Medicine": :mod:`verification.ocr`) verifies, and its verdict
        names each misread. Empty (born-digital text): matched as it stands.
    """

    marker: str
    text: str
    skip: tuple[tuple[int, int], ...] = field(default=())
    injected_end: int | None = None
    document: int | str | None = None
    document_offset: int = 0
    superseded: bool = False
    ocr: tuple[tuple[int, int], ...] = field(default=())


#: Points (of 100) by which one-for-one-folded text can fall short of the
#: normalised match: "ser- vice" against "service", "a  b" against "a b".
SCREEN_MARGIN = 12.0


class SourcePool:
    """The injected sources by canonical marker, normalised on first use."""

    def __init__(
        self, sources: Iterable[Source], config: VerificationConfig = VerificationConfig()
    ) -> None:
        # Fuzzy alignment is charged to the answer's budget before it runs.
        self.meter = WorkMeter(config.max_work)
        self.seed_min_chars = config.seed_min_chars
        self.by_label: dict[str, Source] = {}
        for source in sources:
            label = canonical_label(source.marker)
            if not label:
                raise ValueError(f"source marker {source.marker!r} is empty")
            if label in self.by_label:
                raise ValueError(f"source marker {label!r} is given twice")
            self.by_label[label] = source
        self._folded: dict[str, NormalizedText] = {}
        # Labels whose fold's slices may stand for their slices' folds.
        self._sliceable: set[str] = set()
        self._squeezed: dict[str, str] = {}
        self._sentences: dict[str, SourceSentences] = {}
        #: Sources whose passages the work budget left unlocated.
        self.unsplit: set[str] = set()
        self._facts: dict[str, SourceFacts] = {}

    def __contains__(self, label: str) -> bool:
        return label in self.by_label

    def bounds(self, label: str, start: int, end: int) -> tuple[int, int]:
        """``[a, b)`` around ``[start, end)`` widened to whitespace (so no word
        or hyphenation is cut): the stretch :meth:`region` normalises."""
        source = self.by_label[label]
        text = source.text
        a, b = max(0, start), min(len(text), end)
        # Skipped furniture inside the region takes no room in the normalised
        # text: widen past it so the region still holds as much real text.
        b = min(len(text), b + sum(min(e, b) - max(s, a) for s, e in source.skip
                                   if s < b and e > a))
        for _ in range(64):
            if a == 0 or text[a - 1].isspace():
                break
            a -= 1
        for _ in range(64):
            if b == len(text) or text[b].isspace():
                break
            b += 1
        return a, b

    def region(self, label: str, start: int, end: int) -> tuple[NormalizedText, int]:
        """``text[a:b]`` normalised for :meth:`bounds`' ``[a, b)``, and ``a``.

        Only the neighbourhood of a candidate window is normalised: a source
        is never normalised whole, which keeps a check's cost near a plain
        search's."""
        source = self.by_label[label]
        a, b = self.bounds(label, start, end)
        skip = tuple((max(s, a) - a, min(e, b) - a) for s, e in source.skip if s < b and e > a)
        return normalize(source.text[a:b], skip=skip), a

    def folded(self, label: str) -> NormalizedText:
        """The source's one-for-one fold as a text whose offsets are the
        original's (an identity map): enough to find a verbatim quote without
        building the full offset map."""
        folded = self._folded.get(label)
        if folded is None:
            original = self.by_label[label].text
            text, sliceable = sliceable_fold(original)
            if sliceable:
                self._sliceable.add(label)
            identity = OffsetMap((0,), (0,), (len(text),), (True,), len(text), len(text))
            folded = self._folded[label] = NormalizedText(text, original, identity)
        return folded

    def normalized(self, label: str, a: int, b: int) -> NormalizedText:
        """``normalize(text[a:b])`` for a stretch that skips nothing, from the
        source's fold when its slices will do."""
        folded = self.folded(label)
        if label in self._sliceable:
            return normalize_folded(folded.original[a:b], folded.text[a:b])
        return normalize(folded.original[a:b])

    def squeezed(self, label: str) -> str:
        """The source's fold without whitespace and hyphens: where a quote that
        differs from it only in spacing and line-break hyphenation can be
        found with ``str.find`` (see ``finding.squeezed_exact``)."""
        squeezed = self._squeezed.get(label)
        if squeezed is None:
            squeezed = self._squeezed[label] = squeeze(self.folded(label).text)
        return squeezed

    def candidates(self, quote: str, labels: Sequence[str], *, cutoff: float) -> list[str]:
        """The sources among ``labels`` where ``quote`` may be, best first.

        One rapidfuzz alignment over all of them, joined, on the one-for-one
        fold (which needs no offset map): only the source holding the best
        window is then normalised and aligned properly. A quote that is in a
        source after normalisation scores at most a few points lower on the
        fold (hyphenation, whitespace runs), hence :data:`SCREEN_MARGIN`.
        """
        if not labels or not quote:
            return []
        folded = [self.folded(label).text for label in labels]
        starts, position = [], 0
        for text in folded:
            starts.append(position)
            position += len(text) + 1
        joined = "\x00".join(folded)
        window = rough_window(
            quote, joined, score_cutoff=max(0.0, cutoff * 100 - SCREEN_MARGIN),
            seed_min_chars=self.seed_min_chars, meter=self.meter,
        )
        if window is None:
            return []
        first = bisect_right(starts, window[0]) - 1
        last = bisect_right(starts, max(window[0], window[1] - 1)) - 1
        return [labels[i] for i in range(first, last + 1)]

    def sentences(self, label: str) -> SourceSentences | None:
        """The source split into sentence units with its words weighed, for
        locating the passage behind an unquoted citation; None when splitting
        it would take the answer past its work budget (``unsplit`` then
        holds the label, and it is not tried again)."""
        found = self._sentences.get(label)
        if found is None:
            if label in self.unsplit:
                return None
            source = self.by_label[label]
            if not self.meter.try_charge(PASSAGE_CHAR_WORK * len(source.text)):
                self.unsplit.add(label)
                return None
            found = self._sentences[label] = source_sentences(source.text, skip=source.skip)
        return found

    def facts(self, label: str) -> SourceFacts:
        """What the claim checks read of the whole source: its numbers and
        words, once per answer however many sentences cite it."""
        found = self._facts.get(label)
        if found is None:
            found = self._facts[label] = source_facts(self.by_label[label].text)
        return found

    def injected(self) -> str:
        return ", ".join(self.by_label) or "none"


#: What :func:`squeeze` deletes byte by byte: the ASCII characters among
#: ``finding._SQUEEZE``'s (``str.split()``'s whitespace and the hyphen).
_SQUEEZED_BYTES = bytes(c for c in range(128) if chr(c).isspace() or chr(c) == "-")


def squeeze(text: str) -> str:
    """``_SQUEEZE.sub("", text)``, several times faster.

    ``bytes.translate`` deletes the ASCII ones in one pass at C speed; in a
    text that is not ASCII, ``split()`` then finds next to nothing left to
    split at (a fold keeps only rare kinds of whitespace), and the soft
    hyphen goes last."""
    if text.isascii():
        return text.encode("ascii").translate(None, _SQUEEZED_BYTES).decode("ascii")
    squeezed = text.encode("utf-8", "surrogatepass").translate(None, _SQUEEZED_BYTES)
    return "".join(squeezed.decode("utf-8", "surrogatepass").split()).replace("\u00ad", "")
