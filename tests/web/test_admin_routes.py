"""Every admin-only route answers an analyst 403, audited, whatever the request holds
(docs/architecture.md#roles): the role is checked before the body is read, so a malformed body is
refused as the analyst's, not answered 422 unaudited. The routes are the app's own, found by their
dependency on ``current_admin``, so a new admin-only route is held to this without being listed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi.routing import APIRoute, iter_route_contexts

from agent_orchestrator.runtime import RuntimeSettings
from agent_orchestrator.sessions.store import AuditLog, make_engine
from agent_orchestrator.web.app import create_app
from agent_orchestrator.web.deps import ADMINS_ONLY, AdminFirstRoute, requires_admin

MALFORMED = b'{"name": "Mine", "mapping": {'  # cut off: no JSON parser reads it


def admin_routes(app: Any) -> list[tuple[str, str]]:
    """(method, path) of every route of ``app`` that needs an admin, with each path parameter "x"."""
    found = []
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and requires_admin(route.dependant):
            assert isinstance(route, AdminFirstRoute), f"{context.path} reads its body before the role check"
            path = re.sub(r"\{[^}]+\}", "x", context.path)
            found += [(method, path) for method in sorted(context.methods or ())]
    return found


def test_an_analyst_with_a_malformed_body_gets_403_audited_on_every_admin_route(
    start_app, tmp_path: Path
) -> None:
    live = start_app()
    runtime = RuntimeSettings(data_dir=tmp_path, provider_base_url="http://127.0.0.1:9", model="m")
    routes = admin_routes(create_app(live.web, runtime))  # the same factory's routes, not started
    assert (
        len(routes) >= 10
        and ("PUT", "/api/datasets/model") in routes
        and (
            "GET",
            "/api/admin/feedback",
        )
        in routes
    )

    bob = live.client("bob")  # an analyst
    for method, path in routes:
        refused = bob.request(method, path, content=MALFORMED, headers={"Content-Type": "application/json"})
        assert (refused.status_code, refused.json()) == (403, {"detail": ADMINS_ONLY}), (method, path)

    engine = make_engine(live.web.database_url)
    try:
        audited = [
            (event.details["method"], event.details["path"], event.username)
            for event in reversed(AuditLog(engine).recent(limit=1000))
            if event.action == "forbidden"
        ]
    finally:
        engine.dispose()
    assert audited == [(method, path, "bob") for method, path in routes]

    # An admin's malformed body is still the validation error it always was.
    alice = live.client("alice")
    bad = alice.patch(
        "/api/datasets/settings", content=MALFORMED, headers={"Content-Type": "application/json"}
    )
    assert bad.status_code == 422 and bad.json()["detail"][0]["type"] == "json_invalid"
    # Without a login the answer is 401, as on every route, and nothing is audited as forbidden.
    anonymous = live.client()
    assert anonymous.put("/api/datasets/model", content=MALFORMED).status_code == 401
