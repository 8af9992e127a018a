"""What the tools of a turn returned, kept with the answer they led to.

A chart under an answer must show the data the tool returned, never numbers the model wrote, and it
must survive a reload and show on another device. The runtime's event log already holds every tool
call (``tool.execution_start``: name, server, arguments) and its result (``tool.execution_complete``:
success, content), so the transcript pairs them up here instead of keeping a copy anywhere else
(docs/architecture.md#charts). The live stream builds the same records from the SDK's events.

A tool call that came with an imported chat is not this server's: its "result" is whatever the file
said. Such calls carry a marked call id (:func:`imported_call_id`), and their results are kept apart
(:meth:`ToolCalls.take_imported`), so that nothing shown as our tools' data (charts, readings,
customer links) can be made from them (docs/architecture.md#export-and-import).
"""

import uuid
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolResult:
    """One successful tool call: ``tool`` is the server's own name (``monthly_trend``), not the
    runtime's ``<server>-<tool>`` id; ``content`` is the result text exactly as the tool answered."""

    tool: str
    server: str | None
    arguments: dict[str, Any]
    content: str


@dataclass
class ToolCalls:
    """Pairs starts with completions by call id; the finished results wait for the answer they feed."""

    _started: dict[str, tuple[str, str | None, dict[str, Any]]] = field(default_factory=dict)
    _finished: list[ToolResult] = field(default_factory=list)
    _imported: list[ToolResult] = field(default_factory=list)

    def started(self, call_id: str, tool: str, server: str | None, arguments: Any) -> None:
        self._started[call_id] = (tool, server, arguments if isinstance(arguments, dict) else {})

    def finished(self, call_id: str, success: bool, content: str | None) -> None:
        """Keep a successful result with text; a failed call or an unknown id has nothing to show. An
        imported call's result is kept apart from this server's."""
        start = self._started.pop(call_id, None)
        if start is None or not success or not content:
            return
        tool, server, arguments = start
        kept = self._imported if is_imported_call(call_id) else self._finished
        kept.append(ToolResult(tool, server, arguments, content))

    def take(self) -> tuple[ToolResult, ...]:
        """This server's results finished since the last take (they belong to the answer now being
        written); imported ones are :meth:`take_imported`'s."""
        taken = tuple(self._finished)
        self._finished.clear()
        return taken

    def take_imported(self) -> tuple[ToolResult, ...]:
        """The imported results finished since the last take: text to show as imported, never data."""
        taken = tuple(self._imported)
        self._imported.clear()
        return taken

    def drop(self) -> None:
        """A new prompt: anything unclaimed belonged to a turn that never answered."""
        self._started.clear()
        self._finished.clear()
        self._imported.clear()


# The call ids an import gives the tool calls it brings (docs/architecture.md#export-and-import). The
# mark is the id itself, because the id is what the runtime keeps of a call whatever it rewrites (a
# rewind) and what a fork copies: no field of ours to lose on the way.
IMPORTED_CALL_PREFIX = "imported_"


def imported_call_id() -> str:
    """A new call id for an imported tool call: the OpenAI shape (letters, digits, ``_``), marked."""
    return f"{IMPORTED_CALL_PREFIX}{uuid.uuid4().hex[:24]}"


def is_imported_call(call_id: str) -> bool:
    """Whether a tool call came with an imported chat (its result is the file's word, not our tool's)."""
    return call_id.startswith(IMPORTED_CALL_PREFIX)
