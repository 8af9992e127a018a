"""A first look at an uploaded file: its header, a few rows, and what we suggest reading it as.

The admin confirms or corrects the suggestion before anything is imported
(docs/architecture.md#dataset-versions), so this only reads the beginning of the file (a file of
hundreds of megabytes answers as fast as a small one) and never writes anything. A file that cannot
be a CSV with a header at all (binary, empty, one column) is refused here, in one line. When the
detection was wrong, the admin's own reading (delimiter, decimal mark, thousands separator, a typed
date format) is given and the file is read again with it: the same look, nothing guessed.
"""

from __future__ import annotations

import codecs
import csv
import re
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.retail.datasets.dates import (
    ONLINE_RETAIL_DATES,
    candidate_formats,
    of_months,
    reads_any,
)
from agent_orchestrator.retail.datasets.formats import (
    EVENT_WORDS,
    PRICE_FIELDS,
    CsvFormat,
    dated_as_the_amount,
    is_rows_only,
    layout_of,
    missing_fields,
    normalise,
    source_key,
    suggest_mapping,
    unreadable_line,
)
from agent_orchestrator.semantic.suggest import header_words
from agent_orchestrator.semantic.written import CURRENCY_CODES, plain_number, unmarked

SAMPLE_BYTES = 256 * 1024
"""How much of the file the suggestion reads: some thousand records, enough for the dates."""

_DELIMITERS = ",;\t|"
_ENCODINGS = ("utf-8", "cp1252", "latin-1")  # latin-1 reads any bytes: the last resort
_UTF16_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_FIELD_WORDS = {
    "invoice": "an invoice or order number",
    "stock_code": "a stock code or SKU",
    "quantity": "a quantity",
    "invoiced_at": "a date",
    "unit_price or line_total": "a unit price or a line total",
    "customer_id": "a customer id",
}
_COMMA_THOUSANDS = re.compile(r"^-?\d{1,3}(,\d{3})+(\.\d+)?$")
_DOT_THOUSANDS = re.compile(r"^-?\d{1,3}(\.\d{3})+(,\d+)?$")
_DECIMAL_COMMA = re.compile(r"^-?\d+,\d+$")
_LOOKS_LIKE_DATA = re.compile(r"^[\d\s.,:/+-]+$")


@dataclass
class CsvPreview:
    """What :func:`inspect_csv` found. ``mapping`` is field -> suggested header column (``None``: no
    column looks like it); ``format`` has ``date_format`` set only when the sample allows one
    reading; ``date_formats`` are the candidates for a picker; ``problems`` what blocks an import
    as suggested (a required field without a column, dates that fit no format)."""

    header: list[str]
    rows: list[list[str]]
    layout: str | None
    mapping: dict[str, str | None]
    format: CsvFormat
    date_formats: list[str]
    source_key: str
    problems: list[str]


