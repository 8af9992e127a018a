"""A GBNF grammar that only admits a well-formed call of one of the offered tools.

Small models name tools that do not exist, drop required arguments, or write the call as prose
("I would call ``top_customers`` with ```json …```"). When the server has decided that a turn needs a
tool (``tool_policy``), it samples under this grammar instead: every token the model may pick keeps
the output a JSON object ``{"name": <one offered tool>, "arguments": <that tool's schema>}``, so the
call always parses, names a real tool and has arguments of the declared types, enums and required keys.

The schema-to-grammar step is llama.cpp's own converter (vendored in cyllama). Client schemas are
trimmed first to the keywords that converter honours; descriptions and titles only cost grammar size.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from cyllama.utils.json_schema_to_grammar import json_schema_to_grammar

# Keywords that constrain values; everything else (title, description, examples…) is dropped.
_KEPT = {
    "type",
    "properties",
    "required",
    "enum",
    "const",
    "items",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "anyOf",
    "oneOf",
    "format",
}
# Unbounded strings let a small model ramble inside a value until the token limit.
_DEFAULT_MAX_LENGTH = 80
# The Copilot runtime moves a parameter's constraints into its description before the request
# reaches us: {"type": "integer", "description": "Rows, 1-20\n\n{minimum: 1, maximum: 20}"}.
_MOVED_CONSTRAINTS = re.compile(r"\n*\{([^{}]*)\}\s*$")
_CONSTRAINT = re.compile(r'(\w+):\s*("[^"]*"|-?[\d.]+(?:e[+-]?\d+)?)')


def restore_constraints(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` with the constraints the runtime wrote into its description put back as keywords."""
    out = dict(schema)
    match = _MOVED_CONSTRAINTS.search(str(schema.get("description") or ""))
    if match:
        for key, raw in _CONSTRAINT.findall(match.group(1)):
            out.setdefault(key, json.loads(raw))
    return out


def _trim(schema: Any) -> Any:
    if isinstance(schema, list):
        return [_trim(s) for s in schema]
    if not isinstance(schema, Mapping):
        return schema
    schema = restore_constraints(schema)
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key not in _KEPT:
            continue
        if key == "properties":
            out[key] = {name: _trim(sub) for name, sub in value.items()}
        elif key in {"items", "anyOf", "oneOf"}:
            out[key] = _trim(value)
        else:
            out[key] = value
    if out.get("type") == "string" and "enum" not in out and "format" not in out:
        out.setdefault("maxLength", _DEFAULT_MAX_LENGTH)
    if out.get("type") == "object" or "properties" in out:
        out["additionalProperties"] = False
    return out


def arguments_schema(tool: Mapping[str, Any]) -> dict[str, Any]:
    """The constraining part of one OpenAI tool's ``parameters`` (an empty object when none)."""
    params = tool["function"].get("parameters")
    if not isinstance(params, Mapping) or not params.get("properties"):
        return {"type": "object", "properties": {}, "additionalProperties": False}
    return _trim(params)


def tool_call_grammar(tools: Sequence[Mapping[str, Any]]) -> str:
    """GBNF for one call ``{"name": …, "arguments": {…}}`` of any tool in ``tools``."""
    if not tools:
        raise ValueError("a tool-call grammar needs at least one tool")
    alternatives = [
        {
            "type": "object",
            "properties": {
                "name": {"const": tool["function"]["name"]},
                "arguments": arguments_schema(tool),
            },
            "required": ["name", "arguments"],
            "additionalProperties": False,
        }
        for tool in tools
    ]
    schema = alternatives[0] if len(alternatives) == 1 else {"oneOf": alternatives}
    return json_schema_to_grammar(schema)
