"""Users of the web app as the throughput benchmark drives them: through the public HTTP API only, so
the same benchmark measures the app whatever it does inside (docs/architecture.md#performance-budgets).

The clients are aiohttp's: they share the machine's cores with the server they measure, so what they
spend is taken from it. Over a 100-user burst, the benchmark's process (clients and scripted model)
spent 3.2 to 3.7 ms of CPU per turn with httpx's clients, 1.6 to 1.7 ms with aiohttp's; 0.8 ms of it
is the scripted model's, which the runtime's own loads pay too.
"""

from pathlib import Path

import aiohttp
from sqlalchemy import select

from agent_orchestrator.sessions.store import UserStore, make_engine, migrate
from agent_orchestrator.sessions.store.schema import sessions

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


def runtime_ids(database_url: str, public_ids: list[str]) -> list[str]:
    """The runtime ids under sessions made through the API, in order: the API names a session by its
    public id only, and the runtime's files are named after the other (docs/architecture.md#session-ids),
    so a benchmark that works on those files (growing a log, transplanting one) asks the catalog. The
    benchmark's generated public ids are unique across its users."""
    engine = make_engine(database_url)
    try:
        with engine.connect() as conn:
            query = select(sessions.c.public_id, sessions.c.id).where(sessions.c.public_id.in_(public_ids))
            found = {row.public_id: row.id for row in conn.execute(query)}
    finally:
        engine.dispose()
    return [found[public_id] for public_id in public_ids]


def demo_password(home: Path) -> str:
    """The demo account's password, which the app writes to its home on first start."""
    return (home / "demo-login.txt").read_text().strip()


class WebUser:
    """One logged-in browser: a cookie jar, the CSRF header, and the calls a chat makes."""

    def __init__(self, url: str) -> None:
        self._url = url
        self._headers: dict[str, str] = {}
        self._http: aiohttp.ClientSession | None = None

    @property
    def http(self) -> aiohttp.ClientSession:
        """Made on first use, inside the event loop that runs the user (aiohttp binds it to that loop);
        the cookie jar takes the app's cookies although its host is an IP address."""
        if self._http is None:
            self._http = aiohttp.ClientSession(
                self._url,
                cookie_jar=aiohttp.CookieJar(unsafe=True),
                timeout=aiohttp.ClientTimeout(total=900),
                raise_for_status=True,
            )
        return self._http

    async def login(self, username: str, password: str = PASSWORD) -> "WebUser":
        body = {"username": username, "password": password}
        async with self.http.post("/api/auth/login", json=body) as response:
            self._headers["X-CSRF-Token"] = (await response.json())["csrf_token"]
        return self

    async def new_session(self, title: str = "bench") -> str:
        async with self.http.post("/api/sessions", json={"title": title}, headers=self._headers) as response:
            return str((await response.json())["id"])

    async def send(self, session_id: str, content: str = "hi") -> None:
        """One turn, until its answer has streamed back completely."""
        url = f"/api/sessions/{session_id}/messages"
        async with self.http.post(url, json={"content": content}, headers=self._headers) as response:
            text = await response.text()
        if "event: done" not in text:
            raise RuntimeError(f"turn failed ({response.status}): {text[-300:]}")

    async def open(self, session_id: str) -> None:
        """Open the chat as the UI does: read its transcript."""
        async with self.http.get(f"/api/sessions/{session_id}/messages") as response:
            await response.read()

    async def close(self) -> None:
        if self._http is not None:
            await self._http.close()
