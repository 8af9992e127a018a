"""The sealed local session files: POSIX behaviour the runtime relies on, plaintext sizes, nothing in
clear on disk, and delete as crypto-erasure."""

from pathlib import Path

import pytest

from agent_orchestrator.sessions.crypto import SessionCipher, SessionKeys
from agent_orchestrator.sessions.crypto.local_files import SealedLocalFsProvider, SealedLocalSessionFiles

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
