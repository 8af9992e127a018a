"""The OpenAI chat-completions wire format, as far as the local server speaks it.

Request fields follow the OpenAI API reference. Like OpenAI, an unknown top-level field is a 400
("Unrecognized request argument"), so a typo never silently changes behaviour. Fields we accept but
cannot honour with one small local model are listed in ``IGNORED_FIELDS``; fields whose meaning we
cannot provide (``n > 1``, ``logprobs``, structured ``response_format``) are rejected with a 400.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

# Accepted for compatibility, no effect: penalties/bias (greedy decoding of a small model), bookkeeping.
IGNORED_FIELDS = (
    "presence_penalty",
    "frequency_penalty",
    "logit_bias",
    "user",
    "metadata",
    "store",
    "service_tier",
    "reasoning_effort",
    "prompt_cache_key",
    "safety_identifier",
    "verbosity",
    "parallel_tool_calls",
)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid")
    include_usage: bool = False
    include_obfuscation: bool | None = None


class ChatCompletionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Any model name is accepted: the runtime sends its configured id; we answer with ours.
    model: str | None = None
    # Messages stay loose dicts here; chat_format.normalize_messages validates them (400 on error).
    messages: list[dict[str, Any]] = Field(min_length=1)
    stream: bool = False
    stream_options: StreamOptions | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    stop: str | list[str] | None = None
    seed: int | None = None
    tools: list[dict[str, Any]] | None = None
    tool_choice: Literal["none", "auto", "required"] | dict[str, Any] | None = None
    n: int | None = Field(default=None, ge=1, le=1)
    logprobs: bool | None = None
    top_logprobs: int | None = None
    response_format: dict[str, Any] | None = None

    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    logit_bias: dict[str, float] | None = None
    user: str | None = None
    metadata: dict[str, Any] | None = None
    store: bool | None = None
    service_tier: str | None = None
    reasoning_effort: str | None = None
    prompt_cache_key: str | None = None
    safety_identifier: str | None = None
    verbosity: str | None = None
    parallel_tool_calls: bool | None = None

    def stop_list(self) -> list[str]:
        if self.stop is None:
            return []
        stops = [self.stop] if isinstance(self.stop, str) else list(self.stop)
        return [s for s in stops if s]

    def unsupported(self) -> tuple[str, str] | None:
        """(param, message) for a request we cannot serve faithfully, else None."""
        if self.logprobs:
            return "logprobs", "logprobs are not supported by the local model server"
        if self.response_format and self.response_format.get("type", "text") != "text":
            return "response_format", "only response_format type 'text' is supported by the local model"
        if isinstance(self.stop, list) and len(self.stop) > 4:
            return "stop", "at most 4 stop sequences are allowed"
        return None


def error_body(message: str, type_: str, param: str | None = None, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def usage(prompt_tokens: int, completion_tokens: int, cached_tokens: int) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens},
    }


def model_card(model_id: str, created: int) -> dict[str, Any]:
    return {"id": model_id, "object": "model", "created": created, "owned_by": "local"}


class ChunkFactory:
    """Builds the ``chat.completion.chunk`` objects of one streamed response."""

    def __init__(self, completion_id: str, model_id: str, include_usage: bool) -> None:
        self.id, self.model, self.include_usage = completion_id, model_id, include_usage
        self.created = int(time.time())

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
        }
        if self.include_usage:
            out["usage"] = None
        return out

    def usage_chunk(self, usage_: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [],
            "usage": usage_,
        }


def completion(
    completion_id: str,
    model_id: str,
    content: str | None,
    tool_calls: list[dict[str, Any]],
    finish_reason: str,
    usage_: dict[str, Any],
) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": content, "refusal": None}
    if tool_calls:
        message["tool_calls"] = tool_calls
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model_id,
        "system_fingerprint": None,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish_reason}],
        "usage": usage_,
    }
