"""The turn engine under the session service: sending a message, and everything a turn stands on.

:class:`TurnRunner` owns what a turn needs and the catalog side does not
(docs/architecture.md#a-chat-turn-step-by-step): the session's lease for the turn's whole duration, so
that a second sender gets :class:`SessionBusyError` (docs/architecture.md#leases-and-fencing); the
fences that the shared store's writer check asks (:meth:`TurnRunner.may_write`); the warm pool and
opening a copy ahead (docs/architecture.md#warm-sessions); the holds a delete stops; and the usage a
turn reserves and records (docs/architecture.md#usage-ledger). The :class:`SessionService` resolves
and checks the caller's session (ownership, audit) and hands the runner its record; the runner never
resolves a public id itself.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from copilot import CopilotSession

from agent_orchestrator.errors import (
    AgentOrchestratorError,
    RuntimeFailure,
    SessionBusyError,
    SessionNotFoundError,
    StaleSessionError,
    TurnFailedError,
)
from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.runtime.session_files import SessionFiles
from agent_orchestrator.sessions.actor import Actor, audit_event
from agent_orchestrator.sessions.history.transcript import TranscriptMessage, parse_events
from agent_orchestrator.sessions.live.feed import (
    LiveHub,
    PublishingQueue,
    missed_messages,
    session_stream,
    turn_boundary,
    user_stream,
)
from agent_orchestrator.sessions.search.index import SearchIndex
from agent_orchestrator.sessions.store import (
    Batch,
    Fence,
    Lease,
    LeaseManager,
    LiveEvent,
    SessionCatalog,
    SessionRecord,
    SessionStatus,
    TurnEnd,
    Write,
)
from agent_orchestrator.sessions.turns.holds import Hold, Holds
from agent_orchestrator.sessions.turns.stopped import STOP, keep_stopped_answer
from agent_orchestrator.sessions.turns.stream import (
    RUNTIME_GONE,
    Done,
    Failed,
    Stopped,
    TurnEvent,
    TurnMessages,
    stream_turn,
)
from agent_orchestrator.sessions.turns.titles import title_from_answer, title_from_message
from agent_orchestrator.sessions.turns.usage import TurnMeter, UsageKeeper, observed_turn
from agent_orchestrator.sessions.turns.warm import WarmSessions
from agent_orchestrator.telemetry import STALE_WRITES_DROPPED, TRACER, TURN_SESSIONS

logger = logging.getLogger(__name__)
INTERRUPTED = "The server answering this message stopped; send it again."
"""What a turn whose server died tells its followers when the transcript has no answer for it."""

DEFAULT_TITLE = "New chat"
BUSY = "This session is answering another message; try again when it is done."
DELETED = "This chat was deleted."
_SETTLE_SECONDS = 2.0
_SETTLE_POLL = 0.02
# The end of the lease holder's name while a server opens a copy ahead of a turn (see _acquire).
_OPENING_AHEAD = "/ahead"
_OPENING_POLL = 0.05
# The end of the lease holder's name while a session is deleted (see deleting).
_DELETING = "/deleting"
_ABORT_SECONDS = 5.0


@dataclass(frozen=True)
class _Turn:
    """A turn as it starts: who sends what to which session, under which lease, holding which usage
    reservation."""

    actor: Actor
    session: SessionRecord
    prompt: str
    lease: Lease
    reservation: int | None
    since: int
    """The session feed's position at the turn's message: a stop asked for after it is this turn's."""
    copy: CopilotSession
    """The session open in the runtime (:meth:`TurnRunner._open`)."""
    renewer: asyncio.Task[None]
    """Renews the lease (:meth:`TurnRunner._keep_lease`) from before the session was opened."""

    @property
    def session_id(self) -> str:
        """The runtime id, which everything the turn does is keyed by."""
        return self.session.id


