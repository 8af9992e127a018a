"""The answer to a query, in words, with every figure, name and date written by this code.

The answer opens with the reading ("Revenue, France, 2011: 187,137.48."), so a misread question
shows itself; the figures follow the dataset's conventions: money with two decimals and a currency
symbol only when the dataset declares one, counts as whole numbers with their noun, shares in
percent. A model may put words around this text; it never has to type a number
(docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import calendar
from datetime import date
from typing import Any

from agent_orchestrator.retail.analysis.execute import (
    BY_ORDER_COUNT,
    ORDERED_DIMENSIONS,
    PART_OF,
    REST,
    Figures,
    Outcome,
    Row,
    stepwise,
    whole_scope,
)
from agent_orchestrator.retail.analysis.query import RATES, Dimension, Measure
from agent_orchestrator.retail.money import cents, money

MEASURE_LABELS = {
    Measure.revenue: "Revenue",
    Measure.orders: "Orders",
    Measure.customers: "Customers",
    Measure.units: "Units sold",
    Measure.avg_order_value: "Average order value",
    Measure.revenue_per_customer: "Revenue per customer",
    Measure.orders_per_customer: "Orders per customer",
    Measure.units_per_order: "Units per order",
    Measure.cancellations: "Cancelled orders",
    Measure.cancelled_revenue: "Revenue lost to cancellations and returns",
    Measure.cancellation_rate: "Cancellation rate",
    Measure.repeat_rate: "Repeat customer rate",
    Measure.new_customers: "First-time customers",
    Measure.repeat_customers: "Repeat customers",
    Measure.one_time_customers: "One-time customers",
    Measure.last_purchase: "Last purchase",
    Measure.first_purchase: "First purchase",
    Measure.products: "Products sold",
    Measure.countries: "Countries",
    Measure.overview: "Sales",
}
_NOUNS = {
    Measure.orders: ("order", "orders"),
    Measure.customers: ("customer", "customers"),
    Measure.units: ("unit", "units"),
    Measure.products: ("product", "products"),
    Measure.countries: ("country", "countries"),
    Measure.cancellations: ("cancelled order", "cancelled orders"),
    Measure.new_customers: ("first-time customer", "first-time customers"),
    Measure.repeat_customers: ("repeat customer", "repeat customers"),
    Measure.one_time_customers: ("one-time customer", "one-time customers"),
}
_PLURALS = {
    Dimension.country: "countries",
    Dimension.product: "products",
    Dimension.customer: "customers",
    Dimension.segment: "segments",
    Dimension.month: "months",
    Dimension.day: "days",
    Dimension.year: "years",
    Dimension.quarter: "quarters",
    Dimension.weekday: "days of the week",
}
_SINGULARS = {Dimension.weekday: "day of the week"}


def _noun(dimension: Dimension) -> str:
    """ "month", "day of the week": one group of a dimension, in words."""
    return _SINGULARS.get(dimension, dimension.value)


DAYS = frozenset({Measure.first_purchase, Measure.last_purchase})
"""Measures whose value is a day, not a figure."""
RATIOS = {Measure.orders_per_customer: "orders per customer", Measure.units_per_order: "units per order"}
"""Measures whose value is a ratio of counts, with two decimals and its unit."""
COUNTED_WHEN_ASKED = frozenset({Measure.new_customers, *BY_ORDER_COUNT})
"""Measures counted only when asked for (a second pass): a result lists them only then."""


_RATE_OF = {
    Measure.cancellation_rate: (Measure.cancellations, Measure.orders),
    Measure.repeat_rate: (Measure.repeat_customers, Measure.customers),
}
"""Each rate's counts: the part, and the base it is a fraction of."""


def is_money(measure: Measure) -> bool:
    """Revenue, average order value, revenue per customer: amounts, not counts, ratios or days."""
    return (
        measure not in _NOUNS
        and measure not in DAYS
        and measure not in RATIOS
        and measure not in RATES
        and measure is not Measure.overview
    )


def _long_day(day: date) -> str:
    return f"{day.day} {calendar.month_name[day.month]} {day.year}"


