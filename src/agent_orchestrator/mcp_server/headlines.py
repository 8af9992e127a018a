"""One-sentence headlines that lead each tool result: the answer to the usual question, in words.

Measured with the 0.5B model (``bench/eval_assistant.py``): given a ranked list it names the third
row as "the top customer", given ``total: 309`` beside ten rows it answers "10 customers", and it
compares monthly figures wrongly. A headline states the count, the leader, the strongest month, the
share, with numbers formatted the way an answer writes them, so the model copies a sentence instead
of reading a table. The data stays in the result for everything else; any model benefits.
"""

from __future__ import annotations

from typing import Any

from agent_orchestrator.retail.money import money


def _filters(result: dict[str, Any]) -> str:
    filters = result.get("filters") or {}
    named = ", ".join(f"{key.replace('_', ' ')} {value}" for key, value in filters.items())
    return f" ({named})" if named else ""


def _money(value: float, result: dict[str, Any]) -> str:
    """An amount as the answers write it, in the result's currency (none when the data names none)."""
    return money(value, result.get("currency"))


def _customer(row: dict[str, Any], result: dict[str, Any]) -> str:
    revenue = _money(row["revenue"], result)
    return f"customer {row['id']} ({row['country']}, {row['segment']}, revenue {revenue})"


def find_customers(result: dict[str, Any]) -> str:
    rows = result["customers"]
    text = f"{result['total']:,} customers match{_filters(result)}"
    text += f", revenue {_money(result['total_revenue'], result)} in total"
    if rows:
        text += f"; the first listed is {_customer(rows[0], result)}"
    return text + "."


def _series(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def top_customers(result: dict[str, Any]) -> str:
    rows = result["customers"]
    if not rows:
        return f"No customers match{_filters(result)}."
    if len(rows) == 1:
        return f"The top customer by revenue{_filters(result)} is {_customer(rows[0], result)}."
    # The leaders in the main clause: a small model copies the first clause of a sentence.
    leaders = _series([_customer(r, result) for r in rows[:3]])
    return f"The top customers by revenue{_filters(result)} are {leaders}, in that order."


def customer_summary(result: dict[str, Any]) -> str:
    return (
        f"Customer {result['id']} is in the {result['segment']} segment and based in {result['country']}: "
        f"{result['orders']:,} orders, revenue {_money(result['revenue'], result)}, last purchase "
        f"{result['last_purchase']} ({result['recency_days']} days before the data's last day)."
    )


def sales_summary(result: dict[str, Any]) -> str:
    return (
        f"Revenue {_money(result['revenue'], result)} from {result['orders']:,} orders by "
        f"{result['customers']:,} customers ({result['units']:,} units){_filters(result)}, "
        f"{result['first_day'] or 'no sales'} to {result['last_day'] or 'no sales'}."
    )


def monthly_trend(result: dict[str, Any]) -> str:
    summary = result.get("summary") or {}
    if not summary:
        return f"No months to show{_filters(result)}."
    return (
        f"Over {len(result['months'])} months{_filters(result)}: highest revenue in "
        f"{summary['highest_revenue_month']} ({_money(summary['highest_revenue'], result)}), lowest in "
        f"{summary['lowest_revenue_month']} ({_money(summary['lowest_revenue'], result)}), total "
        f"{_money(summary['total_revenue'], result)} from {summary['total_orders']:,} orders."
    )


def top_products(result: dict[str, Any]) -> str:
    rows = result["products"]
    if not rows:
        return f"No products match{_filters(result)}."
    by = "units sold" if result.get("by") == "quantity" else "revenue"
    leaders = _series(
        [
            f"{r['product']} (revenue {_money(r['revenue'], result)}, {r['quantity']:,} units)"
            for r in rows[:3]
        ]
    )
    return f"The top products by {by}{_filters(result)} are {leaders}, in that order."


def country_breakdown(result: dict[str, Any]) -> str:
    rows = result["countries"]
    if not rows:
        return f"No sales{_filters(result)}."
    first = rows[0]
    return (
        f"The country with the most revenue{_filters(result)} is {first['country']}: "
        f"{_money(first['revenue'], result)} ({first['revenue_share']:.1%} of revenue, "
        f"{first['customers']:,} customers)."
    )


def segments(result: dict[str, Any]) -> str:
    parts = [
        f"{s['segment']} {s['customers']:,} customers ({s['share']:.1%} of customers), "
        f"revenue {_money(s['revenue'], result)} ({s['revenue_share']:.1%} of revenue)"
        for s in result["segments"]
    ]
    return "Segments: " + "; ".join(parts) + "."


def prediction(result: dict[str, Any]) -> str:
    return f"A customer with these numbers would be in the {result['segment']} segment: {result['reason']}."


def transactions(result: dict[str, Any]) -> str:
    return f"{result['total']:,} transactions match{_filters(result)}."
