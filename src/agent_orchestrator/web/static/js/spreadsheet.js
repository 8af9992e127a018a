// Cells a spreadsheet must not run (docs/architecture.md#spreadsheet-cells): the one helper for every
// tab-separated or CSV text the page writes. A text cell starting with =, +, -, @, a tab or a carriage
// return is read as a formula when pasted (=HYPERLINK(...) a live link, +cmd|... a DDE call), so it
// gets a single quote in front, as OWASP's CSV-injection guidance says; a number, or text that is a
// plain number (-12.5), stays a number. The Python side is agent_orchestrator/spreadsheet.py.

const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** ``value`` as one cell of a tab-separated table: escaped if it would be a formula, and with no tab
 * or line break of its own (which would split it into other cells or rows). */
export function tsvCell(value) {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return String(value);
  let text = String(value);
  if (FORMULA_START.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return text.replace(/[\t\r\n]+/g, " ");
}

/** Rows of cells as tab-separated lines, every cell through ``tsvCell``. */
export function tsvLines(rows) {
  return rows.map((row) => row.map(tsvCell).join("\t"));
}
