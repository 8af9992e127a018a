"""``/docs`` works offline and under the CSP (docs/architecture.md#api-docs): the page names only
scripts and styles of its own origin, nothing inline, and each is served."""

import re
from pathlib import Path

from fastapi.testclient import TestClient

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.web.app import create_app
from agent_orchestrator.web.guard import SECURITY_HEADERS

ASSET = re.compile(r'<(?:script|link)\b[^>]*?\b(?:src|href)="([^"]*)"')


def test_the_api_docs_need_nothing_from_another_origin(tmp_path: Path) -> None:
    # Without the lifespan nothing starts: only the routes and static files.
    web = WebSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    client = TestClient(create_app(web, RuntimeSettings(data_dir=tmp_path)), base_url="http://127.0.0.1")
    page = client.get("/docs")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert page.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    assets = ASSET.findall(page.text)
    assert set(assets) >= {"/vendor/swagger-ui/swagger-ui-bundle.js", "/vendor/swagger-ui/swagger-ui.css"}
    for asset in assets:
        if asset.startswith("data:"):  # the empty icon; the CSP allows data: images
            continue
        assert asset.startswith("/") and not asset.startswith("//"), asset  # same origin, as 'self' wants
        served = client.get(asset)
        assert served.status_code == 200, asset
        kind = served.headers["content-type"].split(";")[0]
        assert kind == ("text/css" if asset.endswith(".css") else "text/javascript"), asset
    scripts = re.findall(r"<script\b[^>]*>(.*?)</script>", page.text, re.DOTALL)
    assert scripts and all(not body.strip() for body in scripts)  # nothing inline
    assert client.get("/vendor/swagger-ui/swagger-ui-bundle.js").text.count("SwaggerUIBundle") > 0
    assert client.get("/vendor/swagger-ui/package.json").status_code == 404  # only the two files
    assert client.get("/redoc").status_code == 404  # FastAPI's CDN page is gone
    assert client.get("/openapi.json").json()["info"]["title"] == "AgentOrchestrator"
