"""Shared session files on PostgreSQL: append throughput and cross-server resume time.

(a) The runtime appends every event to ``events.jsonl``. Provider appends (one statement each: bump
    the file row, insert a chunk) against a bare ``INSERT`` loop on the same pool -- the floor for one
    round trip per append -- and, for scale, the naive ``content = content || $1`` on one row, which
    rewrites the whole log each time.
(b) Resuming a ~200-turn session through the PostgreSQL store vs from the runtime's own disk, median
    of several resumes each, interleaved because these machines are shared and noisy. The session is
    built once by real turns against the instant scripted model (local store), then copied into
    PostgreSQL the way the runtime would have written it (line appends), so both sides resume the
    same log. Target (docs/architecture.md#performance-budgets): cross-server resume <= 2x local resume.

    uv run python bench/bench_shared_files.py [--appends 5000] [--turns 200] [--resumes 7]
"""

import argparse
import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path

from psycopg import sql

from agent_orchestrator.runtime import CopilotRuntime, RuntimeSettings
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles, PostgresSessionFsProvider
from agent_orchestrator.testing.postgres import fresh_schema, server_url
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text, user_messages

SESSION = "bench-shared-resume"
EVENTS = "/session-state/events.jsonl"


def _event_line(n: int) -> str:
    """A ~500-byte JSON line shaped like the runtime's events."""
    data = {"content": "The Champions segment spends most per visit. " * 7, "turn": n}
    event = {"type": "assistant.message", "id": f"{n:032x}", "timestamp": "2026-11-29T19:46:41.969Z"}
    return json.dumps(event | {"data": data})[:499] + "\n"


