"""Long sessions without running their turns in the app: a turn block repeated, or a real long chat's
log given to another session."""

import shutil
from pathlib import Path


def grow_event_log(events: Path, turns: int) -> None:
    """Repeat the real turn block of a 1-turn session's ``events.jsonl`` ``turns`` times (the same event
    shapes the runtime writes), so the runtime resumes and replays a session of that length."""
    lines = events.read_bytes().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"user.message"'))
    end = next(i for i, line in enumerate(lines) if line.startswith(b'{"type":"assistant.turn_end"'))
    events.write_bytes(b"".join(lines[:start] + lines[start : end + 1] * turns + lines[end + 1 :]))


def transplant_session(source: Path, dest: Path) -> None:
    """Give the session whose folder is ``dest`` the history of the one in ``source`` (a long chat run
    for real, straight on the runtime): its ``events.jsonl`` and ``checkpoints``, with the source's
    folder and id renamed to the destination's wherever the log names them. Unlike a repeated turn
    block, such a log holds the compactions the runtime made along the way, as a real long chat's does,
    so resuming it costs what resuming a real one costs."""
    log = (source / "events.jsonl").read_bytes()
    log = log.replace(str(source).encode(), str(dest).encode())
    log = log.replace(f'"sessionId":"{source.name}"'.encode(), f'"sessionId":"{dest.name}"'.encode())
    if (source / "checkpoints").is_dir():
        shutil.copytree(source / "checkpoints", dest / "checkpoints", dirs_exist_ok=True)
    (dest / "events.jsonl").write_bytes(log)


def copy_session(source: Path, dest: Path) -> None:
    """A stored session of its own at ``dest`` (another id, in any home) with the whole history of the
    one in ``source``: its workspace record under the new id and folder, then what
    :func:`transplant_session` gives."""
    dest.mkdir(parents=True)
    workspace = (source / "workspace.yaml").read_text()
    workspace = workspace.replace(f"id: {source.name}\n", f"id: {dest.name}\n")
    (dest / "workspace.yaml").write_text(workspace.replace(str(source), str(dest)))
    transplant_session(source, dest)
