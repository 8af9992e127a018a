"""Login throttling shared by every server on the database (docs/architecture.md#login-throttling).

Each login attempt is charged, *before* the password is checked, to three keys (:func:`login_keys`):
the account from this address (the name as typed, lower-cased, whether or not such a user exists,
with the client's address), the account from anywhere, and the client address. A key that has been
charged up to its limit in its window is locked for ``lockout`` seconds: attempts on it are refused
without checking the password. Why this shape:

* **Charge first, refund on success.** Counting only after a failed check would let attempts that run
  at the same time on several servers all pass the "locked?" test before any of them is counted. A
  charge is one row-locked update, so at most ``limit`` passwords are ever checked per key and window,
  whichever servers are hit and however concurrently. A successful login refunds its charge: the
  account's count from that address starts again (the row goes); the account and the address get back
  exactly the attempt they were charged, so a success leaves them as if it had never been tried.
* **Three limits.** A guesser is one person at one address: the account from one address has the small
  limit (``max_failures``), and locking it locks out only that address, not the account's owner
  elsewhere (otherwise anyone knowing a name could keep its owner out with a few guesses per lockout).
  Guesses at one account from many addresses meet its ceiling (``max_account_failures``, much higher).
  An address is shared by everyone behind it (an office's NAT, a proxy), and its charge is held while
  the password is checked, so attempts in flight count against it: its limit
  (``max_address_failures``) is the highest, and only has to stop one address from spraying guesses
  over many accounts.
* **A success clears neither the account nor the address.** Otherwise an attacker with one account of
  their own could reset their address between guesses at other accounts, and an owner's login would
  hand guessers elsewhere a fresh ceiling.
* **No enumeration.** The account keys hold the typed name, so an unknown name is throttled exactly
  like a real one; a refusal happens before any lookup; and an allowed attempt on an unknown name
  still pays a full password hash (``UserStore.authenticate``).
* Time is the database's (:func:`~agent_orchestrator.sessions.store.engine.database_now`), as for
  leases, so servers with skewed clocks agree on when a lockout ends.
"""

from __future__ import annotations

import ipaddress
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Engine, Row, delete, select, update
from sqlalchemy.dialects import postgresql, sqlite

from agent_orchestrator.sessions.store.engine import database_now, write_transaction
from agent_orchestrator.sessions.store.schema import login_throttle, utcnow

_KEY_MAX = 200
_ACCOUNT, _ADDRESS, _ACCOUNT_FROM_ADDRESS = "account:", "address:", "account@address:"
# What a lockout of each kind of key is audited as (``login_locked``'s ``scope``).
_SCOPES = {_ACCOUNT_FROM_ADDRESS: "account_from_address", _ACCOUNT: "account", _ADDRESS: "address"}


def account_key(username: str) -> str:
    return f"{_ACCOUNT}{username.strip().lower()}"[:_KEY_MAX]


def address_key(client_addr: str) -> str:
    return f"{_ADDRESS}{client_network(client_addr)}"[:_KEY_MAX]


def account_from_address_key(username: str, client_addr: str) -> str:
    return f"{_ACCOUNT_FROM_ADDRESS}{client_network(client_addr)} {username.strip().lower()}"[:_KEY_MAX]


def login_keys(username: str, client_addr: str) -> tuple[str, str, str]:
    """The keys a login attempt is charged to: the account from this address, the account, the address."""
    return (
        account_from_address_key(username, client_addr),
        account_key(username),
        address_key(client_addr),
    )


def scope_of(key: str) -> str:
    """What a key's lockout is audited as: ``account_from_address``, ``account`` or ``address``."""
    return next(scope for prefix, scope in _SCOPES.items() if key.startswith(prefix))


def client_network(client_addr: str) -> str:
    """The client an address stands for: an IPv4 address (also written IPv4-mapped), or an IPv6
    address's /64, since one IPv6 host is routinely handed a whole /64 and may use any address in it."""
    try:
        address = ipaddress.ip_address(client_addr)
    except ValueError:
        return client_addr  # not an address (a proxy forwarding "unknown"): kept as it is
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class Charge:
    """The outcome of charging an attempt. ``allowed`` False: refused, retry in ``retry_after`` s.
    ``locking``: the keys this attempt locks if it fails (its failure is their lockout). ``windows``:
    each charged key with the start of the window it was charged in (what a refund gives back)."""

    allowed: bool
    retry_after: int = 0
    locking: tuple[str, ...] = ()
    windows: tuple[tuple[str, datetime], ...] = ()


