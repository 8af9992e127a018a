"""The sealed local session files: POSIX behaviour the runtime relies on, plaintext sizes, nothing in
clear on disk, and delete as crypto-erasure."""

from pathlib import Path

import pytest

from agent_orchestrator.sessions.crypto import SessionCipher, SessionKeys
from agent_orchestrator.sessions.files.sealed import SealedLocalFsProvider, SealedLocalSessionFiles

EVENTS = "/session-state/events.jsonl"


@pytest.fixture
def store(tmp_path: Path, keys: SessionKeys) -> SealedLocalSessionFiles:
    return SealedLocalSessionFiles(tmp_path / "sealed", SessionCipher(keys))


async def test_files_behave_like_posix_and_are_sealed_on_disk(store: SealedLocalSessionFiles) -> None:
    fs = SealedLocalFsProvider(store, "sess-1")
    assert await fs.exists("/workspace") and (await fs.stat("/")).is_directory  # implicit directories
    with pytest.raises(FileNotFoundError):
        await fs.read_file("/session-state/settings.json")
    await fs.append_file(EVENTS, "secret one\n")
    await fs.append_file(EVENTS, "secret two ✓\n")
    assert await fs.read_file(EVENTS) == "secret one\nsecret two ✓\n"
    assert (await fs.stat(EVENTS)).size == len("secret one\nsecret two ✓\n".encode())
    await fs.write_file("/session-state/workspace.yaml.tmp.1", "cwd: secret\n")
    await fs.rename("/session-state/workspace.yaml.tmp.1", "/session-state/workspace.yaml")  # atomic write
    await fs.mkdir("/session-state/checkpoints", recursive=True)
    assert await fs.readdir("/session-state") == ["checkpoints", "events.jsonl", "workspace.yaml"]
    with pytest.raises(FileExistsError):
        await fs.mkdir("/session-state/checkpoints", recursive=False)
    await fs.rm("/session-state/checkpoints", recursive=False, force=False)
    await fs.rm("/session-state/missing", recursive=False, force=True)
    assert not [p for p in store.root.rglob("*") if p.is_file() and b"secret" in p.read_bytes()]
    assert await store.read_events("sess-1") == "secret one\nsecret two ✓\n".encode()

    assert await store.delete_session("sess-1") > 0
    assert not await store.has_session("sess-1")
    assert store.cipher.keys.existing_key("sess-1") is None


def _clear_session(folder: Path) -> None:
    """A session as the runtime writes it itself, in clear, without the session_fs hook."""
    (folder / "checkpoints").mkdir(parents=True)
    (folder / "files").mkdir()
    (folder / "events.jsonl").write_text("secret one\nsecret two\n")
    (folder / "workspace.yaml").write_text("cwd: /secret\n")
    (folder / "checkpoints" / "index.md").write_text("# secret checkpoints\n")
    (folder / ".workspace-fork.lock").write_bytes(b"")


async def test_adopting_a_clear_session_seals_it_where_the_hook_looks(
    store: SealedLocalSessionFiles, tmp_path: Path
) -> None:
    clear = tmp_path / "copilot" / "session-state" / "sess-1"
    _clear_session(clear)
    (store.root / ".adopting-sess-1" / "half").mkdir(parents=True)  # a crashed run's staging
    assert await store.adopt_plain("sess-1", clear) == "sealed"
    assert not clear.exists() and not (store.root / ".adopting-sess-1").exists()
    fs = SealedLocalFsProvider(store, "sess-1")
    assert await store.read_events("sess-1") == b"secret one\nsecret two\n"
    assert await fs.read_file("/session-state/workspace.yaml") == "cwd: /secret\n"
    assert await fs.read_file("/session-state/checkpoints/index.md") == "# secret checkpoints\n"
    assert await fs.readdir("/session-state") == [
        ".workspace-fork.lock",
        "checkpoints",
        "events.jsonl",
        "files",
        "workspace.yaml",
    ]
    assert not [p for p in store.root.rglob("*") if p.is_file() and b"secret" in p.read_bytes()]
    assert await store.adopt_plain("sess-1", clear) == "absent"


async def test_adopting_finishes_a_crashed_run_and_leaves_a_conflict_alone(
    store: SealedLocalSessionFiles, tmp_path: Path
) -> None:
    clear = tmp_path / "copilot" / "session-state" / "sess-1"
    _clear_session(clear)
    assert await store.adopt_plain("sess-1", clear) == "sealed"
    _clear_session(clear)  # as if the run had crashed between the rename and removing the clear copy
    assert await store.adopt_plain("sess-1", clear) == "sealed" and not clear.exists()
    _clear_session(clear)
    (clear / "events.jsonl").write_text("another conversation\n")
    assert await store.adopt_plain("sess-1", clear) == "conflict"
    assert clear.exists() and await store.read_events("sess-1") == b"secret one\nsecret two\n"
