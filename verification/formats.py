"""Vendor answer formats, converted to the native payload.

``convert(data)`` takes ``{"format", "request", "response"}`` (plus optional
``id``, ``surface``, ``model``, ``question``) and returns a native payload for
:func:`verification.payload.parse_answer_payload`, with an extra ``notes`` list
of plain sentences for the report. Every problem with the input raises
:class:`FormatError`, whose message names the path of the offending value
(``response.content[2].citations[0].document_index``).

Anthropic Messages API with citations
    The request's ``document`` content blocks, numbered across all messages in
    order (the API's ``document_index``), become sources ``S1``…``Sn``: a plain
    text document is its ``data``; a custom content document is its text blocks
    joined with a blank line; a PDF (``base64``) document is the text of its
    pages, extracted by the caller's ``pdf_text`` and joined with form feeds.
    The answer is the response's text blocks concatenated. Each citation of a
    text block is inserted into it as ``<quote source="S1">cited_text</quote>
    [S1]``, before the block's closing punctuation (so it stays in the sentence
    it supports); the vendor's characters are otherwise unchanged. The library
    then checks ``cited_text`` against *our* text of that document: the
    vendor's quote is verified, not trusted. Where the
    vendor's location (character range, pages, blocks) disagrees with where the
    text is, a note says so.

OpenAI Responses API with file search
    Sources are the ``file_search_call`` results (present when the request had
    ``include: ["file_search_call.results"]``), one per distinct file, its
    results joined with a blank line. The answer is the messages'
    ``output_text``, with a marker ``[S1]`` inserted at each ``file_citation``'s
    ``index``. A citation of a file no search returned gets the next number but
    no source, so it is reported as a fabricated marker. The format carries no
    quoted text: only markers and coverage can be checked.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from .markers import parse_markers
from .sentences import split_sentences

__all__ = ["FORMATS", "QUOTES_UNAVAILABLE", "FormatError", "PdfTextExtractor", "convert"]

#: The values of ``data["format"]``.
FORMATS: Final[tuple[str, ...]] = ("native", "anthropic", "openai")

#: The note every OpenAI conversion carries.
QUOTES_UNAVAILABLE: Final[str] = (
    "This format carries no quoted spans: markers and coverage were checked; "
    "quotes were not available."
)

#: The application's PDF text extractor: the PDF's bytes in, one string per page out.
PdfTextExtractor = Callable[[bytes], Sequence[str]]

#: Separators in a source's text: between custom content blocks and between
#: the search results of one file; between PDF pages.
_BLOCK_SEPARATOR: Final[str] = "\n\n"
_PAGE_SEPARATOR: Final[str] = "\f"

#: A block's closing punctuation and trailing space: inserted quotes go before
#: it, so that they stay in the sentence they support.
_TAIL = re.compile(r"(?:[.!?\u2026]+[\"'\u201d\u2019)\]]*)?\s*\Z")
_QUOTE_CLOSE = re.compile(r"<(?=/quote)", re.IGNORECASE)

_CITATION_TYPES: Final[tuple[str, ...]] = (
    "char_location", "page_location", "content_block_location",
)


class FormatError(ValueError):
    """The input is not in the format it claims; the message names the path."""


@dataclass(frozen=True, slots=True)
class _Document:
    """One request document as a source. ``parts`` are the ``[start, end)``
    ranges of ``text`` holding each content block (``kind == "content"``) or
    each page (``kind == "pdf"``); empty for plain text."""

    marker: str
    kind: Literal["text", "content", "pdf"]
    where: str
    title: str | None
    text: str
    parts: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class _FileCitation:
    """One ``file_citation`` annotation: where its marker goes."""

    file_id: str
    filename: str | None
    index: int
    where: str


# --------------------------------------------------------------------------- checks


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def _object(value: Any, where: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise FormatError(f"{where} must be an object, not {_kind(value)}")
    return value


def _list(value: Any, where: str) -> Sequence[Any]:
    if not isinstance(value, list | tuple):
        raise FormatError(f"{where} must be a list, not {_kind(value)}")
    return value


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise FormatError(f"{where} must be a string, not {_kind(value)}")
    return value


def _index(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise FormatError(f"{where} must be a non-negative integer, not {value!r}")
    return value


def _required(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data or data[key] is None:
        raise FormatError(f"{where}.{key} is missing")
    return data[key]


def _optional_text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if key == "id" and isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _str(value, key)


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _same(a: str, b: str) -> bool:
    return a.split() == b.split()


def _locate(text: str, cited: str) -> list[tuple[int, int]]:
    """Where ``cited`` is in ``text``, any whitespace run matching any other."""
    words = cited.split()
    if not words:
        return []
    pattern = r"\s+".join(re.escape(word) for word in words)
    return [(m.start(), m.end()) for m in re.finditer(pattern, text)]


def _part_of(parts: Sequence[tuple[int, int]], position: int) -> int:
    """The index of the part holding ``position`` (or the last one before it)."""
    found = 0
    for index, (start, _) in enumerate(parts):
        if start <= position:
            found = index
    return found


def _quote_block(marker: str, text: str) -> str:
    """``<quote source="S1">text</quote> [S1]``; a ``</quote`` inside ``text``
    gets a full-width ``<`` (which normalisation folds back), so it cannot end
    the block early."""
    safe = _QUOTE_CLOSE.sub("\uff1c", text)
    return f'<quote source="{marker}">{safe}</quote> [{marker}]'


def _marker_notes(text: str, vendor: str) -> list[str]:
    groups = parse_markers(text)
    if not groups:
        return []
    shown = ", ".join(dict.fromkeys(group.text for group in groups))
    return [f"The {vendor} text already holds marker-like brackets ({shown}); they are "
            "checked like any marker."]


# --------------------------------------------------------------------------- entry point


def convert(data: Mapping[str, Any], *, pdf_text: PdfTextExtractor | None = None) -> dict[str, Any]:
    """A native payload (with ``notes``) for ``data`` in the format it names.

    ``data["format"]`` is ``"native"`` (or absent: ``data`` is returned as it
    is), ``"anthropic"`` or ``"openai"``. ``pdf_text`` extracts the pages'
    text of an Anthropic PDF document; without it such a request is refused.
    Raises :class:`FormatError`.
    """
    if not isinstance(data, Mapping):
        raise FormatError(f"the input must be an object, not {_kind(data)}")
    kind = data.get("format", "native")
    if kind == "native":
        return dict(data)
    if kind not in FORMATS:
        raise FormatError(f"format {kind!r} is not one of {', '.join(FORMATS)}")
    head = {key: _optional_text(data, key) for key in ("id", "surface", "model", "question")}
    if "response" not in data:
        raise FormatError(f'"response" is required for the {kind} format')
    response = _object(data["response"], "response")
    if kind == "anthropic":
        if "request" not in data:
            raise FormatError('"request" is required for the anthropic format: it holds '
                              "the documents")
        request = _object(data["request"], "request")
        body = _from_anthropic(request, response, pdf_text=pdf_text)
    else:
        request = _object(data.get("request", {}), "request")
        body = _from_openai(request, response)
    return {
        "id": head["id"],
        "surface": head["surface"],
        "model": head["model"] or body["model"],
        "question": head["question"] if head["question"] is not None else body["question"],
        "answer": body["answer"],
        "sources": body["sources"],
        "notes": body["notes"],
    }


# --------------------------------------------------------------------------- Anthropic


def _anthropic_documents(
    request: Mapping[str, Any], pdf_text: PdfTextExtractor | None
) -> tuple[_Document, ...]:
    messages = _list(_required(request, "messages", "request"), "request.messages")
    documents: list[_Document] = []
    for m, message in enumerate(messages):
        where = f"request.messages[{m}]"
        message = _object(message, where)
        content = _required(message, "content", where)
        if isinstance(content, str):
            continue
        for b, block in enumerate(_list(content, f"{where}.content")):
            block_where = f"{where}.content[{b}]"
            block = _object(block, block_where)
            kind = block.get("type")
            if kind == "document":
                marker = f"S{len(documents) + 1}"
                documents.append(_anthropic_document(block, block_where, marker, pdf_text))
            elif kind == "tool_result" and isinstance(block.get("content"), list):
                for n, inner in enumerate(block["content"]):
                    if isinstance(inner, Mapping) and inner.get("type") == "document":
                        raise FormatError(
                            f"{block_where}.content[{n}] is a document inside a tool result: "
                            "where such documents fall in the document numbering is not "
                            "documented, so their citations cannot be resolved"
                        )
    return tuple(documents)


def _anthropic_document(
    block: Mapping[str, Any], where: str, marker: str, pdf_text: PdfTextExtractor | None
) -> _Document:
    source = _object(_required(block, "source", where), f"{where}.source")
    kind = _str(_required(source, "type", f"{where}.source"), f"{where}.source.type")
    title = block.get("title")
    title = _str(title, f"{where}.title") if title is not None else None
    if kind == "text":
        text = _str(_required(source, "data", f"{where}.source"), f"{where}.source.data")
        return _Document(marker, "text", where, title, text)
    if kind == "content":
        raw = _required(source, "content", f"{where}.source")
        blocks: list[str] = []
        if isinstance(raw, str):
            blocks.append(raw)
        else:
            for n, item in enumerate(_list(raw, f"{where}.source.content")):
                item_where = f"{where}.source.content[{n}]"
                item = _object(item, item_where)
                item_type = _required(item, "type", item_where)
                if item_type == "text":
                    blocks.append(_str(_required(item, "text", item_where), f"{item_where}.text"))
                elif item_type == "image":
                    blocks.append("")  # not citable, but it holds a block index
                else:
                    raise FormatError(f"{item_where}.type {item_type!r} is not a custom "
                                      'content block ("text" or "image")')
        text, parts = _joined(blocks, _BLOCK_SEPARATOR)
        return _Document(marker, "content", where, title, text, parts)
    if kind == "base64":
        media = source.get("media_type")
        if media != "application/pdf":
            raise FormatError(f"{where}.source.media_type must be \"application/pdf\" for a "
                              f"base64 document, not {media!r}")
        if pdf_text is None:
            raise FormatError(f"{where} is a PDF document: the verification library cannot "
                              "extract PDF text; convert with the application's extractor "
                              "(pdf_text=...)")
        data = _str(_required(source, "data", f"{where}.source"), f"{where}.source.data")
        try:
            pdf = base64.b64decode(data, validate=True)
        except (binascii.Error, ValueError):
            raise FormatError(f"{where}.source.data is not valid base64") from None
        pages = pdf_text(pdf)
        if isinstance(pages, str) or not all(isinstance(page, str) for page in pages):
            raise TypeError("pdf_text must return a sequence of strings, one per page")
        text, parts = _joined(list(pages), _PAGE_SEPARATOR)
        return _Document(marker, "pdf", where, title, text, parts)
    if kind in ("url", "file"):
        raise FormatError(f"{where}.source.type {kind!r} is not supported: the document's "
                          "text is not in the request; send it as a text, content or "
                          "base64 document, or submit the native format")
    raise FormatError(f"{where}.source.type {kind!r} is not a document source "
                      '("text", "content" or "base64")')


def _joined(pieces: Sequence[str], separator: str) -> tuple[str, tuple[tuple[int, int], ...]]:
    parts: list[tuple[int, int]] = []
    position = 0
    for piece in pieces:
        parts.append((position, position + len(piece)))
        position += len(piece) + len(separator)
    return separator.join(pieces), tuple(parts)


def _anthropic_question(request: Mapping[str, Any]) -> str | None:
    for message in reversed(_list(request["messages"], "request.messages")):
        if not isinstance(message, Mapping) or message.get("role") != "user":
            continue
        content = message.get("content")
        if isinstance(content, str):
            return content
        if not isinstance(content, list):
            continue
        texts = [block["text"] for block in content if isinstance(block, Mapping)
                 and block.get("type") == "text" and isinstance(block.get("text"), str)]
        if texts:
            return str(texts[-1])
    return None


def _from_anthropic(
    request: Mapping[str, Any], response: Mapping[str, Any], *, pdf_text: PdfTextExtractor | None
) -> dict[str, Any]:
    if response.get("type") == "error":
        raise FormatError(f"response is an API error, not a message: {response.get('error')!r}")
    documents = _anthropic_documents(request, pdf_text)
    content = _list(_required(response, "content", "response"), "response.content")
    notes: list[str] = []
    pieces: list[str] = []
    vendor: list[str] = []
    for b, block in enumerate(content):
        where = f"response.content[{b}]"
        block = _object(block, where)
        kind = _str(_required(block, "type", where), f"{where}.type")
        if kind != "text":
            continue  # thinking, tool use: not part of the answer
        text = _str(_required(block, "text", where), f"{where}.text")
        vendor.append(text)
        citations = block.get("citations")
        if citations is None:
            pieces.append(text)
            continue
        quotes = [
            _anthropic_quote(citation, f"{where}.citations[{c}]", documents, notes)
            for c, citation in enumerate(_list(citations, f"{where}.citations"))
        ]
        inserted = "".join(quote for quote in quotes if quote)
        if not inserted:
            pieces.append(text)
            continue
        tail = _TAIL.search(text)
        cut = tail.start() if tail else len(text)
        before = text[cut - 1] if cut else (pieces[-1][-1:] if pieces else "")
        space = " " if before and not before.isspace() else ""
        pieces.append(text[:cut] + space + inserted + text[cut:])
        sentences = len(split_sentences(text))
        if sentences > 1:
            notes.append(f"{where} holds {sentences} sentences; its citations are attached to "
                         "the last one, so the others may show as uncited claims.")

    head: list[str] = []
    if documents:
        listed = "; ".join(
            f"[{d.marker}] {d.title or '(untitled)'} ({_DOCUMENT_KINDS[d.kind]})"
            for d in documents
        )
        head.append(f"Sources are the request's documents: {listed}.")
    stop = response.get("stop_reason")
    if stop in ("max_tokens", "model_context_window_exceeded", "pause_turn", "refusal"):
        head.append(f"The response stopped early (stop_reason {stop!r}): the answer may be "
                    "incomplete.")
    head.extend(_marker_notes("".join(vendor), "response's"))
    notes[:0] = head
    if isinstance(response.get("id"), str):
        notes.append(f"Vendor message id: {response['id']}.")
    model = request.get("model", response.get("model"))
    return {
        "model": model if isinstance(model, str) else None,
        "question": _anthropic_question(request),
        "answer": "".join(pieces),
        "sources": [{"marker": d.marker, "text": d.text} for d in documents],
        "notes": notes,
    }


_DOCUMENT_KINDS: Final[dict[str, str]] = {
    "text": "plain text", "content": "custom content", "pdf": "PDF",
}


def _anthropic_quote(
    citation: Any, where: str, documents: Sequence[_Document], notes: list[str]
) -> str:
    """The quote block for one citation ("" if it quotes nothing); location
    disagreements are added to ``notes``."""
    citation = _object(citation, where)
    kind = _str(_required(citation, "type", where), f"{where}.type")
    if kind not in _CITATION_TYPES:
        raise FormatError(f"{where}.type {kind!r} is not supported: only document citations "
                          f"({', '.join(_CITATION_TYPES)}) can be checked")
    index = _index(_required(citation, "document_index", where), f"{where}.document_index")
    if index >= len(documents):
        count = f"{len(documents)} document{'' if len(documents) == 1 else 's'}"
        raise FormatError(f"{where}.document_index {index} is out of range "
                          f"(the request has {count})")
    document = documents[index]
    cited = _str(_required(citation, "cited_text", where), f"{where}.cited_text")
    title = citation.get("document_title")
    if isinstance(title, str) and document.title is not None and title != document.title:
        notes.append(f"{where}: document_title {title!r} is not the title of document "
                     f"{index} ({document.title!r}).")

    expected = {"char_location": "text", "page_location": "pdf",
                "content_block_location": "content"}[kind]
    if document.kind != expected:
        notes.append(f"{where}: a {kind} citation of [{document.marker}], a "
                     f"{_DOCUMENT_KINDS[document.kind]} document; its location was not checked.")
    elif kind == "char_location":
        _check_chars(citation, where, document, cited, notes)
    elif kind == "page_location":
        _check_pages(citation, where, document, cited, notes)
    else:
        cited = _check_blocks(citation, where, document, cited, notes)
    if not cited.strip():
        notes.append(f"{where}: the citation of [{document.marker}] quotes no text; "
                     "nothing to check.")
        return ""
    return _quote_block(document.marker, cited)


def _check_chars(
    citation: Mapping[str, Any], where: str, document: _Document, cited: str, notes: list[str]
) -> None:
    start = _index(_required(citation, "start_char_index", where), f"{where}.start_char_index")
    end = _index(_required(citation, "end_char_index", where), f"{where}.end_char_index")
    text, marker = document.text, document.marker
    if start <= end <= len(text) and _same(text[start:end], cited):
        return
    found = _locate(text, cited)
    if end > len(text) or start > end:
        where_found = f"; the text is at {found[0][0]}" if found else ""
        notes.append(f"{where}: the vendor's range {start}-{end} is outside [{marker}]'s "
                     f"text ({len(text)} characters){where_found}.")
        return
    if not found:
        return  # the quote check reports it
    at, to = min(found, key=lambda span: abs(span[0] - start))
    if at != start:
        notes.append(f"{where}: the vendor's start_char_index {start} does not match "
                     f"[{marker}]'s text, found at {at}.")
    else:
        notes.append(f"{where}: the vendor's end_char_index {end} does not match "
                     f"[{marker}]'s text, which ends at {to}.")


def _check_pages(
    citation: Mapping[str, Any], where: str, document: _Document, cited: str, notes: list[str]
) -> None:
    first = _index(_required(citation, "start_page_number", where), f"{where}.start_page_number")
    stop = _index(_required(citation, "end_page_number", where), f"{where}.end_page_number")
    pages, marker = document.parts, document.marker
    claimed = f"pages {first}-{stop - 1}" if stop - first > 1 else f"page {first}"
    if first < 1 or stop <= first or stop - 1 > len(pages):
        notes.append(f"{where}: the vendor's page range {first}-{stop} (end exclusive) is "
                     f"not within [{marker}]'s {len(pages)} extracted pages.")
        return
    low, high = pages[first - 1][0], pages[stop - 2][1]
    if _locate(document.text[low:high], cited):
        return
    found = _locate(document.text, cited)
    if found:
        page = _part_of(pages, found[0][0]) + 1
        notes.append(f"{where}: the text is not on the vendor's {claimed} of [{marker}] "
                     f"but on page {page}.")


def _check_blocks(
    citation: Mapping[str, Any], where: str, document: _Document, cited: str, notes: list[str]
) -> str:
    """The text to quote: our blocks when ``cited`` is their concatenation
    (the API joins them with nothing between), else ``cited`` as given."""
    first = _index(_required(citation, "start_block_index", where), f"{where}.start_block_index")
    stop = _index(_required(citation, "end_block_index", where), f"{where}.end_block_index")
    parts, marker = document.parts, document.marker
    if stop <= first or stop > len(parts):
        notes.append(f"{where}: the vendor's block range {first}-{stop} (end exclusive) is not "
                     f"within [{marker}]'s {len(parts)} blocks.")
        return cited
    blocks = [document.text[a:b] for a, b in parts[first:stop]]
    if _squash("".join(blocks)) == _squash(cited):
        return document.text[parts[first][0]:parts[stop - 1][1]]
    found = _locate(document.text, cited)
    if found:
        block = _part_of(parts, found[0][0])
        notes.append(f"{where}: the vendor's blocks {first}-{stop} (end exclusive) of "
                     f"[{marker}] do not hold the text; it is in block {block}.")
    return cited


# --------------------------------------------------------------------------- OpenAI


def _openai_question(request: Mapping[str, Any]) -> str | None:
    raw = request.get("input")
    if isinstance(raw, str):
        return raw
    if not isinstance(raw, list):
        return None
    for item in reversed(raw):
        if not isinstance(item, Mapping) or item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            texts = [part["text"] for part in content if isinstance(part, Mapping)
                     and part.get("type") == "input_text" and isinstance(part.get("text"), str)]
            if texts:
                return str(texts[-1])
    return None


def _from_openai(request: Mapping[str, Any], response: Mapping[str, Any]) -> dict[str, Any]:
    if response.get("error"):
        raise FormatError(f"response.error is set: {response['error']!r}")
    output = _list(_required(response, "output", "response"), "response.output")
    notes: list[str] = [QUOTES_UNAVAILABLE]

    # Retrieval first: the sources, in the order files first appear.
    texts: dict[str, list[str]] = {}
    names: dict[str, str | None] = {}
    searches = without_results = 0
    for i, item in enumerate(output):
        where = f"response.output[{i}]"
        item = _object(item, where)
        if _str(_required(item, "type", where), f"{where}.type") != "file_search_call":
            continue
        searches += 1
        key = "results" if item.get("results") is not None else "search_results"
        if item.get(key) is None:
            without_results += 1
            continue
        for r, result in enumerate(_list(item[key], f"{where}.{key}")):
            result_where = f"{where}.{key}[{r}]"
            result = _object(result, result_where)
            file_id = _str(_required(result, "file_id", result_where), f"{result_where}.file_id")
            text = _str(_required(result, "text", result_where), f"{result_where}.text")
            filename = result.get("filename")
            names.setdefault(file_id, filename if isinstance(filename, str) else None)
            chunks = texts.setdefault(file_id, [])
            if text not in chunks:
                chunks.append(text)

    # Then the answer, with each part's citations.
    parts: list[tuple[str, list[_FileCitation]]] = []
    ignored: dict[str, int] = {}
    for i, item in enumerate(output):
        where = f"response.output[{i}]"
        item = _object(item, where)
        if item.get("type") != "message":
            continue
        content = _list(_required(item, "content", where), f"{where}.content")
        for c, part in enumerate(content):
            part_where = f"{where}.content[{c}]"
            part = _object(part, part_where)
            kind = _str(_required(part, "type", part_where), f"{part_where}.type")
            if kind == "refusal":
                refusal = part.get("refusal")
                notes.append(f"{part_where}: the model refused: {refusal!r}.")
                continue
            if kind != "output_text":
                continue
            raw_text = part.get("text")
            text = "" if raw_text is None else _str(raw_text, f"{part_where}.text")
            raw_annotations = part.get("annotations")
            annotations = [] if raw_annotations is None else _list(
                raw_annotations, f"{part_where}.annotations")
            cited: list[_FileCitation] = []
            for a, annotation in enumerate(annotations):
                note_where = f"{part_where}.annotations[{a}]"
                annotation = _object(annotation, note_where)
                kind = _str(_required(annotation, "type", note_where), f"{note_where}.type")
                if kind != "file_citation":
                    ignored[kind] = ignored.get(kind, 0) + 1
                    continue
                file_id = _str(_required(annotation, "file_id", note_where),
                               f"{note_where}.file_id")
                index = _index(_required(annotation, "index", note_where), f"{note_where}.index")
                if index > len(text):
                    raise FormatError(f"{note_where}.index {index} is out of range (the text "
                                      f"has {len(text)} characters)")
                filename = annotation.get("filename")
                cited.append(_FileCitation(file_id, filename if isinstance(filename, str)
                                           else None, index, note_where))
            parts.append((text, cited))

    citations = [c for _, cited in parts for c in cited]
    if citations and not texts:
        include = request.get("include")
        asked = isinstance(include, list) and "file_search_call.results" in include
        raise FormatError(
            "response.output holds file citations but no file_search_call results"
            + ("" if asked else
               '; send the request with include: ["file_search_call.results"]')
            + ": without the retrieved text the citations cannot be checked"
        )

    markers = {file_id: f"S{n}" for n, file_id in enumerate(texts, start=1)}
    for citation in citations:
        if citation.file_id not in markers:
            marker = f"S{len(markers) + 1}"
            markers[citation.file_id] = marker
            name = f" ({citation.filename})" if citation.filename else ""
            notes.append(f"[{marker}] cites {citation.file_id}{name}, which no file_search "
                         "result returned: it is reported as a fabricated marker.")

    answer = "".join(_with_markers(text, cited, markers, notes) for text, cited in parts)
    vendor = "".join(text for text, _ in parts)
    if any(ord(char) > 0xFFFF for char in vendor) and citations:
        notes.append("The text holds characters outside the Basic Multilingual Plane; "
                     "citation indices were taken as code points (their unit is not documented).")
    notes[1:1] = _marker_notes(vendor, "response's")
    if texts:
        listed = "; ".join(
            f"[{markers[file_id]}] {names[file_id] or file_id} ({file_id}, "
            f"{len(chunks)} result{'' if len(chunks) == 1 else 's'})"
            for file_id, chunks in texts.items()
        )
        notes.insert(1, f"Sources are the file search results: {listed}.")
    if searches and without_results:
        notes.append(f"{without_results} of {searches} file_search_call item(s) carry no "
                     'results (request include: ["file_search_call.results"]).')
    if not citations:
        notes.append("The response carries no file citations.")
    for kind, count in ignored.items():
        notes.append(f"{count} {kind} annotation(s) were not checked.")
    status = response.get("status")
    if status not in (None, "completed"):
        details = response.get("incomplete_details")
        reason = details.get("reason") if isinstance(details, Mapping) else None
        notes.append(f"The response status is {status!r}"
                     + (f" ({reason})" if reason else "") + ": the answer may be incomplete.")
    if isinstance(response.get("id"), str):
        notes.append(f"Vendor response id: {response['id']}.")
    model = response.get("model") or request.get("model")
    return {
        "model": model if isinstance(model, str) else None,
        "question": _openai_question(request),
        "answer": answer,
        "sources": [{"marker": markers[f], "text": _BLOCK_SEPARATOR.join(chunks)}
                    for f, chunks in texts.items()],
        "notes": notes,
    }


def _with_markers(
    text: str, cited: Sequence[_FileCitation], markers: Mapping[str, str], notes: list[str]
) -> str:
    """``text`` with a marker at each citation's index, inserted from the end;
    citations at one index share a bracket (``[S1, S2]``)."""
    at: dict[int, list[str]] = {}
    for citation in cited:
        labels = at.setdefault(citation.index, [])
        if markers[citation.file_id] not in labels:
            labels.append(markers[citation.file_id])
    for index in sorted(at, reverse=True):
        before = text[index - 1] if index else ""
        after = text[index] if index < len(text) else ""
        token = f"[{', '.join(at[index])}]"
        if before and not before.isspace():
            token = " " + token
        if after.isalnum():
            token += " "
            if before.isalnum():
                where = next(c.where for c in cited if c.index == index)
                notes.append(f"{where}: index {index} falls inside a word.")
        text = text[:index] + token + text[index:]
    return text