class Figure:
    """Formats one measure's values the same way everywhere in an answer."""

    def __init__(self, measure: Measure, currency: str | None) -> None:
        self.measure = measure
        self.currency = currency

    def __call__(self, value: float) -> str:
        if self.measure in DAYS:
            return _long_day(date.fromordinal(int(value))) if value else "no purchase"
        if self.measure in _NOUNS:
            singular, plural = _NOUNS[self.measure]
            return f"{int(value):,} {singular if int(value) == 1 else plural}"
        if self.measure in RATIOS:
            return f"{value:,.2f} {RATIOS[self.measure]}"
        if self.measure in RATES:
            return percent(value, 1)
        return money(value, self.currency)

    def change(self, now: float, before: float) -> str:
        if self.measure in DAYS:
            return f"{abs(int(now - before)):,} days {'later' if now >= before else 'earlier'}"
        delta = now - before
        if delta == 0:
            return "unchanged"
        direction = "up" if delta > 0 else "down"
        if self.measure in RATES:  # a rate moves by points: 1.5 % to 2.0 % is up 0.5 points
            points = abs(delta) * 100
            return f"{direction} {points:.1f} points" if points >= 0.05 else "level (under 0.1 points apart)"
        pct = f" ({abs(delta) / abs(before):.1%})" if before else ""
        return f"{direction} {self(abs(delta))}{pct}"


def percent(part: float, whole: float) -> str:
    """A share with one decimal, two under 1 % (0.27 %, not a 0.3 % that hides a third of it)."""
    if not whole:
        return "n/a"
    share = part / whole
    return f"{share:.2%}" if 0 < abs(share) < 0.01 else f"{share:.1%}"


def chips(outcome: Outcome) -> list[dict[str, str]]:
    """The reading as separate parts (measure, filters, period, comparison, ranking), each one a
    field of the query the user can change."""
    query, scope = outcome.query, outcome.scope
    parts = [{"field": "measure", "value": query.measure.value, "label": MEASURE_LABELS[query.measure]}]
    for country in scope.countries:
        parts.append({"field": "countries", "value": country, "label": country})
    topped = {key for key, _ in scope.without_top}  # one chip of their own
    for country in (c for c in scope.exclude_countries if c not in topped):
        parts.append({"field": "exclude_countries", "value": country, "label": f"excluding {country}"})
    for segment in scope.segments:
        parts.append({"field": "segments", "value": segment, "label": f"{segment} segment"})
    for segment in scope.exclude_segments:
        parts.append(
            {"field": "exclude_segments", "value": segment, "label": f"excluding the {segment} segment"}
        )
    asked = [name.strip() for name in query.products if name.strip()]
    for name, label in zip(asked, scope.product_labels, strict=True):
        parts.append({"field": "products", "value": name, "label": label})
    unsold = [name.strip() for name in query.exclude_products if name.strip()]
    for name, label in zip(unsold, scope.exclude_product_labels, strict=True):
        parts.append({"field": "exclude_products", "value": name, "label": f"excluding {label}"})
    if scope.customer_id is not None:
        parts.append(
            {
                "field": "customer_id",
                "value": str(scope.customer_id),
                "label": f"customer {scope.customer_id}"
                + (f" ({scope.customer_facts})" if scope.customer_facts else ""),
            }
        )
    for left_out in (c for c in scope.exclude_customer_ids if str(c) not in topped):
        value = str(left_out)
        parts.append(
            {"field": "exclude_customer_ids", "value": value, "label": f"excluding customer {value}"}
        )
    if scope.without_cancellations:
        parts.append(
            {
                "field": "exclude_cancellations",
                "value": "true",
                "label": "excluding cancellations and returns",
            }
        )
    if query.versus_rest:
        parts.append({"field": "versus_rest", "value": "true", "label": "vs all other countries"})
    parts.append(
        {
            "field": "period",
            "value": query.period or "",
            "label": outcome.period.label if outcome.period else "all time",
        }
    )
    if scope.without_top:
        count = len(scope.without_top)
        kind = query.exclude_top_of if count == 1 else _PLURAL_KIND[query.exclude_top_of]
        named = _listing([label for _, label in scope.without_top])
        parts.append(
            {
                "field": "exclude_top",
                "value": str(query.exclude_top),
                "label": f"excluding the top {'' if count == 1 else f'{count} '}{kind} by revenue ({named})",
            }
        )
    if scope.without_period is not None:
        parts.append(
            {
                "field": "exclude_period",
                "value": query.exclude_period or "",
                "label": f"excluding {scope.without_period.label}",
            }
        )
    if outcome.compared is not None:
        field, value = (
            ("compare_with", query.compare_with or "")
            if query.compare_with
            else ("compare", query.compare or "")
        )
        parts.append({"field": field, "value": value, "label": f"vs {outcome.compared.label}"})
    if query.group_by is not None:
        parts.append({"field": "group_by", "value": query.group_by.value, "label": _ranking_label(outcome)})
    if query.share_of is not None and outcome.whole_period is not None:
        parts.append(
            {"field": "share_of", "value": query.share_of, "label": f"share of {outcome.whole_period.label}"}
        )
    elif query.share:
        parts.append({"field": "share", "value": "true", "label": "share of total"})
    return parts


