// The sidebar: the user's chats as the server lists them (never cached in the browser), searched,
// filtered, paged, renamed in place, organised (organise.js) and deleted, and listed again whenever
// the live feed says a chat was created, renamed, organised, deleted or answered on any device. It redraws whenever the listed chats or the
// open one change (a state subscription), whoever changed them. Opening a chat is chat.js's job, asked
// for through commands.js.

import { showActivity } from "./activity.js";
import { ApiError, api, isAbort, queryString, sessionPath } from "./api.js";
import { searchHitItem } from "./branching.js";
import { forgetCurrentSession, openSession, provideCommands, stillOn } from "./commands.js";
import { $, SEARCH_DEBOUNCE_MS, debounce, el, show } from "./dom.js";
import { sessionTitle, timeElement } from "./format.js";
import { stopFollowingSession } from "./live.js";
import { bindOrganise, clearOrganise, filterParams, loadLabels, organiseItems, selectBox, sessionLabels, showingAll } from "./organise.js";
import { menuIsOpen, rowMenu, whenClosed } from "./rowmenu.js";
import { showSharePanel } from "./share.js";
import { state, subscribe, update } from "./state.js";
import { setStatus } from "./status.js";
import { setView, toggleSidebar } from "./views.js";

const SESSIONS_PAGE = 50;
// Pinned chats come first in the full list, all of them (a pin is for the few that matter).
const PINNED_MAX = 200;
// Changes often come in bursts (a turn: busy, then idle): list once they settle.
const LIST_REFRESH_MS = 150;

let nextCursor = null;
let query = "";
// The folders and tags change only when chats are organised, created or deleted, not with every
// answer the list hears of: listed again only then.
let labelsStale = true;
const LABEL_EVENTS = new Set(["created", "organised", "deleted", "reset"]);
// While a rename form is open the list is not re-rendered (that would throw the typed title away).
let renamingId = null;
// The forms opened so far: a form that closes after a newer one opened leaves the list to the newer.
let forms = 0;
// Discards a list that arrives after a newer search was issued (out-of-order fetches).
let listSeq = 0;

