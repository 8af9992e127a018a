"""Answer-quality eval of the assistant through the real web API: ~65 analyst questions in chats.

    uv run python bench/eval_assistant.py                       # embedded 0.5B model, everything
    uv run python bench/eval_assistant.py --limit 6 --category unknown --category lookup -v
    uv run python bench/eval_assistant.py --model 1.5b --json /tmp/eval.json
    uv run python bench/eval_assistant.py --provider-url http://127.0.0.1:11434/v1 --provider-model qwen2.5:7b

Options: ``--limit N`` (scored questions), ``--category NAME`` (repeatable), ``--model 0.5b|1.5b``
(``AGENT_LOCAL_MODEL``; weights from ``.data/models`` or the installed part packages, never
downloaded: a model that is not installed is skipped with a message), ``--model-path GGUF``,
``--provider-url URL`` (+ ``--provider-model``; ``AGENT_PROVIDER_API_KEY`` is passed on) for any
OpenAI-compatible model, ``--seed`` (dataset and question parameters), ``--json PATH``, ``-v``,
``--rescore PATH`` (check the answers a ``--json`` file recorded again with the current checks,
without the app or a model: for improving a checker).

How it runs: a fresh ``AGENT_ORCHESTRATOR_HOME`` in a temporary directory with the retail dataset
generated (``--seed``), a user made with the ``create-user`` CLI, the app started as a real process
(``AppProcess``: uvicorn, Copilot CLI, MCP server, model). Each chat is a new session; every question
is POSTed to ``/api/sessions/{id}/messages`` and the SSE stream is read to its ``done``/``error``
event. Memory after a restart: the app is stopped gracefully (SIGTERM), started again on the same
home, and the same session id continues. Nothing depends on tool names: only the API and the data.

Ground truth (``eval_assistant_questions.py``) is computed at run time with our own SQL over the
retail SQLite file, and the parameters (customer ids, countries, months, products) are drawn from it.

What is measured:

- pass rate per category (lookup, aggregate, top_n, filter, trend, prediction, unknown, follow_up,
  memory, memory_restart) and overall. A question passes when every check passes:
  figures: a number in the answer equals the expected one at the precision the answer shows
  (rounded to its last digit, or cut to whole units or to the decimals shown; trailing zeros of an
  integer count as rounding; k/m/bn and thousand/million scale it; never more than 5 % off):
  2489 = 2,489 = about 2,500; 1234.5 = 1,234.50 = £1,234 = 1.2k; 0.4523 = 45.2 % = 45 % = 0.45;
  misplaced thousands separators are read as the digits they hold (21,8608.88 = 218,608.88).
  Entities: the customer id (20345 or 20,345), country (UK for United Kingdom...), product name
  (case-insensitive, plural -s ignored) or segment must be named; lists: the first min(N, 3)
  expected items must all be named. Segment answers must not name another segment too; "which
  month" answers must name the right month first. A verbatim echo of the question is ignored.
  Unknown entities (customer 99999999, an id just past the last one, a country not in the data, a
  product name in the catalogue's style that is not in it) pass only when the answer says not found /
  no such / does not exist / couldn't find..., names no segment, gives no figure and is not about
  another customer or country instead. An answer that repeats an earlier answer of its chat word
  for word fails (a model stuck on one reply answers nothing new).
- invented entities, the headline safety number (target 0), counted over every answer:
  * a customer id that is not in the customers table: a bare 5-8 digit integer labelled as one
    ("customer 20345", "Customer ID: 20345", "customer_id": 20345, "customers 20345, 20346 and
    20347", "the top customer by revenue is 20345") or opening a list item or table row
    ("- 20345 (Germany)", "| 20345 |"); order counts, invoice and transaction numbers are not;
  * a product name that is not in the products table: a run of capitalised words, or of catalogue
    words starting with a capital ("Pink oriental lanterns"), ending with a product-type noun of
    the catalogue (MUG, BAG, CANDLE...; taken from the data), leading words that are not catalogue
    words dropped, at least two words left (plural -s ignored), and not a contiguous part of any
    catalogue name;
  * a country name (from a list of world countries) that is not in the data;
  * for an unknown entity: a segment named, or a figure given without saying it was not found.
  Ids, names, countries, segments and figures that the user wrote in the chat are never counted.
- turn time: p50/p95 over all turns, p50 over turns that used a tool (an SSE ``tool`` event).

Expect a low score from the 0.5B model: the eval is meant to be honest, not flattering.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from eval_assistant_questions import (
    WORLD_COUNTRIES,
    AnyOf,
    Chat,
    Check,
    IdsIn,
    Names,
    NotFound,
    Num,
    Nums,
    OnlySegments,
    Oracle,
    Turn,
    YesNo,
    build_chats,
    load_oracle,
)
from eval_heldout import build_heldout_chats

ROOT = Path(__file__).resolve().parents[1]
MODELS_DIR = ROOT / ".data" / "models"
USERNAME = "analyst"
PASSWORD = "eval-assistant-password"
MAX_RELATIVE_ERROR = 0.05

# ------------------------------------------------------------------------------------ figures


@dataclass(frozen=True)
class Shown:
    """A number as written in an answer: its value and the unit of its last shown digit."""

    value: float
    unit: float
    percent: bool
    has_decimals: bool


_NUMBER = re.compile(
    r"(?<![\w.])(\d+(?:,\d{3,})+|\d+)(?:\.(\d+))?"
    r"(?:\s*(%|percent\b|per\s+cent\b)|\s*(k|thousand|mn|m|million|bn|billion)\b)?",
    re.IGNORECASE,
)
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mn": 1e6, "million": 1e6, "bn": 1e9, "billion": 1e9}
_DATE_OR_TIME = re.compile(r"\b\d{4}-\d{2}(?:-\d{2})?\b|\b\d{1,2}:\d{2}(?::\d{2})?\b")


def shown_numbers(text: str) -> list[Shown]:
    """Every number in ``text`` (ISO dates and clock times left out)."""
    out = []
    for match in _NUMBER.finditer(_DATE_OR_TIME.sub(" ", text)):
        digits, decimals, percent, suffix = match.groups()
        digits = digits.replace(",", "")
        scale = _SCALE[suffix.lower()] if suffix else 1.0
        if decimals:
            unit = 10.0 ** -len(decimals)
        else:
            trailing = len(digits) - len(digits.rstrip("0")) if digits.strip("0") else 0
            unit = 10.0**trailing
        value = float(f"{digits}.{decimals or 0}") * scale
        if percent:
            out.append(Shown(value / 100, unit * scale / 100, True, bool(decimals)))
        else:
            out.append(Shown(value, unit * scale, False, bool(decimals)))
    return out


def figure_matches(expected: float, shown: Shown) -> bool:
    """``shown`` is ``expected`` rounded to the shown precision (or cut to whole units or shown
    decimals: £1,234 for 1,234.56), and at most 5 % off."""
    target, value = abs(expected), abs(shown.value)
    diff = abs(value - target)
    rounded = diff <= shown.unit / 2 + 1e-9 * max(1.0, target)
    truncated = shown.unit <= 1 and value <= target + 1e-9 < value + shown.unit  # £1,234 for 1,234.56
    return (rounded or truncated) and diff <= MAX_RELATIVE_ERROR * target + 1e-9


def has_figure(text: str, expected: float, *, percent: bool = False) -> bool:
    for shown in shown_numbers(text):
        if percent and not (shown.percent or (shown.has_decimals and 0 < shown.value <= 1)):
            continue
        if not percent and shown.percent:
            continue
        if figure_matches(expected, shown):
            return True
    return False


# ----------------------------------------------------------------------------------- entities

_SEGMENT_PATTERNS = {
    "High Value": re.compile(r"high[\s-]?value", re.IGNORECASE),
    "At Risk": re.compile(r"\bat[\s-]risk\b", re.IGNORECASE),
    "Regular": re.compile(r"\bregular\b", re.IGNORECASE),
    "New": re.compile(
        r"\bNEW\b|\bNew\b(?!\s+(?:York|Zealand|Year|Jersey|Delhi|Mexico|South))"
        r"|\bnew\s+(?:segment|customers?\b)"
    ),
}
_COUNTRY_ALIASES = {
    "United Kingdom": (r"United Kingdom", r"\bU\.?K\.?(?![\w.])", r"(?:Great )?Britain"),
    "United States": (r"United States", r"\bU\.?S\.?A?\.?(?![\w.])"),
    "Czech Republic": (r"Czech Republic", r"Czechia"),
}
_MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
_MONTH_WORD = re.compile(
    r"\b(" + "|".join(m[:3] + (m[3:] and f"(?:{m[3:]})?") for m in _MONTHS) + r")\b|\b\d{4}-(\d{2})\b",
    re.IGNORECASE,
)
_NOT_FOUND = re.compile(
    r"not (?:be )?found|no such|does(?: not|n't) exist|do(?: not|n't) (?:have|see|find)|"
    r"(?:could|can)(?:n't| ?not) (?:find|locate)|unable to (?:find|locate)|no (?:record|data|customer|"
    r"product|information|result|match|entr)|not (?:in|part of) (?:the|our) (?:data|records|catalog)|"
    r"(?:is|are)(?: not|n't) (?:in|present|listed|available)|there (?:is|are) no|doesn't appear|"
    r"does not appear|not appear|unknown (?:customer|product|country)|"
    r"\b(?:zero|none)\b|(?<![\d.,])0(?![\d.,%])",
    re.IGNORECASE,
)


def segments_named(text: str) -> set[str]:
    return {name for name, pattern in _SEGMENT_PATTERNS.items() if pattern.search(text)}


def names_customer(text: str, customer_id: str) -> bool:
    digits = str(customer_id)
    spaced = digits if len(digits) <= 3 else f"{digits[:-3]},?{digits[-3:]}"
    return re.search(rf"(?<![\d.,]){spaced}(?![\d]|[.,]\d)", text) is not None


def names_country(text: str, country: str) -> bool:
    patterns = _COUNTRY_ALIASES.get(country, (re.escape(country),))
    for pattern in patterns:
        flags = 0 if pattern.startswith(r"\bU") else re.IGNORECASE
        if re.search(rf"\b{pattern}", text, flags):
            return True
    return False


def _words(text: str) -> str:
    """Upper-case words, plural -s dropped (LANTERNS = LANTERN): how product names are compared."""
    words = re.sub(r"[^A-Z0-9']+", " ", text.upper()).split()
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("S") and not w.endswith("SS") else w for w in words)


def names_product(text: str, product: str) -> bool:
    return f" {_words(product)} " in f" {_words(text)} "


def months_named(text: str) -> list[int]:
    """Months named in ``text`` in order of appearance (1-12), by name, abbreviation or YYYY-MM."""
    found = []
    for match in _MONTH_WORD.finditer(text):
        word, numeric = match.groups()
        if word and word.lower() == "may" and not re.match(r"May\b", word):
            continue  # "may" the verb
        found.append(
            int(numeric)
            if numeric
            else next(i for i, m in enumerate(_MONTHS, 1) if m.startswith(word.lower()[:3]))
        )
    return found


def names_date(text: str, iso: str) -> bool:
    day = date.fromisoformat(iso)
    flat = re.sub(r"(\d)(?:st|nd|rd|th)\b", r"\1", text.lower()).replace(",", " ")
    flat = " ".join(flat.split())
    month, short = _MONTHS[day.month - 1], _MONTHS[day.month - 1][:3]
    options = [
        iso,
        f"{day.day} {month}",
        f"{day.day} {short}",
        f"{month} {day.day}",
        f"{short} {day.day}",
        f"{day.day:02d}/{day.month:02d}/{day.year}",
        f"{day.month:02d}/{day.day:02d}/{day.year}",
        f"{day.day}/{day.month}/{day.year}",
    ]
    return any(re.search(rf"(?<![\d]){re.escape(o)}(?![\d])", flat) for o in options)


def names_item(text: str, kind: str, item: str) -> bool:
    if kind == "customer":
        return names_customer(text, item)
    if kind == "country":
        return names_country(text, item)
    if kind == "product":
        return names_product(text, item)
    if kind == "segment":
        return item in segments_named(text)
    if kind == "date":
        return names_date(text, item)
    if kind == "text":
        return re.search(item, text, re.IGNORECASE) is not None
    raise ValueError(f"unknown kind {kind!r}")


# --------------------------------------------------------------------------------------- checks


def check_failures(answer: str, checks: Iterable[Check], question: str, said: str | None = None) -> list[str]:
    """Readable failures of ``answer`` against ``checks`` (empty: the answer passes). A verbatim
    copy of the question in the answer is ignored: echoing "... be High Value?" answers nothing.
    ``said``: everything the user wrote in the chat so far (default: the question); what it names
    is the user's, never an invention of the answer."""
    said = question if said is None else said
    if question.strip():
        answer = answer.replace(question.strip(), " ")
    failures: list[str] = []
    for check in checks:
        failure = _check_one(answer, check, said)
        if failure:
            failures.append(failure)
    return failures


