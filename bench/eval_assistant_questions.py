"""The question bank of ``bench/eval_assistant.py``: ground truth by our own SQL, and the chats.

Nothing here is typed-in truth. :class:`Oracle` reads the retail SQLite file with its own queries
(it never calls ``agent_orchestrator.retail.queries``) and re-derives every customer's segment from the
documented rules (At Risk: no purchase in the last 90 days; New: one order; High Value: a repeat buyer
whose net spend is above the 80th-percentile cut; Regular: the rest), so the eval is an oracle for the
app rather than a copy of it. :func:`build_chats` picks the parameters from the data with a seeded RNG
(a real At Risk customer in Germany, the real top customer, a month that exists, a product name that
does not) and writes each question with the checks its answer must pass.

The checks are plain data (:class:`Num`, :class:`Names`, ...); ``eval_assistant.py`` interprets them.
A turn's ``related`` entities are what a right answer may name besides its checks (the rest of a
ranking's head, a country's top products): anything else it names counts as a foreign entity.

:func:`build_analyst_chats` adds questions the way analysts type them (typos and odd word order,
exclusions, minima, single days, shares, comparisons with an earlier period, "tell me about X",
what the data cannot answer, rankings, short follow-up chats), computed with :meth:`Oracle.totals`
and :meth:`Oracle.grouped`. Every bank builds on the generated data and on an imported file such as
the UCI "Online Retail" one (13 months, countries such as EIRE and Unspecified): a question whose
truth the file cannot give (no two full years, no month a year earlier) is left out there.
"""

from __future__ import annotations

import calendar
import math
import random
import re
import sqlite3
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

SEGMENTS = ("High Value", "Regular", "At Risk", "New")
ACTIVE_DAYS = 90
CATEGORIES = (
    "lookup",
    "aggregate",
    "top_n",
    "filter",
    "trend",
    "prediction",
    "unknown",
    "follow_up",
    "memory",
    "memory_restart",
    # the analyst phrasings added for the 200-question eval
    "paraphrase",
    "exclusion",
    "minimum",
    "single_day",
    "share",
    "comparison",
    "tell_me_about",
    "unanswerable",
    "ranking",
)

# Vocabulary for spotting country names in answers (not ground truth: the data's own countries come
# from the customers table). Names that are also common words or first names are left out.
WORLD_COUNTRIES = (
    "Afghanistan", "Albania", "Algeria", "Andorra", "Angola", "Argentina", "Armenia", "Australia",
    "Austria", "Azerbaijan", "Bahrain", "Bangladesh", "Belarus", "Belgium", "Bolivia", "Bosnia",
    "Botswana", "Brazil", "Bulgaria", "Cambodia", "Cameroon", "Canada", "Chile", "China", "Colombia",
    "Costa Rica", "Croatia", "Cuba", "Cyprus", "Czech Republic", "Czechia", "Denmark",
    "Dominican Republic", "Ecuador", "Egypt", "Estonia", "Ethiopia", "Finland", "France", "Germany",
    "Ghana", "Greece", "Guatemala", "Honduras", "Hong Kong", "Hungary", "Iceland", "India", "Indonesia",
    "Iran", "Iraq", "Ireland", "Israel", "Italy", "Japan", "Kazakhstan", "Kenya", "Kuwait", "Latvia",
    "Lebanon", "Libya", "Liechtenstein", "Lithuania", "Luxembourg", "Malaysia", "Malta", "Mexico",
    "Moldova", "Monaco", "Mongolia", "Montenegro", "Morocco", "Mozambique", "Nepal", "Netherlands",
    "New Zealand", "Nigeria", "North Macedonia", "Norway", "Oman", "Pakistan", "Panama", "Paraguay",
    "Peru", "Philippines", "Poland", "Portugal", "Qatar", "Romania", "Russia", "Saudi Arabia", "Senegal",
    "Serbia", "Singapore", "Slovakia", "Slovenia", "South Africa", "South Korea", "Spain", "Sri Lanka",
    "Sweden", "Switzerland", "Taiwan", "Tanzania", "Thailand", "Tunisia", "Turkey", "Uganda", "Ukraine",
    "United Arab Emirates", "United Kingdom", "United States", "Uruguay", "Uzbekistan", "Venezuela",
    "Vietnam", "Zambia", "Zimbabwe",
)  # fmt: skip
UNKNOWN_COUNTRY_CHOICES = ("Argentina", "Mexico", "Iceland", "South Africa", "Thailand", "New Zealand")
DATA_SPELLINGS = {"South Africa": "RSA", "Ireland": "EIRE", "United States": "USA"}
"""How the Online Retail file spells some countries: South Africa is in it, as "RSA"."""


def _not_in_data(country: str, countries: dict[str, int]) -> bool:
    return country not in countries and DATA_SPELLINGS.get(country) not in countries


UNKNOWN_CUSTOMER_ID = 99_999_999


# --------------------------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class Num:
    """A figure that must appear: any one of ``values`` (e.g. net or gross revenue), matched with the
    precision the answer shows (see ``eval_assistant``). ``percent``: a share 0-1 shown as % or 0.xx."""

    label: str
    values: tuple[float, ...]
    percent: bool = False
    unit: str = ""  # money, units, orders, customers or days; "" = read from the label (unit_of)


@dataclass(frozen=True)
class Nums:
    """At least ``need`` of these figures must appear; each figure is any one of its values."""

    label: str
    figures: tuple[tuple[float, ...], ...]
    need: int
    unit: str = ""  # as Num's; "mixed" for figures of several kinds


@dataclass(frozen=True)
class Names:
    """At least ``need`` of these entities must be named. ``kind`` says how each is matched:
    customer (id, 20345 or 20,345), country (with aliases such as UK), product (case-insensitive
    name), segment, month (``YYYY-MM``: 2025-11, November 2025, Nov), date (``YYYY-MM-DD`` in the
    usual spellings) or text (a regular expression)."""

    label: str
    kind: str
    items: tuple[str, ...]
    need: int = 1


@dataclass(frozen=True)
class AnyOf:
    """Passes when any one of the alternatives passes (e.g. list the ids OR give the count)."""

    label: str
    options: tuple[Check, ...]


@dataclass(frozen=True)
class OnlySegments:
    """No segment other than ``allowed`` may be named (a lookup that hedges between segments fails)."""

    allowed: tuple[str, ...]


@dataclass(frozen=True)
class IdsIn:
    """Customer ids named must all belong to ``valid`` (real customers outside it are wrong answers),
    and at least ``need`` of them must be named."""

    label: str
    valid: frozenset[int]
    need: int


@dataclass(frozen=True)
class YesNo:
    """The answer's polarity: an answer that opens with the opposite of yes/no, or negates the asked
    segment when the truth is yes, fails."""

    yes: bool
    segment: str


@dataclass(frozen=True)
class NotFound:
    """Unknown entity (an id, a country or a product name): the answer must say it was not found,
    name no segment, give no figure the user did not write, and not be about another customer or
    country instead."""

    entity: str


@dataclass(frozen=True)
class Ranked:
    """These entities must all be named, in this order (their first mentions): "rank the segments"."""

    label: str
    kind: str
    items: tuple[str, ...]


@dataclass(frozen=True)
class CannotAnswer:
    """A question the data cannot answer (profit, stock, weather, staff): the answer must say it cannot
    answer it from this data, offer what it can answer instead (a measure the data has), and give no
    figure the user did not write in a sentence about ``topic`` (``pattern`` finds those sentences)."""

    topic: str
    pattern: str


Check = Num | Nums | Names | AnyOf | OnlySegments | IdsIn | YesNo | NotFound | Ranked | CannotAnswer

UNIT_KINDS = ("money", "units", "orders", "customers", "days")
_UNIT_WORDS = (  # the first that a label names, as a word, wins: "revenue per customer" is money
    ("money", r"\b(?:revenues?|spend|spent|spending|sales value|order value|budget|amount|price)\b"),
    ("units", r"\b(?:units?|quantity|items?)\b"),
    ("orders", r"\b(?:orders?|invoices?)\b"),
    # "customer 21918 figures" names one customer, not a count of them
    ("customers", r"\b(?:customers?|buyers?|shoppers?|clients?)\b(?!\s*#?\d)"),
    ("days", r"\b(?:days|recency)\b"),
)


def unit_of(check: Num | Nums) -> str:
    """What a figure counts: the check's own ``unit``, else read from its label ("revenue from France"
    is money, "orders of 20345" orders, "average order value" money); "" when the label does not say,
    for a share, and for a ``unit`` that is none of ``UNIT_KINDS`` ("mixed": figures of several kinds)."""
    if isinstance(check, Num) and check.percent:
        return ""
    if check.unit:
        return check.unit if check.unit in UNIT_KINDS else ""
    for kind, pattern in _UNIT_WORDS:
        if re.search(pattern, check.label, re.IGNORECASE):
            return kind
    return ""


@dataclass(frozen=True)
class Turn:
    """One user message. ``category`` None: a context turn (asked, timed, scanned for invented
    entities, not scored). ``needs_previous``: only makes sense after the chat's earlier turns.
    ``restart_before``: stop the app gracefully and start it again before sending this turn."""

    text: str
    category: str | None
    checks: tuple[Check, ...] = ()
    needs_previous: bool = False
    restart_before: bool = False
    # entities a right answer may name besides those its checks want, as (kind, name): the rest of the
    # ranking it asks about, a country's top products... (anything else an answer names is "foreign")
    related: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Chat:
    """``blocks``: for each turn the index of the first turn of its block, the turns a follow-up may
    refer back to (empty: one block, the whole chat; long chats put many chats' blocks in one)."""

    title: str
    turns: tuple[Turn, ...]
    blocks: tuple[int, ...] = ()

    def block_start(self, index: int) -> int:
        return self.blocks[index] if index < len(self.blocks) else 0

    def followed(self, index: int, turn: Turn | None = None) -> range:
        """The earlier turns that turn ``index`` (or ``turn`` asked there) follows up on: none unless
        it needs them."""
        turn = turn or self.turns[index]
        if not turn.needs_previous:
            return range(0)
        return range(self.block_start(index), min(index, len(self.turns)))