def inspect_csv(
    path: Path, *, rows: int = 10, given: CsvFormat | None = None, date_column: str | None = None
) -> CsvPreview:
    """The header, the first ``rows`` records and the suggested mapping and format of ``path``.

    ``given``: read the file this way (its delimiter, decimal mark, thousands separator, encoding and,
    when set, date format) rather than as detected. ``date_column``: the column whose dates are
    sampled, when the admin mapped another than the suggested one. ``InvalidInputError`` (one line)
    for a file that is empty, binary, or has no header, and for a given date format that reads none
    of the sampled dates.
    """
    text, encoding, delimiter = head_text(path, given)
    reader = csv.reader(text.splitlines(), delimiter=delimiter)
    try:
        records = [record for record in reader if record]
    except csv.Error as error:  # a field past the reader's limit: one 422 naming its line, not a 500
        raise InvalidInputError(unreadable_line(path.name, reader.line_num, error)) from None
    if not records:
        raise InvalidInputError(f"empty file: {path.name} has no lines (expected a CSV file with a header)")
    header = [name.strip() for name in records[0]]
    _check_header(path.name, header)
    body = records[1:]
    mapping = suggest_mapping(header)
    for field in ("quantity", "unit_price", "line_total"):  # "Item Purchased" holds names, not a count
        if mapping.get(field) and not _numbers_in(body, header, str(mapping[field])):
            mapping[field] = None
    if not mapping.get("line_total"):
        mapping["line_total"] = _line_total(header, body, set(mapping.values()), mapping.get("invoice"))
    if not mapping.get("line_total") and _grows_with_quantity(header, body, mapping):
        mapping["line_total"], mapping["unit_price"] = mapping["unit_price"], None
    mapping["invoiced_at"] = dated_as_the_amount(header, mapping)
    layout = layout_of(header)
    if given:
        decimal, thousands = given.decimal, given.thousands
    else:
        money = next((mapping[field] for field in PRICE_FIELDS if mapping.get(field)), None)
        decimal, thousands = _number_format(_column(body, header, money))
        if decimal == delimiter:  # "$5,320 " quoted in a file of commas: its comma groups digits
            decimal, thousands = ".", ","
    dated = date_column if date_column in header else mapping["invoiced_at"]
    dates = _column(body, header, dated)
    date_formats = candidate_formats(dates)
    if len(date_formats) > 1 and dated is not None:
        every: Collection[str] = dates
        if path.stat().st_size >= SAMPLE_BYTES:
            # the first lines fit day/month and month/day alike (a file sorted by date starts on the
            # 1st): the rest of the file tells them apart, as a person scrolling down would
            every = _all_dates(path, encoding, delimiter, header.index(dated))
            date_formats = candidate_formats(every) or date_formats
        date_formats = of_months(date_formats, every)  # a file of months, each dated on its 1st
    if layout and (not date_formats or set(date_formats) & set(ONLINE_RETAIL_DATES)):
        date_formats = list(ONLINE_RETAIL_DATES)  # their files' own spellings, which they mix
    typed = given.date_format if given else None
    if typed and dates and not reads_any(dates, typed):
        raise InvalidInputError(
            f"the date format {typed!r} reads none of the dates in {dated!r} (e.g. {dates[0]!r})"
        )
    fmt = CsvFormat(
        delimiter=delimiter,
        date_format=typed or (date_formats[0] if len(date_formats) == 1 else None),
        decimal=decimal,
        thousands=thousands,
        encoding=encoding,
    )
    problems = [f"no column looks like {_FIELD_WORDS[field]}" for field in missing_fields(mapping)]
    if is_rows_only(mapping):
        lacking = "a customer id" if not mapping.get("customer_id") else "a product"
        problems.append(  # optional, but the admin is to know what choosing none means
            f"no column looks like {lacking}: choose one, or the file imports as its own rows only "
            "(its own columns answer; no customer or product figures from the retail tables)"
        )
    if not mapping.get("quantity") and not is_rows_only(mapping):  # units are the retail tables' own
        problems.append("no column looks like a quantity: choose one, or each line counts as one unit sold")
    if not typed:  # a typed format was checked above
        problems += _date_problems(dated, dates, date_formats)
    return CsvPreview(
        header=header,
        rows=body[:rows],
        layout=layout,
        mapping=mapping,
        format=fmt,
        date_formats=date_formats,
        source_key=source_key(header),
        problems=problems,
    )


def head_text(path: Path, given: CsvFormat | None = None) -> tuple[str, str, str]:
    """The file's first :data:`SAMPLE_BYTES` as text, up to its last whole line, with the encoding
    and delimiter it is written in (``given``'s when given). ``InvalidInputError`` for an empty or
    binary file."""
    raw = _head(path)
    encoding = given.encoding if given else _encoding(path, raw)
    text = raw.decode(encoding, errors="replace").removeprefix("\ufeff")
    if "\x00" in text:
        raise InvalidInputError(f"{path.name} is not a CSV file: it holds binary data")
    if len(raw) == SAMPLE_BYTES:  # the last line is probably cut
        text = text[: text.rfind("\n") + 1] or text
    return text, encoding, given.delimiter if given else _delimiter(text)


def looks_like_data(cell: str) -> bool:
    """A header cell that is blank or a number, a date or a time: data, not a column's name."""
    return not cell or bool(_LOOKS_LIKE_DATA.match(cell))


def _date_problems(column: str | None, dates: list[str], date_formats: list[str]) -> list[str]:
    """What keeps the sampled dates from being read as detected: no format fits them, or two do."""
    if column is not None and dates and not date_formats:
        return [f"the dates in {column!r} fit no known format (e.g. {dates[0]!r})"]
    if len(date_formats) > 1 and date_formats != list(ONLINE_RETAIL_DATES):
        return ["the dates read both day/month and month/day: choose the date format"]
    return []


