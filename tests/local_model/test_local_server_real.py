"""The local server with the real embedded model (one model per session; small max_tokens, ~40 tok/s).

Greedy decoding (temperature 0) makes these answers reproducible for a given weights file.
"""

import json
from pathlib import Path

import httpx
import pytest

from agent_orchestrator.local_model.server import LocalModelServer, LocalModelServerError

pytestmark = pytest.mark.real_model

SYSTEM = {"role": "system", "content": "You are a concise assistant."}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_sales",
            "description": "Get total sales for a region",
            "parameters": {
                "type": "object",
                "properties": {"region": {"type": "string"}},
                "required": ["region"],
            },
        },
    }
]


def chat(api: httpx.Client, messages: list, **kw: object) -> dict:
    r = api.post("/chat/completions", json={"model": "gpt-4.1", "messages": messages, "temperature": 0, **kw})
    assert r.status_code == 200, r.text
    return r.json()


def stream(api: httpx.Client, messages: list, **kw: object) -> list[dict]:
    body = {"model": "x", "messages": messages, "temperature": 0, "stream": True, **kw}
    with api.stream("POST", "/chat/completions", json=body) as r:
        assert r.status_code == 200
        lines = [line.removeprefix("data: ") for line in r.iter_lines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


def test_server_facts(local_server: LocalModelServer, api: httpx.Client) -> None:
    assert local_server.base_url.startswith("http://127.0.0.1:") and local_server.base_url.endswith("/v1")
    assert local_server.start() == local_server.base_url  # idempotent
    assert local_server.model_id == "qwen2.5-coder-0.5b-instruct"
    assert local_server.max_output_tokens == 1024  # a quarter of the 4096-token context
    assert local_server.max_prompt_tokens > 100_000  # the runtime never compacts; the server windows
    assert api.get("/models").json()["data"][0]["id"] == local_server.model_id


def test_only_a_client_with_the_token_and_a_name_of_this_machine_is_served(
    local_server: LocalModelServer, api: httpx.Client
) -> None:
    """Any local process, and any web page through DNS rebinding (its own name resolving to
    127.0.0.1), can reach a loopback port: the token and the Host check keep them out."""
    models = f"{local_server.base_url}/models"
    anonymous = httpx.get(models)
    assert anonymous.status_code == 401, anonymous.text
    assert anonymous.json()["error"]["code"] == "invalid_api_key"
    wrong = httpx.get(models, headers={"Authorization": "Bearer not-the-token"})
    assert wrong.status_code == 401
    rebound = api.get("/models", headers={"Host": "rebind.attacker.example"})
    assert rebound.status_code == 421, rebound.text
    assert set(rebound.json()["error"]) == {"message", "type", "param", "code"}
    assert api.get("/models").status_code == 200


def test_remembers_across_turns_and_reuses_the_prefix(api: httpx.Client) -> None:
    """The embedded server's memory: a fact from turn 1 is quoted back in turn 2 (no tools: Lab 05's
    session), and the next turn prefills only the new messages because the KV cache still holds
    turn 1 (prompt plus the generated reply)."""
    messages = [
        SYSTEM,
        {
            "role": "user",
            "content": "Remember this: my favourite retail segment is 'At Risk'. Reply with just OK.",
        },
    ]
    first = chat(api, messages, max_tokens=10)
    assert first["choices"][0]["message"]["content"].strip().rstrip(".").upper() == "OK"
    messages += [
        first["choices"][0]["message"],
        {"role": "user", "content": "Which retail segment did I say was my favourite?"},
    ]

    second = chat(api, messages, max_tokens=20)  # quoted from the conversation, not left to the model
    assert (
        second["choices"][0]["message"]["content"] == "You said: \"my favourite retail segment is 'At Risk'\""
    )
    messages += [
        second["choices"][0]["message"],
        {"role": "user", "content": "Now reply with just YES."},
    ]

    third = chat(api, messages, max_tokens=10)

    assert third["usage"]["prompt_tokens_details"]["cached_tokens"] >= first["usage"]["prompt_tokens"]


def test_conversations_taking_turns_keep_their_cached_prefix(api: httpx.Client) -> None:
    """Two users alternate on one model: each one's next turn restores its saved KV state instead of
    prefilling its whole conversation again."""
    story = "Our shop sells candles, mugs and lanterns in twelve countries. " * 12

    def conversation(name: str) -> list[dict]:
        return [SYSTEM, {"role": "user", "content": f"I am {name}. {story} Reply with just OK."}]

    alice, bob = conversation("Alice"), conversation("Bob")
    first = chat(api, alice, max_tokens=5)
    chat(api, bob, max_tokens=5)  # overwrites the live cache with Bob's conversation
    alice += [first["choices"][0]["message"], {"role": "user", "content": "Now reply with just YES."}]

    again = chat(api, alice, max_tokens=5)

    assert again["usage"]["prompt_tokens_details"]["cached_tokens"] >= first["usage"]["prompt_tokens"] - 1


def test_stream_equals_non_stream_at_temperature_zero(api: httpx.Client) -> None:
    messages = [SYSTEM, {"role": "user", "content": "Name three primary colours, comma separated."}]
    whole = chat(api, messages, max_tokens=16)

    events = stream(api, messages, max_tokens=16, stream_options={"include_usage": True})

    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events if e["choices"])
    assert text == whole["choices"][0]["message"]["content"]
    assert events[-2]["choices"][0]["finish_reason"] == whole["choices"][0]["finish_reason"]
    usage = events[-1]["usage"]
    assert usage["completion_tokens"] == whole["usage"]["completion_tokens"]
    assert usage["prompt_tokens_details"]["cached_tokens"] == usage["prompt_tokens"] - 1  # same prompt again


