"""Moving conversations in and out: export as our JSON (lossless) or Markdown, import our JSON or a
ChatGPT ``conversations.json`` as new owned sessions the runtime resumes and the model remembers.

Why it works this way (docs/architecture.md#export-and-import):

* **Lossless out, checked in.** Our JSON carries the raw ``events.jsonl`` next to the catalog row and
  a readable transcript. A file is the uploader's, though, not this server's log: importing it keeps
  only the conversation's own events (messages, model rounds, tool calls with their results), each
  rebuilt from the fields we know with new ids, chained behind a fresh ``session.start`` of a new
  session, so the runtime resumes the conversation and the model remembers it, but nothing else of
  the file reaches the runtime (a model change, a system message, a hook, a sub-agent, a field we do
  not read). Its tool calls get call ids that mark them imported, and nothing this server shows as
  its tools' data (charts, readings, customer links) is made from them: the file, not our tools,
  says what they returned. The import gets a new id, a generated public id and a fresh runtime id: the
  original may still exist, also in the importer's own namespace.
* **Versions go out, not in.** The versions of a turn an edit or a regenerate kept
  (docs/architecture.md#versions-of-a-turn) are exported with their transcripts and events; an import
  makes the conversation as shown, without them (a file's versions are not ours to vouch for).
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
* **Ten files an hour.** Parsing up to 16 MB and creating up to 100 runtime sessions is the costliest
  request a user can repeat at will, so each user's imports are counted in the audit trail
  (``import_file``, before the file is read: a bad file costs the parse too) and the eleventh within
  an hour is refused before anything is done (:class:`~agent_orchestrator.errors.ImportThrottledError`,
  429 with ``Retry-After``). The operator's CLI is not limited.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from agent_orchestrator.errors import ImportThrottledError, InvalidInputError
from agent_orchestrator.sessions.actions.branching import record_history
from agent_orchestrator.sessions.history.tool_results import imported_call_id
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, log_timestamp, parse_events
from agent_orchestrator.sessions.history.versions import anchors
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.service import Actor, SessionService
from agent_orchestrator.sessions.store import SessionRecord, one_line, validate_title
from agent_orchestrator.sessions.store.turn_versions import KeptVersions, TurnVersions

EXPORT_FORMAT = 1
IMPORTED_TITLE = "Imported chat"
# Each conversation becomes a session the runtime creates and saves, within the one request, and a
# failure deletes them all again: a file of a thousand holds a request (and the runtime) for minutes.
MAX_CONVERSATIONS = 100
MAX_IMPORTS_PER_HOUR = 10
IMPORT_PERIOD = timedelta(hours=1)
_TEXT_TYPES = ("text", "multimodal_text")
_TOOL_FIELDS = ("tool_results", "imported_tool_results")


@dataclass(frozen=True)
class Conversation:
    """One conversation to import: its title and its events after ``session.start`` (decoded)."""

    title: str
    events: list[dict[str, Any]]
    source: str  # "agent-orchestrator" or "chatgpt", for the audit trail


class Exchange:
    """Export and import for an :class:`Actor`: owner-checked, audited (``export``, ``import``)."""

    def __init__(
        self,
        service: SessionService,
        search: SearchIndex,
        versions: TurnVersions,
        *,
        imports_per_hour: int | None = MAX_IMPORTS_PER_HOUR,
    ) -> None:
        """``imports_per_hour``: how many files one user may import an hour (``None``: any number, for
        the operator's CLI)."""
        self.service = service
        self.search_index = search
        self.versions = versions
        self.imports_per_hour = imports_per_hour

    async def export(
        self, actor: Actor, public_id: str, *, markdown: bool = False, figures: Figures | None = None
    ) -> tuple[str, dict[str, Any] | str]:
        """The caller's session's title, and the session as our JSON document or as Markdown (with
        ``figures``: the tables of what an answer's tools returned, under it)."""
        record = await self.service.get(actor, public_id)
        raw = await self.service.files.read_events(record.id) or b""
        event = self.service.event(
            "export", actor, record, details={"as": "markdown" if markdown else "json"}
        )
        await asyncio.to_thread(self.service.audit.record, event)
        kept = await asyncio.to_thread(self.versions.tails, record.id)
        if markdown:
            return record.title, export_markdown(record, raw, figures, versions=kept)
        return record.title, export_document(record, raw, versions=kept)

    async def import_file(self, actor: Actor, data: bytes) -> list[SessionRecord]:
        """New sessions for every conversation in the file; nothing at all if any of it is bad, or if
        the user has imported as many files as the hour allows."""
        await self._count_import(actor, data)
        conversations = await asyncio.to_thread(parse_import, data)  # 16 MB of JSON takes a while
        return await self._import_all(actor, conversations)

    async def import_log(self, actor: Actor, title: str, raw: bytes, *, source: str) -> SessionRecord:
        """A new session of the caller's holding the conversation of an event log of ours (a shared
        snapshot, from this server's store, never from a user), rebuilt as an import rebuilds it but
        with its tool calls' ids kept: their results are our tools' (or marked imported already)."""
        document = {
            "format": EXPORT_FORMAT,
            "session": {"title": title},
            "events": raw.decode("utf-8", "replace"),
        }
        conversation = replace(await asyncio.to_thread(_ours, document, our_log=True), source=source)
        (record,) = await self._import_all(actor, [conversation])
        return record

    async def _import_all(self, actor: Actor, conversations: list[Conversation]) -> list[SessionRecord]:
        """A new session for each conversation, or none at all if one fails."""
        created: list[SessionRecord] = []
        try:
            for conversation in conversations:
                await self._import_one(actor, conversation, created)
        except BaseException:
            for record in created:  # all or nothing; each deletion is audited
                await self.service.delete(actor, record.public_id)
            raise
        return [await self.service._reread(actor, record) for record in created]

    async def _import_one(
        self, actor: Actor, conversation: Conversation, created: list[SessionRecord]
    ) -> None:
        """One conversation as a new session (added to ``created`` as soon as it exists, so a failure
        later on can delete it); audited ``import``."""
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
            self.service.event("import", actor, record, details=details),
        )

    async def _count_import(self, actor: Actor, data: bytes) -> None:
        """Audit the file as ``import_file``, or refuse it when the user's hour is full."""
        event = self.service.event("import_file", actor, None, details={"bytes": str(len(data))})
        if self.imports_per_hour is None:
            await asyncio.to_thread(self.service.audit.record, event)
            return
        wait = await asyncio.to_thread(
            self.service.audit.record_at_most, event, self.imports_per_hour, IMPORT_PERIOD
        )
        if wait is not None:
            seconds = math.ceil(wait.total_seconds())
            raise ImportThrottledError(
                f"At most {self.imports_per_hour} imports an hour; the next can start in "
                f"{max(1, math.ceil(seconds / 60))} minute(s).",
                retry_after=seconds,
            )


