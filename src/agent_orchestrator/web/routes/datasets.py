"""The Data page's API: the dataset's facts for everyone; for admins, uploading a shop's sales as a CSV
file, importing it in the background, its versions, and the dataset's settings
(docs/architecture.md#the-data-page, #roles).

Every management route needs ``current_admin`` (an analyst gets ``403``, audited) besides the login
and CSRF token every route needs; the facts and the versions list need only a login. An upload's body
is the file itself, streamed to disk (``web/uploads.py``) and limited by the guard to
:data:`~agent_orchestrator.web.uploads.UPLOAD_MAX_BYTES` as it arrives.
"""

from __future__ import annotations

import asyncio
import dataclasses
import pathlib
import re
from collections.abc import Iterator
from typing import Annotated

from fastapi import APIRouter, Path, Query, Request, Response, status
from fastapi.responses import StreamingResponse

from agent_orchestrator.errors import InvalidInputError, NotFoundError
from agent_orchestrator.retail.datasets import CsvFormat
from agent_orchestrator.retail.datasets.semantic import UploadColumn, upload_columns
from agent_orchestrator.sessions import Actor
from agent_orchestrator.sessions.store import AuditAction, AuditEvent
from agent_orchestrator.spreadsheet import safe_csv
from agent_orchestrator.web.dataset_models import (
    FactsOut,
    ImportIn,
    JobOut,
    JobStatusOut,
    PreviewOut,
    ReadIn,
    SettingsIn,
    VersionOut,
    VersionsOut,
    checked_mapping,
)
from agent_orchestrator.web.deps import AdminFirstRoute, CurrentActor, CurrentAdmin, Services, ServicesDep
from agent_orchestrator.web.fields import NulFree
from agent_orchestrator.web.uploads import UPLOAD_MAX_BYTES, Upload, Uploads

router = APIRouter(prefix="/api/datasets", tags=["data"], route_class=AdminFirstRoute)
UPLOAD_PATH = f"{router.prefix}/uploads"

# The body is the CSV file as it is (not a form): the document says so for clients and the fuzzer.
UPLOAD_BODY = {
    "required": True,
    "description": f"A CSV file of sales lines, up to {UPLOAD_MAX_BYTES // 2**20} MB.",
    "content": {"text/csv": {"schema": {"type": "string", "format": "binary"}}},
}
FileName = Annotated[NulFree, Query(max_length=1000, description="The file's name, as the user knows it")]
VersionId = Annotated[str, Path(max_length=100, description="a version's id, as the versions list gives it")]
_VERSION_ID = re.compile(r"[A-Za-z0-9._-]{1,64}\Z")


@router.get("", summary="The active dataset's facts and its segment rules")
async def facts(actor: CurrentActor, services: ServicesDep) -> FactsOut:
    current = await asyncio.to_thread(services.datasets.facts)
    job = services.imports.current()
    return FactsOut.of(current, importing=job is not None and job.state == "running")


@router.patch("/settings", summary="Change the dataset's name, currency or segment rules (admins)")
async def change_settings(body: SettingsIn, admin: CurrentAdmin, services: ServicesDep) -> FactsOut:
    services.imports.refuse_while_running("change the settings")
    changes = body.changes()
    updated = await asyncio.to_thread(services.datasets.update_settings, admin.user.username, **changes)
    await _switched(services)
    await _audit(services, admin, "data_settings", changed=sorted(changes))
    return FactsOut.of(updated, importing=False)


@router.post(
    "/uploads",
    status_code=status.HTTP_201_CREATED,
    summary="Upload a CSV file of sales (admins): how it was read, and the suggested mapping",
    openapi_extra={"requestBody": UPLOAD_BODY},
    responses={
        413: {"description": "Larger than the limit (the body is cut off there)"},
        422: {"description": "Empty, binary, or not a CSV file with a header (one message)"},
    },
)
async def upload(
    request: Request,
    admin: CurrentAdmin,
    services: ServicesDep,
    name: FileName = "upload.csv",
) -> PreviewOut:
    received = await services.uploads.receive(request.stream(), owner_id=admin.user.id, name=name)
    remembered = await asyncio.to_thread(services.datasets.mapping_for, received.preview.source_key)
    mapping: dict[str, str] | None = None
    if remembered is not None:
        received, mapping = await asyncio.to_thread(_as_remembered, services.uploads, received, *remembered)
    await _audit(services, admin, "data_upload", source=received.name, bytes=received.size)
    return PreviewOut.of(received, mapping, await _columns(received))


@router.post(
    "/uploads/{upload_id}/read",
    summary="Read an upload again with another delimiter, number notation or date format (admins)",
    responses={
        422: {"description": "The file cannot be read that way (one message); the upload is unchanged"}
    },
)
async def reread_upload(
    upload_id: str, body: ReadIn, admin: CurrentAdmin, services: ServicesDep
) -> PreviewOut:
    received = services.uploads.get(upload_id, admin.user.id)
    fmt = body.format.csv_format()
    reread = await asyncio.to_thread(services.uploads.reread, received, fmt, body.date_column)
    return PreviewOut.of(reread, None, await _columns(reread))


async def _columns(upload: Upload) -> list[UploadColumn]:
    preview = upload.preview
    return await asyncio.to_thread(upload_columns, upload.path, preview.format, preview.date_formats)


