"""User accounts and login sessions for the web app.

Why it is built this way:

* **argon2id** (argon2-cffi, RFC 9106 defaults) for passwords; :meth:`UserStore.authenticate` rehashes
  a stored hash whose parameters are older than the hasher's, so raising the cost upgrades users as they
  log in.
* **No user enumeration by timing**: an unknown username still pays one full argon2 verification (of a
  dummy hash made with the same parameters), so "no such user" and "wrong password" take the same time
  and give the same ``None``.
* **Login tokens are stored hashed** (sha256; the token is 256 random bits, so a fast hash suffices): a
  leaked database or backup does not hand out live sessions. Only the user's cookie holds the token.
  Each login also gets its own CSRF token, returned with the user on every lookup.
* **Roles** (docs/architecture.md#roles): ``analyst`` or ``admin``. The first account created is
  the admin, so a new deployment always has someone who can manage its data; ``create`` decides
  "first" under a lock (PostgreSQL: an advisory lock; SQLite: the write lock ``BEGIN IMMEDIATE``
  takes), so two servers creating accounts at once cannot both make one.
* Usernames are unique case-insensitively (a unique index on ``lower(username)``) and limited to
  ``[A-Za-z0-9._-]``, so ``lower`` means the same on every backend.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Literal

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Engine, Row, bindparam, delete, exc, func, insert, select, update

from agent_orchestrator.errors import AlreadyExistsError, InvalidInputError, NotFoundError
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import UTCDateTime, logins, users, utcnow

USERNAME_PATTERN = re.compile(r"[A-Za-z0-9._-]{3,40}\Z")
PASSWORD_MIN = 8
PASSWORD_MAX = 1_024
DEMO_USERNAME = "demo"
Role = Literal["admin", "analyst"]
# The advisory lock under which an account's role is decided ("US3R"), on PostgreSQL.
_PG_FIRST_ACCOUNT_LOCK = 0x05E3
# A disabled account's stored "hash": not an argon2 hash, so every password check fails.
DISABLED_HASH = "!disabled"
_USER_COLUMNS = (users.c.id, users.c.username, users.c.created_at, users.c.role)
# Built once: every request of a logged-in user runs it (a statement built per call costs more Python
# than the query).
_LOGIN_FOR_TOKEN = (
    select(users.c.id, users.c.username, users.c.created_at, users.c.role, logins.c.csrf_token)
    .join(users, users.c.id == logins.c.user_id)
    .where(
        logins.c.token_hash == bindparam("token_hash"),
        logins.c.expires_at > bindparam("now", type_=UTCDateTime()),
    )
)


@dataclass(frozen=True, slots=True)
class User:
    id: int
    username: str
    created_at: datetime
    role: Role = "analyst"

    @property
    def is_admin(self) -> bool:
        return self.role == "admin"


@dataclass(frozen=True, slots=True)
class PasswordCheck:
    """A password check's outcome: ``account`` is the account the name names (``None``: there is
    none), whether or not the password was ``right``."""

    account: User | None
    right: bool

    @property
    def user(self) -> User | None:
        """The account, if the password was right."""
        return self.account if self.right else None


@dataclass(frozen=True, slots=True)
class LoginTicket:
    """What a successful login hands to the browser: the cookie token and the CSRF token."""

    token: str = field(repr=False)
    csrf_token: str = field(repr=False)
    expires_at: datetime


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def validate_username(username: str) -> str:
    if not USERNAME_PATTERN.match(username):
        raise InvalidInputError("Usernames have 3 to 40 characters: letters, digits, '.', '_' and '-'.")
    return username


def validate_password(password: str) -> str:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidInputError(f"Passwords have {PASSWORD_MIN} to {PASSWORD_MAX} characters.")
    return password


class UserStore:
    """Accounts and logins. Pass a cheaper ``hasher`` only where speed beats strength (tests)."""

    def __init__(self, engine: Engine, *, hasher: PasswordHasher | None = None) -> None:
        self._engine = engine
        self._hasher = hasher or PasswordHasher()
        self._dummy_hash: str | None = None

    def create(self, username: str, password: str, *, admin: bool = False) -> User:
        """A new account, an admin if ``admin`` or if it is the first; :class:`AlreadyExistsError` if
        the name is taken in any letter case, :class:`InvalidInputError` for a bad name or password."""
        username = validate_username(username)
        password_hash = self._hasher.hash(validate_password(password))
        now = utcnow()
        try:
            with write_transaction(self._engine) as conn:
                if conn.dialect.name == "postgresql":
                    conn.execute(select(func.pg_advisory_xact_lock(_PG_FIRST_ACCOUNT_LOCK)))
                first = conn.execute(select(users.c.id).limit(1)).first() is None
                role: Role = "admin" if admin or first else "analyst"
                user_id = conn.execute(
                    insert(users)
                    .values(username=username, password_hash=password_hash, created_at=now, role=role)
                    .returning(users.c.id)
                ).scalar_one()
        except exc.IntegrityError as error:
            taken = f"The username {username} is taken (usernames ignore letter case)."
            raise AlreadyExistsError(taken) from error
        return User(int(user_id), username, now, role)

    def get(self, user_id: int) -> User | None:
        query = select(*_USER_COLUMNS).where(users.c.id == user_id)
        with read_connection(self._engine) as conn:
            row = conn.execute(query).first()
        return _user(row) if row else None

    def get_by_username(self, username: str) -> User | None:
        query = select(*_USER_COLUMNS).where(func.lower(users.c.username) == username.lower())
        with read_connection(self._engine) as conn:
            row = conn.execute(query).first()
        return _user(row) if row else None

    def authenticate(self, username: str, password: str) -> User | None:
        """The user if the password is right; ``None`` otherwise, in the same time for unknown names."""
        return self.check_password(username, password).user

    def check_password(self, username: str, password: str) -> PasswordCheck:
        """Whether ``password`` is the named account's, and which account the name names (for the
        audit trail of a failure), in the same time for unknown names."""
        row = None
        if USERNAME_PATTERN.match(username):
            query = select(users).where(func.lower(users.c.username) == username.lower())
            with read_connection(self._engine) as conn:
                row = conn.execute(query).first()
        if row is None:
            self._verify(self._dummy(), password)  # same work as a real check; result ignored
            return PasswordCheck(None, right=False)
        account = _user(row)
        if not self._verify(row.password_hash, password):
            return PasswordCheck(account, right=False)
        if self._hasher.check_needs_rehash(row.password_hash):
            with write_transaction(self._engine) as conn:
                conn.execute(
                    update(users)
                    .where(users.c.id == row.id, users.c.password_hash == row.password_hash)
                    .values(password_hash=self._hasher.hash(password))
                )
        return PasswordCheck(account, right=True)

    def open_login(self, user_id: int, ttl_seconds: float) -> LoginTicket:
        """Start a login session; only the sha256 of the returned token is stored."""
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive.")
        token = secrets.token_urlsafe(32)
        ticket = LoginTicket(token, secrets.token_urlsafe(32), utcnow() + timedelta(seconds=ttl_seconds))
        try:
            with write_transaction(self._engine) as conn:
                conn.execute(
                    insert(logins).values(
                        token_hash=hash_token(token),
                        user_id=user_id,
                        csrf_token=ticket.csrf_token,
                        created_at=utcnow(),
                        expires_at=ticket.expires_at,
                    )
                )
        except exc.IntegrityError as error:  # the foreign key: no such user
            raise NotFoundError(f"No user has the id {user_id}.") from error
        return ticket

    def login_for_token(self, token: str) -> tuple[User, str] | None:
        """The logged-in user and the login's CSRF token; ``None`` if unknown, closed or expired."""
        params = {"token_hash": hash_token(token), "now": utcnow()}
        with read_connection(self._engine) as conn:
            row = conn.execute(_LOGIN_FOR_TOKEN, params).first()
        return (_user(row), row.csrf_token) if row else None

    def close_login(self, token: str) -> bool:
        """Log out: forget the login. ``False`` if there was none."""
        with write_transaction(self._engine) as conn:
            result = conn.execute(delete(logins).where(logins.c.token_hash == hash_token(token)))
        return result.rowcount == 1

    def purge_expired_logins(self, now: datetime | None = None) -> int:
        """Delete the logins past their expiry (the web app does, at start and hourly); how many went."""
        with write_transaction(self._engine) as conn:
            result = conn.execute(delete(logins).where(logins.c.expires_at <= (now or utcnow())))
        return result.rowcount

    def ensure_demo_user(self) -> tuple[User, str | None]:
        """The ``demo`` user, created with a random password on first call, or given a new one if it
        was disabled (:meth:`disable_demo_user`); the password is returned only by the call that set
        it (print it once; it is not stored anywhere readable)."""
        query = select(users).where(func.lower(users.c.username) == DEMO_USERNAME)
        with read_connection(self._engine) as conn:
            row = conn.execute(query).first()
        password = secrets.token_urlsafe(12)
        if row is not None:
            existing = _user(row)
            if row.password_hash != DISABLED_HASH:
                return existing, None
            with write_transaction(self._engine) as conn:
                renewed = conn.execute(
                    update(users)
                    .where(users.c.id == row.id, users.c.password_hash == DISABLED_HASH)
                    .values(password_hash=self._hasher.hash(password))
                ).rowcount
            return existing, password if renewed else None  # not renewed: another server did
        try:
            return self.create(DEMO_USERNAME, password), password
        except AlreadyExistsError:  # another server created it in between
            user = self.get_by_username(DEMO_USERNAME)
            assert user is not None
            return user, None

    def disable_demo_user(self) -> bool:
        """Make the ``demo`` user's password unusable and end its logins (its chats stay); whether
        it was usable until now."""
        with write_transaction(self._engine) as conn:
            demo = conn.execute(
                update(users)
                .where(func.lower(users.c.username) == DEMO_USERNAME, users.c.password_hash != DISABLED_HASH)
                .values(password_hash=DISABLED_HASH)
                .returning(users.c.id)
            ).scalar_one_or_none()
            if demo is not None:
                conn.execute(delete(logins).where(logins.c.user_id == demo))
        return demo is not None

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash(secrets.token_urlsafe(16))
        return self._dummy_hash

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self._hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False


def _user(row: Row[*tuple[Any, ...]]) -> User:
    """A ``users`` row (or a row with its columns) as a :class:`User`."""
    return User(row.id, row.username, row.created_at, row.role)
