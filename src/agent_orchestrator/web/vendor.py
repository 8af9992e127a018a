"""Chart.js, the UI's one third-party script, and Swagger UI, the API docs page's, served from our
own origin.

It is an npm package pinned in ``package-lock.json`` and installed by ``npm ci`` with the Copilot CLI,
so it is served straight out of ``node_modules``: no CDN (the CSP is ``script-src 'self'``), no copy in
the repository, no build step. Chart.js draws on a canvas and sets sizes through the CSSOM, which
``style-src 'self'`` allows (docs/architecture.md#charts). Without it the pages still show every
chart's table. Swagger UI (npm ``swagger-ui-dist``, pinned the same way) draws ``/docs``: its
bundle and stylesheet are served from ``node_modules`` too, and ``/docs`` is our own page
(``static/api-docs.html``), started by ``static/api-docs.js`` rather than FastAPI's page, whose
assets come from a CDN and whose inline script the CSP refuses (docs/architecture.md#api-docs).
"""

from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import FileResponse

from agent_orchestrator.runtime.cli_path import INSTALL_HINT, project_roots
from agent_orchestrator.web import STATIC_DIR

CHART_JS = Path("node_modules", "chart.js", "dist", "chart.umd.min.js")
SWAGGER_UI = Path("node_modules", "swagger-ui-dist")
SWAGGER_FILES = {"swagger-ui-bundle.js": "text/javascript", "swagger-ui.css": "text/css"}

router = APIRouter(include_in_schema=False)


@lru_cache(maxsize=1)
def chart_js_path() -> Path | None:
    """The installed bundle (the UMD build: one classic script, no imports to resolve)."""
    return next((root / CHART_JS for root in project_roots(Path.cwd()) if (root / CHART_JS).is_file()), None)


@router.get("/vendor/chart.umd.min.js")
async def chart_js() -> FileResponse:
    path = chart_js_path()
    if path is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"Chart.js is not installed; run `{INSTALL_HINT}`.")
    return FileResponse(path, media_type="text/javascript")


@lru_cache(maxsize=1)
def swagger_ui_dir() -> Path | None:
    """The installed Swagger UI distribution (its prebuilt bundle: one classic script, one stylesheet)."""
    return next(
        (
            root / SWAGGER_UI
            for root in project_roots(Path.cwd())
            if (root / SWAGGER_UI / "package.json").is_file()
        ),
        None,
    )


@router.get("/vendor/swagger-ui/{name}")
async def swagger_ui(name: str) -> FileResponse:
    folder = swagger_ui_dir()
    if name not in SWAGGER_FILES:
        raise HTTPException(status.HTTP_404_NOT_FOUND, "Not Found")
    if folder is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, f"Swagger UI is not installed; run `{INSTALL_HINT}`.")
    return FileResponse(folder / name, media_type=SWAGGER_FILES[name])


@router.get("/docs")
async def api_docs() -> FileResponse:
    """The API's interactive docs, drawn from ``/openapi.json`` by Swagger UI from our own origin."""
    return FileResponse(STATIC_DIR / "api-docs.html")