class TurnRunner:
    """Send messages to sessions (by record, resolved by the service): leases, fences, warm copies,
    holds and usage."""

    def __init__(
        self,
        *,
        runtime: CopilotRuntime,
        catalog: SessionCatalog,
        leases: LeaseManager,
        files: SessionFiles,
        live: LiveHub,
        server_id: str,
        lease_ttl: float = 30.0,
        usage: UsageKeeper | None = None,
        warm_sessions: int = 100,
        warm_idle: float = 600.0,
        search: SearchIndex | None = None,
    ) -> None:
        self.runtime = runtime
        self.catalog = catalog
        self.leases = leases
        self.files = files
        self.live = live
        self.server_id = server_id
        self.lease_ttl = lease_ttl
        self.usage = usage
        self.search = search
        self._turns: set[asyncio.Task[None]] = set()
        self._holds = Holds()
        # Fencing tokens of the sessions this server has open (see may_write): the live lease's of each
        # running turn, and the last lease's of each warm copy.
        self._turn_fences: dict[str, Fence] = {}
        self._idle_tokens: dict[str, int] = {}
        self.warm = WarmSessions(capacity=warm_sessions, idle_timeout=warm_idle, close=self._close_warm)

    def keep_created(self, session_id: str, session: CopilotSession) -> None:
        """A session just created stays open for its first turn, as if a turn had just ended before
        any lease (token 0)."""
        self._idle_tokens[session_id] = 0
        self.warm.keep(session_id, session, 0)

    def start_opening_ahead(self, session_id: str) -> None:
        """Resume the session into the warm pool in the background (:meth:`_open_ahead`), unless the
        pool has it open or opening already."""
        self.warm.open_ahead(session_id, functools.partial(self._open_ahead, session_id))

    @contextlib.asynccontextmanager
    async def deleting(self, session_id: str) -> AsyncIterator[None]:
        """The session's lease taken from whoever holds it, for a delete: this server's turn on it
        stopped and over, another server's given until its lease would have run out, and the warm copy
        closed, before the block removes anything; released after it."""
        holder = f"{self.server_id}/{uuid.uuid4().hex[:12]}{_DELETING}"
        revoked = await asyncio.to_thread(self.leases.revoke, session_id, holder, self.lease_ttl)
        try:
            await self._holds.stop(session_id, DELETED)  # this server's turn: cancelled and over
            elsewhere = revoked.previous_holder
            if elsewhere is not None and not elsewhere.startswith(f"{self.server_id}/"):
                # Another server's turn fails its next renewal and stops; until its lease would have
                # run out it may still write without asking, and that is deleted with the rest.
                await asyncio.sleep(min(revoked.remaining, self.lease_ttl))
            await self.warm.evict(session_id)
            yield
        finally:
            await asyncio.to_thread(self.leases.release, revoked.lease)

    async def settled_turn(self, session_id: str, *, holding_lease: bool) -> list[LiveEvent]:
        """The session's current turn on the feed, once a turn that is over has all its events there:
        the lease is released as the turn ends, and its last events (``done``, ``idle``) follow a
        moment later. A turn whose server died was ended by :meth:`get`, so this never waits long."""
        stream = session_stream(session_id)
        deadline = time.monotonic() + _SETTLE_SECONDS
        while True:
            turn = await asyncio.to_thread(self.live.log.current_turn, stream)
            if turn_boundary(turn) == 0 or turn[0].kind != "user" or time.monotonic() > deadline:
                return turn
            if not holding_lease and await self.turn_running(session_id):
                return turn  # really in flight
            await asyncio.sleep(_SETTLE_POLL)

    async def _refuse_if_behind(self, session_id: str, seen: int) -> None:
        await self.settled_turn(session_id, holding_lease=True)  # the previous turn's answer counts
        missed, last = await asyncio.to_thread(
            missed_messages, self.live.log, session_stream(session_id), seen
        )
        if missed is None or missed:
            raise StaleSessionError(
                "New messages arrived in this chat since you last saw it; read them, then send again.",
                missed=missed,
                last_event_id=last,
            )

    async def start(
        self,
        actor: Actor,
        record: SessionRecord,
        prompt: str | None,
        *,
        seen: int | None = None,
        prepare: Callable[[SessionRecord], Awaitable[str]] | None = None,
    ) -> AsyncIterator[TurnEvent]:
        """Start a turn on the caller's ``record`` and return its event stream; raises before streaming
        if busy, over the budget, or if ``seen`` shows the sender has missed messages. ``prepare`` (a
        regenerate) changes the history under the turn's own lease and gives the message."""
        session_id = record.id
        # Under a daily budget, the turn's estimated cost is held against it from now on.
        reservation = await self.usage.reserve(actor.user.id, session_id) if self.usage is not None else None
        try:
            lease = await self._acquire(session_id)
        except BaseException:
            await self._release_reservation(reservation)
            raise
        # What a delete stops and waits for: the opening below, then the turn and its feed's last events.
        hold, over = Hold(), asyncio.get_running_loop().create_future()
        copy: CopilotSession | None = None
        renewer: asyncio.Task[None] | None = None
        try:
            if seen is not None:
                await self._refuse_if_behind(session_id, seen)
            if prepare is not None:
                async with self._fenced(lease):
                    prompt = await prepare(record)
                changed = await asyncio.to_thread(self.catalog.get, session_id)
                if changed is None:  # deleted meanwhile
                    raise SessionNotFoundError("No such session.")
                record = changed
            assert prompt is not None
            self._holds.add(session_id, hold, over)  # after the change's own hold (``_fenced``)
            # Renewed from here to the turn's end: resuming a long chat may take longer than the ttl.
            renewer = asyncio.create_task(self._keep_lease(lease))
            if record.pending_prompt is not None:
                await self.keep_interrupted_prompt(record)
            await self._end_unended_turn(session_id)
            copy = await self._open(lease, hold)
            if record.turn_count == 0 and record.title_source == "default":
                # Like most chat products: an untitled chat is named after its first message
                # (docs/architecture.md#titles); its first answer may name it better.
                title = title_from_message(prompt) or DEFAULT_TITLE
                await asyncio.to_thread(self.catalog.auto_title, session_id, actor.user.id, title)
            # The turn's start and its audit record, in one transaction, before anyone hears of its
            # message: a server that dies after this leaves the message pending, to be shown as
            # interrupted and told to the feed (docs/architecture.md#crash-safety-and-restart-recovery);
            # one that died between the feed's ``user`` and this record would leave a message every
            # device was told of and no transcript keeps.
            begin = functools.partial(self.catalog.record_turn, preview=prompt, status="busy", prompt=prompt)
            where = {"server": self.server_id} | ({"device": actor.device} if actor.device else {})
            await asyncio.to_thread(
                begin, session_id, audit=audit_event("resume", actor, record, details=where)
            )
            published = await announce(
                self.live,
                Batch(session_stream(session_id), [("user", {"content": prompt})]),
                Batch(user_stream(actor.user.id), [("busy", {"id": record.public_id})]),
            )
            # Where a stop of this turn can come from: after its message (or, unpublished, from now on).
            if published and published[0]:
                since = published[0][0].seq
            else:
                since = await asyncio.to_thread(self.live.log.latest, session_stream(session_id))
        except BaseException:
            # No turn will run to release it: without this, the session answers "busy" until expiry.
            if renewer is not None:
                renewer.cancel()
            if copy is not None:
                await close_quietly(copy)
            self._turn_fences.pop(session_id, None)
            await asyncio.to_thread(self.leases.release, lease)
            await self._release_reservation(reservation)
            over.set_result(None)
            raise
        queue = PublishingQueue(self.live, session_id, actor.user.id, public_id=record.public_id, since=since)
        assert renewer is not None
        turn = _Turn(actor, record, prompt, lease, reservation, since, copy, renewer)
        observed = observed_turn(self._run_turn(turn, queue, hold), session_id, record.public_id)
        task = asyncio.create_task(observed)
        ended = asyncio.gather(task, queue.published, return_exceptions=True)
        ended.add_done_callback(lambda _: over.set_result(None))
        for running in (task, queue.published):  # a shutdown waits for the feed's last events too
            self._turns.add(running)
            running.add_done_callback(self._turns.discard)
        return _drain(queue)

    async def _open(self, lease: Lease, hold: Hold) -> CopilotSession:
        """The session open in the runtime for the turn under ``lease``: this server's warm copy if no
        one else wrote the session since (docs/architecture.md#warm-sessions), or else resumed from the
        store. Before the sender is told the message was received: a session that cannot be opened
        (the runtime down, the store unreachable) refuses the send, to be tried again, instead of
        acknowledging a message that no turn will answer. A delete meanwhile stops it (``hold``)."""
        session_id = lease.session_id
        with TRACER.start_as_current_span("turn.open", attributes={"session.id": session_id}):
            return await self._take_or_resume(lease, hold)

    async def _take_or_resume(self, lease: Lease, hold: Hold) -> CopilotSession:
        session_id = lease.session_id
        task = asyncio.current_task()
        warm = await self.warm.take(session_id, lease.fencing_token)  # closes a stale copy
        self._idle_tokens.pop(session_id, None)
        self._turn_fences[session_id] = Fence.of(lease)
        TURN_SESSIONS.labels("resumed" if warm is None else "ahead" if warm.ahead else "warm").inc()
        if warm is not None:
            return warm.session
        hold.answering(task)
        try:
            return await self.runtime.resume_session(session_id)
        except asyncio.CancelledError:
            if hold.stopped is None or task is None:
                raise
            task.uncancel()  # deleted meanwhile
            raise SessionNotFoundError("No such session.") from None
        except (SessionNotFoundError, RuntimeFailure):
            raise
        except Exception as error:  # the runtime died, or the shared store failed under it
            logger.warning("Opening session %s for a turn failed: %s", session_id, error)
            raise TurnFailedError("The assistant could not open this chat just now; try again.") from error
        finally:
            hold.answering(None)

    async def keep_interrupted_prompt(self, record: SessionRecord) -> None:
        """The previous turn died with its message only in the catalog: keep it before this turn
        replaces it (we hold the lease, so that turn is certainly over)."""
        prompt = record.pending_prompt
        assert prompt is not None
        if logged_turn(await logged_messages(self.files, record.id), prompt) is None:
            await asyncio.to_thread(self.catalog.save_interrupted, record.id, prompt, record.updated_at)

    async def _end_unended_turn(self, session_id: str) -> None:
        """The feed heard the last turn's message and never its end: that turn's server died after
        ending it (the catalog, the lease) and before telling the feed. Under this turn's lease it is
        certainly over, so the feed is told now how the transcript ends it (its answer, or that it
        failed), before this turn's message: followers never miss an answer the transcript shows
        (docs/architecture.md#crash-safety-and-restart-recovery). A server that was only slow finds
        the turn ended when it writes, and drops its own end (the log's ``ends_turn_from``)."""
        stream = session_stream(session_id)
        events = await asyncio.to_thread(self.live.log.current_turn, stream)
        if not events or events[0].kind != "user":
            return
        prompt = str(events[0].data.get("content", ""))
        last = logged_turn(await logged_messages(self.files, session_id), prompt)
        answer = last.content if last is not None and last.role == "assistant" else None
        try:
            await self.live.end_open_turn(stream, INTERRUPTED, answer=answer)
        except Exception:  # the feed is a view: this turn goes on
            logger.exception("Live feed of %s: ending the unended turn failed", session_id)

    async def may_write(self, session_id: str) -> Write:
        """What becomes of a write this server makes to the session's files now (the shared store's
        fencing check, which names the session by the runtime's id, as everything below the catalog
        does).

        During a turn, it passes only while the turn's lease is live, and is refused after. Between
        turns a warm copy may write (the runtime appends warnings of its own at any time, and a
        shutdown record as it is closed) while no one else has taken the session since; once someone
        has, the copy is stale and its writes are dropped (see :class:`Write`). Writes outside both
        (creating a session) are not leased.
        """
        if (fence := self._turn_fences.get(session_id)) is not None:
            if fence.surely_live():  # no one can have taken it yet: no need to ask
                return Write.PASS
            live = await asyncio.to_thread(self.leases.check, session_id, fence.token)
            return Write.PASS if live else Write.REFUSE
        if (token := self._idle_tokens.get(session_id)) is not None:
            if await asyncio.to_thread(self.leases.is_latest, session_id, token):
                return Write.PASS
            STALE_WRITES_DROPPED.inc()
            return Write.DROP
        return Write.PASS

    async def _run_turn(self, turn: _Turn, queue: asyncio.Queue[TurnEvent | None], hold: Hold) -> None:
        session_id, lease, renewer = turn.session_id, turn.lease, turn.renewer
        released = False
        try:
            said = TurnMessages()
            outcome, meter = await self._answer(turn, queue, said, hold)
            renewer.cancel()
            still_ours = await asyncio.to_thread(self._finish_turn, turn, outcome, meter, said)
            released = True
            if still_ours and isinstance(outcome, Done) and turn.session.title_source == "default":
                await self._title_after_first_answer(turn, outcome)
            if not still_ours and hold.stopped is None:
                logger.warning("Lease of %s lost during the turn; catalog update skipped", session_id)
                await self.warm.evict(session_id)
        finally:
            renewer.cancel()
            try:  # free the session before the stream ends, so the client's next send is not "busy"
                if not released:
                    await asyncio.to_thread(self.leases.release, lease)
                    await self._release_reservation(turn.reservation)
            finally:
                queue.put_nowait(None)

    def _finish_turn(self, turn: _Turn, outcome: TurnEvent, meter: TurnMeter, said: TurnMessages) -> bool:
        """The end of the turn, as one write (in a worker thread; ``store/turn_end.py``): the tokens it
        spent (recorded whatever became of the turn, settling its reservation), the catalog's record
        of it and the search rows of its messages (docs/architecture.md#branching-and-search), both
        fenced: written only while the lease is live, the rows only while the session exists; and
        the lease's release. Whether the lease was still live."""
        status: SessionStatus
        preview, status = (
            (outcome.text or turn.prompt, "idle")
            if isinstance(outcome, Done | Stopped)
            else (turn.prompt, "interrupted")
        )
        session_id, owner_id = turn.session_id, turn.actor.user.id
        kept = turn.prompt if status == "interrupted" else None
        end = TurnEnd(
            self.catalog.turn_end_params(session_id, preview=preview, status=status, kept=kept),
            self._search_rows(session_id, owner_id, said),
            self.usage.row(session_id, owner_id, meter) if self.usage is not None else None,
            turn.reservation,
        )
        return self.leases.finish(turn.lease, end)

    async def _title_after_first_answer(self, turn: _Turn, outcome: Done) -> None:
        """Name a chat nobody titled after what its first answer computed, when a tool stated it
        (docs/architecture.md#titles); a title failing to change costs nothing else."""
        title = title_from_answer(outcome.tool_results)
        if title is None:
            return
        try:
            owner = turn.actor.user.id
            if await asyncio.to_thread(self.catalog.auto_title, turn.session_id, owner, title):
                await announce(
                    self.live,
                    Batch(session_stream(turn.session_id), [("renamed", {"title": title})]),
                    Batch(user_stream(owner), [("renamed", {"id": turn.session.public_id})]),
                )
        except Exception:
            logger.exception("Titling %s after its first answer failed", turn.session_id)

    async def _release_reservation(self, reservation: int | None) -> None:
        """A turn that will not settle its reservation gives it up; failing that, it stays held for the
        rest of the day (logged): the budget errs on the side of what may have been spent."""
        if self.usage is None:
            return
        try:
            await self.usage.release(reservation)
        except Exception:
            logger.exception("Releasing the usage reservation %s failed", reservation)

    def _search_rows(self, session_id: str, owner_id: int, said: TurnMessages) -> list[dict[str, object]]:
        """The search rows of the turn's messages, built before the turn's last write; a failure to
        build them (sealing) costs search rows, never the turn's end
        (``python -m agent_orchestrator.sessions reindex`` refills them)."""
        if self.search is None:
            return []
        try:
            return self.search.rows(session_id, owner_id, said)
        except Exception:
            logger.exception("Indexing the turn of %s for search failed", session_id)
            return []

    @contextlib.asynccontextmanager
    async def hold_lease(self, session_id: str) -> AsyncIterator[Lease]:
        """The session's lease (by runtime id, resolved by the caller through :meth:`get`) for a change
        of its history that is not a turn (a rewind): held,
        renewed and fencing the shared store's writes exactly as during a turn; a warm copy of the
        session is closed first, as its history is about to change under it.
        :class:`SessionBusyError` if a turn holds the lease."""
        lease = await self._acquire(session_id)
        try:
            async with self._fenced(lease):
                yield lease
        finally:
            await asyncio.to_thread(self.leases.release, lease)

    @contextlib.asynccontextmanager
    async def _fenced(self, lease: Lease) -> AsyncIterator[None]:
        """Change the history of the session under ``lease`` (held, not yet a turn's): its warm copy
        closed first, the lease renewed and fencing the shared store's writes as during a turn, and a
        delete waiting until the change is written."""
        session_id = lease.session_id
        # Before our token is set: closing a warm copy sets (and clears) its own last token.
        await self.warm.evict(session_id)
        renewer = asyncio.create_task(self._keep_lease(lease))
        self._turn_fences[session_id] = Fence.of(lease)
        over = asyncio.get_running_loop().create_future()
        self._holds.add(session_id, Hold(), over)
        try:
            yield
        finally:
            renewer.cancel()
            self._turn_fences.pop(session_id, None)
            over.set_result(None)

    async def turn_running(self, session_id: str) -> bool:
        """Whether a turn (or a rewind) holds the session's lease: a copy opened ahead is not one."""
        current = await asyncio.to_thread(self.leases.current, session_id)
        return current is not None and not current.holder.endswith(_OPENING_AHEAD)

    async def _acquire(self, session_id: str) -> Lease:
        """The session's lease under a fresh holder (so the fencing token goes up by one), or
        :class:`SessionBusyError`. A lease held to open a copy ahead (here or on another server) is
        waited for: it lasts as long as a resume, and a turn must not be refused for it."""
        await self.warm.settle(session_id)
        deadline = time.monotonic() + self.lease_ttl
        take = functools.partial(self.leases.acquire, session_id, f"{self.server_id}/{uuid.uuid4().hex[:12]}")
        while (lease := await asyncio.to_thread(take, self.lease_ttl)) is None:
            current = await asyncio.to_thread(self.leases.current, session_id)
            worth_waiting = current is None or current.holder.endswith(_OPENING_AHEAD)  # None: just freed
            if not worth_waiting or time.monotonic() > deadline:
                raise SessionBusyError(BUSY)
            await asyncio.sleep(_OPENING_POLL)
        return lease

    async def _open_ahead(self, session_id: str) -> None:
        """Resume the session into the warm pool before a turn asks for it
        (docs/architecture.md#warm-sessions): under a lease of its own like a turn's, so the next turn's
        lease follows it and reuses the copy, exactly as after a turn. Gives up quietly if the session
        is busy; a failure only means the turn resumes the session itself."""
        holder = f"{self.server_id}/{uuid.uuid4().hex[:12]}{_OPENING_AHEAD}"
        lease = await asyncio.to_thread(self.leases.acquire, session_id, holder, self.lease_ttl)
        if lease is None:
            return
        renewer = asyncio.create_task(self._keep_lease(lease))
        try:
            self._turn_fences[session_id] = Fence.of(lease)
            try:
                session = await self.runtime.resume_session(session_id)
                # A write refused during the resume (the lease lost in a stall) leaves a copy that
                # is not whole: only a copy opened under a lease still live is kept.
                live = await asyncio.to_thread(self.leases.check, session_id, lease.fencing_token)
            except Exception as error:
                logger.info("Opening %s ahead failed: %s", session_id, error)
                return
            finally:
                self._turn_fences.pop(session_id, None)
            if not live:
                await self._close_warm(session_id, session, lease.fencing_token)
                return
            self._idle_tokens[session_id] = lease.fencing_token
            self.warm.keep(session_id, session, lease.fencing_token, ahead=True)
        finally:
            renewer.cancel()
            await asyncio.to_thread(self.leases.release, lease)

    async def _answer(
        self, turn: _Turn, queue: asyncio.Queue[TurnEvent | None], said: TurnMessages, hold: Hold
    ) -> tuple[TurnEvent, TurnMeter]:
        """Run the turn on the session the turn opened; it stays open if it answered.
        The meter counts the model tokens this turn spent; ``said`` collects its messages. A turn
        stopped meanwhile (its session deleted: ``hold``) is aborted in the runtime and fails; one
        stopped on request (:meth:`_abort_when_asked`) keeps what it said so far."""
        session_id, prompt, lease = turn.session_id, turn.prompt, turn.lease
        outcome: TurnEvent = Failed("The turn ended without an answer.")
        session: CopilotSession | None = turn.copy
        meter = TurnMeter()
        task = asyncio.current_task()
        stopper: asyncio.Task[None] | None = None
        try:
            hold.answering(task)
            assert session is not None
            meter.attach(session)
            stopper = asyncio.create_task(self._abort_when_asked(session_id, session, turn.since))
            time_limit = self.runtime.settings.turn_timeout
            alive = self.runtime.connected
            async for event in stream_turn(session, prompt, time_limit=time_limit, said=said, alive=alive):
                if isinstance(event, Done | Stopped):  # stored before anyone hears it is done
                    await self.runtime.save_session(session_id)
                if isinstance(event, Stopped):  # its history changes under the open copy: closed first
                    stopped_copy, session = session, None
                    if stopped_copy is not None:
                        await close_quietly(stopped_copy)
                    said.extend(await keep_stopped_answer(self.files, session_id, event))
                queue.put_nowait(event)
                outcome = event
        except AgentOrchestratorError as error:
            outcome = Failed(" ".join(str(error).split()))
            queue.put_nowait(outcome)
        except Exception as error:  # the runtime died or the connection broke mid-turn
            logger.exception("Turn failed in session %s", session_id)
            gone = not self.runtime.connected()
            outcome = Failed(
                RUNTIME_GONE if gone else f"The assistant runtime failed: {type(error).__name__}."
            )
            queue.put_nowait(outcome)
        except asyncio.CancelledError:
            if hold.stopped is None or task is None:
                raise
            task.uncancel()  # stopped on purpose: the turn ends, as a failed one
            outcome = Failed(hold.stopped)
            queue.put_nowait(outcome)
            if session is not None:
                with contextlib.suppress(Exception):  # the runtime stops asking the model
                    await asyncio.wait_for(session.abort(), _ABORT_SECONDS)
        finally:
            if stopper is not None:
                stopper.cancel()
            hold.answering(None)
            meter.detach()
            if session is not None and isinstance(outcome, Done):
                # Kept before the lease goes, so that the next turn finds it; from now on its writes
                # are checked as a warm copy's, also in the moment between release and the next turn.
                self._idle_tokens[session_id] = lease.fencing_token
                self.warm.keep(session_id, session, lease.fencing_token)
            elif session is not None:  # a failed or cancelled turn leaves no copy to trust
                await close_quietly(session)
            self._turn_fences.pop(session_id, None)
        return outcome, meter

    async def stop(self, session_id: str) -> None:
        """Ask the session's turn to stop, wherever it runs: a ``stop`` event on the session's live
        feed, which the turn's server hears at once (directly, or through PostgreSQL ``NOTIFY``) and
        every tab and device sees."""
        await self.live.publish_all([Batch(session_stream(session_id), [(STOP, {})])])

    async def _abort_when_asked(self, session_id: str, session: CopilotSession, since: int) -> None:
        """Abort the turn in the runtime once a stop is asked for (:meth:`stop`); the turn then ends
        as :class:`Stopped`, with what the model had said."""
        async for event in self.live.follow(session_stream(session_id), since):
            if isinstance(event, LiveEvent) and event.kind == STOP:
                try:
                    await asyncio.wait_for(session.abort(), _ABORT_SECONDS)
                except Exception as error:  # the turn then ends as it would have
                    logger.warning("Stopping the turn of %s failed: %s", session_id, error)
                return

    async def _keep_lease(self, lease: Lease) -> None:
        """Renew the lease every third of its ttl; each renewal moves what its fence counts on."""
        while True:
            await asyncio.sleep(self.lease_ttl / 3)
            fence = self._turn_fences.get(lease.session_id)
            mine = fence if fence is not None and fence.token == lease.fencing_token else None
            if not await asyncio.to_thread(self.leases.renew, lease, self.lease_ttl, fence=mine):
                logger.warning("Lost the lease of session %s", lease.session_id)
                current = await asyncio.to_thread(self.leases.current, lease.session_id)
                if (
                    current is not None
                    and current.holder.endswith(_DELETING)
                    and (hold := self._holds.get(lease.session_id))
                ):
                    hold.stop(DELETED)  # deleted on another server
                return

    async def wait_for_turns(self) -> None:
        """Let running turns finish (shutdown), so answers are not cut off needlessly."""
        if self._turns:
            await asyncio.wait(self._turns, timeout=self.runtime.settings.turn_timeout)

    async def _close_warm(self, session_id: str, session: CopilotSession, fencing_token: int) -> None:
        """Close a copy leaving the warm pool. Fenced by its last lease's token: a stale copy's shutdown
        record is refused rather than appended to a log that another server has written since (a
        resume needs no shutdown record; a crash leaves none either)."""
        self._idle_tokens[session_id] = fencing_token
        try:
            await close_quietly(session)
        finally:
            if self._idle_tokens.get(session_id) == fencing_token and session_id not in self.warm:
                del self._idle_tokens[session_id]


