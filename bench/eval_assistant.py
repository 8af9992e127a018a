"""Answer-quality eval of the assistant through the real web API: ~250 analyst questions in chats.

    uv run python bench/eval_assistant.py                       # embedded 0.5B model, everything
    uv run python bench/eval_assistant.py --limit 6 --category unknown --category lookup -v
    uv run python bench/eval_assistant.py --list --dataset /work/evaldata/real.sqlite   # the plan only
    uv run python bench/eval_assistant.py --long-chat --category exclusion    # one chat per category
    uv run python bench/eval_assistant.py --model 1.5b --json /tmp/eval.json
    uv run python bench/eval_assistant.py --provider-url http://127.0.0.1:11434/v1 --provider-model qwen2.5:7b

Options: ``--limit N`` (scored questions), ``--category NAME`` (repeatable), ``--model 0.5b|1.5b``
(``AGENT_LOCAL_MODEL``; weights from ``.data/models`` or the installed part packages, never
downloaded: a model that is not installed is skipped with a message), ``--model-path GGUF``,
``--provider-url URL`` (+ ``--provider-model``; ``AGENT_PROVIDER_API_KEY`` is passed on) for any
OpenAI-compatible model, ``--seed`` (dataset and question parameters), ``--json PATH``, ``-v``,
``--rescore PATH`` (check the answers a ``--json`` file recorded again with the current checks,
without the app or a model: for improving a checker), ``--bank tuned|heldout|dev|dev2|both|all``
(``both``: tuned + held-out, as before; ``all``: tuned + dev + dev2 + held-out), ``--dataset
SQLITE`` (a real file brought in with ``python -m agent_orchestrator.retail import``), ``--list``
(or ``--plan``: print the planned questions and the number per bank and category; no app, no model;
``-v`` adds the checks), ``--replay CASES.jsonl`` (ask again the answers analysts rated in the app,
as exported by an admin: ``eval_replay.py``), ``--long-chat`` (every question of a category in ONE
chat, in bank order: a follow-up brings the turns of its own chat that it refers back to as a block,
asked but scored only in their own category's chat; the test of whether a long conversation bleeds
one question into the next).

Four banks: the tuned one (``eval_assistant_questions.py``: lookups, aggregates, rankings, filters,
trends, predictions, unknown entities, follow-ups, memory, and analyst phrasings: paraphrase,
exclusion, minimum, single_day, share, comparison, tell_me_about, unanswerable, ranking), the dev one
(``eval_dev.py``, reported as ``dev:<category>``: written blind, but the app may be tuned on it), a
second dev one (``eval_dev2.py``, ``dev2:<category>``, written blind the same way) and
the held-out one (``eval_heldout.py``, reported as ``heldout:<category>``: never tuned on). All build
on the generated data and on an imported file (a question the file cannot give a truth for is left
out on it).

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
- foreign entities (each fails its answer, counted beside 'invented'): a customer id, country,
  product or segment that a scored answer names although neither its question (with, for a
  follow-up, the earlier questions of its chat that it refers back to) nor the truth names it. The
  truth is what the checks name plus the turn's ``related`` entities (the rest of a ranking's head,
  a country's top products for "tell me about"), and an asked or true customer's own country and
  segment. In a long chat the other questions of the chat are not "asked": naming Germany in the
  answer about Spain because Germany came up three questions earlier is a foreign entity.
- wrong units (each fails its answer, counted too): the expected figure shown only with a unit of
  another kind: "13,332.33 units" for revenue, "1,987 customers" for orders, "34,204 units in stock"
  for units sold, a currency the dataset does not declare ("£1,234" when ``python -m
  agent_orchestrator.retail currency`` says none, unless the user wrote £ in the chat; "$" when it
  says GBP). The kind of a figure is the check's ``unit`` or read from its label.
- questions the data cannot answer (profit, stock, weather, staff): the answer must say it cannot
  answer from this data, offer what it can answer instead, and give no made-up figure for it.
- turn time: p50/p95 over all turns, p50 over turns that used a tool (an SSE ``tool`` event).

Expect a low score from the 0.5B model: the eval is meant to be honest, not flattering.
"""

from __future__ import annotations

import argparse
import difflib
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
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from eval_assistant_questions import (
    PLACEHOLDER_COUNTRIES,
    UNIT_KINDS,
    WORLD_COUNTRIES,
    AnyOf,
    CannotAnswer,
    Chat,
    Check,
    IdsIn,
    Names,
    NotFound,
    Num,
    Nums,
    OnlySegments,
    Oracle,
    Ranked,
    Turn,
    YesNo,
    build_chats,
    load_oracle,
    unit_of,
)
from eval_dev import build_dev_chats
from eval_dev2 import build_dev2_chats
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
    return [_shown(match) for match in _number_matches(text)]


def _number_matches(text: str) -> Iterator[re.Match[str]]:
    """The numbers of ``text`` as matches at their places in it (dates and times blanked out)."""
    return _NUMBER.finditer(_DATE_OR_TIME.sub(lambda m: " " * len(m.group(0)), text))


