// The app frame: which tab (chat, segments, customers, data) is shown, and the sidebar drawer on narrow
// screens. It knows the tabs, not their contents: a page registers what to load when it is shown.

import { $, show } from "./dom.js";
import { state, update } from "./state.js";
import { VIEWS, storage } from "./storage.js";

const loaders = new Map();

/** Run `load` each time `view` is shown (the retail pages refetch their data). */
export function whenShown(view, load) {
  loaders.set(view, load);
}

// A customer's page belongs to the Customers tab.
const TAB_OF = { customer: "customers" };

export function setView(view) {
  update({ view: VIEWS.includes(view) ? view : "chat" });
  storage.setPref("view", state.view);
  // Only a customer's page lives in the URL (#customer/<id>); leaving it drops that from the address.
  if (state.view !== "customer" && window.location.hash) {
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  for (const tab of document.querySelectorAll(".tab")) {
    const active = tab.dataset.view === (TAB_OF[state.view] ?? state.view);
    tab.classList.toggle("active", active);
    if (active) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  for (const name of VIEWS) show($(`view-${name}`), name === state.view);
  loaders.get(state.view)?.();
}

export function toggleSidebar(open) {
  const isOpen = open ?? !document.body.classList.contains("sidebar-open");
  document.body.classList.toggle("sidebar-open", isOpen);
  $("sidebar-toggle").setAttribute("aria-expanded", String(isOpen));
  show($("sidebar-backdrop"), isOpen);
  if (isOpen) $("session-search").focus();
}

export function bindViews() {
  for (const tab of document.querySelectorAll(".tab")) {
    tab.addEventListener("click", () => setView(tab.dataset.view));
  }
  $("sidebar-toggle").addEventListener("click", () => toggleSidebar());
  $("sidebar-backdrop").addEventListener("click", () => toggleSidebar(false));
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  });
  // The drawer is the phone's way to the chats: crossing its breakpoint (a window resized, a tablet
  // turned) closes it, so a wide window never keeps a drawer that opens over the chat once narrow.
  const phone = window.matchMedia(`(max-width: ${PHONE_WIDTH}px)`);
  phone.addEventListener("change", () => {
    if (document.body.classList.contains("sidebar-open")) toggleSidebar(false);
  });
}

/** The width (app.css's media queries) at or below which the sidebar is a drawer. */
const PHONE_WIDTH = 760;
