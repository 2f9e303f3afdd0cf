/**
 * citeguard-viewer.mjs: show a source PDF and highlight the cited passage.
 *
 *   import { CiteViewer } from "/static/js/citeguard-viewer.mjs";
 *   const viewer = new CiteViewer(element, { pdfjsBase: "/static/vendor/pdfjs/" });
 *   await viewer.open(pdfUrl);
 *   await viewer.highlight([{ page: 3, rects: [[x0, y0, x1, y1], ...] }, ...]);
 *   await viewer.highlight([{ outcome: "closest", label: "closest passage — not a match",
 *                             pages: [{ page: 3, rects: [...] }, { page: 4, rects: [...] }] }]);
 *   await viewer.show({ url, title, pages, outcome, label });   // an htmx `highlight` detail
 *   viewer.zoom(1.5);            // or "page-width", "page-fit", "auto"
 *   viewer.clear();
 *   CiteViewer.listen(viewer);   // follow htmx's server-driven `highlight` events
 *   viewer.prefetch([{ url, pages: [3, 4] }], { show: true });   // when the page is idle
 *   element.addEventListener("highlightdrawn", (e) => e.detail.at);   // boxes on a painted page
 *
 * Coordinates: every rectangle is in PDF USER SPACE points, as written in the
 * PDF file (origin at the bottom left of the user space, y up; MediaBox/CropBox
 * offsets and /Rotate are NOT pre-applied). The module never receives string
 * offsets, only page numbers (1-based) and rectangles. Both corners are mapped
 * with pdf.js's `PageViewport.convertToViewportPoint`, which applies the page's
 * view box offset, /Rotate and the current zoom; min/max of the two mapped
 * corners give the box in CSS pixels relative to the page's content box.
 *
 * Highlight groups and outcomes. highlight() takes either page entries
 * [{page, rects, outcome?, label?}] or groups [{outcome?, label?, pages: [{page,
 * rects}]}] (an entry with `pages` is a group; both may be mixed). `kind` is
 * accepted for `outcome`. A page entry may carry `words` ([[x0, y0, x1, y1],
 * ...], PDF user space): where the page's words are when pdf.js cannot say (a
 * scan read by OCR has no text layer); tags keep off them as off pdf.js's
 * words. Outcomes and how they are drawn (colour AND outline
 * AND a words label, never colour alone; CSS classes cg-outcome-<name>):
 *   verified        green, solid outline                      "✓ verified"
 *   verified-fuzzy  green, dashed outline                     "≈ fuzzy match"
 *   quote-altered   orange, thick solid outline, hatched      "≠ altered quote"
 *   closest         red, dotted outline, cross-hatched        "closest passage — not a match"
 *   likely          violet, thick dashed outline, upright     "likely passage — paraphrased, not a quote"
 *                   stripes (a cited sentence that quotes nothing: where it likely comes from)
 * ("quote-not-found" and "wrong-source" are drawn as closest; "claim-mismatch"
 * and "claim-unsupported", which quote nothing, as likely). Without an
 * outcome: yellow, dashed, hatched, "cited passage". A group's `label`
 * replaces the default words. The first box of each group carries its label;
 * a group that runs onto a later page gets a "continues on page N" cue (a
 * button that scrolls there) by its last box on the earlier page. Labels and
 * cues never cover a word of the page: from pdf.js's text positions they go
 * beside the box on its line or into the page margin there, else onto a free
 * line next to it, else wrapped into the margin.
 *
 * Speed: prefetch() (on idle) loads pdf.js and its worker, opens the cited
 * PDFs and draws their pages, so that the first highlight costs what later
 * ones do. Each step leaves a performance mark "citeguard-viewer:<step>".
 *
 * Toolbar: pass `toolbar: element` and the viewer fills it with a page
 * indicator ("page 3 of 23", type a number to go there), zoom out / in / fit
 * the passage, Open and Download links for the PDF, and the outcome legend.
 *
 * Built on pdf.js's pdf_viewer components, as in pdf.js's
 * examples/components/simpleviewer.mjs: pdf.mjs is loaded before pdf_viewer.mjs
 * (which reads globalThis.pdfjsLib), the scroll container is absolutely
 * positioned with a child div.pdfViewer, and EventBus + PDFLinkService +
 * PDFViewer do the rest. Pages render lazily; highlights are (re)drawn on every
 * "pagerendered" because PDFPageView.reset() (on zoom) removes nodes it did not
 * create.
 */

const DEFAULTS = Object.freeze({
  /** Folder holding build/, web/, cmaps/, standard_fonts/, wasm/ and iccs/ of pdf.js. */
  pdfjsBase: "/static/vendor/pdfjs/",
  /** Initial zoom: a number (1 = 100 %) or "page-width", "page-fit", "auto". */
  scale: "page-width",
  /** CSS pixels left above (and left of) the first rectangle when scrolling to it. */
  scrollMargin: 32,
  /** Add <link>s for pdf_viewer.css and viewer.css when the page has not. */
  stylesheets: true,
  /** Enable pdf.js's text layer (lets reviewers select and copy text). */
  textLayer: true,
  /**
   * Milliseconds one byte-range request (headers and body) may take before it
   * is given up and tried again. A fetch has no timeout of its own: a request
   * a server or proxy stalls would otherwise wait for ever, and pdf.js with it.
   */
  rangeTimeout: 20000,
  /**
   * How long highlight() waits for pdf.js to learn every page's size before it
   * scrolls (page sizes above the target move it). Past this it scrolls anyway
   * and scrolls again once the sizes are known, unless the reader has scrolled.
   */
  pageSizesWaitMs: 2000,
  /** An element to fill with the page indicator, zoom, open/download and legend. */
  toolbar: null,
  /** Smallest zoom "fit the passage" and the automatic fit will choose. */
  minFitScale: 0.4,
});

/** Outcome -> [CSS class suffix, default label]. */
const OUTCOMES = Object.freeze({
  verified: ["verified", "✓ verified"],
  "verified-fuzzy": ["verified-fuzzy", "≈ fuzzy match"],
  "quote-altered": ["quote-altered", "≠ altered quote"],
  closest: ["closest", "closest passage — not a match"],
  "quote-not-found": ["closest", "closest passage — not a match"],
  "wrong-source": ["closest", "closest passage — not a match"],
  likely: ["likely", "likely passage — paraphrased, not a quote"],
  "claim-mismatch": ["likely", "likely passage — paraphrased, not a quote"],
  "claim-unsupported": ["likely", "likely passage — paraphrased, not a quote"],
});
const DEFAULT_OUTCOME = ["cited", "cited passage"];
/** The legend, in this order, in short words (the boxes carry the full labels). */
const LEGEND = [
  ["verified", "✓ verified"],
  ["verified-fuzzy", "≈ fuzzy"],
  ["quote-altered", "≠ altered"],
  ["likely", "likely passage"],
  ["closest", "closest passage — not a match"],
];

function outcomeOf(outcome, label) {
  const [css, words] = OUTCOMES[outcome] ?? DEFAULT_OUTCOME;
  return { css, label: typeof label === "string" && label ? label : words };
}

/** pdf.js's RenderingStates.FINISHED. */
const RENDERING_FINISHED = 3;

const VIEWER_CSS = new URL("../css/viewer.css", import.meta.url).href;

/** pdf.js libraries, loaded once per base URL: Map<base, Promise<{lib, viewerLib}>>. */
const libraries = new Map();

