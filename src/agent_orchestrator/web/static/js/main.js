// Entry point (loaded by index.html as <script type="module">): wires each page's events, then boots.
// Plain ES modules, no framework, no build step, no external requests; the CSP is script-src 'self'.
//
// Only this module runs code when imported; every other module only declares. That is what lets the
// chat modules import each other (the sidebar opens chats, opening a chat re-renders the sidebar,
// a transcript offers Retry, a rejected turn resets the chat) without any load-order concerns.

import { bindAuth, boot } from "./auth.js";
import { bindImport } from "./branching.js";
import { bindCustomer } from "./customer.js";
import { bindCustomers } from "./customers.js";
import { refreshRelativeTimes } from "./format.js";
import { bindSegments } from "./segments.js";
import { bindSidebar } from "./sidebar.js";
import { bindComposer } from "./turns.js";
import { bindViews } from "./views.js";

bindAuth();
bindViews();
bindSidebar();
bindComposer();
bindImport();
bindSegments();
bindCustomers();
bindCustomer();
// Relative times ("3 minutes ago") go stale: refresh their text once a minute, in place, so keyboard
// focus and an open rename form are not disturbed.
setInterval(refreshRelativeTimes, 60_000);
boot();