def _shown(match: re.Match[str]) -> Shown:
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
        return Shown(value / 100, unit * scale / 100, True, bool(decimals))
    return Shown(value, unit * scale, False, bool(decimals))


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
    "South Africa": (r"South Africa", r"\bRSA\b"),
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
    # the wording the assistant is asked to use for what the data cannot answer
    r"can(?:no|')?t answer (?:that|this|it) from (?:this|the|our) data|holds? no|nothing in the data matches|"
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
        flags = 0 if pattern.startswith(r"\bU\.?S") else re.IGNORECASE  # "us" is a word, "uk" is not
        if re.search(rf"\b{pattern}", text, flags):
            return True
    return False


_WORLD_LOWER = frozenset(name.lower() for name in WORLD_COUNTRIES)


def typed_near(text: str, name: str) -> bool:
    """``text`` names ``name`` with a typo ("netherlnads"): as many words side by side, close by
    difflib's ratio (0.8), the same first letter."""
    words, size = re.findall(r"[a-z]+", text.lower()), len(name.split())
    wanted = name.lower()
    for i in range(len(words) - size + 1):
        typed = " ".join(words[i : i + size])
        if typed in _WORLD_LOWER:  # "Iceland" is a country of its own, no typo of "Ireland"
            continue
        if typed[0] == wanted[0] and difflib.SequenceMatcher(None, typed, wanted).ratio() >= 0.8:
            return True
    return False


def _words(text: str) -> str:
    """Upper-case words, plural -s dropped (LANTERNS = LANTERN): how product names are compared."""
    words = [w.strip("'") for w in re.sub(r"[^A-Z0-9']+", " ", text.upper()).split()]  # 'QUOTED NAME'
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
            # The month named first must be the one asked for: any of the truth's alternatives
            # ("the partial month or the weakest full month"), the answer's own order otherwise. The
            # reading the answer opens with may name a month left out ("excluding December: …").
            body = re.split(r":\s", answer, maxsplit=1)[-1]
            months = months_named(body) or months_named(answer)
            wanted = [int(item[5:7]) for item in items]
            if months and months[0] in wanted:
                return None
            named = " or ".join(dict.fromkeys(_MONTHS[w - 1].title() for w in wanted))
            return f"{label}: expected {named} named first"
        case Names(label=label, kind=kind, items=items, need=need):
            named = [item for item in items if names_item(answer, kind, item)]
            if len(named) >= need:
                return None
            return f"{label}: named {len(named)} of {need} needed from {list(items)}"
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
            polarity = answer_polarity(answer, segment)
            if polarity is not None and polarity != yes:
                return f"answers {'yes' if polarity else 'no'}, expected {'yes' if yes else 'no'}"
            return None
        case NotFound(entity=entity):
            return unknown_entity_failure(answer, said, entity)
        case Ranked(label=label, kind=kind, items=items):
            places = [first_place(answer, kind, item) for item in items]
            missing = [item for item, place in zip(items, places, strict=True) if place is None]
            if missing:
                return f"{label}: named {len(items) - len(missing)} of {len(items)} needed from {list(items)}"
            at = [place for place in places if place is not None]
            if at != sorted(at):
                order = [item for _, item in sorted(zip(at, items, strict=True))]
                return f"{label}: named in the order {order}, expected {list(items)}"
            return None
        case CannotAnswer():
            return cannot_answer_failure(answer, said, check)
    raise TypeError(f"unknown check {check!r}")


def first_place(text: str, kind: str, item: str) -> int | None:
    """Where ``item`` is first named in ``text`` (None: not named), for checking an order."""
    if kind == "customer":
        digits = str(item)
        spaced = digits if len(digits) <= 3 else f"{digits[:-3]},?{digits[-3:]}"
        patterns = [(rf"(?<![\d.,]){spaced}(?![\d]|[.,]\d)", 0)]
    elif kind == "country":
        aliases = _COUNTRY_ALIASES.get(item, (re.escape(item),))
        patterns = [(rf"\b{a}", 0 if a.startswith(r"\bU") else re.IGNORECASE) for a in aliases]
    elif kind == "segment":
        patterns = [(_SEGMENT_PATTERNS[item].pattern, _SEGMENT_PATTERNS[item].flags)]
    elif kind == "product":
        words = [re.escape(w) + "S?" for w in _words(item).split()]
        patterns = [(r"(?<![A-Za-z0-9])" + r"[^A-Za-z0-9']+".join(words) + r"(?![A-Za-z0-9])", re.IGNORECASE)]
    else:
        return 0 if names_item(text, kind, item) else None
    found = [m.start() for pattern, flags in patterns if (m := re.search(pattern, text, flags))]
    return min(found) if found else None


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


