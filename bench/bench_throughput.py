"""Throughput of the web app against the runtime's own speed, measured in one run.

    uv run python bench/bench_throughput.py [--users 100] [--turns 5] [--store both|sqlite|postgres]
        [--rounds 3] [--soak 300] [--warm 1000] [--cold-turns 1000] [--across-users 20]
    uv run python bench/bench_throughput.py --users 10 --rounds 1 --soak 60 --warm 50      (a quick run)

Everything runs for real (uvicorn, the Copilot CLI, SQLite or PostgreSQL) on the instant scripted model,
so every figure is the server's and the runtime's own overhead:

* the yardstick: the same load straight on the runtime, sessions kept open (``runtime_load.py``);
  with PostgreSQL, also the runtime alone with its files in the shared store (``session_fs``, on a
  fresh schema), which tells what the runtime itself spends in that mode from what the app adds;
* per store (SQLite, one server; PostgreSQL, shared mode on a fresh schema): one turn alone,
  ``--users`` concurrent users with one turn each, and the same users sending ``--turns`` turns each
  (sequential per user), as p50/p95/max with the app/runtime ratio, and CPU per turn of the process tree
  (and of its Python process); ``--rounds`` times over, with each budgeted figure's median over the
  rounds at the end. The yardstick and the servers are all up at once and take turns load by load
  (their order turning every round), so the figures that are divided were taken seconds apart: a
  shared machine's speed drifts between minutes;
* on SQLite: a ``--soak``-turn chat in one session (first vs last turns, memory every 50 turns), and the
  same chat straight on the runtime; the first turn of a ``--cold-turns``-turn session in a restarted
  server vs a fresh session's first turn, sent straight away (a cold resume) and sent after opening the
  chat and ``THINK_SECONDS`` of reading and typing (the copy opened ahead), and the same cold resume
  straight on the runtime (``runtime_load.py --cold``) against its own fresh first turn; the server's
  memory for ``--warm`` more sessions with one turn each. The long sessions get the log of a chat of
  that length run for real straight on the runtime first, with the compactions the runtime made along
  the way.

* across two servers on one PostgreSQL (``--across-users`` users, ``--turns`` turns each, sequential
  per user, all users at once): every chat on one server (its warm copy current at every turn); each
  chat's turns handed to the two servers in turn, as a balancer without stickiness does, straight
  (every copy is stale by its server's next turn, so each turn resumes), and after opening the chat
  on the server that will answer (``ACROSS_THINK_SECONDS`` before sending: the copy opened ahead);
  and the same alternation on two servers that keep no warm copies (``AGENT_WARM_SESSIONS=0``). What
  warm copies still save across servers is the difference; every acknowledged turn must answer.

The scripted model announces a context window of ``--context-tokens`` (default 16,384: the retail
tools' schemas alone are about 8,000 tokens), so long chats are compacted by the runtime as they
would be on a real model; without a window the runtime would send a 300-turn history with every turn.

The app is driven through its public HTTP API only, by clients on uvloop (the load they put on the
machine's cores is not the server's). Every server gets ``AGENT_WARM_SESSIONS`` large
enough to keep all of the run's sessions warm (docs/architecture.md#performance-budgets).
"""

import argparse
import asyncio
import contextlib
import json
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import uvloop
from event_log import copy_session, transplant_session
from load_stats import (
    ALONE,
    ALONE_TURNS,
    BURST,
    CONVERSATIONS,
    Phase,
    Send,
    bounded,
    cpu_reader,
    ms,
    percentile,
    run_phase,
    summary,
    timed,
    tree_cpu_seconds,
)
from load_stats import tree_rss_bytes as rss
from web_users import WebUser, create_users, demo_password, runtime_ids

from agent_orchestrator.testing.app_process import AppProcess
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import (
    FreshSchema,
    display_url,
    fresh_schema,
    postgres_problem,
    server_url,
)
from agent_orchestrator.testing.scripted_model import ScriptedModel