function loadPdfjs(base) {
  let promise = libraries.get(base);
  if (!promise) {
    promise = (async () => {
      mark("pdfjs-load");
      // Order matters: pdf_viewer.mjs reads globalThis.pdfjsLib when evaluated.
      const lib = await import(new URL("build/pdf.min.mjs", base).href);
      globalThis.pdfjsLib ??= lib;
      const viewerLib = await import(new URL("web/pdf_viewer.mjs", base).href);
      if (!lib.GlobalWorkerOptions.workerSrc) {
        lib.GlobalWorkerOptions.workerSrc = new URL("build/pdf.worker.min.mjs", base).href;
      }
      mark("pdfjs-loaded");
      return { lib, viewerLib };
    })();
    promise.catch(() => libraries.delete(base));
    libraries.set(base, promise);
  }
  return promise;
}

function ensureStylesheet(href) {
  for (const link of document.querySelectorAll('link[rel="stylesheet"]')) {
    if (link.href === href) {
      return link.sheet ? Promise.resolve() : waitForLink(link);
    }
  }
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  const loaded = waitForLink(link);
  document.head.append(link);
  return loaded;
}

function waitForLink(link) {
  // A stylesheet that fails to load must not block the viewer: the structural
  // styles it needs are also set inline.
  return new Promise((resolve) => {
    link.addEventListener("load", resolve, { once: true });
    link.addEventListener("error", resolve, { once: true });
    setTimeout(resolve, 3000);
  });
}

const delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A performance mark "citeguard-viewer:<name>" (DevTools' timeline, bench/review.py). */
function mark(name, detail) {
  try {
    performance.mark(`citeguard-viewer:${name}`, detail === undefined ? undefined : { detail });
  } catch {
    // marks are diagnostics only
  }
}

function abortError(message) {
  return new DOMException(message, "AbortError");
}

/**
 * The box of a PDF user-space rectangle in CSS pixels of `viewport`, relative
 * to the page's top-left corner (inside its border).
 */
export function viewportBox(viewport, [x0, y0, x1, y1]) {
  const [ax, ay] = viewport.convertToViewportPoint(x0, y0);
  const [bx, by] = viewport.convertToViewportPoint(x1, y1);
  const left = Math.min(ax, bx);
  const top = Math.min(ay, by);
  return { left, top, width: Math.max(ax, bx) - left, height: Math.max(ay, by) - top };
}

/** The bytes asked for at a time (pdf.js's default). */
const RANGE_CHUNK = 65536;


/**
 * What pdf.js should load `url` from: a range transport when the server
 * answers a Range request with 206 (pdf.js then asks for each part it needs),
 * the bytes when it sent the whole file, else the URL itself (pdf.js asks and
 * reports the error as it always has).
 */
async function rangeSource(lib, url, onFail, timeout) {
  try {
    const response = await fetch(url, {
      headers: { Range: `bytes=0-${RANGE_CHUNK - 1}` },
      credentials: "same-origin",
      signal: AbortSignal.timeout(timeout),
    });
    const total = Number(response.headers.get("Content-Range")?.split("/")[1]);
    if (response.status === 206 && Number.isSafeInteger(total) && total > 0) {
      const initial = new Uint8Array(await response.arrayBuffer());
      return {
        range: fetchRangeTransport(lib, url, total, initial, onFail, timeout), length: total,
      };
    }
    if (response.ok) return { data: new Uint8Array(await response.arrayBuffer()) };
    // Read to its end, so the connection is free for the next request.
    await response.arrayBuffer();
  } catch {
    // A probe that failed or stalled: pdf.js asks itself and reports the error.
  }
  return { url };
}

/** Tries of one range before the viewer says the PDF could not be read. */
const RANGE_TRIES = 3;

/**
 * pdf.js's range transport over fetch(): one request per range pdf.js asks
 * for, tried again after a failure (a second, then two). pdf.js has no way
 * to hear that a range failed, and would wait for it for ever: after the
 * last try `onFail(message)` says so instead.
 */
function fetchRangeTransport(lib, url, total, initial, onFail, timeout) {
  const transport = new lib.PDFDataRangeTransport(total, initial);
  const fetchRange = async (begin, end) => {
    const response = await fetch(url, {
      headers: { Range: `bytes=${begin}-${end - 1}` },
      credentials: "same-origin",
      // The body's read is inside the same signal: a stall mid-body is a failed try too.
      signal: AbortSignal.timeout(timeout),
    });
    if (response.status !== 206 && !(response.ok && begin === 0)) {
      throw new Error(`the server answered ${response.status} for bytes ${begin}-${end - 1}`);
    }
    return new Uint8Array(await response.arrayBuffer());
  };
  transport.requestDataRange = async (begin, end) => {
    for (let attempt = 1; ; attempt++) {
      try {
        transport.onDataRange(begin, await fetchRange(begin, end));
        return;
      } catch (error) {
        if (attempt >= RANGE_TRIES) {
          console.warn("CiteViewer: a part of the PDF did not load", error);
          onFail?.(`Part of this PDF could not be loaded (${error?.message ?? error}); ` +
            "reload the page to try again.");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000 * attempt));
      }
    }
  };
  return transport;
}

/**
 * Check and copy highlight() input (page entries and/or groups, see the top of
 * this file). Returns {byPage: Map<page, item[]> in input order, words:
 * Map<page, rect[]>}, item = {rect, group, css, label}; `group` numbers the
 * groups (a page entry is a group of its own unless it shares outcome and
 * label with the entry before it); `words` holds the entries' word boxes.
 */
function normalizeHighlights(input, defaults = {}) {
  if (!Array.isArray(input)) {
    throw new TypeError(
      "highlight() takes an array like [{page: 3, rects: [[x0, y0, x1, y1]]}], " +
        `not ${input === null ? "null" : typeof input}.`,
    );
  }
  const byPage = new Map();
  const words = new Map();
  let group = -1;
  let previousKey = null;
  const addEntry = (entry, where, style) => {
    const page = entry?.page;
    if (!Number.isInteger(page) || page < 1) {
      throw new TypeError(
        `highlight(): ${where} has page ${JSON.stringify(page)}; pages are 1-based integers.`,
      );
    }
    if (!Array.isArray(entry.rects)) {
      throw new TypeError(`highlight(): ${where} (page ${page}) needs a "rects" array.`);
    }
    const items = entry.rects.map((rect, j) => {
      if (!Array.isArray(rect) || rect.length !== 4 || !rect.every(Number.isFinite)) {
        throw new TypeError(
          `highlight(): page ${page} rect ${j} is ${JSON.stringify(rect)}; expected ` +
            "[x0, y0, x1, y1], four finite numbers in PDF user-space points.",
        );
      }
      return { rect: rect.slice(), group, ...style };
    });
    byPage.set(page, [...(byPage.get(page) ?? []), ...items]);
    if (entry.words !== undefined) {
      if (!Array.isArray(entry.words) || !entry.words.every(
        (rect) => Array.isArray(rect) && rect.length === 4 && rect.every(Number.isFinite))) {
        throw new TypeError(
          `highlight(): ${where} (page ${page}) has "words" that are not [[x0, y0, x1, y1], ...].`,
        );
      }
      words.set(page, [...(words.get(page) ?? []), ...entry.words.map((rect) => rect.slice())]);
    }
  };
  input.forEach((entry, i) => {
    const outcome = entry?.outcome ?? entry?.kind ?? defaults.outcome;
    const style = outcomeOf(outcome, entry?.label ?? defaults.label);
    if (Array.isArray(entry?.pages)) {
      group++;
      previousKey = null;
      entry.pages.forEach((pageEntry, j) => addEntry(pageEntry, `group ${i} entry ${j}`, style));
      return;
    }
    const key = `${style.css}\u0000${style.label}`;
    if (key !== previousKey) {
      group++;
      previousKey = key;
    }
    addEntry(entry, `entry ${i}`, style);
  });
  return { byPage, words };
}

