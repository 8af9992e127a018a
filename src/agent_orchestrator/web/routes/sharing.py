"""Read-only share links (docs/architecture.md#share-links): the owner's routes under
``/api/sessions/{id}/shares`` and ``/api/shares``, the viewer's under ``/api/shared/{token}``, and the
page a link opens, ``/share/{token}``.

A token that is malformed, unknown, revoked or expired answers one and the same ``404``.
"""

import re
from datetime import datetime
from typing import Annotated, Literal, Self

from fastapi import APIRouter, Path, Request, Response, status
from fastapi.responses import FileResponse
from pydantic import BaseModel, ConfigDict, Field

from agent_orchestrator.errors import NotFoundError
from agent_orchestrator.sessions.actions.sharing import DEFAULT_DAYS, MAX_DAYS, UNKNOWN_LINK
from agent_orchestrator.sessions.history.transcript import parse_events
from agent_orchestrator.sessions.store.schema import utcnow
from agent_orchestrator.sessions.store.share_links import ShareLink
from agent_orchestrator.web import STATIC_DIR
from agent_orchestrator.web.deps import CurrentActor, OptionalActor, ServicesDep, client_addr
from agent_orchestrator.web.routes.messages import MessageOut
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(tags=["sharing"])
PAGE = "share.html"

_TOKEN = re.compile(r"[A-Za-z0-9_-]{20,100}")


class CreateShare(BaseModel):
    model_config = ConfigDict(extra="forbid")
    days: int = Field(default=DEFAULT_DAYS, ge=1, le=MAX_DAYS, description="Days until the link expires.")
    signed_in_only: bool = Field(
        default=False, description="Only users signed in to this server may open it."
    )


class ShareOut(BaseModel):
    id: str
    title: str
    state: Literal["active", "expired", "revoked"]
    created_at: datetime
    expires_at: datetime
    revoked_at: datetime | None
    snapshot_at: datetime
    signed_in_only: bool
    views: int

    @classmethod
    def of(cls, link: ShareLink) -> Self:
        now = utcnow()
        state = "revoked" if link.revoked_at else "active" if link.live(now) else "expired"
        return cls(
            id=link.id,
            title=link.title,
            state=state,
            created_at=link.created_at,
            expires_at=link.expires_at,
            revoked_at=link.revoked_at,
            snapshot_at=link.snapshot_at,
            signed_in_only=link.signed_in_only,
            views=link.views,
        )


class CreatedShareOut(ShareOut):
    url: str = Field(description="The link's path, with its token: shown this once.")


class SharedOut(BaseModel):
    title: str
    shared_at: datetime
    expires_at: datetime
    messages: list[MessageOut]


LinkId = Annotated[str, Path(max_length=32)]


@router.post(
    "/api/sessions/{session_id}/shares", status_code=status.HTTP_201_CREATED, summary="Share a snapshot"
)
async def create_share(
    session_id: str, body: CreateShare, actor: CurrentActor, services: ServicesDep
) -> CreatedShareOut:
    link, token = await services.sharing.create(
        actor, session_id, days=body.days, signed_in_only=body.signed_in_only
    )
    return CreatedShareOut(**ShareOut.of(link).model_dump(), url=f"/share/{token}")


@router.get("/api/shares", summary="Your share links, newest first")
async def list_shares(actor: CurrentActor, services: ServicesDep) -> list[ShareOut]:
    return [ShareOut.of(link) for link in await services.sharing.owned(actor)]


@router.delete("/api/shares/{link_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Revoke a link")
async def revoke_share(link_id: LinkId, actor: CurrentActor, services: ServicesDep) -> Response:
    await services.sharing.revoke(actor, link_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post("/api/shares/{link_id}/refresh", summary="Share the conversation as it is now")
async def refresh_share(link_id: LinkId, actor: CurrentActor, services: ServicesDep) -> ShareOut:
    return ShareOut.of(await services.sharing.refresh(actor, link_id))


@router.get("/api/shared/{token}", summary="A shared conversation (read-only)")
async def read_shared(
    token: str, request: Request, viewer: OptionalActor, services: ServicesDep
) -> SharedOut:
    link = await services.sharing.view(_checked(token), viewer, client_addr(request))
    messages = [
        MessageOut.of(m).model_copy(update={"readings": []})  # chips change a reading: the owner's
        for m in parse_events(link.snapshot.splitlines())
    ]
    return SharedOut(
        title=link.title, shared_at=link.snapshot_at, expires_at=link.expires_at, messages=messages
    )


@router.post(
    "/api/shared/{token}/copy",
    status_code=status.HTTP_201_CREATED,
    summary="Continue a shared conversation as your own copy",
)
async def copy_shared(token: str, actor: CurrentActor, services: ServicesDep) -> SessionOut:
    return SessionOut.of(await services.sharing.copy(_checked(token), actor))


@router.get("/share/{token}", include_in_schema=False)
async def share_page(token: str) -> FileResponse:
    """The page a link opens; it reads the conversation from ``/api/shared/{token}``."""
    return FileResponse(STATIC_DIR / PAGE, headers={"Cache-Control": "no-store"})


def _checked(token: str) -> str:
    """A token of the shape the server makes, or the unknown link's ``404`` (a malformed one is no
    different from any other unknown one)."""
    if not _TOKEN.fullmatch(token):
        raise NotFoundError(UNKNOWN_LINK)
    return token
