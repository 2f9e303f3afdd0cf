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
  frame.classList.remove("cg-prefetching");
  frame.hidden = !hasPdf;
  document.querySelector(".split-handle")?.toggleAttribute("hidden", !hasPdf);
  if (!hasPdf) {
    if (viewer) viewer.clear();
    return;
  }
  if (title) title.textContent = detail.title || "";
  await ensureViewer().show(detail);
}

function ensureViewer() {
  viewer ??= new CiteViewer(container, {
    pdfjsBase: container.dataset.pdfjsBase,
    toolbar: frame.querySelector(".viewer-toolbar"),
  });
  return viewer;
}

// The first click finds pdf.js, its worker and the cited pages ready: once
// the page is idle they are loaded and drawn, the first in the viewer laid
// out out of sight at the width it will have.
const cited = JSON.parse(document.getElementById("cited-documents")?.textContent || "[]");
if (cited.length) (window.requestIdleCallback ?? setTimeout)(prefetch);

async function prefetch() {
  const offscreen = frame.hidden;
  if (offscreen) {
    const column = getComputedStyle(frame.parentElement);
    frame.style.width = `${frame.parentElement.clientWidth - parseFloat(column.paddingLeft) - parseFloat(column.paddingRight)}px`;
    frame.classList.add("cg-prefetching");
  }
  await ensureViewer().prefetch(cited, { show: offscreen });
  frame.classList.remove("cg-prefetching");
  frame.style.removeProperty("width");
}

document.body.addEventListener("highlight", (event) => showHighlight(event.detail));
const initial = JSON.parse(document.getElementById("initial-highlight")?.textContent || "null");
if (initial) showHighlight(initial);

// ---- Never a stale page ---------------------------------------------------
// The server sends the page no-store; a page the browser still brings back
// from its back/forward cache is reloaded before a key can act on it, and
// htmx keeps no snapshot of it (hx-history="false"), so Back to an address
// this page pushed loads it afresh.
window.addEventListener("pageshow", (event) => {
  if (event.persisted) window.location.reload();
});
if (window.htmx) window.htmx.config.refreshOnHistoryMiss = true;

// Keyboard: j/k move, n jumps to the next failing sentence, Enter opens,
// a/r/e decide, u undoes, f shows failing sentences only, ? shows the keys.
// Typing in a field is never intercepted (an "r" in the note is an "r"), nor
// is a key while a dialog is open; in the note, Ctrl+Enter (Cmd+Enter) is
// done writing and Escape leaves it.
const sentences = [...document.querySelectorAll("li.sentence")];
const list = document.querySelector("ol.sentences");
let current = -1;

// The decision bar sticks to the answer column's bottom edge: the CSS keeps
// what scrolls into view (a sentence the keys select, #sentence-N) and the
// undo toast above it, by its height, which changes (a note resized, an
// error shown).
const decideBar = document.querySelector(".answer-column > .decide-bar");
function measureDecideBar() {
  decideBar.parentElement.style.setProperty("--decide-bar-height", `${decideBar.offsetHeight}px`);
}
if (decideBar) {
  measureDecideBar(); // now: the sentence shown on load is scrolled to below
  new ResizeObserver(measureDecideBar).observe(decideBar);
}

const visible = (li) => !(list?.classList.contains("failing-only") && !li.classList.contains("failing"));

function select(index) {
  if (!sentences.length) return;
  current = Math.max(0, Math.min(sentences.length - 1, index));
  sentences.forEach((li, i) => li.classList.toggle("selected", i === current));
  sentences[current].scrollIntoView({ block: "nearest" });
  sentences[current].focus({ preventScroll: true });
}

// The nearest visible sentence from ``from`` in direction ``step`` (±1).
function step(from, direction) {
  for (let i = from + direction; i >= 0 && i < sentences.length; i += direction) {
    if (visible(sentences[i])) return i;
  }
  return current;
}

function open() {
  if (current < 0 || !visible(sentences[current])) select(step(-1, 1));
  sentences[current]?.querySelector("a.sentence-open")?.click();
}

