// Branching a conversation from its transcript: Branch here (fork at a message: a new chat), Edit
// (one of your questions) and Regenerate (the last answer), which make versions of the turn in place
// with ‹ n/m › to move between them (docs/architecture.md#versions-of-a-turn), Copy (copy.js), Rewind
// (the last turn), the "Branched from" link to a fork's parent, and search hits in the sidebar that
// open a chat at the message they found.
//
// Everything is built with textContent: message text and snippets are the user's and the model's.

import { api, errorMessage, isAbort, rawRequest, sessionPath } from "./api.js";
import { loadSessions, openSession, stillOn } from "./commands.js";
import { copyToClipboard, figuresTable } from "./copy.js";
import { $, el, show } from "./dom.js";
import { feedbackControls } from "./feedback.js";
import { sessionTitle } from "./format.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";
import { sendTurn } from "./turns.js";

/**
 * The actions under one stored message (only messages the runtime logged have an event id); a stopped
 * answer's Retry asks its ``question`` again, and the stopped turn stays as it was.
 */
export function messageActions(message, { isLast, question }) {
  if (!message.event_id) return null;
  const actions = [actionButton("Branch here", "message-branch", () => branchAt(message))];
  if (message.stopped && question?.role === "user") {
    actions.push(actionButton("Retry", "message-retry-stopped", () => sendTurn(question.content, { fromComposer: false })));
  }
  if (message.role === "user") {
    if (message.version) actions.unshift(versionSwitch(message));
    actions.push(actionButton("Edit", "message-edit", (button) => startEdit(button, message)));
  }
  if (message.role === "assistant" && message.content) {
    // (an answer stopped before its first word has nothing to rate or copy)
    actions.push(feedbackControls(message));
    actions.push(actionButton("Copy", "message-copy", () => copyToClipboard(message.content, "Answer")));
    if (message.charts?.length) {
      const table = figuresTable(message.charts);
      actions.push(actionButton("Copy figures", "message-copy-figures", () => copyToClipboard(table, "Figures")));
    }
  }
  if (message.role === "assistant" && isLast) {
    actions.push(actionButton("Regenerate", "message-regenerate", () => regenerate()));
    actions.push(actionButton("Rewind", "message-rewind", () => rewindLastTurn()));
  }
  const bar = el("div", { className: "message-actions" }, actions);
  bar.dataset.eventId = message.event_id;
  return bar;
}

/** "Branched from …" above a fork's transcript, opening the parent at the message it was cut at. */
export function parentLink(session) {
  if (!session.parent_id) return null;
  const parent = state.sessions.find((s) => s.id === session.parent_id);
  const link = el("button", {
    className: "btn btn-ghost btn-small parent-link",
    text: `Branched from “${parent ? sessionTitle(parent) : "another chat"}”`,
    testid: "parent-link",
    attrs: { type: "button" },
  });
  link.addEventListener("click", () => openAtMessage(session.parent_id, session.parent_event_id));
  return link;
}

function actionButton(text, testid, onClick) {
  const button = el("button", { className: "btn btn-ghost btn-small", text, testid, attrs: { type: "button" } });
  button.addEventListener("click", () => onClick(button));
  return button;
}

async function branchAt(message) {
  try {
    const fork = await api("POST", sessionPath(state.currentSessionId, "/fork"), { event_id: message.event_id });
    await loadSessions();
    await openSession(fork.id);
    setStatus("This is a new branch; the original chat is unchanged.");
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not branch the chat: ${error.message}`, "error");
  }
}

/** ‹ n/m ›: the versions of a question (its edits and its answers asked again), one click apart. */
function versionSwitch(message) {
  const { number, count } = message.version;
  const step = (label, testid, to) => {
    const attrs = { type: "button", "aria-label": `${label === "‹" ? "Previous" : "Next"} version` };
    const button = el("button", { className: "btn btn-ghost btn-small version-step", text: label, testid, attrs });
    button.disabled = to < 1 || to > count;
    button.addEventListener("click", () => showVersion(message, to));
    return button;
  };
  return el("span", { className: "version-switch", attrs: { role: "group", "aria-label": "Versions of this question" } }, [
    step("‹", "version-previous", number - 1),
    el("span", { className: "version-count", text: `${number} / ${count}`, testid: "version-count" }),
    step("›", "version-next", number + 1),
  ]);
}

async function showVersion(message, number) {
  const id = state.currentSessionId;
  try {
    await api("PUT", sessionPath(id, `/messages/${encodeURIComponent(message.event_id)}/version`), { number });
    if (stillOn(id)) await openSession(id, { reveal: false }); // the feed's "history" says so too
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not show that version: ${error.message}`, "error");
  }
}