# --------------------------------------------------------------------------------------------- oracle


@dataclass
class CustomerFacts:
    customer_id: int
    country: str
    orders: int
    revenue: float
    last_day: date
    recency: int
    segment: str = ""


@dataclass
class MonthFacts:
    revenue: float = 0.0
    gross: float = 0.0
    orders: int = 0
    buyers: int = 0


@dataclass(frozen=True)
class Totals:
    """Sales in one scope: net revenue (cancellations included), gross revenue, orders (invoices),
    buyers, net units and units sold (without cancelled lines)."""

    net: float = 0.0
    gross: float = 0.0
    orders: int = 0
    buyers: int = 0
    units: int = 0
    units_sold: int = 0

    @property
    def money(self) -> tuple[float, float]:
        return (self.net, self.gross)

    @property
    def unit_counts(self) -> tuple[float, float]:
        return (float(self.units), float(self.units_sold))


_TOTALS_SQL = (
    "COALESCE(SUM(t.amount), 0), "
    "COALESCE(SUM(CASE WHEN t.is_cancellation = 0 THEN t.amount END), 0), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END), "
    "COALESCE(SUM(t.quantity), 0), "
    "COALESCE(SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity END), 0)"
)
_GROUP_BY = {
    "country": "t.country",
    "product": "p.description",
    "stock_code": "t.stock_code",
    "customer": "t.customer_id",
    "month": "substr(t.invoiced_at, 1, 7)",
    "day": "substr(t.invoiced_at, 1, 10)",
    "year": "substr(t.invoiced_at, 1, 4)",
}


@dataclass
class Oracle:
    """Facts of one retail SQLite file, computed with this module's own SQL."""

    customers: dict[int, CustomerFacts]
    all_customer_ids: frozenset[int]
    countries: dict[str, int]  # customers per country (customers table)
    country_revenue: dict[str, tuple[float, float]]  # net, gross
    country_orders: dict[str, int]
    products: frozenset[str]  # every description in the products table
    product_units: dict[str, tuple[str, int, int]]  # stock_code -> (description, units sold, net units)
    product_revenue: dict[str, tuple[str, float]]  # stock_code -> (description, net revenue)
    product_units_by_country: dict[str, dict[str, tuple[int, int]]]  # country -> name -> (sold, net)
    months: dict[str, MonthFacts]  # YYYY-MM -> facts
    country_month_orders: dict[tuple[str, str], int]
    first_day: date
    as_of: date
    lines: int
    orders: int
    revenue: float
    gross: float
    high_value_above: float
    stored_segment_mismatches: int = 0
    path: Path = field(default=Path())
    currency: str | None = None  # the ISO code the dataset declares for its amounts, if any
    _memo: dict[tuple[object, ...], dict[str, Totals]] = field(
        default_factory=dict, repr=False, compare=False
    )

    # -- derived --------------------------------------------------------------------------------

    def in_segment(self, segment: str, country: str | None = None) -> list[CustomerFacts]:
        """Customers of a segment (and country), biggest net revenue first."""
        found = [
            c
            for c in self.customers.values()
            if c.segment == segment and (country is None or c.country.lower() == country.lower())
        ]
        return sorted(found, key=lambda c: (-c.revenue, c.customer_id))

    def top_customers(self, country: str | None = None) -> list[CustomerFacts]:
        found = [c for c in self.customers.values() if country is None or c.country == country]
        return sorted(found, key=lambda c: (-c.revenue, c.customer_id))

    def segment_revenue(self, segment: str) -> float:
        return sum(c.revenue for c in self.in_segment(segment))

    def countries_by_revenue(self) -> list[str]:
        return sorted(self.country_revenue, key=lambda k: -self.country_revenue[k][0])

    def top_products_by_units(self, country: str | None = None, *, net: bool = False) -> list[str]:
        """Product names by units sold (``net``: minus cancelled units), most first."""
        if country is not None:
            units = self.product_units_by_country[country]
            return sorted(units, key=lambda name: (-units[name][net], name))
        ranked = sorted(self.product_units.values(), key=lambda p: (-(p[2] if net else p[1]), p[0]))
        return [p[0] for p in ranked]

    def units_of(self, product: str) -> tuple[int, int]:
        """(units sold, net units) of every stock code with this name."""
        rows = [p for p in self.product_units.values() if p[0] == product]
        return sum(p[1] for p in rows), sum(p[2] for p in rows)

    def top_products_by_revenue(self) -> list[str]:
        ranked = sorted(self.product_revenue.values(), key=lambda p: (-p[1], p[0]))
        return [name for name, _ in ranked]

    def month_keys(self) -> list[str]:
        return sorted(self.months)

    def last_months(self, n: int) -> list[str]:
        """The ``n`` calendar months ending with the as-of month, oldest first."""
        index = self.as_of.year * 12 + self.as_of.month - 1
        return [f"{i // 12:04d}-{i % 12 + 1:02d}" for i in range(index - n + 1, index + 1)]

    def revenue_between(self, start: date, end: date) -> tuple[float, float]:
        with _connect(self.path) as conn:
            row = conn.execute(
                "SELECT COALESCE(SUM(amount), 0), COALESCE(SUM(CASE WHEN is_cancellation = 0 "
                "THEN amount END), 0) FROM transactions WHERE substr(invoiced_at, 1, 10) BETWEEN ? AND ?",
                (start.isoformat(), end.isoformat()),
            ).fetchone()
        return float(row[0]), float(row[1])

    def country_orders_between(self, country: str, start: date, end: date) -> int:
        with _connect(self.path) as conn:
            row = conn.execute(
                "SELECT COUNT(DISTINCT invoice) FROM transactions WHERE is_cancellation = 0 "
                "AND country = ? AND substr(invoiced_at, 1, 10) BETWEEN ? AND ?",
                (country, start.isoformat(), end.isoformat()),
            ).fetchone()
        return int(row[0])

    def totals(
        self,
        start: date | None = None,
        end: date | None = None,
        *,
        country: str | None = None,
        exclude: str | None = None,
        product: str | None = None,
        customer: int | None = None,
    ) -> Totals:
        """Sales between ``start`` and ``end`` (days included), in ``country``, outside ``exclude``,
        of a product name or of one customer; every argument optional."""
        groups = self.grouped(
            "", start, end, country=country, exclude=exclude, product=product, customer=customer
        )
        return groups.get("", Totals())

    def grouped(
        self,
        by: str,
        start: date | None = None,
        end: date | None = None,
        *,
        country: str | None = None,
        exclude: str | None = None,
        product: str | None = None,
        customer: int | None = None,
    ) -> dict[str, Totals]:
        """:meth:`totals` per country, product (name), stock_code, customer, month, day or year
        (``by`` "" for one group)."""
        key = ("grouped", by, start, end, country, exclude, product, customer)
        if key in self._memo:
            return self._memo[key]
        where: list[str] = ["1 = 1"]
        params: list[object] = []
        if start is not None:
            where.append("t.invoiced_at >= ?")
            params.append(start.isoformat())
        if end is not None:
            where.append("t.invoiced_at < ?")
            params.append((end + timedelta(days=1)).isoformat())
        if country is not None:
            where.append("t.country = ?")
            params.append(country)
        if exclude is not None:
            where.append("t.country != ?")
            params.append(exclude)
        if product is not None:
            where.append("p.description = ?")
            params.append(product)
        if customer is not None:
            where.append("t.customer_id = ?")
            params.append(customer)
        group = _GROUP_BY[by] if by else "''"
        sql = (
            f"SELECT {group}, {_TOTALS_SQL} FROM transactions AS t "
            "JOIN products AS p ON p.stock_code = t.stock_code "
            f"WHERE {' AND '.join(where)} GROUP BY 1"
        )
        with _connect(self.path) as conn:
            out = {
                str(row[0]): Totals(round(float(row[1]), 2), round(float(row[2]), 2), *map(int, row[3:]))
                for row in conn.execute(sql, params)
            }
        self._memo[key] = out
        return out

    def sales_days(self) -> list[str]:
        """Days (YYYY-MM-DD) with at least one order, in order."""
        return sorted(d for d, t in self.grouped("day").items() if t.orders)

    def years(self, min_months: int = 1) -> list[str]:
        """Years with sales in at least ``min_months`` months."""
        counts = Counter(m[:4] for m in self.months)
        return sorted(y for y, n in counts.items() if n >= min_months)

    def classify(self, orders: int, recency: int, revenue: float) -> str:
        """The documented segment rules, applied to a hypothetical customer."""
        if recency > ACTIVE_DAYS:
            return "At Risk"
        if orders == 1:
            return "New"
        return "High Value" if revenue > self.high_value_above else "Regular"


class _connect:
    """A read-only connection as a context manager that closes it."""

    def __init__(self, path: Path) -> None:
        self.conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True)

    def __enter__(self) -> sqlite3.Connection:
        return self.conn

    def __exit__(self, *exc: object) -> None:
        self.conn.close()


_CUSTOMER_SQL = """
SELECT t.customer_id, c.country,
       COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END),
       SUM(t.amount),
       MAX(CASE WHEN t.is_cancellation = 0 THEN substr(t.invoiced_at, 1, 10) END)
FROM transactions AS t JOIN customers AS c ON c.customer_id = t.customer_id
GROUP BY t.customer_id
"""


def high_value_cut(revenues: list[float]) -> float:
    """The 80th-percentile cut of net spend: the value at position ceil(4n/5) of the sorted list."""
    ordered = sorted(revenues)
    return ordered[math.ceil(4 * len(ordered) / 5) - 1]


