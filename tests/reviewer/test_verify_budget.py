"""The work budget of verification (CITEGUARD["MAX_VERIFY_WORK"]): over it,
the API answers 413 and ``manage.py verify`` names the line and goes on."""

import io
import json
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import override_settings

from reviewer.models import Answer

SOURCE = "Employer match vests after two years of service. Loans are not offered to staff."
#: One letter off: only a fuzzy alignment, which is charged, can verify it.
FUZZY = 'The plan says "Employer match vest after two years" [S1].'
VERBATIM = 'The plan says "Employer match vests after two years" [S1].'


def body(answer: str, **extra: Any) -> dict[str, Any]:
    return {"answer": answer, "sources": [{"marker": "S1", "text": SOURCE}], **extra}


def budget(limit: int) -> Any:
    return override_settings(CITEGUARD={**settings.CITEGUARD, "MAX_VERIFY_WORK": limit})


@pytest.mark.django_db
def test_api_refuses_an_answer_over_the_budget_with_413(api: Any) -> None:
    with budget(1_000):
        response = api.post("/api/v1/answers", json.dumps(body(FUZZY, id="big")),
                            content_type="application/json")
    assert response.status_code == 413
    error = response.json()["error"]
    assert error["code"] == "verification-budget-exceeded"
    assert "limit of 1,000 units" in error["message"]
    assert not Answer.objects.exists()
    # Under the default budget the same answer verifies.
    response = api.post("/api/v1/answers", json.dumps(body(FUZZY, id="big")),
                        content_type="application/json")
    assert response.status_code == 201
    assert response.json()["sentences"][0]["citations"][0]["outcome"] == "verified-fuzzy"


@pytest.mark.django_db
def test_a_verbatim_answer_costs_nothing_and_zero_means_no_limit(api: Any) -> None:
    with budget(1):
        response = api.post("/api/v1/answers", json.dumps(body(VERBATIM)),
                            content_type="application/json")
    assert response.status_code == 201
    with budget(0):
        response = api.post("/api/v1/answers", json.dumps(body(FUZZY)),
                            content_type="application/json")
    assert response.status_code == 201


def test_verify_command_reports_the_line_and_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    path.write_text("\n".join(json.dumps(body(text, id=name)) for name, text in
                              (("first", VERBATIM), ("costly", FUZZY), ("last", VERBATIM))))
    out, err = io.StringIO(), io.StringIO()
    with budget(1_000), pytest.raises(SystemExit) as exited:
        call_command("verify", str(path), stdout=out, stderr=err)
    assert exited.value.code == 2  # a line could not be verified
    reports = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["id"], r["verdict"]) for r in reports] == [("first", "pass"), ("last", "pass")]
    assert "line 2: Verifying this answer needs more than the limit of 1,000 units" in (
        err.getvalue())
