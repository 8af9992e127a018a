// The Data page's Columns: what each column of the active dataset is (its role, label and synonyms)
// beside what it holds (type, distinct values, samples), and the metrics derived from the roles. An
// admin changes them and saves: a new version of the data (PUT /api/datasets/model), refused with one
// line when the rows cannot be read so. Analysts read the same table without controls; the server
// refuses them anyway (403). Every text is set as text, never as markup.

import { api, isAbort } from "./api.js";
import { $, el, setText, show } from "./dom.js";
import { DASH, fmtNumber } from "./format.js";
import { state } from "./state.js";

const ROLES = [
  ["time", "Time (a date)"],
  ["key", "Key (identifies)"],
  ["label", "Label (a name)"],
  ["dimension", "Dimension (group by)"],
  ["measure", "Measure (add up)"],
  ["ignore", "Ignore"],
];
const ENTITIES = [
  ["order", "Order"],
  ["customer", "Customer"],
  ["product", "Product"],
];
const UNITS = [
  ["money", "Money"],
  ["number", "Number"],
  ["percent", "Percent (a share)"],
];
const NEEDS_ENTITY = new Set(["key", "label"]);

const isAdmin = () => state.user?.role === "admin";

let loadedFrom = null; // the model the table was last filled with, as JSON
let typed = false; // the admin changed the table since, and has not saved it
let controls = { columns: new Map(), metrics: new Map() }; // name -> { item, inputs }

/** Comma-separated words as a list: trimmed, blanks left out. */
const wordsOf = (text) =>
  text
    .split(",")
    .map((word) => word.trim())
    .filter(Boolean);
const sameWords = (a, b) => a.join("\u0000") === b.join("\u0000");

function options(pairs, value, blank) {
  const made = pairs.map(([key, text]) => el("option", { text, attrs: { value: key, selected: key === value } }));
  return blank ? [el("option", { text: blank, attrs: { value: "", selected: !value } }), ...made] : made;
}

/** A control with its own (visually hidden) label: a screen reader names every cell's control. */
function labelled(control, text) {
  return [el("label", { className: "visually-hidden", text, attrs: { for: control.id } }), control];
}

function roleText(column) {
  const role = ROLES.find(([key]) => key === column.role)?.[1] ?? column.role;
  const detail = column.entity ?? (column.role === "measure" ? column.unit : null);
  const text = detail ? `${role}, ${detail}` : role;
  return column.of_order ? `${text}, the whole order's` : text;
}

const SHOWN_ITEMS = 6;

/** What a file written one column per item was read as: its columns are not the ones it was uploaded
 * with, and an admin reading the table must be told why. */
function linesNote(model) {
  const items = model.items_from ?? [];
  const note = $("columns-lines");
  show(note, items.length > 0);
  if (!items.length) return setText(note, "");
  const named = items.slice(0, SHOWN_ITEMS).join(", ");
  const more = items.length > SHOWN_ITEMS ? ` and ${fmtNumber(items.length - SHOWN_ITEMS)} more` : "";
  const whole = model.columns.filter((column) => column.of_order).map((column) => column.header);
  setText(
    note,
    `The file has one column per item (${named}${more}): it is read as one line per item sold, with its ` +
      "item, its quantity and the order it is on." +
      (whole.length
        ? ` The amount${whole.length > 1 ? "s" : ""} ${whole.join(", ")} ${whole.length > 1 ? "are" : "is"} the whole order's: counted once an order, never split among its items.`
        : ""),
  );
}

function profileCells(column) {
  const profile = column.profile;
  const type = profile ? `${profile.type}${profile.nulls ? `, ${fmtNumber(profile.nulls)} empty` : ""}` : DASH;
  return [
    el("td", { text: type }),
    el("td", { className: "num", text: profile ? fmtNumber(profile.distinct) : DASH }),
    el("td", { className: "samples", text: profile?.samples.length ? profile.samples.join(", ") : DASH }),
  ];
}

function columnRow(column, index) {
  const header = el("th", { text: column.header, attrs: { scope: "row" } });
  if (column.header !== column.name) header.append(el("span", { className: "muted small column-name", text: ` ${column.name}` }));
  const cells = [header, ...profileCells(column)];
  if (!isAdmin()) {
    cells.push(
      el("td", { text: roleText(column) }),
      el("td", { text: column.label }),
      el("td", { className: "samples", text: column.synonyms.join(", ") || DASH }),
    );
    return el("tr", { attrs: { "data-column": column.name } }, cells);
  }
  const id = `column-${index}`;
  const role = el("select", { testid: "column-role", attrs: { id: `${id}-role`, name: "role" } }, options(ROLES, column.role));
  const entity = el("select", { testid: "column-entity", attrs: { id: `${id}-entity`, name: "entity" } }, options(ENTITIES, column.entity, "Of what?"));
  const unit = el("select", { testid: "column-unit", attrs: { id: `${id}-unit`, name: "unit" } }, options(UNITS, column.unit ?? "number"));
  const label = el("input", { testid: "column-label", attrs: { id: `${id}-label`, name: "label", maxlength: 80, value: column.label, autocomplete: "off" } });
  const synonyms = el("input", {
    testid: "column-synonyms",
    attrs: { id: `${id}-synonyms`, name: "synonyms", value: column.synonyms.join(", "), autocomplete: "off" },
  });
  const entityPart = el("span", { className: "role-part" }, labelled(entity, `What ${column.header} identifies`));
  const unitPart = el("span", { className: "role-part" }, labelled(unit, `Unit of ${column.header}`));
  const showParts = () => {
    show(entityPart, NEEDS_ENTITY.has(role.value));
    show(unitPart, role.value === "measure");
  };
  role.addEventListener("change", showParts);
  showParts();
  controls.columns.set(column.name, { item: column, inputs: { role, entity, unit, label, synonyms } });
  cells.push(
    el("td", {}, [el("div", { className: "role-controls" }, [...labelled(role, `Role of ${column.header}`), entityPart, unitPart])]),
    el("td", {}, labelled(label, `Label of ${column.header}`)),
    el("td", {}, labelled(synonyms, `Synonyms of ${column.header}, separated by commas`)),
  );
  return el("tr", { attrs: { "data-column": column.name } }, cells);
}