def load_oracle(path: Path) -> Oracle:
    with _connect(path) as conn:
        rows = [r for r in conn.execute(_CUSTOMER_SQL) if r[2] > 0]
        as_of = date.fromisoformat(
            conn.execute(
                "SELECT MAX(substr(invoiced_at, 1, 10)) FROM transactions WHERE is_cancellation = 0"
            ).fetchone()[0]
        )
        first_day = date.fromisoformat(
            conn.execute("SELECT MIN(substr(invoiced_at, 1, 10)) FROM transactions").fetchone()[0]
        )
        customers = {
            cid: CustomerFacts(
                cid,
                country,
                orders,
                round(rev, 2),
                date.fromisoformat(last),
                (as_of - date.fromisoformat(last)).days,
            )
            for cid, country, orders, rev, last in rows
        }
        cut = high_value_cut([c.revenue for c in customers.values()])
        oracle = Oracle(
            customers=customers,
            all_customer_ids=frozenset(r[0] for r in conn.execute("SELECT customer_id FROM customers")),
            countries=dict(
                conn.execute("SELECT country, COUNT(*) FROM customers GROUP BY country").fetchall()
            ),
            country_revenue={
                country: (net, gross)
                for country, net, gross in conn.execute(
                    "SELECT country, SUM(amount), SUM(CASE WHEN is_cancellation = 0 THEN amount ELSE 0 END) "
                    "FROM transactions GROUP BY country"
                )
            },
            country_orders=dict(
                conn.execute(
                    "SELECT country, COUNT(DISTINCT invoice) FROM transactions WHERE is_cancellation = 0 "
                    "GROUP BY country"
                ).fetchall()
            ),
            products=frozenset(r[0] for r in conn.execute("SELECT description FROM products")),
            product_units={
                code: (name, sold, net)
                for code, name, sold, net in conn.execute(
                    f"SELECT t.stock_code, p.description, {_UNITS} FROM transactions AS t "
                    "JOIN products AS p ON p.stock_code = t.stock_code GROUP BY t.stock_code"
                )
            },
            product_revenue={
                code: (name, rev)
                for code, name, rev in conn.execute(
                    "SELECT t.stock_code, p.description, SUM(t.amount) FROM transactions AS t "
                    "JOIN products AS p ON p.stock_code = t.stock_code GROUP BY t.stock_code"
                )
            },
            product_units_by_country=_units_by_country(conn),
            months=_months(conn),
            country_month_orders={
                (country, month): n
                for country, month, n in conn.execute(
                    "SELECT country, substr(invoiced_at, 1, 7), COUNT(DISTINCT invoice) FROM transactions "
                    "WHERE is_cancellation = 0 GROUP BY 1, 2"
                )
            },
            first_day=first_day,
            as_of=as_of,
            lines=conn.execute("SELECT COUNT(*) FROM transactions").fetchone()[0],
            orders=conn.execute(
                "SELECT COUNT(DISTINCT invoice) FROM transactions WHERE is_cancellation = 0"
            ).fetchone()[0],
            revenue=conn.execute("SELECT SUM(amount) FROM transactions").fetchone()[0],
            gross=conn.execute("SELECT SUM(amount) FROM transactions WHERE is_cancellation = 0").fetchone()[
                0
            ],
            high_value_above=cut,
            path=Path(path),
            currency=_declared_currency(conn),
        )
        for c in customers.values():
            c.segment = oracle.classify(c.orders, c.recency, c.revenue)
        stored = dict(conn.execute("SELECT customer_id, segment FROM customer_stats").fetchall())
    oracle.stored_segment_mismatches = sum(stored.get(c.customer_id) != c.segment for c in customers.values())
    return oracle


def _declared_currency(conn: sqlite3.Connection) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = 'currency'").fetchone()
    return (str(row[0]).strip().upper() or None) if row else None


_UNITS = "SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity ELSE 0 END), SUM(t.quantity)"


def _units_by_country(conn: sqlite3.Connection) -> dict[str, dict[str, tuple[int, int]]]:
    out: dict[str, dict[str, tuple[int, int]]] = defaultdict(dict)
    for country, name, sold, net in conn.execute(
        f"SELECT t.country, p.description, {_UNITS} FROM transactions AS t "
        "JOIN products AS p ON p.stock_code = t.stock_code GROUP BY 1, 2"
    ):
        out[country][name] = (sold, net)
    return out


def _months(conn: sqlite3.Connection) -> dict[str, MonthFacts]:
    out: dict[str, MonthFacts] = {}
    for month, net, gross, orders, buyers in conn.execute(
        "SELECT substr(invoiced_at, 1, 7), SUM(amount), SUM(CASE WHEN is_cancellation = 0 THEN amount "
        "ELSE 0 END), COUNT(DISTINCT CASE WHEN is_cancellation = 0 THEN invoice END), "
        "COUNT(DISTINCT CASE WHEN is_cancellation = 0 THEN customer_id END) FROM transactions GROUP BY 1"
    ):
        out[month] = MonthFacts(net, gross, orders, buyers)
    return out


# ----------------------------------------------------------------------------------------- helpers


def month_name(key: str) -> str:
    """'2025-11' -> 'November 2025'."""
    year, month = key.split("-")
    return f"{calendar.month_name[int(month)]} {year}"


def _year_before(key: str) -> str:
    year, month = key.split("-")
    return f"{int(year) - 1:04d}-{month}"


def _segment_check(segment: str, also_allowed: tuple[str, ...] = ()) -> tuple[Check, ...]:
    return (Names(f"segment {segment}", "segment", (segment,)), OnlySegments((segment, *also_allowed)))


def _customer_list(label: str, ranked: list[int], n: int) -> Names:
    """The first min(n, 3) of a ranking must all be named."""
    top = tuple(str(cid) for cid in ranked[:n][:3])
    return Names(label, "customer", top, need=len(top))


def _product_list(label: str, rankings: list[list[str]], n: int) -> Check:
    """The first min(n, 3) products of one ranking must be named (rankings that agree count once)."""
    options: list[Check] = []
    for top in dict.fromkeys(tuple(dict.fromkeys(ranked))[: min(n, 3)] for ranked in rankings):
        options.append(Names(label, "product", top, need=len(top)))
    return options[0] if len(options) == 1 else AnyOf(label, tuple(options))


def _related(kind: str, *rankings: list[str] | list[int], n: int = 5) -> tuple[tuple[str, str], ...]:
    """The head of each ranking (at least ``n``): what a ranking question's answer may also name."""
    return tuple(dict.fromkeys((kind, str(item)) for ranked in rankings for item in ranked[:n]))


def _set_or_count(label: str, members: list[CustomerFacts]) -> Check:
    """Name real members only (at least min(3, size)), or give how many there are."""
    return AnyOf(
        label,
        (
            IdsIn(label, frozenset(c.customer_id for c in members), min(3, len(members))),
            Num(f"number of {label}", (len(members),)),
        ),
    )


def _money(value: float) -> str:
    return f"£{value:,.0f}"


def _pick(rng: random.Random, items: list[CustomerFacts], fallback: list[CustomerFacts]) -> CustomerFacts:
    return rng.choice(items) if items else rng.choice(fallback)


def _fake_product(oracle: Oracle, rng: random.Random) -> str:
    """A name in the catalogue's own style that is not in it: a real name with another first word."""
    names = sorted(oracle.products)
    firsts = sorted({name.split()[0] for name in names})
    while True:
        rest = rng.choice(names).split(maxsplit=1)[1]
        candidate = f"{rng.choice(firsts)} {rest}"
        if candidate not in oracle.products:
            return candidate


def _missing_customer_id(oracle: Oracle, rng: random.Random) -> int:
    """An id that looks like ours (just past the highest one) but does not exist."""
    top = max(oracle.all_customer_ids)
    while (cid := top + rng.randrange(11, 900)) in oracle.all_customer_ids:
        pass
    return cid


def _quarters(oracle: Oracle) -> list[tuple[str, date, date]]:
    """The full calendar quarters inside the data: ('Q3 2025', first day, last day), oldest first."""
    quarters = []
    for year in range(oracle.first_day.year, oracle.as_of.year + 1):
        for q in range(4):
            start = date(year, 3 * q + 1, 1)
            end = date(year + (q == 3), (3 * q + 3) % 12 + 1, 1) - timedelta(days=1)
            if start >= oracle.first_day and end <= oracle.as_of:
                quarters.append((f"Q{q + 1} {year}", start, end))
    return quarters


def _quarter(rng: random.Random, oracle: Oracle) -> tuple[str, date, date]:
    """A full calendar quarter inside the data: ('Q3 2025', first day, last day)."""
    return rng.choice(_quarters(oracle))


# ------------------------------------------------------------------------------------------- chats


def build_chats(oracle: Oracle, seed: int) -> list[Chat]:
    """The eval's chats, parameters drawn from ``oracle`` with ``random.Random(seed)``."""
    rng = random.Random(seed)
    return [
        _chat_lookups(oracle, rng),
        _chat_unknown(oracle, rng),
        _chat_segment_sizes(oracle),
        _chat_top_customers(oracle),
        _chat_germany_desk(oracle, rng),
        _chat_countries(oracle, rng),
        _chat_products(oracle, rng),
        _chat_monthly_trend(oracle, rng),
        _chat_country_trend(oracle, rng),
        _chat_prediction(oracle, rng),
        _chat_memory_review(oracle),
        _chat_memory_name(oracle),
        _chat_restart_customer(oracle, rng),
        _chat_restart_budget(oracle),
        _chat_date_filters(oracle, rng),
        _chat_customer_details(oracle, rng),
        _chat_totals(oracle),
        _chat_country_leaders(oracle),
        *build_analyst_chats(oracle, seed),
    ]


