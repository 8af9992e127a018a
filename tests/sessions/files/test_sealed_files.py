"""The PostgreSQL session files with a cipher: every stored byte sealed, reads and compaction exact,
delete destroys the key."""

from collections.abc import AsyncIterator

import psycopg
import pytest

from agent_orchestrator.sessions.crypto import SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.frames import MAGIC
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles, PostgresSessionFsProvider
from agent_orchestrator.testing.postgres import FreshSchema

pytestmark = pytest.mark.postgres
EVENTS = "/session-state/events.jsonl"


@pytest.fixture
async def store(postgres_schema: FreshSchema, keys: SessionKeys) -> AsyncIterator[PostgresSessionFiles]:
    files = PostgresSessionFiles.from_url(postgres_schema.url, compact_after_chunks=3, max_size=2)
    files.cipher = SessionCipher(keys)
    async with files:
        yield files


async def _stored(schema: FreshSchema) -> bytes:
    async with await psycopg.AsyncConnection.connect(schema.url) as conn:
        files = await (await conn.execute("SELECT content FROM session_fs_files")).fetchall()
        chunks = await (await conn.execute("SELECT data FROM session_fs_chunks")).fetchall()
    return b"".join(bytes(row[0]) for row in files + chunks)


async def test_sealed_appends_compact_read_and_export_exactly(store, postgres_schema, keys) -> None:
    fs = PostgresSessionFsProvider(store, "sess-sealed")
    expected = b""
    for n in range(10):
        line = f"secret line {n} ✓\n"
        await fs.append_file(EVENTS, line)
        expected += line.encode()
        assert await fs.read_file_bytes(EVENTS) == expected
        assert (await fs.stat(EVENTS)).size == len(expected)  # sizes stay the plaintext's
    await fs.write_file("/session-state/workspace.yaml", "cwd: /secret\n")
    raw = await _stored(postgres_schema)
    assert b"secret" not in raw and raw.startswith(MAGIC)
    assert (await store.export_files("sess-sealed"))[EVENTS] == expected
    assert await store.delete_session("sess-sealed") > 0
    assert keys.existing_key("sess-sealed") is None


async def test_seal_plain_seals_clear_and_mixed_files_once(store, postgres_schema) -> None:
    fs = PostgresSessionFsProvider(store, "sess-legacy")
    cipher, store.cipher = store.cipher, None  # written before the master key was set
    await fs.append_file(EVENTS, "secret one\n")
    await fs.append_file(EVENTS, "secret two\n")
    await fs.write_file("/session-state/workspace.yaml", "cwd: /secret\n")
    store.cipher = cipher
    await fs.append_file(EVENTS, "secret three\n")  # a sealed append to the clear file: mixed
    assert b"secret one" in await _stored(postgres_schema)

    assert await store.seal_plain("sess-legacy") == 2
    assert b"secret" not in await _stored(postgres_schema)
    assert await fs.read_file(EVENTS) == "secret one\nsecret two\nsecret three\n"
    assert (await fs.stat(EVENTS)).size == len("secret one\nsecret two\nsecret three\n")
    assert await fs.read_file("/session-state/workspace.yaml") == "cwd: /secret\n"
    assert await store.seal_plain("sess-legacy") == 0  # nothing left in clear
    await fs.append_file(EVENTS, "secret four\n")  # and the runtime goes on appending
    assert (await fs.read_file(EVENTS)).endswith("three\nsecret four\n")
