"""Read a question into the arguments of a query tool, and say what of it was not understood.

The reader marks every part of the question it used: periods (``periods``), the tool's entity names
(countries as stored, with their aliases), ids ("customer 12345"), quoted names, and the words the
schema lists for each choice of ``measure``, ``group_by``, ``order`` and ``compare``
(``vocabulary``). What is left, less common English, is either the words of a product (handed to the
tool, which matches it against the data) or not understood: then the reading does not cover the
question, and the guide says so instead of guessing. A follow-up ("and in France?", "how many
orders was that?") starts from the previous reading and changes only what it names.

``read`` is the order of the reading; its parts live beside it, each marking the words it used
(``reading.Marks``): ``words`` (the question normalized, typos corrected), ``timeframe`` (periods,
ranges, comparisons), ``entities`` (names, ids, what is left out, the words left over), ``choices``
(measure, breakdown, ranking, shares, flags) and ``follow_ups`` (what a follow-up keeps of the
previous reading and what it changes).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from .choices import (
    BETWEEN_NAMES,
    COMPARING,
    among,
    beside_the_rest,
    free_the_name,
    of_the_kind,
    read_choices,
    read_flags,
    read_limit,
    read_rank,
    share_within,
    side_by_side,
)
from .entities import (
    bare_id,
    dangling_cues,
    leftovers,
    quoted_names,
    read_entities,
    read_ids,
    read_left_out,
    read_top_left_out,
)
from .follow_ups import (
    BREAKDOWN_ONLY,
    ELLIPTIC,
    ENDS_REFERRING,
    NARROWING,
    NEW_QUESTION,
    OF_SOME,
    OF_TWO,
    SAME_PERIOD,
    THAT_PERIOD,
    about_the_row,
    beside,
    by_measure,
    change_in_percent,
    counted_of_those,
    excluding_listed,
    merge,
    named_before,
    names_of_answers,
    paired_answers,
    per_previous,
    referred_row,
    refers_back,
    share_of_enclosing,
    take_that_row,
    the_one_id,
    whole_of,
)
from .periods import NUMBER_WORDS, find_periods
from .reading import Marks, Reading
from .timeframe import (
    ALL_TIME,
    FUTURE,
    SHIFT_BACK,
    SHIFT_ON,
    STEPS,
    WHOLE_OF,
    YEAR_BACK,
    enclosing,
    read_periods,
    share_of,
    the_period_unit,
)
from .vocabulary import Vocabulary
from .words import QUOTED, TYPO_PRONE, in_capitals, normalize, singular, spelled

_EACH = re.compile(r"\b(?:each|their|its|individual|individually|respective|respectively|per)\b")
"""Words that ask for the rows one by one, not added up."""

_COMPARATIVE = re.compile(
    r"\b(?:(lower|smaller|fewer|less|worse|weaker)|higher|bigger|larger|greater|more|better|stronger)\b"
)
"""'Which is higher?' of two rows side by side: the direction of a one-row ranking."""


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
        quoted_names(
            text, quoted, [found[0] if found else None for found in spans], marks, reading, vocabulary
        )
    # "the month before": a step back from this question's period, or from the previous reading's
    starts = {p.span[0] for p in find_periods(text)}
    steps = [  # "the week before Christmas 2011" is a period of its own (``timeframe``), not a step back
        (f, back)
        for pattern, back in STEPS
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
        for found in (*SHIFT_ON.finditer(text), *WHOLE_OF.finditer(text)):
            marks.take(*found.span())
    for found in ALL_TIME.finditer(text):  # "over the whole period": all time, which is no period
        marks.take(*found.span())
    same = [m.span() for m in SAME_PERIOD.finditer(text) if marks.free(*m.span())]
    for span in same:
        marks.take(*span)
    unplaced = read_periods(
        text, marks, args, vocabulary, stepped=bool(steps), in_names=in_capitals(original)
    )
    if steps and "period" in args and "compare" not in args:  # "April 2025 vs the same month last year"
        args["compare"] = steps[0][1]
    read_top_left_out(text, marks, args, vocabulary)
    read_left_out(marks, args, vocabulary)
    read_entities(marks, args, vocabulary, original)
    read_ids(text, marks, args, vocabulary)
    bare_id(text, marks, args, vocabulary)
    among(text, marks, args, vocabulary)
    of_the_kind(text, marks, args, vocabulary)
    choices = read_choices(text, marks, vocabulary, reading)
    counted = f"{choices.get('group_by')}s"
    if "among_top" in args and "measure" not in choices and counted in vocabulary.choices("measure").values():
        choices["measure"] = counted  # "which of the top 3 countries has the most customers?"
    args.update({k: v for k, v in choices.items() if k not in args})  # two periods say which comparison
    over = re.search(r"\b(day|week|month|quarter|year) over \1\b|\b(yoy|mom|qoq)\b", text)
    if over and "period" not in args:  # "quarter over quarter": the latest quarter against the one before
        unit = over[1] or {"yoy": "year", "mom": "month", "qoq": "quarter"}[over[2]]
        args["period"] = "last 7 days" if unit == "week" else f"latest {unit}"
    side_by_side(text, args, vocabulary, original)
    read_flags(marks, args, vocabulary)
    if unplaced is not None and args.get("share") and "share_of" in vocabulary.parameters:
        share_of(args, unplaced, marks)
    whole = WHOLE_OF.search(text)
    if (
        whole
        and args.get("share")
        and "share_of" in vocabulary.parameters
        and "share_of" not in args
        and re.match(r"\d{4}", str(args.get("period", "")))
        and marks.free(*whole.span())
        and enclosing(args["period"], whole[1]) != args["period"]
    ):  # "Q4 2025 as a percentage of the full year": of the year it lies in
        args["share_of"] = enclosing(args["period"], whole[1])
        marks.take(*whole.span())
    if (
        unplaced is not None
        and "share_of" not in args
        and "compare_with" in vocabulary.parameters
        and (COMPARING.search(text) or BETWEEN_NAMES.search(text))
    ):  # "orders in May 2025 compared to September 2025": any two periods
        args["compare_with"] = unplaced.period
        args.pop("compare", None)
        marks.take(*unplaced.span)
    share_within(text, marks, args, vocabulary)
    read_limit(text, marks, args, vocabulary)
    read_rank(text, marks, args, vocabulary)
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
    left_one_out = previous is not None and bool(listed) and excluding_listed(marks, args, listed, vocabulary)
    that_row = left_one_out or (
        previous is not None and bool(listed) and take_that_row(text, marks, listed, vocabulary)
    )
    if not left_one_out and previous is not None and (one := the_one_id(previous, vocabulary)):
        # "without them" of the customer asked about: the pronoun is theirs, not the last row's
        that_row = left_one_out = excluding_listed(marks, args, one, vocabulary)
    if previous is not None and not listed and (named := named_before(previous, vocabulary)):
        that_row = take_that_row(text, marks, named, vocabulary)  # "that country" of one about Germany
    if previous is not None and isinstance(previous.get("period"), str):
        for found in THAT_PERIOD.finditer(text):  # "how many customers did it have that month?"
            if marks.free(*found.span()):
                marks.take(*found.span())
    the_period_unit(marks, args, vocabulary)
    free_named = vocabulary.free_text in args
    leftovers(marks, reading, vocabulary, original)
    if not free_named and vocabulary.free_text in args:  # "How about FLORAL ROSE TEA CUP?"
        free_the_name(args, vocabulary.free_names(args), vocabulary, original)
    side_by_side(text, args, vocabulary, original)  # the names leftovers found
    dangling_cues(marks, reading, vocabulary)
    beside_the_rest(text, args, reading, vocabulary)
    stepping_on = previous is not None and isinstance(previous.get("period"), str) and SHIFT_ON.search(text)
    ahead = [s for s in vocabulary.not_in_data if s.startswith("forecast")]
    if FUTURE.search(text) and not stepping_on and ahead:
        reading.not_in_data = ahead  # "revenue next month": no data holds days that have not come
    reading.not_understood = [corrected.get(w, w) for w in reading.not_understood]
    # "And in France?", "how many orders was that?", or nothing of its own ("Which one?"); a question
    # that names its own period or place without referring back is a new one
    shifted = "period" not in args and any(p.search(text) for p in (SHIFT_BACK, YEAR_BACK, SHIFT_ON))
    if previous is not None and args.get("group_by") not in (None, previous.get("group_by")):
        shifted = False  # "which month grew most on a year earlier?" after days: a ranking of its own
    # "which one comes second?" has no subject of its own; "how many employees?" has one, not understood
    own = set(args) - {"rank", "order", "limit", "rank_by", "share"} or reading.not_understood
    if own == {"group_by"} and BREAKDOWN_ONLY.match(text):
        own = set()  # "by country", "split by month": the previous question, broken down
    # "Only for 2025", "In France?": a filter alone narrows the question before
    bare = (
        not reading.asks
        and not reading.not_understood
        and (len(text.split()) <= 3 or bool(NARROWING.match(text)))
    )
    scoped = any(k in args for k in ("period", "customer_id", vocabulary.free_text, *vocabulary.entities))
    referring = (
        bool(same)
        or that_row  # "what share of all orders is that country?"
        or refers_back(text, marks, args)
        or (bool(ENDS_REFERRING.search(text)) and not scoped)
        # "which month had the most?"; not "among our ten best-selling by revenue, which one brought
        # in the least?", whose ranking says by what it counts
        or (bool(ELLIPTIC.search(text)) and "measure" not in args and "among_by" not in args)
        or (
            previous is not None
            and isinstance(previous.get("period"), str)
            # "that month"; not "the same quarter a year before", a comparison the question states
            and any(marks.free(*m.span()) for m in THAT_PERIOD.finditer(text))
        )
    )
    # "Which month was weakest?" after the months of 2011: a ranking of the rows just shown
    narrowing = (
        previous is not None
        and args.get("group_by") == previous.get("group_by")
        and set(args) <= {"group_by", "order", "limit", "rank"}
        and not reading.not_understood
    )
    # "which products drove the increase?" after "Q3 vs Q2": the change just compared, broken down
    of_that_change = (
        previous is not None
        and "rank_by" in args
        and "period" not in args
        and isinstance(previous.get("period"), str)
        and bool(previous.get("compare") or previous.get("compare_with"))
        and not reading.not_understood
    )
    reading.follow_up = previous is not None and (
        referring or not own or shifted or bare or narrowing or of_that_change
    )
    if NEW_QUESTION.search(text):
        reading.follow_up = False  # "ok, different question: what was the best month overall?"
    if steps and not reading.follow_up and "period" not in args:
        args["compare"] = steps[0][1]  # "grew most on the same month a year earlier": the step says which
    if (
        previous is not None
        and "group_by" not in previous  # "which is higher?" of rows shown: one of them (below)
        and OF_TWO.search(text)
        and not set(args) - {"order", "limit"}
    ):
        # "which was higher?" after two answers: the two side by side, or said that they cannot be
        reading.follow_up = reading.asks = True
        pair = paired_answers(previous, placed, priors[0], vocabulary) if priors else None
        reading.arguments, reading.not_understood = pair or {}, []  # "two" is the pair's word
        reading.unpaired = pair is None
        return reading
    if (
        previous is not None
        and "group_by" not in previous
        and (some := OF_SOME.search(text))
        and not set(args) - {"order", "limit", "measure"}
    ):
        # "which of those three was lowest?" after three answers about one name each: the names ranked
        count = int(NUMBER_WORDS.get(some[1] or some[2], some[1] or some[2]))
        reading.follow_up = reading.asks = True
        names = names_of_answers([previous, *(p for p, _ in priors[: count - 1])], vocabulary)
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
        counted_of_those(text, previous, args, vocabulary)
        by_measure(text, previous, args, vocabulary)
        reading.arguments = merge(previous, args, text, placed, qualifying=reading.qualifying)
        share_of_enclosing(previous, args, reading.arguments, placed, vocabulary)
        beside(previous, args, reading.arguments, text, vocabulary)
        change_in_percent(text, previous, args, reading.arguments)
        lowest = previous.get("order") == "lowest"
        row = None if left_one_out else referred_row(text, listed, vocabulary, lowest_first=lowest)
        if row is not None and "group_by" not in args:
            reading.arguments = about_the_row(reading.arguments, row, vocabulary, args)
        elif row is not None and args["group_by"] != row[0] and len(listed) == 1:
            # "where are they based?" of the one customer named: that customer, by country
            about = about_the_row(reading.arguments, row, vocabulary, args)
            if about is not reading.arguments:
                reading.arguments = about | {k: args[k] for k in ("group_by", "order", "limit") if k in args}
        elif (
            "group_by" in reading.arguments
            and "limit" not in args
            and "rank" not in args
            and not left_one_out
        ):
            read_limit(text, Marks(text), reading.arguments, vocabulary)
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
        per_previous(text, previous, reading.arguments, vocabulary)
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
        whole_of(text, marks, args, reading, placed, shares_of="share_of" in vocabulary.parameters)
        reading.asks = True
    final = reading.arguments
    if "rank_by" in final:  # "which products grew most last month?": against the month before
        final.setdefault("compare", "previous_period")
        if "group_by" not in final:
            del final["rank_by"]  # "did revenue grow?" is a comparison, not a ranking
    return reading


__all__ = ["Reading", "read"]
