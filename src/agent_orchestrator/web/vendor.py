"""Chart.js, the UI's one third-party script, served from our own origin.

It is an npm package pinned in ``package-lock.json`` and installed by ``npm ci`` with the Copilot CLI,
so it is served straight out of ``node_modules``: no CDN (the CSP is ``script-src 'self'``), no copy in
the repository, no build step. Chart.js draws on a canvas and sets sizes through the CSSOM, which
``style-src 'self'`` allows (docs/architecture.md#charts). Without it the pages still show every
chart's table.
"""

from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, HTTPException, status
from fastapi.responses import FileResponse

from agent_orchestrator.runtime.cli_path import INSTALL_HINT, project_roots

CHART_JS = Path("node_modules", "chart.js", "dist", "chart.umd.min.js")

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
