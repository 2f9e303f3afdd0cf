"""Stored objects are named by their bytes: a PDF by its SHA-256, a geometry
blob by its own. The same bytes are one object however often and wherever
they are uploaded, an object is never written twice, and purging one deleted
document keeps an object another document still uses."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from reviewer.models import Document, Workspace
from reviewer.services.deletion import document_delete, documents_purge
from reviewer.services.documents import document_upload
from reviewer.storage import pdf_key, store_once

pytestmark = pytest.mark.django_db


def _ready(data: bytes, capture: Any, workspace: Workspace | None = None) -> Document:
    with capture(execute=True):
        document = document_upload(data=data, filename="plan.pdf", workspace=workspace).document
    document.refresh_from_db()
    assert document.status == Document.Status.READY, document.error
    return document


def test_a_pdf_and_its_geometry_are_named_by_their_bytes(
        text_pdf: Any, django_capture_on_commit_callbacks: Any) -> None:
    data = text_pdf("Employer match vests after two years.")
    document = _ready(data, django_capture_on_commit_callbacks)
    digest = hashlib.sha256(data).hexdigest()
    assert document.file.name == f"documents/{digest[:2]}/{digest}.pdf"
    with default_storage.open(document.geometry.name, "rb") as handle:
        geometry = hashlib.sha256(handle.read()).hexdigest()
    assert document.geometry.name == f"geometry/{geometry[:2]}/{geometry}.geo"


def test_the_same_bytes_in_two_workspaces_are_one_object_kept_while_one_uses_it(
        text_pdf: Any, django_capture_on_commit_callbacks: Any) -> None:
    data = text_pdf("The notice period is thirty days.")
    first = _ready(data, django_capture_on_commit_callbacks)
    other = Workspace.objects.create(name="clinic")
    second = _ready(data, django_capture_on_commit_callbacks, workspace=other)
    assert second.pk != first.pk
    assert (second.file.name, second.geometry.name) == (first.file.name, first.geometry.name)

    document_delete(document=first, deleted_by=None, reason="a test")
    result = documents_purge()
    assert result.documents == 1 and result.files == 0  # both objects kept: the clinic uses them
    assert default_storage.exists(second.file.name) and default_storage.exists(
        second.geometry.name)
    purged = Document.all_objects.get(pk=first.pk)
    assert not purged.file and not purged.geometry

    document_delete(document=second, deleted_by=None, reason="a test")
    assert documents_purge().files == 2  # the last user gone: now they go
    assert not default_storage.exists(second.file.name)


def test_an_object_already_stored_is_never_written_again(monkeypatch: pytest.MonkeyPatch) -> None:
    key = pdf_key("ab" * 32)
    assert store_once(default_storage, key, ContentFile(b"first")) == key
    written: list[str] = []
    monkeypatch.setattr(default_storage, "save", lambda name, content: written.append(name))
    assert store_once(default_storage, key, ContentFile(b"first")) == key
    assert written == []
