from django.urls import path
from django.views.generic.base import RedirectView

from reviewer.views import documents

app_name = "reviewer"
urlpatterns = [
    path("", RedirectView.as_view(pattern_name="reviewer:documents"), name="home"),
    path("documents/", documents.documents, name="documents"),
    path("documents/upload", documents.document_upload_view, name="document-upload"),
    path("documents/<int:document_id>/row", documents.document_row, name="document-row"),
]
