"""Answers written in Markdown, in a real browser: rendered (headings, lists,
emphasis) with their markers and keys working; hostile HTML and links inert."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Answer, CitationVerdict
from reviewer.services.answers import answer_submit
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

PLAN = ("Section 2. Retirement savings\nThe employer matches 100% of the first 4% of salary "
        "that you contribute. Employer match vests after two years of service. Your own "
        "contributions are always fully vested and cannot be forfeited.")


def _submit(external_id: str, answer: str, question: str = "What does the plan say?") -> Answer:
    return answer_submit(client=None, data={
        "id": external_id, "surface": "benefits-chat", "question": question, "answer": answer,
        "sources": [{"marker": "S1", "text": PLAN}]}).answer


def _open(page: Any, answer: Answer) -> None:
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.wait_for_selector("ol.sentences li.sentence")


def test_a_markdown_answer_is_rendered_with_markers_and_keys_working(page: Any) -> None:
    answer = _submit("e2e-markdown", (
        "## Retirement savings\n"
        'The plan is *generous*: the employer "matches 100% of the first 4% of salary that '
        'you contribute" [S1].\n'
        '- Employer match "vests after two years of service" [S1].\n'
        '- Your own contributions "are always **fully** vested" [S1].\n'))
    _open(page, answer)
    rows = page.locator("li.sentence")
    assert rows.count() == 4
    heading = page.locator("li.sentence .sentence-text.md-h2")
    assert heading.inner_text().strip() == "Retirement savings"  # no "##"
    body = page.locator("#sentence-1 .sentence-text")
    size = "(el) => parseFloat(getComputedStyle(el).fontSize)"
    assert heading.evaluate(size) > body.evaluate(size)
    assert heading.evaluate("(el) => Number(getComputedStyle(el).fontWeight)") >= 600
    emphasis = page.locator("#sentence-1 .sentence-text em")
    assert emphasis.inner_text() == "generous"
    assert emphasis.evaluate("(el) => getComputedStyle(el).fontStyle") == "italic"
    items = page.locator("li.sentence .sentence-text.md-li")
    assert items.count() == 2
    assert items.first.locator(".md-bullet").inner_text() == "•"
    assert "- " not in items.first.inner_text()
    # Emphasis inside a quote is the quote's words as written (the asterisks
    # are part of what was quoted), and the quote is still marked.
    assert page.locator("#sentence-3 mark.quote").count() == 1

    # A marker inside a list item opens its citation.
    citation = CitationVerdict.objects.get(answer=answer, quote__startswith="vests after")
    page.click(f"#sentence-2 a.marker[href='?citation={citation.pk}']")
    page.wait_for_url(f"**citation={citation.pk}")
    page.wait_for_selector("#sentence-panel .citation-list li.selected")
    assert page.locator("#sentence-panel h2").inner_text().startswith("Sentence 3")

    # j/k move over the rendered rows, the heading included.
    page.locator("body").click(position={"x": 5, "y": 5})
    page.keyboard.press("k")
    page.keyboard.press("k")
    page.keyboard.press("k")
    assert page.locator("li.sentence.selected").get_attribute("data-index") == "0"
    page.keyboard.press("j")
    page.keyboard.press("j")
    page.keyboard.press("j")
    assert page.locator("li.sentence.selected").get_attribute("data-index") == "3"


HOSTILE = (
    '<img src=x onerror="window.__pwned = \'img\'"> The plan "matches 100% of the first 4% of '
    'salary that you contribute" [S1]. '
    "<script>window.__pwned = 'script'</script> Employer match "
    '"vests after two years of service" [S1]. '
    "See [the details](javascript:window.__pwned='link') and "
    "[more](JaVaScRiPt:window.__pwned='mixed-case') before you decide [S1]. "
    '<a href="#" onclick="window.__pwned = \'onclick\'">Click here</a> for *your* '
    "contributions [S1]. "
    "<svg onload=\"window.__pwned = 'svg'\"></svg><iframe src=\"javascript:window.__pwned="
    "'iframe'\"></iframe> Done [S1]."
)


def test_hostile_markup_in_a_markdown_answer_executes_nothing(page: Any) -> None:
    answer = _submit("e2e-hostile-markdown", HOSTILE,
                     question="<img src=x onerror=\"window.__pwned='question'\">?")
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    _open(page, answer)
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None
    sentences = page.locator("ol.sentences")
    for tag in ("script", "img", "svg", "iframe", "object", "embed"):
        assert sentences.locator(tag).count() == 0, tag
    # Nowhere on the page (question, panel, sentences) is the payload an element.
    assert page.evaluate("[...document.querySelectorAll('script, img, svg, iframe')].filter("
                         "el => el.outerHTML.includes('__pwned')).length") == 0
    assert page.evaluate(
        "[...document.querySelectorAll('*')].filter(el => [...el.attributes].some("
        "a => a.name.startsWith('on'))).length") == 0
    # Every link in the answer goes to a citation, a sentence or http(s)/mailto.
    hrefs = page.evaluate("[...document.querySelectorAll('ol.sentences a')].map(a => "
                          "a.getAttribute('href'))")
    assert hrefs and all(h and (h.startswith(("?citation=", "?sentence=", "http:", "https:",
                                              "mailto:"))) for h in hrefs), hrefs
    # The markup shows as text, where the reviewer can see what the model wrote.
    text = sentences.inner_text()
    assert "<script>window.__pwned = 'script'</script>" in text
    assert '<img src=x onerror="window.__pwned = \'img\'">' in text
    assert "javascript:" not in page.evaluate(
        "[...document.querySelectorAll('a')].map(a => a.href).join(' ')").lower()

    # Clicking every link in the answer (and the sentences) runs nothing either.
    for index in range(sentences.locator("li.sentence").count()):
        row = page.locator(f"#sentence-{index}")
        for link in row.locator(".sentence-text a:not(.marker)").all():
            link.click()
        row.locator("a.sentence-open").click()
        page.wait_for_selector("#sentence-panel h2")
    page.wait_for_timeout(300)
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
    # The panel shows the sentence as text too.
    assert page.locator("#sentence-panel script, #sentence-panel img").count() == 0
