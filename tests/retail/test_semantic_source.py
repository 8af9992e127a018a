"""Each version keeps its file's semantic model and rows: every column of an export, its own keys and
totals, in any encoding; the generated data and appends get a model of the retail tables."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from retail_fixtures import SMALL

from agent_orchestrator.retail import generate_dataset
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv
from agent_orchestrator.retail.datasets.semantic import semantic_source
from agent_orchestrator.semantic import Engine, Entity, Role, SemanticQuery

STORE = (
    "Row ID,Order ID,Order Date,Ship Mode,Customer ID,Customer Name,Segment,Region,Product ID,"
    "Product Name,Sales,Quantity,Discount,Profit\n"
    "1,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,South,FUR-1,Bookcase,261.96,2,0,41.9136\n"
    "2,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,South,FUR-2,Chairs,731.94,3,0,219.582\n"
    "3,CA-2,6/30/2016,Same Day,DV-13045,Darrin Van Huff,Corporate,West,OFF-1,Labels,14.62,2,0,6.8714\n"
    "4,US-3,10/11/2015,Standard Class,SO-20335,Sean O'Donnell,Consumer,Ouest Crème,FUR-3,Table,"
    "957.5775,5,0.45,-383.031\n"
)


def _import(library: DatasetLibrary, path: Path, mode: str = "replace") -> None:
    preview = inspect_csv(path)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    library.import_csv(path, mapping, preview.format, mode=mode, actor="admin", source_name=path.name)


@pytest.fixture
def library(tmp_path: Path) -> DatasetLibrary:
    found = DatasetLibrary(tmp_path / "data", keep=3)
    yield found
    found.close()


@pytest.mark.parametrize("encoding", ["utf-8", "cp1252"])
def test_an_export_keeps_every_column_its_keys_and_its_totals(
    library: DatasetLibrary, tmp_path: Path, encoding: str
) -> None:
    path = tmp_path / "store.csv"
    path.write_bytes(STORE.encode(encoding))
    _import(library, path)
    model, rows = semantic_source(library.current_path())
    roles = {column.name: column.role for column in model.columns}
    assert roles["region"] is Role.dimension and roles["ship_mode"] is Role.dimension
    assert roles["profit"] is Role.measure and roles["row_id"] is Role.ignore
    assert model.key_of(Entity.customer).name == "customer_id"  # type: ignore[union-attr]
    assert model.label_of(Entity.customer).name == "customer_name"  # type: ignore[union-attr]
    with Engine(model, rows) as engine:
        ((revenue, profit, orders),) = engine.run(SemanticQuery(metrics=["revenue", "profit", "orders"])).rows
        assert round(revenue, 4) == round(261.96 + 731.94 + 14.62 + 957.5775, 4)  # the file's own totals
        assert round(profit, 4) == round(41.9136 + 219.582 + 6.8714 - 383.031, 4) and orders == 3
        customers = engine.run(
            SemanticQuery(metrics=["revenue"], group_by=[{"column": "customer_id"}])
        ).records()
        assert customers[0]["customer_id"] == "CG-12520"  # as the file writes it, with its name
        assert customers[0]["customer_id__label"] == "Claire Gute"
        assert "Ouest Crème" in engine.values()["region"]


def test_the_generated_data_and_an_append_answer_over_the_retail_tables(
    library: DatasetLibrary, tmp_path: Path
) -> None:
    generate_dataset(library.default_path, SMALL)
    model, rows = semantic_source(library.current_path())  # version zero: the generated data
    assert {"segment", "country", "line_total"} <= {c.name for c in model.columns}
    with Engine(model, rows) as engine:
        assert engine.run(SemanticQuery(metrics=["revenue"])).rows[0][0] > 0
    path = tmp_path / "store.csv"
    path.write_text(STORE)
    _import(library, path)
    _import(library, path, mode="append")  # the same lines again replace themselves
    model, rows = semantic_source(library.current_path())
    assert "region" not in {c.name for c in model.columns}
    with Engine(model, rows) as engine:
        assert engine.run(SemanticQuery(metrics=["orders"])).rows == [(3,)]


def test_the_rows_are_written_again_when_their_file_is_gone(library: DatasetLibrary, tmp_path: Path) -> None:
    path = tmp_path / "store.csv"
    path.write_text(STORE)
    _import(library, path)
    _, rows = semantic_source(library.current_path())
    shutil.copyfile(rows, tmp_path / "kept.parquet")
    rows.unlink()
    model, again = semantic_source(library.current_path())
    assert again == rows and again.read_bytes() == (tmp_path / "kept.parquet").read_bytes()
    assert model.dataset == "store"


def test_a_currency_the_file_names_is_the_datasets(library: DatasetLibrary, tmp_path: Path) -> None:
    path = tmp_path / "shop.csv"
    lines = STORE.splitlines()
    path.write_text("\n".join([lines[0] + ",Currency", *(line + ",EUR" for line in lines[1:])]) + "\n")
    _import(library, path)
    model, _ = semantic_source(library.current_path())
    assert model.currency == "EUR" and library.facts().currency == "EUR"
