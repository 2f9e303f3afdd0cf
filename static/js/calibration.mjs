// The calibration page: a field with a limit counts its characters as you
// type ("1,234 of 2,000 characters"), so a reason is never cut unseen (the
// server refuses a longer one with the same limit named). Module scripts run
// after the page is parsed.
const format = (n) => n.toLocaleString("en");

for (const field of document.querySelectorAll("textarea[maxlength][data-counter]")) {
  const counter = document.getElementById(field.dataset.counter);
  const limit = Number(field.getAttribute("maxlength"));
  if (!counter || !limit) continue;
  const update = () => {
    const used = field.value.length;
    counter.textContent = `${format(used)} of ${format(limit)} characters`;
    counter.classList.toggle("char-count-full", used >= limit);
  };
  field.addEventListener("input", update);
  update();
}
