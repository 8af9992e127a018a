"""The words of one domain that the guided tool pipeline needs, handed in by whoever starts the server.

The server is a generic OpenAI-compatible engine: any client's tools work, and no module of the
pipeline lists what they are about. A small model still needs words to be guided: the words people
use for a tool's choices and a result's fields ("spend" for ``revenue``), the words that label an id
("client 123" is a customer's id, not a transaction's), and a greeting that says what can be asked.
They come from two places (docs/architecture.md#grounded-tool-turns):

* the tools' own metadata, read for every distinct tool list (:meth:`Lexicon.for_tools`): each
  ``<kind>_id`` parameter is a kind of id labelled by its own word, an enum's description may gloss
  its choices as ``choice = word, word; …``, and the words of the tools' names, parameter names and
  descriptions name the domain's kinds of thing (no claim when an answer capitalises them);
* a :class:`Lexicon` for the rest, handed to ``create_app`` by whoever starts the model, beside its
  guide (the retail app's is ``mcp_server.lexicon.RETAIL``). The default, :data:`NEUTRAL`, holds no
  domain's words: a greeting is then answered by the model, without tools.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from .tool_ranking import words

ARITHMETIC = (
    ("avg", "average", "mean", "typical"),
    ("share", "percent", "percentage", "proportion", "fraction"),
)
"""Synonyms of arithmetic rather than of a domain ("the average …" asks for an ``avg_…`` field):
part of every lexicon."""

_ID_WORDS = ("id", "no.", "no", "number")
"""Words that label an id of no particular kind ("id 7", "no. 7"): it may fill any id parameter."""
_GLOSS = re.compile(r"([A-Za-z_]\w*)\s*=\s*([^;.]+)")
_LOWER_WORD = re.compile(r"(?<![\w'-])[a-z][a-z0-9_]+")


@dataclass(frozen=True)
class Lexicon:
    """A domain's words; :meth:`for_tools` adds what one tool list says about itself."""

    greeting: str | None = None
    """The reply to "hi", saying what can be asked; ``None``: the model greets, without tools."""
    synonyms: tuple[tuple[str, ...], ...] = ()
    """Groups of words or phrases that mean the same here, each led by the word the tools use:
    ``("revenue", "spend", "turnover")``. A phrase counts when all its words are said."""
    id_kinds: Mapping[str, str] = field(default_factory=dict)
    """A word that labels an id -> the kind of id it is (``"client": "customer"``): "client 123"
    fills a ``customer_id``, never a ``transaction_id``."""
    terms: frozenset[str] = frozenset()
    """Stemmed words that name the domain's kinds of thing (customer, segment), not one thing: an
    answer that capitalises them claims nothing."""

    def for_tools(self, tools: Sequence[Mapping[str, Any]]) -> Lexicon:
        """This lexicon with the words one tool list gives: a kind of id per ``<kind>_id``
        parameter, a group per glossed enum choice, and the terms of names and descriptions (their
        lower-case words: capitalised ones are names, like enum values, which are left out)."""
        groups = list(self.synonyms)
        kinds = dict(self.id_kinds)
        terms = set(self.terms)
        for tool in tools:
            function = tool.get("function") or {}
            terms.update(words(str(function.get("name") or "").replace("-", " ")))
            terms.update(_lower_words(str(function.get("description") or "")))
            for name, spec in _properties(function.get("parameters")):
                terms.update(words(name))
                terms.update(_lower_words(str(spec.get("description") or "")))
                if name.endswith("_id"):
                    kind = name.removesuffix("_id").replace("_", " ")
                    kinds.setdefault(kind, kind)
                groups += _glossed(spec)
        return replace(self, synonyms=tuple(groups), id_kinds=kinds, terms=frozenset(terms))

    def alike(self, said: Iterable[str]) -> set[str]:
        """Stemmed ``said`` and the words of every group one of whose members it says: "spend"
        finds the ``revenue`` field, "AOV" the ``avg_order_value`` one."""
        found = set(said)
        for members, every_word in self._groups:
            if any(member <= found for member in members):
                found |= every_word
        return found

    def meanings(self, said: Iterable[str]) -> list[frozenset[str]]:
        """Stemmed ``said`` and every phrase of a group that has it as a member: "aov" means
        {"average", "order", "value"} too. Unlike :meth:`alike`, a phrase counts only whole: a
        text about "orders" does not mention the average order value."""
        own = frozenset(said)
        found = [own] if own else []
        for members, _ in self._groups:
            if own in members:
                found += [member for member in members if member != own]
        return found

    def describes(self, choice: str, said: set[str]) -> bool:
        """Whether stemmed ``said`` describes an enum choice without naming it: its own words
        ("orders" for ``orders``), or a member of its group ("best sellers" for ``quantity``)."""
        own = frozenset(words(choice))
        if own and own <= said:
            return True
        return any(
            own in members and any(member <= said for member in members) for members, _ in self._groups
        )

    def id_kind(self, label: str) -> str:
        """The kind of id a label word names ("" for a plain "id" or "number": any kind)."""
        label = label.lower().rstrip(".")
        return "" if label in _ID_WORDS else self.id_kinds.get(label, label)

    @cached_property
    def id_label(self) -> re.Pattern[str]:
        """A label word right before an id ("customer 123", "invoice #7", "no. 7"), as group 1."""
        labels = sorted({*self.id_kinds, *self.id_kinds.values(), "id", "number"}, key=len, reverse=True)
        alternatives = "|".join([*(re.escape(label).replace(r"\ ", r"\s+") for label in labels), r"no\.?"])
        return re.compile(rf"\b({alternatives})\s*#?\s*$", re.IGNORECASE)

    @cached_property
    def _groups(self) -> tuple[tuple[tuple[frozenset[str], ...], frozenset[str]], ...]:
        """Each group as its members' stemmed words, and all of them together."""
        built = []
        for group in (*ARITHMETIC, *self.synonyms):
            members = tuple(m for m in (frozenset(words(phrase)) for phrase in group) if m)
            if members:
                built.append((members, frozenset(w for member in members for w in member)))
        return tuple(built)


NEUTRAL = Lexicon()
"""No domain's words: what a client's tools say about themselves is all the pipeline reads."""


def _properties(parameters: Any) -> Iterator[tuple[str, Mapping[str, Any]]]:
    properties = (parameters or {}).get("properties") if isinstance(parameters, Mapping) else None
    for name, spec in (properties or {}).items():
        if isinstance(spec, Mapping):
            yield str(name), spec


def _lower_words(text: str) -> list[str]:
    return words(" ".join(_LOWER_WORD.findall(text)))


def _glossed(spec: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """``measure``'s "revenue = sales, turnover; orders = invoices" as groups of the enum's own
    choices, or of its items' (a list of metrics); a gloss of anything else is prose."""
    items = spec.get("items")
    options = [
        spec,
        *spec.get("anyOf", ()),
        *([items, *items.get("anyOf", ())] if isinstance(items, dict) else []),
    ]
    choices = {str(c) for option in options for c in option.get("enum", ())}
    found: list[tuple[str, ...]] = []
    for choice, glosses in _GLOSS.findall(str(spec.get("description") or "")):
        if choice in choices:
            found.append((choice, *(g.strip() for g in glosses.split(",") if g.strip())))
    return found
