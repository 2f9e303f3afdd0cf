// Rate-change alerts on the trends page: a refused change (a note over the
// limit, say) comes back as the alert's fragment with the server's message
// and status 400, which htmx would leave unswapped, so show it. (The note
// box's counter is static/js/char-counter.mjs's, as for every limited field.)

document.body.addEventListener("htmx:beforeSwap", (event) => {
  const { xhr, target } = event.detail;
  if (xhr.status === 400 && target && target.matches("li[data-alert]")) {
    event.detail.shouldSwap = true;
    event.detail.isError = false;
  }
});