RUNTIME_WORKER = Path(__file__).with_name("runtime_load.py")
RUNTIME = "runtime"
RUNTIME_SHARED = "runtime, files in PostgreSQL"  # the yardstick's twin in shared mode
RUNTIME_SOAK_SESSION = "bench-runtime-soak"  # the session runtime_load.py's soak chats in
COLD_SESSIONS = 3  # long sessions per way of reaching them (--cold-sessions); the figures are their medians
THINK_SECONDS = 2.0  # between opening a chat and sending: reading it and typing
IDLE_SECONDS = 5.0  # each window the CPU of a server with its warm sessions open is measured over
SOAK_PROMPT = "What is our best segment?"
SOAK_RSS_EVERY = 50
ACROSS_THINK_SECONDS = 1.0  # across servers: between opening the chat on a server and sending there
MB = 1024 * 1024


@dataclass(frozen=True)
class Bench:
    model: ScriptedModel
    root: Path
    warm_setting: int
    context_tokens: int

    def env(self, home: Path, **extra: str) -> dict[str, str]:
        settings = {
            "AGENT_ORCHESTRATOR_HOME": str(home),
            "AGENT_PROVIDER_BASE_URL": self.model.base_url,
            "AGENT_MODEL": "scripted-model",
            "AGENT_WARM_SESSIONS": str(self.warm_setting),
            "AGENT_PROVIDER_MAX_PROMPT_TOKENS": str(self.context_tokens),
        }
        return clean_environment(**(settings | extra))


# ------------------------------------------------------------------------------------------ loads


