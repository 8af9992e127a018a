"""Keep a long chat's prompt bounded, cheaply, instead of letting the runtime compact it.

The Copilot runtime compacts a conversation that nears the model's advertised prompt limit by asking
the model for a summary of the whole history: on two cores that is a 6,000-token prefill (about half a
minute), and on a small context it happened again on every later turn. So the embedded route
advertises a limit the runtime never reaches, and the server renders only what fits:

* the opening turns stay (pinned): that is where users say who they are and what they work on;
* the most recent turns stay;
* the turns between are left out in **blocks** of turns, with one line saying how many. Dropping a
  whole block at once, and only when the rest no longer fits, keeps the rendered prompt identical from
  one request to the next for many turns, so the KV cache keeps serving the prefix: a re-prefill
  happens once per block instead of on every turn.

The runtime still sends (and stores) the whole conversation; the grounding check still sees every
tool result. Only what the model reads is windowed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

PINNED_TURNS = 2
BLOCK_TURNS = 8
OMITTED = "({count} earlier turns of this conversation are not shown.)"


def _split_turns(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """(leading system messages, turns): a turn is a user message and everything up to the next one."""
    head: list[dict[str, Any]] = []
    turns: list[list[dict[str, Any]]] = []
    for message in messages:
        if message["role"] == "user" or turns:
            if message["role"] == "user":
                turns.append([])
            turns[-1].append(message)
        else:
            head.append(message)
    return head, turns


def window(
    messages: list[dict[str, Any]],
    count_tokens: Callable[[dict[str, Any]], int],
    budget: int,
    *,
    pinned: int = PINNED_TURNS,
    block: int = BLOCK_TURNS,
) -> list[dict[str, Any]]:
    """``messages`` if they fit in ``budget`` tokens, else the pinned and latest turns that do."""
    head, turns = _split_turns(messages)
    costs = [sum(count_tokens(m) for m in turn) for turn in turns]
    fixed = sum(count_tokens(m) for m in head)
    if fixed + sum(costs) <= budget or len(turns) <= pinned + 1:
        return messages
    dropped = 0
    droppable = len(turns) - pinned - 1  # the last turn (the question being answered) always stays
    while dropped < droppable and fixed + sum(costs[:pinned]) + sum(costs[pinned + dropped :]) > budget:
        dropped = min(dropped + block, droppable)
    note = {"role": "system", "content": OMITTED.format(count=dropped)}
    kept = [m for turn in turns[:pinned] for m in turn]
    recent = [m for turn in turns[pinned + dropped :] for m in turn]
    return [*head, *kept, note, *recent]