def _named_side_by_side(outcome: Outcome) -> bool:
    """ "Germany vs France": a breakdown of exactly the names the query lists, all of them shown."""
    query, scope = outcome.query, outcome.scope
    named = {
        Dimension.country: scope.countries,
        Dimension.segment: scope.segments,
        Dimension.product: scope.product_labels,
    }.get(query.group_by)  # type: ignore[arg-type]
    shown = len(named or ()) + (1 if query.versus_rest and query.group_by is Dimension.country else 0)
    return (
        bool(named)
        and shown >= 2
        and query.rank is None
        and len(outcome.rows) == shown
        and outcome.groups == len(outcome.rows)
    )


ADDITIVE = frozenset(
    {
        Measure.revenue,
        Measure.orders,
        Measure.units,
        Measure.cancellations,
        Measure.cancelled_revenue,
        Measure.customers,
    }
)
"""Measures whose rows add up to the figure of the rows together (a ratio or a day does not)."""


def together(outcome: Outcome) -> bool:
    """The rows are answered as one figure: asked so, of a measure that adds up, and more than one."""
    return outcome.query.together and outcome.query.measure in ADDITIVE and len(outcome.rows) > 1


def _ranking_label(outcome: Outcome) -> str:
    label, query = _ranked(outcome), outcome.query
    if together(outcome):
        label = f"{label} together"
    if query.among_top is not None:
        by = MEASURE_LABELS[query.among_by or Measure.revenue].lower()
        label = f"{label} of the top {query.among_top} by {by}"
    if query.rank_by and stepwise(query):
        assert query.group_by is not None
        unit = _noun(query.group_by)
        against = (
            f"the same {unit} a year earlier" if query.compare == "year_before" else f"the {unit} before"
        )
        if (
            len(outcome.rows) == 1 and query.rank is None
        ):  # "month with the largest decline on the month before"
            size = "largest" if query.order == "highest" else "smallest"
            return f"{unit} with the {size} {query.rank_by} on {against}"
        return f"{label} by {query.rank_by} on {against}"
    return f"{label} by {query.rank_by}" if query.rank_by else label


def _ranked(outcome: Outcome) -> str:
    query = outcome.query
    assert query.group_by is not None
    noun = _PLURALS[query.group_by]
    unit = _noun(query.group_by)
    if _is_series(outcome) or (_named_side_by_side(outcome) and len(outcome.rows) > 1):
        return f"by {unit}"
    count = len(outcome.rows)
    if query.rank is not None and query.rank > 1:
        direction = "highest" if query.order == "highest" else "lowest"
        return f"{_ordinal(query.rank)} {direction} {unit}"
    if count == 1:
        return f"{'highest' if query.order == 'highest' else 'lowest'} {unit}"
    return f"{'top' if query.order == 'highest' else 'bottom'} {count} {noun}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _is_series(outcome: Outcome) -> bool:
    query = outcome.query
    return (
        query.rank_by is None
        and query.group_by in ORDERED_DIMENSIONS
        and query.limit is None
        and query.rank is None
        and query.order == "highest"
    )