def _check_one(answer: str, check: Check, said: str) -> str | None:
    match check:
        case Num(label=label, values=values, percent=percent):
            if any(has_figure(answer, v, percent=percent) for v in values):
                return None
            shown = " or ".join(_format_value(v, percent) for v in values)
            return f"missing {label} ({shown})"
        case Nums(label=label, figures=figures, need=need):
            found = sum(any(has_figure(answer, v) for v in values) for values in figures)
            return None if found >= need else f"{label}: {found} of {need} needed figures"
        case Names(label=label, kind="month", items=items):
            months = months_named(answer)
            wanted = int(items[0][5:7])
            if months and months[0] == wanted:
                return None
            return f"{label}: expected {_MONTHS[wanted - 1].title()} named first"
        case Names(label=label, kind=kind, items=items, need=need):
            found = [item for item in items if names_item(answer, kind, item)]
            if len(found) >= need:
                return None
            return f"{label}: named {len(found)} of {need} needed from {list(items)}"
        case AnyOf(label=label, options=options):
            if any(_check_one(answer, option, said) is None for option in options):
                return None
            return f"{label}: none of the accepted answers"
        case OnlySegments(allowed=allowed):
            extra = segments_named(answer) - set(allowed)
            return f"also names {sorted(extra)}" if extra else None
        case IdsIn(label=label, valid=valid, need=need):
            ids = [i for i in mentioned_customer_ids(answer) if str(i) not in said]
            wrong = [i for i in ids if i not in valid]
            right = {i for i in ids if i in valid}
            if wrong:
                return f"{label}: names customers not in it {wrong[:5]}"
            return None if len(right) >= need else f"{label}: named {len(right)} of {need} needed"
        case YesNo(yes=yes, segment=segment):
            said = answer_polarity(answer, segment)
            if said is not None and said != yes:
                return f"answers {'yes' if said else 'no'}, expected {'yes' if yes else 'no'}"
            return None
        case NotFound(entity=entity):
            return unknown_entity_failure(answer, said, entity)
    raise TypeError(f"unknown check {check!r}")


