// Settings: the user's API tokens (create, shown once; list; revoke) and approving a terminal's
// `ao login` by its code. A token can do none of this: the server refuses it (docs/architecture.md#api-tokens).

import { api, isAbort } from "./api.js";
import { $, el, setText, show } from "./dom.js";
import { DASH, timeElement } from "./format.js";
import { state } from "./state.js";
import { whenShown } from "./views.js";

// What each choice allows is said in full by the option's title (a tooltip) and by docs/terminal.md.
const SCOPES = [
  ["chat", "chat — read and write chats", "List, read, search, export, ask, branch and delete chats"],
  ["read", "read — only read chats", "List, read, search and export chats"],
];
const DATA_SCOPE = ["chat,data", "chat + data — also the Data page", "Chats, and the Data page's admin routes"];

function fillScopes(select) {
  const options = state.user?.role === "admin" ? [...SCOPES, DATA_SCOPE] : SCOPES;
  select.replaceChildren(...options.map(([value, text, title]) => el("option", { text, attrs: { value, title } })));
}

const scopesOf = (select) => select.value.split(",");
let shownTokens = 0;

/** The terminal turns an approval into a token at its next poll (every 2 s): list again until it shows. */
async function awaitNewToken(before, tries = 8) {
  await loadTokens();
  if (shownTokens > before || tries <= 1 || state.view !== "settings") return;
  setTimeout(() => awaitNewToken(before, tries - 1), 1_500);
}

function showError(id, error) {
  setText($(id), error ? error.message : "");
  show($(id), Boolean(error));
}

function tokenRow(token) {
  const revoke = el("button", {
    text: "Revoke",
    className: "btn btn-ghost btn-small",
    testid: "token-revoke",
    attrs: { type: "button", "aria-label": `Revoke ${token.name}` },
  });
  revoke.addEventListener("click", () => revokeToken(token));
  const used = token.last_used_at
    ? el("span", {}, [timeElement(token.last_used_at), document.createTextNode(` from ${token.last_used_addr}`)])
    : document.createTextNode(DASH);
  const expires = token.state === "expired" ? el("span", { text: "expired" }) : timeElement(token.expires_at);
  return el("tr", { testid: "token-row" }, [
    el("td", {}, [el("strong", { text: token.name }), el("span", { className: "muted small", text: ` ${token.hint}…` })]),
    el("td", { text: token.scopes.join(", ") }),
    el("td", {}, [timeElement(token.created_at)]),
    el("td", {}, [expires]),
    el("td", {}, [used]),
    el("td", {}, [revoke]),
  ]);
}

async function loadTokens() {
  fillScopes($("token-scope"));
  fillScopes($("device-scope"));
  try {
    const tokens = await api("GET", "/api/tokens");
    shownTokens = tokens.length;
    const rows = tokens.length
      ? tokens.map(tokenRow)
      : [el("tr", {}, [el("td", { text: "No tokens yet.", attrs: { colspan: "6" } })])];
    $("tokens-table").querySelector("tbody").replaceChildren(...rows);
  } catch (error) {
    if (!isAbort(error)) showError("token-error", error);
  }
}

async function revokeToken(token) {
  try {
    await api("DELETE", `/api/tokens/${encodeURIComponent(token.id)}`);
    await loadTokens();
  } catch (error) {
    if (!isAbort(error)) showError("token-error", error);
  }
}

async function createToken(event) {
  event.preventDefault();
  showError("token-error", null);
  const body = {
    name: $("token-name").value.trim(),
    scopes: scopesOf($("token-scope")),
    expires_in_days: Number($("token-days").value) || 90,
  };
  try {
    const created = await api("POST", "/api/tokens", body);
    $("token-secret-value").value = created.secret;
    show($("token-secret"), true);
    $("token-secret-value").select();
    $("token-name").value = "";
    await loadTokens();
  } catch (error) {
    if (!isAbort(error)) showError("token-error", error);
  }
}

async function approveDevice(event) {
  event.preventDefault();
  showError("device-error", null);
  setText($("device-done"), "");
  const code = $("device-code").value.trim();
  try {
    const approved = await api("POST", "/api/auth/device/approve", { user_code: code, scopes: scopesOf($("device-scope")) });
    setText($("device-done"), `Approved: “${approved.client_name}” is logged in. You can close this page.`);
    $("device-code").value = "";
    if (window.location.pathname === "/device") window.history.replaceState(null, "", "/");
    await awaitNewToken(shownTokens);
  } catch (error) {
    if (!isAbort(error)) showError("device-error", error);
  }
}

/** The code a terminal's link carries (/device?code=BCDF-GHJK), if the app was opened by one. */
export function deviceCode() {
  if (window.location.pathname !== "/device") return null;
  return new URLSearchParams(window.location.search).get("code") ?? "";
}

export function clearTokens() {
  $("tokens-table").querySelector("tbody").replaceChildren();
  $("token-secret-value").value = "";
  show($("token-secret"), false);
  setText($("device-done"), "");
}

export function bindTokens() {
  $("token-form").addEventListener("submit", createToken);
  $("device-form").addEventListener("submit", approveDevice);
  whenShown("settings", () => {
    const code = deviceCode();
    if (code) $("device-code").value = code;
    loadTokens();
  });
}