_CANNOT = re.compile(
    r"can(?:no|')?t\b|cannot|unable to|not able to|no way to|"
    r"(?:do|does|did)(?: not|n't) (?:have|hold|contain|include|record|track|cover|know|store|keep)|"
    r"(?:is|are|was|were)(?: not|n't) (?:available|recorded|tracked|included|stored|kept|part of|"
    r"in (?:the|this|our|your) (?:data|dataset|records))|"
    r"\bno (?:\w+ ){0,2}(?:data|information|records?|figures?|details)\b|"
    r"not (?:in|part of|covered by) (?:the|this|our|your) (?:data|dataset)|outside (?:the|this|what)|"
    r"only (?:has|have|holds|contains|covers|includes|records|tracks)|there(?: is|'s) no|"
    r"beyond (?:the|this|what)",
    re.IGNORECASE,
)
_OFFER = re.compile(
    r"\b(?:(?:i|you|we) (?:can|could)(?!n?'t|not)|instead|try asking|ask (?:me )?(?:about|for)|"
    r"what i (?:can|do)|happy to|would you like)\b",
    re.IGNORECASE,
)
_MEASURE_WORD = re.compile(
    r"\b(?:revenue|sales|orders?|units?|customers?|buyers?|segments?|products?|quantit(?:y|ies)|"
    r"countr(?:y|ies)|invoices?|transactions?)\b",
    re.IGNORECASE,
)


def cannot_answer_failure(answer: str, said: str, check: CannotAnswer) -> str | None:
    """A question the data cannot answer: the answer says so, offers what it can answer instead (an
    offer, or a measure the data has that the question did not name), and puts no figure the user
    did not write in a sentence (or clause: "..., but the margin is 35%") about the topic unless that
    clause says it cannot."""
    problems = []
    if not _CANNOT.search(answer):
        problems.append("does not say the data cannot answer it")
    asked = said.lower()
    offers = _OFFER.search(answer) or any(
        m.group(0).lower() not in asked for m in _MEASURE_WORD.finditer(answer)
    )
    if not offers:
        problems.append("offers nothing it can answer instead")
    topic = re.compile(check.pattern, re.IGNORECASE)
    for clause in re.split(r"(?<=[.!?])\s+|\n+|[;:]|,?\s+\b(?:but|however|though|although)\b", answer):
        figures = invented_figures(clause, said) if topic.search(clause) else []
        if figures and not _CANNOT.search(clause):
            problems.append(f"gives {figures[:3]} for {check.topic}")
            break
    return f"cannot answer {check.topic}: " + "; ".join(problems) if problems else None


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
    country_names: tuple[str, ...] = ()  # the data's countries as it spells them (EIRE, USA, RSA...)
    customer_facts: dict[int, tuple[str, str]] = field(default_factory=dict)  # id -> (country, segment)
    currency: str | None = None  # the ISO code the dataset declares, None: it declares none

    @classmethod
    def of(
        cls,
        customer_ids: Iterable[int],
        countries: Iterable[str],
        products: Iterable[str],
        *,
        customer_facts: dict[int, tuple[str, str]] | None = None,
        currency: str | None = None,
    ) -> Vocabulary:
        names = [_words(p).split() for p in products]
        phrases = {" ".join(w[i:j]) for w in names for i in range(len(w)) for j in range(i + 1, len(w) + 1)}
        countries = sorted(countries)
        return cls(
            customer_ids=frozenset(customer_ids),
            countries=frozenset(c.lower() for c in countries),
            product_phrases=frozenset(phrases),
            product_words=frozenset(word for w in names for word in w),
            head_nouns=frozenset(w[-1] for w in names if w),
            country_names=tuple(countries),
            customer_facts=dict(customer_facts or {}),
            currency=currency,
        )


