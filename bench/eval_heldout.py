"""A HELD-OUT question bank for the retail-analytics assistant: never tune the app on it.

This bank was written independently of the app and of the tuned bank in
``bench/eval_assistant_questions.py``: its author did not read the app's code (``src/``), its tests
(``tests/``) or the tuned questions, only the user documentation (``README.md``) and the check
dataclasses (``Num``, ``Nums``, ``Names``, ``AnyOf``, ``OnlySegments``, ``IdsIn``, ``YesNo``,
``NotFound``, ``Turn``, ``Chat``), which it imports so that ``eval_assistant.py`` can score it.

Its purpose is to measure how the assistant generalises to questions phrased the way a new analyst
would type them: typos and terse phrasing, exclusions ("apart from the UK"), minima ("weakest month"),
single days, shares, comparisons, "tell me about ...", unanswerable questions (profit, weather,
staff, a country or product that is not in the data), rankings and follow-ups that refer back.

Rules for whoever maintains this file:

* Do NOT change the app to make these questions pass, do not copy them into the tuned bank, the
  tests, prompts, tool descriptions or keyword lists, and do not look at the app's answers to them
  while changing the app. A failure here is a finding to fix *in general*; once the app has been tuned
  on this file it stops being held out and a new held-out bank must be written.
* Nothing here is typed-in truth: :func:`build_heldout_chats` picks its entities from the database with
  ``random.Random(seed)`` (countries, months, days that have sales, products by their stored
  description, customers) and computes every truth with its own SQL at build time, so it works for any
  database in the retail schema (generated or imported).

Definitions used (those the app documents): revenue is ``SUM(amount)`` over every line in scope,
cancellations included (net); where gross vs net is ambiguous both are accepted. Orders are distinct
invoices of non-cancellation lines, customers/buyers distinct customer ids of non-cancellation lines,
units ``SUM(quantity)`` (net; gross accepted), average order value revenue / orders, a segment is the
customers currently in it (``customer_stats.segment``), a share of revenue is part / total.

Run ``python bench/eval_heldout.py [DB] [SEED]`` to print every question with its checks.
"""

from __future__ import annotations

import calendar
import random
import sqlite3
import sys
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from eval_assistant_questions import (
    AnyOf,
    Chat,
    Check,
    Names,
    NotFound,
    Num,
    Nums,
    OnlySegments,
    Turn,
)

