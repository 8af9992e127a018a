"""Guided tool planning for small models: questions read into a query tool's typed arguments.

The embedded model server (``local_model``) is a generic OpenAI-compatible engine; whoever starts it
may hand it a guide. :class:`QueryGuide` reads a data question into the arguments of the request's
query tool (its vocabulary comes from the tool's schema, so from the data: ``vocabulary``), makes the
call without the model, and answers with the text the tool rendered. What the reading does not cover
is said, never guessed (docs/architecture.md#answers-by-construction).
"""

from agent_orchestrator.planner.guide import QueryGuide

__all__ = ["QueryGuide"]
