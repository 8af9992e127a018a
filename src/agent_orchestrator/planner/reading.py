"""What one reading is made of: the ``Reading`` a question is read into, and the ``Marks`` of the
characters of the question it used.

Every part of the reader marks the words it reads, so the words no part used are what is left at the
end: a product's words, or what the reading does not understand
(docs/architecture.md#answers-by-construction). The two types live apart from ``reader`` so that the
modules it reads with share them without importing it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reading:
    """A question read: the query tool's arguments, and what of the question they do not cover."""

    arguments: dict[str, Any] = field(default_factory=dict)
    not_understood: list[str] = field(default_factory=list)
    not_in_data: list[str] = field(default_factory=list)
    asks: bool = False
    """The question names something to compute (a measure, a ranking, a share, a comparison)."""
    follow_up: bool = False
    qualifying: bool = False
    """The measure word only qualifies a name ("and from At Risk customers?"): a follow-up keeps the
    measure it had."""
    unknown_kind: str | None = None
    """The list an unknown name was called one of ("the Champions segment": ``segments``)."""
    several: list[str] = field(default_factory=list)
    """Another figure asked for beside the measure ("revenue and orders"): one query gives one."""
    split_by: list[str] = field(default_factory=list)
    """A kind of customer (a measure's name) the measure would be split by ("revenue from new
    customers"): the tool counts them, it does not filter by them."""
    unpaired: bool = False
    """It asks about the last two answers together, and they differ in more than one period or one
    name: no one query puts them side by side."""
    names: list[str] = field(default_factory=list)
    """Several names quoted ("of 'A', 'B' and 'C', which…"): a query takes one."""
    conflicts: list[str] = field(default_factory=list)
    """Words that rank two ways at once ("of our ten biggest countries, which placed the fewest
    orders?"): one query cannot read them."""


class Marks:
    """Which characters of the question a reading used."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.used = [False] * len(text)
        self.qualifiers: set[int] = set()
        """Where a noun says whose a name is ("UK customers"): never a breakdown by it."""
        self.named: dict[str, int] = {}
        """Where each list parameter's first name was read ("countries": 31)."""

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.used[i] = True

    def free(self, start: int, end: int) -> bool:
        return not any(self.used[start:end])

    def find(self, phrase: str) -> list[tuple[int, int]]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
        return [m.span() for m in pattern.finditer(self.text) if self.free(*m.span())]

    def left(self) -> list[tuple[str, int]]:
        """Words not used, with their positions."""
        return [
            (m[0], m.start())
            for m in re.finditer(r"[a-z0-9][a-z0-9'&.+-]*", self.text)
            if self.free(*m.span())
        ]
