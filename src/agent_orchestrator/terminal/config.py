"""Where ``ao`` keeps its server and token: ``$AO_CONFIG``, else ``$XDG_CONFIG_HOME/ao/config.json``
(``~/.config/ao/config.json``), owner-only (the folder 0700, the file 0600, whatever the umask), as
``gh`` and ``llm`` keep theirs. The environment's ``AO_SERVER`` and ``AO_TOKEN`` win over the file, so a
script needs no file at all."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass
from pathlib import Path

from agent_orchestrator.settings import load_client_settings

DEFAULT_SERVER = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class Login:
    server: str
    token: str
    username: str = ""
    token_name: str = ""


def config_path() -> Path:
    settings = load_client_settings()
    if settings.config_file:
        return settings.config_file
    return (settings.config_home or Path.home() / ".config") / "ao" / "config.json"


def load() -> Login | None:
    """The stored login, with ``AO_SERVER``/``AO_TOKEN`` over it; ``None`` if there is no token."""
    stored: dict[str, str] = {}
    path = config_path()
    if path.is_file():
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = {}
    settings = load_client_settings()
    token = settings.token or stored.get("token", "")
    if not token:
        return None
    server = settings.server or stored.get("server") or DEFAULT_SERVER
    return Login(server, token, stored.get("username", ""), stored.get("token_name", ""))


def save(login: Login) -> Path:
    """Write ``login`` owner-only: created 0600 in a 0700 folder, never readable in between."""
    path = config_path()
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    os.chmod(path.parent, 0o700)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(asdict(login), handle, indent=2)
    os.chmod(temporary, 0o600)
    os.replace(temporary, path)
    return path


def forget() -> bool:
    """Delete the stored login; whether there was one."""
    path = config_path()
    if path.exists():
        path.unlink()
        return True
    return False


def server_option(given: str | None) -> str:
    """The server to use: the option, else ``AO_SERVER``, else the stored one, else the default."""
    if given:
        return given.rstrip("/")
    stored = load()
    server = load_client_settings().server or (stored.server if stored else "") or DEFAULT_SERVER
    return server.rstrip("/")
