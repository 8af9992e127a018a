// Message bubbles, for the transcript and for a turn being streamed.
//
// Model output is untrusted. The only string ever given to innerHTML is the `html` field of an
// assistant message, which the server renders from markdown with raw HTML disabled (web/markdown.py).
// Everything else -- user text, titles, previews, streamed deltas, tool names, errors -- goes through
// textContent / createElement.

import { answerCharts } from "./charts.js";
import { el } from "./dom.js";
import { timeElement } from "./format.js";
import { answerReadings } from "./readings.js";

export function messageShell(role) {
  const who = role === "user" ? "You" : "Assistant";
  const body = el("div", { className: "message-body" });
  const item = el("li", { className: `message message-${role}`, testid: "message" }, [
    el("span", { className: "message-author", text: who }),
    body,
  ]);
  item.dataset.role = role;
  return { item, body };
}

// A question that asks to see its figures drawn: its answer's chart comes before the text.
const CHART_ASKED = /\b(chart|graph|plot|visuali[sz]e|draw)/i;

/** Whether a question asked for a chart ("show me a chart of …", "plot revenue by month"). */
export function askedForChart(question) {
  return CHART_ASKED.test(question || "");
}

/** A stored message; ``question``: the message before an answer, which may have asked for a chart. */
export function messageElement(message, { question = null } = {}) {
  const role = message.role === "user" ? "user" : "assistant";
  const { item, body } = messageShell(role);
  if (role === "assistant") {
    setAssistantBody(body, message);
    showToolData(body, message, { chartFirst: question?.role === "user" && askedForChart(question.content) });
    if (message.stopped) markStopped(item);
    const imported = importedTools(message.imported_tools);
    if (imported) item.append(imported);
  } else {
    body.textContent = message.content || "";
  }
  const time = timeElement(message.timestamp, "message-time");
  if (time) item.append(time);
  return item;
}

/**
 * The one place that uses innerHTML: `html` is produced by the server's markdown renderer with raw
 * HTML disabled, so model output cannot inject markup here. Without it, fall back to plain text.
 */
export function setAssistantBody(body, { html, content }) {
  body.classList.remove("streaming");
  if (typeof html === "string" && html) {
    body.innerHTML = html;
    body.classList.add("markdown");
  } else {
    body.textContent = content || "";
  }
}

/**
 * What the turn's tools returned, under the answer's text (nothing for most answers): a computed
 * reading with its chips right under it, then the charts; a chart the question asked for comes
 * first, above the text (``chartFirst``).
 */
export function showToolData(body, { charts, readings }, { chartFirst = false } = {}) {
  const drawn = answerCharts(charts);
  if (drawn && chartFirst) body.before(drawn);
  for (const box of [chartFirst ? null : drawn, answerReadings(readings)]) if (box) body.after(box);
}

/**
 * Tool results that came with an imported chat: the file's word, not this server's tools', so they
 * are shown as text under a label that says so, closed, and never as charts or readings
 * (docs/architecture.md#export-and-import).
 */
export function importedTools(tools) {
  if (!Array.isArray(tools) || tools.length === 0) return null;
  return el("details", { className: "imported-tools", testid: "imported-tools" }, [
    el("summary", { text: "Imported tool results (from the file, not this server's tools)" }),
    ...tools.map((tool) =>
      el("div", { className: "imported-tool" }, [
        el("span", { className: "imported-tool-name", text: tool.tool }),
        el("pre", { text: readable(tool.content) }),
      ]),
    ),
  ]);
}

/** JSON indented so a person can read it; any other text as it came (it is never interpreted). */
function readable(content) {
  try {
    return JSON.stringify(JSON.parse(content), null, 2);
  } catch {
    return String(content ?? "");
  }
}

/** An answer stopped while it was written: its words so far (perhaps none), said to be so. */
export function markStopped(item) {
  if (item.querySelector(".message-stopped")) return;
  item.classList.add("stopped");
  const silent = !item.querySelector(".message-body")?.textContent.trim();
  if (silent) item.classList.add("silent"); // no empty bubble: the mark says what happened
  const text = silent ? "Stopped before the answer began" : "Stopped";
  item.append(el("p", { className: "message-stopped", text, testid: "message-stopped" }));
}
