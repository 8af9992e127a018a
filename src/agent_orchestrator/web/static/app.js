// AgentOrchestrator browser UI: plain ES module, no framework, no build step, no external requests.
//
// Two rules shape this file:
//
// 1. The conversation lives on the server (durable Copilot SDK sessions). The browser stores only the
//    current session id and UI preferences in localStorage -- never message text, titles or previews --
//    so a shared or lost device holds nothing readable, and opening the app elsewhere shows the same
//    chats. The id is an identifier, not a key: every request is authorised by the login cookie, and
//    a stored id that now answers 404 (deleted, or another user's) is dropped silently.
//
// 2. Model output is untrusted. The only string ever given to innerHTML is the `html` field of an
//    assistant message, which the server renders from markdown with raw HTML disabled. Everything
//    else -- user text, titles, previews, streamed deltas, tool names, errors -- goes through
//    textContent / createElement.

import {
  ApiError,
  abortRequests,
  api,
  errorMessage,
  fetchMe,
  isAbort,
  onSignedOut,
  queryString,
  rawRequest,
  sessionPath,
} from "./js/api.js";
import { $, SEARCH_DEBOUNCE_MS, debounce, el, setText, show } from "./js/dom.js";
import { DASH, fmtDecimal, fmtMoney, fmtNumber, fmtPercent, refreshRelativeTimes, sessionTitle, timeElement } from "./js/format.js";
import { readEventStream } from "./js/sse.js";
import { state, update } from "./js/state.js";
import { SEGMENTS, VIEWS, storage } from "./js/storage.js";

const CUSTOMERS_PAGE = 50;
const SESSIONS_PAGE = 50;
const BUSY_POLL_MS = 2500;

// State only this file needs, kept out of the shared store.
let nextCursor = null;
let query = "";
// While a rename form is open the list is not re-rendered (that would throw the typed title away).
let renamingId = null;
// Turns this tab is streaming, by session id: { userEl, assistantEl, text }. Kept so switching away
// and back re-attaches the live answer instead of losing it.
const liveTurns = new Map();
let busyPollTimer = null;
// Sequence numbers discard responses that arrive after the user moved on (out-of-order fetches).
let openSeq = 0;
let listSeq = 0;
let customersSeq = 0;
let customersOffset = 0;

// ----------------------------------------------------------------------------------------------------
// Authentication
// ----------------------------------------------------------------------------------------------------

function showPage(page) {
  show($("boot"), false);
  show($("login-page"), page === "login");
  show($("app"), page === "app");
}

function showLogin(message = "") {
  showPage("login");
  setText($("login-error"), message);
  $("login-password").value = "";
  $("login-username").focus();
}

async function onLoginSubmit(event) {
  event.preventDefault();
  const username = $("login-username").value.trim();
  const password = $("login-password").value;
  if (!username || !password) {
    setText($("login-error"), "Enter your username and password.");
    return;
  }
  const submit = $("login-submit");
  submit.disabled = true;
  setText($("login-error"), "");
  try {
    const me = await api("POST", "/api/auth/login", { username, password });
    $("login-password").value = "";
    await startApp(me);
  } catch (error) {
    const message =
      error instanceof ApiError && error.status === 401
        ? "Wrong username or password."
        : error instanceof ApiError
          ? error.message
          : "Cannot reach the server. Check your connection and try again.";
    setText($("login-error"), message);
    $("login-password").focus();
  } finally {
    submit.disabled = false;
  }
}

async function onLogout() {
  try {
    await api("POST", "/api/auth/logout");
  } catch (error) {
    // A 401 means we were signed out already; anything else still ends the local session below.
    if (!(error instanceof ApiError)) console.warn("logout failed", error);
  }
  // The stored id belonged to this user; the next person at this browser starts clean.
  storage.setSessionId(null);
  handleSignedOut("");
}

