"""Which ``Host`` a server of ours answers: the names of this machine, and the names it is given.

A loopback port is open to every web page the user has open: through DNS rebinding a page's own
name is made to resolve to 127.0.0.1 (or to a server's LAN address), and the browser then lets the
page call the server as if it were the page's own origin, cookies aside. What such a request cannot
change is its ``Host``: the attacker's name. So a server answers only a Host that names it: a
loopback name or address, the address it is bound to, with a wildcard bind any IP address (which
is what other machines use, and a rebinding page cannot: it needs a name), and the names it is
configured with (a public name behind a proxy). Anything else is ``421 Misdirected Request``
(docs/architecture.md#host-names).

No room's import: the web app's guard and the embedded model server's access check take it from here.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

LOOPBACK_NAMES = frozenset({"localhost"})
WILDCARD_BINDS = frozenset({"0.0.0.0", "::", ""})
ANY_HOST = "*"
"""An entry of the configured names that lets any Host through (a proxy in front checks it)."""


def host_name(header: str) -> str:
    """The name in a ``Host`` header: without the port or an IPv6 literal's brackets, lower case,
    without a trailing dot."""
    header = header.strip()
    if header.startswith("["):
        name = header[1:].partition("]")[0]
    else:
        name = header.rpartition(":")[0] if header.count(":") == 1 else header
    return name.lower().rstrip(".")


def _address(name: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return None


def is_wildcard(bind_host: str) -> bool:
    """Whether ``bind_host`` listens on every address (``0.0.0.0``, ``::``)."""
    return bind_host.strip("[]").lower() in WILDCARD_BINDS


class HostPolicy:
    """The Host names a server bound to ``bind_host`` answers, plus ``names`` (exact names, case
    and a trailing dot ignored; ``*`` for any)."""

    def __init__(self, bind_host: str, names: Iterable[str] = ()) -> None:
        self.bind = bind_host.strip("[]").lower().rstrip(".")
        self.names = frozenset(host_name(name) for name in names if name.strip())
        self.any = ANY_HOST in self.names

    def allows(self, header: str) -> bool:
        if self.any:
            return True
        name = host_name(header)
        address = _address(name)
        if name in LOOPBACK_NAMES or (address is not None and address.is_loopback):
            return True
        if name and (name == self.bind or name in self.names):
            return True
        return self.bind in WILDCARD_BINDS and address is not None


def host_allowed(header: str, bind_host: str) -> bool:
    """Whether a request naming ``header`` as its Host is for a server bound to ``bind_host`` (no
    configured names)."""
    return HostPolicy(bind_host).allows(header)