export async function loadSessions({ append = false, labels = false } = {}) {
  if (labels) labelsStale = true;
  const seq = ++listSeq;
  const cursor = append ? nextCursor : "";
  // The full list: the pinned chats first, then the others (the search lists all alike).
  const split = showingAll() && !query;
  try {
    const pinned =
      split && !append ? (await api("GET", `/api/sessions${queryString({ limit: PINNED_MAX, pinned: true })}`)).items : [];
    const params = { limit: SESSIONS_PAGE, cursor, q: query, ...filterParams(), ...(split ? { pinned: false } : {}) };
    const page = await api("GET", `/api/sessions${queryString(params)}`);
    if (seq !== listSeq) return; // a newer search was issued meanwhile
    nextCursor = page.next_cursor || null;
    update({ sessions: append ? state.sessions.concat(page.items) : pinned.concat(page.items) }); // and so redraws
    if (!append) await Promise.all([loadSearchHits(seq), labelsStale ? loadLabels() : null]);
    if (!append) labelsStale = false;
    // The server may have titled the chat after its first turn.
    const current = state.sessions.find((s) => s.id === state.currentSessionId);
    if (current) $("chat-title").textContent = sessionTitle(current);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not load your chats: ${error.message}`, "error");
  }
}

const listAgain = debounce(() => loadSessions(), LIST_REFRESH_MS);
/** The sessions list's live feed: list again (the server orders, titles and filters). */
export function onListEvent(name) {
  if (LABEL_EVENTS.has(name)) labelsStale = true;
  listAgain();
}
/** The search also looks inside the messages: their hits are listed under the matching titles. */
async function loadSearchHits(seq) {
  const hits = query ? (await api("GET", `/api/search${queryString({ q: query })}`)).messages : [];
  if (seq !== listSeq) return;
  $("search-hits").replaceChildren(...hits.map(searchHitItem));
  show($("search-hits-section"), hits.length > 0);
}

function renderSessionList() {
  if (renamingId !== null) return;
  if (menuIsOpen()) {
    // drawn once the menu closes, with the focus kept on the chat it was about
    whenClosed((focusedId) => {
      renderSessionList();
      if (focusedId) focusSessionItem(focusedId, ".session-open");
    });
    return;
  }
  const list = $("session-list");
  list.replaceChildren(...state.sessions.map(sessionItem));
  const empty = $("session-list-empty");
  empty.textContent = query ? "No chat titles match your search." : showingAll() ? "No chats yet." : "No chats here.";
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
    sessionLabels(session),
    badge,
  ]);
  open.addEventListener("click", () => openSession(session.id));

  const item = el("li", { className: `session-item${active ? " active" : ""}`, testid: "session-item" });
  const rename = {
    text: "Rename…",
    testid: "session-rename",
    run: () =>
      editInPlace(item, {
        label: "New title",
        value: session.title || "",
        testid: "session-rename-input",
        maxlength: 120,
        save: async (title) => {
          if (title === session.title) return;
          replaceSession(await api("PATCH", sessionPath(session.id), { title }));
        },
      }),
  };
  const opened = (then) => async () => {
    if (await openSession(session.id)) then();
  };
  const download = (format) => () => {
    el("a", { attrs: { href: sessionPath(session.id, `/export?format=${format}`), download: "" } }).click();
  };
  const items = [
    rename,
    ...organiseItems(session, item, editInPlace),
    { text: "Share…", testid: "session-share", run: opened(showSharePanel) },
    { text: "Export JSON", testid: "session-export-json", run: download("json") },
    { text: "Export Markdown", testid: "session-export-markdown", run: download("markdown") },
    { text: "Activity", testid: "session-activity", run: opened(showActivity) },
    { text: "Delete…", testid: "session-delete", run: () => deleteSession(session), danger: true },
  ];
  const menu = rowMenu(open, `“${sessionTitle(session)}”`, items);
  item.append(...[selectBox(session), el("div", { className: "session-row" }, [open, menu])].filter(Boolean));
  item.dataset.sessionId = session.id;
  return item;
}

/**
 * A one-field form in place of the item (rename, folder, tags); Enter saves, Escape cancels. The list
 * is not redrawn while it is open. ``save(text)`` does the change (an error keeps the form open).
 */
function editInPlace(item, { label, value, testid, maxlength, list, allowEmpty = false, save }) {
  const session = state.sessions.find((s) => s.id === item.dataset.sessionId);
  const input = el("input", {
    className: "rename-input",
    testid,
    attrs: { type: "text", maxlength, required: !allowEmpty, "aria-label": label, value, list, placeholder: label },
  });
  const saveButton = el("button", { className: "btn btn-primary btn-small", text: "Save", attrs: { type: "submit" } });
  const cancel = el("button", { className: "btn btn-ghost btn-small", text: "Cancel", attrs: { type: "button" } });
  const form = el("form", { className: "rename-form" }, [input, el("div", { className: "rename-buttons" }, [saveButton, cancel])]);
  const mine = ++forms;
  const restore = () => {
    if (mine !== forms) return; // a form opened since (while this one saved) keeps the list as it is
    renamingId = null;
    renderSessionList();
    focusSessionItem(item.dataset.sessionId, ".session-open");
  };
  cancel.addEventListener("click", restore);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") restore();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const text = input.value.trim();
    if (!text && !allowEmpty) return restore();
    saveButton.disabled = true;
    try {
      renamingId = null; // the save lists again
      await save(text);
      restore();
    } catch (error) {
      if (mine === forms) renamingId = session?.id ?? null;
      saveButton.disabled = false;
      if (!isAbort(error)) setStatus(`Could not save: ${error.message}`, "error");
    }
    return undefined;
  });
  renamingId = item.dataset.sessionId;
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
      if (stillOn(session.id)) await openSession(session.id, { reveal: false });
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

/**
 * A new chat is the empty start screen: the chat itself is made by its first message (ensureSession,
 * chat.js), so pressing New chat again and again leaves no empty chats in the list.
 */
function onNewChat() {
  if (state.currentSessionId) forgetCurrentSession();
  setView("chat");
  if (document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  $("composer-input").focus();
}

/** On sign-out: nothing of this user's list stays in memory or in the DOM. */
export function clearSidebar() {
  nextCursor = null;
  labelsStale = true;
  query = "";
  renamingId = null;
  $("session-list").replaceChildren();
  $("search-hits").replaceChildren();
  show($("search-hits-section"), false);
  $("session-search").value = "";
  clearOrganise();
}

export function bindSidebar() {
  provideCommands({ loadSessions });
  subscribe((changed) => {
    if (changed.has("sessions") || changed.has("currentSessionId")) renderSessionList();
  });
  bindOrganise({ reloadList: () => loadSessions({ labels: true }), redrawList: () => renderSessionList() });
  $("new-chat").addEventListener("click", onNewChat);
  $("session-more").addEventListener("click", () => loadSessions({ append: true }));
  const search = debounce(() => {
    query = $("session-search").value.trim();
    loadSessions();
  }, SEARCH_DEBOUNCE_MS);
  $("session-search").addEventListener("input", search);
}
