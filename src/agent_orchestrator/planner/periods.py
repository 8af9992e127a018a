"""Periods as people write them, read into the query tool's period forms.

``YYYY``, ``YYYY-Qn``, ``YYYY-MM``, ``YYYY-MM-DD``, ``FIRST..LAST`` and the relative forms ``last N
months`` / ``latest month``, which the tool places on the data's own calendar. Calendar words only:
no domain. Each reader returns the text span it used, so the question's coverage can be judged.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import date, timedelta

_MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTHS |= {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
_MONTHS["sept"] = 9
_MONTH = (
    r"(january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_UNAMBIGUOUS_MONTH = (
    r"(january|february|march|april|june|july|august|september|october|november|december"
    r"|jan|feb|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
)
_WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day,?\s+(?:the\s+)?)?"
"""A weekday written before a date ("Thursday 25 April 2024") says nothing the date does not."""
_ORDINAL_WORDS = """first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth
    thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth""".split()  # noqa: SIM905
_DAY_WORDS = {w: i for i, w in enumerate(_ORDINAL_WORDS, 1)}
_DAY_WORDS |= {f"twenty-{w}": 20 + i for w, i in list(_DAY_WORDS.items())[:9]} | {"thirtieth": 30}
_DAY_WORDS |= {"thirty-first": 31}
_DAY = r"(\d{1,2}|" + "|".join(sorted(_DAY_WORDS, key=len, reverse=True)) + r")(?:st|nd|rd|th)?"
"""A day of the month in figures or words ("the 5th", "the first of June")."""
_YEAR = r"((?:19|20)\d{2})"
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
                "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}  # fmt: skip
"""Counts written as words ("the last three months", "top five products")."""
ORDINALS = {"second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
            "ninth": 9, "tenth": 10}  # fmt: skip
"""Places written as words ("the second best-selling product")."""
_ORDINAL_QUARTERS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "1st": 1, "2nd": 2, "3rd": 3, "4th": 4,
                     "last": 4, "final": 4}  # fmt: skip


@dataclass(frozen=True)
class Found:
    period: str
    span: tuple[int, int]


def _iso(year: str, month: int, day: str) -> str | None:
    y, d = int(year), _DAY_WORDS.get(day) or int(day)
    if not 1 <= month <= 12 or not 1 <= d <= calendar.monthrange(y, month)[1]:
        return None
    return f"{y:04d}-{month:02d}-{d:02d}"


_HOLIDAYS = {"christmas eve": "12-24", "christmas day": "12-25", "christmas": "12-25", "boxing day": "12-26",
             "xmas eve": "12-24", "xmas day": "12-25", "xmas": "12-25", "halloween": "10-31",
             "new year eve": "12-31", "new years eve": "12-31", "new year day": "01-01",
             "new years day": "01-01", "valentine day": "02-14", "valentines day": "02-14"}  # fmt: skip
"""Fixed-date days people name instead of writing the date (as ``normalize`` leaves them: no "'s")."""
_HOLIDAY = "(" + "|".join(sorted(map(re.escape, _HOLIDAYS), key=len, reverse=True)) + ")"
CALENDAR_WORDS = frozenset(
    {w for name in (*_HOLIDAYS, "black friday", "cyber monday") for w in name.split()}
    | set(_MONTHS)
    | {d.lower() for d in (*calendar.day_name, *calendar.day_abbr)}
    | {"half", "quarter", "week", "weekend", "fortnight", "ytd", "mtd", "qtd", "today", "yesterday"}
    | {"next", "following", "coming", "upcoming", "after", "before", "previous", "prior", "since"}
)
"""Words of the periods read here: never a typo of another word ("eve" is no "ever")."""

_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    (re.compile(rf"\bh([12])\s+(?:of\s+)?{_YEAR}\b|\b{_YEAR}\s*-?\s*h([12])\b"), "half"),
    (re.compile(rf"\b(first|second)\s+half\s+(?:of\s+)?(?:the\s+year\s+)?{_YEAR}\b"), "half_words"),
    # "the first half of 2011 vs the second half": the year written beside it (``with_year``)
    (re.compile(r"\b(?:the\s+)?(first|second)\s+half(?:\s+of\s+the\s+year)?\b|\bh([12])\b"), "half_alone"),
    (re.compile(r"\b(year|month|quarter)\s+to\s+date\b|\b(ytd|mtd|qtd)\b"), "to_date"),
    (re.compile(r"\b(today|yesterday)\b"), "today"),
    (re.compile(r"\b(?:the\s+)?(?:last|past|this|previous|latest)\s+week\b"), "week"),
    (re.compile(r"\b(?:the\s+)?(?:previous|prior|preceding)\s+(day|month|quarter|year)\b"), "previous"),
    (re.compile(rf"\b(?:on\s+)?{_HOLIDAY}(?:\s+(?:of\s+)?{_YEAR})?"), "holiday"),
    (re.compile(rf"\b(?:on\s+)?(black friday|cyber monday)\s+(?:of\s+)?{_YEAR}\b"), "movable"),
    (re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b"), "iso_day"),
    (re.compile(rf"\b{_WEEKDAY}(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}\b"), "day_month_year"),
    (re.compile(rf"\b{_WEEKDAY}{_MONTH}\s+{_DAY},?\s+{_YEAR}\b"), "month_day_year"),
    (re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b"), "slash_day"),
    (re.compile(r"\b(\d{4})-(\d{2})\b"), "iso_month"),
    (re.compile(rf"\b(?:the\s+month\s+of\s+)?{_MONTH}\s+(?:of\s+)?{_YEAR}\b"), "month_year"),
    (re.compile(rf"\bq([1-4])\s+(?:of\s+)?{_YEAR}\b|\b{_YEAR}\s*-?\s*q([1-4])\b"), "quarter"),
    (re.compile(r"\bq([1-4])\b"), "quarter_alone"),
    (
        re.compile(
            rf"\b(first|second|third|fourth|1st|2nd|3rd|4th|last|final)\s+quarter\s+(?:of\s+)?{_YEAR}\b"
        ),
        "quarter_words",
    ),
    # "the third quarter vs the fourth quarter of 2025": the year written beside it, or the latest
    (
        re.compile(r"\b(?:the\s+)?(first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter\b"),
        "quarter_words_alone",
    ),
    (
        re.compile(
            r"\b(?:the\s+)?(?:last|past|previous|final|latest|most recent)\s+(\d{1,3}|"
            + "|".join(NUMBER_WORDS)
            + r")\s+(?:calendar\s+)?(day|week|month|year)s?\b"
        ),
        "relative",
    ),
    (
        re.compile(
            r"\b(?:the\s+)?(?:latest|last|this|current|most recent|newest|final)\s+(?:calendar\s+)?"
            r"(day|month|quarter|year)\b"
        ),
        "latest",
    ),
    # never an amount: "$2000", "2000.0" (written "2,000"), "2000.50"
    (
        re.compile(
            r"\b(?:in\s+|during\s+|for\s+|of\s+)?(?:the\s+)?(?:year\s+)?(?<![$£€])((?:19|20)\d{2})\b(?!\.\d)"
        ),
        "year",
    ),
    # No year: the tool places it at the latest such day or month of the data ("on 5 March").
    (re.compile(rf"\b(?:the\s+)?{_DAY}\s+(?:of\s+)?{_MONTH}(?!\w)"), "day_month"),
    (re.compile(rf"\b{_MONTH}\s+{_DAY}(?!\w)"), "month_day"),
    (re.compile(rf"\b{_UNAMBIGUOUS_MONTH}(?!\w)"), "month"),
    # "may" and "mar" are words too: a month only after a preposition ("in May", "vs May")
    (
        re.compile(
            rf"\b(?:in|on|during|for|of|from|to|and|vs|versus|than|between|with|since)\s+{_MONTH}(?!\w)"
        ),
        "month",
    ),
]


def find_periods(text: str) -> list[Found]:
    """Every period in ``text`` (lower-cased), in order, spans not overlapping."""
    taken: list[tuple[int, int]] = []
    found: list[Found] = []
    for pattern, kind in _PATTERNS:
        for match in pattern.finditer(text):
            span = match.span()
            if any(span[0] < end and start < span[1] for start, end in taken):
                continue
            period = _read(kind, match)
            if period is not None:
                taken.append(span)
                found.append(Found(period, span))
    found.sort(key=lambda f: f.span)
    return found


def _read(kind: str, m: re.Match[str]) -> str | None:
    if kind == "iso_day":
        return _iso(m[1], int(m[2]), m[3])
    if kind == "day_month_year":
        return _iso(m[3], _MONTHS[m[2]], m[1])
    if kind == "month_day_year":
        return _iso(m[3], _MONTHS[m[1]], m[2])
    if kind == "slash_day":  # day first, as in most of the world; an impossible day is not a date
        return _iso(m[3], int(m[2]), m[1])
    if kind == "iso_month":
        return f"{m[1]}-{m[2]}" if 1 <= int(m[2]) <= 12 else None
    if kind == "month_year":
        return f"{m[2]}-{_MONTHS[m[1]]:02d}"
    if kind == "half_alone":
        return f"--H{1 if m[1] == 'first' or m[2] == '1' else 2}"
    if kind in ("half", "half_words"):
        if kind == "half_words":
            year, first = m[2], m[1] == "first"
        else:  # "H1 2025" or "2025 H1"
            year, first = (m[2], m[1] == "1") if m[1] else (m[3], m[4] == "1")
        return f"{year}-01-01..{year}-06-30" if first else f"{year}-07-01..{year}-12-31"
    if kind == "to_date":  # the data's latest year (month, quarter) up to its last day
        unit = m[1] or {"ytd": "year", "mtd": "month", "qtd": "quarter"}[m[2]]
        return f"latest {unit}"
    if kind == "today":  # the data's last day: it has no later one
        return "latest day" if m[1] == "today" else "previous day"
    if kind == "previous":
        return f"previous {m[1]}"
    if kind == "week":
        return "last 7 days"
    if kind == "movable":  # the day after the fourth Thursday of November, and the Monday after it
        thursdays = [d for d in range(1, 31) if date(int(m[2]), 11, d).weekday() == calendar.THURSDAY]
        friday = date(int(m[2]), 11, thursdays[3]) + timedelta(days=1)
        return str(friday if m[1] == "black friday" else friday + timedelta(days=3))
    if kind == "holiday":
        return f"{m[2]}-{_HOLIDAYS[m[1]]}" if m[2] else f"--{_HOLIDAYS[m[1]]}"
    if kind in ("day_month", "month_day"):
        day, month = (m[1], _MONTHS[m[2]]) if kind == "day_month" else (m[2], _MONTHS[m[1]])
        iso = _iso("2000", month, day)  # a leap year: 29 February is a day
        return f"--{iso[5:]}" if iso else None
    if kind == "month":
        return f"--{_MONTHS[m[1]]:02d}"
    if kind == "quarter":
        return f"{m[2]}-Q{m[1]}" if m[1] else f"{m[3]}-Q{m[4]}"
    if kind == "quarter_alone":  # "compared to Q3": the year written beside it, or the latest Q3
        return f"--Q{m[1]}"
    if kind == "quarter_words":
        return f"{m[2]}-Q{_ORDINAL_QUARTERS[m[1]]}"
    if kind == "quarter_words_alone":
        return f"--Q{_ORDINAL_QUARTERS[m[1]]}"
    if kind == "relative":
        count = int(m[1]) if m[1].isdigit() else NUMBER_WORDS[m[1]]
        return f"last {count} {m[2]}s"
    if kind == "latest":
        return f"latest {m[1]}"
    return m[1]


def with_year(period: str, year: str) -> str:
    """A period written without its year ("--03", "--H2") in the year written beside it."""
    if half := re.fullmatch(r"--H([12])", period):
        return f"{year}-01-01..{year}-06-30" if half[1] == "1" else f"{year}-07-01..{year}-12-31"
    return year + period[1:] if period.startswith("--") else period


def _step(period: str, by: int) -> str | None:
    """The period ``by`` steps of its own length away, in the same form (``2025-03``, -1: ``2025-02``);
    a range of whole months (a half) steps by as many months, any other range by its days."""
    if re.fullmatch(r"\d{4}", period):
        return str(int(period) + by)
    if found := re.fullmatch(r"(\d{4})-Q([1-4])", period):
        index = int(found[1]) * 4 + int(found[2]) - 1 + by
        return f"{index // 4}-Q{index % 4 + 1}"
    if found := re.fullmatch(r"(\d{4})-(\d{2})", period):
        index = int(found[1]) * 12 + int(found[2]) - 1 + by
        return f"{index // 12}-{index % 12 + 1:02d}"
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", period):
        return str(date.fromisoformat(period) + timedelta(days=by))
    if found := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})", period):
        first, last = date.fromisoformat(found[1]), date.fromisoformat(found[2])
        if first.day == 1 and (last + timedelta(days=1)).day == 1:
            months = (last.year - first.year) * 12 + last.month - first.month + 1
            start = first.year * 12 + first.month - 1 + by * months
            end = start + months
            opens, closes = date(start // 12, start % 12 + 1, 1), date(end // 12, end % 12 + 1, 1)
            return f"{opens}..{closes - timedelta(days=1)}"
        length = last - first + timedelta(days=1)
        return f"{first + by * length}..{last + by * length}"
    return None


def before(period: str) -> str | None:
    """The period just before ``period`` in the same form (``2025-03`` -> ``2025-02``)."""
    if found := re.fullmatch(r"latest (day|month|quarter|year)", period):
        return f"previous {found[1]}"
    if found := re.fullmatch(r"--(\d{2})", period):
        return f"--{int(found[1]) - 1:02d}" if found[1] != "01" else None
    return _step(period, -1)


def after(period: str) -> str | None:
    """The period just after ``period`` in the same form (``2025-03`` -> ``2025-04``); None for the
    data's latest ones, which have nothing after them."""
    return _step(period, 1)


