from django.urls import path

from reviewer.api import documents

app_name = "api"
urlpatterns = [
    path("documents", documents.documents, name="documents"),
    path("documents/<int:document_id>", documents.document_detail, name="document"),
    path("documents/<int:document_id>/chunks", documents.document_chunks, name="document-chunks"),
]
