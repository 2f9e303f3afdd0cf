"""Evidence for every failure on the review page (the closest passage, where
a misattributed quote really is, a negation just outside a quote, what was
normalised), the summary in words, and answers rendered as Markdown."""

import json
import re
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command

from reviewer.models import Answer, CitationVerdict
from reviewer.services.answers import answer_submit

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo(django_capture_on_commit_callbacks: Any) -> dict[str, Answer]:
    # Without the scanned letter, which no test here cites: OCR-ing it is
    # a second or more of every test (tests/reviewer/test_demo_scan.py reads it).
    with django_capture_on_commit_callbacks(execute=True):
        call_command("load_demo", "--no-scan", stdout=StringIO())
    return {a.external_id: a for a in Answer.objects.all()}


def panel(client: Any, answer: Answer, query: str) -> tuple[str, dict[str, Any]]:
    response = client.get(f"/answers/{answer.pk}/?{query}", headers={"HX-Request": "true"})
    assert response.status_code == 200
    return response.content.decode(), json.loads(response["HX-Trigger"])["highlight"]


def inline(answer: str, **sources: str) -> Answer:
    return answer_submit(client=None, data={
        "answer": answer,
        "sources": [{"marker": marker, "text": text} for marker, text in sources.items()],
    }).answer


# --- quote-not-found: the closest passage ------------------------------------


