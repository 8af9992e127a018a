"""``query_data``: any question on the active dataset's own columns, as one typed semantic query.

The arguments are a :class:`~agent_orchestrator.semantic.SemanticQuery` over the version's semantic
model (docs/architecture.md#the-semantic-model): the schema the tool advertises is generated from the
model, with its metrics, its columns and the values of its dimensions as enums, so any client
(a large model on a BYOK route, the embedded model's guide) can only name what the data has. The
result's ``answer`` states the reading and every figure, written by code; ``rows`` are the table
the answer was written from. A name of an entity (a customer, a product) is looked up in the data:
one match is used, none is said, several are offered as choices rather than guessed.
No ``from __future__ import annotations``: see ``tools_customers``.
"""

import logging
import threading
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, ValidationError

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.mcp_server.arguments import compact_validation_error
from agent_orchestrator.mcp_server.toolkit import ToolKit, to_json
from agent_orchestrator.retail.datasets.semantic import semantic_source
from agent_orchestrator.semantic import (
    Column,
    Engine,
    Filter,
    Kind,
    Role,
    SemanticModel,
    SemanticQuery,
    query_schema,
)
from agent_orchestrator.semantic.engine import Result
from agent_orchestrator.semantic.query import MAX_ROWS
from agent_orchestrator.semantic.render import chips, reading, render

log = logging.getLogger(__name__)
TOOL = "query_data"

DESCRIPTION = (
    "Any question on the dataset's own columns (category, region, profit, ... whatever the file has): "
    "metrics, group_by, filters (in, not_in, ranges), a date window, a comparison window, order, limit, "
    "share."
)


class SemanticData:
    """The active version's model, engine and advertised schema, built with the tools."""

    def __init__(self, path: Path) -> None:
        model, rows = semantic_source(path)
        self.model: SemanticModel = model
        self.engine = Engine(model, rows)
        self.values = self.engine.values()
        self.schema = described_schema(model, self.values)
        self.last_day = self.engine.span()[1]


_KEPT = 3
"""Files whose engines stay open: the active version, and the one just left while the tools follow."""
_data: dict[tuple[Path, int, int], SemanticData] = {}
_data_lock = threading.Lock()


def semantic_data(path: Path) -> SemanticData:
    """The model and engine of the dataset file ``path``, one per process: the tool, the chips'
    choices and a changed reading share it (one engine, one scan of the values); a file changed in
    place is read again, and the least recently asked of more than :data:`_KEPT` is let go: its
    engine closes once no tool server built on it holds it any more (closing it here would break
    a server still answering on it)."""
    stat = path.stat()
    key = (path, stat.st_mtime_ns, stat.st_size)
    with _data_lock:
        found = _data.pop(key, None) or SemanticData(path)
        _data[key] = found  # the most recent last
        while len(_data) > _KEPT:
            _data.pop(next(iter(_data)))
        return found


