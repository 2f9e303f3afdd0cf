from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("reviewer.api.urls")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("reviewer.ui_urls")),
]
