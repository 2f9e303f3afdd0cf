"""The review page in a real browser: click a sentence, see the highlight
where the located rectangles say, across page breaks, after zoom; keys and
decisions; hostile answers stay inert."""

from __future__ import annotations

import os
from typing import Any

import pytest

from reviewer.models import Answer, CitationVerdict, Page, ReviewDecision
from tests.figures import figure
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

TOLERANCE_PX = 3.0

# Each overlay and the drawing area of the page it sits on (the page div inside
# its border: pdf.js's viewport for that page), in CSS pixels.
MEASURE = """() => [...document.querySelectorAll('#pdf-viewer .cg-highlight')].map(o => {
  const page = o.closest('.page');
  const p = page.getBoundingClientRect(), b = o.getBoundingClientRect();
  return {page: Number(page.dataset.pageNumber), canvas: {left: p.left + page.clientLeft,
          top: p.top + page.clientTop, width: page.clientWidth, height: page.clientHeight},
          box: {left: b.left, top: b.top, width: b.width, height: b.height}};
})"""


def _answer(external_id: str) -> Answer:
    return Answer.objects.get(external_id=external_id)


def _expected_boxes(citation: CitationVerdict, overlays: list[dict[str, Any]]
                    ) -> list[tuple[float, float, float, float, float, float, float, float]]:
    """(expected left, top, right, bottom; seen left, top, right, bottom) per rect:
    the located rectangle (PDF points, top-left of the displayed page) scaled by
    the page's size in CSS pixels over its size in points."""
    pairs = []
    for entry in citation.pages:
        page = Page.objects.get(document_id=citation.document_id, number=entry["page"])
        seen = [o for o in overlays if o["page"] == entry["page"]]
        assert len(seen) == len(entry["rects"]), (entry, seen)
        for (x0, y0, x1, y1), overlay in zip(entry["rects"], seen, strict=True):
            canvas, box = overlay["canvas"], overlay["box"]
            scale = canvas["width"] / page.width
            assert canvas["height"] / page.height == pytest.approx(scale, rel=0.01)
            pairs.append((canvas["left"] + x0 * scale, canvas["top"] + y0 * scale,
                          canvas["left"] + x1 * scale, canvas["top"] + y1 * scale,
                          box["left"], box["top"], box["left"] + box["width"],
                          box["top"] + box["height"]))
    return pairs


def _assert_aligned(page: Any, citation: CitationVerdict) -> None:
    overlays = page.evaluate(MEASURE)
    for ex0, ey0, ex1, ey1, sx0, sy0, sx1, sy1 in _expected_boxes(citation, overlays):
        assert abs(ex0 - sx0) <= TOLERANCE_PX and abs(ex1 - sx1) <= TOLERANCE_PX
        assert abs(ey0 - sy0) <= TOLERANCE_PX and abs(ey1 - sy1) <= TOLERANCE_PX


def _open_sentence(page: Any, answer: Answer, citation: CitationVerdict) -> None:
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.click(f"#sentence-{citation.sentence.index} a.sentence-open")
    count = sum(len(p["rects"]) for p in citation.pages)
    page.wait_for_function(
        "(n) => document.querySelectorAll('#pdf-viewer .cg-highlight').length === n", arg=count)


def test_clicking_a_verified_sentence_shows_its_page_with_the_highlight_on_the_quote(
    page: Any,
) -> None:
    answer = _answer("demo-benefits-vesting")
    citation = CitationVerdict.objects.filter(
        answer=answer, outcome="verified", quote__startswith="Employer match").get()
    _open_sentence(page, answer, citation)
    assert "?sentence=" in page.url  # the panel's address is in the history
    assert page.locator("#sentence-panel .badge").first.inner_text().strip() == "✓ verified"
    expected_page = citation.pages[0]["page"]
    page.wait_for_function(f"document.querySelector('#pdf-viewer').dataset.currentPage == "
                           f"'{expected_page}'")
    _assert_aligned(page, citation)
    # The highlight is on screen, inside the viewer's visible area.
    viewer_box = page.locator("#pdf-viewer").bounding_box()
    first = page.locator("#pdf-viewer .cg-highlight").first.bounding_box()
    assert viewer_box["y"] <= first["y"] <= viewer_box["y"] + viewer_box["height"]
    page.screenshot(path="/tmp/review-verified.png")

    # Zoom in: pdf.js re-renders the page; the overlays follow.
    before = page.evaluate(MEASURE)[0]["canvas"]["width"]
    page.click(".viewer-toolbar [data-zoom=in]")
    page.wait_for_function(
        f"(() => {{ const c = document.querySelector('#pdf-viewer .page[data-page-number="
        f"\"{expected_page}\"] canvas'); return c && c.getBoundingClientRect().width > "
        f"{before} * 1.1 && document.querySelectorAll('#pdf-viewer .cg-highlight').length; }})()")
    page.wait_for_timeout(300)
    _assert_aligned(page, citation)


