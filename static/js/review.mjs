// The review page: keyboard navigation, decisions, and the PDF viewer that
// the server tells what to highlight (an htmx "highlight" event per panel).
import { CiteViewer } from "./citeguard-viewer.mjs";

const container = document.getElementById("pdf-viewer");
const frame = document.querySelector(".viewer-frame");
const title = document.querySelector(".viewer-title");
let viewer = null;

// `detail` is the server's highlight event: {url, title, pages | groups,
// outcome?, label?}; CiteViewer.show() documents the shape.
async function showHighlight(detail) {
  const hasPdf = Boolean(detail && detail.url);
  frame.hidden = !hasPdf;
  document.querySelector(".split-handle")?.toggleAttribute("hidden", !hasPdf);
  if (!hasPdf) {
    if (viewer) viewer.clear();
    return;
  }
  if (title) title.textContent = detail.title || "";
  viewer ??= new CiteViewer(container, {
    pdfjsBase: container.dataset.pdfjsBase,
    toolbar: frame.querySelector(".viewer-toolbar"),
  });
  await viewer.show(detail);
}

document.body.addEventListener("highlight", (event) => showHighlight(event.detail));
const initial = JSON.parse(document.getElementById("initial-highlight")?.textContent || "null");
if (initial) showHighlight(initial);

// Keyboard: j/k move, n jumps to the next failing sentence, Enter opens,
// a/r/e decide, ? shows the keys. Typing in a field is never intercepted.
const sentences = [...document.querySelectorAll("li.sentence")];
let current = -1;

function select(index) {
  if (!sentences.length) return;
  current = Math.max(0, Math.min(sentences.length - 1, index));
  sentences.forEach((li, i) => li.classList.toggle("selected", i === current));
  sentences[current].scrollIntoView({ block: "nearest" });
  sentences[current].focus({ preventScroll: true });
}

function open() {
  if (current < 0) select(0);
  sentences[current]?.querySelector("a.sentence-open")?.click();
}

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input, textarea, select, [contenteditable]")) return;
  const help = document.getElementById("keys-help");
  switch (event.key) {
    case "j": select(current + 1); break;
    case "k": select(current - 1); break;
    case "n": {
      const next = sentences.findIndex((li, i) => i > current && li.classList.contains("failing"));
      const wrap = sentences.findIndex((li) => li.classList.contains("failing"));
      if (next >= 0 || wrap >= 0) { select(next >= 0 ? next : wrap); open(); }
      break;
    }
    case "Enter": open(); break;
    case "a": case "r": case "e":
      document.querySelector(`.decide button[data-key="${event.key}"]`)?.click();
      break;
    case "?": help?.open ? help.close() : help?.showModal(); break;
    default: return;
  }
  event.preventDefault();
});

// A sentence opened by mouse becomes the keyboard's current one too.
document.querySelector("ol.sentences")?.addEventListener("click", (event) => {
  const li = event.target.closest("li.sentence");
  if (li) select(sentences.indexOf(li));
});

// Keep the matched span of a newly loaded panel in view inside its excerpt box.
document.body.addEventListener("htmx:afterSwap", (event) => {
  const excerpt = event.target.querySelector?.(".excerpt");
  const match = excerpt?.querySelector("mark.match");
  if (excerpt && match) excerpt.scrollTop = Math.max(0, match.offsetTop - excerpt.offsetTop - 24);
});
