"""The review page's evidence panel and answer column as a reviewer sees them
on a 1280x720 laptop, measured by the elements' boxes in a real Chromium:
a panel opens with its title in sight (and the evidence it scrolls to under
it, not behind it), and a sentence reached by the keys is never hidden
under the decision bar."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Answer
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

VIEWPORT = {"width": 1280, "height": 720}

# The panel's title and the area of the panel it shows in (inside its
# border), and whether the title is what the browser finds at its middle
# (not scrolled out of the panel, not under anything).
PANEL_TITLE = """() => {
  const panel = document.getElementById('sentence-panel');
  const title = panel.querySelector(':scope > h2');
  const p = panel.getBoundingClientRect(), t = title.getBoundingClientRect();
  const hit = document.elementFromPoint(t.left + 8, (t.top + t.bottom) / 2);
  return {text: title.textContent.trim(), top: t.top, bottom: t.bottom,
          panelTop: p.top + panel.clientTop,
          panelBottom: p.top + panel.clientTop + panel.clientHeight,
          seen: Boolean(hit && title.contains(hit)), scrolled: panel.scrollTop};
}"""


def _base(page: Any) -> str:
    return page.url.split("/answers")[0]


def _click_sentence(page: Any, index: int) -> dict[str, Any]:
    page.click(f"#sentence-{index} .sentence-text", position={"x": 4, "y": 4})
    page.wait_for_function(
        "(n) => document.querySelector('#sentence-panel > h2')?.textContent.trim()"
        ".startsWith(`Sentence ${n} `)", arg=index + 1)
    page.wait_for_timeout(100)  # the viewer shown or hidden: the panel's height settles
    return page.evaluate(PANEL_TITLE)


@pytest.mark.parametrize("external_id", ["demo-benefits-mixed", "demo-clinical",
                                         "demo-contract", "demo-benefits-paraphrased"])
def test_each_sentence_panel_opens_with_its_title_in_sight(page: Any, external_id: str) -> None:
    """Sentence after sentence, in order (each panel replaces one that may
    have been scrolled), the panel's "Sentence N" title with its badge is
    inside the panel's visible area and not covered."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id=external_id)
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    cut = []
    for sentence in answer.sentences.order_by("index"):
        title = _click_sentence(page, sentence.index)
        inside = (title["panelTop"] - 0.5 <= title["top"]
                  and title["bottom"] <= title["panelBottom"] + 0.5)
        if not (inside and title["seen"]):
            cut.append((sentence.index, title))
    assert not cut, f"panel titles cut off or hidden: {cut}"


def test_the_evidence_a_panel_scrolls_to_shows_below_its_title(page: Any) -> None:
    """A failing quote's panel is taller than the room the viewer leaves it:
    it scrolls to the word differences, which show whole, between the title
    and the panel's bottom edge."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-benefits-mixed")
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    title = _click_sentence(page, 2)  # "Up to ten unused days": an altered quote
    assert title["scrolled"] > 0  # the panel did have to scroll to its evidence
    diff = page.locator("#sentence-panel .diff").bounding_box()
    assert title["bottom"] <= diff["y"], (title, diff)
    assert diff["y"] + diff["height"] <= title["panelBottom"] + 0.5, (title, diff)


# The selected sentence's row, the answer column and the decision bar stuck
# to its bottom edge; and whether the row's middle is the row (not the bar).
SELECTED_ROW = """() => {
  const row = document.querySelector('li.sentence.selected');
  if (!row) return null;
  const column = document.querySelector('.answer-column').getBoundingClientRect();
  const bar = document.querySelector('.decide-bar').getBoundingClientRect();
  const r = row.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, (r.top + r.bottom) / 2);
  return {index: Number(row.dataset.index), top: r.top, bottom: r.bottom,
          columnTop: column.top, barTop: bar.top, seen: Boolean(hit && row.contains(hit))};
}"""

# A long answer: many sentences, every outcome, most of them failing.
CLAIMS = (
    'The plan "covers hospital stays of up to 30 days a year at no cost to you" [S1]. '
    'It states that "Dental cover is included for dependants over 18" [S1]. '
    'Unused leave: "Up to ten unused days may be carried over into the next calendar '
    'year" [S1]. Vision care is reimbursed in full [S4]. Gym membership is subsidised '
    "by 50%. The annual deductible is $800 per person [S1]. "
    'Ambulatory monitoring confirms a diagnosis "when clinic blood pressure is 140/90 '
    'mmHg or higher" [S1]. "Advise people to keep their sodium intake below 6 g of salt a '
    'day" appears in the lifestyle section. Members also get free parking and a gym pass [S1]. '
)


def _submit_answer(external_id: str, text: str, *, surface: str = "legal-review",
                   question: str = "") -> Answer:
    """An answer citing the demo's benefits plan as S1 and its guideline as S2."""
    from reviewer.models import Document
    from reviewer.services.answers import answer_submit

    benefits = Document.objects.get(title="Benefits Plan Summary 2026")
    guideline = Document.objects.get(title__startswith="Clinical guideline")
    return answer_submit(client=None, data={
        "id": external_id, "surface": surface, "question": question, "answer": text,
        "sources": [{"marker": "S1", "document": benefits.pk},
                    {"marker": "S2", "document": guideline.pk}]}).answer


