"""Nothing cut without a word (issue 22, build 2): every free-text field with
a limit shows it (maxlength, which static/js/char-counter.mjs turns into a
counter) and the server refuses more with a 400 or a form error naming the
limit, storing nothing; a field without a natural limit (the searches) is
never cut. The browser half is tests/e2e/test_text_limits.py."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewer.models import Answer, ApiClient, DeletionRecord, Document, Surface, SurfaceChange

pytestmark = pytest.mark.django_db


def _maxlength(html: str, name: str) -> int | None:
    """The maxlength of the input or textarea named ``name`` in ``html``."""
    for tag in re.findall(r"<(?:input|textarea)\b[^>]*>", html):
        if re.search(rf'\bname="{re.escape(name)}"', tag):
            found = re.search(r'\bmaxlength="(\d+)"', tag)
            return int(found.group(1)) if found else None
    raise AssertionError(f"no field {name!r}")


@pytest.fixture
def supervisor_client(client: Any, make_user: Any) -> Any:
    """Uploading documents and changing surfaces: a supervisor's."""
    client.force_login(make_user("sup", "supervisor"))
    return client


# ---- documents: the upload form's title and key, the new-version title ------------------

@pytest.mark.parametrize(("field", "limit"), [("title", 300), ("document_key", 200)])
def test_an_upload_field_over_its_limit_is_refused_naming_it_and_nothing_is_stored(
        supervisor_client: Any, text_pdf: Any, field: str, limit: int) -> None:
    page = supervisor_client.get("/documents/").content.decode()
    assert _maxlength(page, field) == limit == Document._meta.get_field(field).max_length
    upload = SimpleUploadedFile("x.pdf", text_pdf("Body."), "application/pdf")
    response = supervisor_client.post("/documents/upload",
                                      {"file": upload, field: "k" * (limit + 1)},
                                      headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert f"{limit + 1} characters; the limit is {limit}" in response.content.decode()
    assert not Document.all_objects.exists()


def test_a_title_at_its_limit_is_stored_whole(supervisor_client: Any, text_pdf: Any) -> None:
    upload = SimpleUploadedFile("x.pdf", text_pdf("Body."), "application/pdf")
    supervisor_client.post("/documents/upload", {"file": upload, "title": "t" * 300})
    assert Document.objects.get().title == "t" * 300


def test_a_new_versions_title_over_its_limit_is_refused_naming_it(
        supervisor_client: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any) -> None:
    from reviewer.services.documents import document_upload

    with django_capture_on_commit_callbacks(execute=True):
        first = document_upload(data=text_pdf("One."), filename="one.pdf").document
    page = supervisor_client.get(f"/documents/{first.pk}/").content.decode()
    assert _maxlength(page, "title") == 300
    upload = SimpleUploadedFile("two.pdf", text_pdf("Two."), "application/pdf")
    response = supervisor_client.post("/documents/upload", {
        "file": upload, "supersedes": str(first.pk), "title": "v" * 301})
    assert response.status_code == 400
    assert "301 characters; the limit is 300" in response.content.decode()
    assert list(Document.all_objects.values_list("pk", flat=True)) == [first.pk]


# ---- the surfaces page: description and reason -------------------------------------

@pytest.mark.parametrize(("field", "limit"), [("description", 300), ("reason", 2000)])
def test_a_surface_field_over_its_limit_is_a_form_error_naming_it_and_nothing_changes(
        supervisor_client: Any, field: str, limit: int) -> None:
    surface = Surface.objects.create(name="hr", description="before")
    name = f"surface-{surface.pk}-{field}"
    form = supervisor_client.get(f"/surfaces/{surface.pk}/edit").content.decode()
    assert _maxlength(form, name) == limit
    data = {f"surface-{surface.pk}-{key}": value for key, value in {
        "description": "after", "threshold": "0.9", "policy": "flag", "min_coverage": "0",
        "reason": "because"}.items()}
    data[name] = "r" * (limit + 1)
    response = supervisor_client.post(f"/surfaces/{surface.pk}/edit", data)
    assert response.status_code == 400
    assert (f"Ensure this value has at most {limit} characters (it has {limit + 1})"
            in response.content.decode())
    surface.refresh_from_db()
    assert surface.description == "before" and not SurfaceChange.objects.exists()


def test_surface_update_refuses_a_reason_over_its_limit_naming_it(make_user: Any) -> None:
    from reviewer.services.surfaces import surface_update

    surface = Surface.objects.create(name="hr")
    with pytest.raises(ValidationError, match="2001 characters; the limit is 2000"):
        surface_update(surface=surface, changed_by=make_user("sup", "supervisor"),
                       reason="r" * 2001, threshold=0.5)
    surface.refresh_from_db()
    assert surface.threshold != 0.5 and not SurfaceChange.objects.exists()


# ---- the admin's forms -----------------------------------------------------------

@pytest.mark.parametrize(("model", "field", "limit"), [
    ("surface", "name", 100), ("surface", "description", 300),
    ("surface", "change_reason", 2000), ("apiclient", "name", 100),
    ("workspace", "name", 100), ("document", "title", 300),
    ("document", "document_key", 200),
])
def test_an_admin_field_shows_its_limit_and_refuses_more_naming_it(
        client: Any, text_pdf: Any, model: str, field: str, limit: int) -> None:
    from django.contrib.auth import get_user_model
    from django.forms.models import model_to_dict

    from reviewer.models import Workspace
    from reviewer.services.documents import document_upload

    client.force_login(get_user_model().objects.create_superuser("root", "r@x.org", "x"))
    obj = {"surface": lambda: Surface.objects.create(name="hr"),
           "apiclient": lambda: ApiClient.objects.create(name="svc", token_hash="h" * 64,
                                                         workspace=Workspace.objects.default()),
           "workspace": lambda: Workspace.objects.create(name="legal"),
           "document": lambda: document_upload(data=text_pdf("Doc."), filename="d.pdf",
                                               ).document}[model]()
    url = f"/admin/reviewer/{model}/{obj.pk}/change/"
    page = client.get(url).content.decode()
    assert _maxlength(page, field) == limit
    assert "js/char-counter" in page and 'type="module"' in page
    data = {key: value for key, value in model_to_dict(obj).items()
            if value is not None and not hasattr(value, "read")}
    data = {key: ([item.pk if hasattr(item, "pk") else item for item in value]
                  if isinstance(value, list) else value) for key, value in data.items()}
    data[field] = "n" * (limit + 1)
    before = model_to_dict(obj)
    response = client.post(url, data)
    assert response.status_code == 200  # the form again, with its error
    assert (f"Ensure this value has at most {limit} characters (it has {limit + 1})"
            in response.content.decode())
    obj.refresh_from_db()
    assert model_to_dict(obj) == before


# ---- services with no form: deletions ---------------------------------------------

def test_a_deletion_reason_over_its_limit_is_refused_naming_it(text_pdf: Any) -> None:
    from reviewer.services.deletion import document_delete
    from reviewer.services.documents import document_upload

    document = document_upload(data=text_pdf("Doc."), filename="d.pdf").document
    with pytest.raises(ValueError, match="2001 characters; the limit is 2000"):
        document_delete(document=document, deleted_by=None, reason="r" * 2001)
    assert Document.objects.filter(pk=document.pk).exists()
    assert not DeletionRecord.objects.exists()


# ---- the API: a 400 naming the field and its limit, and the schema saying it ----------

def _schema(client: Any) -> dict[str, Any]:
    return json.loads(client.get("/api/v1/openapi.json").content)


@pytest.mark.parametrize("how", ["multipart", "pdf-body"])
def test_an_api_title_over_its_limit_is_a_400_naming_it(api: Any, text_pdf: Any,
                                                        how: str) -> None:
    if how == "multipart":
        upload = SimpleUploadedFile("x.pdf", text_pdf("Body."), "application/pdf")
        response = api.post("/api/v1/documents", {"file": upload, "title": "t" * 301})
    else:
        response = api.post(f"/api/v1/documents?title={'t' * 301}", text_pdf("Body."),
                            content_type="application/pdf")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error["code"] == "title-too-long"
    assert "title is 301 characters; the limit is 300" in error["message"]
    assert not Document.all_objects.exists()
    # The schema says so first (and Schemathesis keeps to it).
    post = _schema(api)["paths"]["/documents"]["post"]
    multipart = post["requestBody"]["content"]["multipart/form-data"]["schema"]
    query = {p["name"]: p["schema"] for p in post["parameters"]}
    assert multipart["properties"]["title"]["maxLength"] == query["title"]["maxLength"] == 300


def test_an_api_document_key_over_its_limit_is_a_400_naming_it(api: Any, text_pdf: Any) -> None:
    upload = SimpleUploadedFile("x.pdf", text_pdf("Body."), "application/pdf")
    response = api.post("/api/v1/documents", {"file": upload, "document_key": "k" * 201})
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid-document-key"
    assert "document_key is 201 characters; the limit is 200" in error["message"]
    assert not Document.all_objects.exists()


@pytest.mark.parametrize(("field", "code"), [("id", "id-too-long"), ("model", "model-too-long")])
def test_an_api_answer_name_over_its_limit_is_a_400_naming_it(api: Any, field: str,
                                                              code: str) -> None:
    limit = _schema(api)["components"]["schemas"]["AnswerInput"]["properties"][field]
    assert limit["maxLength"] == 200
    body = {"answer": "x", "sources": [{"marker": "S1", "text": "x"}], field: "i" * 201}
    response = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == code
    assert f"The {field} is 201 characters; the limit is 200" in error["message"]
    assert not Answer.all_objects.exists()


def test_an_api_marker_over_its_limit_is_a_400_naming_it(api: Any) -> None:
    body = {"answer": "x [S1].", "sources": [{"marker": "M" * 21, "text": "x"}]}
    response = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "marker-too-long" and "the limit is 20" in error["message"]
    assert not Answer.all_objects.exists()


# ---- fields without a natural limit: never cut -------------------------------------

def test_the_triage_search_is_never_cut(make_user: Any) -> None:
    from reviewer.selectors.triage import TriageFilters

    words = "leave " * 80  # 480 characters
    filters = TriageFilters.from_query({"q": words}, user=make_user("sup", "supervisor"))
    assert filters.q == words.strip()