def described_schema(model: SemanticModel, values: dict[str, list[str]]) -> dict[str, Any]:
    """The query's schema with each name's words in its description (``name = title, synonym``), so a
    client reads "sales" as revenue and "area" as the region without knowing this dataset."""
    schema = {key: value for key, value in query_schema(model, values).items() if key != "title"}
    properties = schema["properties"]
    properties["metrics"]["description"] = "; ".join(
        f"{m.name} = {', '.join(dict.fromkeys([m.title.lower(), *m.synonyms]))}" for m in model.metrics
    )
    columns = [c for c in model.columns if c.role is not Role.ignore]
    described = "; ".join(
        f"{c.name} = {', '.join(dict.fromkeys([c.title.lower(), *c.synonyms]))}" for c in columns
    )
    if "group_by" in properties:
        properties["group_by"]["description"] = described
    properties["filters"]["description"] = "Rows kept: a column's values (in, not_in) or a range of a measure"
    properties["window"]["description"] = "The days asked about (start and end included, YYYY-MM-DD)"
    properties["compare"]["description"] = "An earlier window to compare the same metrics with"
    properties["order"]["description"] = "desc: highest first (top, best, most); asc: lowest first"
    properties["order_by"]["description"] = "The metric the groups are ranked by (the first one if unset)"
    properties["limit"]["description"] = "Groups shown, most 50"
    properties["share"]["description"] = "Each group's share of the total (share, percentage of, proportion)"
    properties["by_change"]["description"] = (
        "Rank by the change since the compare window or the period before (grew most, fell most)"
    )
    properties["by_growth"]["description"] = (
        "With by_change: rank by the change as a % of the earlier figure (grew fastest, biggest % growth)"
    )
    properties["each_against_previous"]["description"] = (
        "Each period of a series beside the one before it (growth by year, month over month by month)"
    )
    properties["per"]["description"] = (
        "Each period of this grain averaged, one figure (average daily revenue, avg orders per month)"
    )
    properties["count"]["description"] = "The answer is how many groups there are (how many countries…)"
    properties["together"]["description"] = (
        "The answer is the metrics of the groups kept, together (revenue from orders over 500)"
    )
    properties["share_of"]["description"] = (
        "The answer as a share of a wider whole: the same metric over this window and these filters only"
    )
    return schema


def register(kit: ToolKit, data: SemanticData | None) -> None:
    """``data``: ``None`` when the dataset cannot be read (yet); the tool then says why, as the
    others do."""

    @kit.tool(DESCRIPTION)
    def query_data(
        metrics: Annotated[list[str], Field(min_length=1, max_length=6)],
        group_by: list[dict[str, Any]] | None = None,
        filters: list[dict[str, Any]] | None = None,
        window: dict[str, Any] | None = None,
        compare: dict[str, Any] | None = None,
        order: str = "desc",
        order_by: str | None = None,
        limit: Annotated[int, Field(ge=1, le=50)] = 10,
        share: bool = False,
        by_change: bool = False,
        by_growth: bool = False,
        each_against_previous: bool = False,
        per: str | None = None,
        count: bool = False,
        share_of: dict[str, Any] | None = None,
        together: bool = False,
    ) -> str:
        given = {
            "metrics": metrics,
            "group_by": group_by or [],
            "filters": filters or [],
            "window": window,
            "compare": compare,
            "order": order,
            "order_by": order_by,
            "limit": limit,
            "share": share,
            "by_change": by_change,
            "by_growth": by_growth,
            "each_against_previous": each_against_previous,
            "per": per,
            "count": count,
            "share_of": share_of,
            "together": together,
        }
        if data is None:
            with kit.connect():  # a missing database is reported as every tool reports it
                pass
            return to_json(
                _refused("the dataset's rows cannot be read; ask an admin to import the file again")
            )
        return to_json(answer(data, given))


def answer(data: SemanticData, given: dict[str, Any]) -> dict[str, Any]:
    """The tool's result for the query ``given``: ``answered`` with the reading, its chips, the query,
    the rows and the answer written by code; or why not (``answer`` alone), or the choices of a name
    that means several things (``clarify``). The same for a call and for a reading changed in the UI."""
    try:
        query = SemanticQuery.model_validate(given).checked(data.model)
    except ValidationError as error:
        return _refused(compact_validation_error(error))
    except InvalidInputError as error:
        return _refused(str(error))
    resolved = _resolved(data, query)
    if isinstance(resolved, dict):
        return resolved
    try:
        result = data.engine.run(resolved)
        total = data.engine.group_count(resolved) if resolved.group_by and not resolved.together else None
        if total is not None and total > len(result.rows) and not resolved.by_change:
            result = _with_ties(data, resolved, result)
        overall = _overall(data, resolved) if total is not None and total > 1 else None
        holding = data.engine.holding(_of_the_one_row(data.model, resolved, result))
    except InvalidInputError as error:
        return _refused(str(error))
    keys = [
        (column, [str(v) for v in rule.values])
        for rule in resolved.filters
        if rule.column is not None
        and rule.op == "in"
        and (column := data.model.column(rule.column)).role is Role.key
    ]
    names = {k: v for column, values in keys for k, v in data.engine.names_of(column, values).items()}
    return {
        "answered": True,
        "answer": render(
            data.model,
            resolved,
            result,
            total_groups=total,
            names=names,
            overall=overall,
            last_day=data.last_day,
            holding=holding,
        ),
        "reading": reading(data.model, resolved),
        "chips": chips(data.model, resolved),
        "query": resolved.model_dump(mode="json", exclude_defaults=True),
        "columns": result.columns,
        "rows": [list(row) for row in result.rows],
        **({"groups": total} if total is not None else {}),
        **({"overall": overall} if overall is not None else {}),
        **({"entities": entities} if (entities := _entities(data.model, resolved)) else {}),
        **({"currency": data.model.currency} if data.model.currency else {}),
    }