/** An inline editor in place of the message's actions; sending makes a new version of the turn. */
function startEdit(button, message) {
  const bar = button.parentElement;
  const input = el("textarea", {
    className: "edit-input",
    testid: "message-edit-input",
    attrs: { rows: 2, "aria-label": "Edited message" },
  });
  input.value = message.content;
  const send = el("button", { className: "btn btn-primary btn-small", text: "Send", testid: "message-edit-send", attrs: { type: "submit" } });
  const cancel = el("button", { className: "btn btn-ghost btn-small", text: "Cancel", attrs: { type: "button" } });
  const form = el("form", { className: "edit-form" }, [input, el("div", { className: "rename-buttons" }, [send, cancel])]);
  const actions = [...bar.children];
  cancel.addEventListener("click", () => bar.replaceChildren(...actions));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text) return;
    send.disabled = true;
    const path = `/messages/${encodeURIComponent(message.event_id)}/edit`;
    if (!(await sendTurn(text, { fromComposer: false, sessionId: state.currentSessionId, path }))) send.disabled = false;
  });
  bar.replaceChildren(form);
  input.focus();
}

/** Ask the last question again: a new version of the last turn, streamed like any turn. */
function regenerate() {
  return sendTurn(null, { fromComposer: false, sessionId: state.currentSessionId, path: "/regenerate" });
}

async function rewindLastTurn() {
  if (!window.confirm("Remove the last question and its answer from this chat?")) return;
  const id = state.currentSessionId;
  try {
    await api("POST", sessionPath(id, "/rewind"), { turns: 1 });
    // Only if the user is still there: a click on another chat meanwhile wins.
    if (stillOn(id)) await openSession(id);
    await loadSessions();
    setStatus("The last turn was removed.");
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not rewind the chat: ${error.message}`, "error");
  }
}

// The message last opened at: it stays marked however often its chat is drawn again meanwhile (a
// turn's end or a live event re-renders the transcript).
let highlight = { sessionId: null, eventId: null };

/** Whether a stored message of the open chat is the one a search hit or a fork's link opened at. */
export function isHighlighted(message) {
  return Boolean(message.event_id) && highlight.sessionId === state.currentSessionId && highlight.eventId === message.event_id;
}

/** Open a chat and bring one of its messages into view (a search hit, a fork's parent). */
export async function openAtMessage(sessionId, eventId) {
  highlight = { sessionId, eventId };
  if (!(await openSession(sessionId))) return;
  if (!eventId) return;
  const bar = $("messages").querySelector(`[data-event-id="${CSS.escape(eventId)}"]`);
  const item = bar?.closest("li");
  if (!item) return;
  item.classList.add("highlighted");
  item.scrollIntoView({ block: "center" });
}

/** Message hits of a sidebar search: title, role and the snippet with the found words marked. */
export function searchHitItem(hit) {
  const snippet = el(
    "span",
    { className: "hit-snippet" },
    hit.snippet.map((part) => (part.hit ? el("mark", { text: part.text }) : document.createTextNode(part.text))),
  );
  const open = el("button", { className: "session-open", attrs: { type: "button" } }, [
    el("span", { className: "session-title", text: hit.title }),
    el("span", { className: "hit-role muted small", text: hit.role === "user" ? "You said" : "Assistant said" }),
    snippet,
  ]);
  open.addEventListener("click", () => openAtMessage(hit.session_id, hit.event_id));
  return el("li", { className: "session-item search-hit", testid: "search-hit" }, [open]);
}

/** Download links for the open chat: our JSON (re-importable) and Markdown. Plain GETs with the cookie. */
export function exportLinks(sessionId) {
  const link = (format, text) =>
    el("a", {
      className: "btn btn-ghost btn-small",
      text,
      testid: `export-${format}`,
      attrs: { href: sessionPath(sessionId, `/export?format=${format}`), download: "" },
    });
  return [link("json", "Export JSON"), link("markdown", "Export Markdown")];
}

/** Import a file (our JSON export or ChatGPT's conversations.json); the server checks it whole. */
async function importFile(file) {
  setStatus(`Importing ${file.name}…`, "busy");
  try {
    const response = await rawRequest("POST", "/api/sessions/import", await file.text(), { asText: true });
    if (!response.ok) {
      setStatus(`Nothing was imported: ${await errorMessage(response)}`, "error");
      return;
    }
    const { items } = await response.json();
    await loadSessions();
    if (items[0]) await openSession(items[0].id);
    setStatus(`Imported ${items.length} chat${items.length === 1 ? "" : "s"}.`);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not import the file: ${error.message}`, "error");
  }
}

export function bindImport() {
  const input = $("import-file");
  $("import-chats").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    const [file] = input.files;
    input.value = "";
    if (file) importFile(file);
  });
  show(input, false);
}
