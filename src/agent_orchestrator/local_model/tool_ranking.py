"""Rank the offered tools against the question, so a small model chooses among a few relevant ones.

A 0.5B model offered eleven tools picks by position (the first one, or the alphabetically first) and
pays for every schema in prefill time. BM25+ (never negative, unlike plain Okapi BM25 on a handful
of documents that share most words) over each tool's name, description, parameter names and
enum values puts the two or three tools that share the question's words first; the policy offers only
those. BM25+ (``rank_bm25``) rather than embeddings: no model download, microseconds per question, and
a question to a tool mostly names what it wants in the tool's own words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from rank_bm25 import BM25Plus

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(
    re.findall(
        r"\S+",
        "a an and are as at be by can could did do does for from give had has have i in is it its "
        "me my of on or our please show the their them there these they this to us was we were what "
        "which who whom with you your tell list get ",
    ),
)


# English forms the suffix rules below miss: irregular pasts, -ed forms, one compound.
_IRREGULAR = {
    "spent": "spend",
    "bought": "buy",
    "sold": "sell",
    "ordered": "order",
    "purchased": "purchase",
    "bestselling": "best",
}


def stem(word: str) -> str:
    """Crude English stemming: enough that a plural meets its singular and "spent" meets "spend"."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]  # "targeting" -> "target", "focusing" -> "focus"
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def normalized(text: str) -> str:
    """Lower-case words and digits separated by single spaces, padded with a space at each end, so
    that ``normalized(name) in normalized(text)`` finds whole words ("at risk" in "the at risk team")."""
    return " " + " ".join(_WORD.findall(text.lower())) + " " if text else ""


def words(text: str) -> list[str]:
    """Lower-cased, stemmed words without stop words; snake_case and kebab-case split."""
    return [stem(w) for w in _WORD.findall(text.replace("_", " ").lower()) if w not in _STOP]


def _schema_words(schema: Any, *, enums: bool) -> Iterable[str]:
    if isinstance(schema, Mapping):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, Mapping):
                for name, sub in value.items():
                    yield name
                    yield from _schema_words(sub, enums=enums)
            elif key == "description" or (key == "enum" and enums):
                yield from (str(v) for v in (value if isinstance(value, list) else [value]))
            elif isinstance(value, Mapping | list):
                yield from _schema_words(value, enums=enums)
    elif isinstance(schema, list):
        for item in schema:
            yield from _schema_words(item, enums=enums)


def tool_document(tool: Mapping[str, Any], *, enums: bool = False) -> list[str]:
    """The words BM25 ranks a tool by: its name and description (twice: they say what it is for)
    and its parameters. Enum values (two dozen names) are left out: every tool with the same filter
    would match every one of them; which tool takes a named value is ``tool_arguments``' job."""
    fn = tool["function"]
    short_name = str(fn["name"]).rsplit("-", 1)[-1]  # "<server>-<tool>" -> "<tool>" (the runtime's prefix)
    description = str(fn.get("description", ""))
    parts = [
        short_name,
        short_name,
        description,
        description,
        *_schema_words(fn.get("parameters"), enums=enums),
    ]
    return words(" ".join(parts))


class ToolRanker:
    """BM25 over one tool list; build once per distinct list (the runtime sends the same one each time)."""

    def __init__(self, tools: Sequence[Mapping[str, Any]]) -> None:
        self.tools = list(tools)
        self._index = BM25Plus([tool_document(t) for t in self.tools])
        self.vocabulary = frozenset(word for t in self.tools for word in tool_document(t, enums=True))

    def covers(self, question: str) -> bool:
        """Whether the question uses any word of the tools' own vocabulary (a data question)."""
        return not self.vocabulary.isdisjoint(words(question))

    def scores(self, question: str) -> list[float]:
        query = words(question)
        if not query:
            return [0.0] * len(self.tools)
        return [float(s) for s in self._index.get_scores(query)]

    def rank(self, question: str, context: str = "") -> list[tuple[float, Mapping[str, Any]]]:
        """Tools by relevance to ``question`` (``context``, e.g. the previous question, counts half)."""
        main = self.scores(question)
        extra = self.scores(context) if context else [0.0] * len(self.tools)
        scored = [(m + 0.5 * c, i) for i, (m, c) in enumerate(zip(main, extra, strict=True))]
        scored.sort(key=lambda pair: (-pair[0], pair[1]))
        return [(score, self.tools[i]) for score, i in scored]
