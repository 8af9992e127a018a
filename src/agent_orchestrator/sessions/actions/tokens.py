"""Personal API tokens and device logins for an :class:`Actor` (docs/architecture.md#api-tokens).

A user creates, lists and revokes their tokens; a terminal gets one by a device login that the user
approves in a signed-in browser. Each request with a token is checked here: the token's shape (no
look-up for a typo), its row (revoked or expired: refused alike), its own rate (a token bucket per
token on each server), and its use recorded: the last use on the token, and an audit row under its
name folded as share links' views are (one row per token and address every ten minutes, counting the
calls it stands for), so a script polling every second does not write a row per call.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from datetime import timedelta

from agent_orchestrator.errors import AlreadyExistsError, InvalidInputError, TooManyRequestsError
from agent_orchestrator.sessions.actions.sharing import ViewFolding
from agent_orchestrator.sessions.actor import Actor
from agent_orchestrator.sessions.store import AuditAction, AuditEvent, AuditLog, User, UserStore
from agent_orchestrator.sessions.store.api_tokens import ApiToken, ApiTokens, Scope, normalise_scopes
from agent_orchestrator.sessions.store.device_grants import DeviceGrant, DeviceGrants
from agent_orchestrator.sessions.store.schema import utcnow

USES_EVERY = timedelta(minutes=10)
"""A token's calls from one address are audited as one row per this window, counting them."""
DEVICE_TOKEN_DAYS = 90


@dataclass(frozen=True)
class TokenRate:
    """How fast one token may call: ``burst`` calls at once, ``per_second`` after that."""

    burst: int = 60
    per_second: float = 5.0


DEVICE_STARTS = TokenRate(burst=10, per_second=1 / 6)
"""Device logins started from one address: ten at once, then one every six seconds."""


class _Buckets:
    """A token bucket per API token, on this server (docs/architecture.md#api-tokens)."""

    def __init__(self, rate: TokenRate) -> None:
        self.rate = rate
        self._buckets: dict[str, tuple[float, float]] = {}

    def take(self, key: str, now: float) -> float:
        """0 if a call may go now, else the seconds until it may."""
        tokens, at = self._buckets.get(key, (float(self.rate.burst), now))
        tokens = min(float(self.rate.burst), tokens + (now - at) * self.rate.per_second)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate.per_second
        if len(self._buckets) > 10_000:  # forget full buckets: they are the default
            self._buckets = {
                k: v
                for k, v in self._buckets.items()
                if v[0] + (now - v[1]) * self.rate.per_second < self.rate.burst
            }
        self._buckets[key] = (tokens - 1, now)
        return 0.0