async def announce(live: LiveHub, *batches: Batch) -> list[list[LiveEvent]] | None:
    """Tell the feeds, in one write; the events as numbered, or ``None`` after a failure, which is
    logged: the feed is a view of what happened, and must not undo or fail the change."""
    try:
        return await live.publish_all(list(batches))
    except Exception:
        logger.exception("Live feed %s: publishing failed", ", ".join(batch.stream for batch in batches))
        return None


async def logged_messages(files: SessionFiles, session_id: str) -> list[TranscriptMessage]:
    """The session's messages as its event log holds them."""
    raw = await files.read_events(session_id)
    return parse_events(raw.splitlines()) if raw else []


def logged_turn(messages: list[TranscriptMessage], prompt: str) -> TranscriptMessage | None:
    """Where the log stands on a turn whose message was ``prompt`` (the catalog's pending prompt): its
    message, when it is the log's last user message; then the answer, when one follows it; ``None``
    when the message never reached the log."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].role == "user":
            if messages[index].content != prompt:
                return None
            return messages[-1] if index < len(messages) - 1 else messages[index]
    return None


async def close_quietly(session: CopilotSession) -> None:
    """Close after the turn; a failure here (e.g. a fenced-off shutdown record) must not turn an
    answered turn into an error."""
    try:
        await session.disconnect()
    except Exception as error:  # the SDK raises bare RuntimeErrors for a failed detach
        logger.warning("Closing session %s failed: %s", session.session_id, error)


async def _drain(queue: PublishingQueue) -> AsyncIterator[TurnEvent]:
    """The turn's events for its sender; the stream ends once the live feed has the turn's end too, so
    the sender's next request (another message, a delete) never overtakes the feed's last write."""
    while (event := await queue.get()) is not None:
        yield event
    await asyncio.shield(queue.published)  # a sender gone by then does not cancel the feed's write