function metricRow(metric, index) {
  const name = el("th", { text: metric.value, attrs: { scope: "row" } });
  if (!isAdmin()) {
    return el("tr", { attrs: { "data-metric": metric.value } }, [
      name,
      el("td", { text: metric.label }),
      el("td", { className: "samples", text: metric.synonyms.join(", ") || DASH }),
    ]);
  }
  const id = `metric-${index}`;
  const label = el("input", { testid: "metric-label", attrs: { id: `${id}-label`, maxlength: 80, value: metric.label, autocomplete: "off" } });
  const synonyms = el("input", { testid: "metric-synonyms", attrs: { id: `${id}-synonyms`, value: metric.synonyms.join(", "), autocomplete: "off" } });
  controls.metrics.set(metric.value, { item: metric, inputs: { label, synonyms } });
  return el("tr", { attrs: { "data-metric": metric.value } }, [
    name,
    el("td", {}, labelled(label, `Label of the metric ${metric.value}`)),
    el("td", {}, labelled(synonyms, `Synonyms of the metric ${metric.value}, separated by commas`)),
  ]);
}

/** Fill the tables from the model, unless the admin is editing them and the model is still the one
 * they were filled with: the page is reloaded each time it is shown, and unsaved choices must survive
 * a look at another page. */
export function renderColumns(model, { force = false } = {}) {
  const from = JSON.stringify([model.columns, model.metrics, isAdmin()]);
  if (!force && from === loadedFrom && typed) return;
  if (!force && typed) setText($("columns-saved"), "The data changed meanwhile: the table shows its columns now.");
  loadedFrom = from;
  typed = false;
  controls = { columns: new Map(), metrics: new Map() };
  linesNote(model);
  $("columns-table").tBodies[0].replaceChildren(...model.columns.map(columnRow));
  $("metrics-table").tBodies[0].replaceChildren(...model.metrics.map(metricRow));
}

export async function loadColumns() {
  setText($("columns-error"), "");
  try {
    renderColumns(await api("GET", "/api/datasets/model"));
  } catch (error) {
    if (!isAbort(error)) setText($("columns-error"), `Could not load the columns: ${error.message}`);
  }
}

/** Only what the admin changed, so a save of an untouched table makes no version. */
function changes() {
  const body = { columns: {}, metrics: {} };
  for (const [name, { item, inputs }] of controls.columns) {
    const change = {};
    const role = inputs.role.value;
    if (role !== item.role) change.role = role;
    if (NEEDS_ENTITY.has(role) && inputs.entity.value && (inputs.entity.value !== item.entity || change.role)) {
      change.entity = inputs.entity.value;
    }
    if (role === "measure" && (inputs.unit.value !== item.unit || change.role)) change.unit = inputs.unit.value;
    if (inputs.label.value.trim() !== item.label) change.label = inputs.label.value.trim();
    const synonyms = wordsOf(inputs.synonyms.value);
    if (!sameWords(synonyms, item.synonyms)) change.synonyms = synonyms;
    if (Object.keys(change).length) body.columns[name] = change;
  }
  for (const [name, { item, inputs }] of controls.metrics) {
    const change = {};
    if (inputs.label.value.trim() !== item.label) change.label = inputs.label.value.trim();
    const synonyms = wordsOf(inputs.synonyms.value);
    if (!sameWords(synonyms, item.synonyms)) change.synonyms = synonyms;
    if (Object.keys(change).length) body.metrics[name] = change;
  }
  return body;
}

async function onSave(event, afterSave) {
  event.preventDefault();
  setText($("columns-error"), "");
  setText($("columns-saved"), "");
  const body = changes();
  if (!Object.keys(body.columns).length && !Object.keys(body.metrics).length) {
    setText($("columns-saved"), "Nothing changed.");
    return;
  }
  const button = $("columns-save");
  button.disabled = true;
  try {
    const model = await api("PUT", "/api/datasets/model", body);
    renderColumns(model, { force: true });
    setText($("columns-saved"), "Saved as a new version: the next question reads the columns so.");
    afterSave();
  } catch (error) {
    setText($("columns-error"), error.message);
  } finally {
    button.disabled = false;
  }
}

/** On sign-out: nothing of the data stays on the page. */
export function clearColumns() {
  $("columns-table").tBodies[0].replaceChildren();
  $("metrics-table").tBodies[0].replaceChildren();
  linesNote({ columns: [] });
  setText($("columns-error"), "");
  setText($("columns-saved"), "");
  loadedFrom = null;
  typed = false;
  controls = { columns: new Map(), metrics: new Map() };
}

/** `afterSave`: what else the page shows again once a save made a new version (facts, versions). */
export function bindColumns(afterSave) {
  $("columns-form").addEventListener("submit", (event) => onSave(event, afterSave));
  $("columns-form").addEventListener("input", () => {
    typed = true;
  });
  $("columns-form").addEventListener("change", () => {
    typed = true;
  });
}
