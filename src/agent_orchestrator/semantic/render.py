"""A query's result written out by code: the reading first, then every figure in its metric's unit.

The answer opens with what was computed in the analyst's terms ("Profit by region, 2017, Category:
Technology"), so a misreading shows at once, then the figures: money with two decimals and the
dataset's currency when it declares one, counts as whole numbers, ratios as percentages, dates as
days. Nothing here is decided by a model (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import calendar
from datetime import date
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from agent_orchestrator.semantic.engine import Result
from agent_orchestrator.semantic.model import Kind, Metric, Role, SemanticModel, plural
from agent_orchestrator.semantic.query import Filter, GroupBy, SemanticQuery, Window

_OPS = {
    "in": "",
    "not_in": "not ",
    "eq": "",
    "ne": "not ",
    "gt": "over ",
    "ge": "at least ",
    "lt": "under ",
    "le": "at most ",
    "contains": "containing ",
    "not_contains": "not containing ",
}
_PERCENT_RATIOS = ("margin", "rate", "share", "percent", "discount")


def figure(metric: Metric, value: Any, currency: str | None = None) -> str:
    """One value of ``metric`` as an analyst reads it, rounded half up as a spreadsheet rounds."""
    if value is None:
        return "none"
    if metric.unit == "date":
        return day_text(value)
    number = exact(value)
    if metric.unit == "count":
        return f"{_rounded(number, 0):,}"
    if metric.unit == "money":
        text = f"{_rounded(number, 2):,}"
        return f"{text} {currency}" if currency else text
    if metric.unit == "ratio" or (metric.kind == "average" and _is_percent(metric)):
        if _is_percent(metric):
            return f"{_rounded(number * 100, 2)}%"
        return f"{_rounded(number, 2):,}"
    return f"{_rounded(number, 2):,}".rstrip("0").rstrip(".") if number % 1 else f"{int(number):,}"


def exact(value: Any) -> Decimal:
    """A figure as the decimal it reads as (the engine's floats come from exact decimals)."""
    return value if isinstance(value, Decimal) else Decimal(repr(float(value)))


def _rounded(number: Decimal, places: int) -> Decimal:
    return number.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def window_text(window: Window | None) -> str:
    """A window as people say it: a year, a quarter, a month, a day, or a range."""
    if window is None or (window.start is None and window.end is None):
        return "all time"
    start, end = window.start, window.end
    if start is None:
        return f"until {day_text(end)}"
    if end is None:
        return f"since {day_text(start)}"
    unit = calendar_unit(start, end)
    if unit in ("day", "month", "quarter", "year"):  # a whole unit: as a row of that grain says it
        return _period(start, unit)
    return f"{day_text(start)} to {day_text(end)}"


def placed(window: Window | None, last_day: date | None) -> str:
    """Where a window of the data's own time column sits against its last day, said after it: the
    data's "last month" is not the calendar's, so an answer says "December 2017 (the latest month in
    the data)", or that a range runs "to the data's last day"."""
    if window is None or window.column or window.start is None or window.end is None or last_day is None:
        return ""
    start, end = window.start, window.end
    unit = calendar_unit(start, end)
    if unit != "range" and start <= last_day <= end:
        return f" (the latest {unit} in the data)"
    return " (to the data's last day)" if unit == "range" and end == last_day else ""


def calendar_unit(start: date, end: date) -> str:
    """The calendar unit the days ``start`` to ``end`` are one whole of: "day", "month", "quarter",
    "year", or "range" when none."""
    whole_months = start.day == 1 and end.day == calendar.monthrange(end.year, end.month)[1]
    months = (end.year - start.year) * 12 + end.month - start.month + 1
    if start == end:
        return "day"
    if whole_months and months == 1:
        return "month"
    if whole_months and months == 3 and start.month % 3 == 1:
        return "quarter"
    if whole_months and months == 12 and start.month == 1:
        return "year"
    return "range"


def reading(
    model: SemanticModel,
    query: SemanticQuery,
    names: dict[str, str] | None = None,
    last_day: date | None = None,
) -> str:
    """What was computed: metrics, groups, filters and window, in the model's own titles (with the
    data's ``last_day``: where the window sits against it, :func:`placed`)."""
    metrics = " and ".join(model.metric(name).title for name in query.metrics)
    parts = [metrics]
    if query.together:  # "Revenue, orders with revenue under 100, all time"
        kept = _counted(model, query, 2)
        parts += [f"{kept} with {_filter_text(model, r)}" for r in query.filters if r.metric is not None]
        parts += [_filter_text(model, r, names) for r in query.filters if r.metric is None]
        parts.append(window_text(query.window) + _dated_by(model, query.window))
        return ", ".join(parts)
    if query.group_by:
        groups = []
        for group in query.group_by:
            title = model.column(group.column).title.lower()
            groups.append(
                f"{group.grain} ({title})" if group.grain else _entity_title(model, group.column, group)
            )
        parts[0] += " by " + " and ".join(groups)
    if query.each_against_previous:
        parts[0] += f", each against the {query.group_by[0].grain} before"
    if query.per is not None:
        parts[0] += f" per {query.per}, on average"
    if query.by_change:
        parts[0] += ", ranked by the % change" if query.by_growth else ", ranked by the change"
    if query.count:
        parts[0] = f"Number of {_counted(model, query, 2)} ({parts[0]})"
    parts += [_filter_text(model, rule, names) for rule in query.filters]
    when = window_text(query.window) + placed(query.window, last_day) + _dated_by(model, query.window)
    if query.compare is not None:
        when += f" vs {window_text(query.compare)}"
    parts.append(when)
    return ", ".join(parts)


def _dated_by(model: SemanticModel, window: Window | None) -> str:
    """The date a window is of, when not the model's time: "2016 (engage date)"."""
    if window is None or window.column is None or (window.start is None and window.end is None):
        return ""
    return f" ({model.column(window.column).title.lower()})"


def render(
    model: SemanticModel,
    query: SemanticQuery,
    result: Result,
    *,
    total_groups: int | None = None,
    names: dict[str, str] | None = None,
    overall: dict[str, Any] | None = None,
    last_day: date | None = None,
    holding: dict[str, Any] | None = None,
) -> str:
    """The answer's text: the reading, then the figures (a line per group). ``names``: what the file
    calls the keys the query is filtered to ("Stock code 22423 (REGENCY CAKESTAND 3 TIER)");
    ``overall``: the metrics over every group together, said under the list (:func:`overall_line`);
    ``holding``: the line an extreme is from (:func:`held_by`)."""
    currency = model.currency
    head = reading(model, query, names, last_day)
    records = result.records()
    metrics = [model.metric(name) for name in query.metrics]
    if query.together:
        row = records[0] if records else {}
        kept = int(row.get("__groups") or 0)
        figures = "; ".join(_valued(m, row.get(m.name), currency, len(metrics)) for m in metrics)
        return f"{head}: {figures} ({kept:,} {_counted(model, query, kept)})."
    if not query.group_by:
        row = records[0] if records else {}
        if query.compare is not None:
            return f"{head}: " + "; ".join(_compared(m, row, currency) for m in metrics) + "."
        return (
            f"{head}: "
            + "; ".join(_valued(m, row.get(m.name), currency, len(metrics)) for m in metrics)
            + _periods(query, row)
            + _share_of(model, query, row)
            + held_by(model, holding)
            + "."
        )
    if not records:
        return f"{head}: nothing matches." if not query.count else f"{head}: 0 {_counted(model, query, 0)}."
    shown = ""
    tied = len(records) - query.limit
    end = "bottom" if query.order == "asc" else "top"  # the lowest first: the bottom of the ranking
    if total_groups and tied > 0:
        shown = f" ({end} {query.limit} of {total_groups}, and {tied} tied with the last)"
    elif total_groups and total_groups > len(records):
        shown = f" ({end} {len(records)} of {total_groups})"
    lines = [f"{head}{shown}:"]
    if query.count:
        number = total_groups if total_groups is not None else len(records)
        lines = [
            f"{head}: {number:,} {_counted(model, query, number)}",
            "The first of them:" if shown else "",
        ]
        lines = [line for line in lines if line]
    for place, row in enumerate(records, 1):
        name = " · ".join(_group_value(model, query, row, i) for i in range(len(query.group_by)))
        if query.compare is not None or (
            query.each_against_previous and any(row.get(f"{m.name}__before") is not None for m in metrics)
        ):  # the first period has none before it: its figure alone
            figures = "; ".join(_compared(m, row, currency) for m in metrics)
        else:
            figures = "; ".join(_valued(m, row.get(m.name), currency, len(metrics)) for m in metrics)
        ranked = query.order_by or query.metrics[0]
        share = row.get(f"{ranked}__share")
        tail = f" ({share * 100:.2f}% of the total)" if query.share and share is not None else ""
        tail = _share_of(model, query, row) or tail
        if len(records) == 1:  # the one order ranked first: what it was
            tail += held_by(model, holding)
        lines.append(f"{place}. {name}: {figures}{tail}")
    gap = _gap(model, query, records)
    if gap:  # "women vs men, who spends more and by how much?": the two named, and how far apart
        lines += ["", gap]
    if overall is not None:  # a paragraph of its own: the list's last item does not run on into it
        said = overall_line(metrics, overall, currency, total_groups or len(records))
        lines += ["", said + _share_of(model, query, overall, every_group=True)]
    return "\n".join(lines)


def _periods(query: SemanticQuery, row: dict[str, Any]) -> str:
    """ " (the average of 249 days with sales)": how many periods an average per period is over."""
    if query.per is None:
        return ""
    number = int(row.get("__periods") or 0)
    return f" (the average of {number:,} {query.per if number == 1 else query.per + 's'} with sales)"


def held_by(model: SemanticModel, holding: dict[str, Any] | None) -> str:
    """ ", on January 27, 2022 (Sales person Ches Bonnell; Country Australia)": the one line that
    holds an extreme, or that the question kept, what it is; or how many lines share an extreme."""
    if not holding:
        return ""
    lines = int(holding.get("__lines") or 0)
    if lines != 1:
        return f", on {lines:,} lines" if lines > 1 and holding.get("__extreme") else ""
    when, what = [], []
    for column in model.columns:
        value = holding.get(column.name)
        if column.name not in holding or value is None or value == "":
            continue
        if column.role is Role.time:
            when.append(_plain(value) if column.day_time == "time" else day_text(value))
        else:
            what.append(f"{column.title} {_plain(value)}")
    said = f", on {' and '.join(dict.fromkeys(when))}" if when else ""
    return said + (f" ({'; '.join(what)})" if what else "")


def _gap(model: SemanticModel, query: SemanticQuery, records: list[dict[str, Any]]) -> str:
    """How far apart the two values a question names side by side are ("Women vs men": "Women are
    ahead of Men by 5,949,169.00 (78.14%)"), on the first figure; "" for any other list."""
    if len(records) != 2 or len(query.group_by) != 1 or query.compare is not None or query.count:
        return ""
    column = query.group_by[0].column
    if not any(f.column == column and f.op == "in" and len(f.values) == 2 for f in query.filters):
        return ""
    metric = model.metric(query.order_by or query.metrics[0])
    first, second = (r.get(metric.name) for r in records)
    if not isinstance(first, int | float) or not isinstance(second, int | float) or metric.unit == "date":
        return ""
    names = [_group_value(model, query, r, 0) for r in records]
    if exact(first) == exact(second):
        return f"{names[0]} and {names[1]} are level on {metric.title.lower()}."
    (high, low), (top, bottom) = (
        ((first, second), names) if exact(first) > exact(second) else ((second, first), names[::-1])
    )
    amount = figure(metric, exact(high) - exact(low), model.currency)
    percent = f" ({_rounded((exact(high) - exact(low)) / abs(exact(low)) * 100, 2)}%)" if low else ""
    return f"{top} is ahead of {bottom} on {metric.title.lower()} by {amount}{percent}."


_ADDITIVE = (Kind.sum, Kind.rows, Kind.count_distinct, Kind.difference)


def overall_line(metrics: list[Metric], overall: dict[str, Any], currency: str | None, groups: int) -> str:
    """ "Total of the 3: 3,651": what the groups come to together, so "how many units did the
    branches outside Yangon sell?" is answered by the list too. Sums and counts are totals (a
    distinct count is counted again over all of them, not added up); averages and ratios are the
    figure over all the groups' rows, said as "overall"."""
    figures = "; ".join(_valued(m, overall.get(m.name), currency, len(metrics)) for m in metrics)
    if not all(m.kind in _ADDITIVE for m in metrics):
        return f"Overall: {figures}"
    return f"Total of the {groups:,}: {figures}"


def _share_of(
    model: SemanticModel, query: SemanticQuery, row: dict[str, Any], every_group: bool = False
) -> str:
    """ " (32.96% of 8,998,790.91, the revenue of 2011)": a figure's share of the wider whole asked
    (``every_group``: the groups' total line, whose whole is every group's)."""
    if query.share_of is None:
        return ""
    ranked = query.order_by or query.metrics[0]
    share, whole = row.get(f"{ranked}__share"), row.get(f"{ranked}__whole")
    metric = model.metric(ranked)
    of = [_filter_text(model, rule) for rule in query.share_of.filters] + [window_text(query.share_of.window)]
    if query.share_of.each_group and query.group_by and not every_group:  # "the orders of that location"
        of.insert(
            0, "that " + " and ".join(g.grain or _entity_title(model, g.column, g) for g in query.group_by)
        )
    amount = figure(metric, whole, model.currency)
    if share is None:
        return f" (of {amount}: no share, the whole is nothing)"
    return f" ({_rounded(exact(share) * 100, 2)}% of {amount}, the {metric.title.lower()} of {', '.join(of)})"


def _valued(metric: Metric, value: Any, currency: str | None, count: int) -> str:
    text = figure(metric, value, currency)
    return f"{metric.title} {text}" if count > 1 else text


def _compared(metric: Metric, row: dict[str, Any], currency: str | None) -> str:
    now, before = row.get(metric.name), row.get(f"{metric.name}__before")
    text = f"{metric.title} {figure(metric, now, currency)} vs {figure(metric, before, currency)}"
    if isinstance(now, int | float) and isinstance(before, int | float):
        change = exact(now) - exact(before)
        direction = "up" if change > 0 else "down" if change < 0 else "unchanged"
        if metric.unit == "date":
            return text
        amount = figure(metric, abs(change), currency)
        percent = f" ({_rounded(abs(change) / abs(exact(before)) * 100, 2)}%)" if before else ""
        text += f", {direction}" + ("" if direction == "unchanged" else f" {amount}{percent}")
    return text


def _group_value(model: SemanticModel, query: SemanticQuery, row: dict[str, Any], index: int) -> str:
    group = query.group_by[index]
    alias = group.column if group.grain is None else f"{group.column}__{group.grain}"
    value = row.get(alias)
    if group.grain is not None:
        return _period(value, group.grain)
    label = row.get(f"{alias}__label")
    column = model.column(group.column)
    if label in (None, "", value) and column.role is Role.dimension and str(value).isdigit():
        return f"{column.title} {value}"  # a thing's number ("Store 20"), not a figure
    return (
        f"{label} ({value})" if label not in (None, "", value) else _plain(value)
    )  # a quantity of 4, not 4.0


def _period(value: Any, grain: str) -> str:
    if value is None:
        return "no date"
    if grain == "weekday":
        return str(value)
    if grain == "hour":
        return _hour(int(value))
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    if grain == "year":
        return str(day.year)
    if grain == "quarter":
        return f"Q{(day.month - 1) // 3 + 1} {day.year}"
    if grain == "month":
        return f"{calendar.month_name[day.month]} {day.year}"
    if grain == "week":
        return f"week of {day_text(day)}"
    return day_text(day)


_CHANGED = {"lt": "down", "le": "down or unchanged", "gt": "up", "ge": "up or unchanged"}
"""A change kept below or above 0, said as people say it."""
_NONE_OR_SOME: dict[tuple[str, str | float | int], str] = {
    ("le", 0): "no",
    ("lt", 1): "no",
    ("ge", 1): "with",
    ("gt", 0): "with",
}
"""A count kept at none or at some: said as people say it."""


def _filter_text(model: SemanticModel, rule: Filter, names: dict[str, str] | None = None) -> str:
    if rule.ever_by is not None:  # "holding Item angbutter (by order)"
        key = model.column(rule.ever_by)
        by = key.entity.value if key.entity else key.title.lower()
        return f"holding {_filter_text(model, rule.model_copy(update={'ever_by': None}), names)} (by {by})"
    if rule.never_by is not None:  # "never Product department Apparel (by customer)"
        key = model.column(rule.never_by)
        by = key.entity.value if key.entity else key.title.lower()
        column = model.column(rule.column or "")
        if column.role is Role.time and rule.op == "between":  # "no line in 2016 (by state)"
            start, end = (date.fromisoformat(str(v)[:10]) for v in rule.values)
            of = "" if column is model.time else f" ({column.title.lower()})"
            return f"no line in {window_text(Window(start=start, end=end))}{of} (by {by})"
        had = _filter_text(model, rule.model_copy(update={"never_by": None}), names)
        return f"never {had} (by {by})"
    if rule.than is not None:  # "Ship date before Order date"
        column, than = model.column(rule.column or ""), model.column(rule.than)
        dated = column.role is Role.time
        word = (
            {"lt": "before", "le": "on or before", "gt": "after", "ge": "on or after"}[rule.op]
            if dated
            else None
        )
        return f"{column.title} {word or _OPS[rule.op].strip()} {than.title.lower()}"
    if rule.change:  # "revenue down", "revenue changed by over 1,000.00"
        changed = model.metric(str(rule.metric))
        if rule.values == [0] and rule.op in _CHANGED:
            return f"{changed.title.lower()} {_CHANGED[rule.op]}"
        amounts = " and ".join(figure(changed, v, model.currency) for v in rule.values)
        return f"{changed.title.lower()} changed by {_OPS.get(rule.op, rule.op + ' ')}{amounts}"
    if rule.each is not None:  # "profit over 0.00 every month"
        return f"{_filter_text(model, rule.model_copy(update={'each': None}), names)} every {rule.each}"
    if rule.metric is not None:
        metric = model.metric(rule.metric)
        said = _NONE_OR_SOME.get((rule.op, rule.values[0])) if len(rule.values) == 1 else None
        if said is not None and metric.kind in (Kind.count_distinct, Kind.rows):
            return f"{said} {metric.title.lower()}"  # "no cancelled orders", "with cancelled orders"
        if rule.op == "between" and len(set(rule.values)) == 1:  # "exactly 1 order line"
            return f"{metric.title.lower()} exactly {figure(metric, rule.values[0], model.currency)}"
        values = " and ".join(figure(metric, v, model.currency) for v in rule.values)
        op = {"lt": "before ", "le": "on or before ", "gt": "after ", "ge": "on or after "}.get(rule.op)
        op = op if metric.unit == "date" and op else _OPS.get(rule.op, rule.op + " ")
        return f"{metric.title.lower()} {op}{values}"
    column = model.column(rule.column or "")
    named = names if column.role is Role.key and rule.op == "in" else None
    written = [
        f"{v} ({named[f'{column.name}={v}']})" if named and f"{column.name}={v}" in named else _plain(v)
        for v in rule.values
    ]
    if column.unit == "percent":  # a discount of 0.4 is said "40%"
        written = [f"{_plain(round(float(v) * 100, 4))}%" for v in rule.values]
    if rule.part == "weekday":
        return f"{'not ' if rule.op == 'not_in' else ''}on {' or '.join(f'{v}s' for v in rule.values)}"
    if rule.part == "hour":
        return _hours_text(rule)
    if rule.part in ("year", "month"):  # "not in 2011 and 2012", "not in February"
        parts = [str(int(v)) if rule.part == "year" else calendar.month_name[int(v)] for v in rule.values]
        said = f"{', '.join(parts[:-1])} and {parts[-1]}" if len(parts) > 1 else parts[0]
        return f"{'not in' if rule.op == 'not_in' else 'in'} {said}"
    if rule.op == "not_in" and len(written) > 1:  # "other than A, B and C": none of them
        return f"{column.title} other than {', '.join(written[:-1])} and {written[-1]}"
    values = " or ".join(written)
    if rule.op in ("missing", "present"):  # "no Customer ID": a guest's lines
        article = "an" if column.title[:1].lower() in "aeiou" else "a"
        return f"{'no' if rule.op == 'missing' else f'with {article}'} {column.title}"
    if rule.op == "between":
        low, high = written
        return f"{column.title} {low}" if low == high else f"{column.title.lower()} {low} to {high}"
    return f"{column.title} {_OPS.get(rule.op, rule.op + ' ')}{values}"


def _hour(hour: int) -> str:
    return f"{hour:02d}:00"


def _hours_text(rule: Filter) -> str:
    """An hour filter as a clock says it: "from 18:00", "before 12:00", "09:00 to 11:59"."""
    hours = [int(v) for v in rule.values]
    match rule.op:
        case "ge" | "gt":
            start = hours[0] + (rule.op == "gt")
            return f"from {_hour(start)}" if start < 24 else "after 23:59"
        case "lt" | "le":
            end = hours[0] + (rule.op == "le")
            return f"before {_hour(end)}" if end < 24 else "until 23:59"
        case "between":
            return f"{_hour(hours[0])} to {hours[1]:02d}:59"
        case op:
            listed = " or ".join(f"{_hour(h)}-{h:02d}:59" for h in hours)
            return f"{'not ' if op == 'not_in' else ''}at {listed}"


def _plain(value: object) -> str:
    """A value as the question wrote it: 3, not 3.0."""
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _counted(model: SemanticModel, query: SemanticQuery, number: int) -> str:
    """What a count counts, in the plural unless one: "20 customers", "1 region"."""
    groups = " · ".join(_entity_title(model, g.column) if not g.grain else g.grain for g in query.group_by)
    return groups if number == 1 else plural(groups)


def _entity_title(model: SemanticModel, name: str, group: GroupBy | None = None) -> str:
    column = model.column(name)
    if column.role is Role.key and column.entity is not None:
        return column.entity.value
    if group is not None and group.bands is not None:  # "by age band": 18-29, 30-44, …
        return f"{column.title.lower()} band"
    return column.title.lower()


def _is_percent(metric: Metric) -> bool:
    words = f"{metric.name} {metric.title}".lower()
    return any(word in words for word in _PERCENT_RATIOS)


def day_text(value: Any) -> str:
    day = value if isinstance(value, date) else date.fromisoformat(str(value)[:10])
    return f"{calendar.month_name[day.month]} {day.day}, {day.year}"


def chips(model: SemanticModel, query: SemanticQuery) -> list[dict[str, str]]:
    """The reading's parts, each with the query field it stands for and how it reads: what the UI
    shows under an answer and lets an analyst change (docs/architecture.md#editing-a-reading)."""
    found = [{"field": "metrics", "value": name, "label": model.metric(name).title} for name in query.metrics]
    for group in query.group_by:
        title = model.column(group.column).title.lower()
        label = (
            f"by {group.grain} ({title})"
            if group.grain
            else f"by {_entity_title(model, group.column, group)}"
        )
        found.append({"field": "group_by", "value": group.column, "label": label})
    for rule in query.filters:
        found.append(
            {
                "field": "filters",
                "value": rule.column or rule.metric or "",
                "label": _filter_text(model, rule),
            }
        )
    found.append({"field": "window", "value": "", "label": window_text(query.window)})
    if query.compare is not None:
        found.append({"field": "compare", "value": "", "label": f"vs {window_text(query.compare)}"})
    return found
