"""Offsets in the units other languages index strings by.

Every offset in a report is a Python code-point index. JavaScript, Java and
Kotlin strings, and Swift's ``utf16`` view, count UTF-16 code units (a
character outside the Basic Multilingual Plane, such as 😀 or 𝔘, is two);
Go, Rust and C count UTF-8 bytes (é is two, 中 three, 😀 four). An offset
read in the wrong unit lands mid-character, or on the wrong word, as soon as
any such character comes before it.

``text_offsets(text)`` builds, once per text, a converter from code points to
both units. ASCII text (where all three agree) costs one ``str.isascii()``;
other text keeps the UTF-8 and UTF-16 length before every block of
``BLOCK`` code points (measured by the C codecs, so building is O(n) in C and
O(n / BLOCK) in Python), and converting an offset adds the length of at most
one partial block: constant time whatever the text's length. A text holding a
lone surrogate has no UTF-8 or UTF-16 form and is refused with a ValueError
naming where; a converted UTF-16 offset therefore never falls between the two
halves of a surrogate pair.

``add_offset_units(sentences, ...)`` adds, beside every ``X_start``/``X_end``
pair of a report's sentences, citations and findings, ``X_utf16`` and
``X_utf8`` as ``[start, end]`` (``utf16``/``utf8`` for a sentence's own
``start``/``end``), and ``shared_utf16``/``shared_utf8`` beside ``shared``.
Which text a pair indexes follows from its name (``TEXT_OF``); a pair no
rule names is an error, never passed on in code points alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final

from .markers import canonical_label

__all__ = [
    "BLOCK", "RANGE_LISTS", "TEXT_OF", "DocumentId", "TextOffsets", "add_offset_units",
    "text_offsets",
]

#: Code points per block of the prefix sums: a conversion encodes at most this many.
BLOCK: Final = 512

DocumentId = int | str


@dataclass(frozen=True, slots=True)
class TextOffsets:
    """Converts code-point offsets of ``text`` to UTF-16 code units and UTF-8
    bytes. ``utf8_before[b]``/``utf16_before[b]`` are the lengths of
    ``text[:b * BLOCK]``; both are empty for ASCII text, where the units agree."""

    text: str
    utf8_before: tuple[int, ...] = ()
    utf16_before: tuple[int, ...] = ()

    def utf16(self, offset: int) -> int:
        """The UTF-16 code units of ``text[:offset]`` (a JavaScript string index)."""
        block, rest = self._split(offset)
        if not self.utf16_before:
            return offset
        return self.utf16_before[block] + len(rest.encode("utf-16-le")) // 2

    def utf8(self, offset: int) -> int:
        """The UTF-8 bytes of ``text[:offset]`` (a Go or Rust byte index)."""
        block, rest = self._split(offset)
        if not self.utf8_before:
            return offset
        return self.utf8_before[block] + len(rest.encode("utf-8"))

    def units(self, offset: int) -> tuple[int, int]:
        """``(utf16(offset), utf8(offset))`` at once."""
        block, rest = self._split(offset)
        if not self.utf8_before:
            return offset, offset
        return (self.utf16_before[block] + len(rest.encode("utf-16-le")) // 2,
                self.utf8_before[block] + len(rest.encode("utf-8")))

    def _split(self, offset: int) -> tuple[int, str]:
        if isinstance(offset, bool) or not isinstance(offset, int):
            raise TypeError(f"an offset is an int (a code-point index), not {offset!r}")
        if not 0 <= offset <= len(self.text):
            raise ValueError(f"offset {offset} is outside the text (0 to {len(self.text)} "
                             "code points)")
        if not self.utf8_before:
            return 0, ""
        block = offset // BLOCK
        return block, self.text[block * BLOCK:offset]


def text_offsets(text: str) -> TextOffsets:
    """The converter for ``text``; ValueError if it holds a lone surrogate."""
    if text.isascii():
        return TextOffsets(text)
    utf8_before, utf16_before = [0], [0]
    for start in range(0, len(text), BLOCK):
        block = text[start:start + BLOCK]
        try:
            utf8 = len(block.encode("utf-8"))
        except UnicodeEncodeError as error:
            where = start + error.start
            raise ValueError(
                f"the text holds a lone surrogate (U+{ord(text[where]):04X}) at code point "
                f"{where}: it has no UTF-8 or UTF-16 form, so no offset into it can be "
                "converted") from None
        utf8_before.append(utf8_before[-1] + utf8)
        utf16_before.append(utf16_before[-1] + len(block.encode("utf-16-le")) // 2)
    return TextOffsets(text, tuple(utf8_before), tuple(utf16_before))


# -- a report's offsets ------------------------------------------------------

# Which text a pair of offsets indexes, by the name before ``_start``/``_end``
# ("" is a sentence's own ``start``/``end``), where it sits:
#   answer:   the answer text;
#   cited:    the source named by ``source_marker``, else by ``marker`` (an
#             unquoted citation), or by a finding's ``source_marker``;
#   closest:  the source named by ``closest_marker``;
#   document: the document text of the citation's ``document``.
TEXT_OF: Final[Mapping[str, str]] = {
    "": "answer", "marker": "answer", "quote": "answer", "claim": "answer",
    "chunk": "cited", "passage": "cited", "closest": "closest",
    "document": "document", "passage_document": "document",
}
#: Keys holding a list of [start, end] ranges, and the text they index.
RANGE_LISTS: Final[Mapping[str, str]] = {"shared": "cited"}

_TextKey = tuple[str, Any]  # ("answer", None) | ("source", label) | ("document", id)


@dataclass(frozen=True, slots=True)
class _Span:
    """One pair (or range list) of a record layout: read from ``start``/
    ``end`` (``end`` None: ``start`` is a range list) into the text
    ``where`` says (``TEXT_OF``), written as ``utf16`` and ``utf8``."""

    start: str
    end: str | None
    where: str
    utf16: str
    utf8: str


@lru_cache(maxsize=64)
def _layout(keys: tuple[str, ...]) -> tuple[tuple[str, _Span], ...]:
    """The spans of a record with these keys (all of a report's citations
    share them), and the key each one's units follow. Cached: a report
    holds few layouts, and finding them is most of the work for ASCII."""
    spans: list[tuple[str, _Span]] = []
    for key in keys:
        if key == "start" or key.endswith("_start"):
            name = key[:-len("start")].removesuffix("_")
            end = f"{name}_end" if name else "end"
            if end not in keys:
                raise ValueError(f"{key} has no {end}")
            if name not in TEXT_OF:
                raise ValueError(
                    f"no rule says which text {key}/{end} index, so they cannot be given in "
                    "UTF-16 and UTF-8 too: name it in verification/offsets.py (TEXT_OF)")
            unit16, unit8 = (f"{name}_utf16", f"{name}_utf8") if name else ("utf16", "utf8")
            spans.append((end, _Span(key, end, TEXT_OF[name], unit16, unit8)))
        elif key in RANGE_LISTS:
            spans.append((key, _Span(key, None, RANGE_LISTS[key], f"{key}_utf16",
                                     f"{key}_utf8")))
    return tuple(spans)


def add_offset_units(
    sentences: Sequence[dict[str, Any]],
    *,
    answer: str,
    source_texts: Callable[[], Mapping[str, str]],
    document_texts: Callable[[Mapping[DocumentId, int]], Mapping[DocumentId, str]],
) -> None:
    """Add the UTF-16 and UTF-8 form of every span in ``sentences`` (a
    report's, as ``to_dict`` gives them), in place, each right after the
    code-point keys it converts (which stay as they are); converting twice
    changes nothing.

    ``source_texts()`` gives each source's original text by marker;
    ``document_texts(needed)`` each needed document's text from its start
    to at least the code point ``needed[id]`` (a prefix will do). Each is
    called at most once, and only when some span indexes such a text.
    A span whose text is missing, or that lies outside it, is a ValueError.
    """
    # First where every span points, so each text is read once and a
    # document only as far as its furthest offset; then the conversions.
    records: list[tuple[dict[str, Any], tuple[tuple[str, _Span], ...],
                        list[_TextKey | None]]] = []
    needed: dict[_TextKey, int] = {}
    for sentence in sentences:
        for record, cited, closest, document in _records(sentence):
            after = _layout(tuple(record))
            texts: list[_TextKey | None] = []
            for _, span in after:
                offsets = _offsets_of(record, span)
                text = None
                if offsets:
                    text = _text_key(span, cited, closest, document)
                    needed[text] = max(needed.get(text, 0), *offsets)
                texts.append(text)
            records.append((record, after, texts))
    converters = _converters(needed, answer, source_texts, document_texts)
    for record, after, texts in records:
        units: dict[str, Any] = {}
        for (_, span), text in zip(after, texts, strict=True):
            converter = converters[text] if text is not None else None
            if span.end is None:
                pairs = [_pair(converter, s, e) for s, e in record[span.start]]
                units[span.utf16] = [p[0] for p in pairs]
                units[span.utf8] = [p[1] for p in pairs]
            else:
                units[span.utf16], units[span.utf8] = _pair(
                    converter, record[span.start], record[span.end])
        items = [(k, v) for k, v in record.items() if k not in units]
        record.clear()
        position = dict(after)
        for key, value in items:
            record[key] = value
            span_after = position.get(key)
            if span_after is not None:
                record[span_after.utf16] = units[span_after.utf16]
                record[span_after.utf8] = units[span_after.utf8]


def _records(sentence: dict[str, Any]) -> Iterator[
        tuple[dict[str, Any], str | None, str | None, DocumentId | None]]:
    """Each record with offsets: the sentence, its citations, their
    findings; with the markers and document their offsets may point into."""
    yield sentence, None, None, None
    for citation in sentence.get("citations", ()):
        yield (citation, citation.get("source_marker") or citation.get("marker"),
               citation.get("closest_marker"), citation.get("document"))
        for finding in citation.get("findings", ()):
            yield finding, finding.get("source_marker"), None, None


def _offsets_of(record: dict[str, Any], span: _Span) -> list[int]:
    if span.end is None:
        return [o for pair in record[span.start] for o in pair]
    return [o for o in (record[span.start], record[span.end]) if o is not None]


def _text_key(span: _Span, cited: str | None, closest: str | None,
              document: DocumentId | None) -> _TextKey:
    if span.where == "answer":
        return ("answer", None)
    if span.where == "document":
        if document is None:
            raise ValueError(f"{span.start}: a document offset with no document")
        return ("document", document)
    marker = cited if span.where == "cited" else closest
    if not marker:
        raise ValueError(f"{span.start}: an offset into a source, but no marker names the "
                         "source")
    return ("source", canonical_label(marker))


def _pair(converter: TextOffsets | None, start: int | None, end: int | None
          ) -> tuple[list[int | None] | None, list[int | None] | None]:
    """``([start, end] in UTF-16, [start, end] in UTF-8)``; None for none."""
    if start is None and end is None:
        return None, None
    assert converter is not None
    s16, s8 = converter.units(start) if start is not None else (None, None)
    e16, e8 = converter.units(end) if end is not None else (None, None)
    return [s16, e16], [s8, e8]


def _converters(
    needed: Mapping[_TextKey, int], answer: str,
    source_texts: Callable[[], Mapping[str, str]],
    document_texts: Callable[[Mapping[DocumentId, int]], Mapping[DocumentId, str]],
) -> dict[_TextKey, TextOffsets]:
    converters: dict[_TextKey, TextOffsets] = {}
    sources: dict[str, str] | None = None
    documents_needed = {key[1]: end for key, end in needed.items() if key[0] == "document"}
    documents = document_texts(documents_needed) if documents_needed else {}
    for key in needed:
        kind, name = key
        if kind == "answer":
            text = answer
        elif kind == "source":
            if sources is None:
                sources = {canonical_label(m): t for m, t in source_texts().items()}
            if name not in sources:
                raise ValueError(f"an offset into source [{name}], which is not among the "
                                 "sources")
            text = sources[name]
        else:
            if name not in documents:
                raise ValueError(f"an offset into document {name}, whose text is not available")
            text = documents[name]
        converters[key] = text_offsets(text)
    return converters
