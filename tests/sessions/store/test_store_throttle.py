"""Login throttling in the store: charged before the check, refunded on success, strict under concurrency,
with an account's limit and a (higher) address's limit."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine, select

from agent_orchestrator.sessions.store import Charge, LoginThrottle, account_key, address_key
from agent_orchestrator.sessions.store.schema import login_throttle, utcnow

ALICE, HOME = account_key("Alice"), address_key("10.0.0.1")


def _failures(engine: Engine, key: str) -> int:
    with engine.connect() as conn:
        return conn.execute(select(login_throttle.c.failures).where(login_throttle.c.key == key)).scalar_one()


def test_an_account_locks_at_its_limit_and_an_address_at_its_own(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, max_address_failures=5, lockout=60)
    charges = [throttle.charge((ALICE, HOME)) for _ in range(3)]
    assert [c.allowed for c in charges] == [True, True, True]
    assert charges[0].locking == () and charges[2].locking == (ALICE,)
    refused = throttle.charge((ALICE, HOME))
    assert not refused.allowed and 55 <= refused.retry_after <= 60
    assert not throttle.charge((ALICE, address_key("10.0.0.2"))).allowed  # the account, from anywhere
    # The address has 3 of its 5: two more accounts may be tried from it, the second locks it.
    assert throttle.charge((account_key("bob"), HOME)).locking == ()
    assert throttle.charge((account_key("carol"), HOME)).locking == (HOME,)
    assert not throttle.charge((account_key("dave"), HOME)).allowed
    assert throttle.charge((account_key("dave"), address_key("10.0.0.2"))).allowed
    assert account_key("ALICE ") == ALICE  # the typed name, whatever its letter case


def test_a_success_refunds_the_account_but_only_its_own_attempt_of_the_address(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, max_address_failures=3, lockout=60)
    for _ in range(2):
        throttle.charge((ALICE, HOME))
    success = throttle.charge((ALICE, HOME))  # the third: would lock both, but it succeeds
    assert set(success.locking) == {ALICE, HOME}
    throttle.refund(success)
    assert throttle.charge((ALICE, address_key("10.0.0.9"))).allowed  # the account starts afresh
    assert throttle.charge((account_key("bob"), HOME)).allowed  # the address got its attempt back...
    assert not throttle.charge((account_key("carol"), HOME)).allowed  # ...and only that one


def test_successes_never_use_up_an_address(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, max_address_failures=2, lockout=60)
    for number in range(10):
        charge = throttle.charge((account_key(f"user{number}"), HOME))
        assert charge.allowed
        throttle.refund(charge)
    assert _failures(store_engine, HOME) == 0


def test_a_refund_gives_nothing_back_to_a_later_window(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, max_address_failures=3, lockout=0.5)
    slow = throttle.charge((ALICE, HOME))  # a login whose password check outlasts the window
    time.sleep(0.6)
    assert throttle.charge((account_key("bob"), HOME)).allowed  # a failure in the new window
    throttle.refund(slow)
    assert _failures(store_engine, HOME) == 1  # still counted


def test_the_lockout_ends_and_a_new_window_starts(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=2, max_address_failures=2, lockout=0.5)
    assert throttle.charge((ALICE,)).allowed and throttle.charge((ALICE,)).allowed
    assert not throttle.charge((ALICE,)).allowed
    time.sleep(0.6)
    assert throttle.charge((ALICE,)).allowed and throttle.charge((ALICE,)).locking == (ALICE,)
    time.sleep(0.6)
    assert throttle.purge_stale(utcnow()) == 1
    with store_engine.connect() as conn:
        assert conn.execute(select(login_throttle)).all() == []


def test_concurrent_attempts_never_get_more_than_the_limit(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=4, max_address_failures=6, lockout=60)
    with ThreadPoolExecutor(8) as pool:
        on_one_account = list(pool.map(lambda _: throttle.charge((ALICE, HOME)), range(24)))
        elsewhere = address_key("10.0.0.2")
        spread = list(pool.map(lambda n: throttle.charge((account_key(f"u{n}"), elsewhere)), range(24)))
    assert sum(c.allowed for c in on_one_account) == 4
    assert sum(c.allowed for c in spread) == 6


def test_concurrent_successes_from_one_address_all_pass(store_engine: Engine) -> None:
    throttle = LoginThrottle(store_engine, max_failures=3, max_address_failures=40, lockout=60)

    def login(number: int) -> Charge:
        charge = throttle.charge((account_key(f"user{number}"), HOME))
        if charge.allowed:
            throttle.refund(charge)
        return charge

    with ThreadPoolExecutor(8) as pool:
        charges = list(pool.map(login, range(200)))  # ten times more logins than the limit
    assert all(c.allowed for c in charges) and _failures(store_engine, HOME) == 0


def test_an_ipv6_client_is_one_address_per_64_bit_prefix() -> None:
    """A single IPv6 host is handed a whole /64 and picks any address in it: per address, it would
    have 2^64 allowances."""
    assert (
        address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9") == "address:2001:db8:1:2::/64"
    )
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:10.0.0.1") == address_key("10.0.0.1") == "address:10.0.0.1"
    assert address_key("unknown") == "address:unknown"
