"""Long sessions without running their turns: the runtime's own event log, its turn block repeated."""

from pathlib import Path


def grow_event_log(events: Path, turns: int) -> None:
    """Repeat the real turn block of a 1-turn session's ``events.jsonl`` ``turns`` times (the same event
    shapes the runtime writes), so the runtime resumes and replays a session of that length."""
    lines = events.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"user.message"'))
    end = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant.turn_end"'))
    events.write_bytes(b"".join(lines[:start] + lines[start : end + 1] * turns + lines[end + 1 :]))