/** Drop everything held in memory and in the DOM about the user, then show the login page. */
function handleSignedOut(message = "Your sign-in has expired. Please sign in again.") {
  if (!state.user) return; // already signed out (several requests can 401 at once)
  abortRequests();
  stopBusyPoll();
  update({ user: null, csrfToken: null, sessions: [], currentSessionId: null, remoteBusy: false });
  nextCursor = null;
  query = "";
  renamingId = null;
  liveTurns.clear();
  clearConversation();
  $("session-list").replaceChildren();
  $("session-search").value = "";
  $("composer-input").value = "";
  $("current-user").textContent = "";
  $("segments-table").tBodies[0].replaceChildren();
  $("customers-table").tBodies[0].replaceChildren();
  show($("customer-detail"), false);
  showLogin(message);
}

async function startApp(me) {
  update({ user: me.user, csrfToken: me.csrf_token });
  $("current-user").textContent = me.user.username;
  $("customers-segment").value = storage.prefs().customerSegment;
  showPage("app");
  setView(storage.prefs().view);
  await loadSessions();
  await openInitialSession();
  if (state.view === "chat") $("composer-input").focus();
}

async function boot() {
  bindEvents();
  let response;
  try {
    response = await fetchMe();
  } catch {
    showLogin("Cannot reach the server. Check your connection and reload.");
    return;
  }
  if (response.ok) await startApp(await response.json());
  else showLogin(response.status === 401 ? "" : await errorMessage(response));
}

// ----------------------------------------------------------------------------------------------------
// Views (tabs)
// ----------------------------------------------------------------------------------------------------

