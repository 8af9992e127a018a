"""The kinds of thing a conversation about data is about, and where its messages name them.

"Which customer were we talking about?" asks for the customers the chat named, so what a customer
is, and how one is written, must come from somewhere. Not from a list of this domain's words: the
server serves any client's tools (docs/architecture.md#grounded-tool-turns). From the tools and the
chat itself:

* the tools' schemas (:class:`Kinds`): a parameter with names for values is a kind with those names
  (``countries``: France, …), a ``<kind>_id`` parameter a kind of thing with ids ("customer 20071"),
  a parameter described as taking a name or a code a kind of free names (``products``), and the
  lexicon's words for one ("client" is a customer's);
* the chat's calls and results (:class:`Finder`): the values a call was made with
  (``customer_id: 20071``, a filter on ``customer_name``), the names the results give a kind's
  fields and rows (``customer_name: "Sean Miller"``, the ``label`` of rows grouped by product), and
  the columns of the tables they returned (:func:`table_kinds`: a dataset's own ``region``);
* the calendar: days, months, quarters and years as people write them ("March 2025", "q4 2016").

A name is found in a text as the data writes it (a single capitalised word exactly, "New" not "new";
longer names and codes in any case, "raymond buch"), an id after a word for its kind, a period as
written; a name inside a longer one is the longer one's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .lexicon import Lexicon
from .tool_ranking import normalized, stem, words

Call = tuple[Mapping[str, Any], Any]
"""A call of the chat: its arguments, and its result (parsed JSON; None when not JSON or missing)."""

TIME_KINDS = frozenset({"day", "month", "quarter", "year", "period"})
"""The calendar's kinds ("period": any of them)."""
_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)"
)
_TIMES = {
    "day": re.compile(
        rf"\b(?:(?:19|20)\d\d-\d\d-\d\d|\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\.?,?\s+(?:19|20)\d\d"
        rf"|{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+(?:19|20)\d\d)\b",
        re.IGNORECASE,
    ),
    "month": re.compile(
        rf"\b(?:(?:19|20)\d\d-\d\d(?!-\d)|{_MONTHS}\.?\s+(?:of\s+)?(?:19|20)\d\d"
        r"|january|february|march|april|june|july|august|september|october|november|december)\b",
        re.IGNORECASE,
    ),
    "quarter": re.compile(
        r"\b(?:q[1-4]\s*(?:19|20)\d\d|(?:19|20)\d\d[\s-]*q[1-4]|q[1-4]"
        r"|(?:first|second|third|fourth|1st|2nd|3rd|4th|last|latest)\s+quarter(?:\s+of\s+(?:19|20)\d\d)?)\b",
        re.IGNORECASE,
    ),
    "year": re.compile(r"\b(?:19|20)\d\d\b"),
}
"""The calendar's periods as people write them: a kind of thing every chat about data may be about."""
_NOT_A_KIND = frozenset(
    {"exclude", "only", "min", "max", "id", "ids", "from", "to", "top", "name", "key", "label"}
)
_DIMENSION = re.compile(r"group|dimension|breakdown")
"""A call's parameter naming the kind its result's rows are (``group_by: "customer"``)."""
_ROW_LISTS = frozenset({"rows", "items", "results", "data", "records", "values"})
_NAME_FIELDS = frozenset({"key", "label", "name", "id", "code", "title"})
_NAMED_BY = re.compile(r"\b(?:names?|codes?|keys?|ids?)\b", re.IGNORECASE)
_ID_LIKE = re.compile(r"[A-Za-z]{0,4}[-_]?\d[\w-]*")
_ISO_DATE = re.compile(r"(?:19|20)\d\d-\d\d(?:-\d\d)?(?:T.*)?")


