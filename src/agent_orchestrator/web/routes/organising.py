"""Organising chats: the owner's folders and tags, and one change to many chats at once
(docs/architecture.md#organising-chats). A single chat is organised through ``PATCH
/api/sessions/{id}``."""

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.sessions.actions.organising import MAX_BULK, Change
from agent_orchestrator.web.deps import CurrentActor, ServicesDep

router = APIRouter(tags=["sessions"])

BulkAction = Literal["pin", "unpin", "archive", "restore", "move", "delete"]
_CHANGES: dict[str, Change] = {
    "pin": Change(pinned=True),
    "unpin": Change(pinned=False),
    "archive": Change(archived=True),
    "restore": Change(archived=False),
}


class Label(BaseModel):
    name: str
    count: int = Field(description="Chats it holds, archived ones included.")


class LabelsOut(BaseModel):
    folders: list[Label]
    tags: list[Label]


class BulkChange(BaseModel):
    """``move`` files every chat in ``folder`` (``null``: in none); ``delete`` deletes them for good."""

    model_config = ConfigDict(extra="forbid")
    ids: list[str] = Field(min_length=1, max_length=MAX_BULK)
    action: BulkAction
    folder: str | None = Field(default=None, min_length=1, max_length=80)

    @model_validator(mode="after")
    def _folder_only_to_move(self) -> "BulkChange":
        if "folder" in self.model_fields_set and self.action != "move":
            raise ValueError("A folder goes with the move action only.")
        return self

    def change(self) -> Change | None:
        if self.action == "delete":
            return None
        if self.action == "move":
            return Change(move=True, folder=self.folder)
        return _CHANGES[self.action]


class BulkOut(BaseModel):
    done: list[str]
    missing: list[str] = Field(description="Ids of no chat of yours (unknown, or deleted meanwhile).")


@router.get("/api/labels", summary="Your folders and tags, with how many chats each holds")
async def labels(actor: CurrentActor, services: ServicesDep) -> LabelsOut:
    found = await services.organising.labels(actor)
    return LabelsOut(
        folders=[Label(name=name, count=count) for name, count in found.folders],
        tags=[Label(name=name, count=count) for name, count in found.tags],
    )


@router.post("/api/sessions/bulk", summary="Pin, archive, restore, move or delete many chats at once")
async def bulk_change(body: BulkChange, actor: CurrentActor, services: ServicesDep) -> BulkOut:
    outcome = await services.organising.change_many(actor, body.ids, body.change())
    return BulkOut(done=outcome.done, missing=outcome.missing)
