"""Login throttling as a client sees it: the same answers for a real and an unknown account, 429 with
Retry-After once locked (even for the right password), a guesser locked out but not the owner elsewhere,
a success that starts the guesses afresh and gives the address its attempt back, and many right
passwords from one address at once all let in."""

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
from sqlalchemy import select

from agent_orchestrator.sessions.store import UserStore, address_key, make_engine
from agent_orchestrator.sessions.store.schema import login_throttle

LIMIT, ACCOUNT_LIMIT, ADDRESS_LIMIT = 3, 5, 6
PASSWORD = "correct horse battery"  # the conftest's users'


@pytest.fixture
def app_url(start_app: Callable) -> str:
    return start_app(
        login_max_failures=LIMIT,
        login_max_account_failures=ACCOUNT_LIMIT,
        login_max_address_failures=ADDRESS_LIMIT,
        login_lockout=60,
    ).url


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


def test_wrong_passwords_from_elsewhere_do_not_lock_the_owner_out(app_url: str) -> None:
    """Anyone knowing a name could otherwise keep its owner out, a few guesses per lockout."""
    guesses = [_login(app_url, "alice", "wrong-password", source="127.0.0.2") for _ in range(LIMIT + 1)]
    assert [r.status_code for r in guesses] == [401] * LIMIT + [429]
    assert _login(app_url, "alice", PASSWORD, source="127.0.0.2").status_code == 429  # the guesser's
    assert _login(app_url, "alice", PASSWORD).status_code == 200  # the owner, from their own address
    # Guesses from several addresses meet the account's own ceiling (then nobody gets in).
    more = [_login(app_url, "alice", "wrong-password", source="127.0.0.3") for _ in range(LIMIT)]
    assert [r.status_code for r in more] == [401] * (ACCOUNT_LIMIT - LIMIT) + [429]
    assert _login(app_url, "alice", PASSWORD, source="127.0.0.4").status_code == 429


def test_a_successful_login_starts_its_guesses_afresh_but_not_the_address(app_url: str) -> None:
    for _ in range(LIMIT - 1):
        assert _login(app_url, "alice", "wrong-password").status_code == 401
    assert _login(app_url, "alice", PASSWORD).status_code == 200
    # The account from this address starts afresh (otherwise the next guess would lock it)...
    again = [_login(app_url, "alice", "wrong-password").status_code for _ in range(LIMIT)]
    assert again == [401] * LIMIT
    # ...while the address keeps its failures (5 of 6): one more guess, at any account, locks it.
    others = [_login(app_url, f"guess{n}", "wrong-password").status_code for n in range(2)]
    assert others == [401, 429]
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
