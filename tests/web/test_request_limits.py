"""Request bodies are counted as they arrive and cut at the route's own limit, declared or not
(docs/architecture.md#web): a chunked body to the login is refused without being buffered, while an
import may be the 16 MB it is documented to take, and is parsed off the event loop."""

import asyncio
import json
from collections.abc import Iterator

import httpx
import pytest
from chat_helpers import answer

from agent_orchestrator.sessions.actions import exchange
from agent_orchestrator.web.guard import MAX_BODY_BYTES, too_large
from agent_orchestrator.web.routes.exchange import IMPORT_MAX_BYTES

CHUNK = 64 * 1024


class Chunks:
    """A request body of ``total`` bytes sent in chunks (``Transfer-Encoding: chunked``, no length),
    counting how much of it the client got to send."""

    def __init__(self, total: int, prefix: bytes = b"") -> None:
        self.total, self.prefix, self.sent = total, prefix, 0

    def __iter__(self) -> Iterator[bytes]:
        yield self.prefix
        self.sent = len(self.prefix)
        while self.sent < self.total:
            chunk = b" " * min(CHUNK, self.total - self.sent)
            self.sent += len(chunk)
            yield chunk


def test_a_chunked_body_past_the_limit_is_cut_off_while_it_arrives(start_app) -> None:
    app = start_app()
    body = Chunks(64 * 1024 * 1024, prefix=b'{"username": "alice", "password": "')
    with httpx.Client(base_url=app.url, timeout=60) as client:
        response = client.post("/api/auth/login", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json() == {"detail": "Request body too large: at most 256 KB here."}
    # The server stopped reading after the limit and closed the connection: most of it never left.
    assert body.sent < 16 * 1024 * 1024
    with httpx.Client(base_url=app.url, timeout=60) as client:
        declared = client.post("/api/auth/login", content=b" " * (MAX_BODY_BYTES + 1))
    assert (declared.status_code, declared.json()) == (413, {"detail": too_large(MAX_BODY_BYTES)})


def test_an_export_of_a_few_megabytes_reimports_and_an_import_past_16_mb_is_refused(start_app) -> None:
    alice = start_app().client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert answer(alice, session_id, "fact one: apple")
    document = alice.get(f"/api/sessions/{session_id}/export").json()
    document["transcript"] *= 2 * 1024 * 1024 // len(json.dumps(document["transcript"])) + 1  # a long chat
    data = json.dumps(document).encode()
    assert len(data) > 2 * 1024 * 1024
    imported = alice.post("/api/sessions/import", content=data, headers={"Content-Type": "application/json"})
    assert imported.status_code == 201, imported.text

    too_big = alice.post("/api/sessions/import", content=Chunks(IMPORT_MAX_BYTES + 1))
    assert too_big.status_code == 413
    assert too_big.json() == {"detail": "Request body too large: at most 16 MB here."}


def test_an_import_is_parsed_off_the_event_loop(start_app, monkeypatch: pytest.MonkeyPatch) -> None:
    """A 16 MB file takes the parser a while; the server's other requests must not wait for it."""
    parse, on_loop = exchange.parse_import, []

    def parse_and_note(data: bytes) -> list[exchange.Conversation]:
        try:
            asyncio.get_running_loop()
            on_loop.append(True)
        except RuntimeError:
            on_loop.append(False)
        return parse(data)

    monkeypatch.setattr(exchange, "parse_import", parse_and_note)
    alice = start_app().client("alice")
    refused = alice.post("/api/sessions/import", content=b"[]", headers={"Content-Type": "application/json"})
    assert refused.status_code == 422
    assert on_loop == [False]