function unionBox(boxes) {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Where the words of a page are: one quadrilateral per text item (four PDF
 * user-space points), from pdf.js's getTextContent, kept per PDFPageProxy.
 * Each runs along the item's baseline for its width, from 0.35 of the font
 * height below it to 1.05 above: a margin around what pdf.js's text layer
 * spans (font ascent above the baseline, the rest of 1 em below) and the ink.
 */
const glyphCache = new WeakMap();

function pageGlyphs(pdfPage) {
  let promise = glyphCache.get(pdfPage);
  if (!promise) {
    promise = pdfPage.getTextContent().then(({ items }) => {
      const quads = [];
      for (const item of items) {
        if (typeof item.str !== "string" || !item.str.trim()) continue;
        const [a, b, c, d, e, f] = item.transform;
        const along = Math.hypot(a, b) || 1;
        const fontHeight = Math.hypot(c, d) || along;
        const length = Math.max(item.width || 0, item.height || 0, 0);
        const [ux, uy] = [a / along, b / along];
        const [nx, ny] = [c / fontHeight, d / fontHeight];
        const quad = [];
        for (const s of [0, length]) {
          for (const t of [-0.35 * fontHeight, 1.05 * fontHeight]) {
            quad.push([e + ux * s + nx * t, f + uy * s + ny * t]);
          }
        }
        quads.push(quad);
      }
      return quads;
    });
    promise.catch(() => glyphCache.delete(pdfPage));
    glyphCache.set(pdfPage, promise);
  }
  return promise;
}

/** A quadrilateral of PDF points as a box in the viewport's CSS pixels. */
function quadBox(viewport, quad) {
  let left = Infinity, top = Infinity, right = -Infinity, bottom = -Infinity;
  for (const [x, y] of quad) {
    const [vx, vy] = viewport.convertToViewportPoint(x, y);
    left = Math.min(left, vx);
    right = Math.max(right, vx);
    top = Math.min(top, vy);
    bottom = Math.max(bottom, vy);
  }
  return { left, top, width: right - left, height: bottom - top };
}

const TAG_GAP = 3;

/** The free stretches [start, end] of the band y..y+h of a `width`-wide page. */
function freeStretches(obstacles, width, y, h) {
  const blocked = obstacles
    .filter((o) => o.top < y + h + TAG_GAP && y - TAG_GAP < o.top + o.height)
    .map((o) => [o.left - TAG_GAP, o.left + o.width + TAG_GAP])
    .sort((p, q) => p[0] - q[0]);
  const free = [];
  let x = 0;
  for (const [start, end] of blocked) {
    if (start > x) free.push([x, Math.min(start, width)]);
    x = Math.max(x, end);
    if (x >= width) break;
  }
  if (x < width) free.push([x, width]);
  return free.filter(([start, end]) => end > start);
}

/** The left edge nearest the anchor's for a `w`-wide tag in the band, or null. */
function nearestX(obstacles, width, anchor, y, w, h) {
  let best = null;
  for (const [start, end] of freeStretches(obstacles, width, y, h)) {
    if (end - start < w) continue;
    // Beside the box (after it, or before it) or as close to its start as the stretch allows.
    const x = Math.min(Math.max(anchor.left, start), end - w);
    if (best === null || Math.abs(x - anchor.left) < Math.abs(best - anchor.left)) best = x;
  }
  return best;
}

/** [x, y] of the free band nearest `lineY` (up to `reach` px away), or null. */
function nearestFreeLine(obstacles, pageWidth, pageHeight, anchor, lineY, w, h, reach) {
  for (let dy = 2; dy <= reach; dy += 2) {
    for (const y of [lineY - dy, lineY + dy]) {
      if (y < 0 || y + h > pageHeight) continue;
      const x = nearestX(obstacles, pageWidth, anchor, y, w, h);
      if (x !== null) return [x, y];
    }
  }
  return null;
}

/**
 * Put `tag` (already in the page, so measurable) where it covers none of
 * `obstacles` (the page's words, boxes and earlier tags, viewport pixels):
 * at the anchor box's line, beside the box or in the page margin; else on
 * a free line just above or below; else wrapped into the widest free
 * stretch of its line; else at the nearest free line; else just above the
 * page. Returns its box.
 */
function placeTag(tag, anchor, obstacles, pageWidth, pageHeight, { below = false } = {}) {
  tag.classList.remove("cg-tag-wrapped");
  tag.style.removeProperty("width");
  const w = tag.offsetWidth;
  const h = tag.offsetHeight;
  const lineY = Math.max(0, Math.min(anchor.top + (anchor.height - h) / 2, pageHeight - h));
  const put = (x, y, width = w, height = h) => {
    tag.style.left = `${x}px`;
    tag.style.top = `${y}px`;
    return { left: x, top: y, width, height };
  };
  let x;
  // A cue pointing on ("continues on page N ↓") reads best under its box.
  const underY = anchor.top + anchor.height + TAG_GAP + 1;
  if (below && underY + h <= pageHeight) {
    x = nearestX(obstacles, pageWidth, anchor, underY, w, h);
    if (x !== null) return put(x, underY);
  }
  x = nearestX(obstacles, pageWidth, anchor, lineY, w, h);
  if (x !== null) return put(x, lineY);
  // A free line right above or below (a blank line between paragraphs).
  const near = nearestFreeLine(obstacles, pageWidth, pageHeight, anchor, lineY, w, h, anchor.height + 2 * h);
  if (near) return put(...near);
  // Wrapped into a margin narrower than the words.
  const stretches = freeStretches(obstacles, pageWidth, lineY, h)
    .sort((p, q) => q[1] - q[0] - (p[1] - p[0]));
  for (const [start, end] of stretches) {
    const room = end - start;
    if (room < 36) break;
    tag.classList.add("cg-tag-wrapped");
    tag.style.width = `${room}px`;
    const tall = tag.offsetHeight;
    const y = Math.max(0, Math.min(anchor.top, pageHeight - tall));
    const fits = freeStretches(obstacles, pageWidth, y, tall)
      .some(([s, e]) => s <= start + 0.5 && e >= end - 0.5);
    if (fits) return put(start, y, room, tall);
    tag.classList.remove("cg-tag-wrapped");
    tag.style.removeProperty("width");
  }
  // The nearest free line anywhere (the top or foot margin at worst).
  const far = nearestFreeLine(obstacles, pageWidth, pageHeight, anchor, lineY, w, h, pageHeight);
  if (far) return put(...far);
  return put(Math.max(0, Math.min(anchor.left, pageWidth - w)), -h - TAG_GAP);
}

function placeBox(el, left, top, width, height) {
  el.style.left = `${left}px`;
  el.style.top = `${top}px`;
  el.style.width = `${width}px`;
  el.style.height = `${height}px`;
}

function element(tag, attributes = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    el.setAttribute(name, value);
  }
  el.append(...children);
  return el;
}