# -- export ---------------------------------------------------------------------------------------


def export_document(
    record: SessionRecord, raw: bytes, *, versions: KeptVersions | None = None
) -> dict[str, Any]:
    """One session as our JSON: catalog row, visible transcript, the raw event log (lossless), and the
    kept versions of its turns. The row's ``id`` is the public id, as everywhere its owner sees the
    session."""
    row = asdict(record) | {"id": record.public_id, "tags": list(record.tags)}
    del row["public_id"]
    return {
        "format": EXPORT_FORMAT,
        "session": {
            key: value.isoformat() if isinstance(value, datetime) else value for key, value in row.items()
        },
        "transcript": [_exported(message) for message in parse_events(raw.splitlines())],
        # The log is UTF-8 JSON lines; a torn last line after a crash may end mid-character.
        "events": raw.decode("utf-8", errors="replace"),
        # A turn is named by the event id of the message before its question ("": the first turn);
        # the version shown is in "transcript", the others' tails of the log are here.
        "versions": [
            {
                "anchor": anchor,
                "shown": _shown(kept),
                "kept": [
                    {
                        "number": number,
                        "transcript": [_exported(message) for message in parse_events(tail.splitlines())],
                        "events": tail.decode("utf-8", errors="replace"),
                    }
                    for number, tail in kept
                    if tail is not None
                ],
            }
            for anchor, kept in (versions or {}).items()
        ],
        "exported_at": datetime.now(UTC).isoformat(),
    }


def _shown(kept: list[tuple[int, bytes | None]]) -> int:
    """The number of a turn's version the log holds (the one kept without a tail)."""
    return next((number for number, tail in kept if tail is None), 0)


