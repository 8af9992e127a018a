"""The hook through which whoever starts the model server can plan tool turns for the model.

The server itself knows no domain: it speaks the OpenAI wire format for any client's tools. A guide
(``agent_orchestrator.planner.QueryGuide`` for the retail app) reads a request that offers tools and
may take the step out of the model's hands: make a call whose arguments it read from the question,
or answer with text rendered from this turn's tool result (figures by construction: nothing the
model types). ``None`` leaves the step to the server's own pipeline
(docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class GuidedCall:
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class GuidedAnswer:
    text: str


class Guide(Protocol):
    def step(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> GuidedCall | GuidedAnswer | None:
        """``messages`` normalized, ``tools`` validated (OpenAI function tools)."""
        ...

    def owns(self, tool: dict[str, Any]) -> bool:
        """A tool only the guide calls: not offered to the model when the guide left the step."""
        ...
