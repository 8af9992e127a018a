"""Building a version's SQLite file under a temporary name: from a CSV, or as a settings change.

The file is nobody's until it is complete and renamed (docs/architecture.md#dataset-versions), so
it is written with no journal and no syncs (``journal_mode=OFF``, ``synchronous=OFF``): a crash
leaves a temporary file to delete, never a half-built version anyone reads. It is switched back to
``journal_mode=DELETE`` before it is closed, so readers open it as any retail file.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from agent_orchestrator.retail.db import open_readwrite
from agent_orchestrator.retail.schema import create_tables, get_meta, set_meta
from agent_orchestrator.retail.stats import refresh_customer_stats

SETTINGS_KEYS = ("dataset_name", "currency", "active_days", "high_value_quintile")
"""The dataset's settings in a file's ``meta``: a replacing import carries them over."""


@contextmanager
def building(path: Path, *, base: Path | None) -> Iterator[sqlite3.Connection]:
    """A connection to a new file at ``path`` (a copy of ``base``, else empty with the tables), in
    one transaction committed when the block ends; the file is removed if the block fails."""
    path.unlink(missing_ok=True)
    if base is not None:
        shutil.copyfile(base, path)
    conn = open_readwrite(path)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")
        conn.execute("PRAGMA foreign_keys = OFF")  # the loader writes lines before their customers
        conn.execute("PRAGMA cache_size = -65536")  # 64 MB: index builds sort in memory
        conn.execute("BEGIN")
        if base is None:
            create_tables(conn)
        yield conn
        conn.execute("COMMIT")
        conn.execute("PRAGMA journal_mode = DELETE")
    except BaseException:
        conn.close()
        path.unlink(missing_ok=True)
        raise
    conn.close()


def carry_settings(conn: sqlite3.Connection, base: Path | None) -> None:
    """Copy the dataset's settings from the version being replaced (a replace keeps its name,
    currency and segment rules: they belong to the shop, not to one file)."""
    if base is None or not base.is_file():
        return
    source = sqlite3.connect(f"{base.resolve().as_uri()}?mode=ro", uri=True)
    try:
        values = [(key, get_meta(source, key)) for key in SETTINGS_KEYS]
    finally:
        source.close()
    for key, value in values:
        if value is not None:
            set_meta(conn, key, value)


def finish(conn: sqlite3.Connection, *, source: str) -> None:
    """Customer statistics and segments with the file's own rules, and its provenance."""
    refresh_customer_stats(conn)
    set_meta(conn, "source", source)