def _listing(names: list[str]) -> str:
    """ "Germany and France", "customers 7, 9 and 12": one list in plain words."""
    if len(names) > 1 and all(n.startswith("customer ") for n in names):
        names = [n.removeprefix("customer ") for n in names]
        names[0] = f"customers {names[0]}"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


_PLURAL_KIND = {"customer": "customers", "country": "countries", "product": "products"}


def reading(outcome: Outcome) -> str:
    """ "Revenue, France, 2011": the measure, then the filters and the period, in plain words."""
    parts: list[str] = []
    excluded: dict[str, list[str]] = {}
    for chip in chips(outcome):
        if chip["field"].startswith("exclude_"):  # "excluding Germany and France", one part
            if chip["field"] not in excluded:
                excluded[chip["field"]] = []
                parts.append(chip["field"])
            excluded[chip["field"]].append(chip["label"].removeprefix("excluding "))
        elif chip["field"] == "period" and outcome.period is not None and outcome.period.placed:
            parts.append(f"{chip['label']} ({outcome.period.placed})")  # "last month" is the data's
        elif chip["field"] not in {"measure", "group_by", "share", "share_of"}:
            parts.append(chip["label"])
    parts = [f"excluding {_listing(excluded[p])}" if p in excluded else p for p in parts]
    head = MEASURE_LABELS[outcome.query.measure]
    if outcome.query.group_by is not None:
        head = f"{head}, {_ranking_label(outcome)}"
    return ", ".join([head, *parts])


def answer(outcome: Outcome, currency: str | None) -> str:
    """The whole answer: the reading, then the figures, then why a comparison is missing."""
    text = _figures_text(outcome, currency)
    return f"{text}\n{outcome.note}" if outcome.note else text


def _whole_of(outcome: Outcome) -> str:
    """ "the total", or what the total is of when a filter stays in it ("the Regular segment
    total"): a share's whole is part of its reading."""
    kept = whole_scope(outcome.scope, outcome.query.group_by, outcome.query.share_within)
    names = [
        *kept.countries,
        *(f"{s} segment" for s in kept.segments),
        *kept.product_labels,
        *([f"customer {kept.customer_id}"] if kept.customer_id is not None else []),
    ]
    return f"the {_listing(names)} total" if names else "the total"


def _shares_compared(outcome: Outcome, figure: Figure) -> str:
    """ "3,819.20, 2.2% of the total 175,816.21; December 2025: 8,801.97, 3.1% of the total
    283,094.30; the share down 0.9 points": each period's figure with its share of its own whole."""
    assert outcome.whole is not None and outcome.whole_previous is not None
    assert outcome.previous is not None and outcome.compared is not None
    measure = outcome.query.measure
    of = _whole_of(outcome)
    now, before = outcome.total.get(measure), outcome.previous.get(measure)
    whole_now, whole_before = outcome.whole.get(measure), outcome.whole_previous.get(measure)
    earlier = f"{figure(before)}, {percent(before, whole_before)} of {of} {figure(whole_before)}"
    text = f"{figure(now)}, {percent(now, whole_now)} of {of} {figure(whole_now)}; "
    text += f"{outcome.compared.label}: {earlier}"
    if whole_now and whole_before:
        points = (now / whole_now - before / whole_before) * 100
        moved = (
            "unchanged"
            if round(points, 1) == 0
            else f"{'up' if points > 0 else 'down'} {abs(points):.1f} points"
        )
        text += f"; the share {moved}"
    return text


