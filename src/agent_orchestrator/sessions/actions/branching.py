"""Branch, edit, regenerate, rewind and search a user's conversations, on top of the session service.

Every operation keeps the session contract (docs/architecture.md#branching-and-search): it starts
with :meth:`SessionService.get` (the caller's public id resolved in the caller's namespace: another
user's id is an unknown id), works on the record's runtime id from there on, is audited itself
(``fork`` on the new session and ``branched`` on its parent, ``rewind``), and changes a session's
history only while holding its lease, as a turn does.

* **Fork** creates a new owned session whose log is the parent's up to a message
  (:mod:`~agent_orchestrator.sessions.history.fork`), linked to the parent in the catalog and indexed for
  search. The parent is only read.
* **Edit** and **regenerate** make a new version of a turn, in place
  (docs/architecture.md#versions-of-a-turn): the turn's tail of the log (the question and all that
  followed) is kept in the catalog, the log is cut before the question, and the edited (or the same)
  question is asked there as a turn. **Switching** to another version puts its kept tail back in the
  log and keeps the shown one in its place. Both tell every device to draw the chat again.
* **Rewind** removes the last turns in place with the runtime's own ``session.history.truncate``
  (it rewrites the log through the session_fs hook too), then brings catalog and search index in
  line.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.sessions.history.fork import find_cut, forked_log
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, parse_events
from agent_orchestrator.sessions.history.versions import anchors, question, split_before
from agent_orchestrator.sessions.search.index import SearchHit, SearchIndex
from agent_orchestrator.sessions.service import Actor, SessionService
from agent_orchestrator.sessions.store import SessionRecord, one_line, validate_title
from agent_orchestrator.sessions.store.live_events import Batch, session_stream
from agent_orchestrator.sessions.store.turn_versions import TurnVersions, Versions
from agent_orchestrator.sessions.turn_runner import close_quietly
from agent_orchestrator.sessions.turns.stream import TurnEvent

BRANCH_SUFFIX = " (branch)"
MAX_REWIND = 1_000


@dataclass(frozen=True)
class SearchResults:
    """Sessions whose title matches, and messages whose text does; the caller's own only."""

    sessions: tuple[SessionRecord, ...]
    messages: tuple[SearchHit, ...]


