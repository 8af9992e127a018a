// A chat's activity for its owner (docs/architecture.md#session-activity): "Activity" beside the
// exports lists what happened to the chat, newest first, from the server's audit log: created,
// answered (on which device, from where, by which server), branched, rewound, stopped, exported,
// shared, and its links' views, others' without a name; above them, the attempts by others that
// were refused, counted by kind with their times (never who tried). Built with textContent only.

import { api, isAbort, sessionPath } from "./api.js";
import { $, closePanel, el, panelToggle, show } from "./dom.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";

/** The "Activity" button of the open chat's actions. */
export function activityButton() {
  return panelToggle("Activity", "activity-open", "activity-panel", openActivity);
}

/** Open the list of the open chat (its menu in the list asks for it). */
export function showActivity() {
  const panel = $("activity-panel");
  if (panel.hidden) openActivity(panel);
}

/** Another chat is opened: the list was about the old one. */
export function closeActivity() {
  closePanel("activity-panel");
}

async function openActivity(panel) {
  const sessionId = state.currentSessionId;
  if (!sessionId) return;
  let activity;
  try {
    activity = await api("GET", sessionPath(sessionId, "/activity"));
  } catch (error) {
    if (!isAbort(error)) setStatus(`Could not read the chat's activity: ${error.message}`, "error");
    return;
  }
  if (state.currentSessionId !== sessionId) return;
  const items = activity.steps.map((step) => {
    const where = [step.details.token && `via token '${step.details.token}'`, step.details.device, step.address, step.details.server && `server ${step.details.server}`]
      .filter(Boolean)
      .join(" · ");
    const extra = step.details.parent
      ? ` (from “${step.details.parent}”)`
      : step.details.child
        ? ` (“${step.details.child}”)`
        : Number(step.details.views) > 1
          ? ` (${step.details.views} views)` // folded views of a share link (docs/architecture.md#share-links)
          : "";
    return el("li", { testid: "activity-step" }, [
      el("time", { text: new Date(step.at).toLocaleString(), attrs: { datetime: step.at } }),
      el("span", { className: "activity-label", text: ` ${step.label}${extra} — ${step.by}` }),
      where ? el("span", { className: "activity-where", text: ` (${where})` }) : null,
    ]);
  });
  const parts = [el("h3", { text: "Activity" }), refusedSummary(activity), el("ol", { className: "activity-list" }, items)];
  panel.replaceChildren(...parts.filter(Boolean));
  show(panel, true);
}

/** Refused attempts by others, one line per kind: how many, the last time, and every time on demand. */
function refusedSummary(activity) {
  if (!activity.refused) return null;
  const when = (at) => new Date(at).toLocaleString();
  const kinds = activity.refusals.map((kind) =>
    el("li", { testid: "activity-refusal" }, [
      el("span", { text: `${kind.label}: ${kind.count} (last ${when(kind.last_at)})` }),
      el("details", {}, [
        el("summary", { text: "Times" }),
        el(
          "ul",
          { className: "activity-times" },
          kind.times.map((at) => el("li", {}, [el("time", { text: when(at), attrs: { datetime: at } })])),
        ),
      ]),
    ]),
  );
  return el("section", { testid: "activity-refused", className: "activity-refused" }, [
    el("p", { text: `Refused attempts by others: ${activity.refused}.` }),
    el("ul", { className: "activity-list" }, kinds),
  ]);
}
