"""The dataset's currency and how an amount is written in it: one convention for every figure the
app prints (the answers, the tools' headlines, the segment rules, and through the API the pages and
charts). A leaf module, so the queries and the answers can both use it."""

from __future__ import annotations

import sqlite3
from decimal import ROUND_HALF_UP, Decimal

from agent_orchestrator.retail.schema import get_meta, set_meta

CURRENCY_KEY = "currency"
"""The dataset's currency (an ISO code, e.g. GBP) in its ``meta`` table; unset means none is
printed, because neither the generator nor the Online Retail files name one."""


def dataset_currency(conn: sqlite3.Connection) -> str | None:
    value = get_meta(conn, CURRENCY_KEY)
    return value or None


def set_currency(conn: sqlite3.Connection, code: str | None) -> None:
    """Declare (or, with ``None``, clear) the currency every figure of the dataset is in."""
    if code is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (CURRENCY_KEY,))
        return
    cleaned = code.strip().upper()
    if not (len(cleaned) == 3 and cleaned.isalpha()):
        raise ValueError(f"a currency is a three-letter ISO code such as GBP, not {code!r}")
    set_meta(conn, CURRENCY_KEY, cleaned)


_SYMBOLS = {"GBP": "£", "EUR": "€", "USD": "$", "JPY": "¥"}


def money_affixes(currency: str | None) -> tuple[str, str]:
    """What goes before and after an amount: a symbol before it (``£``) where the currency has a
    well-known one, else the code after it (``1,234.50 CHF``), nothing when the dataset names no
    currency. The one convention for money: the answers, the tools' headlines and, through the API
    (``web.dataset_models.MoneyFormat``), the pages and charts all use it."""
    if not currency:
        return "", ""
    code = currency.upper()
    symbol = _SYMBOLS.get(code)
    return (symbol, "") if symbol else ("", f" {code}")


def money(value: float, currency: str | None) -> str:
    """An amount with two decimals, its sign before the symbol: ``-£3.50``, ``1,234.50 CHF``."""
    prefix, suffix = money_affixes(currency)
    text = f"{prefix}{abs(value):,.2f}{suffix}"
    return f"-{text}" if value < 0 else text


def cents(amount: float) -> float:
    """A sum of money to the cent, half up as a spreadsheet rounds: first to six places, which
    removes the drift of summing binary floats (118,447.82499999 is the shop's 118,447.825), then
    to two (118,447.83; ``round`` would give .82)."""
    exact = Decimal(repr(round(amount, 6)))
    return float(exact.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
