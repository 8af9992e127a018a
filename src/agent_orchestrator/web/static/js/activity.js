// A chat's activity for its owner (docs/architecture.md#session-activity): "Activity" beside the
// exports lists what happened to the chat, newest first, from the server's audit log: created,
// answered (on which device, from where, by which server), branched, rewound, stopped, exported,
// shared, and its links' views, others' without a name. Built with textContent only.

import { api, isAbort, sessionPath } from "./api.js";
import { closePanel, el, panelToggle, show } from "./dom.js";
import { state } from "./state.js";
import { setStatus } from "./status.js";

/** The "Activity" button of the open chat's actions. */
export function activityButton() {
  return panelToggle("Activity", "activity-open", "activity-panel", openActivity);
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
    const where = [step.details.device, step.address, step.details.server && `server ${step.details.server}`]
      .filter(Boolean)
      .join(" · ");
    const extra = step.details.parent ? ` (from “${step.details.parent}”)` : "";
    return el("li", { testid: "activity-step" }, [
      el("time", { text: new Date(step.at).toLocaleString(), attrs: { datetime: step.at } }),
      el("span", { className: "activity-label", text: ` ${step.label}${extra} — ${step.by}` }),
      where ? el("span", { className: "activity-where", text: ` (${where})` }) : null,
    ]);
  });
  const refused = activity.refused
    ? el("p", { testid: "activity-refused", text: `Refused attempts by others: ${activity.refused}.` })
    : null;
  panel.replaceChildren(el("h3", { text: "Activity" }), refused, el("ol", { className: "activity-list" }, items));
  show(panel, true);
}
