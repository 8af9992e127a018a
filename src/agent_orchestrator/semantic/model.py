"""A dataset's semantic model: what each column of a sales table is, and the metrics over it, as data.

The assistant answers over this model rather than over a fixed table shape
(docs/architecture.md#the-semantic-model): a file with a category, a region or a profit column gets
dimensions and measures of those names, with the synonyms an admin adds, and no code changes. The
model is validated once, as a whole, when it is made or loaded; everything downstream (the query's
JSON schema, the compiler, the pages) reads these objects and never the file's header again.

A column has two names: ``source``, the file's own header, which only the engine's view reads, and
``name``, an identifier the model validates, which is all that queries and the compiler ever use.
"""

from __future__ import annotations

import re
from enum import StrEnum
from functools import cached_property
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.errors import InvalidInputError

_NAME_LIMIT = 64
Name = Annotated[str, Field(min_length=1, max_length=_NAME_LIMIT, pattern=r"^[a-z][a-z0-9_]*$")]
"""A metric's or a column's name in the model: lower case, an identifier (``order_date``)."""
MAX_METRICS = 100
MAX_SYNONYMS = 60
"""Of one name: a line's largest sale is said of each thing a line is ("the biggest deal", "the most
expensive ticket"), some forty ways."""
Synonyms = Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(max_length=MAX_SYNONYMS)]


class Role(StrEnum):
    """What a column is for."""

    time = "time"
    """A date or time of the row (order date, ship date)."""
    key = "key"
    """The identifier of an entity (an order, a customer, a product), kept exactly as the file writes it."""
    label = "label"
    """The name of an entity shown beside its key (customer name, product name)."""
    dimension = "dimension"
    """Something to group or filter by (category, region, state, city, segment, ship mode, country)."""
    measure = "measure"
    """A number to aggregate (quantity, unit price, line total, profit, discount, cost)."""
    ignore = "ignore"


class Entity(StrEnum):
    """What a key (and its label) identifies."""

    order = "order"
    customer = "customer"
    product = "product"


class Kind(StrEnum):
    """How a metric is computed from its measure or key."""

    sum = "sum"
    rows = "rows"
    """Rows (order lines)."""
    count_distinct = "count_distinct"
    """Distinct values of a key (orders, customers, products)."""
    average = "average"
    median = "median"
    """The middle value (of an even count, the mean of the two middle ones): "the median order"."""
    minimum = "minimum"
    maximum = "maximum"
    """The latest value (of a time column: the last order date)."""
    ratio = "ratio"
    """One metric divided by another (margin = profit / revenue, average order value)."""
    difference = "difference"
    """One metric less another (profit = revenue less cost; the discounts given = revenue before
    discounts less revenue)."""
    deviation = "deviation"
    """The sample standard deviation of a measure over the rows: how much a store's weeks swing."""
    correlation = "correlation"
    """Pearson's correlation of a measure (``over``) with another (``against``) over the rows: "does
    temperature have any relationship with sales?"."""
    days_between = "days_between"
    """The average number of days from one date of a row (``since``) to another (``over``): the
    days from order to shipping."""


Unit = Literal["money", "count", "number", "ratio", "date"]
DayTime = Literal["date", "date_time", "time"]
"""What a time column's values hold: days; days with their times of day (an Online Retail
``InvoiceDate``); or times of day alone (a till's ``Time`` beside its ``Date``)."""


