// Sending a prompt, and showing the open chat's turn as the live feed tells it: the composer, the
// bubbles of the turn being answered (on this device or any other), tool lines, failures, and the
// Retry offer for a prompt that got no answer.
//
// This tab renders its own turns exactly as it renders another device's: from the session's live
// feed (live.js), never from the POST's own response. So there is one path, and a tab that joins a
// turn mid-way (reload, another device) shows what the others show.

import { errorMessage, isAbort, rawRequest, sessionPath } from "./api.js";
import { ensureSession, forgetCurrentSession, loadSessions, openSession, refreshMessageActions, stillOn } from "./commands.js";
import { $, el, show } from "./dom.js";
import { seenEventId } from "./live.js";
import { askedForChart, markStopped, messageElement, messageShell, setAssistantBody, showToolData } from "./messages.js";
import { state, update } from "./state.js";
import { setStatus } from "./status.js";
import { refreshUsage } from "./usage.js";

// The turn of the open chat being answered: { userEl, assistantEl, body, tools, toolLines, text, streamed }.
let turn = null;
// True while this tab's POST of a message is in flight (before the server accepted or refused it).
let sending = false;
// When this tab last told the server that a message is being written in which chat: at most once a
// minute per chat, so that a chat left open past the server's warm-session idle time is resumed while
// the user types, not when they send.
const COMPOSING_EVERY_MS = 60_000;
let composingHint = { sessionId: null, at: 0 };

function onComposerInput() {
  autosize();
  const sessionId = state.currentSessionId;
  const now = Date.now();
  if (!sessionId || (composingHint.sessionId === sessionId && now - composingHint.at < COMPOSING_EVERY_MS)) return;
  composingHint = { sessionId, at: now };
  rawRequest("POST", sessionPath(sessionId, "/composing")).catch(() => {}); // only a hint
}

export function composerLocked() {
  return sending || state.answering;
}

// True from a click on Stop until the turn is over (the stop is on its way to the runtime).
let stopping = false;

export function updateComposer() {
  const locked = composerLocked();
  $("composer-input").disabled = locked;
  $("composer-send").disabled = locked;
  // Any tab or device of the chat may stop the answer being written, wherever it was sent from.
  show($("composer-stop"), state.answering);
  $("composer-stop").disabled = stopping;
  for (const button of document.querySelectorAll('[data-testid="message-retry"]')) button.disabled = locked;
}

function isNearBottom() {
  const box = $("conversation");
  return box.scrollHeight - box.scrollTop - box.clientHeight < 120;
}

