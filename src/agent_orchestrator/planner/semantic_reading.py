"""A question read into a semantic query over the dataset's own model, linked in code.

What the question names is found in the data and the model (``semantic.Vocabulary``: a region, a
customer's name, "profit", "by state"), its periods by ``periods`` and placed on the data's own
calendar, and the few words that shape a query -- a ranking ("top 5", "lowest"), an exclusion
("outside California"), a share, a comparison, a count ("how many orders") -- are the query
language's own, not any dataset's. Every word of the question must be used by the reading or be
common English: a word left over means the reading does not cover the question and nothing is
guessed (docs/architecture.md#answers-by-construction). A follow-up patches the previous query:
it changes what it names and keeps the rest.

Nothing here knows a dataset: a new column, value or metric is read with no code change.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any

from agent_orchestrator.retail.analysis.query import (
    Period,
    PeriodError,
    day_period,
    month_period,
    parse_period,
    quarter_period,
    year_period,
)
from agent_orchestrator.semantic import Column, Entity, Kind, Metric, Role, SemanticModel, Vocabulary
from agent_orchestrator.semantic.english import is_english
from agent_orchestrator.semantic.model import COUNT_PREFIX, plural
from agent_orchestrator.semantic.query import GRAIN_WORDS, MAX_ROWS
from agent_orchestrator.semantic.suggest import PLAN_WORDS
from agent_orchestrator.semantic.vocabulary import Found, Mention, normalise, root, singular

from .correlation import correlation_asked
from .every_period import each_period, every_period
from .periods import CALENDAR_WORDS, NUMBER_WORDS, ORDINALS, find_periods
from .query_phrases import (
    LEAVING_OUT,
    VALUE,
    YES_OR_NO,
    ages,
    attribute_asked,
    blanks,
    columns_compared,
    done_or_not,
    hours_of_day,
    lower_run,
    money_of,
    months_left_out,
    names_holding,
    numbered_ranges,
    of_the_named_column,
    place_column,
    score_column,
    weekdays,
    years_left_out,
)
from .ratios import ratio_asked, with_ratio
from .row_reference import RowReference, named_row, referred_row
from .words import (
    COMMON,
    MONTH_NAMES,
    QUOTED,
    TYPO_PRONE,
    base_forms,
    correction,
    is_plain,
    normalize,
    other_vowel,
    short_word,
)


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_HIGH = _words(
    "top best most highest biggest largest greatest leading strongest max maximum more higher busiest peak"
    " deepest steepest heaviest fastest quickest"
)
_LOW = _words(
    "bottom worst least lowest smallest fewest weakest min minimum less lower poorest quietest slowest"
    " thinnest slimmest"
)
_JUDGED = _words("best better strongest worst worse weakest poorest fastest quickest slowest")
"""Ranking words that judge rather than measure: which way is good is the metric's (``better``)."""
_RANKING = _HIGH | _LOW | {"rank", "ranked", "ranking", "which", "who", "whom"}
_BUSY = _words("busiest busy quietest quiet slowest used use uses often frequently commonly common frequent")
"""How busy a time or a place is, how much a way of doing is used ("which ship mode gets used the
most?"): how many orders it had, not how much they came to."""
_SHARE = _words("share percentage percent proportion portion fraction")
_SHARE_OF = re.compile(
    r"(?:\b(?:share|percentage|percent|proportion|portion|fraction)|%)\s+of\s+(?P<whole>.+?)\s+"
    r"(?:came|comes|come|was|were|is|are|did|does|do|went|goes|go|made)\b"
)
"""A share of a whole the question names, and the part it asks about after it."""
_SPLIT = re.compile(
    r"\b(?:split|mix|breakdown|distribution)\b.*(?:%|\bpct\b)|%\s*(?:split|mix|breakdown|distribution)\b"
)
"""How a whole divides among groups, asked in % ("the decaf vs regular split of sales in %")."""
_YEAR_BACK = re.compile(
    r"\b(?:year over year|year on year|yoy|a year (?:earlier|before|ago)|the year before|previous year"
    r"|prior year|same (?:month|quarter|period|time|week|day) last year)\b"
)
_A_LOT = re.compile(
    r"\b(?:a\s+(?:lot|bit|little)|lots)\b(?=\s+(?:more|less|bigger|smaller|higher|lower|better|worse)\b)"
)
_SAME_LAST_YEAR = re.compile(r"\b(?:the\s+)?same\s+(?:month|quarter|period|time|week|day)\s+last\s+year\b")
_STEP_BACK = re.compile(
    r"\b(?:month over month|mom|quarter over quarter|qoq|previous (?:month|quarter|period)"
    r"|prior (?:month|quarter|period)|(?:the\s+)?(?:month|quarter|period|week|day) before)\b"
    r"(?!\s+(?:that|it|this))"
)
_GROWTH = _words("growth grow grew grown change changed increase increased decrease decreased")
_AS_RATE = re.compile(
    r"\b(?:fastest|slowest|quickest|rate|rates|percent|percentage|pct|relative|relatively)\b|%"
    r"|\b(?:grew|grow|growing|growth|shrank|declined|fell)\s+(?:the\s+)?(?:fastest|slowest|quickest|most\s+in\s+%)"
)
"""A change asked as a rate ("which product grew fastest?", "biggest % growth"): of the earlier figure."""
_COUNTING = re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b|\bcount\b")
_BY_COUNT = re.compile(r"\bby\s+(?:the\s+)?(?:number|count)\s+of\b")
"""A count a ranking is by ("top products by number of units sold"), which asks no count."""
_RECENCY = re.compile(
    r"\b(?:not|no|zero|n't|never|without|hasn't|haven't|didn't|stopped)\b"
    r"(?!\s+(?:count|counting|include|including|incl|cancell?ed|refunded|returned)\b)"
    r"(?:(?!\b(?:what|which|how|who|when|where)\b).){0,40}?"  # a question after it is another's
    r"\b(?:order|ordered|orders|purchase|purchased|purchases|bought|buy|shopped|sale|sales|sold|sell"
    r"|sells|selling)\b"
    r"|\blast (?:order|purchase)\b.{0,30}\bago\b|\b(?:lapsed|inactive|dormant|churned)\b"
)
_SORTED = re.compile(
    r"\b(?:biggest|largest|highest|top|most|best|smallest|lowest|least|worst)\s+"
    r"(?:first|at the top|to \w+est)\b"
)
"""A ranking asked for as an order of every group ("biggest first", "highest to lowest"), not one."""
_WHAT_THINGS = re.compile(r"\W*what\s+(?P<things>\w+s)\s+(?:do|did|does|have|has|had|are|were|sell|sold)\b")
"""A question that opens by asking which things of a column ("what products do we never sell in the
south?", "what states have…"): a list of them, as "which" asks."""
_ASKS_WHEN = re.compile(r"\bwhen\b", re.IGNORECASE)
"""A question that asks for a day ("which dealer and when?")."""
_WHEN = re.compile(_ASKS_WHEN.pattern + r".*\b(?P<which>first|earliest|last|latest|most recent)\b")
"""The day something was first or last done, asked ("when was their last order?")."""
_DIFFERENCE = _words("difference diff delta")
_DECLINE = _words("decline declined fell fall dropped drop shrank shrunk decreased")
_HAVING = re.compile(
    r"\b(?:(?P<no>without|no|never|not)\s+(?:a\s+|any\s+)?|(?:with|had|has|have|got)\s+(?:a\s+|any\s+))"
    r"(?P<what>\w+)"
)
"""A measure present or absent on a line ("orders with a discount", "sales without any discount")."""
_PERIODS = re.compile(r"\b(?:days|weeks|months|quarters|years|weekdays|hours)\b")
"""Periods asked for in the plural ("the best months"), not one."""
_NET = re.compile(
    r"\bnet(?:\s+of\s+(?:the\s+|any\s+)?(?:cancell?ations?|cancell?ed\s+\w+|refunds?|returns?|discounts?))?\b"
    r"|\b(?:after|less)\s+(?:the\s+|any\s+)?(?:cancell?ations?|refunds?|returns?|discounts?)\b"
)
"""Revenue as recorded, what a cancellation or a discount takes off included ("net of cancellations
is fine", "net of discount")."""
_GROSS = re.compile(
    r"\b(?:gross|(?:non|un)[\s-]?cancell?ed(?:\s+(?:lines?|orders?|invoices?))?(?:\s+only)?"
    r"|(?:excluding|exclude|without|before|ignoring|ignore|not counting|do not count|leaving out|leave out"
    r"|skipping|skip)\s+(?:the\s+|any\s+)?(?:cancell?ations?|cancell?ed\s+\w+|refunds?|returns?))\b"
)
"""Only the lines that were bought, not cancelled ("non-cancelled only", "before cancellations",
"don't count cancelled orders"): on a file that marks cancellations by a status, the orders whose
status is none of its cancelling ones."""
_LOSS = re.compile(
    r"\b(?:lost|lose|loses|losing)\s+(?:(?:the\s+)?most\s+)?money\b|\bunprofitable\b"
    r"|\bnegative (?:profit|margin)\b|\bat a loss\b|\bin the red\b|\b(?:biggest|largest) loss(?:es)?\b"
    r"|\b(?:lost|lose|loses|losing)\s+(?:the\s+)?most\b(?!\s+(?:customers|clients|orders|buyers|sales))"
)
"""A loss, said: a profit below zero (for a dataset with a profit); "lost the most" is the biggest."""
_SPELLED = "|".join(NUMBER_WORDS)
_LIMIT = re.compile(
    rf"\b(?:top|bottom|best|worst|biggest|largest|smallest|highest|lowest)\s+(\d{{1,2}}|{_SPELLED})\b"
    rf"|\b(\d{{1,2}}|{_SPELLED})\s+(?:best|worst|biggest|largest|smallest|highest|lowest|top|most|least)\b"
    rf"|\b(?:which|what|the|our|list)\s+(\d{{1,2}}|{_SPELLED})(?=\s+\w+s\b)"
)
"""How many groups a ranking shows ("top 5", "the three biggest")."""
_THE_ONE = re.compile(r"\b(?:the|which)\s+(?:\w+est|top|bottom|best|worst|most|least)\s+one\b")
"""One group asked by its place in a ranking, whatever the list before showed ("the weakest one")."""
_DURATION = re.compile(r"\b\d+\s+(?:days?|weeks?|months?|quarters?|years?|orders?|items?|units?)\b")
_DAYS_BETWEEN = re.compile(
    r"\b(?:days?|weeks?|hours?|time)\s+(?:it\s+takes\s+)?(?:from|between)\s+(?:\w+\s+){1,3}?"
    r"(?:to|and|until|till)\s+\w+"
)
"""A span between two events ("days from order to delivery"): a figure only a metric of days between
two of the file's dates answers."""


def _days_between(span: str, model: SemanticModel) -> str | None:
    """The name of the model's days-between metric whose two dates the span names ("days from order
    to shipping": order date and ship date), as a question names it; None when none."""
    said = {root(w) for w in span.split()}
    for metric in model.metrics:
        if metric.kind is not Kind.days_between or metric.over is None or metric.since is None:
            continue
        ends = [
            {root(w) for w in normalise(model.column(c).title).split()} - {"date", "day", "time"}
            for c in (metric.since, metric.over)
        ]
        if all(end & said for end in ends):
            return metric.name.replace("_", " ")  # "days from order to shipping": "days to ship"
    return None


_SPEED = re.compile(
    r"(?:\b(?P<before>[a-z]+)\s+(?:the\s+)?)?\b(?:fastest|quickest|slowest)\b(?:\s+(?:to\s+)?(?P<after>[a-z]+)\b)?"
)
"""How fast something is done ("which channel ships fastest?", "the slowest to deliver", "the
fastest shipping"): the days between the order and that event, fewest first."""


_DOLLARS = re.compile(r"(?<![\d.,])\$(?!\s*\d)")
"""A "$" that is no amount's sign: the money asked for ("the $ that day", "order $")."""


def _dollars(text: str, vocabulary: Vocabulary) -> str:
    """``text`` with a "$" that names money in words: an order's "$" is its total where the data
    records one ("order totals"), any other the money taken (the revenue)."""
    if "$" not in text:
        return text
    totals = vocabulary.find("order total").metrics
    if totals:
        text = re.sub(r"\border\s*\$(?!\s*\d)", "order total", text)
    text = re.sub(r"\bhow\s+much\s+\$", "how much", text)  # "how much $ was on them": how much, said
    return _DOLLARS.sub(" revenue ", text)


def _speed(text: str, model: SemanticModel) -> str:
    """``text`` with the event a speed is of named as its days-between metric ("ships fastest":
    "days to ship fastest"), the speed word kept as the ranking."""
    events = []
    for metric in model.metrics:
        if metric.kind is Kind.days_between and metric.over is not None:
            words = set(normalise(model.column(metric.over).title).split()) - {"date", "day"}
            events.append(({w[:5] for w in words if len(w) >= 4}, metric.name.replace("_", " ")))

    def named(found: re.Match[str]) -> str:
        for verb in (found["after"], found["before"]):  # "fastest shipping" before "has the fastest"
            forms = {form[:5] for form in (verb or "", *base_forms(verb or "")) if len(form) >= 4}
            called = next((name for stems, name in events if stems & forms), None)
            if verb and called is not None:
                at = found[0].rfind(verb) if verb == found["after"] else found[0].find(verb)
                return found[0][:at] + called + found[0][at + len(verb) :]
        return found[0]

    if not events:
        return text
    text = _IN_DAYS.sub(" ", _TAKES_LONG.sub(lambda m: _TAKES[m["how"]], text))
    if len(events) == 1:  # "avg days, won deals": the days between the file's two dates, not a grain
        text = _DAYS_ASKED.sub(f"average {events[0][1]}", text)
    return _SPEED.sub(named, text)


_TAKES_LONG = re.compile(
    r"\b(?:takes?|took|taking)\s+(?:the\s+)?(?P<how>longest|shortest|most time|least time)\b"
)
_TAKES = {"longest": "slowest", "most time": "slowest", "shortest": "fastest", "least time": "fastest"}
"""How long something takes ("which product takes longest to close?"): its speed, slowest or fastest."""
_DAYS_ASKED = re.compile(
    r"\b(?:average|avg|mean|typical)\s+(?:number\s+of\s+)?days\b(?!\s+(?:to|from|until|between)\b)"
)
_IN_DAYS = re.compile(r"\bin\s+(?:days|number\s+of\s+days)\b")
"""The unit a span between two dates is asked in ("avg days to ship, in days"), never a grain."""


_SENTENCES = re.compile(r"(?<=[.!?])\s+(?=\S)|\s+[-\u2013\u2014]\s+")
_LEAD_IN = re.compile(r"^(?P<lead>(?:\S+\s+){0,5}?\S+):\s+(?=\S)")
"""A few words before a colon that say what the question is for ("for the weekly review: …"); a
statement of the user's ("I look after our Nordic accounts: Sweden, Norway…") is no lead-in."""
_ALL_OF = re.compile(
    r"\b(?:all(?:\s+of)?(?:\s+the)?|(?:across|over|in|for|during|throughout)\s+(?:the|our))\s+(?:\d{1,2}|"
    + "|".join(NUMBER_WORDS)
    + r")\s+(?!(?:best|worst|top|bottom|biggest|largest|smallest|highest|lowest|most|least)\b)\w+s\b"
)
"""Every one of a number of things the data has ("across all 3 branches", "over the 3 months"): all
of them, not a count to rank or a span of time."""
_ACROSS_ALL = re.compile(
    r"\b(?:(?:across|in|for|over|throughout)\s+(?:all(?:\s+(?:of\s+)?(?:the|our))?|every)"
    r"|overall\s+all)\s+\w+\b"
    r"|\b(?:all|every)\s+(?:(?:the|our)\s+)?\w+\s+(?:combined|together|put\s+together)\b"
    r"|\b(?:the\s+)?(?:whole|entire)\s+(?:chain|company|business|network|estate)\b"
)
"""Sold "across all regions", "in every store", "overall, all retailers", "all stores combined", "the
whole chain":
everything together, no
breakdown nor a count."""
_NO_MISSING_KEYS = re.compile(
    r"\b(?:ignore|ignoring|leave out|leaving out|exclude|excluding|skip|skipping|without|"
    r"don'?t count|do not count|not counting)\s+(?:the\s+|any\s+)?"
    r"(?:na|n\s*a|null|blank|missing|empty|unknown)\s+(?:customer\s+)?(?:ids?|keys?|customers?|numbers?)\b"
)
"""Lines without a key left out ("ignore the NA ids"): what the query does anyway (a guest is no
customer, nor a group), never a value "NA" of another column."""
_OUR_N = re.compile(r"\bour\s+(?:\d{1,2}|" + "|".join(NUMBER_WORDS) + r")\s+(?=\w+s\b)")
"""How many of a thing there are ("rank our 4 locations"): said, not asked (nor a key's value)."""
_SPAN_BEFORE = re.compile(
    r"\b(?:compare[sd]?|comparison|vs|versus|against)\b.*\b(?:(?:\d{1,2}|"
    + "|".join(NUMBER_WORDS)
    + r")\s+)?(?:days?|weeks?|months?|quarters?|years?|period|span|stretch)\s+(?:before|prior|earlier)\b"
)
"""A comparison with the span just before the one answered ("…with the two weeks before that")."""
_COMPLETE = re.compile(
    r"\b(?:the\s+)?(?:last|latest|most recent|previous|past)\s+(?:(?P<count>\d{1,2}|"
    + _SPELLED
    + r")\s+)?(?:complete|completed|full|whole|finished|closed)\s+(?P<unit>month|quarter|year)s?\b"
)
"""The latest period the data holds whole ("the last complete month": July when the data ends on
August 7th), or the latest few ("the last 3 full months": May to July)."""
_WHOLE = re.compile(r"\b(?:complete|completed|full|whole)\s+(?P<unit>month|quarter|year)(?P<plural>s?)\b")
"""Periods the data holds whole, ranked or listed ("the weakest full month"): not the last one when
the data ends before it does."""
_BEFORE_THAT = re.compile(
    r"\b(?:the\s+)?(?:(?:\d+|two|three|four|five|six|seven|eight|nine|ten|twelve)\s+)?"
    r"(?:days?|weeks?|months?|quarters?|years?|period|span)\s+(?:before|prior to|ahead of)\s+"
    r"(?:that|it|this|then)\b"
)
"""The span just before the one answered, asked about on its own ("the month before that", "the two
weeks before that": as long as the one answered)."""
_ALL_TIME = re.compile(
    r"\b(?:overall|all time|ever|lifetime|(?:the\s+)?(?:whole|entire)\s+(?:period|file|data|dataset|time))\b"
)
"""Every period of the data, said in a follow-up: the window before is not kept."""
_THAT_PERIOD = re.compile(r"\b(?:that|the same|this)\s+(year|month|quarter|period|day|week|hour)\b")
"""The previous answer's period, referred to ("their top sub-category that year")."""
_RANGE = (
    r"(?:(?P<op>above|over|more than|greater than|at least|below|under|less than|at most|of|exactly|equal to)"
    r"\s+\$?(?P<number>\d+(?:\.\d+)?)\s*(?P<percent>%|percent)?"
    r"|\$?(?P<number2>\d+(?:\.\d+)?)\s*(?P<percent2>%|percent)?\s+or\s+"
    r"(?P<op2>above|more|over|higher|greater|below|less|under|lower|fewer)\b)"
)
"""A range of figures: "above 30%", "of 10" (exactly), "9 or above"."""
_THRESHOLD = re.compile(
    r"\b(?P<what>[a-z]+)\s+(?:is\s+|was\s+|were\s+|of\s+|with\s+|rated\s+|scored\s+|scoring\s+)?" + _RANGE
)
"""A measure's range on the lines counted ("lines with a discount above 30%", "a quantity of 10",
"a rating of 9 or above"), or an amount each thing counted comes to ("orders over $500")."""
_STARS = re.compile(r"\b(?P<number>[1-9](?:\.\d)?)[\s-]*stars?\b(?:\s+(?:review|rating)s?\b)?")
"""A score said in stars ("a full 5-star review")."""


_VALUE_FIRST = re.compile(
    r"\b(?:a|an|the)\s+\$?(?P<number>\d+(?:\.\d+)?)\s*(?P<percent>%|percent)?\s+"
    r"(?P<what>[a-z]+(?:\s+[a-z]+)?)(?:\s+point)?\b"
)
"""A measure's value said before it ("the 40% discount", "the 500 price point"): lines with exactly it."""
_COUNT_WORDS = "|".join(NUMBER_WORDS)
_COUNTED_RANGE = re.compile(
    r"\b(?:(?P<op>above|over|more than|greater than|at least|fewer than|less than|under|below|at most|exactly"
    r"|just|only)\s+\$?(?P<number>\d+(?:\.\d+)?|" + _COUNT_WORDS + r")"
    r"|(?P<number2>\d+|" + _COUNT_WORDS + r")\s+or\s+(?P<op2>more|fewer|less)"
    r"|(?P<single>a single|one single|just a single|only a single|a lone))"
    r"\s+(?:(?:in|of|worth\s+of)\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)"
)
"""A range said number first, of a figure each group comes to ("days with more than 100 orders",
"which months had over 70000 in revenue", "orders with 2 or more lines", "orders with just one line
item", "customers who bought more than one product")."""
_EXACTLY = {"just": "eq", "only": "eq"}
_OPS = {"above": "gt", "over": "gt", "more than": "gt", "greater than": "gt", "at least": "ge",
        "below": "lt", "under": "lt", "less than": "lt", "at most": "le", "of": "eq", "exactly": "eq",
        "equal to": "eq", "fewer than": "lt"}  # fmt: skip
_OR_MORE = {"above": "ge", "more": "ge", "over": "ge", "higher": "ge", "greater": "ge", "below": "le",
            "less": "le", "under": "le", "lower": "le", "fewer": "le"}  # fmt: skip