def _figures_text(outcome: Outcome, currency: str | None) -> str:
    figure = Figure(outcome.query.measure, currency)
    measure = outcome.query.measure
    stated = reading(outcome)
    if measure is Measure.overview and outcome.query.group_by is None:  # by a dimension: each row's
        one_customer = outcome.scope.customer_id is not None
        return f"{stated}: {overview(outcome.total, currency, customers=not one_customer)}."
    if outcome.query.group_by is None:
        if (
            outcome.whole_previous is not None
            and outcome.previous is not None
            and outcome.compared is not None
        ):
            return f"{stated}: {_shares_compared(outcome, figure)}."
        text = f"{stated}: {figure(outcome.total.get(measure))}"
        if measure in RATES:  # "1.5% (232 cancelled orders of 15,080 orders)": what the rate is of
            some, of_all = _RATE_OF[measure]
            counted = Figure(some, None)(outcome.total.get(some))
            text += f" ({counted} of {Figure(of_all, None)(outcome.total.get(of_all))})"
        if outcome.previous is not None and outcome.compared is not None:
            before = outcome.previous.get(measure)
            text += (
                f"; {outcome.compared.label}: {figure(before)}; "
                f"{_change(outcome, figure, outcome.total.get(measure), before)}"
            )
        if outcome.whole is not None and measure not in DAYS:
            part, whole = outcome.total.get(measure), outcome.whole.get(measure)
            of = f"the {outcome.whole_period.label} total" if outcome.whole_period else _whole_of(outcome)
            if measure in PART_OF and outcome.whole.get(measure) == part:
                # "what share of customers came back?": of the customers, not of itself; "what
                # percentage of orders were cancelled?": of the orders
                base = PART_OF[measure]
                whole, figure = outcome.whole.get(base), Figure(base, figure.currency)
                if measure is Measure.cancelled_revenue:  # of the sales before they were taken off
                    whole, of = cents(whole + part), "the gross sales"
            text += f", {percent(part, whole)} of {of} {figure(whole)}"
        return text + "."
    if not outcome.rows:
        return f"{stated}: no sales in that scope."
    if together(outcome):
        part = sum(row.figures.get(measure) for row in outcome.rows)
        text = f"{stated}: {figure(part)}"
        if outcome.query.share:
            whole = (outcome.whole or outcome.total).get(measure)
            text += f", {percent(part, whole)} of the total {figure(whole)}"
        return text + "."
    lines = [_row_line(i, row, outcome, figure) for i, row in enumerate(outcome.rows, 1)]
    if len(lines) == 1 and not _is_series(outcome):
        noun = _PLURALS[outcome.query.group_by] if outcome.groups != 1 else _noun(outcome.query.group_by)
        of = f"{outcome.groups:,} {noun}"
        return f"{stated}: {lines[0].removeprefix('1. ')} (of {of})."
    body = "\n".join(lines)
    text = f"{stated}:\n{body}"
    if _is_series(outcome) and len(outcome.rows) > 1:
        best = max(outcome.rows, key=lambda r: r.figures.get(measure))
        worst = min(outcome.rows, key=lambda r: r.figures.get(measure))
        high, low = figure(best.figures.get(measure)), figure(worst.figures.get(measure))
        text += f"\n\nHighest: {best.label} ({high}); lowest: {worst.label} ({low})."
    elif _named_side_by_side(outcome) and len(outcome.rows) == 2 and outcome.query.rank_by is None:
        # (ranked by their change, the two are apart in the change each line states, not in value)
        text += f"\n\n{_difference(outcome.rows[0], outcome.rows[1], measure, figure)}"
    elif outcome.groups > len(outcome.rows):  # a paragraph of its own: Markdown would end the list with it
        text += f"\n\n({len(outcome.rows)} of {outcome.groups:,} {_PLURALS[outcome.query.group_by]}.)"
    return text


def _difference(first: Row, second: Row, measure: Measure, figure: Figure) -> str:
    """How far apart two names side by side are ("Germany vs France"), in the measure's own unit."""
    a, b = first.figures.get(measure), second.figures.get(measure)
    if measure is Measure.overview:
        a, b, figure = first.figures.revenue, second.figures.revenue, Figure(Measure.revenue, figure.currency)
    if a == b:
        return f"{first.label} and {second.label}: {'the same day' if measure in DAYS else 'level'}."
    high, low = (first, second) if a > b else (second, first)
    if measure in DAYS:
        return f"{high.label}'s is {abs(int(a - b)):,} days later than {low.label}'s."
    more = abs(a - b) / min(a, b) if min(a, b) > 0 else None
    relative = f" ({more:.1%} more)" if more is not None else ""
    gap = figure(abs(a - b))
    if measure in RATES:  # rates are apart by points, not by a rate
        gap, relative = f"{abs(a - b) * 100:.1f} points", ""
    what = " in revenue" if measure is Measure.overview else ""
    verb = "are" if high.key == REST else "is"  # "All other countries are ahead of Germany"
    sentence = f"{high.label} {verb} ahead of {low.label} by {gap}{relative}{what}."
    return sentence[:1].upper() + sentence[1:]


