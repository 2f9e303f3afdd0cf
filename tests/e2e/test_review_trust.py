"""The reviewer's answer page earns trust, in real Chromium at 1280x720: no
stale page acts after Back, the first sentence shows without scrolling and
a click anywhere on it opens it, the note is multi-line with its limit shown
and enforced, a paraphrased failing citation is evidence to open, and
"being decided by" lapses once the page stops beating."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from reviewer.models import Answer, CitationVerdict, ReviewDecision

pytestmark = pytest.mark.django_db(transaction=True)


def _base(page: Any) -> str:
    return page.url.split("/answers")[0]


def _open(page: Any, external_id: str) -> Answer:
    page.set_viewport_size({"width": 1280, "height": 720})
    answer = Answer.objects.get(external_id=external_id)
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.wait_for_selector("#decide-form")
    return answer


def _state(answer: Answer) -> str:
    answer.refresh_from_db()
    return answer.review_state


def test_back_after_a_decision_shows_the_decided_state_and_a_key_there_asks_first(
    page: Any,
) -> None:
    answer = _open(page, "demo-benefits-mixed")
    page.click("#sentence-1 a.sentence-open")  # a panel: htmx pushes its address
    page.wait_for_url("**?sentence=1")
    page.keyboard.press("e")
    page.wait_for_selector("#decisions .review-state:has-text('Escalated')")

    # Back to the address before the panel, in the same tab...
    page.go_back()
    page.wait_for_url(f"**/answers/{answer.pk}/")
    page.wait_for_selector("#review-state-now:has-text('Escalated')")
    assert "No decisions yet" not in page.locator("#decisions").inner_text()
    # ...and Back from another page.
    page.goto(f"{_base(page)}/answers/")
    page.go_back()
    page.wait_for_selector("#review-state-now")
    assert page.locator("#review-state-now").inner_text() == "State: Escalated"
    assert "Escalated by demo" in page.locator("#decisions .trail").inner_text()

    # A decision key on the decided answer names what stands and asks first.
    page.keyboard.press("r")
    dialog = page.locator("#confirm-redecide")
    assert dialog.is_visible()
    assert dialog.locator("h2").inner_text() == "This answer is Escalated by demo. Reject it?"
    page.keyboard.press("Escape")  # cancel: nothing changes
    assert not dialog.is_visible()
    assert _state(answer) == "escalated"
    assert ReviewDecision.objects.filter(answer=answer).count() == 1
    assert page.locator("#review-state-now").inner_text() == "State: Escalated"

    page.keyboard.press("r")
    dialog.get_by_role("button", name="Reject it").click()
    page.wait_for_selector("#decisions .review-state:has-text('Rejected')")
    assert _state(answer) == "rejected"


def test_at_1280x720_the_first_sentence_shows_clicks_open_and_keys_never_type(
    page: Any,
) -> None:
    answer = _open(page, "demo-benefits-mixed")
    column = page.locator(".answer-column").bounding_box()
    bar = page.locator(".decide-bar").bounding_box()
    first = page.locator("#sentence-0").bounding_box()
    assert first["y"] >= column["y"] and first["y"] + first["height"] <= bar["y"], (first, bar)
    # The summary is one line that opens on demand.
    summary = page.locator(".answer-summary > summary")
    assert summary.bounding_box()["height"] < 32
    assert not page.locator(".answer-summary .reasons").is_visible()
    summary.click()
    assert page.locator(".answer-summary .reasons").is_visible()
    summary.click()

    # A click anywhere on a sentence (here: its row beside the words) opens it.
    row = page.locator("#sentence-2")
    box = row.bounding_box()
    row.click(position={"x": box["width"] - 12, "y": 4})
    page.wait_for_url("**?sentence=2")
    page.wait_for_selector("#sentence-panel h2:has-text('Sentence 3')")

    # The note is multi-line; typing an "r" there types it and decides nothing.
    note = page.locator("#decision-note")
    lines = note.evaluate("e => e.clientHeight / parseFloat(getComputedStyle(e).lineHeight)")
    assert lines >= 2, lines
    note.click()
    page.keyboard.type("Both quotes are altered")
    page.keyboard.press("Enter")
    page.keyboard.type("read [2] again")
    page.keyboard.press("r")
    assert note.input_value() == "Both quotes are altered\nread [2] againr"
    page.keyboard.press("Backspace")
    assert ReviewDecision.objects.filter(answer=answer).count() == 0
    # Ctrl+Enter ends the note; then the keys act, with the note.
    page.keyboard.press("Control+Enter")
    assert "press a, r or e" in page.locator("#note-hint").inner_text()
    page.keyboard.press("r")
    page.wait_for_selector("#decisions .review-state:has-text('Rejected')")
    decision = ReviewDecision.objects.get(answer=answer)
    assert (decision.decision, decision.note) == (
        "reject", "Both quotes are altered\nread [2] again")

    # Where a note is required, a key asks for it and Cmd+Enter decides.
    clinical = _open(page, "demo-clinical")
    page.keyboard.press("r")
    assert page.evaluate("document.activeElement.id") == "decision-note"
    page.keyboard.type("Dose quote altered; reject")
    page.keyboard.press("Meta+Enter")
    page.wait_for_selector("#decisions .review-state:has-text('Rejected')")
    assert ReviewDecision.objects.get(answer=clinical).note == "Dose quote altered; reject"


def test_the_note_shows_its_limit_and_a_longer_one_is_refused_not_cut(page: Any) -> None:
    answer = _open(page, "demo-benefits-mixed")
    note = page.locator("#decision-note")
    count = page.locator("#note-count")
    assert note.get_attribute("maxlength") == "5000"
    assert count.inner_text() == "0 / 5000 characters"
    note.click()
    page.keyboard.type("short")
    assert count.inner_text() == "5 / 5000 characters"
    # A page without the limit (an old tab, a hand-written form) meets the server's.
    note.evaluate("e => e.removeAttribute('maxlength')")
    note.fill("x" * 5100)
    note.evaluate("e => e.blur()")
    page.keyboard.press("e")
    error = page.locator("#decide-error")
    page.wait_for_function("document.querySelector('#decide-error').textContent.length > 0")
    assert "5,100 characters" in error.inner_text() and "at most 5,000" in error.inner_text()
    assert ReviewDecision.objects.filter(answer=answer).count() == 0
    assert note.input_value() == "x" * 5100  # kept for the reviewer to shorten
    assert _state(answer) == "pending"


def test_a_paraphrased_failing_citation_is_evidence_to_open_and_counts_as_opened(
    page: Any,
) -> None:
    answer = _open(page, "demo-benefits-paraphrased")
    unsupported = CitationVerdict.objects.get(answer=answer, outcome="claim-unsupported")
    mismatch = CitationVerdict.objects.get(answer=answer, outcome="claim-mismatch")
    assert unsupported.quote == "" and mismatch.quote == ""
    opened = page.locator("#opened-count")
    assert opened.inner_text() == "Failing citations opened: 0 of 2"

    # A click on the mismatching sentence (beside its words) opens its likely
    # passage, in the panel and in the PDF, and counts it as opened.
    row = page.locator(f"#sentence-{mismatch.sentence.index}")
    box = row.bounding_box()
    row.click(position={"x": box["width"] - 12, "y": 4})
    page.wait_for_selector("#sentence-panel .findings")
    assert "likely passage — paraphrased, not a quote" in page.locator(
        "#sentence-panel .passage-likely h3").inner_text()
    page.wait_for_function("document.querySelectorAll('#pdf-viewer .cg-highlight').length > 0")
    assert opened.inner_text() == "Failing citations opened: 1 of 2"

    # The unsupported one (no passage comes close) says so when opened, and counts too.
    page.click(f"#sentence-{unsupported.sentence.index} .sentence-text",
               position={"x": 8, "y": 8})
    page.wait_for_selector("#sentence-panel .no-evidence.unsupported")
    assert opened.inner_text() == "All 2 failing citations opened ✓"
    page.keyboard.press("a")  # every failure opened: nothing to confirm
    page.wait_for_selector("#decisions .review-state:has-text('Approved')")
    decision = ReviewDecision.objects.get(answer=answer)
    assert decision.unopened_failures == []


def test_being_decided_lapses_when_the_page_stops_beating(page: Any, chromium: Any,
                                                          demo_site: Any) -> None:
    get_user_model().objects.create_superuser("sue", "s@example.com", "pw-sue-1")
    supervisor = chromium.new_context(viewport={"width": 1280, "height": 720})
    triage = supervisor.new_page()
    triage.goto(f"{demo_site.url}/accounts/login/")
    triage.fill("input[name=username]", "sue")
    triage.fill("input[name=password]", "pw-sue-1")
    triage.click("button[type=submit]")
    triage.wait_for_url(lambda url: "/accounts/login/" not in url)

    def deciding() -> str:
        triage.goto(f"{demo_site.url}/triage/?state=any")
        row = triage.locator(f"tr:has(a[href*='/answers/{answer.pk}/'])").first
        return " ".join(row.locator(".deciding").all_inner_texts())

    def beat() -> Any:
        return page.expect_response(
            lambda r: r.url.endswith("/presence") and r.request.method == "POST")

    page.clock.install()
    answer = _open(page, "demo-benefits-mixed")
    assert deciding() == "being decided by demo"

    # Open for 20 minutes: the page's heartbeat keeps it shown as being decided.
    Answer.objects.filter(pk=answer.pk).update(
        in_review_since=timezone.now() - timedelta(minutes=20))
    with beat() as response:
        page.clock.fast_forward("01:05")
    assert response.value.status == 204
    assert deciding() == "being decided by demo"

    # Hidden: no more heartbeats; 4 minutes on, nobody is deciding it.
    beats: list[str] = []
    page.on("request", lambda r: beats.append(r.url) if r.url.endswith("/presence") else None)
    page.evaluate("""() => {
        Object.defineProperty(document, 'visibilityState', {value: 'hidden', configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }""")
    page.clock.fast_forward("04:00")
    page.evaluate("() => new Promise(requestAnimationFrame)")
    assert beats == []
    Answer.objects.filter(pk=answer.pk).update(
        in_review_since=timezone.now() - timedelta(minutes=4))
    assert deciding() == ""

    # Shown again, it beats at once and is back.
    with beat():
        page.evaluate("""() => {
            Object.defineProperty(document, 'visibilityState', {value: 'visible',
                                                                configurable: true});
            document.dispatchEvent(new Event('visibilitychange'));
        }""")
    assert deciding() == "being decided by demo"

    supervisor.close()
