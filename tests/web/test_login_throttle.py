"""Login throttling as a client sees it: the same answers for a real and an unknown account, 429 with
Retry-After once locked (even for the right password), and a success that resets the account."""

from collections.abc import Callable

import httpx
import pytest

LIMIT = 3
PASSWORD = "correct horse battery"  # the conftest's users'


@pytest.fixture
def app_url(start_app: Callable) -> str:
    return start_app(login_max_failures=LIMIT, login_lockout=60).url


def _login(url: str, username: str, password: str, *, source: str = "127.0.0.1") -> httpx.Response:
    """One login attempt from the loopback address ``source`` (a second client address)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source)) as client:
        return client.post(f"{url}/api/auth/login", json={"username": username, "password": password})


@pytest.mark.parametrize("username", ["alice", "nobody"])
def test_a_real_and_an_unknown_account_are_throttled_alike(app_url: str, username: str) -> None:
    answers = [_login(app_url, username, "wrong-password") for _ in range(LIMIT + 1)]
    assert [r.status_code for r in answers] == [401] * LIMIT + [429]
    assert {r.json()["detail"] for r in answers[:LIMIT]} == {"Wrong username or password."}
    assert 55 <= int(answers[-1].headers["Retry-After"]) <= 60
    assert _login(app_url, "alice", PASSWORD).status_code == 429  # locked: not even the right password


def test_a_successful_login_resets_the_account(app_url: str) -> None:
    for _ in range(LIMIT - 1):
        assert _login(app_url, "alice", "wrong-password").status_code == 401
    assert _login(app_url, "alice", PASSWORD).status_code == 200
    # The account starts afresh (seen from another address: otherwise it would be locked by now)...
    again = [_login(app_url, "alice", "wrong-password", source="127.0.0.2").status_code for _ in range(LIMIT)]
    assert again == [401] * LIMIT
    # ...while this address got back only the successful attempt: one more failure locks it.
    assert [_login(app_url, "bob", "wrong-password").status_code for _ in range(2)] == [401, 429]
