"""Leases: one writer per session across threads and processes; expiry; fencing of stale writers."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import Engine, text
from store_helpers import StoreDb
from store_worker import critical_sections

from agent_orchestrator.sessions.store import Fence, LeaseManager, lease_clock, make_holder_id
from agent_orchestrator.testing.eventually import eventually

WORKER = Path(__file__).with_name("store_worker.py")


def create_probe(engine: Engine) -> None:
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE probe (id INTEGER PRIMARY KEY, counter INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO probe (id, counter) VALUES (1, 0)"))


def probe_counter(engine: Engine) -> int:
    with engine.connect() as conn:
        return int(conn.execute(text("SELECT counter FROM probe WHERE id = 1")).scalar_one())


def test_first_acquire_wins_and_others_are_refused(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    lease = leases.acquire("sess-1", "server-a", ttl=30)
    assert lease is not None and lease.fencing_token == 1 and lease.holder == "server-a"
    assert leases.acquire("sess-1", "server-b", ttl=30) is None
    assert leases.current("sess-1") == lease
    assert leases.check("sess-1", lease.fencing_token)
    other = leases.acquire("sess-2", "server-b", ttl=30)  # leases are per session
    assert other is not None and other.fencing_token == 1


def test_a_revoke_takes_the_lease_whose_holder_then_fails_the_fence(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    held = leases.acquire("sess-1", "server-a/turn", ttl=30)
    assert held is not None
    revoked = leases.revoke("sess-1", "server-b/deleting", ttl=30)
    assert revoked.previous_holder == "server-a/turn" and 25 < revoked.remaining <= 30
    assert revoked.lease.fencing_token == held.fencing_token + 1
    assert leases.current("sess-1") == replace(revoked.lease, sure_until=0.0)
    assert not leases.renew(held, 30) and not leases.check("sess-1", held.fencing_token)
    assert not leases.release(held) and leases.check("sess-1", revoked.lease.fencing_token)
    assert leases.release(revoked.lease)
    free = leases.revoke("sess-1", "server-b/deleting", ttl=30)  # from no one: nothing to wait out
    assert (free.previous_holder, free.remaining) == (None, 0.0)
    assert leases.revoke("sess-2", "server-b/deleting", ttl=30).lease.fencing_token == 1


def test_the_same_holder_renews_by_acquiring_again_and_keeps_its_token(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    first = leases.acquire("sess-1", "server-a", ttl=30)
    again = leases.acquire("sess-1", "server-a", ttl=60)
    assert first is not None and again is not None
    assert again.fencing_token == first.fencing_token and again.expires_at > first.expires_at


def test_a_released_lease_is_the_latest_until_someone_takes_the_session(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    assert leases.is_latest("sess-1", 0)  # never leased: the copy that created it may write
    mine = leases.acquire("sess-1", "turn-1", ttl=30)
    assert mine is not None and leases.release(mine)
    assert not leases.is_latest("sess-1", 0)
    assert leases.is_latest("sess-1", mine.fencing_token)  # a warm copy may still write
    other = leases.acquire("sess-1", "turn-2", ttl=30)
    assert other is not None and leases.release(other)
    assert not leases.is_latest("sess-1", mine.fencing_token)  # ...but no longer once another turn ran


def test_expiry_lets_another_holder_in_and_fences_the_stale_one(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    stale = leases.acquire("sess-1", "server-a", ttl=0.2)
    assert stale is not None
    time.sleep(0.3)  # kept: the lease expires
    assert leases.check("sess-1", stale.fencing_token) is False  # expired: its late write is refused
    assert leases.current("sess-1") is None
    fresh = leases.acquire("sess-1", "server-b", ttl=30)
    assert fresh is not None and fresh.fencing_token == stale.fencing_token + 1
    assert leases.check("sess-1", stale.fencing_token) is False
    assert leases.check("sess-1", fresh.fencing_token) is True
    assert leases.renew(stale, ttl=30) is False  # renew after loss
    assert leases.release(stale) is False  # and the stale holder cannot free the new holder's lease
    assert leases.current("sess-1") == fresh


def test_renew_extends_a_live_lease_but_not_an_expired_one(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    lease = leases.acquire("sess-1", "server-a", ttl=1.0)
    assert lease is not None
    time.sleep(0.5)  # kept: half the lease goes by
    assert leases.renew(lease, ttl=1.0) is True
    time.sleep(0.7)  # kept: past the first expiry, well within the renewed one
    assert leases.check("sess-1", lease.fencing_token)
    time.sleep(0.5)  # kept: the renewed lease expires
    assert leases.renew(lease, ttl=30) is False  # expired, even though nobody took it: acquire again
    again = leases.acquire("sess-1", "server-a", ttl=30)
    assert again is not None and again.fencing_token == lease.fencing_token + 1


def test_release_frees_the_session_and_tokens_never_go_back(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    tokens = []
    for holder in ["a", "b", "a", "c"]:
        lease = leases.acquire("sess-1", holder, ttl=30)
        assert lease is not None
        tokens.append(lease.fencing_token)
        assert leases.release(lease) is True
        assert leases.release(lease) is False
        assert leases.check("sess-1", lease.fencing_token) is False
        assert leases.current("sess-1") is None
    assert tokens == [1, 2, 3, 4]


def test_bad_arguments_are_refused(store_engine: Engine) -> None:
    leases = LeaseManager(store_engine)
    for ttl in [0, -1, 10**6]:
        with pytest.raises(ValueError):
            leases.acquire("sess-1", "a", ttl=ttl)
    with pytest.raises(ValueError):
        leases.acquire("sess-1", "", ttl=1)
    assert make_holder_id() != make_holder_id()


def test_racing_threads_get_exactly_one_lease(store_db: StoreDb) -> None:
    engines = [store_db.engine() for _ in range(2)]  # two pools, like two servers in one process
    barrier = threading.Barrier(8)
    won: list[int] = []
    errors: list[BaseException] = []

    def race(index: int) -> None:
        try:
            barrier.wait()
            lease = LeaseManager(engines[index % 2]).acquire("sess-race", f"thread-{index}", ttl=30)
            if lease is not None:
                won.append(lease.fencing_token)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for engine in engines:
        engine.dispose()
    assert errors == []
    assert won == [1]


def test_threads_taking_turns_never_overlap(store_engine: Engine) -> None:
    """Each thread does read-sleep-write on a counter under the lease; any overlap would lose an update."""
    create_probe(store_engine)
    results: list[list[int]] = []
    errors: list[BaseException] = []

    def work(index: int) -> None:
        try:
            results.append(critical_sections(store_engine, "sess-turns", f"thread-{index}", rounds=5))
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert probe_counter(store_engine) == 20
    assert sorted(token for tokens in results for token in tokens) == list(range(1, 21))


@pytest.mark.slow  # worker processes of their own
def test_two_processes_taking_turns_never_overlap(store_db: StoreDb, store_engine: Engine) -> None:
    create_probe(store_engine)
    start_at = str(time.time() + 2.5)
    command = [sys.executable, str(WORKER), "lease", store_db.url, "sess-procs", "15", start_at]
    procs = [subprocess.Popen(command, stdout=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [proc.communicate(timeout=120)[0] for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0]
    tokens = [json.loads(out) for out in outputs]
    assert probe_counter(store_engine) == 30
    assert sorted(tokens[0] + tokens[1]) == list(range(1, 31))


def test_a_holder_counts_on_half_its_lease_without_asking_then_asks(store_engine: Engine) -> None:
    """``Fence``: right after taking (or renewing) a lease its holder knows it is live without a query,
    for half the ttl, counted from before the statement went out; the database agrees all along.

    The ttl is 2 s so that a statement slowed by a busy CI machine (a PostgreSQL round-trip has taken
    over 0.2 s there) still returns inside the half the holder counts on."""
    ttl = 2.0
    leases = LeaseManager(store_engine)
    before = lease_clock()
    lease = leases.acquire("sess-1", "server-a", ttl=ttl)
    assert lease is not None and before + ttl / 2 <= lease.sure_until <= lease_clock() + ttl / 2
    fence = Fence.of(lease)
    assert fence.surely_live() and leases.check("sess-1", fence.token)
    eventually(lambda: not fence.surely_live(), timeout=10, interval=0.01)  # its half of the ttl is up
    assert leases.check("sess-1", fence.token)  # the half it did not count on is still to come
    sent = lease_clock()
    assert leases.renew(lease, ttl=ttl)
    fence.renewed(sent, ttl, ok=True)
    assert fence.surely_live()
    time.sleep(ttl + 0.1)  # kept: the lease lapses
    assert not leases.renew(lease, ttl=ttl)  # lapsed: from now on the holder asks
    fence.renewed(lease_clock(), ttl, ok=False)
    assert not fence.surely_live() and not leases.check("sess-1", fence.token)
    assert leases.current("sess-1") is None and lease == replace(lease, sure_until=0.0)  # local knowledge
