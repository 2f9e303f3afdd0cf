from django.urls import path, re_path

from reviewer.api import answers, documents, meta
from reviewer.api.base import not_found

app_name = "api"
urlpatterns = [
    path("answers", answers.answers, name="answers"),
    # Either id: citeguard's number or the client's own, which may hold any character.
    path("answers/<path:ref>", answers.answer_detail, name="answer"),
    path("documents", documents.documents, name="documents"),
    path("documents/<int:document_id>", documents.document_detail, name="document"),
    path("documents/<int:document_id>/chunks", documents.document_chunks, name="document-chunks"),
    path("ping", meta.ping, name="ping"),
    path("openapi.json", meta.openapi, name="openapi"),
    re_path(r"^(?P<rest>.*)$", not_found, name="not-found"),
]
