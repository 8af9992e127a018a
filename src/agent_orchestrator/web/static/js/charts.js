// Charts: one spec shape for every chart in the app, drawn with Chart.js, always with its table.
//
// A spec is { kind: "line" | "bar", title, category, labels, series: [{ label, unit, values, axis }],
// customer_ids?, money? } (category names what the labels are: "Month", "Customer"…; money is the
// currency's { prefix, suffix } for the "money" series, on the axis, the tooltip and the table):
// the server sends it under a chat answer (web/charts.py, from what the turn's tools returned) and the
// retail pages build it from the API. Chart.js is a classic script served from our own origin
// (/vendor/chart.umd.min.js, pinned in package-lock.json; docs/architecture.md#charts); it draws on a
// canvas and sizes it through the CSSOM, which the CSP's style-src 'self' allows. Every chart has
// its figures as a table under it (screen readers, copying numbers, and a browser without the script).

import { el, scrollingTable } from "./dom.js";
import { fmtMoney, fmtNumber, fmtPercent, inCurrency } from "./format.js";

// Distinct in hue and lightness, readable on white; the first is the app's accent.
const COLORS = ["#2f5fd0", "#e07b39", "#1e9e6a", "#8e5bd0", "#c2417a"];
const FORMAT = { count: fmtNumber, share: fmtPercent };
const compactFmt = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });
const percentTickFmt = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 0 });

const formatOf = (unit, money) => (unit === "money" ? (v) => fmtMoney(v, money) : FORMAT[unit] || fmtNumber);

/** An axis' tick: short ("£1.2K"), in the currency for money, the same way as fmtMoney. */
function tickOf(unit, money) {
  if (unit === "share") return (v) => percentTickFmt.format(v);
  if (unit !== "money") return (v) => compactFmt.format(v);
  return (v) => inCurrency(v, money, compactFmt.format(Math.abs(v)));
}

/** Bar charts of many labels read better sideways (long product names, customer ids). */
const isHorizontal = (spec) => spec.kind === "bar" && spec.horizontal !== false;

function datasets(spec) {
  return spec.series.map((series, index) => {
    const color = COLORS[index % COLORS.length];
    // In a bar chart a right-axis series (orders beside revenue) is drawn as a line over the bars.
    const asLine = spec.kind === "line" || series.axis === "right";
    return {
      type: asLine ? "line" : "bar",
      label: series.label,
      data: series.values,
      unit: series.unit,
      yAxisID: isHorizontal(spec) ? undefined : series.axis === "right" ? "right" : "left",
      borderColor: color,
      backgroundColor: asLine ? color : `${color}cc`,
      borderWidth: asLine ? 2 : 0,
      borderRadius: asLine ? 0 : 4,
      pointRadius: asLine ? 3 : undefined,
      pointHoverRadius: asLine ? 5 : undefined,
      tension: spec.kind === "line" ? 0.25 : 0,
      order: asLine ? 0 : 1, // lines in front of bars
    };
  });
}

/** Long names (products) are shortened on the axis, to fit a phone; the tooltip and table have them whole. */
function shortLabel(value) {
  const label = String(this.getLabelForValue(value));
  const room = this.chart.width < 500 ? 16 : 32;
  return label.length > room ? `${label.slice(0, room - 1)}…` : label;
}

function scales(spec) {
  const grid = { color: "#e6e9ee" };
  const ticks = { color: "#5b6573" };
  const units = (axis) => spec.series.filter((s) => (s.axis || "left") === axis).map((s) => s.unit);
  if (isHorizontal(spec)) {
    const unit = spec.series[0].unit;
    return {
      x: { beginAtZero: true, grid, ticks: { ...ticks, callback: tickOf(unit, spec.money) } },
      y: { grid: { display: false }, ticks: { ...ticks, autoSkip: false, callback: shortLabel } },
    };
  }
  const result = { x: { grid: { display: false }, ticks } };
  for (const axis of ["left", "right"]) {
    const unitsHere = units(axis);
    if (!unitsHere.length) continue;
    result[axis] = {
      position: axis,
      beginAtZero: true,
      grid: axis === "left" ? grid : { display: false },
      ticks: { ...ticks, callback: tickOf(unitsHere[0], spec.money) },
    };
  }
  return result;
}