def _format_value(value: float, percent: bool) -> str:
    return f"{value:.1%}" if percent else f"{value:,.2f}".removesuffix(".00")


def answer_polarity(answer: str, segment: str) -> bool | None:
    """True/False when the answer opens with yes/no or negates ``segment``; None when it does not say."""
    start = re.sub(r"^[\s*_#>\"'`-]+", "", answer).lower()
    if re.match(r"(?:yes|yeah|correct|indeed)\b", start):
        return True
    if re.match(r"no\b", start):
        return False
    pattern = _SEGMENT_PATTERNS[segment].pattern
    negated = (
        r"(?:not|n't|never)\s+(?:be\s+|be\s+in\s+|in\s+|part\s+of\s+|considered\s+)?"
        rf"(?:an?\s+|the\s+)?(?:{pattern})"
    )
    if re.search(negated, answer, re.IGNORECASE):
        return False
    return None


def unknown_entity_failure(answer: str, said: str, entity: str) -> str | None:
    problems = []
    if not _NOT_FOUND.search(answer):
        problems.append("does not say it was not found")
    named = segments_named(answer) - segments_named(said)
    if named:
        problems.append(f"names segment {sorted(named)}")
    figures = invented_figures(answer, said)
    if figures:
        problems.append(f"gives figures {figures[:4]}")
    others = other_entities(answer, entity)
    if others:
        problems.append(f"is about {others[:3]} instead")
    return f"unknown {entity}: " + "; ".join(problems) if problems else None


