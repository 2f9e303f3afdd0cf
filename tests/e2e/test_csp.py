"""The Content-Security-Policy in a real browser: the review page with a
highlight (htmx swap, pdf.js and its worker) and the document page draw
everything they did before, and Chromium reports no violation."""

from __future__ import annotations

from typing import Any

import pytest

from reviewer.models import Answer, CitationVerdict, Document
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

# Violations of the page and of anything it starts, kept across navigations.
RECORD = """document.addEventListener("securitypolicyviolation", (e) => {
  console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}`);
});"""


def _watch(page: Any) -> list[str]:
    seen: list[str] = []

    def on_console(message: Any) -> None:
        text = message.text
        if "Content Security Policy" in text or "CSP violation" in text:
            seen.append(text)

    page.on("console", on_console)
    page.on("pageerror", lambda error: seen.append(f"page error: {error}"))
    page.on("worker", lambda worker: worker.on(
        "console", lambda message: on_console(message)))
    page.context.add_init_script(RECORD)
    return seen


def test_review_and_document_pages_run_under_the_policy_with_no_violation(
    csp_page: Any,
) -> None:
    page = csp_page  # string expressions would be eval: every one below is a function
    violations = _watch(page)
    base = page.url.split("/answers")[0]
    answer = Answer.objects.get(external_id="demo-benefits-vesting")
    citation = CitationVerdict.objects.filter(
        answer=answer, outcome="verified", quote__startswith="Employer match").get()

    response = page.goto(f"{base}/answers/{answer.pk}/")
    policy = response.headers["content-security-policy"]
    assert "script-src 'self' 'nonce-" in policy and "'wasm-unsafe-eval'" in policy
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    # The sentence panel arrives by htmx; the viewer (pdf.js, its worker) draws
    # the page and the highlight over the quote.
    page.click(f"#sentence-{citation.sentence.index} a.sentence-open")
    count = sum(len(p["rects"]) for p in citation.pages)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#pdf-viewer .cg-highlight').length === n", arg=count)
    page.wait_for_function("() => document.querySelector('#pdf-viewer .page canvas') !== null")
    box = page.locator("#pdf-viewer .cg-highlight").first.bounding_box()
    assert box and box["width"] > 10 and box["height"] > 5
    # htmx's indicator style was admitted by its nonce (else it is refused).
    assert page.evaluate("() => document.querySelectorAll('head style').length") >= 1

    document = Document.objects.get(pk=citation.document_id)
    page.goto(f"{base}/documents/{document.pk}/")
    page.wait_for_function(
        "() => Number(document.querySelector('#pdf-viewer').dataset.renderedPages || 0) >= 1")
    height = page.evaluate(
        "() => document.querySelector('#pdf-viewer').getBoundingClientRect().height")
    assert height == pytest.approx(0.75 * 900, abs=2)  # its class, not a style attribute
    page.wait_for_timeout(300)  # a late violation (a worker, a font) still reaches the console

    assert violations == []
