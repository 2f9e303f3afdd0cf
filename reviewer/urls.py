from django.contrib import admin
from django.urls import include, path

from reviewer.api import meta

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("reviewer.api.urls")),
    path("api/docs/", meta.docs, name="api-docs"),
    path("metrics", meta.metrics_view, name="metrics"),
    path("accounts/", include("reviewer.views.accounts")),
    path("", include("reviewer.ui_urls")),
]
