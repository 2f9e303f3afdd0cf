"""The review page's verdict history: which threshold judged the answer, its
earlier verdicts with what caused them, what the latest re-verification
changed, and the previous verdict shown read-only."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from reviewer.models import Answer, Surface, SurfaceChange
from reviewer.selectors.verdict_history import outcome_changes
from reviewer.services.answers import answer_submit
from reviewer.services.reverify import answer_reverify
from reviewer.services.surfaces import surface_update

pytestmark = pytest.mark.django_db

SOURCE = ("The employer matches contributions up to five percent of salary after one full year "
          "of continuous service. Employees may not withdraw matched funds before age fifty-nine.")
# Scores 0.90 against SOURCE: verified-fuzzy at 0.85, not found at 0.92.
FUZZY = "employer matches the contributions up to the five per cent of the salary"
EXACT = "Employees may not withdraw matched funds before age fifty-nine"


def submit(text: str) -> Answer:
    return answer_submit(client=None, data={
        "answer": text, "surface": "legal", "sources": [{"marker": "S1", "text": SOURCE}]}).answer


@pytest.fixture
def legal() -> Surface:
    return Surface.objects.create(name="legal", threshold=0.92)


@pytest.fixture
def sue(make_user: Any) -> Any:
    return make_user("sue", "supervisor")


def lower(surface: Surface, supervisor: Any) -> SurfaceChange:
    """The surface's threshold lowered from 0.92 to 0.85 by a supervisor."""
    change = surface_update(surface=surface, changed_by=supervisor,
                            reason="Calibrated: faithful quotes flagged at 0.92", threshold=0.85)
    assert change is not None
    return change


def reverified(text: str, surface: Surface, supervisor: Any) -> Answer:
    """An answer submitted at 0.92, then re-verified at 0.85 once the
    supervisor lowered the surface's threshold."""
    answer = submit(text)
    assert answer.threshold == 0.92
    answer_reverify(answer=answer, threshold=0.85, surface_change=lower(surface, supervisor))
    return answer


def page(client: Any, answer: Answer, query: str = "", **kwargs: Any) -> str:
    response = client.get(f"/answers/{answer.pk}/{query}", **kwargs)
    assert response.status_code == 200
    return response.content.decode()


def section(html: str, start: str, end: str) -> str:
    assert start in html, start
    return html.split(start, 1)[1].split(end, 1)[0]


def history_entries(html: str) -> list[str]:
    records = section(html, '<ol class="verdict-records"', "</ol>\n")
    return records.split('<li class="verdict-record')[1:]


TEXT = f'The plan says "{FUZZY}" [S1]. It adds "{EXACT}" [S1].'


def test_a_reverified_answer_shows_both_verdicts_what_changed_and_who_changed_it(
    logged_in: Any, legal: Surface, sue: Any
) -> None:
    answer = reverified(TEXT, legal, sue)
    html = page(logged_in, answer)

    assert "Threshold: <strong>0.85</strong>" in html
    current, submitted = history_entries(html)  # newest first
    assert "Re-verified" in current and "at threshold <strong>0.85</strong>" in current
    assert 'class="verdict verdict-pass">Pass' in current and ">current<" in current
    assert re.findall(r"(\d) × ", current) == ["1", "1"]
    assert "verified (fuzzy)" in current and "quote not found" not in current
    assert ("Threshold changed 0.92 → 0.85 by <strong>sue</strong>" in current
            and "“Calibrated: faithful quotes flagged at 0.92”" in current)
    assert "Submitted" in submitted and "at threshold <strong>0.92</strong>" in submitted
    assert 'class="verdict verdict-flag">Flag' in submitted and ">current<" not in submitted
    assert "quote not found" in submitted and "verified (fuzzy)" not in submitted
    assert "verdict-cause" not in submitted  # nobody changed anything to submit it

    changed = section(html, '<div class="what-changed">', "</div>")
    assert "at threshold <strong>0.92 → 0.85</strong>" in changed
    rows = section(changed, "<tbody>", "</tbody>").split("<tr>")[1:]
    assert len(rows) == 1  # the exact quote was verified both times
    cells = [" ".join(re.sub(r"<[^>]+>", "", cell).split())
             for cell in re.findall(r"<td[^>]*>(.*?)</td>", rows[0], re.S)]
    assert cells[0] == "1" and cells[1] == "[S1]"
    assert f"“{FUZZY}”" in cells[2] and "(similarity 0.901)" in cells[2]
    assert cells[3] == "✗ quote not found" and cells[4] == "→ ≈ verified (fuzzy)"
    assert 'href="?verdict=previous#verdict-history" hx-get="?verdict=previous"' in html


