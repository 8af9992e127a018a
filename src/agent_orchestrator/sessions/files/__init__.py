"""The runtime's session files, every backend of the ``SessionFiles`` protocol in one place.

* ``local.py``: the runtime's own ``COPILOT_HOME`` folders (one server, no master key);
* ``sealed.py``: the same on local disk, sealed, through the SDK's ``session_fs`` hook (one server,
  with a master key: docs/architecture.md#encryption-at-rest);
* ``postgres/``: every server's files in PostgreSQL, through the hook (shared mode:
  docs/architecture.md#the-session_fs-hook), sealed too with a master key;
* ``paths.py``: the virtual layout and path rules both hook stores share;
* ``deployment.py``: the one choice among them, for the web app and every command.

The protocols themselves (``SessionFiles``, ``SessionFileStore``, ``hook_store``) stay in
``agent_orchestrator.runtime.session_files``: the runtime takes a ``SessionFileStore`` and imports
nothing of ``sessions`` (imports point down only), while these backends need the session store's
pieces and its encryption, which sit above the runtime.
"""
