"""Phrases of a question that become parts of a semantic query, whatever the dataset.

Each finder reads one kind of phrase -- a weekday of every date ("on Thursdays"), a key left blank
("guest checkouts"), what each customer did or never did ("never cancelled"), a place asked with
"where", the money of what a count counted ("the value of those"), a name in lower case ("the
paper chain kit"), a yes-or-no about one thing -- and gives the query's part for it, the words it
used taken out where the reader must not read them again (docs/architecture.md#the-semantic-model).
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Collection
from dataclasses import replace
from typing import Any

from agent_orchestrator.semantic import Column, Entity, Kind, Role, SemanticModel, Vocabulary
from agent_orchestrator.semantic.vocabulary import normalise, singular
from agent_orchestrator.semantic.written import CURRENCY_CODES

from .words import MONTH_NAMES, stem


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_DONE = re.compile(
    r"\b(?P<no>never|not|haven't|hasn't|didn't|don't|doesn't)\s+(?:ever\s+|once\s+)?(?P<never>\w+)"
    r"|\b(?P<once>\w+)\s+(?:at least once|at least one time|before|ever)\b"
    r"|\b(?:ever|once)\s+(?P<ever>\w+)"
)
"""Something a customer did or never did ("never cancelled", "cancelled at least once")."""


_ORDERED = _words("ordered order bought buy purchased purchase shopped shop")


def done_or_not(text: str, model: SemanticModel, vocabulary: Vocabulary) -> list[dict[str, Any]]:
    """Filters on each customer's count of what the text says they did or never did: "never
    cancelled" is no cancelled order, "cancelled at least once" one or more; the words said are kept
    under ``words`` for the caller to take off. Only a count the model has ("cancelled orders")."""
    names = {m.name for m in model.metrics}
    rules = []
    for match in _DONE.finditer(text):
        word = match["never"] or match["once"] or match["ever"]
        if word in _ORDERED or stem(word) in _ORDERED:
            metric = "orders" if "orders" in names else None
        else:
            counted = [m for m in vocabulary.find(f"{word} orders").metrics if m != "orders"]
            metric = counted[0] if counted else None
        if metric is None or model.metric(metric).kind not in (Kind.count_distinct, Kind.rows):
            continue
        never = match["no"] is not None
        if never and vocabulary.find(" ".join(text[match.end() :].split()[:5])).mentions:
            continue  # "never bought golf products": who never had such a line (``_filters``), not no order
        rules.append(
            {
                "metric": metric,
                "op": "le" if never else "ge",
                "values": [0 if never else 1],
                "words": match[0],
            }
        )
    return rules


_DAY_NAMES = "|".join(d.lower() for d in calendar.day_name)


_WEEKDAY = re.compile(
    r"(?P<lead>\b(?:not|excluding|except|outside|without|besides|apart from|other than)\s+)?"
    r"(?:\bon\s+)?(?:\b(?:a|an|the)\s+)?"
    rf"\b(?:(?P<day>{_DAY_NAMES})s?|(?P<weekend>weekends?))\b"
    r"(?!\s+(?:\d|the\s+\d|" + "|".join(m.lower() for m in calendar.month_name[1:]) + r"))"
)
"""A weekday of every date ("on Thursdays", "on a saturday", "at weekends"); not one day ("Thursday 25
April"), nor a day counted back ("last Thursday")."""


def weekdays(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """The weekday filters the text asks for, and the text without their words."""
    time = model.time
    if time is None:
        return text, []
    kept: dict[str, list[str]] = {}
    spans = []
    for match in _WEEKDAY.finditer(text):
        if re.search(r"\b(?:last|this|next|previous|past|every other)\s+$", text[: match.start()]):
            continue
        days = [match["day"].capitalize()] if match["day"] else ["Saturday", "Sunday"]
        kept.setdefault("not_in" if match["lead"] else "in", []).extend(days)
        spans.append(match.span())
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    rules = [
        {"column": time.name, "part": "weekday", "op": op, "values": list(dict.fromkeys(days))}
        for op, days in kept.items()
    ]
    return text, rules


_NUMBERED_RANGE = re.compile(
    r"\b(?P<noun>[a-z]+)\s+(?:#|no\.?\s*|number\s+)?(?P<low>\d{1,6})\s*(?:to|-|through|thru|until)\s*"
    r"(?:#|no\.?\s*)?(?P<high>\d{1,6})\b"
)
_RANGE_MOST = 200
"""The most values a range of numbered things stands for ("stores 1 to 45")."""


def numbered_ranges(
    text: str, model: SemanticModel, vocabulary: Vocabulary
) -> tuple[str, list[dict[str, Any]]]:
    """A run of numbered things ("stores 1 to 5", "branches 10-12") as the values it spans, of the
    dimension whose values are those numbers, and the text without its words."""
    rules = []
    for match in reversed(list(_NUMBERED_RANGE.finditer(text))):
        low, high = int(match["low"]), int(match["high"])
        column = next(
            (
                c
                for c in model.with_role(Role.dimension)
                if singular(match["noun"]) in normalise(c.title).split()
            ),
            None,
        )
        if column is None or not 0 < high - low < _RANGE_MOST:
            continue
        values = [str(n) for n in range(low, high + 1) if vocabulary.holds(column.name, str(n))]
        if values:
            rules.append({"column": column.name, "op": "in", "values": values})
            text = f"{text[: match.start()]} {text[match.end() :]}"
    return text, rules


LEAVING_OUT = (
    r"(?:excluding|exclude|except(?:\s+for)?|other than|outside(?:\s+of)?|apart from|besides|"
    r"without|leaving out|leave out|ignoring|ignore|minus|not counting|take out|taking out|remove|removing)"
)
"""Words that leave out what follows them ("excluding 2011", "without Nov and Dec")."""
_YEARS_LEFT_OUT = re.compile(
    rf"\b{LEAVING_OUT}\s+(?:the\s+)?(?:years?\s+)?"
    r"(?P<years>(?:19|20)\d\d(?:\s*(?:,|and|or|&|/)\s*(?:19|20)\d\d)*)\b(?!\s*[-/]\s*\d)"
)
"""Whole years left out ("excluding 2011 and 2012", "everything except 2020"): a part of every date,
not a period to answer for or compare with ("bought in 2017 but not in 2016" is what each customer
did, read elsewhere)."""


def years_left_out(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """The years the text leaves out, as a filter on the model's date's year, and the text without them."""
    time = model.time
    if time is None:
        return text, []
    years: list[int] = []
    for match in reversed(list(_YEARS_LEFT_OUT.finditer(text))):
        years = [int(y) for y in re.findall(r"\d{4}", match["years"])] + years
        text = text[: match.start()] + " " + text[match.end() :]
    if not years:
        return text, []
    return text, [{"column": time.name, "part": "year", "op": "not_in", "values": list(dict.fromkeys(years))}]


_MONTH_OR_QUARTER = rf"(?:{MONTH_NAMES}|q[1-4]|h[12])"
_MONTHS_LEFT_OUT = re.compile(
    rf"\b{LEAVING_OUT}\s+(?:the\s+)?(?:months?\s+(?:of\s+)?)?"
    rf"(?P<months>{_MONTH_OR_QUARTER}\.?(?:\s*(?:,|and|or|&|/)\s*{_MONTH_OR_QUARTER}\.?)*)\b"
    r"(?!\s*(?:of\s+)?(?:19|20)\d\d|\s*\d{1,2}\b)"
)
"""Months of every year left out ("excluding February", "without Nov and Dec", "outside of Q4": its
three months): a part of every date; a month of one year ("excluding February 2022") or a day
("except Feb 3") is no such part."""
_MONTH_NUMBERS = (
    {name.lower(): n for n, name in enumerate(calendar.month_name) if name}
    | {name.lower(): n for n, name in enumerate(calendar.month_abbr) if name}
    | {"sept": 9}
)


def _months_of(name: str) -> list[int]:
    """The months a month's name, a quarter ("q4") or a half ("h1") is."""
    if name[0] in "qh" and name[1:].isdigit():
        size = 3 if name[0] == "q" else 6
        first = (int(name[1]) - 1) * size + 1
        return list(range(first, first + size))
    return [_MONTH_NUMBERS[name]]


def months_left_out(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """The months of every year the text leaves out, as a filter on the month of the model's date,
    and the text without them."""
    time = model.time
    if time is None:
        return text, []
    months: list[int] = []
    for match in reversed(list(_MONTHS_LEFT_OUT.finditer(text))):
        said = re.findall(_MONTH_OR_QUARTER, match["months"])
        months = [n for name in said for n in _months_of(name)] + months
        text = text[: match.start()] + " " + text[match.end() :]
    if not months:
        return text, []
    return text, [
        {"column": time.name, "part": "month", "op": "not_in", "values": list(dict.fromkeys(months))}
    ]


_CLOCK = (
    r"(?:(?P<{0}>\d{{1,2}})(?:\s+(?P<{0}m>[0-5]\d))?\s*(?P<{0}ap>am|pm)?|(?P<{0}word>noon|midday|midnight))"
)
_HOURS = re.compile(
    rf"\bbetween\s+{_CLOCK.format('a')}\s+and\s+{_CLOCK.format('b')}"
    rf"|\b(?P<lead>from|after|since|past|before|until|till|up to|at|around)\s+{_CLOCK.format('c')}"
    r"(?P<on>\s+(?:onwards?|or later|and later|on))?"
    r"|\b(?:(?:in|during)\s+the\s+)?(?P<part>mornings?|afternoons?|evenings?)\b"
)
_PARTS_OF_DAY = {"morning": ("lt", [12]), "afternoon": ("between", [12, 16]), "evening": ("ge", [17])}
"""A part of the day as its hours: before noon, noon to five, from five."""


def _clock(match: re.Match[str], name: str) -> tuple[int, int] | None:
    """The hour and minutes a clock time of ``match`` names, when it is one ("6pm", "18:00",
    "noon"); a bare number ("after 6") is no time of day."""
    word = match[f"{name}word"]
    if word is not None:
        return (0 if word == "midnight" else 12), 0
    if match[name] is None or (match[f"{name}ap"] is None and match[f"{name}m"] is None):
        return None
    hour, minutes = int(match[name]), int(match[f"{name}m"] or 0)
    if match[f"{name}ap"] is not None:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if match[f"{name}ap"] == "pm" else 0)
    return (hour, minutes) if hour <= 23 else None


def hours_of_day(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """The hour filters the text asks for ("from 6pm onwards", "before noon", "in the evening"), on
    the column with times of day, and the text without their words. A bound inside an hour ("after
    6:30pm") is not read: hours are what the query compares."""
    clocked = model.clocked
    if not clocked:
        return text, []
    rules, spans = [], []
    for match in _HOURS.finditer(text):
        rule: tuple[str, list[int]] | None = None
        if match["part"] is not None:
            rule = _PARTS_OF_DAY[match["part"].removesuffix("s")]
        elif match["lead"] is None:
            low, high = _clock(match, "a"), _clock(match, "b")
            if low is not None and high is not None and low[1] == 0 and high[1] == 0 and low[0] < high[0]:
                rule = ("between", [low[0], high[0] - 1])
        elif (clock := _clock(match, "c")) is not None and clock[1] == 0:
            lead, hour = match["lead"], clock[0]
            if lead in ("at", "around") and not match["on"]:
                rule = ("in", [hour])
            elif lead in ("before", "until", "till", "up to"):
                rule = ("lt", [hour]) if hour > 0 else None
            else:
                rule = ("ge", [hour])
        if rule is not None:
            op, hours = rule
            rules.append({"column": clocked[0].name, "part": "hour", "op": op, "values": hours})
            spans.append(match.span())
    for start, end in reversed(spans):
        text = text[:start] + " " + text[end:]
    return text, rules


_GUEST = re.compile(r"\b(?:guests?|anonymous)(?:\s+check[- ]?outs?)?\b")
"""A customer nobody knows: a line with no customer key."""


def _spoken(column: Column) -> list[str]:
    """How a question names a column: its title, its name, its synonyms (normalised)."""
    return [normalise(column.title), column.name.replace("_", " "), *(normalise(s) for s in column.synonyms)]


def blanks(text: str, model: SemanticModel, flags: Collection[str] = ()) -> tuple[str, list[dict[str, Any]]]:
    """Filters for a key, label or dimension left blank ("lines with no CustomerID", "guest
    checkouts": no customer) or given ("orders with a customer", "orders that used a discount
    code"), and the text without their words. A column of yes and no (``flags``) is had when it says
    yes ("transactions that had a discount applied"), never when it is written."""
    said: dict[str, Column] = {}
    for column in model.with_role(Role.key, Role.label, Role.dimension, Role.measure):
        names = _spoken(column)
        if column.role is Role.key and column.entity is not None:
            names += [column.entity.value, f"{column.entity.value} id"]
        if column.role is Role.measure:  # "a purchase amount" of "Purchase Amount (USD)"; "a rating"
            words = normalise(column.title).split()
            names += [" ".join(w for w in words if w not in CURRENCY_CODES)]
            names += [w for w in words if w in SCORE_WORDS]
        for name in names:
            said.setdefault(name, column)
    rules: dict[tuple[str, str], dict[str, Any]] = {}
    customer = model.key_of(Entity.customer)
    if customer is not None and _GUEST.search(text):
        rules[(customer.name, "missing")] = {"column": customer.name, "op": "missing"}
        text = _GUEST.sub(" ", text)
    if said:
        phrases = "|".join(re.escape(p) for p in sorted(said, key=len, reverse=True))
        blank = re.compile(
            r"\b(?:(?P<no>no|without|missing|blank|empty|lacking"
            r"|(?:(?:do|does|did)\s+not|never)\s+(?:have|has|had|come\s+with))[\s-]+(?:a\s+|an\s+|any\s+)?"
            r"|with\s+(?:a\s+|an\s+|any\s+)?|(?P<had>(?:had|has|have|used|applied|redeemed|entered)\s+(?:a|an|any)\s+))"
            rf"(?P<what>{phrases})\b(?:[\s-]+id\b)?"
        )
        kept: list[re.Match[str]] = []
        cut: list[tuple[int, int]] = []
        for match in blank.finditer(text):
            column = said[match["what"]]
            op = "missing" if match["no"] else "present"
            left_out = _LEFT_OUT_BEFORE.search(text[: match.start()]) if match["no"] else None
            if left_out is not None:  # "exclude the rows with no item": only those with one
                rules[(column.name, "present")] = {"column": column.name, "op": "present"}
                cut.append((left_out.start(), match.end()))
                continue
            if op == "present" and column.role is not Role.key and (not match["had"] or column.name in flags):
                continue  # "with a region" asks nothing; "orders that used a discount code" some
            if column.role is Role.measure and not _left_blank(match["no"], column):
                continue  # "orders with no discount": a discount of nothing, read as a range
            rules[(column.name, op)] = {"column": column.name, "op": op}
            kept.append(match)
        cut += [(m.start(), m.end()) for m in kept if m["no"] or m["had"] or said[m["what"]].role is Role.key]
        for start, end in sorted(cut, reverse=True):
            text = text[:start] + " " + text[end:]
    return text, list(rules.values())


_EARLIER = ("before", "earlier than", "prior to")
_LATER = ("after", "later than")
_BELOW = ("less than", "lower than", "below", "smaller than", "under")
_ABOVE = ("greater than", "more than", "higher than", "above", "bigger than", "over", "exceeds", "exceeded",
          "exceeding")  # fmt: skip
"""How a date is said to be earlier or later than another, and a figure smaller or larger: "sales before
discount" is no comparison of two figures."""


def columns_compared(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """A column compared with another of its kind, row by row ("lines with a shipment date before the
    order date", "orders where profit is above sales"): a filter of the one against the other, and
    the text without its words. Two dates or two figures only."""
    said: dict[str, Column] = {}
    for column in model.with_role(Role.time, Role.measure):
        for name in _spoken(column):
            said.setdefault(name, column)
    if len(said) < 2:
        return text, []
    names = "|".join(re.escape(p) for p in sorted(said, key=len, reverse=True))
    ops = "|".join(
        re.escape(w) for w in sorted((*_EARLIER, *_LATER, *_BELOW, *_ABOVE), key=len, reverse=True)
    )
    compared = re.compile(
        rf"\b(?P<one>{names})\s+(?:is\s+|was\s+|are\s+|were\s+|came\s+|comes\s+|falls?\s+|fell\s+)?"
        rf"(?P<op>{ops})\s+(?:the\s+|its\s+|their\s+|that\s+)?(?P<other>{names})\b"
    )
    rules = []
    for match in reversed(list(compared.finditer(text))):
        one, other = said[match["one"]], said[match["other"]]
        dated = match["op"] in (*_EARLIER, *_LATER)
        if one.name == other.name or one.role is not other.role or dated != (one.role is Role.time):
            continue
        op = "lt" if match["op"] in (*_EARLIER, *_BELOW) else "gt"
        rules.append({"column": one.name, "op": op, "than": other.name})
        text = text[: match.start()] + " " + text[match.end() :]
    return text, rules


_LEFT_OUT_BEFORE = re.compile(
    r"\b(?:exclud\w*|leav\w*\s+out|drop\w*|ignor\w*|skip\w*|remov\w*|without)\s+(?:the\s+|all\s+|any\s+)?"
    r"(?:(?:rows?|lines?|records?|entries|orders?|transactions?|sales|purchases|receipts?|ones)\s+"
    r"(?:(?:that|which)\s+(?:have|has|had)\s+|with\s+))?$"
)
"""What leaves out the lines a blank names ("exclude the rows with", "leaving out orders that have",
"ignore blank place"): the lines that have it are kept."""


SCORE_WORDS = frozenset({"rating", "ratings", "score", "scores", "stars", "review", "reviews"})


def score_column(model: SemanticModel) -> Column | None:
    """The one measure that scores a line ("Review Rating", "Stars"): what "rated 4" is of."""
    scores = [c for c in model.with_role(Role.measure) if SCORE_WORDS & set(normalise(c.title).split())]
    return scores[0] if len(scores) == 1 else None


def _left_blank(cue: str | None, column: Column) -> bool:
    """A measure not given on a line: "missing a purchase amount", or "no rating" of a score (where
    none is no zero)."""
    if cue is None:
        return False
    return cue.split()[0] in ("missing", "blank", "empty", "lacking") or bool(
        SCORE_WORDS & set(normalise(column.title).split())
    )


_HOLDING = re.compile(
    r"\b(?:with|containing|that\s+(?:contains?|has|have))\s+(?:the\s+words?\s+)?(?P<what>[\w' -]{2,60}?)\s+"
    r"in\s+(?:the|its|their)\s+(?P<field>names?|descriptions?|titles?)\b"
)


def names_holding(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]]]:
    """ "anything with 'LUNCH BAG' in the name", "stuff with christmas in the description": the
    things whose name holds the words (the label of that field, else the products' name), and the
    text without them."""
    rules: list[dict[str, Any]] = []
    labels = model.with_role(Role.label)
    for match in list(_HOLDING.finditer(text)):
        field = match["field"].rstrip("s")
        column = next(
            (c for c in labels if field in normalise(c.title).split()), model.label_of(Entity.product)
        )
        if column is not None:
            rules.append({"column": column.name, "op": "contains", "values": [match["what"].strip(" '")]})
            text = text.replace(match[0], " ", 1)
    return text, rules


VALUE = re.compile(r"\b(?:value|worth|amount)\b")


def money_of(model: SemanticModel, counted: list[str]) -> str | None:
    """The money of the rows a count counted ("cancelled orders": what they were worth)."""
    if not counted:
        return None
    count = model.metric(counted[0])
    if count.kind not in (Kind.count_distinct, Kind.rows):
        return None
    for metric in model.metrics:
        if metric.kind is Kind.sum and metric.unit == "money" and metric.only == count.only:
            return metric.name
    return None


_PLACES = ("country", "state", "province", "region", "city", "territory", "location")


def place_column(model: SemanticModel) -> str | None:
    """The dimension that says where (a country before a state, a region, a city), if the file has one."""
    dimensions = model.with_role(Role.dimension)
    for word in _PLACES:
        for column in dimensions:
            if word in normalise(column.title).split() or word in column.name.split("_"):
                return column.name
    return None


def lower_run(question: str, left: list[str], vocabulary: Vocabulary) -> tuple[str, list[str], str] | None:
    """Two or more words left over side by side that are, together, part of names of one column,
    however they are written ("the paper chain kit": six products, to be offered)."""
    words = [normalise(m.group(0)) for m in re.finditer(r"[\w'-]+", question)]
    best: list[str] = []
    run: list[str] = []
    for word in [*words, ""]:
        if word and word in left and word not in run:
            run.append(word)
            continue
        if len(run) >= 2 and len(run) > len(best) and len(vocabulary.containing(run)) == 1:
            best = run
        run = []
    if not best:
        return None
    (column,) = vocabulary.containing(best)
    return column, best, " ".join(best)


YES_OR_NO = re.compile(r"^\s*(?:is|was|are|were|does|did|do)\b")


def attribute_asked(
    filters: list[dict[str, Any]], model: SemanticModel
) -> tuple[list[dict[str, Any]], str | None]:
    """ "Is customer 22156 High Value?": one thing (a key's value) and one value of a dimension
    asked of it; the dimension is then what the answer shows, so that a no says what it is."""
    one = [f for f in filters if f.get("column") and f["op"] == "in" and len(f["values"]) == 1]
    keys = [f for f in one if model.column(f["column"]).role in (Role.key, Role.label)]
    dimensions = [f for f in one if model.column(f["column"]).role is Role.dimension and "part" not in f]
    if len(keys) != 1 or len(dimensions) != 1:
        return filters, None
    return [f for f in filters if f is not dimensions[0]], dimensions[0]["column"]


def of_the_named_column(found: Any) -> Any:
    """Of the values that words name in several columns, the one of the column the question names."""
    columns: dict[str, set[str]] = {}
    for mention in found.mentions:
        columns.setdefault(mention.words, set()).add(mention.column)
    named = set(found.columns)
    kept = tuple(
        m
        for m in found.mentions
        if len(columns[m.words]) == 1 or not columns[m.words] & named or m.column in named
    )
    return replace(found, mentions=kept) if len(kept) < len(found.mentions) else found


_YEARS_OLD = r"(?:\s*-?\s*(?:years?|yrs?)[\s-]*olds?|\s+years?\s+old|\s+yo)"
_BAND = (
    r"(?:under|below|younger\s+than)\s+\d{1,3}|over\s+\d{1,3}|\d{1,3}\s*(?:-|\u2013|to)\s*\d{1,3}"
    r"|\d{1,3}\s*(?:\+|plus\b|(?:and|or)\s+(?:over|up|older|above)\b)"
)
_BANDS = re.compile(rf"(?P<bands>(?:{_BAND})(?:\s*(?:,|/|or|and)?\s*(?:{_BAND})){{1,11}})")
"""Ranges of a measure side by side, each as people say one ("18-29, 30-44, 45-59 or 60+")."""
_AGE_SAID = re.compile(
    # "the under-30s", "over 60s": a decade said for everyone under or over it
    r"\b(?:the\s+)?(?P<dir>under|over)[\s-]*(?P<decade>\d0)s\b"
    r"|\bin\s+(?:their|the)\s+(?P<their>\d0)s\b"  # "customers in their 30s"
    r"|\b(?P<than>older|younger)\s+than\s+(?P<a>\d{1,3})\b"  # "older than 50"
    # "customers under 25": people under a figure an age could be, and nothing after it counted
    r"|\b(?:customers?|people|shoppers?|buyers?|clients?)\s+(?P<who>under|below|over|above)\s+"
    r"(?P<age>[1-9]\d)\b(?!\s*(?:%|percent|k\b|\w+s\b))"
    r"|\b(?:aged?\s+|ages\s+)?(?P<b>\d{1,3})\s*"  # "aged 60+", "60 or older", "65 and over year olds"
    r"(?:\+|plus\b|(?:and|or)\s+(?P<end>older|younger|over|up|above|under|below)\b)"
    rf"(?:{_YEARS_OLD})?"
    r"|\b(?:aged?\s+|ages\s+)(?:between\s+|from\s+)?"  # "aged 18-29", "ages between 25 and 34"
    rf"(?P<low>\d{{1,3}})\s*(?:-|\u2013|to|and)\s*(?P<high>\d{{1,3}})\b(?:{_YEARS_OLD})?"
    rf"|\b(?P<low2>\d{{1,3}})\s*(?:-|\u2013|to)\s*(?P<high2>\d{{1,3}}){_YEARS_OLD}"
)
"""An age said the ways people say one ("60 or older", "the under-30s", "aged 18-29", "25-34 year
olds"): a "60+" or "60 and over" only with "aged" before it or "year olds" after."""


def _age_column(model: SemanticModel) -> Column | None:
    """The one measure whose title says it is an age ("age", "Customer Age")."""
    ages = [c for c in model.with_role(Role.measure) if "age" in normalise(c.title).split()]
    return ages[0] if len(ages) == 1 else None


def ages(text: str, model: SemanticModel) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """Ages said as people say them, on a dataset with an age: a range of them as a filter ("how many
    customers are 60 or older?", "what about the under 30s?"), or several side by side as the bands
    the answer is broken down by ("which age group spends the most: 18-29, 30-44 or 60+?"); the text
    without them. A bare "60+" or "18-29" is an age only beside the word ("age group", "aged")."""
    age = _age_column(model)
    if age is None:
        return text, [], []
    groups: list[dict[str, Any]] = []
    bands = _BANDS.search(text) if re.search(r"\b(?:age|ages|aged|year olds?)\b", text) else None
    if bands is not None:
        groups.append({"column": age.name, "bands": [_band(b[0]) for b in re.finditer(_BAND, bands[0])]})
        text = text[: bands.start()] + " " + text[bands.end() :]
        text = re.sub(r"\b(?:group|band|bracket|bucket|range|cohort)s?\b", " ", text)  # "which age group"
    filters: list[dict[str, Any]] = []
    for match in reversed(list(_AGE_SAID.finditer(text))):
        rule = _age_rule(match)
        if rule is None:
            continue
        op, values = rule
        filters.insert(0, {"column": age.name, "op": op, "values": values})
        text = text[: match.start()] + " " + text[match.end() :]
    return text, filters, groups


def _age_rule(match: re.Match[str]) -> tuple[str, list[float]] | None:
    if match["decade"]:
        return ("lt" if match["dir"] == "under" else "ge"), [float(match["decade"])]
    if match["their"]:
        return "between", [float(match["their"]), float(match["their"]) + 9]
    if match["than"]:
        return ("gt" if match["than"] == "older" else "lt"), [float(match["a"])]
    if match["who"]:
        return ("lt" if match["who"] in ("under", "below") else "gt"), [float(match["age"])]
    if match["b"]:
        said = match[0]
        if not re.match(r"aged?\b|ages\b", said) and not re.search(rf"{_YEARS_OLD}$|older|younger", said):
            return None  # "5+ items", "100 and over": no age
        return ("le" if match["end"] in ("younger", "under", "below") else "ge"), [float(match["b"])]
    low, high = (match["low"], match["high"]) if match["low"] else (match["low2"], match["high2"])
    return "between", [float(low), float(high)]


def _band(said: str) -> dict[str, float]:
    """One band as the query writes it ("18-29": 18 to 29; "60+": 60 on; "under 30": below 30)."""
    numbers = [float(n) for n in re.findall(r"\d+", said)]
    if re.match(r"under|below|younger", said):
        return {"below": numbers[0]}
    return {"low": numbers[0], "high": numbers[1]} if len(numbers) == 2 else {"low": numbers[0]}
