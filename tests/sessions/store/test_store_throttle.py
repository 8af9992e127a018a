"""Login throttling in the store: charged before the check, refunded on success, strict under concurrency."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine, select

from agent_orchestrator.sessions.store import LoginThrottle, account_key, address_key
from agent_orchestrator.sessions.store.schema import login_throttle, utcnow

ALICE, HOME = account_key("Alice"), address_key("10.0.0.1")


def test_the_nth_charge_locks_both_keys_and_later_attempts_are_refused_with_a_wait(
    store_engine: Engine,
) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, lockout=60)
    charges = [throttle.charge((ALICE, HOME)) for _ in range(3)]
    assert [c.allowed for c in charges] == [True, True, True]
    assert charges[0].locking == () and set(charges[2].locking) == {ALICE, HOME}
    refused = throttle.charge((ALICE, HOME))
    assert not refused.allowed and 55 <= refused.retry_after <= 60
    # Either key alone is locked: another address for the account, another account from the address.
    assert not throttle.charge((ALICE, address_key("10.0.0.2"))).allowed
    assert not throttle.charge((account_key("bob"), HOME)).allowed
    assert account_key("ALICE ") == ALICE  # the typed name, whatever its letter case


def test_a_success_refunds_the_account_but_only_one_attempt_of_the_address(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, lockout=60)
    for _ in range(2):
        throttle.charge((ALICE, HOME))
    throttle.charge((ALICE, HOME))  # the third: would lock both, but it succeeds
    throttle.refund(ALICE, HOME)
    assert throttle.charge((ALICE, address_key("10.0.0.9"))).allowed  # the account starts afresh
    assert throttle.charge((account_key("bob"), HOME)).allowed  # the address got one attempt back...
    assert not throttle.charge((account_key("carol"), HOME)).allowed  # ...and only one


def test_the_lockout_ends_and_a_new_window_starts(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=2, lockout=0.5)
    assert throttle.charge((ALICE,)).allowed and throttle.charge((ALICE,)).allowed
    assert not throttle.charge((ALICE,)).allowed
    time.sleep(0.6)
    assert throttle.charge((ALICE,)).allowed and throttle.charge((ALICE,)).locking == (ALICE,)
    time.sleep(0.6)
    assert throttle.purge_stale(utcnow()) == 1
    with store_engine.connect() as conn:
        assert conn.execute(select(login_throttle)).all() == []


def test_concurrent_attempts_never_get_more_than_the_limit(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=4, lockout=60)
    with ThreadPoolExecutor(8) as pool:
        charges = list(pool.map(lambda _: throttle.charge((ALICE, HOME)), range(24)))
    assert sum(c.allowed for c in charges) == 4