// The row of the sentence the panel shows is the selected one, in view: on a
// page loaded with ?sentence= or ?citation= (a reload, Back to it), and after
// a panel opened from elsewhere (the approval dialog's list of failures).
function selectShown() {
  const shown = document.querySelector("#sentence-panel > h2[data-sentence]")?.dataset.sentence;
  const index = sentences.findIndex((li) => li.dataset.index === shown);
  if (index >= 0 && index !== current) select(index);
}

// "Failing sentences only": hides passing sentences; remembered in localStorage.
const failingToggle = document.getElementById("failing-only");
const FAILING_KEY = "citeguard.failingOnly";

function setFailingOnly(on) {
  if (!list || !failingToggle) return;
  list.classList.toggle("failing-only", on);
  failingToggle.checked = on;
  const hidden = on ? sentences.filter((li) => !li.classList.contains("failing")).length : 0;
  const count = failingToggle.closest("label")?.querySelector(".hidden-count");
  if (count) count.textContent = hidden ? ` (${hidden} hidden)` : "";
  try { localStorage.setItem(FAILING_KEY, on ? "1" : "0"); } catch { /* private mode */ }
  if (current >= 0 && !visible(sentences[current])) sentences[current].classList.remove("selected");
}

failingToggle?.addEventListener("change", () => setFailingOnly(failingToggle.checked));
try { setFailingOnly(localStorage.getItem(FAILING_KEY) === "1"); } catch { /* private mode */ }
selectShown();

document.addEventListener("keydown", (event) => {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.target.closest("input:not([type=checkbox]), textarea, select, [contenteditable]")) return;
  if (document.querySelector("dialog[open]:not(#keys-help)")) return;
  const help = document.getElementById("keys-help");
  switch (event.key) {
    case "j": select(step(current, 1)); break;
    case "k": select(current < 0 ? step(-1, 1) : step(current, -1)); break;
    case "n": {
      const next = sentences.findIndex((li, i) => i > current && li.classList.contains("failing"));
      const wrap = sentences.findIndex((li) => li.classList.contains("failing"));
      if (next >= 0 || wrap >= 0) { select(next >= 0 ? next : wrap); open(); }
      break;
    }
    case "Enter": open(); break;
    case "a": case "r": case "e":
      if (help?.open) return;
      document.querySelector(`#decide-form button[data-key="${event.key}"]`)?.click();
      break;
    case "u": {
      const undo = document.querySelector("#toast:not([hidden]) button.undo:not([disabled])");
      if (!undo) return;
      // htmx processes the swapped-in toast only when it settles (20 ms on):
      // a click before that would do nothing, so the undo waits for it.
      if (!undo.closest("#toast").dataset.started) undoWhenSettled = true;
      else undo.click();
      break;
    }
    case "f": setFailingOnly(!list?.classList.contains("failing-only")); break;
    case "?": help?.open ? help.close() : help?.showModal(); break;
    default: return;
  }
  event.preventDefault();
});

// A sentence opened by mouse becomes the keyboard's current one too. A click
// anywhere on it opens its evidence as its badge does (a paraphrase has no quote to
// click); a link inside it (a marker, a Markdown link) keeps its own target,
// and selecting words to copy them opens nothing.
document.querySelector("ol.sentences")?.addEventListener("click", (event) => {
  const li = event.target.closest("li.sentence");
  if (!li) return;
  select(sentences.indexOf(li));
  // Anywhere on the row: its words, its margins, the space beside its badge.
  if (event.target.closest("a[href]")) return;
  if (String(window.getSelection?.() ?? "").trim()) return;
  li.querySelector("a.sentence-open")?.click();
});

// Keep the matched span (or the closest or likely passage) of a newly loaded
// panel in view inside each excerpt box.
document.body.addEventListener("htmx:afterSwap", (event) => {
  for (const excerpt of event.target.querySelectorAll?.(".excerpt") ?? []) {
    const match = excerpt.querySelector("mark.match, mark.closest, span.likely");
    if (match) excerpt.scrollTop = Math.max(0, match.offsetTop - excerpt.offsetTop - 24);
  }
  if (event.target.id === "sentence-panel") {
    // A new panel opens at its top, not where the last one was scrolled to
    // (htmx swaps the panel's content, the panel keeps its scroll).
    event.target.scrollTop = 0;
    revealEvidence(event.target);
    // A panel the sentence list opened (a click, j/k/n and Enter) answers
    // a row already selected; one answering late must not take the
    // selection back from a row the keys moved on to since (n pressed
    // quickly skipped a failure when it did).
    const from = event.detail?.requestConfig?.elt;
    if (!(from && list?.contains(from))) selectShown();
  }
});

