"""The figures a question asks for: ``measure``, ``group_by``, ``order``, ``rank_by`` and ``compare``
from the words the schema lists for each choice, with the limit, place, share and flags beside them.

A word that names both a measure and a dimension ("customers") is the dimension after a ranking cue
("top 5 customers"); two names compared ("France vs Germany") are a breakdown limited to them
(``side_by_side``); words that rank two ways at once are reported, never guessed
(docs/architecture.md#answers-by-construction).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from .entities import GROUP_CUES, describes
from .periods import NUMBER_WORDS, ORDINALS, find_periods
from .reading import Marks, Reading
from .timeframe import SHIFT_BACK
from .vocabulary import Vocabulary, either
from .words import CALENDAR_NAMES, in_capitals, normalize, singular, stem


def _ranks_before(before: str) -> bool:
    """A ranking's word close before a noun ("top 5 customers", "which of our customers"), not a
    question's opening ("what share came from customers…")."""
    if re.search(r"\b(?:which|what)\W+(?:\w+\W+){0,3}$", before):
        return bool(re.search(r"\b(?:which|what)\W+(?:(?:of|our|the|\d+|[a-z]+est)\W+){0,3}$", before))
    return bool(re.search(rf"{GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", before))


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
        re.search(rf"{GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", head)
        or _RANKED_AFTER.match(text[start + len(term) :])
    )


def read_choices(text: str, marks: Marks, vocabulary: Vocabulary, reading: Reading) -> dict[str, Any]:
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
            and describes(term, vocabulary)
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
    whose = describes(hit[1].split()[-1], vocabulary)  # "High Value customers", not "UK revenue"
    if _QUALIFYING.search(head) or (whose and any(head.endswith(f"{n} ") for n in names)):
        return 2
    return 1


def among(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def of_the_kind(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def read_limit(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def read_rank(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


COMPARING = re.compile(r"compar|\bvs\b|versus|\bagainst\b|\bchange|growth|\bgr[eo]w|\bdiffer")
"""Words that compare two things ("vs", "compared with", "how did it change")."""

BETWEEN_NAMES = re.compile(r"\b(?:or|than|versus|vs|compared to|compared with|against)\b")
"""Words that set two names against each other ("Germany or France", "more than the UK")."""

_WHICH_MORE = re.compile(
    r"\bwhich\b.*\b(?:more|most|less|least|fewer|fewest|higher|highest|lower|lowest|bigger|biggest|"
    r"smaller|smallest|better|best|worse|worst|larger|largest)\b|\bwho\b"
)
"""Which of the names named is ahead ("Ireland or Germany, which had more customers?", "of France,
Germany and Spain, which had the fewest orders?")."""


def side_by_side(text: str, args: dict[str, Any], vocabulary: Vocabulary, original: str = "") -> None:
    """ "France vs Germany": a comparison of two names, not of two periods, is a breakdown by their
    dimension, limited to them. ``original``: the question as typed, whose names in capitals hold
    no period ("IVORY CHRISTMAS SHOPPER BAG versus …")."""
    if args.get("compare") != "previous_period" and not (
        BETWEEN_NAMES.search(text) or COMPARING.search(text) or _WHICH_MORE.search(text)
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


def share_within(text: str, marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def read_flags(marks: Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def beside_the_rest(text: str, args: dict[str, Any], reading: Reading, vocabulary: Vocabulary) -> None:
    """ "The UK vs the rest of the world": the "vs" is the rest's, not a second period's; with no
    name to set beside, "the rest" (of 2011?) is not understood."""
    if not args.get("versus_rest"):
        return
    if not any(p in args for p in vocabulary.entities):
        del args["versus_rest"]
        reading.not_understood.append("the rest")
    elif args.get("compare") == "previous_period" and not SHIFT_BACK.search(text):
        del args["compare"]


_RANKED = ("compare", "rank_by", "order")


def free_the_name(
    arguments: dict[str, Any], names: Sequence[str], vocabulary: Vocabulary, asked: str
) -> None:
    """A name may hold the tool's words ("REGENCY ROSE TIN", "pink love shopper bag"): a ranking or a
    measure read only from inside it is the name's ("rose" is no growth, "shopper" no count of
    customers) and is dropped; one the question also says outside the name stays ("how many
    customers bought the pink love shopper bag?")."""
    inside = {stem(w) for name in names for w in normalize(name).split()}
    rest = normalize(asked)
    for name in names:
        rest = rest.replace(normalize(name), " ")

    def said(term: str) -> bool:
        return re.search(rf"\b{re.escape(term)}\b", rest) is not None

    def named(term: str) -> bool:
        return {stem(w) for w in term.split()} <= inside

    def only_inside(parameter: str) -> bool:
        terms = vocabulary.choices(parameter)
        return any(named(t) for t in terms) and not any(said(t) for t in terms)

    for parameter in _RANKED:
        if parameter in arguments and only_inside(parameter):
            del arguments[parameter]
    # the comparison a ranking by growth asked for, not said on its own
    if only_inside("rank_by") and not any(said(t) for t in vocabulary.choices("compare")):
        arguments.pop("compare", None)
    measure = [t for t, c in vocabulary.choices("measure").items() if c == arguments.get("measure")]
    if any(named(t) for t in measure) and not any(said(t) for t in measure):
        del arguments["measure"]
