"""A paraphrased citation's likely passage and the sentence's claim findings:
stored with the citation, returned by the API (with page rectangles for a
document source), refilled by re-verifying, and shown on the review page and
to the PDF viewer as evidence to open."""

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from reviewer.models import Answer, CitationVerdict, ReviewDecision
from reviewer.selectors.answers import answer_api_result, answer_result
from reviewer.services.answers import answer_submit
from reviewer.services.reverify import answer_reverify
from reviewer.views.passages import source_runs

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}

PLAN = ("Employees become eligible for the retirement plan on the first day of the month "
        "after 30 days of service. The annual deductible is $500 per person and $1,000 per "
        "family. Full-time employees accrue 25 days of paid leave a year.")
PARAPHRASED = ("You can join the retirement plan on the first day of the month after 30 days "
               "of service [S1].")
MISMATCH = "The annual deductible is $800 per person [S1]."
UNRELATED = "Members also get free parking and a gym pass [S1]."


def submit(answer: str, source: str = PLAN, **extra: Any) -> Answer:
    return answer_submit(client=None, data={
        "answer": answer, "sources": [{"marker": "S1", "text": source}], **extra}).answer


def citation(answer: Answer, outcome: str) -> CitationVerdict:
    return CitationVerdict.objects.get(answer=answer, outcome=outcome)


def panel(client: Any, answer: Answer, row: CitationVerdict) -> tuple[str, dict[str, Any]]:
    response = client.get(f"/answers/{answer.pk}/?citation={row.pk}", headers=HTMX)
    assert response.status_code == 200
    return response.content.decode(), json.loads(response["HX-Trigger"])["highlight"]


# ---- storage ------------------------------------------------------------------

def test_the_passage_support_words_and_findings_are_stored_and_read_back() -> None:
    answer = submit(f"{PARAPHRASED} {MISMATCH} {UNRELATED}")
    source = answer.sources.get().text

    unquoted = citation(answer, "unquoted")
    assert unquoted.passage_start is not None and unquoted.passage_end is not None
    passage = source[unquoted.passage_start:unquoted.passage_end]
    assert passage.startswith("Employees become eligible") and passage.endswith("service.")
    assert unquoted.passage_document_start is None and unquoted.passage_pages == []  # inline
    assert unquoted.support is not None and 0.5 < unquoted.support <= 1
    shared = {source[s:e] for s, e in unquoted.shared}
    assert {"retirement", "plan", "30", "service"} <= shared
    assert unquoted.missing == ["join"]
    assert unquoted.findings == []

    mismatch = citation(answer, "claim-mismatch")
    (finding,) = mismatch.findings
    assert finding["check"] == "number"
    assert finding["message"] == "the sentence says $800; the passage says $500"
    assert answer.text[finding["claim_start"]:finding["claim_end"]] == "$800"
    assert source[finding["passage_start"]:finding["passage_end"]] == "$500"
    assert mismatch.message == finding["message"]
    assert "800" in mismatch.missing

    unsupported = citation(answer, "claim-unsupported")
    assert unsupported.support is not None and unsupported.support < 0.2
    assert "parking" in unsupported.missing

    # GET (from the rows) says what POST said.
    posted = answer_submit(client=None, data={
        "answer": answer.text, "sources": [{"marker": "S1", "text": PLAN}]}).result
    assert answer_api_result(Answer.objects.get(pk=posted["answer"])) == posted
    # The rows themselves, in code points (the API adds the other units).
    stored = [c for s in answer_result(Answer.objects.get(pk=posted["answer"]))["sentences"]
              for c in s["citations"]]
    assert [c["outcome"] for c in stored] == ["unquoted", "claim-mismatch", "claim-unsupported"]
    assert stored[1]["findings"] == mismatch.findings


def test_reverifying_fills_the_passage_of_a_citation_stored_before_passages() -> None:
    answer = submit(f"{PARAPHRASED} {MISMATCH}")
    kept = {c.pk: (c.passage_start, c.support, c.shared, c.missing, c.findings)
            for c in CitationVerdict.objects.filter(answer=answer)}
    # As stored before migration 0020: none of it.
    CitationVerdict.objects.filter(answer=answer).update(
        passage_start=None, passage_end=None, support=None, shared=[], missing=[], findings=[])

    answer_reverify(answer=answer)

    assert {c.pk: (c.passage_start, c.support, c.shared, c.missing, c.findings)
            for c in CitationVerdict.objects.filter(answer=answer)} == kept


