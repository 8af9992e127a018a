"""The session service: durable, owned conversations on top of the runtime, the catalog and the leases.

Used by the web app (and usable by any other front end). Every operation takes the acting user and the
client address, because every one of them is checked for ownership and audited
(docs/architecture.md#session-contract):

* a session is named by its **public id**, in its owner's namespace (docs/architecture.md#session-ids):
  each operation resolves the caller's id to the caller's record once (:meth:`SessionService.get`) and
  works on the record's **runtime id** from there on, which keys the runtime, the files, the lease and
  the feeds and is unique across owners. Another user's id is therefore an unknown id, by the same
  query (:class:`SessionNotFoundError`), and what goes back to the user (records, feed events) names
  the public id only;
* a turn holds the session's lease for its whole duration, so a second sender — another tab, another
  device, another server — gets :class:`SessionBusyError` instead of a forked event log;
* a turn keeps running when its HTTP client goes away, so the answer is saved and shown on reload;
  deleting the session stops it (:mod:`agent_orchestrator.sessions.turns.holds`);
* between turns the runtime session stays open (:mod:`agent_orchestrator.sessions.turns.warm`), and is reused
  only while no other writer can have touched it.

The service is the catalog side (create, list, rename, delete, transcripts, ownership and audit); the
turns themselves, with their leases, fences, warm pool and usage, are the
:class:`~agent_orchestrator.sessions.turn_runner.TurnRunner`'s, which :meth:`SessionService.send` hands
the resolved record to.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from copilot import CopilotSession

from agent_orchestrator.errors import (
    NothingToStopError,
    SessionExistsError,
    SessionNotFoundError,
)
from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.actor import Actor, audit_event
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, log_timestamp
from agent_orchestrator.sessions.ids import new_runtime_id, new_session_id, validate_session_id
from agent_orchestrator.sessions.live.feed import (
    Joined,
    LiveHub,
    Reset,
    join,
    session_stream,
    turn_boundary,
    user_stream,
)
from agent_orchestrator.sessions.store import (
    AuditAction,
    AuditEvent,
    AuditLog,
    Batch,
    Lease,
    LiveEvent,
    SessionCatalog,
    SessionPage,
    SessionRecord,
    SessionStatus,
    validate_title,
)
from agent_orchestrator.sessions.turn_runner import (
    DEFAULT_TITLE,
    INTERRUPTED,
    TurnRunner,
    announce,
    close_quietly,
    logged_messages,
    logged_turn,
)
from agent_orchestrator.sessions.turns.stream import TurnEvent

logger = logging.getLogger(__name__)

# The runtime's own rule for session names (validated on create): at most 100 characters, no quotes.
_NAME_LIMIT = 100
_JOIN_ATTEMPTS = 5
UNKNOWN_IDS_PER_MINUTE = 30
"""How many requests for unknown session ids one user gets audited a minute (``unknown_id``)."""


@dataclass(frozen=True)
class Transcript:
    session: SessionRecord
    messages: list[TranscriptMessage]
    busy: bool


class SessionService:
    """Create, list, read, rename, delete and talk to a user's sessions."""

    def __init__(
        self,
        *,
        runtime: CopilotRuntime,
        catalog: SessionCatalog,
        audit: AuditLog,
        files: SessionFiles,
        live: LiveHub,
        turns: TurnRunner,
    ) -> None:
        self.runtime = runtime
        self.catalog = catalog
        self.audit = audit
        self.files = files
        self.live = live
        self.turns = turns

    # ----------------------------------------------------------------------------- catalog side

    async def create(
        self, actor: Actor, *, title: str | None, case_key: str | None, session_id: str | None = None
    ) -> SessionRecord:
        """A new session, stored in the runtime (named, so it persists before its first turn).

        ``session_id`` is the public id the caller chooses (one is generated if not), refused with
        :class:`SessionExistsError` only if the caller already has it: another user's session of the
        same id is another namespace's. The runtime id is always a fresh one
        (:func:`~agent_orchestrator.sessions.ids.new_runtime_id`), never the public id, even when no one
        has that: whether someone else holds an id must not change anything the caller can see.
        """
        public_id = validate_session_id(session_id) if session_id else new_session_id("chat")
        sid = new_runtime_id()
        model = self.runtime.route.model if self.runtime.route else None
        record = SessionRecord.new(
            sid,
            actor.user.id,
            validate_title((title or DEFAULT_TITLE).strip()),
            case_key=case_key,
            model=model,
            public_id=public_id,
            title_source="user" if title and title.strip() else "default",
        )
        if await asyncio.to_thread(self.catalog.get_owned, public_id, actor.user.id) is not None:
            raise SessionExistsError(f"Session {public_id} already exists.")
        # Started before the session can be seen, so that its first follower finds ``created`` first
        # (docs/architecture.md#live-sessions); a fresh runtime id's stream has nothing else to drop.
        await self.live.restart(session_stream(sid), "created", {})
        await asyncio.to_thread(self.catalog.create, record, audit=self.event("create", actor, record))
        session: CopilotSession | None = None
        try:
            # Saved at once (the runtime writes a new session's files only when asked or closed): a
            # session must be stored, resumable and known to every server, before its first turn. It
            # stays open for that turn, as if a turn had just ended before any lease (token 0).
            session = await self.runtime.create_session(sid, name=_runtime_name(record.title))
            await self.runtime.save_session(sid)
        except BaseException as error:
            if session is not None:
                await close_quietly(session)
            # The row goes, and the trail says so: its "create" is followed by this outcome.
            failed = self.event("create_failed", actor, record, details={"error": type(error).__name__})
            await asyncio.to_thread(self.catalog.delete, sid, actor.user.id, audit=failed)
            await self._restart_feed(session_stream(sid), "deleted", {})
            raise
        self.turns.keep_created(sid, session)
        await self._announce(Batch(user_stream(actor.user.id), [("created", {"id": public_id})]))
        return record

    async def list_sessions(
        self,
        actor: Actor,
        *,
        limit: int = 50,
        cursor: str | None = None,
        case_key: str | None = None,
        search: str | None = None,
        pinned: bool | None = None,
        archived: bool | None = None,
        tag: str | None = None,
    ) -> SessionPage:
        return await asyncio.to_thread(
            self.catalog.list_for_owner,
            actor.user.id,
            limit=limit,
            cursor=cursor,
            case_key=case_key,
            search=search,
            pinned=pinned,
            archived=archived,
            tag=tag,
        )

    async def get(self, actor: Actor, public_id: str) -> SessionRecord:
        """The caller's session of that public id, or :class:`SessionNotFoundError`: one query in the
        caller's namespace, so another user's id is exactly an unknown one. Every unknown id is
        audited alike (``unknown_id``, with the id as asked), whether or not another owner has it:
        nothing else is looked up, so status, body and work are the same for both, and the owner of
        that id, if any, sees the attempts counted in the session's activity
        (docs/architecture.md#ownership)."""
        validate_session_id(public_id)
        record = await asyncio.to_thread(self.catalog.get_owned, public_id, actor.user.id)
        if record is None:
            await asyncio.to_thread(self._audit_unknown, actor, public_id)
        return await self._checked(record)

    def _audit_unknown(self, actor: Actor, public_id: str) -> None:
        """Audit a request for an id the caller has no session of, at most once a minute per caller
        and id and :data:`UNKNOWN_IDS_PER_MINUTE` times a minute per caller, so that a flood of
        ``404``s cannot grow the audit log without bound (the cap depends on the caller's own rows
        only, never on whether anyone has the id)."""
        event = AuditEvent(
            action="unknown_id",
            username=actor.user.username,
            user_id=actor.user.id,
            client_addr=actor.client_addr,
            asked_id=public_id,
        )
        self.audit.record_at_most(event, UNKNOWN_IDS_PER_MINUTE, timedelta(minutes=1))

    async def _reread(self, actor: Actor, record: SessionRecord) -> SessionRecord:
        """The caller's session again, by its runtime id: the same session even if it was deleted and
        its public id taken again meanwhile (then :class:`SessionNotFoundError`). For the operations
        of this package that already resolved the caller's id (:meth:`get`)."""
        again = await asyncio.to_thread(self.catalog.get, record.id)
        return await self._checked(again if again is not None and again.owner_id == actor.user.id else None)

    async def _checked(self, record: SessionRecord | None) -> SessionRecord:
        if record is None:
            raise SessionNotFoundError("No such session.")
        if record.status == "busy" and not await self.turns.turn_running(record.id):
            # The server running the turn died (its lease expired): the turn is interrupted, and the
            # user's message, in the event log or kept by the catalog, can be retried -- unless the
            # answer reached the log before the server died, and only the turn's end was lost.
            answer = await self._logged_answer(record)
            status: SessionStatus = "interrupted" if answer is None else "idle"
            ended = await asyncio.to_thread(
                functools.partial(self.catalog.set_status, record.id, status, ending=record)
            )
            if ended:  # this server's to tell the feed (another may have noticed as well)
                await self._end_interrupted_turn(record, answer)
                return replace(record, status=status)
            again = await asyncio.to_thread(self.catalog.get, record.id)  # as the other server left it
            if again is None:
                raise SessionNotFoundError("No such session.")
            record = again
        return record

    async def _logged_answer(self, record: SessionRecord) -> str | None:
        """The answer to the catalog's pending prompt, if the session's log holds one."""
        if record.pending_prompt is None:
            return None
        last = logged_turn(await logged_messages(self.files, record.id), record.pending_prompt)
        return last.content if last is not None and last.role == "assistant" else None

    async def rename(self, actor: Actor, public_id: str, title: str) -> SessionRecord:
        record = await self.get(actor, public_id)
        await self.turns.warm.evict(record.id)
        await asyncio.to_thread(
            self.catalog.rename,
            record.id,
            actor.user.id,
            title,
            audit=self.event("rename", actor, record),
        )
        record = await self._reread(actor, record)
        await self._announce(
            Batch(session_stream(record.id), [("renamed", {"title": record.title})]),
            Batch(user_stream(actor.user.id), [("renamed", {"id": record.public_id})]),
        )
        return record

    async def delete(self, actor: Actor, public_id: str) -> None:
        """Remove the session everywhere, for good: runtime files, shared store, key, live feed, catalog
        (audit kept). A turn running meanwhile is stopped first, here or on another server, so that
        nothing it would still write outlives the delete
        (docs/architecture.md#crash-safety-and-restart-recovery). Everything below the catalog is the
        runtime id's, so another owner's session of the same public id is not touched."""
        record = await self.get(actor, public_id)
        session_id = record.id
        async with self.turns.deleting(session_id):
            with contextlib.suppress(SessionNotFoundError):  # the runtime drops what it holds in memory
                await self.runtime.delete_session(session_id)
            await self.files.delete_session(session_id)
            # Before the row goes, so that a failure leaves the session to delete again, not a feed that
            # keeps its conversation; ``deleted`` is the stream's last event.
            await self.live.restart(session_stream(session_id), "deleted", {})
            await asyncio.to_thread(
                self.catalog.delete, session_id, actor.user.id, audit=self.event("delete", actor, record)
            )
        await self._announce(Batch(user_stream(actor.user.id), [("deleted", {"id": record.public_id})]))

    async def transcript(self, actor: Actor, public_id: str) -> Transcript:
        return await self._transcript(actor, await self.get(actor, public_id))

    async def _transcript(self, actor: Actor, record: SessionRecord) -> Transcript:
        session_id = record.id
        messages = await logged_messages(self.files, session_id)
        kept = await asyncio.to_thread(self.catalog.interrupted, session_id)
        messages = _merge_by_time(messages, [_interrupted_message(p, at) for p, at in kept])
        busy = await self.turns.turn_running(session_id)
        pending = record.pending_prompt
        logged = None if pending is None else logged_turn(messages, pending)
        if pending is not None and logged is None:
            # The turn's message is not (yet) in the runtime's log: it flushes as the turn goes, a
            # crash loses the tail, and a turn that failed may never have reached it. The catalog kept it.
            messages.append(_interrupted_message(pending, record.updated_at))
        elif logged is not None and logged.role == "user" and not busy:
            # Logged, but its turn failed or its server died: unanswered, whatever the log says after it.
            messages[-1] = replace(messages[-1], interrupted=True)
        if busy and messages and messages[-1].interrupted:
            # The turn is still running somewhere: its user message is pending, not interrupted.
            messages[-1] = replace(messages[-1], interrupted=False)
        await asyncio.to_thread(self.audit.record, self.event("read", actor, record))
        if not busy and record.turn_count:  # its owner is reading it: a turn is likely to follow
            self.turns.start_opening_ahead(session_id)
        return Transcript(record, messages, busy)

    async def composing(self, actor: Actor, public_id: str) -> None:
        """Its owner is writing a message in the chat: a copy that left the warm pool since the chat
        was opened (idle past ``AGENT_WARM_IDLE``, a full pool, another server's turn) is opened ahead
        again, so the send that follows does not wait for the runtime's replay of the log
        (docs/architecture.md#warm-sessions). Nothing to do for a copy open here, a busy session or
        one without turns."""
        record = await self.get(actor, public_id)
        if record.turn_count and record.status != "busy":
            self.turns.start_opening_ahead(record.id)

    # -------------------------------------------------------------------------------- live side

    async def join(self, actor: Actor, public_id: str) -> tuple[Transcript, Joined]:
        """The transcript as a client opening the session shows it, consistent with a position in the
        live feed (docs/architecture.md#live-sessions): a turn in flight comes as what was said so far.

        The transcript is re-read if a turn started or ended while it was read (rare: only at turn
        boundaries; deltas flowing meanwhile are what the feed delivers next). Its record is read after
        the feed's turn, by runtime id, so both are of the one session the public id named first.
        """
        record = await self.get(actor, public_id)
        session_id = record.id
        turn = await self.turns.settled_turn(session_id, holding_lease=False)
        for _ in range(_JOIN_ATTEMPTS):
            transcript = await self._transcript(actor, await self._reread(actor, record))
            again = await self.turns.settled_turn(session_id, holding_lease=False)
            if turn_boundary(again) == turn_boundary(turn):
                break
            turn = again
        return transcript, join(transcript.messages, again, busy=transcript.busy)

    async def follow(
        self, actor: Actor, public_id: str, after: int | None
    ) -> AsyncIterator[LiveEvent | Reset | None]:
        """The session's live feed after event ``after`` (``None``: from now on; see
        :meth:`LiveHub.follow`); owner only. The feed is the runtime id's: another owner's session of
        the same public id has a stream of its own."""
        record = await self.get(actor, public_id)
        stream = session_stream(record.id)
        if after is None:
            after = await asyncio.to_thread(self.live.log.latest, stream)
        return self.live.follow(stream, after)

    def follow_list(self, actor: Actor, after: int) -> AsyncIterator[LiveEvent | Reset | None]:
        """The feed of the actor's sessions list: created, renamed, deleted, busy, idle."""
        return self.live.follow(user_stream(actor.user.id), after)

    async def list_position(self, actor: Actor) -> int:
        """Where the sessions list's feed stands now (a client that just listed follows from here)."""
        return await asyncio.to_thread(self.live.log.latest, user_stream(actor.user.id))

    async def _announce(self, *batches: Batch) -> None:
        """Tell the feeds, in one write, failing quietly (:func:`~.turn_runner.announce`)."""
        await announce(self.live, *batches)

    async def _restart_feed(self, stream: str, kind: str, data: dict[str, object]) -> None:
        """Start the stream over with this event (``LiveEventLog.restart``), failing quietly likewise."""
        try:
            await self.live.restart(stream, kind, data)
        except Exception:
            logger.exception("Live feed %s: publishing %s failed", stream, kind)

    async def _end_interrupted_turn(self, record: SessionRecord, answer: str | None) -> None:
        """Tell the session's followers (waiting for an ``idle`` that will never come) that it is over:
        with the ``answer`` the log holds, so that the feed tells what the transcript shows, or else
        that it failed; with its message first if its server died before telling it (the turn began
        when the record was last updated)."""
        stream = session_stream(record.id)
        try:
            await self.live.end_open_turn(
                stream, INTERRUPTED, answer=answer, prompt=record.pending_prompt, since=record.updated_at
            )
        except Exception:  # the feed is a view; the session is already marked interrupted
            logger.exception("Live feed of %s: ending the interrupted turn failed", record.id)

    # -------------------------------------------------------------------------------- turn side

    async def send(
        self, actor: Actor, public_id: str, prompt: str, *, seen: int | None = None
    ) -> AsyncIterator[TurnEvent]:
        """Start a turn and return its event stream; raises before streaming if busy or unknown, or
        if ``seen`` (the last live event the sender saw) shows the sender has missed messages."""
        return await self.turns.start(actor, await self.get(actor, public_id), prompt, seen=seen)

    async def stop(self, actor: Actor, public_id: str) -> None:
        """Stop the caller's session's running turn, on whichever server it runs; audited.
        :class:`NothingToStopError` when no turn is running."""
        record = await self.get(actor, public_id)
        if not await self.turns.turn_running(record.id):
            raise NothingToStopError("This chat is not answering anything.")
        await self.turns.stop(record.id)
        await asyncio.to_thread(self.audit.record, self.event("stop", actor, record))

    async def send_prepared(
        self, actor: Actor, public_id: str, prepare: Callable[[SessionRecord], Awaitable[str]]
    ) -> AsyncIterator[TurnEvent]:
        """Start a turn whose message ``prepare`` (given the caller's record) gives, after changing the
        session's history under the turn's own lease (a regenerate: the last turn rewound, its question
        asked again). Refused as a send is (unknown, over the budget, busy) before ``prepare`` changes
        anything, and no other writer can come between the change and the turn. ``prepare`` runs as
        under :meth:`hold_lease`: the warm copy closed, the shared store's writes fenced."""
        return await self.turns.start(actor, await self.get(actor, public_id), None, prepare=prepare)

    def hold_lease(self, session_id: str) -> contextlib.AbstractAsyncContextManager[Lease]:
        """The session's lease for a change of its history that is not a turn
        (:meth:`TurnRunner.hold_lease`)."""
        return self.turns.hold_lease(session_id)

    async def keep_interrupted_prompt(self, record: SessionRecord) -> None:
        """:meth:`TurnRunner.keep_interrupted_prompt`."""
        await self.turns.keep_interrupted_prompt(record)

    # ----------------------------------------------------------------------------------- audit

    def event(
        self,
        action: AuditAction,
        actor: Actor,
        session: SessionRecord | None,
        details: dict[str, str] | None = None,
    ) -> AuditEvent:
        """An audit record of ``actor`` acting on ``session`` (:func:`~.actor.audit_event`)."""
        return audit_event(action, actor, session, details)


def _interrupted_message(prompt: str, at: datetime) -> TranscriptMessage:
    return TranscriptMessage("user", prompt, log_timestamp(at), interrupted=True)


def _merge_by_time(logged: list[TranscriptMessage], kept: list[TranscriptMessage]) -> list[TranscriptMessage]:
    """Place kept messages among the logged ones by timestamp (both ISO-8601 UTC, so they sort as text)."""
    if not kept:
        return logged
    return sorted(logged + kept, key=lambda m: m.timestamp)


def _runtime_name(title: str) -> str:
    name = " ".join(title.replace('"', "'").split())[:_NAME_LIMIT].strip()
    return name or DEFAULT_TITLE
