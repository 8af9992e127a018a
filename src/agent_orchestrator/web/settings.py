"""Web app settings, read once at start from the environment (``AGENT_WEB_*``) and CLI flags."""

import os
import socket
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class WebSettings:
    data_dir: Path
    database_url: str
    host: str = "127.0.0.1"
    port: int = 8000
    # Secure cookies need HTTPS; behind a TLS-terminating proxy set AGENT_WEB_SECURE_COOKIES=1.
    secure_cookies: bool = False
    login_ttl: float = 12 * 3600
    lease_ttl: float = 30.0
    max_prompt_chars: int = 8_000
    server_id: str = "local"
    retail_dataset: bool = True

    @classmethod
    def from_env(cls, data_dir: Path, environ: dict[str, str] | None = None) -> "WebSettings":
        from agent_orchestrator.sessions.store import database_url_from_env

        env = os.environ if environ is None else environ
        return cls(
            data_dir=data_dir,
            database_url=database_url_from_env(data_dir, env),
            host=env.get("AGENT_WEB_HOST", "127.0.0.1"),
            port=int(env.get("AGENT_WEB_PORT", "8000")),
            secure_cookies=env.get("AGENT_WEB_SECURE_COOKIES", "") in ("1", "true", "yes"),
            lease_ttl=float(env.get("AGENT_WEB_LEASE_TTL", "30")),
            retail_dataset=env.get("AGENT_WEB_RETAIL", "1") not in ("0", "false", "no"),
            server_id=env.get("AGENT_SERVER_ID", f"{socket.gethostname()}:{os.getpid()}"),
        )

    @property
    def is_postgres(self) -> bool:
        return self.database_url.startswith(("postgresql", "postgres:"))

    @property
    def retail_db(self) -> Path:
        return self.data_dir / "retail.sqlite"
