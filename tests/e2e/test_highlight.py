"""The PDF highlight on the real review page at 1280x720, as a reviewer sees it:
its tags never hide a word of the source, and the first click on a sentence
shows its highlight without the viewer loading first (the cited pages were
made ready while the page was idle)."""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from reviewer.demo import notice_letter_original
from reviewer.models import Answer, Document
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

VIEWPORT = {"width": 1280, "height": 720}

# Each tag drawn on a page (labels and "continues on page N" cues), with the
# words of pdf.js's text layer on that page whose boxes it overlaps.
TAGS_OVER_WORDS = """() => [...document.querySelectorAll('#pdf-viewer .cg-tag')].map(tag => {
  const page = tag.closest('.page');
  const t = tag.getBoundingClientRect();
  const words = [...page.querySelectorAll('.textLayer span')].filter(span => {
    const r = span.getBoundingClientRect();
    return span.textContent.trim() && r.width > 0 && r.height > 0
      && r.left < t.right && t.left < r.right && r.top < t.bottom && t.top < r.bottom;
  });
  return {tag: tag.textContent, page: Number(page.dataset.pageNumber),
          box: [t.left, t.top, t.width, t.height].map(Math.round),
          words: words.map(span => span.textContent)};
})"""

# Every highlighted page has its tags and its text layer.
TAGS_AND_TEXT_READY = """() => {
  const pages = [...document.querySelectorAll('#pdf-viewer .page')]
    .filter(p => p.querySelector(':scope > .cg-highlight'));
  return pages.length > 0 && document.querySelector('#pdf-viewer .cg-tag-label')
    && pages.every(p => p.querySelector('.textLayer span'));
}"""


def _base(page: Any) -> str:
    return page.url.split("/answers")[0]


def test_highlight_tags_never_cover_the_words_of_the_source(page: Any) -> None:
    page.set_viewport_size(VIEWPORT)
    seen = 0
    covering = []
    for answer in Answer.objects.order_by("pk"):
        for sentence in answer.sentences.all():
            if not sentence.citations.exists():
                continue
            if (Document.objects.filter(pk__in=sentence.citations.values("document"))
                    .exclude(ocr_pages=[]).exists()):
                continue  # a scan has no text layer to measure by: the next test
            page.goto(f"{_base(page)}/answers/{answer.pk}/?sentence={sentence.index}")
            if page.locator(".viewer-frame").is_hidden():
                continue  # no PDF for this citation (a fabricated marker, a pasted source)
            page.wait_for_function(TAGS_AND_TEXT_READY)
            page.wait_for_timeout(150)  # pdf.js settles the scroll; tags follow the redraw
            for tag in page.evaluate(TAGS_OVER_WORDS):
                seen += 1
                if tag["words"]:
                    covering.append((answer.external_id, sentence.index, tag))
    assert seen >= 20, seen  # labels and "continues on page N" cues of every demo PDF passage
    assert not covering, f"tags drawn over the source's words: {covering}"


# Each tag on a page, in CSS pixels from the top-left of the page's canvas,
# and the canvas's width (the page's width in points times the zoom).
TAGS_ON_CANVAS = """() => [...document.querySelectorAll('#pdf-viewer .cg-tag')].map(tag => {
  const page = tag.closest('.page');
  const canvas = page.querySelector('.canvasWrapper').getBoundingClientRect();
  const t = tag.getBoundingClientRect();
  return {tag: tag.textContent, page: Number(page.dataset.pageNumber), width: canvas.width,
          box: [t.left - canvas.left, t.top - canvas.top, t.right - canvas.left,
                t.bottom - canvas.top]};
})"""


@pytest.mark.demo_scan  # the demo letter, read by OCR
def test_highlight_tags_on_a_scan_never_cover_its_printed_words(page: Any) -> None:
    """A scan has no text layer, so the words the tags must keep off are the
    ones the scan was printed from: the demo letter's typed original."""
    original = notice_letter_original()
    words = [tuple(w[:4]) for w in original[0].get_text("words")]
    page_width = original[0].rect.width
    original.close()
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-scanned-letter")
    seen, covering = 0, []
    for sentence in answer.sentences.all():
        if not sentence.citations.exists():
            continue
        page.goto(f"{_base(page)}/answers/{answer.pk}/?sentence={sentence.index}")
        page.wait_for_selector("#pdf-viewer .page .cg-tag-label")
        page.wait_for_timeout(150)  # pdf.js settles the scroll; tags follow the redraw
        for tag in page.evaluate(TAGS_ON_CANVAS):
            seen += 1
            scale = tag["width"] / page_width
            left, top, right, bottom = (v / scale for v in tag["box"])
            under = [w for w in words
                     if w[0] < right and left < w[2] and w[1] < bottom and top < w[3]]
            if under:
                covering.append((sentence.index, tag["tag"], under))
    assert seen >= 1, seen
    assert not covering, f"tags drawn over the scan's printed words: {covering}"


def test_the_first_click_shows_its_highlight_without_the_viewer_loading(page: Any) -> None:
    page.set_viewport_size(VIEWPORT)
    answer = Answer.objects.get(external_id="demo-benefits-mixed")
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.wait_for_load_state("networkidle")
    # The viewer says when the cited pages are ready; older code never does
    # (the assertions below say what the reader sees either way).
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_selector("#pdf-viewer[data-prefetched]", state="attached", timeout=5000)
    # Record whatever the viewer shows from the click on.
    page.evaluate("""() => {
      window.shown = [];
      const record = () => {
        const message = document.querySelector('#pdf-viewer .cg-viewer-message');
        if (message && !message.hidden && message.textContent.trim()) {
          window.shown.push(message.textContent.trim());
        }
      };
      new MutationObserver(record).observe(document.body,
        {subtree: true, childList: true, attributes: true, characterData: true});
    }""")
    sentence = next(s for s in answer.sentences.all() if s.status == "quote-altered")
    page.click(f"#sentence-{sentence.index} a.sentence-open")
    page.wait_for_function("""() => [...document.querySelectorAll('#pdf-viewer .cg-highlight')]
      .some(box => box.closest('.page').querySelector('canvas'))""")
    assert page.evaluate("window.shown") == []
    assert page.locator("#pdf-viewer .cg-highlight").first.is_visible()