_AMONG = re.compile(
    r"\b(?:of|among|between)\s+(?:those|these|them|(?:the\s+)?(?:two|three|four|five|both))\b|\bthose\b|\bthese\b"
)
_BY_IT = re.compile(r"\b(?:by|per|split|breakdown|broken|vs|versus|compared?|each|every)\b")
"""A column of yes and no broken down by, not what the lines are ("revenue by B2B", "B2B vs not")."""
_LEAVING_THOSE = re.compile(
    r"\b(?:excluding|exclude|except(?:\s+for)?|other than|outside(?:\s+of)?|apart from|besides|without|"
    r"not counting|leaving out|leave out|minus|ignoring)\s+(?:those|these|them|the\s+(?:top|bottom|first))\b"
)
_HOW_MUCH_TOO = re.compile(r"\band\s+(?:for\s+)?how\s+much\b")
_HOW_MANY_PERIODS = re.compile(
    r"\bhow many\s+(?:distinct\s+|different\s+|separate\s+|unique\s+|individual\s+)?"
    r"(?P<grain>day|week|month|quarter|year|hour)s\b"
)
"""Periods counted ("how many days had sales?"): the periods with a line, not a figure per period."""
_MONTH = MONTH_NAMES
_DAY_SPAN = re.compile(
    rf"\b(?:from\s+|between\s+)?(?:(?P<month>{_MONTH})\.?\s+(?P<a>\d{{1,2}})(?:st|nd|rd|th)?"
    rf"|(?P<a2>\d{{1,2}})(?:st|nd|rd|th)?)\s*(?:-|\u2013|to|through|thru|until|till|and)\s*(?P<b>\d{{1,2}})"
    rf"(?:st|nd|rd|th)?(?(month)|\s+(?P<month2>{_MONTH}))(?P<year>,?\s+(?:19|20)\d\d)?\b"
    rf"(?!\s*(?:{_MONTH})\b|\s*[:.]\d)"
)
"""Days of one month as a span ("feb 1-10", "1 to 10 feb"): from its first day to its last."""
_RANGES = frozenset({"lt", "le", "gt", "ge"})
_HOW_MANY_MUCH = re.compile(r"\bhow (?:many|much)\b")
_SOLD = re.compile(r"\b(?:sold|sell|bought|buy|ordered|purchased)\b")
_MADE = re.compile(
    r"\b(?:what|how\s+much)\s+(?:did|do|have)\s+(?:we|they|i|you)\s+(?:make|made|earn|earned|take\s+in|taken\s+in|"
    r"bring\s+in|brought\s+in|pull\s+in|rake\s+in)\b"
)
"""Money made asked anew ("what did we make on valentines day?"): never the figure before, narrowed."""
_SHORT = 6
_PEOPLE = frozenset(
    {"person", "rep", "representative", "seller", "salesperson", "salesman", "saleswoman", "agent",
     "employee", "staff", "cashier", "clerk", "associate", "manager", "owner", "broker", "dealer"}
)  # fmt: skip
"""A column's words that say its values are people ("Sales Person"): who is asked of a file without
customers."""
_CHOICES = 6
"""The most values a name said short may be offered as (more, and it names none of them)."""
"""A question of at most this many words that names no metric nor breakdown of its own may narrow
the one before ("in the West?"); a longer one is a question of its own."""
_YEAR_BEFORE = re.compile(r"\b(?:last|previous|prior)\s+year\b")
_COVERED = re.compile(
    r"\b(?:date|time|day)\s+(?:range|span|frame|window|coverage)\b"
    r"|\b(?:range|span)\s+of\s+(?:the\s+)?(?:dates?|days)\b"
    r"|\b(?:what|which)\s+(?:period|dates?|days|years|months|time\s+period)\s+(?:does|do|is|are)\s+(?:\w+\s+){1,3}?"
    r"(?:cover(?:ed)?|spans?|span|run|include)\b"
    r"|\bhow\s+far\s+back\s+(?:does|do|is|are)\b"
    r"|\bwhen\s+(?:does|do|did)\s+(?:the|this|our|your)\s+(?:data|dataset|file|records?|sales?)\s+(?:start|begin|end|stop)\b"
    r"|\b(?:first|earliest)\s+and\s+(?:last|latest)\s+(?:dates?|days)\b"
    r"|\bwhen\b.*\b(?:first|earliest)\b.*\b(?:and|&)\s+(?:the\s+)?(?:last|latest|most\s+recent)\b"
)
"""The period the data covers, asked ("what date range does the file cover?", "how far back does the
data go?"): its first and last day."""
_COVERING = _words(
    "cover covers covered covering span spans spanned range go goes run runs start starts end ends"
)
_SINCE = re.compile(r"\b(?:since|after)\s*$")
_ONWARDS = re.compile(r"\s*(?:on|onwards?|forwards?)\b")
_UNTIL = re.compile(r"\b(?:before|until|till|up to|through)\s*$")
# a follow-up: "and…", "that", "they", "for tables, which…"; not "cars that aren't…" (normalised: "are not")
_FOLLOW = re.compile(
    r"^\s*(?:and|what about|how about|same|now|ok|okay|and what about|also)\b"
    r"|^\s*as\s+an?\s+(?!%|(?:percent|percentage|share|proportion|fraction)\b)"  # a share is read apart
    r"|\b(?:those|them|it|same)\b"
    r"|^\s*in\s+\S+(?:\s+\S+)?\s*$"  # "as a margin %?", "in units?"
    r"|^\s*(?:split|splitting|broken\s+down|break\s+down|by|per)\s+(?:\w+\s+){0,3}\w+\s*(?:pls|please|plz)?\s*$"
    r"|\bthat\b(?!\s+(?:is|are|was|were|have|has|had|did|do|does|sold|bought|ordered|got|came|went|made|"
    r"will|would|can|could)\b)"
    r"|\bwhich (?:one|of (?:these|those|them|the (?:two|three|four|five)|both))\b"
    r"|\b(?:he|she|they|his|her|their|theirs|him|its)\b"
    r"|^\s*(?:for|in|among|within)\s+(?:the\s+)?(?:\w+\s+){1,3}(?:which|what|how|who)\b"
)
_OWN = (
    _words(
        """by per each every breakdown split across group grouped sorted order ordered orders list show over
    during time whole all total overall sum average avg mean how many much number count what which
    were was did do does any ones one our we us sold sell sells selling moved shifted made make makes
    bring brought generated generate earn earned had has have trend trends period periods date dates vs versus
    compared compare comparison against than share percentage percent proportion portion fraction
    growth grow grew grown change changed increase increased decrease decreased day days rate
    ago since after from before until till through not no never without excluding exclude except
    outside ignoring ignore non besides apart other leave leaving haven't hasn't didn't stopped n't
    top bottom best worst most least highest lowest biggest largest smallest fewest greatest weakest
    leading strongest max maximum min minimum rank ranked ranking more less higher lower poorest
    and what about how same also now then in of for on at to with the a an is are
    fine hi hey hello so ok okay actually please just really fully totally entirely quick quickly overall
    lifetime ever then pull etc
    he she they him her their them his hers its it out pls plz data set dataset usually typically normally
    own alone trade traded trading positive absolute file files records sheet spreadsheet both numbers
    led lead leads won collect collected collecting happen happens happened too meant subset selection
    ring rang rung rings ringing handle handled handles handling process processed serve served
    hand handed handing give gave given rack racked book booked log logged record recorded came come
    talking talk ids move moves moving calendar dollars dollar usd euros euro eur pounds gbp bucks
    take taking took remove removes removed removing strip stripping filter filtering rule ruling"""
    )
    | _HIGH
    | _LOW
    | _BUSY
)
"""The query language's own words: used by the reading's cues (or harmless around them), with the
verbs a till or a person does a figure by ("which barista rang up the most", "transactions EMP005
handled", "points handed out")."""


@dataclass
class SemanticReading:
    """The query's arguments read from a question, and what of the question they leave out."""

    arguments: dict[str, Any] = field(default_factory=dict)
    left: list[str] = field(default_factory=list)
    """Words neither the reading nor common English accounts for."""
    aside: list[str] = field(default_factory=list)
    """Words of English the reading does without (``_set_aside``): said with the answer."""
    ambiguous: dict[str, tuple[Mention, ...]] = field(default_factory=dict)
    """Words that name values of several columns, none of them named ("Aurora": a dealer region, a
    model, a customer's name), each with what it may be: which is asked, never guessed."""
    named: bool = False
    """Whether the question named anything of the data or the model (else it is no data question)."""
    follow_up: bool = False
    columns: set[str] = field(default_factory=set)
    """The columns the query reads (its filters, groups and metrics)."""

    @property
    def covered(self) -> bool:
        return self.named and not self.left and bool(self.arguments.get("metrics"))


_PLAIN = COMMON | _OWN
_CALENDAR = {n.lower() for n in (*calendar.month_name, *calendar.day_name) if n}
_PLAIN_TARGETS = sorted(w for w in _PLAIN | _CALENDAR if len(w) >= 3 and w.isalpha())
"""Plain English, the query language's words and the calendar's ("febuary", "wendesday"): what a typo
of neither the data's words is of."""


def _respelled(question: str, left: list[str], vocabulary: Vocabulary) -> str | None:
    """The question with its left-over words that are typos of common English or of the data's own
    words corrected (``words.correction``, ``words.short_word``); None when none is. A word of
    English is never made another word ("leave" is no "level", "staff" no "stuff")."""
    targets, names = vocabulary.spelling
    text, changed = question, False
    for word in dict.fromkeys(left):
        close = TYPO_PRONE.get(word) or (
            # a word of English is no typo of another one ("happiest" is not "happens"), but may be
            # a name of the data spelt another way ("colombian" coffee: the file's "Columbian")
            other_vowel(word, targets)
            if is_english(word) and len(word) > _SHORT_TYPO
            else correction(word, _PLAIN_TARGETS, set())
            or short_word(word, _PLAIN)
            or correction(word, targets, names)
        )
        if close is not None:
            text = re.sub(rf"(?<![\w'-]){re.escape(word)}(?![\w'-])", close, text, flags=re.IGNORECASE)
            changed = True
    return text if changed else None


def read_semantic(
    question: str,
    model: SemanticModel,
    vocabulary: Vocabulary,
    last_day: date | None,
    previous: dict[str, Any] | None = None,
    listed: tuple[str, list[str]] | None = None,
    period_before: dict[str, str] | None = None,
    earlier_period: dict[str, str] | None = None,
) -> SemanticReading:
    """``question`` read (:func:`_read_semantic`), its query's parts agreeing with each other: a
    ranking is by a metric asked for; a growth asked of one period ("how much did it grow vs the
    year before?" after the best year) is that period against the one before, no series of periods
    each against its own."""
    reading = _read_semantic(
        question, model, vocabulary, last_day, previous, listed, period_before, earlier_period
    )
    args = reading.arguments
    if args.get("order_by") and args["order_by"] not in args.get("metrics", []):
        # "and how many on tuesdays, total?" after the weekday with the most orders: ranked by them
        args = {**args, "order_by": args["metrics"][0]}
        reading = replace(reading, arguments=args)
    averaged = _averaged_per(question, args, model)
    if averaged is not None:  # "avg revenue per trading day": each day's, averaged
        return replace(reading, arguments=averaged)
    claimed = _claimed_top(question, args, model)
    if claimed is not None:  # "is California our most profitable state?": the states ranked
        return replace(reading, arguments=claimed)
    dated = _dated_orders(question, args, model)
    if dated is not None:  # "biggest single receipt ever - how much and when?": its day too
        args = {**args, "metrics": [*args["metrics"], dated]}
        reading = replace(reading, arguments=args)
    series = args.get("group_by", [])
    if args.get("each_against_previous") and (
        "compare" in args or len(series) != 1 or "grain" not in series[0]
    ):
        args = {k: v for k, v in args.items() if k != "each_against_previous"}
        if "compare" not in args:
            args.pop("by_change", None)
            args.pop("by_growth", None)
        return replace(reading, arguments=args)
    return reading


_CONFIRM = re.compile(
    r"^\W*(?:(?:is\s+(?:that|it|this|she|he)\s+|are\s+they\s+|am\s+i\s+)?(?:true|right|correct|so)"
    r"|really|agreed?|(?:do\s+you\s+)?agree)\W*$",
    re.IGNORECASE,
)
"""A sentence that only asks whether the one before holds ("… true?", "is that right?")."""
_CLAIMED_TOP = re.compile(
    r"\b(?:is|was|are|were|'s)\s+(?:[\w-]+\s+){0,3}?(?:our|the|their|my)\s+(?:single\s+)?"
    r"(?:most|least|best|worst|top|number one|#1|no\.? 1|[a-z]{3,}est)\b"  # "busiest", not "west"
    r"(?P<after>(?:\s+[\w-]+){1,3})"
)
"""A claim that one thing is the first of its kind ("California is our most profitable state",
"is Lemon the best-selling product?")."""
_CLAIM_SHOWN = 3


def _claimed_top(question: str, args: dict[str, Any], model: SemanticModel) -> dict[str, Any] | None:
    """A claim that one value is the top of its column, checked: that column ranked (the first
    three), no longer filtered to the value, so the answer shows whether it is first and what is;
    ``None`` when the question claims no such thing."""
    claim = _CLAIMED_TOP.search(normalize(question))
    kept = [f for f in args.get("filters", []) if f.get("op") == "in" and len(f.get("values", [])) == 1]
    if claim is None or len(kept) != 1 or args.get("group_by") or not args.get("metrics"):
        return None
    column = model.column(kept[0]["column"])
    nouns = {normalize(column.title), *(normalize(w) for w in column.synonyms), column.name.replace("_", " ")}
    if not any(re.search(rf"\b{re.escape(noun)}s?\b", claim["after"]) for noun in nouns if noun):
        return None
    ranked = {k: v for k, v in args.items() if k != "filters"}
    filters = [f for f in args["filters"] if f is not kept[0]]
    return {
        **ranked,
        **({"filters": filters} if filters else {}),
        "group_by": [{"column": column.name}],
        "limit": _CLAIM_SHOWN,
    }


def _periods_of(groups: list[dict[str, Any]]) -> list[tuple[str, str]] | None:
    """The periods a breakdown is by (column and grain), or None when it is by anything else."""
    periods = [(str(g.get("column")), str(g["grain"])) for g in groups if "grain" in g]
    return periods if periods and len(periods) == len(groups) else None


def _of_one_order(grouped: list[dict[str, Any]], model: SemanticModel) -> bool:
    """Whether a breakdown is by order first and then by what an order has one of (its dealer, its
    day), never by its items: one row an order, ranked like the orders alone."""
    if not grouped:
        return False
    first, *rest = [model.column(g["column"]) for g in grouped]
    return (
        first.entity is Entity.order
        and all(c.entity is not Entity.product and c.role is not Role.measure for c in rest)
        and not any("grain" in g or "bands" in g for g in grouped)
    )


def _dated_orders(question: str, args: dict[str, Any], model: SemanticModel) -> str | None:
    """The metric of each order's day, when a question ranking orders asks when ("the biggest order,
    which dealer and when?"); else None."""
    time = model.time
    if time is None or not _ASKS_WHEN.search(question) or len(args.get("metrics", [])) > 5:
        return None
    day = f"first_{time.name}"
    orders = [
        g
        for g in args.get("group_by", [])
        if "grain" not in g and model.column(g["column"]).entity is Entity.order
    ]
    if not orders or day in args["metrics"] or day not in {m.name for m in model.metrics}:
        return None
    return day


_AVERAGE_PER = re.compile(
    r"\b(?:average|avg|mean|typical)\b(?:\s+\w+){0,4}?\s+(?:per|a|each|every|by\s+the)\s+"
    r"(?:(?:trading|business|working|selling|open|single)\s+)?(?P<grain>day|week|month|quarter|year)\b"
    r"|\b(?:average|avg|mean|typical)\s+(?P<ly>daily|weekly|monthly|quarterly|yearly|annual)\b"
    r"|\b(?:per|a|each)\s+(?P<on>day|week|month|quarter|year)\s+on\s+average\b"
)
"""A figure of each period, averaged ("avg revenue per trading day", "average monthly sales")."""
_LY = {
    "daily": "day",
    "weekly": "week",
    "monthly": "month",
    "quarterly": "quarter",
    "yearly": "year",
    "annual": "year",
}


def _averaged_per(question: str, args: dict[str, Any], model: SemanticModel) -> dict[str, Any] | None:
    """``args`` as the average of each period a question names ("average daily revenue"), when it
    asks one figure (or one series of that very grain): else None."""
    said = _AVERAGE_PER.search(normalize(question))
    if said is None or model.time is None or not args.get("metrics"):
        return None
    grain = said["grain"] or said["on"] or _LY[said["ly"]]
    groups = args.get("group_by", [])
    if any(g.get("grain") != grain for g in groups) or args.get("compare") or args.get("share_of"):
        return None
    metrics = [
        m for m in args["metrics"] if model.metric(m).kind in (Kind.sum, Kind.rows, Kind.count_distinct)
    ]
    if not metrics:
        return None
    kept = {k: v for k, v in args.items() if k not in _SERIES_PARTS}
    return {**kept, "metrics": metrics, "per": grain}


_SERIES_PARTS = (
    "group_by",
    "limit",
    "order",
    "order_by",
    "count",
    "share",
    "each_against_previous",
    "by_change",
    "by_growth",
)
"""What makes a series or a ranking of periods, none of which an average per period has."""


def _read_semantic(
    question: str,
    model: SemanticModel,
    vocabulary: Vocabulary,
    last_day: date | None,
    previous: dict[str, Any] | None = None,
    listed: tuple[str, list[str]] | None = None,
    period_before: dict[str, str] | None = None,
    earlier_period: dict[str, str] | None = None,
) -> SemanticReading:
    """Read ``question`` (with the previous query and what its answer listed -- a column's values,
    or the choices offered for a name -- for a follow-up; ``period_before``: the window of the last
    answer of any tool, which "that year" means; ``earlier_period``: the window of the answer before
    it, which "so what's the % change?" compares with) over ``model``. Of several
    sentences, a lead-in ("Hi - I manage the Central region.") is left out when the last sentence
    reads whole on its own; the answer states its reading, so what was left out shows."""
    question = _GREETING.sub("", question)  # "morning! what's our revenue?" asks about every hour
    *said, asked = _SENTENCES.split(question.strip())
    if said and _CONFIRM.match(asked):  # "my boss says California is our top state. true?": the claim
        question = _CLAIM_LEAD.sub("", said[-1])
    reading = _read(question, model, vocabulary, last_day, previous, listed, period_before, earlier_period)
    respelled = _respelled(question, reading.left, vocabulary)
    if respelled is not None:  # "wat ws the totl profit in the west regoin": read as meant
        again = _read(respelled, model, vocabulary, last_day, previous, listed, period_before, earlier_period)
        if again.covered:
            return again
    aside = _ASIDE.search(question)
    if not reading.covered and aside is not None and not _names_data(aside["why"], vocabulary, last_day):
        # "(at least one normal order, no C invoices at all)": an aside that explains, naming nothing
        plain = _read(
            question[: aside.start()] + question[aside.end() :],
            model,
            vocabulary,
            last_day,
            previous,
            listed,
            period_before,
            earlier_period,
        )
        if plain.covered:
            return plain
    *before, last = _SENTENCES.split(question.strip())
    lead_in = _LEAD_IN.match(last)
    if lead_in is not None and not re.search(r"\b(?:i|i'm|i've|we|we're|my name)\b", lead_in["lead"], re.I):
        before, last = [*before, lead_in["lead"]], last[lead_in.end() :]
    if not before or not last.strip():
        return reading
    if reading.covered and (reading.follow_up or any(_names_anything(lead, vocabulary) for lead in before)):
        return reading  # "the 3rd one on that list — what was its profit?": the lead-in is the row
    alone = _read(last, model, vocabulary, last_day, previous, listed, period_before, earlier_period)
    if not alone.covered or any(_asks_of_its_own(lead) for lead in before):
        return reading  # "how's the coke doing? units sold?": a question of its own, never chatter
    if reading.covered:  # "boss wants numbers for the seller meeting. which 5 states…?": chatter
        return replace(alone, aside=list(dict.fromkeys([*reading.aside, *alone.aside])))
    rules = alone.arguments.get("filters", [])
    kept = {str(v) for f in rules for v in f.get("values", [])}
    columns = {f.get("column") for f in rules}
    figures = _parts(alone.arguments.get("metrics", []), model)
    referred: dict[str, list[str]] = {}
    for lead in before:  # a lead-in may only name again what the question names itself...
        if (_CLAIMED.search(lead) or _INTRODUCED.search(lead)) and not _REFERS_BACK.search(last):
            continue  # ... or say what someone holds or planned ("my boss reckons Hamburg is #2."),
            # or who is asking ("hi, Tomasz from rev ops here.")
        named = vocabulary.find(normalize(lead))
        new = [m for m in named.mentions if m.value not in kept]
        if new and _REFERS_BACK.search(last) and not {m.column for m in new} & columns:
            # ... or what the question points back to: "got a meeting with the Walmart buyer. what
            # were their sales?", "I look after the Northeast. what did we sell there?"
            for mention in new:
                referred.setdefault(mention.column, []).append(mention.value)
            new = []
        said_again = normalize(last)  # "the Q4 review for Dana - what was Q4 2011 profit?": its own Q4
        lead_text = normalize(lead)
        if (
            any(lead_text[p.span[0] : p.span[1]] not in said_again for p in find_periods(lead_text))
            or QUOTED.search(lead)  # "… in 2011?", "with 'LUNCH BAG' …"
            or set(named.metrics) - figures
            or set(named.columns) - columns - set(referred)
            or new
        ):
            return reading
    if referred:
        more = [{"column": c, "op": "in", "values": list(dict.fromkeys(v))} for c, v in referred.items()]
        arguments = {**alone.arguments, "filters": [*rules, *more]}
        return replace(alone, arguments=arguments, columns=alone.columns | set(referred))
    return alone


_CLAIMED = re.compile(
    r"\b(?:reckons?|thinks?|thought|believes?|believed|claims?|claimed|swears?|swore|says|said|told\s+me"
    r"|insists?|expects?|expected|guessed|guesses|bets?|planned|plans|budgeted|forecast|forecasted|targeted)\b",
    re.IGNORECASE,
)
"""What someone holds, guessed or planned, said before the question ("my boss reckons Hamburg is
our #2 state.", "the warehouse had planned for 40,000 units in May."): context, not a condition."""
_CLAIM_LEAD = re.compile(rf"^.*?{_CLAIMED.pattern}\s+(?:that\s+)?", re.IGNORECASE)
"""Who holds a claim, before it ("my boss says …"): left out when the question is whether it holds."""
_INTRODUCED = re.compile(
    r"\bfrom\b[^.?!]{1,40}\bhere\b|\b(?:this is|my name is|i'm|i am)\s+[A-Za-z]+\s+(?:from|in|on|with)\b",
    re.IGNORECASE,
)
"""Who is asking, said first ("Tomasz from rev ops here", "this is Ana from finance")."""
_REFERS_BACK = re.compile(
    r"\b(?:their|theirs|they|them|its|(?<!\bis\s)(?<!\bare\s)(?<!\bwas\s)(?<!\bwere\s)there)\b",
    re.IGNORECASE,
)
"""A word of the asked sentence that points back to what a lead-in named ("their sales", "sold
there"), never the "there" of "are there any…"."""


_COUNTED = re.compile(
    r"\b(?:how many|number of|count of|(?:the\s+)?(?:most|fewest|least|more|fewer))\s+"
    r"(?:different\s+|distinct\s+|unique\s+|separate\s+)?(?P<what>[a-z][\w']*(?:\s+[a-z][\w']*)?)"
)


def _counted_columns(text: str, model: SemanticModel, vocabulary: Vocabulary) -> list[str]:
    """The dimensions whose different values a question counts: named in the plural right after a
    count or a superlative ("how many states", "the most cities", "number of sales methods"), naming
    no metric and no value of their own ("the most units" is a metric, "most Walmart stores" a value)."""
    counted: list[str] = []
    for match in _COUNTED.finditer(text):
        at = match.start("what")
        while at >= 0:  # "how many retailers and states", "the most cities, states or regions"
            column, at = _counted_at(text, at, model, vocabulary)
            if column is not None:
                counted.append(column)
    countable = {m.over for m in model.counts}
    return [name for name in dict.fromkeys(counted) if name in countable]


_AND_ANOTHER = re.compile(r"\s*(?:(?:,|\band\b|&|\bor\b)\s*(?:,\s*)?(?:and\s+)?|\s+)(?=[a-z])")
_TWO_WORDS = re.compile(r"[a-z][\w']*(?:\s+[a-z][\w']*)?")


def _counted_at(text: str, at: int, model: SemanticModel, vocabulary: Vocabulary) -> tuple[str | None, int]:
    """The dimension named in the plural at ``at`` (two words, then one: "sales methods" before
    "sales"), and where another one listed after it would start (-1: none)."""
    two = _TWO_WORDS.match(text, at)
    words = two[0].split() if two else []
    for size in range(len(words), 0, -1):
        phrase = words[:size]
        found = vocabulary.find(" ".join(phrase))
        if found.metrics or found.mentions:
            return None, -1
        if phrase[-1] not in " ".join(found.used).split():
            continue  # "retailers and": "retailers"
        named = [c for c in found.columns if model.column(c).role is Role.dimension]
        if len(named) == 1 and any(w.endswith("s") for w in phrase):
            end = text.index(phrase[-1], at) + len(phrase[-1])
            more = _AND_ANOTHER.match(text, end)
            return named[0], more.end() if more else -1
    return None, -1


def _names_anything(lead: str, vocabulary: Vocabulary) -> bool:
    """Whether a lead-in names anything of the data or the calendar exactly (else it is context the
    question does without: "boss wants numbers for the seller meeting.")."""
    plain = normalize(lead)
    named = vocabulary.find(plain)
    exact = [m for m in named.mentions if m.exact]
    return bool(exact or named.metrics or named.columns or find_periods(plain) or QUOTED.search(lead))


def _parts(metrics: list[str], model: SemanticModel) -> set[str]:
    """The metrics and what their ratios are made of: "our red line for cancellations is 30%" talks
    about the cancellation rate's cancelled orders."""
    found = set(metrics)
    for name in metrics:
        metric = next((m for m in model.metrics if m.name == name), None)
        if metric is not None and metric.parts:
            found |= _parts(metric.parts, model)
    return found


