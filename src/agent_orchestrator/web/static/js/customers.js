// The Customers page: customers by net revenue, filtered by segment and country, paged, with one
// customer's detail on demand. The segment filter is remembered as a preference (storage.js).

import { api, isAbort, queryString } from "./api.js";
import { $, SEARCH_DEBOUNCE_MS, debounce, el, setText, show } from "./dom.js";
import { DASH, fmtMoney, fmtNumber } from "./format.js";
import { storage } from "./storage.js";
import { setView, whenShown } from "./views.js";

const CUSTOMERS_PAGE = 50;

let offset = 0;
// Discards a page that arrives after the filters or the page changed again (out-of-order fetches).
let customersSeq = 0;

/** Opened from a segment's name on the Segments page. */
export function showCustomersOf(segment) {
  $("customers-segment").value = segment;
  storage.setPref("customerSegment", segment);
  offset = 0;
  setView("customers");
}

/** After sign-in: the segment filter the user last chose. */
export function restoreCustomerFilter() {
  $("customers-segment").value = storage.prefs().customerSegment;
}

function customerFilters() {
  return {
    segment: $("customers-segment").value,
    country: $("customers-country").value.trim(),
  };
}

async function loadCustomers() {
  const seq = ++customersSeq;
  setText($("customers-error"), "");
  const params = { ...customerFilters(), limit: CUSTOMERS_PAGE, offset };
  try {
    const page = await api("GET", `/api/retail/customers${queryString(params)}`);
    if (seq !== customersSeq) return;
    renderCustomers(page);
  } catch (error) {
    if (seq === customersSeq && !isAbort(error)) {
      setText($("customers-error"), `Could not load customers: ${error.message}`);
    }
  }
}

function customerRow(customer) {
  const open = el("button", {
    className: "link-btn",
    text: `#${customer.customer_id}`,
    attrs: { type: "button", "aria-label": `Show customer ${customer.customer_id}` },
  });
  open.addEventListener("click", () => loadCustomerDetail(customer.customer_id));
  const rfm = customer.rfm ? `${customer.rfm.r}-${customer.rfm.f}-${customer.rfm.m}` : DASH;
  return el("tr", {}, [
    el("td", {}, [open]),
    el("td", { text: customer.country }),
    el("td", { text: customer.segment }),
    el("td", { className: "num", text: fmtNumber(customer.orders) }),
    el("td", { className: "num", text: fmtMoney(customer.revenue) }),
    el("td", { text: customer.last_purchase }),
    el("td", { className: "num", text: fmtNumber(customer.recency_days) }),
    el("td", { className: "num", text: rfm, attrs: { title: "Recency-Frequency-Monetary scores, 5 = best" } }),
  ]);
}

function renderCustomers(page) {
  const body = $("customers-table").tBodies[0];
  body.replaceChildren(...page.items.map(customerRow));
  if (page.items.length === 0) {
    body.append(el("tr", {}, [el("td", { className: "muted", text: "No customers match these filters.", attrs: { colspan: 8 } })]));
  }
  const first = page.total === 0 ? 0 : page.offset + 1;
  const last = page.offset + page.items.length;
  $("customers-range").textContent = `${fmtNumber(first)}–${fmtNumber(last)} of ${fmtNumber(page.total)}`;
  $("customers-prev").disabled = page.offset === 0;
  $("customers-next").disabled = last >= page.total;
}

function pageCustomers(direction) {
  offset = Math.max(0, offset + direction * CUSTOMERS_PAGE);
  loadCustomers();
}

function onCustomerFiltersChanged() {
  storage.setPref("customerSegment", $("customers-segment").value);
  offset = 0;
  loadCustomers();
}

async function loadCustomerDetail(id) {
  const box = $("customer-detail");
  show(box, true);
  box.replaceChildren(el("p", { className: "muted", text: "Loading…" }));
  try {
    const customer = await api("GET", `/api/retail/customers/${encodeURIComponent(id)}`);
    renderCustomerDetail(customer);
  } catch (error) {
    if (!isAbort(error)) box.replaceChildren(el("p", { className: "form-error", text: error.message }));
  }
}

function renderCustomerDetail(c) {
  const facts = [
    ["Country", c.country],
    ["Segment", c.segment],
    ["Why", c.segment_reason],
    ["Orders", fmtNumber(c.orders)],
    ["Cancelled invoices", fmtNumber(c.cancellations)],
    ["Revenue", fmtMoney(c.revenue)],
    ["Average order", fmtMoney(c.avg_order_value)],
    ["First purchase", c.first_purchase],
    ["Last purchase", `${c.last_purchase} (${fmtNumber(c.recency_days)} days before the as-of date)`],
    ["Tenure (days)", fmtNumber(c.tenure_days)],
    ["RFM", c.rfm ? `R ${c.rfm.r} · F ${c.rfm.f} · M ${c.rfm.m}` : DASH],
  ];
  const list = el("dl", { className: "facts" });
  for (const [term, value] of facts) list.append(el("dt", { text: term }), el("dd", { text: value ?? DASH }));
  const products = (c.top_products || []).map((p) =>
    el("tr", {}, [
      el("td", { text: p.stock_code }),
      el("td", { text: p.description }),
      el("td", { className: "num", text: fmtNumber(p.quantity) }),
      el("td", { className: "num", text: fmtMoney(p.revenue) }),
    ]),
  );
  const close = el("button", { className: "btn btn-ghost btn-small", text: "Close", attrs: { type: "button" } });
  close.addEventListener("click", () => show($("customer-detail"), false));
  const heading = el("h3", { text: `Customer #${c.customer_id}`, attrs: { tabindex: "-1" } });
  $("customer-detail").replaceChildren(
    el("div", { className: "detail-header" }, [heading, close]),
    list,
    el("h4", { text: "Top products" }),
    el("div", { className: "table-wrap" }, [
      el("table", { className: "data-table" }, [
        el("thead", {}, [
          el("tr", {}, ["Code", "Description", "Quantity", "Revenue"].map((h, i) =>
            el("th", { text: h, className: i >= 2 ? "num" : "", attrs: { scope: "col" } }))),
        ]),
        el("tbody", {}, products),
      ]),
    ]),
  );
  heading.focus();
}

/** On sign-out: the rows and the open customer go with the user. */
export function clearCustomers() {
  $("customers-table").tBodies[0].replaceChildren();
  show($("customer-detail"), false);
}

export function bindCustomers() {
  whenShown("customers", loadCustomers);
  $("customers-filters").addEventListener("submit", (event) => event.preventDefault());
  $("customers-segment").addEventListener("change", onCustomerFiltersChanged);
  $("customers-country").addEventListener("input", debounce(onCustomerFiltersChanged, SEARCH_DEBOUNCE_MS));
  $("customers-prev").addEventListener("click", () => pageCustomers(-1));
  $("customers-next").addEventListener("click", () => pageCustomers(1));
}
