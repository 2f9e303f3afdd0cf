"""A surface's threshold takes four decimals wherever it is set (the surfaces
page, the admin, the calibration page's apply) and keeps them wherever it is
read; each surface row links to its queue, trends and calibration, as far as
the user may follow them."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from reviewer.admin import SurfaceForm as AdminSurfaceForm
from reviewer.models import Surface
from reviewer.services.surfaces import surface_update
from reviewer.views.surfaces import SurfaceForm
from verification import VerificationConfig, verify_answer

pytestmark = pytest.mark.django_db

FOUR = 0.9859


@pytest.fixture
def chat() -> Surface:
    return Surface.objects.create(name="chat", threshold=0.92)


def _settings(prefix: str = "", **changes: str) -> dict[str, str]:
    data = {"threshold": str(FOUR), "policy": "flag", "min_coverage": "1",
            "reason": "Calibrated", **changes}
    return {f"{prefix}{name}": value for name, value in data.items()}


def test_the_surfaces_form_takes_four_decimals_and_says_so_to_the_browser(chat: Surface) -> None:
    form = SurfaceForm(_settings(f"surface-{chat.pk}-"), prefix=f"surface-{chat.pk}")
    assert form.is_valid(), form.errors
    assert form.cleaned_data["threshold"] == FOUR
    assert form.fields["threshold"].widget.attrs["step"] == "0.0001"
    assert 'step="0.0001"' in str(form["threshold"])


def test_the_admin_form_takes_four_decimals(chat: Surface) -> None:
    form = AdminSurfaceForm({"name": "chat", "threshold": str(FOUR), "policy": "flag",
                             "min_coverage": "1", "judge_sample_rate": "0",
                             "judge_daily_budget": "0"}, instance=chat)
    field = form["threshold"]
    assert 'step="any"' in str(field)
    form.is_valid()
    assert "threshold" not in form.errors
    assert form.cleaned_data["threshold"] == FOUR


def test_a_four_decimal_threshold_is_stored_and_shown_exactly(chat: Surface,
                                                              make_user: Any) -> None:
    supervisor = make_user("sue", "supervisor")
    client = Client()
    client.force_login(supervisor)
    response = client.post(f"/surfaces/{chat.pk}/edit", _settings(f"surface-{chat.pk}-"))
    assert response.status_code == 302
    chat.refresh_from_db()
    assert chat.threshold == FOUR
    page = client.get("/surfaces/").content.decode()
    assert "<td>0.9859</td>" in page and "0.92</del> → <ins>0.9859</ins>" in page
    assert surface_update(surface=chat, changed_by=supervisor, reason="Again",
                          threshold=0.9861).changes == {"threshold": [FOUR, 0.9861]}


def test_the_apply_threshold_flow_takes_four_decimals(chat: Surface, make_user: Any,
                                                      django_capture_on_commit_callbacks: Any
                                                      ) -> None:
    client = Client()
    client.force_login(make_user("sue", "supervisor"))
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/calibrate/chat/apply", {
            "threshold": "0.9859", "reason": "The recommendation", "target": "0.95"})
    assert response.status_code == 302, response.content.decode()[:500]
    chat.refresh_from_db()
    assert chat.threshold == FOUR
    page = client.get("/calibrate/chat/").content.decode()
    assert '<strong class="current-threshold">0.9859</strong>' in page


def test_a_fuzzy_match_message_names_a_four_decimal_threshold_as_set() -> None:
    source = "Employer match vests after two years of continuous service with the company."
    quote = "Employer match vests after two years of continuous service with the compan."
    report = verify_answer(f'It says "{quote}" [S1].', {"S1": source},
                           config=VerificationConfig(threshold=FOUR))
    (citation,) = report.citations
    assert "(threshold 0.9859)" in citation.message, citation.message
    plain = verify_answer(f'It says "{quote}" [S1].', {"S1": source},
                          config=VerificationConfig(threshold=0.9))
    assert "(threshold 0.90)" in plain.citations[0].message


def test_each_row_links_to_what_the_user_may_open(chat: Surface, make_user: Any) -> None:
    client = Client()
    client.force_login(make_user("sue", "supervisor"))
    page = client.get("/surfaces/").content.decode()
    assert 'href="/triage/?surface=chat"' in page
    assert 'href="/trends/?surface=chat"' in page
    assert 'href="/calibrate/chat/"' in page
    client.force_login(make_user("cal", "calibrator"))
    page = client.get("/surfaces/").content.decode()
    assert 'href="/calibrate/chat/"' in page
    assert "/triage/?surface=chat" not in page and "/trends/?surface=chat" not in page
