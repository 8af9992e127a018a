"""Which Host a server of ours answers (docs/architecture.md#host-names): this machine's names, the
address it is bound to, with a wildcard bind any IP address, and the names it is given."""

import pytest

from agent_orchestrator.hosts import HostPolicy, host_allowed, host_name


@pytest.mark.parametrize(
    ("header", "name"),
    [
        ("localhost:8000", "localhost"),
        ("LOCALHOST.", "localhost"),
        ("[::1]:8000", "::1"),
        ("::1", "::1"),
        ("App.Example.com:443", "app.example.com"),
        ("", ""),
    ],
)
def test_the_name_of_a_host_header(header: str, name: str) -> None:
    assert host_name(header) == name


@pytest.mark.parametrize(
    ("header", "bind", "names", "allowed"),
    [
        ("localhost:8000", "127.0.0.1", (), True),
        ("127.0.0.1:8000", "127.0.0.1", (), True),
        ("127.5.6.7", "127.0.0.1", (), True),
        ("[::1]:8000", "127.0.0.1", (), True),
        ("evil.example", "127.0.0.1", (), False),  # a rebinding page's own name
        ("evil.example:8000", "127.0.0.1", (), False),
        ("", "127.0.0.1", (), False),
        ("10.1.2.3:8000", "127.0.0.1", (), False),
        ("agent.example.com", "127.0.0.1", ("agent.example.com",), True),  # behind a proxy
        ("Agent.Example.com.:443", "127.0.0.1", ("agent.example.com",), True),
        ("other.example.com", "127.0.0.1", ("agent.example.com",), False),
        ("10.1.2.3:8000", "0.0.0.0", (), True),  # a wildcard bind: other machines use its addresses
        ("[2001:db8::5]:8000", "::", (), True),
        ("agent.lan:8000", "0.0.0.0", (), False),  # but a name must be given
        ("agent.lan:8000", "0.0.0.0", ("agent.lan",), True),
        ("agent.lan:8000", "agent.lan", (), True),  # the name it is bound to
        ("anything.example", "127.0.0.1", ("*",), True),
    ],
)
def test_a_host_is_answered_only_when_it_names_this_server(
    header: str, bind: str, names: tuple[str, ...], allowed: bool
) -> None:
    assert HostPolicy(bind, names).allows(header) is allowed
    if not names:
        assert host_allowed(header, bind) is allowed