def _exported(message: TranscriptMessage) -> dict[str, Any]:
    """A transcript message as the export writes it: tool results stay in the events only, so the
    transcript's format is unchanged; "stopped" is only on an answer that was stopped."""
    return {
        key: value
        for key, value in asdict(message).items()
        if key not in _TOOL_FIELDS and (key != "stopped" or value)
    }


Figures = Callable[[TranscriptMessage], list[str]]
"""The Markdown tables of what an answer's tools returned (its charts' figures)."""


def export_markdown(
    record: SessionRecord, raw: bytes, figures: Figures | None = None, *, versions: KeptVersions | None = None
) -> str:
    """The visible conversation as Markdown, for reading and sharing (not for re-import); under an
    answer, its charts' figures as tables (``figures``); a question with versions says which one is
    shown, and the others follow the conversation, each under its own heading."""
    lines = [f"# {record.title}", "", f"_Exported from AgentOrchestrator, session `{record.public_id}`._", ""]
    messages = parse_events(raw.splitlines())
    turns = {asked: (versions or {}).get(anchor) for asked, anchor in anchors(messages).items()}
    others: list[str] = []
    for message in messages:
        kept = turns.get(message.event_id) if message.role == "user" else None
        said = f" — _version {_shown(kept)} of {len(kept)}_" if kept else ""
        lines += _markdown_message(message, figures, said)
        for number, tail in kept or []:
            if tail is not None:
                others += [f"## Version {number} of “{one_line(message.content)[:80]}”", ""]
                for earlier in parse_events(tail.splitlines()):
                    others += _markdown_message(earlier, figures, "")
    return "\n".join(lines + others)


def _markdown_message(message: TranscriptMessage, figures: Figures | None, version: str) -> list[str]:
    who = "You" if message.role == "user" else "Assistant"
    stamp = f" ({message.timestamp})" if message.timestamp else ""
    note = " — _no answer_" if message.interrupted else " — _stopped_" if message.stopped else ""
    lines = [f"### {who}{stamp}{note}{version}", "", message.content.strip(), ""]
    for table in figures(message) if figures is not None else []:
        lines += [table, ""]
    return lines


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


def _ours(document: dict[str, Any], *, our_log: bool = False) -> Conversation:
    """Our export format's conversation; ``our_log``: its events are this server's own (a shared
    snapshot), so tool calls keep their ids (:func:`_rebuilt`)."""
    if document.get("format") != EXPORT_FORMAT:
        raise InvalidInputError(
            f"Unknown export format {document.get('format')!r}; expected {EXPORT_FORMAT}."
        )
    raw = document.get("events")
    if not isinstance(raw, str) or not raw.strip():
        raise InvalidInputError("The export's 'events' must be the session's event log (JSON lines).")
    events: list[tuple[int, dict[str, Any]]] = []
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
        events.append((number, event))
    conversation = _rebuilt(events[1:], keep_call_ids=our_log)
    if not conversation:
        raise InvalidInputError("The export's event log holds no conversation.")
    session = document.get("session")
    title = session.get("title") if isinstance(session, dict) else None
    return Conversation(_title(title), conversation, "agent-orchestrator")


# The events an import keeps: what the runtime writes for the conversation itself (CLI 1.0.102: the
# user's messages, the model's rounds and messages, its tool calls and their results). Everything else
# in a log is the runtime's own state, settings or bookkeeping (``session.*`` such as a model change,
# a compaction's summary or usage records, ``system.message``, hooks, sub-agents, permissions, custom
# events), which the runtime would replay or act on as if this server had written it: an import must
# not set them from a file. The new session's ``session.start`` is the runtime's, written on create.
KEPT_EVENTS = (
    "user.message",
    "assistant.turn_start",
    "assistant.turn_end",
    "assistant.message",
    "tool.execution_start",
    "tool.execution_complete",
)

