"""static/js/citeguard-viewer.mjs in headless Chromium.

Expected positions come from tests/browser/pdfs.py (PyMuPDF plus plain geometry),
never from pdf.js: each overlay's box, relative to its page's content box, must
match the PDF user-space rectangle converted to CSS pixels at the viewer's zoom.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.browser.pdfs import PDF_TO_CSS, Target, TestPdf, expected_viewport_box
from tests.figures import figure

TOLERANCE_PX = 2.5
SCREENSHOT = Path("/tmp/viewer.png")


@pytest.fixture
def pdfs(browser_pdfs: tuple[Path, dict[str, TestPdf]]) -> dict[str, TestPdf]:
    return browser_pdfs[1]


def spec(*targets: Target) -> list[dict[str, Any]]:
    """highlight() input for `targets`, grouped by page in order."""
    pages: dict[int, list[list[float]]] = {}
    for target in targets:
        pages.setdefault(target.page, []).append(list(target.pdf_rect))
    return [{"page": page, "rects": rects} for page, rects in pages.items()]


def show(page: Any, name: str, *targets: Target) -> float:
    """Open /pdfs/<name>.pdf, highlight `targets`, wait for the first page to be
    drawn; returns the zoom factor pdf.js chose (fit width)."""
    scale = page.evaluate(
        "([url, pages]) => cg.show(url, pages)", [f"/pdfs/{name}.pdf", spec(*targets)]
    )
    page.evaluate("(n) => cg.rendered(n)", targets[0].page)
    return float(scale)


def assert_aligned(page: Any, target: Target, scale: float, index: int = 0) -> dict[str, float]:
    overlays = page.evaluate("(n) => cg.overlays(n)", target.page)
    box = overlays[index]
    left, top, width, height = expected_viewport_box(target, scale)
    got = (box["left"], box["top"], box["width"], box["height"])
    want = (left, top, width, height)
    assert all(abs(g - w) <= TOLERANCE_PX for g, w in zip(got, want, strict=True)), (
        f"{target.text!r} on page {target.page} at scale {scale}: overlay {got}, expected {want}"
    )
    assert box["page"] == str(target.page)
    assert box["pointerEvents"] == "none"
    return box


def assert_page_size(page: Any, target: Target, scale: float) -> None:
    """The page box pdf.js laid out has the size the geometry predicts."""
    x0, y0, x1, y1 = target.view_box
    w, h = (x1 - x0) * scale * PDF_TO_CSS, (y1 - y0) * scale * PDF_TO_CSS
    if target.rotation % 180:
        w, h = h, w
    box = page.evaluate("(n) => cg.pageBox(n)", target.page)
    assert abs(box["width"] - w) <= 1.5 and abs(box["height"] - h) <= 1.5, (box, w, h)


def assert_in_view(page: Any, number: int) -> None:
    """The viewer reports `number` as the current page (pdf.js's pick: the page
    most of which is visible), and the first overlay on `number` is fully visible."""
    assert page.evaluate("cg.element.dataset.currentPage") == str(number)
    seen = page.evaluate("cg.visibleBox()")
    pbox = page.evaluate("(n) => cg.pageBox(n)", number)
    first = page.evaluate("(n) => cg.overlays(n)[0]", number)
    top, left = pbox["top"] + first["top"], pbox["left"] + first["left"]
    bottom, right = top + first["height"], left + first["width"]
    assert seen["top"] <= top and bottom <= seen["top"] + seen["height"], (seen, first)
    assert seen["left"] <= left and right <= seen["left"] + seen["width"], (seen, first)


def assert_ink_inside(page: Any, target: Target, scale: float) -> None:
    """What pdf.js painted for the page's only text lies inside the expected box:
    ties PyMuPDF's positions, the conversion and pdf.js's rendering together."""
    left, top, width, height = expected_viewport_box(target, scale)
    ink = page.evaluate(
        "([n, box]) => cg.ink(n, box)",
        [target.page, {"left": left, "top": top, "width": width, "height": height}],
    )
    assert ink["total"] > 200, ink
    assert ink["inside"] / ink["total"] > 0.98, ink


def test_highlight_scrolls_to_page_and_aligns(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    three = pdfs["three"]
    survey = three.targets["survey"]
    scale = show(harness, "three", survey)
    assert harness.evaluate("cg.element.dataset.state") == "ready"
    assert_page_size(harness, survey, scale)
    assert_aligned(harness, survey, scale)
    assert_in_view(harness, 2)
    assert harness.evaluate("cg.viewer.pagesCount") == 3
    harness.screenshot(path=str(SCREENSHOT))


def test_highlight_spanning_two_pages_draws_on_both(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    targets = pdfs["three"].targets
    start, end = targets["span_start"], targets["span_end"]
    scale = show(harness, "three", start, end)
    harness.evaluate("cg.rendered(3)")
    assert len(harness.evaluate("cg.overlays(2)")) == 1
    assert len(harness.evaluate("cg.overlays(3)")) == 1
    assert_aligned(harness, start, scale)
    assert_aligned(harness, end, scale)
    assert_in_view(harness, 2)
    # A second highlight replaces the first; clear() removes everything.
    harness.evaluate(
        "([url, pages]) => cg.show(url, pages)", ["/pdfs/three.pdf", spec(targets["revenue"])]
    )
    assert harness.evaluate("cg.element.querySelectorAll('.cg-highlight').length") == 1
    assert_in_view(harness, 1)
    harness.evaluate("cg.viewer.clear()")
    assert harness.evaluate("cg.element.querySelectorAll('.cg-highlight').length") == 0


def test_rotated_pages(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    targets = pdfs["rotated"].targets
    for key in ("rot90", "rot270_offset"):
        target = targets[key]
        scale = show(harness, "rotated", target)
        assert_page_size(harness, target, scale)
        assert_aligned(harness, target, scale)
        assert_in_view(harness, target.page)
        assert_ink_inside(harness, target, scale)


def test_offset_mediabox_page(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    target = pdfs["offset"].targets["offset"]
    scale = show(harness, "offset", target)
    assert_page_size(harness, target, scale)
    assert_aligned(harness, target, scale)
    assert_in_view(harness, 1)
    assert_ink_inside(harness, target, scale)


def test_zoom_keeps_overlays_aligned(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    targets = pdfs["three"].targets
    show(harness, "three", targets["survey"], targets["appendix"])
    for wanted in (1.0, 1.7):
        scale = harness.evaluate("([s, n]) => cg.zoom(s, n)", [wanted, 2])
        assert scale == pytest.approx(wanted)
        assert_page_size(harness, targets["survey"], scale)
        assert_aligned(harness, targets["survey"], scale)
    # Right after zoom() returns, before pdf.js re-renders, the overlays have
    # already moved with the resized page box.
    now = harness.evaluate("() => { cg.viewer.zoom(1.3); return cg.overlays(2); }")
    assert [round(v, 1) for v in expected_viewport_box(targets["survey"], 1.3)] == pytest.approx(
        [now[0][k] for k in ("left", "top", "width", "height")], abs=TOLERANCE_PX
    )
    scale = harness.evaluate("([s, n]) => cg.zoom(s, n)", [1.7, 2])
    assert_aligned(harness, targets["survey"], scale)
    # Page 3 was off screen while zooming: its overlays are right when it is drawn.
    harness.evaluate("cg.viewer.pdfViewer.scrollPageIntoView({pageNumber: 3})")
    harness.evaluate("cg.rendered(3)")
    assert_aligned(harness, targets["appendix"], 1.7)
    # The chosen zoom carries over to the next document; a rotated page keeps
    # its overlays aligned through zooms too.
    rotated = pdfs["rotated"].targets["rot90"]
    assert show(harness, "rotated", rotated) == pytest.approx(1.7)
    assert_aligned(harness, rotated, 1.7)
    scale = harness.evaluate("([s, n]) => cg.zoom(s, n)", [0.8, 1])
    assert scale == pytest.approx(0.8)
    assert_aligned(harness, rotated, scale)
    assert_ink_inside(harness, rotated, scale)


def test_long_document_opens_at_page_280_lazily(
    harness: Any, pdfs: dict[str, TestPdf], record_property: Any
) -> None:
    target = pdfs["long"].targets["target"]
    timings = harness.evaluate(
        """async ([url, pages]) => {
            const t0 = performance.now();
            await cg.viewer.open(url);
            const opened = performance.now();
            await cg.viewer.highlight(pages);
            const highlighted = performance.now();
            await cg.rendered(280);
            const drawn = performance.now();
            return {open: opened - t0, highlight: highlighted - opened, render: drawn - highlighted,
                    total: drawn - t0, scale: cg.viewer.currentScale};
        }""",
        ["/pdfs/long.pdf", spec(target)],
    )
    scale = timings.pop("scale")
    assert harness.evaluate("cg.viewer.pagesCount") == 300
    assert_aligned(harness, target, scale)
    assert_in_view(harness, 280)
    rendered = harness.evaluate("cg.viewer.renderedPages")
    canvases = harness.evaluate("cg.canvases()")
    record_property("open_page_280_ms", timings)
    record_property("pages_rendered", rendered)
    figure(
        "\n300-page PDF, page 280: "
        + ", ".join(f"{k} {v:.0f} ms" for k, v in timings.items())
        + f"; pages rendered {rendered}; canvases in the DOM {canvases}"
    )
    assert len(rendered) < 20, rendered
    assert canvases < 20
    assert 280 in rendered
    assert timings["total"] < 15_000


def test_a_stalled_byte_range_is_given_up_and_asked_again(
    harness: Any, pdfs: dict[str, TestPdf]
) -> None:
    """A server that takes ranges, whose first answer for one range never
    comes (a proxy or store that hangs): after the viewer's range timeout the
    range is asked again, and the page is drawn, where a fetch without a
    timeout would leave pdf.js waiting for ever."""
    data = pdfs["long"].path.read_bytes()
    asked: list[str] = []
    stalled: list[Any] = []

    def serve_ranges(route: Any) -> None:
        wanted = route.request.headers.get("range", "")
        begin, end = (int(n) for n in wanted.removeprefix("bytes=").split("-"))
        asked.append(wanted)
        if begin > 0 and not stalled:
            stalled.append(route)  # never answered: the browser's request hangs
            return
        end = min(end, len(data) - 1)
        route.fulfill(status=206, body=data[begin:end + 1], headers={
            "Content-Type": "application/pdf", "Accept-Ranges": "bytes",
            "Content-Range": f"bytes {begin}-{end}/{len(data)}"})

    harness.route("**/ranged/long.pdf", serve_ranges)
    pages = harness.evaluate(
        """async () => {
            const element = document.createElement("div");
            element.style.cssText = "position:absolute;left:0;top:0;width:600px;height:500px";
            document.body.append(element);
            const viewer = new cg.CiteViewer(element, { rangeTimeout: 1000 });
            const late = new Promise((resolve) => setTimeout(() => resolve({ pages: -1 }), 20000));
            const { pages } = await Promise.race([viewer.open("/ranged/long.pdf"), late]);
            if (pages < 0) return pages;
            viewer.goToPage(280);
            const start = performance.now();
            while (!viewer.renderedPages.includes(280) && performance.now() - start < 20000) {
                await new Promise((resolve) => setTimeout(resolve, 50));
            }
            return viewer.renderedPages.includes(280) ? pages : -1;
        }""")
    assert pages == 300
    assert stalled, "no range past the first was asked for"
    stalled_range = stalled[0].request.headers["range"]
    assert asked.count(stalled_range) >= 2, asked  # given up, then asked again
    assert not harness.errors


def test_missing_pdf_shows_message(harness: Any) -> None:
    error = harness.evaluate(
        "cg.viewer.open('/pdfs/missing.pdf').then(() => null, (e) => e.name || String(e))"
    )
    assert error
    assert harness.evaluate("cg.element.dataset.state") == "error"
    message = harness.locator("#viewer .cg-viewer-message")
    assert message.is_visible()
    assert "not found" in message.inner_text()
    assert "missing.pdf" in message.inner_text()
    assert message.get_attribute("role") == "alert"


def test_not_a_pdf_shows_message(harness: Any) -> None:
    harness.evaluate("cg.viewer.open('/pdfs/not-a-pdf.pdf').catch(() => null)")
    message = harness.locator("#viewer .cg-viewer-message")
    assert message.is_visible()
    assert "not a valid PDF" in message.inner_text()


def test_error_then_valid_pdf_recovers(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    harness.evaluate("cg.viewer.open('/pdfs/missing.pdf').catch(() => null)")
    target = pdfs["offset"].targets["offset"]
    scale = show(harness, "offset", target)
    assert harness.locator("#viewer .cg-viewer-message").is_hidden()
    assert_aligned(harness, target, scale)


def test_htmx_highlight_event_opens_and_highlights(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    """What django-htmx's trigger_client_event(response, "highlight", {...}) makes
    htmx do: dispatch a bubbling `highlight` event with that object as detail."""
    target = pdfs["three"].targets["appendix"]
    harness.evaluate(
        """([url, pages]) => document.getElementById("viewer").dispatchEvent(
            new CustomEvent("highlight", {bubbles: true, detail: {url, pages}}))""",
        ["/pdfs/three.pdf", spec(target)],
    )
    harness.wait_for_function("cg.element.dataset.currentPage === '3' && "
                              "cg.element.querySelectorAll('.cg-highlight').length === 1")
    harness.evaluate("cg.rendered(3)")
    assert_aligned(harness, target, harness.evaluate("cg.viewer.currentScale"))
    status = harness.locator("#viewer .cg-viewer-status").inner_text()
    assert "page 3" in status


def test_open_reuses_the_open_document(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    show(harness, "three", pdfs["three"].targets["survey"])
    same = harness.evaluate(
        """async () => {
            const before = cg.viewer.pdfViewer.pdfDocument;
            await cg.viewer.open("/pdfs/three.pdf");
            return before === cg.viewer.pdfViewer.pdfDocument;
        }"""
    )
    assert same


def test_highlight_rejects_malformed_input_with_a_reason(harness: Any) -> None:
    harness.evaluate("cg.viewer.open('/pdfs/three.pdf')")
    message = harness.evaluate(
        "cg.viewer.highlight([{page: 1, rects: [[1, 2, 3]]}]).then(() => '', (e) => e.message)"
    )
    assert "[x0, y0, x1, y1]" in message
    warned = harness.evaluate("cg.viewer.highlight([{page: 9, rects: [[1, 2, 3, 4]]}])")
    assert warned == 0  # page 9 of 3 is skipped, not drawn


def test_a_later_open_wins(harness: Any, pdfs: dict[str, TestPdf]) -> None:
    """Clicking another sentence before the first PDF has loaded: the first open()
    rejects with AbortError and the second document is shown and highlighted."""
    target = pdfs["offset"].targets["offset"]
    first = harness.evaluate(
        """async ([pages]) => {
            const first = cg.viewer.open("/pdfs/long.pdf").then(() => "resolved", (e) => e.name);
            await cg.viewer.open("/pdfs/offset.pdf");
            await cg.viewer.highlight(pages);
            return first;
        }""",
        [spec(target)],
    )
    assert first == "AbortError"
    harness.evaluate("cg.rendered(1)")
    assert harness.evaluate("cg.viewer.pagesCount") == 1
    assert_aligned(harness, target, harness.evaluate("cg.viewer.currentScale"))


@pytest.mark.parametrize("kind", ["jpeg", "jpx", "ccitt", "jbig2"])
def test_scanned_page_renders_under_its_highlight(
    harness: Any, pdfs: dict[str, TestPdf], kind: str
) -> None:
    """A scan (a picture of the text plus an invisible OCR layer) is drawn, not
    left blank with a highlight floating over nothing: pixels of pdf.js's canvas
    under the highlight are dark where the picture has its printed line. JPX and
    JBIG2 need pdf.js's wasm decoders (`wasmUrl`); CCITT and JPEG do not."""
    target = pdfs["scanned"].targets[kind]
    scale = show(harness, "scanned", target)
    assert_aligned(harness, target, scale)
    left, top, width, height = expected_viewport_box(target, scale)
    ink = harness.evaluate(
        "([n, box]) => cg.ink(n, box, 0)",
        [target.page, {"left": left, "top": top, "width": width, "height": height}],
    )
    figure(f"\n{kind} scan, page {target.page}: {ink['inside']} dark canvas pixels under "
          f"the highlight, {ink['total']} on the page")
    assert ink["inside"] > 500, (kind, ink)
    # The picture's other printed lines are drawn too (the whole page, not the box only).
    assert ink["total"] > 3 * ink["inside"], (kind, ink)
    if kind == "jpx":
        harness.screenshot(path="/tmp/viewer-scan-jpx.png")


