// The triage queue: "select all on this page" for bulk assignment, and filter
// URLs without the empty fields (?verdict=fail, not ?q=&verdict=fail&model=…).
// Listeners sit on the document so they survive htmx swapping the queue.

document.addEventListener("change", (event) => {
  const box = event.target;
  if (!(box instanceof HTMLInputElement)) return;
  if (box.id === "select-all") {
    for (const row of document.querySelectorAll("#triage-assign input[name=answer]")) {
      row.checked = box.checked;
    }
  } else if (box.name === "answer") {
    const all = document.getElementById("select-all");
    const rows = [...document.querySelectorAll("#triage-assign input[name=answer]")];
    if (all) all.checked = rows.length > 0 && rows.every((row) => row.checked);
  }
});

document.addEventListener("htmx:configRequest", (event) => {
  if (event.detail.elt.id !== "triage-filters") return;
  const data = event.detail.formData;
  for (const [name, value] of [...data.entries()]) {
    if (value === "") data.delete(name);
  }
});
