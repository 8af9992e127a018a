"""A condition on every period of each group: "which products made a profit every month?", "states
that didn't have a single loss-making month this year", "customers who ordered every week".

The groups' figure is tested period by period (``Filter.each``), not over the whole window: a state
that made a profit over the year may have lost money in March. Only a question that asks for groups
and says what each period must have is read so; "sales every month" is the monthly series it always
was (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_orchestrator.semantic import Kind, Role, SemanticModel, Vocabulary
from agent_orchestrator.semantic.query import MAX_ROWS

_GRAINS = ("day", "week", "month", "quarter", "year")
_GRAIN = "|".join(_GRAINS)
_EVERY = re.compile(
    rf"\b(?:in\s+|for\s+|during\s+)?(?:every|each)\s+(?:single\s+)?(?:(?:calendar|trading)\s+)?(?P<grain>{_GRAIN})\b"
    rf"|\b(?:in\s+|for\s+)?all\s+(?:\d+\s+|the\s+)?(?P<grains>{_GRAIN})s\b"
)
"""Every period of a grain: "every month", "each single week", "in all 12 months"."""
_NO_LOSS = re.compile(
    r"\b(?:no\s+|(?:not|never)\s+(?:(?:have|had|has|having)\s+)?(?:a|one|any)\s+(?:single\s+)?"
    r"|without\s+(?:a|any)\s+(?:single\s+)?|zero\s+)"
    rf"(?:loss[- ]?making|losing|unprofitable|negative[- ]profit|red)\s+(?P<grain>{_GRAIN})s?\b"
)
"""No period at a loss: "no loss-making months", "not a single losing week"."""
_NEVER_OVER = re.compile(
    r"\b(?:never|not|no)\s+(?:(?:had|have|has|having|hit|hits|saw|see|seen|posted|did|do|does)\s+)?"
    rf"(?:(?:a|one|any)\s+)?(?:single\s+)?(?P<grain>{_GRAIN})s?\s+(?:with\s+|of\s+)?(?:sales\s+|revenue\s+)?"
    r"(?P<op>over|above|more\s+than|under|below|less\s+than)\s+\$?(?P<number>\d+(?:\.\d+)?)\b"
)
"""No period past an amount: "never had a single week over $2M" (every week at most 2M)."""
_NEVER_PAST = {
    "over": "le",
    "above": "le",
    "more than": "le",
    "under": "ge",
    "below": "ge",
    "less than": "ge",
}
_HAD = re.compile(
    r"\b(?:sold|sell|sells|bought|buy|buys|ordered|order|orders|purchased|had|have|has|made|make|makes|"
    r"turned|profitable|shopped|traded|above|over|below|under|more|less|at\s+least|positive|in\s+the\s+black)\b"
)
"""What a period must have had, said: a sale, an order, a profit, a figure's range."""
_RANKED = re.compile(
    r"\b(?:most|highest|top|best|biggest|largest|least|lowest|worst|fewest|smallest|leading)\b"
)
_PROFIT = re.compile(
    r"\b(?:made|make|makes|turned|turn|turns)\s+(?:a\s+)?profit\b|\b(?:was|were|is|are|stayed|been)\s+profitable\b"
    r"|\bin\s+the\s+black\b"
)
"""A profit made (of a period): a profit above 0."""


@dataclass(frozen=True)
class EveryPeriod:
    """The grain each period is of, and the range asked of each when the question says it."""

    grain: str
    rule: dict[str, Any] | None = None


def every_period(text: str, model: SemanticModel, vocabulary: Vocabulary) -> tuple[str, EveryPeriod | None]:
    """``text`` without its "every month" when it asks for the groups whose every period passes a
    condition, and that condition's grain (and range, when the words say one the reading would not:
    no loss-making month, a profit made)."""
    never = _NEVER_OVER.search(text)
    said = never or _NO_LOSS.search(text) or _EVERY.search(text)
    if said is None or model.time is None or not _asks_for_groups(text, model, vocabulary):
        return text, None
    if never is not None:
        names = [m.name for m in model.metrics]
        money = "revenue" if "revenue" in names else names[0]
        rule = {
            "metric": money,
            "op": _NEVER_PAST[" ".join(never["op"].split())],
            "values": [float(never["number"])],
        }
        return _without(text, never), EveryPeriod(never["grain"], rule)
    profit = any(m.name == "profit" for m in model.metrics)
    no_loss = _NO_LOSS.search(text) if profit else None
    if no_loss is not None:
        rule = {"metric": "profit", "op": "ge", "values": [0]}
        return _without(text, no_loss), EveryPeriod(no_loss["grain"], rule)
    every = _EVERY.search(text)
    if every is None or not _HAD.search(text) or _RANKED.search(text):
        return text, None  # "which category sold the most each year?": a ranking of each year
    grain = every["grain"] or every["grains"]
    made = _PROFIT.search(text) if profit else None
    if made is not None:
        rest = _without(text, *sorted((every, made), key=lambda m: m.start(), reverse=True))
        return rest, EveryPeriod(grain, {"metric": "profit", "op": "gt", "values": [0]})
    return _without(text, every), EveryPeriod(grain)


def each_period(args: dict[str, Any], every: EveryPeriod | None, model: SemanticModel) -> dict[str, Any]:
    """The query's ranges of a group's figure tested in every period: the one the words said, else
    the ones read (their figure above a value each month), else a figure above 0 each period."""
    if every is None or not args.get("metrics"):
        return args
    if not args.get("group_by"):  # "how many products were profitable every month?": those, counted
        counted = _counted(args["metrics"][0], model)
        if counted is None:
            return args
        args = {**args, "group_by": [{"column": counted}], "count": True}
    filters = [f for f in args.get("filters", []) if "metric" not in f or every.rule is None]
    ranged = [f for f in filters if "metric" in f]
    if every.rule is not None:
        ranged = [dict(every.rule)]
    elif not ranged:
        ranged = [{"metric": args["metrics"][0], "op": "gt", "values": [0]}]
    others = [f for f in filters if "metric" not in f]
    said = [] if args.get("count") else args["metrics"]  # a count lists the things, with the figure tested
    metrics = list(dict.fromkeys([*said, *(r["metric"] for r in ranged)]))[:6]
    each = [{**rule, "each": every.grain} for rule in ranged]
    return {**args, "metrics": metrics, "filters": [*others, *each], "limit": MAX_ROWS}


def _counted(metric: str, model: SemanticModel) -> str | None:
    """The column whose different values ``metric`` counts, if it counts some."""
    counting = model.metric(metric)
    return counting.over if counting.kind is Kind.count_distinct else None


def _asks_for_groups(text: str, model: SemanticModel, vocabulary: Vocabulary) -> bool:
    """Whether the question names a column to list or count the values of (not only a period)."""
    found = vocabulary.find(text)
    named = [*found.columns, *filter(None, (_counted(m, model) for m in found.metrics))]  # "which products"
    return any(model.column(name).role is not Role.time for name in named)


def _without(text: str, *matches: re.Match[str]) -> str:
    """``text`` less the words matched (the last first, so the others' places hold)."""
    for match in matches:
        text = f"{text[: match.start()]} {text[match.end() :]}"
    return text
