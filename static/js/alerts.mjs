// Rate-change alerts on the trends page: a live character count beside each
// note box (its limit is the box's maxlength, which the server enforces
// too), and a refused change's message shown in place of the alert.

function updateCount(box) {
  const counter = document.getElementById(box.dataset.charCount);
  if (counter) counter.textContent = `${box.value.length} / ${box.maxLength} characters`;
}

document.addEventListener("input", (event) => {
  const box = event.target;
  if (box instanceof HTMLTextAreaElement && box.dataset.charCount) updateCount(box);
});

// htmx leaves 4xx responses unswapped; the alert's fragment carries the
// server's message (a note over the limit, say), so show it.
document.body.addEventListener("htmx:beforeSwap", (event) => {
  const { xhr, target } = event.detail;
  if (xhr.status === 400 && target && target.matches("li[data-alert]")) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
