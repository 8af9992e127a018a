// The open chat: which session is shown, its transcript as the server has it, the status line, and
// waiting for an answer another tab or device is writing. Sending and streaming are turns.js's job.

import { ApiError, api, isAbort, sessionPath } from "./api.js";
import { exportLinks, messageActions, parentLink } from "./branching.js";
import { destroyCharts } from "./charts.js";
import { $, show } from "./dom.js";
import { sessionTitle } from "./format.js";
import { messageElement } from "./messages.js";
import { createSession, loadSessions, renderSessionList } from "./sidebar.js";
import { state, update } from "./state.js";
import { storage } from "./storage.js";
import { isStreaming, markInterrupted, reattachLiveTurn, updateComposer } from "./turns.js";
import { setView, toggleSidebar } from "./views.js";

const BUSY_POLL_MS = 2500;

// Discards a transcript that arrives after the user clicked another chat (out-of-order fetches).
let openSeq = 0;
let busyPollTimer = null;

/**
 * Open the stored session if the server still lets us read it, else the most recent one, else the
 * empty state. The stored id is only a hint: the server decides whether this user may see it.
 */
export async function openInitialSession() {
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
export async function openSession(id, { silent404 = false, reveal = true } = {}) {
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

export function forgetCurrentSession() {
  update({ currentSessionId: null, remoteBusy: false });
  storage.setSessionId(null);
  stopBusyPoll();
  clearConversation();
  renderSessionList();
  updateComposer();
}

/** Creates a session first when none is open (the empty state), so typing is enough to start. */
export async function ensureSession() {
  if (state.currentSessionId) return state.currentSessionId;
  const session = await createSession();
  update({ currentSessionId: session.id });
  storage.setSessionId(session.id);
  $("chat-title").textContent = sessionTitle(session);
  renderSessionList();
  return session.id;
}

function clearConversation() {
  destroyCharts($("messages"));
  $("messages").replaceChildren();
  $("chat-actions").replaceChildren();
  $("chat-title").textContent = "New chat";
  show($("empty-state"), true);
  setStatus("");
}

function showConversation(data) {
  const id = data.session.id;
  $("chat-title").textContent = sessionTitle(data.session);
  $("chat-actions").replaceChildren(...[parentLink(data.session), ...exportLinks(id)].filter(Boolean));
  const list = $("messages");
  destroyCharts(list);
  list.replaceChildren(...data.messages.map((message, index) => transcriptItem(message, index === data.messages.length - 1)));
  reattachLiveTurn(id, data.messages);
  show($("empty-state"), list.children.length === 0);
  update({ remoteBusy: Boolean(data.busy) && !isStreaming(id) });
  if (state.remoteBusy) {
    setStatus("An answer is being written in another tab or device…", "busy");
    scheduleBusyPoll(id);
  } else if (!isStreaming(id)) {
    setStatus("");
  }
  updateComposer();
  scrollToBottom(true);
}

/** A stored message with its actions; a prompt that never got its answer offers to send it again. */
function transcriptItem(message, isLast) {
  const item = messageElement(message);
  if (message.role === "user" && message.interrupted) markInterrupted(item, message.content);
  const actions = messageActions(message, { isLast });
  if (actions) item.append(actions);
  return item;
}

// Another tab or device is answering in this session: poll until it finishes, then reload.
export function scheduleBusyPoll(id) {
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

export function isNearBottom() {
  const box = $("conversation");
  return box.scrollHeight - box.scrollTop - box.clientHeight < 120;
}

export function scrollToBottom(force = false) {
  const box = $("conversation");
  if (force || isNearBottom()) box.scrollTop = box.scrollHeight;
}

export function setStatus(text, kind = "") {
  const line = $("status-line");
  line.textContent = text || "";
  line.dataset.kind = kind;
}

/** On sign-out: stop waiting for other devices and empty the transcript. */
export function clearChat() {
  stopBusyPoll();
  clearConversation();
}
