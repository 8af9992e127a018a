// The in-memory facts several modules share: who is signed in, the listed chats, the open chat, the
// visible tab. Gone on reload by design (the CSRF token is refetched from /api/auth/me).
//
// `state` is a read-only view: assigning to one of its fields throws (modules run in strict mode), so
// every change is an update({...}) call that names what it changes, and a module that shows a field
// subscribes to it (the sidebar redraws when the chats or the open one change), so the module that
// changed it need not know who shows it. State that one module alone needs (request sequence numbers,
// timers, the live turns) stays private to that module.

const current = {
  user: null,
  csrfToken: null,
  // The sidebar's chats, newest first; replaced, never mutated in place.
  sessions: [],
  currentSessionId: null,
  // True while a turn of the open chat is being answered, on this device or any other (live feed).
  answering: false,
  view: "chat",
};

export const state = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(Object.keys(current).map((key) => [key, { get: () => current[key], enumerable: true }])),
  ),
);

const listeners = new Set();

/**
 * The one way to change state; an unknown field is a programming error, not a new field. Once every
 * field is set, each listener is called with the set of fields whose value changed (none: no call).
 */
export function update(changes) {
  for (const key of Object.keys(changes)) {
    if (!Object.hasOwn(current, key)) throw new Error(`Unknown state field: ${key}`);
  }
  const changed = new Set();
  for (const [key, value] of Object.entries(changes)) {
    if (current[key] !== value) changed.add(key);
    current[key] = value;
  }
  if (changed.size === 0) return;
  for (const listener of [...listeners]) listener(changed);
}

/** Call `listener(changedFields)` after every update that changes something; returns the unsubscribe. */
export function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
