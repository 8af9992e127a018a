"""Decide what the model does with a request that offers tools: call one, answer from results, or chat.

Small models left to choose stop calling tools after a turn or two and answer data questions from
nothing (counts, names, a segment for a customer that does not exist). So the server decides, from the
conversation, and the model only fills in what it is good at:

* **answer**: the current turn already holds tool results. No tools are offered (single-step tool use,
  see :func:`chat_format.answer_after_tool_results`); the answer is checked by ``grounding``.
* **call**: the last user message asks for data (a question or a request that uses the tools' own
  words: customers, revenue, segment, products…) and nothing of this turn answered it yet. The model
  *must* call a tool: only the few best-ranked tools are offered (``tool_ranking``) and decoding is
  constrained to a call of one of them (``tool_grammar``).
* **chat**: anything else (greetings, what the user said earlier, thanks). No tools offered.

Arguments are narrowed to what the conversation supports before the grammar is built: an id
parameter may only take a number the user wrote; an optional enum or number only a value the user
mentioned (otherwise it is left out and the tool's default applies). A 0.5B model otherwise fills
``customer_id`` with 12345 and adds ``segment: "High Value"`` to a question that named no segment.

The conversation's history is rendered the same way in every mode and the tool block sits just before
the last user message, so the KV cache keeps the whole history across the call and answer steps and
across turns: a long chat prefills only its newest messages.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .chat_format import answer_after_tool_results
from .history_window import window
from .tool_grammar import arguments_schema, tool_call_grammar
from .tool_ranking import ToolRanker, words

Mode = Literal["call", "answer", "chat"]

MAX_OFFERED = 3
"""Tools offered in a call step: enough to hold the right one, few enough to keep prefill short."""
MIN_SCORE = 0.25
"""BM25 score below which a tool is not offered after the first (it shares no telling word)."""

_RUNTIME_TAG = re.compile(r"<current_datetime>.*?</current_datetime>\s*", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")
_MEMORY = re.compile(
    r"\b(?:remember|recall|earlier|previously|before this|you said|you told|i (?:said|told|mentioned|asked|"
    r"wrote|am|'m)|did i|am i|my (?:name|focus|goal|task|team|role|job|project|question)|what (?:was|is) my|"
    r"we (?:discussed|talked|were))\b",
    re.IGNORECASE,
)
_REQUEST = re.compile(
    r"^\s*(?:who|what|which|how|when|where|why|whose|is|are|does|do|did|would|will|can|could|should|"
    r"show|list|give|tell|find|count|compare|get|display|name|rank|break|top|best|and|or|also|now|"
    r"same|what's|who's|how's)\b",
    re.IGNORECASE,
)
_TOOL_ERROR = re.compile(r"^MCP server '[^']*': Error executing tool (\S+): (.*)$", re.DOTALL)
_TOOL_BLOCK = (
    "# Tools\n\nYou may call one of these functions to get the data for the user's question.\n\n"
    "You are provided with function signatures within <tools></tools> XML tags:\n"
    "<tools>\n{tools}\n</tools>\n\n"
    "Call exactly one function, the one whose data answers the question, with arguments taken from the "
    "question. Return a json object with function name and arguments within <tool_call></tool_call> "
    'XML tags:\n<tool_call>\n{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>'
)
CALL_PREFIX = "<tool_call>\n"
"""Appended after the generation prompt in call mode: the model starts inside a call."""


@dataclass(frozen=True)
class ToolResult:
    """One tool message of the current turn."""

    tool: str
    content: str
    error: str | None = None
    """The failure's reason when the call failed (an unknown id, a country not in the data…)."""


@dataclass
class Plan:
    mode: Mode
    messages: list[dict[str, Any]]
    """What the model sees (single-step history; in call mode with the tool block inserted)."""
    tools: list[dict[str, Any]] = field(default_factory=list)
    """The tools a call may name, arguments narrowed: the offered ones in call mode; in chat mode
    every tool the conversation can fill, for a call the model writes as text anyway."""
    grammar: str | None = None
    sources: list[str] = field(default_factory=list)
    """What an answer may state: every tool result, the user's words (runtime tags removed) and
    earlier answers (which passed the grounding check themselves)."""
    turn_results: list[ToolResult] = field(default_factory=list)
    """Answer mode: the tool results of the current turn."""

    @property
    def errors(self) -> list[str]:
        return [r.error for r in self.turn_results if r.error is not None]


def user_text(message: Mapping[str, Any]) -> str:
    """A user message without the runtime's ``<current_datetime>`` prefix."""
    return _RUNTIME_TAG.sub("", str(message.get("content") or "")).strip()