_ASIDE = re.compile(r"\((?P<why>[^()]{1,200})\)")
_BECAUSE = re.compile(
    r"(?:\s*[,;]|\s+[-\u2013\u2014])?\s+(?P<why>(?:since|because|cause|cuz|as)\s+(?:it|its|it's|they|they're|"
    r"that|that's|those|these|this|we|we're|i|i'm|there's|there\s+(?:is|are|was|were))\b[^.;!?()]{0,200}"
    r"|(?:those|these|they|that|it)\s+(?:were|are|was|is|'re|'s)\s+(?:just\s+|only\s+|all\s+)?"
    r"(?:one-offs?|one\s+offs?|outliers?|tests?|mistakes?|errors?|typos?|junk|noise|special|weird|odd|"
    r"partial|incomplete|unusual|bulk|not\s+real)\b[^.;!?()]{0,200})",
    re.IGNORECASE,
)
"""A clause that says why the analyst asks as they do ("leave out Dec 2011 *since it's only
partial*", "- *those were one-off bulk orders that got cancelled*"): a reason, never a condition."""
_GREETING = re.compile(
    r"^\W*(?:(?:good\s+)?(?:morning|afternoon|evening)(?:\s+(?:all|team|everyone|there))?\s*[!,.;:-]+"
    r"|good\s+(?:morning|afternoon|evening)\b)",
    re.IGNORECASE,
)
"""A greeting at the start of a message, which names no part of the day."""
_SHORT_TYPO = 3
"""A word this short may be a slip even where it spells another ("nd" east: "and")."""


def without_reasons(question: str, vocabulary: Vocabulary, last_day: date | None) -> str:
    """``question`` without the clause that says why it is asked so (:data:`_BECAUSE`), when that
    clause names no value or period of the data (then it may narrow: "as those were in 2011")."""
    found = _BECAUSE.search(question)
    if found is None or _names_data(found["why"], vocabulary, last_day):
        return question
    return question[: found.start()] + question[found.end() :]


def _names_data(text: str, vocabulary: Vocabulary, last_day: date | None) -> bool:
    """Whether an aside names a value of the data or a period (then it narrows, not explains)."""
    plain = normalize(text)
    return bool(vocabulary.find(plain).mentions) or bool(last_day is not None and find_periods(plain))


def _read(
    question: str,
    model: SemanticModel,
    vocabulary: Vocabulary,
    last_day: date | None,
    previous: dict[str, Any] | None,
    listed: tuple[str, list[str]] | None,
    period_before: dict[str, str] | None = None,
    earlier_period: dict[str, str] | None = None,
) -> SemanticReading:
    reading = _read_words(
        question, model, vocabulary, last_day, previous, listed, period_before, earlier_period
    )
    if _rate_unread(normalize(question), reading.arguments, model):
        reading.left, reading.aside = [*reading.left, "rate"], []
    return reading


def _asks_of_its_own(lead: str) -> bool:
    """Whether a sentence before the question asks something of its own ("how's the coke doing?"),
    not about the answer before ("was that a good day?", "is it that high?"): chatter, left out."""
    return lead.rstrip().endswith("?") and not re.search(r"\b(?:that|this|it|those|these)\b", lead.lower())


def _dated_by(text: str, column: Column, model: SemanticModel) -> bool:
    """Whether the question says a period is of this date: its name just before the period ("orders
    by ship date in 2015"), or the deed of a date before the sale ("deals engaged back in 2016"), not
    anywhere ("which warehouse shipped most of their orders that year?" is of the year's orders, as
    "how many orders did we ship in 2017?" is: how analysts say they sold)."""
    dated = [c.name for c in model.dated]
    if column.name not in dated or model.time is None:
        return False
    earlier = dated.index(column.name) < dated.index(model.time.name)
    said = [column.title, *column.synonyms] if earlier else [column.title]  # "did we ship in 2017": orders'
    names = "|".join(re.escape(normalise(n)) for n in said if n.strip())
    return bool(
        re.search(
            rf"\b(?:{names})\b(?:\s+\w+)?\s+(?:in|on|during|between|since|before|after|from|back|this|last|that)\b",
            text,
        )
    )


_RATE = re.compile(r"\brates?\b")
_RATE_OF_CHANGE = re.compile(r"\b(?:growth|change|increase|decrease|decline|run)\s+rates?\b")


def _rate_unread(text: str, arguments: dict[str, Any], model: SemanticModel) -> bool:
    """Whether the question asks for a rate ("win rate", "rate of returns") that no metric read is:
    a rate is a share of something, and the figure it is of ("deals won") is not it. A growth rate
    is the comparison's."""
    if not _RATE.search(text) or _RATE_OF_CHANGE.search(text) or arguments.get("compare"):
        return False
    named = [c.title for c in model.columns] + [
        said for m in model.metrics for said in (m.title, *m.synonyms)
    ]
    if any(_RATE.search(normalise(name)) for name in named):
        return False  # "the discount rate", "the tax rate": a column's or a metric's own word
    read = [model.metric(name) for name in arguments.get("metrics", [])]
    return not any(m.kind is Kind.ratio or m.unit == "ratio" for m in read)


