// Copy an answer: its text as the model wrote it, and the figures of its charts as a table
// (tab-separated, so a spreadsheet pastes it into cells). The figures are the tool's data that the
// chart and its table were drawn from, never numbers read back from the text.

import { tsvLines } from "./spreadsheet.js";
import { setStatus } from "./status.js";

/** The charts' figures as one tab-separated table per chart, under its title; every cell a value, never
 * a formula (a country named "=HYPERLINK(...)" is pasted as that text: spreadsheet.js). */
export function figuresTable(charts) {
  return charts
    .map((chart) => {
      const head = [chart.category, ...chart.series.map((s) => s.label)];
      const rows = chart.labels.map((label, i) => [label, ...chart.series.map((s) => s.values[i] ?? "")]);
      return tsvLines([[chart.title], head, ...rows]).join("\n");
    })
    .join("\n\n");
}

/** Put ``text`` on the clipboard and say so (or why not: a page not served over HTTPS has no clipboard). */
export async function copyToClipboard(text, what) {
  try {
    await navigator.clipboard.writeText(text);
    setStatus(`${what} copied.`);
  } catch {
    setStatus(`Could not copy: the browser did not allow it.`, "error");
  }
}
