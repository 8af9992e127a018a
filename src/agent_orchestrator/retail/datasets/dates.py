"""Dates as a file writes them: the formats we try, which of them fit a sample, and a fast parser.

A file's dates are all in one format, so the format is chosen once (given, or detected from the
first rows) rather than guessed per row: a guess per row reads "03/04/2011" as March in one row and
April in the next. When the sample fits day/month and month/day alike (no day above 12 yet), both
are candidates and the admin picks (``CsvPreview.date_formats``) -- unless one of them reads every
date as the first of a month, over several months: a file of monthly figures, whose other reading
would put every date in one January.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, time

from agent_orchestrator.semantic.profile import MONTHLY_MONTHS
from agent_orchestrator.semantic.written import year_twin

DATE_FORMATS = (
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%d %H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S.%f",
    "%Y-%m-%dT%H:%M:%S.%fZ",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%dT%H:%M:%SZ",
    "%Y-%m-%dT%H:%M:%S%z",
    "%Y-%m-%d %H:%M:%S %z",
    "%Y-%m-%d",
    "%m/%d/%Y %H:%M",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%Y",
    "%d/%m/%Y %H:%M",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%Y",
    "%d.%m.%Y %H:%M",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%Y",
    "%d-%m-%Y %H:%M",
    "%d-%m-%Y",
    "%m-%d-%Y",
    "%m/%d/%y %H:%M",
    "%d/%m/%y %H:%M",
    "%m/%d/%y",
    "%d/%m/%y",
    "%m-%d-%y",
    "%d-%m-%y",
    "%d-%b-%y",
    "%d-%b-%Y",
    "%d %b %Y",
    "%d %B %Y",
    "%b %d, %Y",
    "%B %d, %Y",
    "%d/%b/%Y",
    "%d-%B-%Y",
    "%b %d %Y",
    "%B %d %Y",
    "%A, %B %d, %Y",
    "%a, %b %d, %Y",
    "%A, %d %B %Y",
    "%a, %d %b %Y",
    "%a %b %d %Y",
    "%Y/%m/%d",
    "%Y/%m/%d %H:%M:%S",
    "%Y.%m.%d",
    "%m/%d/%Y %I:%M %p",
    "%m/%d/%Y %I:%M:%S %p",
    "%d/%m/%Y %I:%M %p",
)
"""Formats tried when a file's is not given; most files write one of these (a month by its name as
a sheet writes it: "04-Jan-22", "4 January 2022", "Jan 4, 2022", with its weekday: "Saturday,
January 1, 2022"; a clock of 12 hours: "3/5/2021 2:22 PM")."""

ONLINE_RETAIL_DATES = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%m/%d/%Y %H:%M", "%m/%d/%Y %H:%M:%S")
"""The Online Retail files' own spellings (the UCI export's ISO dates, the Kaggle copy's US ones):
a file in that layout whose format is not given is read with any of them, as it always was."""

STORED = "%Y-%m-%d %H:%M:%S"
"""How the retail file stores a timestamp (see ``retail.schema``)."""

_FIT = 0.95
_PROBE = 20
"""Dates a format is first tried on: of a long sample, one that reads none of them is dropped (the
formats are fifty; a sample some thousand dates)."""
"""Share of a sample's dates a format must read to be a candidate (a few bad rows are skipped)."""


def candidate_formats(samples: Iterable[str]) -> list[str]:
    """The formats that read the most of ``samples`` (and at least 95 % of them), each with its year
    twin (:func:`year_twin`), in :data:`DATE_FORMATS` order; several only when the sample cannot tell
    them apart. Of twins, the one that reads more of the sample as written."""
    texts = [text.strip() for text in samples if text.strip()]
    if not texts:
        return []
    tried: tuple[str, ...] = DATE_FORMATS
    if len(texts) * (1 - _FIT) > _PROBE:  # a format that reads none of the first few cannot read 95 %
        tried = tuple(fmt for fmt in DATE_FORMATS if any(_reads_either(text, fmt) for text in texts[:_PROBE]))
    alone = {fmt: sum(1 for text in texts if _reads(text, fmt)) for fmt in tried}
    counts = {fmt: sum(1 for text in texts if _reads_either(text, fmt)) for fmt in tried}
    if not counts:
        return []
    best = max(counts.values())
    if best < _FIT * len(texts):
        return []
    found = [fmt for fmt in tried if counts[fmt] == best]
    found = [  # "…T00:00:00Z" is read alike as a "Z" and as an offset: one format, not a choice
        fmt for at, fmt in enumerate(found) if not any(_alike(other, fmt, texts) for other in found[:at])
    ]
    order = {fmt: -alone[fmt] for fmt in found}  # of twins, the first by that (then by DATE_FORMATS)
    return [
        fmt
        for fmt in found
        if (twin := year_twin(fmt)) not in order
        or (order[fmt], found.index(fmt)) < (order[twin], found.index(twin))
    ]


