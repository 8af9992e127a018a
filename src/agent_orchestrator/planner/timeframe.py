"""The question's time frame: its period, a range, two periods compared, a step back or on.

``periods`` finds each period the text names; this module decides what they are together ("from
October to November 2025" is a range, "2025 vs 2024" a comparison, "October's share of 2011" a share
of the larger one, "2011 excluding December" a part left out, "the week before Christmas 2011" the
days next to one) and holds the words that step from one period to another ("the year before", "the
following day", "for the whole year"), which a follow-up reads too
(docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from .periods import Found, before, day_bounds, find_periods, with_year, year_before
from .reading import Marks
from .vocabulary import Vocabulary

ALL_TIME = re.compile(
    r"\b(?:(?:over|for|in|during|across)\s+)?(?:the\s+)?(?:whole|entire|full)\s+(?:period|time|history|data(?:set)?)\b"
    r"|\ball[- ]time\b|\bso far\b|\bto date\b|\bever\b"
)
"""All time, said ("over the whole period", "so far"): no period to read."""
SHIFT_BACK = re.compile(
    r"\b(?:the\s+)?(?:previous|prior|preceding)\s+(?:day|week|month|quarter|period)\b"
    r"|\b(?:the\s+)?(?:day|week|month|quarter|period)\s+before\b|\bbefore that\b"
)
"""A step back by the previous period's own length; a step back by a year is ``YEAR_BACK``."""
YEAR_BACK = re.compile(
    r"\b(?:(?:the\s+)?same\s+(?:day|week|month|quarter|period|time)\s+)?(?:a|one|the)\s+year\s+(?:earlier|before|ago)\b"
    r"|\b(?:the\s+)?same\s+(?:day|week|month|quarter|period|time)\s+(?:of\s+)?(?:last|the\s+previous|the\s+prior)\s+year\b"
    r"|\b(?:the\s+)?(?:previous|prior|preceding)\s+year\b|\b(?:the\s+)?year\s+before\b"
)
"""A step back by a year ("a year earlier", "the same month last year")."""
STEPS = ((YEAR_BACK, "year_before"), (SHIFT_BACK, "previous_period"))
"""Each step back with the comparison it names, the year's read first."""
SHIFT_ON = re.compile(
    r"\b(?:the\s+)?(?:next|following|subsequent)\s+(?:day|week|month|quarter|year|period)\b"
    r"|\b(?:the\s+)?(?:day|week|month|quarter|year|period)\s+after\b|\bafter\s+that\b"
)
"""In a follow-up, a step on from the previous period ("and the following day?")."""

FUTURE = re.compile(
    r"\b(?:next|coming|upcoming)\s+(?:\d+\s+|few\s+)?(?:day|week|month|quarter|year|season)s?\b"
    r"|\b(?:will|going to)\s+(?:\w+\s+)?(?:be|sell|make|grow|rise|drop|fall)\b"
)
"""A question about days to come: the data ends on its last day."""

_RANGE = re.compile(r"\b(?:from|between)\b(.+?)\b(?:to|and|until|through)\b(.+)")

_LEAD = re.compile(
    r"\b(?:(?:in|during|over|for)\s+)?(?:the\s+)?(day|week|fortnight|month)\s+"
    r"(before|prior to|leading up to|ahead of|after|following)\s+(?:the\s+)?$"
)
"""'The week before Christmas 2011': the days of that length next to the period named."""
_LEAD_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30}


