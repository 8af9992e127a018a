// One customer's page: the key figures, a purchase timeline (revenue and orders per month) and their
// top products, each chart with its figures as a table. It is addressed by the URL's hash,
// #customer/<id>: the Customers table, customer charts and customer ids in chat answers (linked by
// the server, web/customer_links.py) are plain links to it, and a reload or the back button keeps it.
// Amounts are in the dataset's currency, from its facts (GET /api/datasets) fetched with the customer.

import { api, isAbort, queryString } from "./api.js";
import { chartFigure, destroyCharts } from "./charts.js";
import { $, el, scrollingTable, setText } from "./dom.js";
import { DASH, fmtMoney, fmtNumber } from "./format.js";
import { state } from "./state.js";
import { setView, whenShown } from "./views.js";

const HASH = /^#customer\/(\d{1,9})$/;
const TIMELINE_MONTHS = 24;

// Discards a customer that arrives after another one was opened.
let customerSeq = 0;
// The page a customer was opened from (a chat answer, the Customers table), for "Back".
let returnView = null;

const customerIdFromHash = () => HASH.exec(window.location.hash)?.[1] ?? null;

/** The view to show after sign-in: a customer's page when the URL names one, else the preference. */
export function initialView(preferred) {
  if (customerIdFromHash()) return "customer";
  return preferred === "customer" ? "customers" : preferred;
}

function onHashChange() {
  if (!state.user) return;
  if (customerIdFromHash()) {
    if (state.view !== "customer") returnView = state.view;
    setView("customer");
  } else if (state.view === "customer") {
    goBack(); // the browser's back button
  }
}

function goBack() {
  setView(returnView ?? "customers");
  returnView = null;
}

async function loadCustomer() {
  const id = customerIdFromHash();
  if (!id) {
    setView("customers");
    return;
  }
  const seq = ++customerSeq;
  const body = $("customer-body");
  $("customer-title").textContent = `Customer #${id}`;
  setText($("customer-error"), "");
  destroyCharts(body);
  body.replaceChildren(el("p", { className: "muted", text: "Loading…" }));
  try {
    const path = `/api/retail/customers/${id}`;
    const [customer, trend, facts] = await Promise.all([
      api("GET", path),
      api("GET", `${path}/trend${queryString({ months: TIMELINE_MONTHS })}`),
      api("GET", "/api/datasets"),
    ]);
    if (seq !== customerSeq) return;
    renderCustomer(customer, trend, facts.money);
  } catch (error) {
    if (seq !== customerSeq || isAbort(error)) return;
    body.replaceChildren();
    setText($("customer-error"), error.status === 404 ? `There is no customer #${id}.` : error.message);
  }
}

function tile(label, value, note) {
  return el("div", { className: "tile" }, [
    el("span", { className: "tile-label", text: label }),
    el("span", { className: "tile-value", text: value }),
    note ? el("span", { className: "tile-note", text: note }) : null,
  ]);
}

function keyFigures(c, money) {
  return el("div", { className: "tiles", testid: "customer-figures" }, [
    tile("Revenue", fmtMoney(c.revenue, money), `${fmtNumber(c.orders)} orders`),
    tile("Average order", fmtMoney(c.avg_order_value, money)),
    tile("Last purchase", c.last_purchase, `${fmtNumber(c.recency_days)} days before the as-of date`),
    tile("Customer since", c.first_purchase, `${fmtNumber(c.tenure_days)} days`),
    tile("RFM", c.rfm ? `${c.rfm.r} · ${c.rfm.f} · ${c.rfm.m}` : DASH, "recency · frequency · money, 5 = best"),
    tile("Cancelled invoices", fmtNumber(c.cancellations)),
  ]);
}

function timelineChart(trend, money) {
  const points = trend.months || [];
  return chartFigure({
    kind: "bar",
    money,
    horizontal: false,
    title: `Purchases per month since ${points[0]?.month ?? "the first purchase"}`,
    category: "Month",
    labels: points.map((p) => p.month),
    series: [
      { label: "Revenue", unit: "money", values: points.map((p) => p.revenue) },
      { label: "Orders", unit: "count", values: points.map((p) => p.orders), axis: "right" },
    ],
  });
}

function productsChart(products, money) {
  return chartFigure(
    {
      kind: "bar",
      money,
      title: "Top products by revenue",
      category: "Product",
      labels: products.map((p) => p.description),
      series: [{ label: "Revenue", unit: "money", values: products.map((p) => p.revenue) }],
    },
    { table: false }, // the products table below has these figures and more
  );
}

function productsTable(products, money) {
  const head = ["Code", "Description", "Quantity", "Revenue"].map((h, i) =>
    el("th", { text: h, className: i >= 2 ? "num" : "", attrs: { scope: "col" } }),
  );
  const rows = products.map((p) =>
    el("tr", {}, [
      el("td", { text: p.stock_code }),
      el("td", { text: p.description }),
      el("td", { className: "num", text: fmtNumber(p.quantity) }),
      el("td", { className: "num", text: fmtMoney(p.revenue, money) }),
    ]),
  );
  const table = el("table", { className: "data-table", testid: "customer-products" }, [
    el("caption", { className: "visually-hidden", text: "Top products by revenue" }),
    el("thead", {}, [el("tr", {}, head)]),
    el("tbody", {}, rows),
  ]);
  return scrollingTable(table, "Top products by revenue");
}

function renderCustomer(c, trend, money) {
  const products = c.top_products || [];
  const badge = el("span", { className: "segment-badge", text: c.segment, testid: "customer-segment" });
  badge.dataset.segment = c.segment;
  $("customer-body").replaceChildren(
    el("p", { className: "customer-summary" }, [
      badge,
      el("span", { text: ` ${c.country} · ${c.segment_reason}` }),
    ]),
    keyFigures(c, money),
    el("section", { className: "card", attrs: { "aria-label": "Purchase timeline" } }, [timelineChart(trend, money)]),
    el("section", { className: "card", attrs: { "aria-label": "Top products" } }, [
      products.length ? productsChart(products, money) : el("p", { className: "muted", text: "No products bought." }),
      products.length ? productsTable(products, money) : null,
    ]),
  );
  $("customer-title").focus();
}

/** On sign-out: the open customer goes with the user. */
export function clearCustomer() {
  destroyCharts($("customer-body"));
  $("customer-body").replaceChildren();
  returnView = null;
}

export function bindCustomer() {
  whenShown("customer", loadCustomer);
  window.addEventListener("hashchange", onHashChange);
  $("customer-back").addEventListener("click", (event) => {
    event.preventDefault();
    goBack();
  });
}
