// Uploading a CSV file and confirming how to read it (admins): the file goes to the server as it is
// (the browser streams it from disk), the server answers how it read it, and the admin confirms or
// changes the column of each field, the date format and the mode before the import starts. When the
// detection was wrong, the admin sets the delimiter, decimal mark or thousands separator, or types a
// date format, and the server reads the file again that way (the preview shows the new reading).
// Every cell and column name is the file's, so all of it is shown as text.

import { api, errorMessage, rawRequest } from "./api.js";
import { $, el, setText, show } from "./dom.js";
import { fmtNumber } from "./format.js";
import { showJob } from "./import.js";

const LABELS = {
  invoice: "Invoice",
  stock_code: "Product code",
  description: "Description",
  quantity: "Quantity",
  invoiced_at: "Date",
  unit_price: "Unit price",
  customer_id: "Customer",
  country: "Country",
  line_total: "Line total",
};
/** A line's money: either is enough (retail/datasets/formats.py, PRICE_FIELDS). */
const PRICE_FIELDS = ["unit_price", "line_total"];
const DELIMITERS = { ",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe" };
const DECIMALS = { ".": "point (1.5)", ",": "comma (1,5)" };
const THOUSANDS = { "": "none (1234)", ",": "comma (1,234)", ".": "point (1.234)", " ": "space (1 234)", "'": "apostrophe (1'234)" };
/** The encodings the server detects (retail/datasets/inspect.py), as people know them. Each file's
 * own, detected afresh: never the one an earlier file of the same source had. */
const ENCODINGS = {
  "utf-8": "UTF-8",
  "utf-8-sig": "UTF-8 (with byte-order mark)",
  "utf-16": "UTF-16 (Unicode text)",
  cp1252: "Windows-1252",
  "latin-1": "Latin-1",
};

/** The server's limit (web/uploads.py, UPLOAD_MAX_BYTES): a larger file is refused here, before any
 * of it is sent, rather than after minutes of uploading. */
export const UPLOAD_MAX_BYTES = 128 * 2 ** 20;

let preview = null; // the server's answer for the file being mapped
let reading = null; // a reading again under way: resolves true once the preview shows it

function fact(term, value) {
  return [el("dt", { text: term }), el("dd", { text: value })];
}

/** Show the server's reading of the upload; ``kept``: the admin's column choices, kept when the file
 * was read again with the same header. */
function renderPreview(data, kept = null) {
  preview = data;
  const f = data.format;
  const detected = [
    ...fact("Layout", data.layout ?? "not a known layout: check the columns below"),
    ...fact("Delimiter", DELIMITERS[f.delimiter] ?? f.delimiter),
    ...fact("Decimal mark", f.decimal === "," ? "comma (1,5)" : "point (1.5)"),
    ...fact("Thousands", f.thousands ? `"${f.thousands}"` : "none"),
    ...fact("Dates", f.date_format ?? (data.date_formats.length ? "choose below" : "not recognised")),
    ...fact("Encoding", `${ENCODINGS[f.encoding] ?? f.encoding}, detected in this file`),
    ...fact("Mapping", mappingSource(data, kept)),
  ];
  $("mapping-detected").replaceChildren(...detected);
  $("mapping-problems").replaceChildren(...data.problems.map((text) => el("li", { text })));

  const table = $("preview-table");
  const profiles = new Map(data.columns.map((column) => [column.header, column]));
  table.tHead.replaceChildren(el("tr", {}, data.header.map((name) => columnHead(name, profiles.get(name)))));
  table.tBodies[0].replaceChildren(...data.rows.map((row) => el("tr", {}, row.map((cell) => el("td", { text: cell })))));

  $("mapping-fields").replaceChildren(...data.fields.flatMap((field) => fieldChoice(data, field, kept ?? data.mapping)));
  renderUnused();
  renderReading(data);
  renderDateFormats(data);
  show($("mapping-form"), true);
}

/** A column's header with its profile under it: what it holds, how many values, some of them. */
function columnHead(name, profile) {
  if (!profile) return el("th", { text: name, attrs: { scope: "col" } });
  const kind = TYPES[profile.type] ?? profile.type.toLowerCase();
  const looks = profile.looks_like ? `, ${profile.looks_like}` : "";
  const summary = `${kind}${looks} · ${fmtNumber(profile.distinct)} values`;
  return el("th", { attrs: { scope: "col" }, testid: "column-profile" }, [
    el("span", { text: name }),
    el("span", { className: "column-profile muted small", text: summary }),
    el("span", { className: "column-samples muted small", text: profile.samples.slice(0, 3).join(" · ") }),
  ]);
}

