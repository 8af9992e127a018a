"""CSV files of sales for the upload tests (web API, unit and browser): the Online Retail layout, and a
shop's own export whose columns must be mapped by hand."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta
from pathlib import Path

ONLINE_RETAIL = (
    "InvoiceNo",
    "StockCode",
    "Description",
    "Quantity",
    "InvoiceDate",
    "UnitPrice",
    "CustomerID",
    "Country",
)
# "Client" is no name the library knows for a customer: the admin maps it. Dates day first, all days
# at most 12, so the first rows fit day/month and month/day alike: the admin picks.
SHOP_EXPORT = ("Order", "SKU", "Item", "Qty", "Date", "Price", "Client", "Country")
COUNTRIES = ("United Kingdom", "Germany", "France", "EIRE")
START = datetime(2011, 1, 1, 9, 0)


def sales_csv(
    path: Path,
    lines: int = 200,
    *,
    customers: int = 20,
    without_customer: Collection[int] = (),
    shop_export: bool = False,
) -> Path:
    """Write ``lines`` sales lines to ``path``; the 0-based lines in ``without_customer`` have no
    customer id. Four lines an invoice (line ``i`` is the first of its invoice when ``i % 4 == 0``),
    one an hour, a day apart in the shop's export (its dates are ``%d/%m/%Y %H:%M``, days 1 to 12
    only). The importer skips a first line without a customer; a later line takes its invoice's
    customer from the first (the fill-down of shop exports: ``retail.datasets.rows``)."""
    header = SHOP_EXPORT if shop_export else ONLINE_RETAIL
    out = [",".join(header)]
    for i in range(lines):
        when = START + (timedelta(days=i % 12) if shop_export else timedelta(hours=i))
        date = when.strftime("%d/%m/%Y %H:%M" if shop_export else "%Y-%m-%d %H:%M:%S")
        customer = "" if i in without_customer else str(12000 + i % customers)
        product = f"P{i % 30:03d}"
        out.append(
            f"{536000 + i // 4},{product},Product {product},{i % 5 + 1},{date},{1 + i % 7}.25,{customer},"
            f"{COUNTRIES[i % customers % len(COUNTRIES)]}"
        )
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path
