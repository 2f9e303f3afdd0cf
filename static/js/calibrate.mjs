// The labelling queue's keys: 1/2/3 label, s skips, u undoes, v shows the
// passage in the PDF. Each key presses the page's own button, so htmx posts
// exactly what a click would (and the page works without this file).
// Typing in a field is never intercepted, nor a key with a modifier.
import { CiteViewer } from "./citeguard-viewer.mjs";

const frame = document.getElementById("label-viewer");
const container = document.getElementById("pdf-viewer");
const page = document.querySelector(".label-page");

// The PDF opens beside the item, as tall as the window, and the window
// scrolls to it: the passage in the PDF, the quote and the label buttons
// (which stick to the window's bottom) are then on one screen.
function setOpen(open) {
  frame.hidden = !open;
  page?.classList.toggle("pdf-open", open);
  revealWindow();
}
let viewer = null;

function currentHighlight() {
  return JSON.parse(document.getElementById("label-highlight")?.textContent || "null");
}

async function showPdf() {
  const detail = currentHighlight();
  if (!detail?.url) {
    setOpen(false);
    return;
  }
  const opening = frame.hidden;
  setOpen(true);
  if (opening) frame.scrollIntoView({ block: "start" });
  frame.querySelector(".viewer-title").textContent = detail.title || "";
  viewer ??= new CiteViewer(container, {
    pdfjsBase: container.dataset.pdfjsBase,
    toolbar: frame.querySelector(".viewer-toolbar"),
  });
  await viewer.show(detail);
}

function togglePdf() {
  if (frame.hidden) showPdf();
  else setOpen(false);
}

document.addEventListener("click", (event) => {
  if (event.target.closest?.(".show-pdf")) togglePdf();
});

// The source excerpt scrolls (inside itself) to the compared window.
function revealWindow() {
  const excerpt = document.querySelector("#label-queue .label-source .excerpt");
  const mark = excerpt?.querySelector("mark.compared");
  if (mark) excerpt.scrollTop = Math.max(0, mark.offsetTop - excerpt.offsetTop - 24);
}
revealWindow();

// A new item came in: an open viewer follows it (or closes when it has no PDF).
document.body.addEventListener("htmx:afterSwap", (event) => {
  if (event.detail.target?.id === "label-queue" || event.target?.id === "label-queue") {
    revealWindow();
    if (!frame.hidden) showPdf();
  }
});

// htmx processes swapped-in content only when it settles (20 ms later): a key
// pressed in between would submit the new form natively, as a page load. Such
// a key waits for the settle.
let waiting = null;
document.body.addEventListener("htmx:afterSettle", () => {
  const key = waiting;
  waiting = null;
  if (key) pressKey(key);
});

const busy = () => document.querySelector("#label-queue .htmx-request, #label-queue.htmx-request");
const settling = () => document.querySelector("#label-queue.htmx-added, #label-queue.htmx-settling");

function pressKey(key) {
  const button = document.querySelector(`#label-queue button[data-key="${CSS.escape(key)}"]:not([disabled])`);
  if (button) button.click();
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target instanceof HTMLElement && target.closest("input, textarea, select, [contenteditable]")) return;
  if (document.querySelector("dialog[open]")) return;
  const key = event.key.toLowerCase();
  if (key === "v") {
    event.preventDefault();
    togglePdf();
    return;
  }
  if (!["1", "2", "3", "s", "u"].includes(key)) return;
  event.preventDefault();
  // A key pressed while a request is out is dropped: it would label an item
  // nobody has seen yet. One pressed while the shown item settles waits.
  if (busy()) return;
  if (settling()) {
    waiting = key;
    return;
  }
  pressKey(key);
});
