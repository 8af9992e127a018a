"""Users of the web app as the throughput benchmark drives them: through the public HTTP API only, so
the same benchmark measures the app whatever it does inside (docs/architecture.md#performance-budgets)."""

from pathlib import Path

import httpx

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate

PASSWORD = "bench-password-1"


def create_users(database_url: str, names: list[str]) -> None:
    """Accounts for ``names`` (password :data:`PASSWORD`), straight in the store before the app starts."""
    engine = make_engine(database_url)
    try:
        migrate(engine)
        users = UserStore(engine)
        for name in names:
            users.create(name, PASSWORD)
    finally:
        engine.dispose()


def demo_password(home: Path) -> str:
    """The demo account's password, which the app writes to its home on first start."""
    return (home / "demo-login.txt").read_text().strip()


class WebUser:
    """One logged-in browser: a cookie jar, the CSRF header, and the calls a chat makes."""

    def __init__(self, url: str) -> None:
        self.http = httpx.AsyncClient(base_url=url, timeout=900)

    async def login(self, username: str, password: str = PASSWORD) -> "WebUser":
        response = await self.http.post("/api/auth/login", json={"username": username, "password": password})
        response.raise_for_status()
        self.http.headers["X-CSRF-Token"] = response.json()["csrf_token"]
        return self

    async def new_session(self, title: str = "bench") -> str:
        response = await self.http.post("/api/sessions", json={"title": title})
        response.raise_for_status()
        return response.json()["id"]

    async def send(self, session_id: str, content: str = "hi") -> None:
        """One turn, until its answer has streamed back completely."""
        response = await self.http.post(f"/api/sessions/{session_id}/messages", json={"content": content})
        if "event: done" not in response.text:
            raise RuntimeError(f"turn failed ({response.status_code}): {response.text[-300:]}")

    async def open(self, session_id: str) -> None:
        """Open the chat as the UI does: read its transcript."""
        response = await self.http.get(f"/api/sessions/{session_id}/messages")
        response.raise_for_status()

    async def close(self) -> None:
        await self.http.aclose()