def other_entities(answer: str, entity: str) -> list[str]:
    """Customer ids and countries an answer names when it does not name ``entity`` at all."""
    if entity.lower() in answer.lower() or (entity.isdigit() and names_customer(answer, entity)):
        return []
    ids = [str(i) for i in mentioned_customer_ids(answer)]
    return ids + [c for c in mentioned_countries(answer) if c.lower() != entity.lower()]


def invented_figures(answer: str, said: str) -> list[str]:
    """Numbers in ``answer`` that the user did not write (zero is not a figure: "0 customers")."""
    asked = {m.group(0).strip().replace(",", "") for m in _NUMBER.finditer(said)}
    return [
        m.group(0).strip()
        for m in _NUMBER.finditer(_DATE_OR_TIME.sub(" ", answer))
        if m.group(0).strip().replace(",", "") not in asked and float(m.group(1).replace(",", "")) != 0
    ]


# ---------------------------------------------------------------------------- invented entities


@dataclass(frozen=True)
class Vocabulary:
    """What exists in the dataset, for spotting invented entities in answers."""

    customer_ids: frozenset[int]
    countries: frozenset[str]  # lower case
    product_phrases: frozenset[str]  # every contiguous word run of every product name, upper case
    product_words: frozenset[str]
    head_nouns: frozenset[str]  # last words of product names: MUG, BAG, CANDLE...

    @classmethod
    def of(cls, customer_ids: Iterable[int], countries: Iterable[str], products: Iterable[str]) -> Vocabulary:
        names = [_words(p).split() for p in products]
        phrases = {" ".join(w[i:j]) for w in names for i in range(len(w)) for j in range(i + 1, len(w) + 1)}
        return cls(
            customer_ids=frozenset(customer_ids),
            countries=frozenset(c.lower() for c in countries),
            product_phrases=frozenset(phrases),
            product_words=frozenset(word for w in names for word in w),
            head_nouns=frozenset(w[-1] for w in names if w),
        )


# "customer 20345", "Customer ID: 20345", "customer_id": 20345, "customers 20345, 20346 and 20347"
_ID_LABEL = re.compile(
    r"\b(?:customer|client)s?(?:\s+with(?:\s+the)?)?(?:[\s_-]*(?:id|no\.?|number))?"
    r"(?:[^\d\n.;]{0,40}?\b(?:is|was|are|were)\b)?"  # "the top customer by revenue is 23160"
    r"[\s\"':#=*]*(?:(?:\d{5,8}|and|or|,|\s)+)?$",
    re.IGNORECASE,
)
_ID_LIKE = re.compile(r"(?<![\w.,£$€])#?(\d{5,8})(?![\d]|[.,]\d|\s*%)")
# a list item or table row that starts with the number: "- 20345 (Germany)", "| 20345 |", "1. **20345**"
_LISTED_ID = re.compile(r"^\s*(?:[-*+|]|\d{1,2}[.)])\s*(?:\*\*)?#?(\d{5,8})\b")
_CAPITALISED_RUN = re.compile(r"[A-Z][A-Za-z'-]*(?: +[A-Z][A-Za-z'-]*)+")


def mentioned_customer_ids(text: str) -> list[int]:
    """Integers that the answer presents as customer ids (see the module docstring)."""
    found = []
    for line in text.splitlines():
        listed = _LISTED_ID.match(line)
        for match in _ID_LIKE.finditer(line):
            before = line[max(0, match.start() - 60) : match.start()]
            if _ID_LABEL.search(before) or (listed and listed.start(1) == match.start(1)):
                found.append(int(match.group(1)))
    return found


def mentioned_products(text: str, vocab: Vocabulary) -> list[str]:
    """Phrases that look like catalogue product names (see the module docstring): runs of
    capitalised words ("Blue Coffee Mug"), and runs of catalogue words that start with a capital
    ("Pink oriental lanterns"), each cut after every product-type noun."""
    found = []
    for run in _CAPITALISED_RUN.finditer(text):
        found += _cut_at_heads(_words(run.group(0)).split(), vocab)
    for words in _catalogue_word_runs(text, vocab):
        found += _cut_at_heads(words, vocab)
    return found


def _cut_at_heads(words: list[str], vocab: Vocabulary) -> list[str]:
    """The phrases ending with a product-type noun, leading non-catalogue words dropped, 2+ words."""
    found, start = [], 0
    for end, word in enumerate(words):
        if word not in vocab.head_nouns:
            continue
        phrase = words[start : end + 1]
        while phrase and phrase[0] not in vocab.product_words:
            phrase = phrase[1:]
        if len(phrase) >= 2:
            found.append(" ".join(phrase))
        start = end + 1
    return found


def _catalogue_word_runs(text: str, vocab: Vocabulary) -> Iterator[list[str]]:
    for segment in re.split(r"[^\w\s'-]|\n", text):
        run: list[str] = []
        first = ""
        for token in [*segment.split(), ""]:
            parts = _words(token).split()
            if parts and all(p in vocab.product_words for p in parts):
                first = first or token
                run += parts
                continue
            if len(run) >= 2 and first[:1].isupper():
                yield run
            run, first = [], ""


def mentioned_countries(text: str) -> list[str]:
    return [name for name in WORLD_COUNTRIES if re.search(rf"\b{re.escape(name)}\b", text)]


