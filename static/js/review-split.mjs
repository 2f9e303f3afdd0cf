// The review page's split between the evidence panel (above) and the PDF
// viewer (below): drag the handle, or focus it and use the arrow keys
// (Home/End for the extremes). The share is remembered in localStorage.
const handle = document.querySelector(".split-handle");
const column = handle?.closest(".evidence-column");
const panel = document.getElementById("sentence-panel");
const KEY = "citeguard.evidence-share";
const MIN_PANEL = 96; // px: a title and two lines of evidence
const MIN_VIEWER = 240; // px: toolbar plus a readable strip of the page

function bounds() {
  const total = column.clientHeight;
  return { total, min: MIN_PANEL, max: Math.max(MIN_PANEL, total - MIN_VIEWER - handle.offsetHeight) };
}

function setPanelHeight(px, remember = true) {
  const { total, min, max } = bounds();
  const height = Math.round(Math.min(max, Math.max(min, px)));
  column.style.setProperty("--panel-height", `${height}px`);
  handle.setAttribute("aria-valuemin", "0");
  handle.setAttribute("aria-valuemax", "100");
  handle.setAttribute("aria-valuenow", String(Math.round((100 * height) / Math.max(1, total))));
  if (remember) {
    try {
      localStorage.setItem(KEY, String(height / Math.max(1, total)));
    } catch {
      // private mode: not remembered
    }
  }
}

if (handle && column && panel) {
  const saved = Number(localStorage.getItem(KEY));
  if (saved > 0 && saved < 1) setPanelHeight(saved * column.clientHeight, false);

  handle.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    handle.setPointerCapture(event.pointerId);
    const startY = event.clientY;
    const startHeight = panel.getBoundingClientRect().height;
    const move = (e) => setPanelHeight(startHeight + e.clientY - startY);
    const up = () => {
      handle.removeEventListener("pointermove", move);
      handle.removeEventListener("pointerup", up);
      handle.removeEventListener("pointercancel", up);
    };
    handle.addEventListener("pointermove", move);
    handle.addEventListener("pointerup", up);
    handle.addEventListener("pointercancel", up);
  });

  handle.addEventListener("keydown", (event) => {
    const current = panel.getBoundingClientRect().height;
    const step = event.shiftKey ? 80 : 24;
    const { min, max } = bounds();
    const next = { ArrowUp: current - step, ArrowDown: current + step, Home: min, End: max }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    event.stopPropagation(); // not the page's j/k keys
    setPanelHeight(next);
  });
}