def _head(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            raw = handle.read(SAMPLE_BYTES)
    except OSError as error:
        raise InvalidInputError(f"cannot read {path.name}: {error.strerror or error}") from None
    if not raw.strip():
        raise InvalidInputError(f"empty file: {path.name} holds no data (expected a CSV file with a header)")
    if b"\x00" in raw and not raw.startswith(_UTF16_BOMS):  # UTF-16 text is half NULs
        raise InvalidInputError(f"{path.name} is not a CSV file: it holds binary data")
    return raw


def _encoding(path: Path, raw: bytes) -> str:
    """This file's own encoding, detected afresh for every file (never the one a source's earlier
    file had: docs/architecture.md#dataset-versions). UTF-16 by its byte-order mark (Excel's "Unicode
    text"); else UTF-8 when the whole file reads as UTF-8, not just its first 256 KB (a shop's file
    can be ASCII for thousands of lines before its first "£"); else cp1252, else latin-1."""
    if raw.startswith(_UTF16_BOMS):
        return "utf-16"
    found = next((encoding for encoding in _ENCODINGS if _decodes(raw, encoding)), _ENCODINGS[-1])
    if found == "utf-8" and len(raw) == SAMPLE_BYTES and not _all_utf8(path):
        found = "cp1252" if _decodes(raw, "cp1252") else "latin-1"
    return "utf-8-sig" if found == "utf-8" and raw.startswith(codecs.BOM_UTF8) else found


def _decodes(raw: bytes, encoding: str) -> bool:
    try:
        codecs.getincrementaldecoder(encoding)().decode(raw, final=False)  # a cut last character is fine
    except UnicodeDecodeError:
        return False
    return True


def _all_utf8(path: Path) -> bool:
    """Whether the whole file is UTF-8: read a megabyte at a time (128 MB in a fraction of a second)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        with path.open("rb") as handle:
            while chunk := handle.read(1 << 20):
                decoder.decode(chunk)
            decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    except OSError as error:
        raise InvalidInputError(f"cannot read {path.name}: {error.strerror or error}") from None
    return True


def _delimiter(text: str) -> str:
    head = "\n".join(text.splitlines()[:50])
    try:
        return csv.Sniffer().sniff(head, delimiters=_DELIMITERS).delimiter
    except csv.Error:
        first = text.splitlines()[0] if text else ""
        return max(_DELIMITERS, key=first.count)


def _check_header(name: str, header: list[str]) -> None:
    if len(header) < 2:
        raise InvalidInputError(f"{name} is not a CSV file with a header: its first line has one column")
    if sum(1 for cell in header if looks_like_data(cell)) > len(header) // 2:
        raise InvalidInputError(
            f"{name} has no header: its first line looks like data ({','.join(header)[:80]!r})"
        )


_TOTAL_NAMES = ("total", "amount", "totalamount", "linevalue", "value")
_WRITTEN_MOSTLY = 0.5
"""Of a file without order numbers, the share of lines an amount is written on, at least."""
_SHARED_BLANKS = 0.1
"""At most this share of the lines without an amount may belong to an order with one elsewhere (an
item cancelled from an order): more, and the amount is the order's, written on its first line."""


def _is_number(cell: str) -> bool:
    """A cell that holds a number, plain ("1,200.5") or written for people ("$5,320 ")."""
    return bool(re.fullmatch(r"-?[\d.,]+", cell.strip())) or plain_number(cell) is not None


def _numbers_in(body: list[list[str]], header: list[str], name: str) -> bool:
    """Whether the column's written cells are numbers, but for a broken one here and there (blanks
    aside): "Item Purchased" holds names, "Quantity" with one "twelve" counts."""
    written = [cell for cell in _column(body, header, name) if cell.strip()]
    numbers = [cell for cell in written if _is_number(cell)]
    return len(numbers) > len(written) / 2


_CURRENCY_WORDS = CURRENCY_CODES | {"in", "dollars"}
"""A header's words that name the money an amount is in ("Purchase Amount (USD)")."""
_AMOUNT_WORDS = frozenset({"total", "amount", "value"})
_SETTLED = frozenset(
    {
        "close",
        "closed",
        "closing",
        "won",
        "final",
        "net",
        "gross",
        "paid",
        "booked",
        "spent",
        "charged",
        "billed",
    }
)
"""A header's words that say when or how an amount was settled ("close_value", "Net Amount", "Total
Spent")."""


def _is_amount(name: str) -> bool:
    """A "Total", "Amount", "Purchase Amount (USD)", "Sale Value", a deal's "close_value": an amount,
    of a sale if of anything."""
    words = set(header_words(name)) - _CURRENCY_WORDS
    return normalise(name) in _TOTAL_NAMES or (
        bool(words & _AMOUNT_WORDS) and words <= _AMOUNT_WORDS | EVENT_WORDS | _SETTLED
    )


def _line_total(
    header: list[str], body: list[list[str]], taken: set[str | None], order: str | None
) -> str | None:
    """A "Total" or "Amount" column that is a line's own total (:func:`_on_every_line`)."""
    for name in header:
        if _is_amount(name) and name not in taken and _on_every_line(header, body, name, order):
            return name
    return None


def _on_every_line(header: list[str], body: list[list[str]], name: str, order: str | None) -> bool:
    """Whether column ``name`` holds a line's own amount: a number on every line sampled, or blank
    where an order has no amount at all (a marketplace report's cancelled orders), hardly ever
    beside a line of the same order that has one. An order's total is written on its first line
    only (a web shop's export): never a line's."""
    i = header.index(name)
    cells = [record[i].strip() if len(record) > i else "" for record in body]
    written = [cell for cell in cells if cell]
    if not written or not all(_is_number(cell) for cell in written):
        return False
    if len(written) == len(cells):
        return True
    if order is None:  # each line its own sale: a few without an amount are sales of an unknown one
        return len(written) >= _WRITTEN_MOSTLY * len(cells)
    o = header.index(order)
    orders = [record[o].strip() if len(record) > o else "" for record in body]
    paid = {key for key, cell in zip(orders, cells, strict=True) if cell}
    blanks = [key for key, cell in zip(orders, cells, strict=True) if not cell]
    return all(blanks) and sum(key in paid for key in blanks) <= _SHARED_BLANKS * len(blanks)


_PER_UNIT = frozenset({"unit", "each", "per", "single"})
"""A price header's words that say it is a unit's ("UnitPrice", "Price per Unit", "PriceEach")."""


def _grows_with_quantity(header: list[str], body: list[list[str]], mapping: dict[str, str | None]) -> bool:
    """Whether a column headed only "price" holds each line's total: a unit's price is the line's
    amount divided by its quantity, and a file of few products repeats few of them, while a line's
    total takes a value of its own for each quantity. So dividing the column by the quantity leaves
    fewer distinct figures than it had (a line of 3 at 300.08 is written 900.24), where dividing a
    unit price by the quantity would only make more. A header that says "unit" or "each" is taken
    at its word; a sample of lines all of one quantity tells nothing."""
    price, quantity = mapping.get("unit_price"), mapping.get("quantity")
    if price is None or quantity is None or _PER_UNIT & set(header_words(price)):
        return False
    p, q = header.index(price), header.index(quantity)
    pairs = []
    for record in body:
        if len(record) > max(p, q):
            amount, units = plain_number(record[p]), plain_number(record[q])
            if amount is not None and units is not None and float(units) > 0:
                pairs.append((float(amount), float(units)))
    if len({units for _, units in pairs}) < 2:
        return False
    amounts = {amount for amount, _ in pairs}
    per_unit = {round(amount / units, 2) for amount, units in pairs}
    return 2 * len(per_unit) <= len(amounts)


def _all_dates(path: Path, encoding: str, delimiter: str, at: int) -> set[str]:
    """Every distinct value of the file's column ``at`` (its dates), read through once."""
    with path.open(encoding=encoding, errors="replace", newline="") as file:
        reader = csv.reader(file, delimiter=delimiter)
        next(reader, None)
        try:
            return {record[at] for record in reader if len(record) > at}
        except csv.Error:  # a broken line further down: the sample's candidates stand
            return set()


def _column(body: list[list[str]], header: list[str], column: str | None) -> list[str]:
    if column is None:
        return []
    i = header.index(column)
    return [record[i].strip() for record in body if len(record) > i and record[i].strip()]


def _number_format(values: list[str]) -> tuple[str, str]:
    """(decimal, thousands) that the prices are written with ("$1,234.50" as "1,234.50"); the default
    when nothing tells."""
    values = [unmarked(v) for v in values]
    if any(_DOT_THOUSANDS.match(v) and "," in v for v in values):
        return ",", "."
    if any(_COMMA_THOUSANDS.match(v) and "." in v for v in values):
        return ".", ","
    if any(_DECIMAL_COMMA.match(v) for v in values) and not any("." in v for v in values):
        return ",", ""
    return ".", ""


def date_formats_for(fmt: CsvFormat, preview: CsvPreview, name: str) -> list[str]:
    """The formats an import reads the file's dates with: the given one, else the one the sample
    fits (an Online Retail file's own spellings, any of them). ``InvalidInputError`` when it fits
    none, or fits day/month and month/day alike (the admin must choose: a guess could misread every date)."""
    if fmt.date_format is not None:
        return [fmt.date_format]
    if len(preview.date_formats) == 1 or preview.date_formats == list(ONLINE_RETAIL_DATES):
        return preview.date_formats
    if not preview.date_formats:
        raise InvalidInputError(f"the dates in {name} fit no known format: give the date format")
    choices = ", ".join(preview.date_formats)
    raise InvalidInputError(f"the dates in {name} read both day/month and month/day: choose one of {choices}")