def year_before(period: str) -> str | None:
    """The same period one year earlier."""
    if found := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})", period):
        return "..".join(str(year_before(day)) for day in found.groups())
    if found := re.fullmatch(r"(\d{4})(.*)", period):
        rest = found[2]
        if rest.endswith("-02-29"):
            rest = "-02-28"
        return f"{int(found[1]) - 1}{rest}"
    return None


def absolute(first: str, last: str) -> str:
    """The period from ``first`` to ``last`` (ISO days) in its shortest form: a placed "latest
    year" becomes ``2025``, so that "the year before" can step back from it."""
    start, end = date.fromisoformat(first), date.fromisoformat(last)
    month_end = calendar.monthrange(end.year, end.month)[1]
    if start == end:
        return first
    if start.day == 1 and end.day == month_end and start.year == end.year:
        if start.month == 1 and end.month == 12:
            return str(start.year)
        if start.month == end.month:
            return first[:7]
        if start.month % 3 == 1 and end.month == start.month + 2:
            return f"{start.year}-Q{start.month // 3 + 1}"
    return f"{first}..{last}"


def day_bounds(period: str) -> tuple[str, str] | None:
    """The first and last day of a day, month or year period (``2025-02`` -> 1 to 28 February)."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", period):
        return period, period
    if found := re.fullmatch(r"(\d{4})-(\d{2})", period):
        year, month = int(found[1]), int(found[2])
        return f"{period}-01", f"{period}-{calendar.monthrange(year, month)[1]:02d}"
    if re.fullmatch(r"\d{4}", period):
        return f"{period}-01-01", f"{period}-12-31"
    if found := re.fullmatch(r"(\d{4})-Q([1-4])", period):
        year, last = int(found[1]), 3 * int(found[2])
        return f"{year}-{last - 2:02d}-01", f"{year}-{last:02d}-{calendar.monthrange(year, last)[1]:02d}"
    if found := re.fullmatch(r"(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})", period):
        return found[1], found[2]
    return None
