"""Narrow a tool's parameters to the values the user actually mentioned.

A 0.5B model filling a tool call invents what it was not told: an id of 12345 for "our best one",
an enum value for a question that named none, the runtime's timestamp as ``date_from``, ``name:
"your_product_name"``. The grammar can only produce what the schema allows, so before it is built
each parameter is limited to what the user's words support:

* **enums**: only the values the user named; a keyword choice the user described in other words
  (the lexicon's synonyms, or the enum's own gloss: ``lexicon``) is taken alone, and when they
  describe it only loosely the choices stay open;
* **ids** (``…_id``): only numbers the user wrote as ids ("id 12345", "#7", a label word such as the
  id's own kind: "order 7" for ``order_id``) or bare numbers of five digits and more; an id labelled
  as one kind fills no id parameter of another;
* **other numbers**: a number the user wrote next to the parameter's own words ("more than 20 visits"
  -> ``min_visits``, "top 3" -> ``limit``), durations in days ("6 months" -> 180) for day parameters;
* **dates**: the periods the user wrote ("March 2024" -> ``2024-03``, "2024", "2024-03-15");
* **free text** (a name): only phrases the user quoted, capitalised or wrote in upper case.

A parameter with nothing to take is left out (the tool's default applies); a *required* one makes the
tool uncallable for this question, unless it is an enum or a plain number (the model chooses then).
How many parameters the user's words filled also ranks the tools (``tool_policy``): a question that
names an id belongs to a tool that takes one.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .lexicon import NEUTRAL, Lexicon
from .tool_grammar import arguments_schema
from .tool_ranking import normalized, stem, words

_NUMBER = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(k|m|million|thousand)?(?![\w])", re.IGNORECASE)
_DURATION = re.compile(r"\b(\d+)\s*(day|week|month|year)s?\b", re.IGNORECASE)
_ISO_DAY = re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b")
_ISO_MONTH = re.compile(r"\b((?:19|20)\d\d)-(\d\d)\b(?!-)")
_MONTH_NAMES = {name.lower(): i for i, name in enumerate(calendar.month_name) if name} | {
    name.lower(): i for i, name in enumerate(calendar.month_abbr) if name
}
_MONTH_ALTERNATIVES = "|".join(sorted(_MONTH_NAMES, key=len, reverse=True))
_NAMED_MONTH = re.compile(rf"\b({_MONTH_ALTERNATIVES})\.?\s+((?:19|20)\d\d)\b", re.IGNORECASE)
_QUARTER = re.compile(r"\bQ([1-4])\s*((?:19|20)\d\d)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b((?:19|20)\d\d)\b")
_YEAR_EARLIER = re.compile(
    r"\b(?:a|one) year (?:earlier|before|prior|ago)\b|\b(?:the )?(?:previous|prior) year\b|\byear before\b"
    r"|\b(?:year[- ]on[- ]year|yoy)\b",
    re.IGNORECASE,
)
# Quotes, not apostrophes: "What's our revenue? What's …" is no quotation.
_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|(?<!\w)'([^']{2,60})'(?!\w)")
_UPPER_RUN = re.compile(r"\b[A-Z][A-Z0-9]{2,}(?:[ \-/][A-Z0-9]{2,})*\b")
_CAPITALISED_RUN = re.compile(r"(?<=[a-z,] )[A-Z][\w-]*(?: [A-Z][\w-]*)*")
_NOT_A_NAME = re.compile(rf"(?:{_MONTH_ALTERNATIVES})\.?|Q[1-4]|(?:19|20)\d\d|I|OK", re.IGNORECASE)
_AT_LEAST = re.compile(r"\b(?:more|over|above|greater|least|exceed\w*|min\w*)\b[^.?!]*$")
_AT_MOST = re.compile(r"\b(?:less|fewer|under|below|most|max\w*|up to)\b[^.?!]*$")
_NEGATION = re.compile(r"\b(?:not|no|never|haven't|hasn't|didn't|without|inactive|idle|since)\b[^.?!]*$")
_LIMIT_WORDS = frozenset(
    {"top", "first", "best", "biggest", "largest", "bottom", "last", "row", "show", "list"}
)
_WORD_NUMBERS = {"a single": 1, "single": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WORD_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "twelve": 12}
_NUMBER_WORD = re.compile(rf"\b({'|'.join(_WORD_NUMBERS)})(\s+)([a-z]+)\b", re.IGNORECASE)
_COUNTED = frozenset({"time", "day", "week", "month", "year"})
"""What a number word counts besides the tools' own terms: "three times", "two months"."""
_DATE_QUALIFIERS = frozenset({"first", "last", "latest", "earliest"})
_DURATION_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_SCALE = {"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6}


@dataclass(frozen=True)
class Quantity:
    """A number the user wrote, with the words around it: "more than 20 orders" -> 20, {"order"}, min."""

    value: float
    context: frozenset[str]
    bound: str | None  # "min" ("more than", "over", "haven't … in"), "max" ("under", "within"), or None


@dataclass(frozen=True)
class Mentions:
    """What the user's messages name, extracted once per request."""

    text: str  # normalised words, space-padded, for enum matching
    numbers: tuple[float, ...]
    quantities: tuple[Quantity, ...]  # numbers that are not ids ("id 12345") or years
    ids: tuple[int, ...]
    id_kinds: dict[int, str]  # the kind of id the user called it ("client 123" -> "customer"), if any
    days: tuple[Quantity, ...]  # durations, in days
    durations: tuple[Quantity, ...]  # durations as written ("12 months" -> 12, context "month")
    starts: tuple[str, ...]  # periods' first values, for date_from-like parameters
    ends: tuple[str, ...]  # periods' last values, for date_to-like parameters
    phrases: tuple[str, ...]
    lexicon: Lexicon = field(default=NEUTRAL, compare=False, repr=False)
    """The words the messages were read with; narrowing reads choices' synonyms and id kinds there."""

    @classmethod
    def of(cls, said: Sequence[str], lexicon: Lexicon = NEUTRAL) -> Mentions:
        """``lexicon``: the domain's words joined with the tools' (``Lexicon.for_tools``)."""
        raw = _NUMBER_WORD.sub(lambda m: _counted(m, lexicon), "\n".join(said))
        starts, ends, years_in_dates = _periods(raw)
        if said and _YEAR_EARLIER.search(said[-1]) and starts:
            # "the same month a year earlier": the periods named, a year back; a follow-up that
            # names no period of its own asks about the earlier one only.
            earlier_starts, earlier_ends = [_year_back(p) for p in starts], [_year_back(p) for p in ends]
            if _periods(said[-1])[0]:
                starts, ends = [*starts, *earlier_starts], [*ends, *earlier_ends]
            else:
                starts, ends = earlier_starts, earlier_ends
        numbers: list[float] = []
        labelled: set[float] = set()
        kinds: dict[float, str] = {}
        # Five digits and more, written bare ("12345's segment"), read as an id; "1,000" is money.
        bare_ids = {float(n) for n in re.findall(r"(?<![\d,.$£€])\b(\d{5,})\b(?![,.]\d)", raw)}
        undated = _ISO_DAY.sub(" ", _ISO_MONTH.sub(" ", raw))
        for match in _NUMBER.finditer(undated):
            number = _number(match)
            if label := lexicon.id_label.search(undated[: match.start()]):
                labelled.add(number)
                kinds.setdefault(number, lexicon.id_kind(label.group(1)))
            if number not in numbers:
                numbers.append(number)
        ids = tuple(
            int(n)
            for n in numbers
            if n == int(n) and int(n) not in years_in_dates and (n in labelled or n in bare_ids)
        )
        duration_starts = {m.start(1) for m in _DURATION.finditer(undated)}
        quantities = tuple(
            _quantity(undated, m, _number(m))
            for m in _NUMBER.finditer(undated)
            if _number(m) not in labelled
            and _number(m) not in years_in_dates
            and m.start(1) not in duration_starts  # "6 months" is a duration (``days``), not a count
        )
        days = tuple(
            _quantity(raw, m, int(m.group(1)) * _DURATION_DAYS[m.group(2).lower()], duration=True)
            for m in _DURATION.finditer(raw)
        )
        durations = tuple(
            _quantity(raw, m, int(m.group(1)), unit=m.group(2).lower()) for m in _DURATION.finditer(raw)
        )
        quoted = [a or b for a, b in _QUOTED.findall(raw)]
        phrases = [*quoted, *_UPPER_RUN.findall(raw), *_CAPITALISED_RUN.findall(raw)]
        phrases = [p for p in phrases if not _NOT_A_NAME.fullmatch(p.strip())]
        return cls(
            text=normalized(raw),
            numbers=tuple(numbers),
            quantities=quantities,
            ids=ids,
            id_kinds={i: kinds[i] for i in ids if kinds.get(i)},
            days=days,
            durations=durations,
            starts=tuple(dict.fromkeys(starts)),
            ends=tuple(dict.fromkeys(ends)),
            phrases=tuple(dict.fromkeys(p.strip() for p in phrases)),
            lexicon=lexicon,
        )


def _counted(match: re.Match[str], lexicon: Lexicon) -> str:
    """ "a single visit", "two orders", "three months": a number word counting what follows it, when
    that is time or one of the tools' terms; "which one" stays a word."""
    if stem(match.group(3).lower()) not in _COUNTED | lexicon.terms:
        return match.group(0)
    return f"{_WORD_NUMBERS[match.group(1).lower()]}{match.group(2)}{match.group(3)}"


def _periods(raw: str) -> tuple[list[str], list[str], set[int]]:
    """The periods a text names, as (first values, last values, years named in them):
    "March 2024" -> 2024-03, "Q2 2024" -> 2024-04 … 2024-06, "2024-03-15", "2024"."""
    starts: list[str] = []
    ends: list[str] = []
    years_in_dates: set[int] = set()

    def period(first: str, last: str, year: str) -> None:
        starts.append(first)
        ends.append(last)
        years_in_dates.add(int(year))

    for y, m, d in _ISO_DAY.findall(raw):
        period(f"{y}-{m}-{d}", f"{y}-{m}-{d}", y)
    for y, m in _ISO_MONTH.findall(raw):
        period(f"{y}-{m}", f"{y}-{m}", y)
    for name, y in _NAMED_MONTH.findall(raw):
        month = f"{y}-{_MONTH_NAMES[name.lower()]:02d}"
        period(month, month, y)
    for q, y in _QUARTER.findall(raw):
        first = (int(q) - 1) * 3 + 1
        period(f"{y}-{first:02d}", f"{y}-{first + 2:02d}", y)
    for y in _YEAR.findall(raw):
        if int(y) not in years_in_dates:
            period(y, y, y)
    return starts, ends, years_in_dates


def _year_back(value: str) -> str:
    """A period value one year earlier: "2025-04" -> "2024-04" (29 February -> 28 February)."""
    year, rest = value[:4], value[4:]
    if rest == "-02-29":
        rest = "-02-28"
    return f"{int(year) - 1:04d}{rest}"


def _number(match: re.Match[str]) -> float:
    return float(match.group(1).replace(",", "")) * _SCALE.get((match.group(2) or "").lower(), 1.0)


def _quantity(
    text: str, match: re.Match[str], value: float, *, duration: bool = False, unit: str | None = None
) -> Quantity:
    # The words since the previous number (at most 30 characters) qualify this one.
    before = re.split(r"\d", text[max(0, match.start() - 30) : match.start()].lower())[-1]
    after = re.split(r"\d", text[match.end() : match.end() + 30])[0]
    context = set(words(before)[-3:] + words(after)[:3])
    if duration:
        context |= {"day", "recency", "since", "ago", "last"}
    if unit:
        context.add(unit)
    bound = None
    if (duration or unit) and _NEGATION.search(before):
        bound = "min"  # "haven't ordered in 6 months": the last order is at least that old
    elif duration and re.search(r"\b(?:last|past|within)\b", before):
        bound = "max"
    elif _AT_LEAST.search(before):
        bound = "min"
    elif _AT_MOST.search(before):
        bound = "max"
    return Quantity(value, frozenset(context), bound)


@dataclass(frozen=True)
class NarrowedTool:
    tool: dict[str, Any]
    """The OpenAI tool with its parameters narrowed (descriptions kept for the prompt)."""
    evidence: float
    """How much of what the user named this tool takes in, each named value counted once however
    many parameters could take it: an id the tool *requires* counts most (it is that entity's own
    tool), then named values (a segment, a country, a period), required numbers and optional ids;
    keywords ("revenue") count a little, optional numbers nothing (any number fits)."""
    takes_period: bool = False
    """Whether a period the user named fills one of its parameters ("in March 2024")."""
    named: int = 0
    """How many of its parameters take a condition the user stated (a segment, a country, a period, a
    bound such as "more than 20 orders"), not an id, a keyword or a plain number: "Regular customers
    in the United Kingdom" fills two of them."""


def narrow_tool(
    tool: Mapping[str, Any], mentions: Mentions, earlier: Mentions | None = None
) -> NarrowedTool | None:
    """The tool with each parameter limited to what the user mentioned; ``None`` when a required
    parameter cannot be filled from the user's words (an id the user never gave).

    ``earlier``: for a follow-up, what the previous question and this one named together; it fills
    the parameters this question leaves open ("What about the High Value ones there?" after "… At
    Risk customers in Germany?": the segment from this question, the country from the one before)."""
    schema = arguments_schema(tool)
    required = set(schema.get("required") or ())
    properties = schema.get("properties") or {}
    taken = _enum_values(properties)
    described = (tool["function"].get("parameters") or {}).get("properties", {})
    props: dict[str, Any] = {}
    absorbed: dict[str, float] = {}
    takes_period = False
    named = 0
    filled: list[str] = []
    numeric_required = sum(
        1 for n in required if _kind(properties.get(n, {})) in {"integer", "number"} and not _is_id(n)
    )
    known = earlier or mentions  # a follow-up may take the numbers it leaves open from before
    if numeric_required > len(known.quantities) + len(known.days):
        return None  # "customer 12345" cannot fill recency, frequency and spend at once
    for name, spec in properties.items():
        description = str(described.get(name, {}).get("description") or "").split("\n")[0]
        source = mentions
        narrowed, from_user = _narrow(
            name, {**spec, "description": description}, mentions, name in required, taken
        )
        if earlier is not None and not from_user:
            again, from_earlier = _narrow(
                name, {**spec, "description": description}, earlier, name in required, taken
            )
            if from_earlier:
                narrowed, from_user, source = again, True, earlier
        if narrowed is None:
            if name in required:
                return None
            continue
        if from_user:
            filled.append(name)
            periods = {*source.starts, *source.ends}
            took_period = not periods.isdisjoint(map(str, narrowed.get("enum", ())))
            takes_period = takes_period or took_period
            # "haven't ordered in 6 months", "over 20 orders": a bound in words, not any number.
            values = set(narrowed.get("enum", ()))
            bounded = name.startswith(("min_", "max_")) and any(
                q.bound and q.value in values for q in (*source.quantities, *source.days)
            )
            # A what-if tool's required figures ("8 orders, 17 days ago, £1,900") are conditions too.
            figure = name in required and not _is_id(name) and _kind(narrowed) in {"integer", "number"}
            named += took_period or bounded or figure or _names_entities(narrowed.get("enum", ()))
            for value in narrowed.get("enum", ()):
                weight = _evidence(name, narrowed, name in required)
                absorbed[str(value)] = max(absorbed.get(str(value), 0.0), weight)
        if description:  # the first line: the runtime appends the constraints after a blank line
            narrowed = {**narrowed, "description": description}
        props[name] = narrowed
    # What the user named must be applied: a call may not drop "in the United Kingdom".
    required |= set(filled)
    parameters = {"type": "object", "properties": props, "required": sorted(required & set(props))}
    function = {**tool["function"], "parameters": parameters}
    return NarrowedTool(
        {"type": "function", "function": function}, sum(absorbed.values()), takes_period, named
    )


def determined_call(tools: Sequence[Mapping[str, Any]]) -> tuple[str, dict[str, Any]] | None:
    """The one call the narrowed tools allow, when there is only one: a single tool whose every
    parameter has exactly one possible value. Then the grammar leaves the model nothing to choose
    but whether to drop a value the user named, so the server makes the call itself (a 0.5B call
    step costs 2-5 s on two cores, a 1.5B one three times that)."""
    if len(tools) != 1:
        return None
    function = tools[0]["function"]
    arguments: dict[str, Any] = {}
    for name, spec in (function.get("parameters") or {}).get("properties", {}).items():
        choices = spec.get("enum")
        if not choices or len(choices) != 1:
            return None
        arguments[name] = choices[0]
    return function["name"], arguments


def _is_id(name: str) -> bool:
    return name == "id" or name.endswith("_id")


def _evidence(name: str, narrowed: Mapping[str, Any], required: bool) -> float:
    if _is_id(name):
        return 4.0 if required else 1.0
    if narrowed.get("type") in {"integer", "number"}:
        return 1.0 if required else 0.0
    values = narrowed.get("enum") or ()
    # A named entity ("At Risk", "Germany", a period) says more than a keyword ("revenue", "desc").
    return 1.0 if any(isinstance(v, str) and (v[:1].isupper() or v[:1].isdigit()) for v in values) else 0.25


def _enum_values(properties: Mapping[str, Any]) -> set[str]:
    values = (v for spec in properties.values() for v in spec.get("enum", ()))
    return {normalized(v) for v in values if isinstance(v, str)}


def _narrow(
    name: str, spec: Mapping[str, Any], mentions: Mentions, required: bool, taken: set[str]
) -> tuple[dict[str, Any] | None, bool]:
    """(narrowed schema or None to leave the parameter out, whether the user's words filled it)."""
    alternatives = [a for a in spec.get("anyOf", ()) if a.get("type") != "null"]
    if len(alternatives) == 1:  # pydantic's Optional[X]: {"anyOf": [X, {"type": "null"}]}
        spec = {**{k: v for k, v in spec.items() if k != "anyOf"}, **alternatives[0]}
    kind = _kind(spec)
    if "enum" in spec:
        values = [v for v in spec["enum"] if _named(v, mentions)] or _described(spec["enum"], mentions)
        if values:
            return {**spec, "enum": values}, True
        if not _names_entities(spec["enum"]) and _shares_a_word(spec, mentions):
            # A keyword choice the user described in other words ("units sold" for "quantity"):
            # the model picks among the choices; it cannot invent one.
            return dict(spec), False
        return (dict(spec), False) if required else (None, False)
    if kind in {"integer", "number"}:
        if _is_id(name):
            wanted = mentions.lexicon.id_kind(name.removesuffix("_id").replace("_", " "))
            candidates: Sequence[float] = [
                i for i in mentions.ids if mentions.id_kinds.get(i, wanted) in {wanted, ""}
            ]
        else:
            unit = next((u for u in ("day", "week", "month", "year") if u in name), None)
            if unit == "day":
                pool = mentions.days
            elif unit:  # ``months``: "the last 12 months" -> 12
                pool = tuple(q for q in mentions.durations if unit in q.context)
            else:
                pool = mentions.quantities
            # An optional setting that is no bound (the trend's ``months``) takes no bounded number:
            # "haven't ordered in 6 months" is not "the last 6 months".
            unbounded = required or name.startswith(("min", "max"))
            candidates = [q.value for q in pool if _fits(q, name, spec) and (unbounded or not q.bound)]
        values = sorted({int(n) if kind == "integer" else n for n in candidates if _within(n, spec, kind)})
        if values:
            return {"type": kind, "enum": values}, True
        if required and not _is_id(name):
            return {"type": kind, **{k: v for k, v in spec.items() if k != "type"}}, False
        return None, False
    if kind == "string":
        if spec.get("format") == "date" or "date" in name or name.endswith(("_from", "_to")):
            values = list(mentions.ends if name.endswith(("_to", "_end", "_before")) else mentions.starts)
            qualifier = name.split("_", 1)[0]
            if qualifier in _DATE_QUALIFIERS and qualifier not in words(mentions.text):
                # "bought in March" is no *last* purchase in March: that parameter needs the word.
                values = []
        else:
            values = [p for p in mentions.phrases if not any(normalized(p) in value for value in taken)]
        if values:
            return {"type": "string", "enum": values}, True
        return ({"type": "string", "maxLength": 40}, False) if required else (None, False)
    return dict(spec), False


def _fits(quantity: Quantity, name: str, spec: Mapping[str, Any]) -> bool:
    """Whether a number belongs to this parameter: it shares a word with the parameter's name or
    description ("20 orders" -> min_orders), or is a count of rows ("top 3" -> limit); a bound in
    the wording ("more than") rules out the other side (max_…)."""
    if (name.startswith("min") and quantity.bound == "max") or (
        name.startswith("max") and quantity.bound == "min"
    ):
        return False
    vocabulary = set(words(f"{name} {spec.get('description') or ''}"))
    if name in {"limit", "top", "n", "count", "rows"}:
        return not quantity.context.isdisjoint(_LIMIT_WORDS | vocabulary)
    return not quantity.context.isdisjoint(vocabulary)


def _kind(spec: Mapping[str, Any]) -> str | None:
    kind = spec.get("type")
    if isinstance(kind, list):  # ["integer", "null"]
        return next((k for k in kind if k != "null"), None)
    return kind


def _shares_a_word(spec: Mapping[str, Any], mentions: Mentions) -> bool:
    described = set(words(str(spec.get("description") or "")))
    return not described.isdisjoint(words(mentions.text))


def _names_entities(choices: Sequence[Any]) -> bool:
    """Whether an enum lists names (countries, segments) rather than keywords ("asc", "revenue")."""
    return all(isinstance(c, str) and c[:1].isupper() for c in choices)


def _described(choices: Sequence[Any], mentions: Mentions) -> list[Any]:
    """The one keyword choice the user's words describe without naming it (in the lexicon's words:
    "best sellers" for ``quantity``), or nothing when they describe none or several (the model
    picks then)."""
    said = set(words(mentions.text))
    fitting = [c for c in choices if isinstance(c, str) and mentions.lexicon.describes(c, said)]
    return fitting if len(fitting) == 1 else []


def _named(value: Any, mentions: Mentions) -> bool:
    if isinstance(value, str):
        return normalized(value) in mentions.text
    return isinstance(value, int | float) and float(value) in mentions.numbers


def _within(value: float, spec: Mapping[str, Any], kind: str) -> bool:
    if kind == "integer" and value != int(value):
        return False
    if "minimum" in spec and value < spec["minimum"]:
        return False
    if "maximum" in spec and value > spec["maximum"]:
        return False
    if "exclusiveMinimum" in spec and value <= spec["exclusiveMinimum"]:
        return False
    return not ("exclusiveMaximum" in spec and value >= spec["exclusiveMaximum"])
