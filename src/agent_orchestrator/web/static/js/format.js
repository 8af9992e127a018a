// How numbers, money, dates and chat titles are shown, in the browser's locale. One place, so the
// sidebar, the transcript and the retail tables format the same value the same way.

import { el } from "./dom.js";

const numberFmt = new Intl.NumberFormat(undefined);
const moneyFmt = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const percentFmt = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });
const decimalFmt = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });
const relativeFmt = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
const dateTimeFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export const DASH = "—";
export const fmtNumber = (v) => (v === null || v === undefined ? DASH : numberFmt.format(v));
/**
 * An amount with two decimals in the dataset's currency: `money` is the API's { prefix, suffix }
 * (GET /api/datasets, a chart spec), the server's one convention for answers, pages and charts
 * ("£1,234.50", "1,234.50 CHF"); none given, no currency is printed.
 */
export function fmtMoney(v, money) {
  if (v === null || v === undefined) return DASH;
  return inCurrency(v, money, moneyFmt.format(Math.abs(v)));
}
/** `digits` (the amount's size, already formatted) signed and in the currency, as fmtMoney writes it. */
export function inCurrency(v, money, digits) {
  const text = `${money?.prefix ?? ""}${digits}${money?.suffix ?? ""}`;
  return v < 0 ? `-${text}` : text;
}
export const fmtPercent = (v) => (v === null || v === undefined ? DASH : percentFmt.format(v));
export const fmtDecimal = (v) => (v === null || v === undefined ? DASH : decimalFmt.format(v));

/** Accepts ISO strings or epoch numbers (seconds or milliseconds); null when unparseable. */
function toDate(value) {
  if (value === null || value === undefined || value === "") return null;
  const date = typeof value === "number" ? new Date(value < 1e12 ? value * 1000 : value) : new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function relativeTime(value) {
  const date = toDate(value);
  if (!date) return "";
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const steps = [
    [60, "second"],
    [60, "minute"],
    [24, "hour"],
    [7, "day"],
    [4.35, "week"],
    [12, "month"],
    [Infinity, "year"],
  ];
  let amount = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(amount) < size) {
      return unit === "second" && Math.abs(amount) < 45 ? "just now" : relativeFmt.format(Math.round(amount), unit);
    }
    amount /= size;
  }
  return "";
}

/** Rewrites every relative time on the page in place; called once a minute, as they go stale. */
export function refreshRelativeTimes() {
  for (const node of document.querySelectorAll("time[datetime]")) {
    node.textContent = relativeTime(node.getAttribute("datetime"));
  }
}

export function timeElement(value, className) {
  const date = toDate(value);
  if (!date) return null;
  return el("time", {
    className,
    text: relativeTime(value),
    attrs: { datetime: date.toISOString(), title: dateTimeFmt.format(date) },
  });
}

export const sessionTitle = (session) => (session && session.title ? session.title : "Untitled chat");
