"""``DataGuide``: the query guide with the dataset's own semantic model beside the retail reader.

Two readers, one answer each (docs/architecture.md#answers-by-construction):

* the retail reader (``QueryGuide``, over ``analyze_sales``) knows the questions every sales table
  answers and their many wordings, and stays the fast path for them;
* the semantic reader (``semantic_reading``, over ``query_data``) knows whatever the active file has:
  its own columns, values and metrics.

A question whose reading names a column only this file has (a region, a profit, a customer's name)
goes to ``query_data``, and so does one the retail reader does not cover and the semantic one does,
and a follow-up of a ``query_data`` answer. The rest is the retail guide's, unchanged. The guide runs
in the app's own process, so it reads the active version's model and values directly (the same
``semantic_source`` the tool reads), rebuilt when the version changes.
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from agent_orchestrator.errors import RetailDatabaseError
from agent_orchestrator.local_model.conversation import LOOKS_AFTER
from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall
from agent_orchestrator.retail.analysis.query import PeriodError, parse_period
from agent_orchestrator.retail.datasets.semantic import semantic_source
from agent_orchestrator.retail.db import open_readonly
from agent_orchestrator.retail.queries import records_countries
from agent_orchestrator.semantic import (
    Engine,
    Entity,
    Filter,
    Kind,
    Role,
    SemanticModel,
    SemanticQuery,
    Vocabulary,
    Window,
)
from agent_orchestrator.semantic.render import day_text, window_text
from agent_orchestrator.semantic.vocabulary import Mention, normalise

from .guide import QueryGuide, _arguments, _calls, _text, answer_of
from .semantic_reading import SemanticReading, extra_columns, read_semantic, without_reasons
from .start import StartScreen, reads_whole, start_screen
from .words import normalize

TOOL = "query_data"
"""The semantic query tool's own name (the runtime prefixes its server's)."""


@dataclass(frozen=True)
class _Data:
    rows: Path
    model: SemanticModel
    vocabulary: Vocabulary
    first_day: date | None
    last_day: date | None
    hashed: frozenset[str]
    """Key columns the retail tables keep only as numbers made from the file's text ("SM-20320")."""
    own_totals: bool
    """The retail tables' figures are not the file's: they leave out lines without a customer (guest
    checkouts) or a file with no customer or product column at all, and know cancellations only as
    reversal lines, not a status's ("Cancelled"). Only the file's own rows then give its totals."""
    own_columns: bool
    """Columns the retail tables do not have (a region, a profit)."""
    rows_only: bool
    """A file imported as its own rows only (no customer or product column): the retail tables hold
    none of its lines, so nothing of theirs may answer a question on it."""
    spans: dict[str, tuple[date | None, date | None]]
    """Each date column's first and last day: a window on another date than the model's time
    ("deals engaged in 2016") is outside the data by that date's span."""
    lacks: frozenset[str]
    """What the retail tables answer of every file but this one does not record ("country": every
    line's country is unspecified; "cancellations": no line reverses another and no status marks
    one): asked of, it is declined, never answered "Unspecified" or 0 (:func:`_lacking`)."""