def of_months(formats: list[str], samples: Iterable[str]) -> list[str]:
    """Of several candidate ``formats`` for every date of a file, the ones that read each of them as
    the first day of a month, over at least ``MONTHLY_MONTHS`` months, when there are such: a file of
    monthly figures ("12/1/2011" is December). Read the other way round, its dates would be the first
    days of one January, which no file of several months' sales is. Else ``formats`` as they are."""
    if len(formats) < 2:
        return formats
    texts = [text.strip() for text in samples if text.strip()]
    return [fmt for fmt in formats if _months(fmt, texts)] or formats


def _months(fmt: str, texts: list[str]) -> bool:
    """Whether ``fmt`` reads every date as the first day of a month at midnight, over at least
    ``MONTHLY_MONTHS`` months: a file of monthly figures ("12/1/2011 0:00" is December). Read the other
    way round, its dates would be the first days of one January, which no file of several months'
    sales is. A time of day is a sale's ("01/03/2011 09:00"): such a file stays the admin's choice."""
    days = {_wall(text, fmt) for text in set(texts)}
    return (
        None not in days
        and all(d.day == 1 and d.time() == time() for d in days if d)
        and len({(d.year, d.month) for d in days if d}) >= MONTHLY_MONTHS
    )


def _alike(one: str, other: str, texts: list[str]) -> bool:
    """Whether two formats read every one of ``texts`` as the same day and time of day."""
    return all(_wall(text, one) == _wall(text, other) is not None for text in texts)


def _wall(text: str, fmt: str) -> datetime | None:
    try:
        return datetime.strptime(text, fmt).replace(tzinfo=None)
    except ValueError:
        return None


def _reads_either(text: str, fmt: str) -> bool:
    twin = year_twin(fmt)
    return _reads(text, fmt) or (twin is not None and _reads(text, twin))


def reads_any(samples: Iterable[str], fmt: str) -> bool:
    """Whether ``fmt`` reads at least one of ``samples``: a format the admin typed is checked against
    the file before an import could skip every line as a bad date."""
    return any(_reads_either(text.strip(), fmt) for text in samples)


def _reads(text: str, fmt: str) -> bool:
    try:
        datetime.strptime(text, fmt)
    except ValueError:
        return False
    return True


def date_parser(formats: Sequence[str]) -> Callable[[str], str]:
    """``text -> "YYYY-MM-DD HH:MM:SS"`` by the first of ``formats`` that reads it, or ``ValueError``.

    Memoised: a file repeats each timestamp on every line of its invoice (the real file has 23,000
    distinct ones in 541,909 lines), and ``strptime`` was two thirds of the import's parsing time.
    A time zone offset is dropped: the shop's own clock is what its analysts mean by a day.
    """
    seen: dict[str, str] = {}
    strptime = datetime.strptime
    first, *others = formats
    others += [twin for fmt in formats if (twin := year_twin(fmt)) is not None and twin not in formats]

    def parse(text: str) -> str:
        stored = seen.get(text)
        if stored is None:
            stored = _read(text)
            seen[text] = stored
        return stored

    def _read(text: str) -> str:
        try:
            return strptime(text, first).strftime(STORED)
        except ValueError:
            for fmt in others:
                try:
                    return strptime(text, fmt).strftime(STORED)
                except ValueError:
                    continue
            raise

    return parse
