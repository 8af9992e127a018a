"""Encryption at rest of the shared session files: what it costs on append and on a 200-turn resume.

(a) Provider appends of ~500-byte event lines to ``events.jsonl``, plain store vs encrypted store
    (AES-256-GCM frame per append, data key cached), interleaved blocks on the same PostgreSQL.
(b) Resuming a ~200-turn session through each store with the real runtime: the session is built once
    by real turns against the instant scripted model, copied into both stores the way the runtime
    writes it (line appends), then resumed alternately; medians. The encrypted resume reads and
    decrypts every frame of the log. Target (docs/architecture.md#performance-budgets): <= 1.10x.

    uv run python bench/bench_encryption.py [--appends 3000] [--turns 200] [--resumes 9]
"""

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from bench_shared_files import (
    EVENTS,
    SESSION,
    _build_session,
    _copy_into_store,
    _event_line,
    _settings,
    _time_resume,
)

from agent_orchestrator.runtime import CopilotRuntime
from agent_orchestrator.sessions.crypto import MasterKeys, SessionCipher, SessionKeys
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles, PostgresSessionFsProvider
from agent_orchestrator.sessions.store import make_engine
from agent_orchestrator.testing.postgres import FreshSchema, fresh_schema, server_url
from agent_orchestrator.testing.scripted_model import ScriptedModel, Text


def _cipher(schema: FreshSchema) -> SessionCipher:
    keys = SessionKeys(make_engine(schema.sqlalchemy_url), MasterKeys.from_text(MasterKeys.generate()))
    keys.ensure_table()
    return SessionCipher(keys)


async def bench_appends(plain: PostgresSessionFiles, sealed: PostgresSessionFiles, count: int) -> None:
    lines = [_event_line(n).encode() for n in range(count)]
    providers = {
        "plain": PostgresSessionFsProvider(plain, "bench-appends"),
        "encrypted": PostgresSessionFsProvider(sealed, "bench-appends"),
    }
    spent = dict.fromkeys(providers, 0.0)
    for block in range(0, count, 250):
        for name, provider in providers.items():
            started = time.perf_counter()
            for line in lines[block : block + 250]:
                await provider.append_file_bytes(EVENTS, line)
            spent[name] += time.perf_counter() - started
    for provider in providers.values():
        assert await provider.read_file_bytes(EVENTS) == b"".join(lines)
    for name, seconds in spent.items():
        print(
            f"append {count} x {len(lines[0])} B, {name}: {seconds:.2f} s "
            f"({seconds / count * 1e3:.3f} ms each)"
        )
    print(f"append ratio encrypted/plain {spent['encrypted'] / spent['plain']:.3f}x")


async def bench_resume(
    plain: PostgresSessionFiles, sealed: PostgresSessionFiles, turns: int, resumes: int
) -> None:
    reply = Text("Champions grew fastest: more repeat visits and a larger basket in the new stores. " * 2)
    with tempfile.TemporaryDirectory() as tmp, ScriptedModel(default=lambda body: reply) as model:
        started = time.perf_counter()
        folder = await _build_session(Path(tmp) / "local", model, turns)
        print(f"resume: built {turns} turns in {time.perf_counter() - started:.1f} s")
        for store in (plain, sealed):
            size, lines = await _copy_into_store(folder, store)
        print(f"events.jsonl {size / 1e6:.2f} MB, {lines} events, in each store")
        reads: dict[str, list[float]] = {"plain": [], "encrypted": []}
        times: dict[str, list[float]] = {"plain": [], "encrypted": []}
        async with (
            CopilotRuntime(_settings(Path(tmp) / "plain", model), session_files=plain) as on_plain,
            CopilotRuntime(_settings(Path(tmp) / "sealed", model), session_files=sealed) as on_sealed,
        ):
            runtimes = {"plain": on_plain, "encrypted": on_sealed}
            stores = {"plain": plain, "encrypted": sealed}
            for runtime in runtimes.values():
                await _time_resume(runtime)  # warm each runtime (and the data key cache) once
            for _ in range(resumes):
                for name, runtime in runtimes.items():
                    times[name].append(await _time_resume(runtime))
                    started = time.perf_counter()
                    await stores[name].read_events(SESSION)
                    reads[name].append(time.perf_counter() - started)
    medians = {name: statistics.median(values) * 1e3 for name, values in times.items()}
    for name in times:
        print(
            f"resume {turns} turns, {name}: median {medians[name]:.0f} ms of {resumes}; "
            f"events.jsonl read alone: median {statistics.median(reads[name]) * 1e3:.1f} ms"
        )
    print(f"resume ratio encrypted/plain {medians['encrypted'] / medians['plain']:.3f}x (target <= 1.10x)")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=server_url(), help="the server, in any common URL form")
    parser.add_argument("--appends", type=int, default=3000)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--resumes", type=int, default=9)
    args = parser.parse_args()
    with (
        fresh_schema("bench_plain", url=args.url) as plain_schema,
        fresh_schema("bench_sealed", url=args.url) as sealed_schema,
    ):
        cipher = _cipher(sealed_schema)
        sealed_store = PostgresSessionFiles.from_url(sealed_schema.server_url, schema=sealed_schema.name)
        sealed_store.cipher = cipher
        try:
            async with (
                PostgresSessionFiles.from_url(plain_schema.server_url, schema=plain_schema.name) as plain,
                sealed_store,
            ):
                await bench_appends(plain, sealed_store, args.appends)
                await bench_resume(plain, sealed_store, args.turns, args.resumes)
        finally:
            cipher.close()


if __name__ == "__main__":
    asyncio.run(main())