/** Fill `host` with the viewer's controls; returns the parts the viewer updates. */
function buildToolbar(host, viewer) {
  host.classList.add("cg-toolbar");
  const pageInput = element("input", {
    type: "number", min: "1", inputmode: "numeric", class: "cg-page-input",
    "aria-label": "Go to page", title: "Type a page number and press Enter",
  });
  const pageCount = element("span", { class: "cg-page-count" }, "–");
  const pager = element("label", { class: "cg-pager" }, "page ", pageInput, " of ", pageCount);
  const passage = element("span", { class: "cg-passage", "aria-live": "polite" });
  const zoomOut = element("button", { type: "button", "data-zoom": "out", "aria-label": "Zoom out", title: "Zoom out" }, "−");
  const zoomIn = element("button", { type: "button", "data-zoom": "in", "aria-label": "Zoom in", title: "Zoom in" }, "+");
  const fit = element("button", { type: "button", "data-zoom": "fit", title: "Zoom to fit the whole passage" }, "Fit passage");
  const open = element("a", { class: "cg-open", target: "_blank", rel: "noopener", title: "Open the PDF in a new tab" }, "Open");
  const download = element("a", { class: "cg-download", title: "Download the PDF" }, "Download");
  const legend = element("ul", { class: "cg-legend", "aria-label": "Highlight legend" },
    ...LEGEND.map(([outcome, words]) => {
      const { css } = outcomeOf(outcome);
      return element("li", {}, element("span", { class: `cg-swatch cg-outcome-${css}`, "aria-hidden": "true" }), words);
    }));
  const controls = element("div", { class: "cg-toolbar-row" }, pager, passage,
    element("span", { class: "cg-zoom" }, zoomOut, zoomIn, fit), open, download);
  host.append(controls, legend);

  const go = () => viewer.goToPage(Number(pageInput.value));
  pageInput.addEventListener("change", go);
  pageInput.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      go();
    }
  });
  zoomOut.addEventListener("click", () => viewer.zoomBy(0.8));
  zoomIn.addEventListener("click", () => viewer.zoomBy(1.25));
  fit.addEventListener("click", () => viewer.fitHighlight());
  return { pageInput, pageCount, passage, fit, open, download };
}

export class CiteViewer {
  #host;
  #scroller;
  #viewerDiv;
  #message;
  #status;
  #options;
  #base;

  #libs = null;
  #initPromise = null;
  #eventBus = null;
  #linkService = null;
  #pdfViewer = null;
  #worker = null;

  #url = null;
  #openPromise = null;
  #loadingTask = null;
  #generation = 0;
  #scaleValue;

  #highlights = new Map();
  #highlightSeq = 0;
  #title = "";
  #userZoomed = false;
  #toolbar = null;
  #renderedPages = new Set();
  /** url -> loading task of a document prefetch() opened and open() has not taken yet. */
  #prefetched = new Map();
  /** The highlight waiting for its page's canvas before it counts as drawn: {seq, page}. */
  #pendingDrawn = null;
  /** PDFPageProxy -> its words' quadrilaterals (see pageGlyphs), once known. */
  #glyphs = new WeakMap();
  /** page -> word boxes the highlight brought (a scan's OCR text), PDF user space. */
  #pageWords = new Map();

