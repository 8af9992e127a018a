"""The words of a typed-query tool, read from its JSON schema: nothing about the domain is written here.

A tool is a *query tool* when its parameters include ``measure`` and ``group_by``, each an ``enum``
whose description lists the words for every choice as ``choice = word, word; choice = …``
(docs/architecture.md#answers-by-construction). Enumerated lists (``countries``, ``segments``) give
the entity names as the data stores them, and ``aliases: uk = United Kingdom`` in a description the
spellings people type. So the same reader serves the generated shop and a real imported file: only
the schema changes.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

# Up to a line's end: the Copilot runtime appends a schema's constraints to its description on lines
# of their own ("…; aliases: uk = United Kingdom\n\n{maxItems: 12}").
_PAIR = re.compile(r"([A-Za-z_]+)\s*=\s*([^;\n]+?)\.?(?=;|\n|\.\s|$)")
_ALIASES = re.compile(r"aliases:\s*([^\n]+)", re.IGNORECASE)
_ALIAS = re.compile(r"([^;=]+?)\s*=\s*([^;\n]+?)\.?(?=;|$)")
"""One ``spelling = stored name`` of an aliases list; a spelling may have spaces ("great britain")."""
_NOT_IN_DATA = re.compile(r"Not in the data:\s*([^.]+)", re.IGNORECASE)


def _terms(description: str, choices: list[str]) -> dict[str, str]:
    """``word -> choice`` from ``choice = word, word; …`` (only for the property's own choices)."""
    found: dict[str, str] = {}
    for name, words in _PAIR.findall(description):
        if name in choices:
            for word in words.split(","):
                if word.strip():
                    found.setdefault(word.strip().lower(), name)
    return found


def is_query_tool(tool: Mapping[str, Any]) -> bool:
    """A tool whose ``measure`` and ``group_by`` parameters are enums: the shape the guide reads."""
    params = ((tool.get("function") or {}).get("parameters") or {}).get("properties") or {}
    return all(
        isinstance(params.get(name), dict) and params[name].get("enum") for name in ("measure", "group_by")
    )


@dataclass
class Vocabulary:
    """What a question's words can mean for one query tool."""

    tool: str
    terms: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per choice parameter (measure, group_by, order, compare): word -> choice."""
    entities: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per list parameter (countries, segments): lower-case name or alias -> the stored name."""
    excluded_of: dict[str, str] = field(default_factory=dict)
    """Include parameter -> its exclusion twin (countries -> exclude_countries)."""
    free_text: str | None = None
    """The parameter a named thing that is not an entity goes to (a product's words)."""
    not_in_data: list[str] = field(default_factory=list)
    """Subjects the tool says the data does not hold (profit, weather…)."""
    cues: dict[str, list[str]] = field(default_factory=dict)
    """Per exclusion list or flag: the words that ask for it, from the parenthesis of its
    description ("Leave out these countries (apart from, excluding, outside)")."""
    ids: dict[str, str] = field(default_factory=dict)
    """Word that labels an id -> its integer parameter (customer -> customer_id)."""
    parameters: frozenset[str] = frozenset()
    """Every parameter's name: a reading fills only what the tool takes."""
    _words: frozenset[str] | None = field(default=None, repr=False, compare=False)

    @classmethod
    def of(cls, tool: Mapping[str, Any]) -> Vocabulary | None:
        if not is_query_tool(tool):
            return None
        function = tool.get("function") or {}
        params = (function.get("parameters") or {}).get("properties") or {}
        vocabulary = cls(str(function.get("name") or ""), parameters=frozenset(params))
        for name, prop in params.items():
            text = str(prop.get("description") or "")
            if found := _NOT_IN_DATA.search(text):
                vocabulary.not_in_data += [w.strip().lower() for w in found[1].split(",") if w.strip()]
            if prop.get("enum"):
                words = _NOT_IN_DATA.sub("", text)  # the subjects the data lacks are no choice's words
                vocabulary.terms[name] = _terms(words, [str(c) for c in prop["enum"]])
            items = prop.get("items") or {}
            if prop.get("type") == "array" and items.get("enum") and not name.startswith("exclude_"):
                names = {str(v).lower(): str(v) for v in items["enum"]}
                if aliases := _ALIASES.search(text):
                    for alias, stored in _ALIAS.findall(aliases[1].replace(",", ";")):
                        if stored.strip().lower() in names:
                            names.setdefault(alias.strip().lower(), names[stored.strip().lower()])
                vocabulary.entities[name] = names
                if f"exclude_{name}" in params:
                    vocabulary.excluded_of[name] = f"exclude_{name}"
            if (name.startswith("exclude_") or prop.get("type") == "boolean") and (
                cue := re.search(r"\(([^)]*)\)", text)
            ):
                vocabulary.cues[name] = [w.strip().lower() for w in cue[1].split(",") if w.strip()]
            if prop.get("type") == "integer" and name.endswith("_id"):
                vocabulary.ids[name.removesuffix("_id").replace("_", " ")] = name
            if (
                prop.get("type") == "string"
                and not prop.get("enum")
                and name != "period"
                and vocabulary.free_text is None
            ):
                vocabulary.free_text = name
        return vocabulary

    def choices(self, parameter: str) -> dict[str, str]:
        return self.terms.get(parameter, {})

    def words(self) -> frozenset[str]:
        """Every word of the tool's choices and cues: what a question says to the tool, never a name."""
        if self._words is None:
            phrases = [t for terms in self.terms.values() for t in terms]
            phrases += [c for cues in self.cues.values() for c in cues]
            self._words = frozenset(w for p in phrases for w in p.split())
        return self._words
