"""Durable, owned conversations on the Copilot runtime (docs/architecture.md#sessions).

The names below are what a front end needs (the web app imports them from here): the service and how
to build it, the actions beside it, and the types their answers come in. The rest is in subpackages,
each a concern, imported in this order (each only from those before it):

* ``store/``: the persistent layer (catalog, audit, leases, users, usage, live events, migrations);
* ``history/``: a conversation as the runtime's event log holds it (transcript, tool results, forks);
* ``search/``: full-text search over the messages, and the words the sealed search stems;
* ``crypto/``: encryption at rest (frames, keys, the cipher and its blind terms, sealed exports);
* ``files/``: the runtime's session files, every backend (local, sealed local, PostgreSQL);
* ``turns/``: sending a turn (the stream, warm sessions, holds, usage);
* ``live/``: the live feeds (in-process fan-out, PostgreSQL announcements);
* ``service.py``: ``SessionService``, then ``actions/`` on top of it (branching, readings, exchange);
* ``composition.py``: ``compose()``, building all of that from settings, for the web app and the commands;
* ``ops/``: the operator's commands (``python -m agent_orchestrator.sessions``).

``ids.py`` (the id policy) is under all of them. Names are imported lazily, so that importing a
subpackage (the store, the id policy) does not load the runtime.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .actions.branching import MAX_REWIND, Branching
    from .actions.exchange import Exchange
    from .actions.readings import Readings, ToolAnswer
    from .composition import Sessions, Storage, compose, open_storage
    from .files.postgres import PostgresSessionFiles
    from .history.tool_results import ToolResult
    from .history.transcript import TranscriptMessage
    from .live.feed import LiveHub, Reset, describe
    from .ops.admin import purge_sessions
    from .service import Actor, SessionService, Transcript
    from .turns.stream import TurnEvent
    from .turns.usage import UsageKeeper

__all__ = [
    "MAX_REWIND",
    "Actor",
    "Branching",
    "Exchange",
    "LiveHub",
    "PostgresSessionFiles",
    "Readings",
    "Reset",
    "SessionService",
    "Sessions",
    "Storage",
    "ToolAnswer",
    "ToolResult",
    "Transcript",
    "TranscriptMessage",
    "TurnEvent",
    "UsageKeeper",
    "compose",
    "describe",
    "open_storage",
    "purge_sessions",
]

_LAZY = {
    "MAX_REWIND": "actions.branching",
    "Branching": "actions.branching",
    "Exchange": "actions.exchange",
    "Readings": "actions.readings",
    "ToolAnswer": "actions.readings",
    "Sessions": "composition",
    "Storage": "composition",
    "compose": "composition",
    "open_storage": "composition",
    "PostgresSessionFiles": "files.postgres",
    "ToolResult": "history.tool_results",
    "TranscriptMessage": "history.transcript",
    "LiveHub": "live.feed",
    "Reset": "live.feed",
    "describe": "live.feed",
    "purge_sessions": "ops.admin",
    "Actor": "service",
    "SessionService": "service",
    "Transcript": "service",
    "TurnEvent": "turns.stream",
    "UsageKeeper": "turns.usage",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        from importlib import import_module

        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(name)