def vocabulary(oracle: Oracle) -> Vocabulary:
    """What ``oracle``'s dataset holds, for the entity and unit checks."""
    return Vocabulary.of(
        oracle.all_customer_ids,
        oracle.countries,
        oracle.products,
        customer_facts={c.customer_id: (c.country, c.segment) for c in oracle.customers.values()},
        currency=oracle.currency,
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


# ----------------------------------------------------------------------------- foreign entities


@dataclass
class Entities:
    """Entities a question is about: customer ids, countries, product names and segments."""

    customers: set[int] = field(default_factory=set)
    countries: set[str] = field(default_factory=set)
    products: set[str] = field(default_factory=set)
    segments: set[str] = field(default_factory=set)

    def add(self, kind: str, item: str) -> None:
        if kind == "customer" and str(item).isdigit():
            self.customers.add(int(item))
        elif kind == "country":
            self.countries.add(item)
        elif kind == "product":
            self.products.add(item)
        elif kind == "segment":
            self.segments.add(item)


def truth_entities(turns: Iterable[Turn]) -> Entities:
    """The entities named by the truths of ``turns``: their checks' items (ranked, listed, valid ids,
    allowed segments, the unknown entity itself) and what each turn lists as ``related``."""
    out = Entities()

    def walk(check: Check) -> None:
        match check:
            case Names(kind=kind, items=items) | Ranked(kind=kind, items=items):
                for item in items:
                    out.add(kind, item)
            case AnyOf(options=options):
                for option in options:
                    walk(option)
            case IdsIn(valid=valid):
                out.customers.update(valid)
            case OnlySegments(allowed=allowed):
                out.segments.update(allowed)
            case YesNo(segment=segment):
                out.segments.add(segment)
            case NotFound(entity=entity):
                if entity.isdigit():
                    out.customers.add(int(entity))
                else:
                    out.countries.add(entity)
                    out.products.add(entity)

    for turn in turns:
        for check in turn.checks:
            walk(check)
        for kind, item in turn.related:
            out.add(kind, item)
    return out


def same_country(a: str, b: str) -> bool:
    """One country in two spellings: United Kingdom / UK, USA / United States, Czechia / Czech Republic."""
    return a.lower() == b.lower() or names_country(a, b) or names_country(b, a)


def countries_named(text: str, vocab: Vocabulary) -> list[str]:
    """Countries ``text`` names as written with capitals (world countries and the data's own: EIRE,
    RSA, Channel Islands...), UK / USA aliases included, each country once."""
    found: list[str] = []
    for name in dict.fromkeys((*vocab.country_names, *WORLD_COUNTRIES)):
        if name in PLACEHOLDER_COUNTRIES:
            continue
        patterns = _COUNTRY_ALIASES.get(name, (re.escape(name) + r"\b",))
        named = any(re.search(rf"\b{pattern}", text) for pattern in patterns)
        if named and not any(same_country(name, other) for other in found):
            found.append(name)
    return found


def foreign_entities(answer: str, asked: str, turns: Iterable[Turn], vocab: Vocabulary) -> list[str]:
    """Customer ids, countries, products and segments that ``answer`` names although neither ``asked``
    (the question and those it follows up on) nor the truth of ``turns`` (it and those) names them.
    A customer asked about or in the truth brings its own country and segment along ("customer 12346
    (United Kingdom) is At Risk"). An invented entity is foreign too."""
    truth = truth_entities(turns)
    asked_numbers = {int(n) for n in re.findall(r"\d+", asked.replace(",", ""))}
    known = truth.customers | (asked_numbers & set(vocab.customer_facts))
    facts = [vocab.customer_facts[c] for c in known if c in vocab.customer_facts]
    countries = truth.countries | {country for country, _ in facts}
    segments = truth.segments | {segment for _, segment in facts} | segments_named(asked)
    out = []
    for cid in dict.fromkeys(mentioned_customer_ids(answer)):
        if cid not in known and cid not in asked_numbers:
            out.append(f"customer {cid}")
    for country in countries_named(answer, vocab):
        if (
            not names_country(asked, country)
            and not typed_near(asked, country)
            and not any(same_country(country, c) for c in countries)
        ):
            out.append(f"country {country!r}")
    asked_words = f" {_words(asked)} "
    truth_words = [f" {_words(p)} " for p in truth.products]
    for phrase in dict.fromkeys(mentioned_products(answer, vocab)):
        if f" {phrase} " not in asked_words and not any(f" {phrase} " in t for t in truth_words):
            out.append(f"product {phrase!r}")
    out += [f"segment {s!r}" for s in sorted(segments_named(answer) - segments)]
    return out


# ----------------------------------------------------------------------------------- wrong units

_CURRENCY_CODES = {"£": "GBP", "$": "USD", "€": "EUR", "pound": "GBP", "quid": "GBP", "sterling": "GBP"}
_CURRENCY_CODES |= {"dollar": "USD", "euro": "EUR", "gbp": "GBP", "usd": "USD", "eur": "EUR"}
_CURRENCY_BEFORE = re.compile(r"([£$€]|\b(?:GBP|USD|EUR))\s*$", re.IGNORECASE)
_UNIT_AFTER = {
    "stock": r"in stock|on hand|in inventory|in the warehouse",
    "units": r"units?|items?|pieces?|pcs",
    "orders": r"orders?|invoices?|transactions?",
    "customers": r"customers?|buyers?|clients?|shoppers?|accounts?",
    "days": r"days?",
    "time": r"weeks?|months?|years?|hours?",
    "money": r"pounds?|quid|sterling|dollars?|euros?|GBP|USD|EUR",
}
_AFTER_NUMBER = re.compile(
    r"\s*((?:[A-Za-z][\w'-]*\s+){0,2}?)("
    + "|".join(f"(?P<{k}>{v})" for k, v in _UNIT_AFTER.items())
    + r")\b",
    re.IGNORECASE,
)
_STOCK_AFTER = re.compile(r"\s+(?:" + _UNIT_AFTER["stock"] + r"|left|remaining)\b", re.IGNORECASE)
_NOT_A_QUALIFIER = frozenset(
    re.findall(
        r"\w+",
        "in on of from at by for to and or the a an per over across with than vs versus was were is are "
        "which that who this these those after before since during between into out up down",
    )
)
_COMPATIBLE = {  # the unit words a figure of each kind may carry
    "money": {"money"},
    "units": {"units"},
    "orders": {"orders"},
    "customers": {"customers"},
    "days": {"days"},
}


def unit_shown(text: str, match: re.Match[str]) -> tuple[str | None, str | None]:
    """(currency code or sign, unit word kind) that the number ``match`` of ``text`` carries: "£1,234"
    is (GBP, None), "34,204 units in stock" (None, stock), "2,489 customers" (None, customers). Up to
    two qualifying words may stand between ("12 High Value customers"), not a preposition or a number."""
    sign = _CURRENCY_BEFORE.search(text[max(0, match.start() - 6) : match.start()])
    currency = _CURRENCY_CODES.get(sign.group(1).lower()) if sign else None
    after = _AFTER_NUMBER.match(text, match.end())
    kind = None
    if after:
        qualifiers = after.group(1).split()
        if not any(q in _NOT_A_QUALIFIER for q in qualifiers):  # "At Risk" (capitalised) may qualify
            kind = next(k for k in _UNIT_AFTER if after.group(k))
            if kind == "money":
                currency = _CURRENCY_CODES.get(after.group(kind).lower().rstrip("s"), currency)
            elif kind == "units" and _STOCK_AFTER.match(text, after.end()):
                kind = "stock"
    return currency, kind


def unit_problem(
    expected: str, currency: str | None, kind: str | None, declared: str | None, said: str
) -> str | None:
    """Why a figure of ``expected`` kind shown with this currency and unit word is mislabelled."""
    if kind == "stock":
        return "labelled as stock"
    if expected == "money":
        if kind is not None and kind != "money":
            return f"labelled as {kind}"
        if currency and declared and currency != declared:
            return f"shown in {currency}, the data is in {declared}"
        if currency and not declared and not _user_wrote_currency(said, currency):
            return f"shown in {currency}, the data declares no currency"
        return None
    if currency:
        return f"shown as money ({currency})"
    if kind is not None and kind not in _COMPATIBLE.get(expected, {kind}):
        return f"labelled as {kind}"
    return None


def _user_wrote_currency(said: str, code: str) -> bool:
    signs = [s for s, c in _CURRENCY_CODES.items() if c == code]
    return any((s in said) if len(s) == 1 else re.search(rf"\b{s}", said, re.IGNORECASE) for s in signs)


def _figure_checks(checks: Iterable[Check]) -> Iterator[tuple[str, str, tuple[float, ...]]]:
    """(label, unit kind, accepted values) of every figure the checks want, AnyOf options included."""
    for check in checks:
        match check:
            case Num(label=label, values=values, percent=False):
                if kind := unit_of(check):
                    yield label, kind, values
            case Nums(label=label, figures=figures):
                if kind := unit_of(check):
                    for values in figures:
                        yield label, kind, values
            case AnyOf(options=options):
                yield from _figure_checks(options)


def wrong_units(answer: str, checks: Iterable[Check], said: str, currency: str | None) -> list[str]:
    """An expected figure that the answer shows only with a wrong unit: "13,332.33 units" for
    revenue, "34,204 units in stock" for units sold, "£1,234" when the dataset declares no currency
    (unless the user wrote £ in the chat). Shown once right and once wrong, it is not counted (two
    quantities can share a number)."""
    out = []
    matches = [(m, _shown(m)) for m in _number_matches(answer)]
    for label, kind, values in _figure_checks(checks):
        if kind not in UNIT_KINDS:
            continue
        wrong, right = [], False
        for match, shown in matches:
            if shown.percent or not any(figure_matches(v, shown) for v in values):
                continue
            problem = unit_problem(kind, *unit_shown(answer, match), currency, said)
            if problem:
                wrong.append(f"{match.group(0).strip()} {problem} (expected {kind}: {label})")
            else:
                right = True
        if wrong and not right:
            out.append(wrong[0])
    return list(dict.fromkeys(out))


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
                keep.update(range(chat.block_start(i), i))
        pending_restart = False
        for i, turn in enumerate(chat.turns):
            pending_restart = pending_restart or turn.restart_before
            if i in keep:
                plan.append(Planned(c, i, turn, i in chosen, pending_restart))
                pending_restart = False
        scored_total += len(chosen)
    return plan


def long_chats(chats: list[Chat]) -> list[Chat]:
    """``--long-chat``: one chat per category holding every question of that category, in bank
    order. A question that follows up on earlier turns brings its chat's turns before it along as one
    block, in their order (the other categories' turns of the block are asked, not scored, and keep
    their truths: what a follow-up may refer back to)."""
    parts: dict[str, list[Turn]] = {}
    starts: dict[str, list[int]] = {}
    for chat in chats:
        for category in dict.fromkeys(t.category for t in chat.turns if t.category):
            chosen = {i for i, t in enumerate(chat.turns) if t.category == category}
            keep = set(chosen)
            for i in chosen:
                keep.update(chat.followed(i))
            turns, begin = parts.setdefault(category, []), starts.setdefault(category, [])
            first = len(turns)
            for i in sorted(keep):
                turn = chat.turns[i]
                turns.append(turn if turn.category == category else replace(turn, category=None))
                begin.append(first)
    return [Chat(f"long chat: {c}", tuple(turns), tuple(starts[c])) for c, turns in parts.items()]


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
    foreign: list[str] = field(default_factory=list)  # named, neither asked about nor in the truth
    wrong_units: list[str] = field(default_factory=list)  # the right figure with a wrong unit


def parse_sse(lines: Iterable[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(event, data) pairs of a server-sent event stream."""
    event, data = "message", list[str]()
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


BANKS = ("tuned", "heldout", "dev", "dev2", "both", "all")
PARTS = ("tuned", "dev", "dev2", "heldout")  # how a summary splits the scored questions


def bank_part(category: str) -> str:
    """The bank a reported category belongs to: ``dev:share`` is dev's, ``lookup`` the tuned one's."""
    prefix, _, _ = category.rpartition(":")
    return prefix or "tuned"


def bank(oracle: Oracle, db: Path, seed: int, which: str) -> list[Chat]:
    """The tuned chats, the dev ones (written blind, tuning on them allowed; reported as
    ``dev:<category>``; dev2 likewise, as ``dev2:<category>``), the held-out ones (written without
    reading the code: never tuned on; their categories are reported apart as ``heldout:<category>``);
    ``both`` is tuned + held-out, ``all`` tuned + dev + dev2 + held-out."""
    chats = build_chats(oracle, seed) if which in ("tuned", "both", "all") else []
    if which in ("dev", "all"):
        for chat in build_dev_chats(db, seed):
            turns = tuple(
                replace(t, category=f"dev:{t.category}" if t.category else None) for t in chat.turns
            )
            chats.append(replace(chat, title=f"dev: {chat.title}", turns=turns))
    if which in ("dev2", "all"):
        for chat in build_dev2_chats(db, seed):
            turns = tuple(
                replace(t, category=f"dev2:{t.category}" if t.category else None) for t in chat.turns
            )
            chats.append(replace(chat, title=f"dev2: {chat.title}", turns=turns))
    if which in ("heldout", "both", "all"):
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
    bank: str = "both"
    long_chat: bool = False
    dataset: str | None = None  # the --dataset file, None: generated from the seed


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
        case Ranked(label=label, items=items):
            return f"{label}: {list(items)} in this order"
        case CannotAnswer(topic=topic):
            return f"says the data cannot answer {topic}, offers what it can; no figure for {topic}"
    return repr(check)


def quotes_the_user(answer: str, said: str) -> bool:
    """Whether the answer quotes what the user wrote (at least a few words, verbatim). Two questions
    about one statement may rightly get the same quote; the checks still decide whether it answers."""
    return any(len(q) >= 20 and q in said for q in re.findall(r'"([^"]+)"', answer))


def evaluate(
    planned: Planned,
    chat: Chat,
    answer: Answer,
    vocab: Vocabulary,
    said: str,
    earlier: Iterable[tuple[str, list[str]]] = (),
) -> TurnResult:
    """Score one answer; ``said`` is everything the user wrote in this chat up to this question,
    ``earlier`` the chat's earlier answers with what their questions expected (repeating one word
    for word answers nothing new, unless that question expected the same: "How many At Risk
    customers are there?" after "How many customers are in the At Risk segment?")."""
    turn = planned.turn
    failures = check_failures(answer.text, turn.checks, turn.text, said) if planned.scored else []
    expected = [describe(c) for c in turn.checks]
    repeated = answer.text.strip() and any(
        answer.text.strip() == e.strip() and wanted != expected for e, wanted in earlier
    )
    if planned.scored and repeated and not quotes_the_user(answer.text, said):
        failures.insert(0, "repeats an earlier answer of this chat word for word")
    if answer.error:
        failures.insert(0, f"error: {answer.error}")
    invented = invented_entities(answer.text, said, vocab)
    for check in turn.checks:
        if isinstance(check, NotFound):
            invented += unknown_entity_inventions(answer.text, said, check)
    foreign: list[str] = []
    units: list[str] = []
    if planned.scored:
        followed = [chat.turns[i] for i in chat.followed(planned.index, turn)]
        asked = "\n".join([*(t.text for t in followed), turn.text])
        text = answer.text.replace(turn.text.strip(), " ") if turn.text.strip() else answer.text
        foreign = foreign_entities(text, asked, [*followed, turn], vocab)
        units = wrong_units(text, turn.checks, asked, vocab.currency)
        failures += [f"foreign entity {e}" for e in foreign] + [f"wrong unit: {u}" for u in units]
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
        foreign=foreign,
        wrong_units=units,
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
    long_chat: bool = False,
) -> Run:
    from agent_orchestrator.testing.app_process import AppProcess
    from agent_orchestrator.testing.environment import clean_environment

    env = clean_environment(AGENT_ORCHESTRATOR_HOME=str(home), **route.env)
    db = prepare_home(home, seed, env, dataset)
    oracle = load_oracle(db)
    chats = bank(oracle, db, seed, which)
    if long_chat:
        chats = long_chats(chats)
    plan = plan_turns(chats, categories, limit)
    vocab = vocabulary(oracle)
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
            earlier = [(r.answer, r.expected) for r in results if r.chat == chat.title]
            result = evaluate(planned, chat, answer, vocab, "\n".join(said[planned.chat]), earlier)
            results.append(result)
            _print_progress(n, len(plan), result, verbose)
    finally:
        client.close()
        app.stop()
    seconds = time.perf_counter() - started
    where = str(dataset) if dataset else None
    return Run(results, model, route.description, oracle, seconds, restarts, seed, which, long_chat, where)


def rescore(path: Path, seed: int, home: Path) -> Run:
    """The answers recorded by ``--json`` checked again with the current checks (no app, no model):
    for improving a checker without asking the model again. The dataset is regenerated from the seed."""
    recorded = json.loads(path.read_text())
    s = recorded["summary"]
    seed = s.get("seed", seed)
    which, long_chat, dataset = s.get("bank", "tuned"), bool(s.get("long_chat")), s.get("dataset_path")
    db = generate(home, seed, Path(dataset) if dataset else None)
    oracle = load_oracle(db)
    chats = bank(oracle, db, seed, which)
    if long_chat:
        chats = long_chats(chats)
    vocab = vocabulary(oracle)
    where = {(chat.title, i + 1): (c, i) for c, chat in enumerate(chats) for i in range(len(chat.turns))}
    said: dict[int, list[str]] = defaultdict(list)
    results: list[TurnResult] = []
    for t in recorded["turns"]:
        c, i = where[(t["chat"], t["turn"])]
        turn = chats[c].turns[i]
        if turn.text != t["question"]:
            raise SystemExit(f"{path} was recorded with another question bank or seed: {t['question']!r}")
        said[c].append(turn.text)
        planned = Planned(c, i, turn, t["scored"], t["after_restart"])
        answer = Answer(t["answer"], t["seconds"], t["tools"], t["error"])
        earlier = [(r.answer, r.expected) for r in results if r.chat == chats[c].title]
        results.append(evaluate(planned, chats[c], answer, vocab, "\n".join(said[c]), earlier))
    seconds, restarts = s["wall_seconds"], s["restarts"]
    return Run(results, s["model"], s["route"], oracle, seconds, restarts, seed, which, long_chat, dataset)


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
        "bank": run.bank,
        "long_chat": run.long_chat,
        "dataset_path": run.dataset,
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
            for c in sorted(per, key=lambda c: (PARTS.index(bank_part(c)) if bank_part(c) in PARTS else 9, c))
        },
        "tuned": _part(per, heldout=False),
        "dev": _part(per, part="dev"),
        "heldout": _part(per, heldout=True),
        "passed": sum(passed),
        "scored": len(passed),
        "invented_entities": sum(len(r.invented) for r in run.results),
        "foreign_entities": sum(len(r.foreign) for r in run.results),
        "wrong_units": sum(len(r.wrong_units) for r in run.results),
        "turns": len(times),
        "turns_with_tools": len(tool_times),
        "errors": sum(1 for r in run.results if r.error),
        "p50_seconds": round(statistics.median(times), 2) if times else None,
        "p95_seconds": round(percentile(times, 0.95), 2) if times else None,
        "p50_tool_seconds": round(statistics.median(tool_times), 2) if tool_times else None,
        "restarts": run.restarts,
        "wall_seconds": round(run.seconds, 1),
    }


