"""The app's home is its owner's only (docs/architecture.md#the-home-is-owner-only): a start under
any umask tightens what is there (folders 0700, files without the group's and others' bits, an
owner's execute bit kept, links left alone) and sets the umask so that what is written next is
owner-only too; another local user then reads nothing."""

import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_orchestrator.home import prepare_home, secure_tree
from agent_orchestrator.sessions.store import make_engine, migrate

NOBODY = "nobody"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture
def umask_022() -> Iterator[None]:
    """The umask most systems give a process; restored after the test."""
    previous = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(previous)


@pytest.fixture
def open_folder() -> Iterator[Path]:
    """A folder every local user may enter (pytest's own tmp_path is not: it would hide the home)."""
    folder = Path(tempfile.mkdtemp(prefix="ao-home-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _as_nobody_can_read(path: Path) -> bool:
    """Whether another local user (``nobody``) can read ``path``; the test is skipped unless root."""
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        pytest.skip("reading as another local user needs root and runuser")
    result = subprocess.run(
        ["runuser", "-u", NOBODY, "--", "cat", str(path)], capture_output=True, timeout=30, check=False
    )
    return result.returncode == 0


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
    assert _as_nobody_can_read(home / "catalog.sqlite")  # the check below means something

    previous = prepare_home(home)
    try:
        assert previous == 0o022
        for folder in (home, home / "datasets", home / "uploads", home / "copilot" / "pkg"):
            assert _mode(folder) == 0o700, folder
        for name in ("catalog.sqlite", "retail.sqlite", "datasets/versions.sqlite", "datasets/v1.sqlite"):
            assert _mode(home / name) == 0o600, name
        assert _mode(home / "copilot" / "pkg" / "tool") == 0o700  # still executable, by its owner
        assert _mode(outside) == 0o644  # a link is not followed

        # Written from now on, under the process's umask: owner-only without any chmod.
        (home / "uploads" / "new.csv").write_text("x")
        (home / "later").mkdir()
        engine = make_engine(f"sqlite:///{home / 'later' / 'catalog.sqlite'}")
        try:
            migrate(engine)
            with engine.connect():  # the WAL exists while a connection is open
                assert _mode(home / "later" / "catalog.sqlite-wal") == 0o600
        finally:
            engine.dispose()
        assert _mode(home / "uploads" / "new.csv") == 0o600
        assert _mode(home / "later") == 0o700
        assert _mode(home / "later" / "catalog.sqlite") == 0o600
    finally:
        os.umask(previous)

    assert not _as_nobody_can_read(home / "catalog.sqlite")
    assert not _as_nobody_can_read(home / "retail.sqlite")


def test_the_catalog_is_owner_only_whatever_the_umask(umask_022: None, tmp_path: Path) -> None:
    """The catalog holds password hashes: created owner-only even by a process that never set its
    umask (a library user, a test), and tightened when it exists."""
    engine = make_engine(f"sqlite:///{tmp_path / 'fresh' / 'catalog.sqlite'}")
    try:
        migrate(engine)
        with engine.connect():
            assert _mode(tmp_path / "fresh" / "catalog.sqlite-wal") == 0o600
    finally:
        engine.dispose()
    assert _mode(tmp_path / "fresh" / "catalog.sqlite") == 0o600
    (tmp_path / "fresh" / "catalog.sqlite").chmod(0o644)
    make_engine(f"sqlite:///{tmp_path / 'fresh' / 'catalog.sqlite'}").dispose()
    assert _mode(tmp_path / "fresh" / "catalog.sqlite") == 0o600


def test_a_missing_home_is_created_owner_only_and_a_second_walk_changes_nothing(
    umask_022: None, tmp_path: Path
) -> None:
    home = tmp_path / "a" / "home"
    assert secure_tree(home) == 0
    assert _mode(home) == 0o700
    (home / "f").write_text("x")
    assert secure_tree(home) == 1 and secure_tree(home) == 0
