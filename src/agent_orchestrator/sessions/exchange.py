"""Moving conversations in and out: export as our JSON (lossless) or Markdown, import our JSON or a
ChatGPT ``conversations.json`` as new owned sessions the runtime resumes and the model remembers.

Why it works this way (docs/architecture.md#export-and-import):

* **Lossless = the runtime's own log.** Our JSON carries the raw ``events.jsonl`` next to the catalog
  row and a readable transcript. Importing it writes those events, verbatim, behind a fresh
  ``session.start`` of a new session, so the runtime resumes it exactly as it was (tool calls
  included). The import gets a new id, a generated public id and a fresh runtime id: the original
  may still exist, also in the importer's own namespace.
* **Public ids only.** An export names the session by the id its owner knows
  (docs/architecture.md#session-ids); the runtime's id appears only where the runtime wrote it, in its
  own ``session.start``.
* **Foreign chats become runtime events.** A ChatGPT conversation (the path from its current node up
  to the root of its message tree) becomes the events the runtime itself writes for a plain turn:
  ``user.message``, ``assistant.turn_start``, ``assistant.message``, ``assistant.turn_end``, chained
  by ``parentId``. The runtime replays them to the model like its own (checked with CLI 1.0.102).
* **All or nothing.** The whole file is parsed and checked before anything is created; a bad file
  gets one error naming the line (our JSON's event log) or the conversation (ChatGPT). If creating
  one of several sessions fails, the ones already created are deleted again.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.sessions.branching import record_history
from agent_orchestrator.sessions.search import SearchIndex
from agent_orchestrator.sessions.service import Actor, SessionService
from agent_orchestrator.sessions.store import SessionRecord, validate_title
from agent_orchestrator.sessions.transcript import log_timestamp, parse_events

EXPORT_FORMAT = 1
IMPORTED_TITLE = "Imported chat"
MAX_CONVERSATIONS = 1_000
_TEXT_TYPES = ("text", "multimodal_text")


@dataclass(frozen=True)
class Conversation:
    """One conversation to import: its title and its events after ``session.start`` (decoded)."""

    title: str
    events: list[dict[str, Any]]
    source: str  # "agent-orchestrator" or "chatgpt", for the audit trail


class Exchange:
    """Export and import for an :class:`Actor`: owner-checked, audited (``export``, ``import``)."""

    def __init__(self, service: SessionService, search: SearchIndex) -> None:
        self.service = service
        self.search_index = search

    async def export(self, actor: Actor, public_id: str, *, markdown: bool = False) -> dict[str, Any] | str:
        """The caller's session as our JSON document, or as Markdown."""
        record = await self.service.get(actor, public_id)
        raw = await self.service.files.read_events(record.id) or b""
        event = self.service._event(
            "export", actor, record, details={"as": "markdown" if markdown else "json"}
        )
        await asyncio.to_thread(self.service.audit.record, event)
        return export_markdown(record, raw) if markdown else export_document(record, raw)

    async def import_file(self, actor: Actor, data: bytes) -> list[SessionRecord]:
        """New sessions for every conversation in the file; nothing at all if any of it is bad."""
        conversations = await asyncio.to_thread(parse_import, data)  # 16 MB of JSON takes a while
        created: list[SessionRecord] = []
        try:
            for conversation in conversations:
                record = await self.service.create(actor, title=conversation.title, case_key=None)
                created.append(record)
                start = (await self.service.files.read_events(record.id) or b"").split(b"\n", 1)[0]
                log = imported_log(start, conversation)
                async with self.service.hold_lease(record.id):  # closes the new session's open copy
                    await self.service.files.write_events(record.id, log)
                messages = parse_events(log.splitlines())
                await record_history(self.service, self.search_index, record.id, actor, messages)
                details = {"source": conversation.source}
                await asyncio.to_thread(
                    self.service.audit.record,
                    self.service._event("import", actor, record, details=details),
                )
        except BaseException:
            for record in created:  # all or nothing; each deletion is audited
                await self.service.delete(actor, record.public_id)
            raise
        return [await self.service._reread(actor, record) for record in created]


# -- export ---------------------------------------------------------------------------------------


def export_document(record: SessionRecord, raw: bytes) -> dict[str, Any]:
    """One session as our JSON: catalog row, visible transcript, and the raw event log (lossless). The
    row's ``id`` is the public id, as everywhere its owner sees the session."""
    row = asdict(record) | {"id": record.public_id}
    del row["public_id"]
    return {
        "format": EXPORT_FORMAT,
        "session": {
            key: value.isoformat() if isinstance(value, datetime) else value for key, value in row.items()
        },
        # Tool results stay in "events" only, so the transcript's format is unchanged.
        "transcript": [
            {key: value for key, value in asdict(message).items() if key != "tool_results"}
            for message in parse_events(raw.splitlines())
        ],
        # The log is UTF-8 JSON lines; a torn last line after a crash may end mid-character.
        "events": raw.decode("utf-8", errors="replace"),
        "exported_at": datetime.now(UTC).isoformat(),
    }


