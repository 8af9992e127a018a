"""Request dependencies: the services, the logged-in user, and CSRF protection.

Route signatures read like prose (``actor: CurrentActor``); ownership itself is enforced by the session
service, which every session route goes through.
"""

import asyncio
import secrets
from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, HTTPException, Request, status

from agent_orchestrator.sessions import Actor, Branching, Exchange, Readings, SessionService, UsageKeeper
from agent_orchestrator.sessions.store import LoginThrottle, User, UserStore
from agent_orchestrator.settings import WebSettings

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
    """The user behind the session cookie and their CSRF token, or 401."""
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


CurrentLogin = Annotated[tuple[User, str], Depends(current_login)]


async def current_actor(request: Request, login: CurrentLogin) -> Actor:
    return Actor(user=login[0], client_addr=client_addr(request))


CurrentActor = Annotated[Actor, Depends(current_actor)]
