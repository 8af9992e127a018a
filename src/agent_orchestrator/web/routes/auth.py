"""Log in and out. The cookie carries an opaque login token (HttpOnly, SameSite=Lax, Secure over HTTPS);
the CSRF token travels in response bodies and comes back in a header, never in a cookie.

Every attempt is first charged to the account from the client's address, the account and the address
(docs/architecture.md#login-throttling): a locked one is refused with ``429`` and ``Retry-After``
before any password is checked; a success gives the charge back.
"""

import asyncio

from fastapi import APIRouter, HTTPException, Request, Response, status
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.errors import LoginThrottledError
from agent_orchestrator.sessions.store import AuditEvent, login_keys, scope_of
from agent_orchestrator.telemetry import LOGIN_FAILURES
from agent_orchestrator.web.deps import COOKIE_NAME, CurrentLogin, ServicesDep, client_addr

router = APIRouter(prefix="/api/auth", tags=["auth"])


class LoginRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    username: str = Field(min_length=1, max_length=100)
    password: str = Field(min_length=1, max_length=1000)


class UserOut(BaseModel):
    id: int
    username: str


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
    user = await asyncio.to_thread(users.authenticate, body.username, body.password)
    if user is None:
        LOGIN_FAILURES.labels("password").inc()
        failed = AuditEvent(
            action="login_failed", user_id=None, username=body.username[:100], client_addr=addr
        )
        await asyncio.to_thread(audit.record, failed)
        for key in charge.locking:
            locked = AuditEvent(
                action="login_locked",
                username=body.username[:100],
                client_addr=addr,
                details={"scope": scope_of(key), "seconds": services.settings.login_lockout},
            )
            await asyncio.to_thread(audit.record, locked)
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "Wrong username or password.")
    await asyncio.to_thread(services.throttle.refund, charge)
    ticket = await asyncio.to_thread(users.open_login, user.id, services.settings.login_ttl)
    await asyncio.to_thread(
        audit.record, AuditEvent(action="login", user_id=user.id, username=user.username, client_addr=addr)
    )
    response.set_cookie(
        COOKIE_NAME,
        ticket.token,
        max_age=int(services.settings.login_ttl),
        httponly=True,
        samesite="lax",
        secure=services.settings.secure_cookies or request.url.scheme == "https",
        path="/",
    )
    return LoginOut(user=UserOut(id=user.id, username=user.username), csrf_token=ticket.csrf_token)


@router.get("/me", summary="The logged-in user and their CSRF token")
async def me(login: CurrentLogin) -> LoginOut:
    user, csrf = login
    return LoginOut(user=UserOut(id=user.id, username=user.username), csrf_token=csrf)


@router.post("/logout", status_code=status.HTTP_204_NO_CONTENT, summary="Log out")
async def logout(request: Request, login: CurrentLogin, services: ServicesDep) -> Response:
    await asyncio.to_thread(services.users.close_login, request.cookies[COOKIE_NAME])
    await asyncio.to_thread(
        services.sessions.audit.record,
        AuditEvent(
            action="logout", user_id=login[0].id, username=login[0].username, client_addr=client_addr(request)
        ),
    )
    response = Response(status_code=status.HTTP_204_NO_CONTENT)
    response.delete_cookie(COOKIE_NAME, path="/")
    return response
