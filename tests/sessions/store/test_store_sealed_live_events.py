"""The live feed's event log with a master key, on both backends (docs/architecture.md#encryption-at-rest):
a session stream's bodies are stored sealed and read back in clear, rows from before encryption still
read, and a deleted session's rows restored from a copy read as erased."""

from __future__ import annotations

from sqlalchemy import Engine, insert, select

from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.cipher import SEALED_TEXT
from agent_orchestrator.sessions.store import LiveEvent, LiveEventLog
from agent_orchestrator.sessions.store.live_events import ERASED_EVENT, session_stream, user_stream
from agent_orchestrator.sessions.store.schema import live_events, utcnow

SESSION = "chat-1"
STREAM = session_stream(SESSION)
TURN: list[tuple[str, dict[str, object]]] = [
    ("created", {"title": "Quokka migration"}),
    ("user", {"content": "Which cherries did Zanzibar order?"}),
    ("delta", {"text": "Zanzibar ordered "}),
    ("tool", {"call_id": "c1", "name": "orders", "status": "started"}),
    ("done", {"content": "Zanzibar ordered Wombat cherries.", "tool_results": [{"text": "Wombat x2"}]}),
    ("idle", {}),
]
SECRETS = ("quokka", "migration", "cherries", "zanzibar", "wombat")


def _cipher(engine: Engine, master: MasterKeys) -> SessionCipher:
    """A cipher whose key store is the log's own database (the default), with a cold cache."""
    keys = SessionKeys(engine, master)
    keys.ensure_table()
    return SessionCipher(keys)


def _rows(engine: Engine) -> list[tuple[str, int, str, str]]:
    t = live_events
    with engine.connect() as conn:
        rows = conn.execute(select(t.c.stream, t.c.seq, t.c.kind, t.c.data).order_by(t.c.stream, t.c.seq))
        return [(r.stream, r.seq, r.kind, r.data) for r in rows]


def test_session_bodies_are_sealed_and_read_back_in_clear(store_engine: Engine) -> None:
    master = MasterKeys.from_text(MasterKeys.generate())
    log = LiveEventLog(store_engine, sealer=_cipher(store_engine, master))
    written = [log.append(STREAM, kind, data) for kind, data in TURN]
    log.append(user_stream(1), "busy", {"id": SESSION})
    assert [(e.kind, e.data) for e in written] == TURN

    rows = _rows(store_engine)
    assert not any(word in data.lower() for *_, data in rows for word in SECRETS)
    bodies = {(stream, kind): data for stream, _, kind, data in rows}
    assert all(bodies[STREAM, kind].startswith(SEALED_TEXT) for kind, data in TURN if data)
    assert bodies[STREAM, "idle"] == "{}"  # nothing to seal, no key to look up
    assert bodies[user_stream(1), "busy"] == '{"id":"chat-1"}'  # ids only: clear

    # Read back by another server (its own cipher, a cold key cache): after, current_turn.
    other = LiveEventLog(store_engine, sealer=_cipher(store_engine, master))
    assert other.after(STREAM, 0) == written
    assert other.current_turn(STREAM) == written[-1:]
    assert [e.data for e in other.after(STREAM, 1)] == [data for _, data in TURN[1:]]


def test_an_ended_turn_is_sealed_and_clear_rows_from_before_still_read(store_engine: Engine) -> None:
    master = MasterKeys.from_text(MasterKeys.generate())
    LiveEventLog(store_engine).append(STREAM, "user", {"content": "written before the key"})
    log = LiveEventLog(store_engine, sealer=_cipher(store_engine, master))
    ended = log.end_open_turn(STREAM, "The Zanzibar server stopped.")
    assert [(e.seq, e.kind) for e in ended] == [(2, "error"), (3, "idle")]
    assert [e.data for e in log.after(STREAM, 0)] == [
        {"content": "written before the key"},
        {"message": "The Zanzibar server stopped.", "code": "turn_interrupted"},
        {},
    ]
    assert not any("zanzibar" in data.lower() for *_, data in _rows(store_engine))


def test_a_deleted_sessions_rows_restored_from_a_copy_read_as_erased(store_engine: Engine) -> None:
    master = MasterKeys.from_text(MasterKeys.generate())
    cipher = _cipher(store_engine, master)
    log = LiveEventLog(store_engine, sealer=cipher)
    for kind, data in TURN:
        log.append(STREAM, kind, data)
    copy = _rows(store_engine)  # a backup, taken before the delete

    cipher.keys.destroy(SESSION)  # what deleting the session does, then its feed restarts
    deleted = log.restart(STREAM, "deleted", {})
    assert cipher.keys.existing_key(SESSION) is None  # an empty body made no new key
    with store_engine.begin() as conn:  # the backup restored next to it
        conn.execute(
            insert(live_events),
            [{"stream": s, "seq": q, "kind": k, "data": d, "at": utcnow()} for s, q, k, d in copy],
        )

    reader = LiveEventLog(store_engine, sealer=_cipher(store_engine, master))
    restored = reader.after(STREAM, 0)
    assert restored[-1] == LiveEvent(deleted.seq, "deleted", {})
    assert [(e.kind, e.data) for e in restored[:-1]] == [
        (kind, ERASED_EVENT if data else {}) for kind, data in TURN
    ]