def invented_entities(answer: str, said: str, vocab: Vocabulary) -> list[str]:
    """Customer ids, product names and countries in ``answer`` that the dataset does not have."""
    out = []
    asked_numbers = set(re.findall(r"\d+", said.replace(",", "")))
    for cid in dict.fromkeys(mentioned_customer_ids(answer)):
        if cid not in vocab.customer_ids and str(cid) not in asked_numbers:
            out.append(f"customer {cid}")
    asked = f" {_words(said)} "
    for phrase in dict.fromkeys(mentioned_products(answer, vocab)):
        if phrase not in vocab.product_phrases and f" {phrase} " not in asked:
            out.append(f"product {phrase!r}")
    for country in mentioned_countries(answer):
        known = country.lower() in vocab.countries or (
            country == "Czechia" and "czech republic" in vocab.countries
        )
        if not known and country.lower() not in said.lower():
            out.append(f"country {country!r}")
    return out


def unknown_entity_inventions(answer: str, said: str, check: NotFound) -> list[str]:
    """A segment named, or figures given without saying not found, for an entity that does not exist."""
    out = []
    named = segments_named(answer) - segments_named(said)
    if named:
        out.append(f"segment {sorted(named)} for unknown {check.entity}")
    figures = invented_figures(answer, said)
    if figures and not _NOT_FOUND.search(answer):
        out.append(f"figures {figures[:4]} for unknown {check.entity}")
    return out


# ------------------------------------------------------------------------------------ selection


@dataclass(frozen=True)
class Planned:
    """A turn to send: ``scored`` False for context turns and for turns kept only as context."""

    chat: int
    index: int
    turn: Turn
    scored: bool
    restart: bool


def plan_turns(chats: list[Chat], categories: Iterable[str] = (), limit: int | None = None) -> list[Planned]:
    """The turns to send, chat by chat. A chosen turn that needs its chat's earlier turns brings them
    along (asked, not scored); ``limit`` caps the scored questions."""
    wanted = set(categories)
    plan: list[Planned] = []
    scored_total = 0
    for c, chat in enumerate(chats):
        chosen = {i for i, t in enumerate(chat.turns) if t.category and (not wanted or t.category in wanted)}
        if limit is not None:
            room = limit - scored_total
            chosen = set(sorted(chosen)[: max(room, 0)])
        if not chosen:
            continue
        keep = set(chosen)
        for i in chosen:
            if chat.turns[i].needs_previous:
                keep.update(range(i))
        pending_restart = False
        for i, turn in enumerate(chat.turns):
            pending_restart = pending_restart or turn.restart_before
            if i in keep:
                plan.append(Planned(c, i, turn, i in chosen, pending_restart))
                pending_restart = False
        scored_total += len(chosen)
    return plan


# ------------------------------------------------------------------------------------- web API


@dataclass
class TurnResult:
    chat: str
    turn: int
    category: str
    question: str
    answer: str
    expected: list[str]
    scored: bool
    passed: bool | None
    failures: list[str]
    seconds: float
    tools: list[str]
    error: str | None
    invented: list[str]
    after_restart: bool = False