def _of_the_one_row(model: SemanticModel, query: SemanticQuery, result: Result) -> SemanticQuery:
    """The query of the one key a ranking answered ("which single transaction had the highest
    revenue?": that transaction), so the line it is can be said; else the query itself."""
    if len(result.rows) != 1 or len(query.group_by) != 1 or query.compare is not None or query.together:
        return query
    column = model.column(query.group_by[0].column)
    if column.role is not Role.key or query.group_by[0].grain is not None:
        return query
    value = result.records()[0][query.group_by[0].column]
    kept = Filter(column=column.name, op="in", values=[str(value)])
    return query.model_copy(update={"group_by": [], "filters": [*query.filters, kept], "limit": 10})


def _entities(model: SemanticModel, query: SemanticQuery) -> dict[str, str]:
    """What the query's key and label columns name ("description": "product"): a later question
    about the chat ("which product did we end up looking at?") finds the product by its kind."""
    used = {rule.column for rule in query.filters} | {group.column for group in query.group_by}
    return {
        column.name: column.entity.value
        for column in model.with_role(Role.key, Role.label)
        if column.entity is not None and column.name in used
    }


def _overall(data: SemanticData, query: SemanticQuery) -> dict[str, Any] | None:
    """The metrics over all the groups together (the list's total line), where that is one figure
    of the same reading: not for a count of groups, a ranking by change, a comparison, a share of
    a wider whole of several figures, groups kept by their own figures ("customers who spent over
    500"), or dates. A share of a wider whole is the groups' share together ("their share of total
    revenue": the over-50s' revenue, as a share of everyone's)."""
    if (
        query.count
        or query.by_change
        or query.each_against_previous
        or query.compare is not None
        or (query.share_of is not None and len(query.metrics) > 1)
        or any(rule.metric is not None for rule in query.filters)
        or any(data.model.metric(name).unit == "date" for name in query.metrics)
    ):
        return None
    # the groups' lines only: a guest's lines are no customer's group, so not in the customers' total
    keyed = [
        Filter(column=g.column, op="present")
        for g in query.group_by
        if data.model.column(g.column).role in (Role.key, Role.label)
    ]
    update = {"group_by": [], "order_by": None, "share": False, "filters": [*query.filters, *keyed]}
    whole = data.engine.run(query.model_copy(update=update))
    return whole.records()[0] if whole.rows else None


_TIES = 5
"""Groups beyond a list's cut looked at for a tie with its last one."""


def _with_ties(data: SemanticData, query: SemanticQuery, result: Result) -> Result:
    """A cut list with the groups that tie with its last one ("top 3 cities": a fourth city with
    as many orders as the third is named too, not dropped by the order rows happen to come in)."""
    if not result.rows or query.limit >= MAX_ROWS:
        return result
    ranked = result.columns.index(query.order_by or query.metrics[0])
    last = result.rows[-1][ranked]
    wider = data.engine.run(query.model_copy(update={"limit": min(MAX_ROWS, query.limit + _TIES)}))
    tied = [row for row in wider.rows[len(result.rows) :] if row[ranked] == last]
    return replace(result, rows=[*result.rows, *tied]) if tied else result


