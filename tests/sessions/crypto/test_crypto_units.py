"""The pieces of encryption at rest: frames, master keys and their rotation, the key store."""

from pathlib import Path

import pytest
from sqlalchemy import select

from agent_orchestrator.errors import DecryptionError, InvalidInputError
from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.cipher import ERASED
from agent_orchestrator.sessions.crypto.frames import seal, unseal
from agent_orchestrator.sessions.store import SessionCatalog, SessionRecord, UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.schema import interrupted_turns, sessions, utcnow

KEY = bytes(range(32))


def test_sealed_frames_concatenate_like_their_plaintexts_and_are_bound_to_the_session() -> None:
    stored = seal(KEY, b"first line\n", b"sess-1") + seal(KEY, b"second line\n", b"sess-1")
    assert b"line" not in stored
    assert unseal(KEY, stored, b"sess-1") == b"first line\nsecond line\n"
    with pytest.raises(DecryptionError):
        unseal(KEY, stored, b"sess-2")  # copied into another session
    with pytest.raises(DecryptionError):
        unseal(bytes(32), stored, b"sess-1")  # another key
    with pytest.raises(DecryptionError):
        unseal(KEY, stored[:-3], b"sess-1")  # cut short


def test_a_key_file_lists_master_keys_the_last_one_current() -> None:
    old, new = MasterKeys.generate(), MasterKeys.generate()
    keys = MasterKeys.from_text(f"2025 {old}\n# rotated in 2026\n2026 {new}\n")
    assert keys.current_id == "2026"
    wrapped = MasterKeys.from_text(f"2025 {old}").wrap(KEY, "sess-1")
    assert keys.unwrap(wrapped, "sess-1") == KEY
    with pytest.raises(DecryptionError):
        keys.unwrap(wrapped, "sess-2")
    with pytest.raises(InvalidInputError):
        MasterKeys.from_text("not-base64!")
    with pytest.raises(InvalidInputError):
        MasterKeys.from_text("c2hvcnQ=")  # 5 bytes, not 32


def test_rotation_rewraps_data_keys_and_destroying_one_is_final(tmp_path: Path) -> None:
    old, new = MasterKeys.generate(), MasterKeys.generate()
    engine = make_engine(f"sqlite:///{tmp_path / 'keys.sqlite'}")
    before = SessionKeys(engine, MasterKeys.from_text(f"old {old}"), cache_seconds=0)
    before.ensure_table()
    data_key = before.key_for("sess-1")
    before.key_for("sess-2")
    after = SessionKeys(engine, MasterKeys.from_text(f"old {old}\nnew {new}"), cache_seconds=0)
    assert after.rotate() == 2 and after.rotate() == 0
    assert SessionKeys(engine, MasterKeys.from_text(f"new {new}")).existing_key("sess-1") == data_key
    assert after.destroy("sess-1") and after.existing_key("sess-1") is None
    with pytest.raises(DecryptionError):  # a late write for a deleted session gets no new key
        after.key_for("sess-1")
    assert after.existing_key("sess-1") is None and after.rotate() == 0 and not after.destroy("sess-1")
    after.new_session("sess-1")
    assert after.key_for("sess-1") != data_key  # a re-created id gets a new key
    engine.dispose()


def test_the_catalog_keeps_crash_recovery_messages_sealed(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    migrate(engine)
    keys = SessionKeys(engine, MasterKeys.from_text(MasterKeys.generate()))
    keys.ensure_table()
    catalog = SessionCatalog(engine, sealer=SessionCipher(keys))
    owner = UserStore(engine).create("alice", "correct horse battery")
    catalog.create(SessionRecord.new("sess-1", owner.id, "Plans"))
    catalog.record_turn("sess-1", preview="…", status="busy", prompt="My plan is Quokka-42")
    catalog.save_interrupted("sess-1", "Earlier: Wombat-77", utcnow())
    with engine.connect() as conn:
        stored = conn.execute(select(sessions.c.pending_prompt)).scalar_one()
        kept = conn.execute(select(interrupted_turns.c.prompt)).scalar_one()
    assert stored.startswith("sealed:v1:") and "Quokka" not in stored and "Wombat" not in kept
    record = catalog.get("sess-1")
    assert record is not None and record.pending_prompt == "My plan is Quokka-42"
    assert [text for text, _ in catalog.interrupted("sess-1")] == ["Earlier: Wombat-77"]
    keys.destroy("sess-1")
    # Crypto-erased: the texts read as erased (a session being deleted), and reading makes no new key.
    after = SessionCatalog(engine, sealer=SessionCipher(keys))
    assert [text for text, _ in after.interrupted("sess-1")] == [ERASED]
    record = after.get("sess-1")
    assert record is not None and (record.title, record.pending_prompt) == (ERASED, ERASED)
    assert keys.existing_key("sess-1") is None
    engine.dispose()