def overview(figures: Figures, currency: str | None, *, customers: bool = True) -> str:
    """Every figure of a scope in one line ("tell me about France"); one customer's has no count of
    customers."""
    money = Figure(Measure.revenue, currency)
    parts = [
        f"revenue {money(figures.revenue)}",
        Figure(Measure.orders, None)(figures.orders),
        *([Figure(Measure.customers, None)(figures.customers)] if customers else []),
        Figure(Measure.units, None)(figures.units),
        f"average order value {money(figures.get(Measure.avg_order_value))}",
    ]
    return "; ".join(parts)


def _row_line(index: int, row: Row, outcome: Outcome, figure: Figure) -> str:
    measure = outcome.query.measure
    value = row.figures.get(measure)
    marker = "-" if _is_series(outcome) else f"{index}."
    shown = overview(row.figures, figure.currency) if measure is Measure.overview else figure(value)
    line = f"{marker} {row.label}: {shown}"
    if outcome.query.share and measure not in DAYS:  # of everything the names are part of
        line += f" ({percent(value, (outcome.whole or outcome.total).get(measure))})"
    against = row.previous_label or (outcome.compared.label if outcome.compared else None)
    if row.previous is not None and against is not None:
        before = row.previous.get(measure)
        change = (
            _change(outcome, figure, value, before)
            if not row.previous_label
            else figure.change(value, before)
        )
        line += f"; {against}: {figure(before)}, {change}"
    return line


def _change(outcome: Outcome, figure: Figure, now: float, before: float) -> str:
    """The change between the period and the one compared with, in time's order: from the compared
    period to the asked one, or, when the one compared with is the later ("compare January and
    May"), from the asked one to it, saying so."""
    period, compared = outcome.period, outcome.compared
    if period is None or compared is None or compared.first <= period.first:
        return figure.change(now, before)
    return f"{figure.change(before, now)} from {period.label} to {compared.label}"


def _figures(figures: Figures, measure: Measure) -> dict[str, Any]:
    """Every measure's value (a day as ISO text), so a chart or a client can use any of them; new and
    repeat customers only when asked for (they are counted only then)."""
    values: dict[str, Any] = {
        m.value: figures.get(m)
        for m in Measure
        if m is not Measure.overview and m not in DAYS and (m not in COUNTED_WHEN_ASKED or m is measure)
    }
    values.update(first_purchase=figures.first, last_purchase=figures.last)
    return values


def result(outcome: Outcome, currency: str | None) -> dict[str, Any]:
    """The tool's whole result: the answer, the reading, and the figures behind them."""
    measure = outcome.query.measure
    data: dict[str, Any] = {
        "answer": answer(outcome, currency),
        "answered": True,
        "reading": reading(outcome),
        "chips": chips(outcome),
        "query": outcome.query.model_dump(mode="json", exclude_defaults=True),
        "total": _figures(outcome.total, measure),
    }
    if outcome.period is not None:
        data["period"] = {
            "first": outcome.period.first,
            "last": outcome.period.last,
            "label": outcome.period.label,
        }
    if outcome.previous is not None and outcome.compared is not None:
        data["compared"] = {"label": outcome.compared.label, **_figures(outcome.previous, measure)}
    if outcome.whole is not None:
        data["whole"] = _figures(outcome.whole, measure)
    if outcome.query.group_by is not None:
        data["rows"] = [
            {
                "key": row.key,
                "label": row.label,
                **_figures(row.figures, measure),
                **({"previous": _figures(row.previous, measure)} if row.previous is not None else {}),
            }
            for row in outcome.rows
        ]
        data["groups"] = outcome.groups
    if currency:
        data["currency"] = currency
    return data


def cannot_answer(query: dict[str, Any], reason: str, *, unmatched: str | None = None) -> dict[str, Any]:
    """The result of a query the data cannot answer: what is missing (``unmatched``: the argument
    whose name the data lacks), and what can be asked."""
    result = {"answer": f"I can't answer that from this data: {reason}.", "answered": False, "query": query}
    if unmatched is not None:
        result["unmatched"] = unmatched
    return result
