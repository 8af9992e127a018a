"""Reading the end of a local event log: only the last block of a long one, the whole of a short one."""

from agent_orchestrator.runtime import session_files
from agent_orchestrator.runtime.session_files import LocalSessionFiles, from_last_line

USER = b'{"type":"user.message"'


def _log(home, lines: list[bytes]) -> None:
    folder = home / "session-state" / "chat-1"
    folder.mkdir(parents=True)
    (folder / "events.jsonl").write_bytes(b"".join(lines))


async def test_a_long_log_is_read_from_its_end(tmp_path, monkeypatch):
    monkeypatch.setattr(session_files, "TAIL_BYTES", 256)
    filler = [b'{"type":"assistant.message","content":"%s"}\n' % (b"x" * 100) for _ in range(50)]
    _log(
        tmp_path,
        [b'{"type":"user.message","n":1}\n', *filler, b'{"type":"user.message","n":2}\n', *filler[:5]],
    )
    tail = await LocalSessionFiles(tmp_path).read_events_tail("chat-1", USER)
    assert tail is not None and tail.startswith(b'{"type":"user.message","n":2}') and tail.count(b"\n") == 6


async def test_a_marker_far_back_or_missing_gives_what_the_whole_log_gives(tmp_path, monkeypatch):
    monkeypatch.setattr(session_files, "TAIL_BYTES", 64)
    lines = [b'{"type":"user.message","n":1}\n'] + [b'{"type":"tool","n":%d}\n' % n for n in range(40)]
    _log(tmp_path, lines)
    files = LocalSessionFiles(tmp_path)
    assert await files.read_events_tail("chat-1", USER) == b"".join(lines)  # found after growing the block
    assert await files.read_events_tail("chat-1", b'{"type":"none"') == b"".join(lines)
    assert await files.read_events_tail("chat-2", USER) is None


def test_a_piece_cut_from_a_log_does_not_trust_its_first_line():
    assert from_last_line(b'{"a":1}\n{"b":2}\n', b'{"a"') == b'{"a":1}\n{"b":2}\n'
    assert from_last_line(b'{"a":1}\n{"b":2}\n', b'{"a"', whole=False) is None
    assert from_last_line(b'x\n{"a":1}\n{"a":2}\n', b'{"a"', whole=False) == b'{"a":2}\n'
