// The app frame: which tab (chat, segments, customers) is shown, and the sidebar drawer on narrow
// screens. It knows the tabs, not their contents: a page registers what to load when it is shown.

import { $, show } from "./dom.js";
import { state, update } from "./state.js";
import { VIEWS, storage } from "./storage.js";

const loaders = new Map();

/** Run `load` each time `view` is shown (the retail pages refetch their data). */
export function whenShown(view, load) {
  loaders.set(view, load);
}

export function setView(view) {
  update({ view: VIEWS.includes(view) ? view : "chat" });
  storage.setPref("view", state.view);
  for (const tab of document.querySelectorAll(".tab")) {
    const active = tab.dataset.view === state.view;
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
}
