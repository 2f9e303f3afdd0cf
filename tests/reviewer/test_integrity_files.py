"""A ready document's file can never be swapped under its highlights: the
model refuses a change of its file, hash, geometry or text (save, clean and
queryset update), the admin shows the file read-only, and the stored files
are read-only on the file system."""

from __future__ import annotations

import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.files.base import ContentFile

from reviewer.models import Document
from reviewer.services.documents import document_upload

pytestmark = pytest.mark.django_db


@pytest.fixture
def ready(text_pdf: Callable[..., bytes], django_capture_on_commit_callbacks: Any) -> Document:
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=text_pdf("Water boils at 100 degrees at sea level."),
                                   filename="water.pdf").document
    document.refresh_from_db()
    assert document.status == Document.Status.READY and document.geometry
    return document


def test_a_ready_documents_file_cannot_be_swapped(ready: Document) -> None:
    name = ready.file.name
    ready.file.save("other.pdf", ContentFile(b"%PDF-1.4 another file"), save=False)
    with pytest.raises(Document.Frozen, match="file"):
        ready.save()
    with pytest.raises(ValidationError, match="cannot change"):
        ready.full_clean()
    assert Document.objects.get(pk=ready.pk).file.name == name


@pytest.mark.parametrize(("field", "value"), [
    ("sha256", "0" * 64), ("geometry", "geometry/other.geo"), ("text", "Other text."),
    ("size_bytes", 1),
])
def test_its_hash_geometry_and_text_cannot_change_either(ready: Document, field: str,
                                                          value: Any) -> None:
    fresh = Document.objects.get(pk=ready.pk)
    setattr(fresh, field, value)
    with pytest.raises(Document.Frozen, match=field):
        fresh.save()
    with pytest.raises(Document.Frozen, match=field):
        fresh.save(update_fields=[field])
    with pytest.raises(Document.Frozen):
        Document.objects.filter(pk=ready.pk).update(**{field: value})


def test_a_deferred_field_assigned_later_is_still_compared(ready: Document) -> None:
    deferred = Document.objects.defer("text", "status").get(pk=ready.pk)
    deferred.text = "Swapped."
    with pytest.raises(Document.Frozen, match="text"):
        deferred.save()


def test_other_fields_still_change_and_a_document_not_ready_is_not_frozen(
    ready: Document,
) -> None:
    ready.title = "Boiling water"
    ready.save()
    assert Document.objects.get(pk=ready.pk).title == "Boiling water"
    queued = Document.objects.create(title="q", sha256="1" * 64, status=Document.Status.QUEUED)
    queued.sha256 = "2" * 64
    queued.save()  # nothing is cited against it yet
    assert Document.objects.filter(sha256="2" * 64).exists()


def test_the_stored_files_are_read_only_on_disk(ready: Document) -> None:
    for field in (ready.file, ready.geometry):
        mode = Path(field.path).stat().st_mode
        assert not mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), field.name
    # ... and still readable, for the viewer and the highlights.
    assert Path(ready.file.path).read_bytes().startswith(b"%PDF")


def test_the_admin_shows_a_ready_documents_file_read_only(client: Any, ready: Document
                                                         ) -> None:
    from django.contrib.auth import get_user_model

    client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "x"))
    url = f"/admin/reviewer/document/{ready.pk}/change/"
    page = client.get(url).content.decode()
    assert 'type="file"' not in page
    name = ready.file.name
    response = client.post(url, {
        "title": "Renamed", "file": ContentFile(b"%PDF-1.4 swapped", name="swap.pdf"),
        "document_key": "", "pages-TOTAL_FORMS": "0", "pages-INITIAL_FORMS": "0"})
    assert response.status_code == 302
    ready.refresh_from_db()
    assert (ready.title, ready.file.name) == ("Renamed", name)
