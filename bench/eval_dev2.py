"""The DEV2 question bank of the retail-analytics assistant: the app MAY be tuned on it.

This bank is *not* held out. It is a third, differently written set of analyst questions for whoever
improves the app to work against without touching the held-out bank (``bench/eval_heldout.py``),
which must stay unseen. Tuning on this file is allowed; copying its questions into the held-out bank
is not, and a result here says nothing about generalisation.

It was written blind: its author did not read the app's code (``src/``), its tests (``tests/``), or
the questions of the tuned bank (``bench/eval_assistant_questions.py``), of the dev bank
(``bench/eval_dev.py``) or of the held-out bank, only the user documentation (``README.md``), the
documented definitions of ``docs/architecture.md`` ("Answers by construction"), the held-out and
dev banks' module docstrings (rules and definitions), the check dataclasses (``Num``, ``Nums``,
``Names``, ``AnyOf``, ``Ranked``, ``NotFound``, ``CannotAnswer``, ``Turn``, ``Chat`` and
``unit_of``), which it imports so that ``eval_assistant.py`` can score it (reported as
``dev2:<category>``; ``--bank dev2`` or ``--bank all``), and the SQLite schema.

Nothing here is typed-in truth: :func:`build_dev2_chats` picks its entities from the database with
``random.Random(seed)`` (countries, months, quarters, days that have sales, products by their stored
description, customers, segments) and computes every truth with its own SQL at build time, so it
works on the generated shop and on an imported file such as the UCI "Online Retail" one (13 months,
the last one held only in part); a question the data cannot support (no full year before the latest
one, no product that sold in every month) is left out there.

Definitions (those the app documents): revenue is ``SUM(amount)`` over every line in scope,
cancellations included (net; gross, the non-cancellation lines only, is accepted too where a
question does not say); orders are distinct invoices of non-cancellation lines; customers/buyers
distinct customer ids of non-cancellation lines (for all time, any customer with a line is accepted
too); units ``SUM(quantity)`` (net; gross accepted); average order value is revenue / orders; a share
is part / total of the same scope and period; a segment is the customers currently in it
(``customer_stats.segment``); a country is the country on the invoice line. A minimum accepts every
tied entity, and over a period the data holds only in part (the UCI file's last December) both the
partial month and the weakest full one; a "quietest day" accepts a calendar day without any sale
as well as the weakest trading day.

Categories, weighted toward where assistants fail: share, minimum, exclusion, follow_up (chats of 3-7
turns that refer back: another country, another period, another measure, "which of those", "the
second one", "its share", pronouns), comparison, paraphrase (typos, lower case, terse, chatty,
jargon) and unanswerable (profit, stock, weather, forecasts, reasons, a country or product the data
does not hold). Some chats put unrelated questions one after the other (each its own block), so an
entity of an earlier answer is a foreign entity in the next one.

Run ``python bench/eval_dev2.py [DB] [SEED]`` to print every question with its checks.
"""

from __future__ import annotations

import calendar
import random
import re
import sqlite3
import sys
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_assistant_questions import (
    UNKNOWN_COUNTRY_CHOICES,
    AnyOf,
    CannotAnswer,
    Chat,
    Check,
    Names,
    NotFound,
    Num,
    Nums,
    Ranked,
    Turn,
    _not_in_data,
)

SEGMENTS = ("High Value", "Regular", "At Risk", "New")
UK = "United Kingdom"
WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")  # %w order
FAKE_PRODUCTS = ("wireless gaming headset", "yoga mat", "electric scooter", "espresso machine")
EPS = 0.005


# --------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class Scope:
    """What a figure is computed over; ``end`` is exclusive (``YYYY-MM-DD``)."""

    start: str | None = None
    end: str | None = None
    countries: tuple[str, ...] = ()
    not_countries: tuple[str, ...] = ()
    segments: tuple[str, ...] = ()
    not_segments: tuple[str, ...] = ()
    codes: tuple[str, ...] = ()
    not_codes: tuple[str, ...] = ()
    customer: int | None = None
    not_customer: int | None = None


@dataclass(frozen=True)
class Fig:
    net: float = 0.0
    gross: float = 0.0
    orders: int = 0
    customers: int = 0
    customers_any: int = 0
    units: int = 0
    units_gross: int = 0

    def money(self) -> tuple[float, ...]:
        return uniq(self.net, self.gross)

    def aov(self) -> tuple[float, ...]:
        if not self.orders:
            return ()
        return uniq(self.net / self.orders, self.gross / self.orders)

    def per_customer(self) -> tuple[float, ...]:
        if not self.customers:
            return ()
        return uniq(self.net / self.customers, self.gross / self.customers)

    def unit_vals(self) -> tuple[float, ...]:
        return uniq(self.units, self.units_gross)

    def customer_vals(self, all_time: bool = False) -> tuple[float, ...]:
        return uniq(self.customers, self.customers_any) if all_time else (float(self.customers),)

    def get(self, measure: str) -> tuple[float, ...]:
        return {
            "revenue": self.money,
            "orders": lambda: (float(self.orders),),
            "customers": self.customer_vals,
            "units": self.unit_vals,
            "aov": self.aov,
        }[measure]()

    def key(self, measure: str, gross: bool = False) -> float:
        """One figure of ``measure`` to rank by (net, or gross)."""
        return {
            "revenue": self.gross if gross else self.net,
            "orders": float(self.orders),
            "customers": float(self.customers),
            "units": float(self.units_gross if gross else self.units),
            "aov": ((self.gross if gross else self.net) / self.orders) if self.orders else 0.0,
        }[measure]


def uniq(*values: float) -> tuple[float, ...]:
    out: list[float] = []
    for v in values:
        v = round(float(v), 6)
        if all(abs(v - o) > 1e-9 for o in out):
            out.append(v)
    return tuple(out)


def share_vals(part: Fig, whole: Fig, measure: str) -> tuple[float, ...]:
    if measure == "revenue":
        pairs = [(part.net, whole.net), (part.gross, whole.gross)]
    elif measure == "orders":
        pairs = [(part.orders, whole.orders)]
    elif measure == "customers":
        pairs = [(part.customers, whole.customers), (part.customers_any, whole.customers_any)]
    else:
        pairs = [(part.units, whole.units), (part.units_gross, whole.units_gross)]
    return uniq(*(p / w for p, w in pairs if w))


