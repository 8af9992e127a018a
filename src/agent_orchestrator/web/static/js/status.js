// The status line under the open chat: one short sentence of what is going on ("Thinking…") or went
// wrong, shown by every module of the chat page.

import { $ } from "./dom.js";

export function setStatus(text, kind = "") {
  const line = $("status-line");
  line.textContent = text || "";
  line.dataset.kind = kind;
}
