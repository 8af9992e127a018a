"""A key store (SQLite, a fresh master key) for the encryption tests."""

from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_orchestrator.sessions.crypto import MasterKeys, SessionKeys
from agent_orchestrator.sessions.store import make_engine


@pytest.fixture
def keys(tmp_path: Path) -> Iterator[SessionKeys]:
    keys = SessionKeys(
        make_engine(f"sqlite:///{tmp_path / 'keys.sqlite'}"), MasterKeys.from_text(MasterKeys.generate())
    )
    keys.ensure_table()
    yield keys
    keys.close()
