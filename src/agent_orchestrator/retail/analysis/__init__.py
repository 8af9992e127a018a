"""Sales questions as typed queries, computed deterministically and answered in words by code.

    result = answer_query(conn, Query(measure="revenue", countries=["France"], period="2011"))
    result["answer"]  # "Revenue, France, 2011: 187,137.48."

``query`` is the reading (what to compute), ``execute`` computes it on the retail file, ``render``
writes the answer (docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import sqlite3
from typing import Any

from agent_orchestrator.retail.analysis.execute import CannotAnswer, run
from agent_orchestrator.retail.analysis.query import Dimension, Measure, Query
from agent_orchestrator.retail.analysis.render import cannot_answer, result
from agent_orchestrator.retail.money import CURRENCY_KEY, dataset_currency, set_currency

__all__ = [
    "CURRENCY_KEY",
    "Dimension",
    "Measure",
    "Query",
    "answer_query",
    "dataset_currency",
    "set_currency",
]


def answer_query(conn: sqlite3.Connection, query: Query) -> dict[str, Any]:
    """The query's answer and figures, or what the data lacks to answer it (``answered`` false)."""
    try:
        outcome = run(conn, query)
    except CannotAnswer as exc:
        return cannot_answer(
            query.model_dump(mode="json", exclude_defaults=True), str(exc), unmatched=exc.unmatched
        )
    return result(outcome, dataset_currency(conn))
