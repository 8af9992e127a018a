"""Read the figure a question asks for out of a tool result, for a model that cannot read tables.

Given the four segments' rows and "What's the average revenue per customer in the Regular
segment?", a 0.5B model answers with the Regular row's *revenue*, or another row's; asked what the
High Value segment spent, it quotes a customer's revenue from further down (``bench/eval_assistant.py``).
The lookup itself is mechanical: the row is the one whose name the question says ("Regular", "Germany",
a product, a month), the column the one whose words the question uses ("revenue per customer"), or
their synonyms in the lexicon (``lexicon``: "spend" for ``revenue`` in the retail app's); for "which
month was the strongest?" it is the row that leads that column (when the question names none, the
result's own ranking key ``by``, else the rows' first figure). :func:`focus` does it; the rendered
result opens with the line ("Regular: revenue per customer 530.48"), which the model copies like it
copies a headline, and an answer that does not state it is replaced by it (``tool_turns``).

Nothing is computed but a maximum: the line holds values of the result as they are, so the
grounding check and the figures the model may state are unchanged. When no row or no column is
clearly asked for there is no line, and the model reads the result as before.
"""

from __future__ import annotations

import calendar
import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .lexicon import NEUTRAL, Lexicon
from .tool_ranking import normalized, stem, words
from .tool_results import asks_for_every_row, figures, requested_count, row_kinds, scalar_text

# Field names that are labels or bookkeeping, never the figure asked for.
_NOT_FIGURES = frozenset({"id", "code", "offset", "month", "year", "limit"})
_OVERALL = frozenset({"all", "overall", "total", "totals", "summary"})
"""Keys of a nested object that sums up the whole result: its figures need no name in the question."""
_HIGH_WORDS = r"\b(?:most|highest|best|strongest|biggest|largest|greatest|top|peak|max(?:imum)?)\b"
_LOW_WORDS = r"\b(?:least|lowest|worst|weakest|smallest|fewest|min(?:imum)?)\b"
_HIGHEST = re.compile(_HIGH_WORDS, re.IGNORECASE)
_LOWEST = re.compile(_LOW_WORDS, re.IGNORECASE)
_SUPERLATIVE = f"(?:{_HIGH_WORDS}|{_LOW_WORDS})"
_HOW_MANY = re.compile(r"\bhow (?:many|much)\s+([a-z]+)", re.IGNORECASE)
_WHICH = re.compile(r"\b(?:which|who|whose|where|when)\b", re.IGNORECASE)
_YES_NO = re.compile(
    r"^\s*(?:is|are|was|were|does|do|did|has|have|had|can|could|will|would)\b", re.IGNORECASE
)
_TITLE_RUN = re.compile(r"(?<=\w )[A-Z][a-z]+(?: [A-Z][a-z]+)*")
_YEAR = re.compile(r" (?:19|20)\d\d ")
_MONTHS = {i: (calendar.month_name[i].lower(), calendar.month_abbr[i].lower()) for i in range(1, 13)}


@dataclass(frozen=True)
class Focus:
    """What a question asks of one tool result: figures of a named row (``label``; "" for the
    result's totals), or with ``extreme`` ("highest"/"lowest") the row that leads a column."""

    label: str
    figures: tuple[str, ...]  # "revenue per customer 530.48", as the rendered result writes them
    extreme: str = ""
    attribute: bool = False
    """The figure is a name (``segment Regular``), not a number."""
    key: str = ""
    """With ``extreme``: the leading row's own name or id, which an answer may state alone
    ("20017" for the label "customer 20017")."""

    @property
    def line(self) -> str:
        if self.extreme:
            return f"{self.extreme} by {self.figures[0].rsplit(' ', 1)[0]}: {self.label} ({self.figures[0]})"
        return (f"{self.label}: " if self.label else "") + ", ".join(self.figures)

    def stated_in(self, answer: str) -> bool:
        """Whether an answer gives it: the leading row's name, one of the asked figures, or the
        asked attribute's value ("Regular")."""
        said = normalized(answer)
        if self.extreme:
            return _names(self.label, said) or normalized(self.key) in said
        if self.attribute:
            return normalized(self.figures[0].split(" ", 1)[1]) in said
        return any(figures(figure) & figures(answer) for figure in self.figures)


