// The Customers page: customers by net revenue, filtered by segment and country, paged; a customer's
// id opens their page (customer.js). The segment filter is remembered as a preference (storage.js).
// Revenue is written in the dataset's currency, from its facts (GET /api/datasets) fetched with each page.

import { api, isAbort, queryString } from "./api.js";
import { $, SEARCH_DEBOUNCE_MS, debounce, el, setText } from "./dom.js";
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
    const [page, facts] = await Promise.all([
      api("GET", `/api/retail/customers${queryString(params)}`),
      api("GET", "/api/datasets"),
    ]);
    if (seq !== customersSeq) return;
    renderCustomers(page, facts.money);
  } catch (error) {
    if (seq === customersSeq && !isAbort(error)) {
      setText($("customers-error"), `Could not load customers: ${error.message}`);
    }
  }
}

function customerRow(customer, money) {
  const open = el("a", {
    className: "customer-link",
    text: `#${customer.customer_id}`,
    attrs: { href: `#customer/${customer.customer_id}`, "aria-label": `Show customer ${customer.customer_id}` },
  });
  const rfm = customer.rfm ? `${customer.rfm.r}-${customer.rfm.f}-${customer.rfm.m}` : DASH;
  return el("tr", {}, [
    el("td", {}, [open]),
    el("td", { text: customer.country }),
    el("td", { text: customer.segment }),
    el("td", { className: "num", text: fmtNumber(customer.orders) }),
    el("td", { className: "num", text: fmtMoney(customer.revenue, money) }),
    el("td", { text: customer.last_purchase }),
    el("td", { className: "num", text: fmtNumber(customer.recency_days) }),
    el("td", { className: "num", text: rfm, attrs: { title: "Recency-Frequency-Monetary scores, 5 = best" } }),
  ]);
}

function renderCustomers(page, money) {
  const body = $("customers-table").tBodies[0];
  body.replaceChildren(...page.items.map((customer) => customerRow(customer, money)));
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

/** On sign-out: the rows go with the user. */
export function clearCustomers() {
  $("customers-table").tBodies[0].replaceChildren();
}

export function bindCustomers() {
  whenShown("customers", loadCustomers);
  $("customers-filters").addEventListener("submit", (event) => event.preventDefault());
  $("customers-segment").addEventListener("change", onCustomerFiltersChanged);
  $("customers-country").addEventListener("input", debounce(onCustomerFiltersChanged, SEARCH_DEBOUNCE_MS));
  $("customers-prev").addEventListener("click", () => pageCustomers(-1));
  $("customers-next").addEventListener("click", () => pageCustomers(1));
}
