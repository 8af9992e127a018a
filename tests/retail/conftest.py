"""Shared fixtures: a small generated dataset (fast) and a hand-built one with known answers."""

from __future__ import annotations

from pathlib import Path

import pytest
from retail_fixtures import HEADER, KNOWN_ROWS, SMALL

from agent_orchestrator.retail import generate_dataset, import_online_retail_csv


@pytest.fixture(scope="session")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A generated dataset shared by read-only tests (never write to it)."""
    return generate_dataset(tmp_path_factory.mktemp("retail") / "small.sqlite", SMALL)


@pytest.fixture(scope="session")
def known_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The hand-built customers above, imported through the CSV importer."""
    folder = tmp_path_factory.mktemp("known")
    csv_path = folder / "known.csv"
    csv_path.write_text(HEADER + KNOWN_ROWS)
    result = import_online_retail_csv(folder / "known.sqlite", csv_path)
    assert result.skipped == 0, result.errors
    return folder / "known.sqlite"
