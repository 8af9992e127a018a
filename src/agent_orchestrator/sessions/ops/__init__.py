"""The operator's side of stored sessions: what runs outside a user's request.

``admin.py``: export one session, import a file for a user, rebuild the search index, purge past
retention (docs/architecture.md#retention); ``sealing.py``: seal what was stored in clear before a
master key was set (docs/architecture.md#sealing-existing-sessions); ``cli.py``: the commands of
``python -m agent_orchestrator.sessions``, a thin shell over both.
"""
