"""Run a :class:`Query` on the retail SQLite file: one deterministic computation per reading.

Every name in the query is matched against the data first (countries as stored, "UK" for "United
Kingdom"; products by stock code or by the words of their description; segments by name), so an
entity that is not in the data is reported as such instead of being computed as zero. The figures
come back as numbers; ``render`` turns them into the answer's words.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from agent_orchestrator.retail import queries
from agent_orchestrator.retail.analysis.query import (
    Dimension,
    Measure,
    Period,
    PeriodError,
    Query,
    day_period,
    month_period,
    parse_period,
    quarter_period,
    year_period,
)
from agent_orchestrator.retail.countries import match_country
from agent_orchestrator.retail.money import cents
from agent_orchestrator.retail.segments import SEGMENT_ORDER
from agent_orchestrator.retail.stats import load_as_of

DEFAULT_RANKING = 5
BY_ORDER_COUNT = frozenset({Measure.repeat_customers, Measure.repeat_rate, Measure.one_time_customers})
"""Measures that count each customer's orders in scope: a second pass, made only when asked for."""
PART_OF = {
    Measure.new_customers: Measure.customers,
    Measure.repeat_customers: Measure.customers,
    Measure.one_time_customers: Measure.customers,
    Measure.cancellations: Measure.orders,
    Measure.cancelled_revenue: Measure.revenue,
}
"""What a count is a share of when nothing else is named: first-time and repeat customers are
some of the customers, cancelled orders set against the orders (of the same period)."""
_MONTH = "CAST(substr(t.invoiced_at, 6, 2) AS INTEGER)"
TIME_KEYS = {
    Dimension.year: "substr(t.invoiced_at, 1, 4)",
    Dimension.quarter: f"substr(t.invoiced_at, 1, 4) || '-Q' || (({_MONTH} + 2) / 3)",
    Dimension.month: "substr(t.invoiced_at, 1, 7)",
    Dimension.day: "substr(t.invoiced_at, 1, 10)",
    Dimension.weekday: "CAST((CAST(strftime('%w', t.invoiced_at) AS INTEGER) + 6) % 7 AS TEXT)",
}
"""The SQL that keys each grouping by time: keys that sort in time order (a weekday is 0 for Monday
to 6 for Sunday)."""
TIME_DIMENSIONS = frozenset({Dimension.year, Dimension.quarter, Dimension.month, Dimension.day})
"""Groupings that are steps in time: a series in time order, each step against the one before it."""
ORDERED_DIMENSIONS = TIME_DIMENSIONS | {Dimension.weekday}
"""Groupings listed in their own order (January to December, Monday to Sunday) unless ranked."""
WHOLE_UNITS: dict[Dimension, Callable[[date], Period]] = {
    Dimension.year: lambda day: year_period(day.year),
    Dimension.quarter: lambda day: quarter_period(day.year, (day.month - 1) // 3 + 1),
    Dimension.month: lambda day: month_period(day.year, day.month),
}
"""The groupings whose groups the data can hold in part (its first and last month, quarter or
year), and the period of each that contains a day."""


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


class CannotAnswer(Exception):
    """The query names something the data does not hold (a country, a product), or a period it
    cannot place; ``str()`` says what, in the analyst's terms, and ``unmatched`` which argument (a
    follow-up does not carry a name the data lacks into its next question)."""

    def __init__(self, reason: str, *, unmatched: str | None = None) -> None:
        super().__init__(reason)
        self.unmatched = unmatched


QUOTIENTS: dict[Measure, tuple[str, str, int]] = {
    Measure.avg_order_value: ("revenue", "orders", 2),
    Measure.revenue_per_customer: ("revenue", "customers", 2),
    Measure.orders_per_customer: ("orders", "customers", 2),
    Measure.units_per_order: ("units", "orders", 2),
    Measure.cancellation_rate: ("cancellations", "orders", 4),
    Measure.repeat_rate: ("repeat_customers", "customers", 4),
}
"""The measures that are one count divided by another (a rate keeps four decimals: a fraction)."""


@dataclass(frozen=True)
class Figures:
    revenue: float
    orders: int
    customers: int
    units: int
    products: int = 0
    countries: int = 0
    cancellations: int = 0
    first: str | None = None
    last: str | None = None
    """The first and the last day with a purchase (ISO), for the date measures."""
    cancelled_revenue: float = 0.0
    """What the cancelled and returned lines took off, a positive amount: ``revenue`` is net of it."""
    new_customers: int = 0
    """Counted only when asked for: it joins every line to its customer's first purchase."""
    repeat_customers: int = 0
    """Counted only when asked for: a second pass over the scope's orders per customer."""
    one_time_customers: int = 0
    """Customers with exactly one order in scope, counted in the same pass as the repeat ones."""

    def get(self, measure: Measure) -> float:
        """The measure as a number; a day as its ordinal, so that days rank like figures."""
        if measure in (Measure.first_purchase, Measure.last_purchase):
            day = self.first if measure is Measure.first_purchase else self.last
            return float(date.fromisoformat(day).toordinal()) if day else 0.0
        if measure in QUOTIENTS:
            part, whole, digits = QUOTIENTS[measure]
            divisor = getattr(self, whole)
            return round(getattr(self, part) / divisor, digits) if divisor else 0.0
        if measure is Measure.overview:
            return self.revenue
        if measure is Measure.cancelled_revenue:
            return cents(self.cancelled_revenue)
        return float(getattr(self, measure.value))


REST = "*"
"""The key of the row of everything not named ("the UK vs the rest of the world")."""
EMPTY = Figures(0.0, 0, 0, 0)
"""A group with no sales: a month of the period in which nothing was sold."""


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    figures: Figures
    previous: Figures | None = None
    previous_label: str | None = None
    """What ``previous`` is of, when each row has its own: "which month fell most?" compares every
    month with the month before it."""


@dataclass
class Scope:
    """The query's filters as the data names them."""

    countries: list[str] = field(default_factory=list)
    exclude_countries: list[str] = field(default_factory=list)
    segments: list[str] = field(default_factory=list)
    exclude_segments: list[str] = field(default_factory=list)
    product_codes: list[str] | None = None
    product_labels: list[str] = field(default_factory=list)
    """How each product name asked for reads in the data ("POSTAGE (POST)", "products matching
    'lantern' (12 products)"), in the query's order."""
    exclude_product_codes: list[str] = field(default_factory=list)
    exclude_product_labels: list[str] = field(default_factory=list)
    customer_id: int | None = None
    customer_facts: str | None = None
    """The customer's country and segment ("France, High Value segment"): who "customer 7" is."""
    exclude_customer_ids: list[int] = field(default_factory=list)
    without_cancellations: bool = False
    """Cancelled and returned lines left out: gross sales, not net."""
    without_top: list[tuple[str, str]] = field(default_factory=list)
    """The biggest left out, when ``exclude_top`` asked for them: each one's key and how it reads
    (``("14646", "customer 14646")``); they are in the exclusions too."""
    without_period: Period | None = None
    """Days left out ("excluding December"), of the period asked and of any compared with."""


@dataclass
class Outcome:
    query: Query
    scope: Scope
    period: Period | None
    compared: Period | None
    total: Figures
    previous: Figures | None
    rows: list[Row]
    groups: int
    """How many groups there were before the ranking was cut to ``limit``."""
    whole: Figures | None
    """The same period without the included entities: the denominator of a share."""
    data_first: date | None
    data_last: date | None
    note: str | None = None
    """A sentence the answer ends with: why a comparison asked for is missing."""
    whole_period: Period | None = None
    """The larger period a share is of, when the query names one (``share_of``)."""
    whole_previous: Figures | None = None
    """The compared period's whole, when a share is compared ("Ireland's share in July vs
    December"): each period's share is of its own total."""


def run(conn: sqlite3.Connection, query: Query) -> Outcome:
    """Resolve the query's names against the data and compute it (raises :class:`CannotAnswer`)."""
    if query.versus_rest:
        if not query.countries or query.group_by not in (None, Dimension.country):
            raise CannotAnswer("'the rest' is of the countries named, side by side with them")
        query = query.model_copy(update={"group_by": Dimension.country})
    data_first, data_last = _data_range(conn)
    if data_last is None:
        raise CannotAnswer("there are no sales in the data yet")
    by_country = query.group_by is Dimension.country or (
        query.exclude_top and query.exclude_top_of == "country"
    )
    if (by_country or query.countries or query.exclude_countries) and not queries.records_countries(conn):
        raise CannotAnswer(queries.NO_COUNTRIES)
    period = _period(query, data_last)
    if period is not None and (period.last < data_first or period.first > data_last):  # type: ignore[operator]
        raise CannotAnswer(
            f"there are no sales in {period.label}: the data covers {_day(data_first)} to {_day(data_last)}"
        )
    scope = _scope(conn, query)
    if query.exclude_period is not None:
        scope.without_period = _period(query.model_copy(update={"period": query.exclude_period}), data_last)
    if query.exclude_top is not None:
        scope = _without_top(conn, query, scope, period)
    compared = None
    note = None
    if query.compare is not None and period is not None and period.first == date.min:
        note = (
            f"{period.label.capitalize()} starts with the data: there is no earlier period to compare with."
        )
    elif query.compare_with is not None and period is not None:
        compared = _period(query.model_copy(update={"period": query.compare_with}), data_last)
    elif stepwise(query):
        pass  # each row against the one before it (``_changes``), not the period against another
    elif query.compare == "previous_period" and period is not None:
        compared = period.before()
    elif query.compare == "year_before" and period is not None:
        compared = period.year_before()
    if compared is not None and (compared.last < data_first or compared.first > data_last):  # type: ignore[operator]
        note = (  # the figure asked for still stands; only the comparison has nothing to stand on
            f"There are no sales in {compared.label} to compare with: the data covers "
            f"{_day(data_first)} to {_day(data_last)}."
        )
        compared = None
    if compared is not None and period is not None and note is None:
        note = _partly_covered([period, compared], data_first, data_last)  # type: ignore[arg-type]
    measure = query.measure
    total = _figures(conn, scope, period, measure)
    previous = _figures(conn, scope, compared, measure) if compared is not None else None
    whole = whole_period = None
    if query.share_of is not None:  # "what % of 2011's revenue came in October": of 2011, same filters
        whole_period = _period(query.model_copy(update={"period": query.share_of}), data_last)
        whole = _figures(conn, scope, whole_period, measure)
    elif query.share:
        kept = whole_scope(scope, query.group_by, query.share_within)
        if measure is Measure.customers and (scope.segments or query.group_by is Dimension.segment):
            # the segments classify the customers who bought: a segment's share is of them, so the
            # shares add up to 100 % (a customer whose only line is a cancellation is in none)
            kept = replace(kept, without_cancellations=True)
        everything = replace(scope, without_cancellations=False) == Scope()
        alone = period is not None and query.group_by is None and measure not in PART_OF
        if everything and alone and data_first is not None:
            # "what share of customers bought in the last 3 months?": of all the customers there are
            whole_period = Period(data_first, data_last, "all-time", "range")
            whole = _figures(conn, kept, None, measure)
        else:
            whole = _figures(conn, kept, period, measure)
    whole_previous = None
    if whole is not None and compared is not None and query.share_of is None and whole_period is None:
        whole_previous = _figures(
            conn, whole_scope(scope, query.group_by, query.share_within), compared, measure
        )
    rows: list[Row] = []
    groups = 0
    if query.group_by is not None:
        ends = query.group_by in WHOLE_UNITS and data_first is not None
        if query.order == "lowest" and ends and data_first is not None:
            cut = [  # only those inside the period asked about
                k
                for k in _partial(query.group_by, data_first, data_last)
                if period is None or period.first <= _start(k) <= period.last
            ]
            if cut:  # "the quietest month": not the one the data holds only a few days of
                labels = ", ".join(_labels(conn, query.group_by, cut).get(k, k) for k in cut)
                note = f"Left out of the lowest: {labels}, which the data covers only in part."
        else:
            cut = []
        span = None
        if data_first is not None and data_last is not None:
            span = (
                (data_first, data_last)
                if period is None
                else (max(period.first, data_first), min(period.last, data_last))
            )
        rows, groups = _grouped(conn, query, scope, period, compared, leave_out=cut, span=span)
    return Outcome(
        query,
        scope,
        period,
        compared,
        total,
        previous,
        rows,
        groups,
        whole,
        data_first,
        data_last,
        note,
        whole_period,
        whole_previous,
    )


def _partly_covered(periods: list[Period], first: date, last: date) -> str | None:
    """A comparison of periods the data holds only some days of ("2011 vs 2010" where 2010 is one
    December): said, so that the change is not taken for a like-for-like one."""
    parts = [
        f"{p.label} only from {_day(max(p.first, first))} to {_day(min(p.last, last))}"
        for p in periods
        if p.first < first or p.last > last
    ]
    return f"The data holds {' and '.join(parts)}." if parts else None


def _day(value: date | None) -> str:
    return "" if value is None else f"{value.day} {value.strftime('%B')} {value.year}"


def _data_range(conn: sqlite3.Connection) -> tuple[date | None, date | None]:
    first, last = conn.execute("SELECT MIN(invoiced_at), MAX(invoiced_at) FROM transactions").fetchone()
    if first is None:
        return None, None
    return date.fromisoformat(first[:10]), load_as_of(conn) or date.fromisoformat(last[:10])


_WITHIN_KEEPS = {
    "countries": ("countries",),
    "segments": ("segments",),
    "products": ("product_codes", "product_labels"),
    "customer_id": ("customer_id", "customer_facts"),
}
"""The scope's fields that a share's whole keeps, by the ``share_within`` that names it."""
_PARTS: dict[str, Any] = {
    "countries": [],
    "segments": [],
    "product_codes": None,
    "product_labels": [],
    "customer_id": None,
    "customer_facts": None,
}
"""The scope's fields that name what a figure is of, unset."""


def whole_scope(scope: Scope, group_by: Dimension | None, within: str | None = None) -> Scope:
    """What a share is of: the scope less the filter that makes the part. Named (``within``: "of
    the Regular segment's revenue"), the whole keeps that filter and the exclusions, the part is the
    rest. Rows by a dimension are
    parts of the rest of the scope ("share of revenue by country in 2025"); a single figure's part is
    its customer, else its segments ("share of Ireland's revenue from High Value customers" is of
    Ireland), else its countries ("Germany's share outside the UK" is of the rest), else what it
    leaves out ("the share of X's units that went outside the UK" is of X), else its product."""
    if within is not None and group_by is None:
        kept = _WITHIN_KEEPS[within]
        return replace(scope, **{k: v for k, v in _PARTS.items() if k not in kept})
    product: dict[str, Any] = {"product_codes": None, "product_labels": []}
    if group_by is not None:
        drops: dict[Dimension, dict[str, Any]] = {
            Dimension.country: {"countries": []},
            Dimension.segment: {"segments": []},
            Dimension.product: product,
            Dimension.customer: {"customer_id": None, "customer_facts": None},
        }
        return replace(scope, **drops.get(group_by, {}))
    excluded: dict[str, Any] = {
        "exclude_countries": [],
        "exclude_segments": [],
        "exclude_product_codes": [],
        "exclude_product_labels": [],
        "exclude_customer_ids": [],
    }
    if scope.customer_id is not None:
        return replace(scope, customer_id=None, customer_facts=None)
    if scope.segments:
        return replace(scope, segments=[])
    if scope.countries:
        return replace(scope, countries=[])
    left_out = (
        scope.exclude_countries
        or scope.exclude_segments
        or scope.exclude_product_codes
        or scope.exclude_customer_ids
    )
    if scope.product_codes is not None:
        return replace(scope, **(excluded if left_out else product))
    if scope.exclude_customer_ids:  # "everyone but customer 7" is a share of everyone
        return replace(scope, exclude_customer_ids=[])
    return Scope(without_cancellations=scope.without_cancellations)  # gross of gross


def stepwise(query: Query) -> bool:
    """ "Which month had the biggest drop?": a ranking of a series by each step's change, every month
    against the month before it (or the same month a year earlier), over the whole period asked."""
    return query.rank_by is not None and query.group_by in TIME_DIMENSIONS


def _period(query: Query, as_of: date) -> Period | None:
    text = query.period or ("latest month" if query.compare and not stepwise(query) else None)
    if text is None:
        return None
    try:
        return parse_period(text, as_of)
    except PeriodError as exc:
        raise CannotAnswer(str(exc)) from exc


def _scope(conn: sqlite3.Connection, query: Query) -> Scope:
    known = queries.country_names(conn)

    def country(name: str) -> str:
        found = match_country(name, known)
        if found is None:
            unmatched = "exclude_countries" if name in query.exclude_countries else "countries"
            raise CannotAnswer(f"there is no country named {name!r} in the data", unmatched=unmatched)
        return found

    scope = Scope(
        countries=[country(c) for c in query.countries],
        exclude_countries=[country(c) for c in query.exclude_countries],
        segments=[_segment(s) for s in query.segments],
        exclude_segments=[_segment(s) for s in query.exclude_segments],
        customer_id=query.customer_id,
        exclude_customer_ids=list(dict.fromkeys(query.exclude_customer_ids)),
        without_cancellations=query.exclude_cancellations,
    )
    if query.exclude_cancellations and query.measure is Measure.cancelled_revenue and query.share:
        scope.without_cancellations = False  # "what % of gross sales was lost to cancellations?": of gross
    elif query.exclude_cancellations and query.measure in (Measure.cancellations, Measure.cancelled_revenue):
        raise CannotAnswer("cancellations left out leaves no cancelled orders to count")
    for left_out in query.exclude_customer_ids:
        if not queries.customer_exists(conn, left_out):
            raise CannotAnswer(
                f"there is no customer with id {left_out} in the data", unmatched="exclude_customer_ids"
            )
    if query.customer_id is not None:
        if not queries.customer_exists(conn, query.customer_id):
            raise CannotAnswer(
                f"there is no customer with id {query.customer_id} in the data", unmatched="customer_id"
            )
        facts = conn.execute(
            "SELECT country, segment FROM customer_stats WHERE customer_id = ?", (query.customer_id,)
        ).fetchone()
        if facts is not None:
            scope.customer_facts = f"{facts[0]}, {facts[1]} segment"
    if names := [name.strip() for name in query.products if name.strip()]:
        scope.product_codes, scope.product_labels = _all_products(conn, names, unmatched="products")
    if names := [name.strip() for name in query.exclude_products if name.strip()]:
        scope.exclude_product_codes, scope.exclude_product_labels = _all_products(
            conn, names, unmatched="exclude_products"
        )
    return scope


def _all_products(
    conn: sqlite3.Connection, names: list[str], *, unmatched: str
) -> tuple[list[str], list[str]]:
    """The products several names mean together, and how each name reads in the data; raises for
    the first name that matches nothing."""
    found = [_products(conn, name, unmatched=unmatched) for name in names]
    return list(dict.fromkeys(code for codes, _ in found for code in codes)), [label for _, label in found]


def _without_top(conn: sqlite3.Connection, query: Query, scope: Scope, period: Period | None) -> Scope:
    """The scope less the ``exclude_top`` biggest by revenue of their kind in it ("revenue without
    our biggest customer" leaves out the customer with the most revenue in the same period and
    filters), each of them named."""
    assert query.exclude_top is not None
    dimension = Dimension(query.exclude_top_of)
    groups = _grouped_figures(conn, dimension, scope, period, Measure.revenue)
    top = sorted(groups, key=lambda k: (-groups[k].revenue, k))[: query.exclude_top]
    labels = _labels(conn, dimension, top)  # a country is its own label
    named = [(k, labels.get(k, k)) for k in top]
    if dimension is Dimension.customer:
        return replace(
            scope, exclude_customer_ids=[*scope.exclude_customer_ids, *map(int, top)], without_top=named
        )
    if dimension is Dimension.country:
        return replace(scope, exclude_countries=[*scope.exclude_countries, *top], without_top=named)
    return replace(scope, exclude_product_codes=[*scope.exclude_product_codes, *top], without_top=named)


def _segment(name: str) -> str:
    wanted = re.sub(r"[^a-z]", "", name.lower())
    for segment in SEGMENT_ORDER:
        if re.sub(r"[^a-z]", "", segment.value.lower()) == wanted:
            return segment.value
    raise CannotAnswer(
        f"there is no segment named {name!r}; the segments are " + ", ".join(s.value for s in SEGMENT_ORDER),
        unmatched="segments",
    )


def _names(conn: sqlite3.Connection) -> str:
    """Every (stock code, description) pair to match names in: all the names a product was sold
    under where the file records them (``schema``: ``product_names``), else the current ones."""
    listed = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'product_names'")
    if listed.fetchone() is None:
        return "products"
    return (
        "(SELECT stock_code, description FROM products "
        "UNION SELECT stock_code, description FROM product_names)"
    )


def _products(conn: sqlite3.Connection, text: str, *, unmatched: str) -> tuple[list[str], str]:
    """The products a name or stock code means: the code itself, a description containing the
    text, or else every word of it (a plural as its singular). Raises when nothing matches."""
    rows = conn.execute(
        "SELECT stock_code, description FROM products WHERE stock_code = ? COLLATE NOCASE", [text]
    ).fetchall()
    names = _names(conn)
    if not rows:  # a name as it is written wins over the longer names containing it
        rows = conn.execute(
            f"SELECT stock_code, MIN(description) FROM {names} WHERE description = ? COLLATE NOCASE "
            "GROUP BY stock_code",
            [text],
        ).fetchall()
    if not rows:
        rows = conn.execute(
            f"SELECT stock_code, MIN(description) FROM {names} WHERE {_CONTAINS} GROUP BY stock_code",
            [_containing(_singular(text))],
        ).fetchall()
    if not rows:
        words = [_singular(w) for w in re.findall(r"[a-z0-9]+", text.lower())]
        if words:
            clause = " AND ".join(_CONTAINS for _ in words)
            rows = conn.execute(
                f"SELECT stock_code, MIN(description) FROM {names} WHERE {clause} GROUP BY stock_code",
                [_containing(w) for w in words],
            ).fetchall()
    if not rows:
        raise CannotAnswer(
            f"nothing in the data matches {text!r} (no product, stock code or country of that name)",
            unmatched=unmatched,
        )
    if len(rows) == 1:
        code, description = rows[0]
        return [code], f"{description} ({code})"
    return [code for code, _ in rows], f"products matching '{text}' ({len(rows)} products)"


def _singular(text: str) -> str:
    """A plural's last "s" off ("lanterns" finds every LANTERN, the LANTERNS too), not a word's
    own ("glass")."""
    return re.sub(r"(?<=[a-z]{3})(?<![s'])s$", "", text, flags=re.IGNORECASE)


def _like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


_CONTAINS = "(' ' || replace(description, '-', ' ') || ' ') LIKE ? ESCAPE '\\'"


def _containing(text: str) -> str:
    """The LIKE pattern for a description holding ``text`` from the start of a word ("lantern" in
    "LANTERNS", "light" in "T-LIGHT", but "right" not in "BRIGHT"), a word of three letters or fewer
    only as a whole word ("EU" is not in "BLEU")."""
    text = _like(text.replace("-", " "))
    return f"% {text} %" if len(text) <= 3 else f"% {text}%"


_COLUMNS = (
    "COALESCE(SUM(t.amount), 0), COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END), "
    "{customers}, COALESCE(SUM(t.quantity), 0), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.stock_code END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.country END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 1 THEN t.invoice END), "
    "substr(MIN(CASE WHEN t.is_cancellation = 0 THEN t.invoiced_at END), 1, 10), "
    "substr(MAX(CASE WHEN t.is_cancellation = 0 THEN t.invoiced_at END), 1, 10), "
    "-COALESCE(SUM(CASE WHEN t.is_cancellation = 1 THEN t.amount END), 0)"
)


def _where(scope: Scope, period: Period | None) -> tuple[str, list[object]]:
    clauses: list[str] = []
    params: list[object] = []

    def among(column: str, values: list[str], negate: bool = False) -> None:
        if values:
            marks = ", ".join("?" for _ in values)
            clauses.append(f"{column} {'NOT IN' if negate else 'IN'} ({marks})")
            params.extend(values)

    among("t.country", scope.countries)
    among("t.country", scope.exclude_countries, negate=True)
    # a segment left out leaves the customers of the other segments ("all segments except New"): the
    # segments classify the customers who bought, one whose only lines are cancellations is in none
    for values, negate in ((scope.segments, False), (scope.exclude_segments, True)):
        if values:
            marks = ", ".join("?" for _ in values)
            clauses.append(
                "t.customer_id IN (SELECT customer_id FROM customer_stats WHERE segment "
                f"{'NOT IN' if negate else 'IN'} ({marks}))"
            )
            params.extend(values)
    if scope.product_codes is not None:
        among("t.stock_code", scope.product_codes)
    among("t.stock_code", scope.exclude_product_codes, negate=True)
    if scope.customer_id is not None:
        clauses.append("t.customer_id = ?")
        params.append(scope.customer_id)
    if scope.exclude_customer_ids:
        clauses.append(f"t.customer_id NOT IN ({', '.join('?' for _ in scope.exclude_customer_ids)})")
        params.extend(scope.exclude_customer_ids)
    if scope.without_cancellations:
        clauses.append("t.is_cancellation = 0")
    if scope.without_period is not None:
        clauses.append("NOT (t.invoiced_at >= ? AND t.invoiced_at < ?)")
        params += [
            scope.without_period.first.isoformat(),
            (scope.without_period.last + timedelta(days=1)).isoformat(),
        ]
    if period is not None:
        clauses.append("t.invoiced_at >= ? AND t.invoiced_at < ?")
        params += [period.first.isoformat(), (period.last + timedelta(days=1)).isoformat()]
    return (f"WHERE {' AND '.join(clauses)}" if clauses else ""), params


_FIRST_PURCHASE = "LEFT JOIN customer_stats AS fp ON fp.customer_id = t.customer_id"
_NEW_CUSTOMERS = (
    ", COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 AND t.invoiced_at = fp.first_purchase "
    "THEN t.customer_id END)"
)
"""A new customer is one whose first purchase ever is a line in scope: first bought in the period
(and the country, the product … asked about)."""


def _columns(period: Period | None, measure: Measure) -> tuple[str, str]:
    """The figures' SQL and the join it needs. Customers of all time are everyone who has an invoice
    line, a cancelled one too ("how many customers do we have in Spain?"); in a period, those who
    bought in it."""
    bought = "CASE WHEN t.is_cancellation = 0 THEN t.customer_id END"
    columns = _COLUMNS.format(
        customers=f"COUNT(DISTINCT {bought if period is not None else 't.customer_id'})"
    )
    if measure is Measure.new_customers:
        return columns + _NEW_CUSTOMERS, _FIRST_PURCHASE
    return columns, ""


def _figures(conn: sqlite3.Connection, scope: Scope, period: Period | None, measure: Measure) -> Figures:
    clause, params = _where(scope, period)
    columns, join = _columns(period, measure)
    revenue, *counts = conn.execute(
        f"SELECT {columns} FROM transactions AS t {join} {clause}", params
    ).fetchone()
    figures = Figures(cents(revenue), *counts)
    if measure in BY_ORDER_COUNT:
        repeat, once = conn.execute(
            f"SELECT COALESCE(SUM(n > 1), 0), COALESCE(SUM(n = 1), 0) FROM (SELECT COUNT(DISTINCT "
            f"t.invoice) AS n FROM transactions AS t {_bought(clause)} GROUP BY t.customer_id)",
            params,
        ).fetchone()
        figures = replace(figures, repeat_customers=repeat, one_time_customers=once)
    return figures


def _bought(clause: str) -> str:
    """The scope's WHERE clause, narrowed to purchases (not cancellations) by known customers."""
    bought = "t.is_cancellation = 0 AND t.customer_id IS NOT NULL"
    return f"{clause} AND {bought}" if clause else f"WHERE {bought}"


def _group_key(dimension: Dimension) -> tuple[str, str]:
    """The SQL that keys a group, and the join it needs."""
    if dimension in TIME_KEYS:
        return TIME_KEYS[dimension], ""
    if dimension is Dimension.segment:
        return "cs.segment", "JOIN customer_stats AS cs ON cs.customer_id = t.customer_id"
    column = {
        Dimension.country: "t.country",
        Dimension.product: "t.stock_code",
        Dimension.customer: "t.customer_id",
    }
    return column[dimension], ""


def _grouped_figures(
    conn: sqlite3.Connection, dimension: Dimension, scope: Scope, period: Period | None, measure: Measure
) -> dict[str, Figures]:
    key, join = _group_key(dimension)
    clause, params = _where(scope, period)
    columns, first = _columns(period, measure)
    rows = conn.execute(
        f"SELECT {key}, {columns} FROM transactions AS t {join} {first} {clause} GROUP BY 1", params
    ).fetchall()
    groups = {str(key): Figures(cents(revenue), *counts) for key, revenue, *counts in rows}
    if measure in BY_ORDER_COUNT:
        counted = conn.execute(
            f"SELECT k, SUM(n > 1), SUM(n = 1) FROM (SELECT {key} AS k, COUNT(DISTINCT t.invoice) AS n "
            f"FROM transactions AS t {join} {_bought(clause)} GROUP BY 1, t.customer_id) GROUP BY k",
            params,
        ).fetchall()
        for k, repeat, once in counted:
            groups[str(k)] = replace(groups[str(k)], repeat_customers=repeat, one_time_customers=once)
    return groups


def _partial(dimension: Dimension, first: date, last: date) -> list[str]:
    """The months (quarters, years) at the data's two ends that it holds only some days of."""
    unit = WHOLE_UNITS[dimension]
    cut = []
    if unit(first).first != first:
        cut.append(_key(dimension, first))
    if unit(last).last != last:
        cut.append(_key(dimension, last))
    return cut


def _key(dimension: Dimension, day: date) -> str:
    """The group key of a day, as ``TIME_KEYS`` computes it in SQL."""
    if dimension is Dimension.quarter:
        return f"{day.year}-Q{(day.month - 1) // 3 + 1}"
    if dimension is Dimension.weekday:
        return str(day.weekday())
    return day.isoformat()[: {Dimension.year: 4, Dimension.month: 7}.get(dimension, 10)]


def _grouped(
    conn: sqlite3.Connection,
    query: Query,
    scope: Scope,
    period: Period | None,
    compared: Period | None,
    *,
    leave_out: list[str] = [],  # noqa: B006  # read only
    span: tuple[date, date] | None = None,
) -> tuple[list[Row], int]:
    assert query.group_by is not None
    dimension = query.group_by
    measure = query.measure
    groups = _grouped_figures(conn, dimension, scope, period, measure)
    if span is not None and dimension in WHOLE_UNITS and groups:
        left_out = scope.without_period  # "2011 excluding December": no December to list
        for k in _every(dimension, *span):  # "break that down by month": a month without sales too
            whole = WHOLE_UNITS[dimension](_start(k))
            if left_out is None or not (left_out.first <= whole.first and whole.last <= left_out.last):
                groups.setdefault(k, EMPTY)
    if dimension is Dimension.weekday and groups:  # "no sales on Saturdays" is an answer too
        for k in map(str, range(7)):
            groups.setdefault(k, EMPTY)
    if query.order == "lowest" and measure not in (Measure.cancellations, Measure.cancelled_revenue):
        # the lowest sellers sold something: a country whose only lines are returns placed no order
        groups = {k: f for k, f in groups.items() if f.orders > 0 and k not in leave_out}
    if query.among_top is not None:  # only the top N by the other measure are ranked
        by = query.among_by or Measure.revenue
        wide = groups if by is measure else _grouped_figures(conn, dimension, scope, period, by)
        top = sorted(wide, key=lambda k: (-wide[k].get(by), k))[: query.among_top]
        groups = {k: groups[k] for k in top if k in groups}
    if stepwise(query):
        return _changes(conn, query, scope, groups)
    previous = _grouped_figures(conn, dimension, scope, compared, measure) if compared is not None else {}
    if query.rank_by is not None and compared is None:
        raise CannotAnswer("a ranking by growth needs a period to compare with the one before")
    if query.rank_by is None and (
        dimension in ORDERED_DIMENSIONS
        and query.limit is None
        and query.rank is None
        and query.order == "highest"
    ):
        keys = sorted(groups)  # a series: in time order, every period shown
    else:
        if query.rank_by is not None:  # the change against the period before, most growth or decline first
            # in time's order: from the compared period to the asked one, or on to a later one
            later = compared is not None and period is not None and compared.first > period.first
            sign = -1.0 if later else 1.0
            if later:  # the names of the later period, as when it is the one asked about
                groups = {k: groups.get(k, EMPTY) for k in previous if query.among_top is None or k in groups}

            def value(k: str) -> float:
                return sign * (groups[k].get(measure) - previous.get(k, EMPTY).get(measure))

            descending = (query.rank_by == "growth") == (query.order == "highest")
        else:

            def value(k: str) -> float:
                return groups[k].get(measure)

            descending = query.order == "highest"
        keys = sorted(groups, key=lambda k: (-value(k) if descending else value(k), k))
        keys = _cut(query, keys)
    labels = _labels(conn, dimension, keys)
    rows = [
        Row(k, labels.get(k, k), groups[k], previous.get(k, EMPTY) if compared is not None else None)
        for k in keys
    ]
    if query.versus_rest and dimension is Dimension.country and scope.countries:
        rest = replace(scope, countries=[], exclude_countries=[*scope.exclude_countries, *scope.countries])
        before = _figures(conn, rest, compared, measure) if compared is not None else None
        rows.append(Row(REST, "all other countries", _figures(conn, rest, period, measure), before))
        return rows, len(groups) + 1
    return rows, len(groups)


def _start(key: str) -> date:
    """The first day of a month's (``YYYY-MM``), a quarter's (``YYYY-Qn``) or a year's key."""
    if key[5:6] == "Q":
        return date(int(key[:4]), 3 * int(key[6]) - 2, 1)
    return date(int(key[:4]), int(key[5:7] or 1), 1)


def _every(dimension: Dimension, first: date, last: date) -> list[str]:
    """Every month (quarter, year) from ``first`` to ``last``, as the series keys them."""
    if dimension is Dimension.year:
        return [str(year) for year in range(first.year, last.year + 1)]
    index, end = first.year * 12 + first.month - 1, last.year * 12 + last.month - 1
    if dimension is Dimension.quarter:
        return [f"{i // 4}-Q{i % 4 + 1}" for i in range(index // 3, end // 3 + 1)]
    return [f"{i // 12}-{i % 12 + 1:02d}" for i in range(index, end + 1)]


def _cut(query: Query, keys: list[str]) -> list[str]:
    return keys[query.rank - 1 : query.rank] if query.rank else keys[: query.limit or DEFAULT_RANKING]


def _changes(
    conn: sqlite3.Connection, query: Query, scope: Scope, groups: dict[str, Figures]
) -> tuple[list[Row], int]:
    """The series' steps ranked by their change: each month (day, year) against the one before it in
    the data, or against the same one a year earlier; the first of the data has none and is left out."""
    assert query.group_by is not None
    dimension, measure = query.group_by, query.measure
    history = _grouped_figures(conn, dimension, scope, None, measure)  # the steps before the period too
    if dimension is not Dimension.day:  # a month without sales is a step to nothing, and from it
        keys = sorted({*history, *groups})
        for k in _every(dimension, _start(keys[0]), _start(keys[-1])):
            history.setdefault(k, EMPTY)
    ordered = sorted(history)
    earlier: dict[str, str] = {}
    for k in groups:
        if query.compare == "year_before":
            back = str(int(k[:4]) - 1) + k[4:]
            if back in history:
                earlier[k] = back
        elif (at := ordered.index(k)) > 0:
            earlier[k] = ordered[at - 1]

    if not earlier:
        raise CannotAnswer(
            f"no {dimension.value} of that period has an earlier one in the data to compare with"
        )

    def change(k: str) -> float:
        return groups[k].get(measure) - history[earlier[k]].get(measure)

    descending = (query.rank_by == "growth") == (query.order == "highest")
    keys = _cut(query, sorted(earlier, key=lambda k: (-change(k) if descending else change(k), k)))
    labels = _labels(conn, dimension, [*keys, *(earlier[k] for k in keys)])
    rows = [
        Row(k, labels.get(k, k), groups[k], history[earlier[k]], labels.get(earlier[k], earlier[k]))
        for k in keys
    ]
    return rows, len(earlier)


def _labels(conn: sqlite3.Connection, dimension: Dimension, keys: list[str]) -> dict[str, str]:
    if dimension is Dimension.product and keys:
        marks = ", ".join("?" for _ in keys)
        found = conn.execute(
            f"SELECT stock_code, description FROM products WHERE stock_code IN ({marks})", keys
        )
        return {code: f"{description} ({code})" for code, description in found}
    if dimension is Dimension.customer:
        return {k: f"customer {k}" for k in keys}
    if dimension is Dimension.month:
        return {k: month_period(int(k[:4]), int(k[5:7])).label for k in keys}
    if dimension is Dimension.day:
        return {k: day_period(date.fromisoformat(k)).label for k in keys}
    if dimension is Dimension.quarter:
        return {k: quarter_period(int(k[:4]), int(k[6])).label for k in keys}
    if dimension is Dimension.weekday:
        return {k: WEEKDAYS[int(k)] for k in keys}
    return {}
