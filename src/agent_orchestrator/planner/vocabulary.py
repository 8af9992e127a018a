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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

# Up to a line's end: the Copilot runtime appends a schema's constraints to its description on lines
# of their own ("…; aliases: uk = United Kingdom\n\n{maxItems: 12}").
_PAIR = re.compile(r"([A-Za-z_]+)\s*=\s*([^;\n]+?)\.?(?=;|\n|\.\s|$)")
_ALIASES = re.compile(r"aliases:\s*([^\n]+)", re.IGNORECASE)
_ALIAS = re.compile(r"([^;=]+?)\s*=\s*([^;\n]+?)\.?(?=;|$)")
"""One ``spelling = stored name`` of an aliases list; a spelling may have spaces ("great britain")."""
_NOT_IN_DATA = re.compile(r"Not in the data:\s*([^.]+)", re.IGNORECASE)


def either(phrases: Iterable[str]) -> str:
    """A regex alternation of the phrases, the longest first: "leaving out" before "leaving"."""
    return "|".join(map(re.escape, sorted(phrases, key=len, reverse=True)))


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
    free_list: bool = False
    """``free_text`` takes several names (an array of strings): "postage and manual"."""
    free_dimension: str | None = None
    """The ``group_by`` choice whose rows are things ``free_text`` names (``product`` for
    ``products``): "which one sells best?" of the products named ranks them."""
    not_in_data: list[str] = field(default_factory=list)
    """Subjects the tool says the data does not hold (profit, weather…)."""
    cues: dict[str, list[str]] = field(default_factory=dict)
    """Per exclusion list or flag: the words that ask for it, from the parenthesis of its
    description ("Leave out these countries (apart from, excluding, outside)")."""
    left_out: dict[str, list[str]] = field(default_factory=dict)
    """Per exclusion flag: the things it leaves out, asked for after any exclusion cue ("not counting
    the returns"), from ``left out: …`` in the parenthesis of its description."""
    ids: dict[str, str] = field(default_factory=dict)
    """Word that labels an id -> its integer parameter (customer -> customer_id)."""
    id_verbs: dict[str, list[str]] = field(default_factory=dict)
    """Per id parameter: the verbs whose subject a bare number is such an id ("how much has 20017
    spent?"), from the parenthesis of its description."""
    enums: dict[str, list[str]] = field(default_factory=dict)
    """Per choice parameter, its choices."""
    parameters: frozenset[str] = frozenset()
    """Every parameter's name: a reading fills only what the tool takes."""
    _words: frozenset[str] | None = field(default=None, repr=False, compare=False)
    _leaving: str | None = field(default=None, repr=False, compare=False)

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
                vocabulary.enums[name] = [str(c) for c in prop["enum"]]
                vocabulary.terms[name] = _terms(words, vocabulary.enums[name])
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
                phrases, _, things = cue[1].partition("left out:")
                vocabulary.cues[name] = [w.strip(" ;").lower() for w in phrases.split(",") if w.strip(" ;")]
                if things:
                    vocabulary.left_out[name] = [w.strip().lower() for w in things.split(",") if w.strip()]
            if prop.get("type") == "integer" and name.endswith("_id") and not name.startswith("exclude_"):
                vocabulary.ids[name.removesuffix("_id").replace("_", " ")] = name
                if verbs := re.search(r"\(([^)]*)\)", text):
                    said = verbs[1].rpartition(":")[2]  # "(a number is one before: spent, bought)"
                    vocabulary.id_verbs[name] = [w.strip().lower() for w in said.split(",") if w.strip()]
            named = prop.get("type") == "string" and not prop.get("enum")
            listed = prop.get("type") == "array" and items.get("type") == "string" and not items.get("enum")
            if (
                (named or listed)
                and vocabulary.free_text is None
                and name != "period"
                and not name.startswith("exclude_")
            ):
                vocabulary.free_text, vocabulary.free_list = name, listed
        if vocabulary.free_text is not None:
            dimensions = set(vocabulary.choices("group_by").values())
            singular = re.sub(r"s$", "", vocabulary.free_text)
            vocabulary.free_dimension = next(
                (d for d in (vocabulary.free_text, singular) if d in dimensions), None
            )
        for kind, parameter in list(vocabulary.ids.items()):  # "cust 21578", "client 21578": the kind's words
            for word, dimension in vocabulary.choices("group_by").items():
                if dimension == kind and word.isalpha() and not word.endswith("s") and word != "who":
                    vocabulary.ids.setdefault(word, parameter)
        return vocabulary

    def free_value(self, names: list[str]) -> str | list[str]:
        """Names as the free-text parameter takes them: the list, or the one name."""
        return names if self.free_list else names[0]

    def free_names(self, arguments: Mapping[str, Any], parameter: str | None = None) -> list[str]:
        """The names a reading gives the free-text parameter (or its exclusion twin), in either form."""
        value = arguments.get(parameter or self.free_text or "")
        if isinstance(value, str):
            return [value]
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    def leaving(self) -> str:
        """Every exclusion list's cues as one alternation ("apart from|excluding|…"): the words that
        leave a name out, whichever list the name is of (not a flag's own phrases)."""
        if self._leaving is None:
            self._leaving = either(
                {
                    c
                    for p, cues in self.cues.items()
                    if p.startswith("exclude_") and p not in self.left_out
                    for c in cues
                }
            )
        return self._leaving

    def choices(self, parameter: str) -> dict[str, str]:
        return self.terms.get(parameter, {})

    def words(self) -> frozenset[str]:
        """Every word of the tool's choices and cues: what a question says to the tool, never a name."""
        if self._words is None:
            phrases = [t for terms in self.terms.values() for t in terms]
            phrases += [c for cues in self.cues.values() for c in cues]
            phrases += [t for things in self.left_out.values() for t in things]
            phrases += [v for verbs in self.id_verbs.values() for v in verbs]
            self._words = frozenset(w for p in phrases for w in p.split())
        return self._words
