"""The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json
and rendered for people at /api/docs/."""

from __future__ import annotations

from typing import Any

from verification.claims import CHECKS
from verification.offsets import RANGE_LISTS, TEXT_OF
from verification.report import OUTCOMES, SENTENCE_STATUSES

_ERROR = {"$ref": "#/components/responses/Error"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _error(description: str) -> dict[str, Any]:
    return _json({"$ref": "#/components/schemas/Error"}, description)


def _query(name: str, description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "in": "query", "description": description, "schema": schema}


def _page(item: str) -> dict[str, Any]:
    return {"type": "object", "required": ["results", "next_cursor", "next"], "properties": {
        "results": {"type": "array", "items": {"$ref": f"#/components/schemas/{item}"}},
        "next_cursor": {"type": ["string", "null"],
                        "description": "Send as `cursor` for the next page; null on the last"},
        "next": {"type": ["string", "null"],
                 "description": "The next page's URL, filters kept; null on the last"},
    }}


_TIME = {"type": "string", "format": "date-time"}
#: The server's limits, stated so that generated requests (Schemathesis) and
#: clients know them: a database id, a marker, a name.
_ID = {"type": "integer", "minimum": 1, "maximum": 2**63 - 1}
_INT64 = {"type": "integer", "minimum": -(2**63), "maximum": 2**63 - 1}
_OFFSET = {"type": "integer", "minimum": 0, "maximum": 2**63 - 1}
_NAME = {"type": "string", "maxLength": 200}
#: An upload's OCR language (reviewer.ingestion.ocr): a 400 names the installed ones.
_OCR_LANGUAGE = {"type": "string", "pattern": "^[A-Za-z_]+(\\+[A-Za-z_]+)*$", "description": (
    "The Tesseract language(s) its pages without a text layer are OCR'd in: `eng`, `fra`, "
    "`deu`, or several joined by `+` (`eng+fra`); the server's default (CITEGUARD_OCR_LANGUAGE, "
    "`eng`) when left out. One not installed is a 400 `invalid-ocr-language`.")}
#: A document's title (reviewer.models.documents.TITLE_MAX): longer is a 400.
_TITLE = {"type": "string", "maxLength": 300}
# Not blank once its brackets and spaces are stripped ("[s1]" is S1).
_MARKER = {"oneOf": [{"type": "string", "minLength": 1, "maxLength": 20,
                      "pattern": "[^\\s\\[\\]\u3010\u3011]"}, _INT64]}

# Anthropic's content blocks and OpenAI's output items (their own schemas
# say more; these are what citeguard reads first).
_VENDOR_BLOCK = {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}
#: Page rectangles of a range of an ingested PDF (PDF user space points).
_PAGES = {"type": "array", "items": {"type": "object", "properties": {
    "page": {"type": "integer"},
    "rects": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}}}}}


