"""Tables and indexes of the retail SQLite file, and its small key/value ``meta`` table.

The layout follows the "Online Retail II" data one row per invoice line, so a generated dataset
and an imported file look the same to every query:

- ``transactions``: one invoice line (one product on one invoice). An *order* is an invoice.
  ``(invoice, stock_code, seq)`` is the natural key that makes re-imports idempotent; ``seq``
  numbers repeated lines of the same product on one invoice (the real data has such duplicates).
  ``is_cancellation`` marks lines of cancelled invoices ("C...") and other negative lines;
  ``amount`` (quantity * unit_price, negative for those) is stored so the amount filters use it.
- ``product_names``: every description a stock code was sold under (real files rename products:
  85123A is both "WHITE HANGING HEART T-LIGHT HOLDER" and "CREAM …"); ``products`` keeps the latest.
  Added without a schema version change: a file without it is matched on ``products`` alone.
- ``customer_stats``: per-customer aggregates, RFM scores and segment, rebuilt after every
  generation/import (``stats.refresh_customer_stats``) so segment queries never scan transactions.

Timestamps are ISO text ``YYYY-MM-DD HH:MM:SS``: they sort and range-filter as strings.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable

SCHEMA_VERSION = 1

TABLES = """
CREATE TABLE IF NOT EXISTS meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS customers (
    customer_id INTEGER PRIMARY KEY,
    country     TEXT NOT NULL COLLATE NOCASE
);
CREATE TABLE IF NOT EXISTS products (
    stock_code  TEXT PRIMARY KEY,
    description TEXT NOT NULL,
    unit_price  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS product_names (
    stock_code  TEXT NOT NULL,
    description TEXT NOT NULL,
    PRIMARY KEY (stock_code, description)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS transactions (
    transaction_id  INTEGER PRIMARY KEY,
    invoice         TEXT NOT NULL,
    stock_code      TEXT NOT NULL REFERENCES products (stock_code),
    seq             INTEGER NOT NULL DEFAULT 0,
    customer_id     INTEGER NOT NULL REFERENCES customers (customer_id),
    quantity        INTEGER NOT NULL,
    unit_price      REAL NOT NULL,
    amount          REAL NOT NULL,
    invoiced_at     TEXT NOT NULL,
    country         TEXT NOT NULL COLLATE NOCASE,
    is_cancellation INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS customer_stats (
    customer_id      INTEGER PRIMARY KEY REFERENCES customers (customer_id),
    country          TEXT NOT NULL COLLATE NOCASE,
    orders           INTEGER NOT NULL,
    cancellations    INTEGER NOT NULL,
    revenue          REAL NOT NULL,
    first_purchase   TEXT NOT NULL,
    last_purchase    TEXT NOT NULL,
    recency_days     INTEGER NOT NULL,
    tenure_days      INTEGER NOT NULL,
    r_score          INTEGER NOT NULL,
    f_score          INTEGER NOT NULL,
    m_score          INTEGER NOT NULL,
    segment          TEXT NOT NULL
);
"""

# Each index serves a listed query: customer history and date ranges, country pages, amount
# filters, the idempotent-import key, and segment pages ordered by revenue.
INDEXES = """
CREATE UNIQUE INDEX IF NOT EXISTS transactions_natural_key ON transactions (invoice, stock_code, seq);
CREATE INDEX IF NOT EXISTS transactions_customer_time ON transactions (customer_id, invoiced_at);
CREATE INDEX IF NOT EXISTS transactions_time ON transactions (invoiced_at);
CREATE INDEX IF NOT EXISTS transactions_country_time ON transactions (country, invoiced_at);
CREATE INDEX IF NOT EXISTS transactions_amount ON transactions (amount);
CREATE INDEX IF NOT EXISTS customer_stats_segment_revenue ON customer_stats (segment, revenue DESC);
CREATE INDEX IF NOT EXISTS customer_stats_country ON customer_stats (country);
CREATE INDEX IF NOT EXISTS customer_stats_revenue ON customer_stats (revenue DESC);
"""


def _run_script(conn: sqlite3.Connection, script: str) -> None:
    # Not ``executescript``: that COMMITs any open transaction first, which would break the
    # importer's all-or-nothing transaction.
    for statement in script.split(";"):
        if statement.strip():
            conn.execute(statement)


def create_tables(conn: sqlite3.Connection) -> None:
    """Tables only: the generator bulk-loads first and indexes afterwards (several times faster)."""
    _run_script(conn, TABLES)
    set_meta(conn, "schema_version", str(SCHEMA_VERSION))


def create_indexes(conn: sqlite3.Connection, step: Callable[[], None] | None = None) -> None:
    """The indexes; ``step`` after each statement (an import's progress and cancellation point)."""
    for statement in INDEXES.split(";"):
        if statement.strip():
            conn.execute(statement)
            if step is not None:
                step()


def drop_indexes(conn: sqlite3.Connection) -> None:
    """The indexes gone, for a bulk load into an empty file that builds them again afterwards."""
    for name in re.findall(r"EXISTS (\w+) ON", INDEXES):
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def ensure_schema(conn: sqlite3.Connection) -> None:
    """Idempotent: tables and indexes, for writers that upsert (the importer needs the unique key)."""
    create_tables(conn)
    create_indexes(conn)


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    conn.execute(
        "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        (key, value),
    )


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])
