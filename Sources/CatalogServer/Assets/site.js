// The little script the pages use; every page works without it but for the changes (to people, and the
// cleanup of duplicates), which it sends to the JSON API.

// Posts `body` as JSON to `route`; returns the answer, or shows the error's message in the page's [data-error]
// element and returns null.
async function send(route, body) {
  const response = await fetch(route, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => null);
  if (response.ok) return answer ?? {};
  say((answer && answer.error && answer.error.message) || response.statusText);
  return null;
}

// Shows `message` in the page's [data-error] element.
function say(message) {
  const shown = document.querySelector("[data-error]");
  if (!shown) return;
  shown.textContent = message;
  shown.hidden = false;
}

// A form marked data-api is sent to that route as JSON: its data-body as it is, or its fields (number
// fields as numbers, empty ones as null). Then the page reloads, or goes where data-then says ({field}
// replaced by the field's value).
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-api]");
  if (!form) return;
  event.preventDefault();
  const fields = {};
  for (const [key, value] of new FormData(form)) {
    const text = String(value).trim();
    fields[key] = text === "" ? null : form.elements[key].type === "number" ? Number(text) : text;
  }
  if (!(await send(form.dataset.api, form.dataset.body || fields))) return;
  const then = form.dataset.then;
  if (then) location.href = then.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(fields[key] ?? ""));
  else location.reload();
});

// The duplicates page's form (data-cleanup: the query naming its groups): each group not left alone, as the copy
// picked to keep and the others, is planned first; once the confirmation, which counts the files the plan moves,
// is accepted, they move to the trash and the page of past cleanups shows the run.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-cleanup]");
  if (!form) return;
  event.preventDefault();
  const groups = [];
  for (const group of form.querySelectorAll("[data-group]")) {
    const choices = [...group.querySelectorAll("input[type=radio]")];
    const kept = choices.find((choice) => choice.checked);
    if (!kept || group.querySelector("[data-leave]").checked) continue;
    groups.push({
      keep: Number(kept.value),
      move: choices.filter((choice) => choice !== kept).map((choice) => Number(choice.value)),
    });
  }
  if (groups.length === 0) return say("Every group is left alone: nothing to move.");
  const query = form.dataset.cleanup;
  const plan = await send("/api/duplicates/plan" + query, { groups });
  if (!plan) return;
  const alone = plan.leftAlone.map((copy) => `\n· ${copy.path}: ${copy.reason}`).join("");
  if (plan.moves.length === 0) return say("Nothing can move:" + alone);
  const files = plan.moves.length === 1 ? "1 file" : `${plan.moves.length} files`;
  const megabytes = (plan.moves.reduce((sum, move) => sum + move.bytes, 0) / 1e6).toFixed(1);
  const note = alone ? `\n\n${plan.leftAlone.length} left where they are:${alone}` : "";
  if (!confirm(`Move ${files} (${megabytes} MB) to the trash? Undo puts them back.${note}`)) return;
  const report = await send("/api/duplicates/cleanup" + query, { groups });
  if (report) location.href = `/duplicates/runs?run=${report.run}`;
});

// An undo button of the page of past cleanups: the page reloads, or lists the files that could not go back.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest("form[data-undo]");
  if (!form) return;
  event.preventDefault();
  const report = await send(form.dataset.undo, {});
  if (!report) return;
  if (report.refused.length === 0) return location.reload();
  say(`Put back ${report.returned.length}; ${report.refused.length} could not go back:`
    + report.refused.map((file) => `\n· ${file.path}: ${file.reason}`).join(""));
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