def _choices(*values: str) -> dict[str, Any]:
    """One value or several, comma-separated (``flag,fail``)."""
    one = "|".join(values)
    return {"type": "string", "pattern": f"^({one})(,({one}))*$"}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "citeguard API",
        "version": "1",
        "description": (
            "Deterministic verification of the citations in RAG answers: markers must be "
            "injected, quoted spans must occur in the cited source, claims should carry a "
            "marker. It verifies provenance, never truth. Offsets are Python code points. "
            "A token sees only its workspace's documents: another workspace's document is "
            "answered as a missing one."
        ),
    },
    "servers": [{"url": "/api/v1"}],
    "security": [{"bearer": []}],
    "paths": {
        "/answers": {
            "post": {
                "summary": "Verify an answer inline, store it and its verdicts",
                "description": (
                    "Verifies the answer, applies its surface's failure policy and stores "
                    "everything in one transaction. The same `id` from the same client with "
                    "the same body returns the stored result (200) instead of verifying again "
                    "(201); the same `id` with a different body is a 409 `id-conflict`. Bodies "
                    "are compared as canonical JSON (key order and whitespace do not count). "
                    "Also takes `{\"format\": \"anthropic\"|\"openai\", \"request\": "
                    "{...}, \"response\": {...}}`."
                ),
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"oneOf": [{"$ref": "#/components/schemas/AnswerInput"},
                                         {"$ref": "#/components/schemas/VendorInput"}]}}}},
                "responses": {
                    "201": _json({"$ref": "#/components/schemas/AnswerResult"}, "Verified now"),
                    "200": _json({"$ref": "#/components/schemas/AnswerResult"},
                                 "Already submitted with this body: the stored result"),
                    "400": _error("A bad field, named in the message with its limit: "
                                  "`id-too-long` (200 characters), `model-too-long` (200), "
                                  "`marker-too-long` (20), `unknown-surface`, "
                                  "`invalid-payload`…; nothing is stored or cut"),
                    "401": _ERROR,
                    "409": _error("`id-conflict`: this id was submitted with another body"),
                    "413": _error("A limit, named in the message: payload bytes, sources, "
                                  "answer or source length, or `verification-budget-exceeded` "
                                  "(the answer's fuzzy alignment work, MAX_VERIFY_WORK)"),
                    "415": _ERROR,
                    "503": _error("`verification-busy`: a costly answer (alignment work over "
                                  "HEAVY_VERIFY_WORK) while every slot for such answers is "
                                  "taken; retry after the `Retry-After` seconds"),
                },
            },
            "get": {
                "summary": "This client's answers, newest first",
                "description": (
                    "A summary per answer (GET `/answers/{id}` for its sentences). Filters "
                    "combine with AND; a repeated or comma-separated filter matches any of "
                    "its values. Pass `next_cursor` back as `cursor` with the same filters "
                    "(or follow `next`). Unknown parameters are a 400."
                ),
                "parameters": [
                    _query("surface", "Surface name(s)", {"type": "string"}),
                    _query("model", "Model name(s) as submitted", {"type": "string"}),
                    _query("verdict", "Verdict(s): pass, flag, fail",
                           {**_choices("pass", "flag", "fail"), "example": "flag,fail"}),
                    {"$ref": "#/components/parameters/Since"},
                    {"$ref": "#/components/parameters/Cursor"},
                    {"$ref": "#/components/parameters/Limit"},
                ],
                "responses": {"200": _json(_page("AnswerSummary"), "One page"),
                              "400": _ERROR, "401": _ERROR},
            },
        },
        "/answers/{id}": {
            "get": {
                "summary": "A stored answer's result, by citeguard's id or your own",
                "description": (
                    "`{id}` is citeguard's id (`answer` in results) or the `id` you submitted "
                    "(percent-encode it), looked up among this token's answers only. A number "
                    "that is both, for two different answers, is a 409 `ambiguous-id`: add "
                    "`?by=answer` or `?by=id`."
                ),
                "parameters": [
                    {"name": "id", "in": "path", "required": True,
                     "schema": {**_NAME, "minLength": 1}},
                    _query("by", "Which id `{id}` is", {"enum": ["answer", "id"]}),
                ],
                "responses": {"200": _json({"$ref": "#/components/schemas/AnswerResult"},
                                           "The result"), "400": _ERROR, "401": _ERROR,
                              "404": _ERROR,
                              "409": _error("`ambiguous-id`: say which with `by`")},
            },
        },
        "/documents": {
            "post": {
                "summary": "Upload a PDF for ingestion",
                "description": (
                    "The same bytes uploaded again are the existing document: 200 with "
                    "`created: false` and a message, and nothing stored. A document is a new "
                    "version of another only when you say so: `supersedes` (its id) or a "
                    "`document_key` you chose, which every version carries; a title or file "
                    "name never makes one. The older version is marked superseded when the "
                    "new one is ready. With `application/pdf`, send the fields in the query "
                    "string (and `filename`)."
                ),
                "parameters": [
                    _query("title", "application/pdf only", _TITLE),
                    _query("document_key", "application/pdf only", _NAME),
                    _query("supersedes", "application/pdf only", _ID),
                    _query("filename", "application/pdf only", {"type": "string"}),
                    _query("ocr_language", "application/pdf only", _OCR_LANGUAGE),
                ],
                "requestBody": {"content": {
                    "multipart/form-data": {"schema": {"type": "object", "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "title": {**_TITLE, "description": (
                            "Shown to reviewers; the file name by default. Over 300 "
                            "characters is a 400 `title-too-long`: never cut")},
                        "document_key": {"type": "string", "maxLength": 200, "description": (
                            "Your stable name for this document: an upload under a key "
                            "already used is that document's next version")},
                        "supersedes": {**_ID, "description": (
                            "The id of the document this one replaces (the latest version "
                            "of its key, if it has one)")},
                        "ocr_language": _OCR_LANGUAGE,
                    }, "required": ["file"], "additionalProperties": False}},
                    "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                }},
                "responses": {
                    "202": _json({"$ref": "#/components/schemas/DocumentUpload"}, "Queued"),
                    "201": _json({"$ref": "#/components/schemas/DocumentUpload"},
                                 "Ingested (or failed) already"),
                    "200": _json({"$ref": "#/components/schemas/DocumentUpload"},
                                 "Already uploaded: the existing document"),
                    "400": _error("A bad field, named in the message: a title over 300 "
                                  "characters (`title-too-long`), a `document_key` over 200 "
                                  "or not a key (`invalid-document-key`), a `supersedes` that "
                                  "is not a document (`invalid-supersedes`), an "
                                  "`ocr_language` not installed (`invalid-ocr-language`, "
                                  "naming the installed ones)…"),
                    "401": _ERROR,
                    "409": _error("`not-latest-version`, `already-superseded` or "
                                  "`key-mismatch`: the versions asked for contradict those "
                                  "stored"),
                    "413": _ERROR,
                },
            },
            "get": {
                "summary": "Documents, newest first",
                "parameters": [
                    _query("q", "A document id (`42` or `#42`), part of a title or key, or "
                           "a SHA-256 prefix (8+ hex digits)", {"type": "string"}),
                    _query("status", "Status(es), comma-separated or repeated",
                           {**_choices("queued", "processing", "ready", "failed"),
                            "example": "ready"}),
                    _query("document_key", "Every version under this key", _NAME),
                    _query("current", "true: latest versions only; false: superseded only",
                           {"enum": ["true", "false"]}),
                    {"$ref": "#/components/parameters/Since"},
                    {"$ref": "#/components/parameters/Cursor"},
                    {"$ref": "#/components/parameters/Limit"},
                ],
                "responses": {"200": _json(_page("Document"), "One page"),
                              "400": _ERROR, "401": _ERROR},
            },
        },
        "/documents/{id}": {"get": {
            "summary": "A document's ingestion status",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": _ID}],
            "responses": {"200": _json({"$ref": "#/components/schemas/Document"}, "Status"),
                          "401": _ERROR, "404": _ERROR},
        }},
        "/documents/{id}/chunks": {"get": {
            "summary": "The chunks to inject, in order, with ids to cite as "
                       "{\"marker\", \"chunk\"}",
            "parameters": [{"name": "id", "in": "path", "required": True, "schema": _ID},
                           {"$ref": "#/components/parameters/Cursor"},
                           {"name": "limit", "in": "query", "description": "1-500",
                            "schema": {"type": "integer", "minimum": 1, "maximum": 500,
                                       "default": 100}}],
            "responses": {"200": _json({**_page("Chunk"), "properties": {
                **_page("Chunk")["properties"],
                "document": {"type": "integer"}, "chunk_count": {"type": "integer"}}},
                "One page of chunks"), "400": _ERROR, "401": _ERROR, "404": _ERROR,
                "409": _error("`not-ready`: chunks exist once the document is ready")},
        }},
        "/ping": {"get": {"summary": "Authenticated no-op",
                          "responses": {"200": _json({"type": "object"}, "pong"),
                                        "401": _ERROR}}},
    },
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                       "description": "manage.py create_api_token NAME "
                                                      "[--workspace WORKSPACE]"}},
        "responses": {"Error": _error("An error, with a message naming what to fix")},
        "parameters": {
            "Cursor": _query("cursor", "`next_cursor` of the previous page", {"type": "string"}),
            "Limit": {"name": "limit", "in": "query", "description": "Rows a page, 1-200",
                      "schema": {"type": "integer", "minimum": 1, "maximum": 200,
                                 "default": 50}},
            "Since": _query("since", "Created at or after: an ISO 8601 date or date-time "
                            "(UTC without a zone)", {
                                "anyOf": [{"type": "string", "format": "date"},
                                          {"type": "string", "format": "date-time"}],
                                "example": "2026-03-01T09:30:00Z"}),
        },
        "schemas": {
            "Error": {"type": "object", "required": ["error"], "properties": {"error": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"type": "string"}, "message": {"type": "string"}}}}},
            "Source": {"oneOf": [
                {"type": "object", "required": ["marker", "text"],
                 "properties": {"marker": _MARKER,
                                "text": {"type": "string", "maxLength": 200_000}}},
                {"type": "object", "required": ["marker", "chunk"],
                 "properties": {"marker": _MARKER, "chunk": _ID}},
                {"type": "object", "required": ["marker", "document"],
                 "properties": {"marker": _MARKER, "document": _ID, "start": _OFFSET,
                                "end": {**_OFFSET, "description": "not before start"}}},
            ]},
            "AnswerInput": {"type": "object", "required": ["answer", "sources"], "properties": {
                "id": {**_NAME, "description": "your id; idempotency key"},
                "surface": {"type": "string", "maxLength": 100}, "model": _NAME,
                "question": {"type": "string"},
                "answer": {"type": "string", "maxLength": 50_000},
                "sources": {"type": "array", "maxItems": 100, "description": (
                    "markers differ (case aside)"),
                    "items": {"$ref": "#/components/schemas/Source"}},
            }},
            "VendorInput": {"oneOf": [
                {"type": "object", "required": ["format", "request", "response"], "properties": {
                    "format": {"const": "anthropic"},
                    "request": {"type": "object", "required": ["messages"], "properties": {
                        "messages": {"type": "array", "items": {
                            "type": "object", "required": ["content"], "properties": {
                                "content": {"type": ["string", "array"],
                                            "items": _VENDOR_BLOCK}}}}}},
                    "response": {"type": "object", "required": ["content"], "properties": {
                        "content": {"type": "array", "items": _VENDOR_BLOCK}}},
                    "id": _NAME, "surface": {"type": "string", "maxLength": 100}}},
                {"type": "object", "required": ["format", "response"], "properties": {
                    "format": {"const": "openai"}, "request": {"type": "object"},
                    "response": {"type": "object", "required": ["output"], "properties": {
                        "output": {"type": "array", "items": _VENDOR_BLOCK}}},
                    "id": _NAME, "surface": {"type": "string", "maxLength": 100}}},
            ]},
            "Citation": {"type": "object", "properties": {
                "outcome": {"enum": list(OUTCOMES)}, "marker": {"type": ["string", "null"]},
                "markers": {"type": "array", "items": {"type": "string"}},
                "marker_start": {"type": ["integer", "null"]},
                "marker_end": {"type": ["integer", "null"]},
                "quote": {"type": ["string", "null"]},
                "quote_start": {"type": ["integer", "null"]},
                "quote_end": {"type": ["integer", "null"]},
                "score": {"type": ["number", "null"]},
                "source_marker": {"type": ["string", "null"]},
                "chunk_start": {"type": ["integer", "null"]},
                "chunk_end": {"type": ["integer", "null"]},
                "document": {"type": ["integer", "null"]},
                "document_start": {"type": ["integer", "null"]},
                "document_end": {"type": ["integer", "null"]},
                "pages": _PAGES,
                "superseded": {"type": "boolean"}, "message": {"type": "string"},
                "closest_marker": {"type": ["string", "null"], "description": (
                    "quote-not-found and wrong-source: the cited source whose window comes "
                    "closest to the quote (not a match); null otherwise")},
                "closest_start": {"type": ["integer", "null"], "description": (
                    "start of the closest passage in the text of closest_marker's source")},
                "closest_end": {"type": ["integer", "null"]},
                "closest_score": {"type": ["number", "null"], "description": (
                    "the closest passage's similarity, below the threshold")},
                "closest_pages": {**_PAGES, "description": (
                    "page rectangles (PDF user space) of the closest passage when its source "
                    "is an ingested PDF; empty otherwise")},
                "normalizations": {"type": "array", "items": {"type": "string"}},
                "differences": {"type": "array", "items": {"type": "object"}},
                "passage_start": {"type": ["integer", "null"], "description": (
                    "the passage behind the sentence, in the text of its source (marker's "
                    "for an unquoted citation, source_marker's for a quote): for an unquoted "
                    "citation its likely passage, located by shared words (paraphrased, not "
                    "a quote); for a verified quote the sentences around its match; null "
                    "when none was located")},
                "passage_end": {"type": ["integer", "null"]},
                "passage_document_start": {"type": ["integer", "null"], "description": (
                    "the passage as a range of the document's text when the source is a "
                    "chunk or a document range; null otherwise")},
                "passage_document_end": {"type": ["integer", "null"]},
                "passage_pages": {**_PAGES, "description": (
                    "page rectangles (PDF user space) of the passage when its source is an "
                    "ingested PDF; empty otherwise")},
                "support": {"type": ["number", "null"], "description": (
                    "0..1: the share of the sentence's content words (weighted by rarity) "
                    "the passage holds; provenance, not entailment. null without a passage")},
                "shared": {"type": "array", "description": (
                    "[start, end] ranges of the source's text: the passage's words the "
                    "sentence shares"), "items": {"type": "array", "items": {"type": "integer"},
                                                  "minItems": 2, "maxItems": 2}},
                "missing": {"type": "array", "items": {"type": "string"}, "description": (
                    "the sentence's content words, as written, that the passage lacks")},
                "findings": {"type": "array", "description": (
                    "what the sentence says in its own words that its passage contradicts "
                    "or no cited source says (claim-mismatch)"),
                    "items": {"type": "object", "properties": {
                        "check": {"enum": list(CHECKS)},
                        "claim": {"type": "string", "description": "the sentence's words"},
                        "claim_start": {"type": "integer", "description": "offset in the answer"},
                        "claim_end": {"type": "integer"},
                        "message": {"type": "string", "description": (
                            "both sides in words, e.g. \"the sentence says 3 years; the "
                            "passage says two years\"")},
                        "passage": {"type": ["string", "null"], "description": (
                            "the passage's counterpart as written; null when no cited source "
                            "says it")},
                        "source_marker": {"type": ["string", "null"]},
                        "passage_start": {"type": ["integer", "null"], "description": (
                            "the counterpart in source_marker's source's text")},
                        "passage_end": {"type": ["integer", "null"]},
                    }}},
            }},
            "AnswerResult": {"type": "object", "properties": {
                "answer": {"type": "integer", "description": "citeguard's id"},
                "id": {"type": ["string", "null"], "description": "your id, as submitted"},
                "surface": {"type": ["string", "null"]}, "model": {"type": ["string", "null"]},
                "verdict": {"enum": ["pass", "flag", "fail"]},
                "action": {"enum": ["serve", "strip", "regenerate", "flag", "escalate"]},
                "served_answer": {"type": "string"}, "correction": {"type": "string"},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                "coverage": {"type": "number"}, "claims": {"type": "integer"},
                "attributed_claims": {"type": "integer"}, "threshold": {"type": "number"},
                "reasons": {"type": "array", "items": {"type": "string"}},
                "notes": {"type": "array", "items": {"type": "string"}},
                "sentences": {"type": "array", "items": {"type": "object", "properties": {
                    "index": {"type": "integer"}, "start": {"type": "integer"},
                    "end": {"type": "integer"}, "text": {"type": "string"},
                    "claim": {"type": "boolean"}, "status": {"enum": list(SENTENCE_STATUSES)},
                    "citations": {"type": "array",
                                  "items": {"$ref": "#/components/schemas/Citation"}}}}},
                "elapsed_ms": {"type": "number"}, "checks": {"const": "provenance"},
                "review_url": {"type": "string"}, "created_at": _TIME,
            }},
            "AnswerSummary": {"type": "object", "properties": {
                "answer": {"type": "integer", "description": "citeguard's id"},
                "id": {"type": ["string", "null"], "description": "your id, as submitted"},
                "surface": {"type": ["string", "null"]}, "model": {"type": ["string", "null"]},
                "verdict": {"enum": ["pass", "flag", "fail"]},
                "action": {"enum": ["serve", "strip", "regenerate", "flag", "escalate"]},
                "coverage": {"type": "number"},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                "review_state": {"enum": ["pending", "approved", "rejected", "escalated"]},
                "review_url": {"type": "string"},
                "url": {"type": "string", "description": "the answer's result in this API"},
                "created_at": _TIME,
            }},
            "Document": {"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"},
                "document_key": {"type": ["string", "null"],
                                 "description": "your stable name, shared by every version"},
                "version": {"type": "integer", "description": "1, then one more per version"},
                "status": {"enum": ["queued", "processing", "ready", "failed"]},
                "error_kind": {"type": ["string", "null"]},
                "error": {"type": ["string", "null"]},
                "sha256": {"type": "string"}, "size_bytes": {"type": "integer"},
                "page_count": {"type": "integer"}, "chunk_count": {"type": "integer"},
                "supersedes": {"type": ["integer", "null"]},
                "superseded_by": {"type": ["integer", "null"],
                                  "description": "set once a newer version is ready"},
                "created_at": _TIME,
                "ocr_language": {"type": ["string", "null"], "description": (
                    "the Tesseract language(s) its pages without a text layer are read in")},
                "progress": {"type": ["string", "null"], "description": (
                    "while queued or processing: the page being read, e.g. `Reading page 5 "
                    "of 40` or `OCR page 3 of 12`")},
                "ocr": {"type": ["object", "null"], "description": (
                    "null unless some pages had no text layer and their text came from OCR"),
                    "properties": {
                        "language": {"type": "string"},
                        "mean_confidence": {"type": "number", "description": (
                            "Tesseract's mean word confidence over the OCR'd pages, 0-100")},
                        "pages": {"type": "array", "items": {"type": "object", "properties": {
                            "page": {"type": "integer", "description": "1-based"},
                            "words": {"type": "integer"},
                            "confidence": {"type": "number"}}}},
                        "summary": {"type": "string", "description": (
                            "in words, e.g. `Text from OCR (eng), mean confidence 91% — "
                            "pages 1–3`")}}},
            }},
            "DocumentUpload": {"allOf": [{"$ref": "#/components/schemas/Document"}, {
                "type": "object", "properties": {
                    "created": {"type": "boolean",
                                "description": "false: these bytes were already uploaded"},
                    "message": {"type": "string", "description": "what happened, in words"},
                }}]},
            "Chunk": {"type": "object", "properties": {
                "id": {"type": "integer"}, "index": {"type": "integer"},
                "start": {"type": "integer"}, "end": {"type": "integer"},
                "page_first": {"type": "integer"}, "page_last": {"type": "integer"},
                "text": {"type": "string", "description": "document text [start:end]"},
                "prompt_text": {"type": "string", "description":
                                "text with running headers and page numbers blanked"},
            }},
        },
    },
}


