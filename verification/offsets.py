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


@dataclass(slots=True)
class _Pending:
    """Offsets of one record waiting for their text: ``name`` is the key
    the converted units go under (without ``_utf16``/``_utf8``)."""

    record: dict[str, Any]
    name: str
    text: _TextKey | None  # None: no offsets (all null or no ranges)
    ranges: list[tuple[int | None, int | None]]
    is_list: bool


def add_offset_units(
    sentences: Sequence[dict[str, Any]],
    *,
    answer: str,
    source_texts: Callable[[], Mapping[str, str]],
    document_texts: Callable[[Mapping[DocumentId, int]], Mapping[DocumentId, str]],
) -> None:
    """Add the UTF-16 and UTF-8 form of every span in ``sentences`` (a
    report's, as ``to_dict`` gives them), in place, each right after the
    code-point keys it converts (which stay as they are).

    ``source_texts()`` gives each source's original text by marker;
    ``document_texts(needed)`` each needed document's text from its start
    to at least the code point ``needed[id]`` (a prefix will do). Each is
    called at most once, and only when some span indexes such a text.
    A span whose text is missing, or that lies outside it, is a ValueError.
    """
    pending = [p for sentence in sentences for p in _sentence_spans(sentence)]
    converters = _converters([p for p in pending if p.text is not None], answer,
                             source_texts, document_texts)
    units: dict[int, tuple[dict[str, Any], dict[str, tuple[Any, Any]]]] = {}
    for item in pending:
        if item.text is None:
            utf16: Any = [] if item.is_list else None
            utf8: Any = utf16
        else:
            offsets = converters[item.text]
            utf16 = [_convert(offsets.utf16, r) for r in item.ranges]
            utf8 = [_convert(offsets.utf8, r) for r in item.ranges]
            if not item.is_list:
                utf16, utf8 = utf16[0], utf8[0]
        units.setdefault(id(item.record), (item.record, {}))[1][item.name] = (utf16, utf8)
    for record, converted in units.values():
        _place(record, converted)


def _sentence_spans(sentence: dict[str, Any]) -> Iterator[_Pending]:
    yield from _record_spans(sentence, cited=None, closest=None, document=None)
    for citation in sentence.get("citations", ()):
        cited = citation.get("source_marker") or citation.get("marker")
        yield from _record_spans(citation, cited=cited, closest=citation.get("closest_marker"),
                                 document=citation.get("document"))
        for finding in citation.get("findings", ()):
            yield from _record_spans(finding, cited=finding.get("source_marker"), closest=None,
                                     document=None)


def _record_spans(record: dict[str, Any], *, cited: str | None, closest: str | None,
                  document: DocumentId | None) -> Iterator[_Pending]:
    def text_key(name: str, where: str) -> _TextKey:
        if where == "answer":
            return ("answer", None)
        if where == "document":
            if document is None:
                raise ValueError(f"{name or 'the span'}: a document offset with no document")
            return ("document", document)
        marker = cited if where == "cited" else closest
        if not marker:
            raise ValueError(f"{name}: an offset into a source, but no marker names the source")
        return ("source", canonical_label(marker))

    for key in list(record):
        if key.endswith("_start") or key == "start":
            name = key[:-len("start")].removesuffix("_")
            end_key = f"{name}_end" if name else "end"
            if end_key not in record:
                raise ValueError(f"{key} has no {end_key}")
            start, end = record[key], record[end_key]
            if name not in TEXT_OF:
                raise ValueError(
                    f"no rule says which text {key}/{end_key} index, so they cannot be given "
                    "in UTF-16 and UTF-8 too: name it in verification/offsets.py (TEXT_OF)")
            text = (text_key(key, TEXT_OF[name])
                    if start is not None or end is not None else None)
            yield _Pending(record, name, text, [(start, end)], is_list=False)
        elif key in RANGE_LISTS:
            ranges = [(start, end) for start, end in record[key]]
            text = text_key(key, RANGE_LISTS[key]) if ranges else None
            yield _Pending(record, key, text, ranges, is_list=True)


def _converters(
    pending: list[_Pending], answer: str,
    source_texts: Callable[[], Mapping[str, str]],
    document_texts: Callable[[Mapping[DocumentId, int]], Mapping[DocumentId, str]],
) -> dict[_TextKey, TextOffsets]:
    needed: dict[_TextKey, int] = {}
    for item in pending:
        assert item.text is not None
        furthest = max((o for r in item.ranges for o in r if o is not None), default=0)
        needed[item.text] = max(needed.get(item.text, 0), furthest)
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


def _convert(unit: Callable[[int], int], span: tuple[int | None, int | None]) -> list[int | None]:
    return [unit(o) if o is not None else None for o in span]


def _place(record: dict[str, Any], converted: Mapping[str, tuple[Any, Any]]) -> None:
    """Put ``<name>_utf16`` and ``<name>_utf8`` right after the key each
    ``converted[name]`` converts (``<name>_end``, ``end``, or the range list
    ``name``), keeping every other key in its order."""
    after = {(name if name in RANGE_LISTS else f"{name}_end" if name else "end"): name
             for name in converted}
    replaced = {key for name in converted for key in _unit_keys(name)}
    items = [(k, v) for k, v in record.items() if k not in replaced]
    record.clear()
    for key, value in items:
        record[key] = value
        if key in after:
            name = after[key]
            unit16, unit8 = _unit_keys(name)
            record[unit16], record[unit8] = converted[name]


def _unit_keys(name: str) -> tuple[str, str]:
    return (f"{name}_utf16", f"{name}_utf8") if name else ("utf16", "utf8")
