"""Every admin "add" form either works or is refused: never a 500.

Models only ingestion or the API create (documents, pages, chunks, answers,
verdicts) and append-only records refuse "add" with a 403; the rest (clients,
surfaces, users, groups) answer an empty submission with the form again.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin

pytestmark = pytest.mark.django_db

CREATED_ELSEWHERE = {
    "reviewer.document", "reviewer.page", "reviewer.chunk", "reviewer.answer",
    "reviewer.citationverdict", "reviewer.reviewdecision", "reviewer.surfacechange",
    "reviewer.matchlabel", "reviewer.calibrationitem", "reviewer.deletionrecord",
    "django_tasks_database.dbtaskresult",  # the task worker's own records
}


def _registered() -> list[str]:
    return sorted(model._meta.label_lower for model in admin.site._registry)


@pytest.mark.parametrize("label", _registered())
def test_an_add_form_works_or_is_refused(client: Any, label: str) -> None:
    from django.contrib.auth import get_user_model

    client.raise_request_exception = False
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.com", "x"))
    app, model = label.split(".")
    url = f"/admin/{app}/{model}/add/"
    shown, submitted = client.get(url), client.post(url, {})
    if label in CREATED_ELSEWHERE:
        assert (shown.status_code, submitted.status_code) == (403, 403)
    else:
        assert shown.status_code == 200
        # An empty form is answered with itself and its errors, not saved.
        assert submitted.status_code == 200
        assert b"errornote" in submitted.content or b"errorlist" in submitted.content


def test_every_reviewer_model_in_the_admin_is_classified() -> None:
    # A newly registered model must be placed in one group or the other here.
    ours = {label for label in _registered() if label.startswith("reviewer.")}
    assert ours - CREATED_ELSEWHERE <= {"reviewer.apiclient", "reviewer.surface",
                                        "reviewer.workspace"}