# -- offsets in three units ------------------------------------------------
# Every X_start/X_end pair described (and each range list such as shared)
# gets X_utf16 and X_utf8 beside it, derived here rather than written out, so
# a pair added to a schema is described in all three units at once, as the
# server gives it (verification/offsets.py).

_TEXT_NAMES = {
    "answer": "the answer text",
    "cited": "the text of the cited source (source_marker's, else marker's)",
    "closest": "the text of closest_marker's source",
    "document": "the document's text",
}
_UNITS = {
    "utf16": "UTF-16 code units (a JavaScript, Java or Kotlin string index; Swift's utf16 view)",
    "utf8": "UTF-8 bytes (a Go, Rust or C byte index)",
}
_CODE_POINTS = "code points (a Python string index)"


def _with_offset_units(properties: dict[str, Any]) -> dict[str, Any]:
    """``properties`` with every offset's unit and text described, and each
    pair's (or range list's) ``_utf16``/``_utf8`` forms right after it."""
    result: dict[str, Any] = {}
    for key, schema in properties.items():
        result[key] = schema
        name = key.removesuffix("_end") if key.endswith("_end") else "" if key == "end" else None
        start_key = f"{name}_start" if name else "start"
        if name is not None and start_key in properties and name in TEXT_OF:
            text = _TEXT_NAMES[TEXT_OF[name]]
            for edge in (start_key, key):
                said = properties[edge].get("description", "")
                result[edge] = {**properties[edge], "description": (
                    f"{said}, in {_CODE_POINTS}" if said
                    else f"an offset into {text}, in {_CODE_POINTS}")}
            nullable = "null" in properties[start_key].get("type", ())
            for unit, words in _UNITS.items():
                result[f"{name}_{unit}" if name else unit] = {
                    "type": ["array", "null"] if nullable else "array",
                    "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2,
                    "description": f"[{start_key}, {key}] in {words}"}
        elif key in RANGE_LISTS:
            said = schema.get("description", "")
            result[key] = {**schema, "description": (f"{said}; " if said else "") + (
                f"[start, end] ranges of {_TEXT_NAMES[RANGE_LISTS[key]]}, in {_CODE_POINTS}")}
            for unit, words in _UNITS.items():
                result[f"{key}_{unit}"] = {"type": "array", "items": schema.get("items", {}),
                                           "description": f"the {key} ranges in {words}"}
    return result


def _describe_offsets(schemas: dict[str, Any]) -> None:
    citation = schemas["Citation"]["properties"]
    findings = citation.get("findings", {}).get("items", {})
    if "properties" in findings:
        findings["properties"] = _with_offset_units(findings["properties"])
    schemas["Citation"]["properties"] = _with_offset_units(citation)
    sentence = schemas["AnswerResult"]["properties"]["sentences"]["items"]
    sentence["properties"] = _with_offset_units(sentence["properties"])


_describe_offsets(SPEC["components"]["schemas"])
