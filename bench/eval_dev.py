"""The DEV question bank of the retail-analytics assistant: the app MAY be tuned on it.

This bank is *not* held out. It exists so that whoever improves the app has a second, differently
written set of analyst questions to work against without touching the held-out bank
(``bench/eval_heldout.py``), which must stay unseen. Tuning on this file is allowed; copying its
questions into the held-out bank is not, and a result here says nothing about generalisation.

It was written blind: its author did not read the app's code (``src/``), its tests (``tests/``), or
the questions of the tuned bank (``bench/eval_assistant_questions.py``) or of the held-out bank, only
the user documentation (``README.md``), the held-out bank's rules and definitions (its module
docstring) and the check dataclasses (``Num``, ``Nums``, ``Names``, ``AnyOf``, ``Ranked``,
``NotFound``, ``CannotAnswer``, ``Turn``, ``Chat`` ...), which it imports so that
``eval_assistant.py`` can score it (reported as ``dev:<category>``; ``--bank dev`` or ``--bank all``).

Nothing here is typed-in truth: :func:`build_dev_chats` picks its entities from the database with
``random.Random(seed)`` (countries, months, days that have sales, products by their stored
description or a family of them, customers, segments) and computes every truth with its own SQL at
build time, so it works on the generated shop and on an imported file such as the UCI "Online
Retail" one; a question the data cannot support (no month a year earlier, no second full year) is
left out there.

Definitions (those the app documents): revenue is ``SUM(amount)`` over every line in scope,
cancellations included (net; gross is accepted too where a question does not say); orders are
distinct invoices of non-cancellation lines; customers/buyers distinct customer ids of
non-cancellation lines; units ``SUM(quantity)`` (net; gross accepted); average order value is
revenue / orders; a share is part / total; a segment is the customers currently in it
(``customer_stats.segment``).

The questions are typed the way analysts type: lower case, terse ("rev uk nov 2025"), chatty,
jargon (turnover, AOV, ex-UK), a few typos, country aliases (UK, Great Britain, Holland, the
States) and product names in lower case. Categories: paraphrase, exclusion, minimum, single_day,
share, comparison, tell_me_about, unanswerable, ranking, follow_up (multi-turn chats that refer
back). Some chats put unrelated questions one after the other (each its own block), so an entity
of an earlier answer is a foreign entity in the next one.

Run ``python bench/eval_dev.py [DB] [SEED]`` to print every question with its checks.
"""

from __future__ import annotations

import calendar
import random
import re
import sqlite3
import sys
from collections.abc import Iterable, Sequence
from contextlib import suppress
from dataclasses import dataclass, replace
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_assistant_questions import (
    AnyOf,
    CannotAnswer,
    Chat,
    Check,
    Names,
    NotFound,
    Num,
    Nums,
    OnlySegments,
    Ranked,
    Turn,
)