def _resolved(data: SemanticData, query: SemanticQuery) -> SemanticQuery | dict[str, Any]:
    """The query with each named value as the data writes it; a name the data lacks, or one that
    names several things, is the answer instead (the choices offered, never one guessed)."""
    filters = []
    for rule in query.filters:
        if rule.column is None or rule.op not in ("in", "not_in", "eq", "ne"):
            filters.append(rule)
            continue
        column = data.model.column(rule.column)
        if column.role is Role.measure or rule.part is not None:  # a range, or a weekday's name
            filters.append(rule)
            continue
        noun = column.entity.value if column.entity is not None else column.title.lower()
        if rule.op == "in" and len(rule.values) == 1 and _counts_its_entity(data.model, query, column):
            # "how many different doormats do we sell?": every product whose name holds the word
            filters.append(rule.model_copy(update={"op": "contains"}))
            continue
        values: list[str | float | int] = []
        for value in rule.values:
            found = data.engine.matches(column, str(value))
            if not found:
                return {
                    "answer": f"I can't answer that from this data: no {noun} is called {value!r}.",
                    "unmatched": {"column": column.name, "value": value},
                }
            if len(found) > 1 and str(value).lower() not in (f.lower() for f in found):
                shown = found[:8]
                return {
                    "answer": f"Which {noun} do you mean: " + ", ".join(shown[:-1]) + f" or {shown[-1]}?",
                    "clarify": {"column": column.name, "value": value, "choices": shown},
                    "query": query.model_dump(mode="json", exclude_defaults=True),
                }
            values.append(found[0])
        filters.append(rule.model_copy(update={"values": values}))
        split = _several_places(data, query, column, rule.op, values)
        if split is not None:
            return split
    return query.model_copy(update={"filters": filters})


def _several_places(
    data: SemanticData, query: SemanticQuery, column: Column, op: str, values: list[str | float | int]
) -> dict[str, Any] | None:
    """One name that is several things, told apart by a column that groups them ("Portland" is in
    Maine and in Oregon): which one is asked, the choices being that column's values -- never both
    summed silently. Not when the question narrows that column already or breaks the answer down
    by it ("revenue in Portland by state"), nor when what it keeps leaves one ("Springfield" of the
    orders in Virginia)."""
    if op != "in" or len(values) != 1 or column.role is not Role.dimension:
        return None
    kept: dict[str, list[str]] = {group.column: [] for group in query.group_by}  # "by state": told apart
    for rule in query.filters:
        if rule.column is not None and rule.op == "in":
            kept.setdefault(rule.column, []).extend(str(v) for v in rule.values)
    under = data.engine.under(column, str(values[0]), kept)
    if under is None:
        return None
    parent, choices = under
    noun = parent.title.lower()
    return {
        "answer": f"There is more than one {values[0]}: which {noun} do you mean, "
        + ", ".join(choices[:-1])
        + f" or {choices[-1]}?",
        "clarify": {"column": column.name, "value": values[0], "choices": choices, "by": parent.name},
        "query": query.model_dump(mode="json", exclude_defaults=True),
    }


def _counts_its_entity(model: SemanticModel, query: SemanticQuery, column: Column) -> bool:
    """Whether the query counts the entity whose name ``column`` holds (products, by a word of their
    names), or ranks it ("which of the doormats sold most?"), so that a word naming several is
    what is counted or ranked rather than a choice to make."""
    if column.entity is None or column.role not in (Role.key, Role.label):
        return False
    names = {c.name for c in model.columns if c.entity is column.entity and c.role in (Role.key, Role.label)}
    if query.group_by:
        return any(g.column in names for g in query.group_by)
    return any(
        (metric := model.metric(name)).kind is Kind.count_distinct and metric.over in names
        for name in query.metrics
    )


def _refused(reason: str) -> dict[str, Any]:
    return {"answer": f"I can't answer that from this data: {reason}", "error": reason}
