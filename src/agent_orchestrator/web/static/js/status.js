// The status lines: the one under the open chat, one short sentence of what is going on ("Thinking…")
// or went wrong, shown by every module of the chat page; and the chat list's own, for what organising
// the chats did, read where it was done (on a phone the open list covers the chat's line).

import { $, el, show } from "./dom.js";

export function setStatus(text, kind = "") {
  tell($("status-line"), text, kind);
}

export function setListStatus(text, kind = "", undo = null) {
  const line = $("list-status");
  tell(line, text, kind, undo);
  show(line, Boolean(text));
}

/** ``undo``: a change that is easily taken back says so with an "Undo" button after the sentence,
 * which runs ``undo`` once; the next status replaces both. */
function tell(line, text, kind, undo = null) {
  line.textContent = text || "";
  line.dataset.kind = kind;
  if (!undo) return;
  const button = el("button", { className: "link-btn", text: "Undo", testid: "status-undo", attrs: { type: "button" } });
  button.addEventListener("click", () => {
    button.disabled = true;
    undo();
  });
  line.append(" ", button);
}