export function scrollToBottom(force = false) {
  if (force || isNearBottom()) $("conversation").scrollTop = $("conversation").scrollHeight;
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

async function onStopClick() {
  const sessionId = state.currentSessionId;
  if (!sessionId || !state.answering || stopping) return;
  stopping = true;
  updateComposer();
  setStatus("Stopping…", "busy");
  let response;
  try {
    response = await rawRequest("POST", sessionPath(sessionId, "/stop"));
  } catch (error) {
    response = null;
    if (!isAbort(error)) setStatus("Cannot reach the server; the answer goes on.", "error");
  }
  if (response && !response.ok && response.status !== 409) setStatus(await errorMessage(response), "error");
  if (!response || !response.ok) {
    stopping = false; // 409: the answer had ended already; its end comes through the feed
    updateComposer();
  }
}

async function onComposerSubmit(event) {
  event.preventDefault();
  const text = $("composer-input").value.trim();
  if (!text || composerLocked()) return;
  await sendTurn(text, { fromComposer: true });
}

/**
 * Send one prompt; the turn itself shows up through the live feed. Returns true once the server
 * accepted it. The typed text stays in the composer until then, so a 409/413/422 loses nothing.
 * ``path``: where a turn starts other than with a new message (an edit, a regenerate: versions of a
 * turn, whose new history the feed's "history" event draws); ``text`` is null for a regenerate.
 */
export async function sendTurn(text, { fromComposer, sessionId = null, path = "/messages" }) {
  // sessionId: the chat a retried question belongs to, even if the user has opened another since.
  const background = sessionId !== null && !stillOn(sessionId);
  try {
    sessionId ??= await ensureSession();
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not start a chat: ${error.message}`, "error");
    return false;
  }
  sending = true;
  updateComposer();
  setStatus("Sending…", "busy");
  let response;
  try {
    // last_event_id: what this tab has seen; the server refuses the message if others came since.
    const seen = background || path !== "/messages" ? {} : { last_event_id: seenEventId() };
    const body = text === null ? undefined : { content: text, ...seen };
    response = await rawRequest("POST", sessionPath(sessionId, path), body, { accept: "text/event-stream" });
  } catch (error) {
    if (!isAbort(error)) setStatus("Cannot reach the server. Your message was not sent.", "error");
    return false;
  } finally {
    sending = false;
    updateComposer();
  }
  if (!response.ok) {
    await reportRejectedTurn(response, sessionId);
    return false;
  }
  response.body?.cancel().catch(() => {}); // the feed carries the answer; free the connection
  if (fromComposer) {
    $("composer-input").value = "";
    autosize();
  }
  return true;
}

async function reportRejectedTurn(response, sessionId) {
  const message = await errorMessage(response.clone());
  const body = await response.json().catch(() => ({}));
  if (response.status === 404) {
    if (stillOn(sessionId)) forgetCurrentSession();
    await loadSessions();
    setStatus("That chat no longer exists. Your text is still in the box: send it to start a new chat.", "error");
  } else if (response.status === 409 && body && "missed" in body) {
    // This tab was behind (its feed was cut off): show what it missed, keep the draft, send again.
    if (stillOn(sessionId)) await openSession(sessionId, { reveal: false });
    markMissed(body.missed);
    setStatus("New messages arrived in this chat (marked above). Your message was not sent: it is still in the box.", "error");
  } else if (response.status === 409) {
    setStatus(`${message} Your text is kept; try again when the other answer has finished.`, "error");
    // Another tab or device is answering: the feed shows its turn, and its end unlocks the composer.
    if (stillOn(sessionId)) {
      update({ answering: true });
      updateComposer();
    }
  } else if (response.status !== 401) {
    setStatus(message, "error");
  }
}

/** Flag the last messages of the transcript that the refused sender had not seen. */
function markMissed(missed) {
  const count = Array.isArray(missed) ? missed.filter((m) => m.role !== "error").length : 0;
  const items = [...$("messages").children].slice(-count || undefined);
  for (const item of count ? items : []) item.classList.add("message-missed");
}

/** One event of the open chat's live feed that belongs to a turn. */
export function onTurnEvent(name, data) {
  const current = () => turn ?? startTurn(null); // joined after the prompt: the answer alone
  switch (name) {
    case "user":
      startTurn(data.content ?? "");
      break;
    case "delta":
      appendDelta(current(), data.text || "");
      break;
    case "tool":
      onToolEvent(current(), data);
      break;
    case "done":
      finishTurn(current(), data);
      break;
    case "stop": // asked for on this tab or another device: the answer ends in a moment
      stopping = true;
      updateComposer();
      setStatus("Stopping…", "busy");
      break;
    case "error":
      failTurn(current(), data.message || "The answer failed.");
      break;
    case "idle": {
      const answered = turn !== null && !turn.assistantEl.classList.contains("failed");
      endTurn();
      refreshUsage();
      // The stored transcript gives the new messages their ids, and with them their actions (branching.js).
      if (answered && state.currentSessionId) refreshMessageActions(state.currentSessionId);
      break;
    }
    default:
      break;
  }
}

/** A tab that opens the chat mid-turn: the turn as far as it got (its prompt is in the transcript). */
export function joinTurn(liveTurn) {
  const live = startTurn(liveTurn.prompt, $("messages").lastElementChild);
  appendDelta(live, liveTurn.text || "");
  for (const tool of liveTurn.tools || []) onToolEvent(live, tool);
}

/** Show the prompt (unless already shown) and an empty assistant bubble, and lock the composer. */
function startTurn(prompt, userEl = null) {
  if (turn) endTurn();
  const now = new Date().toISOString();
  const user = userEl ?? (prompt === null ? null : messageElement({ role: "user", content: prompt, timestamp: now }));
  const { item: assistantEl, body } = messageShell("assistant");
  body.classList.add("streaming");
  // aria-busy keeps screen readers from announcing every delta; they read the answer once, when done.
  assistantEl.setAttribute("aria-busy", "true");
  const tools = el("ul", { className: "tool-lines", attrs: { "aria-label": "Tools used" } });
  assistantEl.insertBefore(tools, body);
  turn = { userEl: user, assistantEl, body, tools, toolLines: new Map(), text: prompt ?? "", streamed: "" };
  show($("empty-state"), false);
  if (user && !user.isConnected) $("messages").append(user);
  $("messages").append(assistantEl);
  setStatus("Thinking…", "busy");
  update({ answering: true });
  updateComposer();
  scrollToBottom(true);
  return turn;
}

function appendDelta(live, text) {
  // Plain text while streaming; the safe server-rendered HTML replaces it on "done".
  live.streamed += text;
  live.body.append(text); // a text node, never parsed as HTML
  scrollToBottom();
}

function finishTurn(live, data) {
  setAssistantBody(live.body, { html: data.html, content: data.content ?? live.streamed });
  const follow = isNearBottom();
  showToolData(live.body, data, { chartFirst: askedForChart(live.text) });
  if (follow) scrollToBottom(true); // keep the new charts and readings in view, as the text was
  live.assistantEl.removeAttribute("aria-busy");
  if (data.stopped) markStopped(live.assistantEl);
  setStatus("");
}

function failTurn(live, message) {
  live.body.classList.remove("streaming");
  if (!live.streamed) live.body.textContent = "";
  live.assistantEl.removeAttribute("aria-busy");
  live.assistantEl.classList.add("failed");
  live.assistantEl.append(el("p", { className: "message-error", text: message, attrs: { role: "alert" } }));
  if (live.userEl) markInterrupted(live.userEl, live.text);
  setStatus(message, "error");
}

/** The turn is over (the session is free again): unlock the composer. */
function endTurn() {
  if (turn?.assistantEl.hasAttribute("aria-busy")) failTurn(turn, "The answer did not arrive.");
  turn = null;
  stopping = false;
  update({ answering: false });
  updateComposer();
  // Give focus back to the composer, unless the user has moved on to something else meanwhile.
  const idle = !document.activeElement || document.activeElement === document.body;
  if (idle) $("composer-input").focus();
}

function onToolEvent(live, data) {
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
    setStatus(`Using tool ${name}…`, "busy");
  }
}

/** A user turn that never finished: offer to send the same text again. */
export function markInterrupted(item, text) {
  if (item.querySelector(".message-note")) return;
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

/** Another chat is opened (or none): the turn shown belongs to the old one. */
export function dropTurn() {
  turn = null;
}

/** On sign-out: drop the turn shown and the unsent text. */
export function clearTurns() {
  turn = null;
  sending = false;
  $("composer-input").value = "";
}

export function bindComposer() {
  $("composer").addEventListener("submit", onComposerSubmit);
  $("composer-stop").addEventListener("click", onStopClick);
  $("composer-input").addEventListener("keydown", onComposerKeydown);
  $("composer-input").addEventListener("input", onComposerInput);
}