def _chat_lookups(o: Oracle, rng: random.Random) -> Chat:
    everyone = list(o.customers.values())
    a = _pick(rng, o.in_segment("At Risk", "Germany"), everyone)
    b = _pick(rng, o.in_segment("Regular", "United Kingdom"), everyone)
    c = _pick(rng, o.in_segment("High Value", "France"), everyone)
    return Chat(
        "Customer check-ins",
        (
            Turn(f"What is customer {a.customer_id}'s segment?", "lookup", _segment_check(a.segment)),
            Turn(
                f"How many orders has customer {b.customer_id} placed with us?",
                "lookup",
                (Num(f"orders of {b.customer_id}", (b.orders,)),),
            ),
            Turn(
                f"Which country is customer {c.customer_id} based in?",
                "lookup",
                (Names(f"country of {c.customer_id}", "country", (c.country,)),),
            ),
            Turn(
                f"And how much has {c.customer_id} spent with us in total?",
                "lookup",
                (Num(f"net revenue of {c.customer_id}", (c.revenue,)),),
            ),
        ),
    )


def _chat_segment_sizes(o: Oracle) -> Chat:
    total = len(o.customers)
    regular = o.in_segment("Regular")
    return Chat(
        "Segment sizing",
        (
            Turn(
                "How many customers are in the At Risk segment?",
                "aggregate",
                (Num("At Risk customers", (len(o.in_segment("At Risk")),)),),
            ),
            Turn(
                "What did the High Value segment spend in total?",
                "aggregate",
                (Num("High Value net revenue", (o.segment_revenue("High Value"),)),),
            ),
            Turn(
                "What share of our customers is New?",
                "aggregate",
                (Num("New share of customers", (len(o.in_segment("New")) / total,), percent=True),),
            ),
            Turn(
                "What's the average revenue per customer in the Regular segment?",
                "aggregate",
                (Num("Regular revenue per customer", (o.segment_revenue("Regular") / len(regular),)),),
            ),
        ),
    )


def _chat_top_customers(o: Oracle) -> Chat:
    ranked = [c.customer_id for c in o.top_customers()]
    at_risk = [c.customer_id for c in o.in_segment("At Risk")]
    return Chat(
        "Top customers",
        (
            Turn(
                "Who is our top customer by revenue?",
                "top_n",
                (_customer_list("top customer", ranked, 1),),
                related=_related("customer", ranked),
            ),
            Turn(
                "List our top 5 customers by net revenue.",
                "top_n",
                (_customer_list("top 5", ranked, 5),),
                related=_related("customer", ranked),
            ),
            Turn(
                "Who are the three biggest spenders among the At Risk customers?",
                "top_n",
                (_customer_list("top 3 At Risk", at_risk, 3),),
                related=_related("customer", at_risk),
            ),
        ),
    )


def _chat_germany_desk(o: Oracle, rng: random.Random) -> Chat:
    unknown = rng.choice([c for c in UNKNOWN_COUNTRY_CHOICES if _not_in_data(c, o.countries)])
    return Chat(
        "Germany desk",
        (
            Turn(
                "How many customers do we have in Germany?",
                "filter",
                (Num("customers in Germany", (o.countries["Germany"],)),),
            ),
            Turn(
                "And in France?",
                "follow_up",
                (Num("customers in France", (o.countries["France"],)),),
                needs_previous=True,
            ),
            Turn(
                "Who are the At Risk customers in Germany?",
                "filter",
                (_set_or_count("At Risk customers in Germany", o.in_segment("At Risk", "Germany")),),
            ),
            Turn(
                "What about the High Value ones there?",
                "follow_up",
                (_set_or_count("High Value customers in Germany", o.in_segment("High Value", "Germany")),),
                needs_previous=True,
            ),
            Turn(f"And in {unknown}?", "unknown", (NotFound(unknown),), needs_previous=True),
        ),
    )


def _chat_countries(o: Oracle, rng: random.Random) -> Chat:
    ranked = o.countries_by_revenue()
    country = rng.choice(ranked[2:10])
    net, gross = o.country_revenue[country]
    return Chat(
        "Countries",
        (
            Turn(
                "Which country brings the most revenue?",
                "top_n",
                (Names("top country by revenue", "country", (ranked[0],)),),
                related=_related("country", ranked),
            ),
            Turn(
                "Which one comes second?",
                "follow_up",
                (Names("second country by revenue", "country", (ranked[1],)),),
                needs_previous=True,
                related=_related("country", ranked),
            ),
            Turn(
                f"What was our total revenue from {country} over the whole period?",
                "filter",
                (Num(f"revenue from {country}", (net, gross)),),
            ),
            Turn(
                f"How many orders came from {country}?",
                "filter",
                (Num(f"orders from {country}", (o.country_orders[country],)),),
            ),
        ),
    )


def _chat_products(o: Oracle, rng: random.Random) -> Chat:
    by_units = [o.top_products_by_units(), o.top_products_by_units(net=True)]
    by_revenue = o.top_products_by_revenue()
    france = [o.top_products_by_units("France"), o.top_products_by_units("France", net=True)]
    product = by_units[0][0]
    fake = _fake_product(o, rng)
    return Chat(
        "Products",
        (
            Turn(
                "What are our best-selling products by units sold?",
                "top_n",
                (_product_list("best sellers by units", by_units, 3),),
                related=_related("product", *by_units),
            ),
            Turn(
                "Best selling products in France?",
                "top_n",
                (_product_list("best sellers in France", france, 3),),
                related=_related("product", *france),
            ),
            Turn(
                "Which product brought in the most revenue overall?",
                "top_n",
                (_product_list("top product by revenue", [by_revenue], 1),),
                related=_related("product", by_revenue),
            ),
            Turn(
                f"How many units of {product} have we sold in total?",
                "aggregate",
                (Num(f"units of {product}", o.units_of(product)),),
            ),
            Turn(f"How is the {fake} selling?", "unknown", (NotFound(fake),)),
        ),
    )


def _months_with_year_before(o: Oracle) -> list[str]:
    """Months whose month a year earlier has sales too, the (partial) last month only when no other
    month has one (a file of 13 months: December 2011 and December 2010)."""
    paired = [m for m in o.month_keys() if _year_before(m) in o.months]
    return [m for m in paired if m != o.last_months(1)[0]] or paired


def _chat_monthly_trend(o: Oracle, rng: random.Random) -> Chat:
    last6 = [m for m in o.last_months(6) if m in o.months]
    best = max(last6, key=lambda m: o.months[m].revenue)
    turns = [
        Turn(
            "Show me the monthly revenue for the last 6 months.",
            "trend",
            (
                Nums(
                    f"{min(3, len(last6))} of the {len(last6)} monthly revenues",
                    tuple((o.months[m].revenue, o.months[m].gross) for m in last6),
                    need=min(3, len(last6)),
                ),
            ),
        ),
        Turn(
            "Which of those months was the strongest?",
            "follow_up",
            (Names("best month of the last 6", "month", (best,)),),
            needs_previous=True,
        ),
    ]
    candidates = _months_with_year_before(o)
    if candidates:  # a file of less than 13 months has no month a year earlier: those two are skipped
        month = rng.choice(candidates)
        turns += [
            Turn(
                f"How many orders did we get in {month_name(month)}?",
                "trend",
                (Num(f"orders in {month}", (o.months[month].orders,)),),
            ),
            Turn(
                "How does that compare with the same month a year earlier?",
                "follow_up",
                (Num(f"orders in {_year_before(month)}", (o.months[_year_before(month)].orders,)),),
                needs_previous=True,
            ),
        ]
    return Chat("Monthly trend", tuple(turns))


def _chat_country_trend(o: Oracle, rng: random.Random) -> Chat:
    month = rng.choice([m for m in o.month_keys() if m.startswith(str(o.as_of.year))])
    label, start, _ = _quarter(rng, o)
    quarter_months = [f"{start.year:04d}-{start.month + i:02d}" for i in range(3)]
    year = str(o.as_of.year)
    best = max((m for m in o.months if m.startswith(year)), key=lambda m: o.months[m].revenue)
    orders = tuple((float(o.country_month_orders.get(("Germany", m), 0)),) for m in quarter_months)
    return Chat(
        "Country trend",
        (
            Turn(
                f"What was our revenue in {month_name(month)}?",
                "trend",
                (Num(f"revenue in {month}", (o.months[month].revenue, o.months[month].gross)),),
            ),
            Turn(
                f"Give me Germany's order count for each month of {label}.",
                "trend",
                (Nums(f"Germany orders per month of {label}", orders, need=2),),
            ),
            Turn(
                f"Which month of {year} had the highest revenue?",
                "trend",
                (Names(f"best month of {year}", "month", (best,)),),
            ),
        ),
    )


def _round_up(value: float, step: int) -> int:
    return int(math.ceil(value / step) * step)


def _chat_prediction(o: Oracle, rng: random.Random) -> Chat:
    cut = o.high_value_above
    n, days = rng.randrange(4, 10), rng.randrange(5, 60)
    spend = _round_up(cut * 1.6, 50)
    late = rng.randrange(120, 200)
    small = max(50, _round_up(cut * 0.4, 10))
    big = _round_up(cut * 2, 50)
    yes = o.classify(n, days, spend)
    return Chat(
        "Segment prediction",
        (
            Turn(
                f"Would a customer with {n} orders, last order {days} days ago, spending {_money(spend)} "
                "be High Value?",
                "prediction",
                (*_segment_check(yes), YesNo(yes == "High Value", "High Value")),
            ),
            Turn(
                f"Same customer, but suppose their last order was {late} days ago. Which segment then?",
                "prediction",
                _segment_check(o.classify(n, late, spend), ("High Value",)),
                needs_previous=True,
            ),
            Turn(
                f"What about someone with a single order placed 10 days ago, spending {_money(big)}?",
                "prediction",
                _segment_check(o.classify(1, 10, big)),
            ),
            Turn(
                f"And a shopper with {n} orders, the last one 30 days ago, who spent {_money(small)} "
                "altogether: what segment would they land in?",
                "prediction",
                _segment_check(o.classify(n, 30, small)),
            ),
        ),
    )


