"""The typed query over a semantic model: what a question asks, as a small value.

A question is read into one :class:`SemanticQuery` -- metrics; columns to group by (a time column at a
grain is one too); filters with negation, ranges and "in"; a time window; a comparison with an earlier
window; order, limit and share of the total -- and :mod:`compile` turns it into SQL. Its JSON schema
(:func:`query_schema`) is generated from the model, so a grammar made from it lets a small model name
only the metrics, columns and values the dataset has (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.semantic.model import Column, Entity, Role, SemanticModel

if TYPE_CHECKING:  # vocabulary.py reads the grain words from here
    from agent_orchestrator.semantic.vocabulary import Found

MAX_ROWS = 50
Grain = Literal["day", "week", "month", "quarter", "year", "weekday", "hour"]
GRAIN_WORDS: dict[str, tuple[str, ...]] = {
    "day": ("day", "daily", "days", "per day"),
    "week": ("week", "weekly", "weeks"),
    "month": ("month", "monthly", "months"),
    "quarter": ("quarter", "quarterly", "quarters"),
    "year": ("year", "yearly", "annual", "annually", "years"),
    "weekday": ("weekday", "day of the week", "weekdays"),
    "hour": ("hour", "hourly", "hours", "hour of the day", "time of day", "time of the day"),
}
"""How questions name each grain: part of the query language, found like the model's names."""
WEEKDAYS = tuple(calendar.day_name)
"""A weekday as the engine names it (``dayname``)."""
Op = Literal[
    "in",
    "not_in",
    "eq",
    "ne",
    "gt",
    "ge",
    "lt",
    "le",
    "between",
    "contains",
    "not_contains",
    "missing",
    "present",
]
BLANK_OPS = ("missing", "present")
"""A value left blank, or given: "lines with no customer" (a guest's) take no values."""
Value = str | float | int
ENUM_LIMIT = 200
"""A column with at most this many distinct values has them as an enum in the schema."""


class Filter(BaseModel):
    """Rows (or, on a metric, groups) kept: ``column`` (or ``metric``) ``op`` ``values``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: Annotated[str, Field(max_length=64)] | None = None
    metric: Annotated[str, Field(max_length=64)] | None = None
    """A filter on a metric applies to the groups ("customers whose last order was before …")."""
    op: Op
    values: Annotated[list[Value], Field(max_length=50)] = []
    part: Literal["weekday", "hour", "year", "month"] | None = None
    """Of a time column: the part of each value compared ("on Thursdays": the weekday is Thursday;
    "from 6pm": the hour, 0 to 23, is at least 18; "excluding 2011 and 2012": the year is neither;
    "excluding February": the month, 1 to 12, is not 2)."""
    than: Annotated[str, Field(max_length=64)] | None = None
    """Another column of the same kind each row's value is compared with, in place of values ("lines
    whose ship date is before their order date", "whose profit is above their sales")."""
    never_by: Annotated[str, Field(max_length=64)] | None = None
    """A key, label or dimension column: the rows of the things it names that never had a row kept
    by the rest of the filter ("customers who never bought from Apparel": every row of a customer
    with no Apparel line; "states with no sales in 2016": every row of a state with none that year)."""
    each: Literal["day", "week", "month", "quarter", "year"] | None = None
    """Of a filter on a metric: the figure of every period of this grain that has rows, not of the
    whole window ("which products made a profit every month?": each month's profit above 0; "which
    states had no loss-making month?": no month's below 0). A period a group has no rows in counts
    as 0 for it."""
    change: bool = False
    """Of a filter on a metric, with a comparison: the change of the figure since the earlier window,
    not the figure ("how many stores went backwards?": a change below 0; "which products grew?")."""
    ever_by: Annotated[str, Field(max_length=64)] | None = None
    """The same, of the things that had such a row: "receipts with angbutter" are every line of the
    receipts holding one (their totals, their other items), not the angbutter lines alone; two such
    filters keep the receipts holding both."""

    @model_validator(mode="after")
    def _one_target(self) -> Filter:
        if (self.column is None) == (self.metric is None):
            raise ValueError("a filter names a column or a metric, not both")
        if self.part == "weekday" and (
            self.op not in ("in", "not_in") or any(v not in WEEKDAYS for v in self.values)
        ):
            raise ValueError(f"a weekday is one of {', '.join(WEEKDAYS)}")
        if self.part == "hour" and (
            self.op not in ("in", "not_in", "gt", "ge", "lt", "le", "between")
            or any(not isinstance(v, int | float) or not 0 <= v <= 23 or v % 1 for v in self.values)
        ):
            raise ValueError("an hour is a whole number from 0 to 23")
        if self.part == "year" and (
            self.op not in ("in", "not_in")
            or any(not isinstance(v, int | float) or not 1900 <= v <= 2100 or v % 1 for v in self.values)
        ):
            raise ValueError("a year is a whole number from 1900 to 2100, kept or left out")
        if self.part == "month" and (
            self.op not in ("in", "not_in")
            or any(not isinstance(v, int | float) or not 1 <= v <= 12 or v % 1 for v in self.values)
        ):
            raise ValueError("a month is a whole number from 1 to 12, kept or left out")
        if self.change and (
            self.metric is None or self.each is not None or self.op in ("in", "not_in", *BLANK_OPS)
        ):
            raise ValueError("a change is a metric's, above, below or between values")
        if self.each is not None and (self.metric is None or self.op in ("in", "not_in", *BLANK_OPS)):
            raise ValueError("every period's figure is a metric's, above, below or between values")
        if self.than is not None:
            if self.op not in ("gt", "ge", "lt", "le") or self.values or self.column is None:
                raise ValueError("a column compared with another is above or below it, with no values")
            return self
        if (self.op in BLANK_OPS) != (not self.values):
            raise ValueError("'missing' and 'present' take no values; every other operator takes some")
        if self.op == "between" and len(self.values) != 2:
            raise ValueError("'between' takes two values")
        if self.op not in ("in", "not_in", "between", *BLANK_OPS) and len(self.values) != 1:
            raise ValueError(f"{self.op!r} takes one value")
        return self