class TokenAccess:
    """Tokens and device logins, audited."""

    def __init__(
        self,
        tokens: ApiTokens,
        grants: DeviceGrants,
        users: UserStore,
        audit: AuditLog,
        rate: TokenRate | None = None,
    ) -> None:
        self.tokens = tokens
        self.users = users
        self.grants = grants
        self.audit = audit
        self._buckets = _Buckets(rate or TokenRate())
        self._device_starts = _Buckets(DEVICE_STARTS)
        self._uses = ViewFolding(USES_EVERY)

    async def create(self, actor: Actor, name: str, scopes: list[str], days: int) -> tuple[ApiToken, str]:
        chosen = _allowed(actor.user, scopes)
        token, secret = await asyncio.to_thread(self.tokens.create, actor.user.id, name, chosen, days=days)
        await self._audit("token_create", actor, token)
        return token, secret

    async def of_user(self, actor: Actor) -> list[ApiToken]:
        return await asyncio.to_thread(self.tokens.of_user, actor.user.id)

    async def revoke(self, actor: Actor, token_id: str) -> bool:
        token = await asyncio.to_thread(self.tokens.revoke, actor.user.id, token_id)
        if token is not None:
            await self._audit("token_revoke", actor, token)
        return token is not None

    async def authenticate(self, secret: str, client_addr: str) -> tuple[User, ApiToken] | None:
        """The user and token ``secret`` is, its use recorded; ``None`` if it is no live token.
        :class:`TooManyRequestsError` past the token's rate."""
        found = await asyncio.to_thread(self.tokens.find, secret)
        if found is None:
            return None
        user, token = found
        wait = self._buckets.take(token.id, time.monotonic())
        if wait:
            raise TooManyRequestsError(
                f"Too many calls with the token {token.name!r}; slow down.", retry_after=int(wait) + 1
            )
        now = utcnow()
        await asyncio.to_thread(self.tokens.record_use, token, client_addr, now)
        calls = self._uses.admit((token.id, client_addr), now)
        if calls is not None:
            actor = Actor(user=user, client_addr=client_addr, token=token.name)
            await self._audit("token_use", actor, token, calls=calls)
        return user, token

    async def start_device(self, client_name: str, client_addr: str) -> DeviceGrant:
        """A new device login, at most :data:`DEVICE_STARTS` per address: anyone may start one."""
        wait = self._device_starts.take(client_addr, time.monotonic())
        if wait:
            raise TooManyRequestsError(
                "Too many logins started from here; wait a minute.", retry_after=int(wait) + 1
            )
        return await asyncio.to_thread(self.grants.start, " ".join(client_name.split())[:60] or "ao")

    async def pending_device(self, user_code: str) -> str | None:
        return await asyncio.to_thread(self.grants.pending, user_code)

    async def approve_device(self, actor: Actor, user_code: str, scopes: list[str]) -> str:
        chosen = _allowed(actor.user, scopes)
        name = await asyncio.to_thread(self.grants.approve, user_code, actor.user.id, chosen)
        event = AuditEvent(
            action="device_approve",
            user_id=actor.user.id,
            username=actor.user.username,
            client_addr=actor.client_addr,
            details={"client": name, "scopes": " ".join(chosen)},
        )
        await asyncio.to_thread(self.audit.record, event)
        return name

    async def redeem_device(self, device_code: str, client_addr: str) -> tuple[ApiToken, str] | None:
        """The token an approved device login becomes (``None`` while it waits)."""
        approval = await asyncio.to_thread(self.grants.redeem, device_code)
        if approval is None:
            return None
        scopes = normalise_scopes(approval.scopes)
        for attempt in range(1, 100):
            name = approval.client_name if attempt == 1 else f"{approval.client_name} ({attempt})"
            try:
                token, secret = await asyncio.to_thread(
                    self.tokens.create, approval.user_id, name, scopes, days=DEVICE_TOKEN_DAYS
                )
            except AlreadyExistsError:
                continue
            break
        else:  # pragma: no cover - a user with 99 tokens of one name
            raise AlreadyExistsError("Too many tokens of that name; revoke some first.")
        user = await asyncio.to_thread(self.users.get, approval.user_id)
        if user is not None:
            await self._audit("token_create", Actor(user=user, client_addr=client_addr), token, device=True)
        return token, secret

    async def _audit(self, action: AuditAction, actor: Actor, token: ApiToken, **extra: object) -> None:
        details = {"name": token.name, "token": token.id, "scopes": " ".join(token.scopes)}
        details |= {key: str(value) for key, value in extra.items()}
        event = AuditEvent(
            action=action,
            user_id=actor.user.id,
            username=actor.user.username,
            client_addr=actor.client_addr,
            details=details,
            at=utcnow(),
        )
        await asyncio.to_thread(self.audit.record, event)


def _allowed(user: User, scopes: list[str]) -> tuple[Scope, ...]:
    """The scopes normalised; ``data`` only for an admin (:class:`InvalidInputError` otherwise)."""
    chosen = normalise_scopes(scopes)
    if "data" in chosen and not user.is_admin:
        raise InvalidInputError("Only an admin's token can have the data scope.")
    return chosen