// In a short panel (the split gives the viewer most of the height), scroll
// the panel just enough that the evidence of a failure — the source's words
// around a negation, the word diff, the closest passage — is in view, not
// only the panel's title and citation list. The title ("Sentence 3" and its
// badge) stays in sight above it.
function revealEvidence(panel) {
  if (panel.scrollHeight <= panel.clientHeight) return;
  const section = [...panel.querySelectorAll(".passage")].find((passage) =>
    passage.matches(".passage-closest, .passage-likely")
    || passage.querySelector(".diff, .negation-context"));
  const target = [...(section?.querySelectorAll("h3, .negation-context, .diff, .missing") ?? [])].at(-1);
  if (!target) return;
  const box = panel.getBoundingClientRect();
  const overflow = target.getBoundingClientRect().bottom - box.bottom + 10;
  // The panel's title stays at its top (sticky): what scrolls shows below it.
  const title = panel.querySelector(":scope > h2");
  const top = title ? title.getBoundingClientRect().bottom : box.top;
  // Never past the section's own top: its title says what the passage is.
  const room = section.getBoundingClientRect().top - top - 4;
  if (overflow > 0) panel.scrollTop += Math.max(0, Math.min(overflow, room));
}
const initialPanel = document.getElementById("sentence-panel");
if (initialPanel) revealEvidence(initialPanel);

// ---- No decision by accident -------------------------------------------
// Which failing citations the reviewer has opened (this tab, this answer),
// sent with every decision; approving with any unopened asks first. The
// server checks the same, so this only saves a refused round trip.
const safety = JSON.parse(document.getElementById("review-safety")?.textContent || "null");
const form = document.getElementById("decide-form");
const confirmDialog = document.getElementById("confirm-approve");
const openedKey = safety ? `citeguard.opened.${safety.answer}` : null;
const opened = new Set();
try {
  for (const id of JSON.parse(sessionStorage.getItem(openedKey) || "[]")) opened.add(id);
} catch { /* private mode */ }

const unopened = () => (safety?.failing || []).filter((id) => !opened.has(id));

function markOpened(id) {
  if (id == null || !Number.isFinite(id)) return;
  opened.add(id);
  try { sessionStorage.setItem(openedKey, JSON.stringify([...opened])); } catch { /* private mode */ }
  showOpened();
}

function showOpened() {
  if (!safety || !form) return;
  const failing = safety.failing.length;
  const seen = failing - unopened().length;
  form.querySelector("#decision-opened").value = [...opened].join(",");
  const count = document.getElementById("opened-count");
  if (count && failing) {
    count.textContent = seen === failing
      ? `All ${failing} failing citation${failing === 1 ? "" : "s"} opened ✓`
      : `Failing citations opened: ${seen} of ${failing}`;
    count.classList.toggle("all-opened", seen === failing);
  }
  confirmDialog?.querySelectorAll("li[data-citation]").forEach((li) => {
    li.hidden = opened.has(Number(li.dataset.citation));
  });
  const left = failing - seen;
  const question = confirmDialog?.querySelector("#confirm-approve-title");
  if (question && left) {
    question.textContent = approvalQuestion(left, failing);
    confirmDialog.querySelector(".unopened-intro").textContent =
      left === 1 ? "This one has not been opened yet:" : "These have not been opened yet:";
  }
}

// The approval question says how many failures are left unopened, of how many.
function approvalQuestion(left, failing) {
  if (failing === 1) return "Approve without opening the one failing citation?";
  if (left === failing) return `Approve without opening any of the ${failing} failing citations?`;
  return `Approve with ${left} of ${failing} failing citations unopened?`;
}