@dataclass(frozen=True)
class Kinds:
    """The kinds of thing a tool list names, from the schemas: a parameter with names for values
    (``countries``: France, …), one that takes an id (``customer_id``) or a name or code
    (``products``), and the words the lexicon has for one ("client" is a customer)."""

    names: Mapping[str, tuple[str, ...]]
    """kind -> the names the tools' enums give (countries, segments); empty for a kind of free names."""
    ids: frozenset[str]
    """The kinds whose things have ids ("customer 20071")."""
    labels: Mapping[str, str]
    """A word that names a kind -> the kind ("customer", "client" -> customer)."""
    lexicon: Lexicon = field(compare=False)

    @classmethod
    def of(cls, tools: Sequence[Mapping[str, Any]], lexicon: Lexicon) -> Kinds:
        names: dict[str, dict[str, None]] = {}
        ids: set[str] = set()
        entities: dict[str, str] = {}
        for tool in tools:
            properties = ((tool.get("function") or {}).get("parameters") or {}).get("properties") or {}
            for parameter, spec in properties.items():
                for column, values, entity, also in _filtered_columns(spec):
                    for word in (w for w in also if len(words(w)) == 1):  # "channel" of a Source column
                        entities.setdefault(stem(words(word)[0]), column)
                    if any(_names_a_thing(v) for v in values):
                        names.setdefault(column, {}).update(dict.fromkeys(values))
                    if entity is not None and entity != column:  # "which product…?" of a Description
                        names.setdefault(column, {})
                        entities.setdefault(entity, column)
                kind = _kind_word(str(parameter))
                if kind is None or not isinstance(spec, Mapping):
                    continue
                choices = _enum(spec)
                if any(isinstance(v, str) and _names_a_thing(v) for v in choices):
                    names.setdefault(kind, {}).update(dict.fromkeys(str(v) for v in choices))
                elif re.search(r"_ids?$", str(parameter)):
                    ids.add(kind)
                elif not choices and _NAMED_BY.search(str(spec.get("description") or "")):
                    names.setdefault(kind, {})
        known = {*names, *ids}
        labels = {kind: kind for kind in known}
        labels |= {label: kind for label, kind in lexicon.id_kinds.items() if kind in known}
        labels |= {entity: column for entity, column in entities.items() if entity not in labels}
        return cls({k: tuple(v) for k, v in names.items()}, frozenset(ids), labels, lexicon)

    def with_kinds(self, more: Iterable[str]) -> Kinds:
        """These kinds and ``more`` (the columns of the chat's own tables: :func:`table_kinds`)."""
        added = {kind: kind for kind in more if kind not in self.labels}
        return replace(self, labels={**self.labels, **added}) if added else self

    def kind(self, word: str) -> str | None:
        """The kind a field or a parameter is about, by its own word ("customers", "month")."""
        said = stem(word.lower())
        return said if said in TIME_KINDS else self.labels.get(said)

    def named(self, word: str) -> str | None:
        """The kind a word of a question names: by its own word, or by one the lexicon gives for it
        ("markets" for country, "buyers" for customer: a group led by the kind's word)."""
        said = stem(word.lower())
        found = "period" if said == "date" else self.kind(said)
        leaders = {
            leader
            for group in self.lexicon.synonyms
            if (leader := self.kind(group[0])) is not None and any(words(m) == [said] for m in group[1:])
        }
        return found or (leaders.pop() if len(leaders) == 1 else None)

    def label_words(self, kind: str) -> list[str]:
        return sorted((w for w, k in self.labels.items() if k == kind), key=len, reverse=True)


def _enum(spec: Mapping[str, Any]) -> list[Any]:
    options = [spec, *(spec.get("anyOf") or ()), spec.get("items") or {}]
    return [v for option in options if isinstance(option, Mapping) for v in option.get("enum") or ()]


def _filtered_columns(spec: Any) -> Iterator[tuple[str, list[str], str | None, list[str]]]:
    """A typed query's filters (``filters: [{"column": {"const": "region"}, "values": {"items":
    {"enum": [...]}}}, ...]``): each column a kind, its values the names ("which regions did we
    look at?" is answerable before any call filtered on one), the thing it names when the
    filter's title says (``"title": "product"`` of a Description column), and the other words its
    description gives for it (``"also: channel, sales channel"`` of a Source column)."""
    items = spec.get("items") if isinstance(spec, Mapping) else None
    for option in (items or {}).get("anyOf") or () if isinstance(items, Mapping) else ():
        properties = option.get("properties") if isinstance(option, Mapping) else None
        if not isinstance(properties, Mapping):
            continue
        column = (properties.get("column") or {}).get("const")
        values = _enum((properties.get("values") or {}).get("items") or {})
        kind = _kind_word(str(column)) if isinstance(column, str) else None
        title, described = option.get("title"), str(option.get("description") or "")
        also = (
            [w.strip() for w in described.removeprefix("also:").split(",")]
            if described.startswith("also:")
            else []
        )
        if kind is not None:
            yield kind, [str(v) for v in values], title if isinstance(title, str) else None, also


def _names_a_thing(value: str) -> bool:
    """ "France", "At Risk" name things; "revenue", "previous_period" are a tool's choices."""
    return not re.fullmatch(r"[a-z][a-z0-9_]*", value)


def _kind_parts(name: str) -> list[str]:
    return [w for w in words(name) if w not in _NOT_A_KIND]


