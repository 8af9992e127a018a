// The live feeds (server-sent events, docs/architecture.md#live-sessions): the open chat's
// conversation as it happens, on whichever device or server it is written, and the user's sessions
// list. EventSource reconnects by itself and sends the last event's id (Last-Event-ID), so a dropped
// connection, or the server ending a feed after a while, loses and repeats nothing.

import { sessionPath } from "./api.js";

const SESSION_EVENTS = [
  ...["created", "user", "delta", "tool", "stop", "done", "error", "idle"],
  ...["renamed", "organised", "feedback", "deleted", "reset", "history"],
];
const LIST_EVENTS = ["created", "renamed", "organised", "deleted", "busy", "idle", "reset"];

let sessionSource = null;
// The id of the last event of the open chat this tab has seen: sent with every message, so the server
// can refuse a message written without having seen newer ones.
let seen = 0;
let listSource = null;

function parse(data) {
  try {
    return data ? JSON.parse(data) : {};
  } catch {
    return {};
  }
}

/** Follow the session's feed from event `after` on; onEvent(name, data) for each event, in order. */
export function followSession(id, after, onEvent) {
  stopFollowingSession();
  seen = after;
  const source = new EventSource(`${sessionPath(id, "/events")}?after=${encodeURIComponent(after)}`);
  sessionSource = source;
  for (const name of SESSION_EVENTS) {
    source.addEventListener(name, (event) => {
      // A failed connection is an "error" event too, but not a message: EventSource retries it.
      if (source !== sessionSource || !(event instanceof MessageEvent)) return;
      const number = Number(event.lastEventId);
      if (name !== "reset" && number && number <= seen) return; // never show an event twice
      if (number) seen = number;
      onEvent(name, parse(event.data));
    });
  }
  source.addEventListener("error", () => {
    // CLOSED: the server refused to go on (the chat is gone, or the sign-in); anything else retries.
    if (source === sessionSource && source.readyState === EventSource.CLOSED) {
      stopFollowingSession();
      onEvent("lost", {});
    }
  });
}

export function stopFollowingSession() {
  sessionSource?.close();
  sessionSource = null;
}

export const seenEventId = () => seen;

/** Follow the user's sessions list; onChange(name, data) when a chat is created, renamed, organised, deleted or answered. */
export function followList(onChange) {
  listSource?.close();
  const source = new EventSource("/api/events");
  listSource = source;
  for (const name of LIST_EVENTS) {
    source.addEventListener(name, (event) => {
      if (source === listSource) onChange(name, parse(event.data));
    });
  }
}

/** On sign-out: stop both feeds. */
export function stopFollowing() {
  stopFollowingSession();
  listSource?.close();
  listSource = null;
}
