"""Tool results as short text a small model reads correctly, and the answer of last resort.

Tools answer in compact JSON. A 0.5B model reading nested JSON picks the wrong row, drops a digit or
puts the thousands separator in the wrong place ("$27,2286.09"). The same facts as numbered lines,
with numbers already formatted the way an answer writes them and shares also given as percentages,
are copied far more faithfully. The rendering is a pure function of the result, so a conversation's
history renders identically on every request (the KV-cache prefix stays valid).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from .tool_ranking import stem, words

MAX_ROWS = 10


def render_result(content: str, lead: str | None = None) -> str:
    """``content`` as text lines when it is JSON; unchanged otherwise (errors, plain text).
    ``lead``: the line that answers the question (``tool_focus``), put first."""
    try:
        data = json.loads(content)
    except (ValueError, TypeError):
        return content
    if not isinstance(data, dict | list):
        return content
    lines: list[str] = [f"Asked for: {lead}."] if lead else []
    _render(data, lines, "")
    return "\n".join(lines)


def _render(value: Any, lines: list[str], indent: str, key: str = "") -> None:
    if isinstance(value, dict):
        for name, item in value.items():
            if name == "headline":
                lines.append(f"{indent}{item}")
            elif isinstance(item, list) and item and all(isinstance(row, dict) for row in item):
                # No row count: a small model answers "how many" with it instead of the total.
                lines.append(f"{indent}{name} (in this order):")
                for i, row in enumerate(item[:MAX_ROWS], 1):
                    lines.append(f"{indent}  {i}. " + ", ".join(_pair(k, v) for k, v in row.items()))
            elif isinstance(item, dict):
                if all(not isinstance(v, dict | list) for v in item.values()):
                    lines.append(f"{indent}{name}: " + ", ".join(_pair(k, v) for k, v in item.items()))
                else:
                    lines.append(f"{indent}{name}:")
                    _render(item, lines, indent + "  ")
            else:
                lines.append(f"{indent}{_pair(name, item)}")
    elif isinstance(value, list):
        for i, item in enumerate(value[:MAX_ROWS], 1):
            lines.append(f"{indent}{i}. {scalar_text(key, item)}")
    else:
        lines.append(f"{indent}{scalar_text(key, value)}")


def _pair(key: str, value: Any) -> str:
    return f"{key} {scalar_text(key, value)}"


def scalar_text(key: str, value: Any) -> str:
    """A value as an answer writes it: thousands separators, two decimals, shares also in %."""
    if isinstance(value, bool) or value is None:
        return {True: "yes", False: "no", None: "none"}[value]
    if isinstance(value, int) and not _is_identifier(key):
        return f"{value:,}"
    if isinstance(value, float):
        if ("share" in key or "rate" in key) and 0 <= value <= 1:
            return f"{value:.4f} ({value * 100:.1f}%)"
        return f"{value:,.2f}"
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "))
    return str(value)


def _is_identifier(key: str) -> bool:
    return key in {"id", "code", "month", "year"} or key.endswith("_id")


_COUNT_WORDS = {
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
}
_REQUESTED = re.compile(
    r"\b(?:top|first|best|biggest|largest|bottom|last|worst)\s+(\d{1,2}|"
    + "|".join(_COUNT_WORDS)
    + r")\b|\b(\d{1,2}|"
    + "|".join(_COUNT_WORDS)
    + r")\s+(?:top|best|biggest|largest|most)\b",
    re.IGNORECASE,
)


_EVERY_ROW = re.compile(r"\b(?:each|every|breakdown)\b", re.IGNORECASE)
_BY_ROW = re.compile(r"\b(?:by|per) ([a-z]+)", re.IGNORECASE)
_TIME_ROWS = frozenset({"month", "week", "day", "year", "quarter"})
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")


def asks_for_every_row(question: str, kinds: Iterable[str] = ()) -> bool:
    """ "… for each month", "a breakdown", or "by"/"per" what the result's rows are (``row_kinds``:
    "by country" of a result listing countries): every row of the result, not one figure."""
    if _EVERY_ROW.search(question):
        return True
    rows = _TIME_ROWS | set(kinds)
    return any(stem(word.lower()) in rows for word in _BY_ROW.findall(question))


def row_kinds(data: Any) -> set[str]:
    """What a result's lists of rows are, stemmed: ``{"countries": [{…}]}`` -> {"country"}."""
    if not isinstance(data, dict):
        return set()
    return {
        word
        for key, value in data.items()
        if isinstance(value, list) and value and all(isinstance(row, dict) for row in value)
        for word in words(key)
    }


def figures(text: str) -> set[str]:
    """The numbers a text states, without thousands separators ("1,544 orders" -> "1544")."""
    return {f.replace(",", "") for f in _FIGURE.findall(text)}


def requested_count(question: str) -> int:
    """How many items a question asks for: "top 5 customers", "the three biggest spenders" -> 5, 3."""
    match = _REQUESTED.search(question)
    if not match:
        return 0
    raw = (match.group(1) or match.group(2)).lower()
    return _COUNT_WORDS.get(raw) or int(raw)


def result_rows(content: str) -> list[tuple[str, str]]:
    """The rows of a list result as (identifier, one line): the first list of objects it holds."""
    try:
        data = json.loads(content)
    except (ValueError, TypeError):
        return []
    if not isinstance(data, dict):
        return []
    for value in data.values():
        if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
            return [
                (str(next(iter(row.values()))), ", ".join(_pair(k, v) for k, v in row.items()))
                for row in value[:MAX_ROWS]
            ]
    return []


_HOW_MANY = re.compile(r"\bhow many\s+(?:different\s+|distinct\s+|unique\s+)?([a-z]+)", re.IGNORECASE)


def headline_of(content: str) -> str:
    """The result's ``headline`` (the MCP server's one-sentence summary), or ""."""
    try:
        data = json.loads(content)
    except (ValueError, TypeError):
        return ""
    return str(data.get("headline") or "") if isinstance(data, dict) else ""


def stated_count(question: str, headline: str) -> str | None:
    """The count a headline states for what "how many …" asks ("How many orders …" + "… from 1,544
    orders by 269 customers" -> "1544"); in a headline of several clauses, the clause that names
    something the question names ("At Risk 2,489 customers" for "… in the At Risk segment?")."""
    asked = _HOW_MANY.search(question)
    if not asked or not headline:
        return None
    noun = asked.group(1).lower().rstrip("s")
    pattern = re.compile(rf"(\d[\d,]*)\s+(?:[a-z]+\s+)?{re.escape(noun)}s?\b", re.IGNORECASE)
    clauses = [c for c in re.split(r";\s*", headline) if pattern.search(c)]
    named = [c for c in clauses if any(w in question.lower() for w in _names(c))]
    chosen = (named or clauses)[:1]
    if not chosen or (len(clauses) > 1 and not named):
        return None  # several counts and nothing in the question to pick one: leave it to the model
    match = pattern.search(chosen[0])
    return match.group(1).replace(",", "") if match else None


def _names(clause: str) -> list[str]:
    return [n.lower() for n in re.findall(r"[A-Z][a-z]+(?: [A-Z][a-z]+)*", clause)]


def describe_result(content: str, tool: str) -> str:
    """The answer of last resort: the tool's result, verbatim in substance, with a plain preface
    (``tool``: its short name, "" when the call that asked for it is not in the conversation)."""
    named = f"the {tool} tool" if tool else "the tool"
    return (
        f"I could not word an answer that the data confirms, so here is exactly what "
        f"{named} returned:\n\n{render_result(content)}"
    )
