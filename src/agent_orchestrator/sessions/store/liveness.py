"""Is a pooled PostgreSQL connection still alive? Asked at every checkout, answered without a round trip.

A database restart, or a terminated backend, leaves dead connections in a pool. Pinging each one at
checkout finds them, at the price of a round trip per checkout: on a busy server's turn that was a
sixth of its statements (docs/architecture.md#performance-budgets). But a server that ends a
connection says so: it sends an error (``terminating connection``) and closes the socket. An idle
connection is otherwise sent nothing at all, so its socket being readable is the sign, and reading
it takes one ``poll`` with no wait. Only then is the connection pinged, and dropped if the ping fails.

What this does not see, a network path that died silently, a ping would only see after a TCP
timeout, so it is no worse: the query fails and the pool replaces the connection.
"""

import select
from typing import Protocol


class PooledConnection(Protocol):
    """What both pools' connections offer: psycopg's, sync (SQLAlchemy's pool) and async alike."""

    @property
    def closed(self) -> bool: ...

    def fileno(self) -> int: ...


def surely_alive(conn: PooledConnection) -> bool:
    """Whether ``conn`` needs no ping before it is handed out: open, and sent nothing while idle."""
    return not conn.closed and quiet(conn.fileno())


def quiet(fileno: int) -> bool:
    """Whether the idle connection on socket ``fileno`` has been sent nothing (see the module)."""
    poller = select.poll()
    poller.register(fileno, select.POLLIN | select.POLLPRI)
    return not poller.poll(0)
