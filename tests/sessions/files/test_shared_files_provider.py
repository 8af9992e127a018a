"""The PostgreSQL session-file provider, called directly, against the real database."""

import asyncio
import errno
import secrets
from types import SimpleNamespace

import pytest
from copilot.generated.rpc import DebugCollectLogsEntryKind, SessionFSErrorCode
from copilot.session_fs_provider import create_session_fs_adapter
from psycopg import sql

from agent_orchestrator.errors import SessionFileStoreError
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles, PostgresSessionFsProvider
from agent_orchestrator.testing.postgres import fresh_schema, terminate_connections

pytestmark = pytest.mark.postgres

EVENTS = "/session-state/events.jsonl"


def _provider(store: PostgresSessionFiles, session_id: str | None = None) -> PostgresSessionFsProvider:
    return PostgresSessionFsProvider(store, session_id or f"sess-{secrets.token_hex(4)}")


def _errno(info: pytest.ExceptionInfo[OSError]) -> int | None:
    return info.value.errno


async def _chunk_rows(store: PostgresSessionFiles, session_id: str) -> int:
    async with store.connection("test", "") as conn:
        query = sql.SQL(
            "SELECT count(*) FROM {} c JOIN {} f ON f.id = c.file_id WHERE f.session_id = %s"
        ).format(
            sql.Identifier(store.tables.schema, "session_fs_chunks"),
            sql.Identifier(store.tables.schema, "session_fs_files"),
        )
        cur = await conn.execute(query, (session_id,))
        return (await cur.fetchone())[0]


async def test_write_then_read_round_trips_text_and_creates_parents(store):
    fs = _provider(store)
    await fs.write_file("/session-state/checkpoints/index.md", "# Checkpoints: ünïcode ✓ 日本\n")
    assert await fs.read_file("/session-state/checkpoints/index.md") == "# Checkpoints: ünïcode ✓ 日本\n"
    assert (await fs.stat("/session-state/checkpoints")).is_directory
    assert await fs.readdir("/session-state") == ["checkpoints"]
    await fs.write_file("/session-state/checkpoints/index.md", "short")
    assert await fs.read_file("/session-state/checkpoints//./index.md") == "short"


async def test_appends_concatenate_in_order_as_chunks_not_rewrites(store):
    fs = _provider(store)
    lines = [f'{{"type":"event","n":{n}}}\n' for n in range(5)]
    for line in lines:
        await fs.append_file(EVENTS, line, 0o600)
    assert await fs.read_file(EVENTS) == "".join(lines)
    assert (await fs.stat(EVENTS)).size == len("".join(lines).encode())
    # The first append creates the file with its content; the other four are rows of their own.
    assert await _chunk_rows(store, fs.session_id) == 4


async def test_compaction_folds_chunks_back_without_losing_a_byte(pg_url, pg_schema):
    async with PostgresSessionFiles.from_url(pg_url, schema=pg_schema, compact_after_chunks=3) as store:
        fs = _provider(store)
        expected = b""
        for n in range(10):
            line = f"line {n} ✓\n"
            await fs.append_file(EVENTS, line)
            expected += line.encode()
            assert await fs.read_file_bytes(EVENTS) == expected
        assert await _chunk_rows(store, fs.session_id) < 3


class _CountingStatements(dict[str, str]):
    """The store's statements, counting which ones are looked up to run."""

    def __init__(self, statements: dict[str, str]) -> None:
        super().__init__(statements)
        self.used: list[str] = []

    def __getitem__(self, name: str) -> str:
        self.used.append(name)
        return super().__getitem__(name)


