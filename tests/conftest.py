"""Fixtures shared across the suite: a scripted model on loopback, a runner for the labs' CLI, fresh
schemas on the machine's PostgreSQL and the one Chromium of the browser tests (``browser_fixtures``).

The Copilot SDK and CLI are always the real ones; only the model behind them is scripted.
PostgreSQL tests skip with one line when the server is unreachable -- except under CI (``CI=true`` or
``REQUIRE_POSTGRES=1``), where a missing database is a failure, not a reason to go green.

Tiers: every test that is slow by nature is marked ``slow`` here, at collection (see
:func:`pytest_collection_modifyitems`), so ``pytest -m "not slow"`` (``scripts/test --fast``) is the
quick loop of unit and SQLite store tests; the whole suite is the default.
"""

import functools
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from browser_fixtures import (  # noqa: F401 (session-wide: one Chromium for every browser directory)
    browser_type_launch_args,
    chromium_path,
    playwright_loop,
    report_missing_chromium,
)

from agent_orchestrator.sessions.store import users as user_store
from agent_orchestrator.settings import load_settings
from agent_orchestrator.testing.environment import clean_environment
from agent_orchestrator.testing.postgres import (
    FreshSchema,
    display_url,
    fresh_schema,
    postgres_problem,
    server_url,
)
from agent_orchestrator.testing.scripted_model import Reply, ScriptedModel, Text, user_messages

# The apps this process runs hash passwords with argon2id at tiny costs: the same code path (hash,
# verify, rehash) for a fraction of the CPU -- at RFC 9106's defaults a hash or a check costs 0.2 s of
# CPU, and each of some 700 app tests creates users and logs in a few times. Apps started as processes
# of their own (tests/system, the CLIs) keep the real costs, as production does: this is no setting.
user_store.PasswordHasher = functools.partial(  # type: ignore[misc]
    PasswordHasher, time_cost=1, memory_cost=1024, parallelism=1
)

PROJECT_ROOT = Path(__file__).resolve().parents[1]
_FAVOURITE = re.compile(r"favourite retail segment is '([^']+)'")


def lab_rule(body: dict[str, Any]) -> Reply:
    """Answer like a model with perfect memory: name the favourite segment if an earlier turn gave it."""
    users = user_messages(body)
    if "which retail segment" in users[-1].lower():
        for text in users[:-1]:
            if match := _FAVOURITE.search(text):
                return Text(f"Your favourite retail segment is '{match.group(1)}'.")
        return Text("You have not told me a favourite segment.")
    if "what short reply" in users[-1].lower():
        return Text("You asked me to reply with just OK." if len(users) > 1 else "I don't know.")
    return Text("OK")


@pytest.fixture(scope="session")
def scripted_server() -> Iterator[ScriptedModel]:
    with ScriptedModel(default=lab_rule) as model:
        yield model


@pytest.fixture
def scripted_model(request: pytest.FixtureRequest, scripted_server: ScriptedModel) -> ScriptedModel:
    """The session's scripted model, with an empty log and script and the lab rule as default.

    Whatever asks for it runs the Copilot CLI, so it is in the slow tier: a test that reaches it
    unmarked (through a fixture that takes it with ``getfixturevalue``) fails, naming the remedy."""
    if request.node.get_closest_marker("slow") is None:
        pytest.fail(
            f"{request.node.nodeid} runs the Copilot CLI but is not marked slow: add the fixture that "
            "takes the scripted model to _SLOW_FIXTURES in tests/conftest.py",
            pytrace=False,
        )
    scripted_server.reset()
    scripted_server.default = lab_rule
    scripted_server.delay = 0.0
    return scripted_server


@dataclass
class LabResult:
    returncode: int
    stdout: str
    stderr: str