function setView(view) {
  update({ view: VIEWS.includes(view) ? view : "chat" });
  storage.setPref("view", state.view);
  for (const tab of document.querySelectorAll(".tab")) {
    const active = tab.dataset.view === state.view;
    tab.classList.toggle("active", active);
    if (active) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  for (const name of VIEWS) show($(`view-${name}`), name === state.view);
  if (state.view === "segments") loadSegments();
  if (state.view === "customers") loadCustomers();
}

function toggleSidebar(open) {
  const isOpen = open ?? !document.body.classList.contains("sidebar-open");
  document.body.classList.toggle("sidebar-open", isOpen);
  $("sidebar-toggle").setAttribute("aria-expanded", String(isOpen));
  show($("sidebar-backdrop"), isOpen);
  if (isOpen) $("session-search").focus();
}

// ----------------------------------------------------------------------------------------------------
// Session list (sidebar)
// ----------------------------------------------------------------------------------------------------

async function loadSessions({ append = false } = {}) {
  const seq = ++listSeq;
  const cursor = append ? nextCursor : "";
  try {
    const page = await api("GET", `/api/sessions${queryString({ limit: SESSIONS_PAGE, cursor, q: query })}`);
    if (seq !== listSeq) return; // a newer search was issued meanwhile
    update({ sessions: append ? state.sessions.concat(page.items) : page.items });
    nextCursor = page.next_cursor || null;
    renderSessionList();
    // The server may have titled the chat after its first turn.
    const current = state.sessions.find((s) => s.id === state.currentSessionId);
    if (current) $("chat-title").textContent = sessionTitle(current);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not load your chats: ${error.message}`, "error");
  }
}

function renderSessionList() {
  if (renamingId !== null) return;
  const list = $("session-list");
  list.replaceChildren(...state.sessions.map(sessionItem));
  const empty = $("session-list-empty");
  empty.textContent = query ? "No chats match your search." : "No chats yet.";
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
  try {
    await api("DELETE", sessionPath(session.id));
  } catch (error) {
    if (isAbort(error)) return;
    if (!(error instanceof ApiError && error.status === 404)) {
      setStatus(`Could not delete the chat: ${error.message}`, "error");
      return;
    }
  }
  update({ sessions: state.sessions.filter((s) => s.id !== session.id) });
  renderSessionList();
  if (session.id === state.currentSessionId) {
    forgetCurrentSession();
    const next = state.sessions[0];
    if (next) await openSession(next.id);
  }
  setStatus("Chat deleted.");
}

function replaceSession(updated) {
  update({ sessions: state.sessions.map((s) => (s.id === updated.id ? updated : s)) });
  renderSessionList();
  if (updated.id === state.currentSessionId) $("chat-title").textContent = sessionTitle(updated);
}

function focusSessionItem(id, selector) {
  for (const item of $("session-list").children) {
    if (item.dataset.sessionId === id) item.querySelector(selector)?.focus();
  }
}

async function createSession() {
  const session = await api("POST", "/api/sessions", {});
  update({ sessions: [session, ...state.sessions.filter((s) => s.id !== session.id)] });
  renderSessionList();
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

// ----------------------------------------------------------------------------------------------------
// Opening a session
// ----------------------------------------------------------------------------------------------------

/**
 * Open the stored session if the server still lets us read it, else the most recent one, else the
 * empty state. The stored id is only a hint: the server decides whether this user may see it.
 */
async function openInitialSession() {
  const stored = storage.sessionId();
  // reveal: false keeps the tab the user last had open (a preference) instead of jumping to Chat.
  if (stored && (await openSession(stored, { silent404: true, reveal: false }))) return;
  if (state.sessions[0]) {
    await openSession(state.sessions[0].id, { reveal: false });
    return;
  }
  forgetCurrentSession();
}

/** Load and show a session's messages; returns false when it does not exist (for this user). */
async function openSession(id, { silent404 = false, reveal = true } = {}) {
  const seq = ++openSeq;
  stopBusyPoll();
  if (document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  let data;
  try {
    data = await api("GET", sessionPath(id, "/messages"));
  } catch (error) {
    if (seq !== openSeq || isAbort(error)) return false;
    if (error instanceof ApiError && error.status === 404) {
      if (storage.sessionId() === id) storage.setSessionId(null);
      update({ sessions: state.sessions.filter((s) => s.id !== id) });
      renderSessionList();
      if (!silent404) setStatus("That chat no longer exists.", "error");
      return false;
    }
    setStatus(`Could not open the chat: ${error.message}`, "error");
    return false;
  }
  if (seq !== openSeq) return true; // the user already clicked another session
  update({ currentSessionId: id });
  storage.setSessionId(id);
  if (reveal && state.view !== "chat") setView("chat");
  showConversation(data);
  renderSessionList();
  return true;
}

function forgetCurrentSession() {
  update({ currentSessionId: null, remoteBusy: false });
  storage.setSessionId(null);
  stopBusyPoll();
  clearConversation();
  renderSessionList();
  updateComposer();
}

function clearConversation() {
  $("messages").replaceChildren();
  $("chat-title").textContent = "New chat";
  show($("empty-state"), true);
  setStatus("");
}

function showConversation(data) {
  const id = data.session.id;
  $("chat-title").textContent = sessionTitle(data.session);
  const list = $("messages");
  list.replaceChildren(...data.messages.map(messageElement));
  reattachLiveTurn(id, data.messages);
  show($("empty-state"), list.children.length === 0);
  update({ remoteBusy: Boolean(data.busy) && !liveTurns.has(id) });
  if (state.remoteBusy) {
    setStatus("An answer is being written in another tab or device…", "busy");
    scheduleBusyPoll(id);
  } else if (!liveTurns.has(id)) {
    setStatus("");
  }
  updateComposer();
  scrollToBottom(true);
}

/** If this tab is still streaming into the session, put its live bubbles back after the transcript. */
function reattachLiveTurn(id, messages) {
  const live = liveTurns.get(id);
  if (!live) return;
  const last = messages[messages.length - 1];
  const serverHasPrompt = last && last.role === "user" && last.content === live.text;
  if (!serverHasPrompt) $("messages").append(live.userEl);
  $("messages").append(live.assistantEl);
}

// Another tab or device is answering in this session: poll until it finishes, then reload.
function scheduleBusyPoll(id) {
  stopBusyPoll();
  busyPollTimer = setTimeout(async () => {
    if (state.currentSessionId !== id) return;
    try {
      const data = await api("GET", sessionPath(id, "/messages"));
      if (state.currentSessionId !== id) return;
      if (data.busy) scheduleBusyPoll(id);
      else {
        showConversation(data);
        loadSessions();
      }
    } catch (error) {
      if (!isAbort(error)) scheduleBusyPoll(id);
    }
  }, BUSY_POLL_MS);
}

function stopBusyPoll() {
  clearTimeout(busyPollTimer);
  busyPollTimer = null;
}

// ----------------------------------------------------------------------------------------------------
// Messages
// ----------------------------------------------------------------------------------------------------

function messageShell(role) {
  const who = role === "user" ? "You" : "Assistant";
  const body = el("div", { className: "message-body" });
  const item = el("li", { className: `message message-${role}`, testid: "message" }, [
    el("span", { className: "message-author", text: who }),
    body,
  ]);
  item.dataset.role = role;
  return { item, body };
}

function messageElement(message) {
  const role = message.role === "user" ? "user" : "assistant";
  const { item, body } = messageShell(role);
  if (role === "assistant") setAssistantBody(body, message);
  else body.textContent = message.content || "";
  const time = timeElement(message.timestamp, "message-time");
  if (time) item.append(time);
  if (role === "user" && message.interrupted) markInterrupted(item, message.content);
  return item;
}

/**
 * The one place that uses innerHTML: `html` is produced by the server's markdown renderer with raw
 * HTML disabled, so model output cannot inject markup here. Without it, fall back to plain text.
 */
function setAssistantBody(body, { html, content }) {
  body.classList.remove("streaming");
  if (typeof html === "string" && html) {
    body.innerHTML = html;
    body.classList.add("markdown");
  } else {
    body.textContent = content || "";
  }
}

/** A user turn that never finished: offer to send the same text again. */
function markInterrupted(item, text) {
  item.classList.add("interrupted");
  const retry = el("button", {
    className: "btn btn-small btn-ghost",
    text: "Retry",
    testid: "message-retry",
    attrs: { type: "button" },
  });
  retry.addEventListener("click", () => {
    if (composerLocked()) return;
    retry.disabled = true;
    sendTurn(text, { fromComposer: false }).then((started) => {
      // The old prompt stays in the transcript as it is on the server; only the offer goes.
      if (started) note.remove();
      else retry.disabled = false;
    });
  });
  const note = el("div", { className: "message-note" }, [
    el("span", { text: "This message did not get an answer." }),
    retry,
  ]);
  item.append(note);
}

function scrollToBottom(force = false) {
  const box = $("conversation");
  const nearBottom = box.scrollHeight - box.scrollTop - box.clientHeight < 120;
  if (force || nearBottom) box.scrollTop = box.scrollHeight;
}

function setStatus(text, kind = "") {
  const line = $("status-line");
  line.textContent = text || "";
  line.dataset.kind = kind;
}

// ----------------------------------------------------------------------------------------------------
// Composer and streamed turns
// ----------------------------------------------------------------------------------------------------

function composerLocked() {
  return state.remoteBusy || (state.currentSessionId !== null && liveTurns.has(state.currentSessionId));
}

function updateComposer() {
  const locked = composerLocked();
  $("composer-input").disabled = locked;
  $("composer-send").disabled = locked;
  for (const button of document.querySelectorAll('[data-testid="message-retry"]')) button.disabled = locked;
}

function autosize() {
  const input = $("composer-input");
  input.style.height = "auto";
  input.style.height = `${Math.min(input.scrollHeight, 240)}px`;
}

function onComposerKeydown(event) {
  // isComposing: Enter that confirms an IME candidate (Japanese, Chinese…) must not send.
  if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    $("composer").requestSubmit();
  }
}

async function onComposerSubmit(event) {
  event.preventDefault();
  const text = $("composer-input").value.trim();
  if (!text || composerLocked()) return;
  await sendTurn(text, { fromComposer: true });
}

/** Creates a session first when none is open (the empty state), so typing is enough to start. */
async function ensureSession() {
  if (state.currentSessionId) return state.currentSessionId;
  const session = await createSession();
  update({ currentSessionId: session.id });
  storage.setSessionId(session.id);
  $("chat-title").textContent = sessionTitle(session);
  renderSessionList();
  return session.id;
}

/**
 * Send one prompt and stream the answer. Returns true once the server accepted the turn.
 * The typed text stays in the composer until the server accepts it, so a 409/413/422 loses nothing.
 */
async function sendTurn(text, { fromComposer }) {
  let sessionId;
  try {
    sessionId = await ensureSession();
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not start a chat: ${error.message}`, "error");
    return false;
  }
  const live = beginLiveTurn(sessionId, text);
  let response;
  try {
    response = await rawRequest("POST", sessionPath(sessionId, "/messages"), { content: text }, { accept: "text/event-stream" });
  } catch (error) {
    endLiveTurn(sessionId, { keepUser: false });
    if (!isAbort(error)) setStatus("Cannot reach the server. Your message was not sent.", "error");
    return false;
  }
  if (!response.ok) {
    endLiveTurn(sessionId, { keepUser: false });
    await reportRejectedTurn(response, sessionId);
    return false;
  }
  if (fromComposer) {
    $("composer-input").value = "";
    autosize();
  }
  await streamAnswer(response, sessionId, live);
  return true;
}