  /**
   * @param {HTMLElement} element  sized by the page; the viewer fills it.
   * @param {Partial<typeof DEFAULTS>} options
   */
  constructor(element, options = {}) {
    if (!(element instanceof HTMLElement)) {
      throw new TypeError("CiteViewer needs the element to draw into, e.g. document.querySelector('#pdf').");
    }
    this.#options = { ...DEFAULTS, ...options };
    this.#base = new URL(this.#options.pdfjsBase.replace(/\/?$/, "/"), document.baseURI).href;
    this.#scaleValue = this.#options.scale;

    const host = (this.#host = element);
    host.classList.add("cg-viewer");
    if (getComputedStyle(host).position === "static") {
      host.style.position = "relative";
    }
    // pdf.js requires an absolutely positioned scroll container whose first
    // child is div.pdfViewer (see simpleviewer). Structural styles are inline
    // so they hold even before (or without) the stylesheets.
    const scroller = (this.#scroller = document.createElement("div"));
    scroller.className = "cg-viewer-container";
    scroller.style.cssText = "position:absolute;inset:0;overflow:auto;";
    scroller.tabIndex = 0;
    scroller.setAttribute("role", "region");
    scroller.setAttribute("aria-label", "Source document");
    const viewerDiv = (this.#viewerDiv = document.createElement("div"));
    viewerDiv.className = "pdfViewer";
    scroller.append(viewerDiv);

    const message = (this.#message = document.createElement("div"));
    message.className = "cg-viewer-message";
    message.setAttribute("role", "alert");
    message.hidden = true;

    const status = (this.#status = document.createElement("div"));
    status.className = "cg-viewer-status";
    status.setAttribute("role", "status");
    status.setAttribute("aria-live", "polite");

    host.replaceChildren(scroller, message, status);
    this.#setState("empty");
    if (this.#options.toolbar instanceof HTMLElement) {
      this.#toolbar = buildToolbar(this.#options.toolbar, this);
    }
  }

  /** Go to `page` (clamped to the document), as the toolbar's page box does. */
  goToPage(page) {
    const viewer = this.#pdfViewer;
    if (!viewer?.pagesCount || !Number.isFinite(page)) {
      return;
    }
    viewer.currentPageNumber = Math.min(viewer.pagesCount, Math.max(1, Math.round(page)));
  }

  /**
   * Zoom by `factor` (the toolbar's − and +) and keep the passage in view: when
   * any of the highlight was on screen before, it is scrolled back into view.
   */
  zoomBy(factor) {
    const wasVisible = this.#passageVisible();
    this.#userZoomed = true;
    this.zoom(Math.min(5, Math.max(0.25, (this.currentScale || 1) * factor)));
    if (wasVisible) {
      this.#scrollToPassage();
    }
  }

  /** The element passed to the constructor (dataset.currentPage, dataset.state live here). */
  get element() {
    return this.#host;
  }

  /** pdf.js's PDFViewer, once open() has started (for tests and advanced use). */
  get pdfViewer() {
    return this.#pdfViewer;
  }

  get eventBus() {
    return this.#eventBus;
  }

  /** Absolute URL of the open (or opening) document, or null. */
  get url() {
    return this.#url;
  }

  get pagesCount() {
    return this.#pdfViewer?.pagesCount ?? 0;
  }

  get currentPage() {
    return this.#pdfViewer?.currentPageNumber ?? 0;
  }

  /** Current zoom factor (1 = 100 %: one PDF point is 96/72 CSS pixels). */
  get currentScale() {
    return this.#pdfViewer?.currentScale ?? 0;
  }

  /** Page numbers pdf.js has drawn a canvas for since the document was opened. */
  get renderedPages() {
    return [...this.#renderedPages].sort((a, b) => a - b);
  }

  /** The highlights being shown: [{page, rects}], rects in PDF user space. */
  get highlights() {
    return [...this.#highlights].map(([page, items]) => ({
      page,
      rects: items.map((item) => item.rect.slice()),
      outcomes: items.map((item) => item.css),
    }));
  }

  /**
   * Open and highlight what a server `highlight` event carries: {url, title?,
   * pages?: page entries, groups?: groups, outcome?, label?} (see the top of
   * this file). `groups` wins over `pages`; `outcome`/`label` are the defaults
   * for entries without their own. A group with a `url` of its own is drawn
   * only when that is the document opened: the two passages of a wrong-source
   * citation can lie in different PDFs.
   */
  async show(detail) {
    const { url, title, pages, groups, outcome, label } = detail ?? {};
    this.#title = typeof title === "string" ? title : "";
    if (url) {
      await this.open(url);
    }
    const here = url ? new URL(url, document.baseURI).href : this.#url;
    const drawn = groups?.filter(
      (group) => !group.url || new URL(group.url, document.baseURI).href === here);
    return this.highlight(drawn ?? pages ?? [], { outcome: outcome ?? detail?.kind, label });
  }

  /**
   * Zoom so the first highlighted passage (its boxes on its first page) fills
   * the view, then scroll to it. Does nothing without a highlight.
   */
  fitHighlight() {
    const target = this.#firstPassage();
    if (!target) {
      return;
    }
    const { page, rects } = target;
    const viewer = this.#pdfViewer;
    const viewport = viewer.getPageView(page - 1).viewport;
    const box = unionBox(rects.map((rect) => viewportBox(viewport, rect)));
    const margin = this.#options.scrollMargin;
    const { clientWidth, clientHeight } = this.#scroller;
    const perScale = viewer.currentScale;
    const fit = Math.min(
      (clientWidth - 2 * margin) / (box.width / perScale),
      (clientHeight - 2 * margin) / (box.height / perScale),
      3,
    );
    this.#userZoomed = true;
    this.zoom(Math.max(this.#options.minFitScale, fit));
    this.#scrollToPassage();
  }

  /**
   * Load `url` (same origin). Resolves with {url, pages} once the pages are laid
   * out; a URL already open (or opening) is reused. On failure the container
   * shows a readable message and the promise rejects.
   */
  open(url) {
    if (typeof url !== "string" || url === "") {
      return Promise.reject(new TypeError("open() takes the PDF's URL as a non-empty string."));
    }
    const absolute = new URL(url, document.baseURI).href;
    if (absolute === this.#url && this.#openPromise) {
      return this.#openPromise;
    }
    this.#url = absolute;
    const generation = ++this.#generation;
    const promise = this.#load(absolute, generation);
    this.#openPromise = promise;
    // Callers that never await open() (e.g. only highlight()) should not see
    // an "unhandled rejection": the error is already shown in the container.
    promise.catch(() => {});
    return promise;
  }

  /**
   * Show `pages` ([{page, rects: [[x0, y0, x1, y1], ...]}], PDF user space) on
   * the open document: replaces earlier highlights, scrolls the first rectangle
   * into view and draws the overlays. Pages outside the document are skipped
   * with a console warning. Resolves with the number of overlays drawn.
   */
  async highlight(pages, { scroll = true, outcome, label } = {}) {
    const { byPage: wanted, words } = normalizeHighlights(pages, { outcome, label });
    const seq = ++this.#highlightSeq;
    if (!this.#openPromise) {
      throw new Error("highlight(): open() a PDF first.");
    }
    await this.#openPromise;
    if (seq !== this.#highlightSeq) {
      throw abortError("highlight() was superseded by a later call.");
    }
    const viewer = this.#pdfViewer;
    const pdfDocument = viewer.pdfDocument;
    for (const page of wanted.keys()) {
      if (page > viewer.pagesCount) {
        console.warn(`CiteViewer: page ${page} is not in this ${viewer.pagesCount}-page document; skipped.`);
        wanted.delete(page);
      }
    }
    this.#removeOverlays();
    this.#highlights = wanted;
    this.#pageWords = words;

    // A page's true size and rotation are known only once pdf.js has fetched
    // it; until then it is drawn with page 1's. Fetch the highlighted pages now
    // (as PDFViewer does before rendering one) and give pdf.js a moment to
    // learn the sizes of the pages above, which decide where the target lies.
    const superseded = () => seq !== this.#highlightSeq || viewer.pdfDocument !== pdfDocument;
    const sizesKnown = viewer.pagesPromise;
    let sizesSettled = false;
    sizesKnown?.then(
      () => (sizesSettled = true),
      () => (sizesSettled = true),
    );
    try {
      await Promise.all(
        [...wanted.keys()].map(async (page) => {
          const pageView = viewer.getPageView(page - 1);
          if (!pageView.pdfPage) {
            const pdfPage = await pdfDocument.getPage(page);
            if (!pageView.pdfPage) {
              pageView.setPdfPage(pdfPage);
            }
          }
        }),
      );
      await Promise.race([sizesKnown?.catch(() => {}), delay(this.#options.pageSizesWaitMs)]);
    } catch (error) {
      if (!superseded()) {
        throw error;
      }
    }
    if (superseded()) {
      throw abortError("highlight() was superseded by a later call.");
    }

    let drawn = 0;
    for (const page of wanted.keys()) {
      drawn += this.#drawPage(page);
    }
    mark("highlight-placed", { seq });
    const first = this.#firstPassage();
    if (scroll && first) {
      this.#fitIfTooBig();
      this.#scrollToPassage();
      if (!sizesSettled && sizesKnown) {
        const { scrollTop, scrollLeft } = this.#scroller;
        sizesKnown.then(() => {
          const untouched = this.#scroller.scrollTop === scrollTop && this.#scroller.scrollLeft === scrollLeft;
          if (seq === this.#highlightSeq && untouched && viewer.pdfDocument === pdfDocument) {
            this.#scrollToPassage();
          }
        }, () => {});
      }
    }
    this.#announce(wanted);
    this.#updateToolbar();
    if (first) {
      this.#pendingDrawn = { seq, page: first.page };
      if (viewer.getPageView(first.page - 1)?.renderingState === RENDERING_FINISHED) this.#signalDrawn();
    }
    return drawn;
  }

  /**
   * The highlight is drawn once its boxes are on a page whose canvas pdf.js
   * has painted: then (in the next frame) the element gets
   * data-highlight-drawn="<n>" (n counts highlights) and dispatches a bubbling
   * "highlightdrawn" event, detail {page, at: performance.now()}.
   */
  #signalDrawn() {
    const pending = this.#pendingDrawn;
    if (!pending || pending.seq !== this.#highlightSeq) return;
    this.#pendingDrawn = null;
    mark("highlight-on-painted-page", { page: pending.page });
    requestAnimationFrame(() => {
      if (pending.seq !== this.#highlightSeq) return;
      const at = performance.now();
      mark("highlight-drawn", { page: pending.page });
      this.#host.dataset.highlightDrawn = String(pending.seq);
      this.#host.dispatchEvent(new CustomEvent("highlightdrawn", {
        bubbles: true, detail: { page: pending.page, at },
      }));
    });
  }

  /**
   * Get ready to show `documents` ([{url, pages: [n, ...]}], most likely first)
   * without showing anything: load pdf.js and its worker, open each document
   * and draw its `pages` once off screen, so that pdf.js has parsed them and
   * loaded their fonts, and learn where their words are (for the tags). A
   * later open() of one of these URLs takes the opened document. With
   * `show`, the first document is opened in the viewer itself and its first
   * cited page drawn there (the element must have its size: the page may
   * keep it out of sight meanwhile), so that the first highlight on it only
   * draws its boxes. Call it when the page is idle; it never throws (a
   * document that fails shows its error when it is opened for real).
   * Resolves with how many pages were drawn.
   */
  async prefetch(documents, { show = false } = {}) {
    let drawn = 0;
    try {
      await this.#init();
      mark("prefetch-start");
      const first = documents?.[0];
      if (show && typeof first?.url === "string" && first.url && !this.#url) {
        const rendered = new Promise((resolve) => {
          const onRendered = ({ pageNumber, cssTransform, isDetailView }) => {
            if (!cssTransform && !isDetailView && pageNumber === (first.pages?.[0] ?? 1)) {
              this.#eventBus.off("pagerendered", onRendered);
              resolve();
            }
          };
          this.#eventBus.on("pagerendered", onRendered);
          setTimeout(resolve, 5000);
        });
        await this.open(first.url);
        this.goToPage(first.pages?.[0] ?? 1);
        await rendered;
        mark("prefetch-shown", { url: first.url });
      }
      for (const { url, pages = [] } of documents ?? []) {
        if (typeof url !== "string" || !url) continue;
        const absolute = new URL(url, document.baseURI).href;
        if (absolute === this.#url || this.#prefetched.has(absolute)) continue;
        const task = this.#getDocument(absolute);
        this.#prefetched.set(absolute, task);
        const pdfDocument = await task.promise;
        for (const number of new Set(pages)) {
          if (!Number.isInteger(number) || number < 1 || number > pdfDocument.numPages) continue;
          const pdfPage = await pdfDocument.getPage(number);
          const glyphs = pageGlyphs(pdfPage).then((quads) => this.#glyphs.set(pdfPage, quads));
          // Drawn as PDFViewer will (same intent and annotation mode), at a
          // small size: the parsing and fonts are what it keeps.
          const viewport = pdfPage.getViewport({ scale: 0.25 });
          const canvas = document.createElement("canvas");
          canvas.width = Math.ceil(viewport.width);
          canvas.height = Math.ceil(viewport.height);
          await pdfPage.render({
            canvas, canvasContext: canvas.getContext("2d"), viewport,
            annotationMode: this.#libs.lib.AnnotationMode.ENABLE,
          }).promise;
          await glyphs;
          canvas.width = canvas.height = 0;
          drawn++;
        }
      }
      mark("prefetch-done", { pages: drawn });
      this.#host.dataset.prefetched = String(drawn);
    } catch (error) {
      if (error?.name !== "AbortError") console.warn("CiteViewer: prefetch stopped", error);
    }
    return drawn;
  }

  /** Remove every highlight. */
  clear() {
    this.#highlightSeq++;
    this.#highlights = new Map();
    this.#pageWords = new Map();
    this.#removeOverlays();
    this.#status.textContent = "";
    this.#updateToolbar();
  }

  /**
   * Zoom to `scale`: a number (1 = 100 %) or "page-width" (the default),
   * "page-fit", "page-actual", "auto". Highlights follow on the next render.
   */
  zoom(scale) {
    const valid = typeof scale === "number"
      ? Number.isFinite(scale) && scale > 0
      : ["page-width", "page-fit", "page-actual", "page-height", "auto"].includes(scale);
    if (!valid) {
      throw new TypeError(`zoom() takes a positive number or "page-width", "page-fit", "auto"; got ${scale}.`);
    }
    this.#scaleValue = scale;
    if (this.#pdfViewer?.pdfDocument) {
      if (typeof scale === "number") {
        this.#pdfViewer.currentScale = scale;
      } else {
        this.#pdfViewer.currentScaleValue = scale;
      }
    }
  }

  /** Close the document and empty the element. */
  destroy() {
    for (const task of this.#prefetched.values()) task.destroy();
    this.#prefetched.clear();
    this.#generation++;
    this.#highlightSeq++;
    this.#loadingTask?.destroy();
    this.#loadingTask = null;
    this.#pdfViewer?.setDocument(null);
    this.#linkService?.setDocument(null);
    this.#worker?.destroy();
    this.#worker = null;
    this.#initPromise = null;
    this.#url = null;
    this.#openPromise = null;
    this.#host.replaceChildren();
    this.#host.classList.remove("cg-viewer");
  }

  /**
   * Follow htmx's server-driven events: `trigger_client_event(response,
   * "highlight", {"url": ..., "pages": [{"page": n, "rects": [...]}]})` makes
   * htmx dispatch a `highlight` event whose detail is that object; it bubbles
   * to document.body. Returns a function that stops listening.
   */
  static listen(viewer, { target = document.body, eventName = "highlight" } = {}) {
    const onEvent = async (event) => {
      try {
        await viewer.show(event.detail ?? {});
      } catch (error) {
        if (error?.name !== "AbortError") {
          console.error("CiteViewer: could not show the highlight", error);
        }
      }
    };
    target.addEventListener(eventName, onEvent);
    return () => target.removeEventListener(eventName, onEvent);
  }

  // ---- internals -------------------------------------------------------

  async #init() {
    this.#initPromise ??= (async () => {
      const styles = this.#options.stylesheets
        ? Promise.all([ensureStylesheet(new URL("web/pdf_viewer.css", this.#base).href), ensureStylesheet(VIEWER_CSS)])
        : Promise.resolve();
      const [libs] = await Promise.all([loadPdfjs(this.#base), styles]);
      this.#libs = libs;
      const { EventBus, PDFLinkService, PDFViewer } = libs.viewerLib;
      const eventBus = (this.#eventBus = new EventBus());
      const linkService = (this.#linkService = new PDFLinkService({ eventBus }));
      const pdfViewer = (this.#pdfViewer = new PDFViewer({
        container: this.#scroller,
        viewer: this.#viewerDiv,
        eventBus,
        linkService,
        textLayerMode: this.#options.textLayer ? 1 : 0,
        annotationMode: libs.lib.AnnotationMode.ENABLE,
      }));
      linkService.setViewer(pdfViewer);
      // One worker for every document this viewer opens: switching documents
      // does not start (and parse) pdf.worker.min.mjs again.
      this.#worker = new libs.lib.PDFWorker({ name: "citeguard-viewer" });
      this.#worker.promise.then(() => mark("worker-ready"), () => {});

      eventBus.on("pagesinit", () => {
        this.#applyScale();
      });
      eventBus.on("pagechanging", ({ pageNumber }) => {
        this.#host.dataset.currentPage = String(pageNumber);
        this.#updateToolbar();
      });
      eventBus.on("pagerendered", ({ pageNumber, cssTransform, isDetailView }) => {
        if (!cssTransform && !isDetailView) {
          this.#renderedPages.add(pageNumber);
          this.#host.dataset.renderedPages = String(this.#renderedPages.size);
        }
        if (this.#highlights.has(pageNumber)) {
          this.#drawPage(pageNumber);
        }
        if (!cssTransform && !isDetailView) {
          mark("page-rendered", { page: pageNumber });
          if (this.#pendingDrawn?.page === pageNumber) this.#signalDrawn();
        }
      });
      // The page boxes change size at once on zoom/rotation; move the overlays
      // with them instead of waiting for the (lazy) re-render.
      const redrawAll = () => {
        for (const page of this.#highlights.keys()) {
          this.#drawPage(page);
        }
      };
      eventBus.on("scalechanging", redrawAll);
      eventBus.on("rotationchanging", redrawAll);
    })();
    try {
      await this.#initPromise;
    } catch (error) {
      this.#initPromise = null;
      throw error;
    }
  }

  #applyScale() {
    const scale = this.#scaleValue;
    if (typeof scale === "number") {
      this.#pdfViewer.currentScale = scale;
    } else {
      this.#pdfViewer.currentScaleValue = scale;
    }
  }

  async #load(url, generation) {
    this.clear();
    mark("open", { url });
    const prefetched = this.#prefetched.get(url);
    this.#prefetched.delete(url);
    // A prefetched document is (nearly) there: no "Loading" screen flashes.
    this.#setState("loading", prefetched ? "" : "Loading the PDF…");
    let pdfDocument = null;
    try {
      await this.#init();
      this.#pdfViewer.setDocument(null);
      await this.#loadingTask?.destroy();
      this.#loadingTask = null;
      this.#linkService.setDocument(null);
      this.#renderedPages = new Set();
      delete this.#host.dataset.currentPage;
      delete this.#host.dataset.renderedPages;
      if (generation !== this.#generation) {
        throw abortError("open() was superseded by a later call.");
      }

      const task = (this.#loadingTask = prefetched ?? this.#getDocument(url));
      pdfDocument = await task.promise;
      mark("document-ready", { url, prefetched: Boolean(prefetched) });
      if (generation !== this.#generation) {
        throw abortError("open() was superseded by a later call.");
      }

      const eventBus = this.#eventBus;
      const pagesInit = new Promise((resolve) => eventBus.on("pagesinit", resolve, { once: true }));
      this.#pdfViewer.setDocument(pdfDocument);
      this.#linkService.setDocument(pdfDocument, null);
      // pagesPromise rejects if the viewer cannot lay the document out.
      await Promise.race([pagesInit, this.#pdfViewer.pagesPromise.then(() => pagesInit)]);
      if (generation !== this.#generation) {
        throw abortError("open() was superseded by a later call.");
      }
      mark("pages-laid-out");
      // pdf.js starts on page 1 without a "pagechanging" event.
      this.#host.dataset.currentPage = String(this.#pdfViewer.currentPageNumber);
      this.#setState("ready");
      this.#updateToolbar();
      return { url, pages: pdfDocument.numPages };
    } catch (error) {
      if (generation === this.#generation) {
        this.#url = null;
        this.#openPromise = null;
        this.#pdfViewer?.setDocument(null);
        this.#linkService?.setDocument(null);
        this.#setState("error", this.#describeError(error, url));
        throw error;
      }
      pdfDocument?.destroy();
      throw abortError("open() was superseded by a later call.");
    }
  }

  /**
   * A loading task ({promise, destroy}) for the PDF at `url`. The first
   * RANGE_CHUNK bytes are asked for with a Range header: a server that takes
   * ranges answers 206 with the file's length, and pdf.js then asks, through
   * a range transport, only for the parts it needs (the cross-reference
   * table, the objects of the pages it draws): a long PDF opens at its cited
   * page without its whole download, and without pdf.js's own first request
   * for the whole file, which the server would have streamed until the
   * browser gave up on it. A server that sends the whole file is used as it
   * is; an error status leaves pdf.js to ask and report it as usual.
   */
  #getDocument(url) {
    const { lib } = this.#libs;
    const common = {
      // Only what the pages drawn need: no background download of the rest.
      disableAutoFetch: true,
      disableStream: true,
      rangeChunkSize: RANGE_CHUNK,
      // Scanned and faxed pages: pdf.js 6 decodes JBIG2, CCITT (through the
      // JBIG2 module) and JPX (OpenJPEG) images with WebAssembly fetched from
      // wasmUrl, and draws them blank without it; qcms (colour profiles)
      // comes from there too, the CMYK profile from iccUrl. CJK text needs
      // cMapUrl; the 14 standard fonts (unembedded Helvetica, Times…) and
      // OCR layers in them need standardFontDataUrl.
      cMapUrl: new URL("cmaps/", this.#base).href,
      cMapPacked: true,
      standardFontDataUrl: new URL("standard_fonts/", this.#base).href,
      wasmUrl: new URL("wasm/", this.#base).href,
      iccUrl: new URL("iccs/", this.#base).href,
      isEvalSupported: false,
      worker: this.#worker,
    };
    let inner = null;
    let destroyed = false;
    // Said in the viewer only while this is the document it shows (not a
    // prefetch the reviewer has not opened).
    const onFail = (message) => {
      if (!destroyed && this.#loadingTask === task) this.#setState("error", message);
    };
    const promise = rangeSource(lib, url, onFail, this.#options.rangeTimeout).then((source) => {
      if (destroyed) throw abortError("The PDF's loading was stopped.");
      inner = lib.getDocument({ ...common, ...source });
      return inner.promise;
    });
    const task = {
      promise,
      async destroy() {
        destroyed = true;
        await inner?.destroy();
      },
    };
    return task;
  }

  #describeError(error, url) {
    const last = new URL(url).pathname.split("/").pop() || url;
    let name = last;
    try {
      name = decodeURIComponent(last);
    } catch {
      // keep it encoded
    }
    const lib = this.#libs?.lib;
    if (!lib) {
      return `The PDF viewer could not start (pdf.js did not load from ${this.#base}): ${error?.message ?? error}`;
    }
    if (error instanceof lib.ResponseException || error?.name === "ResponseException") {
      if (error.status === 404) {
        return `The source document “${name}” was not found (HTTP 404).`;
      }
      if (error.status) {
        return `The source document “${name}” could not be loaded (HTTP ${error.status}).`;
      }
      return `The source document “${name}” could not be loaded: ${error.message}`;
    }
    if (error instanceof lib.InvalidPDFException || error?.name === "InvalidPDFException") {
      return `“${name}” is not a valid PDF file, so it cannot be shown.`;
    }
    if (error instanceof lib.PasswordException || error?.name === "PasswordException") {
      return `“${name}” is password-protected and cannot be shown here.`;
    }
    return `The source document “${name}” could not be shown: ${error?.message ?? error}`;
  }

  #setState(state, message = "") {
    this.#host.dataset.state = state;
    this.#host.setAttribute("aria-busy", String(state === "loading"));
    this.#message.textContent = message;
    this.#message.hidden = !message;
    this.#message.classList.toggle("cg-viewer-error", state === "error");
    this.#message.setAttribute("role", state === "error" ? "alert" : "status");
  }

  #removeOverlays() {
    for (const el of this.#viewerDiv.querySelectorAll(".cg-highlight, .cg-tag")) {
      el.remove();
    }
  }

  /** (Re)draw the overlays of one page in its current viewport; returns how many. */
  #drawPage(page) {
    const pageView = this.#pdfViewer?.getPageView(page - 1);
    const div = pageView?.div;
    if (!div) {
      return 0;
    }
    for (const el of div.querySelectorAll(":scope > .cg-highlight, :scope > .cg-tag")) {
      el.remove();
    }
    const items = this.#highlights.get(page) ?? [];
    const firstPage = this.#highlights.keys().next().value;
    // Where each group starts and ends: labels on a group's first box, a
    // "continues on page N" cue under its last box on a page it leaves.
    const groupPages = new Map();
    for (const [number, list] of this.#highlights) {
      for (const item of list) {
        const pages = groupPages.get(item.group) ?? [];
        if (pages.at(-1) !== number) pages.push(number);
        groupPages.set(item.group, pages);
      }
    }
    // Tags go where they cover no word of the page: they wait for the page's
    // text positions (asked for once per page, usually long before).
    const pdfPage = pageView.pdfPage;
    const glyphs = pdfPage ? this.#glyphs.get(pdfPage) : undefined;
    if (pdfPage && glyphs === undefined) {
      pageGlyphs(pdfPage).then((quads) => {
        this.#glyphs.set(pdfPage, quads);
        if (this.#highlights.has(page) && pageView.pdfPage === pdfPage) this.#drawPage(page);
      }, () => this.#glyphs.set(pdfPage, []));
    }
    const fragment = document.createDocumentFragment();
    const labelled = new Set();
    const boxes = [];
    const tags = [];
    items.forEach((item, index) => {
      const box = viewportBox(pageView.viewport, item.rect);
      const { left, top, width, height } = box;
      boxes.push(box);
      const el = document.createElement("div");
      el.className = `cg-highlight cg-outcome-${item.css}`;
      if (page === firstPage && index === 0) {
        el.classList.add("cg-highlight-first");
      }
      el.dataset.page = String(page);
      el.dataset.index = String(index);
      el.dataset.outcome = item.css;
      el.title = item.label;
      el.setAttribute("aria-hidden", "true");
      placeBox(el, left, top, width, height);
      fragment.append(el);
      if (glyphs === undefined) return;
      const pages = groupPages.get(item.group);
      if (pages[0] === page && !labelled.has(item.group)) {
        labelled.add(item.group);
        const tag = document.createElement("span");
        tag.className = `cg-tag cg-tag-label cg-outcome-${item.css}`;
        tag.textContent = item.label;
        tag.setAttribute("aria-hidden", "true");
        tags.push({ el: tag, anchor: box, below: false });
        fragment.append(tag);
      }
      const here = pages.indexOf(page);
      const lastHere = items.findLastIndex((other) => other.group === item.group) === index;
      if (lastHere && here >= 0 && here < pages.length - 1) {
        const next = pages[here + 1];
        const cue = document.createElement("button");
        cue.type = "button";
        cue.className = `cg-tag cg-continues cg-outcome-${item.css}`;
        cue.dataset.nextPage = String(next);
        cue.textContent = `continues on page ${next} ↓`;
        cue.addEventListener("click", () => {
          const target = this.#highlights.get(next)?.find((other) => other.group === item.group);
          if (target) this.#scrollTo(next, [target.rect]);
        });
        tags.push({ el: cue, anchor: box, below: true });
        fragment.append(cue);
      }
    });
    div.append(fragment);
    if (tags.length) {
      const { viewport } = pageView;
      const obstacles = [
        ...glyphs.map((quad) => quadBox(viewport, quad)),
        ...(this.#pageWords.get(page) ?? []).map((rect) => viewportBox(viewport, rect)),
        ...boxes,
      ];
      for (const { el, anchor, below } of tags) {
        obstacles.push(placeTag(el, anchor, obstacles, viewport.width, viewport.height, { below }));
      }
    }
    return items.length;
  }

  /** The first group's boxes on its first page: {page, rects} or null. */
  #firstPassage() {
    for (const [page, items] of this.#highlights) {
      if (items.length) {
        const group = items[0].group;
        return { page, rects: items.filter((item) => item.group === group).map((item) => item.rect) };
      }
    }
    return null;
  }

  #scrollToPassage() {
    const target = this.#firstPassage();
    if (target) {
      this.#scrollTo(target.page, target.rects);
    }
  }

  /** Is any box of the first passage inside the visible part of the viewer? */
  #passageVisible() {
    const target = this.#firstPassage();
    if (!target) {
      return false;
    }
    const view = this.#scroller.getBoundingClientRect();
    return [...this.#viewerDiv.querySelectorAll(`.cg-highlight[data-page="${target.page}"]`)].some((el) => {
      const r = el.getBoundingClientRect();
      return r.bottom > view.top && r.top < view.bottom && r.right > view.left && r.left < view.right;
    });
  }

  /**
   * A passage taller or wider than the view at the automatic zoom is zoomed
   * out until it fits (not below minFitScale); a zoom the reader chose stays.
   */
  #fitIfTooBig() {
    const target = this.#firstPassage();
    if (!target || this.#userZoomed || typeof this.#scaleValue === "number") {
      return;
    }
    const viewer = this.#pdfViewer;
    const viewport = viewer.getPageView(target.page - 1).viewport;
    const box = unionBox(target.rects.map((rect) => viewportBox(viewport, rect)));
    const margin = this.#options.scrollMargin;
    const { clientWidth, clientHeight } = this.#scroller;
    if (box.height + 2 * margin <= clientHeight && box.width <= clientWidth) {
      return;
    }
    const scale = viewer.currentScale;
    const fit = Math.min(
      (clientHeight - 2 * margin) / (box.height / scale),
      (clientWidth - margin) / (box.width / scale),
    );
    viewer.currentScale = Math.max(this.#options.minFitScale, Math.min(scale, fit));
  }

  /** Scroll so the union of `rects` on `page` is in view (its top-left first when too big). */
  #scrollTo(page, rects) {
    const viewer = this.#pdfViewer;
    const { viewport } = viewer.getPageView(page - 1);
    const box = unionBox(rects.map((rect) => viewportBox(viewport, rect)));
    const margin = this.#options.scrollMargin;
    const { clientWidth, clientHeight } = this.#scroller;
    // Aim `margin` px above and left of the box, but do not scroll past the
    // page's far edge while the box stays in view: a passage at the foot of a
    // page then shows with the text above it, and its page stays the one
    // that fills the view (the one pdf.js reports as current). A box bigger
    // than the view shows its start.
    const place = (start, size, pageSize, viewSize) =>
      size + 2 * margin > viewSize
        ? start - margin
        : Math.max(Math.min(start - margin, pageSize - viewSize), start + size + margin - viewSize);
    const left = place(box.left, box.width, viewport.width, clientWidth);
    const top = place(box.top, box.height, viewport.height, clientHeight);
    // XYZ destinations are PDF points: convert back (right for any rotation).
    const [x, y] = viewport.convertToPdfPoint(left, top);
    viewer.scrollPageIntoView({ pageNumber: page, destArray: [null, { name: "XYZ" }, x, y, null] });
  }

  #updateToolbar() {
    const toolbar = this.#toolbar;
    if (!toolbar) {
      return;
    }
    const count = this.pagesCount;
    toolbar.pageInput.max = String(count || 1);
    toolbar.pageInput.disabled = !count;
    if (document.activeElement !== toolbar.pageInput) {
      toolbar.pageInput.value = count ? String(this.currentPage) : "";
    }
    toolbar.pageCount.textContent = count ? String(count) : "–";
    for (const link of [toolbar.open, toolbar.download]) {
      if (this.#url) {
        link.href = this.#url;
        link.removeAttribute("aria-disabled");
      } else {
        link.removeAttribute("href");
        link.setAttribute("aria-disabled", "true");
      }
    }
    const name = (this.#title || new URL(this.#url ?? "x:/document").pathname.split("/").pop() || "document")
      .replace(/[\\/:*?"<>|]+/g, " ").trim();
    toolbar.download.download = /\.pdf$/i.test(name) ? name : `${name}.pdf`;
    const pages = [...this.#highlights].filter(([, items]) => items.length).map(([page]) => page);
    toolbar.passage.textContent = pages.length > 1
      ? `passage: pages ${pages[0]}–${pages.at(-1)}`
      : pages.length ? `passage: page ${pages[0]}` : "";
    toolbar.fit.disabled = !pages.length;
  }

  #announce(highlights) {
    const pages = [...highlights].filter(([, items]) => items.length).map(([page]) => page);
    const count = [...highlights.values()].reduce((n, items) => n + items.length, 0);
    if (!count) {
      this.#status.textContent = "";
      return;
    }
    const where = pages.length === 1 ? `page ${pages[0]}` : `pages ${pages.join(", ")}`;
    const labels = [...new Set([...highlights.values()].flat().map((item) => item.label))];
    this.#status.textContent = `Highlighted on ${where}: ${labels.join("; ")}.`;
  }
}
