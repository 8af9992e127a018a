"""The grounding check: every id, name, date and figure in an answer must come from its evidence.

A wrong number is worse than no answer. Before the server releases an answer it extracts the claims a
reader would take as data and looks each one up in the answer's evidence, which the policy gathers
(``tool_policy``, docs/architecture.md#grounded-tool-turns): this turn's tool results (the only
source of truth for data) and calls, the question itself, the client's system message, and what a
follow-up refers back to. An earlier turn's entity in an unrelated answer is unsupported. Unsupported
claims make the caller retry or answer plainly that it could not verify (``tool_turns``).

What counts as a claim:

* **figures**: numbers, with their shown precision (``1,234.6`` is supported by ``1234.56``; ``45%`` or
  ``45.2%`` by a share of ``0.4523``; ``1.2 million`` by ``1234567``). Markdown list numbers are not
  claims.
* **dates**: ``YYYY-MM-DD`` and ``YYYY-MM`` must appear as written.
* **currency signs**: ``$``, ``£``, ``€``, ``¥`` only where the evidence shows that sign (a model puts
  a dollar before any amount; the data's currency is the data's to say, or nobody's).
* **names**: runs of two or more capitalised words ("Florian Osteral", "At Risk"), capitalised words
  inside a sentence ("Germany"), and upper-case names ("WHITE HANGING HEART"), matched
  case-insensitively against the sources' words. The tools' terms (``Lexicon.terms``: "Customer",
  "Segments") name kinds of thing, not one, and are no claims.
"""

from __future__ import annotations

import contextlib
import json
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .tool_ranking import normalized, stem

_DATE = re.compile(r"\b(?:19|20)\d\d-\d\d(?:-\d\d)?\b")
_CURRENCY_SIGN = re.compile(r"[$£€¥]")
_ESCAPED_SIGNS = {"\\u00a3": "£", "\\u20ac": "€", "\\u00a5": "¥"}  # as JSON escapes them
_FIGURE = re.compile(
    r"(?<![\w.])(\d[\d,]*(?:\.\d+)?|\.\d+)\s*(%|percent\b|k\b|thousand\b|m\b|mn\b|million\b|bn\b|billion\b)?",
    re.IGNORECASE,
)
_LIST_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*+])\s+", re.MULTILINE)
_MARKUP = re.compile(r"[*_`#>|]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*)([A-Z][\w'-]*)")
_CAPITALISED_RUN = re.compile(r"\b[A-Z][\w'&-]*(?:\s+(?:of|and|&|de|la|the)?\s*[A-Z][\w'&-]*)+")
_CAPITALISED = re.compile(r"\b[A-Z][a-z][\w'-]*\b")
_UPPER_RUN = re.compile(r"\b[A-Z]{3,}(?:[ \-/][A-Z0-9]{2,})*\b")
_SCALES = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
# Capitalised words that carry no data: pronouns, greetings, and the words of answering itself.
_COMMON = frozenset(
    re.findall(
        r"\S+",
        "i i'm i've i'd ok okay yes no hello hi thanks thank sure here there this that these those "
        "the a an it its in on at for of and or but if so as based according sorry unfortunately "
        "however note total id json data tool tools result results answer question ",
    ),
)


@dataclass(frozen=True)
class Sources:
    """Everything an answer may state, indexed for lookup."""

    numbers: frozenset[float]
    text: str  # normalised: lower-case words separated by single spaces, padded with spaces
    signs: frozenset[str] = frozenset()  # currency signs as written (normalising drops them)

    @classmethod
    def of(cls, texts: Iterable[str]) -> Sources:
        numbers: set[float] = set()
        words: list[str] = []
        signs: set[str] = set()
        for text in texts:
            numbers.update(_numbers_in(text))
            words.append(normalized(text).strip())
            signs.update(_CURRENCY_SIGN.findall(text))
            signs.update(sign for escaped, sign in _ESCAPED_SIGNS.items() if escaped in text.lower())
        return cls(frozenset(numbers), " " + " ".join(words) + " ", frozenset(signs))

    def supports_number(self, value: float, decimals: int, percent: bool, scale: float) -> bool:
        if percent:
            return any(
                self._matches(v * 100, value, decimals) or self._matches(v, value, decimals)
                for v in self.numbers
            )
        if scale > 1:
            return any(self._matches(v / scale, value, decimals) for v in self.numbers)
        return any(self._matches(v, value, decimals) for v in self.numbers)

    @staticmethod
    def _matches(source: float, shown: float, decimals: int) -> bool:
        if math.isclose(source, shown, rel_tol=0, abs_tol=1e-9):
            return True
        # Shown with fewer decimals than the source: accept the source rounded (either way at .5).
        return abs(source - shown) <= 0.5 * 10 ** (-decimals) + 1e-9 and decimals < _decimals_of(source)

    def supports_text(self, phrase: str) -> bool:
        needle = normalized(phrase)
        return bool(needle.strip()) and needle in self.text