async function reportRejectedTurn(response, sessionId) {
  const message = await errorMessage(response);
  if (response.status === 404) {
    if (state.currentSessionId === sessionId) forgetCurrentSession();
    await loadSessions();
    setStatus("That chat no longer exists. Your text is still in the box: send it to start a new chat.", "error");
  } else if (response.status === 409) {
    setStatus(`${message} Your text is kept; try again when the other answer has finished.`, "error");
    // Another tab or device is answering: wait for it like on opening a busy chat, so its turn shows
    // up here (instead of a stale transcript) and the composer unlocks, text intact, once it is done.
    if (state.currentSessionId === sessionId) {
      update({ remoteBusy: true });
      updateComposer();
      scheduleBusyPoll(sessionId);
    }
  } else if (response.status !== 401) {
    setStatus(message, "error");
  }
}

/** Show the prompt and an empty assistant bubble immediately, and lock the composer. */
function beginLiveTurn(sessionId, text) {
  const user = messageElement({ role: "user", content: text, timestamp: new Date().toISOString() });
  const { item: assistantEl, body } = messageShell("assistant");
  body.classList.add("streaming");
  // aria-busy keeps screen readers from announcing every delta; they read the answer once, when done.
  assistantEl.setAttribute("aria-busy", "true");
  const tools = el("ul", { className: "tool-lines", attrs: { "aria-label": "Tools used" } });
  assistantEl.insertBefore(tools, body);
  const live = { userEl: user, assistantEl, body, tools, toolLines: new Map(), text, streamed: "" };
  liveTurns.set(sessionId, live);
  if (state.currentSessionId === sessionId) {
    show($("empty-state"), false);
    $("messages").append(user, assistantEl);
    setStatus("Thinking…", "busy");
    scrollToBottom(true);
  }
  updateComposer();
  return live;
}

