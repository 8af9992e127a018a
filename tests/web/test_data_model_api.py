"""The Data page's Columns over HTTP (docs/architecture.md#the-data-page): everyone reads each column's
role and profile; an admin turns a column into another role and gives synonyms, which is a new version
that the model, the versions list and the ``query_data`` readings follow; a change the rows cannot
take is one ``422`` naming the column and changes nothing; an analyst gets an audited ``403`` and a
request without the CSRF header is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import httpx
import pytest
from test_data_api import audit_actions, import_and_wait, upload

from agent_orchestrator.retail import GeneratorConfig, generate_dataset
from agent_orchestrator.semantic.model import MAX_SYNONYMS
from agent_orchestrator.web.deps import ADMINS_ONLY

MODEL = "/api/datasets/model"
STORE = (
    "Row ID,Order ID,Order Date,Ship Mode,Customer ID,Customer Name,Segment,City,State,Postal Code,Region,"
    "Product ID,Product Name,Sales,Quantity,Discount,Profit\n"
    "1,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,Henderson,Kentucky,42420,South,FUR-1,"
    "Bookcase,261.96,2,0,41.9136\n"
    "2,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,Henderson,Kentucky,42420,South,FUR-2,"
    "Chairs,731.94,3,0,219.582\n"
    "3,CA-2,6/30/2016,Same Day,DV-13045,Darrin Van Huff,Corporate,Los Angeles,California,90036,West,OFF-1,"
    "Labels,14.62,2,0,6.8714\n"
    "4,US-3,10/11/2015,Standard Class,SO-20335,Sean O'Donnell,Consumer,Fort Lauderdale,Florida,33311,South,"
    "FUR-3,Table,957.5775,5,0.45,-383.031\n"
)


@pytest.fixture
def store_app(start_app: Any, tmp_path: Path) -> Any:
    """The app with the store export (with its city, state, postal code and region) imported through
    the Data page's API; alice is the admin, bob an analyst."""
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=3, customers=50, transactions=500))
    app = start_app(retail_dataset=True)
    alice = app.client("alice")
    path = tmp_path / "store.csv"
    path.write_text(STORE)
    job = import_and_wait(alice, upload(alice, path).json(), mode="replace")
    assert job["state"] == "finished", job
    return app


def columns(client: httpx.Client) -> dict[str, dict[str, Any]]:
    answered = client.get(MODEL)
    assert answered.status_code == 200, answered.text
    return {column["name"]: column for column in answered.json()["columns"]}


def reading(client: httpx.Client, session_id: str, column: str) -> httpx.Response:
    """A ``query_data`` reading grouped by ``column``, computed on the active version."""
    query = {"metrics": ["revenue"], "group_by": [{"column": column}]}
    return client.post(f"/api/sessions/{session_id}/readings", json={"query": query, "tool": "query_data"})


