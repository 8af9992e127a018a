"""Two servers (two libraries, each with its own data directory) sharing one PostgreSQL store."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from retail_fixtures import HEADER, KNOWN_ROWS
from sqlalchemy import Engine, create_engine

from agent_orchestrator.retail.datasets import DEFAULT_ID, DatasetLibrary, inspect_csv
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.testing.postgres import FreshSchema

pytestmark = pytest.mark.postgres


@pytest.fixture
def engine(postgres_schema: FreshSchema) -> Iterator[Engine]:
    made = create_engine(postgres_schema.sqlalchemy_url)
    yield made
    made.dispose()


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_two_servers_see_the_same_switch_and_the_same_bytes(engine: Engine, tmp_path: Path) -> None:
    one = DatasetLibrary(tmp_path / "one", engine=engine, check_interval=0.0)
    two = DatasetLibrary(tmp_path / "two", engine=engine, check_interval=0.0)
    assert one.current_version_id() == two.current_version_id() == DEFAULT_ID
    upload = tmp_path / "upload.csv"
    upload.write_text(HEADER + KNOWN_ROWS + "100019,B,ITEM B,1,2025-06-01 10:00:00,5,13,France\n")
    preview = inspect_csv(upload)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    report = one.import_csv(
        upload, mapping, preview.format, mode="replace", actor="admin", source_name="upload.csv"
    )
    assert two.current_version_id() == report.version_id
    here, there = one.current_path(), two.current_path()
    assert here != there and there.is_relative_to(tmp_path / "two")  # materialised in its own cache
    assert _sha(here) == _sha(there)
    conn = open_readonly(there)
    try:
        assert conn.execute("SELECT COUNT(*) FROM transactions").fetchone() == (19,)
    finally:
        conn.close()
    assert (
        two.skipped_rows_path(report.version_id).read_text()
        == one.skipped_rows_path(report.version_id).read_text()
    )
    assert [v.id for v in two.versions()] == [report.version_id]  # neither has a default dataset here
    settings = two.update_settings("other admin", currency="EUR")  # made on server two
    assert one.facts().currency == "EUR" and one.facts().version_id == settings.version_id
    one.activate(report.version_id, "admin")  # a restore on one is seen by two
    assert two.current_version_id() == report.version_id and two.facts().currency is None
    one.close()
    two.close()


def test_a_pruned_version_leaves_every_server_s_cache(engine: Engine, tmp_path: Path) -> None:
    one = DatasetLibrary(tmp_path / "one", engine=engine, keep=1, check_interval=0.0)
    two = DatasetLibrary(tmp_path / "two", engine=engine, keep=1, check_interval=0.0)
    upload = tmp_path / "upload.csv"
    upload.write_text(HEADER + KNOWN_ROWS)
    preview = inspect_csv(upload)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    first = one.import_csv(upload, mapping, preview.format, mode="replace", actor="a", source_name="u")
    two.current_path()
    assert two.files.path(first.version_id).exists()
    second = one.import_csv(upload, mapping, preview.format, mode="append", actor="a", source_name="u")
    assert two.current_version_id() == second.version_id
    assert not two.files.path(first.version_id).exists() and not one.files.path(first.version_id).exists()
    one.close()
    two.close()
