"""A live web app (real uvicorn, real Copilot CLI, scripted model) and logged-in HTTP clients."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_helpers import FACTS, events, memory_rule, send

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.shared_files import PostgresSessionFiles
from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app

PASSWORD = "correct horse battery"


@dataclass
class LiveApp:
    url: str
    web: WebSettings
    model: ScriptedModel

    def client(self, username: str | None = None) -> httpx.Client:
        """An HTTP client with its own cookie jar (a browser, a device); logged in if a name is given."""
        client = httpx.Client(base_url=self.url, timeout=60)
        if username:
            response = client.post("/api/auth/login", json={"username": username, "password": PASSWORD})
            response.raise_for_status()
            client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        return client


def build_web_settings(data_dir: Path, database_url: str | None = None) -> WebSettings:
    return WebSettings(
        data_dir=data_dir,
        database_url=database_url or f"sqlite:///{data_dir / 'catalog.sqlite'}",
        lease_ttl=5.0,
        retail_dataset=False,
    )


def create_users(database_url: str, *names: str) -> None:
    engine = make_engine(database_url)
    migrate(engine)
    users = UserStore(engine)
    for name in names:
        users.create(name, PASSWORD)
    engine.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def live_app(
    request: pytest.FixtureRequest, tmp_path: Path, scripted_model: ScriptedModel
) -> Iterator[LiveApp]:
    """The app on the embedded default (SQLite, local files) and on the shared store (PostgreSQL for
    catalog and session files): both backends pass the same API suite."""
    session_files = None
    database_url = None
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")
        database_url = schema.sqlalchemy_url
        session_files = PostgresSessionFiles.from_url(schema.url)
    web = build_web_settings(tmp_path, database_url)
    server = _start(web, scripted_model, session_files)
    try:
        yield LiveApp(server.root_url or "", web, scripted_model)
    finally:
        server.stop()


@pytest.fixture
def start_app(tmp_path: Path, scripted_model: ScriptedModel) -> Iterator[Callable[..., LiveApp]]:
    """Start the app on SQLite with some web settings changed: ``start_app(warm_sessions=1)``."""
    servers: list[BackgroundServer] = []

    def start(**changes: Any) -> LiveApp:
        web = build_web_settings(tmp_path).model_copy(update=changes)
        servers.append(_start(web, scripted_model))
        return LiveApp(servers[-1].root_url or "", web, scripted_model)

    yield start
    for server in servers:
        server.stop()


def _start(
    web: WebSettings, model: ScriptedModel, session_files: PostgresSessionFiles | None = None
) -> BackgroundServer:
    create_users(web.database_url, "alice", "bob")
    runtime = RuntimeSettings(
        data_dir=web.data_dir, provider_base_url=model.base_url, model="scripted-model", turn_timeout=60
    )
    server = BackgroundServer(
        create_app(web, runtime, session_files=session_files), health_path="/api/health"
    )
    server.start(timeout=60)
    return server


@pytest.fixture
def chat(live_app):
    """Alice's session with three turns, each telling the model one fact."""
    live_app.model.default = memory_rule
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Fruit facts"}).json()["id"]
    for fact in FACTS:
        assert events(send(alice, session_id, fact))[-1][0] == "done"
    return alice, session_id
