"""Evidence for failures on the real review page, in a real browser: the
closest passage of a not-found quote drawn over the PDF's own words, both
passages of a wrong-source citation, and each outcome in its own style."""

from __future__ import annotations

from typing import Any

import pymupdf
import pytest

from reviewer.models import Answer, Chunk, CitationVerdict, Document, Page
from reviewer.services.answers import answer_submit
from tests.figures import figure
from tests.once import BROWSER_ONLY

pytestmark = [BROWSER_ONLY, pytest.mark.django_db(transaction=True)]

TOLERANCE_PX = 3.0

# Each drawn highlight: its outcome, label, page and box, and the drawing area
# of its page (the page div inside its border), in CSS pixels.
OVERLAYS = """() => [...document.querySelectorAll('#pdf-viewer .cg-highlight')].map(o => {
  const page = o.closest('.page');
  const p = page.getBoundingClientRect(), b = o.getBoundingClientRect();
  const style = getComputedStyle(o);
  return {outcome: o.dataset.outcome, title: o.title, page: Number(page.dataset.pageNumber),
          outline: style.outlineStyle, outlineWidth: parseFloat(style.outlineWidth),
          color: style.outlineColor, pattern: style.backgroundImage,
          canvas: {left: p.left + page.clientLeft, top: p.top + page.clientTop,
                   width: page.clientWidth, height: page.clientHeight},
          box: {left: b.left, top: b.top, width: b.width, height: b.height}};
})"""

LABELS = "() => [...document.querySelectorAll('#pdf-viewer .cg-tag-label')].map(t => t.textContent)"

# An answer whose quote is close to, but not in, the first passage of the
# benefits plan's first chunk ("Employees become eligible for the retirement
# plan on the first day of the month after 30 days of service").
NEAR_QUOTE = ("Employees become eligible for the pension on the first day of the quarter "
              "after 90 days of service")


def _base(page: Any) -> str:
    return page.url.split("/answers")[0]


# What the viewer did, when a wait runs out: its marks (open, document-ready,
# highlight-placed…), the boxes drawn by outcome and page, and its state. One
# run in a few dozen timed out here after a switch of PDFs; this says where.
VIEWER_STATE = """() => ({
  marks: performance.getEntriesByType('mark').filter(m => m.name.startsWith('citeguard-viewer:'))
    .map(m => `${Math.round(m.startTime)} ${m.name.slice(17)} ${JSON.stringify(m.detail ?? '')}`),
  drawn: [...document.querySelectorAll('#pdf-viewer .cg-highlight')]
    .map(o => `${o.dataset.outcome}@${o.closest('.page')?.dataset.pageNumber}`),
  viewer: {...document.querySelector('#pdf-viewer').dataset},
  status: document.querySelector('#pdf-viewer').innerText.slice(0, 200),
})"""


def _wait_for_group(page: Any, outcome: str, count: int) -> list[dict[str, Any]]:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(
            "([o, n]) => document.querySelectorAll(`#pdf-viewer .cg-highlight.cg-outcome-${o}`)"
            ".length === n", arg=[outcome, count])
    except PlaywrightTimeout as error:
        raise AssertionError(f"{count} '{outcome}' boxes were not drawn: "
                             f"{page.evaluate(VIEWER_STATE)}") from error
    page.wait_for_timeout(200)  # let pdf.js settle the scroll before measuring
    return [o for o in page.evaluate(OVERLAYS) if o["outcome"] == outcome]