def test_max_tokens_and_stop_are_honoured(api: httpx.Client) -> None:
    count = [{"role": "user", "content": "Count from 1 to 10, separated by commas. Output only the numbers."}]

    short = chat(api, count, max_tokens=3)
    stopped = chat(api, count, max_tokens=40, stop=["5"])

    assert short["choices"][0]["finish_reason"] == "length"
    assert short["usage"]["completion_tokens"] == 3
    assert stopped["choices"][0]["finish_reason"] == "stop"
    content = stopped["choices"][0]["message"]["content"]
    assert "4" in content and "5" not in content


def test_sampling_with_temperature(api: httpx.Client) -> None:
    body = chat(
        api, [{"role": "user", "content": "Say hello."}], max_tokens=8, temperature=0.9, top_p=0.9, seed=1
    )
    assert body["usage"]["completion_tokens"] >= 1


def test_tool_call_in_openai_format(api: httpx.Client) -> None:
    messages = [
        {"role": "system", "content": "You are a retail analytics assistant."},
        {"role": "user", "content": "What are total sales in the North region?"},
    ]

    body = chat(api, messages, tools=TOOLS, max_tokens=60)

    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    [call] = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "get_sales"
    assert json.loads(call["function"]["arguments"])["region"].lower() == "north"

    events = stream(api, messages, tools=TOOLS, max_tokens=60)
    calls = [d["tool_calls"][0] for e in events if "tool_calls" in (d := e["choices"][0]["delta"])]
    assert [c["function"]["name"] for c in calls] == ["get_sales"]
    assert events[-1]["choices"][0]["finish_reason"] == "tool_calls"


def test_answer_grounded_in_a_tool_result(api: httpx.Client) -> None:
    """Assistant tool_calls with content null and a role "tool" result are accepted and used."""
    messages = [
        {"role": "system", "content": "You are a retail analytics assistant. Answer from the tool results."},
        {"role": "user", "content": "What are total sales in the North region?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "get_sales", "arguments": '{"region": "North"}'},
                }
            ],
        },
        {
            "role": "tool",
            "tool_call_id": "call_1",
            "content": "Total sales in the North region: 48,213.50 GBP.",
        },
    ]

    body = chat(api, messages, max_tokens=40)

    assert "48,213" in body["choices"][0]["message"]["content"].replace("48213", "48,213")


def test_prompt_too_long_is_context_length_exceeded(api: httpx.Client) -> None:
    r = api.post("/chat/completions", json={"messages": [{"role": "user", "content": "word " * 5000}]})

    assert r.status_code == 400
    assert r.json()["error"]["code"] == "context_length_exceeded"


def test_client_disconnect_frees_the_model(api: httpx.Client) -> None:
    body = {"messages": [{"role": "user", "content": "Write a long story about a shop."}], "stream": True}
    with api.stream("POST", "/chat/completions", json={**body, "max_tokens": 1000}) as r:
        lines = r.iter_lines()
        for _ in range(4):
            next(lines)
    # The generation is cancelled at the next token: the model is free again right away.
    after = chat(api, [{"role": "user", "content": "Say OK."}], max_tokens=3)
    assert after["usage"]["completion_tokens"] >= 1
    assert api.get(str(api.base_url).removesuffix("/v1/") + "/health").json()["in_flight"] == 0


def test_unloadable_model_is_a_clear_start_error(tmp_path: Path) -> None:
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\0" * 100)

    with pytest.raises(LocalModelServerError, match="failed to load") as info:
        LocalModelServer(bad).start()

    assert "\n" not in str(info.value)


WEATHER = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "description": "Current weather in a city",
            "parameters": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
        },
    }
]
HELPFUL = {"role": "system", "content": "You are a helpful assistant."}


def test_any_clients_tools_with_no_domain_of_ours(api: httpx.Client) -> None:
    """The server started without a lexicon: a weather client is greeted as itself, not as a retail
    assistant, its tool is called with the question's city, and a required choice calls it for "hello"."""
    hi = chat(api, [HELPFUL, {"role": "user", "content": "hi"}], tools=WEATHER, max_tokens=40)["choices"][0]
    assert not hi["message"].get("tool_calls") and hi["message"]["content"].strip()
    assert not any(
        w in hi["message"]["content"].lower() for w in ("retail", "customer", "segment", "product")
    )

    asked = [HELPFUL, {"role": "user", "content": "What's the weather in Paris?"}]
    [call] = chat(api, asked, tools=WEATHER, max_tokens=60)["choices"][0]["message"]["tool_calls"]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (
        "get_weather",
        {"city": "Paris"},
    )

    hello = [HELPFUL, {"role": "user", "content": "hello"}]
    forced = chat(api, hello, tools=WEATHER, tool_choice="required", max_tokens=60)["choices"][0]
    assert forced["finish_reason"] == "tool_calls"
    assert forced["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
