"""Documents and answers are soft-deleted with a DeletionRecord: hidden from
every list, queue and API read, never removed with their review decisions
or verdict history; ``manage.py purge_deleted`` removes a deleted
document's stored files through the storage API."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import timedelta
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db.models import ProtectedError
from django.utils import timezone

from reviewer.models import (
    Answer,
    AnswerStats,
    DeletionRecord,
    Document,
    QueueGroup,
    ReviewDecision,
    VerdictRecord,
)
from reviewer.services.answers import answer_submit
from reviewer.services.deletion import answer_delete, document_delete
from reviewer.services.documents import DocumentRejected, document_upload
from reviewer.services.queue_counts import queue_counts_rebuild
from reviewer.services.reverify import answer_reverify
from reviewer.services.reviews import review_decide
from reviewer.services.stats import stats_rebuild

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(client: Any) -> Any:
    user = get_user_model().objects.create_superuser("root", "r@example.com", "x")
    client.force_login(user)
    return user


def _answer(external_id: str, question: str) -> Answer:
    return answer_submit(client=None, data={
        "id": external_id, "question": question, "answer": 'It says "the sky is green" [S1].',
        "sources": [{"marker": "S1", "text": "The sky is blue."}]}).answer


@pytest.fixture
def ready(text_pdf: Callable[..., bytes], django_capture_on_commit_callbacks: Any) -> Document:
    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=text_pdf("Water boils at 100 degrees at sea level."),
                                   filename="water.pdf", title="Boiling").document
    document.refresh_from_db()
    assert document.status == Document.Status.READY
    return document


def _stats() -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "id"}
            for row in AnswerStats.objects.order_by("hour", "surface_id", "model").values()]


def _kept_counts() -> dict[tuple[Any, ...], int]:
    return {(g.surface_key, g.model, g.verdict, g.review_state, g.assignee_key, g.outcomes):
            g.answers for g in QueueGroup.objects.all() if g.answers}


def test_the_admin_deletes_an_answer_softly_and_keeps_its_trail(client: Any, root: Any
                                                               ) -> None:
    gone, kept = _answer("gone-1", "QUESTION-GONE"), _answer("kept-1", "QUESTION-KEPT")
    review_decide(answer=gone, reviewer=root, decision="reject", note="wrong colour")
    answer_reverify(answer=gone, threshold=0.9)  # a verdict history to keep
    history = VerdictRecord.objects.filter(answer=gone).count()
    assert history

    # The confirmation page lists the answer alone: nothing protected, nothing else goes.
    confirm = client.get(f"/admin/reviewer/answer/{gone.pk}/delete/")
    assert confirm.status_code == 200 and b"protected" not in confirm.content.lower()
    response = client.post(f"/admin/reviewer/answer/{gone.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302

    assert not Answer.objects.filter(pk=gone.pk).exists()
    stored = Answer.all_objects.get(pk=gone.pk)
    assert stored.deleted_at is not None and stored.deleted_by == root
    assert ReviewDecision.objects.filter(answer_id=gone.pk).count() == 1
    assert VerdictRecord.objects.filter(answer_id=gone.pk).count() == history
    assert stored.sources.count() == 1 and stored.citations.count() == 1
    record = DeletionRecord.objects.get()
    assert (record.kind, record.object_id, record.action, record.deleted_by) == (
        "answer", gone.pk, "delete", root)
    assert "gone-1" in record.description and "root" in record.reason

    # Hidden from the answers list, the triage queue, its counts and the API.
    for url in ("/answers/", "/triage/"):
        page = client.get(url).content.decode()
        assert f"/answers/{kept.pk}/" in page and f"/answers/{gone.pk}/" not in page, url
    assert _kept_counts() == (queue_counts_rebuild(), _kept_counts())[1]
    assert sum(_kept_counts().values()) == 1
    assert client.get(f"/answers/{gone.pk}/").status_code == 404
    # Trends still count what arrived and was decided: a rebuild agrees.
    kept = _stats()
    stats_rebuild()
    assert _stats() == kept


def test_a_deleted_answers_id_is_not_served_nor_reused(api: Any) -> None:
    body = {"id": "once", "answer": "The sky is blue [S1].",
            "sources": [{"marker": "S1", "text": "The sky is blue."}]}
    first = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    answer = Answer.objects.get(pk=first.json()["answer"])
    answer_delete(answer=answer, deleted_by=None, reason="sent by mistake")
    assert api.get(f"/api/v1/answers/{answer.pk}").status_code == 404
    assert api.get("/api/v1/answers").json()["results"] == []
    again = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert again.status_code == 409 and again.json()["error"]["code"] == "id-deleted"
    assert Answer.all_objects.count() == 1


def test_a_hard_delete_never_takes_the_trail_with_it(root: Any) -> None:
    answer = _answer("hard", "Q")
    answer_reverify(answer=answer, threshold=0.9)
    with pytest.raises(ProtectedError):  # verdict history protects the answer
        answer.delete()


def test_a_deleted_document_is_hidden_and_cannot_be_cited_or_uploaded_again(
    client: Any, root: Any, ready: Document, api: Any) -> None:
    chunk = ready.chunks.get(index=0)
    data = ready.file.read()
    assert f"/documents/{ready.pk}/" in client.get("/documents/").content.decode()
    response = client.post(f"/admin/reviewer/document/{ready.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Document.objects.filter(pk=ready.pk).exists()
    assert Document.all_objects.get(pk=ready.pk).deleted_by == root
    assert f"/documents/{ready.pk}/" not in client.get("/documents/").content.decode()
    assert api.get(f"/api/v1/documents/{ready.pk}").status_code == 404
    cite = api.post("/api/v1/answers", json.dumps({
        "answer": "Water boils [S1].", "sources": [{"marker": "S1", "chunk": chunk.pk}]}),
        content_type="application/json")
    assert cite.status_code == 400 and "deleted" in cite.json()["error"]["message"]
    with pytest.raises(DocumentRejected, match="deleted on"):
        document_upload(data=data, filename="water.pdf")


def test_purge_removes_the_stored_files_of_deleted_documents_only(ready: Document,
                                                                  root: Any) -> None:
    names = [ready.file.name, ready.geometry.name]
    document_delete(document=ready, deleted_by=root, reason="withdrawn by the publisher")
    Document.all_objects.filter(pk=ready.pk).update(
        deleted_at=timezone.now() - timedelta(days=3))
    out = StringIO()
    call_command("purge_deleted", "--older-than", "5", stdout=out)
    assert out.getvalue().startswith("0 deleted document(s)")
    assert all(default_storage.exists(name) for name in names)

    call_command("purge_deleted", "--older-than", "2", stdout=out)
    assert "1 deleted document(s): removed 2 stored file(s)" in out.getvalue()
    assert not any(default_storage.exists(name) for name in names)
    purged = Document.all_objects.get(pk=ready.pk)
    assert not purged.file and not purged.geometry and purged.text  # the row and text stay
    actions = list(DeletionRecord.objects.filter(object_id=ready.pk)
                   .order_by("created").values_list("action", flat=True))
    assert actions == ["delete", "purge"]


def test_a_new_version_after_a_deleted_one_takes_the_next_number(
    text_pdf: Callable[..., bytes], django_capture_on_commit_callbacks: Any,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        first = document_upload(data=text_pdf("Version one."), filename="a.pdf",
                                document_key="handbook").document
    document_delete(document=first, deleted_by=None, reason="wrong file")
    with django_capture_on_commit_callbacks(execute=True):
        second = document_upload(data=text_pdf("Version two."), filename="b.pdf",
                                 document_key="handbook")
    assert second.created and second.document.version == 2
