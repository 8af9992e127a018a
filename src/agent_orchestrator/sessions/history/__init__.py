"""A conversation's history as the runtime's event log (``events.jsonl``) holds it.

``transcript.py`` reads the visible conversation from the log, ``tool_results.py`` pairs the tool calls
in it with their results (for the transcript and for a turn as it streams), ``fork.py`` cuts the log
for a fork and ``versions.py`` for a turn's versions. Byte and JSON work on the log only: no I/O,
nothing of the service, so everything that reads a conversation (the service, the live feed, search,
export) can stand on it.
"""
