"""Web settings from an environment mapping: every field honours the mapping it is given."""

from pathlib import Path

import pytest

from agent_orchestrator.web.settings import WebSettings


def test_database_url_comes_from_the_given_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("DATABASE_URL", raising=False)

    web = WebSettings.from_env(tmp_path, {"DATABASE_URL": "postgresql://u@db/app"})

    assert web.database_url == "postgresql+psycopg://u@db/app"
