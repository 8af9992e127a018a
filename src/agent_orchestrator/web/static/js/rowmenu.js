// One "…" menu per chat in the list (docs/architecture.md#organising-chats): the chat's actions out of
// the way until asked for, and one Tab stop per chat. The menu's button is not a Tab stop of its own:
// from the chat's row, the right arrow (or Shift+F10, or the context-menu key) opens it, as the
// WAI-ARIA menu button pattern allows; the up and down arrows move between chats and between the
// menu's items, Escape closes it and gives focus back to the row. A mouse clicks the "…".

import { el } from "./dom.js";

let openMenu = null; // at most one menu is open at a time
let afterClose = null; // what the list deferred while a menu was open (a redraw)

/** Whether a menu is open: the list is not redrawn under it (``whenClosed`` redraws it after). */
export function menuIsOpen() {
  return openMenu !== null;
}

/** Run ``then`` once the open menu closes (once, however often it is asked for meanwhile). */
export function whenClosed(then) {
  afterClose = then;
}

/**
 * The "…" button of a row whose main control is ``row``; ``items``: ``{ text, testid, run, danger }``
 * in order. ``label`` names the chat for assistive technology.
 */
export function rowMenu(row, label, items) {
  const button = el("button", {
    className: "row-menu-button",
    text: "…",
    testid: "session-menu",
    attrs: { type: "button", tabindex: -1, "aria-haspopup": "menu", "aria-expanded": "false", "aria-label": `Actions for ${label}` },
  });
  button.addEventListener("click", (event) => {
    event.stopPropagation();
    if (openMenu?.button === button) closeMenu();
    else showMenu(row, button, items);
  });
  row.dataset.menuRow = "";
  row.setAttribute("aria-keyshortcuts", "ArrowRight Shift+F10");
  row.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight" || event.key === "ContextMenu" || (event.key === "F10" && event.shiftKey)) {
      event.preventDefault();
      showMenu(row, button, items);
    } else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      neighbour(row, event.key === "ArrowDown" ? 1 : -1)?.focus();
    }
  });
  return button;
}

/** The row before or after ``row`` in its list. */
function neighbour(row, step) {
  const rows = [...(row.closest("ul, ol")?.querySelectorAll("[data-menu-row]") ?? [])];
  return rows[rows.indexOf(row) + step] ?? null;
}

function showMenu(row, button, items) {
  closeMenu();
  const entries = items.map(({ text, testid, run, danger }) => {
    const entry = el("button", {
      className: `row-menu-item${danger ? " row-menu-danger" : ""}`,
      text,
      testid,
      attrs: { type: "button", role: "menuitem", tabindex: -1 },
    });
    entry.addEventListener("click", (event) => {
      event.stopPropagation();
      run(); // first: a form it opens in the row keeps a redraw the menu deferred from undoing it
      closeMenu({ focusRow: false });
    });
    return entry;
  });
  const menu = el("div", { className: "row-menu", testid: "session-menu-items", attrs: { role: "menu", "aria-label": button.getAttribute("aria-label") } }, entries);
  menu.addEventListener("keydown", (event) => {
    const at = entries.indexOf(document.activeElement);
    const moves = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: entries.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      entries[(moves[event.key] + entries.length) % entries.length].focus();
    } else if (event.key === "Escape" || event.key === "ArrowLeft") {
      event.preventDefault();
      event.stopPropagation(); // the menu closes, not the phone's drawer around it
      closeMenu();
    } else if (event.key === "Tab") {
      closeMenu({ focusRow: false });
    }
  });
  button.after(menu);
  button.setAttribute("aria-expanded", "true");
  openMenu = { button, menu, row };
  entries[0]?.focus();
}

/** Close the open menu (focus back on its row unless an action or Tab moves it elsewhere). */
export function closeMenu({ focusRow = true } = {}) {
  if (!openMenu) return;
  const { button, menu, row } = openMenu;
  openMenu = null;
  menu.remove();
  button.setAttribute("aria-expanded", "false");
  if (focusRow && row.isConnected) row.focus();
  const deferred = afterClose;
  afterClose = null;
  if (deferred) {
    const focused = focusRow ? row.closest("[data-session-id]")?.dataset.sessionId : null;
    deferred(focused);
  }
}

document.addEventListener("click", (event) => {
  if (openMenu && !openMenu.menu.contains(event.target)) closeMenu({ focusRow: false });
});