class DataGuide:
    """Plans the steps the two query tools can answer; stateless but for the dataset's vocabulary."""

    def __init__(self, current_path: Callable[[], Path] | None = None) -> None:
        self._retail = QueryGuide()
        self._current_path = current_path
        self._data: _Data | None = None
        self._start: tuple[_Data, StartScreen] | None = None
        self._lock = threading.Lock()

    def owns(self, tool: dict[str, Any]) -> bool:
        return self._retail.owns(tool) or _is_query(tool)

    def step(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> GuidedCall | GuidedAnswer | None:
        tool = next((str(t["function"]["name"]) for t in tools if _is_query(t)), None)
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if tool is None or not users or self._current_path is None:
            return self._retail.step(messages, tools)
        last = users[-1]
        turn = messages[last + 1 :]
        data = self._dataset()
        if data is not None:
            said = _text(messages[last])
            plain = without_reasons(said, data.vocabulary, data.last_day)
            if plain != said:  # "leave out Dec 2011 since it's only partial": the why is not the what
                messages = [*messages[:last], {**messages[last], "content": plain}, *messages[last + 1 :]]
        if any(m.get("role") == "tool" for m in turn):
            answered = _answer(turn, tool)
            if answered is None:
                return self._retail.step(messages, tools)
            aside = _read(messages, last, tool, data).aside if data is not None else []
            return _doing_without(answered, aside)
        if data is None:
            return self._retail.step(messages, tools)
        about = _ABOUT_YOU.match(normalize(_text(messages[last])))
        if about is not None and (about["greeting"] or about["ask"]):  # what is loaded, questions to try
            hello = "Hello! " if about["greeting"] else ""
            return GuidedAnswer(hello + self._start_of(data).in_brief())
        shops = _SHOPS_RANKED.search(normalize(_text(messages[last])))
        if shops is not None and not data.vocabulary.find(shops["shop"]).columns:
            return GuidedAnswer(
                f"I can't answer that from this data: it records no stores. {can_ask(data.model)}"
            )
        planned = _lacking(self._retail.step(messages, tools), data)
        previous, _ = _previous(messages[:last], tool)
        reading = (
            _meaning_chosen(messages, last, tool, data)
            or _corrected(messages, last, tool, data)
            or _read(messages, last, tool, data)
        )
        outside = _outside(reading.arguments, data)
        if outside is not None:
            return GuidedAnswer(outside)
        if not reading.covered:
            if (
                (data.rows_only and (reading.named or reading.left or isinstance(planned, GuidedCall)))
                or extra_columns(data.model, reading.columns)
                or (planned is None and reading.named and (data.own_totals or data.own_columns))
                or (
                    planned is None
                    and (data.own_totals or data.own_columns)
                    and _FIGURE_ASKED.search(normalize(_text(messages[last])))
                )
            ):
                # it names what only this file has ("sales reps in Texas": a state): the retail tables
                # would read it as something else (a product called Texas), and so would the model;
                # nor is the model to improvise over tables that lack this file's lines or columns,
                # and a file imported as its rows only has none of its lines in the retail tables;
                # nor to make up a figure ("how many points were redeemed?") neither reader read
                reason = _lacks_a_count(_text(messages[last]), data.model) or _unread(reading.left)
                refused: GuidedCall | GuidedAnswer | None = GuidedAnswer(f"{reason} {can_ask(data.model)}")
            else:
                refused = _in_this_datas_words(planned, data, reading.left)
            if (
                isinstance(refused, GuidedAnswer)
                and _CAN_ASK in refused.text
                and reading.ambiguous
                and set(reading.left) <= set(reading.ambiguous)
            ):  # declined only for a name that is several things: which is asked instead
                alike = _one_place(messages, last, tool, data, reading)
                if alike is not None:  # the city Bremen and the state Bremen: the same lines
                    return GuidedCall(tool, alike.arguments)
                return GuidedAnswer(_which_is_meant(reading, data))
            return refused
        # Only this file's columns, a question the retail reader did not read (a refusal, or left to
        # the model), or a follow-up of this tool's answer. A reading covers every word, numbers too,
        # so one customer's details ("is 22156 High Value?") stay the customer tools'.
        filtered = {f.get("column") for f in reading.arguments.get("filters", [])}
        if (
            extra_columns(data.model, reading.columns)
            or filtered & data.hashed  # "customer SM-20320": a key only the file's rows hold as written
            or data.own_totals  # the retail tables lack lines or statuses of the file's: its totals
            or not isinstance(planned, GuidedCall)
            or (previous is not None and reading.follow_up)
            or _looks_up_a_columns_word(planned, data.model)
            or _looks_up_part_of_a_name(planned, reading.arguments)
        ):
            return GuidedCall(tool, reading.arguments)
        return planned

    def start_screen(self) -> StartScreen | None:
        """What the active dataset holds and questions to ask it (None: no dataset is readable)."""
        data = self._dataset()
        return None if data is None else self._start_of(data)

    def _start_of(self, data: _Data) -> StartScreen:
        with self._lock:
            if self._start is None or self._start[0] is not data:
                with Engine(data.model, data.rows) as engine:
                    reads = reads_whole(data.model, data.vocabulary, data.last_day)
                    self._start = (data, start_screen(data.model, engine, data.last_day, reads))
            return self._start[1]

    def _dataset(self) -> _Data | None:
        """The active version's model, vocabulary and last day (rebuilt when the version changes)."""
        assert self._current_path is not None
        with self._lock:
            path = self._current_path()
            try:
                model, rows = semantic_source(path)
            except Exception:
                return None
            if self._data is None or self._data.rows != rows or self._data.model != model:
                customer = model.key_of(Entity.customer)
                with Engine(model, rows) as engine:
                    words = engine.words()
                    first_day, last_day = engine.span()
                    spans = {column.name: engine.span(column) for column in model.dated}
                    # guest lines, or a file imported as its own rows only (no customer or product
                    # column mapped): the retail tables lack lines the file has
                    lines, lacks = _retail_lines(path)
                    rows_only = not lines
                    guests = customer is not None and engine.blank(customer) > 0
                    # lines whose amount is blank: sales of an unknown amount, which the retail
                    # tables leave out (a count of the file's sales counts them)
                    sold = next((m for m in model.metrics if m.name == "revenue"), None)
                    unpriced = (
                        sold is not None
                        and sold.over is not None
                        and engine.blank(model.column(sold.over)) > 0
                    )
                # cancellations marked by a status, or discounts taken off the lines' amounts, which
                # the retail tables do not know
                statuses = model.cancellation is not None and model.cancellation.prefix is None
                discounted = any(m.less for m in model.metrics)
                hashed = frozenset(
                    [customer.name]
                    if customer is not None and any(not v.isdigit() for v in words.get(customer.name, []))
                    else []
                )
                own = extra_columns(model, {c.name for c in model.columns})
                vocabulary = Vocabulary(model, words)
                self._data = _Data(
                    rows,
                    model,
                    vocabulary,
                    first_day,
                    last_day,
                    hashed,
                    guests or rows_only or statuses or discounted or unpriced,
                    own,
                    rows_only,
                    spans,
                    lacks if model.cancellation is None else lacks - {"cancellations"},
                )
            return self._data


def _read(messages: Sequence[dict[str, Any]], last: int, tool: str, data: _Data) -> SemanticReading:
    """The semantic reading of the user's message at ``last``, with what the chat before it asked and
    listed (a follow-up's base)."""
    previous, listed = _previous(messages[:last], tool)
    which = _WHICH_LIST.search(_text(messages[last]))
    if which is not None:  # "#1 on that first list": a list answered earlier than the last one
        listed = _nth_list(messages[:last], tool, which) or listed
    top = _TOP_LIST.search(_text(messages[last]))
    if top is not None:  # "#2 on the top list" after the bottom 3: the latest list ranked from the top
        listed = _top_list(messages[:last], tool, int(top["size"] or 2)) or listed
    return read_semantic(
        _in_their_words(_text(messages[last]), messages[:last], data),
        data.model,
        data.vocabulary,
        data.last_day,
        previous,
        listed,
        *_periods_before(messages[:last], data.last_day),
    )


_MINE = re.compile(r"\bmy\s+(?P<noun>[a-z]+)\b", re.IGNORECASE)
"""What the user looks after, said as theirs ("my range"); "our" is the business's ("our total revenue")."""
_SCOPE_NOUNS = frozenset(
    {"range", "desk", "area", "patch", "team", "category", "categories", "region", "regions", "segment",
     "segments", "accounts", "account", "stores", "store", "territory", "portfolio", "line", "lines",
     "market", "markets", "brand", "brands", "department", "counter", "products", "product", "customers",
     "customer", "channel", "channels"}
)  # fmt: skip
"""What a person looks after is called ("my range", "my desk", "my accounts"), beside the statement's
own nouns ("I run the Books desk": "my desk"); "my deadline" is no such thing."""
_LOOKING_AFTER = re.compile(rf"\bi(?:'m|\s+am)?\s+(?:\w+\s+)?{LOOKS_AFTER}\b", re.IGNORECASE)
"""A user saying what they look after ("I run the Books desk", "I'm Lena, I look after Home Appliances")."""


def _in_their_words(text: str, earlier: Sequence[dict[str, Any]], data: _Data) -> str:
    """The question with "my range", "my desk" (a noun the data does not know) put as the value the
    user said they look after earlier in the chat ("I look after Home Appliances": "the top product
    in my range" is in Home Appliances): what they told is part of what they ask."""
    found = _MINE.search(text)
    known = data.vocabulary.find(found["noun"]) if found is not None else None
    if found is None or known is None or known.mentions or known.columns or known.metrics or known.grains:
        return text  # "our revenue", "my region": words the data has
    for message in reversed(earlier):
        if message.get("role") != "user":
            continue
        said = _text(message)
        told = _LOOKING_AFTER.search(said)
        if told is None:
            continue
        after = normalize(said[told.end() :].split(".")[0].split("?")[0])
        if found["noun"].lower() not in _SCOPE_NOUNS | set(after.split()):
            return text  # "when is my deadline?" after "I'm focusing on customer 22759": the chat's
        mentions = data.vocabulary.find(after).mentions
        if len({m.column for m in mentions}) == 1 and mentions:
            values = " and ".join(dict.fromkeys(m.value for m in mentions))
            return text[: found.start()] + values + text[found.end() :]
    return text


_SEVERAL = re.compile(r"^'(?P<value>[^']+)' is more than one thing here: which do you mean")
"""The question :func:`_which_is_meant` asks (the chat's own text: what the next message answers)."""


def _which_is_meant(reading: SemanticReading, data: _Data) -> str:
    """One question for a name that is several things ("'Aurora' is more than one thing here: which
    do you mean, the dealer region Aurora, the model Aurora (Oldsmobile) or the customer name
    Aurora?"): each as its column and, where a column groups it, what it is in."""
    word, mentions = next(iter(reading.ambiguous.items()))
    kinds = []
    with Engine(data.model, data.rows) as engine:
        for mention in mentions:
            column = data.model.column(mention.column)
            group = engine.grouped_in(column, mention.value)
            kinds.append(f"the {column.title.lower()} {mention.value}" + (f" ({group})" if group else ""))
    # the name as the data writes it ("Aurora"), or as said when it is short for several ("metro")
    value = mentions[0].value if normalize(mentions[0].value) == word else word
    return (
        f"'{value}' is more than one thing here: which do you mean, "
        + ", ".join(kinds[:-1])
        + f" or {kinds[-1]}?"
    )


def _meaning_chosen(
    messages: Sequence[dict[str, Any]], last: int, tool: str, data: _Data
) -> SemanticReading | None:
    """The question before, read with the meaning this message chose ("the region", "the
    Oldsmobile one") after :func:`_which_is_meant` asked which: the name said with its column."""
    if last < 2 or messages[last - 1].get("role") != "assistant":
        return None
    if not _SEVERAL.match(_text(messages[last - 1])):
        return None
    asked = last - 2
    if messages[asked].get("role") != "user":
        return None
    before = _read(messages, asked, tool, data)
    said = normalize(_text(messages[last]))
    with Engine(data.model, data.rows) as engine:
        chosen_of = {
            word: _meant(said, mentions, data.model, engine) for word, mentions in before.ambiguous.items()
        }
    for word, chosen in chosen_of.items():
        if len(chosen) == 1:
            return _read_as(messages, asked, word, chosen[0], tool, data)
    return None


def _read_as(
    messages: Sequence[dict[str, Any]], asked: int, word: str, meant: Mention, tool: str, data: _Data
) -> SemanticReading | None:
    """The question ``asked`` read with ``word`` as the value ``meant``, its column said once ("the
    mall machine": the machine chosen); None when that reading does not cover it."""
    column = data.model.column(meant.column)
    question = re.sub(
        rf"(?<!\w){re.escape(word)}(?:\s+{re.escape(normalize(column.title))})?(?!\w)",
        f"{column.title} {meant.value}",
        normalize(_text(messages[asked])),
        count=1,
    )
    reading = _read([*messages[:asked], {"role": "user", "content": question}], asked, tool, data)
    return reading if reading.covered else None


def _one_place(
    messages: Sequence[dict[str, Any]], last: int, tool: str, data: _Data, reading: SemanticReading
) -> SemanticReading | None:
    """A name whose every meaning is within one of them is that one, asked about nobody: the city
    Bremen and the state Bremen hold the very same lines (a city-state); "the mall" is the location
    Brunswick Sq Mall, whose lines hold those of the two machines named for it."""
    if len(reading.ambiguous) != 1:
        return None
    word, mentions = next(iter(reading.ambiguous.items()))
    lines = next((m.name for m in data.model.metrics if m.kind is Kind.rows), None)
    if lines is None or len({m.column for m in mentions}) < 2:
        return None
    kept = {m: Filter(column=m.column, op="in", values=[m.value]) for m in mentions}
    with Engine(data.model, data.rows) as engine:

        def lines_of(*rules: Filter) -> Any:
            return engine.run(SemanticQuery(metrics=[lines], filters=list(rules))).rows[0][0]

        alone = {m: lines_of(rule) for m, rule in kept.items()}
        widest = max(mentions, key=lambda m: alone[m])
        within = all(
            lines_of(kept[widest], kept[m]) == alone[m]
            for m in mentions
            if m is not widest and m.column != widest.column
        )
    if not within or any(m.column == widest.column for m in mentions if m is not widest):
        return None
    return _read_as(messages, last, word, widest, tool, data)


_MEANT = re.compile(r"^\W*(?:(?:sorry|oops|no|ah|ok)\W+)*i\s+mean(?:t)?\W+(?P<meant>.+)$")
_UNKNOWN = re.compile(r"I don't know what (?P<words>'[^.]+') means here")


def _corrected(
    messages: Sequence[dict[str, Any]], last: int, tool: str, data: _Data
) -> SemanticReading | None:
    """The question before, read with this message's correction ("sorry, I meant Naypyitaw") in
    place of the words it was declined for ("our capital city branch": 'capital')."""
    meant = _MEANT.match(normalize(_text(messages[last])))
    if meant is None or last < 2 or messages[last - 1].get("role") != "assistant":
        return None
    unknown = _UNKNOWN.search(_text(messages[last - 1]))
    asked = last - 2
    if unknown is None or messages[asked].get("role") != "user":
        return None
    words = re.findall(r"'([^']+)'", unknown["words"])
    question = normalize(_text(messages[asked]))
    for size in range(len(words), 0, -1):  # the longest run of the unknown words, side by side
        run = r"\s+".join([rf"(?:{'|'.join(re.escape(w) for w in words)})"] * size)
        corrected, done = re.subn(rf"(?<!\w){run}(?!\w)", meant["meant"], question, count=1)
        if done:
            reading = _read([*messages[:asked], {"role": "user", "content": corrected}], asked, tool, data)
            return reading if reading.covered else None
    return None


def _meant(said: str, mentions: Sequence[Mention], model: SemanticModel, engine: Engine) -> list[Mention]:
    """The choices the answer to which is meant names: the one value it says ("Metropol AVM", of
    two malls said short as "Metro"), else those whose column or group it says ("the region")."""
    named = [m for m in mentions if re.search(rf"\b{re.escape(normalize(m.value))}\b", said)]
    if len(named) != 1:  # "the zales one": a word of its name no other choice's has
        words = {m.value: set(normalise(m.value).split()) for m in mentions}
        told = set(normalise(said).split())
        named = [
            m
            for m in mentions
            if told & (words[m.value] - set().union(*(words[o.value] for o in mentions if o != m)))
        ]
    return named if len(named) == 1 else [m for m in mentions if _names_meaning(said, m, model, engine)]


def _names_meaning(said: str, mention: Mention, model: SemanticModel, engine: Engine) -> bool:
    """Whether the answer to which is meant names this one: by its column ("the region", "dealer
    region") or by what groups it ("the Oldsmobile one")."""
    column = model.column(mention.column)
    words = [w for w in normalize(column.title).split() if w not in ("name", "id", "no", "number")]
    if column.entity is not None:
        words.append(column.entity.value)
    if any(re.search(rf"\b{re.escape(w)}s?\b", said) for w in words):
        return True
    group = engine.grouped_in(column, mention.value)
    return group is not None and normalize(group) in said


def _doing_without(answered: GuidedAnswer, aside: list[str]) -> GuidedAnswer:
    """The tool's answer, with the words its reading did without said (shown, never silently
    dropped: the reading above the figures says what was read)."""
    if not aside:
        return answered
    words = " or ".join(f"'{w}'" for w in aside)
    return GuidedAnswer(f"{answered.text}\n\n(Read without {words}: not a word the data has.)")


def _retail_lines(path: Path) -> tuple[bool, frozenset[str]]:
    """Whether the version's retail tables hold any line (a file imported as its own rows has none),
    and what of theirs the file did not record (:attr:`_Data.lacks`)."""
    facts = {
        "lines": "SELECT 1 FROM transactions LIMIT 1",
        "cancellations": "SELECT 1 FROM transactions WHERE is_cancellation = 1 LIMIT 1",
    }
    try:
        with contextlib.closing(open_readonly(path)) as conn:
            held = {fact for fact, sql in facts.items() if conn.execute(sql).fetchone() is not None}
            held |= {"country"} if records_countries(conn) else set()
    except (RetailDatabaseError, sqlite3.Error):
        return True, frozenset()
    if "lines" not in held:
        return False, frozenset()
    return True, frozenset({*facts, "country"}) - held


_SHOPS_RANKED = re.compile(
    r"\b(?:which|what|each|per|by|top|best|worst|busiest|individual)\s+(?P<shop>stores?|shops?)\b"
)
"""A question by store ("which store sold most?", "revenue per shop"). "Store" is common English to
the retail reader ("our store's revenue"), so of a file with no store column it would be answered
with the figure of all stores together; "in every store" is everything together, not this."""


_CANCELLED = frozenset({"cancellations", "cancelled_revenue", "cancellation_rate"})
"""The retail tool's measures of cancelled orders and returns."""


def _lacking(planned: GuidedCall | GuidedAnswer | None, data: _Data) -> GuidedCall | GuidedAnswer | None:
    """The retail reader's call, unless it asks what this file does not record: then said so, with
    what the file answers instead. A file without a country has every customer "Unspecified" and one
    without returns 0 of them; either answer would be a misreading stated as a fact."""
    if not isinstance(planned, GuidedCall) or not data.lacks:
        return planned
    arguments = planned.arguments
    asks: set[str] = set()
    by_country = arguments.get("group_by") == "country" or (
        arguments.get("exclude_top") and arguments.get("exclude_top_of") == "country"
    )
    named = any("countr" in key and value for key, value in arguments.items())  # countries, country
    if by_country or named or planned.name.endswith("country_breakdown"):
        asks.add("country")
    if arguments.get("measure") in _CANCELLED:
        asks.add("cancellations")
    missing = asks & data.lacks
    if not missing:
        return planned
    said = " or ".join("countries" if m == "country" else "returns or cancellations" for m in sorted(missing))
    return GuidedAnswer(f"I can't answer that from this data: it records no {said}. {can_ask(data.model)}")


_ABOUT_YOU = re.compile(
    r"^\W*(?P<greeting>(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening|day))"
    r"(?: there| all| team)?\b\W*)?"
    r"(?P<ask>(?:so |and |ok |okay )?"
    r"(?:what (?:can|could|do) (?:you|i) (?:do|ask|help with|answer|know|tell me)"
    r"(?: (?:here|about|for me|with this|on this data))?"
    r"|what (?:data|dataset|figures|numbers) (?:do you have|is (?:this|loaded|here)|are (?:loaded|here))"
    r"|what(?: kind of| sort of)? questions can i ask(?: you)?|how can you help(?: me)?"
    r"|who are you|what are you|help(?: me)?)\b\W*)?$"
)
"""A greeting, "what can you do?" or both: answered with the start screen, briefly."""


_CAN_ASK = " You can ask for "
_FIGURE_ASKED = re.compile(r"\bhow (?:many|much)\b|\b(?:number|count|total|sum|average) of\b")
"""A figure asked for: one that no reader read is declined, never left to the model to make up."""


_LACKS = re.compile(r"it holds no figures on (?P<subjects>[^.]+)\.")


def _in_this_datas_words(planned: GuidedCall | GuidedAnswer | None, data: _Data, left: list[str]) -> Any:
    """A refusal says what this dataset can answer instead: its own metrics and columns, not only
    those every sales table has. "It holds no figures on profit" is not said of a file that has
    them: what the question was not read by is said instead (its words left over)."""
    if not isinstance(planned, GuidedAnswer) or _CAN_ASK not in planned.text:
        return planned
    reason = planned.text.split(_CAN_ASK, 1)[0]
    lacks = _LACKS.search(reason)
    if lacks is not None:
        found = data.vocabulary.find(normalize(lacks["subjects"]))
        if found.metrics or found.columns:
            reason = _unread(left)
    return GuidedAnswer(f"{reason} {can_ask(data.model)}")


_COUNTED = {
    "orders": ("orders", "transactions", "purchases", "invoices", "receipts"),
    "customers": ("customer", "customers", "buyers", "clients", "shoppers"),
    "units": ("units", "quantity", "pieces"),
}
"""What every sales table is asked to count, in the words people ask it with."""
_COUNTING = r"\b(?:how many|number of|count of|count the|total|no\.? of|# of)\s+"
"""A count asked, before what is counted ("how many orders", "number of customers")."""


def _lacks_a_count(question: str, model: SemanticModel) -> str | None:
    """Why a question counting what the file does not record ("how many orders?" of monthly figures,
    "how many customers?" of a file without them) is declined: that, not that it was not read."""
    text = normalize(question)
    names = {m.name for m in model.metrics}
    lacking = [
        count
        for count, said in _COUNTED.items()
        if count not in names and any(re.search(rf"{_COUNTING}(?:\w+\s+){{0,2}}{w}\b", text) for w in said)
    ]
    if not lacking:
        return None
    time = model.time
    period = time.each_row if time is not None else None
    why = f" (each row is a {period}'s figures, not a sale)" if period else ""
    return f"I can't answer that from this data: it holds no figures on {' or '.join(lacking)}{why}."


def _unread(left: list[str]) -> str:
    unread = " or ".join(f"'{w}'" for w in dict.fromkeys(left))
    if not unread:
        return "I couldn't read that question whole."
    return f"I can't answer that from this data: I don't know what {unread} means here."


def _outside(arguments: dict[str, Any], data: _Data) -> str | None:
    """A period wholly outside the data ("January 2018" of a file that ends in 2017, or compared with:
    "2022 vs 2021" of a file of 2022): said, with the data's span, rather than answered with zeros
    (or forecast)."""
    for window in (arguments.get("window") or {}, arguments.get("compare") or {}):  # "2022 vs 2021"
        first_day, last_day = data.spans.get(window.get("column") or "", (data.first_day, data.last_day))
        if first_day is None or last_day is None:
            continue
        start, end = window.get("start"), window.get("end")
        after = start is not None and date.fromisoformat(str(start)) > last_day
        before = end is not None and date.fromisoformat(str(end)) < first_day
        if after or before:
            asked = window_text(Window.model_validate(window))
            span = f"{day_text(first_day)} to {day_text(last_day)}"
            return f"I can't answer that from this data: it runs from {span}, and {asked} is outside it."
    return None


def can_ask(model: SemanticModel) -> str:
    """What the dataset answers, in one sentence: its metrics, and what they can be broken down by."""
    metrics = [m.title.lower() for m in model.metrics if m.kind not in (Kind.minimum, Kind.maximum)][:10]
    columns = model.with_role(Role.dimension, Role.key)
    groups = [c.entity.value if c.role is Role.key and c.entity else c.title.lower() for c in columns]
    text = "You can ask for " + ", ".join(metrics)
    if groups:
        text += " — in total or by " + ", ".join(dict.fromkeys(groups))
    return text + ", for any period, compared with an earlier one or as a share of the total."


def _is_query(tool: dict[str, Any]) -> bool:
    name = str((tool.get("function") or {}).get("name") or "")
    return name == TOOL or name.endswith(f"-{TOOL}")


def _previous(
    earlier: Sequence[dict[str, Any]], tool: str
) -> tuple[dict[str, Any] | None, tuple[str, list[str]] | None]:
    """The arguments of the last call, if the last tool call of the chat was a ``query_data`` one
    (a follow-up's base), and what the latest answer with a list listed (of the last
    :data:`_LISTS_BACK` calls): the values of the column it broke down by ("which of those…",
    "no. 3 on that list" after a one-figure answer), or the choices it offered for a name ("Tamara")."""
    previous: dict[str, Any] | None = None
    calls_back = 0
    for at in range(len(earlier) - 1, -1, -1):
        calls = _calls(earlier[at])
        if not calls:
            continue
        call = calls[-1]
        function = call.get("function") or {}
        if function.get("name") != tool:
            return previous, None
        raw = function.get("arguments")
        try:
            arguments = json.loads(raw) if isinstance(raw, str) else raw
        except json.JSONDecodeError:
            return previous, None
        if not isinstance(arguments, dict):
            return previous, None
        previous = previous if previous is not None else arguments
        listed = _listed(earlier[at + 1 :], str(call.get("id")))
        calls_back += 1
        if listed is not None and (len(listed[1]) > 1 or (calls_back == 1 and not _kept_to_one(arguments))):
            return previous, listed
        if calls_back >= _LISTS_BACK:
            break
    return previous, None


def _kept_to_one(arguments: dict[str, Any]) -> bool:
    """Whether a breakdown was kept to values it names ("texas?" after the top states): a figure of
    those, no list a later "#1 on that list" means."""
    grouped = {g.get("column") for g in arguments.get("group_by") or []}
    return any(f.get("column") in grouped and f.get("op") == "in" for f in arguments.get("filters") or [])


def _periods_before(
    earlier: Sequence[dict[str, Any]], last_day: date | None
) -> tuple[dict[str, str] | None, dict[str, str] | None]:
    """The windows the chat's last two calls were for, of any tool, the last first ("how many orders
    in 2017?" answered by the retail tools, then "the average order value that year?" read here;
    "Q4 2021?", "and Q4 2022?", then "so what's the % change?"): None where a call had none."""
    found: list[dict[str, str] | None] = []
    for message in reversed(earlier):
        calls = _calls(message)
        if not calls:
            continue
        found.append(_window_of(_arguments(calls[-1]) or {}, last_day))
        if len(found) == 2 or found[0] is None:
            break
    found += [None, None]
    return found[0], found[1]


def _window_of(arguments: dict[str, Any], last_day: date | None) -> dict[str, str] | None:
    window = arguments.get("window")
    if isinstance(window, dict):
        return window
    try:
        period = parse_period(str(arguments["period"]), last_day)
    except (KeyError, PeriodError):
        return None
    return {"start": period.first.isoformat(), "end": period.last.isoformat()}


_WHICH_LIST = re.compile(
    r"\b(?:the|that|your|my)\s+(?P<nth>first|second|third|earlier|previous|original|other)\s+"
    r"(?:list|ranking|table|breakdown|one)\b|\b(?P<before>list|ranking|table)\s+before\s+(?:that|this|it)\b",
    re.IGNORECASE,
)
"""A list of the chat named by its place ("#1 on that first list", "the list before that")."""
_NTH_LIST = {"first": 0, "original": 0, "second": 1, "third": 2}


def _nth_list(
    earlier: Sequence[dict[str, Any]], tool: str, which: re.Match[str]
) -> tuple[str, list[str]] | None:
    """The list of the chat that ``which`` names: the first, second or third answered, or the one
    before the latest ("the earlier list", "the list before that")."""
    lists = []
    for at, message in enumerate(earlier):
        for call in _calls(message):
            if (call.get("function") or {}).get("name") == tool:
                found = _listed(earlier[at + 1 :], str(call.get("id")))
                if found is not None and len(found[1]) > 1:
                    lists.append(found)
    place = _NTH_LIST.get((which["nth"] or "").lower(), -2)
    return lists[place] if -len(lists) <= place < len(lists) else None


_TOP_LIST = re.compile(r"\b(?:the|that|this|your)\s+top(?:\s+(?P<size>\d{1,2}))?\s+(?:list|ranking)\b", re.I)
"""A list named as the top of a ranking ("#2 on the top list", "3rd on that top 5 list")."""


def _top_list(earlier: Sequence[dict[str, Any]], tool: str, size: int) -> tuple[str, list[str]] | None:
    """The latest list of the chat ranked from the top (not the bottom) with ``size`` rows at least."""
    for at in range(len(earlier) - 1, -1, -1):
        for call in reversed(_calls(earlier[at])):
            if (call.get("function") or {}).get("name") != tool:
                continue
            found = _listed(earlier[at + 1 :], str(call.get("id")))
            ranked_low = (_arguments(call) or {}).get("order") == "asc"
            if found is not None and len(found[1]) >= size and not ranked_low:
                return found
    return None


_LISTS_BACK = 3
"""How far back "that list" may be: answers of one figure in between ("what % is the UK?") are passed over."""


def _listed(after: Sequence[dict[str, Any]], call_id: str) -> tuple[str, list[str]] | None:
    result = next(
        (m for m in after if m.get("role") == "tool" and str(m.get("tool_call_id")) == call_id), None
    )
    try:
        data = json.loads(_text(result)) if result is not None else None
    except json.JSONDecodeError:
        return None
    if not isinstance(data, dict):
        return None
    clarify = data.get("clarify")
    if isinstance(clarify, dict) and isinstance(clarify.get("choices"), list):
        # the choices are values of the column that tells the things apart ("Oregon": a state), if one
        return str(clarify.get("by") or clarify.get("column")), [str(c) for c in clarify["choices"]]
    groups = (data.get("query") or {}).get("group_by") or []
    rows = data.get("rows")
    if len(groups) != 1 or not isinstance(rows, list):
        return None
    column = str(groups[0]["column"])
    if "grain" in groups[0]:  # periods: "column@month", each row's first day
        column += f"@{groups[0]['grain']}"
    return column, [str(row[0]) for row in rows if isinstance(row, list) and row]


def _answer(turn: Sequence[dict[str, Any]], tool: str) -> GuidedAnswer | None:
    """The tool's own answer, once this turn has its result."""
    ids = {str(c.get("id")) for m in turn for c in _calls(m) if (c.get("function") or {}).get("name") == tool}
    results = [m for m in turn if m.get("role") == "tool" and str(m.get("tool_call_id")) in ids]
    return answer_of(results[-1]) if results else None


_LOOKED_UP = ("products", "customers", "countries")
"""The retail tools' arguments that name things to look up."""


def _looks_up_a_columns_word(planned: GuidedCall, model: SemanticModel) -> bool:
    """The retail reader looks up, as a thing's name, a word of one of the file's column names
    ("which product ID sold the most units?": "ID" is the product column's word, never a product);
    a name the data lacks ("Mexico") is still the retail reader's to say it is not found."""
    said = {
        word
        for column in model.columns
        for name in (column.name.replace("_", " "), column.title, *column.synonyms)
        for word in normalize(name).split()
    }
    return any(set(normalize(name).split()) <= said for name in _looked_up(planned) if name.strip())


def _looks_up_part_of_a_name(planned: GuidedCall, arguments: dict[str, Any]) -> bool:
    """The retail reader looks up part of a name the reading found whole ("Hon Deluxe Fabric
    Upholstered Stacking Chairs, Rounded Back": its words up to the comma name another product)."""
    found = [str(v).lower() for rule in arguments.get("filters", []) for v in rule.get("values", [])]
    return any(
        name.lower() != value and name.lower() in value for name in _looked_up(planned) for value in found
    )


def _looked_up(planned: GuidedCall) -> list[str]:
    """The names a retail call looks up."""
    return [str(v) for key in _LOOKED_UP for v in planned.arguments.get(key) or []]
