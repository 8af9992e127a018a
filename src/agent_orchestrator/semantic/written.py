"""Numbers as a spreadsheet writes them for people: "$600,000 ", "1,200", "(45.10)", "35%", "€ 1.234,56".

An export made from a formatted sheet writes its money with a currency symbol, digit groups, a
trailing space and negative amounts in parentheses; its rates with a percent sign. Read as they are,
such columns are text, so a file of them has no measure and no price or line total to import
(docs/architecture.md#the-semantic-model). Both readers of a file -- the import's own lines and the
semantic profile -- read them here, the one in Python and the other in SQL, with the same rules:
only a column whose every value is such a number, and that writes at least one of them for people
(a symbol, a group, a sign, parentheses), is read as numbers; a percent keeps its figure (35% is 35).
"""

from __future__ import annotations

import re

CURRENCY_SYMBOLS = {"$": "USD", "£": "GBP", "€": "EUR", "¥": "JPY", "₹": "INR"}
"""A symbol an amount is written with, and the currency a file that writes it means by default
(an admin sets another on the Data page: "$" may be Canadian)."""

CURRENCY_CODES = frozenset({"usd", "eur", "gbp", "inr", "aud", "cad", "jpy", "chf"})
"""Currency codes as a header names them ("Purchase Amount (USD)"), lower case: the money, not the figure."""
_SYMBOLS = "".join(CURRENCY_SYMBOLS)
_SPACES = " \u00a0"


def _shape(decimal: str) -> str:
    """The regular expression (Python and DuckDB alike) of one number written for people."""
    group = r"[.\s\x{a0}]" if decimal == "," else ","
    fraction = re.escape(decimal) + r"\d+"
    return rf"^\(?[-+]?\s*[{_SYMBOLS}]?\s*[-+]?(?:\d{{1,3}}(?:{group}\d{{3}})+|\d+)(?:{fraction})?\s*%?\)?$"


def plain_number(text: str, decimal: str = ".") -> str | None:
    """``text`` as a plain number ("-45.10" for "($45.10)"), or None when it is no number at all."""
    text = text.strip(_SPACES)
    if not re.fullmatch(_shape(decimal).replace(r"\x{a0}", "\u00a0"), text):
        return None
    negative = text.startswith("(") and text.endswith(")")
    digits = re.sub(rf"[{_SYMBOLS}%()\s\u00a0]", "", text)
    digits = digits.replace(".", "").replace(",", ".") if decimal == "," else digits.replace(",", "")
    if negative:
        digits = "-" + digits.lstrip("+-")
    return digits


def unmarked(text: str) -> str:
    """``text`` without what a sheet writes around an amount for people: its digits and notation
    ("$1,234.50 " is "1,234.50")."""
    return re.sub(rf"[{_SYMBOLS}%()\s\u00a0]", "", text)


_NO_VALUE = r"^\s*(?:-+|\x{2014}|#N/A|N/A|n/a|NULL|null)\s*$"
"""A cell that writes no value among numbers: "  -  " for no discount (an accountant's zero dash), a
sheet's "#N/A". Read as blank, so the column is still one of numbers."""


def sql_no_value(quoted: str) -> str:
    """SQL: whether the text column ``quoted``'s value writes that there is none (``_NO_VALUE``)."""
    return f"regexp_full_match({quoted}::VARCHAR, '{_NO_VALUE}')"


def sql_matches(quoted: str, decimal: str) -> str:
    """SQL: whether the text column ``quoted``'s value is a number written for people, or none."""
    return f"(regexp_full_match(trim({quoted}::VARCHAR), '{_shape(decimal)}') OR {sql_no_value(quoted)})"


def sql_marked(quoted: str) -> str:
    """SQL: whether the value carries a mark of a number written for people (not a plain one), or
    writes none: either way the column must be read, it is not numbers as it stands."""
    return f"(regexp_matches({quoted}::VARCHAR, '[{_SYMBOLS}%(,]|\\s$') OR {sql_no_value(quoted)})"


def sql_fraction(quoted: str, decimal: str) -> str:
    """SQL: whether the value has digits after its decimal mark ("$55.00": not a whole number)."""
    return f"regexp_matches({quoted}::VARCHAR, '{re.escape(decimal)}\\d+\\s*%?\\)?\\s*$')"


def sql_number(quoted: str, decimal: str, *, whole: bool = False) -> str:
    """SQL: the value of ``quoted`` (a number written for people) as an exact decimal, or as an
    integer for a column of ``whole`` numbers."""
    stripped = f"regexp_replace(trim({quoted}::VARCHAR), '[{_SYMBOLS}%()\\s\\x{{a0}}]', '', 'g')"
    if decimal == ",":
        plain = f"replace(replace({stripped}, '.', ''), ',', '.')"
    else:
        plain = f"replace({stripped}, ',', '')"
    negative = f"starts_with(trim({quoted}::VARCHAR), '(')"
    type_ = "BIGINT" if whole else "DECIMAL(18, 6)"
    return (
        f"CAST(CASE WHEN {sql_no_value(quoted)} THEN NULL WHEN {negative} THEN '-' || ltrim({plain}, '+-') "
        f"ELSE {plain} END AS {type_})"
    )


def sql_symbol(quoted: str) -> str:
    """SQL: the currency symbol a value is written with ('' when none)."""
    return f"regexp_extract({quoted}::VARCHAR, '[{_SYMBOLS}]')"


def year_twin(fmt: str) -> str | None:
    """The same day written with the year in the other width ("04-30-22" and "04-01-2022" in one
    export: a spreadsheet writes the cells it took for dates one way and the others another), for a
    format of days alone; ``strptime`` reads "%y" as two digits and "%Y" as four, never both."""
    if "%H" in fmt or fmt.count("%y") + fmt.count("%Y") != 1:
        return None
    return fmt.replace("%y", "%Y") if "%y" in fmt else fmt.replace("%Y", "%y")


def read_as_text(fmt: str) -> bool:
    """Whether dates written by ``fmt`` are read as text first and then by :func:`sql_day`: days in
    two year widths, and moments written with their offset from UTC."""
    return year_twin(fmt) is not None or "%z" in fmt


def sql_day(quoted: str, fmt: str) -> str:
    """SQL reading a text column of days written by ``fmt`` or its year twin; NULL for neither. A
    moment written with its offset ("2026-03-28 22:29:09 -0700") is the shop's own day and hour,
    never UTC's (which would move an evening's orders to the next day, a month's last to the next)."""
    if "%z" in fmt:
        wall = f"regexp_replace(trim({quoted}), '\\s*(Z|[+-]\\d\\d:?\\d\\d)$', '')"
        return f"try_strptime({wall}, '{fmt.replace('%z', '').strip()}')"
    twin = year_twin(fmt) or fmt
    short, long = (fmt, twin) if "%y" in fmt else (twin, fmt)  # DuckDB's %Y also reads "22" (as 0022)
    return f"CAST(coalesce(try_strptime({quoted}, '{short}'), try_strptime({quoted}, '{long}')) AS DATE)"