class LoginThrottle:
    """Charge, refund and purge login attempts; each call is one short transaction."""

    def __init__(
        self,
        engine: Engine,
        *,
        max_failures: int,
        max_account_failures: int,
        max_address_failures: int,
        lockout: float,
    ) -> None:
        if min(max_failures, max_account_failures, max_address_failures) < 1 or lockout <= 0:
            raise ValueError("Login throttling needs limits >= 1 and a positive lockout.")
        self._engine = engine
        self._limits = {
            _ACCOUNT_FROM_ADDRESS: max_failures,
            _ACCOUNT: max_account_failures,
            _ADDRESS: max_address_failures,
        }
        self.lockout = timedelta(seconds=lockout)

    def _limit(self, key: str) -> int:
        """How many attempts ``key`` may be charged per window (by its kind: see :data:`_SCOPES`)."""
        return next(limit for prefix, limit in self._limits.items() if key.startswith(prefix))

    def charge(self, keys: tuple[str, ...]) -> Charge:
        """Count one attempt against every key, or refuse it (counting nothing) if any key is locked."""
        with write_transaction(self._engine) as conn:
            now = database_now(conn)
            rows = {key: self._locked_row(conn, key, now) for key in sorted(keys)}  # one lock order
            # Again, once the rows are ours: waiting for another charge's lock must not count as time
            # that passed before it (a Retry-After longer than the lockout).
            now = database_now(conn)
            locked = [row.locked_until for row in rows.values() if _is_locked(row, now)]
            if locked:
                return Charge(False, retry_after=max(1, math.ceil((max(locked) - now).total_seconds())))
            locking, windows = [], []
            for key, row in rows.items():
                fresh = row.window_started_at + self.lockout <= now or row.locked_until is not None
                failures = 1 if fresh else row.failures + 1
                values: dict[str, object] = {"failures": failures}
                if fresh:
                    values |= {"window_started_at": now, "locked_until": None}
                if failures >= self._limit(key):
                    values["locked_until"] = now + self.lockout
                    locking.append(key)
                conn.execute(update(login_throttle).where(login_throttle.c.key == key).values(**values))
                windows.append((key, now if fresh else row.window_started_at))
        return Charge(True, locking=tuple(locking), windows=tuple(windows))

    def refund(self, charge: Charge) -> None:
        """The attempt ``charge`` allowed has succeeded: the account from that address starts afresh;
        the account and the address get that one attempt back, unless their window has ended since
        (the new count does not hold it)."""
        t = login_throttle
        with write_transaction(self._engine) as conn:
            for key, window in charge.windows:
                if key.startswith(_ACCOUNT_FROM_ADDRESS):
                    conn.execute(delete(t).where(t.c.key == key))
                    continue
                # A count never passes the limit (a locked key is not charged), so one less is below
                # it: a lock filled by attempts in flight ends as they succeed.
                conn.execute(
                    update(t)
                    .where(t.c.key == key, t.c.window_started_at == window, t.c.failures > 0)
                    .values(failures=t.c.failures - 1, locked_until=None)
                )

    def purge_stale(self, now: datetime | None = None) -> int:
        """Drop keys whose window and lockout are both over (the web app does, hourly); how many went."""
        now = now or utcnow()
        t = login_throttle
        with write_transaction(self._engine) as conn:
            result = conn.execute(
                delete(t).where(
                    t.c.window_started_at <= now - self.lockout,
                    (t.c.locked_until.is_(None)) | (t.c.locked_until <= now),
                )
            )
        return result.rowcount

    def _locked_row(self, conn: Connection, key: str, now: datetime) -> Row[Any]:
        """The key's row, created if missing and locked until the transaction ends (on SQLite, the
        ``BEGIN IMMEDIATE`` write lock already serialises every charge)."""
        insert = (postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert)(login_throttle)
        conn.execute(
            insert.values(key=key, failures=0, window_started_at=now).on_conflict_do_nothing(
                index_elements=[login_throttle.c.key]
            )
        )
        query = select(login_throttle).where(login_throttle.c.key == key)
        if conn.dialect.name == "postgresql":
            query = query.with_for_update()
        return conn.execute(query).one()


def _is_locked(row: Row[Any], now: datetime) -> bool:
    return row.locked_until is not None and row.locked_until > now
