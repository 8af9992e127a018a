"""The one table from our errors to HTTP answers, through the app's one handler."""

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from agent_orchestrator import errors
from agent_orchestrator.web.errors import install_error_handler


def _answer(error: Exception) -> tuple[int, dict[str, str]]:
    app = FastAPI()
    install_error_handler(app)

    @app.get("/fail")
    async def fail() -> None:
        raise error

    response = TestClient(app, raise_server_exceptions=False).get("/fail")
    return response.status_code, response.json()


@pytest.mark.parametrize(
    ("error", "status", "detail"),
    [
        (
            errors.InvalidInputError("Titles have 1 to 120 characters."),
            422,
            "Titles have 1 to 120 characters.",
        ),
        (errors.SessionNotFoundError("No stored session has the id x-1."), 404, "No such session."),
        (errors.NotFoundError("No user has the id 7."), 404, "No user has the id 7."),
        (
            errors.SessionExistsError("Session x-1 already exists."),
            409,
            "A session with this id already exists.",
        ),
        (errors.AlreadyExistsError("The username ann is taken."), 409, "The username ann is taken."),
        (errors.SessionBusyError("Busy; try again."), 409, "Busy; try again."),
        (errors.EmptyDatasetError("no purchases yet"), 409, "no purchases yet"),
        (errors.TurnTimeoutError("No answer\nwithin 60 s."), 503, "No answer within 60 s."),
        (
            errors.RetailDatabaseError("/srv/data/retail.sqlite is missing"),
            503,
            "retail database unavailable",
        ),
        (errors.SessionFileStoreError(5, "store down at db.internal"), 500, "Internal Server Error"),
    ],
)
def test_each_error_gets_its_status_and_a_detail_fit_for_clients(
    error: Exception, status: int, detail: str
) -> None:
    assert _answer(error) == (status, {"detail": detail})
