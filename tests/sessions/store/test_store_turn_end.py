"""The end of a turn as one write, on every backend (one statement on PostgreSQL): the catalog's record
and the search rows only while the turn's lease is live (the rows only while the session exists), the
tokens whatever became of the lease, and the lease released unless someone else holds it now."""

from __future__ import annotations

import functools
import time
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, func, select

from agent_orchestrator.sessions.store import (
    Lease,
    LeaseManager,
    SessionCatalog,
    SessionRecord,
    TokenTotals,
    TurnEnd,
    UsageLedger,
    User,
    UserStore,
)
from agent_orchestrator.sessions.store.schema import search_messages, turn_usage


@pytest.fixture
def alice(store_engine: Engine, fast_hasher: PasswordHasher) -> User:
    return UserStore(store_engine, hasher=fast_hasher).create("alice", "password-a")


@pytest.fixture
def catalog(store_engine: Engine, alice: User) -> SessionCatalog:
    catalog = SessionCatalog(store_engine)
    catalog.create(SessionRecord.new("sess-1", alice.id, "Chat"))
    assert catalog.record_turn("sess-1", preview="Best segment?", status="busy", prompt="Best segment?")
    return catalog


def search_row(
    owner: User, event_id: str, role: str, body: str, terms: str | None = None
) -> dict[str, object]:
    row: dict[str, object] = {
        "session_id": "sess-1",
        "owner_id": owner.id,
        "event_id": event_id,
        "role": role,
        "at": "2026-12-01T10:00:00.000Z",
        "body": body,
    }
    return row | ({"terms": terms} if terms is not None else {})


def end_of_turn(catalog: SessionCatalog, owner: User, answer: str = "Champions lead.") -> TurnEnd:
    return TurnEnd(
        catalog.turn_end_params("sess-1", preview=answer, status="idle"),
        [
            search_row(owner, "ev-user", "user", "Best segment?"),
            search_row(owner, "ev-answer", "assistant", answer, "t1 t2"),
        ],
        UsageLedger.row("sess-1", owner.id, input_tokens=120, output_tokens=8, model="scripted-model"),
    )


def indexed(engine: Engine) -> list[tuple[str, str | None]]:
    query = select(search_messages.c.event_id, search_messages.c.terms).order_by(search_messages.c.event_id)
    with engine.connect() as conn:
        return [(row.event_id, row.terms) for row in conn.execute(query)]


def usage_turns(engine: Engine, owner: User) -> int:
    return UsageLedger(engine).for_user(owner.id).turns


@pytest.fixture
def leases(store_engine: Engine) -> LeaseManager:
    return LeaseManager(store_engine)


def held_lease(leases: LeaseManager) -> Lease:
    """A turn's lease, live."""
    lease = leases.acquire("sess-1", "turn-1", ttl=30)
    assert lease is not None
    return lease


def lapsed_lease(leases: LeaseManager) -> Lease:
    """A turn's lease that expired while the turn ran."""
    lease = leases.acquire("sess-1", "turn-1", ttl=0.2)
    assert lease is not None
    time.sleep(0.3)  # kept: the lease expires
    return lease


def assert_only_the_tokens_were_written(engine: Engine, catalog: SessionCatalog, owner: User) -> None:
    record = catalog.get("sess-1")
    assert record is not None and (record.status, record.preview) == ("busy", "Best segment?")
    assert indexed(engine) == [] and usage_turns(engine, owner) == 1  # spent all the same


def test_a_live_lease_records_the_turn_indexes_it_counts_its_tokens_and_is_released(
    store_engine: Engine, catalog: SessionCatalog, alice: User, leases: LeaseManager
) -> None:
    lease = held_lease(leases)
    assert leases.finish(lease, end_of_turn(catalog, alice)) is True
    record = catalog.get("sess-1")
    assert record is not None
    assert (record.status, record.preview, record.pending_prompt) == ("idle", "Champions lead.", None)
    assert indexed(store_engine) == [("ev-answer", "t1 t2"), ("ev-user", None)]
    assert UsageLedger(store_engine).for_session("sess-1").input_tokens == 120
    assert leases.current("sess-1") is None and leases.is_latest("sess-1", lease.fencing_token)

    # The next turn indexes only what is new: a message indexed already is left as it is.
    again = leases.acquire("sess-1", "turn-2", ttl=30)
    assert again is not None and leases.finish(again, end_of_turn(catalog, alice, "Still Champions."))
    assert [event for event, _ in indexed(store_engine)] == ["ev-answer", "ev-user"]
    assert usage_turns(store_engine, alice) == 2


