"""One CSV record to one invoice line, under a mapping and a format, or the reason it is skipped.

The rules are the Online Retail importer's (``retail.importer`` documents them for users): a line
needs an invoice (a file without order numbers has one order per line, numbered by its place), a
stock code, a non-zero integer quantity (a file without one sells a unit a line), a date, a price
>= 0 (or a line total, which has the quantity's sign) and a customer; a negative quantity is a
cancellation (or return) line. In the Online Retail layouts a "C" invoice is a cancellation too and
must have a negative quantity; elsewhere a "C" is just part of the order number (``CA-1001``), which
a shop may choose freely. Each failure has a stable *reason* (the key of
``ImportReport.skipped_by_reason``) and a message naming the file's own column.

Order-level cells filled down: shop platform exports (Shopify's orders export, for one) write the
date, the customer and the billing country on an order's first line only and leave them blank on
its other line items. A blank date, customer or country is read from the first line of the same
invoice while that invoice's lines follow one another; never from another order.

Customers: a numeric key (``17850``, the UCI export's ``17850.0``) is the id. Any other key (a shop
platform's e-mail address or customer name) becomes a stable id of its own: ``KEYED_ID_BASE`` plus 48
bits of its BLAKE2b hash (case-insensitive), the same in every import and on every server, below
2**53 so a browser reads it exactly. The key itself is not stored.

Built as closures over the column positions, because this runs once per line of a 500,000-line file
(docs/architecture.md#dataset-versions: the import's speed budget).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Sequence
from typing import NamedTuple

from agent_orchestrator.retail.datasets.dates import date_parser
from agent_orchestrator.retail.datasets.formats import (
    FIELDS,
    LINE_ORDERS,
    ROWS_ONLY,
    CsvFormat,
    is_rows_only,
    missing_fields,
)
from agent_orchestrator.semantic.written import plain_number

KEYED_ID_BASE = 10**15
"""Ids of customers whose key is not a number start here, above any numeric id a shop uses."""


class Line(NamedTuple):
    invoice: str
    stock_code: str
    description: str
    quantity: int
    invoiced_at: str
    unit_price: float
    customer_id: int
    country: str
    amount: float
    """The line's total: the file's own when it has one, else quantity times unit price."""


class Skip(Exception):
    """A record that cannot be imported: ``reason`` is the category, ``str()`` the detail."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class RowsOnly(Skip):
    """A line of a file without customers or products: imported into the file's own rows (its
    semantic model answers it), not into the retail tables, and not a skipped line."""


def keyed_customer_id(key: str) -> int:
    """The stable id of a non-numeric customer key (see the module docstring)."""
    digest = hashlib.blake2b(key.strip().casefold().encode(), digest_size=6).digest()
    return KEYED_ID_BASE + int.from_bytes(digest, "big")


def number_parser(fmt: CsvFormat) -> Callable[[str], float]:
    """Text to a number in the file's notation ("1.234,56" with a decimal comma), or as a sheet writes
    it for people ("$600,000 ", "(45.10)": ``semantic.written``); ``ValueError`` for anything else."""
    thousands, decimal = fmt.thousands, fmt.decimal

    def plain(text: str) -> float:
        if thousands:
            text = text.replace(thousands, "")
        return float(text.replace(decimal, ".") if decimal != "." else text)

    def parse(text: str) -> float:
        try:
            return plain(text)
        except ValueError:
            written = plain_number(text, decimal)
            if written is None:
                raise
            return float(written)

    return parse


