"""The web app answers only a Host that names it (docs/architecture.md#host-names): a loopback name or
address by default, the configured names behind a proxy; any other is 421 with a short plain text,
on every path, before any route runs. Every answer under /api/ is Cache-Control: no-store."""

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.web.app import create_app
from agent_orchestrator.web.guard import SECURITY_HEADERS

PATHS = ["/api/health", "/", "/api/auth/me", "/static/app.css", "/docs", "/openapi.json", "/nowhere"]


def _client(tmp_path: Path, sent: str, **web: object) -> TestClient:
    """A client whose requests name ``sent`` as their Host, of the app with ``web`` settings."""
    # Without the lifespan nothing starts (no database, no Copilot CLI): only the middleware and routes.
    settings = WebSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'catalog.sqlite'}", **web)
    return TestClient(create_app(settings, RuntimeSettings(data_dir=tmp_path)), base_url=f"http://{sent}")


@pytest.mark.parametrize("host", ["127.0.0.1:8000", "localhost:8000", "[::1]:8000", "localhost"])
def test_loopback_names_are_answered_on_a_loopback_bind(tmp_path: Path, host: str) -> None:
    assert _client(tmp_path, host).get("/api/health").status_code == 200


@pytest.mark.parametrize("path", PATHS)
def test_another_host_is_misdirected_on_every_path(tmp_path: Path, path: str) -> None:
    response = _client(tmp_path, "evil.example").get(path)
    assert response.status_code == 421
    assert response.headers["content-type"].startswith("text/plain")
    assert response.text.startswith("Misdirected request")
    assert response.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    # A state-changing request is refused the same way, before its route (or CSRF check) runs.
    assert _client(tmp_path, "evil.example:8000").post("/api/auth/login", json={}).status_code == 421


def test_a_public_name_behind_a_proxy_is_answered_once_configured(tmp_path: Path) -> None:
    named = {"allowed_hosts": "agent.example.com"}
    assert _client(tmp_path, "agent.example.com", **named).get("/api/health").status_code == 200
    assert _client(tmp_path, "localhost:8000", **named).get("/api/health").status_code == 200
    assert _client(tmp_path, "other.example.com", **named).get("/api/health").status_code == 421


def test_a_wildcard_bind_answers_ip_addresses_but_only_the_configured_names(tmp_path: Path) -> None:
    public = {"host": "0.0.0.0"}
    assert _client(tmp_path, "10.1.2.3:8000", **public).get("/api/health").status_code == 200
    assert _client(tmp_path, "agent.lan:8000", **public).get("/api/health").status_code == 421
    named = public | {"allowed_hosts": "agent.lan"}
    assert _client(tmp_path, "agent.lan:8000", **named).get("/api/health").status_code == 200


def test_api_answers_are_not_cached_and_static_files_may_be(tmp_path: Path) -> None:
    client = _client(tmp_path, "127.0.0.1:8000")
    assert client.get("/api/health").headers["cache-control"] == "no-store"
    assert client.get("/api/nowhere").headers["cache-control"] == "no-store"  # an error too
    assert "cache-control" not in client.get("/static/app.css").headers
