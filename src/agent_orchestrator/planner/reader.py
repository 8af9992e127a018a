"""Read a question into the arguments of a query tool, and say what of it was not understood.

The reader marks every part of the question it used: periods (``periods``), the tool's entity names
(countries as stored, with their aliases), ids ("customer 12345"), quoted names, and the words the
schema lists for each choice of ``measure``, ``group_by``, ``order`` and ``compare``
(``vocabulary``). What is left, less common English, is either the words of a product (handed to the
tool, which matches it against the data) or not understood: then the reading does not cover the
question, and the guide says so instead of guessing. A follow-up ("and in France?", "how many
orders was that?") starts from the previous reading and changes only what it names.
"""

from __future__ import annotations

import calendar
import difflib
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from .periods import (
    CALENDAR_WORDS,
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
from .vocabulary import Vocabulary

COMMON = frozenset(
    """a an the of in on at to for from by with and or but than then so as is are was were be been being am
    do does did done have has had what which who whom whose how many much when where why there here this
    that these those it its they them their our ours we us you your i me my mine please show give tell
    list let know get got see find look want need can could would should will shall may might about over
    under into out up down all any some each every total overall whole entire number count amount figure
    figures so far ever time times during between across among per vs also just only again same
    other another more most less least very really quite overall grand sum ok okay thanks hi hello now
    compared compare comparison against versus change changed difference performed perform did make made
    bring brought bringing brings generate generated generates come comes came account contribute
    contributed contributes place placed put buy bought purchase purchased spend spent sold sell selling
    value level whats what's hows how's rank ranked ranking biggest largest number one top bottom best
    worst first last previous prior preceding data shop store business company us our customers' like look
    looking break breakdown split something anything everything someone anyone stuff thing things
    everywhere anywhere everyone everybody
    ask asked tell told say said mention mentioned remember recall conversation chat question questions
    answer answered different distinct unique individual separate big large small together combined
    altogether jointly buys buying purchasing spends spending ordered ordering bigger larger smaller higher
    lower greater better worse take took taken receive received one ones i'd i'm i've we'd we're let's
    quick quickly brief briefly short instead rather nr num pls plz thx thanks
    go goes going went gone if behind coming different question raise raised raising
    theirs yours hers""".split()  # noqa: SIM905
)
"""Common English: never a product's words, never a sign of a misreading. Calendar words are not
among them: "orders last week" or "revenue since 2024" read without their period would be a silent
misreading, so a calendar word the periods did not use leaves the question not understood."""

_THAT_PERIOD = re.compile(r"\b(?:that|the same)\s+(?:day|week|month|quarter|year|period|time)\b")
"""The previous answer's period, said again: the follow-up keeps it ("this month" is the latest)."""
_NEW_QUESTION = re.compile(
    r"\b(?:different|new|another|separate|unrelated|other)\s+(?:question|topic|subject)\b|\bchanging\s+(?:the\s+)?subject\b"
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
_CALENDAR_NAMES = frozenset(
    m.lower()
    for m in (*calendar.month_name, *calendar.month_abbr, *calendar.day_name, *calendar.day_abbr)
    if m
)
"""Capitalised, but never a product's name ("What share of 2024 came in July?")."""


def _about(arguments: dict[str, Any], one: tuple[str, str], vocabulary: Vocabulary) -> dict[str, Any]:
    """The follow-up's reading about the previous answer's one row instead of its ranking: the
    customer, country, product, segment or period that row is."""
    dimension, key = one
    about = {k: v for k, v in arguments.items() if k not in ("group_by", "order", "limit", "rank")}
    if f"{dimension}_id" in vocabulary.parameters and key.isdigit():
        about[f"{dimension}_id"] = int(key)
    elif plural := next((p for p in vocabulary.entities if _singular(p) == dimension), None):
        about[plural] = [key]
    elif dimension == vocabulary.free_text:
        about[dimension] = key
    elif dimension in ("month", "day", "year"):
        about["period"] = key
    else:
        return arguments
    return about


def _singular(parameter: str) -> str:
    """ "countries" -> "country", "segments" -> "segment": a list parameter's dimension."""
    return re.sub(r"ies$", "y", parameter).removesuffix("s")


_RANGE = re.compile(r"\b(?:from|between)\b(.+?)\b(?:to|and|until|through)\b(.+)")
_GROUP_CUES = (
    r"(?:which|what|top|bottom|best|worst|biggest|largest|smallest|leading|highest|lowest|most|least|by|per"
    r"|each|every|rank|ranked|strongest|weakest|busiest|quietest|who)"
)


@dataclass
class Reading:
    arguments: dict[str, Any] = field(default_factory=dict)
    not_understood: list[str] = field(default_factory=list)
    not_in_data: list[str] = field(default_factory=list)
    asks: bool = False
    """The question names something to compute (a measure, a ranking, a share, a comparison)."""
    follow_up: bool = False
    qualifying: bool = False
    """The measure word only qualifies a name ("and from At Risk customers?"): a follow-up keeps the
    measure it had."""
    unknown_kind: str | None = None
    """The list an unknown name was called one of ("the Champions segment": ``segments``)."""
    several: list[str] = field(default_factory=list)
    """Another figure asked for beside the measure ("revenue and orders"): one query gives one."""
    split_by: list[str] = field(default_factory=list)
    """A kind of customer (a measure's name) the measure would be split by ("revenue from new
    customers"): the tool counts them, it does not filter by them."""
    unpaired: bool = False
    """It asks about the last two answers together, and they differ in more than one period or one
    name: no one query puts them side by side."""
    conflicts: list[str] = field(default_factory=list)
    """Words that rank two ways at once ("of our ten biggest countries, which placed the fewest
    orders?"): one query cannot read them."""


class _Marks:
    """Which characters of the question a reading used."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.used = [False] * len(text)
        self.qualifiers: set[int] = set()
        """Where a noun says whose a name is ("UK customers"): never a breakdown by it."""

    def take(self, start: int, end: int) -> None:
        for i in range(start, end):
            self.used[i] = True

    def free(self, start: int, end: int) -> bool:
        return not any(self.used[start:end])

    def find(self, phrase: str) -> list[tuple[int, int]]:
        pattern = re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])")
        return [m.span() for m in pattern.finditer(self.text) if self.free(*m.span())]

    def left(self) -> list[tuple[str, int]]:
        """Words not used, with their positions."""
        return [
            (m[0], m.start())
            for m in re.finditer(r"[a-z0-9][a-z0-9'&.+-]*", self.text)
            if self.free(*m.span())
        ]


def normalize(question: str) -> str:
    text = question.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[?!,;:()]", " ", text)
    text = re.sub(r"\bper cent\b", "percent", text)
    text = re.sub(r"\b(is|are|was|were|do|does|did|has|have|had)n't\b", r"\1 not", text)  # "aren't"
    text = re.sub(r"\b(excl|incl|approx|vs)\.(?=\s)", r"\1", text)  # "revenue excl. France"
    text = re.sub(r"\b([a-z])\.([a-z])\.(?:([a-z])\.)?(?!\w)", r"\1\2\3", text)  # "u.k." is "uk"
    text = re.sub(r"\bnon-(?=\w)", "non ", text)  # "non-UK customers": "non" is an exclusion cue
    text = re.sub(r"(?<=\w)'s\b", "", text)  # "france's revenue": the possessive names the country
    # "best-selling", "lowest-revenue": the superlative and its word
    text = re.sub(r"\b(best|top|worst|least|most|fastest|slowest|\w+est)-(?=[a-z])", r"\1 ", text)
    return re.sub(r"\s+", " ", text).strip().rstrip(".")


_EXCLUDED_AFTER = ("excluded", "not included", "left out", "aside")
"""Words after a name that leave it out ("total sales, 2025, uk excluded")."""


def _spelled(text: str, vocabulary: Vocabulary, original: str = "") -> tuple[str, dict[str, str]]:
    """Typos of the tool's own words corrected ("custmers" -> "customers"): only words of five letters
    or more, only to a known word that is close (difflib ratio 0.8, 0.85 for words of three or four
    letters), never a word already known. With the corrections made (corrected -> as typed): a word
    the reading then does not understand is reported as the user typed it ("slice", not "since")."""
    known = set(COMMON) | set(NUMBER_WORDS) | set(ORDINALS)  # "three" is no typo of "there"
    known |= CALENDAR_WORDS  # "christmas eve" is no "christmas ever"
    known |= {w for p, terms in vocabulary.terms.items() if p != "rank_by" for t in terms for w in t.split()}
    known |= {w for cues in vocabulary.cues.values() for c in cues for w in c.split()}  # "leaving"
    known |= {w for phrase in _EXCLUDED_AFTER for w in phrase.split()}  # "excluded" is no "exclude"
    known |= {w for names in vocabulary.entities.values() for n in names for w in n.split()}
    targets = sorted(w for w in known if len(w) >= 3)
    # a verb of change is known but no typo target: "deadline" is not "declined"
    known |= {w for t in vocabulary.choices("rank_by") for w in t.split()}
    if not original.isupper():  # a name in capitals ("CHARLIE+LOLA LUNCH BOX") is no typo
        known |= {w.lower() for w in re.findall(r"\b[A-Z]{2,}\b", original)}
    words, corrected = [], {}
    for word in text.split(" "):
        if len(word) >= 3 and word.isalpha() and word not in known:
            # a short word needs a closer match: "whch" is "which", "totl" "total", "mny" "many"
            close = difflib.get_close_matches(word, targets, n=1, cutoff=0.8 if len(word) >= 5 else 0.85)
            if close:
                corrected[close[0]] = word
                word = close[0]
        words.append(word)
    return " ".join(words), corrected


_TYPO_PRONE = {"mnay": "many", "hwo": "how", "waht": "what", "wat": "what", "wht": "what", "teh": "the",
               "hw": "how", "revnue": "revenue", "abt": "about", "bout": "about",
               "thru": "through", "qty": "quantity", "diff": "different", "gimme": "give me",
               "v": "vs", "no.": "number of"}  # fmt: skip
"""Short transpositions difflib's length rule leaves alone (four letters or fewer)."""


def read(
    question: str,
    vocabulary: Vocabulary,
    previous: dict[str, Any] | None = None,
    placed: str | None = None,
    listed: Sequence[tuple[str, str]] = (),
    prior: tuple[dict[str, Any], str | None] | None = None,
) -> Reading:
    """The reading of ``question``; ``previous`` is the last query's arguments (a follow-up's base),
    ``placed`` its period as the tool placed it on the data's calendar (``2025`` for "latest year")
    and ``listed`` the rows it answered with (``[("customer", "22353")]``): what "they" in "how much
    have they spent?" or "the first one" is. ``prior`` is the query before it, with its placed
    period: "which was higher?" after two answers puts the two side by side."""
    original = question
    text = normalize(question)
    text = " ".join(_TYPO_PRONE.get(w, w) for w in text.split(" "))
    text, corrected = _spelled(text, vocabulary, original)
    marks = _Marks(text)
    reading = Reading()
    args = reading.arguments
    quoted = re.findall(r"[\"“]([^\"”]{2,80})[\"”]", original)
    for phrase in quoted:
        for span in marks.find(phrase.lower()):
            marks.take(*span)
    if quoted and vocabulary.free_text:
        args[vocabulary.free_text] = quoted[0].strip()
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
    unplaced = _read_periods(text, marks, args, vocabulary, stepped=bool(steps))
    if steps and "period" in args and "compare" not in args:  # "April 2025 vs the same month last year"
        args["compare"] = steps[0][1]
    _read_entities(marks, args, vocabulary, original)
    _read_ids(text, marks, args, vocabulary)
    _among(text, marks, args, vocabulary)
    choices = _read_choices(text, marks, vocabulary, reading)
    counted = f"{choices.get('group_by')}s"
    if "among_top" in args and "measure" not in choices and counted in vocabulary.choices("measure").values():
        choices["measure"] = counted  # "which of the top 3 countries has the most customers?"
    args.update({k: v for k, v in choices.items() if k not in args})  # two periods say which comparison
    over = re.search(r"\b(day|week|month|quarter|year) over \1\b|\b(yoy|mom|qoq)\b", text)
    if over and "period" not in args:  # "quarter over quarter": the latest quarter against the one before
        unit = over[1] or {"yoy": "year", "mom": "month", "qoq": "quarter"}[over[2]]
        args["period"] = "last 7 days" if unit == "week" else f"latest {unit}"
    _side_by_side(text, args, vocabulary)
    _read_flags(marks, args, vocabulary)
    if unplaced is not None and args.get("share") and "share_of" in vocabulary.parameters:
        _share_of(args, unplaced, marks)
    if (
        unplaced is not None
        and "share_of" not in args
        and "compare_with" in vocabulary.parameters
        and (_COMPARING.search(text) or _BETWEEN_NAMES.search(text))
    ):  # "orders in May 2025 compared to September 2025": any two periods
        args["compare_with"] = unplaced.period
        args.pop("compare", None)
        marks.take(*unplaced.span)
    _read_limit(text, marks, args, vocabulary)
    _read_rank(text, marks, args, vocabulary)
    if (
        args.get("group_by") in ("month", "day", "year")
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
            r"\b(?:from|of|do|does|did|for|by)\s+(?:the|our|my)\s+(?:top|biggest|largest|best)\b", text
        )
        and not _EACH.search(text)
    ):
        args["together"] = True  # "what share of revenue comes from our top 10 customers?": one figure
    reading.asks = any(k in args for k in ("measure", "group_by", "share", "compare"))
    if not reading.asks and re.match(r"\s*how much\b", text) and set(args) - {"order"}:
        reading.asks = True  # "how much did the states buy from us in 2025?": the tool's own measure
    that_row = previous is not None and bool(listed) and _take_that_row(text, marks, listed, vocabulary)
    if previous is not None and isinstance(previous.get("period"), str):
        for found in _THAT_PERIOD.finditer(text):  # "how many customers did it have that month?"
            if marks.free(*found.span()):
                marks.take(*found.span())
    _leftovers(marks, reading, vocabulary, original)
    _dangling_cues(marks, reading, vocabulary)
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
        or bool(_FOLLOW_UP.search(text))
        or (bool(_ENDS_REFERRING.search(text)) and not scoped)
        or (
            previous is not None
            and isinstance(previous.get("period"), str)
            and bool(_THAT_PERIOD.search(text))
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
        pair = _pair(previous, placed, prior, vocabulary) if prior is not None else None
        reading.arguments, reading.not_understood = pair or {}, []  # "two" is the pair's word
        reading.unpaired = pair is None
        return reading
    if reading.follow_up and previous is not None:
        _by_measure(text, previous, args, vocabulary)
        reading.arguments = _merge(previous, args, text, placed, qualifying=reading.qualifying)
        _beside(previous, args, reading.arguments, text, vocabulary)
        row = _referred_row(text, listed, vocabulary)
        if row is not None and "group_by" not in args:
            reading.arguments = _about(reading.arguments, row, vocabulary)
        elif row is not None and args["group_by"] != row[0] and len(listed) == 1:
            # "where are they based?" of the one customer named: that customer, by country
            about = _about(reading.arguments, row, vocabulary)
            if about is not reading.arguments:
                reading.arguments = about | {k: args[k] for k in ("group_by", "order", "limit") if k in args}
        elif "group_by" in reading.arguments and "limit" not in args and "rank" not in args:
            _read_limit(text, _Marks(text), reading.arguments, vocabulary)
            if re.search(
                r"\b(?:which|what|who)\s+(?:one\s+|of\s+(?:those|these|them|the\s+\w+)\s+)?"
                r"(?:was|is|had|has|did|came|grew|rose|fell|declined|dropped|sold|sells|made)\b",
                text,
            ):
                reading.arguments["limit"] = 1  # "which was highest?": one of the rows before
                if "order" not in args and (direction := _COMPARATIVE.search(text)):
                    reading.arguments["order"] = "lowest" if direction[1] else "highest"
        _per_previous(text, previous, reading.arguments, vocabulary)
        merged = reading.arguments
        if (
            merged.get("share")
            and "share" not in previous
            and (previous.get("limit") or 0) >= 2
            and re.search(r"\b(?:theirs|their|they|them|those|these)\b", text)
            and "together" in vocabulary.parameters
        ):
            merged["together"] = True  # "and what share was theirs?" of the top 3 just listed
        free = vocabulary.free_text
        if (
            "group_by" not in merged
            and free
            and isinstance(previous.get(free), str)
            and re.search(r"\bwhich\s+(?:one|of\s+(?:them|those|these))\b", text)
        ):
            merged.update(group_by=free, limit=1)  # "which one sells best?" of the products matching
        if "group_by" in args and merged.get("measure") == "overview" and "measure" not in args:
            del merged[
                "measure"
            ]  # "which countries buy it most?" after "tell me about X": ranked by a figure
        if _EACH.search(text):
            reading.arguments.pop("together", None)  # "and their shares?": row by row again
        _whole_of(text, marks, args, reading, placed)
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
            and _singular(parameter) in vocabulary.choices("group_by").values()
        ):
            return previous | {parameter: names, "group_by": _singular(parameter)}
    return None


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
        if len(before_) == 1 and len(named) == 1 and before_ != named and _singular(parameter) in dimensions:
            merged[parameter] = before_ + named
            merged["group_by"] = _singular(parameter)
            if "period" not in new:
                merged.pop("compare", None)
            return


_WHOLE_OF = re.compile(
    r"\b(?:for|in|over|of)\s+(?:the|that)\s+(?:whole\s+|full\s+|entire\s+)?(year|quarter|month)\b"
)
_TOTAL = re.compile(r"\b(?:total|overall|altogether|in all|combined)\b")


def _whole_of(text: str, marks: _Marks, new: dict[str, Any], reading: Reading, placed: str | None) -> None:
    """ "What was the total for the year?" after a month by month answer: the figure of the whole
    year (quarter, month) the previous period lies in, without the breakdown."""
    merged = reading.arguments
    period = str(merged.get("period") or placed or "")
    unit = _WHOLE_OF.search(text)
    if unit and "period" not in new and re.match(r"\d{4}", period):
        months = {"year": 4, "month": 7}
        if unit[1] in months:
            merged["period"] = period[: months[unit[1]]] if len(period) >= months[unit[1]] else period
        elif found := re.match(r"(\d{4})-(?:Q([1-4])|(\d{2}))", period):
            quarter = found[2] or str((int(found[3]) - 1) // 3 + 1)
            merged["period"] = f"{found[1]}-Q{quarter}"
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


def _among(text: str, marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "Of our ten biggest countries by revenue, which one placed the fewest orders?": a ranking
    among the top N by a measure of their own (``among_top``, ``among_by``), not two at once."""
    if "among_top" not in vocabulary.parameters:
        return
    groups, measures = vocabulary.choices("group_by"), vocabulary.choices("measure")
    highs = [t for t, v in vocabulary.choices("order").items() if v == "highest" and " " not in t]
    nouns = [t for t in groups if " " not in t and t.endswith("s")]
    if not (highs and nouns):
        return
    high = "|".join(map(re.escape, sorted(highs, key=len, reverse=True)))
    noun = "|".join(map(re.escape, sorted(nouns, key=len, reverse=True)))
    by = "|".join(map(re.escape, sorted(measures, key=len, reverse=True)))
    count = rf"(\d{{1,2}}|{'|'.join(NUMBER_WORDS)})"
    found = re.search(
        rf"\b(?:of|among|amongst|out of|from|within)\s+(?:our|the|these|those)?\s*"
        rf"(?:(?:{high})\s+{count}|{count}\s+(?:{high}))\s+({noun})\b(?:\s+(?:by|in)\s+({by})\b)?",
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
    args["group_by"], args["among_top"] = groups[found[3]], top
    if found[4]:
        args["among_by"] = measures[found[4]]
    if re.search(r"^\W*(?:which|what|who)\b(?!\s+(?:ones|two|three|four|five|\d))", text[found.end() :]) or (
        text.startswith(("which ", "what ", "who "))
    ):
        args["limit"] = 1  # "…, which one placed the fewest orders?": one of them


def _that_nouns(listed: Sequence[tuple[str, str]], vocabulary: Vocabulary) -> str:
    """The nouns of the listed rows' dimension ("month", "customer"), as a pattern."""
    dimension = listed[0][0]
    nouns = [t for t, v in vocabulary.choices("group_by").items() if v == dimension and " " not in t]
    return "|".join(re.escape(n) for n in nouns or [dimension])


def _take_that_row(
    text: str, marks: _Marks, listed: Sequence[tuple[str, str]], vocabulary: Vocabulary
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
    if found := _ORDINAL_ONE.search(text):
        place = {"first": 0, "top": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4}.get(found[1], -1)
        return listed[place] if -len(listed) <= place < len(listed) else None
    return listed[0] if len(listed) == 1 and _PRONOUN.search(text) else None


def _read_periods(
    text: str, marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary, *, stepped: bool = False
) -> Found | None:
    """The period, or a range or a comparison of two; a second period it could not place is returned
    (a share may be of it: "what % of 2011's revenue came in October?"). ``stepped``: the question
    steps back from its period ("… vs the period before"), so two periods are its range's ends."""
    found = [f for f in find_periods(text) if marks.free(*f.span)]  # not a step back already read
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


def _in_measure_words(marks: _Marks, start: int, end: int, vocabulary: Vocabulary, original: str) -> bool:
    """ "How many new customers did we win?": a name inside a measure's words ("new customers") is
    part of them, unless it is written as a name, capitalised inside the sentence ("New customers" as
    the question's first words is the measure; "our New customers" the segment)."""
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


def _read_entities(marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary, original: str) -> None:
    for parameter, names in vocabulary.entities.items():
        excluded = vocabulary.excluded_of.get(parameter)
        cues = vocabulary.cues.get(excluded or "", [])
        found: list[tuple[int, int, str]] = []
        for name in sorted(names, key=len, reverse=True):
            if name in COMMON and not re.search(rf"\b{re.escape(name.upper())}\b", original):
                continue  # "us" is a country only when written "US"
            for start, end in marks.find(name):
                if _longer_name(name, original) or _in_measure_words(marks, start, end, vocabulary, original):
                    continue  # "New Zealand" is no "New" segment, nor are "new customers"
                marks.take(start, end)
                found.append((start, end, names[name]))
        excluding_until: int | None = None  # "excluding Germany and France": the list goes on
        for start, end, stored in sorted(found):
            cue = _cue_before(marks, start, cues)
            after = re.match(rf"\s+(?:{'|'.join(_EXCLUDED_AFTER)})\b", marks.text[end:]) if excluded else None
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
                and not re.search(rf"{_GROUP_CUES}\W+(?:\w+\W+){{0,3}}$", marks.text[:start])
            ):  # "top 5 UK customers" ranks the customers; "how many UK customers" counts them
                marks.qualifiers.add(end + noun.start(1))
            if stored not in args.setdefault(target, []):
                args[target].append(stored)


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


def _cue_before(marks: _Marks, start: int, cues: list[str]) -> int | None:
    """Where an exclusion cue ends right before ``start`` ("apart from the UK"), if one does."""
    head = marks.text[:start]
    for cue in sorted(cues, key=len, reverse=True):
        found = re.search(  # "besides those in the UK"
            rf"(?<!\w){re.escape(cue)}(?:\s+(?:those|the ones|ones|people|buyers|customers))?"
            rf"(?:\s+(?:of|for|in|from|to|by|at))?(?:\s+the)?\s*$",
            head,
        )
        if found:
            return found.start()
    return None


def _read_ids(text: str, marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    for word, parameter in vocabulary.ids.items():
        for found in re.finditer(rf"\b{re.escape(word)}s?\s*(?:id|number|no\.?|#)?\s*#?(\d{{3,12}})\b", text):
            if marks.free(found.start(1), found.end(1)):
                args[parameter] = int(found[1])
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


def _read_choices(text: str, marks: _Marks, vocabulary: Vocabulary, reading: Reading) -> dict[str, Any]:
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
    leaving = "|".join(
        re.escape(c) for p, cues in vocabulary.cues.items() if p.startswith("exclude_") for c in cues
    )
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
        and start not in marks.qualifiers
        and start + len(term) + 1 not in heads  # "the customer segments": the last noun is the dimension
        and _groups_by(text, start, term)
    ]
    group_starts = set()
    if groups:
        start, term, value = min(groups)
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
    for s, t, _ in hits.get("group_by", []):  # "revenue for all countries except the UK": the scope
        if (
            s not in group_starts
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
    counts = {_singular(m): m for m in vocabulary.choices("measure").values()}
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
        _other_measures(text, measures, chosen["measure"], reading)
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


def _other_measures(text: str, measures: list[tuple[int, str, str]], chosen: str, reading: Reading) -> None:
    """Measures named beside the one chosen that one query cannot honour: two figures asked at once
    ("revenue and orders"), or a kind of customer the chosen figure would have to be split by
    ("revenue from new customers"). A plain noun that only qualifies ("orders from customers") is fine."""
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
        elif " " in t and "_" in v:
            reading.split_by.append(v)


_PASSIVE = r"\s+(?:that\s+|which\s+)?(?:were|was|got|been|have been|had been|are|is|being)\s+"
_ASKED_FOR = re.compile(
    r"(?:how many|number of|count of|how much|share of|percentage of|percent of|proportion of|fraction of"
    r"|% of|total|amount of|in terms of)\s+"
    rf"(?:(?:our|the|all|different|distinct|unique|(?:19|20)\d{{2}}|{'|'.join(_CALENDAR_NAMES)})\s+){{0,3}}$"
)
"""The words before the measure asked for; a period may stand between ("what share of 2025 orders")."""
_SHARE_OF = re.compile(
    r"\b(?:share|percentage|percent|proportion|fraction|portion|slice) of\s+(?:\S+\s+){0,3}$"
)
"""A share's measure comes soon after it, names between ("share of Ireland revenue from …")."""
_QUALIFYING = re.compile(
    r"\b(?:from|among|by|to|for|of|with)\s+(?:(?:our|the|all|those|these)\s+)?(?:\S+\s+){0,2}$"
)


def _measure_rank(text: str, hit: tuple[int, str, str], vocabulary: Vocabulary) -> int:
    """Which of several measure words the question asks for: the one after "how many", "share of"
    (0) before a plain one (1) before one that only qualifies another: "revenue from High Value
    customers", "orders among our customers" (2)."""
    head = text[: hit[0]]
    by = re.search(r"\b(?:by|in terms of)\s+(?:the\s+)?(?:number of\s+)?$", head)
    if _ASKED_FOR.search(head) or _SHARE_OF.search(head) or by:
        return 0  # "the least popular countries by orders": the measure named after "by"
    names = (n for entities in vocabulary.entities.values() for n in entities)
    if _QUALIFYING.search(head) or any(head.endswith(f"{n} ") for n in names):
        return 2
    return 1


_WHICH_MORE = re.compile(r"\bwhich\b.*\b(?:more|most|less|fewer|higher|bigger|better|larger)\b|\bwho\b")
"""Which of the names named is ahead ("Ireland or Germany, which had more customers?")."""
_BETWEEN_NAMES = re.compile(r"\b(?:or|than|versus|vs|compared to|compared with|against)\b")


def _side_by_side(text: str, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    """ "France vs Germany": a comparison of two names, not of two periods, is a breakdown by their
    dimension, limited to them."""
    if args.get("compare") != "previous_period" and not (
        _BETWEEN_NAMES.search(text) or _COMPARING.search(text) or _WHICH_MORE.search(text)
    ):
        return  # "Compare Germany and France", "Germany vs France": the names side by side
    if len(find_periods(text)) >= 2:
        return  # "France, 2025 vs 2024" compares periods; "Germany vs France in 2025" compares names
    dimensions = set(vocabulary.choices("group_by").values())
    measures = set(vocabulary.choices("measure").values())
    for parameter in vocabulary.entities:
        dimension = _singular(parameter)
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


def _share_of(args: dict[str, Any], other: Found, marks: _Marks) -> None:
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


def _read_flags(marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    for parameter, cues in vocabulary.cues.items():
        if parameter.startswith("exclude_"):
            continue
        for cue in cues:
            spans = (
                marks.find(cue)
                if cue != "%"
                else [(m.start(), m.end()) for m in re.finditer("%", marks.text)]
            )
            if spans:
                args[parameter] = True
                for span in spans:
                    marks.take(*span)


def _read_limit(text: str, marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
    if "group_by" not in args:  # "show me the top 3 instead": a follow-up's ranking, cut anew
        if found := re.search(r"\b(top|bottom)\s+(\d{1,2})\b", text):
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
    time = group in {"month", "day", "year"}
    # "which country", "the best day", "our busiest month", "the best-selling item": one; "which
    # months", "by month": all. The dimension by any of its single names (an item is a product).
    names = [t for t, v in vocabulary.choices("group_by").items() if v == group and not t.endswith("s")]
    noun = "(?:" + "|".join(re.escape(n) for n in names or [group]) + ")"
    which = re.search(rf"\b(?:which|what)\s+(?:\w+\s+){{0,{1 if time else 2}}}{noun}\b(?!s)", text)
    best = re.search(  # "busiest day in 2025" opens with its superlative
        rf"(?:^|\b(?:the|our|its|my)\s+)(?:\w+est|most|least|top|best|worst|number one)\s+(?:\w+\s+){{0,2}}"
        rf"{noun}\b(?!s)",
        text,
    )
    if (
        which
        or best
        or (time and args.get("order") == "lowest")
        or re.search(r"\bthe\s+(?:\w+est|best|worst|top|number one)\s*$", text)
    ):
        args["limit"] = 1


def _named(left: list[tuple[str, int]], original: str) -> bool:
    """The words left are one name, capitalised as names are ("sales figures for Mexico", "the
    Lunch Bag Red"), not the question's first word: the tool looks it up and says if the data has none."""
    words = [w.rstrip(".") for w in re.findall(r"[A-Za-z0-9][\w'&.+-]*", original)]
    capitalised = {w.lower() for w in words[1:] if w[0].isupper()} - _CALENDAR_NAMES
    return all(w in capitalised for w, _ in left) and len(left) <= 8


def _read_rank(text: str, marks: _Marks, args: dict[str, Any], vocabulary: Vocabulary) -> None:
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


def _leftovers(marks: _Marks, reading: Reading, vocabulary: Vocabulary, original: str) -> None:
    """Words the reading did not use: a subject the tool says the data lacks, a product's words
    (only after the word "product" or the like: a guess would turn any misread word into a product
    lookup), or not understood. A number left over (an id without its label) is not understood."""
    free = vocabulary.free_text
    cues = [t for t, v in vocabulary.choices("group_by").items() if v == free]
    left = [(w, at) for w, at in marks.left() if w not in COMMON and not (w.isdigit() and len(w) < 3)]
    if free in reading.arguments:  # a quoted name: "the product" before it is part of it
        left = [(w, at) for w, at in left if w not in cues]
    left = _excluded_name(marks, left, reading, vocabulary, original)
    heads = set(vocabulary.not_in_data) | {s.split()[0] for s in vocabulary.not_in_data}  # "stock"
    subjects = heads | {re.sub(r"s$", "", s) for s in heads}  # "forecast" for "forecasts"
    for word, _ in left:
        stem = re.sub(r"s$", "", word)
        if word in subjects or stem in subjects:
            reading.not_in_data.append(word)
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
        name = [w for w in inside if w in words or w.isdigit() or as_written.get(w, w)[:1].isupper()]
        reading.arguments[free] = " ".join(as_written.get(w, w) for w in name)
        if reading.arguments.get("group_by") == free:
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
    kinds = {_singular(dimensions[w]) for w, _ in nouns} | {dimensions[w] for w, _ in nouns}
    reading.unknown_kind = next((p for p in vocabulary.entities if _singular(p) in kinds), None)


def _dangling_cues(marks: _Marks, reading: Reading, vocabulary: Vocabulary) -> None:
    """An exclusion cue of common words ("other than") that left nothing out: read without it, the
    question would include what it asked to leave out, so the reading does not cover it."""
    for parameter, cues in vocabulary.cues.items():
        if not parameter.startswith("exclude_"):
            continue
        for word, id_parameter in vocabulary.ids.items():  # "everyone except customer 23160"
            if f"exclude_{id_parameter}" in vocabulary.parameters or id_parameter not in reading.arguments:
                continue
            cue = "|".join(map(re.escape, sorted(cues, key=len, reverse=True)))
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
    marks: _Marks, left: list[tuple[str, int]], reading: Reading, vocabulary: Vocabulary, original: str
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
            run, at = [], found.end()
            for word, start in left:
                if start == at:
                    run.append((word, start))
                    at = start + len(word) + 1
            if not run:
                continue
            as_written = {w.lower(): w for w in re.findall(r"[A-Za-z0-9][\w'&+-]*", original)}
            reading.arguments[excluded] = " ".join(as_written.get(w, w) for w, _ in run)
            marks.take(found.start(), run[-1][1] + len(run[-1][0]))
            cue_words = {(m[0], found.start() + m.start()) for m in re.finditer(r"\S+", found[0])}
            return [item for item in left if item not in run and item not in cue_words]
    return left


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
        if back and _COMPARING.search(text):
            merged["compare"] = back  # "how does that compare with a year earlier?": both periods
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
