"""Workspaces: a token lists, reads, cites and supersedes only its own
workspace's documents, and another workspace's document is answered exactly
as a missing one (no way to learn that it exists)."""

from __future__ import annotations

import importlib
import json
import re
from io import StringIO
from typing import Any

import pytest
from django.apps import apps
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from reviewer.models import ApiClient, CitationVerdict, Document, ReviewDecision, Workspace
from reviewer.services.clients import api_client_create
from tests.factories import BuiltPdf

pytestmark = pytest.mark.django_db


def _token_client(name: str, workspace: str) -> Client:
    space, _ = Workspace.objects.get_or_create(name=workspace)
    _, token = api_client_create(name=name, workspace=space)
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}")


@pytest.fixture
def a() -> Client:
    return _token_client("service-a", "clinic-a")


@pytest.fixture
def b() -> Client:
    return _token_client("service-b", "clinic-b")


def _upload(api: Client, data: bytes, **fields: Any) -> Any:
    return api.post("/api/v1/documents",
                    {"file": SimpleUploadedFile("policy.pdf", data, "application/pdf"), **fields})


@pytest.fixture
def a_document(a: Client, report_pdf: BuiltPdf, django_capture_on_commit_callbacks: Any
               ) -> Document:
    with django_capture_on_commit_callbacks(execute=True):
        response = _upload(a, report_pdf.data, document_key="handbook")
    assert response.status_code == 202
    document = Document.objects.get(pk=response.json()["id"])
    assert document.status == Document.Status.READY
    return document


