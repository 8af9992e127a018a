// HTTP to the app's own API: cookie auth, the CSRF header, one error shape, and aborting everything in
// flight on sign-out. It knows no page: an expired sign-in goes to the handler given to onSignedOut.

import { state, update } from "./state.js";

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

const SAFE_METHODS = new Set(["GET", "HEAD"]);

// Aborts in-flight requests and streams on sign-out.
let controller = new AbortController();
let signedOutHandler = null;

/** Called on a 401 from any request outside /api/auth/ (the sign-in expired or was revoked). */
export function onSignedOut(handler) {
  signedOutHandler = handler;
}

export function abortRequests() {
  controller.abort();
  controller = new AbortController();
}

/** FastAPI errors are {"detail": string} or, for 422, {"detail": [{msg, loc}, ...]}. */
export async function errorMessage(response) {
  try {
    const body = await response.json();
    if (typeof body.detail === "string") return body.detail;
    if (Array.isArray(body.detail)) {
      return body.detail.map((item) => (item && item.msg ? item.msg : String(item))).join("; ");
    }
  } catch {
    /* not JSON: fall through to the generic text */
  }
  return `Request failed (HTTP ${response.status}).`;
}

/** Who is signed in, with the current CSRF token; a 401 means nobody. */
export function fetchMe() {
  return fetch("/api/auth/me", { credentials: "same-origin", headers: { Accept: "application/json" } });
}

function requestHeaders(method, path, contentType, accept = "application/json") {
  const headers = { Accept: accept };
  if (contentType) headers["Content-Type"] = contentType;
  // The token is kept in memory only; login itself is the one unsafe request without it.
  if (!SAFE_METHODS.has(method) && path !== "/api/auth/login" && state.csrfToken) {
    headers["X-CSRF-Token"] = state.csrfToken;
  }
  return headers;
}

/**
 * Raw fetch with cookie auth and CSRF; on a 403 for a stale token, refresh it once and retry.
 * `body` is sent as JSON; with `asText` it is already JSON text (an uploaded file, sent as it is); with
 * a `contentType` it is sent as it is under that type (a File: the browser streams it from disk).
 */
export async function rawRequest(method, path, body, { accept, retried = false, asText = false, contentType } = {}) {
  const hasBody = body !== undefined;
  const raw = asText || contentType !== undefined;
  const response = await fetch(path, {
    method,
    headers: requestHeaders(method, path, hasBody ? (contentType ?? "application/json") : null, accept),
    body: hasBody ? (raw ? body : JSON.stringify(body)) : undefined,
    credentials: "same-origin",
    signal: controller.signal,
  });
  if (response.status === 403 && !retried && !SAFE_METHODS.has(method) && path !== "/api/auth/login") {
    // Another tab may have logged out and in again, rotating the token: fetch the current one.
    if (await refreshCsrfToken()) {
      return rawRequest(method, path, body, { accept, retried: true, asText, contentType });
    }
  }
  if (response.status === 401 && !path.startsWith("/api/auth/")) signedOutHandler?.();
  return response;
}

export async function api(method, path, body) {
  const response = await rawRequest(method, path, body);
  if (!response.ok) throw new ApiError(response.status, await errorMessage(response));
  return response.status === 204 ? null : response.json();
}

async function refreshCsrfToken() {
  try {
    const response = await fetchMe();
    if (!response.ok) return false;
    const me = await response.json();
    update({ csrfToken: me.csrf_token });
    return true;
  } catch {
    return false;
  }
}

export const sessionPath = (id, suffix = "") => `/api/sessions/${encodeURIComponent(id)}${suffix}`;

export function queryString(params) {
  const search = new URLSearchParams();
  // The retail API rejects unknown or empty parameters (extra="forbid", min_length=1): omit blanks.
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : "";
}

export const isAbort = (error) => error && error.name === "AbortError";
