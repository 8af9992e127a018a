"""Read a question into the arguments of a query tool, and say what of it was not understood.

The reader marks every part of the question it used: periods (``periods``), the tool's entity names
(countries as stored, with their aliases), ids ("customer 12345"), quoted names, and the words the
schema lists for each choice of ``measure``, ``group_by``, ``order`` and ``compare``
(``vocabulary``). What is left, less common English, is either the words of a product (handed to the
tool, which matches it against the data) or not understood: then the reading does not cover the
question, and the guide says so instead of guessing. A follow-up ("and in France?", "how many
orders was that?") starts from the previous reading and changes only what it names.

The question's words are made ready first (``words``: normalized, typos corrected), and the reading
marks what it used in ``reading.Marks``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Any

from .periods import (
    NUMBER_WORDS,
    ORDINALS,
    Found,
    after,
    before,
    day_bounds,
    find_periods,
    with_year,
    year_before,
)
from .reading import Marks, Reading
from .vocabulary import Vocabulary, either
from .words import (
    CALENDAR_NAMES,
    COMMON,
    EXCLUDED_AFTER,
    QUOTED,
    TYPO_PRONE,
    in_capitals,
    normalize,
    singular,
    spelled,
    subject_stem,
)

_BREAKDOWN_ONLY = re.compile(
    r"\s*(?:and\s+|now\s+|then\s+)?(?:(?:split|broken\s+down|break\s+(?:it|that|this)?\s*down|show\s+(?:it|that))\s+)?"
    r"(?:by|per|for each|each)\s+\w+\s*$"
)
"""A breakdown alone ("by country", "split by month"): of the question before."""
_THAT_PERIOD = re.compile(r"\b(?:that|the same)\s+(?:day|week|month|quarter|year|period|time)\b")
"""The previous answer's period, said again: the follow-up keeps it ("this month" is the latest)."""
_NEW_QUESTION = re.compile(
    r"\b(?:different|new|another|separate|unrelated|other)\s+(?:question|topic|subject)\b|\bchanging\s+(?:the\s+)?subject\b"
    r"|\bsomething\s+else\b|\bmoving\s+on\b"
)
_NARROWING = re.compile(
    r"\s*(?:in|for|from|during|over|only|just|but|and|now|then|what about|how about|same)\b"
)
"""How a filter alone opens when it narrows the question before ("In France?", "only for 2025");
"whats up with France in 2025" is a question of its own."""
_FOLLOW_UP = re.compile(
    r"^\s*(?:and|what about|how about|same|now|also|then|ok|okay|so|but|what if|and what about)\b"
    r"|\b(?:of|among|from|in|for)\s+(?:those|these|them)\b"
    r"|\bthat\s+compares?\b"
    r"|\b(?:they|them|their|theirs|he|she|his|her|hers|ones|its)\b|\bbreak\s+(?:it|that|this)\s+down\b"
    r"|\bthe\s+(?:first|second|third|fourth|fifth|last|top|bottom)\s+one\b"
    r"|\beach\s+(?:one|of\s+(?:them|those|these))\b"
    r"|\b(?:buy|buys|bought|sell|sells|sold|order|orders|ordered|purchase|purchases|purchased)\s+it\b"
    r"|^\s*(?:what|how much|how many)\s+(?:is\s+|was\s+)?(?:that|this|it)\b"
    r"|^\s*which\s+(?:one|of\s+(?:them|those|these))\b"
    r"|^\s*(?:and\s+|now\s+)?(?:compare|compared|vs|versus)\s+(?:it\s+|that\s+|this\s+|them\s+)?"
    r"(?:with|to|against)\b",
    re.IGNORECASE,
)
_ELLIPTIC = re.compile(
    r"\bthe\s+(?:most|least|fewest|highest|lowest|biggest|smallest|largest)$"
    rf"|\bthe\s+(?:top|bottom|best|worst|biggest|largest|smallest)\s+(?:\d{{1,2}}|{'|'.join(NUMBER_WORDS)})$"
)
"""'Which month had the most?', 'who are the top 3?': of what and where the question before counted."""
_ENDS_REFERRING = re.compile(
    r"\b(?:that|those|it|them|then|instead|same|there)\b\W*$|\b(?:does|did|is|was|were|how)\s+(?:that|it|those|these)\b",
    re.IGNORECASE,
)
"""'How many orders was that?' refers back, unless the question names its own scope: in 'Germany 2025
revenue, how much was it' the 'it' is its own."""
_PRONOUN = re.compile(r"\b(?:they|them|their|theirs|he|she|him|his|her|hers|it|its|that one|this one)\b")
"""A word for the one row the previous answer named ("how much have they spent?")."""
_ALL_TIME = re.compile(
    r"\b(?:(?:over|for|in|during|across)\s+)?(?:the\s+)?(?:whole|entire|full)\s+(?:period|time|history|data(?:set)?)\b"
    r"|\ball[- ]time\b|\bso far\b|\bto date\b|\bever\b"
)
_SHIFT_BACK = re.compile(
    r"\b(?:the\s+)?(?:previous|prior|preceding)\s+(?:day|week|month|quarter|period)\b"
    r"|\b(?:the\s+)?(?:day|week|month|quarter|period)\s+before\b|\bbefore that\b"
)
"""A step back by the previous period's own length; a step back by a year is ``_YEAR_BACK``."""
_YEAR_BACK = re.compile(
    r"\b(?:(?:the\s+)?same\s+(?:day|week|month|quarter|period|time)\s+)?(?:a|one|the)\s+year\s+(?:earlier|before|ago)\b"
    r"|\b(?:the\s+)?same\s+(?:day|week|month|quarter|period|time)\s+(?:of\s+)?(?:last|the\s+previous|the\s+prior)\s+year\b"
    r"|\b(?:the\s+)?(?:previous|prior|preceding)\s+year\b|\b(?:the\s+)?year\s+before\b"
)
_STEPS = ((_YEAR_BACK, "year_before"), (_SHIFT_BACK, "previous_period"))
_SHIFT_ON = re.compile(
    r"\b(?:the\s+)?(?:next|following|subsequent)\s+(?:day|week|month|quarter|year|period)\b"
    r"|\b(?:the\s+)?(?:day|week|month|quarter|year|period)\s+after\b|\bafter\s+that\b"
)
"""In a follow-up, a step on from the previous period ("and the following day?")."""
_SAME_PERIOD = re.compile(
    r"\b(?:(?:in|for|over|during|across|on)\s+)?(?:the\s+)?same\s+"
    r"(?:period|time\s*frame|time|months?|years?|quarters?|weeks?|days?|dates?|dates?\s+range)\b"
)
"""'How did France do in the same period?': the period of the answer before (a step back by a year,
'the same month last year', is read first)."""


