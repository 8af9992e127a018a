// Signing in and out: the login page, starting the app for a user, and dropping everything held
// about that user -- in memory and in the DOM -- when they sign out or their sign-in expires.

import { ApiError, abortRequests, api, errorMessage, fetchMe, onSignedOut } from "./api.js";
import { clearChat, openInitialSession } from "./chat.js";
import { clearCustomer, initialView } from "./customer.js";
import { clearCustomers, restoreCustomerFilter } from "./customers.js";
import { clearData } from "./data.js";
import { $, setText, show } from "./dom.js";
import { clearSegments } from "./segments.js";
import { followList, stopFollowing } from "./live.js";
import { clearSidebar, loadSessions, onListEvent } from "./sidebar.js";
import { state, update } from "./state.js";
import { storage } from "./storage.js";
import { clearTokens, deviceCode } from "./tokens.js";
import { clearTurns } from "./turns.js";
import { clearUsage, refreshUsage } from "./usage.js";
import { setView } from "./views.js";
import { bindSignIn } from "./signin.js";

function showPage(page) {
  show($("boot"), false);
  show($("login-page"), page === "login");
  show($("app"), page === "app");
}

function showLogin(message = "") {
  showPage("login");
  setText($("login-error"), message);
  $("login-password").value = "";
  $("login-username").focus();
}

async function onLogout() {
  try {
    await api("POST", "/api/auth/logout");
  } catch (error) {
    // A 401 means we were signed out already; anything else still ends the local session below.
    if (!(error instanceof ApiError)) console.warn("logout failed", error);
  }
  // The stored id belonged to this user; the next person at this browser starts clean.
  storage.setSessionId(null);
  handleSignedOut("");
}

/** Drop everything held in memory and in the DOM about the user, then show the login page. */
function handleSignedOut(message = "Your sign-in has expired. Please sign in again.") {
  if (!state.user) return; // already signed out (several requests can 401 at once)
  abortRequests();
  update({ user: null, csrfToken: null, sessions: [], currentSessionId: null, answering: false });
  stopFollowing();
  clearChat();
  clearTurns();
  clearSidebar();
  $("current-user").textContent = "";
  clearUsage();
  clearSegments();
  clearCustomers();
  clearCustomer();
  clearData();
  clearTokens();
  showLogin(message);
}

async function startApp(me) {
  update({ user: me.user, csrfToken: me.csrf_token });
  $("current-user").textContent = me.user.username;
  refreshUsage();
  restoreCustomerFilter();
  showPage("app");
  // A terminal's login link (/device?code=…) opens the page that approves it.
  setView(deviceCode() !== null ? "settings" : initialView(storage.prefs().view));
  await loadSessions();
  followList(onListEvent);
  await openInitialSession();
  if (state.view === "chat") $("composer-input").focus();
}

/** Show the app if the login cookie is still good, else the login page. */
export async function boot() {
  let response;
  try {
    response = await fetchMe();
  } catch {
    showLogin("Cannot reach the server. Check your connection and reload.");
    return;
  }
  if (response.ok) await startApp(await response.json());
  else showLogin(response.status === 401 ? "" : await errorMessage(response));
}

export function bindAuth() {
  bindSignIn($("login-form"), "login", startApp);
  $("logout").addEventListener("click", onLogout);
  onSignedOut(() => handleSignedOut());
}
