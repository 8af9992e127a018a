"""The REST routers through FastAPI's TestClient: validation (422), paging, 404, 503, OpenAPI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient
from retail_fixtures import HEADER

from agent_orchestrator.retail import import_online_retail_csv
from agent_orchestrator.retail.api import create_retail_router
from agent_orchestrator.web.errors import install_error_handler

PREFIX = "/api/retail"


def _app(db_path: Path | None) -> FastAPI:
    app = FastAPI()
    app.include_router(create_retail_router(), prefix=PREFIX)
    install_error_handler(app)
    if db_path is not None:
        app.state.retail_db = db_path
    return app


@pytest.fixture
def client(small_db: Path) -> Iterator[TestClient]:
    with TestClient(_app(small_db)) as test_client:
        yield test_client


def test_segments_list_with_summaries(client: TestClient) -> None:
    body = client.get(f"{PREFIX}/segments").json()
    assert [s["segment"] for s in body["segments"]] == ["High Value", "Regular", "At Risk", "New"]
    assert body["overall"]["customers"] == 300
    assert body["as_of"].startswith("2025-12")
    assert len(body["rules"]["rules"]) == 4


def test_customers_paging_and_filters(client: TestClient) -> None:
    first = client.get(f"{PREFIX}/customers", params={"limit": 5}).json()
    second = client.get(f"{PREFIX}/customers", params={"limit": 5, "offset": 5}).json()
    assert first["total"] == second["total"] == 300
    assert (first["limit"], second["offset"]) == (5, 5)
    assert not {c["customer_id"] for c in first["items"]} & {c["customer_id"] for c in second["items"]}
    new = client.get(f"{PREFIX}/customers", params={"segment": "New", "limit": 500}).json()
    assert new["total"] == len(new["items"]) > 0 and {c["segment"] for c in new["items"]} == {"New"}
    past_the_end = client.get(f"{PREFIX}/customers", params={"offset": 1000}).json()
    assert past_the_end["items"] == [] and past_the_end["total"] == 300


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 0},
        {"limit": 501},
        {"offset": -1},
        {"limit": "ten"},
        {"segment": "VIP"},
        {"country": ""},
        {"segmnt": "New"},  # a typo is an error, not a silently ignored filter
    ],
)
def test_customers_rejects_bad_query(client: TestClient, params: dict[str, object]) -> None:
    assert client.get(f"{PREFIX}/customers", params=params).status_code == 422


def test_customer_detail_and_404(client: TestClient) -> None:
    customer_id = client.get(f"{PREFIX}/customers", params={"limit": 1}).json()["items"][0]["customer_id"]
    detail = client.get(f"{PREFIX}/customers/{customer_id}").json()
    assert detail["customer_id"] == customer_id
    assert {"segment", "segment_reason", "rfm", "top_products", "avg_order_value"} <= set(detail)
    assert client.get(f"{PREFIX}/customers/999999").status_code == 404
    assert client.get(f"{PREFIX}/customers/0").status_code == 422
    assert client.get(f"{PREFIX}/customers/abc").status_code == 422
    for path in (f"customers/{2**63}", f"customers/{2**63}/trend", f"transactions/{2**63}"):
        assert client.get(f"{PREFIX}/{path}").status_code == 422


def test_customer_trend_is_a_timeline_from_the_first_purchase_with_404_for_an_unknown_id(
    client: TestClient,
) -> None:
    customer_id = client.get(f"{PREFIX}/customers", params={"limit": 1}).json()["items"][0]["customer_id"]
    detail = client.get(f"{PREFIX}/customers/{customer_id}").json()
    trend = client.get(f"{PREFIX}/customers/{customer_id}/trend", params={"months": 36}).json()
    months = [point["month"] for point in trend["months"]]
    assert trend["customer_id"] == customer_id
    assert months == sorted(months) and months[-1].startswith("2025-12")
    assert months[0] == detail["first_purchase"][:7]  # the dataset spans less than 36 months
    assert round(sum(p["revenue"] for p in trend["months"]), 2) == pytest.approx(detail["revenue"], abs=0.05)
    assert sum(p["orders"] for p in trend["months"]) == detail["orders"]
    assert client.get(f"{PREFIX}/customers/999999/trend").status_code == 404
    assert client.get(f"{PREFIX}/customers/{customer_id}/trend", params={"months": 37}).status_code == 422


def test_transactions_filters_and_paging(client: TestClient) -> None:
    params = {
        "date_from": "2025-11-01",
        "date_to": "2025-11-30",
        "min_amount": 10,
        "country": "united kingdom",
    }
    page = client.get(f"{PREFIX}/transactions", params={**params, "limit": 20}).json()
    assert page["total"] > 20 and len(page["items"]) == 20
    for item in page["items"]:
        assert item["invoiced_at"].startswith("2025-11") and item["amount"] >= 10
        assert item["country"] == "United Kingdom"
    tid = page["items"][0]["transaction_id"]
    assert client.get(f"{PREFIX}/transactions/{tid}").json() == page["items"][0]
    assert client.get(f"{PREFIX}/transactions/999999999").status_code == 404


@pytest.mark.parametrize(
    "params",
    [
        {"date_from": "2025-12-01", "date_to": "2025-11-01"},
        {"min_amount": 10, "max_amount": 5},
        {"date_from": "yesterday"},
        {"customer_id": 0},
        {"customer_id": 2**63},  # SQLite's integers are 64-bit: past them is no id, not an overflow
        {"limit": 10_000},
        {"amount": 5},
    ],
)
def test_transactions_rejects_bad_query(client: TestClient, params: dict[str, object]) -> None:
    assert client.get(f"{PREFIX}/transactions", params=params).status_code == 422


def test_trend_and_predict(client: TestClient) -> None:
    trend = client.get(f"{PREFIX}/segments/At Risk/trend", params={"months": 3}).json()
    assert len(trend["months"]) == 3 and trend["months"][-1]["month"].startswith("2025-12")
    assert client.get(f"{PREFIX}/segments/At Risk/trend", params={"months": 0}).status_code == 422
    assert client.get(f"{PREFIX}/segments/Gold/trend").status_code == 422
    predict = f"{PREFIX}/segments/predict"
    predicted = client.get(predict, params={"recency_days": 200, "frequency": 3, "monetary": 9})
    assert predicted.json()["segment"] == "At Risk"
    assert client.get(predict, params={"recency_days": 1, "frequency": 0, "monetary": 1}).status_code == 422


def test_analysis_options_are_the_datas_own_choices(client: TestClient) -> None:
    options = client.get(f"{PREFIX}/analysis/options").json()
    assert options["measures"][0] == {"value": "revenue", "label": "Revenue"}
    assert {"value": "avg_order_value", "label": "Average order value"} in options["measures"]
    assert options["countries"] == sorted(options["countries"]) and "Germany" in options["countries"]
    assert options["segments"] == ["High Value", "Regular", "At Risk", "New"]
    periods = [p["value"] for p in options["periods"]]
    assert periods[:3] == ["2025", "2025-12", "2025-11"] and periods[-1] == "2024-01"
    assert {"value": "2024-06", "label": "June 2024"} in options["periods"]
    assert len(periods) == 2 + 24 and options["max_rows"] == 50


def test_unconfigured_or_missing_database_is_503(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RETAIL_DB", raising=False)
    with TestClient(_app(None)) as unconfigured:
        response = unconfigured.get(f"{PREFIX}/segments")
        assert response.status_code == 503 and response.json()["detail"] == "retail database unavailable"
    with TestClient(_app(tmp_path / "missing.sqlite")) as missing:
        response = missing.get(f"{PREFIX}/segments")
        assert response.status_code == 503 and "missing.sqlite" not in response.text  # no server paths leak


def test_a_dataset_without_purchases_is_409(tmp_path: Path) -> None:
    empty = tmp_path / "empty.sqlite"
    header_only = tmp_path / "header.csv"
    header_only.write_text(HEADER)
    import_online_retail_csv(empty, header_only)
    with TestClient(_app(empty)) as client:
        predicted = client.get(
            f"{PREFIX}/segments/predict", params={"recency_days": 1, "frequency": 1, "monetary": 1}
        )
        trend = client.get(f"{PREFIX}/segments/At Risk/trend")
    assert (predicted.status_code, trend.status_code) == (409, 409)
    assert predicted.json()["detail"].startswith("the retail database has no purchases yet")


def test_env_var_is_the_fallback_path(small_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RETAIL_DB", str(small_db))
    with TestClient(_app(None)) as via_env:
        assert via_env.get(f"{PREFIX}/segments").status_code == 200


def test_openapi_documents_every_route(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    routes = {path: ops["get"] for path, ops in spec["paths"].items()}
    assert set(routes) == {
        f"{PREFIX}/segments",
        f"{PREFIX}/segments/predict",
        f"{PREFIX}/segments/{{segment}}/trend",
        f"{PREFIX}/customers",
        f"{PREFIX}/customers/{{customer_id}}",
        f"{PREFIX}/customers/{{customer_id}}/trend",
        f"{PREFIX}/transactions",
        f"{PREFIX}/transactions/{{transaction_id}}",
        f"{PREFIX}/analysis/options",
    }
    for operation in routes.values():
        assert operation["summary"]
        assert "$ref" in str(operation["responses"]["200"]["content"]["application/json"]["schema"])
    assert "404" in routes[f"{PREFIX}/customers/{{customer_id}}"]["responses"]
