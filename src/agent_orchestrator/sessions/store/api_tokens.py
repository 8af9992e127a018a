"""Personal API tokens: what a script or the terminal client sends instead of a password
(docs/architecture.md#api-tokens).

Why it is built this way:

* **A recognisable, self-checking token.** ``aopat_`` + 30 random base62 characters (178 bits) + 6
  characters of the random part's CRC32, as GitHub's tokens are made: a secret scanner finds a leaked
  one by its shape alone, and a mistyped or truncated token is refused by :func:`well_formed` without
  a database look-up.
* **Stored only as a hash** (sha256: the token is random, so a fast hash suffices), with its first
  characters as a ``hint`` to tell tokens apart in a list. The token is shown once, when created.
* **Revoking deletes the row**: every server looks the token up on every request, so a token revoked
  on one server is refused by all from the next request on; there is no cache to go stale.
* **Scopes**: ``read`` (list, read, search and export chats), ``chat`` (also create, send, fork,
  delete: it implies ``read``) and ``data`` (an admin's Data page routes).
"""

from __future__ import annotations

import secrets
import zlib
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, get_args

from sqlalchemy import Engine, Row, bindparam, delete, exc, insert, select, update

from agent_orchestrator.errors import AlreadyExistsError, InvalidInputError
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import UTCDateTime, api_tokens, users, utcnow
from agent_orchestrator.sessions.store.share_links import token_hash
from agent_orchestrator.sessions.store.users import User

