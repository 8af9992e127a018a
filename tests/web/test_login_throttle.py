"""Login throttling as a client sees it: the same answers for a real and an unknown account, 429 with
Retry-After once locked (even for the right password), a success that resets the account and gives the
address its attempt back, and many right passwords from one address at once all let in."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import select

from agent_orchestrator.sessions.store import UserStore, address_key, make_engine
from agent_orchestrator.sessions.store.schema import login_throttle

LIMIT, ADDRESS_LIMIT = 3, 6
PASSWORD = "correct horse battery"  # the conftest's users'


@pytest.fixture
def app_url(start_app: Callable) -> str:
    return start_app(login_max_failures=LIMIT, login_max_address_failures=ADDRESS_LIMIT, login_lockout=60).url


def _login(url: str, username: str, password: str, *, source: str = "127.0.0.1") -> httpx.Response:
    """One login attempt from the loopback address ``source`` (a second client address)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=60) as client:
        return client.post(f"{url}/api/auth/login", json={"username": username, "password": password})


@pytest.mark.parametrize("username", ["alice", "nobody"])
def test_a_real_and_an_unknown_account_are_throttled_alike(app_url: str, username: str) -> None:
    answers = [_login(app_url, username, "wrong-password") for _ in range(LIMIT + 1)]
    assert [r.status_code for r in answers] == [401] * LIMIT + [429]
    assert {r.json()["detail"] for r in answers[:LIMIT]} == {"Wrong username or password."}
    assert 55 <= int(answers[-1].headers["Retry-After"]) <= 60
    assert _login(app_url, username, PASSWORD).status_code == 429  # locked: not even the right password
    assert _login(app_url, "bob", PASSWORD).status_code == 200  # the address is not


def test_a_successful_login_resets_the_account_but_not_the_address(app_url: str) -> None:
    for _ in range(LIMIT - 1):
        assert _login(app_url, "alice", "wrong-password").status_code == 401
    assert _login(app_url, "alice", PASSWORD).status_code == 200
    # The account starts afresh (seen from another address: otherwise it would be locked by now)...
    again = [_login(app_url, "alice", "wrong-password", source="127.0.0.2").status_code for _ in range(LIMIT)]
    assert again == [401] * LIMIT
    # ...while this address keeps its failures: one guess at each of a few more accounts locks it.
    others = [_login(app_url, f"guess{n}", "wrong-password").status_code for n in range(ADDRESS_LIMIT - 1)]
    assert others == [401] * (ADDRESS_LIMIT - LIMIT + 1) + [429] * (LIMIT - 2)
    assert _login(app_url, "bob", PASSWORD).status_code == 429
    assert _login(app_url, "bob", PASSWORD, source="127.0.0.2").status_code == 200


def test_many_right_passwords_from_one_address_at_once_all_get_in(start_app: Callable) -> None:
    """An office behind one NAT at nine o'clock: 20 users log in together (the default limits)."""
    live = start_app()
    names = [f"colleague{n:02d}" for n in range(20)]
    engine = make_engine(live.web.database_url)
    try:
        users = UserStore(engine)
        for name in names:
            users.create(name, PASSWORD)
        with ThreadPoolExecutor(20) as pool:
            answers = list(pool.map(lambda name: _login(live.url, name, PASSWORD), names))
        assert [r.status_code for r in answers] == [200] * 20
        # Each success gave its charge back: the address's whole allowance is left for mistakes.
        with engine.connect() as conn:
            failures = select(login_throttle.c.failures).where(
                login_throttle.c.key == address_key("127.0.0.1")
            )
            assert conn.execute(failures).scalar_one() == 0
    finally:
        engine.dispose()
