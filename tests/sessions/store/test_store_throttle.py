"""Login throttling in the store: charged before the check, refunded on success, strict under concurrency,
with limits for an account from one address, an account from anywhere (higher) and an address (highest)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import Engine, select

from agent_orchestrator.sessions.store import (
    Charge,
    LoginThrottle,
    account_key,
    address_key,
    login_keys,
    scope_of,
)
from agent_orchestrator.sessions.store.schema import login_throttle, utcnow

HOME = address_key("10.0.0.1")


def _throttle(engine: Engine, guesses: int, account: int, address: int, lockout: float = 60) -> LoginThrottle:
    return LoginThrottle(
        engine,
        max_failures=guesses,
        max_account_failures=account,
        max_address_failures=address,
        lockout=lockout,
    )


def _failures(engine: Engine, key: str) -> int:
    with engine.connect() as conn:
        return conn.execute(select(login_throttle.c.failures).where(login_throttle.c.key == key)).scalar_one()


def test_a_guesser_locks_the_account_only_from_its_own_address(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=5, address=100)
    charges = [throttle.charge(login_keys("Alice", "10.0.0.1")) for _ in range(3)]
    assert [c.allowed for c in charges] == [True, True, True]
    assert charges[0].locking == () and [scope_of(k) for k in charges[2].locking] == ["account_from_address"]
    refused = throttle.charge(login_keys("alice ", "10.0.0.1"))  # the typed name, whatever its case
    assert not refused.allowed and 55 <= refused.retry_after <= 60
    assert throttle.charge(login_keys("bob", "10.0.0.1")).allowed  # the address is not locked
    # The owner, elsewhere, is not locked out; guesses from more addresses meet the account's ceiling.
    assert throttle.charge(login_keys("alice", "10.0.0.2")).allowed
    last = throttle.charge(login_keys("alice", "10.0.0.3"))
    assert [scope_of(key) for key in last.locking] == ["account"]
    assert not throttle.charge(login_keys("alice", "10.0.0.4")).allowed


def test_an_address_locks_at_its_limit_over_many_accounts(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=5, address=4)
    charges = [throttle.charge(login_keys(f"user{n}", "10.0.0.1")) for n in range(4)]
    assert [c.allowed for c in charges] == [True] * 4 and charges[3].locking == (HOME,)
    assert scope_of(HOME) == "address"
    assert not throttle.charge(login_keys("dave", "10.0.0.1")).allowed
    assert throttle.charge(login_keys("dave", "10.0.0.2")).allowed


def test_a_success_refunds_its_own_attempts_and_starts_the_guesses_afresh(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=4, address=3)
    for _ in range(2):
        throttle.charge(login_keys("alice", "10.0.0.1"))
    success = throttle.charge(login_keys("alice", "10.0.0.1"))  # the third: would lock, but succeeds
    assert {scope_of(key) for key in success.locking} == {"account_from_address", "address"}
    throttle.refund(success)
    assert _failures(store_engine, account_key("alice")) == 2  # the failures before it still count
    assert throttle.charge(login_keys("bob", "10.0.0.1")).allowed  # the address got its attempt back...
    assert not throttle.charge(login_keys("carol", "10.0.0.1")).allowed  # ...and only that one
    assert throttle.charge(login_keys("alice", "10.0.0.9")).allowed  # the account's ceiling: 3 of 4


def test_successes_never_use_up_an_address(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=3, address=2)
    for number in range(10):
        charge = throttle.charge(login_keys(f"user{number}", "10.0.0.1"))
        assert charge.allowed
        throttle.refund(charge)
    assert _failures(store_engine, HOME) == 0


def test_a_refund_gives_nothing_back_to_a_later_window(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=3, address=3, lockout=0.5)
    slow = throttle.charge(login_keys("alice", "10.0.0.1"))  # a login whose check outlasts the window
    time.sleep(0.6)  # kept: the throttle's window ends
    assert throttle.charge(login_keys("bob", "10.0.0.1")).allowed  # a failure in the new window
    throttle.refund(slow)
    assert _failures(store_engine, HOME) == 1  # still counted


def test_the_lockout_ends_and_a_new_window_starts(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=2, account=2, address=2, lockout=0.5)
    alice = account_key("alice")
    assert throttle.charge((alice,)).allowed and throttle.charge((alice,)).allowed
    assert not throttle.charge((alice,)).allowed
    time.sleep(0.6)  # kept: the lockout ends
    assert throttle.charge((alice,)).allowed and throttle.charge((alice,)).locking == (alice,)
    time.sleep(0.6)  # kept: the new window ends too
    assert throttle.purge_stale(utcnow()) == 1
    with store_engine.connect() as conn:
        assert conn.execute(select(login_throttle)).all() == []


def test_concurrent_attempts_never_get_more_than_the_limit(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=4, account=10, address=6)
    with ThreadPoolExecutor(8) as pool:
        on_one_account = list(pool.map(lambda _: throttle.charge(login_keys("alice", "10.0.0.1")), range(24)))
        spread = list(pool.map(lambda n: throttle.charge(login_keys(f"u{n}", "10.0.0.2")), range(24)))
        everywhere = list(pool.map(lambda n: throttle.charge(login_keys("bob", f"10.1.0.{n}")), range(24)))
    assert sum(c.allowed for c in on_one_account) == 4
    assert sum(c.allowed for c in spread) == 6
    assert sum(c.allowed for c in everywhere) == 10


def test_concurrent_successes_from_one_address_all_pass(store_engine: Engine) -> None:
    throttle = _throttle(store_engine, guesses=3, account=3, address=40)

    def login(number: int) -> Charge:
        charge = throttle.charge(login_keys(f"user{number}", "10.0.0.1"))
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
