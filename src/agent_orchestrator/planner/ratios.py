"""One figure divided by another: "marketing as % of sales", "the profit-to-sales ratio", "what % of
sales was marketing?", "profit per order", and, after a figure, "as a % of sales?".

Any two of the model's plain metrics make such a ratio (:func:`ratio_name`), so no file declares
them: the reader finds the two figures the question names around its connecting words, asks their
ratio first, and shows the two beside it; the rest of the question (its period, its groups, its
ranking) is read as it would be of the first figure alone (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from agent_orchestrator.semantic import Entity, Kind, SemanticModel, Vocabulary
from agent_orchestrator.semantic.model import ADDED_UP, ratio_name

_SHARE = r"(?:%|percent(?:age)?|pct|share|proportion|fraction)"
_AS_PART = re.compile(rf"\s+(?:as|in)\s+(?:an?\s+)?{_SHARE}\s+of\s+")
"""Between the two: "marketing as a % of sales"."""
_RATIO_OF = re.compile(r"\bratio\s+(?:of|between)\s+")
"""Before the two: "the ratio of profit to sales"."""
_JOINED = re.compile(r"\s*(?:-to-|/|:)\s*|\s+(?:to|vs\.?|versus|and)\s+")
"""Between the two of a ratio: "profit to sales", "profit/sales", "profit-to-sales"."""
_RATIO_AFTER = re.compile(r"\s+ratio\b")
"""After the two: "the profit to sales ratio"."""
_WHAT_SHARE = re.compile(rf"\bwhat\s+{_SHARE}\s+of\s+")
"""Before the whole, the part after it: "what % of sales was marketing?"."""
_WAS = re.compile(
    r"\s+(?:is|was|are|were|went\s+(?:on|to|into)|goes\s+(?:on|to|into)|go\s+(?:on|to|into)"
    r"|(?:did|do|does)\s+(?:we\s+|they\s+)?(?:spend\s+on|make\s+up)|made\s+up\s+(?:by|of)|comes?\s+from"
    r"|came\s+from)\s+"
)
_PER = re.compile(r"\s+(?:per|for\s+(?:each|every))\s+")
"""An amount for each thing counted: "profit per order", "sales per customer"."""
_AVERAGED = re.compile(r"\b(?:avg|average|mean|typical)\s+(?:\S+\s+){0,3}$")
"""An average before "per" ("avg spend per transaction") is the reading's own, of each thing."""
_ALONE = re.compile(
    r"^(?:\W*(?:and|so|ok|okay|what|whats|what's|is|was|how|about|that|this|it|the|as)\b)*\W*$"
)
"""Nothing but a follow-up's words before "as a % of": the figure is the answer before's."""
_FILLERS = frozenset(("the", "our", "total", "all", "overall", "its", "their", "my", "of"))
_LONGEST = 4
"""The most words a figure is named in ("cost of goods sold")."""


@dataclass(frozen=True)
class Ratio:
    """The ratio a question asks for, and its two figures."""

    name: str
    top: str
    bottom: str


def ratio_asked(
    text: str, model: SemanticModel, vocabulary: Vocabulary, previous: dict[str, Any] | None
) -> tuple[str, Ratio | None]:
    """``text`` with a ratio of two figures said as the first figure alone, and the ratio; or
    ``text`` unchanged and None when it names no two figures around a ratio's words."""
    for read in (_part_of, _ratio_of, _what_share, _per):
        said = read(text, model, vocabulary, previous)
        if said is not None:
            return said
    return text, None


def with_ratio(metrics: list[str], ratio: Ratio | None) -> list[str]:
    """The metrics asked, with the ratio first and its two figures beside it."""
    if ratio is None:
        return metrics
    return list(dict.fromkeys([ratio.name, ratio.top, ratio.bottom, *metrics]))[:6]


def _part_of(
    text: str, model: SemanticModel, vocabulary: Vocabulary, previous: dict[str, Any] | None
) -> tuple[str, Ratio] | None:
    joint = _AS_PART.search(f" {text}")
    if joint is None:
        return None
    before, after = f" {text}"[: joint.start()], f" {text}"[joint.end() :]
    bottom = _named(after, model, vocabulary, at_end=False)
    if bottom is None:
        return None
    top = _named(before, model, vocabulary, at_end=True)
    if top is None:  # "as a % of sales?" after a figure: that figure's
        earlier = [m for m in (previous or {}).get("metrics", []) if _plain(model, m) and m != bottom[0]]
        if not earlier or not _ALONE.match(before):
            return None
        top = (earlier[0], len(before), "same")  # no figure named: the one before, its period kept
    return _made(before[: top[1]], top, bottom, after[bottom[1] :], model, percent=True)


