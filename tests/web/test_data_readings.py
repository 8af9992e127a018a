"""A store export's own columns asked about end to end (docs/architecture.md#the-semantic-model): the
file uploaded and imported as an admin would, ``query_data`` called through the real runtime by the
scripted model, its reading shown as chips of the file's columns, a chip changed without the model,
and a name the data holds several of answered with its choices, one picked by a click."""

from pathlib import Path
from typing import Any

import pytest
from chat_helpers import events, messages, send
from sales_csv import STORE_EXPORT
from test_data_api import import_and_wait, upload

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.testing.scripted_model import Text, ToolCall

TOOL = "retail-analytics-query_data"


@pytest.fixture
def store_app(start_app: Any, tmp_path: Path) -> Any:
    """The app with the store export imported through the Data page's API (alice is the admin)."""
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=3, customers=50, transactions=500))
    app = start_app(retail_dataset=True)
    alice = app.client("alice")
    path = tmp_path / "store.csv"
    path.write_text(STORE_EXPORT)
    job = import_and_wait(alice, upload(alice, path).json(), mode="replace")
    assert job["state"] == "finished", job
    return app


def test_a_column_only_this_file_has_is_answered_with_chips_and_one_changed(store_app: Any) -> None:
    alice, bob = store_app.client("alice"), store_app.client("bob")
    model = bob.get("/api/datasets/model").json()
    region = next(c for c in model["columns"] if c["name"] == "region")
    assert region["role"] == "dimension" and region["values"] == ["South", "West"]
    assert {"profit", "margin", "revenue"} <= {m["value"] for m in model["metrics"]}

    session_id = alice.post("/api/sessions", json={}).json()["id"]
    store_app.model.script(
        ToolCall(TOOL, {"metrics": ["profit"], "group_by": [{"column": "region"}]}), Text(".")
    )
    (reading,) = events(send(alice, session_id, "profit by region?"))[-1][1]["readings"]
    assert reading["tool"] == "query_data"
    assert reading["answer"].splitlines() == [
        "Profit by region, all time:",
        "1. South: 261.50",
        "2. West: -376.16",
        "",
        "Total of the 2: -114.66",
    ]
    assert [c["label"] for c in reading["chips"]] == ["Profit", "by region", "all time"]

    query = {**reading["query"], "filters": [{"column": "segment", "op": "in", "values": ["Consumer"]}]}
    changed = alice.post(f"/api/sessions/{session_id}/readings", json={"query": query, "tool": "query_data"})
    assert changed.status_code == 201, changed.text
    last = messages(alice, session_id)[-1]
    assert last["content"].splitlines()[0] == "Profit by region, Segment Consumer, all time:"
    assert last["readings"][0]["tool"] == "query_data"

    refused = alice.post(
        f"/api/sessions/{session_id}/readings", json={"query": {"metrics": ["weather"]}, "tool": "query_data"}
    )
    assert refused.status_code == 422 and "weather" in refused.json()["detail"]


def test_a_name_the_data_holds_several_of_is_asked_about_and_a_click_answers(store_app: Any) -> None:
    alice = store_app.client("alice")
    session_id = alice.post("/api/sessions", json={}).json()["id"]
    asked = {"metrics": ["orders"], "filters": [{"column": "customer_name", "op": "in", "values": ["Chand"]}]}
    store_app.model.script(ToolCall(TOOL, asked), Text("."))
    (reading,) = events(send(alice, session_id, "how many orders did Chand place?"))[-1][1]["readings"]
    assert reading["clarify"] == {
        "column": "customer_name",
        "value": "Chand",
        "choices": ["Darrin Chand", "Sean Chand"],
        "by": None,
    }
    picked = {
        **reading["query"],
        "filters": [{"column": "customer_name", "op": "in", "values": ["Sean Chand"]}],
    }
    answered = alice.post(
        f"/api/sessions/{session_id}/readings", json={"query": picked, "tool": "query_data"}
    )
    assert answered.status_code == 201, answered.text
    assert messages(alice, session_id)[-1]["content"] == "Orders, Customer name Sean Chand, all time: 1."
