// A running import's progress and its report, on the Data page (admins). The job runs on the server;
// this page polls it twice a second (docs/architecture.md#the-data-page says why polling), so a reload
// or a second tab simply picks it up again, and stops when the job ends.

import { ApiError, api, isAbort } from "./api.js";
import { $, el, setText, show } from "./dom.js";
import { DASH, fmtDecimal, fmtNumber } from "./format.js";

const POLL_MS = 500;
const SAMPLE_LINES = 5;
const REASONS_SHOWN = 8;

let timer = null;
let followed = null; // the job id being polled
let onEnded = () => {};

/** Called when a followed import ends (the data page then reloads its facts and versions). */
export function onImportEnded(handler) {
  onEnded = handler;
}

function fmtSeconds(seconds) {
  if (seconds === null || seconds === undefined) return DASH;
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

function renderProgress(job) {
  show($("import-progress"), true);
  $("import-source").textContent = job.source_name;
  const p = job.progress;
  const bar = $("import-bar");
  if (p) bar.value = Math.min(100, p.percent);
  else bar.removeAttribute("value"); // indeterminate until the first progress
  $("import-numbers").textContent = p
    ? `${fmtNumber(p.rows_read)} rows read · ${fmtNumber(Math.round(p.rows_per_second))} rows/s · `
      + `${fmtSeconds(p.seconds_left)} left (${p.phase})`
    : "Starting…";
}

function fact(term, value) {
  return [el("dt", { text: term }), el("dd", { text: value })];
}

function reasonsList(byReason) {
  const entries = Object.entries(byReason || {}).sort((a, b) => b[1] - a[1]);
  return el(
    "ul",
    { className: "small", testid: "report-reasons" },
    entries.slice(0, REASONS_SHOWN).map(([reason, count]) => el("li", { text: `${reason}: ${fmtNumber(count)}` })),
  );
}

/** The first skipped lines, read from the downloadable file (text only: the cells are the file's). */
async function sampleLines(versionId) {
  try {
    const response = await fetch(`/api/datasets/versions/${versionId}/skipped.csv`, { credentials: "same-origin" });
    if (!response.ok) return null;
    const lines = (await response.text()).split(/\r?\n/).slice(1, 1 + SAMPLE_LINES).filter(Boolean);
    return el("pre", { className: "skipped-sample small", testid: "report-sample" }, [
      el("code", { text: lines.join("\n") }),
    ]);
  } catch {
    return null;
  }
}

async function renderReport(job) {
  show($("import-progress"), false);
  const box = $("import-report");
  show(box, true);
  if (job.state !== "finished") {
    const text = job.state === "cancelled" ? "The import was cancelled; the data is as it was." : job.error;
    box.replaceChildren(el("p", { className: "form-error", text, testid: "report-error", attrs: { role: "alert" } }));
    return;
  }
  const r = job.report;
  const dates = r.first_date ? `${r.first_date} to ${r.last_date}` : DASH;
  const children = [
    el("h4", { text: `Imported ${job.source_name}` }),
    el("dl", { className: "facts", testid: "report-facts" }, [
      ...fact("Rows read", fmtNumber(r.rows_read)),
      ...fact("Imported", fmtNumber(r.imported)),
      ...fact("Skipped", fmtNumber(r.skipped)),
      ...fact("Cancellations", fmtNumber(r.cancellations)),
      ...fact("Customers", fmtNumber(r.customers)),
      ...fact("Products", fmtNumber(r.products)),
      ...fact("Countries", fmtNumber(r.countries)),
      ...fact("Dates", dates),
      ...fact("Took", `${fmtDecimal(r.seconds)} s`),
    ]),
  ];
  if (r.skipped > 0) {
    children.push(el("h5", { text: "Skipped rows by reason" }), reasonsList(r.skipped_by_reason));
    const sample = await sampleLines(r.version_id);
    if (sample) children.push(el("p", { className: "muted small", text: "The first skipped lines:" }), sample);
    children.push(
      el("a", {
        className: "btn btn-ghost",
        text: "Download all skipped rows (CSV)",
        testid: "report-download",
        attrs: { href: `/api/datasets/versions/${r.version_id}/skipped.csv`, download: "" },
      }),
    );
  }
  box.replaceChildren(...children);
}

async function poll() {
  timer = null;
  let status;
  try {
    status = await api("GET", "/api/datasets/imports/current");
  } catch (error) {
    if (isAbort(error) || (error instanceof ApiError && error.status < 500)) return stopFollowing();
    timer = setTimeout(poll, POLL_MS * 4); // the server is briefly unreachable: keep trying, slower
    return;
  }
  const job = status.job;
  if (!job || job.id !== followed) return stopFollowing();
  if (job.state === "running") {
    renderProgress(job);
    timer = setTimeout(poll, POLL_MS);
    return;
  }
  followed = null;
  await renderReport(job);
  onEnded(job);
}

/** Show `job` (running: follow it until it ends; ended: its report). */
export function showJob(job) {
  stopFollowing();
  show($("import-report"), false);
  if (job.state === "running") {
    followed = job.id;
    renderProgress(job);
    timer = setTimeout(poll, POLL_MS);
  } else {
    renderReport(job);
  }
}

/** When the Data page is shown to an admin: pick up a running import (another tab's, or before a
 * reload), or say why the last one failed: one a server restart cut off is reported so by the server
 * when it starts again (docs/architecture.md#crash-safety-and-restart-recovery). */
export async function resumeImport() {
  try {
    const { job } = await api("GET", "/api/datasets/imports/current");
    if (job && (job.state === "running" || job.state === "failed") && job.id !== followed) showJob(job);
  } catch {
    /* the page still works; the next visit tries again */
  }
}

export function stopFollowing() {
  clearTimeout(timer);
  timer = null;
  followed = null;
}

async function onCancel() {
  if (!followed) return;
  const button = $("import-cancel");
  button.disabled = true;
  try {
    await api("POST", `/api/datasets/imports/${encodeURIComponent(followed)}/cancel`);
  } catch (error) {
    setText($("upload-error"), `Could not cancel: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

/** On sign-out: stop polling and drop the report. */
export function clearImport() {
  stopFollowing();
  show($("import-progress"), false);
  show($("import-report"), false);
  $("import-report").replaceChildren();
}

export function bindImportProgress() {
  $("import-cancel").addEventListener("click", onCancel);
}
