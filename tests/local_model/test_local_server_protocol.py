"""The OpenAI wire protocol of the local server, against a scripted engine (no model, deterministic).

The real model is exercised in test_local_server_real.py; here we pin the protocol details, errors,
overload and cancellation, which need control over timing that a real model cannot give.
"""

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from tool_fixtures import RETAIL_TOOLS, answered

from agent_orchestrator.background_server import BackgroundServer
from agent_orchestrator.hosts import host_allowed
from agent_orchestrator.local_model.app import create_app
from agent_orchestrator.local_model.engine import ContextLengthExceeded, GenerationParams, GenerationStats
from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall
from agent_orchestrator.mcp_server.lexicon import RETAIL
from agent_orchestrator.testing.eventually import eventually, eventually_async

TEMPLATE = (
    "{% if tools %}[tools:{% for t in tools %}{{ t.function.name }}{% endfor %}]{% endif %}"
    "{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}<assistant>"
)
USER = [{"role": "user", "content": "hi"}]
TOKEN = "test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


class ScriptedEngine:
    """Yields ``pieces`` (one token each). ``gate`` holds generations; ``delay`` paces the pieces;
    ``hold_after`` pieces, a generation waits for ``resume``."""

    n_ctx = 1000
    load_seconds = 0.0
    chat_template = TEMPLATE
    special_tokens = ("", "")

    def __init__(self) -> None:
        self.pieces: list[str] = ["Hello", ",", " world"]
        self.gate = threading.Event()
        self.gate.set()
        self.delay = 0.0
        self.hold_after: int | None = None
        self.resume = threading.Event()
        self.prompts: list[str] = []
        self.params: list[GenerationParams] = []
        self.results: list[GenerationStats] = []
        self.running = 0
        self.threads: set[int] = set()  # the threads that ran the warm-up and the generations
        self.warmed_up = False

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]  # one token per character

    def warm_up(self) -> None:
        self.warmed_up = True
        self.threads.add(threading.get_ident())

    def generate(
        self, prompt: list[int], params: GenerationParams, cancel: threading.Event | None = None
    ) -> Iterator[str | GenerationStats]:
        if len(prompt) + params.max_tokens > self.n_ctx:
            raise ContextLengthExceeded(len(prompt), params.max_tokens, self.n_ctx)
        self.prompts.append("".join(map(chr, prompt)))
        self.params.append(params)
        return self._run(len(prompt), params, cancel or threading.Event())

    def _run(self, n_prompt: int, params: GenerationParams, cancel: threading.Event) -> Iterator[Any]:
        self.threads.add(threading.get_ident())
        self.running += 1
        stats = GenerationStats(prompt_tokens=n_prompt, finish_reason="stop")
        try:
            while not self.gate.wait(0.01):
                if cancel.is_set():
                    break
            for piece in self.pieces:
                if cancel.is_set():
                    stats.finish_reason = "cancelled"
                    break
                if stats.completion_tokens == params.max_tokens:
                    stats.finish_reason = "length"
                    break
                time.sleep(self.delay)  # kept: the stand-in engine's pace per token
                while stats.completion_tokens == self.hold_after and not self.resume.wait(0.01):
                    if cancel.is_set():
                        break
                stats.completion_tokens += 1
                yield piece
            else:
                if cancel.is_set():
                    stats.finish_reason = "cancelled"
            self.results.append(stats)
            yield stats
        finally:
            self.running -= 1


@pytest.fixture
def engine() -> Iterator[ScriptedEngine]:
    engine = ScriptedEngine()
    yield engine
    engine.gate.set()  # never leave a worker thread blocked at exit


@contextlib.asynccontextmanager
async def serving(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),  # the transport runs no lifespan; the server does
        httpx.AsyncClient(transport=transport, base_url="http://localhost/v1", headers=AUTH) as client,
    ):
        client.app = app  # type: ignore[attr-defined]
        yield client


@pytest.fixture
async def client(engine: ScriptedEngine) -> AsyncIterator[httpx.AsyncClient]:
    """A server as ``python -m agent_orchestrator.local_model serve`` runs it: no domain's words."""
    async with serving(
        create_app(engine, token=TOKEN, model_id="local-test", max_waiting=2, max_output_tokens=100)
    ) as c:
        yield c


@pytest.fixture
async def retail(engine: ScriptedEngine) -> AsyncIterator[httpx.AsyncClient]:
    """A server as the retail app starts it: with the retail tools' words (``mcp_server.lexicon``)."""
    app = create_app(
        engine, token=TOKEN, model_id="local-test", max_waiting=2, max_output_tokens=100, lexicon=RETAIL
    )
    async with serving(app) as c:
        yield c


