"""Argument types of the retail tools: simple JSON types, short descriptions, lenient parsing.

The reader is often a 0.5B model, sometimes decoding under a grammar built from the input schema.
So the schema advertises exact choices (``enum`` of segment names, of countries, of sort keys),
while parsing forgives what such a model writes without a grammar: "at risk", "AT_RISK", "All",
an empty string for "no filter", "2024-03" for the whole of March.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from datetime import date
from typing import Annotated, Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from pydantic import BaseModel, BeforeValidator, Field, ValidationError
from pydantic.config import JsonDict

from agent_orchestrator.mcp_server.config import MAX_LIMIT
from agent_orchestrator.retail.segments import SEGMENT_ORDER, Segment

SEGMENT_CHOICES = tuple(s.value for s in SEGMENT_ORDER)
SEGMENT_NAMES = ", ".join(SEGMENT_CHOICES)

_NO_FILTER = {"", "all", "any"}
"""Normalised values that mean "no filter": small models fill optional arguments with them."""


def _key(text: str) -> str:
    return re.sub(r"[^a-z]", "", text.lower())


_SEGMENT_KEYS = {_key(s.value): s for s in Segment}


def is_no_filter(text: str) -> bool:
    return _key(text) in _NO_FILTER


def parse_segment(text: str | None) -> Segment | None:
    """Lenient on purpose: small models write "at risk", "AT_RISK" or "High-Value"."""
    if text is None or is_no_filter(text):
        return None
    segment = _SEGMENT_KEYS.get(_key(text))
    if segment is None:
        raise ToolError(f"unknown segment {text!r}; use one of: {SEGMENT_NAMES}")
    return segment


def _period_start(value: Any) -> Any:
    """``YYYY`` and ``YYYY-MM`` start on their first day; ``""`` is no date."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if re.fullmatch(r"\d{4}", text):
            return f"{text}-01-01"
        if re.fullmatch(r"\d{4}-\d{2}", text):
            return f"{text}-01"
    return value


def _period_end(value: Any) -> Any:
    """``YYYY`` and ``YYYY-MM`` end on their last day, so "2024-02" needs no calendar arithmetic."""
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if re.fullmatch(r"\d{4}", text):
            return f"{text}-12-31"
        if (found := re.fullmatch(r"(\d{4})-(\d{2})", text)) and 1 <= int(found[2]) <= 12:
            year, month = int(found[1]), int(found[2])
            return date(year, month, calendar.monthrange(year, month)[1]).isoformat()
    return value


SegmentArg = Annotated[
    str | None,
    Field(max_length=32, description="Customer segment", json_schema_extra={"enum": [*SEGMENT_CHOICES]}),
]
ProductArg = Annotated[str | None, Field(max_length=64, description="Stock code or part of the product name")]
DateFrom = Annotated[
    date | None, BeforeValidator(_period_start), Field(description="First day, YYYY-MM-DD (or YYYY-MM, YYYY)")
]
DateTo = Annotated[
    date | None, BeforeValidator(_period_end), Field(description="Last day, YYYY-MM-DD (or YYYY-MM, YYYY)")
]
CustomerId = Annotated[int | None, Field(ge=1, description="Only this customer id")]
Limit = Annotated[int, Field(ge=1, le=MAX_LIMIT, description=f"Rows, 1-{MAX_LIMIT}")]


def country_arg(countries: Sequence[str]) -> Any:
    """The ``country`` type, advertising the dataset's countries when they are known.

    Built per server because the names come from the database; without one (not generated yet)
    the schema has no enum and any name is looked up when the tool runs.
    """
    extra: JsonDict | None = {"enum": list(countries)} if countries else None
    return Annotated[str | None, Field(max_length=64, description="Country", json_schema_extra=extra)]


def compact_validation_error(exc: ValidationError) -> str:
    """``limit: Input should be less than or equal to 20`` rather than pydantic's multi-line text.

    The default message carries the model class name and a documentation URL per error: noise
    that a small model may copy into its answer instead of fixing the argument.
    """
    parts = []
    for err in exc.errors():
        where = ".".join(str(part) for part in err["loc"])
        message = err["msg"].removeprefix("Value error, ")
        parts.append(f"{where}: {message}" if where else message)
    return "; ".join(parts)


M = TypeVar("M", bound=BaseModel)


def validated(model: type[M], **values: Any) -> M:
    """A filter model from tool arguments; cross-field errors ("date_from must not be after
    date_to") become a one-line ``ToolError``."""
    try:
        return model(**values)
    except ValidationError as exc:
        raise ToolError(compact_validation_error(exc)) from exc