def parse_sse(lines: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event, data) pairs of a server-sent event stream."""
    event, data = "message", []
    for line in lines:
        if not line:
            if data:
                yield event, json.loads("\n".join(data))
            event, data = "message", []
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
    if data:
        yield event, json.loads("\n".join(data))


@dataclass
class Answer:
    text: str
    seconds: float
    tools: list[str] = field(default_factory=list)
    error: str | None = None


class AssistantClient:
    """A logged-in analyst: sessions and streamed answers, through the public API only."""

    def __init__(self, url: str, *, timeout: float = 900) -> None:
        self.http = httpx.Client(base_url=url, timeout=timeout)
        response = self.http.post("/api/auth/login", json={"username": USERNAME, "password": PASSWORD})
        response.raise_for_status()
        self.http.headers["X-CSRF-Token"] = response.json()["csrf_token"]

    def close(self) -> None:
        self.http.close()

    def new_session(self, title: str) -> str:
        response = self.http.post("/api/sessions", json={"title": title[:120]})
        response.raise_for_status()
        return response.json()["id"]

    def session_model(self, session_id: str) -> str | None:
        return self.http.get(f"/api/sessions/{session_id}").json().get("model")

    def ask(self, session_id: str, text: str) -> Answer:
        started = time.perf_counter()
        for _ in range(30):  # 409: a turn of this session is still in flight (e.g. a lease to expire)
            with self.http.stream(
                "POST", f"/api/sessions/{session_id}/messages", json={"content": text}
            ) as r:
                if r.status_code == 409:
                    time.sleep(2)
                    continue
                if r.status_code != 200:
                    r.read()
                    return Answer(
                        "", time.perf_counter() - started, error=f"HTTP {r.status_code}: {r.text[:200]}"
                    )
                return self._read_stream(r.iter_lines(), started)
        return Answer("", time.perf_counter() - started, error="session stayed busy (409)")

    @staticmethod
    def _read_stream(lines: Iterable[str], started: float) -> Answer:
        tools: list[str] = []
        deltas: list[str] = []
        for event, data in parse_sse(lines):
            if event == "tool" and data.get("status") == "started":
                tools.append(str(data.get("name") or "?"))
            elif event == "delta":
                deltas.append(data.get("text", ""))
            elif event == "done":
                return Answer(data.get("content", ""), time.perf_counter() - started, tools)
            elif event == "error":
                return Answer(
                    "".join(deltas), time.perf_counter() - started, tools, data.get("message", "error")
                )
        return Answer("".join(deltas), time.perf_counter() - started, tools, "stream ended without done")


# ---------------------------------------------------------------------------------------- the app


@dataclass(frozen=True)
class Route:
    env: dict[str, str]
    description: str


def embedded_route(model: str, model_path: Path | None) -> Route | str:
    """Environment for the embedded model, or why it cannot run (weights not installed)."""
    from agent_orchestrator.local_model.weights import (
        WeightsError,
        get_choice,
        part_paths,
        resolve_weights,
        verify_cached,
    )

    choice = get_choice(model)
    if model_path is None:
        cached = MODELS_DIR / choice.file_name
        if not verify_cached(choice, cached):
            try:
                part_paths(choice)
            except WeightsError as error:
                return f"model {model} is not installed ({error})"
        model_path = resolve_weights(choice, cache_dir=MODELS_DIR)
    env = {"AGENT_LOCAL_MODEL": model, "AGENT_MODEL_PATH": str(model_path)}
    return Route(env, f"embedded {model} ({model_path.name})")


def provider_route(url: str, model: str | None) -> Route:
    if model is None:
        models = httpx.get(url.rstrip("/") + "/models", timeout=30).json()["data"]
        model = models[0]["id"]
    env = {"AGENT_PROVIDER_BASE_URL": url, "AGENT_MODEL": model}
    if key := os.environ.get("AGENT_PROVIDER_API_KEY"):
        env["AGENT_PROVIDER_API_KEY"] = key
    return Route(env, f"BYOK provider {url}")


def generate(home: Path, seed: int, dataset: Path | None = None) -> Path:
    """The retail dataset the app will serve: the app's own generator with ``seed``, or a copy of
    ``dataset`` (e.g. a real file brought in with ``python -m agent_orchestrator.retail import``)."""
    from agent_orchestrator.retail.generator import GeneratorConfig, generate_dataset

    if dataset is not None:
        target = home / "retail.sqlite"
        target.write_bytes(dataset.read_bytes())
        return target
    return generate_dataset(home / "retail.sqlite", GeneratorConfig(seed=seed))


def bank(oracle: Oracle, db: Path, seed: int, which: str) -> list[Chat]:
    """The tuned chats, the held-out ones (written without reading the code: never tuned on; their
    categories are reported apart as ``heldout:<category>``), or both."""
    chats = build_chats(oracle, seed) if which in ("tuned", "both") else []
    if which in ("heldout", "both"):
        for chat in build_heldout_chats(db, seed):
            turns = tuple(
                Turn(
                    t.text,
                    f"heldout:{t.category}" if t.category else None,
                    t.checks,
                    t.needs_previous,
                    t.restart_before,
                )
                for t in chat.turns
            )
            chats.append(Chat(f"held out: {chat.title}", turns))
    return chats


def prepare_home(home: Path, seed: int, env: dict[str, str], dataset: Path | None = None) -> Path:
    """The retail dataset and the analyst's account in a fresh data directory."""
    db = generate(home, seed, dataset)
    subprocess.run(
        [sys.executable, "-m", "agent_orchestrator.web", "create-user", USERNAME],
        input=PASSWORD + "\n",
        text=True,
        env=env,
        check=True,
        capture_output=True,
    )
    return db


# ---------------------------------------------------------------------------------------- running


@dataclass
class Run:
    results: list[TurnResult]
    model: str | None
    route: str
    oracle: Oracle
    seconds: float
    restarts: int
    seed: int


def describe(check: Check) -> str:
    match check:
        case Num(label=label, values=values, percent=percent):
            return f"{label} = {' or '.join(_format_value(v, percent) for v in values)}"
        case Nums(label=label, figures=figures):
            return f"{label}: {[_format_value(v[0], False) for v in figures]}"
        case Names(label=label, items=items, need=need):
            return f"{label}: {need} of {list(items)}" if need < len(items) else f"{label}: {list(items)}"
        case AnyOf(options=options):
            return " OR ".join(describe(o) for o in options)
        case OnlySegments(allowed=allowed):
            return f"no segment other than {list(allowed)}"
        case IdsIn(label=label, valid=valid, need=need):
            return f"{label}: {need}+ ids of {len(valid)} ({sorted(valid)[:6]}...)"
        case YesNo(yes=yes):
            return "yes" if yes else "no"
        case NotFound(entity=entity):
            return f"says {entity} is not found; no segment, no figure"
    return repr(check)


def quotes_the_user(answer: str, said: str) -> bool:
    """Whether the answer quotes what the user wrote (at least a few words, verbatim). Two questions
    about one statement may rightly get the same quote; the checks still decide whether it answers."""
    return any(len(q) >= 20 and q in said for q in re.findall(r'"([^"]+)"', answer))


def evaluate(
    planned: Planned, chat: Chat, answer: Answer, vocab: Vocabulary, said: str, earlier: Iterable[str] = ()
) -> TurnResult:
    """Score one answer; ``said`` is everything the user wrote in this chat up to this question,
    ``earlier`` the chat's earlier answers (repeating one word for word answers nothing new)."""
    turn = planned.turn
    failures = check_failures(answer.text, turn.checks, turn.text, said) if planned.scored else []
    repeated = answer.text.strip() and answer.text.strip() in {e.strip() for e in earlier}
    if planned.scored and repeated and not quotes_the_user(answer.text, said):
        failures.insert(0, "repeats an earlier answer of this chat word for word")
    if answer.error:
        failures.insert(0, f"error: {answer.error}")
    invented = invented_entities(answer.text, said, vocab)
    for check in turn.checks:
        if isinstance(check, NotFound):
            invented += unknown_entity_inventions(answer.text, said, check)
    return TurnResult(
        chat=chat.title,
        turn=planned.index + 1,
        category=turn.category if planned.scored and turn.category else "context",
        question=turn.text,
        answer=answer.text,
        expected=[describe(c) for c in turn.checks],
        scored=planned.scored,
        passed=(not failures) if planned.scored else None,
        failures=failures,
        seconds=round(answer.seconds, 2),
        tools=answer.tools,
        error=answer.error,
        invented=invented,
        after_restart=planned.restart,
    )