async def test_appends_arriving_together_are_written_together_and_each_hears_its_outcome(pg_url, pg_schema):
    async with PostgresSessionFiles.from_url(pg_url, schema=pg_schema, max_file_bytes=100) as store:
        sessions = [_provider(store) for _ in range(6)]
        for fs in sessions:
            await fs.append_file(EVENTS, "start\n")
        full = sessions[-1]
        await full.append_file(EVENTS, "x" * 90)
        store.statements = counted = _CountingStatements(store.statements)
        for fs in sessions:
            fs._sql = counted
        # Every session appends twice at once, and one appends to a file that does not exist yet.
        lines = [[f"{fs.session_id} {n}\n" for n in range(2)] for fs in sessions]
        pairs = zip(sessions, lines, strict=True)
        calls = [fs.append_file(EVENTS, line) for fs, mine in pairs for line in mine]
        calls.append(sessions[0].append_file("/session-state/new.log", "created\n"))
        outcomes = await asyncio.gather(*calls, return_exceptions=True)
        refused = [o for o in outcomes if isinstance(o, BaseException)]
        assert len(refused) == 2 and all(_errno_of(o) == errno.EFBIG for o in refused)  # the full file's
        for fs, mine in zip(sessions[:-1], lines[:-1], strict=True):
            assert await fs.read_file(EVENTS) == "start\n" + "".join(mine)  # each file's in its order
        assert await full.read_file(EVENTS) == "start\n" + "x" * 90  # unchanged
        assert await sessions[0].read_file("/session-state/new.log") == "created\n"
        # A file's appends wait for each other, the files' for no one: two batches took the twelve.
        assert counted.used.count("APPEND_MANY") == 2, counted.used


def _errno_of(error: BaseException) -> int | None:
    return error.errno if isinstance(error, OSError) else None


async def test_writing_over_an_appended_file_replaces_base_and_chunks(store):
    fs = _provider(store)
    for part in ("a", "b", "c"):
        await fs.append_file(EVENTS, part)
    await fs.write_file(EVENTS, "fresh")
    assert await fs.read_file(EVENTS) == "fresh"
    assert (await fs.stat(EVENTS)).size == 5
    assert await _chunk_rows(store, fs.session_id) == 0


async def test_binary_content_is_exact_and_text_reads_replace_invalid_utf8(store):
    fs = _provider(store)
    data = bytes(range(256)) * 3
    await fs.write_file_bytes("/session-state/files/blob.bin", data)
    assert await fs.read_file_bytes("/session-state/files/blob.bin") == data
    await fs.write_file_bytes("/session-state/bad.txt", b"ok \xff\xfe end")
    assert await fs.read_file("/session-state/bad.txt") == "ok \ufffd\ufffd end"


async def test_stat_reports_size_times_and_kind(store):
    fs = _provider(store)
    await fs.write_file(EVENTS, "12345")
    first = await fs.stat(EVENTS)
    assert (first.is_file, first.is_directory, first.size) == (True, False, 5)
    assert first.mtime >= first.birthtime
    await asyncio.sleep(0.01)  # kept: the clock moves, so the append's mtime is later
    await fs.append_file(EVENTS, "678")
    later = await fs.stat(EVENTS)
    assert later.size == 8 and later.mtime > first.mtime and later.birthtime == first.birthtime
    folder = await fs.stat("/session-state")
    assert folder.is_directory and not folder.is_file and folder.size == 0
    for implicit in ("/", store.working_directory):
        assert (await fs.stat(implicit)).is_directory
        assert await fs.exists(implicit)


async def test_missing_files_raise_enoent_which_the_sdk_maps_for_the_runtime(store):
    fs = _provider(store)
    for call in (fs.read_file, fs.stat, fs.readdir, fs.read_file_bytes):
        with pytest.raises(FileNotFoundError) as info:
            await call("/session-state/plan.md")
        assert _errno(info) == errno.ENOENT
    assert not await fs.exists("/session-state/plan.md")
    adapter = create_session_fs_adapter(fs)
    result = await adapter.read_file(SimpleNamespace(path="/session-state/settings.json"))
    assert result.error is not None and result.error.code == SessionFSErrorCode.ENOENT
    error = await adapter.rename(SimpleNamespace(src="/nope", dest="/also-nope"))
    assert error is not None and error.code == SessionFSErrorCode.ENOENT


async def test_mkdir_follows_posix_rules(store):
    fs = _provider(store)
    with pytest.raises(FileNotFoundError):
        await fs.mkdir("/session-state/a/b", recursive=False)
    await fs.mkdir("/session-state/a/b", recursive=True, mode=0o700)
    await fs.mkdir("/session-state/a/b", recursive=True)
    with pytest.raises(FileExistsError):
        await fs.mkdir("/session-state/a/b", recursive=False)
    await fs.mkdir("/session-state/a/c", recursive=False)
    assert sorted(await fs.readdir("/session-state/a")) == ["b", "c"]
    await fs.write_file("/session-state/file", "x")
    with pytest.raises(NotADirectoryError):
        await fs.mkdir("/session-state/file/sub", recursive=True)
    with pytest.raises(NotADirectoryError):
        await fs.write_file("/session-state/file/sub.txt", "x")


