"""The OpenAPI schema describes what the API really serves: every route and
method, and exactly the keys of every payload."""

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import URLPattern, get_resolver

from reviewer.api.openapi import SPEC

pytestmark = pytest.mark.django_db

SCHEMAS = SPEC["components"]["schemas"]


def properties(name: str) -> set[str]:
    schema = SCHEMAS[name]
    if "allOf" in schema:
        return set().union(*(properties(part["$ref"].rsplit("/", 1)[1]) if "$ref" in part
                             else set(part["properties"]) for part in schema["allOf"]))
    return set(schema["properties"])


def test_every_api_route_and_method_is_described() -> None:
    from reviewer.api import urls

    described = {path.replace("{id}", "ID") for path in SPEC["paths"]}
    for pattern in urls.urlpatterns:
        assert isinstance(pattern, URLPattern)
        route = "/" + str(pattern.pattern).replace("<anytext:ref>", "ID").replace(
            "<int:document_id>", "ID")
        if route == "/openapi.json" or pattern.name == "not-found":
            continue  # the description itself; the JSON 404 for every other path
        assert route in described, route
    assert set(SPEC["paths"]["/answers"]) == {"get", "post"}
    assert set(SPEC["paths"]["/documents"]) == {"get", "post"}
    assert get_resolver()  # the URLconf loads


def test_payload_keys_are_exactly_the_described_properties(
    api: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = api.post("/api/v1/documents", {"file": SimpleUploadedFile(
            "p.pdf", text_pdf("Employer match vests after two years of service."))}).json()
    assert set(uploaded) == properties("DocumentUpload")
    document = api.get(f"/api/v1/documents/{uploaded['id']}").json()
    assert set(document) == properties("Document")
    assert set(api.get("/api/v1/documents").json()["results"][0]) == properties("Document")
    chunks = api.get(f"/api/v1/documents/{uploaded['id']}/chunks").json()
    chunk_page = SPEC["paths"]["/documents/{id}/chunks"]["get"]["responses"]["200"]
    assert set(chunks) == set(chunk_page["content"]["application/json"]["schema"]["properties"])
    assert set(chunks["results"][0]) == properties("Chunk")
    (chunk,) = chunks["results"]

    body = {"id": "c-1", "answer": '"Employer match vests after two years" [S1].',
            "sources": [{"marker": "S1", "chunk": chunk["id"]}]}
    result = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert set(result.json()) == properties("AnswerResult")
    citation = result.json()["sentences"][0]["citations"][0]
    assert set(citation) == properties("Citation")
    listed = api.get("/api/v1/answers").json()
    assert set(listed) == {"results", "next_cursor", "next"}
    assert set(listed["results"][0]) == properties("AnswerSummary")


def test_the_schema_is_served_and_is_json(client: Any) -> None:
    served = client.get("/api/v1/openapi.json").json()
    assert served == json.loads(json.dumps(SPEC))
    assert "document_key" in json.dumps(served["paths"]["/documents"]["post"])


def test_the_docs_page_lists_each_operation_with_its_parameters(client: Any,
                                                                 make_user: Any) -> None:
    client.force_login(make_user("integrator"))  # signed in, no role needed
    html = client.get("/api/docs/").content.decode()
    assert "GET /api/v1/answers</code>" in html and "POST /api/v1/documents</code>" in html
    assert "<code>verdict</code>" in html and "<code>cursor</code>" in html
    assert "<code>by</code>" in html


def test_the_schema_states_the_server_s_own_limits(settings: Any) -> None:
    """bin/fuzz-api generates from these: a limit the schema overstates makes
    valid-looking requests the server refuses, one it understates hides them."""
    from reviewer.services.answers import MAX_ID_CHARS, MAX_MARKER_CHARS, MAX_MODEL_CHARS

    limits = settings.CITEGUARD
    answer = SCHEMAS["AnswerInput"]["properties"]
    assert answer["id"]["maxLength"] == MAX_ID_CHARS
    assert answer["model"]["maxLength"] == MAX_MODEL_CHARS
    assert answer["answer"]["maxLength"] == limits["MAX_ANSWER_CHARS"]
    assert answer["sources"]["maxItems"] == limits["MAX_SOURCES"]
    inline = SCHEMAS["Source"]["oneOf"][0]["properties"]
    assert inline["text"]["maxLength"] == limits["MAX_SOURCE_CHARS"]
    assert inline["marker"]["oneOf"][0]["maxLength"] == MAX_MARKER_CHARS