def sse_events(text: str) -> list[Any]:
    lines = [line.removeprefix("data: ") for line in text.splitlines() if line.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    return [json.loads(line) for line in lines[:-1]]


# --- endpoints ---


async def test_models_report_the_served_model(client: httpx.AsyncClient) -> None:
    for path in ("/models", "http://localhost/models"):
        body = (await client.get(path)).json()
        assert body["object"] == "list"
        assert [m["id"] for m in body["data"]] == ["local-test"]
    assert (await client.get("/models/gpt-4o")).json()["id"] == "local-test"


async def test_health(client: httpx.AsyncClient) -> None:
    body = (await client.get("http://localhost/health")).json()
    assert body["status"] == "ok" and body["model"] == "local-test" and body["n_ctx"] == 1000


# --- access: the token and the Host check ---


def _without_token(client: httpx.AsyncClient, method: str, url: str, **kw: Any) -> httpx.Request:
    request = client.build_request(method, url, **kw)
    del request.headers["Authorization"]
    return request


@pytest.mark.parametrize("authorization", [None, "Bearer wrong", TOKEN, f"Basic {TOKEN}", f"Bearer {TOKEN}x"])
async def test_a_request_without_the_token_is_refused_before_the_model(
    client: httpx.AsyncClient, engine: ScriptedEngine, authorization: str | None
) -> None:
    if authorization is None:
        request = _without_token(client, "POST", "/chat/completions", json={"messages": USER})
    else:
        headers = {"Authorization": authorization}
        request = client.build_request("POST", "/chat/completions", json={"messages": USER}, headers=headers)

    r = await client.send(request)

    assert r.status_code == 401
    error = r.json()["error"]
    assert (error["type"], error["param"], error["code"]) == (
        "invalid_request_error",
        None,
        "invalid_api_key",
    )
    assert "Authorization: Bearer" in error["message"]
    assert engine.prompts == []


async def test_health_needs_no_token(client: httpx.AsyncClient) -> None:
    r = await client.send(_without_token(client, "GET", "http://localhost/health"))
    assert r.status_code == 200 and r.json()["status"] == "ok"


@pytest.mark.parametrize(
    "host",
    [
        "rebind.attacker.example",  # a page's own name, made to resolve to 127.0.0.1
        "rebind.attacker.example:8765",
        "127.0.0.1.nip.io",
        "localhost.attacker.example",
        "0.0.0.0:8765",
        "10.0.0.5",
        "",
    ],
)
async def test_a_host_that_is_not_this_machine_is_misdirected_even_with_the_token(
    client: httpx.AsyncClient, engine: ScriptedEngine, host: str
) -> None:
    for method, url in (("POST", "/chat/completions"), ("GET", "http://localhost/health")):
        r = await client.request(method, url, json={"messages": USER}, headers={"Host": host})
        assert r.status_code == 421, (url, r.text)
        error = r.json()["error"]
        assert (error["type"], error["code"]) == ("invalid_request_error", "misdirected_request")
    assert engine.prompts == []


@pytest.mark.parametrize(
    "host",
    ["localhost", "localhost:8765", "LOCALHOST.", "127.0.0.1:8765", "127.9.9.9", "[::1]:8765", "[::1]"],
)
async def test_loopback_names_and_addresses_are_served(client: httpx.AsyncClient, host: str) -> None:
    r = await client.post("/chat/completions", json={"messages": USER}, headers={"Host": host})
    assert r.status_code == 200, r.text


@pytest.mark.parametrize(
    ("host", "bind", "allowed"),
    [
        ("192.168.7.7:8765", "192.168.7.7", True),
        ("192.168.7.8:8765", "192.168.7.7", False),
        ("gpu-box.internal:8765", "gpu-box.internal", True),
        ("[fd00::1]:8765", "fd00::1", True),
        ("10.1.2.3:8765", "0.0.0.0", True),  # a wildcard bind: other machines use its addresses
        ("[fd00::2]:8765", "::", True),
        ("gpu-box.internal:8765", "0.0.0.0", False),  # but no name: that is what rebinding needs
    ],
)
def test_the_bind_address_is_a_name_of_this_machine_too(host: str, bind: str, allowed: bool) -> None:
    assert host_allowed(host, bind) is allowed


async def test_non_streaming_completion_with_usage(client: httpx.AsyncClient) -> None:
    r = await client.post("/chat/completions", json={"model": "gpt-4o", "messages": USER})

    assert r.status_code == 200
    body = r.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == "local-test"  # any requested name is accepted; we report ours
    assert body["choices"][0]["message"] == {"role": "assistant", "content": "Hello, world", "refusal": None}
    assert body["choices"][0]["finish_reason"] == "stop"
    prompt_tokens = len("<user>hi<assistant>")
    assert body["usage"] == {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": 3,
        "total_tokens": prompt_tokens + 3,
        "prompt_tokens_details": {"cached_tokens": 0},
    }


async def test_also_served_without_v1_prefix(client: httpx.AsyncClient) -> None:
    r = await client.post("http://localhost/chat/completions", json={"messages": USER})
    assert r.json()["choices"][0]["message"]["content"] == "Hello, world"


async def test_a_stream_is_framed_byte_for_byte_as_openai_clients_expect(client: httpx.AsyncClient) -> None:
    r = await client.post("/chat/completions", json={"messages": USER, "stream": True})

    events = sse_events(r.text)
    expected = "".join(f"data: {json.dumps(e, ensure_ascii=False)}\n\n" for e in events) + "data: [DONE]\n\n"
    assert r.text == expected
    assert r.headers["cache-control"] == "no-cache"


async def test_streaming_chunks_usage_and_done(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/chat/completions",
        json={"messages": USER, "stream": True, "stream_options": {"include_usage": True}},
    )

    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r.text)
    assert all(e["object"] == "chat.completion.chunk" and e["model"] == "local-test" for e in events)
    assert len({e["id"] for e in events}) == 1
    assert events[0]["choices"][0]["delta"] == {"role": "assistant", "content": ""}
    text = "".join(e["choices"][0]["delta"].get("content", "") for e in events if e["choices"])
    assert text == "Hello, world"
    assert events[-2]["choices"][0]["finish_reason"] == "stop"
    assert events[-1]["choices"] == [] and events[-1]["usage"]["completion_tokens"] == 3
    assert all(e["usage"] is None for e in events[:-1])