def focus(
    question: str,
    content: str,
    context: str = "",
    names: Mapping[str, Sequence[str]] | None = None,
    lexicon: Lexicon = NEUTRAL,
) -> Focus | None:
    """What ``question`` asks of ``content`` (a tool's JSON result), or None.

    ``context`` (the previous question) supplies the column when ``question`` names none, as in a
    follow-up ("And for the Regular segment?"). ``names``: the values the tools know per parameter
    (``segment``: High Value, Regular…), so "Is customer 7 High Value?" asks for the ``segment``.
    ``lexicon``: the synonyms by which a question names a column.
    """
    try:
        data = json.loads(content)
    except (ValueError, TypeError):
        return None
    if not isinstance(data, dict):
        return None
    attribute = _attribute(question, data, names or {})
    if attribute is not None:
        return attribute
    if _figure_count(data) < 3 or _YES_NO.match(question) or asks_for_every_row(question, row_kinds(data)):
        return None  # nothing to look up; yes or no; "for each month": a list, not one figure
    if _HIGHEST.search(question):
        return _leader(question, context, data, "highest", lexicon)
    if _LOWEST.search(question):
        return _leader(question, context, data, "lowest", lexicon)
    if _WHICH.search(question):
        return None  # "which country is customer 7 in?": the answer is a name, not a figure
    said = normalized(question)
    for asked in (question, context):
        if not asked:
            continue
        # A row the question names beats the result's totals; then the better-matched column.
        found: list[tuple[tuple[bool, int, float], str, list[tuple[str, Any]]]] = []
        for label, record in _records(data):
            if label and not _names(label, said):
                continue
            if not label and _dated(said) and not _dated(normalized(json.dumps(data.get("filters")))):
                continue  # "revenue in April" is not the all-time total of a result about no period
            scored = _columns(asked, label, record, lexicon)
            if scored:
                found.append(((bool(label), *scored[0]), label, scored[1]))
        if found:
            found.sort(key=lambda item: item[0], reverse=True)
            if len(found) > 1 and found[0][0] == found[1][0] and found[0][1] != found[1][1]:
                return None  # two rows fit as well ("April" in two years): not for us to choose
            _, label, fields = found[0]
            return Focus(label, tuple(_figure(key, value) for key, value in fields))
    return None


def _attribute(question: str, data: Mapping[str, Any], names: Mapping[str, Sequence[str]]) -> Focus | None:
    """A name the result states about its one subject that the question asks for: by the field's
    own word ("Which segment would they be in?", "…country is customer 7 based in?") or by naming
    one of its possible values ("Is customer 7 High Value?" -> the ``segment``, whatever it is)."""
    said = normalized(question)
    asked = set(words(question))
    for key, value in data.items():
        if not isinstance(value, str) or key in {"headline", "reason", "as_of"}:
            continue
        choices = names.get(key, ())
        named = set(words(key))
        if (named and named <= asked) or any(normalized(str(c)) in said for c in choices):
            return Focus("", (f"{key.replace('_', ' ')} {value}",), attribute=True)
    return None


def _leader(
    question: str, context: str, data: Mapping[str, Any], extreme: str, lexicon: Lexicon
) -> Focus | None:
    """The row that leads the column the question (or the result's own ranking key) names."""
    listed = next(
        (
            (key, v)
            for key, v in data.items()
            if isinstance(v, list) and len(v) > 1 and all(isinstance(r, Mapping) for r in v)
        ),
        None,
    )
    if listed is None or requested_count(question) > 1:
        return None  # "the top 5 customers": a list, not one leader
    kind, rows = listed
    if set(words(kind)).isdisjoint(words(f"{question} {context}")):
        return None  # the question is not about these rows ("most recent purchase" vs top_products)
    if re.search(rf"{_SUPERLATIVE}[\w\s-]{{0,16}}?\b{re.escape(kind)}\b", question, re.IGNORECASE):
        return None  # "our best-selling products": several are asked for
    scored = _columns(question, "", rows[0], lexicon) or (
        _columns(context, "", rows[0], lexicon) if context else None
    )
    column = scored[1][0][0] if scored else _ranked_by(data, rows[0])
    if column is None or not all(isinstance(r.get(column), int | float) for r in rows):
        return None
    pick = max if extreme == "highest" else min
    row = pick(rows, key=lambda r: r[column])
    name_key, name = next(iter(row.items()))
    # A row named by a bare id is called by what the rows are: "customers" -> "customer 20017".
    label = f"{stem(kind.lower())} {name}" if name_key == "id" else str(name)
    return Focus(label, (_figure(column, row[column]),), extreme, key=str(name))