def _read_words(
    question: str,
    model: SemanticModel,
    vocabulary: Vocabulary,
    last_day: date | None,
    previous: dict[str, Any] | None,
    listed: tuple[str, list[str]] | None,
    period_before: dict[str, str] | None = None,
    earlier_period: dict[str, str] | None = None,
) -> SemanticReading:
    text = normalize(_FOR_EXAMPLE.sub(" ", question))  # "by category (road, mountain etc)": every one
    text = re.sub(r"\b(since|after)\s+the\s+(?:end|close)\s+of\b", r"\1", text)  # "since the end of June"
    text = _ACROSS_ALL.sub(" overall ", _ALL_OF.sub(" overall ", text))  # "across all 3 branches": everything
    text = _OUR_N.sub("our ", text)  # "rank our 4 locations": the locations
    text = _MADE_MONEY.sub(r"\1 earned", text)  # "how much did they make": earned, not a car's make
    text = _spent_on(text, model, vocabulary)  # "how much did we spend on marketing": the marketing
    text = _plain_kind(text, vocabulary)  # "plain lattes": the Latte, not the Chai Latte
    text = _A_LOT.sub(" ", text)  # "profit grew a lot more": more (a word alone may be a name: "Dark Bites")
    text = _SAME_SPAN.sub("the same period", text)  # "the same 3 months a year earlier": that span
    if previous and previous.get("window"):  # "vs the same week last year": the answer's span, a year back
        text = _SAME_LAST_YEAR.sub("a year earlier", text)
    text = _NO_MISSING_KEYS.sub(" ", text)  # "ignore the NA ids": a line without a key is nobody's
    text = _whose_average(text, model)  # "avg customer rating": the rating, not one per customer
    text = _DAYS_BETWEEN.sub(lambda span: _days_between(span.group(0), model) or span.group(0), text)
    text = _speed(text, model)  # "ships fastest": the fewest days to ship
    text, against_plan = _against_plan(text, model, vocabulary)  # "did we beat the sales budget?"
    text, divided = ratio_asked(text, model, vocabulary, previous)  # "marketing as % of sales"
    text, every = every_period(text, model, vocabulary)  # "which products made a profit every month?"
    text = correlation_asked(text, model, vocabulary)  # "does temperature have any relationship with sales?"
    text = _dollars(text, vocabulary)  # "order $": what the orders came to
    # "that receipt" after what was on it: the thing the query before was kept to, named; else a row
    # of the list before, by its place, its noun or a pronoun
    row = _kept_before(text, previous, model) or (
        referred_row(
            text, listed, lowest_first=(previous or {}).get("order") == "asc", nouns=_nouns_of(listed, model)
        )
        if previous
        else None
    )
    left_row_out = row is not None and bool(_ROW_LEFT_OUT.search(text))  # "leaving that receipt out"
    if row is not None:  # "no. 3 on that list", "they": one row of the answer before, asked about
        text = row.text
    reading = SemanticReading()
    args: dict[str, Any] = {}
    chosen = _chosen(text, listed)
    if chosen is not None:  # its words are the name's, not a period's ("christmas") nor a metric's
        text = " ".join(  # "the k-elite": "elite" picked it, "k" is part of the same word
            w for w in text.split() if not all(n in chosen[1] or len(n) < 3 for n in normalise(w).split())
        )
    text, on_days = weekdays(text, model)  # "on Thursdays": a part of every date, not a day
    text, blank = blanks(text, model, vocabulary.flags)  # "guest checkouts", "lines with no CustomerID"
    text, against = columns_compared(text, model)  # "a ship date before the order date": row by row
    text, holding = names_holding(text, model)  # "anything with 'LUNCH BAG' in the name"
    text, hours = hours_of_day(text, model)  # "from 6pm onwards": a part of every time of day
    text, years_out = years_left_out(text, model)  # "excluding 2011 and 2012": a part of every date
    text, months_out = months_left_out(text, model)  # "excluding February": a part of every date
    text, aged, age_bands = ages(text, model)  # "60 or older", "the under-30s", "18-29, 30-44 or 60+"
    text, runs = numbered_ranges(text, model, vocabulary)  # "stores 1 to 5"
    phrased = on_days + blank + against + holding + hours + years_out + months_out + aged + age_bands + runs
    comparing = previous is not None and "compare" in previous
    text = _PART_OF_MONTH.sub(_part_of_a_month, text)  # "late oct": oct 21-31; "jan to late oct": to oct
    text = _DAY_SPAN.sub(_days_of_a_month, text)  # "feb 1-10": from feb 1 to feb 10
    complete = _COMPLETE.search(text) if last_day is not None else None
    if complete is not None and last_day is not None:  # "the last complete month": not one cut short
        period = parse_period(f"this {complete['unit']}", last_day)
        period = period.before() if period.last > last_day else period
        earliest = period
        count = complete["count"] or "1"
        for _ in range((int(count) if count.isdigit() else NUMBER_WORDS[count]) - 1):
            earliest = earliest.before()
        args["window"] = {"start": earliest.first.isoformat(), "end": period.last.isoformat()}
        text = text[: complete.start()] + " " + text[complete.end() :]
    held_whole = _WHOLE.search(text) if last_day is not None else None
    if held_whole is not None and last_day is not None:
        period = parse_period(f"this {held_whole['unit']}", last_day)
        if period.last > last_day:  # the data's last one is cut short: up to the one before it
            args["window"] = {"end": period.before().last.isoformat()}
        unit = f" {held_whole['unit']}{held_whole['plural']} "
        text = text[: held_whole.start()] + unit + text[held_whole.end() :]
    # "excluding February 2022": one period left out of the rest, which no window says (never read
    # as that period alone); "excluding February" and "excluding 2011" are parts of every date, read above
    periods_left_out = [
        text[p.span[0] : p.span[1]] for p in find_periods(text) if _PERIOD_LEFT_OUT.search(text[: p.span[0]])
    ]
    window_before = (previous or {}).get("window") or {}
    year_before = int(str(window_before["start"])[:4]) if window_before.get("start") else None
    if year_before is not None and str(window_before.get("end", ""))[:4] != str(year_before):
        year_before = None  # a span of years names no one year
    rest = _read_time(text, last_day, args, reading, comparing, year_before)
    to_date = _TO_DATE.search(text) or re.search(r"\b(?:ytd|mtd|qtd)\b", question.lower())
    if last_day is not None and to_date:  # "this year so far vs the same period last year", "ytd vs…"
        _like_for_like(args, last_day)
    stepped = (
        _BEFORE_THAT.search(rest) if previous and previous.get("window") and "window" not in args else None
    )
    if stepped is not None and not _SPAN_BEFORE.search(text):  # "…the month before that": not a grain
        args["window"] = _span_before(previous["window"])  # type: ignore[index]
        rest, text = _BEFORE_THAT.sub(" ", rest), _BEFORE_THAT.sub(" ", text)
    if comparing:  # "so what's the yoy growth?": of the comparison
        rest = _STEP_BACK.sub(" ", _YEAR_BACK.sub(" ", rest))
    elif previous and previous.get("window") and "window" not in args:
        back = _YEAR_BACK.search(rest) or _STEP_BACK.search(rest)
        if back is not None:  # "how did last month do?", then "vs the month before?": the two side by side
            window = previous["window"]
            args["window"] = window
            args["compare"] = _year_back(window) if _YEAR_BACK.search(rest) else _span_before(window)
            rest = rest.replace(back[0], " ", 1)
        elif (
            "compare" not in previous
            and earlier_period not in (None, previous["window"])
            and set(rest.split()) & (_GROWTH | _DECLINE | _DIFFERENCE)
        ):  # "Q4 2021 revenue?", "and Q4 2022?", "so what's the % change?": the two answers side by side
            args["compare"], args["window"] = sorted(
                (previous["window"], earlier_period), key=lambda window: str(window.get("start") or "")
            )
    before = (previous or {}).get("window") or period_before
    that = _THAT_PERIOD.search(rest)
    its_own = that is not None and re.search(rf"\b(?:which|what)\s+(?:\w+\s+)?{that[1]}\b", rest)
    if its_own:  # "which day had the most…, and how many that day?": the day it asks for
        rest, text = _THAT_PERIOD.sub(" ", rest), _THAT_PERIOD.sub(" ", text)
    elif before and "window" not in args and that is not None:
        args["window"] = before  # "that year": the period the answer before was for
        rest = _THAT_PERIOD.sub(" ", rest)
    # "net of cancellations" is revenue as recorded; "non-cancelled only", "gross" the lines kept
    gross = model.cancellation is not None and bool(_GROSS.search(rest))
    # a "gross profit" or "gross sales" of a file that cancels nothing is its profit, its sales (but a
    # "gross income" of its own is that column)
    # ... and "net sales" of a file whose revenue is before its discounts is a figure of its own
    own_net = any(m.less and m.name != "revenue" for m in model.metrics)
    netted = _NET.sub(" net " if own_net else " ", rest)
    rest = _GROSS.sub(" ", netted) if model.cancellation is not None else netted
    titles = [*(c.title for c in model.columns), *(m.title for m in model.metrics)]
    titles += [said for m in model.metrics for said in m.synonyms]  # "gross revenue": before discounts
    own_gross = any("gross" in normalise(title).split() for title in titles)
    rest = re.sub(r"\bgross\b", " ", rest) if model.cancellation is None and not own_gross else rest
    rest = _signed(rest, model, vocabulary)  # "negative inventory numbers": inventory below 0
    thresholds = _thresholds(rest, model, vocabulary) or _range_of_the_last(rest, model, previous)
    for rule in thresholds:  # "which stores never had unemployment above 6%?": no such line, ever
        at = rest.find(str(rule["spoken"]))
        if "column" in rule and at > 0 and _NEVER_HAD.search(rest[:at]):
            rule["never"] = True
    for spoken, kept in {t.pop("spoken"): t.pop("kept", None) for t in thresholds}.items():
        ranged_word = spoken.split()[0] if kept is None else kept  # read: the thing ranged stays
        rest = rest.replace(spoken, f" {'' if ranged_word[:1].isdigit() else ranged_word} ", 1)
    loss = _LOSS.search(rest) if "profit" in {m.name for m in model.metrics} else None
    if loss is not None:  # "in the red": a loss, no name ("red" is no city Redding)
        rest = rest.replace(loss.group(0), " ", 1)
    found = vocabulary.find(rest)
    # a value found in another form of a word of the query language ("overall" of *Overalls*) is that word
    found = replace(found, mentions=tuple(m for m in found.mentions if m.exact or m.words not in _OWN))
    words = normalise(rest).split()
    used = {w for phrase in found.used for w in phrase.split()}
    limited = _LIMIT.search(rest)
    numbers = {w for w in (limited.group(0).split() if limited else []) if w.isdigit() or w in NUMBER_WORDS}
    numbers |= set(re.findall(r"\b(?:those|these|the)\s+(\w+)\b", rest)) & set(NUMBER_WORDS)
    # "our top 3 products": the 3 is how many, never a key's value
    found = replace(found, mentions=tuple(m for m in found.mentions if not set(m.words.split()) <= numbers))
    # a named column's own words ("shipped first class": Ship mode), but never a thing the file has
    # of its own ("top product in Books": a product, not the Product category)
    things = {e.value for e in Entity if model.key_of(e) is not None or model.label_of(e) is not None}
    titled = {
        root(w)
        for name in _named_columns(found)
        for w in normalise(model.column(name).title).split()
        if w not in things or model.column(name).entity is not None
    }
    reading.left = [
        w
        for w in words
        if w not in used
        and w not in numbers
        and not is_plain(w, _PLAIN)  # "gets", "counting": a form of a plain word
        and root(w) not in titled  # "shipped first class": a form of the column's own word
    ]
    whose = _TRAITS_OF.search(text)
    if whose is not None and _traits_only(model, whose["who"]):  # "customers who are not Adults"
        reading.left = [w for w in reading.left if w != whose["who"]]
    other = vocabulary.in_other_forms(  # "paid" for Payment, "tax" for Tax 5%, not "discounted" lines
        w for w in reading.left if _measure_had(model, w, set()) is None
    )
    if other.used:
        reading.left = [w for w in reading.left if w not in other.used]
        found = replace(
            found,
            mentions=(*found.mentions, *other.mentions),
            columns=tuple(dict.fromkeys((*found.columns, *other.columns))),
            metrics=tuple(dict.fromkeys((*found.metrics, *other.metrics))),
            used=(*found.used, *other.used),
        )
    # "outside the UK"; "f&b" (Food & Beverage), never a word however written
    written = [(c.lower(), [c.lower()]) for c in re.findall(r"\b[A-Z]{2,4}\b", question)]
    written += [
        ("".join(pair), list(pair)) for pair in re.findall(r"\b([a-z])\s?&\s?([a-z])\b", question.lower())
    ]
    for initials, letters in written:
        if not all(w in reading.left or w in words for w in letters):
            continue
        coded = [] if initials in vocabulary.initials else vocabulary.codes(initials)  # "the US": as written
        held = [vocabulary.initials[initials]] if initials in vocabulary.initials else coded
        if held and not any(m.words == " ".join(letters) for m in found.mentions):
            reading.left = [w for w in reading.left if w not in letters]
            spoken = " ".join(letters)
            found = replace(found, mentions=(*found.mentions, *(Mention(c, v, spoken) for c, v in held)))
    found = _qualified(found, words, model)
    run = _name_run(question, reading.left, found, vocabulary)  # "the Global Troy tilter": one product
    if run is not None:
        holder, run_words, run_text = run
        reading.left = [w for w in reading.left if w not in run_words]
        kept = tuple(m for m in found.mentions if not set(m.words.split()) <= set(run_words))
        found = replace(found, mentions=(*kept, Mention(holder, run_text, " ".join(run_words))))
    named_part = (
        chosen  # "the vintage christmas one", of the choices just offered
        or _part_of_a_name(question, reading.left, vocabulary, listed)  # "the Xerox 1881", "Chand"
        or lower_run(question, reading.left, vocabulary)  # "the paper chain kit"
    )
    if named_part is not None:
        holder, words_used, text_used = named_part
        reading.left = [w for w in reading.left if w not in words_used]
        found = replace(found, mentions=(*found.mentions, Mention(holder, text_used, " ".join(words_used))))
    said_short: dict[str, tuple[Mention, ...]] = {}
    for word in [w for w in reading.left if w not in _PLAIN]:
        dimension = vocabulary.dimension_of_word(word)  # "the fashion one", "the accessories line"
        held = [(c, v) for c, v in vocabulary.holding_word(word) if c in found.columns or not found.columns]
        if dimension is not None:
            reading.left.remove(word)
            found = replace(found, mentions=(*found.mentions, Mention(dimension, word, word)))
        elif len(held) == 1:  # "the mall machine": the one machine with "mall" in its name
            reading.left.remove(word)
            found = replace(found, mentions=(*found.mentions, Mention(*held[0], word)))
        elif 1 < len(held) <= _CHOICES:  # two machines are in the mall: which one is asked
            said_short[word] = tuple(Mention(column, value, word) for column, value in held)
    capitalised = {normalise(w) for w in re.findall(r"(?<![.?!]\s)(?<!^)\b[A-Z][a-z]+\b", question)}
    for word in [w for w in reading.left if w in capitalised]:
        began = vocabulary.starting_with(word)  # "Metro": *Metrocity*, or it and *Metropol AVM*
        if len(began) == 1:
            reading.left.remove(word)
            found = replace(found, mentions=(*found.mentions, Mention(began[0][0], began[0][1], word)))
        elif 1 < len(began) <= _CHOICES:  # which one is asked, never guessed
            said_short[word] = tuple(Mention(column, value, word) for column, value in began)
    # "17 days ago", "8 orders": an amount of time or a count the reading has no place for
    reading.left += [
        m.group(0)
        for m in _DURATION.finditer(rest)
        if limited is None or not limited.start() <= m.start() < limited.end()  # "the bottom 2 months"
    ]
    reading.left += periods_left_out
    # "avg number of days from order to delivery": the days between two dates the file lacks
    reading.left += [m.group(0) for m in _DAYS_BETWEEN.finditer(text)]
    found = _cancellation_meant(found, model)
    found = _as_before(found, previous, reading, model)
    several = _ambiguous(found)
    reading.left += several
    reading.ambiguous = {w: tuple(m for m in found.mentions if m.words == w) for w in several} | said_short
    found = of_the_named_column(found)  # "customer 22156": the customer, not the stock code 22156
    found = _kept_periods(found, rest)  # "excluding the holiday weeks": the weeks kept, no breakdown
    reading.named = bool(
        found.mentions or found.columns or found.metrics or found.grains or "window" in args or phrased
    )
    cues = set(words)
    clauses = len(re.findall(r"\b[a-z]+s\s+who\b", text))
    if clauses and clauses == len(re.findall(r"\bwho\b", text)):  # "customers who aren't Adults": no "who…?"
        cues.discard("who")
    opens = _WHAT_THINGS.match(text)
    opened = vocabulary.find(opens["things"]) if opens is not None else None
    if opened is not None and (
        opened.columns or any(_counted_entity(model, m) is not None for m in opened.metrics)
    ):  # "what products do we…": which
        cues.add("which")
    ranked_by_count = _BY_COUNT.search(text)  # "worst seller by number of pizzas sold": how it ranks
    counting = bool(_COUNTING.search(_BY_COUNT.sub("by", text)))
    ranking = bool(cues & _RANKING)

    metrics = list(found.metrics)
    groups: list[dict[str, Any]] = []
    # "revenue from invoices under 100": the invoices kept, their revenue together (counted: how many)
    taken_together = [t.pop("together", False) for t in thresholds]
    together = not counting and not _LISTED.search(text) and any(taken_together)
    filters = _never_bought(_filters(text, found), model, vocabulary, text)
    filters += [_never_ranged(t, model, vocabulary, text) for t in thresholds]
    filters += [rule for rule in phrased if "bands" not in rule]
    groups += [rule for rule in phrased if "bands" in rule]
    groups += [t["group"] for t in thresholds if "group" in t]  # "invoices over 500", counted
    keyed = {model.column(g["column"]).entity for g in groups if "grain" not in g} - {None}
    each = [t["metric"] for t in thresholds if "group" in t]
    if (
        counting
        and any(_counted_entity(model, m) in keyed for m in metrics)
        and all(_counted_entity(model, m) in keyed or m in each for m in metrics)
    ):  # "how many orders had one line": each order is one order, listed with its lines
        metrics = list(dict.fromkeys(m for m in metrics + each if _counted_entity(model, m) not in keyed))
    kind = _kind_of_thing(reading.left, model, vocabulary)  # "doormats": every product named a doormat
    if kind is not None:
        column, plural, word = kind
        reading.left.remove(plural)
        reading.named = True
        filters.append({"column": column.name, "op": "contains", "values": [word]})
        if counting and not metrics and column.entity is not None:
            metrics = [
                m.name for m in model.metrics if m.kind is Kind.count_distinct and _counts(model, m, column)
            ][:1]
    # a column named beside one value of its own is that value's ("the West region"); beside values
    # it leaves out, or several side by side, it is also what the answer is broken down by
    filter_columns = {
        f["column"]
        for f in filters
        if (f["op"] == "in" and len(f["values"]) == 1)
        or (f["op"] == "not_in" and not ranking and not (counting and not found.metrics))  # "how many
    }  # countries besides the UK": the countries left, counted
    if loss is not None:
        metrics = [*[m for m in metrics if m != "profit"], "profit"]
        filters.append({"metric": "profit", "op": "lt", "values": [0]})
        args["order"] = "asc"  # the biggest loss first
    ranged = {f["column"] for f in [*thresholds, *aged, *age_bands] if "column" in f}  # ranged, not asked
    for match in _HAVING.finditer(text):  # "orders with a discount", "sales without one"
        named = vocabulary.find(match["what"]).metrics
        over = model.metric(named[0]).over if named else None
        if over is not None and model.column(over).role is Role.measure and len(metrics) > 1:
            metrics = [m for m in metrics if m != named[0]]
            if over not in ranged:  # "a discount above 30%" is its own range
                filters.append({"column": over, "op": "le" if match["no"] else "gt", "values": [0]})
    for word in list(reading.left):  # "discounted lines", "undiscounted orders": a measure had or not
        measure = _measure_had(model, word, ranged)
        if measure is not None:
            filters.append({"column": measure, "op": "le" if word.startswith("un") else "gt", "values": [0]})
            reading.left.remove(word)
    metrics = _unscoped(metrics, text, model, filters)  # "profit on lines with…", "across all orders"
    if len(metrics) > 1:  # "orders by customers aged 60 or over": the age is a range, not a figure asked
        metrics = [m for m in metrics if model.metric(m).over not in ranged] or metrics
    ratio = _per(text, model, vocabulary) or _averaged(text, model, metrics)  # "average sales per order"
    if ratio is not None:
        metrics = [ratio]
        summed = {model.metric(part).over for part in model.metric(ratio).parts}  # "gross sales": its own
        found = replace(
            found, columns=tuple(c for c in found.columns if _is_not_key(model, c) and c not in summed)
        )
    for name in [c for c in found.columns if c in vocabulary.flags and not _BY_IT.search(text)]:
        # "B2B orders", "non-B2B revenue": a column of yes and no named as what the lines are
        phrase = next((p for p in found.used if vocabulary.find(p).columns == (name,)), name)
        denied = re.search(rf"\b(?:non|not|no|excluding|except|without)[\s-]+{re.escape(phrase)}\b", text)
        filters.append(
            {"column": name, "op": "not_in" if denied else "in", "values": [vocabulary.flags[name]]}
        )
        found = replace(found, columns=tuple(c for c in found.columns if c != name))
    for name in found.columns:
        column = model.column(name)
        if column.role is Role.measure:  # a figure asked, or the range of one ("sales over 200k")
            metric = _metric_over(model, name) if name not in ranged or not metrics else None
            if metric is not None and metric not in metrics:
                metrics.append(metric)
        elif column.role is Role.time:  # a date column is a window's or a grain's
            default = model.time
            if (
                default is not None and name != default.name and _dated_by(text, column, model)
            ):  # "engaged in 2016"
                for span in ("window", "compare"):
                    if span in args:
                        args[span] = {**args[span], "column": name}
            continue
        elif name not in filter_columns:
            key = model.key_of(column.entity) if column.role is Role.label and column.entity else None
            distinct = _distinct_ids(text, key or column, model, vocabulary, found)
            if distinct is not None:  # "count distinct order ids": the orders counted, not each order
                metrics += [distinct] if distinct not in metrics else []
                found = replace(found, metrics=(*found.metrics, distinct))  # what a follow-up asks now
                continue
            groups.append({"column": key.name if key is not None else name})
    dimensions = [] if metrics else _counted_columns(text, model, vocabulary)
    others = [g for g in groups if g["column"] not in dimensions]
    if dimensions and (len(dimensions) > 1 or others):
        # "how many retailers and how many states?", "which retailer sells in the most states?": how
        # many different values, each a figure of its own, by whatever else is grouped
        metrics = [f"{COUNT_PREFIX}{name}" for name in dimensions]
        groups = others
    else:
        dimensions = []
    metrics = _unscoped(metrics, text, model, filters)  # "the average discount of orders that…"
    if previous is not None and not metrics and VALUE.search(text):  # "the total value of those?"
        money = money_of(model, previous.get("metrics", []))
        if money is not None:
            metrics = [money]
            found = replace(found, metrics=(money,))
    place = place_column(model) if "where" in set(words) and not groups and not found.grains else None
    if place is not None:  # "where are they based?", "where do we sell most?": the place they are in
        groups.append({"column": place})
    customer = model.key_of(Entity.customer)
    recent = bool(_RECENCY.search(text)) and "window" in args  # "not since 2015": a last order, below
    # what each customer did or never did: a question about customers ("how many of those weren't
    # cancelled?" after orders is about the orders, a status's value)
    status = model.cancellation.column if model.cancellation is not None else None
    about_customers = customer is not None and (
        any(_counted_entity(model, m) is Entity.customer for m in found.metrics)
        or customer.name in found.columns
        or bool(cues & {"who", "whom", "anyone", "anybody", "everyone", "nobody", "noone"})
        or not any(f.get("column") == status for f in filters)
    )
    done = (
        done_or_not(text, model, vocabulary)
        if customer is not None and about_customers and not recent
        else []
    )
    if done and customer is not None and not found.grains:  # "customers who never cancelled anything"
        said = {w for rule in done for w in rule.pop("words").split()}
        reading.left = [w for w in reading.left if w not in said]
        filters = [  # "never cancelled" is what each did, not the lines of a status "Cancelled"
            f
            for f in filters
            if not f.get("column")
            or not {w for v in f.get("values", []) for w in normalise(str(v)).split()} <= said
        ]
        cues -= said  # "at least once" ranks nothing
        reading.named = True
        filters += done
        if not groups:
            groups.append({"column": customer.name})
        counted = [m for m in metrics if _counted_entity(model, m) is Entity.customer]
        metrics = [m for m in metrics if m not in counted] or ([done[0]["metric"]] if counted else [])
    if (
        cues & {"who", "whom"}
        and customer is not None
        and not groups
        and not found.grains
        and not _side_by_side(filters)  # "women vs men, who spends more?": the two, not customers
    ):
        groups.append({"column": customer.name})  # "who placed the most orders?": customers ranked
        metrics = [m for m in metrics if _counted_entity(model, m) is not Entity.customer]
    elif cues & {"who", "whom"} and customer is None and not groups and not found.grains:
        people = [c for c in model.with_role(Role.dimension) if set(normalise(c.title).split()) & _PEOPLE]
        if len(people) == 1 and not _side_by_side(filters):  # "who sold the most?": the sales people
            groups.append({"column": people[0].name})
    # "top customers", "which products": an entity's count is the entity ranked, unless counted;
    # "the priciest bike": the products by their highest price, the priciest one
    extreme = next((m for m in metrics if model.metric(m).kind in (Kind.minimum, Kind.maximum)), None)
    for metric_name in list(metrics):
        entity = _counted_entity(model, metric_name)
        key = (model.key_of(entity) or model.label_of(entity)) if entity is not None else None
        of_listed = previous is not None and listed is not None and bool(_AMONG.search(text))
        priced = extreme is not None and entity is Entity.product  # a purchase's is its own line
        if key is None or counting or not (ranking or priced) or groups or found.grains or of_listed:
            continue  # "which of the two had more transactions?": the two listed, ranked by them
        metrics.remove(metric_name)
        groups.append({"column": key.name})
        ranking = True  # the priciest one, and those tied with it
    metrics, groups = _units_of_things_sold(text, model, metrics, groups)
    if not metrics and groups and ranking and not counting:
        metrics = [_default_metric(model, cues, counting=ranked_by_count is not None)]
    time = model.time
    for grain in found.grains:
        # an hour is of a column with times of day (the one named, if several), a period of a date's
        clocked = [c for c in model.clocked if c.name in found.columns] or model.clocked
        periodic = (clocked[0] if clocked else None) if grain == "hour" else time
        if periodic is not None:
            groups.append({"column": periodic.name, "grain": grain})
    covered = _COVERED.search(text) if not groups and model.time is not None else None
    if covered is not None and model.time is not None:  # "what date range does the file cover?"
        ends = [f"first_{model.time.name}", f"last_{model.time.name}"]
        if set(ends) <= {m.name for m in model.metrics} and set(metrics) <= set(ends):
            metrics = ends
            said = {*covered[0].split(), *_COVERING}
            reading.left = [w for w in reading.left if w not in said]
            reading.named = True
    when = _WHEN.search(text)
    if not metrics and when is not None and model.time is not None:  # "when was their last one?"
        first = when["which"] in ("first", "earliest")
        dated = f"{'first' if first else 'last'}_{model.time.name}"
        if dated in {m.name for m in model.metrics}:
            metrics = [dated]
            found = replace(found, metrics=(dated,))  # what a follow-up asks now
    if not metrics and (found.mentions or groups or "window" in args or phrased):
        about = [m.column for m in found.mentions] + [g["column"] for g in groups]
        items = any(model.column(name).entity is Entity.product for name in about)
        tallied = (counting and not groups) or _whole_only(model, items)
        metrics = [_default_metric(model, cues, counting=tallied)]
    revenue = _default_metric(model)
    if _HOW_MUCH_TOO.search(text) and metrics and revenue not in metrics:
        names = {m.name for m in model.metrics}
        lost = "cancelled_orders" in metrics and "cancelled_revenue" in names  # "…and how much was on them?"
        metrics.append("cancelled_revenue" if lost else revenue)  # "how many units…, and for how much?"
    if gross and "gross_revenue" in {m.name for m in model.metrics}:
        metrics = ["gross_revenue" if m == "revenue" else m for m in metrics]
    elif gross and (kept_only := _cancelled_rows(model, cancelled=False)) is not None:
        filters.append(kept_only)
    metrics = _one_extreme(metrics, text, model)  # "the priciest product by unit price"
    common = _most_common_value(metrics, groups, cues, model)
    if common is not None:  # "the most common quantity per transaction": the quantity most lines have
        metrics, groups = common
    if (  # "how many sales were over 15k?": the sales counted, not summed
        _HOW_MANY_SALES.search(text)
        and len(metrics) == 1
        and model.metric(metrics[0]).unit == "money"
        and "orders" in {m.name for m in model.metrics}
    ):
        metrics = ["orders"]
    args["metrics"] = metrics[:6]
    if groups:
        args["group_by"] = _unique(groups)[:3]

    for rule in filters:  # "furniture vs office supplies": side by side, unless grouped otherwise
        if (
            rule.get("column")
            and rule["op"] == "in"
            and len(rule["values"]) > 1
            and not args.get("group_by")
            and "part" not in rule
            and "ever_by" not in rule  # "receipts with pandoro or orange pound": either, together
        ):
            args["group_by"] = [{"column": rule["column"]}]
    if not args.get("group_by") and YES_OR_NO.match(text):  # "is customer 22156 High Value?"
        filters, asked = attribute_asked(filters, model)
        if asked is not None:
            args["group_by"] = [{"column": asked}]  # their segment, said, whatever it is
    if filters:
        args["filters"] = filters
    whole = _whole_asked(text, args, found, last_day) if not groups else None
    if whole is not None:  # "what share of 2011 revenue came from Q4?": Q4 over the whole of 2011
        args["share_of"] = whole
    elif cues & _SHARE or re.search(r"%\s+of\b", text) or (args.get("group_by") and _SPLIT.search(text)):
        args["share"] = True
        parts = [f for f in filters if "part" in f]
        grouped_by = {g["column"] for g in groups}
        valued = [
            f
            for f in filters
            if f.get("column") not in grouped_by | {None}
            and f["op"] == "in"
            and "part" not in f
            and "never_by" not in f
        ]
        if groups and len(valued) == 1 and _WITHIN.search(text):
            # "what % of transactions were credit, by location?": of each location's own, not of all credit
            del args["share"]
            others = [f for f in filters if f is not valued[0]]
            args["share_of"] = {
                **{k: v for k, v in (("window", args.get("window")), ("filters", others)) if v},
                "each_group": True,
            }
        elif (not groups and filters and filters[0]["op"] == "in" and "part" not in filters[0]) and len(
            filters[0]["values"]
        ) == 1:  # "…from the West?": its figure, and its share of the rest
            del args["share"]
            others = filters[1:]
            args["share_of"] = {k: v for k, v in (("window", args.get("window")), ("filters", others)) if v}
        elif not groups and filters and filters[0]["op"] == "in" and "part" not in filters[0]:
            args["group_by"] = [{"column": filters[0]["column"]}]  # "women vs men, share of revenue?"
            args["filters"] = filters[1:]
        elif not groups and parts:  # "what share of sales happens from 6pm?": of all the hours
            del args["share"]
            unparted = [f for f in filters if "part" not in f]
            args["share_of"] = {k: v for k, v in (("window", args.get("window")), ("filters", unparted)) if v}
    rate = next((m.name for m in model.metrics if m.name == "cancellation_rate"), None)
    asked = args.get("metrics", [])
    if (
        args.get("share")
        and not args.get("group_by")
        and rate is not None
        and len(asked) == 1
        and model.metric(asked[0]).only == "cancelled"
        and model.metric(asked[0]).kind is not Kind.sum
    ):  # "what % of all orders got cancelled?": the cancellation rate
        args["metrics"] = [rate]
        del args["share"]
    if cues & _LOW and not cues & _HIGH:
        args["order"] = "asc"
    args["metrics"] = _beside_its_parts(args.get("metrics") or [], model)
    if "order" in against_plan:  # "furthest under its sales budget": the lowest variance first
        args["order"] = "asc"
    if "filter" in against_plan:  # "did any market not hit its budget?": those under it
        args["filters"] = [*args.get("filters", []), against_plan["filter"]]
    ranked = str(args.get("order_by") or (args.get("metrics") or [""])[0])
    judged = next((m for m in model.metrics if m.name == ranked), None)
    if cues & _JUDGED and judged is not None and judged.better == "lower":
        # the worst cancellation rate is the highest one: judged by the metric's own good direction
        args["order"] = "asc" if cues & _JUDGED & _HIGH else "desc"
    if (
        judged is not None
        and judged.kind is Kind.minimum
        and judged.unit != "date"
        and not cues & (_HIGH | _LOW)
    ):
        args["order"] = "asc"  # "who is the youngest customer?": ranked by the lowest age, lowest first
    if (
        "compare" in args
        and args.get("group_by")
        and all(_one_period(args.get("window"), g.get("grain")) for g in args["group_by"])
    ):
        # "month-over-month growth from Feb into March": the two periods side by side, one figure each
        for ranked_key in ("group_by", "limit", "order", "order_by"):
            args.pop(ranked_key, None)
    if "compare" in args and args.get("group_by") and set(text.split()) & (_GROWTH | _DECLINE):
        args["by_change"] = True  # "which region grew most from 2016 to 2017?"
        if set(text.split()) & _DECLINE:
            args["order"] = "asc"
            reading.left = [w for w in reading.left if w not in _DECLINE]  # "dropped the most": read
    series = args.get("group_by", [])
    fell = bool(set(text.split()) & _DECLINE or _BACKWARDS.search(text))
    if (
        "compare" in args
        and len(series) == 1
        and series[0].get("grain") in ("day", "week", "month", "quarter")
        and len(find_periods(text)) == 1
        and not _one_period(args.get("window"), series[0]["grain"])
    ):  # "which month of 2019 grew the most?": each month against the one before, not 2019 against 2018
        args.pop("compare")
        args.pop("by_change", None)
        args.pop("by_growth", None)
    if (
        "compare" not in args
        and len(series) == 1
        and "grain" in series[0]
        and (fell or set(text.split()) & _GROWTH or _YEAR_BACK.search(text) or _STEP_BACK.search(text))
    ):  # "revenue growth by year", "which month grew most?", "a year where we went backwards?"
        args["each_against_previous"] = True
        reading.left = [w for w in reading.left if not _BACKWARDS.fullmatch(w)]
        if ranking or fell:
            args["by_change"] = True
            args["order"] = "asc" if fell else "desc"
    if args.get("by_change") and _AS_RATE.search(text):  # "grew fastest", "the biggest % growth"
        args["by_growth"] = True
    limit = _limit(text)
    grouped = args.get("group_by", [])
    ranged_groups = any("metric" in t for t in thresholds)  # "which hours had over 1000 orders?": all
    side_by_side = bool(grouped) and _side_by_side(filters, grouped[0]["column"])  # both, and the gap
    if (
        limit is None
        and ranking
        and not ranged_groups
        and not side_by_side
        and (len(grouped) == 1 or _of_one_order(grouped, model))  # "biggest order? which dealer"
        and "grain" not in grouped[0]
        and not _RECENCY.search(text)
        and not _SORTED.search(text)  # "revenue by product line, biggest first": all of them, in order
        and _one_asked(
            text,
            model.column(grouped[0]["column"]),
            who=bool(cues & {"who", "whom"} and cues & (_HIGH | _LOW)),
            also=_counted_as(model, model.column(grouped[0]["column"])),
        )
    ):
        limit = 1  # "who's our biggest customer?": one, and those tied with it
    if (
        ranking and grouped and all("grain" in g or "bands" in g for g in grouped)
    ):  # "which month had the most?"
        args["order_by"] = args["metrics"][0]
        if limit is None and not _PERIODS.search(text) and not ranged_groups:
            limit = 1  # one period asked for; those tied with it are named too
    if limit is None and ranking and _THE_ONE.search(text):  # "and the weakest one?" after a top 3
        limit = 1
    if limit is not None:
        args["limit"] = limit
    elif any("grain" in g for g in args.get("group_by", [])) or any("metric" in f for f in filters):
        args["limit"] = MAX_ROWS  # a series in time, or every group that passes ("which states lost money?")
    negated = _negated_period(text)
    if negated and not (
        _RECENCY.search(text)
        and _recency(args, model, vocabulary, last_day, text, previous, since_first=True)
    ):
        reading.left.append(negated)  # "bought in 2017 but not in 2016": no comparison, nor a guess
    elif (
        not negated and _RECENCY.search(text) and _recency(args, model, vocabulary, last_day, text, previous)
    ) or negated:
        reading.left = [w for w in reading.left if w != "zero"]  # "zero sales since…": none, read
    grouped = args.get("group_by", [])
    periods = _HOW_MANY_PERIODS.search(text)
    spans = [g for g in grouped if g.get("grain") == periods["grain"]] if periods else []
    if spans:  # "on how many distinct days did we sell at least one car?", "how many days had sales?"
        args["group_by"], grouped, args["count"] = spans[:1], spans[:1], True
        args.pop("limit", None)
    elif (
        counting
        and not dimensions
        and len(grouped) == 1
        and "grain" not in grouped[0]
        and (
            any(
                "metric" in f or f.get("never_by") == grouped[0]["column"] for f in args.get("filters", [])
            )  # "how many customers haven't ordered since 2015?", "… had no sales in 2016?"
            or (
                not found.metrics and model.column(grouped[0]["column"]).role is not Role.measure
            )  # "how many countries", "how many different customer names"
        )
    ):
        entity = model.column(grouped[0]["column"]).entity
        ranges = {f.get("metric") for f in args.get("filters", [])}
        if any("metric" in f for f in args.get("filters", [])) and any(
            _counted_entity(model, m) not in (entity, None) or model.metric(m).kind is Kind.sum
            for m in found.metrics
            if m not in ranges  # "how many states had sales over 20m?": the states, counted
        ):
            together = True  # "how many units were sold on invoices over 500?": the units, not the invoices
        else:
            args["count"] = True  # the groups that pass, counted
    if together and not args.get("share") and "compare" not in args:
        args["together"] = True
        for unranked in ("limit", "order", "order_by"):
            args.pop(unranked, None)
    if previous is not None and (row is not None or _FOLLOW.search(text)):
        asked_window = "window" in args
        reading.follow_up = True
        args = _patched(previous, args, found, text, model)
        reading.named = True
        if row is not None and "@" in row.column:  # "how did that compare to the month before?"
            args = _about_period(args, row.column, row.value, text)
        elif row is not None and _NEVER_IT.search(text):  # "which states never bought it?"
            args = _never_had_row(args, asked_window, row, model, vocabulary, text, previous)
        elif row is not None and _CONTENTS.search(text) and (contained := _contents(row, model)) is not None:
            args = contained  # "what was on it?" after the biggest receipt: its items
        elif row is not None:
            shared = bool(args.get("share")) and bool(cues & _SHARE or "%" in text)
            args = _about_row(args, row.column, row.value, left_out=left_row_out)
            args = _share_of_one({**args, "share": True} if shared else args)  # "what share is the #1 state?"
    elif (
        previous is not None
        and not found.metrics
        and not groups
        and args.get("share")
        and len(words) <= _SHORT
    ):
        reading.follow_up = True  # "as a % of total?": the figure before, as a share
        args = _share_of_one(_patched(previous, args, found, text, model))
        reading.named = True
    elif (
        previous is not None
        and not found.metrics
        and not groups
        and (filters or "window" in args)
        and len(words) <= _SHORT
        and not (_HOW_MANY_MUCH.search(text) and _SOLD.search(text))  # "how much did we sell on…?": its own
        and not _MADE.search(text)  # "what did we make on valentines day" after units: the money made
    ):
        reading.follow_up = True  # "in the West?", "for 2016": the question before, narrowed
        args = _patched(previous, args, found, text, model)
        reading.named = True
    elif (
        previous is not None
        and not found.metrics
        and _periods_of(groups) is not None
        and _periods_of(groups) == _periods_of(previous.get("group_by", []))
        and "window" not in args
        and cues & (_HIGH | _LOW)
        and len(words) <= _SHORT
        and not _ALL_TIME.search(text)
    ):
        reading.follow_up = True  # "best month?" after the months of 2011: the best of those
        args = _patched(previous, args, found, text, model)
        reading.named = True
    elif (
        previous is not None
        and "compare" in previous
        and not found.metrics
        and not groups
        and (cues & (_GROWTH | _DECLINE) or _YEAR_BACK.search(text) or _STEP_BACK.search(text))
    ):
        reading.follow_up = True  # "so what's the yoy growth?" after two years side by side: their change
        args = _patched(previous, args, found, text, model)
        reading.named = True
    elif (
        previous is not None
        and "compare" in previous
        and found.metrics
        and not groups
        and "window" not in args
        and cues & _GROWTH
    ):
        reading.follow_up = True  # "profit grew more - by how much %?": the same two periods, of profit
        args = _patched(previous, args, found, text, model)
        reading.named = True
    elif (
        previous is not None
        and (previous.get("group_by") or _one_of_many(previous, model) is not None)
        and not found.metrics
        and not groups
        and (limited is not None or (cues & (_HIGH | _LOW) and len(words) <= 2))
        and len(words) <= _SHORT
    ):
        reading.follow_up = True  # "bottom 3?", "top 10 instead", "fewest?": the ranking before, cut anew
        args = _patched(_one_of_many(previous, model) or previous, args, found, text, model)
        reading.named = True
    # a series of periods moved each against the one before ("was there a year we went backwards?")
    moved = not any("grain" in g for g in args.get("group_by", [])) and (
        cues & (_GROWTH | _DECLINE) or _BACKWARDS.search(text) or _WENT_UP.search(text)
    )
    fell = bool(cues & _DECLINE or _BACKWARDS.search(text))
    if moved and previous and "compare" in previous and "window" not in args and args.get("group_by"):
        args.update(
            window=previous["window"], compare=previous["compare"]
        )  # "how many stores went backwards?"
    if "compare" in args and args.get("group_by") and moved and not cues & (_HIGH | _LOW) and not limited:
        # "how many stores went backwards?", "which products grew?": the groups whose change is so
        ranked = args.get("order_by") or args["metrics"][0]
        rule = {"metric": ranked, "op": "lt" if fell else "gt", "values": [0], "change": True}
        args = {k: v for k, v in args.items() if k not in ("by_change", "by_growth", "order", "limit")}
        args.update(
            filters=[*args.get("filters", []), rule], limit=MAX_ROWS, **({"count": True} if counting else {})
        )
        reading.left = [w for w in reading.left if w not in _DECLINE and not _BACKWARDS.fullmatch(w)]
    elif reading.follow_up and "compare" in args and args.get("group_by") and fell:
        # "who dropped the most?" after who grew most, or after how many went backwards: ranked
        kept = [f for f in args.get("filters", []) if not f.get("change")]
        args = {k: v for k, v in args.items() if k not in ("count", "filters")}
        args.update(by_change=True, order="asc", **({"filters": kept} if kept else {}))
        if cues & (_HIGH | _LOW):  # "the most": the one
            args["limit"] = 1
        reading.left = [w for w in reading.left if w not in _DECLINE]
    if (
        reading.follow_up
        and counting
        and not found.metrics
        and any(m.name == "orders" for m in model.metrics)
        and not any(model.metric(m).kind in (Kind.rows, Kind.count_distinct) for m in args.get("metrics", []))
    ):
        args["metrics"] = ["orders"]  # "and how many were 9 or above?" after the average rating: orders
    if reading.follow_up and args.get("group_by") and not args.get("count"):
        # "how many products…?" counts them: no breakdown by them (a count of groups kept keeps them)
        entities = {_counted_entity(model, m) for m in args.get("metrics", [])} - {None}
        breakdown = [
            g for g in args["group_by"] if "grain" in g or model.column(g["column"]).entity not in entities
        ]
        if len(breakdown) < len(args["group_by"]):
            args = {k: v for k, v in args.items() if k not in ("group_by", "limit")}
            args.update({"group_by": breakdown} if breakdown else {})
    if reading.follow_up and _WHICH_ONE.search(text) and "group_by" not in args:
        args = _ranked_among(args, model)  # "how many doormats…?", then "which one sold most?"
    if reading.follow_up and listed is not None and _AMONG.search(text) and not args.get("count"):
        # "how many of those…" after a count: the groups counted, kept by the query, not the few listed
        among, values = listed  # "which of those three…": the rows the answer before listed
        name, _, grain = among.partition("@")
        grouped = [g for g in args.get("group_by", []) if g.get("column") != name]
        if grain and not grouped:  # periods listed: those periods again ("which of those days…")
            args["group_by"] = [{"column": name, "grain": grain}]
        those: dict[str, Any] | None = None  # other periods listed are within the window kept
        if grain == "weekday":
            those = {"column": name, "part": "weekday", "op": "in", "values": values[:7]}
        left_out = _LEAVING_THOSE.search(text)  # "everything excluding those top 5 states": the rest
        if not grain:  # rows of a column: filtered to, or left out
            those = {"column": among, "op": "not_in" if left_out else "in", "values": values[:50]}
        if those is not None and values and left_out:  # the rows listed, whatever was kept of them since
            args["filters"] = [*[f for f in args.get("filters", []) if f.get("column") != among], those]
        elif those is not None and values and among not in {f.get("column") for f in args.get("filters", [])}:
            args["filters"] = [*args.get("filters", []), those]
        if left_out and not grain:  # the rest together, no longer broken down by the column
            args["group_by"] = grouped
            for ranked in ("limit", "order", "order_by", "share") if not grouped else ():
                args.pop(ranked, None)
    if divided is not None:  # read as its first figure, patched when a follow-up: the ratio of the two
        args["metrics"] = with_ratio(args.get("metrics") or [], divided)
        args["order_by"] = divided.name if args.get("order_by") == divided.top else args.get("order_by")
    args = each_period(args, every, model)
    if not args.get("metrics"):
        args.pop("metrics", None)
    args["filters"] = _not_left_out(args.get("filters", []), args.get("metrics", []), model)
    reading.arguments = {k: v for k, v in args.items() if v not in (None, [], {}) or k == "share_of"}
    reading.columns = _columns_read(model, reading.arguments)
    if found.metrics or reading.follow_up:  # a figure named, or the one asked before
        data_words = {w for phrase in found.used for w in phrase.split()} | titled
        own = [m.name for m in model.metrics] + [c.name for c in model.columns]
        data_words |= {root(w) for name in own for w in name.split("_")}  # "cancelled": cancelled_orders'
        _set_aside(reading, normalise(text).split(), data_words, vocabulary)
    return reading


