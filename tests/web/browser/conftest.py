"""One live web app for this directory, driven by real headless Chromium (``tests/browser_fixtures.py``).

The app is the real thing -- uvicorn, the Copilot SDK and CLI, the retail dataset and its MCP server --
with only the model scripted (``scripted_model``). It starts once per test session (a start costs a
few seconds); every test gets fresh accounts from :func:`new_user`, so tests never see each other's
chats.
"""

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from browser_fixtures import playwright_loop_for_this_test  # noqa: F401 (autouse in this directory)
from browser_ui import PASSWORD
from playwright.sync_api import ConsoleMessage, Page

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app

# Small enough to generate in well under a second; the app would otherwise build the full dataset.
SMALL_RETAIL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)


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