class Window(BaseModel):
    """Days ``start`` to ``end``, both included, of the model's time column (or ``column``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    start: date | None = None
    end: date | None = None
    column: Annotated[str, Field(max_length=64)] | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Window:
        if self.start is not None and self.end is not None and self.start > self.end:
            raise ValueError("a window starts before it ends")
        return self


class Whole(BaseModel):
    """What a share is of, when it is more than the groups' total ("what share of 2011 revenue came
    from Q4?"): the first metric over this window and these filters only."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    window: Window | None = None
    filters: Annotated[list[Filter], Field(max_length=12)] = []
    each_group: bool = False
    """Of each group's own whole ("what % of transactions were credit, by location?": each
    location's credit transactions as a share of that location's transactions)."""


class Band(BaseModel):
    """A range of a measure's values, as people say one: "18-29" (``low`` and ``high``, both
    included), "60+" (``low`` only), "under 30" (``below`` only: 30 is not in it)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    low: float | None = None
    high: float | None = None
    below: float | None = None

    @model_validator(mode="after")
    def _bounded(self) -> Band:
        if self.high is not None and self.below is not None:
            raise ValueError("a band ends at its highest value or below a value, not both")
        top = self.high if self.high is not None else self.below
        if self.low is None and top is None:
            raise ValueError("a band has a lowest value, a highest value or both")
        if self.low is not None and top is not None and self.low > top:
            raise ValueError("a band's lowest value is not above its highest")
        return self

    @property
    def label(self) -> str:
        """How the band reads in an answer: as it was said ("18-29", "60+", "under 30")."""
        low, high, below = (None if v is None else f"{v:g}" for v in (self.low, self.high, self.below))
        if low is not None and high is not None:
            return f"{low}-{high}"
        if low is not None and below is not None:
            return f"{low} to under {below}"
        return f"{low}+" if low is not None else f"under {below}" if below is not None else f"up to {high}"


class GroupBy(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    column: Annotated[str, Field(max_length=64)]
    grain: Grain | None = None
    """For a time column: the period each group is."""
    bands: Annotated[list[Band], Field(min_length=2, max_length=12)] | None = None
    """For a measure: the ranges its values are grouped in ("which age group spends most: 18-29,
    30-44 or 45+?"); a value in none of them is in a group of its own, "other"."""


class SemanticQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    metrics: Annotated[list[Annotated[str, Field(max_length=64)]], Field(min_length=1, max_length=6)]
    group_by: Annotated[list[GroupBy], Field(max_length=3)] = []
    filters: Annotated[list[Filter], Field(max_length=12)] = []
    window: Window | None = None
    compare: Window | None = None
    """An earlier window to compute the same metrics over, side by side."""
    order: Literal["desc", "asc"] = "desc"
    order_by: Annotated[str, Field(max_length=64)] | None = None
    """The metric the groups are ranked by (the first metric when unset); periods are ranked by it
    only when it is set ("which month had the highest revenue?"), else they read in time order."""
    limit: Annotated[int, Field(ge=1, le=MAX_ROWS)] = 10
    share: bool = False
    """Each group's share of the total of the first metric."""
    share_of: Whole | None = None
    """The answer's share of a wider whole: of the same metric over the whole's window and filters."""
    by_change: bool = False
    """Rank the groups by the change of the ranked metric since the comparison window ("which
    region grew most?"), or since the period before (``each_against_previous``), not by its value."""
    by_growth: bool = False
    """With ``by_change``: rank by the change as a share of the earlier figure ("which product grew
    fastest?", "the biggest % growth"), not by its amount: a small line that doubled is ahead of a
    big one that grew by more."""
    each_against_previous: bool = False
    """Each period of a series beside the period before it, with the change ("revenue growth by
    year", "was there a year we went backwards?"): one group, a time grain, no comparison window."""
    per: Literal["day", "week", "month", "quarter", "year"] | None = None
    """The metrics of each period of this grain that has lines, averaged ("average daily revenue",
    "avg orders per month"): one figure, with the number of periods it is the average of."""
    count: bool = False
    """The answer is how many groups there are ("how many customers haven't ordered since 2015?"),
    the first of them listed beside it."""
    together: bool = False
    """The answer is the metrics over every row of the groups kept, as one figure: "revenue from
    invoices under 100" is the revenue of the invoices whose revenue is under 100, together."""

    def checked(self, model: SemanticModel) -> SemanticQuery:
        """This query if every name in it is the model's; one clear :class:`InvalidInputError` if not."""
        for name in [*self.metrics, *([self.order_by] if self.order_by else [])]:
            model.metric(name)
        if self.order_by is not None and self.order_by not in self.metrics:
            raise InvalidInputError(f"Rank by one of the metrics asked for, not {self.order_by!r}.")
        for group in self.group_by:
            column = model.column(group.column)
            if column.role is Role.time:
                if group.grain is None:
                    raise InvalidInputError(f"Grouping by {column.name} needs a grain (day, month, …).")
                _check_part(column, group.grain)
            elif group.bands is not None:
                if column.role is not Role.measure:
                    raise InvalidInputError(f"{column.name} holds no figures to group in ranges.")
            elif group.grain is not None or column.role not in (
                Role.dimension,
                Role.key,
                Role.label,
                Role.measure,
            ):
                raise InvalidInputError(f"The dataset cannot be grouped by {column.name}.")
        for rule in [*self.filters, *(self.share_of.filters if self.share_of else [])]:
            by = rule.never_by or rule.ever_by
            if rule.never_by is not None and rule.ever_by is not None:
                raise InvalidInputError("A filter keeps the things that never had a row or those that had.")
            if by is not None and (
                rule.column is None or model.column(by).role not in (Role.key, Role.label, Role.dimension)
            ):
                raise InvalidInputError(f"{by} names no things that may or may not have had a row.")
            if rule.column is not None:
                column = model.column(rule.column)
                if column.role is Role.ignore:
                    raise InvalidInputError(f"The dataset cannot be filtered by {column.name}.")
                if rule.than is not None and (
                    model.column(rule.than).role is not column.role
                    or column.role not in (Role.time, Role.measure)
                ):
                    raise InvalidInputError(
                        f"{column.name} and {rule.than} are not two dates or two figures."
                    )
                dated = (
                    column.role is Role.time
                    and rule.op not in BLANK_OPS  # "never cancelled": no date
                    and not (rule.never_by and rule.op == "between")  # "no sales in 2016": days
                )
                if rule.than is None and (rule.part is not None) != dated:
                    raise InvalidInputError(f"{column.name} is filtered by a part of its dates, a weekday.")
                _check_part(column, rule.part)
            elif rule.metric is not None:
                model.metric(rule.metric)
                if rule.change and self.compare is None:
                    raise InvalidInputError("A change needs a period to compare with.")
                if rule.each is not None and (model.time is None or not self.group_by):
                    raise InvalidInputError("Every period's figure is of the groups, over the dates.")
        for window in (self.window, self.compare, self.share_of.window if self.share_of else None):
            if (
                window is not None
                and window.column is not None
                and model.column(window.column) not in model.dated
            ):
                raise InvalidInputError(f"{window.column} is not a date of the dataset.")
        _not_split(self, model)
        if self.per is not None:
            if model.time is None:
                raise InvalidInputError("An average per period needs a date column.")
            if self.group_by or self.compare or self.each_against_previous or self.count or self.together:
                raise InvalidInputError("An average per period is one figure, of no groups nor comparison.")
            if self.share or self.share_of:
                raise InvalidInputError("An average per period is no share.")
            _check_part(model.time, self.per)
        if self.compare is not None and self.window is None:
            raise InvalidInputError("A comparison needs the window it compares with.")
        if self.each_against_previous and (
            len(self.group_by) != 1 or self.group_by[0].grain is None or self.compare is not None
        ):
            raise InvalidInputError("Each period against the one before needs one period to group by.")
        if self.by_change and self.compare is None and not self.each_against_previous:
            raise InvalidInputError("Ranking by the change needs a period to compare with.")
        if self.by_growth and not self.by_change:
            raise InvalidInputError("Ranking by the growth rate is a ranking by the change.")
        if self.count and not self.group_by:
            raise InvalidInputError("Counting needs what is counted: a column to group by.")
        if self.together and (
            not self.group_by or self.count or self.compare or self.share or self.by_change
        ):
            raise InvalidInputError(
                "Groups taken together need a column to group by, and no count, comparison or share."
            )
        return self


_NO_SUCH_PART = {
    "date": "{} holds days, not times of day: it has no hours.",
    "time": "{} holds times of day only: it is grouped and filtered by the hour.",
}


def _not_split(query: SemanticQuery, model: SemanticModel) -> None:
    """An order's own amount (a receipt's total) grouped or filtered by what differs from line to
    line of one order (its items, their quantities) is refused: the file says no item's share."""
    whole = [c for c in model.with_role(Role.measure) if c.of_order]
    if not whole:
        return
    read = model.read_by(query.metrics)
    amounts = [c for c in whole if c.name in read]
    named = [g.column for g in query.group_by]
    named += [f.column for f in query.filters if f.column and not (f.never_by or f.ever_by)]  # whole things
    for name in named:
        column = model.column(name)
        if amounts and (
            column.entity is Entity.product or (column.role is Role.measure and not column.of_order)
        ):
            raise InvalidInputError(
                f"{amounts[0].title} is the whole order's, written once an order: the file does not say "
                f"how much of it each {column.title.lower()} was. It can be asked by order, period or "
                f"any other column, and {column.title.lower()} by its own figures."
            )


def _check_part(column: Column, part: str | None) -> None:
    """An hour is of a column with times of day, a period or a weekday of one with days."""
    if (part == "hour") != (column.day_time == "time") and column.day_time != "date_time":
        raise InvalidInputError(_NO_SUCH_PART[column.day_time].format(column.name))


def _part_filter(name: str, part: str, ops: list[str], item: dict[str, Any], most: int) -> dict[str, Any]:
    """The schema of a filter on a part of a time column's values (its year, weekday or hour)."""
    return {
        "type": "object",
        "properties": {
            "column": {"const": name},
            "part": {"const": part},
            "op": {"type": "string", "enum": ops},
            "values": {"type": "array", "items": item, "minItems": 1, "maxItems": most},
        },
        "required": ["column", "part", "op", "values"],
        "additionalProperties": False,
    }


def query_schema(
    model: SemanticModel, values: dict[str, list[str]] | None = None, found: Found | None = None
) -> dict[str, Any]:
    """The JSON schema of a :class:`SemanticQuery` over ``model``: metric and column names are enums of
    the model's, and so are the values of each column listed in ``values`` (its distinct values, when
    there are at most :data:`ENUM_LIMIT`), so output constrained by it can only name what exists.

    With what a question was found to name (``found``, :mod:`vocabulary`), the schema offers only
    that: the metrics it named (all, if none), the columns it named to group by (besides periods),
    and filters on the values it named, each in its own column -- nothing else can be written.
    """
    metrics = [m.name for m in [*model.metrics, *model.counts]]
    groupable = [c.name for c in model.groupable]
    times = [c.name for c in model.dated]
    clocks = [c.name for c in model.clocked]
    values = values or {}
    grains = list(Grain.__args__)  # type: ignore[attr-defined]
    if found is not None:
        metrics = list(found.metrics) or metrics
        groupable = [name for name in found.columns if name in groupable]
        values = found.values()
        grains = list(found.grains)
    clocks = clocks if "hour" in grains else []
    grains = [grain for grain in grains if grain != "hour"]
    periods = times if grains else []

    def names(choices: list[str]) -> dict[str, Any]:
        return {"type": "string", "enum": choices}

    # A filter's values belong to its column: one shape per column, with that column's own values
    # (as an enum when they are few), its own operators, and numbers for a measure. Dates are the
    # window's, not a filter's.
    column_filters: list[dict[str, Any]] = []
    for column in model.columns:
        if column.role in (Role.ignore, Role.time):
            continue
        named = (
            found is None
            or column.name in values
            or (column.role is Role.measure and column.name in found.columns)
        )
        if not named:
            continue  # a filter only on the values (or the measure) the question named
        item: dict[str, Any]
        if column.role is Role.measure:
            ops, item = ["gt", "ge", "lt", "le", "between"], {"type": "number"}
        else:
            known = values.get(column.name)
            ops = (
                ["in", "not_in", "missing", "present"]
                if known
                else ["in", "not_in", "contains", "not_contains", "missing", "present"]
            )
            item = {"type": "string", "enum": known} if known else {"type": "string", "maxLength": 80}
        column_filters.append(
            {
                "type": "object",
                **({"title": column.entity.value} if column.entity is not None else {}),  # what it names
                **({"description": f"also: {', '.join(column.synonyms[:6])}"} if column.synonyms else {}),
                "properties": {
                    "column": {"const": column.name},
                    "op": {"type": "string", "enum": ops},
                    "values": {"type": "array", "items": item, "maxItems": 20},
                },
                "required": ["column", "op"],
                "additionalProperties": False,
            }
        )
    if found is None:  # "on Thursdays": a weekday of each date column; "excluding 2011": a year
        years = {"type": "integer", "minimum": 1900, "maximum": 2100}
        months = {"type": "integer", "minimum": 1, "maximum": 12}
        hours = {"type": "integer", "minimum": 0, "maximum": 23}
        column_filters += [
            *(_part_filter(name, "year", ["in", "not_in"], years, 20) for name in times),
            *(_part_filter(name, "month", ["in", "not_in"], months, 12) for name in times),
            *(_part_filter(name, "weekday", ["in", "not_in"], names(list(WEEKDAYS)), 7) for name in times),
            *(
                _part_filter(name, "hour", ["in", "not_in", "ge", "le", "between"], hours, 24)
                for name in [c.name for c in model.clocked]
            ),
        ]
    metric_filter = {
        "type": "object",
        "properties": {
            "metric": names(metrics),
            "op": {"type": "string", "enum": ["gt", "ge", "lt", "le", "between"]},
            "values": {
                "type": "array",
                "items": {"anyOf": [{"type": "number"}, {"type": "string", "format": "date"}]},
                "minItems": 1,
                "maxItems": 2,
            },
        },
        "required": ["metric", "op", "values"],
        "additionalProperties": False,
    }
    window: dict[str, Any] = {
        "type": "object",
        "properties": {
            "start": {"type": "string", "format": "date"},
            "end": {"type": "string", "format": "date"},
            **({"column": names(periods)} if len(periods) > 1 else {}),
        },
        "additionalProperties": False,
    }
    # A grain belongs to a date column and to nothing else: two shapes, so neither mistake can be written.
    by_column = {
        "type": "object",
        "properties": {"column": names(groupable)},
        "required": ["column"],
        "additionalProperties": False,
    }
    by_period = {
        "type": "object",
        "properties": {
            "column": names(periods),
            "grain": {"type": "string", "enum": grains},
        },
        "required": ["column", "grain"],
        "additionalProperties": False,
    }
    by_hour = {
        "type": "object",
        "properties": {"column": names(clocks), "grain": {"const": "hour"}},
        "required": ["column", "grain"],
        "additionalProperties": False,
    }
    shapes = (
        ([by_column] if groupable else []) + ([by_period] if periods else []) + ([by_hour] if clocks else [])
    )
    # Nothing to group by: no ``group_by`` to write (a property the grammar cannot produce).
    groups = {"group_by": {"type": "array", "items": {"anyOf": shapes}, "maxItems": 3}} if shapes else {}
    return {
        "title": f"A question about {model.dataset}",
        "type": "object",
        "properties": {
            "metrics": {
                "type": "array",
                "items": names(metrics),
                "minItems": 1,
                "maxItems": min(6, len(metrics)),
            },
            **groups,
            "filters": {
                "type": "array",
                "items": {"anyOf": [*column_filters, metric_filter]},
                "maxItems": 12,
            },
            "window": window,
            "compare": window,
            "order": {"type": "string", "enum": ["desc", "asc"]},
            "order_by": names(metrics),
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_ROWS},
            "share": {"type": "boolean"},
            "share_of": {
                "type": "object",
                "properties": {
                    "window": window,
                    "filters": {"type": "array", "items": {"anyOf": column_filters}},
                    "each_group": {"type": "boolean"},
                },
                "additionalProperties": False,
            },
            "by_change": {"type": "boolean"},
            "by_growth": {"type": "boolean"},
            "each_against_previous": {"type": "boolean"},
            "per": {"type": "string", "enum": ["day", "week", "month", "quarter", "year"]},
            "count": {"type": "boolean"},
            "together": {"type": "boolean"},
        },
        "required": ["metrics"],
        "additionalProperties": False,
    }