def _missing_id() -> int:
    return (Document.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000


def _same_as_missing(response: Any, hidden: int, missing: Any, absent: int) -> None:
    """``response`` (for another workspace's ``hidden``) is ``missing`` (for
    the id ``absent`` that names nothing), but for the number itself."""
    assert response.status_code == missing.status_code
    assert (re.sub(rf"\b{hidden}\b", "N", response.content.decode())
            == re.sub(rf"\b{absent}\b", "N", missing.content.decode()))


def test_b_lists_none_of_a_documents(a: Client, b: Client, a_document: Document) -> None:
    assert [d["id"] for d in a.get("/api/v1/documents").json()["results"]] == [a_document.pk]
    for query in ("", f"?q={a_document.pk}", f"?q={a_document.sha256[:12]}",
                  "?document_key=handbook"):
        assert b.get(f"/api/v1/documents{query}").json()["results"] == [], query


def test_b_reading_a_document_is_answered_as_a_missing_one(
        a: Client, b: Client, a_document: Document) -> None:
    absent = _missing_id()
    assert a.get(f"/api/v1/documents/{a_document.pk}").status_code == 200
    for suffix in ("", "/chunks"):
        hidden = b.get(f"/api/v1/documents/{a_document.pk}{suffix}")
        missing = b.get(f"/api/v1/documents/{absent}{suffix}")
        assert hidden.status_code == 404
        _same_as_missing(hidden, a_document.pk, missing, absent)


def _cite(api: Client, source: dict[str, Any]) -> Any:
    body = {"answer": "It vests at once [S1].", "sources": [{"marker": "S1", **source}]}
    return api.post("/api/v1/answers", json.dumps(body), content_type="application/json")


def test_b_cannot_cite_a_document_or_its_chunks(
        a: Client, b: Client, a_document: Document) -> None:
    chunk = a_document.chunks.order_by("index").first()
    assert chunk is not None
    assert _cite(a, {"document": a_document.pk}).status_code == 201
    assert _cite(a, {"chunk": chunk.pk}).status_code == 201
    absent_document, absent_chunk = _missing_id(), chunk.pk + 100_000
    hidden = _cite(b, {"document": a_document.pk})
    assert hidden.status_code == 400
    _same_as_missing(hidden, a_document.pk, _cite(b, {"document": absent_document}),
                     absent_document)
    hidden = _cite(b, {"chunk": chunk.pk})
    assert hidden.status_code == 400
    _same_as_missing(hidden, chunk.pk, _cite(b, {"chunk": absent_chunk}), absent_chunk)


def test_b_cannot_supersede_a_document(
        a: Client, b: Client, a_document: Document, text_pdf: Any) -> None:
    absent = _missing_id()
    hidden = _upload(b, text_pdf("A new version by B."), supersedes=str(a_document.pk))
    missing = _upload(b, text_pdf("A new version by B."), supersedes=str(absent))
    assert hidden.status_code == 400
    _same_as_missing(hidden, a_document.pk, missing, absent)
    # A's key names nothing in B's workspace: B's upload is its own first version.
    mine = _upload(b, text_pdf("B's own handbook."), document_key="handbook").json()
    assert (mine["version"], mine["supersedes"]) == (1, None)
    a_document.refresh_from_db()
    assert a_document.superseded_by_id is None
    assert Document.objects.with_key("handbook", workspace=a_document.workspace).count() == 1


def test_the_same_bytes_in_two_workspaces_are_two_documents(
        a: Client, b: Client, a_document: Document, report_pdf: BuiltPdf,
        django_capture_on_commit_callbacks: Any) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        theirs = _upload(b, report_pdf.data)
    assert theirs.status_code == 202 and theirs.json()["created"] is True
    assert theirs.json()["id"] != a_document.pk
    assert "Already uploaded" not in theirs.json()["message"]
    assert Document.objects.filter(sha256=a_document.sha256).count() == 2
    # Within a workspace the same bytes are still the same document.
    again = _upload(a, report_pdf.data).json()
    assert (again["id"], again["created"]) == (a_document.pk, False)
    assert [d["id"] for d in b.get("/api/v1/documents").json()["results"]] == [
        theirs.json()["id"]]


def test_create_api_token_puts_the_client_in_its_workspace() -> None:
    out, err = StringIO(), StringIO()
    call_command("create_api_token", "ward-7", "--workspace", "oncology", stdout=out, stderr=err)
    assert ApiClient.objects.get(name="ward-7").workspace.name == "oncology"
    assert "oncology" in err.getvalue()
    call_command("create_api_token", "plain", stdout=StringIO(), stderr=StringIO())
    assert ApiClient.objects.get(name="plain").workspace.name == "default"
    token = out.getvalue().strip()
    assert Client(HTTP_AUTHORIZATION=f"Bearer {token}").get(
        "/api/v1/documents").status_code == 200


def test_the_upgrade_puts_existing_documents_clients_and_people_in_default(
        django_user_model: Any, text_pdf: Any) -> None:
    from reviewer.services.documents import document_upload

    document = document_upload(data=text_pdf("Old."), filename="old.pdf").document
    client, _ = api_client_create(name="old-service")
    person = django_user_model.objects.create_user("old-reviewer", password="x")
    migration: Any = importlib.import_module("reviewer.migrations.0016_workspaces")
    migration.into_default(apps, _Editor())
    default = Workspace.objects.get(name="default")
    assert Document.objects.get(pk=document.pk).workspace == default
    assert ApiClient.objects.get(pk=client.pk).workspace == default
    assert default.users.filter(pk=person.pk).exists()


class _Editor:
    class connection:  # stands in for a schema editor's connection
        vendor = "test"


# ---- people: the workspaces they are members of, and their roles -------------

@pytest.fixture
def two_answers(a: Client, b: Client, report_pdf: BuiltPdf, text_pdf: Any,
                django_capture_on_commit_callbacks: Any) -> dict[str, Any]:
    """One answer and its cited document in each workspace."""
    line = report_pdf.pages[1][3]
    made: dict[str, Any] = {}
    for name, api, data in (("a", a, report_pdf.data), ("b", b, report_pdf.data)):
        with django_capture_on_commit_callbacks(execute=True):
            document = _upload(api, data).json()["id"]
        answer = _cite_text(api, f'It says "{line}" [S1].', document)
        assert answer.status_code == 201, answer.content
        made[name] = {"document": document, "answer": answer.json()["answer"]}
    return made


def _cite_text(api: Client, text: str, document: int) -> Any:
    body = {"answer": text, "sources": [{"marker": "S1", "document": document}]}
    return api.post("/api/v1/answers", json.dumps(body), content_type="application/json")


def test_people_see_only_their_workspaces_answers_and_documents(
        client: Client, make_user: Any, two_answers: dict[str, Any]) -> None:
    ann = make_user("ann", "supervisor", workspaces=("clinic-a",))
    client.force_login(ann)
    mine, theirs = two_answers["a"], two_answers["b"]
    listed = client.get("/answers/").content.decode()
    assert f"/answers/{mine['answer']}/" in listed and f"/answers/{theirs['answer']}/" not in listed
    queue = client.get("/triage/?state=any").content.decode()
    assert f"/answers/{mine['answer']}/" in queue and f"/answers/{theirs['answer']}/" not in queue
    documents = client.get("/documents/").content.decode()
    assert f"/documents/{mine['document']}/" in documents
    assert f"/documents/{theirs['document']}/" not in documents
    assert client.get(f"/answers/{mine['answer']}/").status_code == 200
    for url in (f"/answers/{theirs['answer']}/", f"/documents/{theirs['document']}/",
                f"/documents/{theirs['document']}/file", f"/documents/{theirs['document']}/row"):
        assert client.get(url).status_code == 404, url
    decided = client.post(f"/answers/{theirs['answer']}/decide", {"decision": "escalate"})
    assert decided.status_code == 404
    assert not ReviewDecision.objects.filter(answer_id=theirs["answer"]).exists()
    # A superuser sees every workspace.
    client.force_login(make_user("root", is_superuser=True, workspaces=()))
    listed = client.get("/answers/").content.decode()
    assert f"/answers/{mine['answer']}/" in listed and f"/answers/{theirs['answer']}/" in listed


def test_someone_in_no_workspace_sees_nothing(client: Client, make_user: Any,
                                              two_answers: dict[str, Any]) -> None:
    client.force_login(make_user("newcomer", "supervisor", workspaces=()))
    assert "/answers/" + str(two_answers["a"]["answer"]) not in client.get(
        "/triage/?state=any").content.decode()
    assert client.get(f"/answers/{two_answers['a']['answer']}/").status_code == 404


def test_the_review_page_shows_the_pdf_only_to_who_may_view_documents(
        client: Client, make_user: Any, two_answers: dict[str, Any]) -> None:
    from django.contrib.auth.models import Group, Permission

    answer, document = two_answers["a"]["answer"], two_answers["a"]["document"]
    citation = CitationVerdict.objects.filter(answer_id=answer).order_by("pk").first()
    assert citation is not None and citation.pages
    readers = Group.objects.create(name="answer-readers")
    readers.permissions.add(Permission.objects.get(codename="view_answer"))
    file_url = f"/documents/{document}/file"
    page = f"/answers/{answer}/?citation={citation.pk}"

    client.force_login(make_user("rita", "reviewer", workspaces=("clinic-a",)))
    assert file_url in client.get(page).content.decode()
    assert client.get(file_url).status_code == 200

    client.force_login(make_user("reader", "answer-readers", workspaces=("clinic-a",)))
    shown = client.get(page)
    assert shown.status_code == 200 and file_url not in shown.content.decode()
    panel = client.get(page, headers={"HX-Request": "true"})
    assert file_url not in panel.content.decode()
    assert file_url not in panel.get("HX-Trigger", "")
    assert client.get(file_url).status_code == 403


def test_granting_a_role_can_add_the_workspace_and_says_when_there_is_none(
        django_user_model: Any) -> None:
    person = django_user_model.objects.create_user("nina", password="x")
    Workspace.objects.create(name="clinic-a")
    err = StringIO()
    call_command("roles", "grant", "nina", "reviewer", stdout=StringIO(), stderr=err)
    assert "in no workspace" in err.getvalue()
    call_command("roles", "grant", "nina", "reviewer", "--workspace", "clinic-a",
                 stdout=StringIO(), stderr=StringIO())
    assert list(person.workspaces.values_list("name", flat=True)) == ["clinic-a"]


def test_pages_pooling_every_workspace_need_every_workspace(
        client: Client, make_user: Any, two_answers: dict[str, Any]) -> None:
    """Trends, calibration and label files count every workspace's answers and
    show their passages: a supervisor of one clinic would see the other's."""
    pooled = ("/trends/", "/trends/export?chart=outcomes", "/calibrate/",
              "/calibrate/default/", "/calibrate/default/label", "/labels/",
              "/labels/export")
    user = make_user("ann", "supervisor", "calibrator", workspaces=("clinic-a",))
    client.force_login(user)
    for url in pooled:
        response = client.get(url)
        assert response.status_code == 403, url
        assert "pools the answers of every workspace" in response.content.decode(), url
    # Her own workspace's pages still open.
    assert client.get(f"/answers/{two_answers['a']['answer']}/").status_code == 200
    # A member of every workspace (the usual single-workspace site) sees them.
    Workspace.objects.get(name="clinic-b").users.add(user)
    Workspace.objects.get(name="default").users.add(user)
    client.force_login(type(user).objects.get(pk=user.pk))
    for url in pooled:
        assert client.get(url).status_code == 200, url