async def test_streaming_without_usage_has_no_usage_chunk(client: httpx.AsyncClient) -> None:
    events = sse_events(
        (await client.post("/chat/completions", json={"messages": USER, "stream": True})).text
    )
    assert all("usage" not in e for e in events)
    assert events[-1]["choices"][0]["finish_reason"] == "stop"


QUESTION = [{"role": "user", "content": "What were the sales in the North region?"}]
SALES = {
    "type": "function",
    "function": {
        "name": "get_sales",
        "description": "Sales of one region",
        "parameters": {
            "type": "object",
            "properties": {"region": {"type": "string", "enum": ["North", "South"]}},
            "required": ["region"],
        },
    },
}
CALL_JSON = '{"name": "get_sales", "arguments": {"region": "North"}}'


async def test_a_data_question_gets_a_constrained_tool_call(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = [CALL_JSON]
    question = [{"role": "user", "content": "Sales in the North or the South region, whichever is larger?"}]

    body = (await client.post("/chat/completions", json={"messages": question, "tools": [SALES]})).json()

    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls" and choice["message"]["content"] is None
    [call] = choice["message"]["tool_calls"]
    assert call["type"] == "function" and call["id"].startswith("call_")
    assert call["function"]["name"] == "get_sales"
    assert json.loads(call["function"]["arguments"]) == {"region": "North"}
    assert engine.prompts[-1].endswith("<assistant><tool_call>\n")  # the model starts inside a call
    grammar = engine.params[-1].grammar
    assert "get_sales" in grammar and "North" in grammar and "South" in grammar


async def test_a_call_the_question_fully_determines_is_made_without_the_model(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    body = (await client.post("/chat/completions", json={"messages": QUESTION, "tools": [SALES]})).json()

    [call] = body["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "get_sales" and json.loads(call["function"]["arguments"]) == {
        "region": "North"
    }
    assert engine.prompts == []


async def test_a_tool_call_streams_as_one_chunk(client: httpx.AsyncClient, engine: ScriptedEngine) -> None:

    events = sse_events(
        (
            await client.post(
                "/chat/completions", json={"messages": QUESTION, "tools": [SALES], "stream": True}
            )
        ).text
    )

    deltas = [e["choices"][0]["delta"] for e in events]
    calls = [d["tool_calls"][0] for d in deltas if "tool_calls" in d]
    assert [(c["index"], c["function"]["name"]) for c in calls] == [(0, "get_sales")]
    assert not any(d.get("content") for d in deltas)
    assert events[-1]["choices"][0]["finish_reason"] == "tool_calls"


def _answered(result: str) -> list[dict[str, Any]]:
    call = {
        "id": "c1",
        "type": "function",
        "function": {"name": "get_sales", "arguments": '{"region": "North"}'},
    }
    return [
        *QUESTION,
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": result},
    ]


async def test_after_tool_results_the_model_answers_from_them(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["North sold ", "48,213.50."]

    body = (
        await client.post(
            "/chat/completions", json={"messages": _answered('{"sales": 48213.5}'), "tools": [SALES]}
        )
    ).json()

    assert engine.prompts[-1].endswith("<tool>sales 48,213.50<assistant>")  # own call folded, no tools
    assert body["choices"][0]["finish_reason"] == "stop"
    assert body["choices"][0]["message"]["content"] == "North sold 48,213.50."


async def test_rows_the_user_asked_for_are_listed_when_the_answer_stops_short(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["The best region is North."]
    rows = [
        {"region": r, "sales": v} for r, v in (("North", 3.5), ("South", 2.5), ("East", 1.5), ("West", 0.5))
    ]
    messages = _answered(json.dumps({"regions": rows}))
    messages[0] = {"role": "user", "content": "What are the top 3 regions by sales?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == (
        "The best region is North.\n\n1. region North, sales 3.50\n2. region South, sales 2.50\n"
        "3. region East, sales 1.50"
    )


async def test_a_figure_for_each_month_lists_every_month(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["The North placed 153 orders in Q1."]  # the quarter's total, not each month's
    months = [{"month": m, "orders": n} for m, n in (("2024-01", 50), ("2024-02", 48), ("2024-03", 55))]
    messages = _answered(json.dumps({"summary": {"orders": 153}, "months": months}))
    messages[0] = {"role": "user", "content": "The North's order count for each month of Q1 2024?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == (
        "The North placed 153 orders in Q1.\n\n1. month 2024-01, orders 50\n2. month 2024-02, orders 48\n"
        "3. month 2024-03, orders 55"
    )


async def test_a_count_the_headline_contradicts_is_replaced_by_the_headline(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["The North placed 12 orders."]  # the customers' count, from the same sentence
    headline = "Sales 48,213.50 from 310 orders by 12 customers (region North)."
    messages = _answered(json.dumps({"headline": headline, "sales": 48213.5, "orders": 310, "customers": 12}))
    messages[0] = {"role": "user", "content": "How many orders did the North region place?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == headline


async def test_an_answer_quoting_the_wrong_figure_of_the_data_gets_the_figure_asked_for(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["Average revenue per customer in the North: 48,213.50."]  # the region's total
    result = {
        "headline": "North: 48,213.50.",
        "sales": 48213.5,
        "customers": 12,
        "sales_per_customer": 4017.79,
    }
    messages = _answered(json.dumps(result))
    messages[0] = {"role": "user", "content": "What were the average sales per customer in the North region?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert "Asked for: sales per customer 4,017.79." in engine.prompts[-1]  # the model was shown it
    assert body["choices"][0]["message"]["content"] == "Sales per customer 4,017.79."


async def test_a_yes_no_answer_that_hides_the_actual_value_gets_the_results_own_sentence(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["No, the North is not a South region."]  # true, but says nothing of what it is
    headline = "North is a Northern region with 12 shops."
    messages = _answered(json.dumps({"headline": headline, "region": "Northern", "shops": 12}))
    messages[0] = {"role": "user", "content": "Is the North a South region?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == headline


async def test_a_wrong_leader_is_replaced_by_the_one_the_result_shows(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["The strongest month was 2024-01."]
    months = [{"month": m, "sales": v} for m, v in (("2024-01", 3.0), ("2024-02", 9.0), ("2024-03", 5.0))]
    headline = "From 2024-01 to 2024-03: best 2024-02."
    messages = _answered(json.dumps({"headline": headline, "months": months}))
    messages[0] = {"role": "user", "content": "Which month had the highest sales in the North?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == "Highest by sales: 2024-02 (sales 9.00)."


async def test_an_invented_figure_is_retried_then_replaced_by_the_data(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["North sold ", "50,000."]  # the scripted model insists on a number not in the result

    body = (
        await client.post(
            "/chat/completions", json={"messages": _answered('{"sales": 48213.5}'), "tools": [SALES]}
        )
    ).json()

    assert len(engine.prompts) == 2 and '"50,000"' in engine.prompts[-1]  # the retry names the claim
    content = body["choices"][0]["message"]["content"]
    assert content.endswith("get_sales tool returned:\n\nsales 48,213.50")


async def test_a_failed_tool_is_answered_plainly_without_the_model(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    failure = "MCP server 'shop': Error executing tool get_sales: no region named 'Narnia'"

    body = (
        await client.post("/chat/completions", json={"messages": _answered(failure), "tools": [SALES]})
    ).json()

    assert engine.prompts == []
    assert body["choices"][0]["message"]["content"] == (
        "I could not find that in the data: no region named 'Narnia'."
    )


async def test_a_name_the_results_do_not_contain_is_not_found(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    """Asked about a region the tool knows nothing of, the call ran without it: answering with the
    totals it returned would answer another question."""
    messages = _answered('{"sales": 48213.5}')
    messages[0] = {"role": "user", "content": "What were the sales in Narnia?"}

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert engine.prompts == []
    assert body["choices"][0]["message"]["content"] == (
        "I could not find that in the data: nothing about Narnia in what the tools returned."
    )


async def test_small_talk_is_answered_without_the_model(
    retail: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    body = (await retail.post("/chat/completions", json={"messages": USER, "tools": RETAIL_TOOLS})).json()

    assert body["choices"][0]["message"]["content"].startswith("Hello! Ask me about")
    assert engine.prompts == []


async def test_a_question_about_what_the_user_said_is_answered_with_their_words(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    messages = [
        {"role": "user", "content": "I look after the North region."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Which region do I look after?"},
    ]

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == 'You told me: "I look after the North region."'
    assert engine.prompts == []


async def test_a_question_about_the_assistants_answers_is_quoted_without_the_model(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    messages = [
        {"role": "user", "content": "I look after the North region."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "What did you say before?"},
    ]

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == (
        'My last reply (to "I look after the North region.") was: "Noted."'
    )
    assert engine.prompts == []


async def test_a_reason_asked_about_the_chat_goes_to_the_model_without_tools(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    messages = [
        {"role": "user", "content": "I look after the North region."},
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": "Why did you answer like that?"},
    ]
    engine.pieces = ["I said ", "noted."]

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == "I said noted."
    assert engine.params[-1].grammar is None and "Noted." not in engine.prompts[-1]  # fixed replies hidden


async def test_a_call_written_as_prose_becomes_a_real_call(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    """The 1.5B model's habit: it describes the call instead of making it."""
    engine.pieces = ["I would call the `get_sales` function with:\n```json\n", '{"region": "North"}', "\n```"]
    messages = [{"role": "user", "content": "Remember the North region?"}]

    body = (await client.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    [call] = body["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "get_sales" and json.loads(call["function"]["arguments"]) == {
        "region": "North"
    }


async def test_tool_choice_none_hides_tools(client: httpx.AsyncClient, engine: ScriptedEngine) -> None:
    await client.post(
        "/chat/completions", json={"messages": QUESTION, "tools": [SALES], "tool_choice": "none"}
    )
    assert engine.params[-1].grammar is None and not engine.prompts[-1].endswith("<tool_call>\n")


async def test_sampling_parameters_are_passed_through(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    await client.post("/chat/completions", json={"messages": USER})
    await client.post(
        "/chat/completions",
        json={
            "messages": USER,
            "temperature": 0.7,
            "top_p": 0.9,
            "stop": "END",
            "seed": 7,
            "max_tokens": 50,
            "max_completion_tokens": 5,
        },
    )

    default, explicit = engine.params
    assert default.temperature == 0.0 and default.top_p == 1.0 and default.stop == ()
    assert default.max_tokens == 100  # the server's output limit, as it fits the context
    assert explicit == GenerationParams(max_tokens=5, temperature=0.7, top_p=0.9, stop=("END",), seed=7)


async def test_max_tokens_reports_length(client: httpx.AsyncClient) -> None:
    body = (await client.post("/chat/completions", json={"messages": USER, "max_tokens": 2})).json()
    assert body["choices"][0]["finish_reason"] == "length"
    assert body["choices"][0]["message"]["content"] == "Hello,"


async def test_default_budget_shrinks_to_what_fits(client: httpx.AsyncClient, engine: ScriptedEngine) -> None:
    long = [{"role": "user", "content": "x" * 950}]
    await client.post("/chat/completions", json={"messages": long})
    assert engine.params[-1].max_tokens == 1000 - len("<user>" + "x" * 950 + "<assistant>")


# --- errors: OpenAI-style bodies, 400 not 422 ---


@pytest.mark.parametrize(
    ("payload", "param", "fragment"),
    [
        ({}, "messages", "messages"),
        ({"messages": []}, "messages", "at least 1"),
        ({"messages": USER, "temperature": 3}, "temperature", "temperature"),
        ({"messages": USER, "foo": 1}, "foo", "Unrecognized request argument supplied: foo"),
        ({"messages": USER, "n": 2}, "n", "n"),
        ({"messages": USER, "logprobs": True}, "logprobs", "not supported"),
        ({"messages": USER, "response_format": {"type": "json_object"}}, "response_format", "text"),
        ({"messages": USER, "stop": ["a", "b", "c", "d", "e"]}, "stop", "at most 4"),
        ({"messages": [{"role": "robot", "content": "x"}]}, "messages[0].role", "role"),
        (
            {"messages": USER, "tools": [{"type": "function", "function": {}}]},
            "tools[0].function.name",
            "name",
        ),
        ({"messages": USER, "max_tokens": 0}, "max_tokens", "max_tokens"),
    ],
)
async def test_bad_requests_are_400_with_openai_error_body(
    client: httpx.AsyncClient, payload: dict, param: str, fragment: str
) -> None:
    r = await client.post("/chat/completions", json=payload)

    assert r.status_code == 400
    error = r.json()["error"]
    assert set(error) == {"message", "type", "param", "code"}
    assert error["type"] == "invalid_request_error"
    assert error["param"] == param
    assert fragment in error["message"]


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    r = await client.post(
        "/chat/completions", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 400
    assert r.json()["error"]["type"] == "invalid_request_error"


async def test_context_length_exceeded(client: httpx.AsyncClient, engine: ScriptedEngine) -> None:
    for payload in (
        {"messages": USER, "max_tokens": 990},
        {"messages": [{"role": "user", "content": "x" * 2000}]},
    ):
        r = await client.post("/chat/completions", json=payload)
        assert r.status_code == 400
        error = r.json()["error"]
        assert error["code"] == "context_length_exceeded" and error["param"] == "messages"
        assert "maximum context length is 1000 tokens" in error["message"]
    assert engine.prompts == []


async def test_unknown_route_is_openai_style_404(client: httpx.AsyncClient) -> None:
    r = await client.get("/nope")
    assert r.status_code == 404
    assert r.json()["error"]["message"] == "Not Found"


# --- scheduling ---


async def test_overload_is_429_and_waiting_requests_complete(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    """One running + max_waiting (2) queued are admitted; the next gets 429 at once."""
    engine.gate.clear()
    admitted = [
        asyncio.create_task(client.post("/chat/completions", json={"messages": USER})) for _ in range(3)
    ]
    queue = client.app.state.queue  # type: ignore[attr-defined]
    await eventually_async(lambda: queue.admitted == 3)

    refused = await client.post("/chat/completions", json={"messages": USER})

    assert refused.status_code == 429
    assert refused.headers["retry-after"]
    error = refused.json()["error"]
    assert error["code"] == "rate_limit_exceeded" and "busy" in error["message"]
    engine.gate.set()
    assert [r.status_code for r in await asyncio.gather(*admitted)] == [200, 200, 200]
    assert queue.admitted == 0
    assert (await client.post("/chat/completions", json={"messages": USER})).status_code == 200


async def test_event_loop_stays_responsive_during_generation(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.gate.clear()
    running = asyncio.create_task(client.post("/chat/completions", json={"messages": USER}))
    await eventually_async(lambda: engine.running == 1)

    assert (await client.get("http://localhost/health")).json()["in_flight"] == 1
    engine.gate.set()
    assert (await running).status_code == 200


# --- cancellation over real HTTP (client disconnects) ---


@pytest.fixture
def http_server(engine: ScriptedEngine) -> Iterator[tuple[str, Any]]:
    app = create_app(engine, token=TOKEN, model_id="local-test", max_waiting=2)
    server = BackgroundServer(app)
    root = server.start()
    yield root, app
    engine.gate.set()
    server.stop()


def test_stream_disconnect_cancels_generation(http_server: tuple[str, Any], engine: ScriptedEngine) -> None:
    root, app = http_server
    engine.pieces = ["tok "] * 2000
    engine.delay = 0.01
    with (
        httpx.Client(base_url=root, headers=AUTH, timeout=10) as client,
        client.stream("POST", "/v1/chat/completions", json={"messages": USER, "stream": True}) as r,
    ):
        lines = r.iter_lines()
        for _ in range(3):
            next(lines)
    # the client closed the connection after three chunks

    eventually(lambda: engine.results)
    assert engine.results[0].finish_reason == "cancelled"
    assert engine.results[0].completion_tokens < 500
    eventually(lambda: app.state.queue.admitted == 0)


def _occupy_the_model(root: str, engine: ScriptedEngine) -> threading.Thread:
    """Start a request that holds the (gated) model, so the next one has to queue behind it."""
    engine.gate.clear()
    first = threading.Thread(
        target=lambda: httpx.post(
            f"{root}/v1/chat/completions", json={"messages": USER}, headers=AUTH, timeout=10
        )
    )
    first.start()
    eventually(lambda: engine.running == 1)
    return first


def test_queued_request_whose_client_left_is_skipped(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    root, app = http_server
    first = _occupy_the_model(root, engine)
    with pytest.raises(httpx.ReadTimeout):  # gives up while queued behind the first request
        httpx.post(f"{root}/v1/chat/completions", json={"messages": USER}, headers=AUTH, timeout=0.5)
    time.sleep(0.5)  # kept: the disconnect watcher polls every 0.25 s (its cancel is not visible here)

    engine.gate.set()
    first.join()
    eventually(lambda: len(engine.results) == 2)
    assert [r.finish_reason for r in engine.results] == ["stop", "cancelled"]
    assert engine.results[1].completion_tokens == 0
    eventually(lambda: app.state.queue.admitted == 0)


def test_queued_stream_whose_client_left_frees_its_slot(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    """A stream still waiting for the model when its client leaves must not hold a queue slot."""
    root, app = http_server
    first = _occupy_the_model(root, engine)
    body = {"messages": USER, "stream": True}
    with (
        httpx.Client(headers=AUTH, timeout=10) as client,
        client.stream("POST", f"{root}/v1/chat/completions", json=body) as r,
    ):
        next(r.iter_lines())  # the role chunk arrives at once; then the client gives up
    time.sleep(0.5)  # kept: as above, two of the disconnect watcher's polls

    engine.gate.set()
    first.join()
    eventually(lambda: len(engine.results) == 2)
    assert [r.finish_reason for r in engine.results] == ["stop", "cancelled"]
    eventually(lambda: app.state.queue.admitted == 0)


async def test_the_engine_warms_up_and_generates_on_one_thread(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    # llama.cpp's OpenMP threads belong to the calling thread: a second one slows decoding by a third.
    await client.post("/chat/completions", json={"messages": USER})
    await client.post("/chat/completions", json={"messages": USER, "stream": True})

    assert len(engine.threads) == 1 and threading.get_ident() not in engine.threads
    assert engine.warmed_up


# --- a guide (local_model.guide) planning steps for the model ---


class _RegionGuide:
    """A guide for one tool: calls it for "North", answers from its result; leaves the rest alone."""

    def __init__(self) -> None:
        self.asked = 0

    def step(self, messages: Any, tools: Any) -> GuidedCall | GuidedAnswer | None:
        self.asked += 1
        if messages[-1]["role"] == "tool":
            return GuidedAnswer(f"From the tool: {json.loads(messages[-1]['content'])['sales']}.")
        if "North" in str(messages[-1]["content"]):
            return GuidedCall("get_sales", {"region": "North"})
        if "East" in str(messages[-1]["content"]):
            raise KeyError("group_by")  # a reader's defect
        return None

    def owns(self, tool: Any) -> bool:
        return False


@pytest.fixture
async def guided(engine: ScriptedEngine) -> AsyncIterator[httpx.AsyncClient]:
    guide = _RegionGuide()
    app = create_app(
        engine, token=TOKEN, model_id="local-test", max_waiting=2, max_output_tokens=100, guide=guide
    )
    async with serving(app) as client:
        client.guide = guide  # type: ignore[attr-defined]
        yield client


async def test_a_guide_makes_the_call_and_gives_the_answer_without_the_model(
    guided: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    body = (await guided.post("/chat/completions", json={"messages": QUESTION, "tools": [SALES]})).json()
    call = body["choices"][0]["message"]["tool_calls"][0]["function"]
    assert (call["name"], json.loads(call["arguments"])) == ("get_sales", {"region": "North"})
    stream = await guided.post(
        "/chat/completions",
        json={"messages": _answered('{"sales": 48213.5}'), "tools": [SALES], "stream": True},
    )
    deltas = [c["choices"][0]["delta"].get("content") for c in sse_events(stream.text) if c.get("choices")]
    assert "".join(d for d in deltas if d) == "From the tool: 48213.5."
    assert engine.prompts == []  # the model was never asked


async def test_a_question_about_the_chat_is_answered_before_the_guide_without_the_model(
    guided: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    """The guide's planner would read it as a question for the data: it is never asked."""
    messages = [
        *_answered('{"sales": 48213.5}'),
        {"role": "assistant", "content": "From the tool: 48213.5."},
        {"role": "user", "content": "Which region did I ask about first in this chat?"},
    ]

    body = (await guided.post("/chat/completions", json={"messages": messages, "tools": [SALES]})).json()

    assert body["choices"][0]["message"]["content"] == (
        'The first region you asked about was North (you asked: "What were the sales in the North region?").'
    )
    assert guided.guide.asked == 0 and engine.prompts == []  # type: ignore[attr-defined]


async def test_what_the_guide_leaves_and_a_required_choice_go_to_the_model(
    guided: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    elsewhere = [{"role": "user", "content": "What were the sales in the South region?"}]
    body = (await guided.post("/chat/completions", json={"messages": elsewhere, "tools": [SALES]})).json()
    arguments = body["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"]
    assert json.loads(arguments) == {"region": "South"}  # the server's own pipeline
    asked = guided.guide.asked  # type: ignore[attr-defined]
    required = {"messages": QUESTION, "tools": [SALES], "tool_choice": "required"}
    await guided.post("/chat/completions", json=required)
    assert guided.guide.asked == asked  # type: ignore[attr-defined]  # the client's choice wins


# --- any client's tools: the server knows no domain unless it is given a lexicon ---


WEATHER = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather in a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}
HELLO = [{"role": "user", "content": "hello"}]


async def test_a_named_tool_choice_is_called_even_for_small_talk(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    named = {"type": "function", "function": {"name": "get_weather"}}
    await client.post(
        "/chat/completions", json={"messages": HELLO, "tools": [SALES, WEATHER], "tool_choice": named}
    )
    assert engine.prompts[-1].endswith("<assistant><tool_call>\n")  # the model starts inside a call
    assert "get_weather" in engine.params[-1].grammar and "get_sales" not in engine.params[-1].grammar


async def test_a_required_tool_choice_is_a_call_for_a_greeting_and_after_results(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ['{"name": "get_weather", "arguments": {"city": "Paris"}}']
    after = [
        *HELLO,
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "w1",
                    "type": "function",
                    "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "w1", "content": '{"sky": "clear"}'},
    ]
    for messages in (HELLO, after):
        body = {"messages": messages, "tools": [WEATHER], "tool_choice": "required"}
        choice = (await client.post("/chat/completions", json=body)).json()["choices"][0]
        assert choice["finish_reason"] == "tool_calls"
        assert choice["message"]["tool_calls"][0]["function"]["name"] == "get_weather"
        assert engine.prompts[-1].endswith("<assistant><tool_call>\n")


async def test_a_greeting_with_no_lexicon_is_the_models_own_without_tools(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["Hello! How can I help you today?"]
    hi = [{"role": "system", "content": "You answer questions about the weather."}, *USER]

    body = (await client.post("/chat/completions", json={"messages": hi, "tools": [WEATHER]})).json()

    message = body["choices"][0]["message"]
    assert message["content"] == "Hello! How can I help you today?" and not message.get("tool_calls")
    assert engine.params[-1].grammar is None and "get_weather" not in engine.prompts[-1]
    assert not any(
        word in message["content"].lower() for word in ("retail", "customer", "segment", "product")
    )


async def test_a_greeting_the_model_garbles_gets_a_plain_hello(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["Hi! I am Qwen, made by Alibaba Cloud."]  # names nobody in the conversation said

    body = (await client.post("/chat/completions", json={"messages": USER, "tools": [WEATHER]})).json()

    assert body["choices"][0]["message"]["content"] == "Hello! How can I help?"


async def test_any_clients_tool_is_called_with_what_the_question_names(
    client: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    question = [{"role": "user", "content": "What's the weather in Paris?"}]

    body = (await client.post("/chat/completions", json={"messages": question, "tools": [WEATHER]})).json()

    [call] = body["choices"][0]["message"]["tool_calls"]
    assert (call["function"]["name"], json.loads(call["function"]["arguments"])) == (
        "get_weather",
        {"city": "Paris"},
    )


# --- this turn's evidence only ---


CUSTOMER_20017 = json.dumps(
    {
        "headline": "Customer 20017 is in the Regular segment.",
        "id": 20017,
        "segment": "Regular",
        "revenue": 1441.68,
    }
)
SEGMENT_ROWS = json.dumps(
    {
        "headline": "4 segments; High Value brings the most revenue.",
        "segments": [
            {"segment": "High Value", "customers": 1000, "revenue": 2332509.07},
            {"segment": "Regular", "customers": 1383, "revenue": 733656.57},
        ],
    }
)


def _two_turns(second: str, result: str, tool: str = "list_segments") -> list[dict[str, Any]]:
    first = answered(
        "What is customer 20017's revenue?",
        "retail-analytics-get_customer_summary",
        '{"customer_id": 20017}',
        CUSTOMER_20017,
    )
    return [
        *first,
        {"role": "assistant", "content": "Customer 20017 has a revenue of 1,441.68."},
        *answered(second, f"retail-analytics-{tool}", "{}", result, call_id="c2"),
    ]


async def test_an_earlier_turns_customer_in_an_unrelated_answer_is_not_grounded(
    retail: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    """The reported failure: a checked answer of turn 1 let its customer into turn 2's answer."""
    engine.pieces = ["Customer 20017 brings the most revenue."]
    messages = _two_turns("Which segment brings the most revenue?", SEGMENT_ROWS)

    body = (await retail.post("/chat/completions", json={"messages": messages, "tools": RETAIL_TOOLS})).json()

    assert len(engine.prompts) == 2 and '"20017"' in engine.prompts[-1]  # retried, naming the claim
    content = body["choices"][0]["message"]["content"]
    assert "20017" not in content and "High Value" in content  # the data itself instead


async def test_a_follow_up_may_state_what_it_refers_back_to(
    retail: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    engine.pieces = ["That is 12 orders from customer 20017, who spent 1,441.68."]
    orders = json.dumps({"headline": "Customer 20017: 12 orders.", "orders": 12})
    messages = _two_turns("And their orders?", orders, tool="sales_summary")

    body = (await retail.post("/chat/completions", json={"messages": messages, "tools": RETAIL_TOOLS})).json()

    assert len(engine.prompts) == 1  # no retry: 1,441.68 is the answer the question leans on
    assert body["choices"][0]["message"]["content"] == engine.pieces[0]


async def test_a_guide_that_fails_leaves_the_question_to_the_model_never_a_500(
    guided: httpx.AsyncClient, engine: ScriptedEngine
) -> None:
    east = [{"role": "user", "content": "What were the sales in the East region?"}]
    answered = await guided.post("/chat/completions", json={"messages": east, "tools": [SALES]})
    assert answered.status_code == 200 and engine.prompts  # the model answered it


def _content(lines: Iterator[str]) -> str:
    """The next piece of an answer's text in a stream."""
    for line in lines:
        if line.startswith("data: {"):
            delta = json.loads(line.removeprefix("data: "))["choices"][0]["delta"]
            if delta.get("content"):
                return str(delta["content"])
    raise AssertionError("the stream ended")


@contextlib.contextmanager
def _answer_stream(root: str) -> Iterator[Iterator[str]]:
    """The lines of a streamed answer to "sales in the North?" after its tool returned 48,213.50."""
    body = {"messages": _answered('{"sales": 48213.5}'), "tools": [SALES], "stream": True}
    with (
        httpx.Client(base_url=root, headers=AUTH, timeout=10) as client,
        client.stream("POST", "/v1/chat/completions", json=body) as response,
    ):
        yield response.iter_lines()


def test_a_streamed_answer_sends_each_checked_sentence_while_the_model_writes_the_next(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    root, _ = http_server
    engine.pieces = ["North sold ", "48,213.50.", " That is", " most of", " the year."]
    engine.hold_after = 3  # the model stops mid-sentence until the first one has arrived
    with _answer_stream(root) as lines:
        assert _content(lines) == "North sold 48,213.50."
        assert engine.running == 1  # still writing
        engine.resume.set()
        assert _content(lines) == " That is most of the year."


def test_a_streamed_answer_ends_before_a_claim_the_results_do_not_support(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    root, _ = http_server
    engine.pieces = ["North sold ", "48,213.50.", " That is", " 12% more than", " last year."]
    body = {"messages": _answered('{"sales": 48213.5}'), "tools": [SALES], "stream": True}
    with httpx.Client(base_url=root, headers=AUTH, timeout=10) as client:
        events = sse_events(client.post("/v1/chat/completions", json=body).text)
    text = "".join(e["choices"][0]["delta"].get("content") or "" for e in events)
    assert text == "North sold 48,213.50."  # the 12% was never sent
    assert events[-1]["choices"][0]["finish_reason"] == "stop"
    assert len(engine.prompts) == 1  # no second draft: the first sentence had gone out


def test_a_streamed_answer_holds_its_sentences_until_the_count_asked_for_is_stated(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    root, _ = http_server
    engine.pieces = ["The North placed 12 orders."]  # the customers' count, from the same sentence
    headline = "Sales 48,213.50 from 310 orders by 12 customers (region North)."
    messages = _answered(json.dumps({"headline": headline, "sales": 48213.5, "orders": 310, "customers": 12}))
    messages[0] = {"role": "user", "content": "How many orders did the North region place?"}
    body = {"messages": messages, "tools": [SALES], "stream": True}
    with httpx.Client(base_url=root, headers=AUTH, timeout=10) as client:
        events = sse_events(client.post("/v1/chat/completions", json=body).text)
    assert "".join(e["choices"][0]["delta"].get("content") or "" for e in events) == headline


def test_a_streamed_lead_in_waits_for_the_sentence_that_says_something(
    http_server: tuple[str, Any], engine: ScriptedEngine
) -> None:
    """A lead-in alone is no answer: were the rest unsupported, the data itself would be (not sent)."""
    root, _ = http_server
    engine.pieces = ["Based on the data, here is the answer.", " North sold ", "48,213.50.", " It", " leads."]
    engine.hold_after = 4
    with _answer_stream(root) as lines:
        assert _content(lines) == "Based on the data, here is the answer. North sold 48,213.50."
        engine.resume.set()
        assert _content(lines) == " It leads."
