"""CSV files of sales for the upload tests (web API, unit and browser): the Online Retail layout, a
shop's own export whose columns must be mapped by hand, and a store export with columns of its own."""

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

STORE_EXPORT = (
    "Row ID,Order ID,Order Date,Ship Mode,Customer ID,Customer Name,Segment,Region,Product ID,"
    "Product Name,Sales,Quantity,Discount,Profit\n"
    "1,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,South,FUR-1,Bookcase,261.96,2,0,41.9136\n"
    "2,CA-1,11/8/2016,Second Class,CG-12520,Claire Gute,Consumer,South,FUR-2,Chairs,731.94,3,0,219.582\n"
    "3,CA-2,6/30/2016,Same Day,DV-13045,Darrin Chand,Corporate,West,OFF-1,Labels,14.62,2,0,6.8714\n"
    "4,US-3,10/11/2015,Standard Class,SO-20335,Sean Chand,Consumer,West,FUR-3,Table,957.5775,5,0.45,"
    "-383.031\n"
)
"""A store export in the Superstore sample's layout: line totals, text customer keys, regions and
profit; three customers, two of them Chands (a name that means several)."""


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
