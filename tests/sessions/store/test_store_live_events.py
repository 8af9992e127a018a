"""The live feed's event log on both backends: numbering, concurrent writers, bounds, announcements."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import psycopg
import pytest
from sqlalchemy import Engine

from agent_orchestrator.sessions.store import Batch, LiveEvent, LiveEventLog
from agent_orchestrator.sessions.store.live_events import KEEP


def test_events_are_numbered_per_stream_and_read_back_in_order(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    assert log.latest("s:a") == 0 and log.after("s:a", 0) == [] and log.covers("s:a", 0)
    assert log.append("s:a", "user", {"content": "Hi ✓"}) == LiveEvent(1, "user", {"content": "Hi ✓"})
    assert log.append("s:b", "created", {}).seq == 1  # each stream counts on its own
    log.append("s:a", "delta", {"text": "He"})
    log.append("s:a", "done", {"content": "Hello"})
    assert [(e.seq, e.kind) for e in log.after("s:a", 1)] == [(2, "delta"), (3, "done")]
    assert [e.seq for e in log.current_turn("s:a")] == [3]
    assert log.covers("s:a", 1) and not log.covers("s:a", 4)  # a client ahead of the log is lost


def test_a_turns_events_written_together_end_it_and_drop_earlier_turns_deltas(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    log.append_all("s:t", [("user", {"content": "one"}), ("delta", {"text": "A"})])
    assert [
        e.seq for e in log.append_all("s:t", [("done", {"content": "A"}), ("idle", {})], ends_turn_from=1)
    ] == [
        3,
        4,
    ]
    assert [e.kind for e in log.after("s:t", 0)] == ["user", "delta", "done", "idle"]  # its own deltas stay
    second = [
        ("user", {"content": "two"}),
        ("delta", {"text": "B"}),
        ("done", {"content": "B"}),
        ("idle", {}),
    ]
    assert [e.seq for e in log.append_all("s:t", second, ends_turn_from=0)] == [5, 6, 7, 8]
    assert [(e.seq, e.kind) for e in log.after("s:t", 0)] == [
        (1, "user"),
        (3, "done"),
        (4, "idle"),
        (5, "user"),
        (6, "delta"),
        (7, "done"),
        (8, "idle"),
    ]
    assert log.append_all("s:t", []) == [] and log.latest("s:t") == 8


def test_one_write_adds_to_several_streams(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    log.append("s:t", "user", {"content": "one"})
    turn_end = Batch("s:t", [("done", {"content": "A"}), ("idle", {})], ends_turn_from=1)
    listed = Batch("u:7", [("idle", {"id": "t"})])
    assert log.append_each([turn_end, listed, Batch("u:8", [])]) == [
        [LiveEvent(2, "done", {"content": "A"}), LiveEvent(3, "idle", {})],
        [LiveEvent(1, "idle", {"id": "t"})],
        [],
    ]
    assert [e.kind for e in log.after("s:t", 0)] == ["user", "done", "idle"]
    assert log.latest("u:7") == 1 and log.latest("u:8") == 0


def test_concurrent_writers_take_consecutive_numbers(store_db) -> None:
    engines = [store_db.engine() for _ in range(4)]
    try:
        logs = [LiveEventLog(engine) for engine in engines]

        def write(log: LiveEventLog) -> None:
            for _ in range(15):
                log.append("s:shared", "delta", {"text": "x"})

        threads = [threading.Thread(target=write, args=(log,)) for log in logs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [e.seq for e in logs[0].after("s:shared", 0)] == list(range(1, 61))
    finally:
        for engine in engines:
            engine.dispose()


def test_a_restart_forgets_the_stream_but_numbers_on(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    log.append("s:x", "user", {"content": "secret of the first owner"})
    log.append("s:x", "done", {"content": "..."})
    assert log.restart("s:x", "deleted", {}).seq == 3
    assert log.after("s:x", 0) == [LiveEvent(3, "deleted", {})]
    assert not log.covers("s:x", 0) and log.covers("s:x", 2)  # an old client must reload


def test_a_deleted_session_stream_takes_no_more_events_until_created_again(store_engine: Engine) -> None:
    """A turn still running when its session was deleted writes its answer after the ``deleted``: it is
    dropped, on its own or beside another stream's events; a user's list goes on after a ``deleted``."""
    log = LiveEventLog(store_engine)
    log.append("s:x", "user", {"content": "hello"})
    log.restart("s:x", "deleted", {})
    log.append("u:1", "deleted", {"id": "x"})
    late = [Batch("s:x", [("done", {"content": "late"}), ("idle", {})]), Batch("u:1", [("idle", {})])]
    assert [[e.kind for e in events] for events in log.append_each(late)] == [[], ["idle"]]
    assert log.append_all("s:x", [("error", {"message": "late"})]) == []
    assert [e.kind for e in log.after("s:x", 0)] == ["deleted"]
    assert log.restart("s:x", "created", {}).seq == 3
    assert log.append("s:x", "user", {"content": "a new start"}).seq == 4


def test_the_log_keeps_only_the_latest_events(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    for _ in range(KEEP + 100):
        log.append("u:1", "idle", {"id": "chat"})
    kept = log.after("u:1", 0, limit=10 * KEEP)
    assert len(kept) == KEEP and kept[-1].seq == KEEP + 100
    assert not log.covers("u:1", 50) and log.covers("u:1", 100)
    log.append_all("u:1", [("idle", {"id": "chat"})] * 150)  # written together past a hundred: trimmed too
    assert len(log.after("u:1", 0, limit=10 * KEEP)) == KEEP


@pytest.mark.postgres
def test_postgresql_announces_each_write_on_commit(postgres_schema) -> None:
    from agent_orchestrator.sessions.store import make_engine, migrate

    engine = make_engine(postgres_schema.sqlalchemy_url)
    try:
        migrate(engine)
        log = LiveEventLog(engine)
        with psycopg.connect(postgres_schema.url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{log.channel()}"')
            log.append("s:chat-1", "user", {"content": "a long body that stays out of the payload"})
            log.restart("s:chat-1", "created", {})
            log.append_all("s:chat-1", [("delta", {"text": "a"}), ("delta", {"text": "b"})])  # one for both
            log.append("s:chat-1", "idle", {})
            payloads = [n.payload for n in listener.notifies(timeout=5, stop_after=4)]
    finally:
        engine.dispose()
    assert payloads == ["s:chat-1 1", "s:chat-1 2", "s:chat-1 4", "s:chat-1 5"]


@pytest.mark.postgres
def test_one_write_to_several_streams_announces_each_streams_last_event(postgres_schema) -> None:
    from agent_orchestrator.sessions.store import make_engine, migrate

    engine = make_engine(postgres_schema.sqlalchemy_url)
    try:
        migrate(engine)
        log = LiveEventLog(engine)
        log.append("u:7", "busy", {"id": "t"})
        with psycopg.connect(postgres_schema.url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{log.channel()}"')
            turn_end = Batch("s:t", [("done", {"content": "A"}), ("idle", {})], ends_turn_from=0)
            log.append_each([turn_end, Batch("u:7", [("idle", {"id": "t"})])])
            payloads = sorted(n.payload for n in listener.notifies(timeout=5, stop_after=2))
    finally:
        engine.dispose()
    assert payloads == ["s:t 2", "u:7 2"]


def test_a_turn_left_open_by_a_dead_server_is_ended_once(store_engine: Engine) -> None:
    log = LiveEventLog(store_engine)
    log.append("s:c", "user", {"content": "cut off"})
    log.append("s:c", "delta", {"text": "Hal"})
    ended = log.end_open_turn("s:c", "The server stopped.")
    assert [(e.seq, e.kind) for e in ended] == [(3, "error"), (4, "idle")]
    assert ended[0].data == {"message": "The server stopped.", "code": "turn_interrupted"}
    assert log.end_open_turn("s:c", "The server stopped.") == []  # a second server noticing: nothing
    log.append("s:c", "user", {"content": "next"})
    log.append("s:c", "done", {"content": "ok"})
    assert log.end_open_turn("s:c", "The server stopped.") == []  # an answered turn is left alone


def test_a_turn_whose_answer_reached_the_log_before_its_server_died_ends_with_that_answer(
    store_engine: Engine,
) -> None:
    """The feed tells what the transcript shows: the log had the answer, only ``done`` was lost."""
    log = LiveEventLog(store_engine)
    log.append("s:d", "user", {"content": "best segment?"})
    ended = log.end_open_turn("s:d", "The server stopped.", answer="Champions.")
    assert [(e.kind, e.data) for e in ended] == [
        ("done", {"content": "Champions.", "tool_results": []}),
        ("idle", {}),
    ]


def test_a_message_its_dead_server_never_told_is_told_with_its_end(store_engine: Engine) -> None:
    """The catalog recorded the turn (at ``began``), then its server died before the feed heard of the
    message: the feed tells it with its end, as the transcript shows it (an interrupted message). The
    server whose catalog update ended the turn tells it (``SessionCatalog.set_status(ending=)``)."""
    log = LiveEventLog(store_engine)
    log.append_all("s:e", [("user", {"content": "first"}), ("done", {"content": "ok"}), ("idle", {})])
    began = datetime.now(UTC)
    ended = log.end_open_turn("s:e", "The server stopped.", prompt="never told", since=began)
    assert [(e.seq, e.kind, e.data.get("content")) for e in ended] == [
        (4, "user", "never told"),
        (5, "error", None),
        (6, "idle", None),
    ]
    # A message the feed had is not told twice, whether its turn was ended or not.
    began = datetime.now(UTC)
    log.append("s:e", "user", {"content": "told"})
    ended = log.end_open_turn("s:e", "The server stopped.", prompt="told", since=began)
    assert [e.kind for e in ended] == ["error", "idle"]
    assert log.end_open_turn("s:e", "The server stopped.", prompt="told", since=began) == []
    # Nothing after a deleted session's last event.
    log.restart("s:e", "deleted", {})
    assert log.end_open_turn("s:e", "The server stopped.", prompt="late", since=datetime.now(UTC)) == []


def test_a_turn_another_server_ended_is_not_ended_again_by_its_own_server(store_engine: Engine) -> None:
    """A server stalled past its lease: another ended its turn; its own end, when it wakes, is dropped
    (one error in the feed, as in the transcript), and the next turn's end is written as ever."""
    log = LiveEventLog(store_engine)
    (user,) = log.append_all("s:f", [("user", {"content": "slow"})])
    log.append("s:f", "delta", {"text": "Hal"})
    assert [e.kind for e in log.end_open_turn("s:f", "The server stopped.")] == ["error", "idle"]
    late = Batch("s:f", [("error", {"message": "lease lost"}), ("idle", {})], ends_turn_from=user.seq)
    assert log.append_each([late]) == [[]]
    (user,) = log.append_all("s:f", [("user", {"content": "next"})])
    on_time = Batch("s:f", [("done", {"content": "ok"}), ("idle", {})], ends_turn_from=user.seq)
    assert [e.kind for e in log.append_each([on_time])[0]] == ["done", "idle"]
    assert [e.kind for e in log.after("s:f", 0)] == ["user", "error", "idle", "user", "done", "idle"]


