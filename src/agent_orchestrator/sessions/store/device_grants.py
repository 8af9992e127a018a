"""Device logins (RFC 8628's device authorization grant), for the terminal client
(docs/architecture.md#api-tokens).

The terminal asks for a grant and gets a long device code (which it keeps) and a short user code
(which its user types into a browser where they are signed in). The browser approves the user code
with the scopes the user chose; the terminal's next poll redeems the device code, once, for the
approval, which becomes a token. Only the device code's sha256 is stored. The user code has eight
letters from an alphabet without vowels or look-alikes (``BCDF-GHJK``): about 2^35 codes, alive for
ten minutes, and approving needs a signed-in user, so guessing one is hopeless.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Engine, delete, exc, insert, select, update

from agent_orchestrator.errors import NotFoundError
from agent_orchestrator.sessions.store.engine import read_connection, write_transaction
from agent_orchestrator.sessions.store.schema import device_grants, utcnow
from agent_orchestrator.sessions.store.share_links import token_hash

GRANT_TTL = timedelta(minutes=10)
USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ"
NO_SUCH_CODE = "No login is waiting for that code: it may have expired. Start again with 'ao login'."


@dataclass(frozen=True, slots=True)
class DeviceGrant:
    device_code: str
    user_code: str
    expires_at: datetime


@dataclass(frozen=True, slots=True)
class Approval:
    """What a redeemed grant was approved for."""

    user_id: int
    scopes: tuple[str, ...]
    client_name: str


def normalise_user_code(code: str) -> str:
    """``bcdf ghjk`` or ``BCDFGHJK`` as ``BCDF-GHJK``: people type codes loosely."""
    letters = "".join(char for char in code.upper() if char.isalpha())
    return f"{letters[:4]}-{letters[4:]}"


class DeviceGrants:
    """Device logins waiting for, or holding, a browser's approval."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def start(self, client_name: str) -> DeviceGrant:
        now = utcnow()
        device_code = secrets.token_urlsafe(32)
        with write_transaction(self._engine) as conn:
            conn.execute(delete(device_grants).where(device_grants.c.expires_at <= now))
            for _ in range(5):  # a clash of user codes is rare; try another
                letters = "".join(secrets.choice(USER_CODE_ALPHABET) for _ in range(8))
                user_code = normalise_user_code(letters)
                try:
                    with conn.begin_nested():
                        conn.execute(
                            insert(device_grants).values(
                                code_hash=token_hash(device_code),
                                user_code=user_code,
                                client_name=client_name[:60],
                                created_at=now,
                                expires_at=now + GRANT_TTL,
                            )
                        )
                except exc.IntegrityError:
                    continue
                return DeviceGrant(device_code, user_code, now + GRANT_TTL)
        raise RuntimeError("Could not find a free user code.")

    def pending(self, user_code: str) -> str | None:
        """The name of the client waiting for ``user_code`` to be approved, or ``None``."""
        query = select(device_grants.c.client_name).where(
            device_grants.c.user_code == normalise_user_code(user_code),
            device_grants.c.expires_at > utcnow(),
            device_grants.c.user_id.is_(None),
        )
        with read_connection(self._engine) as conn:
            return conn.execute(query).scalar_one_or_none()

    def approve(self, user_code: str, user_id: int, scopes: tuple[str, ...]) -> str:
        """Approve a waiting grant for ``user_id``; the client's name. :class:`NotFoundError` if no
        grant waits for that code."""
        with write_transaction(self._engine) as conn:
            name = conn.execute(
                update(device_grants)
                .where(
                    device_grants.c.user_code == normalise_user_code(user_code),
                    device_grants.c.expires_at > utcnow(),
                    device_grants.c.user_id.is_(None),
                )
                .values(user_id=user_id, scopes=" ".join(scopes))
                .returning(device_grants.c.client_name)
            ).scalar_one_or_none()
        if name is None:
            raise NotFoundError(NO_SUCH_CODE)
        return name

    def redeem(self, device_code: str) -> Approval | None:
        """The approval of ``device_code``'s grant, deleting it (a device code is good once);
        ``None`` while it waits. :class:`NotFoundError` if there is no such grant or it expired."""
        now = utcnow()
        hashed = token_hash(device_code)
        with write_transaction(self._engine) as conn:
            row = conn.execute(
                delete(device_grants)
                .where(
                    device_grants.c.code_hash == hashed,
                    device_grants.c.expires_at > now,
                    device_grants.c.user_id.is_not(None),
                )
                .returning(device_grants.c.user_id, device_grants.c.scopes, device_grants.c.client_name)
            ).first()
            if row is not None:
                return Approval(int(row.user_id), tuple(row.scopes.split()), row.client_name)
            waiting = conn.execute(
                select(device_grants.c.code_hash).where(
                    device_grants.c.code_hash == hashed, device_grants.c.expires_at > now
                )
            ).first()
        if waiting is None:
            raise NotFoundError(NO_SUCH_CODE)
        return None