def _assert_over(overlays: list[dict[str, Any]], document: Document,
                 located: list[dict[str, Any]]) -> list[str]:
    """Each drawn box matches its located rectangle (scaled from PDF points to
    the page's CSS pixels) and covers the PDF's own word boxes (PyMuPDF) under
    it: it starts where the first word whose centre it holds starts and ends
    inside the last one. Returns those words, in order."""
    words_seen: list[str] = []
    with pymupdf.open(document.file.path) as pdf:
        for entry in located:
            row = Page.objects.get(document=document, number=entry["page"])
            words = pdf[entry["page"] - 1].get_text("words", sort=True)
            drawn = [o for o in overlays if o["page"] == entry["page"]]
            assert len(drawn) == len(entry["rects"]), (entry, drawn)
            for (x0, y0, x1, y1), overlay in zip(entry["rects"], drawn, strict=True):
                canvas, box = overlay["canvas"], overlay["box"]
                scale = canvas["width"] / row.width
                left, top = box["left"] - canvas["left"], box["top"] - canvas["top"]
                right, bottom = left + box["width"], top + box["height"]
                for want, got in ((x0, left), (y0, top), (x1, right), (y1, bottom)):
                    assert abs(want * scale - got) <= TOLERANCE_PX, (entry, overlay)
                inside = [w for w in words
                          if left <= (w[0] + w[2]) / 2 * scale <= right
                          and top <= (w[1] + w[3]) / 2 * scale <= bottom]
                assert inside, f"no word of page {entry['page']} under {overlay['box']}"
                assert abs(min(w[0] for w in inside) * scale - left) <= TOLERANCE_PX
                # The passage may stop inside the last word ("service" of "service."):
                # located per character, the box ends within that word's box.
                last = max(inside, key=lambda w: w[2])
                assert last[0] * scale < right <= last[2] * scale + TOLERANCE_PX
                assert min(w[1] for w in inside) * scale >= top - TOLERANCE_PX
                assert max(w[3] for w in inside) * scale <= bottom + TOLERANCE_PX
                words_seen += [w[4] for w in inside]
    return words_seen


def test_a_not_found_quote_shows_its_closest_passage_highlighted_over_its_words(
    page: Any,
) -> None:
    document = Document.objects.get(document_key="demo/benefits-plan-summary")
    chunk = Chunk.objects.filter(document=document).order_by("start").first()
    assert chunk is not None
    submitted = answer_submit(client=None, data={
        "id": "e2e-closest", "surface": "benefits-chat",
        "answer": f'The plan says "{NEAR_QUOTE}" [S1].',
        "sources": [{"marker": "S1", "chunk": chunk.pk}]})
    citation = CitationVerdict.objects.get(answer=submitted.answer)
    assert citation.outcome == "quote-not-found"
    assert citation.closest_score is not None and 0.6 < citation.closest_score < 0.92
    passage = chunk.text[citation.closest_start:citation.closest_end]
    assert passage.startswith("Employees become eligible for the retirement plan")

    page.goto(f"{_base(page)}/answers/{submitted.answer.pk}/")
    page.click("#sentence-0 a.marker")
    panel = page.locator("#sentence-panel .passage-closest")
    panel.wait_for()
    assert panel.locator("h3").inner_text() == "closest passage — not a match in [S1]"
    assert f"Best similarity {citation.closest_score:.3f}, below the threshold" in (
        panel.locator(".passage-score").inner_text())
    # The diff: the source's words struck out, the quote's put in.
    deleted = panel.locator(".diff del").all_inner_texts()
    inserted = panel.locator(".diff ins").all_inner_texts()
    assert deleted == ["retirement", "plan", "month", "30"], deleted
    assert inserted == ["pension", "quarter", "90"], inserted
    assert " ".join(panel.locator("mark.closest").inner_text().split()) == " ".join(
        passage.split())
    # Not offered as a second passage: there is no match to switch to.
    assert panel.locator("a.open-passage").count() == 0

    count = sum(len(p["rects"]) for p in citation.closest_pages)
    overlays = _wait_for_group(page, "closest", count)
    assert page.evaluate("document.querySelector('#pdf-viewer').dataset.currentPage") == str(
        citation.closest_pages[0]["page"])
    assert all(o["title"] == "closest passage — not a match" for o in overlays)
    assert page.evaluate(LABELS) == ["closest passage — not a match"]
    # Drawn as "closest" in more than colour: a dotted outline and a pattern.
    assert {o["outline"] for o in overlays} == {"dotted"}
    assert all("gradient" in o["pattern"] for o in overlays)
    words = _assert_over(overlays, document, citation.closest_pages)
    assert " ".join(words).rstrip(".") == " ".join(passage.split())
    # Nothing else is highlighted: there is no match.
    assert {o["outcome"] for o in page.evaluate(OVERLAYS)} == {"closest"}