_SUBJECT_BEFORE = _words("what whats which who whose how hows many much number amount total average avg mean")
_DETERMINERS = _words("the a an our my your their its this that these those all overall")
_LINKING = _words("is are was were be been being get gets got getting")
_PLACED = _words("in from at within inside across on of")
_OUT = _words("outside excluding except without besides minus")
"""Before a word, what is left out ("revenue *outside the mall*"): never a colouring either."""
_GROUPED = _words("by per each every")
"""Before a word, what it groups by ("revenue *by brand*", "units *per store*"): the answer's rows,
never a colouring."""


_OFF_THE_TABLE = _words(
    """marketing advertising advert adverts ads ad campaign campaigns promotion promotions budget budgets
    target targets forecast forecasts forecasting predict prediction projection weather rain raining rainy
    snow sunny temperature staff employee employees wage wages salary salaries payroll rent supplier
    suppliers competitor competitors traffic visits visitors website conversion inventory stock reason
    reasons why complaint complaints satisfaction age ages birthday freight postage overhead overheads
    utilities insurance electricity"""
)
"""What a sales table holds no figure on, whatever its columns: a question on one is declined, never
answered with the figures it does hold beside it ("spend on *marketing*")."""


_ADVERB = 6
"""The shortest adverb in -ly set aside anywhere ("really" and longer; "only", "early" are not)."""
_SAYS_WHICH = frozenset({"weekly", "monthly", "yearly", "hourly", "quarterly", "annually", "daily", "nightly",
                         "lately", "recently", "nearly", "likely", "unlikely", "family", "supply",
                         "finally", "initially", "originally", "previously", "currently", "locally",
                         "online", "internationally", "domestically", "globally", "overseas"})  # fmt: skip
"""Adverbs in -ly that say which lines or periods are meant: never set aside."""


def _set_aside(
    reading: SemanticReading, tokens: list[str], data_words: set[str], vocabulary: Vocabulary
) -> None:
    """Words of English nobody taught the reader, set aside when the reading has a figure named and
    each of them only colours the question ("how's this year *shaping* up against last year in cars
    sold?", "units bought by *shoppers* other than members"), as Power BI Q&A answers with the words it
    knows and greys the rest out; the answer then says which words it did without.

    A word is kept -- and the question not read -- when it may be what is asked or a condition on it:
    a number, a calendar word, a word of no dictionary (a name, a typo of a value), a superlative
    ("longest"), a comparative before "than", a word beside one of the data's ("*marketing* spend",
    "customer *age*"), after "what's the" or "how many" ("what's the *weather*"), after "by" or "per"
    ("revenue by *brand*"), or after "were"
    ("how many cars were *returned*?"), beside another such word ("*regular customers*"), a subject a
    sales table lacks (:data:`_OFF_THE_TABLE`), or a form of the data's own words."""
    if not reading.left or not reading.named or not reading.arguments.get("metrics"):
        return
    for word in reading.left:
        if not (len(word) >= 3 and word.isalpha() and is_english(word)) or word in _OFF_THE_TABLE | _PLAIN:
            return  # a plain word left is one a cue put back ("not" of a period not negated)
        found = vocabulary.find(word)
        if found.metrics or found.columns or found.mentions or root(word) in data_words:
            return
        if word in _CALENDAR or word in CALENDAR_WORDS or word in NUMBER_WORDS or word in ORDINALS:
            return
        if word.endswith("est"):
            return
        places = [i for i, token in enumerate(tokens) if token == word]
        if not places:
            return
        if word.endswith("ly") and len(word) >= _ADVERB and word not in _SAYS_WHICH:
            continue  # "for large pizzas *specifically*", "*roughly* how much": how, never what
        for at in places:
            before = tokens[at - 1] if at > 0 else ""
            after = tokens[at + 1] if at + 1 < len(tokens) else ""
            if before in data_words or after in data_words or before in _LINKING | _PLACED | _GROUPED | _OUT:
                return  # "revenue in Germany": where or what the figure is of, never a colouring
            if before in reading.left or after in reading.left:
                return
            if after == "than" and word.endswith("er"):
                return
            lead = at - 1
            while lead >= 0 and tokens[lead] in _DETERMINERS:
                lead -= 1
            if lead >= 0 and tokens[lead].replace("'", "") in _SUBJECT_BEFORE | _OUT | _GROUPED:
                return
    reading.aside, reading.left = list(dict.fromkeys(reading.left)), []


def _whole_asked(text: str, args: dict[str, Any], found: Any, last_day: date | None) -> dict[str, Any] | None:
    """The whole a share is asked of ("share of <2011 revenue> came from <Q4>", "% of <total revenue>
    is <the UK>"), when the rest of the question names the part: the window and filters the whole
    phrase names become the whole's, and the part keeps them plus its own. What the question leaves
    out beside naming a part is left out of the whole too. None when no part is named."""
    match = _SHARE_OF.search(text)
    if match is None:
        return None
    start, end = match.span("whole")
    phrase, rest = text[start:end], text[:start] + " " * (end - start) + text[end:]
    whole_time: dict[str, Any] = {}
    part_time: dict[str, Any] = {}
    _read_time(phrase, last_day, whole_time, SemanticReading())
    _read_time(rest, last_day, part_time, SemanticReading())

    def in_whole(rule: dict[str, Any]) -> bool:
        said = [
            m.words for m in found.mentions if m.column == rule.get("column") and m.value in rule["values"]
        ]
        return any(start <= text.find(words) < end for words in said)

    rules = args.get("filters", [])
    whole_rules = [rule for rule in rules if "column" in rule and in_whole(rule)]
    if "window" not in part_time and len(whole_rules) == len(rules):
        return None  # no part named: a share of what?
    left_out = [r for r in rules if r.get("op") == "not_in" and r not in whole_rules]
    if any(r not in whole_rules and r not in left_out for r in rules) or "window" in part_time:
        whole_rules += left_out  # "if we ignore Ewallet, what share is Fashion?": of the rest too
    args.pop("compare", None)
    window = part_time.get("window") or whole_time.get("window")
    if window is not None:
        args["window"] = window
    else:
        args.pop("window", None)
    # "what share of revenue came from Germany in 2011": of 2011's revenue, when the whole names no
    # period; "of all-time revenue", or a part that is only a period ("of total revenue, from 2016"): of
    # every period
    only_a_period = "window" in part_time and all(r in whole_rules for r in rules)
    every_period = only_a_period or bool(_ALL_TIME.search(phrase.replace("-", " ")))
    whole_window = whole_time.get("window") or (None if every_period else window)
    return {k: v for k, v in (("window", whole_window), ("filters", whole_rules)) if v}


def extra_columns(model: SemanticModel, columns: set[str]) -> bool:
    """Whether the query reads a column only this file has (a region, a profit, a customer's name
    shown beside the key): the questions the retail tables cannot answer."""
    for name in columns:
        column = model.column(name)
        if column.role is not Role.ignore and column.mapped is None:
            return True
    return False


def _kept_before(text: str, previous: dict[str, Any] | None, model: SemanticModel) -> RowReference | None:
    """The one thing the query before was kept to, named by its noun ("that receipt" after what was
    on the biggest receipt: that receipt, not a row of the items listed)."""
    for rule in (previous or {}).get("filters", []):
        if rule.get("column") and rule.get("op") == "in" and len(rule.get("values", [])) == 1:
            held = (str(rule["column"]), [str(rule["values"][0])])
            row = named_row(text, held[0], held[1][0], _nouns_of(held, model))  # never by a pronoun
            if row is not None:
                return row
    return None


def _nouns_of(listed: tuple[str, list[str]] | None, model: SemanticModel) -> frozenset[str]:
    """The words a listed column's row is called by ("that team" of *Sales team ID*, "that receipt"
    of the orders counted as receipts)."""
    name = listed[0].partition("@")[0] if listed else ""
    column = next((c for c in model.columns if c.name == name), None)
    if column is None:
        return frozenset()
    said = [column.title, *column.synonyms, *([column.entity.value] if column.entity else [])]
    said += [w for w in _counted_as(model, column) if " " not in w]
    return frozenset(w for phrase in said for w in normalise(phrase).split() if len(w) > 2 and is_english(w))


def _of_year(period: str, year: int) -> str:
    """A period said without its year ("--Q1", "--03", "--H1") in ``year``; any other as it is."""
    if period in ("--H1", "--H2"):
        return f"{year}-01-01..{year}-06-30" if period == "--H1" else f"{year}-07-01..{year}-12-31"
    return f"{year}-{period[2:]}" if re.fullmatch(r"--(?:Q[1-4]|\d\d)", period) else period


def _read_time(
    text: str,
    last_day: date | None,
    args: dict[str, Any],
    reading: SemanticReading,
    comparing: bool = False,
    year: int | None = None,
) -> str:
    """The window (and a comparison) from the periods the text names; the text without them.
    ``comparing``: the answer before compared two periods, so "and from jan to feb?" compares too;
    ``year``: the year of the answer before, of a period said without one."""
    found = find_periods(text)
    if not found or last_day is None:
        return text
    placed: list[Period] = []
    blanked = text
    # "H1 vs H2 2023", "Q1 vs Q2 2022": a period without its year is of the year another one names
    # (else of the answer before's: "how does that compare to Q1?" after Q2 2023)
    named = [int(p.period[:4]) for p in found if re.match(r"(?:19|20)\d\d", p.period)]
    year = named[0] if len(set(named)) == 1 else year
    for period in found:
        value = _of_year(period.period, year) if year is not None else period.period
        try:
            placed.append(parse_period(value, last_day))
        except PeriodError:
            continue
        start, end = period.span
        blanked = blanked[:start] + " " * (end - start) + blanked[end:]
    if not placed:
        return text
    before = text[: found[0].span[0]]
    spans = len(placed) == _TWO_SPANS and len(found) == _TWO_SPANS
    if spans and _VERSUS.search(text[found[1].span[1] : found[2].span[0]]):
        # "from feb 11 2012 to feb 20 2012 vs from feb 11 2011 to feb 20 2011": two spans side by side
        one, other = (Period(a.first, b.last, "", "range") for a, b in (placed[:2], placed[2:]))
        later, earlier = (one, other) if one.first > other.first else (other, one)
        args["window"], args["compare"] = _window(later), _window(earlier)
        return blanked
    if len(placed) == 1:
        current = placed[0]
        if _SINCE.search(before) or (
            before.rstrip().endswith(" from") and _ONWARDS.match(text[found[0].span[1] :])
        ):  # "since March", "from Q3 onwards"; "came from Q4" is Q4's
            current = Period(current.first, last_day, "", "range")
        elif _UNTIL.search(before):
            current = Period(date(1900, 1, 1), current.first - timedelta(days=1), "", "range")
        args["window"] = _window(current)
        if _YEAR_BACK.search(text):
            args["compare"] = _window(current.year_before())
        elif _STEP_BACK.search(text) or set(text.split()) & _GROWTH:
            args["compare"] = _window(current.before())
    else:
        first, second = placed[0], placed[1]
        between = text[found[0].span[1] : found[1].span[0]]
        growth = bool(set(text.split()) & _GROWTH) or comparing
        if (
            not growth
            and (
                # "from 2021 to 2022", "across 2021 and 2022", "over 2021-2022": one span, both included
                (re.search(r"\b(?:to|until|through|and)\b|-", between) and _SPAN_FROM.search(before))
                or (  # "over May and June combined"
                    re.fullmatch(r"\s*(?:and|&|\+)\s*", between)
                    and re.match(
                        r"\s*(?:combined|together|put together|in total)\b", text[found[1].span[1] :]
                    )
                )
                or (
                    re.fullmatch(r"\s*(?:-|\u2013|to|through|thru)\s*", between)
                    and (  # "in 2021" is a period's; "for Mar" too
                        _SPAN_IN.search(before)
                        or re.match(r"(?:in|over|during|for)\b", text[found[0].span[0] :])
                    )
                )
            )
        ):
            args["window"] = _window(Period(first.first, second.last, "", "range"))
        else:  # two periods side by side: the later one against the earlier one
            later, earlier = (first, second) if first.first > second.first else (second, first)
            if (later.first, later.last) == (earlier.first, earlier.last):
                earlier = later.before()  # "this year against last year": the latest, and the one before
            args["window"], args["compare"] = _window(later), _window(earlier)
    return blanked


_TWO_SPANS = 4
"""Periods that make two spans: each one's first and last."""
_VERSUS = re.compile(r"\b(?:vs\.?|versus|against|compared(?:\s+(?:to|with))?)(?:\s|$)")
_SPAN_FROM = re.compile(r"\b(?:from|between|across|throughout|spanning|covering)\s*$")
_SPAN_IN = re.compile(r"\b(?:in|over|during|for)\b\s*(?:$|(?=\d))")
"""What says two periods are the ends of one span: "across 2021 and 2022"; "in 2021-2022" only with
a dash or "to" (never "and": "in 2021 and 2022" may set them side by side)."""


_PART_OF_MONTH = re.compile(
    rf"(?P<to>\b(?:to|through|thru|until|till)\s+|-\s*)?\b(?P<part>early|mid|late)[\s-]+(?P<month>{_MONTH})\b"
    rf"(?P<year>\s+(?:19|20)\d\d)?(?P<on>\s*(?:-|to|through|thru|until|till)\b)?"
)
"""A third of a month ("late October", "early March"): its days 21 to the end, 1 to 10, 11 to 20."""
_THIRDS = {"early": ("1", "10"), "mid": ("11", "20"), "late": ("21", "31")}


def _part_of_a_month(found: re.Match[str]) -> str:
    """A third of a month as its days; at either end of a span ("jan to late oct") the month itself."""
    month, year = found["month"], found["year"] or ""
    if found["to"] or found["on"]:
        return f"{found['to'] or ''}{month}{year}{found['on'] or ''}"
    first, last = _THIRDS[found["part"]]
    if found["part"] == "late":
        number = list(calendar.month_abbr).index(month[:3].capitalize()) if month[:3].isalpha() else 0
        last = str(calendar.monthrange(2001, number)[1]) if number else last
    return f"from {month} {first}{year} to {month} {last}{year}"


def _days_of_a_month(found: re.Match[str]) -> str:
    month, year = found["month"] or found["month2"], (found["year"] or "").replace(",", "")
    return f"from {month} {found['a'] or found['a2']}{year} to {month} {found['b']}{year}"


_TO_DATE = re.compile(r"\b(?:so far|to date|same (?:period|time|days)|like for like|like-for-like)\b")
"""A period the data has not finished, compared as far as it goes ("year to date", "this year so far
vs the same period last year"): the earlier period over as many days."""


def _side_by_side(filters: list[dict[str, Any]], column: str | None = None) -> bool:
    """Whether the question names several values of one column (of ``column``, if given) to set side
    by side ("women vs men")."""
    return any(
        f.get("op") == "in"
        and len(f.get("values", [])) > 1
        and column in (None, f.get("column"))
        and "ever_by" not in f  # "receipts with pandoro or orange pound": either, together
        for f in filters
    )


def _like_for_like(args: dict[str, Any], last_day: date) -> None:
    """The window cut at the data's last day, and the comparison cut after as many days."""
    window, compare = args.get("window"), args.get("compare")
    if window is None or compare is None:
        return
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    if not start <= last_day < end:
        return
    before = date.fromisoformat(compare["start"])
    if compare["start"] == _year_back(window)["start"]:  # a year back: the same date a year before
        cut = date.fromisoformat(_year_back({"start": window["start"], "end": last_day.isoformat()})["end"])
    else:
        cut = before + (last_day - start)
    cut = min(cut, date.fromisoformat(compare["end"]))
    args["window"] = {**window, "end": last_day.isoformat()}
    args["compare"] = {**compare, "end": cut.isoformat()}


def _window(period: Period) -> dict[str, str]:
    return {"start": period.first.isoformat(), "end": period.last.isoformat()}


def _name_run(
    question: str, left: list[str], found: Any, vocabulary: Vocabulary
) -> tuple[str, list[str], str] | None:
    """A run of words written as a name (capitalised, or with digits) with words the reading left
    over beside it, that together are part of names of one column: "the Global Troy tilter" is one
    product, not the city Troy and a product called Global; "the Cubify 3D printer" is two, to be
    offered. The run must hold a word left over (else its words were read as meant)."""
    tokens = [(m.group(0), normalise(m.group(0))) for m in re.finditer(r"[\w'-]+", question)]
    best: tuple[str, list[str], str] | None = None
    start = 0
    while start < len(tokens):
        end = start
        while end < len(tokens) and (
            tokens[end][0][:1].isupper()
            or any(c.isdigit() for c in tokens[end][0])
            or (tokens[end][1] in left and end > start)
        ):
            end += 1
        run = tokens[start:end]
        words = [w for _, w in run]
        if len(run) >= 2 and set(words) & set(left):
            holding = vocabulary.containing(words)
            if len(holding) == 1 and (best is None or len(words) > len(best[1])):
                (column,) = holding
                best = (column, words, " ".join(t for t, _ in run))
        start = max(end, start + 1)
    return best


def _part_of_a_name(
    question: str, left: list[str], vocabulary: Vocabulary, listed: tuple[str, list[str]] | None
) -> tuple[str, list[str], str] | None:
    """Words left over that the question writes as a name (capitalised, or with digits) and that
    are all part of some key's or label's value, in one column: that column and the words, to be
    looked up as written (the tool uses the one name it matches, or offers the several)."""
    written = [
        (w, at == 0 or question[: m.start()].rstrip().endswith((".", "?", "!", "-")))
        for at, m in enumerate(re.finditer(r"[\w'-]+", question))
        for w in [m.group(0)]
    ]
    # a capital a sentence starts with says nothing ("Pull up customer…") but in a name alone
    # ("Tamara"); digits always do
    alone = len(written) <= 3
    names = [
        w
        for w, first in written
        if normalise(w) in left
        and len(w) > 1  # "no C invoices": a letter alone names nothing
        and ((w[:1].isupper() and (alone or not first)) or any(c.isdigit() for c in w))
    ]
    if all(w.isdigit() and len(w) < 3 for w in names):
        return None  # "(discount > 0)", "top 5": a small number alone names nothing
    words = [normalise(w) for w in names]
    if not words:
        return None
    holding = vocabulary.containing(words)
    if listed is not None and listed[0] in holding:  # "Tamara", of the choices just offered
        chosen = [value for value in holding[listed[0]] if value in listed[1]]
        if len(chosen) == 1:
            return listed[0], words, chosen[0]
    if len(holding) != 1:
        return None
    (column,) = holding
    return column, words, " ".join(names)


def _chosen(text: str, listed: tuple[str, list[str]] | None) -> tuple[str, list[str], str] | None:
    """A question whose every word but plain English is in exactly one of the names just listed or
    offered, written in any case ("the sweetheart one" of three cakestands): that name."""
    if listed is None or "@" in listed[0]:
        return None
    # "the 70% one" of "50% Dark Bites" and "70% Dark Bites": a figure of the name is a word of it
    words = [
        n for w in text.split() if w not in _PLAIN for n in normalise(w).split() if len(n) > 2 or n.isdigit()
    ]
    picked = [v for v in listed[1] if words and all(w in normalise(v).split() for w in words)]
    if len(picked) != 1:
        return None
    return listed[0], words, picked[0]


def _kind_of_thing(
    left: list[str], model: SemanticModel, vocabulary: Vocabulary
) -> tuple[Column, str, str] | None:
    """A plural left over whose singular is a word of the names of one entity's things: "doormats",
    "mugs" (products so named). The column holding the names, the word as written, its singular."""
    for word in left:
        for said in dict.fromkeys([word.removesuffix("es"), word.removesuffix("s")]):
            if said == word or len(said) < 3:
                continue
            holding = vocabulary.containing([said])
            names = [model.column(name) for name in holding]
            named = [c for c in names if c.role is Role.label and c.entity is not None]
            if len(named) == 1 and len(holding[named[0].name]) > 1:
                return named[0], word, said
    return None


def _counts(model: SemanticModel, metric: Metric, column: Column) -> bool:
    """Whether ``metric`` counts the entity whose names ``column`` holds."""
    over = model.column(str(metric.over)) if metric.over else None
    return over is not None and over.entity is column.entity and over.role in (Role.key, Role.label)


_MODE = _words("common frequent usual typical")