def test_the_previous_verdict_shows_the_old_badges_read_only(
    logged_in: Any, legal: Surface, sue: Any
) -> None:
    answer = reverified(TEXT, legal, sue)
    fragment = page(logged_in, answer, "?verdict=previous", headers={"HX-Request": "true"})
    assert "<html" not in fragment and fragment.strip().startswith('<div id="previous-verdict"')
    assert "Previous verdict: " in fragment and ">Flag</span> at threshold 0.92" in fragment
    assert "Read-only" in fragment
    first, second = fragment.split('<li class="previous-sentence')[1:]
    assert "quote not found" in first and '<mark class="quote outcome-quote-not-found"' in first
    assert '<span class="marker outcome-quote-not-found">[S1]</span>' in first
    assert "✓ verified" in second and '<mark class="quote outcome-verified"' in second
    # Nothing in it acts on the answer: no citation to open, no decision.
    assert "?citation=" not in fragment and "<form" not in fragment and "<button" not in fragment
    assert 'hx-get="?verdict=current"' in fragment and "Back to the current verdict" in fragment

    # Without JavaScript: the whole page, the current sentences as they are
    # and the previous verdict in the history.
    html = page(logged_in, answer, "?verdict=previous")
    current = section(html, '<ol class="sentences"', "</ol>")
    assert '<mark class="quote outcome-verified-fuzzy"' in current
    assert "outcome-quote-not-found" not in current
    previous = section(html, '<div id="previous-verdict"', "</div>")
    assert '<mark class="quote outcome-quote-not-found"' in previous
    assert 'id="decide-form"' in html.split('<div id="previous-verdict"')[1]  # for the current

    back = page(logged_in, answer, "?verdict=current", headers={"HX-Request": "true"})
    assert "previous-sentence" not in back and "Show the previous verdict" in back


def test_what_changed_compares_the_latest_verdict_with_the_one_before_it(
    logged_in: Any, legal: Surface, sue: Any
) -> None:
    answer = reverified(TEXT, legal, sue)
    answer_reverify(answer=answer, threshold=0.92)  # by a script: no surface change
    html = page(logged_in, answer)
    assert "Threshold: <strong>0.92</strong>" in html
    assert "(the surface is set to 0.85 now)" in html
    entries = history_entries(html)
    assert [re.search(r"at threshold <strong>([\d.]+)</strong>", e).group(1)  # type: ignore[union-attr]
            for e in entries] == ["0.92", "0.85", "0.92"]
    assert "verdict-cause" not in entries[0] and "by <strong>sue</strong>" in entries[1]
    changed = section(html, '<div class="what-changed">', "</div>")
    assert "at threshold <strong>0.85 → 0.92</strong>" in changed
    row = section(changed, "<tbody>", "</tbody>")
    assert row.index("verified (fuzzy)") < row.index("quote not found")  # before → after
    fragment = page(logged_in, answer, "?verdict=previous", headers={"HX-Request": "true"})
    assert ">Pass</span> at threshold 0.85" in fragment
    assert '<mark class="quote outcome-verified-fuzzy"' in fragment


def test_an_answer_never_reverified_shows_its_threshold_and_no_history(
    logged_in: Any, legal: Surface
) -> None:
    answer = submit(TEXT)
    html = page(logged_in, answer)
    assert "Threshold: <strong>0.92</strong>" in html
    assert "(the surface is set to" not in html
    assert "Verdict history" not in html and 'id="previous-verdict"' not in html
    # Asked for a previous verdict it does not have: the page as usual, or a sentence.
    assert "Verdict history" not in page(logged_in, answer, "?verdict=previous")
    fragment = page(logged_in, answer, "?verdict=previous", headers={"HX-Request": "true"})
    assert "one verdict only" in fragment and "<html" not in fragment


