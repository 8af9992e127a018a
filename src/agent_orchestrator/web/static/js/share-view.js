// The page a share link opens (/share/<token>): the conversation as it was shared, with its charts,
// read-only, for anyone with the link (or for signed-in users of this server only, if its owner chose
// so: a viewer who is not signed in signs in right here, and the page stays on the link). A signed-in
// viewer may continue it as a chat of their own. The token never leaves this page but for the API
// calls that need it (the page's referrer policy is same-origin).

import { errorMessage, fetchMe, rawRequest } from "./api.js";
import { $, show } from "./dom.js";
import { messageElement } from "./messages.js";
import { bindSignIn } from "./signin.js";
import { update } from "./state.js";
import { storage } from "./storage.js";

const token = decodeURIComponent(location.pathname.split("/").pop() || "");

function say(text, kind = "") {
  const status = $("share-status");
  status.textContent = text;
  status.dataset.kind = kind;
  show(status, Boolean(text));
}

async function signedIn() {
  const me = await fetchMe();
  if (!me.ok) return false;
  const body = await me.json();
  update({ csrfToken: body.csrf_token }); // for the copy, the one request that changes anything
  return true;
}

async function load() {
  const response = await fetch(`/api/shared/${encodeURIComponent(token)}`, {
    credentials: "same-origin",
    headers: { Accept: "application/json" },
  });
  if (!response.ok) {
    say(await errorMessage(response), "error");
    if (response.status === 401) showLogin(); // a link for signed-in users only
    return;
  }
  show($("share-login"), false);
  const shared = await response.json();
  document.title = `${shared.title} · shared · AgentOrchestrator`;
  $("share-title").textContent = shared.title;
  const when = new Date(shared.shared_at).toLocaleString();
  $("share-meta").textContent = `Shared ${when}; the link expires ${new Date(shared.expires_at).toLocaleDateString()}.`;
  show($("share-title"), true);
  show($("share-meta"), true);
  const items = shared.messages.map((message, index) => messageElement(message, { question: shared.messages[index - 1] }));
  $("share-messages").replaceChildren(...items);
  say("");
  if (await signedIn()) show($("share-copy"), true);
}

function showLogin() {
  show($("share-login"), true);
  $("share-login-username").focus();
}

async function copy() {
  const button = $("share-copy");
  button.disabled = true;
  const response = await rawRequest("POST", `/api/shared/${encodeURIComponent(token)}/copy`);
  if (!response.ok) {
    say(await errorMessage(response), "error");
    button.disabled = false;
    return;
  }
  const session = await response.json();
  storage.setSessionId(session.id); // the app opens the copy
  location.assign("/");
}

$("share-copy").addEventListener("click", copy);
// Signing in here keeps the viewer on the link (the app's sign-in page would not bring them back).
bindSignIn($("share-login"), "share-login", load);
load();
