// Browser storage: the current session id and UI preferences, nothing else.
//
// The conversation lives on the server (durable Copilot SDK sessions). The browser never stores message
// text, titles or previews, so a shared or lost device holds nothing readable, and opening the app
// elsewhere shows the same chats. The id is an identifier, not a key: every request is authorised by the
// login cookie, and a stored id that now answers 404 (deleted, or another user's) is dropped silently.

const STORAGE_SESSION = "ao.currentSession";
const STORAGE_PREFS = "ao.prefs";
export const VIEWS = ["chat", "segments", "customers", "customer", "data", "settings"];
export const SEGMENTS = ["High Value", "Regular", "At Risk", "New"];
// Mirrors the server's id policy (sessions/ids.py); anything else in storage was not written by us.
const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{2,63}$/;

export const storage = {
  // localStorage can throw (disabled storage, private mode quotas): the app must still work without it.
  read(key) {
    try {
      return window.localStorage.getItem(key);
    } catch {
      return null;
    }
  },
  write(key, value) {
    try {
      if (value === null) window.localStorage.removeItem(key);
      else window.localStorage.setItem(key, value);
    } catch {
      /* storage unavailable: preferences simply do not persist */
    }
  },
  sessionId() {
    const id = this.read(STORAGE_SESSION);
    return id && SESSION_ID_PATTERN.test(id) ? id : null;
  },
  setSessionId(id) {
    this.write(STORAGE_SESSION, id);
  },
  prefs() {
    // Validate field by field: storage is user-editable, so nothing in it is trusted as-is.
    let raw = {};
    try {
      raw = JSON.parse(this.read(STORAGE_PREFS) || "{}") || {};
    } catch {
      raw = {};
    }
    return {
      view: VIEWS.includes(raw.view) ? raw.view : "chat",
      customerSegment: SEGMENTS.includes(raw.customerSegment) ? raw.customerSegment : "",
    };
  },
  setPref(name, value) {
    this.write(STORAGE_PREFS, JSON.stringify({ ...this.prefs(), [name]: value }));
  },
};