def export_markdown(record: SessionRecord, raw: bytes) -> str:
    """The visible conversation as Markdown, for reading and sharing (not for re-import)."""
    lines = [f"# {record.title}", "", f"_Exported from AgentOrchestrator, session `{record.public_id}`._", ""]
    for message in parse_events(raw.splitlines()):
        who = "You" if message.role == "user" else "Assistant"
        stamp = f" ({message.timestamp})" if message.timestamp else ""
        note = " — _no answer_" if message.interrupted else ""
        lines += [f"### {who}{stamp}{note}", "", message.content.strip(), ""]
    return "\n".join(lines)


# -- import ---------------------------------------------------------------------------------------


def parse_import(data: bytes) -> list[Conversation]:
    """Every conversation in an uploaded file, checked whole; :class:`InvalidInputError` otherwise."""
    try:
        document = json.loads(data)
    except UnicodeDecodeError:
        raise InvalidInputError("The file is not UTF-8 text.") from None
    except json.JSONDecodeError as error:
        raise InvalidInputError(f"The file is not valid JSON (line {error.lineno}: {error.msg}).") from None
    except RecursionError:  # the parser recurses per bracket: "[[[[…" would otherwise be a 500
        raise InvalidInputError("The file nests too deeply to be an export.") from None
    if isinstance(document, dict) and "events" in document:
        return [_ours(document)]
    if isinstance(document, list):
        conversations = [c for c in _chatgpt(document) if c.events]
        if not conversations:
            raise InvalidInputError("The file holds no conversation with messages to import.")
        return conversations
    raise InvalidInputError(
        "Expected an AgentOrchestrator export (an object with 'events') or a ChatGPT conversations.json "
        "(a list of conversations)."
    )


def imported_log(start_line: bytes, conversation: Conversation) -> bytes:
    """The new session's ``events.jsonl``: its own ``session.start``, then the imported events, the
    first of them chained to that start."""
    start = json.loads(start_line)
    events = [dict(event) for event in conversation.events]
    events[0]["parentId"] = start["id"]
    body = "".join(json.dumps(event, separators=(",", ":"), ensure_ascii=False) + "\n" for event in events)
    return start_line.rstrip(b"\n") + b"\n" + body.encode()


def _ours(document: dict[str, Any]) -> Conversation:
    if document.get("format") != EXPORT_FORMAT:
        raise InvalidInputError(
            f"Unknown export format {document.get('format')!r}; expected {EXPORT_FORMAT}."
        )
    raw = document.get("events")
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidInputError("The export's 'events' must be the session's event log (JSON lines).")
    events = []
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as error:
            raise InvalidInputError(f"Event log line {number} is not valid JSON ({error.msg}).") from None
        except RecursionError:
            raise InvalidInputError(f"Event log line {number} nests too deeply.") from None
        if problem := _event_problem(event):
            raise InvalidInputError(f"Event log line {number} is not a runtime event ({problem}).")
        if number == 1 and event["type"] != "session.start":
            raise InvalidInputError("Event log line 1 must be the session.start event.")
        events.append(event)
    if len(events) < 2:
        raise InvalidInputError("The export's event log holds no conversation.")
    session = document.get("session")
    title = session.get("title") if isinstance(session, dict) else None
    return Conversation(_title(title), events[1:], "agent-orchestrator")


# What the transcript reader (``transcript.parse_events``) and the pages built on it take from an
# event, with the types the runtime writes (the first one named in an error): an imported log is read
# like the runtime's own, so a field of another type would fail every later read of the session. No
# text may hold U+0000, which PostgreSQL cannot store (its search rows and preview are text).
_EVENT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "user.message": {"content": (str,)},
    "assistant.message": {"content": (str,)},
    "tool.execution_start": {
        "toolCallId": (str,),
        "toolName": (str,),
        "mcpToolName": (str, type(None)),
        "mcpServerName": (str, type(None)),
    },
    "tool.execution_complete": {"toolCallId": (str,), "result": (dict, type(None))},
}
_TYPE_NAMES: dict[type, str] = {str: "a string", dict: "an object"}


def _event_problem(event: Any) -> str | None:
    """What keeps ``event`` from being read as a runtime event, if anything."""
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        return "no type or id"
    if not isinstance(event.get("id"), str) or not event["id"]:
        return "no type or id"
    if not isinstance(event.get("timestamp", ""), str):
        return "timestamp is not a string"
    data = event.get("data", {})
    if not isinstance(data, dict):
        return "its data is not an object"
    for name, types in _EVENT_FIELDS.get(event["type"], {}).items():
        if name in data and not isinstance(data[name], types):
            return f"data.{name} is not {_TYPE_NAMES[types[0]]}"
        if isinstance(data.get(name), str) and "\x00" in data[name]:
            return f"data.{name} contains a NUL character (U+0000)"
    result = data.get("result") or {}
    if event["type"] == "tool.execution_complete" and not isinstance(result.get("content", ""), str):
        return "data.result.content is not a string"
    return None