def _ratio_of(
    text: str, model: SemanticModel, vocabulary: Vocabulary, previous: dict[str, Any] | None
) -> tuple[str, Ratio] | None:
    for joint in _JOINED.finditer(text):
        before, after = text[: joint.start()], text[joint.end() :]
        opened = _RATIO_OF.search(before)
        if opened is not None:  # "the ratio of profit to sales"
            top = _named(before[opened.end() :], model, vocabulary, at_end=True, whole=True)
            bottom = _named(after, model, vocabulary, at_end=False)
            if top is not None and bottom is not None:
                return _made(before[: opened.start()], top, bottom, after[bottom[1] :], model, percent=True)
        top = _named(before, model, vocabulary, at_end=True)
        bottom = _named(after, model, vocabulary, at_end=False)
        if top is None or bottom is None:
            continue
        closing = _RATIO_AFTER.match(after[bottom[1] :])
        if closing is not None:  # "the profit to sales ratio"
            tail = after[bottom[1] + closing.end() :]
            return _made(before[: top[1]], top, bottom, tail, model, percent=True)
    return None


def _what_share(
    text: str, model: SemanticModel, vocabulary: Vocabulary, previous: dict[str, Any] | None
) -> tuple[str, Ratio] | None:
    opened = _WHAT_SHARE.search(text)
    if opened is None:
        return None
    after = text[opened.end() :]
    bottom = _named(after, model, vocabulary, at_end=False)
    verb = _WAS.match(after[bottom[1] :]) if bottom is not None else None
    if bottom is None or verb is None:
        return None
    rest = after[bottom[1] + verb.end() :]
    top = _named(rest, model, vocabulary, at_end=False)
    if top is None or model.metric(top[0]).kind is not Kind.sum:  # "what % of orders were cancelled": a rate
        return None
    return _made(text[: opened.start()], top, bottom, rest[top[1] :], model, percent=True)


def _per(
    text: str, model: SemanticModel, vocabulary: Vocabulary, previous: dict[str, Any] | None
) -> tuple[str, Ratio] | None:
    for joint in _PER.finditer(text):
        before, after = text[: joint.start()], text[joint.end() :]
        top = _named(before, model, vocabulary, at_end=True)
        bottom = _named(after, model, vocabulary, at_end=False)
        if top is None or bottom is None or _AVERAGED.search(before[: top[1]] + " "):
            continue
        if model.metric(bottom[0]).kind not in (Kind.rows, Kind.count_distinct) or _declared(
            model, top, bottom
        ):
            continue  # "sales per month" is a grain's, "revenue per customer" a ratio the model has
        return _made(before[: top[1]], top, bottom, after[bottom[1] :], model, percent=False)
    return None


def _made(
    head: str,
    top: tuple[str, int, str],
    bottom: tuple[str, int, str],
    tail: str,
    model: SemanticModel,
    percent: bool,
) -> tuple[str, Ratio] | None:
    """The question read as its first figure alone (``head``, its words, ``tail``), and the ratio."""
    if top[0] == bottom[0]:
        return None
    name = ratio_name(top[0], bottom[0], percent)
    model.metric(name)  # both plain metrics of the model, or not a ratio it can compute
    return f"{head} {top[2]} {tail}".strip(), Ratio(name, top[0], bottom[0])


def _named(
    text: str, model: SemanticModel, vocabulary: Vocabulary, at_end: bool, whole: bool = False
) -> tuple[str, int, str] | None:
    """The one plain metric the words of ``text`` nearest the connector name, as (its name, where in
    ``text`` the words naming it start, or end when read from the start, and those words)."""
    spans = [m.span() for m in re.finditer(r"\S+", text)]
    found: tuple[str, int, str] | None = None
    for size in range(1, min(_LONGEST, len(spans)) + 1):
        start, end = (spans[-size][0], spans[-1][1]) if at_end else (spans[0][0], spans[size - 1][1])
        phrase = text[start:end]
        words = phrase.split()
        if words[-1 if at_end else 0] in _FILLERS:
            continue
        seen = vocabulary.find(phrase)
        used = {w for said in seen.used for w in said.split()}
        if not seen.metrics and seen.columns and not at_end:  # "per order": the orders counted
            seen = replace(seen, metrics=_orders_counted(model, seen.columns))
        if len(seen.metrics) != 1 or seen.mentions or not _plain(model, seen.metrics[0]):
            if found is not None:
                break
            continue
        if all(w in used or w in _FILLERS for w in words):
            found = (seen.metrics[0], start if at_end else end, phrase)
    if whole and found is not None and text[: found[1]].strip():
        return None
    return found


def _orders_counted(model: SemanticModel, columns: tuple[str, ...]) -> tuple[str, ...]:
    """The metric counting the orders, when ``columns`` is the order key alone: "profit per order" is
    an amount for each order, where "profit per state" is a state's own."""
    key = model.key_of(Entity.order)
    if key is None or columns != (key.name,):
        return ()
    return tuple(m.name for m in model.metrics if m.kind is Kind.count_distinct and m.over == key.name)[:1]


def _declared(model: SemanticModel, top: tuple[str, int, str], bottom: tuple[str, int, str]) -> bool:
    """Whether the model has the ratio of these two already (average order value)."""
    summed = model.metric(top[0]).adds_up
    return any(
        m.kind is Kind.ratio
        and m.denominator == bottom[0]
        and model.metric(str(m.numerator)).adds_up == summed
        for m in model.metrics
    )


def _plain(model: SemanticModel, name: str) -> bool:
    """Whether ``name`` is a metric a ratio can be of: the model's, a total or a count."""
    return any(m.name == name and m.kind in ADDED_UP for m in [*model.metrics, *model.counts])
