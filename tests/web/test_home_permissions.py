"""The web app started under umask 0o022 on a home an earlier version left readable
(docs/architecture.md#the-home-is-owner-only): every file it finds or writes there is owner-only
(the catalog and its WAL, the retail data, the dataset versions and their skipped rows, the
runtime's session files), and another local user reads none of it."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_helpers import events, send
from file_modes import mode, nobody_reads
from sales_csv import sales_csv
from test_data_api import SMALL_RETAIL, import_and_wait, upload

from agent_orchestrator.retail import generate_dataset
from agent_orchestrator.testing.scripted_model import Text


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    """Overrides pytest's, for ``start_app``: the home in a folder every local user may enter
    (pytest's own is not, which would hide what the home lets through), as an earlier version
    created it under umask 0o022."""
    folder = Path(tempfile.mkdtemp(prefix="ao-home-"))
    folder.chmod(0o755)
    home = folder / "home"
    home.mkdir(mode=0o755)
    try:
        yield home
    finally:
        shutil.rmtree(folder)


def test_everything_the_app_finds_or_writes_in_its_home_is_owner_only(
    umask_022: None, tmp_path: Path, start_app
) -> None:
    generate_dataset(tmp_path / "retail.sqlite", SMALL_RETAIL)  # as an earlier start left it: 0644
    assert mode(tmp_path / "retail.sqlite") == 0o644 and nobody_reads(tmp_path / "retail.sqlite")

    app = start_app(retail_dataset=True)  # its users were made before it started, under umask 0o022
    alice = app.client("alice")
    session_id = alice.post("/api/sessions", json={"title": "Private"}).json()["id"]
    app.model.script(Text("Noted."))
    assert events(send(alice, session_id, "Our margin is 12 %."))[-1][0] == "done"
    preview = upload(alice, sales_csv(tmp_path.parent / "orders.csv", 40, without_customer={3})).json()
    report = import_and_wait(alice, preview)["report"]

    home = tmp_path
    written = [
        home / "catalog.sqlite",
        home / "catalog.sqlite-wal",
        home / "retail.sqlite",
        home / "datasets" / "versions.sqlite",
        home / "datasets" / f"{report['version_id']}.sqlite",
        home / "datasets" / f"{report['version_id']}.skipped.csv",
    ]
    for path in written:
        assert path.exists() and mode(path) & 0o077 == 0, (path, oct(mode(path)))
    logs = list((home / "copilot").rglob("events.jsonl"))
    assert logs and all(mode(path) & 0o077 == 0 for path in logs)  # written by the Copilot CLI
    for root, folders, files in os.walk(home):
        for name in folders:
            assert mode(Path(root, name)) == 0o700, Path(root, name)
        for name in files:
            assert mode(Path(root, name)) & 0o077 == 0, Path(root, name)
    assert mode(home) == 0o700
    assert not nobody_reads(home / "catalog.sqlite")
    assert not nobody_reads(home / "datasets" / "versions.sqlite")