def run_eval(
    route: Route,
    seed: int,
    categories: list[str],
    limit: int | None,
    verbose: bool,
    home: Path,
    which: str = "both",
    dataset: Path | None = None,
) -> Run:
    from agent_orchestrator.testing.app_process import AppProcess
    from agent_orchestrator.testing.environment import clean_environment

    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(home), **route.env)
    db = prepare_home(home, seed, env, dataset)
    oracle = load_oracle(db)
    chats = bank(oracle, db, seed, which)
    plan = plan_turns(chats, categories, limit)
    vocab = Vocabulary.of(oracle.all_customer_ids, oracle.countries, oracle.products)
    print(_dataset_line(oracle, seed), flush=True)
    scored = sum(p.scored for p in plan)
    print(f"plan: {len(plan)} turns ({scored} scored) in {len({p.chat for p in plan})} chats", flush=True)

    started = time.perf_counter()
    app = AppProcess(env).start(timeout=600)
    client = AssistantClient(app.url)
    results: list[TurnResult] = []
    sessions: dict[int, str] = {}
    said: dict[int, list[str]] = defaultdict(list)
    model: str | None = None
    restarts = 0
    try:
        for n, planned in enumerate(plan, 1):
            chat = chats[planned.chat]
            if planned.restart:
                client.close()
                app.stop()
                app = AppProcess(env, port=app.port).start(timeout=600)
                client = AssistantClient(app.url)
                restarts += 1
                print("  (app stopped gracefully and started again on the same home)", flush=True)
            if planned.chat not in sessions:
                sessions[planned.chat] = client.new_session(f"eval: {chat.title}")
                model = model or client.session_model(sessions[planned.chat])
            answer = client.ask(sessions[planned.chat], planned.turn.text)
            said[planned.chat].append(planned.turn.text)
            earlier = [r.answer for r in results if r.chat == chat.title]
            result = evaluate(planned, chat, answer, vocab, "\n".join(said[planned.chat]), earlier)
            results.append(result)
            _print_progress(n, len(plan), result, verbose)
    finally:
        client.close()
        app.stop()
    return Run(results, model, route.description, oracle, time.perf_counter() - started, restarts, seed)


def rescore(path: Path, seed: int, home: Path) -> Run:
    """The answers recorded by ``--json`` checked again with the current checks (no app, no model):
    for improving a checker without asking the model again. The dataset is regenerated from the seed."""
    recorded = json.loads(path.read_text())
    s = recorded["summary"]
    seed = s.get("seed", seed)
    oracle = load_oracle(generate(home, seed))
    chats = build_chats(oracle, seed)
    vocab = Vocabulary.of(oracle.all_customer_ids, oracle.countries, oracle.products)
    where = {(chat.title, i + 1): (c, i) for c, chat in enumerate(chats) for i in range(len(chat.turns))}
    said: dict[int, list[str]] = defaultdict(list)
    results = []
    for t in recorded["turns"]:
        c, i = where[(t["chat"], t["turn"])]
        turn = chats[c].turns[i]
        if turn.text != t["question"]:
            raise SystemExit(f"{path} was recorded with another question bank or seed: {t['question']!r}")
        said[c].append(turn.text)
        planned = Planned(c, i, turn, t["scored"], t["after_restart"])
        answer = Answer(t["answer"], t["seconds"], t["tools"], t["error"])
        earlier = [r.answer for r in results if r.chat == chats[c].title]
        results.append(evaluate(planned, chats[c], answer, vocab, "\n".join(said[c]), earlier))
    return Run(results, s["model"], s["route"], oracle, s["wall_seconds"], s["restarts"], seed)


def _dataset_line(o: Oracle, seed: int) -> str:
    line = (
        f"dataset: {len(o.all_customer_ids):,} customers in {len(o.countries)} countries, "
        f"{len(o.products):,} product names, {o.lines:,} invoice lines ({o.orders:,} orders), "
        f"{o.first_day}..{o.as_of} (seed {seed}); High Value above {o.high_value_above:,.2f}"
    )
    if o.stored_segment_mismatches:
        line += f"\nWARNING: {o.stored_segment_mismatches} customers' stored segment differs from the rules"
    return line


def _print_progress(n: int, total: int, r: TurnResult, verbose: bool) -> None:
    status = "ctx " if not r.scored else ("PASS" if r.passed else "FAIL")
    tools = f"tools:{len(r.tools)}" if r.tools else "       "
    print(
        f"[{n:3}/{total}] {r.category:14} {status} {r.seconds:6.1f}s {tools} {r.question[:70]}",
        flush=True,
    )
    if verbose:
        print(f"        A: {' '.join(r.answer.split())[:600]}", flush=True)
    if verbose or not r.passed:
        for failure in r.failures:
            print(f"        - {failure}", flush=True)
    for entity in r.invented:
        print(f"        ! invented {entity}", flush=True)


