"""A question that follows up on the previous reading: whether it does, and what it changes.

A follow-up ("and in France?", "how many orders was that?", "what about the year before?") starts
from the previous call's arguments and changes only what it names (``merge``); "they", "that month"
or "the first one" is a row the previous answer listed; "which was higher?" puts the last two answers
side by side. A question that names its own subject carries nothing over
(docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .choices import BETWEEN_NAMES, COMPARING
from .periods import NUMBER_WORDS, after, before, day_bounds, year_before
from .reading import Marks, Reading
from .row_reference import referred_row as row_in_list
from .timeframe import SHIFT_BACK, SHIFT_ON, WHOLE_OF, YEAR_BACK, enclosing
from .vocabulary import Vocabulary, either
from .words import singular

BREAKDOWN_ONLY = re.compile(
    r"\s*(?:and\s+|now\s+|then\s+)?(?:(?:split|broken\s+down|break\s+(?:it|that|this)?\s*down|show\s+(?:it|that))\s+)?"
    r"(?:by|per|for each|each)\s+\w+\s*$"
)
"""A breakdown alone ("by country", "split by month"): of the question before."""

NEW_QUESTION = re.compile(
    r"\b(?:different|new|another|separate|unrelated|other)\s+(?:question|topic|subject)\b|\bchanging\s+(?:the\s+)?subject\b"
    r"|\bsomething\s+else\b|\bmoving\s+on\b"
)
"""A question that says it starts anew ("different question: …"): never a follow-up."""
NARROWING = re.compile(
    r"\s*(?:in|for|from|during|over|only|just|but|and|now|then|what about|how about|same)\b"
)
"""How a filter alone opens when it narrows the question before ("In France?", "only for 2025");
"whats up with France in 2025" is a question of its own."""
_FOLLOW_UP = re.compile(
    r"^\s*(?:and|what about|how about|same|now|also|then|ok|okay|so|but|what if|and what about)\b"
    r"|\b(?:of|among|from|in|for)\s+(?:those|these|them)\b"
    r"|\bthat\s+compares?\b"
    # "avg order value that year?", "in the same month?" (not "the same quarter a year before")
    r"|\b(?:that|the\s+same)\s+(?:year|month|quarter|week|day|period)\b(?!\s+(?:a|one|the|last|previous|of)\b)"
    r"|\b(?:they|them|their|theirs|he|she|his|her|hers|ones|its)\b|\bbreak\s+(?:it|that|this)\s+down\b"
    r"|\bthe\s+(?:first|second|third|fourth|fifth|last|top|bottom)\s+one\b"
    r"|\beach\s+(?:one|of\s+(?:them|those|these))\b"
    r"|\b(?:buy|buys|bought|sell|sells|sold|order|orders|ordered|purchase|purchases|purchased)\s+it\b"
    r"|^\s*(?:what|how much|how many)\s+(?:is\s+|was\s+)?(?:that|this|it)\b"
    r"|^\s*which\s+(?:one|of\s+(?:them|those|these))\b"
    # "as a percentage of all revenue?" alone; "As a share of revenue, how much came from X?" is a
    # question of its own
    r"|^\s*(?:and\s+)?(?:as|in)\s+(?:an?\s+)?(?:share|percent|percentage|proportion|fraction|%)"
    r"(?:\s+terms)?(?:\s+of\s+(?:the\s+|our\s+)?(?:total|all|whole|overall)(?:\s+\w+)?)?\s*$"
    r"|^\s*(?:and\s+|now\s+)?(?:compare|compared|vs|versus)\s+(?:it\s+|that\s+|this\s+|them\s+)?"
    r"(?:with|to|against)\b",
    re.IGNORECASE,
)
ELLIPTIC = re.compile(
    r"\bthe\s+(?:most|least|fewest|highest|lowest|biggest|smallest|largest)$"
    rf"|\bthe\s+(?:top|bottom|best|worst|biggest|largest|smallest)\s+(?:\d{{1,2}}|{'|'.join(NUMBER_WORDS)})$"
)
"""'Which month had the most?', 'who are the top 3?': of what and where the question before counted."""
_TOP = re.compile(r"\b(?:top|best|biggest|largest|leading)\b")
"""A ranking of another kind of thing by the tool's own measure ("their top product"), unlike "which
month had the most?", whose count is the question before's."""