def test_a_wrong_source_citation_shows_both_passages_each_in_its_pdf(page: Any) -> None:
    answer = Answer.objects.get(external_id="demo-clinical")
    citation = CitationVerdict.objects.get(answer=answer, outcome="wrong-source")
    assert citation.pages and citation.closest_pages
    sources = {s.marker: s for s in answer.sources.all()}
    match_document = sources[citation.source_marker].document
    closest_document = sources[citation.closest_marker].document
    assert match_document != closest_document  # two PDFs

    page.goto(f"{_base(page)}/answers/{answer.pk}/?citation={citation.pk}")
    links = page.locator("#sentence-panel a.open-passage")
    assert links.all_inner_texts() == ["Show where the quote is in the PDF",
                                       "Show the closest passage in the PDF"]

    def opened() -> str:
        return str(page.evaluate("new URL(document.querySelector('.cg-open').href).pathname"))

    for text, outcome, label, document, located in (
        ("Show the closest passage in the PDF", "closest", "closest passage — not a match",
         closest_document, citation.closest_pages),
        ("Show where the quote is in the PDF", "verified",
         f"where the quote is: [{citation.source_marker}]", match_document, citation.pages),
    ):
        page.click(f"#sentence-panel a.open-passage:has-text('{text}')")
        page.wait_for_url(f"**passage={'closest' if outcome == 'closest' else 'match'}")
        page.wait_for_function(
            "(path) => document.querySelector('.cg-open') && "
            "new URL(document.querySelector('.cg-open').href).pathname === path",
            arg=f"/documents/{document.pk}/file")
        count = sum(len(p["rects"]) for p in located)
        overlays = _wait_for_group(page, outcome, count)
        assert opened() == f"/documents/{document.pk}/file"
        assert page.locator(".viewer-title").inner_text() == document.title
        assert page.evaluate(LABELS) == [label]
        # Only the group of the PDF on show: the other passage is in another file.
        assert len(page.evaluate(OVERLAYS)) == count
        _assert_over(overlays, document, located)


@pytest.mark.parametrize(("external_id", "outcome", "quote", "outline", "label"), [
    ("demo-benefits-vesting", "verified", "Employer match", "solid", "verified"),
    ("demo-benefits-mixed", "verified-fuzzy", "matches 100%", "dashed", "verified (fuzzy)"),
    ("demo-benefits-mixed", "quote-altered", "Dental cover", "solid", "quote altered"),
    ("demo-contract", "closest", "assign this agreement", "dotted",
     "closest passage — not a match"),
], ids=["verified", "fuzzy", "altered", "closest"])
def test_each_outcome_is_drawn_in_its_own_style_on_the_review_page(
    page: Any, external_id: str, outcome: str, quote: str, outline: str, label: str,
) -> None:
    """The review page's groups carry outcomes: the viewer draws each in its
    style (outline, pattern, colour) with its words, not the harness's alone."""
    answer = Answer.objects.get(external_id=external_id)
    citation = CitationVerdict.objects.get(answer=answer, quote__startswith=quote)
    located = citation.closest_pages if outcome == "closest" else citation.pages
    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    page.click(f"#sentence-{citation.sentence.index} a.marker[href='?citation={citation.pk}']")
    overlays = _wait_for_group(page, outcome, sum(len(p["rects"]) for p in located))
    assert {o["outline"] for o in overlays} == {outline}
    assert page.evaluate(LABELS) == [label]
    assert {o["title"] for o in overlays} == {label}
    styles = page.evaluate("""() => Object.fromEntries(
        ['verified', 'verified-fuzzy', 'quote-altered', 'closest'].map(name => {
          const s = getComputedStyle(document.querySelector(`.cg-swatch.cg-outcome-${name}`));
          return [name, [s.outlineStyle, s.outlineWidth, s.outlineColor,
                         s.backgroundImage !== 'none'].join(' ')];
        }))""")
    assert len(set(styles.values())) == 4, styles  # four styles, not four colours of one
    assert overlays[0]["color"] in styles[outcome]
    assert overlays[0]["outline"] == styles[outcome].split()[0]