def test_an_expired_lease_writes_only_the_tokens_and_is_freed_if_no_one_took_it(
    store_engine: Engine, catalog: SessionCatalog, alice: User, leases: LeaseManager
) -> None:
    late = lapsed_lease(leases)
    assert leases.finish(late, end_of_turn(catalog, alice)) is False
    assert_only_the_tokens_were_written(store_engine, catalog, alice)
    taken = leases.acquire("sess-1", "turn-2", ttl=30)  # freed: the next turn takes it at once
    assert taken is not None and taken.fencing_token == late.fencing_token + 1


def test_a_lease_someone_else_took_is_left_to_them(
    store_engine: Engine, catalog: SessionCatalog, alice: User, leases: LeaseManager
) -> None:
    late = lapsed_lease(leases)
    taken = leases.acquire("sess-1", "turn-2", ttl=30)
    assert taken is not None
    assert leases.finish(late, end_of_turn(catalog, alice)) is False
    assert leases.current("sess-1") == taken and leases.check("sess-1", taken.fencing_token)
    assert_only_the_tokens_were_written(store_engine, catalog, alice)


def test_a_session_deleted_during_the_turn_gets_no_rows_and_the_turn_still_ends(
    store_engine: Engine, catalog: SessionCatalog, alice: User, leases: LeaseManager
) -> None:
    lease = held_lease(leases)
    end = end_of_turn(catalog, alice)
    catalog.delete("sess-1", alice.id)  # a delete takes no lease
    assert leases.finish(lease, end) is True
    assert catalog.get("sess-1") is None and indexed(store_engine) == []
    assert leases.current("sess-1") is None and usage_turns(store_engine, alice) == 1


def test_a_turn_that_spent_no_tokens_and_said_nothing_indexable_ends_too(
    store_engine: Engine, catalog: SessionCatalog, leases: LeaseManager
) -> None:
    lease = held_lease(leases)
    end = TurnEnd(catalog.turn_end_params("sess-1", preview="Best segment?", status="interrupted"))
    assert leases.finish(lease, end) is True
    record = catalog.get("sess-1")
    assert record is not None and record.status == "interrupted"
    with store_engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(search_messages)).scalar_one() == 0
    with pytest.raises(ValueError, match="idle or interrupted"):
        catalog.turn_end_params("sess-1", preview="x", status="busy")


def test_a_reservation_holds_a_turns_estimate_against_the_budget_until_its_end_settles_it(
    store_engine: Engine, catalog: SessionCatalog, alice: User, leases: LeaseManager
) -> None:
    ledger = UsageLedger(store_engine)
    today = datetime.now(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    reserve = functools.partial(ledger.reserve, alice.id, "sess-1", budget=300, since=today, default=200)
    first, held = reserve()
    assert first is not None and held == 0  # a first turn: the default estimate
    second_at_once, held = reserve()
    assert second_at_once is not None and held == 200  # 200 held, under 300: one more may start
    assert reserve() == (None, 400)  # 400 held: the budget is reached
    ledger.release(second_at_once)
    assert ledger.for_user(alice.id).turns == 0  # reservations are no turns
    end = replace(end_of_turn(catalog, alice), reservation=first)
    assert leases.finish(held_lease(leases), end) is True
    assert ledger.for_user(alice.id) == TokenTotals(120, 8, 1)  # settled with what it spent
    second, held = reserve()
    assert second is not None and held == 128  # estimated at what the session's last turn cost
    third, held = reserve()
    assert third is not None and held == 256
    assert reserve() == (None, 384)
    spent_nothing = replace(end_of_turn(catalog, alice), usage=None, reservation=second)
    assert leases.finish(held_lease(leases), spent_nothing) is True  # a failed turn gives it back
    ledger.release(third)  # a turn refused after all (busy)
    fourth, held = reserve()
    assert fourth is not None and held == 128
    ledger.release(fourth)
    with store_engine.connect() as conn:
        assert conn.scalar(select(func.count()).select_from(turn_usage)) == 1  # the settled turn only
