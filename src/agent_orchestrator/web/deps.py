"""Request dependencies: the services, the logged-in user, CSRF protection and the admin role.

Route signatures read like prose (``actor: CurrentActor``, ``admin: CurrentAdmin``); ownership itself
is enforced by the session service, which every session route goes through. Roles are checked here,
on the server, whatever the UI shows (docs/architecture.md#roles).
"""

import asyncio
import secrets
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, Response, status
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from agent_orchestrator.planner.data_guide import DataGuide
from agent_orchestrator.retail.datasets import DatasetLibrary
from agent_orchestrator.sessions import Actor, Branching, Exchange, Readings, SessionService, UsageKeeper
from agent_orchestrator.sessions.actions.activity import SessionActivity
from agent_orchestrator.sessions.actions.feedback import Feedback
from agent_orchestrator.sessions.actions.organising import Organising
from agent_orchestrator.sessions.actions.sharing import Sharing
from agent_orchestrator.sessions.actions.tokens import TokenAccess
from agent_orchestrator.sessions.store import AuditEvent, LoginThrottle, User, UserStore
from agent_orchestrator.sessions.store.api_tokens import ApiToken, Scope
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.web.dataset_switch import DatasetSwitch
from agent_orchestrator.web.import_jobs import ImportJobs
from agent_orchestrator.web.uploads import Uploads

COOKIE_NAME = "ao_session"
# A Secure login cookie is a ``__Host-`` one: browsers then accept it only Secure, for the whole site
# (``Path=/``) and from this host alone (no ``Domain``), so neither a sibling subdomain nor a page on
# plain HTTP can plant or overwrite it.
SECURE_COOKIE_NAME = f"__Host-{COOKIE_NAME}"
CSRF_HEADER = "X-CSRF-Token"
_SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


@dataclass(frozen=True)
class Services:
    """Everything the routes need, built once in the app's lifespan."""

    settings: WebSettings
    users: UserStore
    sessions: SessionService
    throttle: LoginThrottle
    usage: UsageKeeper
    branching: Branching
    exchange: Exchange
    readings: Readings
    sharing: Sharing
    activity: SessionActivity
    organising: Organising
    feedback: Feedback
    datasets: DatasetLibrary
    """The retail data's versions; every reader opens ``datasets.current_path()`` when it reads."""
    uploads: Uploads
    imports: ImportJobs
    tokens: TokenAccess
    start: DataGuide
    """The reader of the active version, whose start screen (what is loaded, questions it reads)
    opens every new chat."""
    dataset_switch: DatasetSwitch | None = None
    """Await ``check()`` after changing the active version here, so the next turn is on its tools."""


async def get_services(request: Request) -> Services:
    """Async although it awaits nothing: FastAPI runs a plain function dependency in a worker thread."""
    return request.app.state.services


ServicesDep = Annotated[Services, Depends(get_services)]


def client_addr(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def secure_cookies(request: Request, settings: WebSettings) -> bool:
    """Whether the login cookie is Secure: over HTTPS (forwarded by a trusted proxy too), or when
    ``AGENT_WEB_SECURE_COOKIES`` says TLS ends in front of the app."""
    return settings.secure_cookies or request.url.scheme == "https"


def cookie_name(request: Request, settings: WebSettings) -> str:
    return SECURE_COOKIE_NAME if secure_cookies(request, settings) else COOKIE_NAME


async def current_login(request: Request, services: ServicesDep) -> tuple[User, str]:
    """The user behind the request and their CSRF token, or 401: an API token in ``Authorization:
    Bearer`` (no CSRF token: a script's header cannot be forged by another site's page; its scope is
    checked instead), else the session cookie (its CSRF token checked on every unsafe method)."""
    checked = request.scope.get(_CHECKED_LOGIN)
    if checked is not None:  # an admin-only route checked it before reading the body
        return checked
    authorization = request.headers.get("authorization")
    if authorization is not None:
        return await _token_login(request, services, authorization), ""
    token = request.cookies.get(cookie_name(request, services.settings))
    login = await asyncio.to_thread(services.users.login_for_token, token) if token else None
    if login is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, "Please log in.")
    user, csrf = login
    if request.method not in _SAFE_METHODS:
        sent = request.headers.get(CSRF_HEADER, "")
        if not secrets.compare_digest(sent.encode(), csrf.encode()):
            raise HTTPException(status.HTTP_403_FORBIDDEN, "Missing or wrong CSRF token.")
    return user, csrf


OWN_TOKEN_PATH = "/api/auth/token"
BAD_TOKEN = "Invalid, expired or revoked API token."
_BEARER_CHALLENGE = {"WWW-Authenticate": 'Bearer realm="AgentOrchestrator"'}
_TOKEN = "agent_orchestrator.api_token"
"""Where a bearer request's :class:`ApiToken` is kept, for its actor and the routes a token may
not use."""


