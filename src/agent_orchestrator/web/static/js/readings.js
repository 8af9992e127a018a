// The reading under an answer computed by the analyze_sales tool: the tool's own answer text (its
// figures are written by code, whichever model wrote the words above) and the reading's parts as chips
// (measure · countries · period · comparison · ranking), each that can be changed a control. A change
// sends the edited query (POST /api/sessions/{id}/readings): the server computes it again without the
// model and adds it to the conversation, and the live feed shows the new turn in this tab and on every
// other device (docs/architecture.md#editing-a-reading). The answer the chips belong to stays as it was.
//
// Built from text only (textContent, <option> text): chip labels and answers are the tool's text.

import { api, isAbort, sessionPath } from "./api.js";
import { el } from "./dom.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";

const TIME_GROUPS = new Set(["month", "day", "year", "quarter", "weekday"]);
const DEFAULT_RANKING = 5;
const COMPARISONS = [
  ["", "no comparison"],
  ["previous_period", "vs the period before"],
  ["year_before", "vs a year before"],
];

// The choices of /api/retail/analysis/options (the data's measures, countries, segments, periods)
// and of /api/datasets/model (the file's own metrics, columns and their values), fetched again once
// they are a minute old: an import or a switch of version on any server (a new month, a new column)
// reaches a tab kept open all day. A failed fetch is tried again with the next reading.
const CHOICES_MAX_AGE_MS = 60_000;
const fetched = new Map(); // path -> { at, promise }

function loadFresh(path) {
  const kept = fetched.get(path);
  if (kept && performance.now() - kept.at < CHOICES_MAX_AGE_MS) return kept.promise;
  const promise = api("GET", path).catch((error) => {
    fetched.delete(path);
    throw error;
  });
  fetched.set(path, { at: performance.now(), promise });
  return promise;
}

const loadChoices = () => loadFresh("/api/retail/analysis/options");
const loadModel = () => loadFresh("/api/datasets/model");

/** The readings under an answer, or null when its tools computed none. */
export function answerReadings(readings) {
  if (!Array.isArray(readings) || readings.length === 0) return null;
  return el("div", { className: "answer-readings" }, readings.map(readingBlock));
}

function readingBlock(reading) {
  if (reading.tool === "query_data") return dataReadingBlock(reading);
  const chips = el("div", {
    className: "reading-chips",
    attrs: { role: "group", "aria-label": `Reading: ${reading.reading}. Change a part to compute the answer again.` },
  });
  const block = el("section", { className: "reading", testid: "reading" }, [
    reading.answer ? el("p", { className: "reading-answer", testid: "reading-answer", text: reading.answer }) : null,
    chips,
  ]);
  // Plain chips until the choices arrive (or if they cannot be had): the reading is shown either way.
  chips.replaceChildren(...reading.chips.map((chip) => chipElement(chip.label)));
  const editable = () =>
    loadChoices().then((options) => chips.replaceChildren(...editableChips(reading, options, send)));
  const send = (query) => change(query, chips).finally(() => editable().catch(() => {}));
  editable().catch(() => {});
  return block;
}

function chipElement(label, controls = []) {
  const text = label ? el("span", { text: label }) : null;
  return el("span", { className: "chip", testid: "reading-chip" }, [text, ...controls]);
}

function select(testid, name, items, value, onChange) {
  const control = el(
    "select",
    { testid, attrs: { "aria-label": name } },
    items.map(([optionValue, text]) => el("option", { text, attrs: { value: optionValue } })),
  );
  control.value = value;
  control.addEventListener("change", () => onChange(control.value));
  return control;
}

/**
 * Every chip of the reading, in its order, as a control where the part can be changed; a reading
 * without a country filter or a comparison gets a control to add one too ("and in Germany?").
 */
function editableChips(reading, options, send) {
  const query = reading.query;
  const edited = (changes) => send(cleaned({ ...query, ...changes }));
  const valuesOf = (field) => reading.chips.filter((chip) => chip.field === field).map((chip) => chip.value);
  // The countries (or segments) with the index-th one changed, added, or removed ("").
  const listed = (field, index) => (value) => {
    const values = valuesOf(field);
    values[index] = value;
    edited({ [field]: values.filter(Boolean) });
  };
  const countries = [["", "all countries"], ...options.countries.map((c) => [c, c])];
  const segments = [["", "all segments"], ...options.segments.map((s) => [s, `${s} segment`])];
  const countryChip = (value, index) =>
    control(select("reading-country", "Country", countries, value, listed("countries", index)));
  const seen = { countries: 0, segments: 0 };
  const chips = [];
  for (const chip of reading.chips) {
    if (chip.field === "measure") {
      const measures = options.measures.map((m) => [m.value, m.label]);
      chips.push(control(select("reading-measure", "Measure", measures, chip.value, (v) => edited({ measure: v }))));
      if (!valuesOf("countries").length && query.group_by !== "country") chips.push(countryChip("", 0));
    } else if (chip.field === "countries") {
      chips.push(countryChip(chip.value, seen.countries++));
    } else if (chip.field === "segments") {
      const index = seen.segments++;
      chips.push(control(select("reading-segment", "Segment", segments, chip.value, listed("segments", index))));
    } else if (chip.field === "period") {
      // The comparison follows the period it compares, whether the reading has one or not.
      chips.push(
        periodChip(chip, options, (v) => edited({ period: v })),
        comparisonChip(reading, (v) => edited({ compare: v, compare_with: null })),
      );
    } else if (chip.field === "group_by") {
      chips.push(rankingChip(chip, reading, options, edited));
    } else if (chip.field !== "compare") {
      // a product, an excluded country, another period compared with…
      chips.push(chipElement(chip.label)); // shown, not changed here
    }
  }
  return chips;
}