ENDS_REFERRING = re.compile(
    r"\b(?:that|those|it|them|then|instead|same|there)\b\W*$|\b(?:does|did|is|was|were|how)\s+(?:that|it|those|these)\b",
    re.IGNORECASE,
)
"""'How many orders was that?' refers back, unless the question names its own scope: in 'Germany 2025
revenue, how much was it' the 'it' is its own."""
_PRONOUN = re.compile(r"\b(?:they|them|their|theirs|he|she|him|his|her|hers|it|its|that one|this one)\b")
"""A word for the one row the previous answer named ("how much have they spent?")."""

THAT_PERIOD = re.compile(r"\b(?:that|the same)\s+(?:day|week|month|quarter|year|period|time)\b")
"""The previous answer's period, said again: the follow-up keeps it ("this month" is the latest)."""

SAME_PERIOD = re.compile(
    r"\b(?:(?:in|for|over|during|across|on)\s+)?(?:the\s+)?same\s+"
    r"(?:period|time\s*frame|time|months?|years?|quarters?|weeks?|days?|dates?|dates?\s+range)\b"
)
"""'How did France do in the same period?': the period of the answer before (a step back by a year,
'the same month last year', is read first)."""

OF_TWO = re.compile(
    r"\bwhich\s+(?:of\s+(?:the|those|these)\s+(?:two|2)\s+|one\s+)?(?:was|is|were|had|did|came out)\s+"
    r"(?:\w+\s+)?(?:higher|bigger|larger|greater|more|better|stronger|lower|smaller|fewer|less|worse|weaker)\b"
    r"|\bwhich\s+of\s+(?:the|those|these)\s+(?:two|2)\b"
    r"|\b(?:the\s+)?difference\s+between\s+(?:them|those|these|the\s+two)\b"
    r"|\bcompare\s+(?:them|those|these|the\s+two)\b"
)
"""A question about the last two answers together ("which was higher?", "compare the two")."""

OF_SOME = re.compile(
    r"\b(?:which|what|who)\s+of\s+(?:the|those|these|them)\s+(three|four|five|[345])\b"
    r"|\bof\s+(?:the|those|these)\s+(three|four|five|[345])\s*,?\s+which\b"
)
"""A question about the last few answers together ("which of those three was lowest?")."""


def refers_back(text: str, marks: Marks, args: dict[str, Any]) -> bool:
    """Whether the question refers to an earlier answer ("and in France?", "their orders"). A pronoun
    after a name the question gives itself is that name's ("Compare Ireland's share in July with its
    share in December", "customer 22681: what % of Sweden's revenue is theirs?"), not the turn's
    before."""
    found = [m for m in _FOLLOW_UP.finditer(text)]
    if not found:
        return False
    first_name = min(marks.named.values(), default=None)
    if first_name is None and any(k.endswith("_id") for k in args):
        first_name = 0  # an id the question names: its own subject, written first
    return any(
        first_name is None or m.start() < first_name or not _PRONOUN_AFTER_NAME.fullmatch(m[0]) for m in found
    )