class Branching:
    """Fork, edit and regenerate (versions), rewind and search, for an :class:`Actor`."""

    def __init__(self, service: SessionService, search: SearchIndex, versions: TurnVersions) -> None:
        self.service = service
        self.search_index = search
        self.versions = versions

    async def fork(
        self, actor: Actor, public_id: str, event_id: str, *, before: bool = False, title: str | None = None
    ) -> SessionRecord:
        """A new session holding the history of the caller's session ``public_id`` up to the message
        ``event_id`` (its whole turn; only what came before it with ``before``). The fork is linked to
        its parent by the parent's public id: both are the caller's, in the caller's terms."""
        parent = await self.service.get(actor, public_id)
        raw = await self.service.files.read_events(parent.id) or b""
        cut = find_cut(raw, event_id, before=before)
        name = validate_title(title) if title else _branch_title(parent.title)
        child = await self.service.create(actor, title=name, case_key=parent.case_key)
        try:
            log = forked_log(raw, cut, child.id)  # the runtime's own id in its session.start
            async with self.service.hold_lease(child.id):  # closes the new session's open copy
                await self.service.files.write_events(child.id, log)
            messages = parse_events(log.splitlines())
            await record_history(
                self.service,
                self.search_index,
                child.id,
                actor,
                messages,
                parent=(parent.public_id, event_id),
            )
        except BaseException:
            await self.service.delete(actor, child.public_id)  # audited: the "create" gets its outcome
            raise
        details = {"parent": parent.public_id, "event_id": event_id, "before": str(before).lower()}
        event = self.service.event("fork", actor, child, details=details)
        await asyncio.to_thread(self.service.audit.record, event)
        # The parent's own trail says so too: its activity is read by its runtime id, and a public id
        # in the child's details may name a later session of that id.
        made = self.service.event(
            "branched", actor, parent, details={"child": child.public_id, "event_id": event_id}
        )
        await asyncio.to_thread(self.service.audit.record, made)
        return await self.service._reread(actor, child)

    async def edit(
        self, actor: Actor, public_id: str, event_id: str, content: str
    ) -> AsyncIterator[TurnEvent]:
        """Ask ``content`` instead of the question ``event_id``, as a new version of its turn; the turn
        as it was (with what followed it) stays a version to switch back to. Refused as a send is
        before anything changes. Returns the new turn's event stream."""

        async def new_version(record: SessionRecord) -> str:
            await self._new_version(actor, record, event_id)
            return content

        return await self.service.send_prepared(actor, public_id, new_version)

    async def regenerate(self, actor: Actor, public_id: str) -> AsyncIterator[TurnEvent]:
        """Ask the last question again for a new answer, as a new version of the last turn (the old
        answer stays a version). Taken like a send (ownership, the daily budget, busy) before anything
        changes, so a refused regenerate changes nothing and no other writer comes between."""

        async def new_version(record: SessionRecord) -> str:
            return await self._new_version(actor, record, None)

        return await self.service.send_prepared(actor, public_id, new_version)

    async def switch_version(self, actor: Actor, public_id: str, event_id: str, number: int) -> SessionRecord:
        """Show version ``number`` of the turn whose question (as shown now) is ``event_id``: its kept
        tail goes back in the log, the shown one is kept in its place."""
        record = await self.service.get(actor, public_id)
        async with self.service.hold_lease(record.id):  # also closes a warm copy of the session
            raw = await self.service.files.read_events(record.id) or b""
            messages = parse_events(raw.splitlines())
            asked = question(messages, event_id)[1]
            kept, shown = split_before(raw, event_id)
            anchor = anchors(messages)[event_id]
            tail = await asyncio.to_thread(self.versions.switch, record.id, anchor, number, shown)
            if tail is None:
                return await self.service._reread(actor, record)
            log = kept + tail
            await self.service.files.write_events(record.id, log)
            await self._history_changed(actor, record, parse_events(log.splitlines()), asked)
        details = {"event_id": event_id, "number": str(number)}
        event = self.service.event("version_switch", actor, record, details=details)
        await asyncio.to_thread(self.service.audit.record, event)
        return await self.service._reread(actor, record)

    async def versions_of(self, session_id: str, messages: list[TranscriptMessage]) -> dict[str, Versions]:
        """Where each question with versions stands (the version shown, of how many), by its event id."""
        stored = await asyncio.to_thread(self.versions.of_session, session_id)
        if not stored:
            return {}
        return {asked: stored[anchor] for asked, anchor in anchors(messages).items() if anchor in stored}

    async def rewind(self, actor: Actor, public_id: str, turns: int = 1) -> SessionRecord:
        """Remove the last ``turns`` turns (question and answer) of the session, in place."""
        record = await self._rewind(actor, public_id, turns)
        return await self.service._reread(actor, record)

    async def search(self, actor: Actor, query: str, *, limit: int = 20) -> SearchResults:
        """The caller's sessions whose title contains ``query`` and messages that contain its words."""
        if not query.strip():
            return SearchResults((), ())
        titles = await self.service.list_sessions(actor, limit=min(limit, 10), search=query)
        hits = await asyncio.to_thread(self.search_index.search, actor.user.id, query, limit=limit)
        return SearchResults(titles.items, tuple(hits))

    async def _rewind(self, actor: Actor, public_id: str, turns: int) -> SessionRecord:
        """Rewind under the lease; returns the session's record (as it was before)."""
        if not 1 <= turns <= MAX_REWIND:
            raise InvalidInputError(f"Rewind 1 to {MAX_REWIND} turns.")
        record = await self.service.get(actor, public_id)
        async with self.service.hold_lease(record.id):  # also closes a warm copy of the session
            await self._truncate(actor, record, turns=turns)
        return record

    async def _truncate(self, actor: Actor, record: SessionRecord, *, turns: int) -> None:
        """Remove the last ``turns`` turns of ``record``'s session, its lease held (its warm copy
        closed)."""
        session_id = record.id
        before = await self._messages(session_id)
        questions = [m for m in before if m.role == "user" and m.event_id]
        if turns > len(questions):
            raise InvalidInputError(f"This conversation has {len(questions)} turn(s) to rewind.")
        first = questions[-turns]
        session = await self.service.runtime.resume_session(session_id)
        try:
            removed = await self.service.runtime.truncate_history(session, first.event_id)
        finally:
            await close_quietly(session)
        # The removed turn goes with its versions (once it is gone): a question asked there later
        # starts a turn of its own.
        await asyncio.to_thread(self.versions.forget, session_id, anchors(before)[first.event_id])
        await self._history_changed(actor, record, await self._messages(session_id), first)
        details = {"turns": str(turns), "event_id": first.event_id, "events_removed": str(removed)}
        event = self.service.event("rewind", actor, record, details=details)
        await asyncio.to_thread(self.service.audit.record, event)

    async def _new_version(self, actor: Actor, record: SessionRecord, event_id: str | None) -> str:
        """Keep the turn of the question ``event_id`` (``None``: the last question) as a version and
        cut the log before it (the lease held); returns the question. The tail is kept before the
        log is cut, so a failure in between loses nothing (the log then still shows the kept
        version)."""
        raw = await self.service.files.read_events(record.id) or b""
        messages = parse_events(raw.splitlines())
        if event_id is None:
            questions = [m for m in messages if m.role == "user" and m.event_id]
            if not questions:
                raise InvalidInputError("This conversation has no question to answer again.")
            event_id = questions[-1].event_id
        index, asked = question(messages, event_id)
        kept, tail = split_before(raw, event_id)
        anchor = anchors(messages)[event_id]
        versions = await asyncio.to_thread(self.versions.replace, record.id, anchor, tail)
        await self.service.files.write_events(record.id, kept)
        await self._history_changed(actor, record, messages[:index], asked)
        details = {"event_id": event_id, "number": str(versions.number)}
        event = self.service.event("version", actor, record, details=details)
        await asyncio.to_thread(self.service.audit.record, event)
        return asked.content

    async def _history_changed(
        self, actor: Actor, record: SessionRecord, messages: list[TranscriptMessage], since: TranscriptMessage
    ) -> None:
        """After the log was rewritten from the question ``since`` on: search rows, turn count and
        preview follow it, and every device showing the chat draws it again."""
        await record_history(
            self.service,
            self.search_index,
            record.id,
            actor,
            messages,
            dropped_since=_parse_time(since.timestamp),
        )
        await self.service._announce(Batch(session_stream(record.id), [("history", {})]))

    async def _messages(self, session_id: str) -> list[TranscriptMessage]:
        raw = await self.service.files.read_events(session_id) or b""
        return parse_events(raw.splitlines())


async def record_history(
    service: SessionService,
    search: SearchIndex,
    session_id: str,
    actor: Actor,
    messages: list[TranscriptMessage],
    *,
    parent: tuple[str, str] | None = None,
    dropped_since: datetime | None = None,
) -> None:
    """After a session's log was written wholesale (fork, rewind, import): its search rows, turn
    count and preview follow what the log now holds."""
    await asyncio.to_thread(search.replace, session_id, actor.user.id, messages)
    await asyncio.to_thread(
        service.catalog.set_history,
        session_id,
        turn_count=sum(1 for message in messages if message.role == "user"),
        preview=messages[-1].content if messages else "",
        parent=parent,
        dropped_since=dropped_since,
    )


def _branch_title(title: str) -> str:
    base = one_line(title)[: 120 - len(BRANCH_SUFFIX)].rstrip()
    return base + BRANCH_SUFFIX


def _parse_time(stamp: str) -> datetime | None:
    """The log's ISO-8601 timestamp (``...Z``) as an aware datetime."""
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")) if stamp else None