const control = (widget) => chipElement("", [widget]);

function periodChip(chip, options, onChange) {
  const items = [["", "all time"], ...options.periods.map((p) => [p.value, p.label])];
  if (!items.some(([value]) => value === chip.value)) items.splice(1, 0, [chip.value, chip.label]); // "last 3 months"
  return control(select("reading-period", "Period", items, chip.value, onChange));
}

/** The query's comparison (its chip names the period compared with, when there was one to compare). */
function comparisonChip(reading, onChange) {
  const compared = reading.chips.find((chip) => chip.field === "compare");
  const items = COMPARISONS.map(([value, text]) => [value, value === compared?.value ? compared.label : text]);
  return control(select("reading-compare", "Comparison", items, reading.query.compare || "", onChange));
}

/** "top 5 countries": highest ↔ lowest, and how many rows (a series in time may show them all). */
function rankingChip(chip, reading, options, edited) {
  const query = reading.query;
  const order = query.order === "lowest" ? "lowest" : "highest";
  const other = order === "highest" ? "lowest" : "highest";
  const toggle = el("button", {
    className: "btn btn-ghost btn-small chip-toggle",
    text: `${order} first`,
    testid: "reading-order",
    attrs: { type: "button", "aria-label": `Order: ${order} first. Switch to ${other} first.` },
  });
  toggle.addEventListener("click", () => edited({ order: other }));
  const inTime = TIME_GROUPS.has(query.group_by);
  const rows = Array.from({ length: options.max_rows }, (_, i) => [String(i + 1), String(i + 1)]);
  const items = inTime ? [["", "all"], ...rows] : rows;
  const current = query.limit ? String(query.limit) : inTime ? "" : String(DEFAULT_RANKING);
  const limit = select("reading-limit", "Rows", items, current, (v) => edited({ limit: v ? Number(v) : null }));
  return chipElement(chip.label, [toggle, limit, showAll(reading, options.max_rows, edited)]);
}

/** "Show all 24" under a ranking that shows some of its groups ("top 5 of 24"), as many as a reading may. */
function showAll(reading, maxRows, edited) {
  const { groups, shown } = reading;
  if (!groups || !shown || groups <= shown) return null;
  const rows = Math.min(groups, maxRows);
  const text = rows === groups ? `Show all ${groups.toLocaleString()}` : `Show ${rows} of ${groups.toLocaleString()}`;
  const button = el("button", { className: "btn btn-ghost btn-small", text, testid: "reading-show-all", attrs: { type: "button" } });
  button.addEventListener("click", () => edited({ limit: rows }));
  return button;
}

/** The query without the parts set back to nothing (the server's defaults stand for them). */
function cleaned(query) {
  return Object.fromEntries(
    Object.entries(query).filter(
      ([, value]) => value !== "" && value !== null && !(Array.isArray(value) && value.length === 0),
    ),
  );
}

/**
 * A query_data reading: its chips over the file's own columns (the metric, the breakdown, each value
 * kept or left out, the period) as controls, or, for a name the data holds several of, the choices as
 * buttons. Either sends the edited query, computed without the model.
 */
function dataReadingBlock(reading) {
  const chips = el("div", {
    className: "reading-chips",
    attrs: { role: "group", "aria-label": readingLabel(reading) },
  });
  const block = el("section", { className: "reading", testid: "reading" }, [
    reading.answer ? el("p", { className: "reading-answer", testid: "reading-answer", text: reading.answer }) : null,
    chips,
  ]);
  // Drawn again once a change is sent (its controls were disabled meanwhile), whatever came of it.
  let redraw = () => Promise.resolve();
  const send = (query) => change(query, chips, "query_data").finally(() => redraw().catch(() => {}));
  if (reading.clarify) {
    redraw = async () => chips.replaceChildren(...clarifyButtons(reading, send));
  } else {
    chips.replaceChildren(...reading.chips.map((chip) => chipElement(chip.label)));
    redraw = () => loadModel().then((model) => chips.replaceChildren(...dataChips(reading, model, send)));
  }
  redraw().catch(() => {});
  return block;
}