async def test_readdir_lists_direct_children_with_types(store):
    fs = _provider(store)
    await fs.write_file("/session-state/workspace.yaml", "id: x")
    await fs.append_file(EVENTS, "{}\n")
    await fs.mkdir("/session-state/files", recursive=True)
    await fs.write_file("/session-state/checkpoints/index.md", "#")
    assert await fs.readdir("/session-state") == ["checkpoints", "events.jsonl", "files", "workspace.yaml"]
    typed = {entry.name: entry.type for entry in await fs.readdir_with_types("/session-state")}
    assert typed["files"] == DebugCollectLogsEntryKind.DIRECTORY
    assert typed["events.jsonl"] == DebugCollectLogsEntryKind.FILE
    assert await fs.readdir("/session-state/files") == []
    assert await fs.readdir("/") == ["session-state"]
    with pytest.raises(NotADirectoryError):
        await fs.readdir(EVENTS)


async def test_rm_removes_files_and_trees_but_not_lookalike_siblings(store):
    fs = _provider(store)
    await fs.write_file("/s/a/b/deep.txt", "1")
    await fs.write_file("/s/a/b2/keep.txt", "2")  # shares the prefix "/s/a/b" but is not below it
    await fs.write_file("/s/a/b.txt", "3")
    with pytest.raises(OSError) as info:
        await fs.rm("/s/a/b", recursive=False, force=False)
    assert _errno(info) == errno.ENOTEMPTY
    await fs.rm("/s/a/b", recursive=True, force=False)
    assert sorted(await fs.readdir("/s/a")) == ["b.txt", "b2"]
    assert await fs.read_file("/s/a/b2/keep.txt") == "2"
    await fs.rm("/s/a/b.txt", recursive=False, force=False)
    with pytest.raises(FileNotFoundError):
        await fs.rm("/s/a/b.txt", recursive=False, force=False)
    await fs.rm("/s/a/b.txt", recursive=False, force=True)
    await fs.mkdir("/s/empty", recursive=False)
    await fs.rm("/s/empty", recursive=False, force=False)
    assert not await fs.exists("/s/empty")


async def test_rename_replaces_atomically_like_the_runtimes_workspace_yaml_write(store):
    fs = _provider(store)
    await fs.write_file("/session-state/workspace.yaml", "old")
    tmp = "/session-state/workspace.yaml.tmp.0b1c"
    await fs.write_file(tmp, "new: ")
    await fs.append_file(tmp, "value")  # chunks travel with the file
    await fs.rename(tmp, "/session-state/workspace.yaml")
    assert await fs.read_file("/session-state/workspace.yaml") == "new: value"
    assert not await fs.exists(tmp)
    assert await fs.readdir("/session-state") == ["workspace.yaml"]


async def test_rename_moves_a_directory_tree_and_refuses_nonsense(store):
    fs = _provider(store)
    await fs.write_file("/d/src/one.txt", "1")
    await fs.write_file("/d/src/sub/two.txt", "2")
    await fs.write_file("/d/src2/other.txt", "3")
    await fs.rename("/d/src", "/d/moved/here")
    assert await fs.read_file("/d/moved/here/sub/two.txt") == "2"
    assert await fs.readdir("/d/moved/here") == ["one.txt", "sub"]
    assert sorted(await fs.readdir("/d")) == ["moved", "src2"]
    assert await fs.read_file("/d/src2/other.txt") == "3"
    with pytest.raises(FileNotFoundError):
        await fs.rename("/d/src", "/d/x")
    with pytest.raises(OSError) as info:
        await fs.rename("/d/moved", "/d/moved/here/inside")
    assert _errno(info) == errno.EINVAL
    with pytest.raises(IsADirectoryError):
        await fs.rename("/d/src2/other.txt", "/d/moved")