// A panel request opens the citation it shows: ?citation=ID, or ?sentence=N
// (whose panel shows the sentence's first citation).
function openedBy(url) {
  const params = new URL(url, window.location.href).searchParams;
  if (params.has("citation")) return Number(params.get("citation"));
  if (params.has("sentence")) return safety?.firstCitation?.[params.get("sentence")] ?? null;
  return null;
}

if (safety) {
  markOpened(safety.shown);
  showOpened();
}

// ---- The note ------------------------------------------------------------
// Multi-line; its limit is shown as a counter. Ctrl+Enter (Cmd+Enter) ends
// it: the decision waiting for a note (a key pressed before writing it) is
// made at once, else the keys act again (a, r, e decide with the note).
const note = form?.querySelector("#decision-note");
const noteCount = document.getElementById("note-count");
let waitingDecision = null;

function showNoteCount() {
  if (!note || !noteCount) return;
  const max = Number(noteCount.dataset.max);
  noteCount.textContent = `${note.value.length} / ${max} characters`;
  noteCount.classList.toggle("note-full", note.value.length >= max);
}
note?.addEventListener("input", showNoteCount);
note?.addEventListener("keydown", (event) => {
  if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    event.stopPropagation();
    const waiting = waitingDecision;
    waitingDecision = null;
    if (waiting) {
      form.querySelector(`button[value="${waiting}"]`)?.click();
    } else {
      form.querySelector(".buttons")?.focus();
      showError("");
      showHint("Note kept: press a, r or e (or a button) to decide with it.");
    }
  } else if (event.key === "Escape") {
    event.preventDefault();
    form.querySelector(".buttons")?.focus();
  }
});

function showHint(message) {
  const hint = document.getElementById("note-hint");
  if (hint) hint.textContent = message;
}

document.body.addEventListener("htmx:afterRequest", (event) => {
  const { xhr, successful, target } = event.detail;
  if (successful && target?.id === "sentence-panel" && xhr?.responseURL) {
    // What the panel shows as selected is what was opened; else read the address.
    const shown = target.querySelector('li.selected a[href*="citation="]');
    markOpened(shown ? openedBy(shown.getAttribute("href")) : openedBy(xhr.responseURL));
  }
  if (event.detail.elt === form) {
    form.querySelector("#decision-confirmed").value = "";
    // A refused decision (shown as an error) keeps the note to fix.
    if (successful && xhr.status < 300) {
      form.querySelector("#decision-note").value = "";
      waitingDecision = null;
      showHint("");
      showNoteCount();
    }
  }
});

function showError(message) {
  const error = document.getElementById("decide-error");
  if (error) error.textContent = message;
}

// Checked before the request goes: a confirmation naming the decision that
// stands on an answer already decided, a note where the surface needs one,
// and a confirmation before approving with failing citations unopened.
const redecideDialog = document.getElementById("confirm-redecide");
const VERB = { approve: "Approve", reject: "Reject", escalate: "Escalate" };
let redecideConfirmed = null;

// The answer's state as the page shows it now (decisions swap it in).
function standing() {
  const state = document.getElementById("review-state-now");
  if (!state || !state.dataset.state || state.dataset.state === "pending") return null;
  return { label: state.dataset.stateLabel, by: state.dataset.decidedBy };
}

document.body.addEventListener("htmx:confirm", (event) => {
  if (event.detail.elt !== form) return;
  const decision = event.detail.triggeringEvent?.submitter?.value;
  showOpened();
  const now = standing();
  if (now && VERB[decision] && redecideConfirmed !== decision) {
    event.preventDefault();
    redecideDialog.dataset.decision = decision;
    redecideDialog.querySelector("h2").textContent =
      `This answer is ${now.label}${now.by ? ` by ${now.by}` : ""}. ${VERB[decision]} it?`;
    redecideDialog.querySelector('[data-action="confirm"]').textContent = `${VERB[decision]} it`;
    redecideDialog.showModal();
    return;
  }
  redecideConfirmed = null;
  if (safety?.noteRequired && (decision === "approve" || decision === "reject") && !note.value.trim()) {
    event.preventDefault();
    waitingDecision = decision;
    showError(`Not recorded: write a note first (high-stakes surface), then Ctrl+Enter to ${decision}.`);
    note.focus();
    return;
  }
  if (decision === "approve" && unopened().length
      && form.querySelector("#decision-confirmed").value !== "1") {
    event.preventDefault();
    confirmDialog?.showModal();
  }
});