def test_the_api_returns_the_passage_with_its_pages_for_a_chunk_source(
    api: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        uploaded = api.post("/api/v1/documents", {"file": SimpleUploadedFile(
            "plan.pdf", text_pdf(PLAN))}).json()
    (chunk,) = api.get(f"/api/v1/documents/{uploaded['id']}/chunks").json()["results"]
    body = {"id": "para-1", "answer": f"{PARAPHRASED} {MISMATCH}",
            "sources": [{"marker": "S1", "chunk": chunk["id"]}]}
    posted = api.post("/api/v1/answers", json.dumps(body), content_type="application/json")
    assert posted.status_code == 201, posted.content
    result = api.get(f"/api/v1/answers/{posted.json()['answer']}").json()
    assert result == posted.json()

    unquoted, mismatch = (s["citations"][0] for s in result["sentences"])
    assert unquoted["outcome"] == "unquoted" and mismatch["outcome"] == "claim-mismatch"
    for cited in (unquoted, mismatch):
        assert cited["document"] == uploaded["id"]
        # The same range in the document as in the chunk, offset by the chunk's start.
        offset = cited["passage_document_start"] - cited["passage_start"]
        assert cited["passage_document_end"] - cited["passage_end"] == offset
        (page,) = cited["passage_pages"]
        assert page["page"] == 1 and page["rects"]
        assert all(len(rect) == 4 for rect in page["rects"])
        assert isinstance(cited["support"], float) and cited["shared"]
    assert unquoted["missing"] == ["join"] and unquoted["findings"] == []
    (finding,) = mismatch["findings"]
    assert (finding["claim"], finding["passage"], finding["source_marker"]) == (
        "$800", "$500", "S1")
    # A passage stays a passage: no match, no quote.
    assert unquoted["quote"] is None and unquoted["pages"] == []


# ---- the review page ------------------------------------------------------------

def test_an_unquoted_citation_shows_its_likely_passage_with_shared_words_marked(
    logged_in: Any
) -> None:
    answer = submit(PARAPHRASED)
    row = citation(answer, "unquoted")

    html, event = panel(logged_in, answer, row)
    assert 'aria-label="Likely passage"' in html
    assert "likely passage — paraphrased, not a quote" in html
    assert f"Support {round(row.support * 100)}%" in html
    assert '<mark class="shared">retirement</mark>' in html
    assert '<mark class="shared">service</mark>' in html
    assert '<mark class="shared">eligible</mark>' not in html  # the sentence says "join"
    assert 'Not in the passage: <span class="missing-word">join</span>.' in html
    # The passage in the source's words, around it the source as injected.
    assert "Employees become eligible for the" in html
    assert event["groups"] == [] and event["url"] is None  # inline text: no PDF


def test_a_claim_mismatch_names_both_sides_and_marks_the_words_in_the_answer(
    logged_in: Any
) -> None:
    answer = submit(f"{PARAPHRASED} {MISMATCH}")
    row = citation(answer, "claim-mismatch")

    html, _ = panel(logged_in, answer, row)
    assert "the sentence says $800; the passage says $500" in html
    assert '<mark class="claim-finding check-number">$800</mark>' in html
    assert '[S1]: <mark class="finding-passage">$500</mark>' in html
    assert "likely passage — paraphrased, not a quote" in html
    assert '<span class="missing-word">800</span>' in html

    page = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    # The answer's own words at odds with the passage, with the finding as title.
    assert ('<mark class="claim-finding check-number" title="the sentence says $800; '
            'the passage says $500">$800</mark>') in page
    assert "⚠ claim mismatch" in page
    assert 'class="sentence status-claim-mismatch failing"' in page


def test_a_claim_unsupported_citation_says_the_source_shares_almost_nothing(
    logged_in: Any
) -> None:
    answer = submit(UNRELATED)
    row = citation(answer, "claim-unsupported")

    html, _ = panel(logged_in, answer, row)
    assert "The cited source [S1] shares almost nothing with this sentence" in html
    assert "no passage of it comes close" in html  # it shares no content word at all
    assert "paraphrased, not a quote" not in html  # nothing is offered as the sentence's source
    assert "∅ claim unsupported" in html
    # Every content word of the sentence is missing from the source.
    assert row.missing == ["Members", "get", "free", "parking", "gym", "pass"]


def test_source_text_in_a_passage_is_escaped(logged_in: Any) -> None:
    answer = submit("The <b>retirement</b> plan starts after 30 days of service for "
                    "employees [S1].",
                    source="<script>alert(1)</script> The retirement plan starts after 30 days "
                           "of service for employees.")
    html, _ = panel(logged_in, answer, citation(answer, "unquoted"))
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_paraphrase_failures_are_evidence_to_open_before_approving(logged_in: Any) -> None:
    answer = submit(f"{PARAPHRASED} {MISMATCH} {UNRELATED}")
    failing = sorted(c.pk for c in CitationVerdict.objects.filter(
        answer=answer, outcome__in=("claim-mismatch", "claim-unsupported")))
    assert len(failing) == 2

    page = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    assert "2 failing citations" in page
    for pk in failing:
        assert f'data-citation="{pk}"' in page  # listed to open in the confirmation

    refused = logged_in.post(f"/answers/{answer.pk}/decide", {"decision": "approve"},
                             headers=HTMX)
    assert refused.status_code == 422
    assert 'data-code="unopened-failures"' in refused.content.decode()
    opened = logged_in.post(f"/answers/{answer.pk}/decide",
                            {"decision": "approve", "opened": ",".join(map(str, failing))},
                            headers=HTMX)
    assert opened.status_code == 200
    assert ReviewDecision.objects.get(answer=answer).unopened_failures == []


def test_the_viewer_is_told_to_draw_the_likely_passage_in_its_own_style(
    logged_in: Any, text_pdf: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from reviewer.services.documents import document_upload

    with django_capture_on_commit_callbacks(execute=True):
        document = document_upload(data=text_pdf(PLAN), filename="plan.pdf").document
    answer = answer_submit(client=None, data={
        "answer": f"{PARAPHRASED} {UNRELATED}",
        "sources": [{"marker": "S1", "document": document.pk}]}).answer

    row = citation(answer, "unquoted")
    html, event = panel(logged_in, answer, row)
    assert 'aria-label="Likely passage"' in html
    (group,) = event["groups"]
    assert (group["outcome"], group["passage"]) == ("likely", "likely")
    assert group["label"] == "likely passage — paraphrased, not a quote"
    assert group["url"] == f"/documents/{document.pk}/file"
    assert [p["page"] for p in group["pages"]] == [p["page"] for p in row.passage_pages]

    # A source sharing no word with the sentence has no passage to draw.
    unrelated = panel(logged_in, answer, citation(answer, "claim-unsupported"))[1]
    assert not unrelated or not unrelated.get("groups")


# ---- source runs ----------------------------------------------------------------

class _Source:
    text = "Header 1 The plan covers hospital stays."
    furniture = [[0, 9]]


def test_source_runs_mark_shared_words_and_furniture_apart() -> None:
    runs = source_runs(_Source(), 0, len(_Source.text), shared=[[13, 17], [25, 33]],
                       lead="…")
    assert [(r["text"], r["furniture"], r["shared"]) for r in runs] == [
        ("…", False, False),
        ("Header 1 ", True, False),
        ("The ", False, False),
        ("plan", False, True),
        (" covers ", False, False),
        ("hospital", False, True),
        (" stays.", False, False),
    ]
    # Without shared words: the runs as before (furniture only).
    assert [r["text"] for r in source_runs(_Source(), 4, 20)] == ["er 1 ", "The plan co"]


def test_a_quote_in_a_contradicting_sentence_keeps_its_match_and_shows_the_finding(
    logged_in: Any
) -> None:
    answer = submit('The deductible of $800 per person is "per person and $1,000 per family" '
                    "[S1].")
    row = citation(answer, "claim-mismatch")
    assert row.quote and row.chunk_start is not None

    html, _ = panel(logged_in, answer, row)
    assert '<mark class="match">per person and $1,000 per family</mark>' in html
    assert 'aria-label="Likely passage"' not in html  # a quote is no paraphrase
    assert "the sentence says $800; the passage says $500" in html
    page = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    assert 'title="quote found; the sentence&#x27;s own words differ from its passage"' in page