def _long_answer() -> Answer:
    return _submit_answer(
        "long-answer", "## Overview\n" + CLAIMS * 4,
        question="Across the plan and the guideline, what is covered, what is reimbursed, "
                 "and which of these statements can be traced to a source?")


def test_a_sentence_the_keys_reach_is_never_under_the_decision_bar(page: Any) -> None:
    """j through a long answer, then n (the next failing sentence, opened) from
    the top: each selected sentence shows whole between the column's top and
    the decision bar, which sticks to the column's bottom edge."""
    page.set_viewport_size(VIEWPORT)
    answer = _long_answer()
    count = answer.sentences.count()
    assert count >= 30
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    hidden = []
    for _ in range(count):
        page.keyboard.press("j")
        row = page.evaluate(SELECTED_ROW)
        if not (row["seen"] and row["columnTop"] - 0.5 <= row["top"]
                and row["bottom"] <= row["barTop"] + 0.5):
            hidden.append(row)
    assert not hidden, f"selected sentences hidden: {hidden}"
    assert page.evaluate(SELECTED_ROW)["index"] == count - 1

    # n wraps to the first failing sentence and opens it; the next n goes on.
    for _ in range(3):
        page.keyboard.press("n")
        row = page.evaluate(SELECTED_ROW)
        page.wait_for_function(
            "(n) => document.querySelector('#sentence-panel > h2')?.textContent.trim()"
            ".startsWith(`Sentence ${n} `)", arg=row["index"] + 1)
        assert row["seen"] and row["bottom"] <= row["barTop"] + 0.5, row


def test_the_viewer_shows_the_whole_title_of_the_cited_document(page: Any) -> None:
    """Above the PDF, the cited document's title: whole, not cut to an
    ellipsis while the row it has to itself has room for it (two of the
    demo's titles were: "Clinical guideline CG-204: adult hy…")."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-clinical")
    page.goto(f"{_base(page)}/answers/{answer.pk}/?sentence=0")
    page.wait_for_function("document.querySelector('#pdf-viewer .cg-highlight')")
    title = page.locator(".viewer-toolbar .viewer-title")
    assert title.inner_text() == "Clinical guideline CG-204: adult hypertension"
    overflow = title.evaluate("e => e.scrollWidth - e.clientWidth")
    assert overflow <= 0, f"the title is cut by {overflow} px"
    # Still one row for the title, one for the controls, one for the legend:
    # the PDF keeps its share of the window.
    assert page.locator("#pdf-viewer").bounding_box()["height"] >= 0.5 * VIEWPORT["height"]


@pytest.mark.parametrize(("external_id", "words"), [
    ("demo-benefits-vesting", "Served as written"),
    ("demo-benefits-mixed", "Served with 4 sentences removed"),
    ("demo-clinical", "Nothing served"),
    ("demo-contract", "Served, marked unverified"),
    ("all-stripped", "Nothing served: every sentence removed"),
])
def test_the_decision_bar_says_what_the_user_got_in_words(
    page: Any, external_id: str, words: str,
) -> None:
    """The decision bar's link to "What the user saw" says it as that section
    does, not as the policy's code ("Served: escalate" for an answer nobody
    was served), and takes the reviewer there."""
    page.set_viewport_size(VIEWPORT)
    if external_id == "all-stripped":
        answer = _submit_answer(external_id, "Vision care is reimbursed in full [S4].",
                                surface="benefits-chat")
        assert (answer.action, answer.served_answer) == ("strip", "")
    else:
        answer = Answer.objects.get(external_id=external_id)
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    link = page.locator(".decide-bar a.served-link")
    assert link.inner_text() == words
    assert page.locator("#served .served-tag").inner_text() == words
    assert link.is_visible()
    link.click()
    tag = page.locator("#served .served-tag").bounding_box()
    bar = page.locator(".decide-bar").bounding_box()
    assert tag["y"] + tag["height"] <= bar["y"], (tag, bar)  # shown, above the bar


def test_the_undo_toast_sits_above_the_decision_bar(page: Any) -> None:
    """After a decision its undo toast shows above the decision bar, not over
    the bar's "failing sentences only" box, its counts and the note."""
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-clinical")  # high stakes: the tallest bar
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.keyboard.press("e")
    page.wait_for_selector("#toast:not([hidden]) button.undo")
    toast = page.locator("#toast").bounding_box()
    bar = page.locator(".decide-bar").bounding_box()
    assert toast["y"] >= 0 and toast["y"] + toast["height"] <= bar["y"], (toast, bar)
    assert page.locator("#failing-only").is_visible()
    page.click("#failing-only")  # not under anything: Playwright would refuse
    assert page.locator("#failing-only").is_checked()


