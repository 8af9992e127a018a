"""Customer ids in an answer become links to the customer's page (``#customer/<id>``).

A number is taken for a customer id when the answer says so ("customer 12345", "customer id 12345")
or when the turn's tools returned a customer with that id (so "12345, 12346 and 12347" after a
ranking link too, while a year or a quantity does not). The links are markdown-it tokens added after
parsing, never HTML in the text, so the renderer's escaping still covers every character of the
model's output (docs/architecture.md#charts).
"""

import json
import re
from collections.abc import Iterable
from functools import lru_cache

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token

from agent_orchestrator.sessions import ToolResult

_MENTION = re.compile(
    r"(?P<word>\bcustomer(?:\s+id)?\s+#?)?(?<![\w.,])(?P<hash>#)?(?P<id>\d{1,9})(?![\w]|[.,]\d)",
    re.IGNORECASE,
)
ENV_KEY = "customer_ids"


def customer_ids(results: Iterable[ToolResult]) -> frozenset[int]:
    """Ids of the customers the tools returned: rows of a customer list, or the one summarised."""
    return frozenset().union(*(_ids(result.tool, result.content) for result in results))


@lru_cache(maxsize=4096)
def _ids(tool: str, content: str) -> frozenset[int]:
    """Cached like the charts: stored tool results are read again on every reload."""
    try:
        data = json.loads(content)
    except ValueError:
        return frozenset()
    if not isinstance(data, dict):
        return frozenset()
    rows = [data] if tool == "get_customer_summary" else data.get("customers")
    if not isinstance(rows, list):  # sales_summary's "customers" is a count, not a list
        return frozenset()
    return frozenset(row["id"] for row in rows if isinstance(row, dict) and isinstance(row.get("id"), int))


def _link(href: str, text: str) -> list[Token]:
    opening = Token("link_open", "a", 1, attrs={"href": href, "class": "customer-link"})
    return [opening, Token("text", "", 0, content=text), Token("link_close", "a", -1)]


def _linked(token: Token, known: frozenset[int]) -> list[Token]:
    """The text token split into text and links; the token itself when it mentions no customer."""
    pieces: list[Token] = []
    text, start = token.content, 0
    for match in _MENTION.finditer(text):
        number = int(match["id"])
        if not match["word"] and number not in known:
            continue
        if match.start() > start:
            pieces.append(Token("text", "", 0, content=text[start : match.start()]))
        pieces.extend(_link(f"#customer/{number}", match[0]))
        start = match.end()
    if not pieces:
        return [token]
    if start < len(text):
        pieces.append(Token("text", "", 0, content=text[start:]))
    return pieces


def _linkify(state: StateCore) -> None:
    known: frozenset[int] = state.env.get(ENV_KEY, frozenset())
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        in_link = 0
        for child in block.children:
            in_link += {"link_open": 1, "link_close": -1}.get(child.type, 0)
            children.extend(_linked(child, known) if child.type == "text" and not in_link else [child])
        block.children = children


def customer_links_plugin(md: MarkdownIt) -> None:
    """Adds the rule; ``md.render(text, {ENV_KEY: ids})`` names the ids the tools returned."""
    md.core.ruler.push("customer_links", _linkify)
