"""The scripted model server, exercised over real HTTP with httpx."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from agent_orchestrator.testing.scripted_model import (
    Failure,
    ScriptedModel,
    Text,
    ToolCall,
    ToolCalls,
    recall_rule,
)


@pytest.fixture
def model() -> Iterator[ScriptedModel]:
    with ScriptedModel() as running:
        yield running


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def chat(model: ScriptedModel, *messages: dict[str, Any], **extra: Any) -> httpx.Response:
    body = {"model": "scripted-model", "messages": list(messages) or [user("hi")], **extra}
    return httpx.post(f"{model.base_url}/chat/completions", json=body, timeout=10)


def stream_chunks(model: ScriptedModel, *messages: dict[str, Any], **extra: Any) -> list[dict[str, Any]]:
    body = {"model": "scripted-model", "messages": list(messages) or [user("hi")], "stream": True, **extra}
    with httpx.stream("POST", f"{model.base_url}/chat/completions", json=body, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        data = [line.removeprefix("data: ") for line in response.iter_lines() if line.startswith("data: ")]
    assert data[-1] == "[DONE]"
    return [json.loads(item) for item in data[:-1]]


def streamed_text(chunks: list[dict[str, Any]]) -> str:
    return "".join(c["choices"][0]["delta"].get("content") or "" for c in chunks if c["choices"])


def streamed_tool_calls(chunks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    calls: dict[int, dict[str, Any]] = {}
    for chunk in chunks:
        for choice in chunk["choices"]:
            for delta in choice["delta"].get("tool_calls", []):
                call = calls.setdefault(delta["index"], {"function": {"name": "", "arguments": ""}})
                call.update({k: delta[k] for k in ("id", "type") if k in delta})
                call["function"]["name"] += delta.get("function", {}).get("name", "")
                call["function"]["arguments"] += delta.get("function", {}).get("arguments", "")
    return [calls[i] for i in sorted(calls)]


def test_models_endpoints(model: ScriptedModel) -> None:
    assert model.base_url == f"http://127.0.0.1:{model.port}/v1"
    root = model.base_url.removesuffix("/v1")
    for url in (f"{model.base_url}/models", f"{root}/models"):
        listing = httpx.get(url).json()
        assert listing["object"] == "list"
        assert [m["id"] for m in listing["data"]] == ["scripted-model"]
    assert httpx.get(f"{model.base_url}/models/gpt-4o").json()["id"] == "gpt-4o"


def test_custom_model_id() -> None:
    with ScriptedModel(model_id="retail-model") as model:
        assert httpx.get(f"{model.base_url}/models").json()["data"][0]["id"] == "retail-model"


def test_non_stream_text(model: ScriptedModel) -> None:
    model.script(Text("Revenue grew 4%."))
    body = chat(model).json()
    assert body["object"] == "chat.completion"
    choice = body["choices"][0]
    assert choice["message"] == {"role": "assistant", "content": "Revenue grew 4%."}
    assert choice["finish_reason"] == "stop"
    usage = body["usage"]
    assert usage["prompt_tokens"] > 0
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


def test_default_answers_ok_and_str_is_text(model: ScriptedModel) -> None:
    model.script("plain string")
    assert chat(model).json()["choices"][0]["message"]["content"] == "plain string"
    assert chat(model).json()["choices"][0]["message"]["content"] == "OK"


def test_stream_text_is_split_and_reassembles(model: ScriptedModel) -> None:
    text = "Top segment by revenue is Outdoor, then Kitchen."
    model.script(Text(text))
    chunks = stream_chunks(model, stream_options={"include_usage": True})
    assert all(c["object"] == "chat.completion.chunk" for c in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    content_chunks = [c for c in chunks if c["choices"] and c["choices"][0]["delta"].get("content")]
    assert len(content_chunks) > 1
    assert streamed_text(chunks) == text
    assert chunks[-2]["choices"][0]["finish_reason"] == "stop"
    assert chunks[-1]["choices"] == []
    assert chunks[-1]["usage"]["total_tokens"] > 0


def test_stream_without_include_usage_has_no_usage_chunk(model: ScriptedModel) -> None:
    chunks = stream_chunks(model)
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    assert all("usage" not in c for c in chunks)
    assert streamed_text(chunks) == "OK"


def test_tool_call_non_stream(model: ScriptedModel) -> None:
    model.script(ToolCall("run_sql", {"sql": "select 1"}, id="call_1"))
    body = chat(model).json()
    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    [call] = choice["message"]["tool_calls"]
    assert call["id"] == "call_1"
    assert call["type"] == "function"
    assert call["function"]["name"] == "run_sql"
    assert json.loads(call["function"]["arguments"]) == {"sql": "select 1"}


def test_several_tool_calls_non_stream(model: ScriptedModel) -> None:
    model.script(ToolCalls((ToolCall("a", {"x": 1}), ToolCall("b"))))
    calls = chat(model).json()["choices"][0]["message"]["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["a", "b"]
    assert [json.loads(c["function"]["arguments"]) for c in calls] == [{"x": 1}, {}]
    assert len({c["id"] for c in calls}) == 2
    assert all(c["id"].startswith("call_") for c in calls)


def test_tool_calls_stream(model: ScriptedModel) -> None:
    args = {"sql": "select segment, sum(revenue) from sales group by segment"}
    model.script(ToolCalls([ToolCall("run_sql", args, id="call_a"), ToolCall("chart", {"kind": "bar"})]))
    chunks = stream_chunks(model)
    first_deltas = [d for c in chunks for d in c["choices"][0]["delta"].get("tool_calls", []) if "id" in d]
    assert [(d["index"], d["type"]) for d in first_deltas] == [(0, "function"), (1, "function")]
    argument_pieces = [
        d
        for c in chunks
        for d in c["choices"][0]["delta"].get("tool_calls", [])
        if d["index"] == 0 and d.get("function", {}).get("arguments")
    ]
    assert len(argument_pieces) > 1  # arguments are split over chunks
    calls = streamed_tool_calls(chunks)
    assert calls[0]["id"] == "call_a"
    assert calls[0]["function"]["name"] == "run_sql"
    assert json.loads(calls[0]["function"]["arguments"]) == args
    assert calls[1]["function"]["name"] == "chart"
    assert json.loads(calls[1]["function"]["arguments"]) == {"kind": "bar"}
    assert chunks[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_rule_reply_sees_request_body(model: ScriptedModel) -> None:
    def echo_last(body: dict[str, Any]) -> Text:
        return Text(f"echo: {body['messages'][-1]['content']}")

    model.script(echo_last)
    assert chat(model, user("ping")).json()["choices"][0]["message"]["content"] == "echo: ping"


def test_default_rule() -> None:
    with ScriptedModel(default=lambda body: ToolCall("t", {"n": len(body["messages"])})) as model:
        call = chat(model, user("a"), user("b")).json()["choices"][0]["message"]["tool_calls"][0]
        assert json.loads(call["function"]["arguments"]) == {"n": 2}


def test_recall_rule() -> None:
    with ScriptedModel(default=recall_rule) as model:
        assert chat(model, user("Focus on the Outdoor segment.")).json()["choices"][0]["message"] == {
            "role": "assistant",
            "content": "OK",
        }
        history = [
            {"role": "system", "content": "You are a retail analyst."},
            user("Focus on the Outdoor segment."),
            {"role": "assistant", "content": "OK"},
            {"role": "user", "content": [{"type": "text", "text": "Which segment did I mention?"}]},
        ]
        answer = chat(model, *history).json()["choices"][0]["message"]["content"]
        assert answer == 'You said earlier: "Focus on the Outdoor segment."'
        lonely = chat(model, user("What was said before?")).json()["choices"][0]["message"]["content"]
        assert lonely == "I have no earlier message to recall."


def test_failure_status_and_body(model: ScriptedModel) -> None:
    model.script(Failure(status=503, message="overloaded", code="busy"), Failure(429, "slow down"))
    response = chat(model)
    assert response.status_code == 503
    assert response.json() == {"error": {"message": "overloaded", "type": "server_error", "code": "busy"}}
    streamed = chat(model, stream=True)
    assert streamed.status_code == 429
    assert streamed.json()["error"]["message"] == "slow down"
    assert chat(model).status_code == 200
    assert len(model.requests) == 3


def test_invalid_body_is_logged_and_rejected(model: ScriptedModel) -> None:
    model.script("kept")
    response = httpx.post(f"{model.base_url}/chat/completions", content=b"not json")
    assert response.status_code == 400
    assert model.requests == [{"invalid_body": "not json"}]
    assert model.pending == 1


def test_delay_holds_the_reply() -> None:
    with ScriptedModel(delay=1.5) as model:
        started = time.monotonic()
        chat(model)
        assert time.monotonic() - started >= 1.5  # a lower bound: no machine is too fast for it
    # A reply's own delay wins over the model's. The margin is wide because on a loaded machine (the
    # suite runs in parallel) a plain reply has taken 1.8 s: the default alone would take 30.
    with ScriptedModel(delay=30.0) as model:
        model.script(Text("fast", delay=0.0))
        started = time.monotonic()
        chat(model)
        assert time.monotonic() - started < 15.0


async def test_delay_does_not_block_other_requests(model: ScriptedModel) -> None:
    model.script(Text("slow", delay=3.0), Text("fast"))
    async with httpx.AsyncClient(base_url=model.base_url, timeout=10) as client:
        slow = asyncio.create_task(client.post("/chat/completions", json={"messages": [user("1")]}))
        await asyncio.to_thread(model.wait_for_requests, 1)
        started = time.monotonic()
        fast = await client.post("/chat/completions", json={"messages": [user("2")]})
        assert time.monotonic() - started < 2.0
        assert fast.json()["choices"][0]["message"]["content"] == "fast"
        assert not slow.done()
        assert (await slow).json()["choices"][0]["message"]["content"] == "slow"


def test_request_log_and_reset(model: ScriptedModel) -> None:
    model.script("one", "two", "three")
    chat(model, user("first"))
    chat(model, user("second"), stream=True)
    log = model.requests
    assert [r["messages"][0]["content"] for r in log] == ["first", "second"]
    assert log[1]["stream"] is True
    log.clear()  # a copy
    assert len(model.requests) == 2
    model.reset()
    assert model.requests == []
    assert model.pending == 0
    assert chat(model).json()["choices"][0]["message"]["content"] == "OK"


def test_requests_logged_before_answer() -> None:
    with ScriptedModel(delay=0.5) as model:
        worker = threading.Thread(target=chat, args=(model,))
        worker.start()
        assert len(model.wait_for_requests(1, timeout=5)) == 1
        assert worker.is_alive()
        worker.join()
        with pytest.raises(TimeoutError):
            model.wait_for_requests(2, timeout=0.1)


def test_start_stop_twice_and_restart() -> None:
    threads_before = threading.active_count()
    for _ in range(2):
        with ScriptedModel() as model:
            assert chat(model).status_code == 200
        assert not model.running
    model = ScriptedModel(["first"])
    model.start()
    port = model.port
    assert chat(model).json()["choices"][0]["message"]["content"] == "first"
    model.stop()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/v1/models")
    with pytest.raises(RuntimeError):
        _ = model.base_url
    model.start()
    assert chat(model).json()["choices"][0]["message"]["content"] == "OK"
    model.stop()
    model.stop()  # idempotent
    assert threading.active_count() == threads_before


async def test_usable_from_async_tests() -> None:
    with ScriptedModel(["async"]) as model:
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{model.base_url}/chat/completions", json={"messages": []})
        assert response.json()["choices"][0]["message"]["content"] == "async"


def test_stop_does_not_hang_on_in_flight_request() -> None:
    model = ScriptedModel(delay=30).start()
    responses: list[httpx.Response] = []
    worker = threading.Thread(target=lambda: responses.append(chat(model)))
    worker.start()
    model.wait_for_requests(1)
    started = time.monotonic()
    model.stop()
    assert time.monotonic() - started < 5  # not the 30 s the request would have waited
    worker.join(5)
    [response] = responses
    assert response.status_code == 503
    assert response.json()["error"]["code"] == "stopped"