redecideDialog?.addEventListener("click", (event) => {
  const action = event.target.closest("[data-action]")?.dataset.action;
  if (action === "confirm") {
    redecideDialog.close();
    redecideConfirmed = redecideDialog.dataset.decision;
    form.querySelector(`button[value="${redecideConfirmed}"]`)?.click();
  } else if (action === "cancel") {
    redecideDialog.close();
  }
});

confirmDialog?.addEventListener("click", (event) => {
  const action = event.target.closest("[data-action]")?.dataset.action;
  const link = event.target.closest("a[href]");
  if (action === "confirm") {
    confirmDialog.close();
    form.querySelector("#decision-confirmed").value = "1";
    redecideConfirmed = "approve"; // asked already, if it was decided
    form.querySelector('button[value="approve"]').click();
  } else if (action === "cancel" || link) {
    confirmDialog.close();
  }
});

// htmx leaves 4xx responses unswapped; a refused decision's message (the
// server retargets it to the form's error line) is shown all the same.
document.body.addEventListener("htmx:beforeSwap", (event) => {
  const { xhr } = event.detail;
  if (xhr.status >= 400 && xhr.status < 500 && xhr.getResponseHeader("HX-Retarget")) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});

// The undo toast: counts down, then goes (the server refuses a late undo anyway).
let toastTimer = null;
let undoWhenSettled = false;
function startToast(toast) {
  clearInterval(toastTimer);
  const seconds = Number(toast.dataset.seconds || toast.dataset.hide || 0);
  if (!seconds) return;
  const ends = Date.now() + seconds * 1000;
  const countdown = toast.querySelector(".countdown");
  toastTimer = setInterval(() => {
    const left = Math.ceil((ends - Date.now()) / 1000);
    if (countdown) countdown.textContent = `${Math.max(0, left)} s`;
    if (left <= 0) {
      clearInterval(toastTimer);
      toast.querySelector("button.undo")?.setAttribute("disabled", "");
      toast.hidden = true;
    }
  }, 250);
}

// A decision's response swaps a fresh toast in (out of band): start its clock once.
document.body.addEventListener("htmx:afterSettle", () => {
  const toast = document.getElementById("toast");
  if (toast && !toast.hidden && !toast.dataset.started) {
    toast.dataset.started = "1";
    startToast(toast);
  }
  if (undoWhenSettled) {
    undoWhenSettled = false;
    document.querySelector("#toast:not([hidden]) button.undo:not([disabled])")?.click();
  }
});

// A toast already on the page when it loads (htmx processes the page itself
// before anyone can press a key) counts down from now.
const loadedToast = document.getElementById("toast");
if (loadedToast && !loadedToast.hidden) {
  loadedToast.dataset.started = "1";
  startToast(loadedToast);
}

// ---- Presence --------------------------------------------------------------
// While this page is shown, a heartbeat a minute keeps "being decided by you"
// on triage; hidden or closed, it stops, and the presence lapses a few
// minutes after the last one (no request on closing: nothing to lose).
const review = document.querySelector(".review[data-presence]");
const csrf = form?.querySelector("input[name=csrfmiddlewaretoken]")?.value;
const HEARTBEAT_MS = 60_000;
let heartbeat = null;

function beat() {
  if (!review || !csrf) return;
  fetch(review.dataset.presence, {
    method: "POST", credentials: "same-origin", cache: "no-store",
    headers: { "X-CSRFToken": csrf },
  }).catch(() => { /* offline: the presence lapses on its own */ });
}

function startBeating(now) {
  if (heartbeat !== null) return;
  if (now) beat();
  heartbeat = setInterval(beat, HEARTBEAT_MS);
}

function stopBeating() {
  clearInterval(heartbeat);
  heartbeat = null;
}

if (review) {
  if (document.visibilityState !== "hidden") startBeating(false); // opening counted
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "hidden") stopBeating();
    else startBeating(true);
  });
  window.addEventListener("pagehide", stopBeating);
}
