"""A small generated dataset for the MCP server tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_orchestrator.retail import GeneratorConfig, generate_dataset


@pytest.fixture(scope="session")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    config = GeneratorConfig(seed=11, customers=300, transactions=6_000, products=200)
    return generate_dataset(tmp_path_factory.mktemp("mcp") / "retail.sqlite", config)