def test_a_not_found_quote_shows_the_closest_passage_and_the_viewer_highlights_it(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-contract"]
    citation = CitationVerdict.objects.get(answer=answer, outcome="quote-not-found")
    # Stored: where to look, how close, and the page rectangles.
    assert citation.closest_marker == "S1"
    assert citation.closest_start is not None and citation.closest_end is not None
    assert citation.closest_score is not None and citation.closest_score < answer.threshold
    assert citation.closest_pages and citation.closest_pages[0]["rects"]
    assert citation.chunk_start is None  # not a match

    html, event = panel(logged_in, answer, f"citation={citation.pk}")
    assert "closest passage — not a match" in html
    assert f"Best similarity {citation.closest_score:.3f}" in html
    assert '<mark class="closest">' in html
    assert 'class="diff"' in html  # the quote against the closest passage
    source = answer.sources.get(marker="S1")
    closest = source.text[citation.closest_start:citation.closest_end]
    assert " ".join(closest.split())[:20] in " ".join(html.split())

    (group,) = event["groups"]
    assert group["outcome"] == "closest"
    assert group["label"] == "closest passage — not a match"
    assert group["url"] == f"/documents/{source.document_id}/file"
    assert group["pages"][0]["page"] == citation.closest_pages[0]["page"]
    assert len(group["pages"][0]["rects"]) == len(citation.closest_pages[0]["rects"])
    # The first group's keys stay at the top level for the viewer as it was.
    assert (event["url"], event["pages"]) == (group["url"], group["pages"])

    # The full page carries the same highlight for a direct link.
    page = logged_in.get(f"/answers/{answer.pk}/?citation={citation.pk}").content.decode()
    assert 'id="initial-highlight"' in page and '"outcome": "closest"' in page


def test_an_inline_not_found_quote_shows_its_closest_text(logged_in: Any) -> None:
    answer = inline('The guide says "blood pressure must be checked monthly by a doctor" [S1].',
                    S1="Adults should have their blood pressure checked every year by a nurse.")
    citation = CitationVerdict.objects.get(answer=answer)
    html, event = panel(logged_in, answer, f"citation={citation.pk}")
    assert citation.outcome == "quote-not-found"
    assert '<mark class="closest">blood pressure checked every year' in html
    assert "<del>every year</del>" in html or "<del>every</del>" in html
    assert event == {"url": None, "pages": [], "groups": []}  # no PDF: the text is the evidence


def test_a_closest_passage_cut_by_page_furniture_says_so(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    # The leave paragraph runs from page 1 to page 2 of the benefits PDF, with
    # the footer and the next header between its halves.
    injected = demo["demo-benefits-mixed"].sources.get(marker="S1")
    answer = answer_submit(client=None, data={
        "answer": 'Leave: "Up to seven spare days can be carried over into the following '
                  'calendar year" [S1].',
        "sources": [{"marker": "S1", "document": injected.document_id,
                     "start": injected.document_start, "end": injected.document_end}],
    }).answer
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "quote-not-found"
    html, event = panel(logged_in, answer, f"citation={citation.pk}")
    assert "interrupted by a running header/page number" in html
    assert event["groups"][0]["outcome"] == "closest"
    assert {p["page"] for p in event["groups"][0]["pages"]} == {1, 2}
    diff = html.split('class="diff"')[1].split("</p>")[0]
    assert "Summary of plan description" not in diff and "Acme Corporation" not in diff


# --- wrong-source: both passages, each openable ------------------------------


def test_wrong_source_shows_where_the_quote_is_and_the_cited_sources_closest(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    citation = CitationVerdict.objects.get(answer=answer, outcome="wrong-source")
    assert citation.closest_marker == citation.marker != citation.source_marker
    assert citation.closest_pages

    html, event = panel(logged_in, answer, f"citation={citation.pk}")
    assert "where the quote is" in html and "closest passage — not a match" in html
    assert '<mark class="match">' in html and '<mark class="closest">' in html
    found_link = f'hx-get="?citation={citation.pk}&amp;passage=match"'
    closest_link = f'hx-get="?citation={citation.pk}&amp;passage=closest"'
    assert found_link in html and closest_link in html

    found, closest = event["groups"]
    assert found["passage"] == "match" and found["outcome"] == "verified"
    assert found["label"] == f"where the quote is: [{citation.source_marker}]"
    assert closest["passage"] == "closest" and closest["outcome"] == "closest"
    assert event["pages"] == found["pages"]

    # The closest passage's button puts its highlight first.
    _, event = panel(logged_in, answer, f"citation={citation.pk}&passage=closest")
    assert [g["passage"] for g in event["groups"]] == ["closest", "match"]
    assert event["url"] == closest["url"] and event["pages"] == closest["pages"]


def test_the_api_returns_the_closest_passage(client: Any, api_token: str) -> None:
    body = {"answer": 'It says "hearing aids every two years for both ears" [S1].',
            "sources": [{"marker": "S1", "text": "The plan pays for hearing aids once every "
                                                 "three years for each ear."}]}
    response = client.post("/api/v1/answers", body, content_type="application/json",
                           headers={"Authorization": f"Bearer {api_token}"})
    (citation,) = response.json()["sentences"][0]["citations"]
    assert citation["outcome"] == "quote-not-found"
    assert citation["closest_marker"] == "S1" and citation["closest_pages"] == []
    assert 0 < citation["closest_score"] < 0.92
    stored = client.get(f"/api/v1/answers/{response.json()['answer']}",
                        headers={"Authorization": f"Bearer {api_token}"}).json()
    assert stored["sentences"] == response.json()["sentences"]


# --- quote-altered by context: the negation in the source's words ------------


def test_a_negation_just_outside_the_quote_is_shown_in_context(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    citation = CitationVerdict.objects.get(answer=answer, outcome="quote-altered")
    assert [d["op"] for d in citation.differences] == ["omit-before"]
    html, event = panel(logged_in, answer, f"citation={citation.pk}")
    context = html.split('class="negation-context"')[1].split("</p>")[0]
    assert "Source: Do <strong>not</strong> start treatment" in context
    assert event["groups"][0]["outcome"] == "quote-altered"


def test_a_negation_after_the_quote_is_shown_in_context(logged_in: Any) -> None:
    answer = inline('It says "The dose should" [S1].', S1="The dose should not be doubled.")
    citation = CitationVerdict.objects.get(answer=answer)
    html, _ = panel(logged_in, answer, f"citation={citation.pk}")
    assert "…The dose should <strong>not</strong>…" in html


def test_a_negation_across_a_parenthetical_is_shown_in_the_sources_words(logged_in: Any) -> None:
    answer = inline('It says "exceed 4 g a day" [S1].',
                    S1="Dosing. Never, even in an emergency, exceed 4 g a day.")
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "quote-altered"
    html, _ = panel(logged_in, answer, f"citation={citation.pk}")
    context = html.split('class="negation-context"')[1].split("</p>")[0]
    assert "Source: <strong>Never, even in an emergency,</strong> exceed 4 g a day…" in context


# --- the word diff leaves out what normalisation accounted for ---------------


def test_normalised_differences_are_listed_once_not_shown_as_changes(logged_in: Any) -> None:
    answer = inline(
        'The plan says "the employer match vests after three years of service" [S1].',
        S1="The ﬁnal rule: the employer  match vests after\ntwo years of ser-\nvice.",
    )
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "quote-altered"
    html, _ = panel(logged_in, answer, f"citation={citation.pk}")
    diff = html.split('<p class="diff">')[1].split("</p>")[0]
    assert "<del>two</del>" in diff and "<ins>three</ins>" in diff
    assert "ser-" not in diff and "<del>service" not in diff and "<del>employer" not in diff
    assert diff.count("<del>") == 1 and diff.count("<ins>") == 1
    (normalised,) = [line for line in html.splitlines() if 'class="normalised"' in line]
    assert "hyphenation at line ends" in normalised and "line breaks and spaces" in normalised
    assert html.count('class="normalised"') == 1
    assert "<dt>Normalised</dt>" not in html  # listed once, not twice


def test_a_footnote_marker_repair_is_normalised_not_a_difference(logged_in: Any) -> None:
    answer = inline('It says "damage to the liver is rare in adult patients" [S1].',
                    S1="Serious damage to the liver12 is rare in adult patients.")
    citation = CitationVerdict.objects.get(answer=answer)
    assert citation.outcome == "verified-fuzzy"
    html, _ = panel(logged_in, answer, f"citation={citation.pk}")
    assert 'class="diff"' not in html
    assert "a footnote number left out" in html


# --- the summary in words ----------------------------------------------------


def test_the_summary_uses_the_badges_words_and_reasons_are_sentences(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    answer = demo["demo-clinical"]
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    counts = html.split('<ul class="counts"')[1].split("</ul>")[0]
    assert "❝ quote without marker" in counts and "⇄ wrong source" in counts
    assert "unattributed-quote<" not in counts and "× wrong-source" not in counts
    reasons = html.split('<ul class="reasons"')[1].split("</ul>")[0]
    assert "1 quote without marker: nothing says which source it comes from." in reasons
    assert "1 quote from the wrong source:" in reasons
    assert "80% of the claims cite a source" in reasons
    for code in ("unattributed-quote", "wrong-source", "quote-altered"):
        assert code not in reasons
    legend = html.split('<dl class="legend"')[1].split("</dl>")[0]
    for words in ("verified", "verified (fuzzy)", "altered", "not found"):
        assert words in legend


def test_reasons_stored_as_codes_are_said_in_words(logged_in: Any,
                                                   demo: dict[str, Answer]) -> None:
    answer = demo["demo-contract"]
    answer.reasons = ["2 quote-not-found", "1 fabricated marker(s)", "coverage 0.50 below 1.00"]
    answer.save(update_fields=["reasons"])
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    reasons = html.split('<ul class="reasons"')[1].split("</ul>")[0]
    assert "2 quotes not found: they are not in the sources they cite." in reasons
    assert "1 fabricated marker: it was not among the sources given to the model." in reasons
    assert "50% of the claims cite a source: coverage below the minimum of 100%." in reasons


def test_quotes_in_the_answer_carry_their_outcome_in_style_and_words(
    logged_in: Any, demo: dict[str, Answer]
) -> None:
    html = logged_in.get(f"/answers/{demo['demo-benefits-mixed'].pk}/").content.decode()
    assert '<mark class="quote outcome-verified" title="quote verified">' in html
    assert '<mark class="quote outcome-quote-altered" title="quote altered">' in html
    html = logged_in.get(f"/answers/{demo['demo-contract'].pk}/").content.decode()
    assert ('<mark class="quote outcome-quote-not-found" '
            'title="quote not found: closest passage shown">') in html


# --- Markdown, rendered and inert --------------------------------------------


def test_a_markdown_answer_is_rendered_sentence_by_sentence(logged_in: Any) -> None:
    answer = inline(
        "## Vesting rules\n\n"
        'Your **employer match** vests after "two years of service" [S1].\n\n'
        "- Dental is *included* for `all` staff [S1].\n"
        "- Vision is covered too [S1].\n"
        "1. First, enrol online.\n",
        S1="Employer match vests after two years of service. Dental is included.",
    )
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    sentences = html.split('<ol class="sentences"')[1].split("</ol>")[0]
    assert '<span class="sentence-text md-h2">Vesting rules</span>' in sentences
    assert "<strong>employer match</strong>" in sentences
    assert "<em>included</em>" in sentences and "<code>all</code>" in sentences
    assert sentences.count('class="md-bullet"') == 2
    assert '<span class="md-number">1.</span> First, enrol online.' in sentences
    assert "##" not in sentences and "**" not in sentences
    # Every sentence is still its own row, with its quote and marker links.
    assert sentences.count('class="sentence ') == 5
    assert '<mark class="quote outcome-verified" title="quote verified">two years of service' in (
        sentences)
    for citation in CitationVerdict.objects.filter(answer=answer):
        assert f'href="?citation={citation.pk}"' in sentences


def test_emphasis_around_a_quote_keeps_the_quote_and_its_marker(logged_in: Any) -> None:
    answer = inline('It says *"two years of service"* [S1] and **more** [S1].',
                    S1="Employer match vests after two years of service.")
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    assert '<em>"<mark class="quote outcome-verified"' in html
    assert html.count('class="marker outcome-') == 2


def test_a_hostile_answer_stays_inert(logged_in: Any) -> None:
    answer = inline(
        '<script>alert(1)</script> The plan <img src=x onerror="alert(2)"> covers '
        '"two years of service" [S1]. [click](javascript:alert(3)) and '
        '<a href="javascript:alert(4)">me</a> [S1]. **<iframe src=//evil>** '
        '[x](https://example.com "t") <span style="x">s</span>.',
        S1="Employer match vests after two years of service.",
    )
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    sentences = html.split('<ol class="sentences"')[1].split("</ol>")[0]
    # No element but ours: every tag in the answer text is one we build.
    for hostile in ("<script", "<img", "<iframe", "<span style"):
        assert hostile not in sentences.lower()
    assert not re.search(r"<[^>]*javascript", sentences)  # only as text
    assert 'onerror="alert(2)"&gt;' in sentences  # inert text inside an escaped tag
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in sentences  # shown, as text
    assert "&lt;img src=x" in sentences
    assert '<a href="https://example.com" title="t" rel="noopener noreferrer nofollow">x</a>' in (
        sentences)
    assert '<mark class="quote outcome-verified"' in sentences


def test_markdown_inside_a_quote_is_shown_verbatim(logged_in: Any) -> None:
    answer = inline('It says "match *vests* after two years" [S1].',
                    S1="The match *vests* after two years.")
    html = logged_in.get(f"/answers/{answer.pk}/").content.decode()
    assert 'title="quote verified">match *vests* after two years</mark>' in html