def test_a_quote_across_a_page_break_is_highlighted_on_both_pages(page: Any) -> None:
    answer = _answer("demo-benefits-vesting")
    citation = CitationVerdict.objects.get(answer=answer, quote__startswith="Up to five")
    assert [p["page"] for p in citation.pages] == [1, 2]
    _open_sentence(page, answer, citation)
    pages = {o["page"] for o in page.evaluate(MEASURE)}
    assert pages == {1, 2}
    _assert_aligned(page, citation)


def test_keyboard_navigation_and_a_decision(page: Any) -> None:
    answer = _answer("demo-benefits-mixed")
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.keyboard.press("j")
    assert page.locator("li.sentence.selected").get_attribute("data-index") == "0"
    page.keyboard.press("j")
    page.keyboard.press("k")
    assert page.locator("li.sentence.selected").get_attribute("data-index") == "0"
    page.keyboard.press("n")  # the next failing sentence, opened
    selected = page.locator("li.sentence.selected")
    assert "failing" in (selected.get_attribute("class") or "")
    page.wait_for_selector("#sentence-panel .citation-list")
    page.keyboard.press("?")
    assert page.locator("#keys-help").is_visible()
    page.keyboard.press("Escape")
    page.fill("#decision-note", "Dental quote drops the 'not'")
    page.locator("#decision-note").blur()
    page.keyboard.press("r")
    page.wait_for_selector("#decisions .review-state:has-text('Rejected')")
    assert "Dental quote drops the" in page.locator("#decisions").inner_text()
    decision = ReviewDecision.objects.get(answer=answer)
    assert (decision.decision, decision.reviewer.get_username()) == ("reject", "demo")


def test_hostile_html_in_an_answer_renders_inert(page: Any) -> None:
    answer = _answer("demo-hostile")
    dialogs: list[str] = []
    requests: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.click("#sentence-0 a.sentence-open")
    page.wait_for_selector("#sentence-panel .citation-list")
    page.wait_for_timeout(500)
    assert dialogs == []
    assert not [url for url in requests if url.rstrip("/").endswith("/x")]
    text = page.locator("#sentence-0 .sentence-text").inner_text()
    assert "<script>alert('xss')</script>" in text and '<img src=x onerror="alert(1)">' in text
    assert page.locator("li.sentence img").count() == 0
    assert page.locator("li.sentence script").count() == 0


SCREENSHOT_SIZE = {"width": 1280, "height": 720}


def _scanned_answer(folder: Any) -> tuple[Answer, CitationVerdict]:
    """A scanned PDF (each page a picture under an invisible OCR layer; page 3
    a CCITT fax picture) ingested, and an answer quoting its fax page."""
    from reviewer.services.answers import answer_submit
    from reviewer.services.documents import document_ingest, document_upload
    from tests.browser.pdfs import build_scanned, scan_target_text

    path = folder / "scanned-lease.pdf"
    build_scanned(path)
    uploaded = document_upload(data=path.read_bytes(), filename="scanned-lease.pdf",
                               title="Scanned lease (fax, OCR layer)")
    document = document_ingest(document_id=uploaded.document.pk)
    assert document.status == "ready", document.error
    quote = scan_target_text("ccitt").rstrip(".")
    submitted = answer_submit(client=None, data={
        "id": "screenshot-scanned", "surface": "legal-review",
        "question": "How must notice be given under the lease?",
        "answer": f'The lease says: "{quote}" [S1].',
        "sources": [{"marker": "S1", "document": document.pk}]})
    citation = CitationVerdict.objects.get(answer=submitted.answer)
    assert citation.outcome == "verified" and [p["page"] for p in citation.pages] == [3]
    return submitted.answer, citation