function endLiveTurn(sessionId, { keepUser }) {
  const live = liveTurns.get(sessionId);
  liveTurns.delete(sessionId);
  if (live) {
    live.assistantEl.removeAttribute("aria-busy");
    if (!keepUser) {
      live.userEl.remove();
      live.assistantEl.remove();
      if ($("messages").children.length === 0 && state.currentSessionId === sessionId) show($("empty-state"), true);
    }
  }
  updateComposer();
  // Give focus back to the composer, unless the user has moved on to something else meanwhile.
  const idle = !document.activeElement || document.activeElement === document.body;
  if (state.currentSessionId === sessionId && idle) $("composer-input").focus();
}

async function streamAnswer(response, sessionId, live) {
  const isCurrent = () => state.currentSessionId === sessionId;
  let finished = false;
  const handlers = {
    delta(data) {
      // Plain text while streaming; the safe server-rendered HTML replaces it on "done".
      const text = data.text || "";
      live.streamed += text;
      live.body.append(text); // a text node, never parsed as HTML
      if (isCurrent()) scrollToBottom();
    },
    tool(data) {
      onToolEvent(live, data, isCurrent());
    },
    done(data) {
      finished = true;
      setAssistantBody(live.body, { html: data.html, content: data.content ?? live.streamed });
      if (isCurrent()) setStatus("");
    },
    error(data) {
      finished = true;
      failLiveTurn(live, data.message || "The answer failed.", isCurrent());
    },
  };
  try {
    await readEventStream(response, (name, data) => handlers[name]?.(data));
    if (!finished) failLiveTurn(live, "The connection closed before the answer was complete.", isCurrent());
  } catch (error) {
    if (isAbort(error)) return;
    failLiveTurn(live, "The connection was lost while the answer was streaming.", isCurrent());
  } finally {
    endLiveTurn(sessionId, { keepUser: true });
  }
  if (isCurrent()) scrollToBottom();
  loadSessions(); // titles, previews and order change after a turn
}

