// Sending a prompt and streaming its answer: the composer, the live bubbles of each turn this tab is
// streaming, tool lines, failures, and the Retry offer for a prompt that got no answer.
//
// Live turns are kept by session id, so switching to another chat and back re-attaches the answer
// still being written instead of losing it.

import { errorMessage, isAbort, rawRequest, sessionPath } from "./api.js";
import { ensureSession, forgetCurrentSession, isNearBottom, openSession, scheduleBusyPoll, scrollToBottom, setStatus } from "./chat.js";
import { $, el, show } from "./dom.js";
import { messageElement, messageShell, setAssistantBody, showCharts } from "./messages.js";
import { loadSessions } from "./sidebar.js";
import { state, update } from "./state.js";
import { readEventStream } from "./sse.js";
import { refreshUsage } from "./usage.js";

// Session id -> { userEl, assistantEl, body, tools, toolLines, text, streamed }.
const liveTurns = new Map();

export const isStreaming = (sessionId) => liveTurns.has(sessionId);

/** If this tab is still streaming into the session, put its live bubbles back after the transcript. */
export function reattachLiveTurn(id, messages) {
  const live = liveTurns.get(id);
  if (!live) return;
  const last = messages[messages.length - 1];
  const serverHasPrompt = last && last.role === "user" && last.content === live.text;
  if (!serverHasPrompt) $("messages").append(live.userEl);
  $("messages").append(live.assistantEl);
}

function composerLocked() {
  return state.remoteBusy || (state.currentSessionId !== null && liveTurns.has(state.currentSessionId));
}

export function updateComposer() {
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

/**
 * Send one prompt and stream the answer. Returns true once the server accepted the turn.
 * The typed text stays in the composer until the server accepts it, so a 409/413/422 loses nothing.
 */
export async function sendTurn(text, { fromComposer }) {
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
      const follow = isCurrent() && isNearBottom();
      showCharts(live.body, data.charts);
      if (follow) scrollToBottom(true); // keep the new charts in view, as the text was
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
    refreshUsage();
  }
  if (isCurrent()) scrollToBottom();
  // The stored transcript gives the new messages their ids, and with them their actions (branching.js).
  if (finished && isCurrent() && !live.assistantEl.classList.contains("failed")) {
    await openSession(sessionId, { reveal: false });
  }
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

/** A user turn that never finished: offer to send the same text again. */
export function markInterrupted(item, text) {
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

/** On sign-out: drop the live turns (their streams are aborted) and the unsent text. */
export function clearTurns() {
  liveTurns.clear();
  $("composer-input").value = "";
}

export function bindComposer() {
  $("composer").addEventListener("submit", onComposerSubmit);
  $("composer-input").addEventListener("keydown", onComposerKeydown);
  $("composer-input").addEventListener("input", autosize);
}