# Stamps, in the page, the first click and the moment the first box of
# ``outcome`` is drawn (or drawn anew) in the viewer: the reviewer's wait.
STAMP = """(outcome) => {
  const stamps = window.citeguardStamps = {};
  const before = document.querySelector(`#pdf-viewer .cg-highlight.cg-outcome-${outcome}`);
  document.addEventListener("click", () => { stamps.click ??= performance.now(); },
                            {capture: true, once: true});
  new MutationObserver((changes, observer) => {
    const now = document.querySelector(`#pdf-viewer .cg-highlight.cg-outcome-${outcome}`);
    if (stamps.click !== undefined && now && now !== before) {
      stamps.drawn = performance.now();
      observer.disconnect();
    }
  }).observe(document.getElementById("pdf-viewer"), {subtree: true, childList: true});
}"""


def _click_words(page: Any, citation: CitationVerdict, outcome: str) -> float:
    """Click the sentence's own first words (not its badge, not its marker);
    wait for its passage to be drawn; the milliseconds from the click."""
    page.evaluate(STAMP, outcome)
    page.click(f"#sentence-{citation.sentence.index} .sentence-text", position={"x": 8, "y": 8})
    page.wait_for_function("() => window.citeguardStamps.drawn !== undefined")
    stamps = page.evaluate("() => window.citeguardStamps")
    return float(stamps["drawn"] - stamps["click"])


def test_clicking_a_paraphrased_sentence_draws_its_likely_passage_in_its_own_style(
    page: Any,
) -> None:
    answer = Answer.objects.get(external_id="demo-benefits-paraphrased")
    citation = CitationVerdict.objects.get(answer=answer, outcome="unquoted",
                                           sentence__text__startswith="You can join")
    assert citation.quote == "" and citation.passage_pages
    source = answer.sources.get(marker="S1")
    passage = source.text[citation.passage_start:citation.passage_end]
    assert passage.startswith("Employees become eligible for the retirement plan")

    page.goto(f"{_base(page)}/answers/{answer.pk}/")
    first_ms = _click_words(page, citation, "likely")
    assert f"?sentence={citation.sentence.index}" in page.url
    panel = page.locator("#sentence-panel .passage-likely")
    assert panel.locator("h3").inner_text() == (
        "likely passage — paraphrased, not a quote in [S1]")
    assert "retirement" in panel.locator(".excerpt mark.shared").all_inner_texts()
    assert panel.locator(".missing").inner_text() == "Not in the passage: join."

    count = sum(len(p["rects"]) for p in citation.passage_pages)
    overlays = _wait_for_group(page, "likely", count)
    label = "likely passage — paraphrased, not a quote"
    assert page.evaluate(LABELS) == [label]
    assert {o["title"] for o in overlays} == {label}
    # Its own style, not only its own colour: a thick dashed violet outline
    # over upright stripes; the words under it are the passage's.
    assert {(o["outline"], o["outlineWidth"], o["color"]) for o in overlays} == {
        ("dashed", 3.0, "rgb(91, 42, 134)")}
    assert all("gradient" in o["pattern"] for o in overlays)
    words = _assert_over(overlays, source.document, citation.passage_pages)
    assert " ".join(words) == " ".join(passage.split())
    styles = page.evaluate("""() => Object.fromEntries(
        ['verified', 'verified-fuzzy', 'quote-altered', 'closest', 'likely'].map(name => {
          const s = getComputedStyle(document.querySelector(`.cg-swatch.cg-outcome-${name}`));
          return [name, [s.outlineStyle, s.outlineWidth, s.outlineColor,
                         s.backgroundImage].join(' ')];
        }))""")
    assert len(set(styles.values())) == 5, styles

    # The claim-mismatch sentence: its words open it too, the PDF already open.
    mismatch = CitationVerdict.objects.get(answer=answer, outcome="claim-mismatch")
    open_ms = _click_words(page, mismatch, "likely")
    page.locator("#sentence-panel .findings").wait_for()
    assert "the sentence says $800; the passage says $500" in page.locator(
        "#sentence-panel .findings").inner_text()
    assert page.locator(f"#sentence-{mismatch.sentence.index} mark.claim-finding"
                        ).inner_text() == "$800"
    figure(f"\nlikely passage drawn {first_ms:.0f} ms after clicking a paraphrased sentence's "
           f"words (the first click on the page), {open_ms:.0f} ms with the PDF already open")
