"""The OpenAI-compatible endpoint with the official ``openai`` package (docs/architecture.md#openai-
compatible-api): it continues a chat the browser started, streams as OpenAI's chunks, counts usage as
the browser's turns do, and the browser's live feed hears the turn."""

import httpx
import openai
import pytest
from live_feed import Feed
from test_api_tokens import make_token

from agent_orchestrator.testing.scripted_model import Text, user_messages


def test_the_openai_client_continues_a_chat_the_browser_started(live_app) -> None:
    model = live_app.model
    browser = live_app.client("alice")
    chat_id = browser.post("/api/sessions", json={"title": "Started in the browser"}).json()["id"]
    model.script(Text("Noted: apples."))
    assert (
        "event: done"
        in browser.post(f"/api/sessions/{chat_id}/messages", json={"content": "I like apples"}).text
    )
    client = openai.OpenAI(base_url=f"{live_app.url}/v1", api_key=make_token(browser, "notebook", "chat"))
    assert [m.id for m in client.models.list()] == ["agent-orchestrator"]

    feed = Feed(browser, f"/api/sessions/{chat_id}/events")
    try:
        model.script(Text("You like apples."))
        reply = client.chat.completions.create(
            model="agent-orchestrator",
            messages=[{"role": "user", "content": "What do I like?"}],
            extra_headers={"X-Session-Id": chat_id},
        )
        heard = feed.take_until("done")
    finally:
        feed.close()
    assert reply.choices[0].message.content == "You like apples."
    assert reply.choices[0].finish_reason == "stop"
    assert reply.usage is not None and reply.usage.total_tokens > 0
    assert heard[-1].data["content"] == "You like apples."
    assert len(user_messages(model.requests[-1])) == 2, "the model saw the browser's turn too"
    transcript = browser.get(f"/api/sessions/{chat_id}/messages").json()["messages"]
    assert [m["content"] for m in transcript][-2:] == ["What do I like?", "You like apples."]


def test_a_new_session_is_made_and_named_and_a_stream_is_openais_chunks(live_app) -> None:
    browser = live_app.client("alice")
    client = openai.OpenAI(base_url=f"{live_app.url}/v1", api_key=make_token(browser, "cli", "chat"))
    live_app.model.script(Text("First answer, streamed."))
    raw = client.chat.completions.with_raw_response.create(
        model="anything", messages=[{"role": "user", "content": "Start something"}]
    )
    session_id = raw.headers["x-session-id"]
    assert raw.parse().choices[0].message.content == "First answer, streamed."
    assert session_id in [s["id"] for s in browser.get("/api/sessions").json()["items"]]

    live_app.model.script(Text("Second answer, in pieces."))
    stream = client.chat.completions.create(
        model="agent-orchestrator",
        messages=[{"role": "user", "content": "And again"}],
        stream=True,
        stream_options={"include_usage": True},
        extra_headers={"X-Session-Id": session_id},
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == "Second answer, in pieces."
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].usage is not None and chunks[-1].usage.total_tokens > 0


def test_refusals_are_one_clear_error(live_app) -> None:
    browser = live_app.client("alice")
    reader = openai.OpenAI(base_url=f"{live_app.url}/v1", api_key=make_token(browser, "ro", "read"))
    with pytest.raises(openai.PermissionDeniedError):
        reader.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    writer = openai.OpenAI(base_url=f"{live_app.url}/v1", api_key=make_token(browser, "rw", "chat"))
    with pytest.raises(openai.NotFoundError):
        writer.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "hi"}],
            extra_headers={"X-Session-Id": "nope-123"},
        )
    with pytest.raises(openai.AuthenticationError):
        openai.OpenAI(base_url=f"{live_app.url}/v1", api_key="sk-not-ours").models.list()
    empty = httpx.post(
        f"{live_app.url}/v1/chat/completions",
        headers={"Authorization": f"Bearer {writer.api_key}"},
        json={"model": "m", "messages": [{"role": "system", "content": "be brief"}]},
    )
    assert (empty.status_code, empty.json()["detail"]) == (422, "No user message to answer.")


def test_the_openai_api_is_never_cached(live_app) -> None:
    token = make_token(live_app.client("alice"), "cache", "read")
    models = httpx.get(f"{live_app.url}/v1/models", headers={"Authorization": f"Bearer {token}"})
    assert models.status_code == 200 and models.headers["cache-control"] == "no-store"
