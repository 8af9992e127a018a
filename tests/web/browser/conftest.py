"""Real headless Chromium (Debian's ``/usr/bin/chromium``) against one live web app for this directory.

The app is the real thing -- uvicorn, the Copilot SDK and CLI, the retail dataset and its MCP server --
with only the model scripted (``scripted_model``). It starts once per test session (a start costs a
few seconds); every test gets fresh accounts from :func:`new_user`, so tests never see each other's
chats. pytest-playwright supplies the sync ``browser``/``context``/``page``/``new_context`` fixtures;
the tests are plain sync functions (asyncio_mode=auto leaves them alone). Never ``playwright install``:
docs/architecture.md#browser-tests has the recipe.
"""

import asyncio
import itertools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from browser_ui import PASSWORD
from playwright.sync_api import Browser, ConsoleMessage, Page

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app

CHROMIUM = Path("/usr/bin/chromium")
# Small enough to generate in well under a second; the app would otherwise build the full dataset.
SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)


CHROMIUM_MISSING = f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)"


def chromium_required() -> bool:
    return os.environ.get("CI") == "true"


@pytest.fixture(scope="session", autouse=True)
def chromium_path() -> Path:
    """Chromium's path; the tests skip without it, except on CI (``CI=true``), where they fail."""
    if not CHROMIUM.exists():
        if chromium_required():
            pytest.fail(f"{CHROMIUM_MISSING}; CI needs it", pytrace=False)
        pytest.skip("Chromium missing")
    return CHROMIUM


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once, not once per test, why the browser tests were skipped."""
    if not CHROMIUM.exists() and not chromium_required():
        terminalreporter.write_line(f"{CHROMIUM_MISSING}: browser tests skipped")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict[str, Any], chromium_path: Path) -> dict[str, Any]:
    # Playwright adds --no-sandbox, --headless and the background-networking flags itself; the resolver
    # rule stops Chromium's own look-ups of Google hosts (there is no internet here, and CI needs none).
    return {
        **browser_type_launch_args,
        "executable_path": str(chromium_path),
        "args": [
            "--disable-gpu",
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost",
        ],
    }


# Playwright's sync API runs its asyncio loop in a greenlet and, between calls, leaves that loop marked
# as the thread's running loop (playwright/_impl/_greenlets.py, wait_for_future). pytest-asyncio then
# refuses to run any async test later in the session ("Runner.run() cannot be called from a running
# event loop"), and the browser fixtures live for the whole session. So the mark is shown to browser
# tests only: set while one runs, cleared after it, and set again for the browser's own teardown.


@pytest.fixture(scope="session")
def playwright_loop(browser: Browser) -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio._get_running_loop()  # marked by the launch that just returned
    assert loop is not None, "Playwright's sync API no longer marks its loop; drop these fixtures"
    yield loop
    asyncio._set_running_loop(loop)  # browser.close() and playwright.stop() come next


@pytest.fixture(autouse=True)
def playwright_loop_for_this_test(playwright_loop: asyncio.AbstractEventLoop) -> Iterator[None]:
    asyncio._set_running_loop(playwright_loop)
    yield
    asyncio._set_running_loop(None)


@dataclass
class BrowserApp:
    url: str
    web: WebSettings
    model: ScriptedModel
    users: UserStore
    _numbers: Iterator[int]

    def new_user(self, prefix: str) -> str:
        """A fresh account (password :data:`PASSWORD`), so each test starts with an empty sidebar."""
        username = f"{prefix}{next(self._numbers)}"
        self.users.create(username, PASSWORD)
        return username


@pytest.fixture(scope="session")
def browser_app(
    tmp_path_factory: pytest.TempPathFactory, scripted_server: ScriptedModel, chromium_path: Path
) -> Iterator[BrowserApp]:
    data_dir = tmp_path_factory.mktemp("browser-app")
    web = WebSettings(
        data_dir=data_dir,
        database_url=f"sqlite:///{data_dir / 'catalog.sqlite'}",
        lease_ttl=5.0,
        retail_dataset=True,
        # Live feeds end every 2 s (at their next event) and the browser resumes them with
        # Last-Event-ID: every browser test also checks that reconnects lose and repeat nothing.
        live_feed_seconds=2.0,
    )
    generate_dataset(web.retail_db, SMALL_RETAIL)  # the app finds it and skips its own generation
    engine = make_engine(web.database_url)
    migrate(engine)
    runtime = RuntimeSettings(
        data_dir=data_dir, provider_base_url=scripted_server.base_url, model="scripted-model", turn_timeout=60
    )
    server = BackgroundServer(create_app(web, runtime), health_path="/api/health")
    url = server.start(timeout=60)
    try:
        yield BrowserApp(url, web, scripted_server, UserStore(engine), itertools.count(1))
    finally:
        server.stop()
        engine.dispose()


@pytest.fixture(scope="session")
def base_url(browser_app: BrowserApp) -> str:
    """pytest-playwright's contexts resolve ``page.goto("/")`` against the live app."""
    return browser_app.url


@pytest.fixture(autouse=True)
def fresh_model(scripted_model: ScriptedModel) -> ScriptedModel:
    """Every test starts with an empty script and request log and the lab rule answering."""
    return scripted_model


@pytest.fixture
def user(browser_app: BrowserApp) -> Callable[[str], str]:
    """``user("alice")`` makes a fresh account named alice<N>."""
    return browser_app.new_user


@pytest.fixture
def csp_violations(page: Page) -> Iterator[list[str]]:
    """Console errors about the Content Security Policy, collected while the test runs."""
    seen: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text:
            seen.append(message.text)

    page.on("console", on_console)
    yield seen
