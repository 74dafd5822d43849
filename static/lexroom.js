// Lexroom's own script (no inline JS on the pages): progressive enhancements only; every page
// works without it.
//
// Copy buttons: <button data-copy="ID" data-copied="…" data-copy-failed="…" hidden> copies the
// value of the input #ID (or the text of the element #ID). They stay hidden without JavaScript,
// where the text is selectable by hand. When the clipboard API is refused (plain http on
// another host than localhost, or no permission), the text is selected instead and the
// person is told to press Ctrl+C. The result is announced in the next .copy-status (role=status).
//
// Drop zones: <label class="dropzone" data-dropzone for="ID"> is the label of the file input
// #ID (a click or the keyboard on the input opens the chooser, with or without this script);
// files dropped on it fill the input, and the chosen names are listed in its aria-describedby.
"use strict";

function selectContents(source) {
  if (source instanceof HTMLInputElement || source instanceof HTMLTextAreaElement) {
    source.focus();
    source.select();
    return;
  }
  const range = document.createRange();
  range.selectNodeContents(source);
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
}

async function copyFrom(button) {
  const source = document.getElementById(button.dataset.copy);
  if (!source) return;
  const text = "value" in source ? source.value : source.textContent;
  const status = button.parentElement.querySelector(".copy-status");
  let message = button.dataset.copied || "";
  try {
    if (!navigator.clipboard || !window.isSecureContext) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
  } catch (refused) {
    message = button.dataset.copyFailed || "";
  }
  // Selected either way: the person sees what was copied, or can copy it themselves.
  selectContents(source);
  if (status) status.textContent = message;
}

function showChosen(input) {
  const list = document.getElementById(input.getAttribute("aria-describedby") || "");
  if (list) list.textContent = Array.from(input.files, (file) => file.name).join(", ");
}

function enableDropZone(zone) {
  const input = document.getElementById(zone.htmlFor);
  if (!input) return;
  const over = (event) => {
    event.preventDefault();
    zone.classList.add("dragover");
  };
  zone.addEventListener("dragenter", over);
  zone.addEventListener("dragover", over);
  zone.addEventListener("dragleave", () => zone.classList.remove("dragover"));
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    zone.classList.remove("dragover");
    if (!event.dataTransfer || !event.dataTransfer.files.length) return;
    input.files = event.dataTransfer.files;
    showChosen(input);
  });
  input.addEventListener("change", () => showChosen(input));
}

document.addEventListener("DOMContentLoaded", () => {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.hidden = false;
    button.addEventListener("click", () => copyFrom(button));
  }
  for (const zone of document.querySelectorAll("label[data-dropzone]")) enableDropZone(zone);
});

// Chat answers: an element <div class="live" data-events-url data-turn-url data-turn> follows
// the turn's server-sent events (plan, tool_call, tool_result, sources, token, approval_needed,
// done, error); at "done" or "approval_needed" htmx fetches the turn again as the server
// renders it (citations as links), replacing the provisional text. Without this script the
// page refreshes until the worker has answered.
function stepItem(list, text) {
  const item = document.createElement("li");
  item.textContent = text;
  list.appendChild(item);
}

function followTurn(live) {
  if (live.dataset.following || !window.EventSource) return;
  live.dataset.following = "1";
  const steps = live.querySelector(".steps");
  const answer = live.querySelector(".answer-live");
  const status = live.querySelector(".status");
  const source = new EventSource(live.dataset.eventsUrl);
  let finished = false;
  const refresh = () => {
    finished = true;
    source.close();
    if (window.htmx) {
      htmx.ajax("GET", live.dataset.turnUrl, { target: "#" + live.dataset.turn, swap: "outerHTML" });
    }
  };
  const data = (event) => JSON.parse(event.data);
  source.addEventListener("plan", (event) => {
    const plan = data(event);
    const names = plan.tool_calls.map((call) => call.name).join(", ");
    stepItem(steps, live.dataset.labelPlan + " (" + plan.model + "): " + (names || "-"));
  });
  source.addEventListener("tool_call", (event) => stepItem(steps, "→ " + data(event).name));
  source.addEventListener("tool_result", (event) => {
    const result = data(event);
    stepItem(steps, "← " + result.name + (result.error ? " ✗ " + result.error : result.count === null ? "" : " (" + result.count + ")"));
  });
  source.addEventListener("sources", (event) => stepItem(steps, live.dataset.labelSources + " " + data(event).sources.length));
  source.addEventListener("token", (event) => {
    const token = data(event);
    answer.parentElement.hidden = false;
    if (token.reset) answer.textContent = "";
    else answer.textContent += token.text;
  });
  source.addEventListener("approval_needed", refresh);
  source.addEventListener("done", refresh);
  source.addEventListener("error", (event) => {
    if (event.data) {
      status.textContent = data(event).message;
      status.classList.add("error");
    }
    if (finished) return;
    finished = true;
    source.close();
    // A server's error event ends the turn; a lost connection is retried in a moment.
    if (event.data) refresh();
    else {
      status.textContent = live.dataset.labelRetry;
      setTimeout(refresh, 3000);
    }
  });
}

function followTurns(root) {
  for (const live of root.querySelectorAll("div.live[data-events-url]")) followTurn(live);
}

document.addEventListener("DOMContentLoaded", () => followTurns(document));
document.addEventListener("htmx:afterSwap", (event) => followTurns(event.target.parentElement || document));
document.addEventListener("htmx:afterRequest", (event) => {
  const form = event.target;
  if (form instanceof HTMLFormElement && form.classList.contains("ask-form") && event.detail.successful) form.reset();
});
