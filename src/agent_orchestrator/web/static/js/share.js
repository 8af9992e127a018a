// Sharing a chat read-only (docs/architecture.md#share-links): "Share…" beside the exports opens a
// panel to make a link (how long it lasts, signed-in users of this server only or anyone with it),
// shows the new link once with a Copy, and lists every link of the user's, each with Refresh (share
// the chat as it is now) and Revoke. The link's token is shown only in that moment; the server keeps
// its hash.

import { api, errorMessage, isAbort, rawRequest, sessionPath } from "./api.js";
import { copyToClipboard } from "./copy.js";
import { $, closePanel, el, panelToggle, show } from "./dom.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";

const EXPIRY_DAYS = [
  [1, "1 day"],
  [7, "7 days"],
  [30, "30 days"],
  [90, "90 days"],
];

/** The "Share…" button of the open chat's actions. */
export function shareButton() {
  return panelToggle("Share…", "share-open", "share-panel", openPanel);
}

/** Open the panel of the open chat (its menu in the list asks for it). */
export function showSharePanel() {
  const panel = $("share-panel");
  if (panel.hidden) openPanel(panel);
}

/** Another chat is opened: the panel was about the old one. */
export function closeSharePanel() {
  closePanel("share-panel");
}

async function openPanel(panel) {
  const days = el(
    "select",
    { testid: "share-days", attrs: { "aria-label": "Link expires after" } },
    EXPIRY_DAYS.map(([value, text]) => el("option", { text, attrs: { value, selected: value === 7 } })),
  );
  const signedIn = el("input", { testid: "share-signed-in", attrs: { type: "checkbox", id: "share-signed-in" } });
  const create = el("button", { className: "btn btn-primary btn-small", text: "Create link", testid: "share-create", attrs: { type: "button" } });
  const created = el("div", { className: "share-created" });
  const list = el("ul", { className: "share-list", testid: "share-list" });
  create.addEventListener("click", () => createLink(Number(days.value), signedIn.checked, created, list, create));
  panel.replaceChildren(
    el("div", { className: "share-form" }, [
      el("label", { text: "Expires after " }, [days]),
      el("label", { attrs: { for: "share-signed-in" } }, [signedIn, document.createTextNode(" Only people signed in here")]),
      create,
    ]),
    created,
    el("h3", { text: "Your shared links" }),
    list,
  );
  show(panel, true);
  await showLinks(list);
}

async function createLink(days, signedInOnly, created, list, button) {
  const sessionId = state.currentSessionId;
  if (!sessionId) return;
  button.disabled = true;
  try {
    const link = await api("POST", sessionPath(sessionId, "/shares"), { days, signed_in_only: signedInOnly });
    const url = new URL(link.url, location.origin).href;
    const field = el("input", { className: "share-url", testid: "share-url", attrs: { readonly: true, value: url, "aria-label": "Share link" } });
    const copy = el("button", { className: "btn btn-small", text: "Copy link", testid: "share-copy-link", attrs: { type: "button" } });
    copy.addEventListener("click", () => copyToClipboard(url, "Link"));
    created.replaceChildren(el("p", { text: "Anyone with this link can read the chat as it is now (it is shown only this once):" }), field, copy);
    await showLinks(list);
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not share the chat: ${error.message}`, "error");
  } finally {
    button.disabled = false;
  }
}

async function showLinks(list) {
  let links;
  try {
    links = await api("GET", "/api/shares");
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not list your links: ${error.message}`, "error");
    return;
  }
  if (links.length === 0) {
    list.replaceChildren(el("li", { className: "muted", text: "No links yet." }));
    return;
  }
  list.replaceChildren(...links.map((link) => linkItem(link, list)));
}

function linkItem(link, list) {
  const views = `${link.views} view${link.views === 1 ? "" : "s"}`;
  const until = new Date(link.expires_at).toLocaleDateString();
  const item = el("li", { testid: "share-item" }, [
    el("span", { text: link.title }),
    el("span", { className: "share-state", testid: "share-state", text: `${link.state} · ${views} · until ${until}${link.signed_in_only ? " · signed-in only" : ""}` }),
  ]);
  item.dataset.linkId = link.id;
  if (link.state === "active") {
    const refresh = el("button", { className: "btn btn-ghost btn-small", text: "Refresh", testid: "share-refresh", attrs: { type: "button" } });
    const revoke = el("button", { className: "btn btn-ghost btn-small", text: "Revoke", testid: "share-revoke", attrs: { type: "button" } });
    refresh.addEventListener("click", () => linkAction("POST", `/api/shares/${encodeURIComponent(link.id)}/refresh`, "The link now shows the chat as it is.", list));
    revoke.addEventListener("click", () => linkAction("DELETE", `/api/shares/${encodeURIComponent(link.id)}`, "The link no longer opens.", list));
    item.append(refresh, revoke);
  }
  return item;
}

async function linkAction(method, path, done, list) {
  const response = await rawRequest(method, path).catch(() => null);
  if (!response) return;
  if (!response.ok) {
    setStatus(await errorMessage(response), "error");
    return;
  }
  setStatus(done);
  await showLinks(list);
}
