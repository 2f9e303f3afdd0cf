// Every text field with a limit says so: "12 / 300 characters" under it,
// updated as one types, so nothing is cut or refused without a word. The
// limit itself is the field's maxlength (the server refuses more, naming it).
// Loaded once by the base template (and the admin's forms), as a module: no
// inline script, so it runs under the Content-Security-Policy. Fields htmx
// swaps in get theirs on htmx:load. A field with data-counter="off", or in
// an element with it, has none.

const FIELDS = "textarea[maxlength], input[maxlength]:is([type=text], [type=search], "
  + "[type=url], [type=email], :not([type]))";

function update(field, counter) {
  const limit = field.maxLength;
  const used = field.value.length;  // UTF-16 units: what maxlength counts
  const number = (n) => n.toLocaleString("en-US");
  counter.textContent = `${number(used)} / ${number(limit)} characters`;
  counter.classList.toggle("at-limit", used >= limit);
}

let made = 0;

function attach(field) {
  if (field.closest("[data-counter=off]") || field.dataset.counterAttached
      || field.maxLength < 1) {
    return;
  }
  field.dataset.counterAttached = "1";
  const counter = document.createElement("small");
  counter.className = "char-counter";
  counter.id = `char-counter-${++made}`;
  const described = field.getAttribute("aria-describedby");
  field.setAttribute("aria-describedby", described ? `${described} ${counter.id}` : counter.id);
  field.insertAdjacentElement("afterend", counter);
  update(field, counter);
  field.addEventListener("input", () => update(field, counter));
  // A form reset empties the field without an input event.
  field.form?.addEventListener("reset", () => setTimeout(() => update(field, counter)));
}

function attachAll(root) {
  if (root instanceof Element && root.matches(FIELDS)) attach(root);
  for (const field of root.querySelectorAll?.(FIELDS) ?? []) attach(field);
}

attachAll(document);
document.addEventListener("htmx:load", (event) => attachAll(event.target));
