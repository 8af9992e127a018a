// Uploading a CSV file and confirming how to read it (admins): the file goes to the server as it is
// (the browser streams it from disk), the server answers how it read it, and the admin confirms or
// changes the column of each field, the date format and the mode before the import starts. Every
// cell and column name is the file's, so all of it is shown as text.

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
};
const DELIMITERS = { ",": "comma", ";": "semicolon", "\t": "tab", "|": "pipe" };

let preview = null; // the server's answer for the file being mapped

function fact(term, value) {
  return [el("dt", { text: term }), el("dd", { text: value })];
}

function renderPreview(data) {
  preview = data;
  const f = data.format;
  const detected = [
    ...fact("Layout", data.layout ?? "not a known layout: check the columns below"),
    ...fact("Delimiter", DELIMITERS[f.delimiter] ?? f.delimiter),
    ...fact("Decimal mark", f.decimal === "," ? "comma (1,5)" : "point (1.5)"),
    ...fact("Thousands", f.thousands ? `"${f.thousands}"` : "none"),
    ...fact("Dates", f.date_format ?? (data.date_formats.length ? "choose below" : "not recognised")),
    ...fact("Encoding", f.encoding),
    ...fact("Mapping", data.remembered ? "as confirmed last time for this source" : "suggested from the header"),
  ];
  $("mapping-detected").replaceChildren(...detected);
  $("mapping-problems").replaceChildren(...data.problems.map((text) => el("li", { text })));

  const table = $("preview-table");
  table.tHead.replaceChildren(el("tr", {}, data.header.map((name) => el("th", { text: name, attrs: { scope: "col" } }))));
  table.tBodies[0].replaceChildren(...data.rows.map((row) => el("tr", {}, row.map((cell) => el("td", { text: cell })))));

  $("mapping-fields").replaceChildren(...data.fields.flatMap((field) => fieldChoice(data, field)));
  renderDateFormats(data);
  show($("mapping-form"), true);
}

function fieldChoice(data, field) {
  const optional = data.optional_fields.includes(field);
  const id = `map-${field}`;
  const select = el("select", { attrs: { id, name: field }, testid: id });
  select.append(el("option", { text: optional ? "(none)" : "(choose a column)", attrs: { value: "" } }));
  for (const column of data.header) {
    select.append(el("option", { text: column, attrs: { value: column, selected: data.mapping[field] === column } }));
  }
  return [el("label", { text: LABELS[field] + (optional ? " (optional)" : ""), attrs: { for: id } }), select];
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

async function onUpload(event) {
  event.preventDefault();
  const file = $("upload-file").files[0];
  setText($("upload-error"), "");
  if (!file) {
    setText($("upload-error"), "Choose a CSV file first.");
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
  setText($("mapping-error"), "");
  const mapping = chosenMapping();
  const missing = preview.fields.filter((f) => !mapping[f] && !preview.optional_fields.includes(f));
  if (missing.length) {
    setText($("mapping-error"), `Choose a column for ${missing.map((f) => LABELS[f]).join(", ")}.`);
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
}