def _kind_word(name: str) -> str | None:
    """What a parameter or a result's field is about: ``exclude_countries`` -> country,
    ``customer_id`` -> customer, ``customer_name`` -> customer."""
    parts = _kind_parts(name)
    return parts[-1] if parts else None


def _compound(name: str) -> str | None:
    """A column of several words as a kind of its own (``product_type``: "which product types"),
    beside its last word (``type``), which another column may share (``shipping_type``)."""
    parts = _kind_parts(name)
    return "_".join(parts) if len(parts) > 1 else None


class Finder:
    """Finds the things of one kind in a chat's texts and calls: by the names the tools' enums, and
    the chat's ``calls`` and results, give them; by an id after a word for the kind ("customer
    20071", "client #7"); and, for the calendar's kinds, by the periods as written."""

    def __init__(self, calls: Iterable[Call], kind: str, kinds: Kinds) -> None:
        self.kind, self.kinds = kind, kinds
        labels = kinds.label_words(kind)
        self._label = (
            re.compile(rf"(?:{'|'.join(map(re.escape, labels))})\s*#?\s*(\S+)", re.IGNORECASE)
            if labels
            else None
        )
        # a column of two words ("payment_method") has the names its last word's kind was given
        known = dict.fromkeys(kinds.names.get(kind) or kinds.names.get(_kind_word(kind) or "", ()))
        for arguments, result in calls if kind not in TIME_KINDS else ():  # the calendar's: as written
            known |= dict.fromkeys(self._canonical(n) for n in _argument_names(arguments, kind, result))
            grouped = any(
                _DIMENSION.search(str(k)) and isinstance(v, str) and kinds.kind(v) == kind
                for k, v in arguments.items()
            )
            known |= dict.fromkeys(self._canonical(n) for n in _result_names(result, kind, kinds, grouped))
        self._shown_as = {normalized(n): n for n in known if n}
        exact = [n for n in known if re.fullmatch(r"[A-Z][a-z]+", n)]  # "New", "France": as written
        loose = [n for n in known if n and not re.fullmatch(r"[A-Z][a-z]+|\d+", n)]
        self._patterns = [
            _alternatives(exact, 0),
            _alternatives(loose, re.IGNORECASE),
            re.compile(
                rf"\b(?:{'|'.join(map(re.escape, labels))})s?\s*(?:id\s*|no\.?\s*|number\s*)?#?\s*"
                rf"({_ID_LIKE.pattern})\b",
                re.IGNORECASE,
            )
            if labels
            else None,
        ]

    def in_text(self, text: str) -> list[str]:
        """The things ``text`` names, in order (a name inside a longer one is the longer one's)."""
        spans: list[tuple[int, int, str]] = []
        if self.kind in TIME_KINDS:
            for kind, pattern in _TIMES.items():
                if self.kind in (kind, "period"):
                    spans += [
                        (m.start(), m.end(), " ".join(m.group(0).split())) for m in pattern.finditer(text)
                    ]
        for names in self._patterns:
            for m in names.finditer(text) if names is not None else ():
                spans.append((m.start(), m.end(), self._shown_as.get(normalized(m.group(1)), m.group(1))))
        found: list[str] = []
        end = -1
        for start, stop, name in sorted(spans, key=lambda s: (s[0], -s[1])):
            if start >= end:
                found.append(name)
                end = stop
        return found

    def in_calls(self, calls: Iterable[Call]) -> list[str]:
        """The things ``calls`` were made for ("that customer" of their question is 20071)."""
        if self.kind in TIME_KINDS:
            return []  # periods as written ("March 2025"), not as a call encodes them ("months": 2)
        names = [
            self._canonical(n)
            for arguments, result in calls
            for n in _argument_names(arguments, self.kind, result)
        ]
        return [self._shown_as.get(normalized(n), n) for n in names if n]

    def shown(self, name: str) -> str:
        """A thing as the reply writes it: an id with its kind ("customer 20071"), a name as it is."""
        if self.kind in self.kinds.ids and _ID_LIKE.fullmatch(name):
            return f"{self.kind} {name}"
        return name

    def _canonical(self, name: str) -> str:
        """ "customer 20071" -> "20071": one thing, however a result labels it."""
        labelled = self._label.fullmatch(name.strip()) if self._label is not None else None
        return labelled.group(1) if labelled and _ID_LIKE.fullmatch(labelled.group(1)) else name.strip()


def _alternatives(names: Sequence[str], flags: int) -> re.Pattern[str] | None:
    """One pattern for whole-word ``names``, the longest first, the name as group 1; a plural counts
    ("smartphones vs laptops" names the product types Smartphone and Laptop)."""
    if not names:
        return None
    ordered = sorted(names, key=len, reverse=True)
    return re.compile(rf"(?<![\w-])({'|'.join(map(re.escape, ordered))})(?:(?<=[a-z])e?s)?(?![\w-])", flags)


