"""What a CSV file's columns mean and how its values are written: the mapping and the format.

An upload can come from anywhere: the Online Retail files, a shop platform's order export, a
spreadsheet saved in Germany. The importer reads all of them through two explicit choices the admin
confirms (docs/architecture.md#dataset-versions): which header column holds each of our
:data:`FIELDS`, and the :class:`CsvFormat` its values are written in. This module only suggests
them from a header; ``inspect.py`` looks at the values too.
"""

from __future__ import annotations

import csv
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass

from agent_orchestrator.semantic.suggest import MOVED_WORDS, header_words

FIELDS = (
    "invoice",
    "stock_code",
    "description",
    "quantity",
    "invoiced_at",
    "unit_price",
    "customer_id",
    "country",
    "line_total",
)
"""Our columns, in the order of the Online Retail layout, then a line's total."""

PRICE_FIELDS = ("unit_price", "line_total")
"""A line's money: its unit price, or its total (a shop's ``Sales`` column), either is enough; with
only a total, the unit price is the total over the quantity."""

OPTIONAL_FIELDS = frozenset(
    {"invoice", "stock_code", "description", "quantity", "country", "customer_id", *PRICE_FIELDS}
)
"""Fields a file may lack: the order number (a file of one line per order: each line is an order of
its own, :data:`LINE_ORDERS`), the stock code (a file that names its products only: the name is the
key), an empty description, the quantity (a line is one unit sold: a car dealer's sales, a ticket
each; its price is the line's total), the country ``Unspecified``, one of the two
:data:`PRICE_FIELDS` (see :func:`missing_fields`), and the customer, or the product (stock code and
description both): a till's export names neither. Its lines are then the file's own rows only
(:data:`ROWS_ONLY`), answered by its semantic model, never the retail tables' customers or products."""

LINE_ORDERS = "line {}"
"""The order number of a file's line when the file has none (each line is an order): its line's place."""

ROWS_ONLY = "rows only"
"""Why a line is kept in the file's own rows and not in the retail tables: the file has no
customer or product column (see ``rows.line_parser``)."""

LAYOUTS: dict[str, tuple[str, ...]] = {
    "Online Retail II": (
        "invoice",
        "stockcode",
        "description",
        "quantity",
        "invoicedate",
        "price",
        "customerid",
        "country",
    ),
    "Online Retail": (
        "invoiceno",
        "stockcode",
        "description",
        "quantity",
        "invoicedate",
        "unitprice",
        "customerid",
        "country",
    ),
}
"""Known headers (normalised names, in :data:`FIELDS` order): a file with one of them needs no mapping."""

# Other exports' names for our fields, most specific first (normalised: lower case, letters and
# digits only). "name" is a shop platform's order number ("#1001"), so it is the last guess for it.
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "invoice": (
        "invoice",
        "invoiceno",
        "invoicenumber",
        "invoiceid",
        "orderid",
        "ordernumber",
        "orderno",
        "order",
        "transaction",
        "receipt",
        "ticket",
        "name",
    ),
    "stock_code": (
        "stockcode",
        "sku",
        "lineitemsku",
        "variantsku",
        "productcode",
        "productid",
        "itemcode",
        "articlenumber",
    ),
    "description": (
        "description",
        "lineitemname",
        "productname",
        "itemname",
        "producttitle",
        "title",
        "product",
        "item",
    ),
    "quantity": (
        "quantity",
        "qty",
        "lineitemquantity",
        "units",
        "amountordered",
        "quantityordered",
        "orderedquantity",
        "orderquantity",
        "qtyordered",
        "quantitysold",
        "unitssold",
    ),
    "invoiced_at": ("invoicedate", "orderdate", "createdat", "paidat", "date", "datetime", "timestamp"),
    "unit_price": ("price", "unitprice", "lineitemprice", "itemprice", "priceeach"),
    "line_total": (
        "linetotal",
        "sales",
        "lineamount",
        "lineitemtotal",
        "totalprice",
        "extendedprice",
    ),
    "customer_id": (
        "customerid",
        "customerno",
        "customernumber",
        "customer",
        "email",
        "customeremail",
        "clientid",
        "customername",
        "clientname",
    ),
    "country": ("country", "billingcountry", "shippingcountry", "countrycode", "customercountry"),
}


@dataclass(frozen=True)
class CsvFormat:
    """How a file writes its values. ``date_format`` is a ``strptime`` format (``None``: detect it from
    the file's first rows); ``thousands`` is the digit-group separator (``""``: none)."""

    delimiter: str = ","
    date_format: str | None = None
    decimal: str = "."
    thousands: str = ""
    encoding: str = "utf-8"