def test_the_approval_question_stays_in_sight_over_a_long_list_of_failures(
    page: Any,
) -> None:
    """Approving a long answer with many failures unopened asks first; the
    question, what it is about, and its buttons are in sight at once: the
    list of unopened failures scrolls between them."""
    page.set_viewport_size(VIEWPORT)
    answer = _long_answer()
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.keyboard.press("a")
    dialog = page.locator("#confirm-approve")
    assert dialog.is_visible()
    assert dialog.locator("li[data-citation]").count() >= 20
    box = dialog.bounding_box()
    for part in ("h2", "p", "[data-action=cancel]", "[data-action=confirm]"):
        seen = dialog.locator(part).first.evaluate(
            """e => { const r = e.getBoundingClientRect();
                      const hit = document.elementFromPoint(r.left + 4, (r.top + r.bottom) / 2);
                      return Boolean(hit && e.contains(hit)); }""")
        b = dialog.locator(part).first.bounding_box()
        assert seen and box["y"] <= b["y"] and b["y"] + b["height"] <= box["y"] + box["height"], \
            (part, b, box)
    assert box["y"] + box["height"] <= VIEWPORT["height"]


def test_the_panel_title_names_the_citation_its_evidence_is_for(page: Any) -> None:
    """A sentence with several citations: after a click on one of them in the
    panel, the panel scrolls to that citation's evidence, out of sight of the
    citation list; the title it keeps in sight says which citation it is."""
    page.set_viewport_size(VIEWPORT)
    answer = _submit_answer("several", (
        'The plan "covers hospital stays of up to 30 days a year at no cost to you" [S1] '
        'and "Dental cover is included for dependants over 18" [S1], while drug treatment '
        'is offered "to all adults with stage 2 hypertension" [S2] [S3].'),
        surface="benefits-chat")
    citations = list(answer.sentences.get().citations.all())
    assert [c.outcome for c in citations] == [
        "verified", "quote-altered", "verified", "fabricated-marker"]
    page.goto(f"{_base(page)}/answers/{answer.pk}/?sentence=0")
    title = page.locator("#sentence-panel > h2")
    assert " ".join(title.inner_text().split()) == (
        "Sentence 1 ‼ fabricated marker · citation 1 of 4 [S1] ✓ verified")
    page.click(f"#sentence-panel .citation-list a[href*='citation={citations[1].pk}']")
    page.wait_for_function("document.querySelector('#sentence-panel > h2')"
                           ".textContent.includes('citation 2 of 4')")
    assert " ".join(title.inner_text().split()) == (
        "Sentence 1 ‼ fabricated marker · citation 2 of 4 [S1] ≠ quote altered")
    shown = page.evaluate(PANEL_TITLE)
    assert shown["scrolled"] > 0 and shown["seen"], shown
    listed = page.locator("#sentence-panel .citation-list li.selected").bounding_box()
    assert listed["y"] + listed["height"] <= shown["bottom"], (listed, shown)  # scrolled past


def test_the_sentence_the_panel_shows_is_selected_and_in_view(page: Any) -> None:
    """A page loaded with a sentence open (a reload, Back to it) shows that
    sentence's row selected and in view, and the keys go on from it; so does
    a panel opened from the approval dialog's list of failures."""
    page.set_viewport_size(VIEWPORT)
    answer = _long_answer()
    page.goto(f"{_base(page)}/answers/{answer.pk}/?sentence=30")
    row = page.evaluate(SELECTED_ROW)
    assert row is not None, "no sentence selected: the panel shows sentence 31"
    assert row["index"] == 30 and row["seen"] and row["bottom"] <= row["barTop"] + 0.5, row
    page.keyboard.press("j")
    assert page.evaluate(SELECTED_ROW)["index"] == 31

    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.keyboard.press("a")
    failure = page.locator("#confirm-approve li[data-citation] a").last
    label = failure.inner_text()  # "Sentence 37 [S1]"
    failure.click()
    number = int(label.split()[1])
    page.wait_for_function(
        "(n) => document.querySelector('#sentence-panel > h2')?.textContent.trim()"
        ".startsWith(`Sentence ${n} `)", arg=number)
    row = page.evaluate(SELECTED_ROW)
    assert row is not None and row["index"] == number - 1 and row["seen"], row