def _shoot(page: Any, folder: str, name: str) -> None:
    page.wait_for_timeout(400)
    page.screenshot(path=f"{folder}/{name}")


@pytest.mark.demo_scan
@pytest.mark.docs_screenshots
def test_review_screenshots_for_the_docs(page: Any, tmp_path: Any) -> None:
    """Keeps the README's screenshots reproducible, at 1280x720:
    CITEGUARD_SCREENSHOTS=docs writes them there (bin/screenshots); otherwise
    they go to a temp folder."""
    folder = os.environ.get("CITEGUARD_SCREENSHOTS") or str(tmp_path)
    page.set_viewport_size(SCREENSHOT_SIZE)
    shots = [("demo-benefits-mixed", "Dental cover", "review-altered.png"),
             ("demo-benefits-vesting", "Up to five", "review-page-break.png")]
    for external_id, quote, name in shots:
        answer = _answer(external_id)
        citation = CitationVerdict.objects.get(answer=answer, quote__contains=quote)
        _open_sentence(page, answer, citation)
        _shoot(page, folder, name)

    # A quote not found: its closest passage in the panel and in the PDF.
    answer = _answer("demo-contract")
    citation = CitationVerdict.objects.get(answer=answer, outcome="quote-not-found")
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.click(f"#sentence-{citation.sentence.index} a.marker")
    page.wait_for_selector("#sentence-panel .passage-closest")
    page.wait_for_function("document.querySelectorAll('#pdf-viewer .cg-outcome-closest')"
                           ".length > 0")
    _shoot(page, folder, "review-closest.png")

    # A paraphrase: its likely passage in its own style, the changed number
    # named on both sides.
    answer = _answer("demo-benefits-paraphrased")
    citation = CitationVerdict.objects.get(answer=answer, outcome="claim-mismatch")
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.click(f"#sentence-{citation.sentence.index} .sentence-text", position={"x": 8, "y": 8})
    page.locator("#sentence-panel .findings").wait_for()
    page.wait_for_function("document.querySelector('#pdf-viewer .cg-outcome-likely')")
    _shoot(page, folder, "review-paraphrased.png")

    # A scanned page: the picture rendered, the highlight on its printed line.
    answer, citation = _scanned_answer(tmp_path)
    _open_sentence(page, answer, citation)
    page.wait_for_function("document.querySelector('#pdf-viewer').dataset.currentPage === '3'")
    _shoot(page, folder, "review-scanned.png")

    # Approving with failures unopened: the confirmation.
    answer = _answer("demo-benefits-mixed")
    page.goto(f"{page.url.split('/answers')[0]}/answers/{answer.pk}/")
    page.keyboard.press("n")
    page.wait_for_selector("#sentence-panel .citation-list")
    page.wait_for_function("document.querySelector('#pdf-viewer .cg-highlight')")
    page.keyboard.press("a")
    assert page.locator("#confirm-approve").is_visible()
    _shoot(page, folder, "review-confirm.png")
    page.keyboard.press("Escape")

    for name in ("review-altered.png", "review-page-break.png", "review-closest.png",
                 "review-paraphrased.png", "review-scanned.png", "review-confirm.png"):
        assert os.path.getsize(f"{folder}/{name}") > 10_000, name