class RuntimeTarget:
    """The yardstick: ``runtime_load.py`` in a process of its own, on a home of its own, with its
    sessions prepared; it runs each load when asked (see its docstring)."""

    def __init__(
        self, bench: Bench, users: int, name: str = RUNTIME, home: Path | None = None, **env: str
    ) -> None:
        self.name = name
        command = [sys.executable, str(RUNTIME_WORKER), "--users", str(users)]
        env = bench.env(home or bench.root / "runtime-load", **env)
        self._process = subprocess.Popen(
            command,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        self._answer()  # ready

    def _answer(self) -> dict[str, Any]:
        assert self._process.stdout is not None
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError(f"the runtime-alone worker ended (exit code {self._process.wait()})")
        return json.loads(line)

    async def phase(self, kind: str, turns: int) -> Phase:
        assert self._process.stdin is not None
        self._process.stdin.write(json.dumps({"kind": kind, "turns": turns}) + "\n")
        self._process.stdin.flush()
        return Phase(**await asyncio.to_thread(self._answer))

    async def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        await asyncio.to_thread(self._process.wait)


class AppTarget:
    """A server of the app, driven through its HTTP API: ``users`` accounts with one session each, all
    with one answered turn."""

    def __init__(self, name: str, app: AppProcess, people: list[WebUser], senders: list[Send]) -> None:
        self.name, self._app, self._people, self._senders = name, app, people, senders

    @classmethod
    async def start(
        cls, name: str, bench: Bench, home: Path, catalog_url: str, users: int, **env: str
    ) -> "AppTarget":
        names = [f"user{i:04d}" for i in range(users)]
        create_users(catalog_url, names)
        app = AppProcess(bench.env(home, **env)).start()
        people = [WebUser(app.url) for _ in names]
        sessions: dict[int, str] = {}

        async def sign_in(i: int) -> None:
            await people[i].login(names[i])
            sessions[i] = await people[i].new_session()

        await bounded([partial(sign_in, i) for i in range(users)])
        senders: list[Send] = [partial(people[i].send, sessions[i]) for i in range(users)]
        await bounded(senders)
        return cls(name, app, people, senders)

    async def phase(self, kind: str, turns: int) -> Phase:
        return await run_phase(self._senders, kind, turns, cpu_reader(_pid(self._app)))

    async def close(self) -> None:
        await asyncio.gather(*(person.close() for person in self._people))
        self._app.stop()


Target = RuntimeTarget | AppTarget


def _runtime_worker(bench: Bench, home: str, *args: str) -> dict[str, Any]:
    command = [sys.executable, str(RUNTIME_WORKER), *args]
    done = subprocess.run(
        command, env=bench.env(bench.root / f"runtime-{home}"), capture_output=True, text=True
    )
    if done.returncode != 0:
        raise RuntimeError(f"the runtime-alone {home} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


async def _cpu_share(app: AppProcess, seconds: float) -> float:
    """The share of a core the app's process tree uses over the next ``seconds``."""
    before = tree_cpu_seconds(_pid(app))
    await asyncio.sleep(seconds)
    return (tree_cpu_seconds(_pid(app)) - before) / seconds


def _pid(app: AppProcess) -> int:
    assert app.proc is not None, "start() first"
    return app.proc.pid


def _p95(values: list[float]) -> float:
    return percentile(values, 0.95)


async def loads_in_rounds(bench: Bench, args: argparse.Namespace, stores: tuple[str, ...]) -> None:
    """The loads on every target, interleaved: the runtime alone and each store's server are all up,
    with their sessions prepared, and each load runs on one target after the other (their order turning
    every round), so a machine that slows down for a while slows every target's figures alike; each
    budgeted figure is reported per round and as its median over the rounds."""
    targets: list[Target] = [RuntimeTarget(bench, args.users)]
    with contextlib.ExitStack() as schemas:
        try:
            if "sqlite" in stores:
                home = bench.root / "sqlite"
                home.mkdir()
                catalog = f"sqlite:///{home / 'catalog.sqlite'}"
                targets.append(await AppTarget.start("SQLite", bench, home, catalog, args.users))
            if "postgres" in stores:
                files = schemas.enter_context(fresh_schema("bench_runtime"))
                home = bench.root / "runtime-shared"
                targets.append(RuntimeTarget(bench, args.users, RUNTIME_SHARED, home, DATABASE_URL=files.url))
                schema = schemas.enter_context(fresh_schema("bench"))
                home = bench.root / "postgres"
                targets.append(
                    await AppTarget.start(
                        "PostgreSQL", bench, home, schema.sqlalchemy_url, args.users, DATABASE_URL=schema.url
                    )
                )
            await _rounds(targets, args)
        finally:
            for target in targets:
                await target.close()


async def _rounds(targets: list[Target], args: argparse.Namespace) -> None:
    loads = ((ALONE, ALONE_TURNS), (BURST, 1), (CONVERSATIONS, args.turns))
    budgeted: dict[str, list[float]] = {}
    for number in range(args.rounds):
        order = targets[number % len(targets) :] + targets[: number % len(targets)]
        figures: dict[str, dict[str, Phase]] = {target.name: {} for target in targets}
        for kind, turns in loads:
            for target in order:
                figures[target.name][kind] = await target.phase(kind, turns)
        print(f"\n== round {number + 1} of {args.rounds} (order: {', '.join(t.name for t in order)}) ==")
        for name, value in report_round(figures, args.users, args.turns).items():
            budgeted.setdefault(name, []).append(value)
    print(f"\n== medians over {args.rounds} round(s) ==")
    for name, values in budgeted.items():
        print(f"{name}: {statistics.median(values):.2f}  (rounds: {', '.join(f'{v:.2f}' for v in values)})")


def report_round(figures: dict[str, dict[str, Phase]], users: int, turns: int) -> dict[str, float]:
    """Print one round's figures against the yardstick; return the budgeted ones (by name)."""
    runtime = figures[RUNTIME]
    yardstick = statistics.median(runtime[ALONE].times)
    print(f"one turn alone, p50: runtime {ms(yardstick).strip()}")
    for kind, label in (
        (BURST, f"{users} users at once, one turn each"),
        (CONVERSATIONS, f"{users} users, {turns} turns each"),
    ):
        print(f"{label}: runtime {summary(runtime[kind].times)}")
    budgeted: dict[str, float] = {}
    if (shared := figures.get(RUNTIME_SHARED)) is not None:
        for kind, label in ((BURST, "one turn each"), (CONVERSATIONS, f"{turns} turns each")):
            ratio = _p95(shared[kind].times) / _p95(runtime[kind].times)
            print(
                f"{RUNTIME_SHARED}, {label}: {summary(shared[kind].times)}; /runtime p95 {ratio:.2f}, "
                f"CPU per turn {ms(shared[kind].cpu / len(shared[kind].times)).strip()}"
            )
            budgeted[f"{RUNTIME_SHARED}/runtime p95, {label}"] = ratio
    for name, phases in figures.items():
        if name in (RUNTIME, RUNTIME_SHARED):
            continue
        alone = statistics.median(phases[ALONE].times)
        above = ms(alone - yardstick).strip()
        print(f"-- {name}: one turn alone p50 {ms(alone).strip()}, {above} above (target <= 60 ms)")
        budgeted[f"{name}: one turn alone, ms above the runtime (target <= 60)"] = (alone - yardstick) * 1000
        for kind, label, target in (
            (BURST, "one turn each", " (target <= 1.3)"),
            (CONVERSATIONS, f"{turns} turns each", ""),
        ):
            app, bare = phases[kind], runtime[kind]
            ratio = _p95(app.times) / _p95(bare.times)
            count = len(app.times)

            def per_turn(seconds: float, count: int = count) -> str:
                return ms(seconds / count).strip()

            print(
                f"   {label}: {summary(app.times)}; app/runtime p95 {ratio:.2f}{target}; "
                f"CPU per turn {per_turn(app.cpu)} (runtime {per_turn(bare.cpu)}), "
                f"of which Python {per_turn(app.python_cpu)} (runtime's driver {per_turn(bare.python_cpu)})"
            )
            budgeted[f"{name}: {label}, app/runtime p95{target}"] = ratio
            if name == "PostgreSQL" and shared is not None:
                mode = _p95(app.times) / _p95(shared[kind].times)
                print(f"   {label}: app/({RUNTIME_SHARED}) p95 {mode:.2f}")
                budgeted[f"{name}: {label}, app/({RUNTIME_SHARED}) p95"] = mode
    if "SQLite" in figures and "PostgreSQL" in figures:
        for kind, label in ((BURST, "one turn each"), (CONVERSATIONS, f"{turns} turns each")):
            ratio = _p95(figures["PostgreSQL"][kind].times) / _p95(figures["SQLite"][kind].times)
            print(f"PostgreSQL/SQLite p95, {label}: {ratio:.2f} (target <= 1.2)")
            budgeted[f"PostgreSQL/SQLite p95, {label} (target <= 1.2)"] = ratio
    return budgeted


# -------------------------------------------------------------------------------- one session


def single_session_figures(
    bench: Bench, soak: int, cold_turns: int, warm: int, cold_sessions: int = COLD_SESSIONS
) -> None:
    """Soak, cold resume and warm-session memory, on one SQLite server's home (restarted in between,
    so that nothing of the first process is warm in the second); ``cold_sessions`` long sessions per
    way of reaching them."""
    if not (soak or cold_turns or warm):
        return
    home = bench.root / "single"
    app = AppProcess(bench.env(home)).start()
    try:
        long_ids = uvloop.run(_soak(app, home, soak, 2 * cold_sessions if cold_turns else 0))
    finally:
        app.stop()
    if soak:
        args = ("--soak", str(soak), "--prompt", SOAK_PROMPT, "--rss-every", str(SOAK_RSS_EVERY))
        report_soak("straight on the runtime", **_runtime_worker(bench, "soak", *args))
    if not (cold_turns or warm):
        return
    runtime_cold: dict[str, Any] = {}
    if long_ids:  # a real chat of that length, straight on the runtime (compactions and all)
        args = ("--soak", str(cold_turns), "--prompt", SOAK_PROMPT, "--rss-every", str(cold_turns))
        _runtime_worker(bench, "long", *args)
        source = bench.root / "runtime-long" / "copilot" / "session-state" / RUNTIME_SOAK_SESSION
        for session_id in runtime_ids(f"sqlite:///{home / 'catalog.sqlite'}", long_ids):
            transplant_session(source, home / "copilot" / "session-state" / session_id)
        # The same first turns straight on the runtime, in a process that never opened them.
        cold_ids = [f"bench-runtime-cold-{i:02d}" for i in range(cold_sessions)]
        for session_id in cold_ids:
            copy_session(source, bench.root / "runtime-cold" / "copilot" / "session-state" / session_id)
        args = ("--cold", ",".join(cold_ids), "--prompt", SOAK_PROMPT)
        runtime_cold = _runtime_worker(bench, "cold", *args)
    app = AppProcess(bench.env(home)).start()
    try:
        uvloop.run(_cold_then_warm(app, home, long_ids, cold_turns, warm, runtime_cold))
    finally:
        app.stop()


async def _demo_user(app: AppProcess, home: Path) -> WebUser:
    """The demo account, with one answered turn: the process's one-time costs are out of the figures."""
    user = WebUser(app.url)
    await user.login("demo", demo_password(home))
    await user.send(await user.new_session("warm-up"))
    return user


async def _soak(app: AppProcess, home: Path, turns: int, long_sessions: int) -> list[str]:
    """The soak's figures; returns ``long_sessions`` new sessions with one turn each (to grow later)."""
    user = await _demo_user(app, home)
    try:
        long_ids = [await user.new_session("long") for _ in range(long_sessions)]
        for session_id in long_ids:
            await user.send(session_id, "What is our best segment?")
        if turns:
            session_id = await user.new_session("soak")
            samples = [(0, rss(_pid(app)))]
            times = []
            for turn in range(1, turns + 1):
                times.append(await timed(partial(user.send, session_id, SOAK_PROMPT)))
                if turn % SOAK_RSS_EVERY == 0 or turn == turns:
                    samples.append((turn, rss(_pid(app))))
            report_soak("through the app (SQLite)", times, samples)
        return long_ids
    finally:
        await user.close()


def report_soak(label: str, times: list[float], samples: list[tuple[int, int]]) -> None:
    turns = len(times)
    window = min(50, max(1, turns // 6))
    first, last = statistics.median(times[:window]), statistics.median(times[-window:])
    print(f"\n== one session, {turns} turns, {label} ==")
    print(
        f"turns 1-{window} p50 {ms(first)}, turns {turns - window + 1}-{turns} p50 {ms(last)}: "
        f"ratio {last / first:.2f} (target <= 1.2)"
    )
    memory = ", ".join(f"{turn}: {size / MB:.0f}" for turn, size in samples)
    growth = (samples[-1][1] - samples[0][1]) / MB
    print(f"process tree RSS (MB) after turn {memory}; growth {growth:+.0f} MB")


async def _cold_then_warm(
    app: AppProcess, home: Path, long_ids: list[str], cold_turns: int, warm: int, runtime: dict[str, Any]
) -> None:
    user = await _demo_user(app, home)
    try:
        if long_ids:
            fresh, cold, ahead = [], [], []
            for straight, opened in zip(long_ids[::2], long_ids[1::2], strict=True):
                fresh.append(await timed(partial(user.send, await user.new_session("fresh"), SOAK_PROMPT)))
                cold.append(await timed(partial(user.send, straight, SOAK_PROMPT)))
                await user.open(opened)
                await asyncio.sleep(THINK_SECONDS)
                ahead.append(await timed(partial(user.send, opened, SOAK_PROMPT)))
            base = statistics.median(fresh)
            [folder] = runtime_ids(f"sqlite:///{home / 'catalog.sqlite'}", long_ids[:1])
            size = (home / "copilot" / "session-state" / folder / "events.jsonl").stat().st_size
            print(
                f"\n== first turn of a {cold_turns}-turn session ({size / MB:.1f} MB of log), "
                "restarted server (SQLite) =="
            )
            print(f"a fresh session's first turn {ms(base)}")
            print(
                f"sent straight away (cold resume) {ms(statistics.median(cold))}: "
                f"ratio {statistics.median(cold) / base:.2f}"
            )
            print(
                f"sent {THINK_SECONDS:.0f} s after opening the chat (opened ahead) "
                f"{ms(statistics.median(ahead))}: "
                f"ratio {statistics.median(ahead) / base:.2f} (target <= 2)"
            )
            bare_fresh, bare_cold = statistics.median(runtime["fresh"]), statistics.median(runtime["cold"])
            print(
                f"straight on the runtime: a fresh session's first turn {ms(bare_fresh).strip()}, "
                f"a cold resume and its turn {ms(bare_cold).strip()}: ratio {bare_cold / bare_fresh:.2f}; "
                f"the app's cold resume / the runtime's {statistics.median(cold) / bare_cold:.2f}"
            )
        if warm:
            before = rss(_pid(app))

            async def chat() -> None:
                await user.send(await user.new_session("warm"))

            started = time.perf_counter()
            await bounded([chat] * warm)
            elapsed, after = time.perf_counter() - started, rss(_pid(app))
            settling, idle = [await _cpu_share(app, IDLE_SECONDS) for _ in range(2)]
            print(f"\n== {warm} more sessions with one turn each, all kept warm (SQLite) ==")
            print(
                f"app process tree RSS {before / MB:.0f} -> {after / MB:.0f} MB "
                f"({(after - before) / MB:+.0f} MB): {(after - before) / warm / 1024:.0f} KiB per session; "
                f"{elapsed / warm * 1000:.0f} ms per session to get there"
            )
            print(
                f"CPU of the server with them open, in the {IDLE_SECONDS:.0f} s after the last turn: "
                f"{settling:.0%} of a core; in the {IDLE_SECONDS:.0f} s after that (idle): {idle:.0%}"
            )
    finally:
        await user.close()


# ---------------------------------------------------------------------------------- across servers


async def across_servers(bench: Bench, users: int, turns: int) -> None:
    """The turns of ``users`` chats on two servers sharing one PostgreSQL, with and without warm
    copies (see the module docstring)."""
    with fresh_schema("bench_across") as warm_schema, fresh_schema("bench_across_cold") as cold_schema:
        pairs: list[_Pair] = []
        try:
            warm = await _server_pair(bench, "warm", warm_schema, users, pairs)
            cold = await _server_pair(bench, "cold", cold_schema, users, pairs, AGENT_WARM_SESSIONS="0")
            figures = {
                "one server, warm copies": await _across(warm, turns, alternate=False, opened=False),
                "two in turn, warm copies": await _across(warm, turns, alternate=True, opened=False),
                "two in turn, warm copies, opened first": await _across(
                    warm, turns, alternate=True, opened=True
                ),
                "two in turn, no warm copies": await _across(cold, turns, alternate=True, opened=False),
                "two in turn, no warm copies, opened first": await _across(
                    cold, turns, alternate=True, opened=True
                ),
            }
        finally:
            for pair in pairs:
                await pair.close()
    base = percentile(figures["one server, warm copies"], 0.5)
    print(f"\n== across two servers on one PostgreSQL: {users} users at once, {turns} turns each ==")
    for label, times in figures.items():
        print(f"{label}: {summary(times)}; p50 / one server's {percentile(times, 0.5) / base:.2f}")
    cold_p50 = percentile(figures["two in turn, no warm copies"], 0.5)
    saved = 1 - percentile(figures["two in turn, warm copies, opened first"], 0.5) / cold_p50
    print(
        f"warm copies opened ahead save {saved:.0%} of a turn's p50 across servers; "
        "every turn answered (a send that did not stops the benchmark)"
    )


@dataclass
class _Pair:
    apps: list[AppProcess]
    people: list[list[WebUser]]  # each user's browser on each server (one login, shared store)
    sessions: list[str]

    async def close(self) -> None:
        await asyncio.gather(*(person.close() for row in self.people for person in row))
        for app in self.apps:
            app.stop()


async def _server_pair(
    bench: Bench, name: str, schema: FreshSchema, users: int, started: list[_Pair], **env: str
) -> _Pair:
    """Two servers on ``schema`` with ``users`` users of one answered chat each; added to ``started``
    as soon as it has servers to stop."""
    names = [f"{name}{i:04d}" for i in range(users)]
    create_users(schema.sqlalchemy_url, names)
    pair = _Pair([], [], [])
    started.append(pair)
    for i in range(2):
        home = bench.root / f"across-{name}-{i}"
        pair.apps.append(AppProcess(bench.env(home, DATABASE_URL=schema.url, **env)).start())
    pair.people = [[WebUser(app.url) for app in pair.apps] for _ in names]
    await bounded([partial(person.login, names[i]) for i, row in enumerate(pair.people) for person in row])
    pair.sessions = [await row[0].new_session("across") for row in pair.people]
    await bounded([partial(row[0].send, s) for row, s in zip(pair.people, pair.sessions, strict=True)])
    return pair


async def _across(pair: _Pair, turns: int, *, alternate: bool, opened: bool) -> list[float]:
    """Every user's ``turns`` turns, all users at once; each turn on the next server if ``alternate``,
    the chat opened there ``ACROSS_THINK_SECONDS`` before if ``opened``. The times are the sends'."""

    async def conversation(row: list[WebUser], session: str) -> list[float]:
        times = []
        for turn in range(turns):
            person = row[(turn + 1) % 2] if alternate else row[0]
            if opened:
                await person.open(session)
                await asyncio.sleep(ACROSS_THINK_SECONDS)
            times.append(await timed(partial(person.send, session)))
        return times

    rows = await asyncio.gather(
        *(conversation(row, s) for row, s in zip(pair.people, pair.sessions, strict=True))
    )
    return [time for row in rows for time in row]


# ---------------------------------------------------------------------------------------- main


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=100, help="concurrent users (default 100)")
    parser.add_argument("--turns", type=int, default=5, help="turns per user in the second load")
    parser.add_argument("--store", choices=("both", "sqlite", "postgres"), default="both")
    parser.add_argument("--rounds", type=int, default=3, help="times the loads run (medians are reported)")
    parser.add_argument("--soak", type=int, default=300, help="turns of the one-session soak (0: skip)")
    parser.add_argument("--warm", type=int, default=1000, help="sessions for the memory figure (0: skip)")
    parser.add_argument("--cold-turns", type=int, default=1000, help="turns of the cold-resumed session")
    parser.add_argument("--context-tokens", type=int, default=16384, help="the model's announced window")
    parser.add_argument(
        "--across-users", type=int, default=20, help="users of the two-server figures (0: skip; PostgreSQL)"
    )
    parser.add_argument(
        "--cold-sessions",
        type=int,
        default=COLD_SESSIONS,
        help="long sessions whose first turns are medianed",
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]  # figures as they come
    stores = ("sqlite", "postgres") if args.store == "both" else (args.store,)
    if "postgres" in stores and (problem := postgres_problem()) is not None:
        sys.exit(f"PostgreSQL unreachable at {display_url(server_url())}: {problem}")

    with tempfile.TemporaryDirectory(prefix="bench-throughput-") as tmp, ScriptedModel() as model:
        warm_setting = max(args.users, args.warm) + 2 * args.cold_sessions + 2
        bench = Bench(model, Path(tmp), warm_setting, args.context_tokens)
        print(
            f"AGENT_WARM_SESSIONS={bench.warm_setting}, "
            f"AGENT_PROVIDER_MAX_PROMPT_TOKENS={bench.context_tokens} "
            f"for every server of this run; medians of {args.cold_sessions} for each first-turn figure"
        )
        uvloop.run(loads_in_rounds(bench, args, stores))
        if args.across_users and "postgres" in stores:
            uvloop.run(across_servers(bench, args.across_users, args.turns))
        single_session_figures(bench, args.soak, args.cold_turns, args.warm, args.cold_sessions)


if __name__ == "__main__":
    main()