def _chat_unknown(o: Oracle, rng: random.Random) -> Chat:
    country = rng.choice([c for c in UNKNOWN_COUNTRY_CHOICES if _not_in_data(c, o.countries)])
    missing = _missing_customer_id(o, rng)
    fake = _fake_product(o, rng)
    return Chat(
        "Unknown entities",
        (
            Turn(
                f"What segment is customer {UNKNOWN_CUSTOMER_ID} in?",
                "unknown",
                (NotFound(str(UNKNOWN_CUSTOMER_ID)),),
            ),
            Turn(f"How many customers do we have in {country}?", "unknown", (NotFound(country),)),
            Turn(f"How many units of {fake} did we sell last year?", "unknown", (NotFound(fake),)),
            Turn(f"What has customer {missing} spent so far?", "unknown", (NotFound(str(missing)),)),
        ),
    )


def _chat_memory_review(o: Oracle) -> Chat:
    return Chat(
        "Q3 review prep",
        (
            Turn(
                "Hi! I'm preparing the Q3 review for the At Risk team, so keep answers short please.",
                None,
            ),
            Turn(
                "How many At Risk customers are there right now?",
                "aggregate",
                (Num("At Risk customers", (len(o.in_segment("At Risk")),)),),
            ),
            Turn(
                "Remind me, which team am I preparing the review for?",
                "memory",
                (Names("the At Risk team", "segment", ("At Risk",)),),
                needs_previous=True,
            ),
            Turn(
                "And which quarter is the review about?",
                "memory",
                (Names("Q3", "text", (r"\bQ3\b|third quarter|quarter (?:3|three)",)),),
                needs_previous=True,
            ),
        ),
    )


def _chat_memory_name(o: Oracle) -> Chat:
    nordics = ("Sweden", "Norway", "Denmark", "Finland")
    return Chat(
        "Nordic accounts",
        (
            Turn(
                "My name is Priya and I look after our Nordic accounts: Sweden, Norway, Denmark and Finland.",
                None,
            ),
            Turn(
                "How many customers do we have in Sweden?",
                "filter",
                (Num("customers in Sweden", (o.countries.get("Sweden", 0),)),),
            ),
            Turn(
                "Quick check: what's my name, and which countries do I cover?",
                "memory",
                (
                    Names("the name Priya", "text", (r"\bPriya\b",)),
                    Names("2 of her countries", "country", nordics, 2),
                ),
                needs_previous=True,
            ),
        ),
    )


def _chat_restart_customer(o: Oracle, rng: random.Random) -> Chat:
    everyone = list(o.customers.values())
    c = _pick(rng, o.in_segment("High Value", "United Kingdom"), everyone)
    return Chat(
        "Account follow-up (server restart)",
        (
            Turn(
                f"For this chat: my deadline is Friday the 14th, and I'm focusing on customer "
                f"{c.customer_id}.",
                None,
            ),
            Turn(f"Which segment is customer {c.customer_id} in?", "lookup", _segment_check(c.segment)),
            Turn(
                "Sorry, we got cut off. Which customer was I focusing on?",
                "memory_restart",
                (Names("the customer from turn 1", "customer", (str(c.customer_id),)),),
                needs_previous=True,
                restart_before=True,
            ),
            Turn(
                "And when is my deadline?",
                "memory_restart",
                (
                    Names("Friday the 14th", "text", (r"friday",)),
                    Names("the 14th", "text", (r"\b14(?:th)?\b",)),
                ),
                needs_previous=True,
            ),
            Turn(
                "What segment did you say that customer was in?",
                "memory_restart",
                _segment_check(c.segment),
                needs_previous=True,
            ),
        ),
    )


def _chat_restart_budget(o: Oracle) -> Chat:
    regular_uk = o.in_segment("Regular", "United Kingdom")
    return Chat(
        "Campaign planning (server restart)",
        (
            Turn("Note for later: our campaign budget is £12,500 and the target segment is Regular.", None),
            Turn(
                "How many Regular customers do we have in the United Kingdom?",
                "filter",
                (Num("Regular customers in the UK", (len(regular_uk),)),),
            ),
            Turn(
                "Back again. What budget did I mention for the campaign?",
                "memory_restart",
                (Num("the budget", (12_500,)),),
                needs_previous=True,
                restart_before=True,
            ),
            Turn(
                "Which segment are we targeting?",
                "memory_restart",
                _segment_check("Regular"),
                needs_previous=True,
            ),
        ),
    )


def _chat_date_filters(o: Oracle, rng: random.Random) -> Chat:
    label, start, end = _quarter(rng, o)
    net, gross = o.revenue_between(start, end)
    # only those the data has ("Ireland" is EIRE in the UCI file)
    country = rng.choice(
        [c for c in ("Germany", "France", "Netherlands", "Ireland", "Spain") if c in o.countries]
    )
    label2, start2, end2 = _quarter(rng, o)
    month = rng.choice(o.month_keys()[1:-1])
    return Chat(
        "Date filters",
        (
            Turn(
                f"What was total revenue between {start.day} {start:%B %Y} and {end.day} {end:%B %Y}?",
                "filter",
                (Num(f"revenue in {label}", (net, gross)),),
            ),
            Turn(
                f"How many orders did customers in {country} place in {label2}?",
                "filter",
                (
                    Num(
                        f"orders from {country} in {label2}",
                        (o.country_orders_between(country, start2, end2),),
                    ),
                ),
            ),
            Turn(
                f"How many different customers bought something in {month_name(month)}?",
                "filter",
                (Num(f"buyers in {month}", (o.months[month].buyers,)),),
            ),
        ),
    )


def _chat_customer_details(o: Oracle, rng: random.Random) -> Chat:
    everyone = list(o.customers.values())
    d = _pick(rng, o.in_segment("At Risk", "France"), everyone)
    e = _pick(rng, o.in_segment("Regular", "Netherlands"), everyone)
    return Chat(
        "Customer details",
        (
            Turn(
                f"When did customer {d.customer_id} last buy from us?",
                "lookup",
                (Names(f"last purchase of {d.customer_id}", "date", (d.last_day.isoformat(),)),),
            ),
            Turn(
                f"Is customer {e.customer_id} a High Value customer?",
                "lookup",
                (*_segment_check(e.segment, ("High Value",)), YesNo(e.segment == "High Value", "High Value")),
            ),
            Turn(
                f"How many days has it been since {e.customer_id}'s last order?",
                "lookup",
                (Num(f"recency of {e.customer_id}", (e.recency,)),),
            ),
        ),
    )


def _chat_totals(o: Oracle) -> Chat:
    return Chat(
        "Company totals",
        (
            Turn("How many orders have we had in total?", "aggregate", (Num("orders", (o.orders,)),)),
            Turn("What's our total net revenue?", "aggregate", (Num("net revenue", (o.revenue,)),)),
            Turn(
                "What's the average order value?",
                "aggregate",
                (Num("average order value", (o.revenue / o.orders, o.gross / o.orders)),),
            ),
            Turn(
                "What percentage of revenue comes from High Value customers?",
                "aggregate",
                (
                    Num(
                        "High Value share of revenue",
                        (o.segment_revenue("High Value") / o.revenue,),
                        percent=True,
                    ),
                ),
            ),
        ),
    )


def _chat_country_leaders(o: Oracle) -> Chat:
    nl = [c.customer_id for c in o.top_customers("Netherlands")]
    es = [c.customer_id for c in o.top_customers("Spain")]
    uk_hv = [c.customer_id for c in o.in_segment("High Value", "United Kingdom")]
    return Chat(
        "Country leaders",
        (
            Turn(
                "Who is our biggest customer in the Netherlands?",
                "top_n",
                (_customer_list("top customer in the Netherlands", nl, 1),),
                related=_related("customer", nl),
            ),
            Turn(
                "And in Spain?",
                "follow_up",
                (_customer_list("top customer in Spain", es, 1),),
                needs_previous=True,
                related=_related("customer", es),
            ),
            Turn(
                "Top 3 High Value customers in the United Kingdom?",
                "top_n",
                (_customer_list("top 3 High Value in the UK", uk_hv, 3),),
                related=_related("customer", uk_hv),
            ),
        ),
    )


def count_categories(chats: list[Chat]) -> Counter[str]:
    return Counter(t.category for chat in chats for t in chat.turns if t.category)


# ------------------------------------------------------------------------------ analyst phrasings
#
# Questions the way analysts type them: terse or misspelt, exclusions, minima, single days, shares,
# comparisons with an earlier period, "tell me about X", questions the data cannot answer, rankings
# and short follow-up chats. Parameters are drawn with their own RNG (the chats above keep theirs);
# a question whose truth the dataset cannot give (no month a year earlier, no two full years) is left
# out on that dataset rather than asked with a made-up truth.

PLACEHOLDER_COUNTRIES = ("Unspecified", "European Community")  # the UCI file's non-countries
_THE_COUNTRIES = ("Netherlands", "United States", "United Arab Emirates", "Channel Islands", "Czech Republic")
_MONEY, _UNITS_SOLD, _ORDERS, _CUSTOMERS, _DAYS = "money", "units", "orders", "customers", "days"


def build_analyst_chats(oracle: Oracle, seed: int) -> list[Chat]:
    """The analyst-phrasing chats, parameters drawn from ``oracle`` with their own seeded RNG."""
    rng = random.Random(f"{seed}:analyst")
    makers = (
        _chat_typed_fast,
        _chat_odd_order,
        _chat_exclusions,
        _chat_minima,
        _chat_single_days,
        _chat_shares,
        _chat_comparisons,
        _chat_tell_me_about,
        _chat_cannot_measure,
        _chat_not_in_data,
        _chat_rankings,
        _chat_follow_country,
        _chat_follow_month,
        _chat_follow_customer,
        _chat_follow_product,
        _chat_follow_segment,
    )
    chats = []
    for make in makers:
        title, turns = make(oracle, rng)
        kept = tuple(t for t in turns if t is not None)
        if kept:
            chats.append(Chat(title, kept))
    return chats