@dataclass
class LabRunner:
    """Runs ``python -m sdk_labs ...`` in a fresh process against the scripted model."""

    env: dict[str, str]
    data_dir: Path

    def __call__(self, *args: str, timeout: float = 180) -> LabResult:
        proc = subprocess.run(
            [sys.executable, "-m", "sdk_labs", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        return LabResult(proc.returncode, proc.stdout, proc.stderr)


@pytest.fixture
def run_lab(tmp_path: Path, scripted_model: ScriptedModel) -> LabRunner:
    """The lab CLI routed (BYOK) to the scripted model, with its own data dir."""
    data_dir = tmp_path / "data"
    env = clean_environment(
        AGENT_ORCHESTRATOR_HOME=str(data_dir),
        AGENT_PROVIDER_BASE_URL=scripted_model.base_url,
        AGENT_MODEL="scripted-model",
        AGENT_TURN_TIMEOUT="60",
    )
    return LabRunner(env, data_dir)


@pytest.fixture(scope="session")
def model_weights() -> Path:
    """The verified embedded-model weights, assembled once into the project cache (scripts/test does it)."""
    from agent_orchestrator.local_model.weights import resolve_weights

    return resolve_weights("0.5b", cache_dir=PROJECT_ROOT / ".data" / "models", progress=False)


@pytest.fixture
def run_embedded_lab(tmp_path: Path, model_weights: Path) -> LabRunner:
    """The lab CLI on its default route (embedded model), sharing the verified weights."""
    data_dir = tmp_path / "data"
    models = data_dir / "models"
    models.mkdir(parents=True)
    for cached in model_weights.parent.iterdir():  # the weights and their verification marker
        if cached.name.startswith(model_weights.name):
            (models / cached.name).symlink_to(cached)
    return LabRunner(clean_environment(AGENT_ORCHESTRATOR_HOME=str(data_dir)), data_dir)


# -- PostgreSQL ------------------------------------------------------------------------------------


_PATIENCE = 60.0  # seconds a required server may take to come (back) up


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The umask most systems give a process; restored after the test."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


def postgres_required() -> bool:
    return load_settings().testing.postgres_required


@pytest.fixture(scope="session")
def postgres_url() -> str:
    """The test server's URL (``TEST_POSTGRES_URL``, any form); skips the test when the server is
    unreachable, fails it where PostgreSQL is required."""
    problem = postgres_problem(patience=_PATIENCE if postgres_required() else 0.0)
    if problem is not None:
        message = f"PostgreSQL unreachable at {display_url(server_url())} ({problem})"
        if postgres_required():
            pytest.fail(f"{message}; CI/REQUIRE_POSTGRES needs it", pytrace=False)
        pytest.skip(message)
    return server_url()


@pytest.fixture
def postgres_schema(request: pytest.FixtureRequest, postgres_url: str) -> Iterator[FreshSchema]:
    """A fresh schema for this test (named after its module), dropped with its contents afterwards.

    Parametrized fixtures whose PostgreSQL case needs one take it with
    ``request.getfixturevalue("postgres_schema")``.
    """
    prefix = request.module.__name__.rpartition(".")[2].removeprefix("test_")[:40]
    with fresh_schema(prefix, url=postgres_url) as schema:
        yield schema


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, not once per test, why the PostgreSQL (or browser) tests were skipped."""
    report_missing_chromium(terminalreporter)
    asked = postgres_problem.cache_info().currsize > 0
    if asked and not postgres_required() and (problem := postgres_problem(patience=0.0)) is not None:
        where = display_url(server_url())
        terminalreporter.write_line(f"PostgreSQL unreachable at {where} ({problem}): postgres tests skipped")


# -- Tiers -----------------------------------------------------------------------------------------

# Directories (under tests/) whose every test is slow: several server processes, or real Chromium.
_SLOW_DIRECTORIES = {("system",), ("web", "browser")}
# Marks of tests that are slow wherever they are: the embedded model, PostgreSQL.
_SLOW_MARKS = {"real_model", "postgres"}
# Fixtures that make a test slow: the Copilot CLI (everything on the scripted model runs through it),
# PostgreSQL, the embedded model's weights, a browser. The app fixtures are named too, because they
# take ``start_app`` (and so the scripted model) with ``request.getfixturevalue``, which no fixture
# closure shows; ``scripted_model`` fails a test that reaches it unmarked, so a new one is noticed.
_SLOW_FIXTURES = {
    "scripted_server",
    "postgres_url",
    "model_weights",
    "browser",
    "start_app",
    "live_app",  # tests/web/conftest.py
    "fuzzed_app",  # tests/web/test_api_fuzz.py
    "any_store_app",  # tests/web/test_readings.py
    "retail_live_app",  # tests/web/test_sharing.py
    "sealed_live_app",  # tests/web/test_live_feed.py
    "app",  # tests/web/test_deleting.py
    "data_app",  # tests/web/test_data_api.py
}


def _is_slow(item: pytest.Item) -> bool:
    tests = PROJECT_ROOT / "tests"
    path = Path(item.path)
    where = path.relative_to(tests).parts[:-1] if path.is_relative_to(tests) else ()
    if any(where[: len(directory)] == directory for directory in _SLOW_DIRECTORIES):
        return True
    if any(item.get_closest_marker(mark) for mark in _SLOW_MARKS):
        return True
    return bool(_SLOW_FIXTURES.intersection(getattr(item, "fixturenames", ())))


_FIRST = (("system",), ("bench",), ("web", "browser"), ("sdk_labs",))
"""Directories whose tests run first, longest kind first: the multi-server scenarios take minutes
each, and started last they would leave the other workers idle at the end of the run."""


def _start_rank(item: pytest.Item) -> int:
    tests = PROJECT_ROOT / "tests"
    path = Path(item.path)
    where = path.relative_to(tests).parts[:-1] if path.is_relative_to(tests) else ()
    return next((rank for rank, first in enumerate(_FIRST) if where[: len(first)] == first), len(_FIRST))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``slow`` whatever the fast tier leaves out (a test or module may also mark itself)."""
    for item in items:
        if _is_slow(item):
            item.add_marker(pytest.mark.slow)


class _LongestFirst:
    """Starts the longest kinds of test first, after pytest has grouped tests by their fixtures (a
    stable sort: each module's tests stay together)."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items.sort(key=_start_rank)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_LongestFirst(), "longest-first")
