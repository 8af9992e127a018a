"""The typed reading of a sales question: what to compute, over what, for which period.

A question such as "France's revenue in 2011 compared with 2010" is read into one :class:`Query`
(measure ``revenue``, country ``France``, period ``2011``, compared with the period before) before
anything is computed, so what was computed can be stated in the answer and changed by the user
(docs/architecture.md#answers-by-construction). Every field has a closed set of values or is matched
against the data when it runs; nothing here knows the question's wording.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agent_orchestrator.semantic.render import calendar_unit


class Measure(StrEnum):
    revenue = "revenue"
    orders = "orders"
    customers = "customers"
    units = "units"
    avg_order_value = "avg_order_value"
    revenue_per_customer = "revenue_per_customer"
    cancellations = "cancellations"
    """Cancelled invoices ("C…" in the Online Retail files): their revenue is already netted out."""
    cancelled_revenue = "cancelled_revenue"
    """The money of the cancelled and returned lines, as a positive amount ("revenue lost to
    cancellations"); its share is of the sales before them (gross sales)."""
    orders_per_customer = "orders_per_customer"
    """How often customers order: orders divided by customers (in a period, those who bought in it)."""
    units_per_order = "units_per_order"
    """How many items an order holds on average: units divided by orders ("items per order")."""
    repeat_customers = "repeat_customers"
    """Customers with more than one order in the period and scope ("who bought more than once")."""
    one_time_customers = "one_time_customers"
    """Customers with exactly one order in the period and scope ("who only ordered once")."""
    cancellation_rate = "cancellation_rate"
    """Cancelled orders per order placed, as a fraction ("return rate", "which country cancels most
    often?"): a rate of each row, not a share of a total, so it ranks countries of any size."""
    repeat_rate = "repeat_rate"
    """Repeat customers per customer who bought, as a fraction ("repeat purchase rate")."""
    new_customers = "new_customers"
    """Customers whose first purchase ever falls in the period and scope ("new customers in 2011")."""
    last_purchase = "last_purchase"
    """The day of the latest purchase in scope ("when did customer 7 last buy?")."""
    first_purchase = "first_purchase"
    products = "products"
    countries = "countries"
    overview = "overview"
    """Every figure at once: "tell me about France"."""


RATES = frozenset({Measure.cancellation_rate, Measure.repeat_rate})
"""Measures that are a fraction of their own base: already a share, never summed."""


class Dimension(StrEnum):
    country = "country"
    product = "product"
    customer = "customer"
    segment = "segment"
    month = "month"
    day = "day"
    year = "year"
    quarter = "quarter"
    weekday = "weekday"
    """The day of the week (Monday to Sunday), over every week of the period."""


Compare = Literal["previous_period", "year_before"]
Order = Literal["highest", "lowest"]

MAX_ROWS = 50
"""Rows of a ranking at most: a chat answer, not an export, but enough for "show all" of a country
list or a year of weeks (the same bound as a ``query_data`` ranking)."""

Names = Annotated[list[Annotated[str, Field(max_length=80)]], Field(max_length=12)]


class Query(BaseModel):
    """One question about sales, as data. ``period`` is one of ``YYYY``, ``YYYY-Qn``, ``YYYY-MM``,
    ``YYYY-MM-DD``, ``FIRST..LAST`` (days) or, relative to the data's last day, ``last N
    days|weeks|months|years``, ``latest day|month|quarter|year``."""

    model_config = ConfigDict(extra="forbid")

    measure: Measure = Measure.revenue
    group_by: Dimension | None = None
    countries: Names = []
    exclude_countries: Names = []
    segments: Names = []
    exclude_segments: Names = []
    products: Names = []
    """Products by stock code or words of the name, each name one or more products, all of them
    together ("revenue of lanterns and candles"; by product, each one's row)."""
    exclude_products: Names = []
    """Products to leave out, in the same forms ("excluding postage and manual")."""
    customer_id: Annotated[int | None, Field(ge=1, le=2**53)] = None
    exclude_customer_ids: Annotated[list[Annotated[int, Field(ge=1, le=2**53)]], Field(max_length=20)] = []
    """Customers to leave out ("revenue from everyone except customer 14646", "excluding them" of
    the customers just listed)."""
    exclude_top: Annotated[int | None, Field(ge=1, le=MAX_ROWS)] = None
    """The N biggest by revenue of ``exclude_top_of`` in the scope and period, left out ("average
    order value without our biggest customer": 1 customer)."""
    exclude_top_of: Literal["customer", "country", "product"] = "customer"
    exclude_cancellations: bool = False
    """Sales before cancellations and returns ("revenue excluding cancellations", gross revenue):
    their lines are left out instead of netted."""
    period: Annotated[str | None, Field(max_length=40)] = None
    exclude_period: Annotated[str | None, Field(max_length=40)] = None
    """A part of the time to leave out, in ``period``'s forms ("2011 excluding December": the
    December of 2011 out of the year)."""
    compare: Compare | None = None
    compare_with: Annotated[str | None, Field(max_length=40)] = None
    """Any other period to compare with, in ``period``'s forms ("May 2025 compared to September")."""
    order: Order = "highest"
    rank_by: Literal["growth", "decline"] | None = None
    """Rank by the change against the period compared with ("which country grew most?"), not by the
    value; needs a comparison."""
    limit: Annotated[int | None, Field(ge=1, le=MAX_ROWS)] = None
    rank: Annotated[int | None, Field(ge=1, le=MAX_ROWS)] = None
    """Only the row at this place of the ranking ("which one comes second?")."""
    among_top: Annotated[int | None, Field(ge=2, le=MAX_ROWS)] = None
    """Rank only among the top N by ``among_by`` ("of our ten biggest countries by revenue, which
    placed the fewest orders?")."""
    among_by: Measure | None = None
    together: bool = False
    """The ranked rows added up into one figure ("what share of revenue comes from our top 10
    customers?"), for the measures that add up."""
    versus_rest: bool = False
    """The countries named beside all the other countries together ("the UK vs the rest of the
    world"): one more row, everything else."""
    share: bool = False
    share_of: Annotated[str | None, Field(max_length=40)] = None
    """The larger period a share is of ("what % of 2011's revenue came in October": ``2011``); the
    same filters, so it is the period's share, not the filters'."""
    share_within: Literal["countries", "segments", "products", "customer_id"] | None = None
    """The filter a share is of, the others making the part ("what share of the Regular segment's
    revenue comes from the UK": ``segments``, the UK's part of it). Unset, the part is the most
    particular filter: a customer, else segments, else countries (``execute.whole_scope``)."""

    @model_validator(mode="before")
    @classmethod
    def _one_product(cls, data: object) -> object:
        """A reading stored when a query named one product (``product``, ``exclude_product``,
        ``share_within: product``) reads as the lists that replaced them."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        for old, new in (("product", "products"), ("exclude_product", "exclude_products")):
            if old in data and new not in data:
                value = data.pop(old)
                data[new] = [value] if value else []
        if data.get("share_within") == "product":
            data["share_within"] = "products"
        return data

    @model_validator(mode="after")
    def _rate_is_a_share(self) -> Query:
        """ "What percentage is our return rate?": a rate is a share of its own base already, not of
        a total, and rates of several rows do not add up into one."""
        if self.measure in RATES:
            self.share, self.together, self.share_of, self.share_within = False, False, None, None
        return self


@dataclass(frozen=True)
class Period:
    first: date
    last: date
    label: str
    unit: Literal["day", "month", "quarter", "year", "range"]
    placed: str = ""
    """How a relative period was placed on the data's calendar ("the latest month in the data"):
    "last month" is the data's, not the calendar's, and an answer says so."""

    def before(self) -> Period:
        """The period of the same length just before this one (a month: the month before)."""
        if self.unit == "day":
            return day_period(self.first - timedelta(days=1))
        if self.unit == "month":
            return month_period(*_step_month(self.first.year, self.first.month, -1))
        if self.unit == "quarter":
            year, month = _step_month(self.first.year, self.first.month, -3)
            return quarter_period(year, (month - 1) // 3 + 1)
        if self.unit == "year":
            return year_period(self.first.year - 1)
        last = self.first - timedelta(days=1)
        if self.first.day == 1 and (self.last + timedelta(days=1)).day == 1:  # whole months: as many before
            months = (self.last.year - self.first.year) * 12 + self.last.month - self.first.month + 1
            return range_period(date(*_step_month(self.first.year, self.first.month, -months), 1), last)
        return range_period(last - (self.last - self.first), last)

    def year_before(self) -> Period:
        """The same days one year earlier (29 February becomes the 28th)."""
        if self.unit == "month":
            return month_period(self.first.year - 1, self.first.month)
        if self.unit == "quarter":
            return quarter_period(self.first.year - 1, (self.first.month - 1) // 3 + 1)
        if self.unit == "year":
            return year_period(self.first.year - 1)
        first, last = _year_earlier(self.first), _year_earlier(self.last)
        return day_period(first) if self.unit == "day" else range_period(first, last)


class PeriodError(ValueError):
    """A period that cannot be read; the message says which forms are understood."""


def _step_month(year: int, month: int, by: int) -> tuple[int, int]:
    index = year * 12 + month - 1 + by
    return index // 12, index % 12 + 1


def _year_earlier(day: date) -> date:
    return day.replace(year=day.year - 1, day=min(day.day, calendar.monthrange(day.year - 1, day.month)[1]))


def day_period(day: date) -> Period:
    return Period(day, day, f"{day.day} {calendar.month_name[day.month]} {day.year}", "day")


def month_period(year: int, month: int) -> Period:
    last = date(year, month, calendar.monthrange(year, month)[1])
    return Period(date(year, month, 1), last, f"{calendar.month_name[month]} {year}", "month")


def quarter_period(year: int, quarter: int) -> Period:
    first = date(year, 3 * quarter - 2, 1)
    end_month = 3 * quarter
    return Period(
        first, date(year, end_month, calendar.monthrange(year, end_month)[1]), f"Q{quarter} {year}", "quarter"
    )


def year_period(year: int) -> Period:
    return Period(date(year, 1, 1), date(year, 12, 31), str(year), "year")


def range_period(first: date, last: date) -> Period:
    return Period(first, last, f"{_short(first)} to {_short(last)}", "range")


_FIXED = re.compile(r"\d{4}(?:-q[1-4]|-\d{2}(?:-\d{2})?)?|(?:\d{4}-\d{2}-\d{2})?\s*\.\.\s*\d{4}-\d{2}-\d{2}")


def pinned_period(text: str, first: date, last: date) -> str:
    """``text`` as it was placed (``first`` to ``last``) when it counts from the data's last day
    ("latest month", "last 3 months", "--03", "since 1 March"): a reading changed later, after an
    import moved the last day on, keeps the days it was about; a period of fixed days stays as it is."""
    if _FIXED.fullmatch(text.strip().lower()):
        return text
    unit = calendar_unit(first, last)
    if unit == "day":
        return first.isoformat()
    if unit == "month":
        return f"{first.year}-{first.month:02d}"
    if unit == "quarter":
        return f"{first.year}-Q{first.month // 3 + 1}"
    if unit == "year":
        return str(first.year)
    return f"{first.isoformat()}..{last.isoformat()}"


def _short(day: date) -> str:
    return f"{day.day} {calendar.month_abbr[day.month]} {day.year}"


_RELATIVE = re.compile(r"(?:last|past)\s+(\d{1,3})\s+(day|week|month|year)s?")
_LATEST = re.compile(r"(?:latest|last|this|current)\s+(day|month|quarter|year)")
_PREVIOUS = re.compile(r"(?:previous|prior)\s+(day|month|quarter|year)")


def parse_period(text: str, as_of: date | None) -> Period:
    """Read ``Query.period``; relative forms count back from ``as_of``, the data's last day."""
    value = text.strip().lower()
    try:
        if re.fullmatch(r"\d{4}", value):
            return year_period(int(value))
        if found := re.fullmatch(r"(\d{4})-q([1-4])", value):
            return quarter_period(int(found[1]), int(found[2]))
        if found := re.fullmatch(r"(\d{4})-(\d{2})", value):
            return month_period(int(found[1]), int(found[2]))
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            return day_period(date.fromisoformat(value))
        if found := re.fullmatch(r"--q([1-4])", value):  # a quarter without its year: the latest one
            if as_of is None:
                raise PeriodError("the data has no sales yet, so a quarter without its year cannot be placed")
            quarter = int(found[1])
            year = as_of.year if (quarter - 1) * 3 + 1 <= as_of.month else as_of.year - 1
            return quarter_period(year, quarter)
        if found := re.fullmatch(r"--h([12])", value):  # a half without its year ("H2"): the latest one
            if as_of is None:
                raise PeriodError(
                    "the data has no sales yet, so a half year without its year cannot be placed"
                )
            half = int(found[1])
            year = as_of.year if half == 1 or as_of.month >= 7 else as_of.year - 1
            first = date(year, 1 if half == 1 else 7, 1)
            return Period(
                first, date(year, 6, 30) if half == 1 else date(year, 12, 31), f"H{half} {year}", "range"
            )
        if found := re.fullmatch(r"--(\d{2})(?:-(\d{2}))?", value):  # ISO 8601's month or day, no year
            if as_of is None:
                raise PeriodError("the data has no sales yet, so a month without its year cannot be placed")
            latest = _latest_of(int(found[1]), int(found[2]) if found[2] else None, as_of)
            return replace(latest, placed=f"the latest {latest.label.rsplit(' ', 1)[0]} in the data")
        if found := re.fullmatch(r"\.\.\s*(\d{4}-\d{2}-\d{2})", value):  # "before 2025": from the start
            last = date.fromisoformat(found[1])
            return Period(date.min, last, f"until {_short(last)}", "range")
        if (found := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\s*\.\.", value)) and as_of is not None:
            first = date.fromisoformat(found[1])  # "since 1 March 2025": to the data's last day
            return Period(first, max(first, as_of), f"since {_short(first)}", "range")
        if found := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\s*\.\.\s*(\d{4}-\d{2}-\d{2})", value):
            first, last = date.fromisoformat(found[1]), date.fromisoformat(found[2])
            if first > last:
                raise PeriodError(f"the period {text!r} ends before it starts")
            return range_period(first, last)
    except ValueError as exc:  # month 13, 30 February
        raise PeriodError(f"{text!r} is not a date") from exc
    if as_of is None and (
        _RELATIVE.fullmatch(value) or _LATEST.fullmatch(value) or _PREVIOUS.fullmatch(value)
    ):
        raise PeriodError("the data has no sales yet, so a relative period cannot be placed")
    if found := _RELATIVE.fullmatch(value):
        assert as_of is not None
        count, unit = int(found[1]), found[2]
        first = _count_back(as_of, count, unit)
        label = f"the last {count} {unit}{'s' if count != 1 else ''}"
        return Period(
            first, as_of, label, "range", f"{_short(first)} to {_short(as_of)}, the data's last day"
        )
    if found := _LATEST.fullmatch(value):
        assert as_of is not None
        return replace(_containing(as_of, found[1]), placed=f"the latest {found[1]} in the data")
    if found := _PREVIOUS.fullmatch(value):
        assert as_of is not None
        before = _containing(as_of, found[1]).before()
        return replace(before, placed=f"the {found[1]} before the latest in the data")
    raise PeriodError(
        f"cannot read the period {text!r}; use YYYY, YYYY-Qn, YYYY-MM, YYYY-MM-DD, --MM, --MM-DD, "
        "FIRST..LAST, "
        "'last N months' or 'latest month'"
    )


def _latest_of(month: int, day: int | None, as_of: date) -> Period:
    """ "March", "5 March": the latest one on or before the data's last day."""
    year = as_of.year if (month, day or 1) <= (as_of.month, as_of.day) else as_of.year - 1
    return month_period(year, month) if day is None else day_period(date(year, month, day))


def _count_back(as_of: date, count: int, unit: str) -> date:
    if unit == "day":
        return as_of - timedelta(days=count - 1)
    if unit == "week":
        return as_of - timedelta(days=7 * count - 1)
    if unit == "month":
        year, month = _step_month(as_of.year, as_of.month, -(count - 1))
        return date(year, month, 1)
    return date(as_of.year - count + 1, 1, 1)


def _containing(day: date, unit: str) -> Period:
    if unit == "day":
        return day_period(day)
    if unit == "month":
        return month_period(day.year, day.month)
    if unit == "quarter":
        return quarter_period(day.year, (day.month - 1) // 3 + 1)
    return year_period(day.year)
