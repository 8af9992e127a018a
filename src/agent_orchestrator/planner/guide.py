"""``QueryGuide``: the guide the embedded model server consults for every request that offers tools.

* The turn has its query tool's result: the answer is the result's ``answer``, as the tool wrote it.
* The question is a data question the reading covers: the call is made with the reading's arguments
  (a follow-up starts from the previous call's arguments: this turn's evidence only, plus what the
  question refers back to).
* It names something the tool says the data does not hold (profit), or words the reading does not
  understand and no other tool knows: "I can't answer that from this data", with what can be asked.
* Anything else (small talk, a customer's segment, a prediction) is left to the server's pipeline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from agent_orchestrator.local_model.guide import GuidedAnswer, GuidedCall

from .choices import free_the_name, side_by_side
from .entities import split_names
from .periods import absolute
from .reader import read
from .reading import Reading
from .vocabulary import Vocabulary, is_query_tool
from .words import normalize, stem

_QUESTION = re.compile(
    r"\?\s*$|^\s*(?:what|which|who|whom|whose|how|when|where|why|is|are|was|were|do|does|did|can|could"
    r"|will|would|should|has|have|had|show|give|tell|list)\b",
    re.IGNORECASE,
)
"""A question or a request, not a statement ("My focus today is the At Risk segment.")."""
_WHY = re.compile(r"\s*(?:but\s+|and\s+|so\s+)?why\b", re.IGNORECASE)
"""A question about causes: the figures can be given, the reasons are not in any data."""
_ON_THE_LIST = re.compile(r"\b(?:on|in|of|from)\s+(?:the|that|this|your)\s+list\b", re.IGNORECASE)
"""A row of a list shown earlier ("the second one on the list"), not of the last one-row answer."""
_RUNTIME_TAG = re.compile(r"<current_datetime>.*?</current_datetime>\s*", re.DOTALL)
_LABELS = {
    "avg_order_value": "average order value",
    "revenue_per_customer": "revenue per customer",
    "cancellations": "cancelled orders",
    "cancelled_revenue": "revenue lost to cancellations",
    "new_customers": "first-time customers",
    "repeat_customers": "repeat customers",
    "one_time_customers": "one-time customers",
    "orders_per_customer": "orders per customer",
    "units_per_order": "units per order",
    "cancellation_rate": "the cancellation rate",
    "repeat_rate": "the repeat customer rate",
    "last_purchase": "the last purchase",
    "first_purchase": "the first purchase",
    "units": "units sold",
    "overview": "an overview",
}


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return _RUNTIME_TAG.sub("", str(content or "")).strip()


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in message.get("tool_calls") or () if isinstance(c, dict)]


def _name(call: dict[str, Any]) -> str:
    return str((call.get("function") or {}).get("name") or "")


def _arguments(call: dict[str, Any]) -> dict[str, Any] | None:
    raw = (call.get("function") or {}).get("arguments")
    try:
        value = json.loads(raw) if isinstance(raw, str) else raw
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def _words(tool: dict[str, Any]) -> str:
    """Everything a tool's schema says, as lower-case text ("find_customers" -> "find customers"),
    less the names it gives as examples in capitals ("REGENCY CAKESTAND"): those are the data's."""
    return re.sub(r"\b[A-Z][A-Z0-9]+\b", " ", json.dumps(tool)).lower().replace("_", " ")


def can_ask(tool: dict[str, Any]) -> str:
    """What the query tool computes, from its own enums: the "what you can ask instead"."""
    props = ((tool.get("function") or {}).get("parameters") or {}).get("properties") or {}
    measures = [_LABELS.get(m, m) for m in props.get("measure", {}).get("enum", []) if m != "overview"]
    groups = list(props.get("group_by", {}).get("enum", []))
    text = "You can ask for " + ", ".join(measures)
    if groups:
        text += " — in total or by " + ", ".join(groups)
    return text + ", for any period, compared with an earlier one or as a share of the total."


