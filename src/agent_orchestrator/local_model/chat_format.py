"""OpenAI chat messages -> model prompt, and model text -> OpenAI tool calls.

Usage::

    template = ChatTemplate(engine.chat_template, bos_token=..., eos_token=...)
    prompt = template.render(normalize_messages(messages), tools=tools)

    parser = ToolCallStreamParser()
    for piece in pieces:
        for event in parser.feed(piece):   # TextDelta | ToolCall
            ...
    events = parser.finish()

The prompt is rendered from the chat template embedded in the GGUF (Qwen2.5's, which knows about
``tools``, assistant ``tool_calls`` and ``tool`` results), in a sandboxed Jinja environment exactly like
``transformers.apply_chat_template`` does. Qwen2.5 answers a tool call with
``<tool_call>\\n{"name": ..., "arguments": {...}}\\n</tool_call>``; we turn those blocks into OpenAI
``tool_calls``. A block whose JSON does not parse stays in the text: the caller sees what the model said
rather than losing it.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from jinja2 import TemplateError
from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

TOOL_CALL_OPEN = "<tool_call>"
TOOL_CALL_CLOSE = "</tool_call>"
_FENCE = re.compile(r"```[A-Za-z]*\s*(.*?)\s*```", re.DOTALL)
_ROLES = {"system", "developer", "user", "assistant", "tool"}


class ChatFormatError(ValueError):
    """The request's messages or tools cannot be turned into a prompt (a client error: HTTP 400)."""

    def __init__(self, message: str, param: str | None = None) -> None:
        super().__init__(message)
        self.param = param


# --- messages ----------------------------------------------------------------------------------------


def normalize_messages(messages: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Bring OpenAI-style messages into the shape the chat template expects.

    - ``content`` may be ``None`` (assistant turns that only call tools) or a list of parts
      ``[{"type": "text", "text": ...}]``; both become a plain string.
    - ``developer`` (the newer name for ``system``) becomes ``system``.
    - assistant ``tool_calls[].function.arguments`` is a JSON *string* in the OpenAI protocol but the
      template serialises it with ``tojson``; we parse it back to an object so the model sees the same
      shape it produces (a string that is not JSON is passed through unchanged).
    """
    if not messages:
        raise ChatFormatError("messages must contain at least one message", "messages")
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        role = msg.get("role")
        if role not in _ROLES:
            raise ChatFormatError(
                f"messages[{i}].role must be one of {sorted(_ROLES)}", f"messages[{i}].role"
            )
        norm: dict[str, Any] = {
            "role": "system" if role == "developer" else role,
            "content": _content_text(msg.get("content"), i),
        }
        if role == "assistant" and msg.get("tool_calls"):
            norm["tool_calls"] = [_normalize_tool_call(tc, i) for tc in msg["tool_calls"]]
        if role == "tool":
            for key in ("tool_call_id", "name"):
                if msg.get(key):
                    norm[key] = msg[key]
        out.append(norm)
    return out


def _content_text(content: Any, i: int) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, Mapping) and part.get("type") in {"text", "input_text"}:
                texts.append(str(part.get("text", "")))
            elif isinstance(part, str):
                texts.append(part)
            else:
                kind = part.get("type") if isinstance(part, Mapping) else type(part).__name__
                raise ChatFormatError(
                    f"messages[{i}].content: unsupported content part type {kind!r} (only text is supported)",
                    f"messages[{i}].content",
                )
        return "".join(texts)
    raise ChatFormatError(f"messages[{i}].content must be a string, a list of parts or null")


def _normalize_tool_call(tc: Any, i: int) -> dict[str, Any]:
    fn = tc.get("function") if isinstance(tc, Mapping) else None
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
        raise ChatFormatError(
            f"messages[{i}].tool_calls entries need function.name", f"messages[{i}].tool_calls"
        )
    args = fn.get("arguments")
    if isinstance(args, str):
        # Invalid JSON stays as the model's original text: it is still what was said.
        with contextlib.suppress(json.JSONDecodeError):
            args = json.loads(args) if args.strip() else {}
    return {
        "id": tc.get("id"),
        "type": "function",
        "function": {"name": fn["name"], "arguments": args if args is not None else {}},
    }


def answer_after_tool_results(
    messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """Single-step tool use, the shape in which the small Qwen models can use tool results.

    Measured with Qwen2.5-Coder-0.5B at temperature 0 (question, the model's own ``<tool_call>``,
    the ``<tool_response>``): in the native rendering it never answers; it repeats the call, or echoes
    the result as a call, whatever the system prompt, with or without ``tools`` offered. It answers
    correctly ("The total sales in the North region are 48,213.50 GBP.") once (1) its own answered
    call is left out of the history and (2) no tools are offered for that turn. So:

    - an assistant turn whose tool calls were answered keeps only its text (dropped if it has none);
      the tool results stay, in the template's ``<tool_response>`` form;
    - when the conversation ends with tool results, the tools are withheld: the model must answer.

    The rendering of past turns is the same on every request, so the KV-cache prefix stays reusable.
    The cost: no chains of calls (call, result, another call) in one user turn.
    """
    out: list[dict[str, Any]] = []
    for i, msg in enumerate(messages):
        answered = i + 1 < len(messages) and messages[i + 1]["role"] == "tool"
        if msg["role"] == "assistant" and msg.get("tool_calls") and answered:
            if not msg["content"].strip():
                continue
            msg = {"role": "assistant", "content": msg["content"]}
        out.append(msg)
    if messages and messages[-1]["role"] == "tool":
        tools = None
    return out, tools


def validate_tools(tools: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Check the OpenAI ``tools`` list (function tools only); returns plain dicts for the template."""
    if not tools:
        return None
    out = []
    for i, tool in enumerate(tools):
        fn = tool.get("function")
        if tool.get("type", "function") != "function" or not isinstance(fn, Mapping):
            raise ChatFormatError(f"tools[{i}] must be a function tool", f"tools[{i}]")
        if not isinstance(fn.get("name"), str) or not fn["name"]:
            raise ChatFormatError(f"tools[{i}].function.name is required", f"tools[{i}].function.name")
        out.append({"type": "function", "function": dict(fn)})
    return out


# --- template ----------------------------------------------------------------------------------------


class ChatTemplate:
    """The model's own chat template, compiled once in a sandbox."""

    def __init__(self, source: str, *, bos_token: str = "", eos_token: str = "") -> None:
        if not source:
            raise ValueError("the model has no embedded chat template")
        env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
        env.filters["tojson"] = _tojson
        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = lambda fmt: datetime.now().strftime(fmt)
        self._template = env.from_string(source)
        self._bos, self._eos = bos_token, eos_token

    def render(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        add_generation_prompt: bool = True,
    ) -> str:
        try:
            return self._template.render(
                messages=list(messages),
                tools=list(tools) if tools else None,
                add_generation_prompt=add_generation_prompt,
                bos_token=self._bos,
                eos_token=self._eos,
            )
        except TemplateError as exc:
            raise ChatFormatError(f"cannot format the conversation: {exc}", "messages") from exc


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None, **kw: Any) -> str:
    # Like transformers' tojson: non-ASCII stays readable (fewer tokens for the model).
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, **kw)