function onToolEvent(live, data, current) {
  const id = String(data.call_id ?? "");
  let line = live.toolLines.get(id);
  // "finished" may come without a name: reuse the one from "started".
  const name = data.name || line?.dataset.toolName || "a tool";
  if (!line) {
    line = el("li", { className: "tool-line" });
    line.dataset.toolName = name;
    live.toolLines.set(id, line);
    live.tools.append(line);
  }
  if (data.status === "finished") {
    line.textContent = data.success === false ? `tool ${name} failed` : `used tool ${name}`;
    line.classList.add(data.success === false ? "tool-failed" : "tool-done");
  } else {
    line.textContent = `using tool ${name}…`;
    if (current) setStatus(`Using tool ${name}…`, "busy");
  }
}

function failLiveTurn(live, message, current) {
  live.body.classList.remove("streaming");
  if (!live.streamed) live.body.textContent = "";
  live.assistantEl.classList.add("failed");
  live.assistantEl.append(el("p", { className: "message-error", text: message, attrs: { role: "alert" } }));
  markInterrupted(live.userEl, live.text);
  if (current) setStatus(message, "error");
}

// ----------------------------------------------------------------------------------------------------
// Retail: segments
// ----------------------------------------------------------------------------------------------------

async function loadSegments() {
  setText($("segments-error"), "");
  try {
    const data = await api("GET", "/api/retail/segments");
    renderSegments(data);
  } catch (error) {
    if (!isAbort(error)) setText($("segments-error"), `Could not load segments: ${error.message}`);
  }
}

function segmentRow(summary, { isTotal = false } = {}) {
  const nameCell = el(isTotal ? "th" : "td", { attrs: { scope: isTotal ? "row" : null } });
  if (!isTotal && SEGMENTS.includes(summary.segment)) {
    // Jump to the customers of this segment.
    const link = el("button", { className: "link-btn", text: summary.segment, attrs: { type: "button" } });
    link.addEventListener("click", () => showCustomersOf(summary.segment));
    nameCell.append(link);
  } else {
    nameCell.textContent = summary.segment;
  }
  // The response model names it customer_share; accept "share" too.
  const share = summary.customer_share ?? summary.share;
  const cells = [
    fmtNumber(summary.customers),
    fmtPercent(share),
    fmtMoney(summary.revenue),
    fmtPercent(summary.revenue_share),
    fmtNumber(summary.orders),
    fmtMoney(summary.avg_order_value),
    fmtDecimal(summary.avg_recency_days),
    fmtPercent(summary.repeat_rate),
    fmtPercent(summary.retention_rate),
  ].map((text) => el("td", { className: "num", text }));
  return el("tr", { className: isTotal ? "total" : "" }, [nameCell, ...cells]);
}