class Column(BaseModel):
    """One column of the table and its role."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    source: Annotated[str, Field(min_length=1, max_length=200)]
    """The file's own header for this column (what the engine reads)."""
    role: Role
    entity: Entity | None = None
    """For a key or a label: what it identifies."""
    label: Annotated[str, Field(max_length=80)] = ""
    """How people call it ("Ship mode"); the name with spaces when empty."""
    synonyms: Synonyms = []
    unit: Literal["money", "number", "percent"] | None = None
    """For a measure: money is written in the dataset's currency; a percent (a discount) is a share."""
    date_format: Annotated[str, Field(max_length=40)] | None = None
    """For a time column the file writes as text: its ``strptime`` format (``%m/%d/%Y``)."""
    day_time: DayTime = "date"
    """For a time column: whether it holds times of day too, or only them. Hours are asked of a
    column with times ("the busiest hour"); periods and windows of one with dates."""
    spellings: Annotated[
        dict[Annotated[str, Field(max_length=200)], Annotated[str, Field(max_length=200)]],
        Field(max_length=50),
    ] = {}
    """For a key, a label or a dimension: values the file writes another way -> the value they are
    ("Paypal" -> "PayPal"), so that a value is one group and one filter however a line spells it."""
    folded: bool = False
    """For a label or a dimension with too many values written other ways to list them (a city
    typed "BENGALURU", "Bengaluru" and "bengaluru" on thousands of orders): every value equal but for
    case and surrounding spaces is read as most lines write it."""
    monthly: bool = False
    """For a time column: every value is the first of a month, so each row is a month's figures (a
    monthly summary by state and product, say), not a sale: its rows count no orders and no units,
    and its days are said as months."""
    weekly: bool = False
    """For a time column: every value is one day of the week, so each row is a week's figures (a
    store's week), not a sale: its rows count no orders and no units."""
    of_order: bool = False
    """For a measure: an amount of the whole order, written on its first line only (a receipt's
    total in a file of one column per item): summed once an order, never split among its items."""
    mapped: Annotated[str, Field(max_length=40)] | None = None
    """What an admin confirmed the column holds (``suggest.KNOWN``: the order number, the line total):
    the columns every sales table has, as against the ones only this file has."""

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    @property
    def each_row(self) -> str | None:
        """For a time column of a summary: the period each row's figures are of, "month" or "week"."""
        return "month" if self.monthly else "week" if self.weekly else None