def _most_common_value(
    metrics: list[str], groups: list[dict[str, Any]], cues: frozenset[str] | set[str], model: SemanticModel
) -> tuple[list[str], list[dict[str, Any]]] | None:
    """A measure's most common value ("the most common quantity", "the usual unit price"): the
    measure's values as the groups, ranked by how many lines have each; None for any other question."""
    if groups or len(metrics) != 1 or not cues & _MODE:
        return None
    metric = model.metric(metrics[0])
    if metric.kind is Kind.ratio and metric.numerator:  # "the most common quantity per transaction"
        metric = model.metric(metric.numerator)
    over = model.column(metric.over) if metric.over else None
    counted = next((m.name for m in model.metrics if m.kind is Kind.rows), None)
    if over is None or over.role is not Role.measure or metric.times or counted is None:
        return None
    return [counted], [{"column": over.name}]


def _one_extreme(metrics: list[str], text: str, model: SemanticModel) -> list[str]:
    """A line's extreme and the figure it is ranked "by": the extreme of that figure's measure
    ("the biggest single transaction by units": the most units on a line), and a figure of the
    extreme's own measure said again is the extreme ("the priciest product by unit price")."""
    found = [model.metric(name) for name in metrics]
    extremes = [m for m in found if m.kind in (Kind.minimum, Kind.maximum) and m.unit != "date"]
    if len(extremes) != 1:
        return metrics
    extreme = extremes[0]
    others = [m for m in found if m is not extreme and extreme.over not in (m.over, m.times)]
    if len(others) == 1 and others[0].over and re.search(r"\bby\b", text):
        over = model.column(others[0].over)
        twin = next(
            (
                m
                for m in model.metrics
                if m.kind is extreme.kind and m.over == over.name and over.role is Role.measure
            ),
            None,
        )
        return [twin.name] if twin is not None else metrics
    return [m.name for m in found if m is extreme or m in others]


def _unscoped(
    metrics: list[str], text: str, model: SemanticModel, filters: list[dict[str, Any]]
) -> list[str]:
    """Of several metrics, those not only named as the rows another is taken over
    (:func:`_scope_only`); rows that are the cancelled orders of a status ("what share of sales came
    from cancelled orders?") keep the lines of that status (``filters``, extended)."""
    if len(metrics) < 2:
        return metrics
    scopes = [m for m in metrics if _scope_only(text, model, m)]
    kept = [m for m in metrics if m not in scopes]
    if not kept:
        return metrics
    cancelled = _cancelled_rows(model, cancelled=True)
    if cancelled is not None and any(model.metric(m).only == "cancelled" for m in scopes):
        filters.append(cancelled)
    return kept


def _cancelled_rows(model: SemanticModel, *, cancelled: bool) -> dict[str, Any] | None:
    """The filter keeping the orders a status or a date of cancelling marks as cancelled (or those
    it does not); None for a file that marks none so (a reversal line is a metric's own)."""
    rule = model.cancellation
    if rule is not None and rule.values:
        return {"column": rule.column, "op": "in" if cancelled else "not_in", "values": list(rule.values)}
    if rule is not None and rule.written:
        return {"column": rule.column, "op": "present" if cancelled else "missing"}
    return None


def _scope_only(text: str, model: SemanticModel, name: str) -> bool:
    """Whether a count metric is only named as the rows something is taken over ("on lines", "the
    average price of cars that…"), not counted ("the number of orders and their revenue")."""
    metric = model.metric(name)
    if metric.kind not in (Kind.rows, Kind.count_distinct):
        return False
    spoken = {normalise(w) for w in (metric.name.replace("_", " "), metric.title, *metric.synonyms)}
    words = "|".join(re.escape(w) for w in sorted(spoken, key=len, reverse=True) if w)
    scope = (
        r"\b(?:on|across|over|among|from|(?<!\bnumber\s)(?<!\bcount\s)(?<!\btotal\s)(?<!\bamount\s)of)\s+"
        r"(?:all\s+)?(?:the\s+|their\s+|our\s+|its\s+)?(?:\w+ed\s+|[a-z]*\d[a-z\d]*\s+)?"
    )
    return bool(re.search(rf"{scope}(?:{words})\b", text))


_AGAINST_PLAN = re.compile(
    r"(?P<not>\b(?:not|never|fail(?:ed|s)?\s+to)\s+|n't\s+)?(?:\b(?:came|come|comes|was|were|is|are)\s+in\s+)?"
    r"(?:\b(?:the\s+)?(?:furthest|farthest|most|least)\s+)?"
    r"\b(?P<verb>beat|beats|beaten|hit|hits|reach(?:ed|es)?|made|make|miss(?:ed|es)?|exceed(?:ed|s)?|under|over|"
    r"above|below|short\s+of|ahead\s+of|behind|vs\.?|versus|against)"
    r"\s+(?:(?:its|their|the|our|my|his|her)\s+)?(?P<year>(?:19|20)\d\d\s+)?(?P<plan>(?:[a-z]+\s+){0,2}?"
    rf"(?:{'|'.join(PLAN_WORDS)})s?)\b"
)
"""A figure held against what was planned of it ("did we beat the sales budget?", "came in furthest
under its sales budget", "which market beat its 2011 profit budget by the most?")."""
_SHORT_OF = frozenset(("under", "below", "short", "behind"))
_ACTUAL = re.compile(
    rf"\b(?:the\s+)?actuals?\b(?:\s+(?:vs\.?|versus|against)\s+(?:the\s+)?(?:{'|'.join(PLAN_WORDS)}))?"
)


def _against_plan(text: str, model: SemanticModel, vocabulary: Vocabulary) -> tuple[str, dict[str, Any]]:
    """``text`` with a figure held against its plan said as the variance metric (the actual less the
    plan, :func:`suggest._plans`), and what the question asks of it: the groups that missed it (a
    variance below 0: "did any market not hit its budget?") or the furthest short of it first
    ("which product came in furthest under its sales budget?"). The actual and the plan are shown
    beside it (:func:`_beside_its_parts`)."""
    asked: dict[str, Any] = {}

    def as_variance(match: re.Match[str]) -> str:
        named = vocabulary.find(match["plan"]).metrics
        variances = [v for m in named if (v := _variance_of(model, m)) is not None]
        if len(variances) != 1:
            return match[0]
        variance = variances[0]
        verb = match["verb"].split()[0]
        if match["not"] or verb.startswith("miss"):
            asked["filter"] = {"metric": variance.name, "op": "lt", "values": [0]}
        elif verb in _SHORT_OF:
            asked["order"] = "asc"
        return f" {match['year'] or ''}{variance.synonyms[0]} "

    said = _AGAINST_PLAN.sub(as_variance, text)
    if said != text:
        said = _ACTUAL.sub(" ", said)
    return said, asked


def _variance_of(model: SemanticModel, plan: str) -> Metric | None:
    """The metric of the actual less ``plan``, when ``plan`` is a planned figure with one."""
    return next(
        (
            m
            for m in model.metrics
            if m.kind is Kind.difference and m.denominator == plan and m.name.endswith(f"_vs_{plan}")
        ),
        None,
    )


def _beside_its_parts(metrics: list[str], model: SemanticModel) -> list[str]:
    """A variance to plan with the actual and the plan it is the difference of: "sales vs budget"
    says both figures beside by how much."""
    for name in metrics:
        metric = model.metric(name)
        if metric.denominator is not None and _variance_of(model, metric.denominator) is metric:
            parts = [name, str(metric.numerator), metric.denominator]
            return list(dict.fromkeys([*parts, *metrics]))[:6]
    return metrics


_NEGATIVE = re.compile(
    r"\b(?:negative|below[- ]zero)\s+(?P<what>[a-z]+)"
    r"(?:\s+(?:numbers|figures|values|amounts|levels|readings)\b|(?P<next>\s+[a-z]+)?)"
)


def _signed(text: str, model: SemanticModel, vocabulary: Vocabulary) -> str:
    """``text`` with a measure said negative as its range ("negative inventory numbers", "rows with
    negative profit": inventory, profit below 0), which :func:`_thresholds` then reads: of each line
    when lines are counted, of each group's total when groups are listed."""

    def as_range(match: re.Match[str]) -> str:
        what, after = match["what"], (match["next"] or "").strip()
        found = vocabulary.find(what)
        measures = [c for c in found.columns if model.column(c).role is Role.measure]
        if not measures and not any(model.metric(m).unit in ("money", "number") for m in found.metrics):
            return match[0]
        if after and f"{what} {after}" in vocabulary.find(f"{what} {after}").used:
            return match[0]  # "negative profit margin": a figure of two words, said negative
        counted = vocabulary.find(after).metrics if after else ()
        if counted and model.metric(counted[0]).unit == "count":  # "negative inventory rows"
            return f"{after} with {what} below 0"
        return f"{what} below 0{' ' + after if after else ''}"

    return _NEGATIVE.sub(as_range, text)


def _thresholds(text: str, model: SemanticModel, vocabulary: Vocabulary) -> list[dict[str, Any]]:
    """Filters for a measure's range on the lines ("a discount above 30%": over 0.3 when the
    measure is a fraction; "a quantity of 10": exactly 10), or for what each thing counted comes to
    ("invoices over 500": the orders whose revenue is over 500, ``group`` the order's key)."""
    found: list[dict[str, Any]] = []
    score = score_column(model)
    said_first = [  # "orders with 2 or more lines": each order's lines, not its revenue of 2 or more
        m.span() for m in _COUNTED_RANGE.finditer(text) if _figure_named(m["what"], model, vocabulary)
    ]
    for match in _THRESHOLD.finditer(text):
        if any(start < match.end() and match.start() < end for start, end in said_first):
            continue
        named = vocabulary.find(match["what"])
        if score is not None and re.search(r"\b(?:rated|scored|rating|scoring)\b", match[0]):
            named = vocabulary.find(normalise(score.title))  # "purchases rated 4 or higher", "scored below 2"
        if not named.columns and not named.metrics:  # "aged 60 or over", "priced above 100"
            named = vocabulary.in_other_forms([match["what"]])
        columns = [c for c in named.columns if model.column(c).role is Role.measure]
        if not columns and not named.metrics:  # "aged over 50": the one measure of that word (Customer_Age)
            said = (
                root(match["what"].removesuffix("d")) if match["what"].endswith("ed") else root(match["what"])
            )
            columns = [
                c.name
                for c in model.with_role(Role.measure)
                if said in {root(w) for w in normalise(c.title).split()}
            ][:2]
            columns = columns if len(columns) == 1 else []
            titled = bool(columns)  # the word is read with the range
        else:
            titled = False
        unnamed = not columns and not named.metrics
        if unnamed and (
            match["what"] in _DID
            or match["what"] in _PERIOD_PLURALS
            or singular(match["what"]) in _SINGLE_PERIODS
        ):
            # "weeks where the whole chain did under 40 million", "a week over $2M": the money taken
            named = replace(named, metrics=(_default_metric(model),))
        over = columns[0] if columns else (model.metric(named.metrics[0]).over if named.metrics else None)
        op = _OPS[match["op"]] if match["op"] else _OR_MORE[match["op2"]]
        number, percent = (
            (match["number"], match["percent"]) if match["op"] else (match["number2"], match["percent2"])
        )
        if op == "eq" and re.fullmatch(r"(?:19|20)\d\d", number):
            continue  # "revenue of 2011" is a period's, read by the periods
        value = float(number)
        entity = _counted_entity(model, named.metrics[0]) if named.metrics and not columns else None
        key = model.key_of(entity) if entity is not None else None
        counted = key is not None and "$" not in match[0]  # "months where orders were above 2000"
        summed = bool(named.metrics) and model.metric(named.metrics[0]).kind is Kind.sum
        whose = (
            _whose(text[: match.start()], model, vocabulary)
            or (_periods_before(text[: match.start()], model) if unnamed else None)
            if (summed or counted) and not percent and op != "eq"
            else None
        )
        if whose is not None and (key is None or whose["column"] != key.name):
            # "states with sales over 20 million": each state's sales; "days where orders were over 100"
            metric = named.metrics[0]
            found.append(
                {
                    "metric": metric,
                    "op": op,
                    "values": [value],
                    "group": whose,
                    "spoken": match[0],
                    "together": _of_those(text[: match.start()], model, whose),
                }
            )
            continue
        if key is not None and op != "eq" and not percent:  # "invoices over 500": each one's amount
            found.append(
                {
                    "metric": _default_metric(model),
                    "op": op,
                    "values": [value],
                    "group": {"column": key.name},
                    "spoken": match[0],
                    "together": True,
                }
            )
            continue
        if over is None or model.column(over).role is not Role.measure:
            continue
        if percent and model.column(over).unit == "percent":
            value /= 100
        values = [value, value] if op == "eq" else [value]
        rule = {"column": over, "op": "between" if op == "eq" else op, "values": values, "spoken": match[0]}
        found.append({**rule, "kept": ""} if titled else rule)
    for match in _STARS.finditer(text):  # "a 5-star review": a rating of 5
        if score is not None:
            value = float(match["number"])
            found.append(
                {"column": score.name, "op": "between", "values": [value, value], "spoken": match[0]}
            )
    for match in _VALUE_FIRST.finditer(text):  # "the 40% discount", "at the 500 price point": exactly
        named = vocabulary.find(match["what"])
        measures = [c for c in named.columns if model.column(c).role is Role.measure]
        measures += [
            str(averaged.over)
            for name in named.metrics
            if (averaged := model.metric(name)).kind is Kind.average and averaged.over
        ]
        if len(set(measures)) != 1 or any(match[0] in str(t["spoken"]) for t in found):
            continue
        value = float(match["number"])
        if model.column(measures[0]).unit == "percent" and (match["percent"] or value > 1):
            value /= 100
        found.append({"column": measures[0], "op": "between", "values": [value, value], "spoken": match[0]})
    taken = [str(t["spoken"]) for t in found]
    for match in _COUNTED_RANGE.finditer(text):  # "days with more than 100 orders": each day's orders
        if any(match[0] in spoken or spoken in match[0] for spoken in taken):
            continue
        whose = _whose(text[: match.start()], model, vocabulary)
        figure = _figure_named(match["what"], model, vocabulary)
        if whose is None or figure is None:
            continue
        number = "1" if match["single"] else match["number"] or match["number2"]
        value = float(number) if number[0].isdigit() else float(NUMBER_WORDS[number])
        op = (
            "eq"
            if match["single"]
            else _OR_MORE[match["op2"]]
            if match["op2"]
            else _EXACTLY.get(match["op"]) or _OPS[match["op"]]
        )
        if op == "eq":  # a count is whole: exactly one is from one to one
            op, values = "between", [value, value]
        else:
            values = [value]
        found.append(
            {
                "metric": figure,
                "op": op,
                "values": values,
                "group": whose,
                "spoken": match[0],
                "kept": next(  # the figure's word stays to be read, as it names it ("line items")
                    (w for w in (match["what"], plural(match["what"])) if _names_only(w, figure, vocabulary)),
                    "",  # or is read already ("more than 1 item": the units)
                ),
                "together": _of_those(text[: match.start()], model, whose),
            }
        )
    return found


_IN_AN_ORDER = re.compile(
    r"\b(?:in|per)\s+(?:an?|each|every|the\s+average|one)\s+(?:order|basket|transaction|receipt)\b"
)
_KINDS_OF = re.compile(r"\b(?:different|distinct|unique|kinds?\s+of|types?\s+of|varieties\s+of)\b")


def _units_of_things_sold(
    text: str, model: SemanticModel, metrics: list[str], groups: list[dict[str, Any]]
) -> tuple[list[str], list[dict[str, Any]]]:
    """The products counted as things sold are units ("how many pizzas did we sell?", "how many
    pizzas and how much revenue?"), per order its ratio ("on average how many pizzas are in an
    order?"); "how many different pizzas" counts the products themselves; and products named beside
    another figure are what it is of ("what % of revenue comes from Veggie pizzas?")."""
    names = {m.name for m in model.metrics}
    products = [m for m in metrics if _counted_entity(model, m) is Entity.product]
    if not products or "units" not in names or _KINDS_OF.search(text):
        return metrics, groups
    order = model.key_of(Entity.order)
    if _COUNTING.search(text) and _IN_AN_ORDER.search(text) and "units_per_order" in names:
        kept = [g for g in groups if order is None or g["column"] != order.name]
        return [m if m not in products else "units_per_order" for m in metrics], kept
    others = [m for m in metrics if m not in products]
    chosen: list[str] = []
    for metric in metrics:
        if metric not in products:
            chosen.append(metric)
        elif _counted_by_name(text, model.metric(metric)):
            chosen.append("units" if _SOLD.search(text) or others else metric)
        elif not others:
            chosen.append(metric)
    return list(dict.fromkeys(chosen)), groups


def _counted_by_name(text: str, metric: Metric) -> bool:
    words = "|".join(re.escape(w) for w in [metric.name, *metric.synonyms])
    return bool(re.search(rf"\b(?:how many|number of|count of)\s+(?:\w+\s+){{0,2}}(?:{words})\b", text))


_LISTED = re.compile(r"\b(?:which|list|show me|name)\b")
"""The things a range keeps asked for themselves ("which states had sales over 30m?"), not their
figures together."""
_HAVING_SUBJECT = re.compile(
    r"\b(?P<subject>[a-z]+)\s+(?P<link>(?:that|which|who|where|when|in\s+which)\s+)?"
    r"(?P<verb>(?:have|has|had|having|with|made|make|did|do|placed|place|bought|buy|sold|sell|generated|"
    r"brought\s+in|spent|saw|got|took)\s+)?"
    r"(?:(?:a|an|their|its|total|combined|overall|net|gross)\s+)?$"
)
_PERIOD_PLURALS = {
    word: grain for grain, words in GRAIN_WORDS.items() for word in words if word.endswith("s")
}
"""A period said in the plural ("months with revenue over 70k"): each one's figure is ranged."""


_FROM_THOSE = re.compile(r"\b(?:from|of|in|on|across|by|for)\s+(?:the\s+|those\s+|all\s+)?(?:[a-z]+\s+)?$")


def _of_those(before: str, model: SemanticModel, group: dict[str, str]) -> bool:
    """Whether a figure is asked of the groups a range keeps, taken together ("revenue from orders
    that had over 5 units", "the sales of states with…"), rather than the groups listed: always
    for an entity's key (a list of orders says little), for others when said so."""
    if "grain" not in group and model.column(group["column"]).role is Role.key:
        return True
    said = _HAVING_SUBJECT.search(before)
    return said is not None and bool(_FROM_THOSE.search(before[: said.start()]))


_TRAITS_OF = re.compile(
    r"(?<!how many )(?<!number of )(?<!unique )(?<!distinct )(?<!different )(?<!top )(?<!which )"
    r"\b(?:from|of|by|to|for|among)\s+(?:our\s+|the\s+)?(?P<who>customers|clients|buyers|shoppers)\s+"
    r"(?:who|that|which|aged|in|from|with|over|under|between)\b"
)
"""The people a file describes only by their traits, named as the subject of one ("revenue from
customers who are not Adults"): the lines of such people, not a count of customers it cannot make."""


def _traits_only(model: SemanticModel, who: str) -> bool:
    """Whether the file has no key for ``who`` (customers) but columns of their traits
    ("Customer_Age", "Customer_Gender")."""
    noun = who.removesuffix("s")
    if model.key_of(Entity.customer) is not None:
        return False
    return any(noun in normalise(c.title).split() for c in model.columns if c.role is not Role.ignore)


_DISTINCT = re.compile(r"\b(?:distinct|unique|different|count(?:\s+of)?|number\s+of)\s+(?:the\s+)?$")


def _distinct_ids(
    text: str, column: Column, model: SemanticModel, vocabulary: Vocabulary, found: Any
) -> str | None:
    """The metric counting a key's things when the question counts its values ("count distinct
    order ids", "number of unique customer IDs"): None when the key is what the answer is by."""
    if column.role is not Role.key:
        return None
    counting = [m.name for m in model.metrics if m.kind is Kind.count_distinct and m.over == column.name]
    said = [p for p in found.used if column.name in vocabulary.find(p).columns]
    places = [m.start() for p in said for m in re.finditer(rf"\b{re.escape(p)}\b", text)]
    if not counting or not any(_DISTINCT.search(text[:at]) for at in places):
        return None
    return counting[0]


def _names_only(words: str, metric: str, vocabulary: Vocabulary) -> bool:
    named = vocabulary.find(words)
    return named.metrics == (metric,) and not named.columns and not named.mentions


def _names_something(words: str, vocabulary: Vocabulary) -> bool:
    named = vocabulary.find(words)
    return bool(named.metrics or named.columns or named.mentions)


def _figure_named(words: str, model: SemanticModel, vocabulary: Vocabulary) -> str | None:
    """The metric a range's figure is ("100 orders", "5000 in revenue", "50 units sold", "one line
    item", which names what "line items" does): the longest start of the words that names one
    metric or measure."""
    parts = words.split()
    lines = next((m.name for m in model.metrics if m.kind is Kind.rows), None)
    if lines is not None and len(parts) == 2 and singular(parts[1]) == "line":
        return lines  # "more than one product line": the lines of each
    for size in range(len(parts), 0, -1):
        said = " ".join(parts[:size])
        named = vocabulary.find(said if _names_something(said, vocabulary) else plural(said))
        counting = [  # "more than one product": a column of names, counted
            m.name
            for m in model.metrics
            if m.kind is Kind.count_distinct and m.over in named.columns and not named.metrics
        ]
        if len(counting) == 1 and not named.mentions:
            named = replace(named, metrics=(counting[0],))
        if len(named.metrics) == 1 and not named.mentions:
            things_sold = _counted_entity(model, named.metrics[0]) is Entity.product
            if things_sold and "units" in {m.name for m in model.metrics} and not _KINDS_OF.search(words):
                return "units"  # "orders with more than 5 pizzas": the pizzas in them
            return named.metrics[0]
        measures = [c for c in named.columns if model.column(c).role is Role.measure]
        if len(measures) == 1 and not named.metrics and not named.mentions:
            return _metric_over(model, measures[0])
    return None


_DID = frozenset(("did", "made", "sold", "took", "brought", "generated", "earned", "cracked", "hit", "had"))
"""What a business does with money, said where the figure is not named: "the chain did under 40m"."""
_SINGLE_PERIODS = frozenset(("day", "week", "month", "quarter", "year"))


def _periods_before(before: str, model: SemanticModel) -> dict[str, str] | None:
    """The periods a money range is of when the figure is not named, said in the plural earlier in
    the sentence: "were there any weeks where the whole chain did under 40 million?"."""
    words = re.split(r"[.?!;]", before)[-1].split()
    grain = next((_PERIOD_PLURALS[w] for w in reversed(words) if w in _PERIOD_PLURALS), None)
    time = model.time
    return {"column": time.name, "grain": grain} if grain is not None and time is not None else None


def _whose(before: str, model: SemanticModel, vocabulary: Vocabulary) -> dict[str, str] | None:
    """The group a figure's range is of, named just before it in the plural: "states with sales
    over 20 million" is of each state (its sales summed), "orders that had revenue above 500" of each
    order, "months where revenue was over 70k" of each month; None for the lines themselves ("lines
    with sales over 200k")."""
    said = _HAVING_SUBJECT.search(before)
    if said is None or not said["subject"].endswith("s") or not (said["link"] or said["verb"]):
        return None
    grain = _PERIOD_PLURALS.get(said["subject"])
    if grain is not None:
        periodic = (model.clocked[0] if model.clocked else None) if grain == "hour" else model.time
        return {"column": periodic.name, "grain": grain} if periodic is not None else None
    named = vocabulary.find(said["subject"])
    if named.mentions:
        return None
    entity = _counted_entity(model, named.metrics[0]) if len(named.metrics) == 1 else None
    key = model.key_of(entity) if entity is not None else None
    keys = [c for c in named.columns if model.column(c).role is Role.key]
    if key is not None or (
        len(keys) == 1 and not named.metrics
    ):  # "invoices", a "Transaction" key's own word
        return {"column": key.name if key is not None else keys[0]}
    columns = [c for c in named.columns if model.column(c).role is Role.dimension]
    return {"column": columns[0]} if len(columns) == 1 and not named.metrics else None


