"""Tools in the shape the Copilot runtime sends them (MCP schemas from pydantic, prefixed names)."""

from typing import Any

SEGMENTS = ["High Value", "Regular", "At Risk", "New"]
COUNTRIES = ["France", "Germany", "United Kingdom"]


def tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    parameters = {
        "type": "object",
        "properties": properties,
        "required": required,
        "title": f"{name}Arguments",
    }
    return {
        "type": "function",
        "function": {
            "name": f"retail-analytics-{name}",
            "description": description,
            "parameters": parameters,
        },
    }


def optional(kind: str, description: str, **extra: Any) -> dict[str, Any]:
    return {"anyOf": [{"type": kind, **extra}, {"type": "null"}], "default": None, "description": description}


RETAIL_TOOLS = [
    tool(
        "get_customer_summary",
        "One customer's details by customer id: segment, orders, revenue, last purchase.",
        {
            "customer_id": {
                "type": "integer",
                "minimum": 1,
                "description": "Customer id",
                "title": "Customer Id",
            }
        },
        ["customer_id"],
    ),
    tool(
        "list_segments",
        "Segment overview: how many customers, revenue and shares per segment.",
        {},
        [],
    ),
    tool(
        "top_customers",
        "Top customers by net revenue, optionally of one segment or country.",
        {
            "segment": {**optional("string", "Segment"), "enum": SEGMENTS},
            "country": {**optional("string", "Country"), "enum": COUNTRIES},
            "limit": {"type": "integer", "minimum": 1, "maximum": 20, "default": 5, "description": "Rows"},
        },
        [],
    ),
    tool(
        "monthly_trend",
        "Monthly revenue, orders and buyers for the last months, optionally of one segment.",
        {
            "segment": {**optional("string", "Segment"), "enum": SEGMENTS},
            "months": {"type": "integer", "minimum": 1, "maximum": 24, "default": 6, "description": "Months"},
        },
        [],
    ),
]


def user(text: str) -> dict[str, Any]:
    """A user message as the runtime sends it (with its date tag)."""
    return {"role": "user", "content": f"<current_datetime>2026-11-30T03:09:55Z</current_datetime>\n\n{text}"}


def answered(question: str, tool_name: str, arguments: str, result: str, call_id: str = "c1") -> list[dict]:
    call = {"id": call_id, "type": "function", "function": {"name": tool_name, "arguments": arguments}}
    return [
        user(question),
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call_id, "content": result},
    ]
