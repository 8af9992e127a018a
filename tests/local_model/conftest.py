"""One real model per test session: the server (and its engine) are shared by every real_model test."""

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from agent_orchestrator.local_model.server import LocalModelServer


@pytest.fixture(scope="session")
def local_server(model_weights: Path) -> Iterator[LocalModelServer]:
    with LocalModelServer(model_weights, n_ctx=4096) as server:
        yield server


@pytest.fixture
def api(local_server: LocalModelServer) -> Iterator[httpx.Client]:
    headers = {"Authorization": f"Bearer {local_server.token}"}
    with httpx.Client(base_url=local_server.base_url, headers=headers, timeout=120) as client:
        yield client