def _per(text: str, model: SemanticModel, vocabulary: Vocabulary) -> str | None:
    """ "average sales per order", "revenue per customer": the model's ratio of those two, if any."""
    found = re.search(r"\b([\w ]+?)\s+(?:per|by each|for each|each)\s+(\w+)\b", text)
    if not found:
        return None
    said = vocabulary.find(found[1])
    top = list(said.metrics[-1:])
    if not top and _AVERAGE.search(found[1]):  # "average gross sales per order": of that column's sum
        top = [m for c in said.columns if (m := _metric_over(model, c))][-1:]
    bottom = vocabulary.find(found[2]).metrics or vocabulary.find(found[2] + "s").metrics
    if not top or not bottom:
        return None
    summed = model.metric(top[0]).adds_up
    for metric in model.metrics:
        if not metric.numerator or metric.denominator != bottom[0]:
            continue
        if metric.numerator == top[0] or model.metric(metric.numerator).adds_up == summed:
            return metric.name
    return None


_AVERAGE = re.compile(r"\b(?:on\s+)?(?:average|avg|typical(?:ly)?|usually|mean)\b")


def _averaged(text: str, model: SemanticModel, metrics: list[str]) -> str | None:
    """ "On average how many items does someone put in a basket?": an average of one named metric
    over the other (units over orders) is the model's ratio of the two, in either order said."""
    if len(metrics) != 2 or not _AVERAGE.search(text):
        return None
    for metric in model.metrics:
        if metric.kind is Kind.ratio and {metric.numerator, metric.denominator} == set(metrics):
            return metric.name
    return None


_PLAIN_ONE = re.compile(
    r"\b(?:plain|normal|regular|ordinary|basic|simple|standard)\s+(?P<what>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,2})"
)
"""A thing said plain ("plain lattes", "the normal tea type"), or an aggregate ("the plain average")."""
_AGGREGATES = frozenset(("average", "avg", "mean", "sum", "total", "count", "median"))


def _plain_kind(text: str, vocabulary: Vocabulary) -> str:
    """``text`` without "plain" before an aggregate ("the plain average": the average) or before a
    value that other values hold with more words ("plain lattes" of a menu with *Latte* and *Chai
    Latte*: *Latte* itself, which the value's own words then name)."""

    def unqualified(match: re.Match[str]) -> str:
        words = match["what"].split()
        if words[0] in _AGGREGATES:
            return match["what"]
        for size in range(len(words), 0, -1):
            said = " ".join(words[:size])
            exact = [
                m
                for m in vocabulary.find(said).mentions
                if m.exact and normalise(m.value) in (said, singular(said))
            ]
            if exact and vocabulary.within_others(exact[0].column, exact[0].value):
                return match["what"]
        return match[0]

    return _PLAIN_ONE.sub(unqualified, text)


_SPENT_ON = re.compile(
    r"\b(?:spend|spent|spends|spending)\s+(?:on|for)\s+(?:the\s+|our\s+)?(?P<what>[a-z]+(?:\s+[a-z]+)?)"
)


def _spent_on(text: str, model: SemanticModel, vocabulary: Vocabulary) -> str:
    """``text`` with "spend on X" said as X, when X is a figure of the file's own other than its
    revenue ("how much did we spend on marketing?", "which state spends the most on it"): the
    money spent is that figure, not the money customers spent."""

    def as_figure(match: re.Match[str]) -> str:
        named = vocabulary.find(match["what"]).metrics
        spent = [m for m in named if m != "revenue" and model.metric(m).kind is Kind.sum]
        return f" {match['what']}" if spent else match[0]

    return _SPENT_ON.sub(as_figure, text)


def _kept_periods(found: Found, text: str) -> Found:
    """``found`` without a grain said right after a value ("the holiday weeks", "non-holiday
    weeks"): the periods kept are named by it, not asked one by one."""
    kept = {
        grain
        for grain in found.grains
        for mention in found.mentions
        for said in GRAIN_WORDS[grain]
        if re.search(rf"\b{re.escape(mention.words)}\s+{re.escape(said)}\b", text)
    }
    return replace(found, grains=tuple(g for g in found.grains if g not in kept)) if kept else found


def _measure_had(model: SemanticModel, word: str, ranged: set[str]) -> str | None:
    """The measure a participle says a line has ("discounted": a discount above 0; "undiscounted":
    none), when the file has a measure of that word and no range of it is asked already."""
    if not word.endswith("ed"):
        return None
    had = root(word.removeprefix("un"))
    for column in model.with_role(Role.measure):
        if column.name not in ranged and root(normalise(column.title)) == had:
            return column.name
    return None


def _is_not_key(model: SemanticModel, name: str) -> bool:
    return model.column(name).role is not Role.key


def _named_columns(found: Any) -> set[str]:
    return set(found.columns) | {m.column for m in found.mentions}


def _filters(text: str, found: Any) -> list[dict[str, Any]]:
    """A filter per column the question names values of; excluded when an exclusion cue comes just
    before ("outside California", "not in the West", "excluding Technology")."""
    by_column: dict[tuple[str, str], list[str]] = {}
    parts: list[dict[str, Any]] = []
    placed = []
    for mention in found.mentions:
        written = r"[\s\-_/.]+".join(re.escape(w) for w in mention.words.split())  # "in-store": in store
        places = [m.start() for m in re.finditer(rf"(?<!\w){written}(?!\w)", text)]
        # a value that is also a word ("a" of Branch A) is the one written last, beside its column
        placed.append(((places[-1] if len(mention.words) < 3 else places[0]) if places else -1, mention))
    left_out: tuple[str, int] | None = None  # the column and the end of the last value left out
    held: tuple[str, int] | None = None  # the column and the end of the last value an order holds
    for at, mention in sorted(placed, key=lambda found: found[0]):
        lead = text[max(0, at - 60) : at] if at >= 0 else ""
        negated = bool(_LEFT_OUT.search(lead)) or (
            # "outside Mall of Istanbul and Kanyon": each value of a list after the cue
            left_out is not None
            and left_out[0] == mention.column
            and at >= left_out[1]
            and re.fullmatch(r"(?:\s*(?:,|and|or|nor|&|/)\s*)+", text[left_out[1] : at]) is not None
        )
        left_out = (mention.column, at + len(mention.words)) if negated else None
        if not negated and _INCLUDED.search(lead):  # "include everything, cancelled and returned": all
            continue
        if mention.part:  # "pizzas with mushrooms", "that don't have pepperoni": a list holding it
            parts.append({"column": mention.column, "op": "not_contains" if negated else "contains",
                          "values": [mention.value]})  # fmt: skip
            continue
        joined = (
            re.fullmatch(r"\s*(,|and|&|or)?\s*", text[held[1] : at])
            if held and held[0] == mention.column
            else None
        )
        holding = not negated and (bool(_HOLDING.search(lead)) or joined is not None)
        held = (mention.column, at + len(mention.words)) if holding else None
        op = "never" if _NEVER.search(lead) else "not_in" if negated else "in"
        if holding and op == "in":  # "receipts with pandoro and orange pound": each, held by them
            op = "ever" if joined is not None and joined[1] == "or" else f"ever{at}"
            if joined is not None and joined[1] == "or":  # "…with pandoro or orange pound": either
                op = next(o for (c, o) in reversed(by_column) if c == mention.column and o.startswith("ever"))
        by_column.setdefault((mention.column, op), [])
        if mention.value not in by_column[(mention.column, op)]:
            by_column[(mention.column, op)].append(mention.value)
    kept = [
        {"column": column, "op": "ever" if op.startswith("ever") else op, "values": values}
        for (column, op), values in by_column.items()
    ]
    return kept + [rule for i, rule in enumerate(parts) if rule not in parts[:i]]


_HOLDING = re.compile(
    r"\b(?:orders?|receipts?|invoices?|baskets?|transactions?|bills?|tickets?|carts?)\s+"
    r"(?:(?:that|which)\s+)?(?:with|containing|contain(?:s|ed)?|includ(?:e|es|ed|ing)|ha(?:d|ve|s|ving)|holding)"
    r"\s+(?:(?:an?|any|some|both|either|at\s+least\s+one)\s+)?$"
)
"""The orders that hold a value ("receipts with angbutter", "orders that had both X and Y"): every
line of those orders, not that value's lines."""


_NEVER_LEAD = r"\b(?:never|not\s+once|(?:have|has|had|did|do|does)(?:n'?t|\s+not)(?:\s+(?:ever|yet))?)\s+"
_NEVER_VERBS = (
    r"bought|buy|ordered|order|purchased|purchase|shopped|shop|spent|spend|paid|pay|used|use|tried"
    r"|sold|sell|stocked|stock|carried|carry|shipped|ship"  # what a store, a market or a dealer did
)
_NEVER = re.compile(
    rf"{_NEVER_LEAD}(?:{_NEVER_VERBS}|(?:anything|any|once)\b)"
    r"(?:\s+\w+){0,3}?(?:\s+(?:from|in|at|on|with|by|any|a|an|the))?\s*$"
    r"|\b(?:had|has|have|having|with|contain(?:s|ed|ing)?|includ(?:es|ed|ing))\s+no"
    r"(?:\s+(?:sales|orders|revenue)\s+(?:of|for|from|in))?\s*$"
)
"""A value no line of the customer's ever had ("never anything from Apparel", "haven't bought any
furniture", "never paid cash"), or of the order ("receipts with no angbutter"): who never did, or
which orders hold none, not the lines that did not."""


def _never_bought(
    filters: list[dict[str, Any]], model: SemanticModel, vocabulary: Vocabulary, text: str
) -> list[dict[str, Any]]:
    """The values the things asked about never had (:data:`_NEVER`) as rows of the things with no
    such line: the customers, or what the question asks which of ("which dealers have never ordered
    a fat bike?"), else the orders ("revenue of receipts with no angbutter"); without any of them in
    the file, the lines without them."""
    order = model.key_of(Entity.order)
    filters = [  # "receipts with angbutter": each receipt holding one, whole
        {
            **rule,
            "op": "in",
            **({"ever_by": order.name} if order is not None and order.name != rule["column"] else {}),
        }
        if rule["op"] == "ever"
        else rule
        for rule in filters
    ]
    if not any(rule["op"] == "never" for rule in filters):
        return filters  # the things asked about are looked up only for a "never" said
    asked = _subject({}, model, vocabulary, text, orders=True) or model.key_of(Entity.order)
    return [
        {**rule, "op": "in", "never_by": asked.name}
        if rule["op"] == "never" and asked is not None and asked.name != rule.get("column")
        else {**rule, "op": "not_in"}
        if rule["op"] == "never"
        else rule
        for rule in filters
    ]


_NEVER_HAD = re.compile(
    rf"{_NEVER_LEAD}(?:(?:had|have|has|seen|saw|gone|went|got|hit|reached|posted|recorded)\s+)?"
    r"(?:(?:an?|any|their|its)\s+)?$"
)
"""A measure's range never reached, said before it ("never had unemployment above 6%")."""


def _never_ranged(
    threshold: dict[str, Any], model: SemanticModel, vocabulary: Vocabulary, text: str
) -> dict[str, Any]:
    """A threshold's filter; a line's range never reached is of the things asked about that have no
    such line (``never_by``), not the lines outside the range."""
    rule = {k: v for k, v in threshold.items() if k not in ("group", "never")}
    if not threshold.get("never"):
        return rule
    asked = _subject({}, model, vocabulary, text, orders=True)
    return {**rule, "never_by": asked.name} if asked is not None else rule


_NEVER_IT = re.compile(rf"{_NEVER_LEAD}(?:{_NEVER_VERBS})\s+(?:it|them|that one|this one)\b")
"""The row before, never had ("which states never bought it?", "who hasn't ordered that one")."""


def _never_had_row(
    args: dict[str, Any],
    asked_window: bool,
    row: RowReference,
    model: SemanticModel,
    vocabulary: Vocabulary,
    text: str,
    previous: dict[str, Any] | None,
) -> dict[str, Any]:
    """The things asked about that never had a line of the row before: "which states never bought
    it?" after the best-selling model is every state without a line of that model -- ever, unless
    the question says when -- never the states that did."""
    about = _about_row(args, row.column, row.value)
    asked = _subject(about, model, vocabulary, text, previous)
    if asked is None or asked.name == row.column:
        return about
    never = {"column": row.column, "op": "in", "values": [row.value], "never_by": asked.name}
    about["filters"] = [*(f for f in about["filters"] if f.get("column") != row.column), never]
    if not asked_window:
        about.pop("window", None)
        about.pop("compare", None)
    return about


_LEFT_OUT = re.compile(
    r"\b(?:not|exclud(?:e|es|ed|ing)|except|outside|without|ignor(?:e|es|ed|ing)|non|besides|"
    r"apart from|aside from|other than|leave|leaving|omit(?:s|ted|ting)?|minus|"
    r"(?:take|taking|took|filter(?:ing)?|strip(?:ping)?|rule|ruling)\s+out|remov(?:e|es|ed|ing)|"
    r"(?:every|any)(?:thing|one)\s+but|all\s+but|skip(?:s|ped|ping)?|set(?:ting)? aside|not counting)\b"
    r"(?:(?:\s+\w+){0,2}|(?:\s+\w+){0,3}\s+(?:ones?|two|three|four|both|pair))\s*$"
)
"""A cue that leaves out the value after it, close by ("outside California", "everything but cash") or
after words that point at it ("outside the two big ones, Mall of Istanbul and Kanyon")."""
_INCLUDED = re.compile(
    r"\b(?:include|includes|including|incl|inclusive\s+of)\s+(?!only\b)(?:\w+\s+){0,3}?"
    r"(?:(?:the|any|all|also|too|even)\s+)?(?:\w+\s*(?:\band\b|\bor\b|/)\s*)?$"
)
"""Values said to be counted in as well ("include everything, cancelled/returned and all",
"including returns"): every line, none kept or left out ("counting only shipped orders" keeps them)."""


def _cancellation_meant(found: Any, model: SemanticModel) -> Any:
    """A word naming the status that marks a cancellation and a value of another column too ("the
    status Cancelled or the courier status Cancelled"): the model's cancellation is what is meant."""
    cancelling = model.cancellation
    if cancelling is None or not cancelling.values:
        return found
    marks = {
        m.words for m in found.mentions if m.column == cancelling.column and m.value in cancelling.values
    }
    kept = tuple(m for m in found.mentions if m.words not in marks or m.column == cancelling.column)
    return replace(found, mentions=kept)


def _as_before(
    found: Any, previous: dict[str, Any] | None, reading: SemanticReading, model: SemanticModel
) -> Any:
    """What the answer before listed tells apart: a name several columns hold ("excluding the USA"
    after revenue by customer country: the customer country's USA, not the warehouse's), and a word
    two columns' names share ("of those countries" after it: the customer country)."""
    if not previous:
        return found
    before = {g.get("column") for g in previous.get("group_by") or []}
    mentions = _told_apart(found, lambda column: column in before)
    columns = list(found.columns)
    for word in list(reading.left):
        named = [c for c in before if c and singular(word) in _name_words(model.column(c))]
        if len(named) == 1 and sum(singular(word) in _name_words(c) for c in model.columns) > 1:
            columns.append(named[0])  # a word of several columns' names, one of them the answer's
            reading.left.remove(word)
    return replace(found, mentions=mentions, columns=tuple(dict.fromkeys(columns)))


def _qualified(found: Any, words: list[str], model: SemanticModel) -> Any:
    """A name several columns hold, told apart by the word one of those columns' names starts with
    that the question says ("orders *shipped* outside the US": the shipping country's US, not the
    billing country's)."""
    said = {root(w) for w in words}
    return replace(found, mentions=_told_apart(found, lambda column: root(column.split("_")[0]) in said))


def _told_apart(found: Any, meant: Callable[[str], bool]) -> tuple[Mention, ...]:
    """``found``'s mentions, a name several columns hold kept to the one column ``meant`` picks (when
    it picks exactly one; else all, for the reading to ask which)."""
    held: dict[str, set[str]] = {}
    for mention in found.mentions:
        held.setdefault(mention.words, set()).add(mention.column)
    settled = {}
    for phrase, columns in held.items():
        picked = [c for c in columns if meant(c)]
        if len(columns) > 1 and len(picked) == 1:
            settled[phrase] = picked[0]
    return tuple(m for m in found.mentions if settled.get(m.words, m.column) == m.column)


def _name_words(column: Column) -> set[str]:
    """The words of a column's name and of its other names ("state" of *Shipping Province Name*,
    said the shipping state)."""
    return {*column.name.split("_"), *(w for said in column.synonyms for w in normalise(said).split())}


def _ambiguous(found: Any) -> list[str]:
    """Words that name values of several columns, none of them named ("22156" a stock code and a
    customer): which one is meant is not the reading's to guess."""
    columns: dict[str, set[str]] = {}
    for mention in found.mentions:
        columns.setdefault(mention.words, set()).add(mention.column)
    return [words for words, named in columns.items() if len(named) > 1 and not named & set(found.columns)]


_NAMING = frozenset({"name", "names", "id", "no", "number", "code"})
"""Words of a header that say it names the thing ("Dealer Name"): the thing is the rest."""


def _counted_as(model: SemanticModel, column: Column) -> list[str]:
    """The words of the count of the things a column names, each for one of them ("pizza", "best
    seller" of the products; "receipt" of the orders counted as "receipts")."""
    entity = column.entity
    return [
        singular(word)
        for metric in model.metrics
        if metric.kind is Kind.count_distinct
        and metric.over is not None
        and (
            metric.over == column.name or (entity is not None and model.column(metric.over).entity is entity)
        )
        for word in metric.synonyms
    ]


def _one_asked(text: str, column: Column, who: bool = False, also: list[str] | None = None) -> bool:
    """Whether the question names what it ranks in the singular ("which country…", "our biggest
    customer", "the worst seller", or only "who") and never in the plural: one is asked for."""
    names = {normalise(column.title), *(normalise(s) for s in [*column.synonyms, *(also or [])])}
    if column.entity is not None:
        names.add(column.entity.value)
    names.add(" ".join(w for w in normalise(column.title).split() if w not in _NAMING))  # "which dealer"
    names.add(normalise(column.title).split()[-1] if column.title.strip() else "")  # "which city": Ship city
    text = normalise(text)  # "which sub-category": the name as its title writes it
    singular = plural = False
    for name in filter(None, names):
        plural = plural or bool(
            re.search(rf"\b{re.escape(name)}(?:s|es)\b|\b{re.escape(name[:-1])}ies\b", text)
        )
        singular = singular or bool(re.search(rf"\b{re.escape(name)}\b", text))
    return (singular or who) and not plural


def _limit(text: str) -> int | None:
    found = _LIMIT.search(text)
    if not found:
        return None
    value = found[1] or found[2] or found[3]
    number = int(value) if value.isdigit() else NUMBER_WORDS[value]
    return max(1, min(MAX_ROWS, number))


def _recency(
    args: dict[str, Any],
    model: SemanticModel,
    vocabulary: Vocabulary,
    last_day: date | None,
    text: str,
    previous: dict[str, Any] | None,
    since_first: bool = False,
) -> bool:
    """ "Customers who haven't ordered in 6 months", "products that haven't sold since 2016": the
    things asked about (customers unless the question groups by others), each with its last day
    before the cut-off, not a window. The window the period made becomes the cut-off; "not since
    2015" is a last order in 2015 or before, so a period after "since" is over before the cut-off.
    A period over before the data's end ("states with no sales in 2016") keeps the things with no
    line in it. ``since_first``: "bought in 2016 but not in 2017", a period bought in, then a later
    one that runs to the data's end: a last order in the first (anything else is not read, False).
    "And which ones haven't…" after a list asks about the same things (:func:`_patched`)."""
    subject = _subject(args, model, vocabulary, text, previous)
    time = model.time
    window = args.get("window")
    if subject is None or time is None or window is None or last_day is None:
        return False
    last = f"last_{time.name}"
    if last not in {m.name for m in model.metrics}:
        return False
    bounds: list[dict[str, Any]] = []
    since = _after_since(text)
    ends = date.fromisoformat(window["end"]) if window.get("end") else last_day
    if since_first:
        earlier = args.get("compare") or {}
        if not earlier.get("start") or ends < last_day:
            return False
        bounds.append({"metric": last, "op": "ge", "values": [earlier["start"]]})
    if since is None and ends < last_day and not since_first:  # none in a period now over
        span = [window.get("start") or window["end"], window["end"]]
        bounds.append({"column": time.name, "op": "between", "values": span, "never_by": subject.name})
    else:
        cutoff = since or date.fromisoformat(window["start"])
        bounds.append({"metric": last, "op": "lt", "values": [cutoff.isoformat()]})
    args.pop("window", None)
    args.pop("compare", None)
    args["group_by"] = [{"column": subject.name}]
    args["metrics"] = [last]
    if subject.role is Role.dimension:  # a line with no vendor is no vendor that stopped selling
        bounds.append({"column": subject.name, "op": "present"})
    args["filters"] = [*args.get("filters", []), *bounds]
    args["order"] = "desc"
    args.setdefault("limit", MAX_ROWS)
    return True


_MADE_MONEY = re.compile(
    r"\b((?:did|do|does|will|would)(?:\s+\w+){1,5}?|we|they|you|he|she|it|i)\s+(?:make|made)\b(?!\s+(?:of|money|any|a\s+profit|a\s+loss|profit|a\s+killing)\b)"
)
"""Money made, said with a verb that is also a car's make."""
_WENT_UP = re.compile(r"\b(?:went|go|gone|going|goes)\s+up\b|\bimproved\b")
_BACKWARDS = re.compile(r"\bbackwards?\b|\b(?:went|go|gone|going|goes)\s+down\b")
"""A figure that fell, said plainly ("a year where we went backwards")."""
_FOR_EXAMPLE = re.compile(
    r"\(\s*(?:e\.?\s?g\.?|eg|such as|for example|for instance|like)\b[^()]*\)"
    r"|\([^()]*\b(?:etc|and so on)\.?\s*\)",
    re.IGNORECASE,
)
"""Values given in brackets as examples of what is asked ("(road, mountain, e-bikes etc)"): no filter."""
_WITHIN = re.compile(
    r"(?:%|\b(?:percent|percentage|share|proportion|fraction|portion))\s+of\s+(?:\w+\s+){1,4}?"
    r"(?:were|was|are|is|got|had|paid|came|went|used|ended)\b"
)
"""A share of each group's own, asked of what its things were ("what % of orders were paid by
card, per store?"), not of all of them."""
_SAME_SPAN = re.compile(
    r"\b(?:the|those|these)\s+same\s+(?:\d+|"
    + "|".join(NUMBER_WORDS)
    + r")\s+(?:days|weeks|months|quarters)\b"
    r"(?=.*\b(?:year|years|yr)\b)"
)
"""The span answered, said by its length, a year back ("the same 3 months a yr earlier")."""
_THOSE_ONES = re.compile(r"\b(?:ones|those|these|them|they)\b")
_ASKED = re.compile(
    r"\b(?:which|what|how many|list|any|count)\s+(?:the\s+|of\s+(?:the|our)\s+|our\s+)?(\w+(?:\s\w+)?)"
)
"""The things a question asks which of ("which states…", "how many products…")."""


def _subject(
    args: dict[str, Any],
    model: SemanticModel,
    vocabulary: Vocabulary,
    text: str,
    previous: dict[str, Any] | None = None,
    orders: bool = False,
) -> Column | None:
    """What a question of recency lists: the things it names after "which" or "how many" ("how
    many products haven't sold…", where "products sold" also reads as units) or groups by ("states
    with no sales…"), else the customers ("who hasn't ordered…"); the orders too when ``orders``
    (an order has one day, no recency, but may hold no line of a thing)."""
    asked = _ASKED.search(text)
    named = vocabulary.find(asked[1]) if asked else None
    for name in named.metrics if named else ():
        metric = model.metric(name)
        if metric.kind is Kind.count_distinct and metric.over is not None:
            column = model.column(metric.over)
            if orders or column.entity is not Entity.order:  # an order has one day: it never stops
                return column
    before = (previous or {}).get("group_by", []) if _THOSE_ONES.search(text) else []
    candidates = [  # "and which ones haven't ordered since…": the things listed before
        *(named.columns if named else ()),
        *(g["column"] for g in [*args.get("group_by", []), *before] if "grain" not in g and "bands" not in g),
    ]
    for name in candidates:
        column = model.column(name)
        if column.role in (Role.key, Role.label, Role.dimension) and column.entity is not Entity.order:
            return column
    return model.key_of(Entity.customer)