def _about(
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

_RANGE = re.compile(r"\b(?:from|between)\b(.+?)\b(?:to|and|until|through)\b(.+)")
_GROUP_CUES = (
    r"(?:which|what|top|bottom|best|worst|biggest|largest|smallest|leading|highest|lowest|most|least|by|per"
    r"|each|every|rank|ranked|strongest|weakest|busiest|quietest|who)"
)


def _left_out_before(before: str, free: str, vocabulary: Vocabulary) -> re.Match[str] | None:
    """The cue that leaves a quoted name out, at the end of the text before it ("except for")."""
    cues = vocabulary.cues.get(f"exclude_{free}", [])
    if f"exclude_{free}" not in vocabulary.parameters or not cues:
        return None
    return re.search(rf"(?<![\w-])(?:{either(cues)})\s+(?:for\s+)?(?:the\s+)?$", before)


_JOINED = re.compile(r"[\s']*(?:(?:and|or|&)[\s']+)?")
"""What joins two names of one list: "'A' and 'B'", "'A', 'B'" (the comma is a space by then, a
closing quote after an "s" is still there: "'… jars' and")."""


def _quoted_names(
    text: str,
    quoted: list[str],
    spans: list[tuple[int, int] | None],
    marks: Marks,
    reading: Reading,
    vocabulary: Vocabulary,
) -> None:
    """Quoted names are the free-text parameter's: "'A' and 'B'" both, looked up together; after an
    exclusion cue ("revenue except for 'A' and 'B'") left out, up to a name after other words. A
    parameter that takes one name cannot take several ("of 'A', 'B' and 'C'" is not 'A' alone)."""
    free = vocabulary.free_text
    assert free is not None
    named: dict[str, list[str]] = {}
    key, end = free, 0
    for phrase, span in zip(quoted, spans, strict=True):
        start = span[0] if span else end
        if cue := _left_out_before(text[:start], free, vocabulary):
            key = f"exclude_{free}"
            marks.take(*cue.span())
        elif end == 0 or not _JOINED.fullmatch(text[end:start]):
            key = free
        named.setdefault(key, []).append(phrase.strip())
        end = span[1] if span else end
    if not vocabulary.free_list and len(quoted) > 1:
        reading.names = [q.strip() for q in quoted]
    for key, names in named.items():
        reading.arguments[key] = vocabulary.free_value(names)


def read(
    question: str,
    vocabulary: Vocabulary,
    previous: dict[str, Any] | None = None,
    placed: str | None = None,
    listed: Sequence[tuple[str, str]] = (),
    priors: Sequence[tuple[dict[str, Any], str | None]] = (),
) -> Reading:
    """The reading of ``question``; ``previous`` is the last query's arguments (a follow-up's base),
    ``placed`` its period as the tool placed it on the data's calendar (``2025`` for "latest year")
    and ``listed`` the rows it answered with (``[("customer", "22353")]``): what "they" in "how much
    have they spent?" or "the first one" is. ``priors`` are the queries before it, with their placed
    period: "which was higher?" after two answers puts the two side by side."""
    original = question
    text = normalize(question)
    text = " ".join(TYPO_PRONE.get(w, w) for w in text.split(" "))
    text, corrected = spelled(text, vocabulary, original)
    marks = Marks(text)
    reading = Reading()
    args = reading.arguments
    quoted = [double or single for double, single in QUOTED.findall(original)]
    spans = [marks.find(normalize(phrase)) for phrase in quoted]
    for span in (s for found in spans for s in found):
        marks.take(*span)
    if quoted and vocabulary.free_text:
        _quoted_names(
            text, quoted, [found[0] if found else None for found in spans], marks, reading, vocabulary
        )
    # "the month before": a step back from this question's period, or from the previous reading's
    starts = {p.span[0] for p in find_periods(text)}
    steps = [  # "the week before Christmas 2011" is a period of its own (``_LEAD``), not a step back
        (f, back)
        for pattern, back in _STEPS
        for f in pattern.finditer(text)
        if f.end() + len(re.match(r"\s*(?:the\s+)?", text[f.end() :])[0]) not in starts  # type: ignore[index]
    ]
    others = [
        p
        for p in find_periods(text)
        if not any(p.span[0] < f.end() and f.start() < p.span[1] for f, _ in steps)
    ]
    if previous is None and not others:
        steps = []  # "revenue in the previous year": a period of its own, nothing to step back from
    for found, _ in steps:
        marks.take(*found.span())
    if previous is not None and isinstance(previous.get("period"), str) and not others:
        for found in (*_SHIFT_ON.finditer(text), *_WHOLE_OF.finditer(text)):
            marks.take(*found.span())
    for found in _ALL_TIME.finditer(text):  # "over the whole period": all time, which is no period
        marks.take(*found.span())
    same = [m.span() for m in _SAME_PERIOD.finditer(text) if marks.free(*m.span())]
    for span in same:
        marks.take(*span)
    unplaced = _read_periods(
        text, marks, args, vocabulary, stepped=bool(steps), in_names=in_capitals(original)
    )
    if steps and "period" in args and "compare" not in args:  # "April 2025 vs the same month last year"
        args["compare"] = steps[0][1]
    _read_top_left_out(text, marks, args, vocabulary)
    _read_left_out(marks, args, vocabulary)
    _read_entities(marks, args, vocabulary, original)
    _read_ids(text, marks, args, vocabulary)
    _bare_id(text, marks, args, vocabulary)
    _among(text, marks, args, vocabulary)
    _of_the_kind(text, marks, args, vocabulary)
    choices = _read_choices(text, marks, vocabulary, reading)
    counted = f"{choices.get('group_by')}s"
    if "among_top" in args and "measure" not in choices and counted in vocabulary.choices("measure").values():
        choices["measure"] = counted  # "which of the top 3 countries has the most customers?"
    args.update({k: v for k, v in choices.items() if k not in args})  # two periods say which comparison
    over = re.search(r"\b(day|week|month|quarter|year) over \1\b|\b(yoy|mom|qoq)\b", text)
    if over and "period" not in args:  # "quarter over quarter": the latest quarter against the one before
        unit = over[1] or {"yoy": "year", "mom": "month", "qoq": "quarter"}[over[2]]
        args["period"] = "last 7 days" if unit == "week" else f"latest {unit}"
    side_by_side(text, args, vocabulary, original)
    _read_flags(marks, args, vocabulary)
    if unplaced is not None and args.get("share") and "share_of" in vocabulary.parameters:
        _share_of(args, unplaced, marks)
    whole = _WHOLE_OF.search(text)
    if (
        whole
        and args.get("share")
        and "share_of" in vocabulary.parameters
        and "share_of" not in args
        and re.match(r"\d{4}", str(args.get("period", "")))
        and marks.free(*whole.span())
        and _enclosing(args["period"], whole[1]) != args["period"]
    ):  # "Q4 2025 as a percentage of the full year": of the year it lies in
        args["share_of"] = _enclosing(args["period"], whole[1])
        marks.take(*whole.span())
    if (
        unplaced is not None
        and "share_of" not in args
        and "compare_with" in vocabulary.parameters
        and (_COMPARING.search(text) or _BETWEEN_NAMES.search(text))
    ):  # "orders in May 2025 compared to September 2025": any two periods
        args["compare_with"] = unplaced.period
        args.pop("compare", None)
        marks.take(*unplaced.span)
    _share_within(text, marks, args, vocabulary)
    _read_limit(text, marks, args, vocabulary)
    _read_rank(text, marks, args, vocabulary)
    if (
        args.get("group_by") in ("month", "day", "year", "quarter", "weekday")
        and "limit" not in args
        and re.search(
            r"\b(?:rank|ranked|ranking|sort|sorted|(?:highest|lowest|biggest|best|worst) first)\b", text
        )
    ):
        args["limit"] = 20  # "rank the months of 2024 by revenue": by value, not in time order
    if (
        args.get("share")
        and (args.get("limit") or 0) >= 2
        and "together" in vocabulary.parameters
        and re.search(
            r"\b(?:from|of|do|does|did|for|by)\s+(?:the|our|my)\s+(?:\w+\s+)?(?:top|biggest|largest|best)\b",
            text,
        )
        and not _EACH.search(text)
    ):
        args["together"] = True  # "what share of revenue comes from our top 10 customers?": one figure
    reading.asks = any(k in args for k in ("measure", "group_by", "share", "compare", "rank_by")) or any(
        args.get(flag) is True for flag in vocabulary.cues if not flag.startswith("exclude_")
    )  # "compare the UK and the rest of the world": a flag asks for its figures
    if not reading.asks and re.match(r"\s*how much\b", text) and set(args) - {"order"}:
        reading.asks = True  # "how much did the states buy from us in 2025?": the tool's own measure
    # "excluding them, what's total revenue?" after the top 3 customers, "without the first one"
    left_one_out = (
        previous is not None and bool(listed) and _excluding_listed(marks, args, listed, vocabulary)
    )
    that_row = left_one_out or (
        previous is not None and bool(listed) and _take_that_row(text, marks, listed, vocabulary)
    )
    if not left_one_out and previous is not None and (one := _the_one_id(previous, vocabulary)):
        # "without them" of the customer asked about: the pronoun is theirs, not the last row's
        that_row = left_one_out = _excluding_listed(marks, args, one, vocabulary)
    if previous is not None and not listed and (named := _named_before(previous, vocabulary)):
        that_row = _take_that_row(text, marks, named, vocabulary)  # "that country" of one about Germany
    if previous is not None and isinstance(previous.get("period"), str):
        for found in _THAT_PERIOD.finditer(text):  # "how many customers did it have that month?"
            if marks.free(*found.span()):
                marks.take(*found.span())
    _the_period_unit(marks, args, vocabulary)
    _leftovers(marks, reading, vocabulary, original)
    side_by_side(text, args, vocabulary, original)  # the names _leftovers found
    _dangling_cues(marks, reading, vocabulary)
    _beside_the_rest(text, args, reading, vocabulary)
    stepping_on = previous is not None and isinstance(previous.get("period"), str) and _SHIFT_ON.search(text)
    ahead = [s for s in vocabulary.not_in_data if s.startswith("forecast")]
    if _FUTURE.search(text) and not stepping_on and ahead:
        reading.not_in_data = ahead  # "revenue next month": no data holds days that have not come
    reading.not_understood = [corrected.get(w, w) for w in reading.not_understood]
    # "And in France?", "how many orders was that?", or nothing of its own ("Which one?"); a question
    # that names its own period or place without referring back is a new one
    shifted = "period" not in args and any(p.search(text) for p in (_SHIFT_BACK, _YEAR_BACK, _SHIFT_ON))
    if previous is not None and args.get("group_by") not in (None, previous.get("group_by")):
        shifted = False  # "which month grew most on a year earlier?" after days: a ranking of its own
    # "which one comes second?" has no subject of its own; "how many employees?" has one, not understood
    own = set(args) - {"rank", "order", "limit", "rank_by", "share"} or reading.not_understood
    if own == {"group_by"} and _BREAKDOWN_ONLY.match(text):
        own = set()  # "by country", "split by month": the previous question, broken down
    # "Only for 2025", "In France?": a filter alone narrows the question before
    bare = (
        not reading.asks
        and not reading.not_understood
        and (len(text.split()) <= 3 or bool(_NARROWING.match(text)))
    )
    scoped = any(k in args for k in ("period", "customer_id", vocabulary.free_text, *vocabulary.entities))
    referring = (
        bool(same)
        or that_row  # "what share of all orders is that country?"
        or _refers_back(text, marks, args)
        or (bool(_ENDS_REFERRING.search(text)) and not scoped)
        or (bool(_ELLIPTIC.search(text)) and "measure" not in args)
        or (
            previous is not None
            and isinstance(previous.get("period"), str)
            # "that month"; not "the same quarter a year before", a comparison the question states
            and any(marks.free(*m.span()) for m in _THAT_PERIOD.finditer(text))
        )
    )
    # "Which month was weakest?" after the months of 2011: a ranking of the rows just shown
    narrowing = (
        previous is not None
        and args.get("group_by") == previous.get("group_by")
        and set(args) <= {"group_by", "order", "limit", "rank"}
        and not reading.not_understood
    )
    reading.follow_up = previous is not None and (referring or not own or shifted or bare or narrowing)
    if _NEW_QUESTION.search(text):
        reading.follow_up = False  # "ok, different question: what was the best month overall?"
    if steps and not reading.follow_up and "period" not in args:
        args["compare"] = steps[0][1]  # "grew most on the same month a year earlier": the step says which
    if (
        previous is not None
        and "group_by" not in previous  # "which is higher?" of rows shown: one of them (below)
        and _OF_TWO.search(text)
        and not set(args) - {"order", "limit"}
    ):
        # "which was higher?" after two answers: the two side by side, or said that they cannot be
        reading.follow_up = reading.asks = True
        pair = _pair(previous, placed, priors[0], vocabulary) if priors else None
        reading.arguments, reading.not_understood = pair or {}, []  # "two" is the pair's word
        reading.unpaired = pair is None
        return reading
    if (
        previous is not None
        and "group_by" not in previous
        and (some := _OF_SOME.search(text))
        and not set(args) - {"order", "limit", "measure"}
    ):
        # "which of those three was lowest?" after three answers about one name each: the names ranked
        count = int(NUMBER_WORDS.get(some[1] or some[2], some[1] or some[2]))
        reading.follow_up = reading.asks = True
        names = _names_of_answers([previous, *(p for p, _ in priors[: count - 1])], vocabulary)
        if names is None or len(names[1]) != count:
            reading.arguments, reading.not_understood, reading.unpaired = {}, [], True
            return reading
        parameter, listed_names = names
        reading.arguments = (
            previous
            | {
                parameter: listed_names,
                "group_by": singular(parameter),
                "order": args.get("order", "highest"),
                "limit": 1,
            }
            | ({"measure": args["measure"]} if "measure" in args else {})
        )
        reading.not_understood = []
        return reading
    if (
        reading.follow_up
        and previous is not None
        and priors
        and args.get("share")
        and any(k.startswith("exclude_") and k.endswith("_ids") for k in previous)
        and re.search(r"\b(?:theirs|their|they|them|those)\b", text)
    ):
        previous = priors[0][0]  # "and what share was theirs?" after "excluding them": the ones left out
    if reading.follow_up and previous is not None:
        _counted_of_those(text, previous, args, vocabulary)
        _by_measure(text, previous, args, vocabulary)
        reading.arguments = _merge(previous, args, text, placed, qualifying=reading.qualifying)
        _share_of_enclosing(previous, args, reading.arguments, placed, vocabulary)
        _beside(previous, args, reading.arguments, text, vocabulary)
        row = None if left_one_out else _referred_row(text, listed, vocabulary)
        if row is not None and "group_by" not in args:
            reading.arguments = _about(reading.arguments, row, vocabulary, args)
        elif row is not None and args["group_by"] != row[0] and len(listed) == 1:
            # "where are they based?" of the one customer named: that customer, by country
            about = _about(reading.arguments, row, vocabulary, args)
            if about is not reading.arguments:
                reading.arguments = about | {k: args[k] for k in ("group_by", "order", "limit") if k in args}
        elif (
            "group_by" in reading.arguments
            and "limit" not in args
            and "rank" not in args
            and not left_one_out
        ):
            _read_limit(text, Marks(text), reading.arguments, vocabulary)
            if re.search(
                r"\b(?:which|what|who)\s+(?:one\s+|of\s+(?:those|these|them|the\s+\w+)\s+)?"
                r"(?:was|is|had|has|did|came|grew|rose|fell|declined|dropped|sold|sells|made)\b",
                text,
            ):
                reading.arguments["limit"] = 1  # "which was highest?": one of the rows before
                if "order" not in args and (direction := _COMPARATIVE.search(text)):
                    reading.arguments["order"] = "lowest" if direction[1] else "highest"
                listed_rows = previous.get("limit") or 0
                if (
                    "among_top" in vocabulary.parameters
                    and "among_top" not in previous
                    and listed_rows >= 2
                    and previous.get("group_by") == reading.arguments.get("group_by")
                    and previous.get("rank") is None
                ):  # "which of those sold the most units?": among the rows listed, by what ranked them
                    reading.arguments["among_top"] = listed_rows
                    reading.arguments["among_by"] = previous.get("measure", "revenue")
        _per_previous(text, previous, reading.arguments, vocabulary)
        merged = reading.arguments
        if merged.get("group_by") != previous.get("group_by") and "among_top" not in args:
            merged.pop("among_top", None)  # the rows it ranked among are of another breakdown
            merged.pop("among_by", None)
        if (
            merged.get("share")
            and "share" not in previous
            and (previous.get("limit") or 0) >= 2
            and re.search(r"\b(?:theirs|their|they|them|those|these)\b", text)
            and "together" in vocabulary.parameters
        ):
            merged["together"] = True  # "and what share was theirs?" of the top 3 just listed
        if (
            "group_by" not in merged
            and vocabulary.free_dimension
            and vocabulary.free_names(previous)
            and re.search(r"\bwhich\s+(?:one|of\s+(?:them|those|these))\b", text)
        ):  # "which one sells best?" of the products matching
            merged.update(group_by=vocabulary.free_dimension, limit=1)
        if "group_by" in args and merged.get("measure") == "overview" and "measure" not in args:
            del merged[
                "measure"
            ]  # "which countries buy it most?" after "tell me about X": ranked by a figure
        if _EACH.search(text):
            reading.arguments.pop("together", None)  # "and their shares?": row by row again
        _whole_of(text, marks, args, reading, placed, shares_of="share_of" in vocabulary.parameters)
        reading.asks = True
    final = reading.arguments
    if "rank_by" in final:  # "which products grew most last month?": against the month before
        final.setdefault("compare", "previous_period")
        if "group_by" not in final:
            del final["rank_by"]  # "did revenue grow?" is a comparison, not a ranking
    return reading


_OF_TWO = re.compile(
    r"\bwhich\s+(?:of\s+(?:the|those|these)\s+(?:two|2)\s+|one\s+)?(?:was|is|were|had|did|came out)\s+"
    r"(?:\w+\s+)?(?:higher|bigger|larger|greater|more|better|stronger|lower|smaller|fewer|less|worse|weaker)\b"
    r"|\bwhich\s+of\s+(?:the|those|these)\s+(?:two|2)\b"
    r"|\b(?:the\s+)?difference\s+between\s+(?:them|those|these|the\s+two)\b"
    r"|\bcompare\s+(?:them|those|these|the\s+two)\b"
)
"""A question about the last two answers together ("which was higher?", "compare the two")."""


def _pair(
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


_OF_SOME = re.compile(
    r"\b(?:which|what|who)\s+of\s+(?:the|those|these|them)\s+(three|four|five|[345])\b"
    r"|\bof\s+(?:the|those|these)\s+(three|four|five|[345])\s*,?\s+which\b"
)
"""A question about the last few answers together ("which of those three was lowest?")."""


def _names_of_answers(
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


_FUTURE = re.compile(
    r"\b(?:next|coming|upcoming)\s+(?:\d+\s+|few\s+)?(?:day|week|month|quarter|year|season)s?\b"
    r"|\b(?:will|going to)\s+(?:\w+\s+)?(?:be|sell|make|grow|rise|drop|fall)\b"
)
"""A question about days to come: the data ends on its last day."""

_COMPARING = re.compile(r"compar|\bvs\b|versus|\bagainst\b|\bchange|growth|\bgr[eo]w|\bdiffer")
_COMPARATIVE = re.compile(
    r"\b(?:(lower|smaller|fewer|less|worse|weaker)|higher|bigger|larger|greater|more|better|stronger)\b"
)
"""'Which is higher?' of two rows side by side: the direction of a one-row ranking."""


def _beside(
    previous: dict[str, Any],
    new: dict[str, Any],
    merged: dict[str, Any],
    text: str,
    vocabulary: Vocabulary,
) -> None:
    """ "How does that compare to France?": the one name the answer before was about, beside the one
    the follow-up names, as a breakdown of the two (a comparison of names, not of periods)."""
    if "group_by" in previous or not (_COMPARING.search(text) or _BETWEEN_NAMES.search(text)):
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


_WHOLE_OF = re.compile(
    r"\b(?:for|in|over|of)\s+(?:the|that)\s+(?:whole\s+|full\s+|entire\s+)?(year|quarter|month)\b"
)
_TOTAL = re.compile(r"\b(?:total|overall|altogether|in all|combined)\b")


def _enclosing(period: str, unit: str) -> str:
    """The year, quarter or month ``period`` (``YYYY…``) lies in; itself if it is no smaller."""
    months = {"year": 4, "month": 7}
    if unit in months:
        return period[: months[unit]] if len(period) >= months[unit] else period
    if found := re.match(r"(\d{4})-(?:Q([1-4])|(\d{2}))", period):
        return f"{found[1]}-Q{found[2] or (int(found[3]) - 1) // 3 + 1}"
    return period


def _whole_of(
    text: str, marks: Marks, new: dict[str, Any], reading: Reading, placed: str | None, *, shares_of: bool
) -> None:
    """ "What was the total for the year?" after a month by month answer: the figure of the whole
    year (quarter, month) the previous period lies in, without the breakdown. "What share of the
    year is that?" (``shares_of``: the tool takes a larger period): the period's share of it."""
    merged = reading.arguments
    period = str(merged.get("period") or placed or "")
    unit = _WHOLE_OF.search(text)
    if unit and "period" not in new and re.match(r"\d{4}", period):
        whole = _enclosing(period, unit[1])
        if new.get("share") and shares_of and whole != period:
            merged["share_of"] = whole
        else:
            merged["period"] = whole
    if (unit or _TOTAL.search(text)) and "group_by" in merged and "group_by" not in new:
        for key in ("group_by", "order", "limit", "rank", "rank_by"):
            merged.pop(key, None)


def _by_measure(text: str, previous: dict[str, Any], new: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def _per_previous(
    text: str, previous: dict[str, Any], merged: dict[str, Any], vocabulary: Vocabulary
) -> None:
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


_EACH = re.compile(r"\b(?:each|their|its|individual|individually|respective|respectively|per)\b")
"""Words that ask for the rows one by one, not added up."""


def _among(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Of our ten biggest countries by revenue, which one placed the fewest orders?": a ranking
    among the top N by a measure of their own (``among_top``, ``among_by``), not two at once."""
    if "among_top" not in vocabulary.parameters:
        return
    groups, measures = vocabulary.choices("group_by"), vocabulary.choices("measure")
    highs = [t for t, v in vocabulary.choices("order").items() if v == "highest" and " " not in t]
    nouns = [t for t in groups if " " not in t and t.endswith("s")]
    if not (highs and nouns):
        return
    high, noun, by = either(highs), either(nouns), either(measures)
    count = rf"(\d{{1,2}}|{'|'.join(NUMBER_WORDS)})"
    single = either(t for t in measures if " " not in t)
    found = re.search(  # "our ten best selling products": the measure's word between ranks them by it
        rf"\b(?:of|among|amongst|out of|from|within)\s+(?:our|the|these|those)?\s*"
        rf"(?:(?:{high})\s+{count}|{count}\s+(?:{high}))(?:\s+({single}))?\s+({noun})\b"
        rf"(?:\s+(?:by|in)\s+({by})\b)?",
        text,
    )
    rest = text[found.end() :] if found else ""
    ranks = [t for t in vocabulary.choices("order") if " " not in t]
    if (
        found is None
        or not marks.free(*found.span())
        or not re.search(rf"\b(?:which|who|what|{'|'.join(map(re.escape, ranks))})\b", rest)
    ):
        return  # "revenue from our top 10 customers": the top 10 themselves, no ranking among them
    number = found[1] or found[2]
    top = int(number) if number.isdigit() else NUMBER_WORDS[number]
    if not 2 <= top <= 20:
        return
    marks.take(*found.span())
    args["group_by"], args["among_top"] = groups[found[4]], top
    if found[5] or found[3]:
        args["among_by"] = measures[found[5] or found[3]]
    if (
        re.search(r"^\W*(?:which|what|who)\b(?!\s+(?:ones|two|three|four|five|\d))", text[found.end() :])
        or re.search(r"\b(?:which|what|who)\s+one\b", text[found.end() :])  # "…in 2025, which one…"
        or text.startswith(("which ", "what ", "who "))
    ):
        args["limit"] = 1  # "…, which one placed the fewest orders?": one of them


def _of_the_kind(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Of the countries that ordered in April 2025, which placed the fewest orders?": the kind
    named before "which" is what is ranked, one of them."""
    if "group_by" in args:
        return
    groups = vocabulary.choices("group_by")
    nouns = either(t for t in groups if " " not in t and t.endswith("s"))
    found = (
        re.search(
            rf"\b(?:of|among|amongst|out of)\s+(?:the|our|all|all the)\s+({nouns})"
            rf"\s+(?:that|which|who|with)\b"
            rf".*?\b(?:which|what|who)\b(?!\s+(?:ones|two|three|four|five|\d))",
            text,
        )
        if nouns
        else None
    )
    if found is None or not marks.free(*found.span(1)):
        return
    marks.take(*found.span(1))
    args["group_by"], args["limit"] = groups[found[1]], 1


def _that_nouns(listed: Sequence[tuple[str, str]], vocabulary: Vocabulary) -> str:
    """The nouns of the listed rows' dimension ("month", "customer"), as a pattern."""
    dimension = listed[0][0]
    nouns = [t for t, v in vocabulary.choices("group_by").items() if v == dimension and " " not in t]
    return "|".join(re.escape(n) for n in nouns or [dimension])


def _named_before(previous: dict[str, Any], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """The one thing per dimension an answer that was no breakdown was about (Germany, a product)."""
    named = [
        (singular(parameter), previous[parameter][0])
        for parameter in vocabulary.entities
        if isinstance(previous.get(parameter), list) and len(previous[parameter]) == 1
    ]
    if vocabulary.free_dimension and len(names := vocabulary.free_names(previous)) == 1:
        named.append((vocabulary.free_dimension, names[0]))
    return named[:1] if len(named) == 1 else []


def _excluding_listed(
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


def _the_one_id(previous: dict[str, Any], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """The one id the previous question was about, as a row ("customer 21094"): "without them"."""
    return [
        (kind, str(previous[p])) for kind, p in vocabulary.ids.items() if p == f"{kind}_id" and p in previous
    ]


_PRONOUN_AFTER_NAME = re.compile(r"\b(?:they|them|their|theirs|its|his|her|hers)\b")


def _refers_back(text: str, marks: Marks, args: dict[str, Any]) -> bool:
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


def _take_that_row(
    text: str, marks: Marks, listed: Sequence[tuple[str, str]], vocabulary: Vocabulary
) -> bool:
    """ "That month", "this customer": the one row the answer before named, not a breakdown."""
    taken = False
    for found in re.finditer(rf"\b(?:that|this|the same)\s+(?:{_that_nouns(listed, vocabulary)})\b", text):
        if marks.free(*found.span()):
            marks.take(*found.span())
            taken = True
    return taken


_ORDINAL_ONE = re.compile(r"\bthe\s+(first|second|third|fourth|fifth|last|top|bottom)\s+one\b")


def _referred_row(
    text: str, listed: Sequence[tuple[str, str]], vocabulary: Vocabulary
) -> tuple[str, str] | None:
    """The row of the previous answer a follow-up points at: "they" or "that month" when it named
    one, "the first one" / "the last one" of a list."""
    if not listed:
        return None
    that = re.search(rf"\b(?:that|this)\s+(?:{_that_nouns(listed, vocabulary)})\b", text)
    if that and len(listed) == 1:
        return listed[0]
    if len(listed) == 1 and re.search(r"\b(?:break|split|show)\s+(?:that|this)\b", text):
        return listed[0]  # "break that down by month" after one product: that product's months
    if found := _ORDINAL_ONE.search(text):
        place = {"first": 0, "top": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4}.get(found[1], -1)
        return listed[place] if -len(listed) <= place < len(listed) else None
    return listed[0] if len(listed) == 1 and _PRONOUN.search(text) else None


def _read_periods(
    text: str,
    marks: Marks,
    args: dict[str, Any],
    vocabulary: Vocabulary,
    *,
    stepped: bool = False,
    in_names: frozenset[str] = frozenset(),
) -> Found | None:
    """The period, or a range or a comparison of two; a second period it could not place is returned
    (a share may be of it: "what % of 2011's revenue came in October?"). ``stepped``: the question
    steps back from its period ("… vs the period before"), so two periods are its range's ends."""
    found = [  # not a step back already read, nor the calendar word of a name ("IVORY CHRISTMAS BAG")
        f
        for f in find_periods(text)
        if marks.free(*f.span) and not set(text[f.span[0] : f.span[1]].split()) <= in_names
    ]
    for item in found:
        marks.take(*item.span)
    if not found:
        return None
    years = [f.period[:4] for f in found if f.period[:4].isdigit()]
    if years:  # "from October to November 2025": the month without a year takes the year written
        found = [Found(with_year(f.period, years[0]), f.span) for f in found]
    for half in [f for f in found if f.period.startswith("--H")]:  # no year to place "the second half" in
        found.remove(half)
        marks.used[half.span[0] : half.span[1]] = [False] * (half.span[1] - half.span[0])
    if not found:
        return None
    since = re.search(
        r"\b(?:since|from|starting)\s+(?:the\s+)?(?:start\s+of\s+|beginning\s+of\s+)?$",
        text[: found[0].span[0]],
    )
    comparing = any(
        re.search(rf"\b{re.escape(t)}\b", text)
        for t in (*vocabulary.choices("compare"), *vocabulary.choices("rank_by"))
    )
    if since and comparing:  # "has revenue grown since last year?": compared with it
        marks.take(since.start(), found[0].span[0])
    elif len(found) == 1 and since and (bounds := day_bounds(found[0].period)):
        if since[0].startswith("from") and not re.search(r"\bon(?:wards)?\b", text[found[0].span[1] :]):
            pass  # "revenue from France in 2025" is no "from" of time
        else:  # "since March 2025": to the data's last day
            args["period"] = f"{bounds[0]}.."
            marks.take(since.start(), found[0].span[0])
            for onwards in re.finditer(r"\bon(?:wards)?\b", text[found[0].span[1] :]):
                marks.take(found[0].span[1] + onwards.start(), found[0].span[1] + onwards.end())
            return None
    lead = _LEAD.search(text[: found[0].span[0]])
    if len(found) == 1 and lead and (bounds := day_bounds(found[0].period)):
        length = timedelta(days=_LEAD_DAYS[lead[1]] - 1)
        if lead[2] in ("after", "following"):
            opens = date.fromisoformat(bounds[1]) + timedelta(days=1)
            closes = opens + length
        else:
            closes = date.fromisoformat(bounds[0]) - timedelta(days=1)
            opens = closes - length
        args["period"] = f"{opens}..{closes}" if opens < closes else str(opens)
        marks.take(lead.start(), found[0].span[0])
        return None
    until = re.search(
        r"\b(before|prior to|until|till|up to|through)\s+(?:the\s+)?(?:end\s+of\s+)?$",
        text[: found[0].span[0]],
    )
    if len(found) == 1 and until and (bounds := day_bounds(found[0].period)):
        last = (
            date.fromisoformat(bounds[0]) - timedelta(days=1)
            if until[1] in ("before", "prior to")
            else bounds[1]
        )
        args["period"] = f"..{last}"  # "revenue before 2025": from the data's start
        marks.take(until.start(), found[0].span[0])
        return None
    if "exclude_period" in vocabulary.parameters and _period_left_out(text, marks, found, args, vocabulary):
        return None
    first = found[0].period
    if (
        len(found) >= 2
        and (stepped or not comparing)  # "how did orders change from October to November?": compared
        and (ranged := _RANGE.search(text))
        and ranged.start(1) <= found[0].span[0]
    ):
        start, end = day_bounds(found[0].period), day_bounds(found[1].period)
        if start and end and start[0] <= end[1]:  # "between July and June" compares the two
            args["period"] = f"{start[0]}..{end[1]}"
            for span in marks.find(ranged[0][: ranged.start(1) - ranged.start(0)].strip()):
                marks.take(*span)
            return None
    args["period"] = first
    if len(found) >= 2:
        second = found[1].period
        if second == before(first) or (second == first and first.startswith("latest ")):
            args["compare"] = "previous_period"  # "this quarter vs last quarter" reads both as the latest
        elif second == year_before(first):
            args["compare"] = "year_before"
        elif before(second) == first or year_before(second) == first:
            args["period"] = second
            args["compare"] = "previous_period" if before(second) == first else "year_before"
        else:
            marks.used = [
                u and not (found[1].span[0] <= i < found[1].span[1]) for i, u in enumerate(marks.used)
            ]
            return found[1]
    return None


def _period_left_out(
    text: str, marks: Marks, found: list[Found], args: dict[str, Any], vocabulary: Vocabulary
) -> bool:
    """ "Revenue in 2011 excluding December": a period after an exclusion cue is left out of the
    other one, which it lies in (or of all time, when it is the only one)."""
    for item in found[:2]:
        cue = re.search(
            rf"(?<![\w-])(?:{vocabulary.leaving()})\s+(?:the\s+)?(?:month\s+of\s+)?$", text[: item.span[0]]
        )
        if cue is None:
            continue
        others = [f for f in found[:2] if f is not item]
        if others:
            inner, outer = day_bounds(item.period), day_bounds(others[0].period)
            if not (inner and outer and outer[0] <= inner[0] and inner[1] <= outer[1] and inner != outer):
                return False
            args["period"] = others[0].period
        args["exclude_period"] = item.period
        marks.take(cue.start(), item.span[1])
        return True
    return False


def _read_top_left_out(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Average order value without our biggest customer", "revenue excluding the top 3
    countries": the biggest of a kind left out (``exclude_top``), not a ranking of that kind."""
    if "exclude_top" not in vocabulary.parameters:
        return
    # the grouping's words for each kind it leaves out ("client", "customers")
    of = vocabulary.enums.get("exclude_top_of", [])
    kinds = {t: v for t, v in vocabulary.choices("group_by").items() if v in of}
    if not kinds:
        return
    biggest = either(t for t, v in vocabulary.choices("order").items() if v == "highest" and " " not in t)
    count = rf"(\d{{1,2}}|{'|'.join(NUMBER_WORDS)})"
    found = re.search(
        rf"(?<![\w-])(?:{vocabulary.leaving()})\s+(?:the\s+|our\s+|its\s+|their\s+)?(?:{count}\s+)?(?:{biggest})\s+"
        rf"(?:{count}\s+)?({either(kinds)})\b",
        text,
    )
    if found is None or not marks.free(*found.span()):
        return
    number = found[1] or found[2]
    args["exclude_top"] = 1 if number is None else int(number) if number.isdigit() else NUMBER_WORDS[number]
    args["exclude_top_of"] = kinds[found[3]]
    marks.take(*found.span())


def _in_measure_words(
    marks: Marks, start: int, end: int, vocabulary: Vocabulary, original: str, *, now: bool = False
) -> bool:
    """ "How many new customers did we win?": a name inside a measure's words ("new customers") is
    part of them, unless it is written as a name, capitalised inside the sentence ("New customers" as
    the question's first words is the measure; "our New customers" the segment), or the question
    asks how things stand now, with no period (``now``: "how many new customers do we have?" counts
    the New segment: over all time every customer was new once)."""
    if now:
        return False
    name = marks.text[start:end]
    written = [m.start() for m in re.finditer(rf"\b{re.escape(name)}\b", original, re.IGNORECASE)]
    if any(at > 0 and original[at].isupper() for at in written):
        return False
    return any(
        s <= start and end <= s + len(term) and len(term) > end - start
        for term in vocabulary.choices("measure")
        if " " in term
        for s, _ in marks.find(term)
    )


_LEAD = re.compile(
    r"\b(?:(?:in|during|over|for)\s+)?(?:the\s+)?(day|week|fortnight|month)\s+"
    r"(before|prior to|leading up to|ahead of|after|following)\s+(?:the\s+)?$"
)
"""'The week before Christmas 2011': the days of that length next to the period named."""
_LEAD_DAYS = {"day": 1, "week": 7, "fortnight": 14, "month": 30}

_NOW = re.compile(
    r"\b(?:do|does)\s+(?:we|i)\s+(?:currently\s+)?have\b|\bcurrently\b|\bright now\b|\bat the moment\b"
)
"""A question about how things stand, not about a period ("how many … do we have?")."""


def _read_entities(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary, original: str) -> None:
    now = "period" not in args and bool(_NOW.search(marks.text))
    for parameter, names in vocabulary.entities.items():
        excluded = vocabulary.excluded_of.get(parameter)
        cues = vocabulary.cues.get(excluded or "", [])
        found: list[tuple[int, int, str]] = []
        for name in sorted(names, key=len, reverse=True):
            if name in COMMON and not re.search(rf"\b{re.escape(name.upper())}\b", original):
                continue  # "us" is a country only when written "US"
            for start, end in marks.find(name):
                if _longer_name(name, original) or _in_measure_words(
                    marks, start, end, vocabulary, original, now=now
                ):
                    continue  # "New Zealand" is no "New" segment, nor are "new customers"
                marks.take(start, end)
                found.append((start, end, names[name]))
        excluding_until: int | None = None  # "excluding Germany and France": the list goes on
        for start, end, stored in sorted(found):
            cue = _cue_before(marks, start, cues)
            after = re.match(rf"\s+(?:{'|'.join(EXCLUDED_AFTER)})\b", marks.text[end:]) if excluded else None
            if after:  # "total sales, 2025, uk excluded"
                marks.take(end, end + after.end())
            listed = excluding_until is not None and re.fullmatch(
                r"\s*(?:,|and|or|nor|&)?\s*(?:the\s+)?", marks.text[excluding_until:start]
            )
            target = excluded if excluded and (cue is not None or listed or after) else parameter
            if cue is not None:
                marks.take(cue, start)
            excluding_until = end if target == excluded else None
            # "the At Risk segment": the noun of the list's own name goes with the entity; the noun of
            # what it describes ("UK customers", "non-UK buyers") may be the measure, never a breakdown
            if noun := re.match(rf"\s+{re.escape(parameter.rstrip('s'))}s?\b", marks.text[end:]):
                marks.take(end, end + noun.end())
            elif (
                (noun := re.match(r"\s+([a-z]+)\b", marks.text[end:]))
                and _describes(noun[1], vocabulary)
                and not re.search(
                    rf"{_GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", marks.text[:start].removesuffix(" by ")
                )
            ):  # "top 5 UK customers" ranks the customers; "how many UK customers" and "spent by UK
                # customers" count them
                marks.qualifiers.add(end + noun.start(1))
            if stored not in args.setdefault(target, []):
                args[target].append(stored)
            marks.named.setdefault(target, start)


def _ranks_before(before: str) -> bool:
    """A ranking's word close before a noun ("top 5 customers", "which of our customers"), not a
    question's opening ("what share came from customers…")."""
    if re.search(r"\b(?:which|what)\W+(?:\w+\W+){0,3}$", before):
        return bool(re.search(r"\b(?:which|what)\W+(?:(?:of|our|the|\d+|[a-z]+est)\W+){0,3}$", before))
    return bool(re.search(rf"{_GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", before))


def _describes(word: str, vocabulary: Vocabulary) -> bool:
    """The word names the things an id labels ("customers", "buyers" for ``customer_id``): after a
    country or a segment it says whose, not what to count or rank."""
    return vocabulary.choices("group_by").get(word) in vocabulary.ids


def _longer_name(name: str, original: str) -> bool:
    """The name is written as the start of a longer capitalised one ("New Zealand", "New York")."""
    pattern = rf"(?i:\b{re.escape(name)})\s+[A-Z][a-z]"
    written = re.search(pattern, original)
    return written is not None and not re.search(
        rf"(?i:\b{re.escape(name)})\s+(?:[A-Z]{{2,}}|[a-z])", original
    )


def _cue_before(marks: Marks, start: int, cues: list[str]) -> int | None:
    """Where an exclusion cue ends right before ``start`` ("apart from the UK"), if one does."""
    if not cues:
        return None
    found = re.search(  # "besides those in the UK"
        rf"(?<!\w)(?:{either(cues)})(?:\s+(?:those|the ones|ones|people|buyers|customers))?"
        rf"(?:\s+(?:of|for|in|from|to|by|at))?(?:\s+the)?\s*$",
        marks.text[:start],
    )
    return found.start() if found else None


def _read_ids(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    for word, parameter in vocabulary.ids.items():
        excluded = f"exclude_{parameter}s"
        cues = sorted(vocabulary.cues.get(excluded, []), key=len, reverse=True)
        leaving = re.compile(rf"\b(?:{either(cues)})\s+(?:the\s+)?$") if cues else None
        excluding_until: int | None = None  # "except customer 14646 and customer 18102": the list goes on
        for found in re.finditer(rf"\b{re.escape(word)}s?\s*(?:id|number|no\.?|#)?\s*#?(\d{{3,12}})\b", text):
            if marks.free(found.start(1), found.end(1)):
                # "everyone except customer 14646": the id left out, when the tool can leave one out
                cue = leaving.search(text[: found.start()]) if leaving else None
                listed = excluding_until is not None and re.fullmatch(
                    r"\s*(?:,|and|or|&)?\s*", text[excluding_until : found.start()]
                )
                if cue or listed:
                    args.setdefault(excluded, []).append(int(found[1]))
                    excluding_until = found.end()
                else:
                    args[parameter] = int(found[1])
                    excluding_until = None
                marks.take(cue.start() if cue else found.start(), found.end())


def _bare_id(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "How many orders has 16705 placed?": a number without its label, not a year, that is the
    subject of a verb the tool says its id goes with, is that id (the answer names it: "customer
    16705 (United Kingdom, …)"), when the question has no other id."""
    if any(p in args for p in vocabulary.ids.values()):
        return
    for parameter, verbs in vocabulary.id_verbs.items():
        pattern = either(verbs)
        found = [
            m
            for m in re.finditer(rf"\b(\d{{4,12}})\s+(?:\w+\s+)?(?:{pattern})\b", text)
            if marks.free(*m.span(1)) and not 1900 <= int(m[1]) <= 2100
        ]
        if len(found) == 1:
            args[parameter] = int(found[0][1])
            marks.take(*found[0].span(1))
            return


def _read_left_out(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """An exclusion flag: its own phrase ("gross"), or a thing it leaves out after any exclusion cue
    or before "excluded" ("not counting the returns", "cancellations excluded"). Read before the
    measures, whose words ("cancellations") the things may share."""
    cue, after = vocabulary.leaving(), either(EXCLUDED_AFTER)
    for parameter, things in vocabulary.left_out.items():
        thing = either(things)
        patterns = [rf"\b(?:{thing})\s+(?:{after})\b"]
        if cue:
            patterns.append(rf"\b(?:{cue})\s+(?:(?:the|any|all|our)\s+)?(?:{thing})\b")
        if phrases := vocabulary.cues.get(parameter):
            patterns.append(rf"(?<![\w-])(?:{either(phrases)})(?![\w-])")
        for pattern in patterns:
            for found in re.finditer(pattern, marks.text):
                if marks.free(*found.span()):
                    args[parameter] = True
                    marks.take(*found.span())


_SERIES = frozenset(
    {
        *("monthly", "daily", "yearly", "annual", "annually", "trend", "who", "where"),
        *("per month", "each month", "by month", "per day", "each day", "per year", "over time"),
        "month by month",
    }
)
"""Dimension words that ask for a breakdown on their own ("monthly revenue", "who bought most")."""
_RANKED_AFTER = re.compile(
    r"\s*(?:ranked|ranking|by|with the|had the|has the|have the|is the|was the|sold the|bought the"
    r"|spent the|did the|brings the|brought the)\b"
)


def _groups_by(text: str, start: int, term: str) -> bool:
    """Whether a dimension word at ``start`` asks for a breakdown: after a ranking cue ("top 5
    customers", "which country"), before one ("countries ranked by"), or a series word; not after
    "how many" or "share of" ("what share of our customers": counted, not ranked)."""
    head = text[:start]
    if term in ("who", "where") and re.search(r"\b(?:\w+s|people|those|ones|anyone|everyone)\s+$", head):
        return False  # "orders from customers who aren't High Value": a relative clause, no breakdown
    if term in _SERIES:
        return True
    if _ASKED_FOR.search(head):
        return False
    return bool(
        re.search(rf"{_GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", head)
        or _RANKED_AFTER.match(text[start + len(term) :])
    )


def _read_choices(text: str, marks: Marks, vocabulary: Vocabulary, reading: Reading) -> dict[str, Any]:
    """measure, group_by, order, compare from the schema's words; a word that names both a measure
    and a dimension ("customers") is the dimension after a ranking cue ("top 5 customers")."""
    chosen: dict[str, Any] = {}
    hits: dict[str, list[tuple[int, str, str]]] = {}
    for parameter in ("group_by", "measure", "order", "rank_by", "compare"):
        terms = vocabulary.choices(parameter)
        for term in sorted(terms, key=len, reverse=True):
            for start, _end in marks.find(term):
                hits.setdefault(parameter, []).append((start, term, terms[term]))
    spans = [(s, s + len(t)) for s, t, _ in hits.get("measure", [])]
    inside = {  # "revenue per customer" is a measure, not a ranking of customers
        (start, term)
        for start, term, _ in hits.get("group_by", [])
        if any(a <= start and start + len(term) <= b and b - a > len(term) for a, b in spans)
    }
    # nouns only: "customers by month" is no "customer segments"
    heads = {s for s, t, _ in hits.get("group_by", []) if not re.match(r"(?:by|per|each|over)\b", t)}
    leaving = vocabulary.leaving()
    groups = [
        (start, term, value)
        for start, term, value in hits.get("group_by", [])
        if (start, term) not in inside
        # "orders from every country apart from Belgium": the scope left, no breakdown
        and not (
            leaving
            and re.search(r"\b(?:every|all|any)\s+(?:of\s+)?(?:our\s+|the\s+)?$", text[:start])
            and re.match(rf"\s+(?:{leaving})\b", text[start + len(term) :])
        )
        # "from customers outside the High Value segment": whose, by what leaves some out, no breakdown
        and not (
            leaving
            and _describes(term, vocabulary)
            and re.match(rf"\s+(?:{leaving})\b", text[start + len(term) :])
            and not _ranks_before(text[:start])  # "top 5 customers except"
        )
        and start not in marks.qualifiers
        and start + len(term) + 1 not in heads  # "the customer segments": the last noun is the dimension
        and _groups_by(text, start, term)
    ]
    group_starts = set()
    if groups:  # the first named, and of two from one place the longer ("day of the week", not "day")
        start, term, value = min(groups, key=lambda g: (g[0], -len(g[1])))
        chosen["group_by"] = value
        group_starts = {s for s, _, v in groups if v == value}
        for s, t, v in groups:
            if v == value:
                marks.take(s, s + len(t))
    counted_groups = [  # "which country had the most customers?": customers counted, countries ranked
        (s, t, f"{v}s")
        for s, t, v in groups
        if chosen.get("group_by") not in (None, v) and f"{v}s" in set(vocabulary.choices("measure").values())
    ]
    for s, t, _ in hits.get("group_by", []):
        if s + len(t) + 1 in group_starts & heads:  # "customer" of "the customer segments" goes with its noun
            marks.take(s, s + len(t))
    counted = {s for s, _, _ in hits.get("measure", [])}
    alone = len(counted) == 1  # "of all customers, what share bought …": the one measure named
    for s, t, _ in hits.get("group_by", []):  # "revenue for all countries except the UK": the scope
        if (
            s not in group_starts
            and not (alone and s in counted)
            and s not in {h[0] for h in counted_groups}
            and not _ASKED_FOR.search(text[:s])
            and (
                re.search(r"\b(?:all|every|the other|other)\s+(?:of\s+)?(?:our\s+)?$", text[:s])
                or (leaving and re.match(rf"\s+(?:{leaving})\b", text[s + len(t) :]))
            )
        ):  # "orders from countries other than the UK": the countries are the scope left
            marks.take(s, s + len(t))
    measures = [
        h for h in hits.get("measure", []) if h[0] not in group_starts and marks.free(h[0], h[0] + len(h[1]))
    ] + [h for h in counted_groups if marks.free(h[0], h[0] + len(h[1]))]
    for s, t, _ in measures:
        marks.take(s, s + len(t))
    # "how many orders were cancelled": the participle names the kind of the noun before it
    measures = [
        h
        for h in measures
        if not any(re.fullmatch(_PASSIVE, text[h[0] + len(h[1]) : o[0]]) for o in measures if o[0] > h[0])
    ]
    # "how many unique products were sold?": a dimension counted is the measure of the same name
    counts = {singular(m): m for m in vocabulary.choices("measure").values()}
    measures += [
        (s, t, counts[v])
        for s, t, v in hits.get("group_by", [])
        if v in counts and marks.free(s, s + len(t)) and _ASKED_FOR.search(text[:s])
    ]
    for s, t, _ in measures:
        marks.take(s, s + len(t))
    # "spenders": ranking customers by a count of customers means nothing; the default measure does
    measures = [h for h in measures if h[2] != f"{chosen.get('group_by')}s"]
    if measures:
        ranked = sorted((_measure_rank(text, h, vocabulary), -len(h[1]), h[0], h[2]) for h in measures)
        chosen["measure"] = ranked[0][3]
        names = [n for entities in vocabulary.entities.values() for n in entities]
        head = text[: ranked[0][2]]
        reading.qualifying = any(
            head.endswith(f"{n} ") for n in names
        )  # "At Risk customers", not "for orders"
        # "how many customers bought more than once?": a kind of the measure ("repeat_customers" of
        # "customers") named too is the one asked for
        kinds = [m for *_, m in ranked if m.endswith(f"_{chosen['measure']}")]
        if kinds:
            chosen["measure"], reading.qualifying = kinds[0], False
        _other_measures(text, measures, chosen, reading, vocabulary)
    for parameter in ("order", "rank_by", "compare"):
        found = [h for h in hits.get(parameter, []) if marks.free(h[0], h[0] + len(h[1]))]
        if found:
            chosen[parameter] = min(found)[2]
            if parameter == "compare" and any(v == "year_before" for *_, v in found):
                chosen[parameter] = "year_before"  # "compared with a year earlier": the year says which
            for s, t, _ in found:
                marks.take(s, s + len(t))
        if parameter == "order" and len({v for _, _, v in found}) > 1:
            # "of our ten biggest countries, which placed the fewest orders?": two rankings in one
            reading.conflicts = [t for _, t, _ in sorted(found)]
    return chosen


def _other_measures(
    text: str,
    measures: list[tuple[int, str, str]],
    choices: dict[str, Any],
    reading: Reading,
    vocabulary: Vocabulary,
) -> None:
    """Measures named beside the one chosen that one query cannot honour: two figures asked at once
    ("revenue and orders"), or a kind of customer the chosen figure would have to be split by
    ("revenue from repeat customers"). A plain noun that only qualifies ("orders from customers") is
    fine, and so is a kind the data names as an entity: "orders placed by new customers" where the
    data has a New segment is that segment's orders (the reading says so)."""
    chosen = choices["measure"]
    spans = [(s, s + len(t)) for s, t, _ in measures]
    whole = [  # the longest words of each place: "sell" inside "how much did we sell" is no measure
        (s, t, v)
        for s, t, v in measures
        if not any(a <= s and s + len(t) <= b and b - a > len(t) for a, b in spans)
    ]
    first = min((s for s, _, v in whole if v == chosen), default=None)
    for s, t, v in whole:
        if v == chosen or chosen.endswith(f"_{v}") or first is None:
            continue
        a, b = sorted((first, s))
        gap = text[a:b]
        gap = gap[len(next(tt for ss, tt, _ in whole if ss == a)) :]
        if re.fullmatch(r"\s*(?:and|&|plus|as well as)\s+(?:the\s+|our\s+)?(?:number of\s+)?", gap):
            reading.several = [t] if s > first else [t, *reading.several]
        elif " " in t and ("_" in v or t.split()[-1] in vocabulary.choices("measure")):
            # "revenue from repeat customers", "revenue from cancelled orders": a kind of a measure's noun
            named = [
                (parameter, names[word])
                for parameter, names in vocabulary.entities.items()
                for word in t.split()
                if word in names and parameter not in reading.arguments
            ]
            if len(named) == 1:
                choices[named[0][0]] = [named[0][1]]
            else:
                reading.split_by.append(v)


_PASSIVE = r"\s+(?:that\s+|which\s+)?(?:were|was|got|been|have been|had been|are|is|being)\s+"
_ASKED_FOR = re.compile(
    r"(?:how many|number of|count of|how much|share of|percentage of|percent of|proportion of|fraction of"
    r"|% of|total|amount of|in terms of)\s+"
    rf"(?:(?:our|the|all|different|distinct|unique|(?:19|20)\d{{2}}|{'|'.join(CALENDAR_NAMES)})\s+){{0,3}}$"
)
"""The words before the measure asked for; a period may stand between ("what share of 2025 orders")."""
_SHARE_OF = re.compile(
    r"\b(?:share|percentage|percent|proportion|fraction|portion|slice|part|how much) of\s+"
    r"(?:(?!(?:from|by|came|comes|come|among|placed|made)\b)\S+\s+){0,3}$"
)
"""A share's measure comes soon after it, names between ("share of Ireland revenue from …"); what
comes after "from" is whose share ("percentage of revenue from repeat customers")."""
_QUALIFYING = re.compile(
    r"\b(?:from|among|by|to|for|of|with)\s+(?:(?:our|the|all|those|these)\s+)?(?:\S+\s+){0,2}$"
)


def _measure_rank(text: str, hit: tuple[int, str, str], vocabulary: Vocabulary) -> int:
    """Which of several measure words the question asks for: the one after "how many", "share of"
    (0) before a plain one (1) before one that only qualifies another: "revenue from High Value
    customers", "orders among our customers" (2)."""
    head = text[: hit[0]]
    if re.search(r"\b\w+ed\s+by\s+(?:(?:our|the|all|those|these)\s+)?(?:\S+\s+)?$", head):
        return 2  # "orders placed by new customers": who placed them, not what is counted
    by = re.search(r"\b(?:by|in terms of)\s+(?:the\s+)?(?:number of\s+)?$", head)
    if by and "_" in hit[2] and hit[1].split()[-1] in vocabulary.choices("group_by"):
        return 2  # "total spend by new customers": a kind of customer after "by" says whose
    if _ASKED_FOR.search(head) or _SHARE_OF.search(head) or by:
        return 0  # "the least popular countries by orders": the measure named after "by"
    names = (n for entities in vocabulary.entities.values() for n in entities)
    whose = _describes(hit[1].split()[-1], vocabulary)  # "High Value customers", not "UK revenue"
    if _QUALIFYING.search(head) or (whose and any(head.endswith(f"{n} ") for n in names)):
        return 2
    return 1


_WHICH_MORE = re.compile(
    r"\bwhich\b.*\b(?:more|most|less|least|fewer|fewest|higher|highest|lower|lowest|bigger|biggest|"
    r"smaller|smallest|better|best|worse|worst|larger|largest)\b|\bwho\b"
)
"""Which of the names named is ahead ("Ireland or Germany, which had more customers?", "of France,
Germany and Spain, which had the fewest orders?")."""
_BETWEEN_NAMES = re.compile(r"\b(?:or|than|versus|vs|compared to|compared with|against)\b")


def side_by_side(text: str, args: dict[str, Any], vocabulary: Vocabulary, original: str = "") -> None:
    """ "France vs Germany": a comparison of two names, not of two periods, is a breakdown by their
    dimension, limited to them. ``original``: the question as typed, whose names in capitals hold
    no period ("IVORY CHRISTMAS SHOPPER BAG versus …")."""
    if args.get("compare") != "previous_period" and not (
        _BETWEEN_NAMES.search(text) or _COMPARING.search(text) or _WHICH_MORE.search(text)
    ):
        return  # "Compare Germany and France", "Germany vs France": the names side by side
    in_names = in_capitals(original)
    periods = [p for p in find_periods(text) if not set(text[p.span[0] : p.span[1]].split()) <= in_names]
    if len(periods) >= 2 and not ("rank_by" in args and _WHICH_MORE.search(text)):
        # "France, 2025 vs 2024" compares periods; "Germany vs France in 2025" compares names; "which
        # grew more from February to April, Germany or France?" ranks the names by the change
        return
    dimensions = set(vocabulary.choices("group_by").values())
    measures = set(vocabulary.choices("measure").values())
    lists = [(parameter, singular(parameter)) for parameter in vocabulary.entities]
    if vocabulary.free_list and vocabulary.free_text and vocabulary.free_dimension:
        lists.append((vocabulary.free_text, vocabulary.free_dimension))  # "compare A and B", two products
    for parameter, dimension in lists:
        if len(args.get(parameter, ())) >= 2 and dimension in dimensions:
            ranked = args.get("group_by")
            if ranked == dimension:
                return
            if ranked is not None:  # "Ireland or Germany, which had more customers?": the two, counted
                if f"{ranked}s" in measures and "measure" not in args:
                    args["measure"] = f"{ranked}s"
                for key in ("limit", "order", "rank"):
                    args.pop(key, None)
            args["group_by"] = dimension
            args.pop("compare", None)
            return


_WHOLE_NAMED = re.compile(
    r"\b(?:share|percentage|percent|proportion|fraction|portion|part|%|how much)\s+of\s+(?:the\s+|our\s+)?$"
)
"""A share's words right before a name: what it is a share of ("what share of the Regular
segment's revenue…")."""


def _share_within(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "What share of the Regular segment's revenue comes from the UK?": of the segment, the UK the
    part. Only said when two kinds of names are read (one alone is always the part)."""
    if not args.get("share") or "share_within" not in vocabulary.parameters:
        return
    named = {p: at for p, at in marks.named.items() if args.get(p) and p in vocabulary.entities}
    if len(named) + ("customer_id" in args) < 2:
        return
    for parameter, at in named.items():
        if _WHOLE_NAMED.search(text[:at]):
            args["share_within"] = parameter


def _share_of(args: dict[str, Any], other: Found, marks: Marks) -> None:
    """Of two periods, a share of the smaller in the larger ("October's share of 2011")."""
    inner, outer = day_bounds(str(args.get("period"))), day_bounds(other.period)
    if not (inner and outer):
        return
    if outer[0] <= inner[0] and inner[1] <= outer[1]:
        args["share_of"] = other.period
    elif inner[0] <= outer[0] and outer[1] <= inner[1]:
        args["share_of"], args["period"] = args["period"], other.period
    else:
        return
    marks.take(*other.span)


def _read_flags(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    for parameter, cues in vocabulary.cues.items():
        if parameter.startswith("exclude_"):
            continue
        for cue in cues:
            spans = (
                marks.find(cue)
                if cue != "%"
                else [(m.start(), m.end()) for m in re.finditer("%", marks.text)]
            )
            if not spans and cue.endswith(" of"):  # "how much of 2025's revenue": "of 2025" is the period's
                spans = [
                    s for s in marks.find(cue.removesuffix(" of")) if marks.text.startswith(" of ", s[1])
                ]
            if spans:
                args[parameter] = True
                for span in spans:
                    marks.take(*span)


def _beside_the_rest(text: str, args: dict[str, Any], reading: Reading, vocabulary: Vocabulary) -> None:
    """ "The UK vs the rest of the world": the "vs" is the rest's, not a second period's; with no
    name to set beside, "the rest" (of 2011?) is not understood."""
    if not args.get("versus_rest"):
        return
    if not any(p in args for p in vocabulary.entities):
        del args["versus_rest"]
        reading.not_understood.append("the rest")
    elif args.get("compare") == "previous_period" and not _SHIFT_BACK.search(text):
        del args["compare"]


def _read_limit(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    if "group_by" not in args:  # "show me the top 3 instead": a follow-up's ranking, cut anew
        found = re.search(r"\b(top|bottom)\s+(\d{1,2})\b", text)
        if found and marks.free(*found.span()):
            args["limit"] = max(1, min(20, int(found[2])))
            args["order"] = "highest" if found[1] == "top" else "lowest"
            marks.take(*found.span())
        return
    words, group = "|".join(NUMBER_WORDS), args["group_by"]
    # "top 3 months" is a ranking; "3 months" alone a length of time ("last 3 months" is a period)
    candidates = itertools.chain(
        re.finditer(
            rf"\b(?:top|bottom|best|worst|biggest|largest|smallest|leading)\s+(\d{{1,2}}|{words})\b", text
        ),
        re.finditer(  # "the three months with the most growth": a ranking of months, no length of time
            rf"\b(?:the|which|what)\s+(\d{{1,2}}|{words})\s+(?={group}s\b)", text
        ),
        re.finditer(
            rf"\b(\d{{1,2}}|{words})\b(?<!each one)(?<!which one)(?<!every one)(?<!that one)(?<!this one)"
            r"(?!\s*(?:days?|weeks?|months?|years?|%))",
            text,
        ),
    )  # "each one's share" is no ranking of one; a number the reading used already is none
    found = next((f for f in candidates if marks.free(*f.span(1))), None)
    if found:
        value = found[1]
        number = int(value) if value.isdigit() else NUMBER_WORDS[value]
        if 1 <= number <= 20:
            args["limit"] = number
            marks.take(*found.span())
            return
    group = args["group_by"]
    time = group in {"month", "day", "year", "quarter", "weekday"}
    # "which country", "the best day", "our busiest month", "the best-selling item": one; "which
    # months", "by month": all. The dimension by any of its single names (an item is a product).
    names = [t for t, v in vocabulary.choices("group_by").items() if v == group and not t.endswith("s")]
    noun = "(?:" + "|".join(re.escape(n) for n in names or [group]) + ")"
    which = re.search(rf"\b(?:which|what)\s+(?:\w+\s+){{0,{1 if time else 2}}}{noun}\b(?!s)", text)
    best = re.search(  # "busiest day in 2025" opens with its superlative
        rf"(?:^|\b(?:the|our|its|my)\s+(?:single\s+|very\s+)?)"
        rf"(?:\w+est|most|least|top|best|worst|number one)\s+(?:\w+\s+){{0,2}}"
        rf"{noun}\b(?!s)",
        text,
    )
    # "who's the customer in Italy that has spent the least": one, named in the singular
    the_one = re.search(rf"\b(?:who|which|what)(?:'s|\s+is|\s+was)?\s+the\s+{noun}\b(?!s)", text)
    if (
        which
        or best
        or (the_one and "order" in args)
        or (time and args.get("order") == "lowest")
        or re.search(r"\bthe\s+(?:\w+est|best|worst|top|number one)\s*$", text)
    ):
        args["limit"] = 1


def _named(left: list[tuple[str, int]], original: str) -> bool:
    """The words left are one name, capitalised as names are ("sales figures for Mexico", "the
    Lunch Bag Red"), not the question's first word: the tool looks it up and says if the data has none."""
    words = [w.rstrip(".") for w in re.findall(r"[A-Za-z0-9][\w'&.+-]*", original)]
    capitalised = {w.lower() for w in words[1:] if w[0].isupper()} - CALENDAR_NAMES
    return all(w in capitalised for w, _ in left) and len(left) <= 8


def _read_rank(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "The second best-selling product", "which one comes 3rd?": one place of a ranking."""
    if "rank" not in vocabulary.parameters:
        return
    words = "|".join(ORDINALS)
    for found in re.finditer(rf"\b({words}|(\d{{1,2}})(?:st|nd|rd|th))\b", text):
        if marks.free(*found.span()):
            place = int(found[2]) if found[2] else ORDINALS[found[1]]
            if 2 <= place <= 20:
                args["rank"] = place
                args.pop("limit", None)
                marks.take(*found.span())
            return


def _leftovers(marks: Marks, reading: Reading, vocabulary: Vocabulary, original: str) -> None:
    """Words the reading did not use: a subject the tool says the data lacks, a product's words
    (only after the word "product" or the like: a guess would turn any misread word into a product
    lookup), or not understood. A number left over (an id without its label) is not understood."""
    free = vocabulary.free_text
    cues = [t for t, v in vocabulary.choices("group_by").items() if v == vocabulary.free_dimension]
    left = [(w, at) for w, at in marks.left() if w not in COMMON and not (w.isdigit() and len(w) < 3)]
    if free in reading.arguments:  # a quoted name: "the product" before it is part of it
        left = [(w, at) for w, at in left if w not in cues]
    left = _excluded_name(marks, left, reading, vocabulary, original)
    heads = set(vocabulary.not_in_data) | {s.split()[0] for s in vocabulary.not_in_data}  # "stock"
    subjects = heads | {re.sub(r"s$", "", s) for s in heads}  # "forecast" for "forecasts"
    for word, _ in left:
        if word in subjects or subject_stem(word) in subjects:  # "profitable": no figures on profit
            reading.not_in_data.append(word if word in subjects else subject_stem(word))
    if reading.not_in_data or not left:
        return
    if len(left) > 1 and left[0][0] in cues:  # "tell me about product 85123A": the cue is no word of it
        left = left[1:]
    first = left[0][1]
    cued = any(
        re.search(rf"\b{re.escape(cue)}\s+(?:called\s+|named\s+)?$", marks.text[:first]) for cue in cues
    )
    code = len(left) == 1 and re.fullmatch(r"\d{4,6}[a-z]{1,2}|[a-z]\d{3,}", left[0][0])
    if free is not None and free not in reading.arguments and (cued or code or _named(left, original)):
        as_written = {w.lower(): w for w in re.findall(r"[A-Za-z0-9][\w'&+-]*", original)}
        # the name as written, small numbers inside it too ("REGENCY CAKESTAND 3 TIER")
        inside = marks.text[left[0][1] : left[-1][1] + len(left[-1][0])].split()
        words = {w for w, _ in left}
        names = [
            " ".join(
                as_written.get(w, w)
                for w in part
                if w in words or w.isdigit() or as_written.get(w, w)[:1].isupper()
            )
            for part in (
                split_names(inside, lambda w: as_written.get(w, w)) if vocabulary.free_list else [inside]
            )
        ]
        reading.arguments[free] = vocabulary.free_value([name for name in names if name] or [""])
        if reading.arguments.get("group_by") == vocabulary.free_dimension:
            del reading.arguments["group_by"]
        return
    # "the Champions segment": the dimension's noun after an unknown name only says what it was meant as
    dimensions = vocabulary.choices("group_by")
    nouns = [
        (w, at)
        for (prev, before_at), (w, at) in itertools.pairwise(left)
        if w in dimensions and before_at + len(prev) + 1 == at
    ]
    reading.not_understood = [w for w, at in left if (w, at) not in nouns]
    kinds = {singular(dimensions[w]) for w, _ in nouns} | {dimensions[w] for w, _ in nouns}
    reading.unknown_kind = next((p for p in vocabulary.entities if singular(p) in kinds), None)


_NAME_JOINTS = frozenset({"and", "or", "&", ",", "vs", "versus"})


def split_names(words: list[str], written: Callable[[str], str] = str) -> list[list[str]]:
    """The words of several names, split where a comma or a lower-case "and", "or" or "versus"
    joins them ("lanterns, candles and bunting"); an upper-case one is a name's own ("SALT AND
    PEPPER SHAKERS"). ``written`` gives a word as the question wrote it."""
    names: list[list[str]] = [[]]
    for word in words:
        if word.lower() in _NAME_JOINTS and not written(word).isupper():
            if names[-1]:  # "a, and b": one joint
                names.append([])
        elif names[-1] or word.lower() not in ("the", "our"):  # "… and the party bunting"
            names[-1].append(word)
    return [name for name in names if name]


_UNIT_OF_PERIOD = {
    "day": re.compile(r"\d{4}-\d{2}-\d{2}"),
    "month": re.compile(r"\d{4}-\d{2}"),
    "year": re.compile(r"\d{4}"),
}


def _the_period_unit(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Was 16 February 2011 a busy day?": a dimension word left over that names the unit of the
    period asked about is that period, not a breakdown nor a word not understood."""
    period = args.get("period")
    unit = next(
        (u for u, shape in _UNIT_OF_PERIOD.items() if isinstance(period, str) and shape.fullmatch(period)),
        None,
    )
    if unit is None or "group_by" in args:
        return
    for term, value in vocabulary.choices("group_by").items():
        if value == unit:
            for span in marks.find(term):
                marks.take(*span)


def _dangling_cues(marks: Marks, reading: Reading, vocabulary: Vocabulary) -> None:
    """An exclusion cue of common words ("other than") that left nothing out: read without it, the
    question would include what it asked to leave out, so the reading does not cover it."""
    for parameter, cues in vocabulary.cues.items():
        if not parameter.startswith("exclude_"):
            continue
        for word, id_parameter in vocabulary.ids.items():  # "everyone except customer 23160"
            if f"exclude_{id_parameter}s" in vocabulary.parameters or id_parameter not in reading.arguments:
                continue
            cue = either(cues)
            if left_out := re.search(
                rf"\b(?:{cue})\s+(?:the\s+)?{re.escape(word)}s?\b\D{{0,6}}\d+", marks.text
            ):
                del reading.arguments[id_parameter]
                reading.not_understood.append(left_out[0])
                return
        if parameter in reading.arguments:
            continue
        for cue in cues:
            if " " in cue and all(w in COMMON for w in cue.split()) and marks.find(cue):
                reading.not_understood.append(cue)
                return


def _excluded_name(
    marks: Marks, left: list[tuple[str, int]], reading: Reading, vocabulary: Vocabulary, original: str
) -> list[tuple[str, int]]:
    """ "Top 5 products, ignoring postage": the words after an exclusion cue of the tool's free-text
    parameter (``exclude_product``) are the name it leaves out; the words left without them."""
    excluded = f"exclude_{vocabulary.free_text}"
    if excluded not in vocabulary.parameters or excluded in reading.arguments:
        return left
    for cue in sorted(vocabulary.cues.get(excluded, []), key=len, reverse=True):
        for found in re.finditer(rf"(?<![\w-]){re.escape(cue)}\s+(?:(?:the|all|any|our)\s+)?", marks.text):
            if not marks.free(*found.span()):
                continue
            runs = _runs_after(found.end(), left, marks, several=vocabulary.free_list)
            if not runs:
                continue
            as_written = {w.lower(): w for w in re.findall(r"[A-Za-z0-9][\w'&+-]*", original)}
            names = [" ".join(as_written.get(w, w) for w, _ in run) for run in runs]
            reading.arguments[excluded] = vocabulary.free_value(names)
            marks.take(found.start(), runs[-1][-1][1] + len(runs[-1][-1][0]))
            cue_words = {(m[0], found.start() + m.start()) for m in re.finditer(r"\S+", found[0])}
            taken = {item for run in runs for item in run} | cue_words
            return [item for item in left if item not in taken]
    return left


_JOINER = re.compile(r"(?:and|or|&) (?:(?:the|all|any|our) )?")


def _runs_after(
    at: int, left: list[tuple[str, int]], marks: Marks, *, several: bool
) -> list[list[tuple[str, int]]]:
    """The words left side by side from ``at`` on, a name; with ``several``, the next names too
    where "and" or "or" joins them ("excluding postage and manual")."""
    runs: list[list[tuple[str, int]]] = []
    while True:
        run: list[tuple[str, int]] = []
        for word, start in left:
            # "excluding regency cakestand 3 tier": a small number inside the name is the name's
            inside = re.match(r"(\d{1,2}) ", marks.text[at:])
            if run and inside and start == at + len(inside[0]) and marks.free(at, at + len(inside[1])):
                run.append((inside[1], at))
                at = start
            if start == at:
                run.append((word, start))
                at = start + len(word) + 1
        if not run:
            return runs
        runs.append(run)
        joined = _JOINER.match(marks.text, at)
        if not several or joined is None or not marks.free(*joined.span()):
            return runs
        at = joined.end()


_OF_THOSE = re.compile(r"\b(?:which|what|who)\s+of\s+(?:those|these|them)\b")


def _counted_of_those(
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


def _share_of_enclosing(
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


def _merge(
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
            if _YEAR_BACK.search(text)
            else "previous_period"
            if _SHIFT_BACK.search(text)
            else None
        )
        step = year_before if back == "year_before" else before
        shifted = (step(period) or (step(placed) if placed else None)) if back else None
        if back is None and _SHIFT_ON.search(text):  # "and the following day?"
            shifted = after(period) or (after(placed) if placed else None)
        if back and (_COMPARING.search(text) or "compare" in previous):
            # "how does that compare with a year earlier?", "and a year earlier?" after a comparison:
            # the same period, compared with the other one
            merged["compare"] = back
        elif shifted is not None:
            merged["period"] = shifted
            merged.pop("compare", None)
    reached = (
        _compared_with(period, placed, new["period"]) if "period" in new and isinstance(period, str) else None
    )
    if reached is not None and _COMPARING.search(text):
        merged["period"], merged["compare"] = reached
    elif "period" in new and "compare" not in new:
        merged.pop("compare", None)
    if "measure" not in new and merged.get("measure") == f"{merged.get('group_by')}s":
        del merged["measure"]  # "who are the top 3?" after how many customers: by what they bought
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


__all__ = ["Reading", "read"]