def line_parser(
    header: list[str],
    mapping: dict[str, str],
    fmt: CsvFormat,
    date_formats: Sequence[str],
    *,
    c_cancels: bool,
) -> Callable[[list[str]], Line]:
    """A function from one record to a :class:`Line`, raising :class:`Skip`; records are passed in
    file order (the fill-down of order-level cells depends on it).

    ``mapping`` is field -> header column; the optional fields may be missing from it. A mapping
    that names a column the header lacks, or leaves out a required field, is the caller's mistake
    (``ValueError``): the library checks it before it reads a row. ``date_formats`` are tried in
    order (one, unless the file is in an Online Retail layout: ``dates.ONLINE_RETAIL_DATES``).
    ``c_cancels``: a "C" invoice is a cancellation (the Online Retail layouts only:
    ``formats.c_marks_cancellations``).
    """
    position = {name: i for i, name in reversed(list(enumerate(header)))}
    if missing := missing_fields(mapping):
        raise ValueError(f"no column for {', '.join(missing)}")
    for field in FIELDS:
        column = mapping.get(field)
        if column and column not in position:
            raise ValueError(f"no column {column!r} in the header")
    name = {field: mapping.get(field) or field for field in FIELDS}
    width = len(header)
    if is_rows_only(mapping):

        def rows_only(row: list[str]) -> Line:  # no customer or no product: the file's own rows hold it
            if len(row) != width:
                raise Skip("wrong column count", f"expected {width} columns, found {len(row)}")
            raise RowsOnly(ROWS_ONLY, "kept in the file's own rows")

        return rows_only
    i_date, i_cust = (position[mapping[f]] for f in ("invoiced_at", "customer_id"))
    i_qty = position[mapping["quantity"]] if mapping.get("quantity") else None  # none: a unit a line
    i_inv = position[mapping["invoice"]] if mapping.get("invoice") else None
    lines = itertools.count(1)  # without an order number, each line is an order: numbered by its place
    i_code = position[mapping.get("stock_code") or mapping["description"]]  # a name alone is the key
    i_desc, i_country, i_price, i_total = (
        position[mapping[f]] if mapping.get(f) else None
        for f in ("description", "country", "unit_price", "line_total")
    )
    parse_date = date_parser(date_formats)
    expected = " or ".join(date_formats)
    parse_number = number_parser(fmt)
    customers: dict[str, int] = {}
    order = ["", "", "", ""]  # the current invoice and its first line's date, customer and country
    q_name, d_name, p_name, t_name, c_name = (
        name["quantity"],
        name["invoiced_at"],
        name["unit_price"],
        name["line_total"],
        name["customer_id"],
    )

    def quantity_of(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            pass
        try:
            value = parse_number(text)
        except ValueError:
            value = 0.5
        if not value.is_integer():
            raise Skip("bad quantity", f"invalid {q_name} {text!r} (expected an integer)")
        return int(value)

    def money_of(text: str, column: str, sign: int) -> float:
        """A price (``sign`` 1) or a line total (``sign``: the quantity, whose sign a total shares)."""
        try:
            value = parse_number(text)
        except ValueError:
            raise Skip("bad price", f"invalid {column} {text!r}") from None
        if not abs(value) < float("inf"):  # nan and inf
            raise Skip("bad price", f"invalid {column} {text!r}")
        if value * sign < 0:
            rule = "must be >= 0" if sign == 1 else "a total has the sign of its quantity"
            raise Skip("negative price", f"invalid {column} {text!r} ({rule})")
        return value

    def customer_of(text: str) -> int:
        found = customers.get(text)
        if found is not None:
            return found
        if not text:
            raise Skip("no customer", f"missing {c_name}")
        try:
            value = float(text)  # the UCI export writes ids as 13085.0
        except ValueError:
            value = None
        if value is None or value != value or value in (float("inf"), float("-inf")):
            found = keyed_customer_id(text)
        elif value.is_integer() and value >= 1:
            found = int(value)
        else:
            raise Skip("bad customer id", f"invalid {c_name} {text!r}")
        customers[text] = found
        return found

    def parse(row: list[str]) -> Line:
        if len(row) != width:
            raise Skip("wrong column count", f"expected {width} columns, found {len(row)}")
        invoice = LINE_ORDERS.format(next(lines)) if i_inv is None else row[i_inv].strip().upper()
        if not invoice:
            order[0] = ""  # the next line starts an order of its own
            raise Skip("no invoice", f"missing {name['invoice']}")
        text = row[i_date].strip()
        customer = row[i_cust].strip()
        country = "" if i_country is None else row[i_country].strip()
        if invoice == order[0]:  # an order's later line: its blank order-level cells are the first's
            text, customer, country = text or order[1], customer or order[2], country or order[3]
        else:
            order[:] = invoice, text, customer, country
        stock_code = row[i_code].strip().upper()
        if not stock_code:
            raise Skip("no stock code", f"missing {name['stock_code']}")
        quantity = 1 if i_qty is None else quantity_of(row[i_qty].strip())
        if quantity == 0:
            raise Skip("zero quantity", f"{q_name} is 0")
        if quantity > 0 and c_cancels and invoice.startswith("C"):
            raise Skip(
                "cancellation with positive quantity",
                f"cancelled invoice {invoice} with positive {q_name} {quantity}",
            )
        try:
            invoiced_at = parse_date(text)
        except ValueError:
            raise Skip("bad date", f"invalid {d_name} {text!r} (expected {expected})") from None
        total = None if i_total is None else money_of(row[i_total].strip(), t_name, quantity)
        # A line total alone gives the unit price (a return's total is negative, like its quantity).
        price = total / quantity if i_price is None else money_of(row[i_price].strip(), p_name, 1)  # type: ignore[operator]
        amount = round(quantity * price, 2) if total is None else round(total, 4)  # the shop's own cents
        customer_id = customer_of(customer)
        description = "" if i_desc is None else row[i_desc].strip()
        return Line(
            invoice,
            stock_code,
            description,
            quantity,
            invoiced_at,
            round(price, 4),
            customer_id,
            country or "Unspecified",
            amount,
        )

    return parse