@router.delete(
    "/uploads/{upload_id}", status_code=status.HTTP_204_NO_CONTENT, summary="Discard an upload (admins)"
)
async def discard_upload(upload_id: str, admin: CurrentAdmin, services: ServicesDep) -> Response:
    received = services.uploads.get(upload_id, admin.user.id)
    await asyncio.to_thread(services.uploads.discard, received)
    return Response(status_code=status.HTTP_204_NO_CONTENT)


@router.post(
    "/imports",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Import an upload with a confirmed mapping, in the background (admins)",
    responses={409: {"description": "Another import is running on this server"}},
)
async def start_import(body: ImportIn, admin: CurrentAdmin, services: ServicesDep) -> JobOut:
    received = services.uploads.get(body.upload_id, admin.user.id)
    mapping = checked_mapping(body.mapping, received.preview.header)
    fmt = body.format.csv_format()
    job = await asyncio.to_thread(
        services.imports.start, admin, received, mapping, fmt, body.mode, remember=body.remember
    )
    return JobOut.of(job)


@router.get("/imports/current", summary="The running import's progress, or the last one's outcome (admins)")
async def current_import(admin: CurrentAdmin, services: ServicesDep) -> JobStatusOut:
    job = services.imports.current()
    return JobStatusOut(job=JobOut.of(job) if job else None)


@router.post(
    "/imports/{job_id}/cancel",
    status_code=status.HTTP_202_ACCEPTED,
    summary="Cancel the running import; the active data stays as it was (admins)",
)
async def cancel_import(job_id: str, admin: CurrentAdmin, services: ServicesDep) -> JobOut:
    return JobOut.of(services.imports.cancel(admin, job_id))


@router.get("/versions", summary="The kept versions of the dataset, newest first")
async def versions(actor: CurrentActor, services: ServicesDep) -> VersionsOut:
    kept = await asyncio.to_thread(services.datasets.versions)
    return VersionsOut(items=[VersionOut.of(version) for version in kept])


@router.post("/versions/{version_id}/activate", summary="Make a kept version the active one (admins)")
async def restore(version_id: VersionId, admin: CurrentAdmin, services: ServicesDep) -> VersionOut:
    _check_version_id(version_id)
    services.imports.refuse_while_running("restore a version")
    version = await asyncio.to_thread(services.datasets.activate, version_id, admin.user.username)
    await _switched(services)
    await _audit(services, admin, "data_restore", version_id=version_id)
    return VersionOut.of(version)


@router.get(
    "/versions/{version_id}/skipped.csv",
    summary="The rows an import skipped, with their line numbers and reasons (admins)",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/csv": {}}}},
)
async def skipped_rows(
    version_id: VersionId, admin: CurrentAdmin, services: ServicesDep
) -> StreamingResponse:
    _check_version_id(version_id)
    path = await asyncio.to_thread(services.datasets.skipped_rows_path, version_id)
    if not await asyncio.to_thread(path.is_file):
        raise NotFoundError("No skipped rows are kept for this version.")
    # The uploaded file's cells, as the import kept them, with none left a spreadsheet would run
    # (docs/architecture.md#spreadsheet-cells); the file is read and escaped as it is sent.
    return StreamingResponse(
        _escaped(path),
        media_type="text/csv; charset=utf-8",
        headers={
            "Content-Disposition": f'attachment; filename="skipped-rows-{version_id}.csv"',
            "Cache-Control": "no-store",
        },
    )


def _escaped(path: pathlib.Path) -> Iterator[str]:
    """The CSV file at ``path``, its cells through :func:`spreadsheet.safe_cell` (run in a worker
    thread by Starlette, a thousand rows at a time)."""
    with path.open(newline="", encoding="utf-8") as handle:
        yield from safe_csv(handle)


async def _switched(services: Services) -> None:
    """The chats' next turn is on the new version's tools (docs/architecture.md#dataset-versions)."""
    if services.dataset_switch is not None:
        await services.dataset_switch.check()


async def _audit(services: Services, admin: Actor, action: AuditAction, **details: object) -> None:
    event = AuditEvent(
        action=action,
        user_id=admin.user.id,
        username=admin.user.username,
        client_addr=admin.client_addr,
        details=details,
    )
    await asyncio.to_thread(services.sessions.audit.record, event)


def _as_remembered(
    uploads: Uploads, upload: Upload, mapping: dict[str, str], fmt: CsvFormat
) -> tuple[Upload, dict[str, str] | None]:
    """The upload read with the format confirmed last time for its source (a delimiter the detection
    gets wrong splits the header otherwise), and that time's mapping; as detected, and no mapping,
    when that format no longer reads this file. The encoding is always this file's own, as detected:
    a source's next export may be written in another one (docs/architecture.md#the-data-page), and
    reading it in the last file's would silently store ``Cr�me`` or ``CrÃ¨me`` for ``Crème``."""
    fmt = dataclasses.replace(fmt, encoding=upload.preview.format.encoding)
    try:
        return uploads.reread(upload, fmt, mapping.get("invoiced_at")), mapping
    except InvalidInputError:
        return upload, None


def _check_version_id(version_id: str) -> None:
    """An id no version can have is an unknown one, answered before the store is asked, and it never
    reaches a file name (the skipped rows' file is named by the id)."""
    if not _VERSION_ID.match(version_id):
        raise NotFoundError("No such version.")