/**
 * Columns that hold names, categories or amounts but no field was chosen for: said before the import
 * (they stay in the data's own columns, but the retail pages and answers will not use them); a column
 * of names while no field holds the products' names is the one most worth a look.
 */
function renderUnused() {
  const box = $("mapping-unused");
  const used = new Set(Object.values(chosenMapping()).filter(Boolean));
  const unused = preview.columns.filter(
    (column) => ["names", "categories", "amounts"].includes(column.looks_like) && !used.has(column.header),
  );
  const lines = unused.map((column) =>
    el("li", { text: `“${column.header}” looks like ${column.looks_like} (${column.samples.slice(0, 3).join(", ")})` }),
  );
  const names = unused.find((column) => column.looks_like === "names");
  const nameless = names && !chosenMapping().description;
  box.replaceChildren(
    el("p", { text: "These columns are not chosen for any field:" }),
    el("ul", {}, lines),
    el("p", {
      className: "small",
      text: nameless
        ? `If “${names.header}” holds the products' names, choose it for Description: otherwise products are shown by their codes. `
        : "",
    }),
    el("p", { className: "small", text: "They can still be asked about in the chat, by their own names." }),
  );
  show(box, unused.length > 0);
}

const TYPES = { VARCHAR: "text", BIGINT: "whole numbers", INTEGER: "whole numbers", DOUBLE: "numbers", DATE: "dates", TIMESTAMP: "dates and times", BOOLEAN: "yes/no" };

function mappingSource(data, kept) {
  if (kept) return "as you chose it (kept when the file was read again)";
  return data.remembered ? "as confirmed last time for this source" : "suggested from the header";
}

function options(labels, chosen) {
  return Object.entries(labels).map(([value, text]) => el("option", { text, attrs: { value, selected: value === chosen } }));
}

function renderReading(data) {
  $("reading-delimiter").replaceChildren(...options(DELIMITERS, data.format.delimiter));
  $("reading-decimal").replaceChildren(...options(DECIMALS, data.format.decimal));
  $("reading-thousands").replaceChildren(...options(THOUSANDS, data.format.thousands));
}

function fieldChoice(data, field, mapping) {
  const optional = data.optional_fields.includes(field) && !PRICE_FIELDS.includes(field);
  const id = `map-${field}`;
  const select = el("select", { attrs: { id, name: field }, testid: id });
  select.append(el("option", { text: optional ? "(none)" : "(choose a column)", attrs: { value: "" } }));
  for (const column of data.header) {
    select.append(el("option", { text: column, attrs: { value: column, selected: mapping[field] === column } }));
  }
  const note = optional ? " (optional)" : PRICE_FIELDS.includes(field) ? " (this or the other)" : "";
  return [el("label", { text: LABELS[field] + note, attrs: { for: id } }), select];
}

/** Whether the admin must pick the date format: the first rows fit several and no known layout says. */
const mustPickDate = (data) => !data.layout && !data.format.date_format && data.date_formats.length > 1;

function renderDateFormats(data) {
  const select = $("mapping-date-format");
  const choices = [...new Set([...(data.format.date_format ? [data.format.date_format] : []), ...data.date_formats])];
  const options = choices.map((fmt) => el("option", { text: fmt, attrs: { value: fmt, selected: fmt === data.format.date_format } }));
  if (!data.format.date_format) {
    const text = mustPickDate(data) ? "(choose the date format)" : data.layout ? "(as the layout writes them)" : "(detect)";
    options.unshift(el("option", { text, attrs: { value: "", selected: true } }));
  }
  select.replaceChildren(...options);
}

/** The reading the admin set: the selects, and a typed date format before the one picked. */
function readingFormat() {
  const typed = $("reading-date-typed").value.trim();
  return {
    ...preview.format,
    delimiter: $("reading-delimiter").value,
    decimal: $("reading-decimal").value,
    thousands: $("reading-thousands").value,
    date_format: typed || $("mapping-date-format").value || null,
  };
}

/** Ask the server to read the upload again as set; on a refusal its one message, and the controls
 * back to the reading the preview shows. Whether the preview now shows the new reading. */
async function readAgain() {
  const before = preview;
  if (!before) return false;
  setText($("mapping-error"), "");
  const body = { format: readingFormat(), date_column: $("map-invoiced_at").value || null };
  try {
    const path = `/api/datasets/uploads/${encodeURIComponent(before.upload_id)}/read`;
    const data = await api("POST", path, body);
    if (preview !== before) return false; // cancelled, or another file uploaded meanwhile
    const sameHeader = JSON.stringify(data.header) === JSON.stringify(before.header);
    $("reading-date-typed").value = "";
    renderPreview(data, sameHeader ? chosenMapping() : null);
    return true;
  } catch (error) {
    if (preview !== before) return false;
    renderReading(before);
    setText($("mapping-error"), error.message);
    return false;
  }
}