def test_everyone_sees_the_roles_and_profiles_and_an_admin_changes_them(store_app: Any) -> None:
    alice, bob = store_app.client("alice"), store_app.client("bob")
    shown = columns(bob)
    postal, region, ship = shown["postal_code"], shown["region"], shown["ship_mode"]
    assert (postal["header"], postal["role"], region["role"]) == ("Postal Code", "dimension", "dimension")
    assert (shown["customer_id"]["role"], shown["customer_id"]["entity"]) == ("key", "customer")
    assert (shown["sales"]["role"], shown["sales"]["unit"], shown["sales"]["mapped"]) == (
        "measure",
        "money",
        "line_total",
    )
    assert shown["row_id"]["role"] == "ignore" and region["synonyms"] == ["area"]  # suggested
    assert ship["profile"]["type"] == "VARCHAR" and ship["profile"]["distinct"] == 3
    assert ship["profile"]["nulls"] == 0
    assert set(ship["profile"]["samples"]) == {"Second Class", "Same Day", "Standard Class"}
    assert postal["profile"]["type"] == "BIGINT" and set(postal["profile"]["samples"]) == {
        "42420",
        "90036",
        "33311",
    }
    revenue = next(m for m in bob.get(MODEL).json()["metrics"] if m["value"] == "revenue")
    assert revenue["label"] == "Revenue" and "sales" in revenue["synonyms"]

    session_id = alice.post("/api/sessions", json={}).json()["id"]
    assert reading(alice, session_id, "postal_code").status_code == 201
    before = alice.get("/api/datasets/versions").json()["items"]

    changed = alice.put(
        MODEL,
        json={
            "columns": {
                "Postal Code": {"role": "ignore"},
                "region": {"synonyms": ["territory", " Territory ", ""]},
            },
            "metrics": {"revenue": {"label": "Sales", "synonyms": ["sales", "turnover"]}},
        },
    )
    assert changed.status_code == 200, changed.text
    answered = {column["name"]: column for column in changed.json()["columns"]}
    assert answered["postal_code"]["role"] == "ignore" and answered["region"]["synonyms"] == ["territory"]
    assert columns(bob) == answered  # what GET answers from now on, for everyone
    revenue = next(m for m in bob.get(MODEL).json()["metrics"] if m["value"] == "revenue")
    assert (revenue["label"], revenue["synonyms"]) == ("Sales", ["sales", "turnover"])

    versions = alice.get("/api/datasets/versions").json()["items"]
    assert len(versions) == len(before) + 1
    newest = versions[0]
    assert (newest["mode"], newest["created_by"], newest["active"]) == ("model", "alice", True)
    assert (newest["source_name"], newest["rows"]) == ("store.csv", 4)
    assert alice.get("/api/datasets").json()["version_id"] == newest["id"]
    assert audit_actions(store_app)()[-1] == "data_model"

    # query_data reads the new version: the ignored column is no longer one to group by.
    refused = reading(alice, session_id, "postal_code")
    assert refused.status_code == 422 and "postal_code" in refused.json()["detail"], refused.text
    assert reading(alice, session_id, "region").status_code == 201

    # The same words again: nothing different, no new version.
    again = alice.put(MODEL, json={"columns": {"region": {"synonyms": ["territory"]}}})
    assert again.status_code == 200
    assert len(alice.get("/api/datasets/versions").json()["items"]) == len(versions)

    # Restoring the version before restores its model with its data.
    restored = alice.post(f"/api/datasets/versions/{versions[1]['id']}/activate")
    assert restored.status_code == 200
    assert columns(alice)["postal_code"]["role"] == "dimension"


def test_a_change_the_rows_cannot_take_is_one_message_and_changes_nothing(store_app: Any) -> None:
    alice = store_app.client("alice")
    shown = columns(alice)
    versions = alice.get("/api/datasets/versions").json()["items"]
    for body, detail in [
        (
            {"columns": {"ship_mode": {"role": "measure"}}},
            "The column 'Ship Mode' cannot be a measure: its value",
        ),
        (
            {"columns": {"Row ID": {"role": "time"}, "region": {"synonyms": ["territory"]}}},
            "The column 'Row ID' cannot be a time column: its value '",
        ),
        (
            {"columns": {"customer_name": {"role": "key"}}},
            "The columns cannot be so: one key per entity: customer has customer_id, customer_name",
        ),
        ({"columns": {"region": {"role": "label"}}}, "The column 'Region' as a label needs the entity"),
        ({"columns": {"weather": {"role": "dimension"}}}, "The dataset has no column 'weather'."),
        ({"metrics": {"weather": {"label": "Rain"}}}, "The dataset has no metric 'weather'."),
    ]:
        refused = alice.put(MODEL, json=body)
        assert refused.status_code == 422, (body, refused.text)
        message = refused.json()["detail"]
        assert isinstance(message, str) and "\n" not in message and message.startswith(detail), message
    # The request's own shape: unknown fields, roles, too many or too long synonyms, a NUL.
    for body in [
        {"columns": {"region": {"colour": "red"}}},
        {"columns": {"region": {"role": "favourite"}}},
        {"columns": {"region": {"synonyms": ["x" * 61]}}},
        {"columns": {"region": {"synonyms": [f"s{n}" for n in range(MAX_SYNONYMS + 1)]}}},
        {"columns": {"region": {"label": "Re\x00gion"}}},
        {"tables": {}},
    ]:
        assert alice.put(MODEL, json=body).status_code == 422, body
    assert columns(alice) == shown
    assert alice.get("/api/datasets/versions").json()["items"] == versions