def test_a_changed_layout_is_said_not_guessed() -> None:
    def result(*citations_per_sentence: list[str]) -> dict[str, Any]:
        return {"sentences": [
            {"index": i, "citations": [{"outcome": o, "marker": "S1", "quote": "q",
                                        "score": 0.9} for o in outcomes]}
            for i, outcomes in enumerate(citations_per_sentence)]}

    before = result(["quote-not-found"], ["verified"])
    assert outcome_changes(before, result(["verified-fuzzy", "verified"])) == ([], True)
    assert outcome_changes(before, result(["quote-not-found"], ["verified"], [])) == ([], True)
    changes, layout_changed = outcome_changes(before, result(["verified-fuzzy"], ["verified"]))
    assert not layout_changed
    assert [(c.sentence_number, c.before, c.after) for c in changes] == [
        (1, "quote-not-found", "verified-fuzzy")]


def test_the_page_says_when_the_layout_changed(
    logged_in: Any, legal: Surface, sue: Any, monkeypatch: Any
) -> None:
    from reviewer.selectors import verdict_history

    answer = reverified(TEXT, legal, sue)
    monkeypatch.setattr(verdict_history, "_layout", lambda result: [id(result)])
    html = page(logged_in, answer)
    changed = section(html, '<div class="what-changed">', "</div>")
    assert "split into sentences and citations differently" in changed
    assert "<table" not in changed


def test_hostile_html_in_the_answer_is_escaped_in_the_previous_verdict(
    logged_in: Any, legal: Surface, sue: Any
) -> None:
    text = (f'<script>alert(1)</script> The plan says "{FUZZY}" [S1]. '
            f'<img src=x onerror=alert(2)> It adds "<b onmouseover=alert(3)>{EXACT}</b>" [S1].')
    answer = reverified(text, legal, sue)
    for fragment in (page(logged_in, answer, "?verdict=previous", headers={"HX-Request": "true"}),
                     section(page(logged_in, answer, "?verdict=previous"),
                             '<section class="verdict-history"', "</section>")):
        assert "previous-sentence" in fragment
        for hostile in ("<script", "<img", "<b onmouseover"):
            assert hostile not in fragment
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in fragment
        assert "&lt;b onmouseover=alert(3)&gt;" in fragment


def test_the_history_needs_the_review_pages_permission(
    client: Any, make_user: Any, legal: Surface, sue: Any
) -> None:
    answer = reverified(TEXT, legal, sue)
    url = f"/answers/{answer.pk}/?verdict=previous"
    assert client.get(url)["Location"].startswith("/accounts/login/?next=")
    client.force_login(make_user("cal", "calibrator"))  # labels matches, reads no answers
    refused = client.get(url, headers={"HX-Request": "true"})
    assert refused.status_code == 403 and "previous-sentence" not in refused.content.decode()
    assert refused["HX-Refresh"] == "true"
    client.force_login(make_user("sup", "supervisor"))
    assert "previous-sentence" in page(client, answer, "?verdict=previous",
                                       headers={"HX-Request": "true"})


def test_the_page_reads_the_history_in_as_many_queries_however_long_it_is(
    logged_in: Any, legal: Surface, sue: Any
) -> None:
    once, thrice = submit(TEXT), submit(TEXT)
    change = lower(legal, sue)
    answer_reverify(answer=once, threshold=0.85, surface_change=change)
    answer_reverify(answer=thrice, threshold=0.85, surface_change=change)
    answer_reverify(answer=thrice, threshold=0.92)
    answer_reverify(answer=thrice, threshold=0.85)

    def queries(answer: Answer, query: str) -> int:
        with CaptureQueriesContext(connection) as context:
            page(logged_in, answer, query)
        return len(context.captured_queries)

    for query in ("", "?verdict=previous"):
        assert queries(once, query) == queries(thrice, query)