# What the transcript reader (``transcript.parse_events``) and the pages built on it take from an
# event, and what an import rebuilds an event from, with the types the runtime writes (the first one
# named in an error): an imported log is read like the runtime's own, so a field of another type would
# fail every later read of the session. No text may hold U+0000, which PostgreSQL cannot store (its
# search rows and preview are text).
_EVENT_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "user.message": {"content": (str,)},
    "assistant.message": {"content": (str,), "toolRequests": (list, type(None))},
    "tool.execution_start": {
        "toolCallId": (str,),
        "toolName": (str,),
        "arguments": (dict, type(None)),
        "mcpToolName": (str, type(None)),
        "mcpServerName": (str, type(None)),
    },
    "tool.execution_complete": {
        "toolCallId": (str,),
        "success": (bool, type(None)),
        "result": (dict, type(None)),
        "error": (dict, type(None)),
    },
}
_REQUIRED: dict[str, tuple[str, ...]] = {
    "user.message": ("content",),
    "assistant.message": ("content",),
    "tool.execution_start": ("toolCallId", "toolName"),
    "tool.execution_complete": ("toolCallId",),
}
_REQUEST_FIELDS: dict[str, tuple[type, ...]] = {
    "toolCallId": (str,),
    "name": (str,),
    "arguments": (dict, type(None)),
}
_TYPE_NAMES: dict[type, str] = {str: "a string", dict: "an object", list: "a list", bool: "true or false"}


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
    for required in _REQUIRED.get(event["type"], ()):
        if required not in data:
            return f"data.{required} is missing"
    if problem := _fields_problem(data, _EVENT_FIELDS.get(event["type"], {}), "data."):
        return problem
    requests = data.get("toolRequests") if event["type"] == "assistant.message" else None
    for index, request in enumerate(requests or ()):
        where = f"data.toolRequests[{index}]"
        if not isinstance(request, dict):
            return f"{where} is not an object"
        if not isinstance(request.get("toolCallId"), str) or not isinstance(request.get("name"), str):
            return f"{where} has no toolCallId or name"
        if problem := _fields_problem(request, _REQUEST_FIELDS, f"{where}."):
            return problem
    if event["type"] == "tool.execution_complete":
        for name in ("result", "error"):
            inner = data.get(name) or {}
            text = "content" if name == "result" else "message"
            if problem := _fields_problem(inner, {text: (str,)}, f"data.{name}."):
                return problem
    return None


def _fields_problem(data: dict[str, Any], fields: dict[str, tuple[type, ...]], where: str) -> str | None:
    for name, types in fields.items():
        if name in data and not isinstance(data[name], types):
            return f"{where}{name} is not {_TYPE_NAMES[types[0]]}"
        if isinstance(data.get(name), str) and "\x00" in data[name]:
            return f"{where}{name} contains a NUL character (U+0000)"
    return None


def _rebuilt(
    events: list[tuple[int, dict[str, Any]]], *, keep_call_ids: bool = False
) -> list[dict[str, Any]]:
    """The conversation of an uploaded log as new events: only :data:`KEPT_EVENTS` of the conversation
    itself (not a sub-agent's), each rebuilt from the fields the runtime and the transcript read, with
    new ids (events, messages and, unless ``keep_call_ids``, tool calls) chained by
    ``parentId``, and its time checked (docs/architecture.md#export-and-import).

    Tool calls are kept only in pairs, a request and the result that answered it before the next user
    message, as the runtime needs them to replay the conversation to a model; each pair gets a new
    call id marking it imported (:func:`~agent_orchestrator.sessions.history.tool_results.imported_call_id`),
    unless ``keep_call_ids`` (a log of this server's own, whose results are our tools').
    Answers before the first user message have no turn to go in."""
    kept = [
        (number, event)
        for number, event in events
        if event["type"] in KEPT_EVENTS
        and not event.get("agentId")
        and not event.get("data", {}).get("parentToolCallId")
    ]
    calls = _answered_calls(kept, keep_ids=keep_call_ids)
    times = _Times()
    rebuilt: list[dict[str, Any]] = []
    turns, turn = 0, None
    for index, (number, event) in enumerate(kept):
        kind, data = event["type"], event.get("data", {})
        if kind == "user.message":
            turns, turn = 0, None
            rebuilt.append(_event(kind, {"content": data["content"]}, times.at(event, number)))
        elif not rebuilt:
            continue
        elif kind == "assistant.turn_start":
            turn, turns = str(turns), turns + 1
            rebuilt.append(_event(kind, {"turnId": turn}, times.at(event, number)))
        elif kind == "assistant.turn_end" and turn is not None:
            rebuilt.append(_event(kind, {"turnId": turn}, times.at(event, number)))
            turn = None
        elif kind == "assistant.message":
            requests = [
                {
                    "toolCallId": calls[index, request["toolCallId"]],
                    "name": request["name"],
                    "arguments": request.get("arguments") or {},
                    "type": "function",
                }
                for request in _unique_requests(data)
                if (index, request["toolCallId"]) in calls
            ]
            if data["content"] or requests:
                message = {
                    "messageId": str(uuid.uuid4()),
                    "content": data["content"],
                    "toolRequests": requests,
                }
                rebuilt.append(_event(kind, message, times.at(event, number)))
        elif kind == "tool.execution_start" and (index, data["toolCallId"]) in calls:
            started = {
                "toolCallId": calls[index, data["toolCallId"]],
                "toolName": data["toolName"],
                "arguments": data.get("arguments") or {},
            }
            for name in ("mcpServerName", "mcpToolName"):
                if isinstance(data.get(name), str):
                    started[name] = data[name]
            rebuilt.append(_event(kind, started, times.at(event, number)))
        elif kind == "tool.execution_complete" and (index, data["toolCallId"]) in calls:
            completed: dict[str, Any] = {
                "toolCallId": calls[index, data["toolCallId"]],
                "success": bool(data.get("success")),
            }
            if isinstance((data.get("result") or {}).get("content"), str):
                completed["result"] = {"content": data["result"]["content"]}
            if isinstance((data.get("error") or {}).get("message"), str):
                completed["error"] = {"message": data["error"]["message"]}
            rebuilt.append(_event(kind, completed, times.at(event, number)))
    return _chained(rebuilt)


