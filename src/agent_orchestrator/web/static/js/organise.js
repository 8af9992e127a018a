// Organising the sidebar's chats (docs/architecture.md#organising-chats): the filter (all, pinned,
// archived, a folder, a tag), each chat's pin, archive, folder and tags, and one change to many
// selected chats. Every change is the server's (PATCH /api/sessions/{id}, POST /api/sessions/bulk),
// and the list is listed again after it here and, through the live feed's "organised", on every
// other tab and device.

import { api, isAbort, sessionPath } from "./api.js";
import { forgetCurrentSession, openSession } from "./commands.js";
import { $, el, show } from "./dom.js";
import { stopFollowingSession } from "./live.js";
import { state } from "./state.js";
import { setListStatus } from "./status.js";

let selecting = false;
const selected = new Set();
let reload = async () => {};
let redraw = () => {};

/** The list's filter as query parameters of GET /api/sessions. */
export function filterParams() {
  const value = $("session-filter").value;
  if (value === "pinned") return { pinned: true };
  if (value === "archived") return { archived: true };
  if (value.startsWith("folder:")) return { case: value.slice("folder:".length) };
  if (value.startsWith("tag:")) return { tag: value.slice("tag:".length) };
  return {};
}

/** Whether the list shows every active chat (then pinned ones come first, in a section of their own). */
export const showingAll = () => $("session-filter").value === "";

/** The owner's folders and tags, as filter options and as the folder field's suggestions. */
export async function loadLabels() {
  let labels;
  try {
    labels = await api("GET", "/api/labels");
  } catch (error) {
    if (!isAbort(error)) setListStatus(`Could not load your folders and tags: ${error.message}`, "error");
    return;
  }
  const filter = $("session-filter");
  const chosen = filter.value;
  const group = (label, prefix, items) =>
    items.length
      ? el(
          "optgroup",
          { attrs: { label } },
          items.map((item) => el("option", { text: `${item.name} (${item.count})`, attrs: { value: `${prefix}${item.name}` } })),
        )
      : null;
  filter.replaceChildren(
    el("option", { text: "All chats", attrs: { value: "" } }),
    el("option", { text: "Pinned", attrs: { value: "pinned" } }),
    el("option", { text: "Archived", attrs: { value: "archived" } }),
    ...[group("Folders", "folder:", labels.folders), group("Tags", "tag:", labels.tags)].filter(Boolean),
  );
  filter.value = chosen;
  if (filter.value !== chosen) {
    filter.value = ""; // that folder or tag holds no chat any more
    await reload();
  }
  $("folder-names").replaceChildren(...labels.folders.map((f) => el("option", { attrs: { value: f.name } })));
}

/** A chat's pinned and archived marks, its folder and its tags, as shown under its title. */
export function sessionLabels(session) {
  const marks = [
    session.pinned ? el("span", { className: "badge badge-pin", text: "Pinned", testid: "session-pinned" }) : null,
    session.archived ? el("span", { className: "badge badge-archived", text: "Archived", testid: "session-archived" }) : null,
    session.folder ? el("span", { className: "label-chip", text: `▸ ${session.folder}`, testid: "session-folder" }) : null,
    ...(session.tags || []).map((tag) => el("span", { className: "label-chip", text: `#${tag}`, testid: "session-tag" })),
  ].filter(Boolean);
  return marks.length ? el("span", { className: "session-labels" }, marks) : null;
}

/** The selection box of a chat, while selecting. */
export function selectBox(session) {
  if (!selecting) return null;
  const box = el("input", {
    className: "session-select",
    testid: "session-select-box",
    attrs: { type: "checkbox", "aria-label": `Select “${session.title}”`, checked: selected.has(session.id) },
  });
  box.addEventListener("change", () => {
    if (box.checked) selected.add(session.id);
    else selected.delete(session.id);
    showSelection();
  });
  return box;
}

/**
 * A chat's organising actions, for its menu (rowmenu.js); ``edit(item, options)`` opens a one-field
 * form in place of the item (sidebar.js's, which keeps the list from redrawing under it).
 */
export function organiseItems(session, item, edit) {
  return [
    {
      text: session.pinned ? "Unpin" : "Pin",
      testid: "session-pin",
      run: () => change(session, { pinned: !session.pinned }, session.pinned ? "Chat unpinned." : "Chat pinned."),
    },
    {
      text: session.archived ? "Restore" : "Archive",
      testid: "session-archive",
      run: () =>
        change(
          session,
          { archived: !session.archived },
          session.archived ? "Chat restored." : "Chat archived: it is under Archived, and search still finds it.",
        ),
    },
    {
      text: "Move to folder…",
      testid: "session-move",
      run: () =>
        edit(item, {
          label: "Folder",
          value: session.folder || "",
          list: "folder-names",
          testid: "session-folder-input",
          maxlength: 80,
          allowEmpty: true,
          save: (text) => change(session, { folder: text || null }, text ? `Moved to “${text}”.` : "Taken out of its folder."),
        }),
    },
    {
      text: "Tags…",
      testid: "session-tags",
      run: () =>
        edit(item, {
          label: "Tags, separated by commas",
          value: (session.tags || []).join(", "),
          testid: "session-tags-input",
          maxlength: 450,
          allowEmpty: true,
          save: (text) => change(session, { tags: text.split(",").map((t) => t.trim()).filter(Boolean) }, "Tags saved."),
        }),
    },
  ];
}

