"""What a chat starts from: the active dataset said in a few lines, and questions to ask it.

An analyst facing an empty chat needs to know what is loaded (which days, how many rows, which
measures and which columns to break them down by) and what a good question looks like, as Power BI
Q&A suggests questions from the data (docs/architecture.md#the-start-screen). The suggestions are made
from the dataset's own months, columns and values, and each is kept only if the reader reads all of
it (``read_semantic``): a suggestion the assistant would not understand is never offered. A greeting
or "what can you do?" in the chat is answered with the same, briefly (``in_brief``).
"""

from __future__ import annotations

import calendar
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta

from agent_orchestrator.planner.semantic_reading import read_semantic
from agent_orchestrator.semantic import (
    Column,
    Engine,
    Entity,
    GroupBy,
    Metric,
    Role,
    SemanticModel,
    SemanticQuery,
    Vocabulary,
)
from agent_orchestrator.semantic.profile import FEW_VALUES

SHOWN = 5
"""Suggestions offered: enough to show the kinds of question, few enough to read at a glance."""

_NAMED = 6
"""Measures and columns named in the brief answer (the start screen lists them all)."""


@dataclass(frozen=True)
class StartScreen:
    """The active dataset in an analyst's words, and questions it answers."""

    dataset: str
    rows: int
    first_day: date | None
    last_day: date | None
    currency: str | None
    measures: list[str]
    dimensions: list[str]
    suggestions: list[str]

    def amounts_in_words(self) -> str:
        """What the amounts are in: said once, at the start, rather than guessed in every answer."""
        if self.currency:
            return f"Amounts are in {self.currency}."
        return (
            "No currency is set for this data, so amounts are plain numbers "
            "(an admin can set one on the Data page)."
        )

    def in_brief(self) -> str:
        """The answer to "hi, what can you do?": what is loaded and three questions to try."""
        span = ""
        if self.first_day and self.last_day:
            span = f" from {_day(self.first_day)} to {_day(self.last_day)}"
        said = f"I answer questions on the {self.dataset} data: {self.rows:,} rows{span}."
        if self.measures:
            said += f" I can compute {_some(self.measures, 'and')}"
            if self.dimensions:
                said += f", in total or by {_some(self.dimensions, 'or')}"
            said += ", for any period or compared with an earlier one."
        said += f" {self.amounts_in_words()}"
        if self.suggestions:
            said += " For example: " + " ".join(f"“{q}”" for q in self.suggestions[:3])
        return said


def start_screen(
    model: SemanticModel, engine: Engine, last_day: date | None, reads: Callable[[str], bool]
) -> StartScreen:
    """The start screen of the dataset ``engine`` reads; ``reads`` tells whether the reader reads a
    question whole (a suggestion it would not is left out)."""
    first_day, _ = engine.span()
    breakdowns = _breakdowns(model, engine)
    suggestions = [q for q in _candidates(model, engine, last_day, breakdowns) if reads(q)]
    measures = sorted((m for m in model.metrics if m.unit != "date"), key=lambda m: _UNITS.index(m.unit))
    others = [c for c in model.with_role(Role.dimension) if c not in breakdowns]
    return StartScreen(
        dataset=model.dataset,
        rows=engine.row_count(),
        first_day=first_day,
        last_day=last_day,
        currency=model.currency,
        measures=[m.title.lower() for m in measures],
        dimensions=[c.title.lower() for c in [*breakdowns, *others]],
        suggestions=list(dict.fromkeys(suggestions))[:SHOWN],
    )


_UNITS = ("money", "count", "number", "ratio", "date")
"""Measures said in this order: what the business earns first, then what it counts."""


def reads_whole(model: SemanticModel, vocabulary: Vocabulary, last_day: date | None) -> Callable[[str], bool]:
    """Whether the semantic reader reads a question whole, on this dataset."""
    return lambda question: read_semantic(question, model, vocabulary, last_day).covered


def _candidates(
    model: SemanticModel, engine: Engine, last_day: date | None, breakdowns: list[Column]
) -> Iterator[str]:
    """Questions of each kind an analyst asks (a figure for a month, a breakdown, a ranking, a
    comparison, a trend, one value's figure), in the dataset's own words, best first."""
    main = _main_metric(model)
    if main is None:
        return
    metric = main.title.lower()
    month, before = _latest_months(last_day)
    year = str(month.year) if month else None
    if month:
        yield f"What was {metric} in {_month(month)}?"
    if breakdowns and year:
        yield f"{main.title} by {breakdowns[0].title.lower()} in {year}"
    entity = next((e for e in (Entity.product, Entity.customer) if _named(model, e)), None)
    if entity is not None and year:
        yield f"Top 5 {entity.value}s by {metric} in {year}"
    if month and before:
        yield f"Compare {metric} in {_month(month)} with {_month(before)}"
    if year and model.time is not None:
        yield f"Monthly {metric} in {year}"
    counted = next((m for m in model.metrics if m.name == "orders"), None)
    if counted is not None and breakdowns and year:
        top = _top_value(engine, main.name, breakdowns[0].name)
        if top:
            yield f"How many {counted.title.lower()} were there in {top} in {year}?"
    if len(breakdowns) > 1 and year:
        yield f"Which {breakdowns[1].title.lower()} had the highest {metric} in {year}?"


def _main_metric(model: SemanticModel) -> Metric | None:
    """Revenue when the data has it, else its first money metric, else its first."""
    money = [m for m in model.metrics if m.unit == "money"]
    named = next((m for m in model.metrics if m.name == "revenue"), None)
    return named or (money[0] if money else None) or (model.metrics[0] if model.metrics else None)


def _breakdowns(model: SemanticModel, engine: Engine) -> list[Column]:
    """The dimensions a breakdown reads well by: a few values each, fewest first (the rest are
    said after them)."""
    values = engine.values(FEW_VALUES)
    few = [c for c in model.with_role(Role.dimension) if 1 < len(values.get(c.name) or []) <= FEW_VALUES]
    return sorted(few, key=lambda c: len(values[c.name]))


def _named(model: SemanticModel, entity: Entity) -> bool:
    return model.key_of(entity) is not None or model.label_of(entity) is not None


def _top_value(engine: Engine, metric: str, column: str) -> str | None:
    query = SemanticQuery(metrics=[metric], group_by=[GroupBy(column=column)], limit=1)
    rows = engine.run(query).rows
    return str(rows[0][0]) if rows and rows[0][0] is not None else None


def _latest_months(last_day: date | None) -> tuple[date | None, date | None]:
    """The latest month the data covers whole (the one before, when the last is only begun) and the
    month before it."""
    if last_day is None:
        return None, None
    month = last_day.replace(day=1)
    if last_day.day < calendar.monthrange(last_day.year, last_day.month)[1] - 3:
        month = (month - timedelta(days=1)).replace(day=1)
    return month, (month - timedelta(days=1)).replace(day=1)


def _month(day: date) -> str:
    return f"{calendar.month_name[day.month]} {day.year}"


def _day(day: date | None) -> str:
    return f"{day.day} {calendar.month_name[day.month]} {day.year}" if day else ""


def _some(words: list[str], last: str) -> str:
    """The first few of ``words`` as a sentence says them ("a, b and c", "a, b, c and more")."""
    if len(words) > _NAMED:
        return f"{', '.join(words[:_NAMED])} {last} more"
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {last} {words[-1]}"
