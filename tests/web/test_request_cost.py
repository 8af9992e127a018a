"""What every request pays for in the app's wiring (docs/architecture.md#performance-budgets)."""

from pathlib import Path

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.web.app import create_app


def test_no_dependency_is_overridden_so_fastapi_does_not_analyse_each_request_again(tmp_path: Path) -> None:
    # While any override is set, FastAPI rebuilds every dependency of every request from its signature:
    # it cost each chat message about a millisecond of the server's CPU. The app's own wiring goes
    # through its state instead (the retail database's path).
    web = WebSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    app = create_app(web, RuntimeSettings(data_dir=tmp_path))
    assert app.dependency_overrides == {}
    assert app.state.retail_db == web.retail_db