def test_an_analyst_is_refused_audited_and_a_request_without_the_csrf_header_too(store_app: Any) -> None:
    bob = store_app.client("bob")
    body = {"columns": {"region": {"synonyms": ["territory"]}}}
    refused = bob.put(MODEL, json=body)
    assert (refused.status_code, refused.json()) == (403, {"detail": ADMINS_ONLY})
    assert audit_actions(store_app)()[-1] == "forbidden"

    alice = store_app.client("alice")
    del alice.headers["X-CSRF-Token"]
    refused = alice.put(MODEL, json=body)
    assert (refused.status_code, refused.json()["detail"]) == (403, "Missing or wrong CSRF token.")
    assert columns(alice)["region"]["synonyms"] == ["area"]  # as suggested: unchanged
    assert len(alice.get("/api/datasets/versions").json()["items"]) == 2  # the import and version zero


def test_the_start_screen_follows_the_active_version(start_app: Any, tmp_path: Path) -> None:
    """Every user reads what a new chat starts from; after an import it is the new file's."""
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=3, customers=50, transactions=500))
    app = start_app(retail_dataset=True)
    alice, bob = app.client("alice"), app.client("bob")
    before = bob.get(f"{MODEL}/start")
    assert before.status_code == 200, before.text
    generated = before.json()
    assert generated["rows"] > 0 and "country" in generated["dimensions"] and generated["suggestions"]
    assert generated["brief"].startswith(f"I answer questions on the {generated['dataset']} data")
    assert generated["currency_note"].startswith("No currency is set for this data")  # said once, here
    assert generated["currency_note"] in generated["brief"]
    assert alice.patch("/api/datasets/settings", json={"currency": "CHF"}).status_code == 200
    assert bob.get(f"{MODEL}/start").json()["currency_note"] == "Amounts are in CHF."

    path = tmp_path / "store.csv"
    path.write_text(STORE)
    assert import_and_wait(alice, upload(alice, path).json(), mode="replace")["state"] == "finished"
    store = bob.get(f"{MODEL}/start").json()
    assert (store["rows"], store["first_day"], store["last_day"]) == (4, "2015-10-11", "2016-11-08")
    assert "region" in store["dimensions"] and "profit" in store["measures"]
    assert store["suggestions"][0] == "What was revenue in October 2016?"
    assert httpx.get(f"{app.url}{MODEL}/start").status_code == 401


def test_a_file_of_one_column_per_item_says_what_it_was_read_from(start_app: Any, tmp_path: Path) -> None:
    """A till's export of one column per item imports as its lines; the model says which headers were
    items and that the receipt's total is the order's own, and an admin's change keeps both."""
    generate_dataset(tmp_path / "retail.sqlite", GeneratorConfig(seed=3, customers=50, transactions=500))
    app = start_app(retail_dataset=True)
    alice = app.client("alice")
    items = ("angbutter", "plain bread", "jam", "americano", "croissant")
    rows = ["datetime;total;place;" + ";".join(items)]
    rows += [
        f"{1 + n}/03/2020 10:05;{1000 + n};north;{1 + n % 2};{'' if n % 3 else 2};;1;" for n in range(20)
    ]
    path = tmp_path / "till.csv"
    path.write_text("\n".join(rows) + "\n")
    assert import_and_wait(alice, upload(alice, path).json(), mode="replace")["state"] == "finished"
    shown = alice.get(MODEL).json()
    assert shown["items_from"] == list(items)
    by_name = {column["name"]: column for column in shown["columns"]}
    assert {"item", "quantity", "order_number"} <= set(by_name) and "angbutter" not in by_name
    assert by_name["total"]["of_order"] and not by_name["quantity"]["of_order"]
    changed = alice.put(MODEL, json={"columns": {"place": {"synonyms": ["neighbourhood"]}}})
    assert changed.status_code == 200, changed.text
    assert changed.json()["items_from"] == list(items) and alice.get(MODEL).json()["items_from"] == list(
        items
    )