def _say(country: str) -> str:
    """How an analyst writes a country in a question: "the UK", "the Netherlands", "Germany"."""
    if country == "United Kingdom":
        return "the UK"
    return f"the {country}" if country in _THE_COUNTRIES else country


def _trading_countries(o: Oracle) -> list[str]:
    """Countries by net revenue, biggest first, without the file's placeholders."""
    return [c for c in o.countries_by_revenue() if c not in PLACEHOLDER_COUNTRIES]


def _merchandise(o: Oracle) -> list[str]:
    """Product names of real goods (stock codes starting with a digit: not POSTAGE, Manual...) by net
    revenue, biggest first."""
    names = {name for code, (name, _) in o.product_revenue.items() if code[:1].isdigit()}
    return [name for name in o.top_products_by_revenue() if name in names]


def _uniq(*values: float) -> tuple[float, ...]:
    return tuple(dict.fromkeys(float(v) for v in values))


def _month_span(key: str) -> tuple[date, date]:
    year, month = map(int, key.split("-"))
    return date(year, month, 1), date(year, month, calendar.monthrange(year, month)[1])


def _year_span(year: str) -> tuple[date, date]:
    return date(int(year), 1, 1), date(int(year), 12, 31)


def _prev_month(key: str) -> str:
    year, month = map(int, key.split("-"))
    return f"{year - (month == 1):04d}-{(month - 2) % 12 + 1:02d}"


def _day_words(o: Oracle, day: date) -> str:
    """ "3 March" when that day of the year falls in the data only once, else "3 March 2025"."""
    others = []
    for year in range(o.first_day.year, o.as_of.year + 1):
        try:
            other = day.replace(year=year)
        except ValueError:  # 29 February
            continue
        if other != day and o.first_day <= other <= o.as_of:
            others.append(other)
    return f"{day.day} {day:%B}" if not others else f"{day.day} {day:%B %Y}"


def _share(part: float, whole: float) -> float | None:
    return part / whole if whole else None


def _ranking(
    label: str, kind: str, scores: list[dict[str, float]], n: int, *, lowest: bool = False
) -> tuple[Check, tuple[tuple[str, str], ...]]:
    """The first min(n, 3) of a ranking by each of ``scores`` (equally valid measures, e.g. net and
    gross): they must be named; places tied at the edge may be filled by any of the tied. Returns the
    check and what the answer may name besides (the ranking's head, at least 5, with ties)."""
    options: list[Check] = []
    related: list[tuple[str, str]] = []
    for score in scores:
        if not score:
            continue
        ordered = sorted(score, key=lambda k: (score[k] if lowest else -score[k], k))
        k = min(n, 3, len(ordered))
        edge = score[ordered[k - 1]]
        wanted = [x for x in ordered if (score[x] <= edge if lowest else score[x] >= edge)]
        options.append(Names(label, kind, tuple(wanted), need=k))
        head = score[ordered[min(max(n, 5), len(ordered)) - 1]]
        related += [(kind, x) for x in ordered if (score[x] <= head if lowest else score[x] >= head)]
    unique = list(dict.fromkeys(options))
    check = unique[0] if len(unique) == 1 else AnyOf(label, tuple(unique))
    return check, tuple(dict.fromkeys(related))


def _change(label: str, new: tuple[float, ...], old: tuple[float, ...], unit: str) -> AnyOf:
    """A comparison is answered by both figures, by the difference, or by the change in per cent."""
    differences = _uniq(*(a - b for a, b in zip(new, old, strict=True)))
    percents = _uniq(*((a - b) / abs(b) for a, b in zip(new, old, strict=True) if b))
    options: list[Check] = [
        Nums(f"{label}: both figures", (new, old), need=2),
        Num(f"{label}: the difference", differences, unit=unit),
    ]
    if percents:
        options.append(Num(f"{label}: the change in %", percents, percent=True))
    return AnyOf(label, tuple(options))


def _scores(groups: dict[str, Totals], measure: str) -> dict[str, float]:
    return {k: float(getattr(t, measure)) for k, t in groups.items()}


def _product_scores(o: Oracle, measure: str, **scope: object) -> list[dict[str, float]]:
    """Scores per product name, and per stock code (a name's best code): both are fair rankings."""
    by_name = _scores(o.grouped("product", **scope), measure)  # type: ignore[arg-type]
    names = {code: name for code, (name, _) in o.product_revenue.items()}
    by_code: dict[str, float] = {}
    for code, t in o.grouped("stock_code", **scope).items():  # type: ignore[arg-type]
        name = names.get(code, code)
        by_code[name] = max(by_code.get(name, -math.inf), float(getattr(t, measure)))
    return [by_name, by_code]


# ----------------------------------------------------------------------------------- paraphrase


