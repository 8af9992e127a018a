"""The app's home is its owner's only (docs/architecture.md#the-home-is-owner-only): a start under
any umask tightens what is there (folders 0700, files without the group's and others' bits, an
owner's execute bit kept, links left alone) and sets the umask so that what is written next is
owner-only too; another local user then reads nothing."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from file_modes import mode, nobody_reads

from agent_orchestrator.home import prepare_home, secure_tree
from agent_orchestrator.sessions.store import make_engine, migrate


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every local user may enter (pytest's own tmp_path is not: it would hide the home)."""
    folder = Path(tempfile.mkdtemp(prefix="ao-home-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _earlier_home(home: Path) -> None:
    """What an earlier version left under umask 0o022: the catalog (with its WAL), the retail data,
    a dataset version, an upload, and the runtime's files, one of them an executable."""
    home.mkdir(mode=0o755)
    engine = make_engine(f"sqlite:///{home / 'catalog.sqlite'}")
    try:
        migrate(engine)
    finally:
        engine.dispose()
    (home / "catalog.sqlite").chmod(0o644)  # as make_engine left it before
    for name in ("retail.sqlite", "datasets/versions.sqlite", "datasets/v1.sqlite", "uploads/u1.csv"):
        (home / name).parent.mkdir(mode=0o755, exist_ok=True)
        (home / name).write_bytes(b"data")
        (home / name).chmod(0o644)
    tool = home / "copilot" / "pkg" / "tool"
    tool.parent.mkdir(parents=True, mode=0o755)
    tool.write_bytes(b"#!/bin/sh\n")
    tool.chmod(0o755)


def test_a_start_tightens_an_earlier_home_and_writes_owner_only_from_then_on(
    umask_022: None, open_folder: Path
) -> None:
    home = open_folder / "home"
    _earlier_home(home)
    outside = open_folder / "outside.txt"
    outside.write_text("not the app's")
    (home / "link").symlink_to(outside)
    assert nobody_reads(home / "catalog.sqlite")  # the check below means something

    previous = prepare_home(home)
    try:
        assert previous == 0o022
        for folder in (home, home / "datasets", home / "uploads", home / "copilot" / "pkg"):
            assert mode(folder) == 0o700, folder
        for name in ("catalog.sqlite", "retail.sqlite", "datasets/versions.sqlite", "datasets/v1.sqlite"):
            assert mode(home / name) == 0o600, name
        assert mode(home / "copilot" / "pkg" / "tool") == 0o700  # still executable, by its owner
        assert mode(outside) == 0o644  # a link is not followed

        # Written from now on, under the process's umask: owner-only without any chmod.
        (home / "uploads" / "new.csv").write_text("x")
        (home / "later").mkdir()
        engine = make_engine(f"sqlite:///{home / 'later' / 'catalog.sqlite'}")
        try:
            migrate(engine)
            with engine.connect():  # the WAL exists while a connection is open
                assert mode(home / "later" / "catalog.sqlite-wal") == 0o600
        finally:
            engine.dispose()
        assert mode(home / "uploads" / "new.csv") == 0o600
        assert mode(home / "later") == 0o700
        assert mode(home / "later" / "catalog.sqlite") == 0o600
    finally:
        os.umask(previous)

    assert not nobody_reads(home / "catalog.sqlite")
    assert not nobody_reads(home / "retail.sqlite")


def test_the_catalog_is_owner_only_whatever_the_umask(umask_022: None, tmp_path: Path) -> None:
    """The catalog holds password hashes: created owner-only even by a process that never set its
    umask (a library user, a test), and tightened when it exists."""
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh' / 'catalog.sqlite'}")
    try:
        migrate(engine)
        with engine.connect():
            assert mode(tmp_path / "fresh" / "catalog.sqlite-wal") == 0o600
    finally:
        engine.dispose()
    assert mode(tmp_path / "fresh" / "catalog.sqlite") == 0o600
    (tmp_path / "fresh" / "catalog.sqlite").chmod(0o644)
    make_engine(f"sqlite:///{tmp_path / 'fresh' / 'catalog.sqlite'}").dispose()
    assert mode(tmp_path / "fresh" / "catalog.sqlite") == 0o600


def test_a_missing_home_is_created_owner_only_and_a_second_walk_changes_nothing(
    umask_022: None, tmp_path: Path
) -> None:
    home = tmp_path / "a" / "home"
    assert secure_tree(home) == 0
    assert mode(home) == 0o700
    (home / "f").write_text("x")
    assert secure_tree(home) == 1 and secure_tree(home) == 0