def _part(per: dict[str, list[bool]], *, heldout: bool = False, part: str | None = None) -> dict[str, int]:
    """Passed and scored questions of one bank: ``part`` (tuned, dev, heldout), else held-out or
    tuned as ``heldout`` says."""
    which = part or ("heldout" if heldout else "tuned")
    oks = [ok for c, v in per.items() if bank_part(c) == which for ok in v]
    return {"passed": sum(oks), "total": len(oks)}


def print_report(s: dict[str, Any], results: list[TurnResult]) -> None:
    mode = ", long chats (one per category)" if s.get("long_chat") else ""
    print(f"\nroute: {s['route']}, model {s['model']}{mode}")
    d = s["dataset"]
    print(f"dataset: {d['customers']:,} customers, {d['invoice_lines']:,} invoice lines, as of {d['as_of']}")
    print(f"{'category':16} {'pass':>7}")
    for name, c in s["categories"].items():
        print(f"{name:24} {c['passed']:3}/{c['total']:<3} {c['passed'] / c['total']:5.0%}")
    rate = s["passed"] / s["scored"] if s["scored"] else 0.0
    print(f"{'overall':16} {s['passed']:3}/{s['scored']:<3} {rate:5.0%}")
    for part in PARTS:
        if s.get(part, {}).get("total"):
            p = s[part]
            print(f"{part:16} {p['passed']:3}/{p['total']:<3} {p['passed'] / p['total']:5.0%}")
    print(f"invented entities: {s['invented_entities']} (target 0)")
    for r in results:
        for entity in r.invented:
            print(f"  - {entity}  <- {r.question!r}")
    print(
        f"foreign entities: {s['foreign_entities']}, wrong units: {s['wrong_units']} "
        "(target 0; each fails its answer)"
    )
    for r in results:
        for entity in r.foreign:
            print(f"  - foreign {entity}  <- {r.question!r}")
        for unit in r.wrong_units:
            print(f"  - wrong unit {unit}  <- {r.question!r}")
    tool_p50 = "n/a" if s["p50_tool_seconds"] is None else f"{s['p50_tool_seconds']:.1f}s"
    print(
        f"turn time: p50 {s['p50_seconds']:.1f}s, p95 {s['p95_seconds']:.1f}s over {s['turns']} turns; "
        f"turns with a tool: p50 {tool_p50} ({s['turns_with_tools']} turns)"
    )
    print(f"errors: {s['errors']}, restarts: {s['restarts']}, wall time {s['wall_seconds'] / 60:.1f} min")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="at most N scored questions")
    parser.add_argument(
        "--category", action="append", default=[], help="e.g. lookup, heldout:share, dev:share"
    )
    parser.add_argument(
        "--bank",
        default="both",
        choices=BANKS,
        help="question bank: both = tuned + heldout, all = tuned + dev + dev2 + heldout",
    )
    parser.add_argument("--dataset", type=Path, default=None, help="a retail SQLite file instead of --seed's")
    parser.add_argument("--model", default="0.5b", choices=("0.5b", "1.5b"), help="embedded model")
    parser.add_argument("--model-path", type=Path, default=None, help="a GGUF file for the embedded model")
    parser.add_argument("--provider-url", default=None, help="an OpenAI-compatible endpoint (BYOK route)")
    parser.add_argument("--provider-model", default=None, help="model id there (default: its first)")
    parser.add_argument("--seed", type=int, default=42, help="dataset and question parameters")
    parser.add_argument("--json", type=Path, default=None, help="write every detail here")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each answer")
    parser.add_argument("--rescore", type=Path, default=None, help="check a --json file's answers again")
    parser.add_argument(
        "--replay",
        type=Path,
        default=None,
        help="ask again the rated answers of a feedback export (JSON lines)",
    )
    parser.add_argument(
        "--long-chat",
        action="store_true",
        help="every question of a category in one chat (one chat per category)",
    )
    parser.add_argument(
        "--list",
        "--plan",
        dest="list",
        action="store_true",
        help="print the planned questions per bank and category; no app, no model",
    )
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that the app is stopped too

    if args.list:
        with tempfile.TemporaryDirectory(prefix="eval-assistant-") as tmp:
            db = generate(Path(tmp), args.seed, args.dataset)
            oracle = load_oracle(db)
            print(_dataset_line(oracle, args.seed))
            chats = bank(oracle, db, args.seed, args.bank)
            if args.long_chat:
                chats = long_chats(chats)
            print_plan(chats, plan_turns(chats, args.category, args.limit), verbose=args.verbose)
        return 0
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
    if args.replay:
        import eval_replay

        cases = eval_replay.read_cases(args.replay)
        print(f"replaying {len(cases)} rated answers of {args.replay}", flush=True)
        with tempfile.TemporaryDirectory(prefix="eval-assistant-") as tmp:
            replayed = eval_replay.replay(cases, route, Path(tmp), args.seed, args.dataset)
        return eval_replay.report(replayed, args.json)
    with tempfile.TemporaryDirectory(prefix="eval-assistant-") as tmp:
        run = run_eval(
            route,
            args.seed,
            args.category,
            args.limit,
            args.verbose,
            Path(tmp),
            args.bank,
            args.dataset,
            args.long_chat,
        )
    return report(run, args.json)


