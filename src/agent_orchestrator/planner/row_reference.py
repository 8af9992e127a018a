"""A row of the previous answer, referred to: "no. 3 on that list", "the bottom one", "they".

A follow-up often asks about one row the answer before listed rather than naming it again: by its
place in the list ("the second one", "#3", "the top one", "the last one") or, when the list held one
row ("who is our biggest customer?"), by a pronoun ("how many orders have they placed?"). The row
becomes a filter of the next query, on the column the list was broken down by, so the question is
asked about that row alone (docs/architecture.md#the-semantic-model). The words that referred to it
are taken out of the question, so that "top" or "3" in them is not read as a ranking of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .periods import NUMBER_WORDS

_PLACES = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5,
    "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
    "top": 1, "highest": 1, "biggest": 1, "best": 1, "leading": 1, "winning": 1, "last": -1, "final": -1,
}  # fmt: skip
_LOWEST = frozenset(("bottom", "lowest", "smallest", "worst", "weakest"))
"""The row with the least: the first of a list ranked lowest first, else the last."""
_PLACE = "|".join([*_PLACES, *_LOWEST])
_NUMBERED = "|".join(NUMBER_WORDS)
_ON_THE_LIST = (
    r"(?:\s+(?:on|in|of|from)\s+(?:that|the|this|your|my)\s+(?:\w+\s+){0,3}(?:list|ranking|table|answer))?"
)
_BY_PLACE = re.compile(
    r"(?:(?:\b(?:no|number|nr)|#)\s*\.?\s*(?P<number>\d{1,2})\b"
    rf"|(?:the\s+)?(?P<nth>\d{{1,2}})(?:st|nd|rd|th)(?:\s+(?:one|entry|row|item|place)\b"
    rf"|(?=\s+(?:on|in|of|from)\s+(?:that|the|this|your|my)\s+(?:\w+\s+){{0,3}}list\b))"
    rf"|(?:the|that)\s+(?P<word>{_PLACE})\s+(?:one|entry|row|item)\b"
    rf"|(?:the\s+)?(?P<spelled>{_NUMBERED})\s+(?:on|in)\s+(?:that|the|this|your)\s+list\b"
    rf"|(?:the\s+)?(?P<listed>{_PLACE})"
    rf"(?=\s+(?:on|in|of|from)\s+(?:that|the|this|your|my)\s+(?:\w+\s+){{0,3}}list\b))" + _ON_THE_LIST
)
"""A row by its place in the list; "the top one", but not "the top one hundred"."""
_PRONOUN = re.compile(
    r"\b(?:they|them|their|theirs|it|its|he|she|his|her|him|that one|this one)\b"
    r"|\b(?<!is\s)(?<!are\s)(?<!was\s)(?<!were\s)there\b(?!\s+(?:is|are|was|were|be)\b)"
    r"|\bthat\s+(?:compare|compared|change|changed|grow|grew|do|did|was|is|look|looked)\b"
    r"|\b(?:split|break|breaking|divide)\s+(?:that|this)\b"
)
"""A row named by a pronoun ("they", "from there", "split that by gender"): only when the list held
one row."""
_OF_THOSE = re.compile(
    r"\b(?:on|in|of|from|among)\s+(?:those|these|them|(?:that|the|this|your)\s+(?:\w+\s+){0,3}list)\b"
)
"""The rows just listed, said after a place ("the weakest one of those", "the bottom one on the list")."""


@dataclass(frozen=True)
class RowReference:
    column: str
    value: str
    text: str
    """The question with the words that referred to the row taken out."""


def referred_row(
    text: str,
    listed: tuple[str, list[str]] | None,
    lowest_first: bool = False,
    nouns: frozenset[str] = frozenset(),
) -> RowReference | None:
    """The row of ``listed`` (the previous answer's breakdown column and its rows, in order; ranked
    lowest first when ``lowest_first``; ``nouns``, what its column's rows are called) that the
    normalised question ``text`` refers to; None when it refers to none, or to a place the list
    does not have."""
    if listed is None or not listed[1]:
        return None
    column, values = listed
    found = _BY_PLACE.search(text)
    lowest = found is not None and (found["word"] or found["listed"]) in _LOWEST
    word = found is not None and (found["word"] or found["listed"])
    on_the_list = found is not None and (found["listed"] or _OF_THOSE.search(found[0] + text[found.end() :]))
    if lowest and (len(values) == 1 or (word != "bottom" and not on_the_list)):
        # "and the weakest one?" after the best month or the top 3: the other end of the ranking, a
        # judgement of them all; "the bottom one" is a place in the list, and so is "the weakest of those"
        return None
    if found is not None:
        place = 1 if lowest_first and lowest else _place(found)
        if place is None or not -len(values) <= place <= len(values) or place == 0:
            return None
        value = values[place - 1] if place > 0 else values[place]
        return RowReference(column, value, text[: found.start()] + " " + text[found.end() :])
    grain = column.partition("@")[2]
    named = named_row(text, column, values[0], nouns) if len(values) == 1 and not grain else None
    if named is not None:  # "how many orders did that team handle?"
        return named
    if len(values) == 1 and _PRONOUN.search(text):
        return RowReference(column, values[0], text)
    period = re.search(rf"\b(?:that|the same)\s+{_GRAIN_NOUNS.get(grain, grain)}\b", text) if grain else None
    if len(values) == 1 and period is not None:  # "during that hour", after the busiest hour
        return RowReference(column, values[0], text[: period.start()] + " " + text[period.end() :])
    return None


def named_row(text: str, column: str, value: str, nouns: frozenset[str]) -> RowReference | None:
    """``value`` of ``column`` when the question names it by a noun of its own ("that team", "that
    one receipt"); None when it does not."""
    called = "|".join(sorted(map(re.escape, nouns)))
    named = re.search(rf"\b(?:that|this|the same)\s+(?:one\s+)?(?:{called})s?\b", text) if called else None
    if named is None:
        return None
    return RowReference(column, value, text[: named.start()] + " " + text[named.end() :])


_GRAIN_NOUNS = {"weekday": "(?:weekday|day)", "day": "(?:day|date)"}
"""How a period of a list is referred to, by its grain ("that hour", "the same month", "that day")."""


def _place(found: re.Match[str]) -> int | None:
    if found["number"] or found["nth"]:
        return int(found["number"] or found["nth"])
    if found["word"] or found["listed"]:  # "the top one", "fourth on that list"
        return _PLACES.get(found["word"] or found["listed"], -1)
    if found["spelled"]:
        return NUMBER_WORDS[found["spelled"]]
    return None