@pytest.mark.postgres
def test_with_a_publisher_each_write_is_announced_through_it_after_commit_and_not_notified(
    postgres_schema,
) -> None:
    from agent_orchestrator.sessions.store import make_engine, migrate

    engine = make_engine(postgres_schema.sqlalchemy_url)
    published: list[tuple[str, str, int]] = []

    class Recording:
        def publish(self, channel: str, message: str) -> None:
            stream, _, seq = message.rpartition(" ")
            # Committed before it is announced: another connection reads the event already.
            published.append((channel, message, len(LiveEventLog(engine).after(stream, int(seq) - 1))))

    try:
        migrate(engine)
        log = LiveEventLog(engine, publisher=Recording())
        with psycopg.connect(postgres_schema.url, autocommit=True) as listener:
            listener.execute(f'LISTEN "{log.channel()}"')
            log.append("s:chat-1", "user", {"content": "hi"})
            log.append_each([Batch("s:chat-1", [("done", {"content": "A"}), ("idle", {})], 0)])
            log.restart("s:chat-1", "created", {})
            assert list(listener.notifies(timeout=1, stop_after=1)) == []
    finally:
        engine.dispose()
    channel = published[0][0]
    assert published == [(channel, "s:chat-1 1", 1), (channel, "s:chat-1 3", 1), (channel, "s:chat-1 4", 1)]
