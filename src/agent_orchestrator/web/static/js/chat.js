// The open chat: which session is shown, its transcript as the server has it, and its live feed from
// there on (renames, deletion, and every turn, handed to turns.js). The modules it is built from open
// chats through commands.js, which bindChat provides with this module's functions.

import { activityButton, closeActivity } from "./activity.js";
import { ApiError, api, isAbort, sessionPath } from "./api.js";
import { exportLinks, isHighlighted, messageActions, parentLink } from "./branching.js";
import { destroyCharts } from "./charts.js";
import { provideCommands } from "./commands.js";
import { $, show } from "./dom.js";
import { showFeedback } from "./feedback.js";
import { sessionTitle } from "./format.js";
import { followSession, stopFollowingSession } from "./live.js";
import { messageElement } from "./messages.js";
import { createSession } from "./sidebar.js";
import { showStart } from "./start.js";
import { state, update } from "./state.js";
import { closeSharePanel, shareButton } from "./share.js";
import { setStatus } from "./status.js";
import { storage } from "./storage.js";
import { dropTurn, joinTurn, markInterrupted, onTurnEvent, scrollToBottom, updateComposer } from "./turns.js";
import { setView, toggleSidebar } from "./views.js";

// Discards a transcript that arrives after the user clicked another chat (out-of-order fetches).
let openSeq = 0;
// The chat last asked for while its transcript loads: until then the open chat is on its way out,
// and work that ends later (a regenerate, a turn's end) must not draw it back.
let opening = null;

/** The chat is open and no other is being opened: background work may still draw into it. */
export function stillOn(id) {
  return state.currentSessionId === id && (opening === null || opening === id);
}

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
  opening = id;
  if (document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  let data;
  try {
    data = await api("GET", sessionPath(id, "/messages"));
  } catch (error) {
    if (seq !== openSeq) return false;
    opening = null; // failed or aborted: the chat on show stays the open one
    if (isAbort(error)) return false;
    if (error instanceof ApiError && error.status === 404) {
      if (storage.sessionId() === id) storage.setSessionId(null);
      update({ sessions: state.sessions.filter((s) => s.id !== id) }); // the sidebar redraws (subscribed)
      if (!silent404) setStatus("That chat no longer exists.", "error");
      return false;
    }
    setStatus(`Could not open the chat: ${error.message}`, "error");
    return false;
  }
  if (seq !== openSeq) return true; // the user already clicked another session
  opening = null;
  update({ currentSessionId: id });
  storage.setSessionId(id);
  if (reveal && state.view !== "chat") setView("chat");
  showConversation(data);
  return true;
}

export function forgetCurrentSession() {
  openSeq += 1; // a chat still loading is not shown over the new one
  opening = null;
  update({ currentSessionId: null, answering: false });
  storage.setSessionId(null);
  stopFollowingSession();
  dropTurn();
  clearConversation();
  showStart(); // not on sign-out (clearChat): only a signed-in user's empty chat asks for it
  updateComposer();
}

/** Creates a session first when none is open (the empty state), so typing is enough to start. */
export async function ensureSession() {
  if (state.currentSessionId) return state.currentSessionId;
  const session = await createSession();
  update({ currentSessionId: session.id });
  storage.setSessionId(session.id);
  $("chat-title").textContent = sessionTitle(session);
  showChatActions(session); // the first chat of a visit has its Export, Share and Activity at once
  followSession(session.id, 0, (name, data) => onSessionEvent(session.id, name, data));
  return session.id;
}

/** The open chat's own actions above its messages. */
function showChatActions(session) {
  const actions = [parentLink(session), ...exportLinks(session.id), shareButton(), activityButton()];
  $("chat-actions").replaceChildren(...actions.filter(Boolean));
}

function clearConversation() {
  closeSharePanel();
  closeActivity();
  destroyCharts($("messages"));
  $("messages").replaceChildren();
  $("chat-actions").replaceChildren();
  $("chat-title").textContent = "New chat";
  show($("empty-state"), true);
  setStatus("");
}

/** Show the transcript, the turn in flight as far as it got, and follow the feed from there. */
function showConversation(data) {
  const id = data.session.id;
  $("chat-title").textContent = sessionTitle(data.session);
  showChatActions(data.session);
  closeSharePanel();
  closeActivity();
  const list = $("messages");
  dropTurn();
  destroyCharts(list);
  const last = data.messages.length - 1;
  const items = data.messages.map((message, index) => transcriptItem(message, index === last, data.messages[index - 1]));
  list.replaceChildren(...items);
  show($("empty-state"), list.children.length === 0);
  if (list.children.length === 0) showStart();
  // A turn in flight shows as far as it got; the feed brings the rest and its end ("idle").
  update({ answering: Boolean(data.live_turn) });
  setStatus("");
  if (data.live_turn) joinTurn(data.live_turn);
  updateComposer();
  scrollToBottom(true);
  followSession(id, data.last_event_id, (name, event) => onSessionEvent(id, name, event));
}

/** One event of the open chat's live feed. */
async function onSessionEvent(id, name, data) {
  if (!stillOn(id)) return;
  if (name === "renamed") {
    $("chat-title").textContent = data.title || $("chat-title").textContent;
  } else if (name === "feedback") {
    showFeedback(data);
  } else if (name === "organised") {
    // the sidebar lists it again from the list's own feed
  } else if (name === "deleted" || name === "lost") {
    // Deleted on another device (or the feed was refused): the server decides what is still there.
    if (!(await openSession(id, { silent404: true, reveal: false }))) {
      forgetCurrentSession();
      setStatus("This chat was deleted on another device.", "error");
    }
  } else if (name === "reset" || name === "history") {
    // further behind than the feed keeps, or the history rewritten (a version, a rewind): reload
    await openSession(id, { reveal: false });
  } else if (name !== "created") {
    onTurnEvent(name, data);
  }
}

/**
 * After a turn: the stored transcript gives the turn's messages their ids, and with them their actions
 * (branching.js). The rendered messages stay as they are (charts included); only when the page and
 * the transcript are out of step is the conversation drawn again.
 */
export async function refreshMessageActions(id) {
  let data;
  try {
    data = await api("GET", sessionPath(id, "/messages"));
  } catch {
    return; // the actions come with the next reload
  }
  const items = [...$("messages").children];
  if (!stillOn(id) || data.live_turn) return;
  if (items.length !== data.messages.length) {
    showConversation(data);
    return;
  }
  const last = data.messages.length - 1;
  items.forEach((item, index) => {
    item.querySelector(":scope > .message-actions")?.remove();
    const actions = messageActions(data.messages[index], { isLast: index === last, question: data.messages[index - 1] });
    if (actions) item.append(actions);
  });
}

/**
 * A stored message with its actions (``question``: the message before it, which a stopped answer's
 * Retry asks again); a prompt that never got its answer offers to send it again.
 */
function transcriptItem(message, isLast, question) {
  const item = messageElement(message, { question });
  if (isHighlighted(message)) item.classList.add("highlighted");
  if (message.role === "user" && message.interrupted) markInterrupted(item, message.content);
  const actions = messageActions(message, { isLast, question });
  if (actions) item.append(actions);
  return item;
}

/** On sign-out: stop following the chat and empty the transcript. */
export function clearChat() {
  stopFollowingSession();
  dropTurn();
  clearConversation();
}

/** At start-up (main.js): the commands the sidebar, the turns and the branching actions call. */
export function bindChat() {
  provideCommands({ openSession, forgetCurrentSession, ensureSession, refreshMessageActions, stillOn });
}