const readingLabel = (reading) =>
  reading.clarify
    ? `Choose which ${reading.clarify.value} you mean.`
    : `Reading: ${reading.reading}. Change a part to compute the answer again.`;

function clarifyButtons(reading, send) {
  const { column, value, choices: options, by } = reading.clarify;
  return options.map((choice) => {
    const button = el("button", {
      className: "btn btn-ghost btn-small",
      text: choice,
      testid: "reading-choice",
      attrs: { type: "button" },
    });
    button.addEventListener("click", () => {
      const kept = reading.query.filters || [];
      // a choice of the column that tells the things apart ("Oregon"), or one of the name's own values
      const filters = by
        ? [...kept, { column: by, op: "in", values: [choice] }]
        : kept.map((rule) =>
            rule.column === column ? { ...rule, values: rule.values.map((v) => (v === value ? choice : v)) } : rule,
          );
      send({ ...reading.query, filters });
    });
    return button;
  });
}

function dataChips(reading, model, send) {
  const query = reading.query;
  const edited = (changes) => send(cleaned({ ...query, ...changes }));
  const columns = new Map(model.columns.map((c) => [c.name, c]));
  const groupable = model.columns.filter((c) => ["dimension", "key"].includes(c.role));
  const chips = [];
  let filterIndex = 0;
  for (const chip of reading.chips) {
    if (chip.field === "metrics" && chip.value === query.metrics[0]) {
      const metrics = model.metrics.map((m) => [m.value, m.label]);
      chips.push(
        control(select("reading-metric", "Metric", metrics, chip.value, (v) => edited({ metrics: [v, ...query.metrics.slice(1)] }))),
      );
    } else if (chip.field === "group_by" && !(query.group_by || []).some((g) => g.grain)) {
      const items = [["", "no breakdown"], ...groupable.map((c) => [c.name, `by ${c.entity || c.label.toLowerCase()}`])];
      const pick = select("reading-group", "Breakdown", items, chip.value, (v) =>
        edited({ group_by: v ? [{ column: v }] : [], share: v ? query.share : false }),
      );
      chips.push(chipElement("", [pick, ...rankingControls(query, model, edited), showAll(reading, model.max_rows, edited)]));
    } else if (chip.field === "filters") {
      const index = filterIndex++;
      const rule = (query.filters || [])[index];
      const values = rule && rule.column && columns.get(rule.column)?.values;
      if (values && rule.values.length === 1 && ["in", "not_in"].includes(rule.op)) {
        const title = columns.get(rule.column).label;
        const items = [["", `any ${title.toLowerCase()}`], ...values.map((v) => [v, `${rule.op === "in" ? "" : "not "}${v}`])];
        const pick = select("reading-filter", title, items, rule.values[0], (v) => {
          const filters = (query.filters || []).map((r, i) => (i === index ? { ...r, values: [v] } : r));
          edited({ filters: filters.filter((r, i) => i !== index || v) });
        });
        chips.push(control(pick));
      } else {
        chips.push(chipElement(chip.label));
      }
    } else if (chip.field === "window") {
      const current = query.window ? `${query.window.start}..${query.window.end}` : "";
      const items = [["", "all time"], ...model.periods.map((p) => [p.value, p.label])];
      if (current && !items.some(([v]) => v === current)) items.splice(1, 0, [current, chip.label]);
      const pick = select("reading-period", "Period", items, current, (v) => {
        const [start, end] = v ? v.split("..") : [];
        edited({ window: v ? { start, end } : null, compare: null });
      });
      chips.push(control(pick));
    } else {
      chips.push(chipElement(chip.label));
    }
  }
  return chips;
}

/** Highest ↔ lowest first, and how many groups are shown. */
function rankingControls(query, model, edited) {
  if (!(query.group_by || []).length) return [];
  const order = query.order === "asc" ? "asc" : "desc";
  const words = { desc: "highest", asc: "lowest" };
  const toggle = el("button", {
    className: "btn btn-ghost btn-small chip-toggle",
    text: `${words[order]} first`,
    testid: "reading-order",
    attrs: { type: "button", "aria-label": `Order: ${words[order]} first. Switch.` },
  });
  toggle.addEventListener("click", () => edited({ order: order === "desc" ? "asc" : "desc" }));
  const rows = Array.from({ length: model.max_rows }, (_, i) => [String(i + 1), String(i + 1)]);
  const limit = select("reading-limit", "Rows", rows, String(query.limit || 10), (v) => edited({ limit: Number(v) }));
  return [toggle, limit];
}

async function change(query, chips, tool = "analyze_sales") {
  const sessionId = state.currentSessionId;
  if (!sessionId) return;
  for (const control of chips.querySelectorAll("select, button")) control.disabled = true;
  setStatus("Computing the changed reading…", "busy");
  try {
    await api("POST", sessionPath(sessionId, "/readings"), { query, tool });
    setStatus(""); // the new turn comes on the live feed, like any turn
  } catch (error) {
    if (!isAbort(error)) setStatus(`The reading was not changed: ${error.message}`, "error");
  }
}