def test_outcome_groups_are_drawn_in_distinct_styles_with_labels(
    harness: Any, pdfs: dict[str, TestPdf]
) -> None:
    """Groups {outcome, label, pages}: each outcome has its own class, outline
    style and a label in words; a group running onto the next page gets the
    "continues on page 3" cue, which scrolls there."""
    t = pdfs["three"].targets
    groups = [
        {"outcome": "closest", "pages": spec(t["span_start"], t["span_end"])},
        {"outcome": "verified", "pages": spec(t["survey"])},
        {"kind": "quote-altered", "label": "≠ altered: 1,204 in the source",
         "pages": spec(t["revenue"])},
    ]
    harness.evaluate("(g) => cg.viewer.open('/pdfs/three.pdf').then(() => cg.viewer.highlight(g))",
                     groups)
    harness.evaluate("cg.rendered(2)")
    styles = harness.evaluate("""() => [...document.querySelectorAll('.cg-highlight')].map(el => ({
        page: el.dataset.page, outcome: el.dataset.outcome,
        outline: getComputedStyle(el).outlineStyle, label: el.title}))""")
    by_outcome = {s["outcome"]: s for s in styles}
    assert by_outcome["closest"]["outline"] == "dotted"
    assert by_outcome["closest"]["label"] == "closest passage — not a match"
    assert by_outcome["verified"]["outline"] == "solid"
    assert by_outcome["quote-altered"]["label"] == "≠ altered: 1,204 in the source"
    tags = harness.evaluate(
        "[...document.querySelectorAll('.cg-tag-label')].map(e => e.textContent)")
    assert "closest passage — not a match" in tags and "✓ verified" in tags
    cue = harness.locator(".cg-continues")
    assert cue.inner_text() == "continues on page 3 ↓"
    harness.screenshot(path="/tmp/viewer-outcomes.png")
    cue.click()
    harness.wait_for_function("cg.element.dataset.currentPage === '3'")
