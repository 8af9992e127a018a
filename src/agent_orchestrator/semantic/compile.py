"""A :class:`~agent_orchestrator.semantic.query.SemanticQuery` compiled to one parameterised SQL
statement over the engine's ``sales`` view: a pure function, so what a question computes can be read
and tested without running it.

Identifiers come only from the model (its names are identifiers by validation, and are quoted
anyway); every value a question brings is a bound parameter. A comparison is the same aggregates over
the earlier window, side by side (``FILTER``), so both come from one scan.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.model import Cancellation, Column, Kind, Metric, Role, SemanticModel
from agent_orchestrator.semantic.query import MAX_ROWS, Filter, GroupBy, SemanticQuery, Whole, Window

VIEW = "sales"
_OPS = {"eq": "=", "ne": "<>", "gt": ">", "ge": ">=", "lt": "<", "le": "<="}
_COMPARED = {
    "eq": operator.eq,
    "ne": operator.ne,
    "gt": operator.gt,
    "ge": operator.ge,
    "lt": operator.lt,
    "le": operator.le,
}


@dataclass(frozen=True)
class Compiled:
    """The statement, its parameters, and what each output column is."""

    sql: str
    params: list[Any]
    groups: list[str]
    """Output names of the grouping columns (a key's label follows it as ``<key>__label``)."""
    metrics: list[str]
    compared: list[str] = field(default_factory=list)
    """Output names of the comparison window's metrics (``<metric>__before``)."""


def quote(name: str) -> str:
    """An identifier as SQL writes it (a header's name, a model's column)."""
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A string as SQL writes it: for what the model or the engine wrote (a band's label, a file's
    path), never for what a question brings, which is a bound parameter."""
    return "'" + text.replace("'", "''") + "'"


def compile_query(model: SemanticModel, query: SemanticQuery) -> Compiled:
    query = query.checked(model)
    if query.together:
        return _together(model, query)
    if query.per is not None:
        return _per_period(model, query)
    # The parameters of each clause, joined in the order the clauses are written.
    params, where_params, having_params = [], [], []  # type: ignore[var-annotated]
    time = _time_column(model, query.window)
    where = [
        _row_filter(model.column(f.column), f, where_params) for f in query.filters if f.column is not None
    ]
    current = compare = None
    if query.window is not None and query.compare is None:
        where.append(_in_window(time, query.window, where_params))
    elif query.window is not None and query.compare is not None:
        current, compare = query.window, query.compare
        starts, ends = (current.start, compare.start), (current.end, compare.end)
        span = Window(
            start=None if None in starts else min(d for d in starts if d is not None),
            end=None if None in ends else max(d for d in ends if d is not None),
        )
        where.append(_in_window(time, span, where_params))

    selects, groups = [], []
    for group in query.group_by:
        column = model.column(group.column)
        alias = group.column if group.grain is None else f"{group.column}__{group.grain}"
        selects.append(f"{_group_expression(column, group)} AS {quote(alias)}")
        groups.append(alias)
        if column.role in (Role.key, Role.label):
            where.append(f"{quote(column.name)} IS NOT NULL")  # a guest's lines are nobody's customer
        label = model.label_of(column.entity) if column.role is Role.key and column.entity else None
        if label is not None and not any(g.column == label.name for g in query.group_by):
            selects.append(f"any_value({quote(label.name)}) AS {quote(alias + '__label')}")
    for rule in query.filters:  # "a profit every month": the groups whose every period passes
        if rule.each is not None and time is not None:
            where.append(_every_period(model, rule, query.group_by, time, where, where_params))
    metric_names = list(query.metrics)
    for name in metric_names:
        selects.append(f"{_metric(model, model.metric(name), current, time, params)} AS {quote(name)}")
    compared = []
    if compare is not None:
        for name in metric_names:
            selects.append(
                f"{_metric(model, model.metric(name), compare, time, params)} AS {quote(name + '__before')}"
            )
            compared.append(name + "__before")
    ranked = query.order_by or metric_names[0]
    sql = [f"SELECT {', '.join(selects)}", f"FROM {VIEW}"]
    if where:
        sql.append("WHERE " + " AND ".join(where))
    if groups:
        sql.append("GROUP BY ALL")
    having = [  # of no groups: of the one total ("nothing matches" when it is not so), never dropped
        _group_filter(model, f, current, time, having_params, compare if f.change else None)
        for f in query.filters
        if f.metric is not None and f.each is None
    ]
    if having:
        sql.append("HAVING " + " AND ".join(having))
    # What is computed from the figures is computed around them: a figure's name may be a column's
    # too (a file's own "Revenue" column beside the revenue metric), and inside it names the column.
    shares, share_params = [], []  # type: ignore[var-annotated]
    if query.share_of is not None:  # of a wider whole: the same metric over it, in a scalar subquery
        for alias, template in (("__share", f"{quote(ranked)} / NULLIF({{}}, 0)"), ("__whole", "{}")):
            whole = _whole(
                model, model.metric(ranked), query.share_of, share_params, query.group_by
            )  # its parameters, each time
            shares.append(f"{template.format(whole)} AS {quote(ranked + alias)}")
    elif query.share and groups:  # a share is of the groups' total: with no groups there is one row
        shares.append(
            f"{quote(ranked)} / NULLIF(sum({quote(ranked)}) OVER (), 0) AS {quote(ranked + '__share')}"
        )
    if query.each_against_previous:  # the period before each, in time order, before any ranking
        lags = ", ".join(
            f"lag({quote(name)}) OVER (ORDER BY {quote(groups[0])}) AS {quote(name + '__before')}"
            for name in metric_names
        )
        sql = [f"SELECT *, {lags} FROM ({' '.join(sql)})"]
    outer = [f"SELECT *{''.join(', ' + share for share in shares)} FROM ({' '.join(sql)}) AS {_GROUPED}"]
    if groups:
        direction = "DESC" if query.order == "desc" else "ASC"
        ordered = [
            _in_order(g, a)
            for a, g in zip(groups, query.group_by, strict=True)
            if g.grain is not None or g.bands is not None
        ]
        if (
            ordered and len(groups) == len(ordered) and query.order_by is None and not query.by_change
        ):  # a trend in time order, bands as said
            outer.append("ORDER BY " + ", ".join(ordered))
        else:
            outer.append(
                f"ORDER BY {_ranking(ranked, query.by_change, query.by_growth)} {direction} NULLS LAST, "
                + ", ".join(quote(g) for g in groups)
            )
        outer.append(f"LIMIT {int(query.limit)}")
    all_params = share_params + params + where_params + having_params  # in the order they are written
    return Compiled(" ".join(outer), all_params, groups, metric_names, compared)


def compile_holding(model: SemanticModel, query: SemanticQuery) -> Compiled | None:
    """The line that holds the one extreme a query asks for ("the biggest single sale": who sold it,
    and when), or the one line a query of a key or a day keeps ("what was transaction 10150?",
    "what sold on 26 March?"), with how many lines do (``__lines``): each column that says what a
    line is (its dates, keys, names and dimensions) of the first such line. ``None`` for any other
    query (a breakdown, a comparison, a span of days)."""
    if query.group_by or query.compare is not None or query.together:
        return None
    metric = model.metric(query.metrics[0]) if len(query.metrics) == 1 else None
    over = model.column(metric.over) if metric is not None and metric.over is not None else None
    extreme = (
        metric is not None
        and metric.kind in (Kind.minimum, Kind.maximum)
        and over is not None
        and over.role is Role.measure
    )
    keyed = any(f.column and f.op == "in" and model.column(f.column).role is Role.key for f in query.filters)
    one_day = (
        query.window is not None and query.window.start is not None and query.window.start == query.window.end
    )
    if not extreme and not keyed and not one_day:
        return None
    params: list[Any] = []
    where = _rows_kept(model, query.filters, query.window, params)
    shown = [c for c in model.columns if c.role in (Role.time, Role.key, Role.label, Role.dimension)]
    inner = f"SELECT {', '.join(quote(c.name) for c in shown)} FROM {VIEW}" + (
        f" WHERE {' AND '.join(where)}" if where else ""
    )
    if extreme and metric is not None and over is not None:
        which = "max" if metric.kind is Kind.maximum else "min"
        inner += f" QUALIFY {quote(over.name)} = {which}({quote(over.name)}) OVER ()"
    else:  # whether one line is kept: two are as many as thousands, and a scan stops at two
        inner += " LIMIT 2"
    sql = f"SELECT *, count(*) OVER () AS __lines, {str(extreme).upper()} AS __extreme FROM ({inner}) LIMIT 1"
    return Compiled(sql, params, [c.name for c in shown], [])


def _together(model: SemanticModel, query: SemanticQuery) -> Compiled:
    """The metrics over the rows of the groups the query keeps, as one row, with how many groups
    were kept (``__groups``): the groups are chosen in a subquery (its row filters, window and
    group filters), and the rows of those groups are aggregated again under the same row filters."""
    grouped = compile_query(
        model, query.model_copy(update={"together": False, "order_by": None, "limit": MAX_ROWS})
    )
    chosen = grouped.sql.rsplit(" ORDER BY ", 1)[0]  # every group kept, in no order
    time = _time_column(model, query.window)
    params: list[Any] = []
    selects = [f"{_metric(model, model.metric(n), None, time, params)} AS {quote(n)}" for n in query.metrics]
    where_params: list[Any] = []
    where = _rows_kept(model, query.filters, query.window, where_params)
    # the kept groups' values under names of their own, so a row's columns are the row's
    kept = ", ".join(f"{quote(alias)} AS __kept{n}" for n, alias in enumerate(grouped.groups))
    keys = [
        f"{_group_expression(model.column(group.column), group)} IS NOT DISTINCT FROM __kept{n}"
        for n, group in enumerate(query.group_by)
    ]
    where.append(f"EXISTS (SELECT 1 FROM kept WHERE {' AND '.join(keys)})")
    sql = (
        f"WITH kept AS (SELECT {kept} FROM ({chosen})) SELECT {', '.join(selects)}, "
        f'(SELECT count(*) FROM kept) AS "__groups" FROM {VIEW} WHERE {" AND ".join(where)}'
    )
    return Compiled(sql, grouped.params + params + where_params, [], list(query.metrics))


def _per_period(model: SemanticModel, query: SemanticQuery) -> Compiled:
    """Each metric of every period of the grain with lines, averaged, with how many periods there
    were (``__periods``): the query grouped by the period, as a subquery."""
    time = _time_column(model, query.window)
    assert time is not None and query.per is not None  # checked: an average per period has a date
    by_period = query.model_copy(
        update={"per": None, "group_by": [GroupBy(column=time.name, grain=query.per)], "limit": MAX_ROWS}
    )
    grouped = compile_query(model, by_period)
    every = grouped.sql.rsplit(" ORDER BY ", 1)[0]  # every period, in no order
    averages = ", ".join(f"avg({quote(name)}) AS {quote(name)}" for name in query.metrics)
    sql = f'SELECT {averages}, count(*) AS "__periods" FROM ({every})'
    return Compiled(sql, grouped.params, [], list(query.metrics))


_GROUPED = '"__grouped"'
"""The name of a query's groups where a subquery refers to each (:func:`_whole`)."""


def _whole(
    model: SemanticModel, metric: Metric, whole: Whole, params: list[Any], groups: list[GroupBy] | None = None
) -> str:
    """The metric over the whole a share is of, as a scalar subquery (its parameters appended); of
    each group's own lines when the whole is each group's."""
    expression = _metric(model, metric, None, model.time, params)
    where = _rows_kept(model, whole.filters, whole.window, params)
    if whole.each_group:
        for group in groups or []:
            column = model.column(group.column)
            alias = group.column if group.grain is None else f"{group.column}__{group.grain}"
            where.append(f"{_group_expression(column, group)} IS NOT DISTINCT FROM {_GROUPED}.{quote(alias)}")
    return f"(SELECT {expression} FROM {VIEW}" + (f" WHERE {' AND '.join(where)})" if where else ")")


def _rows_kept(
    model: SemanticModel, filters: list[Filter], window: Window | None, params: list[Any]
) -> list[str]:
    """The conditions of the rows a query's row filters and window keep (their parameters appended)."""
    where = [_row_filter(model.column(f.column), f, params) for f in filters if f.column is not None]
    if window is not None:
        where.append(_in_window(_time_column(model, window), window, params))
    return where


def _ranking(metric: str, by_change: bool, by_growth: bool = False) -> str:
    """What the groups are ranked by: the metric, or its change since the window compared with (as
    a share of the earlier figure when ``by_growth``; of none, no rate, ranked last)."""
    now, before = quote(metric), quote(metric + "__before")
    if by_growth:
        return f"(({now} - {before})::DOUBLE / NULLIF({before}, 0))"
    return f"({now} - {before})" if by_change else now


def _time_column(model: SemanticModel, window: Window | None) -> Column | None:
    if window is not None and window.column is not None:
        return model.column(window.column)
    return model.time


def _in_window(time: Column | None, window: Window, params: list[Any]) -> str:
    if time is None:
        return "TRUE"
    parts = []
    if window.start is not None:
        parts.append(f"{quote(time.name)} >= ?")
        params.append(window.start)
    if window.end is not None:
        parts.append(f"{quote(time.name)} < ?::DATE + 1")  # the whole last day, whatever the time of day
        params.append(window.end)
    return " AND ".join(parts) or "TRUE"


def _group_expression(column: Column, group: GroupBy) -> str:
    name = quote(column.name)
    if group.bands is not None:  # "18-29, 30-44, 45+": each value's band, by its label
        cases = []
        for band in group.bands:
            bounds = [
                f"{name} {op} {float(value)!r}"
                for op, value in ((">=", band.low), ("<=", band.high), ("<", band.below))
                if value is not None
            ]
            cases.append(f"WHEN {' AND '.join(bounds)} THEN {literal(band.label)}")
        return f"CASE {' '.join(cases)} WHEN {name} IS NOT NULL THEN 'other' END"
    match group.grain:
        case None:
            return name
        case "weekday":
            return f"dayname({name})"
        case "hour":
            return f"hour({name})"
        case "week" if column.weekly:  # a file of weeks: each week is its own date (its Friday)
            return f"CAST({name} AS DATE)"
        case grain:
            return f"CAST(date_trunc('{grain}', {name}) AS DATE)"


def _in_order(group: GroupBy, alias: str) -> str:
    """What a list of groups reads in when no figure ranks it: periods in time, bands as said."""
    if group.bands is None:
        return quote(alias)
    return f"list_position([{', '.join(literal(b.label) for b in group.bands)}], {quote(alias)})"


def _recorded(metric: Metric) -> str | None:
    """Where a sum's amount is written: an average per order, per customer or per line is of the
    ones whose amount is known (a file that leaves some totals blank does not sell for nothing)."""
    if metric.kind is not Kind.sum or metric.over is None:
        return None
    columns = [metric.over, *([metric.times] if metric.times else [])]
    return " AND ".join(f"{quote(c)} IS NOT NULL" for c in columns)


def _aggregate(metric: Metric) -> str:
    over = quote(metric.over) if metric.over else ""
    match metric.kind:
        case Kind.sum:
            amount = f"{over} * {quote(metric.times)}" if metric.times else over
            if metric.less:  # each row's amount less its discount (a blank discount is none)
                amount = f"{amount} * (1 - coalesce({quote(metric.less)}, 0))"
            return f"sum({amount})"
        case Kind.rows:
            return "count(*)"
        case Kind.count_distinct:
            return f"count(DISTINCT {over})"
        case Kind.average:
            return f"avg({over})"
        case Kind.median:
            return f"median({over})"
        case Kind.minimum:
            return f"min({over})"
        case Kind.maximum:
            return f"max({over})"
        case Kind.deviation:
            return f"stddev_samp({over})"
        case Kind.correlation:
            return f"corr({over}, {quote(str(metric.against))})"
        case Kind.days_between:
            return f"avg(date_diff('day', {quote(str(metric.since))}, {over}))"
        case Kind.ratio | Kind.difference:
            raise AssertionError("ratios and differences are built from their parts")


def _metric(
    model: SemanticModel,
    metric: Metric,
    window: Window | None,
    time: Column | None,
    params: list[Any],
    recorded: str | None = None,
) -> str:
    """The metric's expression, over ``window`` only when given (a comparison's side); a count
    only of the rows where ``recorded`` holds, when given."""
    if metric.kind is Kind.ratio:
        top = model.metric(str(metric.numerator))
        numerator = _metric(model, top, window, time, params)
        denominator = _metric(
            model, model.metric(str(metric.denominator)), window, time, params, _recorded(top)
        )
        return f"({numerator})::DOUBLE / NULLIF({denominator}, 0)"
    if metric.kind is Kind.difference:
        base = _metric(model, model.metric(str(metric.numerator)), window, time, params)
        taken = _metric(model, model.metric(str(metric.denominator)), window, time, params)
        return f"(coalesce({base}, 0) - coalesce({taken}, 0))"
    aggregate = _aggregate(metric)
    conditions = []
    if window is not None and time is not None:
        conditions.append(_in_window(time, window, params))
    if metric.only is not None and model.cancellation is not None:
        cancelled = _cancelled(model.cancellation)
        conditions.append(cancelled if metric.only == "cancelled" else f"NOT {cancelled}")
    if recorded is not None and metric.kind in (Kind.rows, Kind.count_distinct):
        conditions.append(recorded)
    expression = f"{aggregate} FILTER (WHERE {' AND '.join(conditions)})" if conditions else aggregate
    if metric.only == "cancelled" and metric.kind is Kind.sum:
        # what was cancelled, as a positive amount, whether the file writes it as negative lines
        # (a "C" invoice) or as the refunded order's own amount
        return f"abs({expression})"
    return expression


def _cancelled(rule: Cancellation) -> str:
    """Whether a line is a cancellation: literals from the validated model, never from a question."""
    if rule.written:
        return f"({quote(rule.column)} IS NOT NULL)"
    name = f"{quote(rule.column)}::VARCHAR"
    if rule.prefix is not None:
        return f"coalesce(starts_with({name}, '{rule.prefix}'), false)"
    listed = ", ".join("'" + value.lower().replace("'", "''") + "'" for value in rule.values)
    return f"coalesce(lower({name}) IN ({listed}), false)"


def _row_filter(column: Column, rule: Filter, params: list[Any]) -> str:
    by = rule.never_by or rule.ever_by
    if by is not None:  # the rows of those that never had such a row (an anti-join), or that had
        key = quote(by)
        had = _row_filter(column, rule.model_copy(update={"never_by": None, "ever_by": None}), params)
        negated = "NOT " if rule.never_by else ""
        return f"{key} {negated}IN (SELECT {key} FROM {VIEW} WHERE {key} IS NOT NULL AND {had})"
    if column.role is Role.time and rule.part is None and rule.op == "between":  # days, both whole
        start, end = (date.fromisoformat(str(v)[:10]) for v in rule.values)
        return f"({_in_window(column, Window(start=start, end=end), params)})"
    if rule.than is not None:  # "shipped before it was ordered": one column against another, row by row
        one, other = quote(column.name), quote(rule.than)
        if column.role is Role.time:  # days against days: an order at 14:07 and its shipping that day
            one, other = f"CAST({one} AS DATE)", f"CAST({other} AS DATE)"
        return f"{one} {_OPS[rule.op]} {other}"
    if rule.part == "weekday":  # "on Thursdays": the date's weekday, by the engine's names
        params.extend(rule.values)
        marks = ", ".join("?" for _ in rule.values)
        return f"dayname({quote(column.name)}) {'NOT ' if rule.op == 'not_in' else ''}IN ({marks})"
    if rule.part in ("year", "month"):  # "excluding 2011 and 2012", "excluding February": of each date
        return _compared(f"{rule.part}({quote(column.name)})", rule, [int(v) for v in rule.values], params)
    if rule.part == "hour":  # "from 6pm": the hour of the day, 0 to 23
        return _compared(f"hour({quote(column.name)})", rule, [int(v) for v in rule.values], params)
    return _compared(quote(column.name), rule, [_typed(column, value) for value in rule.values], params)


def _compared(name: str, rule: Filter, values: list[Any], params: list[Any]) -> str:
    """``name`` (a column, or a part of one) kept as ``rule`` says, its ``values`` bound."""
    match rule.op:
        case "in" | "not_in":
            params.extend(values)
            marks = ", ".join("?" for _ in values)
            return (
                f"{name} IN ({marks})" if rule.op == "in" else f"({name} NOT IN ({marks}) OR {name} IS NULL)"
            )
        case "between":
            params.extend(values)
            return f"{name} BETWEEN ? AND ?"
        case "missing":
            return f"{name} IS NULL"
        case "present":
            return f"{name} IS NOT NULL"
        case "contains" | "not_contains":
            params.append(
                "%" + str(rule.values[0]).replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            )
            if rule.op == "not_contains":  # "pizzas without pepperoni": a blank list holds none
                return f"({name}::VARCHAR NOT ILIKE ? ESCAPE '\\' OR {name} IS NULL)"
            return f"{name}::VARCHAR ILIKE ? ESCAPE '\\'"
        case "ne":
            params.extend(values)
            return f"({name} <> ? OR {name} IS NULL)"
        case "le" if values == [0]:  # "lines with no discount": a blank one is none too
            params.extend(values)
            return f"({name} <= ? OR {name} IS NULL)"
        case op:
            params.extend(values)
            return f"{name} {_OPS[op]} ?"


def _group_filter(
    model: SemanticModel,
    rule: Filter,
    window: Window | None,
    time: Column | None,
    params: list[Any],
    before: Window | None = None,
) -> str:
    """A group's figure (or, with ``before``, its change since that window) within the filter's range."""
    metric = model.metric(str(rule.metric))
    expression = _metric(model, metric, window, time, params)
    if before is not None:  # "went backwards": the figure less the earlier window's
        expression = (
            f"coalesce({expression}, 0) - coalesce({_metric(model, metric, before, time, params)}, 0)"
        )
    return _ranged(expression, rule, "number" if before is not None else metric.unit, params)


def _ranged(expression: str, rule: Filter, unit: str, params: list[Any]) -> str:
    """A metric's figure (``expression``) within the filter's range."""
    values = [date.fromisoformat(str(v)[:10]) if unit == "date" else float(v) for v in rule.values]
    params.extend(values)
    if rule.op == "between":
        return f"({expression}) BETWEEN ? AND ?"
    if rule.op not in _OPS:
        raise InvalidInputError(f"A metric is compared with {', '.join(_OPS)} or between, not {rule.op}.")
    return f"({expression}) {_OPS[rule.op]} ?"


def _every_period(
    model: SemanticModel,
    rule: Filter,
    group_by: list[GroupBy],
    time: Column,
    where: list[str],
    params: list[Any],
) -> str:
    """The groups whose figure passes ``rule`` in every period of its grain that has rows kept by
    ``where`` ("which products made a profit every month of 2011?"), as a condition on the rows.
    A period a group has no rows in is a 0 for it: it fails "sold every month" and passes "no
    loss-making month"."""
    kept, kept_params = " AND ".join(where) or "TRUE", list(params)  # scanned again, with their values
    keys = [_group_expression(model.column(g.column), g) for g in group_by]
    period = f"date_trunc('{rule.each}', {quote(time.name)})"
    figure_params: list[Any] = []
    figure = _metric(model, model.metric(str(rule.metric)), None, time, figure_params)
    test_params: list[Any] = []
    test = _ranged("coalesce(__figure, 0)", rule, "number", test_params)
    params.extend([*figure_params, *kept_params, *test_params])
    if _ranged_in(0, rule):
        having = f"count(*) FILTER (WHERE NOT ({test})) = 0"
    else:
        having = (
            f"count(*) FILTER (WHERE {test}) = (SELECT count(DISTINCT {period}) FROM {VIEW} WHERE {kept})"
        )
        params.extend(kept_params)
    selected = ", ".join(f"{key} AS __key{i}" for i, key in enumerate(keys))
    inner = (
        f"SELECT {selected}, {period} AS __period, {figure} AS __figure FROM {VIEW} WHERE {kept} GROUP BY ALL"
    )
    aliases = ", ".join(f"__key{i}" for i in range(len(keys)))
    return f"({', '.join(keys)}) IN (SELECT {aliases} FROM ({inner}) GROUP BY ALL HAVING {having})"


def _ranged_in(value: float, rule: Filter) -> bool:
    """Whether ``value`` passes a metric's range ("no loss-making month" passes a month of 0)."""
    values = [float(v) for v in rule.values]
    if rule.op == "between":
        return values[0] <= value <= values[1]
    return bool(_COMPARED[rule.op](value, values[0]))


def _typed(column: Column, value: Any) -> Any:
    """A filter's value as the column holds it: a date for a time column, text for a key or a
    dimension (a numeric key asked as text still matches), a number for a measure."""
    if column.role is Role.time:
        return date.fromisoformat(str(value)[:10])
    if column.role is Role.measure:
        return float(value)
    return value