def _chat_typed_fast(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    countries = _trading_countries(o)
    country = rng.choice(countries[1:8] or countries)
    month = rng.choice(o.month_keys()[1:-1] or o.month_keys())
    m = o.months[month]
    check, related = _ranking(
        "top 5 products by units",
        "product",
        [*_product_scores(o, "units_sold"), *_product_scores(o, "units")],
        5,
    )
    customers = _uniq(o.countries.get(country, 0), o.totals(country=country).buyers)
    return "Typed fast", [
        Turn(
            f"how many custmers do we have in {country.lower()}",
            "paraphrase",
            (Num(f"customers in {country}", customers, unit=_CUSTOMERS),),
        ),
        Turn(
            f"whats the total revenu for {month_name(month).lower()}",
            "paraphrase",
            (Num(f"revenue in {month}", (m.revenue, m.gross), unit=_MONEY),),
        ),
        Turn("top 5 products units sold", "paraphrase", (check,), related=related),
    ]


def _chat_odd_order(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    countries = _trading_countries(o)
    country = rng.choice(countries[1:8] or countries)
    year = rng.choice(o.years(min_months=6) or o.years())
    revenue = o.totals(*_year_span(year), country=country).money
    repeat = [c for c in o.customers.values() if c.orders >= 2] or list(o.customers.values())
    a, b = rng.choice(repeat), rng.choice(list(o.customers.values()))
    return "Odd word order", [
        Turn(
            f"{country} {year} revenue, how much was it",
            "paraphrase",
            (Num(f"revenue from {country} in {year}", revenue, unit=_MONEY),),
        ),
        Turn(
            f"number of orders customer {a.customer_id} has placed",
            "paraphrase",
            (Num(f"orders of {a.customer_id}", (a.orders,), unit=_ORDERS),),
        ),
        Turn(f"WHICH SEGMENT IS CUSTOMER {b.customer_id} IN", "paraphrase", _segment_check(b.segment)),
    ]


# ------------------------------------------------------------------------------------ exclusion


def _chat_exclusions(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    countries = _trading_countries(o)
    top = countries[0]
    rest = countries[1:] or countries
    other = rng.choice(rest[:6])
    outside = o.totals(exclude=top)
    by_country = o.grouped("country", exclude=top)
    leader, leaders = _ranking(
        f"top country apart from {top}",
        "country",
        [_scores(by_country, "net"), _scores(by_country, "gross")],
        1,
    )
    best, best_related = _ranking(
        f"best seller by units apart from {top}",
        "product",
        [*_product_scores(o, "units_sold", exclude=top), *_product_scores(o, "units", exclude=top)],
        1,
    )
    customers = _uniq(sum(n for c, n in o.countries.items() if c != top), outside.buyers)
    return "Everything but the home market", [
        Turn(
            f"What was our total revenue apart from {_say(top)}?",
            "exclusion",
            (Num(f"revenue outside {top}", outside.money, unit=_MONEY),),
        ),
        Turn(
            f"How many orders did we get excluding {_say(other)}?",
            "exclusion",
            (Num(f"orders outside {other}", (o.totals(exclude=other).orders,), unit=_ORDERS),),
        ),
        Turn(
            f"Excluding {_say(top)}, which country has the most revenue?",
            "exclusion",
            (leader,),
            related=leaders,
        ),
        Turn(
            f"How many customers do we have outside {_say(top)}?",
            "exclusion",
            (Num(f"customers outside {top}", customers, unit=_CUSTOMERS),),
        ),
        Turn(
            f"Leaving {_say(top)} out, what's our best-selling product by units?",
            "exclusion",
            (best,),
            related=best_related,
        ),
    ]


# -------------------------------------------------------------------------------------- minimum


def _chat_minima(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    by_country = o.grouped("country")
    least, least_related = _ranking(
        "country with the least revenue",
        "country",
        [_scores(by_country, "net"), _scores(by_country, "gross")],
        1,
        lowest=True,
    )
    year = rng.choice(o.years(min_months=6) or o.years())
    in_year = {m: f for m, f in o.months.items() if m.startswith(year)}
    # a month the data holds only some days of may be left out of "the weakest" (the answer says so)
    partial = {o.first_day.isoformat()[:7]} if o.first_day.day != 1 else set()
    if (o.as_of + timedelta(days=1)).day != 1:
        partial.add(o.as_of.isoformat()[:7])
    whole = {m: f for m, f in in_year.items() if m not in partial}
    weakest = tuple(
        Names(f"weakest month of {year}", "month", (min(months, key=lambda m: getattr(months[m], kind)),))
        for months in (in_year, whole)
        if months
        for kind in ("revenue", "gross")
    )
    sizes = {s: float(len(o.in_segment(s))) for s in SEGMENTS}
    smallest, _ = _ranking("smallest segment", "segment", [sizes], 1, lowest=True)
    ten = _trading_countries(o)[:10]
    fewest, fewest_related = _ranking(
        "fewest orders of the top 10 countries",
        "country",
        [{c: float(by_country[c].orders) for c in ten if c in by_country}],
        1,
        lowest=True,
    )
    month = rng.choice(o.month_keys()[1:-1] or o.month_keys())
    days = {d: t for d, t in o.grouped("day", *_month_span(month)).items() if t.orders}
    low_day, _ = _ranking(
        f"day of {month} with the lowest revenue",
        "date",
        [_scores(days, "net"), _scores(days, "gross")],
        1,
        lowest=True,
    )
    return "Where are we weakest", [
        Turn("Which country spent the least with us?", "minimum", (least,), related=least_related),
        Turn(
            f"What was our weakest month for revenue in {year}?",
            "minimum",
            (AnyOf(f"weakest month of {year}", weakest),),
        ),
        Turn(
            "Which segment has the fewest customers?",
            "minimum",
            (smallest,),
            related=tuple(("segment", s) for s in SEGMENTS),
        ),
        Turn(
            "Of our ten biggest countries by revenue, which one placed the fewest orders?",
            "minimum",
            (fewest,),
            related=(*fewest_related, *(("country", c) for c in ten)),
        ),
        Turn(f"Which day in {month_name(month)} had the lowest revenue?", "minimum", (low_day,)),
    ]


# ----------------------------------------------------------------------------------- single day


def _chat_single_days(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    days = o.sales_days()
    middle = days[1:-1] or days
    picked = [date.fromisoformat(d) for d in rng.sample(middle, min(5, len(middle)))]
    while len(picked) < 5:
        picked.append(picked[-1])
    a, b, c, d, e = picked
    t = {day: o.totals(day, day) for day in picked}
    by_country = o.grouped("country", e, e)
    leader, leaders = _ranking(
        f"top country on {e}", "country", [_scores(by_country, "net"), _scores(by_country, "gross")], 1
    )
    return "Single days", [
        Turn(
            f"What was revenue on {a.isoformat()}?",
            "single_day",
            (Num(f"revenue on {a}", t[a].money, unit=_MONEY),),
        ),
        Turn(
            f"How many orders did we take on {_day_words(o, b)}?",
            "single_day",
            (Num(f"orders on {b}", (t[b].orders,), unit=_ORDERS),),
        ),
        Turn(
            f"How many units did we sell on {c:%B} {c.day}, {c.year}?",
            "single_day",
            (Num(f"units on {c}", t[c].unit_counts, unit=_UNITS_SOLD),),
        ),
        Turn(
            f"How many different customers bought from us on {d:%A} {d.day} {d:%B %Y}?",
            "single_day",
            (Num(f"buyers on {d}", (t[d].buyers,), unit=_CUSTOMERS),),
        ),
        Turn(
            f"Which country had the highest revenue on {e.isoformat()}?",
            "single_day",
            (leader,),
            related=leaders,
        ),
    ]


# ---------------------------------------------------------------------------------------- share


def _chat_shares(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    countries = _trading_countries(o)
    top = countries[0]
    country = rng.choice(countries[1:8] or countries)
    whole = o.totals()
    part = o.totals(country=country)
    home = o.totals(country=top)
    year = rng.choice(o.years(min_months=6) or o.years())
    month = rng.choice(sorted(m for m in o.months if m.startswith(year)))
    year_total = o.totals(*_year_span(year))
    product = (_merchandise(o) or o.top_products_by_revenue())[0]
    item = o.totals(product=product)
    at_risk = len(o.in_segment("At Risk"))

    def share(label: str, pairs: list[tuple[float, float]]) -> tuple[Check, ...]:
        values = _uniq(*(v for p, w in pairs if (v := _share(p, w)) is not None))
        return (Num(label, values, percent=True),) if values else ()

    def turn(text: str, checks: tuple[Check, ...]) -> Turn | None:
        return Turn(text, "share", checks) if checks else None

    return "Shares", [
        turn(
            f"What % of revenue is from {_say(country)}?",
            share(f"{country}'s share of revenue", [(part.net, whole.net), (part.gross, whole.gross)]),
        ),
        turn(
            f"What share of our orders come from {_say(top)}?",
            share(f"{top}'s share of orders", [(home.orders, whole.orders)]),
        ),
        turn(
            "How big is the At Risk segment as a share of all our customers?",
            share(
                "At Risk share of customers",
                [(at_risk, len(o.customers)), (at_risk, len(o.all_customer_ids))],
            ),
        ),
        turn(
            f"What percentage of {year}'s revenue came in {calendar.month_name[int(month[5:])]}?",
            share(
                f"{month}'s share of {year}",
                [(o.months[month].revenue, year_total.net), (o.months[month].gross, year_total.gross)],
            ),
        ),
        turn(
            f"What fraction of total revenue did the {product} bring in?",
            share(f"{product}'s share of revenue", [(item.net, whole.net), (item.gross, whole.gross)]),
        ),
    ]


# ----------------------------------------------------------------------------------- comparison


def _chat_comparisons(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    with_prev = [m for m in o.month_keys()[:-1] if _prev_month(m) in o.months] or [
        m for m in o.month_keys() if _prev_month(m) in o.months
    ]
    turns: list[Turn | None] = []
    if with_prev:
        m = rng.choice(with_prev)
        p = _prev_month(m)
        now, before = o.months[m], o.months[p]
        turns.append(
            Turn(
                f"How did {month_name(m)} compare with {calendar.month_name[int(p[5:])]}?",
                "comparison",
                (
                    AnyOf(
                        f"{m} against {p}",
                        (
                            _change(
                                f"revenue {m} vs {p}",
                                (now.revenue, now.gross),
                                (before.revenue, before.gross),
                                _MONEY,
                            ),
                            _change(f"orders {m} vs {p}", (now.orders,), (before.orders,), _ORDERS),
                        ),
                    ),
                ),
            )
        )
    yoy = _months_with_year_before(o)
    if yoy:
        m = rng.choice(yoy)
        now, before = o.months[m], o.months[_year_before(m)]
        turns.append(
            Turn(
                f"Revenue in {month_name(m)} vs the same month last year?",
                "comparison",
                (
                    _change(
                        f"revenue {m} vs a year earlier",
                        (now.revenue, now.gross),
                        (before.revenue, before.gross),
                        _MONEY,
                    ),
                ),
            )
        )
    quarters = _quarters(o)
    pairs = [
        (quarters[i], quarters[i - 1])
        for i in range(1, len(quarters))
        if quarters[i][1] - quarters[i - 1][2] == timedelta(days=1)
    ]
    if pairs:
        (label, start, end), (_, prev_start, prev_end) = rng.choice(pairs)
        country = rng.choice(_trading_countries(o)[1:6] or _trading_countries(o))
        now_orders = o.totals(start, end, country=country).orders
        before_orders = o.totals(prev_start, prev_end, country=country).orders
        turns.append(
            Turn(
                f"Did {_say(country)} place more orders in {label} than in the quarter before?",
                "comparison",
                (
                    _change(
                        f"{country} orders {label} vs the quarter before",
                        (now_orders,),
                        (before_orders,),
                        _ORDERS,
                    ),
                ),
            )
        )
    years = o.years(min_months=6)
    full = [y for y in years if str(int(y) - 1) in years]
    if full:  # two years of data (the UCI file has one and a month): no year-on-year question there
        y = rng.choice(full)
        now_t, before_t = o.totals(*_year_span(y)), o.totals(*_year_span(str(int(y) - 1)))
        turns.append(
            Turn(
                f"How does {y} revenue compare with {int(y) - 1}?",
                "comparison",
                (_change(f"revenue {y} vs {int(y) - 1}", now_t.money, before_t.money, _MONEY),),
            )
        )
    if with_prev:
        m = rng.choice(with_prev)
        p = _prev_month(m)
        turns.append(
            Turn(
                f"What was the difference in buyers between {month_name(m)} and {month_name(p)}?",
                "comparison",
                (_change(f"buyers {m} vs {p}", (o.months[m].buyers,), (o.months[p].buyers,), _CUSTOMERS),),
            )
        )
    return "Against an earlier period", turns


# -------------------------------------------------------------------------------- tell me about


def _chat_tell_me_about(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    countries = _trading_countries(o)
    country = rng.choice(countries[1:8] or countries)
    ct = o.totals(country=country)
    country_related = (
        *_ranking("", "product", _product_scores(o, "net", country=country), 5)[1],
        *_ranking("", "product", _product_scores(o, "units", country=country), 5)[1],
        *_related("customer", [c.customer_id for c in o.top_customers(country)]),
    )
    repeat = [c for c in o.customers.values() if c.orders >= 3] or list(o.customers.values())
    c = rng.choice(repeat)
    customer_related = (
        *_ranking("", "product", _product_scores(o, "net", customer=c.customer_id), 5)[1],
        *_ranking("", "product", _product_scores(o, "units", customer=c.customer_id), 5)[1],
    )
    goods = _merchandise(o) or o.top_products_by_revenue()
    product = rng.choice(goods[:20])
    pt = o.totals(product=product)
    product_countries = o.grouped("country", product=product)
    product_related = (
        *_ranking("", "country", [_scores(product_countries, "net")], 5)[1],
        *_ranking("", "customer", [_scores(o.grouped("customer", product=product), "net")], 5)[1],
    )
    high = o.in_segment("High Value")
    high_revenue = o.segment_revenue("High Value")
    month = rng.choice(o.month_keys()[1:-1] or o.month_keys())
    mt = o.totals(*_month_span(month))
    by_country = o.grouped("country", *_month_span(month))
    month_related = (
        *_ranking("", "country", [_scores(by_country, "net")], 5)[1],
        *_ranking(
            "",
            "product",
            _product_scores(o, "net", start=_month_span(month)[0], end=_month_span(month)[1]),
            5,
        )[1],
    )
    return "Tell me about", [
        Turn(
            f"Tell me about {_say(country)}.",
            "tell_me_about",
            (
                Nums(
                    f"2 facts about {country}",
                    (ct.money, (float(ct.orders),), _uniq(o.countries.get(country, 0), ct.buyers)),
                    need=2,
                    unit="mixed",
                ),
            ),
            related=country_related,
        ),
        Turn(
            f"Tell me about customer {c.customer_id}.",
            "tell_me_about",
            (
                Nums(
                    f"2 facts about {c.customer_id}",
                    ((float(c.orders),), (c.revenue,), (float(c.recency),)),
                    need=2,
                    unit="mixed",
                ),
                Names(f"segment of {c.customer_id}", "segment", (c.segment,)),
            ),
            related=customer_related,
        ),
        Turn(
            f"Tell me about the {product}.",
            "tell_me_about",
            (
                Nums(
                    f"2 facts about {product}",
                    (pt.money, pt.unit_counts, (float(pt.orders),), (float(pt.buyers),)),
                    need=2,
                    unit="mixed",
                ),
            ),
            related=product_related,
        ),
        Turn(
            "What can you tell me about our High Value segment?",
            "tell_me_about",
            (
                Nums(
                    "2 facts about High Value",
                    ((float(len(high)),), (high_revenue,), (high_revenue / len(high) if high else 0.0,)),
                    need=2,
                    unit="mixed",
                ),
            ),
            related=_related("customer", [h.customer_id for h in high]),
        ),
        Turn(
            f"Tell me about {month_name(month)}.",
            "tell_me_about",
            (
                Nums(
                    f"2 facts about {month}",
                    (mt.money, (float(mt.orders),), (float(mt.buyers),), mt.unit_counts),
                    need=2,
                    unit="mixed",
                ),
            ),
            related=month_related,
        ),
    ]


# --------------------------------------------------------------------------------- unanswerable


def _chat_cannot_measure(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    goods = _merchandise(o) or o.top_products_by_revenue()
    product, stocked = rng.sample(goods[:30], 2) if len(goods) >= 2 else (goods[0], goods[0])
    month = rng.choice(o.month_keys())
    return "Things the data does not hold", [
        Turn(
            f"What's our profit margin on the {product}?",
            "unanswerable",
            (CannotAnswer("profit", r"profit|margin"),),
        ),
        Turn(
            f"How many of the {stocked} do we have in stock right now?",
            "unanswerable",
            (CannotAnswer("stock", r"\bstock\b|inventory|on hand|warehouse"),),
        ),
        Turn(
            f"Did bad weather hurt our sales in {month_name(month)}?",
            "unanswerable",
            (CannotAnswer("weather", r"weather|\brain|snow|temperature"),),
        ),
    ]


def _chat_not_in_data(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    missing = [c for c in UNKNOWN_COUNTRY_CHOICES if _not_in_data(c, o.countries)]
    fake = _fake_product(o, rng)
    country = rng.choice(missing) if missing else None
    return "Outside the data", [
        Turn(f"How much revenue did we make in {country}?", "unanswerable", (NotFound(country),))
        if country
        else None,
        Turn(f"What's the revenue from the {fake} so far?", "unanswerable", (NotFound(fake),)),
        Turn(
            "Which of our sales reps brought in the most revenue?",
            "unanswerable",
            (
                CannotAnswer(
                    "sales staff", r"\breps?\b|representative|employee|staff|salesperson|sales ?people"
                ),
            ),
        ),
    ]


# -------------------------------------------------------------------------------------- ranking


def _chat_rankings(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    by_country = o.grouped("country")
    most_orders, most_orders_related = _ranking(
        "top 5 countries by orders", "country", [_scores(by_country, "orders")], 5
    )
    least, least_related = _ranking(
        "bottom 3 countries by revenue",
        "country",
        [_scores(by_country, "net"), _scores(by_country, "gross")],
        3,
        lowest=True,
    )
    by_segment = sorted(SEGMENTS, key=lambda s: -o.segment_revenue(s))
    frequent, frequent_related = _ranking(
        "top 5 customers by orders",
        "customer",
        [{str(c.customer_id): float(c.orders) for c in o.customers.values()}],
        5,
    )
    year = rng.choice(o.years(min_months=6) or o.years())
    best, best_related = _ranking(
        f"top 5 products by revenue in {year}",
        "product",
        _product_scores(o, "net", start=_year_span(year)[0], end=_year_span(year)[1]),
        5,
    )
    return "Rankings", [
        Turn("Top 5 countries by number of orders?", "ranking", (most_orders,), related=most_orders_related),
        Turn("Which 3 countries bring in the least revenue?", "ranking", (least,), related=least_related),
        Turn(
            "Rank the customer segments by revenue, biggest first.",
            "ranking",
            (Ranked("segments by revenue", "segment", tuple(by_segment)),),
        ),
        Turn(
            "Who are our 5 most frequent customers by number of orders?",
            "ranking",
            (frequent,),
            related=frequent_related,
        ),
        Turn(
            f"Which 5 products brought in the most revenue in {year}?",
            "ranking",
            (best,),
            related=best_related,
        ),
    ]


# ------------------------------------------------------------------------------------ follow-up


def _two_countries(o: Oracle, rng: random.Random) -> tuple[str, str]:
    countries = _trading_countries(o)
    pool = countries[1:8] if len(countries) > 2 else countries
    first, second = rng.sample(pool, 2) if len(pool) >= 2 else (pool[0], pool[0])
    return first, second


def _chat_follow_country(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    first, second = _two_countries(o, rng)
    year = rng.choice(o.years(min_months=6) or o.years())
    span = _year_span(year)
    a, b = o.totals(*span, country=first), o.totals(*span, country=second)
    return "Country revenue, then another country", [
        Turn(
            f"What was our revenue in {_say(first)} in {year}?",
            "filter",
            (Num(f"revenue from {first} in {year}", a.money, unit=_MONEY),),
        ),
        Turn(
            f"and in {_say(second)}?",
            "follow_up",
            (Num(f"revenue from {second} in {year}", b.money, unit=_MONEY),),
            needs_previous=True,
        ),
        Turn(
            "how many orders was that?",
            "follow_up",
            (Num(f"orders from {second} in {year}", (b.orders,), unit=_ORDERS),),
            needs_previous=True,
        ),
    ]


def _chat_follow_month(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    months = _months_with_year_before(o)
    if not months:  # nothing a year earlier: no chat on this dataset
        return "A month, then the year before", []
    month = rng.choice(months)
    now, before = o.months[month], o.months[_year_before(month)]
    return "A month, then the year before", [
        Turn(
            f"What was revenue in {month_name(month)}?",
            "trend",
            (Num(f"revenue in {month}", (now.revenue, now.gross), unit=_MONEY),),
        ),
        Turn(
            "what about the year before?",
            "follow_up",
            (Num(f"revenue in {_year_before(month)}", (before.revenue, before.gross), unit=_MONEY),),
            needs_previous=True,
        ),
        Turn(
            "How many orders was that?",
            "follow_up",
            (Num(f"orders in {_year_before(month)}", (before.orders,), unit=_ORDERS),),
            needs_previous=True,
        ),
    ]


def _chat_follow_customer(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    first, _ = _two_countries(o, rng)
    ranked = o.top_customers(first)
    if not ranked:
        return "A country's top customer", []
    top = ranked[0]
    return "A country's top customer", [
        Turn(
            f"Who's our top customer in {_say(first)}?",
            "top_n",
            (_customer_list(f"top customer in {first}", [c.customer_id for c in ranked], 1),),
            related=_related("customer", [c.customer_id for c in ranked]),
        ),
        Turn(
            "How much have they spent in total?",
            "follow_up",
            (Num(f"net revenue of {top.customer_id}", (top.revenue,), unit=_MONEY),),
            needs_previous=True,
        ),
        Turn(
            "When did they last order?",
            "follow_up",
            (Names(f"last purchase of {top.customer_id}", "date", (top.last_day.isoformat(),)),),
            needs_previous=True,
        ),
    ]


def _chat_follow_product(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    _, country = _two_countries(o, rng)
    by_units, units_related = _ranking(
        f"best seller by units in {country}",
        "product",
        [*_product_scores(o, "units_sold", country=country), *_product_scores(o, "units", country=country)],
        1,
    )
    by_revenue, revenue_related = _ranking(
        f"best seller by revenue in {country}",
        "product",
        [*_product_scores(o, "net", country=country), *_product_scores(o, "gross", country=country)],
        1,
    )
    return "A country's best seller", [
        Turn(
            f"What's the best-selling product in {_say(country)} by units?",
            "top_n",
            (by_units,),
            related=units_related,
        ),
        Turn("And by revenue?", "follow_up", (by_revenue,), needs_previous=True, related=revenue_related),
    ]


def _chat_follow_segment(o: Oracle, rng: random.Random) -> tuple[str, list[Turn | None]]:
    first, second = _two_countries(o, rng)
    return "Segments in two countries", [
        Turn(
            f"How many At Risk customers do we have in {_say(first)}?",
            "filter",
            (Num(f"At Risk customers in {first}", (len(o.in_segment("At Risk", first)),), unit=_CUSTOMERS),),
        ),
        Turn(
            "and how many are High Value?",
            "follow_up",
            (
                Num(
                    f"High Value customers in {first}",
                    (len(o.in_segment("High Value", first)),),
                    unit=_CUSTOMERS,
                ),
            ),
            needs_previous=True,
        ),
        Turn(
            f"What about {_say(second)}?",
            "follow_up",
            (
                Num(
                    f"High Value customers in {second}",
                    (len(o.in_segment("High Value", second)),),
                    unit=_CUSTOMERS,
                ),
            ),
            needs_previous=True,
        ),
    ]