def _raise(message: str) -> None:
    raise TemplateError(message)


# --- tool-call parsing -------------------------------------------------------------------------------


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # a JSON object, serialised (the OpenAI wire format)

    def to_openai(self, index: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }
        if index is not None:
            out["index"] = index
        return out


def parse_tool_call_body(body: str) -> ToolCall | None:
    """The JSON between ``<tool_call>`` tags -> ToolCall, or None when it is not a valid call."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("name"), str) or not data["name"]:
        return None
    args = data.get("arguments", data.get("parameters", {}))
    if isinstance(args, str):
        try:
            args = json.loads(args) if args.strip() else {}
        except json.JSONDecodeError:
            return None
    if not isinstance(args, dict):
        return None
    return ToolCall(
        id=f"call_{secrets.token_hex(12)}",
        name=data["name"],
        arguments=json.dumps(args, ensure_ascii=False),
    )


class ToolCallStreamParser:
    """Split generated text into plain text and tool calls, incrementally.

    Plain text is released as soon as it cannot be the start of ``<tool_call>``; from a possible
    opening tag on, text is held until the block closes (or the stream ends). After the first tool
    call, whitespace-only text between calls is dropped (Qwen puts newlines between blocks).

    Small Qwen models sometimes answer a tool request with the bare JSON object, or with it in a
    ```json fence, instead of the tags. With ``tools`` given (the request's OpenAI tool list), a
    response that *starts* with ``{`` or a fence is held to the end and becomes a tool call only if
    it is exactly such an object naming an offered tool, with the arguments that tool declares
    (every required one, no undeclared ones); otherwise it is released as text. The argument check
    matters: after a tool result, the 0.5B model likes to echo the result as ``{"name": <tool>,
    "arguments": <the result>}``, and taking that for a call would loop the agent.
    """

    def __init__(
        self, tools: Sequence[Mapping[str, Any]] | None = None, *, passthrough: bool = False
    ) -> None:
        self._passthrough = passthrough  # no tools offered: everything is text, like OpenAI
        self._buf = ""
        self._held_ws = ""
        self._inside = False
        self._schemas = {t["function"]["name"]: t["function"].get("parameters") for t in tools or ()}
        self._bare_json: bool | None = None if self._schemas else False  # None: undecided
        self.tool_calls: list[ToolCall] = []
        self.text_parts: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self.text_parts)

    def feed(self, piece: str) -> list[TextDelta | ToolCall]:
        events: list[TextDelta | ToolCall] = []
        if self._passthrough:
            self._emit_text(piece, events)
            return events
        self._buf += piece
        if self._bare_json is None:
            head = self._buf.lstrip()
            if not head or (len(head) < 3 and "```".startswith(head)):
                return events  # undecided yet
            self._bare_json = head.startswith(("{", "```"))
        if self._bare_json:
            return events  # held until finish()
        while True:
            if self._inside:
                end = self._buf.find(TOOL_CALL_CLOSE)
                if end < 0:
                    return events
                body, self._buf = self._buf[:end], self._buf[end + len(TOOL_CALL_CLOSE) :]
                self._inside = False
                self._emit_block(body, closed=True, events=events)
                continue
            start = self._buf.find(TOOL_CALL_OPEN)
            if start >= 0:
                self._emit_text(self._buf[:start], events)
                self._buf = self._buf[start + len(TOOL_CALL_OPEN) :]
                self._inside = True
                continue
            keep = _partial_suffix(self._buf, TOOL_CALL_OPEN)
            self._emit_text(self._buf[: len(self._buf) - keep], events)
            self._buf = self._buf[len(self._buf) - keep :]
            return events

    def finish(self) -> list[TextDelta | ToolCall]:
        """End of generation: flush held text; an unclosed block is a call if its JSON is complete."""
        events: list[TextDelta | ToolCall] = []
        if self._bare_json is not False:
            self._bare_json = False
            calls = _parse_bare_calls(self._buf, self._schemas)
            if calls:
                self.tool_calls.extend(calls)
                self._buf = ""
                return list(calls)
            events = self.feed("")  # not a call after all: run it through the tag parser as text
        if self._inside:
            self._emit_block(self._buf, closed=False, events=events)
        else:
            self._emit_text(self._buf, events)
        self._buf, self._inside = "", False
        return events

    def _emit_block(self, body: str, *, closed: bool, events: list[TextDelta | ToolCall]) -> None:
        call = parse_tool_call_body(body.strip())
        if call is not None:
            self._held_ws = ""
            self.tool_calls.append(call)
            events.append(call)
        else:
            raw = TOOL_CALL_OPEN + body + (TOOL_CALL_CLOSE if closed else "")
            self._emit_text(raw, events, force=True)

    def _emit_text(self, text: str, events: list[TextDelta | ToolCall], *, force: bool = False) -> None:
        if not text:
            return
        if self.tool_calls and not force and not text.strip():
            self._held_ws += text  # dropped if another call (or the end) follows, kept otherwise
            return
        text, self._held_ws = self._held_ws + text, ""
        self.text_parts.append(text)
        events.append(TextDelta(text))