@pytest.mark.parametrize("size", [(1280, 720), (1024, 768)], ids=["1280x720", "1024x768"])
def test_room_to_read(page: Any, size: tuple[int, int]) -> None:
    """At laptop sizes the viewer gets most of the height, with the page
    indicator, the passage and its "continues on page 2" cue in view; going to
    a page, open/download and the legend are there. The evidence panel's time to
    appear after a click, once the PDF is open, is measured and printed."""
    width, height = size
    page.set_viewport_size({"width": width, "height": height})
    answer = _answer("demo-benefits-vesting")
    citation = CitationVerdict.objects.get(answer=answer, quote__startswith="Up to five")
    _open_sentence(page, answer, citation)
    page.wait_for_function("document.querySelector('#pdf-viewer .cg-highlight-first')")
    page.wait_for_timeout(300)
    page.screenshot(path=f"/tmp/review-{width}x{height}.png")

    viewer = page.locator("#pdf-viewer").bounding_box()
    assert viewer["height"] >= 0.5 * height, viewer
    assert viewer["y"] + viewer["height"] <= height + 1  # nothing cut off below the window
    # The first highlight box is fully inside the visible viewer.
    first = page.locator("#pdf-viewer .cg-highlight-first").bounding_box()
    bottom, right = viewer["y"] + viewer["height"], viewer["x"] + viewer["width"]
    assert viewer["y"] <= first["y"] and first["y"] + first["height"] <= bottom
    assert viewer["x"] <= first["x"] and first["x"] + first["width"] <= right
    pages = Page.objects.filter(document_id=citation.document_id).count()
    pager = page.locator(".viewer-toolbar .cg-pager")
    assert pager.is_visible()
    assert " ".join(pager.inner_text().split()) == f"page of {pages}"
    assert page.locator(".cg-page-input").input_value() == "1"
    assert page.locator(".cg-passage").inner_text() == "passage: pages 1–2"
    cue = page.locator("#pdf-viewer .cg-continues")
    assert cue.inner_text() == "continues on page 2 ↓"
    legend = page.locator(".viewer-toolbar .cg-legend li")
    assert legend.count() == 5 and "closest passage — not a match" in legend.last.inner_text()
    assert "likely passage" in legend.nth(3).inner_text()
    assert legend.first.is_visible() and legend.last.is_visible()
    file_url = page.evaluate("document.querySelector('#pdf-viewer') && "
                             "new URL(document.querySelector('.cg-open').href).pathname")
    assert file_url == f"/documents/{citation.document_id}/file", file_url
    download = page.locator(".viewer-toolbar a.cg-download")
    assert download.get_attribute("download", timeout=1000).endswith(".pdf")

    # The cue scrolls to the rest of the passage; the page box follows.
    cue.click()
    page.wait_for_function("document.querySelector('#pdf-viewer').dataset.currentPage === '2'")
    assert page.locator(".cg-page-input").input_value() == "2"
    # Go to a page by number.
    page.fill(".cg-page-input", "1")
    page.press(".cg-page-input", "Enter")
    page.wait_for_function("document.querySelector('#pdf-viewer').dataset.currentPage === '1'")

    # "Fit passage" brings the whole passage (its part on page 1) into view,
    # zoomed to fill the width; zooming in from there keeps it in view.
    def passage_in_view() -> None:
        for box in page.evaluate(MEASURE):
            if box["page"] != 1:
                continue
            b = box["box"]
            assert bottom + 1 >= b["top"] + b["height"] and b["top"] >= viewer["y"] - 1, b
            assert right + 1 >= b["left"] + b["width"] and b["left"] >= viewer["x"] - 1, b

    page.click(".viewer-toolbar [data-zoom=fit]")
    page.wait_for_timeout(300)
    passage_in_view()
    fitted = page.evaluate(MEASURE)[0]["canvas"]["width"]
    page.click(".viewer-toolbar [data-zoom=out]")
    page.click(".viewer-toolbar [data-zoom=in]")
    page.wait_for_timeout(300)
    assert page.evaluate(MEASURE)[0]["canvas"]["width"] == pytest.approx(fitted, rel=0.02)
    passage_in_view()

    # With the PDF open, click another sentence of the same document: the
    # evidence panel's swap and the highlight drawn, in ms after the click.
    other = CitationVerdict.objects.filter(answer=answer, document_id=citation.document_id) \
        .exclude(pk=citation.pk).exclude(pages=[]).first()
    assert other is not None
    timings = page.evaluate(
        """(index) => new Promise((resolve) => {
            const t0 = performance.now();
            let swapped = null;
            document.body.addEventListener("htmx:afterSwap", () => {
                swapped ??= performance.now() - t0;
            }, {once: true});
            const before = document.querySelector('#pdf-viewer .cg-highlight-first');
            document.querySelector(`#sentence-${index} a.sentence-open`).click();
            const poll = () => {
                const now = document.querySelector('#pdf-viewer .cg-highlight-first');
                if (swapped !== null && now && now !== before) {
                    resolve({panel_ms: swapped, highlight_ms: performance.now() - t0});
                } else {
                    setTimeout(poll, 5);
                }
            };
            poll();
        })""",
        other.sentence.index,
    )
    figure(f"\n{width}x{height}: evidence panel {timings['panel_ms']:.0f} ms after the click, "
          f"highlight drawn {timings['highlight_ms']:.0f} ms (PDF already open)")
