// The start screen of an empty chat (docs/architecture.md#the-start-screen): what the active dataset
// holds -- its days, rows, measures and the columns to break them down by -- and questions made from
// its own months, columns and values, each one a click away. Built from text only (textContent).

import { api, isAbort } from "./api.js";
import { $, el, show } from "./dom.js";
import { composerLocked, sendTurn } from "./turns.js";

const DATE = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** Fill the empty chat's start screen from the active dataset; it keeps its plain text if that fails. */
export async function showStart() {
  let start;
  try {
    start = await api("GET", "/api/datasets/model/start");
  } catch (error) {
    if (!isAbort(error)) show($("start-data"), false);
    return;
  }
  $("start-loaded").textContent = loadedLine(start);
  $("start-measures").textContent = `Measures: ${start.measures.join(", ")}.`;
  $("start-dimensions").textContent = start.dimensions.length ? `By: ${start.dimensions.join(", ")}.` : "";
  $("start-amounts").textContent = start.currency_note;
  const buttons = start.suggestions.map((question) => {
    const button = el("button", {
      className: "btn suggestion",
      text: question,
      testid: "start-suggestion",
      attrs: { type: "button" },
    });
    button.addEventListener("click", () => {
      if (!composerLocked()) sendTurn(question, { fromComposer: false });
    });
    return el("li", {}, [button]);
  });
  $("start-suggestions").replaceChildren(...buttons);
  show($("start-data"), true);
}

function loadedLine(start) {
  const rows = `${start.rows.toLocaleString()} rows`;
  const days = start.first_day && start.last_day ? `, ${day(start.first_day)} to ${day(start.last_day)}` : "";
  return `Loaded: ${start.dataset} (${rows}${days}).`;
}

function day(text) {
  return DATE.format(new Date(`${text}T00:00:00Z`));
}