def _ranked_by(data: Mapping[str, Any], row: Mapping[str, Any]) -> str | None:
    """The column a ranking is by when the question names none: the result's own ``by``, else the
    rows' first figure (a table leads with its main one)."""
    by = data.get("by")
    if isinstance(by, str) and by in row:
        return by
    return next(
        (
            k
            for k, v in row.items()
            if isinstance(v, int | float) and not isinstance(v, bool) and not _bookkeeping(k)
        ),
        None,
    )


def _bookkeeping(key: str) -> bool:
    return key in _NOT_FIGURES or key.endswith("_id")


def _records(data: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(label, fields) of the result: its top level (label ""), each row of its lists (labelled by
    their names: segment, country, product, month, id) and each nested object (by its key)."""
    yield "", data
    for key, value in data.items():
        if isinstance(value, list):
            for row in value:
                if isinstance(row, Mapping):
                    yield _label(row), row
        elif isinstance(value, Mapping) and key != "filters":
            yield ("" if key in _OVERALL else key), value


def _dated(text: str) -> bool:
    """Whether normalised text names a period: a year or a month."""
    return bool(_YEAR.search(text)) or any(f" {name} " in text for pair in _MONTHS.values() for name in pair)


def _figure_count(value: Any) -> int:
    if isinstance(value, Mapping):
        return sum(_figure_count(v) for v in value.values())
    if isinstance(value, list):
        return sum(_figure_count(v) for v in value)
    return int(isinstance(value, int | float) and not isinstance(value, bool))


def _label(row: Mapping[str, Any]) -> str:
    parts = [str(v) for k, v in row.items() if isinstance(v, str) and k not in {"reason"}]
    parts += [str(v) for k, v in row.items() if k == "id" or k.endswith("_id")]
    return " ".join(parts)


def _names(label: str, said: str) -> bool:
    """Whether the question names the row: one of its names as whole words, or its month (with its
    year, or without any year)."""
    for part in label.split(" "):
        if len(part) == 7 and part[4] == "-" and part[:4].isdigit() and part[5:].isdigit():
            year, month = part[:4], int(part[5:])
            dated = year in said or not _YEAR.search(said)
            if dated and any(f" {name} " in said for name in _MONTHS[month]):
                return True
    return normalized(label) in said if len(label) > 2 else False


def _columns(
    asked: str, label: str, record: Mapping[str, Any], lexicon: Lexicon
) -> tuple[tuple[int, float], list[tuple[str, Any]]] | None:
    """The record's figures that ``asked`` names best, in its words or their synonyms, with their
    score (words matched, share of the field's words matched); None when it names none of them."""
    # Names are not column words: "the High Value segment" asks nothing of ``avg_order_value``.
    said = lexicon.alike(
        set(words(asked)) - set(words(label)) - set(words(" ".join(_TITLE_RUN.findall(asked))))
    )
    # "How many days since …": the noun after "how many" names the column outright.
    counted = {stem(m.lower()) for m in _HOW_MANY.findall(asked)}
    ranked: list[tuple[tuple[int, float], str]] = []
    for key, value in record.items():
        if _bookkeeping(key) or isinstance(value, bool):
            continue
        if not isinstance(value, int | float):
            continue
        field_words = words(key)
        matched = sum(w in said for w in field_words) + 2 * len(counted & set(field_words))
        if matched:
            ranked.append(((matched, matched / len(field_words)), key))
    if not ranked:
        return None
    top = max(score for score, _ in ranked)
    return top, [(key, record[key]) for score, key in ranked if score == top]


def _figure(key: str, value: float) -> str:
    return f"{key.replace('_', ' ')} {scalar_text(key, value)}"
