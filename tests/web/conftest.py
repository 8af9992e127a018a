"""A live web app (real uvicorn, real Copilot CLI, scripted model) and logged-in HTTP clients."""

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from chat_helpers import FACTS, LOCAL_TLS, PASSWORD, create_users, events, memory_rule, send

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.files.postgres import PostgresSessionFiles
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.testing.scripted_model import ScriptedModel
from agent_orchestrator.web.app import create_app


@dataclass
class LiveApp:
    url: str
    web: WebSettings
    model: ScriptedModel

    def client(self, username: str | None = None) -> httpx.Client:
        """An HTTP client with its own cookie jar (a browser, a device); logged in if a name is given."""
        client = httpx.Client(base_url=self.url, timeout=60, verify=LOCAL_TLS)
        if username:
            response = client.post("/api/auth/login", json={"username": username, "password": PASSWORD})
            response.raise_for_status()
            client.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        return client


def build_web_settings(data_dir: Path, database_url: str | None = None, **changes: object) -> WebSettings:
    defaults: dict[str, object] = {"lease_ttl": 5.0, "retail_dataset": False}
    return WebSettings(
        data_dir=data_dir,
        database_url=database_url or f"sqlite:///{data_dir / 'catalog.sqlite'}",
        **(defaults | changes),
    )


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def live_app(request: pytest.FixtureRequest) -> LiveApp:
    """The app on the embedded default (SQLite, local files) and on the shared store (PostgreSQL for
    catalog and session files): both backends pass the same API suite."""
    if request.param == "postgres":
        schema = request.getfixturevalue("postgres_schema")  # first, so that it outlives the app
        start_app = request.getfixturevalue("start_app")
        return start_app(schema.sqlalchemy_url, PostgresSessionFiles.from_url(schema.url))
    return request.getfixturevalue("start_app")()


@pytest.fixture
def start_app(tmp_path: Path, scripted_model: ScriptedModel) -> Iterator[Callable[..., LiveApp]]:
    """Start the app with some web settings changed (``start_app(warm_sessions=1)``), on SQLite unless a
    PostgreSQL ``database_url`` (and its ``session_files``) is given; the users alice and bob exist.
    Stopped at the end of the test."""
    servers: list[BackgroundServer] = []

    def start(
        database_url: str | None = None, session_files: PostgresSessionFiles | None = None, **changes: Any
    ) -> LiveApp:
        web = build_web_settings(tmp_path, database_url, **changes)
        create_users(web.database_url, "alice", "bob")
        runtime = RuntimeSettings(
            data_dir=tmp_path,
            provider_base_url=scripted_model.base_url,
            model="scripted-model",
            turn_timeout=60,
        )
        server = BackgroundServer(
            create_app(web, runtime, session_files=session_files), health_path="/api/health"
        )
        servers.append(server)
        return LiveApp(server.start(timeout=60), web, scripted_model)

    try:
        yield start
    finally:
        for server in servers:
            server.stop()


@pytest.fixture
def chat(live_app):
    """Alice's session with three turns, each telling the model one fact."""
    live_app.model.default = memory_rule
    alice = live_app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Fruit facts"}).json()["id"]
    for fact in FACTS:
        assert events(send(alice, session_id, fact))[-1][0] == "done"
    return alice, session_id
