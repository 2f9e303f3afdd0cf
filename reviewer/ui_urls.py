from django.urls import path

from reviewer.views import answers, documents, home, surfaces

app_name = "reviewer"
urlpatterns = [
    path("", home.home, name="home"),
    path("answers/", answers.answers, name="answers"),
    path("answers/<int:answer_id>/", answers.answer_review, name="answer"),
    path("answers/<int:answer_id>/decide", answers.answer_decide, name="answer-decide"),
    path("answers/<int:answer_id>/undo", answers.answer_undo, name="answer-undo"),
    path("documents/", documents.documents, name="documents"),
    path("documents/upload", documents.document_upload_view, name="document-upload"),
    path("documents/<int:document_id>/", documents.document_detail, name="document"),
    path("documents/<int:document_id>/row", documents.document_row, name="document-row"),
    path("documents/<int:document_id>/file", answers.document_file, name="document-file"),
    path("surfaces/", surfaces.surfaces, name="surfaces"),
    path("surfaces/<int:surface_id>/edit", surfaces.surface_edit, name="surface-edit"),
]