def read_periods(
    text: str,
    marks: Marks,
    args: dict[str, Any],
    vocabulary: Vocabulary,
    *,
    stepped: bool = False,
    in_names: frozenset[str] = frozenset(),
) -> Found | None:
    """The period, or a range or a comparison of two; a second period it could not place is returned
    (a share may be of it: "what % of 2011's revenue came in October?"). ``stepped``: the question
    steps back from its period ("… vs the period before"), so two periods are its range's ends."""
    found = [  # not a step back already read, nor the calendar word of a name ("IVORY CHRISTMAS BAG")
        f
        for f in find_periods(text)
        if marks.free(*f.span) and not set(text[f.span[0] : f.span[1]].split()) <= in_names
    ]
    for item in found:
        marks.take(*item.span)
    if not found:
        return None
    years = [f.period[:4] for f in found if f.period[:4].isdigit()]
    if years:  # "from October to November 2025": the month without a year takes the year written
        found = [Found(with_year(f.period, years[0]), f.span) for f in found]
    for half in [f for f in found if f.period.startswith("--H")]:  # no year to place "the second half" in
        found.remove(half)
        marks.used[half.span[0] : half.span[1]] = [False] * (half.span[1] - half.span[0])
    if not found:
        return None
    since = re.search(
        r"\b(?:since|from|starting)\s+(?:the\s+)?(?:start\s+of\s+|beginning\s+of\s+)?$",
        text[: found[0].span[0]],
    )
    comparing = any(
        re.search(rf"\b{re.escape(t)}\b", text)
        for t in (*vocabulary.choices("compare"), *vocabulary.choices("rank_by"))
    )
    if since and comparing:  # "has revenue grown since last year?": compared with it
        marks.take(since.start(), found[0].span[0])
    elif len(found) == 1 and since and (bounds := day_bounds(found[0].period)):
        if since[0].startswith("from") and not re.search(r"\bon(?:wards)?\b", text[found[0].span[1] :]):
            pass  # "revenue from France in 2025" is no "from" of time
        else:  # "since March 2025": to the data's last day
            args["period"] = f"{bounds[0]}.."
            marks.take(since.start(), found[0].span[0])
            for onwards in re.finditer(r"\bon(?:wards)?\b", text[found[0].span[1] :]):
                marks.take(found[0].span[1] + onwards.start(), found[0].span[1] + onwards.end())
            return None
    lead = _LEAD.search(text[: found[0].span[0]])
    if len(found) == 1 and lead and (bounds := day_bounds(found[0].period)):
        length = timedelta(days=_LEAD_DAYS[lead[1]] - 1)
        if lead[2] in ("after", "following"):
            opens = date.fromisoformat(bounds[1]) + timedelta(days=1)
            closes = opens + length
        else:
            closes = date.fromisoformat(bounds[0]) - timedelta(days=1)
            opens = closes - length
        args["period"] = f"{opens}..{closes}" if opens < closes else str(opens)
        marks.take(lead.start(), found[0].span[0])
        return None
    until = re.search(
        r"\b(before|prior to|until|till|up to|through)\s+(?:the\s+)?(?:end\s+of\s+)?$",
        text[: found[0].span[0]],
    )
    if len(found) == 1 and until and (bounds := day_bounds(found[0].period)):
        last = (
            date.fromisoformat(bounds[0]) - timedelta(days=1)
            if until[1] in ("before", "prior to")
            else bounds[1]
        )
        args["period"] = f"..{last}"  # "revenue before 2025": from the data's start
        marks.take(until.start(), found[0].span[0])
        return None
    if "exclude_period" in vocabulary.parameters and _period_left_out(text, marks, found, args, vocabulary):
        return None
    first = found[0].period
    if (
        len(found) >= 2
        and (stepped or not comparing)  # "how did orders change from October to November?": compared
        and (ranged := _RANGE.search(text))
        and ranged.start(1) <= found[0].span[0]
    ):
        start, end = day_bounds(found[0].period), day_bounds(found[1].period)
        if start and end and start[0] <= end[1]:  # "between July and June" compares the two
            args["period"] = f"{start[0]}..{end[1]}"
            for span in marks.find(ranged[0][: ranged.start(1) - ranged.start(0)].strip()):
                marks.take(*span)
            return None
    args["period"] = first
    if len(found) >= 2:
        second = found[1].period
        if second == before(first) or (second == first and first.startswith("latest ")):
            args["compare"] = "previous_period"  # "this quarter vs last quarter" reads both as the latest
        elif second == year_before(first):
            args["compare"] = "year_before"
        elif before(second) == first or year_before(second) == first:
            args["period"] = second
            args["compare"] = "previous_period" if before(second) == first else "year_before"
        else:
            marks.used = [
                u and not (found[1].span[0] <= i < found[1].span[1]) for i, u in enumerate(marks.used)
            ]
            return found[1]
    return None


def _period_left_out(
    text: str, marks: Marks, found: list[Found], args: dict[str, Any], vocabulary: Vocabulary
) -> bool:
    """ "Revenue in 2011 excluding December": a period after an exclusion cue is left out of the
    other one, which it lies in (or of all time, when it is the only one)."""
    for item in found[:2]:
        cue = re.search(
            rf"(?<![\w-])(?:{vocabulary.leaving()})\s+(?:the\s+)?(?:month\s+of\s+)?$", text[: item.span[0]]
        )
        if cue is None:
            continue
        others = [f for f in found[:2] if f is not item]
        if others:
            inner, outer = day_bounds(item.period), day_bounds(others[0].period)
            if not (inner and outer and outer[0] <= inner[0] and inner[1] <= outer[1] and inner != outer):
                return False
            args["period"] = others[0].period
        args["exclude_period"] = item.period
        marks.take(cue.start(), item.span[1])
        return True
    return False


def share_of(args: dict[str, Any], other: Found, marks: Marks) -> None:
    """Of two periods, a share of the smaller in the larger ("October's share of 2011")."""
    inner, outer = day_bounds(str(args.get("period"))), day_bounds(other.period)
    if not (inner and outer):
        return
    if outer[0] <= inner[0] and inner[1] <= outer[1]:
        args["share_of"] = other.period
    elif inner[0] <= outer[0] and outer[1] <= inner[1]:
        args["share_of"], args["period"] = args["period"], other.period
    else:
        return
    marks.take(*other.span)


WHOLE_OF = re.compile(
    r"\b(?:for|in|over|of)\s+(?:the|that)\s+(?:whole\s+|full\s+|entire\s+)?(year|quarter|month)\b"
)
"""The whole year (quarter, month) a period lies in ("for the full year"): its unit."""


def enclosing(period: str, unit: str) -> str:
    """The year, quarter or month ``period`` (``YYYY…``) lies in; itself if it is no smaller."""
    months = {"year": 4, "month": 7}
    if unit in months:
        return period[: months[unit]] if len(period) >= months[unit] else period
    if found := re.match(r"(\d{4})-(?:Q([1-4])|(\d{2}))", period):
        return f"{found[1]}-Q{found[2] or (int(found[3]) - 1) // 3 + 1}"
    return period


_UNIT_OF_PERIOD = {
    "day": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "month": re.compile(r"\d{4}-\d{2}"),
    "year": re.compile(r"\d{4}"),
}


def the_period_unit(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Was 16 February 2011 a busy day?": a dimension word left over that names the unit of the
    period asked about is that period, not a breakdown nor a word not understood."""
    period = args.get("period")
    unit = next(
        (u for u, shape in _UNIT_OF_PERIOD.items() if isinstance(period, str) and shape.fullmatch(period)),
        None,
    )
    if unit is None or "group_by" in args:
        return
    for term, value in vocabulary.choices("group_by").items():
        if value == unit:
            for span in marks.find(term):
                marks.take(*span)