def _argument_names(arguments: Mapping[str, Any], kind: str, result: Any = None) -> Iterator[str]:
    """The values of a call's parameters about ``kind`` (``countries``, ``exclude_customer_ids``),
    and of its filters on a column about it (``{"column": "customer_name", "values": […]}``, or a
    column the result says names it: ``"entities": {"description": "product"}``)."""
    named = _entities(result)
    for parameter, value in arguments.items():
        items = value if isinstance(value, list) else [value]
        if _kind_word(str(parameter)) == kind:
            yield from (
                str(i) for i in items if isinstance(i, str | int) and not isinstance(i, bool) and str(i)
            )
        for item in items:
            column = str(_filtered(item) or "") if isinstance(item, Mapping) else ""
            if isinstance(item, Mapping) and kind in (
                _kind_word(column),
                _compound(column),
                named.get(column),
            ):
                found = item.get("values", item.get("value"))
                yield from (
                    str(v) for v in (found if isinstance(found, list) else [found]) if isinstance(v, str)
                )


def _entities(result: Any) -> dict[str, str]:
    """What the columns of a call's filters name, when its result says (``query_data``'s
    ``entities``: a product's description is a product's name)."""
    found = result.get("entities") if isinstance(result, Mapping) else None
    return {str(k): str(v) for k, v in found.items()} if isinstance(found, Mapping) else {}


def _filtered(item: Mapping[str, Any]) -> str | None:
    """The column a filter of a call is on (``{"column": "region", "op": "in", "values": […]}``)."""
    column = item.get("column", item.get("field", item.get("dimension")))
    return column if isinstance(column, str) else None


def table_kinds(calls: Iterable[Call]) -> set[str]:
    """The kinds the chat's own tables and filters name: the columns of the rows its tools returned
    (``customer_name``: customer, ``region``) and the columns its calls filtered on. A dataset's
    columns are its own, so they come from the chat, not from any list of words."""
    found: set[str] = set()

    def walk(value: Any, in_rows: bool) -> None:
        if isinstance(value, list):
            for item in value:
                walk(item, True)
        elif isinstance(value, Mapping):
            if (column := _filtered(value)) is not None:
                found.update((_kind_word(column) or "", _compound(column) or ""))
            for key, item in value.items():
                if in_rows and isinstance(item, str) and _is_text_name(item):
                    found.update((_kind_word(str(key)) or "", _compound(str(key)) or ""))
                walk(item, False)

    for arguments, result in calls:
        walk(arguments, False)
        walk(result, False)
        found.update(_entities(result).values())
    return {kind for kind in found if kind and kind not in TIME_KINDS}


def _result_names(value: Any, kind: str, kinds: Kinds, grouped: bool, rows: bool = False) -> Iterator[str]:
    """The names of ``kind`` a tool result holds: a field about it (``country``, ``customer_name``),
    and the key, label or id of the rows of a list about it (``customers``; or ``rows`` of a call
    ``grouped`` by it)."""
    if isinstance(value, list):
        for item in value:
            if isinstance(item, Mapping | list):
                yield from _result_names(item, kind, kinds, grouped, rows)
            elif rows and _is_name(item, "name", kind, kinds):
                yield str(item)
        return
    if not isinstance(value, Mapping):
        return
    for key, item in value.items():
        about = kinds.kind(word) if (word := _kind_word(str(key))) else None
        if (whole := _compound(str(key))) is not None and kinds.kind(whole) == kind:
            about = kind  # "product_type" rows, asked as product types
        if isinstance(item, Mapping | list):
            inner = about == kind or (grouped and str(key) in _ROW_LISTS)
            yield from _result_names(item, kind, kinds, grouped and not inner, inner)
        elif (about == kind or (rows and str(key) in _NAME_FIELDS)) and _is_name(item, str(key), kind, kinds):
            yield str(item)


def _is_name(value: Any, key: str, kind: str, kinds: Kinds) -> bool:
    if isinstance(value, bool) or not isinstance(value, str | int):
        return False
    if isinstance(value, int):  # a count is no name: only an id is
        return kind in kinds.ids and (key in _NAME_FIELDS or key.endswith("_id"))
    return _is_text_name(value)


def _is_text_name(value: str) -> bool:
    """A short text that may name a thing: not a date, not a sentence."""
    return 0 < len(value) <= 80 and not _ISO_DATE.fullmatch(value) and bool(re.search(r"[A-Za-z0-9]", value))
