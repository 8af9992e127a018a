"""Through the app, with the retail tools and the planner's guide as the retail app runs them: a
question about the chat is answered from it, never read as a data question; a data follow-up is still
the guide's call."""

import asyncio
import json
import sqlite3
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_orchestrator.local_model.app import create_app
from agent_orchestrator.local_model.engine import GenerationParams, GenerationStats
from agent_orchestrator.mcp_server.lexicon import RETAIL
from agent_orchestrator.mcp_server.server import build_server
from agent_orchestrator.planner import QueryGuide
from agent_orchestrator.retail.analysis import Query, answer_query
from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

TOKEN = "test-token"


class NoModel:
    """An engine that must not be asked: every step here is the guide's or the conversation's."""

    n_ctx = 4096
    load_seconds = 0.0
    chat_template = "{% for m in messages %}{{ m.content }}{% endfor %}"
    special_tokens = ("", "")

    def tokenize(self, text: str) -> list[int]:
        return [ord(c) for c in text]

    def warm_up(self) -> None:
        pass

    def generate(
        self, prompt: list[int], params: GenerationParams, cancel: threading.Event | None = None
    ) -> Iterator[str | GenerationStats]:
        raise AssertionError("the model was asked")


@pytest.fixture(scope="module")
def retail_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return generate_dataset(
        tmp_path_factory.mktemp("conversation") / "retail.sqlite",
        GeneratorConfig(customers=300, transactions=3000),
    )


@pytest.fixture(scope="module")
def tools(retail_db: Path) -> list[dict[str, Any]]:
    listed = asyncio.run(build_server(retail_db).list_tools())
    return [
        {
            "type": "function",
            "function": {
                "name": f"retail-analytics-{t.name}",
                "description": t.description,
                "parameters": t.input_schema,
            },
        }
        for t in listed
    ]


class Chat:
    """A session as the runtime drives it: the whole conversation sent with every request."""

    def __init__(self, client: httpx.AsyncClient, tools: list[dict[str, Any]], db: Path) -> None:
        self.client, self.tools, self.db = client, tools, db
        self.messages: list[dict[str, Any]] = []

    async def ask(self, question: str) -> tuple[dict[str, Any] | None, str]:
        """The call made for ``question`` (None: none) and the answer shown."""
        self.messages.append({"role": "user", "content": question})
        message = await self._complete()
        arguments = None
        if message.get("tool_calls"):
            call = message["tool_calls"][0]
            arguments = json.loads(call["function"]["arguments"])
            with sqlite3.connect(self.db) as conn:
                result = answer_query(conn, Query(**arguments))
            self.messages += [
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result, default=str)},
            ]
            message = await self._complete()
        self.messages.append({"role": "assistant", "content": message["content"]})
        return arguments, message["content"]

    async def _complete(self) -> dict[str, Any]:
        body = {"messages": self.messages, "tools": self.tools}
        response = await self.client.post("/chat/completions", json=body)
        assert response.status_code == 200, response.text
        return response.json()["choices"][0]["message"]


@pytest.fixture
async def chat(tools: list[dict[str, Any]], retail_db: Path) -> AsyncIterator[Chat]:
    app = create_app(NoModel(), token=TOKEN, model_id="local-test", guide=QueryGuide(), lexicon=RETAIL)
    transport = httpx.ASGITransport(app=app)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://localhost/v1", headers=headers) as client,
    ):
        yield Chat(client, tools, retail_db)


async def test_questions_about_the_chat_are_never_read_as_data(chat: Chat) -> None:
    top, answer = await chat.ask("Which customer spent the most in 2025?")
    assert top is not None and top["group_by"] == "customer"
    customer = answer.split("customer ")[-1].split(":")[0]  # "… 2025: customer 20071: 3,053.76 …"
    spent, _ = await chat.ask(f"How much has customer {customer} spent in total?")
    assert spent is not None and spent["customer_id"] == int(customer)

    assert await chat.ask("Which customer did I ask about first in this chat?") == (
        None,
        f"The first customer you asked about was customer {customer} "
        f'(you asked: "How much has customer {customer} spent in total?").',
    )
    assert await chat.ask("What was the very first question I asked you here?") == (
        None,
        'Your first question was: "Which customer spent the most in 2025?"',
    )
    _, repeated = await chat.ask("repeat your second answer")
    assert repeated.startswith(f'My second answer (to "How much has customer {customer} spent in total?")')


async def test_a_data_follow_up_after_a_question_about_the_chat_is_still_the_guides(chat: Chat) -> None:
    revenue, _ = await chat.ask("What was the revenue in Germany in 2025?")
    assert revenue is not None and revenue["countries"] == ["Germany"]
    _, quoted = await chat.ask("What did I just ask?")
    assert quoted == 'Your last question was: "What was the revenue in Germany in 2025?"'

    france, answer = await chat.ask("and in France?")

    assert france is not None and france["countries"] == ["France"] and france["period"] == "2025"
    assert answer.startswith("Revenue, France, 2025")