async def _token_login(request: Request, services: Services, authorization: str) -> User:
    """The user of a bearer token allowed on this route (docs/architecture.md#api-tokens): 401 alike for
    a malformed, unknown, revoked or expired token; 403 for a scope that does not cover the route."""
    scheme, _, secret = authorization.partition(" ")
    found = None
    if scheme.lower() == "bearer":
        found = await services.tokens.authenticate(secret.strip(), client_addr(request))
    if found is None:
        raise HTTPException(status.HTTP_401_UNAUTHORIZED, BAD_TOKEN, headers=_BEARER_CHALLENGE)
    user, token = found
    needed = needed_scope(request)
    if not token.allows(needed):
        detail = f"The token {token.name!r} has the scopes {', '.join(token.scopes)}; this needs {needed}."
        raise HTTPException(status.HTTP_403_FORBIDDEN, detail)
    request.scope[_TOKEN] = token
    return user


def needed_scope(request: Request) -> Scope:
    """The scope a token needs for the request's route: ``data`` for an admin-only route, ``read``
    to read, ``chat`` to change anything."""
    route = request.scope.get("route")
    if isinstance(route, APIRoute) and route.path == OWN_TOKEN_PATH:
        return "read"  # any token may revoke itself
    if isinstance(route, APIRoute) and requires_admin(route.dependant):
        return "data"
    return "read" if request.method in _SAFE_METHODS else "chat"


def request_token(request: Request) -> ApiToken | None:
    """The API token the request came with, if it did."""
    return request.scope.get(_TOKEN)


CurrentLogin = Annotated[tuple[User, str], Depends(current_login)]


async def browser_login(request: Request, login: CurrentLogin) -> tuple[User, str]:
    """:func:`current_login`, refusing an API token: a token cannot make tokens, approve a device or
    log out a browser (docs/architecture.md#api-tokens)."""
    if request_token(request) is not None:
        raise HTTPException(status.HTTP_403_FORBIDDEN, "An API token cannot do this; sign in in a browser.")
    return login


BrowserLogin = Annotated[tuple[User, str], Depends(browser_login)]


async def current_actor(request: Request, login: CurrentLogin) -> Actor:
    return _actor(request, login[0])


def _actor(request: Request, user: User) -> Actor:
    device = request.headers.get("user-agent", "")[:DEVICE_CHARS]
    token = request_token(request)
    return Actor(
        user=user, client_addr=client_addr(request), device=device, token=token.name if token else None
    )


DEVICE_CHARS = 160
"""A User-Agent kept for a session's activity is cut here: enough to tell a phone from a laptop."""


CurrentActor = Annotated[Actor, Depends(current_actor)]


async def browser_actor(request: Request, login: BrowserLogin) -> Actor:
    return _actor(request, login[0])


BrowserActor = Annotated[Actor, Depends(browser_actor)]
"""The signed-in user of a browser: an API token is refused (:func:`browser_login`)."""


async def optional_actor(request: Request, services: ServicesDep) -> Actor | None:
    """The signed-in user, or ``None``: for pages anyone with a link may read (reads only, so no
    CSRF token is asked)."""
    token = request.cookies.get(cookie_name(request, services.settings))
    login = await asyncio.to_thread(services.users.login_for_token, token) if token else None
    return _actor(request, login[0]) if login else None


OptionalActor = Annotated[Actor | None, Depends(optional_actor)]

ADMINS_ONLY = "Only an admin can do this."


async def current_admin(request: Request, actor: CurrentActor, services: ServicesDep) -> Actor:
    """The actor if they are an admin; otherwise ``403`` with one message, and the refusal audited
    (``forbidden``, with the method and path) so that an analyst probing the data routes shows up."""
    if not actor.user.is_admin:
        event = AuditEvent(
            action="forbidden",
            user_id=actor.user.id,
            username=actor.user.username,
            client_addr=actor.client_addr,
            details={"method": request.method, "path": request.url.path},
        )
        await asyncio.to_thread(services.sessions.audit.record, event)
        raise HTTPException(status.HTTP_403_FORBIDDEN, ADMINS_ONLY)
    return actor


CurrentAdmin = Annotated[Actor, Depends(current_admin)]


_CHECKED_LOGIN = "agent_orchestrator.login"
"""Where :class:`AdminFirstRoute` leaves the login it checked, so the route's own dependencies do not
look it up a second time."""


def requires_admin(dependant: Dependant) -> bool:
    """Whether a route (its dependency tree) needs :func:`current_admin`: an admin-only route."""
    return any(call is current_admin for call in _calls(dependant))


def _calls(dependant: Dependant) -> Iterator[Any]:
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


class AdminFirstRoute(APIRoute):
    """A route class that authorises an admin-only route before anything of the request is read.

    FastAPI parses a JSON body before it runs any dependency, so an analyst's malformed body would be
    answered ``422`` and never reach :func:`current_admin`: neither refused nor audited. For a route
    that depends on :func:`current_admin`, this class checks the login, the CSRF token and the role
    first, as the dependencies would (``401``, ``403``, ``403`` audited ``forbidden``), and only then
    hands the request to FastAPI (docs/architecture.md#roles). Other routes are unchanged. Every
    router with an admin-only route is made with ``route_class=AdminFirstRoute``; the tests hold every
    admin-only route of the app to it."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if not requires_admin(self.dependant):
            return handler

        async def admin_first(request: Request) -> Response:
            services: Services = request.app.state.services
            login = await current_login(request, services)
            await current_admin(request, _actor(request, login[0]), services)
            request.scope[_CHECKED_LOGIN] = login
            return await handler(request)

        return admin_first
