// The Segments page: revenue and retention per customer segment, and the rules that assign them.
// Read-only and refetched each time the tab is shown; a segment's name opens its customers.

import { api, isAbort } from "./api.js";
import { showCustomersOf } from "./customers.js";
import { $, el, setText } from "./dom.js";
import { fmtDecimal, fmtMoney, fmtNumber, fmtPercent } from "./format.js";
import { SEGMENTS } from "./storage.js";
import { whenShown } from "./views.js";

async function loadSegments() {
  setText($("segments-error"), "");
  try {
    const data = await api("GET", "/api/retail/segments");
    renderSegments(data);
  } catch (error) {
    if (!isAbort(error)) setText($("segments-error"), `Could not load segments: ${error.message}`);
  }
}

function segmentRow(summary, { isTotal = false } = {}) {
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
    fmtMoney(summary.revenue),
    fmtPercent(summary.revenue_share),
    fmtNumber(summary.orders),
    fmtMoney(summary.avg_order_value),
    fmtDecimal(summary.avg_recency_days),
    fmtPercent(summary.repeat_rate),
    fmtPercent(summary.retention_rate),
  ].map((text) => el("td", { className: "num", text }));
  return el("tr", { className: isTotal ? "total" : "" }, [nameCell, ...cells]);
}

function renderSegments(data) {
  const table = $("segments-table");
  table.tBodies[0].replaceChildren(...(data.segments || []).map((s) => segmentRow(s)));
  table.tFoot.replaceChildren(...(data.overall ? [segmentRow(data.overall, { isTotal: true })] : []));
  $("segments-meta").textContent = data.as_of
    ? `As of ${data.as_of} (the latest purchase in the data; recency is measured to this date).`
    : "No purchases in the dataset yet.";
  renderRules(data.rules);
}

function renderRules(rules) {
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
        + `High Value = active repeat buyer spending more than ${fmtMoney(rules.high_value_above)}.`,
    }),
    el("ol", {}, items),
  );
}

/** On sign-out: the table rows go with the user. */
export function clearSegments() {
  $("segments-table").tBodies[0].replaceChildren();
}

export function bindSegments() {
  whenShown("segments", loadSegments);
}