function renderSegments(data) {
  const table = $("segments-table");
  table.tBodies[0].replaceChildren(...(data.segments || []).map((s) => segmentRow(s)));
  table.tFoot.replaceChildren(...(data.overall ? [segmentRow(data.overall, { isTotal: true })] : []));
  $("segments-meta").textContent = data.as_of
    ? `As of ${data.as_of} (the latest purchase in the data; recency is measured to this date).`
    : "No purchases in the dataset yet.";
  renderRules(data.rules);
}

function renderRules(rules) {
  const box = $("segments-rules");
  if (!rules) {
    box.replaceChildren();
    return;
  }
  const items = (rules.rules || []).map((rule) => el("li", { text: rule }));
  box.replaceChildren(
    el("h3", { text: "How customers are segmented" }),
    el("p", {
      className: "muted",
      text: `Rules apply in order; the first match wins. At Risk = no purchase in ${rules.active_days} days; `
        + `High Value = active repeat buyer spending more than ${fmtMoney(rules.high_value_above)}.`,
    }),
    el("ol", {}, items),
  );
}

// ----------------------------------------------------------------------------------------------------
// Retail: customers
// ----------------------------------------------------------------------------------------------------

function showCustomersOf(segment) {
  $("customers-segment").value = segment;
  storage.setPref("customerSegment", segment);
  customersOffset = 0;
  setView("customers");
}

function customerFilters() {
  return {
    segment: $("customers-segment").value,
    country: $("customers-country").value.trim(),
  };
}

async function loadCustomers() {
  const seq = ++customersSeq;
  setText($("customers-error"), "");
  const params = { ...customerFilters(), limit: CUSTOMERS_PAGE, offset: customersOffset };
  try {
    const page = await api("GET", `/api/retail/customers${queryString(params)}`);
    if (seq !== customersSeq) return;
    renderCustomers(page);
  } catch (error) {
    if (seq === customersSeq && !isAbort(error)) {
      setText($("customers-error"), `Could not load customers: ${error.message}`);
    }
  }
}

function customerRow(customer) {
  const open = el("button", {
    className: "link-btn",
    text: `#${customer.customer_id}`,
    attrs: { type: "button", "aria-label": `Show customer ${customer.customer_id}` },
  });
  open.addEventListener("click", () => loadCustomerDetail(customer.customer_id));
  const rfm = customer.rfm ? `${customer.rfm.r}-${customer.rfm.f}-${customer.rfm.m}` : DASH;
  return el("tr", {}, [
    el("td", {}, [open]),
    el("td", { text: customer.country }),
    el("td", { text: customer.segment }),
    el("td", { className: "num", text: fmtNumber(customer.orders) }),
    el("td", { className: "num", text: fmtMoney(customer.revenue) }),
    el("td", { text: customer.last_purchase }),
    el("td", { className: "num", text: fmtNumber(customer.recency_days) }),
    el("td", { className: "num", text: rfm, attrs: { title: "Recency-Frequency-Monetary scores, 5 = best" } }),
  ]);
}

function renderCustomers(page) {
  const body = $("customers-table").tBodies[0];
  body.replaceChildren(...page.items.map(customerRow));
  if (page.items.length === 0) {
    body.append(el("tr", {}, [el("td", { className: "muted", text: "No customers match these filters.", attrs: { colspan: 8 } })]));
  }
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + page.items.length;
  $("customers-range").textContent = `${fmtNumber(first)}–${fmtNumber(last)} of ${fmtNumber(page.total)}`;
  $("customers-prev").disabled = page.offset === 0;
  $("customers-next").disabled = last >= page.total;
}

function pageCustomers(direction) {
  customersOffset = Math.max(0, customersOffset + direction * CUSTOMERS_PAGE);
  loadCustomers();
}

function onCustomerFiltersChanged() {
  storage.setPref("customerSegment", $("customers-segment").value);
  customersOffset = 0;
  loadCustomers();
}

async function loadCustomerDetail(id) {
  const box = $("customer-detail");
  show(box, true);
  box.replaceChildren(el("p", { className: "muted", text: "Loading…" }));
  try {
    const customer = await api("GET", `/api/retail/customers/${encodeURIComponent(id)}`);
    renderCustomerDetail(customer);
  } catch (error) {
    if (!isAbort(error)) box.replaceChildren(el("p", { className: "form-error", text: error.message }));
  }
}

