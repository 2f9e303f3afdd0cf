"""Django's account views, with password reset only where email can reach
the user: without an email setup a reset form would accept an address and
send nothing, so the views answer 404 and the login page offers no link."""

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib.auth import views as auth_views
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path


def email_configured() -> bool:
    return bool(settings.CITEGUARD["EMAIL_CONFIGURED"])


def needs_email(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not email_configured():
            raise Http404("Password reset needs email, and none is configured.")
        return view(request, *args, **kwargs)

    return guarded


class LoginView(auth_views.LoginView):
    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return super().get_context_data(**kwargs) | {"password_reset": email_configured()}


# The names and paths of django.contrib.auth.urls.
urlpatterns = [
    path("login/", LoginView.as_view(), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("password_change/done/", auth_views.PasswordChangeDoneView.as_view(),
         name="password_change_done"),
    path("password_reset/", needs_email(auth_views.PasswordResetView.as_view()),
         name="password_reset"),
    path("password_reset/done/", needs_email(auth_views.PasswordResetDoneView.as_view()),
         name="password_reset_done"),
    path("reset/<uidb64>/<token>/", needs_email(auth_views.PasswordResetConfirmView.as_view()),
         name="password_reset_confirm"),
    path("reset/done/", needs_email(auth_views.PasswordResetCompleteView.as_view()),
         name="password_reset_complete"),
]
