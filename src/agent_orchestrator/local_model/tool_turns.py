"""Carry out a :class:`tool_policy.Plan` on the engine: a constrained call, or a checked answer.

Runs on the inference worker thread (one generation at a time) and returns the whole result. An
answer is only released once checked, because a streamed token cannot be taken back: with ``emit``
(a streamed request) an answer's sentences are released as they are completed and checked
(:class:`_SentenceGate`), the rest of the answer held until it is.

* call: the prompt ends inside ``<tool_call>`` and decoding follows the plan's grammar, so the output is
  one JSON call of an offered tool with valid arguments; when the narrowed tools allow exactly one
  call (``tool_arguments.determined_call``), it is made without the model.
* answer: a tool of this turn failed (an unknown id, a country not in the data), or the question named
  something its results do not contain ("customers in Mexico" answered for all countries): the answer
  says so plainly, without asking the model (a 0.5B model turns "no customer with id 99999999"
  into a segment). Otherwise the model answers and ``grounding`` checks it; an unsupported claim gets
  one retry with the claims named, then the answer of last resort: what the tool returned.
  Streamed, a sentence goes out once the whole answer up to it passes the same checks (no
  unsupported claim, the asked-for count or figure stated) and states something (a lead-in alone is
  held); an answer that has gone out in part and then makes an unsupported claim ends before that
  sentence, which is never sent.
* chat: small talk and statements get the plan's fixed reply; otherwise the model answers, and a
  claim its evidence does not support gets an honest "I don't know" (a greeting, a plain hello). A
  call the model writes as text anyway (tags, bare JSON, or the 1.5B model's "I would call `…` with
  ```json …```") becomes a real call when it fits an offered tool's schema.
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from .chat_format import ChatTemplate, ToolCall, split_tool_calls
from .engine import Engine, GenerationParams, GenerationStats
from .grounding import Sources, has_claims, unsupported_claims
from .tool_arguments import determined_call
from .tool_policy import Plan
from .tool_results import (
    asks_for_every_row,
    describe_result,
    figures,
    headline_of,
    requested_count,
    result_rows,
    row_kinds,
    stated_count,
)

logger = logging.getLogger(__name__)

MAX_CALL_TOKENS = 160
"""A call is a short JSON object; the bound keeps a degenerate grammar path from running long."""

NOT_FOUND = "I could not find that in the data: {reasons}."
UNKNOWN = "I don't know: that is not in the data I have looked up or in our conversation."
_RETRY_NOTE = (
    "Your previous draft stated {claims}, which do not appear in the tool results for this question. "
    "Answer again in one or two sentences using only names and numbers copied exactly from the tool "
    "results above. If they do not answer the question, say that you could not find it."
)


Emit = Callable[[str], None]
"""Sends a piece of a streamed answer on its way (called on the worker thread)."""

_SENTENCE_END = re.compile(r"[.!?](?=\s)|\n")


@dataclass
class TurnResult:
    text: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0
    finish_reason: str = "stop"
    grounded: bool = True
    """False when the answer had to fall back (logged and counted by the caller)."""


def run_plan(
    engine: Engine,
    template: ChatTemplate,
    plan: Plan,
    prompt: list[int],
    params: GenerationParams,
    cancel: threading.Event,
    emit: Emit | None = None,
) -> TurnResult:
    """``prompt``: the plan's prompt, already rendered and tokenized by the caller (which checked it
    against the context window), so the first generation does not render and tokenize it again.
    ``emit``: where an answer's checked sentences go as they are written; the text returned then
    starts with all that was emitted."""
    if plan.reply is not None:
        return TurnResult(plan.reply)
    if plan.mode == "call":
        return _call(engine, plan, prompt, params, cancel)
    if plan.mode == "answer" and plan.unmatched:
        names = ", ".join(plan.unmatched)
        return TurnResult(NOT_FOUND.format(reasons=f"nothing about {names} in what the tools returned"))
    if plan.mode == "answer" and plan.errors and len(plan.errors) == len(plan.turn_results):
        # The reason's first clause: "no country named 'X' in the data", not the list of the others.
        reasons = "; ".join(dict.fromkeys(e.split(";")[0].rstrip(".") for e in plan.errors))
        return TurnResult(NOT_FOUND.format(reasons=reasons))
    return _answer(engine, template, plan, prompt, params, cancel, emit)


class _SentenceGate:
    """Releases an answer's complete sentences once the answer up to them passes the checks.

    ``released`` is always a prefix of the answer's stripped text, so what was sent stays the start
    of what the answer turns out to be.
    """

    def __init__(self, plan: Plan, sources: Sources, emit: Emit) -> None:
        self.plan, self.sources, self.emit = plan, sources, emit
        self.released = ""
        self.seen = 0  # the end of the last candidate checked: each is checked once
        self.closed = False
        """Set by an unsupported claim after something went out: the answer ends where it was."""

    def offer(self, text: str, *, finished: bool = False) -> None:
        """``text``: everything generated so far; ``finished``: its last sentence is complete."""
        text = text.lstrip()
        ends = [m.end() for m in _SENTENCE_END.finditer(text)]
        end = len(text.rstrip()) if finished else (ends[-1] if ends else 0)
        if self.closed or end <= self.seen:
            return
        self.seen = end
        candidate = text[:end]
        if unsupported_claims(candidate, self.sources, self.plan.terms):
            self.closed = bool(self.released)
            return
        if _checked(candidate.strip(), self.plan) != candidate.strip():
            return  # the count or the figure asked for is still to come: hold the sentence
        if not has_claims(candidate, self.plan.terms):
            return  # a lead-in ("Based on the data, …"): nothing of the answer yet, so nothing sent
        self.emit(candidate[len(self.released) :])
        self.released = candidate


def _call(
    engine: Engine, plan: Plan, prompt: list[int], params: GenerationParams, cancel: threading.Event
) -> TurnResult:
    determined = determined_call(plan.tools)
    if determined is not None:
        name, arguments = determined
        call = ToolCall(f"call_{secrets.token_hex(12)}", name, json.dumps(arguments, ensure_ascii=False))
        return TurnResult(None, [call], finish_reason="tool_calls")
    limit = min(params.max_tokens, MAX_CALL_TOKENS)
    bounded = replace(params, grammar=plan.grammar, max_tokens=limit, stop=())
    text, result = _generate(engine, prompt, bounded, cancel)
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict) or result.finish_reason == "cancelled":
        # Cut off by the token limit (the grammar admits nothing else): no call rather than a broken one.
        result.text = UNKNOWN
        result.grounded = False
        return result
    call = ToolCall(
        id=f"call_{secrets.token_hex(12)}",
        name=data["name"],
        arguments=json.dumps(data.get("arguments") or {}, ensure_ascii=False),
    )
    result.text, result.tool_calls, result.finish_reason = None, [call], "tool_calls"
    return result


def _answer(
    engine: Engine,
    template: ChatTemplate,
    plan: Plan,
    prompt: list[int],
    params: GenerationParams,
    cancel: threading.Event,
    emit: Emit | None,
) -> TurnResult:
    sources = Sources.of(plan.sources)
    gate = _SentenceGate(plan, sources, emit) if emit is not None and plan.mode == "answer" else None
    text, result = _generate(engine, prompt, params, cancel, gate.offer if gate else None)
    if gate is not None:
        gate.offer(text, finished=True)
        if gate.released and gate.released.strip() != text.strip():  # ended at an unsupported claim
            logger.warning("A streamed answer ended before an unsupported claim")
            result.text = _with_requested_rows(gate.released.strip(), plan)
            return result
    if plan.mode == "chat" and plan.tools:
        _, calls = split_tool_calls(text, plan.tools)
        if calls:
            result.tool_calls, result.finish_reason = calls[:1], "tool_calls"
            return result
    missing = unsupported_claims(text, sources, plan.terms)
    if not missing or result.finish_reason == "cancelled":
        result.text = _with_requested_rows(_checked(text.strip(), plan), plan)
        return result
    if plan.mode == "chat":  # nothing to copy from: a second draft only apologises at length
        logger.warning("Unsupported claims in a chat answer: %s", missing)
        result.text, result.grounded = plan.fallback or UNKNOWN, False
        return result
    logger.warning("Unsupported claims in a draft answer (%s mode): %s", plan.mode, missing)
    note = {"role": "system", "content": _RETRY_NOTE.format(claims=", ".join(f'"{c}"' for c in missing[:5]))}
    retry_text, retry = _generate(engine, template.render([*plan.messages, note]), params, cancel)
    result.prompt_tokens = retry.prompt_tokens
    result.completion_tokens += retry.completion_tokens
    result.cached_tokens = retry.cached_tokens
    # A retry that only says "I could not find it" is no answer: the data itself is a better one.
    if not unsupported_claims(retry_text, sources, plan.terms) and has_claims(retry_text, plan.terms):
        result.text = _with_requested_rows(_checked(retry_text.strip(), plan), plan)
        return result
    result.grounded = False
    good_results = [r for r in plan.turn_results if r.error is None]
    if plan.mode == "answer" and good_results:
        last = good_results[-1]
        result.text = describe_result(last.content, last.tool)
    else:
        result.text = UNKNOWN
    return result


def _checked(text: str, plan: Plan) -> str:
    """A grounded answer that also states what was asked: the count, else the focused figure."""
    counted = _with_the_count(text, plan)
    return counted if counted != text else _with_the_focus(text, plan)


def _with_the_focus(text: str, plan: Plan) -> str:
    """The answer, or the figure the question asked for when the answer does not state it.

    Asked what the Regular segment's revenue per customer is, the 0.5B model quotes the segment's
    revenue; asked for the strongest of six months, it names one of the others. Both figures are in
    the data, so grounding passes them; the looked-up figure (``tool_focus``) says which is right.
    """
    if plan.mode != "answer" or plan.focus is None or plan.focus.stated_in(text):
        return text
    if plan.focus.attribute:  # the result's own sentence says it ("Customer 7 is in the Regular segment …")
        for headline in (headline_of(r.content) for r in reversed(plan.turn_results) if r.error is None):
            if headline and plan.focus.stated_in(headline):
                return headline
    line = plan.focus.line
    return f"{line[:1].upper()}{line[1:]}."


def _with_the_count(text: str, plan: Plan) -> str:
    """The answer to "how many …", checked against the count the tool's headline states.

    The 0.5B model answers "how many orders came from France?" with the number of customers from
    the same sentence of the result. Grounding cannot see that (both numbers are in the data); the
    headline names each count with its noun, so the right one is known: an answer without it is
    replaced by the headline.
    """
    if plan.mode != "answer":
        return text
    for headline in (headline_of(r.content) for r in plan.turn_results if r.error is None):
        count = stated_count(plan.question, headline)
        if count is not None and count not in figures(text):
            return headline
    return text


def _with_requested_rows(text: str, plan: Plan) -> str:
    """The answer, followed by the rows the user asked for when it names fewer of them.

    Asked for "the top 5 customers" or "the orders for each month of Q1", the 0.5B model names the
    first (or a total) and stops. The rows are in the
    tool result, in order: list the ones the answer left out (deterministic, so nothing is invented).
    """
    good = [result.content for result in plan.turn_results if result.error is None]
    rows = [r for content in good for r in result_rows(content)]
    kinds = {kind for content in good for kind in row_kinds(_parsed(content))}
    every_row = asks_for_every_row(plan.question, kinds)
    wanted = requested_count(plan.question) or (len(rows) if every_row else 0)
    if plan.mode != "answer" or wanted < 2 or not rows:
        return text
    leading = rows[:wanted]
    if all(re.search(rf"\b{re.escape(key)}\b", text, re.IGNORECASE) for key, _ in leading):
        return text
    listed = "\n".join(f"{i}. {line}" for i, (_, line) in enumerate(leading, 1))
    return f"{text}\n\n{listed}"


def _parsed(content: str) -> Any:
    try:
        return json.loads(content)
    except ValueError:
        return None


def _generate(
    engine: Engine,
    prompt: str | list[int],
    params: GenerationParams,
    cancel: threading.Event,
    watch: Callable[[str], None] | None = None,
) -> tuple[str, TurnResult]:
    """``watch``: shown the text so far after each piece (the sentence gate of a streamed answer)."""
    pieces: list[str] = []
    stats: GenerationStats | None = None
    tokens = engine.tokenize(prompt) if isinstance(prompt, str) else prompt
    generation = engine.generate(tokens, params, cancel)
    try:
        for item in generation:
            if isinstance(item, str):
                pieces.append(item)
                if watch is not None:
                    watch("".join(pieces))
            else:
                stats = item
    finally:
        generation.close()
    assert stats is not None
    result = TurnResult(
        None,
        prompt_tokens=stats.prompt_tokens,
        completion_tokens=stats.completion_tokens,
        cached_tokens=stats.cached_tokens,
        finish_reason=stats.finish_reason,
    )
    return "".join(pieces), result
