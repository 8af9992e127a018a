// Entry point (loaded by index.html as <script type="module">): wires each page's events, then boots.
// Plain ES modules, no framework, no build step, no external requests; the CSP is script-src 'self'.
//
// Only this module runs code when imported; every other module only declares. The modules import
// each other without cycles (tests/web/test_static_imports.py): where a lower one needs a higher one
// (the sidebar opens chats, a rejected turn resets the chat) it calls commands.js, which the binds
// below provide, and a module that shows shared state subscribes to it (state.js).

import { bindAuth, boot } from "./auth.js";
import { bindImport } from "./branching.js";
import { bindChat } from "./chat.js";
import { bindCustomer } from "./customer.js";
import { bindCustomers } from "./customers.js";
import { bindData } from "./data.js";
import { refreshRelativeTimes } from "./format.js";
import { bindSegments } from "./segments.js";
import { bindSidebar } from "./sidebar.js";
import { bindTokens } from "./tokens.js";
import { bindComposer } from "./turns.js";
import { bindViews } from "./views.js";

bindAuth();
bindViews();
bindChat();
bindSidebar();
bindComposer();
bindImport();
bindSegments();
bindCustomers();
bindCustomer();
bindData();
bindTokens();
// Relative times ("3 minutes ago") go stale: refresh their text once a minute, in place, so keyboard
// focus and an open rename form are not disturbed.
setInterval(refreshRelativeTimes, 60_000);
boot();