def _previous(
    earlier: Sequence[dict[str, Any]], vocabulary: Vocabulary
) -> tuple[dict[str, Any] | None, str | None, list[tuple[str, str]]]:
    """The arguments of the last query call, if the last tool turn was one (a follow-up's base, less
    a name the data turned out not to hold); its
    period as the tool placed it ("latest year" -> ``2025``: "the year before" steps from there); and
    the rows it answered with (what "they" or "the first one" in the next question is)."""
    for at in range(len(earlier) - 1, -1, -1):
        calls = _calls(earlier[at])
        if not calls:
            continue
        call = calls[-1]
        if _name(call) != vocabulary.tool or (arguments := _arguments(call)) is None:
            return None, None, []
        result = _result(earlier[at + 1 :], str(call.get("id")))
        if isinstance(unmatched := result.get("unmatched"), str):  # a name the data lacks is no base
            arguments = {k: v for k, v in arguments.items() if k != unmatched}
        period, rows = result.get("period"), result.get("rows")
        placed = None
        if (
            isinstance(period, dict)
            and isinstance(period.get("first"), str)
            and isinstance(period.get("last"), str)
        ):
            placed = absolute(period["first"], period["last"])
        dimension = str(arguments.get("group_by") or "")
        listed = (
            [(dimension, str(r["key"])) for r in rows if isinstance(r, dict) and "key" in r]
            if isinstance(rows, list)
            else []
        )
        return arguments, placed, listed
    return None, None, []


def _priors(
    earlier: Sequence[dict[str, Any]], vocabulary: Vocabulary, most: int = 4
) -> list[tuple[dict[str, Any], str | None]]:
    """The query calls before the last one, most recent first, with their placed periods: "which
    was higher?" after two answers compares them, "which of those three was lowest?" three."""
    found: list[tuple[dict[str, Any], str | None]] = []
    while len(found) < most:
        at = next((i for i in range(len(earlier) - 1, -1, -1) if _calls(earlier[i])), None)
        if at is None:
            break
        earlier = earlier[:at]
        arguments, placed, _ = _previous(earlier, vocabulary)
        if arguments is None:
            break
        found.append((arguments, placed))
    return found


def _last_list(
    earlier: Sequence[dict[str, Any]], vocabulary: Vocabulary, most: int = 4
) -> tuple[dict[str, Any] | None, str | None, list[tuple[str, str]]]:
    """The most recent of the last ``most`` query calls that answered with a list: "the second one on
    the list" after a one-row answer is the second row of the list shown before it."""
    for _ in range(most):
        found = _previous(earlier, vocabulary)
        if found[0] is None or len(found[2]) >= 2:
            return found
        at = next((i for i in range(len(earlier) - 1, -1, -1) if _calls(earlier[i])), None)
        if at is None:
            break
        earlier = earlier[:at]
    return None, None, []