function chartConfig(spec, onPick) {
  const horizontal = isHorizontal(spec);
  return {
    type: spec.kind === "line" ? "line" : "bar",
    data: { labels: spec.labels, datasets: datasets(spec) },
    options: {
      indexAxis: horizontal ? "y" : "x",
      responsive: true,
      maintainAspectRatio: false,
      animation: window.matchMedia("(prefers-reduced-motion: reduce)").matches ? false : { duration: 300 },
      interaction: { mode: "index", intersect: false },
      scales: scales(spec),
      plugins: {
        legend: {
          display: spec.series.length > 1,
          position: "bottom",
          // In the spec's order, although lines are drawn over bars.
          labels: { boxWidth: 12, sort: (a, b) => a.datasetIndex - b.datasetIndex },
        },
        tooltip: {
          callbacks: {
            label: (item) => `${item.dataset.label}: ${formatOf(item.dataset.unit, spec.money)(item.raw)}`,
          },
        },
      },
      onClick: onPick
        ? (_event, elements) => {
            if (elements.length) onPick(elements[0].index);
          }
        : undefined,
      onHover: onPick
        ? (event, elements) => {
            event.native.target.style.cursor = elements.length ? "pointer" : "default";
          }
        : undefined,
    },
  };
}

/** Charts of customers open the clicked one's page (customer.js routes #customer/<id>). */
function customerPicker(spec) {
  if (!spec.customer_ids) return undefined;
  return (index) => {
    window.location.hash = `customer/${spec.customer_ids[index]}`;
  };
}

/** One sentence for screen readers: what is shown, and the range it spans. */
function summary(spec) {
  const first = spec.labels[0];
  const last = spec.labels[spec.labels.length - 1];
  const what = spec.series.map((s) => s.label.toLowerCase()).join(", ");
  return `${spec.kind === "line" ? "Line" : "Bar"} chart of ${what}, ${spec.labels.length} points `
    + `from ${first} to ${last}. The same figures are in the table below.`;
}

function labelCell(spec, index) {
  const id = spec.customer_ids?.[index];
  if (id === undefined || id === null) return el("th", { text: spec.labels[index], attrs: { scope: "row" } });
  const link = el("a", { text: spec.labels[index], className: "customer-link", attrs: { href: `#customer/${id}` } });
  return el("th", { attrs: { scope: "row" } }, [link]);
}

function dataTable(spec) {
  const head = el("tr", {}, [
    el("th", { text: spec.category || "", attrs: { scope: "col" } }),
    ...spec.series.map((s) => el("th", { text: s.label, className: "num", attrs: { scope: "col" } })),
  ]);
  const rows = spec.labels.map((_label, index) =>
    el("tr", {}, [
      labelCell(spec, index),
      ...spec.series.map((s) => el("td", { className: "num", text: formatOf(s.unit, spec.money)(s.values[index]) })),
    ]),
  );
  return el("table", { className: "data-table", testid: "chart-table" }, [
    el("caption", { className: "visually-hidden", text: spec.title }),
    el("thead", {}, [head]),
    el("tbody", {}, rows),
  ]);
}

/**
 * A <figure> with the chart and its table. `onPick(index)` is called when a bar or point is clicked
 * (e.g. open that customer). `table: false` when the page shows the same figures in a table beside
 * it already. Without Chart.js (not installed) the table is shown open instead.
 */
export function chartFigure(spec, { onPick = customerPicker(spec), table = true } = {}) {
  const canvas = el("canvas", { attrs: { role: "img", "aria-label": `${spec.title}. ${summary(spec)}` } });
  const frame = el("div", { className: "chart-frame" }, [canvas]);
  if (isHorizontal(spec)) frame.style.height = `${Math.max(160, spec.labels.length * 30 + 50)}px`;
  const details = el("details", { className: "chart-data" }, [
    el("summary", { text: "Show the figures as a table" }),
    scrollingTable(dataTable(spec), `${spec.title}: the figures`),
  ]);
  const figure = el("figure", { className: "chart", testid: "chart" }, [
    el("figcaption", { className: "chart-title", text: spec.title }),
    frame,
    table ? details : null,
  ]);
  if (spec.tool) figure.dataset.tool = spec.tool;
  if (typeof window.Chart === "function") {
    // Chart.js waits for the canvas to be attached before it measures it, so this works detached too.
    new window.Chart(canvas, chartConfig(spec, onPick));
  } else {
    frame.hidden = true;
    details.open = true;
  }
  return figure;
}

/** Release the chart's canvas and listeners before its figure is thrown away or redrawn. */
export function destroyCharts(root) {
  if (typeof window.Chart !== "function") return;
  for (const canvas of root.querySelectorAll("figure.chart canvas")) window.Chart.getChart(canvas)?.destroy();
}

/** The charts under a chat answer: what the turn's tools returned, never the model's own numbers. */
export function answerCharts(charts) {
  if (!Array.isArray(charts) || charts.length === 0) return null;
  return el("div", { className: "answer-charts" }, charts.map((spec) => chartFigure(spec)));
}
