"""Whether one measure goes with another: "does temperature have any relationship with sales?", "is
fuel price correlated with sales at all". A file whose rows are a period's figures has a correlation
metric of each measure with the rows' amount (``suggest._spread``); the question names the measure,
and is read as that metric (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import re

from agent_orchestrator.semantic import Kind, SemanticModel, Vocabulary
from agent_orchestrator.semantic.vocabulary import Found

_CORRELATED = re.compile(
    r"\b(?:correlat\w*|relationship|related|relate|link(?:ed)?\s+(?:to|with)|associat\w*|go(?:es)?\s+with"
    r"|move(?:s)?\s+with|tracks?)\b(?:\s+(?:with|to|between|of))?"
)


def correlation_asked(text: str, model: SemanticModel, vocabulary: Vocabulary) -> str:
    """``text`` with a measure said to go with the rows' amount named as their correlation metric,
    and the words saying so left out; ``text`` itself when it asks no such thing or names no one
    measure of which the model has a correlation."""
    said = _CORRELATED.search(text)
    if said is None:
        return text
    correlations = {m.over: m for m in model.metrics if m.kind is Kind.correlation and m.over}
    if not correlations:
        return text
    rest = f"{text[: said.start()]} {text[said.end() :]}"
    found = vocabulary.find(rest)
    measures = {
        over
        for over in [*found.columns, *(model.metric(m).over for m in found.metrics)]
        if over in correlations
    }
    if len(measures) != 1:
        return text
    metric = correlations[measures.pop()]
    named = next(
        (phrase for phrase in found.used if metric.over in _measures_of(vocabulary.find(phrase), model)),
        None,
    )
    if named is None:
        return text
    against = next(  # "with sales": the amount it is held against, said in the metric
        (phrase for phrase in found.used if metric.against in _measures_of(vocabulary.find(phrase), model)),
        None,
    )
    if against is not None:
        rest = re.sub(rf"\b(?:with|and|to|vs|versus)?\s*{re.escape(against)}\b", " ", rest, count=1)
    return re.sub(rf"\b{re.escape(named)}\b", f" {metric.synonyms[0]} ", rest, count=1)


def _measures_of(found: Found, model: SemanticModel) -> set[str]:
    """The columns a phrase names, itself or through the metrics over them."""
    return {*found.columns, *(str(model.metric(m).over) for m in found.metrics)}
