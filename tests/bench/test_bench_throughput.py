"""The throughput benchmark's own plumbing (no timing is asserted): the ``/proc`` process-tree figures,
growing a session's log, and one tiny end-to-end run through the real app and the runtime alone, so
that the benchmark keeps working as the server changes."""

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from agent_orchestrator.testing.eventually import eventually

BENCH = Path(__file__).resolve().parents[2] / "bench"
sys.path.insert(0, str(BENCH))
load_stats = importlib.import_module("load_stats")
event_log = importlib.import_module("event_log")

# A child that burns 0.3 s of CPU, then stays alive (kept: its sleep is what keeps it in the tree).
BURN = "import time\nend = time.process_time() + 0.3\nwhile time.process_time() < end: pass\ntime.sleep(60)"


def test_a_process_tree_counts_its_children_cpu_and_memory() -> None:
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, sys; subprocess.run([sys.executable, '-c', {BURN!r}])"]
    )
    try:
        child = eventually(lambda: load_stats.process_tree(parent.pid)[1:], timeout=30)[0]
        eventually(lambda: load_stats.tree_cpu_seconds(child) >= 0.25, timeout=30)
        # the child first: it is still burning, so a reading taken after it can only be larger
        child_cpu = load_stats.tree_cpu_seconds(child)
        assert load_stats.tree_cpu_seconds(parent.pid) >= child_cpu >= 0.25
        assert load_stats.tree_rss_bytes(parent.pid) > load_stats.tree_rss_bytes(child) > 0
    finally:
        parent.kill()
        parent.wait()


def test_percentiles_and_summary() -> None:
    values = [i / 1000 for i in range(1, 101)]
    assert load_stats.percentile(values, 0.5) == 0.051
    assert load_stats.percentile(values, 0.95) == 0.096
    assert load_stats.summary(values) == "p50     51.0 ms, p95     96.0 ms, max    100.0 ms"


def test_a_grown_log_repeats_its_turn_block_between_the_same_head_and_tail(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    head = b'{"type":"session.start"}\n'
    turn = b'{"type":"user.message"}\n{"type":"assistant.message"}\n{"type":"assistant.turn_end"}\n'
    tail = b'{"type":"session.shutdown"}\n'
    events.write_bytes(head + turn + tail)
    event_log.grow_event_log(events, 3)
    assert events.read_bytes() == head + turn * 3 + tail


def test_a_transplanted_session_names_its_new_folder_and_id(tmp_path: Path) -> None:
    source, dest = tmp_path / "runtime" / "chat-a", tmp_path / "app" / "chat-b"
    (source / "checkpoints").mkdir(parents=True)
    dest.mkdir(parents=True)
    (source / "checkpoints" / "001-session-chat-a.md").write_text("summary")
    start = '{"type":"session.start","data":{"sessionId":"chat-a"}}\n'
    checkpoint = f"{source}/checkpoints/001.md"
    done = f'{{"type":"session.compaction_complete","data":{{"checkpointPath":"{checkpoint}"}}}}\n'
    (source / "events.jsonl").write_text(start + done)
    event_log.transplant_session(source, dest)
    assert (dest / "events.jsonl").read_text() == start.replace("chat-a", "chat-b") + done.replace(
        str(source), str(dest)
    )
    assert (dest / "checkpoints" / "001-session-chat-a.md").read_text() == "summary"


@pytest.mark.slow  # servers and their Copilot CLIs, in processes of their own
def test_a_tiny_run_prints_every_figure() -> None:
    command = [
        sys.executable,
        str(BENCH / "bench_throughput.py"),
        *(
            "--users",
            "2",
            "--turns",
            "2",
            "--store",
            "sqlite",
            "--soak",
            "3",
            "--warm",
            "2",
            "--cold-turns",
            "5",
            "--cold-sessions",
            "1",
            "--rounds",
            "1",
        ),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for figure in (
        "one turn each: p50",
        "2 turns each: p50",
        "app/runtime p95",
        "CPU per turn",
        "of which Python",
        "== medians over 1 round(s) ==",
        "turns 1-1 p50",
        "one session, 3 turns, through the app (SQLite)",
        "one session, 3 turns, straight on the runtime",
        "process tree RSS (MB) after turn 0:",
        "first turn of a 5-turn session",
        "sent straight away (cold resume)",
        "(opened ahead)",
        "straight on the runtime: a fresh session's first turn",
        "KiB per session",
    ):
        assert figure in done.stdout, done.stdout


@pytest.mark.postgres
def test_a_tiny_run_across_two_servers_prints_what_warm_copies_save() -> None:
    args = ("--users", "1", "--turns", "2", "--store", "postgres", "--rounds", "1")
    skip = ("--soak", "0", "--warm", "0", "--cold-turns", "0", "--across-users", "2")
    command = [sys.executable, str(BENCH / "bench_throughput.py"), *args, *skip]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    for figure in (
        "== across two servers on one PostgreSQL: 2 users at once, 2 turns each ==",
        "one server, warm copies: p50",
        "two in turn, warm copies, opened first: p50",
        "two in turn, no warm copies: p50",
        "warm copies opened ahead save",
    ):
        assert figure in done.stdout, done.stdout
