"""How the API answers our errors: one table from error class to HTTP status and detail, one handler.

Routes raise the domain errors of :mod:`agent_orchestrator.errors` and never translate them; the
handler answers ``{"detail": ...}`` with the entry of the error's nearest class in :data:`ANSWERS`.
An entry's fixed detail replaces the error's own message where that message must not reach the client:
an unknown session and another user's must answer identically, and a server path is logged, not sent.
"""

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi import FastAPI, Request, status
from fastapi.responses import JSONResponse

from agent_orchestrator.errors import (
    AgentOrchestratorError,
    AlreadyExistsError,
    DatasetChangedError,
    EmptyDatasetError,
    ImportBusyError,
    InvalidInputError,
    NotFoundError,
    NothingToStopError,
    RetailDatabaseError,
    RuntimeFailure,
    SessionBusyError,
    SessionExistsError,
    SessionNotFoundError,
    SignInRequiredError,
    StaleSessionError,
    TooManyRequestsError,
)
from agent_orchestrator.telemetry import BUSY_REFUSALS
from agent_orchestrator.web.markdown import render_markdown

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Answer:
    """The HTTP status for a class of errors, the detail sent (``None``: the error's message), and
    what else the body says (``extra``), for an error that carries what the client needs next."""

    status: int
    detail: str | None = None
    extra: Callable[[Any], dict[str, Any]] | None = None
    retry_after: int | None = None
    """Seconds after which the same request may well succeed (``Retry-After``), for a refusal that
    says "not now" rather than "no": a busy chat, a runtime that is briefly unavailable."""


def _missed(error: StaleSessionError) -> dict[str, Any]:
    """A stale sender's 409: the messages it missed (answers also as safe HTML) and where it is now."""
    missed = error.missed
    if missed is not None:
        missed = [
            {**m, "html": render_markdown(str(m["content"]))} if m["role"] == "assistant" else m
            for m in missed
        ]
    return {"missed": missed, "last_event_id": error.last_event_id}


ANSWERS: dict[type[AgentOrchestratorError], Answer] = {
    InvalidInputError: Answer(status.HTTP_422_UNPROCESSABLE_CONTENT),
    NotFoundError: Answer(status.HTTP_404_NOT_FOUND),
    SessionNotFoundError: Answer(status.HTTP_404_NOT_FOUND, "No such session."),
    AlreadyExistsError: Answer(status.HTTP_409_CONFLICT),
    SessionExistsError: Answer(status.HTTP_409_CONFLICT, "A session with this id already exists."),
    SessionBusyError: Answer(status.HTTP_409_CONFLICT, retry_after=2),
    NothingToStopError: Answer(status.HTTP_409_CONFLICT),
    SignInRequiredError: Answer(status.HTTP_401_UNAUTHORIZED),
    StaleSessionError: Answer(status.HTTP_409_CONFLICT, extra=_missed),
    EmptyDatasetError: Answer(status.HTTP_409_CONFLICT),
    ImportBusyError: Answer(status.HTTP_409_CONFLICT),
    DatasetChangedError: Answer(status.HTTP_409_CONFLICT),
    TooManyRequestsError: Answer(status.HTTP_429_TOO_MANY_REQUESTS),
    RuntimeFailure: Answer(status.HTTP_503_SERVICE_UNAVAILABLE, retry_after=5),
    RetailDatabaseError: Answer(status.HTTP_503_SERVICE_UNAVAILABLE, "retail database unavailable"),
    # Anything else of ours (the shared file store failing, say) is a server fault: logged, not detailed.
    AgentOrchestratorError: Answer(status.HTTP_500_INTERNAL_SERVER_ERROR, "Internal Server Error"),
}


def answer_for(error: AgentOrchestratorError) -> Answer:
    """The entry of the error's nearest class in :data:`ANSWERS` (the root's, at worst)."""
    return next(ANSWERS[cls] for cls in type(error).__mro__ if cls in ANSWERS)


def install_error_handler(app: FastAPI) -> None:
    """Make ``app`` answer every error of ours through :data:`ANSWERS`, and any other exception with a
    plain 500 that closes the connection."""

    @app.exception_handler(Exception)
    async def answer_fault(request: Request, error: Exception) -> JSONResponse:
        # The server logs it with its traceback and then closes the connection (the exception goes on
        # up to it): saying so keeps a client from sending its next request down a connection being
        # closed, which fails with a reset instead of an answer.
        return JSONResponse(
            {"detail": "Internal Server Error"},
            status_code=status.HTTP_500_INTERNAL_SERVER_ERROR,
            headers={"Connection": "close"},
        )

    @app.exception_handler(AgentOrchestratorError)
    async def answer_error(request: Request, error: AgentOrchestratorError) -> JSONResponse:
        answer = answer_for(error)
        if isinstance(error, SessionBusyError):
            BUSY_REFUSALS.inc()
        message = " ".join(str(error).split())
        if answer.status == status.HTTP_500_INTERNAL_SERVER_ERROR:
            logger.error("%s %s failed", request.method, request.url.path, exc_info=error)
        elif answer.status > status.HTTP_500_INTERNAL_SERVER_ERROR:  # the log keeps what a fixed detail hides
            logger.warning("%s %s: %s", request.method, request.url.path, message)
        extra = answer.extra(error) if answer.extra else {}
        retry_after = error.retry_after if isinstance(error, TooManyRequestsError) else answer.retry_after
        headers = None if retry_after is None else {"Retry-After": str(retry_after)}
        return JSONResponse(
            {"detail": answer.detail or message, **extra}, status_code=answer.status, headers=headers
        )
