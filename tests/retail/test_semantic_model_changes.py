"""An admin's change of the semantic model is a new version (``DatasetLibrary.update_model``): the
roles, labels and synonyms given, the metrics derived again when a role changes (keeping the words
given to the metrics that remain), refused in one message naming the column when the rows cannot be
read so; the generated data keeps the model it was answered with, and its rows, once changed."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from retail_fixtures import SMALL

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail import generate_dataset
from agent_orchestrator.retail.datasets import DatasetLibrary, inspect_csv
from agent_orchestrator.retail.datasets.semantic import (
    ColumnChange,
    MetricChange,
    ModelChanges,
    rows_profile,
    semantic_source,
)
from agent_orchestrator.semantic import Engine, Entity, Role, SemanticQuery

STORE = (
    "Row ID,Order ID,Order Date,Ship Mode,Customer ID,Customer Name,Segment,Postal Code,Region,Product ID,"
    "Product Name,Sales,Quantity,Discount,Profit\n"
    "1,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,42420,South,FUR-1,Bookcase,261.96,2,0,41.9\n"
    "2,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,42420,South,FUR-2,Chairs,731.94,3,0,219.5\n"
    "3,CA-2,6/30/2016,Same Day,DV-13045,Darrin Van Huff,Corporate,90036,West,OFF-1,Labels,14.62,2,0,6.8\n"
    "4,US-3,10/11/2015,Standard Class,SO-20335,Sean O'Donnell,Consumer,33311,South,FUR-3,Table,957.57,5,"
    "0.45,-383.0\n"
)


@pytest.fixture
def library(tmp_path: Path) -> DatasetLibrary:
    found = DatasetLibrary(tmp_path / "data")
    yield found
    found.close()


@pytest.fixture
def store(library: DatasetLibrary, tmp_path: Path) -> DatasetLibrary:
    """The library with the store export imported (replace): a version that keeps its model."""
    path = tmp_path / "store.csv"
    path.write_text(STORE)
    preview = inspect_csv(path)
    mapping = {field: column for field, column in preview.mapping.items() if column}
    library.import_csv(path, mapping, preview.format, mode="replace", actor="admin", source_name=path.name)
    return library


def test_roles_and_words_change_in_a_new_version_and_the_metrics_follow_the_roles(
    store: DatasetLibrary,
) -> None:
    before_path = store.current_path()
    model, _ = semantic_source(before_path)
    assert {"average_discount", "revenue"} <= {m.name for m in model.metrics}
    changed = store.update_model(
        "admin",
        ModelChanges(
            columns={
                "Postal Code": ColumnChange(role=Role.ignore),
                "region": ColumnChange(label="Sales region", synonyms=["area", " Area", "zone "]),
            },
            metrics={"profit": MetricChange(label="Earnings", synonyms=["earnings"])},
        ),
    )
    assert store.current_path() != before_path and semantic_source(before_path)[0] == model  # kept as it was
    versions = store.versions()
    assert (versions[0].mode, versions[0].created_by, versions[0].active) == ("model", "admin", True)
    assert (versions[0].source_name, versions[0].rows) == ("store.csv", 4)
    assert semantic_source(store.current_path())[0] == changed
    assert changed.column("postal_code").role is Role.ignore
    region = changed.column("region")
    assert (region.title, region.synonyms) == ("Sales region", ["area", "zone"])
    assert changed.column("sales").mapped == "line_total"  # what the import confirmed stays

    # A role changes: the metrics are derived again; the admin's words for those that remain stay.
    again = store.update_model("admin", ModelChanges(columns={"discount": ColumnChange(role=Role.dimension)}))
    names = {m.name for m in again.metrics}
    assert "average_discount" not in names and "revenue" in names
    assert (again.metric("profit").title, again.metric("profit").synonyms) == ("Earnings", ["earnings"])
    with Engine(again, semantic_source(store.current_path())[1]) as engine:
        rows = engine.run(SemanticQuery(metrics=["revenue"], group_by=[{"column": "discount"}])).records()
        assert {row["discount"] for row in rows} == {"0.0", "0.45"}

    # Other synonyms (their order is the admin's) are a version; nothing different is none.
    active = store.current_version_id()
    store.update_model("admin", ModelChanges(columns={"region": ColumnChange(synonyms=["zone", "area"])}))
    assert store.current_version_id() != active
    active = store.current_version_id()
    same = ModelChanges(columns={"region": ColumnChange(synonyms=["zone", "area"], role=Role.dimension)})
    assert store.update_model("admin", same) == semantic_source(store.current_path())[0]
    assert store.current_version_id() == active


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            ModelChanges(columns={"Ship Mode": ColumnChange(role=Role.measure)}),
            "The column 'Ship Mode' cannot be a measure: its value '",
        ),
        (
            ModelChanges(columns={"customer_name": ColumnChange(role=Role.time)}),
            "The column 'Customer Name' cannot be a time column: its value '",
        ),
        (
            ModelChanges(columns={"region": ColumnChange(role=Role.key, entity=Entity.order)}),
            "The columns cannot be so: one key per entity: order has order_id, region",
        ),
        (
            ModelChanges(columns={"region": ColumnChange(entity=Entity.order)}),
            "Only a key or a label identifies an entity",
        ),
        (
            ModelChanges(columns={"region": ColumnChange(synonyms=["x" * 61])}),
            "A synonym is at most 60 characters",
        ),
        (
            ModelChanges(columns={"weather": ColumnChange(label="Rain")}),
            "The dataset has no column 'weather'.",
        ),
    ],
)
def test_a_change_the_model_or_its_rows_cannot_take_changes_nothing(
    store: DatasetLibrary, changes: ModelChanges, message: str
) -> None:
    path, count = store.current_path(), len(store.versions())
    with pytest.raises(InvalidInputError) as refused:
        store.update_model("admin", changes)
    assert str(refused.value).startswith(message) and "\n" not in str(refused.value)
    assert store.current_path() == path and len(store.versions()) == count


def test_the_generated_data_keeps_the_model_it_answers_with_and_its_rows_once_changed(
    library: DatasetLibrary,
) -> None:
    generate_dataset(library.default_path, SMALL)
    derived, rows = semantic_source(library.current_path())
    changed = library.update_model(
        "admin",
        ModelChanges(columns={"country": ColumnChange(synonyms=["market"], label="Market")}),
    )
    assert changed.column("country").synonyms == ["market"] and changed.column("country").title == "Market"
    assert [c.role for c in changed.columns] == [c.role for c in derived.columns]
    path = library.current_path()
    assert path != library.default_path
    conn = sqlite3.connect(path)
    try:
        stored = dict(conn.execute("SELECT name, length(body) FROM semantic_files").fetchall())
    finally:
        conn.close()
    assert stored["rows.parquet"] == rows.stat().st_size  # the rows it was checked against
    model, new_rows = semantic_source(path)
    assert model == changed
    with Engine(model, new_rows) as engine:
        assert engine.run(SemanticQuery(metrics=["revenue"])).rows[0][0] > 0
    assert rows_profile(new_rows)["Country"].distinct > 1
