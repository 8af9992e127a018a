// The sidebar: the user's chats as the server lists them (never cached in the browser), searched,
// paged, renamed in place and deleted, and listed again whenever the live feed says a chat was
// created, renamed, deleted or answered on any device. It redraws whenever the listed chats or the
// open one change (a state subscription), whoever changed them. Opening a chat is chat.js's job, asked
// for through commands.js.

import { ApiError, api, isAbort, queryString, sessionPath } from "./api.js";
import { searchHitItem } from "./branching.js";
import { forgetCurrentSession, openSession, provideCommands } from "./commands.js";
import { $, SEARCH_DEBOUNCE_MS, debounce, el, show } from "./dom.js";
import { sessionTitle, timeElement } from "./format.js";
import { stopFollowingSession } from "./live.js";
import { state, subscribe, update } from "./state.js";
import { setStatus } from "./status.js";
import { setView } from "./views.js";

const SESSIONS_PAGE = 50;
// Changes often come in bursts (a turn: busy, then idle): list once they settle.
const LIST_REFRESH_MS = 150;

let nextCursor = null;
let query = "";
// While a rename form is open the list is not re-rendered (that would throw the typed title away).
let renamingId = null;
// Discards a list that arrives after a newer search was issued (out-of-order fetches).
let listSeq = 0;

