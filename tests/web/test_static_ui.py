"""The UI's files as a browser gets them: ES modules served as JavaScript, under the unchanged CSP."""

import re
from pathlib import Path, PurePosixPath

from fastapi.testclient import TestClient

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.settings import WebSettings
from agent_orchestrator.web.app import STATIC_DIR, create_app
from agent_orchestrator.web.guard import SECURITY_HEADERS

# Browsers refuse a module script served with any other type (X-Content-Type-Options is nosniff).
JAVASCRIPT_TYPES = {"text/javascript", "application/javascript"}
IMPORT = re.compile(r'^import .+? from "(\./[\w-]+\.js)";$', re.MULTILINE | re.DOTALL)


def test_every_ui_module_is_reached_from_an_entry_point_and_served_as_javascript(tmp_path: Path) -> None:
    # Without the lifespan nothing starts (no database, no Copilot CLI): only the routes and static files.
    web = WebSettings(data_dir=tmp_path, database_url=f"sqlite:///{tmp_path / 'catalog.sqlite'}")
    # A Host the app answers (TestClient says "testserver"): docs/architecture.md#host-names.
    client = TestClient(create_app(web, RuntimeSettings(data_dir=tmp_path)), base_url="http://127.0.0.1")
    page = client.get("/")
    assert page.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    entry = re.findall(r"<script\b[^>]*>", page.text)
    # The chart library (npm chart.js, from our own origin) and one module; nothing inline.
    assert entry == [
        '<script defer src="/vendor/chart.umd.min.js">',
        '<script type="module" src="/static/js/main.js">',
    ]
    chart_js = client.get("/vendor/chart.umd.min.js")
    assert chart_js.status_code == 200
    assert chart_js.headers["content-type"].split(";")[0] in JAVASCRIPT_TYPES
    assert chart_js.text.startswith("/*!\n * Chart.js v4.")

    # The page a share link opens: the same library and its own module (routes/sharing.py).
    shared = client.get("/share/" + "x" * 43)
    assert shared.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
    assert re.findall(r"<script\b[^>]*>", shared.text) == [
        '<script defer src="/vendor/chart.umd.min.js">',
        '<script type="module" src="/static/js/share-view.js">',
    ]

    seen: set[str] = set()
    pending = ["/static/js/main.js", "/static/js/share-view.js"]
    while pending:
        path = pending.pop()
        if path in seen:
            continue
        seen.add(path)
        response = client.get(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"].split(";")[0] in JAVASCRIPT_TYPES, path
        assert response.headers["content-security-policy"] == SECURITY_HEADERS["Content-Security-Policy"]
        folder = PurePosixPath(path).parent
        pending += [str(folder / name.removeprefix("./")) for name in IMPORT.findall(response.text)]

    # Every module on disk is loaded: none is left behind unused.
    assert seen == {f"/static/js/{file.name}" for file in (STATIC_DIR / "js").glob("*.js")}