def is_rows_only(mapping: Mapping[str, str | None]) -> bool:
    """Whether a file mapped so imports as its own rows only (:data:`ROWS_ONLY`): no customer, or no
    product (neither a stock code nor a description)."""
    return not mapping.get("customer_id") or not (mapping.get("stock_code") or mapping.get("description"))


def missing_fields(mapping: Mapping[str, str | None]) -> list[str]:
    """The required fields a mapping gives no column (a unit price or a line total counts once, as
    ``"unit_price or line_total"``): what an import as mapped cannot do without."""
    missing = [field for field in FIELDS if not mapping.get(field) and field not in OPTIONAL_FIELDS]
    if not any(mapping.get(field) for field in PRICE_FIELDS):
        missing.append(" or ".join(PRICE_FIELDS))
    return missing


def normalise(name: str) -> str:
    """A header name as we compare it: "Customer ID", "customer_id" and "CustomerID" are one."""
    return re.sub(r"[^a-z0-9]", "", name.lower())


def layout_of(header: list[str]) -> str | None:
    """The known layout whose columns the header has (in any order), or ``None``."""
    names = {normalise(name) for name in header}
    for layout, columns in LAYOUTS.items():
        if names.issuperset(columns):
            return layout
    return None


def c_marks_cancellations(header: list[str], mapping: dict[str, str]) -> bool:
    """Whether a leading "C" on an invoice marks a cancellation: only in the Online Retail layouts,
    with their invoice column mapped. A shop's own order numbers may start with any letter."""
    layout = layout_of(header)
    invoice = mapping.get("invoice")
    return layout is not None and invoice is not None and normalise(invoice) == LAYOUTS[layout][0]


def suggest_mapping(header: list[str]) -> dict[str, str | None]:
    """Field -> the header column that most likely holds it (``None``: no column looks like it).

    A column is suggested for one field only, the first field whose most specific name it matches.
    """
    by_name: dict[str, str] = {}
    for column in header:
        by_name.setdefault(normalise(column), column)
    taken: set[str] = set()
    mapping: dict[str, str | None] = {}
    for field in FIELDS:
        mapping[field] = None
        for synonym in _SYNONYMS[field]:
            found = by_name.get(synonym)
            if found is not None and found not in taken:
                mapping[field] = found
                taken.add(found)
                break
    for field, fits in _BY_WORDS.items():  # no known name: a header whose words say it
        if mapping[field] is None:
            found = next((c for c in header if c not in taken and fits(set(header_words(c)))), None)
            if found is not None:
                mapping[field] = found
                taken.add(found)
    if mapping["description"] is None:  # "pizza_name", "Book Title": what a shop sells, by its own noun
        mapping["description"] = next((c for c in header if c not in taken and _names_a_thing(c)), None)
    return mapping


def dated_as_the_amount(header: list[str], mapping: dict[str, str | None]) -> str | None:
    """The date of sale, as the amount names it: of two dates of a deal, "close_date" beside
    "close_value" (not "engage_date", when the deal was opened). The suggested one stays when it
    shares a word with the amount's header or none does."""
    dated, amount = mapping.get("invoiced_at"), mapping.get("line_total")
    if dated is None or amount is None:
        return dated
    told = set(header_words(amount)) - _SUM - _TURNOVER - {"value", "line"}
    if set(header_words(dated)) & told:
        return dated
    taken = set(mapping.values())
    return next(
        (
            c
            for c in header
            if c not in taken and _BY_WORDS["invoiced_at"](words := set(header_words(c))) and words & told
        ),
        dated,
    )


def _names_a_thing(header: str) -> bool:
    """A name of one noun that is no person, place, organisation or grouping ("pizza_name", "Model
    Name", not "Customer Name", "City Name" or "Category Name")."""
    words = set(header_words(header))
    return bool(words & _NAME) and len(words - _NAME) == 1 and not words & _NOT_A_PRODUCT


