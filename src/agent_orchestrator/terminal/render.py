"""An answer and a transcript as terminal text: the reading and figures the browser shows as chips,
each chart as a table (a terminal draws no lines), nothing hidden that the browser shows."""

from __future__ import annotations

from typing import Any


def readings(done: dict[str, Any]) -> list[str]:
    """One line per reading: what the figures were computed for ("Read as: …")."""
    lines = []
    for reading in done.get("readings", []):
        if reading.get("reading"):
            lines.append(f"Read as: {reading['reading']}")
        if reading.get("answer"):
            lines.append(str(reading["answer"]))
        clarify = reading.get("clarify")
        if clarify and clarify.get("choices"):
            lines.append(
                f"{clarify['value']!r} is several of {clarify['column']}: {', '.join(clarify['choices'])}"
            )
    return lines


def chart_table(chart: dict[str, Any]) -> list[str]:
    """A chart's figures as an aligned table: its labels down, one column per series."""
    series = chart.get("series", [])
    header = [str(chart.get("category", "")), *(str(s.get("label", "")) for s in series)]
    columns = [list(s.get("values", [])) for s in series]
    rows = [
        [str(label), *(_figure(values[i]) if i < len(values) else "" for values in columns)]
        for i, label in enumerate(chart.get("labels", []))
    ]
    widths = [max(len(row[col]) for row in [header, *rows]) for col in range(len(header))]
    lines = [str(chart.get("title", ""))]
    for number, row in enumerate([header, *rows]):
        figures = (cell.rjust(width) for cell, width in zip(row[1:], widths[1:], strict=True))
        cells = [row[0].ljust(widths[0]), *figures]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * width for width in widths))
    return lines


def _figure(value: float) -> str:
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"


def extras(done: dict[str, Any]) -> list[str]:
    """What follows an answer's text: its readings, then each chart as a table."""
    lines = readings(done)
    for chart in done.get("charts", []):
        lines.extend(["", *chart_table(chart)])
    if done.get("stopped"):
        lines.append("(stopped)")
    return lines


def transcript(messages: list[dict[str, Any]]) -> list[str]:
    lines: list[str] = []
    for message in messages:
        who = "You" if message["role"] == "user" else "Assistant"
        lines.extend([f"{who}:", message["content"]])
        if message["role"] == "assistant":
            lines.extend(extras(message))
        lines.append("")
    return lines