def _unique_requests(data: dict[str, Any]) -> list[dict[str, Any]]:
    """An assistant message's tool requests, each call id once."""
    seen: set[str] = set()
    requests = []
    for request in data.get("toolRequests") or ():
        if request["toolCallId"] not in seen:
            seen.add(request["toolCallId"])
            requests.append(request)
    return requests


def _answered_calls(kept: list[tuple[int, dict[str, Any]]], *, keep_ids: bool) -> dict[tuple[int, str], str]:
    """The new call id of every tool call that was asked for and answered before the next user
    message, keyed by (index in ``kept``, the file's call id) of its request, its start and its result
    alike: the events of a call that was never answered, or answered twice, are not kept. The new id
    is marked imported, or with ``keep_ids`` the call's own."""
    calls: dict[tuple[int, str], str] = {}
    asked: dict[str, list[int]] = {}  # call id -> the indices of its request and start, until answered
    for index, (_, event) in enumerate(kept):
        kind, data = event["type"], event.get("data", {})
        if kind == "user.message":
            asked.clear()
        elif kind == "assistant.message":
            for request in _unique_requests(data):
                asked.setdefault(request["toolCallId"], [index])
        elif kind == "tool.execution_start" and len(asked.get(data["toolCallId"], ())) == 1:
            asked[data["toolCallId"]].append(index)
        elif kind == "tool.execution_complete" and data["toolCallId"] in asked:
            ours = data["toolCallId"] if keep_ids else imported_call_id()
            for where in (*asked.pop(data["toolCallId"]), index):
                calls[where, data["toolCallId"]] = ours
    return calls


class _Times:
    """Each kept event's time: the file's if it is a time (written as the runtime writes it), never
    later than now nor earlier than the event before it, so the log stays in order; an event without
    one takes the time of the one before it (or now)."""

    def __init__(self) -> None:
        self.now = datetime.now(UTC)
        self.last: datetime | None = None

    def at(self, event: dict[str, Any], number: int) -> str:
        stamp = event.get("timestamp")
        when = self.last or self.now
        if stamp:
            try:
                when = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
                when = (when if when.tzinfo else when.replace(tzinfo=UTC)).astimezone(UTC)
            except (ValueError, OverflowError):  # not a time, or one UTC cannot hold ("0001-01-01T00+01")
                raise InvalidInputError(
                    f"Event log line {number} is not a runtime event (timestamp {stamp[:40]!r} is no time)."
                ) from None
            when = min(max(when, self.last or when), self.now)
        self.last = when
        return log_timestamp(when)


def _chatgpt(items: list[Any]) -> Iterator[Conversation]:
    if len(items) > MAX_CONVERSATIONS:
        raise InvalidInputError(
            f"The file holds {len(items):,} conversations; at most {MAX_CONVERSATIONS} can be imported "
            "from one file."
        )
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
    return _chained(events)


def _chained(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``events`` chained by ``parentId``, each to the one before it (the first to the new session's
    ``session.start``, by :func:`imported_log`)."""
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