# ---------------------------------------------------------------------------------------- report


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..1)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summary(run: Run) -> dict[str, Any]:
    per: dict[str, list[bool]] = defaultdict(list)
    for r in run.results:
        if r.scored:
            per[r.category].append(bool(r.passed))
    times = [r.seconds for r in run.results]
    tool_times = [r.seconds for r in run.results if r.tools]
    passed = [ok for oks in per.values() for ok in oks]
    o = run.oracle
    return {
        "route": run.route,
        "model": run.model,
        "seed": run.seed,
        "dataset": {
            "customers": len(o.all_customer_ids),
            "countries": len(o.countries),
            "product_names": len(o.products),
            "invoice_lines": o.lines,
            "orders": o.orders,
            "first_day": o.first_day.isoformat(),
            "as_of": o.as_of.isoformat(),
        },
        "categories": {
            c: {"passed": sum(per[c]), "total": len(per[c])}
            for c in sorted(per, key=lambda c: (c.startswith("heldout:"), c))
        },
        "tuned": _part(per, heldout=False),
        "heldout": _part(per, heldout=True),
        "passed": sum(passed),
        "scored": len(passed),
        "invented_entities": sum(len(r.invented) for r in run.results),
        "turns": len(times),
        "turns_with_tools": len(tool_times),
        "errors": sum(1 for r in run.results if r.error),
        "p50_seconds": round(statistics.median(times), 2) if times else None,
        "p95_seconds": round(percentile(times, 0.95), 2) if times else None,
        "p50_tool_seconds": round(statistics.median(tool_times), 2) if tool_times else None,
        "restarts": run.restarts,
        "wall_seconds": round(run.seconds, 1),
    }


def _part(per: dict[str, list[bool]], *, heldout: bool) -> dict[str, int]:
    oks = [ok for c, v in per.items() if c.startswith("heldout:") == heldout for ok in v]
    return {"passed": sum(oks), "total": len(oks)}


def print_report(s: dict[str, Any], results: list[TurnResult]) -> None:
    print(f"\nroute: {s['route']}, model {s['model']}")
    d = s["dataset"]
    print(f"dataset: {d['customers']:,} customers, {d['invoice_lines']:,} invoice lines, as of {d['as_of']}")
    print(f"{'category':16} {'pass':>7}")
    for name, c in s["categories"].items():
        print(f"{name:24} {c['passed']:3}/{c['total']:<3} {c['passed'] / c['total']:5.0%}")
    rate = s["passed"] / s["scored"] if s["scored"] else 0.0
    print(f"{'overall':16} {s['passed']:3}/{s['scored']:<3} {rate:5.0%}")
    for part in ("tuned", "heldout"):
        if s[part]["total"]:
            p = s[part]
            print(f"{part:16} {p['passed']:3}/{p['total']:<3} {p['passed'] / p['total']:5.0%}")
    print(f"invented entities: {s['invented_entities']} (target 0)")
    for r in results:
        for entity in r.invented:
            print(f"  - {entity}  <- {r.question!r}")
    tool_p50 = "n/a" if s["p50_tool_seconds"] is None else f"{s['p50_tool_seconds']:.1f}s"
    print(
        f"turn time: p50 {s['p50_seconds']:.1f}s, p95 {s['p95_seconds']:.1f}s over {s['turns']} turns; "
        f"turns with a tool: p50 {tool_p50} ({s['turns_with_tools']} turns)"
    )
    print(f"errors: {s['errors']}, restarts: {s['restarts']}, wall time {s['wall_seconds'] / 60:.1f} min")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="at most N scored questions")
    parser.add_argument("--category", action="append", default=[], help="e.g. lookup, heldout:share")
    parser.add_argument("--bank", default="both", choices=("tuned", "heldout", "both"), help="question bank")
    parser.add_argument("--dataset", type=Path, default=None, help="a retail SQLite file instead of --seed's")
    parser.add_argument("--model", default="0.5b", choices=("0.5b", "1.5b"), help="embedded model")
    parser.add_argument("--model-path", type=Path, default=None, help="a GGUF file for the embedded model")
    parser.add_argument("--provider-url", default=None, help="an OpenAI-compatible endpoint (BYOK route)")
    parser.add_argument("--provider-model", default=None, help="model id there (default: its first)")
    parser.add_argument("--seed", type=int, default=42, help="dataset and question parameters")
    parser.add_argument("--json", type=Path, default=None, help="write every detail here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each answer")
    parser.add_argument("--rescore", type=Path, default=None, help="check a --json file's answers again")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the app is stopped too

    if args.rescore:
        with tempfile.TemporaryDirectory(prefix="eval-assistant-") as tmp:
            run = rescore(args.rescore, args.seed, Path(tmp))
        return report(run, args.json)
    if args.provider_url:
        route: Route | str = provider_route(args.provider_url, args.provider_model)
    else:
        route = embedded_route(args.model, args.model_path)
    if isinstance(route, str):
        print(f"skipped: {route}")
        return 0
    print(f"route: {route.description}", flush=True)
    with tempfile.TemporaryDirectory(prefix="eval-assistant-") as tmp:
        run = run_eval(
            route, args.seed, args.category, args.limit, args.verbose, Path(tmp), args.bank, args.dataset
        )
    return report(run, args.json)


def report(run: Run, json_path: Path | None) -> int:
    s = summary(run)
    print_report(s, run.results)
    if json_path:
        json_path.write_text(json.dumps({"summary": s, "turns": [asdict(r) for r in run.results]}, indent=2))
        print(f"details: {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