export async function loadSessions({ append = false } = {}) {
  const seq = ++listSeq;
  const cursor = append ? nextCursor : "";
  try {
    const page = await api("GET", `/api/sessions${queryString({ limit: SESSIONS_PAGE, cursor, q: query })}`);
    if (seq !== listSeq) return; // a newer search was issued meanwhile
    nextCursor = page.next_cursor || null;
    update({ sessions: append ? state.sessions.concat(page.items) : page.items }); // and so redraws
    if (!append) await loadSearchHits(seq);
    // The server may have titled the chat after its first turn.
    const current = state.sessions.find((s) => s.id === state.currentSessionId);
    if (current) $("chat-title").textContent = sessionTitle(current);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not load your chats: ${error.message}`, "error");
  }
}

/** The sessions list's live feed: list again (the server orders, titles and filters). */
export const onListEvent = debounce(() => loadSessions(), LIST_REFRESH_MS);
/** The search also looks inside the messages: their hits are listed under the matching titles. */
async function loadSearchHits(seq) {
  const hits = query ? (await api("GET", `/api/search${queryString({ q: query })}`)).messages : [];
  if (seq !== listSeq) return;
  $("search-hits").replaceChildren(...hits.map(searchHitItem));
  show($("search-hits-section"), hits.length > 0);
}

function renderSessionList() {
  if (renamingId !== null) return;
  const list = $("session-list");
  list.replaceChildren(...state.sessions.map(sessionItem));
  const empty = $("session-list-empty");
  empty.textContent = query ? "No chat titles match your search." : "No chats yet.";
  show(empty, state.sessions.length === 0);
  show($("session-more"), Boolean(nextCursor));
}

function sessionItem(session) {
  const active = session.id === state.currentSessionId;
  const badge =
    session.status === "busy"
      ? el("span", { className: "badge badge-busy", text: "answering" })
      : session.status === "interrupted"
        ? el("span", { className: "badge badge-warn", text: "interrupted" })
        : null;
  const open = el("button", { className: "session-open", attrs: { type: "button", "aria-current": active ? "true" : null } }, [
    el("span", { className: "session-title-row" }, [
      el("span", { className: "session-title", text: sessionTitle(session) }),
      timeElement(session.updated_at || session.created_at, "session-time"),
    ]),
    el("span", { className: "session-preview", text: session.preview || "" }),
    badge,
  ]);
  open.addEventListener("click", () => openSession(session.id));

  const rename = el("button", {
    className: "icon-btn",
    text: "Rename",
    testid: "session-rename",
    attrs: { type: "button", "aria-label": `Rename “${sessionTitle(session)}”` },
  });
  rename.addEventListener("click", () => startRename(item, session));
  const remove = el("button", {
    className: "icon-btn icon-btn-danger",
    text: "Delete",
    testid: "session-delete",
    attrs: { type: "button", "aria-label": `Delete “${sessionTitle(session)}”` },
  });
  remove.addEventListener("click", () => deleteSession(session));

  const item = el("li", { className: `session-item${active ? " active" : ""}`, testid: "session-item" }, [
    open,
    el("div", { className: "session-actions" }, [rename, remove]),
  ]);
  item.dataset.sessionId = session.id;
  return item;
}

/** Inline rename form in place of the item; Enter saves, Escape cancels. */
function startRename(item, session) {
  const input = el("input", {
    className: "rename-input",
    testid: "session-rename-input",
    attrs: { type: "text", maxlength: 120, required: true, "aria-label": "New title", value: session.title || "" },
  });
  const save = el("button", { className: "btn btn-primary btn-small", text: "Save", attrs: { type: "submit" } });
  const cancel = el("button", { className: "btn btn-ghost btn-small", text: "Cancel", attrs: { type: "button" } });
  const form = el("form", { className: "rename-form" }, [input, el("div", { className: "rename-buttons" }, [save, cancel])]);
  const restore = () => {
    renamingId = null;
    renderSessionList();
    focusSessionItem(session.id, ".session-open");
  };
  cancel.addEventListener("click", restore);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") restore();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const title = input.value.trim();
    if (!title || title === session.title) return restore();
    save.disabled = true;
    try {
      const updated = await api("PATCH", sessionPath(session.id), { title });
      replaceSession(updated);
      restore();
    } catch (error) {
      save.disabled = false;
      if (!isAbort(error)) setStatus(`Could not rename the chat: ${error.message}`, "error");
    }
    return undefined;
  });
  renamingId = session.id;
  item.replaceChildren(form);
  input.focus();
  input.select();
}

async function deleteSession(session) {
  // window.confirm is allowed by the CSP (it is not script injection) and is keyboard-accessible.
  if (!window.confirm(`Delete “${sessionTitle(session)}”? This cannot be undone.`)) return;
  // This tab is the one deleting the open chat: the feed's "deleted" would race the answer below and
  // read as a deletion on another device, so the feed stops first (and resumes if nothing was deleted).
  const open = session.id === state.currentSessionId;
  if (open) stopFollowingSession();
  try {
    await api("DELETE", sessionPath(session.id));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) {
      if (!isAbort(error)) setStatus(`Could not delete the chat: ${error.message}`, "error");
      if (open && state.currentSessionId === session.id) await openSession(session.id, { reveal: false });
      return;
    }
  }
  update({ sessions: state.sessions.filter((s) => s.id !== session.id) });
  if (open && session.id === state.currentSessionId) {
    forgetCurrentSession();
    const next = state.sessions[0];
    if (next) await openSession(next.id);
  }
  setStatus("Chat deleted.");
}

function replaceSession(updated) {
  update({ sessions: state.sessions.map((s) => (s.id === updated.id ? updated : s)) });
  if (updated.id === state.currentSessionId) $("chat-title").textContent = sessionTitle(updated);
}

function focusSessionItem(id, selector) {
  for (const item of $("session-list").children) {
    if (item.dataset.sessionId === id) item.querySelector(selector)?.focus();
  }
}

export async function createSession() {
  const session = await api("POST", "/api/sessions", {});
  update({ sessions: [session, ...state.sessions.filter((s) => s.id !== session.id)] });
  return session;
}

async function onNewChat() {
  const button = $("new-chat");
  button.disabled = true;
  try {
    const session = await createSession();
    setView("chat");
    await openSession(session.id);
    $("composer-input").focus();
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not start a new chat: ${error.message}`, "error");
  } finally {
    button.disabled = false;
  }
}

/** On sign-out: nothing of this user's list stays in memory or in the DOM. */
export function clearSidebar() {
  nextCursor = null;
  query = "";
  renamingId = null;
  $("session-list").replaceChildren();
  $("search-hits").replaceChildren();
  show($("search-hits-section"), false);
  $("session-search").value = "";
}

export function bindSidebar() {
  provideCommands({ loadSessions });
  subscribe((changed) => {
    if (changed.has("sessions") || changed.has("currentSessionId")) renderSessionList();
  });
  $("new-chat").addEventListener("click", onNewChat);
  $("session-more").addEventListener("click", () => loadSessions({ append: true }));
  const search = debounce(() => {
    query = $("session-search").value.trim();
    loadSessions();
  }, SEARCH_DEBOUNCE_MS);
  $("session-search").addEventListener("input", search);
}
