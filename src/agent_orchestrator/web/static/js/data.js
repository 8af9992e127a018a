// The Data page: the active dataset's facts, its segment rules, its columns and its versions for
// everyone; for admins also the settings form, the columns' roles and words (columns.js), "Restore" on
// each version, and the upload (upload.js, import.js).
// The admin controls are hidden from analysts, but it is the server that refuses them (403).

import { api, isAbort } from "./api.js";
import { bindColumns, clearColumns, loadColumns } from "./columns.js";
import { $, el, setText, show } from "./dom.js";
import { DASH, fmtNumber, timeElement } from "./format.js";
import { bindImportProgress, clearImport, onImportEnded, resumeImport } from "./import.js";
import { state } from "./state.js";
import { bindUpload, clearUpload } from "./upload.js";
import { whenShown } from "./views.js";

const isAdmin = () => state.user?.role === "admin";

function fact(term, value) {
  const dd = el("dd");
  if (value instanceof Node) dd.append(value);
  else dd.textContent = value;
  return [el("dt", { text: term }), dd];
}

function ruleLabel(key) {
  const text = key.replaceAll("_", " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function renderFacts(facts) {
  const lastImport = facts.last_import_at
    ? el("span", {}, [timeElement(facts.last_import_at), document.createTextNode(` by ${facts.last_import_by ?? DASH}`)])
    : DASH;
  $("data-facts").replaceChildren(
    ...fact("Name", facts.name),
    ...fact("Currency", facts.currency ?? "not named"),
    ...fact("Dates", facts.first_date ? `${facts.first_date} to ${facts.last_date}` : DASH),
    ...fact("Rows", fmtNumber(facts.rows)),
    ...fact("Customers", fmtNumber(facts.customers)),
    ...fact("Products", fmtNumber(facts.products)),
    ...fact("Countries", fmtNumber(facts.countries)),
    ...fact("Last import", lastImport),
    ...(facts.importing ? fact("Now", "an import is running") : []),
  );
  const rules = Object.entries(facts.segment_rules || {});
  $("data-rules").replaceChildren(
    el("h4", { text: "Segment rules" }),
    el("dl", { className: "facts" }, rules.flatMap(([key, value]) => fact(ruleLabel(key), String(value)))),
  );
  if (isAdmin()) fillSettings(facts, rules);
}

let settingsFrom = null; // the settings the form was last filled with
let settingsTyped = false; // the admin changed the form since, and has not saved it

/** Fill the settings form from the facts, unless the admin is editing it and the settings are still
 * the ones the form was filled with: the page is reloaded each time it is shown, and typing not yet
 * saved must survive a look at another page. */
function fillSettings(facts, rules) {
  const from = JSON.stringify([facts.version_id, facts.name, facts.currency, rules]);
  if (from === settingsFrom && settingsTyped) return;
  if (settingsTyped) setText($("settings-saved"), "The data changed meanwhile: the form shows its settings now.");
  settingsFrom = from;
  settingsTyped = false;
  $("settings-name").value = facts.name;
  $("settings-currency").value = facts.currency ?? "";
  $("settings-rules").replaceChildren(
    ...rules.flatMap(([key, value]) => {
      const id = `rule-${key}`;
      return [
        el("label", { text: ruleLabel(key), attrs: { for: id } }),
        el("input", { testid: id, attrs: { id, name: key, type: "number", step: "any", value } }),
      ];
    }),
  );
}

function versionRow(version) {
  const stateCell = el("td");
  if (version.active) {
    stateCell.append(el("span", { className: "badge badge-busy", text: "active", testid: "version-active" }));
  } else if (isAdmin()) {
    const restore = el("button", { className: "btn btn-ghost", text: "Restore", testid: "version-restore", attrs: { type: "button" } });
    restore.addEventListener("click", () => onRestore(version, restore));
    stateCell.append(restore);
  }
  return el("tr", { attrs: { "data-version": version.id } }, [
    el("td", {}, [timeElement(version.created_at)]),
    el("td", { text: version.created_by }),
    el("td", { text: version.source_name }),
    el("td", { text: version.mode }),
    el("td", { className: "num", text: fmtNumber(version.rows) }),
    stateCell,
  ]);
}

async function loadData() {
  setText($("data-error"), "");
  for (const node of document.querySelectorAll("#view-data .admin-only")) show(node, isAdmin());
  const columns = loadColumns(); // its own errors are shown in its own section
  try {
    const [facts, versions] = await Promise.all([api("GET", "/api/datasets"), api("GET", "/api/datasets/versions")]);
    renderFacts(facts);
    $("versions-table").tBodies[0].replaceChildren(...versions.items.map(versionRow));
  } catch (error) {
    if (!isAbort(error)) setText($("data-error"), `Could not load the data's facts: ${error.message}`);
  }
  if (isAdmin()) resumeImport();
  await columns;
}

async function onRestore(version, button) {
  button.disabled = true;
  setText($("versions-error"), "");
  try {
    await api("POST", `/api/datasets/versions/${version.id}/activate`);
    await loadData();
  } catch (error) {
    setText($("versions-error"), `Could not restore: ${error.message}`);
    button.disabled = false;
  }
}

async function onSaveSettings(event) {
  event.preventDefault();
  setText($("settings-error"), "");
  setText($("settings-saved"), "");
  const segmentRules = {};
  for (const input of $("settings-rules").querySelectorAll("input")) {
    const value = Number(input.value);
    if (input.value.trim() === "" || !Number.isFinite(value)) {
      setText($("settings-error"), `${ruleLabel(input.name)} must be a number.`);
      return;
    }
    segmentRules[input.name] = value;
  }
  const currency = $("settings-currency").value.trim().toUpperCase();
  // An emptied field clears the currency (null): the amounts are then printed without one.
  const body = { name: $("settings-name").value.trim(), segment_rules: segmentRules, currency: currency || null };
  try {
    const facts = await api("PATCH", "/api/datasets/settings", body);
    settingsTyped = false;
    renderFacts(facts);
    setText($("settings-saved"), "Saved; the segments are recomputed.");
  } catch (error) {
    setText($("settings-error"), error.message);
  }
}

/** On sign-out: nothing of the data stays on the page. */
export function clearData() {
  $("data-facts").replaceChildren();
  $("data-rules").replaceChildren();
  $("settings-rules").replaceChildren();
  settingsFrom = null;
  settingsTyped = false;
  $("versions-table").tBodies[0].replaceChildren();
  clearColumns();
  clearUpload();
  clearImport();
}

export function bindData() {
  whenShown("data", loadData);
  bindUpload();
  bindImportProgress();
  bindColumns(() => loadData());
  onImportEnded(() => loadData());
  $("data-settings").addEventListener("submit", onSaveSettings);
  $("data-settings").addEventListener("input", () => {
    settingsTyped = true;
  });
}