_NEGATION = re.compile(r"\b(?:not|never|no|zero|without|didn't|hasn't|haven't|stopped)\b")


_PERIOD_LEFT_OUT = re.compile(rf"\b{LEAVING_OUT}\s+(?:the\s+)?$")


def _negated_period(text: str) -> str | None:
    """The negation between two periods ("bought in 2016 but not in 2017"): the later one is left
    out, which is no comparison of the two. None when there is none."""
    periods = find_periods(text)
    if len(periods) < 2:
        return None
    found = _NEGATION.search(text, periods[0].span[1], periods[1].span[0])
    return found.group(0) if found else None


_NOT_SINCE = re.compile(
    r"\bsince\s+(?:(?:the\s+)?(?:end|close)\s+of\s+)?(?:(?P<month>"
    + "|".join(m.lower() for m in calendar.month_name[1:])
    + r")\s+|q(?P<quarter>[1-4])\s+)?"
    r"(?P<year>(?:19|20)\d\d)\b(?!-)"
)


def _after_since(text: str) -> date | None:
    """The first day after the period a negated "since" names ("not since 2015": 2016-01-01)."""
    match = _NOT_SINCE.search(text)
    if match is None:
        return None
    year = int(match["year"])
    if match["month"]:
        month = [m.lower() for m in calendar.month_name].index(match["month"])
        return date(year + month // 12, month % 12 + 1, 1)
    if match["quarter"]:
        quarter = int(match["quarter"])
        return date(year + quarter // 4, (quarter % 4) * 3 + 1, 1)
    return date(year + 1, 1, 1)


_BARE_RANGE = re.compile(r"\b" + _RANGE)


def _range_of_the_last(
    text: str, model: SemanticModel, previous: dict[str, Any] | None
) -> list[dict[str, Any]]:
    """A range said alone in a follow-up ("and how many were 9 or above?" after the average rating):
    of the measure the answer before was a figure of."""
    found = _BARE_RANGE.search(text)
    names = previous.get("metrics", []) if previous is not None else []
    metric = next((m for m in model.metrics if m.name in names[:1]), None)
    if found is None or found["op"] == "of" or found["percent"] or found["percent2"]:
        return []  # "top 3 of 10" is no range
    ranged = [  # "and how many were 9 or above?" after a count of ratings under 5: the rating again
        str(f["column"])
        for f in (previous or {}).get("filters", [])
        if f.get("column") and f.get("op") in _RANGES and model.column(str(f["column"])).role is Role.measure
    ]
    if ranged:
        over = ranged[-1]
    elif metric is None or metric.kind not in (Kind.average, Kind.sum) or not metric.over or metric.times:
        return []
    else:
        over = metric.over
    if model.column(over).role is not Role.measure:
        return []
    op = _OPS[found["op"]] if found["op"] else _OR_MORE[found["op2"]]
    value = float(found["number"] or found["number2"])
    return [{"column": over, "op": op, "values": [value], "spoken": found[0]}]


def _whose_average(text: str, model: SemanticModel) -> str:
    """A thing's word before a figure averaged over lines says whose figure it is ("customer rating",
    "customer age", "product price"), not a breakdown by it: the word is left out."""
    averaged = {
        normalise(model.column(m.over).title).split()[0]
        for m in model.metrics
        if m.kind is Kind.average and m.over
    }
    if not averaged:
        return text
    heads = "|".join(sorted(map(re.escape, averaged)))
    return re.sub(rf"\b(?:customer|client|shopper|buyer|product|item)s?\s+(?=(?:{heads})s?\b)", "", text)


def _one_period(window: dict[str, str] | None, grain: str | None) -> bool:
    """Whether a window is one period of a grain (March, for months): grouped by it, one row."""
    if window is None or grain not in ("day", "week", "month", "quarter", "year"):
        return False
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    if grain == "day":
        return start == end
    if grain == "week":
        return (end - start).days < 7 and start.weekday() <= end.weekday()
    quarter = (start.month - 1) // 3 == (end.month - 1) // 3
    same = {"month": start.month == end.month, "quarter": quarter, "year": True}[grain]
    return start.year == end.year and same


def _same_grain(group: dict[str, Any], before: list[dict[str, Any]]) -> dict[str, Any]:
    """A "day" of a follow-up after days of the week is a day of the week ("which weekday sells
    most?", then "and the weakest day?"), as an "hour" after hours stays one."""
    weekdays = any(g.get("grain") == "weekday" and g.get("column") == group.get("column") for g in before)
    return {**group, "grain": "weekday"} if weekdays and group.get("grain") == "day" else group


_COMPARED = re.compile(r"\b(?:compare[sd]?|comparing|comparison|vs|versus|against|stack(?:s|ed)? up)\b")


def _patched(
    previous: dict[str, Any], args: dict[str, Any], found: Any, text: str, model: SemanticModel
) -> dict[str, Any]:
    """The previous query with what this one names in its place: its metrics only when it names
    some (or a measure), not the default a breakdown alone would get ("for tables, which region is
    worst?" after losses keeps the profit)."""
    listed = _of_the_listed(previous, args)
    if listed is not None:
        return listed
    recency = any(str(f.get("metric", "")).startswith("last_") for f in args.get("filters", []))
    if recency and args.get("metrics") and not _AMONG.search(text):
        return args  # "and which ones haven't ordered since…": a question of its own on the same things
    patched = dict(previous)
    if (
        previous.get("window")
        and args.get("window") not in (None, previous["window"])
        and _COMPARED.search(text)
        and len(find_periods(text)) == 1
    ):  # "how'd that compare with Q3 2022?": the period answered against the one named now
        args = {**args, "window": previous["window"], "compare": args["window"]}
    if previous.get("window") and "window" not in args and _SPAN_BEFORE.search(text):
        # "how does that compare with the two weeks before that?": the same span, just before
        args = {k: v for k, v in args.items() if k not in ("group_by", "limit")}
        args["compare"] = _span_before(previous["window"])
    if (
        args.get("window") is not None
        and args["window"] == previous.get("window")
        and _YEAR_BEFORE.search(text)
    ):
        back = _year_back(args["window"])  # "this year", then "and last year?"
        # after "this year so far vs the same days last year", both again ("and last year? % change too")
        args = {**args, "compare": back} if previous.get("compare") == back else {**args, "window": back}
    measured = any(model.column(name).role is Role.measure for name in found.columns)
    if found.metrics or (args.get("metrics") and args["metrics"] != previous.get("metrics") and measured):
        patched["metrics"] = args["metrics"]
    if "group_by" in args:
        patched["group_by"] = [_same_grain(g, previous.get("group_by", [])) for g in args["group_by"]]
    if "filters" in args:
        named = {f.get("column") for f in args["filters"]}
        also = bool(_ALSO.search(text))
        ops = {(f.get("column"), f.get("op")) for f in args["filters"]}
        kept = [  # "now also drop the ones with no place" after "not counting 동면": both left out
            f
            for f in previous.get("filters", [])
            if f.get("column") not in named or (also and (f.get("column"), f.get("op")) not in ops)
        ]
        added = args["filters"]
        if also:  # "and if I also leave out Canada?": the US and Canada left out
            before = {(f.get("column"), f.get("op")): f for f in previous.get("filters", [])}
            added = [
                {**f, "values": list(dict.fromkeys([*before[same]["values"], *f["values"]]))}
                if (same := (f.get("column"), f.get("op"))) in before and f.get("op") in ("not_in", "in")
                else f
                for f in added
            ]
        patched["filters"] = kept + added
    for key in (
        "window",
        "compare",
        "order",
        "order_by",
        "limit",
        "share",
        "share_of",
        "count",
        "together",
        "by_change",
        "by_growth",
        "each_against_previous",
        "per",
    ):
        if key in args:
            patched[key] = args[key]
    if "group_by" in args and "per" not in args:  # "by store" after the average per day: a breakdown
        patched.pop("per", None)
    said = set(text.split())
    if "order" not in args and said & _HIGH and not said & _LOW:  # "fewest", then "…the most units?"
        patched.pop("order", None)
    new_breakdown = {g["column"] for g in args.get("group_by", [])} - {
        g["column"] for g in previous.get("group_by", [])
    }
    if new_breakdown and "limit" not in args:  # "split that by gender": every one, not the top one before
        patched.pop("limit", None)
    if new_breakdown and "filters" in patched:  # "and which dept is smallest?" after Fan Shop's share: all
        said_now = {f.get("column") for f in args.get("filters", [])}
        patched["filters"] = [
            f
            for f in patched["filters"]
            if f.get("column") not in new_breakdown or f.get("op") != "in" or f.get("column") in said_now
        ]
    swapped = [g["column"] for g in args.get("group_by", []) if "grain" not in g and "bands" not in g]
    if new_breakdown and len(swapped) == 1 and "filters" in patched:
        # "and which dealers?" after the states that never bought it: the dealers that never did
        shown = {g["column"] for g in previous.get("group_by", [])}
        patched["filters"] = [
            {**f, "never_by": swapped[0]} if f.get("never_by") in shown else f for f in patched["filters"]
        ]
    if "window" in args and "compare" not in args:
        patched.pop("compare", None)
    if "window" not in args and _ALL_TIME.search(text):  # "…and across all 3 months?": no period
        patched.pop("window", None)
        patched.pop("compare", None)
    compared = set(text.split()) & (_GROWTH | _DECLINE | {"vs", "versus", "compared", "compare", "against"})
    if "compare" in previous and "group_by" in args and "window" not in args and not compared:
        patched.pop("compare", None)  # "2011 vs 2010", then "top 3 countries for it?": a new view, all time
        patched.pop("window", None)
    if "share_of" in args and "group_by" not in args:
        patched.pop("group_by", None)  # "what % of the total is the UK?": one figure, not the list before
        patched.pop("limit", None)
    elif "share_of" in previous:
        patched = _whole_kept(previous, patched, args, found)
    if "compare" in patched and all("grain" in g for g in patched.get("group_by", [{}])):
        patched.pop("group_by", None)  # "month over month, from Sept to Oct": the two months side by side
    if patched.get("together"):  # "and the revenue from invoices under 100?" after a count: one figure
        for other in ("count", "share", "compare", "by_change", "by_growth", "limit", "order", "order_by"):
            patched.pop(other, None)
    elif args.get("count"):
        patched.pop("together", None)
    if patched.get("order_by") and patched["order_by"] not in patched.get("metrics", []):
        patched["order_by"] = patched["metrics"][0]  # "units sold in Q1?" after the top quarter by sales
    periods = patched.get("group_by") and all("grain" in g for g in patched["group_by"])
    if periods and "limit" in args and said & (_HIGH | _LOW | _JUDGED) and "order_by" not in patched:
        patched["order_by"] = patched["metrics"][0]  # "which one was best" of the quarters listed
    year = _BARE_YEAR.fullmatch(text)
    if year is not None and "window" in args and previous.get("window"):  # "2019" after May 2020: May 2019
        patched["window"] = _in_year(previous["window"], int(year["year"])) or patched["window"]
    if patched.get("share") and previous.get("filters") and _OF_EVERYTHING.search(text):
        # "their share of total revenue" after the over-50s by category: of everyone's, not theirs
        patched.pop("share")
        patched["share_of"] = {"window": patched["window"]} if patched.get("window") else {}
    return patched


_HOW_MANY_SALES = re.compile(r"\bhow many\s+(?:\w+\s+)?sales\b(?!\s+(?:in|of)\s+(?:units|value|revenue))")
_ALSO = re.compile(r"\b(?:also|too|as well|additionally|on top)\b")
"""A value added to those the answer before kept or left out, not put instead of them."""
_BARE_YEAR = re.compile(
    r"\s*(?:(?:and|ok|what about|how about)\s+)?(?:(?:in|for)\s+)?(?P<year>(?:19|20)\d\d)\s*"
)
"""A year said alone after an answer for part of one ("and 2019?")."""


def _in_year(window: dict[str, str], year: int) -> dict[str, str] | None:
    """The same part of another year (May 2020 -> May 2019); None for a whole year or a span of years."""
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    if start.year != end.year or (start.month, start.day, end.month, end.day) == (1, 1, 12, 31):
        return None

    def moved(day: date) -> date:
        last = calendar.monthrange(year, day.month)[1]  # February 29 of a year without one: the 28th
        return date(year, day.month, min(day.day, last))

    return {"start": moved(start).isoformat(), "end": moved(end).isoformat()}


_OF_EVERYTHING = re.compile(
    r"\bof\s+(?:the\s+|our\s+)?(?:total|all|overall|whole|everything|everyone|entire)\b"
)
"""A share of everything ("of total revenue"), not of what the answer before kept."""


def _one_of_many(previous: dict[str, Any], model: SemanticModel) -> dict[str, Any] | None:
    """A figure of one customer, one region... asked as the ranking of them all ("bottom 3?" after
    the #1 customer's share): the query by that column, the one value no longer kept."""
    if previous.get("group_by"):
        return None
    ones = [
        f
        for f in previous.get("filters", [])
        if f.get("op") == "in"
        and len(f.get("values", [])) == 1
        and f.get("column")
        and model.column(f["column"]).role in (Role.key, Role.label, Role.dimension)
    ]
    if len(ones) != 1:
        return None
    rest = {k: v for k, v in previous.items() if k not in ("filters", "share_of", "share", "limit")}
    kept = [f for f in previous.get("filters", []) if f is not ones[0]]
    return {**rest, **({"filters": kept} if kept else {}), "group_by": [{"column": ones[0]["column"]}]}


def _share_of_one(args: dict[str, Any]) -> dict[str, Any]:
    """A share asked of one figure (no breakdown): of the same metric over the same period, every
    other row kept ("Myntra's revenue, as a % of total")."""
    if not args.get("share") or args.get("group_by"):
        return args
    shared = {k: v for k, v in args.items() if k != "share"}
    shared["share_of"] = {"window": args["window"]} if args.get("window") else {}
    return shared


def _of_the_listed(previous: dict[str, Any], args: dict[str, Any]) -> dict[str, Any] | None:
    """A value of the column a share was broken down by, asked after it ("which channel brings the
    most revenue, and what share is it?", then "what about Myntra?"): that value's share of the whole."""
    groups = previous.get("group_by") or []
    if not previous.get("share") or len(groups) != 1 or "group_by" in args:
        return None
    column = groups[0]["column"]
    named = [f for f in args.get("filters", []) if f.get("column") == column and f["op"] == "in"]
    if len(named) != 1 or len(named[0]["values"]) != 1:
        return None
    kept = [f for f in previous.get("filters", []) if f.get("column") != column]
    one = {
        k: v for k, v in previous.items() if k not in ("group_by", "limit", "order", "order_by", "filters")
    }
    one["filters"] = [*kept, *args.get("filters", [])]
    if args.get("window"):
        one["window"] = args["window"]
    return _share_of_one(one)


def _whole_kept(
    previous: dict[str, Any], patched: dict[str, Any], args: dict[str, Any], found: Any
) -> dict[str, Any]:
    """A share asked before, carried into a follow-up only where it still means something: "and in
    2010?" moves a whole that was the period's own to the new period; a new metric, a breakdown or
    a comparison asks no share."""
    whole = dict(previous["share_of"])
    if found.metrics or "group_by" in args or "compare" in args:
        patched.pop("share_of", None)
    elif "window" in args and whole.get("window") == previous.get("window"):
        patched["share_of"] = {**whole, "window": args["window"]}
    elif "window" in args:
        patched.pop("share_of", None)
    return patched


_CONTENTS = re.compile(
    r"\bwhat\s+(?:was|were|is|are|'s)\s+(?:on|in)\s+(?:it|that|them|that\s+one)\b"
    r"|\bwhat\s+did\s+(?:it|that(?:\s+one)?)\s+(?:contain|have|hold|include)\b"
    r"|\bwhat(?:'s|\s+is|\s+was)\s+(?:in|on)\s+(?:it|that)\b"
)
"""What one order held, asked of the order just named ("what was on it?")."""
_ROW_LEFT_OUT = re.compile(
    rf"\b{LEAVING_OUT}\s+(?:it|them|(?:that|this)(?:\s+one)?(?:\s+\w+)?)\b"
    r"|\b(?:leav(?:e|ing)|tak(?:e|ing)|keep(?:ing)?)\s+(?:it|them|(?:that|this)(?:\s+one)?(?:\s+\w+)?)\s+out\b"
)
"""The row just named, left out ("leaving that one receipt out, which day…", "excluding it")."""


def _contents(row: RowReference, model: SemanticModel) -> dict[str, Any] | None:
    """The items of the order ``row`` names, each with its units (its lines where the file has no
    quantity); None when the row is no order or the file names no product."""
    item = model.label_of(Entity.product) or model.key_of(Entity.product)
    if model.column(row.column).entity is not Entity.order or item is None:
        return None
    names = {m.name for m in model.metrics}
    metric = "units" if "units" in names else "lines" if "lines" in names else None
    if metric is None:
        return None
    return {
        "metrics": [metric],
        "group_by": [{"column": item.name}],
        "filters": [{"column": row.column, "op": "in", "values": [row.value]}],
        "limit": MAX_ROWS,
    }


def _about_row(args: dict[str, Any], column: str, value: str, left_out: bool = False) -> dict[str, Any]:
    """The query asked of one row of the list before: that row kept (or, ``left_out``, every row
    but that one), the breakdown by its column (and the ranking of it) gone."""
    groups = [g for g in args.get("group_by", []) if g.get("column") != column]
    rules = [f for f in args.get("filters", []) if f.get("column") != column]
    about = {
        k: v for k, v in args.items() if k not in ("group_by", "limit", "order", "order_by", "share", "count")
    }
    if groups:
        about["group_by"] = groups
        about.update({k: args[k] for k in ("limit", "order", "order_by") if k in args})
    about["filters"] = [*rules, {"column": column, "op": "not_in" if left_out else "in", "values": [value]}]
    return about


_WHICH_ONE = re.compile(r"\bwhich\s+(?:one|of\s+(?:these|those|them))\b")


def _ranked_among(args: dict[str, Any], model: SemanticModel) -> dict[str, Any]:
    """The things the query before was narrowed to by a name's words ("doormats"), ranked: one."""
    named = [
        f
        for f in args.get("filters", [])
        if f.get("column")
        and f["op"] in ("in", "contains")
        and model.column(f["column"]).role in (Role.key, Role.label)
    ]
    if not named:
        return args
    column = model.column(named[-1]["column"])
    key = model.key_of(column.entity) if column.entity is not None else None
    return {**args, "group_by": [{"column": (key or column).name}], "limit": args.get("limit", 1)}


def _about_period(args: dict[str, Any], column: str, value: str, text: str) -> dict[str, Any]:
    """The query asked of one period the list before was broken down into (``column@grain``): that
    period is the window, compared with the one before or a year back when the question says so."""
    name, grain = column.split("@", 1)
    groups = [g for g in args.get("group_by", []) if g.get("column") != name]
    about = {k: v for k, v in args.items() if k not in ("group_by", "limit", "order", "order_by", "compare")}
    if groups:
        about["group_by"] = groups
    if grain in ("weekday", "hour"):  # a part of every date: "that weekday", "during that hour"
        part = int(value) if grain == "hour" else value
        rule = {"column": name, "part": grain, "op": "in", "values": [part]}
        about["filters"] = [*[f for f in args.get("filters", []) if f.get("part") != grain], rule]
        return about
    try:
        first = date.fromisoformat(value[:10])
    except ValueError:
        return args
    period = {
        "day": lambda: day_period(first),
        "month": lambda: month_period(first.year, first.month),
        "quarter": lambda: quarter_period(first.year, (first.month - 1) // 3 + 1),
        "year": lambda: year_period(first.year),
    }.get(grain, lambda: Period(first, first + timedelta(days=6), "", "range"))()
    about["window"] = _window(period)
    if _YEAR_BACK.search(text):
        about["compare"] = _window(period.year_before())
    elif _STEP_BACK.search(text) or set(text.split()) & _GROWTH:
        about["compare"] = _window(period.before())
    return about


def _span_before(window: dict[str, str]) -> dict[str, str]:
    """The span of the same length just before ``window``: whole months before whole months ("March"
    then February), else as many days."""
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    if start.day == 1 and (end + timedelta(days=1)).day == 1:
        months = (end.year - start.year) * 12 + end.month - start.month + 1
        first = start.year * 12 + start.month - 1 - months
        earlier = date(first // 12, first % 12 + 1, 1)
        return {"start": earlier.isoformat(), "end": (start - timedelta(days=1)).isoformat()}
    days = (end - start).days + 1
    return {
        "start": (start - timedelta(days=days)).isoformat(),
        "end": (start - timedelta(days=1)).isoformat(),
    }


_WEEK_DAYS = 6
"""A window from a day to six days later is a week."""


def _year_back(window: dict[str, str]) -> dict[str, str]:
    """The window a year earlier: a week's is 52 weeks earlier, on the same weekdays (how retail
    compares a week with last year's), every other the same dates a year earlier."""
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    if (end - start).days == _WEEK_DAYS:
        weeks = timedelta(weeks=52)
        return {"start": (start - weeks).isoformat(), "end": (end - weeks).isoformat()}
    return {
        "start": start.replace(year=start.year - 1).isoformat(),
        "end": end.replace(
            year=end.year - 1, day=min(end.day, 28) if end.month == 2 else end.day
        ).isoformat(),
    }


def _metric_over(model: SemanticModel, column: str) -> str | None:
    """The metric of a measure column named on its own ("profit", "discount")."""
    for kind in (Kind.sum, Kind.average):
        for metric in model.metrics:
            if metric.over == column and metric.kind is kind and metric.times is None:
                return metric.name
    return None


def _counted_entity(model: SemanticModel, metric: str) -> Entity | None:
    found = model.metric(metric)
    if found.kind is not Kind.count_distinct or found.over is None:
        return None
    return model.column(found.over).entity


def _not_left_out(
    filters: list[dict[str, Any]], metrics: list[str], model: SemanticModel
) -> list[dict[str, Any]]:
    """The filters less one that leaves out the cancelled orders a metric counts ("which customers
    were those cancellations from?" after revenue excluding them: the cancelled ones, not none)."""
    cancelling = model.cancellation
    names = {m.name: m for m in model.metrics}
    if cancelling is None or not any(names[m].only == "cancelled" for m in metrics if m in names):
        return filters
    return [f for f in filters if not (f.get("column") == cancelling.column and f.get("op") == "not_in")]


def _default_metric(
    model: SemanticModel, cues: set[str] | frozenset[str] = frozenset(), *, counting: bool = False
) -> str:
    """What a question naming no metric asks for: revenue, the orders of "the busiest hour", or what
    is counted of the things it names ("how many Porsches were sold?": units, or orders -- a car a
    line -- where the file has no quantity)."""
    names = [m.name for m in model.metrics]
    if counting and "units" in names:
        return "units"
    if (counting or cues & _BUSY) and "orders" in names:
        return "orders"
    return "revenue" if "revenue" in names else names[0]


def _whole_only(model: SemanticModel, items: bool) -> bool:
    """Whether a question about items (``items``) is about their units, not revenue: where revenue
    is each order's own total, never split among its items (a file of one column per item)."""
    if not items or "revenue" not in {m.name for m in model.metrics}:
        return False
    over = model.metric("revenue").over
    return over is not None and model.column(over).of_order


def _unique(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    for group in groups:
        if group not in seen:
            seen.append(group)
    return seen


def _columns_read(model: SemanticModel, args: dict[str, Any]) -> set[str]:
    columns = {g["column"] for g in args.get("group_by", [])}
    columns |= {f["column"] for f in args.get("filters", []) if f.get("column")}
    for group in args.get("group_by", []):
        column = model.column(group["column"])
        if column.role is Role.key and column.entity is not None:
            label = model.label_of(column.entity)
            if label is not None:
                columns.add(label.name)
    return columns | model.read_by(args.get("metrics", []))