EVENT_WORDS = frozenset(
    {"invoice", "order", "transaction", "receipt", "bill", "ticket", "sale", "sales", "purchase", "deal",
     "opportunity", "booking"}
)  # fmt: skip
"""What one line belongs to: an order by any of its names (a B2B pipeline's deal or opportunity)."""
_KEY = frozenset({"id", "no", "nr", "number", "num", "ref", "reference", "code", "key"})
_DAY = frozenset({"date", "datetime", "timestamp", "day"})
_NOT_SOLD_ON = frozenset({"ship", "shipped", "shipping", "delivery", "delivered", "due", "return", "birth"})
_PRODUCT = frozenset({"product", "item", "article", "sku", "menu"})
_NAME = frozenset({"name", "title", "description", "desc"})
_NOT_A_PRODUCT = frozenset(
    {"customer", "client", "buyer", "user", "member", "account", "contact", "first", "last", "full", "nick",
     "store", "shop", "branch", "outlet", "warehouse", "site", "location", "city", "town", "state",
     "province", "county", "country", "region", "area", "zone", "territory", "street", "address", "category",
     "segment", "group", "type", "class", "department", "dept", "division", "brand", "company", "supplier",
     "vendor", "manufacturer", "maker", "employee", "staff", "seller", "salesperson", "rep", "agent",
     "cashier", "manager", "owner", "ship", "shipping", "courier", "carrier", "file", "channel", "method",
     "payment", "status", "campaign", "promotion", "promo", "coupon", "event", "day", "month", "week",
     "dealer", "dealership", "retailer", "reseller", "distributor", "wholesaler", "stockist", "partner"}
)  # fmt: skip
"""Nouns of a name column that is not what the shop sells."""
_PRICE = frozenset({"price", "mrp"})
_TURNOVER = frozenset({"sales", "revenue", "turnover"})
_SUM = frozenset({"total", "amount"})
_NOT_A_LINES_TOTAL = frozenset(
    {"tax", "vat", "discount", "shipping", "freight", "profit", "cost", "cogs", "margin", "fee", "target",
     "quantity", "qty", "units", "unit", "count", "number", "no", "id", "date", "rate", "percent", "pct",
     "method", "channel", "type", "rep", "person", "region", "order", "invoice", "refund", "refunded"}
)  # fmt: skip
_NOT_COUNTED = _PRICE | _SUM | _TURNOVER | frozenset(
    {"date", "day", "id", "no", "number", "value", "cost", "by", "to", "from"}
)  # fmt: skip
"""A header's words that say it is no count of what went ("Sold By", "Shipped Date", "Ordered Value")."""
_BUYER = frozenset({"customer", "client", "buyer", "shopper", "member"})
_BY_WORDS = {
    "invoice": lambda words: bool(words & EVENT_WORDS and words & _KEY),  # "transaction_id", "Receipt No"
    "customer_id": lambda words: bool(words & _BUYER and words & _KEY),  # "Customer Reference ID"
    "invoiced_at": lambda words: bool(words & _DAY and not words & _NOT_SOLD_ON),  # "transaction_date"
    # "item_code", "menu_id"; an "Order Item ID" numbers an order's lines, not what they sold
    "stock_code": lambda words: bool(words & _PRODUCT and words & _KEY and not words & EVENT_WORDS),
    # "item_name"; "Item Purchased" (a count would be numbers: ``inspect`` checks the values)
    "description": lambda words: bool(words & _PRODUCT and (words & _NAME or words & MOVED_WORDS)),
    "unit_price": lambda words: bool(words & _PRICE and not words & (_SUM | _TURNOVER)),  # "Price per Unit"
    # "Boxes Shipped", "Cases Sold": how many of the things went, counted
    "quantity": lambda words: bool(words & (MOVED_WORDS | {"qty", "quantity"}) and not words & _NOT_COUNTED),
    "line_total": lambda words: bool(words & _TURNOVER and not words & _NOT_A_LINES_TOTAL),
}
"""Fields found by a header's words when no known name matched: the kind of thing, and a key's word
(or a date's); a price, or a line's sales ("Total Sales", "Sales Amount"), but not a sales method or
a tax ("Total" and "Amount" alone are taken when written on every line: ``inspect``). A ship date is
no date of sale."""


def source_key(header: list[str]) -> str:
    """A stable key of a header (its normalised names, in order), to remember a mapping per source:
    the same shop's next export has the same header."""
    return hashlib.sha256("\x1f".join(normalise(name) for name in header).encode()).hexdigest()[:16]


def unreadable_line(name: str, line: int, error: csv.Error) -> str:
    """What to tell the admin when Python's CSV reader gives up at ``line`` of the file ``name``: one
    line naming it (docs/architecture.md#the-data-page). In practice a field longer than the reader's
    limit (128 KB: no sales line has one; a file that does is not what it says it is, or has a quote
    left open, so that the rest of the file reads as one field)."""
    if "field larger than field limit" in str(error):
        limit = csv.field_size_limit()
        return (
            f"line {line} of {name} has a field longer than {limit // 1024} KB: not a CSV file of sales "
            'lines, or a quote (") left open there'
        )
    return f"line {line} of {name} cannot be read as CSV: {error}"