def change_vals(a: Fig, b: Fig, measure: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Differences b - a (and their absolute values) and relative changes, net and gross."""
    pairs = list(zip(a.get(measure), b.get(measure), strict=False))
    if measure in ("revenue", "units", "aov"):
        pairs = [(a.key(measure), b.key(measure)), (a.key(measure, True), b.key(measure, True))]
    diffs = uniq(*(y - x for x, y in pairs), *(abs(y - x) for x, y in pairs))
    rel = uniq(*((y - x) / x for x, y in pairs if x), *(abs(y - x) / abs(x) for x, y in pairs if x))
    return diffs, rel


_SELECT = (
    "SUM(t.amount), SUM(CASE WHEN t.is_cancellation = 0 THEN t.amount ELSE 0 END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END), "
    "COUNT(DISTINCT t.customer_id), SUM(t.quantity), "
    "SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity ELSE 0 END)"
)
_KEYS = {
    "country": "t.country",
    "month": "substr(t.invoiced_at, 1, 7)",
    "day": "substr(t.invoiced_at, 1, 10)",
    "year": "substr(t.invoiced_at, 1, 4)",
    "segment": "s.segment",
    "customer": "t.customer_id",
    "product": "t.stock_code",
    "weekday": "CAST(strftime('%w', t.invoiced_at) AS INTEGER)",
    "quarter": (
        "substr(t.invoiced_at, 1, 4) || '-Q' || ((CAST(substr(t.invoiced_at, 6, 2) AS INTEGER) + 2) / 3)"
    ),
}


def _fig(row: tuple) -> Fig:
    net, gross, orders, customers, any_c, units, units_g = row
    return Fig(
        round(net or 0.0, 2),
        round(gross or 0.0, 2),
        orders or 0,
        customers or 0,
        any_c or 0,
        units or 0,
        units_g or 0,
    )


class Data:
    """Our own SQL over the retail schema (never the app's queries)."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._cache: dict[tuple, object] = {}
        first, last = conn.execute("SELECT MIN(invoiced_at), MAX(invoiced_at) FROM transactions").fetchone()
        self.first_day = date.fromisoformat(first[:10])
        self.last_day = date.fromisoformat(last[:10])
        self.months = [
            r[0]
            for r in conn.execute("SELECT DISTINCT substr(invoiced_at, 1, 7) FROM transactions ORDER BY 1")
        ]
        self.full_months = [m for m in self.months if self.month_is_full(m)]
        self.years = sorted({int(m[:4]) for m in self.months})
        self.full_years = [
            y for y in self.years if all(f"{y}-{i:02d}" in self.full_months for i in range(1, 13))
        ]
        self.countries = dict(
            conn.execute(
                "SELECT country, COUNT(DISTINCT customer_id) FROM transactions GROUP BY country"
            ).fetchall()
        )
        names: dict[str, int] = Counter()
        for (desc,) in conn.execute("SELECT description FROM products"):
            names[desc.strip().upper()] += 1
        for _code, desc in conn.execute("SELECT stock_code, description FROM product_names"):
            names[desc.strip().upper()] += 0  # present
        multi = {
            c
            for (c,) in conn.execute(
                "SELECT stock_code FROM product_names GROUP BY stock_code HAVING COUNT(*) > 1"
            )
        }
        other = Counter(
            d.strip().upper()
            for _c, d in conn.execute(
                "SELECT pn.stock_code, pn.description FROM product_names pn "
                "JOIN products p USING (stock_code) "
                "WHERE upper(trim(pn.description)) <> upper(trim(p.description))"
            )
        )
        self.desc = dict(conn.execute("SELECT stock_code, description FROM products").fetchall())
        self.clean_codes = {
            code
            for code, d in self.desc.items()
            if names[d.strip().upper()] == 1
            and code not in multi
            and d.strip().upper() not in other
            and code[:1].isdigit()
            and len(d.split()) >= 2
        }
        self.all_desc_upper = [d.upper() for d in self.desc.values()]

    def month_is_full(self, month: str) -> bool:
        y, m = int(month[:4]), int(month[5:])
        return date(y, m, 1) >= self.first_day and date(y, m, calendar.monthrange(y, m)[1]) <= self.last_day

    def _where(self, sc: Scope, null_segment_in: bool = True) -> tuple[str, list]:
        conds: list[str] = []
        params: list = []

        def many(col: str, vals: tuple, neg: bool) -> None:
            marks = ", ".join("?" * len(vals))
            conds.append(f"{col} {'NOT IN' if neg else 'IN'} ({marks})")
            params.extend(vals)

        if sc.start:
            conds.append("t.invoiced_at >= ?")
            params.append(sc.start)
        if sc.end:
            conds.append("t.invoiced_at < ?")
            params.append(sc.end)
        if sc.countries:
            many("t.country", sc.countries, False)
        if sc.not_countries:
            many("t.country", sc.not_countries, True)
        if sc.segments:
            many("s.segment", sc.segments, False)
        if sc.not_segments:
            marks = ", ".join("?" * len(sc.not_segments))
            nul = "s.segment IS NULL OR " if null_segment_in else "s.segment IS NOT NULL AND "
            conds.append(f"({nul}s.segment NOT IN ({marks}))")
            params.extend(sc.not_segments)
        if sc.codes:
            many("t.stock_code", sc.codes, False)
        if sc.not_codes:
            many("t.stock_code", sc.not_codes, True)
        if sc.customer is not None:
            conds.append("t.customer_id = ?")
            params.append(sc.customer)
        if sc.not_customer is not None:
            conds.append("t.customer_id <> ?")
            params.append(sc.not_customer)
        return (" WHERE " + " AND ".join(conds)) if conds else "", params

    def fig(self, sc: Scope = Scope(), null_segment_in: bool = True) -> Fig:
        key = ("fig", sc, null_segment_in)
        if key not in self._cache:
            where, params = self._where(sc, null_segment_in)
            sql = (
                f"SELECT {_SELECT} FROM transactions t LEFT JOIN customer_stats s USING (customer_id){where}"
            )
            self._cache[key] = _fig(self.conn.execute(sql, params).fetchone())
        return self._cache[key]  # type: ignore[return-value]

    def group(self, by: str, sc: Scope = Scope()) -> dict:
        key = ("group", by, sc)
        if key not in self._cache:
            where, params = self._where(sc)
            expr = _KEYS[by]
            sql = (
                f"SELECT {expr}, {_SELECT} FROM transactions t LEFT JOIN customer_stats s USING (customer_id)"
                f"{where} GROUP BY 1"
            )
            self._cache[key] = {r[0]: _fig(r[1:]) for r in self.conn.execute(sql, params) if r[0] is not None}
        return self._cache[key]  # type: ignore[return-value]

    def scalar(self, sql: str, *params: object) -> object:
        return self.conn.execute(sql, params).fetchone()[0]

    def rows(self, sql: str, *params: object) -> list[tuple]:
        return self.conn.execute(sql, params).fetchall()


# --------------------------------------------------------------------------------------------- periods


def month_scope(month: str, **kw: object) -> Scope:
    y, m = int(month[:4]), int(month[5:])
    end = f"{y + 1}-01-01" if m == 12 else f"{y}-{m + 1:02d}-01"
    return Scope(start=f"{month}-01", end=end, **kw)  # type: ignore[arg-type]


def year_scope(year: int, **kw: object) -> Scope:
    return Scope(start=f"{year}-01-01", end=f"{year + 1}-01-01", **kw)  # type: ignore[arg-type]


def quarter_scope(year: int, q: int, **kw: object) -> Scope:
    start = f"{year}-{3 * q - 2:02d}-01"
    end = f"{year + 1}-01-01" if q == 4 else f"{year}-{3 * q + 1:02d}-01"
    return Scope(start=start, end=end, **kw)  # type: ignore[arg-type]


def day_scope(day: str, **kw: object) -> Scope:
    nxt = (date.fromisoformat(day) + timedelta(days=1)).isoformat()
    return Scope(start=day, end=nxt, **kw)  # type: ignore[arg-type]


def with_(sc: Scope, **kw: object) -> Scope:
    return replace(sc, **kw)  # type: ignore[arg-type]


def month_name(month: str) -> str:
    return f"{calendar.month_name[int(month[5:])]} {month[:4]}"


def short_month(month: str) -> str:
    return calendar.month_abbr[int(month[5:])].lower()


def prev_month(month: str) -> str:
    y, m = int(month[:4]), int(month[5:])
    return f"{y - 1}-12" if m == 1 else f"{y}-{m - 1:02d}"


def day_name(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.day} {calendar.month_name[d.month]} {d.year}"


_THE = re.compile(
    r"(?<![Tt]he )\b(Netherlands|United States|USA|Czech Republic|United Arab Emirates|Channel Islands)\b"
)


def english(text: str) -> str:
    """Country names as written in English ("the Netherlands"), "Netherlands'" for the possessive."""
    text = _THE.sub(lambda m: ("The " if m.start() == 0 else "the ") + m.group(1), text)
    return re.sub(r"\b(\w+s)'s\b", r"\1'", text)


def money(v: float) -> str:
    return f"{v:,.2f}"


# --------------------------------------------------------------------------------------------- extremes


def extremes(groups: dict, measure: str, lowest: bool) -> list:
    """The keys at the extreme of ``measure`` on net or gross figures, ties included."""
    found: list = []
    for gross in (False, True):
        vals = {k: f.key(measure, gross) for k, f in groups.items()}
        if not vals:
            continue
        best = min(vals.values()) if lowest else max(vals.values())
        for k, v in vals.items():
            if abs(v - best) < EPS and k not in found:
                found.append(k)
    return found


def ranking(groups: dict, measure: str, lowest: bool = False, gross: bool = False) -> list:
    return sorted(groups, key=lambda k: groups[k].key(measure, gross), reverse=not lowest)


# --------------------------------------------------------------------------------------------- the bank


@dataclass
class Dev2Bank:
    data: Data
    seed: int
    chats: list[Chat] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        d = self.data
        self.Y = d.years[-1] if any(m.startswith(str(d.years[-1])) for m in d.full_months) else d.years[-2]
        self.PY = self.Y - 1 if self.Y - 1 in d.full_years else None
        self.y_months = [m for m in d.full_months if m.startswith(str(self.Y))]
        self.partial_months = [m for m in d.months if m not in d.full_months]
        self.uk = UK if UK in d.countries else max(d.countries, key=lambda c: d.countries[c])
        big = sorted((c for c in d.countries if c != self.uk), key=lambda c: -d.countries[c])
        self.big = [c for c in big if d.group("country", year_scope(self.Y)).get(c)][:10]
        self.rng.shuffle(self.big)
        by_orders = d.group("country", year_scope(self.Y))
        self.major = [c for c in ranking(by_orders, "orders") if c != self.uk][:4]  # busy enough to compare
        ys = year_scope(self.Y)
        prods = d.group("product", ys)
        top = [c for c in ranking(prods, "revenue", gross=True) if c in d.clean_codes][:60]
        self.products = self.rng.sample(top, 12)

    # ---------------------------------------------------------------------------------------- helpers

    def add(self, title: str, *turns: Turn, blocks: tuple[int, ...] = ()) -> None:
        self.chats.append(Chat(title, tuple(replace(t, text=english(t.text)) for t in turns), blocks))

    def pname(self, code: str, lower: bool = False) -> str:
        desc = self.data.desc[code].strip()
        return desc.lower() if lower else desc

    def country_of_quarters(self) -> list[tuple[int, int]]:
        return [(self.Y, q) for q in range(1, 5) if f"{self.Y}-{3 * q - 2:02d}" in self.data.months]

    def months_pair(self) -> tuple[str, str]:
        a, b = sorted(self.rng.sample(self.y_months, 2))
        return a, b

    def cust_pick(self, country: str | None = None, min_orders: int = 3) -> int:
        sql = "SELECT customer_id FROM customer_stats WHERE orders >= ?"
        args: list = [min_orders]
        if country:
            sql += " AND country = ?"
            args.append(country)
        ids = [r[0] for r in self.data.rows(sql + " ORDER BY customer_id", *args)]
        return self.rng.choice(ids)

    # ---------------------------------------------------------------------------------------- share

    def share(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        c1, c2, c3, c4, c5 = self.big[:5]
        ys = year_scope(Y)
        allf = d.fig()
        m1, m2 = rng.sample(self.y_months, 2)
        new_months = [
            m
            for m in self.y_months
            if d.fig(month_scope(m, segments=("New",))).orders >= 0.02 * d.fig(month_scope(m)).orders
        ]
        m3 = rng.choice(new_months or self.y_months)
        T = "share"

        def sh(text: str, label: str, part: Fig, whole: Fig, measure: str = "revenue", **kw: object) -> Turn:
            return Turn(text, T, (Num(label, share_vals(part, whole, measure), percent=True),), **kw)

        turns = [
            sh(
                f"What share of our total revenue comes from {c1}?",
                f"{c1} share of revenue",
                d.fig(Scope(countries=(c1,))),
                allf,
            ),
            sh(
                f"what % of {Y} sales were made in the UK",
                f"UK share of {Y} revenue",
                d.fig(with_(ys, countries=(self.uk,))),
                d.fig(ys),
            ),
            sh(
                f"How much of {month_name(m1)}'s revenue came from {c2}, as a percentage?",
                f"{c2} share of {m1} revenue",
                d.fig(month_scope(m1, countries=(c2,))),
                d.fig(month_scope(m1)),
            ),
            sh(
                "What percentage of revenue do our High Value customers account for?",
                "High Value share of revenue",
                d.fig(Scope(segments=("High Value",))),
                allf,
            ),
            sh(
                f"Roughly what fraction of the orders in {Y} were from {c3}?",
                f"{c3} share of {Y} orders",
                d.fig(with_(ys, countries=(c3,))),
                d.fig(ys),
                "orders",
            ),
            sh(
                f"{c1}'s share of units sold in {month_name(m2)}?",
                f"{c1} share of {m2} units",
                d.fig(month_scope(m2, countries=(c1,))),
                d.fig(month_scope(m2)),
                "units",
            ),
            sh(
                "What percentage of revenue came from outside the UK?",
                "non-UK share of revenue",
                d.fig(Scope(not_countries=(self.uk,))),
                allf,
            ),
            sh(
                f"In {Y}, what share of units went to Regular customers?",
                f"Regular share of {Y} units",
                d.fig(with_(ys, segments=("Regular",))),
                d.fig(ys),
                "units",
            ),
            sh(
                f"What portion of the {month_name(m3)} orders were placed by New customers?",
                f"New share of {m3} orders",
                d.fig(month_scope(m3, segments=("New",))),
                d.fig(month_scope(m3)),
                "orders",
            ),
            sh(
                "How big a slice of all orders does the Regular segment account for?",
                "Regular share of orders",
                d.fig(Scope(segments=("Regular",))),
                allf,
                "orders",
            ),
            sh(
                f"Of everything we sold in {Y}, what share came from customers outside the High Value "
                "segment?",
                f"non-High Value share of {Y} revenue",
                d.fig(with_(ys, not_segments=("High Value",))),
                d.fig(ys),
            ),
            sh(
                f"share of {month_name(m1)} buyers who were in {c4}",
                f"{c4} share of {m1} customers",
                d.fig(month_scope(m1, countries=(c4,))),
                d.fig(month_scope(m1)),
                "customers",
            ),
        ]
        # a month's and a quarter's share of the year
        last = self.y_months[-1]
        turns.append(
            sh(
                f"What share of {Y}'s revenue was made in {calendar.month_name[int(last[5:])]}?",
                f"{last} share of {Y} revenue",
                d.fig(month_scope(last)),
                d.fig(ys),
            )
        )
        qs = self.country_of_quarters()
        q = rng.choice(qs)
        turns.append(
            sh(
                f"Q{q[1]} {Y} as a percentage of the full year's revenue?",
                f"Q{q[1]} share of {Y} revenue",
                d.fig(quarter_scope(*q)),
                d.fig(ys),
            )
        )
        turns.append(
            sh(
                f"How much of {Y}'s revenue was made in the first half of the year (share)?",
                f"H1 share of {Y} revenue",
                d.fig(Scope(start=f"{Y}-01-01", end=f"{Y}-07-01")),
                d.fig(ys),
            )
        )
        # combined countries
        turns.append(
            sh(
                f"Together, what share of {Y} revenue did {c1} and {c2} make up?",
                f"{c1}+{c2} share of {Y} revenue",
                d.fig(with_(ys, countries=(c1, c2))),
                d.fig(ys),
            )
        )
        # segment share of customers
        seg = rng.choice(("At Risk", "New"))
        n_seg = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE segment = ?", seg)
        n_all = d.scalar("SELECT COUNT(*) FROM customer_stats")
        turns.append(
            Turn(
                f"What percentage of our customers are currently {seg}?",
                T,
                (
                    Num(
                        f"{seg} share of customers",
                        uniq(n_seg / n_all, n_seg / allf.customers_any, n_seg / allf.customers),
                        percent=True,
                    ),
                ),
            )
        )
        # a segment's share of a country's customers
        cs = self.big[5] if len(self.big) > 5 else c5
        n_c = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE country = ?", cs)
        n_chv = d.scalar(
            "SELECT COUNT(*) FROM customer_stats WHERE country = ? AND segment = 'High Value'", cs
        )
        tx_c = d.fig(Scope(countries=(cs,)))
        turns.append(
            Turn(
                f"Of the customers in {cs}, what share are High Value?",
                T,
                (
                    Num(
                        f"High Value share of {cs} customers",
                        uniq(*(n_chv / n for n in (n_c, tx_c.customers, tx_c.customers_any) if n)),
                        percent=True,
                    ),
                ),
            )
        )
        # country share of customers
        n_cc = d.scalar("SELECT COUNT(*) FROM customers WHERE country = ?", c3)
        n_cust = d.scalar("SELECT COUNT(*) FROM customers")
        f3 = d.fig(Scope(countries=(c3,)))
        turns.append(
            Turn(
                f"what percentage of our customer base is in {c3}?",
                T,
                (
                    Num(
                        f"{c3} share of customers",
                        uniq(
                            n_cc / n_cust,
                            f3.customers / allf.customers,
                            f3.customers_any / allf.customers_any,
                            n_cc / allf.customers_any,
                        ),
                        percent=True,
                    ),
                ),
            )
        )
        # top 10 customers' share
        cust = d.group("customer")
        parts = []
        for gross in (False, True):
            top10 = ranking(cust, "revenue", gross=gross)[:10]
            parts.append(
                sum(cust[c].key("revenue", gross) for c in top10) / (allf.gross if gross else allf.net)
            )
        turns.append(
            Turn(
                "How concentrated are we? What share of revenue comes from our ten biggest customers?",
                T,
                (Num("top 10 customers share of revenue", uniq(*parts), percent=True),),
            )
        )
        # biggest customer's share of a country
        cc = d.group("customer", Scope(countries=(c5,)))
        fc5 = d.fig(Scope(countries=(c5,)))
        vals = uniq(
            *(
                cc[ranking(cc, "revenue", gross=g)[0]].key("revenue", g) / (fc5.gross if g else fc5.net)
                for g in (False, True)
            )
        )
        top_c = ranking(cc, "revenue")[0]
        turns.append(
            Turn(
                f"What share of {c5}'s revenue comes from its single largest customer?",
                T,
                (Num(f"top customer share of {c5} revenue", vals, percent=True),),
                related=(("customer", str(top_c)), ("country", c5)),
            )
        )
        # a customer's share of its country's revenue
        cid = self.cust_pick(c1)
        fcu = d.fig(Scope(countries=(c1,), customer=cid))
        turns.append(
            sh(
                f"customer {cid}: what % of {c1}'s revenue is theirs?",
                f"{cid} share of {c1} revenue",
                fcu,
                d.fig(Scope(countries=(c1,))),
            )
        )
        # a product's share of the year
        p = self.products[0]
        turns.append(
            sh(
                f"What share of {Y} revenue did '{self.pname(p)}' bring in?",
                f"product share of {Y} revenue",
                d.fig(with_(ys, codes=(p,))),
                d.fig(ys),
            )
        )
        # top 3 countries' share
        cy = d.group("country", ys)
        tops = []
        for g in (False, True):
            t3 = ranking(cy, "revenue", gross=g)[:3]
            tops.append(sum(cy[c].key("revenue", g) for c in t3) / d.fig(ys).key("revenue", g))
        turns.append(
            Turn(
                f"what % of revenue did our top 3 countries account for in {Y}?",
                T,
                (Num(f"top 3 countries share of {Y} revenue", uniq(*tops), percent=True),),
                related=tuple(("country", c) for c in ranking(cy, "revenue")[:5]),
            )
        )
        # cancellations' share of gross sales
        fy = d.fig(ys)
        cancelled = fy.gross - fy.net
        turns.append(
            Turn(
                f"What percentage of gross sales in {Y} was lost to cancellations?",
                T,
                (Num(f"cancelled share of {Y} gross revenue", uniq(cancelled / fy.gross), percent=True),),
            )
        )
        # segment share in a month
        seg2 = rng.choice(("High Value", "Regular"))
        turns.append(
            sh(
                f"{seg2} customers' share of revenue in {month_name(m2)}?",
                f"{seg2} share of {m2} revenue",
                d.fig(month_scope(m2, segments=(seg2,))),
                d.fig(month_scope(m2)),
            )
        )
        # share of a country's year in one month
        mq = rng.choice(self.y_months)
        turns.append(
            sh(
                f"How much of {c4}'s {Y} revenue came in {calendar.month_name[int(mq[5:])]}, in percent?",
                f"{mq} share of {c4} {Y} revenue",
                d.fig(month_scope(mq, countries=(c4,))),
                d.fig(with_(ys, countries=(c4,))),
            )
        )
        # a segment's share that comes from the UK
        seg3 = rng.choice(SEGMENTS)
        turns.append(
            sh(
                f"what share of the {seg3} segment's revenue comes from the UK?",
                f"UK share of {seg3} revenue",
                d.fig(Scope(segments=(seg3,), countries=(self.uk,))),
                d.fig(Scope(segments=(seg3,))),
            )
        )
        # two shares at once
        ma, mb = self.months_pair()
        fa = share_vals(d.fig(month_scope(ma, countries=(c2,))), d.fig(month_scope(ma)), "revenue")
        fb = share_vals(d.fig(month_scope(mb, countries=(c2,))), d.fig(month_scope(mb)), "revenue")
        turns.append(
            Turn(
                f"Compare {c2}'s share of revenue in {month_name(ma)} with its share in {month_name(mb)}.",
                T,
                (Num(f"{c2} share {ma}", fa, percent=True), Num(f"{c2} share {mb}", fb, percent=True)),
            )
        )
        # latest quarter (calendar quarter holding the last day, or the last full one)
        lq = (d.last_day.year, (d.last_day.month + 2) // 3)
        prev_q = (lq[0], lq[1] - 1) if lq[1] > 1 else (lq[0] - 1, 4)
        vals = []
        for qq in (lq, prev_q):
            vals.extend(
                share_vals(d.fig(quarter_scope(*qq, countries=(c5,))), d.fig(quarter_scope(*qq)), "revenue")
            )
        turns.append(
            Turn(
                f"what share of revenue did {c5} contribute in the latest quarter?",
                T,
                (Num(f"{c5} share of latest quarter revenue", uniq(*vals), percent=True),),
            )
        )
        for i, t in enumerate(turns):
            self.add(f"share {i + 1}", t)

    # ---------------------------------------------------------------------------------------- minimum

    def minimum(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        ys = year_scope(Y)
        T = "minimum"
        out: list[Turn] = []

        def lowest_names(groups: dict, measure: str, kind: str, label: str, fmt=str, rel: int = 5) -> tuple:
            low = extremes(groups, measure, lowest=True)
            bottom = ranking(groups, measure, lowest=True)[:rel]
            return (Names(label, kind, tuple(fmt(k) for k in low)),), tuple(
                (kind, fmt(k)) for k in bottom + low
            )

        # lowest revenue country, all time
        g = d.group("country")
        ch, rel = lowest_names(g, "revenue", "country", "lowest revenue country")
        out.append(Turn("Which country has brought us the least revenue overall?", T, ch, related=rel))
        # weakest month ever: the partial month or the weakest full month
        gm = d.group("month")
        full = {m: f for m, f in gm.items() if m in d.full_months}
        low = extremes(gm, "revenue", True) + extremes(full, "revenue", True)
        low = list(dict.fromkeys(low))
        out.append(
            Turn(
                "what was our worst month for sales?",
                T,
                (Names("weakest month", "month", tuple(low)),),
                related=tuple(("month", m) for m in ranking(gm, "revenue", True)[:4] + low),
            )
        )
        # fewest orders month in Y
        gy = d.group("month", ys)
        fully = {m: f for m, f in gy.items() if m in d.full_months}
        low = extremes(gy, "orders", True) + extremes(fully, "orders", True)
        out.append(
            Turn(
                f"In {Y}, which month had the fewest orders?",
                T,
                (Names("fewest orders month", "month", tuple(dict.fromkeys(low))),),
                related=tuple(("month", m) for m in gy),
            )
        )
        # quietest day in a month (orders), and the lowest-revenue day in another
        for measure, text in (
            ("orders", "What was the quietest day in {m} by number of orders?"),
            ("revenue", "lowest takings of any day in {m}?"),
        ):
            m = rng.choice(self.y_months)
            gd = d.group("day", month_scope(m))
            low = extremes(gd, measure, True)
            y, mm = int(m[:4]), int(m[5:])
            empty = [
                f"{m}-{i:02d}"
                for i in range(1, calendar.monthrange(y, mm)[1] + 1)
                if f"{m}-{i:02d}" not in gd
            ]
            items = tuple(low + empty)  # a day without any sale is the quietest (and lowest) too
            out.append(
                Turn(
                    text.format(m=month_name(m)),
                    T,
                    (Names(f"{measure} minimum day {m}", "date", items),),
                    related=tuple(("date", x) for x in list(items) + ranking(gd, measure, True)[:5]),
                )
            )
        # segments
        gs = d.group("segment")
        ch, rel = lowest_names(gs, "revenue", "segment", "lowest revenue segment", rel=4)
        out.append(Turn("Which customer segment generates the smallest revenue?", T, ch, related=rel))
        counts = dict(d.rows("SELECT segment, COUNT(*) FROM customer_stats GROUP BY segment"))
        fewest = [s for s, n in counts.items() if n == min(counts.values())]
        out.append(
            Turn(
                "which segment has the fewest customers in it?",
                T,
                (Names("smallest segment", "segment", tuple(fewest)),),
                related=tuple(("segment", s) for s in counts),
            )
        )
        gsy = d.group("segment", ys)
        ch, rel = lowest_names(gsy, "aov", "segment", f"lowest AOV segment {Y}", rel=4)
        out.append(Turn(f"Lowest average order value by segment in {Y}?", T, ch, related=rel))
        # of three named products, the fewest units
        p3 = self.products[1:4]
        gp = {c: d.fig(with_(ys, codes=(c,))) for c in p3}
        low = extremes(gp, "units", True)
        out.append(
            Turn(
                f"Of '{self.pname(p3[0])}', '{self.pname(p3[1])}' and '{self.pname(p3[2])}', which sold the "
                f"fewest units in {Y}?",
                T,
                (Names("fewest units product", "product", tuple(self.pname(c) for c in low)),),
                related=tuple(("product", self.pname(c)) for c in p3),
            )
        )
        # the weakest of the top 10 products of the year
        gpy = d.group("product", ys)
        tenth = [ranking(gpy, "revenue", gross=g)[9] for g in (False, True)]
        rel = tuple(("product", self.pname(c)) for c in ranking(gpy, "revenue")[:12])
        out.append(
            Turn(
                f"Among our ten best-selling products by revenue in {Y}, which one brought in the least?",
                T,
                (Names("10th product", "product", tuple(dict.fromkeys(self.pname(c) for c in tenth))),),
                related=rel,
            )
        )
        # the smallest spender in a small country
        small = [c for c, n in d.countries.items() if 3 <= n <= 15 and c != self.uk]
        if small:
            cs = rng.choice(sorted(small))
            gc = d.group("customer", Scope(countries=(cs,)))
            ch, rel = lowest_names(gc, "revenue", "customer", f"smallest spender in {cs}", rel=len(gc))
            out.append(
                Turn(
                    f"Who's the customer in {cs} that has spent the least with us?",
                    T,
                    ch,
                    related=(*rel, ("country", cs)),
                )
            )
        # fewest customers by country (ties welcome)
        gcn = d.group("country")
        low = extremes(gcn, "customers", True)
        out.append(
            Turn(
                "Which country has the fewest customers?",
                T,
                (Names("fewest customers country", "country", tuple(low)),),
                related=tuple(("country", c) for c in gcn),
            )
        )
        # lowest AOV country in Y
        gcy = d.group("country", ys)
        ch, rel = lowest_names(gcy, "aov", "country", f"lowest AOV country {Y}")
        out.append(Turn(f"which country had the lowest average order value in {Y}?", T, ch, related=rel))
        # a country's weakest month
        c = self.big[0]
        gcm = d.group("month", Scope(countries=(c,)))
        full = {m: f for m, f in gcm.items() if m in d.full_months}
        months_all = {m: gcm.get(m, Fig()) for m in d.months}  # a month without a sale is the weakest too
        low = extremes(months_all, "revenue", True) + extremes(full, "revenue", True)
        out.append(
            Turn(
                f"What was {c}'s weakest month?",
                T,
                (Names(f"{c} weakest month", "month", tuple(dict.fromkeys(low))),),
                related=tuple(("month", m) for m in d.months),
            )
        )
        # fewest buyers month in Y
        low = extremes(fully, "customers", True) + extremes(gy, "customers", True)
        out.append(
            Turn(
                f"In which month of {Y} did the fewest customers buy from us?",
                T,
                (Names("fewest customers month", "month", tuple(dict.fromkeys(low))),),
                related=tuple(("month", m) for m in gy),
            )
        )
        # worst quarter
        gq = d.group("quarter", ys)
        fullq = {k: f for k, f in gq.items() if f"{Y}-{3 * int(k[-1]):02d}" in d.full_months}
        low = extremes(fullq, "revenue", True) + extremes(gq, "revenue", True)
        qtext = tuple(
            dict.fromkeys(
                rf"\bQ{k[-1]}\b|{['first', 'second', 'third', 'fourth'][int(k[-1]) - 1]} quarter" for k in low
            )
        )
        out.append(
            Turn(
                f"worst quarter of {Y} for revenue?", T, (Names("worst quarter", "text", ("|".join(qtext),)),)
            )
        )
        # slowest weekday (a weekday without any sale counts as slowest too)
        gw = d.group("weekday")
        week = {w: gw.get(w, Fig()) for w in range(7)}
        low = extremes(week, "revenue", True) + extremes(gw, "revenue", True)
        out.append(
            Turn(
                "What's our slowest day of the week in terms of revenue?",
                T,
                (Names("slowest weekday", "text", ("|".join(WEEKDAYS[w] for w in dict.fromkeys(low)),)),),
            )
        )
        # three named countries
        c3 = self.big[1:4]
        g3 = {c: d.fig(with_(ys, countries=(c,))) for c in c3}
        low = extremes(g3, "revenue", True)
        out.append(
            Turn(
                f"Which of {c3[0]}, {c3[1]} and {c3[2]} had the lowest sales in {Y}?",
                T,
                (Names("lowest of three countries", "country", tuple(low)),),
                related=tuple(("country", x) for x in c3),
            )
        )
        # a product's weakest month (a product that sold every month of the year)
        for code in self.products[4:]:
            gpm = d.group("month", with_(ys, codes=(code,)))
            if all(m in gpm for m in self.y_months):
                fullp = {m: f for m, f in gpm.items() if m in self.y_months}
                low = extremes(fullp, "units", True) + extremes(gpm, "units", True)
                out.append(
                    Turn(
                        f"in which month of {Y} did we sell the fewest units of {self.pname(code, True)}?",
                        T,
                        (Names("product weakest month", "month", tuple(dict.fromkeys(low))),),
                        related=(*tuple(("month", m) for m in gpm), ("product", self.pname(code))),
                    )
                )
                break
        # fewest orders country in a month (among countries that ordered)
        m = rng.choice(self.y_months)
        gcm = {c: f for c, f in d.group("country", month_scope(m)).items() if f.orders}
        low = extremes(gcm, "orders", True)
        out.append(
            Turn(
                f"Of the countries that ordered in {month_name(m)}, which placed the fewest orders?",
                T,
                (Names(f"fewest orders country {m}", "country", tuple(low)),),
                related=tuple(("country", c) for c in gcm),
            )
        )
        for i, t in enumerate(out):
            self.add(f"minimum {i + 1}", t)

    # ---------------------------------------------------------------------------------------- exclusion

    def exclusion(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        ys = year_scope(Y)
        T = "exclusion"
        c1, c2, c3 = self.big[2:5]
        uk = self.uk
        out: list[Turn] = []

        def num(text: str, label: str, vals: tuple, **kw: object) -> Turn:
            return Turn(text, T, (Num(label, vals),), **kw)

        m1, m2 = rng.sample(self.y_months, 2)
        out.append(
            num(
                "What's our total revenue excluding the UK?",
                "revenue ex-UK",
                d.fig(Scope(not_countries=(uk,))).money(),
            )
        )
        out.append(
            num(
                f"how many orders came from outside the UK in {month_name(m1)}?",
                f"orders non-UK {m1}",
                (d.fig(month_scope(m1, not_countries=(uk,))).orders,),
            )
        )
        out.append(
            num(
                f"How many customers bought from us in {Y} in countries other than the UK and {c1}?",
                f"customers {Y} ex UK and {c1}",
                d.fig(with_(ys, not_countries=(uk, c1))).customer_vals(),
            )
        )
        vals = uniq(
            *d.fig(with_(ys, not_segments=("At Risk",))).money(),
            *d.fig(with_(ys, not_segments=("At Risk",)), null_segment_in=False).money(),
        )
        out.append(num(f"Revenue in {Y} ex-At Risk customers?", f"revenue {Y} excluding At Risk", vals))
        out.append(
            num(
                f"What was the average order value for non-UK orders in {Y}?",
                f"average order value non-UK {Y}",
                d.fig(with_(ys, not_countries=(uk,))).aov(),
            )
        )
        gcy = {c: f for c, f in d.group("country", ys).items() if c != uk}
        tops = extremes(gcy, "revenue", False)
        out.append(
            Turn(
                f"Leaving the UK aside, which country was our biggest market in {Y}?",
                T,
                (Names("top country ex-UK", "country", tuple(tops)),),
                related=tuple(("country", c) for c in ranking(gcy, "revenue")[:5]),
            )
        )
        post = [c for c, desc in d.desc.items() if desc.strip().upper() == "POSTAGE"]
        if post:
            out.append(
                num(
                    f"What was revenue in {Y} if we ignore postage?",
                    f"revenue {Y} excluding postage",
                    d.fig(with_(ys, not_codes=tuple(post))).money(),
                )
            )
        cy = d.group("customer", ys)
        topc = ranking(cy, "revenue")[0]
        out.append(
            num(
                f"Total {Y} revenue from everyone except customer {topc}?",
                f"revenue {Y} except {topc}",
                d.fig(with_(ys, not_customer=topc)).money(),
                related=(("customer", str(topc)),),
            )
        )
        out.append(
            num(
                f"sales in {month_name(m2)} not counting cancellations",
                f"gross revenue {m2}",
                (d.fig(month_scope(m2)).gross,),
            )
        )
        out.append(
            num(
                f"Units sold in {Y} outside the United Kingdom?",
                f"units {Y} non-UK",
                d.fig(with_(ys, not_countries=(uk,))).unit_vals(),
            )
        )
        n_nonhv = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE segment <> 'High Value'")
        n_hv = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE segment = 'High Value'")
        allf = d.fig()
        out.append(
            num(
                "How many customers do we have that aren't High Value?",
                "customers not High Value",
                uniq(n_nonhv, allf.customers - n_hv, allf.customers_any - n_hv),
            )
        )
        gm = {m: f for m, f in d.group("month", with_(ys, not_countries=(uk,))).items()}
        tops = extremes(gm, "revenue", False)
        out.append(
            Turn(
                f"Best month of {Y} for non-UK revenue?",
                T,
                (Names("best non-UK month", "month", tuple(tops)),),
                related=tuple(("month", m) for m in ranking(gm, "revenue")[:3]),
            )
        )
        out.append(
            num(
                f"What did all segments except New and At Risk spend in {Y}?",
                f"revenue {Y} High Value + Regular",
                d.fig(with_(ys, segments=("High Value", "Regular"))).money(),
            )
        )
        out.append(
            num(
                f"Number of orders in {Y} apart from {c1} and {c2}",
                f"orders {Y} ex {c1} {c2}",
                (d.fig(with_(ys, not_countries=(c1, c2))).orders,),
            )
        )
        gs = {s: f for s, f in d.group("segment").items() if s != "High Value"}
        tops = extremes(gs, "revenue", False)
        out.append(
            Turn(
                "Other than High Value, which segment brings in the most money?",
                T,
                (Names("top segment ex High Value", "segment", tuple(tops)),),
                related=tuple(("segment", s) for s in SEGMENTS),
            )
        )
        gcc = d.group("customer", with_(ys, countries=(c3,)))
        if gcc:
            top3 = ranking(gcc, "revenue")[0]
            out.append(
                num(
                    f"{c3}'s revenue in {Y} without its biggest customer?",
                    f"revenue {c3} {Y} ex top customer",
                    d.fig(with_(ys, countries=(c3,), not_customer=top3)).money(),
                    related=(("customer", str(top3)),),
                )
            )
        m3 = rng.choice(self.y_months)
        out.append(
            num(
                f"non-UK customers in {month_name(m3)}: how many?",
                f"customers non-UK {m3}",
                (d.fig(month_scope(m3, not_countries=(uk,))).customers,),
            )
        )
        dec = f"{Y}-12"
        gmy = {m: f for m, f in d.group("month", ys).items() if m != dec}
        tops = extremes(gmy, "revenue", False)
        out.append(
            Turn(
                f"Excluding December, which month of {Y} had the highest revenue?",
                T,
                (Names("best month ex December", "month", tuple(tops)),),
                related=tuple(("month", m) for m in ranking(gmy, "revenue")[:3]),
            )
        )
        p1, p2 = self.products[5:7]
        out.append(
            num(
                f"Revenue for {Y} except for '{self.pname(p1, True)}' and '{self.pname(p2, True)}'?",
                f"revenue {Y} excluding two products",
                d.fig(with_(ys, not_codes=(p1, p2))).money(),
            )
        )
        m4 = rng.choice(self.y_months)
        gpm = d.group("product", month_scope(m4))
        topu = next(c for c in ranking(gpm, "units", gross=True) if c in d.clean_codes)
        out.append(
            num(
                f"How many units did we sell in {month_name(m4)}, leaving out {self.pname(topu)}?",
                f"units {m4} excluding product",
                d.fig(month_scope(m4, not_codes=(topu,))).unit_vals(),
            )
        )
        out.append(
            num(
                f"AOV in {Y} for every country except {c2}?",
                f"average order value {Y} ex {c2}",
                d.fig(with_(ys, not_countries=(c2,))).aov(),
            )
        )
        for i, t in enumerate(out[:20]):
            self.add(f"exclusion {i + 1}", t)

    # ---------------------------------------------------------------------------------------- follow-ups

    def follow_up(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        ys = year_scope(Y)
        F = "follow_up"
        c1, c2, c3, c4 = self.big[5:9] if len(self.big) >= 9 else self.big[:4]

        # F1: country -> country -> measure -> period -> share
        prev = Y - 1
        f2 = d.fig(with_(ys, countries=(c2,)))
        f2p = d.fig(year_scope(prev, countries=(c2,)))
        turns = [
            Turn(
                f"What was {c1}'s revenue in {Y}?",
                None,
                (Num(f"revenue {c1} {Y}", d.fig(with_(ys, countries=(c1,))).money()),),
            ),
            Turn(f"and in {c2}?", F, (Num(f"revenue {c2} {Y}", f2.money()),), needs_previous=True),
            Turn(
                "how many orders was that?", F, (Num(f"orders {c2} {Y}", (f2.orders,)),), needs_previous=True
            ),
        ]
        if f2p.orders:
            turns += [
                Turn(
                    "What about the year before?",
                    F,
                    (Num(f"orders {c2} {prev}", (f2p.orders,)),),
                    needs_previous=True,
                ),
                Turn(
                    "and its share of all orders that year?",
                    F,
                    (
                        Num(
                            f"{c2} share of {prev} orders",
                            share_vals(f2p, d.fig(year_scope(prev)), "orders"),
                            percent=True,
                        ),
                    ),
                    needs_previous=True,
                ),
            ]
        self.add("follow-up: country, measure, period", *turns)

        # F2: top 5 ex-UK -> which of those -> the second one -> by month -> weakest
        gc = {c: f for c, f in d.group("country", ys).items() if c != self.uk}
        top5 = ranking(gc, "revenue")[:5]
        top5g = ranking(gc, "revenue", gross=True)[:5]
        rel5 = tuple(("country", c) for c in dict.fromkeys(top5 + top5g))
        most = extremes({c: gc[c] for c in top5}, "customers", False)
        seconds = list(dict.fromkeys((top5[1], top5g[1])))
        second = top5[1]
        sm = d.group("month", with_(ys, countries=(second,)))
        series = [sm[m].money() for m in self.y_months if m in sm]
        fullsm = {m: sm.get(m, Fig()) for m in self.y_months}
        weakest = extremes(fullsm, "revenue", True) + extremes(sm, "revenue", True)
        self.add(
            "follow-up: a ranking, which of those, the second one",
            Turn(
                f"Top 5 countries by revenue in {Y}, not counting the UK?",
                None,
                (Ranked("top 5 ex-UK", "country", tuple(top5)),),
                related=rel5,
            ),
            Turn(
                "Which of those had the most customers?",
                F,
                (Names("most customers of the five", "country", tuple(most)),),
                needs_previous=True,
                related=rel5,
            ),
            Turn(
                "ok, the second one on the list - what was its average order value?",
                F,
                (
                    Num(
                        "average order value of the second",
                        uniq(*(v for c in seconds for v in d.fig(with_(ys, countries=(c,))).aov())),
                    ),
                ),
                needs_previous=True,
                related=rel5,
            ),
            Turn(
                "show me its revenue by month",
                F,
                (Nums(f"monthly revenue {second}", tuple(series), need=min(6, len(series)), unit="money"),),
                needs_previous=True,
                related=tuple(("month", m) for m in sm),
            ),
            Turn(
                "which month was the weakest?",
                F,
                (Names(f"weakest month {second}", "month", tuple(dict.fromkeys(weakest))),),
                needs_previous=True,
                related=(*tuple(("month", m) for m in sm), ("country", second)),
            ),
        )

        # F3: segment, change of measure, segment, share, period
        m = rng.choice(self.y_months[1:])
        pm = prev_month(m)
        ar_n = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE segment = 'At Risk'")
        ar_rev = d.scalar("SELECT SUM(revenue) FROM customer_stats WHERE segment = 'At Risk'")
        hv_rev = d.scalar("SELECT SUM(revenue) FROM customer_stats WHERE segment = 'High Value'")
        ar, hv = d.fig(Scope(segments=("At Risk",))), d.fig(Scope(segments=("High Value",)))
        self.add(
            "follow-up: segments, measures, months",
            Turn(
                "how many customers are in the At Risk segment?", None, (Num("At Risk customers", (ar_n,)),)
            ),
            Turn(
                "And how much have they spent in total?",
                F,
                (Num("At Risk revenue", uniq(*ar.money(), ar_rev)),),
                needs_previous=True,
            ),
            Turn(
                "what about High Value?",
                F,
                (Num("High Value revenue", uniq(*hv.money(), hv_rev)),),
                needs_previous=True,
            ),
            Turn(
                "and its share of total revenue?",
                F,
                (Num("High Value share of revenue", share_vals(hv, d.fig(), "revenue"), percent=True),),
                needs_previous=True,
            ),
            Turn(
                f"How many orders did they place in {month_name(m)}?",
                F,
                (Num(f"High Value orders {m}", (d.fig(month_scope(m, segments=("High Value",))).orders,)),),
                needs_previous=True,
            ),
            Turn(
                "and the month before?",
                F,
                (Num(f"High Value orders {pm}", (d.fig(month_scope(pm, segments=("High Value",))).orders,)),),
                needs_previous=True,
            ),
        )

        # F4: a customer, then an unrelated question in the same chat, then a follow-up on that one
        gcc = d.group("customer", Scope(countries=(c3,)))
        topc = ranking(gcc, "revenue")[0]
        topcs = extremes(gcc, "revenue", False)
        fc = d.fig(Scope(customer=topc))
        gp = d.group("product", Scope(customer=topc))
        topp = extremes(gp, "revenue", False)
        m5 = rng.choice(self.y_months)
        c5 = next(c for c in self.big if c not in (c3,))
        self.add(
            "follow-up: a customer, then something else",
            Turn(
                f"Who is our biggest customer in {c3}?",
                None,
                (Names(f"top customer {c3}", "customer", tuple(str(c) for c in topcs)),),
            ),
            Turn(
                "How many orders have they placed with us?",
                F,
                (Num(f"orders of {topc}", (fc.orders,)),),
                needs_previous=True,
                related=(("customer", str(topc)),),
            ),
            Turn(
                "what's their top product?",
                F,
                (Names(f"top product of {topc}", "product", tuple(self.data.desc[c].strip() for c in topp)),),
                needs_previous=True,
                related=(("customer", str(topc)),),
            ),
            Turn(
                f"And what would {c3}'s total revenue be without them?",
                F,
                (Num(f"revenue {c3} ex {topc}", d.fig(Scope(countries=(c3,), not_customer=topc)).money()),),
                needs_previous=True,
                related=(("customer", str(topc)),),
            ),
            Turn(
                f"Different question: how many units did we sell in {month_name(m5)}?",
                "paraphrase",
                (Num(f"units {m5}", d.fig(month_scope(m5)).unit_vals()),),
            ),
            Turn(
                f"and in {c5}?",
                F,
                (Num(f"units {c5} {m5}", d.fig(month_scope(m5, countries=(c5,))).unit_vals()),),
                needs_previous=True,
            ),
            blocks=(0, 0, 0, 0, 4, 4),
        )

        # F5: a product, its revenue, its best country, another product
        p1, p2 = self.products[7:9]
        f1 = d.fig(with_(ys, codes=(p1,)))
        gp1 = d.group("country", with_(ys, codes=(p1,)))
        gp2 = d.group("country", with_(ys, codes=(p2,)))
        best1 = extremes(gp1, "units", False) + extremes(gp1, "revenue", False)
        best2 = extremes(gp2, "units", False) + extremes(gp2, "revenue", False)
        self.add(
            "follow-up: a product",
            Turn(
                f"How many units of {self.pname(p1)} did we sell in {Y}?",
                None,
                (Num(f"units {Y}", f1.unit_vals()),),
            ),
            Turn(
                "what revenue did it bring in?",
                F,
                (Num(f"revenue product {Y}", f1.money()),),
                needs_previous=True,
            ),
            Turn(
                "Which country bought the most of it?",
                F,
                (Names("top country for product", "country", tuple(dict.fromkeys(best1))),),
                needs_previous=True,
                related=tuple(("country", c) for c in ranking(gp1, "units")[:5]),
            ),
            Turn(
                f"How about {self.pname(p2, True)}?",
                F,
                (Names("top country for product 2", "country", tuple(dict.fromkeys(best2))),),
                needs_previous=True,
                related=tuple(("country", c) for c in ranking(gp2, "units")[:5]),
            ),
        )

        # F6: a country's months -> best month -> buyers that month -> the same month a year earlier
        gm = d.group("month", with_(ys, countries=(c4,)))
        best = ranking(gm, "revenue")[0]
        bests = extremes(gm, "revenue", False)
        turns = [
            Turn(
                f"monthly revenue for {c4} in {Y} please",
                None,
                (
                    Nums(
                        f"monthly revenue {c4}",
                        tuple(f.money() for f in gm.values()),
                        need=min(6, len(gm)),
                        unit="money",
                    ),
                ),
                related=tuple(("month", k) for k in gm),
            ),
            Turn(
                "which month was best?",
                F,
                (Names("best month", "month", tuple(bests)),),
                needs_previous=True,
                related=tuple(("month", k) for k in gm),
            ),
            Turn(
                "How many customers did they have that month?",
                F,
                (Num(f"customers {c4} {best}", (d.fig(month_scope(best, countries=(c4,))).customers,)),),
                needs_previous=True,
                related=(("month", best),),
            ),
        ]
        ly = f"{int(best[:4]) - 1}-{best[5:]}"
        if ly in d.full_months:
            turns.append(
                Turn(
                    "and in the same month a year earlier?",
                    F,
                    (Num(f"customers {c4} {ly}", (d.fig(month_scope(ly, countries=(c4,))).customers,)),),
                    needs_previous=True,
                    related=(("month", ly), ("month", best)),
                )
            )
        elif prev_month(best) in d.months:
            pm = prev_month(best)
            turns.append(
                Turn(
                    "and the month before that?",
                    F,
                    (Num(f"customers {c4} {pm}", (d.fig(month_scope(pm, countries=(c4,))).customers,)),),
                    needs_previous=True,
                    related=(("month", pm), ("month", best)),
                )
            )
        self.add("follow-up: a country's best month", *turns)

        # F7: compare two months -> orders -> one country -> by how much
        ma, mb = self.months_pair()
        c1 = rng.choice(self.major)
        fa, fb = d.fig(month_scope(ma)), d.fig(month_scope(mb))
        ca, cb = d.fig(month_scope(ma, countries=(c1,))), d.fig(month_scope(mb, countries=(c1,)))
        diffs, rel = change_vals(ca, cb, "orders")
        self.add(
            "follow-up: two months",
            Turn(
                f"Compare revenue in {month_name(ma)} and {month_name(mb)}.",
                None,
                (Num(f"revenue {ma}", fa.money()), Num(f"revenue {mb}", fb.money())),
            ),
            Turn(
                "and for orders?",
                F,
                (Num(f"orders {ma}", (fa.orders,)), Num(f"orders {mb}", (fb.orders,))),
                needs_previous=True,
            ),
            Turn(
                f"what about just {c1}?",
                F,
                (Num(f"orders {c1} {ma}", (ca.orders,)), Num(f"orders {c1} {mb}", (cb.orders,))),
                needs_previous=True,
            ),
            Turn(
                "by how much did it change?",
                F,
                (
                    AnyOf(
                        "change in orders",
                        (Num("change in orders", diffs), Num("relative change in orders", rel, percent=True)),
                    ),
                ),
                needs_previous=True,
            ),
        )

        # F8: a long chat of three unrelated blocks
        qs = self.country_of_quarters()
        q2 = [q for q in qs if q[1] < 4 and f"{Y}-{3 * q[1] + 3:02d}" in d.full_months]
        qa = rng.choice(q2 or qs)
        qb = (qa[0], qa[1] + 1)
        cq = self.big[-1]
        new = dict(
            d.rows("SELECT country, COUNT(*) FROM customer_stats WHERE segment = 'New' GROUP BY country")
        )
        new_top = [c for c, n in new.items() if n == max(new.values())]
        dec = f"{Y}-12" if f"{Y}-12" in d.months else self.y_months[-1]
        fdec, fy = d.fig(month_scope(dec)), d.fig(ys)
        self.add(
            "follow-up: three topics in one chat",
            Turn(
                f"Revenue from {cq} in Q{qa[1]} {Y}?",
                None,
                (Num(f"revenue {cq} Q{qa[1]}", d.fig(quarter_scope(*qa, countries=(cq,))).money()),),
            ),
            Turn(
                f"and q{qb[1]}?",
                F,
                (Num(f"revenue {cq} Q{qb[1]}", d.fig(quarter_scope(*qb, countries=(cq,))).money()),),
                needs_previous=True,
            ),
            Turn(
                "how many new custmers do we have?",
                "paraphrase",
                (
                    Num(
                        "New customers",
                        (d.scalar("SELECT COUNT(*) FROM customer_stats WHERE segment = 'New'"),),
                    ),
                ),
                related=(("segment", "New"),),  # the truth is the New segment's count
            ),
            Turn(
                "Which country do most of them come from?",
                F,
                (Names("top country of New customers", "country", tuple(new_top)),),
                needs_previous=True,
                related=tuple(("country", c) for c in sorted(new, key=lambda c: -new[c])[:5]),
            ),
            Turn(
                f"ok now something else. whats the total revenue for {month_name(dec).lower()}",
                "paraphrase",
                (Num(f"revenue {dec}", fdec.money()),),
            ),
            Turn(
                "what share of the year is that?",
                F,
                (Num(f"{dec} share of {Y} revenue", share_vals(fdec, fy, "revenue"), percent=True),),
                needs_previous=True,
            ),
            Turn(
                "and in units?",
                F,
                (
                    AnyOf(
                        "units",
                        (
                            Num(f"units {dec}", fdec.unit_vals()),
                            Num(f"{dec} share of {Y} units", share_vals(fdec, fy, "units"), percent=True),
                        ),
                    ),
                ),
                needs_previous=True,
            ),
            blocks=(0, 0, 2, 2, 4, 4, 4),
        )

    # ---------------------------------------------------------------------------------------- comparison

    def comparison(self) -> None:
        d, Y, PY, rng = self.data, self.Y, self.PY, self.rng
        ys = year_scope(Y)
        T = "comparison"
        c1, c2, c3 = self.big[0], self.big[1], self.big[3]
        out: list[Turn] = []

        def pair(text: str, la: str, fa: tuple, lb: str, fb: tuple, *extra: Check, **kw: object) -> Turn:
            return Turn(text, T, (Num(la, fa), Num(lb, fb), *extra), **kw)

        def change(a: Fig, b: Fig, measure: str, label: str) -> AnyOf:
            diffs, rel = change_vals(a, b, measure)
            return AnyOf(label, (Num(label, diffs, unit=""), Num(f"relative {label}", rel, percent=True)))

        ma, mb = self.months_pair()
        fa, fb = d.fig(month_scope(ma)), d.fig(month_scope(mb))
        out.append(
            pair(
                f"{month_name(ma)} vs {month_name(mb)} revenue?",
                f"revenue {ma}",
                fa.money(),
                f"revenue {mb}",
                fb.money(),
            )
        )
        if PY:
            a, b = d.fig(year_scope(PY)), d.fig(ys)
            out.append(
                pair(
                    f"Did revenue grow from {PY} to {Y}, and by how much?",
                    f"revenue {PY}",
                    a.money(),
                    f"revenue {Y}",
                    b.money(),
                    change(a, b, "revenue", f"revenue change {PY}-{Y}"),
                )
            )
        else:
            qs = self.country_of_quarters()
            full_qs = [q for q in qs if f"{Y}-{3 * q[1]:02d}" in d.full_months]
            qa, qb = full_qs[-2], full_qs[-1]
            a, b = d.fig(quarter_scope(*qa)), d.fig(quarter_scope(*qb))
            out.append(
                pair(
                    f"Did revenue grow from Q{qa[1]} to Q{qb[1]} {Y}, and by how much?",
                    f"revenue Q{qa[1]}",
                    a.money(),
                    f"revenue Q{qb[1]}",
                    b.money(),
                    change(a, b, "revenue", "revenue change"),
                )
            )
        fa, fb = d.fig(with_(ys, countries=(c1,))), d.fig(with_(ys, countries=(c2,)))
        out.append(
            pair(
                f"Which had higher revenue in {Y}, {c1} or {c2}?",
                f"revenue {c1}",
                fa.money(),
                f"revenue {c2}",
                fb.money(),
            )
        )
        fa, fb = d.fig(Scope(countries=(c1,))), d.fig(Scope(countries=(c3,)))
        out.append(
            pair(
                f"{c1} vs {c3}: orders, all time", f"orders {c1}", (fa.orders,), f"orders {c3}", (fb.orders,)
            )
        )
        # year on year, one month
        yoy = [m for m in d.months if f"{int(m[:4]) - 1}-{m[5:]}" in d.months and m in d.full_months]
        m = rng.choice(yoy) if yoy else d.months[-1]
        lm = f"{int(m[:4]) - 1}-{m[5:]}"
        if lm in d.months:
            a, b = d.fig(month_scope(lm)), d.fig(month_scope(m))
            out.append(
                pair(
                    f"How did {month_name(m)} do against the same month the year before?",
                    f"revenue {lm}",
                    a.money(),
                    f"revenue {m}",
                    b.money(),
                )
            )
        # quarter on quarter in a country
        qs = [q for q in self.country_of_quarters() if f"{Y}-{3 * q[1]:02d}" in d.full_months]
        qa, qb = qs[0], qs[1]
        a, b = d.fig(quarter_scope(*qa, countries=(c2,))), d.fig(quarter_scope(*qb, countries=(c2,)))
        out.append(
            pair(
                f"how did Q{qb[1]} compare with Q{qa[1]} in {Y} for {c2}'s revenue?",
                f"revenue Q{qa[1]}",
                a.money(),
                f"revenue Q{qb[1]}",
                b.money(),
            )
        )
        a, b = d.fig(with_(ys, segments=("High Value",))), d.fig(with_(ys, segments=("Regular",)))
        out.append(
            pair(
                f"Average order value in {Y}: High Value vs Regular customers",
                "average order value HV",
                a.aov(),
                "average order value Regular",
                b.aov(),
            )
        )
        ma, mb = self.months_pair()
        a, b = d.fig(month_scope(ma)), d.fig(month_scope(mb))
        out.append(
            pair(
                f"Did we have more buyers in {month_name(ma)} or {month_name(mb)}?",
                f"customers {ma}",
                (a.customers,),
                f"customers {mb}",
                (b.customers,),
            )
        )
        moved = [
            c
            for c in self.major
            if d.fig(month_scope(ma, countries=(c,))).orders != d.fig(month_scope(mb, countries=(c,))).orders
        ]
        c3 = rng.choice(moved or self.major)
        a, b = d.fig(month_scope(ma, countries=(c3,))), d.fig(month_scope(mb, countries=(c3,)))
        diffs, _ = change_vals(a, b, "orders")
        out.append(
            Turn(
                f"Did {c3}'s orders go up or down between {month_name(ma)} and {month_name(mb)}, and by how "
                "many?",
                T,
                (Num("change in orders", diffs),),
            )
        )
        p1, p2 = self.products[9:11]
        a, b = d.fig(with_(ys, codes=(p1,))), d.fig(with_(ys, codes=(p2,)))
        out.append(
            pair(
                f"units sold in {Y}: {self.pname(p1)} versus {self.pname(p2)}",
                "units p1",
                a.unit_vals(),
                "units p2",
                b.unit_vals(),
            )
        )
        m = rng.choice(self.y_months)
        a, b = d.fig(month_scope(m, countries=(self.uk,))), d.fig(month_scope(m, countries=(c1,)))
        diffs, _ = change_vals(b, a, "revenue")
        out.append(
            Turn(
                f"How much more did the UK make than {c1} in {month_name(m)}?",
                T,
                (Num(f"revenue gap UK {c1} {m}", tuple(v for v in diffs if v > 0)),),
            )
        )
        a = d.fig(Scope(start=f"{Y}-01-01", end=f"{Y}-07-01"))
        b = d.fig(Scope(start=f"{Y}-07-01", end=f"{Y + 1}-01-01"))
        out.append(
            pair(
                f"Compare the first and second half of {Y} on revenue.",
                f"revenue H1 {Y}",
                a.money(),
                f"revenue H2 {Y}",
                b.money(),
            )
        )
        a, b = d.fig(with_(ys, countries=(self.uk,))), d.fig(with_(ys, not_countries=(self.uk,)))
        out.append(
            pair(
                f"Revenue per customer in {Y}: UK vs the rest of the world?",
                "revenue per customer UK",
                a.per_customer(),
                "revenue per customer rest",
                b.per_customer(),
            )
        )
        if PY:
            a, b = d.fig(year_scope(PY)), d.fig(ys)
            out.append(
                pair(
                    f"Year-on-year, how did our number of customers change from {PY} to {Y}?",
                    f"customers {PY}",
                    (a.customers,),
                    f"customers {Y}",
                    (b.customers,),
                )
            )
            out.append(
                pair(
                    f"Was AOV higher in {Y} than in {PY}?",
                    f"average order value {PY}",
                    a.aov(),
                    f"average order value {Y}",
                    b.aov(),
                )
            )
            c = self.big[4]
            a, b = d.fig(year_scope(PY, countries=(c,))), d.fig(with_(ys, countries=(c,)))
            out.append(
                pair(
                    f"{c}: {Y} orders vs {PY}, did it grow?",
                    f"orders {c} {PY}",
                    (a.orders,),
                    f"orders {c} {Y}",
                    (b.orders,),
                )
            )
        else:
            ma, mb = self.months_pair()
            a, b = d.fig(month_scope(ma)), d.fig(month_scope(mb))
            out.append(
                pair(
                    f"Was AOV higher in {month_name(mb)} than in {month_name(ma)}?",
                    f"average order value {ma}",
                    a.aov(),
                    f"average order value {mb}",
                    b.aov(),
                )
            )
        mb2 = rng.choice(self.y_months)
        a, b = d.fig(month_scope(prev_month(mb2), countries=(c2,))), d.fig(month_scope(mb2, countries=(c2,)))
        if prev_month(mb2) in d.months:
            out.append(
                pair(
                    f"Was {month_name(mb2)} better than the month before for {c2}?",
                    f"revenue {c2} {prev_month(mb2)}",
                    a.money(),
                    f"revenue {c2} {mb2}",
                    b.money(),
                )
            )
        days = sorted(rng.sample(sorted(d.group("day", ys)), 2))
        a, b = d.fig(day_scope(days[0])), d.fig(day_scope(days[1]))
        out.append(
            pair(
                f"orders on {day_name(days[0])} vs {day_name(days[1])}?",
                f"orders {days[0]}",
                (a.orders,),
                f"orders {days[1]}",
                (b.orders,),
            )
        )
        for _ in range(50):
            cid = self.cust_pick(min_orders=6)
            a = d.fig(Scope(start=f"{Y}-01-01", end=f"{Y}-07-01", customer=cid))
            b = d.fig(Scope(start=f"{Y}-07-01", end=f"{Y + 1}-01-01", customer=cid))
            if a.orders and b.orders:
                break
        out.append(
            pair(
                f"How does customer {cid}'s spending in the first half of {Y} compare with the second half?",
                f"revenue {cid} H1",
                a.money(),
                f"revenue {cid} H2",
                b.money(),
                related=(("customer", str(cid)),),
            )
        )
        three = self.big[5:8]
        out.append(
            Turn(
                f"{three[0]}, {three[1]} or {three[2]}: which has the most customers in {Y}?",
                T,
                (
                    Nums(
                        "customers of three countries",
                        tuple((d.fig(with_(ys, countries=(c,))).customers,) for c in three),
                        need=3,
                        unit="customers",
                    ),
                ),
            )
        )
        # two more for data without a full year before the latest (the cap keeps 20)
        ma, mb = self.months_pair()
        x, y = self.major[:2]
        checks = []
        for c in (x, y):
            diffs, rel = change_vals(
                d.fig(month_scope(ma, countries=(c,))), d.fig(month_scope(mb, countries=(c,))), "revenue"
            )
            checks.append(
                AnyOf(
                    f"revenue change {c}",
                    (
                        Num(f"revenue change {c}", diffs),
                        Num(f"relative revenue change {c}", rel, percent=True),
                    ),
                )
            )
        out.append(
            Turn(
                f"Between {month_name(ma)} and {month_name(mb)}, which grew more in revenue: {x} or {y}?",
                T,
                tuple(checks),
            )
        )
        m = rng.choice(self.y_months)
        a, b = d.fig(month_scope(m, segments=("High Value",))), d.fig(month_scope(m, segments=("Regular",)))
        out.append(
            pair(
                f"High Value vs Regular revenue in {month_name(m)}?",
                f"revenue High Value {m}",
                a.money(),
                f"revenue Regular {m}",
                b.money(),
            )
        )
        for i, t in enumerate(out[:20]):
            self.add(f"comparison {i + 1}", t)

    # ---------------------------------------------------------------------------------------- paraphrase

    def paraphrase(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        ys = year_scope(Y)
        T = "paraphrase"
        c1, c2, c3 = self.big[6], self.big[7], self.big[8]
        out: list[Turn] = []

        def typo(word: str) -> str:
            if len(word) < 6:
                return word
            i = rng.randrange(2, len(word) - 2)
            return word[:i] + word[i + 1] + word[i] + word[i + 2 :]

        longest = max(self.big[:6], key=len)
        out.append(
            Turn(
                f"rev {typo(longest).lower()} {Y}",
                T,
                (Num(f"revenue {longest} {Y}", d.fig(with_(ys, countries=(longest,))).money()),),
            )
        )
        q = rng.choice([q for q in self.country_of_quarters()])
        out.append(
            Turn(
                f"whats the aov for {c1.lower()} in q{q[1]} {Y}",
                T,
                (Num(f"average order value {c1}", d.fig(quarter_scope(*q, countries=(c1,))).aov()),),
            )
        )
        m = rng.choice(self.y_months)
        out.append(
            Turn(
                f"Turnover, UK, {short_month(m)} {m[:4]}?",
                T,
                (Num(f"revenue UK {m}", d.fig(month_scope(m, countries=(self.uk,))).money()),),
            )
        )
        m = rng.choice(self.y_months)
        out.append(
            Turn(
                f"Hi there! I was wondering if you could tell me how many orders we got from {c2} back in "
                f"{month_name(m)}? Thanks so much",
                T,
                (Num(f"orders {c2} {m}", (d.fig(month_scope(m, countries=(c2,))).orders,)),),
            )
        )
        p = self.products[11]
        out.append(
            Turn(
                f"units sold {self.pname(p, True)} {Y}",
                T,
                (Num(f"units {Y}", d.fig(with_(ys, codes=(p,))).unit_vals()),),
            )
        )
        out.append(
            Turn(
                f"avg basket value {c3} {Y}",
                T,
                (Num(f"average order value {c3} {Y}", d.fig(with_(ys, countries=(c3,))).aov()),),
            )
        )
        cid = self.cust_pick()
        out.append(
            Turn(
                f"how much did cust {cid} spend",
                T,
                (Num(f"revenue of customer {cid}", d.fig(Scope(customer=cid)).money()),),
                related=(("customer", str(cid)),),
            )
        )
        m = rng.choice(self.y_months)
        out.append(
            Turn(f"GMV for {month_name(m)}?", T, (Num(f"revenue {m}", d.fig(month_scope(m)).money()),))
        )
        gcy = d.group("country", ys)
        out.append(
            Turn(
                f"whihc country had the most revnue in {Y}",
                T,
                (Names("top country", "country", tuple(extremes(gcy, "revenue", False))),),
                related=tuple(("country", c) for c in ranking(gcy, "revenue")[:5]),
            )
        )
        m = rng.choice(self.y_months)
        gp = d.group("product", month_scope(m))
        top = ranking(gp, "units", gross=True)
        if all(c in d.desc for c in top[:3]):
            out.append(
                Turn(
                    f"top 3 prodcuts by units in {short_month(m)} {m[:4]}",
                    T,
                    (
                        Names(
                            "top 3 products by units",
                            "product",
                            tuple(self.pname(c) for c in top[:3]),
                            need=3,
                        ),
                    ),
                    related=tuple(("product", self.pname(c)) for c in top[:6]),
                )
            )
        cc = self.big[0]
        n = d.scalar("SELECT COUNT(*) FROM customer_stats WHERE country = ? AND segment = 'High Value'", cc)
        out.append(
            Turn(f"how many high value custs in {cc.lower()}?", T, (Num(f"High Value customers {cc}", (n,)),))
        )
        out.append(
            Turn(
                f"revenue in {c1} from at risk clients, {Y}",
                T,
                (
                    Num(
                        f"revenue At Risk {c1} {Y}",
                        d.fig(with_(ys, countries=(c1,), segments=("At Risk",))).money(),
                    ),
                ),
            )
        )
        for i, t in enumerate(out):
            self.add(f"paraphrase {i + 1}", t)

    # ---------------------------------------------------------------------------------------- unanswerable

    def unanswerable(self) -> None:
        d, Y, rng = self.data, self.Y, self.rng
        T = "unanswerable"
        m = rng.choice(self.y_months)
        p = self.pname(self.products[2])
        unknown = [c for c in UNKNOWN_COUNTRY_CHOICES if _not_in_data(c, d.countries)]
        u1, u2 = rng.sample(unknown, 2)
        fake = [
            f for f in FAKE_PRODUCTS if not any(w.upper() in x for x in d.all_desc_upper for w in f.split())
        ]
        fake = fake or [f for f in FAKE_PRODUCTS if f.upper() not in d.all_desc_upper]
        fp = rng.choice(fake)
        # a month where revenue dropped against the month before, for a "why" question
        gm = d.group("month")
        drops = [x for x in self.y_months if prev_month(x) in gm and gm[x].net < gm[prev_month(x)].net]
        dm = rng.choice(drops) if drops else m
        c = self.big[2]
        turns = [
            Turn(f"What's our profit margin for {Y}?", T, (CannotAnswer("profit", r"profit|margin"),)),
            Turn(
                f"How much stock of {p} do we have left in the warehouse?",
                T,
                (CannotAnswer("stock", r"in stock|stock level|inventory|warehouse|on hand|\bleft\b"),),
            ),
            Turn(
                f"Did the rainy weather in {month_name(m)} hurt our sales?",
                T,
                (CannotAnswer("weather", r"weather|rain"),),
            ),
            Turn(f"How much revenue did we make in {u1}?", T, (NotFound(u1),)),
            Turn(f"how many units of {fp} did we sell last year", T, (NotFound(fp),)),
            Turn(
                "Can you forecast our revenue for next quarter?",
                T,
                (CannotAnswer("forecast", r"forecast|next quarter|predict|expect|projection"),),
            ),
            Turn(
                f"Why did sales drop in {month_name(dm)}?",
                T,
                (CannotAnswer("reason", r"because|reason|due to|caus"),),
            ),
            Turn(
                f"What was the cost of goods sold for {c} in {Y}?", T, (CannotAnswer("cost", r"\bcost|cogs"),)
            ),
            Turn(
                "Which sales rep closed the most deals this year?",
                T,
                (CannotAnswer("staff", r"\brep\b|reps|staff|salesperson|employee"),),
            ),
            Turn(
                "What's our website conversion rate?",
                T,
                (CannotAnswer("conversion", r"conversion|visit|traffic"),),
            ),
            Turn("How many orders has customer 99999999 placed?", T, (NotFound("99999999"),)),
            Turn(
                f"How much did we spend on marketing in {Y}?",
                T,
                (CannotAnswer("marketing", r"marketing|advertis|campaign"),),
            ),
            Turn("what's the average age of our customers", T, (CannotAnswer("age", r"\bage\b|years old"),)),
            Turn(f"{u2} sales in {Y}?", T, (NotFound(u2),)),
            Turn(
                "Which delivery company gets parcels to customers fastest?",
                T,
                (CannotAnswer("delivery", r"deliver|courier|parcel|fastest"),),
            ),
        ]
        for i, t in enumerate(turns):
            self.add(f"unanswerable {i + 1}", t)

    def build(self) -> list[Chat]:
        for part in (
            self.share,
            self.minimum,
            self.exclusion,
            self.follow_up,
            self.comparison,
            self.paraphrase,
            self.unanswerable,
        ):
            part()
        return self.chats


def build_dev2_chats(db: Path, seed: int) -> list[Chat]:
    """The dev2 bank's chats over ``db``, entities drawn with ``random.Random(seed)``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return Dev2Bank(Data(conn), seed).build()
    finally:
        conn.close()


def main() -> None:
    db = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/evaldata/seed42.sqlite")
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 42
    chats = build_dev2_chats(db, seed)
    counts: Counter[str] = Counter()
    for chat in chats:
        print(f"== {chat.title}")
        for turn in chat.turns:
            tag = turn.category or "context"
            if turn.category:
                counts[turn.category] += 1
            more = " (follows)" if turn.needs_previous else ""
            print(f"  [{tag}]{more} {turn.text}")
            for check in turn.checks:
                print(f"      {check}")
            if turn.related:
                print(f"      related: {', '.join(f'{k}:{n}' for k, n in turn.related)}")
    print()
    for category, n in sorted(counts.items()):
        print(f"{category}: {n}")
    print(f"scored: {sum(counts.values())} in {len(chats)} chats")


if __name__ == "__main__":
    main()
