"""The question bank of ``bench/eval_assistant.py``: ground truth by our own SQL, and the chats.

Nothing here is typed-in truth. :class:`Oracle` reads the retail SQLite file with its own queries
(it never calls ``agent_orchestrator.retail.queries``) and re-derives every customer's segment from the
documented rules (At Risk: no purchase in the last 90 days; New: one order; High Value: a repeat buyer
whose net spend is above the 80th-percentile cut; Regular: the rest), so the eval is an oracle for the
app rather than a copy of it. :func:`build_chats` picks the parameters from the data with a seeded RNG
(a real At Risk customer in Germany, the real top customer, a month that exists, a product name that
does not) and writes each question with the checks its answer must pass.

The checks are plain data (:class:`Num`, :class:`Names`, ...); ``eval_assistant.py`` interprets them.
"""

from __future__ import annotations

import calendar
import math
import random
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
UNKNOWN_CUSTOMER_ID = 99_999_999


# --------------------------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class Num:
    """A figure that must appear: any one of ``values`` (e.g. net or gross revenue), matched with the
    precision the answer shows (see ``eval_assistant``). ``percent``: a share 0-1 shown as % or 0.xx."""

    label: str
    values: tuple[float, ...]
    percent: bool = False


@dataclass(frozen=True)
class Nums:
    """At least ``need`` of these figures must appear; each figure is any one of its values."""

    label: str
    figures: tuple[tuple[float, ...], ...]
    need: int


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


Check = Num | Nums | Names | AnyOf | OnlySegments | IdsIn | YesNo | NotFound


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


@dataclass(frozen=True)
class Chat:
    title: str
    turns: tuple[Turn, ...]


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
        ranked = sorted(self.product_units.values(), key=lambda p: (-p[1 + net], p[0]))
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
        )
        for c in customers.values():
            c.segment = oracle.classify(c.orders, c.recency, c.revenue)
        stored = dict(conn.execute("SELECT customer_id, segment FROM customer_stats").fetchall())
    oracle.stored_segment_mismatches = sum(stored.get(c.customer_id) != c.segment for c in customers.values())
    return oracle


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


def _quarter(rng: random.Random, oracle: Oracle) -> tuple[str, date, date]:
    """A full calendar quarter inside the data: ('Q3 2025', first day, last day)."""
    quarters = []
    for year in range(oracle.first_day.year, oracle.as_of.year + 1):
        for q in range(4):
            start = date(year, 3 * q + 1, 1)
            end = date(year + (q == 3), (3 * q + 3) % 12 + 1, 1) - timedelta(days=1)
            if start >= oracle.first_day and end <= oracle.as_of:
                quarters.append((f"Q{q + 1} {year}", start, end))
    return rng.choice(quarters)


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
                "Who is our top customer by revenue?", "top_n", (_customer_list("top customer", ranked, 1),)
            ),
            Turn("List our top 5 customers by net revenue.", "top_n", (_customer_list("top 5", ranked, 5),)),
            Turn(
                "Who are the three biggest spenders among the At Risk customers?",
                "top_n",
                (_customer_list("top 3 At Risk", at_risk, 3),),
            ),
        ),
    )


def _chat_germany_desk(o: Oracle, rng: random.Random) -> Chat:
    unknown = rng.choice([c for c in UNKNOWN_COUNTRY_CHOICES if c not in o.countries])
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
            ),
            Turn(
                "Which one comes second?",
                "follow_up",
                (Names("second country by revenue", "country", (ranked[1],)),),
                needs_previous=True,
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
            ),
            Turn(
                "Best selling products in France?",
                "top_n",
                (_product_list("best sellers in France", france, 3),),
            ),
            Turn(
                "Which product brought in the most revenue overall?",
                "top_n",
                (_product_list("top product by revenue", [by_revenue], 1),),
            ),
            Turn(
                f"How many units of {product} have we sold in total?",
                "aggregate",
                (Num(f"units of {product}", o.units_of(product)),),
            ),
            Turn(f"How is the {fake} selling?", "unknown", (NotFound(fake),)),
        ),
    )


def _chat_monthly_trend(o: Oracle, rng: random.Random) -> Chat:
    last6 = o.last_months(6)
    best = max(last6, key=lambda m: o.months[m].revenue)
    candidates = [m for m in o.month_keys() if _year_before(m) in o.months and m != o.last_months(1)[0]]
    month = rng.choice(candidates)
    return Chat(
        "Monthly trend",
        (
            Turn(
                "Show me the monthly revenue for the last 6 months.",
                "trend",
                (
                    Nums(
                        "3 of the 6 monthly revenues",
                        tuple((o.months[m].revenue, o.months[m].gross) for m in last6),
                        need=3,
                    ),
                ),
            ),
            Turn(
                "Which of those months was the strongest?",
                "follow_up",
                (Names("best month of the last 6", "month", (best,)),),
                needs_previous=True,
            ),
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
        ),
    )


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
    country = rng.choice([c for c in UNKNOWN_COUNTRY_CHOICES if c not in o.countries])
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
    country = rng.choice(["Germany", "France", "Netherlands", "Ireland", "Spain"])
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
            ),
            Turn(
                "And in Spain?",
                "follow_up",
                (_customer_list("top customer in Spain", es, 1),),
                needs_previous=True,
            ),
            Turn(
                "Top 3 High Value customers in the United Kingdom?",
                "top_n",
                (_customer_list("top 3 High Value in the UK", uk_hv, 3),),
            ),
        ),
    )


def count_categories(chats: list[Chat]) -> Counter[str]:
    return Counter(t.category for chat in chats for t in chat.turns if t.category)
