"""Cheap timestamp parsing for the Copilot SDK's event decoding (docs/architecture.md#warm-sessions).

The SDK decodes every notification the runtime sends, some thirty per turn, and parses each one's
timestamp with ``dateutil.parser.parse``: a parser that guesses among many formats and costs ~75 µs a
call. Profiled under 100 concurrent users, that was a quarter of a busy server's Python time. The
runtime sends ISO 8601 (``2026-11-30T18:40:48.123Z``), which ``datetime.fromisoformat`` reads in well
under a microsecond, and reads more exactly: ``Z`` becomes UTC, where dateutil answers the local zone
when the machine's zone happens to be called UTC.

:func:`install` puts that fast path in front of the SDK's parsers; anything ``fromisoformat`` refuses
still goes to the SDK's own parser, so no timestamp is read differently or lost.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from datetime import datetime
from typing import Any

# The modules whose ``from_datetime`` the SDK's decoding calls: the generated event and RPC types, and
# the client's lifecycle events (which import the RPC one by name).
SDK_PARSERS = ("copilot.generated.session_events", "copilot.generated.rpc", "copilot.client")
_FAST = "_agent_orchestrator_fast"


def fast_parser(original: Callable[[Any], datetime]) -> Callable[[Any], datetime]:
    """``original`` behind an ISO 8601 fast path."""

    def from_datetime(value: Any) -> datetime:
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value)
            except ValueError:
                pass
        return original(value)

    setattr(from_datetime, _FAST, True)
    return from_datetime


def install() -> None:
    """Put the fast path in front of the SDK's timestamp parsers (idempotent).

    Raises ``RuntimeError`` if an SDK upgrade moved a parser, so the speed-up cannot vanish unnoticed
    (the pinned SDK is tested against this)."""
    for name in SDK_PARSERS:
        module = importlib.import_module(name)
        original = getattr(module, "from_datetime", None)
        if not callable(original):
            raise RuntimeError(f"{name}.from_datetime is gone: revisit runtime/sdk_timestamps.py")
        if not getattr(original, _FAST, False):
            module.from_datetime = fast_parser(original)  # type: ignore[attr-defined]
