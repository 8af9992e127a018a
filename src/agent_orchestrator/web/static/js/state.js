// The in-memory facts several modules share: who is signed in, the listed chats, the open chat, the
// visible tab. Gone on reload by design (the CSRF token is refetched from /api/auth/me).
//
// `state` is a read-only view: assigning to one of its fields throws (modules run in strict mode), so
// every change is an update({...}) call that names what it changes. State that one module alone needs
// (request sequence numbers, timers, the live turns) stays private to that module.

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

/** The one way to change state; an unknown field is a programming error, not a new field. */
export function update(changes) {
  for (const [key, value] of Object.entries(changes)) {
    if (!Object.hasOwn(current, key)) throw new Error(`Unknown state field: ${key}`);
    current[key] = value;
  }
}