async function change(session, body, done) {
  try {
    await api("PATCH", sessionPath(session.id), body);
    setListStatus(done);
  } catch (error) {
    if (!isAbort(error)) setListStatus(`Could not change the chat: ${error.message}`, "error");
  }
  await reload(); // the list, and with it the folders and tags
}

function showSelection() {
  show($("bulk-bar"), selecting);
  $("bulk-count").textContent = `${selected.size} selected`;
  const archived = $("session-filter").value === "archived";
  show($("bulk-archive"), !archived);
  show($("bulk-restore"), archived);
}

function setSelecting(on) {
  if (on) setListStatus(""); // what the last change did is not this one's
  selecting = on;
  selected.clear();
  $("session-select").setAttribute("aria-pressed", String(on));
  $("session-select").textContent = on ? "Done" : "Select";
  showSelection();
  redraw();
}

/** One change to every selected chat; a delete is confirmed once for all of them. */
async function bulk(action, extra = {}) {
  const ids = [...selected];
  if (ids.length === 0) {
    setListStatus("Select chats first.", "error");
    return;
  }
  const several = ids.length === 1 ? "this chat" : `these ${ids.length} chats`;
  if (action === "delete" && !window.confirm(`Delete ${several}? This cannot be undone.`)) return;
  const before = new Map(state.sessions.filter((s) => ids.includes(s.id)).map((s) => [s.id, s]));
  const openOne = ids.includes(state.currentSessionId);
  if (action === "delete" && openOne) stopFollowingSession(); // as a single delete does (sidebar.js)
  let outcome;
  try {
    outcome = await api("POST", "/api/sessions/bulk", { ids, action, ...extra });
  } catch (error) {
    if (!isAbort(error)) setListStatus(`Could not change the chats: ${error.message}`, "error");
    if (action === "delete" && openOne) await openSession(state.currentSessionId, { reveal: false });
    return;
  }
  const verb = { pin: "pinned", archive: "archived", restore: "restored", move: "moved", delete: "deleted" }[action];
  const missing = outcome.missing.length ? ` ${outcome.missing.length} no longer existed.` : "";
  const undo = outcome.done.length ? undoing(action, outcome.done, before) : null;
  setListStatus(`${outcome.done.length} ${outcome.done.length === 1 ? "chat" : "chats"} ${verb}.${missing}`, "", undo);
  if (action === "delete" && openOne) forgetCurrentSession();
  setSelecting(false);
  await reload(); // the list, and with it the folders and tags
}

/** The requests that put the changed chats back as they were, for every change but a delete: only
 * the chats the change changed are changed back, and the chats moved go back to their own folders. */
function undoRequests(action, ids, before) {
  const changed = (field, was) => ids.filter((id) => before.get(id)?.[field] === was);
  const back = { archive: ["restore", "archived", false], restore: ["archive", "archived", true], pin: ["unpin", "pinned", false] };
  if (action in back) {
    const [opposite, field, was] = back[action];
    const undone = changed(field, was);
    return undone.length ? [{ ids: undone, action: opposite }] : [];
  }
  if (action !== "move") return null;
  const byFolder = new Map();
  for (const id of ids) {
    const folder = before.get(id)?.folder ?? null;
    byFolder.set(folder, [...(byFolder.get(folder) ?? []), id]);
  }
  return [...byFolder].map(([folder, group]) => ({ ids: group, action: "move", folder }));
}

function undoing(action, ids, before) {
  const requests = undoRequests(action, ids, before);
  if (!requests?.length) return null; // a delete, or nothing that changed
  return async () => {
    try {
      for (const body of requests) await api("POST", "/api/sessions/bulk", body);
      setListStatus(`Undone: ${ids.length === 1 ? "the chat is" : `the ${ids.length} chats are`} as they were.`);
    } catch (error) {
      if (!isAbort(error)) setListStatus(`Could not undo: ${error.message}`, "error");
    }
    await reload();
  };
}

/** On sign-out. */
export function clearOrganise() {
  setSelecting(false);
  setListStatus("");
  $("session-filter").value = "";
  $("folder-names").replaceChildren();
}

/** ``reloadList`` lists the chats, folders and tags again; ``redrawList`` draws the listed ones again (selection boxes). */
export function bindOrganise({ reloadList, redrawList }) {
  reload = reloadList;
  redraw = redrawList;
  $("session-filter").addEventListener("change", () => {
    setSelecting(false);
    reload();
  });
  $("session-select").addEventListener("click", () => setSelecting(!selecting));
  $("bulk-pin").addEventListener("click", () => bulk("pin"));
  $("bulk-archive").addEventListener("click", () => bulk("archive"));
  $("bulk-restore").addEventListener("click", () => bulk("restore"));
  $("bulk-delete").addEventListener("click", () => bulk("delete"));
  $("bulk-move").addEventListener("submit", (event) => {
    event.preventDefault();
    const folder = $("bulk-folder").value.trim();
    bulk("move", { folder: folder || null }).then(() => {
      $("bulk-folder").value = "";
    });
  });
}
