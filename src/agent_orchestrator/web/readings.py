"""Sales readings under chat answers, and a changed reading computed again without the model.

When a turn's ``analyze_sales`` or ``query_data`` call was answered, the answer shows the tool's
reading as chips (measure · filters · period · comparison · ranking) and the tool's own answer text,
so the figures an analyst reads were written by code whichever model answered; a ``query_data`` name
that meant several things shows its choices. Changing a chip (or picking a choice) sends the edited
query back; it is computed here with the tool's own code, and the session service records it as a
turn of the conversation (docs/architecture.md#editing-a-reading).
"""

import json
from collections.abc import Callable, Iterable
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from agent_orchestrator.errors import InvalidInputError
from agent_orchestrator.mcp_server import tools_query
from agent_orchestrator.mcp_server.config import SERVER_NAME
from agent_orchestrator.mcp_server.toolkit import to_json
from agent_orchestrator.retail.analysis import Query, answer_query
from agent_orchestrator.retail.analysis.query import pinned_period
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.sessions import ToolAnswer, ToolResult

TOOL = "analyze_sales"
TOOLS = (TOOL, tools_query.TOOL)
"""The query tools whose readings are shown and can be changed."""
Tool = Literal["analyze_sales", "query_data"]
CHANGED = "Reading changed: "


class Chip(BaseModel):
    """One part of the reading: the query field it stands for, its value and how it reads."""

    model_config = ConfigDict(extra="ignore")
    field: str
    value: str
    label: str


class Clarify(BaseModel):
    """A name that meant several things: the filter's column, the name asked and the choices --
    values of that column, or of the column ``by`` that tells them apart ("Portland": which state)."""

    model_config = ConfigDict(extra="ignore")
    column: str
    value: str
    choices: list[str]
    by: str | None = None


class Reading(BaseModel):
    """What the tool computed, for the UI: ``answer`` is the tool's own text (``None`` when the message
    already is that text), ``query`` what a changed chip edits and sends back, ``tool`` which query it
    is; ``clarify``, for a name the data holds several of, the choices to compute it with instead."""

    model_config = ConfigDict(extra="ignore")
    tool: Tool = "analyze_sales"
    reading: str = ""
    chips: list[Chip] = []
    query: dict[str, Any]
    answer: str | None
    clarify: Clarify | None = None
    shown: int | None = None
    """A ranking's rows shown, of ``groups`` in all ("top 5 of 24"): the UI offers the rest."""
    groups: int | None = None


def readings_for(results: Iterable[ToolResult], shown: str) -> list[Reading]:
    """The readings of the answered query calls among a message's tool results."""
    found: list[Reading] = []
    for result in results:
        if result.tool not in TOOLS or result.server not in (SERVER_NAME, None):
            continue
        reading = _reading(result.tool, result.content)
        if reading is None or reading in found:
            continue
        if reading.answer is not None and reading.answer.strip() == shown.strip():
            reading = reading.model_copy(update={"answer": None})
        found.append(reading)
    return found


@lru_cache(maxsize=4096)
def _reading(tool: str, content: str) -> Reading | None:
    """Cached like the charts: a stored result is read again on every reload."""
    try:
        data = json.loads(content)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    if data.get("answered") is not True and not data.get("clarify"):
        return None  # "I can't answer that from this data": nothing to change
    try:
        rows = data.get("rows")
        shown = {"shown": len(rows)} if isinstance(rows, list) and data.get("groups") else {}
        return Reading.model_validate(
            {
                **data,
                **shown,
                "query": _pinned(data.get("query"), data.get("period")),
                "tool": tool,
                "answer": data.get("answer") if data.get("answered") else None,
            }
        )
    except ValidationError:
        return None


def _pinned(query: Any, period: Any) -> Any:
    """The query a changed chip edits, with a period that counted from the data's last day ("this
    year") fixed to the days it meant: changing another chip of an old answer must not silently
    move it to a later year's data."""
    if not (isinstance(query, dict) and isinstance(period, dict) and isinstance(query.get("period"), str)):
        return query
    try:
        first, last = date.fromisoformat(period["first"]), date.fromisoformat(period["last"])
    except (KeyError, TypeError, ValueError):
        return query
    return {**query, "period": pinned_period(query["period"], first, last)}


def parse_query(value: dict[str, Any]) -> Query:
    """The edited reading as a query, or one line naming each field that is wrong."""
    try:
        return Query.model_validate(value)
    except ValidationError as error:
        problems = (
            f"{'.'.join(str(part) for part in e['loc']) or 'query'}: {e['msg'].removeprefix('Value error, ')}"
            for e in error.errors()
        )
        raise InvalidInputError("The reading is not valid: " + "; ".join(problems) + ".") from None


def compute(current_path: Callable[[], Path], query: Query) -> ToolAnswer:
    """The query answered as the tool answers it (the same result text), on the file
    ``current_path`` names now (the active dataset version, docs/architecture.md#dataset-versions),
    with the line the user is shown as having asked; blocking (run it in a thread). A reading the
    data cannot answer is an :class:`InvalidInputError` with the tool's reason, and nothing is
    recorded."""
    conn = open_readonly(current_path())
    try:
        result = answer_query(conn, query)
    finally:
        conn.close()
    if not result["answered"]:
        raise InvalidInputError(result["answer"])
    prompt = CHANGED + " · ".join(chip["label"] for chip in result["chips"])
    arguments = query.model_dump(mode="json", exclude_defaults=True)
    return ToolAnswer(prompt, f"{SERVER_NAME}-{TOOL}", arguments, to_json(result), result["answer"])


def compute_data_query(current_path: Callable[[], Path], query: dict[str, Any]) -> ToolAnswer:
    """A ``query_data`` reading answered as the tool answers it, on the active version; blocking. A
    query the data cannot answer (or that names several things) is an :class:`InvalidInputError`
    with the tool's sentence, and nothing is recorded."""
    result = tools_query.answer(tools_query.semantic_data(current_path()), query)
    if not result.get("answered"):
        raise InvalidInputError(result["answer"])
    prompt = CHANGED + " · ".join(chip["label"] for chip in result["chips"])
    name = f"{SERVER_NAME}-{tools_query.TOOL}"
    return ToolAnswer(prompt, name, result["query"], to_json(result), result["answer"])
