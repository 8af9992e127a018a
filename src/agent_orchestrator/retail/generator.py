"""A deterministic, realistic retail dataset: same seed and config, same rows, same fingerprint.

What makes it look like a real shop (and gives every segment members):

- two years of invoices with seasonality (a Q4 peak, a quiet January) and quieter weekends;
- a long tail of products: popularity falls off like Zipf-Mandelbrot ((rank + 20) ** -1.1):
  a few best sellers carry much of the volume, hundreds of products sell rarely;
- customers in many countries (the United Kingdom dominates, as in the Online Retail data);
- purchase rates that vary a lot between customers (log-normal gap between orders), a few
  wholesalers buying large quantities, customers who *churned* (stopped buying well before the
  end) and *new* customers whose first purchase is in the last weeks;
- about 1.5 % of orders get a cancellation invoice ("C" + number) for one of their lines.

Only ``random.Random(seed)`` is used, never the clock, so the output is reproducible; the end date
is part of the config. ``transactions`` is exact: basket sizes are nudged to hit it.

Speed (a few seconds for the default 5,000 customers / 100,000 lines): plain tuples, one
``executemany`` per table inside one transaction, indexes built after the bulk load, and the
file written under a temporary name and renamed, so a crash never leaves a half-built dataset.
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import json
import math
import os
import random
import sqlite3
from dataclasses import asdict, dataclass
from datetime import date, timedelta
from pathlib import Path

from agent_orchestrator.retail.db import open_readonly, open_readwrite
from agent_orchestrator.retail.progress import ProgressCallback
from agent_orchestrator.retail.schema import create_indexes, create_tables, set_meta
from agent_orchestrator.retail.stats import refresh_customer_stats


@dataclass(frozen=True)
class GeneratorConfig:
    """Knobs of the synthetic dataset; every field goes into the meta table for provenance."""

    seed: int = 42
    customers: int = 5_000
    transactions: int = 100_000
    products: int = 1_200
    end_date: date = date(2025, 12, 31)
    days: int = 731
    first_customer_id: int = 20_001
    first_invoice: int = 700_001

    def __post_init__(self) -> None:
        if self.customers < 1 or self.products < 1 or self.days < 30:
            raise ValueError("need at least 1 customer, 1 product and 30 days")
        if self.transactions < 2 * self.customers:
            raise ValueError("transactions must be at least twice the number of customers")


# Monthly demand multipliers, January first: a quiet start, a Q4 peak in November.
SEASON = (0.70, 0.72, 0.85, 0.85, 0.90, 0.85, 0.85, 0.90, 1.10, 1.25, 1.60, 1.30)
WEEKDAY = (1.0, 1.05, 1.05, 1.1, 1.0, 0.6, 0.5)
MAX_DEMAND = max(SEASON) * max(WEEKDAY)

COUNTRIES = (
    ("United Kingdom", 60.0),
    ("Germany", 6.0),
    ("France", 5.5),
    ("Netherlands", 3.0),
    ("Ireland", 3.0),
    ("Spain", 2.5),
    ("Belgium", 2.0),
    ("Switzerland", 1.6),
    ("Portugal", 1.5),
    ("Italy", 1.4),
    ("Sweden", 1.2),
    ("Norway", 1.1),
    ("Denmark", 1.0),
    ("Australia", 1.0),
    ("United States", 1.0),
    ("Poland", 0.9),
    ("Austria", 0.9),
    ("Finland", 0.8),
    ("Japan", 0.6),
    ("Canada", 0.6),
    ("Greece", 0.5),
    ("Czech Republic", 0.4),
    ("Singapore", 0.4),
    ("Brazil", 0.3),
)

_STYLES = (
    "RED", "BLUE", "PINK", "IVORY", "WHITE", "GREEN", "VINTAGE", "RETRO", "SPOTTY", "STRIPED",
    "FLORAL", "HEART", "STAR", "PAISLEY", "REGENCY", "JUMBO", "MINI", "ANTIQUE", "GLASS", "WOODEN",
)  # fmt: skip
_THEMES = (
    "RETROSPOT", "BIRD", "ROSE", "CHRISTMAS", "SPACEBOY", "DOLLY GIRL", "LOVE", "GARDEN",
    "KITCHEN", "PARTY", "SCANDINAVIAN", "ENGLISH", "ORIENTAL", "CIRCUS", "SKULL", "POLKADOT",
)  # fmt: skip
_ITEMS = (
    "MUG", "TEA CUP", "LUNCH BAG", "CAKE STAND", "CANDLE", "T-LIGHT HOLDER", "BUNTING", "NOTEBOOK",
    "CUSHION COVER", "DOORMAT", "TIN", "JAR", "PHOTO FRAME", "CLOCK", "LANTERN", "NAPKINS",
    "PAPER CHAIN KIT", "HOT WATER BOTTLE", "SHOPPER BAG", "BAKING SET", "DECORATION", "SIGN",
)  # fmt: skip
_QUANTITIES = (1, 2, 3, 4, 6, 8, 10, 12, 24, 48)
_QUANTITY_CUM = tuple(itertools.accumulate((14, 12, 8, 9, 12, 5, 5, 18, 9, 3)))

MEAN_LINES_PER_ORDER = 3.0
CANCEL_RATE = 0.015


@dataclass(frozen=True)
class _Customer:
    customer_id: int
    country: str
    start: int  # first active day (index into the period)
    stop: int  # last active day, inclusive
    gap_days: float  # mean days between orders
    wholesale: bool


def _products(rng: random.Random, n: int) -> list[tuple[str, str, float]]:
    codes = rng.sample(range(10_000, 90_000), n)
    out = []
    for code in codes:
        suffix = rng.choice("ABCDEFGHJKLMNPRSTW") if rng.random() < 0.25 else ""
        name = f"{rng.choice(_STYLES)} {rng.choice(_THEMES)} {rng.choice(_ITEMS)}"
        price = round(min(49.95, max(0.29, rng.lognormvariate(1.0, 0.75))), 2)
        out.append((f"{code}{suffix}", name, price))
    return out


def _customers(rng: random.Random, config: GeneratorConfig) -> list[_Customer]:
    countries = [name for name, _ in COUNTRIES]
    cum = list(itertools.accumulate(weight for _, weight in COUNTRIES))
    last = config.days - 1
    out = []
    for i in range(config.customers):
        country = countries[bisect.bisect(cum, rng.random() * cum[-1])]
        kind = rng.random()
        gap = min(400.0, max(4.0, rng.lognormvariate(math.log(55.0), 0.85)))
        if kind < 0.08:  # new: first purchase in the last 80 days
            start = last - rng.randrange(80)
            stop = last
        else:
            start = 0 if rng.random() < 0.5 else rng.randrange(max(1, config.days - 150))
            stop = last
            if kind < 0.33 and start + 30 < last - 150:  # churned: stopped 150+ days before the end
                stop = rng.randrange(start + 30, last - 150)
        out.append(_Customer(config.first_customer_id + i, country, start, stop, gap, rng.random() < 0.08))
    return out


def _order_days(rng: random.Random, customer: _Customer, scale: float, first_day: date) -> list[int]:
    """Days of this customer's orders: a seasonal Poisson process (thinning) over the active span.

    A customer who joins during the period orders on the day they join; one who was already a
    customer on day 0 just continues (forcing an order on day 0 would fake a spike there).
    """
    days = [] if customer.start == 0 else [customer.start]
    rate = scale / customer.gap_days * MAX_DEMAND
    t = float(customer.start)
    while True:
        t += rng.expovariate(rate)
        if t >= customer.stop + 1:
            break
        day = int(t)
        when = first_day + timedelta(days=day)
        if rng.random() * MAX_DEMAND < SEASON[when.month - 1] * WEEKDAY[when.weekday()]:
            days.append(day)
    return days or [rng.randint(customer.start, customer.stop)]


def _basket_sizes(rng: random.Random, orders: int, lines: int) -> list[int]:
    """Roughly geometric basket sizes, then nudged so they add up to exactly ``lines``."""
    if orders > lines:
        raise ValueError(f"{orders} orders cannot share {lines} lines; raise `transactions`")
    mean = lines / orders
    sizes = [min(60, 1 + int(rng.expovariate(1.0 / max(0.05, mean - 0.5)))) for _ in range(orders)]
    diff = lines - sum(sizes)
    while diff > 0:
        sizes[rng.randrange(orders)] += 1
        diff -= 1
    while diff < 0:
        i = rng.randrange(orders)
        if sizes[i] > 1:
            sizes[i] -= 1
            diff += 1
    return sizes


def generate_dataset(
    path: Path | str, config: GeneratorConfig | None = None, progress: ProgressCallback | None = None
) -> Path:
    """Write a fresh dataset to ``path`` (replacing any file there) and return the path."""
    config = config or GeneratorConfig()
    report = progress or (lambda stage, done, total: None)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        conn = open_readwrite(tmp)
        try:
            # The file is renamed into place only when complete, so no journal is needed.
            conn.execute("PRAGMA journal_mode = OFF")
            conn.execute("PRAGMA synchronous = OFF")
            conn.execute("BEGIN")
            _fill(conn, config, report)
            conn.execute("COMMIT")
            conn.execute("PRAGMA journal_mode = DELETE")
        finally:
            conn.close()
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    report("done", 1, 1)
    return path


def _fill(conn: sqlite3.Connection, config: GeneratorConfig, report: ProgressCallback) -> None:
    rng = random.Random(config.seed)
    first_day = config.end_date - timedelta(days=config.days - 1)
    create_tables(conn)

    report("products", 0, config.products)
    products = _products(rng, config.products)
    conn.executemany("INSERT INTO products VALUES (?, ?, ?)", products)
    popularity = list(itertools.accumulate((rank + 20) ** -1.1 for rank in range(len(products))))

    report("customers", 0, config.customers)
    customers = _customers(rng, config)
    conn.executemany("INSERT INTO customers VALUES (?, ?)", [(c.customer_id, c.country) for c in customers])

    # Scale purchase rates so the expected number of orders gives ~MEAN_LINES_PER_ORDER lines each.
    expected = sum((c.stop - c.start + 1) / c.gap_days for c in customers)
    scale = (config.transactions / MEAN_LINES_PER_ORDER - len(customers)) / max(1.0, expected)
    orders: list[tuple[int, int, int]] = []  # (day, minute, customer index)
    for index, customer in enumerate(customers):
        for day in _order_days(rng, customer, max(scale, 0.01), first_day):
            orders.append((day, rng.randrange(8 * 60, 20 * 60), index))
        if index % 500 == 0:
            report("orders", index, len(customers))
    orders.sort()
    cancelled = {i for i in range(len(orders)) if rng.random() < CANCEL_RATE}
    sizes = _basket_sizes(rng, len(orders), config.transactions - len(cancelled))

    report("transactions", 0, config.transactions)
    rows = _transaction_rows(
        rng, config, first_day, customers, products, popularity, orders, sizes, cancelled
    )
    chunk = 20_000
    for start in range(0, len(rows), chunk):
        conn.executemany(
            f"INSERT INTO transactions VALUES ({', '.join('?' * 11)})", rows[start : start + chunk]
        )
        report("transactions", min(len(rows), start + chunk), config.transactions)

    report("indexes", 0, 1)
    create_indexes(conn)
    report("customer stats", 0, 1)
    refresh_customer_stats(conn)
    set_meta(conn, "source", "generated")
    set_meta(conn, "generator", json.dumps(asdict(config), default=str, sort_keys=True))


def _transaction_rows(
    rng: random.Random,
    config: GeneratorConfig,
    first_day: date,
    customers: list[_Customer],
    products: list[tuple[str, str, float]],
    popularity: list[float],
    orders: list[tuple[int, int, int]],
    sizes: list[int],
    cancelled: set[int],
) -> list[tuple[object, ...]]:
    rows: list[tuple[object, ...]] = []
    cancellations: list[tuple[int, int, int, str, int, float]] = []  # day, minute, cust, code, qty, price
    total = popularity[-1]
    last_day = config.days - 1
    for number, ((day, minute, index), size) in enumerate(zip(orders, sizes, strict=True)):
        customer = customers[index]
        invoice = str(config.first_invoice + number)
        stamp = f"{first_day + timedelta(days=day)} {minute // 60:02d}:{minute % 60:02d}:00"
        seen: dict[str, int] = {}
        lines: list[tuple[str, int, float]] = []  # this order's (code, quantity, price), as in its rows
        for _ in range(size):
            code, _name, price = products[bisect.bisect(popularity, rng.random() * total)]
            quantity = _QUANTITIES[bisect.bisect(_QUANTITY_CUM, rng.random() * _QUANTITY_CUM[-1])]
            if customer.wholesale:
                quantity *= 6
                price = round(price * 0.85, 2)
            seq = seen.get(code, 0)
            seen[code] = seq + 1
            amount = round(quantity * price, 2)
            row = (len(rows) + 1, invoice, code, seq, customer.customer_id, quantity, price, amount, stamp)
            rows.append((*row, customer.country, 0))
            lines.append((code, quantity, price))
        if number in cancelled:
            cancel_day = min(last_day, day + rng.randrange(15))
            code, quantity, price = lines[-1 - rng.randrange(size)]
            cancellations.append((cancel_day, minute, index, code, quantity, price))
    next_invoice = config.first_invoice + len(orders)
    for number, (day, minute, index, code, quantity, price) in enumerate(sorted(cancellations)):
        customer = customers[index]
        stamp = f"{first_day + timedelta(days=day)} {minute // 60:02d}:{minute % 60:02d}:00"
        head = (len(rows) + 1, f"C{next_invoice + number}", code, 0, customer.customer_id, -quantity, price)
        rows.append((*head, round(-quantity * price, 2), stamp, customer.country, 1))
    return rows


def ensure_dataset(
    path: Path | str, config: GeneratorConfig | None = None, progress: ProgressCallback | None = None
) -> bool:
    """Generate the dataset at ``path`` unless a retail database is already there.

    Returns True when it generated one. An existing file that is not a retail database raises
    ``RetailDatabaseError`` rather than being overwritten: it may be someone's data.
    """
    path = Path(path)
    if path.exists():
        open_readonly(path).close()  # raises RetailDatabaseError if it is not ours
        return False
    generate_dataset(path, config, progress)
    return True


def dataset_fingerprint(path: Path | str) -> str:
    """SHA-256 over every table's rows in key order: equal for equal datasets, whatever the file bytes."""
    digest = hashlib.sha256()
    conn = open_readonly(path)
    try:
        for table, key in (
            ("meta", "key"),
            ("customers", "customer_id"),
            ("products", "stock_code"),
            ("transactions", "transaction_id"),
            ("customer_stats", "customer_id"),
        ):
            digest.update(table.encode())
            for row in conn.execute(f"SELECT * FROM {table} ORDER BY {key}"):  # fixed table names
                digest.update(repr(row).encode())
    finally:
        conn.close()
    return digest.hexdigest()
