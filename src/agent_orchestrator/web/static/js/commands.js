// What the modules of the chat page ask of each other without importing each other. chat.js opens and
// closes chats and is built from the sidebar, the turns and the branching actions; they in turn open
// chats (a click in the list, a fork, a rejected turn) and list the chats again, and importing chat.js
// or sidebar.js for that would make import cycles. So they call these, and chat.js and sidebar.js
// provide them when main.js binds them at start-up (tests/web/test_static_imports.py keeps the module
// graph acyclic).

const COMMANDS = new Set(["openSession", "forgetCurrentSession", "ensureSession", "refreshMessageActions", "loadSessions", "stillOn"]);
const provided = new Map();

/** Called by the module that implements the commands (chat.js's bindChat, sidebar.js's bindSidebar). */
export function provideCommands(implementations) {
  for (const [name, command] of Object.entries(implementations)) {
    if (!COMMANDS.has(name)) throw new Error(`Unknown command: ${name}`);
    provided.set(name, command);
  }
}

function call(name, args) {
  const command = provided.get(name);
  if (!command) throw new Error(`Command ${name} called before it was provided (main.js binds it)`);
  return command(...args);
}

/** openSession(id, { silent404, reveal }): show a chat; resolves to false when it does not exist. */
export const openSession = (...args) => call("openSession", args);
/** forgetCurrentSession(): no chat open (the empty state). */
export const forgetCurrentSession = (...args) => call("forgetCurrentSession", args);
/** ensureSession(): the open chat's id, after creating one if none is open. */
export const ensureSession = (...args) => call("ensureSession", args);
/** refreshMessageActions(id): after a turn, give its stored messages their actions. */
export const refreshMessageActions = (...args) => call("refreshMessageActions", args);
/** loadSessions({ append }): list the chats again (sidebar.js). */
export const loadSessions = (...args) => call("loadSessions", args);
/** stillOn(id): the chat is open and the user has not asked for another since (a click still loading). */
export const stillOn = (...args) => call("stillOn", args);
