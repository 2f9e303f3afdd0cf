from django.urls import path, re_path, register_converter

from reviewer.api import answers, documents, meta
from reviewer.api.base import not_found


class AnyText:
    """``path`` without its one gap: ``.`` stops at a line break, so an id or
    path holding one fell through to Django's HTML 404."""

    regex = r"[\s\S]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


register_converter(AnyText, "anytext")

app_name = "api"
urlpatterns = [
    path("answers", answers.answers, name="answers"),
    # Either id: citeguard's number or the client's own, which may hold any character.
    path("answers/<anytext:ref>", answers.answer_detail, name="answer"),
    path("documents", documents.documents, name="documents"),
    path("documents/<int:document_id>", documents.document_detail, name="document"),
    path("documents/<int:document_id>/chunks", documents.document_chunks, name="document-chunks"),
    path("ping", meta.ping, name="ping"),
    path("openapi.json", meta.openapi, name="openapi"),
    re_path(r"^(?P<rest>[\s\S]*)$", not_found, name="not-found"),
]