class Cancellation(BaseModel):
    """Which lines cancel (or refund) an order rather than sell: those whose ``column`` starts with
    ``prefix`` (the Online Retail layout's "C536379" invoices), holds one of ``values`` (a status
    column's "refunded"), or is ``written`` (a date the order was cancelled on). A reversal line (a
    prefix) is no order: orders, customers and units count the other lines. A status or a date marks
    an order that was placed, counted as the file records it, as its revenue is. Either way
    cancellations are metrics of their own."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: Name
    prefix: Annotated[str, Field(max_length=8, pattern=r"^[A-Za-z0-9-]+$")] | None = None
    values: Annotated[list[Annotated[str, Field(min_length=1, max_length=60)]], Field(max_length=10)] = []
    written: bool = False
    """A date of cancelling (a web shop's "Cancelled at"): an order is cancelled when it has one."""

    @model_validator(mode="after")
    def _one_rule(self) -> Cancellation:
        if (self.prefix is not None) + bool(self.values) + self.written != 1:
            raise ValueError(
                "a cancellation is marked by a prefix, by values or by a date written, one of them"
            )
        return self


class Metric(BaseModel):
    """A figure the assistant can compute: an aggregation of a measure or key, or a ratio of two
    metrics. ``over`` names a column of the model; a ratio names two other metrics."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: Name
    kind: Kind
    label: Annotated[str, Field(max_length=80)] = ""
    over: Name | None = None
    times: Name | None = None
    """For a sum: a second measure to multiply ``over`` by, row by row (quantity x unit price)."""
    less: Name | None = None
    """For a sum: a share of each row's amount taken off it (a discount of 0.2: x 0.8)."""
    since: Name | None = None
    """For days between: the earlier date column."""
    against: Name | None = None
    """For a correlation: the measure ``over`` is held against."""
    numerator: Name | None = None
    denominator: Name | None = None
    """For a ratio: the metric divided, and the one it is divided by; for a difference, the metric
    and the one taken off it."""
    unit: Unit = "number"
    synonyms: Synonyms = []
    description: Annotated[str, Field(max_length=200)] = ""
    only: Literal["kept", "cancelled"] | None = None
    """Only the lines that are not cancellations, or only those that are (the model's
    :class:`Cancellation`)."""
    better: Literal["higher", "lower"] = "higher"
    """Which way is good: the worst cancellation rate is the highest, the best days to ship the
    fewest ("worst" and "best" rank by it; "highest" and "lowest" by the figure)."""

    @property
    def title(self) -> str:
        return self.label or self.name.replace("_", " ").capitalize()

    @property
    def parts(self) -> list[str]:
        """The metrics a ratio or a difference is made of."""
        return [name for name in (self.numerator, self.denominator) if name]

    @property
    def adds_up(self) -> tuple[Kind, str | None, str | None, str | None]:
        """What the metric adds up: two metrics that add up the same are one figure under two names
        (the gross sales a file also calls revenue)."""
        return self.kind, self.over, self.times, self.less


class SemanticModel(BaseModel):
    """Every column of one dataset with its role, and the metrics over them; validated as a whole."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dataset: Annotated[str, Field(min_length=1, max_length=120)]
    currency: Annotated[str, Field(max_length=8)] | None = None
    columns: Annotated[list[Column], Field(min_length=1, max_length=200)]
    metrics: Annotated[list[Metric], Field(max_length=MAX_METRICS)] = []
    cancellation: Cancellation | None = None
    items_from: Annotated[list[Annotated[str, Field(max_length=200)]], Field(max_length=500)] = []
    """The file's headers that were items, when it was written one column per item and is read as
    the lines it records (docs/architecture.md#the-semantic-model): what the Data page says of a
    file whose columns are not the ones it was uploaded with."""

    @model_validator(mode="after")
    def _consistent(self) -> SemanticModel:
        for kind, names in (
            ("column", [c.name for c in self.columns]),
            ("metric", [m.name for m in self.metrics]),
        ):
            if len(set(names)) != len(names):  # a metric may share its column's name (profit)
                raise ValueError(f"{kind} names must be unique: {_repeated(names)}")
        sources = [c.source for c in self.columns]
        if len(set(sources)) != len(sources):
            raise ValueError(f"each column of the file has one role: {_repeated(sources)}")
        columns = {c.name: c for c in self.columns}
        for column in self.columns:
            if column.role in (Role.key, Role.label) and column.entity is None:
                raise ValueError(f"column {column.name}: a {column.role} names the entity it identifies")
        for entity in Entity:
            keys = [c.name for c in self.columns if c.role is Role.key and c.entity is entity]
            if len(keys) > 1:
                raise ValueError(f"one key per entity: {entity} has {', '.join(keys)}")
        metrics = {m.name: m for m in self.metrics}
        for metric in self.metrics:
            _check_metric(metric, columns, metrics)
            if metric.only is not None and self.cancellation is None:
                raise ValueError(
                    f"metric {metric.name}: only {metric.only} lines, but nothing marks a cancellation"
                )
        if self.cancellation is not None and self.cancellation.column not in columns:
            raise ValueError(f"a cancellation is marked in {self.cancellation.column}, which is no column")
        return self

    # -- reading the model -------------------------------------------------------------------------

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise InvalidInputError(f"The dataset has no column {name!r}.")

    def metric(self, name: str) -> Metric:
        for metric in [*self.metrics, *self.counts]:
            if metric.name == name:
                return metric
        derived = self._one_over_another(name)
        if derived is not None:
            return derived
        raise InvalidInputError(f"The dataset has no metric {name!r}.")

    def _one_over_another(self, name: str) -> Metric | None:
        """A ratio of two of the model's plain metrics that the model need not declare, named by
        :func:`ratio_name`: "marketing as % of sales", "profit per order". Any two figures an
        analyst divides make one, so they are read from the name, like :attr:`counts`."""
        for infix, percent in ((PERCENT_OF, True), (PER, False)):
            top_name, found, bottom_name = name.partition(infix)
            if not found:
                continue
            plain = {m.name: m for m in [*self.metrics, *self.counts] if m.kind in ADDED_UP}
            top, bottom = plain.get(top_name), plain.get(bottom_name)
            if top is None or bottom is None or top is bottom:
                return None
            money_each = top.unit == "money" and bottom.unit == "count"  # "profit per order"
            return Metric(
                name=name,
                kind=Kind.ratio,
                numerator=top.name,
                denominator=bottom.name,
                unit="money" if money_each and not percent else "ratio",
                label=(
                    f"{top.title} as % of {bottom.title.lower()}"
                    if percent
                    else f"{top.title} per {_one_of(bottom.title)}"
                ),
            )
        return None

    @cached_property
    def counts(self) -> list[Metric]:
        """How many different values each dimension has, as metrics the model need not declare: "how
        many states do we sell in, and how many retailers?", "which retailer sells in the most
        states?". A column the model already counts (customers, products) keeps its own metric."""
        declared = {m.over for m in self.metrics if m.kind is Kind.count_distinct}
        return [
            Metric(
                name=f"{COUNT_PREFIX}{column.name}",
                kind=Kind.count_distinct,
                unit="count",
                label=f"Number of {plural(column.title.lower())}",
                over=column.name,
            )
            for column in self.with_role(Role.dimension)
            if column.name not in declared and len(COUNT_PREFIX + column.name) <= _NAME_LIMIT
        ]

    def read_by(self, metrics: list[str]) -> set[str]:
        """The columns the metrics read, through the metrics they are made of: what a reading's chips
        name and what decides whether an order's own amount is in a question."""
        read: set[str] = set()
        pending = list(metrics)
        while pending:
            metric = self.metric(pending.pop())
            read |= {name for name in (metric.over, metric.times, metric.less, metric.against) if name}
            pending += metric.parts
        return read

    def with_role(self, *roles: Role) -> list[Column]:
        return [c for c in self.columns if c.role in roles]

    def key_of(self, entity: Entity) -> Column | None:
        return next((c for c in self.columns if c.role is Role.key and c.entity is entity), None)

    def label_of(self, entity: Entity) -> Column | None:
        return next((c for c in self.columns if c.role is Role.label and c.entity is entity), None)

    @property
    def time(self) -> Column | None:
        """The default time column: the one confirmed to be the order date, else the first."""
        times = self.dated
        return next((c for c in times if c.mapped == "time"), times[0] if times else None)

    @property
    def dated(self) -> list[Column]:
        """The time columns that hold days (a time of day alone is grouped by the hour only)."""
        return [c for c in self.with_role(Role.time) if c.day_time != "time"]

    @property
    def clocked(self) -> list[Column]:
        """The time columns that hold times of day: what an hour is read from."""
        return [c for c in self.with_role(Role.time) if c.day_time != "date"]

    @property
    def groupable(self) -> list[Column]:
        """Columns a question may group or filter by: dimensions, keys and labels."""
        return self.with_role(Role.dimension, Role.key, Role.label)


COUNT_PREFIX = "number_of_"
"""The name of a dimension's count (:attr:`SemanticModel.counts`): ``number_of_state``."""
ADDED_UP = frozenset((Kind.sum, Kind.difference, Kind.rows, Kind.count_distinct))
"""The metrics one may divide by another: totals and counts (an average discount as a % of sales
is no figure anyone means)."""
PERCENT_OF = "__percent_of__"
PER = "__per__"
"""How a ratio of two metrics the model does not declare is named (:func:`ratio_name`)."""


def ratio_name(top: str, bottom: str, percent: bool) -> str:
    """The name of ``top`` divided by ``bottom``: as a percentage ("marketing as % of sales") or
    as an amount for each ("profit per order"). :meth:`SemanticModel.metric` reads it back."""
    return f"{top}{PERCENT_OF if percent else PER}{bottom}"


def singular(phrase: str) -> str:
    """A plural's singular, as names are written ("sub categories" -> "sub category", "branches"
    -> "branch"): :func:`plural` the other way."""
    if phrase.endswith("ies") and len(phrase) > 4:
        return phrase[:-3] + "y"
    if re.search(r"(?:ch|sh|ss|x|us)es$", phrase):  # "statuses": status
        return phrase[:-2]
    return phrase.removesuffix("s")


def _one_of(title: str) -> str:
    """What a count counts, one of it: "Orders" -> "order", "Number of states" -> "state"."""
    return singular(title.lower().removeprefix("number of "))


def plural(noun: str) -> str:
    """A noun in English's regular plural: "city" -> "cities", "sales method" -> "sales methods"."""
    if noun.endswith("y") and noun[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return f"{noun[:-1]}ies"
    return f"{noun}es" if noun.endswith(("s", "x", "ch", "sh")) else f"{noun}s"


def _check_metric(metric: Metric, columns: dict[str, Column], metrics: dict[str, Metric]) -> None:
    where = f"metric {metric.name}"
    if metric.kind in (Kind.ratio, Kind.difference):
        if metric.numerator not in metrics or metric.denominator not in metrics:
            verb = "divides" if metric.kind is Kind.ratio else "takes one from the other of"
            raise ValueError(f"{where}: a {metric.kind} {verb} two metrics of the model")
        if metrics[metric.numerator].kind is Kind.ratio or metrics[metric.denominator].kind is Kind.ratio:
            raise ValueError(f"{where}: a {metric.kind} is of plain metrics, not ratios")
        if metric.kind is Kind.difference and Kind.difference in (
            metrics[metric.numerator].kind,
            metrics[metric.denominator].kind,
        ):
            raise ValueError(f"{where}: a difference is of plain metrics, not differences")
        return
    if metric.kind is Kind.rows:
        return
    if metric.kind is Kind.days_between:
        dated = {name for name, c in columns.items() if c.role is Role.time and c.day_time != "time"}
        if {metric.over, metric.since} - dated:
            raise ValueError(f"{where}: days between two time columns of the model")
        return
    if metric.over not in columns:
        raise ValueError(f"{where}: 'over' must name a column of the model")
    over = columns[metric.over]
    numeric = over.role is Role.measure
    if metric.kind is Kind.count_distinct and over.role not in (Role.key, Role.label, Role.dimension):
        raise ValueError(f"{where}: counts distinct values of a key, label or dimension")
    if metric.kind in (Kind.sum, Kind.average, Kind.median, Kind.deviation) and not numeric:
        raise ValueError(f"{where}: a {metric.kind} is of a measure")
    if (metric.kind is Kind.correlation) != (metric.against is not None) or (
        metric.against is not None
        and (not numeric or metric.against not in columns or columns[metric.against].role is not Role.measure)
    ):
        raise ValueError(f"{where}: a correlation holds a measure against another measure")
    if metric.kind in (Kind.minimum, Kind.maximum) and not (numeric or over.role is Role.time):
        raise ValueError(f"{where}: a {metric.kind} is of a measure or a time column")
    if metric.times is not None and (
        metric.kind is not Kind.sum
        or metric.times not in columns
        or columns[metric.times].role is not Role.measure
    ):
        raise ValueError(f"{where}: 'times' multiplies a sum by a second measure")
    if metric.less is not None and (
        metric.kind is not Kind.sum or metric.less not in columns or columns[metric.less].unit != "percent"
    ):
        raise ValueError(f"{where}: 'less' takes a percent measure (a discount) off a sum's rows")


def _repeated(values: list[str]) -> str:
    seen: set[str] = set()
    return ", ".join(sorted({v for v in values if v in seen or seen.add(v)}))  # type: ignore[func-returns-value]


_WORD = re.compile(r"[^a-z0-9]+")


def column_name(header: str) -> str:
    """A model name for a file's header: ``"Sub-Category"`` -> ``sub_category``."""
    name = _WORD.sub("_", header.strip().lower()).strip("_")
    if not name or not name[0].isalpha():
        name = f"c_{name}" if name else "column"
    return name[:64]
