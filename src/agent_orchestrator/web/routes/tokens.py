"""Personal API tokens and device logins (docs/architecture.md#api-tokens).

A signed-in browser manages its user's tokens under ``/api/tokens`` and approves a terminal's device
login; a token can do neither. The terminal's side of a device login, ``/api/auth/device`` and
``/api/auth/device/token``, needs no login: the device code it holds is its credential.
"""

from datetime import datetime
from typing import Annotated, Literal, Self

from fastapi import APIRouter, HTTPException, Path, Request, Response, status
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.errors import NotFoundError
from agent_orchestrator.sessions.store.api_tokens import DEFAULT_DAYS, MAX_DAYS, NAME_MAX, ApiToken, Scope
from agent_orchestrator.sessions.store.device_grants import GRANT_TTL, NO_SUCH_CODE
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.web.deps import (
    OWN_TOKEN_PATH,
    BrowserActor,
    CurrentActor,
    ServicesDep,
    client_addr,
    request_token,
)
from agent_orchestrator.web.fields import NulFree

router = APIRouter(tags=["api tokens"])
DEVICE_PAGE = "/device"
POLL_SECONDS = 2
NO_SUCH_TOKEN = "No such token."


class CreateToken(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: NulFree = Field(min_length=1, max_length=NAME_MAX, description="What the token is for.")
    scopes: list[Scope] = Field(
        default=["chat"],
        min_length=1,
        description="read: list, read, search, export chats; chat: also create, send, fork, delete; "
        "data: the Data page's admin routes (admins only).",
    )
    expires_in_days: int = Field(default=DEFAULT_DAYS, ge=1, le=MAX_DAYS)


class TokenOut(BaseModel):
    id: str
    name: str
    scopes: list[Scope]
    hint: str = Field(description="The token's first characters, to tell it apart.")
    state: Literal["active", "expired"]
    created_at: datetime
    expires_at: datetime
    last_used_at: datetime | None
    last_used_addr: str | None

    @classmethod
    def of(cls, token: ApiToken) -> Self:
        return cls(
            id=token.id,
            name=token.name,
            scopes=list(token.scopes),
            hint=token.hint,
            state="active" if token.expires_at > utcnow() else "expired",
            created_at=token.created_at,
            expires_at=token.expires_at,
            last_used_at=token.last_used_at,
            last_used_addr=token.last_used_addr,
        )


class CreatedToken(BaseModel):
    token: TokenOut
    secret: str = Field(description="The token itself: shown this once, never stored.")


@router.get("/api/tokens", summary="Your API tokens, newest first")
async def list_tokens(actor: BrowserActor, services: ServicesDep) -> list[TokenOut]:
    return [TokenOut.of(token) for token in await services.tokens.of_user(actor)]


@router.post("/api/tokens", status_code=status.HTTP_201_CREATED, summary="Create an API token (shown once)")
async def create_token(body: CreateToken, actor: BrowserActor, services: ServicesDep) -> CreatedToken:
    token, secret = await services.tokens.create(actor, body.name, list(body.scopes), body.expires_in_days)
    return CreatedToken(token=TokenOut.of(token), secret=secret)


TokenId = Annotated[str, Path(max_length=32)]


@router.delete(
    "/api/tokens/{token_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Revoke a token, on every server",
)
async def revoke_token(token_id: TokenId, actor: BrowserActor, services: ServicesDep) -> Response:
    if not await services.tokens.revoke(actor, token_id):
        raise NotFoundError(NO_SUCH_TOKEN)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.delete(
    OWN_TOKEN_PATH,
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Revoke the API token this request carries ('ao logout')",
)
async def revoke_own_token(request: Request, actor: CurrentActor, services: ServicesDep) -> Response:
    token = request_token(request)
    if token is None:
        raise HTTPException(status.HTTP_400_BAD_REQUEST, "This request carries no API token.")
    await services.tokens.revoke(actor, token.id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


class StartDevice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    client_name: NulFree = Field(default="ao", max_length=NAME_MAX, description="Becomes the token's name.")


class DeviceStarted(BaseModel):
    device_code: str
    user_code: str
    verification_uri: str
    verification_uri_complete: str
    expires_in: int
    interval: int


@router.post("/api/auth/device", summary="Start a device login (the terminal client's 'ao login')")
async def start_device(body: StartDevice, request: Request, services: ServicesDep) -> DeviceStarted:
    grant = await services.tokens.start_device(body.client_name, client_addr(request))
    page = str(request.base_url).rstrip("/") + DEVICE_PAGE
    return DeviceStarted(
        device_code=grant.device_code,
        user_code=grant.user_code,
        verification_uri=page,
        verification_uri_complete=f"{page}?code={grant.user_code}",
        expires_in=int(GRANT_TTL.total_seconds()),
        interval=POLL_SECONDS,
    )


class RedeemDevice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    device_code: str = Field(min_length=1, max_length=100)


@router.post(
    "/api/auth/device/token",
    summary="Poll a device login: 202 while it waits, then the token once",
    responses={202: {"description": "Not approved yet: poll again after the interval"}},
    response_model=CreatedToken,
)
async def redeem_device(body: RedeemDevice, request: Request, services: ServicesDep) -> Response:
    redeemed = await services.tokens.redeem_device(body.device_code, client_addr(request))
    if redeemed is None:
        return JSONResponse({"status": "pending"}, status_code=status.HTTP_202_ACCEPTED)
    token, secret = redeemed
    return JSONResponse(CreatedToken(token=TokenOut.of(token), secret=secret).model_dump(mode="json"))


UserCode = Annotated[str, Path(max_length=20)]


class PendingDevice(BaseModel):
    client_name: str


@router.get("/api/auth/device/{user_code}", summary="Which client waits for this code")
async def pending_device(user_code: UserCode, actor: BrowserActor, services: ServicesDep) -> PendingDevice:
    name = await services.tokens.pending_device(user_code)
    if name is None:
        raise NotFoundError(NO_SUCH_CODE)
    return PendingDevice(client_name=name)


class ApproveDevice(BaseModel):
    model_config = ConfigDict(extra="forbid")
    user_code: str = Field(min_length=1, max_length=20)
    scopes: list[Scope] = Field(default=["chat"], min_length=1)


@router.post("/api/auth/device/approve", summary="Approve a device login with the scopes chosen")
async def approve_device(body: ApproveDevice, actor: BrowserActor, services: ServicesDep) -> PendingDevice:
    name = await services.tokens.approve_device(actor, body.user_code, list(body.scopes))
    return PendingDevice(client_name=name)
