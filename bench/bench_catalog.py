"""Session catalog benchmarks: the list page queries over 100,000 sessions, SQLite and PostgreSQL.

    uv run python bench/bench_catalog.py [--runs N] [--postgres-url URL] [--no-postgres]

Setup: 1,000 users and 100,000 sessions, skewed like real use: one heavy user owns 10,000 of them
(the case the indexes are for), the rest share 90,000. Bulk inserts, then ``ANALYZE`` (PostgreSQL:
``VACUUM ANALYZE``, as autovacuum would, so index-only scans apply). PostgreSQL gets
a fresh schema that is dropped afterwards (default URL: the local test server, or ``BENCH_POSTGRES_URL``).

Timed, through :class:`SessionCatalog` (so SQLAlchemy and row mapping are included), for the heavy
user: the first page (50), a later page (page 101, reached by keyset cursor), a title search (a
common word, and a rare one that must scan all 10,000 of the user's rows), a case filter, the
sidebar's default list (active and unpinned chats) and its pinned section.
Prints ``backend name: median ms (ratio to the 10 ms target)``; below 1.0 is good.
Machines are noisy: medians of N runs (200 by default), both backends in one run.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine, insert, text
from timing import median_seconds

from agent_orchestrator.sessions.store import SessionCatalog, make_engine, migrate
from agent_orchestrator.sessions.store.catalog import fold_title
from agent_orchestrator.sessions.store.schema import sessions, users
from agent_orchestrator.testing.postgres import fresh_schema, postgres_problem, server_url

TARGET_S = 0.010
USERS = 1_000
SESSIONS = 100_000
HEAVY_SESSIONS = 10_000
HEAVY_USER = 1
CASES = 40
LATER_PAGE = 101
CHUNK = 10_000
WORDS = [
    "forecast",
    "churn",
    "basket",
    "segment",
    "loyalty",
    "promo",
    "pricing",
    "margin",
    "inventory",
    "returns",
    "weekly",
    "monthly",
    "regional",
    "store",
    "online",
    "campaign",
    "cohort",
    "uplift",
    "assortment",
    "supplier",
    "review",
    "summary",
    "draft",
    "q1",
    "q2",
    "q3",
    "q4",
]
DEFAULT_PG_URL = os.environ.get("BENCH_POSTGRES_URL") or server_url()


def session_rows() -> Iterator[dict[str, object]]:
    rng = random.Random(42)
    t0 = datetime(2026, 6, 1, tzinfo=UTC)
    owners = [HEAVY_USER] * HEAVY_SESSIONS + [rng.randint(2, USERS) for _ in range(SESSIONS - HEAVY_SESSIONS)]
    rng.shuffle(owners)
    for i, owner in enumerate(owners):
        # Whole seconds over a year: plenty of equal updated_at values, as with bursts of activity.
        updated = t0 - timedelta(seconds=rng.randint(0, 365 * 86_400) // 60 * 60)
        title = f"{rng.choice(WORDS).title()} {rng.choice(WORDS)} {rng.choice(WORDS)} #{i}"
        yield {
            "id": f"bench-{i:08d}",
            "public_id": f"bench-{i:08d}",  # as a session stored before ids were per owner
            "owner_id": owner,
            "title": title,
            "title_folded": fold_title(title),
            "case_key": f"case-{rng.randrange(CASES)}" if rng.random() < 0.75 else None,
            "model": "gpt-5",
            "created_at": updated - timedelta(minutes=rng.randint(0, 600)),
            "updated_at": updated,
            "preview": "Sales in the north region rose 4% week over week, driven by promotions.",
            "status": "idle",
            "turn_count": rng.randint(1, 30),
        }


def populate(engine: Engine) -> None:
    now = datetime.now(UTC)
    user_rows = [
        {"id": i, "username": f"user{i:04d}", "password_hash": "$bench$", "created_at": now}
        for i in range(1, USERS + 1)
    ]
    with engine.begin() as conn:
        conn.execute(insert(users), user_rows)
        chunk: list[dict[str, object]] = []
        for row in session_rows():
            chunk.append(row)
            if len(chunk) == CHUNK:
                conn.execute(insert(sessions), chunk)
                chunk = []
        if chunk:
            conn.execute(insert(sessions), chunk)
    if engine.dialect.name == "postgresql":  # what autovacuum does to a table after bulk inserts
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            conn.execute(text("VACUUM ANALYZE"))
    else:
        with engine.begin() as conn:
            conn.execute(text("ANALYZE"))


def bench_backend(name: str, engine: Engine, runs: int) -> None:
    start = time.perf_counter()
    migrate(engine)
    populate(engine)
    print(f"{name} setup: {time.perf_counter() - start:.1f} s ({USERS} users, {SESSIONS} sessions)")
    catalog = SessionCatalog(engine)
    cursor = None
    for _ in range(LATER_PAGE - 1):
        cursor = catalog.list_for_owner(HEAVY_USER, cursor=cursor).next_cursor
    assert cursor is not None
    found = catalog.list_for_owner(HEAVY_USER, search="forecast").items
    cases = catalog.list_for_owner(HEAVY_USER, case_key="case-7").items
    assert len(found) == 50 and len(cases) == 50, "the data should fill a page"
    timings = {
        "first_page": lambda: catalog.list_for_owner(HEAVY_USER),
        f"page_{LATER_PAGE}_by_cursor": lambda: catalog.list_for_owner(HEAVY_USER, cursor=cursor),
        "search_title": lambda: catalog.list_for_owner(HEAVY_USER, search="Forecast"),
        "search_rare": lambda: catalog.list_for_owner(HEAVY_USER, search="#99999"),
        "case_filter": lambda: catalog.list_for_owner(HEAVY_USER, case_key="case-7"),
        # What the sidebar asks since chats can be archived and pinned: the active, unpinned ones,
        # and the pinned section (none pinned: the whole index range is read and rejected).
        "active_list": lambda: catalog.list_for_owner(HEAVY_USER, archived=False, pinned=False),
        "pinned_section": lambda: catalog.list_for_owner(HEAVY_USER, pinned=True, limit=200),
    }
    for label, fn in timings.items():
        median = median_seconds(fn, runs)
        print(f"{name} {label}: {median * 1000:.2f} ms (ratio to 10 ms target: {median / TARGET_S:.3f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--postgres-url", default=DEFAULT_PG_URL)
    parser.add_argument("--no-postgres", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        engine = make_engine(f"sqlite:///{Path(tmp) / 'catalog.sqlite'}")
        try:
            bench_backend("sqlite", engine, args.runs)
        finally:
            engine.dispose()

    if args.no_postgres:
        return
    if (problem := postgres_problem(args.postgres_url)) is not None:
        print(f"postgres: skipped, server unreachable ({problem})")
        return
    with fresh_schema("bench", url=args.postgres_url) as schema:
        engine = make_engine(schema.sqlalchemy_url)
        try:
            bench_backend("postgres", engine, args.runs)
        finally:
            engine.dispose()


if __name__ == "__main__":
    main()