function renderCustomerDetail(c) {
  const facts = [
    ["Country", c.country],
    ["Segment", c.segment],
    ["Why", c.segment_reason],
    ["Orders", fmtNumber(c.orders)],
    ["Cancelled invoices", fmtNumber(c.cancellations)],
    ["Revenue", fmtMoney(c.revenue)],
    ["Average order", fmtMoney(c.avg_order_value)],
    ["First purchase", c.first_purchase],
    ["Last purchase", `${c.last_purchase} (${fmtNumber(c.recency_days)} days before the as-of date)`],
    ["Tenure (days)", fmtNumber(c.tenure_days)],
    ["RFM", c.rfm ? `R ${c.rfm.r} · F ${c.rfm.f} · M ${c.rfm.m}` : DASH],
  ];
  const list = el("dl", { className: "facts" });
  for (const [term, value] of facts) list.append(el("dt", { text: term }), el("dd", { text: value ?? DASH }));
  const products = (c.top_products || []).map((p) =>
    el("tr", {}, [
      el("td", { text: p.stock_code }),
      el("td", { text: p.description }),
      el("td", { className: "num", text: fmtNumber(p.quantity) }),
      el("td", { className: "num", text: fmtMoney(p.revenue) }),
    ]),
  );
  const close = el("button", { className: "btn btn-ghost btn-small", text: "Close", attrs: { type: "button" } });
  close.addEventListener("click", () => show($("customer-detail"), false));
  const heading = el("h3", { text: `Customer #${c.customer_id}`, attrs: { tabindex: "-1" } });
  $("customer-detail").replaceChildren(
    el("div", { className: "detail-header" }, [heading, close]),
    list,
    el("h4", { text: "Top products" }),
    el("div", { className: "table-wrap" }, [
      el("table", { className: "data-table" }, [
        el("thead", {}, [
          el("tr", {}, ["Code", "Description", "Quantity", "Revenue"].map((h, i) =>
            el("th", { text: h, className: i >= 2 ? "num" : "", attrs: { scope: "col" } }))),
        ]),
        el("tbody", {}, products),
      ]),
    ]),
  );
  heading.focus();
}

// ----------------------------------------------------------------------------------------------------
// Wiring
// ----------------------------------------------------------------------------------------------------

function bindEvents() {
  $("login-form").addEventListener("submit", onLoginSubmit);
  $("logout").addEventListener("click", onLogout);
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => setView(tab.dataset.view));
  }
  $("sidebar-toggle").addEventListener("click", () => toggleSidebar());
  $("sidebar-backdrop").addEventListener("click", () => toggleSidebar(false));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  });

  $("new-chat").addEventListener("click", onNewChat);
  $("session-more").addEventListener("click", () => loadSessions({ append: true }));
  const search = debounce(() => {
    query = $("session-search").value.trim();
    loadSessions();
  }, SEARCH_DEBOUNCE_MS);
  $("session-search").addEventListener("input", search);

  $("composer").addEventListener("submit", onComposerSubmit);
  $("composer-input").addEventListener("keydown", onComposerKeydown);
  $("composer-input").addEventListener("input", autosize);

  $("customers-filters").addEventListener("submit", (event) => event.preventDefault());
  $("customers-segment").addEventListener("change", onCustomerFiltersChanged);
  $("customers-country").addEventListener("input", debounce(onCustomerFiltersChanged, SEARCH_DEBOUNCE_MS));
  $("customers-prev").addEventListener("click", () => pageCustomers(-1));
  $("customers-next").addEventListener("click", () => pageCustomers(1));

  // Relative times ("3 minutes ago") go stale: refresh their text once a minute, in place, so
  // keyboard focus and an open rename form are not disturbed.
  setInterval(refreshRelativeTimes, 60_000);
  onSignedOut(() => handleSignedOut());
}

boot();
