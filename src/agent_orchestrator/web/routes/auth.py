"""Log in and out. The cookie carries an opaque login token (HttpOnly, SameSite=Lax; over HTTPS Secure
and named ``__Host-ao_session``); the CSRF token travels in response bodies and comes back in a header,
never in a cookie.

Every attempt is first charged to the account from the client's address, the account and the address
(docs/architecture.md#login-throttling): a locked one is refused with ``429`` and ``Retry-After``
before any password is checked; a success gives the charge back.
"""

import asyncio

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.errors import LoginThrottledError
from agent_orchestrator.sessions.store import AuditEvent, Charge, User, login_keys, scope_of
from agent_orchestrator.sessions.store.users import Role
from agent_orchestrator.telemetry import LOGIN_FAILURES
from agent_orchestrator.web.deps import (
    BrowserLogin,
    CurrentLogin,
    Services,
    ServicesDep,
    client_addr,
    cookie_name,
    secure_cookies,
)
from agent_orchestrator.web.fields import NulFree

router = APIRouter(prefix="/api/auth", tags=["auth"])
# What the audit trail names a failed login at no account by (not a possible username).
UNKNOWN = "(no such account)"


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: NulFree = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=1000)


class UserOut(BaseModel):
    id: int
    username: str
    role: Role = Field(description="admin: may also manage the data (docs/architecture.md#roles)")

    @classmethod
    def of(cls, user: User) -> "UserOut":
        return cls(id=user.id, username=user.username, role=user.role)


class LoginOut(BaseModel):
    user: UserOut
    csrf_token: str


@router.post("/login", summary="Log in with a username and password")
async def login(body: LoginRequest, request: Request, response: Response, services: ServicesDep) -> LoginOut:
    users, audit = services.users, services.sessions.audit
    addr = client_addr(request)
    charge = await asyncio.to_thread(services.throttle.charge, login_keys(body.username, addr))
    if not charge.allowed:
        LOGIN_FAILURES.labels("throttled").inc()
        raise LoginThrottledError(
            f"Too many failed logins; try again in {charge.retry_after} s.", retry_after=charge.retry_after
        )
    check = await asyncio.to_thread(users.check_password, body.username, body.password)
    user = check.user
    if user is None:
        LOGIN_FAILURES.labels("password").inc()
        await asyncio.to_thread(_audit_failure, services, check.account, addr, charge)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "Wrong username or password.")
    await asyncio.to_thread(services.throttle.refund, charge)
    ticket = await asyncio.to_thread(users.open_login, user.id, services.settings.login_ttl)
    await asyncio.to_thread(
        audit.record, AuditEvent(action="login", user_id=user.id, username=user.username, client_addr=addr)
    )
    response.set_cookie(
        cookie_name(request, services.settings),
        ticket.token,
        max_age=int(services.settings.login_ttl),
        httponly=True,
        samesite="lax",
        secure=secure_cookies(request, services.settings),
        path="/",
    )
    return LoginOut(user=UserOut.of(user), csrf_token=ticket.csrf_token)


def _audit_failure(services: Services, account: User | None, addr: str, charge: Charge) -> None:
    """``login_failed``, and ``login_locked`` for each key the failure locked. The name as typed is
    kept only when it is an account's: people type passwords into the name field."""
    user_id, username = (account.id, account.username) if account else (None, UNKNOWN)
    audit = services.sessions.audit
    audit.record(AuditEvent(action="login_failed", user_id=user_id, username=username, client_addr=addr))
    for key in charge.locking:
        details = {"scope": scope_of(key), "seconds": services.settings.login_lockout}
        audit.record(
            AuditEvent(
                action="login_locked", user_id=user_id, username=username, client_addr=addr, details=details
            )
        )


@router.get("/me", summary="The logged-in user (with their role) and their CSRF token")
async def me(login: CurrentLogin) -> LoginOut:
    user, csrf = login
    return LoginOut(user=UserOut.of(user), csrf_token=csrf)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, summary="Log out")
async def logout(request: Request, login: BrowserLogin, services: ServicesDep) -> Response:
    name = cookie_name(request, services.settings)
    await asyncio.to_thread(services.users.close_login, request.cookies[name])
    await asyncio.to_thread(
        services.sessions.audit.record,
        AuditEvent(
            action="logout", user_id=login[0].id, username=login[0].username, client_addr=client_addr(request)
        ),
    )
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(
        name, path="/", secure=secure_cookies(request, services.settings), httponly=True, samesite="lax"
    )
    return response
