"""The data import as a background job: one at a time per server, its progress readable while it
runs, its outcome kept until the next one (docs/architecture.md#the-data-page).

``DatasetLibrary.import_csv`` blocks for as long as the file takes (seconds for the real Online
Retail file), so it runs in a thread of its own, never in a request: the admin's page polls the job,
and the chats go on meanwhile (readers keep the version that is active until the import switches to
its own, atomically). A second import while one runs is refused (``409``), since two would race to
switch. Each job is audited when it starts and when it ends, whichever way it ends: finished (and
its version made active, ``data_switch``), failed, or cancelled. The upload's file is deleted once its
import is over; the skipped rows' file is the library's to keep.

A job killed with its server (a crash, ``kill -9``, a power cut) cannot say so itself: the running job
is written down in the server's data directory (``import-job.json``) until it ends, and a server that
starts and finds it there records that job as failed, "interrupted by a server restart", in the
audit log and as the last job the Data page shows (docs/architecture.md#crash-safety-and-restart-recovery).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from agent_orchestrator.errors import DatasetChangedError, ImportBusyError, InvalidInputError, NotFoundError
from agent_orchestrator.retail.datasets import CsvFormat, DatasetLibrary, ImportProgress, ImportReport
from agent_orchestrator.sessions import Actor
from agent_orchestrator.sessions.store import AuditAction, AuditEvent, AuditLog
from agent_orchestrator.web.uploads import Upload, Uploads

logger = logging.getLogger(__name__)

JobState = Literal["running", "finished", "failed", "cancelled"]
Mode = Literal["replace", "append"]
# How long a server that is stopping waits for its import to notice the cancel.
_STOP_SECONDS = 30.0
_FAILED = "The import failed; the active data is unchanged."
INTERRUPTED = "The import was interrupted by a server restart; the active data is unchanged."
_INTERRUPTED_AFTER_SWITCH = (
    "The import was interrupted by a server restart just after its data was made active; its report is lost."
)
_ENDS = frozenset({"data_import_done", "data_import_failed", "data_import_cancel"})


@dataclass(frozen=True)
class ImportJob:
    """One import as its page shows it: a snapshot, replaced (never changed) as the job moves on."""

    id: str
    state: JobState
    mode: Mode
    source_name: str
    started_by: str
    started_at: float
    progress: ImportProgress | None = None
    report: ImportReport | None = None
    error: str | None = None
    ended_at: float | None = None


@dataclass
class _Running:
    job: ImportJob
    cancel: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None


class ImportJobs:
    """Starts imports in a thread, one at a time, and keeps the latest job's snapshot."""

    def __init__(
        self, library: DatasetLibrary, audit: AuditLog, uploads: Uploads, *, state_file: Path | None = None
    ) -> None:
        """``state_file``: where the running job is written down until it ends (the server's own data
        directory); one found there at start was interrupted, and is recorded as failed now."""
        self._library = library
        self._audit = audit
        self._uploads = uploads
        self._lock = threading.Lock()
        self._latest: _Running | None = None
        self._state_file = state_file
        if state_file is not None:
            try:
                self._recover(state_file)
            except Exception:  # the store unreachable, say: the server starts, the next start tries again
                logger.error("the interrupted import could not be recorded", exc_info=True)

    def refuse_while_running(self, what: str) -> None:
        """``ImportBusyError`` while an import runs: a restore or a settings change now would be
        undone by the import's switch (or wait for it), so it is refused instead."""
        job = self.current()
        if job is not None and job.state == "running":
            raise ImportBusyError(f"An import is running; {what} once it has ended.")

    def current(self) -> ImportJob | None:
        """The running job, or else the last one (with its report or error); ``None`` before any."""
        with self._lock:
            return self._latest.job if self._latest else None

    def start(
        self,
        actor: Actor,
        upload: Upload,
        mapping: Mapping[str, str],
        fmt: CsvFormat,
        mode: Mode,
        *,
        remember: bool = True,
    ) -> ImportJob:
        """Start importing ``upload``; ``ImportBusyError`` while another import runs. With
        ``remember``, a successful import's mapping and format are kept for the upload's source, to
        pre-fill its next file (not before: a mapping that failed is not worth suggesting)."""
        job = ImportJob(
            id=secrets.token_urlsafe(9),
            state="running",
            mode=mode,
            source_name=upload.name,
            started_by=actor.user.username,
            started_at=time.time(),
        )
        with self._lock:
            if self._latest is not None and self._latest.job.state == "running":
                raise ImportBusyError("An import is already running; wait for it to end or cancel it.")
            running = self._latest = _Running(job)
        self._record(actor, "data_import_start", job, mapping=dict(mapping), bytes=upload.size)
        self._write_down(job, actor)
        running.thread = threading.Thread(
            target=self._run,
            args=(running, actor, upload, dict(mapping), fmt, remember),
            name="data-import",
            daemon=True,
        )
        running.thread.start()
        return job

    def cancel(self, actor: Actor, job_id: str) -> ImportJob:
        """Ask the running job to stop (it ends ``cancelled``, with nothing changed); the job as it
        stands. ``NotFoundError`` for an unknown job; a job that has ended is returned as it is."""
        with self._lock:
            running = self._latest
        if running is None or running.job.id != job_id:
            raise NotFoundError("No such import.")
        running.cancel.set()
        return running.job

    def stop(self) -> None:
        """On shutdown: cancel the running import and wait a while for it to end."""
        with self._lock:
            running = self._latest
        if running is not None and running.thread is not None:
            running.cancel.set()
            running.thread.join(_STOP_SECONDS)

    def _run(
        self,
        running: _Running,
        actor: Actor,
        upload: Upload,
        mapping: dict[str, str],
        fmt: CsvFormat,
        remember: bool,
    ) -> None:
        job = running.job
        ended: dict[str, Any]
        try:
            report = self._library.import_csv(
                upload.path,
                mapping,
                fmt,
                mode=job.mode,
                actor=actor.user.username,
                source_name=upload.name,
                progress=lambda progress: self._progressed(running, progress),
                cancel=running.cancel,
            )
        except Exception as error:
            cancelled = running.cancel.is_set()
            told = isinstance(error, (InvalidInputError, DatasetChangedError))  # the user's to know
            if not cancelled and not told:
                logger.error("data import %s failed", job.id, exc_info=error)
            message = " ".join(str(error).split()) if told else _FAILED
            ended = {"state": "cancelled"} if cancelled else {"state": "failed", "error": message}
            audited: list[tuple[AuditAction, dict[str, Any]]] = [
                ("data_import_cancel" if cancelled else "data_import_failed", {})
            ]
        else:
            ended = {"state": "finished", "report": report}
            audited = [
                ("data_import_done", {"imported": report.imported, "skipped": report.skipped}),
                ("data_switch", {"version_id": report.version_id}),
            ]
            if remember:
                self._remember(upload, mapping, fmt)
        try:
            self._uploads.discard(upload)
            for action, details in audited:
                self._record(actor, action, job, **details)
            self._cross_out()  # after its end is audited: a crash before then is an interruption
        finally:
            # Published last: whoever sees the job ended finds its audit lines written, its mapping
            # remembered for the next file of the source and its upload gone.
            self._update(running, **ended)

    def _write_down(self, job: ImportJob, actor: Actor) -> None:
        """Note the running job on disk (a new file renamed into place: never half written)."""
        if self._state_file is None:
            return
        user = actor.user
        state = {
            "job": {"id": job.id, "mode": job.mode, "source_name": job.source_name},
            "started_by": job.started_by,
            "started_at": job.started_at,
            "actor": {"user_id": user.id, "username": user.username, "client_addr": actor.client_addr},
        }
        partial = self._state_file.with_name(f".{self._state_file.name}.{os.getpid()}")
        try:
            with open(os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as handle:
                json.dump(state, handle)
            os.replace(partial, self._state_file)
        except OSError:  # the import itself can still run; only a crash would go unreported
            logger.warning("the running import could not be written down", exc_info=True)

    def _cross_out(self) -> None:
        if self._state_file is not None:
            self._state_file.unlink(missing_ok=True)

    def _recover(self, state_file: Path) -> None:
        """At start: a job still written down was running when its server died. Unless its end made it
        to the audit log, record it as failed, and keep it as the last job (what the Data page shows)."""
        try:
            state = json.loads(state_file.read_text())
            job = ImportJob(
                id=str(state["job"]["id"]),
                state="failed",
                mode=state["job"]["mode"],
                source_name=str(state["job"]["source_name"]),
                started_by=str(state["started_by"]),
                started_at=float(state["started_at"]),
                ended_at=time.time(),
            )
            who = state["actor"]
            user_id, username, client_addr = int(who["user_id"]), str(who["username"]), who["client_addr"]
        except FileNotFoundError:
            return
        except (OSError, ValueError, KeyError, TypeError):
            logger.warning("the interrupted import's record %s is unreadable; it is dropped", state_file)
            state_file.unlink(missing_ok=True)
            return
        ended = any(
            event.action in _ENDS and event.details.get("job") == job.id
            for event in self._audit.recent(user_id=user_id, limit=200)
        )
        if not ended:
            switched = any(
                version.source_name == job.source_name
                and version.created_by == job.started_by
                and version.created_at.timestamp() >= job.started_at
                for version in self._library.versions()
            )
            job = replace(job, error=_INTERRUPTED_AFTER_SWITCH if switched else INTERRUPTED)
            self._audit.record(
                AuditEvent(
                    action="data_import_failed",
                    user_id=user_id,
                    username=username,
                    client_addr=client_addr,
                    details={
                        "job": job.id,
                        "source": job.source_name,
                        "mode": job.mode,
                        "reason": "interrupted by a server restart",
                    },
                )
            )
            self._latest = _Running(job)
        with contextlib.suppress(OSError):
            state_file.unlink()

    def _remember(self, upload: Upload, mapping: dict[str, str], fmt: CsvFormat) -> None:
        """Keep the mapping for the source; failing to is no reason to fail the import itself."""
        try:
            self._library.remember_mapping(upload.preview.source_key, mapping, fmt)
        except Exception:
            logger.warning("the mapping of %s was not remembered", upload.name, exc_info=True)

    def _progressed(self, running: _Running, progress: ImportProgress) -> None:
        """The library's progress callback: the job's figures follow the import."""
        self._update(running, progress=progress)

    def _update(self, running: _Running, **changes: Any) -> ImportJob:
        with self._lock:
            if "state" in changes:
                changes["ended_at"] = time.time()
            running.job = replace(running.job, **changes)
            return running.job

    def _record(self, actor: Actor, action: AuditAction, job: ImportJob, **details: Any) -> None:
        self._audit.record(
            AuditEvent(
                action=action,
                user_id=actor.user.id,
                username=actor.user.username,
                client_addr=actor.client_addr,
                details={"job": job.id, "source": job.source_name, "mode": job.mode, **details},
            )
        )
