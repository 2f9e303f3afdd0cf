"""The OpenAPI 3.1 description of /api/v1, served at /api/v1/openapi.json
and rendered for people at /api/docs/."""

from __future__ import annotations

from typing import Any

from verification.report import OUTCOMES, SENTENCE_STATUSES

_ERROR = {"$ref": "#/components/responses/Error"}


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


SPEC: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {
        "title": "citeguard API",
        "version": "1",
        "description": (
            "Deterministic verification of the citations in RAG answers: markers must be "
            "injected, quoted spans must occur in the cited source, claims should carry a "
            "marker. It verifies provenance, never truth. Offsets are Python code points."
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
                    "everything in one transaction. The same `id` from the same client returns "
                    "the stored result (200) instead of verifying again (201). Also takes "
                    "`{\"format\": \"anthropic\"|\"openai\", \"request\": {...}, \"response\": "
                    "{...}}`."
                ),
                "requestBody": {"required": True, "content": {"application/json": {
                    "schema": {"oneOf": [{"$ref": "#/components/schemas/AnswerInput"},
                                         {"$ref": "#/components/schemas/VendorInput"}]}}}},
                "responses": {
                    "201": _json({"$ref": "#/components/schemas/AnswerResult"}, "Verified now"),
                    "200": _json({"$ref": "#/components/schemas/AnswerResult"},
                                 "Already submitted: the stored result"),
                    "400": _ERROR, "401": _ERROR, "413": _ERROR, "415": _ERROR,
                },
            },
        },
        "/answers/{id}": {
            "get": {
                "summary": "A stored answer's result",
                "parameters": [{"name": "id", "in": "path", "required": True,
                                "schema": {"type": "integer"}}],
                "responses": {"200": _json({"$ref": "#/components/schemas/AnswerResult"},
                                           "The result"), "401": _ERROR, "404": _ERROR},
            },
        },
        "/documents": {
            "post": {
                "summary": "Upload a PDF for ingestion",
                "requestBody": {"content": {
                    "multipart/form-data": {"schema": {"type": "object", "properties": {
                        "file": {"type": "string", "format": "binary"},
                        "title": {"type": "string"},
                        "supersedes": {"type": "integer"}}, "required": ["file"]}},
                    "application/pdf": {"schema": {"type": "string", "format": "binary"}},
                }},
                "responses": {
                    "202": _json({"$ref": "#/components/schemas/Document"}, "Queued"),
                    "201": _json({"$ref": "#/components/schemas/Document"}, "Ingested"),
                    "200": _json({"$ref": "#/components/schemas/Document"},
                                 "The same file was uploaded before"),
                    "400": _ERROR, "401": _ERROR, "413": _ERROR,
                },
            },
        },
        "/documents/{id}": {"get": {
            "summary": "A document's ingestion status",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": _json({"$ref": "#/components/schemas/Document"}, "Status"),
                          "401": _ERROR, "404": _ERROR},
        }},
        "/documents/{id}/chunks": {"get": {
            "summary": "The chunks to inject, with ids to cite as {\"marker\", \"chunk\"}",
            "parameters": [{"name": "id", "in": "path", "required": True,
                            "schema": {"type": "integer"}}],
            "responses": {"200": _json({"type": "object", "properties": {
                "document": {"type": "integer"},
                "chunks": {"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "integer"}, "index": {"type": "integer"},
                    "start": {"type": "integer"}, "end": {"type": "integer"},
                    "pages": {"type": "array", "items": {"type": "integer"}},
                    "text": {"type": "string"},
                    "prompt_text": {"type": "string", "description":
                                    "text with running headers and page numbers blanked"},
                }}}}}, "Chunks"), "401": _ERROR, "404": _ERROR, "409": _ERROR},
        }},
        "/ping": {"get": {"summary": "Authenticated no-op",
                          "responses": {"200": _json({"type": "object"}, "pong")}}},
    },
    "components": {
        "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer",
                                       "description": "manage.py create_api_token NAME"}},
        "responses": {"Error": _json({"type": "object", "properties": {"error": {
            "type": "object", "properties": {"code": {"type": "string"},
                                             "message": {"type": "string"}}}}},
            "An error, with a message naming what to fix")},
        "schemas": {
            "Source": {"oneOf": [
                {"type": "object", "required": ["marker", "text"],
                 "properties": {"marker": {"type": ["string", "integer"]},
                                "text": {"type": "string"}}},
                {"type": "object", "required": ["marker", "chunk"],
                 "properties": {"marker": {"type": ["string", "integer"]},
                                "chunk": {"type": "integer"}}},
                {"type": "object", "required": ["marker", "document"],
                 "properties": {"marker": {"type": ["string", "integer"]},
                                "document": {"type": "integer"}, "start": {"type": "integer"},
                                "end": {"type": "integer"}}},
            ]},
            "AnswerInput": {"type": "object", "required": ["answer", "sources"], "properties": {
                "id": {"type": "string", "description": "your id; idempotency key"},
                "surface": {"type": "string"}, "model": {"type": "string"},
                "question": {"type": "string"}, "answer": {"type": "string"},
                "sources": {"type": "array", "items": {"$ref": "#/components/schemas/Source"}},
            }},
            "VendorInput": {"type": "object", "required": ["format", "request", "response"],
                            "properties": {
                                "format": {"enum": ["anthropic", "openai"]},
                                "request": {"type": "object"}, "response": {"type": "object"},
                                "id": {"type": "string"}, "surface": {"type": "string"}}},
            "Citation": {"type": "object", "properties": {
                "outcome": {"enum": list(OUTCOMES)}, "marker": {"type": ["string", "null"]},
                "markers": {"type": "array", "items": {"type": "string"}},
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
                "pages": {"type": "array", "items": {"type": "object", "properties": {
                    "page": {"type": "integer"},
                    "rects": {"type": "array", "items": {"type": "array",
                                                         "items": {"type": "number"}}}}}},
                "superseded": {"type": "boolean"}, "message": {"type": "string"},
            }},
            "AnswerResult": {"type": "object", "properties": {
                "answer": {"type": "integer", "description": "citeguard's id"},
                "id": {"type": ["string", "null"]},
                "verdict": {"enum": ["pass", "flag", "fail"]},
                "action": {"enum": ["serve", "strip", "regenerate", "flag", "escalate"]},
                "served_answer": {"type": "string"}, "correction": {"type": "string"},
                "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                "coverage": {"type": "number"}, "threshold": {"type": "number"},
                "reasons": {"type": "array", "items": {"type": "string"}},
                "notes": {"type": "array", "items": {"type": "string"}},
                "sentences": {"type": "array", "items": {"type": "object", "properties": {
                    "index": {"type": "integer"}, "start": {"type": "integer"},
                    "end": {"type": "integer"}, "text": {"type": "string"},
                    "claim": {"type": "boolean"}, "status": {"enum": list(SENTENCE_STATUSES)},
                    "citations": {"type": "array",
                                  "items": {"$ref": "#/components/schemas/Citation"}}}}},
                "elapsed_ms": {"type": "number"}, "review_url": {"type": "string"},
            }},
            "Document": {"type": "object", "properties": {
                "id": {"type": "integer"}, "title": {"type": "string"},
                "status": {"enum": ["queued", "processing", "ready", "failed"]},
                "error_kind": {"type": ["string", "null"]},
                "error": {"type": ["string", "null"]}, "pages": {"type": "integer"},
                "supersedes": {"type": ["integer", "null"]},
                "superseded_by": {"type": ["integer", "null"]},
            }},
        },
    },
}
