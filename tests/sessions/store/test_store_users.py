"""Accounts and logins: argon2 passwords, no user enumeration, hashed login tokens, the demo user."""

from __future__ import annotations

import time

import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine, select

from agent_orchestrator.errors import AlreadyExistsError, InvalidInputError, NotFoundError
from agent_orchestrator.sessions.store import UserStore
from agent_orchestrator.sessions.store.schema import logins, users
from agent_orchestrator.sessions.store.users import hash_token


class CountingHasher(PasswordHasher):
    """Counts verifications, to show unknown names cost as much as wrong passwords."""

    verifications = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> bool:
        self.verifications += 1
        return super().verify(hash, password)


def test_create_and_get(user_store: UserStore) -> None:
    user = user_store.create("Alice.B-2_x", "long enough")
    assert user_store.get(user.id) == user
    assert user_store.get_by_username("alice.b-2_X") == user
    assert user_store.get(user.id + 1000) is None


def test_the_first_account_is_the_admin_and_others_are_analysts_unless_asked(user_store: UserStore) -> None:
    first = user_store.create("alice", "password-1")
    second = user_store.create("bob", "password-2")
    third = user_store.create("carol", "password-3", admin=True)
    assert [(u.role, u.is_admin) for u in (first, second, third)] == [
        ("admin", True),
        ("analyst", False),
        ("admin", True),
    ]
    assert [user_store.get(u.id) for u in (first, second, third)] == [first, second, third]
    ticket = user_store.open_login(second.id, 60)
    assert user_store.login_for_token(ticket.token) == (second, ticket.csrf_token)


def test_usernames_are_unique_whatever_the_letter_case(user_store: UserStore) -> None:
    user_store.create("alice", "password-1")
    for name in ["alice", "ALICE", "Alice"]:
        with pytest.raises(AlreadyExistsError):
            user_store.create(name, "password-2")


@pytest.mark.parametrize("name", ["al", "x" * 41, "alice smith", "alice@example.com", "älice", "", "a/b"])
def test_bad_usernames_are_refused(user_store: UserStore, name: str) -> None:
    with pytest.raises(InvalidInputError, match="Usernames"):
        user_store.create(name, "password-1")


def test_short_passwords_are_refused(user_store: UserStore) -> None:
    with pytest.raises(InvalidInputError, match="Passwords"):
        user_store.create("alice", "1234567")
    assert user_store.create("alice", "12345678").username == "alice"


def test_authenticate_right_wrong_and_unknown(store_engine: Engine, fast_hasher: PasswordHasher) -> None:
    hasher = CountingHasher(time_cost=1, memory_cost=1024, parallelism=1)
    store = UserStore(store_engine, hasher=hasher)
    alice = store.create("alice", "correct horse")
    assert store.authenticate("alice", "correct horse") == alice
    assert store.authenticate("ALICE", "correct horse") == alice
    before = hasher.verifications
    assert store.authenticate("alice", "wrong horse") is None
    assert store.authenticate("nobody", "correct horse") is None
    assert store.authenticate("not a valid name!", "correct horse") is None
    # One full argon2 verification each: an unknown name is as slow as a wrong password.
    assert hasher.verifications - before == 3
    with store_engine.connect() as conn:
        stored = conn.execute(select(users.c.password_hash)).scalar_one()
    assert stored.startswith("$argon2id$") and "correct horse" not in stored


def test_a_hash_with_old_parameters_is_upgraded_at_login(
    store_engine: Engine, fast_hasher: PasswordHasher
) -> None:
    UserStore(store_engine, hasher=fast_hasher).create("alice", "correct horse")
    stronger = PasswordHasher(time_cost=2, memory_cost=2048, parallelism=1)
    store = UserStore(store_engine, hasher=stronger)
    assert store.authenticate("alice", "correct horse") is not None
    with store_engine.connect() as conn:
        upgraded = conn.execute(select(users.c.password_hash)).scalar_one()
    assert not stronger.check_needs_rehash(upgraded)
    assert store.authenticate("alice", "correct horse") is not None
    assert UserStore(store_engine, hasher=fast_hasher).authenticate("alice", "correct horse") is not None


def test_logins_store_only_a_hash_of_the_token(user_store: UserStore, store_engine: Engine) -> None:
    alice = user_store.create("alice", "correct horse")
    ticket = user_store.open_login(alice.id, ttl_seconds=60)
    assert len(ticket.token) >= 43 and ticket.token not in repr(ticket)
    assert user_store.login_for_token(ticket.token) == (alice, ticket.csrf_token)
    with store_engine.connect() as conn:
        rows = [tuple(row) for row in conn.execute(select(logins))]
    assert len(rows) == 1 and rows[0][0] == hash_token(ticket.token)
    assert all(ticket.token not in str(value) for value in rows[0])
    second = user_store.open_login(alice.id, ttl_seconds=60)
    assert second.token != ticket.token and second.csrf_token != ticket.csrf_token


def test_logins_expire_and_close(user_store: UserStore) -> None:
    alice = user_store.create("alice", "correct horse")
    short = user_store.open_login(alice.id, ttl_seconds=1.0)
    kept = user_store.open_login(alice.id, ttl_seconds=60)
    assert user_store.login_for_token(short.token) is not None
    time.sleep(1.1)  # kept: the short login expires
    assert user_store.login_for_token(short.token) is None
    assert user_store.purge_expired_logins() == 1
    assert user_store.close_login(kept.token) is True
    assert user_store.login_for_token(kept.token) is None
    assert user_store.close_login(kept.token) is False
    assert user_store.login_for_token("never-issued") is None
    with pytest.raises(NotFoundError):
        user_store.open_login(alice.id + 1000, ttl_seconds=60)


def test_the_demo_user_is_created_once(user_store: UserStore) -> None:
    user, password = user_store.ensure_demo_user()
    assert user.username == "demo" and password is not None and len(password) >= 12
    assert user_store.authenticate("demo", password) == user
    again, no_password = user_store.ensure_demo_user()
    assert again == user and no_password is None


def test_a_disabled_demo_user_cannot_log_in_until_it_gets_a_new_password(user_store: UserStore) -> None:
    user, password = user_store.ensure_demo_user()
    assert password is not None
    ticket = user_store.open_login(user.id, ttl_seconds=60)
    assert user_store.disable_demo_user() is True and user_store.disable_demo_user() is False
    assert user_store.authenticate("demo", password) is None
    assert user_store.login_for_token(ticket.token) is None  # its logins ended too
    again, renewed = user_store.ensure_demo_user()
    assert again == user and renewed is not None and renewed != password
    assert user_store.authenticate("demo", renewed) == user