def print_plan(chats: list[Chat], plan: list[Planned], *, verbose: bool = False) -> dict[str, Counter[str]]:
    """The planned turns chat by chat, then how many scored questions each bank has per category."""
    counts: dict[str, Counter[str]] = {part: Counter() for part in PARTS}
    current = None
    for p in plan:
        chat = chats[p.chat]
        if p.chat != current:
            print(f"== {chat.title}")
            current = p.chat
        flags = (" [follows up]" if p.turn.needs_previous else "") + (
            " [after a restart]" if p.restart else ""
        )
        print(f"  [{p.turn.category if p.scored else 'context'}]{flags} {p.turn.text}")
        if verbose:
            for check in p.turn.checks:
                print(f"      - {describe(check)}")
        if p.scored and p.turn.category:
            name = p.turn.category.rpartition(":")[2]
            counts.setdefault(bank_part(p.turn.category), Counter())[name] += 1
    print(f"\n{'bank':8} {'category':16} {'questions':>9}")
    for part, counter in counts.items():
        for name, n in sorted(counter.items()):
            print(f"{part:8} {name:16} {n:9}")
        if counter:
            print(f"{part:8} {'(all)':16} {sum(counter.values()):9}")
    print(f"{'total':25} {sum(sum(c.values()) for c in counts.values()):9} scored, {len(plan)} turns")
    return counts


def report(run: Run, json_path: Path | None) -> int:
    s = summary(run)
    print_report(s, run.results)
    if json_path:
        json_path.write_text(json.dumps({"summary": s, "turns": [asdict(r) for r in run.results]}, indent=2))
        print(f"details: {json_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