def _result(after: Sequence[dict[str, Any]], call_id: str) -> dict[str, Any]:
    """The query call's result as the tool returned it (empty if it is missing or not JSON)."""
    result = next(
        (m for m in after if m.get("role") == "tool" and str(m.get("tool_call_id")) == call_id), None
    )
    try:
        data = json.loads(_text(result)) if result is not None else None
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _refusal(
    reading: Reading, chat: Sequence[dict[str, Any]], others: frozenset[str], vocabulary: Vocabulary
) -> str | None:
    """Why the data cannot answer, when the reading shows it: a subject the tool says it lacks, two
    rankings at once, or words that neither the reading, another tool nor the chat so far knows."""
    if reading.not_in_data:
        subjects = ", ".join(dict.fromkeys(reading.not_in_data))
        return f"I can't answer that from this data: it holds no figures on {subjects}."
    label = _LABELS.get(str(reading.arguments.get("measure")), str(reading.arguments.get("measure")))
    if reading.names:
        named = ", ".join(f"'{n}'" for n in reading.names)
        return (
            f"I can't answer that in one step: it names several at once ({named}). Ask about one at a time."
        )
    if reading.several:
        asked = " and ".join(f"'{w}'" for w in [label, *dict.fromkeys(reading.several)])
        return (
            f"I can't answer that in one step: it asks for several figures at once ({asked}). "
            "Ask for one, then the other, or for an overview."
        )
    if reading.split_by:
        kinds = " or ".join(_LABELS.get(w, w) for w in dict.fromkeys(reading.split_by))
        return (
            f"I can't answer that from this data: it does not split {label} by {kinds}; "
            f"it can count the {kinds} on their own."
        )
    if reading.unpaired:
        return (
            "I can't answer that in one step: the last two answers differ in more than one period or "
            "one name, so there is no one figure to put side by side. Ask for both in one question."
        )
    if reading.conflicts:
        words = " and ".join(f"'{w}'" for w in dict.fromkeys(reading.conflicts))
        return (
            f"I can't answer that from this data in one step: it ranks two ways at once ({words}). "
            "Ask for one ranking, then the other."
        )
    question = _text(chat[-1])
    if (
        not reading.not_understood
        or not (reading.asks or _QUESTION.search(question))
        or reading.follow_up  # "which one comes second?": the pipeline reads the rows before
        or any(k.endswith("_id") for k in reading.arguments)  # the customer tools take ids
    ):
        return None
    said = _said(chat, vocabulary.tool)
    # a bare number may be an id another tool takes ("How much has 20017 spent?"); a word said before
    # is the chat's ("when is my deadline?")
    unknown = [w for w in reading.not_understood if stem(w) not in others | said and not _NUMBER.fullmatch(w)]
    if not unknown or len(unknown) != len(reading.not_understood):
        return None
    words = " or ".join(f"'{w}'" for w in dict.fromkeys(unknown))
    refusal = f"I can't answer that from this data: I don't know what {words} means here."
    names = sorted(set(vocabulary.entities.get(reading.unknown_kind or "", {}).values()))
    if names and len(names) <= 12:  # "the Champions segment": the segments there are
        refusal += f" The {reading.unknown_kind} in this data are {', '.join(names)}."
    return refusal


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""A figure the reading left: an id, or an amount another tool takes ("1,900 spent")."""


def _said(chat: Sequence[dict[str, Any]], tool: str) -> set[str]:
    """The stems of the words the user told before the last message: the chat's own words ("when is
    my deadline?", "which segment are we targeting?" after naming the target). Not those of the
    questions the query tool was called for: "party bunting" asked about earlier is a product to
    look up again, not something the user said."""
    told: set[str] = set()
    queried = False
    for m in reversed(chat[:-1]):  # from the end, so each message knows whether a query answered it
        if m.get("role") == "user":
            if not queried:
                told |= {stem(w) for w in re.findall(r"[a-z]+", _text(m).lower())}
            queried = False
        elif any(_name(c) == tool for c in _calls(m)):
            queried = True
    return told


def _lettered(word: str) -> bool:
    """Letters, a hyphen between them allowed ("t-light")."""
    return all(part.isalpha() for part in word.split("-"))


def _named_things(
    reading: Reading, question: str, vocabulary: Vocabulary, *, carried: bool = False
) -> list[str]:
    """The words not understood, when they may name things of the tool's free-text parameter
    (products): a run of words side by side in the question, letters only (a small number inside
    too), up to five words a name, in a question that asks for a figure and names no other such
    thing (``carried``: the one it names is the previous question's, which "how about X?" replaces);
    several names where the parameter takes a list and "and" joins them. The answer states what was
    looked up."""
    words = reading.not_understood
    free = vocabulary.free_text
    most = 5 * _MOST_NAMES if vocabulary.free_list else 5
    if (
        free is None
        or (free in reading.arguments and not carried)
        or not reading.asks
        or reading.not_in_data
        or reading.several
        or reading.names
        or reading.split_by
        or reading.unpaired
        or reading.conflicts
        or reading.unknown_kind is not None  # "the Champions segment": no product, a segment
        or any(k.endswith("_id") for k in reading.arguments)  # the customer tools take ids
        or not 1 <= len(set(words)) <= most  # "doormat fancy font home sweet home": five words
        or not all(_lettered(w) and len(w) >= 3 for w in words)
        or (len(words) == 1 and len(words[0]) < 5)  # "next", "win": too short to be taken for a name
        or any(w in vocabulary.words() for w in words)  # "besides": the tool's own word, misplaced
    ):
        return []
    typed = re.findall(r"[A-Za-z0-9][\w'&+-]*|,", question)  # a comma may part two names
    lowered = [w.lower() for w in typed]
    # the run from the first word left to the last: a name may hold the tool's words too ("pink love
    # shopper bag", "regency rose tin"), never a number
    at = [i for i, w in enumerate(lowered) if w in words]
    if not at or len({lowered[i] for i in at}) != len(set(words)):
        return []
    run = typed[at[0] : at[-1] + 1]
    # "the gin and tonic diet metal sign": one article, one name; "lanterns and candles", two
    one = at[0] > 0 and lowered[at[0] - 1] == "the" and "the" not in lowered[at[0] : at[-1] + 1]
    names = split_names(run) if vocabulary.free_list and not one else [run]
    # a small number inside is the name's ("regency cakestand 3 tier"), never a longer one
    if len(names) > _MOST_NAMES or not all(
        len({w.lower() for w in name} & set(words)) <= 5
        and len(name) <= 7
        and all(_lettered(w) or (w.isdigit() and len(w) <= 2) for w in name)
        for name in names
    ):
        return []
    return [" ".join(name) for name in names]


_MOST_NAMES = 4
"""Names looked up in one question at most ("lanterns, candles and bunting" is three)."""


def _call(reading: Reading, vocabulary: Vocabulary) -> GuidedCall | None:
    """The query call for a reading, or None for one customer's details the customer tools answer."""
    args = reading.arguments
    # "which products did customer 7 buy most?" ranks; "which segment is customer 7 in?" looks up
    ranked = "group_by" in args and ("order" in args or "rank" in args)
    compared = "compare" in args or "compare_with" in args  # "how does customer 7's 2025 compare?"
    if (
        any(k.endswith("_id") for k in args)
        and "measure" not in args
        and not ranked
        and not compared
        and not reading.follow_up
    ):
        if "group_by" in args:  # "which segment is customer 7 in?": the customer's figures say it
            return GuidedCall(
                vocabulary.tool,
                {k: v for k, v in args.items() if k not in ("group_by", "limit")} | {"measure": "overview"},
            )
        return None  # one customer's other details (a prediction, the reasons for a segment)
    return GuidedCall(vocabulary.tool, args)


_SENTENCE_END = re.compile(r"(?<=[.?!])\s+(?=\S)")


def _after_lead_in(
    text: str,
    vocabulary: Vocabulary,
    previous: dict[str, Any] | None,
    placed: str | None,
    listed: Sequence[tuple[str, str]],
    priors: Sequence[tuple[dict[str, Any], str | None]],
) -> Reading | None:
    """ "How concentrated are we? What share of revenue comes from our ten biggest customers?": the
    last sentence, when it reads whole and asks something of its own, and the sentences before it
    name nothing the tool knows (no figure, name or period: a lead-in). The answer states its
    reading, so what was left out shows."""
    *before, last = _SENTENCE_END.split(text.strip())
    if not before:
        return None
    reading = read(last, vocabulary, previous, placed, listed, priors)
    alone = read(last, vocabulary)  # "back again" asks nothing of its own, whatever came before
    if not reading.asks or reading.not_understood or not (alone.asks and alone.arguments):
        return None
    leads = (read(s, vocabulary) for s in before)
    if any(r.arguments or r.asks or r.not_in_data for r in leads):
        return None
    return reading


class QueryGuide:
    """Plans the steps a query tool can answer; stateless (everything is in the request)."""

    def __init__(self) -> None:
        self._vocabularies: dict[str, tuple[Vocabulary | None, dict[str, Any], frozenset[str]]] = {}

    def _vocabulary(
        self, tools: Sequence[dict[str, Any]]
    ) -> tuple[Vocabulary | None, dict[str, Any], frozenset[str]]:
        """The request's query tool, its words, and the other tools' words (cached per tool list)."""
        key = json.dumps(tools, sort_keys=True)
        cached = self._vocabularies.get(key)
        if cached is None:
            vocabulary, query_tool = next(
                ((v, dict(t)) for t in tools if (v := Vocabulary.of(t)) is not None), (None, {})
            )
            own = {stem(w) for w in vocabulary.words()} if vocabulary is not None else set()
            others = (
                frozenset(  # what only the other tools know: "month" is the query tool's word too
                    stem(w) for t in tools if not is_query_tool(t) for w in re.findall(r"[a-z]+", _words(t))
                )
                - own
            )
            if len(self._vocabularies) > 16:
                self._vocabularies.clear()
            cached = self._vocabularies[key] = (vocabulary, query_tool, others)
        return cached

    def step(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> GuidedCall | GuidedAnswer | None:
        vocabulary, query_tool, others = self._vocabulary(tools)
        if vocabulary is None:
            return None
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        if not users:
            return None
        last = users[-1]
        turn = messages[last + 1 :]
        if any(m.get("role") == "tool" for m in turn):
            answer = self._answer(turn, vocabulary)
            if answer is not None and _WHY.match(_text(messages[last])):
                return GuidedAnswer(
                    "I can't answer why from this data: it shows what happened, not the reasons. "
                    f"What happened: {answer.text}"
                )
            return answer
        previous, placed, listed = _previous(messages[:last], vocabulary)
        if len(listed) < 2 and _ON_THE_LIST.search(_text(messages[last])):
            previous, placed, listed = _last_list(messages[:last], vocabulary)
        priors = _priors(messages[:last], vocabulary)
        reading = read(_text(messages[last]), vocabulary, previous, placed, listed, priors)
        if reading.not_understood:
            reading = (
                _after_lead_in(_text(messages[last]), vocabulary, previous, placed, listed, priors) or reading
            )
        refusal = _refusal(reading, messages[: last + 1], others, vocabulary)
        free = vocabulary.free_text
        before = previous if reading.follow_up and previous is not None else {}
        carried = free is not None and free in before and reading.arguments.get(free) == before[free]
        if (
            free is not None
            and not any(
                stem(w) in others | _said(messages[: last + 1], vocabulary.tool)
                for w in reading.not_understood
            )
            and (names := _named_things(reading, _text(messages[last]), vocabulary, carried=carried))
        ):
            # "how is the party bunting doing?": the words left may be a product's, typed in lower
            # case; the tool looks them up and says so when nothing in the data is called that
            asked = _text(messages[last])
            arguments = dict(reading.arguments)
            free_the_name(arguments, names, vocabulary, asked)  # "regency rose tin": no comparison
            # "how about the pink love shopper bag?": the question before, about the thing named now
            kept = ("compare", "rank_by", "order", "measure")
            arguments |= {k: before[k] for k in kept if k in before and k not in arguments}
            arguments[free] = vocabulary.free_value(names)
            side_by_side(normalize(asked), arguments, vocabulary, asked)  # "compare A and B"
            return GuidedCall(vocabulary.tool, arguments)
        if refusal is not None:
            return GuidedAnswer(f"{refusal} {can_ask(query_tool)}")
        if not reading.asks or reading.not_understood:
            return None  # small talk, or not read whole but another tool may know it: the server's own
        return _call(reading, vocabulary)

    def owns(self, tool: dict[str, Any]) -> bool:
        """The query tool is only ever called with a reading; a step the guide left is not for it."""
        return is_query_tool(tool)

    def _answer(self, turn: Sequence[dict[str, Any]], vocabulary: Vocabulary) -> GuidedAnswer | None:
        names = {str(c.get("id")): _name(c) for m in turn for c in _calls(m)}
        results = [m for m in turn if m.get("role") == "tool"]
        ours = [m for m in results if names.get(str(m.get("tool_call_id"))) == vocabulary.tool]
        if not ours or len(ours) != len(results):
            return None
        return answer_of(ours[-1])


def answer_of(result: dict[str, Any]) -> GuidedAnswer | None:
    """A query tool's own answer, from its result message: the text it wrote by code."""
    try:
        data = json.loads(_text(result))
    except json.JSONDecodeError:
        return GuidedAnswer(
            "I can't answer that from this data: the lookup failed. Please rephrase the question."
        )
    if isinstance(data, dict) and isinstance(data.get("answer"), str):
        return GuidedAnswer(data["answer"])
    return None