def tool_result(content: str, tool: str) -> ToolResult:
    """A tool message's content; the runtime reports a failed MCP call as text of its own form."""
    match = _TOOL_ERROR.match(content.strip())
    if match:
        return ToolResult(match.group(1), content, error=match.group(2).strip())
    return ToolResult(tool, content)


def _tool_names(messages: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """tool_call_id -> short tool name, from the assistant messages that made the calls."""
    names: dict[str, str] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            names[str(call.get("id"))] = str(call["function"]["name"]).rsplit("-", 1)[-1]
    return names


def mentioned_numbers(texts: Sequence[str]) -> list[float]:
    out: list[float] = []
    for text in texts:
        for raw in _NUMBER.findall(text):
            value = float(raw.replace(",", ""))
            if value not in out:
                out.append(value)
    return out


def _normalized(text: str) -> str:
    return " " + " ".join(re.findall(r"[a-z0-9]+", text.lower())) + " "


class ToolPolicy:
    """Plans requests for one server; caches a ranker per distinct tool list.

    With ``count_tokens`` and ``history_budget`` the history the model reads is windowed
    (``history_window``); without them it is rendered whole.
    """

    def __init__(
        self,
        count_tokens: Callable[[dict[str, Any]], int] | None = None,
        history_budget: int | None = None,
    ) -> None:
        self._rankers: dict[str, ToolRanker] = {}
        self._count_tokens = count_tokens
        self._history_budget = history_budget

    def _ranker(self, tools: Sequence[Mapping[str, Any]]) -> ToolRanker:
        key = json.dumps(tools, sort_keys=True)
        ranker = self._rankers.get(key)
        if ranker is None:
            if len(self._rankers) > 16:
                self._rankers.clear()
            ranker = self._rankers[key] = ToolRanker(tools)
        return ranker

    def plan(
        self,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        tool_choice: Any = None,
    ) -> Plan:
        """``messages`` normalized (``chat_format.normalize_messages``), ``tools`` validated."""
        users = [i for i, m in enumerate(messages) if m["role"] == "user"]
        last_user = users[-1] if users else -1
        said = [user_text(messages[i]) for i in users]
        sources = [
            user_text(m) if m["role"] == "user" else str(m["content"])
            for m in messages
            if m["role"] in {"tool", "user", "assistant"} and m["content"]
        ]
        history, _ = answer_after_tool_results(messages, None)
        if self._count_tokens is not None and self._history_budget is not None:
            history = window(history, self._count_tokens, self._history_budget)
        base = Plan("chat", history, sources=sources)
        turn = messages[last_user + 1 :]
        if any(m["role"] == "tool" for m in turn):
            names = _tool_names(messages)
            base.mode = "answer"
            base.turn_results = [
                tool_result(str(m["content"]), names.get(str(m.get("tool_call_id")), "retail"))
                for m in turn
                if m["role"] == "tool"
            ]
            return base
        if not tools or tool_choice == "none" or last_user < 0:
            return base
        question = said[-1]
        previous = said[-2] if len(said) > 1 else ""
        if tool_choice != "required" and not self._asks_for_data(
            question, previous, messages, last_user, tools
        ):
            # Not offered, but a call the model writes anyway (it judged the data needed) still counts.
            base.tools = [n for t in tools if (n := narrow_tool(t, said[-2:])) is not None]
            return base
        offered = self._candidates(tools, question, previous, said[-2:])
        if not offered:
            return base
        block = {"role": "system", "content": _TOOL_BLOCK.format(tools=_render_tools(offered))}
        # The tool block goes right before the last user message (history stays a cacheable prefix).
        at = _history_index_of_last_user(history)
        call_messages = [*history[:at], block, *history[at:]]
        return Plan(
            "call",
            call_messages,
            tools=offered,
            grammar=tool_call_grammar(offered),
            sources=sources,
        )

    def _asks_for_data(
        self,
        question: str,
        previous: str,
        messages: list[dict[str, Any]],
        last_user: int,
        tools: Sequence[Mapping[str, Any]],
    ) -> bool:
        if _MEMORY.search(question):
            return False
        if not (question.rstrip().endswith("?") or _REQUEST.match(question)):
            return False  # a statement ("My focus today is the At Risk segment.") needs no data
        if self._ranker(tools).covers(question):
            return True
        # A short follow-up ("and in France?") of a turn that used a tool asks for the same data.
        used_tool_before = any(m["role"] == "tool" for m in messages[:last_user])
        return bool(previous) and used_tool_before and len(words(question)) <= 6

    def _candidates(
        self, tools: Sequence[Mapping[str, Any]], question: str, previous: str, said: Sequence[str]
    ) -> list[dict[str, Any]]:
        ranked = self._ranker(tools).rank(question, previous)
        offered: list[dict[str, Any]] = []
        for score, tool in ranked:
            if len(offered) == MAX_OFFERED or (offered and score < MIN_SCORE):
                break
            narrowed = narrow_tool(tool, said)
            if narrowed is not None:
                offered.append(narrowed)
        return offered


def _history_index_of_last_user(history: list[dict[str, Any]]) -> int:
    for i in range(len(history) - 1, -1, -1):
        if history[i]["role"] == "user":
            return i
    return len(history)


def _render_tools(tools: Sequence[Mapping[str, Any]]) -> str:
    """One compact line per tool, in the shape the Qwen template uses (JSON of the OpenAI tool)."""
    lines = []
    for tool in tools:
        fn = tool["function"]
        params = fn.get("parameters") or {}
        props = {
            name: {k: v for k, v in spec.items() if k in {"type", "enum", "description", "format"}}
            for name, spec in (params.get("properties") or {}).items()
        }
        for spec in props.values():
            if "description" in spec:
                spec["description"] = str(spec["description"]).split("\n")[0][:80]
        compact = {"name": fn["name"], "description": fn.get("description", "")}
        compact["parameters"] = {
            "type": "object",
            "properties": props,
            "required": params.get("required", []),
        }
        lines.append(json.dumps({"type": "function", "function": compact}, ensure_ascii=False))
    return "\n".join(lines)


def narrow_tool(tool: Mapping[str, Any], said: Sequence[str]) -> dict[str, Any] | None:
    """The tool with each parameter limited to values the user mentioned; ``None`` if a required
    parameter cannot be filled from what the user said (an id the user never gave)."""
    schema = arguments_schema(tool)
    text = _normalized(" ".join(said))
    numbers = mentioned_numbers(said)
    required = set(schema.get("required") or ())
    props: dict[str, Any] = {}
    for name, spec in (schema.get("properties") or {}).items():
        narrowed = _narrow_param(name, spec, text, numbers, name in required)
        if narrowed is None:
            if name in required:
                return None
            continue
        original = (tool["function"].get("parameters") or {}).get("properties", {}).get(name, {})
        if "description" in original:
            narrowed = {**narrowed, "description": original["description"]}
        props[name] = narrowed
    parameters = {"type": "object", "properties": props, "required": sorted(required & set(props))}
    fn = {**tool["function"], "parameters": parameters}
    return {"type": "function", "function": fn}


def _narrow_param(
    name: str, spec: Mapping[str, Any], text: str, numbers: Sequence[float], required: bool
) -> dict[str, Any] | None:
    alternatives = [a for a in spec.get("anyOf", ()) if a.get("type") != "null"]
    if len(alternatives) == 1:  # pydantic's Optional[X]: {"anyOf": [X, {"type": "null"}]}
        spec = {**{k: v for k, v in spec.items() if k != "anyOf"}, **alternatives[0]}
    kind = spec.get("type")
    if isinstance(kind, list):  # ["integer", "null"]: optional in the client's schema
        kind = next((k for k in kind if k != "null"), None)
    if "enum" in spec:
        values = [v for v in spec["enum"] if isinstance(v, str) and _normalized(v) in text]
        values += [v for v in spec["enum"] if not isinstance(v, str) and float(v) in numbers]
        if values:
            return {**spec, "enum": values}
        return dict(spec) if required else None
    if kind in {"integer", "number"}:
        if name == "id" or name.endswith("_id"):
            candidates = [n for n in numbers if n == int(n)]
        else:
            candidates = [n for base in numbers for n in (base, base * 7, base * 30, base * 365)]
        values = sorted({_as_type(n, kind) for n in candidates if _within(n, spec)})
        if values:
            return {"type": kind, "enum": values}
        if name == "id" or name.endswith("_id"):
            return None
        return {"type": kind, **{k: v for k, v in spec.items() if k != "type"}} if required else None
    if kind == "string" and spec.get("format") == "date":
        return dict(spec) if (required or re.search(r"\b(?:19|20)\d\d\b", text)) else None
    return dict(spec)


def _as_type(value: float, kind: str) -> float | int:
    return int(value) if kind == "integer" else value


def _within(value: float, spec: Mapping[str, Any]) -> bool:
    if spec.get("type") == "integer" and value != int(value):
        return False
    if "minimum" in spec and value < spec["minimum"]:
        return False
    if "maximum" in spec and value > spec["maximum"]:
        return False
    if "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
        return False
    return not ("exclusiveMaximum" in spec and value >= spec["exclusiveMaximum"])