def _parse_bare_calls(text: str, schemas: Mapping[str, Any]) -> list[ToolCall]:
    body = text.strip()
    if body.startswith("```"):
        fenced = _FENCE.fullmatch(body)
        if fenced is None:
            return []
        body = fenced.group(1)
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return []
    items = data if isinstance(data, list) else [data]
    calls = [parse_tool_call_body(json.dumps(item)) for item in items]
    if not calls or any(c is None or not _fits_schema(c, schemas) for c in calls):
        return []
    return [c for c in calls if c is not None]


def _fits_schema(call: ToolCall, schemas: Mapping[str, Any]) -> bool:
    if call.name not in schemas:
        return False
    schema = schemas[call.name]
    if not isinstance(schema, Mapping):
        return True  # the tool declares nothing: any arguments
    args = json.loads(call.arguments)
    declared = schema.get("properties")
    closed = schema.get("additionalProperties") is not True
    if closed and isinstance(declared, Mapping) and not set(args) <= set(declared):
        return False
    return set(schema.get("required") or ()) <= set(args)


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of ``text`` that is a proper prefix of ``tag``."""
    for n in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:n]):
            return n
    return 0


def split_tool_calls(
    text: str, tools: Sequence[Mapping[str, Any]] | None = None
) -> tuple[str | None, list[ToolCall]]:
    """Complete-text variant: (content or None, tool calls).

    Besides the streaming parser's shapes it takes the one the 1.5B model writes as prose: "I would
    call the `retail-analytics-top_customers` function with the following arguments: ```json {...}```"
    (a named offered tool plus one JSON object of arguments that fit its schema).
    """
    parser = ToolCallStreamParser(tools)
    parser.feed(text)
    parser.finish()
    calls = parser.tool_calls or _prose_call(text, tools or ())
    content = parser.text if parser.tool_calls or not calls else ""
    if calls:
        return content.strip() or None, calls
    return content, calls


def _prose_call(text: str, tools: Sequence[Mapping[str, Any]]) -> list[ToolCall]:
    named = [t for t in tools if re.search(rf"\b{re.escape(t['function']['name'])}\b", text)]
    blocks = [m.group(1) for m in _FENCE.finditer(text)] or re.findall(r"\{.*\}", text, re.DOTALL)
    if len(named) != 1 or len(blocks) != 1:
        return []
    try:
        data = json.loads(blocks[0])
    except json.JSONDecodeError:
        return []
    if not isinstance(data, dict):
        return []
    name = named[0]["function"]["name"]
    arguments = data.get("arguments", data) if data.get("name") in (None, name) else None
    if not isinstance(arguments, dict):
        return []
    call = ToolCall(f"call_{secrets.token_hex(12)}", name, json.dumps(arguments, ensure_ascii=False))
    schemas = {t["function"]["name"]: t["function"].get("parameters") for t in tools}
    return [call] if _fits_schema(call, schemas) else []
