"""Browser fixtures: a local static server, generated PDFs and headless Chromium.

The tests skip (with the reason) when Debian's Chromium (/usr/bin/chromium) or
the `playwright` pip package is missing; they never download a browser.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.browser.pdfs import TestPdf, build_all

STATIC_ROOT = Path(__file__).resolve().parents[2] / "static"
VIEWPORT = {"width": 1100, "height": 820}

# The page the tests drive: the viewer fills #viewer (sized here, as a real page
# would), and window.cg holds small measuring helpers.
HARNESS = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>citeguard viewer harness</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; }
  #viewer { position: absolute; left: 20px; top: 40px; width: 900px; height: 700px; }
</style>
</head>
<body>
<div id="viewer"></div>
<script type="module">
import { CiteViewer } from "/static/js/citeguard-viewer.mjs";

const element = document.getElementById("viewer");
const viewer = new CiteViewer(element, { pdfjsBase: "/static/vendor/pdfjs/" });
CiteViewer.listen(viewer);

const FINISHED = 3;  // pdf.js RenderingStates.FINISHED

function pageView(page) {
  return viewer.pdfViewer.getPageView(page - 1);
}

window.cg = {
  viewer,
  CiteViewer,
  element,
  async show(url, pages) {
    await viewer.open(url);
    await viewer.highlight(pages);
    return viewer.currentScale;
  },
  /** Wait until pdf.js has drawn `page` and its overlays are present. */
  async rendered(page, timeout = 15000) {
    const start = performance.now();
    for (;;) {
      const view = pageView(page);
      const ready = view.renderingState === FINISHED && view.div.querySelector("canvas");
      const wanted = viewer.highlights.find((h) => h.page === page)?.rects.length ?? 0;
      const drawn = view.div.querySelectorAll(":scope > .cg-highlight").length;
      if (ready && drawn === wanted) return true;
      if (performance.now() - start > timeout) throw new Error(`page ${page} not rendered`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  },
  /** Zoom, then wait for pdf.js to redraw `page` at the new scale. */
  async zoom(scale, page, timeout = 15000) {
    const done = new Promise((resolve, reject) => {
      setTimeout(() => reject(new Error(`page ${page} not redrawn at zoom ${scale}`)), timeout);
      const onRendered = (event) => {
        if (event.pageNumber === page && !event.cssTransform && !event.isDetailView) {
          viewer.eventBus.off("pagerendered", onRendered);
          resolve();
        }
      };
      viewer.eventBus.on("pagerendered", onRendered);
    });
    viewer.zoom(scale);
    await done;
    await this.rendered(page);
    return viewer.currentScale;
  },
  /** The page's content box (inside pdf.js's page border) in client pixels. */
  pageBox(page) {
    const div = pageView(page).div;
    const r = div.getBoundingClientRect();
    return { left: r.left + div.clientLeft, top: r.top + div.clientTop,
             width: div.clientWidth, height: div.clientHeight };
  },
  /** Overlay boxes on `page`, relative to the page's content box. */
  overlays(page) {
    const box = this.pageBox(page);
    return [...pageView(page).div.querySelectorAll(":scope > .cg-highlight")].map((el) => {
      const r = el.getBoundingClientRect();
      return { left: r.left - box.left, top: r.top - box.top, width: r.width, height: r.height,
               page: el.dataset.page, pointerEvents: getComputedStyle(el).pointerEvents };
    });
  },
  /** Client rect of the scroll container (what the reader sees). */
  visibleBox() {
    const r = element.querySelector(".cg-viewer-container").getBoundingClientRect();
    return { left: r.left, top: r.top, width: r.width, height: r.height };
  },
  /** Dark pixels of the page's canvas: all of them, and those inside `box`
      (page content-box CSS pixels, grown by `pad`). */
  ink(page, box, pad = 3) {
    const view = pageView(page);
    const canvas = view.div.querySelector("canvas");
    const c = canvas.getBoundingClientRect();
    const p = this.pageBox(page);
    const sx = canvas.width / c.width, sy = canvas.height / c.height;
    const data = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    const dx = p.left - c.left, dy = p.top - c.top;
    const x0 = (box.left - pad + dx) * sx, x1 = (box.left + box.width + pad + dx) * sx;
    const y0 = (box.top - pad + dy) * sy, y1 = (box.top + box.height + pad + dy) * sy;
    let total = 0, inside = 0;
    for (let y = 0; y < canvas.height; y++) {
      for (let x = 0; x < canvas.width; x++) {
        const i = 4 * (y * canvas.width + x);
        if (data[i] + data[i + 1] + data[i + 2] < 3 * 110) {
          total++;
          if (x >= x0 && x <= x1 && y >= y0 && y <= y1) inside++;
        }
      }
    }
    return { total, inside };
  },
  canvases() {
    return element.querySelectorAll(".pdfViewer canvas").length;
  },
};
window.cgReady = true;
</script>
</body>
</html>
"""


class _Handler(SimpleHTTPRequestHandler):
    """/static/... from the repository, /pdfs/... from the generated folder,
    /harness.html from memory; 404 for anything else."""

    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        ".mjs": "text/javascript",
        ".js": "text/javascript",
        ".css": "text/css",
        ".pdf": "application/pdf",
        ".bcmap": "application/octet-stream",
        ".pfb": "application/octet-stream",
        ".wasm": "application/wasm",
        ".icc": "application/octet-stream",
    }

    def __init__(self, *args: Any, pdf_dir: Path, **kwargs: Any) -> None:
        self.pdf_dir = pdf_dir
        super().__init__(*args, directory=str(STATIC_ROOT), **kwargs)

    def do_GET(self) -> None:
        if self.path.split("?")[0] == "/harness.html":
            body = HARNESS.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, root in (("/static/", STATIC_ROOT), ("/pdfs/", self.pdf_dir)):
            if path.startswith(prefix):
                target = (root / path[len(prefix):]).resolve()
                if target.is_relative_to(root.resolve()):
                    return str(target)
        return str(STATIC_ROOT / "__not_found__")

    def list_directory(self, path: str | Path) -> None:
        self.send_error(404)
        return None

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="session")
def browser_pdfs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, TestPdf]]:
    directory = tmp_path_factory.mktemp("browser-pdfs")
    return directory, build_all(directory)


@pytest.fixture(scope="session")
def server(browser_pdfs: tuple[Path, dict[str, TestPdf]]) -> Iterator[str]:
    directory, _ = browser_pdfs
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(_Handler, pdf_dir=directory))
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture(scope="session")
def browser_context(chromium: Any) -> Iterator[Any]:
    context = chromium.new_context(viewport=VIEWPORT)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def harness(browser_context: Any, server: str) -> Iterator[Any]:
    """A fresh harness page; fails the test on JavaScript errors it did not expect."""
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"{server}/harness.html")
    page.wait_for_function("window.cgReady === true")
    page.errors = errors  # type: ignore[attr-defined]
    try:
        yield page
    finally:
        page.close()
    assert not errors, errors
