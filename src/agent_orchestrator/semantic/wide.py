"""A file written one column per item, read as the lines it records.

A till that exports one row per receipt often writes what was on it as one column per item
("angbutter;plain bread;americano;…", each holding the pieces sold, blank for none). Products
are then columns, not values: nothing can rank them, filter by one or count the receipts holding
two. An import reads such a file as the lines it stands for (docs/architecture.md#the-semantic-model):
one line per item a row sold (its ``item`` and ``quantity``), the row's own fields on each of its
lines, its amounts (the receipt's total) on its first line only, so that they sum once, and the row's
number as its ``order number`` when the file numbers none. A row that records no sale at all (an
empty line, a date and nothing else) is no line. Everything after the import -- the suggested
model, the Parquet rows, every question -- reads the lines, as of any other file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent_orchestrator.semantic.compile import quote
from agent_orchestrator.semantic.model import Entity, Role, SemanticModel
from agent_orchestrator.semantic.profile import (
    ColumnProfile,
    CsvReading,
    TableProfile,
    literal,
    read_csv_sql,
    scanning,
)
from agent_orchestrator.semantic.suggest import header_words, role_of

ITEMS = 4
"""Columns of item counts side by side, at least, for a file to be one column per item."""
_MOST_PIECES = 1_000
"""The most of one item a row sells: beyond it a column counts something else (a stock level)."""
_EMPTY_SHARE = 0.3
"""Of the rows, on average over the item columns, at least this share sells none of an item (a
blank or a 0): a till's receipt holds a few of its items, never most of them."""
ITEM, QUANTITY, ORDER = "item", "quantity", "order number"
"""The headers of the lines' own columns."""


def item_columns(profile: TableProfile, roles: dict[str, tuple[Role, Entity | None]]) -> list[str]:
    """The headers of the longest run of adjacent columns that look like counts of items (whole
    numbers, small, no word of an amount, a key or a date in their header; an item never sold is
    a column left blank), when it is at least :data:`ITEMS` long and the file has no product and
    no quantity of its own; else none. ``roles`` are the columns' suggested roles, by header."""
    if any(
        roles[c.header][1] is Entity.product or _QUANTITY_WORDS & set(header_words(c.header))
        for c in profile.columns
    ):
        return []
    best: list[str] = []
    run: list[str] = []
    for column in profile.columns:
        run = [*run, column.header] if _counts_items(column, profile.rows, roles[column.header]) else []
        best = run if len(run) > len(best) else best
    written = [h for h in best if next(c for c in profile.columns if c.header == h).nulls < profile.rows]
    return best if len(best) >= ITEMS and len(written) >= ITEMS - 1 else []


_QUANTITY_WORDS = frozenset(("quantity", "qty", "units", "pieces"))


def _counts_items(column: ColumnProfile, rows: int, role: tuple[Role, Entity | None]) -> bool:
    if column.nulls == rows:  # an item no row sold: a column left blank
        return True
    return (
        column.whole
        and role == (Role.measure, None)
        and column.maximum is not None
        and 0 < column.maximum <= _MOST_PIECES
        and not column.symbol
    )


@dataclass(frozen=True, slots=True)
class Lines:
    """A file of one column per item, as its lines."""

    path: Path
    known: dict[str, str]
    """What the lines' own columns are (``suggest.KNOWN``'s fields -> their headers)."""
    of_order: list[str]
    """The headers of the row's amounts, written on its first line only: the receipt's, no item's."""
    items: list[str]
    """The file's headers that are items: the values of the lines' ``item``."""


def as_lines(csv: Path, reading: CsvReading, profile: TableProfile, folder: Path) -> Lines | None:
    """``csv`` read as one line per item sold, written to ``folder`` in the same delimiter and
    decimal mark, its other values as the file writes them; ``None`` when it is no file of one
    column per item (:func:`item_columns`), or its item columns are mostly filled."""
    roles = {c.header: role_of(c, profile.rows) for c in profile.columns}
    items = item_columns(profile, roles)
    if not items:
        return None
    target = folder / "lines.csv"
    others = [c for c in profile.columns if c.header not in items]
    amounts = [c.header for c in others if roles[c.header][0] is Role.measure]
    numbered = any(roles[c.header] == (Role.key, Entity.order) for c in others)
    text = read_csv_sql(csv, None, CsvReading(reading.delimiter, reading.decimal), as_text=True)

    def number(value: str) -> str:  # a count as the file writes it, as a number (none when blank)
        return f"TRY_CAST(replace({value}, {literal(reading.decimal)}, '.') AS DOUBLE)"

    with scanning() as connection:
        connection.execute(f"CREATE TEMP TABLE wide AS SELECT row_number() OVER () AS __row, * FROM {text}")
        empty = " + ".join(f"count(*) FILTER (WHERE coalesce({number(quote(h))}, 0) = 0)" for h in items)
        share = connection.execute(f"SELECT ({empty}) / (count(*) * {len(items)}) FROM wide").fetchone()
        if share is None or share[0] is None or share[0] < _EMPTY_SHARE:
            return None
        positions = ", ".join(f"({literal(h)}, {i})" for i, h in enumerate(items))
        sold = (
            f"SELECT __row, name AS __item, value AS __pieces, __at FROM (UNPIVOT (SELECT __row, "
            f"{', '.join(quote(h) for h in items)} FROM wide) ON {', '.join(quote(h) for h in items)} "
            f"INTO NAME name VALUE value) JOIN (VALUES {positions}) AS p(__name, __at) ON name = __name "
            f"WHERE {number('value')} > 0"
        )
        paid = " OR ".join(f"w.{quote(h)} IS NOT NULL" for h in amounts) or "false"
        lines = (
            "SELECT w.*, s.__item, s.__pieces, "
            "row_number() OVER (PARTITION BY w.__row ORDER BY s.__at) AS __n "
            f"FROM wide w LEFT JOIN ({sold}) s USING (__row) WHERE s.__item IS NOT NULL OR {paid}"
        )
        fields = [
            f"CASE WHEN __n = 1 THEN {quote(c.header)} END" if c.header in amounts else quote(c.header)
            for c in others
        ]
        if not numbered:
            fields.append("dense_rank() OVER (ORDER BY __row)")
        fields += ["__item", "__pieces"]
        headers = [c.header for c in others] + ([] if numbered else [ORDER]) + [ITEM, QUANTITY]
        named = ", ".join(f"{field} AS {quote(h)}" for field, h in zip(fields, headers, strict=True))
        connection.execute(
            f"COPY (SELECT {named} FROM ({lines}) ORDER BY __row, __n) "
            f"TO {literal(str(target))} (HEADER, DELIMITER {literal(reading.delimiter)})"
        )
    known = {"product": ITEM, "quantity": QUANTITY} | ({} if numbered else {"order": ORDER})
    return Lines(target, known, amounts, items)


def read_as(model: SemanticModel, lines: Lines) -> SemanticModel:
    """``model`` of the lines with what they were read from: the measures that are the order's own
    amounts marked so, and the headers that were items kept."""
    columns = [
        c.model_copy(update={"of_order": True}) if c.source in lines.of_order else c for c in model.columns
    ]
    return model.model_copy(update={"columns": columns, "items_from": lines.items})