SEGMENTS = ("High Value", "Regular", "At Risk", "New")
HELDOUT_CATEGORIES = (
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
UNKNOWN_COUNTRY_CANDIDATES = (
    "Argentina",
    "Mexico",
    "Peru",
    "Kenya",
    "Vietnam",
    "Chile",
    "New Zealand",
    "Thailand",
    "Egypt",
    "Colombia",
)
FAKE_PRODUCT_CANDIDATES = (
    "ELECTRIC SCOOTER",
    "BLUETOOTH SPEAKER",
    "ESPRESSO MACHINE",
    "UNICORN NIGHT LIGHT",
    "GAMING LAPTOP",
    "HOVERBOARD",
)

MONEY = ("net", "gross")
UNITS = ("units_net", "units_gross")
METRIC_SQL = {
    "net": "SUM(t.amount)",
    "gross": "SUM(CASE WHEN t.is_cancellation = 0 THEN t.amount ELSE 0 END)",
    "orders": "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.invoice END)",
    "buyers": "COUNT(DISTINCT CASE WHEN t.is_cancellation = 0 THEN t.customer_id END)",
    "units_net": "SUM(t.quantity)",
    "units_gross": "SUM(CASE WHEN t.is_cancellation = 0 THEN t.quantity ELSE 0 END)",
}


def money(x: float | None) -> float:
    return round(float(x or 0.0), 2)


def uniq(values: tuple[float, ...] | list[float]) -> tuple[float, ...]:
    out: list[float] = []
    for v in values:
        if v not in out:
            out.append(v)
    return tuple(out)


# ------------------------------------------------------------------------------------------- database


class Data:
    """Read-only access to one retail SQLite file; every figure is computed here by plain SQL."""

    def __init__(self, db_path: Path) -> None:
        self.con = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
        self.desc = {
            str(code): (desc if desc else str(code))
            for code, desc in self.con.execute("SELECT stock_code, description FROM products")
        }

    # -- scope -------------------------------------------------------------------------------------

    @staticmethod
    def where(**scope: object) -> tuple[str, list[object]]:
        conds: list[str] = []
        params: list[object] = []
        for key, value in scope.items():
            if value is None:
                continue
            if key == "country":
                conds.append("t.country = ?")
            elif key == "not_country":
                conds.append("t.country <> ?")
            elif key == "year":
                conds.append("substr(t.invoiced_at, 1, 4) = ?")
            elif key == "month":
                conds.append("substr(t.invoiced_at, 1, 7) = ?")
            elif key == "day":
                conds.append("substr(t.invoiced_at, 1, 10) = ?")
            elif key == "segment":
                conds.append("t.customer_id IN (SELECT customer_id FROM customer_stats WHERE segment = ?)")
            elif key == "not_segment":
                conds.append("t.customer_id IN (SELECT customer_id FROM customer_stats WHERE segment <> ?)")
            elif key == "customer":
                conds.append("t.customer_id = ?")
            elif key == "stock_code":
                conds.append("t.stock_code = ?")
            else:
                raise KeyError(key)
            params.append(value)
        return (" WHERE " + " AND ".join(conds)) if conds else "", params

    def metric(self, name: str, **scope: object) -> float:
        w, p = self.where(**scope)
        (v,) = self.con.execute(f"SELECT {METRIC_SQL[name]} FROM transactions t{w}", p).fetchone()
        return float(v or 0)

    def rev(self, **scope: object) -> tuple[float, float]:
        return money(self.metric("net", **scope)), money(self.metric("gross", **scope))

    def orders(self, **scope: object) -> int:
        return int(self.metric("orders", **scope))

    def buyers(self, **scope: object) -> int:
        return int(self.metric("buyers", **scope))

    def units(self, **scope: object) -> tuple[float, float]:
        return float(self.metric("units_net", **scope)), float(self.metric("units_gross", **scope))

    def group(self, key: str, metric: str, **scope: object) -> list[tuple[str, float]]:
        """(key, value) per group, best first. ``key``: country, month, day, customer, product
        (stock code) or description (products grouped by their stored name)."""
        key_sql = {
            "country": "t.country",
            "month": "substr(t.invoiced_at, 1, 7)",
            "day": "substr(t.invoiced_at, 1, 10)",
            "customer": "t.customer_id",
            "product": "t.stock_code",
            "description": "COALESCE(p.description, t.stock_code)",
        }[key]
        w, p = self.where(**scope)
        join = " LEFT JOIN products p ON p.stock_code = t.stock_code" if key == "description" else ""
        extra = "t.customer_id IS NOT NULL" if key == "customer" else ""
        if extra:
            w = (w + " AND " + extra) if w else " WHERE " + extra
        rows = self.con.execute(
            f"SELECT {key_sql}, {METRIC_SQL[metric]} FROM transactions t{join}{w} GROUP BY 1", p
        ).fetchall()
        out = [(str(k), round(float(v or 0), 2)) for k, v in rows if k is not None]
        out.sort(key=lambda kv: (-kv[1], kv[0]))
        return out

    def label(self, key: str, k: str) -> str:
        return self.desc.get(k, k) if key == "product" else k

    # -- entity lists ------------------------------------------------------------------------------

    def countries(self) -> list[str]:
        """Countries with sales, biggest net revenue first."""
        return [c for c, _ in self.group("country", "net") if self.orders(country=c) > 0]

    def months(self) -> list[str]:
        return sorted(m for m, v in self.group("month", "orders") if v > 0)

    def days(self, **scope: object) -> list[str]:
        return sorted(d for d, v in self.group("day", "orders", **scope) if v > 0)

    def years(self) -> list[str]:
        return sorted({m[:4] for m in self.months()})

    def customers_in(self, country: str) -> int:
        (n,) = self.con.execute("SELECT COUNT(*) FROM customers WHERE country = ?", (country,)).fetchone()
        return int(n)

    def customer_count(self, **seg: str) -> int:
        if "segment" in seg:
            sql, p = "SELECT COUNT(*) FROM customer_stats WHERE segment = ?", [seg["segment"]]
        elif "not_segment" in seg:
            sql, p = "SELECT COUNT(*) FROM customer_stats WHERE segment <> ?", [seg["not_segment"]]
        else:
            sql, p = "SELECT COUNT(*) FROM customer_stats", []
        return int(self.con.execute(sql, p).fetchone()[0])

    def segments(self) -> list[str]:
        rows = self.con.execute("SELECT DISTINCT segment FROM customer_stats").fetchall()
        present = {r[0] for r in rows}
        return [s for s in SEGMENTS if s in present] or sorted(present)

    def good_products(self, min_lines: int = 15) -> list[str]:
        """Stock codes whose stored description is unique and that sold on at least ``min_lines`` lines."""
        rows = self.con.execute(
            "SELECT p.stock_code FROM products p JOIN transactions t ON t.stock_code = p.stock_code "
            "WHERE p.description IS NOT NULL AND t.is_cancellation = 0 AND p.description IN "
            "(SELECT description FROM products GROUP BY description HAVING COUNT(*) = 1) "
            "GROUP BY p.stock_code HAVING COUNT(*) >= ? ORDER BY p.stock_code",
            (min_lines,),
        ).fetchall()
        return [str(r[0]) for r in rows]

    def good_customers(self, min_orders: int = 3) -> list[int]:
        rows = self.con.execute(
            "SELECT customer_id FROM customer_stats WHERE orders >= ? AND revenue > 0 ORDER BY customer_id",
            (min_orders,),
        ).fetchall()
        return [int(r[0]) for r in rows]

    def customer(self, cid: int) -> dict[str, object]:
        row = self.con.execute(
            "SELECT country, segment, recency_days FROM customer_stats WHERE customer_id = ?", (cid,)
        ).fetchone()
        (last,) = self.con.execute(
            "SELECT MAX(invoiced_at) FROM transactions WHERE customer_id = ? AND is_cancellation = 0",
            (cid,),
        ).fetchone()
        return {
            "country": row[0],
            "segment": row[1],
            "recency": float(row[2]),
            "revenue": self.rev(customer=cid),
            "orders": self.orders(customer=cid),
            "units": self.units(customer=cid),
            "last": str(last)[:10],
        }

    def all_descriptions_upper(self) -> str:
        return " | ".join(d.upper() for d in self.desc.values())

    def country_names_upper(self) -> set[str]:
        rows = self.con.execute(
            "SELECT country FROM customers UNION SELECT DISTINCT country FROM transactions"
        ).fetchall()
        return {str(r[0]).upper() for r in rows if r[0]}


# ------------------------------------------------------------------------------------------- helpers


def month_name(m: str, style: str = "long") -> str:
    y, mm = int(m[:4]), int(m[5:7])
    if style == "long":
        return f"{calendar.month_name[mm]} {y}"
    if style == "short":
        return f"{calendar.month_abbr[mm]} {y}"
    if style == "lower":
        return f"{calendar.month_name[mm].lower()} {y}"
    return m  # iso


def shift_month(m: str, delta: int) -> str:
    y, mm = int(m[:4]), int(m[5:7])
    idx = y * 12 + (mm - 1) + delta
    return f"{idx // 12:04d}-{idx % 12 + 1:02d}"


def ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def day_text(d: str, style: int) -> str:
    dt = date.fromisoformat(d)
    mon = calendar.month_name[dt.month]
    return [
        d,
        f"{dt.day} {mon} {dt.year}",
        f"{mon} {dt.day}, {dt.year}",
        f"the {ordinal(dt.day)} of {mon} {dt.year}",
        f"{dt.day} {calendar.month_abbr[dt.month]} {dt.year}",
    ][style % 5]


def say_country(c: str, rng: random.Random | None = None) -> str:
    if c == "United Kingdom":
        return rng.choice(("the UK", "the United Kingdom")) if rng else "the UK"
    if c in ("Netherlands", "United States", "Czech Republic", "Channel Islands", "United Arab Emirates"):
        return f"the {c}"
    return c


def top_with_ties(rows: list[tuple[str, float]], n: int) -> list[str]:
    if not rows:
        return []
    n = min(n, len(rows))
    cut = rows[n - 1][1]
    return [k for k, v in rows if v >= cut]


def bottom_with_ties(rows: list[tuple[str, float]], n: int = 1) -> list[str]:
    negated = sorted(((k, -v) for k, v in rows), key=lambda kv: (-kv[1], kv[0]))
    return top_with_ties(negated, n)


def robust_names(label: str, kind: str, rankings: list[list[str]], n: int) -> Names:
    """Names over several equally valid rankings (net/gross, by code/by name): every item any of them
    puts in its top ``n`` is accepted, and as many must be named as all of them agree on."""
    items: list[str] = []
    for r in rankings:
        for k in r:
            if k not in items:
                items.append(k)
    common = set(rankings[0]) if rankings else set()
    for r in rankings[1:]:
        common &= set(r)
    need = max(1, min(n, len(common)))
    return Names(label, kind, tuple(items), need)


def rev_num(label: str, r: tuple[float, float]) -> Num:
    return Num(label, uniq(r))


def change_check(label: str, new: tuple[float, ...], old: tuple[float, ...], is_money: bool = True) -> AnyOf:
    """The change (absolute difference, either sign), both figures, or the percentage change."""
    diffs: list[float] = []
    pcts: list[float] = []
    for a, b in zip(new, old, strict=True):
        d = round(a - b, 2) if is_money else a - b
        diffs += [d, abs(d)]
        if b:
            pc = round((a - b) / b, 6)
            pcts += [pc, abs(pc)]
    options: list[Check] = [
        Num(f"{label}: change", uniq(diffs)),
        Nums(f"{label}: both figures", (uniq(new), uniq(old)), need=2),
    ]
    if pcts:
        options.append(Num(f"{label}: % change", uniq(pcts), percent=True))
    return AnyOf(label, tuple(options))


def share_num(label: str, part: tuple[float, ...], whole: tuple[float, ...]) -> Num:
    vals = [round(p / w, 6) for p, w in zip(part, whole, strict=True) if w]
    return Num(label, uniq(vals), percent=True)


class Picker:
    """Draws distinct entities from a list with the seeded RNG, falling back to repeats when short."""

    def __init__(self, rng: random.Random, items: list, avoid: tuple = ()) -> None:  # type: ignore[type-arg]
        self.rng = rng
        self.pool = [x for x in items if x not in avoid] or list(items)
        self.rng.shuffle(self.pool)
        self.used: list = []  # type: ignore[type-arg]
        self.all = list(items)

    def take(self, ok=None):  # type: ignore[no-untyped-def]
        """The next unused item for which ``ok(item)`` holds (any item when none is left)."""
        for i in range(len(self.pool) - 1, -1, -1):
            if ok is None or ok(self.pool[i]):
                x = self.pool.pop(i)
                break
        else:
            fits = [x for x in self.all if ok is None or ok(x)] or self.all
            x = self.rng.choice(fits)
        self.used.append(x)
        return x


# ------------------------------------------------------------------------------------------- the bank


def build_heldout_chats(db_path: Path, seed: int) -> list[Chat]:
    """The held-out chats for the database at ``db_path``, entities drawn with ``random.Random(seed)``."""
    db = Data(Path(db_path))
    rng = random.Random(seed)

    countries = db.countries()
    if not countries:
        raise ValueError(f"{db_path}: no sales")
    top = countries[0]
    others = countries[1:] or countries
    # countries with a reasonable amount of trade, not the biggest (so "and in X?" is a real switch)
    mid = [c for c in others if db.orders(country=c) >= 20] or others
    cpick = Picker(rng, mid)
    months = db.months()
    years = db.years()
    year_pairs = [y for y in years if str(int(y) - 1) in years]
    full_pairs = [
        y
        for y in year_pairs
        if sum(m.startswith(y) for m in months) >= 6
        and sum(m.startswith(str(int(y) - 1)) for m in months) >= 6
    ]
    month_set = set(months)
    months_prev = [m for m in months if shift_month(m, -1) in month_set] or months
    months_yoy = [m for m in months if shift_month(m, -12) in month_set]
    months_next = [m for m in months if shift_month(m, 1) in month_set] or months
    mpick = Picker(rng, months_prev)
    all_days = db.days()
    days_prev = [
        d for d in all_days if (date.fromisoformat(d) - timedelta(days=1)).isoformat() in set(all_days)
    ]
    dpick = Picker(rng, all_days)
    products = db.good_products()
    if not products:
        products = db.good_products(min_lines=1) or sorted(db.desc)
    ppick = Picker(rng, products)
    custs = db.good_customers() or db.good_customers(min_orders=1)
    kpick = Picker(rng, custs)
    segs = db.segments()

    def year_any() -> str:
        return rng.choice(full_pairs or year_pairs or years)

    known_countries = db.country_names_upper()
    unknown_countries = [c for c in UNKNOWN_COUNTRY_CANDIDATES if c.upper() not in known_countries]
    rng.shuffle(unknown_countries)
    unknown_countries = unknown_countries or ["Atlantis"]
    descs = db.all_descriptions_upper()
    fakes = [f for f in FAKE_PRODUCT_CANDIDATES if not any(w in descs for w in f.split() if len(w) >= 5)] or [
        "QUANTUM HOVERBOARD XZ"
    ]
    rng.shuffle(fakes)
    (max_id,) = db.con.execute("SELECT MAX(customer_id) FROM customer_stats").fetchone()
    unknown_id = 99_999_999 if (max_id or 0) < 99_999_999 else int(max_id) + 1_000_003

    def p_name(code: str) -> str:
        return db.desc.get(code, code)

    def product_rankings(metric_pair: tuple[str, str], n: int, **scope: object) -> list[list[str]]:
        out: list[list[str]] = []
        for metric in metric_pair:
            by_code = db.group("product", metric, **scope)
            out.append(list(dict.fromkeys(p_name(k) for k in top_with_ties(by_code, n))))
            out.append(top_with_ties(db.group("description", metric, **scope), n))
        return out

    def country_figures(label: str, **scope: object) -> Nums:
        c = scope.get("country")
        buyers = db.buyers(**scope)
        cust_vals = (buyers, db.customers_in(str(c))) if c and len(scope) == 1 else (buyers,)
        return Nums(
            label,
            (uniq(db.rev(**scope)), (float(db.orders(**scope)),), uniq([float(v) for v in cust_vals])),
            need=2,
        )

    chats: list[Chat] = []

    # ---- chat 1: a country in a year, tersely, then switching country -------------------------------
    y = year_any()
    c1 = cpick.take(lambda c: db.orders(country=c, year=y) > 0)
    c2 = cpick.take(lambda c: db.orders(country=c, year=y) > 0)
    chats.append(
        Chat(
            "terse country-year, then switch country",
            (
                Turn(
                    f"revenue {c1.lower()} {y}",
                    "paraphrase",
                    (rev_num(f"{c1} {y} revenue", db.rev(country=c1, year=y)),),
                ),
                Turn(
                    f"and in {say_country(c2)}?",
                    "follow_up",
                    (rev_num(f"{c2} {y} revenue", db.rev(country=c2, year=y)),),
                    needs_previous=True,
                ),
                Turn(
                    "how many orders was that",
                    "follow_up",
                    (Num(f"{c2} {y} orders", (db.orders(country=c2, year=y),)),),
                    needs_previous=True,
                ),
                Turn(
                    f"What share of {y} revenue did {say_country(c2)} account for?",
                    "share",
                    (share_num(f"{c2} share of {y}", db.rev(country=c2, year=y), db.rev(year=y)),),
                ),
                Turn(
                    f"And what was our profit margin in {say_country(c2)}?",
                    "unanswerable",
                    (NotFound("profit margin"),),
                ),
                Turn(
                    f"Top 3 products by units sold in {say_country(c1)} in {y}?",
                    "ranking",
                    (
                        robust_names(
                            f"top 3 by units {c1} {y}",
                            "product",
                            product_rankings(UNITS, 3, country=c1, year=y),
                            3,
                        ),
                    ),
                ),
            ),
        )
    )

    # ---- chat 2: one month in depth -------------------------------------------------------------------
    m = mpick.take()
    mp = shift_month(m, -1)
    m_days = db.days(month=m)
    d = rng.choice(m_days)
    day_rows_net = [(k, v) for k, v in db.group("day", "net", month=m) if k in set(m_days)]
    day_rows_gross = [(k, v) for k, v in db.group("day", "gross", month=m) if k in set(m_days)]
    turns2 = [
        Turn(f"Tell me about {month_name(m)}", "tell_me_about", (country_figures(f"{m} figures", month=m),)),
        Turn(
            f"How did revenue in {month_name(m, 'short')} compare with {month_name(mp)}?",
            "comparison",
            (change_check(f"revenue {m} vs {mp}", db.rev(month=m), db.rev(month=mp)),),
        ),
        Turn(
            "what about orders?",
            "follow_up",
            (
                change_check(
                    f"orders {m} vs {mp}", (float(db.orders(month=m)),), (float(db.orders(month=mp)),), False
                ),
            ),
            needs_previous=True,
        ),
    ]
    m_yoy = shift_month(m, -12)
    if m_yoy in month_set:
        turns2.append(
            Turn(
                f"And {month_name(m, 'short')} against the same month a year earlier?",
                "comparison",
                (change_check(f"revenue {m} vs {m_yoy}", db.rev(month=m), db.rev(month=m_yoy)),),
                needs_previous=True,
            )
        )
    turns2 += [
        Turn(
            f"What was revenue on {day_text(d, 1)}?",
            "single_day",
            (rev_num(f"revenue {d}", db.rev(day=d)),),
        ),
        Turn(
            f"Which day in {month_name(m)} had the lowest revenue?",
            "minimum",
            (
                robust_names(
                    f"weakest day of {m}",
                    "date",
                    [bottom_with_ties(day_rows_net), bottom_with_ties(day_rows_gross)],
                    1,
                ),
            ),
        ),
        Turn(
            f"top 5 products by revenue in {month_name(m, 'short')}",
            "ranking",
            (robust_names(f"top 5 by revenue {m}", "product", product_rankings(MONEY, 5, month=m), 5),),
        ),
    ]
    chats.append(Chat("a month in depth", tuple(turns2)))

    # ---- chat 3: excluding the biggest country ---------------------------------------------------------
    y3 = year_any()
    m3 = mpick.take()
    second_net = top_with_ties(db.group("country", "net", not_country=top), 1)
    second_gross = top_with_ties(db.group("country", "gross", not_country=top), 1)
    second = second_net[0]
    top3_ex = [top_with_ties(db.group("country", mt, not_country=top), 3) for mt in MONEY]
    chats.append(
        Chat(
            "excluding the biggest country",
            (
                Turn(
                    f"What was total revenue apart from {say_country(top)}?",
                    "exclusion",
                    (rev_num(f"revenue excl {top}", db.rev(not_country=top)),),
                ),
                Turn(
                    f"Which country had the highest revenue outside {say_country(top, rng)}?",
                    "exclusion",
                    (robust_names(f"top country excl {top}", "country", [second_net, second_gross], 1),),
                ),
                Turn(
                    "How many customers does it have?",
                    "follow_up",
                    (
                        Num(
                            f"{second} customers",
                            uniq([float(db.buyers(country=second)), float(db.customers_in(second))]),
                        ),
                    ),
                    needs_previous=True,
                ),
                Turn(
                    f"How many orders came from outside {say_country(top)} in {y3}?",
                    "exclusion",
                    (Num(f"orders excl {top} {y3}", (float(db.orders(not_country=top, year=y3)),)),),
                ),
                Turn(
                    f"In {month_name(m3)}, what was revenue excluding {say_country(top)}?",
                    "exclusion",
                    (rev_num(f"revenue excl {top} {m3}", db.rev(not_country=top, month=m3)),),
                ),
                Turn(
                    f"As a percentage of total revenue, how much came from outside {say_country(top, rng)}?",
                    "share",
                    (share_num(f"share excl {top}", db.rev(not_country=top), db.rev()),),
                ),
                Turn(
                    f"top 3 countries by revenue excluding {say_country(top)}",
                    "exclusion",
                    (robust_names(f"top 3 countries excl {top}", "country", top3_ex, 3),),
                ),
            ),
        )
    )

    # ---- chat 4: segments --------------------------------------------------------------------------------
    seg_rev = {s: db.rev(segment=s) for s in segs}
    seg_cnt = {s: db.customer_count(segment=s) for s in segs}
    seg_low = [bottom_with_ties([(s, seg_rev[s][i]) for s in segs]) for i in (0, 1)]
    fewest = bottom_with_ties([(s, float(seg_cnt[s])) for s in segs])
    fewest_seg = fewest[0]
    at_risk = "At Risk" if "At Risk" in segs else segs[0]
    hv = "High Value" if "High Value" in segs else segs[-1]
    regular = "Regular" if "Regular" in segs else segs[0]
    total = db.rev()
    chats.append(
        Chat(
            "segments",
            (
                Turn(
                    f"{at_risk.lower()} segment how many customers",
                    "paraphrase",
                    (Num(f"{at_risk} customers", (float(seg_cnt[at_risk]),)),),
                ),
                Turn(
                    "Which segment has the lowest total revenue?",
                    "minimum",
                    (robust_names("lowest-revenue segment", "segment", seg_low, 1),),
                ),
                Turn(
                    f"What percentage of total revenue comes from the {hv} segment?",
                    "share",
                    (share_num(f"{hv} revenue share", seg_rev[hv], total),),
                ),
                Turn(
                    f"Excluding the {at_risk} segment, how many customers do we have?",
                    "exclusion",
                    (Num(f"customers not {at_risk}", (float(db.customer_count(not_segment=at_risk)),)),),
                ),
                Turn(
                    f"Tell me about the {regular} segment",
                    "tell_me_about",
                    (
                        Nums(
                            f"{regular} figures",
                            (
                                (float(seg_cnt[regular]),),
                                uniq(seg_rev[regular]),
                                (float(db.orders(segment=regular)),),
                            ),
                            need=2,
                        ),
                    ),
                ),
                Turn(
                    "Which segment has the fewest customers?",
                    "minimum",
                    (Names("fewest-customers segment", "segment", tuple(fewest)),),
                ),
                Turn(
                    "and what's their average order value?",
                    "follow_up",
                    (
                        Num(
                            f"{fewest_seg} AOV",
                            uniq(
                                [
                                    money(v / max(1, db.orders(segment=fewest_seg)))
                                    for v in seg_rev[fewest_seg]
                                ]
                            ),
                        ),
                    ),
                    needs_previous=True,
                ),
            ),
        )
    )

    # ---- chat 5: customers ------------------------------------------------------------------------------
    k1, k2, k3 = kpick.take(), kpick.take(), kpick.take()
    f1, f2, f3 = db.customer(k1), db.customer(k2), db.customer(k3)
    rank_country = cpick.take()

    def customer_checks(cid: int, f: dict[str, object]) -> tuple[Check, ...]:
        return (
            Nums(
                f"customer {cid} figures",
                (uniq(f["revenue"]), (float(f["orders"]),), (float(f["recency"]),)),  # type: ignore[arg-type]
                need=2,
            ),
            Names(f"customer {cid} segment", "segment", (str(f["segment"]),)),
            OnlySegments((str(f["segment"]),)),
        )

    cust_rank = [top_with_ties(db.group("customer", mt, country=rank_country), 3) for mt in MONEY]
    chats.append(
        Chat(
            "customers",
            (
                Turn(f"Tell me about customer {k1}", "tell_me_about", customer_checks(k1, f1)),
                Turn(
                    "what country are they from",
                    "follow_up",
                    (Names(f"customer {k1} country", "country", (str(f1["country"]),)),),
                    needs_previous=True,
                ),
                Turn(
                    "and when did they last buy something?",
                    "follow_up",
                    (Names(f"customer {k1} last purchase", "date", (str(f1["last"]),)),),
                    needs_previous=True,
                ),
                Turn(
                    f"customer {k2} total revenue",
                    "paraphrase",
                    (rev_num(f"customer {k2} revenue", f2["revenue"]),),
                ),  # type: ignore[arg-type]
                Turn(f"customer {unknown_id} summary pls", "unanswerable", (NotFound(str(unknown_id)),)),
                Turn(f"What can you tell me about customer {k3}?", "tell_me_about", customer_checks(k3, f3)),
                Turn(
                    f"Who are the top 3 customers by revenue in {say_country(rank_country)}?",
                    "ranking",
                    (robust_names(f"top 3 customers {rank_country}", "customer", cust_rank, 3),),
                ),
            ),
        )
    )

    # ---- chat 6: single days ---------------------------------------------------------------------------
    d1, d2, d5 = dpick.take(), dpick.take(), dpick.take()
    d3 = rng.choice(days_prev or all_days)
    d3_prev = (date.fromisoformat(d3) - timedelta(days=1)).isoformat()
    c6 = cpick.take()
    c6_days = db.days(country=c6) or all_days
    d4 = rng.choice(c6_days)
    chats.append(
        Chat(
            "single days",
            (
                Turn(
                    f"What was revenue on {day_text(d1, 0)}?",
                    "single_day",
                    (rev_num(f"revenue {d1}", db.rev(day=d1)),),
                ),
                Turn(
                    "how many orders was that?",
                    "follow_up",
                    (Num(f"orders {d1}", (float(db.orders(day=d1)),)),),
                    needs_previous=True,
                ),
                Turn(
                    f"How many customers bought something on {day_text(d2, 1)}?",
                    "single_day",
                    (Num(f"buyers {d2}", (float(db.buyers(day=d2)),)),),
                ),
                Turn(
                    f"units sold on {day_text(d3, 2)}",
                    "single_day",
                    (Num(f"units {d3}", uniq(db.units(day=d3))),),
                ),
                Turn(
                    "and the day before?",
                    "follow_up",
                    (Num(f"units {d3_prev}", uniq(db.units(day=d3_prev))),),
                    needs_previous=True,
                ),
                Turn(
                    f"What was {c6}'s revenue on {day_text(d4, 3)}?",
                    "single_day",
                    (rev_num(f"{c6} revenue {d4}", db.rev(country=c6, day=d4)),),
                ),
                Turn(
                    f"Revenue for {day_text(d5, 4)}, please.",
                    "single_day",
                    (rev_num(f"revenue {d5}", db.rev(day=d5)),),
                ),
            ),
        )
    )

    # ---- chat 7: year and year-on-year comparisons --------------------------------------------------------
    turns7: list[Turn] = []
    m7 = mpick.take()
    m7p = shift_month(m7, -1)
    if year_pairs:
        y7 = rng.choice(full_pairs or year_pairs)
        y7p = str(int(y7) - 1)
        c7 = cpick.take(lambda c: db.orders(country=c, year=y7) > 0 and db.orders(country=c, year=y7p) > 0)
        turns7.append(
            Turn(
                f"Was revenue in {y7} up or down on {y7p}?",
                "comparison",
                (change_check(f"revenue {y7} vs {y7p}", db.rev(year=y7), db.rev(year=y7p)),),
            )
        )
        turns7.append(
            Turn(
                f"Did {say_country(c7)} grow in {y7} compared with {y7p}?",
                "comparison",
                (
                    change_check(
                        f"{c7} revenue {y7} vs {y7p}",
                        db.rev(country=c7, year=y7),
                        db.rev(country=c7, year=y7p),
                    ),
                ),
            )
        )
    if months_yoy:
        my = rng.choice(months_yoy)
        myp = shift_month(my, -12)
        turns7.append(
            Turn(
                f"{month_name(my, 'short')} vs {month_name(myp, 'short')} revenue?",
                "comparison",
                (change_check(f"revenue {my} vs {myp}", db.rev(month=my), db.rev(month=myp)),),
            )
        )
        turns7.append(
            Turn(
                "and orders?",
                "follow_up",
                (
                    change_check(
                        f"orders {my} vs {myp}",
                        (float(db.orders(month=my)),),
                        (float(db.orders(month=myp)),),
                        False,
                    ),
                ),
                needs_previous=True,
            )
        )
    turns7.append(
        Turn(
            f"How many buyers did we have in {month_name(m7)} versus {month_name(m7p)}?",
            "comparison",
            (
                change_check(
                    f"buyers {m7} vs {m7p}",
                    (float(db.buyers(month=m7)),),
                    (float(db.buyers(month=m7p)),),
                    False,
                ),
            ),
        )
    )
    m7b = mpick.take()
    m7bp = shift_month(m7b, -1)
    turns7.append(
        Turn(
            f"{month_name(m7b, 'lower')} revenue vs the previous month",
            "comparison",
            (change_check(f"revenue {m7b} vs {m7bp}", db.rev(month=m7b), db.rev(month=m7bp)),),
        )
    )
    turns7.append(
        Turn(f"Did the weather in {month_name(m7)} hurt our sales?", "unanswerable", (NotFound("weather"),))
    )
    chats.append(Chat("comparisons across years", tuple(turns7)))

    all_c = db.countries()
    cust_by_country = [(c, float(db.customers_in(c))) for c in all_c]
    buyers_by_country = [(c, float(db.buyers(country=c))) for c in all_c]
    top3_cust = [
        top_with_ties(sorted(cust_by_country, key=lambda kv: (-kv[1], kv[0])), 3),
        top_with_ties(sorted(buyers_by_country, key=lambda kv: (-kv[1], kv[0])), 3),
    ]

    # ---- chat 8: one product -----------------------------------------------------------------------------
    p8 = ppick.take()
    p8n = p_name(p8)
    y8 = year_any()
    chats.append(
        Chat(
            "a product",
            (
                Turn(
                    f"What can you tell me about {p8n}?",
                    "tell_me_about",
                    (
                        Nums(
                            f"{p8n} figures",
                            (
                                uniq(db.rev(stock_code=p8)),
                                uniq(db.units(stock_code=p8)),
                                (float(db.orders(stock_code=p8)),),
                            ),
                            need=2,
                        ),
                    ),
                ),
                Turn(
                    f"What share of total revenue does {p8n.lower()} account for?",
                    "share",
                    (share_num(f"{p8n} share", db.rev(stock_code=p8), db.rev()),),
                ),
                Turn(
                    f"and how many units did it sell in {y8}?",
                    "follow_up",
                    (Num(f"{p8n} units {y8}", uniq(db.units(stock_code=p8, year=y8))),),
                    needs_previous=True,
                ),
                Turn(
                    f"How many {fakes[0].lower()}s did we sell last year?",
                    "unanswerable",
                    (NotFound(fakes[0]),),
                ),
                Turn(
                    "Which 3 products sold the most units overall?",
                    "ranking",
                    (robust_names("top 3 by units", "product", product_rankings(UNITS, 3), 3),),
                ),
                Turn(
                    f"What's the cost price of {p8n}? I want the margin.", "unanswerable", (NotFound("cost"),)
                ),
                Turn(
                    "Which three countries have the most customers?",
                    "ranking",
                    (robust_names("top 3 countries by customers", "country", top3_cust, 3),),
                ),
            ),
        )
    )

    # ---- chat 9: the smallest --------------------------------------------------------------------------
    y9 = year_any()
    least_rev = [bottom_with_ties(db.group("country", mt)) for mt in MONEY]
    least = least_rev[0][0]
    fewest_orders = bottom_with_ties([(c, v) for c, v in db.group("country", "orders", year=y9) if v > 0])
    month_rows = {mt: [(k, v) for k, v in db.group("month", mt) if k in month_set] for mt in MONEY}
    weakest = [bottom_with_ties(month_rows[mt]) for mt in MONEY]
    strongest = [top_with_ties(month_rows[mt], 1) for mt in MONEY]
    fewest_cust = [bottom_with_ties(cust_by_country), bottom_with_ties(buyers_by_country)]
    c9 = cpick.take()
    chats.append(
        Chat(
            "the smallest",
            (
                Turn(
                    "Which country brought in the least revenue?",
                    "minimum",
                    (robust_names("least-revenue country", "country", least_rev, 1),),
                ),
                Turn(
                    "How much was it?",
                    "follow_up",
                    (rev_num(f"{least} revenue", db.rev(country=least)),),
                    needs_previous=True,
                ),
                Turn(
                    f"Which country had the fewest orders in {y9}?",
                    "minimum",
                    (Names(f"fewest orders {y9}", "country", tuple(fewest_orders)),),
                ),
                Turn(
                    "what was our weakest month for revenue?",
                    "minimum",
                    (robust_names("weakest month", "month", weakest, 1),),
                ),
                Turn(
                    "and the strongest?",
                    "follow_up",
                    (robust_names("strongest month", "month", strongest, 1),),
                    needs_previous=True,
                ),
                Turn(
                    "Which country has the fewest customers?",
                    "minimum",
                    (robust_names("fewest customers country", "country", fewest_cust, 1),),
                ),
                Turn(
                    f"What was revenue in {unknown_countries[0]} in {y9}?",
                    "unanswerable",
                    (NotFound(unknown_countries[0]),),
                ),
                Turn(
                    f"how mnay custmers in {c9.lower()}",
                    "paraphrase",
                    (
                        Num(
                            f"{c9} customers",
                            uniq([float(db.buyers(country=c9)), float(db.customers_in(c9))]),
                        ),
                    ),
                ),
            ),
        )
    )

    # ---- chat 10: countries overview ----------------------------------------------------------------------
    y10 = year_any()
    y10p = str(int(y10) - 1)
    c10a = cpick.take(lambda c: db.orders(country=c, year=y10) > 0 and db.orders(country=c, year=y10p) > 0)
    c10b = cpick.take()
    c10c = cpick.take(lambda c: db.orders(country=c, year=y10) > 0)
    turns10 = [
        Turn(
            f"Tell me about {say_country(c10a)}",
            "tell_me_about",
            (country_figures(f"{c10a} figures", country=c10a),),
        ),
        Turn(
            f"and {say_country(c10b)}?",
            "follow_up",
            (country_figures(f"{c10b} figures", country=c10b),),
            needs_previous=True,
        ),
        Turn(
            f"what % of our revenue is from {c10b.lower()}",
            "share",
            (share_num(f"{c10b} share", db.rev(country=c10b), db.rev()),),
        ),
    ]
    if y10p in years:
        turns10.append(
            Turn(
                f"How did {say_country(c10a)} do in {y10} compared with {y10p}?",
                "comparison",
                (
                    change_check(
                        f"{c10a} revenue {y10} vs {y10p}",
                        db.rev(country=c10a, year=y10),
                        db.rev(country=c10a, year=y10p),
                    ),
                ),
            )
        )
    turns10 += [
        Turn(f"How many staff do we employ in {say_country(c10a)}?", "unanswerable", (NotFound("staff"),)),
        Turn(
            f"top 3 products in {c10a} by revenue",
            "ranking",
            (robust_names(f"top 3 products {c10a}", "product", product_rankings(MONEY, 3, country=c10a), 3),),
        ),
        Turn(
            f"Give me the rundown on {say_country(c10c)} in {y10}.",
            "tell_me_about",
            (country_figures(f"{c10c} {y10} figures", country=c10c, year=y10),),
        ),
    ]
    chats.append(Chat("countries overview", tuple(turns10)))

    # ---- chat 11: terse and misspelt -------------------------------------------------------------------
    m11 = rng.choice(months)
    m11b = rng.choice(months_next)
    m11n = shift_month(m11b, 1)
    y11 = year_any()
    c11 = cpick.take(lambda c: db.orders(country=c, year=y11) > 0)
    aov_top = uniq([money(v / max(1, db.orders(country=top))) for v in db.rev(country=top)])
    biggest = [top_with_ties(db.group("customer", mt), 1) for mt in MONEY]
    chats.append(
        Chat(
            "terse and misspelt",
            (
                Turn(
                    f"units sold {month_name(m11, 'lower')} total",
                    "paraphrase",
                    (Num(f"units {m11}", uniq(db.units(month=m11))),),
                ),
                Turn(
                    f"avg order value {'uk' if top == 'United Kingdom' else top.lower()}",
                    "paraphrase",
                    (Num(f"{top} AOV", aov_top),),
                ),
                Turn(
                    "whos our biggest spender",
                    "paraphrase",
                    (robust_names("biggest spender", "customer", biggest, 1),),
                ),
                Turn(
                    f"{y11} sales for {c11.lower()} pls",
                    "paraphrase",
                    (rev_num(f"{c11} {y11} revenue", db.rev(country=c11, year=y11)),),
                ),
                Turn(
                    f"number of orders in {m11b}",
                    "paraphrase",
                    (Num(f"orders {m11b}", (float(db.orders(month=m11b)),)),),
                ),
                Turn(
                    "same for the month after?",
                    "follow_up",
                    (Num(f"orders {m11n}", (float(db.orders(month=m11n)),)),),
                    needs_previous=True,
                ),
                Turn(f"revenue {hv.lower()} segmnt", "paraphrase", (rev_num(f"{hv} revenue", seg_rev[hv]),)),
            ),
        )
    )

    # ---- chat 12: rankings ------------------------------------------------------------------------------
    y12 = year_any()
    p12 = ppick.take()
    p12n = p_name(p12)
    y12_months = {mt: [(k, v) for k, v in db.group("month", mt, year=y12) if k in month_set] for mt in MONEY}
    seg_names = tuple(segs)
    chats.append(
        Chat(
            "rankings",
            (
                Turn(
                    "What are the top 5 countries by revenue?",
                    "ranking",
                    (
                        robust_names(
                            "top 5 countries",
                            "country",
                            [top_with_ties(db.group("country", mt), 5) for mt in MONEY],
                            5,
                        ),
                    ),
                ),
                Turn(
                    f"Top 3 months by revenue in {y12}?",
                    "ranking",
                    (
                        robust_names(
                            f"top 3 months {y12}",
                            "month",
                            [top_with_ties(y12_months[mt], 3) for mt in MONEY],
                            3,
                        ),
                    ),
                ),
                Turn(
                    f"Which 5 products made the most money in {y12}?",
                    "ranking",
                    (
                        robust_names(
                            f"top 5 products {y12}", "product", product_rankings(MONEY, 5, year=y12), 5
                        ),
                    ),
                ),
                Turn(
                    "and by units?",
                    "follow_up",
                    (
                        robust_names(
                            f"top 5 by units {y12}", "product", product_rankings(UNITS, 5, year=y12), 5
                        ),
                    ),
                    needs_previous=True,
                ),
                Turn(
                    "Who are our top 5 customers by spend?",
                    "ranking",
                    (
                        robust_names(
                            "top 5 customers",
                            "customer",
                            [top_with_ties(db.group("customer", mt), 5) for mt in MONEY],
                            5,
                        ),
                    ),
                ),
                Turn(
                    "Rank the customer segments by revenue.",
                    "ranking",
                    (Names("segments ranked", "segment", seg_names, len(seg_names)),),
                ),
                Turn(
                    f"Tell me about {p12n.lower()}",
                    "tell_me_about",
                    (
                        Nums(
                            f"{p12n} figures",
                            (
                                uniq(db.rev(stock_code=p12)),
                                uniq(db.units(stock_code=p12)),
                                (float(db.orders(stock_code=p12)),),
                            ),
                            need=2,
                        ),
                    ),
                ),
            ),
        )
    )

    # ---- chat 13: more exclusions ----------------------------------------------------------------------
    y13 = year_any()
    m13 = mpick.take()
    c13 = cpick.take()
    ex_units = product_rankings(UNITS, 1, not_country=top)
    ex_orders = top_with_ties(db.group("country", "orders", not_country=top, month=m13), 1)
    chats.append(
        Chat(
            "more exclusions",
            (
                Turn(
                    f"Revenue excluding {say_country(c13)} in {y13}?",
                    "exclusion",
                    (rev_num(f"revenue excl {c13} {y13}", db.rev(not_country=c13, year=y13)),),
                ),
                Turn(
                    f"How many customers do we have outside {say_country(top)}?",
                    "exclusion",
                    (
                        Num(
                            f"customers excl {top}",
                            uniq(
                                [
                                    float(db.buyers(not_country=top)),
                                    float(
                                        db.con.execute(
                                            "SELECT COUNT(*) FROM customers WHERE country <> ?", (top,)
                                        ).fetchone()[0]
                                    ),
                                ]
                            ),
                        ),
                    ),
                ),
                Turn(
                    f"Best-selling product by units outside {say_country(top, rng)}?",
                    "exclusion",
                    (robust_names(f"top product excl {top}", "product", ex_units, 1),),
                ),
                Turn(
                    f"Apart from {say_country(top)}, which country had the most orders in {month_name(m13)}?",
                    "exclusion",
                    (Names(f"most orders excl {top} {m13}", "country", tuple(ex_orders)),),
                ),
                Turn(
                    f"What's revenue from all segments except {hv}?",
                    "exclusion",
                    (rev_num(f"revenue not {hv}", db.rev(not_segment=hv)),),
                ),
                Turn(
                    f"How many units did we sell outside {say_country(top)} in {y13}?",
                    "exclusion",
                    (Num(f"units excl {top} {y13}", uniq(db.units(not_country=top, year=y13))),),
                ),
                Turn(
                    "and inside it?",
                    "follow_up",
                    (Num(f"units {top} {y13}", uniq(db.units(country=top, year=y13))),),
                    needs_previous=True,
                ),
            ),
        )
    )

    # ---- chat 14: shares ---------------------------------------------------------------------------------
    y14 = year_any()
    m14y = rng.choice([m for m in months if m.startswith(y14)])
    m14 = mpick.take()
    m14p = shift_month(m14, -1)
    c14 = cpick.take(lambda c: db.orders(country=c, month=m14) > 0 and db.orders(country=c, month=m14p) > 0)
    new_seg = "New" if "New" in segs else segs[-1]
    chats.append(
        Chat(
            "shares",
            (
                Turn(
                    f"{'uk' if top == 'United Kingdom' else top.lower()} share of revenue in {y14}",
                    "share",
                    (share_num(f"{top} share {y14}", db.rev(country=top, year=y14), db.rev(year=y14)),),
                ),
                Turn(
                    f"What percentage of {y14} revenue came in {calendar.month_name[int(m14y[5:])]}?",
                    "share",
                    (share_num(f"{m14y} share of {y14}", db.rev(month=m14y), db.rev(year=y14)),),
                ),
                Turn(
                    f"What fraction of our customers are {at_risk}?",
                    "share",
                    (
                        Num(
                            f"{at_risk} customer share",
                            (round(seg_cnt[at_risk] / max(1, db.customer_count()), 6),),
                            percent=True,
                        ),
                    ),
                ),
                Turn(
                    f"In {month_name(m14)}, what share of revenue came from {say_country(c14)}?",
                    "share",
                    (share_num(f"{c14} share {m14}", db.rev(country=c14, month=m14), db.rev(month=m14)),),
                ),
                Turn(
                    "and the month before?",
                    "follow_up",
                    (share_num(f"{c14} share {m14p}", db.rev(country=c14, month=m14p), db.rev(month=m14p)),),
                    needs_previous=True,
                ),
                Turn(
                    f"what % of revenue comes from {new_seg} customers",
                    "share",
                    (share_num(f"{new_seg} revenue share", seg_rev[new_seg], total),),
                ),
                Turn(
                    f"Tell me about the {hv} customers",
                    "tell_me_about",
                    (
                        Nums(
                            f"{hv} figures",
                            (
                                (float(seg_cnt[hv]),),
                                uniq(seg_rev[hv]),
                                (float(db.orders(segment=hv)),),
                            ),
                            need=2,
                        ),
                    ),
                ),
            ),
        )
    )

    # ---- chat 15: single days and minima ---------------------------------------------------------------
    d15a, d15b, d15c = dpick.take(), dpick.take(), dpick.take()
    m15 = mpick.take()
    y15 = year_any()
    c15 = cpick.take(lambda c: db.orders(country=c, year=y15) > 0)
    least_m15 = [
        bottom_with_ties(db.group("country", "net", month=m15)),
        bottom_with_ties(
            [
                (c, v)
                for c, v in db.group("country", "gross", month=m15)
                if db.orders(country=c, month=m15) > 0
            ]
        ),
    ]
    fewest_orders_y = bottom_with_ties([(k, v) for k, v in db.group("month", "orders", year=y15) if v > 0])
    c15_months = {mt: [(k, v) for k, v in db.group("month", mt, country=c15, year=y15)] for mt in MONEY}
    if not c15_months["net"]:
        c15 = top
        c15_months = {mt: [(k, v) for k, v in db.group("month", mt, country=c15, year=y15)] for mt in MONEY}
    seg_aov = {i: [(s, money(seg_rev[s][i] / max(1, db.orders(segment=s)))) for s in segs] for i in (0, 1)}
    chats.append(
        Chat(
            "days and minima",
            (
                Turn(
                    f"Sales on {day_text(d15a, 2)}?",
                    "single_day",
                    (rev_num(f"revenue {d15a}", db.rev(day=d15a)),),
                ),
                Turn(
                    f"How many orders did we get on {day_text(d15b, 3)}?",
                    "single_day",
                    (Num(f"orders {d15b}", (float(db.orders(day=d15b)),)),),
                ),
                Turn(
                    f"What sold best on {day_text(d15c, 0)} by revenue?",
                    "single_day",
                    (
                        robust_names(
                            f"top product {d15c}", "product", product_rankings(MONEY, 1, day=d15c), 1
                        ),
                    ),
                ),
                Turn(
                    f"In {month_name(m15, 'short')}, which country spent the least?",
                    "minimum",
                    (robust_names(f"least country {m15}", "country", least_m15, 1),),
                ),
                Turn(
                    f"Which month of {y15} had the fewest orders?",
                    "minimum",
                    (Names(f"fewest orders month {y15}", "month", tuple(fewest_orders_y)),),
                ),
                Turn(
                    f"Worst month of {y15} in {say_country(c15)} by revenue?",
                    "minimum",
                    (
                        robust_names(
                            f"worst month {c15} {y15}",
                            "month",
                            [bottom_with_ties(c15_months[mt]) for mt in MONEY],
                            1,
                        ),
                    ),
                ),
                Turn(
                    "Which segment has the lowest average order value?",
                    "minimum",
                    (
                        robust_names(
                            "lowest AOV segment", "segment", [bottom_with_ties(seg_aov[i]) for i in (0, 1)], 1
                        ),
                    ),
                ),
            ),
        )
    )

    # ---- chat 16: things we cannot know ----------------------------------------------------------------
    y16 = year_any()
    p16 = ppick.take()
    m16 = rng.choice(months)
    c16 = cpick.take(lambda c: db.orders(country=c, month=m16) > 0)
    m16b = mpick.take()
    d16 = dpick.take()
    unk2 = unknown_countries[1] if len(unknown_countries) > 1 else unknown_countries[0]
    chats.append(
        Chat(
            "things we cannot know",
            (
                Turn(f"What was our gross margin in {y16}?", "unanswerable", (NotFound("margin"),)),
                Turn(
                    f"Which supplier do we buy {p_name(p16)} from?", "unanswerable", (NotFound("supplier"),)
                ),
                Turn(
                    f"revenue {c16.lower()} {month_name(m16, 'lower')}",
                    "paraphrase",
                    (rev_num(f"{c16} revenue {m16}", db.rev(country=c16, month=m16)),),
                ),
                Turn(
                    f"how much did we spend on marketing in {y16}", "unanswerable", (NotFound("marketing"),)
                ),
                Turn(f"How many orders came from {unk2}?", "unanswerable", (NotFound(unk2),)),
                Turn(
                    f"orders on {day_text(d16, 4)}?",
                    "single_day",
                    (Num(f"orders {d16}", (float(db.orders(day=d16)),)),),
                ),
                Turn(
                    f"tell me about {month_name(m16b, 'lower')}",
                    "tell_me_about",
                    (country_figures(f"{m16b} figures", month=m16b),),
                ),
                Turn(
                    f"Is {fakes[1 % len(fakes)].title()} selling well in {say_country(c16)}?",
                    "unanswerable",
                    (NotFound(fakes[1 % len(fakes)]),),
                ),
            ),
        )
    )

    # ---- chat 17: month comparisons --------------------------------------------------------------------
    m17 = mpick.take()
    m17p = shift_month(m17, -1)
    c17 = cpick.take(lambda c: db.orders(country=c, month=m17) > 0 and db.orders(country=c, month=m17p) > 0)
    k17 = kpick.take()
    d17 = dpick.take()
    turns17 = [
        Turn(
            f"Orders in {month_name(m17)} compared to the month before?",
            "comparison",
            (
                change_check(
                    f"orders {m17} vs {m17p}",
                    (float(db.orders(month=m17)),),
                    (float(db.orders(month=m17p)),),
                    False,
                ),
            ),
        ),
        Turn(
            f"{c17.lower()} revenue {month_name(m17, 'iso')} vs {month_name(m17p, 'iso')}",
            "comparison",
            (
                change_check(
                    f"{c17} revenue {m17} vs {m17p}",
                    db.rev(country=c17, month=m17),
                    db.rev(country=c17, month=m17p),
                ),
            ),
        ),
    ]
    if year_pairs:
        y17 = rng.choice(full_pairs or year_pairs)
        y17p = str(int(y17) - 1)
        c17b = cpick.take(
            lambda c: db.orders(country=c, year=y17) > 0 and db.orders(country=c, year=y17p) > 0
        )
        turns17 += [
            Turn(
                f"Compare units sold in {y17} with {y17p}.",
                "comparison",
                (change_check(f"units {y17} vs {y17p}", db.units(year=y17), db.units(year=y17p), False),),
            ),
            Turn(
                f"and in {say_country(c17b)}?",
                "follow_up",
                (
                    change_check(
                        f"{c17b} units {y17} vs {y17p}",
                        db.units(country=c17b, year=y17),
                        db.units(country=c17b, year=y17p),
                        False,
                    ),
                ),
                needs_previous=True,
            ),
        ]
    if months_yoy:
        m17y = rng.choice(months_yoy)
        m17yp = shift_month(m17y, -12)
        turns17.append(
            Turn(
                f"How did {month_name(m17y)} revenue compare with the same month the year before?",
                "comparison",
                (change_check(f"revenue {m17y} vs {m17yp}", db.rev(month=m17y), db.rev(month=m17yp)),),
            )
        )
    turns17 += [
        Turn(
            f"What was revenue on {day_text(d17, 3)}?",
            "single_day",
            (rev_num(f"revenue {d17}", db.rev(day=d17)),),
        ),
        Turn(f"Tell me about customer {k17}", "tell_me_about", customer_checks(k17, db.customer(k17))),
        Turn(
            f"What share of revenue did the {at_risk} segment bring in?",
            "share",
            (share_num(f"{at_risk} revenue share", seg_rev[at_risk], total),),
        ),
    ]
    chats.append(Chat("month comparisons", tuple(turns17)))

    db.con.close()
    return chats


# ------------------------------------------------------------------------------------------- printing


def _describe(check: Check) -> str:
    if isinstance(check, AnyOf):
        return f"AnyOf[{check.label}](" + " | ".join(_describe(o) for o in check.options) + ")"
    return repr(check)


def main(argv: list[str]) -> None:
    db_path = Path(argv[1]) if len(argv) > 1 else Path("/work/evaldata/seed42.sqlite")
    seed = int(argv[2]) if len(argv) > 2 else 42
    chats = build_heldout_chats(db_path, seed)
    counts: dict[str, int] = {c: 0 for c in HELDOUT_CATEGORIES}
    for chat in chats:
        print(f"== {chat.title} ({len(chat.turns)} turns)")
        for turn in chat.turns:
            flag = " [needs_previous]" if turn.needs_previous else ""
            print(f"  Q [{turn.category}]{flag}: {turn.text}")
            for check in turn.checks:
                print(f"      - {_describe(check)}")
            if turn.category:
                counts[turn.category] = counts.get(turn.category, 0) + 1
    print()
    print(f"{sum(counts.values())} scored questions in {len(chats)} chats:")
    for cat, n in counts.items():
        print(f"  {cat:14s} {n}")


if __name__ == "__main__":
    main(sys.argv)