def _chatgpt(items: list[Any]) -> Iterator[Conversation]:
    if len(items) > MAX_CONVERSATIONS:
        raise InvalidInputError(f"At most {MAX_CONVERSATIONS} conversations per file.")
    for number, item in enumerate(items, start=1):
        where = f"Conversation {number}"
        if not isinstance(item, dict) or not isinstance(item.get("mapping"), dict):
            raise InvalidInputError(f"{where} is not a ChatGPT conversation (no 'mapping').")
        title = _title(item.get("title"))
        try:
            messages = list(_chatgpt_path(item["mapping"], item.get("current_node")))
        except (KeyError, TypeError, ValueError) as error:
            raise InvalidInputError(f"{where} ({title!r}) is malformed: {error}.") from None
        yield Conversation(title, _turn_events(messages), "chatgpt")


def _chatgpt_path(mapping: dict[str, Any], current: Any) -> Iterator[tuple[str, str, float | None]]:
    """(role, text, time) of the conversation shown: from the current node up to the root, reversed.
    Anything of the wrong type is a :class:`ValueError` naming the node."""
    for key, node in mapping.items():
        if not isinstance(node, dict):
            raise ValueError(f"node {key!r} is not an object")
    if current is None:  # older exports: the last node without children
        current = next((key for key, node in mapping.items() if not node.get("children")), None)
    if not isinstance(current, str | None):
        raise ValueError("its current_node is not a node id")
    path: list[tuple[str, dict[str, Any]]] = []
    seen: set[str] = set()
    while current is not None:
        if current in seen:
            raise ValueError("its message tree has a cycle")
        seen.add(current)
        node = mapping[current]
        path.append((current, node))
        current = node.get("parent")
        if not isinstance(current, str | None):
            raise ValueError(f"node {path[-1][0]!r} has a parent that is not a node id")
    for key, node in reversed(path):
        message = _object(node.get("message"), f"node {key!r} has a message")
        author = _object(message.get("author"), f"node {key!r} has an author")
        content = _object(message.get("content"), f"node {key!r} has content")
        if author.get("role") not in ("user", "assistant") or content.get("content_type") not in _TEXT_TYPES:
            continue
        parts = content.get("parts") or []
        if not isinstance(parts, list):
            raise ValueError(f"node {key!r} has parts that are not a list")
        text = "\n".join(part for part in parts if isinstance(part, str)).strip()
        if "\x00" in text:
            raise ValueError(f"node {key!r} has text with a NUL character (U+0000)")
        if text:
            yield author["role"], text, _create_time(message.get("create_time"), key)


def _object(value: Any, what: str) -> dict[str, Any]:
    """``value`` if it is an object, ``{}`` if it is missing or empty; else a :class:`ValueError`."""
    if not value:
        return {}
    if not isinstance(value, dict):
        raise ValueError(f"{what} that is not an object")
    return value


def _create_time(stamp: Any, key: str) -> float | None:
    """A message's ``create_time`` (Unix seconds) if it has one, checked to be a time we can write:
    JSON may hold ``NaN`` or ``1e300``, which no date is."""
    if stamp is None or isinstance(stamp, bool) or not isinstance(stamp, int | float):
        return None
    try:
        datetime.fromtimestamp(stamp, UTC)
    except (OverflowError, OSError, ValueError):
        raise ValueError(f"node {key!r} has a create_time that is no time ({stamp!r})") from None
    return float(stamp)


def _turn_events(messages: list[tuple[str, str, float | None]]) -> list[dict[str, Any]]:
    """The runtime's events for plain turns; answers before the first question have no turn to go in."""
    events: list[dict[str, Any]] = []
    turn = -1
    for role, text, stamp in messages:
        at = _iso(stamp)
        if role == "user":
            if turn >= 0:
                events.append(_event("assistant.turn_end", {"turnId": str(turn)}, at))
            turn += 1
            events.append(_event("user.message", {"content": text}, at))
            events.append(_event("assistant.turn_start", {"turnId": str(turn)}, at))
        elif turn >= 0:
            data = {"messageId": str(uuid.uuid4()), "content": text, "toolRequests": []}
            events.append(_event("assistant.message", data, at))
    if turn >= 0:
        events.append(_event("assistant.turn_end", {"turnId": str(turn)}, events[-1]["timestamp"]))
    for previous, event in itertools.pairwise(events):
        event["parentId"] = previous["id"]
    return events


def _event(kind: str, data: dict[str, Any], at: str) -> dict[str, Any]:
    return {"type": kind, "data": data, "id": str(uuid.uuid4()), "timestamp": at, "parentId": None}


def _iso(stamp: float | None) -> str:
    return log_timestamp(datetime.fromtimestamp(stamp, UTC) if stamp is not None else datetime.now(UTC))


def _title(value: Any) -> str:
    if isinstance(value, str) and value.strip():
        try:
            return validate_title(" ".join(value.split())[:120])
        except InvalidInputError:
            pass
    return IMPORTED_TITLE
