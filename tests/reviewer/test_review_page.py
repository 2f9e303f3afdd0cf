"""The review page, its htmx citation panel, decisions, and its query count."""

import json
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewer.models import Answer, CitationVerdict, ReviewDecision
from reviewer.services.answers import answer_submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> dict[str, Answer]:
    # Without the scanned letter, which no test here cites: OCR-ing it is
    # a second or more of every test (tests/reviewer/test_demo_scan.py reads it).
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    return {a.external_id: a for a in Answer.objects.all()}


def test_review_page_shows_every_sentence_with_a_badge_in_words(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-mixed"]
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    for label in ("✓ verified", "≈ verified (fuzzy)", "≠ quote altered", "‼ fabricated marker",
                  "? uncited claim"):
        assert label in html
    assert "Verdict: Fail" in html and "Action: <strong>Strip</strong>" in html
    assert "checked <strong>provenance</strong>" in html  # never claims truth
    assert '<mark class="quote outcome-verified"' in html
    marker = CitationVerdict.objects.filter(answer=answer, outcome="fabricated-marker").get()
    assert f'href="?citation={marker.pk}"' in html and ">[S4]</a>" in html


def test_clicking_a_citation_returns_only_the_panel_and_tells_the_viewer_what_to_highlight(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-benefits-vesting"]
    citation = CitationVerdict.objects.filter(answer=answer, outcome="verified").first()
    assert citation is not None
    response = logged_in.get(f"/answers/{answer.pk}/?citation={citation.pk}",
                             headers={"HX-Request": "true"})
    html = response.content.decode()
    assert "<html" not in html and "Sentence" in html
    assert '<mark class="match">' in html
    event = json.loads(response["HX-Trigger"])["highlight"]
    assert event["url"] == f"/documents/{citation.document_id}/file"
    assert event["pages"][0]["page"] == citation.pages[0]["page"]
    # Rectangles go to the browser in PDF user space (y up), one per located line.
    located = citation.pages[0]["rects"]
    sent = event["pages"][0]["rects"]
    assert len(sent) == len(located)
    page_height = 842
    for (x0, y0, x1, y1), (px0, py0, px1, py1) in zip(located, sent, strict=True):
        assert (px0, px1) == pytest.approx((x0, x1), abs=0.01)
        assert (py0, py1) == pytest.approx((page_height - y1, page_height - y0), abs=0.01)


def test_fuzzy_and_altered_quotes_show_a_word_diff(logged_in: Any,
                                                   demo: dict[str, Answer]) -> None:
    answer = demo["demo-benefits-mixed"]
    altered = CitationVerdict.objects.get(answer=answer, outcome="quote-altered",
                                          quote__contains="ten unused")
    html = logged_in.get(f"/answers/{answer.pk}/?citation={altered.pk}",
                         headers={"HX-Request": "true"}).content.decode()
    assert "<del>five</del>" in html and "<ins>ten</ins>" in html
    # The quote runs across a page break: the footer and header between its
    # halves are shown greyed out, and are not part of the word diff.
    diff = html.split('class="diff"')[1].split("</p>")[0]
    assert "Summary of plan description" not in diff
    assert '<span class="furniture"' in html


def test_an_inline_source_shows_its_text_and_no_viewer(logged_in: Any) -> None:
    answer = answer_submit(client=None, data={
        "answer": 'It says "Employer match vests after two years" [S1].',
        "sources": [{"marker": "S1", "text": "Employer  match vests after\ntwo years."}],
    }).answer
    citation = CitationVerdict.objects.get(answer=answer)
    response = logged_in.get(f"/answers/{answer.pk}/?citation={citation.pk}",
                             headers={"HX-Request": "true"})
    assert json.loads(response["HX-Trigger"])["highlight"] == {
        "url": None, "pages": [], "groups": []}
    assert "<mark class=\"match\">Employer  match vests after\ntwo years</mark>" in (
        response.content.decode())


def test_answer_text_is_always_escaped(logged_in: Any, demo: dict[str, Answer]) -> None:
    html = logged_in.get(f"/answers/{demo['demo-hostile'].pk}/").content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(" in html and "&lt;/script&gt;" in html
    assert "&lt;b&gt;Is&lt;/b&gt;" in html  # the question too


def test_a_decision_is_recorded_with_reviewer_time_and_note(
    logged_in: Any, reviewer_user: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    response = logged_in.post(f"/answers/{answer.pk}/decide",
                              {"decision": "escalate", "note": "Needs the on-call pharmacist"},
                              headers={"HX-Request": "true"})
    html = response.content.decode()
    assert "<html" not in html and "Escalated" in html and "Needs the on-call pharmacist" in html
    decision = ReviewDecision.objects.get()
    assert (decision.reviewer, decision.decision) == (reviewer_user, "escalate")
    answer.refresh_from_db()
    assert answer.review_state == "escalated"
    assert logged_in.post(f"/answers/{answer.pk}/decide", {"decision": "shrug"}
                          ).status_code == 400


def test_review_page_query_count_does_not_grow_with_the_answer(logged_in: Any) -> None:
    source = " ".join(f"Clause {i} says the fee is {i} euros per month." for i in range(120))

    def make(sentences: int) -> Answer:
        text = " ".join(
            f'Clause {i} says "the fee is {i} euros per month" [S1] and "Clause {i}" [S1].'
            for i in range(sentences))
        return answer_submit(client=None, data={
            "answer": text, "sources": [{"marker": "S1", "text": source}]}).answer

    small, large = make(2), make(100)
    assert CitationVerdict.objects.filter(answer=large).count() == 200

    def queries(answer: Answer) -> int:
        with CaptureQueriesContext(connection) as context:
            assert logged_in.get(f"/answers/{answer.pk}/").status_code == 200
        return len(context.captured_queries)

    assert queries(large) == queries(small)


def test_a_createsuperuser_account_can_use_every_page(client: Any,
                                                      demo: dict[str, Answer]) -> None:
    user = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-99")
    client.force_login(user)
    answer = demo["demo-contract"]
    citation = CitationVerdict.objects.filter(answer=answer).first()
    assert citation is not None and citation.document_id is not None
    for url in ("/answers/", "/answers/?verdict=flag&state=pending", f"/answers/{answer.pk}/",
                f"/answers/{answer.pk}/?citation={citation.pk}", "/documents/",
                f"/documents/{citation.document_id}/file", "/api/docs/", "/admin/",
                "/admin/reviewer/answer/", "/admin/reviewer/document/"):
        assert client.get(url).status_code == 200, url