Scope = Literal["read", "chat", "data"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
PREFIX = "aopat_"
_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_RANDOM_CHARS = 30
_CHECK_CHARS = 6
TOKEN_CHARS = len(PREFIX) + _RANDOM_CHARS + _CHECK_CHARS
DEFAULT_DAYS = 90
MAX_DAYS = 365
NAME_MAX = 60
USE_RECORDED_EVERY = timedelta(minutes=1)
"""A token's last use is written at most this often (or when its address changes): a script calling
every second must not turn each read into a write."""


def _base62(number: int, width: int) -> str:
    digits = []
    for _ in range(width):
        number, digit = divmod(number, 62)
        digits.append(_ALPHABET[digit])
    return "".join(reversed(digits))


def _checksum(random_part: str) -> str:
    return _base62(zlib.crc32(random_part.encode()), _CHECK_CHARS)


def new_token() -> str:
    random_part = "".join(secrets.choice(_ALPHABET) for _ in range(_RANDOM_CHARS))
    return PREFIX + random_part + _checksum(random_part)


def well_formed(token: str) -> bool:
    """Whether ``token`` has a token's shape and checksum: a typo fails here, before any look-up."""
    if len(token) != TOKEN_CHARS or not token.startswith(PREFIX) or not token.isascii():
        return False
    body = token[len(PREFIX) :]
    if any(char not in _ALPHABET for char in body):
        return False
    return secrets.compare_digest(_checksum(body[:_RANDOM_CHARS]), body[_RANDOM_CHARS:])


def normalise_scopes(scopes: list[str] | tuple[str, ...]) -> tuple[Scope, ...]:
    """The scopes in their fixed order, ``chat`` bringing ``read``; at least one, each known."""
    unknown = sorted(set(scopes) - set(SCOPES))
    if unknown or not scopes:
        raise InvalidInputError(f"A token's scopes are one or more of {', '.join(SCOPES)}.")
    wanted = set(scopes) | ({"read"} if "chat" in scopes else set())
    return tuple(scope for scope in SCOPES if scope in wanted)


@dataclass(frozen=True, slots=True)
class ApiToken:
    """One token as its owner sees it (never the token itself)."""

    id: str
    user_id: int
    name: str
    scopes: tuple[Scope, ...]
    hint: str
    created_at: datetime
    expires_at: datetime
    last_used_at: datetime | None
    last_used_addr: str | None

    def allows(self, scope: Scope) -> bool:
        return scope in self.scopes


_COLUMNS = (
    api_tokens.c.id,
    api_tokens.c.user_id,
    api_tokens.c.name,
    api_tokens.c.scopes,
    api_tokens.c.hint,
    api_tokens.c.created_at,
    api_tokens.c.expires_at,
    api_tokens.c.last_used_at,
    api_tokens.c.last_used_addr,
)
# Built once: every bearer request runs it.
_FIND = (
    select(*_COLUMNS, users.c.username, users.c.created_at.label("user_created_at"), users.c.role)
    .join(users, users.c.id == api_tokens.c.user_id)
    .where(
        api_tokens.c.token_hash == bindparam("token_hash"),
        api_tokens.c.expires_at > bindparam("now", type_=UTCDateTime()),
    )
)


class ApiTokens:
    """Every user's API tokens, on the catalog's database."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def create(
        self, user_id: int, name: str, scopes: tuple[Scope, ...], *, days: int
    ) -> tuple[ApiToken, str]:
        """A new token and its secret (shown once); :class:`AlreadyExistsError` if the user has a
        token of that name."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= NAME_MAX:
            raise InvalidInputError(f"A token's name has 1 to {NAME_MAX} characters.")
        if not 1 <= days <= MAX_DAYS:
            raise InvalidInputError(f"A token expires in 1 to {MAX_DAYS} days.")
        secret = new_token()
        now = utcnow()
        token = ApiToken(
            id=secrets.token_hex(8),
            user_id=user_id,
            name=name,
            scopes=scopes,
            hint=secret[: len(PREFIX) + 4],
            created_at=now,
            expires_at=now + timedelta(days=days),
            last_used_at=None,
            last_used_addr=None,
        )
        row = {
            "id": token.id,
            "user_id": user_id,
            "name": name,
            "scopes": " ".join(scopes),
            "token_hash": token_hash(secret),
            "hint": token.hint,
            "created_at": now,
            "expires_at": token.expires_at,
        }
        try:
            with write_transaction(self._engine) as conn:
                conn.execute(insert(api_tokens).values(**row))
        except exc.IntegrityError as error:
            raise AlreadyExistsError(f"You already have a token named {name!r}.") from error
        return token, secret

    def of_user(self, user_id: int) -> list[ApiToken]:
        """The user's tokens, newest first (expired ones too, until deleted)."""
        query = (
            select(*_COLUMNS)
            .where(api_tokens.c.user_id == user_id)
            .order_by(api_tokens.c.created_at.desc(), api_tokens.c.id)
        )
        with read_connection(self._engine) as conn:
            return [_token(row) for row in conn.execute(query)]

    def revoke(self, user_id: int, token_id: str) -> ApiToken | None:
        """Delete the user's token; the token it was, or ``None`` if the user has none of that id."""
        with write_transaction(self._engine) as conn:
            row = conn.execute(
                delete(api_tokens)
                .where(api_tokens.c.id == token_id, api_tokens.c.user_id == user_id)
                .returning(*_COLUMNS)
            ).first()
        return _token(row) if row else None

    def find(self, secret: str, now: datetime | None = None) -> tuple[User, ApiToken] | None:
        """The user and live token ``secret`` is; ``None`` for a malformed (no look-up), unknown,
        revoked or expired one alike."""
        if not well_formed(secret):
            return None
        params = {"token_hash": token_hash(secret), "now": now or utcnow()}
        with read_connection(self._engine) as conn:
            row = conn.execute(_FIND, params).first()
        if row is None:
            return None
        return User(row.user_id, row.username, row.user_created_at, row.role), _token(row)

    def record_use(self, token: ApiToken, addr: str, at: datetime) -> bool:
        """Write the token's last use unless it was written less than :data:`USE_RECORDED_EVERY` ago
        from the same address; whether it was written."""
        last = token.last_used_at
        if last is not None and token.last_used_addr == addr and at - last < USE_RECORDED_EVERY:
            return False
        with write_transaction(self._engine) as conn:
            conn.execute(
                update(api_tokens)
                .where(api_tokens.c.id == token.id)
                .values(last_used_at=at, last_used_addr=addr[:64])
            )
        return True


def _token(row: Row[*tuple[Any, ...]]) -> ApiToken:
    scopes = tuple(scope for scope in SCOPES if scope in row.scopes.split())
    return ApiToken(
        id=row.id,
        user_id=row.user_id,
        name=row.name,
        scopes=scopes,
        hint=row.hint,
        created_at=row.created_at,
        expires_at=row.expires_at,
        last_used_at=row.last_used_at,
        last_used_addr=row.last_used_addr,
    )