SEGMENTS = ("High Value", "Regular", "At Risk", "New")
DEV_CATEGORIES = (
    "paraphrase",
    "exclusion",
    "minimum",
    "single_day",
    "share",
    "comparison",
    "tell_me_about",
    "unanswerable",
    "ranking",
    "follow_up",
)
PLACEHOLDERS = ("Unspecified", "European Community")
# countries to ask about that a retail file of this kind is unlikely to hold (checked against the data)
ABSENT_COUNTRIES = (
    "Mexico",
    "Argentina",
    "Peru",
    "Kenya",
    "Vietnam",
    "Chile",
    "Egypt",
    "Colombia",
    "Morocco",
)
# words no product of a gift shop is likely to carry (checked against the data)
ODD_WORDS = ("WALRUS", "DINOSAUR", "CACTUS", "OCTOPUS", "VOLCANO", "LLAMA", "SUBMARINE", "PLATYPUS", "ROBOT")
ALIASES = {
    "United Kingdom": ("uk", "the UK", "great britain", "britain", "the u.k."),
    "Netherlands": ("holland", "the netherlands"),
    "United States": ("the states", "usa", "america"),
    "USA": ("the states", "the us", "america"),
    "EIRE": ("ireland",),
}
FILLER = {
    "AND",
    "THE",
    "WITH",
    "FOR",
    "SET",
    "OF",
    "IN",
    "TO",
    "DESIGN",
    "ASSORTED",
    "SMALL",
    "LARGE",
    "MINI",
}
FILLER |= {"ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "TWELVE"}
MERCH = re.compile(r"\d{5}[A-Z]{0,3}")  # a stock code of merchandise (not POST, M, D, BANK CHARGES ...)


class Skip(Exception):
    """The data cannot support this question: leave it out."""


# ------------------------------------------------------------------------------------------ SQL


@dataclass(frozen=True)
class Cond:
    sql: str
    params: tuple[object, ...] = ()


@dataclass(frozen=True)
class Fig:
    """Every measure of one scope: revenue net and gross, orders, customers, units net and gross."""

    revenue: float
    gross: float
    orders: int
    customers: int
    units: int
    gross_units: int

    def aov(self) -> tuple[float, ...]:
        if not self.orders:
            raise Skip("no orders")
        return _vals(self.revenue / self.orders, self.gross / self.orders)


def in_country(*countries: str) -> Cond:
    return Cond(f"t.country IN ({','.join('?' * len(countries))})", tuple(countries))


def not_country(*countries: str) -> Cond:
    return Cond(f"t.country NOT IN ({','.join('?' * len(countries))})", tuple(countries))


def between(start: date, end: date) -> Cond:
    """Lines from ``start`` to the day before ``end``."""
    return Cond("t.invoiced_at >= ? AND t.invoiced_at < ?", (start.isoformat(), end.isoformat()))


def month_start(key: str) -> date:
    return date(int(key[:4]), int(key[5:7]), 1)


def add_months(key: str, n: int) -> str:
    y, m = int(key[:4]), int(key[5:7]) - 1 + n
    return f"{y + m // 12}-{m % 12 + 1:02d}"


def in_months(*keys: str) -> Cond:
    """A run of months, first to last."""
    first, last = min(keys), max(keys)
    return between(month_start(first), month_start(add_months(last, 1)))


def in_year(year: int) -> Cond:
    return between(date(year, 1, 1), date(year + 1, 1, 1))


def on_day(day: date) -> Cond:
    return between(day, day + timedelta(days=1))


def of_product(code: str) -> Cond:
    return Cond("t.stock_code = ?", (code,))


def not_product(code: str) -> Cond:
    return Cond("t.stock_code <> ?", (code,))


def of_products(codes: Sequence[str]) -> Cond:
    return Cond(f"t.stock_code IN ({','.join('?' * len(codes))})", tuple(codes))


def of_segment(segment: str) -> Cond:
    return Cond("s.segment = ?", (segment,))


def not_segment(segment: str) -> Cond:
    return Cond("(s.segment IS NULL OR s.segment <> ?)", (segment,))


def of_customer(cid: int) -> Cond:
    return Cond("t.customer_id = ?", (cid,))


def not_customers(cids: Sequence[int]) -> Cond:
    return Cond(f"t.customer_id NOT IN ({','.join('?' * len(cids))})", tuple(cids))


_FIG_SQL = (
    "COALESCE(SUM(t.amount), 0), "
    "COALESCE(SUM(CASE WHEN t.is_cancellation = 0 THEN t.amount END), 0), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END), "
    "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END), "
    "COALESCE(SUM(t.quantity), 0), "
    "COALESCE(SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity END), 0)"
)
MEASURES = {
    "revenue": "SUM(t.amount)",
    "gross": "SUM(CASE WHEN t.is_cancellation = 0 THEN t.amount ELSE 0 END)",
    "orders": "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END)",
    "customers": "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END)",
    "units": "SUM(t.quantity)",
    "gross_units": "SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity ELSE 0 END)",
    "aov": "SUM(t.amount) * 1.0 / COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END)",
}
GROUPS = {
    "country": "t.country",
    "month": "substr(t.invoiced_at, 1, 7)",
    "day": "substr(t.invoiced_at, 1, 10)",
    "product": "t.stock_code",
    "name": "p.description",
    "customer": "t.customer_id",
    "segment": "s.segment",
}


class Data:
    """Read-only SQL over one retail file, and the entities the questions pick from."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self._figs: dict[tuple[Cond, ...], Fig] = {}
        self._rows: dict[tuple[str, str, tuple[Cond, ...]], list[tuple]] = {}
        self.countries = [c for c, _ in self.rows("country", "revenue") if c not in PLACEHOLDERS]
        self.all_countries = [c for c, _ in self.rows("country", "revenue")]
        days = [r[0] for r in conn.execute("SELECT DISTINCT substr(invoiced_at, 1, 10) FROM transactions")]
        self.days = sorted(date.fromisoformat(d) for d in days)
        self.months = sorted({d.isoformat()[:7] for d in self.days})
        by_month: dict[str, list[date]] = {}
        for d in self.days:
            by_month.setdefault(d.isoformat()[:7], []).append(d)
        self.days_in = by_month
        # a full month: its first sale by the 5th and its last from the 20th on
        self.full_months = [m for m in self.months if by_month[m][0].day <= 5 and by_month[m][-1].day >= 20]
        counts: dict[int, int] = {}
        for m in self.full_months:
            counts[int(m[:4])] = counts.get(int(m[:4]), 0) + 1
        self.years = sorted(y for y, n in counts.items() if n >= 10)  # years the data covers (nearly) whole
        products = conn.execute(
            "SELECT p.stock_code, p.description, SUM(t.amount) FROM transactions t "
            "JOIN products p ON p.stock_code = t.stock_code GROUP BY p.stock_code ORDER BY 3 DESC"
        ).fetchall()
        names: dict[str, int] = {}
        for _, desc, _ in products:
            names[desc] = names.get(desc, 0) + 1
        other_names = {
            d: n
            for d, n in conn.execute(
                "SELECT description, COUNT(DISTINCT stock_code) FROM product_names GROUP BY 1"
            )
        }
        self.name_of = {code: desc for code, desc, _ in products}
        self.code_of = {desc: code for code, desc, _ in products}
        # products a question may name: merchandise, one stock code per name, a clean capitalised name
        self.products = [
            code
            for code, desc, _ in products
            if MERCH.fullmatch(code)
            and names[desc] == 1
            and other_names.get(desc, 1) <= 1
            and re.fullmatch(r"[A-Z][A-Z0-9 '&-]*[A-Z]", desc)
            and "  " not in desc
            and len(desc.split()) >= 2
        ]
        self.customers = [
            (cid, seg, country, orders, revenue)
            for cid, seg, country, orders, revenue in conn.execute(
                "SELECT customer_id, segment, country, orders, revenue FROM customer_stats "
                "ORDER BY revenue DESC"
            )
        ]
        self.segment_counts = {s: 0 for s in SEGMENTS}
        for _, seg, *_ in self.customers:
            self.segment_counts[seg] = self.segment_counts.get(seg, 0) + 1
        self.customer_table = conn.execute("SELECT COUNT(*) FROM customers").fetchone()[0]

    # -- queries

    def _run(self, select: str, conds: Iterable[Cond], tail: str = "") -> list[tuple]:
        conds = tuple(conds)
        where = " AND ".join(c.sql for c in conds) or "1"
        text = f"{select} {where}"
        joins = ""
        if "s." in text or "s." in tail:
            joins += " LEFT JOIN customer_stats s ON s.customer_id = t.customer_id"
        if "p." in text or "p." in tail:
            joins += " LEFT JOIN products p ON p.stock_code = t.stock_code"
        head, _, rest = select.partition(" FROM transactions t")
        sql = f"{head} FROM transactions t{joins}{rest} WHERE {where} {tail}"
        return self.conn.execute(sql, [p for c in conds for p in c.params]).fetchall()

    def fig(self, *conds: Cond) -> Fig:
        if conds not in self._figs:
            row = self._run(f"SELECT {_FIG_SQL} FROM transactions t", conds)[0]
            self._figs[conds] = Fig(float(row[0]), float(row[1]), *map(int, row[2:]))
        return self._figs[conds]

    def sold(self, *conds: Cond) -> Fig:
        """:meth:`fig`, or Skip when nothing was ordered in scope."""
        f = self.fig(*conds)
        if not f.orders:
            raise Skip("nothing sold")
        return f

    def rows(self, group: str, measure: str, *conds: Cond) -> list[tuple]:
        """(key, value) per group, highest first (ties by key); counts of 0 and groups without an order
        are left out."""
        if (group, measure, conds) not in self._rows:
            key, value = GROUPS[group], MEASURES[measure]
            orders = MEASURES["orders"]
            result = self._run(
                f"SELECT {key}, {value} FROM transactions t",
                conds,
                f"AND {key} IS NOT NULL GROUP BY 1 HAVING {orders} > 0",
            )
            self._rows[(group, measure, conds)] = sorted(
                ((k, float(v)) for k, v in result), key=lambda kv: (-kv[1], str(kv[0]))
            )
        return list(self._rows[(group, measure, conds)])

    def segment_rows(self, measure: str, *conds: Cond) -> list[tuple]:
        return self.rows("segment", measure, *conds)

    def merch(self, rows: list[tuple]) -> list[tuple]:
        return [r for r in rows if MERCH.fullmatch(str(r[0]))]

    def product_lists(self, measure: str, *conds: Cond) -> list[list[tuple]]:
        """Products ranked by stock code, by stock code without postage and fees, and by name (two
        codes may share one): the orderings a right answer may follow; name them with :meth:`label`."""
        rows = self.rows("product", measure, *conds)
        return [rows, self.merch(rows), self.rows("name", measure, *conds)]

    def label(self, key: object) -> str:
        return self.name_of.get(str(key), str(key))

    def monthly(self, *conds: Cond) -> list[tuple[str, tuple[float, ...]]]:
        """(month, (net revenue, gross revenue)) per month with an order in scope, in month order."""
        gross = dict(self.rows("month", "gross", *conds))
        return sorted((m, _vals(v, gross[m])) for m, v in self.rows("month", "revenue", *conds))


# ------------------------------------------------------------------------------------------ checks


def _vals(*values: float) -> tuple[float, ...]:
    out: list[float] = []
    for v in values:
        v = round(float(v), 6)
        if v not in out:
            out.append(v)
    return tuple(out)


def money(label: str, f: Fig) -> Num:
    return Num(label, _vals(f.revenue, f.gross), unit="money")


def gross_money(label: str, f: Fig) -> Num:
    return Num(label, _vals(f.gross), unit="money")


def orders(label: str, f: Fig) -> Num:
    if not f.orders:
        raise Skip("no orders")
    return Num(label, (float(f.orders),), unit="orders")


def buyers(label: str, f: Fig, *also: int) -> Num:
    if not f.customers:
        raise Skip("no customers")
    return Num(label, _vals(f.customers, *also), unit="customers")


def units(label: str, f: Fig) -> Num:
    return Num(label, _vals(f.units, f.gross_units), unit="units")


def aov(label: str, f: Fig) -> Num:
    return Num(label, f.aov(), unit="money")


def share(label: str, part: Fig, total: Fig, measure: str = "revenue") -> Num:
    if measure == "revenue":
        if not total.revenue or not total.gross:
            raise Skip("no revenue")
        values = _vals(part.revenue / total.revenue, part.gross / total.gross)
    else:
        p, t = getattr(part, measure), getattr(total, measure)
        if not t:
            raise Skip("empty total")
        values = _vals(p / t)
    # below 1 % a share shown to one decimal ("0.6 %") is more than 5 % off: too fragile to check
    if not 0.01 <= values[0] < 1:
        raise Skip("not a share")
    return Num(label, values, percent=True)


def overview(label: str, f: Fig, need: int = 2) -> Nums:
    """Any ``need`` of revenue, orders, customers, units: what "tell me about" should give."""
    if not f.orders:
        raise Skip("nothing sold")
    figures = (
        _vals(f.revenue, f.gross),
        (float(f.orders),),
        (float(f.customers),),
        _vals(f.units, f.gross_units),
    )
    return Nums(label, figures, need, unit="mixed")


def both(label: str, a: tuple[float, ...], b: tuple[float, ...], unit: str) -> Nums:
    return Nums(label, (_vals(*a), _vals(*b)), 2, unit=unit)


def head(rows: list[tuple], n: int, *, strict_end: bool = True) -> list[tuple]:
    """The first ``n`` rows, or Skip when a tie makes their order or membership ambiguous."""
    if len(rows) < n:
        raise Skip("too few rows")
    top = rows[: n + 1]
    for i in range(min(n, len(top) - 1)):
        if i == n - 1 and not strict_end:
            break
        if abs(top[i][1] - top[i + 1][1]) < 1e-6:
            raise Skip("tie")
    return rows[:n]


def ranked(label: str, kind: str, lists: Sequence[list[tuple]], n: int, name=str) -> Check:
    """``Ranked`` over the head of each acceptable ordering (net / gross, with / without postage...):
    one, or any of them."""
    heads: list[tuple[str, ...]] = []
    for rows in lists:
        with suppress(Skip):
            items = tuple(name(k) for k, _ in head(rows, n))
            if items not in heads:
                heads.append(items)
    if not heads:
        raise Skip("every ordering tied")
    checks = [Ranked(label, kind, items) for items in heads]
    return checks[0] if len(checks) == 1 else AnyOf(label, tuple(checks))


def lowest(label: str, kind: str, rows: list[tuple], name=str, also: Iterable[str] = ()) -> Names:
    """The entity with the smallest value (every one tied with it counts, and ``also``)."""
    if not rows:
        raise Skip("no rows")
    low = min(v for _, v in rows)
    items = [name(k) for k, v in rows if abs(v - low) < 1e-6]
    items += [a for a in also if a not in items]
    return Names(label, kind, tuple(items), 1)


def highest(label: str, kind: str, rows: list[tuple], name=str) -> Names:
    """The entity with the largest value (a tie at the top is skipped); rows in any order."""
    if not rows:
        raise Skip("no rows")
    top = max(v for _, v in rows)
    items = tuple(name(k) for k, v in rows if abs(v - top) < 1e-6)
    if len(items) > 1:
        raise Skip("tie at the top")
    return Names(label, kind, items, 1)


def month_pattern(key: str, *, with_year: bool) -> str:
    """A regular expression naming the month ``YYYY-MM``: "November 2025", "Nov 2025", "2025-11"
    (without the year too, when ``with_year`` is False)."""
    y, m = key[:4], int(key[5:7])
    names = f"(?:{calendar.month_name[m]}|{calendar.month_abbr[m]})"
    named = rf"\b{names}\b" if not with_year else rf"\b{names}\.?,?\s+(?:of\s+)?{y}\b"
    return rf"{named}|\b{y}-{m:02d}\b"


_ANY_MONTH_YEAR = (
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?,?\s+(?:of\s+)?(?:19|20)\d\d\b"
    r"|\b(?:19|20)\d\d-[01]\d\b"
)


def first_month_pattern(key: str) -> str:
    """A regular expression for: the first month-and-year the text names is ``YYYY-MM``."""
    return rf"(?s)^(?:(?!{_ANY_MONTH_YEAR}).)*?(?:{month_pattern(key, with_year=True)})"


_MON = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_ANY_DATE = (
    rf"\b(?:19|20)\d\d-[01]\d-[0-3]\d\b|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MON}"
    rf"|\b{_MON}\s+\d{{1,2}}(?:st|nd|rd|th)?\b|\b\d{{1,2}}/\d{{1,2}}/(?:19|20)\d\d\b"
)


def first_date_pattern(iso: str) -> str:
    """A regular expression for: the first day the text names is ``YYYY-MM-DD`` (2025-03-12,
    12 March, March 12th, 12/03/2025)."""
    d = date.fromisoformat(iso)
    month = rf"(?:{calendar.month_name[d.month]}|{calendar.month_abbr[d.month]})\.?"
    day = rf"0?{d.day}(?:st|nd|rd|th)?"
    this = (
        rf"\b{iso}\b|\b{day}\s+(?:of\s+)?{month}|\b{month}\s+{day}\b"
        rf"|\b0?{d.day}/0?{d.month}/{d.year}\b"
    )
    return rf"(?s)^(?:(?!{_ANY_DATE}).)*?(?:{this})"


def _month_ranked(check: Ranked) -> Ranked:
    with_year = len({i[:4] for i in check.items}) > 1
    return Ranked(check.label, "text", tuple(month_pattern(i, with_year=with_year) for i in check.items))


def _first_month(label: str, keys: Sequence[str], with_year: bool) -> Check:
    """One of ``keys`` is the first month named: by its number (the scorer's ``month`` check), or,
    ``with_year``, as the first month-and-year named (so November 2024 is not November 2025)."""
    if with_year:
        return Names(label, "text", tuple(first_month_pattern(k) for k in keys), 1)
    if len(keys) == 1:
        return Names(label, "month", tuple(keys))
    return AnyOf(label, tuple(Names(label, "month", (k,)) for k in keys))


def adapt(checks: Iterable[Check], *, with_year: bool = False) -> tuple[Check, ...]:
    """The checks in the forms the scorer reads: a month named first is one month (several allowed:
    any of them; ``with_year``: a question over several years that does not name one, where the
    year must be right too), a ranking of months is its first month named first and every month of
    the head named (``text`` patterns); a day named, or a ranking of days, must name that day first."""
    out: list[Check] = []
    for check in checks:
        if isinstance(check, Names) and check.kind == "month":
            out.append(_first_month(check.label, check.items, with_year))
        elif isinstance(check, Names) and check.kind == "date" and len(check.items) == 1:
            out += [
                check,
                Names(f"{check.label}, named first", "text", (first_date_pattern(check.items[0]),)),
            ]
        elif isinstance(check, Ranked) and check.kind == "date":
            out += [check, Names(f"{check.label}, first", "text", (first_date_pattern(check.items[0]),))]
        elif isinstance(check, AnyOf) and all(
            isinstance(o, Ranked) and o.kind == "date" for o in check.options
        ):
            firsts = sorted({o.items[0] for o in check.options if isinstance(o, Ranked)})
            out += [
                check,
                Names(f"{check.label}, first", "text", tuple(first_date_pattern(k) for k in firsts)),
            ]
        elif isinstance(check, Ranked) and check.kind == "month":
            out += [_first_month(check.label, check.items[:1], with_year), _month_ranked(check)]
        elif isinstance(check, AnyOf) and all(
            isinstance(o, Ranked) and o.kind == "month" for o in check.options
        ):
            options = [o for o in check.options if isinstance(o, Ranked)]
            out.append(_first_month(check.label, sorted({o.items[0] for o in options}), with_year))
            out.append(AnyOf(check.label, tuple(_month_ranked(o) for o in options)))
        else:
            out.append(check)
    return tuple(out)


def rel(kind: str, items: Iterable[object]) -> tuple[tuple[str, str], ...]:
    return tuple((kind, str(i)) for i in items)


# ------------------------------------------------------------------------------------------ words


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def say_month(key: str, style: int) -> str:
    y, m = int(key[:4]), int(key[5:7])
    full, abbr = calendar.month_name[m], calendar.month_abbr[m]
    return (
        f"{full.lower()} {y}",
        f"{abbr.lower()} {y}",
        key,
        f"{full} {y}",
        f"{abbr} {y}",
    )[style % 5]


def say_day(d: date, style: int) -> str:
    full, abbr = calendar.month_name[d.month], calendar.month_abbr[d.month]
    if style % 5 == 3 and d.day <= 12:
        style = 0  # 05/03 reads both ways: only write dd/mm when the day cannot be a month
    return (
        f"{d.day} {full.lower()} {d.year}",
        f"{full} {ordinal(d.day)} {d.year}",
        d.isoformat(),
        f"{d.day:02d}/{d.month:02d}/{d.year}",
        f"the {ordinal(d.day)} of {abbr.lower()} {d.year}",
    )[style % 5]


def lower_name(desc: str) -> str:
    return desc.lower()


def plural(words: str) -> str:
    """ "jumbo bag" -> "jumbo bags", "lunch box" -> "lunch boxes", "doily" -> "doilies"; "cases" stays."""
    if re.search(r"[^s]s$", words):
        return words
    if re.search(r"(?:s|x|z|ch|sh)$", words):
        return words + "es"
    if re.search(r"[^aeiou]y$", words):
        return words[:-1] + "ies"
    return words + "s"


# ------------------------------------------------------------------------------------------ bank


class DevBank:
    def __init__(self, data: Data, seed: int) -> None:
        self.d = data
        self.rng = random.Random(seed)
        self.chats: list[Chat] = []
        d, rng = data, self.rng
        if not d.countries or not d.full_months or not d.products:
            raise SystemExit("the dataset has too little data for the dev bank")
        self.uk = d.countries[0]
        pool = d.countries[1:12]
        rng.shuffle(pool)
        self.pool = pool
        self.months = list(d.full_months)
        rng.shuffle(self.months)
        self.products = list(d.products[3:70])
        rng.shuffle(self.products)
        self.years = list(d.years) or [int(d.full_months[-1][:4])]
        self.total = d.fig()
        self._c = self._m = self._p = 0

    # -- picking

    def country(self) -> str:
        """The next country of the shuffled pool (second and later by revenue)."""
        c = self.pool[self._c % len(self.pool)]
        self._c += 1
        return c

    def month(self) -> str:
        m = self.months[self._m % len(self.months)]
        self._m += 1
        return m

    def product(self) -> str:
        p = self.products[self._p % len(self.products)]
        self._p += 1
        return p

    def year(self) -> int:
        return self.rng.choice(self.years)

    def day(self, month: str | None = None, *conds: Cond) -> date:
        """A day with sales (in ``month``, with sales in scope ``conds``)."""
        days = self.d.days_in[month] if month else self.d.days
        for _ in range(40):
            d = self.rng.choice(days)
            if self.d.fig(on_day(d), *conds).orders:
                return d
        raise Skip("no day with sales")

    def say(self, country: str, alias: bool = True) -> str:
        """The country as someone would type it: lower case, often an alias."""
        if alias and country in ALIASES and self.rng.random() < 0.7:
            return self.rng.choice(ALIASES[country])
        return country.lower() if self.rng.random() < 0.8 else country

    def sm(self, key: str) -> str:
        return say_month(key, self.rng.randrange(5))

    def sd(self, d: date) -> str:
        return say_day(d, self.rng.randrange(5))

    def pname(self, code: str) -> str:
        return self.d.name_of[code]

    def customer(self, *, rank: int | None = None, min_orders: int = 2) -> tuple:
        cs = self.d.customers
        if rank is not None:
            return cs[rank]
        fits = [c for c in cs[5:400] if c[3] >= min_orders]
        return self.rng.choice(fits or cs)

    def months_with_prev(self) -> list[str]:
        return [m for m in self.months if add_months(m, -1) in self.d.full_months]

    def months_with_year_before(self) -> list[str]:
        return [m for m in self.d.months if add_months(m, -12) in self.d.months]

    def prev_year_ok(self, year: int) -> bool:
        return year - 1 in self.d.years

    # -- building

    def add(self, title: str, *turns: Turn, blocks: tuple[int, ...] = ()) -> None:
        years = len({m[:4] for m in self.d.months}) > 1

        def open_year(t: Turn) -> bool:  # the question leaves the year open, and the data has several
            return years and not t.needs_previous and not re.search(r"\b(?:19|20)\d\d\b", t.text)

        turns = tuple(replace(t, checks=adapt(t.checks, with_year=open_year(t))) for t in turns)
        self.chats.append(Chat(title, turns, blocks))

    def one(self, title: str, text: str, category: str, *checks: Check, related=()) -> None:
        self.add(title, Turn(text, category, tuple(checks), related=tuple(related)))

    def build(self) -> list[Chat]:
        for part in (
            self.paraphrase,
            self.exclusion,
            self.minimum,
            self.single_day,
            self.share,
            self.comparison,
            self.tell_me_about,
            self.unanswerable,
            self.ranking,
            self.follow_ups,
            self.sequences,
        ):
            for question in part():
                for _ in range(6):  # a Skip draws the next entities: a few tries before leaving it out
                    try:
                        question()
                        break
                    except (Skip, ZeroDivisionError):
                        continue
        return self.chats

    # ---------------------------------------------------------------------------------- paraphrase

    def paraphrase(self):
        d, uk = self.d, self.uk

        def rev_uk_month():
            m = self.month()
            f = d.sold(in_country(uk), in_months(m))
            text = f"rev {self.rng.choice(ALIASES.get(uk, (uk.lower(),)))} {say_month(m, 1)}"
            self.one(
                "terse revenue",
                text,
                "paraphrase",
                money(f"revenue, {uk}, {m}", f),
                related=rel("country", [uk]),
            )

        def country_year():
            c, y = self.country(), self.year()
            f = d.sold(in_country(c), in_year(y))
            text = f"could you tell me how much revenue we made in {self.say(c)} during {y}?"
            self.one(
                "chatty revenue",
                text,
                "paraphrase",
                money(f"revenue, {c}, {y}", f),
                related=rel("country", [c]),
            )

        def orders_country_month():
            c, m = self.country(), self.month()
            f = d.sold(in_country(c), in_months(m))
            text = f"how many orders came in from {self.say(c)} in {say_month(m, 3)}"
            self.one(
                "orders", text, "paraphrase", orders(f"orders, {c}, {m}", f), related=rel("country", [c])
            )

        def buyers_month():
            m = self.month()
            f = d.sold(in_months(m))
            self.one(
                "buyers", f"no. of distinct buyers {self.sm(m)}", "paraphrase", buyers(f"customers, {m}", f)
            )

        def aov_country():
            c = self.country()
            f = d.sold(in_country(c))
            text = self.rng.choice(
                (f"whats the aov for {self.say(c)}", f"avg order value {self.say(c)}, all time")
            )
            self.one(
                "aov", text, "paraphrase", aov(f"average order value, {c}", f), related=rel("country", [c])
            )

        def segment_spend():
            seg = self.rng.choice(SEGMENTS)
            f = d.sold(of_segment(seg))
            text = f"total spend by {seg.lower()} customers to date"
            self.one(
                "segment spend",
                text,
                "paraphrase",
                money(f"revenue, {seg} segment", f),
                related=rel("segment", [seg]),
            )

        def customers_country():
            c = self.country()
            f = d.sold(in_country(c))
            listed = d.conn.execute("SELECT COUNT(*) FROM customers WHERE country = ?", (c,)).fetchone()[0]
            text = f"how many customers have bought from us in {self.say(c)}?"
            self.one(
                "customers",
                text,
                "paraphrase",
                buyers(f"customers, {c}", f, listed),
                related=rel("country", [c]),
            )

        def product_units_year():
            p, y = self.product(), self.year()
            f = d.sold(of_product(p), in_year(y))
            text = f"qty sold of {lower_name(self.pname(p))} in {y}"
            self.one(
                "product units",
                text,
                "paraphrase",
                units(f"units, {self.pname(p)}, {y}", f),
                related=rel("product", [self.pname(p)]),
            )

        def customer_spend():
            cid, seg, *_ = self.customer()
            f = d.sold(of_customer(cid))
            text = f"how much has customer {cid} spent with us altogether"
            self.one(
                "customer spend",
                text,
                "paraphrase",
                money(f"revenue of customer {cid}", f),
                related=rel("segment", [seg]),
            )

        def units_range():
            c = self.country()
            starts = [m for m in d.full_months if add_months(m, 2) in d.full_months]
            m = self.rng.choice(starts)
            f = d.sold(in_country(c), in_months(m, add_months(m, 2)))
            a, b = (
                calendar.month_name[int(m[5:])].lower(),
                calendar.month_name[int(add_months(m, 2)[5:])].lower(),
            )
            text = f"gimme total units shipped to {self.say(c)} between {a} and {b} {add_months(m, 2)[:4]}"
            if m[:4] != add_months(m, 2)[:4]:
                start, end = say_month(m, 0), say_month(add_months(m, 2), 0)
                text = f"gimme total units shipped to {self.say(c)} from {start} to {end}"
            self.one(
                "units range",
                text,
                "paraphrase",
                units(f"units, {c}, {m} to {add_months(m, 2)}", f),
                related=rel("country", [c]),
            )

        def turnover_year():
            y = self.year()
            f = d.sold(in_year(y))
            self.one("turnover", f"whats our turnover for {y}", "paraphrase", money(f"revenue, {y}", f))

        def invoices_month():
            m = self.month()
            f = d.sold(in_months(m))
            text = f"how many invoices did we raise in {self.sm(m)}?"
            self.one("invoices", text, "paraphrase", orders(f"orders, {m}", f))

        def aov_segment_year():
            seg, y = self.rng.choice(SEGMENTS), self.year()
            f = d.sold(of_segment(seg), in_year(y))
            text = f"average order value, {seg.lower()} segment, {y}"
            self.one(
                "segment aov",
                text,
                "paraphrase",
                aov(f"average order value, {seg}, {y}", f),
                related=rel("segment", [seg]),
            )

        def the_states():
            us = next((c for c in ("United States", "USA") if c in d.countries), None)
            if us is None:
                raise Skip("no US")
            y = self.year()
            f = d.sold(in_country(us), in_year(y))
            text = f"how much did the states buy from us in {y}?"
            self.one(
                "the states",
                text,
                "paraphrase",
                money(f"revenue, {us}, {y}", f),
                related=rel("country", [us]),
            )

        def holland_orders():
            if "Netherlands" not in d.countries:
                raise Skip("no Netherlands")
            m = self.month()
            f = d.sold(in_country("Netherlands"), in_months(m))
            text = f"holland orders {say_month(m, 1)}"
            self.one(
                "holland",
                text,
                "paraphrase",
                orders(f"orders, Netherlands, {m}", f),
                related=rel("country", ["Netherlands"]),
            )

        return (
            rev_uk_month,
            the_states,
            holland_orders,
            country_year,
            orders_country_month,
            buyers_month,
            aov_country,
            segment_spend,
            customers_country,
            product_units_year,
            customer_spend,
            units_range,
            turnover_year,
            invoices_month,
            aov_segment_year,
        )

    # ---------------------------------------------------------------------------------- exclusion

    def exclusion(self):
        d, uk = self.d, self.uk
        cat = "exclusion"

        def ex_uk_all():
            f = d.sold(not_country(uk))
            text = self.rng.choice(
                ("revenue excluding the uk", "total revenue ex-UK", "what's revenue without the uk")
            )
            self.one("ex uk", text, cat, money(f"revenue outside {uk}", f), related=rel("country", [uk]))

        def outside_gb_year():
            y = self.year()
            f = d.sold(not_country(uk), in_year(y))
            name = "great britain" if uk == "United Kingdom" else uk.lower()
            self.one(
                "outside gb",
                f"how much did we make outside of {name} in {y}",
                cat,
                money(f"revenue outside {uk}, {y}", f),
                related=rel("country", [uk]),
            )

        def orders_apart_from_two():
            a, b, m = self.country(), self.country(), self.month()
            f = d.sold(not_country(a, b), in_months(m))
            text = f"orders from every country apart from {self.say(a)} and {self.say(b)} in {self.sm(m)}"
            self.one(
                "orders apart from",
                text,
                cat,
                orders(f"orders outside {a} and {b}, {m}", f),
                related=rel("country", [a, b]),
            )

        def top_country_not_uk():
            net = [r for r in d.rows("country", "revenue", not_country(uk)) if r[0] not in PLACEHOLDERS]
            gross = [r for r in d.rows("country", "gross", not_country(uk)) if r[0] not in PLACEHOLDERS]
            tops = {highest("top", "country", net).items[0], highest("top", "country", gross).items[0]}
            uk_word = self.rng.choice(("UK", "uk", "united kingdom"))
            text = f"apart from the {uk_word}, which country brings in the most revenue?"
            if uk != "United Kingdom":
                text = f"apart from {uk.lower()}, which country brings in the most revenue?"
            check = Names("top country by revenue outside the biggest", "country", tuple(sorted(tops)), 1)
            self.one("top ex uk", text, cat, check, related=rel("country", [uk, *(c for c, _ in net[:5])]))

        def customers_outside_year():
            c, y = self.country(), self.year()
            f = d.sold(not_country(c), in_year(y))
            based = d.conn.execute(
                "SELECT COUNT(DISTINCT t.customer_id) FROM transactions t "
                "JOIN customers c ON c.customer_id = t.customer_id "
                "WHERE t.is_cancellation = 0 AND c.country <> ? AND t.invoiced_at >= ? AND t.invoiced_at < ?",
                (c, f"{y}-01-01", f"{y + 1}-01-01"),
            ).fetchone()[0]
            text = f"number of custmers outside {self.say(c)} in {y}"
            self.one(
                "customers outside",
                text,
                cat,
                buyers(f"customers outside {c}, {y}", f, based),
                related=rel("country", [c]),
            )

        def units_everywhere_but():
            c, m = self.country(), self.month()
            f = d.sold(not_country(c), in_months(m))
            text = f"units sold everywhere but {self.say(c)} during {self.sm(m)}"
            self.one("units but", text, cat, units(f"units outside {c}, {m}", f), related=rel("country", [c]))

        def not_counting_segment():
            seg = self.rng.choice(SEGMENTS)
            f = d.sold(not_segment(seg))
            others = d.fig(Cond("s.segment IS NOT NULL AND s.segment <> ?", (seg,)))
            check = Num(
                f"revenue not from {seg} customers",
                _vals(f.revenue, f.gross, others.revenue, others.gross),
                unit="money",
            )
            text = f"total revenue not counting {seg.lower()} customers"
            self.one("not segment", text, cat, check, related=rel("segment", [s for s in SEGMENTS]))

        def ex_uk_ex_ireland():
            y = self.year()
            second = next((c for c in ("EIRE", "Ireland") if c in d.countries), self.country())
            f = d.sold(not_country(uk, second), in_year(y))
            say2 = "ireland" if second in ("EIRE", "Ireland") else second.lower()
            text = f"rev ex uk ex {say2} for {y}"
            self.one(
                "ex two",
                text,
                cat,
                money(f"revenue outside {uk} and {second}, {y}", f),
                related=rel("country", [uk, second]),
            )

        def month_without_product():
            m = self.month()
            rows = d.merch(d.rows("product", "revenue", in_months(m)))
            code = next((k for k, _ in rows[:15] if k in d.products), None)
            if code is None:
                raise Skip("no nameable product")
            f = d.sold(in_months(m), not_product(code))
            text = f"what was {self.sm(m)} revenue if we leave out the {lower_name(self.pname(code))}"
            self.one(
                "without product",
                text,
                cat,
                money(f"revenue, {m}, without {self.pname(code)}", f),
                related=rel("product", [self.pname(code)]),
            )

        def top_products_without_first():
            net = d.rows("product", "revenue")
            merch = d.merch(net)
            first = merch[0][0]
            lists = [
                [r for r in rows if d.label(r[0]) != d.name_of[first]] for rows in d.product_lists("revenue")
            ]
            rest_all = lists[0]
            check = ranked("top 3 products after the best seller", "product", lists, 3, d.label)
            text = f"top 3 products by revenue excluding {lower_name(d.name_of[first])}"
            related = rel("product", [d.name_of[k] for k, _ in rest_all[:8]] + [d.name_of[first]])
            self.one("top without first", text, cat, check, related=related)

        def non_uk_aov():
            f = d.sold(not_country(uk))
            self.one(
                "non uk aov",
                "non-uk aov?",
                cat,
                aov(f"average order value outside {uk}", f),
                related=rel("country", [uk]),
            )

        def best_month_ignoring_uk():
            rows = d.rows("month", "revenue", not_country(uk))
            check = highest(f"best month outside {uk}", "month", rows)
            text = f"which month had the highest revenue if you ignore {self.say(uk)}"
            self.one("best month ex uk", text, cat, check, related=rel("country", [uk]))

        def segment_orders_not_country():
            seg, c = self.rng.choice(SEGMENTS), self.country()
            f = d.sold(of_segment(seg), not_country(c))
            text = f"how many orders did {seg.lower()} customers place, not including {self.say(c)}"
            self.one(
                "segment orders ex",
                text,
                cat,
                orders(f"orders, {seg}, outside {c}", f),
                related=rel("segment", [seg]) + rel("country", [c]),
            )

        def year_without_cancellations():
            y = self.year()
            f = d.sold(in_year(y))
            if abs(f.gross - f.revenue) < 0.01:
                raise Skip("no cancellations")
            text = f"revenue in {y} excluding cancellations"
            self.one("ex cancellations", text, cat, gross_money(f"revenue {y} without cancellations", f))

        def units_without_returns():
            c = self.country()
            f = d.sold(in_country(c))
            if f.gross_units == f.units:
                raise Skip("no returns")
            check = Num(f"units, {c}, without cancellations", (float(f.gross_units),), unit="units")
            text = f"how many units did we sell in {self.say(c)} not counting the returns"
            self.one("units ex returns", text, cat, check, related=rel("country", [c]))

        def customers_without_uk_year():
            y = self.year()
            f = d.sold(not_country(uk), in_year(y))
            text = f"customers in {y}, leaving out the {self.rng.choice(('uk', 'british'))} ones"
            self.one(
                "customers ex uk",
                text,
                cat,
                buyers(f"customers outside {uk}, {y}", f),
                related=rel("country", [uk]),
            )

        def all_but_top_customer():
            cid = d.customers[0][0]
            f = d.sold(not_customers([cid]))
            text = f"what's revenue from everyone except customer {cid}"
            self.one(
                "ex customer",
                text,
                cat,
                money(f"revenue without customer {cid}", f),
                related=rel("customer", [cid]),
            )

        def most_customers_not_uk():
            rows = [r for r in d.rows("country", "customers", not_country(uk)) if r[0] not in PLACEHOLDERS]
            check = highest(f"country with most customers outside {uk}", "country", rows)
            text = "which country had the most customers apart from the uk?"
            if uk != "United Kingdom":
                text = f"which country had the most customers apart from {uk.lower()}?"
            self.one(
                "most customers ex uk",
                text,
                cat,
                check,
                related=rel("country", [uk, *(c for c, _ in rows[:5])]),
            )

        return (
            ex_uk_all,
            outside_gb_year,
            orders_apart_from_two,
            top_country_not_uk,
            customers_outside_year,
            units_everywhere_but,
            not_counting_segment,
            ex_uk_ex_ireland,
            month_without_product,
            top_products_without_first,
            non_uk_aov,
            best_month_ignoring_uk,
            segment_orders_not_country,
            year_without_cancellations,
            units_without_returns,
            customers_without_uk_year,
            all_but_top_customer,
            most_customers_not_uk,
        )

    # ---------------------------------------------------------------------------------- minimum

    def minimum(self):
        d, cat = self.d, "minimum"

        def weakest_month():
            rows = d.rows("month", "revenue")
            full = [r for r in rows if r[0] in d.full_months]
            check = lowest("weakest month by revenue", "month", rows, also=lowest("", "month", full).items)
            self.one("weakest month", "what was our weakest month for revenue", cat, check)

        def quietest_month_orders():
            y = self.year()
            rows = [r for r in d.rows("month", "orders", in_year(y)) if r[0] in d.full_months]
            check = lowest(f"month with fewest orders, {y}", "month", rows)
            self.one("quietest month", f"quietest month for orders in {y}?", cat, check)

        def lowest_country_month():
            m = self.month()
            rows = d.rows("country", "revenue", in_months(m))
            real = [r for r in rows if r[0] not in PLACEHOLDERS]
            check = lowest(
                f"country with the lowest revenue, {m}",
                "country",
                rows,
                also=lowest("", "country", real).items,
            )
            text = f"which country had the lowest revenue in {self.sm(m)}"
            self.one("lowest country", text, cat, check, related=rel("country", [c for c, _ in rows[-5:]]))

        def smallest_market():
            rows = d.rows("country", "customers")
            real = [r for r in rows if r[0] not in PLACEHOLDERS]
            check = lowest(
                "country with the fewest customers", "country", rows, also=lowest("", "country", real).items
            )
            self.one(
                "smallest market",
                "smallest market by number of customers?",
                cat,
                check,
                related=rel("country", [c for c, _ in rows[-6:]]),
            )

        def slowest_day():
            m = self.month()
            rows = d.rows("day", "revenue", in_months(m))
            check = lowest(f"day with the lowest revenue, {m}", "date", rows)
            if len(check.items) > 1:
                raise Skip("tie")
            self.one("slowest day", f"slowest trading day in {self.sm(m)} by revenue", cat, check)

        def segment_least():
            rows = d.segment_rows("revenue")
            check = lowest("segment with the least revenue", "segment", rows)
            text = self.rng.choice(("which segment spends the least in total", "lowest spending segment?"))
            self.one("least segment", text, cat, check, OnlySegments(check.items))

        def worst_month_country():
            for _ in range(6):
                c = self.country()
                rows = [r for r in d.rows("month", "revenue", in_country(c)) if r[0] in d.full_months]
                if len(rows) == len(d.full_months):
                    break
            else:
                raise Skip("no country selling every month")
            check = lowest(f"worst month for {c}", "month", rows)
            text = f"worst month for {self.say(c)} in terms of sales"
            self.one("worst month country", text, cat, check, related=rel("country", [c]))

        def lowest_aov_country():
            rows = d.rows("country", "aov")
            real = [r for r in rows if r[0] not in PLACEHOLDERS]
            check = lowest(
                "country with the lowest average order value",
                "country",
                rows,
                also=lowest("", "country", real).items,
            )
            self.one(
                "lowest aov",
                "lowest aov by country - which one?",
                cat,
                check,
                related=rel("country", [c for c, _ in rows[-5:]]),
            )

        def fewest_units_top10():
            top = d.merch(d.rows("product", "revenue"))[:10]
            codes = [k for k, _ in top]
            unit_rows = [(k, d.fig(of_product(k)).units) for k in codes]
            check = lowest("top-10 product with the fewest units", "product", unit_rows, name=d.name_of.get)
            if len(check.items) > 1:
                raise Skip("tie")
            text = "of our top 10 products by revenue, which one sold the fewest units?"
            self.one(
                "fewest units top10", text, cat, check, related=rel("product", [d.name_of[k] for k in codes])
            )

        def fewest_customers_month_year():
            y = self.year()
            rows = [r for r in d.rows("month", "customers", in_year(y)) if r[0] in d.full_months]
            check = lowest(f"month with fewest customers, {y}", "month", rows)
            self.one("fewest customers month", f"in {y} what month had the fewest customers", cat, check)

        def least_units_country_year():
            y = self.year()
            rows = d.rows("country", "units", in_year(y))
            real = [r for r in rows if r[0] not in PLACEHOLDERS]
            check = lowest(
                f"country with the fewest units, {y}", "country", rows, also=lowest("", "country", real).items
            )
            text = f"where did we sell the least units in {y}? country level"
            self.one("least units", text, cat, check, related=rel("country", [c for c, _ in rows[-5:]]))

        return (
            weakest_month,
            quietest_month_orders,
            lowest_country_month,
            smallest_market,
            slowest_day,
            segment_least,
            worst_month_country,
            lowest_aov_country,
            fewest_units_top10,
            fewest_customers_month_year,
            least_units_country_year,
        )

    # ---------------------------------------------------------------------------------- single day

    def single_day(self):
        d, uk, cat = self.d, self.uk, "single_day"

        def rev_day():
            day = self.day()
            self.one(
                "revenue day",
                f"revenue on {say_day(day, 0)}",
                cat,
                money(f"revenue, {day}", d.sold(on_day(day))),
            )

        def orders_day():
            day = self.day()
            text = f"how many orders did we get on {say_day(day, 2)}?"
            self.one("orders day", text, cat, orders(f"orders, {day}", d.sold(on_day(day))))

        def buyers_day():
            day = self.day()
            text = f"how many diff customers bought something on {say_day(day, 1)}"
            self.one("buyers day", text, cat, buyers(f"customers, {day}", d.sold(on_day(day))))

        def units_day():
            day = self.day()
            self.one(
                "units day", f"units sold {say_day(day, 3)}", cat, units(f"units, {day}", d.sold(on_day(day)))
            )

        def uk_take_day():
            day = self.day(None, in_country(uk))
            text = f"what did {self.say(uk)} take on {say_day(day, 4)}"
            self.one(
                "uk day",
                text,
                cat,
                money(f"revenue, {uk}, {day}", d.sold(in_country(uk), on_day(day))),
                related=rel("country", [uk]),
            )

        def best_day_month():
            m = self.month()
            rows = d.rows("day", "revenue", in_months(m))
            check = highest(f"day with the highest revenue, {m}", "date", rows)
            self.one("best day", f"which day in {self.sm(m)} had the highest sales?", cat, check)

        def aov_day():
            day = self.day()
            self.one(
                "aov day",
                f"aov on {self.sd(day)}",
                cat,
                aov(f"average order value, {day}", d.sold(on_day(day))),
            )

        def best_product_day():
            day = self.day()
            rows = d.rows("product", "revenue", on_day(day))
            check = highest(f"best selling product, {day}", "product", rows, name=d.name_of.get)
            text = f"best selling product on {self.sd(day)}, by revenue"
            self.one(
                "product day", text, cat, check, related=rel("product", [d.name_of[k] for k, _ in rows[:5]])
            )

        def country_day():
            c = self.country()
            day = self.day(None, in_country(c))
            text = f"{self.say(c)} sales {self.sd(day)}"
            self.one(
                "country day",
                text,
                cat,
                money(f"revenue, {c}, {day}", d.sold(in_country(c), on_day(day))),
                related=rel("country", [c]),
            )

        def holiday():
            candidates = []
            for y in sorted({x.year for x in d.days}):
                candidates += [
                    (date(y, 12, 24), f"christmas eve {y}"),
                    (date(y, 12, 31), f"new year's eve {y}"),
                    (date(y, 2, 14), f"valentine's day {y}"),
                    (date(y, 12, 1), f"the 1st of december {y}"),
                ]
            have = [(day, name) for day, name in candidates if d.fig(on_day(day)).orders]
            if not have:
                raise Skip("no holiday with sales")
            day, name = self.rng.choice(have)
            self.one(
                "holiday", f"how many orders on {name}?", cat, orders(f"orders, {day}", d.sold(on_day(day)))
            )

        def busy_day():
            day = self.day()
            text = f"was {say_day(day, 1)} a busy day? how much did we sell"
            self.one("busy day", text, cat, money(f"revenue, {day}", d.sold(on_day(day))))

        return (
            rev_day,
            orders_day,
            buyers_day,
            units_day,
            uk_take_day,
            best_day_month,
            aov_day,
            best_product_day,
            country_day,
            holiday,
            busy_day,
        )

    # ---------------------------------------------------------------------------------- share

    def share(self):
        d, uk, total, cat = self.d, self.uk, self.total, "share"

        def country_rev_share():
            c = self.country()
            text = self.rng.choice(
                (f"what share of revenue comes from {self.say(c)}", f"{self.say(c)} share of total sales?")
            )
            self.one(
                "country share",
                text,
                cat,
                share(f"{c} share of revenue", d.sold(in_country(c)), total),
                related=rel("country", [c]),
            )

        def uk_orders_share_year():
            y = self.year()
            check = share(
                f"{uk} share of orders, {y}", d.sold(in_country(uk), in_year(y)), d.sold(in_year(y)), "orders"
            )
            self.one(
                "uk orders share",
                f"% of orders from the {self.rng.choice(('uk', 'UK'))} in {y}",
                cat,
                check,
                related=rel("country", [uk]),
            )

        def customers_share_country():
            c = self.country()
            part = d.sold(in_country(c))
            listed = d.conn.execute("SELECT COUNT(*) FROM customers WHERE country = ?", (c,)).fetchone()[0]
            values = _vals(part.customers / total.customers, listed / d.customer_table)
            if min(values) < 0.01:
                raise Skip("too small a share to check")
            check = Num(f"{c} share of customers", values, percent=True)
            self.one(
                "customer share",
                f"what fraction of our customers are based in {self.say(c)}",
                cat,
                check,
                related=rel("country", [c]),
            )

        def segment_rev_share():
            seg = self.rng.choice(SEGMENTS)
            check = share(f"{seg} share of revenue", d.sold(of_segment(seg)), total)
            self.one(
                "segment share",
                f"{seg.lower()} segment's share of revenue",
                cat,
                check,
                related=rel("segment", [seg]),
            )

        def segment_customer_share():
            seg = self.rng.choice(SEGMENTS)
            n = d.segment_counts[seg]
            values = _vals(n / len(d.customers), n / total.customers, n / d.customer_table)
            check = Num(f"{seg} share of customers", values, percent=True)
            text = f"what percentage of customers are {seg.lower()}?"
            self.one("segment customers share", text, cat, check, OnlySegments((seg,)))

        def country_month_share():
            c, m = self.country(), self.month()
            check = share(
                f"{c} share of revenue, {m}", d.sold(in_country(c), in_months(m)), d.sold(in_months(m))
            )
            text = f"how much of {self.sm(m)}'s revenue was {self.say(c)}, as a percentage"
            self.one("country month share", text, cat, check, related=rel("country", [c]))

        def product_units_share():
            p, y = self.product(), self.year()
            check = share(
                f"share of {self.pname(p)} units sold outside {uk}, {y}",
                d.sold(of_product(p), in_year(y), not_country(uk)),
                d.sold(of_product(p), in_year(y)),
                "units",
            )
            where = "the uk" if uk == "United Kingdom" else uk.lower()
            text = f"what % of the {lower_name(self.pname(p))} units in {y} went outside {where}"
            related = rel("product", [self.pname(p)]) + rel("country", [uk])
            self.one("product share", text, cat, check, related=related)

        def non_uk_share():
            check = share(f"share of revenue outside {uk}", d.sold(not_country(uk)), total)
            self.one(
                "non uk share",
                "what percent of revenue is from outside the uk",
                cat,
                check,
                related=rel("country", [uk]),
            )

        def country_orders_share_month():
            c, m = self.country(), self.month()
            check = share(
                f"{c} share of orders, {m}",
                d.sold(in_country(c), in_months(m)),
                d.sold(in_months(m)),
                "orders",
            )
            self.one(
                "orders share month",
                f"{self.say(c)} as a % of total orders in {self.sm(m)}",
                cat,
                check,
                related=rel("country", [c]),
            )

        def top_product_share():
            net = d.rows("product", "revenue")
            top = net[0][0]
            check = share("top product's share of revenue", d.sold(of_product(top)), total)
            merch_top = d.merch(net)[0][0]
            if merch_top != top:
                alt = share("top product's share of revenue", d.sold(of_product(merch_top)), total)
                check = Num(check.label, _vals(*check.values, *alt.values), percent=True)
            related = rel("product", [d.name_of[k] for k, _ in net[:3]] + [d.name_of[merch_top]])
            self.one(
                "top product share",
                "what's our top product's share of total revenue",
                cat,
                check,
                related=related,
            )

        def top10_customers_share():
            ids = [c[0] for c in d.customers[:10]]
            check = share(
                "top 10 customers' share of revenue",
                d.sold(Cond(f"t.customer_id IN ({','.join('?' * 10)})", tuple(ids))),
                total,
            )
            text = "what share of revenue do our top 10 customers account for"
            self.one("top10 share", text, cat, check, related=rel("customer", ids))

        def q4_share_year():
            y = self.year()
            q4 = [f"{y}-10", f"{y}-11", f"{y}-12"]
            if any(m not in d.months for m in q4):
                raise Skip("no q4")
            check = share(f"Q4 share of {y} revenue", d.sold(in_months(*q4)), d.sold(in_year(y)))
            self.one("q4 share", f"what portion of {y} revenue came in q4", cat, check)

        def segment_share_in_country():
            seg, c = self.rng.choice(SEGMENTS), self.country()
            check = share(
                f"{seg} share of {c} revenue", d.sold(of_segment(seg), in_country(c)), d.sold(in_country(c))
            )
            text = f"share of {self.say(c)} revenue coming from {seg.lower()} customers"
            self.one(
                "segment in country share",
                text,
                cat,
                check,
                related=rel("country", [c]) + rel("segment", [seg]),
            )

        def slice_of_pie():
            c, m = self.country(), self.month()
            check = share(
                f"{c} share of revenue, {m}", d.sold(in_country(c), in_months(m)), d.sold(in_months(m))
            )
            who = self.say(c, alias=False)
            mark = "'" if who.endswith("s") else "'s"
            text = f"whats {who}{mark} slice of the pie in {say_month(m, 1)}"
            self.one("slice", text, cat, check, related=rel("country", [c]))

        def new_orders_share():
            y = self.year()
            check = share(
                f"New customers' share of orders, {y}",
                d.sold(of_segment("New"), in_year(y)),
                d.sold(in_year(y)),
                "orders",
            )
            self.one(
                "new orders share",
                f"proportion of {y} orders placed by new customers",
                cat,
                check,
                related=rel("segment", ["New"]),
            )

        def buyers_share_country_year():
            c, y = self.country(), self.year()
            check = share(
                f"{c} share of customers, {y}",
                d.sold(in_country(c), in_year(y)),
                d.sold(in_year(y)),
                "customers",
            )
            self.one(
                "buyers share",
                f"what % of {y}'s buyers were from {self.say(c)}?",
                cat,
                check,
                related=rel("country", [c]),
            )

        def product_month_share():
            m = self.month()
            rows = d.merch(d.rows("product", "revenue", in_months(m)))
            code = next((k for k, _ in rows[:20] if k in d.products), None)
            if code is None:
                raise Skip("no nameable product")
            check = share(
                f"{self.pname(code)} share of revenue, {m}",
                d.sold(of_product(code), in_months(m)),
                d.sold(in_months(m)),
            )
            text = f"{self.sm(m)}: what fraction of revenue was {lower_name(self.pname(code))}"
            self.one("product month share", text, cat, check, related=rel("product", [self.pname(code)]))

        def two_countries_share():
            a, b = self.country(), self.country()
            check = share(f"{a} and {b} share of revenue", d.sold(in_country(a, b)), total)
            text = (
                f"how much of our revenue is from {self.say(a)} and {self.say(b)} combined, percentage-wise"
            )
            self.one("two countries share", text, cat, check, related=rel("country", [a, b]))

        return (
            country_rev_share,
            uk_orders_share_year,
            customers_share_country,
            segment_rev_share,
            segment_customer_share,
            country_month_share,
            product_units_share,
            non_uk_share,
            country_orders_share_month,
            top_product_share,
            top10_customers_share,
            q4_share_year,
            segment_share_in_country,
            slice_of_pie,
            new_orders_share,
            buyers_share_country_year,
            product_month_share,
            two_countries_share,
        )

    # ---------------------------------------------------------------------------------- comparison

    def comparison(self):
        d, uk, cat = self.d, self.uk, "comparison"

        def rv(f: Fig) -> tuple[float, ...]:
            return _vals(f.revenue, f.gross)

        def month_vs_prev():
            m = self.rng.choice(self.months_with_prev())
            p = add_months(m, -1)
            a, b = d.sold(in_months(m)), d.sold(in_months(p))
            text = f"how did {self.sm(m)} compare with {say_month(p, 0).split()[0]} for revenue?"
            self.one("month vs prev", text, cat, both(f"revenue {m} and {p}", rv(a), rv(b), "money"))

        def month_vs_year_before():
            ms = self.months_with_year_before()
            if not ms:
                raise Skip("no month a year earlier")
            m = self.rng.choice(ms)
            a, b = d.sold(in_months(m)), d.sold(in_months(add_months(m, -12)))
            text = self.rng.choice(
                (f"{self.sm(m)} vs same month last year, revenue", f"yoy revenue for {self.sm(m)}?")
            )
            self.one(
                "yoy month", text, cat, both(f"revenue {m} and {add_months(m, -12)}", rv(a), rv(b), "money")
            )

        def two_countries_year():
            a, b, y = self.country(), self.country(), self.year()
            fa, fb = d.sold(in_country(a), in_year(y)), d.sold(in_country(b), in_year(y))
            text = f"{self.say(a)} vs {self.say(b)} revenue in {y}"
            self.one(
                "two countries",
                text,
                cat,
                both(f"revenue {a} and {b}, {y}", rv(fa), rv(fb), "money"),
                related=rel("country", [a, b]),
            )

        def two_months_orders():
            m1, m2 = sorted((self.month(), self.month()))
            if m1 == m2:
                raise Skip("same month")
            a, b = d.sold(in_months(m1)), d.sold(in_months(m2))
            text = f"orders in {self.sm(m1)} compared to {self.sm(m2)}"
            self.one(
                "two months", text, cat, both(f"orders {m1} and {m2}", (a.orders,), (b.orders,), "orders")
            )

        def halves():
            y = self.year()
            h1 = d.sold(in_months(f"{y}-01", f"{y}-06"))
            h2 = d.sold(in_months(f"{y}-07", f"{y}-12"))
            text = self.rng.choice((f"first half vs second half of {y}, sales", f"h1 v h2 {y} revenue"))
            self.one("halves", text, cat, both(f"revenue H1 and H2 {y}", rv(h1), rv(h2), "money"))

        def q1_q2():
            y = self.year()
            if any(f"{y}-{m:02d}" not in d.full_months for m in range(1, 7)):
                raise Skip("no full first half")
            q1, q2 = d.sold(in_months(f"{y}-01", f"{y}-03")), d.sold(in_months(f"{y}-04", f"{y}-06"))
            self.one(
                "quarters",
                f"q1 vs q2 {y} revenue",
                cat,
                both(f"revenue Q1 and Q2 {y}", rv(q1), rv(q2), "money"),
            )

        def year_vs_year():
            ys = [y for y in self.years if self.prev_year_ok(y)]
            if not ys:
                raise Skip("no two full years")
            y = self.rng.choice(ys)
            a, b = d.sold(in_year(y)), d.sold(in_year(y - 1))
            text = f"how does {y} compare to {y - 1}? revenue pls"
            self.one("year vs year", text, cat, both(f"revenue {y} and {y - 1}", rv(a), rv(b), "money"))

        def customers_month_vs_prev():
            c = self.country()
            m = self.rng.choice(self.months_with_prev())
            p = add_months(m, -1)
            a, b = d.sold(in_country(c), in_months(m)), d.sold(in_country(c), in_months(p))
            text = f"customers in {self.say(c)}: {self.sm(m)} versus the month before"
            self.one(
                "customers vs prev",
                text,
                cat,
                both(f"customers {c}, {m} and {p}", (a.customers,), (b.customers,), "customers"),
                related=rel("country", [c]),
            )

        def aov_two():
            c = self.country()
            a, b = d.sold(in_country(uk)), d.sold(in_country(c))
            text = f"aov {self.say(uk)} vs {self.say(c)}"
            self.one(
                "aov two",
                text,
                cat,
                both(f"average order value {uk} and {c}", a.aov(), b.aov(), "money"),
                related=rel("country", [uk, c]),
            )

        def segments_year():
            y = self.year()
            a, b = d.sold(of_segment("High Value"), in_year(y)), d.sold(of_segment("Regular"), in_year(y))
            text = f"high value vs regular - who spent more in {y}?"
            self.one(
                "segments",
                text,
                cat,
                both(f"revenue High Value and Regular, {y}", rv(a), rv(b), "money"),
                related=rel("segment", ["High Value", "Regular"]),
            )

        def product_units_vs_prev():
            for _ in range(8):
                p = self.product()
                m = self.rng.choice(self.months_with_prev())
                a, b = d.fig(of_product(p), in_months(m)), d.fig(of_product(p), in_months(add_months(m, -1)))
                if a.orders and b.orders:
                    break
            else:
                raise Skip("no product sold in two months running")
            text = f"units of {lower_name(self.pname(p))} in {self.sm(m)} vs the previous month"
            check = both(
                f"units {self.pname(p)}, {m} and {add_months(m, -1)}",
                _vals(a.units, a.gross_units),
                _vals(b.units, b.gross_units),
                "units",
            )
            self.one("product vs prev", text, cat, check, related=rel("product", [self.pname(p)]))

        def up_or_down():
            c = self.country()
            m = self.rng.choice(self.months_with_prev())
            p = add_months(m, -1)
            a, b = d.sold(in_country(c), in_months(m)), d.sold(in_country(c), in_months(p))
            text = f"was {self.say(c)} up or down in {self.sm(m)} vs {say_month(p, 1)}?"
            self.one(
                "up or down",
                text,
                cat,
                both(f"revenue {c}, {m} and {p}", rv(a), rv(b), "money"),
                related=rel("country", [c]),
            )

        def quarter_year_before():
            options = []
            for y in self.years:
                for q in range(1, 5):
                    ms = [f"{y}-{3 * q - 2 + i:02d}" for i in range(3)]
                    earlier = [add_months(m, -12) for m in ms]
                    if all(m in d.full_months for m in ms + earlier):
                        options.append((y, q, ms, earlier))
            if not options:
                raise Skip("no quarter a year earlier")
            y, q, ms, earlier = self.rng.choice(options)
            a, b = d.sold(in_months(*ms)), d.sold(in_months(*earlier))
            text = f"Q{q} {y} against the same quarter a year before"
            self.one("quarter yoy", text, cat, both(f"revenue Q{q} {y} and {y - 1}", rv(a), rv(b), "money"))

        def country_orders_year_before():
            ys = [y for y in self.years if self.prev_year_ok(y)]
            if not ys:
                raise Skip("no year before")
            c, y = self.country(), self.rng.choice(ys)
            a, b = d.sold(in_country(c), in_year(y)), d.sold(in_country(c), in_year(y - 1))
            text = f"how did oders from {self.say(c)} in {y} stack up against the previous year"
            self.one(
                "orders yoy",
                text,
                cat,
                both(f"orders {c}, {y} and {y - 1}", (a.orders,), (b.orders,), "orders"),
                related=rel("country", [c]),
            )

        def uk_vs_rest():
            m = self.month()
            a, b = d.sold(in_country(uk), in_months(m)), d.sold(not_country(uk), in_months(m))
            text = f"compare revenue from {self.say(uk)} and the rest of the world in {self.sm(m)}"
            self.one(
                "uk vs rest",
                text,
                cat,
                both(f"revenue {uk} and outside, {m}", rv(a), rv(b), "money"),
                related=rel("country", [uk]),
            )

        def who_had_more_customers():
            a, b, m = self.country(), self.country(), self.month()
            fa, fb = d.sold(in_country(a), in_months(m)), d.sold(in_country(b), in_months(m))
            text = f"{self.say(a)} or {self.say(b)}, which had more customers in {self.sm(m)}?"
            self.one(
                "more customers",
                text,
                cat,
                both(f"customers {a} and {b}, {m}", (fa.customers,), (fb.customers,), "customers"),
                related=rel("country", [a, b]),
            )

        return (
            month_vs_prev,
            month_vs_year_before,
            two_countries_year,
            two_months_orders,
            halves,
            q1_q2,
            year_vs_year,
            customers_month_vs_prev,
            aov_two,
            segments_year,
            product_units_vs_prev,
            up_or_down,
            quarter_year_before,
            country_orders_year_before,
            uk_vs_rest,
            who_had_more_customers,
        )

    # ---------------------------------------------------------------------------------- tell me about

    def _country_related(self, *conds: Cond) -> tuple[tuple[str, str], ...]:
        d = self.d
        products = [d.name_of[k] for k, _ in d.rows("product", "revenue", *conds)[:5]]
        products += [d.name_of[k] for k, _ in d.rows("product", "units", *conds)[:5]]
        customers = [k for k, _ in d.rows("customer", "revenue", *conds)[:5]]
        return rel("product", dict.fromkeys(products)) + rel("customer", customers) + rel("segment", SEGMENTS)

    def tell_me_about(self):
        d, uk, cat = self.d, self.uk, "tell_me_about"

        def about_country():
            c = self.country()
            f = d.sold(in_country(c))
            text = self.rng.choice(
                (f"tell me about {self.say(c)}", f"what can you tell me about {self.say(c)}?")
            )
            self.one(
                "about country",
                text,
                cat,
                overview(f"figures for {c}", f),
                related=rel("country", [c]) + self._country_related(in_country(c)),
            )

        def about_product_lower():
            p = self.product()
            f = d.sold(of_product(p))
            text = f"what can you tell me about the {lower_name(self.pname(p))}"
            self.one(
                "about product",
                text,
                cat,
                overview(f"figures for {self.pname(p)}", f),
                related=self._product_related(p),
            )

        def about_segment():
            seg = self.rng.choice(SEGMENTS)
            f = d.sold(of_segment(seg))
            figures = (
                (float(d.segment_counts[seg]),),
                _vals(f.revenue, f.gross),
                (float(f.orders),),
                f.aov(),
            )
            check = Nums(f"figures for the {seg} segment", figures, 2, unit="mixed")
            related = rel("customer", [k for k, _ in d.rows("customer", "revenue", of_segment(seg))[:5]])
            related += rel("country", [k for k, _ in d.rows("country", "revenue", of_segment(seg))[:5]])
            self.one(
                "about segment",
                f"tell me about the {seg.lower()} segment",
                cat,
                check,
                OnlySegments((seg,)),
                related=related,
            )

        def about_month():
            m = self.month()
            f = d.sold(in_months(m))
            related = rel(
                "country", [k for k, _ in d.rows("country", "revenue", in_months(m))[:5]]
            ) + self._country_related(in_months(m))
            text = self.rng.choice(
                (f"give me the rundown on {self.sm(m)}", f"how did {self.sm(m)} go overall?")
            )
            self.one("about month", text, cat, overview(f"figures for {m}", f), related=related)

        def about_customer():
            cid, seg, country, n_orders, revenue = self.customer(min_orders=3)
            f = d.sold(of_customer(cid))
            figures = (_vals(f.revenue, f.gross, revenue), (float(f.orders), float(n_orders)))
            products = [d.name_of[k] for k, _ in d.rows("product", "revenue", of_customer(cid))[:5]]
            checks = (
                Nums(f"revenue and orders of customer {cid}", figures, 1, unit="mixed"),
                Names(f"segment of {cid}", "segment", (seg,)),
                OnlySegments((seg,)),
            )
            self.add(
                "about customer",
                Turn(
                    f"anything interesting about customer {cid}?",
                    cat,
                    checks,
                    related=rel("product", products) + rel("country", [country]),
                ),
            )

        def about_product_caps():
            p = self.product()
            f = d.sold(of_product(p))
            self.one(
                "about product caps",
                f"info on {self.pname(p)}",
                cat,
                overview(f"figures for {self.pname(p)}", f),
                related=self._product_related(p),
            )

        def about_uk():
            f = d.sold(in_country(uk))
            text = f"tell me abt {self.say(uk)}"
            self.one(
                "about uk",
                text,
                cat,
                overview(f"figures for {uk}", f),
                related=rel("country", [uk]) + self._country_related(in_country(uk)),
            )

        def about_month_2():
            m = self.month()
            f = d.sold(in_months(m))
            related = rel(
                "country", [k for k, _ in d.rows("country", "revenue", in_months(m))[:5]]
            ) + self._country_related(in_months(m))
            self.one(
                "about month 2",
                f"what happened in {say_month(m, 3)}? tell me everything",
                cat,
                overview(f"figures for {m}", f),
                related=related,
            )

        def about_product_title():
            p = self.product()
            f = d.sold(of_product(p))
            title = self.pname(p).title()
            self.one(
                "about product title",
                f"{title} - tell me about it",
                cat,
                overview(f"figures for {self.pname(p)}", f),
                related=self._product_related(p),
            )

        def about_country_year():
            c, y = self.country(), self.year()
            f = d.sold(in_country(c), in_year(y))
            related = rel("country", [c]) + self._country_related(in_country(c), in_year(y))
            self.one(
                "about country year",
                f"tell me about {self.say(c)} in {y}",
                cat,
                overview(f"figures for {c}, {y}", f),
                related=related,
            )

        def describe_segment():
            seg = self.rng.choice(SEGMENTS)
            f = d.sold(of_segment(seg))
            figures = (
                (float(d.segment_counts[seg]),),
                _vals(f.revenue, f.gross),
                (float(f.orders),),
                f.aov(),
            )
            check = Nums(f"figures for the {seg} segment", figures, 2, unit="mixed")
            related = rel("customer", [k for k, _ in d.rows("customer", "revenue", of_segment(seg))[:5]])
            related += rel("country", [k for k, _ in d.rows("country", "revenue", of_segment(seg))[:5]])
            self.one(
                "describe segment",
                f"describe our {seg.lower()} customers for me",
                cat,
                check,
                OnlySegments((seg,)),
                related=related,
            )

        return (
            about_country,
            about_product_lower,
            about_segment,
            about_month,
            about_customer,
            about_product_caps,
            about_uk,
            about_month_2,
            about_product_title,
            about_country_year,
            describe_segment,
        )

    def _product_related(self, code: str) -> tuple[tuple[str, str], ...]:
        d = self.d
        countries = [k for k, _ in d.rows("country", "revenue", of_product(code))[:5]]
        customers = [k for k, _ in d.rows("customer", "revenue", of_product(code))[:5]]
        return rel("product", [d.name_of[code]]) + rel("country", countries) + rel("customer", customers)

    # ---------------------------------------------------------------------------------- unanswerable

    def absent_countries(self) -> list[str]:
        held = {c.lower() for c in self.d.all_countries}
        held |= {a.lower() for c in self.d.all_countries for a in ALIASES.get(c, ())}
        return [c for c in ABSENT_COUNTRIES if c.lower() not in held]

    def absent_product(self) -> str:
        d = self.d
        descs = [desc for desc in d.name_of.values()]
        descs += [r[0] for r in d.conn.execute("SELECT description FROM product_names")]
        upper = " \n ".join(x.upper() for x in descs)
        firsts: dict[str, int] = {}
        lasts: dict[str, int] = {}
        for desc in d.name_of.values():
            words = desc.split()
            if len(words) >= 2 and words[0].isalpha() and words[-1].isalpha():
                firsts[words[0]] = firsts.get(words[0], 0) + 1
                lasts[words[-1]] = lasts.get(words[-1], 0) + 1
        first = self.rng.choice(sorted(firsts, key=lambda w: (-firsts[w], w))[:8])
        last = self.rng.choice(sorted(lasts, key=lambda w: (-lasts[w], w))[:8])
        for odd in self.rng.sample(ODD_WORDS, len(ODD_WORDS)):
            if odd not in upper:
                return f"{first} {odd} {last}"
        raise Skip("no absent product name")

    def unanswerable(self):
        d, cat = self.d, "unanswerable"

        def cannot(title: str, text: str, topic: str, pattern: str, related=()):
            self.one(title, text, cat, CannotAnswer(topic, pattern), related=related)

        def profit():
            cannot("profit", f"what was our profit in {self.year()}", "profit", r"profit")

        def margin():
            p = self.product()
            cannot(
                "margin",
                f"gross margin on {lower_name(self.pname(p))}?",
                "margin",
                r"margin",
                rel("product", [self.pname(p)]),
            )

        def suppliers():
            cannot(
                "cost", f"how much did we pay our suppliers in {self.year()}", "cost", r"supplier|\bcosts?\b"
            )

        def stock():
            p = self.product()
            text = f"how many {lower_name(self.pname(p))} do we have in stock right now"
            cannot("stock", text, "stock", r"stock|inventory|on hand", rel("product", [self.pname(p)]))

        def sales_rep():
            c = self.country()
            text = f"which sales rep closed the most deals in {self.say(c)}"
            cannot(
                "staff", text, "staff", r"sales rep|staff|employee|\brep\b|salesperson", rel("country", [c])
            )

        def weather():
            cannot(
                "weather",
                f"did the weather affect sales in {self.sm(self.month())}",
                "weather",
                r"weather|rain|temperature",
            )

        def forecast():
            text = self.rng.choice(("what will revenue be next month", "forecast for next month's sales?"))
            cannot("forecast", text, "forecast", r"next month|forecast|predict|will be|expected")

        def unknown_country():
            absent = self.absent_countries()
            if not absent:
                raise Skip("no absent country")
            c = self.rng.choice(absent)
            self.one("unknown country", f"revenue from {c.lower()}", cat, NotFound(c))

        def unknown_product():
            name = self.absent_product()
            self.one(
                "unknown product",
                f"how many {plural(name.lower())} did we sell last year",
                cat,
                NotFound(name),
            )

        def why_drop():
            drops = []
            for m in self.months_with_prev():
                if d.fig(in_months(m)).revenue < d.fig(in_months(add_months(m, -1))).revenue:
                    drops.append(m)
            if not drops:
                raise Skip("no drop")
            m = self.rng.choice(sorted(drops))
            cannot(
                "why",
                f"why did sales drop in {self.sm(m)}?",
                "reasons",
                r"\bwhy\b|because|reason|caus|due to",
            )

        def marketing():
            cannot(
                "marketing",
                "which marketing campaign drove the most revenue",
                "marketing",
                r"campaign|marketing|promotion",
            )

        def web_visits():
            text = f"how many people visited the website in {self.sm(self.month())}"
            cannot("web traffic", text, "web traffic", r"visit|traffic|website|session")

        def conversion():
            cannot(
                "conversion",
                "whats the conversion rate on the site",
                "web traffic",
                r"conversion|visit|traffic",
            )

        def unknown_country_orders():
            absent = self.absent_countries()
            if len(absent) < 2:
                raise Skip("no second absent country")
            c = self.rng.choice(absent[1:])
            self.one("unknown country orders", f"orders from {c} in {self.year()}?", cat, NotFound(c))

        def delivery():
            c = self.country()
            cannot(
                "delivery",
                f"average delivery time to {self.say(c)}",
                "delivery",
                r"deliver|shipping|ship",
                rel("country", [c]),
            )

        def headcount():
            cannot(
                "headcount",
                "how many employees work in the warehouse",
                "staff",
                r"employee|staff|warehouse|headcount",
            )

        def market_share():
            c = self.country()
            text = f"what's our market share in {self.say(c)} compared to competitors"
            cannot("market share", text, "competitors", r"competitor|market share", rel("country", [c]))

        def cogs():
            cannot("cogs", f"cost of goods sold for {self.year()}?", "cost", r"cost of goods|cogs|\bcost")

        def unknown_customer():
            top = max(c[0] for c in d.customers)
            cid = top + 7919
            self.one("unknown customer", f"total spend for customer {cid}", cat, NotFound(str(cid)))

        return (
            profit,
            margin,
            suppliers,
            stock,
            sales_rep,
            weather,
            forecast,
            unknown_country,
            unknown_product,
            why_drop,
            marketing,
            web_visits,
            conversion,
            unknown_country_orders,
            delivery,
            headcount,
            market_share,
            cogs,
            unknown_customer,
        )

    # ---------------------------------------------------------------------------------- ranking

    def ranking(self):
        d, cat = self.d, "ranking"

        def top5_countries():
            net, gross = d.rows("country", "revenue"), d.rows("country", "gross")
            check = ranked("top 5 countries by revenue", "country", [net, gross], 5)
            text = self.rng.choice(("top 5 countries by revenue", "which 5 markets bring in the most money?"))
            self.one("top countries", text, cat, check, related=rel("country", [c for c, _ in net[:8]]))

        def bottom3_countries_orders():
            y = self.year()
            rows = d.rows("country", "orders", in_year(y))
            rows.reverse()
            check = ranked(f"bottom 3 countries by orders, {y}", "country", [rows], 3)
            self.one(
                "bottom countries",
                f"bottom 3 countries by orders in {y}",
                cat,
                check,
                related=rel("country", [c for c, _ in rows[:8]]),
            )

        def top10_products_units():
            y = self.year()
            lists = d.product_lists("units", in_year(y))
            check = ranked(f"top products by units, {y}", "product", lists, 5, d.label)
            related = rel("product", dict.fromkeys(d.label(k) for rows in lists for k, _ in rows[:15]))
            self.one(
                "top products units", f"top 10 products by units sold in {y}", cat, check, related=related
            )

        def top5_customers():
            rows = d.rows("customer", "revenue")
            check = ranked("top 5 customers by revenue", "customer", [rows], 5)
            text = self.rng.choice(("who are our 5 biggest customers", "top five customers by spend pls"))
            self.one("top customers", text, cat, check, related=rel("customer", [k for k, _ in rows[:10]]))

        def top3_months_orders():
            rows = d.rows("month", "orders")
            check = ranked("top 3 months by orders", "month", [rows], 3)
            self.one("top months", "which 3 months had the most orders", cat, check)

        def rank_segments():
            net, gross = d.segment_rows("revenue"), d.segment_rows("gross")
            check = ranked("segments by revenue", "segment", [net, gross], min(4, len(net)))
            self.one("rank segments", "rank the segments by revenue", cat, check)

        def top3_countries_customers():
            rows = d.rows("country", "customers")
            check = ranked("top 3 countries by customers", "country", [rows], 3)
            self.one(
                "countries customers",
                "which three countries have the most customers?",
                cat,
                check,
                related=rel("country", [c for c, _ in rows[:8]]),
            )

        def best_sellers_country():
            c = self.country()
            lists = d.product_lists("revenue", in_country(c))
            check = ranked(f"top 5 products in {c} by revenue", "product", lists, 5, d.label)
            related = rel("country", [c]) + rel(
                "product", dict.fromkeys(d.label(k) for rows in lists for k, _ in rows[:12])
            )
            self.one(
                "best sellers country",
                f"best sellers in {self.say(c)}, top 5 by revenue",
                cat,
                check,
                related=related,
            )

        def top_customers_country():
            c = self.country()
            rows = d.rows("customer", "revenue", in_country(c))
            check = ranked(f"top customers in {c}", "customer", [rows], 3)
            self.one(
                "top customers country",
                f"top customers in {self.say(c)}?",
                cat,
                check,
                related=rel("country", [c]) + rel("customer", [k for k, _ in rows[:10]]),
            )

        def top3_products_month_qty():
            m = self.month()
            lists = d.product_lists("units", in_months(m))
            check = ranked(f"top 3 products by units, {m}", "product", lists, 3, d.label)
            related = rel("product", dict.fromkeys(d.label(k) for rows in lists for k, _ in rows[:10]))
            self.one(
                "top products month", f"top 3 products in {self.sm(m)} by qty", cat, check, related=related
            )

        def rank_months_year():
            y = self.year()
            rows = d.rows("month", "revenue", in_year(y))
            check = ranked(
                f"months of {y} by revenue", "month", [rows, d.rows("month", "gross", in_year(y))], 5
            )
            self.one("rank months", f"rank the months of {y} by revenue, highest first", cat, check)

        def fewest_customers_countries():
            rows = d.rows("country", "customers")
            rows.reverse()
            check = ranked("bottom 5 countries by customers", "country", [rows], 5)
            self.one(
                "fewest customers",
                "which 5 countries have the fewest customers",
                cat,
                check,
                related=rel("country", [c for c, _ in rows[:10]]),
            )

        def top_customers_orders_country():
            c = self.country()
            rows = d.rows("customer", "orders", in_country(c))
            check = ranked(f"top 3 customers by orders in {c}", "customer", [rows], 3)
            text = f"top 3 customers by number of orders in {self.say(c)}"
            self.one(
                "customers by orders",
                text,
                cat,
                check,
                related=rel("country", [c]) + rel("customer", [k for k, _ in rows[:10]]),
            )

        def top_days_month():
            m = self.month()
            rows = d.rows("day", "revenue", in_months(m))
            check = ranked(
                f"top 3 days by revenue, {m}", "date", [rows, d.rows("day", "gross", in_months(m))], 3
            )
            self.one("top days", f"highest revenue days in {self.sm(m)}, top 3", cat, check)

        return (
            top5_countries,
            bottom3_countries_orders,
            top10_products_units,
            top5_customers,
            top3_months_orders,
            rank_segments,
            top3_countries_customers,
            best_sellers_country,
            top_customers_country,
            top3_products_month_qty,
            rank_months_year,
            fewest_customers_countries,
            top_customers_orders_country,
            top_days_month,
        )

    # ---------------------------------------------------------------------------------- follow-ups

    def follow_ups(self):
        d, uk, F = self.d, self.uk, "follow_up"
        name = d.name_of.get

        def fu(text: str, *checks: Check, related=()) -> Turn:
            return Turn(text, F, tuple(checks), needs_previous=True, related=tuple(related))

        def chat(title: str, turns: list[Turn], blocks: tuple[int, ...] = ()) -> None:
            if len(turns) < 3:
                raise Skip("chat too short")
            self.add(f"follow-up: {title}", *turns, blocks=blocks)

        def countries_and_years():
            a, b, y = self.country(), self.country(), self.year()
            turns = [
                Turn(
                    f"revenue in {self.say(a)} for {y}",
                    "paraphrase",
                    (money(f"revenue {a} {y}", d.sold(in_country(a), in_year(y))),),
                    related=rel("country", [a]),
                )
            ]
            fb, when = d.sold(in_country(b), in_year(y)), y
            turns.append(
                fu(f"and in {self.say(b)}?", money(f"revenue {b} {y}", fb), related=rel("country", [a, b]))
            )
            if self.prev_year_ok(y):
                fb, when = d.sold(in_country(b), in_year(y - 1)), y - 1
                turns.append(
                    fu(
                        "what about the year before?",
                        money(f"revenue {b} {y - 1}", fb),
                        related=rel("country", [a, b]),
                    )
                )
            turns.append(
                fu(
                    "how many orders was that?",
                    orders(f"orders {b} {when}", fb),
                    related=rel("country", [a, b]),
                )
            )
            chat("countries and years", turns)

        def products_drilldown():
            for _ in range(len(self.pool)):
                c = self.country()
                every = d.rows("product", "revenue", in_country(c))
                rows = d.merch(every)
                if [k for k, _ in every[:5]] == [k for k, _ in rows[:5]]:
                    break  # with or without postage and fees, the same five: "the second one" is one product
            else:
                raise Skip("postage among every country's top 5")
            top5 = head(rows, 5)
            names = [name(k) for k, _ in top5]
            first = ranked(f"top 5 products in {c}", "product", [rows], 5, name)
            related = rel("country", [c]) + rel("product", [name(k) for k, _ in rows[:10]])
            turns = [
                Turn(f"top 5 products in {self.say(c)} by revenue", "ranking", (first,), related=related)
            ]
            unit_rows = sorted(
                ((k, d.fig(of_product(k), in_country(c)).units) for k, _ in top5), key=lambda kv: -kv[1]
            )
            related = rel("country", [c]) + rel("product", names)
            turns.append(
                fu(
                    "which of those sold the most units?",
                    highest("most units among them", "product", unit_rows, name),
                    related=related,
                )
            )
            second = top5[1][0]
            f2 = d.sold(of_product(second), in_country(c))
            turns.append(
                fu(
                    "how much revenue did the second one bring in?",
                    money(f"revenue {name(second)} in {c}", f2),
                    related=related,
                )
            )
            monthly = d.monthly(of_product(second), in_country(c))
            if len(monthly) >= 2:
                figures = tuple(v for _, v in monthly)
                turns.append(
                    fu(
                        "break that down by month",
                        Nums(
                            f"monthly revenue {name(second)} in {c}",
                            figures,
                            min(3, len(figures)),
                            unit="money",
                        ),
                        related=related,
                    )
                )
            chat("products drill-down", turns)

        def months_of_year():
            y = self.year()
            figures = tuple(v for _, v in d.monthly(in_year(y)))
            turns = [
                Turn(
                    f"revenue by month for {y}",
                    "paraphrase",
                    (Nums(f"monthly revenue {y}", figures, 3, unit="money"),),
                )
            ]
            best = highest(f"best month {y}", "month", d.rows("month", "revenue", in_year(y)))
            m = best.items[0]
            turns.append(fu("which of those was biggest?", best))
            f = d.sold(in_months(m))
            turns.append(fu("how many orders that month?", orders(f"orders {m}", f)))
            turns.append(fu("same for customers", buyers(f"customers {m}", f)))
            chat("months of a year", turns)

        def segment_months():
            seg = self.rng.choice(SEGMENTS)
            m = self.rng.choice(self.months_with_prev())
            p = add_months(m, -1)
            r = rel("segment", [seg])
            turns = [
                Turn(
                    f"how much did {seg.lower()} customers spend in {self.sm(m)}",
                    "paraphrase",
                    (money(f"revenue {seg} {m}", d.sold(of_segment(seg), in_months(m))),),
                    related=r,
                )
            ]
            fp = d.sold(of_segment(seg), in_months(p))
            turns.append(fu("and the month before?", money(f"revenue {seg} {p}", fp), related=r))
            turns.append(fu("same for customers", buyers(f"customers {seg} {p}", fp), related=r))
            fx = d.sold(of_segment(seg), in_months(p), not_country(uk))
            turns.append(
                fu(
                    f"excluding {self.say(uk)}?",
                    buyers(f"customers {seg} {p} outside {uk}", fx),
                    related=r + rel("country", [uk]),
                )
            )
            chat("segment months", turns)

        def top_customers_and_rest():
            rows = d.rows("customer", "revenue")
            top3 = [k for k, _ in head(rows, 3)]
            r = rel("customer", [k for k, _ in rows[:6]])
            turns = [
                Turn(
                    "who are our top 3 customers by revenue?",
                    "ranking",
                    (ranked("top 3 customers", "customer", [rows], 3),),
                    related=r,
                )
            ]
            rest = d.sold(not_customers(top3))
            turns.append(
                fu(
                    "excluding them, what's total revenue?",
                    money("revenue without the top 3 customers", rest),
                    related=r,
                )
            )
            part = d.sold(Cond("t.customer_id IN (?,?,?)", tuple(top3)))
            turns.append(
                fu(
                    "and what share was theirs?",
                    share("top 3 customers' share of revenue", part, self.total),
                    related=r,
                )
            )
            chat("top customers and the rest", turns)

        def three_countries():
            m = self.month()
            a, b = self.country(), self.country()
            cs = [uk, a, b]
            figs = {c: d.sold(in_country(c), in_months(m)) for c in cs}
            r = rel("country", cs)
            turns = [
                Turn(
                    f"{self.say(uk)} revenue {self.sm(m)}",
                    "paraphrase",
                    (money(f"revenue {uk} {m}", figs[uk]),),
                    related=rel("country", [uk]),
                )
            ]
            turns.append(fu(f"and {self.say(a)}?", money(f"revenue {a} {m}", figs[a]), related=r))
            turns.append(fu(f"and {self.say(b)}", money(f"revenue {b} {m}", figs[b]), related=r))
            low = lowest("lowest of the three", "country", [(c, figs[c].revenue) for c in cs])
            if len(low.items) > 1:
                raise Skip("tie")
            turns.append(fu("which of those three was lowest?", low, related=r))
            turns.append(
                fu(
                    "how many customers did it have that month?",
                    buyers(f"customers {low.items[0]} {m}", figs[low.items[0]]),
                    related=r,
                )
            )
            chat("three countries", turns)

        def unrelated_in_between():
            c, y = self.country(), self.year()
            f = d.sold(in_country(c), in_year(y))
            rows = d.rows("month", "revenue")
            best = highest("best month overall", "month", rows)
            fm = d.sold(in_months(best.items[0]))
            turns = [
                Turn(
                    f"orders from {self.say(c)} in {y}",
                    "paraphrase",
                    (orders(f"orders {c} {y}", f),),
                    related=rel("country", [c]),
                ),
                fu("and units?", units(f"units {c} {y}", f), related=rel("country", [c])),
                Turn(
                    "ok different question - what was the best month overall for revenue?", "ranking", (best,)
                ),
                fu("how many customers that month?", buyers(f"customers {best.items[0]}", fm)),
            ]
            chat("an unrelated question in between", turns, blocks=(0, 0, 2, 2))

        def product_countries():
            p = self.product()
            rows = d.rows("country", "units", of_product(p))
            top3 = head(rows, 3)
            r = self._product_related(p) + rel("country", [k for k, _ in rows[:6]])
            turns = [
                Turn(
                    f"tell me about {lower_name(self.pname(p))}",
                    "tell_me_about",
                    (overview(f"figures for {self.pname(p)}", d.sold(of_product(p))),),
                    related=self._product_related(p),
                )
            ]
            turns.append(
                fu(
                    "which countries buy it most?",
                    ranked(
                        f"top countries for {self.pname(p)} by units",
                        "country",
                        [rows],
                        3 if len(rows) > 3 else 1,
                    ),
                    related=r,
                )
            )
            top = top3[0][0]
            turns.append(
                fu(
                    "how many units went to the top one?",
                    units(f"units {self.pname(p)} in {top}", d.sold(of_product(p), in_country(top))),
                    related=r,
                )
            )
            chat("a product's countries", turns)

        def quarter_breakdown():
            c = self.country()
            options = [
                (y, q)
                for y in self.years
                for q in range(1, 5)
                if all(f"{y}-{3 * q - 2 + i:02d}" in d.full_months for i in range(3))
            ]
            y, q = self.rng.choice(options)
            ms = [f"{y}-{3 * q - 2 + i:02d}" for i in range(3)]
            r = rel("country", [c])
            turns = [
                Turn(
                    f"{self.say(c)} revenue q{q} {y}",
                    "paraphrase",
                    (money(f"revenue {c} Q{q} {y}", d.sold(in_country(c), in_months(*ms))),),
                    related=r,
                )
            ]
            figs = [d.fig(in_country(c), in_months(m)) for m in ms]
            turns.append(
                fu(
                    "break that down by month",
                    Nums(
                        f"monthly revenue {c} Q{q} {y}",
                        tuple(_vals(f.revenue, f.gross) for f in figs),
                        3,
                        unit="money",
                    ),
                    related=r,
                )
            )
            earlier = [add_months(m, -12) for m in ms]
            if all(m in d.full_months for m in earlier):
                fe = d.sold(in_country(c), in_months(*earlier))
                turns.append(
                    fu(
                        "what about the same quarter a year earlier?",
                        money(f"revenue {c} Q{q} {y - 1}", fe),
                        related=r,
                    )
                )
            else:
                best = highest(
                    "best month of the quarter",
                    "month",
                    [(m, f.revenue) for m, f in zip(ms, figs, strict=True)],
                )
                turns.append(fu("which month was best?", best, related=r))
            chat("a quarter by month", turns)

        def at_risk_where():
            c = self.country()
            seg = "At Risk"
            n = d.segment_counts[seg]
            turns = [
                Turn(
                    "how many at risk customers do we have",
                    "paraphrase",
                    (Num(f"customers, {seg} segment", (float(n),), unit="customers"), OnlySegments((seg,))),
                )
            ]

            def in_c(s: str) -> tuple[float, ...]:
                by_stats = d.conn.execute(
                    "SELECT COUNT(*) FROM customer_stats WHERE segment = ? AND country = ?", (s, c)
                ).fetchone()[0]
                bought = d.fig(of_segment(s), in_country(c)).customers
                if not by_stats and not bought:
                    raise Skip("none there")
                return _vals(by_stats, bought)

            r = rel("country", [c]) + rel("segment", [seg])
            turns.append(
                fu(
                    f"how many of them are in {self.say(c)}?",
                    Num(f"customers, {seg}, {c}", in_c(seg), unit="customers"),
                    OnlySegments((seg,)),
                    related=r,
                )
            )
            at_risk = in_c(seg)
            # another segment whose count differs: the same words twice would read as a stuck answer
            other = next(
                s for s in ("Regular", "High Value", "New") if s == "New" or in_c(s)[0] != at_risk[0]
            )
            turns.append(
                fu(
                    f"and {other.lower()}?",
                    Num(f"customers, {other}, {c}", in_c(other), unit="customers"),
                    related=r + rel("segment", [other]),
                )
            )
            chat("at risk where", turns)

        def aov_vs_uk():
            c, y = self.country(), self.year()
            fc, fu_ = d.sold(in_country(c), in_year(y)), d.sold(in_country(uk), in_year(y))
            r = rel("country", [c, uk])
            turns = [
                Turn(
                    f"aov for {self.say(c)} in {y}",
                    "paraphrase",
                    (aov(f"average order value {c} {y}", fc),),
                    related=rel("country", [c]),
                )
            ]
            turns.append(
                fu(
                    f"how does that compare with the {'uk' if uk == 'United Kingdom' else uk.lower()}?",
                    aov(f"average order value {uk} {y}", fu_),
                    related=r,
                )
            )
            turns.append(
                fu(
                    "and the number of orders behind each?",
                    both(f"orders {c} and {uk} {y}", (fc.orders,), (fu_.orders,), "orders"),
                    related=r,
                )
            )
            chat("aov against the uk", turns)

        def top_customer_of_country():
            c = self.country()
            rows = d.rows("customer", "revenue", in_country(c))
            top = highest(f"top customer in {c}", "customer", rows)
            cid = int(top.items[0])
            seg = next(s for i, s, *_ in d.customers if i == cid)
            r = rel("country", [c]) + rel("customer", [k for k, _ in rows[:5]])
            turns = [Turn(f"who was the top customer in {self.say(c)}?", "ranking", (top,), related=r)]
            turns.append(
                fu(
                    "how many orders have they placed?",
                    orders(f"orders of customer {cid}", d.sold(of_customer(cid))),
                    related=r,
                )
            )
            turns.append(
                fu(
                    "what segment are they in?",
                    Names(f"segment of {cid}", "segment", (seg,)),
                    OnlySegments((seg,)),
                    related=r,
                )
            )
            chat("a country's top customer", turns)

        def product_family():
            fam, codes = self.product_family()
            f = d.sold(of_products(codes))
            names = [name(k) for k, _ in d.rows("product", "revenue", of_products(codes))]
            r = rel("product", names)
            turns = [
                Turn(f"how are the {fam} doing", "paraphrase", (money(f"revenue of {fam}", f),), related=r)
            ]
            turns.append(
                fu(
                    "which one sells best?",
                    highest(f"best {fam}", "product", d.rows("product", "revenue", of_products(codes)), name),
                    related=r,
                )
            )
            turns.append(fu("and how many units in total?", units(f"units of {fam}", f), related=r))
            chat("a product family", turns)

        def second_country():
            y = self.year()
            rows = [r for r in d.rows("country", "orders", in_year(y)) if r[0] not in PLACEHOLDERS]
            top5 = head(rows, 5)
            r = rel("country", [k for k, _ in rows[:7]])
            turns = [
                Turn(
                    f"top 5 countries by number of orders, {y}",
                    "ranking",
                    (ranked(f"top 5 countries by orders, {y}", "country", [rows], 5),),
                    related=r,
                )
            ]
            second = top5[1][0]
            f = d.sold(in_country(second), in_year(y))
            turns.append(
                fu(
                    "the second one?",
                    Names(f"second country by orders, {y}", "country", (second,)),
                    related=r,
                )
            )
            turns.append(fu("how many customers there?", buyers(f"customers {second} {y}", f), related=r))
            if self.prev_year_ok(y):
                fp = d.sold(in_country(second), in_year(y - 1))
                turns.append(fu("and the year before?", buyers(f"customers {second} {y - 1}", fp), related=r))
            else:
                turns.append(
                    fu(
                        "what share of all orders is that country?",
                        share(f"{second} share of orders {y}", f, d.sold(in_year(y)), "orders"),
                        related=r,
                    )
                )
            chat("the second one", turns)

        return (
            countries_and_years,
            second_country,
            products_drilldown,
            months_of_year,
            segment_months,
            top_customers_and_rest,
            three_countries,
            unrelated_in_between,
            product_countries,
            quarter_breakdown,
            at_risk_where,
            aov_vs_uk,
            top_customer_of_country,
            product_family,
        )

    def product_family(self) -> tuple[str, list[str]]:
        """Products sharing their last two words ("... SHOPPER BAG"), asked as "shopper bags"."""
        d = self.d
        groups: dict[str, list[str]] = {}
        for code, desc in d.name_of.items():
            words = desc.split()
            pair = words[-2:]
            if (
                len(words) >= 3
                and MERCH.fullmatch(code)
                and "  " not in desc
                and all(w.isalpha() and len(w) >= 3 and w not in FILLER for w in pair)
            ):
                groups.setdefault(" ".join(words[-2:]), []).append(code)
        fits = sorted(k for k, v in groups.items() if 3 <= len(v) <= 12)
        if not fits:
            raise Skip("no product family")
        fam = self.rng.choice(fits)
        # every product whose name holds the words, wherever they stand
        return plural(fam.lower()), [code for code, desc in d.name_of.items() if fam in desc]

    # ---------------------------------------------------------------------------------- sequences

    def sequences(self):
        """Unrelated questions one after another in one chat, each its own block: nothing of one
        answer belongs in the next."""
        d, uk = self.d, self.uk

        def seq_country_month_products():
            c, m = self.country(), self.month()
            fc = d.sold(in_country(c))
            lists = d.product_lists("units")
            top3 = ranked("top 3 products by units", "product", lists, 3, d.label)
            top_related = rel("product", dict.fromkeys(d.label(k) for rows in lists for k, _ in rows[:8]))
            turns = (
                Turn(
                    f"quick overview of {self.say(c)} please",
                    "tell_me_about",
                    (overview(f"figures for {c}", fc),),
                    related=rel("country", [c]) + self._country_related(in_country(c)),
                ),
                Turn(
                    f"total orders in {self.sm(m)}",
                    "paraphrase",
                    (orders(f"orders {m}", d.sold(in_months(m))),),
                ),
                Turn("top 3 products by units overall", "ranking", (top3,), related=top_related),
            )
            self.add("sequence: country, month, products", *turns, blocks=(0, 1, 2))

        def seq_segment_day_country():
            seg = self.rng.choice(SEGMENTS)
            c = self.country()
            day = self.day()
            turns = (
                Turn(
                    f"what % of revenue is {seg.lower()}",
                    "share",
                    (
                        share(f"{seg} share of revenue", d.sold(of_segment(seg)), self.total),
                        OnlySegments((seg,)),
                    ),
                    related=rel("segment", [seg]),
                ),
                Turn(
                    f"revenue on {self.sd(day)}",
                    "single_day",
                    (money(f"revenue {day}", d.sold(on_day(day))),),
                ),
                Turn(
                    f"orders outside {self.say(c)}",
                    "exclusion",
                    (orders(f"orders outside {c}", d.sold(not_country(c))),),
                    related=rel("country", [c]),
                ),
            )
            self.add("sequence: segment, day, country", *turns, blocks=(0, 1, 2))

        def seq_customer_then_totals():
            cid, seg, *_ = self.customer()
            y = self.year()
            turns = (
                Turn(
                    f"how many orders has {cid} placed",
                    "paraphrase",
                    (orders(f"orders of customer {cid}", d.sold(of_customer(cid))),),
                    related=rel("segment", [seg]),
                ),
                Turn(
                    f"units sold in {y}, whole business",
                    "paraphrase",
                    (units(f"units {y}", d.sold(in_year(y))),),
                ),
                Turn(
                    f"and what was {self.say(uk)}'s share of that year's revenue?",
                    "share",
                    (
                        share(
                            f"{uk} share of revenue {y}",
                            d.sold(in_country(uk), in_year(y)),
                            d.sold(in_year(y)),
                        ),
                    ),
                    needs_previous=True,
                    related=rel("country", [uk]),
                ),
            )
            self.add("sequence: a customer, then the business", *turns, blocks=(0, 1, 1))

        return (seq_country_month_products, seq_segment_day_country, seq_customer_then_totals)


def build_dev_chats(db: Path, seed: int) -> list[Chat]:
    """The dev bank's chats over ``db``, entities drawn with ``random.Random(seed)``."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return DevBank(Data(conn), seed).build()
    finally:
        conn.close()


def main() -> None:
    db = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("/work/evaldata/seed42.sqlite")
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 42
    counts: dict[str, int] = {}
    for chat in build_dev_chats(db, seed):
        print(f"== {chat.title}")
        for turn in chat.turns:
            flag = " [follows up]" if turn.needs_previous else ""
            print(f"  [{turn.category or 'context'}]{flag} {turn.text}")
            for check in turn.checks:
                print(f"      - {check}")
            if turn.category:
                counts[turn.category] = counts.get(turn.category, 0) + 1
    for category in DEV_CATEGORIES:
        print(f"{category:16} {counts.get(category, 0):4}")
    print(f"{'total':16} {sum(counts.values()):4}")


if __name__ == "__main__":
    main()
