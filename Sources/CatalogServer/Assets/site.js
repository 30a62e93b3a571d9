// The little script the pages use; every page works without it but for the changes to people, which it
// sends to the JSON API.

// A form marked data-api is sent to that route as JSON: its data-body as it is, or its fields (number
// fields as numbers, empty ones as null). Then the page reloads, or goes where data-then says ({field}
// replaced by the field's value). An error's message shows in the page's [data-error] element.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-api]");
  if (!form) return;
  event.preventDefault();
  const fields = {};
  for (const [key, value] of new FormData(form)) {
    const text = String(value).trim();
    fields[key] = text === "" ? null : form.elements[key].type === "number" ? Number(text) : text;
  }
  const response = await fetch(form.dataset.api, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: form.dataset.body || JSON.stringify(fields),
  });
  if (!response.ok) {
    const answer = await response.json().catch(() => null);
    const shown = document.querySelector("[data-error]");
    if (shown) {
      shown.textContent = (answer && answer.error && answer.error.message) || response.statusText;
      shown.hidden = false;
    }
    return;
  }
  const then = form.dataset.then;
  if (then) location.href = then.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(fields[key] ?? ""));
  else location.reload();
});

// A photo dropped on the search form is searched at once.
for (const form of document.querySelectorAll("form[data-drop]")) {
  const input = form.querySelector("input[type=file]");
  form.addEventListener("dragover", (event) => { event.preventDefault(); form.classList.add("dragging"); });
  form.addEventListener("dragleave", () => form.classList.remove("dragging"));
  form.addEventListener("drop", (event) => {
    event.preventDefault();
    input.files = event.dataTransfer.files;
    form.submit();
  });
}
