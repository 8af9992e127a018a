"""Titles that say what a chat is about (docs/architecture.md#titles).

A chat nobody titled is named twice by the app: from its first message as soon as it is sent (so the
list shows something while the answer is written), and after its first answer from what that answer
computed, when a tool stated it: a tool result that is a JSON object with a ``reading`` string (the
sales tool's "Revenue by country, 2011") names the question better than the words it was asked in.
Both are made by code, not by another model call: instant, free, and never a made-up summary. The
owner's own title is never replaced (``SessionCatalog.auto_title`` checks that in its statement).
"""

from __future__ import annotations

import json
import re

from agent_orchestrator.sessions.history.tool_results import ToolResult
from agent_orchestrator.sessions.store.catalog import one_line

TITLE_CHARS = 60
"""Long enough for "Revenue by country, excluding United Kingdom, 2011", short enough for a list."""

# What people put before a question that says nothing about it.
_LEAD_IN = re.compile(
    r"^(?:(?:hi|hello|hey|good (?:morning|afternoon|evening))\b[\s,!.]*)?"
    r"(?:(?:please|pls|ok(?:ay)?|so)\b[\s,]*)?"
    r"(?:(?:can|could|would|will) you\s+(?:please\s+)?)?"
    r"(?:(?:tell|show|give) me\s+|i(?:'d| would) like to know\s+|i want to know\s+|let me know\s+)?",
    re.IGNORECASE,
)


def title_from_message(message: str) -> str:
    """The first message as a title: its lead-in ("Hi, can you tell me") and end punctuation dropped,
    capitalised, cut at a word to 60 characters; empty if nothing is left."""
    text = one_line(message)
    text = _LEAD_IN.sub("", text, count=1).strip().rstrip("?!.… ").strip() or text.rstrip("?!.… ")
    return _capitalised(_cut(text))


def title_from_answer(results: tuple[ToolResult, ...]) -> str | None:
    """The reading the first answer's tools stated, if one did (the first that did)."""
    for result in results:
        try:
            data = json.loads(result.content)
        except ValueError:
            continue
        reading = data.get("reading") if isinstance(data, dict) else None
        if isinstance(reading, str) and one_line(reading):
            return _capitalised(_cut(one_line(reading)))
    return None


def _cut(text: str) -> str:
    if len(text) <= TITLE_CHARS:
        return text
    cut = text[: TITLE_CHARS - 1]
    if " " in cut[TITLE_CHARS // 2 :]:
        cut = cut[: cut.rfind(" ")]
    return cut.rstrip(" ,;:-") + "…"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]
