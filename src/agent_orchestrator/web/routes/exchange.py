"""Export a session (our lossless JSON, or Markdown) and import a file (our JSON, or a ChatGPT
``conversations.json``) as new sessions of the user. Both go through
:class:`~agent_orchestrator.sessions.actions.exchange.Exchange` (ownership, audit, all-or-nothing import of
at most 100 conversations a file, ten files a user an hour: docs/architecture.md#export-and-import)."""

import json
import re
from typing import Literal
from urllib.parse import quote

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel

from agent_orchestrator.sessions.history.transcript import TranscriptMessage
from agent_orchestrator.web.charts import charts_for, markdown_table
from agent_orchestrator.web.deps import CurrentActor, ServicesDep
from agent_orchestrator.web.routes.sessions import SessionOut

router = APIRouter(prefix="/api/sessions", tags=["export and import"])
# A ChatGPT export of a long history is a few megabytes; the app's other bodies stay small. The
# limit is enforced by the guard as the body arrives (web/guard.py), declared length or not.
IMPORT_PATH = f"{router.prefix}/import"
IMPORT_MAX_BYTES = 16 * 1024 * 1024


# The body is read raw (its parser names the bad line or conversation), so the OpenAPI document is told
# its shape here: clients, the docs page and the API fuzzer see what an import takes.
IMPORT_BODY = {
    "required": True,
    "description": "An AgentOrchestrator export (JSON) or a ChatGPT conversations.json, up to 16 MB.",
    "content": {
        "application/json": {
            "schema": {
                "oneOf": [
                    {
                        "title": "AgentOrchestrator export",
                        "type": "object",
                        "required": ["format", "events"],
                        "properties": {
                            "format": {"const": 1},
                            "session": {"type": "object"},
                            "events": {"type": "string", "description": "the runtime's events.jsonl"},
                        },
                    },
                    {
                        "title": "ChatGPT conversations.json",
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["mapping"],
                            "properties": {
                                "title": {"type": "string"},
                                "mapping": {"type": "object"},
                                "current_node": {"type": ["string", "null"]},
                            },
                        },
                    },
                ]
            }
        }
    },
}


class ImportedOut(BaseModel):
    items: list[SessionOut]


@router.get("/{session_id}/export", summary="Download the session as JSON (re-importable) or Markdown")
async def export_session(
    session_id: str,
    actor: CurrentActor,
    services: ServicesDep,
    format: Literal["json", "markdown"] = Query("json"),
) -> Response:
    title, exported = await services.exchange.export(
        actor, session_id, markdown=format == "markdown", figures=figures_of
    )
    if isinstance(exported, str):
        body, media, suffix = exported, "text/markdown; charset=utf-8", "md"
    else:
        body, media, suffix = json.dumps(exported, indent=2, ensure_ascii=False), "application/json", "json"
    disposition = download_name(title, session_id, suffix)
    return Response(
        body, media_type=media, headers={"Content-Disposition": disposition, "Cache-Control": "no-store"}
    )


def figures_of(message: TranscriptMessage) -> list[str]:
    """An answer's charts as Markdown tables, for the Markdown export."""
    return [markdown_table(chart) for chart in charts_for(message.tool_results)]


def download_name(title: str, session_id: str, suffix: str) -> str:
    """``Content-Disposition`` naming the file after the chat's title ("Revenue by country.md"): as
    written for browsers that read RFC 6266's ``filename*``, in plain ASCII for the rest; the
    session id when the title leaves nothing (ids are ``[A-Za-z0-9._-]`` only)."""
    name = " ".join(re.sub(r"[\x00-\x1f\x7f/\\:*?\"<>|]+", " ", title).split()).strip(" .")[:100].strip()
    name = name or session_id
    plain = re.sub(r"[^A-Za-z0-9 ._-]+", "_", name).strip("_ ") or session_id
    return f"attachment; filename=\"{plain}.{suffix}\"; filename*=UTF-8''{quote(f'{name}.{suffix}')}"


@router.post(
    "/import",
    status_code=status.HTTP_201_CREATED,
    summary="Import an export file as new sessions",
    openapi_extra={"requestBody": IMPORT_BODY},
    responses={
        422: {"description": "The file is not one we import (one message naming what and where)"},
        429: {"description": "Ten files imported within the hour already (Retry-After)"},
    },
)
async def import_sessions(request: Request, actor: CurrentActor, services: ServicesDep) -> ImportedOut:
    data = await request.body()
    records = await services.exchange.import_file(actor, data)
    return ImportedOut(items=[SessionOut.of(record) for record in records])
