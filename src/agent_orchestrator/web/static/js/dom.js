// DOM helpers shared by every page. They build nodes from text only (textContent and setAttribute),
// so nothing made here can carry markup; messages.js holds the one innerHTML and says why it is safe.

/** How long typing must pause before a search runs (chat search, customer country filter). */
export const SEARCH_DEBOUNCE_MS = 300;

export const $ = (id) => document.getElementById(id);

/** createElement with text (never HTML), attributes and children. */
export function el(tag, { text, className, attrs, testid } = {}, children = []) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (testid) node.dataset.testid = testid;
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

/**
 * A table in a box that scrolls sideways on a narrow screen: a keyboard must reach it to scroll it
 * (axe's scrollable-region-focusable), so the box is a focusable, named region.
 */
export function scrollingTable(table, label) {
  return el("div", { className: "table-wrap", attrs: { tabindex: 0, role: "region", "aria-label": label } }, [table]);
}

export function show(node, visible) {
  node.hidden = !visible;
}

export function setText(node, text) {
  node.textContent = text || "";
  if (node.classList.contains("form-error")) show(node, Boolean(text));
}

export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/**
 * A small button of the open chat's actions that opens the panel with id ``panelId`` (``open`` fills
 * and shows it) or, open already, closes it.
 */
export function panelToggle(text, testid, panelId, open) {
  const button = el("button", { className: "btn btn-ghost btn-small", text, testid, attrs: { type: "button" } });
  button.addEventListener("click", () => {
    const panel = $(panelId);
    if (panel.hidden) open(panel);
    else closePanel(panelId);
  });
  return button;
}

export function closePanel(panelId) {
  show($(panelId), false);
  $(panelId).replaceChildren();
}