/** Readings one after another, each with the controls as they are when it starts. */
function onReadingChanged() {
  const previous = reading ?? Promise.resolve(true);
  const current = previous.then(readAgain);
  reading = current;
  current.finally(() => {
    if (reading === current) reading = null;
  });
}

function onTypedDate(event) {
  if (event.type === "keydown") {
    if (event.key !== "Enter") return;
    event.preventDefault(); // Enter reads the format, it does not start the import
  }
  if ($("reading-date-typed").value.trim()) onReadingChanged();
}

async function onUpload(event) {
  event.preventDefault();
  const file = $("upload-file").files[0];
  setText($("upload-error"), "");
  if (!file) {
    setText($("upload-error"), "Choose a CSV file first.");
    return;
  }
  if (file.size > UPLOAD_MAX_BYTES) {
    const size = `${fmtNumber(Math.ceil(file.size / 2 ** 20))} MB`;
    setText($("upload-error"), `${file.name} is ${size}: files up to ${UPLOAD_MAX_BYTES / 2 ** 20} MB can be uploaded.`);
    return;
  }
  hideMapping();
  const button = $("upload-send");
  button.disabled = true;
  setText($("upload-status"), `Uploading ${file.name} (${fmtNumber(Math.ceil(file.size / 1024))} KB)…`);
  try {
    const path = `/api/datasets/uploads?name=${encodeURIComponent(file.name)}`;
    const response = await rawRequest("POST", path, file, { contentType: "text/csv" });
    if (!response.ok) throw new Error(await errorMessage(response));
    setText($("upload-status"), "");
    renderPreview(await response.json());
  } catch (error) {
    setText($("upload-status"), "");
    setText($("upload-error"), error.name === "AbortError" ? "" : error.message);
  } finally {
    button.disabled = false;
  }
}

function chosenMapping() {
  const mapping = {};
  for (const field of preview.fields) mapping[field] = $(`map-${field}`).value || null;
  return mapping;
}

async function onConfirm(event) {
  event.preventDefault();
  if (reading && !(await reading)) return; // the new reading was refused: its message is shown
  if ($("reading-date-typed").value.trim() && !(await readAgain())) return; // typed, not read yet
  setText($("mapping-error"), "");
  const mapping = chosenMapping();
  const missing = preview.fields.filter((f) => !mapping[f] && !preview.optional_fields.includes(f)).map((f) => LABELS[f]);
  if (!PRICE_FIELDS.some((f) => mapping[f])) missing.push(PRICE_FIELDS.map((f) => LABELS[f]).join(" or "));
  if (missing.length) {
    setText($("mapping-error"), `Choose a column for ${missing.join(", ")}.`);
    return;
  }
  const dateFormat = $("mapping-date-format").value;
  if (!dateFormat && mustPickDate(preview)) {
    setText($("mapping-error"), "Choose the date format: the first rows fit more than one.");
    return;
  }
  const body = {
    upload_id: preview.upload_id,
    mapping,
    format: { ...preview.format, date_format: dateFormat || null },
    mode: document.querySelector('input[name="import-mode"]:checked').value,
  };
  try {
    const job = await api("POST", "/api/datasets/imports", body);
    hideMapping();
    preview = null;
    showJob(job);
  } catch (error) {
    setText($("mapping-error"), error.message);
  }
}

function hideMapping() {
  show($("mapping-form"), false);
  setText($("mapping-error"), "");
  $("reading-date-typed").value = "";
}

async function onCancelMapping() {
  const dropped = preview;
  hideMapping();
  preview = null;
  $("upload-file").value = "";
  if (dropped) await api("DELETE", `/api/datasets/uploads/${encodeURIComponent(dropped.upload_id)}`).catch(() => {});
}

/** On sign-out: the file's rows go with the user. */
export function clearUpload() {
  preview = null;
  reading = null;
  hideMapping();
  $("preview-table").tHead.replaceChildren();
  $("preview-table").tBodies[0].replaceChildren();
  $("upload-file").value = "";
  setText($("upload-status"), "");
  setText($("upload-error"), "");
  $("mapping-detected").replaceChildren();
}

export function bindUpload() {
  $("upload-form").addEventListener("submit", onUpload);
  $("mapping-form").addEventListener("submit", onConfirm);
  $("mapping-cancel").addEventListener("click", onCancelMapping);
  $("mapping-fields").addEventListener("change", () => preview && renderUnused());
  for (const id of ["reading-delimiter", "reading-decimal", "reading-thousands"]) {
    $(id).addEventListener("change", onReadingChanged);
  }
  $("reading-date-typed").addEventListener("change", onTypedDate);
  $("reading-date-typed").addEventListener("keydown", onTypedDate);
}