async def test_sizes_and_paths_are_bounded_with_clear_errors(pg_url, pg_schema):
    async with PostgresSessionFiles.from_url(pg_url, schema=pg_schema, max_file_bytes=100) as store:
        fs = _provider(store)
        with pytest.raises(OSError, match="limit is 100") as info:
            await fs.write_file("/big", "x" * 101)
        assert _errno(info) == errno.EFBIG
        await fs.append_file(EVENTS, "x" * 60)
        with pytest.raises(OSError) as info:
            await fs.append_file(EVENTS, "y" * 41)
        assert _errno(info) == errno.EFBIG
        assert await fs.read_file(EVENTS) == "x" * 60  # unchanged
        await fs.append_file(EVENTS, "y" * 40)
        assert (await fs.stat(EVENTS)).size == 100
        with pytest.raises(OSError) as info:
            await fs.write_file("/" + "p" * 5000, "x")
        assert _errno(info) == errno.ENAMETOOLONG
        for bad in ("relative/path", "/with\x00nul", ""):
            with pytest.raises(OSError) as info:
                await fs.write_file(bad, "x")
            assert _errno(info) == errno.EINVAL
        with pytest.raises(IsADirectoryError):
            await fs.read_file("/session-state")


async def test_sessions_are_isolated_and_managed_as_a_whole(store):
    first, second = _provider(store, "iso-one"), _provider(store, "iso-two")
    await first.write_file("/session-state/workspace.yaml", "one")
    await first.append_file(EVENTS, "a\n")
    await first.append_file(EVENTS, "b\n")
    await second.write_file("/session-state/workspace.yaml", "two")
    assert await first.read_file("/session-state/workspace.yaml") == "one"
    assert await second.read_file("/session-state/workspace.yaml") == "two"
    assert not await second.exists(EVENTS)

    assert {"iso-one", "iso-two"} <= set(await store.session_ids())
    assert await store.has_session("iso-one") and not await store.has_session("iso-two")
    assert await store.export_files("iso-one") == {EVENTS: b"a\nb\n", "/session-state/workspace.yaml": b"one"}
    assert await store.last_modified("iso-one") == (await first.stat(EVENTS)).mtime
    assert await store.last_modified("iso-none") is None

    assert await store.delete_session("iso-one") == 3  # two files and /session-state
    assert not await first.exists(EVENTS)
    assert "iso-one" not in await store.session_ids()
    assert await second.read_file("/session-state/workspace.yaml") == "two"


async def test_connections_the_database_ended_are_replaced_at_checkout_without_an_error(store, pg_schema):
    provider = _provider(store)
    await provider.write_file(EVENTS, "before\n")
    assert await asyncio.to_thread(terminate_connections, pg_schema) >= 1  # as a restart would
    await provider.append_file(EVENTS, "after\n")
    assert await provider.read_file(EVENTS) == "before\nafter\n"


async def test_servers_starting_together_create_the_schema_once(postgres_url):
    with fresh_schema("shared_files_race", url=postgres_url, create=False) as schema:
        stores = [PostgresSessionFiles.from_url(schema.server_url, schema=schema.name) for _ in range(4)]
        try:
            await asyncio.gather(*(store.open() for store in stores))
            await asyncio.gather(*(store.ensure_schema() for store in stores))
            await _provider(stores[0], "race").write_file("/x", "ok")
            assert await _provider(stores[3], "race").read_file("/x") == "ok"
        finally:
            await asyncio.gather(*(store.close() for store in stores))


async def test_an_unreachable_database_is_one_clear_error_and_provider_for_does_no_io():
    store = PostgresSessionFiles.from_url("postgresql://postgres@127.0.0.1:1/test", open_timeout=1)
    fs = store.provider_for(SimpleNamespace(session_id="offline"))  # sync, must not connect
    with pytest.raises(SessionFileStoreError, match="unavailable") as info:
        await fs.read_file(EVENTS)
    assert _errno(info) == errno.EIO
    await store.close()


def test_only_postgresql_urls_are_accepted():
    with pytest.raises(ValueError, match="postgresql://"):
        PostgresSessionFiles.from_url("mysql://db/x")
    PostgresSessionFiles.from_url("postgresql+psycopg://u@h/db")
    PostgresSessionFiles.from_url("postgres://u@h/db")