def unsupported_claims(answer: str, sources: Sources, terms: frozenset[str] = frozenset()) -> list[str]:
    """The claims of ``answer`` that ``sources`` do not back, in order of appearance (empty: grounded).
    ``terms``: stemmed words that are no claim when capitalised (``Lexicon.terms``)."""
    text = _MARKUP.sub(" ", _LIST_MARKER.sub(" ", answer))
    missing: list[str] = []
    for date in _DATE.findall(text):
        if not sources.supports_text(date) and date not in missing:
            missing.append(date)
    text = _DATE.sub(" ", text)
    for sign in dict.fromkeys(_CURRENCY_SIGN.findall(text)):
        if sign not in sources.signs:
            missing.append(sign)
    for match in _FIGURE.finditer(text):
        raw, unit = match.group(1), (match.group(2) or "").lower()
        value = float(raw.replace(",", ""))
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        percent = unit in {"%", "percent"}
        scale = _SCALES.get(unit, 1.0)
        if not sources.supports_number(value, decimals, percent, scale):
            missing.append(match.group(0).strip())
    for name in _names(text, terms):
        if not sources.supports_text(name) and name not in missing:
            missing.append(name)
    return missing


def has_claims(answer: str, terms: frozenset[str] = frozenset()) -> bool:
    """Whether the answer states anything checkable at all (against no sources, every claim fails)."""
    return bool(unsupported_claims(answer, Sources(frozenset(), "  "), terms))


def _names(text: str, terms: frozenset[str]) -> list[str]:
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    found: list[str] = []
    covered: list[tuple[int, int]] = []
    for match in _UPPER_RUN.finditer(text):
        found.append(match.group(0))
        covered.append(match.span())
    for match in _CAPITALISED_RUN.finditer(text):
        if any(a <= match.start() < b for a, b in covered):
            continue
        run = _strip_common(match.group(0), terms)
        if run:
            found.append(run)
        covered.append(match.span())
    for match in _CAPITALISED.finditer(text):
        if match.start() in starts or any(a <= match.start() < b for a, b in covered):
            continue
        if not _common(match.group(0), terms):
            found.append(match.group(0))
    return found


def _common(word: str, terms: frozenset[str]) -> bool:
    lower = word.lower()
    return lower in _COMMON or stem(lower.removesuffix("'s")) in terms


def _strip_common(run: str, terms: frozenset[str]) -> str:
    """Drop leading/trailing common words ("The At Risk" -> "At Risk"); empty if nothing is left."""
    parts = run.split()
    while parts and _common(parts[0], terms):
        parts.pop(0)
    while parts and _common(parts[-1], terms):
        parts.pop()
    return " ".join(parts)


def _decimals_of(value: float) -> int:
    text = repr(float(value))
    if "e" in text:
        return 0
    return len(text.split(".")[1].rstrip("0"))


def _numbers_in(text: str) -> set[float]:
    """Numbers of a source: every JSON number (parsed, so 0.4523 stays exact) plus every figure in
    its text, dates split into year, month and day, and the length of every list (a count a reader
    may state: "three customers")."""
    out: set[float] = set()
    with contextlib.suppress(ValueError, TypeError):  # not JSON: the figures in its text still count
        _walk(json.loads(text), out)
    out.update(_figures_in(text))
    return out


def _figures_in(text: str) -> set[float]:
    return {float(raw.replace(",", "")) for raw in re.findall(r"\d[\d,]*(?:\.\d+)?", text)}


def _walk(value: Any, out: set[float]) -> None:
    if isinstance(value, bool):
        return
    if isinstance(value, int | float):
        out.add(float(value))
    elif isinstance(value, dict):
        for item in value.values():
            _walk(item, out)
    elif isinstance(value, list):
        out.add(float(len(value)))
        for item in value:
            _walk(item, out)
    elif isinstance(value, str):  # decoded: "\\u00a3187.50" is £187.50 in the raw text, not 3187.50
        out.update(_figures_in(value))
