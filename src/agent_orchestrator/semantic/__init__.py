"""The domain's one house: a semantic model of each dataset as data, a typed query over it, its
compiler to SQL and the engine that runs it (docs/architecture.md#the-semantic-model).

    from agent_orchestrator.semantic import Engine, SemanticQuery, profile_csv, suggest_model

    model = suggest_model(profile_csv(path), "Superstore")     # roles and metrics, to confirm
    with Engine(model, path) as engine:
        result = engine.run(SemanticQuery(metrics=["profit"], group_by=[{"column": "region"}]))

It imports no other room: the tools, the pages and the reader of questions use it.
"""

from agent_orchestrator.semantic.compile import Compiled, compile_query
from agent_orchestrator.semantic.engine import Engine, Result
from agent_orchestrator.semantic.model import Cancellation, Column, Entity, Kind, Metric, Role, SemanticModel
from agent_orchestrator.semantic.profile import ColumnProfile, TableProfile, profile_csv
from agent_orchestrator.semantic.query import Filter, GroupBy, SemanticQuery, Whole, Window, query_schema
from agent_orchestrator.semantic.suggest import default_metrics, suggest_model
from agent_orchestrator.semantic.vocabulary import Found, Mention, Vocabulary

__all__ = [
    "Cancellation",
    "Column",
    "ColumnProfile",
    "Compiled",
    "Engine",
    "Entity",
    "Filter",
    "Found",
    "GroupBy",
    "Kind",
    "Mention",
    "Metric",
    "Result",
    "Role",
    "SemanticModel",
    "SemanticQuery",
    "TableProfile",
    "Vocabulary",
    "Whole",
    "Window",
    "compile_query",
    "default_metrics",
    "profile_csv",
    "query_schema",
    "suggest_model",
]