async def bench_appends(store: PostgresSessionFiles, count: int, concat_count: int) -> None:
    lines = [_event_line(n).encode() for n in range(count)]
    size = statistics.mean(len(line) for line in lines)
    provider = PostgresSessionFsProvider(store, "bench-appends")
    schema = store.tables.schema
    raw = sql.Identifier(schema, "bench_raw").as_string(None)
    concat = sql.Identifier(schema, "bench_concat").as_string(None)
    async with store.connection("bench", "") as conn:
        await conn.execute(f"CREATE TABLE {raw} (id bigserial PRIMARY KEY, session_id text, data bytea)")
        await conn.execute(f"CREATE TABLE {concat} (id int PRIMARY KEY, content bytea NOT NULL)")
        await conn.execute(f"INSERT INTO {concat} VALUES (1, ''::bytea)")
    insert = f"INSERT INTO {raw} (session_id, data) VALUES (%s, %s)"

    # Interleaved blocks, so a noisy neighbour hurts both sides alike.
    ours = floor = 0.0
    for block in range(0, count, 250):
        started = time.perf_counter()
        for line in lines[block : block + 250]:
            await provider.append_file_bytes(EVENTS, line)
        middle = time.perf_counter()
        for line in lines[block : block + 250]:
            async with store.connection("bench", "") as conn:
                await conn.execute(insert, ("bench-appends", line))
        ours, floor = ours + middle - started, floor + time.perf_counter() - middle
    assert await provider.read_file_bytes(EVENTS) == b"".join(lines)
    print(
        f"append {count} x {size:.0f} B: provider {ours:.2f} s ({ours / count * 1e3:.2f} ms each), "
        f"raw INSERT {floor:.2f} s ({floor / count * 1e3:.2f} ms each), ratio {ours / floor:.2f}x"
    )

    update = f"UPDATE {concat} SET content = content || %s WHERE id = 1"
    timings = []
    for line in lines[:concat_count]:
        started = time.perf_counter()
        async with store.connection("bench", "") as conn:
            await conn.execute(update, (line,))
        timings.append(time.perf_counter() - started)
    window = max(1, concat_count // 10)
    first, last = statistics.mean(timings[:window]), statistics.mean(timings[-window:])
    print(
        f"append via content || $1, {concat_count} appends: {sum(timings):.2f} s; first {window} avg "
        f"{first * 1e3:.2f} ms, last {window} avg {last * 1e3:.2f} ms (grows with the file)"
    )


def _settings(data_dir: Path, model: ScriptedModel) -> RuntimeSettings:
    return RuntimeSettings(
        data_dir=data_dir, provider_base_url=model.base_url, model="scripted-model", turn_timeout=120
    )


async def _build_session(home: Path, model: ScriptedModel, turns: int) -> Path:
    async with (
        CopilotRuntime(_settings(home, model)) as runtime,
        await runtime.create_session(SESSION) as session,
    ):
        for n in range(turns):
            await runtime.ask(session, f"Turn {n}: which segment grew fastest last month, and why?")
    return home / "copilot" / "session-state" / SESSION


def _read_folder(folder: Path) -> list[tuple[str, bytes | None]]:
    """The session folder as (store path, content or None for a directory), parents first."""
    return [
        ("/session-state/" + str(path.relative_to(folder)), None if path.is_dir() else path.read_bytes())
        for path in sorted(folder.rglob("*"))
    ]


async def _copy_into_store(folder: Path, store: PostgresSessionFiles) -> tuple[int, int]:
    provider = PostgresSessionFsProvider(store, SESSION)
    for target, content in _read_folder(folder):
        if content is None:
            await provider.mkdir(target, recursive=True)
        elif target == EVENTS:
            for line in content.splitlines(keepends=True):
                await provider.append_file_bytes(target, line)
        else:
            await provider.write_file_bytes(target, content)
    events = await provider.read_file_bytes(EVENTS)
    return len(events), events.count(b"\n")


async def _time_resume(runtime: CopilotRuntime) -> float:
    started = time.perf_counter()
    session = await runtime.resume_session(SESSION)
    elapsed = time.perf_counter() - started
    async with session:
        pass
    return elapsed


async def bench_resume(store: PostgresSessionFiles, turns: int, resumes: int) -> None:
    reply = Text("Champions grew fastest: more repeat visits and a larger basket in the new stores. " * 2)
    with tempfile.TemporaryDirectory() as tmp, ScriptedModel(default=lambda body: reply) as model:
        started = time.perf_counter()
        folder = await _build_session(Path(tmp) / "local", model, turns)
        built = time.perf_counter() - started
        size, lines = await _copy_into_store(folder, store)
        print(
            f"resume: built {turns} turns in {built:.1f} s; events.jsonl {size / 1e6:.2f} MB, {lines} events"
        )
        provider = PostgresSessionFsProvider(store, SESSION)
        reads = []
        for _ in range(resumes):
            started = time.perf_counter()
            await provider.read_file(EVENTS)
            reads.append(time.perf_counter() - started)
        local_times, shared_times = [], []
        async with (
            CopilotRuntime(_settings(Path(tmp) / "local", model)) as local,
            CopilotRuntime(_settings(Path(tmp) / "shared", model), session_files=store) as shared,
        ):
            await _time_resume(local)  # warm both runtimes once
            await _time_resume(shared)
            for _ in range(resumes):
                local_times.append(await _time_resume(local))
                shared_times.append(await _time_resume(shared))
            async with await shared.resume_session(SESSION) as session:  # the history really is there
                await shared.ask(session, "And the slowest?")
            remembered = len(user_messages(model.requests[-1])) - 1
    local_ms, shared_ms = statistics.median(local_times) * 1e3, statistics.median(shared_times) * 1e3
    print(f"resume local (runtime's disk): median {local_ms:.0f} ms of {resumes}")
    print(f"resume postgres (other server): median {shared_ms:.0f} ms of {resumes}")
    print(f"resume ratio postgres/local {shared_ms / local_ms:.2f}x (target <= 2x)")
    print(f"events.jsonl read from postgres alone: median {statistics.median(reads) * 1e3:.1f} ms")
    print(f"a turn after the postgres resume sent {remembered} earlier user turns to the model (of {turns})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=server_url(), help="the server, in any common URL form")
    parser.add_argument("--appends", type=int, default=5000)
    parser.add_argument("--concat-appends", type=int, default=2000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--resumes", type=int, default=7)
    args = parser.parse_args()
    with fresh_schema("bench_shared_files", url=args.url) as schema:
        async with PostgresSessionFiles.from_url(schema.server_url, schema=schema.name) as store:
            await bench_appends(store, args.appends, args.concat_appends)
            await bench_resume(store, args.turns, args.resumes)


if __name__ == "__main__":
    asyncio.run(main())
