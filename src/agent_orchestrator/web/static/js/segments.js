// The Segments page: revenue and retention per customer segment, the shares as a chart beside the
// table, a segment's monthly trend as a line chart, and the rules that assign them. Read-only and
// refetched each time the tab is shown, with the dataset's facts (GET /api/datasets), whose money
// format writes every amount in the dataset's currency as it is now; a segment's name opens its customers.

import { api, isAbort, queryString } from "./api.js";
import { chartFigure, destroyCharts } from "./charts.js";
import { showCustomersOf } from "./customers.js";
import { $, el, setText } from "./dom.js";
import { fmtDecimal, fmtMoney, fmtNumber, fmtPercent } from "./format.js";
import { SEGMENTS } from "./storage.js";
import { whenShown } from "./views.js";

// Discards a trend that arrives after the segment or the months changed again.
let trendSeq = 0;

async function loadSegments() {
  setText($("segments-error"), "");
  loadTrend();
  try {
    const [data, facts] = await Promise.all([api("GET", "/api/retail/segments"), api("GET", "/api/datasets")]);
    renderSegments(data, facts.money);
  } catch (error) {
    if (!isAbort(error)) setText($("segments-error"), `Could not load segments: ${error.message}`);
  }
}

/** Replace a chart container's figure (releasing the old chart's canvas). */
function showChart(box, figure) {
  destroyCharts(box);
  box.replaceChildren(...(figure ? [figure] : []));
}

function shareChart(segments) {
  // The table beside it has the same shares, so the figure needs no table of its own.
  const spec = {
    kind: "bar",
    horizontal: false,
    title: "Share of customers and of revenue",
    category: "Segment",
    labels: segments.map((s) => s.segment),
    series: [
      { label: "Customer share", unit: "share", values: segments.map((s) => s.customer_share ?? s.share) },
      { label: "Revenue share", unit: "share", values: segments.map((s) => s.revenue_share) },
    ],
  };
  return chartFigure(spec, { table: false, onPick: (index) => showCustomersOf(segments[index].segment) });
}

async function loadTrend() {
  const seq = ++trendSeq;
  const segment = $("trend-segment").value;
  const months = $("trend-months").value;
  setText($("trend-error"), "");
  try {
    const path = `/api/retail/segments/${encodeURIComponent(segment)}/trend${queryString({ months })}`;
    const [trend, facts] = await Promise.all([api("GET", path), api("GET", "/api/datasets")]);
    if (seq !== trendSeq) return;
    $("trend-meta").textContent = `${fmtNumber(trend.customers)} customers are in ${trend.segment} now; `
      + "their revenue, orders and active buyers per month.";
    showChart($("segments-trend-chart"), trendChart(trend, facts.money));
  } catch (error) {
    if (seq === trendSeq && !isAbort(error)) setText($("trend-error"), `Could not load the trend: ${error.message}`);
  }
}

function trendChart(trend, money) {
  const points = trend.months || [];
  return chartFigure({
    kind: "line",
    money,
    title: `${trend.segment}: revenue, orders and buyers per month`,
    category: "Month",
    labels: points.map((p) => p.month),
    series: [
      { label: "Revenue", unit: "money", values: points.map((p) => p.revenue) },
      { label: "Orders", unit: "count", values: points.map((p) => p.orders), axis: "right" },
      { label: "Buyers", unit: "count", values: points.map((p) => p.active_customers), axis: "right" },
    ],
  });
}

function segmentRow(summary, money, { isTotal = false } = {}) {
  const nameCell = el(isTotal ? "th" : "td", { attrs: { scope: isTotal ? "row" : null } });
  if (!isTotal && SEGMENTS.includes(summary.segment)) {
    // Jump to the customers of this segment.
    const link = el("button", { className: "link-btn", text: summary.segment, attrs: { type: "button" } });
    link.addEventListener("click", () => showCustomersOf(summary.segment));
    nameCell.append(link);
  } else {
    nameCell.textContent = summary.segment;
  }
  // The response model names it customer_share; accept "share" too.
  const share = summary.customer_share ?? summary.share;
  const cells = [
    fmtNumber(summary.customers),
    fmtPercent(share),
    fmtMoney(summary.revenue, money),
    fmtPercent(summary.revenue_share),
    fmtNumber(summary.orders),
    fmtMoney(summary.avg_order_value, money),
    fmtDecimal(summary.avg_recency_days),
    fmtPercent(summary.repeat_rate),
    fmtPercent(summary.retention_rate),
  ].map((text) => el("td", { className: "num", text }));
  return el("tr", { className: isTotal ? "total" : "" }, [nameCell, ...cells]);
}

function renderSegments(data, money) {
  const table = $("segments-table");
  table.tBodies[0].replaceChildren(...(data.segments || []).map((s) => segmentRow(s, money)));
  table.tFoot.replaceChildren(...(data.overall ? [segmentRow(data.overall, money, { isTotal: true })] : []));
  const segments = data.segments || [];
  showChart($("segments-share-chart"), segments.length ? shareChart(segments) : null);
  $("segments-meta").textContent = data.as_of
    ? `As of ${data.as_of} (the latest purchase in the data; recency is measured to this date).`
    : "No purchases in the dataset yet.";
  renderRules(data.rules, money);
}

function renderRules(rules, money) {
  const box = $("segments-rules");
  if (!rules) {
    box.replaceChildren();
    return;
  }
  const items = (rules.rules || []).map((rule) => el("li", { text: rule }));
  box.replaceChildren(
    el("h3", { text: "How customers are segmented" }),
    el("p", {
      className: "muted",
      text: `Rules apply in order; the first match wins. At Risk = no purchase in ${rules.active_days} days; `
        + `High Value = active repeat buyer spending more than ${fmtMoney(rules.high_value_above, money)}.`,
    }),
    el("ol", {}, items),
  );
}

/** On sign-out: the table rows go with the user. */
export function clearSegments() {
  $("segments-table").tBodies[0].replaceChildren();
  showChart($("segments-share-chart"), null);
  showChart($("segments-trend-chart"), null);
}

export function bindSegments() {
  whenShown("segments", loadSegments);
  $("trend-controls").addEventListener("submit", (event) => event.preventDefault());
  $("trend-segment").addEventListener("change", loadTrend);
  $("trend-months").addEventListener("change", loadTrend);
}
