from django.urls import path

from reviewer.views import (
    answers,
    calibrate,
    calibration,
    documents,
    home,
    label_io,
    surfaces,
    trends,
    triage,
)

app_name = "reviewer"
urlpatterns = [
    path("", home.home, name="home"),
    path("answers/", answers.answers, name="answers"),
    path("answers/<int:answer_id>/", answers.answer_review, name="answer"),
    path("answers/<int:answer_id>/decide", answers.answer_decide, name="answer-decide"),
    path("answers/<int:answer_id>/undo", answers.answer_undo, name="answer-undo"),
    path("answers/<int:answer_id>/presence", answers.answer_presence, name="answer-presence"),
    path("triage/", triage.triage, name="triage"),
    path("triage/assign", triage.triage_assign, name="triage-assign"),
    path("triage/export", triage.triage_export, name="triage-export"),
    path("documents/", documents.documents, name="documents"),
    path("documents/upload", documents.document_upload_view, name="document-upload"),
    path("documents/<int:document_id>/", documents.document_detail, name="document"),
    path("documents/<int:document_id>/row", documents.document_row, name="document-row"),
    path("documents/<int:document_id>/file", answers.document_file, name="document-file"),
    path("trends/", trends.trends, name="trends"),
    path("trends/export", trends.trends_export, name="trends-export"),
    path("surfaces/", surfaces.surfaces, name="surfaces"),
    path("surfaces/<int:surface_id>/edit", surfaces.surface_edit, name="surface-edit"),
    path("calibrate/", calibrate.calibrate, name="calibrate"),
    path("calibrate/<slug:surface>/label", calibrate.calibrate_label, name="calibrate-label"),
    path("calibrate/<slug:surface>/label/record", calibrate.calibrate_label_post,
         name="calibrate-label-post"),
    path("calibrate/<slug:surface>/label/skip", calibrate.calibrate_skip, name="calibrate-skip"),
    path("calibrate/<slug:surface>/label/undo", calibrate.calibrate_undo, name="calibrate-undo"),
    path("labels/", label_io.labels, name="labels"),
    path("labels/export", label_io.labels_export, name="labels-export"),
    path("labels/import", label_io.labels_import_view, name="labels-import"),
    # Exact paths under calibrate/<surface>/, so calibrate/<surface>/label (the
    # labelling queue) stays free for its own view.
    path("calibrate/<slug:surface>/", calibration.calibration, name="calibration"),
    path("calibrate/<slug:surface>/apply", calibration.calibration_apply_view,
         name="calibration-apply"),
    path("calibrate/<slug:surface>/runs/<int:run_id>", calibration.calibration_run,
         name="calibration-run"),
    path("calibrate/<slug:surface>/settle/<int:item_id>", calibration.calibration_settle,
         name="calibration-settle"),
]