def the_one_id(previous: dict[str, Any], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """The one id the previous question was about, as a row ("customer 21094"): "without them"."""
    return [
        (kind, str(previous[p])) for kind, p in vocabulary.ids.items() if p == f"{kind}_id" and p in previous
    ]


def named_before(previous: dict[str, Any], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """The one thing per dimension an answer that was no breakdown was about (Germany, a product)."""
    named = [
        (singular(parameter), previous[parameter][0])
        for parameter in vocabulary.entities
        if isinstance(previous.get(parameter), list) and len(previous[parameter]) == 1
    ]
    if vocabulary.free_dimension and len(names := vocabulary.free_names(previous)) == 1:
        named.append((vocabulary.free_dimension, names[0]))
    return named[:1] if len(named) == 1 else []


def _that_nouns(listed: Sequence[tuple[str, str]], vocabulary: Vocabulary) -> str:
    """The nouns of the listed rows' dimension ("month", "customer"), as a pattern."""
    dimension = listed[0][0]
    nouns = [t for t, v in vocabulary.choices("group_by").items() if v == dimension and " " not in t]
    return "|".join(re.escape(n) for n in nouns or [dimension])


def take_that_row(text: str, marks: Marks, listed: Sequence[tuple[str, str]], vocabulary: Vocabulary) -> bool:
    """ "That month", "this customer": the one row the answer before named, not a breakdown."""
    taken = False
    for found in re.finditer(rf"\b(?:that|this|the same)\s+(?:{_that_nouns(listed, vocabulary)})\b", text):
        if marks.free(*found.span()):
            marks.take(*found.span())
            taken = True
    return taken


def excluding_listed(
    marks: Marks, args: dict[str, Any], listed: Sequence[tuple[str, str]], vocabulary: Vocabulary
) -> bool:
    """ "Excluding them" of the rows just listed, or "without the first one" (the first two, the
    last one), when the tool can leave their kind out: ids, a list's names, products."""
    word = listed[0][0]
    parameter = _exclusion_of(word, vocabulary)
    cues = vocabulary.cues.get(parameter or "")
    ids = parameter is not None and parameter.endswith("_ids")
    if parameter is None or not cues or (ids and not all(key.isdigit() for _, key in listed)):
        return False
    count = rf"\d{{1,2}}|{'|'.join(NUMBER_WORDS)}"
    nouns = _that_nouns(listed, vocabulary)
    found = re.search(
        rf"\b(?:{either(cues)})\s+(?:(them|those|these|they|the\s+(?:{nouns})s?)|the\s+(first|top|last|bottom)"
        rf"(?:\s+({count}))?(?:\s+(?:ones?|{nouns}s?))?)\b",
        marks.text,
    )
    if found is None or not marks.free(*found.span()):
        return False
    if found[1] and len(listed) == 1 and not ids:
        return False  # "without them" after one product: the customer asked about, not "it"
    rows = list(listed)
    if found[2]:  # "the first one", "the top two"
        n = 1 if found[3] is None else int(found[3]) if found[3].isdigit() else NUMBER_WORDS[found[3]]
        rows = rows[:n] if found[2] in ("first", "top") else rows[-n:]
    marks.take(*found.span())
    args[parameter] = [int(key) if ids else key for _, key in rows]
    return True


def _exclusion_of(kind: str, vocabulary: Vocabulary) -> str | None:
    """The parameter that leaves out rows of ``kind`` (customer: ``exclude_customer_ids``)."""
    if (p := vocabulary.ids.get(kind)) and f"exclude_{p}s" in vocabulary.parameters:
        return f"exclude_{p}s"
    plural = next((p for p in vocabulary.entities if singular(p) == kind), None)
    if plural is not None and plural in vocabulary.excluded_of:
        return vocabulary.excluded_of[plural]
    if kind == vocabulary.free_dimension and vocabulary.free_list:
        return f"exclude_{vocabulary.free_text}"
    return None


_PRONOUN_AFTER_NAME = re.compile(r"\b(?:they|them|their|theirs|its|his|her|hers)\b")


def referred_row(
    text: str, listed: Sequence[tuple[str, str]], vocabulary: Vocabulary, lowest_first: bool = False
) -> tuple[str, str] | None:
    """The row of the previous answer a follow-up points at: "they" or "that month" when it named
    one, "the first one" / "no. 3 on that list" / "the bottom one" of a list (``row_reference``)."""
    if not listed:
        return None
    that = re.search(rf"\b(?:that|this)\s+(?:{_that_nouns(listed, vocabulary)})\b", text)
    if that and len(listed) == 1:
        return listed[0]
    if len(listed) == 1 and re.search(r"\b(?:break|split|show)\s+(?:that|this)\b", text):
        return listed[0]  # "break that down by month" after one product: that product's months
    placed = row_in_list(text, ("", [key for _, key in listed]), lowest_first)
    if placed is not None and placed.text != text:  # by its place, not by a pronoun
        return next(row for row in listed if row[1] == placed.value)
    return listed[0] if len(listed) == 1 and _PRONOUN.search(text) else None


def about_the_row(
    arguments: dict[str, Any], one: tuple[str, str], vocabulary: Vocabulary, own: dict[str, Any]
) -> dict[str, Any]:
    """The follow-up's reading about the previous answer's one row instead of its ranking: the
    customer, country, product, segment or period that row is; unless the question names its own
    ("customer 22681: what % of Sweden's revenue is theirs?" is about 22681)."""
    dimension, key = one
    plural = next((p for p in vocabulary.entities if singular(p) == dimension), None)
    free = vocabulary.free_text if dimension == vocabulary.free_dimension else None
    named = {f"{dimension}_id", plural, free, "period" if dimension in _TIME_GROUPS else None}
    about = {k: v for k, v in arguments.items() if k not in ("group_by", "order", "limit", "rank")}
    if any(k in own for k in named if k):
        return about  # about the one it names, not the ranking before
    if f"{dimension}_id" in vocabulary.parameters and key.isdigit():
        about[f"{dimension}_id"] = int(key)
    elif plural:
        about[plural] = [key]
    elif vocabulary.free_text and dimension == vocabulary.free_dimension:
        about[vocabulary.free_text] = vocabulary.free_value([key])
    elif dimension in _TIME_GROUPS:
        about["period"] = key
    else:
        return arguments
    return about


_TIME_GROUPS = ("month", "day", "year", "quarter")
"""Groupings whose rows are periods: "that month" is the period of the row named."""


def paired_answers(
    previous: dict[str, Any],
    placed: str | None,
    prior: tuple[dict[str, Any], str | None],
    vocabulary: Vocabulary,
) -> dict[str, Any] | None:
    """The last two answers as one query: two periods of the same figure compared, or two names
    side by side; None when they differ in more than that (nothing one answer can put together)."""
    before_, before_placed = prior
    if "group_by" in previous or "group_by" in before_:
        return None
    differ = {k for k in set(previous) | set(before_) if previous.get(k) != before_.get(k)}
    if differ == {"period"}:
        for (later, late), (earlier, early) in (
            ((previous["period"], placed), (before_.get("period"), before_placed)),
            ((before_.get("period"), before_placed), (previous["period"], placed)),
        ):
            for step, compare in ((before, "previous_period"), (year_before, "year_before")):
                if later and earlier and step(late or later) in (earlier, early):
                    return previous | {"period": later, "compare": compare}
        return None
    if len(differ) == 1 and (parameter := next(iter(differ))) in vocabulary.entities:
        names = [*(before_.get(parameter) or []), *(previous.get(parameter) or [])]
        if (
            len(names) == 2
            and names[0] != names[1]
            and singular(parameter) in vocabulary.choices("group_by").values()
        ):
            return previous | {parameter: names, "group_by": singular(parameter)}
    return None


def names_of_answers(
    answers: Sequence[dict[str, Any]], vocabulary: Vocabulary
) -> tuple[str, list[str]] | None:
    """The one entity list the answers differ in, and its names in the order asked; None when they
    differ in anything else or one of them is a breakdown."""
    if any("group_by" in a for a in answers):
        return None
    differ = {k for a in answers for b in answers for k in set(a) | set(b) if a.get(k) != b.get(k)}
    if len(differ) != 1 or (parameter := next(iter(differ))) not in vocabulary.entities:
        return None
    if singular(parameter) not in vocabulary.choices("group_by").values():
        return None
    names = [n for a in reversed(answers) for n in a.get(parameter) or []]
    return (parameter, names) if len(set(names)) == len(names) else None


def counted_of_those(
    text: str, previous: dict[str, Any], args: dict[str, Any], vocabulary: Vocabulary
) -> None:
    """ "Which of those had the most customers?" after five countries: the rows are still countries,
    and "customers" is what they are ranked by, not a ranking of customers."""
    kind, listed = args.get("group_by"), previous.get("group_by")
    counted = f"{kind}s"
    if (
        _OF_THOSE.search(text)
        and listed
        and kind not in (None, listed)
        and "measure" not in args
        and counted in vocabulary.choices("measure").values()
    ):
        args["measure"], args["group_by"] = counted, listed


def by_measure(text: str, previous: dict[str, Any], new: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "And by customers?" after the top countries by orders: the same ranking by another measure,
    not a ranking of customers (a word that names both a measure and a dimension)."""
    group = new.get("group_by")
    counted = f"{group}s"
    if (
        group
        and previous.get("group_by") not in (None, group)
        and "measure" not in new
        and counted in vocabulary.choices("measure").values()
        and re.match(r"\s*(?:and\s+|what about\s+|how about\s+|now\s+|then\s+)?(?:by|in terms of)\s", text)
    ):
        new["measure"] = counted
        del new["group_by"]


_OF_THOSE = re.compile(r"\b(?:which|what|who)\s+of\s+(?:those|these|them)\b")


def merge(
    previous: dict[str, Any], new: dict[str, Any], text: str, placed: str | None, *, qualifying: bool = False
) -> dict[str, Any]:
    """The previous reading with what the follow-up changes: named slots replace, the rest stays; a
    step back ("the year before") is taken from where the previous period was placed; a period to
    compare with ("compare that with 2010") keeps the previous one as the period compared."""
    merged = dict(previous)
    if qualifying and "measure" in previous:
        new = {k: v for k, v in new.items() if k != "measure"}
    if "countries" in new or "exclude_countries" in new:
        merged.pop("countries", None)
        merged.pop("exclude_countries", None)
    if "group_by" in new:  # a new ranking: its own length, direction and comparison
        for key in ("limit", "order", "rank", "rank_by", "compare"):
            merged.pop(key, None)
    merged.update(new)
    for key in [k for k in merged if k.startswith("exclude_") and k.endswith("_ids")]:
        if merged.get(key[len("exclude_") : -1]) in merged[key]:  # "without them" of the one asked about
            del merged[key[len("exclude_") : -1]]
    period = previous.get("period")
    if "period" not in new and isinstance(period, str):
        back = (
            "year_before"
            if YEAR_BACK.search(text)
            else "previous_period"
            if SHIFT_BACK.search(text)
            else None
        )
        step = year_before if back == "year_before" else before
        shifted = (step(period) or (step(placed) if placed else None)) if back else None
        if back is None and SHIFT_ON.search(text):  # "and the following day?"
            shifted = after(period) or (after(placed) if placed else None)
        if back and (COMPARING.search(text) or "compare" in previous):
            # "how does that compare with a year earlier?", "and a year earlier?" after a comparison:
            # the same period, compared with the other one
            merged["compare"] = back
        elif shifted is not None:
            merged["period"] = shifted
            merged.pop("compare", None)
    reached = (
        _compared_with(period, placed, new["period"]) if "period" in new and isinstance(period, str) else None
    )
    if reached is not None and COMPARING.search(text):
        merged["period"], merged["compare"] = reached
    elif "period" in new and "compare" not in new:
        merged.pop("compare", None)
    if "measure" not in new and merged.get("measure") == f"{merged.get('group_by')}s":
        del merged["measure"]  # "who are the top 3?" after how many customers: by what they bought
    if (
        "measure" not in new
        and new.get("group_by") not in (None, previous.get("group_by"))
        and _TOP.search(text)
        and not ELLIPTIC.search(text)
    ):
        merged.pop("measure", None)  # "what's their top product?" after their orders: by what sold
    return {k: v for k, v in merged.items() if v not in (None, [], "")}


def _compared_with(period: str, placed: str | None, other: str) -> tuple[str, str] | None:
    """The previous period and the comparison that reaches ``other`` from it: "compare that with
    2010" after 2011 is 2011 against the period before; None if ``other`` is no step back from it."""
    for base in (period, placed):
        if base is None or base == other:
            continue
        if other.startswith("--") and base[:4].isdigit():  # "compare that to February": of that year
            dated = base[:4] + other[1:]
            other = dated if dated < base else f"{int(base[:4]) - 1}{other[1:]}"
        if before(base) == other:
            return base, "previous_period"
        if year_before(base) == other:
            return base, "year_before"
    return None


def share_of_enclosing(
    previous: dict[str, Any],
    args: dict[str, Any],
    merged: dict[str, Any],
    placed: str | None,
    vocabulary: Vocabulary,
) -> None:
    """ "What share of the year is that?" after December 2025: December's share of its year, not
    the year's share of all time."""
    period, larger = previous.get("period"), args.get("period")
    if not (args.get("share") and isinstance(period, str) and isinstance(larger, str)):
        return
    if "share_of" not in vocabulary.parameters or "share_of" in args:
        return
    inner, outer = day_bounds(period) or (day_bounds(placed) if placed else None), day_bounds(larger)
    if inner and outer and inner != outer and outer[0] <= inner[0] and inner[1] <= outer[1]:
        merged["period"], merged["share_of"] = period, larger


def beside(
    previous: dict[str, Any],
    new: dict[str, Any],
    merged: dict[str, Any],
    text: str,
    vocabulary: Vocabulary,
) -> None:
    """ "How does that compare to France?": the one name the answer before was about, beside the one
    the follow-up names, as a breakdown of the two (a comparison of names, not of periods)."""
    if "group_by" in previous or not (COMPARING.search(text) or BETWEEN_NAMES.search(text)):
        return
    dimensions = set(vocabulary.choices("group_by").values())
    for parameter in vocabulary.entities:
        before_, named = previous.get(parameter) or [], new.get(parameter) or []
        if len(before_) == 1 and len(named) == 1 and before_ != named and singular(parameter) in dimensions:
            merged[parameter] = before_ + named
            merged["group_by"] = singular(parameter)
            if "period" not in new:
                merged.pop("compare", None)
            return


_IN_PERCENT = re.compile(
    r"\b(?:in|as\s+an?|as)\s+(?:percent|percentages?|%)(?:\s+terms)?\b|\bpercentage[-\s]wise\b"
)


def change_in_percent(
    text: str, previous: dict[str, Any], new: dict[str, Any], merged: dict[str, Any]
) -> None:
    """ "And in percent?" after a comparison asks for the change as a percentage, which the compared
    answer states ("down 621.48 (10.9%)"), not for each period's share of a total; "as a percentage of
    all revenue" names a whole and stays a share."""
    asked = new.get("share") and _IN_PERCENT.search(text) and not re.search(r"\b(?:of|from)\b", text)
    if asked and "compare" in previous and "share" not in previous:
        merged.pop("share", None)


def whole_of(
    text: str, marks: Marks, new: dict[str, Any], reading: Reading, placed: str | None, *, shares_of: bool
) -> None:
    """ "What was the total for the year?" after a month by month answer: the figure of the whole
    year (quarter, month) the previous period lies in, without the breakdown. "What share of the
    year is that?" (``shares_of``: the tool takes a larger period): the period's share of it."""
    merged = reading.arguments
    period = str(merged.get("period") or placed or "")
    unit = WHOLE_OF.search(text)
    if unit and "period" not in new and re.match(r"\d{4}", period):
        whole = enclosing(period, unit[1])
        if new.get("share") and shares_of and whole != period:
            merged["share_of"] = whole
        else:
            merged["period"] = whole
    if (unit or _TOTAL.search(text)) and "group_by" in merged and "group_by" not in new:
        for key in ("group_by", "order", "limit", "rank", "rank_by"):
            merged.pop(key, None)


_TOTAL = re.compile(r"\b(?:total|overall|altogether|in all|combined)\b")


def per_previous(text: str, previous: dict[str, Any], merged: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "What's that per customer?" after orders: the previous measure per customer, when the tool
    has one (``orders_per_customer``), not the measure the bare "per customer" names by default."""
    ratio = re.fullmatch(r"([a-z]+)_per_([a-z]+)", str(merged.get("measure")))
    before_ = previous.get("measure")
    measures = vocabulary.choices("measure")
    if not ratio or not before_ or not re.search(rf"\bper\s+{ratio[2]}\b", text):
        return
    wanted = f"{before_}_per_{ratio[2]}"
    named = any(
        re.search(rf"\b{re.escape(t)}\b", text) for t, v in measures.items() if v == ratio[1]
    )  # "revenue per customer" names its own
    if wanted in measures.values() and not named:
        merged["measure"] = wanted
