"""Test data shared by the retail tests (a module, not conftest: conftest names clash across test dirs)."""

from __future__ import annotations

from agent_orchestrator.retail import GeneratorConfig

SMALL = GeneratorConfig(seed=7, customers=300, transactions=6_000, products=200)

HEADER = "Invoice,StockCode,Description,Quantity,InvoiceDate,Price,Customer ID,Country\n"

# One line per order (quantity 1, price = order value) so every number below is easy to check.
# The latest purchase is 2025-12-31, which makes it the as-of date.
KNOWN_ROWS = """\
100001,A,ITEM A,1,2024-01-10 10:00:00,2500,1,United Kingdom
100002,A,ITEM A,1,2025-06-01 10:00:00,2500,1,United Kingdom
100003,B,ITEM B,1,2025-12-01 10:00:00,50,2,France
100004,A,ITEM A,1,2025-10-05 10:00:00,1500,3,United Kingdom
100005,A,ITEM A,1,2025-12-31 10:00:00,1500,3,United Kingdom
100006,B,ITEM B,1,2025-11-01 10:00:00,50,4,Germany
100007,B,ITEM B,1,2025-12-15 10:00:00,50,4,Germany
100008,C,ITEM C,1,2025-11-01 10:00:00,100,5,Germany
100009,C,ITEM C,1,2025-12-20 10:00:00,100,5,Germany
C100010,C,ITEM C,-1,2025-12-21 10:00:00,50,5,Germany
100011,B,ITEM B,1,2025-06-01 10:00:00,60,6,France
100012,B,ITEM B,1,2025-10-02 10:00:00,60,6,France
100013,B,ITEM B,1,2025-08-01 10:00:00,30,7,Spain
100014,B,ITEM B,1,2025-09-01 10:00:00,30,7,Spain
100015,B,ITEM B,1,2025-10-01 10:00:00,20,7,Spain
C100016,B,ITEM B,-1,2025-12-01 10:00:00,10,8,Spain
100017,D,ITEM D,1,2025-12-01 10:00:00,4000,9,Italy
100018,D,ITEM D,1,2025-12-31 09:00:00,4000,9,Italy
"""

# customer id -> expected segment, with the reason it is interesting
KNOWN_SEGMENTS = {
    1: "At Risk",  # biggest spender but silent for 213 days: At Risk wins over High Value
    2: "New",  # one order, 30 days ago
    3: "Regular",  # 3000 is not above the top-quintile cut (5000, customer 1's spend)
    4: "Regular",
    5: "Regular",  # two orders and a cancellation: revenue 150, orders still 2
    6: "Regular",  # last order exactly 90 days before as-of: still active
    7: "At Risk",  # last order 91 days before as-of
    9: "High Value",  # 8000 > 5000
}
