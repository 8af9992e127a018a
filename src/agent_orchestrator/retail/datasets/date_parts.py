"""A date a file writes in parts: a column each for its year, month and day (and its time of day).

Supply-chain and ERP exports often split a date ("Order Year", "Order Month", "Order Day", "Order
Time"), and a data warehouse's flat extract does the same for each of its dates ("Shipment Year",
…). Nothing can be asked by period of such a file until the parts are one date, and an admin should
not have to compute that column by hand before importing it (docs/architecture.md#dataset-versions).
So an upload whose header holds the three parts of a date, with the values of a year, a month and a
day, gets the date as a column of its own, named by the parts' shared words ("Order Date"), written
ISO ("2015-02-21", or "2015-02-21 14:07" with its time), appended to every line as the file arrives
(``arrival``); the parts stay as they were, and a line whose parts are not a date (30 February, a
blank) leaves it blank.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from agent_orchestrator.semantic.suggest import header_words

_PART_WORDS = {
    "year": "year",
    "yr": "year",
    "month": "month",
    "mon": "month",
    "mo": "month",
    "day": "day",
    "dom": "day",
    "time": "time",
}
"""A header's last word that names the part of a date it holds ("Order Year", "ship_mon")."""
_MONTH_NAMES = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}
_ENOUGH = 0.9
"""Of the sampled lines with the parts written, the share that must make a date."""


@dataclass(frozen=True)
class DateParts:
    """The columns (their positions in the header) of one date written in parts, and its name."""

    name: str
    year: int
    month: int
    day: int
    time: int | None


def date_parts(header: list[str], body: list[list[str]]) -> list[DateParts]:
    """The dates ``header`` writes in parts whose sampled values (``body``) are dates, first-seen
    order; a date's name is not one the header already has."""
    groups: dict[tuple[str, ...], dict[str, int]] = {}
    spelled: dict[tuple[str, ...], str] = {}
    for i, name in enumerate(header):
        words = header_words(name)
        if not words or words[-1] not in _PART_WORDS or any(w in _PART_WORDS for w in words[:-1]):
            continue  # "Order YearMonth" is a month of its own, not a part
        prefix = tuple(words[:-1])
        groups.setdefault(prefix, {}).setdefault(_PART_WORDS[words[-1]], i)
        spelled.setdefault(prefix, _spelled_prefix(name, len(words) - 1))
    taken = {name.strip().casefold() for name in header}
    found = []
    for prefix, parts in groups.items():
        if not {"year", "month", "day"} <= parts.keys():
            continue
        name = f"{spelled[prefix]} Date".strip() if prefix else "Date"
        candidate = DateParts(name, parts["year"], parts["month"], parts["day"], parts.get("time"))
        if name.casefold() not in taken and _mostly_dates(candidate, body):
            found.append(candidate)
    return found


def _spelled_prefix(name: str, words: int) -> str:
    """The header's own spelling of its first ``words`` words ("Order" of "Order Year", "ship" of
    "ship_year"), title-cased when the file writes them in lower case."""
    spelled = " ".join(header_words(name)[:words])
    original = name.strip()
    own = original[: len(spelled)]
    return own if own.casefold() == spelled and not own.islower() else spelled.title()


def _mostly_dates(parts: DateParts, body: list[list[str]]) -> bool:
    written = [record for record in body if _cell(record, parts.year) and _cell(record, parts.day)]
    dated = sum(1 for record in written if iso(parts, record))
    return bool(written) and dated >= _ENOUGH * len(written)


def iso(parts: DateParts, record: list[str]) -> str:
    """The line's date ("2015-02-21", with its time "2015-02-21 14:07"), or "" when it is none."""
    try:
        year, day = int(float(_cell(record, parts.year))), int(float(_cell(record, parts.day)))
        month_cell = _cell(record, parts.month)
        month = _MONTH_NAMES.get(month_cell.casefold()) or int(float(month_cell))
        if not 1900 <= year <= 2100:
            return ""
        when = date(year, month, day).isoformat()
    except ValueError:
        return ""
    if parts.time is None:
        return when
    return f"{when} {_clock(_cell(record, parts.time))}"


def _clock(cell: str) -> str:
    """A time of day as "HH:MM" ("7:37" is "07:37"); "00:00" where none is written, so that every
    line of the column is in one format."""
    hours, _, rest = cell.partition(":")
    if hours.isdigit() and int(hours) < 24 and rest[:2].isdigit() and int(rest[:2]) < 60:
        return f"{int(hours):02d}:{rest[:2]}"
    return "00:00"


def _cell(record: list[str], at: int | None) -> str:
    return record[at].strip() if at is not None and at < len(record) else ""
